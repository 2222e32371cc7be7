// Fuzz target: the CUDA_VISIBLE_DEVICES parser (apply_cuda_visible_devices) over a machine the
// input describes, checking what any result must satisfy: every device exists, is named by its own
// UUID, appears once, and at most one MIG device is visible.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <ndcuda/device/visible_devices.hpp>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace nd = ndcuda;

namespace {

// Reads the input front to back; past its end, zeros.
class input {
 public:
  input(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  std::uint8_t byte() { return at_ < size_ ? data_[at_++] : 0; }
  std::string rest() {
    std::string s(reinterpret_cast<const char*>(data_) + at_, size_ - at_);
    at_ = size_;
    return s;
  }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t at_ = 0;
};

// A UUID whose first 8 digits come from the input, so that prefixes of different devices
// collide as often as the fuzzer likes; the rest keeps each device's UUID distinct.
std::string make_uuid(const char* kind, input& in, int gpu, int mig) {
  static constexpr char hex[] = "0123456789abcdef";
  std::string uuid = kind;
  for (int i = 0; i < 4; ++i) {
    const std::uint8_t b = in.byte();
    uuid += hex[b >> 4];
    uuid += hex[b & 0xf];
  }
  uuid += "-0000-0000-0000-";
  char tail[13];
  std::snprintf(tail, sizeof tail, "%06x%06x", static_cast<unsigned>(gpu), static_cast<unsigned>(mig + 1));
  return uuid + tail;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  input in(data, size);
  const std::uint8_t shape = in.byte();
  const int gpus = shape % 9;
  const bool unset = (shape & 0x80) != 0;
  std::vector<nd::physical_device> physical(static_cast<std::size_t>(gpus));
  for (int g = 0; g < gpus; ++g) {
    const std::uint8_t layout = in.byte();
    auto& gpu = physical[static_cast<std::size_t>(g)];
    gpu.uuid = make_uuid("GPU-", in, g, -1);
    gpu.mig_enabled = (layout & 0x10) != 0;
    for (int m = 0; m < (layout & 0x3); ++m) {
      gpu.mig_uuids.push_back(make_uuid("MIG-", in, g, m));
    }
  }
  const std::string env = in.rest();  // may hold NUL bytes: the variable ends at the first
  const auto visible = nd::apply_cuda_visible_devices(unset ? nullptr : env.c_str(), physical);

  std::set<std::pair<int, int>> seen;
  int migs = 0;
  for (const nd::visible_device& d : visible) {
    if (d.physical_index < 0 || d.physical_index >= gpus) {
      __builtin_trap();
    }
    const auto& gpu = physical[static_cast<std::size_t>(d.physical_index)];
    if (d.mig_index < -1 || d.mig_index >= static_cast<int>(gpu.mig_uuids.size())) {
      __builtin_trap();
    }
    const std::string& expected = d.mig_index < 0 ? gpu.uuid : gpu.mig_uuids[static_cast<std::size_t>(d.mig_index)];
    if (d.uuid != expected || !seen.insert({d.physical_index, d.mig_index}).second) {
      __builtin_trap();
    }
    // A GPU in MIG mode is never visible whole, and one process sees at most one MIG device.
    if (d.mig_index < 0 && (gpu.mig_enabled || !gpu.mig_uuids.empty())) {
      __builtin_trap();
    }
    migs += d.mig_index >= 0 ? 1 : 0;
  }
  if (migs > 1 || visible.size() > static_cast<std::size_t>(gpus)) {
    __builtin_trap();
  }
  return 0;
}
