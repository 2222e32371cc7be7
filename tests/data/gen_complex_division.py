#!/usr/bin/env python3
"""Writes complex_division.csv: NumPy 2's a / b for complex64 and complex128 on special values
(zeros of both signs, infinities, NaNs, tiny, huge and subnormal parts) and random ones.

Each row: type;a.real a.imag;b.real b.imag;q.real q.imag with every value as a C99 hex float
(float.hex), so the table is exact. Run: python3 tests/data/gen_complex_division.py (needs numpy>=2).
"""
import itertools
import pathlib
import random
import warnings

import numpy as np


def specials(ftype):
    info = np.finfo(ftype)
    return [0.0, -0.0, 1.0, -3.0, float(info.smallest_subnormal), -float(info.max), np.inf, np.nan]


def main():
    rng = random.Random(20261124)
    rows = [f"# numpy {np.__version__}"]
    for name, ctype, ftype in (("complex64", np.complex64, np.float32), ("complex128", np.complex128, np.float64)):
        values = specials(ftype)
        pairs = []
        # Every numerator from a small set against every divisor from the full special set.
        numerators = [complex(r, i) for r, i in itertools.product([0.0, -2.5, np.inf, np.nan], repeat=2)]
        divisors = [complex(r, i) for r, i in itertools.product(values, repeat=2)]
        pairs += [(a, b) for a in numerators for b in divisors]
        # Random values over many magnitudes, so Smith's scaling matters.
        for _ in range(300):
            parts = [rng.choice([-1, 1]) * rng.random() * 10.0 ** rng.randint(-30, 30) for _ in range(4)]
            pairs.append((complex(parts[0], parts[1]), complex(parts[2], parts[3])))
        a = np.array([p[0] for p in pairs], dtype=ctype)
        b = np.array([p[1] for p in pairs], dtype=ctype)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            q = a / b
        for x, y, z in zip(a, b, q):
            cells = [f"{float(v.real).hex()} {float(v.imag).hex()}" for v in (x, y, z)]
            rows.append(";".join([name] + cells))
    out = pathlib.Path(__file__).with_name("complex_division.csv")
    out.write_text("\n".join(rows) + "\n")
    print(f"wrote {len(rows) - 1} rows to {out}")


if __name__ == "__main__":
    main()
