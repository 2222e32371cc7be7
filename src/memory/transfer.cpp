// The transfer engine: direct copies from pinned memory, a multi-threaded staging pipeline for
// pageable memory, and keep-alive of buffers the caller handed over.
#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <ndcuda/core/detail/nvtx.hpp>
#include <ndcuda/core/error.hpp>
#include <ndcuda/device/detail/capture.hpp>
#include <ndcuda/device/device.hpp>
#include <ndcuda/device/event.hpp>
#include <ndcuda/memory/default_resource.hpp>
#include <ndcuda/memory/host_vector.hpp>
#include <ndcuda/memory/transfer.hpp>
#include <thread>
#include <vector>

#include "memory/format.hpp"
#include "memory/host_memory.hpp"
#include "memory/host_threads.hpp"
#include "memory/lane_copy.hpp"
#include "memory/teardown.hpp"

namespace ndcuda {
namespace {

constexpr std::size_t KiB = std::size_t{1} << 10;

enum class direction { to_device, to_host };

const char* name_of(direction d) {
  return d == direction::to_device ? "copy_to_device" : "copy_to_host";
}

void refuse_pageable_capture(const stream& s, direction d, std::size_t bytes) {
  if (s.is_capturing()) {
    throw capture_error(std::string(name_of(d)) + "(" + std::to_string(bytes) + " bytes) on stream " +
                        detail::format_pointer(s.handle()) +
                        ", which is capturing a CUDA graph: a copy between the device and pageable memory "
                        "cannot be captured into a CUDA graph; use pinned memory (nd::pinned_pool_resource / "
                        "cudaHostAlloc / cudaHostRegister) "
                        "for the host side, or copy before the capture begins");
  }
}

/// True when `s` is capturing into an nd::capture, which now holds `buffer` for its graph's
/// lifetime; throws when it captures into a graph ndcuda did not open (nothing could hold it).
bool held_by_capture(const stream& s, direction d, const std::shared_ptr<const void>& buffer) {
  device_guard guard(s.device());
  if (!s.is_capturing()) {
    return false;
  }
  if (detail::retain_for_capture(s, buffer)) {
    return true;
  }
  throw capture_error(std::string(name_of(d)) +
                      " with a shared_ptr host buffer on a stream that is capturing a CUDA graph ndcuda did not "
                      "open: nothing can tie the buffer's lifetime to that graph's launches. Capture with "
                      "nd::capture / nd::capture_scope, whose graph holds the buffer, or pass a raw pointer and keep "
                      "the pinned buffer alive for as long as the graph is launched");
}

/// Staging buffers from the pool, returned on the stream when the copy is done with them: the pool
/// then waits for the DMAs queued so far before anyone gets them again.
class staging_buffers {
 public:
  staging_buffers(pinned_pool_resource& pool, const stream& s, unsigned count, std::size_t bytes)
      : pool_(pool), stream_(s), bytes_(bytes) {
    buffers_.reserve(count);
    for (unsigned i = 0; i < count; ++i) {
      buffers_.push_back(static_cast<char*>(pool_.allocate(bytes, s)));
    }
  }
  ~staging_buffers() {
    for (char* b : buffers_) {
      try {
        pool_.deallocate(b, bytes_, stream_);
      } catch (...) {  // not capturing (checked before), so only a dead context gets here
      }
    }
  }
  staging_buffers(const staging_buffers&) = delete;
  staging_buffers& operator=(const staging_buffers&) = delete;
  char* operator[](std::size_t i) const { return buffers_[i]; }

 private:
  pinned_pool_resource& pool_;
  stream stream_;
  std::size_t bytes_;
  std::vector<char*> buffers_;
};

}  // namespace

const char* to_string(transfer_path path) noexcept {
  switch (path) {
    case transfer_path::direct:
      return "direct";
    case transfer_path::staged:
      return "staged";
    case transfer_path::driver_staged:
      return "driver_staged";
  }
  return "unknown";
}

struct transfer_engine::impl {
  struct kept_buffer {
    event done;
    std::shared_ptr<const void> buffer;
  };

