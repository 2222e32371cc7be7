// ndcuda quick start: find the GPUs, create arrays, view them, fuse an expression, read back.
// Without a GPU it prints one line, "no CUDA device available: <why>", and exits with status 2.
#include <iostream>
#include <ndcuda/ndcuda.hpp>
#include <vector>

namespace nd = ndcuda;

int main() {
  try {
    nd::require_devices(1);  // counts through NVML: no CUDA context is created here
  } catch (const nd::device_error& e) {
    std::cerr << e.what() << "\n";  // no GPU: the one line the header promises, status 2
    return 2;
  }
  try {
    std::cout << "ndcuda " << NDCUDA_VERSION_STRING << ", " << nd::device_count() << " device(s)\n";
    for (const nd::device& d : nd::devices()) {
      std::cout << "  " << d << "  " << d.uuid() << "\n";
    }

    // NumPy 2 promotion, resolved at compile time; C++ scalars are weak (NEP 50).
    std::cout << "int32 + float32 -> " << nd::promote_types(nd::dtype::int32, nd::dtype::float32) << "\n"
              << "float32 * 2.0   -> " << nd::promote_with_scalar(nd::dtype::float32, nd::scalar_kind::floating)
              << "\n";

    const nd::device_guard guard(0);  // this thread now works on device 0, and only there
    nd::set_limit(nd::limit::malloc_heap_size, std::size_t{64} << 20);  // before any kernel uses malloc

    nd::stream s;  // non-blocking, never the legacy NULL stream
    nd::event start;
    nd::event stop;
    start.record(s);
    stop.record(s);
    stop.synchronize();
    std::cout << "stream on device " << s.device() << ", empty interval " << nd::elapsed_ms(start, stop)
              << " ms, heap limit " << (nd::get_limit(nd::limit::malloc_heap_size) >> 20) << " MiB\n";

    // Arrays: created on the device, viewed without copies, read back to the host.
    const auto a = nd::arange<float>(12, s).reshape({3, 4});
    const auto every_other = a(nd::all, nd::slice(nd::none, nd::none, 2));  // NumPy a[:, ::2], a view
    std::cout << a << "\n" << every_other.T() << "\n";
    const std::vector<float> back = nd::asarray(a.to_host(), {12}, s).to_host();
    std::cout << "round trip of " << back.size() << " floats, last " << back.back() << "\n";

    // Expressions fuse into one JIT kernel; b broadcasts along the rows like NumPy.
    const auto b = nd::linspace<float>(0.0F, 1.0F, 4, true, s);
    nd::ndarray<float> c = a * 2.0F + nd::sin(b);  // float32 stays float32: C++ scalars are weak
    std::cout << c << "\n" << nd::eval(c > 10.0F) << "\n";
    return 0;
  } catch (const nd::error& e) {
    std::cerr << "ndcuda error: " << e.what() << "\n";
    return 1;
  }
}
