// The core of the ufunc helpers: the families that most fused expressions and every reducer call
// (arithmetic, comparison, classification: nd_add, nd_multiply, nd_maximum, nd_abs, nd_isnan,
// ...), templates only, cheap for NVRTC to parse. A kernel whose body calls only those (the list
// in src/jit/elementwise_source.cpp) includes this alone (docs/jit.md, "First-call compile time").
#pragma once

#include "ndcuda/ufuncs_arithmetic.cuh"
#include "ndcuda/ufuncs_classification.cuh"
#include "ndcuda/ufuncs_common.cuh"
#include "ndcuda/ufuncs_comparison.cuh"
