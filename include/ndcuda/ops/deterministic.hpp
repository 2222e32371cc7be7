/// @file
/// nd::deterministic: sums and means whose bits depend only on the values and their C-order
/// positions, never on the array's layout, alignment, stream or (with dist::sum) the number of
/// GPUs. The array is cut into fixed blocks of 2^14 elements; each block is summed in one fixed
/// order and the block sums in a fixed tree, in double, then rounded once. No anchor (NumPy, CuPy,
/// CCCL's gpu_to_gpu determinism) keeps bits across a change of device count. Builds on
/// array/ and ops/detail/deterministic_kernels.hpp; docs/distributed.md has the definition.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <ndcuda/array/creation.hpp>
#include <ndcuda/array/ndarray.hpp>
#include <ndcuda/array/view_functions.hpp>
#include <ndcuda/expr/expression.hpp>
#include <ndcuda/ops/detail/deterministic_kernels.hpp>
#include <type_traits>

namespace ndcuda {

/// The tag of the deterministic reductions: nd::sum(x, nd::deterministic).
struct deterministic_t {
  explicit constexpr deterministic_t() = default;
};
/// Asks a sum or mean for the same bits on any layout and any number of GPUs.
inline constexpr deterministic_t deterministic{};

namespace detail {

template <class T>
inline constexpr bool deterministic_summable = std::is_same_v<T, float> || std::is_same_v<T, double>;

/// The fixed-order sum (or mean) of a C-contiguous array, a 0-d array on its stream; no host wait.
template <array_element T>
ndarray<T> deterministic_reduce(const ndarray<T>& a, bool mean) {
  static_assert(deterministic_summable<T>,
                "nd::deterministic sums float32 and float64; integer sums are exact with plain nd::sum, and "
                "float16/bfloat16 convert with astype<float>() first");
  const stream& s = a.stream();
  const ndarray<double> partials = empty<double>({deterministic_blocks(a.size())}, s);
  deterministic_block_sums(dtype_of<T>, a.data(), a.size(), partials.data(), s);
  ndarray<T> out = empty<T>({}, s);
  deterministic_total(partials.data(), partials.size(), mean ? static_cast<double>(a.size()) : 1.0, dtype_of<T>,
                      out.data(), s);
  return out;
}

}  // namespace detail

/// The sum of every element of x (an array or a lazy value, computed first), in the fixed order of
/// nd::deterministic: a 0-d array of x's dtype (float32 or float64), the same bits whatever x's
/// strides, offset or stream, and the same as dist::sum(x, nd::deterministic) on any GPU count.
template <array_operand X>
[[nodiscard]] auto sum(const X& x, deterministic_t /*unused*/) {
  return detail::deterministic_reduce(ascontiguousarray(x), false);
}

/// The mean of every element of x in the fixed order of nd::deterministic: the fixed-order sum in
/// double divided by the count, rounded once to x's dtype.
template <array_operand X>
[[nodiscard]] auto mean(const X& x, deterministic_t /*unused*/) {
  return detail::deterministic_reduce(ascontiguousarray(x), true);
}

}  // namespace ndcuda

#pragma GCC visibility pop
