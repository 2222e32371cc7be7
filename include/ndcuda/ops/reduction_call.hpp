/// @file
/// What a reduction call takes besides its operand: the axes (nd::axes), nd::keepdims, nd::ddof,
/// where=/initial= (ops/reduction_options.hpp) and a stream, in any order, and their parsing into
/// one reduce_options. Builds on ops/reduction_options.hpp and core/shape.hpp.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <concepts>
#include <initializer_list>
#include <ndcuda/device/stream.hpp>
#include <ndcuda/ops/reduction_options.hpp>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

namespace ndcuda {

/// Which axes a reduction folds: all of them (default), one (`1`, `-1`), or a set (`{0, 2}`).
/// Negative axes count from the end, as in NumPy.
class axes {
 public:
  axes() = default;
  /// One axis. Not from bool: `sum(x, true)` must not mean axis 1 (write nd::keepdims).
  template <std::integral I>
  requires(!std::is_same_v<I, bool>) axes(I axis)  // NOLINT: implicit, as NumPy's axis=1
      : list_(std::vector<int>{static_cast<int>(axis)}) {}
  /// A set of axes: `{0, 2}`.
  axes(std::initializer_list<int> list) : list_(std::vector<int>(list)) {}
  /// A set of axes known at run time.
  explicit axes(std::vector<int> list) : list_(std::move(list)) {}
  /// nullopt: every axis.
  [[nodiscard]] const std::optional<std::vector<int>>& list() const noexcept { return list_; }

 private:
  std::optional<std::vector<int>> list_;
};

/// keepdims=True: `nd::sum(x, 1, nd::keepdims)`, or `nd::keepdims(flag)` for a value known at run
/// time. A typed option, so that a bare `true` in a reduction's arguments never compiles.
struct keepdims_t {
  bool value = true;  ///< whether the reduced axes stay as axes of extent 1
  /// keepdims with a value known at run time: `nd::keepdims(flag)`.
  [[nodiscard]] constexpr keepdims_t operator()(bool v) const noexcept { return keepdims_t{v}; }
};
/// NumPy's keepdims=True for a reduction: `nd::sum(x, 1, nd::keepdims)`.
inline constexpr keepdims_t keepdims{};

/// var/std's delta degrees of freedom: `nd::var(x, 1, nd::ddof(1))`.
struct ddof {
  /// Divide by N - v instead of N.
  constexpr explicit ddof(int v) noexcept : value(v) {}
  int value;  ///< the delta degrees of freedom
};

/// What a reduction takes after its axes, in any order: nd::keepdims, nd::ddof(n) (var and std
/// and their nan forms), nd::where_mask(m), nd::initial(v) (ops/reduction_options.hpp) and the
/// stream to run on (default: the first array's stream). A bare bool is accepted here only to be
/// refused with a message naming nd::keepdims (reduce_options), instead of a list of candidates.
template <class O>
concept reduce_option =
    std::is_same_v<std::remove_cvref_t<O>, keepdims_t> || std::is_same_v<std::remove_cvref_t<O>, ddof> ||
    std::is_same_v<std::remove_cvref_t<O>, stream> || std::is_same_v<std::remove_cvref_t<O>, where_mask_t> ||
    std::is_same_v<std::remove_cvref_t<O>, initial> || std::is_same_v < std::remove_cvref_t<O>,
bool > ;

namespace detail {

/// The options of one reduction call, parsed from its trailing arguments.
struct reduce_options {
  bool keepdims = false;
  int delta_dof = 0;
  const stream* s = nullptr;
  std::optional<ndarray<bool>> where;   ///< where=: the mask as given (broadcast later)
  std::optional<ndcuda::initial> init;  ///< initial=

  template <reduce_option... O>
  explicit reduce_options(const O&... o) {
    static_assert((!std::is_same_v<O, bool> && ...),
                  "a bare true/false is not keepdims (nor an axis, nor ddof): write nd::sum(x, 1, nd::keepdims), "
                  "nd::keepdims(flag) for a value known at run time, or nd::ddof(1) for var/std");
    if constexpr ((!std::is_same_v<O, bool> && ...)) {
      (set(o), ...);
    }
  }

 private:
  void set(const keepdims_t& k) { keepdims = k.value; }
  void set(const ndcuda::ddof& d) { delta_dof = d.value; }
  void set(const stream& st) { s = &st; }
  void set(const where_mask_t& w) { where = w.mask; }
  void set(const ndcuda::initial& i) { init = i; }
};

inline std::optional<std::vector<int>> one_axis(std::optional<int> axis) {
  return axis ? std::optional<std::vector<int>>(std::vector<int>{*axis}) : std::nullopt;
}

}  // namespace detail
}  // namespace ndcuda

#pragma GCC visibility pop
