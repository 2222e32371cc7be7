#!/usr/bin/env python3
"""Writes broadcast_cases.csv: random shape pairs and what NumPy 2's broadcast_shapes says.

Each row: lhs;rhs;result, shapes as space-separated extents ("" for a 0-d shape) and result
"error" when NumPy refuses. Run: python3 tests/data/gen_broadcast_cases.py (needs numpy>=2).
"""
import pathlib
import random

import numpy as np


def random_shape(rng):
    return tuple(rng.choice([0, 1, 1, 2, 3, 4, 5, 7]) for _ in range(rng.randint(0, 5)))


def compatible_with(shape, rng):
    # Start from shape and blur it so that roughly half of the pairs broadcast.
    out = [d if rng.random() < 0.6 else rng.choice([1, d, rng.randint(0, 7)]) for d in shape]
    cut = rng.randint(0, len(out))
    return tuple(out[cut:]) if rng.random() < 0.5 else tuple([rng.randint(1, 3)] * rng.randint(0, 2) + out)


def main():
    rng = random.Random(20261121)
    rows = [f"# numpy {np.__version__}"]
    for _ in range(400):
        a = random_shape(rng)
        b = compatible_with(a, rng) if rng.random() < 0.7 else random_shape(rng)
        try:
            result = " ".join(map(str, np.broadcast_shapes(a, b)))
        except ValueError:
            result = "error"
        rows.append(";".join([" ".join(map(str, a)), " ".join(map(str, b)), result]))
    path = pathlib.Path(__file__).with_name("broadcast_cases.csv")
    path.write_text("\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
