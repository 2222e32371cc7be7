// Tier 0 of a fused expression (docs/design.md, "Tiered first calls"): the register program that
// the ahead-of-time interpreter (kernels/tier0_interpreter.cu) runs while the expression's own
// kernel compiles. Shared by the host encoder (src/jit/tier0_encoder.cpp) and the interpreter, so
// plain C++ only: no library headers, no <cstdint> (NVRTC has none).
#pragma once

// Value types a program computes in, one code each (the interpreter's registers hold 8 bytes).
#define NDCUDA_TIER0_BOOL 0
#define NDCUDA_TIER0_INT32 1
#define NDCUDA_TIER0_INT64 2
#define NDCUDA_TIER0_FLOAT32 3
#define NDCUDA_TIER0_FLOAT64 4
#define NDCUDA_TIER0_TYPES 5

// Which value types an operation takes: a mask of these (bool, the integers, the floats).
#define NDCUDA_TIER0_B 1
#define NDCUDA_TIER0_I 2
#define NDCUDA_TIER0_F 4
#define NDCUDA_TIER0_IF (NDCUDA_TIER0_I | NDCUDA_TIER0_F)
#define NDCUDA_TIER0_BI (NDCUDA_TIER0_B | NDCUDA_TIER0_I)
#define NDCUDA_TIER0_BIF (NDCUDA_TIER0_B | NDCUDA_TIER0_I | NDCUDA_TIER0_F)

// The kernels/ufuncs*.cuh helpers the interpreter calls, as the generated code spells them
// (ndcuda::nd_<tag>): X(tag, arity, types, predicate). A predicate returns bool; every other helper
// returns its operands' type. Operands always share one type: the generated code converts them
// first (emit_operation), and so do programs (a cast step).
#define NDCUDA_TIER0_CALLS(X)            \
  X(add, 2, NDCUDA_TIER0_BIF, 0)         \
  X(subtract, 2, NDCUDA_TIER0_IF, 0)     \
  X(multiply, 2, NDCUDA_TIER0_BIF, 0)    \
  X(true_divide, 2, NDCUDA_TIER0_F, 0)   \
  X(floor_divide, 2, NDCUDA_TIER0_IF, 0) \
  X(remainder, 2, NDCUDA_TIER0_IF, 0)    \
  X(fmod, 2, NDCUDA_TIER0_IF, 0)         \
  X(power, 2, NDCUDA_TIER0_IF, 0)        \
  X(negative, 1, NDCUDA_TIER0_IF, 0)     \
  X(positive, 1, NDCUDA_TIER0_IF, 0)     \
  X(maximum, 2, NDCUDA_TIER0_BIF, 0)     \
  X(minimum, 2, NDCUDA_TIER0_BIF, 0)     \
  X(fmax, 2, NDCUDA_TIER0_BIF, 0)        \
  X(fmin, 2, NDCUDA_TIER0_BIF, 0)        \
  X(abs, 1, NDCUDA_TIER0_BIF, 0)         \
  X(sign, 1, NDCUDA_TIER0_IF, 0)         \
  X(square, 1, NDCUDA_TIER0_IF, 0)       \
  X(reciprocal, 1, NDCUDA_TIER0_IF, 0)   \
  X(floor, 1, NDCUDA_TIER0_F, 0)         \
  X(ceil, 1, NDCUDA_TIER0_F, 0)          \
  X(trunc, 1, NDCUDA_TIER0_F, 0)         \
  X(round, 1, NDCUDA_TIER0_F, 0)         \
  X(rint, 1, NDCUDA_TIER0_F, 0)          \
  X(invert, 1, NDCUDA_TIER0_BI, 0)       \
  X(left_shift, 2, NDCUDA_TIER0_I, 0)    \
  X(right_shift, 2, NDCUDA_TIER0_I, 0)   \
  X(gcd, 2, NDCUDA_TIER0_I, 0)           \
  X(lcm, 2, NDCUDA_TIER0_I, 0)           \
  X(sqrt, 1, NDCUDA_TIER0_F, 0)          \
  X(cbrt, 1, NDCUDA_TIER0_F, 0)          \
  X(exp, 1, NDCUDA_TIER0_F, 0)           \
  X(exp2, 1, NDCUDA_TIER0_F, 0)          \
  X(expm1, 1, NDCUDA_TIER0_F, 0)         \
  X(log, 1, NDCUDA_TIER0_F, 0)           \
  X(log2, 1, NDCUDA_TIER0_F, 0)          \
  X(log10, 1, NDCUDA_TIER0_F, 0)         \
  X(log1p, 1, NDCUDA_TIER0_F, 0)         \
  X(sin, 1, NDCUDA_TIER0_F, 0)           \
  X(cos, 1, NDCUDA_TIER0_F, 0)           \
  X(tan, 1, NDCUDA_TIER0_F, 0)           \
  X(arcsin, 1, NDCUDA_TIER0_F, 0)        \
  X(arccos, 1, NDCUDA_TIER0_F, 0)        \
  X(arctan, 1, NDCUDA_TIER0_F, 0)        \
  X(arctan2, 2, NDCUDA_TIER0_F, 0)       \
  X(sinh, 1, NDCUDA_TIER0_F, 0)          \
  X(cosh, 1, NDCUDA_TIER0_F, 0)          \
  X(tanh, 1, NDCUDA_TIER0_F, 0)          \
  X(arcsinh, 1, NDCUDA_TIER0_F, 0)       \
  X(arccosh, 1, NDCUDA_TIER0_F, 0)       \
  X(arctanh, 1, NDCUDA_TIER0_F, 0)       \
  X(hypot, 2, NDCUDA_TIER0_F, 0)         \
  X(copysign, 2, NDCUDA_TIER0_F, 0)      \
  X(logaddexp, 2, NDCUDA_TIER0_F, 0)     \
  X(logaddexp2, 2, NDCUDA_TIER0_F, 0)    \
  X(deg2rad, 1, NDCUDA_TIER0_F, 0)       \
  X(rad2deg, 1, NDCUDA_TIER0_F, 0)       \
  X(heaviside, 2, NDCUDA_TIER0_F, 0)     \
  X(float_power, 2, NDCUDA_TIER0_F, 0)   \
  X(nextafter, 2, NDCUDA_TIER0_F, 0)     \
  X(spacing, 1, NDCUDA_TIER0_F, 0)       \
  X(sinc, 1, NDCUDA_TIER0_F, 0)          \
  X(i0, 1, NDCUDA_TIER0_F, 0)            \
  X(gelu, 1, NDCUDA_TIER0_F, 0)          \
  X(isnan, 1, NDCUDA_TIER0_IF, 1)        \
  X(isinf, 1, NDCUDA_TIER0_IF, 1)        \
  X(isfinite, 1, NDCUDA_TIER0_IF, 1)     \
  X(isposinf, 1, NDCUDA_TIER0_IF, 1)     \
  X(isneginf, 1, NDCUDA_TIER0_IF, 1)     \
  X(signbit, 1, NDCUDA_TIER0_F, 1)

