// One NVRTC compile, and what surrounds it: architecture choice, the error message a user can act
// on, and the NDCUDA_JIT_DUMP copies of what was compiled.
#include "jit/nvrtc_compiler.hpp"

#include <nvrtc.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <ndcuda/core/error.hpp>
#include <set>

#include "core/untrusted_files.hpp"
#include "jit/embedded_headers.hpp"
#include "jit/toolkit_headers.hpp"
#include "jit/warnings.hpp"

namespace ndcuda::jit::detail {
namespace {

std::atomic<std::uint64_t> compile_count{0};

void check_nvrtc(nvrtcResult rc, const char* call) {
  if (rc != NVRTC_SUCCESS) {
    throw error(std::string("NVRTC call ") + call + " failed: " + nvrtcGetErrorString(rc) +
                ". This is not a problem in the kernel source; check that the NVRTC library matches the toolkit "
                "ndcuda was built with");
  }
}
#define NDCUDA_NVRTC_CHECK(...) check_nvrtc((__VA_ARGS__), #__VA_ARGS__)

// Destroys the program on every path out of nvrtc_compile.
struct program_guard {
  nvrtcProgram program = nullptr;
  program_guard() = default;
  program_guard(const program_guard&) = delete;
  program_guard& operator=(const program_guard&) = delete;
  ~program_guard() {
    if (program != nullptr) {
      (void)nvrtcDestroyProgram(&program);
    }
  }
};

std::string program_log(nvrtcProgram program) {
  std::size_t size = 0;
  NDCUDA_NVRTC_CHECK(nvrtcGetProgramLogSize(program, &size));
  std::string log(size, '\0');
  if (size > 0) {
    NDCUDA_NVRTC_CHECK(nvrtcGetProgramLog(program, log.data()));
  }
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) {
    log.pop_back();
  }
  return log;
}

std::string joined_options(const std::vector<std::string>& options) {
  std::string text;
  for (const auto& o : options) {
    text += text.empty() ? "" : " ";
    text += o;
  }
  return text;
}

std::string indented(std::string_view text) {
  std::string out = "  ";
  for (char c : text) {
    out += c;
    if (c == '\n') {
      out += "  ";
    }
  }
  return out;
}

// Writes the embedded headers once per folder, so a dumped source compiles on its own with
// `nvcc -I<dir>` or NVRTC for a bug report.
void dump_headers(const std::filesystem::path& dir) {
  static std::mutex mutex;
  static std::set<std::string> done;
  std::lock_guard lock(mutex);
  if (!done.insert(dir.string()).second) {
    return;
  }
  for (const embedded_header& header : embedded_headers()) {
    const auto path = dir / std::string(header.name);
    std::error_code ec;
    std::filesystem::create_directories(path.parent_path(), ec);
    ndcuda::detail::file_problem problem;
    (void)ndcuda::detail::replace_file(path, header.content, 0666, problem);  // a bug-report aid: best effort
  }
}

void dump(const kernel_key& key, std::string_view log, bool failed) {
  const char* dir_text = std::getenv("NDCUDA_JIT_DUMP");
  if (dir_text == nullptr || *dir_text == '\0') {
    return;
  }
  const std::filesystem::path dir(dir_text);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  std::string stem = std::filesystem::path(key.program_name).stem().string();
  stem += "-" + key.target.name() + "-" + to_hex(digest(key)).substr(0, 12);
  // Each file through a temporary renamed into place: a link or FIFO someone planted at a dump
  // name is replaced, never followed or opened (docs/security.md).
  const std::string info = "kernel: " + key.program_name + "\nstatus: " + (failed ? "failed" : "compiled") +
                           "\nnvrtc: " + std::to_string(key.nvrtc_major) + "." + std::to_string(key.nvrtc_minor) +
                           "\nndcuda: " + key.ndcuda_version + "\noptions: " + joined_options(key.options) +
                           "\nlog:\n" + std::string(log) + "\n";
  ndcuda::detail::file_problem problem;
  if (!ndcuda::detail::replace_file(dir / (stem + ".cu"), key.source, 0666, problem) ||
      !ndcuda::detail::replace_file(dir / (stem + ".log"), info, 0666, problem)) {
    warn_once("jit-dump", "NDCUDA_JIT_DUMP: could not write kernel sources to " + dir.string() + " (" + problem.why +
                              "); check that the folder exists and is writable");
    return;
  }
  dump_headers(dir);
}

}  // namespace

