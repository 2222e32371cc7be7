// The 2-d elementwise variants on the GPU against host references on random data: transposes
// (the shared-memory tiled variant) of non-square and thin shapes in several dtypes, an outer
// broadcast (the rows-by-columns grid, scalar or with row vectors: tails, misaligned views, int8
// to complex64), and transposed and broadcast operands mixed.
#include <gtest/gtest.h>

#include <complex>
#include <cstdint>
#include <ndcuda/ndcuda.hpp>
#include <type_traits>
#include <vector>

#include "support/gpu.hpp"
#include "support/random_inputs.hpp"

namespace nd = ndcuda;

namespace {

template <class T>
std::vector<T> random_values(std::size_t n) {
  std::vector<T> v = nd::testing::uniform_integers<T>(n, -100, 100);
  for (T& x : v) {
    if constexpr (std::is_same_v<T, std::complex<float>>) {
      x = T(x.real() / 8, x.imag() / 8);
    } else if constexpr (std::is_floating_point_v<T>) {
      x /= 8;
    }
  }
  return v;
}

// a.T() made contiguous, checked element by element (a copy: exact in every dtype).
template <class T>
void expect_transpose(nd::index_t rows, nd::index_t cols) {
  SCOPED_TRACE(std::to_string(rows) + " x " + std::to_string(cols));
  const auto host = random_values<T>(static_cast<std::size_t>(rows * cols));
  const auto a = nd::asarray(host, {rows, cols});
  const nd::ndarray<T> t = a.T().copy();
  ASSERT_EQ(t.shape(), (nd::shape_t{cols, rows}));
  const auto got = t.to_host();
  for (nd::index_t c = 0; c < cols; ++c) {
    for (nd::index_t r = 0; r < rows; ++r) {
      ASSERT_EQ(got[static_cast<std::size_t>(c * rows + r)], host[static_cast<std::size_t>(r * cols + c)])
          << r << ", " << c;
    }
  }
}

// x (rows, 1) + y (1, cols) written into columns [first, first + cols) of a zeroed (rows, width)
// array (the whole of it when width == cols), checked exactly against the host; the columns
// around the view must stay 0. Aligned rows take the vectorised 2-d variant (with a tail where
// cols is not a multiple of the vector), misaligned ones the scalar 2-d grid.
template <class T>
void expect_outer_add(nd::index_t rows, nd::index_t cols, nd::index_t first = 0, nd::index_t width = 0) {
  width = width == 0 ? cols : width;
  SCOPED_TRACE(std::to_string(rows) + " x " + std::to_string(cols) + " at column " + std::to_string(first) + " of " +
               std::to_string(width) + ", itemsize " + std::to_string(sizeof(T)));
  auto hx = random_values<T>(static_cast<std::size_t>(rows));
  auto hy = random_values<T>(static_cast<std::size_t>(cols));
  if constexpr (std::is_integral_v<T>) {  // int8 sums stay in range
    for (T& v : hx) {
      v = static_cast<T>(v / 2);
    }
    for (T& v : hy) {
      v = static_cast<T>(v / 2);
    }
  }
  const auto x = nd::asarray(hx, {rows, 1});
  const auto y = nd::asarray(hy, {1, cols});
  std::vector<T> got;
  if (width == cols && first == 0) {
    const nd::ndarray<T> sum = nd::eval(x + y);
    ASSERT_EQ(sum.shape(), (nd::shape_t{rows, cols}));
    got = sum.to_host();
  } else {
    auto out = nd::zeros<T>({rows, width});
    out(nd::all, nd::slice(first, first + cols)) = x + y;
    got = out.to_host();
  }
  for (nd::index_t r = 0; r < rows; ++r) {
    for (nd::index_t c = 0; c < width; ++c) {
      const bool inside = c >= first && c < first + cols;
      // Multiples of 1/8 below 13 (integers below 51 for int8): every sum is exact.
      const T want =
          inside ? static_cast<T>(hx[static_cast<std::size_t>(r)] + hy[static_cast<std::size_t>(c - first)]) : T{};
      ASSERT_EQ(got[static_cast<std::size_t>(r * width + c)], want) << r << ", " << c;
    }
  }
}

}  // namespace

TEST(OpsGpuLayout, TransposesOfNonSquareAndThinShapes) {
  NDCUDA_REQUIRE_GPU();
  for (const auto& [rows, cols] : std::vector<std::pair<nd::index_t, nd::index_t>>{
           {1000, 333}, {333, 1000}, {33, 4097}, {4097, 33}, {1, 5000}, {5000, 1}, {17, 17}, {64, 64}, {15, 300}}) {
    expect_transpose<float>(rows, cols);
  }
}

TEST(OpsGpuLayout, TransposesInFloat64Int8AndComplex64) {
  NDCUDA_REQUIRE_GPU();
  expect_transpose<double>(1000, 333);
  expect_transpose<std::int8_t>(1000, 333);
  expect_transpose<std::int8_t>(33, 4097);
  expect_transpose<std::complex<float>>(1000, 333);
  expect_transpose<std::complex<float>>(4097, 33);
}

