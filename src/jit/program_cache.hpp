// Internal: compiled programs and the process-wide, in-memory cache of them. One compile per key
// however many threads ask at once (single flight); different keys compile in parallel; the
// cache lock is never held while compiling or touching the disk.
#pragma once

#include <cstdint>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "jit/disk_cache.hpp"
#include "jit/kernel_key.hpp"
#include "jit/nvrtc_compiler.hpp"

namespace ndcuda::jit::detail {

struct loaded_kernel;
struct device_module;

/// A compiled image and its modules, loaded per device on first use there.
class program {
 public:
  program(kernel_key key, compiled_program compiled, bool from_disk);
  ~program();
  program(const program&) = delete;
  program& operator=(const program&) = delete;

  [[nodiscard]] const kernel_key& key() const noexcept { return key_; }
  [[nodiscard]] const compiled_program& compiled() const noexcept { return compiled_; }
  [[nodiscard]] bool from_disk() const noexcept { return from_disk_; }

  /// Kernel `index` (of key().name_expressions) on `device`, its module loaded into that
  /// device's primary context on first use (defined in module.cpp). Throws image_rejected when
  /// the driver refuses the image itself (wrong architecture, corrupt).
  [[nodiscard]] const loaded_kernel& kernel(int device, std::size_t index) const;

 private:
  // Throws image_rejected for errors about the image itself, cuda_error for any other.
  void check_load(int result, const char* call, int device) const;

  kernel_key key_;
  compiled_program compiled_;
  bool from_disk_;
  mutable std::mutex mutex_;
  mutable std::map<int, std::unique_ptr<device_module>> modules_;
};

/// Where program_cache::get found a program.
enum class program_origin { memory, disk, compiled };

struct program_cache_counters {
  std::uint64_t memory_hits = 0;  ///< served from memory (or joined a compile in flight)
  std::uint64_t disk_hits = 0;
  std::uint64_t compiles = 0;  ///< compiles this cache started, failed ones included
  std::uint64_t failures = 0;
};

class program_cache {
 public:
  using compiler = std::function<compiled_program(const kernel_key&)>;
  using hasher = std::uint64_t (*)(std::string_view canonical_key);

  /// `disk` may be null (memory only). `hash` only spreads keys over buckets: keys are compared
  /// in full, so even a constant hash returns the right program (the tests do exactly that).
  program_cache(compiler compile, std::shared_ptr<disk_cache> disk, hasher hash = nullptr);

  /// The program for `key`: from memory, else from disk, else compiled (and written to disk);
  /// `origin`, when given, says which. A failed compile throws compile_error to every caller
  /// waiting on it and is not cached.
  [[nodiscard]] std::shared_ptr<const program> get(const kernel_key& key, program_origin* origin = nullptr);

  /// Replaces `stale` (a program from disk the driver refused) by a fresh compile that also
  /// overwrites the disk entry. Returns the program now cached for the key.
  [[nodiscard]] std::shared_ptr<const program> replace_stale(const kernel_key& key, const program* stale);

  /// Whether get(key) would answer now without compiling: the program is ready in memory, or an
  /// entry for it is in the (trusted) disk cache. False while its compile is in flight.
  [[nodiscard]] bool available(const kernel_key& key);

  /// Forgets every program. Kernels already resolved keep theirs alive.
  void clear();

  [[nodiscard]] program_cache_counters counters() const;
  [[nodiscard]] std::size_t size() const;
  [[nodiscard]] std::shared_ptr<disk_cache> disk() const;
  /// Swaps the disk cache (null: memory only) for later lookups; benchmarks measure cold
  /// compiles this way without touching the environment.
  void set_disk(std::shared_ptr<disk_cache> disk);

 private:
  using result = std::shared_future<std::shared_ptr<const program>>;
  struct slot {
    result future;
    std::uint64_t id;
  };
  struct bucket_hash {
    hasher fn;
    std::size_t operator()(const std::string& canonical) const { return static_cast<std::size_t>(fn(canonical)); }
  };

  std::shared_ptr<const program> obtain(const kernel_key& key, const program* stale, program_origin* origin);
  std::shared_ptr<const program> produce(const kernel_key& key, bool use_disk, program_origin& origin);

  compiler compile_;
  mutable std::mutex mutex_;
  std::shared_ptr<disk_cache> disk_;  // guarded by mutex_
  std::unordered_map<std::string, slot, bucket_hash> programs_;
  std::uint64_t next_id_ = 0;
  program_cache_counters counters_;
};

/// The cache every kernel of the process uses: NVRTC, and the disk cache configured from the
/// environment when it is first used.
[[nodiscard]] program_cache& global_program_cache();

}  // namespace ndcuda::jit::detail
