#!/usr/bin/env python3
"""Writes quantile_cases_19.txt: NumPy 2's quantile, percentile, nanquantile, nanpercentile, median
and nanmedian (every method, weak and strong q, several axes, keepdims, NaN, +-inf, empty, 0-d,
integer extremes, bool) with their result dtypes, shapes, values and errors.
tests/linalg/statistics_test.cpp checks ndcuda against it on the GPU.

Each case is four lines:
    case FUNC METHOD WEAK AXIS KEEPDIMS      AXIS is "none" or "0,2"; WEAK 1: q is one Python float
    a DTYPE NDIM DIMS... VALUES...
    q NDIM DIMS... VALUES...
    r DTYPE NDIM DIMS... VALUES...  or  e ERRORTYPE MESSAGE
with integers in decimal, bools as 0/1 and floats as C99 hex floats (float.hex, exact).
Run: python3 tests/data/gen_quantile_cases_19.py (needs numpy>=2).
"""
import pathlib
import warnings

import numpy as np

METHODS = ["inverted_cdf", "averaged_inverted_cdf", "closest_observation", "interpolated_inverted_cdf", "hazen",
           "weibull", "linear", "median_unbiased", "normal_unbiased", "lower", "higher", "midpoint", "nearest"]
OUT = pathlib.Path(__file__).with_name("quantile_cases_19.txt")
rng = np.random.default_rng(19)
lines = []


def fmt(v, dt):
    if dt.kind == "b":
        return "1" if v else "0"
    if dt.kind in "iu":
        return str(int(v))
    if dt.kind == "c":
        return f"{float(v.real).hex()}:{float(v.imag).hex()}"
    return float(v).hex()


def arr_line(tag, a, with_dtype=True):
    a = np.asarray(a)
    head = [tag] + ([a.dtype.name] if with_dtype else []) + [str(a.ndim)] + [str(d) for d in a.shape]
    return " ".join(head + [fmt(v, a.dtype) for v in a.ravel()])


def case(func, a, q=None, method="linear", axis=None, keepdims=False, weak=True):
    a = np.asarray(a)
    axis_text = "none" if axis is None else ",".join(str(x) for x in (axis if isinstance(axis, tuple) else (axis,)))
    lines.append(f"case {func} {method} {1 if weak else 0} {axis_text} {1 if keepdims else 0}")
    lines.append(arr_line("a", a))
    qv = 0.5 if q is None else q
    lines.append(arr_line("q", np.asarray(qv, dtype=np.float64), with_dtype=False))
    f = getattr(np, func)
    kwargs = {"axis": axis, "keepdims": keepdims}
    if func not in ("median", "nanmedian"):
        kwargs["method"] = method
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if func in ("median", "nanmedian"):
                r = f(a, **kwargs)
            else:
                r = f(a, float(qv) if weak else list(np.ravel(qv)) if np.ndim(qv) == 1 else np.asarray(qv), **kwargs)
        lines.append(arr_line("r", np.asarray(r)))
    except Exception as e:  # noqa: BLE001 - the error is the expected result
        lines.append(f"e {type(e).__name__} {e}")


QS = [0.0, 0.1, 0.25, 0.3, 0.5, 0.6, 0.75, 0.9, 1.0]
base = rng.standard_normal((3, 7))
base[1, 3] = base[1, 5]  # a tie
for m in METHODS:
    case("quantile", base, QS, m, axis=1, weak=False)
    case("quantile", base.astype(np.float32), 0.37, m, axis=None)
    case("quantile", base.astype(np.float32), QS, m, axis=0, weak=False)
    ints = rng.integers(-100, 100, (4, 5)).astype(np.int8)
    ints[0, :2] = [-100, 100]  # b - a wraps in int8, as in NumPy's _lerp
    case("quantile", ints, 0.5, m, axis=1)
    case("quantile", ints, [0.25, 0.7], m, axis=0, weak=False)
    big = np.array([np.iinfo(np.int64).max, np.iinfo(np.int64).max - 5, np.iinfo(np.int64).min, 7], np.int64)
    case("quantile", big, 0.4, m)
    withnan = base.copy()
    withnan[0, 2] = np.nan
    withnan[2, :] = np.nan
    case("quantile", withnan, QS, m, axis=1, weak=False)
    case("nanquantile", withnan, QS, m, axis=1, weak=False)
    case("nanquantile", withnan.astype(np.float32), 0.8, m, axis=1)
    for row in ([1.0, np.inf], [-np.inf, 1.0, 2.0], [-np.inf, np.inf], [np.inf, np.inf, 3.0]):
        case("quantile", np.array(row), [0.0, 0.5, 1.0], m, weak=False)
    case("percentile", base, [0.0, 12.5, 50.0, 99.0, 100.0], m, axis=-1, weak=False)
    case("nanpercentile", withnan, 40.0, m, axis=0)
    case("quantile", rng.standard_normal((2, 3, 4)), [[0.2, 0.9]], m, axis=(0, 2), keepdims=True, weak=False)
    case("quantile", np.array(5.0), 0.3, m)
    case("quantile", np.array([2, 9, 4, 4], np.uint8), 0.6, m)

