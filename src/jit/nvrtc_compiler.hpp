// Internal: NVRTC as ndcuda uses it: which architecture to compile for, and one compile of a key
// into a CUBIN (or PTX) with the lowered kernel names, or a readable compile_error.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/tool_export.hpp"
#include "jit/kernel_key.hpp"

namespace ndcuda::jit::detail {

/// The NVRTC this process runs with (nvrtcVersion), e.g. {13, 0}.
[[nodiscard]] std::pair<int, int> nvrtc_version();

/// Tells NVRTC builds of one major.minor apart (a toolkit update from 13.0.48 to 13.0.88 keeps
/// nvrtcVersion): the loaded library's file name and size, e.g. "libnvrtc.so.13/74518312".
[[nodiscard]] const std::string& nvrtc_build();

/// Real architectures NVRTC can emit a CUBIN for (nvrtcGetSupportedArchs), ascending: 75 .. 121.
[[nodiscard]] const std::vector<int>& nvrtc_supported_archs();

/// The target for a device of `device_arch` (e.g. 90): its own sm_XX when NVRTC supports it; the
/// newest supported sm_XY of the same major below it (binary compatible) otherwise; PTX for the
/// newest architecture NVRTC knows when the device is newer than all of them. Throws device_error
/// for a device older than every supported architecture.
[[nodiscard]] compile_target select_target(int device_arch, std::span<const int> supported);
[[nodiscard]] NDCUDA_TOOL_API compile_target select_target(int device_arch);

struct compiled_program {
  std::string image;                       ///< CUBIN, or NUL-terminated PTX text
  std::vector<std::string> lowered_names;  ///< one per key.name_expressions, in order
  std::string log;                         ///< NVRTC's warnings, if any
};

/// Compiles `key` with NVRTC: the embedded headers are given to nvrtcCreateProgram, the options
/// are key.options. Throws compile_error (kernel name, options, log, numbered source) on failure.
/// NDCUDA_JIT_DUMP=<dir> saves each source, its options and log there.
[[nodiscard]] NDCUDA_TOOL_API compiled_program nvrtc_compile(const kernel_key& key);

/// Extra options for the kernels ndcuda generates (not for raw kernels): --fmad=false (no
/// multiply-add contraction: NumPy's rounding, and the same bits in both tiers), and -minimal where
/// NVRTC has it (12.4 and newer), which drops texture/runtime declarations they never use and
/// saves ~10% of each compile.
[[nodiscard]] const std::vector<std::string>& generated_kernel_options();

/// How many times nvrtcCompileProgram has been called in this process (tests count compiles).
[[nodiscard]] std::uint64_t nvrtc_compile_count() noexcept;

/// The source with right-aligned line numbers ("  12 | code"), as compile_error messages show it.
[[nodiscard]] std::string number_lines(std::string_view source);

}  // namespace ndcuda::jit::detail
