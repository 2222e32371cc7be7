/// @file
/// NumPy's random Generator on the GPU: nd::random::default_rng(seed) and its distributions, whose
/// draws fuse into expressions and reductions. Builds on random/{generator,shuffling}.hpp.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <ndcuda/random/generator.hpp>
#include <ndcuda/random/shuffling.hpp>

#pragma GCC visibility pop
