#!/usr/bin/env python3
"""The cases of benchmarks/sort_scan_bench.cpp measured with CuPy, for a side-by-side table.

Each case is timed with CUDA events on CuPy's current stream (warm-up first), like the C++
benchmark, and printed as one JSON object per line: name, n, ms (median), items_per_second,
bytes_per_second (the same byte counts as the C++ counters). Run on the GPU machine:

    python3 benchmarks/cupy/sort_scan_cupy.py [--repeat 20]
"""
import cupy as cp

from cupy_timing import emit, memcpy_d2d_ms, start, timed


def report(name, n, bytes_per_item, ms):
    emit(name, n, n * bytes_per_item, ms)


def main():
    args = start(__doc__)
    rng = cp.random.default_rng(12345)

    for n in (1 << 26, 1 << 28):
        report("memcpy_d2d", n, 8, memcpy_d2d_ms(n, args.repeat))

    for n in (1 << 20, 1 << 26):
        a = rng.uniform(-1, 1, n, dtype=cp.float32)
        report("sort_float32", n, 8, timed(lambda: cp.sort(a), args.repeat))
    a = rng.uniform(-1, 1, 1 << 26, dtype=cp.float32)
    report("argsort_float32", 1 << 26, 12, timed(lambda: cp.argsort(a, kind="stable"), args.repeat))
    del a

    for n in (1 << 20, 1 << 28):
        a = rng.uniform(-1, 1, n, dtype=cp.float32)
        report("cumsum_float32", n, 8, timed(lambda: cp.cumsum(a), args.repeat))
        del a

    side = 16384
    m = rng.uniform(-1, 1, (side, side), dtype=cp.float32)
    for axis in (1, 0):
        report(f"cumsum_matrix_axis/{axis}", side * side, 8, timed(lambda: cp.cumsum(m, axis=axis), args.repeat))


if __name__ == "__main__":
    main()
