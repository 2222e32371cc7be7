// The kernel record's format (jit/kernel_record.hpp): encoding a key, and reading a file of them
// back with every length checked against what is left. Apart from recording (kernel_record.cpp) so
// that the parser links without NVRTC: tests/fuzz/kernel_record_fuzz.cpp fuzzes it.
#include <charconv>
#include <ndcuda/core/error.hpp>
#include <set>

#include "core/untrusted_files.hpp"
#include "jit/kernel_record.hpp"

namespace ndcuda::jit::detail {
namespace {

void put(std::string& out, std::string_view tag, std::string_view bytes) {
  out += tag;
  out += ' ';
  out += std::to_string(bytes.size());
  out += '\n';
  out += bytes;
  out += '\n';
}

// Reads "<tag> <count>\n<bytes>\n" fields, each bounded by what is left of the text.
class field_reader {
 public:
  explicit field_reader(std::string_view text) : text_(text) {}

  [[nodiscard]] bool done() const noexcept { return at_ == text_.size(); }

  /// The next field's tag and bytes.
  std::pair<std::string_view, std::string_view> next() {
    const std::size_t space = text_.find(' ', at_);
    const std::size_t newline = text_.find('\n', at_);
    if (space == std::string_view::npos || newline == std::string_view::npos || space > newline ||
        space - at_ > max_tag) {
      fail("a field must start with \"<tag> <byte count>\"");
    }
    const std::string_view tag = text_.substr(at_, space - at_);
    std::size_t count = 0;
    const char* first = text_.data() + space + 1;
    const char* last = text_.data() + newline;
    if (const auto [end, ec] = std::from_chars(first, last, count); ec != std::errc{} || end != last) {
      fail("the byte count of field '" + std::string(tag) + "' is not a number");
    }
    const std::size_t begin = newline + 1;
    if (count > text_.size() - begin || text_.size() - begin - count < 1 || text_[begin + count] != '\n') {
      fail("field '" + std::string(tag) + "' claims " + std::to_string(count) + " bytes, more than the file holds");
    }
    at_ = begin + count + 1;
    return {tag, text_.substr(begin, count)};
  }

  [[noreturn]] void fail(const std::string& why) const {
    throw compile_error("not a valid ndcuda kernel record at byte " + std::to_string(at_) + ": " + why +
                            " (write records with NDCUDA_JIT_RECORD=<file>; do not edit them)",
                        "", "");
  }

 private:
  static constexpr std::size_t max_tag = 16;
  std::string_view text_;
  std::size_t at_ = 0;
};

int parse_int(std::string_view text, const field_reader& reader, const char* what) {
  int value = 0;
  if (const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
      ec != std::errc{} || end != text.data() + text.size()) {
    reader.fail(std::string(what) + " is not a number");
  }
  return value;
}

compile_target parse_target(std::string_view name, const field_reader& reader) {
  compile_target t;
  if (name.starts_with("sm_")) {
    name.remove_prefix(3);
  } else if (name.starts_with("compute_")) {
    name.remove_prefix(8);
    t.ptx = true;
  } else {
    reader.fail("the target must be sm_XX or compute_XX");
  }
  t.arch = parse_int(name, reader, "the target's architecture");
  return t;
}

}  // namespace

std::string encode_record(const kernel_key& key) {
  std::string out;
  put(out, "begin", "");
  put(out, "program", key.program_name);
  for (const auto& name : key.name_expressions) {
    put(out, "name", name);
  }
  for (const auto& option : key.options) {
    put(out, "option", option);
  }
  put(out, "target", key.target.name());
  put(out, "nvrtc", std::to_string(key.nvrtc_major) + "." + std::to_string(key.nvrtc_minor));
  put(out, "build", key.nvrtc_build);
  put(out, "ndcuda", key.ndcuda_version);
  put(out, "headers", key.headers_checksum);
  put(out, "source", key.source);
  put(out, "end", "");
  return out;
}

std::vector<kernel_key> decode_records(std::string_view text) {
  if (!text.starts_with(record_header)) {
    throw compile_error(
        "not an ndcuda kernel record: the file does not start with \"ndcuda-jit-record 1\" "
        "(write records with NDCUDA_JIT_RECORD=<file>)",
        "", "");
  }
  field_reader reader(text.substr(record_header.size()));
  std::vector<kernel_key> keys;
  std::set<std::string> seen;
  while (!reader.done()) {
    if (reader.next().first != "begin") {
      reader.fail("a key must start with 'begin'");
    }
    kernel_key key;
    bool has_target = false;
    for (;;) {
      const auto [tag, bytes] = reader.next();
      if (tag == "end") {
        break;
      }
      if (tag == "program") {
        key.program_name = bytes;
      } else if (tag == "name") {
        key.name_expressions.emplace_back(bytes);
      } else if (tag == "option") {
        key.options.emplace_back(bytes);
      } else if (tag == "target") {
        key.target = parse_target(bytes, reader);
        has_target = true;
      } else if (tag == "nvrtc") {
        const std::size_t dot = bytes.find('.');
        if (dot == std::string_view::npos) {
          reader.fail("the NVRTC version must be major.minor");
        }
        key.nvrtc_major = parse_int(bytes.substr(0, dot), reader, "the NVRTC major version");
        key.nvrtc_minor = parse_int(bytes.substr(dot + 1), reader, "the NVRTC minor version");
      } else if (tag == "build") {
        key.nvrtc_build = bytes;
      } else if (tag == "ndcuda") {
        key.ndcuda_version = bytes;
      } else if (tag == "headers") {
        key.headers_checksum = bytes;
      } else if (tag == "source") {
        key.source = bytes;
      } else {
        reader.fail("unknown field '" + ndcuda::detail::quote_input(tag) + "'");
      }
    }
    if (!has_target || key.source.empty() || key.name_expressions.empty()) {
      reader.fail("a key needs a target, a source and a kernel name");
    }
    if (seen.insert(key.canonical()).second) {
      keys.push_back(std::move(key));
    }
  }
  return keys;
}

}  // namespace ndcuda::jit::detail
