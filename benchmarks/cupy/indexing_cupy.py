#!/usr/bin/env python3
"""The cases of benchmarks/indexing_bench.cpp measured with CuPy, for a side-by-side table.

Each case is timed with CUDA events on CuPy's current stream (warm-up first), like the C++
benchmark, and printed as one JSON object per line: name, n, ms (median), items_per_second,
bytes_per_second (the same byte counts as the C++ counters). Run on the GPU machine:

    python3 benchmarks/cupy/indexing_cupy.py [--repeat 20]
"""
import cupy as cp

from cupy_timing import emit, memcpy_d2d_ms, start, timed


def main():
    args = start(__doc__)
    rng = cp.random.default_rng(12345)

    n = 1 << 28
    emit("memcpy_d2d", n, n * 8, memcpy_d2d_ms(n, args.repeat))

    a = rng.uniform(-1, 1, n, dtype=cp.float32)
    mask = a > 0
    emit("mask_extract_float32", n, n * 5 + n // 2 * 4, timed(lambda: a[mask], args.repeat))
    emit("nonzero_bool", n, n + n // 2 * 8, timed(lambda: cp.nonzero(mask), args.repeat))
    del mask

    k = 1 << 26
    idx = rng.integers(0, n, k, dtype=cp.int64)
    emit("take_float32", k, k * 16, timed(lambda: cp.take(a, idx), args.repeat))
    emit("fancy_index_float32", k, k * 16, timed(lambda: a[idx], args.repeat))


if __name__ == "__main__":
    main()
