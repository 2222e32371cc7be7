// Building keys: which options every kernel gets, and the canonical bytes keys compare by.
#include "jit/kernel_key.hpp"

#include <ndcuda/core/error.hpp>
#include <ndcuda/version.hpp>

#include "jit/embedded_headers.hpp"
#include "jit/nvrtc_compiler.hpp"
#include "jit/toolkit_headers.hpp"

namespace ndcuda::jit::detail {
namespace {

void put(std::string& out, std::string_view field) {
  const auto size = static_cast<std::uint64_t>(field.size());
  for (int shift = 0; shift < 64; shift += 8) {
    out += static_cast<char>((size >> shift) & 0xff);
  }
  out += field;
}

void put(std::string& out, std::int64_t value) {
  put(out, std::to_string(value));
}

bool starts_with_any(std::string_view option, std::initializer_list<std::string_view> prefixes) {
  for (std::string_view prefix : prefixes) {
    if (option.substr(0, prefix.size()) == prefix) {
      return true;
    }
  }
  return false;
}

}  // namespace

std::string compile_target::name() const {
  return (ptx ? "compute_" : "sm_") + std::to_string(arch);
}

std::string compile_target::option() const {
  return "-arch=" + name();
}

std::string kernel_key::canonical() const {
  std::string out;
  out.reserve(source.size() + 512);
  // A tag per field and a count per list: no two different keys serialise to the same bytes.
  put(out, "ndcuda-jit-key-1");
  put(out, source);
  put(out, program_name);
  put(out, static_cast<std::int64_t>(name_expressions.size()));
  for (const auto& e : name_expressions) {
    put(out, e);
  }
  put(out, static_cast<std::int64_t>(options.size()));
  for (const auto& o : options) {
    put(out, o);
  }
  put(out, target.arch);
  put(out, target.ptx ? 1 : 0);
  put(out, nvrtc_major);
  put(out, nvrtc_minor);
  put(out, nvrtc_build);
  put(out, ndcuda_version);
  put(out, headers_checksum);
  return out;
}

kernel_key make_key(std::string source, std::string program_name, std::vector<std::string> name_expressions,
                    const std::vector<std::string>& user_options, compile_target target) {
  kernel_key key;
  key.target = target;
  key.options.push_back(target.option());
  bool user_std = false;
  for (const auto& option : user_options) {
    if (starts_with_any(option, {"-arch", "--gpu-architecture", "-code", "--gpu-code"})) {
      throw compile_error("kernel '" + program_name + "' was given the option '" + option +
                              "': ndcuda picks the architecture from the device each launch runs on (capped at "
                              "what this NVRTC supports). Remove the option",
                          source, "");
    }
    user_std = user_std || starts_with_any(option, {"-std=", "--std="});
  }
  if (!user_std) {
    key.options.emplace_back("-std=c++17");
  }
  key.options.emplace_back("-default-device");
#ifndef NDEBUG
  key.options.emplace_back("-lineinfo");
#endif
  for (auto& option : include_options(scan_includes(source), program_name, source)) {
    key.options.push_back(std::move(option));
  }
  key.options.insert(key.options.end(), user_options.begin(), user_options.end());
  const auto [major, minor] = nvrtc_version();
  key.nvrtc_major = major;
  key.nvrtc_minor = minor;
  key.nvrtc_build = nvrtc_build();
  key.ndcuda_version = NDCUDA_VERSION_STRING;
  key.headers_checksum = embedded_headers_checksum();
  key.source = std::move(source);
  key.program_name = std::move(program_name);
  key.name_expressions = std::move(name_expressions);
  return key;
}

}  // namespace ndcuda::jit::detail
