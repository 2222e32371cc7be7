// Joining, splitting and rearranging on the CPU against NumPy's cases (tests/data/arrange_cases.txt):
// result shapes, the layouts of the view functions (on fake arrays), the index maps of pad, roll,
// tile, repeat and tril/triu (through a host gather), and every error text; plus an NVRTC compile
// of the gather kernels.
#include <gtest/gtest.h>

#include <ndcuda/ndcuda.hpp>
#include <string>
#include <vector>

#include "support/arrange_cases.hpp"
#include "support/fake_array.hpp"

namespace nd = ndcuda;
using nd::index_t;
using nd::shape_t;
using nd::testing::arrange_cases;
using nd::testing::expected_error;
using nd::testing::parse_list;
using nd::testing::parse_shape;

namespace {

std::string shape_text(const shape_t& s) {
  std::string out;
  for (std::size_t d = 0; d < s.size(); ++d) {
    out += (d != 0 ? "x" : "") + std::to_string(s[d]);
  }
  return out.empty() ? "-" : out;
}

std::string list_text(const std::vector<index_t>& v) {
  std::string out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    out += (i != 0 ? "," : "") + std::to_string(v[i]);
  }
  return out.empty() ? "-" : out;
}

// A layout as shape|strides|offset, with what no element depends on blanked ('_'): the stride of
// an axis of extent 1, and strides and offset of an empty view (NumPy and ndcuda differ there).
std::string layout_text(const shape_t& shape, const std::vector<index_t>& strides, index_t offset) {
  const bool empty = nd::shape_size(shape) == 0;
  std::string st;
  for (std::size_t d = 0; d < strides.size(); ++d) {
    st += (d != 0 ? "," : "") + (empty || shape[d] == 1 ? std::string("_") : std::to_string(strides[d]));
  }
  return shape_text(shape) + "|" + (st.empty() ? "-" : st) + "|" + (empty ? "_" : std::to_string(offset));
}
std::string layout_text(const nd::ndarray<float>& v) {
  return layout_text(v.shape(), v.strides(), v.offset());
}
std::string layout_text(const std::string& numpy) {
  const auto parts = nd::testing::split_fields(numpy, '|');
  return layout_text(parse_shape(parts[0]), parse_list(parts[1]), std::stoll(parts[2]));
}

// "ok:<f()>" or "error:<message>", compared with the case's NumPy result.
template <class F>
void expect_case(const nd::testing::arrange_case& c, F&& f) {
  std::string got;
  try {
    got = "ok:" + f();
  } catch (const nd::error& e) {
    got = std::string("error:") + e.what();
  }
  const std::string want = (c.ok ? "ok:" : "error:") + (c.ok ? c.result : expected_error(c.result));
  EXPECT_EQ(got, want) << c.line;
}

std::vector<shape_t> shapes_of(const std::string& field) {
  std::vector<shape_t> shapes;
  if (field != "-") {
    for (const std::string& s : nd::testing::split_fields(field, '|')) {
      shapes.push_back(parse_shape(s));
    }
  }
  return shapes;
}

}  // namespace

TEST(ArrangePlan, ConcatenateShapesAndErrorsAsNumPy) {
  const auto cases = arrange_cases("concat");
  ASSERT_GT(cases.size(), 10u);
  for (const auto& c : cases) {
    expect_case(c, [&] {
      std::vector<shape_t> shapes = shapes_of(c.fields[1]);
      index_t axis = 0;
      if (c.fields[2] == "n") {
        for (shape_t& s : shapes) {
          s = {nd::shape_size(s)};
        }
      } else {
        axis = std::stoll(c.fields[2]);
      }
      int ax = 0;
      return shape_text(nd::detail::concatenate_shape(shapes, axis, &ax));
    });
  }
}

TEST(ArrangePlan, StackingShapesAndErrorsAsNumPy) {
  for (const auto& c : arrange_cases("stack")) {
    expect_case(c, [&] {
      const std::vector<shape_t> shapes = shapes_of(c.fields[1]);
      nd::detail::check_stack_shapes(shapes);
      const int ax = nd::normalize_axis(std::stoll(c.fields[2]), static_cast<int>(shapes[0].size()) + 1);
      shape_t out = shapes[0];
      out.insert(out.begin() + ax, static_cast<index_t>(shapes.size()));
      return shape_text(out);
    });
  }
  // hstack/vstack/dstack/column_stack: NumPy's placement of the new axes, then the concatenation.
  for (const std::string fn : {"hstack", "vstack", "dstack", "column_stack"}) {
    for (const auto& c : arrange_cases(fn)) {
      expect_case(c, [&] {
        std::vector<shape_t> shapes;
        for (const shape_t& s : shapes_of(c.fields[1])) {
          const nd::view_layout v = nd::contiguous_layout(s);
          nd::view_layout l = fn == "hstack"   ? nd::detail::atleast_layout(v, 1)
                              : fn == "vstack" ? nd::detail::atleast_layout(v, 2)
                              : fn == "dstack" ? nd::detail::atleast_layout(v, 3)
                              : s.size() < 2   ? nd::transpose_layout(nd::detail::atleast_layout(v, 2))
                                               : v;
          shapes.push_back(l.shape);
        }
        const index_t axis = fn == "hstack"   ? (shapes[0].size() == 1 ? 0 : 1)
                             : fn == "vstack" ? 0
                             : fn == "dstack" ? 2
                                              : 1;
        int ax = 0;
        return shape_text(nd::detail::concatenate_shape(shapes, axis, &ax));
      });
    }
  }
}

