// The fast paths of the gathers: pad/roll/tile/repeat/tril on rows wide enough for the grouped,
// vector-stored kernel path (odd widths, every element size, rows that start unaligned), and
// np.take's wrap and clip modes, each against a host reference on fresh random input.
#include <gtest/gtest.h>

#include <complex>
#include <cstdint>
#include <ndcuda/ndcuda.hpp>
#include <vector>

#include "support/gpu.hpp"
#include "support/random_inputs.hpp"

namespace nd = ndcuda;

namespace {

// NumPy's pad index maps along one axis of length n, `before` padded in front (edge, reflect,
// symmetric, wrap), written out directly rather than through the library's plan.
std::int64_t pad_source(std::int64_t o, std::int64_t n, std::int64_t before, nd::pad_mode mode) {
  std::int64_t c = o - before;
  switch (mode) {
    case nd::pad_mode::edge:
      return std::clamp<std::int64_t>(c, 0, n - 1);
    case nd::pad_mode::reflect: {
      if (n == 1) return 0;
      const std::int64_t p = 2 * (n - 1);
      c = ((c % p) + p) % p;
      return c >= n ? p - c : c;
    }
    case nd::pad_mode::symmetric: {
      const std::int64_t p = 2 * n;
      c = ((c % p) + p) % p;
      return c >= n ? p - 1 - c : c;
    }
    case nd::pad_mode::wrap:
      return ((c % n) + n) % n;
    default:
      return (c >= 0 && c < n) ? c : -1;
  }
}

template <class T>
void check_rearranging_wide_rows() {
  const std::int64_t rows = 7;
  const std::int64_t cols = 1003;  // odd: rows after the first start unaligned for vector stores
  const std::vector<T> host = nd::testing::uniform_integers<T>(static_cast<std::size_t>(rows * cols), -100, 100);
  const auto a = nd::asarray<T>(host, {rows, cols});
  auto at = [&](std::int64_t i, std::int64_t j) { return host[static_cast<std::size_t>(i * cols + j)]; };

  // roll along both axes, and of the flattened array.
  const std::int64_t sr = 3;
  const std::int64_t sc = -517;
  const std::vector<T> rolled = nd::roll(a, {sr, sc}, {0, 1}).to_host();
  for (std::int64_t i = 0; i < rows; ++i) {
    for (std::int64_t j = 0; j < cols; ++j) {
      const T want = at(((i - sr) % rows + rows) % rows, ((j - sc) % cols + cols) % cols);
      ASSERT_EQ(rolled[static_cast<std::size_t>(i * cols + j)], want) << i << "," << j;
    }
  }
  const std::int64_t n = rows * cols;
  const std::vector<T> flat = nd::roll(a, 1234).to_host();
  for (std::int64_t f = 0; f < n; ++f) {
    ASSERT_EQ(flat[static_cast<std::size_t>(f)], host[static_cast<std::size_t>(((f - 1234) % n + n) % n)]);
  }

  // pad, every mode, with widths wider than one period on the rows and odd on the columns.
  for (nd::pad_mode mode : {nd::pad_mode::constant, nd::pad_mode::edge, nd::pad_mode::reflect, nd::pad_mode::symmetric,
                            nd::pad_mode::wrap}) {
    const std::int64_t b0 = 9, a0 = 2, b1 = 5, a1 = 14;
    const std::vector<T> padded = nd::pad(a, {{b0, a0}, {b1, a1}}, mode).to_host();
    const std::int64_t oc = cols + b1 + a1;
    ASSERT_EQ(padded.size(), static_cast<std::size_t>((rows + b0 + a0) * oc));
    for (std::int64_t i = 0; i < rows + b0 + a0; ++i) {
      for (std::int64_t j = 0; j < oc; ++j) {
        const std::int64_t si = pad_source(i, rows, b0, mode);
        const std::int64_t sj = pad_source(j, cols, b1, mode);
        const T want = (si < 0 || sj < 0) ? T{} : at(si, sj);
        ASSERT_EQ(padded[static_cast<std::size_t>(i * oc + j)], want)
            << "mode " << static_cast<int>(mode) << " at " << i << "," << j;
      }
    }
  }

  // tile and repeat (both periodic/dividing maps), tril with a diagonal crossing the groups.
  const std::vector<T> tiled = nd::tile(a, {2, 3}).to_host();
  for (std::int64_t i = 0; i < 2 * rows; ++i) {
    for (std::int64_t j = 0; j < 3 * cols; ++j) {
      ASSERT_EQ(tiled[static_cast<std::size_t>(i * 3 * cols + j)], at(i % rows, j % cols));
    }
  }
  const std::vector<T> repeated = nd::repeat(a, 3, 1).to_host();
  for (std::int64_t i = 0; i < rows; ++i) {
    for (std::int64_t j = 0; j < 3 * cols; ++j) {
      ASSERT_EQ(repeated[static_cast<std::size_t>(i * 3 * cols + j)], at(i, j / 3));
    }
  }
  const std::vector<T> lower = nd::tril(a, 501).to_host();
  for (std::int64_t i = 0; i < rows; ++i) {
    for (std::int64_t j = 0; j < cols; ++j) {
      ASSERT_EQ(lower[static_cast<std::size_t>(i * cols + j)], j - i <= 501 ? at(i, j) : T{});
    }
  }
}

}  // namespace

