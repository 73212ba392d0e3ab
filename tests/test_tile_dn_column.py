"""DN tiles of one column (`blayout=ColMajor`, cols 1) as the row reductions' results and the
row broadcasts' sources, as pto-isa's a5 / a2a3 code accepts them (TRowReduceCheck's "DN
layout with exactly one column", TRowExpand's broadcast source, TRowExpand<op>'s src with
valid cols 1) and PTOAS / PyPTO kernels write them (`blayout=col_major, cols=1`)."""

from __future__ import annotations

import numpy as np
import pytest

import ptosim
from ptosim.errors import VerifyError
from ptosim.kernel import Kernel

X = np.random.default_rng(11).uniform(-2, 2, (16, 64)).astype(np.float32)


def _machine(target: str, observed: bool) -> tuple[ptosim.Machine, object]:
    m = ptosim.Machine(target=target)
    if observed:                                # every check and hook on every call
        m.access_hook = lambda *a: None
    a = m.tile("Vec", "f32", 16, 64)
    m.write(a.ptr, X.ravel())
    return m, a


def _column(m: ptosim.Machine, dt: str = "f32") -> object:
    return m.tile("Vec", dt, 16, 1, blayout="ColMajor")


@pytest.mark.parametrize("target", ["a5", "a2a3"])
@pytest.mark.parametrize("observed", [False, True])
@pytest.mark.parametrize("op, want", [
    ("TROWMAX", X.max(axis=1)), ("TROWMIN", X.min(axis=1)),
    ("TROWSUM", X.reshape(16, 1, 64).sum(axis=2, dtype=np.float32)[:, 0]),
])
def test_row_reductions_write_a_dn_column(target, observed, op, want):
    m, a = _machine(target, observed)
    col = _column(m)
    assert col.name == "DN" and col.nbytes == 64
    for _ in range(2):                          # the plan and its repeat
        getattr(m, op)(col, a)
        got = m.read(col.ptr, 16)
        np.testing.assert_allclose(got, want, rtol=1e-6)
    np.testing.assert_array_equal(m.read_tile(col)[:, 0], got)


@pytest.mark.parametrize("target", ["a5", "a2a3"])
def test_row_argmax_into_a_dn_column(target):
    m, a = _machine(target, False)
    idx = _column(m, "i32")
    m.TROWARGMAX(idx, a)
    np.testing.assert_array_equal(m.read(idx.ptr, 16), X.argmax(axis=1))


@pytest.mark.parametrize("target", ["a5", "a2a3"])
@pytest.mark.parametrize("observed", [False, True])
@pytest.mark.parametrize("op, fn", [
    ("TROWEXPANDSUB", np.subtract), ("TROWEXPANDADD", np.add), ("TROWEXPANDMUL", np.multiply),
    ("TROWEXPANDDIV", np.divide), ("TROWEXPANDMAX", np.maximum), ("TROWEXPANDMIN", np.minimum),
])
def test_row_expand_ops_broadcast_a_dn_column(target, observed, op, fn):
    m, a = _machine(target, observed)
    col = _column(m)
    c = np.linspace(0.5, 2.0, 16, dtype=np.float32)
    m.write(col.ptr, c)
    d = m.tile("Vec", "f32", 16, 64)
    for _ in range(2):
        getattr(m, op)(d, a, col)
    np.testing.assert_allclose(m.read_tile(d), fn(X, c[:, None]), rtol=1e-6)
    m.TROWEXPANDSUB(d, col, a)                  # the column first: col - a
    np.testing.assert_allclose(m.read_tile(d), c[:, None] - X, rtol=1e-6)
    m.TROWEXPAND(d, col)
    np.testing.assert_array_equal(m.read_tile(d), np.repeat(c[:, None], 64, axis=1))


def test_dn_tiles_stay_refused_elsewhere():
    m, a = _machine("a5", False)
    wide = m.tile("Vec", "f32", 16, 8, blayout="ColMajor")
    col = _column(m)
    with pytest.raises(VerifyError, match="dst must be a row-major ND tile \\(or a DN tile of "
                                          "one column\\), got DN with 8 columns"):
        m.TROWMAX(wide, a)
    with pytest.raises(VerifyError, match="src must be a row-major ND tile, got DN"):
        m.TEXP(a, col)
    with pytest.raises(VerifyError, match="src must be a row-major ND tile, got DN"):
        m.TROWMAX(col, col)                      # the reduced source is ND only
    out = m.tile("Vec", "f32", 16, 8, valid=(16, 1))
    with pytest.raises(VerifyError, match="src0 has dst's valid region, so it must be a "
                                          "row-major ND tile, got DN"):
        m.TROWEXPANDADD(out, col, col)


