// Whether a change to kernels/ made NVRTC slower, without a GPU: compiles one generated source
// (dump one with NDCUDA_JIT_DUMP=<dir>) alternately against two kernels/ trees, in one process, and
// prints each tree's median. Whole-process benchmarks (jit_compile_bench) vary by ±10% between runs
// of the same code; alternating in one process does not. docs/performance.md (issue 35) used it.
//
//   g++ -O2 -std=c++20 tools/nvrtc-header-ab.cpp -I/usr/local/cuda/include -L/usr/local/cuda/lib64 -lnvrtc -o ab
//   git archive <old> kernels | tar x -C /tmp/old
//   ./ab <dumped>.cu /tmp/old/kernels kernels 15
#include <nvrtc.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::string read_file(const std::filesystem::path& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

// The headers as the library embeds them: "ndcuda/<file>.cuh".
struct header_set {
  std::vector<std::string> names;
  std::vector<std::string> texts;
};

header_set load_headers(const char* dir) {
  header_set set;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() == ".cuh") {
      set.names.push_back("ndcuda/" + entry.path().filename().string());
      set.texts.push_back(read_file(entry.path()));
    }
  }
  return set;
}

double compile_ms(const std::string& source, const header_set& headers) {
  std::vector<const char*> names;
  std::vector<const char*> texts;
  for (std::size_t i = 0; i < headers.names.size(); ++i) {
    names.push_back(headers.names[i].c_str());
    texts.push_back(headers.texts[i].c_str());
  }
  const auto start = std::chrono::steady_clock::now();
  nvrtcProgram program = nullptr;
  if (nvrtcCreateProgram(&program, source.c_str(), "kernel.cu", static_cast<int>(names.size()), texts.data(),
                         names.data()) != NVRTC_SUCCESS) {
    std::fprintf(stderr, "nvrtcCreateProgram failed\n");
    std::exit(1);
  }
  // The options the library passes (src/jit/kernel_key.cpp, nvrtc_compiler.cpp) for sm_90.
  const char* options[] = {"-std=c++17", "-default-device", "-lineinfo", "-arch=sm_90", "-minimal"};
  if (nvrtcCompileProgram(program, 5, options) != NVRTC_SUCCESS) {
    std::size_t size = 0;
    nvrtcGetProgramLogSize(program, &size);
    std::string log(size, '\0');
    nvrtcGetProgramLog(program, log.data());
    std::fprintf(stderr, "compile failed:\n%s\n", log.c_str());
    std::exit(1);
  }
  nvrtcDestroyProgram(&program);
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: %s <source.cu> <kernels-dir-A> <kernels-dir-B> <rounds>\n", argv[0]);
    return 2;
  }
  const std::string source = read_file(argv[1]);
  const header_set a = load_headers(argv[2]);
  const header_set b = load_headers(argv[3]);
  const int rounds = std::max(1, std::atoi(argv[4]));
  compile_ms(source, a);  // NVRTC's own first-use cost, in neither column
  std::vector<double> times_a;
  std::vector<double> times_b;
  for (int i = 0; i < rounds; ++i) {
    times_a.push_back(compile_ms(source, a));
    times_b.push_back(compile_ms(source, b));
  }
  const double ma = median(times_a);
  const double mb = median(times_b);
  std::printf("%s: A %.1f ms, B %.1f ms (%+.1f%%), medians of %d alternating compiles\n", argv[1], ma, mb,
              (mb - ma) / ma * 100, rounds);
  return 0;
}
