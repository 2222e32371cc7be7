/// @file
/// nd::size(k): a static result size for operations whose size is otherwise known only on the
/// device (nonzero, mask extraction, unique), so they need no host wait and can be captured.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <ndcuda/core/shape.hpp>

namespace ndcuda {

/// The result size an operation is asked to produce (JAX's `size=`): the first k results are kept
/// and missing ones are filled (with the operation's fill value).
struct static_size {
  index_t value;  ///< k, the number of results (>= 0)
};

/// nd::nonzero(a, nd::size(k)), nd::extract(mask, a, nd::size(k), fill), nd::unique(a, nd::size(k), fill).
[[nodiscard]] constexpr static_size size(index_t k) noexcept {
  return static_size{k};
}

}  // namespace ndcuda

#pragma GCC visibility pop
