// Key completeness: every input of a compile changes the key (a miss), equal inputs give equal
// keys (a hit); and keys are compared in full, so a forced hash collision still finds the right
// kernel.
#include <gtest/gtest.h>

#include <functional>
#include <ndcuda/core/error.hpp>
#include <ndcuda/version.hpp>

#include "jit/embedded_headers.hpp"
#include "jit/program_cache.hpp"
#include "jit_support.hpp"

namespace nd = ndcuda;
namespace jd = ndcuda::jit::detail;

TEST(JitKey, EveryInputChangesTheKeyAndEqualInputsDoNot) {
  const jd::kernel_key base = nd::testing::small_key("base");
  EXPECT_EQ(base.canonical(), nd::testing::small_key("base").canonical());
  EXPECT_EQ(base.ndcuda_version, NDCUDA_VERSION_STRING);
  EXPECT_EQ(base.headers_checksum, jd::embedded_headers_checksum());
  EXPECT_EQ(base.nvrtc_major, jd::nvrtc_version().first);
  EXPECT_NE(base.nvrtc_build.find("nvrtc"), std::string::npos) << base.nvrtc_build;

  const std::vector<std::pair<const char*, std::function<void(jd::kernel_key&)>>> changes = {
      {"source", [](jd::kernel_key& k) { k.source += " "; }},
      {"program name", [](jd::kernel_key& k) { k.program_name = "other.cu"; }},
      {"name expressions", [](jd::kernel_key& k) { k.name_expressions.push_back("k2"); }},
      {"an option", [](jd::kernel_key& k) { k.options.push_back("-DX=1"); }},
      {"option order", [](jd::kernel_key& k) { std::swap(k.options.front(), k.options.back()); }},
      {"arch", [](jd::kernel_key& k) { k.target.arch = 80; }},
      {"ptx", [](jd::kernel_key& k) { k.target.ptx = true; }},
      {"nvrtc major", [](jd::kernel_key& k) { ++k.nvrtc_major; }},
      {"nvrtc minor", [](jd::kernel_key& k) { ++k.nvrtc_minor; }},
      {"nvrtc build", [](jd::kernel_key& k) { k.nvrtc_build += "1"; }},
      {"ndcuda version", [](jd::kernel_key& k) { k.ndcuda_version += ".1"; }},
      {"embedded headers", [](jd::kernel_key& k) { k.headers_checksum[0] = k.headers_checksum[0] == 'a' ? 'b' : 'a'; }},
      // Moving text between fields must not give the same bytes (fields are length-prefixed).
      {"field boundary",
       [](jd::kernel_key& k) {
         k.program_name = k.source.substr(k.source.size() - 1) + k.program_name;
         k.source.pop_back();
       }},
  };

  nd::testing::counting_compiler compiler;
  jd::program_cache cache(compiler, nullptr);
  const auto first = cache.get(base);
  EXPECT_EQ(*compiler.calls, 1);
  EXPECT_EQ(cache.get(nd::testing::small_key("base")), first) << "equal inputs must hit";
  EXPECT_EQ(*compiler.calls, 1);

  int expected_compiles = 1;
  for (const auto& [what, change] : changes) {
    jd::kernel_key changed = base;
    change(changed);
    EXPECT_NE(changed.canonical(), base.canonical()) << what;
    EXPECT_NE(jd::digest(changed), jd::digest(base)) << what;
    const auto program = cache.get(changed);
    EXPECT_NE(program, first) << what;
    EXPECT_EQ(*compiler.calls, ++expected_compiles) << "changing the " << what << " must miss";
    EXPECT_EQ(program->key(), changed) << what;
  }
}