std::pair<int, int> nvrtc_version() {
  static const std::pair<int, int> version = [] {
    int major = 0;
    int minor = 0;
    NDCUDA_NVRTC_CHECK(nvrtcVersion(&major, &minor));
    return std::pair{major, minor};
  }();
  return version;
}

const std::string& nvrtc_build() {
  static const std::string build = [] {
    const std::filesystem::path library = nvrtc_library_path();
    std::error_code ec;
    const auto size = library.empty() ? 0 : std::filesystem::file_size(library, ec);
    // The size, not the path or time: the same build installed elsewhere shares cache entries.
    return library.empty() || ec ? std::string("unknown") : library.filename().string() + "/" + std::to_string(size);
  }();
  return build;
}

const std::vector<int>& nvrtc_supported_archs() {
  static const std::vector<int> archs = [] {
    int count = 0;
    NDCUDA_NVRTC_CHECK(nvrtcGetNumSupportedArchs(&count));
    std::vector<int> list(static_cast<std::size_t>(count));
    if (count > 0) {
      NDCUDA_NVRTC_CHECK(nvrtcGetSupportedArchs(list.data()));
    }
    std::sort(list.begin(), list.end());
    return list;
  }();
  return archs;
}

compile_target select_target(int device_arch, std::span<const int> supported) {
  if (supported.empty()) {
    throw device_error("NVRTC reports no supported GPU architecture; the NVRTC installation is broken");
  }
  if (std::find(supported.begin(), supported.end(), device_arch) != supported.end()) {
    return {device_arch, false};
  }
  const int newest = *std::max_element(supported.begin(), supported.end());
  if (device_arch > newest) {
    return {newest, true};  // the driver compiles the PTX for the device at load time
  }
  const int oldest = *std::min_element(supported.begin(), supported.end());
  if (device_arch < oldest) {
    throw device_error("the device is sm_" + std::to_string(device_arch) + ", older than every architecture NVRTC " +
                       std::to_string(nvrtc_version().first) + "." + std::to_string(nvrtc_version().second) +
                       " supports (sm_" + std::to_string(oldest) + " to sm_" + std::to_string(newest) +
                       "); use a CUDA toolkit that still supports it");
  }
  // A CUBIN runs on devices of the same major version and an equal or newer minor one.
  int best = 0;
  for (int arch : supported) {
    if (arch / 10 == device_arch / 10 && arch <= device_arch) {
      best = std::max(best, arch);
    }
  }
  if (best != 0) {
    return {best, false};
  }
  int below = 0;
  for (int arch : supported) {
    if (arch < device_arch) {
      below = std::max(below, arch);
    }
  }
  return {below, true};
}

compile_target select_target(int device_arch) {
  return select_target(device_arch, nvrtc_supported_archs());
}

std::string number_lines(std::string_view source) {
  std::size_t lines = static_cast<std::size_t>(std::count(source.begin(), source.end(), '\n')) + 1;
  const std::size_t width = std::to_string(lines).size();
  std::string out;
  out.reserve(source.size() + lines * (width + 4));
  std::size_t number = 1;
  std::size_t pos = 0;
  while (pos <= source.size()) {
    std::size_t end = source.find('\n', pos);
    if (end == std::string_view::npos) {
      end = source.size();
    }
    std::string label = std::to_string(number++);
    out.append(width - label.size(), ' ');
    out += label;
    out += " | ";
    out += source.substr(pos, end - pos);
    out += '\n';
    if (end == source.size()) {
      break;
    }
    pos = end + 1;
  }
  return out;
}

