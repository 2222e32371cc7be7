// Tier 0 of reductions on the GPU (docs/jit.md): a new reduction's first call runs the
// ahead-of-time fold of its reducer (after the map, on the interpreter, when it has one) while its
// two passes compile; later calls run the compiled passes. Every reducer tier 0 has, on every
// dtype, over whole arrays, rows (a warp and a block per row), columns and a middle axis, gives
// the compiled kernels' bits and NumPy's value (computed here on the host).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <ndcuda/ndcuda.hpp>
#include <string>
#include <vector>

#include "jit/program_cache.hpp"
#include "jit/tier0_program.hpp"
#include "jit/tier0_reduction.hpp"
#include "support/gpu.hpp"
#include "support/random_inputs.hpp"

namespace nd = ndcuda;
namespace jd = ndcuda::jit::detail;

namespace {

// Neither cache may hold a kernel: memory cleared, disk off, for the life of the test process.
void start_cold() {
  jd::global_program_cache().set_disk(nullptr);
  nd::jit::clear_memory_cache();
}

enum class kind { sum, prod, mean, min, max, argmin, argmax, all, any, count_nonzero };
constexpr const char* kind_names[] = {"sum",    "prod",   "mean", "min", "max",
                                      "argmin", "argmax", "all",  "any", "count_nonzero"};

// A reduction of axis 1 of a (outer, reduced, inner) C-ordered array, as the array is shaped.
struct layout {
  const char* name;
  std::int64_t outer, reduced, inner;
  nd::shape_t shape;
  int axis;  // -1: every axis
};

const layout layouts[] = {
    {"whole array", 1, 70001, 1, {70001}, -1},     // one output, split over the device
    {"rows of 257", 300, 257, 1, {300, 257}, 1},   // a warp per row
    {"long rows", 3, 40000, 1, {3, 40000}, 1},     // a block per row, split
    {"columns", 1, 257, 300, {257, 300}, 0},       // a thread per output
    {"middle axis", 6, 129, 40, {6, 129, 40}, 1},  // columns over collapsed outer dimensions
};

template <class T>
std::vector<T> values_for(kind k, std::size_t count) {
  if constexpr (std::is_same_v<T, bool>) {
    const auto bits = nd::testing::uniform_values<std::int32_t>(count, 0, 1);
    std::vector<T> v(count);
    for (std::size_t i = 0; i < count; ++i) v[i] = bits[i] != 0;
    return v;
  } else if constexpr (std::is_integral_v<T>) {
    return nd::testing::uniform_values<T>(count, -40, 40);
  } else {
    // Products of many values stay finite near 1; the rest spread wide.
    return k == kind::prod ? nd::testing::uniform_values<T>(count, 0.97, 1.03)
                           : nd::testing::uniform_values<T>(count, -3.0, 3.0);
  }
}

// NumPy's value of one output, from the slice's values, in double (floats), wrapping int64
// (integer products) or exactly.
template <class T>
double host_value(kind k, const std::vector<T>& slice) {
  switch (k) {
    case kind::sum:
    case kind::mean: {
      double total = 0;
      for (T v : slice) total += static_cast<double>(v);
      return k == kind::sum ? total : total / static_cast<double>(slice.size());
    }
    case kind::prod: {
      if constexpr (std::is_floating_point_v<T>) {
        double p = 1;
        for (T v : slice) p *= v;
        return p;
      } else {
        std::uint64_t p = 1;  // int64's wrap, as NumPy's
        for (T v : slice) p *= static_cast<std::uint64_t>(static_cast<std::int64_t>(v));
        return static_cast<double>(static_cast<std::int64_t>(p));
      }
    }
    case kind::min:
    case kind::max:
    case kind::argmin:
    case kind::argmax: {
      const bool smallest = k == kind::min || k == kind::argmin;
      std::size_t at = 0;
      for (std::size_t i = 1; i < slice.size(); ++i) {
        if (smallest ? slice[i] < slice[at] : slice[at] < slice[i]) at = i;
      }
      return k == kind::min || k == kind::max ? static_cast<double>(slice[at]) : static_cast<double>(at);
    }
    case kind::all:
    case kind::any:
    case kind::count_nonzero: {
      std::size_t nonzero = 0;
      for (T v : slice) nonzero += v != T(0) ? 1 : 0;
      return k == kind::count_nonzero ? static_cast<double>(nonzero)
             : k == kind::all         ? static_cast<double>(nonzero == slice.size())
                                      : static_cast<double>(nonzero > 0);
    }
  }
  return 0;
}

template <class X>
auto reduce(kind k, const X& x, int axis) {
  const auto run = [&](auto f) { return axis < 0 ? f(x) : f(x, axis); };
  switch (k) {
    case kind::sum:
      return run([](const auto&... a) { return nd::sum(a...).template astype<double>().to_host(); });
    case kind::prod:
      return run([](const auto&... a) { return nd::prod(a...).template astype<double>().to_host(); });
    case kind::mean:
      return run([](const auto&... a) { return nd::mean(a...).template astype<double>().to_host(); });
    case kind::min:
      return run([](const auto&... a) { return nd::min(a...).template astype<double>().to_host(); });
    case kind::max:
      return run([](const auto&... a) { return nd::max(a...).template astype<double>().to_host(); });
    case kind::argmin:
      return run([](const auto&... a) { return nd::argmin(a...).template astype<double>().to_host(); });
    case kind::argmax:
      return run([](const auto&... a) { return nd::argmax(a...).template astype<double>().to_host(); });
    case kind::all:
      return run([](const auto&... a) { return nd::all(a...).template astype<double>().to_host(); });
    case kind::any:
      return run([](const auto&... a) { return nd::any(a...).template astype<double>().to_host(); });
    case kind::count_nonzero:
      return run([](const auto&... a) { return nd::count_nonzero(a...).template astype<double>().to_host(); });
  }
  return std::vector<double>{};
}

// The tolerance of a float result against the double reference: the reduction's own rounding.
template <class T>
double tolerance(kind k, const std::vector<T>& slice, double want) {
  if constexpr (!std::is_floating_point_v<T>) {
    return 0;
  } else {
    if (k != kind::sum && k != kind::mean && k != kind::prod) return 0;
    const double eps = std::is_same_v<T, float> ? 1e-6 : 1e-14;
    double magnitude = 0;
    for (T v : slice) magnitude += std::fabs(static_cast<double>(v));
    if (k == kind::mean) magnitude /= static_cast<double>(slice.size());
    if (k == kind::prod) magnitude = std::fabs(want);
    return eps * std::sqrt(static_cast<double>(slice.size())) * 8 * magnitude + 1e-300;
  }
}

// Equal bits, or NaN on both.
bool same_bits(double a, double b) {
  if (std::isnan(a) && std::isnan(b)) return true;
  return std::memcmp(&a, &b, sizeof a) == 0;
}

template <class T>
void check(kind k, const layout& l, std::size_t* tier0_runs) {
  const std::string what = std::string(kind_names[static_cast<int>(k)]) + " of " +
                           std::string(nd::name(nd::dtype_of<T>)) + " over the " + l.name;
  const std::size_t count = static_cast<std::size_t>(l.outer * l.reduced * l.inner);
  const std::vector<T> host = values_for<T>(k, count);
  const auto x = nd::asarray<T>(host).reshape(l.shape);
  const std::uint64_t before = jd::tier0_fold_launch_count();
  const std::vector<double> first = reduce(k, x, l.axis);
  const std::uint64_t folds = jd::tier0_fold_launch_count() - before;
  EXPECT_EQ(folds, 1u) << what << ": the first call did not run on tier 0";
  *tier0_runs += folds;
  nd::jit::wait_all();
  const std::vector<double> later = reduce(k, x, l.axis);
  EXPECT_EQ(jd::tier0_fold_launch_count() - before, folds) << what << ": a call after the compile ran on tier 0";
  ASSERT_EQ(first.size(), static_cast<std::size_t>(l.outer * l.inner)) << what;
  ASSERT_EQ(later.size(), first.size()) << what;
  int shown = 0;
  std::vector<T> slice(static_cast<std::size_t>(l.reduced));
  for (std::int64_t p = 0; p < l.outer; ++p) {
    for (std::int64_t q = 0; q < l.inner; ++q) {
      const auto o = static_cast<std::size_t>(p * l.inner + q);
      for (std::int64_t r = 0; r < l.reduced; ++r) {
        slice[static_cast<std::size_t>(r)] = host[static_cast<std::size_t>((p * l.reduced + r) * l.inner + q)];
      }
      const double want = host_value(k, slice);
      if (!same_bits(first[o], later[o]) && shown++ < 3) {
        ADD_FAILURE() << what << ", output " << o << ": tier 0 gave " << first[o] << ", the compiled kernels "
                      << later[o];
      }
      if (!(std::fabs(first[o] - want) <= tolerance(k, slice, want)) && shown++ < 3) {
        ADD_FAILURE() << what << ", output " << o << ": " << first[o] << ", NumPy's value is " << want;
      }
    }
  }
}

template <class T>
void check_kinds(std::initializer_list<kind> kinds, std::size_t* runs) {
  for (kind k : kinds) {
    for (const layout& l : layouts) check<T>(k, l, runs);
  }
}

}  // namespace

