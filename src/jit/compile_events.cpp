// The compile listener, NDCUDA_JIT_LOG's printer, and the timing around each program lookup.
#include "jit/compile_events.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <ndcuda/jit/cache.hpp>
#include <string>
#include <utility>

#include "jit/kernel_record.hpp"

namespace ndcuda::jit {
namespace detail {
namespace {

const char* origin_name(compile_event::origin from) {
  switch (from) {
    case compile_event::origin::memory:
      return "memory";
    case compile_event::origin::disk:
      return "disk cache";
    case compile_event::origin::compiled:
      return "compiled";
  }
  return "?";
}

// One line per event on stderr, written with one call so that lines from threads do not mix.
void print_event(const compile_event& e) {
  std::string line = "ndcuda jit: " + e.kernel + " for " + e.target + ": " + origin_name(e.from) + ", ";
  char ms[32];
  std::snprintf(ms, sizeof ms, "%.2f ms", e.milliseconds);
  line += ms;
  line += ", " + std::to_string(e.source_lines) + " source lines";
  if (e.background) {
    line += ", in the background (tier 0 ran the first calls)";
  }
  if (!e.description.empty()) {
    constexpr std::size_t shown = 160;
    std::string body = e.description.substr(0, shown) + (e.description.size() > shown ? "..." : "");
    std::replace(body.begin(), body.end(), '\n', ' ');  // a body of several statements, on one line
    line += ": " + body;
  }
  line += '\n';
  std::fputs(line.c_str(), stderr);
}

bool log_requested() {
  const char* value = std::getenv("NDCUDA_JIT_LOG");
  return value != nullptr && *value != '\0' && std::string_view(value) != "0";
}

struct listener_slot {
  std::mutex mutex;
  compile_listener listener;
};

listener_slot& slot() {
  static listener_slot* s = [] {
    auto* made = new listener_slot;  // leaked: kernels may be resolved from static destructors
    if (log_requested()) {
      made->listener = print_event;
    }
    return made;
  }();
  return *s;
}

compile_event::origin to_event_origin(program_origin o) {
  switch (o) {
    case program_origin::disk:
      return compile_event::origin::disk;
    case program_origin::compiled:
      return compile_event::origin::compiled;
    case program_origin::memory:
      break;
  }
  return compile_event::origin::memory;
}

}  // namespace

std::shared_ptr<const program> observed_get(program_cache& cache, const kernel_key& key, std::string_view kernel,
                                            std::string_view description, bool background) {
  const auto start = std::chrono::steady_clock::now();
  program_origin origin = program_origin::memory;
  std::shared_ptr<const program> found = cache.get(key, &origin);
  const std::chrono::duration<double, std::milli> took = std::chrono::steady_clock::now() - start;
  if (origin != program_origin::memory && !background) {
    // A memory hit was recorded when this process first made it; a background compile when it
    // was queued (kernel_state::ready_without_waiting), in case the process ends first.
    record_key(key);
  }
  listener_slot& s = slot();
  compile_listener listener;
  {
    std::lock_guard lock(s.mutex);
    if (!s.listener) {
      return found;
    }
    listener = s.listener;
  }
  compile_event e;
  e.kernel = std::string(kernel);
  e.description = std::string(description);
  e.target = key.target.name();
  e.from = to_event_origin(origin);
  e.milliseconds = took.count();
  e.source_lines = static_cast<std::size_t>(std::count(key.source.begin(), key.source.end(), '\n')) + 1;
  e.background = background;
  try {
    listener(e);
  } catch (...) {  // NOLINT(bugprone-empty-catch): a listener's failure must not fail the launch
  }
  return found;
}

}  // namespace detail

compile_listener set_compile_listener(compile_listener listener) {
  detail::listener_slot& s = detail::slot();
  std::lock_guard lock(s.mutex);
  compile_listener previous = std::move(s.listener);
  s.listener = listener ? std::move(listener) : (detail::log_requested() ? detail::print_event : compile_listener{});
  return previous;
}

}  // namespace ndcuda::jit
