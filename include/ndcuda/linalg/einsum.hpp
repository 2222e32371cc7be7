/// @file
/// nd::einsum: Einstein summation lowered to the existing engines. Diagonals (repeated labels) are
/// strided views, labels only one operand uses are summed by the reduction engine, each pairwise
/// contraction is one (batched) cuBLAS GEMM after permuting axes, and products with nothing to
/// contract are one fused elementwise kernel. Builds on linalg/products.hpp and ops/reductions.hpp.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <algorithm>
#include <ndcuda/core/detail/nvtx.hpp>
#include <ndcuda/linalg/detail/einsum_plan.hpp>
#include <ndcuda/linalg/products.hpp>
#include <ndcuda/ops/reductions.hpp>
#include <string_view>
#include <vector>

namespace ndcuda {

namespace linalg::detail {

/// An operand on its way through the contraction: the array and one label per axis.
template <class R>
struct labelled {
  ndarray<R> a;
  std::vector<int> labels;
};

/// Repeated labels become one axis through the diagonal (strides added: a view).
template <class R>
labelled<R> take_diagonals(labelled<R> x) {
  view_layout l = x.a.layout();
  std::vector<int> labels;
  shape_t shape;
  strides_t strides;
  for (std::size_t d = 0; d < x.labels.size(); ++d) {
    const auto it = std::find(labels.begin(), labels.end(), x.labels[d]);
    if (it == labels.end()) {
      labels.push_back(x.labels[d]);
      shape.push_back(l.shape[d]);
      strides.push_back(l.strides[d]);
    } else {
      const auto k = static_cast<std::size_t>(it - labels.begin());
      if (shape[k] != l.shape[d]) {
        throw shape_error("einsum(): dimensions in operand for collapsing index '" + einsum_label_name(x.labels[d]) +
                          "' don't match (" + std::to_string(shape[k]) + " != " + std::to_string(l.shape[d]) + ")");
      }
      strides[k] += l.strides[d];
    }
  }
  if (labels.size() == x.labels.size()) {
    return x;
  }
  erased_array e = erase(x.a);
  e.layout = view_layout{shape, strides, l.offset};
  return {restore<R>(std::move(e)), labels};
}

/// Sums the axes whose labels are not in `keep`.
template <class R>
labelled<R> sum_unused(labelled<R> x, const std::vector<int>& keep) {
  std::vector<int> axes_to_sum, labels;
  for (std::size_t d = 0; d < x.labels.size(); ++d) {
    if (std::find(keep.begin(), keep.end(), x.labels[d]) == keep.end()) {
      axes_to_sum.push_back(static_cast<int>(d));
    } else {
      labels.push_back(x.labels[d]);
    }
  }
  if (axes_to_sum.empty()) {
    return x;
  }
  return {ndarray<R>(sum<R>(x.a, axes(axes_to_sum))), labels};
}

inline bool has_label(const std::vector<int>& v, int l) {
  return std::find(v.begin(), v.end(), l) != v.end();
}

/// a and b contracted over their shared labels not in `keep`.
template <class R>
labelled<R> contract(const labelled<R>& a, const labelled<R>& b, const std::vector<int>& keep) {
  std::vector<int> batch, free_a, free_b, summed;
  for (int l : a.labels) {
    if (has_label(b.labels, l)) {
      (has_label(keep, l) ? batch : summed).push_back(l);
    } else {
      free_a.push_back(l);
    }
  }
  for (int l : b.labels) {
    if (!has_label(a.labels, l)) {
      free_b.push_back(l);
    }
  }
  const auto pos = [](const std::vector<int>& labels, int l) {
    return static_cast<index_t>(std::find(labels.begin(), labels.end(), l) - labels.begin());
  };
  const auto extent = [&](const labelled<R>& x, int l) {
    return x.a.shape()[static_cast<std::size_t>(pos(x.labels, l))];
  };
  std::vector<index_t> perm_a, perm_b;
  shape_t shape_a, shape_b;
  std::vector<int> out_labels;
  index_t m = 1, n = 1, k = 1;
  for (int l : batch) {
    perm_a.push_back(pos(a.labels, l));
    perm_b.push_back(pos(b.labels, l));
    shape_a.push_back(extent(a, l));
    shape_b.push_back(extent(b, l));
    out_labels.push_back(l);
  }
  if (summed.empty()) {
    // Nothing to contract: a broadcast product, one fused elementwise kernel.
    for (int l : free_a) {
      perm_a.push_back(pos(a.labels, l));
      shape_a.push_back(extent(a, l));
      shape_b.push_back(1);
      out_labels.push_back(l);
    }
    for (int l : free_b) {
      perm_b.push_back(pos(b.labels, l));
      shape_a.push_back(1);
      shape_b.push_back(extent(b, l));
      out_labels.push_back(l);
    }
    return {ndarray<R>(a.a.transpose(perm_a).reshape(shape_a) * b.a.transpose(perm_b).reshape(shape_b)), out_labels};
  }
  for (int l : free_a) {
    perm_a.push_back(pos(a.labels, l));
    m *= extent(a, l);
    out_labels.push_back(l);
  }
  for (int l : summed) {
    perm_a.push_back(pos(a.labels, l));
    perm_b.push_back(pos(b.labels, l));
    if (extent(a, l) != extent(b, l)) {
      throw shape_error("einsum(): operands could not be broadcast together: subscript '" + einsum_label_name(l) +
                        "' has extent " + std::to_string(extent(a, l)) + " and " + std::to_string(extent(b, l)));
    }
    k *= extent(a, l);
  }
  for (int l : free_b) {
    perm_b.push_back(pos(b.labels, l));
    n *= extent(b, l);
    out_labels.push_back(l);
  }
  shape_t out_shape;
  for (std::size_t i = 0; i < batch.size(); ++i) {
    out_shape.push_back(std::max(shape_a[i], shape_b[i]));
  }
  shape_a.push_back(m);
  shape_a.push_back(k);
  shape_b.push_back(k);
  shape_b.push_back(n);
  for (int l : free_a) {
    out_shape.push_back(extent(a, l));
  }
  for (int l : free_b) {
    out_shape.push_back(extent(b, l));
  }
  // Permuted views reshape without copies whenever the strides allow (the common forms do).
  const ndarray<R> product = matmul(a.a.transpose(perm_a).reshape(shape_a), b.a.transpose(perm_b).reshape(shape_b));
  return {product.reshape(out_shape), out_labels};
}

template <class R>
ndarray<R> einsum_typed(const einsum_spec& spec, std::vector<ndarray<R>> operands) {
  std::vector<labelled<R>> xs;
  for (std::size_t i = 0; i < operands.size(); ++i) {
    xs.push_back(take_diagonals(labelled<R>{operands[i], spec.inputs[i]}));
  }
  // Left to right: each step keeps the labels the output or a later operand still needs.
  const auto needed_after = [&](std::size_t i) {
    std::vector<int> keep = spec.output;
    for (std::size_t j = i + 1; j < xs.size(); ++j) {
      keep.insert(keep.end(), xs[j].labels.begin(), xs[j].labels.end());
    }
    return keep;
  };
  labelled<R> acc = sum_unused(xs[0], [&] {
    std::vector<int> keep = spec.output;
    for (std::size_t j = 1; j < xs.size(); ++j) {
      keep.insert(keep.end(), xs[j].labels.begin(), xs[j].labels.end());
    }
    return keep;
  }());
  for (std::size_t i = 1; i < xs.size(); ++i) {
    std::vector<int> keep_b = needed_after(i);
    keep_b.insert(keep_b.end(), acc.labels.begin(), acc.labels.end());
    const labelled<R> b = sum_unused(xs[i], keep_b);
    acc = contract(acc, b, needed_after(i));
  }
  acc = sum_unused(acc, spec.output);
  std::vector<index_t> perm;
  for (int l : spec.output) {
    perm.push_back(static_cast<index_t>(std::find(acc.labels.begin(), acc.labels.end(), l) - acc.labels.begin()));
  }
  return acc.a.transpose(perm);
}

}  // namespace linalg::detail

/// numpy.einsum: einsum("ij,jk->ik", a, b), einsum("ii", a) (trace), einsum("bij,bjk->bik", ...),
/// "...", implicit outputs. Operands promote to a common dtype. Contractions run as (batched)
/// cuBLAS GEMMs after permuting axes (no copy when the permuted operand reshapes as a view);
/// diagonals are views, sums use the reduction engine, products without a contraction one
/// elementwise kernel. Pairs are contracted left to right (no path optimisation). Like NumPy, a
/// one-operand call that only permutes or takes a diagonal returns a view.
template <array_operand... X>
[[nodiscard]] auto einsum(std::string_view subscripts, const X&... operands) {
  const ndcuda::detail::op_range<"nd::einsum"> nvtx;
  static_assert(sizeof...(X) >= 1, "einsum needs at least one operand");
  using R = type_of<detail::promote_all(dtype_of<linalg::detail::value_t<X>>...)>;
  std::vector<ndarray<R>> arrays{linalg::detail::as_type<R>(linalg::detail::to_array(operands))...};
  std::vector<shape_t> shapes;
  for (const auto& a : arrays) {
    shapes.push_back(a.shape());
  }
  const linalg::detail::einsum_spec spec = linalg::detail::parse_einsum(subscripts, shapes);
  return linalg::detail::einsum_typed<R>(spec, std::move(arrays));
}

}  // namespace ndcuda

#pragma GCC visibility pop