TEST(ArrangePlan, SplitPiecesAreViewsAsNumPy) {
  const auto cases = arrange_cases("split");
  ASSERT_GT(cases.size(), 10u);
  for (const auto& c : cases) {
    expect_case(c, [&] {
      const auto a = nd::testing::fake<float>(parse_shape(c.fields[1]));
      const index_t axis = std::stoll(c.fields[2]);
      const std::string& kind = c.fields[3];
      const bool list = c.fields[4][0] == 'i';
      const std::vector<index_t> indices = list ? parse_list(c.fields[4].substr(1)) : std::vector<index_t>{};
      const index_t sections = list ? 0 : std::stoll(c.fields[4]);
      std::vector<nd::ndarray<float>> pieces;
      if (kind == "s" || kind == "i") {
        pieces = list ? nd::split(a, indices, axis) : nd::split(a, sections, axis);
      } else if (kind == "a") {
        pieces = nd::array_split(a, sections, axis);
      } else if (kind == "h") {
        pieces = list ? nd::hsplit(a, indices) : nd::hsplit(a, sections);
      } else if (kind == "v") {
        pieces = list ? nd::vsplit(a, indices) : nd::vsplit(a, sections);
      } else {
        pieces = nd::dsplit(a, sections);
      }
      const int ax = kind == "h"   ? (a.ndim() > 1 ? 1 : 0)
                     : kind == "v" ? 0
                     : kind == "d" ? 2
                                   : nd::normalize_axis(axis, a.ndim());
      std::string out = std::to_string(ax) + ":";
      for (std::size_t i = 0; i < pieces.size(); ++i) {
        const index_t extent = pieces[i].shape()[static_cast<std::size_t>(ax)];
        const index_t start = extent == 0 ? -1 : pieces[i].offset() / a.strides()[static_cast<std::size_t>(ax)];
        out += (i != 0 ? "|" : "") + std::to_string(start) + "+" + std::to_string(extent);
      }
      return out;
    });
  }
}

TEST(ArrangePlan, ViewLayoutsAsNumPy) {
  auto cases = arrange_cases("view");
  ASSERT_GT(cases.size(), 30u);
  for (auto& c : cases) {
    if (c.ok) {
      c.result = layout_text(c.result);
    }
    expect_case(c, [&] {
      const auto a = nd::testing::fake<float>(parse_shape(c.fields[2]));
      const std::string& op = c.fields[1];
      const std::string& arg = c.fields[3];
      if (op == "flip") {
        return layout_text(arg == "-" ? nd::flip(a) : nd::flip(a, parse_list(arg)));
      }
      if (op == "rot90") {
        const auto v = parse_list(arg);
        return layout_text(nd::rot90(a, v[0], {v[1], v[2]}));
      }
      if (op == "moveaxis") {
        const auto parts = nd::testing::split_fields(arg, '/');
        return layout_text(nd::moveaxis(a, parse_list(parts[0]), parse_list(parts[1])));
      }
      if (op == "diagonal") {
        const auto v = parse_list(arg);
        return layout_text(nd::diagonal(a, v[0], v[1], v[2]));
      }
      if (op == "atleast") {
        return layout_text(arg == "1" ? nd::atleast_1d(a) : arg == "2" ? nd::atleast_2d(a) : nd::atleast_3d(a));
      }
      return layout_text(op == "fliplr" ? nd::fliplr(a) : nd::flipud(a));
    });
  }
}

