// Hostile sizes and shapes: every creation, view and host copy refuses what it cannot hold with an
// nd::error before any allocation or launch (so these run without a GPU: a CUDA call would throw
// device_error here instead), NumPy's assignment message, and the no-device path. The GPU tests
// check that valid shapes too large for the device give out_of_memory and leave it usable.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <ndcuda/ndcuda.hpp>
#include <string>
#include <vector>

#include "support/error_message.hpp"
#include "support/fake_array.hpp"
#include "support/gpu.hpp"
#include "support/random_inputs.hpp"

namespace nd = ndcuda;

namespace {

constexpr nd::index_t max_index = std::numeric_limits<nd::index_t>::max();
constexpr nd::index_t min_index = std::numeric_limits<nd::index_t>::min();

using nd::testing::fake;

template <class F>
std::string shape_error_of(F&& f) {
  return nd::testing::message_of<nd::shape_error>(std::forward<F>(f));
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST(ArrayHardening, CreationRefusesSizesThatOverflowBeforeAnyCudaCall) {
  const nd::shape_t huge{1LL << 62};  // 2^64 bytes of float: wrapped to 0 bytes before the fix
  const std::string too_big = shape_error_of([&] { (void)nd::empty<float>(huge); });
  EXPECT_TRUE(contains(too_big, "array is too big")) << too_big;
  EXPECT_THROW((void)nd::zeros<float>(huge), nd::shape_error);
  EXPECT_THROW((void)nd::ones<double>(huge), nd::shape_error);
  EXPECT_THROW((void)nd::full<std::int32_t>(huge, 7), nd::shape_error);
  EXPECT_THROW((void)nd::empty<std::uint8_t>({1LL << 32, 1LL << 32}), nd::shape_error);     // 2^64 elements
  EXPECT_THROW((void)nd::zeros<std::uint8_t>({1LL << 40, 1LL << 40, 0}), nd::shape_error);  // NumPy refuses too
  EXPECT_THROW((void)nd::empty<std::complex<double>>({1LL << 59}), nd::shape_error);        // 2^63 bytes
  EXPECT_TRUE(contains(shape_error_of([] { (void)nd::zeros<float>({3, -1}); }), "negative dimensions"));
  EXPECT_THROW((void)nd::eye<float>(-1), nd::shape_error);
  EXPECT_THROW((void)nd::eye<float>(1LL << 32), nd::shape_error);
  EXPECT_THROW((void)nd::identity<double>(1LL << 31), nd::shape_error);           // 2^62 doubles: 2^65 bytes
  EXPECT_THROW((void)nd::linspace<float>(0.0, 1.0, 1LL << 61), nd::shape_error);  // computed in double
  EXPECT_THROW((void)nd::linspace<float>(0.0, 1.0, -1), nd::shape_error);
  const float* no_host = nullptr;  // never read: the shape is refused first
  EXPECT_THROW((void)nd::asarray<float>(no_host, {1LL << 62}), nd::shape_error);
}

TEST(ArrayHardening, ArangeLengthIsCheckedLikeNumPy) {
  EXPECT_EQ(nd::detail::arange_count(0, 10, 3), 4);
  EXPECT_EQ(nd::detail::arange_count(10, 0, 1), 0);
  EXPECT_EQ(nd::detail::arange_count(0, 1e18, 1), 1000000000000000000LL);
  // NumPy: np.arange(0, 1e300) -> "Maximum allowed size exceeded"; np.arange(nan) -> "cannot compute length".
  EXPECT_TRUE(contains(shape_error_of([] { (void)nd::arange<float>(0.0, 1e300); }), "Maximum allowed size exceeded"));
  EXPECT_TRUE(
      contains(shape_error_of([] { (void)nd::arange<double>(0.0, INFINITY); }), "Maximum allowed size exceeded"));
  EXPECT_TRUE(contains(shape_error_of([] { (void)nd::arange<float>(NAN); }), "cannot compute length"));
  EXPECT_TRUE(contains(shape_error_of([] { (void)nd::arange<float>(0.0, 10.0, NAN); }), "cannot compute length"));
  EXPECT_THROW((void)nd::arange<float>(0.0, 1.0, 0.0), nd::shape_error);
  // 2^62 values fit the count but not the bytes.
  EXPECT_THROW((void)nd::arange<double>(0.0, 0x1p62), nd::shape_error);
  // Integer sequences are computed in int64: start, step and the last value must fit.
  EXPECT_THROW((void)nd::arange<std::int64_t>(-1e300, 0.0, 1e299), nd::shape_error);
  EXPECT_THROW((void)nd::arange<std::int64_t>(9.2e18, 9.5e18, 1e17), nd::shape_error);
  EXPECT_THROW((void)nd::detail::arange_int64(0.0, 0x1p63, 2), nd::shape_error);
  const auto seq = nd::detail::arange_int64(-5.0, 3.0, 4);
  EXPECT_EQ(seq.start, -5);
  EXPECT_EQ(seq.step, 3);
}

TEST(ArrayHardening, ReshapeToAnOverflowingShapeIsRefused) {
  const auto a = fake<float>({6});
  // NumPy: "cannot reshape array of size 6 into shape (4611686018427387904,4611686018427387904)"
  const std::string e = shape_error_of([&] { (void)a.reshape({1LL << 62, 1LL << 62}); });
  EXPECT_TRUE(contains(e, "cannot reshape array of size 6 into shape (4611686018427387904,4611686018427387904)")) << e;
  EXPECT_TRUE(contains(shape_error_of([&] {
                         (void)a.reshape({1LL << 62, 1LL << 62, -1});
                       }),
                       "cannot reshape array of size 6"));
  EXPECT_THROW((void)a.reshape({1LL << 32, 1LL << 32, 0, -1}), nd::shape_error);
  const auto empty = fake<float>({0});
  EXPECT_TRUE(contains(shape_error_of([&] {
                         (void)empty.reshape({1LL << 62, 1LL << 62, -1});
                       }),
                       "cannot reshape array of size 0"));
  EXPECT_EQ(a.reshape({2, -1}).shape(), (nd::shape_t{2, 3}));
  EXPECT_EQ(empty.reshape({5, 0, 3}).shape(), (nd::shape_t{5, 0, 3}));
  EXPECT_THROW((void)empty.reshape({5, 0, -1}), nd::shape_error);  // as NumPy: -1 is ambiguous there
  EXPECT_THROW((void)nd::reshape_strides(a.layout(), nd::shape_t{7}), nd::shape_error);  // sizes differ
}

TEST(ArrayHardening, BroadcastToRefusesNegativeAndHugeShapes) {
  const auto a = fake<float>({1});
  EXPECT_TRUE(contains(shape_error_of([&] { (void)a.broadcast_to({-1}); }),
                       "all elements of broadcast shape must be non-negative"));
  EXPECT_THROW((void)a.broadcast_to({3, -4}), nd::shape_error);
  EXPECT_THROW((void)a.broadcast_to({1LL << 32, 1LL << 32}), nd::shape_error);  // 2^64: size() wrapped to 0
  EXPECT_THROW((void)a.broadcast_to({1LL << 62}), nd::shape_error);             // 2^64 bytes (NumPy: array is too big)
  // A uint8 view of 2^62 elements is fine, as in NumPy, and its sizes are exact.
  const auto bytes = fake<std::uint8_t>({1}).broadcast_to({1LL << 62});
  EXPECT_EQ(bytes.size(), 1LL << 62);
  EXPECT_EQ(bytes.nbytes(), std::size_t{1} << 62);
  EXPECT_EQ(bytes.strides(), (nd::strides_t{0}));
}

TEST(ArrayHardening, ViewsOfForeignMemoryMustDescribeRealAddresses) {
  int dummy = 0;
  EXPECT_THROW((void)nd::from_device(&dummy, {2}, nullptr, 0, {1LL << 62}, nd::stream::wrap(cudaStreamPerThread, 0)),
               nd::shape_error);
  EXPECT_THROW((void)nd::from_device(&dummy, {1LL << 62}, nullptr, 0, {}, nd::stream::wrap(cudaStreamPerThread, 0)),
               nd::shape_error);
  EXPECT_THROW((void)nd::from_device(&dummy, {2, 2}, nullptr, 0, {1}, nd::stream::wrap(cudaStreamPerThread, 0)),
               nd::shape_error);
  // The low-level constructor keeps the invariant size() and nbytes() rely on.
  EXPECT_THROW((nd::ndarray<double>(nullptr, nullptr, nd::view_layout{{1LL << 61}, {0}, 0}, 0,
                                    nd::stream::wrap(cudaStreamPerThread, 0))),
               nd::shape_error);
}

TEST(ArrayHardening, SlicesWithExtremeStepsAndBoundsStayExact) {
  const auto a = fake<float>({10});
  // (Separate names: assigning to a named array writes elements.)
  const auto huge_step = a(nd::slice(0, 10, max_index));
  EXPECT_EQ(huge_step.shape(), (nd::shape_t{1}));
  EXPECT_EQ(huge_step.offset(), 0);
  const auto lowest_step = a(nd::slice(nd::none, nd::none, min_index));
  EXPECT_EQ(lowest_step.shape(), (nd::shape_t{1}));
  EXPECT_EQ(lowest_step.offset(), 9);
  const auto wide_bounds = a(nd::slice(min_index, max_index, 3));
  EXPECT_EQ(wide_bounds.shape(), (nd::shape_t{4}));
  EXPECT_EQ(wide_bounds.strides(), (nd::strides_t{3}));
  const auto reversed = a(nd::slice(max_index, min_index, -4));
  EXPECT_EQ(reversed.shape(), (nd::shape_t{3}));
  EXPECT_EQ(reversed.offset(), 9);
  EXPECT_EQ(reversed.strides(), (nd::strides_t{-4}));
  // A stride times a huge step overflows; with one element left the stride is never used (0).
  const auto strided = fake<float>({4, 10})(nd::slice(0, 4, max_index), nd::slice(0, 10, 1LL << 62));
  EXPECT_EQ(strided.shape(), (nd::shape_t{1, 1}));
  EXPECT_EQ(strided.strides(), (nd::strides_t{0, 1LL << 62}));
  EXPECT_THROW((void)a(max_index), nd::shape_error);
  EXPECT_THROW((void)a(min_index), nd::shape_error);
}

TEST(ArrayHardening, ToHostOfAHugeViewIsOutOfMemoryNamingTheHost) {
  // 2^60 bytes on the host: refused by the allocator, before the device is asked for anything.
  const auto huge = fake<std::uint8_t>({1}).broadcast_to({1LL << 60});
  try {
    (void)huge.to_host();
    FAIL() << "1 EiB of host memory was allocated";
  } catch (const nd::out_of_memory& e) {
    const std::string what = e.what();
    EXPECT_TRUE(contains(what, "to_host()")) << what;
    EXPECT_TRUE(contains(what, "host memory")) << what;
  }
  EXPECT_THROW((void)fake<bool>({1}).broadcast_to({1LL << 60}).to_host(), nd::out_of_memory);
}

TEST(ArrayHardening, AssignmentSaysNumPysMessage) {
  auto target = fake<float>({3, 1});
  const auto value = fake<float>({3, 4});
  const auto row = fake<float>({1, 4});
  const std::string want = "could not broadcast input array from shape (3,4) into shape (3,1)";
  std::string e = shape_error_of([&] { target(nd::ellipsis) = value; });
  EXPECT_TRUE(contains(e, want)) << e;
  // An expression's shape is its operands' broadcast, (3,4) here, whichever operand is checked first.
  e = shape_error_of([&] { target(nd::ellipsis) = value + row; });
  EXPECT_TRUE(contains(e, want)) << e;
  e = shape_error_of([&] { target(nd::ellipsis) = row * 2.0f + value; });
  EXPECT_TRUE(contains(e, want)) << e;
  e = shape_error_of([&] { target(nd::ellipsis) = fake<double>({2, 3, 1}) - 1.0; });
  EXPECT_TRUE(contains(e, "could not broadcast input array from shape (2,3,1) into shape (3,1)")) << e;
  // Operands that do not broadcast together keep NumPy's operand message.
  e = shape_error_of([&] { target(nd::ellipsis) = value + fake<float>({5}); });
  EXPECT_TRUE(contains(e, "operands could not be broadcast together with shapes (3,4) (5,)")) << e;
}

TEST(ArrayHardening, NoVisibleDeviceIsADeviceErrorFromEveryCurrentDeviceDefault) {
  // In a fresh process (the threadsafe death-test style re-runs this binary), so that hiding every
  // device takes effect even when an earlier test in this process has initialised CUDA.
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const auto check = [] {
    ::setenv("CUDA_VISIBLE_DEVICES", "", 1);
    int good = 0;
    const auto expect_device_error = [&](const char* what, auto&& f) {
      try {
        f();
        std::cerr << what << " did not throw\n";
      } catch (const nd::device_error& e) {
        const std::string text = e.what();
        if (text.rfind("no CUDA device available: ", 0) == 0) {
          ++good;
        } else {
          std::cerr << what << ": " << text << "\n";
        }
      } catch (const std::exception& e) {
        std::cerr << what << " threw another error: " << e.what() << "\n";
      }
    };
    expect_device_error("nd::stream", [] { nd::stream s; });
    expect_device_error("nd::zeros", [] { (void)nd::zeros<float>({4}); });
    expect_device_error("nd::default_stream", [] { (void)nd::default_stream(); });
    expect_device_error("nd::current_device", [] { (void)nd::current_device(); });
    std::exit(good == 4 ? 0 : 1);
  };
  EXPECT_EXIT(check(), ::testing::ExitedWithCode(0), "");
}

TEST(ArrayHardeningGpu, ValidShapesTooLargeForTheDeviceAreOutOfMemory) {
  NDCUDA_REQUIRE_GPU();
  nd::stream s(0);
  // 2^62 bytes: a valid shape (NumPy would try too), far beyond any device.
  EXPECT_THROW((void)nd::empty<float>({1LL << 60}, s), nd::out_of_memory);
  EXPECT_THROW((void)nd::zeros<std::uint8_t>({1LL << 50}, s), nd::out_of_memory);  // 1 PiB
  // A host range that wraps the address space is no buffer: refused before the driver is asked.
  const auto* near_end = reinterpret_cast<const void*>(std::numeric_limits<std::uintptr_t>::max() - 15);
  EXPECT_THROW((void)nd::is_pinned(near_end, 64, 0), nd::error);
  // Nothing was launched over a short buffer: the device still works.
  auto a = nd::arange<float>(0.0, 1000.0, 1.0, s);
  const std::vector<float> back = a.to_host();
  ASSERT_EQ(back.size(), 1000U);
  for (std::size_t i = 0; i < back.size(); ++i) {
    ASSERT_EQ(back[i], static_cast<float>(i));
  }
}

TEST(ArrayHardeningGpu, CaptureRefusesQueryAndAHugeAllocationAndGoesOn) {
  NDCUDA_REQUIRE_GPU();
  nd::stream s(0);
  constexpr nd::index_t n = 4096;
  const std::vector<float> x = nd::testing::uniform_values<float>(n, -8.0, 8.0);
  const auto a = nd::asarray<float>(x, {n}, s);
  const auto out = nd::empty<float>({n}, s);
  s.synchronize();
  nd::graph g;
  {
    nd::capture_scope scope(s);
    // cudaStreamQuery would invalidate the capture: refused first.
    EXPECT_THROW((void)s.query(), nd::capture_error);
    // 1 PiB from the capture's stream-ordered pool: out_of_memory, CUDA not asked.
    try {
      (void)nd::empty<std::uint8_t>({1LL << 50}, s);
      ADD_FAILURE() << "1 PiB was allocated inside a capture";
    } catch (const nd::out_of_memory& e) {
      const std::string what = e.what();
      EXPECT_TRUE(contains(what, "allocate(1125899906842624 bytes = 1 PiB)")) << what;
      EXPECT_TRUE(contains(what, "capture goes on")) << what;
    }
    EXPECT_TRUE(s.is_capturing());
    out(nd::ellipsis) = a * 2.0f + 1.0f;  // still recording
    g = scope.end();
  }
  g.launch(s);
  const std::vector<float> got = out.to_host();
  ASSERT_EQ(got.size(), x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    // x * 2 is exact, so an FMA and two roundings agree.
    ASSERT_EQ(got[i], static_cast<float>(static_cast<double>(x[i]) * 2.0 + 1.0)) << i;
  }
  EXPECT_TRUE(s.query());  // after synchronising (to_host), outside any capture
}
