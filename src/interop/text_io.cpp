// np.savetxt and np.loadtxt on host buffers: printf-style formats checked before use (a format is
// never handed to snprintf unparsed), and a line parser with NumPy's shapes and error texts.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <ndcuda/interop/text_io.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

#include "core/untrusted_files.hpp"

namespace ndcuda {
using detail::file_problem;
using detail::replacing_writer;
namespace {

std::string quoted(const std::filesystem::path& path) {
  return "'" + path.string() + "'";
}

// ---- savetxt ---------------------------------------------------------------------------------------

// One piece of a row format: literal text, or a conversion with its C spelling minus the letter.
struct fmt_piece {
  std::string text;  // literal text, or flags/width/precision of a conversion ("%-08.3")
  char conv = 0;     // 0 for literal text; else one of diouxXeEfFgG
};

std::vector<fmt_piece> parse_fmt(const std::string& fmt) {
  const auto bad = [&](const std::string& why) {
    return io_error("savetxt: fmt '" + fmt + "' " + why +
                    "; use printf conversions for numbers such as '%.18e', '%d', '%10.4f' or '%x' (and %% for a "
                    "literal percent sign)");
  };
  std::vector<fmt_piece> pieces;
  std::string literal;
  for (std::size_t i = 0; i < fmt.size();) {
    if (fmt[i] != '%') {
      literal += fmt[i++];
      continue;
    }
    if (i + 1 < fmt.size() && fmt[i + 1] == '%') {
      literal += '%';
      i += 2;
      continue;
    }
    if (!literal.empty()) {
      pieces.push_back({literal, 0});
      literal.clear();
    }
    std::string spec = "%";
    ++i;
    while (i < fmt.size() && std::strchr("-+ #0", fmt[i]) != nullptr) {
      spec += fmt[i++];
    }
    for (int part = 0; part < 2; ++part) {  // width, then .precision
      if (part == 1) {
        if (i >= fmt.size() || fmt[i] != '.') {
          break;
        }
        spec += fmt[i++];
      }
      std::size_t digits = 0;
      while (i < fmt.size() && fmt[i] >= '0' && fmt[i] <= '9') {
        spec += fmt[i++];
        if (++digits > 3) {
          throw bad("has a width or precision over 999");
        }
      }
    }
    while (i < fmt.size() && std::strchr("hlL", fmt[i]) != nullptr) {
      ++i;  // Python accepts and ignores length modifiers
    }
    if (i >= fmt.size() || std::strchr("diouxXeEfFgG", fmt[i]) == nullptr) {
      throw bad(i >= fmt.size() ? "ends inside a conversion"
                                : std::string("has the conversion '") + fmt[i] + "', which does not format numbers");
    }
    pieces.push_back({spec, fmt[i++]});
  }
  if (!literal.empty()) {
    pieces.push_back({literal, 0});
  }
  return pieces;
}

struct element {
  bool integral;
  bool is_unsigned;
  std::int64_t i;
  std::uint64_t u;
  double d;
};

element element_at(dtype type, const unsigned char* p) {
  const auto load = [p]<class T>(T) {
    T v{};
    std::memcpy(&v, p, sizeof v);
    return v;
  };
  switch (type) {
    case dtype::bool_:
      return {true, false, *p != 0 ? 1 : 0, 0, *p != 0 ? 1.0 : 0.0};
    case dtype::int8:
    case dtype::int16:
    case dtype::int32:
    case dtype::int64: {
      std::int64_t v = type == dtype::int8    ? load(std::int8_t{})
                       : type == dtype::int16 ? load(std::int16_t{})
                       : type == dtype::int32 ? load(std::int32_t{})
                                              : load(std::int64_t{});
      return {true, false, v, 0, static_cast<double>(v)};
    }
    case dtype::uint8:
    case dtype::uint16:
    case dtype::uint32:
    case dtype::uint64: {
      std::uint64_t v = type == dtype::uint8    ? load(std::uint8_t{})
                        : type == dtype::uint16 ? load(std::uint16_t{})
                        : type == dtype::uint32 ? load(std::uint32_t{})
                                                : load(std::uint64_t{});
      return {true, true, 0, v, static_cast<double>(v)};
    }
    case dtype::float16:
      return {false, false, 0, 0, static_cast<double>(__half2float(load(__half{})))};
    case dtype::bfloat16:
      return {false, false, 0, 0, static_cast<double>(__bfloat162float(load(__nv_bfloat16{})))};
    case dtype::float32:
      return {false, false, 0, 0, static_cast<double>(load(float{}))};
    case dtype::float64:
      return {false, false, 0, 0, load(double{})};
    case dtype::complex64:
    case dtype::complex128:
      break;
  }
  throw io_error(
      "savetxt: complex arrays are not supported by ndcuda's savetxt; save the real and imaginary "
      "parts (nd::real, nd::imag) as columns, or use nd::save for a .npy file");
}

template <class... A>
void append_printf(std::string& out, const std::string& spec, A... args) {
  char buffer[1100];  // width and precision are at most 999 (parse_fmt), so this always fits
  const int n = std::snprintf(buffer, sizeof buffer, spec.c_str(), args...);
  if (n < 0 || static_cast<std::size_t>(n) >= sizeof buffer) {
    throw io_error("savetxt: formatting a value with '" + spec + "' failed");
  }
  out.append(buffer, static_cast<std::size_t>(n));
}

// Formats one value as Python's `spec % value` does for a NumPy scalar of this dtype.
void format_value(std::string& out, const fmt_piece& piece, element e) {
  const bool integer_conv = std::strchr("diouxX", piece.conv) != nullptr;
  if (!integer_conv) {
    double d = e.d;
    if (std::isnan(d)) {
      d = std::fabs(d);  // Python prints "nan" for every NaN; glibc would print "-nan"
    }
    append_printf(out, piece.text + piece.conv, d);
    return;
  }
  const char conv = piece.conv == 'i' || piece.conv == 'u' ? 'd' : piece.conv;
  if (!e.integral) {
    if (!std::isfinite(e.d)) {
      throw io_error(std::string("savetxt: cannot convert float ") + (std::isnan(e.d) ? "NaN" : "infinity") +
                     " to integer (fmt '%" + piece.conv + "'); use a float format such as '%.18e'");
    }
    const double t = std::trunc(e.d);
    if (std::fabs(t) < 9.2e18) {
      e = {true, false, static_cast<std::int64_t>(t), 0, t};
    } else if (conv == 'd') {
      append_printf(out, piece.text + ".0f", t);  // doubles this large are integers: exact, like Python
      return;
    } else {
      throw io_error("savetxt: " + std::to_string(e.d) + " is too large for fmt '%" + piece.conv + "'");
    }
  }
  if (e.is_unsigned) {
    append_printf(out, piece.text + "ll" + (conv == 'd' ? 'u' : conv), static_cast<unsigned long long>(e.u));
  } else if (conv != 'd' && e.i < 0) {
    // Python writes '%x' % -5 as -5 (a sign and the magnitude), C as two's complement.
    out += '-';
    append_printf(out, piece.text + "ll" + conv, static_cast<unsigned long long>(0) - static_cast<std::uint64_t>(e.i));
  } else {
    append_printf(out, piece.text + "ll" + conv, static_cast<long long>(e.i));
  }
}

void append_commented(std::string& out, const std::string& text, const savetxt_options& o) {
  if (text.empty()) {
    return;
  }
  out += o.comments;
  for (const char c : text) {
    out += c;
    if (c == '\n') {
      out += o.comments;
    }
  }
  out += o.newline;
}

// ---- loadtxt ---------------------------------------------------------------------------------------

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) {
    s.remove_prefix(1);
  }
  while (!s.empty() && is_space(s.back())) {
    s.remove_suffix(1);
  }
  return s;
}

