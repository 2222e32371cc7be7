// Device isolation end to end: a program using only device 1 (creation, a fused JIT kernel, a
// reduction, a pinned copy) leaves device 0 without a primary context (asked through the driver)
// and without memory of this process (asked through NVML); under CUDA_VISIBLE_DEVICES=1 the same
// program sees one device. Skips with a message on a single GPU. (Graph capture joins the
// sequence when nd::capture lands.)
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ndcuda/ndcuda.hpp>
#include <ndcuda/ops/reductions.hpp>
#include <optional>
#include <string>
#include <vector>

#include "device/nvml.hpp"
#include "support/contexts.hpp"
#include "support/gpu.hpp"

namespace nd = ndcuda;

namespace {

constexpr const char* probe_variable = "NDCUDA_END_TO_END_PROBE";

// The program under test, on `device` only; returns an empty string when every result is right.
std::string end_to_end(int device) {
  const nd::stream s(device);
  const nd::index_t n = 1 << 20;
  std::vector<float> host(static_cast<std::size_t>(n));
  for (auto& v : host) {
    v = static_cast<float>(nd::testing::rng()() % 1000) / 100.0F;
  }
  const auto a = nd::asarray<float>(host, {n}, s);
  const auto b = nd::arange<float>(static_cast<double>(n), s);
  const nd::ndarray<float> c = a * 2.0F + nd::sqrt(b);  // JIT-compiled, loaded on `device` only
  // A pinned copy back: the pinned pool's block is copied into directly, without staging.
  auto pinned = nd::default_pinned_pool();
  void* p = pinned->allocate(c.nbytes(), s);
  c.copy_to_host(static_cast<float*>(p), s);
  {
    const nd::device_guard guard(device);
    s.synchronize();
  }
  std::string failure;
  const auto* back = static_cast<const float*>(p);
  for (nd::index_t i = 0; i < n && failure.empty(); ++i) {
    const float want = host[static_cast<std::size_t>(i)] * 2.0F + std::sqrt(static_cast<float>(i));
    if (std::abs(back[i] - want) > 1e-5F * (1.0F + want)) {
      failure = "element " + std::to_string(i) + " is " + std::to_string(back[i]) + ", want " + std::to_string(want);
    }
  }
  pinned->deallocate(p, c.nbytes(), s);
  // Graph capture on device 1: an elementwise op and a reduction, replayed; the graph, its
  // instantiation and its memory must stay on that device too.
  nd::ndarray<float> d = nd::empty<float>({n}, s);
  nd::ndarray<float> partial = nd::empty<float>(nd::shape_t{}, s);
  const nd::graph g = nd::capture(s, [&] {
    d(nd::ellipsis) = c - a;                           // == a + sqrt(b)
    partial(nd::ellipsis) = nd::sum(d * 0.0F + 1.0F);  // == n
  });
  g.launch(s);
  g.launch(s);
  if (const float count = partial.item(); failure.empty() && count != static_cast<float>(n)) {
    failure = "captured sum is " + std::to_string(count) + ", want " + std::to_string(n);
  }
  const float want_last = host.back() + std::sqrt(static_cast<float>(n - 1));
  if (const float last = d.to_host()[static_cast<std::size_t>(n - 1)];
      failure.empty() && std::abs(last - want_last) > 1e-5F * (1.0F + want_last)) {
    failure = "captured elementwise gives " + std::to_string(last);
  }
  double total = 0;
  for (nd::index_t i = 0; i < n; ++i) {
    total += static_cast<double>(host[static_cast<std::size_t>(i)]) * 2.0 + std::sqrt(static_cast<double>(i));
  }
  const double got = nd::sum(c).item();
  if (failure.empty() && std::abs(got - total) > 1e-4 * total) {
    failure = "sum is " + std::to_string(got) + ", want " + std::to_string(total);
  }
  return failure;
}

// Whether this process appears in NVML's list of processes on CUDA device `index` (matched by
// UUID, so CUDA_VISIBLE_DEVICES reordering cannot fool it); nullopt when NVML cannot tell.
std::optional<bool> holds_memory_on(int index) {
  const auto* nvml = nd::detail::nvml::get();
  if (nvml == nullptr || nvml->device_get_compute_running_processes_v3 == nullptr ||
      nvml->device_get_handle_by_uuid == nullptr) {
    return std::nullopt;
  }
  nd::detail::nvml::device_t handle = nullptr;
  if (nvml->device_get_handle_by_uuid(nd::device(index).uuid().c_str(), &handle) != nd::detail::nvml::success) {
    return std::nullopt;
  }
  std::vector<nd::detail::nvml::process_info_t> infos(32);
  auto count = static_cast<unsigned int>(infos.size());
  nd::detail::nvml::return_t rc = nd::detail::nvml::success;
  while ((rc = nvml->device_get_compute_running_processes_v3(handle, &count, infos.data())) ==
         nd::detail::nvml::error_insufficient_size) {
    infos.resize(count + 16);
    count = static_cast<unsigned int>(infos.size());
  }
  if (rc != nd::detail::nvml::success) {
    return std::nullopt;
  }
  for (unsigned int i = 0; i < count; ++i) {
    if (infos[i].pid == static_cast<unsigned int>(::getpid())) {
      return true;
    }
  }
  return false;
}

// Probe mode (the process re-run under CUDA_VISIBLE_DEVICES=1): report and leave before GoogleTest.
[[maybe_unused]] const bool probe_mode = [] {
  if (std::getenv(probe_variable) == nullptr) {
    return false;
  }
  const int count = nd::device_count();
  std::string failure = count > 0 ? end_to_end(0) : "no device";
  std::printf("visible=%d\nresult=%s\n", count, failure.empty() ? "ok" : failure.c_str());
  std::fflush(stdout);
  std::_Exit(0);
}();

}  // namespace

