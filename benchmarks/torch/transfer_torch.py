#!/usr/bin/env python3
"""Reading 1 GiB of float32 back to the host into a NEW buffer, as memory_bench.cpp's
to_host_new_* cases do: cupy.asnumpy (into np.empty) and torch's .cpu() (into a fresh tensor), plus
CuPy's get(out=) into an existing NumPy array for reference. Wall-clock median after a warm-up;
the new buffer's release is outside the timed region. Run on the GPU machine:
python3 benchmarks/torch/transfer_torch.py
"""
import json
import time

BYTES = 1 << 30


def timed(fn, repeat=7):
    """Median seconds of fn(), the result kept alive until after the clock stops."""
    fn()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        kept = fn()
        times.append(time.perf_counter() - start)
        del kept
    times.sort()
    return times[len(times) // 2]


def report(name, seconds):
    print(json.dumps({"name": name, "ms": round(seconds * 1e3, 2), "GB_per_s": round(BYTES / seconds / 1e9, 2)}),
          flush=True)


def main():
    try:
        import cupy as cp
        import numpy as np
        a = cp.full(BYTES // 4, 1.5, dtype=cp.float32)
        cp.cuda.Device().synchronize()
        report("cupy.asnumpy new 1GiB", timed(lambda: cp.asnumpy(a)))
        existing = np.empty(BYTES // 4, dtype=np.float32)
        existing.fill(0)
        report("cupy get(out=existing) 1GiB", timed(lambda: a.get(out=existing)))
        del a
    except ImportError:
        print(json.dumps({"skipped": "cupy"}))
    import torch
    t = torch.full((BYTES // 4,), 1.5, dtype=torch.float32, device="cuda")
    torch.cuda.synchronize()
    report("torch .cpu() new 1GiB", timed(lambda: t.cpu()))


if __name__ == "__main__":
    main()
