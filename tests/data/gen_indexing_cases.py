#!/usr/bin/env python3
"""Writes indexing_cases.txt: advanced indices (integer arrays, masks, mixed with basic items) on
arrays of random shapes, and NumPy 2's result shape or error text.

Each row: source shape | index | result shape | result values (the source is arange in C order),
or "error | <NumPy's message>" after the index. Index items by ",":
  an integer, s<start>:<stop>:<step> (_ omitted), A (:), N (newaxis), E (...),
  i<dims>=<values> an integer array of that shape (dims by "x", "-" for 0-d; values by "/"),
  b<dims>:<count>=<bits> a boolean mask of that shape with <count> true elements (bits in C order).
The planner (src/ops/index_plan.cpp) is tested on these rows by tests/ops/index_plan_test.cpp.
Run: python3 tests/data/gen_indexing_cases.py (needs numpy>=2).
"""
import pathlib
import random

import numpy as np


def dims_text(shape):
    return "x".join(str(d) for d in shape) if shape else "-"


def item_text(item):
    if isinstance(item, slice):
        f = lambda v: "_" if v is None else str(v)
        return "s%s:%s:%s" % (f(item.start), f(item.stop), f(item.step if item.step is not None else 1))
    if item is None:
        return "N"
    if item is Ellipsis:
        return "E"
    if isinstance(item, np.ndarray):
        if item.dtype == bool:
            bits = "".join("1" if v else "0" for v in item.ravel())
            return "b%s:%d=%s" % (dims_text(item.shape), int(item.sum()), bits)
        return "i%s=%s" % (dims_text(item.shape), "/".join(str(v) for v in item.ravel()))
    if item == "A":
        return "A"
    return str(item)


def to_numpy(item):
    return slice(None) if isinstance(item, str) and item == "A" else item


def random_index(rng, shape):
    items = []
    axis = 0
    used_ellipsis = False
    for _ in range(rng.randint(1, 4)):
        if axis >= len(shape) and rng.random() < 0.85:
            break
        r = rng.random()
        n = shape[axis] if axis < len(shape) else rng.randint(1, 4)
        if r < 0.3:  # an integer array, mostly broadcast-compatible shapes
            ishape = rng.choice([(), (2,), (3,), (2, 1), (1, 3), (2, 3), (0,), (4,)])
            items.append(np.array(np.random.default_rng(rng.randint(0, 99)).integers(-n, n, ishape) if n > 0 else
                                  np.zeros(ishape, np.int64), dtype=np.int64))
            axis += 1
        elif r < 0.45:  # a mask over the next 1 or 2 axes (sometimes of a wrong extent)
            k = rng.choice([1, 1, 2])
            mshape = list(shape[axis:axis + k]) or [rng.randint(0, 3)]
            if rng.random() < 0.15:
                mshape[0] += 1
            items.append(np.random.default_rng(rng.randint(0, 99)).random(mshape) < 0.5)
            axis += len(mshape)
        elif r < 0.6:
            items.append(rng.randint(-n, n - 1) if n > 0 and rng.random() < 0.9 else n)
            axis += 1
        elif r < 0.75:
            items.append(slice(rng.choice([None, 0, 1, -1]), rng.choice([None, 2, -1]), rng.choice([1, 1, 2, -1])))
            axis += 1
        elif r < 0.85:
            items.append("A")
            axis += 1
        elif r < 0.93:
            items.append(None)
        elif not used_ellipsis or rng.random() < 0.1:
            items.append(Ellipsis)
            used_ellipsis = True
    if not any(isinstance(i, np.ndarray) for i in items):
        items.append(np.array([0, -1], dtype=np.int64) if (len(shape) > axis and shape[axis] > 0) else
                     np.zeros((0,), np.int64))
    return items


def row(shape, items):
    a = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
    try:
        result = a[tuple(to_numpy(i) for i in items)]
        tail = " ".join(str(d) for d in result.shape) + " | " + " ".join(str(v) for v in result.ravel())
    except (IndexError, ValueError) as e:
        tail = "error | " + str(e)
    return "%s | %s | %s" % (" ".join(str(d) for d in shape), ",".join(item_text(i) for i in items), tail)


def main():
    rng = random.Random(16)
    rows = ["# numpy " + np.__version__]
    m = lambda *s: np.ones(s, bool)
    i = lambda *s: -(np.arange(int(np.prod(s)), dtype=np.int64) % 2).reshape(s)
    fixed = [
        ((3, 4, 5), [i(2), i(3)]),
        ((3, 4, 5), [0, i(2), i(3)]),
        ((3, 4, 5), [i(2), i(3, 1), i(4)]),
        ((3, 4, 5), [m(3, 5)]),
        ((3, 4, 5), ["A", m(3, 5)]),
        ((3, 4, 5), [m(3, 4, 5, 6)]),
        ((3, 4, 5), [i(1), i(1), i(1), i(1)]),
        ((3, 4, 5), [i(1), Ellipsis, Ellipsis]),
        ((3, 4, 5), [None, i(2)]),
        ((3, 4, 5), [i(2), None]),
        ((3, 4, 5), ["A", None, i(2)]),
        ((3, 4, 5), [None, "A", i(2)]),
        ((3, 4, 5), [i(1), Ellipsis, i(1)]),
        ((3, 4, 5), [0, "A", i(2)]),
        ((3, 4, 5), ["A", 0, i(2)]),
        ((3, 4, 5), [i(2), "A", 0]),
        ((3, 4, 5), [None, 0, i(2)]),
        ((3, 4, 5), [0, None, i(2)]),
        ((3, 4, 5), [3, i(2)]),
        ((3, 4, 5), [-4, i(2)]),
        ((3, 4, 5), [np.zeros((3, 4), bool), 0]),
        ((3, 4, 5), [1, m(4)]),
        ((3, 4, 5), [i(0)]),
        ((3, 4, 5), [i(2, 0), "A", i(1)]),
        ((0, 3), [i(0)]),
        ((0, 3), [m(0)]),
        ((5,), [m(5)]),
        ((2, 3), [m(2, 3)]),
        ((2, 3), [m(2, 3), None]),
        ((4, 5, 6, 7), ["A", i(2, 1), "A", i(3)]),
        ((4, 5, 6, 7), [Ellipsis, i(2, 1), i(3)]),
        ((4, 5, 6, 7), [i(2, 1), slice(None, None, -1), i(3), 1]),
    ]
    for shape, items in fixed:
        rows.append(row(shape, items))
    for _ in range(400):
        shape = tuple(rng.randint(0, 5) if rng.random() < 0.1 else rng.randint(1, 5) for _ in range(rng.randint(1, 4)))
        rows.append(row(shape, random_index(rng, shape)))
    out = pathlib.Path(__file__).with_name("indexing_cases.txt")
    out.write_text("\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
