// communicator: NCCL communicators per local GPU, their streams, error polling and timeouts.
#include <nccl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <ndcuda/device/detail/wait_bound.hpp>
#include <ndcuda/device/device.hpp>
#include <ndcuda/device/enumeration.hpp>
#include <ndcuda/dist/communicator.hpp>
#include <optional>
#include <sstream>
#include <thread>

#include "core/untrusted_files.hpp"
#include "device/driver_api.hpp"
#include "dist/nccl_check.hpp"

namespace ndcuda::dist {

namespace {

// Puts the calling thread's CUDA context back as it found it (none included). NCCL makes each
// communicator's device current while it initialises or launches and does not restore the
// caller's; a device_guard would not do here, since it restores nothing when the device it is
// given is already current.
class keep_current_context {
 public:
  keep_current_context() { NDCUDA_DRIVER_CHECK(ndcuda::detail::driver().ctx_get_current(&previous_)); }
  ~keep_current_context() { (void)ndcuda::detail::driver().ctx_set_current(previous_); }
  keep_current_context(const keep_current_context&) = delete;
  keep_current_context& operator=(const keep_current_context&) = delete;

 private:
  CUcontext previous_ = nullptr;
};

}  // namespace

struct communicator::state {
  mutable std::vector<ncclComm_t> comms;  // nulled by abort_locked (ncclCommAbort frees them)
  std::vector<int> devices;
  std::vector<int> ranks;
  std::vector<ndcuda::stream> streams;
  int size = 0;
  bool multi_process = false;
  communicator_options options;
  mutable std::mutex mutex;  // guards `aborted` and serialises group calls from several threads
  mutable bool aborted = false;

  state() = default;
  state(const state&) = delete;
  state& operator=(const state&) = delete;
  ~state() {
    // ncclCommDestroy flushes the communicator's pending work, which never finishes when a peer
    // is gone: wait for the streams within the timeout first, and abort instead when they hang.
    if (!aborted && !drained()) {
      aborted = true;
    }
    const keep_current_context keep;
    for (std::size_t i = 0; i < comms.size(); ++i) {
      if (comms[i] == nullptr) {
        continue;
      }
      const device_guard guard(devices[i]);
      if (aborted) {
        (void)ncclCommAbort(comms[i]);
      } else {
        (void)ncclCommDestroy(comms[i]);  // errors at teardown have nowhere to go
      }
    }
  }

  /// Whether every local stream finished its work within the timeout (false on any error too).
  bool drained() const noexcept {
    try {
      const auto deadline = std::chrono::steady_clock::now() + options.timeout;
      for (const auto& st : streams) {
        while (!st.query()) {
          ncclResult_t async = ncclSuccess;
          for (ncclComm_t c : comms) {
            if (c != nullptr && ncclCommGetAsyncError(c, &async) == ncclSuccess && async != ncclSuccess &&
                async != ncclInProgress) {
              return false;
            }
          }
          if (std::chrono::steady_clock::now() > deadline) {
            return false;
          }
          std::this_thread::sleep_for(std::chrono::microseconds(100));
        }
      }
      return true;
    } catch (...) {
      return false;  // the runtime is gone (process exit) or the stream failed: abort
    }
  }

  void abort_locked() const {
    if (aborted) {
      return;
    }
    aborted = true;
    const keep_current_context keep;
    for (std::size_t i = 0; i < comms.size(); ++i) {
      if (comms[i] != nullptr) {
        const device_guard guard(devices[i]);
        (void)ncclCommAbort(comms[i]);
      }
    }
    std::fill(comms.begin(), comms.end(), nullptr);
  }

  void require_usable(const char* what) const {
    if (aborted) {
      throw communication_error(std::string(what) +
                                ": this communicator was aborted after an earlier failure or timeout; create a new "
                                "one (every rank must)");
    }
  }

