// The .npy header: descr strings, the header dict as NumPy formats and parses it, and the preamble.
#include <algorithm>
#include <limits>
#include <ndcuda/interop/npy.hpp>
#include <string>
#include <utility>

#include "interop/npy_detail.hpp"

namespace ndcuda {
namespace {

constexpr std::size_t npy_align = 64;  // NumPy's ARRAY_ALIGN
constexpr std::size_t growth_axis_max_digits = 21;

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
        fail("has an unexpected key '" + detail::quote_npy_text(key) +
             "' in its header (expected descr, fortran_order, shape)");
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
    throw io_error(std::string(source_) + " " + what + ": not a valid .npy header: " + detail::quote_npy_text(text_));
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

}  // namespace

std::string detail::quote_npy_text(std::string_view text) {
  std::string out;
  const std::size_t shown = std::min(text.size(), npy_max_quoted_chars);
  for (const char c : text.substr(0, shown)) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte < 0x7f) {
      out += c;
    } else {
      // A hostile header must not put terminal escapes or raw binary into a log.
      constexpr std::string_view hex = "0123456789abcdef";
      out += "\\x";
      out += hex[byte >> 4];
      out += hex[byte & 0xf];
    }
  }
  if (shown < text.size()) {
    out += "... (" + std::to_string(text.size()) + " bytes in all)";
  }
  return out;
}

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
  throw io_error("the .npy descr '" + detail::quote_npy_text(descr) +
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

npy_header detail::parse_npy_header_dict(std::string_view dict, std::string_view source, bool& big_endian) {
  dict_parser parser(dict, source);
  npy_header header = parser.parse();
  big_endian = parser.big_endian();
  return header;
}

std::string format_npy_preamble(const npy_header& header) {
  const std::string dict = format_npy_header_dict(header);
  const std::size_t dict_len = dict.size() + 1;  // with the final '\n'
  bool version2 = false;
  std::size_t length_bytes = 2;
  std::size_t pad = npy_align - (detail::npy_magic.size() + 2 + length_bytes + dict_len) % npy_align;
  if (dict_len + pad > 0xffff) {
    version2 = true;
    length_bytes = 4;
    pad = npy_align - (detail::npy_magic.size() + 2 + length_bytes + dict_len) % npy_align;
  }
  const std::size_t stored_len = dict_len + pad;
  std::string out(detail::npy_magic);
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
}  // namespace ndcuda
