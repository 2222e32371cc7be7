// Planning of nd::fft calls without a device: NumPy's n / s / axes / norm rules, checked with
// NumPy's messages. Builds on core/shape.hpp; implemented in src/fft/fft_plan.cpp, tested on the CPU.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <ndcuda/core/shape.hpp>
#include <optional>
#include <string_view>
#include <vector>

namespace ndcuda::fft::detail {

/// numpy.fft's norm: which direction is scaled by 1/n ("backward": the inverse, the default),
/// both by 1/sqrt(n) ("ortho"), or the forward one ("forward").
enum class norm_mode { backward, ortho, forward };

/// Parses NumPy's spelling; anything else throws error with NumPy's message.
[[nodiscard]] norm_mode parse_norm(std::string_view norm);
/// "backward" <-> "forward" (hfft/ihfft are irfft/rfft with the directions swapped).
[[nodiscard]] norm_mode swap_direction(norm_mode m) noexcept;
/// The factor a transform of `n` logical points is multiplied by.
[[nodiscard]] double scale_for(norm_mode m, bool inverse, double n) noexcept;

/// The transformed axes (normalised, in the order given) and each one's length n (the input is
/// cropped or zero-padded to it; for c2r transforms the last one is the output length).
struct axes_plan {
  std::vector<int> axes;
  shape_t lengths;
};

/// fftn's rule: s and axes default to each other (s without axes: the last len(s) axes; axes
/// without s: their extents; neither: every axis). `half_last`: irfftn, whose default last
/// length is 2 * (m - 1). `what` names the function in messages.
[[nodiscard]] axes_plan plan_axes(std::span<const index_t> shape, const std::optional<shape_t>& s,
                                  const std::optional<std::vector<index_t>>& axes, bool half_last, const char* what);

/// The one-axis form (fft, rfft, irfft, ...): n defaults to the axis' extent (2 * (m - 1) when
/// half_last).
[[nodiscard]] axes_plan plan_axis(std::span<const index_t> shape, std::optional<index_t> n, index_t axis,
                                  bool half_last, const char* what);

}  // namespace ndcuda::fft::detail

#pragma GCC visibility pop
