/// @file
/// ndarray<T>: a strided, refcounted view of device memory with NumPy's reference semantics, its
/// views (indexing, reshape, transpose, broadcast) and host I/O. Builds on array/view_math.hpp
/// (layout rules), memory/detail/buffer.hpp (allocation), array/detail/kernels.hpp (copy, fill) and
/// memory/transfer.hpp.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <ndcuda/array/detail/host_read.hpp>
#include <ndcuda/array/detail/kernels.hpp>
#include <ndcuda/array/format.hpp>
#include <ndcuda/array/view_math.hpp>
#include <ndcuda/core/checked_size.hpp>
#include <ndcuda/core/detail/nvtx.hpp>
#include <ndcuda/core/detail/scalar.hpp>
#include <ndcuda/core/dtype.hpp>
#include <ndcuda/core/error.hpp>
#include <ndcuda/device/detail/capture.hpp>
#include <ndcuda/device/stream.hpp>
#include <ndcuda/memory/detail/buffer.hpp>
#include <ndcuda/memory/transfer.hpp>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace ndcuda {

namespace detail {
template <class I>
index_item to_index_item(const I& i) {
  if constexpr (std::is_integral_v<I>) {
    return index_item(static_cast<index_t>(i));
  } else {
    return index_item(i);
  }
}
}  // namespace detail

template <array_element E>
class ndarray;
/// What a(idx) gives for an advanced index (integer arrays, masks): a proxy that gathers when read
/// and scatters when assigned to. Defined in ops/indexing.hpp (include <ndcuda/ndcuda.hpp>).
template <array_element E>
class indexed;
struct static_size;

namespace detail {
/// Whether an index argument is an advanced index (an array, an expression, a host list of
/// integers): then operator() returns nd::indexed<E> instead of a view.
template <class I>
inline constexpr bool is_advanced_index = requires {
  typename I::is_ndcuda_expression;
};
template <class U>
inline constexpr bool is_advanced_index<ndarray<U>> = true;
template <class U, class A>
inline constexpr bool is_advanced_index<std::vector<U, A>> = true;
template <class U, std::size_t N>
inline constexpr bool is_advanced_index<std::span<U, N>> = true;
/// Builds the proxy (ops/indexing.hpp).
template <array_element E, class... I>
indexed<E> make_indexed(const ndarray<E>& source, const I&... index);
/// a(mask, nd::size(k), fill): nd::size (ops/static_size.hpp) among the arguments. The result is a
/// const copy, so that writing to it (which could not reach a) does not compile.
template <class I>
inline constexpr bool is_static_size = std::is_same_v<I, static_size>;
template <array_element E, class... I>
const ndarray<E> make_sized_read(const ndarray<E>& source, const I&... index);  // NOLINT(readability-const-return-type)
}  // namespace detail

/// An expression of ops/ (a + b, nd::sin(a), nd::where(m, a, b)): evaluated, in one fused kernel,
/// when it is assigned to an array. Expressions provide evaluate<E>() and assign_to(ndarray<E>).
template <class X>
concept array_expression = requires {
  typename std::remove_cvref_t<X>::is_ndcuda_expression;
};

/// An n-dimensional array of E in device memory. Copies share the data (like NumPy and CuPy
/// arrays); copy() makes a deep one. Strides are in elements and may be zero or negative. All work
/// on it is ordered on stream(), the stream it was created on. (The template parameter is E rather
/// than T only because the member T() transposes.)
template <array_element E>
class ndarray {
 public:
  /// The element type.
  using value_type = E;

  /// The low-level constructor: `base` is the buffer's start, `layout` is relative to it in
  /// elements, `owner` keeps the memory alive (may be null for memory kept alive elsewhere).
  ndarray(std::shared_ptr<const void> owner, E* base, view_layout layout, int device, ndcuda::stream s)
      : owner_(std::move(owner)), base_(base), layout_(std::move(layout)), device_(device), stream_(std::move(s)) {
    if (layout_.strides.size() != layout_.shape.size()) {
      throw shape_error("ndarray: " + std::to_string(layout_.strides.size()) + " strides given for a shape of " +
                        std::to_string(layout_.shape.size()) + " dimensions");
    }
    // The invariant size() and nbytes() rely on: no negative extent, and the bytes fit int64.
    (void)checked_nbytes(layout_.shape, sizeof(E));
  }

