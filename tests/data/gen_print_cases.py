#!/usr/bin/env python3
"""Writes print_cases.txt: NumPy 2's repr() of fixed arrays, for ndcuda's array_repr.

Each case: a line "### <dtype> <shape>", a line of values in C order (floats as Python reprs,
complex as re,im, bools as 0/1), then NumPy's repr until the next "###".
Run: python3 tests/data/gen_print_cases.py (needs numpy>=2).
"""
import pathlib

import numpy as np


def cases():
    rng = np.random.default_rng(20260611)
    yield np.array([[1.0, 2.0], [3.0, 4.0]])
    yield np.array([1.0, 2.5], dtype=np.float32)
    yield np.array([1e-5, 1.5, np.nan, -np.inf], dtype=np.float32)
    yield np.array([np.nan, np.inf])
    yield np.arange(2000.0)
    yield rng.normal(size=(5, 7))
    yield rng.normal(size=30) * 100
    yield np.array([-3, 5, 100], dtype=np.int8)
    yield np.arange(1200).reshape(30, 40)
    yield np.arange(11 * 11 * 11, dtype=np.int32).reshape(11, 11, 11)
    yield np.array([2**64 - 1, 0], dtype=np.uint64)
    yield np.array([True, False, True])
    yield np.array(True)
    yield np.array([1 + 2j, 3 - 4.5j])
    yield (rng.normal(size=3) + 1j * rng.normal(size=3)).astype(np.complex64)
    yield np.array(3.0)
    yield np.array(0.1, dtype=np.float32)
    yield np.array(7, dtype=np.int16)
    yield np.zeros((0, 3))
    yield np.zeros((0,), dtype=np.int32)
    yield rng.normal(size=(2, 3, 4))
    yield np.array([0.1, 1.0, 2.5, -65504.0], dtype=np.float16)
    yield np.array([1e10, 1.0])
    yield np.array([0.1 + 0.2, 1 / 3, -0.0])
    yield np.array([123456789.0, 1e-3], dtype=np.float32)
    yield rng.uniform(-1, 1, size=(40, 40)).astype(np.float32)
    yield np.array([[1, -2], [3, 4]], dtype=np.int64) * 10**15


def values(a):
    flat = a.reshape(-1)
    if a.dtype == np.bool_:
        return " ".join("1" if v else "0" for v in flat)
    if a.dtype.kind == "c":
        return " ".join(f"{float(v.real)!r},{float(v.imag)!r}" for v in flat)
    if a.dtype.kind == "f":
        return " ".join(repr(float(v)) for v in flat)
    return " ".join(str(int(v)) for v in flat)


def main():
    out = [f"# numpy {np.__version__}"]
    for a in cases():
        out.append(f"### {a.dtype.name} {' '.join(map(str, a.shape))}".rstrip())
        out.append(values(a))
        out.append(repr(a))
    path = pathlib.Path(__file__).with_name("print_cases.txt")
    path.write_text("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
