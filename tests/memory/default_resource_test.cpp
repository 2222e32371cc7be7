// The per-device default registry: lookups, replacement and validation (CPU), defaults (GPU).
#include <gtest/gtest.h>

#include <ndcuda/core/error.hpp>
#include <ndcuda/device/device.hpp>
#include <ndcuda/memory/default_resource.hpp>
#include <ndcuda/memory/device_pool_resource.hpp>

#include "support/gpu.hpp"
#include "support/simulated_memory.hpp"

namespace nd = ndcuda;

namespace {

std::shared_ptr<nd::device_pool_resource> simulated_device_pool(int device) {
  return std::make_shared<nd::device_pool_resource>(device, nd::pool_options{},
                                                    std::make_shared<nd::testing::simulated_upstream>(1 << 30),
                                                    std::make_shared<nd::testing::simulated_ordering>());
}

}  // namespace

TEST(DefaultResource, SetThenGetThenRestore) {
  auto mine = simulated_device_pool(0);
  auto previous = nd::set_default_resource(0, mine);
  EXPECT_EQ(nd::default_resource(0), mine);
  auto back = nd::set_default_resource(0, previous);
  EXPECT_EQ(back, mine);
}

TEST(DefaultResource, HostDefaultIsThePinnedPool) {
  // Constructing the pinned pool touches no GPU.
  auto host = nd::default_resource(nd::host_device);
  EXPECT_EQ(host->kind(), nd::memory_kind::pinned_host);
  EXPECT_EQ(host->device(), nd::host_device);
  EXPECT_EQ(host, nd::default_pinned_pool());
}

TEST(DefaultResource, RefusesAResourceOfAnotherDeviceOrKind) {
  auto pool1 = simulated_device_pool(1);
  try {
    (void)nd::set_default_resource(0, pool1);
    FAIL();
  } catch (const nd::error& e) {
    EXPECT_NE(std::string(e.what()).find("belongs to device 1, not device 0"), std::string::npos) << e.what();
  }
  auto pool_host = std::make_shared<nd::device_pool_resource>(
      nd::host_device, nd::pool_options{}, std::make_shared<nd::testing::simulated_upstream>(1 << 30),
      std::make_shared<nd::testing::simulated_ordering>());
  EXPECT_THROW((void)nd::set_default_resource(nd::host_device, pool_host), nd::error);
  EXPECT_THROW((void)nd::set_default_resource(-2, pool1), nd::device_error);
  EXPECT_THROW((void)nd::default_resource(-7), nd::device_error);
}

TEST(DefaultResource, AMissingDeviceIsADeviceError) {
  EXPECT_THROW((void)nd::default_resource(1000), nd::device_error);
}

TEST(DefaultResource, EachDeviceDefaultsToItsOwnDevicePool) {
  NDCUDA_REQUIRE_GPU();
  auto r = nd::default_resource(0);
  EXPECT_EQ(r->kind(), nd::memory_kind::device);
  EXPECT_EQ(r->device(), 0);
  EXPECT_NE(dynamic_cast<nd::device_pool_resource*>(r.get()), nullptr);
  EXPECT_EQ(nd::default_resource(0), r) << "created once";
  nd::device_guard guard(0);
  EXPECT_EQ(nd::default_resource(), r);
}

TEST(DefaultResource, DefaultsAreCreatedPerDeviceMultiGpu) {
  NDCUDA_REQUIRE_GPUS(2);
  auto r1 = nd::default_resource(1);
  EXPECT_EQ(r1->device(), 1);
  EXPECT_NE(r1, nd::default_resource(0));
}
