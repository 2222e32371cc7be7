#!/usr/bin/env python3
"""The cases of benchmarks/random_bench.cpp measured with PyTorch, for a side-by-side table.

2^28 elements: torch.rand float32 into an existing tensor (out=), torch.randn (out=),
torch.randint int32 in [0, 1000) (out=), x + 0.1 * randn (noise in memory, then added), x + y, a
D2D copy's write bandwidth; Monte Carlo pi over 2^30 samples by generate-then-reduce. Prints
microseconds and GB/s of bytes written. Run on the GPU machine: python3 benchmarks/torch/random_torch.py
"""
import torch

from torch_timing import rate, text_row, timed

N = 1 << 28


def report(name, seconds, written):
    text_row(f"torch {name}", seconds, rate(written, seconds, "GB/s written"), width=46)


def main():
    dev = torch.device("cuda")
    torch.manual_seed(1)
    x = torch.ones(N, dtype=torch.float32, device=dev)
    y = torch.ones(N, dtype=torch.float32, device=dev)
    out = torch.empty(N, dtype=torch.float32, device=dev)
    iout = torch.empty(N, dtype=torch.int32, device=dev)
    report("memcpy D2D (write bandwidth)", timed(lambda: out.copy_(x)), out.numel() * 4)
    report("rand float32 (out=)", timed(lambda: torch.rand(N, out=out)), out.numel() * 4)
    report("randn float32 (out=)", timed(lambda: torch.randn(N, out=out)), out.numel() * 4)
    report("randint int32 [0, 1000) (out=)", timed(lambda: torch.randint(0, 1000, (N,), out=iout)), N * 4)
    report("x + y", timed(lambda: torch.add(x, y, out=out)), out.numel() * 4)
    report("x + 0.1 * randn (noise in memory)",
           timed(lambda: torch.add(x, torch.randn(N, device=dev), alpha=0.1, out=out)), out.numel() * 4)
    n = 1 << 30

    def pi():
        u = torch.rand((n, 2), device=dev)
        return 4 * ((u * u).sum(1) < 1).float().mean().item()

    seconds = timed(pi, repeat=5)
    text_row("torch pi over 2^30 samples (generate, reduce)", seconds, rate(n, seconds, "G samples/s", digits=2),
             width=46)


if __name__ == "__main__":
    main()
