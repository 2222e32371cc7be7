#!/usr/bin/env python3
"""The programs of benchmarks/programs_bench.cpp written with CuPy, for a side-by-side table.

k-means: 2^20 x 16 float32 points, K = 16, 20 Lloyd iterations with the same data recipe and the
same spelling (distances by broadcasting, argmin, bincount, add.at). Timed with CUDA events after
a warm-up and printed as JSON lines. Run on the GPU:

    python3 benchmarks/cupy/programs_cupy.py [--repeat 20]
"""
import numpy as np
import cupy as cp
import cupyx

from cupy_timing import emit, memcpy_d2d_ms, start, timed

POINTS, DIMS, K, ITERATIONS = 1 << 20, 16, 16, 20


def add_at(a, idx, v):
    if hasattr(cp.add, "at"):
        cp.add.at(a, idx, v)
    else:
        cupyx.scatter_add(a, idx, v)


def kmeans_data():
    g = np.random.default_rng(12345)
    c = g.integers(0, K, POINTS)
    j = np.arange(DIMS)
    centre = 4.0 * ((c[:, None] + j[None, :]) % 5)
    return cp.asarray((centre + g.standard_normal((POINTS, DIMS))).astype(np.float32))


def kmeans(x):
    c = x[:K].copy()
    for _ in range(ITERATIONS):
        diff = x[:, None, :] - c[None, :, :]
        d2 = (diff * diff).sum(2)
        labels = d2.argmin(1)
        counts = cp.bincount(labels, minlength=K).astype(cp.float32)
        sums = cp.zeros((K, DIMS), cp.float32)
        add_at(sums, labels, x)
        c = sums / cp.maximum(counts.reshape(K, 1), 1.0)
    return c


def main():
    args = start(__doc__)
    emit("memcpy_d2d", POINTS * DIMS, POINTS * DIMS * 8, memcpy_d2d_ms(POINTS * DIMS, args.repeat))
    x = kmeans_data()
    emit("program_kmeans", ITERATIONS * POINTS, 0, timed(lambda: kmeans(x), max(3, args.repeat // 4)))


if __name__ == "__main__":
    main()
