#!/usr/bin/env python3
"""The cases of benchmarks/indexing_bench.cpp measured with CuPy, for a side-by-side table.

Each case is timed with CUDA events on CuPy's current stream (warm-up first), like the C++
benchmark, and printed as one JSON object per line: name, n, ms (median), items_per_second,
bytes_per_second (the same byte counts as the C++ counters). Run on the GPU machine:

    python3 benchmarks/cupy/indexing_cupy.py [--repeat 20]
"""
import cupy as cp

from cupy_timing import emit, start, timed


def report(name, n, total_bytes, ms):
    emit(name, n, total_bytes, ms)


def main():
    args = start(__doc__)
    rng = cp.random.default_rng(12345)

    n = 1 << 28
    a = cp.zeros(n, dtype=cp.float32)
    c = cp.empty_like(a)
    ms = timed(lambda: cp.cuda.runtime.memcpyAsync(c.data.ptr, a.data.ptr, a.nbytes,
                                                   cp.cuda.runtime.memcpyDeviceToDevice,
                                                   cp.cuda.get_current_stream().ptr), args.repeat)
    report("memcpy_d2d", n, n * 8, ms)
    del a, c

    a = rng.uniform(-1, 1, n, dtype=cp.float32)
    mask = a > 0
    report("mask_extract_float32", n, n * 5 + n // 2 * 4, timed(lambda: a[mask], args.repeat))
    report("nonzero_bool", n, n + n // 2 * 8, timed(lambda: cp.nonzero(mask), args.repeat))
    del mask

    k = 1 << 26
    idx = rng.integers(0, n, k, dtype=cp.int64)
    report("take_float32", k, k * 16, timed(lambda: cp.take(a, idx), args.repeat))
    report("fancy_index_float32", k, k * 16, timed(lambda: a[idx], args.repeat))


if __name__ == "__main__":
    main()
