// The disk cache: configuration, load, store, eviction and clearing. POSIX calls (through
// disk_cache_files.hpp) rather than iostreams: the error codes decide
// between "this entry is bad" (a miss) and "this folder cannot be written" (memory-only).
#include "jit/disk_cache.hpp"

#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <vector>

#include "core/untrusted_files.hpp"
#include "jit/cache_entry.hpp"
#include "jit/disk_cache_files.hpp"
#include "jit/warnings.hpp"

namespace ndcuda::jit::detail {
namespace {

namespace fs = std::filesystem;

// Temp files of writers that died are removed by the next eviction scan after this long.
constexpr auto stale_temp_age = std::chrono::hours(1);

std::string env(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? std::string() : std::string(value);
}

bool is_off(std::string value) {
  std::transform(value.begin(), value.end(), value.begin(), [](unsigned char c) { return std::tolower(c); });
  return value == "0" || value == "off" || value == "false" || value == "no";
}

}  // namespace

std::optional<std::uint64_t> parse_size(std::string_view text) {
  if (text.empty()) {
    return std::nullopt;
  }
  std::uint64_t multiplier = 1;
  switch (std::toupper(static_cast<unsigned char>(text.back()))) {
    case 'K':
      multiplier = std::uint64_t{1} << 10;
      break;
    case 'M':
      multiplier = std::uint64_t{1} << 20;
      break;
    case 'G':
      multiplier = std::uint64_t{1} << 30;
      break;
    case 'T':
      multiplier = std::uint64_t{1} << 40;
      break;
    default:
      break;
  }
  if (multiplier != 1) {
    text.remove_suffix(1);
  }
  if (text.empty() || text.size() > 18) {
    return std::nullopt;
  }
  std::uint64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') {
      return std::nullopt;
    }
    value = value * 10 + static_cast<std::uint64_t>(c - '0');
  }
  if (value > UINT64_MAX / multiplier) {
    return std::nullopt;
  }
  return value * multiplier;
}

disk_cache_config disk_cache_config_from_environment() {
  disk_cache_config config;
  if (const std::string on = env("NDCUDA_CACHE"); !on.empty() && is_off(on)) {
    config.enabled = false;
    config.disabled_reason = "NDCUDA_CACHE=" + on;
    return config;
  }
  if (std::string dir = env("NDCUDA_CACHE_DIR"); !dir.empty()) {
    config.directory = dir;
  } else if (std::string xdg = env("XDG_CACHE_HOME"); !xdg.empty() && xdg.front() == '/') {
    config.directory = fs::path(xdg) / "ndcuda";  // XDG: a relative value is to be ignored
  } else if (std::string home = env("HOME"); !home.empty()) {
    config.directory = fs::path(home) / ".cache" / "ndcuda";
  } else if (const passwd* user = ::getpwuid(::getuid()); user != nullptr && user->pw_dir != nullptr) {
    config.directory = fs::path(user->pw_dir) / ".cache" / "ndcuda";
  } else {
    config.enabled = false;
    config.disabled_reason = "no cache folder: NDCUDA_CACHE_DIR, XDG_CACHE_HOME and HOME are unset";
    return config;
  }
  if (std::string size = env("NDCUDA_CACHE_MAX_SIZE"); !size.empty()) {
    if (auto bytes = parse_size(size)) {
      config.max_bytes = *bytes;
    } else {
      warn_once("cache-max-size", "NDCUDA_CACHE_MAX_SIZE='" + ndcuda::detail::quote_input(size) +
                                      "' is not a size (use e.g. 512M, 2G, or a byte count; 0 for no bound); "
                                      "keeping the default of 1G");
    }
  }
  return config;
}

disk_cache::disk_cache(disk_cache_config config) : config_(std::move(config)) {}

bool disk_cache::is_entry_name(std::string_view name) noexcept {
  constexpr std::size_t digits = 64;
  const std::string_view extension(entry_extension);
  return name.size() == digits + extension.size() && name.ends_with(extension) &&
         std::all_of(name.begin(), name.begin() + digits, is_hex_digit);
}

bool disk_cache::is_temp_name(std::string_view name) noexcept {
  if (!name.starts_with(temp_marker) || name.size() == temp_marker.size()) {
    return false;
  }
  name.remove_prefix(temp_marker.size());
  return std::all_of(name.begin(), name.end(), [](char c) { return is_hex_digit(c) || c == '-'; });
}

