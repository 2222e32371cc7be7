// A host model of the fixed summation order of nd::deterministic (kernels/deterministic_sum.cuh),
// written from the order's definition, not from the kernel: the GPU result must equal it bit for
// bit, since every step is an IEEE double addition in a fixed order.
#pragma once

#include <array>
#include <cstddef>
#include <vector>

namespace ndcuda::testing {

constexpr std::size_t deterministic_threads = 256;
constexpr std::size_t deterministic_lanes = 4;
constexpr std::size_t deterministic_block_elements = std::size_t{1} << 14;

/// Thread t adds elements t, t + 256, ... into running sum (its j-th element) % 4; the four sums
/// pairwise; then within each warp v[t] += v[t + offset] for offsets 16, 8, 4, 2, 1 (lane 0 keeps
/// the warp's sum), then the same over the 8 warp sums with offsets 4, 2, 1.
template <class T>
double fixed_order_sum(const T* x, std::size_t len) {
  std::vector<double> v(deterministic_threads);
  for (std::size_t t = 0; t < deterministic_threads; ++t) {
    std::array<double, deterministic_lanes> acc{};
    std::size_t j = 0;
    for (std::size_t i = t; i < len; i += deterministic_threads, ++j) {
      acc[j % deterministic_lanes] += static_cast<double>(x[i]);
    }
    v[t] = (acc[0] + acc[1]) + (acc[2] + acc[3]);
  }
  std::vector<double> warps(deterministic_threads / 32);
  for (std::size_t w = 0; w < warps.size(); ++w) {
    double* lane = v.data() + 32 * w;
    for (std::size_t offset = 16; offset > 0; offset /= 2) {
      for (std::size_t t = 0; t < offset; ++t) {
        lane[t] += lane[t + offset];
      }
    }
    warps[w] = lane[0];
  }
  for (std::size_t offset = warps.size() / 2; offset > 0; offset /= 2) {
    for (std::size_t t = 0; t < offset; ++t) {
      warps[t] += warps[t + offset];
    }
  }
  return warps[0];
}

/// The deterministic sum (divisor 1) or mean (divisor n) of x, rounded once to T.
template <class T>
T deterministic_reference(const std::vector<T>& x, double divisor) {
  std::vector<double> blocks;
  for (std::size_t b = 0; b < x.size(); b += deterministic_block_elements) {
    blocks.push_back(fixed_order_sum(x.data() + b, std::min(deterministic_block_elements, x.size() - b)));
  }
  return static_cast<T>(fixed_order_sum(blocks.data(), blocks.size()) / divisor);
}

}  // namespace ndcuda::testing
