/// @file
/// distributed_array<T> with every member defined: the class (dist/distributed_array_class.hpp)
/// and its movement members (dist/movement.hpp). Creation and operations live in their own headers
/// (dist/{creation,expression,reductions,random}.hpp; <ndcuda/dist.hpp> brings them all).
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <ndcuda/dist/distributed_array_class.hpp>  // IWYU pragma: export
#include <ndcuda/dist/movement.hpp>                 // IWYU pragma: export

#pragma GCC visibility pop
