// The canonical bytes of a kernel key, which keys compare by, and the target's names. Apart from
// make_key (kernel_key.cpp) so that the disk-cache entry parser links without NVRTC (its fuzzer does).
#include "jit/kernel_key.hpp"

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

}  // namespace ndcuda::jit::detail
