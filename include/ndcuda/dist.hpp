/// @file
/// ndcuda's distributed layer: distributed_array<T> over several GPUs, communicating through NCCL.
/// Include this header and link ndcuda::dist (built when CMake finds NCCL).
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <ndcuda/dist/accumulate_at.hpp>
#include <ndcuda/dist/communicator.hpp>
#include <ndcuda/dist/creation.hpp>
#include <ndcuda/dist/deterministic.hpp>
#include <ndcuda/dist/distributed_array.hpp>
#include <ndcuda/dist/expression.hpp>
#include <ndcuda/dist/indexing.hpp>
#include <ndcuda/dist/movement.hpp>
#include <ndcuda/dist/random.hpp>
#include <ndcuda/dist/reductions.hpp>
#include <ndcuda/dist/sets.hpp>
#include <ndcuda/dist/sharding.hpp>
#include <ndcuda/dist/sorting.hpp>

#pragma GCC visibility pop
