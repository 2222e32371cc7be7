// Internal: NCCL return codes as ndcuda exceptions, and the NCCL datatype for a dtype and reduction.
// Only src/dist includes nccl.h; public headers stay free of it.
#pragma once

#include <nccl.h>

#include <cstddef>
#include <ndcuda/core/dtype.hpp>
#include <ndcuda/dist/communicator.hpp>
#include <optional>
#include <string>

namespace ndcuda::dist::detail {

/// Throws communication_error naming `call`, NCCL's error string and, with a communicator, its
/// last error text.
[[noreturn]] void throw_nccl_error(ncclResult_t code, const char* call, ncclComm_t comm);

inline void check_nccl(ncclResult_t code, const char* call) {
  if (code != ncclSuccess && code != ncclInProgress) [[unlikely]] {
    throw_nccl_error(code, call, nullptr);
  }
}

/// The NCCL type reducing `type` with `op` and how many NCCL elements one element is (2 for a
/// complex sum, reduced as its real and imaginary parts); nullopt when NCCL cannot do it.
struct nccl_mapping {
  ncclDataType_t type{};
  std::size_t multiplier = 1;
};
[[nodiscard]] std::optional<nccl_mapping> nccl_type(dtype type, reduce_op op) noexcept;

}  // namespace ndcuda::dist::detail

/// Checks an NCCL call (ncclInProgress, a non-blocking communicator's "posted", counts as success).
#define NDCUDA_NCCL_CHECK(...) ::ndcuda::dist::detail::check_nccl((__VA_ARGS__), #__VA_ARGS__)
