// Advanced-index planning against NumPy: tests/data/indexing_cases.txt (gen_indexing_cases.py)
// holds random indices with NumPy's result shape and values (or error text). No GPU: the plan is
// applied on the host with the formula the gather kernel uses.
#include <gtest/gtest.h>

#include <fstream>
#include <ndcuda/core/error.hpp>
#include <ndcuda/ops/detail/index_plan.hpp>
#include <ndcuda/ops/detail/indexing_entry.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace nd = ndcuda;
using nd::detail::index_entry;

namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(' ');
  const auto e = s.find_last_not_of(' ');
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string part;
  std::istringstream in(s);
  while (std::getline(in, part, sep)) {
    out.push_back(trim(part));
  }
  if (!s.empty() && s.back() == sep) {
    out.emplace_back();
  }
  return out;
}

std::vector<nd::index_t> ints(const std::string& s, char sep = ' ') {
  std::vector<nd::index_t> out;
  for (const std::string& p : split(s, sep)) {
    if (!p.empty() && p != "-") {
      out.push_back(std::stoll(p));
    }
  }
  return out;
}

std::optional<nd::index_t> bound(const std::string& s) {
  return s == "_" ? std::nullopt : std::optional<nd::index_t>(std::stoll(s));
}

// An index entry and, for arrays, its values (masks: 0/1 in C order).
struct parsed {
  index_entry entry;
  std::vector<nd::index_t> values;
};

parsed parse_item(const std::string& t) {
  parsed p;
  if (t == "A") {
    p.entry.item = nd::all;
  } else if (t == "N") {
    p.entry.item = nd::newaxis;
  } else if (t == "E") {
    p.entry.item = nd::ellipsis;
  } else if (t[0] == 's') {
    const auto f = split(t.substr(1), ':');
    p.entry.item = nd::slice(bound(f[0]), bound(f[1]), std::stoll(f[2]));
  } else if (t[0] == 'i' || t[0] == 'b') {
    const auto eq = t.find('=');
    std::string dims = t.substr(1, eq - 1);
    p.entry.k = t[0] == 'i' ? index_entry::kind::integer_array : index_entry::kind::bool_array;
    if (t[0] == 'b') {
      const auto colon = dims.find(':');
      p.entry.count = std::stoll(dims.substr(colon + 1));
      dims = dims.substr(0, colon);
      for (char c : t.substr(eq + 1)) {
        p.values.push_back(c == '1' ? 1 : 0);
      }
    } else {
      p.values = ints(t.substr(eq + 1), '/');
    }
    p.entry.shape = ints(dims, 'x');
  } else {
    p.entry.item = static_cast<nd::index_t>(std::stoll(t));
  }
  return p;
}

// nonzero of a C-order mask of `shape`: one coordinate vector per axis.
std::vector<std::vector<nd::index_t>> nonzero(const std::vector<nd::index_t>& bits, const nd::shape_t& shape) {
  std::vector<std::vector<nd::index_t>> out(shape.size());
  for (std::size_t flat = 0; flat < bits.size(); ++flat) {
    if (bits[flat] == 0) {
      continue;
    }
    std::size_t rest = flat;
    for (std::size_t d = shape.size(); d-- > 0;) {
      out[d].push_back(static_cast<nd::index_t>(rest % static_cast<std::size_t>(shape[d])));
      rest /= static_cast<std::size_t>(shape[d]);
    }
  }
  return out;
}

