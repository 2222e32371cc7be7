// A peer that dies mid-loop: two processes (one GPU each, file bootstrap) run a loop of
// collectives, and rank 1 SIGKILLs itself part-way. Rank 0's next host wait must end with
// communication_error within the communicator's timeout (plus slack), never hang; it is run once
// per kind of wait: comm.synchronize(), item() of a distributed sum, to_host() of a distributed
// sum along an axis, and destroying the communicator with collectives still queued. Run by ctest
// as dist/PeerDeathEndsInErrorsMultiGpu; prints NDCUDA_SKIP with fewer than 2 GPUs.
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <ndcuda/dist.hpp>
#include <ndcuda/ndcuda.hpp>
#include <optional>
#include <string>
#include <thread>

namespace nd = ndcuda;
namespace dist = ndcuda::dist;

namespace {

constexpr auto timeout = std::chrono::seconds(10);
constexpr int iterations_before_death = 20;
constexpr nd::index_t n = 1 << 20;

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point t) {
  return std::chrono::duration<double>(clock_type::now() - t).count();
}

// One iteration's host wait of the kind under test; throws communication_error once the peer is gone.
void wait_once(const std::string& kind, const dist::communicator& comm, const dist::distributed_array<float>& x) {
  // x is ones of shape (1024, n / 1024), sharded along axis 0.
  if (kind == "synchronize") {
    const auto y = dist::sum(x);
    comm.synchronize();
  } else if (kind == "item") {
    const double v = dist::sum(x).local_shard(0).item();
    if (v != static_cast<double>(n)) {
      throw std::runtime_error("sum is " + std::to_string(v) + ", want " + std::to_string(n));
    }
  } else if (kind == "to_host") {
    const auto columns = dist::sum(x, 0).to_host();  // across ranks: replicated
    if (columns.size() != static_cast<std::size_t>(n / 1024) || columns[7] != 1024.0F) {
      throw std::runtime_error("column sums are wrong");
    }
  }
}

// Rank 0's side of one scenario: returns 0 when the wait ended as it should.
int survivor(const std::string& kind, const std::string& id_file) {
  std::optional<dist::communicator> comm = dist::communicator::join_through_file(
      id_file, 0, 2, 0, {std::chrono::duration_cast<std::chrono::milliseconds>(timeout)});
  std::optional<dist::distributed_array<float>> x = dist::ones<float>({1024, n / 1024}, *comm);
  if (kind == "destroy") {
    for (int i = 0; i < iterations_before_death; ++i) {
      wait_once("item", *comm, *x);
    }
    std::this_thread::sleep_for(std::chrono::seconds(1));  // the peer is gone by now
    try {
      for (int i = 0; i < 3; ++i) {
        (void)dist::sum(*x);  // queued, never waited for: the peer will not answer
      }
    } catch (const dist::communication_error& e) {
      std::printf("destroy: queuing already failed (%s)\n", e.what());
    }
    const auto start = clock_type::now();
    x.reset();
    comm.reset();
    const double took = seconds_since(start);
    std::printf("destroy: the communicator was destroyed in %.2f s (timeout %lld s)\n", took,
                static_cast<long long>(timeout.count()));
    return took <= static_cast<double>(timeout.count()) + 5.0 ? 0 : 1;
  }
  for (int i = 0; i < 10 * iterations_before_death; ++i) {
    const auto start = clock_type::now();
    try {
      wait_once(kind, *comm, *x);
    } catch (const dist::communication_error& e) {
      const double took = seconds_since(start);
      std::printf("%s: iteration %d threw communication_error after %.2f s (timeout %lld s): %s\n", kind.c_str(), i,
                  took, static_cast<long long>(timeout.count()), e.what());
      if (i < iterations_before_death - 1) {
        std::printf("%s: FAILED: the error came before the peer died\n", kind.c_str());
        return 1;
      }
      if (took > static_cast<double>(timeout.count()) + 5.0) {
        std::printf("%s: FAILED: the wait outlasted the timeout by more than 5 s\n", kind.c_str());
        return 1;
      }
      // The communicator is aborted: every later call says so at once.
      try {
        comm->synchronize();
        std::printf("%s: FAILED: synchronize() after the abort did not throw\n", kind.c_str());
        return 1;
      } catch (const dist::communication_error&) {
      }
      return 0;
    }
  }
  std::printf("%s: FAILED: %d iterations ran although the peer died after %d\n", kind.c_str(),
              10 * iterations_before_death, iterations_before_death);
  return 1;
}

[[noreturn]] void doomed_peer(const std::string& kind, const std::string& id_file) {
  try {
    const auto comm = dist::communicator::join_through_file(
        id_file, 1, 2, 1, {std::chrono::duration_cast<std::chrono::milliseconds>(timeout)});
    const auto x = dist::ones<float>({1024, n / 1024}, comm);
    for (int i = 0; i < iterations_before_death; ++i) {
      wait_once(kind == "destroy" ? "item" : kind, comm, x);
    }
  } catch (const std::exception& e) {
    std::printf("rank 1: %s\n", e.what());
  }
  std::fflush(stdout);
  ::kill(::getpid(), SIGKILL);  // mid-loop, with the communicator and its buffers alive
  std::_Exit(1);
}

int scenario(const std::string& kind, const std::string& id_base) {
  const std::string id_file = id_base + "." + kind;
  std::remove(id_file.c_str());
  std::fflush(stdout);
  const pid_t child = ::fork();  // before this process touches CUDA in the scenario's child
  if (child < 0) {
    std::perror("fork");
    return 1;
  }
  if (child == 0) {
    doomed_peer(kind, id_file);
  }
  int status = 1;
  try {
    status = survivor(kind, id_file);
  } catch (const std::exception& e) {
    std::printf("%s: FAILED: rank 0 threw %s\n", kind.c_str(), e.what());
  }
  int child_status = 0;
  ::kill(child, SIGKILL);
  ::waitpid(child, &child_status, 0);
  std::remove(id_file.c_str());
  std::printf("%s: %s\n", kind.c_str(), status == 0 ? "ok" : "FAILED");
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string id_base = argc > 1 ? argv[1] : "/tmp/ndcuda_peer_death_" + std::to_string(::getpid());
  constexpr int skip = 77;
  int failed = 0;
  for (const char* kind : {"synchronize", "item", "to_host", "destroy"}) {
    // Every scenario runs in a child of its own, which forks its peer before touching CUDA, so
    // that each starts from a process without CUDA and an aborted scenario leaves nothing behind.
    std::fflush(stdout);
    const pid_t runner = ::fork();
    if (runner < 0) {
      std::perror("fork");
      return 1;
    }
    if (runner == 0) {
      if (nd::device_count() < 2) {
        std::_Exit(skip);
      }
      const int rc = scenario(kind, id_base);
      std::fflush(stdout);  // _Exit flushes nothing, and stdout is a pipe under ctest
      std::_Exit(rc);
    }
    int status = 0;
    ::waitpid(runner, &status, 0);
    if (WIFEXITED(status) && WEXITSTATUS(status) == skip) {
      std::printf("NDCUDA_SKIP: needs 2 CUDA devices\n");
      return 0;
    }
    failed += WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
  }
  std::printf("peer death: %d of 4 scenarios ended as they should\n", 4 - failed);
  return failed == 0 ? 0 : 1;
}
