// ndarray on the GPU: creation against formulas evaluated in double, host round trips on fresh
// random data, views read back against the same layout walked on the host, astype, item, 0-d and
// empty arrays, asynchronous copy_to_host. Skips without a GPU.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <ndcuda/array/creation.hpp>
#include <ndcuda/array/ndarray.hpp>
#include <sstream>
#include <vector>

#include "support/gpu.hpp"
#include "support/random_inputs.hpp"

namespace nd = ndcuda;

namespace {

// The elements a layout selects from a C-order host buffer, in C order: the host reference for views.
template <class T>
std::vector<T> gather(const std::vector<T>& base, const nd::view_layout& v) {
  std::vector<T> out;
  const nd::index_t n = nd::shape_size(v.shape);
  std::vector<nd::index_t> idx(v.shape.size(), 0);
  for (nd::index_t k = 0; k < n; ++k) {
    nd::index_t at = v.offset;
    for (std::size_t d = 0; d < idx.size(); ++d) {
      at += idx[d] * v.strides[d];
    }
    out.push_back(base[static_cast<std::size_t>(at)]);
    for (std::size_t d = idx.size(); d-- > 0;) {
      if (++idx[d] < v.shape[d]) {
        break;
      }
      idx[d] = 0;
    }
  }
  return out;
}

}  // namespace

TEST(ArrayGpu, FilledCreation) {
  NDCUDA_REQUIRE_GPU();
  EXPECT_EQ(nd::zeros<float>({3, 4}).to_host(), std::vector<float>(12, 0.0f));
  EXPECT_EQ(nd::ones<std::int64_t>({5}).to_host(), std::vector<std::int64_t>(5, 1));
  EXPECT_EQ(nd::full<std::complex<double>>({2, 2}, {1.5, -2.0}).to_host(),
            std::vector<std::complex<double>>(4, {1.5, -2.0}));
  EXPECT_EQ(nd::ones<bool>({7}).to_host(), std::vector<bool>(7, true));
  const auto h = nd::ones<__half>({3}).to_host();
  for (const __half& x : h) {
    EXPECT_EQ(__half2float(x), 1.0f);
  }
  const auto a = nd::full<std::int16_t>({2, 3}, 7);
  EXPECT_EQ(nd::zeros_like(a).to_host(), std::vector<std::int16_t>(6, 0));
  EXPECT_EQ(nd::full_like(a, std::int16_t{-3}).to_host(), std::vector<std::int16_t>(6, -3));
  EXPECT_EQ(nd::ones_like(a).shape(), (nd::shape_t{2, 3}));
  EXPECT_EQ(nd::empty_like(a).shape(), (nd::shape_t{2, 3}));
}

