// .npy reading and writing on the host, following numpy/lib/_format_impl.py so files are byte-identical.
#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>
#include <ndcuda/interop/npy.hpp>
#include <system_error>

#include "interop/type_names.hpp"

namespace ndcuda {
namespace {

constexpr std::string_view npy_magic = "\x93NUMPY";
constexpr std::size_t npy_align = 64;  // NumPy's ARRAY_ALIGN
constexpr std::size_t growth_axis_max_digits = 21;

std::string quoted(const std::filesystem::path& path) {
  return "'" + path.string() + "'";
}

// A cursor over a Python literal dict: just enough of the grammar that ast.literal_eval accepts
// for NumPy headers (strings, True/False, tuples of integers).
class dict_parser {
 public:
  dict_parser(std::string_view text, std::string_view source) : text_(text), source_(source) {}

  npy_header parse() {
    npy_header header;
    bool seen_descr = false;
    bool seen_order = false;
    bool seen_shape = false;
    expect('{');
    while (true) {
      skip_space();
      if (peek() == '}') {
        break;
      }
      const std::string key = parse_string();
      expect(':');
      if (key == "descr") {
        skip_space();
        if (peek() == '[') {
          fail("holds a structured dtype (descr is a list of fields); ndcuda arrays hold plain numbers only");
        }
        const std::string descr = parse_string();
        const npy_descr_info info = parse_npy_descr(descr);
        header.type = info.type;
        big_endian_ = info.big_endian;
        seen_descr = true;
      } else if (key == "fortran_order") {
        header.fortran_order = parse_bool();
        seen_order = true;
      } else if (key == "shape") {
        header.shape = parse_shape();
        seen_shape = true;
      } else {
        fail("has an unexpected key '" + key + "' in its header (expected descr, fortran_order, shape)");
      }
      skip_space();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() != '}') {
        fail_at("',' or '}'");
      }
    }
    ++pos_;
    skip_space();
    if (pos_ != text_.size()) {
      fail_at("the end of the header");
    }
    if (!seen_descr || !seen_order || !seen_shape) {
      fail("has a header without the keys descr, fortran_order and shape");
    }
    return header;
  }

