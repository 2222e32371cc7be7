/// @file
/// mpi.hpp: the MPI bootstrap of a multi-process communicator (id broadcast from rank 0 by MPI_Bcast).
/// Builds on dist/communicator.hpp; header-only, so ndcuda::dist never links MPI: users link MPI::MPI_C.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

// The C API only: Open MPI's and MPICH's mpi.h otherwise pull in their C++ bindings, which need
// libmpi_cxx at link time while users link MPI::MPI_C.
#ifndef OMPI_SKIP_MPICXX
#define OMPI_SKIP_MPICXX 1
#endif
#ifndef MPICH_SKIP_MPICXX
#define MPICH_SKIP_MPICXX 1
#endif
#include <mpi.h>

#include <algorithm>
#include <exception>
#include <ndcuda/device/enumeration.hpp>
#include <ndcuda/dist/communicator.hpp>
#include <string>
#include <utility>

namespace ndcuda::dist {

namespace detail {

/// Throws communication_error for an MPI return code other than MPI_SUCCESS. Codes only come back
/// when the communicator's error handler is MPI_ERRORS_RETURN; the default handler aborts instead.
inline void mpi_check(int code, const char* call) {
  if (code == MPI_SUCCESS) {
    return;
  }
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  std::string reason = MPI_Error_string(code, text, &length) == MPI_SUCCESS
                           ? std::string(text, static_cast<std::size_t>(length))
                           : "MPI error " + std::to_string(code);
  throw communication_error(std::string("join_through_mpi: ") + call + " failed: " + reason +
                            " (check that every rank calls join_through_mpi on the same communicator)");
}

/// This process's rank among the ranks of `comm` on the same node (shared memory), the index that
/// picks its GPU. Collective over `comm`.
inline int mpi_local_rank(MPI_Comm comm) {
  MPI_Comm node = MPI_COMM_NULL;
  mpi_check(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node), "MPI_Comm_split_type");
  int local = 0;
  const int code = MPI_Comm_rank(node, &local);
  MPI_Comm_free(&node);
  mpi_check(code, "MPI_Comm_rank (node communicator)");
  return local;
}

/// Rank 0 of `comm` calls `generate()` and every rank returns its result. A byte in front of the id
/// says whether rank 0 succeeded, so a failure there reaches every rank as an exception instead of
/// leaving them blocked in MPI_Bcast. Collective over `comm`.
template <class Generate>
unique_id mpi_share_id(MPI_Comm comm, Generate&& generate) {
  int rank = 0;
  mpi_check(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  unique_id id;
  char message[1 + sizeof(id.bytes)] = {};
  std::exception_ptr failure;
  if (rank == 0) {
    try {
      id = std::forward<Generate>(generate)();
      message[0] = 1;
      std::copy(id.bytes.begin(), id.bytes.end(), message + 1);
    } catch (...) {
      failure = std::current_exception();
    }
  }
  mpi_check(MPI_Bcast(message, static_cast<int>(sizeof(message)), MPI_CHAR, 0, comm), "MPI_Bcast of the NCCL id");
  if (failure) {
    std::rethrow_exception(failure);
  }
  if (message[0] != 1) {
    throw communication_error(
        "join_through_mpi: rank 0 could not generate the NCCL unique id (see rank 0's error); no communicator was "
        "created");
  }
  std::copy(message + 1, message + sizeof(message), id.bytes.begin());
  return id;
}

}  // namespace detail

/// Joins every rank of `comm` into one NCCL communicator, one GPU per process: rank and size come
/// from `comm`, rank 0 generates the unique id and MPI_Bcast hands it to the others. `device` -1
/// picks the rank among the ranks of the same node modulo the visible devices. Collective over
/// `comm`: every rank must call it, after MPI_Init. Throws communication_error for an MPI failure,
/// device_error when no GPU is visible or `device` is out of range.
[[nodiscard]] inline communicator join_through_mpi(MPI_Comm comm, int device = -1, communicator_options options = {}) {
  int initialized = 0;
  detail::mpi_check(MPI_Initialized(&initialized), "MPI_Initialized");
  if (initialized == 0) {
    throw communication_error("join_through_mpi: MPI is not initialized; call MPI_Init (or MPI_Init_thread) first");
  }
  if (comm == MPI_COMM_NULL) {
    throw communication_error(
        "join_through_mpi: the communicator is MPI_COMM_NULL; pass MPI_COMM_WORLD or a communicator this process "
        "belongs to");
  }
  int rank = 0;
  int size = 0;
  detail::mpi_check(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  detail::mpi_check(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  // Collective steps first, on every rank whatever `device` is, so that a local error cannot leave
  // the other ranks waiting in MPI; join() itself gives up after options.timeout.
  const int local_rank = detail::mpi_local_rank(comm);
  const unique_id id = detail::mpi_share_id(comm, [] { return unique_id::generate(); });
  if (device == -1) {
    const int count = device_count();
    if (count == 0) {
      throw device_error("join_through_mpi: rank " + std::to_string(rank) + " sees no CUDA device");
    }
    device = local_rank % count;
  }
  return communicator::join(id, rank, size, device, options);
}

}  // namespace ndcuda::dist

#pragma GCC visibility pop
