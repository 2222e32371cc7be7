"""What every CuPy baseline script shares: CUDA-event timing on CuPy's current stream (the median
of `repeat` calls after a warm-up, like the C++ benchmarks), the command line, and one JSON line per
case (name, n, ms, items_per_second, bytes_per_second)."""
import argparse
import json

import cupy as cp


def timed(fn, repeat):
    fn()  # warm-up: kernel compilation/loading, memory pool growth
    cp.cuda.Stream.null.synchronize()
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    times = []
    for _ in range(repeat):
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, stop))
    times.sort()
    return times[len(times) // 2]


def emit(name, n, total_bytes, ms):
    seconds = ms / 1e3
    print(json.dumps({"name": name, "n": n, "ms": round(ms, 4), "items_per_second": n / seconds,
                      "bytes_per_second": total_bytes / seconds}), flush=True)


def start(doc):
    """Parses --repeat, prints the CuPy version and device as the first line; returns the args."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    print(json.dumps({"cupy": cp.__version__, "device": cp.cuda.runtime.getDeviceProperties(0)["name"].decode()}))
    return args
