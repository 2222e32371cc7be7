// Fuzz target: the kernel record parser (decode_records), which ndcuda-precompile runs over files it
// is given. Any input is a list of keys or a compile_error, never a crash or a read past the input;
// and what it accepts round-trips: encoding the keys and decoding them again gives the same keys.
// fuzz-sources: src/jit/kernel_record_format.cpp
#include <cstddef>
#include <cstdint>
#include <ndcuda/core/error.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "jit/kernel_record.hpp"

namespace jd = ndcuda::jit::detail;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // A copy of exactly `size` bytes, so that AddressSanitizer sees any read past the end.
  const std::vector<char> bytes(data, data + size);
  const std::string_view text(bytes.data(), bytes.size());
  std::vector<jd::kernel_key> keys;
  try {
    keys = jd::decode_records(text);
  } catch (const ndcuda::compile_error&) {
    return 0;
  }
  std::string again(jd::record_header);
  for (const auto& key : keys) {
    again += jd::encode_record(key);
  }
  const std::vector<jd::kernel_key> decoded = jd::decode_records(again);
  if (decoded.size() != keys.size()) {
    __builtin_trap();
  }
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (decoded[i].canonical() != keys[i].canonical()) {
      __builtin_trap();
    }
  }
  return 0;
}
