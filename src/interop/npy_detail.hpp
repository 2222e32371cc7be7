// What npy.cpp and npy_header.cpp share: the magic string and a header parse that reports byte order.
#pragma once

#include <ndcuda/interop/npy.hpp>
#include <string_view>

namespace ndcuda::detail {

inline constexpr std::string_view npy_magic = "\x93NUMPY";

/// parse_npy_header_dict that also says whether the descr was big-endian ('>').
[[nodiscard]] npy_header parse_npy_header_dict(std::string_view dict, std::string_view source, bool& big_endian);

}  // namespace ndcuda::detail