# Several axes, keepdims, q arrays with a shape, percentiles, nan forms, float16 and bool.
x = rng.standard_normal((2, 3, 4))
case("quantile", x, [0.1, 0.5], "linear", axis=(2, 0), weak=False)
case("quantile", x, 0.5, "linear", axis=(0, 1, 2), keepdims=True)
case("quantile", x, 0.5, "linear", axis=(-1, -2))
case("nanquantile", x, [[0.1, 0.5], [0.7, 1.0]], "linear", axis=1, keepdims=True, weak=False)
case("quantile", x.astype(np.float16), 0.3, "linear", axis=2)
case("quantile", x.astype(np.float16), 0.3, "lower", axis=2)
case("quantile", np.array([True, False, True]), 0.5, "lower")
case("quantile", np.array([True, False, True]), 0.5, "linear")

# Medians.
case("median", base, axis=1)
case("median", base.astype(np.float32), axis=0, keepdims=True)
case("median", base)
case("median", x, axis=(0, 2))
case("median", x.astype(np.float16), axis=2)
case("median", np.array([[3, 1, 4, 1], [5, 9, 2, 6]], np.int64), axis=1)
case("median", np.array([np.iinfo(np.int64).max, np.iinfo(np.int64).max], np.int64))
case("median", np.array([True, False, True, True]))
case("median", withnan, axis=1)
case("nanmedian", withnan, axis=1)
case("nanmedian", withnan, axis=0, keepdims=True)
case("median", np.array([1.0, np.inf]))
case("median", np.array([-np.inf, np.inf]))
case("median", np.array([-np.inf, np.inf, 5.0]))
case("nanmedian", np.array([-np.inf, np.nan, np.inf]))
case("median", np.array(2.5))

# Empty arrays.
case("quantile", np.zeros(0), 0.5)
case("quantile", np.zeros((0, 3)), 0.5, axis=0)
case("quantile", np.zeros((3, 0)), [0.5, 0.7], axis=0, weak=False)
case("median", np.zeros(0))
case("median", np.zeros((2, 0)), axis=1)
case("nanquantile", np.zeros(0), 0.5)
case("nanmedian", np.zeros(0))
case("nanquantile", np.zeros(0, np.int64), 0.5)

# Errors.
case("quantile", base, 1.5)
case("quantile", base, -0.1)
case("quantile", base, float("nan"))
case("percentile", base, 100.5)
case("nanpercentile", base, [10.0, -1.0], weak=False)
case("quantile", base, 0.5, axis=(1, 1))
case("quantile", base, 0.5, axis=2)
case("quantile", np.array([1 + 2j, 3j]), 0.5)

OUT.write_text("\n".join(lines) + "\n")
print(f"wrote {len([x for x in lines if x.startswith('case')])} cases to {OUT}")

# norm_cov_cases_19.txt: numpy.linalg.norm with every ord, axis and keepdims; cov and corrcoef.
#     norm ORD AXIS KEEPDIMS                                  ORD: none, fro, nuc or a number
#     cov ROWVAR BIAS DDOF FWEIGHTS AWEIGHTS HASY              none or comma-separated values
#     corrcoef ROWVAR HASY
# then "a ..." (and "y ..." when HASY is 1) and "r ..." or "e ...", as above.
lines = []


def result(f):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            lines.append(arr_line("r", np.asarray(f())))
    except Exception as e:  # noqa: BLE001
        lines.append(f"e {type(e).__name__} {e}")


