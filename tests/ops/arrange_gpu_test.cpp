// Joining, splitting and rearranging on the GPU: NumPy's gather and view cases
// (tests/data/arrange_cases.txt) run on the device for several element sizes, and concatenation,
// stacking, splitting, diag/trace, meshgrid, indices and broadcast_arrays against host references
// on fresh random input. Every test skips without a GPU.
#include <gtest/gtest.h>

#include <complex>
#include <cstdint>
#include <ndcuda/ndcuda.hpp>
#include <string>
#include <tuple>
#include <vector>

#include "support/arrange_cases.hpp"
#include "support/gpu.hpp"
#include "support/random_inputs.hpp"

namespace nd = ndcuda;
using nd::index_t;
using nd::shape_t;
using nd::testing::arrange_cases;
using nd::testing::parse_list;
using nd::testing::parse_shape;

namespace {

// Multiples of 1/8 in [-100, 100]: exact in float32 and float16-free types.
std::vector<double> random_values(std::size_t n) {
  std::vector<double> v = nd::testing::uniform_integers<double>(n, -800, 800);
  for (double& x : v) {
    x /= 8.0;
  }
  return v;
}

template <class T>
nd::ndarray<T> device_arange1(const shape_t& shape) {
  std::vector<T> host(static_cast<std::size_t>(nd::shape_size(shape)));
  for (std::size_t i = 0; i < host.size(); ++i) {
    host[i] = static_cast<T>(static_cast<double>(i + 1));
  }
  return nd::asarray(host, shape);
}

template <class T>
std::string as_text(const nd::ndarray<T>& r) {
  std::string s;
  for (std::size_t d = 0; d < r.shape().size(); ++d) {
    s += (d != 0 ? "x" : "") + std::to_string(r.shape()[d]);
  }
  std::string v;
  const std::vector<T> h = r.to_host();
  for (std::size_t i = 0; i < h.size(); ++i) {
    if constexpr (nd::detail::is_std_complex<T>) {
      v += (i != 0 ? "," : "") + std::to_string(static_cast<long long>(h[i].real()));
    } else {
      v += (i != 0 ? "," : "") + std::to_string(static_cast<long long>(h[i]));
    }
  }
  return (s.empty() ? "-" : s) + "|" + (v.empty() ? "-" : v);
}

nd::pad_mode mode_of(const std::string& m) {
  return m == "constant"    ? nd::pad_mode::constant
         : m == "edge"      ? nd::pad_mode::edge
         : m == "reflect"   ? nd::pad_mode::reflect
         : m == "symmetric" ? nd::pad_mode::symmetric
                            : nd::pad_mode::wrap;
}

// The NumPy gather cases on the device for element type T (values are small integers).
template <class T>
void run_gather_cases() {
  for (const auto& c : arrange_cases("pad")) {
    if (!c.ok) {
      continue;
    }
    const shape_t shape = parse_shape(c.fields[1]);
    const auto w = parse_list(c.fields[2]);
    std::vector<std::pair<index_t, index_t>> widths;
    std::vector<std::pair<double, double>> values;
    for (std::size_t i = 0; i + 1 < w.size(); i += 2) {
      widths.emplace_back(w[i], w[i + 1]);
      const double d = static_cast<double>(i / 2);
      values.emplace_back(-(2 * d + 1), -(2 * d + 2));
    }
    const auto a = device_arange1<T>(shape);
    nd::ndarray<T> r;
    if (shape.empty()) {
      r = nd::pad(a, 0);
    } else if (values.size() == 2) {
      r = nd::pad(a, nd::pad_width(widths), mode_of(c.fields[3]), {values[0], values[1]});
    } else if (values.size() == 3) {
      r = nd::pad(a, nd::pad_width(widths), mode_of(c.fields[3]), {values[0], values[1], values[2]});
    } else {
      r = nd::pad(a, nd::pad_width(widths), mode_of(c.fields[3]), {values[0]});
    }
    EXPECT_EQ(as_text(r), c.result) << c.line;
  }
  for (const auto& c : arrange_cases("roll")) {
    if (!c.ok) {
      continue;
    }
    const auto a = device_arange1<T>(parse_shape(c.fields[1]));
    const auto shifts = parse_list(c.fields[2]);
    const auto r = c.fields[3] == "n" ? nd::roll(a, shifts[0]) : nd::roll(a, shifts, parse_list(c.fields[3]));
    EXPECT_EQ(as_text(r), c.result) << c.line;
  }
  for (const auto& c : arrange_cases("tile")) {
    if (c.ok) {
      EXPECT_EQ(as_text(nd::tile(device_arange1<T>(parse_shape(c.fields[1])), parse_list(c.fields[2]))), c.result)
          << c.line;
    }
  }
  for (const auto& c : arrange_cases("repeat")) {
    if (!c.ok) {
      continue;
    }
    const auto a = device_arange1<T>(parse_shape(c.fields[1]));
    const auto counts = parse_list(c.fields[2]);
    const std::optional<index_t> axis =
        c.fields[3] == "n" ? std::nullopt : std::optional<index_t>(std::stoll(c.fields[3]));
    EXPECT_EQ(as_text(nd::repeat(a, counts, axis)), c.result) << c.line;
    // The same counts from device memory.
    std::vector<std::int32_t> dc(counts.begin(), counts.end());
    EXPECT_EQ(as_text(nd::repeat(a, nd::asarray(dc), axis)), c.result) << c.line;
  }
  for (const std::string fn : {"tril", "triu"}) {
    for (const auto& c : arrange_cases(fn)) {
      const auto a = device_arange1<T>(parse_shape(c.fields[1]));
      const index_t k = std::stoll(c.fields[2]);
      EXPECT_EQ(as_text(fn == "tril" ? nd::tril(a, k) : nd::triu(a, k)), c.result) << c.line;
    }
  }
  for (const auto& c : arrange_cases("tri")) {
    const index_t n = std::stoll(c.fields[1]);
    const std::optional<index_t> m =
        c.fields[2] == "n" ? std::nullopt : std::optional<index_t>(std::stoll(c.fields[2]));
    EXPECT_EQ(as_text(nd::tri<T>(n, m, std::stoll(c.fields[3]))), c.result) << c.line;
  }
}

template <class T>
std::vector<double> host_of(const nd::ndarray<T>& a) {
  std::vector<double> out;
  for (const T& x : a.to_host()) {
    out.push_back(static_cast<double>(x));
  }
  return out;
}

}  // namespace

