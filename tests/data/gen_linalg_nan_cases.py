#!/usr/bin/env python3
"""Writes linalg_nan_cases.txt: what NumPy's linalg does with a stack of 4 symmetric 8x8 float64 matrices
whose matrix 2 holds a NaN at (5, 1) ("lower"), (1, 5) ("upper") or both ("both").

Each row: function uplo where | outcome, where outcome is "raise <LinAlgError message>" or
"nan <matrices whose results hold a NaN, comma-separated, or ->". Functions: eigh, eigvalsh, svd,
svdvals, qr (reduced), qr_r (mode "r"); uplo is L or U (only eigh/eigvalsh read it; "-" otherwise).
Run: python3 tests/data/gen_linalg_nan_cases.py (needs numpy>=2).
"""
import pathlib

import numpy as np

CASES = [
    ("eigh", "L", "both"), ("eigh", "U", "both"), ("eigvalsh", "L", "both"), ("eigvalsh", "U", "both"),
    ("eigvalsh", "L", "upper"), ("eigvalsh", "U", "upper"), ("eigvalsh", "L", "lower"), ("eigh", "U", "lower"),
    ("svd", "-", "both"), ("svdvals", "-", "both"), ("qr", "-", "both"), ("qr_r", "-", "both"),
]


def run(function, uplo, a):
    if function == "eigh":
        return np.linalg.eigh(a, UPLO=uplo)
    if function == "eigvalsh":
        return (np.linalg.eigvalsh(a, UPLO=uplo),)
    if function == "svd":
        return np.linalg.svd(a)
    if function == "svdvals":
        return (np.linalg.svd(a, compute_uv=False),)
    if function == "qr":
        return np.linalg.qr(a)
    return (np.linalg.qr(a, mode="r"),)


def main():
    rng = np.random.default_rng(17)
    lines = []
    for function, uplo, where in CASES:
        m = rng.uniform(-1, 1, (4, 8, 8))
        a = m + m.transpose(0, 2, 1)
        if where in ("lower", "both"):
            a[2, 5, 1] = np.nan
        if where in ("upper", "both"):
            a[2, 1, 5] = np.nan
        try:
            results = run(function, uplo, a)
            bad = [b for b in range(4) if any(np.isnan(r[b]).any() for r in results)]
            outcome = "nan " + (",".join(map(str, bad)) or "-")
        except np.linalg.LinAlgError as e:
            outcome = f"raise {e}"
        lines.append(f"{function} {uplo} {where} | {outcome}")
    path = pathlib.Path(__file__).with_name("linalg_nan_cases.txt")
    path.write_text(f"# numpy {np.__version__}; written by gen_linalg_nan_cases.py\n" + "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
