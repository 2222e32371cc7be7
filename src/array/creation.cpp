// The host arithmetic of arange: lengths and int64 sequences checked before anything is allocated.
#include <cmath>
#include <ndcuda/array/creation.hpp>
#include <ndcuda/core/checked_size.hpp>
#include <ndcuda/core/error.hpp>
#include <string>

namespace ndcuda::detail {
namespace {

// 2^63 as a double: the first value that no int64 holds.
constexpr double two_to_63 = 9223372036854775808.0;

bool fits_int64(double v) {
  return v >= -two_to_63 && v < two_to_63;  // false for NaN and infinities too
}

std::string describe(double start, double stop, double step) {
  return "arange(" + std::to_string(start) + ", " + std::to_string(stop) + ", " + std::to_string(step) + ")";
}

}  // namespace

index_t arange_count(double start, double stop, double step) {
  const double count = std::ceil((stop - start) / step);
  if (std::isnan(count)) {
    throw shape_error("arange: cannot compute length: " + describe(start, stop, step) +
                      " involves NaN or infinite bounds (NumPy: arange: cannot compute length)");
  }
  if (count <= 0) {
    return 0;
  }
  if (!fits_int64(count)) {
    throw shape_error("Maximum allowed size exceeded: " + describe(start, stop, step) +
                      " would have more than 2^63-1 values; use finite bounds closer together or a larger step");
  }
  return static_cast<index_t>(count);
}

int64_sequence arange_int64(double start, double step, index_t n) {
  if (n <= 0) {
    return {0, 0};
  }
  index_t last = 0;
  const bool ok = fits_int64(start) && fits_int64(step) && try_mul(static_cast<index_t>(step), n - 1, last) &&
                  try_add(static_cast<index_t>(start), last, last);
  if (!ok) {
    throw shape_error("arange: an integer sequence of " + std::to_string(n) + " values from " + std::to_string(start) +
                      " in steps of " + std::to_string(step) +
                      " does not fit int64; use a floating-point dtype or smaller bounds");
  }
  return {static_cast<std::int64_t>(start), static_cast<std::int64_t>(step)};
}

}  // namespace ndcuda::detail
