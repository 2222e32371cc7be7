// The ufunc table (ops/ufunc_table.hpp) over its complex dtypes: one part per file keeps each compile
// small. Builds on ops/ufunc_table.hpp.
#include "ops/ufunc_table.hpp"

namespace {
using part = types<c64, c128>;
}  // namespace

NDCUDA_UFUNC_TABLE_PART(part, UfuncTableComplex)