  [[nodiscard]] bool big_endian() const noexcept { return big_endian_; }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw io_error(std::string(source_) + " " + what + ": not a valid .npy header: " + std::string(text_));
  }
  [[noreturn]] void fail_at(std::string_view expected) const {
    fail("has an unreadable header (expected " + std::string(expected) + " at offset " + std::to_string(pos_) + ")");
  }
  char peek() const noexcept { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  void skip_space() noexcept {
    while (pos_ < text_.size() &&
           (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' || text_[pos_] == '\r')) {
      ++pos_;
    }
  }
  void expect(char c) {
    skip_space();
    if (peek() != c) {
      fail_at(std::string("'") + c + "'");
    }
    ++pos_;
  }
  std::string parse_string() {
    skip_space();
    const char quote = peek();
    if (quote != '\'' && quote != '"') {
      fail_at("a quoted string");
    }
    const std::size_t end = text_.find(quote, pos_ + 1);
    if (end == std::string_view::npos) {
      fail_at("a closing quote");
    }
    std::string s(text_.substr(pos_ + 1, end - pos_ - 1));
    pos_ = end + 1;
    return s;
  }
  bool parse_bool() {
    skip_space();
    for (const auto& [word, value] :
         {std::pair{std::string_view("True"), true}, std::pair{std::string_view("False"), false}}) {
      if (text_.substr(pos_, word.size()) == word) {
        pos_ += word.size();
        return value;
      }
    }
    fail_at("True or False");
  }
  shape_t parse_shape() {
    expect('(');
    shape_t shape;
    while (true) {
      skip_space();
      if (peek() == ')') {
        break;
      }
      shape.push_back(parse_extent());
      skip_space();
      if (peek() == ',') {
        ++pos_;
      } else if (peek() != ')') {
        fail_at("',' or ')' in the shape");
      }
    }
    ++pos_;
    return shape;
  }
  index_t parse_extent() {
    if (peek() < '0' || peek() > '9') {
      fail_at("a non-negative integer in the shape");
    }
    index_t value = 0;
    while (peek() >= '0' && peek() <= '9') {
      const index_t digit = peek() - '0';
      if (value > (std::numeric_limits<index_t>::max() - digit) / 10) {
        fail("has a shape extent that does not fit in 64 bits");
      }
      value = value * 10 + digit;
      ++pos_;
    }
    if (peek() == 'L') {  // Python 2 long literal, in files written by NumPy under Python 2
      ++pos_;
    }
    return value;
  }

  std::string_view text_;
  std::string_view source_;
  std::size_t pos_ = 0;
  bool big_endian_ = false;
};

std::uint32_t read_le(const unsigned char* p, std::size_t n) noexcept {
  std::uint32_t v = 0;
  for (std::size_t i = n; i-- > 0;) {
    v = (v << 8) | p[i];
  }
  return v;
}

void byte_swap(std::vector<std::byte>& data, std::size_t unit) {
  if (unit <= 1) {
    return;
  }
  for (std::size_t i = 0; i + unit <= data.size(); i += unit) {
    std::reverse(data.begin() + static_cast<std::ptrdiff_t>(i), data.begin() + static_cast<std::ptrdiff_t>(i + unit));
  }
}

std::string system_message() {
  return std::error_code(errno, std::generic_category()).message();
}

}  // namespace

std::string npy_descr(dtype t) {
  switch (t) {
    case dtype::bool_:
      return "|b1";
    case dtype::int8:
      return "|i1";
    case dtype::int16:
      return "<i2";
    case dtype::int32:
      return "<i4";
    case dtype::int64:
      return "<i8";
    case dtype::uint8:
      return "|u1";
    case dtype::uint16:
      return "<u2";
    case dtype::uint32:
      return "<u4";
    case dtype::uint64:
      return "<u8";
    case dtype::float16:
      return "<f2";
    case dtype::float32:
      return "<f4";
    case dtype::float64:
      return "<f8";
    case dtype::complex64:
      return "<c8";
    case dtype::complex128:
      return "<c16";
    case dtype::bfloat16:
      break;
  }
  throw io_error(
      "bfloat16 has no NumPy .npy descr (NumPy needs the ml_dtypes package for it, and stores it as raw '<V2' "
      "bytes); convert the array to float32 before saving, which holds every bfloat16 value exactly");
}

npy_descr_info parse_npy_descr(std::string_view descr) {
  if (descr.size() >= 2 && (descr[0] == '<' || descr[0] == '>' || descr[0] == '|' || descr[0] == '=')) {
    const bool big = descr[0] == '>';
    const std::string_view code = descr.substr(1);
    for (dtype t : all_dtypes) {
      if (t != dtype::bfloat16 && std::string_view(npy_descr(t)).substr(1) == code) {
        return {t, big && itemsize(t) > 1};
      }
    }
  }
  throw io_error("the .npy descr '" + std::string(descr) +
                 "' names no ndcuda dtype (ndcuda reads booleans, integers, float16/32/64 and complex64/128)");
}

std::string format_npy_header_dict(const npy_header& header) {
  std::string dict = "{'descr': '" + npy_descr(header.type) +
                     "', 'fortran_order': " + (header.fortran_order ? "True" : "False") +
                     ", 'shape': " + format_shape(header.shape) + ", }";
  // NumPy leaves room for the growing axis to gain digits so the header can be rewritten in place.
  if (!header.shape.empty()) {
    const index_t growing = header.fortran_order ? header.shape.back() : header.shape.front();
    dict.append(growth_axis_max_digits - std::to_string(growing).size(), ' ');
  }
  return dict;
}

npy_header parse_npy_header_dict(std::string_view dict, std::string_view source) {
  return dict_parser(dict, source).parse();
}

std::string format_npy_preamble(const npy_header& header) {
  const std::string dict = format_npy_header_dict(header);
  const std::size_t dict_len = dict.size() + 1;  // with the final '\n'
  bool version2 = false;
  std::size_t length_bytes = 2;
  std::size_t pad = npy_align - (npy_magic.size() + 2 + length_bytes + dict_len) % npy_align;
  if (dict_len + pad > 0xffff) {
    version2 = true;
    length_bytes = 4;
    pad = npy_align - (npy_magic.size() + 2 + length_bytes + dict_len) % npy_align;
  }
  const std::size_t stored_len = dict_len + pad;
  std::string out(npy_magic);
  out += static_cast<char>(version2 ? 2 : 1);
  out += '\0';
  for (std::size_t i = 0; i < length_bytes; ++i) {
    out += static_cast<char>((stored_len >> (8 * i)) & 0xff);
  }
  out += dict;
  out.append(pad, ' ');
  out += '\n';
  return out;
}

std::size_t npy_data_bytes(const npy_header& header) {
  const auto count = static_cast<std::size_t>(shape_size(header.shape));
  const std::size_t item = itemsize(header.type);
  if (count > std::numeric_limits<std::size_t>::max() / item) {
    throw io_error("shape " + format_shape(header.shape) + " of " + std::string(name(header.type)) +
                   " needs more bytes than fit in size_t");
  }
  return count * item;
}

void write_npy_bytes(const std::filesystem::path& path, const npy_header& header, const void* data, std::size_t size) {
  const std::string preamble = format_npy_preamble(header);
  const std::size_t expected = npy_data_bytes(header);
  if (size != expected) {
    throw io_error("write_npy_bytes(" + quoted(path) + "): got " + std::to_string(size) + " bytes of data but shape " +
                   format_shape(header.shape) + " " + std::string(name(header.type)) + " needs " +
                   std::to_string(expected));
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) {
    throw io_error("cannot open " + quoted(path) + " for writing: " + system_message());
  }
  out.write(preamble.data(), static_cast<std::streamsize>(preamble.size()));
  if (size != 0) {
    out.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  out.flush();
  if (!out) {
    throw io_error("writing " + quoted(path) + " failed: " + system_message());
  }
}

npy_file read_npy(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw io_error("cannot read " + quoted(path) + " as a .npy file: it is a directory");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw io_error("cannot open " + quoted(path) + " for reading: " + system_message());
  }
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) {
    throw io_error("reading " + quoted(path) + " failed: " + system_message());
  }
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  if (bytes.size() < npy_magic.size() + 2 || std::string_view(bytes.data(), npy_magic.size()) != npy_magic) {
    throw io_error(quoted(path) + " is not a .npy file: " +
                   (bytes.empty() ? std::string("it is empty") : "it does not start with the magic \\x93NUMPY") +
                   " (np.save writes .npy files; .npz archives and np.savetxt text are other formats)");
  }
  const int major = p[6];
  const int minor = p[7];
  if ((major != 1 && major != 2 && major != 3) || minor != 0) {
    throw io_error(quoted(path) + " has .npy format version " + std::to_string(major) + "." + std::to_string(minor) +
                   "; ndcuda reads versions 1.0, 2.0 and 3.0");
  }
  const std::size_t length_bytes = major == 1 ? 2 : 4;
  const std::size_t dict_start = npy_magic.size() + 2 + length_bytes;
  if (bytes.size() < dict_start) {
    throw io_error(quoted(path) + " is truncated: it ends inside the .npy header length");
  }
  const std::size_t dict_len = read_le(p + 8, length_bytes);
  if (bytes.size() - dict_start < dict_len) {
    throw io_error(quoted(path) + " is truncated: its .npy header says " + std::to_string(dict_len) +
                   " bytes but the file holds " + std::to_string(bytes.size() - dict_start) + " after the preamble");
  }
  const std::string_view dict(bytes.data() + dict_start, dict_len);
  dict_parser parser(dict, quoted(path));
  npy_file file{parser.parse(), {}};
  const std::size_t needed = npy_data_bytes(file.header);
  const std::size_t held = bytes.size() - dict_start - dict_len;
  if (held < needed) {
    throw io_error(quoted(path) + " holds " + std::to_string(held) + " bytes of data but shape " +
                   format_shape(file.header.shape) + " " + std::string(name(file.header.type)) + " needs " +
                   std::to_string(needed) + " (the file is truncated)");
  }
  const auto* first = reinterpret_cast<const std::byte*>(bytes.data() + dict_start + dict_len);
  file.data.assign(first, first + needed);
  if (parser.big_endian()) {
    // Complex numbers are two floats, each swapped on its own.
    const std::size_t item = itemsize(file.header.type);
    byte_swap(file.data, is_complex(file.header.type) ? item / 2 : item);
  }
  return file;
}

