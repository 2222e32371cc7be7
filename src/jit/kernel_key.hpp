// Internal: the key of a JIT kernel: everything NVRTC sees (source, headers, options, target) and
// the versions of what produced it. Two keys are equal only when their canonical bytes are.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/tool_export.hpp"
#include "jit/hash.hpp"

namespace ndcuda::jit::detail {

/// What NVRTC compiles for: a real architecture (sm_XX, giving a CUBIN) or a virtual one
/// (compute_XX, giving PTX the driver finishes) when the device is newer than NVRTC knows.
struct compile_target {
  int arch = 0;  ///< 90 for sm_90
  bool ptx = false;
  [[nodiscard]] std::string option() const;  ///< "-arch=sm_90" or "-arch=compute_90"
  [[nodiscard]] std::string name() const;    ///< "sm_90" or "compute_90"
  friend bool operator==(const compile_target&, const compile_target&) = default;
};

struct NDCUDA_TOOL_API kernel_key {
  std::string source;                         ///< the full generated source
  std::string program_name;                   ///< the file name NVRTC reports ("scaled_sum.cu")
  std::vector<std::string> name_expressions;  ///< kernels whose lowered names are wanted
  std::vector<std::string> options;           ///< every NVRTC option, -arch included
  compile_target target;
  int nvrtc_major = 0;
  int nvrtc_minor = 0;
  std::string nvrtc_build;       ///< nvrtc_build(): which build of that version
  std::string ndcuda_version;    ///< NDCUDA_VERSION_STRING
  std::string headers_checksum;  ///< embedded_headers_checksum()

  /// Length-prefixed serialisation of every field: the identity of the key, compared in full.
  [[nodiscard]] std::string canonical() const;
  friend bool operator==(const kernel_key& a, const kernel_key& b) { return a.canonical() == b.canonical(); }
};

[[nodiscard]] inline sha256_digest digest(const kernel_key& key) {
  return sha256_of(key.canonical());
}

/// A key for `source` compiled for `target`: ndcuda's standard options (-std, -default-device,
/// -lineinfo in debug builds, include folders the source needs) plus `user_options`, and the
/// current NVRTC, ndcuda and embedded-header versions. Throws compile_error for an option ndcuda
/// must own (-arch) or headers it cannot find.
[[nodiscard]] kernel_key make_key(std::string source, std::string program_name,
                                  std::vector<std::string> name_expressions,
                                  const std::vector<std::string>& user_options, compile_target target);

}  // namespace ndcuda::jit::detail
