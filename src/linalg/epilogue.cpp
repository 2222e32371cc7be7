// act(a @ b + bias) as one cuBLASLt matmul with a bias/ReLU/GELU epilogue: the product never
// makes a round trip through memory before the activation.
#include <atomic>
#include <ndcuda/device/detail/capture.hpp>
#include <ndcuda/linalg/detail/entry_points.hpp>
#include <ndcuda/linalg/detail/matmul_plan.hpp>
#include <ndcuda/linalg/linalg_error.hpp>
#include <string>

#include "linalg/erased_ops.hpp"
#include "linalg/lt_gemm.hpp"

namespace ndcuda::linalg::detail {

namespace {

std::atomic<long long> fused_calls{0};

// The checks of both entry points; `into` null: a new result array. Returns the result, or an
// empty array when cuBLASLt has no kernel.
erased_array run_epilogue(const erased_array& a_in, const erased_array& b_in, const erased_array* bias_in,
                          dtype out_type, int activation, const erased_array* into) {
  if (a_in.ndim() != 2 || b_in.ndim() != 2) {
    throw shape_error("matmul_epilogue: needs 2-d a and b (got shapes " + format_shape(a_in.layout.shape) + " and " +
                      format_shape(b_in.layout.shape) + ")");
  }
  if (out_type != dtype::float16 && out_type != dtype::bfloat16 && out_type != dtype::float32 &&
      out_type != dtype::float64) {
    throw error("matmul_epilogue: " + std::string(name(out_type)) +
                " is not supported; use float16, bfloat16, float32 or float64 operands");
  }
  const matmul_plan p = plan_matmul(a_in.layout.shape, b_in.layout.shape, "matmul_epilogue");
  const stream s = a_in.s;
  erased_array a = on_stream(a_in, s);
  erased_array b = on_stream(b_in, s);
  if (a.type != out_type) {
    a = contiguous_copy(a, out_type);
  }
  if (b.type != out_type) {
    b = contiguous_copy(b, out_type);
  }
  erased_array bias;
  if (bias_in != nullptr) {
    if (bias_in->ndim() != 1 || bias_in->layout.shape[0] != p.n) {
      throw shape_error("matmul_epilogue: bias must have shape (" + std::to_string(p.n) +
                        ",), one value per column "
                        "of the product; got " +
                        format_shape(bias_in->layout.shape));
    }
    bias = as_contiguous(on_stream(*bias_in, s), out_type);
  }
  if (into != nullptr && (into->type != out_type || into->layout.shape != shape_t{p.m, p.n} ||
                          !is_c_contiguous(into->layout.shape, into->layout.strides))) {
    throw error("ndcuda internal error: matmul_epilogue_into needs a C-contiguous (m, n) output of the result dtype");
  }
  erased_array out = into != nullptr ? on_stream(*into, s) : empty_array(out_type, {p.m, p.n}, s);
  if (out.size() == 0) {
    return out;
  }
  if (p.k == 0) {
    // No product: act(bias) broadcast; rare enough to go through plain matmul and the caller.
    throw shape_error("matmul_epilogue: the inner extent is 0; use matmul and elementwise operations instead");
  }
  gemm_layout la = plan_gemm_operand({}, p.m, p.k, a.layout.strides);
  if (!la.ok) {
    a = contiguous_copy(a, out_type);
    la = plan_gemm_operand({}, p.m, p.k, a.layout.strides);
  }
  gemm_layout lb = plan_gemm_operand({}, p.k, p.n, b.layout.strides);
  if (!lb.ok) {
    b = contiguous_copy(b, out_type);
    lb = plan_gemm_operand({}, p.k, p.n, b.layout.strides);
  }
  if (!lt_gemm(out, a, la, b, lb, p.m, p.n, p.k, bias_in != nullptr ? bias.data() : nullptr, activation)) {
    // No cuBLASLt kernel for this combination: the caller composes it. The empty result names s
    // (erased_array{} would create a new stream on the current device).
    return erased_array{nullptr, nullptr, {}, out_type, a_in.device, s};
  }
  fused_calls.fetch_add(1, std::memory_order_relaxed);
  if (into != nullptr) {
    ndcuda::detail::order_after(into->s, s);  // later work on the target's stream sees the result
  }
  return out;
}

}  // namespace

erased_array matmul_epilogue(const erased_array& a_in, const erased_array& b_in, const erased_array* bias_in,
                             dtype out_type, int activation) {
  return run_epilogue(a_in, b_in, bias_in, out_type, activation, nullptr);
}

bool matmul_epilogue_into(const erased_array& into, const erased_array& a, const erased_array& b,
                          const erased_array* bias, int activation) {
  const erased_array r = run_epilogue(a, b, bias, into.type, activation, &into);
  return r.base != nullptr || r.owner != nullptr;
}

long long epilogue_calls() noexcept {
  return fused_calls.load(std::memory_order_relaxed);
}

}  // namespace ndcuda::linalg::detail