compiled_program nvrtc_compile(const kernel_key& key) {
  const auto& headers = embedded_headers();
  std::vector<const char*> header_sources;
  std::vector<const char*> header_names;
  std::vector<std::string> header_storage;  // NVRTC wants NUL-terminated text
  header_storage.reserve(headers.size() * 2);
  for (const embedded_header& h : headers) {
    header_storage.emplace_back(h.content);
    header_sources.push_back(header_storage.back().c_str());
    header_storage.emplace_back(h.name);
    header_names.push_back(header_storage.back().c_str());
  }

  program_guard guard;
  NDCUDA_NVRTC_CHECK(nvrtcCreateProgram(&guard.program, key.source.c_str(), key.program_name.c_str(),
                                        static_cast<int>(header_sources.size()), header_sources.data(),
                                        header_names.data()));
  for (const auto& expression : key.name_expressions) {
    NDCUDA_NVRTC_CHECK(nvrtcAddNameExpression(guard.program, expression.c_str()));
  }
  std::vector<const char*> options;
  options.reserve(key.options.size());
  for (const auto& o : key.options) {
    options.push_back(o.c_str());
  }

  compile_count.fetch_add(1, std::memory_order_relaxed);
  const nvrtcResult rc = nvrtcCompileProgram(guard.program, static_cast<int>(options.size()), options.data());
  compiled_program result;
  result.log = program_log(guard.program);
  dump(key, result.log, rc != NVRTC_SUCCESS);
  if (rc != NVRTC_SUCCESS) {
    std::string message = "NVRTC failed to compile kernel '" + key.program_name + "' for " + key.target.name() +
                          " (NVRTC " + std::to_string(key.nvrtc_major) + "." + std::to_string(key.nvrtc_minor) + ": " +
                          nvrtcGetErrorString(rc) + ")\noptions: " + joined_options(key.options) + "\nlog:\n" +
                          indented(result.log.empty() ? "(empty)" : result.log) + "\nsource:\n" +
                          number_lines(key.source) +
                          "Fix the kernel source above; NDCUDA_JIT_DUMP=<folder> saves every generated source "
                          "and the embedded headers it includes";
    throw compile_error(message, key.source, result.log);
  }

  std::size_t size = 0;
  if (key.target.ptx) {
    NDCUDA_NVRTC_CHECK(nvrtcGetPTXSize(guard.program, &size));
    result.image.resize(size);
    NDCUDA_NVRTC_CHECK(nvrtcGetPTX(guard.program, result.image.data()));
  } else {
    NDCUDA_NVRTC_CHECK(nvrtcGetCUBINSize(guard.program, &size));
    result.image.resize(size);
    NDCUDA_NVRTC_CHECK(nvrtcGetCUBIN(guard.program, result.image.data()));
  }
  for (const auto& expression : key.name_expressions) {
    const char* lowered = nullptr;
    NDCUDA_NVRTC_CHECK(nvrtcGetLoweredName(guard.program, expression.c_str(), &lowered));
    result.lowered_names.emplace_back(lowered);
  }
  return result;
}

const std::vector<std::string>& generated_kernel_options() {
  static const std::vector<std::string> options = [] {
    const auto [major, minor] = nvrtc_version();
    // --fmad=false: a * b + c rounds twice, as NumPy computes it and as the tier-0 interpreter
    // (built with the same options) does, so a first call and later ones give the same bits.
    std::vector<std::string> out{"--fmad=false"};
    if (major > 12 || (major == 12 && minor >= 4)) {
      out.emplace_back("-minimal");
    }
    return out;
  }();
  return options;
}

std::uint64_t nvrtc_compile_count() noexcept {
  return compile_count.load(std::memory_order_relaxed);
}

}  // namespace ndcuda::jit::detail
