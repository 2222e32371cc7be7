// cumsum/cumprod's device part: CUB's decoupled look-back scan, one call for one row or for many
// (a scan by key on the row index, computed on the fly), instantiated per accumulator type only.
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <cub/device/device_scan.cuh>
#include <cuda/std/complex>
#include <cuda/std/functional>

#include "cub_call.cuh"

namespace ndcuda::detail {
namespace {

/// Row of element i. A 32-bit division when every index fits: it is several times cheaper than
/// a 64-bit one, which would otherwise bound the scan below memory speed.
struct row_of {
  long long segment;
  bool narrow;
  __host__ __device__ long long operator()(long long i) const {
    return narrow ? static_cast<long long>(static_cast<unsigned>(i) / static_cast<unsigned>(segment)) : i / segment;
  }
};

template <class T, class Op>
void scan_as(const void* in, void* out, index_t n, index_t segment, const stream& s) {
  const device_guard guard(s.device());  // the runtime launches on the current device: the stream's
  const T* d_in = static_cast<const T*>(in);
  T* d_out = static_cast<T*>(out);
  const long long items = n;
  if (segment >= n) {
    run_cub("cub::DeviceScan::InclusiveScan", s, [&](void* temp, std::size_t& bytes) {
      return cub::DeviceScan::InclusiveScan(temp, bytes, d_in, d_out, Op{}, items, s.handle());
    });
  } else {
    const auto rows =
        thrust::make_transform_iterator(thrust::make_counting_iterator<long long>(0), row_of{segment, n <= 0x7fffffff});
    run_cub("cub::DeviceScan::InclusiveScanByKey", s, [&](void* temp, std::size_t& bytes) {
      return cub::DeviceScan::InclusiveScanByKey(temp, bytes, rows, d_in, d_out, Op{}, items,
                                                 cuda::std::equal_to<long long>{}, s.handle());
    });
  }
}

template <class T>
void scan_with(scan_op op, const void* in, void* out, index_t n, index_t segment, const stream& s) {
  const device_guard guard(s.device());  // the runtime launches on the current device: the stream's
  if (op == scan_op::sum) {
    scan_as<T, cuda::std::plus<T>>(in, out, n, segment, s);
  } else {
    scan_as<T, cuda::std::multiplies<T>>(in, out, n, segment, s);
  }
}

}  // namespace

void inclusive_scan(dtype acc, scan_op op, const void* in, void* out, index_t n, index_t segment, const stream& s) {
  const device_guard guard(s.device());  // the runtime launches on the current device: the stream's
  if (n <= 0) {
    return;
  }
  if (segment <= 0 || n % segment != 0) {
    throw error("inclusive_scan: " + std::to_string(n) + " elements do not split into rows of " +
                std::to_string(segment));
  }
  switch (acc) {
    case dtype::uint64:
      return scan_with<unsigned long long>(op, in, out, n, segment, s);
    case dtype::float32:
      return scan_with<float>(op, in, out, n, segment, s);
    case dtype::float64:
      return scan_with<double>(op, in, out, n, segment, s);
    case dtype::complex64:
      return scan_with<cuda::std::complex<float>>(op, in, out, n, segment, s);
    case dtype::complex128:
      return scan_with<cuda::std::complex<double>>(op, in, out, n, segment, s);
    default:
      throw error("inclusive_scan: " + std::string(name(acc)) +
                  " is not a scan accumulator (uint64, float32, float64, complex64, complex128)");
  }
}

}  // namespace ndcuda::detail