  /// Waits for non-blocking communicators to leave ncclInProgress, then throws on any error.
  void settle(const char* what) const {
    const keep_current_context keep;  // a non-blocking communicator may make progress in here
    const auto deadline = std::chrono::steady_clock::now() + options.timeout;
    for (std::size_t i = 0; i < comms.size(); ++i) {
      ncclResult_t async = ncclSuccess;
      for (;;) {
        const ncclResult_t rc = ncclCommGetAsyncError(comms[i], &async);
        if (rc != ncclSuccess) {
          async = rc;
        }
        if (async != ncclInProgress) {
          break;
        }
        if (std::chrono::steady_clock::now() > deadline) {
          abort_locked();
          throw communication_error(std::string(what) + " on rank " + std::to_string(ranks[i]) + " (device " +
                                    std::to_string(devices[i]) + ") was still in progress after " +
                                    std::to_string(options.timeout.count()) +
                                    " ms; the communicator was aborted. Check that every rank made the same call");
        }
        std::this_thread::yield();
      }
      if (async != ncclSuccess) {
        const std::string last = ncclGetLastError(comms[i]) ? ncclGetLastError(comms[i]) : "";
        abort_locked();
        throw communication_error(std::string(what) + " failed on rank " + std::to_string(ranks[i]) + " (device " +
                                  std::to_string(devices[i]) + "): NCCL reported " + ncclGetErrorString(async) +
                                  (last.empty() ? "" : " (" + last + ")") +
                                  "; the communicator was aborted. Set NCCL_DEBUG=WARN for NCCL's own account");
      }
    }
  }

  void refuse_multi_gpu_capture(const char* what) const {
    if (comms.size() <= 1) {
      return;
    }
    for (const auto& s : streams) {
      if (s.is_capturing()) {
        throw capture_error(std::string(what) + ": capturing NCCL work of " + std::to_string(comms.size()) +
                            " GPUs driven by one thread into a graph is not supported; capture per GPU in one "
                            "process per GPU (communicator::join), or run this collective outside the capture");
      }
    }
  }
};

namespace {

// Bounds every host wait on the communicator's streams (stream::synchronize, item(), to_host(),
// synchronize_for): polls NCCL's asynchronous errors while waiting, and past the timeout aborts
// the communicator, which ends its kernels so the stream drains, then throws. Holds the state
// weakly: the state owns the streams that own this bound.
class communicator_wait_bound final : public ndcuda::detail::wait_bound {
 public:
  explicit communicator_wait_bound(const std::shared_ptr<communicator::state>& s)
      : state_(s), timeout_(s->options.timeout) {}

  [[nodiscard]] std::chrono::milliseconds timeout() const noexcept override { return timeout_; }

  void poll(const char* what) const override {
    const auto s = state_.lock();
    if (!s) {
      return;  // the communicator is gone; what is left on the stream is ordinary work
    }
    const std::lock_guard lock(s->mutex);
    if (s->aborted) {
      return;  // aborting ended its collectives: the stream drains by itself
    }
    s->settle(what);
  }

  [[noreturn]] void expire(const char* what) const override {
    if (const auto s = state_.lock()) {
      const std::lock_guard lock(s->mutex);
      s->abort_locked();
    }
    throw communication_error(std::string(what) + " waited " + std::to_string(timeout_.count()) +
                              " ms (the communicator's timeout) for work on a communicator's stream; the "
                              "communicator was aborted. A rank may have failed or skipped a collective that the "
                              "others entered; create a new communicator on every rank to go on");
  }

 private:
  std::weak_ptr<communicator::state> state_;
  std::chrono::milliseconds timeout_;
};

void bound_waits(const std::shared_ptr<communicator::state>& s) {
  const auto bound = std::make_shared<const communicator_wait_bound>(s);
  for (const auto& st : s->streams) {
    ndcuda::detail::set_wait_bound(st, bound);
  }
}

std::shared_ptr<communicator::state> checked(const std::shared_ptr<communicator::state>& s) {
  if (!s) {
    throw communication_error("communicator: used after being moved from");
  }
  return s;
}

std::optional<std::string> env(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') {
    return std::nullopt;
  }
  return std::string(v);
}

std::optional<int> env_int(std::initializer_list<const char*> names) {
  for (const char* name : names) {
    if (auto v = env(name)) {
      try {
        return std::stoi(*v);
      } catch (const std::exception&) {
        throw communication_error(std::string("communicator::from_environment: ") + name + "=" +
                                  ndcuda::detail::quote_input(*v) + " is not an integer");
      }
    }
  }
  return std::nullopt;
}

void check_device(int device, const char* what) {
  const int count = device_count();
  if (device < 0 || device >= count) {
    throw device_error(std::string(what) + ": device " + std::to_string(device) + " is not one of the " +
                       std::to_string(count) + " visible CUDA devices");
  }
}

}  // namespace

