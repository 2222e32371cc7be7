// Tier 0 of reductions (docs/design.md, "Tiered first calls"): the reducers that the ahead-of-time
// fold kernels (kernels/tier0_reduction.cu) are built for, and their one parameter block. Shared by
// the host (src/jit/tier0_reduction.cpp), which matches a reduction's reducer by its spelling, and
// by the kernels, so plain C++ only: no library headers, no <cstdint> (NVRTC has none).
#pragma once

// X(id, value type, reducer...): each reducer spelled exactly as the engine spells it
// (expr/reduction.cpp, reducer_spelling: ", " between arguments), over the value types tier 0
// computes in, with NumPy's default accumulator and result types (expr/detail/reduction_types.hpp).
// A reduction whose reducer is not listed waits for its own kernels, as before tiers.
#define NDCUDA_TIER0_REDUCERS(X)                                                       \
  X(sum_b, bool, ndcuda::sum_reducer<bool, long long, long long>)                      \
  X(sum_i, int, ndcuda::sum_reducer<int, long long, long long>)                        \
  X(sum_l, long long, ndcuda::sum_reducer<long long, long long, long long>)            \
  X(sum_f, float, ndcuda::sum_reducer<float, float, float>)                            \
  X(sum_d, double, ndcuda::sum_reducer<double, double, double>)                        \
  X(prod_b, bool, ndcuda::prod_reducer<bool, long long, long long>)                    \
  X(prod_i, int, ndcuda::prod_reducer<int, long long, long long>)                      \
  X(prod_l, long long, ndcuda::prod_reducer<long long, long long, long long>)          \
  X(prod_f, float, ndcuda::prod_reducer<float, float, float>)                          \
  X(prod_d, double, ndcuda::prod_reducer<double, double, double>)                      \
  X(mean_b, bool, ndcuda::sum_reducer<bool, double, double, false, true>)              \
  X(mean_i, int, ndcuda::sum_reducer<int, double, double, false, true>)                \
  X(mean_l, long long, ndcuda::sum_reducer<long long, double, double, false, true>)    \
  X(mean_f, float, ndcuda::sum_reducer<float, float, float, false, true>)              \
  X(mean_d, double, ndcuda::sum_reducer<double, double, double, false, true>)          \
  X(min_b, bool, ndcuda::extreme_reducer<bool, bool, bool, false>)                     \
  X(min_i, int, ndcuda::extreme_reducer<int, int, int, false>)                         \
  X(min_l, long long, ndcuda::extreme_reducer<long long, long long, long long, false>) \
  X(min_f, float, ndcuda::extreme_reducer<float, float, float, false>)                 \
  X(min_d, double, ndcuda::extreme_reducer<double, double, double, false>)             \
  X(max_b, bool, ndcuda::extreme_reducer<bool, bool, bool, true>)                      \
  X(max_i, int, ndcuda::extreme_reducer<int, int, int, true>)                          \
  X(max_l, long long, ndcuda::extreme_reducer<long long, long long, long long, true>)  \
  X(max_f, float, ndcuda::extreme_reducer<float, float, float, true>)                  \
  X(max_d, double, ndcuda::extreme_reducer<double, double, double, true>)              \
  X(argmin_i, int, ndcuda::arg_reducer<int, int, false>)                               \
  X(argmin_l, long long, ndcuda::arg_reducer<long long, long long, false>)             \
  X(argmin_f, float, ndcuda::arg_reducer<float, float, false>)                         \
  X(argmin_d, double, ndcuda::arg_reducer<double, double, false>)                      \
  X(argmax_i, int, ndcuda::arg_reducer<int, int, true>)                                \
  X(argmax_l, long long, ndcuda::arg_reducer<long long, long long, true>)              \
  X(argmax_f, float, ndcuda::arg_reducer<float, float, true>)                          \
  X(argmax_d, double, ndcuda::arg_reducer<double, double, true>)                       \
  X(all_b, bool, ndcuda::logical_reducer<bool, true>)                                  \
  X(all_i, int, ndcuda::logical_reducer<int, true>)                                    \
  X(all_l, long long, ndcuda::logical_reducer<long long, true>)                        \
  X(all_f, float, ndcuda::logical_reducer<float, true>)                                \
  X(all_d, double, ndcuda::logical_reducer<double, true>)                              \
  X(any_b, bool, ndcuda::logical_reducer<bool, false>)                                 \
  X(any_i, int, ndcuda::logical_reducer<int, false>)                                   \
  X(any_l, long long, ndcuda::logical_reducer<long long, false>)                       \
  X(any_f, float, ndcuda::logical_reducer<float, false>)                               \
  X(any_d, double, ndcuda::logical_reducer<double, false>)                             \
  X(count_nonzero_b, bool, ndcuda::count_reducer<bool>)                                \
  X(count_nonzero_i, int, ndcuda::count_reducer<int>)                                  \
  X(count_nonzero_l, long long, ndcuda::count_reducer<long long>)                      \
  X(count_nonzero_f, float, ndcuda::count_reducer<float>)                              \
  X(count_nonzero_d, double, ndcuda::count_reducer<double>)

// Kept dimensions a fold indexes its results by (the plan's collapsed ones, padded with extents
// of 1 in front); more waits for the compiled kernels.
#define NDCUDA_TIER0_REDUCE_DIMS 4

// The fold's and the finish's only parameter. Value (o, k), output o's k-th reduced element in
// the plan's order, is at values[o * row_stride + k * element_stride]: the map's dense buffer
// (row_stride = reduced, element_stride = 1) or, for a plain read of one input, that input.
struct ndcuda_tier0_reduce_params {
  const void* values;
  void* out;
  void* partials;
  long long outputs;
  long long reduced;
  long long row_stride;
  long long element_stride;
  long long chunk;   // reduced elements per split (blockIdx.y)
  long long splits;  // the finish folds this many partial results per output
  double param;      // the reducer's (ddof)
  int columns;       // 1: a thread per output (reduce_columns), 0: a group per output (reduce_rows)
  int group;         // rows: threads per output, 32 or the block's 256
  int vector;        // rows: elements each thread folds together at a step (the plan's vector loads)
  int pad;
  long long out_shape[NDCUDA_TIER0_REDUCE_DIMS];    // outermost first
  long long out_strides[NDCUDA_TIER0_REDUCE_DIMS];  // the result's, in elements
};