  /// An empty placeholder (shape (0,), no buffer) to assign a real array to later, so that
  /// `std::vector<ndarray<T>>(n)` and `std::optional` work. It touches no device.
  ndarray() : ndarray(nullptr, nullptr, view_layout{{0}, {1}, 0}, 0, detail::placeholder_stream()) {}

  /// Handles have NumPy's name semantics (like libtorch's at::Tensor): copying a handle, or
  /// assigning to a named one, shares the buffer, as `b = a` does in Python. copy() makes a deep
  /// copy. Writes into existing memory are explicit: see the `&&` assignments and assign().
  ndarray(const ndarray&) = default;
  /// Moves the handle; no element is copied.
  ndarray(ndarray&&) noexcept = default;
  ~ndarray() = default;
  /// Evaluates `x` into a new C-contiguous array of its operands' broadcast shape.
  template <array_expression X>
  ndarray(const X& x) : ndarray(x.template evaluate<E>()) {}  // NOLINT: implicit, as `ndarray<T> d = a + b;`

  // ---- assignment to a named array rebinds it (NumPy's `d = x`) -----------------------------------

  /// Rebinds this named handle to `other`'s buffer (NumPy's `d = other`); no element is written.
  ndarray& operator=(const ndarray&) & = default;
  /// Rebinds this named handle, taking `other`'s buffer.
  ndarray& operator=(ndarray&&) & noexcept = default;
  /// `d = a + b;` evaluates into a new array and rebinds d; arrays that shared d's old buffer keep
  /// their values. Inside nd::capture the new array comes from the capture pool.
  template <array_expression X>
  ndarray& operator=(const X& x) & {
    return *this = x.template evaluate<E>();
  }
  // Deleted, so that ported NumPy code fails to compile instead of silently converting: NumPy
  // would rebind the name to another dtype (write `d = other.astype<E>()` for a converted copy,
  // or `d(nd::ellipsis) = other` to write d's elements) or to a scalar (write
  // `d(nd::ellipsis) = 3` or `d.assign(3)` to fill d).
  template <array_element U>
  requires(!std::is_same_v<U, E>) ndarray& operator=(const ndarray<U>&) & = delete;
  template <weak_scalar S>
  ndarray& operator=(const S&) & = delete;

  // ---- assignment to a temporary view writes (NumPy's `d[...] = x`, `a[1:] = a[:-1]`) -------------

  /// Writes `other`'s elements, broadcast to shape() and converted as astype would: no allocation
  /// unless `other` overlaps this view with a different layout (then through a temporary).
  /// A prvalue `other` binds here too: writing elements can throw, so there is deliberately no
  /// (necessarily noexcept) move-assignment from an rvalue view.
  ndarray& operator=(const ndarray& other) && {
    if (this != &other) {  // a view assigned to itself already holds its elements
      assign_elements(other);
    }
    return *this;
  }
  /// Writes `other`'s elements converted to E (as astype would), broadcast to shape().
  template <array_element U>
  requires(!std::is_same_v<U, E>) ndarray& operator=(const ndarray<U>& other) && {
    assign_elements(other);
    return *this;
  }
  /// Evaluates `x` into this view's memory (broadcast to shape()): one kernel, no allocation.
  template <array_expression X>
  ndarray& operator=(const X& x) && {
    x.assign_to(*this);
    return *this;
  }
  /// Writes the weak scalar `value` into every element (NumPy's `d[...] = 3`), on stream(). It
  /// converts as in an expression: an integer that does not fit E throws; a float into an integer
  /// array truncates. A complex scalar needs a complex array (NumPy raises TypeError).
  template <weak_scalar S>
  requires(is_complex(dtype_of<E>) || !detail::is_std_complex<S>) ndarray& operator=(const S& value) && {
    fill_elements(detail::scalar_as<E>(value));
    return *this;
  }

