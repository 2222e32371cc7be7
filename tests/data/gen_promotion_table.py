#!/usr/bin/env python3
"""Writes promotion_table.csv: NumPy 2's answers that tests/core/promotion_test.cpp checks ndcuda against.

The table is generated rather than typed so that a disagreement is NumPy's word against the C++ table,
not a transcription slip. Re-run after upgrading NumPy:  python3 tests/data/gen_promotion_table.py
"""
import pathlib
import sys

import numpy as np

if int(np.__version__.split(".")[0]) < 2:
    sys.exit(f"needs NumPy 2 (NEP 50 scalar promotion); found {np.__version__}")

# ndcuda's order; bfloat16 is absent because NumPy has no such dtype.
DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64", "complex64", "complex128"]
# Non-zero values: NEP 50 looks only at the Python type, but zero would hide a value-based
# promotion if a NumPy 1 ever ran this.
SCALARS = {"bool": True, "int": 1, "float": 1.0, "complex": 1j}


def main() -> None:
    out = pathlib.Path(__file__).with_name("promotion_table.csv")
    lines = [f"# numpy {np.__version__}", "lhs,rhs,result"]
    for lhs in DTYPES:
        for rhs in DTYPES:
            lines.append(f"{lhs},{rhs},{np.promote_types(lhs, rhs).name}")
    for lhs in DTYPES:
        for kind, value in SCALARS.items():
            result = (np.ones(3, dtype=lhs) + value).dtype
            lines.append(f"{lhs},<scalar:{kind}>,{result.name}")
    out.write_text("\n".join(lines) + "\n")
    print(f"wrote {out} ({len(lines) - 2} rows)")


if __name__ == "__main__":
    main()
