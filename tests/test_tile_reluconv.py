"""TADDRELUCONV / TSUBRELUCONV (a5: add / sub, ReLU, convert) and TADDDEQRELU (i32 add, dequantise, ReLU, f16;
a2a3 staged in place) against step-by-step numpy goldens; rules; a `.pto` form."""

from __future__ import annotations

import numpy as np
import pytest

import ptosim
from ptosim.kernel import Kernel
from tile_helpers import tile_buf, vec_kernel

SHAPE = (4, 64)


def _tiles(m: ptosim.Machine, *dts: str, valid: tuple[int, int] = SHAPE) -> list[ptosim.Tile]:
    return [m.tile("Vec", dt, *SHAPE, valid=valid) for dt in dts]


def _get(m: ptosim.Machine, t: ptosim.Tile) -> np.ndarray:
    return m.read(t.ptr, t.rows * t.cols).reshape(t.rows, t.cols)


def test_f32_to_f16() -> None:
    m = ptosim.Machine(target="a5")
    d, a, b = _tiles(m, "f16", "f32", "f32")
    rng = np.random.default_rng(1)
    x = rng.uniform(-7e4, 7e4, SHAPE).astype(np.float32)
    y = rng.uniform(-7e4, 7e4, SHAPE).astype(np.float32)
    m.write(a.ptr, x)
    m.write(b.ptr, y)
    m.TADDRELUCONV(d, a, b)
    s = x + y                                   # f32 add
    with np.errstate(over="ignore"):
        want = np.where(s > 0, s, np.float32(0)).astype(np.float16)  # RNE, inf past 65504
    np.testing.assert_array_equal(_get(m, d), want)
    assert np.isinf(want).any() and (want == 0).any()


def test_f16_to_i8_in_range() -> None:
    m = ptosim.Machine(target="a5")
    d, a, b = _tiles(m, "i8", "f16", "f16")
    x = (np.arange(256).reshape(SHAPE) % 120 - 60 + 0.5).astype(np.float16)
    y = np.full(SHAPE, 0.25, np.float16)
    m.write(a.ptr, x)
    m.write(b.ptr, y)
    m.TADDRELUCONV(d, a, b)
    s = (x + y).astype(np.float64)              # exact in f16 here
    want = np.rint(np.maximum(s, 0)).astype(np.int8)   # ties to even (0.75, 1.75 ... none tie)
    np.testing.assert_array_equal(_get(m, d), want)


def test_i16_to_i8_clamps_to_127_and_wraps_the_add() -> None:
    m = ptosim.Machine(target="a5")
    d, a, b = _tiles(m, "i8", "i16", "i16")
    rng = np.random.default_rng(2)
    x = rng.integers(-2 ** 15, 2 ** 15, SHAPE).astype(np.int16)
    y = rng.integers(-300, 300, SHAPE).astype(np.int16)
    x.flat[:4] = [32767, 100, -5, 20]
    y.flat[:4] = [10, 20, 3, 7]
    m.write(a.ptr, x)
    m.write(b.ptr, y)
    m.TADDRELUCONV(d, a, b)
    s = ((x.astype(np.int64) + y + 2 ** 15) % 2 ** 16 - 2 ** 15)     # i16 wrap
    want = np.clip(s, 0, 127).astype(np.int8)
    np.testing.assert_array_equal(_get(m, d), want)
    assert list(_get(m, d).flat[:4]) == [0, 120, 0, 27]              # 32767 + 10 wraps < 0


def test_sub_f32_to_f16() -> None:
    m = ptosim.Machine(target="a5")
    d, a, b = _tiles(m, "f16", "f32", "f32")
    rng = np.random.default_rng(11)
    x = rng.uniform(-7e4, 7e4, SHAPE).astype(np.float32)
    y = rng.uniform(-7e4, 7e4, SHAPE).astype(np.float32)
    x.flat[:3] = [1.0, 65520.0, 2.0 ** -30]       # 65520: halfway, nearest-even gives inf
    y.flat[:3] = [1.0, 0.0, -(2.0 ** -40)]
    m.write(a.ptr, x)
    m.write(b.ptr, y)
    m.TSUBRELUCONV(d, a, b)
    exact = x.astype(np.float64) - y               # the f32 difference, rounded once below
    with np.errstate(over="ignore"):
        want = np.maximum(exact, 0).astype(np.float32).astype(np.float16)
    np.testing.assert_array_equal(_get(m, d), want)
    assert _get(m, d).flat[0] == 0 and np.isinf(_get(m, d).flat[1])


