// Programmatic dependent launch on the GPU: a chain of about 230 dependent elementwise ops and
// reductions on one stream (sizes from 1 to 2^20; raw_kernel launches and a device-to-device
// cudaMemcpyAsync in between), each reading what the one before wrote or overwriting what it read, checked
// against a host reference in double, eagerly and as a captured graph replayed 100 times. Every
// run depends on a counter the run before advanced, so an op that ran ahead of its predecessor
// (a missing griddepcontrol.wait) would read values of another step and fail the comparison.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <ndcuda/ndcuda.hpp>
#include <string>
#include <vector>

#include "support/gpu.hpp"
#include "support/random_inputs.hpp"

namespace nd = ndcuda;

namespace {

constexpr nd::index_t big = nd::index_t{1} << 20;
constexpr nd::index_t big_side = nd::index_t{1} << 10;

// Sizes of the chain's segments, in order: each starts from the previous segment's reduction.
const std::vector<nd::index_t> sizes = {1, big, 3, 1000, 65543, 17, 4097, 255, 100003, 2, 31, 1};

int rounds(nd::index_t n) {
  return n <= 4097 ? 10 : 1;  // many small ops, few large ones (the host reference pays for them)
}

bool uses_raw_kernel(std::size_t segment) {
  return segment % 2 == 1;
}

// A user kernel: launched without PDL between PDL kernels, in place on the chain's array.
const nd::raw_kernel& affine_kernel() {
  static const nd::raw_kernel k(R"(
extern "C" __global__ void pdl_test_affine(double* v, double a, double b, long long n) {
  for (long long i = blockIdx.x * 1ll * blockDim.x + threadIdx.x; i < n; i += 1ll * gridDim.x * blockDim.x) {
    v[i] = v[i] * a + b;
  }
})",
                                "pdl_test_affine");
  return k;
}

constexpr double raw_a = 0.5;
constexpr double raw_b = 0.125;

struct host_chain {
  std::vector<std::vector<double>> w;
  std::vector<std::vector<double>> v;
  double carry = 0.0;
  double step = 0.0;

  void run() {
    step += 1.0;
    for (std::size_t seg = 0; seg < sizes.size(); ++seg) {
      const auto n = static_cast<std::size_t>(sizes[seg]);
      std::vector<double>& x = v[seg];
      const std::vector<double>& ws = w[seg];
      for (std::size_t i = 0; i < n; ++i) {
        x[i] = ws[i] + carry * 0.5 + step;
      }
      for (int k = 0; k < rounds(sizes[seg]); ++k) {
        for (std::size_t i = 0; i < n; ++i) {
          const double t = x[i] * 0.75 + ws[i];
          x[i] = t * 0.5 - ws[i] * 0.25 + step * 0.01;
        }
      }
      if (uses_raw_kernel(seg)) {
        for (double& e : x) {
          e = e * raw_a + raw_b;
        }
      }
      if (sizes[seg] == big) {
        const auto side = static_cast<std::size_t>(big_side);
        double total = 0.0;
        for (std::size_t j = 0; j < side; ++j) {
          double row = 0.0;
          double column = 0.0;
          for (std::size_t i = 0; i < side; ++i) {
            row += x[j * side + i];
            column += x[i * side + j];
          }
          total += row * 1e-3 + column / static_cast<double>(side);
        }
        carry = total / static_cast<double>(side);
      } else {
        double sum = 0.0;
        for (double e : x) {
          sum += e;
        }
        carry = sum / static_cast<double>(n) + *std::max_element(x.begin(), x.end()) * 0.25;
      }
    }
  }
};

struct device_chain {
  nd::stream s;
  std::vector<nd::ndarray<double>> w;
  std::vector<nd::ndarray<double>> v;
  std::vector<nd::ndarray<double>> t;
  nd::ndarray<double> copy;  // the big segment's array, copied by cudaMemcpyAsync
  nd::ndarray<double> carry;
  nd::ndarray<double> step;

  explicit device_chain(const host_chain& h)
      : s(0), copy(nd::empty<double>({big}, s)), carry(nd::zeros<double>({1}, s)), step(nd::zeros<double>({1}, s)) {
    for (std::size_t seg = 0; seg < sizes.size(); ++seg) {
      w.push_back(nd::asarray<double>(h.w[seg], {sizes[seg]}, s));
      v.push_back(nd::empty<double>({sizes[seg]}, s));
      t.push_back(nd::empty<double>({sizes[seg]}, s));
    }
  }

