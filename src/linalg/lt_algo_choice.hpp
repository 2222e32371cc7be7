// Which cuBLASLt algorithm runs a product: the heuristic's first candidate, or for large products
// the fastest of its candidates, timed once per shape and device and remembered (lt_gemm uses it).
#pragma once

#include <cublasLt.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <ndcuda/device/stream.hpp>
#include <vector>

namespace ndcuda::linalg::detail {

/// Everything that makes two products interchangeable for the algorithm choice.
struct lt_problem {
  int device = 0;
  std::int64_t m = 0, n = 0, k = 0, lda = 0, ldb = 0;
  int type = 0, compute = 0, op_a = 0, op_b = 0, epilogue = 0;
  bool bias = false;
  std::uint32_t align_a = 0, align_b = 0, align_c = 0;
  auto operator<=>(const lt_problem&) const = default;
};

struct lt_algo {
  cublasLtMatmulAlgo_t algo{};
  std::size_t workspace = 0;
};

/// Runs the product with `algo` on s, using `workspace` bytes at `ws`; false when cuBLASLt refuses
/// that algorithm for these operands.
using lt_runner = std::function<bool(const lt_algo& algo, void* ws)>;

/// The algorithm for `problem`: a remembered choice; else, when autotuning applies
/// (set_gemm_autotune, a product of at least 2^33 multiply-adds, s not capturing), the fastest of
/// `candidates` timed through `run` on s (each trial writes the output) and remembered; else the
/// first candidate. `candidates` is not empty.
[[nodiscard]] lt_algo choose_lt_algo(const lt_problem& problem, const std::vector<lt_algo>& candidates, const stream& s,
                                     const lt_runner& run);

/// The largest power of two, at most 256, that divides the address (cuBLASLt's alignment hints).
[[nodiscard]] std::uint32_t pointer_alignment(const void* p) noexcept;

}  // namespace ndcuda::linalg::detail