  std::shared_ptr<pinned_pool_resource> staging;
  transfer_options options;
  std::once_flag threads_started;
  std::unique_ptr<detail::host_threads> threads;
  std::mutex kept_mutex;
  std::vector<kept_buffer> kept;
  std::mutex lanes_mutex;
  std::map<int, std::vector<stream>> lane_streams;  // per device, made on the first large read there

  impl(std::shared_ptr<pinned_pool_resource> pool, transfer_options o)
      : staging(pool ? std::move(pool) : default_pinned_pool()), options(o) {
    if (options.buffers < 2) {
      throw error("transfer_options::buffers is " + std::to_string(options.buffers) +
                  "; the pipeline needs at least 2 staging buffers (double buffering)");
    }
    options.chunk_bytes = std::max(options.chunk_bytes, 64 * KiB);
    options.lane_chunk_bytes = std::max(options.lane_chunk_bytes, 64 * KiB);
    options.slice_bytes = std::max(options.slice_bytes, 4 * KiB);
    if (options.host_threads == 0) {
      options.host_threads = std::clamp(std::thread::hardware_concurrency(), 1U, 16U);
    }
  }

  ~impl() {
    for (auto& k : kept) {
      try {
        k.done.synchronize();
      } catch (...) {  // at exit the runtime may be gone
      }
    }
  }

  detail::host_threads& workers() {
    std::call_once(threads_started, [&] { threads = std::make_unique<detail::host_threads>(options.host_threads); });
    return *threads;
  }

  /// memcpy, split among the host threads when large enough to pay for waking them.
  void host_copy(char* dst, const char* src, std::size_t bytes) {
    const std::size_t slices = std::min<std::size_t>(options.host_threads, bytes / options.slice_bytes);
    if (slices <= 1) {
      std::memcpy(dst, src, bytes);
      return;
    }
    const std::size_t per = (bytes / slices + 4095) / 4096 * 4096;
    workers().run(slices, [&](std::size_t i) {
      const std::size_t begin = std::min(bytes, i * per);
      const std::size_t end = std::min(bytes, begin + per);
      std::memcpy(dst + begin, src + begin, end - begin);
    });
  }

  /// One stream per host thread on `device`, all made at once so the vector never grows later.
  const std::vector<stream>& lanes_on(int device) {
    std::lock_guard lock(lanes_mutex);
    std::vector<stream>& streams = lane_streams[device];
    if (streams.empty()) {
      for (unsigned i = 0; i < workers().size(); ++i) {
        streams.emplace_back(device);
      }
    }
    return streams;
  }

  void keep_until_done(std::shared_ptr<const void> buffer, const stream& s) {
    event done(s.device(), false);
    done.record(s);
    std::lock_guard lock(kept_mutex);
    kept.push_back({std::move(done), std::move(buffer)});
  }

  std::size_t collect() {
    std::vector<kept_buffer> finished;  // destroyed outside the lock: a buffer's deleter may be slow
    std::lock_guard lock(kept_mutex);
    if (kept.empty()) {
      return 0;
    }
    for (auto it = kept.begin(); it != kept.end();) {
      if (it->done.query()) {
        finished.push_back(std::move(*it));
        it = kept.erase(it);
      } else {
        ++it;
      }
    }
    return kept.size();
  }

  /// What the host side of a copy is; the staging pool's own blocks are known without asking CUDA.
  detail::classified_range classify(const void* host, std::size_t bytes) const {
    if (staging->contains(host, bytes)) {
      return {host_memory_kind::pinned, {{static_cast<const char*>(host), bytes}}};
    }
    return detail::classify_segments(host, bytes);
  }

