/// @file
/// ndcuda's file I/O in NumPy's formats: `.npy` (save_npy, load_npy, read_npy), `.npz` (save, load,
/// savez, savez_compressed, load_npz) and text (savetxt, loadtxt). Kept out of <ndcuda/ndcuda.hpp>,
/// as linear algebra and FFT are: `<filesystem>` and the formats' templates were a fifth of the
/// umbrella's compile time (docs/performance.md, "Header cost").
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <ndcuda/interop/npy.hpp>
#include <ndcuda/interop/npy_array.hpp>
#include <ndcuda/interop/npz_array.hpp>
#include <ndcuda/interop/text_array.hpp>
#include <ndcuda/ndcuda.hpp>

#pragma GCC visibility pop