TEST(Tier0Reduce, EveryReducerGivesTheCompiledKernelsBitsAndNumPysValue) {
  NDCUDA_REQUIRE_GPU();
  jd::set_tiered_calls(true);
  start_cold();
  std::size_t runs = 0;
  const auto every = {kind::sum, kind::prod, kind::mean, kind::min,
                      kind::max, kind::all,  kind::any,  kind::count_nonzero};
  check_kinds<bool>(every, &runs);
  check_kinds<std::int32_t>(every, &runs);
  check_kinds<std::int64_t>(every, &runs);
  check_kinds<float>(every, &runs);
  check_kinds<double>(every, &runs);
  const auto ordered = {kind::argmin, kind::argmax};
  check_kinds<std::int32_t>(ordered, &runs);
  check_kinds<std::int64_t>(ordered, &runs);
  check_kinds<float>(ordered, &runs);
  check_kinds<double>(ordered, &runs);
  // Every reducer tier 0 has, over each layout.
  EXPECT_EQ(runs, static_cast<std::size_t>(jd::tier0_reducer_count()) * std::size(layouts));
}

TEST(Tier0Reduce, MappedAndBroadcastReductionsRunTheMapOnTheInterpreter) {
  NDCUDA_REQUIRE_GPU();
  jd::set_tiered_calls(true);
  start_cold();
  const auto ha = nd::testing::uniform_values<float>(300 * 257, -3.0, 3.0);
  const auto hb = nd::testing::uniform_values<float>(300 * 257, -3.0, 3.0);
  const auto a = nd::asarray<float>(ha).reshape({300, 257});
  const auto b = nd::asarray<float>(hb).reshape({300, 257});
  const auto hw = nd::testing::uniform_values<float>(257, -3.0, 3.0);
  const auto w = nd::asarray<float>(hw);
  struct mapped {
    const char* name;
    std::function<std::vector<float>()> run;
    std::function<double(std::int64_t)> want;  // per output, in double
    std::int64_t outputs;
    std::size_t reduced;
  };
  const mapped cases[] = {
      {"sum(a * b, 1)", [&] { return nd::sum(a * b, 1).to_host(); },
       [&](std::int64_t o) {
         double s = 0;
         for (std::int64_t k = 0; k < 257; ++k) s += double(ha[o * 257 + k] * hb[o * 257 + k]);
         return s;
       },
       300, 257},
      {"mean(a - b)", [&] { return std::vector<float>{nd::mean(a - b).item()}; },
       [&](std::int64_t) {
         double s = 0;
         for (std::size_t i = 0; i < ha.size(); ++i) s += double(ha[i] - hb[i]);
         return s / double(ha.size());
       },
       1, ha.size()},
      {"max(abs(a), 0)", [&] { return nd::max(nd::abs(a), 0).to_host(); },
       [&](std::int64_t o) {
         double m = 0;
         for (std::int64_t k = 0; k < 300; ++k) m = std::max(m, double(std::fabs(ha[k * 257 + o])));
         return m;
       },
       257, 300},
      {"sum(a * w, 0), w broadcast over the rows", [&] { return nd::sum(a * w, 0).to_host(); },
       [&](std::int64_t o) {
         double s = 0;
         for (std::int64_t k = 0; k < 300; ++k) s += double(ha[k * 257 + o] * hw[o]);
         return s;
       },
       257, 300},
  };
  for (const mapped& c : cases) {
    const std::uint64_t before = jd::tier0_fold_launch_count();
    const std::vector<float> first = c.run();
    EXPECT_EQ(jd::tier0_fold_launch_count() - before, 1u) << c.name << ": the first call did not run on tier 0";
    nd::jit::wait_all();
    const std::vector<float> later = c.run();
    ASSERT_EQ(first.size(), static_cast<std::size_t>(c.outputs)) << c.name;
    ASSERT_EQ(later.size(), first.size()) << c.name;
    for (std::int64_t o = 0; o < c.outputs; ++o) {
      const auto i = static_cast<std::size_t>(o);
      ASSERT_EQ(std::memcmp(&first[i], &later[i], sizeof(float)), 0)
          << c.name << ", output " << o << ": tier 0 gave " << first[i] << ", the compiled kernels " << later[i];
      const double want = c.want(o);
      ASSERT_NEAR(first[i], want, 1e-5 * std::sqrt(double(c.reduced)) * (std::fabs(want) + 3)) << c.name << " " << o;
    }
  }
}

