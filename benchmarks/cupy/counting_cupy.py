#!/usr/bin/env python3
"""The cases of benchmarks/counting_bench.cpp measured with CuPy, for a side-by-side table.

Each case is timed with CUDA events on CuPy's current stream (warm-up first), like the C++
benchmark, and printed as one JSON object per line: name, n, ms (median), items_per_second,
bytes_per_second (the same byte counts as the C++ counters). topk has no CuPy function: it is
timed as argpartition followed by sorting the k values (what a CuPy user writes). Run on the GPU:

    python3 benchmarks/cupy/counting_cupy.py [--repeat 20]
"""
import cupy as cp

from cupy_timing import add_at, emit, memcpy_d2d_ms, start, timed


def report(name, n, bytes_per_item, ms):
    emit(name, n, n * bytes_per_item, ms)


def topk(a, k):
    idx = cp.argpartition(a, a.size - k)[a.size - k:]
    order = cp.argsort(-a[idx])
    idx = idx[order]
    return a[idx], idx


def main():
    args = start(__doc__)
    rng = cp.random.default_rng(12345)

    n = 1 << 26
    report("memcpy_d2d", n, 8, memcpy_d2d_ms(n, args.repeat))

    x = rng.integers(0, 256, n, dtype=cp.int32)
    report("bincount_int32", n, 4, timed(lambda: cp.bincount(x), args.repeat))
    report("bincount_int32_static", n, 4, timed(lambda: cp.bincount(x, minlength=256), args.repeat))
    del x

    a = rng.uniform(-1, 1, n, dtype=cp.float32)
    report("histogram_float32", n, 4, timed(lambda: cp.histogram(a, 256, range=(-1.0, 1.0)), args.repeat))
    report("topk_float32", n, 4, timed(lambda: topk(a, 1000), args.repeat))
    report("sort_then_slice_float32", n, 4, timed(lambda: cp.sort(a)[n - 1000:].copy(), args.repeat))
    del a

    n = 1 << 24
    report("memcpy_d2d", n, 8, memcpy_d2d_ms(n, args.repeat))
    idx = rng.integers(0, 256, n, dtype=cp.int32)
    v = rng.uniform(-1, 1, n, dtype=cp.float32)
    bins = cp.zeros(256, cp.float32)
    report("add_at_256_bins_float32", n, 8, timed(lambda: add_at(bins, idx, v), args.repeat))
    report("bincount_weighted_float32", n, 8, timed(lambda: cp.bincount(idx, v, minlength=256), args.repeat))
    labels = rng.integers(0, 16, n // 16, dtype=cp.int64)
    points = v.reshape(n // 16, 16)
    centres = cp.zeros((16, 16), cp.float32)
    report("add_at_kmeans_centres", n, 4.5, timed(lambda: add_at(centres, labels, points), args.repeat))
    del idx, v, labels, points

    m = rng.uniform(-1, 1, (65536, 1024), dtype=cp.float32)

    def topk_rows():
        idx = cp.argpartition(m, 1024 - 16, axis=1)[:, 1024 - 16:]
        vals = cp.take_along_axis(m, idx, axis=1)
        order = cp.argsort(-vals, axis=1)
        return cp.take_along_axis(vals, order, axis=1), cp.take_along_axis(idx, order, axis=1)

    report("topk_rows_float32", 65536 * 1024, 4, timed(topk_rows, args.repeat))


if __name__ == "__main__":
    main()
