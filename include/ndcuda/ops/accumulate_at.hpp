/// @file
/// NumPy's ufunc.at through an advanced index: nd::add_at, subtract_at, multiply_at, maximum_at and
/// minimum_at, which apply every repeated index (atomics). Builds on ops/indexed.hpp.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <ndcuda/array/creation.hpp>
#include <ndcuda/array/erased_array.hpp>
#include <ndcuda/core/detail/nvtx.hpp>
#include <ndcuda/device/detail/capture.hpp>
#include <ndcuda/expr/operand_array.hpp>
#include <ndcuda/ops/detail/index_arguments.hpp>
#include <ndcuda/ops/detail/indexing_entry.hpp>
#include <ndcuda/ops/indexed.hpp>

namespace ndcuda {

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
  order_after(a.stream(), x.stream());
  // The kernels read one E per result element in C order: values already laid out so are read
  // where they are (add_at of 2^24 floats would otherwise copy them first).
  ndarray<E> values;
  if constexpr (std::is_same_v<typename decltype(x)::value_type, E>) {
    if (x.shape() == r.plan.shape && x.is_contiguous()) {
      values = x.on_stream(a.stream());
      retain_for_capture(a.stream(), x.owner());
    }
  }
  if (values.size() != shape_size(r.plan.shape)) {
    values = x.on_stream(a.stream()).broadcast_to(r.plan.shape).template astype<E>();
  }
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

#pragma GCC visibility pop