TEST(JitKey, ForcedHashCollisionStillReturnsTheRightKernel) {
  // Every key hashes to 42: the map must fall back to comparing whole keys.
  jd::program_cache cache(jd::nvrtc_compile, nullptr, [](std::string_view) -> std::uint64_t { return 42; });
  const auto key_a = jd::make_key("extern \"C\" __global__ void a(int* p) { *p = 1; }", "a.cu", {"a"}, {}, {90, false});
  const auto key_b = jd::make_key("extern \"C\" __global__ void b(int* p) { *p = 2; }", "b.cu", {"b"}, {}, {90, false});
  const auto a = cache.get(key_a);
  const auto b = cache.get(key_b);
  ASSERT_NE(a, b);
  EXPECT_EQ(a->key(), key_a);
  EXPECT_EQ(b->key(), key_b);
  EXPECT_EQ(a->compiled().lowered_names, std::vector<std::string>{"a"});
  EXPECT_EQ(b->compiled().lowered_names, std::vector<std::string>{"b"});
  EXPECT_NE(a->compiled().image, b->compiled().image);
  EXPECT_EQ(cache.get(key_a), a);
  EXPECT_EQ(cache.get(key_b), b);
  EXPECT_EQ(cache.counters().compiles, 2U);
  EXPECT_EQ(cache.counters().memory_hits, 2U);
}

TEST(JitKey, StandardOptionsAreAddedAndTheArchitectureIsOwnedByNdcuda) {
  const auto key = jd::make_key("extern \"C\" __global__ void k() {}", "k.cu", {"k"}, {"-DVALUE=3"}, {80, false});
  const auto has = [&](const std::string& option) {
    return std::find(key.options.begin(), key.options.end(), option) != key.options.end();
  };
  EXPECT_EQ(key.options.front(), "-arch=sm_80");
  EXPECT_TRUE(has("-std=c++17"));
  EXPECT_TRUE(has("-default-device"));
  EXPECT_TRUE(has("-DVALUE=3"));
#ifdef NDEBUG
  EXPECT_FALSE(has("-lineinfo"));
#endif
  // No include folder for a kernel that includes nothing from the toolkit: its key does not
  // depend on where the toolkit is installed.
  EXPECT_TRUE(std::none_of(key.options.begin(), key.options.end(),
                           [](const std::string& o) { return o.rfind("--include-path", 0) == 0; }));

  const auto cpp20 = jd::make_key("extern \"C\" __global__ void k() {}", "k.cu", {"k"}, {"-std=c++20"}, {80, false});
  EXPECT_EQ(std::count_if(cpp20.options.begin(), cpp20.options.end(),
                          [](const std::string& o) { return o.rfind("-std=", 0) == 0; }),
            1);
  EXPECT_EQ(jd::make_key("k", "k.cu", {"k"}, {}, {121, true}).options.front(), "-arch=compute_121");
  EXPECT_THROW((void)jd::make_key("k", "k.cu", {"k"}, {"-arch=sm_70"}, {80, false}), nd::compile_error);
  EXPECT_THROW((void)jd::make_key("k", "k.cu", {"k"}, {"--gpu-architecture=sm_70"}, {80, false}), nd::compile_error);
}

TEST(JitKey, EmbeddedHeadersAreAllThereWithAStableChecksum) {
  std::vector<std::string> names;
  for (const auto& h : jd::embedded_headers()) {
    names.emplace_back(h.name);
    EXPECT_FALSE(h.content.empty()) << h.name;
  }
  for (const char* expected : {"ndcuda/complex.cuh", "ndcuda/elementwise.cuh", "ndcuda/indexer.cuh",
                               "ndcuda/numeric.cuh", "ndcuda/reduction.cuh"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), expected), names.end()) << expected;
  }
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  EXPECT_EQ(jd::embedded_headers_checksum().size(), 64U);
  EXPECT_EQ(jd::embedded_headers_checksum(), jd::embedded_headers_checksum());
  EXPECT_TRUE(jd::is_embedded_header("ndcuda/indexer.cuh"));
  EXPECT_FALSE(jd::is_embedded_header("cuda_fp16.h"));
}
