#!/usr/bin/env python3
"""The bandwidth sweeps of benchmarks/elementwise_bench.cpp and reduction_bench.cpp measured with CuPy.

float32 at 2^20 .. 2^28 elements, a factor 4 apart (nd::bench::bandwidth_sweep): c = a + b into an
existing array (cp.add out=, 3 arrays of traffic), the full reduction sum(a) (bytes read), and the
array copy c[...] = a (read + write). One call per CUDA-event timing, the median of --repeat after
a warm-up, as the C++ sweeps. One JSON object per line (cupy_timing.emit); --json PATH also writes
them to one file for tools/plot_bandwidth.py. Run on the GPU machine:

    python3 benchmarks/cupy/bandwidth_cupy.py [--repeat 20] [--json out/bandwidth_cupy.json]
"""
import cupy as cp

from cupy_timing import emit, start, timed

SIZES = [1 << p for p in range(20, 29, 2)]


def main():
    args = start(__doc__)
    for n in SIZES:
        a = cp.ones(n, dtype=cp.float32)
        b = cp.ones(n, dtype=cp.float32)
        c = cp.empty_like(a)

        def copy():
            c[...] = a

        emit("add_float32", n, 3 * a.nbytes, timed(lambda: cp.add(a, b, out=c), args.repeat))
        emit("sum_float32", n, a.nbytes, timed(lambda: cp.sum(a), args.repeat))
        emit("copy_float32", n, 2 * a.nbytes, timed(copy, args.repeat))
        del a, b, c
        cp.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    main()
