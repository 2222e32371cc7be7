// A pinned H2D -> compute -> D2H pipeline captured once into a CUDA graph and replayed: each
// launch reads the host buffer's current contents and writes the result back to pinned memory.
// Without a GPU it prints one line, "no CUDA device available: <why>", and exits with status 2.
#include <cmath>
#include <cstring>
#include <iostream>
#include <ndcuda/ndcuda.hpp>

namespace nd = ndcuda;

int main() {
  try {
    nd::require_devices(1);
  } catch (const nd::device_error& e) {
    std::cerr << e.what() << "\n";  // no GPU: the one line the header promises, status 2
    return 2;
  }
  try {
    const nd::device_guard guard(0);
    nd::stream s;
    constexpr nd::index_t n = 1 << 20;
    constexpr std::size_t bytes = n * sizeof(float);

    // Pinned host buffers, allocated before the capture: a graph can only copy from and to
    // page-locked memory (a pageable copy throws nd::capture_error, and the capture stays usable).
    auto pinned = nd::default_pinned_pool();
    auto* host_in = static_cast<float*>(pinned->allocate(bytes, s));
    auto* host_out = static_cast<float*>(pinned->allocate(bytes, s));

    // Arrays the graph writes live on the capture stream and exist before it begins.
    auto x = nd::empty<float>({n}, s);
    auto y = nd::empty<float>({n}, s);

    nd::graph pipeline = nd::capture(s, [&] {
      nd::copy_to_device(x.data(), host_in, bytes, s);  // H2D: a memcpy node
      nd::ndarray<float> t = nd::sqrt(x * x + 1.0f);    // a temporary: graph-owned memory
      y(nd::ellipsis) = t * 0.5f + x;                   // one fused kernel node
      y.copy_to_host(host_out, s);                      // D2H: a memcpy node
    });
    std::cout << "captured " << pipeline.node_count() << " nodes\n";
    pipeline.upload(s);

    int wrong = 0;
    for (int step = 0; step < 5; ++step) {
      for (nd::index_t i = 0; i < n; ++i) {
        host_in[i] = static_cast<float>(step) + static_cast<float>(i % 97) * 0.01f;  // new input each replay
      }
      pipeline.launch(s);
      s.synchronize();  // outside the capture, waiting is fine
      for (nd::index_t i = 0; i < n; i += 4097) {
        const double v = host_in[i];
        if (std::abs(host_out[i] - (std::sqrt(v * v + 1.0) * 0.5 + v)) > 1e-4 * (1.0 + std::abs(v))) {
          ++wrong;
        }
      }
      std::cout << "replay " << step << ": y[1] = " << host_out[1] << "\n";
    }
    pinned->deallocate(host_in, bytes, s);
    pinned->deallocate(host_out, bytes, s);
    if (wrong != 0) {
      std::cerr << wrong << " wrong values\n";
      return 1;
    }
    std::cout << "graph_capture: all replays correct\n";
    return 0;
  } catch (const nd::error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}
