#!/usr/bin/env python3
"""The fusion-across-reductions cases of benchmarks/reduction_bench.cpp in PyTorch (and CuPy, which
runs the NumPy spelling as separate kernels): softmax and layer norm over the last axis of float32
(rows, cols) matrices. GB/s of one read and one write of the array; torch's D2D copy of the same
bytes is the raw limit. Median of 50 CUDA-event-timed calls after a warm-up.
Run on the GPU machine: python3 benchmarks/torch/fusion_torch.py
"""
import torch
import torch.nn.functional as F

import torch_timing

SHAPES = [(4096, 4096), (16384, 1024), (64, 1 << 20)]


def timed(fn):
    return torch_timing.timed(fn, repeat=50)


def report(name, shape, seconds, traffic):
    torch_timing.json_row(name, seconds, traffic, shape=list(shape))


def main():
    try:
        import cupy as cp
    except ImportError:
        cp = None
    for shape in SHAPES:
        x = torch.rand(shape, device="cuda") * 2 - 1
        y = torch.empty_like(x)
        traffic = 2 * x.numel() * x.element_size()
        report("torch D2D copy (raw limit)", shape, timed(lambda: y.copy_(x)), traffic)
        report("torch.softmax", shape, timed(lambda: torch.softmax(x, 1)),
               traffic)

        def numpy_spelled():
            e = torch.exp(x - x.amax(1, keepdim=True))
            return e / e.sum(1, keepdim=True)

        report("torch, NumPy-spelled softmax (eager)", shape, timed(numpy_spelled), traffic)
        if shape[1] <= 1 << 16:
            w = torch.rand(shape[1], device="cuda")
            b = torch.rand(shape[1], device="cuda")
            report("torch.nn.functional.layer_norm", shape, timed(lambda: F.layer_norm(x, (shape[1],), w, b)), traffic)
        if cp is not None:
            cx = cp.asarray(x)

            def cupy_softmax():
                e = cp.exp(cx - cx.max(axis=1, keepdims=True))
                return e / e.sum(axis=1, keepdims=True)

            cupy_softmax()
            cp.cuda.Device().synchronize()
            report("cupy, NumPy-spelled softmax", shape, timed(cupy_softmax), traffic)


if __name__ == "__main__":
    main()
