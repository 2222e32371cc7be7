// Building keys: which options every kernel gets (the bytes keys compare by are in
// kernel_key_canonical.cpp).
#include "jit/kernel_key.hpp"

#include <ndcuda/core/error.hpp>
#include <ndcuda/version.hpp>

#include "jit/embedded_headers.hpp"
#include "jit/nvrtc_compiler.hpp"
#include "jit/toolkit_headers.hpp"

namespace ndcuda::jit::detail {
namespace {

bool starts_with_any(std::string_view option, std::initializer_list<std::string_view> prefixes) {
  for (std::string_view prefix : prefixes) {
    if (option.substr(0, prefix.size()) == prefix) {
      return true;
    }
  }
  return false;
}

}  // namespace

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
