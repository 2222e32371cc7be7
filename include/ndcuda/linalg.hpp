/// @file
/// ndcuda's linear algebra: matmul, dot, einsum, ... (nd::) and nd::linalg's solvers, on cuBLAS,
/// cuBLASLt and cuSOLVER. Include this header and link ndcuda::linalg (plain C++, no nvcc).
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <ndcuda/linalg/einsum.hpp>
#include <ndcuda/linalg/linalg_error.hpp>
#include <ndcuda/linalg/products.hpp>
#include <ndcuda/linalg/solvers.hpp>
#include <ndcuda/linalg/statistics.hpp>
#include <ndcuda/ndcuda.hpp>

#pragma GCC visibility pop
