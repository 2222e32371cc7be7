// Advanced indexing on the GPU against host references (NumPy's semantics, written out as loops
// in double) on fresh random input: gathers through integer arrays and masks on strided sources,
// scatters with repeated indices, add_at and friends, take/put, nonzero and the nd::size forms.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <ndcuda/ndcuda.hpp>
#include <random>
#include <string>
#include <vector>

#include "support/gpu.hpp"
#include "support/random_inputs.hpp"

namespace nd = ndcuda;
using nd::testing::rng;

namespace {

// Indices in [-n, n) (negative ones wrap once), repeats likely.
std::vector<std::int64_t> random_indices(std::size_t count, std::int64_t n) {
  return nd::testing::uniform_integers<std::int64_t>(count, -n, n - 1);
}

std::int64_t wrap(std::int64_t i, std::int64_t n) {
  return i < 0 ? i + n : i;
}

template <class T>
std::vector<double> as_double(const std::vector<T>& v) {
  std::vector<double> out;
  for (const T& x : v) {
    if constexpr (std::is_same_v<T, __half>) {
      out.push_back(static_cast<double>(__half2float(x)));
    } else {
      out.push_back(static_cast<double>(x));
    }
  }
  return out;
}

std::string error_text(const std::function<void()>& f) {
  try {
    f();
  } catch (const nd::error& e) {
    return e.what();
  }
  return "no error";
}

TEST(IndexingGpu, IntegerArraysOnTransposedSourceMatchTheHostGather) {
  NDCUDA_REQUIRE_GPU();
  const std::int64_t n0 = 7, n1 = 5, n2 = 6;  // base (n2, n1, n0), transposed to (n0, n1, n2)
  const std::vector<float> host = nd::testing::uniform_values<float>(static_cast<std::size_t>(n0 * n1 * n2), -1.0, 1.0);
  const auto base = nd::asarray<float>(host, {n2, n1, n0});
  const auto a = base.transpose();  // a[i, j, k] = host[(k * n1 + j) * n0 + i]
  const auto at = [&](std::int64_t i, std::int64_t j, std::int64_t k) {
    return static_cast<double>(host[static_cast<std::size_t>((k * n1 + j) * n0 + i)]);
  };
  const std::vector<std::int64_t> i = random_indices(4, n0);
  const std::vector<std::int64_t> k64 = random_indices(4, n2);
  std::vector<std::int32_t> k32(k64.begin(), k64.end());
  const auto ki = nd::asarray<std::int32_t>(k32);

  // a(i): rows.
  const std::vector<double> rows = as_double(nd::ndarray<float>(a(i)).to_host());
  ASSERT_EQ(rows.size(), static_cast<std::size_t>(4 * n1 * n2));
  for (std::size_t p = 0; p < 4; ++p) {
    for (std::int64_t j = 0; j < n1; ++j) {
      for (std::int64_t k = 0; k < n2; ++k) {
        EXPECT_EQ(rows[(p * n1 + j) * n2 + k], at(wrap(i[p], n0), j, k));
      }
    }
  }
  // Separated by a slice: the advanced dimension goes first: (4, 3).
  const nd::ndarray<float> sep = a(nd::asarray<std::int64_t>(i), nd::slice(1, 4), ki);
  ASSERT_EQ(sep.shape(), (nd::shape_t{4, 3}));
  const std::vector<double> s = as_double(sep.to_host());
  for (std::size_t p = 0; p < 4; ++p) {
    for (std::int64_t m = 0; m < 3; ++m) {
      EXPECT_EQ(s[p * 3 + m], at(wrap(i[p], n0), 1 + m, wrap(k64[p], n2)));
    }
  }
  // Adjacent: in place of the first: (n0, 4) from a(:, j, k) with j and k broadcast.
  const std::vector<std::int64_t> j = random_indices(4, n1);
  const nd::ndarray<float> adj = nd::eval(a(nd::all, j, ki));
  ASSERT_EQ(adj.shape(), (nd::shape_t{n0, 4}));
  const std::vector<double> d = as_double(adj.to_host());
  for (std::int64_t r = 0; r < n0; ++r) {
    for (std::size_t p = 0; p < 4; ++p) {
      EXPECT_EQ(d[static_cast<std::size_t>(r) * 4 + p], at(r, wrap(j[p], n1), wrap(k64[p], n2)));
    }
  }
}

TEST(IndexingGpu, MasksReadAsCompactionsOfTheTrueElements) {
  NDCUDA_REQUIRE_GPU();
  const std::int64_t rows = 300, cols = 7;
  const std::vector<float> host = nd::testing::uniform_values<float>(static_cast<std::size_t>(rows * cols), -1.0, 1.0);
  const auto a = nd::asarray<float>(host, {rows, cols});
  // An expression mask over the whole array, on a transposed view.
  const nd::ndarray<float> pos = a.T()(a.T() > 0.25f);
  std::vector<double> want;
  for (std::int64_t c = 0; c < cols; ++c) {
    for (std::int64_t r = 0; r < rows; ++r) {
      const float v = host[static_cast<std::size_t>(r * cols + c)];
      if (v > 0.25f) {
        want.push_back(v);
      }
    }
  }
  EXPECT_EQ(as_double(pos.to_host()), want);
  // A mask over the leading axis: whole rows.
  const auto row_mask = a(nd::all, 0) < 0.0f;
  const nd::ndarray<float> picked = a(row_mask);
  want.clear();
  for (std::int64_t r = 0; r < rows; ++r) {
    if (host[static_cast<std::size_t>(r * cols)] < 0.0f) {
      for (std::int64_t c = 0; c < cols; ++c) {
        want.push_back(host[static_cast<std::size_t>(r * cols + c)]);
      }
    }
  }
  EXPECT_EQ(as_double(picked.to_host()), want);
  EXPECT_EQ(picked.shape()[1], cols);
  // Mixed: a mask on axis 1 and an integer array on axis 0 (both advanced, adjacent).
  const std::vector<bool> m = {true, false, true, true, false, false, true};
  const nd::ndarray<float> mixed = a(std::vector<std::int64_t>{2, 5, -1, 0}, m);
  const std::vector<std::int64_t> ones = {0, 2, 3, 6};
  const std::vector<std::int64_t> rr = {2, 5, rows - 1, 0};
  ASSERT_EQ(mixed.shape(), (nd::shape_t{4}));
  const std::vector<double> got = as_double(mixed.to_host());
  for (std::size_t p = 0; p < 4; ++p) {
    EXPECT_EQ(got[p], host[static_cast<std::size_t>(rr[p] * cols + ones[p])]);
  }
}

TEST(IndexingGpu, ScatterKeepsTheLastOfRepeatedIndicesAndCompoundAppliesOnce) {
  NDCUDA_REQUIRE_GPU();
  const std::int64_t n = 50;
  const std::vector<float> host = nd::testing::uniform_values<float>(n, -1.0, 1.0);
  auto a = nd::asarray<float>(host);
  const std::vector<std::int64_t> idx = random_indices(400, n);  // many repeats
  const std::vector<float> v = nd::testing::uniform_values<float>(idx.size(), -1.0, 1.0);
  a(idx) = nd::asarray<float>(v);
  std::vector<double> want = as_double(host);
  for (std::size_t p = 0; p < idx.size(); ++p) {
    want[static_cast<std::size_t>(wrap(idx[p], n))] = v[p];
  }
  EXPECT_EQ(as_double(a.to_host()), want);

  // a(idx) += 1: each distinct index once.
  a(idx) += 1.0f;
  std::vector<bool> seen(n, false);
  for (std::int64_t x : idx) {
    seen[static_cast<std::size_t>(wrap(x, n))] = true;
  }
  const std::vector<double> after = as_double(a.to_host());
  for (std::size_t q = 0; q < static_cast<std::size_t>(n); ++q) {
    EXPECT_FLOAT_EQ(static_cast<float>(after[q]), static_cast<float>(want[q] + (seen[q] ? 1.0 : 0.0)));
  }
}

// The scatter dist::take uses to put answers back in request order: a permutation, no repeats.
TEST(IndexingGpu, ScatterOfAPermutationWritesEveryPositionOnce) {
  NDCUDA_REQUIRE_GPU();
  const std::int64_t n = 100003;
  const std::vector<float> values = nd::testing::uniform_values<float>(static_cast<std::size_t>(n), -1.0, 1.0);
  // A permutation from sorting random keys (the host reference's own argsort).
  const std::vector<double> keys = nd::testing::uniform_values<double>(static_cast<std::size_t>(n), 0.0, 1.0);
  std::vector<std::int64_t> order(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    order[static_cast<std::size_t>(i)] = i;
  }
  std::sort(order.begin(), order.end(), [&](std::int64_t x, std::int64_t y) {
    return keys[static_cast<std::size_t>(x)] < keys[static_cast<std::size_t>(y)];
  });
  const auto a = nd::full<float>({n}, -7.0F);
  nd::detail::scatter_permutation(a, nd::asarray<std::int64_t>(order), nd::asarray<float>(values));
  std::vector<double> want(static_cast<std::size_t>(n));
  for (std::size_t p = 0; p < order.size(); ++p) {
    want[static_cast<std::size_t>(order[p])] = values[p];
  }
  EXPECT_EQ(as_double(a.to_host()), want);
  EXPECT_THROW(nd::detail::scatter_permutation(a, nd::asarray<std::int64_t>(order), nd::asarray<float>({1.0F})),
               nd::shape_error);
}

TEST(IndexingGpu, MaskWritesBroadcastScalarsRowsAndCountedValues) {
  NDCUDA_REQUIRE_GPU();
  const std::int64_t rows = 64, cols = 3;
  const std::vector<float> host = nd::testing::uniform_values<float>(static_cast<std::size_t>(rows * cols), -1.0, 1.0);
  auto a = nd::asarray<float>(host, {rows, cols});
  auto b = a.copy();
  auto c = a.copy();
  const auto mask = a > 0.0f;
  a(mask) = 0.0f;  // where-style: no wait
  const auto row_mask = nd::eval(b(nd::all, 1) > 0.0f);
  b(row_mask) = nd::asarray<float>(std::vector<float>{1.0f, 2.0f, 3.0f});  // each selected row
  std::size_t count = 0;
  for (float x : host) {
    count += x > 0.0f ? 1 : 0;
  }
  const std::vector<float> vals = nd::testing::uniform_values<float>(count, -1.0, 1.0);
  c(c > 0.0f) = nd::asarray<float>(vals);  // one value per true element: waits for the count
  std::vector<double> wa = as_double(host), wb = wa, wc = wa;
  std::size_t next = 0;
  for (std::size_t e = 0; e < host.size(); ++e) {
    if (host[e] > 0.0f) {
      wa[e] = 0.0;
      wc[e] = vals[next++];
    }
    if (host[(e / cols) * cols + 1] > 0.0f) {
      wb[e] = static_cast<double>(e % cols + 1);
    }
  }
  EXPECT_EQ(as_double(a.to_host()), wa);
  EXPECT_EQ(as_double(b.to_host()), wb);
  EXPECT_EQ(as_double(c.to_host()), wc);
  EXPECT_EQ(error_text([&] {
              c(c > 100.0f) = nd::asarray<float>(std::vector<float>{1, 2, 3});
            }),
            "NumPy boolean array indexing assignment cannot assign 3 input values to the 0 output values where the "
            "mask is true");
}

template <class T>
void check_add_at() {
  const std::int64_t n = 16;
  std::vector<T> host(n);
  std::vector<double> want(n);
  std::uniform_int_distribution<int> small(0, 3);
  for (std::size_t q = 0; q < host.size(); ++q) {
    const int x = small(rng());
    host[q] = static_cast<T>(x);
    want[q] = x;
  }
  auto a = nd::asarray<T>(host);
  const std::vector<std::int64_t> idx = random_indices(200, n);
  nd::add_at(a, idx, T(1));
  for (std::int64_t x : idx) {
    want[static_cast<std::size_t>(wrap(x, n))] += 1;
  }
  if constexpr (std::is_same_v<T, bool>) {
    for (double& w : want) {
      w = w != 0 ? 1 : 0;
    }
  }
  if constexpr (std::is_same_v<T, std::int8_t>) {
    for (double& w : want) {
      w = static_cast<double>(static_cast<std::int8_t>(static_cast<int>(w)));
    }
  }
  EXPECT_EQ(as_double(a.to_host()), want) << nd::name(nd::dtype_of<T>);
}

TEST(IndexingGpu, AddAtAccumulatesEveryRepeatForManyDtypes) {
  NDCUDA_REQUIRE_GPU();
  check_add_at<float>();
  check_add_at<double>();
  check_add_at<std::int32_t>();
  check_add_at<std::int64_t>();
  check_add_at<std::uint32_t>();
  check_add_at<std::int8_t>();
  check_add_at<std::int16_t>();
  check_add_at<bool>();
  // float16 through a CAS loop on its 32-bit word: small integers are exact.
  const std::int64_t n = 9;
  auto h = nd::zeros<__half>({n});
  const std::vector<std::int64_t> idx = random_indices(100, n);
  nd::add_at(h, idx, 1.0f);
  std::vector<double> want(n, 0.0);
  for (std::int64_t x : idx) {
    want[static_cast<std::size_t>(wrap(x, n))] += 1;
  }
  EXPECT_EQ(as_double(h.to_host()), want);
  // complex64: two parts, every repeat.
  auto z = nd::zeros<std::complex<float>>({n});
  nd::add_at(z, idx, std::complex<float>(1.0f, -2.0f));
  const std::vector<std::complex<float>> zh = z.to_host();
  for (std::size_t q = 0; q < zh.size(); ++q) {
    EXPECT_EQ(zh[q], std::complex<float>(static_cast<float>(want[q]), static_cast<float>(-2 * want[q])));
  }
}

TEST(IndexingGpu, MaximumAtPropagatesNaNAndMinimumAtTakesTheLeast) {
  NDCUDA_REQUIRE_GPU();
  const std::int64_t n = 8;
  const std::vector<float> host = nd::testing::uniform_values<float>(n, -1.0, 1.0);
  auto mx = nd::asarray<float>(host);
  auto mn = nd::asarray<float>(host);
  const std::vector<std::int64_t> idx = random_indices(64, n);
  std::vector<float> v = nd::testing::uniform_values<float>(idx.size(), -1.0, 1.0);
  v[5] = std::nanf("");
  nd::maximum_at(mx, idx, nd::asarray<float>(v));
  nd::minimum_at(mn, idx, nd::asarray<float>(v));
  std::vector<float> wmx = host, wmn = host;
  for (std::size_t p = 0; p < idx.size(); ++p) {
    float& x = wmx[static_cast<std::size_t>(wrap(idx[p], n))];
    float& y = wmn[static_cast<std::size_t>(wrap(idx[p], n))];
    x = (std::isnan(x) || std::isnan(v[p])) ? std::nanf("") : std::max(x, v[p]);
    y = (std::isnan(y) || std::isnan(v[p])) ? std::nanf("") : std::min(y, v[p]);
  }
  const std::vector<float> gmx = mx.to_host(), gmn = mn.to_host();
  for (std::size_t q = 0; q < host.size(); ++q) {
    EXPECT_TRUE(std::isnan(wmx[q]) ? std::isnan(gmx[q]) : gmx[q] == wmx[q]) << q;
    EXPECT_TRUE(std::isnan(wmn[q]) ? std::isnan(gmn[q]) : gmn[q] == wmn[q]) << q;
  }
}

TEST(IndexingGpu, TakeTakeAlongAxisPutAndPutAlongAxis) {
  NDCUDA_REQUIRE_GPU();
  const std::int64_t r = 6, c = 5;
  const std::vector<float> host = nd::testing::uniform_values<float>(static_cast<std::size_t>(r * c), -1.0, 1.0);
  const auto a = nd::asarray<float>(host, {r, c});
  const std::vector<std::int64_t> idx = random_indices(9, c);
  const nd::ndarray<float> t = nd::take(a, idx, 1);
  ASSERT_EQ(t.shape(), (nd::shape_t{r, 9}));
  const std::vector<float> th = t.to_host();
  for (std::int64_t i = 0; i < r; ++i) {
    for (std::size_t p = 0; p < 9; ++p) {
      EXPECT_EQ(th[static_cast<std::size_t>(i) * 9 + p], host[static_cast<std::size_t>(i * c + wrap(idx[p], c))]);
    }
  }
  const std::vector<float> flat = nd::take(a, idx).to_host();  // of the flattened array
  for (std::size_t p = 0; p < 9; ++p) {
    EXPECT_EQ(flat[p], host[static_cast<std::size_t>(wrap(idx[p], r * c))]);
  }
  // Bools in take are the integers 0 and 1, as NumPy reads them (not a mask), as arrays, as
  // expressions and as host vectors.
  const std::vector<bool> picks{true, false, true, true};
  const nd::ndarray<bool> pick_array = nd::asarray<float>(std::vector<float>{1, 0, 1, 1}, {4}) > 0.5F;
  for (const std::vector<float>& got : {nd::take(a, pick_array, 1).to_host(), nd::take(a, picks, 1).to_host(),
                                        nd::take(a, pick_array == true, 1).to_host()}) {
    ASSERT_EQ(got.size(), static_cast<std::size_t>(r * 4));
    for (std::int64_t i = 0; i < r; ++i) {
      for (std::size_t p = 0; p < 4; ++p) {
        EXPECT_EQ(got[static_cast<std::size_t>(i) * 4 + p], host[static_cast<std::size_t>(i * c + (picks[p] ? 1 : 0))]);
      }
    }
  }
  // take_along_axis applies argsort: rows sorted.
  const auto order = nd::argsort(a, 1);
  const std::vector<float> sorted = nd::take_along_axis(a, order, 1).to_host();
  for (std::int64_t i = 0; i < r; ++i) {
    std::vector<float> row(host.begin() + i * c, host.begin() + (i + 1) * c);
    std::sort(row.begin(), row.end());
    EXPECT_EQ(std::vector<float>(sorted.begin() + i * c, sorted.begin() + (i + 1) * c), row);
  }
  // put_along_axis: write 9 at each row's argmax column (an index of shape (r, 1)).
  auto b = a.copy();
  std::vector<std::int64_t> arg(static_cast<std::size_t>(r));
  for (std::int64_t i = 0; i < r; ++i) {
    arg[static_cast<std::size_t>(i)] =
        std::max_element(host.begin() + i * c, host.begin() + (i + 1) * c) - (host.begin() + i * c);
  }
  nd::put_along_axis(b, nd::asarray<std::int64_t>(arg, {r, 1}), 9.0f, 1);
  std::vector<float> wb = host;
  for (std::int64_t i = 0; i < r; ++i) {
    wb[static_cast<std::size_t>(i * c + arg[static_cast<std::size_t>(i)])] = 9.0f;
  }
  EXPECT_EQ(b.to_host(), wb);
  // put on a transposed (non-contiguous) array with a shorter, repeated v.
  auto p = a.copy().T();
  const std::vector<std::int64_t> where = {0, 3, -1, 7, 3};
  nd::put(p, where, nd::asarray<float>(std::vector<float>{10.0f, 20.0f}));
  std::vector<float> wp = nd::ndarray<float>(a.T().copy()).to_host();
  for (std::size_t q = 0; q < where.size(); ++q) {
    wp[static_cast<std::size_t>(wrap(where[q], r * c))] = q % 2 == 0 ? 10.0f : 20.0f;
  }
  EXPECT_EQ(nd::ascontiguousarray(p).to_host(), wp);
}

TEST(IndexingGpu, NonzeroArgwhereFlatnonzeroExtractCompress) {
  NDCUDA_REQUIRE_GPU();
  const std::int64_t r = 40, c = 9;
  const std::vector<float> host = nd::testing::uniform_values<float>(static_cast<std::size_t>(r * c), -1.0, 1.0);
  const auto a = nd::asarray<float>(host, {r, c});
  std::vector<std::int64_t> wr, wc, wf;
  std::vector<float> wx;
  for (std::int64_t i = 0; i < r; ++i) {
    for (std::int64_t j = 0; j < c; ++j) {
      if (host[static_cast<std::size_t>(i * c + j)] > 0.5f) {
        wr.push_back(i);
        wc.push_back(j);
        wf.push_back(i * c + j);
        wx.push_back(host[static_cast<std::size_t>(i * c + j)]);
      }
    }
  }
  const auto nz = nd::nonzero(a > 0.5f);
  ASSERT_EQ(nz.size(), 2U);
  EXPECT_EQ(nz[0].to_host(), wr);
  EXPECT_EQ(nz[1].to_host(), wc);
  const auto w = nd::where(a > 0.5f);
  EXPECT_EQ(w[1].to_host(), wc);
  EXPECT_EQ(nd::flatnonzero(a > 0.5f).to_host(), wf);
  const auto aw = nd::argwhere(a > 0.5f);
  ASSERT_EQ(aw.shape(), (nd::shape_t{static_cast<nd::index_t>(wr.size()), 2}));
  const std::vector<std::int64_t> awh = aw.to_host();
  for (std::size_t p = 0; p < wr.size(); ++p) {
    EXPECT_EQ(awh[2 * p], wr[p]);
    EXPECT_EQ(awh[2 * p + 1], wc[p]);
  }
  EXPECT_EQ(nd::extract(a > 0.5f, a).to_host(), wx);
  // Static sizes: cut or padded with the fill value.
  const auto k = static_cast<nd::index_t>(wr.size());
  const auto padded = nd::nonzero(a > 0.5f, nd::size(k + 3), -7);
  std::vector<std::int64_t> wpad = wr;
  wpad.insert(wpad.end(), 3, -7);
  EXPECT_EQ(padded[0].to_host(), wpad);
  const auto cut = nd::extract(a > 0.5f, a, nd::size(2), -1.0f);
  EXPECT_EQ(cut.to_host(), std::vector<float>(wx.begin(), wx.begin() + 2));
  const auto filled = nd::extract(a > 0.5f, a, nd::size(k + 2), -1.0f);
  std::vector<float> wfill = wx;
  wfill.insert(wfill.end(), 2, -1.0f);
  EXPECT_EQ(filled.to_host(), wfill);
  // compress along axis 1 with a shorter condition.
  const auto comp = nd::compress(nd::asarray<bool>(std::vector<bool>{false, true, true}), a, 1);
  ASSERT_EQ(comp.shape(), (nd::shape_t{r, 2}));
  const std::vector<float> ch = comp.to_host();
  for (std::int64_t i = 0; i < r; ++i) {
    EXPECT_EQ(ch[static_cast<std::size_t>(2 * i)], host[static_cast<std::size_t>(i * c + 1)]);
    EXPECT_EQ(ch[static_cast<std::size_t>(2 * i + 1)], host[static_cast<std::size_t>(i * c + 2)]);
  }
}

template <class T>
T make(int x) {
  if constexpr (std::is_same_v<T, __half>) {
    return __float2half(static_cast<float>(x));
  } else if constexpr (std::is_same_v<T, bool>) {
    return x % 2 == 1;
  } else if constexpr (nd::detail::is_std_complex<T>) {
    return T(static_cast<typename T::value_type>(x), static_cast<typename T::value_type>(-x));
  } else {
    return static_cast<T>(x);
  }
}

template <class T>
bool same(T a, T b) {
  if constexpr (std::is_same_v<T, __half>) {
    return __half2float(a) == __half2float(b);
  } else {
    return a == b;
  }
}

// Every element width (1, 2, 8, 16 bytes; bool, float16, complex64, complex128, int8): a sliced
// (strided) source gathered through a strided index array, then a scatter back through it.
template <class T>
void check_typed_gather_scatter() {
  const std::int64_t rows = 12, cols = 10;
  std::uniform_int_distribution<int> values(0, 100);
  std::vector<T> host;
  for (std::int64_t e = 0; e < rows * cols; ++e) {
    host.push_back(make<T>(values(rng())));
  }
  const auto base = nd::asarray<T>(host, {rows, cols});
  const auto src = base(nd::slice(nd::none, nd::none, 2), nd::slice(1, nd::none));  // (6, 9), strided
  const std::vector<std::int64_t> raw = random_indices(16, 6);
  const auto idx_base = nd::asarray<std::int64_t>(raw);
  const auto idx = idx_base(nd::slice(nd::none, nd::none, 2));  // 8 indices, stride 2
  const std::vector<T> got = nd::ndarray<T>(src(idx)).to_host();
  ASSERT_EQ(got.size(), static_cast<std::size_t>(8 * 9));
  for (std::size_t p = 0; p < 8; ++p) {
    const std::int64_t r = 2 * wrap(raw[2 * p], 6);
    for (std::int64_t c = 0; c < 9; ++c) {
      EXPECT_TRUE(same<T>(got[p * 9 + static_cast<std::size_t>(c)], host[static_cast<std::size_t>(r * cols + 1 + c)]))
          << nd::name(nd::dtype_of<T>) << " at " << p << "," << c;
    }
  }
  // Scatter a constant row through the same index: every addressed row of the view, nothing else.
  auto target = base.copy();
  const auto view = target(nd::slice(nd::none, nd::none, 2), nd::slice(1, nd::none));
  const T fill = make<T>(7);
  view(idx) = fill;
  const std::vector<T> after = target.to_host();
  std::vector<bool> hit(6, false);
  for (std::size_t p = 0; p < 8; ++p) {
    hit[static_cast<std::size_t>(wrap(raw[2 * p], 6))] = true;
  }
  for (std::int64_t r = 0; r < rows; ++r) {
    for (std::int64_t c = 0; c < cols; ++c) {
      const bool written = r % 2 == 0 && c >= 1 && hit[static_cast<std::size_t>(r / 2)];
      const T want = written ? fill : host[static_cast<std::size_t>(r * cols + c)];
      EXPECT_TRUE(same<T>(after[static_cast<std::size_t>(r * cols + c)], want))
          << nd::name(nd::dtype_of<T>) << " at " << r << "," << c;
    }
  }
}

TEST(IndexingGpu, GatherAndScatterEveryElementWidthOnStridedViews) {
  NDCUDA_REQUIRE_GPU();
  check_typed_gather_scatter<bool>();
  check_typed_gather_scatter<std::int8_t>();
  check_typed_gather_scatter<__half>();
  check_typed_gather_scatter<float>();
  check_typed_gather_scatter<std::complex<float>>();
  check_typed_gather_scatter<std::complex<double>>();
}

TEST(IndexingGpu, OutOfRangeIndicesThrowNumPysIndexError) {
  NDCUDA_REQUIRE_GPU();
  const auto a = nd::zeros<float>({5, 4});
  EXPECT_EQ(error_text([&] {
              (void)nd::eval(a(std::vector<std::int64_t>{0, 10, 11}));
            }),
            "index 10 is out of bounds for axis 0 with size 5");
  EXPECT_EQ(error_text([&] { (void)nd::eval(a(nd::all, std::vector<std::int64_t>{-5})); }),
            "index -5 is out of bounds for axis 1 with size 4");
  EXPECT_EQ(error_text([&] { a(std::vector<std::int64_t>{7}) = 1.0f; }),
            "index 7 is out of bounds for axis 0 with size 5");
  EXPECT_EQ(error_text([&] { (void)nd::take(a, std::vector<std::int64_t>{20}); }),
            "index 20 is out of bounds for axis 0 with size 20");
  EXPECT_THROW((void)nd::eval(a(nd::zeros<bool>({4}))), nd::index_error);
  EXPECT_EQ(error_text([&] { a(nd::zeros<bool>({4})) = 1.0f; }),
            "boolean index did not match indexed array along axis 0; size of axis is 5 but size of corresponding "
            "boolean axis is 4");
  EXPECT_EQ(error_text([&] { a(nd::zeros<bool>({5})) = nd::zeros<float>({3}); }),
            "shape mismatch: value array of shape (3,) could not be broadcast to indexing result of shape (N,4)");
}

TEST(IndexingGpu, CaptureRefusesDataDependentSizesButTakesStaticOnes) {
  NDCUDA_REQUIRE_GPU();
  nd::stream s(0);
  const std::vector<float> host = nd::testing::uniform_values<float>(1000, -1.0, 1.0);
  const auto a = nd::asarray<float>(host, {1000}, s);
  auto out = nd::empty<std::int64_t>({10}, s);
  auto gathered = nd::empty<float>({10}, s);
  const std::string refused = error_text([&] { (void)nd::capture(s, [&] { (void)nd::nonzero(a > 0.0f); }); });
  EXPECT_NE(refused.find("nd::size"), std::string::npos) << refused;
  nd::graph g = nd::capture(s, [&] {
    out(nd::ellipsis) = nd::nonzero(a > 0.0f, nd::size(10), -1)[0];
    gathered(nd::ellipsis) = nd::ndarray<float>(a(out));
    a(a < -0.5f) = -0.5f;
  });
  ASSERT_TRUE(g);
  g.launch(s);
  std::vector<std::int64_t> want;
  for (std::size_t i = 0; i < host.size() && want.size() < 10; ++i) {
    if (host[i] > 0.0f) {
      want.push_back(static_cast<std::int64_t>(i));
    }
  }
  want.resize(10, -1);
  EXPECT_EQ(out.to_host(), want);
  const std::vector<float> got = gathered.to_host();
  const std::vector<float> clipped = a.to_host();
  for (std::size_t p = 0; p < 10; ++p) {
    EXPECT_EQ(got[p], host[static_cast<std::size_t>(wrap(want[p], 1000))]);
  }
  for (std::size_t i = 0; i < host.size(); ++i) {
    EXPECT_EQ(clipped[i], host[i] < -0.5f ? -0.5f : host[i]);
  }
}

}  // namespace
