// Device isolation, op family by op family: each family runs on the LAST visible GPU with no
// device_guard (no context current, so CUDA's "current device" is 0), through arrays and streams
// of that GPU only, checks its results against the host, and then asks the driver whether any
// other GPU got a primary context. ctest runs every family in a process of its own, so a family
// that breaks isolation is named by its own failing test. Needs two GPUs (the last one is the
// target; with four, GPUs 0-2 must stay untouched).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <ndcuda/dist.hpp>
#include <ndcuda/fft.hpp>
#include <ndcuda/io.hpp>
#include <ndcuda/linalg.hpp>
#include <ndcuda/ndcuda.hpp>
#include <ndcuda/random.hpp>
#include <numeric>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "support/contexts.hpp"
#include "support/gpu.hpp"
#include "support/random_inputs.hpp"

namespace nd = ndcuda;

namespace {

struct family {
  const char* name;
  std::function<void(int device)> run;  // works on `device` only and asserts its own results
};

std::vector<float> values(std::size_t n, double lo = -4.0, double hi = 4.0) {
  return nd::testing::uniform_values<float>(n, lo, hi);
}

void expect_near_all(const std::vector<float>& got, const std::vector<double>& want, double rel) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    ASSERT_NEAR(got[i], want[i], rel * (1.0 + std::abs(want[i]))) << "element " << i;
  }
}

// ---- the families ---------------------------------------------------------------------------------

void creation(int dev) {
  const nd::stream s(dev);
  const auto a = nd::arange<float>(1000, s);
  const auto z = nd::zeros<double>({7, 9}, s);
  const auto f = nd::full<std::int32_t>({5}, 42, s);
  const auto l = nd::linspace<double>(0.0, 1.0, 11, true, s);
  EXPECT_EQ(a.device(), dev);
  EXPECT_EQ(a.to_host()[999], 999.0F);
  EXPECT_EQ(z.to_host()[62], 0.0);
  EXPECT_EQ(f.to_host()[4], 42);
  EXPECT_NEAR(l.to_host()[5], 0.5, 1e-15);
  const auto copy = a.copy();
  EXPECT_EQ(copy.to_host()[17], 17.0F);
}

void fused_expression_two_streams(int dev) {
  const nd::stream s1(dev);
  const nd::stream s2(dev);
  const std::size_t n = 4097;
  const auto hx = values(n);
  const auto hy = values(n);
  const auto x = nd::asarray<float>(hx, {static_cast<nd::index_t>(n)}, s1);
  const auto y = nd::asarray<float>(hy, {static_cast<nd::index_t>(n)}, s2);
  const nd::ndarray<float> r = x * 2.0F + nd::sin(y);  // y's stream is ordered into x's
  std::vector<double> want(n);
  for (std::size_t i = 0; i < n; ++i) {
    want[i] = 2.0 * hx[i] + std::sin(static_cast<double>(hy[i]));
  }
  expect_near_all(r.to_host(), want, 1e-6);
  auto w = y.copy();
  w += x;
  w(nd::slice(0, 10)) = 0.0F;
  const auto hw = w.to_host();
  EXPECT_EQ(hw[3], 0.0F);
  EXPECT_NEAR(hw[100], double(hx[100]) + hy[100], 1e-5);
}

void reductions(int dev) {
  const nd::stream s(dev);
  const auto h = values(std::size_t{3} * 1001);
  const auto a = nd::asarray<float>(h, {3, 1001}, s);
  double total = 0;
  double row0_max = -1e9;
  for (std::size_t i = 0; i < h.size(); ++i) {
    total += h[i];
    if (i < 1001) {
      row0_max = std::max(row0_max, static_cast<double>(h[i]));
    }
  }
  EXPECT_NEAR(nd::sum(a).item(), total, 1e-3 * (1 + std::abs(total)));
  const nd::ndarray<float> rows = nd::max(a, 1);
  EXPECT_EQ(rows.to_host()[0], static_cast<float>(row0_max));
  EXPECT_NEAR(
      nd::mean(a * a).item(),
      [&] {
        double m = 0;
        for (float v : h) {
          m += double(v) * v;
        }
        return m / static_cast<double>(h.size());
      }(),
      1e-4);
  const auto c = nd::cumsum(nd::ones<std::int32_t>({100}, s));
  EXPECT_EQ(c.to_host()[99], 100);
  EXPECT_EQ(nd::min(a).item(), *std::min_element(h.begin(), h.end()));
  EXPECT_EQ(nd::argmax(a).item(), std::max_element(h.begin(), h.end()) - h.begin());
}

