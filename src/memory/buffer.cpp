// The owning device buffer; see include/ndcuda/memory/detail/buffer.hpp. Builds on the default and
// capture resources (memory/default_resource.hpp) and the capture registry (device/detail/capture.hpp).
#include <ndcuda/device/detail/capture.hpp>
#include <ndcuda/memory/default_resource.hpp>
#include <ndcuda/memory/detail/buffer.hpp>
#include <utility>

namespace ndcuda::detail {
namespace {

struct device_buffer {
  void* data = nullptr;
  std::size_t bytes = 0;
  std::shared_ptr<memory_resource> resource;
  ndcuda::stream release_on;
  unsigned long long capture = 0;  // the capture it was allocated in (graph memory), 0 if none

  device_buffer(std::size_t n, std::shared_ptr<memory_resource> r, ndcuda::stream s, unsigned long long id)
      : bytes(n), resource(std::move(r)), release_on(std::move(s)), capture(id) {
    data = resource->allocate(bytes, release_on);
  }
  ~device_buffer() = default;
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;

  void release() noexcept {
    // Never throws: the resources already tolerate CUDA's teardown at exit.
    try {
      resource->deallocate(data, bytes, release_on);
    } catch (...) {
    }
  }
};

// The last reference to a buffer went. Freed on its stream at once, unless that stream is now
// capturing a graph the buffer was not allocated in: the free would be recorded into that graph
// (or refused by the pool), so it waits until the capture is over. A buffer allocated inside the
// capture being recorded is freed into it: a graph free node, so replays do not accumulate memory.
struct release_buffer {
  void operator()(device_buffer* b) const noexcept {
    std::unique_ptr<device_buffer> owned(b);
    try {
      // Only while an nd::capture is open: at exit (no capture) no driver call is made here, since
      // the driver may already be unloading.
      if (captures_active() && b->release_on.is_capturing() && capture_id(b->release_on) != b->capture) {
        std::shared_ptr<device_buffer> later(owned.release());
        release_when_not_capturing(later->release_on, [later] { later->release(); });
        return;
      }
    } catch (...) {  // the driver is gone (exit): release as usual, the resource copes
    }
    owned->release();
  }
};

}  // namespace

std::shared_ptr<const void> allocate_buffer(std::size_t bytes, const stream& s, void** data) {
  // Inside a capture the default pool cannot serve (its blocks would be baked into the graph):
  // the stream-ordered capture resource makes the buffer graph memory instead.
  const unsigned long long id = capture_id(s);
  auto resource = id != 0 ? capture_resource(s.device()) : default_resource(s.device());
  std::shared_ptr<device_buffer> buffer(new device_buffer(bytes, std::move(resource), s, id), release_buffer{});
  if (id != 0) {
    note_capture_allocation(id, buffer.get());
  }
  *data = buffer->data;
  return buffer;
}

}  // namespace ndcuda::detail
