#!/usr/bin/env python3
"""Writes arrange_cases.txt: NumPy's results for joining, splitting and rearranging, read by
tests/ops/arrange_plan_test.cpp (shapes, layouts, index maps, error texts on the CPU) and
tests/ops/arrange_gpu_test.cpp (the same cases on the device).

One case per line, fields separated by ';', the last field `ok:<result>` or `error:<message>`.
Shapes are written 2x3 (the empty shape as '-'), lists as 1,2,3 (empty: '-'), 'n' is None.
Gather cases read an input arange(1, size + 1) (so 0 is tril/triu's zero) and give the output's
shape and its values; pad's constant values are -(2d+1) before and -(2d+2) after axis d.
Views give shape|strides|offset in elements of arange(size) viewed."""
import os

import numpy as np


def sh(s):
    return "x".join(map(str, s)) if len(s) else "-"


def lst(v):
    return ",".join(map(str, v)) if len(v) else "-"


def err(f):
    try:
        return "ok:" + f()
    except Exception as e:  # noqa: BLE001 - NumPy's messages are what we compare
        return "error:" + str(e)


lines = []


def add(*fields):
    lines.append(";".join(str(f) for f in fields))


# ---- concatenate / stack ------------------------------------------------------------------------
concat_cases = [
    ([(2, 3), (2, 4)], 1), ([(2, 3), (2, 4)], 0), ([(2, 3), (5, 3)], 0), ([(2, 3), (5, 3)], -2),
    ([(2, 3), (2,)], 0), ([], 0), ([(), ()], 0), ([(2, 3)], 2), ([(2, 3)], -3), ([(0, 3), (2, 3), (0, 3)], 0),
    ([(2, 3, 4), (2, 1, 4), (2, 0, 4)], 1), ([(2, 3), (2, 4)], None), ([(), (2, 2)], None), ([(4,)] * 8, 0),
    ([(2, 3, 4), (2, 3, 5)], -1), ([(3, 2), (3, 2), (3, 3)], 0),
]
for shapes, axis in concat_cases:
    arrs = [np.zeros(s) for s in shapes]
    add("concat", "|".join(sh(s) for s in shapes) or "-", "n" if axis is None else axis,
        err(lambda: sh(np.concatenate(arrs, axis=axis).shape)))

for shapes, axis in [([(2, 3), (2, 3)], 0), ([(2, 3), (2, 3)], 2), ([(2, 3), (2, 3)], -1), ([(2, 3), (2, 3)], 3),
                     ([(2, 3), (2, 4)], 0), ([], 0), ([(), (), ()], 0)]:
    arrs = [np.zeros(s) for s in shapes]
    add("stack", "|".join(sh(s) for s in shapes) or "-", axis, err(lambda: sh(np.stack(arrs, axis=axis).shape)))

for fn in ["hstack", "vstack", "dstack", "column_stack"]:
    for shapes in [[(3,), (3,)], [(2, 3), (2, 1)], [(), ()], [(2, 3, 4), (2, 3, 1)], [(3,), (4,)], [(2, 3), (2,)]]:
        arrs = [np.zeros(s) for s in shapes]
        add(fn, "|".join(sh(s) for s in shapes), err(lambda: sh(getattr(np, fn)(arrs).shape)))

# ---- split ----------------------------------------------------------------------------------------


def bounds(pieces, axis, n):
    # Each piece is a view: its start along the axis from its offset.
    out = []
    for p in pieces:
        out.append(str(p.shape[axis]))
    return lst(out)


