#!/usr/bin/env python3
"""Writes ufunc_row_cases.txt: NumPy 2's dtypes, values and TypeErrors of the ufunc rows listed in
UNARY and BINARY below (hypot, arcsinh, ..., fmod, gcd, sinc, i0, ...; a new row of
include/ndcuda/ops/ufuncs.hpp goes there) on every NumPy dtype ndcuda has (bfloat16 has no NumPy
dtype), over integer extremes, float specials (+-0, +-inf, NaN, subnormals, max) and finite complex
values. tests/ops/ufunc_row_cases_test.cpp checks ndcuda's result dtypes and refusals against it,
its device helpers compiled on the host (always), NVRTC's compile of each row (always) and its
kernels on the GPU (when there is one).

Each line is one of
    name dtype TypeError                       NumPy refuses the dtype
    name in_dtype out_dtype a [b] result       one element (b for binary ufuncs)
with integers in decimal, bools as 0/1, floats as C99 hex floats (float.hex, exact) and complex
numbers as re:im. Run: python3 tests/data/gen_ufunc_row_cases.py (needs numpy>=2).
"""
import itertools
import pathlib
import warnings

import numpy as np

# One case-value format for every generated table: the 19b generator's (exact hex floats).
from gen_ufunc_cases_19b import fmt  # noqa: E402  (same directory)

INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
FLOATS = [np.float16, np.float32, np.float64]
COMPLEX = [np.complex64, np.complex128]
ALL = [np.bool_] + INTS + FLOATS + COMPLEX

UNARY = ["arcsinh", "arccosh", "arctanh", "square", "reciprocal", "positive", "signbit", "deg2rad", "rad2deg",
         "spacing", "sinc", "i0", "isposinf", "isneginf", "isreal", "iscomplex", "gelu"]
BINARY = ["hypot", "copysign", "logaddexp", "logaddexp2", "heaviside", "float_power", "fmod", "nextafter", "gcd",
          "lcm"]


def int_values(t, binary):
    info = np.iinfo(t)
    values = {0, 1, 3, 12, int(info.max), int(info.min)}
    if not binary:
        values |= {2, 7, int(info.max) - 1}
    if info.min < 0:
        values |= {-1, -18, int(info.min) + 1}
        if not binary:
            values |= {-2, -3}
    return sorted(values)


def float_values(t, binary):
    info = np.finfo(t)
    v = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, float(info.smallest_subnormal), float(info.max), -float(info.max),
         np.inf, -np.inf, np.nan]
    if not binary:  # domain edges of arccosh/arctanh, integers and halves for sinc, a large i0
        v += [-0.5, 1.5, 2.0, 10.0, -0.75, 0.999, 100.0, -7.25, 30.0, float(info.tiny), 1e-3]
    return v


def complex_values():
    return [complex(0, 0), complex(1, 0), complex(0, 1), complex(-1.5, 0.5), complex(0.5, -2), complex(2, 2),
            complex(-0.25, -1)]


# Non-finite complex inputs only where the result is a plain test or copy: NumPy's complex functions
# follow C99 Annex G at infinities and NaN, which ndcuda's complex formulas do not model
# (docs/differences-from-numpy.md).
NONFINITE_COMPLEX = {"isreal", "iscomplex", "positive"}


def values(t, binary, name=""):
    if t is np.bool_:
        return [False, True]
    if np.issubdtype(t, np.integer):
        return [v for v in int_values(t, binary) if well_conditioned(name, v)]
    if np.issubdtype(t, np.floating):
        return [v for v in float_values(t, binary) if well_conditioned(name, v)]
    extra = []
    if name in NONFINITE_COMPLEX:
        inf = float("inf")
        extra = [complex(inf, 0), complex(0, -inf), complex(float("nan"), 0), complex(1, float("nan"))]
    return complex_values() + extra


def well_conditioned(name, v):
    """gelu below -1 computes 1 + tanh(...) near -1, where an ulp of tanh (NumPy's, the host's and
    CUDA's differ there) is many ulps of the result: such inputs compare no implementation."""
    return name != "gelu" or not (-1e30 < v < -1)


def gelu(a):
    """Not a NumPy function: the tanh approximation in the order the kernel computes it, in the
    row's float type (float_of: int8 -> float16, ...), float16 in float32 rounded once, as ndcuda."""
    out = np.result_type(a.dtype, np.float16)
    if np.issubdtype(a.dtype, np.complexfloating):
        raise TypeError("gelu of complex")
    c = np.dtype(np.float32) if out == np.float16 else out
    x = a.astype(out).astype(c)
    k = c.type
    r = k(0.5) * x * (k(1) + np.tanh(k(0.7978845608028654) * (x + k(0.044715) * x * x * x)))
    return r.astype(out)




def call(name, *args):
    return gelu(*args) if name == "gelu" else getattr(np, name)(*args)


def main():
    lines = [f"# numpy {np.__version__}"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in UNARY + BINARY:
            binary = name in BINARY
            for t in ALL:
                dname = np.dtype(t).name
                vals = values(t, binary, name)
                a = np.array(vals, dtype=t)
                try:
                    if binary:
                        pairs = list(itertools.product(range(len(vals)), repeat=2))
                        x = np.array([a[i] for i, _ in pairs], dtype=t)
                        y = np.array([a[j] for _, j in pairs], dtype=t)
                        r = call(name, x, y)
                        for xi, yi, ri in zip(x, y, r):
                            lines.append(f"{name} {dname} {r.dtype.name} {fmt(xi)} {fmt(yi)} {fmt(ri)}")
                    else:
                        r = call(name, a)
                        for xi, ri in zip(a, r):
                            lines.append(f"{name} {dname} {r.dtype.name} {fmt(xi)} {fmt(ri)}")
                except TypeError:
                    lines.append(f"{name} {dname} TypeError")
    out = pathlib.Path(__file__).with_name("ufunc_row_cases.txt")
    out.write_text("\n".join(lines) + "\n")
    print(f"wrote {len(lines) - 1} lines to {out}")


if __name__ == "__main__":
    main()