bool disk_cache::folder_trusted() {
  const int state = trust_.load();
  if (state != trust_unknown) {
    return state == trust_granted;
  }
  struct stat info {};
  if (::stat(config_.directory.c_str(), &info) != 0 || !S_ISDIR(info.st_mode)) {
    return false;  // nothing to read yet; store() creates the folder (or reports why it cannot)
  }
  std::string problem = folder_problem(info);
  if (problem.empty()) {
    trust_.store(trust_granted);
    return true;
  }
  {
    std::lock_guard lock(mutex_);
    if (trust_.load() == trust_refused) {
      return false;
    }
    refused_reason_ = problem;
    trust_.store(trust_refused);
  }
  const std::string dir = ndcuda::detail::quote_input(config_.directory.string());
  warn("not using the JIT cache folder " + dir + ": " + problem +
       ", so another user could plant a compiled kernel in it that this process would run. Compiled kernels are "
       "kept in memory only for the rest of this process. Make the folder yours and private (chown $(id -u) '" +
       dir + "' && chmod 700 '" + dir +
       "'), or set NDCUDA_CACHE_DIR to a folder of your own that only you can write; NDCUDA_CACHE=0 turns the "
       "disk cache off");
  return false;
}

std::string disk_cache::refused_reason() const {
  std::lock_guard lock(mutex_);
  return refused_reason_;
}

fs::path disk_cache::entry_path(const kernel_key& key) const {
  return config_.directory / (to_hex(digest(key)) + entry_extension);
}

disk_cache_counters disk_cache::counters() const {
  std::lock_guard lock(mutex_);
  return counters_;
}

void disk_cache::report_invalid(const fs::path& path, const std::string& why) {
  {
    std::lock_guard lock(mutex_);
    ++counters_.invalid;
  }
  if (invalid_reported_.exchange(true)) {
    return;
  }
  warn("ignoring the invalid JIT cache entry " + path.string() + " (" + why +
       "); the kernel is recompiled and the entry rewritten. Further invalid entries in " + config_.directory.string() +
       " are not reported");
}

void disk_cache::report_unwritable(const std::string& what, int error_number) {
  if (write_failed_.exchange(true)) {
    return;
  }
  warn("cannot write the JIT cache folder " + ndcuda::detail::quote_input(config_.directory.string()) + " (" + what +
       ": " + std::strerror(error_number) +
       "); compiled kernels are kept in memory only for the rest of this process. Set NDCUDA_CACHE_DIR to a "
       "writable folder with free space, or NDCUDA_CACHE=0 to turn the disk cache off");
}

std::optional<compiled_program> disk_cache::load(const kernel_key& key) {
  if (!config_.enabled) {
    return std::nullopt;
  }
  const auto miss = [&] {
    std::lock_guard lock(mutex_);
    ++counters_.misses;
    return std::nullopt;
  };
  if (!folder_trusted()) {
    return miss();
  }
  const fs::path path = entry_path(key);
  // The library's one reader of untrusted paths (src/core/untrusted_files.hpp): no link followed
  // (an entry is never a link to somewhere else), no FIFO waited on, nothing past the largest entry.
  ndcuda::detail::file_problem problem;
  const std::optional<ndcuda::detail::regular_file> file =
      ndcuda::detail::open_regular_file(path, max_entry_bytes, false, problem);
  if (!file) {
    if (problem.error != ENOENT && problem.error != ENOTDIR) {
      report_invalid(path, problem.why);
    }
    return miss();
  }
  struct stat info {};
  if (::fstat(file->fd.get(), &info) != 0 || info.st_uid != ::geteuid()) {
    report_invalid(path, "it belongs to user id " + std::to_string(info.st_uid) + ", not to this process's user");
    return miss();
  }
  const std::optional<std::string> read = ndcuda::detail::read_whole(*file, problem);
  if (!read) {
    report_invalid(path, problem.why);
    return miss();
  }
  const std::string& bytes = *read;
  std::string why;
  auto program = decode_entry(bytes, key, why);
  if (!program) {
    report_invalid(path, why);
    return miss();
  }
  // Touch it: eviction removes the least recently *used* entries. Failing (a read-only shared
  // cache) only weakens the eviction order.
  (void)::futimens(file->fd.get(), nullptr);
  std::lock_guard lock(mutex_);
  ++counters_.hits;
  return program;
}

