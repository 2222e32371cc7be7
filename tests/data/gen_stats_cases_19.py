#!/usr/bin/env python3
"""Writes stats_cases_19.txt: NumPy 2's answers for issue 19's reductions, scans and statistics.

Each row: op | dtype | shape | values | params | outputs, with
  shape   dims by "," ("" for 0-d);  values by " " (nan, inf, -inf; complex as re:im; bool 0/1)
  params  key=value by ";": axis (an int or none), ddof, keepdims (0/1), n, edge_order, dx,
          initial, include_initial (0/1), returned (0/1); array-valued ones (mask, weights,
          prepend, append, to_begin, to_end, x, coords<k>) as dtype/shape/values
  outputs dtype/shape/values by " & " (gradient: one per axis; average returned: two), or
          "error <NumPy exception> <message>" when NumPy raises.
tests/ops/stats_gpu_test.cpp reads it. Run: python3 tests/data/gen_stats_cases_19.py (numpy>=2).
"""
import pathlib
import warnings

import numpy as np

warnings.simplefilter("ignore")


def fmt_value(v, dtype):
    if dtype == np.bool_:
        return "1" if v else "0"
    if np.issubdtype(dtype, np.complexfloating):
        return fmt_value(v.real, np.float64) + ":" + fmt_value(v.imag, np.float64)
    if np.issubdtype(dtype, np.integer):
        return str(int(v))
    v = float(v)
    if np.isnan(v):
        return "nan"
    if np.isinf(v):
        return "inf" if v > 0 else "-inf"
    return repr(v)


def fmt_array(a):
    a = np.asarray(a)
    values = " ".join(fmt_value(v, a.dtype) for v in a.ravel())
    return f"{a.dtype.name}/{','.join(str(d) for d in a.shape)}/{values}"


def row(op, a, params, fn):
    a = np.asarray(a)
    ptext = []
    for k, v in params.items():
        if isinstance(v, np.ndarray):
            ptext.append(f"{k}={fmt_array(v)}")
        elif v is None:
            ptext.append(f"{k}=none")
        else:
            ptext.append(f"{k}={int(v) if isinstance(v, bool) else v}")
    try:
        out = fn()
        outs = list(out) if isinstance(out, (tuple, list)) else [out]
        result = " & ".join(fmt_array(o) for o in outs)
    except Exception as e:  # NumPy raises: the row keeps its exception and message
        result = f"error {type(e).__name__} {e}"
    dims = ",".join(str(d) for d in a.shape)
    values = " ".join(fmt_value(v, a.dtype) for v in a.ravel())
    return f"{op}|{a.dtype.name}|{dims}|{values}|{';'.join(ptext)}|{result}"


nan, inf = np.nan, np.inf
F = np.array([[1.5, nan, -2.0, 4.0], [nan, nan, nan, nan], [0.0, -0.0, inf, 3.0]])
G = np.array([[2.0, -1.0, 0.5], [3.0, 8.0, -4.0]])
I8 = np.array([[127, -128, 5, 3], [100, 100, -1, 0]], np.int8)
I32 = np.array([[7, -3, 2], [2147483647, 1, 0]], np.int32)
B = np.array([[True, False, True], [False, False, True]])
C = np.array([[1 + 2j, nan, 3 - 1j], [0.5j, 2, -1 + 0j]])
E = np.zeros((0, 3))
Z = np.array(2.5)
M4 = np.array([True, False, True, True])
M3 = np.array([[True, False, True], [False, True, True]])

rows = []


def add(op, a, fn, **params):
    rows.append(row(op, a, params, fn))


# 1. nan reductions.
for a in (F, G, C, E, Z, np.array([nan, nan]), I8):
    for axis in (None, 0, -1):
        if a.ndim == 0 and axis is not None:
            continue
        add("nanprod", a, lambda: np.nanprod(a, axis=axis), axis=axis)
        for ddof in (0, 1):
            add("nanvar", a, lambda: np.nanvar(a, axis=axis, ddof=ddof), axis=axis, ddof=ddof)
            add("nanstd", a, lambda: np.nanstd(a, axis=axis, ddof=ddof), axis=axis, ddof=ddof)
        if not np.iscomplexobj(a):
            add("nanargmin", a, lambda: np.nanargmin(a, axis=axis), axis=axis)
            add("nanargmax", a, lambda: np.nanargmax(a, axis=axis), axis=axis)
        if a.ndim > 0:
            add("nancumsum", a, lambda: np.nancumsum(a, axis=axis), axis=axis)
            add("nancumprod", a, lambda: np.nancumprod(a, axis=axis), axis=axis)
add("nanvar", F, lambda: np.nanvar(F, axis=1, keepdims=True), axis=1, keepdims=True)
add("nanargmin", G, lambda: np.nanargmin(G, axis=0, keepdims=True), axis=0, keepdims=True)

# 2. where= and initial=.
for a, m in ((F, M4), (G, M3), (I8, M4), (E, np.array([True, False, True]))):
    for axis in (None, 0, 1):
        for op in ("sum", "prod", "nansum", "nanprod", "any", "all", "mean", "nanmean", "var", "std", "nanvar",
                   "nanstd"):
            fn = getattr(np, op)
            add(op + "_where", a, lambda: fn(a, axis=axis, where=m), axis=axis, mask=m)
        for op in ("min", "max", "nanmin", "nanmax"):
            fn = getattr(np, op)
            add(op + "_where", a, lambda: fn(a, axis=axis, where=m), axis=axis, mask=m)
            add(op + "_where", a, lambda: fn(a, axis=axis, where=m, initial=2), axis=axis, mask=m, initial=2)
            add(op + "_initial", a, lambda: fn(a, axis=axis, initial=-1), axis=axis, initial=-1)
        for op in ("sum", "prod", "nansum", "nanprod"):
            fn = getattr(np, op)
            add(op + "_initial", a, lambda: fn(a, axis=axis, initial=3), axis=axis, initial=3)