TEST(ArrangeGpu, GatherCasesAsNumPyForEveryElementSize) {
  NDCUDA_REQUIRE_GPU();
  run_gather_cases<double>();
  run_gather_cases<float>();
  run_gather_cases<std::int16_t>();
  run_gather_cases<std::int8_t>();
  run_gather_cases<std::complex<double>>();
}

TEST(ArrangeGpu, GathersReadStridedInputs) {
  NDCUDA_REQUIRE_GPU();
  const std::vector<double> h = random_values(6 * 7);
  const auto a = nd::asarray(h, {6, 7});
  const auto t = a.T()(nd::slice(nd::none, nd::none, -2));  // (4, 6), negative and transposed strides
  const auto dense = t.copy();
  for (const nd::pad_mode mode : {nd::pad_mode::constant, nd::pad_mode::edge, nd::pad_mode::reflect,
                                  nd::pad_mode::symmetric, nd::pad_mode::wrap}) {
    EXPECT_EQ(nd::pad(t, {{3, 9}, {7, 2}}, mode, 1.5).to_host(), nd::pad(dense, {{3, 9}, {7, 2}}, mode, 1.5).to_host());
  }
  EXPECT_EQ(nd::roll(t, {3, -8}, {0, 1}).to_host(), nd::roll(dense, {3, -8}, {0, 1}).to_host());
  EXPECT_EQ(nd::roll(t, 5).to_host(), nd::roll(dense, 5).to_host());
  EXPECT_EQ(nd::tile(t, {2, 1, 3}).to_host(), nd::tile(dense, {2, 1, 3}).to_host());
  EXPECT_EQ(nd::repeat(t, {1, 0, 3, 2}, 0).to_host(), nd::repeat(dense, {1, 0, 3, 2}, 0).to_host());
  EXPECT_EQ(nd::triu(t, 1).to_host(), nd::triu(dense, 1).to_host());
  // A large pad and roll, checked against a host computation.
  const index_t n = 1000;
  const std::vector<double> big = random_values(static_cast<std::size_t>(n * n));
  const auto b = nd::asarray(big, {n, n}).astype<float>();
  const auto rolled = nd::roll(b, {17, -250}, {0, 1}).to_host();
  const auto padded = nd::pad(b, {{2, 3}, {1, 4}}, nd::pad_mode::constant, 0.0).to_host();
  for (index_t i = 0; i < n; i += 7) {
    for (index_t j = 0; j < n; j += 3) {
      const float v = static_cast<float>(big[static_cast<std::size_t>(i * n + j)]);
      EXPECT_EQ(rolled[static_cast<std::size_t>(((i + 17) % n) * n + (j - 250 + n) % n)], v);
      EXPECT_EQ(padded[static_cast<std::size_t>((i + 2) * (n + 5) + j + 1)], v);
    }
  }
  EXPECT_EQ(padded[0], 0.0f);
}

