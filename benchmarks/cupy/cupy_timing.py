"""What the CuPy baseline scripts (benchmarks/cupy/*.py; linalg_torch.py's CuPy rows) share:
timed(), the CUDA-event timing loop of benchmarks/support/peer_timing.py on CuPy's current stream,
in MILLISECONDS (what emit takes), the command line (--repeat, --json PATH) and one JSON line per
case (name, n, ms, items_per_second, bytes_per_second) through benchmarks/support/bench_records.py,
and peer_timing's other helpers re-exported, so that a script imports from this module only."""
import pathlib
import sys

import cupy as cp

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "support"))
import bench_records  # noqa: E402
import peer_timing  # noqa: E402
from peer_timing import first_call_ms, json_row, median, rate, text_row, wall_timed  # noqa: E402,F401


def timed(fn, repeat=20, calls=1):
    """Median milliseconds per call: CUDA events around `calls` calls, `repeat` times, after a warm-up call."""
    return peer_timing.event_timed(fn, cp.cuda.Stream.null.synchronize, cp.cuda.Event, cp.cuda.get_elapsed_time,
                                   repeat, calls)


def memcpy_d2d_ms(n, repeat=20):
    """The raw limit that several scripts print beside their cases: timed() of a cudaMemcpyAsync D2D
    of n float32 (n * 4 bytes read, as many written) on CuPy's current stream, in milliseconds."""
    a = cp.zeros(n, dtype=cp.float32)
    c = cp.empty_like(a)
    return timed(lambda: cp.cuda.runtime.memcpyAsync(c.data.ptr, a.data.ptr, a.nbytes,
                                                     cp.cuda.runtime.memcpyDeviceToDevice,
                                                     cp.cuda.get_current_stream().ptr), repeat)


def add_at(a, idx, v):
    """np.add.at as a CuPy user writes it: cp.add.at where this CuPy has it, else cupyx.scatter_add."""
    if hasattr(cp.add, "at"):
        cp.add.at(a, idx, v)
    else:
        import cupyx  # noqa: PLC0415 (only CuPy versions without ufunc.at need it)
        cupyx.scatter_add(a, idx, v)


emit = bench_records.emit  # emit(name, n, total_bytes, ms): one case, printed and kept for --json


def start(doc):
    """Parses --repeat and --json, prints the CuPy version and device as the first line; returns the args."""
    device = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
    return bench_records.start(doc, {"cupy": cp.__version__, "device": device})
