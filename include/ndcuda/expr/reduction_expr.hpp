/// @file
/// nd::reduction_expr: what nd::sum, nd::max, nd::mean, nd::var ... return, a lazy node (as
/// xtensor's reducers are). Used on its own it runs the reduction engine once, as before; inside a
/// larger expression the evaluation may fuse it with the work around it (expr/row_fusion.hpp:
/// softmax and layer norm written as in NumPy become one row-resident kernel). Builds on
/// expr/{tree,detail/reduce_engine}.hpp; the members that run the engine are defined with the
/// planner (expr/plan.hpp).
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <cstdint>
#include <ndcuda/array/creation.hpp>
#include <ndcuda/array/ndarray.hpp>
#include <ndcuda/core/dtype.hpp>
#include <ndcuda/expr/detail/reduce_engine.hpp>
#include <ndcuda/expr/tree.hpp>
#include <optional>
#include <utility>
#include <vector>

namespace ndcuda {

template <detail::reduce_kind K, class D, class N>
class reduction_expr;

namespace detail {

/// The result dtype of reduction K of node type N; D (not void) overrides it (NumPy's dtype=).
template <reduce_kind K, class D, class N>
constexpr dtype result_dtype() noexcept {
  if constexpr (std::is_void_v<D>) {
    return reduce_result(K, N::type());
  } else {
    return dtype_of<std::remove_cv_t<D>>;
  }
}

template <reduce_kind K, class D, class N>
constexpr reduce_spec spec_for() noexcept {
  constexpr dtype result = result_dtype<K, D, N>();
  return reduce_spec{K, compute_type(N::type()), reduce_accumulator(K, N::type(), result), result};
}

/// The planner's reduction (expr/plan.hpp): a new array holding reduction K of x; `known`, the
/// checked call when the caller made it already.
template <reduce_kind K, class D, class X>
auto reduce(const X& x, const std::optional<std::vector<int>>& axes, bool keepdims, const stream* s, double param,
            const reduce_call* known = nullptr);

/// Seen from an enclosing tree (defined below).
template <class L, reduce_kind K, class D, class N>
void collect(const reduction_expr<K, D, N>& x, L& out);

}  // namespace detail

/// The value of one NumPy reduction (`nd::sum(x, 1, nd::keepdims)`), not yet computed: a node that
/// expressions take as an operand. Assigning it to an array, or calling item(), to_host() or
/// evaluate(), runs the reduction; inside an expression it is computed where the expression is
/// evaluated, fused with it where the shapes allow (a keepdims reduction over the trailing axes of
/// the expression's shape: softmax, log-softmax, layer norm, centring). Like every expression it
/// holds its operands by value and reads them when evaluated, so write `nd::ndarray<float> m =
/// nd::max(x, 1);` to keep a value that later writes to x must not change.
template <detail::reduce_kind K, class D, class N>
class [[nodiscard]] reduction_expr
    : public lazy_array<reduction_expr<K, D, N>, type_of<detail::result_dtype<K, D, N>()>> {
 public:
  /// Marks the type as an ndcuda expression (array_expression).
  using is_ndcuda_expression = void;
  /// The result dtype (NumPy's, or D where given: nd::sum<double>).
  [[nodiscard]] static constexpr dtype type() noexcept { return detail::result_dtype<K, D, N>(); }
  /// The reduction's name, for messages and profiler ranges.
  static constexpr const char* op_name = detail::reduction_of(K).name;
  /// As an operand of an expression it reads like one array (its result).
  static constexpr int arrays = 1;
  /// It adds no scalar parameter to an enclosing kernel.
  static constexpr int scalars = 0;
  /// The C++ type of the result dtype.
  using value_type = type_of<detail::result_dtype<K, D, N>()>;
  /// The reduction (for the engine).
  static constexpr detail::reduce_kind kind = K;
  /// The result dtype asked for (NumPy's dtype=), or void.
  using result_override = D;

  /// Reduction K of `input` over `axes` (nullopt: all); the axes are checked now, with NumPy's
  /// messages. `s`: the stream to run on (nullptr: the first array's). `param`: ddof for var/std.
  reduction_expr(N input, std::optional<std::vector<int>> axes, bool keepdims, const stream* s, double param)
      : input_(std::move(input)), axes_(std::move(axes)), keepdims_(keepdims), param_(param), stream_(stream_of(s)) {
    detail::leaves_of<N> leaves;
    detail::collect(input_, leaves);
    call_ = detail::prepare_reduction(K, {leaves.arrays.data(), leaves.arrays.size()}, axes_, keepdims_);
    layout_ = contiguous_layout(call_.result_shape);
    device_ = leaves.arrays[0].device;
  }

  /// Runs the reduction into a new C-contiguous array (one engine call, as an eager reduction,
  /// with the call checked here; defined in expr/plan.hpp).
  [[nodiscard]] ndarray<value_type> materialize() const;
  /// The value as a new array of dtype E (the reduction, then a conversion when E differs).
  template <array_element E>
  [[nodiscard]] ndarray<E> evaluate() const {
    if constexpr (std::is_same_v<E, value_type>) {
      return materialize();
    } else {
      ndarray<E> out = empty<E>(shape(), stream_);
      assign_to(out);
      return out;
    }
  }
  /// Writes the value into `out`'s memory, broadcast to its shape (defined in expr/plan.hpp).
  template <array_element E>
  void assign_to(const ndarray<E>& out) const;
  /// The value converted to T inside the enclosing kernel, as expr::astype.
  template <array_element T>
  [[nodiscard]] expr<detail::cast_op<dtype_of<std::remove_cv_t<T>>>, reduction_expr> astype() const {
    return {{*this}};
  }

  /// The result's shape (NumPy's, keepdims included), known without running anything.
  [[nodiscard]] const shape_t& shape() const noexcept { return layout_.shape; }
  /// The stream the reduction runs on.
  [[nodiscard]] const ndcuda::stream& stream() const noexcept { return stream_; }
  /// The device of its operands.
  [[nodiscard]] int device() const noexcept { return device_; }

  /// The reduced operand (a node).
  [[nodiscard]] const N& input() const noexcept { return input_; }
  /// The reduced axes as given (nullopt: all).
  [[nodiscard]] const std::optional<std::vector<int>>& axes() const noexcept { return axes_; }
  /// Whether the reduced axes stay as axes of extent 1.
  [[nodiscard]] bool keepdims() const noexcept { return keepdims_; }
  /// ddof for var and std; 0 otherwise.
  [[nodiscard]] double param() const noexcept { return param_; }
  /// The checked call: shapes and reduced axes (for the engine).
  [[nodiscard]] const detail::reduce_call& call() const noexcept { return call_; }
  /// The operand's broadcast shape.
  [[nodiscard]] const shape_t& input_shape() const noexcept { return call_.shape; }
  /// The result's C-contiguous layout (what an enclosing expression sees of it before evaluation).
  [[nodiscard]] const view_layout& layout() const noexcept { return layout_; }

 private:
  // The stream given, else the first operand's (a stream is not default-constructed: that would
  // create one on the current device).
  ndcuda::stream stream_of(const ndcuda::stream* s) const {
    if (s != nullptr) {
      return *s;
    }
    return *detail::first_leaf(input_).s;
  }

  N input_;
  std::optional<std::vector<int>> axes_;
  bool keepdims_;
  double param_;
  ndcuda::stream stream_;
  detail::reduce_call call_;  // the axes checked and the shapes, once, when the node is built
  view_layout layout_;
  int device_ = 0;
};

namespace detail {

template <reduce_kind K, class D, class N>
inline constexpr bool is_expr<reduction_expr<K, D, N>> = true;
template <reduce_kind K, class D, class N>
inline constexpr bool has_lazy_v<reduction_expr<K, D, N>> = true;
template <class T>
inline constexpr bool is_reduction_expr = false;
template <reduce_kind K, class D, class N>
inline constexpr bool is_reduction_expr<reduction_expr<K, D, N>> = true;

/// Seen from an enclosing tree before it is lowered, a lazy reduction is one array of its result's
/// shape with no memory yet: enough for shapes and streams (expr::evaluate, operand shapes). The
/// engines never see it: evaluation lowers it first (lower, below).
template <class L, reduce_kind K, class D, class N>
void collect(const reduction_expr<K, D, N>& x, L& out) {
  out.arrays[static_cast<std::size_t>(out.array_count++)] = result_leaf(x);
}

/// The tree with every lazy reduction computed into an array (inner ones first): what the engines
/// evaluate when no fused kernel applies. Three passes over the input for a NumPy-spelled softmax
/// (max, sum of exp, the quotient) and no full-size temporary.
template <class X>
X lower(const X& x) {
  return x;
}
template <opaque_node X>
array_leaf<typename X::value_type> lower(const X& x) {  // a node computed whole (expr/tree.hpp)
  return {x.materialize()};
}
template <reduce_kind K, class D, class N>
array_leaf<type_of<reduction_expr<K, D, N>::type()>> lower(const reduction_expr<K, D, N>& x) {
  return {x.materialize()};
}
template <class Op, class... A>
auto lower(const expr<Op, A...>& x) {
  if constexpr (!(has_lazy_v<A> || ...)) {
    return x;
  } else {
    return std::apply([](const auto&... a) { return expr<Op, decltype(lower(a))...>{{lower(a)...}}; }, x.args);
  }
}

}  // namespace detail
}  // namespace ndcuda

#pragma GCC visibility pop