  /// The named spelling of a write: `d.assign(x)` is `d(nd::ellipsis) = x` for an array, an
  /// expression or a scalar. Returns this handle.
  template <class X>
  const ndarray& assign(const X& x) const {
    if constexpr (array_expression<X>) {
      x.assign_to(*this);
    } else if constexpr (detail::is_std_complex<X>) {
      static_assert(is_complex(dtype_of<E>), "a complex value needs a complex array (NumPy raises TypeError)");
      fill_elements(detail::scalar_as<E>(x));
    } else if constexpr (weak_scalar<X>) {
      fill_elements(detail::scalar_as<E>(x));
    } else {
      assign_elements(x);
    }
    return *this;
  }

  friend void swap(ndarray& a, ndarray& b) noexcept {
    using std::swap;
    swap(a.owner_, b.owner_);
    swap(a.base_, b.base_);
    swap(a.layout_, b.layout_);
    swap(a.device_, b.device_);
    swap(a.stream_, b.stream_);
  }

  /// The extent of each axis (NumPy's shape).
  [[nodiscard]] const shape_t& shape() const noexcept { return layout_.shape; }
  /// The step of each axis in elements, not bytes (NumPy's strides / itemsize); may be 0 or negative.
  [[nodiscard]] const strides_t& strides() const noexcept { return layout_.strides; }
  /// Where the first element is, in elements from the buffer's base.
  [[nodiscard]] index_t offset() const noexcept { return layout_.offset; }
  /// Shape, strides and offset together.
  [[nodiscard]] const view_layout& layout() const noexcept { return layout_; }
  /// The number of axes (NumPy's ndim).
  [[nodiscard]] int ndim() const noexcept { return static_cast<int>(layout_.shape.size()); }
  /// The number of elements (NumPy's size): the product of the extents.
  [[nodiscard]] index_t size() const noexcept {  // exact: the constructor checked the bytes fit int64
    index_t n = 1;
    for (index_t d : layout_.shape) {
      n *= d;
    }
    return n;
  }
  /// size() * sizeof(E) (NumPy's nbytes).
  [[nodiscard]] std::size_t nbytes() const noexcept { return static_cast<std::size_t>(size()) * sizeof(E); }
  /// The dtype of E (NumPy's dtype).
  [[nodiscard]] static constexpr dtype type() noexcept { return dtype_of<E>; }
  /// The first element (base + offset).
  [[nodiscard]] E* data() const noexcept { return base_ + layout_.offset; }
  /// The index of the device that holds the memory.
  [[nodiscard]] int device() const noexcept { return device_; }
  /// The stream all work on this array is ordered on.
  [[nodiscard]] const ndcuda::stream& stream() const noexcept { return stream_; }
  /// Whether the elements are C-contiguous (row-major, no gaps), as NumPy's flags.c_contiguous.
  [[nodiscard]] bool is_contiguous() const noexcept {
    // is_c_contiguous throws nothing for well-formed layouts; keep noexcept honest.
    try {
      return is_c_contiguous(layout_.shape, layout_.strides);
    } catch (...) {
      return false;
    }
  }
  /// What keeps the buffer alive (shared by every view of it).
  [[nodiscard]] std::shared_ptr<const void> owner() const noexcept { return owner_; }
  /// The owner without a reference-count increment (for code that only looks at it).
  [[nodiscard]] const std::shared_ptr<const void>& owner_ref() const noexcept { return owner_; }

  // ---- views ------------------------------------------------------------------------------------

