// The warning sink: a replaceable handler so programs can route JIT warnings into their own logs,
// and tests can count them.
#include "jit/warnings.hpp"

#include <cstdio>
#include <mutex>
#include <ndcuda/jit/cache.hpp>
#include <set>

namespace ndcuda::jit {
namespace {

struct sink {
  std::mutex mutex;
  warning_handler handler;
  std::set<std::string, std::less<>> reported;
};

sink& the_sink() {
  static auto* s = new sink();  // leaked: warnings may be issued from static destructors
  return *s;
}

}  // namespace

warning_handler set_warning_handler(warning_handler handler) {
  auto& s = the_sink();
  std::lock_guard lock(s.mutex);
  std::swap(s.handler, handler);
  return handler;
}

namespace detail {

void warn(const std::string& message) {
  warning_handler handler;
  {
    auto& s = the_sink();
    std::lock_guard lock(s.mutex);
    handler = s.handler;  // called unlocked, so a handler may itself use ndcuda
  }
  if (handler) {
    handler(message);
  } else {
    std::fprintf(stderr, "ndcuda: warning: %s\n", message.c_str());
  }
}

void warn_once(std::string_view category, const std::string& message) {
  {
    auto& s = the_sink();
    std::lock_guard lock(s.mutex);
    if (!s.reported.emplace(category).second) {
      return;
    }
  }
  warn(message);
}

}  // namespace detail
}  // namespace ndcuda::jit
