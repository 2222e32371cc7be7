#!/usr/bin/env python3
"""Reading 1 GiB of float32 back to the host into a NEW buffer, as memory_bench.cpp's
to_host_new_* cases do: cupy.asnumpy (into np.empty) and torch's .cpu() (into a fresh tensor), plus
CuPy's get(out=) into an existing NumPy array for reference. Wall-clock median after a warm-up;
the new buffer's release is outside the timed region. Run on the GPU machine:
python3 benchmarks/torch/transfer_torch.py
"""
import json
import pathlib
import sys

# peer_timing, not torch_timing: torch is imported only after the CuPy cases, as before.
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "support"))
from peer_timing import wall_timed  # noqa: E402

BYTES = 1 << 30


def timed(fn):
    return wall_timed(fn, repeat=7)


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