TEST(ArrangeGpu, ViewCasesReadTheRightElements) {
  NDCUDA_REQUIRE_GPU();
  for (const auto& c : arrange_cases("view")) {
    if (!c.ok) {
      continue;
    }
    const shape_t shape = parse_shape(c.fields[2]);
    std::vector<float> h(static_cast<std::size_t>(nd::shape_size(shape)));
    for (std::size_t i = 0; i < h.size(); ++i) {
      h[i] = static_cast<float>(i);
    }
    const auto a = nd::asarray(h, shape);
    const std::string& op = c.fields[1];
    const std::string& arg = c.fields[3];
    nd::ndarray<float> v;
    if (op == "flip") {
      v = arg == "-" ? nd::flip(a) : nd::flip(a, parse_list(arg));
    } else if (op == "rot90") {
      const auto p = parse_list(arg);
      v = nd::rot90(a, p[0], {p[1], p[2]});
    } else if (op == "moveaxis") {
      const auto parts = nd::testing::split_fields(arg, '/');
      v = nd::moveaxis(a, parse_list(parts[0]), parse_list(parts[1]));
    } else if (op == "diagonal") {
      const auto p = parse_list(arg);
      v = nd::diagonal(a, p[0], p[1], p[2]);
    } else if (op == "atleast") {
      v = arg == "1" ? nd::atleast_1d(a) : arg == "2" ? nd::atleast_2d(a) : nd::atleast_3d(a);
    } else {
      v = op == "fliplr" ? nd::fliplr(a) : nd::flipud(a);
    }
    // NumPy's layout says which element each position holds: offset + sum(index * stride).
    const auto parts = nd::testing::split_fields(c.result, '|');
    const shape_t vs = parse_shape(parts[0]);
    const auto st = parse_list(parts[1]);
    const index_t off = std::stoll(parts[2]);
    const std::vector<float> got = v.to_host();
    ASSERT_EQ(static_cast<index_t>(got.size()), nd::shape_size(vs)) << c.line;
    for (index_t flat = 0; flat < nd::shape_size(vs); ++flat) {
      index_t rem = flat;
      index_t at = off;
      for (std::size_t d = vs.size(); d-- > 0;) {
        at += (rem % vs[d]) * st[d];
        rem /= vs[d];
      }
      EXPECT_EQ(got[static_cast<std::size_t>(flat)], static_cast<float>(at)) << c.line << " at " << flat;
    }
  }
}

TEST(ArrangeGpu, ConcatenateMatchesHostForAxesLayoutsAndDtypes) {
  NDCUDA_REQUIRE_GPU();
  const std::vector<double> ha = random_values(2 * 3 * 4);
  const std::vector<double> hb = random_values(2 * 5 * 4);
  const auto a = nd::asarray(ha, {2, 3, 4}).astype<float>();
  const auto b = nd::asarray(hb, {2, 5, 4}).astype<float>();
  // Along axis 1 (-2): row by row, a's 3 rows then b's 5.
  for (const index_t axis : {1, -2}) {
    const auto r = nd::concatenate({a, b}, axis);
    ASSERT_EQ(r.shape(), (shape_t{2, 8, 4}));
    const auto h = host_of(r);
    for (index_t i = 0; i < 2; ++i) {
      for (index_t j = 0; j < 8; ++j) {
        for (index_t k = 0; k < 4; ++k) {
          const double want = j < 3 ? ha[static_cast<std::size_t>((i * 3 + j) * 4 + k)]
                                    : hb[static_cast<std::size_t>((i * 5 + j - 3) * 4 + k)];
          EXPECT_EQ(h[static_cast<std::size_t>((i * 8 + j) * 4 + k)], static_cast<double>(static_cast<float>(want)));
        }
      }
    }
  }
  // Axis 0 of contiguous pieces (memcpy), a non-contiguous piece (strided copy), axis None.
  const auto r0 = nd::concatenate({a, b.swapaxes(1, 1)(nd::slice(0, 2), nd::slice(0, 3))}, 0);
  EXPECT_EQ(r0.shape(), (shape_t{4, 3, 4}));
  const auto at = a.transpose();  // (4, 3, 2), not contiguous
  const auto flat = nd::concatenate({at, a}, nd::none);
  std::vector<double> want = host_of(at.copy());
  const auto ah = host_of(a);
  want.insert(want.end(), ah.begin(), ah.end());
  EXPECT_EQ(host_of(flat), want);
  const auto twice = nd::concatenate({at, at}, -1);
  const auto th = host_of(twice);
  const auto ath = host_of(at.copy());
  for (std::size_t i = 0; i < 12; ++i) {
    for (std::size_t k = 0; k < 4; ++k) {
      EXPECT_EQ(th[i * 4 + k], ath[i * 2 + (k % 2)]);
    }
  }
  // Mixed dtypes promote as NumPy: int32 with float32 is float64.
  const auto ints = nd::asarray(std::vector<std::int32_t>{1, 2, 3}, {3});
  const auto mixed = nd::concatenate(std::tuple(ints, nd::asarray(std::vector<float>{0.5f}, {1})));
  static_assert(std::is_same_v<decltype(mixed)::value_type, double>);
  EXPECT_EQ(mixed.to_host(), (std::vector<double>{1, 2, 3, 0.5}));
  // Eight large pieces along axis 0 (the benchmark's shape, smaller).
  std::vector<nd::ndarray<float>> pieces;
  for (int i = 0; i < 8; ++i) {
    pieces.push_back(nd::full<float>({1 << 16}, static_cast<float>(i)));
  }
  const auto big = nd::concatenate(pieces).to_host();
  for (std::size_t i = 0; i < big.size(); i += 4099) {
    EXPECT_EQ(big[i], static_cast<float>(i >> 16));
  }
}

