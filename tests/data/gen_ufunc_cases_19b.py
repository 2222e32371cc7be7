#!/usr/bin/env python3
"""Writes ufunc_cases_19b.txt: NumPy 2's dtypes, values and TypeErrors of the last elementwise
functions of issue 19 (ldexp, frexp, modf, divmod, round with decimals, sign of complex numbers,
angle, nan_to_num, isclose) on every NumPy dtype ndcuda has (bfloat16 has none), over integer
extremes, float specials (+-0, +-inf, NaN, subnormals, max) and complex values, plus the dtype
table of ldexp and cases of allclose, array_equal and array_equiv. tests/ops/ufunc_table_19b_test.cpp
checks ndcuda's dtypes on the host and its values on the GPU against it.

Each line is one of
    name dtype param TypeError                  NumPy refuses the dtype
    name dtype param out1[,out2] a [b] r1 [r2]  one element (b for two operands, r2 for two results)
    ldexp_types x_dtype e_dtype result|TypeError
    whole fn equal_nan shape_a a... | shape_b b... | result      (allclose, array_equal, array_equiv)
where param is decimals (round), deg (angle), "default" or "set" (nan_to_num: nan=1.5, posinf=9,
neginf=-9), "default" or "equal_nan" (isclose), "-" otherwise. Integers are decimal, bools 0/1,
floats C99 hex floats (float.hex, exact), complex numbers re:im; shapes are dims joined by 'x'
('-' for 0-d). Run: python3 tests/data/gen_ufunc_cases_19b.py (needs numpy>=2).
"""
import itertools
import pathlib
import warnings

import numpy as np

INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
FLOATS = [np.float16, np.float32, np.float64]
COMPLEX = [np.complex64, np.complex128]
ALL = [np.bool_] + INTS + FLOATS + COMPLEX


def int_values(t, binary, extremes=True):
    info = np.iinfo(t)
    values = {0, 1, 3, 12, 15, 25}
    if extremes:
        values |= {int(info.max), int(info.min)}
    if not binary:
        values |= {2, 7, 125}
    if info.min < 0:
        values |= {-1, -18, -15, -125}
        if extremes:
            values |= {int(info.min) + 1}
    return sorted(v for v in values if info.min <= v <= info.max)


def float_values(t, binary):
    info = np.finfo(t)
    v = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, float(info.smallest_subnormal), float(info.max), -float(info.max),
         np.inf, -np.inf, np.nan]
    if not binary:
        v += [2.675, -0.125, 1.5, 12.345, -7.25, 1234.5678, 0.999, float(info.tiny), 1e-3, 125.0]
    return v


def complex_values(nonfinite):
    v = [complex(0, 0), complex(1, 0), complex(0, 1), complex(-1.5, 0.5), complex(0.5, -2), complex(2.675, -12.345),
         complex(-0.25, -1), complex(0, -0.0), complex(-0.0, 0)]
    if nonfinite:
        inf, nan = float("inf"), float("nan")
        v += [complex(inf, 0), complex(-inf, 1), complex(0, -inf), complex(inf, inf), complex(nan, 0),
              complex(1, nan), complex(inf, nan)]
    return v


def values(t, binary, nonfinite_complex=False, extremes=True):
    if t is np.bool_:
        return [False, True]
    if np.issubdtype(t, np.integer):
        return int_values(t, binary, extremes)
    if np.issubdtype(t, np.floating):
        return float_values(t, binary)
    return complex_values(nonfinite_complex)


def fmt(v):
    if isinstance(v, (bool, np.bool_)):
        return str(int(v))
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (complex, np.complexfloating)):
        return f"{float(v.real).hex()}:{float(v.imag).hex()}"
    return float(v).hex()


def unary_lines(lines, name, param, fn, t, vals):
    dname = np.dtype(t).name
    a = np.array(vals, dtype=t)
    try:
        r = fn(a)
    except TypeError:
        lines.append(f"{name} {dname} {param} TypeError")
        return
    rs = r if isinstance(r, tuple) else (r,)
    outs = ",".join(x.dtype.name for x in rs)
    for i, x in enumerate(a):
        lines.append(f"{name} {dname} {param} {outs} {fmt(x)} " + " ".join(fmt(x_[i]) for x_ in rs))


def binary_lines(lines, name, param, fn, t, vals, y_vals=None, y_type=None):
    dname = np.dtype(t).name
    a = np.array(vals, dtype=t)
    if y_vals is None:
        pairs = list(itertools.product(range(len(vals)), repeat=2))
        x = np.array([a[i] for i, _ in pairs], dtype=t)
        y = np.array([a[j] for _, j in pairs], dtype=t)
    else:
        x = np.array([v for v in vals for _ in y_vals], dtype=t)
        y = np.array([w for _ in vals for w in y_vals], dtype=y_type)
    try:
        r = fn(x, y)
    except TypeError:
        lines.append(f"{name} {dname} {param} TypeError")
        return
    rs = r if isinstance(r, tuple) else (r,)
    outs = ",".join(v.dtype.name for v in rs)
    for i in range(len(x)):
        lines.append(f"{name} {dname} {param} {outs} {fmt(x[i])} {fmt(y[i])} " + " ".join(fmt(v[i]) for v in rs))


