// Internal: the on-disk JIT cache: one validated entry per key in one private folder, written
// atomically (temp file + rename), bounded in size with least-recently-used eviction, and
// degrading to memory-only with one warning when the folder cannot be written or is not private.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "core/tool_export.hpp"
#include "jit/kernel_key.hpp"
#include "jit/nvrtc_compiler.hpp"

namespace ndcuda::jit::detail {

struct disk_cache_config {
  bool enabled = true;
  std::filesystem::path directory;
  std::uint64_t max_bytes = std::uint64_t{1} << 30;  ///< 0: no bound
  std::string disabled_reason;                       ///< why enabled is false
};

/// NDCUDA_CACHE=0 turns the cache off; the folder is NDCUDA_CACHE_DIR, else
/// $XDG_CACHE_HOME/ndcuda, else $HOME/.cache/ndcuda; NDCUDA_CACHE_MAX_SIZE bounds it ("512M",
/// "2G", a byte count; 0 for no bound; default 1G).
[[nodiscard]] NDCUDA_TOOL_API disk_cache_config disk_cache_config_from_environment();

/// Parses "123", "64K", "512M", "2G" (powers of 1024). nullopt for anything else.
[[nodiscard]] std::optional<std::uint64_t> parse_size(std::string_view text);

struct disk_cache_counters {
  std::uint64_t hits = 0;
  std::uint64_t misses = 0;
  std::uint64_t invalid = 0;  ///< entries that failed validation
  std::uint64_t writes = 0;
  std::uint64_t evictions = 0;
};

class NDCUDA_TOOL_API disk_cache {
 public:
  explicit disk_cache(disk_cache_config config);

  /// The entry for `key` if a valid one exists. An invalid one (truncated, zeroed, corrupt,
  /// empty, a folder, a FIFO, a symbolic link, another user's file, one over max_entry_bytes) is
  /// a miss, reported once per cache with a warning. Nothing is read from a folder that another
  /// user owns or that group or others may write (see folder_trusted).
  [[nodiscard]] std::optional<compiled_program> load(const kernel_key& key);

  /// Writes the entry through a temp file in the same folder and rename(), so readers (other
  /// processes included) see either no entry or a whole one. Never throws: a failure to write
  /// turns writing off for this process with one warning.
  void store(const kernel_key& key, const compiled_program& program);

  /// Removes every entry and leftover temp file that ndcuda wrote (named as ndcuda names them,
  /// a regular file, owned by this user); returns how many files went.
  std::size_t clear();

  /// True when the folder exists and may be trusted: a folder owned by the effective user that
  /// neither its group nor others may write. Anyone who can write it could plant a compiled kernel
  /// that this process would run (an entry's checksum cannot stop a writer, who recomputes it).
  /// The first time an existing folder fails the check, warns once (why, and what to do) and
  /// keeps the cache memory-only for the life of this object. A missing folder is not yet
  /// trusted; store() creates it private and asks again.
  [[nodiscard]] bool folder_trusted();

  /// The reason the folder was refused, or empty.
  [[nodiscard]] std::string refused_reason() const;

  [[nodiscard]] std::filesystem::path entry_path(const kernel_key& key) const;
  [[nodiscard]] const disk_cache_config& config() const noexcept { return config_; }
  [[nodiscard]] bool enabled() const noexcept { return config_.enabled; }
  [[nodiscard]] bool writable() const noexcept {
    return config_.enabled && !write_failed_.load() && trust_.load() != trust_refused;
  }
  [[nodiscard]] disk_cache_counters counters() const;

  static constexpr const char* entry_extension = ".ndjit";
  /// Every temp file starts with this; the sweep and clear() delete no other hidden file.
  static constexpr std::string_view temp_marker = ".ndcuda-tmp-";
  /// The largest entry read or written. A CUBIN of a JIT kernel is kilobytes to a few MB; the
  /// bound keeps a huge or sparse file at an entry's path from being read into memory.
  static constexpr std::uint64_t max_entry_bytes = std::uint64_t{256} << 20;

  /// "<64 lower-case hex digits>.ndjit": an entry's file name.
  [[nodiscard]] static bool is_entry_name(std::string_view name) noexcept;
  /// temp_marker followed by lower-case hex digits, decimal digits and '-': a temp file's name.
  [[nodiscard]] static bool is_temp_name(std::string_view name) noexcept;

 private:
  static constexpr int trust_unknown = 0;
  static constexpr int trust_granted = 1;
  static constexpr int trust_refused = 2;

  void report_invalid(const std::filesystem::path& path, const std::string& why);
  void report_unwritable(const std::string& what, int error_number);
  void account_and_evict(std::uint64_t new_bytes);
  void evict_locked();

  disk_cache_config config_;
  std::atomic<bool> write_failed_{false};
  std::atomic<bool> invalid_reported_{false};
  std::atomic<int> trust_{trust_unknown};
  std::string refused_reason_;  // set once, under mutex_, before trust_ becomes trust_refused
  mutable std::mutex mutex_;    // guards the counters and the size accounting
  disk_cache_counters counters_;
  std::optional<std::uint64_t> tracked_bytes_;  // known after the first scan of the folder
};

}  // namespace ndcuda::jit::detail
