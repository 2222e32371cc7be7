/// @file
/// communicator: a group of GPU ranks joined by NCCL, one stream per local GPU, in one process
/// (ncclCommInitAll) or one process per GPU. Builds on device/stream.hpp; nccl.h stays in src/dist.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <array>
#include <chrono>
#include <cstddef>
#include <memory>
#include <ndcuda/core/dtype.hpp>
#include <ndcuda/core/error.hpp>
#include <ndcuda/device/stream.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ndcuda::dist {

/// NCCL failed, a peer did not arrive in time, or the communicator was aborted after such a
/// failure. The message names the operation, the NCCL error and what to check.
class communication_error : public error {
 public:
  using error::error;
};

/// The 128 bytes every rank of a multi-process group must share before joining (ncclUniqueId).
struct unique_id {
  std::array<char, 128> bytes{};  ///< the ncclUniqueId's bytes, as NCCL made them

  /// A new id (ncclGetUniqueId): rank 0 makes it and hands it to the others.
  [[nodiscard]] static unique_id generate();
  /// 256 hexadecimal digits, safe for an environment variable or a file.
  [[nodiscard]] std::string to_hex() const;
  /// Parses to_hex()'s form; throws communication_error on anything else.
  [[nodiscard]] static unique_id from_hex(std::string_view hex);
  /// Rank 0's side of the file bootstrap: writes to_hex() to `path` atomically (temp file, rename).
  void write_file(const std::string& path) const;
  /// The other ranks' side: waits up to `timeout` for `path` to hold a whole id, then reads it.
  [[nodiscard]] static unique_id read_file(const std::string& path, std::chrono::milliseconds timeout);

  friend bool operator==(const unique_id&, const unique_id&) = default;
};

/// Settings of a communicator.
struct communicator_options {
  /// How long a host wait (synchronize(), to_host()), a multi-process join or the file bootstrap
  /// may take before the communicator is aborted and communication_error thrown. NCCL kernels
  /// themselves cannot be timed out; this bounds every place where the host waits for them.
  std::chrono::milliseconds timeout{std::chrono::minutes(5)};
};

/// The reductions NCCL performs across ranks.
enum class reduce_op { sum, prod, min, max };

/// A group of ranks, each one GPU. Copies share the same NCCL communicators (reference
/// semantics); the last copy destroys them. Single-process mode holds every rank; multi-process
/// mode holds this process's rank only, and every collective must be called by all processes.
class communicator {
 public:
  /// One process driving `devices` (ncclCommInitAll over exactly these GPUs: no other device is
  /// touched). Rank i is devices[i]; each gets its own non-blocking stream.
  explicit communicator(std::vector<int> devices, communicator_options options = {});

  /// Every visible GPU in one process.
  [[nodiscard]] static communicator local(communicator_options options = {});
  /// Rank `rank` of `size` processes sharing `id`, on `device` of this process. Blocks (up to the
  /// timeout) until every rank has joined.
  [[nodiscard]] static communicator join(const unique_id& id, int rank, int size, int device,
                                         communicator_options options = {});
  /// join() with the id exchanged through a file every rank can read: rank 0 generates the id and
  /// writes it to `path`, the others wait for it. Use a fresh path per run.
  [[nodiscard]] static communicator join_through_file(const std::string& path, int rank, int size, int device,
                                                      communicator_options options = {});
  /// join() configured by the environment: rank from NDCUDA_RANK (else OMPI_COMM_WORLD_RANK,
  /// PMI_RANK, SLURM_PROCID, RANK), size from NDCUDA_WORLD_SIZE (else OMPI_COMM_WORLD_SIZE,
  /// PMI_SIZE, SLURM_NTASKS, WORLD_SIZE), device from NDCUDA_DEVICE (else the local rank, from
  /// NDCUDA_LOCAL_RANK, OMPI_COMM_WORLD_LOCAL_RANK, SLURM_LOCALID or LOCAL_RANK, modulo the device
  /// count), id from NDCUDA_NCCL_ID (hex) or through the file NDCUDA_NCCL_ID_FILE.
  [[nodiscard]] static communicator from_environment(communicator_options options = {});

  /// Ranks in the whole group.
  [[nodiscard]] int size() const noexcept;
  /// Ranks held by this process (all of them in single-process mode, one in multi-process mode).
  [[nodiscard]] int local_size() const noexcept;
  /// The group rank of local rank `local` (0 <= local < local_size()).
  [[nodiscard]] int rank(int local) const;
  /// The device of local rank `local`.
  [[nodiscard]] int device(int local) const;
  /// The stream every shard of local rank `local` is ordered on; NCCL work runs on it too.
  [[nodiscard]] const ndcuda::stream& stream(int local) const;
  /// The local index holding group rank `rank`, or -1 when another process holds it.
  [[nodiscard]] int local_of_rank(int rank) const noexcept;
  /// The local index on `device`, or -1.
  [[nodiscard]] int local_of_device(int device) const noexcept;
  /// Whether each process holds one rank (multi-process mode) rather than all of them.
  [[nodiscard]] bool multi_process() const noexcept;
  /// How long a host wait or a join may take before the communicator is aborted (communicator_options::timeout).
  [[nodiscard]] std::chrono::milliseconds timeout() const noexcept;

  /// Throws communication_error when NCCL reported an asynchronous error on a local rank
  /// (ncclCommGetAsyncError); the communicators are aborted first, so nothing hangs later.
  void check() const;
  /// Waits on the host for every local stream, polling for NCCL errors; past the timeout the
  /// communicator is aborted and communication_error thrown.
  void synchronize() const;
  /// Aborts the NCCL communicators (ncclCommAbort): pending collectives are cancelled and every
  /// later call throws. What a program does when another rank has failed.
  void abort() const;

  // ---- the byte-level collectives distributed_array is built on --------------------------------

  /// In place: buffers[local] (count elements of `type` on local rank `local`'s device) becomes the
  /// reduction over all ranks. One NCCL group over the local ranks. Complex sums reduce their
  /// real and imaginary parts; other ops on complex, and dtypes NCCL lacks, throw.
  void all_reduce(std::span<void* const> buffers, std::size_t count, dtype type, reduce_op op) const;
  /// Whether all_reduce supports `op` on `type` directly.
  [[nodiscard]] static bool supports(dtype type, reduce_op op) noexcept;

  /// One point-to-point message of a group exchange: local rank `local` sends `bytes` bytes at
  /// `data` to group rank `peer`, or receives them from it.
  struct message {
    int local = 0;          ///< the local rank that sends or receives
    int peer = 0;           ///< the group rank at the other end
    bool send = true;       ///< true to send `bytes` at `data`, false to receive into them
    void* data = nullptr;   ///< device memory on local rank `local`'s device
    std::size_t bytes = 0;  ///< how many bytes
  };
  /// Posts every message inside one ncclGroupStart/ncclGroupEnd, each on its local rank's stream,
  /// so no ordering of the sends and receives can deadlock.
  void exchange(std::span<const message> messages) const;
  /// The same on other streams: local rank l's messages go on `streams[l]` (a stream of its device),
  /// so that communication overlaps computation on stream(l). The caller orders those streams.
  void exchange(std::span<const message> messages, std::span<const ndcuda::stream> streams) const;

  friend bool operator==(const communicator& a, const communicator& b) noexcept { return a.state_ == b.state_; }

  struct state;

 private:
  explicit communicator(std::shared_ptr<state> s) : state_(std::move(s)) {}
  std::shared_ptr<state> state_;
};

}  // namespace ndcuda::dist

#pragma GCC visibility pop
