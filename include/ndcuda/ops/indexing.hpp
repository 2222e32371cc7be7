/// @file
/// NumPy's advanced indexing: a(idx), a(mask), a(i, nd::all, j) with integer arrays, masks and host
/// lists, read as a copy (gather) and written by scatter; nd::add_at and friends. Builds on
/// ops/detail/indexing_entry.hpp (plans, kernels), expr/evaluate.hpp and ops/functions.hpp (where).
#pragma once

#include <concepts>
#include <cstdint>
#include <ndcuda/array/creation.hpp>
#include <ndcuda/array/detail/erased.hpp>
#include <ndcuda/core/detail/nvtx.hpp>
#include <ndcuda/expr/evaluate.hpp>
#include <ndcuda/expr/operand_array.hpp>
#include <ndcuda/ops/detail/indexing_entry.hpp>
#include <ndcuda/ops/functions.hpp>
#include <ndcuda/ops/operators.hpp>
#include <ndcuda/ops/static_size.hpp>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

namespace ndcuda {

namespace detail {

template <class T>
inline constexpr bool always_false = false;

/// A scalar written into an array of E: a weak C++ scalar (converted as in expressions), or an E
/// itself (float16/bfloat16 values, which are no C++ arithmetic types).
template <class V, class E>
concept element_scalar = weak_scalar<V> || is_std_complex<V> || std::is_same_v<std::remove_cv_t<V>, E>;
template <class E, class V>
E element_value(const V& v) {
  if constexpr (std::is_same_v<std::remove_cv_t<V>, E>) {
    return v;
  } else {
    return scalar_as<E>(v);
  }
}

template <class U>
index_arg array_arg(const ndarray<U>& a) {
  using T = std::remove_cv_t<U>;
  if constexpr (std::is_same_v<T, bool>) {
    return {index_entry{index_entry::kind::bool_array, index_t{0}, a.shape(), 0}, erase(a)};
  } else if constexpr (std::is_same_v<T, std::int64_t> || std::is_same_v<T, std::int32_t>) {
    return {index_entry{index_entry::kind::integer_array, index_t{0}, a.shape(), 0}, erase(a)};
  } else if constexpr (std::is_integral_v<T>) {
    return array_arg(a.template astype<std::int64_t>());
  } else {
    static_assert(always_false<T>,
                  "arrays used as indices must be of integer (or boolean) type (NumPy's IndexError): "
                  "convert with .astype<std::int64_t>()");
    return {};
  }
}

/// One index argument as the planner and the kernels take it; host lists go to `s`.
template <class I>
index_arg to_index_arg(const I& i, const stream& s) {
  if constexpr (is_ndarray<I>) {
    return array_arg(i);
  } else if constexpr (requires { typename I::is_ndcuda_expression; }) {
    return array_arg(eval(i));
  } else if constexpr (is_advanced_index<I>) {  // std::vector / std::span of integers (or bools)
    using T = std::remove_cv_t<typename I::value_type>;
    static_assert(std::is_integral_v<T>, "host index lists must hold integers (or bools, for a mask)");
    if constexpr (std::is_same_v<T, bool>) {
      std::vector<bool> v(i.begin(), i.end());
      return array_arg(asarray<bool>(v, shape_t{static_cast<index_t>(v.size())}, s));
    } else {
      const std::vector<std::int64_t> v(i.begin(), i.end());
      return array_arg(asarray<std::int64_t>(v, shape_t{static_cast<index_t>(v.size())}, s));
    }
  } else {
    return {index_entry{index_entry::kind::basic, to_index_item(i), {}, 0}, {}};
  }
}

}  // namespace detail

/// What a(idx) gives for an advanced index: the source handle and the index, nothing read yet.
/// Use it at once, as NumPy's a[idx] is used:
///   nd::ndarray<float> x = a(idx);   // a gather (a copy, as in NumPy); also nd::eval(a(idx))
///   a(idx) = v;  a(mask) = 0.0f;     // scatter, v broadcast; repeated indices: the last wins
///   a(idx) += v;                     // NumPy's gather-add-scatter (repeats add once: see add_at)
/// A named proxy (`auto x = a(idx);`) cannot be read: it would see a's later state; write
/// `nd::ndarray<T> x = a(idx);` instead (the conversion is for temporaries only).
template <array_element E>
class indexed {
 public:
  /// The proxy of `source` indexed by `index`; made by ndarray::operator(), not by users.
  indexed(ndarray<E> source, std::vector<detail::index_arg> index)
      : source_(std::move(source)), index_(std::move(index)) {}
  indexed(const indexed&) = delete;
  indexed& operator=(const indexed&) = delete;
  ~indexed() = default;