  void run() {
    step(nd::ellipsis) = step + 1.0;
    for (std::size_t seg = 0; seg < sizes.size(); ++seg) {
      nd::ndarray<double>& x = v[seg];
      const nd::ndarray<double>& ws = w[seg];
      x(nd::ellipsis) = ws + carry * 0.5 + step;  // reads the previous segment's reduction (another size)
      for (int k = 0; k < rounds(sizes[seg]); ++k) {
        t[seg](nd::ellipsis) = x * 0.75 + ws;                      // reads what the op before wrote
        x(nd::ellipsis) = t[seg] * 0.5 - ws * 0.25 + step * 0.01;  // overwrites what the op before read
      }
      if (uses_raw_kernel(seg)) {
        const nd::raw_kernel& k = affine_kernel();
        k.launch(k.occupancy_config(static_cast<std::size_t>(sizes[seg]), s), s, x.data(), raw_a, raw_b,
                 static_cast<long long>(sizes[seg]));
      }
      if (sizes[seg] == big) {
        // A memcpy node between kernels: a PDL reduction then reads what the copy wrote.
        NDCUDA_CUDA_CHECK(cudaMemcpyAsync(copy.data(), x.data(), x.nbytes(), cudaMemcpyDeviceToDevice, s.handle()));
        const nd::ndarray<double> m = copy.reshape({big_side, big_side});
        const nd::ndarray<double> rows = nd::sum(m, 1);
        const nd::ndarray<double> columns = nd::mean(m, 0);
        carry(nd::ellipsis) = nd::mean(rows * 1e-3 + columns, nd::keepdims);
      } else {
        carry(nd::ellipsis) = nd::mean(x, nd::keepdims) + nd::max(x, nd::keepdims) * 0.25;
      }
    }
  }
};

void expect_close(const std::vector<double>& got, const std::vector<double>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < got.size(); ++i) {
    // Only the summation order of the reductions differs from the host.
    ASSERT_NEAR(got[i], want[i], 1e-9 * (1.0 + std::abs(want[i]))) << what << " at " << i;
  }
}

void expect_matches(const device_chain& d, const host_chain& h, const std::string& when) {
  expect_close(d.step.to_host(), {h.step}, when + ": step");
  expect_close(d.carry.to_host(), {h.carry}, when + ": carry");
  for (std::size_t seg = 0; seg < sizes.size(); ++seg) {
    expect_close(d.v[seg].to_host(), h.v[seg],
                 when + ": segment " + std::to_string(seg) + " of size " + std::to_string(sizes[seg]));
  }
}

host_chain make_host_chain() {
  host_chain h;
  for (nd::index_t n : sizes) {
    h.w.push_back(nd::testing::uniform_values<double>(static_cast<std::size_t>(n), -1.0, 1.0));
    h.v.emplace_back(static_cast<std::size_t>(n), 0.0);
  }
  return h;
}

}  // namespace

TEST(DependentLaunchGpu, ChainOfDependentOpsMatchesTheHostEagerly) {
  NDCUDA_REQUIRE_GPU();
  host_chain h = make_host_chain();
  device_chain d(h);
  for (int r = 0; r < 3; ++r) {
    d.run();
    h.run();
  }
  expect_matches(d, h, "eager");
}

TEST(DependentLaunchGpu, CapturedChainReplayed100TimesMatchesTheHost) {
  NDCUDA_REQUIRE_GPU();
  host_chain h = make_host_chain();
  device_chain d(h);
  d.run();  // compiles and loads every kernel outside the capture
  h.run();
  expect_matches(d, h, "eager warm-up");
  nd::graph g = nd::capture(d.s, [&] { d.run(); });
  ASSERT_TRUE(g);
  EXPECT_GE(g.node_count(), 200U);
  g.upload(d.s);
  g.launch(d.s);
  h.run();
  expect_matches(d, h, "replay 1");
  for (int r = 2; r <= 100; ++r) {
    g.launch(d.s);
    h.run();
  }
  expect_matches(d, h, "replay 100");
  // Eager launches after the replays still see the graph's last writes.
  d.run();
  h.run();
  expect_matches(d, h, "eager after the replays");
}
