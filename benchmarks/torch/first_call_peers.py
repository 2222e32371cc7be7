"""The first call of a kernel never seen before, in torch (jiterator) and CuPy: compile + load +
launch, milliseconds, median of several unique sources. The baselines of ndcuda's
first_call_cold_fused_expression and first_call_cold_reduction (benchmarks/jit_compile_bench.cpp).
Run with an empty CuPy cache folder: CUPY_CACHE_DIR=$(mktemp -d) python3 first_call_peers.py"""
import os
import statistics

import torch  # before cupy, as this script always did
import cupy as cp

from torch_timing import first_call_ms


def report(what, ts):
    # statistics.median: of an even count, the mean of the two middle values (as this script always printed).
    print("%s first call: median %.1f ms, all %s" % (what, statistics.median(ts), [round(v, 1) for v in ts]))


def main():
    pid = os.getpid()
    n = 1 << 24
    x = torch.zeros(n, device='cuda')
    torch.cuda.synchronize()
    ts = []
    for i in range(8):
        code = f"template <typename T> T fused_{pid}_{i}(T a, T b, T c) {{ return a * b + c + T({i + 1}); }}"
        fn = torch.cuda.jiterator._create_jit_fn(code)
        ts.append(first_call_ms(lambda: fn(x, x, x), torch.cuda.synchronize))
    report("torch jiterator a*b+c", ts)
    a = cp.zeros(n, dtype=cp.float32)
    cp.cuda.Device().synchronize()
    ts = []
    for i in range(8):
        k = cp.ElementwiseKernel('float32 a, float32 b, float32 c', 'float32 y', f'y = a * b + c + {i + 1}.0f',
                                 f'fused_{pid}_{i}')
        ts.append(first_call_ms(lambda: k(a, a, a), cp.cuda.Device().synchronize))
    report("cupy ElementwiseKernel a*b+c", ts)
    m = cp.zeros((4096, 1024), dtype=cp.float32)
    ts = []
    for i in range(6):
        k = cp.ReductionKernel('float32 x', 'float32 y', f'x * {i + 2}.0f', 'a + b', 'y = a', '0', f'rsum_{pid}_{i}')
        ts.append(first_call_ms(lambda: k(m, axis=1), cp.cuda.Device().synchronize))
    report("cupy ReductionKernel sum(x*c, 1)", ts)


if __name__ == "__main__":
    main()
