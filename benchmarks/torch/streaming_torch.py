#!/usr/bin/env python3
"""The streaming cases of benchmarks/elementwise_bench.cpp in PyTorch and CuPy, for a side-by-side
table: c = a + b into an existing array (float32, float64, int8) at 2^24, 2^26, 2^28 elements, the
array copy c[...] = a (float32), and torch's D2D copy as the raw limit. GB/s of bytes read + written
(3 arrays for an add, 2 for a copy), the median of 50 CUDA-event-timed calls after a warm-up.
Run on the GPU machine: python3 benchmarks/torch/streaming_torch.py
"""
import torch

import torch_timing

SIZES = [1 << 24, 1 << 26, 1 << 28]


def timed(fn):
    return torch_timing.timed(fn, repeat=50)


def report(name, n, seconds, traffic):
    torch_timing.json_row(name, seconds, traffic, n=n)


def main():
    try:
        import cupy as cp
    except ImportError:
        cp = None
    for dtype, cp_name in ((torch.float32, "float32"), (torch.float64, "float64"), (torch.int8, "int8")):
        for n in SIZES:
            a = torch.ones(n, dtype=dtype, device="cuda")
            b = torch.ones(n, dtype=dtype, device="cuda")
            c = torch.empty(n, dtype=dtype, device="cuda")
            traffic = 3 * a.element_size() * n
            report(f"torch.add out= {cp_name}", n, timed(lambda: torch.add(a, b, out=c)), traffic)
            if cp is not None:
                x, y, z = cp.asarray(a), cp.asarray(b), cp.asarray(c)  # zero-copy views of the same memory
                report(f"cupy.add out= {cp_name}", n, timed(lambda: cp.add(x, y, out=z)), traffic)
            if dtype == torch.float32:
                report("torch copy_ float32", n, timed(lambda: c.copy_(a)), 2 * a.element_size() * n)
                if cp is not None:
                    def cupy_copy():
                        z[...] = x
                    report("cupy z[...] = x float32", n, timed(cupy_copy), 2 * a.element_size() * n)
            del a, b, c
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
