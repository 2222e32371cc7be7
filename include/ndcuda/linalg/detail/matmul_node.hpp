/// @file
/// The lazy node nd::matmul_expr (what nd::matmul returns, as reductions are lazy nodes) and the
/// linalg::activation of epilogues. On its own the node is one cuBLAS call; the rewrite of
/// act(matmul + bias) into one cuBLASLt call is linalg/detail/epilogue_rewrite.hpp, which builds on
/// this file, and <ndcuda/linalg/matmul_expr.hpp> includes both before it defines nd::matmul. Builds
/// on expr/evaluate.hpp (opaque_node, is_expr) and linalg/detail/{entry_points,matmul_plan}.hpp.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <ndcuda/core/detail/nvtx.hpp>
#include <ndcuda/expr/evaluate.hpp>
#include <ndcuda/linalg/detail/entry_points.hpp>
#include <ndcuda/linalg/detail/matmul_plan.hpp>
#include <ndcuda/linalg/detail/operands.hpp>
#include <ndcuda/ops/elementwise.hpp>
#include <utility>

namespace ndcuda {

namespace linalg {
/// The activation of matmul_epilogue (and of the epilogues recognised in expressions). gelu is the
/// tanh approximation 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))), as cuBLASLt computes it.
enum class activation { none = 0, relu = 1, gelu = 2 };
}  // namespace linalg

/// The value of numpy.matmul(a, b) with result dtype R, not yet computed: a node expressions take
/// as an operand. Assigning it to an array, or calling item(), to_host() or evaluate(), runs the
/// product; inside an expression it is computed when the expression is evaluated, and
/// `nd::maximum(nd::matmul(a, b) + bias, 0)` (or nd::gelu of it, or just matmul + bias) becomes one
/// cuBLASLt call with that epilogue. Shapes and dtypes are checked at construction, with NumPy's
/// messages. Like every expression it holds its operands by value and reads them when evaluated:
/// write `nd::ndarray<float> c = nd::matmul(a, b);` to keep a value that later writes to a or b
/// must not change, and bind a product used twice in one expression to an array first (each use
/// computes it).
template <array_element R>
class [[nodiscard]] matmul_expr : public lazy_array<matmul_expr<R>, R> {
 public:
  /// Marks the type as an ndcuda expression (array_expression).
  using is_ndcuda_expression = void;
  /// Computed whole by linalg, never by an elementwise or reduction engine (ops' opaque_node).
  using computed_whole = void;
  /// The result dtype (NumPy's promotion of the operands).
  [[nodiscard]] static constexpr dtype type() noexcept { return dtype_of<R>; }
  /// The operation's name, for messages and profiler ranges.
  static constexpr const char* op_name = "matmul";
  /// As an operand of an expression it reads like one array (its result).
  static constexpr int arrays = 1;
  /// It adds no scalar parameter to an enclosing kernel.
  static constexpr int scalars = 0;
  /// The C++ type of the result dtype.
  using value_type = R;

  /// The product of `a` and `b` (any dtypes; converted to R when computed), on a's stream. Checks
  /// the shapes now (NumPy's matmul rules and messages).
  matmul_expr(linalg::detail::erased_array a, linalg::detail::erased_array b)
      : a_(std::move(a)), b_(std::move(b)), stream_(a_.s), device_(a_.device) {
    const linalg::detail::matmul_plan p = linalg::detail::plan_matmul(a_.layout.shape, b_.layout.shape);
    layout_ = contiguous_layout(p.out_shape);
    k_ = p.k;
  }

  /// Runs the product into a new C-contiguous array (one cuBLAS call, or the exact integer kernel).
  [[nodiscard]] ndarray<R> materialize() const {
    const ndcuda::detail::op_range<"nd::matmul"> nvtx;
    return linalg::detail::restore<R>(linalg::detail::matmul(a_, b_, type()));
  }
  /// The value as a new array of dtype E (the product, then a conversion when E differs).
  template <array_element E>
  [[nodiscard]] ndarray<E> evaluate() const {
    if constexpr (std::is_same_v<E, R>) {
      return materialize();
    } else {
      return materialize().template astype<E>();
    }
  }
  /// Writes the value into `out`'s memory, broadcast to its shape and converted to its dtype.
  /// `c(nd::ellipsis) = nd::matmul(a, b)` into a C-contiguous c of the product's shape and dtype
  /// that shares no memory with a or b is cuBLAS writing into c: nothing is allocated. Any other
  /// target (broadcast, converted, strided, overlapping) takes the product, then a copy.
  template <array_element E>
  void assign_to(const ndarray<E>& out) const {
    if constexpr (std::is_same_v<std::remove_cv_t<E>, R>) {
      const linalg::detail::erased_array target = linalg::detail::erase(out);
      if (k_ > 0 && out.shape() == shape() && out.is_contiguous() && !linalg::detail::may_share(target, a_) &&
          !linalg::detail::may_share(target, b_)) {
        const ndcuda::detail::op_range<"nd::matmul"> nvtx;
        linalg::detail::matmul_into(target, a_, b_);
        return;
      }
    }
    out.assign(materialize());
  }
  /// The value converted to T inside the enclosing kernel, as expr::astype.
  template <array_element T>
  [[nodiscard]] expr<detail::cast_op<dtype_of<std::remove_cv_t<T>>>, matmul_expr> astype() const {
    return {{*this}};
  }

  /// The result's shape (NumPy's), known without running anything.
  [[nodiscard]] const shape_t& shape() const noexcept { return layout_.shape; }
  /// The stream the product runs on (a's).
  [[nodiscard]] const ndcuda::stream& stream() const noexcept { return stream_; }
  /// The device of its operands.
  [[nodiscard]] int device() const noexcept { return device_; }

  /// The left operand as given (type-erased).
  [[nodiscard]] const linalg::detail::erased_array& a() const noexcept { return a_; }
  /// The right operand as given (type-erased).
  [[nodiscard]] const linalg::detail::erased_array& b() const noexcept { return b_; }
  /// The contracted extent.
  [[nodiscard]] index_t inner_extent() const noexcept { return k_; }
  /// The result's C-contiguous layout (what an enclosing expression sees of it before evaluation).
  [[nodiscard]] const view_layout& layout() const noexcept { return layout_; }

 private:
  linalg::detail::erased_array a_;
  linalg::detail::erased_array b_;
  ndcuda::stream stream_;
  int device_ = 0;
  view_layout layout_;
  index_t k_ = 0;
};

namespace detail {

template <class R>
inline constexpr bool is_expr<matmul_expr<R>> = true;
template <class R>
inline constexpr bool has_lazy_v<matmul_expr<R>> = true;

}  // namespace detail

}  // namespace ndcuda

#pragma GCC visibility pop
