// Integer ufunc helpers: the shifts (NumPy's results for counts past the width, where C++ has
// undefined behaviour), nd_invert (bitwise not; logical not of bool), nd_gcd and nd_lcm. Builds on
// ufuncs_common.cuh (traits).
#pragma once

#include "ndcuda/ufuncs_common.cuh"

namespace ndcuda {

// Shifts by at least the width give 0 (or -1 for a negative value shifted right), as NumPy does,
// instead of C++'s undefined behaviour; negative counts behave like too-large ones.
template <class T>
__forceinline__ T nd_left_shift(T a, T b) {
  if (b < T(0) || b >= T(detail::bits_of<T>::value)) return T(0);
  return T(a << b);
}
template <class T>
__forceinline__ T nd_right_shift(T a, T b) {
  if (b < T(0) || b >= T(detail::bits_of<T>::value)) return (a < T(0)) ? T(-1) : T(0);
  return T(a >> b);
}
__forceinline__ bool nd_invert(bool a) {
  return !a;
}
template <class T>
__forceinline__ T nd_invert(T a) {
  return T(~a);
}

// gcd/lcm of integers, by Euclid on magnitudes in the unsigned type of the same width, so MIN has
// a magnitude; the result wraps back to T as NumPy's (gcd(MIN, 0) == MIN for signed types).
template <class T>
__forceinline__ T nd_gcd(T a, T b) {
  using U = unsigned long long;  // 0 - MIN wraps to 2^(bits-1) after the mask
  U x = a < T(0) ? U(0) - U(a) : U(a);
  U y = b < T(0) ? U(0) - U(b) : U(b);
  const U mask = detail::bits_of<T>::value < 64 ? (U(1) << (detail::bits_of<T>::value % 64)) - U(1) : ~U(0);
  x &= mask;
  y &= mask;
  while (y != U(0)) {
    const U r = x % y;
    x = y;
    y = r;
  }
  return T(x);
}
// lcm: |a| / gcd * |b| on the magnitudes, wrapped to the width, as NumPy's npy_lcmu.
template <class T>
__forceinline__ T nd_lcm(T a, T b) {
  using U = unsigned long long;
  const U g = U(nd_gcd(a, b));
  U x = a < T(0) ? U(0) - U(a) : U(a);
  U y = b < T(0) ? U(0) - U(b) : U(b);
  const U mask = detail::bits_of<T>::value < 64 ? (U(1) << (detail::bits_of<T>::value % 64)) - U(1) : ~U(0);
  x &= mask;
  y &= mask;
  const U gm = g & mask;
  if (gm == U(0)) return T(0);
  return T((x / gm) * y);
}

}  // namespace ndcuda
