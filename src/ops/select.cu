// The compactions behind masks and nonzero: CUB's DeviceSelect::Flagged over positions or items,
// writing at most `limit` results (so nd::size(k) needs no host wait), and a count of true flags.
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/discard_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_select.cuh>
#include <cuda/std/iterator>
#include <ndcuda/device/detail/capture.hpp>
#include <ndcuda/ops/detail/compaction.hpp>
#include <string>

#include "cub_call.cuh"

namespace ndcuda::detail {
namespace {

/// An output iterator that drops writes at positions >= limit.
template <class T>
struct bounded_out {
  using iterator_category = cuda::std::random_access_iterator_tag;
  using value_type = T;
  using difference_type = long long;
  using pointer = T*;
  struct reference {
    T* p;
    bool keep;
    __host__ __device__ reference& operator=(const T& v) {
      if (keep) {
        *p = v;
      }
      return *this;
    }
  };
  T* data;
  long long at;
  long long limit;
  __host__ __device__ reference operator[](difference_type i) const { return {data + at + i, at + i < limit}; }
  __host__ __device__ reference operator*() const { return (*this)[0]; }
  __host__ __device__ bounded_out operator+(difference_type i) const { return {data, at + i, limit}; }
  __host__ __device__ bounded_out& operator+=(difference_type i) {
    at += i;
    return *this;
  }
  __host__ __device__ bounded_out& operator++() {
    ++at;
    return *this;
  }
  __host__ __device__ difference_type operator-(const bounded_out& o) const { return at - o.at; }
};

struct flag_of_row {
  const bool* mask;
  long long row;
  __host__ __device__ bool operator()(long long i) const { return mask[i / row]; }
};

struct as_count {
  __host__ __device__ long long operator()(bool b) const { return b ? 1 : 0; }
};

struct bytes16 {
  unsigned long long lo, hi;
};

template <class U>
void select_as(const void* items, const bool* mask, index_t n, index_t row, void* out, index_t limit, const stream& s) {
  const device_guard guard(s.device());  // the runtime launches on the current device: the stream's
  const U* in = static_cast<const U*>(items);
  const bounded_out<U> o{static_cast<U*>(out), 0, limit};
  auto count = thrust::make_discard_iterator();
  if (row == 1) {
    run_cub("cub::DeviceSelect::Flagged", s, [&](void* temp, std::size_t& bytes) {
      return cub::DeviceSelect::Flagged(temp, bytes, in, mask, o, count, static_cast<long long>(n), s.handle());
    });
  } else {
    const auto flags = thrust::make_transform_iterator(thrust::make_counting_iterator<long long>(0),
                                                       flag_of_row{mask, static_cast<long long>(row)});
    run_cub("cub::DeviceSelect::Flagged", s, [&](void* temp, std::size_t& bytes) {
      return cub::DeviceSelect::Flagged(temp, bytes, in, flags, o, count, static_cast<long long>(n), s.handle());
    });
  }
}

}  // namespace

index_t count_true(const bool* mask, index_t n, const stream& s, const char* what) {
  const device_guard guard(s.device());  // the runtime launches on the current device: the stream's
  if (s.is_capturing()) {
    throw capture_error(
        std::string(what) +
        "'s result size is known only on the device, so it waits for it on the host, but its "
        "stream is capturing a CUDA graph. Give a static size instead, e.g. a(mask, nd::size(k), fill), "
        "nd::nonzero(a, nd::size(k)) or nd::extract(mask, a, nd::size(k), fill): these capture like "
        "any other op");
  }
  if (n <= 0) {
    return 0;
  }
  void* p = nullptr;
  const auto owner = allocate_buffer(sizeof(long long), s, &p);
  auto* total = static_cast<long long*>(p);
  const auto ones = thrust::make_transform_iterator(mask, as_count{});
  run_cub("cub::DeviceReduce::Sum", s, [&](void* temp, std::size_t& bytes) {
    return cub::DeviceReduce::Sum(temp, bytes, ones, total, static_cast<long long>(n), s.handle());
  });
  long long host = 0;
  check_cuda(cudaMemcpyAsync(&host, total, sizeof(host), cudaMemcpyDeviceToHost, s.handle()),
             "cudaMemcpyAsync(count of true elements)");
  synchronize_for(s, what);
  return static_cast<index_t>(host);
}

void select_positions(const bool* mask, index_t n, std::int64_t* out, index_t limit, const stream& s) {
  const device_guard guard(s.device());  // the runtime launches on the current device: the stream's
  if (n <= 0 || limit <= 0) {
    return;
  }
  const auto positions = thrust::make_counting_iterator<long long>(0);
  const bounded_out<long long> o{reinterpret_cast<long long*>(out), 0, limit};
  auto count = thrust::make_discard_iterator();
  run_cub("cub::DeviceSelect::Flagged", s, [&](void* temp, std::size_t& bytes) {
    return cub::DeviceSelect::Flagged(temp, bytes, positions, mask, o, count, static_cast<long long>(n), s.handle());
  });
}

void select_items(std::size_t itemsize, const void* items, const bool* mask, index_t n, index_t row, void* out,
                  index_t limit, const stream& s) {
  if (n <= 0 || limit <= 0) {
    return;
  }
  switch (itemsize) {
    case 1:
      return select_as<std::uint8_t>(items, mask, n, row, out, limit, s);
    case 2:
      return select_as<std::uint16_t>(items, mask, n, row, out, limit, s);
    case 4:
      return select_as<std::uint32_t>(items, mask, n, row, out, limit, s);
    case 8:
      return select_as<std::uint64_t>(items, mask, n, row, out, limit, s);
    case 16:
      return select_as<bytes16>(items, mask, n, row, out, limit, s);
    default:
      throw error("select_items: no element type of " + std::to_string(itemsize) + " bytes");
  }
}

}  // namespace ndcuda::detail
