// Generator state: the key (SplitMix64 over seed, spawn key and jumps) and the device cell holding
// the Philox offset, which a one-thread kernel reads into each draw's own cell and advances, so
// that graph replays draw fresh numbers and no two draws share a counter.
#include <cuda_runtime_api.h>

#include <limits>
#include <mutex>
#include <ndcuda/core/checked_size.hpp>
#include <ndcuda/device/detail/capture.hpp>
#include <ndcuda/device/device.hpp>
#include <ndcuda/jit/raw_kernel.hpp>
#include <ndcuda/memory/detail/buffer.hpp>
#include <ndcuda/random/generator.hpp>
#include <optional>
#include <random>
#include <string>

namespace ndcuda::random::detail {

struct generator_state {
  std::mutex mutex;
  std::uint64_t entropy = 0;
  std::vector<std::uint64_t> spawn_key;
  std::uint64_t jumps = 0;
  std::uint64_t children = 0;
  std::array<std::uint32_t, 2> key{};
  // The offset cell, on the device of the latest draw (it moves with the draws: see move_cell).
  std::shared_ptr<const void> cell_owner;
  std::uint64_t* cell = nullptr;
  int device = -1;
  std::optional<stream> cell_stream;  // where the cell was allocated, so where it is released
  std::optional<stream> last;         // the stream of the previous reservation, to order the next after it
  // The blocks reserved so far, on the host: a reservation that would carry the 64-bit device
  // offset past 2^64 (and so repeat the first draws) is refused. A captured graph's replays advance
  // the device offset without the host (docs/random.md says so).
  std::uint64_t reserved = 0;
};

namespace {

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Each word of (seed, spawn key..., jumps) goes through its own SplitMix64 before mixing in, so
// that related seeds and sibling spawn keys give unrelated keys.
std::array<std::uint32_t, 2> derive_key(std::uint64_t entropy, const std::vector<std::uint64_t>& spawn_key,
                                        std::uint64_t jumps) {
  std::uint64_t h = splitmix64(entropy ^ 0x6E64637564612D31ull);  // "ndcuda-1"
  for (std::uint64_t word : spawn_key) {
    h = splitmix64(h ^ splitmix64(word + 0x632BE59BD9B4E019ull));
  }
  if (jumps != 0) {
    h = splitmix64(h ^ splitmix64(jumps ^ 0x4A554D5053000000ull));  // "JUMPS"
  }
  return {static_cast<std::uint32_t>(h), static_cast<std::uint32_t>(h >> 32)};
}

// Reads the generator's offset into the draw's cell and advances it: one thread, so replays of a
// captured graph run it again and each replay gets the next blocks.
const raw_kernel& advance_kernel() {
  static const raw_kernel k(R"(
extern "C" __global__ void nd_random_advance(unsigned long long* offset, unsigned long long* draw,
                                             unsigned long long blocks) {
  const unsigned long long o = *offset;
  *draw = o;
  *offset = o + blocks;
})",
                            "nd_random_advance");
  return k;
}

// A draw on another device than the cell's: the cell moves there (an 8-byte peer copy ordered
// after the previous advance), so that a generator made anywhere draws on any device and its
// sequence continues exactly where it stood. Later draws on the new device read no other device.
void move_cell(generator_state& g, const stream& s) {
  if (ndcuda::detail::capture_id(s) != 0) {
    throw capture_error("a random generator whose state lives on device " + std::to_string(g.device) +
                        " drew on device " + std::to_string(s.device()) +
                        " while that stream was capturing a graph; its state cannot move inside a capture: draw "
                        "once on device " +
                        std::to_string(s.device()) + " (any size) before nd::capture");
  }
  void* p = nullptr;
  auto owner = ndcuda::detail::allocate_buffer(sizeof(std::uint64_t), s, &p);
  if (g.last) {
    ndcuda::detail::order_after(s, *g.last);  // after the advance that wrote the old cell last
  }
  {
    const device_guard guard(s.device());
    NDCUDA_CUDA_CHECK(cudaMemcpyPeerAsync(p, s.device(), g.cell, g.device, sizeof(std::uint64_t), s.handle()));
  }
  ndcuda::detail::order_after(*g.cell_stream, s);  // the old cell is released only after the copy read it
  g.cell_owner = std::move(owner);
  g.cell = static_cast<std::uint64_t*>(p);
  g.device = s.device();
  g.cell_stream = s;
}

void ensure_cell(generator_state& g, const stream& s) {
  if (g.cell != nullptr) {
    if (g.device != s.device()) {
      move_cell(g, s);
    }
    return;
  }
  if (ndcuda::detail::capture_id(s) != 0) {
    throw capture_error(
        "a random generator drew for the first time while its stream was capturing a graph; its offset lives in "
        "device memory that must exist before capture: draw once from it (any size) before nd::capture");
  }
  void* p = nullptr;
  g.cell_owner = ndcuda::detail::allocate_buffer(sizeof(std::uint64_t), s, &p);
  const device_guard guard(s.device());
  NDCUDA_CUDA_CHECK(cudaMemsetAsync(p, 0, sizeof(std::uint64_t), s.handle()));
  g.cell = static_cast<std::uint64_t*>(p);
  g.device = s.device();
  g.cell_stream = s;
}

}  // namespace

