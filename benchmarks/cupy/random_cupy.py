#!/usr/bin/env python3
"""The cases of benchmarks/random_bench.cpp measured with CuPy, for a side-by-side table.

2^28 elements: random float32 into an existing array (cupy.random.random(out=) where CuPy's
Generator allows it, else a new array), standard_normal float32, integers int32 in [0, 1000),
x + 0.1 * standard_normal (CuPy generates the noise into memory, then adds), x + y, a D2D copy's
write bandwidth; Monte Carlo pi over 2^30 samples by generate-then-reduce. Prints microseconds
and GB/s of bytes written. Run on the GPU machine: python3 benchmarks/cupy/random_cupy.py
"""
import cupy as cp

import cupy_timing
from cupy_timing import rate, text_row

N = 1 << 28


def timed(fn, repeat=20):
    """Median seconds per call (cupy_timing.timed is in milliseconds)."""
    return cupy_timing.timed(fn, repeat) / 1e3


def report(name, seconds, written):
    text_row(f"cupy {name}", seconds, rate(written, seconds, "GB/s written"), width=45)


def main():
    g = cp.random.default_rng(1)
    x = cp.ones(N, dtype=cp.float32)
    y = cp.ones(N, dtype=cp.float32)
    out = cp.empty(N, dtype=cp.float32)
    report("memcpy D2D (write bandwidth)", timed(lambda: cp.copyto(out, x)), out.nbytes)

    def random_into():
        try:
            g.random(N, dtype=cp.float32, out=out)
        except TypeError:
            out[...] = g.random(N, dtype=cp.float32)

    report("random float32 (into out)", timed(random_into), out.nbytes)
    report("cupy.random.random float32 (legacy)", timed(lambda: cp.random.random(N, dtype=cp.float32)), out.nbytes)
    report("standard_normal float32", timed(lambda: g.standard_normal(N, dtype=cp.float32)), out.nbytes)
    report("integers int32 [0, 1000)", timed(lambda: g.integers(0, 1000, N, dtype=cp.int32)), N * 4)
    report("x + y", timed(lambda: cp.add(x, y, out=out)), out.nbytes)
    report("x + 0.1 * normal (noise in memory)",
           timed(lambda: cp.add(x, cp.float32(0.1) * g.standard_normal(N, dtype=cp.float32), out=out)), out.nbytes)
    n = 1 << 30

    def pi():
        u = g.random((n, 2), dtype=cp.float32)
        return 4 * float(cp.mean(cp.sum(u * u, 1) < 1))

    seconds = timed(pi, repeat=5)
    text_row("cupy pi over 2^30 samples (generate, reduce)", seconds, rate(n, seconds, "G samples/s", digits=2),
             width=45)


if __name__ == "__main__":
    main()
