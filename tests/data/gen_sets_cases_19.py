#!/usr/bin/env python3
"""Cases for tests/ops/sets_gpu_test.cpp (issue 19): sort/argsort with axis=None, lexsort, isin and
the set functions, and NumPy's complex order (comparisons, maximum/minimum/fmax/fmin, max/min,
argmax/argmin, sort, argsort, unique, searchsorted). Run: python3 gen_sets_cases_19.py >
sets_cases_19.txt (NumPy 2). One case per line, fields separated by '|':
  name|option|a dtype|a shape|a values|b dtype|b shape|b values|result dtype|result shape|result values
Shapes are comma-separated ('' is 0-d), values space-separated ('%.17g'; complex 're:im')."""
import numpy as np

nan, inf = np.nan, np.inf


def fmt(x):
    if np.iscomplexobj(x):
        return "%.17g:%.17g" % (x.real, x.imag)
    if isinstance(x, (bool, np.bool_)):
        return "1" if x else "0"
    if isinstance(x, (np.integer, int)):
        return str(int(x))
    return "%.17g" % x


def arr(a):
    a = np.asarray(a)
    return "%s|%s|%s" % (a.dtype.name, ",".join(map(str, a.shape)), " ".join(fmt(v) for v in a.ravel()))


def case(name, opt, a, b, r):
    b = np.zeros(0, dtype=np.asarray(a).dtype) if b is None else b
    print("%s|%s|%s|%s|%s" % (name, opt, arr(a), arr(b), arr(r)))


floats = np.array([3.5, -0.0, nan, 0.0, -inf, 2.0, inf, -nan, 2.0, -1e300, 1e-310], dtype=np.float64)
f32 = np.array([[1.5, nan, -2.0], [0.0, -0.0, inf]], dtype=np.float32)
i64 = np.array([np.iinfo(np.int64).max, 0, np.iinfo(np.int64).min, -1, 0, 5], dtype=np.int64)
i8 = np.array([[127, -128, 3], [3, 0, -1]], dtype=np.int8)
u8 = np.array([255, 0, 7, 7, 200], dtype=np.uint8)
bools = np.array([True, False, True], dtype=np.bool_)
cplx = np.array([complex(nan, 1), 1 + 1j, complex(1, nan), complex(nan, nan), 2 + 0j, complex(nan, 0),
                 complex(0, nan), 1 + 1j, complex(-0.0, 0), complex(0, -0.0), complex(-inf, 3), complex(1, -inf),
                 1 - 1j, complex(inf, nan)], dtype=np.complex128)

# sort / argsort with axis=None (flattened); 0-d and empty too.
for a in [floats.reshape(1, 11), f32, i8, i64, u8, bools, np.array(2.5), np.zeros((0, 3)), cplx.reshape(2, 7),
          cplx.astype(np.complex64)]:
    case("sort_none", "", a, None, np.sort(a, axis=None))
    case("argsort_none", "", a, None, np.argsort(a, axis=None, kind="stable"))

# Complex sort/argsort along an axis.
for a in [cplx.reshape(2, 7), cplx.astype(np.complex64).reshape(7, 2)]:
    for axis in (0, 1):
        case("sort_axis", str(axis), a, None, np.sort(a, axis=axis))
        case("argsort_axis", str(axis), a, None, np.argsort(a, axis=axis, kind="stable"))

# lexsort: keys as rows of a 2-d array (b primary: a is keys[0], b keys[1]).
k0 = np.array([1.0, nan, 1.0, -0.0, 0.0, 3.0, nan], dtype=np.float64)
k1 = np.array([2.0, 2.0, 1.0, 2.0, 2.0, nan, 1.0], dtype=np.float64)
case("lexsort", "", k0, k1, np.lexsort((k0, k1)))
j0 = np.array([5, 3, 9, 1, 1, 3], dtype=np.int64)
j1 = np.array([np.iinfo(np.int64).min, 0, 0, np.iinfo(np.int64).max, 0, 0], dtype=np.int64)
case("lexsort", "", j0, j1, np.lexsort((j0, j1)))
case("lexsort", "", cplx[:7], cplx[7:], np.lexsort((cplx[:7], cplx[7:])))
m0 = np.array([[1.0, 0.0, 2.0, 2.0], [2.0, 2.0, 1.0, nan]])
m1 = np.array([[0.0, 0.0, 1.0, 0.0], [1.0, 0.0, 0.0, 1.0]])
case("lexsort", "", m0, m1, np.lexsort((m0, m1)))  # 2-d keys: along the last axis
rows = np.array([[3, 1, 2, 1], [0, 0, 0, -1], [5, 5, 4, 4]], dtype=np.int32)
case("lexsort_rows", "", rows, None, np.lexsort(rows))  # a 2-d array: its rows are the keys

