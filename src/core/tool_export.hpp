// Internal: the declarations of src/ that ndcuda's own tools (ndcuda-precompile) call. A shared
// ndcuda built with hidden visibility (NDCUDA_HIDDEN_VISIBILITY, CMakeLists.txt) exports what the
// public headers declare and, besides, only what is marked with this.
#pragma once

#define NDCUDA_TOOL_API __attribute__((visibility("default")))
