// The public face of the caches: status, clearing.
#include <ndcuda/jit/cache.hpp>

#include "jit/program_cache.hpp"

namespace ndcuda::jit {

cache_status status() {
  auto& programs = detail::global_program_cache();
  cache_status s;
  if (const auto disk = programs.disk()) {
    const auto& config = disk->config();
    s.disk_enabled = config.enabled;
    s.disk_writable = disk->writable();
    s.directory = config.directory.string();
    s.disabled_reason = config.disabled_reason;
    s.refused_reason = disk->refused_reason();
    s.max_bytes = config.max_bytes;
    const auto counters = disk->counters();
    s.disk_hits = counters.hits;
    s.disk_misses = counters.misses;
    s.disk_invalid = counters.invalid;
    s.disk_writes = counters.writes;
    s.disk_evictions = counters.evictions;
  }
  const auto counters = programs.counters();
  s.memory_entries = programs.size();
  s.memory_hits = counters.memory_hits;
  s.compiles = counters.compiles;
  s.compile_failures = counters.failures;
  return s;
}

void clear_memory_cache() {
  detail::global_program_cache().clear();
}

std::size_t clear_disk_cache() {
  const auto disk = detail::global_program_cache().disk();
  return disk != nullptr && disk->enabled() ? disk->clear() : 0;
}

}  // namespace ndcuda::jit
