/// @file
/// The class ndarray<T> (construction, assignment, shape queries, views, copies); its element writes
/// and host I/O are defined in array/ndarray_writes.hpp and array/ndarray_host_io.hpp, so
/// include <ndcuda/array/ndarray.hpp>. Builds on array/view_math.hpp (layout rules),
/// array/detail/index_dispatch.hpp, memory/detail/buffer.hpp and array/detail/kernels.hpp.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <memory>
#include <ndcuda/array/detail/index_dispatch.hpp>
#include <ndcuda/array/detail/kernels.hpp>
#include <ndcuda/array/detail/list_entry.hpp>
#include <ndcuda/array/view_math.hpp>
#include <ndcuda/core/checked_size.hpp>
#include <ndcuda/core/detail/nvtx.hpp>
#include <ndcuda/core/detail/scalar.hpp>
#include <ndcuda/core/dtype.hpp>
#include <ndcuda/core/error.hpp>
#include <ndcuda/core/promotion.hpp>
#include <ndcuda/device/detail/capture.hpp>
#include <ndcuda/device/stream.hpp>
#include <ndcuda/memory/detail/buffer.hpp>
#include <ndcuda/memory/host_vector.hpp>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace ndcuda {

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
class ndarray : public detail::list_entry<E> {
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
  /// Evaluates `x` into a new C-contiguous array of its operands' broadcast shape. A value of
  /// another dtype converts as NumPy's same_kind rule allows (float64 -> float32, int64 -> int32);
  /// any other conversion (float -> int, complex -> real, int64 -> uint64) is spelled astype<E>().
  template <array_expression X>
  ndarray(const X& x) : ndarray(x.template evaluate<E>()) {  // NOLINT: implicit, as `ndarray<T> d = a + b;`
    refuse_unsafe_cast<X>();
  }

  // ---- assignment to a named array rebinds it (NumPy's `d = x`) -----------------------------------

  /// Rebinds this named handle to `other`'s buffer (NumPy's `d = other`); no element is written.
  ndarray& operator=(const ndarray&) & = default;
  /// Rebinds this named handle, taking `other`'s buffer.
  ndarray& operator=(ndarray&&) & noexcept = default;
  /// `d = a + b;` evaluates into a new array and rebinds d; arrays that shared d's old buffer keep
  /// their values. Inside nd::capture the new array comes from the capture pool.
  template <array_expression X>
  ndarray& operator=(const X& x) & {
    refuse_unsafe_cast<X>();
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
  [[nodiscard]] std::vector<E> to_host() const;

  /// As to_host(), into an nd::host_vector: a std::vector whose elements are not zero-filled
  /// before the copy overwrites them, and whose pages are faulted in by the copy's threads. For
  /// large arrays several times faster than to_host(), whose std::vector must be zeroed serially.
  [[nodiscard]] host_vector<E> to_host_vector() const;

  /// Copies the elements, in C order, to `dst` (size() elements) ordered on `s` after this array's
  /// stream. Asynchronous into pinned memory: `dst` must stay valid until `s` has run the copy.
  /// Into pageable memory it returns once the data is there, and throws capture_error during capture.
  void copy_to_host(E* dst, const ndcuda::stream& s) const;
  /// Copies the elements in C order into host memory at `dst`, on stream().
  void copy_to_host(E* dst) const { copy_to_host(dst, stream_); }

  /// The one element of a size-1 array, on the host (waits for the stream).
  [[nodiscard]] E item() const;

  /// The same data ordered on another stream (of the same device); later operations on the result
  /// run on `s`. The caller orders `s` after this array's pending work (order_after does it).
  [[nodiscard]] ndarray on_stream(const ndcuda::stream& s) const { return ndarray(owner_, base_, layout_, device_, s); }

 private:
  // The one conversion rule for a lazy value becoming this array (docs/differences-from-numpy.md).
  template <class X>
  static constexpr void refuse_unsafe_cast() noexcept {
    static_assert(can_cast_same_kind(std::remove_cvref_t<X>::type(), dtype_of<E>),
                  "this lazy value's dtype converts to the array's only by an unsafe cast (NumPy's same_kind rule "
                  "refuses it: float -> int, complex -> real, signed -> unsigned of the same size...); spell it "
                  "`x.astype<T>()`, as NumPy's out= needs casting='unsafe'");
  }
  template <array_element>
  friend class ndarray;

  // Element writes (the `&&` assignments, assign()): array/ndarray_writes.hpp.
  template <array_element U>
  void assign_elements(const ndarray<U>& other) const;
  void fill_elements(const E& value) const;

  [[nodiscard]] ndarray view(view_layout layout) const {
    return ndarray(owner_, base_, std::move(layout), device_, stream_);
  }

  // Host reads: array/ndarray_host_io.hpp. `what` names the caller in the capture_error that a
  // capturing stream gets.
  template <class Vector>
  Vector read_host(const char* what) const;
  void read_into(E* dst, const char* what) const;

  std::shared_ptr<const void> owner_;
  E* base_;
  view_layout layout_;
  int device_ = 0;
  ndcuda::stream stream_;
};

}  // namespace ndcuda

#pragma GCC visibility pop