split_cases = [
    ((6,), 0, "s", 3), ((6,), 0, "s", 4), ((5,), 0, "a", 3), ((5,), 0, "a", 7), ((5,), 0, "a", 0), ((5,), 0, "s", 0),
    ((4, 6), 1, "s", 2), ((4, 6), -1, "a", 4), ((4, 6), 2, "s", 2), ((8,), 0, "i", [3, 5]), ((8,), 0, "i", [5, 3]),
    ((8,), 0, "i", [-2, 10, 20]), ((8,), 0, "i", []), ((0,), 0, "a", 3), ((4, 6), 0, "i", [1, 1, 2]),
    ((4, 6), 1, "h", 3), ((6,), 0, "h", 2), ((), 0, "h", 2), ((4, 6), 0, "v", 2), ((6,), 0, "v", 2),
    ((4, 6), 0, "v", [1]), ((2, 2, 4), 2, "d", 2), ((2, 4), 2, "d", 2),
]
for shape, axis, kind, arg in split_cases:
    a = np.arange(int(np.prod(shape))).reshape(shape)

    def run():
        if kind == "s":
            p = np.split(a, arg, axis)
        elif kind == "a":
            p = np.array_split(a, arg, axis)
        elif kind == "i":
            p = np.split(a, arg, axis)
        elif kind == "h":
            p = np.hsplit(a, arg)
        elif kind == "v":
            p = np.vsplit(a, arg)
        else:
            p = np.dsplit(a, arg)
        ax = {"h": 1 if a.ndim > 1 else 0, "v": 0, "d": 2}.get(kind, axis % max(a.ndim, 1))
        starts = [(x.__array_interface__["data"][0] - a.__array_interface__["data"][0]) // a.itemsize //
                  (a.strides[ax] // a.itemsize) if x.size else -1 for x in p]
        return str(ax) + ":" + "|".join(f"{s}+{x.shape[ax]}" for s, x in zip(starts, p))

    # A list of indices is written with a leading 'i' (i1,5), so that [1] differs from 1 section.
    add("split", sh(shape), axis, kind, "i" + lst(arg) if isinstance(arg, list) else arg, err(run))

# ---- views ----------------------------------------------------------------------------------------


def layout(base, v):
    off = (v.__array_interface__["data"][0] - base.__array_interface__["data"][0]) // base.itemsize
    return sh(v.shape) + "|" + lst([s // base.itemsize for s in v.strides]) + "|" + str(off)


view_cases = [
    ("flip", (2, 3, 4), "-"), ("flip", (2, 3, 4), "1"), ("flip", (2, 3, 4), "0,2"), ("flip", (2, 3, 4), "-1"),
    ("flip", (2, 3), "3"), ("flip", (2, 3), "0,0"), ("flip", (0, 3), "0"),
    ("rot90", (3, 4), "1,0,1"), ("rot90", (3, 4), "2,0,1"), ("rot90", (3, 4), "3,0,1"), ("rot90", (3, 4), "-1,0,1"),
    ("rot90", (3, 4), "4,0,1"), ("rot90", (2, 3, 4), "1,2,0"), ("rot90", (2, 3, 4), "5,-1,-3"),
    ("rot90", (4,), "1,0,1"), ("rot90", (3, 4), "1,0,0"), ("rot90", (3, 4), "1,0,3"), ("rot90", (3, 4), "1,0,2"),
    ("moveaxis", (2, 3, 4), "0/2"), ("moveaxis", (2, 3, 4), "-1/0"), ("moveaxis", (2, 3, 4, 5), "0,1/3,2"),
    ("moveaxis", (2, 3), "0,1/0"), ("moveaxis", (2, 3), "0,0/0,1"), ("moveaxis", (2, 3), "5/0"),
    ("moveaxis", (2, 3), "0/-5"),
    ("diagonal", (3, 4), "0,0,1"), ("diagonal", (3, 4), "1,0,1"), ("diagonal", (3, 4), "-2,0,1"),
    ("diagonal", (3, 4), "5,0,1"), ("diagonal", (3, 4), "-3,0,1"), ("diagonal", (2, 3, 4), "1,2,0"),
    ("diagonal", (2, 3, 4), "0,-1,1"), ("diagonal", (4,), "0,0,1"), ("diagonal", (3, 3), "0,1,1"),
    ("diagonal", (3, 3), "0,0,5"),
    ("atleast", (), "1"), ("atleast", (), "2"), ("atleast", (), "3"), ("atleast", (5,), "1"), ("atleast", (5,), "2"),
    ("atleast", (5,), "3"), ("atleast", (2, 3), "3"), ("atleast", (2, 3, 4, 5), "3"),
    ("fliplr", (4,), "-"), ("fliplr", (2, 3), "-"), ("flipud", (), "-"), ("flipud", (2, 3), "-"),
]
for op, shape, arg in view_cases:
    a = np.arange(int(np.prod(shape))).reshape(shape)
    ints = [] if arg == "-" else arg

    def run():
        if op == "flip":
            axes = None if arg == "-" else tuple(int(x) for x in arg.split(","))
            return layout(a, np.flip(a, axes))
        if op == "rot90":
            k, a0, a1 = (int(x) for x in arg.split(","))
            return layout(a, np.rot90(a, k, (a0, a1)))
        if op == "moveaxis":
            s, d = arg.split("/")
            return layout(a, np.moveaxis(a, [int(x) for x in s.split(",")], [int(x) for x in d.split(",")]))
        if op == "diagonal":
            o, a1, a2 = (int(x) for x in arg.split(","))
            return layout(a, np.diagonal(a, o, a1, a2))
        if op == "atleast":
            return layout(a, [np.atleast_1d, np.atleast_2d, np.atleast_3d][int(arg) - 1](a))
        if op == "fliplr":
            return layout(a, np.fliplr(a))
        return layout(a, np.flipud(a))

    add("view", op, sh(shape), arg, err(run))

# ---- gathers (pad, roll, tile, repeat, tril, triu) -------------------------------------------------


def gathered(r):
    return sh(r.shape) + "|" + lst([int(x) for x in r.ravel()])


def pad_values(ndim):
    return tuple((-(2 * d + 1), -(2 * d + 2)) for d in range(ndim))


pad_cases = [
    ((5,), [(2, 3)], "constant"), ((5,), [(7, 9)], "reflect"), ((5,), [(7, 9)], "symmetric"), ((5,), [(12, 3)], "wrap"),
    ((5,), [(3, 2)], "edge"), ((1,), [(4, 3)], "reflect"), ((1,), [(2, 2)], "symmetric"), ((2,), [(5, 6)], "reflect"),
    ((3, 4), [(1, 2), (3, 1)], "constant"), ((3, 4), [(4, 5), (6, 7)], "reflect"), ((3, 4), [(4, 5), (6, 7)], "symmetric"),
    ((3, 4), [(4, 5), (9, 7)], "wrap"), ((3, 4), [(2, 1), (0, 3)], "edge"), ((3, 4), [(0, 0), (2, 2)], "reflect"),
    ((2, 3, 4), [(1, 1), (0, 2), (2, 0)], "constant"), ((2, 3, 4), [(1, 2), (2, 1), (3, 3)], "symmetric"),
    ((0, 3), [(1, 1), (1, 1)], "constant"), ((0, 3), [(1, 1), (1, 1)], "edge"), ((0, 3), [(0, 0), (1, 1)], "wrap"),
    ((3, 0), [(0, 0), (2, 0)], "reflect"), ((), [], "constant"), ((4, 5), [(0, 0), (0, 0)], "wrap"),
]
for shape, widths, mode in pad_cases:
    a = np.arange(1, int(np.prod(shape)) + 1).reshape(shape)

    def run():
        kw = {"constant_values": pad_values(len(shape))} if mode == "constant" and shape else {}
        return gathered(np.pad(a, widths if shape else 0, mode, **kw))

    add("pad", sh(shape), lst([w for p in widths for w in p]), mode, err(run))

roll_cases = [
    ((10,), [3], "n"), ((10,), [-13], "n"), ((10,), [23], "0"), ((3, 4), [1], "n"), ((3, 4), [5], "1"),
    ((3, 4), [-1, 2], "0,1"), ((3, 4), [1, 1], "1,1"), ((3, 4), [2], "0,1"), ((3, 4), [1, 2], "0"),
    ((3, 4), [1, 2], "0,1,0"), ((3, 4), [1], "2"), ((0, 4), [3], "0"), ((2, 3, 4), [7, -5], "-1,0"),
]
for shape, shifts, axes in roll_cases:
    a = np.arange(1, int(np.prod(shape)) + 1).reshape(shape)

    def run():
        ax = None if axes == "n" else [int(x) for x in axes.split(",")]
        s = shifts[0] if len(shifts) == 1 and ax is None else shifts
        return gathered(np.roll(a, s, ax))

    add("roll", sh(shape), lst(shifts), axes, err(run))

for shape, reps in [((3,), [2]), ((3,), [2, 2]), ((2, 3), [2]), ((2, 3), [1, 1]), ((2, 3), [2, 1, 3]), ((2, 3), [0, 2]),
                    ((2, 3), [-1]), ((), [3]), ((0, 2), [2, 2])]:
    a = np.arange(1, int(np.prod(shape)) + 1).reshape(shape)
    add("tile", sh(shape), lst(reps), err(lambda: gathered(np.tile(a, reps))))

repeat_cases = [
    ((4,), [2], "n"), ((2, 3), [2], "n"), ((2, 3), [3], "1"), ((2, 3), [0], "0"), ((2, 3), [1, 0, 2], "1"),
    ((2, 3), [2, 1], "0"), ((2, 3), [1, 2], "1"), ((2, 3), [1, 2, -1], "1"), ((2, 3), [-1], "0"),
    ((2, 3), [2], "2"), ((2, 3), [1, 2, 0, 3, 1, 1], "n"), ((2, 3), [0, 0, 0], "-1"),
]
for shape, counts, axis in repeat_cases:
    a = np.arange(1, int(np.prod(shape)) + 1).reshape(shape)

    def run():
        ax = None if axis == "n" else int(axis)
        return gathered(np.repeat(a, counts[0] if len(counts) == 1 else counts, ax))

    add("repeat", sh(shape), lst(counts), axis, err(run))

for fn in ["tril", "triu"]:
    for shape, k in [((3, 4), 0), ((3, 4), 1), ((3, 4), -1), ((4, 3), 2), ((2, 3, 3), 0), ((2, 3, 3), -5), ((3, 3), 9),
                     ((4,), 0), ((4,), 1)]:
        a = np.arange(1, int(np.prod(shape)) + 1).reshape(shape)
        add(fn, sh(shape), k, err(lambda: gathered(getattr(np, fn)(a, k))))

for n, m, k in [(3, None, 0), (3, 5, 1), (4, 2, -1), (0, 3, 0), (3, 3, -5)]:
    add("tri", n, "n" if m is None else m, k, err(lambda: gathered(np.tri(n, m, k, dtype=np.int64))))

# ---- pad_width forms ----------------------------------------------------------------------------
for form, ndim in [("i:2", 3), ("p:1,2", 2), ("a:1,2", 3), ("a:1,2/3,4", 2), ("a:1,2/3,4/5,6", 2), ("l:1,2,3", 2),
                   ("i:-1", 2), ("a:1,-2/3,4", 2), ("l:4", 2)]:
    kind, vals = form.split(":")
    if kind == "i" or kind == "l":
        w = [int(x) for x in vals.split(",")]
        w = w[0] if kind == "i" else w
    elif kind == "p":
        w = tuple(int(x) for x in vals.split(","))
    else:
        w = tuple(tuple(int(x) for x in p.split(",")) for p in vals.split("/"))

    def run():
        r = np.pad(np.zeros((1,) * ndim), w)
        return lst([s - 1 for s in r.shape])  # before + after per axis

    add("padwidth", form, ndim, err(run))

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "arrange_cases.txt")
with open(out, "w") as f:
    f.write("# generated by gen_arrange_cases.py with NumPy " + np.__version__ + "; do not edit\n")
    f.write("\n".join(lines) + "\n")
print(f"wrote {len(lines)} cases to {out}")
