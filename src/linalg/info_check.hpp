// LAPACK info codes of the solvers: read back eagerly (one wait) or, while the stream captures,
// written to pinned host memory on every replay and checked by linalg::check_captured_info().
#pragma once

#include <memory>
#include <ndcuda/core/shape.hpp>
#include <ndcuda/device/stream.hpp>
#include <string>

namespace ndcuda::linalg::detail {

class info_check {
 public:
  /// `count` int32 codes for `what` ("solve"); a positive code raises linalg_error(`failure`).
  info_check(const stream& s, index_t count, std::string what, std::string failure);
  info_check(const info_check&) = delete;
  info_check& operator=(const info_check&) = delete;
  ~info_check();

  /// The code of matrix i, on the device.
  [[nodiscard]] int* at(index_t i) const noexcept { return codes_ + i; }
  /// Eager: waits and throws on a failure. Capturing: registers the slot for check_captured_info().
  void finish();

 private:
  stream s_;
  index_t count_;
  std::string what_;
  std::string failure_;
  int* codes_ = nullptr;
  std::shared_ptr<const void> device_owner_;
  bool pinned_ = false;
  bool finished_ = false;
};

/// A scratch info code for calls whose only failures are invalid arguments (checked by status).
[[nodiscard]] std::shared_ptr<const void> scratch_info(const stream& s, int** code);

}  // namespace ndcuda::linalg::detail
