"""TPOW / TPOWS on a2a3 (pto-isa a2a3 TPow.hpp): integers by squaring on C ints, f32 as
exp(ln(x) * y) with the scalar fix-ups, against element-by-element Python goldens; a5 not
modelled; rules; the `.pto` form."""

from __future__ import annotations

import math

import numpy as np
import pytest

import ptosim
from ptosim.kernel import Kernel
from tile_helpers import tile_buf, vec_kernel

NP = {"i8": np.int8, "ui8": np.uint8, "i16": np.int16, "ui16": np.uint16, "i32": np.int32,
      "ui32": np.uint32, "f32": np.float32}


def _c_int(x: int) -> int:
    x &= 0xFFFFFFFF
    return x - (1 << 32) if x >> 31 else x


def _ipow(base: int, exp: int) -> int:
    base, exp = _c_int(base), _c_int(exp)
    if exp == 0:
        return 1
    if base == 0:
        return 0
    if base == 1:
        return 1
    if base == -1:
        return -1 if exp & 1 else 1
    if exp < 0:
        return 0
    result = 1
    while exp:
        if exp & 1:
            result = _c_int(result * base)
        exp >>= 1
        base = _c_int(base * base)
    return result


def _fpow(base: float, exp: float) -> float:
    f = np.float32
    with np.errstate(all="ignore"):
        t = np.exp(f(np.log(np.abs(f(base))) * f(exp)))
        d = np.exp(f(np.log(f(base)) * f(exp)))
    if exp == 0:
        return 1.0
    if base == 0:
        return 0.0 if exp > 0 else math.inf
    if base == -1 and math.isinf(exp):
        return 1.0
    if math.isfinite(exp) and math.floor(exp) == exp:
        n = int(exp) if abs(exp) < 2 ** 31 else -2 ** 31
        return float(-t if n % 2 and base < 0 else t)
    return float(d)


def _tiles(m: ptosim.Machine, dt: str, n: int = 4) -> list[ptosim.Tile]:
    return [m.tile("Vec", dt, 2, 32, valid=(2, 20)) for _ in range(n)]


def _get(m: ptosim.Machine, t: ptosim.Tile) -> np.ndarray:
    return m.read(t.ptr, t.rows * t.cols).reshape(t.rows, t.cols)


@pytest.mark.parametrize("dt", ["i8", "ui8", "i16", "ui16", "i32", "ui32"])
def test_integer_pow(dt: str) -> None:
    m = ptosim.Machine(target="a2a3")
    d, b, e, t = _tiles(m, dt)
    info = np.iinfo(NP[dt])
    rng = np.random.default_rng(len(dt))
    bv = rng.integers(max(info.min, -9), min(info.max, 9) + 1, (2, 32)).astype(NP[dt])
    ev = rng.integers(max(info.min, -3), min(info.max, 40) + 1, (2, 32)).astype(NP[dt])
    bv.flat[:4] = [0, 1, 0, info.max]
    ev.flat[:4] = [0, 5, 3, 2]
    m.write(b.ptr, bv)
    m.write(e.ptr, ev)
    m.TPOW(d, b, e, t)
    want = np.array([[_ipow(int(x), int(y)) for x, y in zip(rb[:20], re[:20], strict=True)]
                     for rb, re in zip(bv, ev, strict=True)], np.int64).astype(NP[dt])
    np.testing.assert_array_equal(_get(m, d)[:, :20], want)


def test_integer_pows_scalar() -> None:
    m = ptosim.Machine(target="a2a3")
    d, b, _, t = _tiles(m, "i32")
    bv = np.arange(-32, 32, dtype=np.int32).reshape(2, 32)
    m.write(b.ptr, bv)
    m.TPOWS(d, b, 7, t)
    want = np.array([[_ipow(int(x), 7) for x in r[:20]] for r in bv], np.int32)
    np.testing.assert_array_equal(_get(m, d)[:, :20], want)


SPECIAL = [(2, 3), (-2, 3), (-2, 2.5), (0, 0), (0, -1), (0, 2), (-1, math.inf),
           (-1, -math.inf), (-1, 2), (3, 0.5), (math.nan, 2), (1, math.nan), (-8, 1 / 3),
           (0.5, -1), (-0.5, 3), (4, -0.5), (2, 100), (-3, -1e10), (-3, 1e10), (-0.0, -3),
           (math.inf, 2), (-math.inf, 3), (1e-30, 2), (7, -2)]


def test_f32_pow_and_special_cases() -> None:
    m = ptosim.Machine(target="a2a3")
    d, b, e, t = _tiles(m, "f32")
    pairs = SPECIAL + [(1.5, 2.25)] * (40 - len(SPECIAL))
    bv = np.zeros((2, 32), np.float32)
    ev = np.zeros((2, 32), np.float32)
    for i, (x, y) in enumerate(pairs):
        bv[i // 20, i % 20] = x
        ev[i // 20, i % 20] = y
    m.write(b.ptr, bv)
    m.write(e.ptr, ev)
    m.TPOW(d, b, e, t)
    want = np.array([[_fpow(float(x), float(y)) for x, y in zip(rb[:20], re[:20], strict=True)]
                     for rb, re in zip(bv, ev, strict=True)], np.float32)
    np.testing.assert_array_equal(_get(m, d)[:, :20], want)
    with np.errstate(all="ignore"):
        tmp_want = np.exp((np.log(np.abs(bv)) * ev).astype(np.float32))[:, :20]
    np.testing.assert_array_equal(_get(m, t)[:, :20], tmp_want)   # tmp keeps |base|'s power


def test_rules() -> None:
    m = ptosim.Machine(target="a2a3")
    with pytest.raises(ptosim.DtypeError, match="TPOW: dst element type must be one of f32, "
                                                "i16, i32, i8, ui16, ui32, ui8 on a2a3, got f16"):
        m.TPOW(*_tiles(m, "f16"))
    d, b, e, t = _tiles(m, "f32")
    with pytest.raises(ptosim.VerifyError, match="TPOW: tmp's valid region 2x32 differs from "
                                                 "dst's 2x20"):
        m.TPOW(d, b, e, m.tile("Vec", "f32", 2, 32))
    with pytest.raises(ptosim.DtypeError, match="TPOWS: base is i32 but dst is f32"):
        m.TPOWS(d, _tiles(m, "i32", 1)[0], 2.0, t)


TILE = tile_buf("i32", 1, 8)


def test_pto_form() -> None:
    x = np.array([0, 1, 2, 3, 4, 5, -1, -2], np.int32)
    text = vec_kernel(f"pto.tpow ins(%a, %a, %t : {TILE}, {TILE}, {TILE}) outs(%d : {TILE})",
                      target="a2a3", params="%g: !pto.ptr<i32, gm>",
                      views={"p": ("g", "i32", 1, 8)},
                      tiles={"a": TILE, "t": TILE, "d": TILE},
                      loads=[("p", "a")], stores=[("d", "p")])
    res = Kernel.from_text(text, "k.pto").run({"g": x.copy()})
    assert res.findings == []
    np.testing.assert_array_equal(res.outputs["g"], [_ipow(int(v), int(v)) for v in x])
