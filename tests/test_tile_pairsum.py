"""TPAIRREDUCESUM: adjacent pair sums (vcpadd) row by row, a5's flat stream for fully valid
tiles, the odd last column dropped, nothing else written; rules; `.pto` form."""

from __future__ import annotations

import numpy as np
import pytest

import ptosim
from ptosim.kernel import Kernel
from tile_helpers import tile_buf, vec_kernel

POISON = 0xCD


def _setup(target: str, dt: str, shape: tuple[int, int], valid: tuple[int, int],
           seed: int = 0) -> tuple[ptosim.Machine, ptosim.Tile, ptosim.Tile, np.ndarray]:
    m = ptosim.Machine(target=target, poison=POISON)
    src = m.tile("Vec", dt, *shape, valid=valid)
    dst = m.tile("Vec", dt, *shape, valid=valid)
    x = np.random.default_rng(seed).uniform(-8, 8, shape).astype(dst.dtype.np)
    m.write(src.ptr, x)
    return m, dst, src, x


def _out(m: ptosim.Machine, t: ptosim.Tile) -> np.ndarray:
    return m.read(t.ptr, t.rows * t.cols).reshape(t.rows, t.cols)


def _untouched(out: np.ndarray) -> np.ndarray:
    raw = out.view(np.uint8).reshape(*out.shape, out.itemsize)
    return (raw == POISON).all(axis=-1)


def _pairs(x: np.ndarray) -> np.ndarray:
    """Pair sums along the last axis by reshape (an odd tail dropped)."""
    n = x.shape[-1] // 2 * 2
    return x[..., :n].reshape(*x.shape[:-1], -1, 2).sum(axis=-1, dtype=x.dtype)


@pytest.mark.parametrize("target", ["a5", "a2a3"])
@pytest.mark.parametrize("dt", ["f32", "f16"])
@pytest.mark.parametrize("shape, valid", [((8, 32), (5, 13)), ((4, 256), (4, 200)),
                                          ((16, 64), (16, 63))])
def test_row_by_row(target: str, dt: str, shape: tuple[int, int],
                    valid: tuple[int, int]) -> None:
    m, dst, src, x = _setup(target, dt, shape, valid)
    m.TPAIRREDUCESUM(dst, src)
    out = _out(m, dst)
    vr, vc = valid
    half = vc // 2
    np.testing.assert_array_equal(out[:vr, :half], _pairs(x[:vr, :vc]))
    written = ~_untouched(out)
    assert not written[:, half:].any() and not written[vr:].any()


@pytest.mark.parametrize("dt", ["f32", "f16"])
def test_a5_fully_valid_tiles_pack_the_stream(dt: str) -> None:
    m, dst, src, x = _setup("a5", dt, (8, 32), (8, 32))
    m.TPAIRREDUCESUM(dst, src)
    out = _out(m, dst).reshape(-1)
    np.testing.assert_array_equal(out[:128], _pairs(x.reshape(-1)))
    assert _untouched(out[128:].reshape(1, -1)).all()


def test_a2a3_fully_valid_tiles_stay_row_by_row() -> None:
    m, dst, src, x = _setup("a2a3", "f32", (8, 32), (8, 32))
    m.TPAIRREDUCESUM(dst, src)
    out = _out(m, dst)
    np.testing.assert_array_equal(out[:, :16], _pairs(x))
    assert _untouched(out[:, 16:]).all()


def test_one_row_tiles_with_an_odd_count() -> None:
    m, dst, src, x = _setup("a5", "f32", (1, 64), (1, 9))
    m.TPAIRREDUCESUM(dst, src)
    out = _out(m, dst)
    np.testing.assert_array_equal(out[0, :4], _pairs(x[0, :9]))
    assert _untouched(out[:, 4:]).all()


def test_rules() -> None:
    m = ptosim.Machine(target="a5")
    with pytest.raises(ptosim.DtypeError, match="TPAIRREDUCESUM: dst element type must be one "
                                                "of f16, f32 on a5, got i32"):
        m.TPAIRREDUCESUM(m.tile("Vec", "i32", 8, 16), m.tile("Vec", "i32", 8, 16))
    with pytest.raises(ptosim.VerifyError, match="TPAIRREDUCESUM: src's valid region 8x10 "
                                                 "differs from dst's 8x16"):
        m.TPAIRREDUCESUM(m.tile("Vec", "f32", 8, 16), m.tile("Vec", "f32", 8, 16,
                                                             valid=(8, 10)))
    with pytest.raises(ptosim.DtypeError, match="TPAIRREDUCESUM: src is f16 but dst is f32"):
        m.TPAIRREDUCESUM(m.tile("Vec", "f32", 8, 16), m.tile("Vec", "f16", 8, 16))


TILE = tile_buf("f32", 16, 16)


def test_pto_form() -> None:
    x = (np.arange(256, dtype=np.float32) % 11 - 5).reshape(16, 16)
    text = vec_kernel(f"pto.tpairreducesum ins(%a : {TILE}) outs(%d : {TILE})",
                      target="a2a3", params="%g: !pto.ptr<f32, gm>",
                      views={"p": ("g", "f32", 16, 16)}, tiles={"a": TILE, "d": TILE},
                      loads=[("p", "a"), ("p", "d")], stores=[("d", "p")])
    res = Kernel.from_text(text, "k.pto").run({"g": x.copy()})
    assert res.findings == []
    want = x.copy()
    want[:, :8] = _pairs(x)                     # a2a3: row by row, the rest as loaded
    np.testing.assert_array_equal(np.asarray(res.outputs["g"]).reshape(16, 16), want)
