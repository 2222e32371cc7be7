/// @file
/// ndcuda's nd::fft (NumPy's numpy.fft) on cuFFT with a per-device plan cache. Include this header
/// and link ndcuda::linalg (which also holds the FFTs); plain C++, no nvcc.
#pragma once

#include <ndcuda/fft/fft.hpp>
#include <ndcuda/ndcuda.hpp>
