/// @file
/// dist::matmul: numpy.matmul of distributed arrays, one cuBLAS product per GPU on its shards and
/// at most one NCCL all-reduce. Which layouts it takes and where the product lands:
///
/// | A | B | per GPU | communication | result |
/// | --- | --- | --- | --- | --- |
/// | replicated | replicated | the whole product | none | replicated |
/// | rows (axis -2) | replicated | its rows of the product | none | rows |
/// | replicated | columns (axis -1) | its columns | none | columns |
/// | a batch axis | replicated (any batch) or the same batch axis | its batches | none | that batch axis |
/// | the contracted axis (-1) | the contracted axis (-2) | a partial product over its slice of K | all-reduce |
/// replicated (rows with out = block(0): a reduce-scatter instead) |
/// | a grid block({0, 1}, {r, c}) | the same grid | SUMMA (dist/summa.hpp): its block of C | panels along grid rows
/// and columns | the same grid |
///
/// Any other pair throws shape_error naming both shardings and what to reshard. `out` asks for
/// another result sharding (a reshard after the product). Not included by <ndcuda/dist.hpp>, as
/// <ndcuda/linalg.hpp> is not by <ndcuda/ndcuda.hpp>: link ndcuda::linalg beside ndcuda::dist.
/// Builds on dist/{distributed_array,reductions}.hpp and linalg/matmul_expr.hpp.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <ndcuda/dist/distributed_array.hpp>
#include <ndcuda/dist/reductions.hpp>
#include <ndcuda/dist/summa.hpp>
#include <ndcuda/linalg/matmul_expr.hpp>
#include <optional>
#include <string>
#include <vector>