// The C++ operators the generated code writes in place of a helper: X(tag, operator, types,
// predicate), each `((T)(a op b))` over operands of one type (T is bool for a predicate).
#define NDCUDA_TIER0_INFIX(X)               \
  X(equal, ==, NDCUDA_TIER0_BIF, 1)         \
  X(not_equal, !=, NDCUDA_TIER0_BIF, 1)     \
  X(less, <, NDCUDA_TIER0_BIF, 1)           \
  X(less_equal, <=, NDCUDA_TIER0_BIF, 1)    \
  X(greater, >, NDCUDA_TIER0_BIF, 1)        \
  X(greater_equal, >=, NDCUDA_TIER0_BIF, 1) \
  X(logical_and, &&, NDCUDA_TIER0_B, 1)     \
  X(logical_or, ||, NDCUDA_TIER0_B, 1)      \
  X(bitwise_and, &, NDCUDA_TIER0_BI, 0)     \
  X(bitwise_or, |, NDCUDA_TIER0_BI, 0)      \
  X(bitwise_xor, ^, NDCUDA_TIER0_BI, 0)

// Opcodes: the steps that are not operations, then every call, then every operator.
#define NDCUDA_TIER0_OPCODE(tag, ...) ndcuda_tier0_##tag,
enum ndcuda_tier0_opcode : unsigned char {
  ndcuda_tier0_load_input,   // aux = input index; type = its value type
  ndcuda_tier0_load_scalar,  // aux = scalar index; type = its value type
  ndcuda_tier0_cast,         // a converted from `type` to `aux` as ndcuda::cast does
  ndcuda_tier0_where,        // a (bool) ? b : c, b and c of `type`
  ndcuda_tier0_logical_not,  // !a, a bool
  NDCUDA_TIER0_CALLS(NDCUDA_TIER0_OPCODE) NDCUDA_TIER0_INFIX(NDCUDA_TIER0_OPCODE) ndcuda_tier0_opcode_count
};
#undef NDCUDA_TIER0_OPCODE

#define NDCUDA_TIER0_MAX_STEPS 48
// Values live at once (the encoder allocates registers by liveness and refuses more), and
// elements each thread carries through one pass of the program: the register file holds
// REGISTERS x LANES values per thread.
#define NDCUDA_TIER0_REGISTERS 8
#define NDCUDA_TIER0_LANES 4
#define NDCUDA_TIER0_MAX_OPERANDS 32  // the output and 31 inputs, as the fused kernels allow
#define NDCUDA_TIER0_MAX_SCALARS 32
#define NDCUDA_TIER0_MAX_NDIM 6

// One step: reads registers a, b, c (as its operation needs) and writes register dst.
struct ndcuda_tier0_step {
  unsigned char op;
  unsigned char type;  // the operands' value type
  unsigned char a, b, c;
  unsigned char aux;
  unsigned char dst;
  unsigned char pad;
};

// The interpreter's only parameter (about 2.4 KB, under the 4 KB every architecture allows).
struct ndcuda_tier0_params {
  ndcuda_tier0_step steps[NDCUDA_TIER0_MAX_STEPS];
  int step_count;  // the last step's value (in its dst register) is stored
  int out_type;    // the output's value type (the last step's)
  int ndim;        // 0: every operand is dense and C-ordered, element i at offset i
  int pad;
  long long size;
  void* pointers[NDCUDA_TIER0_MAX_OPERANDS];             // the output, then the inputs
  unsigned long long scalars[NDCUDA_TIER0_MAX_SCALARS];  // each value's bytes, zero-padded
  long long shape[NDCUDA_TIER0_MAX_NDIM];
  long long strides[NDCUDA_TIER0_MAX_OPERANDS][NDCUDA_TIER0_MAX_NDIM];  // in elements
};
