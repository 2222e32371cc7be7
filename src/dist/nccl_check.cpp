// NCCL errors as communication_error, and the dtype -> ncclDataType_t table.
#include "dist/nccl_check.hpp"

namespace ndcuda::dist::detail {

void throw_nccl_error(ncclResult_t code, const char* call, ncclComm_t comm) {
  std::string message = std::string(call) + " failed: " + ncclGetErrorString(code);
  if (const char* last = ncclGetLastError(comm); last != nullptr && *last != '\0') {
    message += " (" + std::string(last) + ")";
  }
  if (code == ncclSystemError || code == ncclRemoteError) {
    message += "; a peer process or the network failed, every rank must create a new communicator";
  } else if (code == ncclInvalidUsage || code == ncclInvalidArgument) {
    message += "; the ranks disagree on a call or its arguments (every rank must make the same collectives)";
  }
  throw communication_error(message + ". Set NCCL_DEBUG=WARN for NCCL's own account");
}

std::optional<nccl_mapping> nccl_type(dtype type, reduce_op op) noexcept {
  switch (type) {
    case dtype::int8:
      return nccl_mapping{ncclInt8};
    case dtype::uint8:
      return nccl_mapping{ncclUint8};
    case dtype::int32:
      return nccl_mapping{ncclInt32};
    case dtype::uint32:
      return nccl_mapping{ncclUint32};
    case dtype::int64:
      return nccl_mapping{ncclInt64};
    case dtype::uint64:
      return nccl_mapping{ncclUint64};
    case dtype::float16:
      return nccl_mapping{ncclFloat16};
    case dtype::bfloat16:
      return nccl_mapping{ncclBfloat16};
    case dtype::float32:
      return nccl_mapping{ncclFloat32};
    case dtype::float64:
      return nccl_mapping{ncclFloat64};
    case dtype::complex64:
      return op == reduce_op::sum ? std::optional(nccl_mapping{ncclFloat32, 2}) : std::nullopt;
    case dtype::complex128:
      return op == reduce_op::sum ? std::optional(nccl_mapping{ncclFloat64, 2}) : std::nullopt;
    default:  // bool, int16, uint16: NCCL has no such type
      return std::nullopt;
  }
}

}  // namespace ndcuda::dist::detail
