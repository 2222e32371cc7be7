/// @file
/// nd::random::generator, spelled as NumPy's Generator, with every member defined: the class
/// (random/generator_class.hpp) and its sampling and shuffling members (random/shuffling.hpp).
/// Include this header (or <ndcuda/random.hpp>) to use a generator.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <ndcuda/random/generator_class.hpp>  // IWYU pragma: export
#include <ndcuda/random/shuffling.hpp>        // IWYU pragma: export

#pragma GCC visibility pop
