"""What gen_npy_files.py and gen_npz_cases_19.py share: the dtypes they write and NumPy's random
arrays of each, and the C-order little-endian bytes the C++ tests compare against. Builds on NumPy."""
import numpy as np

DTYPES = [
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "complex64", "complex128",
]


def random_array(rng, dtype, shape):
    """A random array of `dtype` from `rng`: integers over the dtype's whole range, floats and
    complex parts from a normal distribution times 100 (the draws in this order: the files pin it)."""
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return rng.integers(0, 2, size=shape).astype(dt)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return rng.integers(info.min, info.max, size=shape, dtype=dt, endpoint=True)
    if dt.kind == "f":
        return (rng.standard_normal(size=shape) * 100).astype(dt)
    real = rng.standard_normal(size=shape) * 100
    imag = rng.standard_normal(size=shape) * 100
    return (real + 1j * imag).astype(dt)


def c_bytes(a):
    """a's elements in C order as little-endian bytes, written with tobytes() rather than np.save."""
    a = np.ascontiguousarray(a)
    return a.astype(a.dtype.newbyteorder("<")).tobytes()
