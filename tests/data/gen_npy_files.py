#!/usr/bin/env python3
"""Writes the .npy files tests/interop/npy_test.cpp reads, with NumPy 2's np.save.

Run from anywhere: python3 tests/data/gen_npy_files.py. Output goes to tests/data/npy/.
Each <name>.npy has a sibling <name>.raw holding the expected elements in C order as raw
little-endian bytes (written with tobytes(), not np.save), so the C++ test compares against
data that did not go through the .npy writer. manifest.csv lists name,descr,shape,fortran_order.
"""
import functools
import pathlib

import numpy as np

from npy_gen_support import DTYPES, c_bytes, random_array as random_array_from

OUT = pathlib.Path(__file__).resolve().parent / "npy"
RNG = np.random.default_rng(20240611)  # fixed seed: the files are checked in
random_array = functools.partial(random_array_from, RNG)


def save(name, array, manifest):
    np.save(OUT / f"{name}.npy", array)
    (OUT / f"{name}.raw").write_bytes(c_bytes(array))
    shape = "x".join(str(n) for n in array.shape)
    fortran = int(array.flags.f_contiguous and not array.flags.c_contiguous)
    manifest.append(f"{name},{array.dtype.descr[0][1]},{shape},{fortran}")


def main():
    OUT.mkdir(exist_ok=True)
    for old in OUT.glob("*"):
        old.unlink()
    manifest = ["name,descr,shape,fortran_order"]
    for dtype in DTYPES:
        save(dtype, random_array(dtype, (3, 5)), manifest)
    save("fortran_f8", np.asfortranarray(random_array("float64", (2, 3, 4))), manifest)
    save("big_endian_i4", random_array("int32", (7,)).astype(">i4"), manifest)
    save("big_endian_c8", random_array("complex64", (2, 2)).astype(">c8"), manifest)
    save("scalar_f8", np.array(3.25), manifest)
    save("empty_f4", np.zeros((0, 4), dtype=np.float32), manifest)
    save("long_1d_u2", random_array("uint16", (100,)), manifest)
    # Version 2.0 (4-byte header length): np.save only picks it for headers over 64 KiB, which
    # plain dtypes never need, so ask for it explicitly.
    with open(OUT / "version2_f4.npy", "wb") as f:
        np.lib.format.write_array(f, random_array("float32", (2,)), version=(2, 0))
    arr = np.load(OUT / "version2_f4.npy")
    (OUT / "version2_f4.raw").write_bytes(arr.tobytes())
    manifest.append("version2_f4,<f4,2,0")
    # Version 3.0 (UTF-8 header): np.save picks it only for non-Latin-1 field names.
    with open(OUT / "version3_i2.npy", "wb") as f:
        np.lib.format.write_array(f, random_array("int16", (3,)), version=(3, 0))
    (OUT / "version3_i2.raw").write_bytes(np.load(OUT / "version3_i2.npy").tobytes())
    manifest.append("version3_i2,<i2,3,0")
    (OUT / "manifest.csv").write_text("\n".join(manifest) + "\n")


if __name__ == "__main__":
    main()
