// The hashes behind cache keys and entries: SHA-256 against FIPS 180 test vectors, and the
// 64-bit checksum's sensitivity to every bit.
#include "jit/hash.hpp"

#include <gtest/gtest.h>

#include <string>

namespace jd = ndcuda::jit::detail;

TEST(JitHash, Sha256MatchesTheStandardTestVectors) {
  EXPECT_EQ(jd::to_hex(jd::sha256_of("")), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(jd::to_hex(jd::sha256_of("abc")), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(jd::to_hex(jd::sha256_of("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(jd::to_hex(jd::sha256_of(std::string(1000000, 'a'))),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(JitHash, Sha256IncrementalEqualsOneShotAtEverySplit) {
  const std::string text =
      "The quick brown fox jumps over the lazy dog, then again, and again: 0123456789abcdef" + std::string(200, 'x');
  const auto expected = jd::sha256_of(text);
  for (std::size_t split = 0; split <= text.size(); split += 7) {
    jd::sha256 h;
    h.update(std::string_view(text).substr(0, split));
    h.update(std::string_view(text).substr(split));
    EXPECT_EQ(h.finish(), expected) << "split at " << split;
  }
}

TEST(JitHash, Hash64ChangesWithEveryFlippedBitAndWithLength) {
  std::string data(300, '\0');
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>(i * 31 + 7);
  const std::uint64_t base = jd::hash64(data);
  EXPECT_EQ(base, jd::hash64(data));
  for (std::size_t bit = 0; bit < data.size() * 8; ++bit) {
    std::string flipped = data;
    flipped[bit / 8] = static_cast<char>(flipped[bit / 8] ^ (1 << (bit % 8)));
    ASSERT_NE(jd::hash64(flipped), base) << "bit " << bit;
  }
  EXPECT_NE(jd::hash64(std::string_view(data).substr(0, 299)), base);
  EXPECT_NE(jd::hash64(std::string(64, '\0')), jd::hash64(std::string(65, '\0')));
  EXPECT_NE(jd::hash64(data, 1), base);
}
