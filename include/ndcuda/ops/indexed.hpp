/// @file
/// nd::indexed<E>, what a(idx) gives for an advanced index (integer arrays, masks, host lists):
/// read as a copy (gather), written by scatter, updated by a(idx) += v. Builds on
/// ops/detail/index_arguments.hpp, ops/detail/indexing_entry.hpp (plans, kernels) and ops/functions.hpp (where).
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <ndcuda/array/creation.hpp>
#include <ndcuda/array/erased_array.hpp>
#include <ndcuda/core/detail/nvtx.hpp>
#include <ndcuda/expr/evaluate.hpp>
#include <ndcuda/expr/operand_array.hpp>
#include <ndcuda/ops/detail/index_arguments.hpp>
#include <ndcuda/ops/detail/indexing_entry.hpp>
#include <ndcuda/ops/functions.hpp>
#include <ndcuda/ops/operators.hpp>
#include <ndcuda/ops/take_mode.hpp>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace ndcuda {

/// What a(idx) gives for an advanced index: the source handle and the index, nothing read yet. It
/// is a lazy value like an expression (nd::lazy_array: shape, item, to_host, indexing, reshape, a
/// braced-list entry), and an operand of expressions and of every function:
///   nd::ndarray<float> x = a(idx);   // a gather (a copy, as in NumPy); also nd::eval(a(idx))
///   nd::sum(a(mask)), a(idx) * 2     // gathered when the expression is built, as NumPy's a[idx]
///   a(idx) = v;  a(mask) = 0.0f;     // scatter, v broadcast; repeated indices: the last wins
///   a(idx) += v;                     // NumPy's gather-add-scatter (repeats add once: see add_at)
/// Like an expression it reads `a` when its value is asked for: `auto x = a(idx);` named and read
/// after a write to `a` sees the write (write `nd::ndarray<T> x = a(idx);` to keep the values now).
template <array_element E>
class indexed : public lazy_array<indexed<E>, E> {
 public:
  /// Marks the type as an ndcuda lazy value (array_expression).
  using is_ndcuda_expression = void;
  /// As an expression operand it is gathered at once into an array leaf (expr's as_node).
  using gathered_when_used = void;
  /// The element type.
  using value_type = E;
  /// As an operand it reads like one array (its gather).
  static constexpr int arrays = 1;
  /// It adds no scalar parameter to an enclosing kernel.
  static constexpr int scalars = 0;

  /// The proxy of `source` indexed by `index`; made by ndarray::operator(), not by users.
  indexed(ndarray<E> source, std::vector<detail::index_arg> index)
      : source_(std::move(source)), index_(std::move(index)) {}
  indexed(const indexed&) = delete;
  indexed& operator=(const indexed&) = delete;
  ~indexed() = default;

  /// The source's dtype.
  [[nodiscard]] static constexpr dtype type() noexcept { return dtype_of<E>; }
  /// The shape of the gather: from the index's shapes; a mask's needs its count (a wait).
  [[nodiscard]] shape_t shape() const { return resolve().plan.shape; }
  /// The source's device.
  [[nodiscard]] int device() const noexcept { return source_.device(); }
  /// The source's stream, on which the gather runs.
  [[nodiscard]] const ndcuda::stream& stream() const noexcept { return source_.stream(); }
  /// The gather as a new C-contiguous array of dtype T (converted as astype converts).
  template <array_element T>
  [[nodiscard]] ndarray<T> evaluate() const {
    if constexpr (std::is_same_v<T, E>) {
      return read();
    } else {
      return read().template astype<T>();
    }
  }
  /// `out(...) = a(idx)`: the gather written into out's memory, broadcast and converted.
  template <array_element T>
  void assign_to(const ndarray<T>& out) const {
    out.assign(read());
  }
  /// The gather converted to T (NumPy's a[idx].astype(T)).
  template <array_element T>
  [[nodiscard]] ndarray<T> astype() const {
    return evaluate<T>();
  }

