// Checks for cuBLAS, cuBLASLt, cuSOLVER and cuFFT status codes: a failure throws cuda_error (or
// out_of_memory) naming the status, the call and where it was made. Private to ndcuda::linalg.
#pragma once

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cufft.h>
#include <cusolverDn.h>

#include <ndcuda/core/error.hpp>

namespace ndcuda::linalg::detail {

using ndcuda::detail::source_location;

[[nodiscard]] const char* status_name(cublasStatus_t s) noexcept;
[[nodiscard]] const char* status_name(cusolverStatus_t s) noexcept;
[[nodiscard]] const char* status_name(cufftResult s) noexcept;

[[noreturn]] void throw_library_error(const char* library, int code, const char* name, const char* call,
                                      const source_location& where);

inline void check(cublasStatus_t s, const char* call, const source_location& where = source_location::current()) {
  if (s != CUBLAS_STATUS_SUCCESS) [[unlikely]] {
    throw_library_error("cuBLAS", static_cast<int>(s), status_name(s), call, where);
  }
}
inline void check(cusolverStatus_t s, const char* call, const source_location& where = source_location::current()) {
  if (s != CUSOLVER_STATUS_SUCCESS) [[unlikely]] {
    throw_library_error("cuSOLVER", static_cast<int>(s), status_name(s), call, where);
  }
}
inline void check(cufftResult s, const char* call, const source_location& where = source_location::current()) {
  if (s != CUFFT_SUCCESS) [[unlikely]] {
    throw_library_error("cuFFT", static_cast<int>(s), status_name(s), call, where);
  }
}

}  // namespace ndcuda::linalg::detail

/// Checks a cuBLAS / cuSOLVER / cuFFT call (overloaded on the status type).
#define NDCUDA_LIB_CHECK(...) ::ndcuda::linalg::detail::check((__VA_ARGS__), #__VA_ARGS__)
