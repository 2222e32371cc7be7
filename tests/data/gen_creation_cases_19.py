#!/usr/bin/env python3
"""Writes creation_cases_19.txt: NumPy 2's logspace, geomspace (real and complex), linspace (retstep, array
endpoints), full with an array fill, fromfunction, tri and vander, for
tests/ops/creation_functions_gpu_test.cpp.

Each case is three lines:
  <function> <dtype> <arguments as key=value, lists comma-separated>
  <result shape, space-separated; "-" for 0-d>  [step=<value> for linspace retstep]
  <values in C order as Python reprs (complex as re,im)>
Run: python3 tests/data/gen_creation_cases_19.py (needs numpy>=2).
"""
import pathlib

import numpy as np

DT = {"float64": np.float64, "float32": np.float32, "int64": np.int64, "int32": np.int32}


def fmt(a):
    flat = np.asarray(a).reshape(-1)
    if flat.dtype.kind == "c":
        return " ".join(f"{float(v.real)!r},{float(v.imag)!r}" for v in flat)
    if flat.dtype.kind == "f":
        return " ".join(repr(float(v)) for v in flat)
    return " ".join(str(int(v)) for v in flat)


def lst(v):
    return ",".join(repr(float(x)) if isinstance(x, float) else str(x) for x in v)


# fromfunction bodies, the same in the C++ test (by name)
FUNCTIONS = {
    "i10j": lambda i, j: i * 10 + j,
    "isq_minus_j": lambda i, j: i * i - 2 * j,
    "ijk": lambda i, j, k: i * 100 + j * 10 + k,
    "i_only": lambda i, j: i + 0 * j,
}


def cases():
    with np.errstate(all="ignore"):
        for dt in ["float64", "float32"]:
            for start, stop, num, endpoint, base in [(0.0, 3.0, 4, True, 10.0), (-2.0, 2.0, 9, False, 2.0),
                                                     (1.0, -1.5, 7, True, np.e), (0.5, 0.5, 1, True, 10.0),
                                                     (0.0, 1.0, 0, True, 10.0), (2.0, 3.0, 5, True, 0.5)]:
                r = np.logspace(start, stop, num, endpoint, base, dtype=DT[dt])
                yield "logspace", dt, f"start={start!r} stop={stop!r} num={num} endpoint={int(endpoint)} base={base!r}", r, None
            for start, stop, num, endpoint in [(1.0, 1000.0, 4, True), (-1.0, -1000.0, 4, True), (1.0, 1000.0, 3, False),
                                               (1000.0, 1.0, 5, True), (2.0, 2.0, 1, True), (0.3, 7.1, 10, True),
                                               (1.0, -8.0, 4, True), (1.0, 2.0, 0, True), (-0.001, -5e3, 6, False)]:
                r = np.geomspace(start, stop, num, endpoint, dtype=DT[dt])
                yield "geomspace", dt, f"start={start!r} stop={stop!r} num={num} endpoint={int(endpoint)}", r, None
        for start, stop, num, endpoint in [(1j, 1000j, 4, True), (-1 + 0j, 1 + 0j, 5, True), (1 + 1j, 1000 + 1000j, 4, True),
                                           (2 + 0j, 8 + 0j, 3, False), (-2 - 2j, -8 - 8j, 3, True), (3 + 4j, -5j, 6, True),
                                           (1 + 0j, -1 + 0j, 3, True)]:
            r = np.geomspace(start, stop, num, endpoint)
            yield ("geomspace_complex", "complex128",
                   f"start={start.real!r},{start.imag!r} stop={stop.real!r},{stop.imag!r} num={num} endpoint={int(endpoint)}",
                   r, None)
        for dt in ["float64", "float32", "int64"]:
            for start, stop, num, endpoint in [(0.0, 1.0, 5, True), (0.0, 1.0, 5, False), (0.0, 1.0, 1, True),
                                               (0.0, 1.0, 1, False), (0.0, 1.0, 0, True), (-3.5, 10.25, 8, True)]:
                r, step = np.linspace(start, stop, num, endpoint, retstep=True, dtype=DT[dt])
                yield "linspace_retstep", dt, f"start={start!r} stop={stop!r} num={num} endpoint={int(endpoint)}", r, float(step)
            for start, stop, num, endpoint, axis in [([0.0, 1.0, -2.0], [1.0, 5.0, 2.0], 5, True, 0),
                                                     ([0.0, 1.0, -2.0], [1.0, 5.0, 2.0], 4, False, 1),
                                                     ([[0.0], [10.0]], [1.0, 2.0, 3.0], 3, True, -1),
                                                     ([[0.0], [10.0]], [1.0, 2.0, 3.0], 3, True, 1),
                                                     ([1.0, 2.0], [1.0, 2.0], 3, True, 0),
                                                     ([0.0, 1.0], [5.0, 6.0], 1, True, 0),
                                                     ([0.0, 1.0], [5.0, 6.0], 0, True, 0)]:
                s, e = np.array(start), np.array(stop)
                r = np.linspace(s, e, num, endpoint, axis=axis, dtype=DT[dt])
                yield ("linspace_array", dt,
                       f"start={lst(s.reshape(-1))} start_shape={lst(s.shape)} stop={lst(e.reshape(-1))} "
                       f"stop_shape={lst(e.shape)} num={num} endpoint={int(endpoint)} axis={axis}", r, None)
        for dt in ["float64", "int32"]:
            for shape, fill in [((2, 3), [1.5, -2.0, 7.0]), ((4, 2), [[1.0], [2.0], [3.0], [4.0]]),
                                ((3,), [9.75]), ((2, 2, 2), [[1.0, 2.0], [3.0, 4.0]])]:
                f = np.array(fill)
                r = np.full(shape, f, dtype=DT[dt])
                yield "full", dt, f"shape={lst(shape)} fill={lst(f.reshape(-1))} fill_shape={lst(f.shape)}", r, None
        for dt in ["float64", "float32", "int64"]:
            for name, shape in [("i10j", (3, 4)), ("isq_minus_j", (5, 2)), ("ijk", (2, 3, 4)), ("i_only", (3, 2))]:
                r = np.fromfunction(FUNCTIONS[name], shape, dtype=DT[dt])
                yield "fromfunction", dt, f"f={name} shape={lst(shape)}", r, None
        for dt in ["float64", "int32"]:
            for n, m, k in [(3, 3, 0), (3, 5, 2), (4, 2, -1), (0, 3, 0), (3, 0, 1), (4, 4, -10), (2, 3, 10)]:
                r = np.tri(n, m, k, dtype=DT[dt])
                yield "tri", dt, f"n={n} m={m} k={k}", r, None
        for dt, x in [("float64", [1.0, 2.0, -3.0, 0.5]), ("int32", [1, 2, 3, -5]), ("float32", [1.5, -0.25, 3.0]),
                      ("int64", [7, -2])]:
            for n, inc in [(None, False), (None, True), (5, False), (1, True), (0, False)]:
                xa = np.array(x, dtype=DT[dt])
                r = np.vander(xa, n, inc)
                nn = -1 if n is None else n
                yield "vander", dt, f"x={lst(x)} n={nn} increasing={int(inc)} result={r.dtype.name}", r, None


def main():
    out = [f"# numpy {np.__version__}"]
    for func, dt, args, r, step in cases():
        out.append(f"{func} {dt} {args}")
        shape = " ".join(map(str, r.shape)) if r.ndim else "-"
        out.append(shape + ("" if step is None else f" step={step!r}"))
        out.append(fmt(r))
    path = pathlib.Path(__file__).with_name("creation_cases_19.txt")
    path.write_text("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