std::vector<std::string_view> split(std::string_view line, const std::optional<std::string>& delimiter) {
  std::vector<std::string_view> out;
  if (!delimiter) {
    std::size_t i = 0;
    while (true) {
      while (i < line.size() && is_space(line[i])) {
        ++i;
      }
      if (i >= line.size()) {
        break;
      }
      const std::size_t start = i;
      while (i < line.size() && !is_space(line[i])) {
        ++i;
      }
      out.push_back(line.substr(start, i - start));
    }
    return out;
  }
  for (std::size_t start = 0;;) {
    const std::size_t end = line.find(*delimiter, start);
    out.push_back(trim(line.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start)));
    if (end == std::string_view::npos) {
      break;
    }
    start = end + delimiter->size();
  }
  return out;
}

// Parses `token` as np.loadtxt does for `type` and appends its bytes; false when it does not parse.
bool append_value(std::vector<std::byte>& out, dtype type, std::string_view token) {
  if (!token.empty() && token.front() == '+') {
    token.remove_prefix(1);
    if (!token.empty() && (token.front() == '-' || token.front() == '+')) {
      return false;
    }
  }
  const char* first = token.data();
  const char* last = token.data() + token.size();
  const auto put = [&out]<class T>(T v) {
    const std::size_t at = out.size();
    out.resize(at + sizeof v);
    std::memcpy(out.data() + at, &v, sizeof v);
  };
  if (is_floating(type)) {
    double d = 0;
    const auto [end, ec] = std::from_chars(first, last, d);  // locale-free, no hex floats
    if (ec == std::errc::result_out_of_range) {
      // Python's float() gives +-inf or +-0 where the decimal is out of range; from_chars refuses it.
      d = std::strtod(std::string(token).c_str(), nullptr);
    } else if (ec != std::errc{} || end != last || token.empty()) {
      return false;
    }
    switch (type) {
      case dtype::float16:
        put(__double2half(d));
        break;
      case dtype::bfloat16:
        put(__double2bfloat16(d));
        break;
      case dtype::float32:
        put(static_cast<float>(d));
        break;
      default:
        put(d);
        break;
    }
    return true;
  }
  std::int64_t i = 0;
  std::uint64_t u = 0;
  const bool is_unsigned = kind(type) == dtype_kind::unsigned_integer;
  const auto [end, ec] = is_unsigned ? std::from_chars(first, last, u) : std::from_chars(first, last, i);
  if (ec != std::errc{} || end != last || token.empty()) {
    return false;
  }
  const auto fits = [&]<class T>(T) {
    if (is_unsigned) {
      return u <= std::numeric_limits<T>::max();
    }
    return i >= std::numeric_limits<T>::min() && i <= std::numeric_limits<T>::max();
  };
  switch (type) {
    case dtype::bool_:
      put(static_cast<std::uint8_t>(i != 0 ? 1 : 0));
      return true;
    case dtype::int8:
      return fits(std::int8_t{}) && (put(static_cast<std::int8_t>(i)), true);
    case dtype::int16:
      return fits(std::int16_t{}) && (put(static_cast<std::int16_t>(i)), true);
    case dtype::int32:
      return fits(std::int32_t{}) && (put(static_cast<std::int32_t>(i)), true);
    case dtype::uint8:
      return fits(std::uint8_t{}) && (put(static_cast<std::uint8_t>(u)), true);
    case dtype::uint16:
      return fits(std::uint16_t{}) && (put(static_cast<std::uint16_t>(u)), true);
    case dtype::uint32:
      return fits(std::uint32_t{}) && (put(static_cast<std::uint32_t>(u)), true);
    case dtype::uint64:
      put(u);
      return true;
    default:
      put(i);
      return true;
  }
}

}  // namespace