void disk_cache::store(const kernel_key& key, const compiled_program& program) {
  if (!writable()) {
    return;
  }
  if (const int rc = create_private_folders(config_.directory); rc != 0) {
    report_unwritable("creating it failed", rc);
    return;
  }
  if (!folder_trusted()) {
    return;  // refused with a warning: writing there would hand our kernels to whoever else can
  }
  const std::string bytes = encode_entry(key, program);
  if (bytes.size() > max_entry_bytes) {
    warn_once("jit-cache-entry-too-large", "a compiled kernel of " + std::to_string(bytes.size()) +
                                               " bytes is not written to the JIT disk cache (entries are limited to " +
                                               std::to_string(max_entry_bytes >> 20) + " MiB); it is kept in memory");
    return;
  }
  const fs::path final_path = entry_path(key);
  static std::atomic<std::uint64_t> sequence{0};
  const fs::path temp_path =
      config_.directory / (std::string(temp_marker) + final_path.stem().string().substr(0, 16) + "-" +
                           std::to_string(::getpid()) + "-" + std::to_string(sequence.fetch_add(1)));
  fd_guard file(::open(temp_path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (file.fd < 0) {
    report_unwritable("creating a file in it failed", errno);
    return;
  }
  (void)::fchmod(file.fd, 0600);  // the open's mode went through the umask
  if (const int rc = write_all(file.fd, bytes); rc != 0) {
    ::unlink(temp_path.c_str());
    report_unwritable("writing an entry failed", rc);
    return;
  }
  if (::close(file.release()) != 0) {
    const int rc = errno;
    ::unlink(temp_path.c_str());
    report_unwritable("writing an entry failed", rc);
    return;
  }
  if (::rename(temp_path.c_str(), final_path.c_str()) != 0) {
    const int rc = errno;
    bool replaced = false;
    if (rc == EISDIR || rc == ENOTEMPTY || rc == EEXIST) {
      // A folder sits where the entry goes: remove it if it is empty, then try once more.
      std::error_code ec;
      fs::remove(final_path, ec);
      replaced = !ec && ::rename(temp_path.c_str(), final_path.c_str()) == 0;
    }
    if (!replaced) {
      ::unlink(temp_path.c_str());
      if (rc == EISDIR || rc == ENOTEMPTY || rc == EEXIST) {
        report_invalid(final_path, "a non-empty folder is in its place and cannot be replaced");
      } else {
        report_unwritable("renaming an entry into place failed", rc);
      }
      return;
    }
  }
  {
    std::lock_guard lock(mutex_);
    ++counters_.writes;
  }
  account_and_evict(bytes.size());
}

void disk_cache::account_and_evict(std::uint64_t new_bytes) {
  if (config_.max_bytes == 0) {
    return;
  }
  std::lock_guard lock(mutex_);
  if (tracked_bytes_) {
    *tracked_bytes_ += new_bytes;
    if (*tracked_bytes_ <= config_.max_bytes) {
      return;
    }
  }
  evict_locked();  // the first store of a process scans once to learn the folder's size
}

void disk_cache::evict_locked() {
  struct file_info {
    fs::path path;
    struct timespec used;
    std::uint64_t size;
  };
  std::vector<file_info> entries;
  std::uint64_t total = 0;
  std::error_code ec;
  const auto stale_before = static_cast<time_t>(::time(nullptr) - std::chrono::seconds(stale_temp_age).count());
  for (fs::directory_iterator it(config_.directory, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path& p = it->path();
    // Only files ndcuda names, regular (not links) and this user's: a shared folder may hold
    // anything else, a user's own ".notes.tmp" included.
    if (const owned_file temp = inspect(p, is_temp_name); temp.ours) {
      if (temp.modified.tv_sec < stale_before) {
        (void)::unlink(p.c_str());
      }
      continue;
    }
    const owned_file entry = inspect(p, is_entry_name);
    if (!entry.ours) {
      continue;
    }
    entries.push_back({p, entry.modified, entry.size});
    total += entry.size;
  }
  tracked_bytes_ = total;
  if (total <= config_.max_bytes) {
    return;
  }
  // Down to 90% of the bound, so the next few stores do not each trigger a scan.
  const std::uint64_t target = config_.max_bytes - config_.max_bytes / 10;
  std::sort(entries.begin(), entries.end(),
            [](const file_info& a, const file_info& b) { return older(a.used, b.used); });
  for (const file_info& e : entries) {
    if (total <= target) {
      break;
    }
    if (::unlink(e.path.c_str()) == 0 || errno == ENOENT) {
      total -= e.size;  // removed here, or already removed by another process
      ++counters_.evictions;
    }
  }
  tracked_bytes_ = total;
}

std::size_t disk_cache::clear() {
  std::size_t removed = 0;
  std::error_code ec;
  for (fs::directory_iterator it(config_.directory, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path& p = it->path();
    if ((inspect(p, is_entry_name).ours || inspect(p, is_temp_name).ours) && ::unlink(p.c_str()) == 0) {
      ++removed;
    }
  }
  std::lock_guard lock(mutex_);
  tracked_bytes_.reset();
  return removed;
}

}  // namespace ndcuda::jit::detail