  /// NumPy's basic indexing: integers, nd::slice, nd::all, nd::newaxis, nd::ellipsis. Always a view
  /// (an all-integer index gives a 0-d view; item() reads it). With an advanced index among them
  /// (an integer or bool array, an expression such as a > 0, a std::vector of integers) it is
  /// nd::indexed<E> instead (ops/indexing.hpp): read as a copy, written by scatter.
  /// a(mask, nd::size(k), fill) reads exactly k rows (padded with fill) without a host wait; it is
  /// a const copy: writing to it does not compile.
  template <class... I>
  [[nodiscard]] decltype(auto) operator()(const I&... index) const {  // keeps make_sized_read's const
    if constexpr ((detail::is_static_size<I> || ...)) {               // a(mask, nd::size(k), fill): a const copy
      return detail::make_sized_read(*this, index...);
    } else if constexpr ((detail::is_advanced_index<I> || ...)) {
      return detail::make_indexed(*this, index...);
    } else {
      const std::vector<index_item> items = {detail::to_index_item(index)...};
      return view(apply_index(layout_, items));
    }
  }
  /// The view of a basic index given at run time (integers, slices, all, newaxis, ellipsis).
  [[nodiscard]] ndarray index(std::span<const index_item> items) const { return view(apply_index(layout_, items)); }

  /// A view when the strides allow one (NumPy's rule), else a C-contiguous copy. One extent may be -1.
  [[nodiscard]] ndarray reshape(const shape_t& shape) const {
    const shape_t resolved = resolve_reshape(size(), shape);
    if (auto strides = reshape_strides(layout_, resolved)) {
      return view({resolved, *strides, layout_.offset});
    }
    return copy().reshape(resolved);
  }
  /// The view with the axes reversed (NumPy's a.T, a.transpose()).
  [[nodiscard]] ndarray transpose() const { return view(transpose_layout(layout_)); }
  /// The view with the axes permuted as `axes` says (NumPy's a.transpose(axes)).
  [[nodiscard]] ndarray transpose(const std::vector<index_t>& axes) const {
    return view(transpose_layout(layout_, axes));
  }
  /// The view with the axes reversed (NumPy's a.T); a method since T is a type name in C++ templates.
  [[nodiscard]] ndarray T() const { return transpose(); }
  /// The view with axes `a` and `b` exchanged (NumPy's swapaxes).
  [[nodiscard]] ndarray swapaxes(index_t a, index_t b) const { return view(swapaxes_layout(layout_, a, b)); }
  /// The view without its axes of extent 1 (NumPy's squeeze).
  [[nodiscard]] ndarray squeeze() const { return view(squeeze_layout(layout_)); }
  /// The view without the given axes, each of extent 1 (NumPy's squeeze(axis=...)).
  [[nodiscard]] ndarray squeeze(const std::vector<index_t>& axes) const { return view(squeeze_layout(layout_, axes)); }
  /// The view with new axes of extent 1 at `axes` of the result (NumPy's expand_dims).
  [[nodiscard]] ndarray expand_dims(const std::vector<index_t>& axes) const {
    return view(expand_dims_layout(layout_, axes));
  }
  /// A read-only-in-spirit view with zero strides: writing through it writes one element many times.
  [[nodiscard]] ndarray broadcast_to(const shape_t& shape) const { return view(broadcast_layout(layout_, shape)); }
  /// 1-d: a view when contiguous, else a copy.
  [[nodiscard]] ndarray ravel() const { return reshape({-1}); }
  /// 1-d copy, always.
  [[nodiscard]] ndarray flatten() const { return copy().reshape({-1}); }

  // ---- copies -----------------------------------------------------------------------------------

  /// A deep, C-contiguous copy on the same stream and device.
  [[nodiscard]] ndarray copy() const {
    const ndcuda::detail::op_range<"ndarray::copy"> nvtx;
    return astype<E>();
  }