void savetxt_bytes(const std::filesystem::path& path, dtype type, const shape_t& shape, const void* data,
                   const savetxt_options& options) {
  if (shape.empty() || shape.size() > 2) {
    throw io_error("savetxt(" + quoted(path) + "): Expected 1D or 2D array, got " + std::to_string(shape.size()) +
                   "D array instead");
  }
  if (is_complex(type)) {
    (void)element_at(type, nullptr);  // throws the complex message
  }
  const std::vector<fmt_piece> pieces = parse_fmt(options.fmt);
  const auto rows = static_cast<std::size_t>(shape[0]);
  const auto cols = shape.size() == 2 ? static_cast<std::size_t>(shape[1]) : std::size_t{1};
  // NumPy counts '%' characters: one means "this format for every column, joined by delimiter".
  const auto percents = static_cast<std::size_t>(std::count(options.fmt.begin(), options.fmt.end(), '%'));
  std::vector<fmt_piece> row_format;
  if (percents == 1) {
    for (std::size_t c = 0; c < cols; ++c) {
      if (c != 0) {
        row_format.push_back({options.delimiter, 0});
      }
      row_format.insert(row_format.end(), pieces.begin(), pieces.end());
    }
  } else if (percents == cols &&
             static_cast<std::size_t>(
                 std::count_if(pieces.begin(), pieces.end(), [](const fmt_piece& p) { return p.conv != 0; })) == cols) {
    row_format = pieces;
  } else {
    throw io_error("savetxt(" + quoted(path) +
                   "): fmt has wrong number of % formats:  " + detail::quote_input(options.fmt) + " (the array has " +
                   std::to_string(cols) + " columns: give one conversion, or one per column)");
  }
  // Through a temporary renamed into place: a failed write leaves the old file as it was. Lines
  // are gathered into blocks of about a MiB between writes.
  file_problem problem;
  std::optional<replacing_writer> out = replacing_writer::create(path, 0666, problem);
  const auto failed = [&] {
    return io_error("cannot write " + quoted(path) + ": " + problem.why + " (the file, if it existed, is unchanged)");
  };
  if (!out) {
    throw failed();
  }
  constexpr std::size_t block_bytes = std::size_t{1} << 20;
  std::string block;
  const auto flush = [&] {
    if (!out->write(block.data(), block.size(), problem)) {
      throw failed();
    }
    block.clear();
  };
  append_commented(block, options.header, options);
  const std::size_t item = itemsize(type);
  const auto* bytes = static_cast<const unsigned char*>(data);
  for (std::size_t r = 0; r < rows; ++r) {
    if (block.size() >= block_bytes) {
      flush();
    }
    std::size_t c = 0;
    for (const fmt_piece& piece : row_format) {
      if (piece.conv == 0) {
        block += piece.text;
      } else {
        format_value(block, piece, element_at(type, bytes + (r * cols + c++) * item));
      }
    }
    block += options.newline;
  }
  append_commented(block, options.footer, options);
  flush();
  if (!out->commit(problem)) {
    throw failed();
  }
}

