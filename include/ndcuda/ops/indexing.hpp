/// @file
/// NumPy's advanced indexing: a(idx), a(mask), a(i, nd::all, j) with integer arrays, masks and host
/// lists, read as a copy (gather) and written by scatter; nd::add_at and friends. This header
/// gathers its parts: the proxy nd::indexed (ops/indexed.hpp), a(mask, nd::size(k), fill)
/// (ops/detail/sized_mask_read.hpp) and ufunc.at (ops/accumulate_at.hpp).
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <ndcuda/ops/accumulate_at.hpp>
#include <ndcuda/ops/detail/sized_mask_read.hpp>
#include <ndcuda/ops/indexed.hpp>

#pragma GCC visibility pop
