/// @file
/// save_npy/load_npy: ndarray<T> to and from NumPy .npy files, like np.save and np.load.
/// Builds on interop/npy.hpp (the host-side format) and array/ (to_host, asarray).
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <memory>
#include <ndcuda/array/creation.hpp>
#include <ndcuda/array/ndarray.hpp>
#include <ndcuda/array/view_functions.hpp>
#include <ndcuda/core/detail/nvtx.hpp>
#include <ndcuda/interop/npy.hpp>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace ndcuda {

namespace detail {

/// `a`'s elements on the host as an .npy would hold them (C order, little-endian, bool as bytes 0/1),
/// with their header. Synchronises a's stream. io_error for bfloat16, before paying for the transfer.
template <array_element T>
[[nodiscard]] npy_file npy_file_of(const ndarray<T>& a) {
  using value_type = std::remove_cv_t<T>;
  npy_file file{{dtype_of<T>, a.shape(), false}, {}};
  (void)npy_descr(file.header.type);
  const auto host = a.to_host();
  file.data.resize(host.size() * sizeof(value_type));
  if constexpr (std::is_same_v<value_type, bool>) {
    // to_host() gives std::vector<bool>, which has no contiguous storage: spell each element as a byte.
    std::transform(host.begin(), host.end(), file.data.begin(), [](bool b) { return std::byte{b}; });
  } else if (!host.empty()) {
    std::memcpy(file.data.data(), host.data(), file.data.size());
  }
  return file;
}

/// A new ndarray<T> on `s` holding C-ordered little-endian `bytes` of `shape` (bool as bytes).
template <array_element T>
[[nodiscard]] ndarray<std::remove_cv_t<T>> ndarray_from_bytes(std::span<const std::byte> bytes, shape_t shape,
                                                              const std::string& source, std::optional<stream> s) {
  using value_type = std::remove_cv_t<T>;
  const std::size_t count = bytes.size() / sizeof(value_type);
  // Copied into a typed buffer rather than cast: the bytes are not value_type objects, and a bool
  // must be exactly 0 or 1 (NumPy writes 0/1; any other byte is taken as true, as NumPy reads it).
  std::unique_ptr<value_type[]> values(new (std::nothrow) value_type[count]);
  if (values == nullptr) {
    throw out_of_memory(source + " needs " + std::to_string(bytes.size()) +
                        " more bytes of host memory to stage the data, and the host has no room for them; free host "
                        "memory or load a smaller array");
  }
  if constexpr (std::is_same_v<value_type, bool>) {
    std::transform(bytes.begin(), bytes.end(), values.get(), [](std::byte b) { return b != std::byte{0}; });
  } else if (count != 0) {
    std::memcpy(static_cast<void*>(values.get()), bytes.data(), count * sizeof(value_type));
  }
  return asarray<value_type>(std::span<const value_type>(values.get(), count), std::move(shape), std::move(s));
}

/// A new ndarray<T> from what read_npy or read_npz gave: Fortran order transposed on the host.
template <array_element T>
[[nodiscard]] ndarray<std::remove_cv_t<T>> ndarray_from_npy(const npy_file& file, const std::string& source,
                                                            std::optional<stream> s) {
  if (file.header.fortran_order) {
    const std::vector<std::byte> c_order =
        npy_fortran_to_c_order(file.data, file.header.shape, sizeof(std::remove_cv_t<T>));
    return ndarray_from_bytes<T>(c_order, file.header.shape, source, std::move(s));
  }
  return ndarray_from_bytes<T>(file.data, file.header.shape, source, std::move(s));
}

}  // namespace detail

/// Writes `a` as a .npy file that np.load reads back with the same dtype and shape (always C order,
/// little-endian, format 1.0: byte-identical to np.save of the same data). Synchronises a's stream.
/// Throws io_error for bfloat16 (no NumPy dtype: convert to float32 first) or an unwritable path.
template <array_element T>
void save_npy(const std::filesystem::path& path, const ndarray<T>& a) {
  const ndcuda::detail::op_range<"nd::save_npy"> nvtx;
  const npy_file file = detail::npy_file_of(a);
  write_npy_bytes(path, file.header, file.data.data(), file.data.size());
}

/// save_npy of a lazy value: computed first, in its own dtype.
template <array_expression X>
void save_npy(const std::filesystem::path& path, const X& x) {
  save_npy(path, detail::computed(x));
}

/// Reads a .npy file into a new ndarray<T> on `s` (or the current device's default stream), like
/// np.load. The file's dtype must be T's: no silent conversion. Big-endian files are byte-swapped
/// and Fortran-ordered files transposed on the host, so the array always holds the logical values.
template <array_element T>
[[nodiscard]] ndarray<std::remove_cv_t<T>> load_npy(const std::filesystem::path& path, std::optional<stream> s = {}) {
  const ndcuda::detail::op_range<"nd::load_npy"> nvtx;
  const npy_file file = read_npy(path);
  if (file.header.type != dtype_of<T>) {
    throw io_error(npy_dtype_mismatch_message(path, file.header.type, dtype_of<T>));
  }
  return detail::ndarray_from_npy<T>(file, "load_npy(" + path.string() + ")", std::move(s));
}

}  // namespace ndcuda

#pragma GCC visibility pop