std::vector<std::byte> loadtxt_bytes(const std::filesystem::path& path, dtype type, const loadtxt_options& options,
                                     shape_t& shape) {
  if (is_complex(type)) {
    throw io_error("loadtxt(" + quoted(path) +
                   "): complex dtypes are not supported by ndcuda's loadtxt; load the "
                   "real and imaginary parts as float columns and combine them");
  }
  if (options.ndmin < 0 || options.ndmin > 2) {
    throw io_error("loadtxt(" + quoted(path) + "): Illegal value of ndmin keyword: " + std::to_string(options.ndmin) +
                   " (use 0, 1 or 2)");
  }
  if (options.delimiter && options.delimiter->empty()) {
    throw io_error("loadtxt(" + quoted(path) + "): the delimiter is empty; leave it unset to split on whitespace");
  }
  // The library's one reader of untrusted paths (src/core/untrusted_files.hpp): a FIFO or device
  // at the path is refused after a non-blocking open, never waited on, and the file is read whole.
  detail::file_problem problem;
  const std::optional<std::string> content =
      detail::read_regular_file(path, std::numeric_limits<std::uint64_t>::max(), true, problem);
  if (!content) {
    throw io_error(problem.error != 0 ? "cannot open " + quoted(path) + " for reading: " + problem.why
                                      : "cannot read " + quoted(path) + " as text: " + problem.why);
  }
  std::string_view rest = *content;
  // getline's split: up to each '\n' (a last line without one counts; no empty line after a final '\n').
  const auto next_line = [&rest](std::string_view& line) {
    if (rest.empty()) {
      return false;
    }
    const std::size_t end = rest.find('\n');
    line = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
    return true;
  };
  std::vector<std::byte> out;
  std::size_t rows = 0;
  std::size_t cols = 0;
  std::string_view line;
  std::vector<std::size_t> picked;
  // NumPy counts rows among the data lines only (comments, blank and skipped lines do not count): from 0
  // in conversion errors, from 1 in the others, as its messages do.
  for (index_t line_no = 0; next_line(line); ++line_no) {
    if (line_no < options.skiprows) {
      continue;
    }
    std::string_view text = line;
    if (!options.comments.empty()) {
      text = text.substr(0, text.find(options.comments));
    }
    if (trim(text).empty()) {
      continue;
    }
    const std::vector<std::string_view> tokens = split(text, options.delimiter);
    picked.clear();
    if (options.usecols.empty()) {
      for (std::size_t c = 0; c < tokens.size(); ++c) {
        picked.push_back(c);
      }
    } else {
      const auto n = static_cast<index_t>(tokens.size());
      for (const index_t c : options.usecols) {
        if (c >= n || c < -n) {
          throw io_error("loadtxt(" + quoted(path) + "): invalid column index " + std::to_string(c) + " at row " +
                         std::to_string(rows + 1) + " with " + std::to_string(n) + " columns");
        }
        picked.push_back(static_cast<std::size_t>(c < 0 ? c + n : c));
      }
    }
    if (rows == 0) {
      cols = picked.size();
    } else if (picked.size() != cols) {
      throw io_error("loadtxt(" + quoted(path) + "): the number of columns changed from " + std::to_string(cols) +
                     " to " + std::to_string(picked.size()) + " at row " + std::to_string(rows + 1) +
                     "; use `usecols` to select a subset and avoid this error");
    }
    for (const std::size_t c : picked) {
      if (!append_value(out, type, tokens[c])) {
        throw io_error("loadtxt(" + quoted(path) + "): could not convert string '" + detail::quote_input(tokens[c]) +
                       "' to " + std::string(name(type)) + " at row " + std::to_string(rows) + ", column " +
                       std::to_string(c + 1) + ".");
      }
    }
    ++rows;
  }
  // NumPy's shape: (rows, cols), squeezed unless that would go below ndmin, then padded up to it.
  shape_t s;
  if (rows == 0) {
    s = {0};
  } else {
    s = {static_cast<index_t>(rows), static_cast<index_t>(cols)};
    if (options.ndmin < 2) {
      s.erase(std::remove(s.begin(), s.end(), index_t{1}), s.end());
    }
  }
  if (static_cast<int>(s.size()) < options.ndmin) {
    if (options.ndmin == 1) {
      s = {1};
    } else {
      s = s.empty() ? shape_t{1, 1} : shape_t{s[0], 1};  // np.atleast_2d(a).T
    }
  }
  shape = std::move(s);
  return out;
}

}  // namespace ndcuda
