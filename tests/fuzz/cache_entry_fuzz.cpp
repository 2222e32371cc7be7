// Fuzz target: the JIT disk-cache entry parser (decode_entry), which reads files from the cache
// folder. The first input byte picks what the rest is:
//   0: a whole entry, as read from disk;
//   1: a payload, given a correct header (magic, version, key digest, size, checksum) so the
//      fuzzer reaches the length-prefixed fields behind the checksum, where a forged entry would;
//   2: a program (names and image) to encode: decoding it must give it back unchanged.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "jit/cache_entry.hpp"

namespace jd = ndcuda::jit::detail;

namespace {

const jd::kernel_key& the_key() {
  static const jd::kernel_key key = [] {
    jd::kernel_key k;
    k.source = "extern \"C\" __global__ void a() {}\nextern \"C\" __global__ void b() {}";
    k.program_name = "fuzz.cu";
    k.name_expressions = {"a", "b"};
    k.options = {"-arch=sm_90", "-std=c++17"};
    k.target = {90, false};
    k.nvrtc_major = 13;
    k.ndcuda_version = "fuzz";
    return k;
  }();
  return key;
}

void put_u64(std::string& out, std::uint64_t v) {
  for (int shift = 0; shift < 64; shift += 8) {
    out += static_cast<char>((v >> shift) & 0xff);
  }
}

// The header encode_entry writes (cache_entry.hpp documents the layout), around any payload.
std::string with_valid_header(std::string_view payload) {
  std::string entry(jd::entry_magic);
  entry += std::string("\x01\0\0\0\0\0\0\0", 8);  // format version 1, reserved
  const jd::sha256_digest digest = jd::sha256_of(the_key().canonical());
  entry.append(reinterpret_cast<const char*>(digest.data()), digest.size());
  put_u64(entry, payload.size());
  put_u64(entry, jd::hash64(payload, jd::hash64(entry, 0x6e64637564614a49ULL)));
  entry += payload;
  return entry;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) {
    return 0;
  }
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::string why;
  switch (data[0] % 3) {
    case 0:
      (void)jd::decode_entry(rest, the_key(), why);
      break;
    case 1: {
      const auto program = jd::decode_entry(with_valid_header(rest), the_key(), why);
      // The header is right, so only the payload can be refused; a checksum complaint means this
      // target no longer builds headers as encode_entry does (and fuzzes less than it should).
      if (!program && why.find("checksum") != std::string::npos) {
        __builtin_trap();
      }
      break;
    }
    default: {
      // "name a|name b|image": the fields encode_entry writes, split on the first two '|'.
      const std::size_t first = rest.find('|');
      const std::size_t second = first == std::string_view::npos ? first : rest.find('|', first + 1);
      if (second == std::string_view::npos) {
        break;
      }
      jd::compiled_program program;
      program.lowered_names = {std::string(rest.substr(0, first)),
                               std::string(rest.substr(first + 1, second - first - 1))};
      program.image = std::string(rest.substr(second + 1));
      const auto decoded = jd::decode_entry(jd::encode_entry(the_key(), program), the_key(), why);
      const bool storable =
          !program.lowered_names[0].empty() && !program.lowered_names[1].empty() && !program.image.empty();
      if (decoded.has_value() != storable ||
          (decoded && (decoded->image != program.image || decoded->lowered_names != program.lowered_names))) {
        __builtin_trap();
      }
      break;
    }
  }
  return 0;
}
