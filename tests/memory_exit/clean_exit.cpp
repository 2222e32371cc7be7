// Exits with pools installed and holding memory, copies in flight and nothing synchronized; ctest
// runs it 20 times and requires a clean exit (status 0, no terminate, no crash) every time.
#include <cstdio>
#include <memory>
#include <ndcuda/ndcuda.hpp>
#include <optional>
#include <vector>

namespace nd = ndcuda;

namespace {

constexpr std::size_t MiB = std::size_t{1} << 20;

// Constructed before main, so before CUDA initialises: destroyed after CUDA's own teardown, the
// worst moment for a destructor that hands memory back (cudaErrorCudartUnloading).
std::unique_ptr<nd::device_pool_resource> late_pool;
std::unique_ptr<nd::pinned_pool_resource> late_pinned;
std::unique_ptr<nd::async_pool_resource> late_async;
std::unique_ptr<nd::managed_resource> late_managed;
std::unique_ptr<nd::transfer_engine> late_engine;
std::optional<nd::stream> late_stream;

// Constructed during main, after CUDA: destroyed before CUDA's teardown.
nd::device_pool_resource& early_pool() {
  static nd::device_pool_resource pool(0);
  return pool;
}

}  // namespace

int main() {
  if (nd::device_count() == 0) {
    std::puts("NDCUDA_SKIP: no CUDA device visible");
    return 0;
  }
  nd::stream s(0);
  late_stream = s;
  std::vector<unsigned char> pageable(64 * MiB, 0x5A);

  // The built-in default pool of device 0, with blocks in use and cached.
  auto builtin = nd::default_resource(0);
  (void)builtin->allocate(64 * MiB, s);
  builtin->deallocate(builtin->allocate(8 * MiB, s), 8 * MiB, s);

  // A user stack installed as device 0's default, replacing the built-in pool: held to the end.
  auto installed = std::make_shared<nd::logging_adaptor>(
      std::make_shared<nd::statistics_adaptor>(std::make_shared<nd::device_pool_resource>(0)),
      [](const nd::allocation_record&) {});
  (void)nd::set_default_resource(0, installed);
  void* target = nd::default_resource(0)->allocate(pageable.size(), s);
  nd::copy_to_device(target, pageable.data(), pageable.size(), s);  // staged, DMAs in flight at exit

  late_pool = std::make_unique<nd::device_pool_resource>(0);
  void* late_target = late_pool->allocate(pageable.size(), s);
  late_pool->deallocate(late_pool->allocate(MiB, s), MiB, s);

  late_pinned = std::make_unique<nd::pinned_pool_resource>();
  auto* pinned_block = static_cast<unsigned char*>(late_pinned->allocate(32 * MiB, s));
  nd::copy_to_device(late_target, pinned_block, 32 * MiB, s);
  late_pinned->deallocate(pinned_block, 32 * MiB, s);  // its event is pending at exit

  late_async = std::make_unique<nd::async_pool_resource>(0);
  (void)late_async->allocate(16 * MiB, s);  // outstanding at exit

  late_managed = std::make_unique<nd::managed_resource>(0);
  (void)late_managed->allocate(MiB, s);  // small: managed memory is kept to a few MiB

  late_engine = std::make_unique<nd::transfer_engine>(std::make_shared<nd::pinned_pool_resource>());
  late_engine->copy_to_device(late_target, pageable.data(), pageable.size(), s);
  void* kept = nullptr;
  if (cudaHostAlloc(&kept, 4 * MiB, cudaHostAllocPortable) == cudaSuccess) {
    std::shared_ptr<const void> source(kept, [](const void* p) { (void)cudaFreeHost(const_cast<void*>(p)); });
    late_engine->copy_to_device(late_target, std::move(source), 4 * MiB, s);  // kept alive past main
  }

  (void)early_pool().allocate(4 * MiB, s);
  early_pool().deallocate(early_pool().allocate(MiB, s), MiB, s);

  std::puts("clean-exit: main returns with pools installed and work in flight");
  return 0;
}
