// Internal: the record of the kernel keys a program used (NDCUDA_JIT_RECORD=<file>), which
// ndcuda-precompile reads to fill a disk cache ahead of time, with no GPU.
//
// The file is text: "ndcuda-jit-record 1\n", then per key its fields, each written as
// "<tag> <byte count>\n<bytes>\n" (sources span lines, so every field says its length), from
// "begin" to "end". Processes append whole keys with one write each, so several may record into
// one file; a key may appear many times (readers keep the first).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/tool_export.hpp"
#include "jit/kernel_key.hpp"

namespace ndcuda::jit::detail {

/// The first line of every record file.
inline constexpr std::string_view record_header = "ndcuda-jit-record 1\n";

/// One key as the record stores it, from "begin" to "end".
[[nodiscard]] std::string encode_record(const kernel_key& key);

/// The keys of a record file's contents, each once, in the order first seen. Throws compile_error
/// ("not an ndcuda kernel record" or where it is malformed, with the byte offset) on bad input.
[[nodiscard]] NDCUDA_TOOL_API std::vector<kernel_key> decode_records(std::string_view text);

/// Appends `key` to the file NDCUDA_JIT_RECORD names (read once per process), when it is set:
/// created 0644 if missing, never through a link or into anything but a regular file. A failure
/// warns once and stops recording; it never fails the kernel.
void record_key(const kernel_key& key);

/// `key` built for `target` instead: the -arch option and the target replaced, all else kept.
[[nodiscard]] NDCUDA_TOOL_API kernel_key retarget(const kernel_key& key, compile_target target);

/// Why `key`, recorded by another process, would never be found by a process running this
/// NVRTC and this ndcuda (a different NVRTC build, ndcuda version or embedded headers); empty
/// when it would.
[[nodiscard]] NDCUDA_TOOL_API std::string mismatch_with_this_process(const kernel_key& key);

}  // namespace ndcuda::jit::detail
