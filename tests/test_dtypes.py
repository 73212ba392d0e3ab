"""Element types: spellings, sizes, C0, numpy lookup and the HiFloat8 decode table."""

import math

import ml_dtypes
import numpy as np
import pytest

import ptosim
from ptosim import UnknownDtypeError
from ptosim.dtypes import HIF8_TABLE, from_numpy

SIZES = {
    "f16": 2, "bf16": 2, "f32": 4, "i8": 1, "si8": 1, "ui8": 1, "i16": 2, "si16": 2,
    "ui16": 2, "i32": 4, "si32": 4, "ui32": 4, "i64": 8, "si64": 8, "ui64": 8,
    "f8E4M3FN": 1, "f8E5M2": 1, "f8E8M0FNU": 1, "hif8": 1, "hif8x2": 2,
    "f4E2M1x2": 1, "f4E1M2x2": 1,
}


@pytest.mark.parametrize("name,size", SIZES.items())
def test_canonical_spellings(name, size):
    d = ptosim.dtype(name)
    assert d.name == name and str(d) == name
    assert d.size == size == ptosim.sizeof(name) == d.np.itemsize
    assert d.c0 == 32 // size == ptosim.c0(name)
    assert ptosim.dtype(d) is d
    assert ptosim.dtype("!pto." + name) is d


@pytest.mark.parametrize("alias,name", [("half", "f16"), ("float", "f32"), ("int8_t", "i8"),
                                        ("u8", "ui8"), ("bfloat16", "bf16"),
                                        (" f32 ", "f32"), ("hifloat8", "hif8")])
def test_aliases(alias, name):
    assert ptosim.dtype(alias).name == name


def test_prefixed_hif8():
    assert ptosim.dtype("!pto.hif8").name == "hif8"


def test_unknown_spelling():
    with pytest.raises(UnknownDtypeError, match="unknown element type") as ei:
        ptosim.dtype("f13")
    assert isinstance(ei.value, ValueError)
    assert isinstance(ei.value, ptosim.PtoError)
    with pytest.raises(ValueError, match="unknown element type"):
        ptosim.sizeof("f13")
    with pytest.raises(UnknownDtypeError, match="unknown element type"):
        ptosim.dtype(object())


@pytest.mark.parametrize("npd,name", [(np.float16, "f16"), (ml_dtypes.bfloat16, "bf16"),
                                      (np.int8, "i8"), (np.uint32, "ui32"),
                                      (np.float32, "f32"), (np.uint8, "ui8"),
                                      (ml_dtypes.float8_e4m3fn, "f8E4M3FN")])
def test_numpy_lookup(npd, name):
    assert ptosim.dtype(npd).name == name
    assert ptosim.dtype(np.dtype(npd)).name == name
    assert from_numpy(np.dtype(npd)).name == name


def test_numpy_lookup_unknown():
    with pytest.raises(UnknownDtypeError, match="no PTO element type"):
        ptosim.dtype(np.float64)
    with pytest.raises(UnknownDtypeError, match="no PTO element type"):
        from_numpy(np.dtype(np.complex64))


# --- HiFloat8 ----------------------------------------------------------------------------

# (prefix, D exponent bits, mantissa bits)
_DOTS = (("11", 4, 1), ("10", 3, 2), ("01", 2, 3), ("001", 1, 3), ("0001", 0, 3))


def ref_hif8(code):
    if code == 0x00:
        return 0.0
    if code == 0x80:
        return math.nan
    if code in (0x6F, 0xEF):
        return math.copysign(math.inf, 1 if code == 0x6F else -1)
    sign = -1.0 if code >> 7 else 1.0
    bits = format(code & 0x7F, "07b")
    for prefix, d, mb in _DOTS:
        if bits.startswith(prefix):
            rest = bits[len(prefix):]
            assert len(rest) == d + mb
            ebits, mbits = rest[:d], rest[d:]
            if d == 0:
                exp = 0
            else:
                mag = 2 ** (d - 1) + (int(ebits[1:], 2) if d > 1 else 0)
                exp = -mag if ebits[0] == "1" else mag
            return sign * 2.0 ** exp * (1 + int(mbits, 2) / 2 ** mb)
    assert bits.startswith("0000")
    return sign * 2.0 ** (int(bits[4:], 2) - 23)


def test_hif8_table_matches_reference_decoder():
    assert HIF8_TABLE.shape == (256,) and HIF8_TABLE.dtype == np.float32
    ref = np.array([ref_hif8(c) for c in range(256)], dtype=np.float64)
    np.testing.assert_array_equal(HIF8_TABLE.astype(np.float64), ref)  # NaN == NaN here
    decoded = ptosim.hif8_to_float32(np.arange(256, dtype=np.uint8))
    assert decoded.dtype == np.float32
    np.testing.assert_array_equal(decoded, HIF8_TABLE)


def test_hif8_exponent_ranges():
    # exponent magnitudes per dot width: D=4 [8,15], D=3 [4,7], D=2 [2,3], D=1 1, D=0 0
    exps = {}
    for code in range(1, 0x80):
        if code in (0x6F,) or code < 0x08:
            continue
        v = float(HIF8_TABLE[code])
        bits = format(code, "07b")
        d = next(d for p, d, _ in _DOTS if bits.startswith(p))
        exps.setdefault(d, set()).add(abs(math.floor(math.log2(v))))
    assert exps == {4: set(range(8, 16)), 3: set(range(4, 8)), 2: {2, 3}, 1: {1}, 0: {0}}


@pytest.mark.parametrize("code,value", [(0x08, 1.0), (0x10, 2.0), (0x18, 0.5), (0x20, 4.0),
                                        (0x09, 1.125), (0x01, 2.0 ** -22), (0x07, 2.0 ** -16),
                                        (0x6E, 32768.0), (0x88, -1.0), (0x00, 0.0)])
def test_hif8_spot_values(code, value):
    assert HIF8_TABLE[code] == value
    assert ptosim.hif8_to_float32(np.uint8(code)) == value


def test_hif8_specials():
    assert math.isnan(HIF8_TABLE[0x80])
    assert HIF8_TABLE[0x6F] == np.inf and HIF8_TABLE[0xEF] == -np.inf
    assert not np.signbit(HIF8_TABLE[0x00])
    assert np.isnan(HIF8_TABLE).sum() == 1
    assert np.isinf(HIF8_TABLE).sum() == 2


def test_hif8_sign_symmetry_and_ordering():
    pos = np.array([c for c in range(1, 0x80) if c != 0x6F])
    np.testing.assert_array_equal(HIF8_TABLE[pos | 0x80], -HIF8_TABLE[pos])
    vals = HIF8_TABLE[pos]
    assert np.all(np.isfinite(vals)) and np.all(vals > 0)
    s = np.sort(vals)
    assert np.all(np.diff(s) > 0), "duplicate positive HiFloat8 values"
    assert s[-1] == 32768.0 and s[0] == 2.0 ** -22


def test_hif8_decode_shape_and_readonly():
    codes = np.array([[0x08, 0x10], [0x18, 0x20]], dtype=np.uint8)
    np.testing.assert_array_equal(ptosim.hif8_to_float32(codes), [[1.0, 2.0], [0.5, 4.0]])
    with pytest.raises(ValueError):
        HIF8_TABLE[0] = 1.0
