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

// The generator's non-template sampling methods: defined here, not in the header, so that a
// program's translation units do not each instantiate the expressions and reductions they use.
namespace ndcuda::random {

ndarray<std::int64_t> generator::permutation(index_t n, stream_arg sa) const {
  const ndcuda::detail::op_range<"generator::permutation"> nvtx;
  const stream s = sa.get();
  if (n < 0) {
    throw value_error("permutation: n = " + std::to_string(n) + " is negative; pass a size >= 0");
  }
  const ndarray<std::uint64_t> keys = random_bits({n}, s);
  return argsort(keys, 0, s);
}

ndarray<std::int64_t> generator::choice_indices(index_t n, index_t k, bool replace,
                                                const std::optional<ndarray<double>>& p, stream_arg sa) const {
  const stream s = sa.get();
  if (n == 0 && k > 0) {
    throw value_error("choice: a cannot be empty unless no samples are taken (NumPy's ValueError)");
  }
  if (p && (p->ndim() != 1 || p->size() != n)) {
    throw shape_error("choice: p must be 1-dimensional and as long as a (" + std::to_string(n) + "), got shape " +
                      format_shape(p->shape()));
  }
  if (!replace && k > n) {
    throw value_error("choice: cannot take a larger sample (" + std::to_string(k) + ") than the population (" +
                      std::to_string(n) + ") when replace is false (NumPy's ValueError)");
  }
  if (!p) {
    if (replace) {
      return integers<std::int64_t>(std::int64_t{0}, static_cast<std::int64_t>(n), shape_t{k}, false, s);
    }
    return permutation(n, s)(slice(0, k)).copy();
  }
  const ndarray<double> weights = p->on_stream(s);
  // NumPy's checks, for both methods: every weight finite and non-negative, and the sum 1 within
  // sqrt(eps). ({1.5, -0.5, 0, 0, 0} sums to 1 and was accepted.)
  if (n > 0) {
    const double smallest = min(weights).item();
    if (!(smallest >= 0.0) || !std::isfinite(max(weights).item())) {
      throw value_error("choice: probabilities are not non-negative (p holds " + std::to_string(smallest) +
                        "; every entry must be finite and >= 0; NumPy's ValueError)");
    }
  }
  if (!replace) {
    // Efraimidis-Spirakis: the k smallest E_i / p_i (E_i exponential) are a weighted sample
    // without replacement, drawn as NumPy's sequential method draws it.
    if (nd_count(weights) < k) {
      throw value_error("choice: fewer non-zero entries in p than size (NumPy's ValueError)");
    }
    if (const double total = sum(weights).item(); !(std::abs(total - 1.0) <= std::sqrt(2.220446049250313e-16))) {
      throw value_error("choice: probabilities do not sum to 1 (they sum to " + std::to_string(total) +
                        "; NumPy's ValueError)");
    }
    const ndarray<double> keys = standard_exponential<double>({n}, s) / weights;
    return argsort(keys, 0, s)(slice(0, k)).copy();
  }
  const ndarray<double> cdf = cumsum(weights, 0, s);
  const double total = cdf(n - 1).item();
  if (!(std::abs(total - 1.0) <= std::sqrt(2.220446049250313e-16))) {
    throw value_error("choice: probabilities do not sum to 1 (they sum to " + std::to_string(total) +
                      "; NumPy's ValueError)");
  }
  const ndarray<double> u = random<double>({k}, s) * total;
  const ndarray<std::int64_t> idx = searchsorted(cdf, u, side::right, s);
  return where(idx > std::int64_t{n - 1}, std::int64_t{n - 1}, idx);
}

ndarray<std::int64_t> generator::choice(index_t n, const size_arg& size_given, bool replace, const choice_weights& p,
                                        stream_arg sa) const {
  const ndcuda::detail::op_range<"generator::choice"> nvtx;
  const stream s = sa.get();
  if (n < 0) {
    throw value_error("choice: a must be a positive integer, got " + std::to_string(n));
  }
  const shape_t size = size_given.or_scalar();  // none: one value, 0-d
  return choice_indices(n, shape_size(size), replace, p.get(), s).reshape(size);
}

index_t generator::nd_count(const ndarray<double>& w) {
  return static_cast<index_t>(count_nonzero(w).item());
}

}  // namespace ndcuda::random
