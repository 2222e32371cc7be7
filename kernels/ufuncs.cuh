// Every ufunc helper (ndcuda::nd_<name>), the device side of the ufunc table
// (include/ndcuda/ops/ufuncs.hpp), with NumPy's semantics where C++'s differ. Each family lives in
// its own ufuncs_<family>.cuh; this umbrella is what generated kernels and user elementwise
// kernels include (elementwise.cuh), so any of them can call any nd_ helper.
#pragma once

#include "ndcuda/ufuncs_complex_parts.cuh"
#include "ndcuda/ufuncs_core.cuh"
#include "ndcuda/ufuncs_division.cuh"
#include "ndcuda/ufuncs_exp_log.cuh"
#include "ndcuda/ufuncs_float_parts.cuh"
#include "ndcuda/ufuncs_integer.cuh"
#include "ndcuda/ufuncs_powers.cuh"
#include "ndcuda/ufuncs_rounding.cuh"
#include "ndcuda/ufuncs_special.cuh"
#include "ndcuda/ufuncs_trig.cuh"
