/// @file
/// The ndcuda exception hierarchy and the checks that turn CUDA return codes into exceptions.
/// Builds on the CUDA runtime's error codes only; every other layer reports failures through it.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace ndcuda {

/// Base of every exception ndcuda throws. Messages say what was asked, what went wrong and
/// what to do about it.
class error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A CUDA runtime or driver call failed.
class cuda_error : public error {
 public:
  /// `code` and `name` are CUDA's, `call` the failed call as written, `where` its file:line; `message` the full text.
  cuda_error(int code, std::string name, std::string call, std::string where, const std::string& message);

  /// The raw cudaError_t or CUresult value.
  [[nodiscard]] int code() const noexcept { return code_; }
  /// The symbolic name, e.g. "cudaErrorInvalidValue".
  [[nodiscard]] const std::string& name() const noexcept { return name_; }
  /// The call as written in the source, e.g. "cudaMalloc(&p, bytes)".
  [[nodiscard]] const std::string& call() const noexcept { return call_; }
  /// file:line (function) of the call.
  [[nodiscard]] const std::string& where() const noexcept { return where_; }

 private:
  int code_;
  std::string name_;
  std::string call_;
  std::string where_;
};

/// An allocation could not be satisfied, even after cached memory was released.
class out_of_memory : public error {
 public:
  using error::error;
};

/// NVRTC rejected generated source. Holds the source and the compiler log.
class compile_error : public error {
 public:
  /// `message` says what failed; the rejected `source` and NVRTC's `log` are kept for the caller.
  compile_error(const std::string& message, std::string source, std::string log)
      : error(message), source_(std::move(source)), log_(std::move(log)) {}
  /// The generated source NVRTC rejected.
  [[nodiscard]] const std::string& source() const noexcept { return source_; }
  /// NVRTC's compile log.
  [[nodiscard]] const std::string& log() const noexcept { return log_; }

 private:
  std::string source_;
  std::string log_;
};

/// Shapes, axes or indices that do not fit together (NumPy's ValueError/IndexError/AxisError).
class shape_error : public error {
 public:
  using error::error;
};

/// An index that does not fit the array (NumPy's IndexError): an integer-array index out of
/// bounds, a mask of the wrong shape, index arrays that do not broadcast. It is a shape_error, so
/// code that catches the out-of-bounds errors of basic indexing (shape_error) catches these too.
class index_error : public shape_error {
 public:
  using shape_error::shape_error;
};

/// A dtype an operation cannot produce or accept, e.g. `int_array += 1.5` (NumPy's UFuncTypeError:
/// the float64 result cannot be cast back to int32 under the same_kind rule).
class type_error : public error {
 public:
  using error::error;
};

/// A value an operation cannot accept although its shape and dtype are right (NumPy's ValueError
/// for values: negative counts in bincount, bins that do not increase, an invalid choice index).
class value_error : public error {
 public:
  using error::error;
};

/// An operation that cannot be recorded into the CUDA graph being captured on its stream.
class capture_error : public error {
 public:
  using error::error;
};

/// A device that does not exist, is not usable, or cannot do what was asked.
class device_error : public error {
 public:
  using error::error;
};

namespace detail {

/// Where a check was written. Like std::source_location, but built on the __builtin_FILE family,
/// which every supported compiler (and clang-tidy 14 on libstdc++) understands.
struct source_location {
  const char* file = "";
  unsigned line = 0;
  const char* function = "";

  [[nodiscard]] static constexpr source_location current(const char* file = __builtin_FILE(),
                                                         unsigned line = __builtin_LINE(),
                                                         const char* function = __builtin_FUNCTION()) noexcept {
    return {file, line, function};
  }
  [[nodiscard]] constexpr const char* file_name() const noexcept { return file; }
  [[nodiscard]] constexpr unsigned line_number() const noexcept { return line; }
  [[nodiscard]] constexpr const char* function_name() const noexcept { return function; }
};

[[noreturn]] void throw_cuda_error(cudaError_t code, const char* call, const source_location& where,
                                   const char* hint = nullptr);

/// Throws cuda_error unless `code` is cudaSuccess. `call` is the stringified expression.
inline void check_cuda(cudaError_t code, const char* call, const source_location& where = source_location::current()) {
  if (code != cudaSuccess) [[unlikely]] {
    throw_cuda_error(code, call, where);
  }
}

/// "file.cpp:42 (function)" for messages.
[[nodiscard]] std::string format_location(const source_location& where);

}  // namespace detail
}  // namespace ndcuda

/// Checks a CUDA runtime call and throws ndcuda::cuda_error naming the call on failure.
#define NDCUDA_CUDA_CHECK(...) ::ndcuda::detail::check_cuda((__VA_ARGS__), #__VA_ARGS__)

#pragma GCC visibility pop
