// Recording kernel keys (NDCUDA_JIT_RECORD), and what precompile needs to know of this process.
// The record's format is in kernel_record_format.cpp.
#include "jit/kernel_record.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <ndcuda/version.hpp>

#include "core/untrusted_files.hpp"
#include "jit/embedded_headers.hpp"
#include "jit/nvrtc_compiler.hpp"
#include "jit/warnings.hpp"

namespace ndcuda::jit::detail {
namespace {

struct recorder {
  std::mutex mutex;
  std::string path;
  ndcuda::detail::file_descriptor fd;
  bool failed = false;
};

recorder& the_recorder() {
  static recorder* r = [] {
    auto* made = new recorder;  // leaked: kernels may be resolved from static destructors
    if (const char* path = std::getenv("NDCUDA_JIT_RECORD"); path != nullptr && *path != '\0') {
      made->path = path;
    }
    return made;
  }();
  return *r;
}

void give_up(recorder& r, const std::string& why, int error_number) {
  r.failed = true;
  warn_once("jit-record", "NDCUDA_JIT_RECORD='" + ndcuda::detail::quote_input(r.path) + "': " + why +
                              (error_number != 0 ? std::string(" (") + std::strerror(error_number) + ")" : "") +
                              "; kernels are no longer recorded. Name a regular file you may write");
}

// Opens the record for appending through the untrusted-files helper (never through a link, never
// a FIFO or device) and writes its header when it is new.
bool open_record(recorder& r) {
  ndcuda::detail::file_problem problem;
  auto file = ndcuda::detail::open_append_file(r.path, 0644, problem);
  if (!file) {
    give_up(r, problem.why, 0);
    return false;
  }
  r.fd = std::move(file->fd);
  return file->size != 0 ||
         ::write(r.fd.get(), record_header.data(), record_header.size()) == static_cast<ssize_t>(record_header.size());
}

}  // namespace

void record_key(const kernel_key& key) {
  recorder& r = the_recorder();
  if (r.path.empty()) {
    return;
  }
  const std::string bytes = encode_record(key);
  std::lock_guard lock(r.mutex);
  if (r.failed || (r.fd.get() < 0 && !open_record(r))) {
    if (!r.failed) {
      give_up(r, "writing its header failed", errno);
    }
    return;
  }
  // One write per key: O_APPEND keeps whole keys together when processes share the file.
  const ssize_t wrote = ::write(r.fd.get(), bytes.data(), bytes.size());
  if (wrote != static_cast<ssize_t>(bytes.size())) {
    give_up(r, "writing a key failed", wrote < 0 ? errno : 0);
  }
}

kernel_key retarget(const kernel_key& key, compile_target target) {
  kernel_key out = key;
  const std::string old_option = key.target.option();
  for (auto& option : out.options) {
    if (option == old_option) {
      option = target.option();
    }
  }
  out.target = target;
  return out;
}

std::string mismatch_with_this_process(const kernel_key& key) {
  const auto [major, minor] = nvrtc_version();
  if (key.nvrtc_major != major || key.nvrtc_minor != minor || key.nvrtc_build != nvrtc_build()) {
    return "it was recorded with NVRTC " + std::to_string(key.nvrtc_major) + "." + std::to_string(key.nvrtc_minor) +
           " (" + key.nvrtc_build + "), and this process runs NVRTC " + std::to_string(major) + "." +
           std::to_string(minor) + " (" + nvrtc_build() + ")";
  }
  if (key.ndcuda_version != NDCUDA_VERSION_STRING) {
    return "it was recorded by ndcuda " + key.ndcuda_version + ", and this is ndcuda " + NDCUDA_VERSION_STRING;
  }
  if (key.headers_checksum != embedded_headers_checksum()) {
    return "it was recorded by a build of ndcuda with other kernel headers (checksum " + key.headers_checksum + ")";
  }
  return {};
}

}  // namespace ndcuda::jit::detail
