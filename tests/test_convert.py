"""The conversion engine (`ptosim.isa.convert`) against independent formulations.

The engine works on integer bit fields; the references here do not: `ref_float64` rounds
with float64 arithmetic (every f32/f16/bf16/fp8 value, every scaled quotient and every
half-way point is exact in float64) and `ref_fraction` with `fractions.Fraction` and Python
integers (for 64-bit integer sources). All 65536 f16 and bf16 bit patterns are checked
for every rounding mode; the PTO-Gym goldens' worked values are recomputed here.
"""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

from ptosim import dtype
from ptosim.errors import DtypeError, PtoValueError
from ptosim.isa import convert as cv
from ptosim.isa.convert import (
    ROUND_MODES,
    TCVT_DEFAULT_NOSAT,
    VCVT_RULES,
    convert,
    ctrl_sat,
    place_part,
    select_part,
    tcvt,
    tcvt_default_sat,
    tile_rnd,
    trunc_float,
    vcvt_rule,
)

# The references cast NaN, infinities and out-of-range values with numpy on purpose;
# `test_engine_is_warning_free` checks that the engine itself never warns.
pytestmark = pytest.mark.filterwarnings(
    "ignore:(invalid value|overflow) encountered in cast:RuntimeWarning")

FLOATS = ("f32", "f16", "bf16", "f8E5M2", "f8E4M3FN")
INTS = ("si8", "ui8", "si16", "ui16", "si32", "ui32", "si64", "ui64")


def finfo(name: str):
    return ml_dtypes.finfo(dtype(name).np)


def all_bits(name: str) -> np.ndarray:
    """Every bit pattern of a 16- or 8-bit float type."""
    d = dtype(name)
    return np.arange(1 << (8 * d.size), dtype=np.uint64).astype(f"u{d.size}").view(d.np)