  /// a(idx) = v: v (an array, an expression or a scalar) broadcast to the indexed shape and
  /// converted as astype converts. a(mask) = v with v broadcasting to the trailing axes needs no
  /// host wait (one fused where); other writes through masks wait for the mask's count.
  template <class V>
  requires(!std::is_same_v<std::remove_cvref_t<V>, indexed>) void operator=(const V& v) && { assign(v); }
  /// a(idx) = b(idx2): gathers the right side, then scatters it.
  void operator=(indexed&& other) && { assign(std::move(other).read()); }
  /// Refused: a named proxy is a read of `a`; see the message.
  template <class V>
  void operator=(const V&) & {
    static_assert(
        detail::always_false<V>,
        "`p = v` on a named proxy (`auto p = a(idx);`) would rebind p in NumPy, which a proxy cannot do: write "
        "`a(idx) = v` to write into a, or `nd::ndarray<T> p = a(idx);` for a copy to rebind");
  }

  /// a(idx) += v: NumPy's gather, add, scatter (a repeated index adds once: see add_at).
  template <class V>
  void operator+=(const V& v) && {
    update(v, [](ndarray<E>& g, const auto& x) { g += x; });
  }
  /// a(idx) -= v: gather, subtract, scatter (a repeated index subtracts once: see subtract_at).
  template <class V>
  void operator-=(const V& v) && {
    update(v, [](ndarray<E>& g, const auto& x) { g -= x; });
  }
  /// a(idx) *= v: gather, multiply, scatter (a repeated index multiplies once: see multiply_at).
  template <class V>
  void operator*=(const V& v) && {
    update(v, [](ndarray<E>& g, const auto& x) { g *= x; });
  }
  /// a(idx) /= v: gather, divide, scatter.
  template <class V>
  void operator/=(const V& v) && {
    update(v, [](ndarray<E>& g, const auto& x) { g /= x; });
  }

  /// For nd::add_at and the functions of ops/indexing_functions.hpp.
  [[nodiscard]] const ndarray<E>& source() const noexcept { return source_; }
  /// The index arguments, as given.
  [[nodiscard]] std::span<const detail::index_arg> index() const noexcept { return index_; }

  /// The index resolved against the source's shape (the positions it selects).
  [[nodiscard]] detail::resolved_index resolve() const {
    return detail::resolve_index(detail::erase(source_), index_, source_.stream());
  }

  /// The gather: a new C-contiguous array of the selected elements. `mode` (np.take's, from
  /// nd::take) says what an out-of-range index does: raise checks and waits, wrap and clip map it.
  [[nodiscard]] ndarray<E> read(take_mode mode = take_mode::raise) const {
    const ndcuda::detail::op_range<"a(index)"> nvtx;
    const ndcuda::stream& s = source_.stream();
    // a(mask): one CUB compaction
    if (const detail::index_arg* m = leading_mask(); m != nullptr && mode == take_mode::raise) {
      return detail::restore<E>(detail::extract_rows(detail::erase(source_), m->array, std::nullopt, nullptr, s,
                                                     "indexing with a boolean mask"));
    }
    const detail::resolved_index r = resolve();
    ndarray<E> out = empty<E>(r.plan.shape, s);
    detail::gather_into(detail::erase(source_), r.plan, r.arrays, out.data(), s, mode);
    return out;
  }

  /// The mask when the index is one mask over the leading axes (optionally followed by an ellipsis).
  [[nodiscard]] const detail::index_arg* leading_mask() const {
    const bool trailing_ellipsis = index_.size() == 2 && index_[1].entry.k == detail::index_entry::kind::basic &&
                                   std::holds_alternative<ellipsis_t>(index_[1].entry.item);
    if ((index_.size() == 1 || trailing_ellipsis) && index_[0].entry.k == detail::index_entry::kind::bool_array &&
        !index_[0].entry.shape.empty()) {
      return &index_[0];
    }
    return nullptr;
  }

 private:
  template <class V>
  void assign(const V& v) const {
    const ndcuda::detail::op_range<"a(index) = v"> nvtx;
    if constexpr (detail::element_scalar<V, E>) {
      const E value = detail::element_value<E>(v);
      if (const detail::index_arg* m = leading_mask()) {
        write_where(*m, full<E>({}, value, source_.stream()));
        return;
      }
      const detail::resolved_index r = resolve();
      const ndarray<E> values = full<E>(r.plan.shape, value, source_.stream());
      detail::scatter_into(detail::erase(source_), r.plan, r.arrays, values.data(), true, source_.stream());
    } else {
      const auto x = detail::to_array(v);
      if (const detail::index_arg* m = leading_mask()) {
        // v broadcasting to the trailing axes (a leading extent of 1 dropped): one where, no wait.
        const auto rest = static_cast<index_t>(source_.ndim()) - static_cast<index_t>(m->entry.shape.size());
        auto y = x;
        if (y.ndim() == rest + 1 && y.shape()[0] == 1) {
          y = y.reshape(shape_t(y.shape().begin() + 1, y.shape().end()));
        }
        if (y.ndim() <= rest) {
          write_where(*m, y);
          return;
        }
      }
      const detail::resolved_index r = resolve();
      check_value_shape(x.shape(), r.plan.shape);
      const ndarray<E> values = x.on_stream(source_.stream()).broadcast_to(r.plan.shape).template astype<E>();
      detail::scatter_into(detail::erase(source_), r.plan, r.arrays, values.data(), r.unique, source_.stream());
    }
  }

