#!/usr/bin/env python3
"""The bandwidth sweeps of benchmarks/elementwise_bench.cpp and reduction_bench.cpp measured with PyTorch.

float32 at 2^20 .. 2^28 elements, a factor 4 apart (nd::bench::bandwidth_sweep): torch.add out=
(3 arrays of traffic), the full reduction torch.sum(a) (bytes read), and the copy c.copy_(a) (read
+ write). One call per CUDA-event timing, the median of --repeat after a warm-up, as the C++ sweeps.
One JSON object per line (benchmarks/support/bench_records.py); --json PATH also writes them to one
file for tools/plot_bandwidth.py. Run on the GPU machine:

    python3 benchmarks/torch/bandwidth_torch.py [--repeat 20] [--json out/bandwidth_torch.json]
"""
import torch

from torch_timing import bench_records, timed

SIZES = [1 << p for p in range(20, 29, 2)]


def main():
    args = bench_records.start(__doc__, {"torch": torch.__version__, "device": torch.cuda.get_device_name(0)})
    for n in SIZES:
        a = torch.ones(n, dtype=torch.float32, device="cuda")
        b = torch.ones(n, dtype=torch.float32, device="cuda")
        c = torch.empty(n, dtype=torch.float32, device="cuda")
        nbytes = a.element_size() * n
        cases = (("add_float32", 3 * nbytes, lambda: torch.add(a, b, out=c)),
                 ("sum_float32", nbytes, lambda: torch.sum(a)),
                 ("copy_float32", 2 * nbytes, lambda: c.copy_(a)))
        for name, traffic, fn in cases:
            bench_records.emit(name, n, traffic, timed(fn, repeat=args.repeat) * 1e3)
        del a, b, c, cases
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
