// The reducers of JIT reductions: what each NumPy reduction accumulates, its identity, how two
// partial results combine, and the final value. Builds on numeric.cuh and ufuncs_core.cuh.
//
// Every reducer R over values V has `double param` (ddof for var/std) and
//   acc identity() const; acc map(const V&, long long index) const;
//   acc combine(const acc&, const acc&) const; O finalize(const acc&, long long count) const;
// combine is commutative and associative (up to rounding), so any grouping of the elements gives
// the same answer; argmin/argmax compare positions to keep NumPy's first-index ties.
#pragma once

#include "ndcuda/numeric.cuh"
#include "ndcuda/ufuncs_core.cuh"

namespace ndcuda {
namespace detail {

template <class T>
struct real_of {
  using type = T;
};
template <class T>
struct real_of<complex<T>> {
  using type = T;
};

// Enumerators, not static members, which would become __device__ variables (ufuncs_common.cuh).
template <class T>
struct is_float_type {
  enum : bool { value = false };
};
template <>
struct is_float_type<float> {
  enum : bool { value = true };
};
template <>
struct is_float_type<double> {
  enum : bool { value = true };
};

// The extremes of each accumulator type: +-infinity for floats, the range's ends for integers.
template <class T>
struct bounds;
template <>
struct bounds<float> {
  static __forceinline__ float lowest() { return -__int_as_float(0x7f800000); }
  static __forceinline__ float highest() { return __int_as_float(0x7f800000); }
  static __forceinline__ float nan() { return __int_as_float(0x7fc00000); }
};
template <>
struct bounds<double> {
  static __forceinline__ double lowest() { return -__longlong_as_double(0x7ff0000000000000LL); }
  static __forceinline__ double highest() { return __longlong_as_double(0x7ff0000000000000LL); }
  static __forceinline__ double nan() { return __longlong_as_double(0x7ff8000000000000LL); }
};
// Complex: the lexicographic extremes (min and max of complex arrays order them so).
template <class T>
struct bounds<complex<T>> {
  static __forceinline__ complex<T> lowest() { return complex<T>(bounds<T>::lowest(), bounds<T>::lowest()); }
  static __forceinline__ complex<T> highest() { return complex<T>(bounds<T>::highest(), bounds<T>::highest()); }
};
#define NDCUDA_INTEGER_BOUNDS(T, LO, HI)                   \
  template <>                                              \
  struct bounds<T> {                                       \
    static __forceinline__ T lowest() { return (T)(LO); }  \
    static __forceinline__ T highest() { return (T)(HI); } \
    static __forceinline__ T nan() { return (T)(0); }      \
  };
NDCUDA_INTEGER_BOUNDS(bool, false, true)
NDCUDA_INTEGER_BOUNDS(signed char, -128, 127)
NDCUDA_INTEGER_BOUNDS(short, -32768, 32767)
NDCUDA_INTEGER_BOUNDS(int, -2147483647 - 1, 2147483647)
NDCUDA_INTEGER_BOUNDS(long long, -9223372036854775807LL - 1, 9223372036854775807LL)
NDCUDA_INTEGER_BOUNDS(unsigned char, 0, 255)
NDCUDA_INTEGER_BOUNDS(unsigned short, 0, 65535)
NDCUDA_INTEGER_BOUNDS(unsigned int, 0, 4294967295u)
NDCUDA_INTEGER_BOUNDS(unsigned long long, 0, 18446744073709551615ull)
#undef NDCUDA_INTEGER_BOUNDS

// NumPy's order: lexicographic for complex numbers.
template <class T>
__forceinline__ bool less(const T& a, const T& b) {
  return a < b;
}
template <class T>
__forceinline__ bool less(const complex<T>& a, const complex<T>& b) {
  return a.real() < b.real() || (a.real() == b.real() && a.imag() < b.imag());
}

// |v| as the real accumulator type A (integers converted first, so |INT_MIN| does not overflow).
template <class A, class V>
__forceinline__ A magnitude(const V& v) {
  return nd_abs(cast<A>(v));
}
template <class A, class T>
__forceinline__ A magnitude(const complex<T>& v) {
  return cast<A>(nd_abs(v));
}
template <class A, class V>
__forceinline__ A squared_magnitude(const V& v) {
  const A a = cast<A>(v);
  return a * a;
}
template <class A, class T>
__forceinline__ A squared_magnitude(const complex<T>& v) {
  const A re = A(v.real()), im = A(v.imag());
  return re * re + im * im;
}
template <class T>
__forceinline__ T squared(const T& v) {
  return v * v;
}
template <class T>
__forceinline__ T squared(const complex<T>& v) {
  return v.real() * v.real() + v.imag() * v.imag();
}

}  // namespace detail

/// sum (and the sum behind mean); NAN_SKIP: nansum (NaN counts as 0); MEAN: divided by the count.
template <class V, class A, class O, bool NAN_SKIP = false, bool MEAN = false>
struct sum_reducer {
  double param;
  __forceinline__ A identity() const { return cast<A>(0); }
  __forceinline__ A map(const V& v, long long) const {
    if (NAN_SKIP && nd_isnan(v)) return cast<A>(0);
    return cast<A>(v);
  }
  __forceinline__ A combine(const A& a, const A& b) const { return a + b; }
  __forceinline__ O finalize(const A& a, long long count) const {
    if (MEAN) return cast<O>(a / cast<A>(count));
    return cast<O>(a);
  }
};

/// prod; NAN_SKIP: nanprod (NaN counts as 1).
template <class V, class A, class O, bool NAN_SKIP = false>
struct prod_reducer {
  double param;
  __forceinline__ A identity() const { return cast<A>(1); }
  __forceinline__ A map(const V& v, long long) const {
    if (NAN_SKIP && nd_isnan(v)) return cast<A>(1);
    return cast<A>(v);
  }
  __forceinline__ A combine(const A& a, const A& b) const { return a * b; }
  __forceinline__ O finalize(const A& a, long long) const { return cast<O>(a); }
};

template <class A>
struct counted_sum {
  A sum;
  long long n;
};

/// nanmean: the sum and the count of the values that are not NaN.
template <class V, class A, class O>
struct nanmean_reducer {
  double param;
  __forceinline__ counted_sum<A> identity() const { return counted_sum<A>{cast<A>(0), 0}; }
  __forceinline__ counted_sum<A> map(const V& v, long long) const {
    if (nd_isnan(v)) return identity();
    return counted_sum<A>{cast<A>(v), 1};
  }
  __forceinline__ counted_sum<A> combine(const counted_sum<A>& a, const counted_sum<A>& b) const {
    return counted_sum<A>{a.sum + b.sum, a.n + b.n};
  }
  __forceinline__ O finalize(const counted_sum<A>& a, long long) const { return cast<O>(a.sum / cast<A>(a.n)); }
};

/// min (MAX false) and max: a NaN wins, as in NumPy.
template <class V, class A, class O, bool MAX>
struct extreme_reducer {
  double param;
  __forceinline__ A identity() const { return MAX ? detail::bounds<A>::lowest() : detail::bounds<A>::highest(); }
  __forceinline__ A map(const V& v, long long) const { return cast<A>(v); }
  __forceinline__ A combine(const A& a, const A& b) const {
    if (nd_isnan(a)) return a;
    if (nd_isnan(b)) return b;
    return (MAX ? a < b : b < a) ? b : a;
  }
  __forceinline__ O finalize(const A& a, long long) const { return cast<O>(a); }
};

/// nanmin and nanmax: NaNs are skipped; an all-NaN slice gives NaN (the float identity is NaN).
template <class V, class A, class O, bool MAX>
struct nan_extreme_reducer {
  double param;
  __forceinline__ A identity() const {
    if (detail::is_float_type<A>::value) return detail::bounds<A>::nan();
    return MAX ? detail::bounds<A>::lowest() : detail::bounds<A>::highest();
  }
  __forceinline__ A map(const V& v, long long) const { return cast<A>(v); }
  __forceinline__ A combine(const A& a, const A& b) const {
    if (nd_isnan(a)) return b;
    if (nd_isnan(b)) return a;
    return (MAX ? a < b : b < a) ? b : a;
  }
  __forceinline__ O finalize(const A& a, long long) const { return cast<O>(a); }
};

/// Norms: ORD 1 (sum |x|), 2 (sqrt of sum |x|^2), 3 (max |x|, ord=inf), -3 (min |x|, ord=-inf).
template <class V, class A, class O, int ORD>
struct norm_reducer {
  double param;
  __forceinline__ A identity() const { return ORD == -3 ? detail::bounds<A>::highest() : A(0); }
  __forceinline__ A map(const V& v, long long) const {
    if (ORD == 2) return detail::squared_magnitude<A>(v);
    return detail::magnitude<A>(v);
  }
  __forceinline__ A combine(const A& a, const A& b) const {
    if (ORD == 1 || ORD == 2) return a + b;
    if (nd_isnan(a)) return a;
    if (nd_isnan(b)) return b;
    return (ORD == 3 ? a < b : b < a) ? b : a;
  }
  __forceinline__ O finalize(const A& a, long long) const {
    if (ORD == 2) return cast<O>(::sqrt(a));
    return cast<O>(a);
  }
};

template <class M, class R>
struct welford {
  long long n;
  M mean;
  R m2;  ///< sum of squared distances to the mean
};

/// var and std (SQRT): Welford's running mean and squared distances, partial results merged by
/// Chan et al.'s formula; `param` is ddof. Stable where E[x^2] - E[x]^2 cancels. NAN_SKIP:
/// nanvar/nanstd, which skip NaNs and, as NumPy's do, give NaN (not inf) where n - ddof <= 0.
template <class V, class M, class O, bool SQRT, bool NAN_SKIP = false>
struct var_reducer {
  typedef typename detail::real_of<M>::type R;
  double param;
  __forceinline__ welford<M, R> identity() const { return welford<M, R>{0, cast<M>(0), R(0)}; }
  __forceinline__ welford<M, R> map(const V& v, long long) const {
    if (NAN_SKIP && nd_isnan(v)) return identity();
    return welford<M, R>{1, cast<M>(v), R(0)};
  }
  __forceinline__ welford<M, R> combine(const welford<M, R>& a, const welford<M, R>& b) const {
    if (a.n == 0) return b;
    if (b.n == 0) return a;
    const long long n = a.n + b.n;
    const M delta = b.mean - a.mean;
    const R fb = R(b.n) / R(n);
    welford<M, R> r;
    r.n = n;
    r.mean = a.mean + delta * cast<M>(fb);
    r.m2 = a.m2 + b.m2 + detail::squared(delta) * R(a.n) * fb;
    return r;
  }
  __forceinline__ O finalize(const welford<M, R>& a, long long) const {
    R d = R(a.n) - R(param);
    if (NAN_SKIP && !(d > R(0))) return cast<O>(detail::bounds<R>::nan());
    // An infinite element makes NumPy's mean infinite (or NaN) and that element's distance to it
    // inf - inf = NaN: the variance is NaN. Welford's merge can end at inf instead.
    if (!nd_isfinite(a.mean)) return cast<O>(detail::bounds<R>::nan());
    if (d < R(0)) d = R(0);
    R v = a.m2 / d;
    if (SQRT) v = ::sqrt(v);
    return cast<O>(v);
  }
};

template <class A>
struct arg_value {
  A value;
  long long index;  ///< -1: no element yet
};

/// argmin (MAX false) and argmax: the first position of the extreme; the first NaN wins.
/// NAN_SKIP: nanargmin/nanargmax, which skip NaNs; an all-NaN slice gives -1, which the host side
/// turns into NumPy's "All-NaN slice encountered".
template <class V, class A, bool MAX, bool NAN_SKIP = false>
struct arg_reducer {
  double param;
  __forceinline__ arg_value<A> identity() const { return arg_value<A>{cast<A>(0), -1}; }
  __forceinline__ arg_value<A> map(const V& v, long long index) const {
    if (NAN_SKIP && nd_isnan(v)) return identity();
    return arg_value<A>{cast<A>(v), index};
  }
  __forceinline__ arg_value<A> combine(const arg_value<A>& a, const arg_value<A>& b) const {
    if (a.index < 0) return b;
    if (b.index < 0) return a;
    const bool an = nd_isnan(a.value), bn = nd_isnan(b.value);
    if (an || bn) {
      if (an && bn) return a.index < b.index ? a : b;
      return an ? a : b;
    }
    if (MAX ? detail::less(a.value, b.value) : detail::less(b.value, a.value)) return b;
    if (MAX ? detail::less(b.value, a.value) : detail::less(a.value, b.value)) return a;
    return a.index < b.index ? a : b;
  }
  __forceinline__ long long finalize(const arg_value<A>& a, long long) const { return a.index; }
};

/// all (ALL true) and any.
template <class V, bool ALL>
struct logical_reducer {
  double param;
  __forceinline__ bool identity() const { return ALL; }
  __forceinline__ bool map(const V& v, long long) const { return cast<bool>(v); }
  __forceinline__ bool combine(bool a, bool b) const { return ALL ? (a && b) : (a || b); }
  __forceinline__ bool finalize(bool a, long long) const { return a; }
};

/// Reducer r folded over the values v... in order (index 0, 1, ...), finalized with their count: a
/// short reduction inlined into an enclosing kernel (expr/inline_reduction.hpp), folded as a
/// thread of the reduction engine folds a short row (C order of the reduced elements).
template <class R, class... V>
__forceinline__ auto nd_fold(const R& r, const V&... v) {
  auto acc = r.identity();
  long long index = 0;
  ((acc = r.combine(acc, r.map(v, index++))), ...);
  return r.finalize(acc, (long long)sizeof...(V));
}

template <class V>
struct count_reducer {
  double param;
  __forceinline__ long long identity() const { return 0; }
  __forceinline__ long long map(const V& v, long long) const { return cast<bool>(v) ? 1 : 0; }
  __forceinline__ long long combine(long long a, long long b) const { return a + b; }
  __forceinline__ long long finalize(long long a, long long) const { return a; }
};

}  // namespace ndcuda
