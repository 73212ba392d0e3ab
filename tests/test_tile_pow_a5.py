"""TPOW / TPOWS on a5 (pto-isa a5 TPow.hpp): integers by wrapping squaring, floats by the
DEFAULT exp(y * ln|x|) and the HIGH_PRECISION double-f32 log / compensated exp, both with
the special-case pass; goldens written independently (Python ints, an exact-rational
step-by-step replay, IEEE pow for the special values); rules; `.pto` with the algo
attribute."""

from __future__ import annotations

import math
import struct
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

import ptosim
from ptosim.kernel import Kernel
from tile_helpers import tile_buf, vec_kernel

NP = {"i8": np.int8, "ui8": np.uint8, "i16": np.int16, "ui16": np.uint16, "i32": np.int32,
      "ui32": np.uint32, "f32": np.float32, "f16": np.float16}
SHAPE = (2, 96)
VALID = (2, 70)


def _tiles(m: ptosim.Machine, dt: str, n: int = 4) -> list[ptosim.Tile]:
    return [m.tile("Vec", dt, *SHAPE, valid=VALID) for _ in range(n)]


def _get(m: ptosim.Machine, t: ptosim.Tile) -> np.ndarray:
    return m.read(t.ptr, t.rows * t.cols).reshape(t.rows, t.cols)


def _run(dt: str, b: np.ndarray, e: np.ndarray | float, algo: str = "DEFAULT",
         target: str = "a5") -> tuple[np.ndarray, ptosim.Machine, list[ptosim.Tile]]:
    m = ptosim.Machine(target=target)
    tl = _tiles(m, dt)
    d, bt, et, tmp = tl
    m.write(d.ptr, np.full(SHAPE, 7, NP[dt]))
    m.write(tmp.ptr, np.full(SHAPE, 9, NP[dt]))
    m.write(bt.ptr, b)
    if isinstance(e, np.ndarray):
        m.write(et.ptr, e)
        m.TPOW(d, bt, et, tmp, algo=algo)
    else:
        m.TPOWS(d, bt, e, tmp, algo=algo)
    return _get(m, d), m, tl


# --- integers ----------------------------------------------------------------------------------
def _ipow_a5(base: int, exp: int, bits: int, signed: bool) -> int:
    """x^0 = 1^y = 1; signed y < 0: (-1)^y by parity, else 0; otherwise x^y mod 2^bits."""
    if exp == 0 or base == 1:
        v = 1
    elif signed and exp < 0:
        v = (-1 if exp % 2 else 1) if base == -1 else 0
    else:
        v = pow(base, exp, 1 << bits)
    v %= 1 << bits
    return v - (1 << bits) if signed and v >> (bits - 1) else v


@pytest.mark.parametrize("dt", ["i8", "ui8", "i16", "ui16", "i32", "ui32"])
def test_integer_pow(dt: str) -> None:
    info = np.iinfo(NP[dt])
    rng = np.random.default_rng(len(dt) + info.bits)
    b = rng.integers(max(info.min, -9), min(info.max, 9) + 1, SHAPE).astype(NP[dt])
    e = rng.integers(max(info.min, -3), min(info.max, 40) + 1, SHAPE).astype(NP[dt])
    b[1, :20] = rng.integers(info.min, info.max, 20, endpoint=True)    # full range
    e[1, :20] = rng.integers(info.min, info.max, 20, endpoint=True)
    b[0, :6] = [0, 1, 0, info.max, 1, 0]
    e[0, :6] = [0, info.max, 3, 2, 0, info.max]
    got, _, _ = _run(dt, b, e)
    want = np.array([[_ipow_a5(int(x), int(y), info.bits, info.min < 0) for x, y in
                      zip(rb[:70], re[:70], strict=True)] for rb, re in zip(b, e, strict=True)])
    np.testing.assert_array_equal(got[:, :70], want.astype(NP[dt]))
    assert (got[:, 70:] == 7).all()                               # outside the valid region


