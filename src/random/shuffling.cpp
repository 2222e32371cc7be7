// Gathers for the shuffling methods: whole rows by index, or elements within each row by index;
// in 8-, 4-, 2- or 1-byte units, whichever divides the row.
#include <ndcuda/core/error.hpp>
#include <ndcuda/jit/raw_kernel.hpp>
#include <ndcuda/random/shuffling.hpp>

namespace ndcuda::random::detail {
namespace {

constexpr const char* gather_source = R"(
template <class U>
__device__ void gather_rows(const U* in, U* out, const long long* idx, unsigned long long rows,
                            unsigned long long units) {
  const unsigned long long total = rows * units;
  for (unsigned long long t = blockIdx.x * 1ull * blockDim.x + threadIdx.x; t < total;
       t += 1ull * gridDim.x * blockDim.x) {
    const unsigned long long r = t / units;
    out[t] = in[(unsigned long long)idx[r] * units + (t - r * units)];
  }
}
template <class U>
__device__ void gather_within(const U* in, U* out, const long long* idx, unsigned long long total,
                              unsigned long long length, unsigned long long units) {
  for (unsigned long long t = blockIdx.x * 1ull * blockDim.x + threadIdx.x; t < total;
       t += 1ull * gridDim.x * blockDim.x) {
    const unsigned long long e = t / units;
    const unsigned long long row = e / length;
    out[t] = in[(row * length + (unsigned long long)idx[e]) * units + (t - e * units)];
  }
}
#define NDCUDA_GATHERS(U, suffix)                                                                       \
  extern "C" __global__ void nd_gather_rows_##suffix(const U* in, U* out, const long long* idx,         \
                                                     unsigned long long rows, unsigned long long units) { \
    gather_rows(in, out, idx, rows, units);                                                             \
  }                                                                                                     \
  extern "C" __global__ void nd_gather_within_##suffix(const U* in, U* out, const long long* idx,       \
                                                       unsigned long long total, unsigned long long length, \
                                                       unsigned long long units) {                      \
    gather_within(in, out, idx, total, length, units);                                                  \
  }
NDCUDA_GATHERS(unsigned char, u1)
NDCUDA_GATHERS(unsigned short, u2)
NDCUDA_GATHERS(unsigned int, u4)
NDCUDA_GATHERS(unsigned long long, u8)
)";

std::size_t unit_of(std::size_t bytes) {
  return bytes % 8 == 0 ? 8 : bytes % 4 == 0 ? 4 : bytes % 2 == 0 ? 2 : 1;
}

const raw_kernel& kernel(bool rows, std::size_t unit) {
  const auto make = [](const char* name) { return raw_kernel(gather_source, name); };
  static const raw_kernel kernels[2][4] = {
      {make("nd_gather_within_u1"), make("nd_gather_within_u2"), make("nd_gather_within_u4"),
       make("nd_gather_within_u8")},
      {make("nd_gather_rows_u1"), make("nd_gather_rows_u2"), make("nd_gather_rows_u4"), make("nd_gather_rows_u8")}};
  const int u = unit == 8 ? 3 : unit == 4 ? 2 : unit == 2 ? 1 : 0;
  return kernels[rows ? 1 : 0][u];
}

}  // namespace

void compile_gather_kernels(compute_capability cc) {
  for (bool rows : {false, true}) {
    for (std::size_t unit : {1, 2, 4, 8}) {
      kernel(rows, unit).compile(cc);
    }
  }
}

void gather_rows(const void* in, void* out, const std::int64_t* idx, index_t rows, std::size_t row_bytes,
                 const stream& s) {
  if (rows == 0 || row_bytes == 0) {
    return;
  }
  const std::size_t unit = unit_of(row_bytes);
  const auto units = static_cast<unsigned long long>(row_bytes / unit);
  const auto n = static_cast<unsigned long long>(rows);
  const raw_kernel& k = kernel(true, unit);
  k.launch(k.occupancy_config(static_cast<std::size_t>(n * units), s), s, in, out, idx, n, units);
}

void gather_within_rows(const void* in, void* out, const std::int64_t* idx, index_t rows, index_t length,
                        std::size_t itemsize, const stream& s) {
  if (rows == 0 || length == 0) {
    return;
  }
  const std::size_t unit = unit_of(itemsize);
  const auto units = static_cast<unsigned long long>(itemsize / unit);
  const auto total = static_cast<unsigned long long>(rows * length) * units;
  const raw_kernel& k = kernel(false, unit);
  k.launch(k.occupancy_config(static_cast<std::size_t>(total), s), s, in, out, idx, total,
           static_cast<unsigned long long>(length), units);
}

}  // namespace ndcuda::random::detail
