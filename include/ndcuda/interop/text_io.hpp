/// @file
/// Text files of numbers on the host, like np.savetxt and np.loadtxt for 1-d and 2-d real arrays.
/// Builds on core/ (dtype, shape, errors) and interop/npy.hpp (io_error); text_array.hpp moves ndarrays.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <cstddef>
#include <filesystem>
#include <ndcuda/core/dtype.hpp>
#include <ndcuda/core/shape.hpp>
#include <ndcuda/interop/npy.hpp>
#include <optional>
#include <string>
#include <vector>

namespace ndcuda {

/// np.savetxt's options, with NumPy's defaults: `nd::savetxt(path, a, {.fmt = "%.3f", .delimiter = ","})`.
struct savetxt_options {
  /// One printf conversion for every value ("%.18e", "%d", "%10.4f", "%x"), or a whole row with one
  /// conversion per column ("%d, %.2f"), which then ignores `delimiter`. `%%` is a literal percent sign.
  std::string fmt = "%.18e";
  std::string delimiter = " ";  ///< between the values of a row
  std::string newline = "\n";   ///< after each row, header line and footer line
  std::string header{};         ///< written first, each of its lines after `comments`
  std::string footer{};         ///< written last, each of its lines after `comments`
  std::string comments = "# ";  ///< what starts header and footer lines
};

/// np.loadtxt's options, with NumPy's defaults: `nd::loadtxt<float>(path, {.delimiter = ",", .skiprows = 1})`.
struct loadtxt_options {
  /// What separates values; none (the default) means any run of whitespace.
  std::optional<std::string> delimiter{};
  index_t skiprows = 0;            ///< lines skipped at the start of the file, comments included
  std::vector<index_t> usecols{};  ///< the columns kept, in this order (negative counts from the end); all when empty
  std::string comments = "#";      ///< starts a comment, up to the end of the line; none when empty
  int ndmin = 0;                   ///< at least this many dimensions (0, 1 or 2), as NumPy pads them
};

/// Writes `shape` (1-d: one value a line; 2-d: one row a line) elements of `type` from `data` (C order,
/// host memory; bool as one byte 0/1) as np.savetxt does. Throws value_error-like io_error for 0-d or
/// more than 2-d arrays, complex data, or a `fmt` that is not printf conversions for numbers.
void savetxt_bytes(const std::filesystem::path& path, dtype type, const shape_t& shape, const void* data,
                   const savetxt_options& options);

/// Parses a text file as np.loadtxt does into elements of `type` (C order, host; bool as bytes 0/1), and
/// sets `shape` to NumPy's result shape (squeezed, then padded to `ndmin`). Throws io_error naming the
/// line and column of a value that does not parse, or a row with another number of columns.
[[nodiscard]] std::vector<std::byte> loadtxt_bytes(const std::filesystem::path& path, dtype type,
                                                   const loadtxt_options& options, shape_t& shape);

}  // namespace ndcuda

#pragma GCC visibility pop
