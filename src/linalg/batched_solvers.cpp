// Stacks of small matrices in one library call each: XsyevBatched or syevjBatched, gesvdjBatched (cuSOLVER) and
// geqrfBatched (cuBLAS). Builds on solver_support.hpp (pointer arrays, scratch from the pool) and the per-device
// handles.
#include "linalg/batched_solvers.hpp"

#include <algorithm>
#include <limits>
#include <ndcuda/linalg/detail/operands.hpp>
#include <string>
#include <type_traits>

#include "linalg/handles.hpp"
#include "linalg/lapack.hpp"
#include "linalg/library_check.hpp"
#include "linalg/solver_support.hpp"

namespace ndcuda::linalg::detail {

namespace {

template <class T>
using real_of = std::conditional_t<std::is_same_v<T, double> || std::is_same_v<T, cuDoubleComplex>, double, float>;

/// At most this many Jacobi sweeps; quadratic convergence takes far fewer for n <= 32 (cuSOLVER's default too).
constexpr int max_sweeps = 100;

/// syevjInfo_t / gesvdjInfo_t with the tolerance of the dtype, the sweep limit and sorted results; destroyed with the
/// call (the parameters are host-side; the batched routines read them when they are called).
template <class R>
struct syevj_params {
  syevjInfo_t p = nullptr;
  syevj_params() {
    NDCUDA_LIB_CHECK(cusolverDnCreateSyevjInfo(&p));
    try {
      NDCUDA_LIB_CHECK(cusolverDnXsyevjSetTolerance(p, std::numeric_limits<R>::epsilon()));
      NDCUDA_LIB_CHECK(cusolverDnXsyevjSetMaxSweeps(p, max_sweeps));
      NDCUDA_LIB_CHECK(cusolverDnXsyevjSetSortEig(p, 1));  // ascending, as NumPy
    } catch (...) {
      (void)cusolverDnDestroySyevjInfo(p);
      throw;
    }
  }
  syevj_params(const syevj_params&) = delete;
  syevj_params& operator=(const syevj_params&) = delete;
  ~syevj_params() { (void)cusolverDnDestroySyevjInfo(p); }
};

template <class R>
struct gesvdj_params {
  gesvdjInfo_t p = nullptr;
  gesvdj_params() {
    NDCUDA_LIB_CHECK(cusolverDnCreateGesvdjInfo(&p));
    try {
      NDCUDA_LIB_CHECK(cusolverDnXgesvdjSetTolerance(p, std::numeric_limits<R>::epsilon()));
      NDCUDA_LIB_CHECK(cusolverDnXgesvdjSetMaxSweeps(p, max_sweeps));
      NDCUDA_LIB_CHECK(cusolverDnXgesvdjSetSortEig(p, 1));  // descending, as NumPy
    } catch (...) {
      (void)cusolverDnDestroyGesvdjInfo(p);
      throw;
    }
  }
  gesvdj_params(const gesvdj_params&) = delete;
  gesvdj_params& operator=(const gesvdj_params&) = delete;
  ~gesvdj_params() { (void)cusolverDnDestroyGesvdjInfo(p); }
};

/// cuSOLVER's 64-bit parameter object, destroyed with the call.
struct dn_params {
  cusolverDnParams_t p = nullptr;
  dn_params() { NDCUDA_LIB_CHECK(cusolverDnCreateParams(&p)); }
  dn_params(const dn_params&) = delete;
  dn_params& operator=(const dn_params&) = delete;
  ~dn_params() { (void)cusolverDnDestroyParams(p); }
};

/// Matrices per XsyevBatched call: it launches a grid as wide as the batch (65535 at most).
constexpr index_t syev_batch_limit = 65535;

/// syevjBatched (Jacobi) over the whole stack: the path under graph capture.
void eigh_jacobi_batched(const erased_array& f, void* w, int ni, int bi, cusolverEigMode_t job, cublasFillMode_t fill,
                         int* info) {
  const stream& s = f.s;
  dispatch(f.type, [&]<class T>() {
    using R = real_of<T>;
    solver_lease h(s);
    const syevj_params<R> params;
    int lwork = 0;
    NDCUDA_LIB_CHECK(lapack::syevj_batched_size(h.get(), job, fill, ni, element<T>(f, 0), ni, static_cast<const R*>(w),
                                                &lwork, params.p, bi));
    void* work = nullptr;
    const auto work_owner = scratch(f.type, lwork, s, &work);
    NDCUDA_LIB_CHECK(lapack::syevj_batched(h.get(), job, fill, ni, element<T>(f, 0), ni, static_cast<R*>(w),
                                           static_cast<T*>(work), lwork, info, params.p, bi));
  });
}

/// XsyevBatched (CUDA 12.6+), in chunks of syev_batch_limit matrices. False, with nothing done, when it would need
/// host workspace (whose lifetime a stream-ordered call cannot promise).
bool eigh_syev_batched(const erased_array& f, void* w, index_t n, index_t count, cusolverEigMode_t job,
                       cublasFillMode_t fill, int* info) {
  const stream& s = f.s;
  solver_lease h(s);
  const dn_params params;
  const cudaDataType_t a_type = cuda_type(f.type);
  const cudaDataType_t w_type = cuda_type(real_dtype(f.type));
  const index_t chunk = std::min(count, syev_batch_limit);
  std::size_t device_bytes = 0;
  std::size_t host_bytes = 0;
  NDCUDA_LIB_CHECK(cusolverDnXsyevBatched_bufferSize(h.get(), params.p, job, fill, n, a_type, f.data(), n, w_type, w,
                                                     a_type, &device_bytes, &host_bytes, chunk));
  if (host_bytes != 0) {
    return false;
  }
  void* work = nullptr;
  const auto work_owner = ndcuda::detail::allocate_buffer(std::max<std::size_t>(device_bytes, 1), s, &work);
  const std::size_t a_bytes = static_cast<std::size_t>(n * n) * itemsize(f.type);
  const std::size_t w_bytes = static_cast<std::size_t>(n) * itemsize(real_dtype(f.type));
  for (index_t first = 0; first < count; first += chunk) {
    const index_t size = std::min(chunk, count - first);
    void* a = static_cast<char*>(f.data()) + static_cast<std::size_t>(first) * a_bytes;
    void* wf = static_cast<char*>(w) + static_cast<std::size_t>(first) * w_bytes;
    NDCUDA_LIB_CHECK(cusolverDnXsyevBatched(h.get(), params.p, job, fill, n, a_type, a, n, w_type, wf, a_type, work,
                                            device_bytes, nullptr, 0, info + first, size));
  }
  return true;
}

}  // namespace

void eigh_batched(const erased_array& f, void* w, index_t n, index_t count, bool upper, bool vectors, int* info) {
  const cusolverEigMode_t job = vectors ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
  const cublasFillMode_t fill = upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
  // XsyevBatched is what torch.linalg.eigh calls for stacks: on 1024 x 32^2 float32 the call took 623-672 us against
  // syevjBatched's 2143 at the dtype's epsilon (H100). Whether it records into a graph is not documented, so captures
  // keep the Jacobi routine.
  if (!f.s.is_capturing() && eigh_syev_batched(f, w, n, count, job, fill, info)) {
    return;
  }
  eigh_jacobi_batched(f, w, to_int(n, "eigh"), static_cast<int>(count), job, fill, info);
}

void svd_batched(const erased_array& f, void* s_values, void* u, void* v, index_t m, index_t n, index_t count,
                 bool vectors, int* info) {
  const stream& s = f.s;
  const int mi = to_int(m, "svd");
  const int ni = to_int(n, "svd");
  const int bi = static_cast<int>(count);
  dispatch(f.type, [&]<class T>() {
    using R = real_of<T>;
    solver_lease h(s);
    const gesvdj_params<R> params;
    const cusolverEigMode_t job = vectors ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
    int lwork = 0;
    NDCUDA_LIB_CHECK(lapack::gesvdj_batched_size(h.get(), job, mi, ni, element<T>(f, 0), mi,
                                                 static_cast<const R*>(s_values), static_cast<const T*>(u), mi,
                                                 static_cast<const T*>(v), ni, &lwork, params.p, bi));
    void* work = nullptr;
    const auto work_owner = scratch(f.type, lwork, s, &work);
    NDCUDA_LIB_CHECK(lapack::gesvdj_batched(h.get(), job, mi, ni, element<T>(f, 0), mi, static_cast<R*>(s_values),
                                            static_cast<T*>(u), mi, static_cast<T*>(v), ni, static_cast<T*>(work),
                                            lwork, info, params.p, bi));
  });
}

void qr_factor_batched(const erased_array& f, void* tau, index_t m, index_t n, index_t count) {
  const stream& s = f.s;
  const index_t k = std::min(m, n);
  const int mi = to_int(m, "qr");
  const int ni = to_int(n, "qr");
  dispatch(f.type, [&]<class T>() {
    void** ptrs = nullptr;
    const auto ptr_owner = pointer_arrays(
        s, count, {{f.data(), m * n * static_cast<index_t>(sizeof(T))}, {tau, k * static_cast<index_t>(sizeof(T))}},
        &ptrs);
    blas_lease h(s, 0);
    int argument_check = 0;  // cuBLAS reports invalid arguments here, on the host; the factorization cannot fail
    NDCUDA_LIB_CHECK(lapack::geqrf_batched(h.get(), mi, ni, reinterpret_cast<T* const*>(ptrs), mi,
                                           reinterpret_cast<T* const*>(ptrs + count), &argument_check,
                                           static_cast<int>(count)));
    if (argument_check != 0) {
      throw error("ndcuda internal error: cublas geqrfBatched rejected argument " + std::to_string(-argument_check));
    }
  });
}

}  // namespace ndcuda::linalg::detail
