// Builds the messages of cuda_error: code, symbolic name, the call and where it was made.
#include <ndcuda/core/error.hpp>
#include <string>

namespace ndcuda {

cuda_error::cuda_error(int code, std::string name, std::string call, std::string where, const std::string& message)
    : error(message), code_(code), name_(std::move(name)), call_(std::move(call)), where_(std::move(where)) {}

namespace detail {

std::string format_location(const source_location& where) {
  std::string file = where.file_name();
  // Keep messages short and stable across build trees: drop everything before the project folders.
  for (const char* marker : {"/include/ndcuda/", "/src/", "/tests/", "/examples/", "/benchmarks/"}) {
    if (auto pos = file.rfind(marker); pos != std::string::npos) {
      file = file.substr(pos + 1);
      break;
    }
  }
  return file + ":" + std::to_string(where.line_number()) + " (" + where.function_name() + ")";
}

void throw_cuda_error(cudaError_t code, const char* call, const source_location& where, const char* hint) {
  // Clear the sticky "last error" so a caught exception does not poison the next launch check.
  (void)cudaGetLastError();
  std::string name = cudaGetErrorName(code);
  std::string location = format_location(where);
  std::string message = "CUDA call " + std::string(call) + " failed with " + name + " (" +
                        std::to_string(static_cast<int>(code)) + "): " + cudaGetErrorString(code) + " at " + location;
  if (hint != nullptr) {
    message += ". ";
    message += hint;
  }
  throw cuda_error(static_cast<int>(code), std::move(name), call, std::move(location), message);
}

}  // namespace detail
}  // namespace ndcuda
