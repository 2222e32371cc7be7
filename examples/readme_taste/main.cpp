// The README's "A taste", compiled so that it cannot drift from the API (it is built, and run
// by the test suite when a GPU is present). Keep it identical to the README's block.
#include <iostream>
#include <ndcuda/io.hpp>
#include <ndcuda/ndcuda.hpp>
#include <vector>

namespace nd = ndcuda;

int main() {
  try {
    nd::require_devices(1);  // NVML count: creates no CUDA context
  } catch (const nd::device_error& e) {
    std::cerr << e.what() << "\n";  // no GPU: the one line the header promises, status 2
    return 2;
  }
  try {
    nd::device_guard g{0};  // this thread works on GPU 0 only
    nd::stream s;           // non-blocking; never the legacy NULL stream
    auto a = nd::arange<float>(12, s).reshape({3, 4});
    auto b = nd::linspace<float>(0.0F, 1.0F, 4, true, s);
    nd::ndarray<float> c = a * 2.0F + nd::sin(b);         // ONE fused JIT kernel; b broadcasts; stays float32
    auto col = a(nd::all, nd::slice(0, 4, 2));            // a view, like NumPy's a[:, 0:4:2]
    c(nd::ellipsis) = c - col(nd::all, nd::slice(0, 1));  // writes into c's memory (NumPy's c[...] = ...)
    c += 1.0F;                                            // in place, like NumPy
    auto prev = c;                                        // shares c's buffer, like Python's prev = c
    c = c * 0.5F;                                         // a new array: prev keeps its values (NumPy's c = c * 0.5)
    if (prev.data() == c.data()) {
      return 1;
    }
    std::vector<float> h = c.to_host();                                                     // C order
    std::cout << c << '\n';                                                                 // NumPy's repr
    nd::save_npy("c.npy", c);                                                               // np.load reads it back
    nd::elementwise_kernel<float(float, float)> k("out = x * 3.5f + y * y", "scaled_sum");  // your own
    auto rows = nd::sum(a * a, 1);     // the map fuses into the reduction: a * a is never stored
    double total = nd::sum(a).item();  // a 0-d device array; item() is the only wait
    nd::graph gr = nd::capture(s, [&] { c(nd::ellipsis) = a * 2.0F + nd::sin(b); });  // gr.launch(s) replays it
    gr.launch(s);
    std::cout << rows << "\n" << total << '\n';
    (void)h;
    (void)k;
    return 0;
  } catch (const nd::error& e) {
    std::cerr << "ndcuda error: " << e.what() << "\n";
    return 1;
  }
}
