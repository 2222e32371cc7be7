/// @file
/// NumPy's .npz archives on the host: a zip of .npy members, stored or deflated (through zlib), as
/// np.savez and np.savez_compressed write them. Builds on interop/npy.hpp; npz_array.hpp moves ndarrays.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <cstddef>
#include <filesystem>
#include <ndcuda/interop/npy.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ndcuda {

/// One array of an .npz archive: its key (the member's name without ".npy", as np.load's NpzFile
/// names it) and its .npy contents.
struct npz_member {
  std::string name;  ///< the key: "arr_0", "weights", ...
  npy_file array;    ///< header and little-endian data in the header's order
};

/// The key np.savez gives its i-th positional array: "arr_0", "arr_1", ...
[[nodiscard]] std::string npz_positional_name(std::size_t i);

/// True when this build has zlib, so it writes and reads deflated members (savez_compressed).
[[nodiscard]] bool npz_deflate_available() noexcept;

/// Writes an .npz archive byte for byte as NumPy 2 writes it (np.savez when `compressed` is false,
/// np.savez_compressed when true): members in the given order named "<name>.npy", zip64 local
/// headers, the fixed 1980-01-01 timestamp, and zip64 records where an offset or size needs them.
/// Throws io_error for a duplicate or empty name, bfloat16, an unwritable path, or `compressed`
/// in a build without zlib.
void write_npz(const std::filesystem::path& path, std::span<const npz_member> members, bool compressed);

/// Reads every member of an .npz archive (stored or deflated, zip64 or not), in archive order.
/// Validates the zip structure, the CRC-32 of every member and each .npy header against the data;
/// anything else (a non-.npy member, encryption, another compression method, a truncated or
/// inconsistent file) is an io_error naming the file and the member.
[[nodiscard]] std::vector<npz_member> read_npz(const std::filesystem::path& path);

/// Parses the bytes of a whole .npy file held in memory (an .npz member) into header and data; big-endian
/// data is byte-swapped. `source` names the bytes in error messages. Takes the buffer so that the data is
/// not copied: the header is cut off the front.
[[nodiscard]] npy_file parse_npy_bytes(std::vector<std::byte>&& bytes, std::string_view source);

}  // namespace ndcuda

#pragma GCC visibility pop
