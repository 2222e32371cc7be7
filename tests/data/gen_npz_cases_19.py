#!/usr/bin/env python3
"""Writes the .npz archives and text files tests/interop/file_io_19_test.cpp checks ndcuda against, with NumPy 2.

Run from anywhere: python3 tests/data/gen_npz_cases_19.py. Output goes to tests/data/npz19/:
  *.npz and *.txt   files written by np.savez, np.savez_compressed, zipfile and np.savetxt, or inputs
                    for np.loadtxt;
  cases.txt         one line per expectation, space-separated; strings and raw bytes are hex ("-" when
                    empty), so the C++ side needs no escaping rules:
    member <archive> <key> <descr> <shape> <fortran 0/1> <hex of the C-order little-endian elements>
    members <archive> <keys in archive order, comma-separated>
    savetxt <file> <descr> <shape> <hex data> <fmt> <delimiter> <newline> <header> <footer> <comments>
    loadtxt <file> <descr> <delimiter or -> <skiprows> <usecols comma-separated or -> <comments> <ndmin>
            <result shape> <hex of the result's elements>
  A shape is extents joined by 'x', "-" for 0-d.
The rebuild_* archives hold C-order little-endian arrays only: ndcuda rebuilds them from their member
lines and must write the very same bytes (np.savez pins the timestamp, so the archives are reproducible).
"""
import functools
import io
import pathlib
import struct
import zipfile

import numpy as np

from npy_gen_support import DTYPES, c_bytes, random_array as random_array_from

OUT = pathlib.Path(__file__).resolve().parent / "npz19"
RNG = np.random.default_rng(1919)  # fixed seed: the files are checked in
random_array = functools.partial(random_array_from, RNG)
LINES = []


def hx(s):
    if isinstance(s, str):
        s = s.encode()
    return s.hex() if s else "-"


def shape_text(shape):
    return "x".join(str(n) for n in shape) if shape else "-"


def record_archive(name):
    with np.load(OUT / name) as z:
        LINES.append(f"members {name} {','.join(z.files)}")
        for key in z.files:
            a = z[key]
            fortran = int(a.flags.f_contiguous and not a.flags.c_contiguous)
            descr = a.dtype.newbyteorder("<").descr[0][1] if a.dtype.byteorder == ">" else a.dtype.descr[0][1]
            LINES.append(f"member {name} {key} {descr} {shape_text(a.shape)} {fortran} {hx(c_bytes(a))}")


def archives():
    # Every dtype as a keyword, two positional arrays, a 0-d and an empty array: what ndcuda writes.
    plain = {dt: random_array(dt, (3, 4)) for dt in DTYPES}
    plain["scalar"] = np.array(2.5)
    plain["empty"] = np.zeros((0, 3), dtype=np.int32)
    positional = [random_array("float32", (5,)), random_array("int64", (2, 2))]
    np.savez(OUT / "rebuild_stored.npz", *positional, **plain)
    np.savez_compressed(OUT / "rebuild_deflated.npz", *positional, **plain)
    record_archive("rebuild_stored.npz")
    record_archive("rebuild_deflated.npz")
    # What ndcuda reads beyond that: Fortran order, big-endian data, and a larger deflated member.
    mixed = {
        "fortran": np.asfortranarray(random_array("float64", (2, 3, 4))),
        "big_i4": random_array("int32", (7,)).astype(">i4"),
        "big_c8": random_array("complex64", (2, 2)).astype(">c8"),
        "big_f2": random_array("float16", (3,)).astype(">f2"),
        "long": np.arange(5000, dtype=np.uint16),
    }
    np.savez(OUT / "mixed_stored.npz", **mixed)
    np.savez_compressed(OUT / "mixed_deflated.npz", **mixed)
    record_archive("mixed_stored.npz")
    record_archive("mixed_deflated.npz")
    # Written by zipfile itself (no zip64 fields) with .npy format versions 2.0 and 3.0 members.
    with zipfile.ZipFile(OUT / "versions.npz", "w", zipfile.ZIP_DEFLATED) as z:
        for version, key in [((2, 0), "v2"), ((3, 0), "v3")]:
            buf = io.BytesIO()
            np.lib.format.write_array(buf, random_array("int16", (3, 2)), version=version)
            z.writestr(key + ".npy", buf.getvalue())
    record_archive("versions.npz")
    zip64_records()


def zip64_records():
    """rebuild_stored.npz's first two members with every zip64 record Python writes only past 2 GiB:
    central-directory sizes and offsets in a zip64 extra field, a zip64 end record and its locator."""
    with np.load(OUT / "rebuild_stored.npz") as z:
        keys = z.files[:2]
    src = zipfile.ZipFile(OUT / "rebuild_stored.npz")
    body = b""
    central = b""
    for info in src.infolist():
        if info.filename[:-4] not in keys:
            continue
        data = src.read(info.filename)
        offset = len(body)
        name = info.filename.encode()
        extra = struct.pack("<HHQQ", 1, 16, len(data), len(data))
        body += struct.pack("<IHHHHHIIIHH", 0x04034B50, 45, 0, 0, 0, 0x21, info.CRC, 0xFFFFFFFF, 0xFFFFFFFF,
                            len(name), len(extra)) + name + extra + data
        cextra = struct.pack("<HHQQQ", 1, 24, len(data), len(data), offset)
        central += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 0x032D, 45, 0, 0, 0, 0x21, info.CRC, 0xFFFFFFFF,
                               0xFFFFFFFF, len(name), len(cextra), 0, 0, 0, 0o600 << 16, 0xFFFFFFFF) + name + cextra
    cd_at = len(body)
    end64_at = cd_at + len(central)
    n = len(keys)
    tail = struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 45, 45, 0, 0, n, n, len(central), cd_at)
    tail += struct.pack("<IIQI", 0x07064B50, 0, end64_at, 1)
    tail += struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0)
    (OUT / "zip64_records.npz").write_bytes(body + central + tail)
    assert zipfile.ZipFile(OUT / "zip64_records.npz").testzip() is None
    record_archive("zip64_records.npz")