def f32_sample(n: int, seed: int = 1) -> np.ndarray:
    """Random f32 bit patterns (every class: subnormal, normal, inf, NaN) plus values near
    the limits and half-way points of the narrower formats."""
    rng = np.random.default_rng(seed)
    bits = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32).view(np.float32)
    near = []
    for name in ("f16", "bf16", "f8E5M2", "f8E4M3FN"):
        fi = finfo(name)
        for v in (float(fi.max), float(fi.smallest_subnormal), float(fi.smallest_normal)):
            for k in (-3, -1, 0, 1, 3):
                near.append(np.nextafter(np.float32(v), np.float32(np.inf) * k) if k else v)
            near += [v * 1.5, v * 0.5, v * 0.75, v * 1.0625]
    small = rng.uniform(-40, 40, n // 4).astype(np.float32)
    halves = (np.arange(-40, 41) / 2).astype(np.float32)
    return np.concatenate([bits, np.array(near, np.float32), small, halves,
                           np.array([0.0, -0.0, np.inf, -np.inf, np.nan], np.float32)])


# --- independent references ----------------------------------------------------------

def rnd64(t: np.ndarray, rnd: str) -> np.ndarray:
    """Round float64 values to integers (exact: |t| < 2^53 or already integral)."""
    if rnd == "R":
        return np.rint(t)
    if rnd == "A":
        return np.copysign(np.floor(np.abs(t) + 0.5), t)
    if rnd == "F":
        return np.floor(t)
    if rnd == "C":
        return np.ceil(t)
    if rnd == "Z":
        return np.trunc(t)
    z = np.trunc(t)
    return np.where((z != t) & (np.fmod(z, 2) == 0), z + np.sign(t), z)


def ref_float64(v: np.ndarray, dst: str, rnd: str, sat: bool) -> np.ndarray:
    """Expected float results as float64 (NaN where NaN is expected)."""
    fi = finfo(dst)
    mbits, emin, big = int(fi.nmant), int(fi.minexp), float(fi.max)
    has_inf = dst != "f8E4M3FN"
    with np.errstate(all="ignore"):
        _, ex = np.frexp(v)
        q = np.maximum(ex - 1 - mbits, emin - mbits)
        r = np.ldexp(rnd64(np.ldexp(v, -q), rnd), q)
        r = np.where(v == 0, v, np.copysign(r, v))
        over = np.abs(r) > big
        neg = np.signbit(v)
        if sat or rnd in "ZO":
            to_max = np.ones(v.shape, bool)
        elif rnd == "F":
            to_max = ~neg
        elif rnd == "C":
            to_max = neg
        else:
            to_max = np.zeros(v.shape, bool)
        inf = np.inf if has_inf else np.nan
        r = np.where(over, np.where(to_max, np.copysign(big, v), np.copysign(inf, v)), r)
        isinf = np.isinf(v)
        r = np.where(isinf, np.copysign(big if (sat or not has_inf) else np.inf, v), r)
        if not has_inf and not sat:
            r = np.where(isinf, np.nan, r)
        r = np.where(np.isnan(v), 0.0 if sat else np.nan, r)
    return r


def wrap_or_clamp(n: int, dst: str, sat: bool) -> int:
    lo, hi = cv.int_range(dst)
    if sat:
        return min(max(n, lo), hi)
    bits = dtype(dst).size * 8
    n %= 1 << bits
    return n - (1 << bits) if lo < 0 and n > hi else n


def ref_int(v: np.ndarray, dst: str, rnd: str, sat: bool) -> np.ndarray:
    """Expected integer results of float inputs: float64 rounding, then clamping or an
    exact float64 remainder (up to 32-bit destinations) or Python integers (64-bit)."""
    lo, hi = cv.int_range(dst)
    bits = dtype(dst).size * 8
    with np.errstate(all="ignore"):
        n = rnd64(v.astype(np.float64), rnd)
        if bits <= 32:
            if sat:
                r = np.clip(np.nan_to_num(n, nan=0.0, posinf=hi, neginf=lo), lo, hi)
            else:
                r = np.where(np.isfinite(n), np.mod(n, 2.0 ** bits), 0.0)
                r = np.where(r > hi, r - 2.0 ** bits, r)
            return r.astype(np.int64).astype(dtype(dst).np)
    out = []
    for x in n.tolist():
        if math.isnan(x):
            out.append(0)
        elif math.isinf(x):
            out.append((hi if x > 0 else lo) if sat else 0)
        else:
            out.append(wrap_or_clamp(int(x), dst, sat))
    return np.array(out, dtype=dtype(dst).np)


def round_fraction(t: Fraction, rnd: str) -> int:
    fl = math.floor(t)
    if t == fl:
        return fl
    if rnd == "F":
        return fl
    if rnd == "C":
        return fl + 1
    if rnd == "Z":
        return fl if t > 0 else fl + 1
    if rnd == "O":
        z = fl if t > 0 else fl + 1
        return z if z % 2 else (fl + 1 if z == fl else fl)
    d = t - fl
    if d != Fraction(1, 2):
        return fl + (d > Fraction(1, 2))
    if rnd == "A":
        return fl + 1 if t > 0 else fl
    return fl if fl % 2 == 0 else fl + 1


def ref_fraction(vals: list[int], dst: str, rnd: str, sat: bool) -> np.ndarray:
    """Integers to a float type with exact rationals: find the binade, round the scaled
    value, compare with the largest finite value."""
    fi = finfo(dst)
    mbits, emin = int(fi.nmant), int(fi.minexp)
    big = Fraction(float(fi.max))
    out = []
    for x in vals:
        if x == 0:
            out.append(0.0)
            continue
        a = Fraction(abs(x))
        e = a.numerator.bit_length() - 1          # integers: floor(log2)
        q = max(e - mbits, emin - mbits)
        n = round_fraction(Fraction(x) / Fraction(2) ** q, rnd)
        r = Fraction(n) * Fraction(2) ** q
        if abs(r) > big:
            toward = sat or rnd in "ZO" or (rnd == "F" and x > 0) or (rnd == "C" and x < 0)
            out.append(math.copysign(float(big), x) if toward else math.copysign(math.inf, x))
        else:
            out.append(float(r))
    return np.array(out)


def same_float(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """Element-wise: equal value and sign, or both NaN."""
    g = got.astype(np.float64)
    return ((g == want) & (np.signbit(g) == np.signbit(want))) | (np.isnan(g) & np.isnan(want))


def assert_float(got: np.ndarray, want: np.ndarray, x: np.ndarray) -> None:
    ok = same_float(got, want)
    if not ok.all():
        i = np.flatnonzero(~ok)[:5]
        raise AssertionError(f"{(~ok).sum()} mismatches, e.g. x={x[i]} got={got[i]} "
                             f"want={want[i]}")


# --- the references check themselves ----------------------------------------------------

def test_references_agree():
    rng = np.random.default_rng(7)
    vals = [int(v) for v in rng.integers(-2**40, 2**40, 300)] + [1, -1, 3, 2049, -2049]
    for rnd in ROUND_MODES:
        for dst in ("f16", "bf16"):
            a = ref_fraction(vals, dst, rnd, False)
            b = ref_float64(np.array(vals, np.float64), dst, rnd, False)
            assert same_float(a, b).all(), (rnd, dst)


def test_round_fraction_worked_values():
    h = Fraction(1, 2)
    assert [round_fraction(t, "R") for t in (h, 3 * h, -h, -3 * h)] == [0, 2, 0, -2]
    assert [round_fraction(t, "A") for t in (h, 3 * h, -h, -3 * h)] == [1, 2, -1, -2]
    assert [round_fraction(t, "O") for t in (Fraction(9, 4), Fraction(-9, 4), Fraction(3))] \
        == [3, -3, 3]


# --- float -> float -------------------------------------------------------------------

@pytest.mark.parametrize("src", ["f16", "bf16"])
@pytest.mark.parametrize("rnd", ROUND_MODES)
def test_exhaustive_16bit_sources(src, rnd):
    x = all_bits(src)
    v = x.astype(np.float64)
    for dst in FLOATS:
        for sat in (False, True):
            got = convert(x, src, dst, rnd=rnd, sat=sat)
            assert got.dtype == dtype(dst).np
            want = ref_float64(v, dst, rnd, sat)
            if dst == "f32" and not sat:
                want = np.where(np.isnan(v), np.nan, v)
            assert_float(got, want, x)


@pytest.mark.parametrize("rnd", ROUND_MODES)
def test_f32_sources(rnd):
    x = f32_sample(20000)
    v = x.astype(np.float64)
    for dst in ("f16", "bf16", "f8E5M2", "f8E4M3FN"):
        for sat in (False, True):
            assert_float(convert(x, "f32", dst, rnd=rnd, sat=sat),
                         ref_float64(v, dst, rnd, sat), x)


def test_rne_matches_numpy_and_ml_dtypes():
    """R without saturation is IEEE round-to-nearest-even: numpy's and ml_dtypes' astype
    (bits compared, NaNs apart)."""
    x = f32_sample(20000, seed=3)
    for dst in ("f16", "bf16", "f8E5M2", "f8E4M3FN"):
        want = x.astype(dtype(dst).np)
        got = convert(x, "f32", dst)
        nan = np.isnan(want.astype(np.float32))
        assert np.array_equal(np.isnan(got.astype(np.float32)), nan)
        bits = f"u{dtype(dst).size}"
        assert np.array_equal(got.view(bits)[~nan], want.view(bits)[~nan]), dst


def test_widening_is_exact_and_keeps_nan_sign():
    x = all_bits("f16")
    got = convert(x, "f16", "f32")
    nan = np.isnan(x)
    assert np.array_equal(got[~nan].view(np.uint32), x[~nan].astype(np.float32).view(np.uint32))
    assert np.isnan(got[nan]).all()
    assert np.array_equal(np.signbit(got[nan]), np.signbit(x[nan]))
    # the NaN result is quiet and keeps the payload's top bits
    assert convert(np.array([0x7C01], np.uint16).view(np.float16), "f16", "f32") \
        .view(np.uint32)[0] == 0x7FC02000


def test_overflow_by_mode():
    """IEEE overflow: R/A to inf, Z/O to the largest finite, F/C toward their side."""
    x = np.array([70000.0, -70000.0], np.float32)
    m = 65504.0
    want = {"R": [np.inf, -np.inf], "A": [np.inf, -np.inf], "Z": [m, -m], "O": [m, -m],
            "F": [m, -np.inf], "C": [np.inf, -m]}
    for rnd, w in want.items():
        assert convert(x, "f32", "f16", rnd=rnd).tolist() == w, rnd
        assert convert(x, "f32", "f16", rnd=rnd, sat=True).tolist() == [m, -m]
    # the tie just above the largest finite f16 rounds to inf under R, down under Z
    t = np.array([65520.0], np.float32)
    assert convert(t, "f32", "f16").tolist() == [np.inf]
    assert convert(t, "f32", "f16", rnd="Z").tolist() == [m]
    # fp8 e4m3fn has no infinity: overflow and inf give NaN, or 448 with saturation
    e = convert(np.array([1000.0, np.inf], np.float32), "f32", "f8E4M3FN")
    assert np.isnan(e.astype(np.float32)).all()
    e = convert(np.array([1000.0, -np.inf, np.nan], np.float32), "f32", "f8E4M3FN", sat=True)
    assert e.astype(np.float32).tolist() == [448.0, -448.0, 0.0]


def test_subnormal_results_every_mode():
    tiny = np.float32(2.0 ** -24)           # the smallest f16 subnormal
    x = np.array([tiny * 0.5, tiny * 0.75, tiny * 1.5, tiny * 2.5, -tiny * 0.5], np.float32)
    q = float(tiny)
    want = {"R": [0, q, 2 * q, 2 * q, -0.0], "A": [q, q, 2 * q, 3 * q, -q],
            "F": [0, 0, q, 2 * q, -q], "C": [q, q, 2 * q, 3 * q, -0.0],
            "Z": [0, 0, q, 2 * q, -0.0], "O": [q, q, q, 3 * q, -q]}
    for rnd, w in want.items():
        got = convert(x, "f32", "f16", rnd=rnd).astype(np.float64)
        assert got.tolist() == w, rnd
        assert np.signbit(got[-1]), rnd


# --- integers ------------------------------------------------------------------------

@pytest.mark.parametrize("rnd", ROUND_MODES)
def test_float_to_int(rnd):
    x = f32_sample(4000, seed=5)
    x16 = all_bits("f16")
    for dst in INTS:
        for sat in (False, True):
            assert np.array_equal(convert(x, "f32", dst, rnd=rnd, sat=sat),
                                  ref_int(x, dst, rnd, sat)), (dst, sat)
            if dtype(dst).size <= 4:
                assert np.array_equal(convert(x16, "f16", dst, rnd=rnd, sat=sat),
                                      ref_int(x16, dst, rnd, sat)), (dst, sat)


def int_sample(name: str, n: int = 3000, seed: int = 11) -> np.ndarray:
    lo, hi = cv.int_range(name)
    rng = np.random.default_rng(seed)
    edges = [lo, lo + 1, -1, 0, 1, hi - 1, hi, 127, 128, 255, 256, 32767, 32768, 65535,
             65536, 2**24 + 1, 2**31 - 1, 2**31, 2**53 + 1, 2**63 - 1, -2**24 - 3]
    edges = [e for e in edges if lo <= e <= hi]
    body = rng.integers(lo, hi, n, dtype=dtype(name).np, endpoint=True)
    return np.concatenate([np.array(edges, dtype(name).np), body])


@pytest.mark.parametrize("src", INTS)
def test_int_to_int(src):
    x = int_sample(src)
    for dst in INTS:
        for sat in (False, True):
            want = np.array([wrap_or_clamp(int(v), dst, sat) for v in x.tolist()],
                            dtype(dst).np)
            assert np.array_equal(convert(x, src, dst, sat=sat), want), (dst, sat)


@pytest.mark.parametrize("src", ["si16", "ui16", "si32", "ui32", "si64", "ui64"])
@pytest.mark.parametrize("rnd", ROUND_MODES)
def test_int_to_float(src, rnd):
    x = int_sample(src, n=400)
    vals = [int(v) for v in x.tolist()]
    for dst in ("f32", "f16", "bf16"):
        for sat in (False, True):
            assert_float(convert(x, src, dst, rnd=rnd, sat=sat),
                         ref_fraction(vals, dst, rnd, sat), x)


# --- trunc_float ---------------------------------------------------------------------

@pytest.mark.parametrize("rnd", ["R", "A", "F", "C", "Z"])
def test_trunc_float(rnd):
    for name, x in (("f16", all_bits("f16")), ("bf16", all_bits("bf16")),
                    ("f32", f32_sample(20000, seed=9))):
        got = trunc_float(x, name, rnd)
        assert got.dtype == x.dtype
        v = x.astype(np.float64)
        with np.errstate(invalid="ignore"):
            want = np.where(np.isfinite(v), np.copysign(rnd64(v, rnd), v), v)
        assert_float(got, want, x)


def test_trunc_float_passes_specials_bits():
    x = np.array([np.nan, -np.inf, np.inf, -0.0, 0.0, 2.0**30], np.float32)
    x[0] = np.uint32(0xFFC01234).view(np.float32)
    for rnd in "RAFCZ":
        assert np.array_equal(trunc_float(x, "f32", rnd).view(np.uint32), x.view(np.uint32))


# --- PTO-Gym worked values -------------------------------------------------------------

def test_golden_vcvt_f32_special():
    """conversion/vcvt-f32-special, vcvt-tail-special: f32->f16 {R, SAT}: NaN -> 0,
    +-inf -> +-65504, the rest rounded to nearest."""
    x = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 65504.0, -65504.0, 1e-8,
                  -1e-8, 1e-4, -1e-4, 123.75, -123.75, 0.33333334], np.float32)
    got = convert(x, "f32", "f16", rnd="R", sat=True)
    want = [0.0, -0.0, 1.0, -1.0, 65504.0, -65504.0, 0.0, 65504.0, -65504.0, 0.0, -0.0,
            float(Fraction(1, 10000)), -float(Fraction(1, 10000)), 123.75, -123.75, 1 / 3]
    # 1e-4 and 1/3 are not f16 values: the nearest ones, computed exactly
    for i in (11, 12, 15):
        v = Fraction(float(x[i]))
        q = Fraction(2) ** (math.floor(math.log2(abs(v))) - 10)
        want[i] = float(round(v / q) * q)
    assert_float(got, np.array(want), x)


