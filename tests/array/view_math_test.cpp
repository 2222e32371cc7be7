// View arithmetic against NumPy: tests/data/view_cases.txt (from gen_view_cases.py) holds chains of
// indexing, reshape, transpose, squeeze, expand_dims and broadcast_to with NumPy's results. No GPU.
#include <gtest/gtest.h>

#include <fstream>
#include <ndcuda/array/view_math.hpp>
#include <ndcuda/core/error.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace nd = ndcuda;

namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(' ');
  const auto e = s.find_last_not_of(' ');
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

std::vector<std::string> split(const std::string& s, const std::string& sep) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  for (std::size_t next; (next = s.find(sep, pos)) != std::string::npos; pos = next + sep.size()) {
    out.push_back(trim(s.substr(pos, next - pos)));
  }
  out.push_back(trim(s.substr(pos)));
  return out;
}

std::vector<nd::index_t> ints(const std::string& s) {
  std::istringstream in(s);
  std::vector<nd::index_t> out;
  for (nd::index_t v; in >> v;) {
    out.push_back(v);
  }
  return out;
}

std::optional<nd::index_t> bound(const std::string& s) {
  return s == "_" ? std::nullopt : std::optional<nd::index_t>(std::stoll(s));
}

std::vector<nd::index_item> items(const std::string& text) {
  std::vector<nd::index_item> out;
  for (const std::string& item : split(text, ",")) {
    if (item == "A") {
      out.emplace_back(nd::all);
    } else if (item == "N") {
      out.emplace_back(nd::newaxis);
    } else if (item == "E") {
      out.emplace_back(nd::ellipsis);
    } else if (item[0] == 's') {
      const auto parts = split(item.substr(1), ":");
      out.emplace_back(nd::slice(bound(parts[0]), bound(parts[1]), std::stoll(parts[2])));
    } else {
      out.emplace_back(nd::index_t{std::stoll(item)});
    }
  }
  return out;
}

// Applies one op as ndarray would: reshape copies (to C order) when no view is possible.
nd::view_layout apply(const nd::view_layout& v, const std::string& op, bool& copied) {
  const auto space = op.find(' ');
  const std::string name = op.substr(0, space);
  const std::string arg = space == std::string::npos ? "" : op.substr(space + 1);
  if (name == "index") {
    return nd::apply_index(v, items(arg));
  }
  if (name == "reshape") {
    const nd::shape_t shape = nd::resolve_reshape(nd::shape_size(v.shape), ints(arg));
    if (auto strides = nd::reshape_strides(v, shape)) {
      return {shape, *strides, v.offset};
    }
    copied = true;
    return nd::contiguous_layout(shape);
  }
  if (name == "transpose") {
    return nd::transpose_layout(v, ints(arg));
  }
  if (name == "swap") {
    const auto ab = ints(arg);
    return nd::swapaxes_layout(v, ab.at(0), ab.at(1));
  }
  if (name == "squeeze") {
    return nd::squeeze_layout(v, ints(arg));
  }
  if (name == "expand") {
    return nd::expand_dims_layout(v, ints(arg));
  }
  if (name == "broadcast") {
    return nd::broadcast_layout(v, ints(arg));
  }
  ADD_FAILURE() << "unknown op " << op;
  return v;
}

}  // namespace

TEST(ViewMath, MatchesNumPyTable) {
  std::ifstream file(NDCUDA_TEST_DATA_DIR "/view_cases.txt");
  ASSERT_TRUE(file) << "missing " NDCUDA_TEST_DATA_DIR "/view_cases.txt (run tests/data/gen_view_cases.py)";
  int cases = 0;
  int errors = 0;
  for (std::string line; std::getline(file, line);) {
    if (line.empty() || line[0] == '#') {
      continue;
    }
    const auto f = split(line, "|");
    ASSERT_GE(f.size(), 4U) << line;
    ++cases;
    nd::view_layout v = nd::contiguous_layout(ints(f[0]));
    bool copied = false;
    if (f[2] == "error") {
      ++errors;
      try {
        for (const std::string& op : split(f[1], ">")) {
          v = apply(v, op, copied);
        }
        ADD_FAILURE() << "no error: " << line;
      } catch (const nd::shape_error& e) {
        // NumPy sometimes prefixes the argument's name ("axis2: ..."): ours must be within its text.
        const std::string what = e.what();
        const bool known_wording = f[1].find("broadcast") != std::string::npos || f[3].find("(0)") != std::string::npos;
        if (!known_wording) {
          EXPECT_NE(f[3].find(what), std::string::npos) << line << "\n ours: " << what;
        }
      }
      continue;
    }
    for (const std::string& op : split(f[1], ">")) {
      v = apply(v, op, copied);
    }
    const nd::shape_t shape = ints(f[2]);
    const nd::strides_t strides = ints(f[3]);
    ASSERT_EQ(v.shape, shape) << line;
    EXPECT_EQ(copied, f.size() > 5 && f[5] == "copy") << line;
    // Strides of extent-1 axes and the offset of an empty view address nothing, and NumPy's
    // values there depend on its code path: compare only what selects elements.
    const bool empty = nd::shape_size(shape) == 0;
    for (std::size_t i = 0; i < shape.size(); ++i) {
      if (shape[i] > 1 && !empty) {
        EXPECT_EQ(v.strides[i], strides[i]) << line << " axis " << i;
      }
    }
    if (!empty) {
      EXPECT_EQ(v.offset, std::stoll(f[4])) << line;
    }
  }
  EXPECT_GE(cases, 250);
  EXPECT_GE(errors, 30);
}

TEST(ViewMath, NegativeStepSliceClampsLikePython) {
  const nd::view_layout v = nd::contiguous_layout({5});
  const std::vector<nd::index_item> idx = {nd::slice(nd::none, nd::none, -2)};
  const nd::view_layout r = nd::apply_index(v, idx);
  EXPECT_EQ(r.shape, nd::shape_t{3});
  EXPECT_EQ(r.strides, nd::strides_t{-2});
  EXPECT_EQ(r.offset, 4);
}

TEST(ViewMath, ReshapeErrorsUseNumPyText) {
  const nd::shape_t request{4};
  try {
    (void)nd::resolve_reshape(6, request);
    FAIL();
  } catch (const nd::shape_error& e) {
    EXPECT_STREQ(e.what(), "cannot reshape array of size 6 into shape (4,)");
  }
}
