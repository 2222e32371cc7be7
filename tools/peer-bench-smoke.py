#!/usr/bin/env python3
"""Runs every PyTorch/CuPy peer benchmark script (benchmarks/torch/*.py, benchmarks/cupy/*.py) on a
machine without a GPU, torch or CuPy: fake `torch`, `cupy` and `numpy` modules answer every call
with a number, CUDA events and time.perf_counter return a fixed sequence of times. Checks that the
scripts and their shared timing helpers (benchmarks/support/peer_timing.py, torch_timing.py,
cupy_timing.py) run to the end, and prints their output: the same tree always prints the same
text, so diffing the output of two commits shows any change in a script's rows or figures.
Standard library only; not part of CI.

    python3 tools/peer-bench-smoke.py > /tmp/after.txt     # exit status 1 when a script fails
"""
import contextlib
import io
import pathlib
import runpy
import sys
import time
import traceback

ROOT = pathlib.Path(__file__).resolve().parents[1]


class Fake(float):
    """Any tensor, array, module, dtype or kernel: attributes, calls, items and arithmetic all give
    a Fake again, whose value depends on the attribute's name, so that dtypes compare unequal."""

    def __getattr__(self, name):
        if name.startswith("__") and name != "__version__":
            raise AttributeError(name)
        return Fake((sum(map(ord, name)) % 997 + 1) * 1e6)

    def __call__(self, *args, **kwargs):
        return Fake(1.5e3)

    def __getitem__(self, key):
        return Fake(2.0)

    def __setitem__(self, key, value):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    __hash__ = float.__hash__


def _arith(op):
    return lambda self, other: Fake(getattr(float(self), op)(float(other)))


for _op in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "lt", "gt", "le", "ge"):
    setattr(Fake, f"__{_op}__", _arith(f"__{_op}__"))
    if _op not in ("lt", "gt", "le", "ge"):
        setattr(Fake, f"__r{_op}__", _arith(f"__r{_op}__"))
Fake.__neg__ = lambda self: Fake(-float(self))
Fake.__matmul__ = Fake.__mul__


class Clock:
    """A fixed, irregular sequence of durations, so that a median picks a definite element."""

    def __init__(self, step):
        self.k, self.now, self.step = 0, 0.0, step

    def next_duration(self):
        self.k += 1
        return ((self.k * 7919) % 101 + 1) * self.step

    def perf_counter(self):
        self.now += self.next_duration()
        return self.now


EVENTS = Clock(0.01)  # milliseconds, as CUDA events report
WALL = Clock(1e-4)  # seconds


class Event:
    def __init__(self, *args, **kwargs):
        pass

    def record(self, *args):
        pass

    def synchronize(self):
        pass

    def elapsed_time(self, stop):
        return EVENTS.next_duration()


def install():
    torch, cupy = Fake(1.0), Fake(1.0)
    torch.cuda = Fake(1.0)
    torch.cuda.Event = Event
    cupy.cuda = Fake(1.0)
    cupy.cuda.Event = Event
    cupy.cuda.get_elapsed_time = lambda start, stop: EVENTS.next_duration()
    torch.nn = Fake(1.0)
    sys.modules.update({"torch": torch, "torch.nn": torch.nn, "torch.nn.functional": torch.nn.functional,
                        "cupy": cupy, "numpy": Fake(1.0)})
    time.perf_counter = WALL.perf_counter
    time.sleep = lambda seconds: None


def run(script):
    """Runs one script as `python3 script --json PATH` would (its folder first on sys.path)."""
    saved_path, saved_argv = list(sys.path), list(sys.argv)
    sys.path.insert(0, str(script.parent))
    sys.argv = [str(script)]
    try:
        runpy.run_path(str(script), run_name="__main__")
    finally:
        sys.path[:], sys.argv[:] = saved_path, saved_argv
        for name in ("torch_timing", "cupy_timing", "peer_timing", "bench_records"):
            sys.modules.pop(name, None)


def main():
    install()
    failed = 0
    scripts = sorted((ROOT / "benchmarks" / "torch").glob("*.py")) + sorted((ROOT / "benchmarks" / "cupy").glob("*.py"))
    for script in scripts:
        print(f"== {script.relative_to(ROOT)}", flush=True)
        out = io.StringIO()
        try:
            with contextlib.redirect_stdout(out):
                run(script)
        except BaseException:  # noqa: B036 (argparse's SystemExit included)
            failed += 1
            print(out.getvalue() + traceback.format_exc())
            continue
        print(out.getvalue(), end="")
    print(f"== {len(scripts) - failed} of {len(scripts)} scripts ran to the end")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
