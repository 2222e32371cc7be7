// The disk cache's file handling. POSIX calls rather than iostreams: the error codes decide
// between "this entry is bad" (a miss) and "this folder cannot be written" (memory-only).
#include "jit/disk_cache.hpp"

#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "jit/cache_entry.hpp"
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

// Closes a descriptor on every path out.
struct fd_guard {
  int fd = -1;
  explicit fd_guard(int f) : fd(f) {}
  fd_guard(const fd_guard&) = delete;
  fd_guard& operator=(const fd_guard&) = delete;
  ~fd_guard() {
    if (fd >= 0) {
      ::close(fd);
    }
  }
  int release() {
    int f = fd;
    fd = -1;
    return f;
  }
};

bool read_all(int fd, std::string& out, std::size_t expected) {
  out.resize(expected);
  std::size_t done = 0;
  while (true) {
    if (done == out.size()) {
      out.resize(out.size() + 4096);  // the file grew: keep reading
    }
    const ssize_t n = ::read(fd, out.data() + done, out.size() - done);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0) {
      return false;
    }
    if (n == 0) {
      break;
    }
    done += static_cast<std::size_t>(n);
  }
  out.resize(done);
  return true;
}

int write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0) {
      return errno;
    }
    if (n == 0) {
      return EIO;
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return 0;
}

bool is_entry(const fs::path& p) {
  return p.extension() == disk_cache::entry_extension;
}

bool is_temp(const fs::path& p) {
  const std::string name = p.filename().string();
  return name.size() > 5 && name.front() == '.' && name.ends_with(".tmp");
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
      warn_once("cache-max-size", "NDCUDA_CACHE_MAX_SIZE='" + size +
                                      "' is not a size (use e.g. 512M, 2G, or a byte count; 0 for no bound); "
                                      "keeping the default of 1G");
    }
  }
  return config;
}

disk_cache::disk_cache(disk_cache_config config) : config_(std::move(config)) {}

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
  warn("cannot write the JIT cache folder " + config_.directory.string() + " (" + what + ": " +
       std::strerror(error_number) +
       "); compiled kernels are kept in memory only for the rest of this process. Set NDCUDA_CACHE_DIR to a "
       "writable folder with free space, or NDCUDA_CACHE=0 to turn the disk cache off");
}

std::optional<compiled_program> disk_cache::load(const kernel_key& key) {
  if (!config_.enabled) {
    return std::nullopt;
  }
  const fs::path path = entry_path(key);
  const auto miss = [&] {
    std::lock_guard lock(mutex_);
    ++counters_.misses;
    return std::nullopt;
  };
  fd_guard file(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (file.fd < 0) {
    if (errno != ENOENT && errno != ENOTDIR) {
      report_invalid(path, std::string("cannot open: ") + std::strerror(errno));
    }
    return miss();
  }
  struct stat info {};
  if (::fstat(file.fd, &info) != 0) {
    report_invalid(path, std::string("cannot stat: ") + std::strerror(errno));
    return miss();
  }
  if (S_ISDIR(info.st_mode)) {
    report_invalid(path, "a folder is in its place");
    return miss();
  }
  if (!S_ISREG(info.st_mode)) {
    report_invalid(path, "not a regular file");
    return miss();
  }
  std::string bytes;
  if (!read_all(file.fd, bytes, static_cast<std::size_t>(info.st_size))) {
    report_invalid(path, std::string("cannot read: ") + std::strerror(errno));
    return miss();
  }
  std::string why;
  auto program = decode_entry(bytes, key, why);
  if (!program) {
    report_invalid(path, why);
    return miss();
  }
  // Touch it: eviction removes the least recently *used* entries. Failing (a read-only shared
  // cache) only weakens the eviction order.
  (void)::futimens(file.fd, nullptr);
  std::lock_guard lock(mutex_);
  ++counters_.hits;
  return program;
}

void disk_cache::store(const kernel_key& key, const compiled_program& program) {
  if (!writable()) {
    return;
  }
  std::error_code ec;
  fs::create_directories(config_.directory, ec);
  if (ec) {
    report_unwritable("creating it failed", ec.value());
    return;
  }
  const std::string bytes = encode_entry(key, program);
  const fs::path final_path = entry_path(key);
  static std::atomic<std::uint64_t> sequence{0};
  const fs::path temp_path =
      config_.directory / ("." + final_path.stem().string().substr(0, 16) + "." + std::to_string(::getpid()) + "." +
                           std::to_string(sequence.fetch_add(1)) + ".tmp");
  fd_guard file(::open(temp_path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
  if (file.fd < 0) {
    report_unwritable("creating a file in it failed", errno);
    return;
  }
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
    fs::file_time_type used;
    std::uint64_t size;
  };
  std::vector<file_info> entries;
  std::uint64_t total = 0;
  std::error_code ec;
  const auto now = fs::file_time_type::clock::now();
  for (fs::directory_iterator it(config_.directory, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code file_ec;
    if (!it->is_regular_file(file_ec)) {
      continue;
    }
    const fs::path& p = it->path();
    const auto used = it->last_write_time(file_ec);
    if (file_ec) {
      continue;
    }
    if (is_temp(p)) {
      if (now - used > stale_temp_age) {
        fs::remove(p, file_ec);
      }
      continue;
    }
    if (!is_entry(p)) {
      continue;
    }
    const auto size = it->file_size(file_ec);
    if (file_ec) {
      continue;
    }
    entries.push_back({p, used, size});
    total += size;
  }
  tracked_bytes_ = total;
  if (total <= config_.max_bytes) {
    return;
  }
  // Down to 90% of the bound, so the next few stores do not each trigger a scan.
  const std::uint64_t target = config_.max_bytes - config_.max_bytes / 10;
  std::sort(entries.begin(), entries.end(), [](const file_info& a, const file_info& b) { return a.used < b.used; });
  for (const file_info& e : entries) {
    if (total <= target) {
      break;
    }
    std::error_code file_ec;
    if (fs::remove(e.path, file_ec) || !file_ec) {
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
    std::error_code file_ec;
    if ((is_entry(p) || is_temp(p)) && it->is_regular_file(file_ec) && fs::remove(p, file_ec)) {
      ++removed;
    }
  }
  std::lock_guard lock(mutex_);
  tracked_bytes_.reset();
  return removed;
}

}  // namespace ndcuda::jit::detail