def test_golden_vcvt_f32_to_f16_even_odd_merge():
    """conversion/vcvt-f32-to-f16: per 128 outputs, 64 f32 values {R, SAT, EVEN} and the
    next 64 {ODD} merge into one f16 vector: out[2i] = a[i], out[2i+1] = b[i]."""
    v = np.random.default_rng(19).uniform(-8.0, 8.0, 1024).astype(np.float32)
    out = np.concatenate([
        (place_part(convert(v[o:o + 64], "f32", "f16", rnd="R", sat=True), "EVEN", 2).view(
            np.uint16) | place_part(convert(v[o + 64:o + 128], "f32", "f16", rnd="R",
                                            sat=True), "ODD", 2).view(np.uint16))
        for o in range(0, 1024, 128)]).view(np.float16)
    for o in range(0, 1024, 128):
        for i in range(64):
            assert out[o + 2 * i] == np.float16(v[o + i])
            assert out[o + 2 * i + 1] == np.float16(v[o + 64 + i])


def test_golden_vcvt_i32_to_i16_overflow_and_parts():
    """conversion/vcvt-i32-to-i16-overflow: {SAT, EVEN/ODD}; 64 values of a chunk go to
    the even lanes, the next 64 to the odd lanes of the 128-lane i16 vector."""
    edge = np.array([-40000, -32769, -32768, -32767, -1, 0, 1, 32766, 32767, 32768, 40000,
                     70000, -70000, 65535, -65535, 123456], np.int32)
    data = np.resize(edge, 128).astype(np.int32)
    even = place_part(convert(data[:64], "i32", "i16", sat=True), "EVEN", 2)
    odd = place_part(convert(data[64:], "i32", "i16", sat=True), "ODD", 2)
    merged = even | odd
    clip = [max(-32768, min(32767, int(v))) for v in data]
    assert merged[0::2].tolist() == clip[:64] and merged[1::2].tolist() == clip[64:]
    assert (even[1::2] == 0).all() and (odd[0::2] == 0).all()


