/// @file
/// nd::size_arg: a `size` parameter as NumPy spells it (10, {4, 5}, a shape_t, nd::none).
/// Builds on core/shape.hpp.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <concepts>
#include <initializer_list>
#include <ndcuda/core/shape.hpp>
#include <optional>
#include <utility>

namespace ndcuda {

/// A `size` as NumPy spells it: an integer (a 1-d shape, `size=10`), a brace list or a shape_t
/// (`size=(4, 5)`), or nd::none, also the default (no size: the parameters' broadcast shape, or
/// one 0-d value). Random draws and `choice` take it.
class size_arg {
 public:
  // Implicit, each of them: a parameter spelled as NumPy's (size=10, size=(4, 5), size=None).
  /// No size (NumPy's size=None).
  size_arg() = default;
  /// nd::none: no size.
  size_arg(std::nullopt_t /*none*/) {}
  /// `n` elements along one dimension (size=10).
  template <std::integral I>
  requires(!std::same_as<I, bool>) size_arg(I n) : shape_(shape_t{static_cast<index_t>(n)}) {}
  /// A shape written out: {4, 5}.
  size_arg(std::initializer_list<index_t> dims) : shape_(shape_t(dims)) {}
  /// A shape: x.shape().
  size_arg(shape_t shape) : shape_(std::move(shape)) {}
  /// A shape or none.
  size_arg(std::optional<shape_t> shape) : shape_(std::move(shape)) {}

  /// Whether a size was given.
  [[nodiscard]] bool has_value() const noexcept { return shape_.has_value(); }
  /// The size given, or nullopt.
  [[nodiscard]] const std::optional<shape_t>& get() const noexcept { return shape_; }
  /// The size given, else a 0-d shape (one value, as NumPy's size=None draws).
  [[nodiscard]] shape_t or_scalar() const { return shape_.value_or(shape_t{}); }

 private:
  std::optional<shape_t> shape_;
};

}  // namespace ndcuda

#pragma GCC visibility pop