void random_draw(int dev) {
  const nd::stream s(dev);
  auto g = nd::random::default_rng(nd::testing::rng()());
  const nd::ndarray<float> u = g.random<float>({1 << 16}, s);
  const auto h = u.to_host();
  double mean = 0;
  for (float v : h) {
    ASSERT_GE(v, 0.0F);
    ASSERT_LT(v, 1.0F);
    mean += v;
  }
  EXPECT_NEAR(mean / static_cast<double>(h.size()), 0.5, 0.01);
  const nd::ndarray<float> mixed = u + 0.5F * g.normal<float>({1 << 16}, s);
  EXPECT_EQ(mixed.device(), dev);
  (void)g.offset(s);
  const auto perm = g.permutation(100, s).to_host();
  std::vector<std::int64_t> sorted(perm.begin(), perm.end());
  std::sort(sorted.begin(), sorted.end());
  for (std::int64_t i = 0; i < 100; ++i) {
    ASSERT_EQ(sorted[static_cast<std::size_t>(i)], i);
  }
}

void sorting_and_sets(int dev) {
  const nd::stream s(dev);
  const auto h = values(5000, -100, 100);
  const auto a = nd::asarray<float>(h, {5000}, s);
  auto want = h;
  std::sort(want.begin(), want.end());
  EXPECT_EQ(nd::sort(a).to_host(), want);
  const auto idx = nd::argsort(a).to_host();
  EXPECT_EQ(h[static_cast<std::size_t>(idx[0])], want[0]);
  const auto [top, where] = nd::topk(a, 3);
  EXPECT_EQ(top.to_host()[0], want.back());
  (void)where;
  const auto ints = nd::asarray<std::int32_t>(std::vector<std::int32_t>{3, 1, 3, 2, 1}, {5}, s);
  EXPECT_EQ(nd::unique(ints).to_host(), (std::vector<std::int32_t>{1, 2, 3}));
}

// Indexing in four families, so that a failure names the operation.
void mask_select(int dev) {
  const nd::stream s(dev);
  const auto h = values(1000);
  const auto a = nd::asarray<float>(h, {1000}, s);
  const nd::ndarray<float> positive = a(a > 0.0F);
  const auto count = static_cast<std::size_t>(std::count_if(h.begin(), h.end(), [](float v) { return v > 0; }));
  EXPECT_EQ(positive.size(), static_cast<nd::index_t>(count));
}

void take(int dev) {
  const nd::stream s(dev);
  const auto h = values(1000);
  const auto a = nd::asarray<float>(h, {1000}, s);
  const auto i = nd::asarray<std::int64_t>(std::vector<std::int64_t>{5, 0, 999}, {3}, s);
  EXPECT_EQ(nd::take(a, i).to_host(), (std::vector<float>{h[5], h[0], h[999]}));
  EXPECT_EQ(nd::ndarray<float>(a(i)).to_host(), (std::vector<float>{h[5], h[0], h[999]}));
}

void mask_assign(int dev) {
  const nd::stream s(dev);
  const auto h = values(1000);
  auto b = nd::asarray<float>(h, {1000}, s);
  b(b < 0.0F) = 0.0F;
  const auto got = b.to_host();
  for (std::size_t k = 0; k < h.size(); ++k) {
    ASSERT_EQ(got[k], h[k] < 0 ? 0.0F : h[k]);
  }
}

void joining(int dev) {
  const nd::stream s(dev);
  const auto h = values(1000);
  const auto a = nd::asarray<float>(h, {1000}, s);
  const auto joined = nd::concatenate(std::vector<nd::ndarray<float>>{a, a});
  EXPECT_EQ(joined.size(), 2000);
  EXPECT_EQ(joined.to_host()[1500], h[500]);
}

void raw_and_elementwise_kernels(int dev) {
  const nd::stream s(dev);
  const auto h = values(4096);
  const auto in = nd::asarray<float>(h, {4096}, s);
  const auto out = nd::empty<float>({4096}, s);
  const nd::raw_kernel negate(
      "extern \"C\" __global__ void negate_iso(float* o, const float* i, int n) {"
      "  int k = blockIdx.x * blockDim.x + threadIdx.x; if (k < n) o[k] = -i[k]; }",
      "negate_iso");
  const auto config = negate.occupancy_config(4096, s);
  negate(config.grid, config.block, 0, s, out.data(), in.data(), 4096);
  const auto got = out.to_host();
  for (std::size_t k = 0; k < h.size(); ++k) {
    ASSERT_EQ(got[k], -h[k]);
  }
  const nd::elementwise_kernel<float(float, float)> k("out = x * 3.5f + y", "iso_scaled");
  k(4096, out.data(), in.data(), in.data(), s);
  const auto got2 = out.to_host();
  EXPECT_FLOAT_EQ(got2[7], h[7] * 3.5F + h[7]);
}