std::vector<std::byte> npy_fortran_to_c_order(std::span<const std::byte> data, std::span<const index_t> shape,
                                              std::size_t itemsize) {
  const auto count = static_cast<std::size_t>(shape_size(shape));
  if (data.size() != count * itemsize) {
    throw io_error("npy_fortran_to_c_order: " + std::to_string(data.size()) + " bytes do not hold shape " +
                   format_shape(shape) + " of " + std::to_string(itemsize) + "-byte elements");
  }
  std::vector<std::byte> out(data.size());
  if (count == 0) {
    return out;
  }
  const std::size_t ndim = shape.size();
  std::vector<std::size_t> f_stride(ndim, 1);  // Fortran strides in elements
  for (std::size_t d = 1; d < ndim; ++d) {
    f_stride[d] = f_stride[d - 1] * static_cast<std::size_t>(shape[d - 1]);
  }
  std::vector<index_t> index(ndim, 0);
  std::size_t source = 0;
  for (std::size_t c = 0; c < count; ++c) {
    std::memcpy(out.data() + c * itemsize, data.data() + source * itemsize, itemsize);
    // Advance the C-order multi-index, innermost dimension fastest, tracking the Fortran offset.
    for (std::size_t d = ndim; d-- > 0;) {
      if (++index[d] < shape[d]) {
        source += f_stride[d];
        break;
      }
      source -= f_stride[d] * static_cast<std::size_t>(shape[d] - 1);
      index[d] = 0;
    }
  }
  return out;
}

std::string npy_dtype_mismatch_message(const std::filesystem::path& path, dtype held, dtype asked) {
  const std::string held_name(name(held));
  return quoted(path) + " holds " + held_name + ", load_npy<" + std::string(detail::cpp_type_name(asked)) +
         "> asked for " + std::string(name(asked)) + "; load it with load_npy<" +
         std::string(detail::cpp_type_name(held)) + "> or convert the array in NumPy with astype before saving";
}

}  // namespace ndcuda