TEST(ArrangeGpu, StackingAndSplittingMatchHost) {
  NDCUDA_REQUIRE_GPU();
  const std::vector<double> hx = random_values(6);
  const std::vector<double> hy = random_values(6);
  const auto x = nd::asarray(hx, {2, 3});
  const auto y = nd::asarray(hy, {2, 3});
  const auto s = nd::stack({x, y}, -1);  // (2, 3, 2)
  ASSERT_EQ(s.shape(), (shape_t{2, 3, 2}));
  const auto sh = s.to_host();
  for (std::size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(sh[i * 2], hx[i]);
    EXPECT_EQ(sh[i * 2 + 1], hy[i]);
  }
  EXPECT_EQ(nd::vstack({x, y}).to_host(), nd::concatenate({x, y}, 0).to_host());
  EXPECT_EQ(nd::hstack({x, y}).to_host(), nd::concatenate({x, y}, 1).to_host());
  EXPECT_EQ(nd::dstack({x, y}).to_host(), sh);
  const auto u = nd::asarray(hx, {6});
  const auto cs = nd::column_stack({u, u});
  ASSERT_EQ(cs.shape(), (shape_t{6, 2}));
  EXPECT_EQ(cs.to_host()[5], hx[2]);
  // Pieces are views: writing one writes the array.
  const auto z = nd::asarray(random_values(12), {3, 4});
  const auto pieces = nd::array_split(z, 3, 1);  // widths 2, 1, 1
  ASSERT_EQ(pieces.size(), 3u);
  EXPECT_EQ(nd::concatenate(pieces, 1).to_host(), z.to_host());
  pieces[1](nd::ellipsis) = 7.0;
  const auto zh = z.to_host();
  EXPECT_EQ(zh[2], 7.0);
  EXPECT_EQ(zh[6], 7.0);
}

