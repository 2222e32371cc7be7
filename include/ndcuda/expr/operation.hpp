// What an operation of an expression node is to the engine: how the fused kernel spells it (a
// kernels/ helper or a C++ operator), the dtype its operands convert to and its result dtype, plus
// the result and operand rules the ufunc rows (ops/ufuncs.hpp) are written with, and the
// two operations the engine itself builds (where, astype's cast). An operation that spells itself
// (`spells_itself`, e.g. a random draw or isclose) returns a node_code built with converted_code
// and call_label. The engine's public face for routines that add operations. Builds on
// core/promotion.hpp.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <cstdint>
#include <ndcuda/core/dtype.hpp>
#include <ndcuda/core/promotion.hpp>
#include <span>
#include <string>

namespace ndcuda::detail {

/// The type a node's value has inside the kernel: half and bfloat16 compute in float32.
constexpr dtype compute_type(dtype t) noexcept {
  return t == dtype::float16 || t == dtype::bfloat16 ? dtype::float32 : t;
}

/// How a node is written: fn(a, b), ((T)(a op b)), ((T)(op a)), (c ? a : b), or a conversion
/// with astype's rules (rounded to the target dtype even when that computes in a wider type).
enum class form : std::uint8_t { call, infix, prefix, where, cast };

struct spelling {
  const char* text;  ///< helper name ("nd_add") or operator ("<")
  form how;
};

template <class... D>
constexpr dtype promote_all(dtype first, D... rest) noexcept {
  ((first = promote_types(first, rest)), ...);
  return first;
}

constexpr bool is_int_kind(dtype t) noexcept {
  return is_integral(t);
}
constexpr bool is_bool(dtype t) noexcept {
  return t == dtype::bool_;
}

// Result-type rules, from the operands' promoted dtype `p`.
constexpr dtype same(dtype p) noexcept {
  return p;
}
constexpr dtype to_bool(dtype) noexcept {
  return dtype::bool_;
}
/// True division of integers (and bools) gives float64, as in NumPy.
constexpr dtype true_div(dtype p) noexcept {
  return is_int_kind(p) || is_bool(p) ? dtype::float64 : p;
}
/// NumPy computes bool // bool and bool % bool in int8.
constexpr dtype int8_for_bool(dtype p) noexcept {
  return is_bool(p) ? dtype::int8 : p;
}
/// Float ufuncs on integers: the narrowest float holding every value (int8 -> float16, int16 ->
/// float32, int32/int64 -> float64, bool -> float16), as NumPy's loops choose.
constexpr dtype float_of(dtype p) noexcept {
  return is_floating(p) || is_complex(p) ? p : promote_types(p, dtype::float16);
}
/// float_power computes in float64 (complex128 for complex operands), whatever the inputs.
constexpr dtype float64_of(dtype p) noexcept {
  return is_complex(p) ? dtype::complex128 : dtype::float64;
}
/// np.sinc and np.i0 are Python functions, not loops: integers and bools become float64 (as
/// `pi * x` and `x.astype(float)` make them), floats and complex keep their dtype.
constexpr dtype float64_for_int(dtype p) noexcept {
  return is_int_kind(p) || is_bool(p) ? dtype::float64 : p;
}
/// abs, real, imag of complex give the part's type.
constexpr dtype part_of(dtype p) noexcept {
  return p == dtype::complex64 ? dtype::float32 : p == dtype::complex128 ? dtype::float64 : p;
}

// Operand rules: which promoted dtypes an operation accepts (NumPy raises TypeError for the rest).
constexpr bool any_type(dtype) noexcept {
  return true;
}
constexpr bool not_bool(dtype t) noexcept {
  return t != dtype::bool_;
}
constexpr bool not_complex(dtype t) noexcept {
  return !is_complex(t);
}
constexpr bool integer_or_bool(dtype t) noexcept {
  return is_integral(t) || t == dtype::bool_;
}
constexpr bool integer_only(dtype t) noexcept {
  return is_integral(t);
}
constexpr bool real_number(dtype t) noexcept {
  return !is_complex(t);
}
constexpr bool real_not_bool(dtype t) noexcept {
  return !is_complex(t) && t != dtype::bool_;
}
/// nextafter and spacing step through the representation of the loop's float type; the kernels
/// compute float16/bfloat16 in float, so those (and the int8/uint8/bool that become float16) are
/// refused rather than stepped by float's ulp.
constexpr bool real_not_half(dtype t) noexcept {
  const dtype f = float_of(t);
  return !is_complex(t) && f != dtype::float16 && f != dtype::bfloat16;
}

/// Source text of a subexpression and the CUDA type (as a dtype) that text has; `label` spells it
/// as the user wrote it ("a*b + c", arrays lettered by input, scalars s0, s1...) for the NVTX range,
/// `precedence` that label's C++ operator precedence (higher binds tighter), for its parentheses.
struct node_code {
  std::string text;
  dtype value;
  std::string label{};
  int precedence = label_atom;
  static constexpr int label_atom = 100;
};

/// The label of a node that spells itself (a random draw): name(arg labels).
[[nodiscard]] std::string call_label(const char* name, std::span<const node_code> args);

/// `c`'s text converted to dtype `to` (unchanged when it already has that type).
[[nodiscard]] std::string converted_code(dtype to, const node_code& c);

/// An operation: `Input` is the dtype the operands are converted to, `Result` the node's dtype
/// (both from the operands' promoted dtype). A table row below adds `check<P>()`, NumPy's type
/// check of the promoted dtype P as a static_assert carrying the row's message: every spelling
/// of the ufunc (`a - b`, `nd::subtract(a, b)`) builds its node through that one row.
template <const char* Name, const char* Text, form How, dtype (*Input)(dtype), dtype (*Result)(dtype)>
struct operation {
  static constexpr const char* name = Name;
  static constexpr spelling spell{Text, How};
  template <class... D>
  static constexpr dtype input(D... d) noexcept {
    return Input(promote_all(d...));
  }
  template <class... D>
  static constexpr dtype result(D... d) noexcept {
    return Result(promote_all(d...));
  }
};

/// where(c, a, b): c converts to bool, a and b promote together.
struct where_op {
  static constexpr const char* name = "where";
  static constexpr spelling spell{"?", form::where};
  static constexpr dtype input(dtype, dtype a, dtype b) noexcept { return promote_types(a, b); }
  static constexpr dtype result(dtype, dtype a, dtype b) noexcept { return promote_types(a, b); }
};

/// expr.astype<T>(): converts to D inside the fused kernel, with no temporary array.
template <dtype D>
struct cast_op {
  static constexpr const char* name = "astype";
  static constexpr spelling spell{"", form::cast};
  static constexpr dtype input(dtype) noexcept { return D; }
  static constexpr dtype result(dtype) noexcept { return D; }
};

}  // namespace ndcuda::detail

#pragma GCC visibility pop
