"""The framework-neutral part of the PyTorch and CuPy baseline scripts' timing: the CUDA-event timing
loop (given the framework's event and synchronize functions), wall-clock timings, the median, and
the printing of a text or JSON result row. benchmarks/torch/torch_timing.py and
benchmarks/cupy/cupy_timing.py bind the loop to their framework and re-export the rest, so a script
imports from one of them only. Standard library only."""
import json
import time


def median(values):
    """The middle of the sorted values; of an even count, the upper of the two middle ones."""
    values = sorted(values)
    return values[len(values) // 2]


def event_timed(fn, sync, event, elapsed, repeat, calls=1):
    """The median time per call of `repeat` CUDA-event timings, each of `calls` calls queued back to
    back (calls=1: a lone call), after one warm-up call (kernel compilation and loading, memory pool
    growth) and sync(). event() makes an event whose record() enqueues it on the framework's current
    stream; elapsed(start, stop) is the time between two events, in the unit the result has."""
    fn()
    sync()
    start, stop = event(), event()
    times = []
    for _ in range(repeat):
        start.record()
        for _ in range(calls):
            fn()
        stop.record()
        stop.synchronize()
        times.append(elapsed(start, stop) / calls)
    return median(times)


def wall_timed(fn, repeat):
    """Median wall-clock seconds of fn() after one warm-up call; what fn returns stays alive until
    the clock has stopped (its release is not timed)."""
    fn()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        kept = fn()
        times.append(time.perf_counter() - start)
        del kept
    return median(times)


def first_call_ms(call, sync):
    """Wall-clock milliseconds of call() up to sync() returning: the first call of a kernel never
    compiled before (compile + load + launch)."""
    sync()
    start = time.perf_counter()
    call()
    sync()
    return (time.perf_counter() - start) * 1e3


def rate(amount, seconds, unit, scale=1e9, digits=1):
    """amount per second over `scale`, as a 10-wide column followed by its unit: "    1234.5 GB/s"."""
    return f"{amount / seconds / scale:10.{digits}f} {unit}"


def text_row(name, seconds, rate_text="", width=40, us_width=10):
    """Prints one result row: the name padded to `width`, microseconds, then rate_text (rate())."""
    print(f"{name:<{width}} {seconds * 1e6:{us_width}.1f} us {rate_text}")


def json_row(name, seconds, traffic, **where):
    """Prints one result as a JSON line: name, the fields of `where` (n=, shape=), microseconds and
    GB/s of `traffic` bytes."""
    row = {"name": name, **where, "us": round(seconds * 1e6, 2), "GB_per_s": round(traffic / seconds / 1e9, 1)}
    print(json.dumps(row), flush=True)
