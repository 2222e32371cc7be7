// The ufunc table (ops/ufunc_table.hpp) over its signed dtypes: one part per file keeps each compile
// small. Builds on ops/ufunc_table.hpp.
#include "ops/ufunc_table.hpp"

namespace {
using part = types<std::int8_t, std::int16_t, std::int32_t, std::int64_t>;
}  // namespace

NDCUDA_UFUNC_TABLE_PART(part, UfuncTableSignedInts)
