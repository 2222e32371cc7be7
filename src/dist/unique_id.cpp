// unique_id::generate, the one part of unique_id that calls NCCL; the hex and file halves, which
// need no NCCL (and are fuzzed: tests/fuzz/id_file_fuzz.cpp), are in unique_id_file.cpp.
#include <nccl.h>

#include <algorithm>
#include <iterator>
#include <ndcuda/dist/communicator.hpp>

#include "dist/nccl_check.hpp"

namespace ndcuda::dist {

unique_id unique_id::generate() {
  static_assert(sizeof(ncclUniqueId) == sizeof(unique_id::bytes));
  ncclUniqueId id{};
  NDCUDA_NCCL_CHECK(ncclGetUniqueId(&id));
  unique_id out;
  std::copy(std::begin(id.internal), std::end(id.internal), out.bytes.begin());
  return out;
}

}  // namespace ndcuda::dist
