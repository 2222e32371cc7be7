// The program side of the precompile round trip (round_trip.cmake). "record" builds a few kernels
// (with NDCUDA_JIT_RECORD set by the script); "check" builds the same ones again from the cache
// ndcuda-precompile filled, and fails if any was compiled. Without a GPU the kernels are compiled
// for sm_80 and sm_90 by name (compile(cc)); with one, a fused expression and a reduction also run.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ndcuda/ndcuda.hpp>
#include <string>

namespace nd = ndcuda;

namespace {

void build_kernels() {
  const nd::raw_kernel scale(
      "extern \"C\" __global__ void probe_scale(float* x, float a, int n) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (i < n) x[i] *= a;\n"
      "}\n",
      "probe_scale");
  const nd::elementwise_kernel<float(float, float)> fma("out = x * y + 1.5f", "probe_fma");
  for (const nd::compute_capability cc : {nd::compute_capability{8, 0}, nd::compute_capability{9, 0}}) {
    scale.compile(cc);
    fma.compile(cc);
  }
}

// On a GPU, the library's own kernels too: a fused expression and a fused reduction.
bool run_generated_kernels() {
  if (nd::device_count() == 0) {
    return false;
  }
  nd::device_guard guard{0};
  const auto a = nd::linspace<float>(0.0F, 1.0F, 4096);
  const auto b = nd::linspace<float>(1.0F, 2.0F, 4096);
  const nd::ndarray<float> c = a * b + 2.0F;
  const double total = nd::sum(a * a + b).item();
  // Against the host: sum(a^2 + b) over the same linspace values, in double.
  double expected = 0.0;
  for (int i = 0; i < 4096; ++i) {
    const double x = static_cast<double>(static_cast<float>(i / 4095.0));
    const double y = static_cast<double>(static_cast<float>(1.0 + i / 4095.0));
    expected += x * x + y;
  }
  if (std::abs(total - expected) > 1e-3 * expected || c.to_host()[4095] != 4.0F) {
    std::fprintf(stderr, "probe: wrong results: sum %.6f, expected %.6f\n", total, expected);
    std::exit(1);
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2 || (std::strcmp(argv[1], "record") != 0 && std::strcmp(argv[1], "check") != 0)) {
    std::fprintf(stderr, "usage: precompile_probe record|check\n");
    return 2;
  }
  const bool check = std::strcmp(argv[1], "check") == 0;
  build_kernels();
  const bool gpu = run_generated_kernels();
  const nd::jit::cache_status s = nd::jit::status();
  std::printf("probe %s: gpu %d, compiles %llu, disk hits %llu\n", argv[1], gpu ? 1 : 0,
              static_cast<unsigned long long>(s.compiles), static_cast<unsigned long long>(s.disk_hits));
  if (check && s.compiles != 0) {
    std::fprintf(stderr, "probe: %llu kernels were compiled although ndcuda-precompile filled the cache\n",
                 static_cast<unsigned long long>(s.compiles));
    return 1;
  }
  if (check && s.disk_hits < 4) {
    std::fprintf(stderr, "probe: only %llu kernels came from the disk cache; expected at least 4\n",
                 static_cast<unsigned long long>(s.disk_hits));
    return 1;
  }
  return 0;
}
