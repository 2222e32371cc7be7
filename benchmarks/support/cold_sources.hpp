// Numbers for kernel sources no cache can have seen: the cold first-call benchmarks spell one into
// each source they compile. Builds on POSIX getpid and std::chrono.
#pragma once

#include <unistd.h>

#include <chrono>

namespace ndcuda::bench {

/// A new number on every call, starting from the process id and the clock, so that a source
/// holding it was never compiled before: not in this process, and not by an earlier run on the
/// same machine (NVRTC's own cross-process cache, docs/jit.md). Below 2^23, so that spelled as a
/// float constant ("123.0f") it stays exact: larger ones round, and two sources whose constants
/// round alike compile to the same code, which that cache then serves.
inline long long cold_source_number() {
  static long long next =
      ((static_cast<long long>(::getpid()) << 11) ^ std::chrono::steady_clock::now().time_since_epoch().count()) &
      0x3fffff;
  return ++next;
}

}  // namespace ndcuda::bench
