#!/usr/bin/env python3
"""The cases of benchmarks/arrange_bench.cpp measured with CuPy, for a side-by-side table.

Each case is timed with CUDA events on CuPy's current stream (warm-up first, median of --repeat),
like the C++ benchmark, and printed as one JSON object per line: name, n, ms, items_per_second,
bytes_per_second (the same byte counts as the C++ counters). Run on the GPU machine:

    python3 benchmarks/cupy/arrange_cupy.py [--repeat 20]
"""
import cupy as cp

from cupy_timing import emit, memcpy_d2d_ms, start, timed


def main():
    args = start(__doc__)
    side = 8192

    for n in (8 << 25, side * side):
        emit(f"memcpy_d2d/{n}", n, 8 * n, memcpy_d2d_ms(n, args.repeat))

    pieces = [cp.full(1 << 25, i, dtype=cp.float32) for i in range(8)]
    emit("concatenate_axis0", 8 << 25, 8 * (8 << 25), timed(lambda: cp.concatenate(pieces, 0), args.repeat))
    del pieces
    blocks = [cp.full((4096, 1024), i, dtype=cp.float32) for i in range(8)]
    emit("concatenate_axis1", 1 << 25, 8 << 25, timed(lambda: cp.concatenate(blocks, 1), args.repeat))
    del blocks

    m = cp.ones((side, side), dtype=cp.float32)
    out = (side + 32) ** 2
    for i, mode in enumerate(("constant", "reflect", "wrap")):
        emit(f"pad/{i}", out, 4 * (side * side + out), timed(lambda: cp.pad(m, 16, mode), args.repeat))
    emit("roll/0", side * side, 8 * side * side, timed(lambda: cp.roll(m, (37, -1001), (0, 1)), args.repeat))
    emit("roll/1", side * side, 8 * side * side, timed(lambda: cp.roll(m, 12345), args.repeat))
    del m
    h = cp.ones((side // 2, side // 2), dtype=cp.float32)
    emit("tile", side * side, 4 * side * side, timed(lambda: cp.tile(h, (2, 2)), args.repeat))
    r = cp.ones((side, side // 2), dtype=cp.float32)
    emit("repeat", side * side, 4 * side * side, timed(lambda: cp.repeat(r, 2, 1), args.repeat))


if __name__ == "__main__":
    main()