def savetxt_case(file, a, fmt="%.18e", delimiter=" ", newline="\n", header="", footer="", comments="# "):
    np.savetxt(OUT / file, a, fmt=fmt, delimiter=delimiter, newline=newline, header=header, footer=footer,
               comments=comments)
    LINES.append(" ".join(["savetxt", file, a.dtype.descr[0][1], shape_text(a.shape), hx(c_bytes(a)), hx(fmt),
                           hx(delimiter), hx(newline), hx(header), hx(footer), hx(comments)]))


def loadtxt_case(file, text, dtype=float, delimiter=None, skiprows=0, usecols=None, comments="#", ndmin=0):
    (OUT / file).write_text(text)
    a = np.loadtxt(OUT / file, dtype=dtype, delimiter=delimiter, skiprows=skiprows, usecols=usecols,
                   comments=comments, ndmin=ndmin)
    cols = ",".join(str(c) for c in usecols) if usecols is not None else "-"
    LINES.append(" ".join(["loadtxt", file, a.dtype.descr[0][1], hx(delimiter or ""), str(skiprows), cols,
                           hx(comments), str(ndmin), shape_text(a.shape), hx(c_bytes(a))]))


def text_files():
    savetxt_case("save_default.txt", random_array("float64", (3, 4)))
    savetxt_case("save_csv.txt", random_array("float32", (2, 3)), fmt="%.3f", delimiter=",", header="a\nb",
                 footer="end", comments="// ")
    savetxt_case("save_1d_int.txt", random_array("int64", (5,)), fmt="%d")
    savetxt_case("save_row_fmt.txt", np.array([[-7, 2, -255], [3, -4, 4096]], dtype=np.int32), fmt="%d|%5.2f|%x")
    savetxt_case("save_u8.txt", np.array([2**64 - 1, 0, 2**63 + 5], dtype=np.uint64), fmt="%d")
    savetxt_case("save_bool.txt", np.array([[True, False], [False, True]]))
    special = np.array([np.nan, -np.nan, np.inf, -np.inf, -0.0, 1e-310, 123456.789])
    savetxt_case("save_special.txt", special)
    savetxt_case("save_special_g.txt", special, fmt="%+10.4g", newline="\r\n")
    savetxt_case("save_f2.txt", random_array("float16", (4,)), fmt="%.4e")
    savetxt_case("save_float_as_int.txt", np.array([1.7, -2.5, 1e20, -3e19]), fmt="%05d")
    savetxt_case("save_empty.txt", np.zeros((0, 3)), header="nothing")
    loadtxt_case("load_table.txt", "# a table\n1 2.5 -3\n\n  4\t5e-3 6  # trailing\n7 8 9\n")
    loadtxt_case("load_csv.txt", "x,y,z\n1.5,2,3\n4,5.25,6\n", dtype=np.float32, delimiter=",", skiprows=1,
                 usecols=[2, 0])
    loadtxt_case("load_column.txt", "10\n-20\n30\n", dtype=np.int64)
    loadtxt_case("load_row.txt", "1 2 3\n")
    loadtxt_case("load_row_ndmin2.txt", "1 2 3\n", ndmin=2)
    loadtxt_case("load_column_ndmin2.txt", "1\n2\n", ndmin=2)
    loadtxt_case("load_one.txt", "5\n")
    loadtxt_case("load_one_ndmin1.txt", "5\n", ndmin=1)
    loadtxt_case("load_one_ndmin2.txt", "5\n", ndmin=2)
    loadtxt_case("load_ints.txt", "127 -128\n0 +5\n", dtype=np.int8)
    loadtxt_case("load_u1.txt", "255 0\n", dtype=np.uint8)
    loadtxt_case("load_bool.txt", "1 0 2\n", dtype=bool)
    loadtxt_case("load_special.txt", "nan inf -inf +1.5 1e-400 1e400 -0.0 NaN Infinity\n")
    loadtxt_case("load_comments.txt", "1;2;3 // c\n// only\n4;5;6\n", delimiter=";", comments="//", usecols=[-1, 0])
    loadtxt_case("load_f2.txt", "0.1 65504 1e-8\n", dtype=np.float16)
    loadtxt_case("load_u8.txt", "18446744073709551615\n", dtype=np.uint64)
    loadtxt_case("load_crlf.txt", "1 2\r\n3 4\r\n")


def main():
    OUT.mkdir(exist_ok=True)
    for old in OUT.glob("*"):
        old.unlink()
    archives()
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # loadtxt warns about the empty file
        text_files()
        loadtxt_case("load_empty.txt", "# nothing\n", ndmin=2)
    (OUT / "cases.txt").write_text("\n".join(LINES) + "\n")


if __name__ == "__main__":
    main()
