// numpy.linalg's factorizations through cuSOLVER: every operand is first copied into a
// column-major buffer of the computation dtype (the factorizations overwrite their input, so the
// copy is needed anyway), then stacks of small matrices are factored in one batched call
// (batched_solvers.cpp) and larger ones one matrix after the other.
#include <algorithm>
#include <climits>
#include <cstring>
#include <initializer_list>
#include <ndcuda/array/detail/kernels.hpp>
#include <ndcuda/linalg/detail/entry_points.hpp>
#include <ndcuda/linalg/detail/operands.hpp>
#include <ndcuda/linalg/linalg_error.hpp>
#include <ndcuda/memory/detail/buffer.hpp>
#include <string>
#include <type_traits>
#include <utility>

#include "linalg/batched_solvers.hpp"
#include "linalg/erased_ops.hpp"
#include "linalg/handles.hpp"
#include "linalg/info_check.hpp"
#include "linalg/lapack.hpp"
#include "linalg/library_check.hpp"
#include "linalg/solver_kernels.hpp"
#include "linalg/solver_support.hpp"

namespace ndcuda::linalg::detail {

namespace {

shape_t batch_of(const erased_array& x) {
  return shape_t(x.layout.shape.begin(), x.layout.shape.end() - 2);
}

void require_matrix(const erased_array& a, const char* what) {
  if (a.ndim() < 2) {
    throw linalg_error(std::string(what) + ": " + std::to_string(a.ndim()) +
                       "-dimensional array given. Array must be at least two-dimensional");
  }
}

void require_square(const erased_array& a, const char* what) {
  require_matrix(a, what);
  const auto& s = a.layout.shape;
  if (s[s.size() - 1] != s[s.size() - 2]) {
    throw linalg_error(std::string(what) + ": Last 2 dimensions of the array must be square (shape " + format_shape(s) +
                       ")");
  }
}

/// Identity matrices (batch..., n, n), contiguous.
erased_array identities(dtype type, const shape_t& batch, index_t n, const stream& s) {
  shape_t shape = batch;
  shape.push_back(n);
  shape.push_back(n);
  erased_array e = zeros_array(type, shape, s);
  const index_t count = shape_size(batch);
  unsigned char one[16] = {};
  switch (type) {
    case dtype::float32:
    case dtype::complex64: {
      const float v = 1.0f;
      std::memcpy(one, &v, sizeof v);
      break;
    }
    default: {
      const double v = 1.0;
      std::memcpy(one, &v, sizeof v);
      break;
    }
  }
  for (index_t b = 0; b < count && n > 0; ++b) {
    ndcuda::detail::fill_pattern(static_cast<char*>(e.data()) + b * n * n * static_cast<index_t>(itemsize(type)),
                                 itemsize(type), one, n, n + 1, s);
  }
  return e;
}

/// Stacks of at most this size go through cuBLAS's batched LU (one launch for the stack); larger
/// matrices through cuSOLVER's blocked getrf, one matrix at a time.
constexpr index_t batched_lu_limit = 64;

bool use_batched_lu(index_t n, index_t count) {
  return count > 1 && n <= batched_lu_limit && count <= INT_MAX;
}

/// LU-factors the column-major matrices of `a` (batch, n, n) in place: pivots and an info code
/// per matrix (`codes`, device memory).
template <class T>
void lu_factor(const erased_array& a, index_t n, index_t batch, int* ipiv, int* codes) {
  if (n == 0 || batch == 0) {
    return;
  }
  const int ni = to_int(n, "LU factorization");
  if (use_batched_lu(n, batch)) {
    void** ptrs = nullptr;
    const auto ptr_owner = pointer_arrays(a.s, batch, {{a.data(), n * n * static_cast<index_t>(sizeof(T))}}, &ptrs);
    blas_lease h(a.s, 0);
    NDCUDA_LIB_CHECK(lapack::getrf_batched(h.get(), ni, reinterpret_cast<T* const*>(ptrs), ni, ipiv, codes,
                                           static_cast<int>(batch)));
    return;
  }
  solver_lease h(a.s);
  int lwork = 0;
  NDCUDA_LIB_CHECK(lapack::getrf_size(h.get(), ni, ni, element<T>(a, 0), ni, &lwork));
  void* work = nullptr;
  const auto work_owner = scratch(a.type, lwork, a.s, &work);
  for (index_t b = 0; b < batch; ++b) {
    NDCUDA_LIB_CHECK(
        lapack::getrf(h.get(), ni, ni, element<T>(a, b * n * n), ni, static_cast<T*>(work), ipiv + b * n, codes + b));
  }
}

}  // namespace

erased_array solve(const erased_array& a_in, const erased_array& b_in, bool b_vector, dtype type) {
  require_square(a_in, "solve");
  const stream s = a_in.s;
  const erased_array b0 = on_stream(b_in, s);
  const index_t n = a_in.layout.shape.back();
  // b as matrices (..., n, k): a vector b is one column.
  erased_array bm = b0;
  if (b_vector) {
    bm.layout.shape.push_back(1);
    bm.layout.strides.push_back(0);
  }
  if (bm.ndim() < 2 || bm.layout.shape[bm.layout.shape.size() - 2] != n) {
    const index_t got = bm.ndim() < 2 ? 0 : bm.layout.shape[bm.layout.shape.size() - 2];
    throw shape_error(
        "solve: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature "
        "(m,m),(m,n)->(m,n) (size " +
        std::to_string(got) + " is different from " + std::to_string(n) + ")");
  }
  const index_t k = bm.layout.shape.back();
  shape_t batch;
  try {
    batch = broadcast_shapes(batch_of(a_in), batch_of(bm));
  } catch (const shape_error&) {
    throw shape_error("solve: the batch dimensions of a " + format_shape(a_in.layout.shape) + " and b " +
                      format_shape(b_in.layout.shape) + " do not broadcast");
  }
  const index_t count = shape_size(batch);
  erased_array lu = column_major_copy(a_in, type, batch);
  erased_array x = column_major_copy(bm, type, batch);
  info_check info(s, count, "solve", "Singular matrix");
  if (n > 0 && k > 0 && count > 0) {
    void* ipiv = nullptr;
    const auto ipiv_owner = scratch(dtype::int32, n * count, s, &ipiv);
    dispatch(type, [&]<class T>() {
      lu_factor<T>(lu, n, count, static_cast<int*>(ipiv), info.at(0));
      const int ni = to_int(n, "solve");
      const int ki = to_int(k, "solve");
      if (use_batched_lu(n, count)) {
        void** ptrs = nullptr;
        const auto ptr_owner = pointer_arrays(
            s, count,
            {{lu.data(), n * n * static_cast<index_t>(sizeof(T))}, {x.data(), n * k * static_cast<index_t>(sizeof(T))}},
            &ptrs);
        blas_lease h(s, 0);
        int argument_check = 0;  // cuBLAS reports invalid arguments here, on the host
        NDCUDA_LIB_CHECK(lapack::getrs_batched(h.get(), CUBLAS_OP_N, ni, ki, reinterpret_cast<const T* const*>(ptrs),
                                               ni, static_cast<int*>(ipiv), reinterpret_cast<T* const*>(ptrs + count),
                                               ni, &argument_check, static_cast<int>(count)));
        if (argument_check != 0) {
          throw error("ndcuda internal error: cublas getrsBatched rejected argument " +
                      std::to_string(-argument_check));
        }
        return;
      }
      solver_lease h(s);
      int* scratch_code = nullptr;
      const auto code_owner = scratch_info(s, &scratch_code);
      for (index_t b = 0; b < count; ++b) {
        NDCUDA_LIB_CHECK(lapack::getrs(h.get(), CUBLAS_OP_N, ni, ki, element<T>(lu, b * n * n), ni,
                                       static_cast<int*>(ipiv) + b * n, element<T>(x, b * n * k), ni, scratch_code));
      }
    });
  }
  info.finish();
  if (b_vector) {
    x.layout.shape.pop_back();
    x.layout.strides.pop_back();
  }
  return x;
}

erased_array inv(const erased_array& a, dtype type) {
  require_square(a, "inv");
  const index_t n = a.layout.shape.back();
  const erased_array eye = identities(type, {}, n, a.s);
  // solve broadcasts the identity against a's batch.
  erased_array r = solve(a, eye, false, type);
  return r;
}

std::pair<erased_array, erased_array> slogdet(const erased_array& a, dtype type, bool det_only) {
  require_square(a, det_only ? "det" : "slogdet");
  const stream s = a.s;
  const shape_t batch = batch_of(a);
  const index_t n = a.layout.shape.back();
  const index_t count = shape_size(batch);
  erased_array lu = column_major_copy(a, type, batch);
  erased_array sign = empty_array(type, batch, s);
  erased_array logabs = det_only ? erased_array{} : empty_array(real_dtype(type), batch, s);
  void* ipiv = nullptr;
  const auto ipiv_owner = scratch(dtype::int32, n * count, s, &ipiv);
  // A singular matrix is no error here: its determinant is 0 (log: -inf). The codes stay unread.
  int* codes = nullptr;
  const auto codes_owner = ndcuda::detail::allocate_buffer(
      static_cast<std::size_t>(count > 0 ? count : 1) * sizeof(int), s, reinterpret_cast<void**>(&codes));
  if (n > 0 && count > 0) {
    dispatch(type, [&]<class T>() { lu_factor<T>(lu, n, count, static_cast<int*>(ipiv), codes); });
  }
  lu_determinant(type, lu.data(), static_cast<const int*>(ipiv), sign.data(), det_only ? nullptr : logabs.data(), n,
                 count, det_only, s);
  return {sign, logabs};
}

erased_array cholesky(const erased_array& a, dtype type, bool upper) {
  require_square(a, "cholesky");
  const stream s = a.s;
  const shape_t batch = batch_of(a);
  const index_t n = a.layout.shape.back();
  const index_t count = shape_size(batch);
  erased_array l = column_major_copy(a, type, batch);
  info_check info(s, count, "cholesky", "Matrix is not positive definite");
  if (n > 0 && count > 0) {
    dispatch(type, [&]<class T>() {
      solver_lease h(s);
      // The column-major buffer holds a itself: cuSOLVER's lower triangle is a's lower triangle.
      const cublasFillMode_t fill = upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
      const int ni = to_int(n, "cholesky");
      if (!upper && use_batched_lu(n, count)) {
        // cuSOLVER's batched Cholesky (lower factors; the upper ones loop): one call for the whole stack of small
        // matrices.
        void** ptrs = nullptr;
        const auto ptr_owner = pointer_arrays(s, count, {{l.data(), n * n * static_cast<index_t>(sizeof(T))}}, &ptrs);
        NDCUDA_LIB_CHECK(lapack::potrf_batched(h.get(), fill, ni, reinterpret_cast<T**>(ptrs), ni, info.at(0),
                                               static_cast<int>(count)));
        return;
      }
      int lwork = 0;
      NDCUDA_LIB_CHECK(lapack::potrf_size(h.get(), fill, ni, element<T>(l, 0), ni, &lwork));
      void* work = nullptr;
      const auto work_owner = scratch(type, lwork, s, &work);
      for (index_t b = 0; b < count; ++b) {
        NDCUDA_LIB_CHECK(
            lapack::potrf(h.get(), fill, ni, element<T>(l, b * n * n), ni, static_cast<T*>(work), lwork, info.at(b)));
      }
    });
  }
  info.finish();
  zero_triangle(l, upper);
  return l;
}

std::pair<erased_array, erased_array> qr(const erased_array& a, dtype type, int mode) {
  require_matrix(a, "qr");
  const stream s = a.s;
  const shape_t batch = batch_of(a);
  const index_t m = a.layout.shape[a.layout.shape.size() - 2];
  const index_t n = a.layout.shape.back();
  const index_t k = std::min(m, n);
  const index_t count = shape_size(batch);
  erased_array f = column_major_copy(a, type, batch);
  void* tau = nullptr;
  const auto tau_owner = scratch(type, k * count, s, &tau);
  int* code = nullptr;
  const auto code_owner = scratch_info(s, &code);
  const int mi = to_int(m, "qr");
  const int ni = to_int(n, "qr");
  const int ki = to_int(k, "qr");
  const bool batched = use_batched_qr(m, n, count);
  if (batched) {
    qr_factor_batched(f, tau, m, n, count);
  } else if (k > 0 && count > 0) {
    dispatch(type, [&]<class T>() {
      solver_lease h(s);
      int lwork = 0;
      NDCUDA_LIB_CHECK(lapack::geqrf_size(h.get(), mi, ni, element<T>(f, 0), mi, &lwork));
      void* work = nullptr;
      const auto work_owner = scratch(type, lwork, s, &work);
      for (index_t b = 0; b < count; ++b) {
        NDCUDA_LIB_CHECK(lapack::geqrf(h.get(), mi, ni, element<T>(f, b * m * n), mi, static_cast<T*>(tau) + b * k,
                                       static_cast<T*>(work), lwork, code));
      }
    });
  }
  // R: the first k rows (all m for "complete") of the factor, upper triangle.
  const index_t r_rows = mode == 1 ? m : k;
  view_layout rl = f.layout;
  rl.shape[rl.shape.size() - 2] = r_rows;
  erased_array r = contiguous_copy(with_layout(f, rl), type);
  zero_triangle(r, true);
  if (mode == 2) {
    return {r, erased_array{}};
  }
  const index_t q_cols = mode == 1 ? m : k;
  if (batched) {
    // Q for the whole stack in one launch (one thread per column), into a column-major m x q_cols buffer per matrix
    // read row-major through swapped strides.
    shape_t qs = batch;
    qs.push_back(q_cols);
    qs.push_back(m);
    erased_array qb = empty_array(type, qs, s);
    householder_q(type, f.data(), tau, qb.data(), m, n, k, q_cols, count, s);
    const std::size_t nd = qs.size();
    std::swap(qb.layout.shape[nd - 1], qb.layout.shape[nd - 2]);
    std::swap(qb.layout.strides[nd - 1], qb.layout.strides[nd - 2]);
    return {qb, r};
  }
  erased_array q;
  if (q_cols <= n) {
    // Q's columns are the first q_cols columns of the factor, formed in place.
    q = f;
    q.layout.shape[q.layout.shape.size() - 1] = q_cols;
  } else {
    // complete with m > n: an m x m column-major buffer whose first n columns are the reflectors
    // (orgqr reads only those).
    shape_t qb = batch;
    qb.push_back(m);
    qb.push_back(m);
    q = empty_array(type, qb, s);
    std::swap(q.layout.strides[qb.size() - 1], q.layout.strides[qb.size() - 2]);
    view_layout head = q.layout;
    head.shape.back() = n;
    copy_into(with_layout(q, head), f);
  }
  if (m > 0 && q_cols > 0 && count > 0) {
    const index_t batch_stride = q.layout.shape.size() > 2 ? m * (q_cols <= n ? n : m) : 0;
    dispatch(type, [&]<class T>() {
      solver_lease h(s);
      const int qi = to_int(q_cols, "qr");
      int lwork = 0;
      NDCUDA_LIB_CHECK(lapack::orgqr_size(h.get(), mi, qi, ki, element<T>(q, 0), mi, static_cast<T*>(tau), &lwork));
      void* work = nullptr;
      const auto work_owner = scratch(type, lwork, s, &work);
      for (index_t b = 0; b < count; ++b) {
        NDCUDA_LIB_CHECK(lapack::orgqr(h.get(), mi, qi, ki, element<T>(q, b * batch_stride), mi,
                                       static_cast<T*>(tau) + b * k, static_cast<T*>(work), lwork, code));
      }
    });
  }
  return {q, r};
}

svd_result svd(const erased_array& a, dtype type, bool full_matrices, bool compute_uv) {
  require_matrix(a, "svd");
  const stream s = a.s;
  const shape_t batch = batch_of(a);
  const index_t m = a.layout.shape[a.layout.shape.size() - 2];
  const index_t n = a.layout.shape.back();
  const index_t k = std::min(m, n);
  const index_t count = shape_size(batch);
  const dtype rt = real_dtype(type);
  erased_array f = column_major_copy(a, type, batch);
  shape_t s_shape = batch;
  s_shape.push_back(k);
  svd_result out;
  out.s = empty_array(rt, s_shape, s);
  const index_t u_cols = full_matrices ? m : k;
  const index_t v_cols = full_matrices ? n : k;
  if (use_batched_svd(m, n, count)) {
    // gesvdjBatched computes the full U (m x m) and V (n x n) of every matrix: the reduced factors are views of
    // their first k columns.
    shape_t u_store = batch, v_store = batch;
    u_store.insert(u_store.end(), {m, m});
    v_store.insert(v_store.end(), {n, n});
    erased_array ub = empty_array(type, u_store, s);
    erased_array vb = empty_array(type, v_store, s);
    info_check info(s, count, "svd", "SVD did not converge");
    svd_batched(f, out.s.data(), ub.data(), vb.data(), m, n, count, compute_uv, info.at(0));
    mark_nan_failures(rt, out.s.data(), info.at(0), k, count, static_cast<int>(k + 1), s);
    // NumPy's LAPACK fails on NaN input; the Jacobi solver may return finite values for it (checked
    // on the input once the solver has written the info codes).
    mark_nan_failures(rt, column_major_copy(a, type, batch).data(), info.at(0), m * n * (is_complex(type) ? 2 : 1),
                      count, static_cast<int>(k + 1), s);
    info.finish();
    if (compute_uv) {
      // Column-major U read row-major: swapped strides; its first u_cols columns.
      view_layout ul{u_store, c_strides(u_store), 0};
      std::swap(ul.strides[ul.strides.size() - 1], ul.strides[ul.strides.size() - 2]);
      ul.shape.back() = u_cols;
      out.u = with_layout(ub, ul);
      // Column-major V read row-major is V^T (Vh up to the conjugation the caller applies): its first v_cols rows.
      view_layout vl{v_store, c_strides(v_store), 0};
      vl.shape[vl.shape.size() - 2] = v_cols;
      out.vh = with_layout(vb, vl);
    }
    return out;
  }
  if (compute_uv) {
    if (k == 0) {
      // Nothing to factor: the full singular vectors of an empty matrix are identity matrices.
      shape_t u_shape = batch, v_shape = batch;
      u_shape.insert(u_shape.end(), {m, u_cols});
      v_shape.insert(v_shape.end(), {v_cols, n});
      out.u = full_matrices ? identities(type, batch, m, s) : empty_array(type, u_shape, s);
      out.vh = full_matrices ? identities(type, batch, n, s) : empty_array(type, v_shape, s);
      return out;
    }
    shape_t u_store = batch;  // column-major U: (batch, u_cols, m) C order
    u_store.push_back(u_cols);
    u_store.push_back(m);
    out.u = empty_array(type, u_store, s);
    shape_t v_store = batch;  // column-major V (n x v_cols) is Vh^T ... i.e. row-major (v_cols, n)
    v_store.push_back(v_cols);
    v_store.push_back(n);
    out.vh = empty_array(type, v_store, s);
  }
  if (k > 0 && count > 0) {
    info_check info(s, count, "svd", "SVD did not converge");
    dispatch(type, [&]<class T>() {
      using R = std::conditional_t<std::is_same_v<T, double> || std::is_same_v<T, cuDoubleComplex>, double, float>;
      solver_lease h(s);
      gesvdjInfo_t params = nullptr;
      NDCUDA_LIB_CHECK(cusolverDnCreateGesvdjInfo(&params));
      struct destroy {
        gesvdjInfo_t p;
        ~destroy() { (void)cusolverDnDestroyGesvdjInfo(p); }
      } guard{params};
      const cusolverEigMode_t job = compute_uv ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
      const int econ = full_matrices ? 0 : 1;
      const int mi = to_int(m, "svd");
      const int ni = to_int(n, "svd");
      T* u = compute_uv ? element<T>(out.u, 0) : nullptr;
      T* v = compute_uv ? element<T>(out.vh, 0) : nullptr;
      // cuSOLVER wants valid leading dimensions and buffers even without vectors.
      void* dummy = nullptr;
      const auto dummy_owner = compute_uv ? nullptr : scratch(type, std::max(m, n) * std::max(m, n), s, &dummy);
      if (!compute_uv) {
        u = static_cast<T*>(dummy);
        v = static_cast<T*>(dummy);
      }
      int lwork = 0;
      NDCUDA_LIB_CHECK(lapack::gesvdj_size(h.get(), job, econ, mi, ni, element<T>(f, 0), mi,
                                           static_cast<const R*>(out.s.data()), u, mi, v, ni, &lwork, params));
      void* work = nullptr;
      const auto work_owner = scratch(type, lwork, s, &work);
      for (index_t b = 0; b < count; ++b) {
        T* ub = compute_uv ? u + b * m * u_cols : u;
        T* vb = compute_uv ? v + b * n * v_cols : v;
        NDCUDA_LIB_CHECK(lapack::gesvdj(h.get(), job, econ, mi, ni, element<T>(f, b * m * n), mi,
                                        static_cast<R*>(out.s.data()) + b * k, ub, mi, vb, ni, static_cast<T*>(work),
                                        lwork, info.at(b), params));
      }
    });
    mark_nan_failures(rt, out.s.data(), info.at(0), k, count, static_cast<int>(k + 1), s);
    // NumPy's LAPACK fails on NaN input; the Jacobi solver may return finite values for it (checked
    // on the input once the solver has written the info codes).
    mark_nan_failures(rt, column_major_copy(a, type, batch).data(), info.at(0), m * n * (is_complex(type) ? 2 : 1),
                      count, static_cast<int>(k + 1), s);
    info.finish();
  }
  if (compute_uv) {
    // U column-major (m x u_cols): the row-major view swaps the last two strides.
    shape_t us = batch;
    us.push_back(m);
    us.push_back(u_cols);
    strides_t ust = c_strides(shape_t{out.u.layout.shape});
    std::swap(ust[ust.size() - 1], ust[ust.size() - 2]);
    out.u.layout = view_layout{us, ust, 0};
    // V column-major (n x v_cols) read row-major is V^T (v_cols x n): Vh up to conjugation,
    // which the caller applies for complex types.
  }
  return out;
}

namespace {

/// One syevd per matrix (matrices above the batched Jacobi limit, or a single one).
void eigh_looped(const erased_array& f, const erased_array& w, dtype type, index_t n, index_t count, bool upper,
                 bool vectors, info_check& info) {
  const stream& s = f.s;
  dispatch(type, [&]<class T>() {
    using R = std::conditional_t<std::is_same_v<T, double> || std::is_same_v<T, cuDoubleComplex>, double, float>;
    solver_lease h(s);
    const cusolverEigMode_t job = vectors ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
    const cublasFillMode_t fill = upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
    const int ni = to_int(n, "eigh");
    int lwork = 0;
    NDCUDA_LIB_CHECK(
        lapack::syevd_size(h.get(), job, fill, ni, element<T>(f, 0), ni, static_cast<const R*>(w.data()), &lwork));
    void* work = nullptr;
    const auto work_owner = scratch(type, lwork, s, &work);
    for (index_t b = 0; b < count; ++b) {
      NDCUDA_LIB_CHECK(lapack::syevd(h.get(), job, fill, ni, element<T>(f, b * n * n), ni,
                                     static_cast<R*>(w.data()) + b * n, static_cast<T*>(work), lwork, info.at(b)));
    }
  });
}

}  // namespace

std::pair<erased_array, erased_array> eigh(const erased_array& a, dtype type, bool upper, bool vectors) {
  require_square(a, vectors ? "eigh" : "eigvalsh");
  const stream s = a.s;
  const shape_t batch = batch_of(a);
  const index_t n = a.layout.shape.back();
  const index_t count = shape_size(batch);
  const dtype rt = real_dtype(type);
  erased_array f = column_major_copy(a, type, batch);
  shape_t w_shape = batch;
  w_shape.push_back(n);
  erased_array w = empty_array(rt, w_shape, s);
  if (n > 0 && count > 0) {
    info_check info(s, count, vectors ? "eigh" : "eigvalsh", "Eigenvalues did not converge");
    // NumPy's LAPACK fails on a NaN in the triangle it reads; the Jacobi solvers may return finite
    // values for such a matrix. Checked on a copy once the solver has written the info codes (it
    // overwrites f); the other triangle is never read: zeroed, it cannot count.
    const erased_array read = column_major_copy(a, type, batch);
    zero_triangle(read, upper);
    if (use_batched_eigh(n, count)) {
      eigh_batched(f, w.data(), n, count, upper, vectors, info.at(0));
    } else {
      eigh_looped(f, w, type, n, count, upper, vectors, info);
    }
    mark_nan_failures(rt, w.data(), info.at(0), n, count, static_cast<int>(n + 1), s);
    mark_nan_failures(rt, read.data(), info.at(0), n * n * (is_complex(type) ? 2 : 1), count, static_cast<int>(n + 1),
                      s);
    info.finish();
  }
  if (!vectors) {
    return {w, erased_array{}};
  }
  return {w, f};  // columns of the column-major buffer are the eigenvectors: f's layout reads v[i, j]
}

}  // namespace ndcuda::linalg::detail
