/// @file
/// Shapes and strides (in elements, int64) and NumPy's broadcasting and axis rules.
/// Builds on core/error.hpp; pure host logic, shared by every array and kernel generator.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <cstdint>
#include <initializer_list>
#include <iosfwd>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace ndcuda {

/// Extents, strides, indices and sizes: int64, as NumPy's intp on 64-bit hosts.
using index_t = std::int64_t;
/// Extents of each dimension, outermost first (C order), like NumPy's `shape`: a std::vector of
/// int64 in every way, with its own name in namespace ndcuda so that `std::cout << x.shape()`
/// finds the operator<< below, which prints NumPy's "(3, 4)".
struct shape_t : std::vector<index_t> {
  using std::vector<index_t>::vector;
  shape_t() = default;
  /// From strides or any vector of extents.
  shape_t(const std::vector<index_t>& v) : std::vector<index_t>(v) {}  // NOLINT: a vector of extents is a shape
  /// From strides or any vector of extents.
  shape_t(std::vector<index_t>&& v) noexcept : std::vector<index_t>(std::move(v)) {}  // NOLINT: as above
};
/// Distance between neighbours along each dimension, in elements (NumPy uses bytes). May be zero
/// (broadcast) or negative (reversed views).
using strides_t = std::vector<index_t>;

/// NumPy's textual form: "(3, 4)", "(5,)", "()".
[[nodiscard]] std::string format_shape(std::span<const index_t> shape);
/// Prints format_shape(shape): "(3, 4)".
std::ostream& operator<<(std::ostream& os, const shape_t& shape);

/// Number of elements; 1 for a 0-d shape. Throws shape_error on a negative extent or when the
/// product of the non-zero extents overflows int64 (NumPy refuses (2**40, 2**40, 0) too). Byte
/// counts go through core/checked_size.hpp.
[[nodiscard]] index_t shape_size(std::span<const index_t> shape);

/// Strides of a C-contiguous (row-major) array of this shape, in elements.
[[nodiscard]] strides_t c_strides(std::span<const index_t> shape);

/// True when `strides` describe a C-contiguous layout of `shape` (extent-1 dims may have any stride).
[[nodiscard]] bool is_c_contiguous(std::span<const index_t> shape, std::span<const index_t> strides);

/// The broadcast shape of several operands, NumPy's right-aligned rule. Throws shape_error with
/// NumPy's message: "operands could not be broadcast together with shapes (3,4) (5,)".
[[nodiscard]] shape_t broadcast_shapes(std::initializer_list<std::span<const index_t>> shapes);
/// The broadcast shape of two shapes, or shape_error with NumPy's message.
[[nodiscard]] shape_t broadcast_shapes(std::span<const index_t> a, std::span<const index_t> b);

/// Strides that view an array of `shape`/`strides` as `target` (zero stride on broadcast dims).
/// Throws shape_error when `shape` cannot broadcast to `target` (NumPy's broadcast_to message).
[[nodiscard]] strides_t broadcast_strides(std::span<const index_t> shape, std::span<const index_t> strides,
                                          std::span<const index_t> target);

/// Throws shape_error with NumPy's assignment message, "could not broadcast input array from shape
/// (3,4) into shape (3,1)", unless a value of shape `source` broadcasts to `target`: the one check
/// of every write into existing memory (array and expression assignment).
void check_assignable(std::span<const index_t> source, std::span<const index_t> target);

/// Maps a possibly negative axis into [0, ndim). Throws shape_error with NumPy's AxisError text:
/// "axis 2 is out of bounds for array of dimension 2".
[[nodiscard]] int normalize_axis(index_t axis, int ndim);

/// Normalises a set of axes (each as above) and rejects repeats (NumPy: "duplicate value in 'axis'").
[[nodiscard]] std::vector<int> normalize_axes(std::span<const index_t> axes, int ndim);

}  // namespace ndcuda

#pragma GCC visibility pop
