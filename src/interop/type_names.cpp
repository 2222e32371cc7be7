// C++ spellings of the dtypes for messages.
#include "interop/type_names.hpp"

namespace ndcuda::detail {

std::string_view cpp_type_name(dtype t) noexcept {
  switch (t) {
    case dtype::bool_:
      return "bool";
    case dtype::int8:
      return "std::int8_t";
    case dtype::int16:
      return "std::int16_t";
    case dtype::int32:
      return "std::int32_t";
    case dtype::int64:
      return "std::int64_t";
    case dtype::uint8:
      return "std::uint8_t";
    case dtype::uint16:
      return "std::uint16_t";
    case dtype::uint32:
      return "std::uint32_t";
    case dtype::uint64:
      return "std::uint64_t";
    case dtype::float16:
      return "__half";
    case dtype::bfloat16:
      return "__nv_bfloat16";
    case dtype::float32:
      return "float";
    case dtype::float64:
      return "double";
    case dtype::complex64:
      return "std::complex<float>";
    case dtype::complex128:
      return "std::complex<double>";
  }
  return "<invalid dtype>";
}

}  // namespace ndcuda::detail
