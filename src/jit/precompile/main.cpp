// ndcuda-precompile: compiles the kernels a program recorded (NDCUDA_JIT_RECORD=<file>) for the
// given GPU architectures into a JIT disk cache folder, with no GPU. A deployment ships that folder
// (NDCUDA_CACHE_DIR) and its first calls load kernels instead of waiting for NVRTC (docs/jit.md).
//
//   ndcuda-precompile --record kernels.rec [--record more.rec] [--arch 90 --arch 100] [--cache DIR]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <ndcuda/core/error.hpp>
#include <set>
#include <string>
#include <vector>

#include "core/untrusted_files.hpp"
#include "jit/disk_cache.hpp"
#include "jit/kernel_record.hpp"
#include "jit/nvrtc_compiler.hpp"

namespace {

namespace jd = ndcuda::jit::detail;

constexpr std::uint64_t max_record_bytes = std::uint64_t{1} << 30;

struct options {
  std::vector<std::string> records;
  std::vector<int> archs;  // empty: each key's recorded target
  std::string cache;       // empty: the folder a program would use (NDCUDA_CACHE_DIR, XDG, HOME)
};

[[noreturn]] void usage(const std::string& problem) {
  std::fprintf(stderr,
               "ndcuda-precompile: %s\n"
               "usage: ndcuda-precompile --record FILE [--record FILE...] [--arch CC...] [--cache DIR]\n"
               "  --record FILE  keys written by a program run with NDCUDA_JIT_RECORD=FILE\n"
               "  --arch CC      a GPU's compute capability as digits (80, 90, 100); repeatable.\n"
               "                 Default: the architecture each kernel was recorded for\n"
               "  --cache DIR    the cache folder to fill (default: the one programs use, NDCUDA_CACHE_DIR)\n",
               problem.c_str());
  std::exit(2);
}

options parse(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      usage("fills a JIT disk cache ahead of time");
    }
    if (i + 1 >= argc) {
      usage("'" + arg + "' needs a value");
    }
    const std::string value = argv[++i];
    if (arg == "--record") {
      o.records.push_back(value);
    } else if (arg == "--arch") {
      char* end = nullptr;
      const long cc = std::strtol(value.c_str(), &end, 10);
      if (end == value.c_str() || *end != '\0' || cc < 10 || cc > 1000) {
        usage("--arch wants a compute capability as digits (e.g. 90 for sm_90), not '" + value + "'");
      }
      o.archs.push_back(static_cast<int>(cc));
    } else if (arg == "--cache") {
      o.cache = value;
    } else {
      usage("unknown option '" + arg + "'");
    }
  }
  if (o.records.empty()) {
    usage("give at least one --record FILE");
  }
  return o;
}

std::vector<jd::kernel_key> read_keys(const std::vector<std::string>& files) {
  std::vector<jd::kernel_key> keys;
  for (const auto& file : files) {
    ndcuda::detail::file_problem problem;
    const auto text = ndcuda::detail::read_regular_file(file, max_record_bytes, /*follow_links=*/true, problem);
    if (!text) {
      throw ndcuda::error("cannot read the record '" + file + "': " + problem.why);
    }
    for (auto& key : jd::decode_records(*text)) {
      keys.push_back(std::move(key));
    }
  }
  return keys;
}

}  // namespace

int main(int argc, char** argv) {
  const options o = parse(argc, argv);
  try {
    const auto start = std::chrono::steady_clock::now();
    jd::disk_cache_config config = jd::disk_cache_config_from_environment();
    if (!o.cache.empty()) {
      config.enabled = true;
      config.directory = o.cache;
    }
    if (!config.enabled) {
      throw ndcuda::error("the disk cache is disabled (" + config.disabled_reason + "); pass --cache DIR");
    }
    config.max_bytes = 0;  // a deployment's cache holds what was asked for, unbounded
    jd::disk_cache cache(config);

    const std::vector<jd::kernel_key> keys = read_keys(o.records);
    std::set<std::string> done;  // canonical keys already handled (two records may repeat one)
    int compiled = 0;
    int present = 0;
    int skipped = 0;
    for (const auto& recorded : keys) {
      if (const std::string why = jd::mismatch_with_this_process(recorded); !why.empty()) {
        std::fprintf(stderr, "ndcuda-precompile: skipping kernel %s: %s; no program of this ndcuda would use it\n",
                     recorded.name_expressions.front().c_str(), why.c_str());
        ++skipped;
        continue;
      }
      std::vector<jd::compile_target> targets;
      if (o.archs.empty()) {
        targets.push_back(recorded.target);
      }
      for (int cc : o.archs) {
        targets.push_back(jd::select_target(cc));
      }
      for (const auto& target : targets) {
        const jd::kernel_key key = jd::retarget(recorded, target);
        if (!done.insert(key.canonical()).second) {
          continue;
        }
        if (cache.load(key)) {
          ++present;
          continue;
        }
        cache.store(key, jd::nvrtc_compile(key));
        if (!cache.writable()) {
          throw ndcuda::error("cannot write the cache folder '" + config.directory.string() +
                              "' (see the warning above)");
        }
        ++compiled;
      }
    }
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    std::printf(
        "ndcuda-precompile: %zu recorded kernels: %d compiled, %d already cached, %d skipped, into %s (%.1f s)\n",
        keys.size(), compiled, present, skipped, config.directory.c_str(), took.count());
    return skipped == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ndcuda-precompile: %s\n", e.what());
    return 1;
  }
}
