// The ufunc table (ops/ufunc_table.hpp) over its unsigned dtypes: one part per file keeps each compile
// small. Builds on ops/ufunc_table.hpp.
#include "ops/ufunc_table.hpp"

namespace {
using part = types<std::uint8_t, std::uint16_t, std::uint32_t, std::uint64_t>;
}  // namespace

NDCUDA_UFUNC_TABLE_PART(part, UfuncTableUnsignedInts)
