/// @file
/// Controls and statistics of the JIT caches (in memory and on disk), and where JIT warnings go.
/// Builds on nothing else in ndcuda; docs/jit.md describes the cache's layout and variables.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

namespace ndcuda::jit {

/// How the JIT made one kernel ready, as a compile listener receives it: once per kernel and
/// device at its first use there (and per compile() call). NDCUDA_JIT_LOG=1 prints each to stderr.
struct compile_event {
  /// Where the kernel came from.
  enum class origin {
    memory,    ///< this process had it already (another kernel object, another device)
    disk,      ///< the disk cache (or a cache filled by ndcuda-precompile)
    compiled,  ///< NVRTC compiled it now
  };
  std::string kernel;       ///< the kernel's name: "nd_sum__...", "saxpy", an elementwise_kernel's name and variant
  std::string description;  ///< what it computes when known: an elementwise body ("out = nd_add(x0, x1)")
  std::string target;       ///< what it was built for: "sm_90", or "compute_120" (PTX)
  origin from = origin::memory;  ///< where it came from
  double milliseconds = 0;       ///< the time to obtain it: a lookup, a disk load, or the compile
  std::size_t source_lines = 0;  ///< lines of the generated or given CUDA source
  /// Compiled on a background thread while the expression's first calls ran on tier 0, the
  /// ahead-of-time interpreter (docs/jit.md, "Tiered first calls"); false: the caller waited.
  bool background = false;
};

/// Receives every compile_event. Called on the thread that needed the kernel, maybe on several
/// threads at once; it must not throw (an exception is dropped).
using compile_listener = std::function<void(const compile_event&)>;
/// Installs `listener` (an empty one: none, or NDCUDA_JIT_LOG's printer when that is set) and
/// returns the previous one.
compile_listener set_compile_listener(compile_listener listener);

/// What the JIT caches hold and did: configuration and counters (jit::status()).
struct cache_status {
  /// Disk cache, as configured from NDCUDA_CACHE, NDCUDA_CACHE_DIR, XDG_CACHE_HOME, HOME and
  /// NDCUDA_CACHE_MAX_SIZE when the first kernel was compiled or looked up.
  bool disk_enabled = false;
  bool disk_writable = false;   ///< false after a write failed or the folder was refused (memory-only)
  std::string directory;        ///< the disk cache folder
  std::string disabled_reason;  ///< why disk_enabled is false
  /// Non-empty when the folder was refused as unsafe (another user owns it, or group or others
  /// may write it): the reason. Nothing is then read from it or written to it (docs/jit.md).
  std::string refused_reason;
  std::uint64_t max_bytes = 0;  ///< 0: no bound
  /// Counters since the process started.
  std::uint64_t memory_entries = 0;
  std::uint64_t memory_hits = 0;       ///< lookups answered from memory
  std::uint64_t disk_hits = 0;         ///< lookups answered from the disk cache
  std::uint64_t disk_misses = 0;       ///< lookups the disk cache could not answer
  std::uint64_t disk_invalid = 0;      ///< entries that failed validation and were recompiled
  std::uint64_t disk_writes = 0;       ///< entries written to the disk cache
  std::uint64_t disk_evictions = 0;    ///< entries deleted to stay under max_bytes
  std::uint64_t compiles = 0;          ///< NVRTC compiles, failed ones included
  std::uint64_t compile_failures = 0;  ///< compiles NVRTC rejected
};

/// The JIT caches' configuration and counters, now.
[[nodiscard]] cache_status status();

/// Blocks until every kernel compiling in the background is ready. With tiers on (the default;
/// NDCUDA_JIT_TIERED=0 turns them off) a new fused expression's first calls run on tier 0, an
/// interpreter compiled ahead of time, while its own kernel compiles on a background thread;
/// benchmarks and warm starts call this so that later calls run the compiled kernel. Returns at
/// once when nothing is compiling.
void wait_all();

/// Forgets every compiled kernel held in memory. Kernel objects that already ran keep theirs;
/// new ones (and new variants) look in the disk cache again.
void clear_memory_cache();

/// Deletes every entry of the disk cache folder (and leftover temp files) that ndcuda wrote:
/// files named as ndcuda names them, regular files owned by this user; anything else in the
/// folder stays. Returns how many went. Deleting the folder is always safe too, while programs run.
std::size_t clear_disk_cache();

/// Receives each JIT warning (an invalid cache entry, an unwritable cache folder, ...). The
/// default prints "ndcuda: warning: ..." to stderr. Returns the previous handler; an empty one
/// restores the default.
using warning_handler = std::function<void(const std::string& message)>;
/// Installs `handler` for JIT warnings and returns the previous one.
warning_handler set_warning_handler(warning_handler handler);

}  // namespace ndcuda::jit

#pragma GCC visibility pop