// The gather on the host: what kernels/indexing.cuh computes per result element.
std::vector<nd::index_t> gather(const nd::detail::index_plan& plan, const std::vector<parsed>& items) {
  std::vector<std::vector<nd::index_t>> arrays;
  std::vector<nd::strides_t> strides;
  for (const auto& a : plan.arrays) {
    const parsed& p = items[static_cast<std::size_t>(a.entry)];
    if (p.entry.k == index_entry::kind::bool_array) {
      arrays.push_back(nonzero(p.values, p.entry.shape)[static_cast<std::size_t>(a.part)]);
      strides.push_back(nd::detail::index_array_strides(plan, nd::contiguous_layout({p.entry.count})));
    } else {
      arrays.push_back(p.values);
      strides.push_back(nd::detail::index_array_strides(plan, nd::contiguous_layout(p.entry.shape)));
    }
  }
  const nd::index_t n = nd::shape_size(plan.shape);
  std::vector<nd::index_t> out;
  std::vector<nd::index_t> c(plan.shape.size(), 0);
  for (nd::index_t r = 0; r < n; ++r) {
    nd::index_t rest = r;
    for (std::size_t d = plan.shape.size(); d-- > 0;) {
      c[d] = rest % plan.shape[d];
      rest /= plan.shape[d];
    }
    nd::index_t src = plan.offset;
    for (std::size_t d = 0; d < c.size(); ++d) {
      src += c[d] * plan.strides[d];
    }
    for (std::size_t k = 0; k < arrays.size(); ++k) {
      nd::index_t at = 0;
      for (std::size_t d = 0; d < c.size(); ++d) {
        at += c[d] * strides[k][d];
      }
      nd::index_t v = arrays[k][static_cast<std::size_t>(at)];
      v = v < 0 ? v + plan.arrays[k].extent : v;
      src += v * plan.arrays[k].stride;
    }
    out.push_back(src);  // the source is arange: its value is its offset
  }
  return out;
}

// Whether an integer array holds a value outside [-extent, extent) of its axis (NumPy checks the
// arrays themselves, so even an empty result raises).
bool out_of_range(const nd::detail::index_plan& plan, const std::vector<parsed>& items) {
  for (const auto& a : plan.arrays) {
    const parsed& p = items[static_cast<std::size_t>(a.entry)];
    if (p.entry.k != index_entry::kind::integer_array) {
      continue;
    }
    for (nd::index_t v : p.values) {
      if (v < -a.extent || v >= a.extent) {
        return true;
      }
    }
  }
  return false;
}

TEST(IndexPlan, MatchesNumPyShapesValuesAndErrors) {
  std::ifstream file(NDCUDA_TEST_DATA_DIR "/indexing_cases.txt");
  ASSERT_TRUE(file) << "missing " NDCUDA_TEST_DATA_DIR "/indexing_cases.txt (run tests/data/gen_indexing_cases.py)";
  int cases = 0;
  int errors = 0;
  for (std::string line; std::getline(file, line);) {
    if (line.empty() || line[0] == '#') {
      continue;
    }
    const auto f = split(line, '|');
    ASSERT_GE(f.size(), 4U) << line;
    ++cases;
    const nd::view_layout source = nd::contiguous_layout(ints(f[0]));
    std::vector<parsed> items;
    std::vector<index_entry> entries;
    for (const std::string& t : split(f[1], ',')) {
      items.push_back(parse_item(t));
      entries.push_back(items.back().entry);
    }
    if (f[2] == "error") {
      ++errors;
      try {
        const nd::detail::index_plan plan = nd::detail::plan_index(source, entries);
        // Out-of-range values in index arrays are found by the kernels, not the planner: the
        // host gather below plays their part.
        EXPECT_TRUE(f[3].find("out of bounds") != std::string::npos && out_of_range(plan, items)) << line;
      } catch (const nd::index_error& e) {
        EXPECT_EQ(trim(e.what()), f[3]) << line;
      }
      continue;
    }
    nd::detail::index_plan plan;
    try {
      plan = nd::detail::plan_index(source, entries);
    } catch (const nd::error& e) {
      ADD_FAILURE() << line << "\n threw: " << e.what();
      continue;
    }
    ASSERT_EQ(plan.shape, ints(f[2])) << line;
    EXPECT_EQ(gather(plan, items), ints(f[3])) << line;
  }
  EXPECT_GT(cases, 300);
  EXPECT_GT(errors, 50);
}

TEST(IndexPlan, IndexErrorIsAShapeError) {
  const nd::view_layout source = nd::contiguous_layout({3});
  const std::vector<index_entry> entries = {index_entry{index_entry::kind::bool_array, nd::index_t{0}, {4}, 0}};
  EXPECT_THROW((void)nd::detail::plan_index(source, entries), nd::shape_error);
}

}  // namespace

namespace {

// The gather/scatter/accumulate kernels (every dtype's accumulations) compile with NVRTC alone.
TEST(IndexingKernels, CompileWithNvrtcWithoutDevice) {
  EXPECT_NO_THROW(nd::detail::compile_indexing_kernels(nd::compute_capability{9, 0}));
}

}  // namespace
