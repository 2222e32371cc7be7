#!/usr/bin/env python3
"""CuPy's twin of linalg_bench's BM_first_matmul_of_process: the process's first 1024^2 float32
product (cuBLAS's handle and set-up included), from the call to the product on the device, its
inputs made from host values before. Run it as its own process:

    python3 benchmarks/cupy/first_matmul_cupy.py
"""
import time

import numpy as np
import cupy as cp

from cupy_timing import emit, start


def main():
    start(__doc__)
    n = 1024
    host = np.sin(0.618034 * np.arange(n * n, dtype=np.float64)).astype(np.float32).reshape(n, n)
    a = cp.asarray(host)
    b = cp.asarray(host)
    cp.cuda.Device().synchronize()
    began = time.perf_counter()
    c = a @ b
    cp.cuda.Device().synchronize()
    ms = (time.perf_counter() - began) * 1e3
    assert c.shape == (n, n)
    emit("first_matmul_of_process", n * n, 0, ms)


if __name__ == "__main__":
    main()
