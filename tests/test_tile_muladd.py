"""TFUSEDMULADD, TFUSEDMULADDRELU, TMULADDDST, TSUBRELU, TADDSC, TSUBSC: the multiply-adds
against an exact rational golden (one rounding, ties to even), the others against step by
step numpy, the valid region only, the static rules, and the `.pto` forms."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

import ptosim
from ptosim.kernel import Kernel
from tile_helpers import tile_buf, vec_kernel

TARGETS = ("a5", "a2a3")


def _round_exact(x: Fraction, np_t: type) -> float:
    """The value of type ``np_t`` nearest to ``x``, ties to the even significand: chosen
    among float(x)'s neighbours by exact rational distance."""
    guess = np_t(float(x))
    best = None
    for cand in (np.nextafter(guess, np_t(-np.inf)), guess, np.nextafter(guess, np_t(np.inf))):
        if not np.isfinite(cand):
            continue
        dist = abs(Fraction(float(cand)) - x)
        bits = int(np.array(cand, np_t).view(f"u{np.dtype(np_t).itemsize}"))
        key = (dist, bits & 1)
        if best is None or key < best[0]:
            best = (key, cand)
    assert best is not None
    return float(best[1])


def _fma_golden(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    out = [_round_exact(Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z)), a.dtype.type)
           for x, y, z in zip(a.ravel(), b.ravel(), c.ravel(), strict=True)]
    return np.array(out, a.dtype).reshape(a.shape)


def _values(rng: np.random.Generator, shape: tuple[int, int], np_t: type) -> np.ndarray:
    """Values whose products and sums round (random significands, mixed signs, zeros)."""
    x = rng.uniform(-4, 4, shape).astype(np_t)
    x.flat[::7] = 0
    return x


def _tiles(m: ptosim.Machine, dt: str, valid: tuple[int, int] = (8, 16)) -> list[ptosim.Tile]:
    return [m.tile("Vec", dt, 8, 16, valid=valid) for _ in range(3)]


def _put(m: ptosim.Machine, t: ptosim.Tile, x: np.ndarray) -> None:
    m.write(t.ptr, x)


def _get(m: ptosim.Machine, t: ptosim.Tile) -> np.ndarray:
    return m.read(t.ptr, t.rows * t.cols).reshape(t.rows, t.cols)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dt, np_t", [("f32", np.float32), ("f16", np.float16)])
@pytest.mark.parametrize("op", ["TFUSEDMULADD", "TFUSEDMULADDRELU", "TMULADDDST"])
def test_multiply_adds_round_once(target: str, dt: str, np_t: type, op: str) -> None:
    m = ptosim.Machine(target=target)
    dst, s0, s1 = _tiles(m, dt)
    rng = np.random.default_rng(len(op) + len(dt))
    d, a, b = (_values(rng, (8, 16), np_t) for _ in range(3))
    for t, x in ((dst, d), (s0, a), (s1, b)):
        _put(m, t, x)
    getattr(m, op)(dst, s0, s1)
    if op == "TMULADDDST":
        want = _fma_golden(a, b, d)                    # dst + src0 * src1
    else:
        want = _fma_golden(a, d, b)                    # src0 * dst + src1
        if op == "TFUSEDMULADDRELU":
            want = np.where(want > 0, want, np_t(0))
    np.testing.assert_array_equal(_get(m, dst), want)


def test_one_rounding_worked_example() -> None:
    """(1 + 2^-12)^2 - 1 = 2^-11 + 2^-24 exactly (an f32); rounding the product first
    would give 2^-11 (the product's 2^-24 is half an ulp of 1, a tie to even)."""
    m = ptosim.Machine(target="a5")
    dst, s0, s1 = _tiles(m, "f32")
    x = np.float32(1 + 2.0 ** -12)
    _put(m, dst, np.full((8, 16), x, np.float32))
    _put(m, s0, np.full((8, 16), x, np.float32))
    _put(m, s1, np.full((8, 16), -1, np.float32))
    m.TFUSEDMULADD(dst, s0, s1)
    assert (_get(m, dst) == np.float32(2.0 ** -11 + 2.0 ** -24)).all()


@pytest.mark.parametrize("dt, np_t", [("f32", np.float32), ("f16", np.float16)])
def test_tsubrelu(dt: str, np_t: type) -> None:
    m = ptosim.Machine(target="a5")
    dst, s0, s1 = _tiles(m, dt)
    rng = np.random.default_rng(3)
    a, b = _values(rng, (8, 16), np_t), _values(rng, (8, 16), np_t)
    _put(m, s0, a)
    _put(m, s1, b)
    m.TSUBRELU(dst, s0, s1)
    diff = a.astype(np.float64) - b.astype(np.float64)       # then rounded to the type
    want = np.maximum(diff.astype(np_t), np_t(0))
    np.testing.assert_array_equal(_get(m, dst), want)