TEST(ArrangePlan, PadMapsAsNumPy) {
  const auto cases = arrange_cases("pad");
  ASSERT_GT(cases.size(), 15u);
  for (const auto& c : cases) {
    expect_case(c, [&] {
      const shape_t shape = parse_shape(c.fields[1]);
      const std::vector<index_t> w = parse_list(c.fields[2]);
      std::vector<std::pair<index_t, index_t>> widths;
      for (std::size_t i = 0; i + 1 < w.size(); i += 2) {
        widths.emplace_back(w[i], w[i + 1]);
      }
      const std::string& m = c.fields[3];
      const nd::pad_mode mode = m == "constant"    ? nd::pad_mode::constant
                                : m == "edge"      ? nd::pad_mode::edge
                                : m == "reflect"   ? nd::pad_mode::reflect
                                : m == "symmetric" ? nd::pad_mode::symmetric
                                                   : nd::pad_mode::wrap;
      return nd::testing::host_gather(shape, nd::detail::pad_plan(shape, widths, mode));
    });
  }
}

TEST(ArrangePlan, RollTileRepeatTriangleMapsAsNumPy) {
  for (const auto& c : arrange_cases("roll")) {
    expect_case(c, [&] {
      shape_t shape = parse_shape(c.fields[1]);
      std::vector<index_t> axes;
      const shape_t original = shape;
      if (c.fields[3] == "n") {
        shape = {nd::shape_size(shape)};
        axes = {0};
      } else {
        axes = parse_list(c.fields[3]);
      }
      std::string r = nd::testing::host_gather(shape, nd::detail::roll_plan(shape, parse_list(c.fields[2]), axes));
      return shape_text(original) + r.substr(r.find('|'));
    });
  }
  for (const auto& c : arrange_cases("tile")) {
    expect_case(c, [&] {
      const auto plan = nd::detail::tile_plan(parse_shape(c.fields[1]), parse_list(c.fields[2]));
      return nd::testing::host_gather(plan.in_shape, plan.axes);
    });
  }
  for (const auto& c : arrange_cases("repeat")) {
    expect_case(c, [&] {
      shape_t shape = parse_shape(c.fields[1]);
      const std::vector<index_t> counts = parse_list(c.fields[2]);
      if (c.fields[3] == "n") {
        shape = {nd::shape_size(shape)};
      }
      const int ax =
          nd::normalize_axis(c.fields[3] == "n" ? 0 : std::stoll(c.fields[3]), static_cast<int>(shape.size()));
      if (counts.size() == 1) {  // a scalar count, as the generator passes it
        return nd::testing::host_gather(shape, nd::detail::repeat_plan(shape, ax, counts[0]));
      }
      nd::detail::check_repeat_counts(shape[static_cast<std::size_t>(ax)], counts);
      const std::vector<std::int64_t> ends = nd::detail::repeat_ends(counts);
      std::vector<std::int64_t> table;  // the reference table, from the counts themselves
      for (std::size_t j = 0; j < counts.size(); ++j) {
        EXPECT_EQ(ends[j], (j == 0 ? 0 : ends[j - 1]) + counts[j]);
        table.insert(table.end(), static_cast<std::size_t>(counts[j]), static_cast<std::int64_t>(j));
      }
      auto axes = nd::detail::repeat_plan(shape, ax, 1);
      axes[static_cast<std::size_t>(ax)].out_extent = static_cast<index_t>(table.size());
      axes[static_cast<std::size_t>(ax)].mode = nd::detail::remap_mode::table;
      return nd::testing::host_gather(shape, axes, reinterpret_cast<const index_t*>(table.data()));
    });
  }
  for (const std::string fn : {"tril", "triu"}) {
    for (const auto& c : arrange_cases(fn)) {
      expect_case(c, [&] {
        shape_t shape = parse_shape(c.fields[1]);
        if (shape.size() == 1) {  // NumPy broadcasts a row against the (n, n) mask
          shape = {shape[0], shape[0]};
        }
        std::vector<nd::detail::remap_axis> axes;
        for (index_t n : shape) {
          axes.push_back({n, n, nd::detail::remap_mode::identity, 0});
        }
        shape_t in_shape = shape;
        std::string r =
            nd::testing::host_gather(in_shape, axes, nullptr, fn == "tril" ? 1 : 2, std::stoll(c.fields[2]));
        if (parse_shape(c.fields[1]).size() == 1) {
          // Every row reads the one input row: values 1..n repeated, masked.
          const index_t n = shape[0];
          const index_t k = std::stoll(c.fields[2]);
          std::string v;
          for (index_t i = 0; i < n; ++i) {
            for (index_t j = 0; j < n; ++j) {
              const bool keep = fn == "tril" ? j - i <= k : j - i >= k;
              v += (i + j != 0 ? "," : "") + std::to_string(keep ? j + 1 : 0);
            }
          }
          r = shape_text(shape) + "|" + v;
        }
        return r;
      });
    }
  }
}

