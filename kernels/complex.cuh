// ndcuda::complex<T>: the device twin of std::complex<T> (same layout, same operators, the usual
// functions), which the host side of ndcuda maps complex64/complex128 to.
#pragma once

namespace ndcuda {

// Real math is called as ::f below: inside this namespace an unqualified exp(float) would find
// only the complex overloads. User code outside the namespace finds both (ADL for complex).

template <class T>
struct alignas(2 * sizeof(T)) complex {
  T re;
  T im;

  using value_type = T;

  constexpr complex(const T& r = T(), const T& i = T()) : re(r), im(i) {}
  template <class U>
  explicit constexpr complex(const complex<U>& other) : re(T(other.real())), im(T(other.imag())) {}

  constexpr T real() const { return re; }
  constexpr T imag() const { return im; }
  constexpr void real(T v) { re = v; }
  constexpr void imag(T v) { im = v; }

  constexpr complex& operator=(const T& v) {
    re = v;
    im = T();
    return *this;
  }
  constexpr complex& operator+=(const T& v) {
    re += v;
    return *this;
  }
  constexpr complex& operator-=(const T& v) {
    re -= v;
    return *this;
  }
  constexpr complex& operator*=(const T& v) {
    re *= v;
    im *= v;
    return *this;
  }
  constexpr complex& operator/=(const T& v) {
    re /= v;
    im /= v;
    return *this;
  }
  template <class U>
  constexpr complex& operator+=(const complex<U>& z) {
    re += T(z.real());
    im += T(z.imag());
    return *this;
  }
  template <class U>
  constexpr complex& operator-=(const complex<U>& z) {
    re -= T(z.real());
    im -= T(z.imag());
    return *this;
  }
  template <class U>
  constexpr complex& operator*=(const complex<U>& z) {
    const T r = re * T(z.real()) - im * T(z.imag());
    im = re * T(z.imag()) + im * T(z.real());
    re = r;
    return *this;
  }
  template <class U>
  complex& operator/=(const complex<U>& z);
};

// NumPy's complex division, operation for operation (numpy/_core/src/umath/loops.c.src,
// @TYPE@_divide): Smith's algorithm, which scales by the larger component so |z|^2 neither
// overflows nor underflows where the quotient is representable, and, for a zero divisor, each
// component divided by +0 ((1+1j)/0 is inf+infj, (1+0j)/0 is inf+nanj, 0/0 is nan+nanj), where
// the plain formula would give nan+nanj. NaN divisors take the second branch and give NaNs.
template <class T>
template <class U>
complex<T>& complex<T>::operator/=(const complex<U>& z) {
  const T c = T(z.real());
  const T d = T(z.imag());
  const T c_abs = ::fabs(c);
  const T d_abs = ::fabs(d);
  T r;
  T i;
  if (c_abs >= d_abs) {
    if (c_abs == T(0) && d_abs == T(0)) {
      r = re / c_abs;
      i = im / c_abs;
    } else {
      const T ratio = d / c;
      const T scale = T(1) / (c + d * ratio);
      r = (re + im * ratio) * scale;
      i = (im - re * ratio) * scale;
    }
  } else {
    const T ratio = c / d;
    const T scale = T(1) / (d + c * ratio);
    r = (re * ratio + im) * scale;
    i = (im * ratio - re) * scale;
  }
  re = r;
  im = i;
  return *this;
}

// The binary operators are templates over one T, exactly like std::complex's: complex<float> + 2.0
// does not compile on the host, so it does not compile here either.
template <class T>
constexpr complex<T> operator+(const complex<T>& z) {
  return z;
}
template <class T>
constexpr complex<T> operator-(const complex<T>& z) {
  return complex<T>(-z.real(), -z.imag());
}
#define NDCUDA_COMPLEX_BINARY(op)                                              \
  template <class T>                                                           \
  constexpr complex<T> operator op(const complex<T>& a, const complex<T>& b) { \
    complex<T> r = a;                                                          \
    r op## = b;                                                                \
    return r;                                                                  \
  }                                                                            \
  template <class T>                                                           \
  constexpr complex<T> operator op(const complex<T>& a, const T& b) {          \
    complex<T> r = a;                                                          \
    r op## = b;                                                                \
    return r;                                                                  \
  }                                                                            \
  template <class T>                                                           \
  constexpr complex<T> operator op(const T& a, const complex<T>& b) {          \
    complex<T> r(a);                                                           \
    r op## = b;                                                                \
    return r;                                                                  \
  }
NDCUDA_COMPLEX_BINARY(+)
NDCUDA_COMPLEX_BINARY(-)
NDCUDA_COMPLEX_BINARY(*)
#undef NDCUDA_COMPLEX_BINARY
template <class T>
complex<T> operator/(const complex<T>& a, const complex<T>& b) {
  complex<T> r = a;
  r /= b;
  return r;
}
template <class T>
constexpr complex<T> operator/(const complex<T>& a, const T& b) {
  return complex<T>(a.real() / b, a.imag() / b);
}
template <class T>
complex<T> operator/(const T& a, const complex<T>& b) {
  complex<T> r(a);
  r /= b;
  return r;
}

template <class T>
constexpr bool operator==(const complex<T>& a, const complex<T>& b) {
  return a.real() == b.real() && a.imag() == b.imag();
}
template <class T>
constexpr bool operator==(const complex<T>& a, const T& b) {
  return a.real() == b && a.imag() == T();
}
template <class T>
constexpr bool operator==(const T& a, const complex<T>& b) {
  return b == a;
}
template <class T>
constexpr bool operator!=(const complex<T>& a, const complex<T>& b) {
  return !(a == b);
}
template <class T>
constexpr bool operator!=(const complex<T>& a, const T& b) {
  return !(a == b);
}
template <class T>
constexpr bool operator!=(const T& a, const complex<T>& b) {
  return !(a == b);
}

// NumPy 2's order of complex numbers for <, <=, >, >=: lexicographic (real part, then imaginary
// part), and false whenever either operand has a NaN part (its CLT/CLE loops). Sorting orders NaNs
// differently (to the end, src/ops/sort_codec.hpp), as NumPy does.
template <class T>
constexpr bool operator<(const complex<T>& a, const complex<T>& b) {
  return (a.real() < b.real() && a.imag() == a.imag() && b.imag() == b.imag()) ||
         (a.real() == b.real() && a.imag() < b.imag());
}
template <class T>
constexpr bool operator<=(const complex<T>& a, const complex<T>& b) {
  return (a.real() < b.real() && a.imag() == a.imag() && b.imag() == b.imag()) ||
         (a.real() == b.real() && a.imag() <= b.imag());
}
template <class T>
constexpr bool operator>(const complex<T>& a, const complex<T>& b) {
  return b < a;
}
template <class T>
constexpr bool operator>=(const complex<T>& a, const complex<T>& b) {
  return b <= a;
}

template <class T>
constexpr T real(const complex<T>& z) {
  return z.real();
}
template <class T>
constexpr T imag(const complex<T>& z) {
  return z.imag();
}
template <class T>
constexpr complex<T> conj(const complex<T>& z) {
  return complex<T>(z.real(), -z.imag());
}
template <class T>
constexpr T norm(const complex<T>& z) {
  return z.real() * z.real() + z.imag() * z.imag();
}
template <class T>
T abs(const complex<T>& z) {
  return ::hypot(z.real(), z.imag());
}
template <class T>
T arg(const complex<T>& z) {
  return ::atan2(z.imag(), z.real());
}
template <class T>
complex<T> polar(const T& rho, const T& theta = T()) {
  T s;
  T c;
  ::sincos(theta, &s, &c);
  return complex<T>(rho * c, rho * s);
}
template <class T>
complex<T> proj(const complex<T>& z) {
  if (::isinf(z.real()) || ::isinf(z.imag()))
    return complex<T>(T(__int_as_float(0x7f800000)), ::copysign(T(0), z.imag()));
  return z;
}
template <class T>
complex<T> exp(const complex<T>& z) {
  return polar(::exp(z.real()), z.imag());
}
template <class T>
complex<T> log(const complex<T>& z) {
  return complex<T>(::log(abs(z)), arg(z));
}
template <class T>
complex<T> log10(const complex<T>& z) {
  return log(z) / T(2.302585092994045684017991454684364208);
}
// Principal square root, computed without cancellation (Kahan's formulation).
template <class T>
complex<T> sqrt(const complex<T>& z) {
  const T x = z.real();
  const T y = z.imag();
  if (x == T() && y == T()) return complex<T>(T(), y);
  const T t = ::sqrt((::fabs(x) + abs(z)) / T(2));
  if (x >= T()) return complex<T>(t, y / (T(2) * t));
  return complex<T>(::fabs(y) / (T(2) * t), ::copysign(t, y));
}
/// 0 ** (re + im j) as NumPy gives it: 1 for a zero exponent, 0 when re > 0, else nan+nanj (one of
/// the four complex zeros to a non-positive power has no single answer).
template <class T>
complex<T> zero_to_the(T re, T im) {
  if (re == T() && im == T()) return complex<T>(T(1));
  if (re > T()) return complex<T>();
  const T nan = ::sqrt(T(-1));
  return complex<T>(nan, nan);
}
template <class T>
complex<T> pow(const complex<T>& base, const complex<T>& e) {
  if (base == complex<T>()) return zero_to_the(e.real(), e.imag());
  return exp(e * log(base));
}
template <class T>
complex<T> pow(const complex<T>& base, const T& e) {
  if (base == complex<T>()) return zero_to_the(e, T());
  return polar(::pow(abs(base), e), e * arg(base));
}
template <class T>
complex<T> pow(const T& base, const complex<T>& e) {
  return pow(complex<T>(base), e);
}
template <class T>
complex<T> sinh(const complex<T>& z) {
  T s;
  T c;
  ::sincos(z.imag(), &s, &c);
  return complex<T>(::sinh(z.real()) * c, ::cosh(z.real()) * s);
}
template <class T>
complex<T> cosh(const complex<T>& z) {
  T s;
  T c;
  ::sincos(z.imag(), &s, &c);
  return complex<T>(::cosh(z.real()) * c, ::sinh(z.real()) * s);
}
template <class T>
complex<T> tanh(const complex<T>& z) {
  // sinh(2x) / (cosh(2x) + cos(2y)) and sin(2y) / (...), with the large-|x| limit kept finite.
  if (::fabs(z.real()) > T(20)) return complex<T>(::copysign(T(1), z.real()), ::copysign(T(0), ::sin(T(2) * z.imag())));
  const T d = ::cosh(T(2) * z.real()) + ::cos(T(2) * z.imag());
  return complex<T>(::sinh(T(2) * z.real()) / d, ::sin(T(2) * z.imag()) / d);
}
template <class T>
complex<T> sin(const complex<T>& z) {
  const complex<T> r = sinh(complex<T>(-z.imag(), z.real()));
  return complex<T>(r.imag(), -r.real());
}
template <class T>
complex<T> cos(const complex<T>& z) {
  return cosh(complex<T>(-z.imag(), z.real()));
}
template <class T>
complex<T> tan(const complex<T>& z) {
  const complex<T> r = tanh(complex<T>(-z.imag(), z.real()));
  return complex<T>(r.imag(), -r.real());
}
template <class T>
complex<T> asinh(const complex<T>& z) {
  return log(z + sqrt(z * z + T(1)));
}
template <class T>
complex<T> acosh(const complex<T>& z) {
  return log(z + sqrt(z + T(1)) * sqrt(z - T(1)));
}
template <class T>
complex<T> atanh(const complex<T>& z) {
  // 1 - z spelled per part so that -Im z keeps the sign of a zero: on the branch cuts (Im z = +-0,
  // |Re z| > 1) that sign picks the side, as in NumPy (and so atan's cuts at Re z = +-0).
  const complex<T> one_plus(T(1) + z.real(), z.imag());
  const complex<T> one_minus(T(1) - z.real(), -z.imag());
  return (log(one_plus) - log(one_minus)) / T(2);
}
template <class T>
complex<T> asin(const complex<T>& z) {
  const complex<T> r = asinh(complex<T>(-z.imag(), z.real()));
  return complex<T>(r.imag(), -r.real());
}
template <class T>
complex<T> acos(const complex<T>& z) {
  const complex<T> a = asin(z);
  return complex<T>(T(1.57079632679489661923132169163975144) - a.real(), -a.imag());
}
template <class T>
complex<T> atan(const complex<T>& z) {
  const complex<T> r = atanh(complex<T>(-z.imag(), z.real()));
  return complex<T>(r.imag(), -r.real());
}

}  // namespace ndcuda
