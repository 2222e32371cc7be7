/// @file
/// raw_kernel: a user-written CUDA C++ kernel compiled with NVRTC on first launch on each device,
/// cached in memory and on disk. Builds on jit/launch.hpp (geometry, the non-template launcher).
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <memory>
#include <ndcuda/jit/launch.hpp>
#include <string>
#include <type_traits>
#include <vector>

namespace ndcuda {

/// A kernel from source, like CuPy's RawKernel:
///
///   nd::raw_kernel saxpy(R"(
///     extern "C" __global__ void saxpy(float a, const float* x, float* y, unsigned long long n) {
///       for (auto i = blockIdx.x * 1ull * blockDim.x + threadIdx.x; i < n; i += 1ull * gridDim.x * blockDim.x)
///         y[i] = a * x[i] + y[i];
///     })", "saxpy");
///   saxpy(grid, block, 0, stream, 2.0f, x, y, std::uint64_t{n});
///
/// `name` is the kernel's name expression: the name of an extern "C" kernel, or a template
/// instance such as "scale<float>". `options` are extra NVRTC options ("-DN=4",
/// "--use_fast_math", "-std=c++20"); ndcuda adds -arch for the launching device, -std=c++17 unless
/// given, and -default-device. Compilation happens at the first launch on each device; a broken
/// source throws compile_error with NVRTC's log and the numbered source. Copies share state.
class raw_kernel {
 public:
  /// The kernel `name` in CUDA C++ `source`, compiled with NVRTC `options` at its first launch on a device.
  raw_kernel(std::string source, std::string name, std::vector<std::string> options = {})
      : state_(jit::detail::make_kernel_state(std::move(source), std::move(name), std::move(options))) {}

  /// kernel<<<grid, block, shared_bytes, s>>>(args...) on `s`'s device. Each argument is copied
  /// byte for byte, so its type must match the parameter's: the sizes are checked and a mismatch
  /// (an int for a size_t parameter) throws before anything runs.
  template <class... Args>
  void operator()(dim3 grid, dim3 block, std::size_t shared_bytes, const stream& s, const Args&... args) const {
    launch(launch_config{grid, block, shared_bytes}, s, args...);
  }

  /// As operator(), with the geometry in one launch_config (e.g. from occupancy_config()).
  template <class... Args>
  void launch(const launch_config& config, const stream& s, const Args&... args) const {
    static_assert((std::is_trivially_copyable_v<Args> && ...),
                  "kernel arguments are copied byte by byte: pass pointers and trivially copyable values");
    void* pointers[sizeof...(Args) + 1] = {const_cast<void*>(static_cast<const void*>(std::addressof(args)))...};
    // NOLINTNEXTLINE(bugprone-sizeof-expression): the size of each argument as passed, pointers included
    const std::size_t sizes[sizeof...(Args) + 1] = {sizeof(Args)...};
    jit::detail::launch(*state_, config, s, pointers, sizes, sizeof...(Args));
  }

  /// A 1-d configuration for a grid-stride loop over `work_items` on `s`'s device, from the
  /// occupancy helper (compiles the kernel there if needed).
  [[nodiscard]] launch_config occupancy_config(std::size_t work_items, const stream& s,
                                               std::size_t shared_bytes = 0) const {
    return jit::detail::occupancy_config(*state_, s, work_items, shared_bytes);
  }

  /// Compiles for `cc` now, without a device: reports compile errors early, and fills the disk
  /// cache so a later process on such a GPU skips the compile.
  void compile(compute_capability cc) const { jit::detail::compile_for(*state_, cc); }

  /// Starts compiling for `s`'s device on a background thread, unless the kernel is ready there
  /// (in memory or the disk cache) or NDCUDA_JIT_TIERED=0; returns at once. A launch that comes
  /// while that compile runs waits for it instead of compiling again, so a program that needs
  /// two new kernels in a row compiles the second while the first compiles (or runs).
  void start_compile(const stream& s) const;

  /// The kernel's name expression.
  [[nodiscard]] const std::string& name() const { return jit::detail::kernel_name(*state_); }
  /// The CUDA C++ source.
  [[nodiscard]] const std::string& source() const { return jit::detail::kernel_source(*state_); }

 private:
  std::shared_ptr<jit::detail::kernel_state> state_;
};

}  // namespace ndcuda

#pragma GCC visibility pop
