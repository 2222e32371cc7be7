/// @file
/// elementwise_kernel<Out(In...)>: a user-written expression applied to every element, compiled
/// with NVRTC per layout variant and device. Builds on jit/launch.hpp and core/{dtype,shape}.hpp.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <array>
#include <memory>
#include <ndcuda/core/detail/internal.hpp>
#include <ndcuda/core/dtype.hpp>
#include <ndcuda/core/shape.hpp>
#include <ndcuda/jit/launch.hpp>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace ndcuda {

/// An operand in device memory: data, shape and strides in elements (empty strides: C-contiguous).
/// The low-level stand-in for ndarray until arrays exist; array_ref<const T> for inputs.
template <class T>
struct array_ref {
  T* data = nullptr;  ///< the first element, in device memory
  shape_t shape;      ///< the extent of each axis
  strides_t strides;  ///< in elements; empty: C-contiguous

  /// An operand at `d` of shape `s` and strides `st` (empty: C-contiguous).
  array_ref(T* d, shape_t s, strides_t st = {}) : data(d), shape(std::move(s)), strides(std::move(st)) {}
  /// A mutable operand read as an input.
  template <class U>
  requires std::is_same_v<const U, T> array_ref(const array_ref<U>& other)
      : data(other.data), shape(other.shape), strides(other.strides) {}
};

namespace jit::detail {

struct NDCUDA_INTERNAL elementwise_state;

struct operand {
  const void* data;
  std::span<const index_t> shape;
  std::span<const index_t> strides;
};

/// `scalars` are the dtypes of the body's s0, s1, ...: kernel parameters whose values each launch
/// passes (`scalars` there points at one host value of each dtype), so values never reach the source.
/// `sources`: per input, empty for an array, else the CUDA type of a computed input (a random draw)
/// whose launch-time "data" is its host parameter block (see src/jit/elementwise_source.hpp).
[[nodiscard]] std::shared_ptr<elementwise_state> make_elementwise_state(std::string body, std::string name, dtype out,
                                                                        std::vector<dtype> in,
                                                                        std::vector<dtype> scalars = {},
                                                                        std::vector<std::string> sources = {});
void launch_elementwise(const elementwise_state& state, index_t n, void* out, const void* const* in, const stream& s,
                        const void* const* scalars = nullptr);
void launch_elementwise(const elementwise_state& state, const operand& out, std::span<const operand> in,
                        const stream& s, const void* const* scalars = nullptr);
void compile_elementwise(const elementwise_state& state, compute_capability cc);

}  // namespace jit::detail

template <class Signature>
class elementwise_kernel;

/// out = f(in...) for every element, like CuPy's ElementwiseKernel:
///
///   nd::elementwise_kernel<float(float, float)> scaled_sum("out = x * 3.5f + y * y", "scaled_sum");
///   scaled_sum(n, out, a, b, stream);                                // dense device arrays
///   scaled_sum({out, {4, 5}}, {a, {4, 5}}, {b, {5}}, stream);        // b broadcast along axis 0
///
/// In the body, the inputs are in0, in1, ... and also x, y, z, w for the first four; the output
/// is `out` (write it). They are the element types spelled for CUDA: float, double, int, ...,
/// __half, __nv_bfloat16, ndcuda::complex<float> (std::complex<float> on the host, same layout and
/// operators). The body is one or more statements; a trailing ';' is optional. `name` (a C
/// identifier) names the kernel in errors and profiler ranges.
///
/// Inputs broadcast to the output's shape by NumPy's rules. Each layout (contiguous with aligned
/// vectors, or strided of some dimensionality after merging contiguous dimensions; 32- or 64-bit
/// indexing) is its own small kernel, compiled on first use per device. Copies share state.
template <class Out, class... In>
class elementwise_kernel<Out(In...)> {
  static_assert(array_element<Out> && (array_element<In> && ...),
                "elementwise_kernel types must be ndcuda element types (bool, integers, float16/bfloat16, "
                "float, double, std::complex<float/double>)");

 public:
  /// A kernel computing `body` for each element, named `name` (a C identifier) in errors and profiles.
  elementwise_kernel(std::string body, std::string name)
      : state_(
            jit::detail::make_elementwise_state(std::move(body), std::move(name), dtype_of<Out>, {dtype_of<In>...})) {}

  /// Dense arrays of `n` elements each, on `s`'s device.
  void operator()(index_t n, Out* out, const In*... in, const stream& s) const {
    const std::array<const void*, sizeof...(In) + 1> inputs = {static_cast<const void*>(in)...};
    jit::detail::launch_elementwise(*state_, n, out, inputs.data(), s);
  }
  /// The same on the current device's default stream.
  void operator()(index_t n, Out* out, const In*... in) const { (*this)(n, out, in..., default_stream()); }

  /// Any strides; inputs broadcast to out.shape.
  void operator()(const array_ref<Out>& out, const array_ref<const In>&... in, const stream& s) const {
    const std::array<jit::detail::operand, sizeof...(In) + 1> inputs = {
        jit::detail::operand{in.data, in.shape, in.strides}...};
    jit::detail::launch_elementwise(*state_, jit::detail::operand{out.data, out.shape, out.strides},
                                    std::span<const jit::detail::operand>(inputs.data(), sizeof...(In)), s);
  }
  /// The same on the current device's default stream.
  void operator()(const array_ref<Out>& out, const array_ref<const In>&... in) const {
    (*this)(out, in..., default_stream());
  }

  /// Compiles the dense variant for `cc` now, without a device: reports errors in the body early
  /// and fills the disk cache ahead of time.
  void compile(compute_capability cc) const { jit::detail::compile_elementwise(*state_, cc); }

 private:
  std::shared_ptr<jit::detail::elementwise_state> state_;
};

}  // namespace ndcuda

#pragma GCC visibility pop
