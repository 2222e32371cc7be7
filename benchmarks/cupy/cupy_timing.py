"""What every CuPy baseline script shares: CUDA-event timing on CuPy's current stream (the median
of `repeat` calls after a warm-up, like the C++ benchmarks), the command line (--repeat, --json
PATH), and one JSON line per case (name, n, ms, items_per_second, bytes_per_second), through
benchmarks/support/bench_records.py."""
import pathlib
import sys

import cupy as cp

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "support"))
import bench_records  # noqa: E402


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


emit = bench_records.emit  # emit(name, n, total_bytes, ms): one case, printed and kept for --json


def start(doc):
    """Parses --repeat and --json, prints the CuPy version and device as the first line; returns the args."""
    device = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
    return bench_records.start(doc, {"cupy": cp.__version__, "device": device})
