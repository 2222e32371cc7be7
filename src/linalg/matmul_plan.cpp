// NumPy's matmul shape rule and the mapping of strided operands onto cuBLAS's strided-batched
// layout (transpose flag, leading dimension, one batch stride). No device code.
#include <ndcuda/core/error.hpp>
#include <ndcuda/linalg/detail/matmul_plan.hpp>
#include <string>

namespace ndcuda::linalg::detail {

namespace {

constexpr const char* signature = "(n?,k),(k,m?)->(n?,m?)";

}  // namespace

matmul_plan plan_matmul(std::span<const index_t> a, std::span<const index_t> b, const char* what) {
  for (int i = 0; i < 2; ++i) {
    const auto& s = i == 0 ? a : b;
    if (s.empty()) {
      throw shape_error(std::string(what) + ": Input operand " + std::to_string(i) +
                        " does not have enough dimensions (has 0, gufunc core with signature " + signature +
                        " requires 1); multiply by a 0-d array with `*` instead");
    }
  }
  matmul_plan p;
  p.a_vector = a.size() == 1;
  p.b_vector = b.size() == 1;
  const index_t ka = a.back();
  const index_t kb = p.b_vector ? b[0] : b[b.size() - 2];
  if (ka != kb) {
    throw shape_error(std::string(what) + ": Input operand 1 has a mismatch in its core dimension 0, with gufunc " +
                      "signature " + signature + " (size " + std::to_string(kb) + " is different from " +
                      std::to_string(ka) + ")");
  }
  p.k = ka;
  p.m = p.a_vector ? 1 : a[a.size() - 2];
  p.n = p.b_vector ? 1 : b.back();
  const std::span<const index_t> a_batch = p.a_vector ? a.first(0) : a.first(a.size() - 2);
  const std::span<const index_t> b_batch = p.b_vector ? b.first(0) : b.first(b.size() - 2);
  try {
    p.batch = broadcast_shapes(a_batch, b_batch);
  } catch (const shape_error&) {
    throw shape_error(std::string(what) + ": the batch dimensions " + format_shape(a_batch) + " and " +
                      format_shape(b_batch) + " of operands with shapes " + format_shape(a) + " and " +
                      format_shape(b) + " do not broadcast (each pair must be equal or one of them 1)");
  }
  p.out_shape = p.batch;
  if (!p.a_vector) {
    p.out_shape.push_back(p.m);
  }
  if (!p.b_vector) {
    p.out_shape.push_back(p.n);
  }
  return p;
}

gemm_layout plan_gemm_operand(std::span<const index_t> batch, index_t rows, index_t cols,
                              std::span<const index_t> strides) {
  gemm_layout g;
  const std::size_t nb = batch.size();
  const index_t rs = strides[nb];
  const index_t cs = strides[nb + 1];
  const index_t min_rows = rows > 1 ? rows : 1;
  const index_t min_cols = cols > 1 ? cols : 1;
  // A stride along an extent-1 axis is never used: pick what cuBLAS accepts.
  if ((cs == 1 || cols <= 1) && (rows <= 1 || rs >= min_cols)) {
    g.ok = true;
    g.column_major = false;
    g.ld = rows <= 1 ? min_cols : rs;
  } else if ((rs == 1 || rows <= 1) && (cols <= 1 || cs >= min_rows)) {
    g.ok = true;
    g.column_major = true;
    g.ld = cols <= 1 ? min_rows : cs;
  } else {
    return g;
  }
  // The batch axes must read as one arithmetic sequence of matrices, C order.
  bool have = false;
  index_t expected = 0;
  for (std::size_t d = nb; d-- > 0;) {
    if (batch[d] == 1) {
      continue;
    }
    if (!have) {
      g.batch_stride = strides[d];
      have = true;
    } else if (strides[d] != expected) {
      g.ok = false;
      return g;
    }
    expected = strides[d] * batch[d];
  }
  if (g.batch_stride < 0) {
    g.ok = false;
  }
  return g;
}

}  // namespace ndcuda::linalg::detail