add("var_where", G, lambda: np.var(G, axis=1, where=M3, ddof=1), axis=1, mask=M3, ddof=1)
add("nanvar_where", F, lambda: np.nanvar(F, axis=1, where=M4, ddof=1), axis=1, mask=M4, ddof=1)
add("sum_where", G, lambda: np.sum(G, axis=1, where=M3, keepdims=True), axis=1, mask=M3, keepdims=True)
add("sum_where", G, lambda: np.sum(G, where=np.ones((3, 2, 3), bool)), axis=None, mask=np.ones((3, 2, 3), bool))

# 3. average and ptp.
W3 = np.array([1.0, 2.0, 0.5])
for a in (G, I32, F):
    add("average", a, lambda: np.average(a), axis=None)
    add("average", a, lambda: np.average(a, axis=0, returned=True), axis=0, returned=True)
add("average", G, lambda: np.average(G, axis=1, weights=W3, returned=True), axis=1, weights=W3, returned=True)
add("average", I32, lambda: np.average(I32, axis=1, weights=W3), axis=1, weights=W3)
add("average", G, lambda: np.average(G, weights=np.abs(G)), axis=None, weights=np.abs(G))
add("average", G, lambda: np.average(G, axis=0, weights=np.array([1.0, -1.0])), axis=0,
    weights=np.array([1.0, -1.0]))
add("average", G, lambda: np.average(G, axis=1, weights=np.ones(2)), axis=1, weights=np.ones(2))
add("average", G, lambda: np.average(G, weights=np.ones(3)), axis=None, weights=np.ones(3))
for a in (F, G, I8, I32, B, E):
    for axis in (None, 0, 1):
        add("ptp", a, lambda: np.ptp(a, axis=axis), axis=axis)

# 4. cumulative_*, diff, ediff1d, gradient, trapezoid.
for a in (G, I8, B, Z, F[0]):
    for axis in (None, 0, -1):
        if a.ndim == 0 and axis is not None:
            continue
        for inc in (False, True):
            add("cumulative_sum", a, lambda: np.cumulative_sum(a, axis=axis, include_initial=inc), axis=axis,
                include_initial=inc)
            add("cumulative_prod", a, lambda: np.cumulative_prod(a, axis=axis, include_initial=inc), axis=axis,
                include_initial=inc)
for a in (F, G, I8, B, np.array([1, 2, 4, 7, 0], np.uint8), Z, E):
    for n in (0, 1, 2, 5, -1):
        for axis in (0, -1):
            add("diff", a, lambda: np.diff(a, n=n, axis=axis), n=n, axis=axis)
add("diff", G, lambda: np.diff(G, axis=1, prepend=np.array(0.5), append=G[:, :1]), n=1, axis=1,
    prepend=np.array(0.5), append=G[:, :1].copy())
add("diff", G, lambda: np.diff(G, n=2, axis=0, prepend=G), n=2, axis=0, prepend=G)
for a in (G, I8, np.array([], np.float64)):
    add("ediff1d", a, lambda: np.ediff1d(a))
    tb = np.array([9], a.dtype)
    te = np.array([1, 2], a.dtype)
    add("ediff1d", a, lambda: np.ediff1d(a, to_end=te, to_begin=tb), to_end=te, to_begin=tb)
X4 = np.array([0.0, 0.5, 2.0, 2.25])
X3 = np.array([-1.0, 1.0, 4.0])
H = np.array([[1.0, 2.0, 4.0, 7.0], [2.0, -1.0, 0.0, 5.0], [0.5, nan, 1.0, 1.0]])
for a in (H, I32, np.array([1.0, 4.0, 9.0, 16.0, 25.0]), np.array([[1.0, 2.0]]), np.array([3.0])):
    for eo in (1, 2):
        add("gradient", a, lambda: np.gradient(a, edge_order=eo), edge_order=eo)
        if a.ndim == 2:
            add("gradient", a, lambda: np.gradient(a, 0.5, axis=1, edge_order=eo), edge_order=eo, axis=1, dx=0.5)
add("gradient", H, lambda: np.gradient(H, X3, X4), edge_order=1, coords0=X3, coords1=X4)
add("gradient", H, lambda: np.gradient(H, X3, X4, edge_order=2), edge_order=2, coords0=X3, coords1=X4)
add("gradient", H, lambda: np.gradient(H, 2.0, X4, edge_order=2), edge_order=2, dx0=2.0, coords1=X4)
add("gradient", H, lambda: np.gradient(H, X3, axis=1), edge_order=1, axis=1, coords0=X3)
add("gradient", H, lambda: np.gradient(H, edge_order=3), edge_order=3)
for a in (H, I32, np.array([1.0, 4.0, 9.0]), np.array([2.0]), C):
    for axis in (0, -1):
        add("trapezoid", a, lambda: np.trapezoid(a, axis=axis), axis=axis)
        add("trapezoid", a, lambda: np.trapezoid(a, dx=0.25, axis=axis), axis=axis, dx=0.25)
add("trapezoid", H, lambda: np.trapezoid(H, x=X4), axis=-1, x=X4)
add("trapezoid", H, lambda: np.trapezoid(H, x=H * 2, axis=0), axis=0, x=H * 2)

out = pathlib.Path(__file__).with_name("stats_cases_19.txt")
out.write_text("# generated by gen_stats_cases_19.py with NumPy " + np.__version__ + "\n" + "\n".join(rows) + "\n")
print(f"{len(rows)} cases -> {out}")