@pytest.mark.parametrize("op, sign", [("TADDSC", 1), ("TSUBSC", -1)])
def test_tile_scalar_tile_left_to_right(op: str, sign: int) -> None:
    """f32: (2^24 + 1) rounds back to 2^24 before src1 is added, so 2^24 + 1 + 1 = 2^24
    (right to left it would be 2^24 + 2); i32 wraps."""
    m = ptosim.Machine(target="a5")
    dst, s0, s1 = _tiles(m, "f32")
    _put(m, s0, np.full((8, 16), 2.0 ** 24, np.float32))
    _put(m, s1, np.full((8, 16), 1, np.float32))
    getattr(m, op)(dst, s0, sign * 1.0, s1)
    assert (_get(m, dst) == np.float32(2.0 ** 24)).all()
    di, ai, bi = _tiles(m, "i32")
    rng = np.random.default_rng(4)
    a = rng.integers(-2 ** 31, 2 ** 31, (8, 16), dtype=np.int64).astype(np.int32)
    b = rng.integers(-2 ** 31, 2 ** 31, (8, 16), dtype=np.int64).astype(np.int32)
    _put(m, ai, a)
    _put(m, bi, b)
    getattr(m, op)(di, ai, 2 ** 31 - 5, bi)
    want = ((a.astype(np.int64) + sign * (2 ** 31 - 5) + b) + 2 ** 31) % 2 ** 32 - 2 ** 31
    np.testing.assert_array_equal(_get(m, di), want.astype(np.int32))


@pytest.mark.parametrize("op", ["TFUSEDMULADD", "TMULADDDST", "TSUBRELU"])
def test_only_the_valid_region_is_written(op: str) -> None:
    m = ptosim.Machine(target="a5")
    dst, s0, s1 = _tiles(m, "f32", valid=(5, 9))
    for t in (dst, s0, s1):
        _put(m, t, np.full((8, 16), 2, np.float32))
    getattr(m, op)(dst, s0, s1)
    out = _get(m, dst)
    assert (out[:5, :9] == {"TSUBRELU": 0, "TFUSEDMULADD": 6, "TMULADDDST": 6}[op]).all()
    outside = np.ones((8, 16), bool)
    outside[:5, :9] = False
    assert (out[outside] == 2).all()


def test_rules() -> None:
    m = ptosim.Machine(target="a5")
    i32 = _tiles(m, "i32")
    with pytest.raises(ptosim.DtypeError, match="TFUSEDMULADD: dst element type must be one of "
                                                "f16, f32 on a5, got i32"):
        m.TFUSEDMULADD(*i32)
    with pytest.raises(ptosim.DtypeError, match="TSUBRELU: src0 is f16 but dst is f32: they "
                                                "must share one element type"):
        m.TSUBRELU(m.tile("Vec", "f32", 8, 16), m.tile("Vec", "f16", 8, 16),
                   m.tile("Vec", "f32", 8, 16))
    with pytest.raises(ptosim.VerifyError, match="TMULADDDST: src0's valid region 4x16 differs "
                                                 "from dst's 8x16"):
        m.TMULADDDST(m.tile("Vec", "f32", 8, 16), m.tile("Vec", "f32", 8, 16, valid=(4, 16)),
                     m.tile("Vec", "f32", 8, 16))
    with pytest.raises(ptosim.PtoTypeError, match="TADDSC: operands after dst must be "
                                                  "\\(src0: tile, scalar: scalar, src1: tile\\)"):
        m.TADDSC(*_tiles(m, "f32"))
    a2 = ptosim.Machine(target="a2a3")
    with pytest.raises(ptosim.DtypeError, match="TFUSEDMULADDRELU: dst element type must be one "
                                                "of f16, f32 on a2a3, got bf16"):
        a2.TFUSEDMULADDRELU(*[a2.tile("Vec", "bf16", 8, 16) for _ in range(3)])


TILE = tile_buf("f32", 16, 16)


@pytest.mark.parametrize("body, golden", [
    ("pto.tfusedmuladd ins(%a, %b : {t}, {t}) outs(%d : {t})", lambda x: x * x + x),
    ("pto.tmuladddst ins(%a, %b : {t}, {t}) outs(%d : {t})", lambda x: x * x + x),
    ("pto.tsubrelu ins(%a, %s : {t}, {t}) outs(%d : {t})".replace("%s", "%b"),
     lambda x: np.zeros_like(x)),
    ("%s = arith.constant 0.5 : f32\n    pto.taddsc ins(%a, %s, %b : {t}, f32, {t}) outs(%d : {t})",
     lambda x: x + 0.5 + x),
    ("%s = arith.constant 0.5 : f32\n    pto.tsubsc ins(%a, %s, %b : {t}, f32, {t}) outs(%d : {t})",
     lambda x: x - 0.5 + x),
])
def test_pto_text_forms(body: str, golden: object) -> None:
    """The DPS forms (PTOAS's for taddsc / tsubsc; the manual's for the others), on small
    integers where every rounding is exact."""
    text = vec_kernel(body.format(t=TILE), target="a5", params="%g: !pto.ptr<f32, gm>",
                      views={"p": ("g", "f32", 16, 16)},
                      tiles={"a": TILE, "b": TILE, "d": TILE},
                      loads=[("p", "a"), ("p", "b"), ("p", "d")], stores=[("d", "p")])
    x = (np.arange(256, dtype=np.float32) % 9 - 4).reshape(16, 16)
    res = Kernel.from_text(text, "k.pto").run({"g": x.copy()})
    assert res.findings == []
    got = res.outputs["g"]
    np.testing.assert_array_equal(np.asarray(got).reshape(16, 16),
                                  golden(x).astype(np.float32))  # type: ignore[operator]
