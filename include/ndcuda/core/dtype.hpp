/// @file
/// The element types ndcuda arrays can hold: the dtype enum, its properties and names, and the C++ type mapping.
/// Builds on the standard library and the host-includable CUDA half types (<cuda_fp16.h>, <cuda_bf16.h>) only.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

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

/// The number of dtypes ndcuda supports.
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

/// One row per dtype, in enum order: its family, size and names. Every property and spelling of a
/// dtype is read from here, so a name is written once.
struct dtype_info {
  dtype type;                  ///< the dtype this row describes
  dtype_kind kind;             ///< its kind (bool, signed/unsigned integer, floating, complex)
  std::size_t itemsize;        ///< bytes per element
  std::string_view name;       ///< NumPy's ("float16"); bfloat16, which NumPy lacks, as in ml_dtypes
  std::string_view cuda_name;  ///< in CUDA C++ generated for NVRTC
  std::string_view cpp_name;   ///< the C++ element type, as messages spell it (load_npy<...>)
};

/// Integers use the C names in generated code rather than `<cstdint>` aliases so that it needs no
/// headers. ndcuda::complex<T> is not declared by any host header: it is defined in the JIT
/// kernels' numeric-type header under kernels/.
inline constexpr std::array<dtype_info, dtype_count> dtype_table = {{
    {dtype::bool_, dtype_kind::boolean, 1, "bool", "bool", "bool"},
    {dtype::int8, dtype_kind::signed_integer, 1, "int8", "signed char", "std::int8_t"},
    {dtype::int16, dtype_kind::signed_integer, 2, "int16", "short", "std::int16_t"},
    {dtype::int32, dtype_kind::signed_integer, 4, "int32", "int", "std::int32_t"},
    {dtype::int64, dtype_kind::signed_integer, 8, "int64", "long long", "std::int64_t"},
    {dtype::uint8, dtype_kind::unsigned_integer, 1, "uint8", "unsigned char", "std::uint8_t"},
    {dtype::uint16, dtype_kind::unsigned_integer, 2, "uint16", "unsigned short", "std::uint16_t"},
    {dtype::uint32, dtype_kind::unsigned_integer, 4, "uint32", "unsigned int", "std::uint32_t"},
    {dtype::uint64, dtype_kind::unsigned_integer, 8, "uint64", "unsigned long long", "std::uint64_t"},
    {dtype::float16, dtype_kind::floating, 2, "float16", "__half", "__half"},
    {dtype::bfloat16, dtype_kind::floating, 2, "bfloat16", "__nv_bfloat16", "__nv_bfloat16"},
    {dtype::float32, dtype_kind::floating, 4, "float32", "float", "float"},
    {dtype::float64, dtype_kind::floating, 8, "float64", "double", "double"},
    {dtype::complex64, dtype_kind::complex, 8, "complex64", "ndcuda::complex<float>", "std::complex<float>"},
    {dtype::complex128, dtype_kind::complex, 16, "complex128", "ndcuda::complex<double>", "std::complex<double>"},
}};

/// Whether dtype_table lists the dtypes in enum order (checked at compile time).
constexpr bool dtype_table_in_order() noexcept {
  for (std::size_t i = 0; i < dtype_table.size(); ++i) {
    if (static_cast<std::size_t>(dtype_table[i].type) != i) {
      return false;
    }
  }
  return true;
}
static_assert(dtype_table_in_order(), "dtype_table: one row per dtype, in the enum's order");

/// What an invalid enumerator (a cast from a bad integer) reads: no size, "<invalid dtype>".
inline constexpr dtype_info invalid_dtype_info{dtype::bool_,      dtype_kind::boolean, 0,
                                               "<invalid dtype>", "<invalid dtype>",   "<invalid dtype>"};

/// The row of `t`.
constexpr const dtype_info& dtype_info_of(dtype t) noexcept {
  const auto i = static_cast<std::size_t>(t);
  return i < dtype_table.size() ? dtype_table[i] : invalid_dtype_info;
}

/// The kind of `t` (NumPy's dtype.kind, as an enum).
constexpr dtype_kind kind(dtype t) noexcept {
  return dtype_info_of(t).kind;
}

/// Bytes per element.
constexpr std::size_t itemsize(dtype t) noexcept {
  return dtype_info_of(t).itemsize;
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

/// Complex types (complex64, complex128).
constexpr bool is_complex(dtype t) noexcept {
  return kind(t) == dtype_kind::complex;
}

/// Whether the type can hold negative values: signed integers, floating and complex types.
constexpr bool is_signed(dtype t) noexcept {
  return kind(t) == dtype_kind::signed_integer || is_floating(t) || is_complex(t);
}

/// The NumPy name ("bool", "int8", ..., "complex128").
constexpr std::string_view name(dtype t) noexcept {
  return dtype_info_of(t).name;
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

/// Writes NumPy's name of `t` ("float32").
inline std::ostream& operator<<(std::ostream& os, dtype t) {
  return os << name(t);
}

/// The type as spelled in CUDA C++ source generated for NVRTC ("long long", "__half").
constexpr std::string_view cuda_type_name(dtype t) noexcept {
  return dtype_info_of(t).cuda_name;
}

/// The C++ element type as messages spell it ("std::int64_t"), so a user can paste it into
/// load_npy<...>.
constexpr std::string_view cpp_type_name(dtype t) noexcept {
  return dtype_info_of(t).cpp_name;
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

/// The dtype of a canonical element type (bool, std::int8_t, ..., std::complex<double>).
template <class T>
requires detail::is_canonical_element<T>
struct dtype_traits<T> {
  static constexpr dtype value =
      static_cast<dtype>(detail::index_in<T, detail::element_types>::value);  ///< the dtype of T
};

/// The dtype of the other spelling of a 64-bit integer (long long or long), by its size and sign.
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

/// The dtype of an element type: `nd::dtype_of<float>` is dtype::float32.
template <array_element T>
inline constexpr dtype dtype_of = dtype_traits<std::remove_cv_t<T>>::value;

/// The canonical C++ type of a dtype: std::int64_t for int64, std::complex<float> for complex64.
template <dtype D>
using type_of = std::tuple_element_t<static_cast<std::size_t>(D), detail::element_types>;

static_assert(sizeof(std::complex<float>) == 8 && sizeof(std::complex<double>) == 16,
              "complex element layout must be {real, imag} as in CUDA's cuComplex");

}  // namespace ndcuda

#pragma GCC visibility pop