def test_integer_pows_negative_and_wrapping_scalar() -> None:
    b = np.tile(np.arange(-48, 48, dtype=np.int16), (2, 1))
    got, _, _ = _run("i16", b, -1)
    want = [[_ipow_a5(int(x), -1, 16, True) for x in r[:70]] for r in b]
    np.testing.assert_array_equal(got[:, :70], want)
    u = np.tile(np.arange(96, dtype=np.uint8), (2, 1))
    got, _, _ = _run("ui8", u, 255)                               # C++'s uint8_t exponent
    np.testing.assert_array_equal(got[:, :70], [[_ipow_a5(int(x), 255, 8, False)
                                                 for x in r[:70]] for r in u])


# --- floats: special values --------------------------------------------------------------------
SPECIAL_B = [0.0, -0.0, math.inf, -math.inf, math.nan, 1.0, -1.0, 2.0, -2.0, 0.5]
SPECIAL_E = [0.0, -0.0, math.inf, -math.inf, math.nan, 1.0, -1.0, 3.0, -3.0, 2.0, 0.5, -0.5]


def _special_grid() -> tuple[np.ndarray, np.ndarray]:
    pairs = [(x, y) for x in SPECIAL_B for y in SPECIAL_E]          # 120 pairs
    b = np.ones(SHAPE, np.float32)
    e = np.ones(SHAPE, np.float32)
    for i, (x, y) in enumerate(pairs[:140]):
        b[i // 70, i % 70], e[i // 70, i % 70] = x, y
    return b, e


def _ieee_pow(b: np.ndarray, e: np.ndarray) -> np.ndarray:
    """C99 pow's special values (numpy's f64 power follows them)."""
    with np.errstate(all="ignore"):
        return np.power(b.astype(np.float64), e.astype(np.float64)).astype(np.float32)


def _same_bits(a: np.ndarray, b: np.ndarray) -> None:
    nan = np.isnan(a) & np.isnan(b)
    np.testing.assert_array_equal(np.where(nan, 0, a.view(np.uint32)),
                                  np.where(nan, 0, b.view(np.uint32)))


@pytest.mark.parametrize("algo", ["DEFAULT", "HIGH_PRECISION"])
def test_special_values_follow_ieee_pow(algo: str) -> None:
    """Every pair of special operands (zeros of both signs, infinities, NaN, +-1, small
    integers and halves) gives C99 pow's value, signs of zeros and infinities included."""
    b, e = _special_grid()
    got, _, _ = _run("f32", b, e, algo)
    inexact = np.isin(np.abs(b), [2.0, 0.5]) & np.isin(e, [0.5, -0.5])   # sqrt(2) and kin
    want = np.where(inexact, got, _ieee_pow(b, e))
    assert inexact.sum() == 6
    _same_bits(got[:, :70], want[:, :70])


# --- floats: DEFAULT ---------------------------------------------------------------------------
def _default_golden(b: np.ndarray, e: np.ndarray) -> np.ndarray:
    """exp(f32(e * ln|b|)) with ptosim's f32 ln / exp lanes; a negative base takes the sign
    of an odd integer exponent, NaN for a fractional one."""
    with np.errstate(all="ignore"):
        mag = np.exp(np.float32(e) * np.log(np.abs(b))).astype(np.float32)
    integral = np.floor(e) == e
    odd = integral & (np.mod(e, 2) == 1)
    out = np.where(b < 0, np.where(integral, np.where(odd, -mag, mag), np.nan), mag)
    return out.astype(np.float32)


def _random_f32(seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    b = rng.uniform(0.05, 9.0, SHAPE).astype(np.float32)
    e = rng.uniform(-7.0, 7.0, SHAPE).astype(np.float32)
    b[:, ::3] *= -1
    e[:, ::2] = np.round(e[:, ::2])
    return b, e


def test_default_f32() -> None:
    b, e = _random_f32(5)
    got, _, tl = _run("f32", b, e)
    _same_bits(got[:, :70], _default_golden(b, e)[:, :70])
    assert np.isnan(got[0, 3]) == (e[0, 3] != np.floor(e[0, 3]))   # -x ^ fraction -> NaN


def test_default_f16_rounds_the_f32_result() -> None:
    b, e = _random_f32(6)
    b16, e16 = b.astype(np.float16), e.astype(np.float16)
    got, _, _ = _run("f16", b16, e16)
    with np.errstate(over="ignore"):
        want = _default_golden(b16.astype(np.float32), e16.astype(np.float32)).astype(np.float16)
    np.testing.assert_array_equal(got[:, :70].view(np.uint16), want[:, :70].view(np.uint16))


def test_a5_leaves_tmp_alone() -> None:
    b, e = _random_f32(7)
    _, m, tl = _run("f32", b, e)
    assert (_get(m, tl[3]) == 9).all()


# --- floats: HIGH_PRECISION, replayed on exact rationals ---------------------------------------
def _r32(q: Fraction) -> np.float32:
    """Nearest-even f32 of an exact rational (finite, in range)."""
    f = np.float32(float(q))
    cands = [np.nextafter(f, np.float32(-np.inf)), f, np.nextafter(f, np.float32(np.inf))]
    return min(cands, key=lambda c: (abs(Fraction(float(c)) - q),
                                     int(np.array(c).view(np.uint32)) & 1))


def _u32(x: np.float32) -> int:
    return struct.unpack("<I", struct.pack("<f", x))[0]


def _f32(u: int) -> np.float32:
    return np.float32(struct.unpack("<f", struct.pack("<I", u & 0xFFFFFFFF))[0])


def _hp_golden(b: float, e: float) -> np.float32:
    """a5 TPow.hpp's HIGH_PRECISION steps on one finite element, each rounding explicit."""
    F = Fraction
    def mul(x: float, y: float) -> np.float32:
        return _r32(F(float(x)) * F(float(y)))
    def add(x: float, y: float) -> np.float32:
        return _r32(F(float(x)) + F(float(y)))
    def fma(x: float, y: float, z: float) -> np.float32:
        return _r32(F(float(x)) * F(float(y)) + F(float(z)))
    def sfu(fn: np.ufunc, x: float) -> np.float32:
        return fn(np.array([x], np.float32))[0]
    f = np.float32
    a = abs(f(b))
    ia = _u32(a)
    k = ((ia - 0x3F3504F3) & 0xFF800000) - (1 << 32 if (ia - 0x3F3504F3) & 0x80000000 else 0)
    m_ = _f32(ia - k)
    high = f(k / 2 ** 23) + (f(-23) if a < f(1.175494351e-38) else f(0))
    r = _r32(F(1) / F(float(add(m_, 1.0))))
    low = add(m_, -1.0)
    qhi = mul(low, r)
    t = add(mul(qhi, -2.0), low)
    qlo = mul(r, fma(-low, qhi, t))
    s = mul(qhi, qhi)
    p = fma(s, f(0.129394531), f(0.141957462))
    p = fma(p, s, f(0.200015724))
    p = fma(p, s, f(0.333333254))
    p = mul(p, s)
    qhi, qlo = add(qhi, qhi), add(qlo, qlo)
    fhi = add(mul(high, f(6.93147182e-1)), qhi)
    flo = add(qhi, -fma(high, f(-6.93147182e-1), fhi))
    qhi = fma(qhi, p, flo)
    qlo = fma(mul(qlo, 3.0), p, qlo)
    qlo = add(fma(high, f(-1.90465421e-9), qlo), qhi)
    hi = add(fhi, qlo)
    lo = add(add(fhi, -hi), qlo)
    phi = mul(hi, e)
    plo = fma(lo, e, fma(hi, e, -phi))
    ex = sfu(np.exp, phi)
    out = f(np.inf) if phi >= f(88.7228390) else f(0) if phi < -104 else fma(plo, ex, ex)
    if b < 0 and float(e).is_integer():
        return -out if int(e) % 2 else out
    return out if b > 0 else f(np.nan)


def test_high_precision_f32_step_by_step() -> None:
    b, e = _random_f32(8)
    b[0, :4] = [1e-40, 3e-39, 2.0, 1.5]          # subnormal bases: a5's -23 offset (see docs)
    e[0, :4] = [1.0, 2.0, 0.5, 100.0]
    got, _, _ = _run("f32", b, e, "HIGH_PRECISION")
    want = np.array([[_hp_golden(float(x), float(y)) for x, y in zip(rb[:70], re[:70],
                                                                      strict=True)]
                     for rb, re in zip(b, e, strict=True)], np.float32)
    _same_bits(got[:, :70], want)
    # a5's unused 2^23 scaling: a subnormal base loses its own exponent (1e-40^1 != 1e-40)
    assert got[0, 0] != np.float32(1e-40)


def test_high_precision_is_closer_than_default() -> None:
    """Independent check on the mathematics: within 2 ulp of the exact power (f64), where
    DEFAULT strays further (its ln / exp round in f32)."""
    rng = np.random.default_rng(9)
    b = rng.uniform(0.5, 9.0, SHAPE).astype(np.float32)
    e = rng.uniform(-30.0, 30.0, SHAPE).astype(np.float32)
    exact = np.power(b.astype(np.float64), e.astype(np.float64))[:, :70]
    ulp = np.spacing(exact.astype(np.float32)).astype(np.float64)
    hp, _, _ = _run("f32", b, e, "HIGH_PRECISION")
    df, _, _ = _run("f32", b, e)
    assert (np.abs(hp[:, :70] - exact) <= 2 * ulp).all()
    assert (np.abs(df[:, :70] - exact) > 2 * ulp).any()


def test_high_precision_bf16_and_pows() -> None:
    b, e = _random_f32(10)
    bf = ml_dtypes.bfloat16
    bb = b.astype(bf)
    m = ptosim.Machine(target="a5")
    d, bt, _, tmp = [m.tile("Vec", "bf16", *SHAPE, valid=VALID) for _ in range(4)]
    m.write(bt.ptr, bb)
    m.TPOWS(d, bt, 2.5, tmp, algo="HIGH_PRECISION")
    got = m.read(d.ptr, SHAPE[0] * SHAPE[1]).reshape(SHAPE)[:, :70]
    want = [[_hp_golden(float(x), 2.5) for x in r[:70]] for r in bb.astype(np.float32)]
    np.testing.assert_array_equal(got.view(np.uint16),
                                  np.array(want, np.float32).astype(bf).view(np.uint16))


# --- rules, a2a3's algo, .pto --------------------------------------------------------------------
def test_rules() -> None:
    m = ptosim.Machine(target="a5")
    with pytest.raises(ptosim.VerifyError, match="TPOW: algo must be DEFAULT or "
                                                 "HIGH_PRECISION, got 'FAST'"):
        m.TPOW(*_tiles(m, "f32"), algo="FAST")
    with pytest.raises(ptosim.DtypeError, match="TPOW: dst element type must be one of bf16, "
                                                "f16, f32 with algo=HIGH_PRECISION on a5, "
                                                "got i32"):
        m.TPOW(*_tiles(m, "i32"), algo="HIGH_PRECISION")
    with pytest.raises(ptosim.DtypeError, match="TPOWS: dst element type must be one of f16, "
                                                "f32, i16, i32, i8, ui16, ui32, ui8 on a5, "
                                                "got bf16"):
        m.TPOWS(*_tiles(m, "bf16", 2), 2.0, _tiles(m, "bf16", 1)[0])
    d, b, e, t = _tiles(m, "f32")
    with pytest.raises(ptosim.VerifyError, match="TPOW: exp's valid region 2x96 differs from "
                                                 "dst's 2x70"):
        m.TPOW(d, b, m.tile("Vec", "f32", *SHAPE), t)
    with pytest.raises(ptosim.DtypeError, match="TPOW: exp is f16 but dst is f32"):
        m.TPOW(d, b, _tiles(m, "f16", 1)[0], t)


def test_a2a3_ignores_algo() -> None:
    b, e = _random_f32(11)
    hp, _, _ = _run("f32", b, e, "HIGH_PRECISION", target="a2a3")
    df, _, _ = _run("f32", b, e, "DEFAULT", target="a2a3")
    _same_bits(hp, df)


def test_pto_algo_attribute() -> None:
    t = tile_buf("f32", 1, 16)
    body = (f'pto.tpow ins(%a, %a, %t : {t}, {t}, {t}) outs(%d : {t}) '
            f'{{algo = "HIGH_PRECISION"}}')
    text = vec_kernel(body, target="a5", params="%g: !pto.ptr<f32, gm>",
                      views={"p": ("g", "f32", 1, 16)}, tiles={"a": t, "t": t, "d": t},
                      loads=[("p", "a")], stores=[("d", "p")])
    x = np.linspace(0.25, 4.0, 16).astype(np.float32)
    res = Kernel.from_text(text, "k.pto").run({"g": x.copy()})
    assert res.findings == []
    _same_bits(res.outputs["g"], np.array([_hp_golden(float(v), float(v)) for v in x],
                                          np.float32))
