// Info codes: eager read-back, or pinned slots checked after graph replays.
#include "linalg/info_check.hpp"

#include <cstring>
#include <mutex>
#include <ndcuda/core/error.hpp>
#include <ndcuda/device/detail/capture.hpp>
#include <ndcuda/device/device.hpp>
#include <ndcuda/linalg/linalg_error.hpp>
#include <ndcuda/memory/detail/buffer.hpp>
#include <vector>

namespace ndcuda::linalg {

namespace detail {
namespace {

struct captured_slot {
  int* codes;
  index_t count;
  std::string what;
  std::string failure;
};

std::mutex& slots_mutex() {
  static std::mutex m;
  return m;
}
std::vector<captured_slot>& slots() {
  static auto* v = new std::vector<captured_slot>();  // lives to the end of the process
  return *v;
}

[[noreturn]] void throw_failure(const std::string& what, const std::string& failure, index_t index, index_t count,
                                int code) {
  if (code < 0) {
    throw error("ndcuda internal error: " + what + " passed an invalid argument " + std::to_string(-code) +
                " to cuSOLVER");
  }
  std::string message = failure;
  if (count > 1) {
    message += " (" + what + ": matrix " + std::to_string(index) + " of the batch of " + std::to_string(count) + ")";
  }
  throw linalg_error(message);
}

}  // namespace

info_check::info_check(const stream& s, index_t count, std::string what, std::string failure)
    : s_(s), count_(count), what_(std::move(what)), failure_(std::move(failure)) {
  const std::size_t bytes = static_cast<std::size_t>(count > 0 ? count : 1) * sizeof(int);
  if (s_.is_capturing()) {
    // Pinned, mapped host memory: every replay writes the codes where the host can read them.
    device_guard guard(s_.device());
    ndcuda::detail::relaxed_capture_mode relaxed;
    void* p = nullptr;
    NDCUDA_CUDA_CHECK(cudaHostAlloc(&p, bytes, cudaHostAllocMapped | cudaHostAllocPortable));
    std::memset(p, 0, bytes);  // "no failure" until a replay writes the codes
    void* dp = nullptr;
    const cudaError_t e = cudaHostGetDevicePointer(&dp, p, 0);
    if (e != cudaSuccess) {
      (void)cudaFreeHost(p);
      NDCUDA_CUDA_CHECK(e);
    }
    codes_ = static_cast<int*>(dp);
    pinned_ = true;
  } else {
    void* p = nullptr;
    device_owner_ = ndcuda::detail::allocate_buffer(bytes, s_, &p);
    codes_ = static_cast<int*>(p);
    // "No failure" for matrices no routine visits (empty matrices, no right-hand sides). Under the
    // stream's device: the runtime would otherwise create device 0's context for the call.
    const device_guard guard(s_.device());
    NDCUDA_CUDA_CHECK(cudaMemsetAsync(codes_, 0, bytes, s_.handle()));
  }
}

info_check::~info_check() {
  if (pinned_ && !finished_) {
    (void)cudaFreeHost(codes_);  // mapped memory: the device pointer is the host pointer (UVA)
  }
}

void info_check::finish() {
  finished_ = true;
  if (count_ == 0) {
    if (pinned_) {
      (void)cudaFreeHost(codes_);
    }
    return;
  }
  if (pinned_) {
    std::lock_guard lock(slots_mutex());
    slots().push_back(captured_slot{codes_, count_, what_, failure_});
    return;
  }
  std::vector<int> host(static_cast<std::size_t>(count_));
  const device_guard guard(s_.device());
  NDCUDA_CUDA_CHECK(
      cudaMemcpyAsync(host.data(), codes_, host.size() * sizeof(int), cudaMemcpyDeviceToHost, s_.handle()));
  s_.synchronize();
  for (index_t i = 0; i < count_; ++i) {
    if (host[static_cast<std::size_t>(i)] != 0) {
      throw_failure(what_, failure_, i, count_, host[static_cast<std::size_t>(i)]);
    }
  }
}

std::shared_ptr<const void> scratch_info(const stream& s, int** code) {
  void* p = nullptr;
  auto owner = ndcuda::detail::allocate_buffer(sizeof(int), s, &p);
  *code = static_cast<int*>(p);
  return owner;
}

}  // namespace detail

void check_captured_info() {
  std::lock_guard lock(detail::slots_mutex());
  for (const auto& slot : detail::slots()) {
    for (index_t i = 0; i < slot.count; ++i) {
      // The host pointer of mapped memory equals its device pointer (unified addressing).
      const int code = static_cast<volatile int*>(slot.codes)[i];
      if (code != 0) {
        detail::throw_failure(slot.what + " (captured)", slot.failure, i, slot.count, code);
      }
    }
  }
}

void clear_captured_info() {
  std::lock_guard lock(detail::slots_mutex());
  for (const auto& slot : detail::slots()) {
    (void)cudaFreeHost(slot.codes);
  }
  detail::slots().clear();
}

}  // namespace ndcuda::linalg