  /// A C-contiguous copy converted to U as NumPy's astype: float to integer truncates toward zero,
  /// anything to bool is `!= 0`, complex to real drops the imaginary part.
  template <array_element U>
  [[nodiscard]] ndarray<std::remove_cv_t<U>> astype() const {
    const ndcuda::detail::op_range<"ndarray::astype"> nvtx;
    using out_t = std::remove_cv_t<U>;
    detail::retain_for_capture(stream_, owner_);
    void* p = nullptr;
    auto owner = detail::allocate_buffer(checked_bytes(size(), sizeof(out_t)), stream_, &p);
    detail::copy_cast(dtype_of<out_t>, p, layout_.shape, {}, dtype_of<E>, data(), layout_.shape, layout_.strides,
                      stream_);
    return ndarray<out_t>(std::move(owner), static_cast<out_t*>(p), contiguous_layout(layout_.shape), device_, stream_);
  }

  // ---- host I/O ---------------------------------------------------------------------------------

  /// The elements in C order, whatever the strides. Waits for the stream (capture_error while it
  /// is capturing a graph); out_of_memory naming the host when the host copy cannot be allocated.
  [[nodiscard]] std::vector<E> to_host() const {
    const ndcuda::detail::op_range<"ndarray::to_host"> nvtx;
    return read_host<std::vector<E>>("to_host()");
  }

  /// As to_host(), into an nd::host_vector: a std::vector whose elements are not zero-filled
  /// before the copy overwrites them, and whose pages are faulted in by the copy's threads. For
  /// large arrays several times faster than to_host(), whose std::vector must be zeroed serially.
  [[nodiscard]] host_vector<E> to_host_vector() const {
    const ndcuda::detail::op_range<"ndarray::to_host_vector"> nvtx;
    return read_host<host_vector<E>>("to_host_vector()");
  }

  /// Copies the elements, in C order, to `dst` (size() elements) ordered on `s` after this array's
  /// stream. Asynchronous into pinned memory: `dst` must stay valid until `s` has run the copy.
  /// Into pageable memory it returns once the data is there, and throws capture_error during capture.
  void copy_to_host(E* dst, const ndcuda::stream& s) const {
    const ndcuda::detail::op_range<"ndarray::copy_to_host"> nvtx;
    if (size() == 0) {
      return;
    }
    detail::order_after(s, stream_);
    detail::retain_for_capture(s, owner_);
    if (is_contiguous()) {
      ndcuda::copy_to_host(dst, data(), nbytes(), s);
    } else {
      // The temporary is released on `s` after the copy, which stream ordering makes safe.
      const ndarray dense = on_stream(s).copy();
      ndcuda::copy_to_host(dst, dense.data(), nbytes(), s);
    }
  }
  /// Copies the elements in C order into host memory at `dst`, on stream().
  void copy_to_host(E* dst) const { copy_to_host(dst, stream_); }

  /// The one element of a size-1 array, on the host (waits for the stream).
  [[nodiscard]] E item() const {
    const ndcuda::detail::op_range<"ndarray::item"> nvtx;
    if (size() != 1) {
      throw shape_error("can only convert an array of size 1 to a C++ scalar (this array has shape " +
                        format_shape(layout_.shape) + ")");
    }
    E value{};
    read_into(&value, "item()");
    return value;
  }

  /// The same data ordered on another stream (of the same device); later operations on the result
  /// run on `s`. The caller orders `s` after this array's pending work (order_after does it).
  [[nodiscard]] ndarray on_stream(const ndcuda::stream& s) const { return ndarray(owner_, base_, layout_, device_, s); }

 private:
  template <array_element>
  friend class ndarray;

  template <array_element U>
  void assign_elements(const ndarray<U>& other) const {
    const ndcuda::detail::op_range<"ndarray::assign"> nvtx;
    if (static_cast<const void*>(&other) == static_cast<const void*>(this)) {
      return;
    }
    check_assignable(other.shape(), shape());  // NumPy's message if it does not fit
    if (size() == 0) {
      return;
    }
    detail::order_after(stream_, other.stream());
    detail::retain_for_capture(stream_, owner_);
    detail::retain_for_capture(stream_, other.owner_);
    if (needs_temporary(reinterpret_cast<std::uintptr_t>(data()), sizeof(E), shape(), strides(),
                        reinterpret_cast<std::uintptr_t>(other.data()), sizeof(U), other.shape(), other.strides())) {
      const ndarray<U> dense = other.on_stream(stream_).copy();
      detail::copy_cast(dtype_of<E>, data(), shape(), strides(), dtype_of<U>, dense.data(), dense.shape(),
                        dense.strides(), stream_);
    } else {
      detail::copy_cast(dtype_of<E>, data(), shape(), strides(), dtype_of<U>, other.data(), other.shape(),
                        other.strides(), stream_);
    }
  }

