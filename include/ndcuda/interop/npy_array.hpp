/// @file
/// save_npy/load_npy: ndarray<T> to and from NumPy .npy files, like np.save and np.load.
/// Builds on interop/npy.hpp (the host-side format) and array/ (to_host, asarray).
#pragma once

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <memory>
#include <ndcuda/array/creation.hpp>
#include <ndcuda/array/ndarray.hpp>
#include <ndcuda/core/detail/nvtx.hpp>
#include <ndcuda/interop/npy.hpp>
#include <new>
#include <optional>
#include <span>
#include <type_traits>

namespace ndcuda {

/// Writes `a` as a .npy file that np.load reads back with the same dtype and shape (always C order,
/// little-endian, format 1.0: byte-identical to np.save of the same data). Synchronises a's stream.
/// Throws io_error for bfloat16 (no NumPy dtype: convert to float32 first) or an unwritable path.
template <array_element T>
void save_npy(const std::filesystem::path& path, const ndarray<T>& a) {
  const ndcuda::detail::op_range<"nd::save_npy"> nvtx;
  using value_type = std::remove_cv_t<T>;
  const npy_header header{dtype_of<T>, a.shape(), false};
  (void)npy_descr(header.type);  // refuse bfloat16 before paying for the transfer
  const auto host = a.to_host();
  if constexpr (std::is_same_v<value_type, bool>) {
    // to_host() gives std::vector<bool>, which has no contiguous storage: spell each element as a byte.
    std::unique_ptr<std::uint8_t[]> bytes(new std::uint8_t[host.size()]);
    std::transform(host.begin(), host.end(), bytes.get(), [](bool b) { return static_cast<std::uint8_t>(b); });
    write_npy_bytes(path, header, bytes.get(), host.size());
  } else {
    write_npy_bytes(path, header, host.data(), host.size() * sizeof(value_type));
  }
}

/// Reads a .npy file into a new ndarray<T> on `s` (or the current device's default stream), like
/// np.load. The file's dtype must be T's: no silent conversion. Big-endian files are byte-swapped
/// and Fortran-ordered files transposed on the host, so the array always holds the logical values.
template <array_element T>
[[nodiscard]] ndarray<std::remove_cv_t<T>> load_npy(const std::filesystem::path& path, std::optional<stream> s = {}) {
  const ndcuda::detail::op_range<"nd::load_npy"> nvtx;
  using value_type = std::remove_cv_t<T>;
  npy_file file = read_npy(path);
  if (file.header.type != dtype_of<T>) {
    throw io_error(npy_dtype_mismatch_message(path, file.header.type, dtype_of<T>));
  }
  if (file.header.fortran_order) {
    file.data = npy_fortran_to_c_order(file.data, file.header.shape, sizeof(value_type));
  }
  const std::size_t count = file.data.size() / sizeof(value_type);
  // Copied into a typed buffer rather than cast: the bytes are not value_type objects, and a bool
  // must be exactly 0 or 1 (NumPy writes 0/1; any other byte is taken as true, as NumPy reads it).
  std::unique_ptr<value_type[]> values(new (std::nothrow) value_type[count]);
  if (values == nullptr) {
    throw out_of_memory("load_npy(" + path.string() + ") needs " + std::to_string(file.data.size()) +
                        " more bytes of host memory to stage the data, and the host has no room for them; free host "
                        "memory or load a smaller array");
  }
  if constexpr (std::is_same_v<value_type, bool>) {
    std::transform(file.data.begin(), file.data.end(), values.get(), [](std::byte b) { return b != std::byte{0}; });
  } else if (count != 0) {
    std::memcpy(static_cast<void*>(values.get()), file.data.data(), file.data.size());
  }
  return asarray<value_type>(std::span<const value_type>(values.get(), count), std::move(file.header.shape),
                             std::move(s));
}

}  // namespace ndcuda