def test_sub_f16_to_i8_and_i16_to_i8() -> None:
    m = ptosim.Machine(target="a5")
    d, a, b = _tiles(m, "i8", "f16", "f16")
    x = (np.arange(256).reshape(SHAPE) % 120 - 50 + 0.5).astype(np.float16)
    y = np.full(SHAPE, -0.5, np.float16)
    m.write(a.ptr, x)
    m.write(b.ptr, y)
    m.TSUBRELUCONV(d, a, b)
    # x - (-0.5) is an integer here: no rounding question
    np.testing.assert_array_equal(_get(m, d), np.maximum(x.astype(np.float64) + 0.5, 0)
                                  .astype(np.int8))
    d, a, b = _tiles(m, "i8", "i16", "i16")
    rng = np.random.default_rng(12)
    x = rng.integers(-2 ** 15, 2 ** 15, SHAPE).astype(np.int16)
    y = rng.integers(-300, 300, SHAPE).astype(np.int16)
    x.flat[:4] = [-32768, 100, 5, 20]
    y.flat[:4] = [1, 20, 3, 70]
    m.write(a.ptr, x)
    m.write(b.ptr, y)
    m.TSUBRELUCONV(d, a, b)
    diff = [(int(p) - int(q) + 2 ** 15) % 2 ** 16 - 2 ** 15 for p, q in zip(x.flat, y.flat)]
    want = np.array([min(max(v, 0), 127) for v in diff], np.int8).reshape(SHAPE)
    np.testing.assert_array_equal(_get(m, d), want)
    assert list(_get(m, d).flat[:4]) == [127, 80, 2, 0]        # -32768 - 1 wraps to 32767


def test_sub_writes_only_the_valid_region() -> None:
    m = ptosim.Machine(target="a5")
    d, a, b = _tiles(m, "f16", "f32", "f32", valid=(3, 40))
    m.write(d.ptr, np.full(SHAPE, 7, np.float16))
    m.write(a.ptr, np.full(SHAPE, 5, np.float32))
    m.write(b.ptr, np.full(SHAPE, 2, np.float32))
    m.TSUBRELUCONV(d, a, b)
    got = _get(m, d)
    assert (got[:3, :40] == 3).all()
    assert (got[3:] == 7).all() and (got[:, 40:] == 7).all()


def _deq_golden(x: np.ndarray, y: np.ndarray, scale: float) -> tuple[np.ndarray, np.ndarray]:
    s = ((x.astype(np.int64) + y + 2 ** 31) % 2 ** 32 - 2 ** 31).astype(np.float32)
    for f in (np.float32(2.0 ** -17), np.float32(scale), np.float32(2.0 ** 17)):
        s = (s * f).astype(np.float32)
    relu = np.where(s > 0, s, np.float32(0))
    return s, relu


@pytest.mark.parametrize("target", ["a5", "a2a3"])
def test_adddeqrelu(target: str) -> None:
    m = ptosim.Machine(target=target)
    d, a, b, t = _tiles(m, "f16", "i32", "i32", "i32")
    rng = np.random.default_rng(3)
    x = rng.integers(-2 ** 31, 2 ** 31, SHAPE, dtype=np.int64).astype(np.int32)
    y = rng.integers(-2 ** 20, 2 ** 20, SHAPE).astype(np.int32)
    m.write(a.ptr, x)
    m.write(b.ptr, y)
    m.write(t.ptr, np.full(SHAPE, 99, np.int32))
    m.TADDDEQRELU(d, a, b, 3.0e-5, t)
    scaled, relu = _deq_golden(x, y, 3.0e-5)
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(_get(m, d), relu.astype(np.float16))
    if target == "a5":                          # the sources and tmp are only read
        np.testing.assert_array_equal(_get(m, a), x)
        assert (_get(m, t) == 99).all()
    else:                                       # a2a3 stages the steps in place
        np.testing.assert_array_equal(_get(m, a).view(np.float32), scaled)
        np.testing.assert_array_equal(_get(m, b).view(np.float32), relu)
        assert (_get(m, t) == 0).all()


