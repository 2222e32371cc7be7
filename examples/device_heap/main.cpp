// The device malloc heap: a raw_kernel whose 4096 threads each malloc 16 KiB and hold it (64 MiB
// at once). CUDA's default heap is 8 MiB, where most of these mallocs would return NULL (the test
// tests/jit/gpu_device_heap_test.cpp shows it), so the limit is raised first, before any malloc
// kernel is loaded on the device; afterwards the heap is fixed and nd::set_limit says so.
// Without a GPU it prints one line, "no CUDA device available: <why>", and exits with status 2.
#include <cstdint>
#include <iostream>
#include <ndcuda/ndcuda.hpp>

namespace nd = ndcuda;

namespace {

constexpr const char* source = R"(
// Every thread takes `bytes` from the device heap and keeps it until `release` runs, so the
// whole 64 MiB is held at once (more than the default 8 MiB heap can give).
extern "C" __global__ void grab(char** blocks, unsigned long long* failures, unsigned n, unsigned long long bytes) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  char* p = static_cast<char*>(malloc(bytes));      // device-side malloc: served from the heap
  if (p == nullptr) atomicAdd(failures, 1ull);      // NULL, not a crash, when the heap is full
  else p[bytes - 1] = 1;
  blocks[i] = p;
}
extern "C" __global__ void release(char** blocks, unsigned n) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) free(blocks[i]);                       // free(nullptr) is a no-op, as on the host
}
)";

}  // namespace

int main() {
  try {
    nd::require_devices(1);
  } catch (const nd::device_error& e) {
    std::cerr << e.what() << "\n";  // no GPU: the one line the header promises, status 2
    return 2;
  }
  try {
    const int device = 0;
    const nd::device_guard guard(device);
    std::cout << "default heap: " << (nd::get_limit(nd::limit::malloc_heap_size) >> 20) << " MiB\n";

    // Per device, and only before the first kernel that calls malloc/new is loaded there.
    nd::set_limit(device, nd::limit::malloc_heap_size, std::size_t{256} << 20);
    std::cout << "heap raised to: " << (nd::get_limit(nd::limit::malloc_heap_size) >> 20) << " MiB\n";

    nd::stream s;
    const nd::raw_kernel grab(source, "grab");
    const nd::raw_kernel release(source, "release");
    auto failures = nd::zeros<std::uint64_t>({1}, s);
    constexpr unsigned threads = 4096;
    auto blocks = nd::empty<std::uint64_t>({threads}, s);  // one device pointer per thread
    auto** pointers = reinterpret_cast<char**>(blocks.data());
    grab(dim3(threads / 256), dim3(256), 0, s, pointers, reinterpret_cast<unsigned long long*>(failures.data()),
         threads, static_cast<unsigned long long>(16 << 10));
    release(dim3(threads / 256), dim3(256), 0, s, pointers, threads);
    const std::uint64_t failed = failures.item();
    std::cout << "failed device allocations: " << failed << " of " << threads << "\n";

    bool refused = false;
    try {
      nd::set_limit(device, nd::limit::malloc_heap_size, std::size_t{512} << 20);
    } catch (const nd::device_error& e) {
      refused = true;
      std::cout << "raising it again now is refused, as expected:\n  " << e.what() << "\n";
    }
    return failed == 0 && refused ? 0 : 1;
  } catch (const nd::error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}
