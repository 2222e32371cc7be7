/// @file
/// ndarray<T>: a strided, refcounted view of device memory with NumPy's reference semantics, its
/// views (indexing, reshape, transpose, broadcast) and host I/O. This header gathers its parts: the
/// class (array/ndarray_class.hpp), its element writes (array/ndarray_writes.hpp), host I/O
/// (array/ndarray_host_io.hpp), printing (array/printing.hpp) and free functions
/// (array/view_functions.hpp).
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <ndcuda/array/ndarray_class.hpp>
#include <ndcuda/array/ndarray_host_io.hpp>
#include <ndcuda/array/ndarray_writes.hpp>
#include <ndcuda/array/printing.hpp>
#include <ndcuda/array/view_functions.hpp>

#pragma GCC visibility pop