void products_and_solvers(int dev) {
  const nd::stream s(dev);
  const nd::index_t n = 64;
  const auto ha = values(static_cast<std::size_t>(n * n));
  const auto hb = values(static_cast<std::size_t>(n * n));
  const auto a = nd::asarray<float>(ha, {n, n}, s);
  const auto b = nd::asarray<float>(hb, {n, n}, s);
  const nd::ndarray<float> c = nd::matmul(a, b);
  const auto hc = c.to_host();
  double want = 0;
  for (nd::index_t k = 0; k < n; ++k) {
    want += double(ha[static_cast<std::size_t>(3 * n + k)]) * hb[static_cast<std::size_t>(k * n + 5)];
  }
  EXPECT_NEAR(hc[static_cast<std::size_t>(3 * n + 5)], want, 1e-3 * (1 + std::abs(want)));
  // A well-conditioned system: a + n I.
  std::vector<double> hm(static_cast<std::size_t>(n * n));
  for (nd::index_t i = 0; i < n * n; ++i) {
    hm[static_cast<std::size_t>(i)] = ha[static_cast<std::size_t>(i)] + (i % (n + 1) == 0 ? double(n) : 0.0);
  }
  const auto m = nd::asarray<double>(hm, {n, n}, s);
  const auto x = nd::ones<double>({n}, s);
  const nd::ndarray<double> rhs = nd::matmul(m, x);
  const nd::ndarray<double> solved = nd::linalg::solve(m, rhs);
  for (double v : solved.to_host()) {
    ASSERT_NEAR(v, 1.0, 1e-9);
  }
}

void fft(int dev) {
  const nd::stream s(dev);
  const auto h = values(256);
  const auto a = nd::asarray<float>(h, {256}, s);
  const auto spectrum = nd::ndarray<std::complex<float>>(nd::fft::rfft(a)).to_host();
  double dc = 0;
  for (float v : h) {
    dc += v;
  }
  EXPECT_NEAR(spectrum[0].real(), dc, 1e-3 * (1 + std::abs(dc)));
  const nd::ndarray<float> back = nd::fft::irfft(nd::ndarray<std::complex<float>>(nd::fft::rfft(a)), 256);
  std::vector<double> want(h.begin(), h.end());
  expect_near_all(back.to_host(), want, 1e-5);
}

void host_memory_and_io(int dev) {
  const nd::stream s(dev);
  const std::size_t n = 1 << 20;
  const auto h = values(n);
  // A pinned block of the pool, filled on the host, copied in directly and read back into another.
  auto pool = nd::default_pinned_pool();
  void* in = pool->allocate(n * sizeof(float), s);
  std::copy(h.begin(), h.end(), static_cast<float*>(in));
  const auto a =
      nd::asarray<float>(std::span<const float>(static_cast<const float*>(in), n), {static_cast<nd::index_t>(n)}, s);
  void* out = pool->allocate(n * sizeof(float), s);
  a.copy_to_host(static_cast<float*>(out), s);
  {
    const nd::device_guard guard(dev);  // the raw wait below; ndcuda's own waits need no guard
    s.synchronize();
  }
  EXPECT_TRUE(std::equal(h.begin(), h.end(), static_cast<const float*>(out)));
  pool->deallocate(in, n * sizeof(float), s);
  pool->deallocate(out, n * sizeof(float), s);
  // Pageable reads, printing and .npy files.
  EXPECT_EQ(a.to_host_vector()[n - 1], h[n - 1]);
  std::ostringstream text;
  text << a(nd::slice(0, 4));
  EXPECT_NE(text.str().find("array("), std::string::npos);
  const auto path = std::filesystem::temp_directory_path() / ("ndcuda_iso_" + std::to_string(::getpid()) + ".npy");
  nd::save_npy(path, a(nd::slice(0, 100)));
  const auto loaded = nd::load_npy<float>(path, s);
  std::filesystem::remove(path);
  EXPECT_EQ(loaded.device(), dev);
  EXPECT_EQ(loaded.to_host()[99], h[99]);
}

