#!/usr/bin/env python3
"""Writes ufunc_cases.txt: NumPy 2's results of the ufuncs whose integer and float edge cases the
host reference of tests/ops/ufunc_table_test.cpp spells out by hand (floor_divide, remainder,
power, shifts, abs, negative, sign, round), on integer extremes (MIN // -1, x // 0, shifts by the
width and by negative counts) and on float specials (zeros of both signs, infinities, NaN).

Each line: ufunc dtype a b result, integers in decimal and floats as C99 hex floats (float.hex),
so the table is exact; unary ufuncs have b = 0. Run: python3 tests/data/gen_ufunc_cases.py
(needs numpy>=2).
"""
import itertools
import pathlib
import warnings

import numpy as np

INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
FLOATS = [np.float32, np.float64]


def int_values(t):
    info = np.iinfo(t)
    values = {0, 1, 2, 3, 7, int(info.max), int(info.max) - 1, int(info.min)}
    if info.min < 0:
        values |= {-1, -2, -3, -7, int(info.min) + 1}
    return sorted(values)


def shift_counts(t):
    bits = np.iinfo(t).bits
    counts = {0, 1, bits - 1, bits, bits + 1, 2 * bits}
    if np.iinfo(t).min < 0:
        counts |= {-1, -bits}
    return sorted(c for c in counts if np.iinfo(t).min <= c <= np.iinfo(t).max)


def float_values(t):
    info = np.finfo(t)
    return [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, 7.5, float(info.smallest_subnormal), float(info.max),
            -float(info.max), np.inf, -np.inf, np.nan]


def fmt(t, v):
    if np.issubdtype(t, np.integer):
        return str(int(v))
    return float(v).hex()


def main():
    lines = [f"# numpy {np.__version__}"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for t in INTS:
            name = np.dtype(t).name
            vals = int_values(t)
            for a, b in itertools.product(vals, repeat=2):
                x, y = t(a), t(b)
                lines.append(f"floor_divide {name} {a} {b} {fmt(t, np.floor_divide(x, y))}")
                lines.append(f"remainder {name} {a} {b} {fmt(t, np.remainder(x, y))}")
                if b >= 0:  # NumPy refuses negative integer powers
                    lines.append(f"power {name} {a} {b} {fmt(t, np.power(x, y))}")
            for a in vals:
                for c in shift_counts(t):
                    x, y = t(a), t(c)
                    lines.append(f"left_shift {name} {a} {c} {fmt(t, np.left_shift(x, y))}")
                    lines.append(f"right_shift {name} {a} {c} {fmt(t, np.right_shift(x, y))}")
                lines.append(f"absolute {name} {a} 0 {fmt(t, np.absolute(t(a)))}")
                lines.append(f"negative {name} {a} 0 {fmt(t, np.negative(t(a)))}")
                lines.append(f"sign {name} {a} 0 {fmt(t, np.sign(t(a)))}")
        for t in FLOATS:
            name = np.dtype(t).name
            vals = float_values(t)
            for a, b in itertools.product(vals, repeat=2):
                x, y = t(a), t(b)
                lines.append(f"floor_divide {name} {fmt(t, a)} {fmt(t, b)} {fmt(t, np.floor_divide(x, y))}")
                lines.append(f"remainder {name} {fmt(t, a)} {fmt(t, b)} {fmt(t, np.remainder(x, y))}")
            for a in vals + [1.5, 2.5, -0.5, -1.5, 0.49999997, 4503599627370497.0]:
                x = t(a)
                lines.append(f"sign {name} {fmt(t, x)} 0x0p+0 {fmt(t, np.sign(x))}")
                lines.append(f"round {name} {fmt(t, x)} 0x0p+0 {fmt(t, np.round(x))}")
    out = pathlib.Path(__file__).with_name("ufunc_cases.txt")
    out.write_text("\n".join(lines) + "\n")
    print(f"wrote {len(lines) - 1} cases to {out}")


if __name__ == "__main__":
    main()