def test_golden_vcvt_u32_to_u8_p0123():
    """conversion/vcvt-u32-to-u8-part-p0123: P0..P3 write byte lanes 4i+p."""
    rng = np.random.default_rng(23)
    data = rng.integers(0, 2000, 256, dtype=np.uint32)
    data[:5] = [0, 255, 256, 65535, 0xFFFFFFFF]
    out = np.zeros(256, np.uint8)
    for p in range(4):
        out |= place_part(convert(data[64 * p:64 * (p + 1)], "ui32", "ui8", sat=True),
                          f"P{p}", 4)
    for i in range(256):
        assert out[i] == min(int(data[64 * (i % 4) + i // 4]), 255)


def test_golden_vcvt_f16_to_f32_parts():
    """vcvt-f16-to-f32-part-even/odd: EVEN converts narrow lanes 2i, ODD lanes 2i+1."""
    v = np.random.default_rng(19).uniform(-8, 8, 128).astype(np.float16)
    for part, start in (("EVEN", 0), ("ODD", 1)):
        got = convert(select_part(v, part, 2), "f16", "f32")
        assert got.tolist() == [float(v[j]) for j in range(start, 128, 2)]


def test_golden_vcvt_i64_to_f32():
    """vcvt-i64-to-f32 {R}: the edge values around 2^24 round to nearest even."""
    edge = [-(1 << 31), -(1 << 24) - 3, -(1 << 24) - 1, -(1 << 24), -(1 << 24) + 1, -65537,
            -1, 0, 1, (1 << 24) - 1, 1 << 24, (1 << 24) + 1, (1 << 24) + 3, (1 << 31) - 2,
            (1 << 31) - 1]
    got = convert(np.array(edge, np.int64), "si64", "f32", rnd="R")
    want = [-2.0**31, -(2.0**24) - 4, -(2.0**24), -(2.0**24), -(2.0**24) + 1, -65537.0, -1.0,
            0.0, 1.0, 2.0**24 - 1, 2.0**24, 2.0**24, 2.0**24 + 4, 2.0**31, 2.0**31]
    assert got.tolist() == want


def test_golden_vtrc():
    """vtrc-rounding-boundary / vtrc-f32-rounding / vtrc-f16-rounding / vtrc-f32-special."""
    b = np.array([-3.5, -3.0, -2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5], np.float32)
    assert trunc_float(b, "f32", "R").tolist() == [-4, -3, -2, -2, -0.0, 0, 2, 2, 4]
    assert trunc_float(b, "f32", "Z").tolist() == [-3, -3, -2, -1, 0, 0, 1, 2, 3]
    assert trunc_float(b, "f32", "F").tolist() == [-4, -3, -3, -2, -1, 0, 1, 2, 3]
    h = np.array([-7.5, -3.25, -0.5, -0.0, 0.0, 0.5, 1.5, 6.75], np.float16)
    assert trunc_float(h, "f16", "Z").tolist() == [-7, -3, 0, 0, 0, 0, 1, 6]
    s = np.array([-np.inf, -7.5, -0.0, 0.0, 1.0, np.inf, np.nan, 3.5], np.float32)
    got = trunc_float(s, "f32", "Z")
    assert got[:6].tolist() == [-np.inf, -7, 0, 0, 1, np.inf] and np.isnan(got[6])
    assert got[7] == 3 and np.signbit(got[2]) and np.signbit(trunc_float(b, "f32", "R")[4])


# --- TCVT ------------------------------------------------------------------------------

def test_tcvt_worked_values_gen_data():
    """tcvt/gen_data.py: RINT / ROUND (half away) for float->int; the six default
    non-saturating pairs wrap (NaN/inf -> 0), the others clamp."""
    x = np.array([2.5, -2.5, 3.5, 0.5, 300.7, -300.2, 40000.0, -40000.0], np.float32)
    assert tcvt(x, "f32", "i32", round_mode="RINT").tolist() == \
        [2, -2, 4, 0, 301, -300, 40000, -40000]
    assert tcvt(x, "f32", "i32", round_mode="ROUND").tolist() == \
        [3, -3, 4, 1, 301, -300, 40000, -40000]
    # f32 -> i16 wraps by default: 40000 - 65536
    assert tcvt(x, "f32", "i16").tolist()[-2:] == [40000 - 65536, 65536 - 40000]
    assert tcvt(x, "f32", "i16", sat_mode="ON").tolist()[-2:] == [32767, -32768]
    h = np.array([300.7, -300.2, np.inf, np.nan, 255.0], np.float16)
    assert tcvt(h, "f16", "ui8").tolist() == [301 % 256, -300 % 256, 0, 0, 255]
    assert tcvt(h, "f16", "si8").tolist() == [45, -44, 0, 0, -1]
    # i16 -> u8 saturates by default
    assert tcvt(np.array([-5, 300], np.int16), "i16", "ui8").tolist() == [0, 255]
    # float destinations clamp to the finite range
    assert tcvt(np.array([1e6, -1e6], np.float32), "f32", "f16").tolist() == [65504, -65504]
    # f32 -> f32 rounds to integral (A5 lowers it to vtrc)
    assert tcvt(np.array([1.5, 2.5, -0.4], np.float32), "f32", "f32").tolist() == [2, 2, -0.0]


def test_tcvt_default_policy_table():
    want = {("f16", "ui8"), ("f16", "si8"), ("f32", "si16"), ("f16", "si16"),
            ("si64", "si32"), ("si32", "si16")}
    assert want == TCVT_DEFAULT_NOSAT
    assert not tcvt_default_sat("i32", "i16") and not tcvt_default_sat("f16", "i8")
    assert tcvt_default_sat("ui32", "ui8") and tcvt_default_sat("f32", "f16")
    assert not tcvt_default_sat("f16", "f32")       # dst f32: no saturating form
    # an explicit ON does not make an f32 destination saturate: inf stays inf
    assert tcvt(np.array([np.inf], np.float16), "f16", "f32", sat_mode="ON").tolist() == [np.inf]


def test_tile_round_modes():
    assert tile_rnd("CAST_RINT", "f32", "i32") == "R" and tile_rnd("RINT", "f32", "f16") == "R"
    assert tile_rnd("ROUND", "f32", "i32") == "A" and tile_rnd("TRUNC", "f16", "i8") == "Z"
    assert tile_rnd("FLOOR", "f32", "f32") == "F" and tile_rnd("CEIL", "i32", "f32") == "C"
    # NONE: float->int truncates, everything else rounds to nearest even
    assert tile_rnd("NONE", "f32", "i32") == "Z" and tile_rnd("NONE", "i32", "f32") == "R"
    # ODD only for f32->f16
    assert tile_rnd("ODD", "f32", "f16") == "O"
    assert tile_rnd("ODD", "f32", "bf16") == "R" and tile_rnd("ODD", "f32", "i32") == "Z"
    assert tile_rnd("CAST_FLOOR", "f32", "i32") == "F"      # pto-isa's C++ spellings


# --- tables ----------------------------------------------------------------------------

NOTES_TABLE = """
f32 f16 RSP; f32 bf16 RSP; f32 si16 RSP; f32 si64 RSP; f32 si32 RS; f16 f32 P; f16 si32 RP;
f16 si16 RS; f16 si8 RSP; f16 ui8 RSP; bf16 f32 P; bf16 si32 RSP; bf16 f16 RS; ui8 f16 P;
ui8 ui16 P; ui8 ui32 P; si8 f16 P; si8 si16 P; si8 si32 P; ui16 ui8 SP; ui16 ui32 P;
si16 f16 R; si16 f32 P; si16 ui32 P; si16 si32 P; si16 ui8 SP; ui32 ui8 SP; ui32 ui16 SP;
ui32 si16 SP; si32 f32 R; si32 ui8 SP; si32 ui16 SP; si32 si16 SP; si32 si64 P;
si64 f32 RP; si64 si32 SP
"""


def test_vcvt_rules_match_the_notes_table():
    """Against the hand-copied table of shared/vector-notes.md §1.6 (36 pairs)."""
    rows = [r.split() for r in NOTES_TABLE.replace("\n", " ").split(";")]
    want = {(s, d): a for s, d, a in rows}
    assert len(want) == 36 == len(VCVT_RULES)
    for (s, d), rule in VCVT_RULES.items():
        a = want[(s, d)]
        assert (rule.rnd, rule.sat, rule.part) == ("R" in a, "S" in a, "P" in a), (s, d)
        assert rule.mask_bits == min(32, dtype(s).size * 8)
        # a part is required exactly when the lane widths differ
        assert rule.part == (rule.ratio > 1), (s, d)
    assert VCVT_RULES[("bf16", "f16")].sat_before_rnd
    assert vcvt_rule("i32", "i16") is VCVT_RULES[("si32", "si16")]
    assert vcvt_rule("ui64", "f32") is None and vcvt_rule("f32", "ui8") is None


@pytest.mark.parametrize("pair", sorted(VCVT_RULES))
def test_every_vcvt_pair(pair):
    """Each legal pair, with every rounding mode it may take and both saturation forms,
    against the references."""
    s, d = pair
    rule = VCVT_RULES[pair]
    x = f32_sample(600, seed=13).astype(np.float64) if dtype(s).is_float else int_sample(s, 600)
    if dtype(s).is_float:
        with np.errstate(all="ignore"):
            x = x.astype(dtype(s).np)
    for rnd in (ROUND_MODES if rule.rnd else ("R",)):
        for sat in ((False, True) if rule.sat else (False,)):
            got = convert(x, s, d, rnd=rnd, sat=sat)
            if dtype(d).is_float and dtype(s).is_float:
                assert_float(got, ref_float64(x.astype(np.float64), d, rnd, sat)
                             if d != "f32" else np.where(np.isnan(x), np.nan, x), x)
            elif dtype(d).is_float:
                assert_float(got, ref_fraction([int(v) for v in x.tolist()], d, rnd, sat), x)
            elif dtype(s).is_float:
                assert np.array_equal(got, ref_int(x, d, rnd, sat))
            else:
                want = [wrap_or_clamp(int(v), d, sat) for v in x.tolist()]
                assert got.tolist() == want


def test_part_helpers():
    v = np.arange(1, 5, dtype=np.int16)
    assert place_part(v, "ODD", 2).tolist() == [0, 1, 0, 2, 0, 3, 0, 4]
    assert place_part(v, "P2", 4).tolist()[:8] == [0, 0, 1, 0, 0, 0, 2, 0]
    assert place_part(v, "EVEN", 4).tolist()[:4] == [1, 0, 0, 0]     # EVEN is P0
    lanes = np.arange(8)
    assert select_part(lanes, "ODD", 2).tolist() == [1, 3, 5, 7]
    assert select_part(lanes, "P3", 4).tolist() == [3, 7]


def test_ctrl_sat():
    on = (1 << 60)                      # CTRL[60]=1, CTRL[59]=0: saturate
    off = (1 << 60) | (1 << 59)
    assert ctrl_sat("f32", "i16", on) is True and ctrl_sat("f32", "i16", off) is False
    assert ctrl_sat("i32", "i16", off) is False and ctrl_sat("f32", "f16", on) is True
    assert ctrl_sat("f32", "i16", 0) is None          # CTRL[60]=0: the instruction decides
    assert ctrl_sat("f16", "f32", on) is None         # to f32: never governed
    assert ctrl_sat("i16", "i32", on) is None         # widening integers cannot overflow
    assert ctrl_sat("bf16", "f16", 1 << 48) is False and ctrl_sat("bf16", "f16", 0) is True


# --- errors ----------------------------------------------------------------------------

def test_errors_name_op_operand_and_values():
    x = np.zeros(2, np.float32)
    with pytest.raises(PtoValueError, match=r"convert: rnd 'N' is not a rounding mode; use "
                                            r"one of R, A, F, C, Z, O"):
        convert(x, "f32", "f16", rnd="N")
    with pytest.raises(DtypeError, match=r"convert: input array has dtype float64, but f32 "
                                         r"elements are carried as float32"):
        convert(np.zeros(2), "f32", "f16")
    with pytest.raises(DtypeError, match=r"convert: conversions from f32 to f4E2M1x2 are "
                                         r"not supported"):
        convert(x, "f32", "f4E2M1x2")
    with pytest.raises(DtypeError, match=r"trunc_float: trunc_float needs a float type, "
                                         r"got i32"):
        trunc_float(np.zeros(2, np.int32), "i32", "R")
    with pytest.raises(PtoValueError, match=r"vcvt: part P2 selects lane 2 of 2; .* has parts "
                                            r"EVEN, ODD, P0, P1"):
        place_part(np.zeros(2, np.int16), "P2", 2)
    with pytest.raises(PtoValueError, match=r"vcvt: part 'HIGH' is not one of EVEN"):
        select_part(np.zeros(2), "HIGH", 2)
    with pytest.raises(PtoValueError, match=r"tcvt: round mode 'NEAREST' is not one of NONE"):
        tcvt(x, "f32", "i32", round_mode="NEAREST")
    with pytest.raises(PtoValueError, match=r"tcvt: saturation mode 'YES' is not ON or OFF"):
        tcvt(x, "f32", "i32", sat_mode="YES")


def ref_hif8(x: np.ndarray, rnd: str, sat: bool) -> list[int]:
    """HiFloat8 codes by brute force: scan every code's decoded value for the neighbours
    of |x| (exact float comparisons, Fraction midpoints); the inf code's slot above the
    largest finite value is 1.5 * 2^15."""
    from ptosim.dtypes import HIF8_TABLE
    vals = {float(HIF8_TABLE[c]): c for c in range(0x80) if math.isfinite(HIF8_TABLE[c])}
    out = []
    for v in x.astype(np.float64).tolist():
        if math.isnan(v):
            out.append(0 if sat else 0x80)
            continue
        neg, a = math.copysign(1, v) < 0, abs(v)
        if math.isinf(a):
            c = 0x6E if sat else 0x6F
        else:
            lo = max(t for t in vals if t <= a)
            above = [t for t in vals if t > a]
            hi = min(above) if above else 1.5 * 2**15
            lc, hc = vals[lo], vals.get(hi, 0x6F)
            mid = (Fraction(lo) + Fraction(hi)) / 2
            up = {"R": Fraction(a) > mid or (Fraction(a) == mid and lc % 2 == 1),
                  "A": Fraction(a) >= mid, "F": a != lo and neg, "C": a != lo and not neg,
                  "Z": False, "O": a != lo and lc % 2 == 0}[rnd]
            c = hc if up else lc
            if sat and c == 0x6F:
                c = 0x6E
        out.append(c | 0x80 if neg and c else c)
    return out


@pytest.mark.parametrize("rnd", ROUND_MODES)
def test_hif8_destination(rnd):
    rng = np.random.default_rng(29)
    x = np.concatenate([
        f32_sample(300, seed=31),
        (np.exp2(rng.uniform(-25, 17, 600)) * rng.choice([-1, 1], 600)).astype(np.float32),
        np.array([40960.0, 40959.996, 32768.0, 2.0**-22, 2.0**-23, 3 * 2.0**-23, 1.25, 1.125],
                 np.float32)])
    for sat in (False, True):
        assert convert(x, "f32", "hif8", rnd=rnd, sat=sat).tolist() == ref_hif8(x, rnd, sat)
    h = all_bits("f16")[::7]
    assert convert(h, "f16", "hif8", rnd=rnd).tolist() == ref_hif8(h, rnd, False)


def test_hif8_round_trip_and_limits():
    codes = np.arange(256, dtype=np.uint8)
    assert np.array_equal(convert(convert(codes, "hif8", "f32"), "f32", "hif8"), codes)
    x = np.array([40960.0, 1e9, -np.inf, -0.0, np.nan], np.float32)
    assert convert(x, "f32", "hif8", rnd="A").tolist() == [0x6F, 0x6F, 0xEF, 0x00, 0x80]
    assert convert(x, "f32", "hif8", rnd="A", sat=True).tolist() == [0x6E, 0x6E, 0xEE, 0, 0]
    with pytest.raises(DtypeError, match=r"convert: conversions from si32 to hif8 are not "
                                         r"supported"):
        convert(np.zeros(2, np.int32), "si32", "hif8")


def test_hif8_source_is_decoded_exactly():
    from ptosim.dtypes import HIF8_TABLE
    codes = np.arange(256, dtype=np.uint8)
    got = convert(codes, "hif8", "f32")
    assert_float(got, HIF8_TABLE.astype(np.float64), codes)


def test_engine_is_warning_free():
    """NaN, infinities, sNaN and out-of-range inputs convert without numpy warnings."""
    x16 = all_bits("f16")
    x32 = f32_sample(2000, seed=17)
    big = np.array([-2**63, 2**63 - 1, 0, -1], np.int64)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for rnd in ("R", "O"):          # every mode runs the same casts
            for sat in (False, True):
                for dst in FLOATS + INTS:
                    convert(x16, "f16", dst, rnd=rnd, sat=sat)
                    convert(x32, "f32", dst, rnd=rnd, sat=sat)
                    convert(big, "si64", dst, rnd=rnd, sat=sat)
            trunc_float(x32, "f32", rnd)


# The 34 (src, dst) pairs of PTO-Gym's tcvt cases (examples/tileop/src/testcase/tcvt/cases.py).
GYM_TCVT_PAIRS = [
    ("f32", "f16"), ("f32", "bf16"), ("f32", "i16"), ("f32", "i32"), ("f32", "i64"),
    ("f32", "f32"), ("f16", "f32"), ("f16", "i32"), ("f16", "i16"), ("f16", "si8"),
    ("f16", "ui8"), ("bf16", "f32"), ("bf16", "f16"), ("bf16", "i32"), ("ui8", "f16"),
    ("ui8", "ui16"), ("si8", "f16"), ("si8", "si16"), ("si8", "i32"), ("i16", "ui8"),
    ("i16", "f16"), ("i16", "f32"), ("i16", "ui32"), ("i16", "i32"), ("i32", "f32"),
    ("i32", "i16"), ("i32", "i64"), ("i32", "ui8"), ("i32", "ui16"), ("ui32", "i16"),
    ("ui32", "ui16"), ("ui32", "ui8"), ("i64", "f32"), ("i64", "i32"),
]


@pytest.mark.parametrize("pair", GYM_TCVT_PAIRS, ids=lambda p: f"{p[0]}-{p[1]}")
@pytest.mark.parametrize("mode", ["RINT", "ROUND"])
def test_tcvt_gym_pairs(pair, mode):
    """Every pair of the Gym tcvt suite on its input distribution (floats in [-100, 100),
    integers in each case's range): float->int and f32->f32 round per mode, the default
    non-saturating pairs wrap, other integer results clamp, float results are nearest."""
    s, d = pair
    rng = np.random.default_rng(19)
    lo_hi = {"ui8": (0, 256), "si8": (-128, 128), "i16": (-1000, 1000), "ui32": (0, 10000)}
    if dtype(s).is_float:
        x = (rng.random(512) * 200 - 100).astype(dtype(s).np)
    else:
        lo, hi = lo_hi.get(s, (-10000, 10000))
        x = rng.integers(lo, hi, 512).astype(dtype(s).np)
    x[:4] = np.array([0, 1, 2, 3]).astype(dtype(s).np)
    got = tcvt(x, s, d, round_mode=mode)
    v = x.astype(np.float64)
    if dtype(s).is_float and (not dtype(d).is_float or s == d == "f32"):
        v = np.rint(v) if mode == "RINT" else np.sign(v) * np.floor(np.abs(v) + 0.5)
    if dtype(d).is_float:
        want = v.astype(dtype(d).np)
        assert np.array_equal(got, want)
    else:
        ints = [int(t) for t in v.tolist()]
        wrap = (dtype(s).name, dtype(d).name) in {
            ("f16", "ui8"), ("f16", "si8"), ("f32", "i16"), ("f16", "i16"), ("i64", "i32"),
            ("i32", "i16")}
        assert got.tolist() == [wrap_or_clamp(t, d, not wrap) for t in ints]


def test_tcvt_pair_tables():
    """The A5 list has every pair of the Gym suite and every vcvt-contract pair the tile
    op uses; the engine converts every A5 pair but the packed fp4 ones."""
    gym = {(dtype(a).name, dtype(b).name) for a, b in GYM_TCVT_PAIRS}
    canon = {(cv._canon(dtype(a)), cv._canon(dtype(b))) for a, b in gym}
    assert canon <= cv.TCVT_PAIRS_A5
    assert ("si32", "f16") in cv.TCVT_PAIRS_A2A3 and ("si32", "f16") not in cv.TCVT_PAIRS_A5
    assert ("f16", "f8E4M3FN") not in cv.TCVT_PAIRS_A5
    for s, d in sorted(cv.TCVT_PAIRS_A5 | cv.TCVT_PAIRS_A2A3):
        if "f4" in s or "f4" in d:
            continue
        x = np.zeros(4, dtype(s).np)
        assert tcvt(x, s, d).dtype == dtype(d).np


def test_tcvt_hif8_rounds_away():
    """A5 converts to hif8 with ROUND_A whatever the tile round mode (TCvt.hpp)."""
    x = np.array([1.0625, -1.0625, 2.125], np.float32)     # ties between hif8 neighbours
    want = convert(x, "f32", "hif8", rnd="A", sat=True)
    assert tcvt(x, "f32", "hif8", round_mode="TRUNC").tolist() == want.tolist()
    assert want.tolist() != convert(x, "f32", "hif8", rnd="Z").tolist()


def test_shapes_are_kept():
    """0-d, empty and 2-D inputs come back with their shape, as arrays of dst's carrier;
    a Python list or scalar is read as src's carrier."""
    for dst in ("f16", "si8", "hif8", "f8E4M3FN"):
        for x in (np.array(2.5, np.float32), np.zeros((0,), np.float32),
                  np.arange(6, dtype=np.float32).reshape(2, 3)):
            got = convert(x, "f32", dst)
            assert isinstance(got, np.ndarray) and got.shape == x.shape
            assert got.dtype == dtype(dst).np
    assert convert([1.5, 2.5], "f32", "si32").tolist() == [2, 2]
    assert trunc_float(np.array(2.5, np.float32), "f32", "A").shape == ()
