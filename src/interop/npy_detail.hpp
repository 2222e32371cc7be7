// What npy.cpp and npy_header.cpp share: the magic string, the reader's limits, how messages quote
// header text, and a header parse that reports byte order.
#pragma once

#include <cstddef>
#include <ndcuda/interop/npy.hpp>
#include <string>
#include <string_view>

namespace ndcuda::detail {

inline constexpr std::string_view npy_magic = "\x93NUMPY";

/// The longest header dict read_npy accepts. np.save writes a few hundred bytes (a 64-dimensional
/// shape still fits in 2 KiB); NumPy's own np.load refuses more than 10000 bytes unless told.
/// Checked against the file's size too, before anything is allocated.
inline constexpr std::size_t npy_max_header_bytes = std::size_t{1} << 20;

/// How much of a header (or of a string in it) an error message quotes.
inline constexpr std::size_t npy_max_quoted_chars = 200;

/// `text` as an error message shows it: at most npy_max_quoted_chars characters, control and
/// non-ASCII bytes spelled \xNN, and the full length named when it was cut.
[[nodiscard]] std::string quote_npy_text(std::string_view text);

/// parse_npy_header_dict that also says whether the descr was big-endian ('>').
[[nodiscard]] npy_header parse_npy_header_dict(std::string_view dict, std::string_view source, bool& big_endian);

}  // namespace ndcuda::detail
