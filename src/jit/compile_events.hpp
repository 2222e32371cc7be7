// Internal: what the JIT reports about each kernel it makes ready (jit::compile_event): to the
// listener a program installs, or to stderr under NDCUDA_JIT_LOG=1, and into the record file
// NDCUDA_JIT_RECORD names (jit/kernel_record.hpp), which ndcuda-precompile reads.
#pragma once

#include <memory>
#include <string_view>

#include "jit/kernel_key.hpp"
#include "jit/program_cache.hpp"

namespace ndcuda::jit::detail {

/// `cache.get(key)`, timed, then reported: to the compile listener (or NDCUDA_JIT_LOG's printer),
/// and, when the program was not already in this process's memory, appended to NDCUDA_JIT_RECORD.
/// `kernel` and `description` name it in the event; `background`: a compile thread asked, while
/// tier 0 ran the kernel's first calls.
[[nodiscard]] std::shared_ptr<const program> observed_get(program_cache& cache, const kernel_key& key,
                                                          std::string_view kernel, std::string_view description,
                                                          bool background = false);

}  // namespace ndcuda::jit::detail