  void fill_elements(const E& value) const {
    const ndcuda::detail::op_range<"ndarray::fill"> nvtx;
    if (size() == 0) {
      return;
    }
    detail::retain_for_capture(stream_, owner_);
    // The one axis left when extent-1 axes are dropped, if there is only one: a strided fill.
    int axes = 0;
    index_t stride = 1;
    for (std::size_t i = 0; i < layout_.shape.size(); ++i) {
      if (layout_.shape[i] != 1) {
        ++axes;
        stride = layout_.strides[i];
      }
    }
    if (is_contiguous()) {
      detail::fill_pattern(data(), sizeof(E), &value, size(), 1, stream_);
    } else if (axes <= 1) {
      detail::fill_pattern(data(), sizeof(E), &value, size(), stride, stream_);
    } else {
      // A one-element buffer broadcast by the strided copy kernel (writes each element once,
      // or many times through zero strides, always the same value).
      void* p = nullptr;
      const auto one = detail::allocate_buffer(sizeof(E), stream_, &p);
      detail::fill_pattern(p, sizeof(E), &value, 1, 1, stream_);
      detail::copy_cast(dtype_of<E>, data(), shape(), strides(), dtype_of<E>, p, {}, {}, stream_);
    }
  }

  [[nodiscard]] ndarray view(view_layout layout) const {
    return ndarray(owner_, base_, std::move(layout), device_, stream_);
  }

  template <class Vector>
  Vector read_host(const char* what) const {
    const auto n = static_cast<std::size_t>(size());
    Vector out = [&] {
      if constexpr (std::is_same_v<Vector, std::vector<E>>) {
        return detail::zeroed_host_vector<E>(n, what);
      } else {
        return detail::uninitialized_host_vector<E>(n, what);
      }
    }();
    if constexpr (std::is_same_v<std::remove_cv_t<E>, bool>) {
      // std::vector<bool> packs bits: read into bytes, then unpack.
      std::unique_ptr<bool[]> bytes = host_array<bool>(n + 1, what);
      read_into(bytes.get(), what);
      std::copy(bytes.get(), bytes.get() + n, out.begin());
    } else {
      read_into(out.data(), what);
    }
    return out;
  }

  // `what` names the caller in the capture_error that a capturing stream gets.
  void read_into(E* dst, const char* what) const {
    detail::refuse_host_wait(stream_, what);
    if (size() == 0) {
      return;
    }
    const ndarray dense = is_contiguous() ? *this : copy();
    ndcuda::copy_to_host(dst, dense.data(), nbytes(), stream_);
    detail::synchronize_for(stream_, what);
  }

  std::shared_ptr<const void> owner_;
  E* base_;
  view_layout layout_;
  int device_ = 0;
  ndcuda::stream stream_;
};

namespace detail {

/// Copies `a` to the host (waiting) and formats it: `str` picks array_str over array_repr.
template <array_element E>
std::string format_array(const ndarray<E>& a, bool str) {
  refuse_host_wait(a.stream(), "printing an array");
  const std::vector<E> host = a.to_host();
  if constexpr (std::is_same_v<std::remove_cv_t<E>, bool>) {
    std::unique_ptr<bool[]> bytes = host_array<bool>(host.size() + 1, "printing an array");
    std::copy(host.begin(), host.end(), bytes.get());
    const std::span<const bool> values(bytes.get(), host.size());
    return str ? array_str<bool>(values, a.shape()) : array_repr<bool>(values, a.shape());
  } else {
    const std::span<const E> values(host.data(), host.size());
    return str ? array_str<E>(values, a.shape()) : array_repr<E>(values, a.shape());
  }
}

}  // namespace detail

