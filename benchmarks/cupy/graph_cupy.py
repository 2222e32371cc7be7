"""CuPy's figures for benchmarks/graph_bench.cpp, on the same GPU: 100 adds of 2^16 float32
captured into one CUDA graph and replayed (time per op), beside the same 100 adds launched
eagerly. Run: python3 benchmarks/cupy/graph_cupy.py (CuPy 13+)."""
import time

import cupy as cp

N = 1 << 16
OPS = 100
REPEATS = 2000


def per_op_us(step, stream):
    step()  # warm-up: compiles and loads
    stream.synchronize()
    start = time.perf_counter()
    for _ in range(REPEATS):
        step()
        stream.synchronize()
    return (time.perf_counter() - start) / REPEATS / OPS * 1e6


def main():
    stream = cp.cuda.Stream(non_blocking=True)
    with stream:
        a = cp.ones(N, dtype=cp.float32)
        b = cp.ones(N, dtype=cp.float32)
        c = cp.empty(N, dtype=cp.float32)
        cp.add(a, b, out=c)
        stream.synchronize()

        def eager():
            for _ in range(OPS):
                cp.add(a, b, out=c)

        stream.begin_capture()
        eager()
        graph = stream.end_capture()
        graph.upload(stream)
        replay = per_op_us(lambda: graph.launch(stream), stream)
        direct = per_op_us(eager, stream)
        assert float(c[0]) == 2.0
    print(f"cupy {cp.__version__} on {cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}")
    print(f"graph_replay_100_adds_cupy: {replay:.3f} us per op")
    print(f"eager_100_adds_cupy:        {direct:.3f} us per op")


if __name__ == "__main__":
    main()
