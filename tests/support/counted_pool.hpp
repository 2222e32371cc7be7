// The default resource of device 0 replaced by a fresh pool for one scope, so that a test can count
// the allocations a spelling makes (pool->stats().allocation_count).
#pragma once

#include <memory>
#include <ndcuda/ndcuda.hpp>

namespace ndcuda::testing {

struct counted_pool {
  std::shared_ptr<device_pool_resource> pool = std::make_shared<device_pool_resource>(0);
  std::shared_ptr<memory_resource> previous = set_default_resource(0, pool);
  counted_pool() = default;
  counted_pool(const counted_pool&) = delete;
  counted_pool& operator=(const counted_pool&) = delete;
  ~counted_pool() { (void)set_default_resource(0, previous); }
};

}  // namespace ndcuda::testing
