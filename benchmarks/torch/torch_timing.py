"""What the PyTorch baseline scripts (benchmarks/torch/*.py) share: timed(), the CUDA-event timing
loop of benchmarks/support/peer_timing.py on torch's current stream, in seconds, and the helpers of
peer_timing and bench_records (the --repeat/--json command line, JSON records) re-exported, so that
a script imports from this module only."""
import pathlib
import sys

import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "support"))
import bench_records  # noqa: E402,F401  (re-exported)
import peer_timing  # noqa: E402
from peer_timing import first_call_ms, json_row, median, rate, text_row, wall_timed  # noqa: E402,F401


def _event():
    return torch.cuda.Event(enable_timing=True)


def _elapsed_seconds(start, stop):
    return start.elapsed_time(stop) / 1e3


def timed(fn, repeat=20, calls=1):
    """Median seconds per call: CUDA events around `calls` calls, `repeat` times, after a warm-up call."""
    return peer_timing.event_timed(fn, torch.cuda.synchronize, _event, _elapsed_seconds, repeat, calls)
