// Several GPUs as one array: create sharded, compute elementwise on every GPU at once, reduce
// with NCCL, gather. Needs NCCL (ndcuda::dist); runs on one GPU too (one shard), exits 2 without.
#include <cmath>
#include <cstdio>
#include <ndcuda/dist.hpp>
#include <ndcuda/ndcuda.hpp>

namespace nd = ndcuda;
namespace dist = ndcuda::dist;

int main() {
  if (nd::device_count() == 0) {
    std::puts("multi_gpu: no CUDA device visible; nothing to show");
    return 2;
  }
  try {
    // One rank per visible GPU, driven by this one process (ncclCommInitAll).
    const auto comm = dist::communicator::local();
    std::printf("%d GPU(s)\n", comm.size());

    // 10 million floats, each GPU creating only its own block (sizes need not divide evenly).
    const auto x = dist::arange<float>(10'000'001.0, comm);
    const auto y = dist::full<float>({10'000'001}, 0.5F, comm);

    // One fused kernel per GPU, all running in parallel on their own streams. Element i is
    // (i + 1) / 2: every value is exact in float32 (multiples of 0.5 below 2^23).
    const dist::distributed_array<float> z = 0.5F * x + y;
    for (int l = 0; l < comm.local_size(); ++l) {
      const auto r = z.range(comm.rank(l));
      std::printf("  rank %d on GPU %d holds [%lld, %lld)\n", comm.rank(l), comm.device(l),
                  static_cast<long long>(r.begin), static_cast<long long>(r.end));
    }

    // Each GPU sums its block in float64 (a float32 total near 2.5e13 would be rounded to a
    // multiple of 2^21); NCCL all-reduce combines the partial sums. The terms are multiples of 0.5
    // and every partial sum stays far below 2^52, so float64 adds them exactly in any order: any
    // difference beyond the tolerance is a real error.
    const double total = dist::sum(z.astype<double>()).local_shard(0).item();
    const double expected = 10'000'001.0 * 10'000'002.0 / 4.0;  // sum of (i + 1) / 2, i < 10'000'001
    const double tolerance = 1e-12 * expected;
    const double difference = std::fabs(total - expected);
    const bool ok = difference <= tolerance;
    std::printf("sum = %.1f (float64), expected %.1f, |difference| %.3g, tolerance %.3g: %s\n", total, expected,
                difference, tolerance, ok ? "OK" : "MISMATCH");
    if (!ok) {
      return 1;
    }

    // Everything on one GPU, as an ordinary ndarray.
    const nd::ndarray<float> all = z.gather(0);
    std::printf("gathered %lld elements on GPU 0; last = %.1f\n", static_cast<long long>(all.size()),
                static_cast<double>(all(nd::slice(-1, nd::none)).to_host()[0]));
  } catch (const nd::error& e) {
    std::printf("multi_gpu: %s\n", e.what());
    return 1;
  }
  return 0;
}