TEST(ArrangeGpu, DiagTraceMeshgridIndicesBroadcastArrays) {
  NDCUDA_REQUIRE_GPU();
  const std::vector<double> hv = random_values(3);
  const auto v = nd::asarray(hv, {3});
  const auto d = nd::diag(v, -1).to_host();  // 4 x 4, v below the diagonal
  for (index_t i = 0; i < 4; ++i) {
    for (index_t j = 0; j < 4; ++j) {
      EXPECT_EQ(d[static_cast<std::size_t>(i * 4 + j)], i == j + 1 ? hv[static_cast<std::size_t>(j)] : 0.0);
    }
  }
  const std::vector<double> hm = random_values(12);
  const auto m = nd::asarray(hm, {3, 4});
  EXPECT_EQ(nd::diag(m, 1).to_host(), (std::vector<double>{hm[1], hm[6], hm[11]}));
  EXPECT_DOUBLE_EQ(nd::trace(m).item(), hm[0] + hm[5] + hm[10]);
  const auto ti = nd::trace(nd::asarray(std::vector<std::int32_t>{1, 2, 3, 4}, {2, 2}));
  static_assert(std::is_same_v<decltype(ti)::value_type, std::int64_t>);  // np.sum's dtype
  EXPECT_EQ(ti.item(), 5);
  const auto xs = nd::asarray(std::vector<float>{1, 2, 3}, {3});
  const auto ys = nd::asarray(std::vector<float>{10, 20}, {2});
  const auto g = nd::meshgrid({xs, ys});  // xy: (2, 3)
  ASSERT_EQ(g[0].shape(), (shape_t{2, 3}));
  EXPECT_EQ(g[0].to_host(), (std::vector<float>{1, 2, 3, 1, 2, 3}));
  EXPECT_EQ(g[1].to_host(), (std::vector<float>{10, 10, 10, 20, 20, 20}));
  const auto gij = nd::meshgrid({xs, ys}, nd::meshgrid_indexing::ij);
  ASSERT_EQ(gij[1].shape(), (shape_t{3, 2}));
  EXPECT_EQ(gij[1].to_host(), (std::vector<float>{10, 20, 10, 20, 10, 20}));
  const auto sp = nd::meshgrid({xs, ys}, nd::meshgrid_indexing::xy, true);
  EXPECT_EQ(sp[0].shape(), (shape_t{1, 3}));
  EXPECT_EQ(sp[1].shape(), (shape_t{2, 1}));
  const auto ind = nd::indices({2, 3});
  ASSERT_EQ(ind.shape(), (shape_t{2, 2, 3}));
  EXPECT_EQ(ind.to_host(), (std::vector<std::int64_t>{0, 0, 0, 1, 1, 1, 0, 1, 2, 0, 1, 2}));
  const auto [bx, by] = nd::broadcast_arrays(nd::asarray(std::vector<std::int32_t>{1, 2, 3}, {3}), ys.reshape({2, 1}));
  EXPECT_EQ(bx.shape(), (shape_t{2, 3}));
  EXPECT_EQ(by.to_host(), (std::vector<float>{10, 10, 10, 20, 20, 20}));
  // flip is a view: writing through it writes the array.
  const auto f = nd::asarray(std::vector<float>{1, 2, 3, 4}, {4});
  nd::flip(f)(0) = 9.0f;
  EXPECT_EQ(f.to_host(), (std::vector<float>{1, 2, 3, 9}));
}

TEST(ArrangeGpu, JoiningAndRearrangingCaptureIntoAGraph) {
  NDCUDA_REQUIRE_GPU();
  nd::stream s(0);
  const auto a = nd::asarray(random_values(6 * 5), {6, 5}, s).astype<float>();
  // Eager first (also compiles and loads the kernels).
  const auto e1 = nd::concatenate({a, nd::flip(a)}, 1).to_host();
  const auto e2 = nd::pad(a, {{1, 2}, {3, 0}}, nd::pad_mode::reflect).to_host();
  const auto e3 = nd::roll(a.T(), {2}, {1}).to_host();
  const auto e4 = nd::repeat(a, {2, 0, 1, 1, 3}, 1).to_host();
  auto o1 = nd::empty<float>({6, 10}, s);
  auto o2 = nd::empty<float>({9, 8}, s);
  auto o3 = nd::empty<float>({5, 6}, s);
  auto o4 = nd::empty<float>({12, 5}, s);
  const auto e5 = nd::tile(a, {2, 1}).to_host();
  nd::graph g = nd::capture(s, [&] {
    o1(nd::ellipsis) = nd::concatenate({a, nd::flip(a)}, 1);
    o2(nd::ellipsis) = nd::pad(a, {{1, 2}, {3, 0}}, nd::pad_mode::reflect);
    o3(nd::ellipsis) = nd::roll(a.T(), {2}, {1});
    o4(nd::ellipsis) = nd::tile(a, {2, 1});
  });
  ASSERT_TRUE(g);
  g.launch(s);
  EXPECT_EQ(o1.to_host(), e1);
  EXPECT_EQ(o2.to_host(), e2);
  EXPECT_EQ(o3.to_host(), e3);
  EXPECT_EQ(o4.to_host(), e5);
  // Counts in device memory need the host: refused inside a capture, with capture_error.
  const auto counts = nd::asarray(std::vector<std::int32_t>{2, 0, 1, 1, 3}, s);
  EXPECT_THROW((void)nd::capture(s, [&] { (void)nd::repeat(a, counts, 1); }), nd::capture_error);
  EXPECT_EQ(nd::repeat(a, counts, 1).to_host(), e4);
}
