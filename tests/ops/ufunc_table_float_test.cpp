// The ufunc table (ops/ufunc_table.hpp) over its float dtypes: one part per file keeps each compile
// small. Builds on ops/ufunc_table.hpp.
#include "ops/ufunc_table.hpp"

namespace {
using part = types<__half, bf16, float, double>;
}  // namespace

NDCUDA_UFUNC_TABLE_PART(part, UfuncTableFloats)
