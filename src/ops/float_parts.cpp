// The cold and out-of-line parts of ops/float_parts.hpp and ops/closeness.hpp: the spellings of
// the operations that spell themselves (ldexp, round with decimals, nan_to_num, isclose) and the
// round-of-bool error. The two-output kernels are the engine's (src/expr/pair_outputs.cpp).
#include <ndcuda/core/error.hpp>
#include <ndcuda/expr/operation.hpp>
#include <ndcuda/ops/closeness.hpp>
#include <ndcuda/ops/float_parts.hpp>
#include <string>

namespace ndcuda::detail {

node_code emit_ldexp(std::span<const node_code> c) {
  const dtype f = compute_type(float_of(c[0].value));
  return {"ndcuda::nd_ldexp(" + converted_code(f, c[0]) + ", " + converted_code(dtype::int64, c[1]) + ")", f};
}

node_code emit_round_decimals(std::span<const node_code> c) {
  const dtype t = compute_type(round_decimals_op::result(c[0].value, c[1].value));
  return {"ndcuda::nd_round_decimals(" + converted_code(t, c[0]) + ", " + c[1].text + ")", t};
}

node_code emit_nan_to_num(std::span<const node_code> c) {
  const dtype t = compute_type(c[0].value);
  const dtype p = compute_type(c[1].value);
  return {"ndcuda::nd_nan_to_num(" + converted_code(t, c[0]) + ", " + converted_code(p, c[1]) + ", " +
              converted_code(p, c[2]) + ", " + converted_code(p, c[3]) + ")",
          t};
}

node_code emit_isclose(std::span<const node_code> c) {
  const dtype t = compute_type(promote_types(c[0].value, close_float(c[1].value)));
  const dtype p = part_of(t);
  return {"ndcuda::nd_isclose(" + converted_code(t, c[0]) + ", " + converted_code(t, c[1]) + ", " +
              converted_code(p, c[2]) + ", " + converted_code(p, c[3]) + ", " + c[4].text + ")",
          dtype::bool_};
}

void throw_round_bool(int decimals) {
  throw type_error("round(a, " + std::to_string(decimals) +
                   ") of a bool array: Cannot cast ufunc 'multiply' output from dtype('float64') to dtype('bool') "
                   "with casting rule 'same_kind' (NumPy's error); use astype<float>() first, or decimals=0");
}

}  // namespace ndcuda::detail
