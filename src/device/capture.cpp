// The ordering rules between streams and captures; see include/ndcuda/device/detail/capture.hpp. The
// capture registry itself (retain, graph-owned allocations, the release thread) is in capture_retention.cpp.
#include <ndcuda/core/error.hpp>
#include <ndcuda/device/detail/capture.hpp>
#include <ndcuda/device/detail/wait_bound.hpp>
#include <ndcuda/device/event.hpp>
#include <shared_mutex>
#include <string>

namespace ndcuda::detail {

std::shared_mutex& capture_begin_mutex() noexcept {
  static std::shared_mutex mutex;
  return mutex;
}

void refuse_host_wait(const stream& s, const char* what) {
  if (s.is_capturing()) {
    throw capture_error(std::string(what) +
                        " waits for the array's data on the host, but its stream is capturing a CUDA graph; call it "
                        "after the capture ends (or copy into pinned memory with copy_to_host inside the capture)");
  }
  if (wait_bound_of(s) != nullptr) {
    // A communicator's stream: the work the host is about to wait for may depend on a peer. Wait
    // for it here within the communicator's timeout, so that the wait that follows (an event, a
    // staged copy) only waits for the copy itself and can never hang on a dead peer.
    bounded_synchronize(s, what);
  }
}

void synchronize_for(const stream& s, const char* what) {
  refuse_host_wait(s, what);
  s.synchronize();
}

void order_after(const stream& later, const stream& earlier) {
  if (later == earlier) {
    return;
  }
  // An event wait that crosses a capture's boundary fails in CUDA (and invalidates the capture),
  // or silently pulls the other stream into it: refuse before CUDA is called.
  if (later.is_capturing() || earlier.is_capturing()) {
    const unsigned long long a = capture_id(later);
    const unsigned long long b = capture_id(earlier);
    if (a != b) {
      throw capture_error(
          "an operation on a stream that is capturing a CUDA graph uses an array ordered on another stream that is " +
          std::string(a != 0 && b != 0 ? "capturing a different graph" : "not capturing") +
          ": the dependency cannot cross the capture's boundary. Create the arrays a capture uses on the capture "
          "stream (e.g. nd::zeros<float>(shape, s)), or before the capture begins order that stream after the "
          "array's stream and use a.on_stream(s)");
    }
  }
  event e(earlier.device(), false);
  e.record(earlier);
  later.wait(e);
}

}  // namespace ndcuda::detail