void graph_capture(int dev) {
  const nd::stream s(dev);
  const auto h = values(10000);
  const auto a = nd::asarray<float>(h, {10000}, s);
  auto d = nd::empty<float>({10000}, s);
  auto total = nd::empty<float>(nd::shape_t{}, s);
  const nd::graph g = nd::capture(s, [&] {
    d(nd::ellipsis) = a * 3.0F;
    total(nd::ellipsis) = nd::sum(d);
  });
  g.launch(s);
  g.launch(s);
  double want = 0;
  for (float v : h) {
    want += 3.0 * v;
  }
  EXPECT_NEAR(total.item(), want, 1e-3 * (1 + std::abs(want)));
}

void another_thread(int dev) {
  // A thread that never chose a device does the same work as the first families.
  std::thread worker([dev] {
    creation(dev);
    reductions(dev);
  });
  worker.join();
}

void one_rank_communicator(int dev) {
  const nd::dist::communicator comm(std::vector<int>{dev}, {std::chrono::seconds(60)});
  const auto h = values(999);
  const auto x = nd::dist::distribute<float>(h, {999}, comm);
  double want = 0;
  for (float v : h) {
    want += 2.0 * v;
  }
  EXPECT_NEAR(nd::dist::sum(x * 2.0F).local_shard(0).item(), want, 1e-3 * (1 + std::abs(want)));
  auto g = nd::random::default_rng(nd::testing::rng()());
  const auto r = nd::dist::distribute(g.random<float>({999}, comm.stream(0)), comm);
  EXPECT_EQ(r.local_shard(0).device(), dev);
  comm.synchronize();
}

const std::vector<family>& families() {
  static const std::vector<family> all{
      {"creation", creation},
      {"fused_expression_two_streams", fused_expression_two_streams},
      {"reductions", reductions},
      {"random_draw", random_draw},
      {"sorting_and_sets", sorting_and_sets},
      {"mask_select", mask_select},
      {"take", take},
      {"mask_assign", mask_assign},
      {"joining", joining},
      {"raw_and_elementwise_kernels", raw_and_elementwise_kernels},
      {"products_and_solvers", products_and_solvers},
      {"fft", fft},
      {"host_memory_and_io", host_memory_and_io},
      {"graph_capture", graph_capture},
      {"another_thread", another_thread},
      {"one_rank_communicator", one_rank_communicator},
  };
  return all;
}

class OpFamilyIsolation : public ::testing::TestWithParam<std::size_t> {};

}  // namespace

TEST_P(OpFamilyIsolation, TouchesNoOtherDeviceMultiGpu) {
  NDCUDA_REQUIRE_GPUS(2);
  const family& f = families()[GetParam()];
  const int target = nd::device_count() - 1;
  for (int i = 0; i < nd::device_count(); ++i) {
    ASSERT_FALSE(nd::testing::primary_context_active(i))
        << "device " << i << " already has a context before '" << f.name << "' ran; run each family in its own process";
  }
  f.run(target);
  EXPECT_TRUE(nd::testing::primary_context_active(target)) << f.name << " never reached device " << target;
  for (int i = 0; i < target; ++i) {
    EXPECT_FALSE(nd::testing::primary_context_active(i))
        << "op family '" << f.name << "' on device " << target << " created a context on device " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Families, OpFamilyIsolation, ::testing::Range<std::size_t>(0, families().size()),
                         [](const ::testing::TestParamInfo<std::size_t>& info) {
                           return std::string(families()[info.param].name);
                         });

// Work on another device through its own stream and arrays (internal guards, no context current
// before) must not move the thread's current device: otherwise every later default-stream call
// would silently run there. A user's own guard moves it for its scope only.
TEST(CurrentDevice, InternalGuardsLeaveTheThreadsDeviceWhereItWasMultiGpu) {
  NDCUDA_REQUIRE_GPUS(2);
  const int last = nd::device_count() - 1;
  const int before = nd::current_device().index();
  ASSERT_NE(before, last) << "a fresh process starts on device 0";
  {
    const nd::stream s(last);
    const auto values = nd::testing::uniform_values<float>(100, -1.0, 1.0);
    const auto a = nd::asarray<float>(values, {100}, s);
    EXPECT_EQ(nd::ndarray<float>(a * 2.0F).to_host()[7], values[7] * 2.0F);
  }
  EXPECT_EQ(nd::current_device().index(), before);
  EXPECT_EQ(nd::default_stream().device(), before);
  {
    const nd::device_guard guard(last);
    EXPECT_EQ(nd::current_device().index(), last);
    EXPECT_EQ(nd::default_stream().device(), last);
  }
  EXPECT_EQ(nd::current_device().index(), before);
}