// ---- construction ----------------------------------------------------------------------------------

communicator::communicator(std::vector<int> devices, communicator_options options) {
  if (devices.empty()) {
    throw device_error("communicator: needs at least one device");
  }
  for (std::size_t i = 0; i < devices.size(); ++i) {
    check_device(devices[i], "communicator");
    if (std::count(devices.begin(), devices.end(), devices[i]) > 1) {
      throw device_error("communicator: device " + std::to_string(devices[i]) +
                         " is listed twice; NCCL needs one rank per GPU in a process");
    }
  }
  auto s = std::make_shared<state>();
  s->options = options;
  s->devices = devices;
  s->size = static_cast<int>(devices.size());
  s->comms.assign(devices.size(), nullptr);
  for (std::size_t i = 0; i < devices.size(); ++i) {
    s->ranks.push_back(static_cast<int>(i));
    s->streams.emplace_back(devices[i]);
  }
  {
    // ncclCommInitAll makes each listed device current in turn: put the caller's context (or
    // none) back afterwards, so no later call of this thread lands on the last rank's device.
    const keep_current_context keep;
    const device_guard guard(devices.front());
    NDCUDA_NCCL_CHECK(ncclCommInitAll(s->comms.data(), static_cast<int>(devices.size()), devices.data()));
  }
  bound_waits(s);
  state_ = std::move(s);
}

communicator communicator::local(communicator_options options) {
  std::vector<int> devices(static_cast<std::size_t>(device_count()));
  for (std::size_t i = 0; i < devices.size(); ++i) {
    devices[i] = static_cast<int>(i);
  }
  return communicator(std::move(devices), options);
}

communicator communicator::join(const unique_id& id, int rank, int size, int device, communicator_options options) {
  if (size <= 0 || rank < 0 || rank >= size) {
    throw communication_error("communicator::join: rank " + std::to_string(rank) + " is not in a group of " +
                              std::to_string(size));
  }
  check_device(device, "communicator::join");
  auto s = std::make_shared<state>();
  s->options = options;
  s->devices = {device};
  s->ranks = {rank};
  s->size = size;
  s->multi_process = true;
  s->comms.assign(1, nullptr);
  s->streams.emplace_back(device);
  ncclUniqueId raw{};
  std::copy(id.bytes.begin(), id.bytes.end(), std::begin(raw.internal));
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0;  // so that a rank that never arrives is a timeout, not a hang
  {
    const keep_current_context keep;
    const device_guard guard(device);
    const ncclResult_t rc = ncclCommInitRankConfig(&s->comms[0], size, raw, rank, &config);
    if (rc != ncclSuccess && rc != ncclInProgress) {
      s->comms[0] = nullptr;
      detail::throw_nccl_error(rc, "ncclCommInitRankConfig", nullptr);
    }
  }
  {
    const std::lock_guard lock(s->mutex);
    s->settle("communicator::join (waiting for every rank to join)");
  }
  bound_waits(s);
  return communicator(std::move(s));
}

communicator communicator::join_through_file(const std::string& path, int rank, int size, int device,
                                             communicator_options options) {
  unique_id id;
  if (rank == 0) {
    id = unique_id::generate();
    id.write_file(path);
  } else {
    id = unique_id::read_file(path, options.timeout);
  }
  return join(id, rank, size, device, options);
}