  void staged_to_device(char* dst, const char* src, std::size_t bytes, const stream& s) {
    const std::size_t chunk = std::min(options.chunk_bytes, bytes);
    const std::size_t chunks = (bytes + chunk - 1) / chunk;
    const auto count = static_cast<unsigned>(std::min<std::size_t>(options.buffers, chunks));
    staging_buffers buffers(*staging, s, count, chunk);
    std::vector<event> copied;
    copied.reserve(count);
    for (unsigned i = 0; i < count; ++i) {
      copied.emplace_back(s.device(), false);
    }
    for (std::size_t k = 0; k < chunks; ++k) {
      const std::size_t i = k % count;
      const std::size_t offset = k * chunk;
      const std::size_t length = std::min(chunk, bytes - offset);
      if (k >= count) {
        copied[i].synchronize();  // the DMA of chunk k - count has left buffer i
      }
      host_copy(buffers[i], src + offset, length);
      NDCUDA_CUDA_CHECK(cudaMemcpyAsync(dst + offset, buffers[i], length, cudaMemcpyHostToDevice, s.handle()));
      copied[i].record(s);
    }
  }

  void staged_to_host(char* dst, const char* src, std::size_t bytes, const stream& s) {
    const std::size_t chunk = std::min(options.chunk_bytes, bytes);
    const std::size_t chunks = (bytes + chunk - 1) / chunk;
    const auto count = static_cast<unsigned>(std::min<std::size_t>(options.buffers, chunks));
    staging_buffers buffers(*staging, s, count, chunk);
    std::vector<event> arrived;
    arrived.reserve(count);
    for (unsigned i = 0; i < count; ++i) {
      arrived.emplace_back(s.device(), false);
    }
    auto fetch = [&](std::size_t k) {
      const std::size_t offset = k * chunk;
      const std::size_t i = k % count;
      NDCUDA_CUDA_CHECK(cudaMemcpyAsync(buffers[i], src + offset, std::min(chunk, bytes - offset),
                                        cudaMemcpyDeviceToHost, s.handle()));
      arrived[i].record(s);
    };
    for (std::size_t k = 0; k < count; ++k) {
      fetch(k);
    }
    for (std::size_t k = 0; k < chunks; ++k) {
      const std::size_t i = k % count;
      const std::size_t offset = k * chunk;
      arrived[i].synchronize();
      host_copy(dst + offset, buffers[i], std::min(chunk, bytes - offset));
      if (k + count < chunks) {
        fetch(k + count);  // buffer i is free again: the host has read it
      }
    }
  }

  transfer_path copy(direction d, void* dst, const void* src, std::size_t bytes, const stream& s) {
    if (bytes == 0) {
      return transfer_path::direct;
    }
    if (dst == nullptr || src == nullptr) {
      throw error(std::string(name_of(d)) + "(" + detail::format_pointer(dst) + ", " + detail::format_pointer(src) +
                  ", " + std::to_string(bytes) + " bytes): a null pointer with a non-zero size");
    }
    device_guard guard(s.device());
    (void)collect();
    const void* host = d == direction::to_device ? src : dst;
    const detail::classified_range range = classify(host, bytes);
    if (range.kind != host_memory_kind::pageable) {
      // One copy per allocation: a single cudaMemcpyAsync must not span two registrations.
      std::size_t offset = 0;
      for (const detail::memory_segment& seg : range.segments) {
        char* to = d == direction::to_device ? static_cast<char*>(dst) + offset : const_cast<char*>(seg.ptr);
        const char* from = d == direction::to_device ? seg.ptr : static_cast<const char*>(src) + offset;
        NDCUDA_CUDA_CHECK(cudaMemcpyAsync(to, from, seg.bytes, cudaMemcpyDefault, s.handle()));
        offset += seg.bytes;
      }
      return transfer_path::direct;
    }
    refuse_pageable_capture(s, d, bytes);
    const cudaMemcpyKind kind = d == direction::to_device ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost;
    if (bytes <= options.small_copy_bytes) {
      NDCUDA_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, kind, s.handle()));
      return transfer_path::driver_staged;
    }
    try {
      if (d == direction::to_device) {
        staged_to_device(static_cast<char*>(dst), static_cast<const char*>(src), bytes, s);
      } else {
        if (bytes >= options.lane_read_bytes && workers().size() > 1) {
          detail::lanes_to_host(static_cast<char*>(dst), static_cast<const char*>(src), bytes, s, *staging, workers(),
                                lanes_on(s.device()), options.lane_chunk_bytes);
        } else {
          staged_to_host(static_cast<char*>(dst), static_cast<const char*>(src), bytes, s);
        }
      }
      return transfer_path::staged;
    } catch (const out_of_memory&) {
      // No pinned memory to stage through (a limit, or the host is short): let CUDA stage it.
      // Only the staging allocation throws this, before any chunk was copied.
    }
    NDCUDA_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, kind, s.handle()));
    return transfer_path::driver_staged;
  }
};