std::shared_ptr<generator_state> make_state(std::uint64_t entropy, std::vector<std::uint64_t> spawn_key,
                                            std::uint64_t jumps) {
  auto g = std::make_shared<generator_state>();
  g->entropy = entropy;
  g->spawn_key = std::move(spawn_key);
  g->jumps = jumps;
  g->key = derive_key(entropy, g->spawn_key, jumps);
  return g;
}

reservation reserve(generator_state& g, std::uint64_t blocks, const stream& s) {
  std::lock_guard lock(g.mutex);
  if (blocks > std::numeric_limits<std::uint64_t>::max() - g.reserved) {
    throw value_error("random draw of " + std::to_string(blocks) + " Philox blocks: the generator has used " +
                      std::to_string(g.reserved) +
                      " of its 2^64 blocks, and its counter would wrap and repeat its first numbers; draw from a "
                      "new generator (g.spawn(1)[0] or g.jumped())");
  }
  ensure_cell(g, s);
  if (g.last && !(*g.last == s)) {
    try {
      ndcuda::detail::order_after(s, *g.last);
    } catch (const capture_error&) {
      // Across a capture's boundary no dependency can be recorded: the earlier reservations
      // must then have run before this one is queued.
      g.last->synchronize();
    }
  }
  void* p = nullptr;
  auto owner = ndcuda::detail::allocate_buffer(sizeof(std::uint64_t), s, &p);
  (void)ndcuda::detail::retain_for_capture(s, g.cell_owner);  // a graph keeps the offset cell it advances
  const launch_config one{dim3(1), dim3(1), 0};
  advance_kernel().launch(one, s, static_cast<unsigned long long*>(static_cast<void*>(g.cell)),
                          static_cast<unsigned long long*>(p), static_cast<unsigned long long>(blocks));
  reservation r{source_param{{g.key[0], g.key[1]}, static_cast<const std::uint64_t*>(p), 0}, std::move(owner), s,
                s.device()};
  g.last = s;
  g.reserved += blocks;
  return r;
}

std::array<std::uint32_t, 2> key_of(const generator_state& g) {
  return g.key;
}

std::vector<std::shared_ptr<generator_state>> spawn(generator_state& g, std::size_t n) {
  if (n > static_cast<std::size_t>(std::numeric_limits<index_t>::max())) {
    throw value_error("spawn(" + std::to_string(n) + "): the count is past int64 (a negative count converted?)");
  }
  check_host_fits(static_cast<index_t>(n), sizeof(generator_state) + 64, "spawn(" + std::to_string(n) + ")");
  std::lock_guard lock(g.mutex);
  std::vector<std::shared_ptr<generator_state>> out;
  out.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<std::uint64_t> key = g.spawn_key;
    key.push_back(g.children++);
    out.push_back(make_state(g.entropy, std::move(key), g.jumps));
  }
  return out;
}

std::shared_ptr<generator_state> jumped(const generator_state& g, std::uint64_t jumps) {
  return make_state(g.entropy, g.spawn_key, g.jumps + jumps);
}

std::uint64_t read_offset(generator_state& g, const stream& s) {
  std::uint64_t value = 0;
  {
    std::lock_guard lock(g.mutex);
    if (g.cell == nullptr) {
      return 0;
    }
    ndcuda::detail::refuse_host_wait(s, "generator::offset");
    if (g.last && !(*g.last == s)) {
      g.last->synchronize();
    }
    device_guard guard(g.device);
    NDCUDA_CUDA_CHECK(cudaMemcpyAsync(&value, g.cell, sizeof value, cudaMemcpyDeviceToHost, s.handle()));
  }
  s.synchronize();
  return value;
}

std::uint64_t entropy_from_os() {
  std::random_device device;
  return (static_cast<std::uint64_t>(device()) << 32) ^ device();
}

void compile_gather_kernels(compute_capability cc);  // shuffling.cpp

void compile_random_kernels(compute_capability cc) {
  advance_kernel().compile(cc);
  compile_gather_kernels(cc);
}

void check_scalar(bool bad, const char* function, const char* what) {
  if (bad) {
    throw value_error(std::string(function) + ": " + what + " (NumPy raises ValueError: " + what +
                      "); pass a valid parameter");
  }
}

}  // namespace ndcuda::random::detail
