"""TFUSEDMULADD, TFUSEDMULADDRELU, TMULADDDST, TSUBRELU, TADDSC, TSUBSC: the multiply-adds
against an exact rational golden and an f64 golden (one rounding, ties to even), the others
against step by step numpy, the valid region only, the static rules, and the `.pto` forms.
TADDSC / TSUBSC have no NPU code: refused on a5 / a2a3 unless ``cpu_sim_compat=True``."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import numpy as np
import pytest

import ptosim
from ptosim.interp.static import check_kernel
from ptosim.kernel import Kernel
from ptosim.targets import A2A3, A5
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


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("op", ["TFUSEDMULADD", "TMULADDDST"])
def test_f16_against_one_f64_rounding(target: str, op: str) -> None:
    """f16: a*b is exact in f64 and, whenever the f16 result is finite, so is a*b + c (its
    bits span at most 2^17 .. 2^-24), so one f64 add then astype(f16) is a single
    rounding. Wide-ranging values; element 0 overflows (300 x 300 + 300), element 1 does
    not (300 x 300 - 65504 = 24496, where a rounded product would already be inf)."""
    m = ptosim.Machine(target=target)
    dst, s0, s1 = _tiles(m, "f16")
    rng = np.random.default_rng(11)
    a, b, c = ((rng.standard_normal((8, 16)) * 2.0 ** rng.integers(-12, 9, (8, 16)))
               .astype(np.float16) for _ in range(3))
    mul, add = (b, c) if op == "TMULADDDST" else (c, b)   # src0 x mul + add
    a.flat[:2], mul.flat[:2], add.flat[:2] = 300, 300, (300, -65504)
    for t, x in ((dst, c), (s0, a), (s1, b)):
        _put(m, t, x)
    getattr(m, op)(dst, s0, s1)
    a64, b64, c64 = (x.astype(np.float64) for x in (a, b, c))
    with np.errstate(over="ignore"):
        want = (a64 * b64 + c64 if op == "TMULADDDST" else a64 * c64 + b64).astype(np.float16)
    assert np.isinf(want.flat[0]) and want.flat[1] == 24496
    np.testing.assert_array_equal(_get(m, dst), want)


@pytest.mark.parametrize("target", TARGETS)
def test_f16_one_rounding_worked_example(target: str) -> None:
    """(1 + 2^-6)^2 - 1 = 2^-5 + 2^-12, an f16; rounding the product to f16 first loses
    the 2^-12 (a quarter ulp of 1) and gives 2^-5. TMULADDDST and TFUSEDMULADDRELU too."""
    m = ptosim.Machine(target=target)
    x, want = np.float16(1 + 2.0 ** -6), np.float16(2.0 ** -5 + 2.0 ** -12)
    for op in ("TFUSEDMULADD", "TFUSEDMULADDRELU", "TMULADDDST"):
        dst, s0, s1 = _tiles(m, "f16")
        _put(m, s0, np.full((8, 16), x, np.float16))
        if op == "TMULADDDST":                       # src0 * src1 + dst
            _put(m, s1, np.full((8, 16), x, np.float16))
            _put(m, dst, np.full((8, 16), -1, np.float16))
        else:                                        # src0 * dst + src1
            _put(m, dst, np.full((8, 16), x, np.float16))
            _put(m, s1, np.full((8, 16), -1, np.float16))
        getattr(m, op)(dst, s0, s1)
        assert (_get(m, dst) == want).all(), op


@pytest.mark.parametrize("target", TARGETS)
def test_special_values(target: str) -> None:
    """IEEE: inf x 0 is NaN, inf + -inf is NaN, a finite product past the type overflows
    to inf even when the addend would bring it back only after rounding (it does not:
    the exact sum is still out of range), NaN propagates, ReLU keeps NaN and clears -inf."""
    m = ptosim.Machine(target=target)
    big = np.float32(3e38)
    a = np.array([np.inf, np.inf, big, np.nan, 2.0, -np.inf], np.float32)
    d = np.array([0.0, 1.0, 2.0, 1.0, 3.0, 1.0], np.float32)
    b = np.array([1.0, -np.inf, -big, 1.0, np.nan, 5.0], np.float32)
    want = np.array([np.nan, np.nan, big, np.nan, np.nan, -np.inf], np.float32)
    for op, expect in (("TFUSEDMULADD", want), ("TFUSEDMULADDRELU", np.where(
            np.isnan(want), want, np.maximum(want, 0)))):
        dst, s0, s1 = (m.tile("Vec", "f32", 1, 8, valid=(1, 6)) for _ in range(3))
        for t, x in ((dst, d), (s0, a), (s1, b)):
            _put(m, t, np.concatenate([x, np.zeros(2, np.float32)]))
        getattr(m, op)(dst, s0, s1)
        np.testing.assert_array_equal(_get(m, dst)[0, :6], expect, err_msg=op)


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


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("op", ["TADDSC", "TSUBSC"])
def test_tile_scalar_tile_has_no_npu_code(target: str, op: str) -> None:
    """pto-isa implements TADDSC / TSUBSC in its CPU simulator only: refused, dst unchanged."""
    m = ptosim.Machine(target=target)
    dst, s0, s1 = _tiles(m, "f32")
    _put(m, dst, np.full((8, 16), 7, np.float32))
    with pytest.raises(ptosim.NotImplementedOpError,
                       match=f"{op}: {target} has no NPU implementation \\(pto-isa implements "
                             f"{op} in its CPU simulator only, include/pto/cpu/"
                             f"ElementTileScalarOp.h\\); pass cpu_sim_compat=True"):
        getattr(m, op)(dst, s0, 1.0, s1)
    assert (_get(m, dst) == 7).all()


def test_a_target_with_the_op_runs_it_without_the_keyword() -> None:
    """The refusal is the profile's field `npu_missing_tile_ops`, not the target's name."""
    m = ptosim.Machine(target=replace(A5, name="custom", npu_missing_tile_ops=frozenset()))
    dst, s0, s1 = _tiles(m, "f32")
    _put(m, s0, np.full((8, 16), 3, np.float32))
    _put(m, s1, np.full((8, 16), 4, np.float32))
    m.TSUBSC(dst, s0, 1.0, s1)
    assert (_get(m, dst) == 6).all()
    assert A2A3.npu_missing_tile_ops == A5.npu_missing_tile_ops == {"taddc", "tsubc", "taddsc",
                                                                    "tsubsc"}


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("op, sign", [("TADDSC", 1), ("TSUBSC", -1)])
def test_tile_scalar_tile_left_to_right(target: str, op: str, sign: int) -> None:
    """cpu_sim_compat: f32: (2^24 + 1) rounds back to 2^24 before src1 is added, so
    2^24 + 1 + 1 = 2^24 (right to left it would be 2^24 + 2); i32 and i16 wrap."""
    m = ptosim.Machine(target=target)
    dst, s0, s1 = _tiles(m, "f32")
    _put(m, s0, np.full((8, 16), 2.0 ** 24, np.float32))
    _put(m, s1, np.full((8, 16), 1, np.float32))
    getattr(m, op)(dst, s0, sign * 1.0, s1, cpu_sim_compat=True)
    assert (_get(m, dst) == np.float32(2.0 ** 24)).all()
    rng = np.random.default_rng(4)
    for dt, bits, scalar in (("i32", 32, 2 ** 31 - 5), ("i16", 16, -2 ** 15 + 3)):
        di, ai, bi = _tiles(m, dt)
        a, b = (rng.integers(-2 ** (bits - 1), 2 ** (bits - 1), (8, 16)) for _ in range(2))
        _put(m, ai, a.astype(f"i{bits // 8}"))
        _put(m, bi, b.astype(f"i{bits // 8}"))
        getattr(m, op)(di, ai, scalar, bi, cpu_sim_compat=True)
        want = ((a + sign * scalar + b) + 2 ** (bits - 1)) % 2 ** bits - 2 ** (bits - 1)
        np.testing.assert_array_equal(_get(m, di), want.astype(f"i{bits // 8}"))


def test_tile_scalar_tile_f16_steps_and_footprint() -> None:
    """f16 with cpu_sim_compat: each step rounds to f16 (2048 + 1 -> 2048, + 1 -> 2048);
    only the valid region is written."""
    m = ptosim.Machine(target="a5")
    dst, s0, s1 = _tiles(m, "f16", valid=(3, 5))
    _put(m, dst, np.full((8, 16), 9, np.float16))
    _put(m, s0, np.full((8, 16), 2048, np.float16))
    _put(m, s1, np.full((8, 16), 1, np.float16))
    m.TADDSC(dst, s0, 1.0, s1, cpu_sim_compat=True)
    out = _get(m, dst)
    assert (out[:3, :5] == 2048).all()
    out[:3, :5] = 9
    assert (out == 9).all()


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("op", ["TFUSEDMULADD", "TMULADDDST", "TSUBRELU"])
def test_only_the_valid_region_is_written(target: str, op: str) -> None:
    m = ptosim.Machine(target=target)
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
    with pytest.raises(ptosim.VerifyError, match="TFUSEDMULADD: src1's valid region 8x15 "
                                                 "differs from dst's 8x16"):
        m.TFUSEDMULADD(m.tile("Vec", "f32", 8, 16), m.tile("Vec", "f32", 8, 16),
                       m.tile("Vec", "f32", 8, 16, valid=(8, 15)))
    with pytest.raises(ptosim.DtypeError, match="TMULADDDST: src1 is f16 but dst is f32"):
        m.TMULADDDST(m.tile("Vec", "f32", 8, 16), m.tile("Vec", "f32", 8, 16),
                     m.tile("Vec", "f16", 8, 16))
    with pytest.raises(ptosim.DtypeError, match="TSUBRELU: dst element type must be one of "
                                                "f16, f32 on a5, got i16"):
        m.TSUBRELU(*_tiles(m, "i16"))
    with pytest.raises(ptosim.PtoTypeError, match="TFUSEDMULADD: unknown keyword "
                                                  "'cpu_sim_compat'; known: none"):
        m.TFUSEDMULADD(*_tiles(m, "f32"), cpu_sim_compat=True)
    a2 = ptosim.Machine(target="a2a3")
    with pytest.raises(ptosim.DtypeError, match="TFUSEDMULADDRELU: dst element type must be one "
                                                "of f16, f32 on a2a3, got bf16"):
        a2.TFUSEDMULADDRELU(*[a2.tile("Vec", "bf16", 8, 16) for _ in range(3)])


@pytest.mark.parametrize("target", TARGETS)
def test_tile_scalar_tile_rules(target: str) -> None:
    """With cpu_sim_compat: the manual's element types (i16, i32, f16, f32 on both
    targets), one element type, one tile shape (the C++ takes one TileData type), one
    valid region; the keyword is the only one."""
    m = ptosim.Machine(target=target)
    with pytest.raises(ptosim.DtypeError, match=f"TADDSC: dst element type must be one of "
                                                f"f16, f32, i16, i32 on {target}, got i8"):
        m.TADDSC(*(m.tile("Vec", "i8", 8, 32) for _ in range(2)), 1,
                 m.tile("Vec", "i8", 8, 32), cpu_sim_compat=True)
    with pytest.raises(ptosim.DtypeError, match=f"TSUBSC: dst element type must be one of "
                                                f"f16, f32, i16, i32 on {target}, got bf16"):
        m.TSUBSC(*_tiles(m, "bf16")[:2], 1.0, _tiles(m, "bf16")[2], cpu_sim_compat=True)
    with pytest.raises(ptosim.DtypeError, match="TADDSC: src1 is i16 but dst is i32"):
        m.TADDSC(*_tiles(m, "i32")[:2], 1, _tiles(m, "i16")[0], cpu_sim_compat=True)
    with pytest.raises(ptosim.VerifyError, match="TSUBSC: src0's shape 8x32 differs from "
                                                 "dst's 8x16: the three tiles share one tile "
                                                 "type"):
        m.TSUBSC(m.tile("Vec", "f32", 8, 16), m.tile("Vec", "f32", 8, 32, valid=(8, 16)), 1.0,
                 m.tile("Vec", "f32", 8, 16), cpu_sim_compat=True)
    with pytest.raises(ptosim.VerifyError, match="TADDSC: src1's valid region 8x9 differs "
                                                 "from dst's 8x16"):
        m.TADDSC(*_tiles(m, "f32")[:2], 1.0, _tiles(m, "f32", valid=(8, 9))[0],
                 cpu_sim_compat=True)
    with pytest.raises(ptosim.PtoTypeError, match="TADDSC: unknown keyword 'sat'; known: "
                                                  "cpu_sim_compat"):
        m.TADDSC(*_tiles(m, "f32")[:2], 1.0, _tiles(m, "f32")[2], sat=True)


TILE = tile_buf("f32", 16, 16)


def _text(body: str, target: str = "a5") -> str:
    return vec_kernel(body.format(t=TILE), target=target, params="%g: !pto.ptr<f32, gm>",
                      views={"p": ("g", "f32", 16, 16)},
                      tiles={"a": TILE, "b": TILE, "d": TILE},
                      loads=[("p", "a"), ("p", "b"), ("p", "d")], stores=[("d", "p")])


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("body, golden", [
    ("pto.tfusedmuladd ins(%a, %b : {t}, {t}) outs(%d : {t})", lambda x: x * x + x),
    ("pto.tfusedmuladdrelu ins(%a, %b : {t}, {t}) outs(%d : {t})",
     lambda x: np.maximum(x * x + x, 0)),
    ("pto.tmuladddst ins(%a, %b : {t}, {t}) outs(%d : {t})", lambda x: x * x + x),
    ("pto.tsubrelu ins(%a, %b : {t}, {t}) outs(%d : {t})", lambda x: np.zeros_like(x)),
])
def test_pto_text_forms(target: str, body: str, golden: object) -> None:
    """The manual's DPS forms (PTOAS has none of the four), on small integers where every
    rounding is exact."""
    x = (np.arange(256, dtype=np.float32) % 9 - 4).reshape(16, 16)
    res = Kernel.from_text(_text(body, target), "k.pto").run({"g": x.copy()})
    assert res.findings == []
    got = res.outputs["g"]
    np.testing.assert_array_equal(np.asarray(got).reshape(16, 16),
                                  golden(x).astype(np.float32))  # type: ignore[operator]


@pytest.mark.parametrize("op", ["taddsc", "tsubsc"])
def test_pto_tile_scalar_tile_is_refused_where_it_runs(op: str) -> None:
    """PTOAS's spelling ``ins(%src0, %scalar, %src1 : T, f32, T)`` parses; running it (or
    `ptosim check`) names the op, the missing NPU code and the source location."""
    body = f"%s = arith.constant 0.5 : f32\n    pto.{op} ins(%a, %s, %b : {{t}}, f32, {{t}}) " \
           "outs(%d : {t})"
    kernel = Kernel.from_text(_text(body), "k.pto")
    with pytest.raises(ptosim.NotImplementedOpError,
                       match=f"k.pto:17:5: error: {op.upper()}: a5 has no NPU "
                             f"implementation"):
        kernel.run({"g": np.zeros((16, 16), np.float32)})
    found = check_kernel(kernel.module, kernel.func, "a5", kernel.locate)
    assert [(type(e).__name__, str(e).split(": error: ")[0]) for e in found.errors] == \
        [("NotImplementedOpError", "k.pto:17:5")]
