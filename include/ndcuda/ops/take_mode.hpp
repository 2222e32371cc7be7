/// @file
/// NumPy's `mode` of np.take: what an out-of-range index does. Builds on nothing; used by
/// ops/indexing_functions.hpp and the compiled gather behind it.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <cstdint>

namespace ndcuda {

/// np.take's `mode`: `raise` checks every index (NumPy's IndexError; the call waits for the
/// device to read the check back), `wrap` takes indices modulo the axis length and `clip` clamps
/// them to [0, n - 1] (negative indices clip to 0, as in NumPy); neither waits.
enum class take_mode : std::uint8_t { raise, wrap, clip };

}  // namespace ndcuda

#pragma GCC visibility pop