/// NumPy's repr(a) under the thread's print options: "array([1. , 2.5], dtype=float32)". Reads
/// the data back (waits).
template <array_element E>
[[nodiscard]] std::string repr(const ndarray<E>& a) {
  return detail::format_array(a, false);
}
/// NumPy's str(a) under the thread's print options: "[1.  2.5]", a 0-d array as its scalar
/// ("3.0"). Reads the data back (waits).
template <array_element E>
[[nodiscard]] std::string str(const ndarray<E>& a) {
  return detail::format_array(a, true);
}

/// NumPy's repr: array([[1., 2.],\n       [3., 4.]], dtype=float32). Reads the data back (waits).
template <array_element E>
std::ostream& operator<<(std::ostream& os, const ndarray<E>& a) {
  return os << detail::format_array(a, false);
}

/// A view of device memory ndcuda did not allocate (DLPack, CuPy, your own cudaMalloc). `owner`
/// (may be null) is kept alive by the array and its views; `strides` in elements, empty for C
/// order; the stream defaults to default_stream(device).
template <array_element E>
ndarray<E> from_device(E* data, shape_t shape, std::shared_ptr<const void> owner, int device, strides_t strides = {},
                       std::optional<stream> s = std::nullopt) {
  view_layout layout{std::move(shape), std::move(strides), 0};
  (void)checked_nbytes(layout.shape, sizeof(E));  // before c_strides: negative extents, overflow
  if (layout.strides.empty()) {
    layout.strides = c_strides(layout.shape);
  }
  check_view(layout.shape, layout.strides, 0, sizeof(E), "from_device");
  return ndarray<E>(std::move(owner), data, std::move(layout), device, s ? *s : default_stream(device));
}

/// Free-function spellings, as in NumPy.
template <array_element E>
ndarray<E> ascontiguousarray(const ndarray<E>& a) {
  return a.is_contiguous() ? a : a.copy();
}
/// NumPy's reshape: a view when the strides allow one, else a copy (see ndarray::reshape).
template <array_element E>
ndarray<E> reshape(const ndarray<E>& a, const shape_t& shape) {
  return a.reshape(shape);
}
/// NumPy's transpose: the view with the axes reversed.
template <array_element E>
ndarray<E> transpose(const ndarray<E>& a) {
  return a.transpose();
}
/// NumPy's transpose(a, axes): the view with the axes permuted.
template <array_element E>
ndarray<E> transpose(const ndarray<E>& a, const std::vector<index_t>& axes) {
  return a.transpose(axes);
}
/// NumPy's swapaxes: the view with axes `x` and `y` exchanged.
template <array_element E>
ndarray<E> swapaxes(const ndarray<E>& a, index_t x, index_t y) {
  return a.swapaxes(x, y);
}
/// NumPy's squeeze: the view without the axes of extent 1.
template <array_element E>
ndarray<E> squeeze(const ndarray<E>& a) {
  return a.squeeze();
}
/// NumPy's squeeze(a, axis): the view without the given axes of extent 1.
template <array_element E>
ndarray<E> squeeze(const ndarray<E>& a, const std::vector<index_t>& axes) {
  return a.squeeze(axes);
}
/// NumPy's expand_dims: the view with new axes of extent 1.
template <array_element E>
ndarray<E> expand_dims(const ndarray<E>& a, const std::vector<index_t>& axes) {
  return a.expand_dims(axes);
}
/// NumPy's broadcast_to: a view of `shape` with stride 0 along the broadcast axes.
template <array_element E>
ndarray<E> broadcast_to(const ndarray<E>& a, const shape_t& shape) {
  return a.broadcast_to(shape);
}
/// NumPy's ravel: the elements as 1-d, a view when contiguous, else a copy.
template <array_element E>
ndarray<E> ravel(const ndarray<E>& a) {
  return a.ravel();
}

}  // namespace ndcuda
