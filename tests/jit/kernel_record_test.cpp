// The JIT's visible side (issue 40): compile events for a listener, and the kernel record that
// ndcuda-precompile reads. The record round trip through real processes is the CTest
// jit/PrecompiledKernelsAreNeverCompiledAgain (tests/jit_precompile/).
#include "jit/kernel_record.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <mutex>
#include <ndcuda/core/error.hpp>
#include <ndcuda/jit/elementwise_kernel.hpp>
#include <ndcuda/jit/raw_kernel.hpp>
#include <random>
#include <string>
#include <vector>

#include "jit/compile_events.hpp"
#include "jit/program_cache.hpp"
#include "jit_support.hpp"

namespace nd = ndcuda;
namespace jd = ndcuda::jit::detail;

namespace {

std::string fresh_tag() {
  std::random_device rd;
  return std::to_string(rd()) + "_" + std::to_string(rd());
}

// Collects the events for the scope's lifetime.
class captured_events {
 public:
  captured_events() {
    previous_ = nd::jit::set_compile_listener([this](const nd::jit::compile_event& e) {
      std::lock_guard lock(mutex_);
      events_.push_back(e);
    });
  }
  ~captured_events() { nd::jit::set_compile_listener(previous_); }
  captured_events(const captured_events&) = delete;
  captured_events& operator=(const captured_events&) = delete;
  [[nodiscard]] std::vector<nd::jit::compile_event> events() const {
    std::lock_guard lock(mutex_);
    return events_;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<nd::jit::compile_event> events_;
  nd::jit::compile_listener previous_;
};

}  // namespace

TEST(KernelRecord, EveryFieldOfAKeyRoundTrips) {
  jd::kernel_key key = nd::testing::small_key("record " + fresh_tag());
  key.options.push_back("-DWITH_NEWLINE=\"a\nb\"");  // bytes a line-based format would break on
  key.name_expressions.push_back("second<int>");
  std::string text(jd::record_header);
  text += jd::encode_record(key);
  text += jd::encode_record(key);  // a repeat is kept once
  const jd::kernel_key other = nd::testing::small_key("other " + fresh_tag(), 80);
  text += jd::encode_record(other);
  const std::vector<jd::kernel_key> keys = jd::decode_records(text);
  ASSERT_EQ(keys.size(), 2U);
  EXPECT_EQ(keys[0].canonical(), key.canonical());
  EXPECT_EQ(keys[1].canonical(), other.canonical());
  EXPECT_TRUE(jd::mismatch_with_this_process(keys[0]).empty()) << jd::mismatch_with_this_process(keys[0]);
}

TEST(KernelRecord, RetargetingChangesTheArchitectureAndNothingElse) {
  const jd::kernel_key key = nd::testing::small_key("retarget " + fresh_tag(), 90);
  const jd::kernel_key moved = jd::retarget(key, {80, false});
  EXPECT_EQ(moved.target, (jd::compile_target{80, false}));
  EXPECT_EQ(moved.canonical(), nd::testing::small_key(key.source.substr(key.source.find("// ") + 3), 80).canonical());
  EXPECT_EQ(jd::retarget(moved, {90, false}).canonical(), key.canonical());
}

TEST(KernelRecord, AKeyFromAnotherBuildIsNamedAsNeverUsable) {
  jd::kernel_key key = nd::testing::small_key("stale " + fresh_tag());
  key.ndcuda_version = "0.0.0-other";
  EXPECT_NE(jd::mismatch_with_this_process(key).find("0.0.0-other"), std::string::npos);
  key = nd::testing::small_key("stale build " + fresh_tag());
  key.nvrtc_build = "libnvrtc.so.99/1";
  EXPECT_NE(jd::mismatch_with_this_process(key).find("libnvrtc.so.99/1"), std::string::npos);
}

TEST(KernelRecord, MalformedRecordsAreRefusedWithWhereAndWhat) {
  const std::string header(jd::record_header);
  const std::string good = jd::encode_record(nd::testing::small_key("malformed " + fresh_tag()));
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", "does not start with"},
      {"ndcuda-jit-record 2\n", "does not start with"},
      {header + good.substr(0, good.size() / 2), "not a valid ndcuda kernel record at byte"},
      {header + "begin 0\n\nsource 18446744073709551615\nx\n", "more than the file holds"},
      {header + "begin 0\n\nsource 99999999999999999999999\nx\n", "is not a number"},
      {header + "begin 0\n\nwhat 1\nx\nend 0\n\n", "unknown field 'what'"},
      {header + "begin 0\n\nend 0\n\n", "needs a target, a source and a kernel name"},
      {header + "begin 0\n\ntarget 5\nsm_xx\n", "is not a number"},
      {header + "end 0\n\n", "must start with 'begin'"},
      {header + "begin 0\n", "claims 0 bytes"},
      {header + std::string(100, 'x'), "\"<tag> <byte count>\""},
  };
  for (const auto& [text, expected] : cases) {
    try {
      (void)jd::decode_records(text);
      ADD_FAILURE() << "accepted: " << text.substr(0, 80);
    } catch (const nd::compile_error& e) {
      EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
    }
  }
}

TEST(CompileEvents, AListenerSeesTheCompileThenAMemoryHitWithTheBody) {
  const captured_events captured;
  const std::string tag = fresh_tag();
  const nd::elementwise_kernel<float(float, float)> kernel("out = x * y + " + std::to_string(tag.size()) + ".0f",
                                                           "event_probe_" + tag.substr(0, tag.find('_')));
  kernel.compile({9, 0});
  kernel.compile({9, 0});
  const std::vector<nd::jit::compile_event> events = captured.events();
  ASSERT_EQ(events.size(), 2U);
  const auto& first = events[0];
  EXPECT_EQ(first.kernel.rfind("event_probe_", 0), 0U) << first.kernel;
  EXPECT_EQ(first.description, "out = x * y + " + std::to_string(tag.size()) + ".0f");
  EXPECT_EQ(first.target, "sm_90");
  EXPECT_NE(first.from, nd::jit::compile_event::origin::memory);  // compiled (or a disk hit)
  EXPECT_GT(first.milliseconds, 0.0);
  EXPECT_GT(first.source_lines, 5U);
  EXPECT_EQ(events[1].from, nd::jit::compile_event::origin::memory);
  EXPECT_EQ(events[1].kernel, first.kernel);
  EXPECT_LT(events[1].milliseconds, first.milliseconds);
}

TEST(CompileEvents, AThrowingListenerNeverFailsTheKernel) {
  const auto previous = nd::jit::set_compile_listener([](const nd::jit::compile_event&) { throw 42; });
  const nd::raw_kernel kernel("extern \"C\" __global__ void listener_throws(float* x) { *x = 1; } // " + fresh_tag(),
                              "listener_throws");
  EXPECT_NO_THROW(kernel.compile({8, 0}));
  nd::jit::set_compile_listener(previous);
}
