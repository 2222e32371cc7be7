// The element types ndcuda arrays can hold: the dtype enum, its properties and names, and the C++ type mapping.
// Builds on the standard library and the host-includable CUDA half types (<cuda_fp16.h>, <cuda_bf16.h>) only.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <array>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string_view>
#include <tuple>
#include <type_traits>

namespace ndcuda {

/// An array's element type. type_of and the promotion table index by enumerator value: append,
/// never reorder.
enum class dtype : std::uint8_t {
  bool_,
  int8,
  int16,
  int32,
  int64,
  uint8,
  uint16,
  uint32,
  uint64,
  float16,
  bfloat16,
  float32,
  float64,
  complex64,
  complex128,
};

inline constexpr int dtype_count = 15;

/// Every dtype in enum order, for loops and tables.
inline constexpr std::array<dtype, dtype_count> all_dtypes = {
    dtype::bool_,    dtype::int8,    dtype::int16,   dtype::int32,     dtype::int64,
    dtype::uint8,    dtype::uint16,  dtype::uint32,  dtype::uint64,    dtype::float16,
    dtype::bfloat16, dtype::float32, dtype::float64, dtype::complex64, dtype::complex128,
};

/// The families promotion reasons about, declared from narrowest to widest: promotion relies on
/// boolean < integers < floating < complex.
enum class dtype_kind { boolean, signed_integer, unsigned_integer, floating, complex };

constexpr dtype_kind kind(dtype t) noexcept {
  switch (t) {
    case dtype::bool_:
      return dtype_kind::boolean;
    case dtype::int8:
    case dtype::int16:
    case dtype::int32:
    case dtype::int64:
      return dtype_kind::signed_integer;
    case dtype::uint8:
    case dtype::uint16:
    case dtype::uint32:
    case dtype::uint64:
      return dtype_kind::unsigned_integer;
    case dtype::float16:
    case dtype::bfloat16:
    case dtype::float32:
    case dtype::float64:
      return dtype_kind::floating;
    case dtype::complex64:
    case dtype::complex128:
      return dtype_kind::complex;
  }
  return dtype_kind::boolean;  // unreachable for valid enumerators
}

/// Bytes per element.
constexpr std::size_t itemsize(dtype t) noexcept {
  switch (t) {
    case dtype::bool_:
    case dtype::int8:
    case dtype::uint8:
      return 1;
    case dtype::int16:
    case dtype::uint16:
    case dtype::float16:
    case dtype::bfloat16:
      return 2;
    case dtype::int32:
    case dtype::uint32:
    case dtype::float32:
      return 4;
    case dtype::int64:
    case dtype::uint64:
    case dtype::float64:
    case dtype::complex64:
      return 8;
    case dtype::complex128:
      return 16;
  }
  return 0;
}

/// Signed or unsigned integers. bool is not integral, as in NumPy (np.isdtype(np.bool_, "integral")
/// is False) and the array API, unlike std::is_integral.
constexpr bool is_integral(dtype t) noexcept {
  return kind(t) == dtype_kind::signed_integer || kind(t) == dtype_kind::unsigned_integer;
}

/// Real floating types (float16, bfloat16, float32, float64); complex is not floating here.
constexpr bool is_floating(dtype t) noexcept {
  return kind(t) == dtype_kind::floating;
}

constexpr bool is_complex(dtype t) noexcept {
  return kind(t) == dtype_kind::complex;
}

/// Whether the type can hold negative values: signed integers, floating and complex types.
constexpr bool is_signed(dtype t) noexcept {
  return kind(t) == dtype_kind::signed_integer || is_floating(t) || is_complex(t);
}

/// The NumPy name ("bool", "int8", ..., "complex128"); bfloat16, which NumPy lacks, is "bfloat16"
/// as in ml_dtypes and PyTorch.
constexpr std::string_view name(dtype t) noexcept {
  switch (t) {
    case dtype::bool_:
      return "bool";
    case dtype::int8:
      return "int8";
    case dtype::int16:
      return "int16";
    case dtype::int32:
      return "int32";
    case dtype::int64:
      return "int64";
    case dtype::uint8:
      return "uint8";
    case dtype::uint16:
      return "uint16";
    case dtype::uint32:
      return "uint32";
    case dtype::uint64:
      return "uint64";
    case dtype::float16:
      return "float16";
    case dtype::bfloat16:
      return "bfloat16";
    case dtype::float32:
      return "float32";
    case dtype::float64:
      return "float64";
    case dtype::complex64:
      return "complex64";
    case dtype::complex128:
      return "complex128";
  }
  return "<invalid dtype>";
}

/// Inverse of name(). Only the canonical names are accepted: NumPy's aliases ("float", "int",
/// "double") depend on the platform's C types and would make a saved name mean different things.
constexpr std::optional<dtype> dtype_from_name(std::string_view s) noexcept {
  for (dtype t : all_dtypes) {
    if (name(t) == s) {
      return t;
    }
  }
  return std::nullopt;
}

inline std::ostream& operator<<(std::ostream& os, dtype t) {
  return os << name(t);
}

/// The type as spelled in CUDA C++ source generated for NVRTC. Integers use the C names rather
/// than <cstdint> aliases so generated code needs no headers. ndcuda::complex<T> is not declared
/// by any host header: it is defined in the JIT kernels' numeric-type header under kernels/.
constexpr std::string_view cuda_type_name(dtype t) noexcept {
  switch (t) {
    case dtype::bool_:
      return "bool";
    case dtype::int8:
      return "signed char";
    case dtype::int16:
      return "short";
    case dtype::int32:
      return "int";
    case dtype::int64:
      return "long long";
    case dtype::uint8:
      return "unsigned char";
    case dtype::uint16:
      return "unsigned short";
    case dtype::uint32:
      return "unsigned int";
    case dtype::uint64:
      return "unsigned long long";
    case dtype::float16:
      return "__half";
    case dtype::bfloat16:
      return "__nv_bfloat16";
    case dtype::float32:
      return "float";
    case dtype::float64:
      return "double";
    case dtype::complex64:
      return "ndcuda::complex<float>";
    case dtype::complex128:
      return "ndcuda::complex<double>";
  }
  return "<invalid dtype>";
}

namespace detail {

// The canonical C++ type of each dtype, in enum order: the single source for both directions of
// the mapping. Plain char is absent on purpose: whether it is signed depends on the platform, so
// ndarray<char> would be int8 on x86 and uint8 on ARM.
using element_types =
    std::tuple<bool, std::int8_t, std::int16_t, std::int32_t, std::int64_t, std::uint8_t, std::uint16_t, std::uint32_t,
               std::uint64_t, __half, __nv_bfloat16, float, double, std::complex<float>, std::complex<double>>;
static_assert(std::tuple_size_v<element_types> == dtype_count);

template <class T, class Tuple>
struct index_in;
template <class T, class... Ts>
struct index_in<T, std::tuple<Ts...>> {
  static constexpr std::size_t value = [] {
    constexpr bool same[] = {std::is_same_v<T, Ts>...};
    for (std::size_t i = 0; i < sizeof...(Ts); ++i) {
      if (same[i]) {
        return i;
      }
    }
    return sizeof...(Ts);
  }();
};

template <class T>
inline constexpr bool is_canonical_element = index_in<T, element_types>::value < dtype_count;

// long/long long (and their unsigned forms) are distinct types although one of each pair is
// int64_t/uint64_t; the other spelling still names a 64-bit integer, so map it by size and sign
// instead of rejecting what users naturally write. On LLP64 (Windows) this maps 32-bit long too.
template <class T>
inline constexpr bool is_integer_alias =
    !is_canonical_element<T> && (std::is_same_v<T, long> || std::is_same_v<T, long long> ||
                                 std::is_same_v<T, unsigned long> || std::is_same_v<T, unsigned long long>);

template <class T>
constexpr dtype integer_dtype_by_layout() noexcept {
  constexpr bool negative_ok = std::is_signed_v<T>;
  switch (sizeof(T)) {
    case 1:
      return negative_ok ? dtype::int8 : dtype::uint8;
    case 2:
      return negative_ok ? dtype::int16 : dtype::uint16;
    case 4:
      return negative_ok ? dtype::int32 : dtype::uint32;
    default:
      return negative_ok ? dtype::int64 : dtype::uint64;
  }
}

}  // namespace detail

/// Maps a C++ element type to its dtype through `value`. Defined only for element types, so a
/// use with anything else is a compile error naming the type.
template <class T>
struct dtype_traits;

template <class T>
requires detail::is_canonical_element<T>
struct dtype_traits<T> {
  static constexpr dtype value = static_cast<dtype>(detail::index_in<T, detail::element_types>::value);
};

template <class T>
requires detail::is_integer_alias<T>
struct dtype_traits<T> {
  static constexpr dtype value = detail::integer_dtype_by_layout<T>();
};

/// Types an ndarray can hold (ignoring const/volatile): the 15 canonical types of type_of, plus
/// the other spelling of the 64-bit integers (long long or long, whichever int64_t is not).
template <class T>
concept array_element = requires {
  dtype_traits<std::remove_cv_t<T>>::value;
};

template <array_element T>
inline constexpr dtype dtype_of = dtype_traits<std::remove_cv_t<T>>::value;

/// The canonical C++ type of a dtype: std::int64_t for int64, std::complex<float> for complex64.
template <dtype D>
using type_of = std::tuple_element_t<static_cast<std::size_t>(D), detail::element_types>;

static_assert(sizeof(std::complex<float>) == 8 && sizeof(std::complex<double>) == 16,
              "complex element layout must be {real, imag} as in CUDA's cuComplex");

}  // namespace ndcuda