TEST(FastPathsGpu, RearrangingWideRowsMatchesTheHostForEveryElementSize) {
  NDCUDA_REQUIRE_GPU();
  check_rearranging_wide_rows<std::uint8_t>();
  check_rearranging_wide_rows<std::int16_t>();
  check_rearranging_wide_rows<float>();
  check_rearranging_wide_rows<double>();
  check_rearranging_wide_rows<std::complex<double>>();
}

TEST(FastPathsGpu, RearrangingAStridedInputTakesTheElementPath) {
  NDCUDA_REQUIRE_GPU();
  const std::int64_t rows = 40, cols = 90;
  const std::vector<float> host =
      nd::testing::uniform_integers<float>(static_cast<std::size_t>(rows * cols), -100, 100);
  const auto a = nd::asarray<float>(host, {rows, cols});
  const auto t = a.T();  // inner stride 90: no consecutive source elements
  const std::vector<float> rolled = nd::roll(t, {-7}, {1}).to_host();
  for (std::int64_t i = 0; i < cols; ++i) {
    for (std::int64_t j = 0; j < rows; ++j) {
      ASSERT_EQ(rolled[static_cast<std::size_t>(i * rows + j)],
                host[static_cast<std::size_t>(((j + 7) % rows) * cols + i)]);
    }
  }
}

TEST(FastPathsGpu, TakeWrapAndClipMatchNumPyWithoutChecking) {
  NDCUDA_REQUIRE_GPU();
  const std::int64_t rows = 6, cols = 37;
  const std::vector<float> host =
      nd::testing::uniform_integers<float>(static_cast<std::size_t>(rows * cols), -100, 100);
  const auto a = nd::asarray<float>(host, {rows, cols});
  const std::vector<std::int64_t> idx =
      nd::testing::uniform_integers<std::int64_t>(50, -3 * cols, 3 * cols);  // far outside, both sides
  const auto wrapped = nd::take(a, idx, 1, nd::take_mode::wrap).to_host();
  const auto clipped = nd::take(a, idx, 1, nd::take_mode::clip).to_host();
  for (std::int64_t i = 0; i < rows; ++i) {
    for (std::size_t p = 0; p < idx.size(); ++p) {
      const std::int64_t w = ((idx[p] % cols) + cols) % cols;
      const std::int64_t c = std::clamp<std::int64_t>(idx[p], 0, cols - 1);  // NumPy: negatives clip to 0
      EXPECT_EQ(wrapped[static_cast<std::size_t>(i) * idx.size() + p], host[static_cast<std::size_t>(i * cols + w)]);
      EXPECT_EQ(clipped[static_cast<std::size_t>(i) * idx.size() + p], host[static_cast<std::size_t>(i * cols + c)]);
    }
  }
  // int32 indices and the flattened array; the default mode still raises NumPy's IndexError.
  std::vector<std::int32_t> idx32(idx.begin(), idx.end());
  const auto idx_dev = nd::asarray<std::int32_t>(idx32, {static_cast<std::int64_t>(idx32.size())});
  const auto flat = nd::take(a, idx_dev, std::nullopt, nd::take_mode::wrap).to_host();
  const std::int64_t n = rows * cols;
  for (std::size_t p = 0; p < idx.size(); ++p) {
    EXPECT_EQ(flat[p], host[static_cast<std::size_t>(((idx[p] % n) + n) % n)]);
  }
  EXPECT_THROW((void)nd::take(a, std::vector<std::int64_t>{cols}, 1), nd::index_error);
  // An empty axis has nothing to wrap or clip to (NumPy's text).
  const auto empty = nd::empty<float>({3, 0});
  try {
    (void)nd::take(empty, std::vector<std::int64_t>{0}, 1, nd::take_mode::clip);
    ADD_FAILURE() << "no error";
  } catch (const nd::index_error& e) {
    EXPECT_STREQ(e.what(), "cannot do a non-empty take from an empty axes.");
  }
}

TEST(FastPathsGpu, TakeWrapCapturesIntoAGraphWithoutWaiting) {
  NDCUDA_REQUIRE_GPU();
  nd::stream s;
  const std::vector<float> host = nd::testing::uniform_integers<float>(100, -100, 100);
  const auto a = nd::asarray<float>(host, {100}, s);
  const auto idx = nd::asarray<std::int64_t>(std::vector<std::int64_t>{-1, 250, 3, -205}, {4}, s);
  auto out = nd::empty<float>({4}, s);
  nd::graph g = nd::capture(s, [&] { out(nd::ellipsis) = nd::take(a, idx, 0, nd::take_mode::wrap); });
  ASSERT_TRUE(g);
  g.launch(s);
  const std::vector<float> got = out.to_host();
  EXPECT_EQ(got, (std::vector<float>{host[99], host[50], host[3], host[95]}));
}