namespace ndcuda::dist {
namespace detail {

/// Which row of the table above a pair of operands falls in, or a shape_error.
enum class product_layout { replicated, rows, columns, batch, contracted, grid };

inline std::string matmul_operands(const sharding& a, const sharding& b) {
  return "A sharded " + describe(a) + ", B sharded " + describe(b);
}

inline product_layout product_layout_of(const sharding& a, int a_ndim, const sharding& b, int b_ndim) {
  const bool ar = a.is_replicated();
  const bool br = b.is_replicated();
  if (a.is_grid() || b.is_grid()) {
    if (a_ndim == 2 && b_ndim == 2 && a == b && a.axes == std::vector<int>{0, 1} && a.grid.size() == 2) {
      return product_layout::grid;
    }
    throw shape_error("dist::matmul: " + matmul_operands(a, b) +
                      "; a grid of blocks multiplies only with a grid: A and B both 2-d and sharded block({0, 1}, "
                      "{rows, cols}) with the same grid (SUMMA). reshard() the other operand to that grid, or "
                      "both to a 1-D layout");
  }
  if (ar && br) {
    return product_layout::replicated;
  }
  if (!ar && a.axis() == a_ndim - 2 && br) {
    return product_layout::rows;
  }
  if (ar && !br && b.axis() == b_ndim - 1) {
    return product_layout::columns;
  }
  if (!ar && a.axis() == a_ndim - 1 && !br && b.axis() == b_ndim - 2) {
    return product_layout::contracted;
  }
  if (!ar && a.axis() < a_ndim - 2 && (br || (b_ndim == a_ndim && b.axis() == a.axis()))) {
    return product_layout::batch;
  }
  throw shape_error("dist::matmul: " + matmul_operands(a, b) +
                    " is not a layout it multiplies; shard A by rows (axis -2) with B replicated, A replicated with "
                    "B by columns (axis -1), both along the contracted axis (A -1, B -2), or both along the same "
                    "batch axis: reshard() one operand");
}

}  // namespace detail

/// numpy.matmul(a, b) of distributed arrays over the same communicator: 2-d or batched operands
/// (A (..., M, K), B (..., K, N) or (K, N)); dtypes promote as nd::matmul's do. The result's
/// sharding follows the table in this header, or `out` when given.
template <array_element T, array_element U>
[[nodiscard]] auto matmul(const distributed_array<T>& a, const distributed_array<U>& b,
                          const std::optional<sharding>& out = std::nullopt) {
  using R = promote_t<T, U>;
  if (!(a.comm() == b.comm())) {
    throw shape_error("dist::matmul: A and B live on different communicators; distribute both over one");
  }
  if (a.ndim() < 2 || b.ndim() < 2) {
    throw shape_error("dist::matmul: A has " + std::to_string(a.ndim()) + " axes and B " + std::to_string(b.ndim()) +
                      "; it multiplies matrices and stacks of them (reshape a vector to (1, n) or (n, 1))");
  }
  const index_t k_a = a.shape()[static_cast<std::size_t>(a.ndim() - 1)];
  const index_t k_b = b.shape()[static_cast<std::size_t>(b.ndim() - 2)];
  if (k_a != k_b) {
    throw shape_error("dist::matmul: A has shape " + format_shape(a.shape()) + " and B " + format_shape(b.shape()) +
                      ": A's last axis (" + std::to_string(k_a) + ") must equal B's second-to-last (" +
                      std::to_string(k_b) + ")");
  }
  const detail::product_layout layout = detail::product_layout_of(a.spec(), a.ndim(), b.spec(), b.ndim());
  if (layout == detail::product_layout::batch && b.ndim() > a.ndim()) {
    throw shape_error("dist::matmul: " + detail::matmul_operands(a.spec(), b.spec()) + " with B of more axes (" +
                      std::to_string(b.ndim()) + ") than A (" + std::to_string(a.ndim()) +
                      "): shard B's batch axis instead, or replicate A");
  }
  const communicator& comm = a.comm();
  if (layout == detail::product_layout::grid) {
    const auto as_r = [](const auto& x) {
      if constexpr (std::is_same_v<typename std::remove_cvref_t<decltype(x)>::value_type, R>) {
        return x;
      } else {
        return x.template astype<R>();
      }
    };
    distributed_array<R> product = detail::summa<R>(as_r(a), as_r(b), a.spec());
    return out && normalize(*out, 2, comm.size()) != product.spec() ? product.reshard(*out) : product;
  }
  std::vector<ndarray<R>> products;
  for (int l = 0; l < comm.local_size(); ++l) {
    ndarray<U> right = b.local_shard(l);
    if (layout == detail::product_layout::batch && b.is_replicated() && b.ndim() == a.ndim() &&
        b.shape()[static_cast<std::size_t>(a.axis())] != 1) {
      right = detail::slab(right, a.axis(), a.range(comm.rank(l)));  // this rank's batches of B
    }
    products.push_back(ndarray<R>(ndcuda::matmul(a.local_shard(l), right)));
  }
  // The global shape, from nd::matmul's own shape rules on one rank's shapes with the sharded
  // extent made whole again.
  shape_t global = products.front().shape();
  const int out_ndim = static_cast<int>(global.size());
  sharding natural = sharding::replicated();
  switch (layout) {
    case detail::product_layout::rows:
      global[static_cast<std::size_t>(out_ndim - 2)] = a.shape()[static_cast<std::size_t>(a.ndim() - 2)];
      natural = sharding::block(out_ndim - 2);
      break;
    case detail::product_layout::columns:
      global[static_cast<std::size_t>(out_ndim - 1)] = b.shape()[static_cast<std::size_t>(b.ndim() - 1)];
      natural = sharding::block(out_ndim - 1);
      break;
    case detail::product_layout::batch: {
      const int axis = out_ndim - a.ndim() + a.axis();  // batch axes align from the right
      global[static_cast<std::size_t>(axis)] = a.shape()[static_cast<std::size_t>(a.axis())];
      natural = sharding::block(axis);
      break;
    }
    case detail::product_layout::contracted:  // the partial products, summed over ranks
      if (out_ndim == 2 && out && normalize(*out, out_ndim, comm.size()) == sharding::block(0)) {
        products = detail::reduce_scatter_rows(products, comm);  // each rank sums only its rows
        natural = sharding::block(0);
      } else {
        detail::combine<detail::reduction::sum>(products, comm);
      }
      break;
    case detail::product_layout::replicated:
    case detail::product_layout::grid:
      break;
  }
  distributed_array<R> product(comm, global, natural, std::move(products));
  if (out && normalize(*out, out_ndim, comm.size()) != product.spec()) {
    return product.reshard(*out);
  }
  return product;
}

}  // namespace ndcuda::dist

#pragma GCC visibility pop
