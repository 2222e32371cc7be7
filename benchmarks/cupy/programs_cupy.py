#!/usr/bin/env python3
"""The programs of benchmarks/programs_bench.cpp written with CuPy, for a side-by-side table.

The same sizes, data recipes and NumPy spellings as the C++ programs: k-means (distances by
broadcasting, argmin, bincount, add.at), logistic regression (matmul, sigmoid), spectral (rfft2,
filter, irfft2; |rfft|^2), 4096 SPD systems of 32 x 32 (solve, inv, det, cholesky in float64 and
float32) and particles (bincount, add.at, a mask gather, a stable argsort, unique counts). The
random values differ from the C++ ones (another generator), not their distributions. Timed with
CUDA events after a warm-up and printed as JSON lines. Run on the GPU:

    python3 benchmarks/cupy/programs_cupy.py [--repeat 20]
"""
import numpy as np
import cupy as cp

from cupy_timing import add_at, emit, memcpy_d2d_ms, start, timed

POINTS, DIMS, K, ITERATIONS = 1 << 20, 16, 16, 20


def kmeans_data():
    g = np.random.default_rng(12345)
    c = g.integers(0, K, POINTS)
    j = np.arange(DIMS)
    centre = 4.0 * ((c[:, None] + j[None, :]) % 5)
    return cp.asarray((centre + g.standard_normal((POINTS, DIMS))).astype(np.float32))


def kmeans_step(x, c):
    diff = x[:, None, :] - c[None, :, :]
    d2 = (diff * diff).sum(2)
    labels = d2.argmin(1)
    counts = cp.bincount(labels, minlength=K).astype(cp.float32)
    sums = cp.zeros((K, DIMS), cp.float32)
    add_at(sums, labels, x)
    return sums / cp.maximum(counts.reshape(K, 1), 1.0)


def kmeans(x):
    c = x[:K].copy()
    for _ in range(ITERATIONS):
        c = kmeans_step(x, c)
    return c


def logistic_regression(x, y):
    n = x.shape[0]
    w = cp.zeros(x.shape[1], cp.float32)
    for _ in range(50):
        z = x @ w
        residual = 1.0 / (1.0 + cp.exp(-z)) - y
        w = w - (0.5 / n) * (x.T @ residual)
    return w


def gaussian_filter(side):
    fy = cp.fft.fftfreq(side)[:, None]
    fx = cp.fft.rfftfreq(side)[None, :]
    return cp.exp(-(fy * fy + fx * fx) / 0.005).astype(cp.float32)


def spectral(image, gain, signal):
    smooth = cp.fft.irfft2(cp.fft.rfft2(image) * gain, s=image.shape)
    power = cp.abs(cp.fft.rfft(signal)) ** 2
    return smooth, power


def spd_systems(a, b, a32, b32):
    out = []
    for m, v in ((a, b), (a32, b32)):
        out += [cp.linalg.solve(m, v), cp.linalg.inv(m), cp.linalg.det(m), cp.linalg.cholesky(m)]
    return out


def particles(cells, mass, count):
    total = cp.zeros(count, cp.float32)
    add_at(total, cells, mass)
    return (cp.bincount(cells, minlength=count), cp.bincount(cells, mass, minlength=count), total,
            mass[mass > 0.5], cp.argsort(cells, kind="stable"), cp.unique(cells, return_counts=True))


def main():
    args = start(__doc__)
    slow = max(3, args.repeat // 4)
    emit("memcpy_d2d", POINTS * DIMS, POINTS * DIMS * 8, memcpy_d2d_ms(POINTS * DIMS, args.repeat))
    x = kmeans_data()
    emit("program_kmeans", ITERATIONS * POINTS, 0, timed(lambda: kmeans(x), slow))
    del x

    rng = cp.random.default_rng(12345)
    xs = rng.standard_normal((1 << 20, 64), dtype=cp.float32)
    y = ((xs @ rng.standard_normal(64, dtype=cp.float32)) > 0).astype(cp.float32)
    emit("program_logistic_regression", 1 << 20, 0, timed(lambda: logistic_regression(xs, y), slow))
    del xs, y

    image = rng.standard_normal((4096, 4096), dtype=cp.float32)
    signal = rng.standard_normal(1 << 24, dtype=cp.float32)
    gain = gaussian_filter(4096)
    emit("program_spectral", 4096 * 4096, 0, timed(lambda: spectral(image, gain, signal), slow))
    del image, signal, gain

    m = rng.standard_normal((4096, 32, 32), dtype=cp.float32).astype(cp.float64)
    a = m @ m.transpose(0, 2, 1) + 32.0 * cp.eye(32)
    b = rng.standard_normal((4096, 32, 1), dtype=cp.float32).astype(cp.float64)
    a32, b32 = a.astype(cp.float32), b.astype(cp.float32)
    emit("program_spd_systems", 4096, 0, timed(lambda: spd_systems(a, b, a32, b32), slow))
    del m, a, b, a32, b32

    cells = rng.integers(0, 4096, 1 << 24, dtype=cp.int32)
    mass = (rng.uniform(-1, 1, 1 << 24, dtype=cp.float32) + 1.0) * 0.5
    emit("program_particles", 1 << 24, 0, timed(lambda: particles(cells, mass, 4096), slow))


if __name__ == "__main__":
    main()
