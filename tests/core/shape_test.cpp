// Shapes, strides, broadcasting and axes against NumPy 2 (reference table in tests/data).
#include <gtest/gtest.h>

#include <fstream>
#include <ndcuda/core/error.hpp>
#include <ndcuda/core/shape.hpp>
#include <sstream>
#include <string>

#include "support/gpu.hpp"

namespace nd = ndcuda;

namespace {

nd::shape_t parse_shape(const std::string& text) {
  nd::shape_t shape;
  std::istringstream in(text);
  for (nd::index_t extent = 0; in >> extent;) {
    shape.push_back(extent);
  }
  return shape;
}

}  // namespace

TEST(Shape, FormatsLikeNumPy) {
  EXPECT_EQ(nd::format_shape(nd::shape_t{}), "()");
  EXPECT_EQ(nd::format_shape(nd::shape_t{5}), "(5,)");
  EXPECT_EQ(nd::format_shape(nd::shape_t{3, 4}), "(3, 4)");
}

TEST(Shape, SizeAndErrors) {
  EXPECT_EQ(nd::shape_size(nd::shape_t{}), 1);
  EXPECT_EQ(nd::shape_size(nd::shape_t{3, 0, 7}), 0);
  EXPECT_EQ(nd::shape_size(nd::shape_t{2, 3, 4}), 24);
  EXPECT_THROW((void)nd::shape_size(nd::shape_t{2, -1}), nd::shape_error);
  EXPECT_THROW((void)nd::shape_size(nd::shape_t{1LL << 40, 1LL << 40}), nd::shape_error);
  // As in NumPy, a zero extent does not excuse the others: np.empty((2**40, 2**40, 0)) is too big.
  EXPECT_THROW((void)nd::shape_size(nd::shape_t{1LL << 40, 1LL << 40, 0}), nd::shape_error);
  EXPECT_EQ(nd::shape_size(nd::shape_t{1LL << 30, 1LL << 30, 0}), 0);
}

TEST(Shape, CStridesAndContiguity) {
  auto& rng = nd::testing::rng();
  for (int trial = 0; trial < 200; ++trial) {
    nd::shape_t shape(rng() % 6);
    for (auto& extent : shape) {
      extent = static_cast<nd::index_t>(rng() % 5);
    }
    nd::strides_t strides = nd::c_strides(shape);
    // Reference: the offset of the last element in C order equals size-1 when nothing is empty.
    nd::index_t last = 0;
    for (std::size_t i = 0; i < shape.size(); ++i) {
      last += (shape[i] - 1) * strides[i];
    }
    if (nd::shape_size(shape) > 0) {
      EXPECT_EQ(last, nd::shape_size(shape) - 1) << nd::format_shape(shape);
    }
    EXPECT_TRUE(nd::is_c_contiguous(shape, strides));
  }
  EXPECT_FALSE(nd::is_c_contiguous(nd::shape_t{3, 4}, nd::strides_t{1, 3}));  // Fortran order
  EXPECT_TRUE(nd::is_c_contiguous(nd::shape_t{3, 1}, nd::strides_t{1, 99}));  // extent-1 dims are free
  EXPECT_FALSE(nd::is_c_contiguous(nd::shape_t{3, 4}, nd::strides_t{8, 2}));  // a strided view
}

TEST(Shape, BroadcastMatchesNumPyTable) {
  std::ifstream file(NDCUDA_TEST_DATA_DIR "/broadcast_cases.csv");
  ASSERT_TRUE(file) << "missing " NDCUDA_TEST_DATA_DIR "/broadcast_cases.csv (run tests/data/gen_broadcast_cases.py)";
  int cases = 0;
  int errors = 0;
  for (std::string line; std::getline(file, line);) {
    if (line.empty() || line[0] == '#') {
      continue;
    }
    auto first = line.find(';');
    auto second = line.find(';', first + 1);
    nd::shape_t a = parse_shape(line.substr(0, first));
    nd::shape_t b = parse_shape(line.substr(first + 1, second - first - 1));
    std::string expected = line.substr(second + 1);
    ++cases;
    if (expected == "error") {
      ++errors;
      EXPECT_THROW((void)nd::broadcast_shapes(a, b), nd::shape_error) << line;
    } else {
      EXPECT_EQ(nd::broadcast_shapes(a, b), parse_shape(expected)) << line;
      EXPECT_EQ(nd::broadcast_shapes(b, a), parse_shape(expected)) << line;
    }
  }
  EXPECT_GE(cases, 300);
  EXPECT_GE(errors, 20);
}

TEST(Shape, BroadcastErrorNamesBothShapesLikeNumPy) {
  try {
    (void)nd::broadcast_shapes(nd::shape_t{3, 4}, nd::shape_t{5});
    FAIL() << "expected shape_error";
  } catch (const nd::shape_error& e) {
    EXPECT_NE(std::string(e.what()).find("operands could not be broadcast together with shapes (3,4) (5,)"),
              std::string::npos)
        << e.what();
  }
}

TEST(Shape, BroadcastStrides) {
  // A (3,1) column with stride 1 viewed as (2,3,4): zero strides on the new and stretched dims.
  EXPECT_EQ(nd::broadcast_strides(nd::shape_t{3, 1}, nd::strides_t{1, 1}, nd::shape_t{2, 3, 4}),
            (nd::strides_t{0, 1, 0}));
  EXPECT_EQ(nd::broadcast_strides(nd::shape_t{4}, nd::strides_t{-2}, nd::shape_t{3, 4}), (nd::strides_t{0, -2}));
  EXPECT_THROW((void)nd::broadcast_strides(nd::shape_t{3}, nd::strides_t{1}, nd::shape_t{4}), nd::shape_error);
  EXPECT_THROW((void)nd::broadcast_strides(nd::shape_t{2, 3}, nd::strides_t{3, 1}, nd::shape_t{3}), nd::shape_error);
}

TEST(Shape, AxesLikeNumPy) {
  EXPECT_EQ(nd::normalize_axis(-1, 3), 2);
  EXPECT_EQ(nd::normalize_axis(0, 1), 0);
  try {
    (void)nd::normalize_axis(2, 2);
    FAIL() << "expected shape_error";
  } catch (const nd::shape_error& e) {
    EXPECT_STREQ(e.what(), "axis 2 is out of bounds for array of dimension 2");
  }
  EXPECT_THROW((void)nd::normalize_axis(-3, 2), nd::shape_error);
  EXPECT_THROW((void)nd::normalize_axis(0, 0), nd::shape_error);
  EXPECT_EQ(nd::normalize_axes(nd::shape_t{-1, 0}, 3), (std::vector<int>{2, 0}));
  EXPECT_THROW((void)nd::normalize_axes(nd::shape_t{1, -2}, 3), nd::shape_error);
}
