// Internal: the kernels/*.cuh sources compiled into the library (cmake/embed_kernels.cmake) and
// the checksum of all of them, which is part of every JIT key.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ndcuda::jit::detail {

struct embedded_header {
  std::string_view name;  ///< as kernels #include it: "ndcuda/elementwise.cuh"
  std::string_view content;
};

/// Every embedded header, sorted by name. Defined in the generated embedded_kernels.cpp.
const std::vector<embedded_header>& embedded_headers();

/// SHA-256 (hex) over every embedded header's name and content: a changed kernels/ header
/// changes every key, so no cubin built from the old one is reused.
const std::string& embedded_headers_checksum();

/// True when `name` ("ndcuda/indexer.cuh") is one of the embedded headers.
bool is_embedded_header(std::string_view name);

}  // namespace ndcuda::jit::detail