SOFTMAX_ROW = """
module attributes {pto.target_arch = "a5"} {
  func.func @center(%x: !pto.ptr<f32, gm>, %y: !pto.ptr<f32, gm>) attributes {pto.aicore} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %c64 = arith.constant 64 : index
    %tx = pto.make_tensor_view %x, shape = [%c16, %c64], strides = [%c64, %c1] : !pto.tensor_view<?x?xf32>
    %ty = pto.make_tensor_view %y, shape = [%c16, %c64], strides = [%c64, %c1] : !pto.tensor_view<?x?xf32>
    %px = pto.partition_view %tx, offsets = [%c0, %c0], sizes = [%c16, %c64] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<16x64xf32>
    %py = pto.partition_view %ty, offsets = [%c0, %c0], sizes = [%c16, %c64] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<16x64xf32>
    %a = pto.alloc_tile : !pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=64, v_row=16, v_col=64, blayout=row_major, slayout=none_box, fractal=512, pad=0>
    %m = pto.alloc_tile : !pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=1, v_row=16, v_col=1, blayout=col_major, slayout=none_box, fractal=512, pad=0>
    pto.tload ins(%px : !pto.partition_tensor_view<16x64xf32>) outs(%a : !pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=64, v_row=16, v_col=64, blayout=row_major, slayout=none_box, fractal=512, pad=0>)
    pto.trowmax ins(%a : !pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=64, v_row=16, v_col=64, blayout=row_major, slayout=none_box, fractal=512, pad=0>) outs(%m : !pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=1, v_row=16, v_col=1, blayout=col_major, slayout=none_box, fractal=512, pad=0>)
    pto.trowexpandsub ins(%a, %m : !pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=64, v_row=16, v_col=64, blayout=row_major, slayout=none_box, fractal=512, pad=0>, !pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=1, v_row=16, v_col=1, blayout=col_major, slayout=none_box, fractal=512, pad=0>) outs(%a : !pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=64, v_row=16, v_col=64, blayout=row_major, slayout=none_box, fractal=512, pad=0>)
    pto.tstore ins(%a : !pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=64, v_row=16, v_col=64, blayout=row_major, slayout=none_box, fractal=512, pad=0>) outs(%py : !pto.partition_tensor_view<16x64xf32>)
    return
  }
}
"""


@pytest.mark.parametrize("hazards", [False, True])
def test_a_pto_kernel_with_a_col_major_column(hazards):
    run = Kernel.from_text(SOFTMAX_ROW, "center.pto").run(
        {"x": X, "y": np.zeros_like(X)}, hazards=hazards)
    np.testing.assert_array_equal(run.outputs["y"].reshape(16, 64),
                                  X - X.max(axis=1, keepdims=True))


@pytest.mark.parametrize("target", ["a5", "a2a3"])
def test_one_row_or_column_tiles_store_through_either_view(target):
    """a5 / a2a3 TSTORE: layouts must match 'or the special case of one row / one column';
    the code then runs the tile's layout path on the view's shape and strides."""
    m = ptosim.Machine(target=target)
    g = m.gm_empty(64, "f32")
    col = _column(m)
    m.write(col.ptr, np.arange(16, dtype=np.float32))
    m.TSTORE(m.global_tensor(g, shape=(1, 1, 1, 16, 1), stride=(16, 16, 16, 1, 1)), col)
    row = m.tile("Vec", "f32", 1, 16)
    m.write(row.ptr, np.arange(100, 116, dtype=np.float32))
    m.TSTORE(m.global_tensor(g + 32, shape=(1, 1, 1, 1, 16), stride=(16, 16, 16, 16, 1),
                             layout="DN"), row)
    got = m.read(g, 64)
    np.testing.assert_array_equal(got[:16], np.arange(16))
    np.testing.assert_array_equal(got[32:48], np.arange(100, 116))
    assert not got[16:32].any() and not got[48:].any()


def test_a_strided_column_view_and_wider_tiles_are_refused():
    m = ptosim.Machine(target="a5")
    g = m.gm_empty(64, "f32")
    col = _column(m)
    with pytest.raises(VerifyError, match=r"innermost stride t3 must be 1 .* \(the ND view of a "
                                          r"one-column DN tile is stored through the DN path\)"):
        m.TSTORE(m.global_tensor(g, shape=(1, 1, 1, 16, 1), stride=(64, 64, 64, 4, 1)), col)
    wide = m.tile("Vec", "f32", 16, 8, blayout="ColMajor")
    with pytest.raises(VerifyError, match="a Vec tile stores in its own layout: DN tile, ND view"):
        m.TSTORE(m.global_tensor(g, shape=(1, 1, 1, 16, 8), stride=(128, 128, 128, 8, 1)),
                 wide)
    assert not m.read(g, 64).any()


@pytest.mark.parametrize("target", ["a5", "a2a3"])
def test_texpands_fills_a_dn_tiles_valid_region(target):
    """TEXPANDS has a ColMajor branch (a5 TExpandS swaps rows and columns; a2a3 fills the
    columns): the valid region through the DN map, nothing else. (a2a3 with DYNAMIC valid
    rows; static ones take its flat fill: tests/test_tile_expands_a2a3.py.)"""
    m = ptosim.Machine(target=target)
    d = m.tile("Vec", "f32", 16, 4, blayout="ColMajor", valid=(10, 3),
               dynamic_valid=target == "a2a3")
    before = m.read(d.ptr, 64).copy()
    m.TEXPANDS(d, -np.inf)
    cols = m.read(d.ptr, 64).reshape(4, 16)     # DN: column c is elements c * 16 ...
    want = before.reshape(4, 16).copy()
    want[:3, :10] = -np.inf
    np.testing.assert_array_equal(cols, want)
    m.TEXPANDS(_column(m), 1.0)                 # a DN column too
    with pytest.raises(VerifyError, match="a 64-bit TEXPANDS needs a row-major ND tile"):
        m.TEXPANDS(m.tile("Vec", "i64", 8, 4, blayout="ColMajor"), 3)
    with pytest.raises(VerifyError, match="dst must be a row-major ND tile, got DN"):
        m.TEXP(d, d)