  /// The gather: a new C-contiguous array.
  operator ndarray<E>() && { return read(); }  // NOLINT: implicit, as `nd::ndarray<float> x = a(idx);`
  /// Deleted in effect: reading a named proxy would see the source's later state (a compile error says what to write).
  template <array_element D>
  operator ndarray<D>() const& {
    static_assert(detail::always_false<D>,
                  "read an advanced index where it is made: `nd::ndarray<T> x = a(idx);` or `nd::eval(a(idx))` "
                  "(T: the source's element type; a named `auto x = a(idx)` would read a's later state)");
    return {};
  }
  /// The gather (nd::eval(a(idx)) is the same).
  [[nodiscard]] ndarray<E> copy() && { return read(); }

  /// a(idx) = v: v (an array, an expression or a scalar) broadcast to the indexed shape and
  /// converted as astype converts. a(mask) = v with v broadcasting to the trailing axes needs no
  /// host wait (one fused where); other writes through masks wait for the mask's count.
  template <class V>
  requires(!std::is_same_v<std::remove_cvref_t<V>, indexed>) void operator=(const V& v) && { assign(v); }
  /// a(idx) = b(idx2): gathers the right side, then scatters it.
  void operator=(indexed&& other) && { assign(std::move(other).read()); }

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
    const stream& s = source_.stream();
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
template <array_element E, class... I>
indexed<E> make_indexed(const ndarray<E>& source, const I&... index) {
  return indexed<E>(source, std::vector<index_arg>{to_index_arg(index, source.stream())...});
}

template <class M>
constexpr bool is_bool_mask() {
  if constexpr (requires { typename M::is_ndcuda_expression; }) {
    return M::type() == dtype::bool_;
  } else if constexpr (is_advanced_index<M>) {  // ndarray<bool>, std::vector<bool>, std::span<bool>
    return std::is_same_v<std::remove_cv_t<typename M::value_type>, bool>;
  } else {
    return false;
  }
}

// a(mask, nd::size(k), fill): extract's compaction over the leading axes, k rows exactly.
template <array_element E, class M, class... F>
ndarray<E> sized_mask_read(const ndarray<E>& source, const M& mask, static_size k, const F&... fill) {
  static_assert(is_bool_mask<M>(),
                "a(mask, nd::size(k), fill) takes one boolean mask (an ndarray<bool>, a bool expression or a "
                "std::vector<bool>); for integer indices the size is already known: a(idx)");
  static_assert(sizeof...(F) <= 1 && (element_scalar<F, E> && ...),
                "the fill of a(mask, nd::size(k), fill) is one scalar");
  E f{};
  if constexpr (sizeof...(F) == 1) {
    f = (element_value<E>(fill), ...);
  }
  const index_arg m = to_index_arg(mask, source.stream());
  return restore<E>(extract_rows(erase(source), m.array, k.value, &f, source.stream(), "a(mask, nd::size(k))"));
}
template <class A, class B = void, class... C>
inline constexpr bool is_sized_mask_index = is_static_size<B> && sizeof...(C) <= 1;

template <array_element E, class... I>
const ndarray<E> make_sized_read(const ndarray<E>& source,
                                 const I&... index) {  // NOLINT(readability-const-return-type)
  static_assert(is_sized_mask_index<I...>,
                "nd::size(k) goes right after one boolean mask: a(mask, nd::size(k)) or a(mask, nd::size(k), fill)");
  if constexpr (is_sized_mask_index<I...>) {
    return sized_mask_read(source, index...);
  } else {
    return {};
  }
}
}  // namespace detail

/// The gather of a(idx) as a new array (NumPy's a[idx] is already a copy).
template <array_element E>
[[nodiscard]] ndarray<E> eval(indexed<E>&& x) {
  return std::move(x).read();
}

namespace detail {
template <class E, class V>
void accumulate_at(accumulate_op op, const indexed<E>& target, const V& v) {
  const ndarray<E>& a = target.source();
  const resolved_index r = target.resolve();
  const auto x = to_array(v);
  bool ok = true;
  try {
    ok = broadcast_shapes(x.shape(), r.plan.shape) == r.plan.shape;
  } catch (const shape_error&) {
    ok = false;
  }
  if (!ok) {
    throw shape_error("shape mismatch: value array of shape " + detail::index_shape_text(x.shape()) +
                      " could not be broadcast to indexing result of shape " + detail::index_shape_text(r.plan.shape));
  }
  const ndarray<E> values = x.on_stream(a.stream()).broadcast_to(r.plan.shape).template astype<E>();
  accumulate_into(op, erase(a), r.plan, r.arrays, values.data(), a.stream());
}
template <class E, class V>
void accumulate_scalar_or_array(accumulate_op op, const indexed<E>& target, const V& v) {
  if constexpr (element_scalar<V, E>) {
    accumulate_at(op, target, full<E>({}, element_value<E>(v), target.source().stream()));
  } else {
    accumulate_at(op, target, v);
  }
}
}  // namespace detail

/// np.add.at(a, idx, v): a[idx] += v with every repeated index applied (atomics). The index is any
/// advanced index of a: nd::add_at(a(i, nd::all, j), v), or one index for axis 0: add_at(a, i, v).
template <array_element E, class V>
void add_at(indexed<E>&& target, const V& v) {
  const ndcuda::detail::op_range<"nd::add_at"> nvtx;
  detail::accumulate_scalar_or_array(detail::accumulate_op::add, target, v);
}
/// np.subtract.at: a[idx] -= v with every repeated index applied.
template <array_element E, class V>
void subtract_at(indexed<E>&& target, const V& v) {
  const ndcuda::detail::op_range<"nd::subtract_at"> nvtx;
  detail::accumulate_scalar_or_array(detail::accumulate_op::subtract, target, v);
}
/// np.multiply.at: a[idx] *= v with every repeated index applied.
template <array_element E, class V>
void multiply_at(indexed<E>&& target, const V& v) {
  const ndcuda::detail::op_range<"nd::multiply_at"> nvtx;
  detail::accumulate_scalar_or_array(detail::accumulate_op::multiply, target, v);
}
/// NaN propagates, as np.maximum.at.
template <array_element E, class V>
void maximum_at(indexed<E>&& target, const V& v) {
  const ndcuda::detail::op_range<"nd::maximum_at"> nvtx;
  detail::accumulate_scalar_or_array(detail::accumulate_op::maximum, target, v);
}
/// np.minimum.at: a[idx] = minimum(a[idx], v) with every repeated index applied; NaN propagates.
template <array_element E, class V>
void minimum_at(indexed<E>&& target, const V& v) {
  const ndcuda::detail::op_range<"nd::minimum_at"> nvtx;
  detail::accumulate_scalar_or_array(detail::accumulate_op::minimum, target, v);
}
/// np.add.at(a, idx, v) with one index for axis 0.
template <array_element E, class I, class V>
void add_at(const ndarray<E>& a, const I& idx, const V& v) {
  add_at(a(idx), v);
}
/// np.subtract.at(a, idx, v) with one index for axis 0.
template <array_element E, class I, class V>
void subtract_at(const ndarray<E>& a, const I& idx, const V& v) {
  subtract_at(a(idx), v);
}
/// np.multiply.at(a, idx, v) with one index for axis 0.
template <array_element E, class I, class V>
void multiply_at(const ndarray<E>& a, const I& idx, const V& v) {
  multiply_at(a(idx), v);
}
/// np.maximum.at(a, idx, v) with one index for axis 0.
template <array_element E, class I, class V>
void maximum_at(const ndarray<E>& a, const I& idx, const V& v) {
  maximum_at(a(idx), v);
}
/// np.minimum.at(a, idx, v) with one index for axis 0.
template <array_element E, class I, class V>
void minimum_at(const ndarray<E>& a, const I& idx, const V& v) {
  minimum_at(a(idx), v);
}

}  // namespace ndcuda