  template <class U>
  void write_where(const detail::index_arg& m, const ndarray<U>& v) const {
    // NumPy's shape checks first (the planner's texts); an empty 1-d mask selects nothing.
    std::vector<detail::index_entry> entries;
    for (const detail::index_arg& a : index_) {
      entries.push_back(a.entry);
    }
    (void)detail::plan_index(source_.layout(), entries);
    if (m.entry.shape.size() == 1 && m.entry.shape[0] == 0) {
      return;
    }
    // mask (k axes) + trailing extent-1 axes broadcasts over the source; v over its trailing axes.
    shape_t mshape = m.entry.shape;
    mshape.resize(static_cast<std::size_t>(source_.ndim()), 1);
    const ndarray<bool> mask = detail::restore<bool>(m.array).reshape(mshape);
    check_trailing(v.shape());
    source_(ellipsis) = where(mask, v, source_).template astype<E>();
  }

  // (N,4): the count is not known without a wait, so N stands for it.
  static std::string masked_shape_text(const shape_t& rest) {
    std::string text = "(N";
    for (index_t d : rest) {
      text += "," + std::to_string(d);
    }
    return text + (rest.empty() ? ",)" : ")");
  }

  void check_trailing(const shape_t& v) const {
    const auto k = leading_mask()->entry.shape.size();
    const shape_t rest(source_.shape().begin() + static_cast<std::ptrdiff_t>(k), source_.shape().end());
    try {
      if (broadcast_shapes(v, rest) != rest) {
        throw shape_error("");
      }
    } catch (const shape_error&) {
      throw shape_error("shape mismatch: value array of shape " + detail::index_shape_text(v) +
                        " could not be broadcast to indexing result of shape " + masked_shape_text(rest));
    }
  }

  void check_value_shape(const shape_t& v, const shape_t& target) const {
    bool ok = true;
    try {
      ok = broadcast_shapes(v, target) == target;
    } catch (const shape_error&) {
      ok = false;
    }
    if (ok) {
      return;
    }
    if (leading_mask() != nullptr && v.size() == 1 && target.size() == 1) {
      throw shape_error("NumPy boolean array indexing assignment cannot assign " + std::to_string(v[0]) +
                        " input values to the " + std::to_string(target[0]) + " output values where the mask is true");
    }
    throw shape_error("shape mismatch: value array of shape " + detail::index_shape_text(v) +
                      " could not be broadcast to indexing result of shape " + detail::index_shape_text(target));
  }

  template <class V, class F>
  void update(const V& v, F&& op) const {
    const ndcuda::detail::op_range<"a(index) op= v"> nvtx;
    // One resolution (masks: one count) for the gather and the scatter.
    const detail::resolved_index r = resolve();
    ndarray<E> g = empty<E>(r.plan.shape, source_.stream());
    detail::gather_into(detail::erase(source_), r.plan, r.arrays, g.data(), source_.stream());
    op(g, v);
    detail::scatter_into(detail::erase(source_), r.plan, r.arrays, g.data(), r.unique, source_.stream());
  }

  ndarray<E> source_;
  std::vector<detail::index_arg> index_;
};

namespace detail {
/// An index proxy is a lazy value: operators, reductions and functions take it (an array leaf of
/// its gather, expr/expression.hpp's as_node).
template <array_element E>
inline constexpr bool is_expr<indexed<E>> = true;

template <array_element E, class... I>
indexed<E> make_indexed(const ndarray<E>& source, const I&... index) {
  return indexed<E>(source, std::vector<index_arg>{to_index_arg(index, source.stream())...});
}
}  // namespace detail

}  // namespace ndcuda

#pragma GCC visibility pop