# isin and the set functions (same dtype pairs, and mixed ones that promote).
set_pairs = [
    (np.array([1.0, nan, 2.0, -0.0, inf, 2.0, 5.0]), np.array([nan, 0.0, 2.0, inf, 7.0])),
    (np.array([[3, 1], [1, 2]], dtype=np.int64), np.array([1, 1, 9, np.iinfo(np.int64).min], dtype=np.int64)),
    (i8, np.array([3, -128, 100], dtype=np.int8)),
    (u8, np.array([7, 255], dtype=np.uint8)),
    (np.array([1, 2, 3], dtype=np.int32), np.array([2.0, 2.5, nan])),
    (np.array(2.0), np.array([2.0, 3.0])),
    (np.zeros(0), np.array([1.0, 2.0])),
    (np.array([1.0, 2.0]), np.zeros(0)),
    (np.array([nan, nan, 1.0]), np.array([nan, 1.0])),
    (cplx, np.array([1 + 1j, complex(nan, 1), 0j, complex(1, nan), 2 + 0j])),
    (bools, np.array([False])),
]
for a, b in set_pairs:
    for assume in (False, True):
        for invert in (False, True):
            case("isin", "%d%d" % (assume, invert), a, b, np.isin(a, b, assume_unique=assume, invert=invert))
    case("union1d", "", a, b, np.union1d(a, b))
    case("intersect1d", "0", a, b, np.intersect1d(a, b))
    r, ia, ib = np.intersect1d(a, b, return_indices=True)
    case("intersect1d_indices_a", "", a, b, ia)
    case("intersect1d_indices_b", "", a, b, ib)
    case("setdiff1d", "0", a, b, np.setdiff1d(a, b))
    case("setxor1d", "0", a, b, np.setxor1d(a, b))
ua, ub = np.array([3.0, 1.0, -2.0]), np.array([1.0, 5.0])
case("intersect1d", "1", ua, ub, np.intersect1d(ua, ub, assume_unique=True))
case("setdiff1d", "1", ua, ub, np.setdiff1d(ua, ub, assume_unique=True))
case("setxor1d", "1", ua, ub, np.setxor1d(ua, ub, assume_unique=True))

# Complex unique and searchsorted (NumPy's sort order: NaNs last, [R+Rj, R+nanj, nan+Rj, nan+nanj]).
for c in [cplx, cplx.astype(np.complex64)]:
    case("unique", "", c, None, np.unique(c))
    s = np.sort(c)
    v = np.array([complex(5, nan), complex(nan, -1), 3 + 0j, 1 + 1j, complex(nan, nan), complex(-inf, 0),
                  complex(0, 0), complex(-0.0, -0.0)], dtype=c.dtype)
    case("searchsorted", "left", s, v, np.searchsorted(s, v, side="left"))
    case("searchsorted", "right", s, v, np.searchsorted(s, v, side="right"))

# Complex comparisons and extremes, every pair of a small set with NaN parts, zeros and infinities.
with np.errstate(invalid="ignore"):
    pts = np.array([1 + 1j, 1 + 2j, 2 - 5j, complex(1, nan), complex(nan, 1), complex(-0.0, 0), complex(0, -0.0),
                    complex(inf, 0), complex(-inf, inf), complex(nan, nan)], dtype=np.complex128)
    a = np.repeat(pts, len(pts))
    b = np.tile(pts, len(pts))
    for c in [np.complex128, np.complex64]:
        x, y = a.astype(c), b.astype(c)
        for f in [np.less, np.less_equal, np.greater, np.greater_equal, np.equal, np.maximum, np.minimum, np.fmax,
                  np.fmin]:
            case(f.__name__, "", x, y, f(x, y))
    m = np.array([[1 + 1j, complex(2, nan), 3 + 0j], [complex(0, -0.0), 5 - 1j, 5 + 1j], [-1j, 1j, complex(-inf, 0)],
                  [complex(nan, 1), complex(nan, 0), 1 + 0j]], dtype=np.complex128)
    for c in [np.complex128, np.complex64]:
        x = m.astype(c)
        for name, f in [("max", np.max), ("min", np.min), ("argmax", np.argmax), ("argmin", np.argmin)]:
            case(name, "none", x, None, np.asarray(f(x)))
            case(name, "1", x, None, f(x, axis=1))
