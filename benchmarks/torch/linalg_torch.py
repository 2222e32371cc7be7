#!/usr/bin/env python3
"""The cases of benchmarks/linalg_bench.cpp measured with PyTorch (and CuPy for the FFTs and
matmuls when it is installed), for a side-by-side table on the same GPU in the same call:

matmul 8192^3 in float32 (TF32 off), bfloat16 and float64 (TFLOP/s); 64x64 float32 host time per
call; bmm of 1024 x (64x64) and 1024 x (256x256) float32; einsum("bij,bjk->bik"); solve 4096^2
float64; eigh / svd / qr of 1024 x (32x32) float32; relu(a @ b + bias) at 8192^2 bfloat16 in eager PyTorch; fft of 2^24 complex64 and rfft2
of 4096^2 float32 (GB/s of read + write bytes). Run on the GPU machine:
python3 benchmarks/torch/linalg_torch.py
"""
import pathlib
import sys
import time

import torch

import torch_timing
from torch_timing import rate, text_row

try:
    import cupy as cp
    sys.path.append(str(pathlib.Path(__file__).resolve().parents[1] / "cupy"))
    import cupy_timing
except ImportError:  # the CuPy rows are left out
    cp = None


def torch_timed(fn, calls=3, repeat=10):
    """Median seconds per call, `calls` calls per CUDA-event timing after a warm-up call (as linalg_bench.cpp)."""
    return torch_timing.timed(fn, repeat, calls)


def cupy_timed(fn, calls=3):
    """torch_timed's protocol on CuPy's current stream, with CuPy's events."""
    return cupy_timing.timed(fn, 10, calls) / 1e3


def cool_timed(fn):
    """linalg_bench.cpp's BM_bf16_cool_start protocol: 2 s idle (the GPU's clocks recover from
    sustained tensor-core load), one warm-up call, then the median of 7 timings of 3 calls."""
    time.sleep(2)
    return torch_timed(fn, repeat=7)


def values(shape, dtype):
    n = 1
    for s in shape:
        n *= s
    return torch.sin(torch.arange(n, device="cuda", dtype=torch.float32) * 0.618034).reshape(shape).to(dtype)


def report(name, seconds, flops=None, nbytes=None):
    extra = ""
    if flops:
        extra = rate(flops, seconds, "TFLOP/s", scale=1e12, digits=2)
    if nbytes:
        extra = rate(nbytes, seconds, "GB/s")
    text_row(name, seconds, extra, width=44, us_width=12)


def main():
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    n = 8192
    for dtype, name in ((torch.float32, "float32"), (torch.bfloat16, "bfloat16"), (torch.float64, "float64")):
        a, b = values((n, n), dtype), values((n, n), dtype)
        report(f"torch.matmul {n}^3 {name}", torch_timed(lambda: torch.matmul(a, b)), 2.0 * n ** 3)
        if cp is not None and dtype != torch.bfloat16:
            ca, cb = cp.asarray(a), cp.asarray(b)
            report(f"cupy.matmul {n}^3 {name}", cupy_timed(lambda: ca @ cb), 2.0 * n ** 3)
        del a, b

    # Host time of a small product (the GPU keeps up; synchronise every 256 calls).
    a, b = values((64, 64), torch.float32), values((64, 64), torch.float32)
    torch.matmul(a, b)
    torch.cuda.synchronize()
    calls = 20000
    start = time.perf_counter()
    for i in range(calls):
        torch.matmul(a, b)
        if i % 256 == 255:
            torch.cuda.synchronize()
    torch.cuda.synchronize()
    report("torch.matmul 64x64 float32 host time", (time.perf_counter() - start) / calls)

    for m in (64, 256):
        a, b = values((1024, m, m), torch.float32), values((1024, m, m), torch.float32)
        report(f"torch.bmm 1024x({m}x{m}) float32", torch_timed(lambda: torch.bmm(a, b), calls=10),
               2.0 * 1024 * m ** 3)
        report(f"torch.einsum bij,bjk->bik 1024x{m}", torch_timed(lambda: torch.einsum("bij,bjk->bik", a, b), calls=10),
               2.0 * 1024 * m ** 3)

    k = 4096
    a = values((k, k), torch.float64) + k * torch.eye(k, device="cuda", dtype=torch.float64)
    v = values((k,), torch.float64)
    report(f"torch.linalg.solve {k}^2 float64", torch_timed(lambda: torch.linalg.solve(a, v), calls=1),
           2.0 / 3.0 * k ** 3)

    # Stacks of small matrices (linalg_bench.cpp's BM_batched_small): one call for the stack each.
    a = values((1024, 32, 32), torch.float32)
    sym = a + a.mT
    report("torch.linalg.eigh 1024x(32x32) float32", torch_timed(lambda: torch.linalg.eigh(sym), calls=1))
    report("torch.linalg.svd 1024x(32x32) float32", torch_timed(lambda: torch.linalg.svd(a), calls=1))
    report("torch.linalg.qr 1024x(32x32) float32", torch_timed(lambda: torch.linalg.qr(a), calls=1))

    a, b = values((n, n), torch.bfloat16), values((n, n), torch.bfloat16)
    bias = values((n,), torch.bfloat16)
    report(f"eager relu(a @ b + bias) {n}^2 bfloat16", torch_timed(lambda: torch.relu(a @ b + bias)), 2.0 * n ** 3)
    report(f"cool start: torch.matmul {n}^3 bfloat16", cool_timed(lambda: torch.matmul(a, b)), 2.0 * n ** 3)
    report(f"cool start: eager relu(a @ b + bias) {n}^2 bfloat16", cool_timed(lambda: torch.relu(a @ b + bias)),
           2.0 * n ** 3)
    del a, b

    x = values((1 << 24,), torch.float32).to(torch.complex64)
    report("torch.fft.fft 2^24 complex64", torch_timed(lambda: torch.fft.fft(x), calls=10), nbytes=2 * x.numel() * 8)
    img = values((4096, 4096), torch.float32)
    report("torch.fft.rfft2 4096^2 float32", torch_timed(lambda: torch.fft.rfft2(img), calls=10),
           nbytes=2 * img.numel() * 4)
    if cp is not None:
        cx, cimg = cp.asarray(x), cp.asarray(img)
        report("cupy.fft.fft 2^24 complex64", cupy_timed(lambda: cp.fft.fft(cx), calls=10), nbytes=2 * x.numel() * 8)
        report("cupy.fft.rfft2 4096^2 float32", cupy_timed(lambda: cp.fft.rfft2(cimg), calls=10),
               nbytes=2 * img.numel() * 4)
    else:
        print("CuPy not importable: the CuPy FFT baselines are left out")


if __name__ == "__main__":
    main()
