// Numbers for kernel sources no cache can have seen: the cold first-call benchmarks spell one into
// each source they compile. Builds on POSIX getpid and std::chrono.
#pragma once

#include <unistd.h>

#include <chrono>

namespace ndcuda::bench {

/// A new number on every call, starting from the process id and the clock, so that a source
/// holding it was never compiled before: not in this process, and not by an earlier run on the
/// same machine (a cross-process cache, or a device that an earlier benchmark call left warm).
inline long long cold_source_number() {
  static long long next = (static_cast<long long>(::getpid()) << 20) ^
                          (std::chrono::steady_clock::now().time_since_epoch().count() & 0xfffff);
  return ++next;
}

}  // namespace ndcuda::bench
