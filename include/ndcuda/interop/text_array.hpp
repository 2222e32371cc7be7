/// @file
/// np.savetxt and np.loadtxt for ndarrays (1-d and 2-d, real numbers).
/// Builds on interop/text_io.hpp (the host side) and npy_array.hpp (host copies and uploads).
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <filesystem>
#include <ndcuda/array/view_functions.hpp>
#include <ndcuda/interop/npy_array.hpp>
#include <ndcuda/interop/text_io.hpp>
#include <optional>
#include <utility>

namespace ndcuda {

/// np.savetxt: writes a 1-d (one value a line) or 2-d (one row a line) array as text, e.g.
/// `nd::savetxt("a.csv", a, {.fmt = "%.6g", .delimiter = ","})`. Synchronises a's stream. io_error
/// for other ndims, complex arrays or a fmt that is not printf conversions for numbers.
template <array_element T>
void savetxt(const std::filesystem::path& path, const ndarray<T>& a, const savetxt_options& options = {}) {
  const ndcuda::detail::op_range<"nd::savetxt"> nvtx;
  if (a.ndim() < 1 || a.ndim() > 2) {
    savetxt_bytes(path, dtype_of<T>, a.shape(), nullptr, options);  // throws NumPy's message
  }
  const npy_file host = detail::npy_file_of(a);
  savetxt_bytes(path, host.header.type, host.header.shape, host.data.data(), options);
}

/// np.savetxt of a lazy value: computed first, in its own dtype.
template <array_expression X>
void savetxt(const std::filesystem::path& path, const X& x, const savetxt_options& options = {}) {
  savetxt(path, detail::computed(x), options);
}

/// np.loadtxt: a new ndarray<T> (float64 by default, as NumPy) from a text file of numbers, e.g.
/// `nd::loadtxt<float>("a.csv", {.delimiter = ",", .skiprows = 1, .usecols = {0, 2}})`. NumPy's shape
/// rules (a single row or column comes back 1-d unless ndmin says otherwise).
template <array_element T = double>
[[nodiscard]] ndarray<std::remove_cv_t<T>> loadtxt(const std::filesystem::path& path,
                                                   const loadtxt_options& options = {}, std::optional<stream> s = {}) {
  const ndcuda::detail::op_range<"nd::loadtxt"> nvtx;
  shape_t shape;
  const std::vector<std::byte> bytes = loadtxt_bytes(path, dtype_of<T>, options, shape);
  return detail::ndarray_from_bytes<T>(bytes, std::move(shape), "loadtxt(" + path.string() + ")", std::move(s));
}

}  // namespace ndcuda

#pragma GCC visibility pop