TEST(OpsGpuLayout, OuterBroadcastAdd) {
  NDCUDA_REQUIRE_GPU();
  for (const auto& [rows, cols] :
       std::vector<std::pair<nd::index_t, nd::index_t>>{{1000, 777}, {3000, 5}, {5, 3000}, {64, 64}}) {
    const auto hx = random_values<float>(static_cast<std::size_t>(rows));
    const auto hy = random_values<float>(static_cast<std::size_t>(cols));
    const auto x = nd::asarray(hx, {rows, 1});
    const auto y = nd::asarray(hy, {1, cols});
    const auto sum = nd::eval(x + y);
    ASSERT_EQ(sum.shape(), (nd::shape_t{rows, cols}));
    const auto got = sum.to_host();
    for (nd::index_t r = 0; r < rows; ++r) {
      for (nd::index_t c = 0; c < cols; ++c) {
        // Values are multiples of 1/8 below 13: the float sum is exact.
        ASSERT_EQ(got[static_cast<std::size_t>(r * cols + c)],
                  hx[static_cast<std::size_t>(r)] + hy[static_cast<std::size_t>(c)])
            << rows << " x " << cols << " at " << r << ", " << c;
      }
    }
  }
}

TEST(OpsGpuLayout, OuterBroadcastAddWithRowVectorsTailsAndMisalignedViews) {
  NDCUDA_REQUIRE_GPU();
  expect_outer_add<float>(1000, 777);           // row length 777: row starts misaligned, scalar grid
  expect_outer_add<float>(4096, 4096);          // aligned: 4 per vector
  expect_outer_add<float>(1000, 777, 0, 780);   // aligned row starts, 777 % 4 = 1 column of tail
  expect_outer_add<float>(1000, 777, 1, 780);   // starting at column 1: misaligned, scalar grid
  expect_outer_add<float>(300, 4096, 4, 4104);  // starting at column 4: aligned again
  expect_outer_add<std::int8_t>(1000, 777);
  expect_outer_add<std::int8_t>(4096, 4096);           // 16 per vector
  expect_outer_add<std::int8_t>(1000, 1000, 0, 1024);  // 1000 % 16 = 8 columns of tail
  expect_outer_add<std::int8_t>(1000, 1000, 3, 1024);
  expect_outer_add<double>(1000, 777);
  expect_outer_add<double>(4096, 4096);         // 2 per vector
  expect_outer_add<double>(1000, 777, 0, 778);  // 1 column of tail
  expect_outer_add<double>(1000, 777, 1, 778);
  expect_outer_add<std::complex<float>>(1000, 777);
  expect_outer_add<std::complex<float>>(4096, 4096);  // 2 per vector
  expect_outer_add<std::complex<float>>(1000, 777, 0, 778);
  expect_outer_add<std::complex<float>>(1000, 777, 1, 778);
}

TEST(OpsGpuLayout, TransposedAndBroadcastOperandsMixed) {
  NDCUDA_REQUIRE_GPU();
  constexpr nd::index_t rows = 700;
  constexpr nd::index_t cols = 257;
  const auto ha = random_values<double>(static_cast<std::size_t>(rows * cols));  // stored (cols, rows)
  const auto hb = random_values<double>(static_cast<std::size_t>(cols));
  const auto hc = random_values<double>(static_cast<std::size_t>(rows));
  const auto hd = random_values<double>(static_cast<std::size_t>(rows * cols));  // row-major (rows, cols)
  const auto a = nd::asarray(ha, {cols, rows});
  const auto b = nd::asarray(hb, {cols});
  const auto c = nd::asarray(hc, {rows, 1});
  const auto d = nd::asarray(hd, {rows, cols});
  const auto result = nd::eval(a.T() * 2.0 + b + c - d);
  ASSERT_EQ(result.shape(), (nd::shape_t{rows, cols}));
  const auto got = result.to_host();
  for (nd::index_t r = 0; r < rows; ++r) {
    for (nd::index_t k = 0; k < cols; ++k) {
      const auto i = static_cast<std::size_t>(r * cols + k);
      const double want = ha[static_cast<std::size_t>(k * rows + r)] * 2.0 + hb[static_cast<std::size_t>(k)] +
                          hc[static_cast<std::size_t>(r)] - hd[i];
      ASSERT_EQ(got[i], want) << r << ", " << k;  // multiples of 1/8: exact in double
    }
  }
  // The same expression written into a transposed (column-major) output: now a.T() is dense
  // relative to the output and d is the transposed input.
  auto out = nd::zeros<double>({cols, rows});
  auto view = out.T();
  view(nd::ellipsis) = a.T() * 2.0 + b + c - d;
  const auto stored = out.to_host();
  for (nd::index_t r = 0; r < rows; ++r) {
    for (nd::index_t k = 0; k < cols; ++k) {
      const double want = ha[static_cast<std::size_t>(k * rows + r)] * 2.0 + hb[static_cast<std::size_t>(k)] +
                          hc[static_cast<std::size_t>(r)] - hd[static_cast<std::size_t>(r * cols + k)];
      ASSERT_EQ(stored[static_cast<std::size_t>(k * rows + r)], want) << r << ", " << k;
    }
  }
}