def shape_text(s):
    return "x".join(str(d) for d in s) if s else "-"


def whole_lines(lines):
    nan, inf = np.nan, np.inf
    cases = [
        (np.array([1.0, 2.0, 3.0]), np.array([1.0, 2.0, 3.0 + 1e-7])),
        (np.array([1.0, 2.0, 3.0]), np.array([1.0, 2.0, 3.1])),
        (np.array([1.0, nan, inf]), np.array([1.0, nan, inf])),
        (np.array([1.0, nan]), np.array([1.0, 2.0])),
        (np.array([[1.0, 2.0], [1.0, 2.0]]), np.array([1.0, 2.0])),
        (np.array([1.0, 2.0]), np.array([1.0, 2.0, 3.0])),
        (np.array([[1.0, 2.0]]), np.array([[1.0], [2.0]])),
        (np.zeros((0,)), np.zeros((0,))),
        (np.array(5.0), np.array([5.0, 5.0])),
        (np.array([1e-9, 0.0]), np.array([0.0, 1e-9])),
        (np.array([inf, -inf]), np.array([inf, inf])),
    ]
    for fn in ["allclose", "array_equal", "array_equiv"]:
        for a, b in cases:
            for en in ([False, True] if fn != "array_equiv" else [False]):
                try:
                    if fn == "array_equiv":
                        r = np.array_equiv(a, b)
                    else:
                        r = getattr(np, fn)(a, b, equal_nan=en)
                    res = str(int(bool(r)))
                except ValueError:
                    res = "ValueError"
                lines.append(f"whole {fn} {int(en)} {shape_text(a.shape)} " + " ".join(fmt(v) for v in a.ravel()) +
                             f" | {shape_text(b.shape)} " + " ".join(fmt(v) for v in b.ravel()) + f" | {res}")


def main():
    lines = [f"# numpy {np.__version__}"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exps = [0, 1, -1, 10, -5, 200, -1080, 2000]
        for t in ALL:
            binary_lines(lines, "ldexp", "-", np.ldexp, t, values(t, True, extremes=False), exps, np.int32)
        for t in ALL:
            unary_lines(lines, "frexp", "-", np.frexp, t, values(t, False))
        for t in ALL:
            unary_lines(lines, "modf", "-", np.modf, t, values(t, False))
        for t in ALL:
            binary_lines(lines, "divmod", "-", np.divmod, t, values(t, True))
        for d in [-2, -1, 0, 1, 2, 3]:
            for t in ALL:
                # int64/uint64 extremes round through float64 and overflow back (undefined in C).
                big = t in (np.int64, np.uint64)
                unary_lines(lines, "round", str(d), lambda a: np.round(a, d), t, values(t, False, extremes=not big))
        for t in ALL:
            unary_lines(lines, "sign", "-", np.sign, t, values(t, False, nonfinite_complex=True))
        for deg in [0, 1]:
            for t in ALL:
                unary_lines(lines, "angle", str(deg), lambda a: np.angle(a, deg=bool(deg)), t,
                            values(t, False, nonfinite_complex=True))
        for param in ["default", "set"]:
            kw = {} if param == "default" else {"nan": 1.5, "posinf": 9.0, "neginf": -9.0}
            for t in ALL:
                unary_lines(lines, "nan_to_num", param, lambda a: np.nan_to_num(a, **kw), t,
                            values(t, False, nonfinite_complex=True))
        for param in ["default", "equal_nan"]:
            for t in ALL:
                extra = []
                if np.issubdtype(t, np.floating):
                    extra = [1.0 + 1e-6, 1.0 + 2e-5, 3.0 + 3e-5]
                vals = values(t, True) + extra
                binary_lines(lines, "isclose", param,
                             lambda x, y: np.isclose(x, y, equal_nan=(param == "equal_nan")), t, vals)
        for x in ALL:
            for e in ALL + [np.float32]:
                try:
                    r = np.ldexp(np.ones(1, x), np.ones(1, e)).dtype.name
                except TypeError:
                    r = "TypeError"
                lines.append(f"ldexp_types {np.dtype(x).name} {np.dtype(e).name} {r}")
        whole_lines(lines)
    out = pathlib.Path(__file__).with_name("ufunc_cases_19b.txt")
    out.write_text("\n".join(lines) + "\n")
    print(f"wrote {len(lines) - 1} lines to {out}")


if __name__ == "__main__":
    main()
