/// @file
/// Lazy elementwise expressions on ndarray: operators, ufuncs, where/clip and nd::eval, each tree
/// evaluated by one fused JIT kernel on assignment. Builds on every ops/ header it includes.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <ndcuda/expr/evaluate.hpp>
#include <ndcuda/ops/functions.hpp>
#include <ndcuda/ops/operators.hpp>

#pragma GCC visibility pop
