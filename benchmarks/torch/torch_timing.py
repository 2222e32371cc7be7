"""What the PyTorch baseline scripts share: the median time of a call measured with CUDA events on
torch's current stream after a warm-up call, like the C++ benchmarks."""
import torch


def timed(fn, repeat=20):
    """Median seconds per call, timed with CUDA events after a warm-up call."""
    fn()
    torch.cuda.synchronize()
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(repeat):
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop) / 1e3)
    times.sort()
    return times[len(times) // 2]