def test_rules() -> None:
    a2 = ptosim.Machine(target="a2a3")
    with pytest.raises(ptosim.NotImplementedOpError, match="TADDRELUCONV: a2a3 runs the fused "
                                                           "vaddreluconv_\\* instruction"):
        a2.TADDRELUCONV(*_tiles(a2, "f16", "f32", "f32"))
    m = ptosim.Machine(target="a5")
    with pytest.raises(ptosim.DtypeError, match="TADDRELUCONV: src -> dst must be f32 -> f16, "
                                                "f16 -> i8 or i16 -> i8, got f32 -> i8"):
        m.TADDRELUCONV(*_tiles(m, "i8", "f32", "f32"))
    with pytest.raises(ptosim.DtypeError, match="TADDRELUCONV: src1 is f16 but src0 is f32"):
        m.TADDRELUCONV(*_tiles(m, "f16", "f32", "f16"))
    with pytest.raises(ptosim.DtypeError, match="TADDDEQRELU: dst element type must be one of "
                                                "f16 on a5, got f32"):
        m.TADDDEQRELU(*_tiles(m, "f32", "i32", "i32"), 1.0, *_tiles(m, "i32"))
    with pytest.raises(ptosim.DtypeError, match="TADDDEQRELU: src0 element type must be one of "
                                                "i32 on a5, got i16"):
        m.TADDDEQRELU(*_tiles(m, "f16", "i16", "i32"), 1.0, *_tiles(m, "i32"))


def test_sub_rules() -> None:
    a2 = ptosim.Machine(target="a2a3")
    with pytest.raises(ptosim.NotImplementedOpError, match="TSUBRELUCONV: a2a3 runs the fused "
                                                           "vsubreluconv_\\* instruction"):
        a2.TSUBRELUCONV(*_tiles(a2, "f16", "f32", "f32"))
    m = ptosim.Machine(target="a5")
    with pytest.raises(ptosim.DtypeError, match="TSUBRELUCONV: src -> dst must be f32 -> f16, "
                                                "f16 -> i8 or i16 -> i8, got i16 -> f16"):
        m.TSUBRELUCONV(*_tiles(m, "f16", "i16", "i16"))
    with pytest.raises(ptosim.DtypeError, match="TSUBRELUCONV: src1 is i16 but src0 is f16"):
        m.TSUBRELUCONV(*_tiles(m, "i8", "f16", "i16"))
    d, a = _tiles(m, "f16", "f32")
    with pytest.raises(ptosim.VerifyError, match="TSUBRELUCONV: src1's valid region 4x32 "
                                                 "differs from dst's 4x64"):
        m.TSUBRELUCONV(d, a, m.tile("Vec", "f32", *SHAPE, valid=(4, 32)))


def test_pto_form_sub() -> None:
    t, h = tile_buf("f32", 16, 16), tile_buf("f16", 16, 16)
    text = vec_kernel(f"pto.tsubreluconv ins(%a, %b : {t}, {t}) outs(%d : {h})", target="a5",
                      params="%g: !pto.ptr<f32, gm>, %o: !pto.ptr<f16, gm>",
                      views={"p": ("g", "f32", 16, 16), "q": ("o", "f16", 16, 16)},
                      tiles={"a": t, "b": t, "d": h}, loads=[("p", "a"), ("p", "b")],
                      stores=[("d", "q")])
    x = (np.arange(256, dtype=np.float32) - 128) * 0.75
    res = Kernel.from_text(text, "k.pto").run({"g": x.copy(), "o": np.ones(256, np.float16)})
    assert res.findings == []
    np.testing.assert_array_equal(res.outputs["o"], np.zeros(256, np.float16))   # x - x


def test_pto_form() -> None:
    t, h = tile_buf("f32", 16, 16), tile_buf("f16", 16, 16)
    text = vec_kernel(f"pto.taddreluconv ins(%a, %a : {t}, {t}) outs(%d : {h})", target="a5",
                      params="%g: !pto.ptr<f32, gm>, %o: !pto.ptr<f16, gm>",
                      views={"p": ("g", "f32", 16, 16), "q": ("o", "f16", 16, 16)},
                      tiles={"a": t, "d": h}, loads=[("p", "a")], stores=[("d", "q")])
    x = (np.arange(256, dtype=np.float32) - 128) * 0.75
    res = Kernel.from_text(text, "k.pto").run({"g": x.copy(), "o": np.zeros(256, np.float16)})
    assert res.findings == []
    np.testing.assert_array_equal(res.outputs["o"], np.maximum(2 * x, 0).astype(np.float16))
