#!/usr/bin/env python3
"""Writes print_cases_19.txt: NumPy 2's str() and repr() of arrays under print options, for
ndcuda's array_str / array_repr and nd::printoptions (tests/array/print_options_test.cpp).

Each case is
  ### <str|repr> <dtype> <shape...>
  @ <option>=<value> ...        (NumPy's print options; sign=space for ' ', "@" alone: defaults)
  <values in C order: floats as Python reprs, complex as re,im, bools as 0/1; "arange": 0..size-1>
  <NumPy's text, up to the next "###">
Run: python3 tests/data/gen_print_cases_19.py (needs numpy>=2).
"""
import pathlib

import numpy as np


def arrays():
    rng = np.random.default_rng(20261124)
    yield np.array([1.0, 2.5])
    yield np.array([1.0, 2.5], dtype=np.float32)
    yield np.array([[1, 2], [3, 4]])
    yield np.array([True, False])
    yield np.array([True])
    yield np.array([[True, False], [False, True]])
    yield np.array([1 + 2j, 3 - 4.5j])
    yield np.array([complex(np.nan, 1), complex(1, -np.inf), 0j])
    yield (rng.normal(size=4) + 1j * rng.normal(size=4)).astype(np.complex64)
    yield np.array([], dtype=np.float64)
    yield np.zeros((0, 3), dtype=np.int32)
    yield np.zeros((2, 0))
    yield np.arange(2000.0)
    yield np.arange(1200).reshape(30, 40)
    yield np.arange(5 * 6 * 7, dtype=np.int16).reshape(5, 6, 7)
    yield rng.normal(size=(4, 6))
    yield rng.normal(size=(3, 4)) * 1e-5
    yield rng.normal(size=9) * 1000
    yield np.array([1e-10, 1.0, 12345.678, -0.5])
    yield np.array([np.nan, np.inf, -np.inf, 1.5])
    yield np.array([np.nan, np.inf])
    yield np.array([-1, 0, 7, 120], dtype=np.int8)
    yield np.array([0, 5, 250], dtype=np.uint8)
    yield np.array([2**64 - 1, 1], dtype=np.uint64)
    yield np.array([-(2**63), 2**63 - 1], dtype=np.int64)
    yield np.array([1e6, 1.0, 2.5], dtype=np.float32)
    yield np.array([999999.0, 1.0], dtype=np.float32)
    yield np.array([1000.0, 1.0, -0.0], dtype=np.float16)
    yield np.array([0.1, 0.2, 0.30000001192092896], dtype=np.float32)
    yield np.array([1.99999, 0.0, -3.25])
    yield np.array([123456789.0, 0.001])
    yield rng.uniform(-1, 1, size=(3, 3, 3)).astype(np.float32)
    yield np.array([[1.5, -2.0], [np.nan, 4.0]])


def scalars():
    for v in [3.0, 0.1, 1e-5, 1e-4, 1e15, 1e16, 1.5e20, -0.0, np.nan, -np.inf, 1 / 3, 2.0**-1074]:
        yield np.array(v)
    for v in [0.1, 1e-4, 123456.0, 1e6, 1.5e20, 1 / 3]:
        yield np.array(v, dtype=np.float32)
    for v in [999.0, 1000.0, 65504.0, 0.0001]:
        yield np.array(v, dtype=np.float16)
    for v in [1 + 2j, 2j, 0j, complex(1, -0.0), complex(np.inf, -np.inf), complex(np.nan, np.nan), 1e20 + 1j, -1.5 + 0.25j]:
        yield np.array(v)
    yield np.array(0.1 + 0.2j, dtype=np.complex64)
    yield np.array(True)
    yield np.array(False)
    yield np.array(-7, dtype=np.int16)
    yield np.array(2**64 - 1, dtype=np.uint64)


OPTION_SETS = [
    {},
    {"precision": 3},
    {"precision": 0},
    {"precision": 12, "floatmode": "unique"},
    {"precision": 4, "floatmode": "fixed"},
    {"precision": 4, "floatmode": "maxprec_equal"},
    {"threshold": 10, "edgeitems": 2},
    {"threshold": 5, "edgeitems": 1, "linewidth": 30},
    {"linewidth": 40},
    {"suppress": True},
    {"suppress": True, "precision": 3},
    {"sign": "+"},
    {"sign": " "},
    {"nanstr": "NaN", "infstr": "Inf"},
]


def values(a):
    flat = a.reshape(-1)
    if flat.size > 100 and a.dtype.kind in "iuf" and np.array_equal(flat, np.arange(flat.size)):
        return "arange"  # 0, 1, ..., size - 1: keeps the file small
    if a.dtype == np.bool_:
        return " ".join("1" if v else "0" for v in flat)
    if a.dtype.kind == "c":
        return " ".join(f"{float(v.real)!r},{float(v.imag)!r}" for v in flat)
    if a.dtype.kind == "f":
        return " ".join(repr(float(v)) for v in flat)
    return " ".join(str(int(v)) for v in flat)


def option_line(opts):
    words = []
    for k, v in opts.items():
        if k == "sign" and v == " ":
            v = "space"
        words.append(f"{k}={v}")
    return " ".join(["@"] + words)


def case(out, kind, a, opts):
    with np.printoptions(**opts):
        text = str(a) if kind == "str" else repr(a)
    out.append(f"### {kind} {a.dtype.name} {' '.join(map(str, a.shape))}".rstrip())
    out.append(option_line(opts))
    out.append(values(a))
    out.append(text)


def main():
    out = [f"# numpy {np.__version__}"]
    for opts in OPTION_SETS:
        for a in arrays():
            case(out, "str", a, opts)
            case(out, "repr", a, opts)
    for a in scalars():
        case(out, "str", a, {})
        case(out, "repr", a, {})
        case(out, "repr", a, {"precision": 3, "sign": "+"})
    path = pathlib.Path(__file__).with_name("print_cases_19.txt")
    path.write_text("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
