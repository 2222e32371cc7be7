// ndcuda and libtorch in one program: tensors and arrays share memory without copies, work crosses between torch's
// streams and ndcuda's with events, and one ndcuda pool serves both. Exits with status 2 when no GPU is visible.
#include <ATen/ATen.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>

#include <cstdlib>
#include <iostream>
#include <memory>
#include <ndcuda/interop/torch.hpp>
#include <ndcuda/interop/torch_memory.hpp>
#include <ndcuda/ndcuda.hpp>

namespace nd = ndcuda;

namespace {

bool check(bool ok, const char* what) {
  std::cout << (ok ? "  ok   " : "  FAIL ") << what << "\n";
  return ok;
}

}  // namespace

int main() {
  try {
    nd::require_devices(1);
  } catch (const nd::device_error& e) {
    std::cerr << e.what() << "\n";
    return 2;
  }
  try {
    bool ok = true;
    // 1. One pool for both: torch takes its CUDA memory from ndcuda's default resource of each device, counted
    //    here. Torch can swap its allocator only before it allocates anything, so this comes first.
    auto counted = std::make_shared<nd::statistics_adaptor>(nd::default_resource(0));
    nd::use_ndcuda_memory_in_torch([counted](int device) -> std::shared_ptr<nd::memory_resource> {
      return device == 0 ? counted : nd::default_resource(device);
    });

    // Torch runs on a stream of its own (its default stream is CUDA's legacy stream, which ndcuda never uses).
    const c10::cuda::CUDAStreamGuard torch_stream(c10::cuda::getStreamFromPool());
    const at::TensorOptions gpu = at::TensorOptions().dtype(at::kFloat).device(at::kCUDA, 0);

    // 2. torch -> ndcuda, zero copy: the array views the tensor's memory, ordered after torch's stream.
    at::Tensor x = at::linspace(0, 1, 1 << 20, gpu);
    nd::ndarray<float> a = nd::from_torch<float>(x);
    ok &= check(a.data() == x.data_ptr<float>(), "from_torch shares the tensor's memory");
    ok &= check(counted->stats().allocation_count >= 1, "torch's tensor came from ndcuda's pool");

    // 3. ndcuda -> torch, zero copy: torch's current stream is ordered after the array's.
    const nd::ndarray<float> y = nd::sin(a) * 2.0f;
    const at::Tensor ty = nd::to_torch(y);
    ok &= check(ty.data_ptr<float>() == y.data(), "to_torch shares the array's memory");
    const double torch_sum = ty.sum(at::kDouble).item<double>();
    const double nd_sum = static_cast<double>(nd::sum(y.astype<double>()).item());
    ok &= check(std::abs(torch_sum - nd_sum) < 1e-6 * std::abs(nd_sum), "torch and ndcuda agree on the values");

    // 4. Views keep their layout both ways: a[2::3] is an offset, strided view.
    const nd::ndarray<float> every_third = a(nd::slice(2, std::nullopt, 3));
    const at::Tensor t3 = nd::to_torch(every_third);
    ok &= check(t3.stride(0) == 3 && t3.data_ptr<float>() == x.data_ptr<float>() + 2, "a[2::3] keeps stride 3");
    const nd::ndarray<float> back = nd::from_torch<float>(x.view({1024, 1024}).t());
    ok &= check(back.strides() == nd::strides_t{1, 1024}, "a torch transpose keeps strides (1, 1024)");

    // 5. float16 and bfloat16 map to __half and __nv_bfloat16.
    const at::Tensor h = x.to(at::kHalf);
    ok &= check(nd::from_torch<__half>(h).data() == h.data_ptr(), "torch.float16 is ndcuda's float16");
    ok &= check(nd::to_torch(nd::ones<__nv_bfloat16>({8})).scalar_type() == at::kBFloat16,
                "ndcuda's bfloat16 is torch.bfloat16");

    // 6. Streams: ndcuda work on torch's current stream, torch work on an ndcuda stream, and events between.
    const nd::stream torch_side = nd::from_torch_stream(c10::cuda::getCurrentCUDAStream());
    const nd::ndarray<float> on_torch_stream = nd::zeros<float>({1 << 20}, torch_side);  // queued where torch runs
    ok &= check(on_torch_stream.stream() == torch_side, "ndcuda runs on torch's current stream");
    const nd::stream mine;
    nd::ndarray<float> z = nd::zeros<float>({1 << 20}, mine);
    at::Tensor tz = nd::to_torch(z);  // orders torch after the zeros; the writes below need their own event
    for (int i = 0; i < 20; ++i) {
      z += 1.0f;  // a long write on ndcuda's stream
    }
    nd::event written(0, false);
    written.record(mine);
    torch_side.wait(written);  // torch's stream waits for ndcuda's writes, on the GPU
    ok &= check(tz.min().item<float>() == 20.0f, "an event orders torch after ndcuda");
    {
      const c10::cuda::CUDAStreamGuard on_mine(nd::to_torch_stream(mine));  // torch work on ndcuda's stream
      tz.mul_(3.0f);
    }
    nd::event scaled(0, false);
    scaled.record(mine);
    torch_side.wait(scaled);  // and the other way: back to torch's stream
    ok &= check(tz.max().item<float>() == 60.0f, "torch ran on ndcuda's stream, ordered by an event");

    // 7. The other way round: ndarrays taking their memory from torch's allocator (here the ndcuda pool it was
    //    given above, so both directions are shown; with torch's own caching allocator it is the same call).
    const auto from_torch_pool = std::make_shared<nd::torch_memory_resource>(0);
    const auto previous = nd::set_default_resource(0, from_torch_pool);
    const nd::ndarray<float> w = nd::arange<float>(1000) * 0.5f;
    nd::set_default_resource(0, previous);
    ok &= check(nd::sum(w).item() == 249750.0f, "an ndarray in memory from torch's allocator");

    std::cout << "ndcuda pool behind torch: " << counted->stats() << "\n";
    return ok ? EXIT_SUCCESS : EXIT_FAILURE;
  } catch (const std::exception& e) {
    std::cerr << "libtorch_interop: " << e.what() << "\n";
    return EXIT_FAILURE;
  }
}
