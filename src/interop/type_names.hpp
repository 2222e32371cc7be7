// How messages spell the C++ type of a dtype, so that a user can paste it into load_npy<...>.
#pragma once

#include <ndcuda/core/dtype.hpp>
#include <string_view>

namespace ndcuda::detail {

[[nodiscard]] std::string_view cpp_type_name(dtype t) noexcept;

}  // namespace ndcuda::detail
