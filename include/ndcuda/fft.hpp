/// @file
/// ndcuda's nd::fft (NumPy's numpy.fft) on cuFFT with a per-device plan cache. Include this header
/// and link ndcuda::linalg (which also holds the FFTs); plain C++, no nvcc.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <ndcuda/fft/fft.hpp>
#include <ndcuda/ndcuda.hpp>

#pragma GCC visibility pop