TEST(ArrayGpu, ArangeAndLinspaceMatchFormulasInDouble) {
  NDCUDA_REQUIRE_GPU();
  const auto f = nd::arange<double>(0.5, 3.0, 0.3).to_host();  // NumPy length: ceil(2.5 / 0.3) = 9
  ASSERT_EQ(f.size(), 9U);
  for (std::size_t i = 0; i < f.size(); ++i) {
    EXPECT_DOUBLE_EQ(f[i], 0.5 + static_cast<double>(i) * 0.3);
  }
  EXPECT_EQ(nd::arange<std::int32_t>(5).to_host(), (std::vector<std::int32_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(nd::arange<std::int64_t>(10, 0, -3).to_host(), (std::vector<std::int64_t>{10, 7, 4, 1}));
  EXPECT_EQ(nd::arange<float>(3, 1).size(), 0);
  const auto l = nd::linspace<double>(-1.0, 2.0, 7).to_host();
  ASSERT_EQ(l.size(), 7U);
  for (std::size_t i = 0; i < 6; ++i) {
    EXPECT_DOUBLE_EQ(l[i], -1.0 + static_cast<double>(i) * 0.5);
  }
  EXPECT_EQ(l[6], 2.0);
  const auto open = nd::linspace<float>(0.0, 1.0, 4, false).to_host();
  EXPECT_EQ(open, (std::vector<float>{0.0f, 0.25f, 0.5f, 0.75f}));
  EXPECT_EQ(nd::linspace<std::int32_t>(-1.0, 1.0, 5).to_host(), (std::vector<std::int32_t>{-1, -1, 0, 0, 1}));
  EXPECT_EQ(nd::linspace<double>(3.0, 4.0, 1).to_host(), std::vector<double>{3.0});
}

TEST(ArrayGpu, EyeAndIdentity) {
  NDCUDA_REQUIRE_GPU();
  for (nd::index_t k : {-2, -1, 0, 1, 3, 5}) {
    const auto e = nd::eye<float>(3, 4, k).to_host();
    for (nd::index_t i = 0; i < 3; ++i) {
      for (nd::index_t j = 0; j < 4; ++j) {
        EXPECT_EQ(e[static_cast<std::size_t>(i * 4 + j)], j - i == k ? 1.0f : 0.0f) << k;
      }
    }
  }
  const auto id = nd::identity<std::complex<float>>(2).to_host();
  EXPECT_EQ(id, (std::vector<std::complex<float>>{1.0f, 0.0f, 0.0f, 1.0f}));
}

TEST(ArrayGpu, HostRoundTripsOnRandomData) {
  NDCUDA_REQUIRE_GPU();
  const auto src = nd::testing::uniform_values<double>(3001, -100.0, 100.0);
  EXPECT_EQ(nd::asarray(src, {3001}).to_host(), src);
  std::vector<float> f(src.begin(), src.end());
  EXPECT_EQ(nd::asarray(std::span<const float>(f), {3001}).to_host(), f);
  std::vector<std::int8_t> i8;
  std::vector<std::uint16_t> u16;
  std::vector<std::complex<float>> c;
  std::vector<bool> b;
  for (double x : src) {
    i8.push_back(static_cast<std::int8_t>(x));
    u16.push_back(static_cast<std::uint16_t>(std::fabs(x) * 600));
    c.emplace_back(static_cast<float>(x), static_cast<float>(-x / 3));
    b.push_back(x > 0);
  }
  EXPECT_EQ(nd::asarray(i8).to_host(), i8);
  EXPECT_EQ(nd::asarray(u16, {3001, 1}).to_host(), u16);
  EXPECT_EQ(nd::asarray(c).to_host(), c);
  EXPECT_EQ(nd::asarray(b).to_host(), b);
  std::shared_ptr<const double[]> shared(new double[4]{1, 2, 3, 4});
  EXPECT_EQ(nd::asarray(shared, {2, 2}).to_host(), (std::vector<double>{1, 2, 3, 4}));
  EXPECT_THROW((void)nd::asarray(src, {2, 2}), nd::shape_error);
}

TEST(ArrayGpu, ViewsReadBackLikeTheHostLayout) {
  NDCUDA_REQUIRE_GPU();
  const auto host = nd::testing::uniform_values<double>(4 * 5 * 6, -100.0, 100.0);
  const auto a = nd::asarray(host, {4, 5, 6});
  const auto check = [&](const nd::ndarray<double>& v) {
    EXPECT_EQ(v.owner(), a.owner());
    EXPECT_EQ(v.to_host(), gather(host, v.layout())) << nd::format_shape(v.shape());
  };
  check(a(nd::slice(nd::none, nd::none, -1), nd::slice(1, 5, 2), nd::all));
  check(a(-1, nd::ellipsis, nd::slice(5, 0, -2)));
  check(a(nd::all, nd::newaxis, 2));
  check(a.T());
  check(a.transpose({1, 0, 2}));
  check(a.swapaxes(0, 2)(nd::slice(1, 4), nd::all, 3));
  check(a(1).broadcast_to({3, 5, 6}));
  check(a(nd::all, 0, 0).expand_dims({1}).broadcast_to({4, 7}));
  check(a.reshape({20, 6}));
  check(a(2, 3, 4));
  EXPECT_DOUBLE_EQ(a(2, 3, 4).item(), host[2 * 30 + 3 * 6 + 4]);
  const auto stride0 = a(0, 0, nd::all).broadcast_to({2, 6});
  EXPECT_EQ(stride0.strides(), (nd::strides_t{0, 1}));
}

TEST(ArrayGpu, ReshapeCopiesOnlyWhenNeeded) {
  NDCUDA_REQUIRE_GPU();
  const auto host = nd::testing::uniform_values<double>(24, -100.0, 100.0);
  const auto a = nd::asarray(host, {4, 6});
  const auto t = a.T();
  const auto flat = t.reshape({-1});  // a transpose cannot be flattened in place
  EXPECT_NE(flat.owner(), a.owner());
  EXPECT_EQ(flat.to_host(), gather(host, t.layout()));
  EXPECT_EQ(a.ravel().owner(), a.owner());
  EXPECT_NE(a.flatten().owner(), a.owner());
  EXPECT_EQ(t.reshape({6, 2, 2}).owner(), a.owner());
  const auto c = nd::ascontiguousarray(t);
  EXPECT_TRUE(c.is_contiguous());
  EXPECT_EQ(c.to_host(), gather(host, t.layout()));
  EXPECT_EQ(nd::ascontiguousarray(a).owner(), a.owner());
  const auto deep = a.copy();
  EXPECT_NE(deep.data(), a.data());
  EXPECT_EQ(deep.to_host(), host);
}

TEST(ArrayGpu, AstypeFollowsNumPy) {
  NDCUDA_REQUIRE_GPU();
  const auto f = nd::asarray(std::vector<double>{-2.7, -0.5, 0.0, 0.5, 2.7, 3.0});
  EXPECT_EQ(f.astype<std::int32_t>().to_host(), (std::vector<std::int32_t>{-2, 0, 0, 0, 2, 3}));
  EXPECT_EQ(f.astype<bool>().to_host(), (std::vector<bool>{true, true, false, true, true, true}));
  const auto i = nd::arange<std::int64_t>(-3, 3);
  EXPECT_EQ(i.astype<float>().to_host(), (std::vector<float>{-3, -2, -1, 0, 1, 2}));
  const auto strided = f(nd::slice(nd::none, nd::none, -2)).astype<float>();
  EXPECT_EQ(strided.to_host(), (std::vector<float>{3.0f, 0.5f, -0.5f}));
  const auto c = nd::asarray(std::vector<std::complex<double>>{{1.5, 2.0}}).astype<double>();
  EXPECT_EQ(c.to_host(), std::vector<double>{1.5});
}

TEST(ArrayGpu, ItemZeroDimAndEmpty) {
  NDCUDA_REQUIRE_GPU();
  const auto s = nd::full<float>({}, 3.0f);
  EXPECT_EQ(s.ndim(), 0);
  EXPECT_EQ(s.size(), 1);
  EXPECT_EQ(s.item(), 3.0f);
  EXPECT_EQ(nd::ones<int>({1, 1}).item(), 1);
  EXPECT_THROW((void)nd::zeros<int>({2}).item(), nd::shape_error);
  const auto e = nd::zeros<double>({0, 3});
  EXPECT_EQ(e.size(), 0);
  EXPECT_EQ(e.nbytes(), 0U);
  EXPECT_TRUE(e.to_host().empty());
  EXPECT_EQ(e.T().shape(), (nd::shape_t{3, 0}));
  EXPECT_EQ(e.copy().size(), 0);
  std::ostringstream text;
  text << e << ' ' << s;
  EXPECT_EQ(text.str(), "array([], shape=(0, 3), dtype=float64) array(3., dtype=float32)");
}

TEST(ArrayGpu, AsyncCopyToPinnedHostOnAnotherStream) {
  NDCUDA_REQUIRE_GPU();
  const auto host = nd::testing::uniform_values<double>(1 << 16, -100.0, 100.0);
  const auto a = nd::asarray(host, {256, 256});
  const auto view = a(nd::slice(nd::none, nd::none, 2), nd::slice(nd::none, nd::none, -1));
  void* raw = nullptr;
  ASSERT_EQ(cudaMallocHost(&raw, sizeof(double) * static_cast<std::size_t>(view.size())), cudaSuccess);
  auto* pinned = static_cast<double*>(raw);
  nd::stream other(a.device());
  view.copy_to_host(pinned, other);
  other.synchronize();
  const auto expected = gather(host, view.layout());
  EXPECT_TRUE(std::equal(expected.begin(), expected.end(), pinned));
  ASSERT_EQ(cudaFreeHost(pinned), cudaSuccess);
}

TEST(ArrayGpu, FromDeviceSharesForeignMemory) {
  NDCUDA_REQUIRE_GPU();
  const auto a = nd::arange<float>(12);
  const auto v = nd::from_device<float>(a.data(), {3, 4}, a.owner(), a.device(), {1, 3});
  EXPECT_EQ(v.to_host(), (std::vector<float>{0, 3, 6, 9, 1, 4, 7, 10, 2, 5, 8, 11}));
  std::ostringstream text;
  text << nd::arange<double>(4).reshape({2, 2});
  EXPECT_EQ(text.str(), "array([[0., 1.],\n       [2., 3.]])");
}

TEST(ArrayGpu, LargeContiguousCopiesGoThroughTheCopyEngineAndStayExact) {
  NDCUDA_REQUIRE_GPU();
  // 2^18 + 3 doubles (over 1 MiB: the cudaMemcpyAsync path), into a whole array, a contiguous
  // slice at an offset, onto itself, and across a cast (the kernel path) for comparison.
  const std::size_t n = (std::size_t{1} << 18) + 3;
  const auto host = nd::testing::uniform_values<double>(n, -100.0, 100.0);
  const auto a = nd::asarray(host, {static_cast<nd::index_t>(n)});
  auto c = nd::empty<double>({static_cast<nd::index_t>(n)});
  c(nd::ellipsis) = a;
  EXPECT_EQ(c.to_host(), host);
  auto wide = nd::full<double>({static_cast<nd::index_t>(n + 5)}, -1.0);
  wide(nd::slice(3, static_cast<nd::index_t>(n + 3))) = a;
  const std::vector<double> got = wide.to_host();
  EXPECT_EQ(got[2], -1.0);
  EXPECT_EQ(got[n + 3], -1.0);
  EXPECT_TRUE(std::equal(host.begin(), host.end(), got.begin() + 3));
  a(nd::ellipsis) = a;  // the same block onto itself
  EXPECT_EQ(a.to_host(), host);
  auto f = nd::empty<float>({static_cast<nd::index_t>(n)});
  f(nd::ellipsis) = a;
  const std::vector<float> fh = f.to_host();
  for (std::size_t i = 0; i < n; i += 997) {
    ASSERT_EQ(fh[i], static_cast<float>(host[i])) << i;
  }
}