transfer_engine::transfer_engine(std::shared_ptr<pinned_pool_resource> staging, transfer_options options)
    : impl_(std::make_unique<impl>(std::move(staging), options)) {}

transfer_engine::~transfer_engine() {
  if (detail::cuda_is_unloading()) {
    (void)impl_.release();  // exit after CUDA's teardown: nothing left to wait for or release
  }
}

transfer_path transfer_engine::copy_to_device(void* dst, const void* src_host, std::size_t bytes, const stream& s) {
  const ndcuda::detail::op_range<"nd::copy_to_device"> nvtx;
  return impl_->copy(direction::to_device, dst, src_host, bytes, s);
}

transfer_path transfer_engine::copy_to_device(void* dst, std::shared_ptr<const void> src_host, std::size_t bytes,
                                              const stream& s) {
  const ndcuda::detail::op_range<"nd::copy_to_device"> nvtx;
  const bool held = held_by_capture(s, direction::to_device, src_host);
  const transfer_path path = impl_->copy(direction::to_device, dst, src_host.get(), bytes, s);
  if (!held && path == transfer_path::direct && bytes != 0) {
    impl_->keep_until_done(std::move(src_host), s);  // the DMA reads it later; staged paths have read it already
  }
  return path;
}

transfer_path transfer_engine::copy_to_host(void* dst_host, const void* src, std::size_t bytes, const stream& s) {
  const ndcuda::detail::op_range<"nd::copy_to_host"> nvtx;
  return impl_->copy(direction::to_host, dst_host, src, bytes, s);
}

transfer_path transfer_engine::copy_to_host(std::shared_ptr<void> dst_host, const void* src, std::size_t bytes,
                                            const stream& s) {
  const ndcuda::detail::op_range<"nd::copy_to_host"> nvtx;
  const bool held = held_by_capture(s, direction::to_host, dst_host);
  const transfer_path path = impl_->copy(direction::to_host, dst_host.get(), src, bytes, s);
  if (!held && path == transfer_path::direct && bytes != 0) {
    impl_->keep_until_done(std::move(dst_host), s);  // staged and driver paths have written it already
  }
  return path;
}

void transfer_engine::populate(void* host, std::size_t bytes) {
  const ndcuda::detail::op_range<"nd::populate_host_pages"> nvtx;
  constexpr std::size_t slice = std::size_t{32} << 20;  // page population scales well across threads
  const std::size_t slices = std::min<std::size_t>(impl_->options.host_threads, (bytes + slice - 1) / slice);
  if (slices <= 1) {
    (void)detail::populate_pages(host, bytes);
    return;
  }
  const std::size_t per = (bytes / slices + slice - 1) / slice * slice;
  impl_->workers().run(slices, [&](std::size_t i) {
    const std::size_t begin = std::min(bytes, i * per);
    (void)detail::populate_pages(static_cast<char*>(host) + begin, std::min(bytes, begin + per) - begin);
  });
}

std::size_t transfer_engine::collect() {
  return impl_->collect();
}

const std::shared_ptr<pinned_pool_resource>& transfer_engine::staging_pool() const noexcept {
  return impl_->staging;
}

const transfer_options& transfer_engine::options() const noexcept {
  return impl_->options;
}

transfer_engine& default_transfer_engine() {
  static auto* engine = new transfer_engine();  // never destroyed: its threads and buffers outlive static destructors
  return *engine;
}

}  // namespace ndcuda
