/// @file
/// nd::lazy_array: the members every lazy value shares with ndarray (an expression, a reduction, a
/// product), so that a value that is not computed yet reads like the array it will be. What the
/// node knows (shape, ndim, size, dtype, device, stream) is answered without running anything;
/// the rest evaluates the value once into a new array and asks it (item, to_host, indexing,
/// reshape, transpose, copy, a conversion of a one-element value). Builds on array/ndarray.hpp.
#pragma once

#include <complex>
#include <ndcuda/array/ndarray.hpp>
#include <type_traits>
#include <vector>

namespace ndcuda {

/// The array interface of a lazy value of type `Node` (CRTP). `Node` provides `value_type`,
/// `evaluate<E>()`, `shape()`, `device()` and `stream()`.
template <class Node>
class lazy_array {
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
  /// indexed (`(x - mu)(nd::all, nd::newaxis)`, `nd::sum(m, 0)(mask)`).
  template <class... I>
  [[nodiscard]] decltype(auto) operator()(const I&... index) const {
    return eval()(index...);
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
