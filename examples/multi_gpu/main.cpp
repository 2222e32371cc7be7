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

    // One fused kernel per GPU, all running in parallel on their own streams.
    const dist::distributed_array<float> z = 2.0F * x + y;
    for (int l = 0; l < comm.local_size(); ++l) {
      const auto r = z.range(comm.rank(l));
      std::printf("  rank %d on GPU %d holds [%lld, %lld)\n", comm.rank(l), comm.device(l),
                  static_cast<long long>(r.begin), static_cast<long long>(r.end));
    }

    // Each GPU sums its block; NCCL all-reduce combines the partial sums.
    const double total = dist::sum(z.astype<double>()).local_shard(0).item();
    const double expected = 10'000'001.0 * 10'000'000.0 + 0.5 * 10'000'001.0;  // sum of 2i + 0.5
    std::printf("sum = %.1f (expected %.1f)\n", total, expected);
    if (std::fabs(total - expected) > 1e-6 * expected) {  // float32 rounding of 2i + 0.5 stays far below
      std::printf("multi_gpu: the sum is wrong\n");
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