communicator communicator::from_environment(communicator_options options) {
  const auto rank = env_int({"NDCUDA_RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID", "RANK"});
  const auto size = env_int({"NDCUDA_WORLD_SIZE", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS", "WORLD_SIZE"});
  if (!rank || !size) {
    throw communication_error(
        "communicator::from_environment: set NDCUDA_RANK and NDCUDA_WORLD_SIZE (or run under mpirun/srun/torchrun, "
        "whose variables are read too)");
  }
  int device = 0;
  if (auto d = env_int({"NDCUDA_DEVICE"})) {
    device = *d;
  } else {
    const int count = device_count();
    if (count == 0) {
      throw device_error("communicator::from_environment: no CUDA device is visible");
    }
    const int local_rank =
        env_int({"NDCUDA_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID", "LOCAL_RANK"}).value_or(*rank);
    device = local_rank % count;
  }
  if (auto hex = env("NDCUDA_NCCL_ID")) {
    return join(unique_id::from_hex(*hex), *rank, *size, device, options);
  }
  if (auto path = env("NDCUDA_NCCL_ID_FILE")) {
    return join_through_file(*path, *rank, *size, device, options);
  }
  throw communication_error(
      "communicator::from_environment: set NDCUDA_NCCL_ID (unique_id::to_hex() of rank 0's id) or "
      "NDCUDA_NCCL_ID_FILE (a fresh path every rank can read) to share the NCCL id, or use dist/mpi.hpp");
}

// ---- queries ---------------------------------------------------------------------------------------

int communicator::size() const noexcept {
  return state_ ? state_->size : 0;
}
int communicator::local_size() const noexcept {
  return state_ ? static_cast<int>(state_->devices.size()) : 0;
}
int communicator::rank(int local) const {
  return checked(state_)->ranks.at(static_cast<std::size_t>(local));
}
int communicator::device(int local) const {
  return checked(state_)->devices.at(static_cast<std::size_t>(local));
}
const ndcuda::stream& communicator::stream(int local) const {
  return state_->streams.at(static_cast<std::size_t>(local));
}
int communicator::local_of_rank(int r) const noexcept {
  const auto& ranks = state_->ranks;
  const auto it = std::find(ranks.begin(), ranks.end(), r);
  return it == ranks.end() ? -1 : static_cast<int>(it - ranks.begin());
}
int communicator::local_of_device(int d) const noexcept {
  const auto& devices = state_->devices;
  const auto it = std::find(devices.begin(), devices.end(), d);
  return it == devices.end() ? -1 : static_cast<int>(it - devices.begin());
}
bool communicator::multi_process() const noexcept {
  return state_ && state_->multi_process;
}
std::chrono::milliseconds communicator::timeout() const noexcept {
  return state_ ? state_->options.timeout : std::chrono::milliseconds(0);
}

// ---- errors and waiting ----------------------------------------------------------------------------

void communicator::check() const {
  const auto s = checked(state_);
  const std::lock_guard lock(s->mutex);
  s->require_usable("communicator::check");
  s->settle("an earlier collective");
}

void communicator::abort() const {
  const auto s = checked(state_);
  const std::lock_guard lock(s->mutex);
  s->abort_locked();
}

void communicator::synchronize() const {
  const auto s = checked(state_);
  const auto deadline = std::chrono::steady_clock::now() + s->options.timeout;
  for (std::size_t i = 0; i < s->streams.size(); ++i) {
    if (s->streams[i].is_capturing()) {
      throw capture_error("communicator::synchronize: the stream of rank " + std::to_string(s->ranks[i]) +
                          " is capturing a CUDA graph; wait after the capture ends");
    }
    for (;;) {
      if (s->streams[i].query()) {
        break;
      }
      {
        const std::lock_guard lock(s->mutex);
        s->require_usable("communicator::synchronize");
        s->settle("a collective");
        if (std::chrono::steady_clock::now() > deadline) {
          s->abort_locked();
          throw communication_error("communicator::synchronize: the work of rank " + std::to_string(s->ranks[i]) +
                                    " (device " + std::to_string(s->devices[i]) + ") did not finish within " +
                                    std::to_string(s->options.timeout.count()) +
                                    " ms; the communicator was aborted. A rank may have failed or skipped a "
                                    "collective that the others entered");
        }
      }
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  }
  check();
}

// ---- collectives -----------------------------------------------------------------------------------

bool communicator::supports(dtype type, reduce_op op) noexcept {
  return detail::nccl_type(type, op).has_value();
}

void communicator::all_reduce(std::span<void* const> buffers, std::size_t count, dtype type, reduce_op op) const {
  const auto s = checked(state_);
  if (buffers.size() != s->comms.size()) {
    throw communication_error("communicator::all_reduce: " + std::to_string(buffers.size()) + " buffers for " +
                              std::to_string(s->comms.size()) + " local ranks");
  }
  const auto mapped = detail::nccl_type(type, op);
  if (!mapped) {
    throw communication_error("communicator::all_reduce: NCCL cannot reduce " + std::string(name(type)) +
                              " values with this operation; reduce a supported dtype (or gather and reduce locally)");
  }
  s->refuse_multi_gpu_capture("communicator::all_reduce");
  const ncclRedOp_t nccl_op = op == reduce_op::sum    ? ncclSum
                              : op == reduce_op::prod ? ncclProd
                              : op == reduce_op::min  ? ncclMin
                                                      : ncclMax;
  const std::lock_guard lock(s->mutex);
  s->require_usable("communicator::all_reduce");
  const keep_current_context keep;  // NCCL switches devices while it launches
  const device_guard guard(s->devices.front());
  NDCUDA_NCCL_CHECK(ncclGroupStart());
  for (std::size_t i = 0; i < s->comms.size(); ++i) {
    const ncclResult_t rc = ncclAllReduce(buffers[i], buffers[i], count * mapped->multiplier, mapped->type, nccl_op,
                                          s->comms[i], s->streams[i].handle());
    if (rc != ncclSuccess && rc != ncclInProgress) {
      (void)ncclGroupEnd();
      s->abort_locked();
      detail::throw_nccl_error(rc, "ncclAllReduce", nullptr);
    }
  }
  const ncclResult_t end = ncclGroupEnd();
  if (end != ncclSuccess && end != ncclInProgress) {
    s->abort_locked();
    detail::throw_nccl_error(end, "ncclGroupEnd (all_reduce)", nullptr);
  }
  s->settle("communicator::all_reduce");
}

void communicator::exchange(std::span<const message> messages) const {
  exchange(messages, checked(state_)->streams);
}

void communicator::exchange(std::span<const message> messages, std::span<const ndcuda::stream> streams) const {
  const auto s = checked(state_);
  if (streams.size() != s->comms.size()) {
    throw communication_error("communicator::exchange: " + std::to_string(streams.size()) + " streams for " +
                              std::to_string(s->comms.size()) + " local ranks; pass one stream per local rank");
  }
  for (const auto& m : messages) {
    if (m.local < 0 || m.local >= static_cast<int>(s->comms.size()) || m.peer < 0 || m.peer >= s->size) {
      throw communication_error("communicator::exchange: message between local rank " + std::to_string(m.local) +
                                " and rank " + std::to_string(m.peer) + " is outside this communicator");
    }
  }
  if (messages.empty()) {
    return;
  }
  s->refuse_multi_gpu_capture("communicator::exchange");
  const std::lock_guard lock(s->mutex);
  s->require_usable("communicator::exchange");
  const keep_current_context keep;  // as in all_reduce: NCCL switches devices
  const device_guard guard(s->devices.front());
  NDCUDA_NCCL_CHECK(ncclGroupStart());
  for (const auto& m : messages) {
    const auto i = static_cast<std::size_t>(m.local);
    const ncclResult_t rc = m.send ? ncclSend(m.data, m.bytes, ncclUint8, m.peer, s->comms[i], streams[i].handle())
                                   : ncclRecv(m.data, m.bytes, ncclUint8, m.peer, s->comms[i], streams[i].handle());
    if (rc != ncclSuccess && rc != ncclInProgress) {
      (void)ncclGroupEnd();
      s->abort_locked();
      detail::throw_nccl_error(rc, m.send ? "ncclSend" : "ncclRecv", nullptr);
    }
  }
  const ncclResult_t end = ncclGroupEnd();
  if (end != ncclSuccess && end != ncclInProgress) {
    s->abort_locked();
    detail::throw_nccl_error(end, "ncclGroupEnd (exchange)", nullptr);
  }
  s->settle("communicator::exchange");
}

}  // namespace ndcuda::dist