TEST(EndToEndIsolation, DeviceOneOnlyLeavesDeviceZeroWithoutContextOrMemoryMultiGpu) {
  NDCUDA_REQUIRE_GPUS(2);
  if (nd::testing::primary_context_active(0)) {
    GTEST_SKIP() << "an earlier test in this process already used device 0; run this test in a process of its "
                    "own (ctest does)";
  }
  const std::string failure = end_to_end(1);
  EXPECT_TRUE(failure.empty()) << failure;
  EXPECT_TRUE(nd::testing::primary_context_active(1));
  EXPECT_FALSE(nd::testing::primary_context_active(0)) << "work on device 1 created a context on device 0";
  const auto on_1 = holds_memory_on(1);
  const auto on_0 = holds_memory_on(0);
  if (!on_1 || !on_0) {
    GTEST_SKIP() << "NVML's process lists are unavailable, so the memory half of the check could not run";
  }
  EXPECT_TRUE(*on_1) << "NVML does not list this process on device 1, so the check could not see device 0";
  EXPECT_FALSE(*on_0) << "this process holds memory on device 0";
}

TEST(EndToEndIsolation, UnderVisibleDevicesOneTheProgramSeesOneDeviceMultiGpu) {
  NDCUDA_REQUIRE_GPUS(2);
  const std::string uuid = nd::device(1).uuid();  // robust against a CUDA_VISIBLE_DEVICES already set
  const std::string command = std::string(probe_variable) + "=1 CUDA_VISIBLE_DEVICES=" + uuid + " /proc/" +
                              std::to_string(::getpid()) + "/exe 2>&1";
  FILE* pipe = ::popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string output;
  char buffer[256];
  while (std::fgets(buffer, sizeof buffer, pipe) != nullptr) {
    output += buffer;
  }
  ASSERT_EQ(::pclose(pipe), 0) << output;
  EXPECT_NE(output.find("visible=1\n"), std::string::npos) << output;
  EXPECT_NE(output.find("result=ok\n"), std::string::npos) << output;
}
