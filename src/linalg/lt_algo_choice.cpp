// Chooses cuBLASLt algorithms (see lt_algo_choice.hpp): a per-process table of timed choices.
// Builds on events for timing and the pool for the trials' workspace.
#include "linalg/lt_algo_choice.hpp"

#include <algorithm>
#include <atomic>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <ndcuda/device/event.hpp>
#include <ndcuda/linalg/linalg_error.hpp>
#include <ndcuda/memory/detail/buffer.hpp>

namespace ndcuda::linalg {

namespace {
std::atomic<bool> autotune_enabled{true};
}  // namespace

void set_gemm_autotune(bool enable) noexcept {
  autotune_enabled.store(enable, std::memory_order_relaxed);
}
bool gemm_autotune() noexcept {
  return autotune_enabled.load(std::memory_order_relaxed);
}

namespace detail {

namespace {

// Below this many multiply-adds a product takes well under a millisecond, and a few percent of it
// do not repay the trials.
constexpr double autotune_min_work = 8589934592.0;  // 2^33
constexpr int trial_runs = 2;

std::mutex choices_mutex;
std::map<lt_problem, lt_algo> choices;

// Mean milliseconds of one run of `algo` after a warm-up run; nullopt when cuBLASLt refuses it.
std::optional<float> time_algo(const lt_algo& algo, void* ws, const stream& s, const lt_runner& run) {
  if (!run(algo, ws)) {
    return std::nullopt;
  }
  event start(s.device(), true);
  event stop(s.device(), true);
  start.record(s);
  for (int r = 0; r < trial_runs; ++r) {
    if (!run(algo, ws)) {
      return std::nullopt;
    }
  }
  stop.record(s);
  stop.synchronize();
  return elapsed_ms(start, stop) / trial_runs;
}

}  // namespace

std::uint32_t pointer_alignment(const void* p) noexcept {
  const auto address = reinterpret_cast<std::uintptr_t>(p);
  std::uint32_t alignment = 256;
  while (alignment > 1 && address % alignment != 0) {
    alignment /= 2;
  }
  return alignment;
}

lt_algo choose_lt_algo(const lt_problem& problem, const std::vector<lt_algo>& candidates, const stream& s,
                       const lt_runner& run) {
  {
    const std::lock_guard lock(choices_mutex);
    if (const auto it = choices.find(problem); it != choices.end()) {
      return it->second;
    }
  }
  const double work = static_cast<double>(problem.m) * static_cast<double>(problem.n) * static_cast<double>(problem.k);
  if (candidates.size() < 2 || work < autotune_min_work || !gemm_autotune() || s.is_capturing()) {
    return candidates.front();
  }
  std::size_t workspace = 1;
  for (const lt_algo& c : candidates) {
    workspace = std::max(workspace, c.workspace);
  }
  void* ws = nullptr;
  const auto ws_owner = ndcuda::detail::allocate_buffer(workspace, s, &ws);
  lt_algo best = candidates.front();
  float best_ms = std::numeric_limits<float>::infinity();
  for (const lt_algo& c : candidates) {
    if (const std::optional<float> ms = time_algo(c, ws, s, run); ms && *ms < best_ms) {
      best_ms = *ms;
      best = c;
    }
  }
  const std::lock_guard lock(choices_mutex);
  return choices.try_emplace(problem, best).first->second;
}

}  // namespace detail
}  // namespace ndcuda::linalg
