// A generator used on several GPUs: its offset moves with the draws, so a generator made anywhere
// draws on any device and the sequence continues exactly as on one GPU. Needs two GPUs.
#include <gtest/gtest.h>

#include <cstring>
#include <ndcuda/ndcuda.hpp>
#include <ndcuda/random.hpp>
#include <vector>

#include "support/gpu.hpp"

namespace nd = ndcuda;

namespace {

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

}  // namespace

TEST(GeneratorDevices, DrawsMoveBetweenGpusAndContinueTheSequenceMultiGpu) {
  NDCUDA_REQUIRE_GPUS(2);
  const int last = nd::device_count() - 1;
  const std::uint64_t seed = nd::testing::rng()();
  auto moving = nd::random::default_rng(seed);
  auto fixed = nd::random::default_rng(seed);
  const nd::stream s0(0);
  const nd::stream s1(last);
  // The reference draws every array on device 0; `moving` alternates, with sizes that are not
  // multiples of a Philox block, and with a draw that fuses into an expression.
  const std::vector<nd::shape_t> shapes{{1001}, {3, 5}, {4097}, {7}, {64, 3}};
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    SCOPED_TRACE("draw " + std::to_string(i));
    const nd::stream& s = i % 2 == 0 ? s1 : s0;
    const nd::ndarray<float> got = moving.normal<float>(shapes[i], s);
    const nd::ndarray<float> want = fixed.normal<float>(shapes[i], s0);
    EXPECT_EQ(got.device(), s.device());
    EXPECT_TRUE(same_bits(got.to_host(), want.to_host()));
    const nd::ndarray<double> fused = moving.random<double>(shapes[i], s) * 2.0 + 1.0;
    const nd::ndarray<double> fused_want = fixed.random<double>(shapes[i], s0) * 2.0 + 1.0;
    EXPECT_TRUE(same_bits(fused.to_host(), fused_want.to_host()));
  }
  EXPECT_EQ(moving.offset(s1), fixed.offset(s0));
  EXPECT_GT(fixed.offset(s0), 0U);
}

TEST(GeneratorDevices, MovingInsideACaptureIsRefusedWithTheFixMultiGpu) {
  NDCUDA_REQUIRE_GPUS(2);
  const int last = nd::device_count() - 1;
  auto g = nd::random::default_rng(nd::testing::rng()());
  const nd::stream s0(0);
  const nd::stream s1(last);
  const nd::ndarray<float> first = g.random<float>({16}, s0);
  auto out = nd::empty<float>({16}, s1);
  try {
    const nd::graph gr = nd::capture(s1, [&] { out(nd::ellipsis) = g.random<float>({16}, s1); });
    FAIL() << "a generator living on device 0 moved to device " << last << " inside a capture";
  } catch (const nd::capture_error& e) {
    EXPECT_NE(std::string(e.what()).find("before nd::capture"), std::string::npos) << e.what();
  }
  // Drawing once on the device first makes the capture possible.
  (void)nd::ndarray<float>(g.random<float>({1}, s1));
  const nd::graph gr = nd::capture(s1, [&] { out(nd::ellipsis) = g.random<float>({16}, s1); });
  gr.launch(s1);
  const auto a = out.to_host();
  gr.launch(s1);
  const auto b = out.to_host();
  EXPECT_FALSE(same_bits(a, b)) << "replays must draw fresh numbers";
  (void)first;
}