TEST(ArrangePlan, PadWidthFormsAsNumPy) {
  for (const auto& c : arrange_cases("padwidth")) {
    expect_case(c, [&] {
      const std::string kind = c.fields[1].substr(0, 1);
      const std::string vals = c.fields[1].substr(2);
      const int ndim = std::stoi(c.fields[2]);
      std::optional<nd::pad_width> w;
      if (kind == "i") {
        w.emplace(std::stoll(vals));
      } else if (kind == "p") {
        const auto v = parse_list(vals);
        w.emplace(std::initializer_list<index_t>{v[0], v[1]});
      } else if (kind == "l") {
        const auto v = parse_list(vals);
        w = v.size() == 3 ? nd::pad_width({v[0], v[1], v[2]}) : nd::pad_width(std::initializer_list<index_t>{v[0]});
      } else {
        std::vector<std::pair<index_t, index_t>> pairs;
        for (const std::string& p : nd::testing::split_fields(vals, '/')) {
          const auto v = parse_list(p);
          pairs.emplace_back(v[0], v[1]);
        }
        w.emplace(pairs);
      }
      std::vector<index_t> sums;
      for (const auto& [b, a] : w->resolve(ndim)) {
        sums.push_back(b + a);
      }
      return list_text(sums);
    });
  }
}

TEST(ArrangePlan, ErrorsBeforeAnyDeviceWork) {
  const auto a = nd::testing::fake<float>({2, 3});
  const auto b = nd::testing::fake<float>({2, 4});
  EXPECT_THROW((void)nd::concatenate({a, b}, 0), nd::shape_error);
  EXPECT_THROW((void)nd::concatenate(std::vector<nd::ndarray<float>>{}), nd::shape_error);
  EXPECT_THROW((void)nd::stack({a, b}), nd::shape_error);
  EXPECT_THROW((void)nd::pad(nd::testing::fake<float>({0, 3}), 1, nd::pad_mode::edge), nd::shape_error);
  EXPECT_THROW((void)nd::repeat(a, std::vector<index_t>{1, 2}, 1), nd::shape_error);
  EXPECT_THROW((void)nd::tile(a, -1), nd::shape_error);
  EXPECT_THROW((void)nd::roll(a, {1, 2}, {0, 1, 0}), nd::shape_error);
  EXPECT_THROW((void)nd::diag(nd::testing::fake<float>({2, 2, 2})), nd::shape_error);
  EXPECT_THROW((void)nd::tril(nd::testing::fake<float>({})), nd::shape_error);
}

TEST(ArrangePlan, GatherKernelsCompileWithNvrtc) {
  nd::detail::compile_arrange_kernels(nd::compute_capability{8, 0});
  nd::detail::compile_arrange_kernels(nd::compute_capability{9, 0});
}

// A section count whose pieces cannot fit in host memory is refused before any is made (issue 37:
// 2**40 sections filled memory until allocation failed). NumPy's own errors come first.
TEST(ArrangePlan, HugeSectionCountsAreRefusedBeforeAllocating) {
  const auto a = nd::testing::fake<float>({8, 6});
  for (const nd::index_t sections : {nd::index_t{1} << 40, nd::index_t{1} << 62}) {
    EXPECT_THROW((void)nd::array_split(a, sections), nd::out_of_memory) << sections;
    EXPECT_THROW((void)nd::array_split(nd::testing::fake<float>({0}), sections), nd::out_of_memory) << sections;
  }
  EXPECT_THROW((void)nd::split(a, nd::index_t{1} << 40), nd::shape_error);  // 8 rows: not an equal division
  EXPECT_THROW((void)nd::array_split(a, -1), nd::shape_error);
  EXPECT_EQ(nd::array_split(a, 20).size(), 20U);  // more sections than rows: empty pieces, as NumPy
  EXPECT_EQ(nd::array_split(a, 20)[19].shape(), (shape_t{0, 6}));
}

TEST(ArrangePlan, ABracedListIsAlwaysIndices) {
  const auto a = nd::testing::fake<float>({8, 6});
  EXPECT_EQ(nd::split(a, {2}).size(), 2u);  // np.split(a, [2]): a[:2], a[2:]
  EXPECT_EQ(nd::split(a, 2).size(), 2u);    // two sections
  EXPECT_EQ(nd::split(a, {2})[1].shape(), (shape_t{6, 6}));
  EXPECT_EQ(nd::split(a, 2)[1].shape(), (shape_t{4, 6}));
  EXPECT_EQ(nd::array_split(a, {3}, 1)[0].shape(), (shape_t{8, 3}));
  EXPECT_EQ(nd::hsplit(a, {1})[1].shape(), (shape_t{8, 5}));
  EXPECT_EQ(nd::vsplit(a, {5})[0].shape(), (shape_t{5, 6}));
  EXPECT_EQ(nd::dsplit(nd::testing::fake<float>({1, 2, 4}), {1})[1].shape(), (shape_t{1, 2, 3}));
}
