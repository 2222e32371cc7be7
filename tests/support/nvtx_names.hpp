// Whether an NVTX range name has been registered by the library (core/detail/nvtx.hpp's registry),
// shared by the tests that check ops name their ranges as the user wrote them.
#pragma once

#include <algorithm>
#include <ndcuda/core/detail/nvtx.hpp>
#include <string>
#include <vector>

namespace ndcuda::testing {

inline bool nvtx_name_registered(const std::string& name) {
  const std::vector<std::string> names = detail::nvtx_registered_names();
  return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace ndcuda::testing
