// Chooses cuBLASLt algorithms (see lt_algo_choice.hpp): a per-process table of timed choices.
// Builds on events for timing and the pool for the trials' workspace.
#include "linalg/lt_algo_choice.hpp"

#include <algorithm>
#include <atomic>
#include <limits>
#include <map>
#include <mutex>
#include <ndcuda/device/event.hpp>
#include <ndcuda/linalg/linalg_error.hpp>
#include <ndcuda/memory/detail/buffer.hpp>
#include <optional>

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
// Candidates are timed in rounds, each round timing every candidate once, so that the GPU's clock
// drift (a long GEMM throttles the H100 within a second) weighs on all alike; each keeps its best.
constexpr int trial_rounds = 3;
// Another candidate replaces the heuristic's first only when it is this much faster: timing noise
// alone must not change the algorithm (and with it the rounding) from run to run.
constexpr float required_gain = 0.98F;

std::mutex choices_mutex;
std::map<lt_problem, lt_algo> choices;

// Milliseconds of one run of `algo` on s; nullopt when cuBLASLt refuses it.
std::optional<float> time_algo(const lt_algo& algo, void* ws, const stream& s, const lt_runner& run) {
  event start(s.device(), true);
  event stop(s.device(), true);
  start.record(s);
  if (!run(algo, ws)) {
    return std::nullopt;
  }
  stop.record(s);
  stop.synchronize();
  return elapsed_ms(start, stop);
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
  std::vector<float> best_ms(candidates.size(), std::numeric_limits<float>::infinity());
  std::vector<bool> usable(candidates.size());
  for (std::size_t c = 0; c < candidates.size(); ++c) {
    usable[c] = run(candidates[c], ws);  // a warm-up run; refused candidates drop out
  }
  for (int round = 0; round < trial_rounds; ++round) {
    for (std::size_t c = 0; c < candidates.size(); ++c) {
      if (usable[c]) {
        const std::optional<float> ms = time_algo(candidates[c], ws, s, run);
        usable[c] = ms.has_value();
        best_ms[c] = ms ? std::min(best_ms[c], *ms) : best_ms[c];
      }
    }
  }
  std::size_t best = 0;
  for (std::size_t c = 1; c < candidates.size(); ++c) {
    if (usable[c] && best_ms[c] < best_ms[best] && (best != 0 || best_ms[c] < required_gain * best_ms[0])) {
      best = c;
    }
  }
  const std::lock_guard lock(choices_mutex);
  return choices.try_emplace(problem, candidates[best]).first->second;
}

}  // namespace detail
}  // namespace ndcuda::linalg
