/// @file
/// NumPy's .npy file format on the host: header dict parsing and formatting, raw reads and writes.
/// Builds on core/dtype.hpp and core/shape.hpp only; interop/npy_array.hpp moves the bytes to and from ndarray.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <cstddef>
#include <filesystem>
#include <ndcuda/core/dtype.hpp>
#include <ndcuda/core/error.hpp>
#include <ndcuda/core/shape.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ndcuda {

/// A file could not be read or written, or does not hold what was asked for.
class io_error : public error {
 public:
  using error::error;
};

/// What a .npy header says about the data that follows it.
struct npy_header {
  dtype type = dtype::float64;  ///< the element type
  shape_t shape;                ///< the extent of each axis
  /// True when the data is stored in Fortran (column-major) order.
  bool fortran_order = false;

  friend bool operator==(const npy_header&, const npy_header&) = default;
};

/// The data of a .npy file, exactly as stored but always little-endian: big-endian files are byte-swapped
/// on read. Fortran-ordered data stays in Fortran order (see npy_fortran_to_c_order).
struct npy_file {
  npy_header header;            ///< what the header says
  std::vector<std::byte> data;  ///< the element bytes, little-endian, in the file's axis order
};

/// NumPy's descr of a dtype: "<f4", "|b1", "<c8", "<f2", "|u1", ... (little-endian, as on every
/// CUDA host). Throws io_error for bfloat16, which has no NumPy descr: NumPy itself cannot read it
/// without ml_dtypes, whose "<V2" void descr loses the type anyway.
[[nodiscard]] std::string npy_descr(dtype t);

/// The dtype of a descr with its byte order ('<', '>', '|' or '='). Throws io_error for descrs
/// ndcuda has no dtype for (strings, objects, structured or datetime types, long double).
struct npy_descr_info {
  dtype type;       ///< the dtype
  bool big_endian;  ///< '>': the data must be byte-swapped on this (little-endian) host
};
/// Parses a descr ("<f4") into its dtype and byte order; io_error for one ndcuda has no dtype for.
[[nodiscard]] npy_descr_info parse_npy_descr(std::string_view descr);

/// The header dict as NumPy writes it, without the preamble or padding:
/// "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }" plus NumPy's spare spaces.
[[nodiscard]] std::string format_npy_header_dict(const npy_header& header);

/// Parses a header dict as written by NumPy or any writer that produces a Python literal dict with
/// the keys descr, fortran_order and shape, in any order. Throws io_error naming `source`.
[[nodiscard]] npy_header parse_npy_header_dict(std::string_view dict, std::string_view source = "header");

/// The whole preamble NumPy's np.save writes for this header: magic, version, header length, dict,
/// padding to a multiple of 64 bytes and '\n'. Version 1.0 unless the header needs more than
/// 65535 bytes, then 2.0; byte-identical to np.save.
[[nodiscard]] std::string format_npy_preamble(const npy_header& header);

/// Bytes of data a header describes: product of the shape times the itemsize. Throws on overflow.
[[nodiscard]] std::size_t npy_data_bytes(const npy_header& header);

/// Writes a .npy file: the preamble for `header`, then `size` bytes of little-endian data in the
/// header's order. `size` must equal npy_data_bytes(header). Throws io_error when the file cannot
/// be written.
void write_npy_bytes(const std::filesystem::path& path, const npy_header& header, const void* data, std::size_t size);

/// Reads a .npy file of format version 1.0, 2.0 or 3.0. Throws io_error for anything that is not
/// a complete .npy file of a supported dtype, naming the file and what was wrong. Bytes after the
/// data are ignored, as NumPy does.
[[nodiscard]] npy_file read_npy(const std::filesystem::path& path);

/// Reorders Fortran-ordered elements of `shape` into C order (a host transpose), so that callers
/// can hand C-ordered data to an ndarray.
[[nodiscard]] std::vector<std::byte> npy_fortran_to_c_order(std::span<const std::byte> data,
                                                            std::span<const index_t> shape, std::size_t itemsize);

/// The message load_npy<T> throws when a file holds another dtype than T.
[[nodiscard]] std::string npy_dtype_mismatch_message(const std::filesystem::path& path, dtype held, dtype asked);

}  // namespace ndcuda

#pragma GCC visibility pop