def norm_case(x, ord=None, axis=None, keepdims=False):
    o = "none" if ord is None else ord if isinstance(ord, str) else repr(float(ord))
    ax = "none" if axis is None else ",".join(str(a) for a in (axis if isinstance(axis, tuple) else (axis,)))
    lines.append(f"norm {o} {ax} {1 if keepdims else 0}")
    lines.append(arr_line("a", x))
    result(lambda: np.linalg.norm(x, ord, axis, keepdims))


v = rng.standard_normal(6)
v[2] = 0.0
VORDS = [None, 2, 1, np.inf, -np.inf, 0, 3, 0.5, -1, -2, -0.5, 2.5]
for o in VORDS:
    norm_case(v, o)
    norm_case(rng.standard_normal((3, 4)), o, axis=1)
    norm_case(rng.standard_normal((3, 4)).astype(np.float32), o, axis=0, keepdims=True)
for o in [None, 2, 0, 3, -np.inf]:
    norm_case(rng.integers(-5, 5, 7).astype(np.int64), o)
    norm_case(rng.standard_normal(5) + 1j * rng.standard_normal(5), o)
MORDS = ["fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf]
m = rng.standard_normal((3, 4))
for o in MORDS + [None]:
    norm_case(m, o)
    norm_case(rng.standard_normal((2, 3, 4)), o, axis=(2, 0), keepdims=True)
    norm_case(rng.standard_normal((3, 2)) + 1j * rng.standard_normal((3, 2)), o, axis=(0, 1))
norm_case(rng.standard_normal((2, 3, 4)), None)
norm_case(rng.standard_normal((2, 3, 4)), None, keepdims=True)
norm_case(v, "fro")
norm_case(m, "fro", axis=1)
norm_case(rng.standard_normal((2, 3, 4)), 2)
norm_case(m, 3)
norm_case(m, 2, axis=(0, 0))
norm_case(rng.standard_normal((2, 3, 4)), 2, axis=(0, 1, 2))


def weights_text(w):
    return "none" if w is None else ",".join(repr(float(x)) for x in w)


def cov_case(x, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None):
    lines.append(f"cov {int(rowvar)} {int(bias)} {'none' if ddof is None else ddof} {weights_text(fweights)} "
                 f"{weights_text(aweights)} {0 if y is None else 1}")
    lines.append(arr_line("a", x))
    if y is not None:
        lines.append(arr_line("y", y))
    result(lambda: np.cov(x, y, rowvar, bias, ddof, fweights, aweights))


def corr_case(x, y=None, rowvar=True):
    lines.append(f"corrcoef {int(rowvar)} {0 if y is None else 1}")
    lines.append(arr_line("a", x))
    if y is not None:
        lines.append(arr_line("y", y))
    result(lambda: np.corrcoef(x, y, rowvar))


obs = rng.standard_normal((3, 8))
cov_case(obs)
cov_case(obs.astype(np.float32), rowvar=False)
cov_case(obs, bias=True)
cov_case(obs, ddof=3)
cov_case(obs, fweights=[1, 2, 1, 3, 1, 1, 2, 1])
cov_case(obs, aweights=[0.5, 1, 2, 1, 0.25, 1, 1, 3])
cov_case(obs, fweights=[1, 2, 1, 3, 1, 1, 2, 1], aweights=[0.5, 1, 2, 1, 0.25, 1, 1, 3], ddof=2)
cov_case(obs[0])
cov_case(obs[0], obs[1])
cov_case(obs, obs[:2] * 2)
cov_case(obs.T, obs[:1].T, rowvar=False)
cov_case(rng.integers(-9, 9, (2, 6)).astype(np.int64))
cov_case(obs[:2] + 1j * obs[1:])
cov_case(obs[:, :1])
cov_case(obs, fweights=[1, 2.5, 1, 3, 1, 1, 2, 1])
cov_case(obs, fweights=[1, 2, 1])
cov_case(obs, aweights=[1, -2, 1, 3, 1, 1, 2, 1])
cov_case(rng.standard_normal((2, 2, 2)))
corr_case(obs)
corr_case(obs.T, rowvar=False)
corr_case(obs[0], obs[2])
corr_case(obs[0])
corr_case(obs[:2] + 1j * obs[1:])
corr_case(rng.integers(-9, 9, (3, 5)).astype(np.int64))
pathlib.Path(__file__).with_name("norm_cov_cases_19.txt").write_text("\n".join(lines) + "\n")
print(f"wrote {sum(1 for x in lines if x.split()[0] in ('norm', 'cov', 'corrcoef'))} norm/cov cases")
