#!/usr/bin/env python3
"""Writes view_cases.txt: chains of view operations on C-contiguous arrays and NumPy 2's result.

Each row: base shape | ops | shape | strides (elements) | offset (elements), or "error" in place
of the last three when NumPy raises. Ops are separated by " > ":
  index <items>     items by ",": an integer, s<start>:<stop>:<step> (_ omitted), A (:), N (newaxis), E (...)
  reshape <dims>    transpose [axes]    swap <a> <b>    squeeze [axes]    expand <axes>    broadcast <dims>
Reshape rows also say "copy" when NumPy had to copy (then strides/offset are of the copy).
Run: python3 tests/data/gen_view_cases.py (needs numpy>=2).
"""
import pathlib
import random

import numpy as np


def parse_items(text):
    out = []
    for item in text.split(","):
        if item == "A":
            out.append(slice(None))
        elif item == "N":
            out.append(np.newaxis)
        elif item == "E":
            out.append(Ellipsis)
        elif item.startswith("s"):
            start, stop, step = (None if p == "_" else int(p) for p in item[1:].split(":"))
            out.append(slice(start, stop, step))
        else:
            out.append(int(item))
    return tuple(out)


def ints(text):
    return tuple(int(x) for x in text.split()) if text.strip() else ()


def apply(a, op):
    name, _, arg = op.partition(" ")
    if name == "index":
        items = parse_items(arg)
        # A trailing ... keeps an all-integer index a 0-d view (ndcuda's result) instead of a scalar.
        return a[items if Ellipsis in items else items + (Ellipsis,)]
    if name == "reshape":
        return a.reshape(ints(arg))
    if name == "transpose":
        return a.transpose(ints(arg)) if arg else a.transpose()
    if name == "swap":
        x, y = ints(arg)
        return a.swapaxes(x, y)
    if name == "squeeze":
        return a.squeeze(ints(arg)) if arg else a.squeeze()
    if name == "expand":
        return np.expand_dims(a, ints(arg))
    if name == "broadcast":
        return np.broadcast_to(a, ints(arg))
    raise ValueError(name)


def random_item(rng, n):
    kind = rng.random()
    if kind < 0.3:
        return str(rng.randint(-n - 1, n)) if rng.random() < 0.1 else str(rng.randint(-n, max(n - 1, -n)))
    if kind < 0.8:
        def bound():
            return "_" if rng.random() < 0.3 else str(rng.randint(-n - 2, n + 2))
        return f"s{bound()}:{bound()}:{rng.choice([1, 1, 2, 3, -1, -2, -3])}"
    if kind < 0.9:
        return "A"
    return "N"


def random_index(rng, shape):
    items = []
    axis = 0
    has_ellipsis = False
    while axis < len(shape) and rng.random() < 0.85:
        if not has_ellipsis and rng.random() < 0.1:
            items.append("E")
            has_ellipsis = True
            continue
        item = random_item(rng, shape[axis])
        items.append(item)
        if item != "N":
            axis += 1
    return ",".join(items) if items else "A"


def main():
    rng = random.Random(20260611)
    cases = [
        ((5,), ["index 5"]), ((5,), ["index -6"]), ((5,), ["index -5"]), ((2, 3), ["index 1,2,0"]),
        ((2, 3), ["index E,E"]), ((3, 4), ["index s_:_:0"]), ((4,), ["index s10:_:-1"]),
        ((2, 3, 4), ["index E,1"]), ((2, 3, 4), ["index N,E,N"]), ((), ["index N"]), ((), ["index E"]),
        ((6,), ["reshape 4"]), ((6,), ["reshape 4 -1"]), ((6,), ["reshape -1 -1"]), ((6,), ["reshape 2 -1"]),
        ((0, 3), ["reshape -1"]), ((0, 3), ["reshape 0 -1"]), ((4, 6), ["transpose", "reshape 24"]),
        ((4, 6), ["transpose", "reshape 6 2 2"]), ((4, 6), ["index A,s_:_:2", "reshape 12"]),
        ((4, 6), ["index A,s_:_:2", "reshape 2 2 3"]), ((2, 3, 4), ["index A,A,s_:_:-1", "reshape 6 4"]),
        ((2, 1, 3), ["transpose 2 0 1", "reshape 3 2"]), ((2, 3, 4), ["transpose 0 2 1", "reshape 2 12"]),
        ((2, 3, 4), ["swap 0 2", "reshape 4 6"]), ((2, 3), ["transpose 0"]), ((2, 3), ["transpose 0 0"]),
        ((2, 3), ["transpose 1 -2"]), ((1, 3, 1), ["squeeze"]), ((1, 3, 1), ["squeeze 2"]), ((1, 3, 1), ["squeeze 1"]),
        ((3,), ["expand 0"]), ((3,), ["expand -1"]), ((3, 4), ["expand 0 3"]), ((3,), ["expand 3"]),
        ((3,), ["broadcast 4 3"]), ((3, 1), ["broadcast 2 3 5"]), ((3,), ["broadcast 4"]),
        ((4, 5), ["index s_:_:-1,s1:4:2", "transpose", "broadcast 3 2 4"]), ((2, 2), ["swap 0 5"]),
    ]
    bases = [(5,), (4, 6), (2, 3, 4), (3, 1, 5), (6, 2, 2, 3), (0, 4), (1,), (7, 3)]
    for _ in range(260):
        shape = rng.choice(bases)
        a = np.empty(shape)
        ops = []
        for _ in range(rng.randint(1, 3)):
            choice = rng.random()
            try:
                cur = a
                for op in ops:
                    cur = apply(cur, op)
            except Exception:
                break
            if choice < 0.5 or cur.ndim == 0:
                ops.append("index " + random_index(rng, cur.shape))
            elif choice < 0.8:
                dims = list(cur.shape)
                rng.shuffle(dims)
                if dims and rng.random() < 0.5:
                    dims[rng.randrange(len(dims))] = -1
                if rng.random() < 0.3:
                    dims = [-1]
                ops.append("reshape " + " ".join(map(str, dims)))
            elif choice < 0.9:
                axes = list(range(cur.ndim))
                rng.shuffle(axes)
                ops.append("transpose " + " ".join(map(str, axes)))
            else:
                ops.append("squeeze")
        cases.append((shape, ops))
    rows = [f"# numpy {np.__version__}"]
    for shape, ops in cases:
        base = np.empty(shape)
        head = " ".join(map(str, shape)) + " | " + " > ".join(ops)
        try:
            cur = base
            for op in ops:
                cur = apply(cur, op)
        except (IndexError, ValueError) as e:
            rows.append(head + " | error | " + str(e))
            continue
        item = cur.itemsize
        shared = np.shares_memory(cur, base) or cur.size == 0
        offset = (cur.__array_interface__["data"][0] - base.__array_interface__["data"][0]) // item if shared else 0
        strides = " ".join(str(s // item) for s in cur.strides)
        rows.append(head + " | " + " ".join(map(str, cur.shape)) + " | " + strides + " | " + str(offset) +
                    ("" if shared else " | copy"))
    path = pathlib.Path(__file__).with_name("view_cases.txt")
    path.write_text("\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