TEST(Tier0Reduce, NoFoldRunsWithTiersOff) {
  NDCUDA_REQUIRE_GPU();
  jd::set_tiered_calls(false);
  start_cold();
  const auto h = nd::testing::uniform_values<double>(5000, -1.0, 1.0);
  const auto x = nd::asarray<double>(h);
  const std::uint64_t before = jd::tier0_fold_launch_count();
  double want = 0;
  for (double v : h) want += v;
  EXPECT_NEAR(nd::sum(x * 2.0).item(), 2 * want, 1e-9);
  EXPECT_EQ(jd::tier0_fold_launch_count(), before);
  jd::use_environment_for_tiered_calls();
}

TEST(Tier0Reduce, AGraphCapturedOnTheFirstCallKeepsTheFoldAndReplaysRight) {
  NDCUDA_REQUIRE_GPU();
  jd::set_tiered_calls(true);
  start_cold();
  nd::stream s(0);
  constexpr nd::index_t rows = 3;
  constexpr nd::index_t cols = 40000;  // a block per row, split: the map, the fold and the finish
  auto x = nd::testing::uniform_values<float>(rows * cols, -2.0, 2.0);
  auto a = nd::asarray<float>(x, {rows, cols}, s);
  auto c = nd::empty<float>({rows}, s);
  const std::uint64_t before = jd::tier0_fold_launch_count();
  nd::graph g = nd::capture(s, [&] { c(nd::ellipsis) = nd::sum(a * a, 1); });
  EXPECT_EQ(jd::tier0_fold_launch_count(), before + 1) << "the captured first call did not run on tier 0";
  nd::jit::wait_all();
  for (int round = 0; round < 2; ++round) {
    x = nd::testing::uniform_values<float>(rows * cols, -2.0, 2.0);
    nd::copyto(a, nd::asarray<float>(x, {rows, cols}, s));
    g.launch(s);
    const std::vector<float> replayed = c.to_host();
    const std::vector<float> compiled = nd::sum(a * a, 1).to_host();  // the compiled passes now
    ASSERT_EQ(replayed.size(), static_cast<std::size_t>(rows));
    for (nd::index_t r = 0; r < rows; ++r) {
      double want = 0;
      for (nd::index_t k = 0; k < cols; ++k) {
        const float v = x[static_cast<std::size_t>(r * cols + k)];
        want += static_cast<double>(v * v);
      }
      const auto i = static_cast<std::size_t>(r);
      EXPECT_EQ(std::memcmp(&replayed[i], &compiled[i], sizeof(float)), 0)
          << "round " << round << ", row " << r << ": the graph gave " << replayed[i] << ", the compiled passes "
          << compiled[i];
      EXPECT_NEAR(replayed[i], want, 1e-5 * want) << "round " << round << ", row " << r;
    }
  }
  EXPECT_EQ(jd::tier0_fold_launch_count(), before + 1) << "a replay or a later call ran tier 0 again";
}
