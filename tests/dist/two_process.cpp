// Two processes, one GPU each, joined through a file-based NCCL id: each builds the same random
// data, computes with distributed arrays, and compares with the single-GPU ndarray on its own GPU.
// Run by ctest as dist/TwoProcessesMatchOneMultiGpu, and with NCCL's network transport (P2P and SHM
// off, as between nodes) as dist/TwoProcessesMatchOneNetworkTransportMultiGpu; prints NDCUDA_SKIP
// with fewer than 2 GPUs.
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <ndcuda/dist.hpp>
#include <ndcuda/ndcuda.hpp>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace nd = ndcuda;
namespace dist = ndcuda::dist;

namespace {

int failures = 0;

template <class T>
void expect_equal(const std::vector<T>& got, const std::vector<T>& want, const char* what, int rank) {
  if (got != want) {
    std::printf("rank %d: %s differs from the single-GPU result\n", rank, what);
    ++failures;
  }
}

/// For reductions: the partials are combined in another order than one GPU's kernel uses.
template <class T>
void expect_near(const std::vector<T>& got, const std::vector<T>& want, const char* what, int rank) {
  bool ok = got.size() == want.size();
  for (std::size_t i = 0; ok && i < got.size(); ++i) {
    const double g = static_cast<double>(got[i]);
    const double w = static_cast<double>(want[i]);
    ok = std::abs(g - w) <= 1e-5 * (1.0 + std::abs(w));
  }
  if (!ok) {
    std::printf("rank %d: %s differs from the single-GPU result beyond rounding\n", rank, what);
    ++failures;
  }
}

template <class T>
void expect_close(double got, double want, const char* what, int rank) {
  if (std::abs(got - want) > 1e-4 * (1.0 + std::abs(want))) {
    std::printf("rank %d: %s = %.9g, single GPU %.9g\n", rank, what, got, want);
    ++failures;
  }
}

int run_rank(int rank, const std::string& id_file, std::uint64_t seed) {
  const auto comm = dist::communicator::join_through_file(id_file, rank, 2, rank, {std::chrono::seconds(60)});
  std::mt19937_64 engine(seed);  // the same data in both processes
  std::uniform_real_distribution<double> u(-2.0, 2.0);
  const nd::shape_t shape{37, 23};  // uneven over 2 ranks along both axes
  std::vector<float> ha(37 * 23);
  std::vector<float> hb(ha.size());
  for (auto& x : ha) {
    x = static_cast<float>(u(engine));
  }
  for (auto& x : hb) {
    x = static_cast<float>(u(engine));
  }
  const nd::stream& s = comm.stream(0);
  const auto sa = nd::asarray<float>(ha, shape, s);
  const auto sb = nd::asarray<float>(hb, shape, s);
  const nd::ndarray<float> single = sa * sb + nd::exp(sa * 0.5F);
  const auto want = single.to_host();
  for (int axis = 0; axis < 2; ++axis) {
    const auto a = dist::distribute<float>(ha, shape, comm, axis);
    const auto b = dist::distribute(sb, comm, axis);  // every process passes the whole array
    if (a.local_shards().size() != 1 || a.local_shard(0).shape() != dist::shard_shape(shape, a.spec(), 2, rank)) {
      std::printf("rank %d: expected one shard of its own block\n", rank);
      ++failures;
    }
    const dist::distributed_array<float> c = a * b + nd::exp(a * 0.5F);
    expect_equal(c.to_host(), want, "elementwise", rank);
    expect_equal(c.reshard(1 - axis).to_host(), want, "reshard", rank);
    expect_equal(c.replicate().local_shard(0).to_host(), want, "replicate", rank);
    expect_close<float>(dist::sum(c).local_shard(0).item(), nd::sum(single).item(), "sum", rank);
    expect_close<float>(dist::max(c).local_shard(0).item(), nd::max(single).item(), "max", rank);
    expect_near(dist::sum(c, 0).to_host(), nd::sum(single, 0).to_host(), "sum(axis 0)", rank);
  }
  return failures == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string id_file = argc > 1 ? argv[1] : "/tmp/ndcuda_two_process_" + std::to_string(::getpid());
  std::remove(id_file.c_str());
  const std::uint64_t seed = std::random_device{}();
  std::printf("seed %llu, id file %s\n", static_cast<unsigned long long>(seed), id_file.c_str());
  std::fflush(stdout);
  // Fork before any CUDA or NVML call, so the child starts clean.
  const pid_t child = ::fork();
  if (child < 0) {
    std::perror("fork");
    return 1;
  }
  const int rank = child == 0 ? 1 : 0;
  if (nd::device_count() < 2) {
    if (rank == 0) {
      std::printf("NDCUDA_SKIP: needs 2 CUDA devices, %d visible\n", nd::device_count());
      ::waitpid(child, nullptr, 0);
    }
    return 0;
  }
  int status = 1;
  try {
    status = run_rank(rank, id_file, seed);
  } catch (const std::exception& e) {
    std::printf("rank %d: %s\n", rank, e.what());
    status = 1;
  }
  if (rank == 1) {
    std::fflush(stdout);
    std::_Exit(status);
  }
  // Rank 0 waits for rank 1, at most 90 s: never hang.
  int child_status = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(90);
  while (::waitpid(child, &child_status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      std::printf("rank 1 did not finish in 90 s; killed\n");
      ::kill(child, SIGKILL);
      ::waitpid(child, &child_status, 0);
      return 1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  std::remove(id_file.c_str());
  const bool child_ok = WIFEXITED(child_status) && WEXITSTATUS(child_status) == 0;
  std::printf("rank 0: %s, rank 1: %s\n", status == 0 ? "ok" : "FAILED", child_ok ? "ok" : "FAILED");
  return status == 0 && child_ok ? 0 : 1;
}
