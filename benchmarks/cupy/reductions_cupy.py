#!/usr/bin/env python3
"""The cases of benchmarks/reduction_bench.cpp measured with CuPy, for a side-by-side table.

Prints GB/s (bytes read per second, as reduction_bench reports) for float32:
sum(a) of 2^28 elements, sum(a, 0) and sum(a, 1) of a 16384^2 matrix, sum(a * b, 1) (CuPy
materialises a * b unless fused by hand; both are shown), argmax(a) of 2^28 elements, a D2D copy
baseline (read + write bytes), and the cold first call of a new reduction kernel (CuPy's caches
off). Run on the GPU machine: python3 benchmarks/cupy/reductions_cupy.py
"""
import os
import tempfile

# A fresh kernel cache directory, so that the cold case compiles (set before importing cupy).
os.environ.setdefault("CUPY_CACHE_DIR", tempfile.mkdtemp(prefix="cupy-reduction-bench-"))

import cupy as cp  # noqa: E402

import cupy_timing  # noqa: E402
from cupy_timing import first_call_ms, median, rate, text_row  # noqa: E402


def timed(fn, repeat=20, calls=10):
    """Median seconds per call; `calls` calls are queued back to back per timing, as
    reduction_bench.cpp does (steady state, launch latency left out); calls=1 times a lone call."""
    return cupy_timing.timed(fn, repeat, calls) / 1e3


def report(name, seconds, nbytes):
    text_row(name, seconds, rate(nbytes, seconds, "GB/s"), width=32)


def main():
    # The same values as benchmarks/reduction_bench.cpp: sin of a scaled ramp, in no order.
    big = cp.sin(cp.arange(1 << 28, dtype=cp.float32) * cp.float32(0.618034))
    mat = cp.sin(cp.arange(16384 * 16384, dtype=cp.float32) * cp.float32(0.618034)).reshape(16384, 16384)
    mat2 = mat + 1
    copy_dst = cp.empty_like(big)

    report("memcpy D2D (read + write)",
           timed(lambda: cp.copyto(copy_dst, big)), 2 * big.nbytes)
    report("sum(a) 2^28", timed(lambda: cp.sum(big)), big.nbytes)
    report("sum(a) 2^28, one call alone", timed(lambda: cp.sum(big), calls=1), big.nbytes)
    report("sum(a, 0) 16384^2", timed(lambda: cp.sum(mat, 0)), mat.nbytes)
    report("sum(a, 1) 16384^2", timed(lambda: cp.sum(mat, 1)), mat.nbytes)
    report("sum(a * b, 1) 16384^2", timed(lambda: cp.sum(mat * mat2, 1)), 2 * mat.nbytes)
    def sum_of_product(x, y):  # cp.fuse names the kernel after the function: no lambda
        return cp.sum(x * y, axis=1)

    fused = cp.fuse(sum_of_product)
    report("fused sum(a * b, 1) 16384^2", timed(lambda: fused(mat, mat2)), 2 * mat.nbytes)
    report("argmax(a) 2^28", timed(lambda: cp.argmax(big)), big.nbytes)
    for row in (4, 8, 16, 32):  # BM_sum_short_rows
        short = big[: 1 << 24].reshape(-1, row)
        report(f"sum(a, 1) 2^24 in rows of {row}", timed(lambda: cp.sum(short, 1)), short.nbytes)
    points = big[: 1 << 24].reshape(-1, 16)  # BM_kmeans_distances
    centres = big[:256].reshape(16, 16)

    def distances():
        diff = points[:, None, :] - centres[None, :, :]
        return (diff * diff).sum(2)

    report("k-means distances 2^20 x 16, K 16", timed(distances), 2 * points.nbytes)

    # Cold first call: a reduction kernel never compiled in this process nor on disk.
    small = cp.arange(4096 * 1024, dtype=cp.float32).reshape(4096, 1024)
    colds = []
    for k in range(5):
        kernel = cp.ReductionKernel("T x", "T y", f"x * {k + 1}.0f", "a + b", "y = a", "0",
                                    f"cold_reduction_{k}_{os.getpid()}")
        colds.append(first_call_ms(lambda: kernel(small, axis=1), cp.cuda.Stream.null.synchronize))
    print(f"{'cold first call (median of 5)':<32} {median(colds):10.1f} ms")


if __name__ == "__main__":
    main()
