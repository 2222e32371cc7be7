// Whole programs written as a NumPy user writes them, timed end to end on the GPU (warm kernels),
// beside their CuPy twins in benchmarks/cupy/programs_cupy.py (issue 39's "programs" table).
//
// k-means: 2^20 x 16 float32 points, K = 16, 20 Lloyd iterations. Each iteration: squared
// distances ((x[:, None, :] - c[None]) ** 2).sum(-1), argmin, bincount and np.add.at for the
// new centres. The D2D copy of the points is the memory-bound scale of one pass over them.
#include <benchmark/benchmark.h>

#include <ndcuda/ndcuda.hpp>
#include <random>
#include <vector>

#include "support/gpu_timing.hpp"

namespace nd = ndcuda;
using nd::bench::BM_memcpy_d2d;
using nd::bench::have_gpu;
using nd::bench::keep;
using nd::bench::timed;

namespace {

constexpr nd::index_t kmeans_points = 1 << 20;
constexpr nd::index_t kmeans_dims = 16;
constexpr nd::index_t kmeans_k = 16;
constexpr int kmeans_iterations = 20;
constexpr nd::index_t kmeans_values = kmeans_points * kmeans_dims;

// Points around K well-separated centres, so that the clusters are non-trivial.
nd::ndarray<float> kmeans_data() {
  std::vector<float> host(static_cast<std::size_t>(kmeans_values));
  std::mt19937 g(12345);
  std::normal_distribution<float> noise(0.0f, 1.0f);
  std::uniform_int_distribution<int> cluster(0, static_cast<int>(kmeans_k) - 1);
  for (nd::index_t p = 0; p < kmeans_points; ++p) {
    const int c = cluster(g);
    for (nd::index_t j = 0; j < kmeans_dims; ++j) {
      host[static_cast<std::size_t>(p * kmeans_dims + j)] = static_cast<float>(4 * ((c + j) % 5)) + noise(g);
    }
  }
  return nd::asarray<float>(host, {kmeans_points, kmeans_dims});
}

void BM_program_kmeans(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const auto x = kmeans_data();
  timed(state, x.stream(), [&] {
    nd::ndarray<float> c = x(nd::slice(0, kmeans_k)).copy();
    for (int it = 0; it < kmeans_iterations; ++it) {
      const auto diff = x(nd::all, nd::newaxis, nd::all) - c(nd::newaxis, nd::all, nd::all);
      const nd::ndarray<float> d2 = nd::sum(diff * diff, 2);
      const nd::ndarray<std::int64_t> labels = nd::argmin(d2, 1);
      const nd::ndarray<float> counts = nd::bincount(labels, nd::size(kmeans_k)).astype<float>();
      const auto sums = nd::zeros<float>({kmeans_k, kmeans_dims});
      nd::add_at(sums, labels, x);
      c = sums / nd::maximum(counts.reshape({kmeans_k, 1}), 1.0f);
    }
    keep(c);
  });
  state.SetItemsProcessed(state.iterations() * kmeans_iterations * kmeans_points);
  state.SetLabel("20 iterations per item of time");
}

}  // namespace

BENCHMARK(BM_memcpy_d2d)->Arg(kmeans_values)->UseManualTime();
BENCHMARK(BM_program_kmeans)->UseManualTime()->Unit(benchmark::kMillisecond);
