#!/usr/bin/env python3
"""CuPy's twin of programs_bench's BM_program_kmeans_first_iteration: k-means' first iteration with
every kernel new, wall time from the points on the GPU to the first centres on the host.

CuPy compiles each new kernel with NVRTC before its first launch and keeps it in CUPY_CACHE_DIR;
this script points that at a new empty folder before CuPy is imported, so nothing comes from an
earlier run. Run it as its own process (a kernel compiled earlier in the process would be reused):

    python3 benchmarks/cupy/first_iteration_cupy.py
"""
import os
import tempfile
import time

os.environ["CUPY_CACHE_DIR"] = tempfile.mkdtemp(prefix="cupy-first-iteration-")

import cupy as cp  # noqa: E402  (after CUPY_CACHE_DIR is set)

from cupy_timing import emit, start  # noqa: E402
from programs_cupy import DIMS, K, POINTS, kmeans_data, kmeans_step  # noqa: E402


def main():
    start(__doc__)
    x = kmeans_data()
    cp.cuda.Device().synchronize()
    began = time.perf_counter()
    centres = cp.asnumpy(kmeans_step(x, x[:K].copy()))
    ms = (time.perf_counter() - began) * 1e3
    assert centres.shape == (K, DIMS)
    emit("program_kmeans_first_iteration", POINTS, 0, ms)


if __name__ == "__main__":
    main()
