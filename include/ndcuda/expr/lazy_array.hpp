/// @file
/// nd::lazy_array: the members every lazy value shares with ndarray (an expression, a reduction, a
/// product), so that a value that is not computed yet reads like the array it will be. What the
/// node knows (shape, ndim, size, dtype, device, stream) is answered without running anything;
/// the rest evaluates the value once into a new array and asks it (item, to_host, indexing,
/// reshape, transpose, copy, a conversion of a one-element value). Builds on array/ndarray.hpp.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <complex>
#include <ndcuda/array/ndarray.hpp>
#include <type_traits>
#include <vector>

namespace ndcuda {
namespace detail {

template <class V>
inline constexpr bool lazy_write = false;

}  // namespace detail

/// What indexing a lazy value gives: its value computed, then indexed (a view of that new array,
/// or the gather of an advanced index): an array to read, never to write, since nothing else sees
/// the temporary a write would change (`(x - mu)(mask) = 0` is refused, saying what to write).
template <array_element T>
class lazy_read : public ndarray<T> {
 public:
  /// The computed, indexed value.
  explicit lazy_read(ndarray<T> value) : ndarray<T>(std::move(value)) {}
  /// Shares the value, as ndarray's copy does.
  lazy_read(const lazy_read&) = default;
  lazy_read& operator=(const lazy_read&) = delete;
  ~lazy_read() = default;

  /// Refused: see the message.
  template <class V>
  void operator=(const V&) const {
    refuse<V>();
  }
  /// Refused, as operator=.
  template <class V>
  void operator+=(const V&) const {
    refuse<V>();
  }
  /// Refused, as operator=.
  template <class V>
  void operator-=(const V&) const {
    refuse<V>();
  }
  /// Refused, as operator=.
  template <class V>
  void operator*=(const V&) const {
    refuse<V>();
  }
  /// Refused, as operator=.
  template <class V>
  void operator/=(const V&) const {
    refuse<V>();
  }

 private:
  template <class V>
  static void refuse() {
    static_assert(detail::lazy_write<V>,
                  "this is a lazy expression (computed when used), so a write into it would change a temporary copy; "
                  "write `nd::ndarray<T> y = x;` or `auto y = nd::eval(x);`, then write into y(...)");
  }
};

/// The array interface of a lazy value of type `Node` (CRTP) with element type `Value`. `Node`
/// provides `value_type` (Value), `evaluate<E>()`, `shape()`, `device()` and `stream()`. It can be an
/// element of a braced list of arrays (detail::list_entry): `nd::stack({t, t * t})`.
template <class Node, array_element Value>
class lazy_array : public detail::list_entry<Value> {
 public:
  /// The value as a new C-contiguous array (computed now: one kernel for an expression).
  template <class N = Node>
  [[nodiscard]] ndarray<typename N::value_type> eval() const {
    return node().template evaluate<typename N::value_type>();
  }
  /// The one value of a one-element result, on the host (computes it and waits).
  template <class N = Node>
  [[nodiscard]] typename N::value_type item() const {
    return eval().item();
  }
  /// The values on the host in C order (computes them and waits).
  template <class N = Node>
  [[nodiscard]] std::vector<typename N::value_type> to_host() const {
    return eval().to_host();
  }
  /// A one-element value converted to T on the host, as `float(np.sum(x))`:
  /// `static_cast<double>(nd::sum(x) / n)` (computes it and waits; throws unless it has one element).
  template <class T>
  requires std::is_arithmetic_v<T> || std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>
  explicit operator T() const { return static_cast<T>(item()); }

  /// The number of axes of the value, known without computing it.
  [[nodiscard]] int ndim() const { return static_cast<int>(node().shape().size()); }
  /// The number of elements of the value, known without computing it.
  [[nodiscard]] index_t size() const { return shape_size(node().shape()); }

  /// Indexing, slicing, masks and index arrays as on an array: the value is computed, then
  /// indexed (`(x - mu)(nd::all, nd::newaxis)`, `nd::sum(m, 0)(mask)`); the result is read-only.
  template <class... I, class N = Node>
  [[nodiscard]] lazy_read<typename N::value_type> operator()(const I&... index) const {
    return lazy_read<typename N::value_type>(ndarray<typename N::value_type>(eval()(index...)));
  }
  /// The value with a new shape (computed first; a view of that new array).
  template <class N = Node>
  [[nodiscard]] ndarray<typename N::value_type> reshape(const shape_t& shape) const {
    return eval().reshape(shape);
  }
  /// The value with its axes reversed (computed first).
  template <class N = Node>
  [[nodiscard]] ndarray<typename N::value_type> transpose() const {
    return eval().transpose();
  }
  /// The value with its axes permuted (computed first).
  template <class N = Node>
  [[nodiscard]] ndarray<typename N::value_type> transpose(const std::vector<index_t>& axes) const {
    return eval().transpose(axes);
  }
  /// NumPy's .T (computed first).
  template <class N = Node>
  [[nodiscard]] ndarray<typename N::value_type> T() const {
    return eval().transpose();
  }
  /// The value as a new array: a lazy value has no buffer to share, so this is eval().
  template <class N = Node>
  [[nodiscard]] ndarray<typename N::value_type> copy() const {
    return eval();
  }
  /// The value flattened in C order (computed first).
  template <class N = Node>
  [[nodiscard]] ndarray<typename N::value_type> ravel() const {
    return eval().reshape({-1});
  }
  /// The value flattened in C order (computed first).
  template <class N = Node>
  [[nodiscard]] ndarray<typename N::value_type> flatten() const {
    return eval().reshape({-1});
  }

 private:
  [[nodiscard]] const Node& node() const noexcept { return static_cast<const Node&>(*this); }
};

}  // namespace ndcuda

#pragma GCC visibility pop
