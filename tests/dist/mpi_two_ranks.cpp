// Two MPI ranks, one GPU each, joined by join_through_mpi: a raw all-reduce and distributed sums must
// match host references and the single-GPU result. Run by ctest under mpiexec -n 2 as
// dist/MpiTwoRanksMatchOneMultiGpu, and with NCCL's network transport (P2P and SHM off, as between
// nodes) as dist/MpiTwoRanksMatchOneNetworkTransportMultiGpu. The MPI plumbing (id broadcast,
// failure on rank 0, bad communicator) is checked first without a GPU; the GPU part prints
// NDCUDA_SKIP with fewer than 2.
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <ndcuda/dist.hpp>
#include <ndcuda/dist/mpi.hpp>
#include <ndcuda/ndcuda.hpp>
#include <random>
#include <stdexcept>
#include <vector>

namespace nd = ndcuda;
namespace dist = ndcuda::dist;

namespace {

int failures = 0;
int rank = 0;

void fail(const char* what) {
  std::printf("rank %d: %s\n", rank, what);
  ++failures;
}

/// Host-only checks of the bootstrap pieces: every rank gets rank 0's bytes, only rank 0 generates,
/// a failure on rank 0 reaches every rank as an exception, and bad arguments are refused.
void check_plumbing(int size) {
  int calls = 0;
  const dist::unique_id shared = dist::detail::mpi_share_id(MPI_COMM_WORLD, [&] {
    ++calls;
    dist::unique_id id;
    for (std::size_t i = 0; i < id.bytes.size(); ++i) {
      id.bytes[i] = static_cast<char>((i * 37 + 11) & 0x7f);
    }
    return id;
  });
  for (std::size_t i = 0; i < shared.bytes.size(); ++i) {
    if (shared.bytes[i] != static_cast<char>((i * 37 + 11) & 0x7f)) {
      fail("mpi_share_id: the id differs from rank 0's");
      break;
    }
  }
  if (calls != (rank == 0 ? 1 : 0)) {
    fail("mpi_share_id: the generator ran on a rank other than 0, or not on rank 0");
  }
  try {
    (void)dist::detail::mpi_share_id(MPI_COMM_WORLD, []() -> dist::unique_id { throw std::runtime_error("no id"); });
    fail("mpi_share_id: a failure on rank 0 did not throw");
  } catch (const dist::communication_error&) {
    if (rank == 0) {
      fail("mpi_share_id: rank 0 should get its own exception back");
    }
  } catch (const std::runtime_error&) {
    if (rank != 0) {
      fail("mpi_share_id: ranks other than 0 should get communication_error");
    }
  }
  try {
    (void)dist::join_through_mpi(MPI_COMM_NULL);
    fail("join_through_mpi(MPI_COMM_NULL) did not throw");
  } catch (const dist::communication_error&) {
  }
  const int local = dist::detail::mpi_local_rank(MPI_COMM_WORLD);
  if (local < 0 || local >= size) {
    fail("mpi_local_rank out of range");
  }
}

bool close(double got, double want, double scale) {
  return std::abs(got - want) <= 1e-5 * (1.0 + scale);
}

void check_gpus(std::uint64_t seed) {
  const auto comm = dist::join_through_mpi(MPI_COMM_WORLD, -1, {std::chrono::seconds(60)});
  if (comm.size() != 2 || comm.local_size() != 1 || comm.rank(0) != rank || comm.device(0) != rank) {
    fail("communicator: expected rank = MPI rank on device = local rank, 2 ranks, 1 local");
  }
  std::mt19937_64 engine(seed);  // the same data in both processes
  std::uniform_real_distribution<double> u(-2.0, 2.0);
  const nd::stream& s = comm.stream(0);

  // Raw all-reduce: rank r contributes part[r]; every rank must end with part[0] + part[1].
  const std::size_t n = 1000;
  std::vector<std::vector<float>> part(2, std::vector<float>(n));
  for (auto& p : part) {
    for (auto& x : p) {
      x = static_cast<float>(u(engine));
    }
  }
  auto buffer = nd::asarray<float>(part[static_cast<std::size_t>(rank)], nd::shape_t{static_cast<nd::index_t>(n)}, s);
  void* const pointers[] = {buffer.data()};
  comm.all_reduce(pointers, n, nd::dtype_of<float>, dist::reduce_op::sum);
  comm.synchronize();
  const auto reduced = buffer.to_host();
  for (std::size_t i = 0; i < n; ++i) {
    const double want = static_cast<double>(part[0][i]) + static_cast<double>(part[1][i]);
    if (!close(reduced[i], want, std::abs(part[0][i]) + std::abs(part[1][i]))) {
      std::printf("rank %d: all_reduce[%zu] = %.9g, host %.9g\n", rank, i, static_cast<double>(reduced[i]), want);
      ++failures;
      break;
    }
  }

  // Distributed sums against the single-GPU sums and a double host reference.
  const nd::shape_t shape{37, 23};  // uneven over 2 ranks along both axes
  std::vector<float> h(37 * 23);
  for (auto& x : h) {
    x = static_cast<float>(u(engine));
  }
  double total = 0.0;
  double magnitude = 0.0;
  std::vector<double> columns(23, 0.0);
  for (std::size_t i = 0; i < h.size(); ++i) {
    total += h[i];
    magnitude += std::abs(h[i]);
    columns[i % 23] += h[i];
  }
  const auto single = nd::asarray<float>(h, shape, s);
  const float single_total = nd::sum(single).item();
  const auto single_columns = nd::sum(single, 0).to_host();
  for (int axis = 0; axis < 2; ++axis) {
    const auto a = dist::distribute<float>(h, shape, comm, axis);
    const double got = dist::sum(a).local_shard(0).item();
    if (!close(got, total, magnitude) || !close(got, single_total, magnitude)) {
      std::printf("rank %d: axis %d: sum = %.9g, host %.9g, single GPU %.9g\n", rank, axis, got, total,
                  static_cast<double>(single_total));
      ++failures;
    }
    const auto got_columns = dist::sum(a, 0).to_host();
    for (std::size_t j = 0; j < columns.size(); ++j) {
      if (got_columns.size() != columns.size() || !close(got_columns[j], columns[j], 37.0 * 2.0) ||
          !close(got_columns[j], single_columns[j], 37.0 * 2.0)) {
        std::printf("rank %d: axis %d: sum(axis 0)[%zu] differs from host/single GPU\n", rank, axis, j);
        ++failures;
        break;
      }
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
    std::printf("MPI_Init failed\n");
    return 1;
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);  // codes come back to be checked
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int status = 0;
  try {
    if (size != 2) {
      fail("run with mpiexec -n 2");
    }
    check_plumbing(size);
    int any_failed = failures;
    MPI_Allreduce(MPI_IN_PLACE, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    int devices = nd::device_count();
    MPI_Allreduce(MPI_IN_PLACE, &devices, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (any_failed == 0 && devices < 2) {
      if (rank == 0) {
        std::printf("MPI bootstrap checks passed; NDCUDA_SKIP: the GPU part needs 2 CUDA devices, %d visible\n",
                    devices);
      }
      MPI_Finalize();
      return 0;
    }
    if (any_failed == 0) {
      unsigned long long seed = rank == 0 ? std::random_device{}() : 0;
      MPI_Bcast(&seed, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
      if (rank == 0) {
        std::printf("seed %llu\n", seed);
      }
      check_gpus(seed);
    }
  } catch (const std::exception& e) {
    std::printf("rank %d: %s\n", rank, e.what());
    ++failures;
  }
  std::fflush(stdout);
  status = failures == 0 ? 0 : 1;
  int worst = status;
  MPI_Allreduce(MPI_IN_PLACE, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0) {
    std::printf("%s\n", worst == 0 ? "both ranks ok" : "FAILED");
  }
  MPI_Finalize();
  return worst;
}
