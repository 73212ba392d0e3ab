"""Empty tiles: a valid region with a zero dimension (pto-isa asserts only valid <= shape;
PyPTO marks its inactive lane's tiles 0 x 0 and PTOAS accepts them). A vector tile op whose
dst and sources are all empty writes nothing; a reduction over an empty extent into a
non-empty dst is refused."""

from __future__ import annotations

import numpy as np
import pytest

import ptosim
from ptosim.errors import DtypeError, PtoError, VerifyError
from ptosim.isa import REGISTRY
from ptosim.isa.tile_vector import VecRule
from ptosim.kernel import Kernel

VECTOR_SPECS = sorted((s for s in REGISTRY.values() if isinstance(s.impl, VecRule)),
                      key=lambda s: s.name)


def _noise(m: ptosim.Machine) -> np.ndarray:
    ub = m.blocks[0].ub[0]
    ub[:] = np.random.default_rng(3).integers(0, 256, ub.size, dtype=np.uint8)
    return ub.copy()


def test_an_empty_valid_region_is_a_legal_tile():
    m = ptosim.Machine()
    for valid in ((0, 0), (0, 64), (16, 0)):
        assert m.tile("Vec", "f32", 16, 64, valid=valid).valid == valid
    with pytest.raises(VerifyError, match="valid region 17x0 must lie within the tile 16x64"):
        m.tile("Vec", "f32", 16, 64, valid=(17, 0))


@pytest.mark.parametrize("target", ["a5", "a2a3"])
@pytest.mark.parametrize("spec", VECTOR_SPECS, ids=lambda s: s.name)
def test_every_vector_op_on_empty_tiles_writes_nothing(target: str, spec) -> None:
    """All operands empty (f32 tiles, a ui8 mask, scalar 1.0): nothing changes in UB. The
    op's type rules still apply (f32 for a bitwise op is a PtoError, not a crash)."""
    m = ptosim.Machine(target=target)
    method = getattr(m, spec.method or spec.name.upper(), None)
    if method is None:
        pytest.skip(f"{spec.name} has no Python method on {target}")
    before = _noise(m)
    for valid in ((0, 0), (0, 64), (16, 0)):
        args = [1.0 if o.kind == "scalar" else
                m.tile("Vec", "ui8" if o.name == "mask" else "f32", 16, 64, valid=valid)
                for o in spec.operands]
        try:
            method(*args)
        except DtypeError:                          # f32 where the op takes other types
            pass
        except PtoError as err:                     # only arg reductions refuse emptiness
            assert spec.impl.family in ("rowarg", "colarg"), err
            assert "is empty: an arg reduction needs" in str(err), err
        assert np.array_equal(m.blocks[0].ub[0], before), valid


@pytest.mark.parametrize("op, dst_shape, src_valid, msg", [
    ("TROWSUM", (16, 8, (16, 1)), (16, 0), "src has no valid cols to reduce"),
    ("TROWMAX", (16, 8, (16, 1)), (16, 0), "src has no valid cols to reduce"),
    ("TCOLMAX", (1, 64, (1, 64)), (0, 64), "src has no valid rows to reduce"),
    ("TCOLSUM", (1, 64, (1, 64)), (0, 64), "src has no valid rows to reduce"),
])
def test_a_reduction_of_nothing_into_a_real_dst_is_refused(op, dst_shape, src_valid, msg):
    m = ptosim.Machine()
    rows, cols, valid = dst_shape
    dst = m.tile("Vec", "f32", rows, cols, valid=valid)
    src = m.tile("Vec", "f32", 16, 64, valid=src_valid)
    before = _noise(m)
    with pytest.raises(VerifyError, match=msg):
        getattr(m, op)(dst, src)
    assert np.array_equal(m.blocks[0].ub[0], before)


def test_repeated_empty_calls_stay_no_ops():
    """The unobserved fast path keeps the no-op as the call's plan."""
    m = ptosim.Machine()
    a = m.tile("Vec", "f32", 16, 64, valid=(0, 0))
    d = m.tile("Vec", "f32", 16, 8, valid=(0, 0))
    before = _noise(m)
    for _ in range(3):
        m.TROWSUM(d, a)
        m.TADD(a, a, a)
        m.TROWEXPANDADD(a, a, d)
    assert np.array_equal(m.blocks[0].ub[0], before)


TILE = "!pto.tile_buf<loc=vec, dtype=f32, rows=16, cols={c}, v_row={vr}, v_col={vc}, " \
       "blayout=row_major, slayout=none_box, fractal=512, pad=0>"
EMPTY_LANE = """
module attributes {{pto.target_arch = "a5"}} {{
  func.func @lane(%x: !pto.ptr<f32, gm>, %y: !pto.ptr<f32, gm>) attributes {{pto.aicore}} {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %c64 = arith.constant 64 : index
    %tx = pto.make_tensor_view %x, shape = [%c16, %c64], strides = [%c64, %c1] : !pto.tensor_view<?x?xf32>
    %ty = pto.make_tensor_view %y, shape = [%c16, %c8], strides = [%c8, %c1] : !pto.tensor_view<?x?xf32>
    %px = pto.partition_view %tx, offsets = [%c0, %c0], sizes = [%c16, %c64] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<16x64xf32>
    %py = pto.partition_view %ty, offsets = [%c0, %c0], sizes = [%c16, %c1] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<16x1xf32>
    %src = pto.alloc_tile : {full}
    %sum = pto.alloc_tile : {col}
    %empty = pto.alloc_tile : {empty}
    %none = pto.alloc_tile : {empty_col}
    pto.tload ins(%px : !pto.partition_tensor_view<16x64xf32>) outs(%src : {full})
    pto.trowsum ins(%src : {full}) outs(%sum : {col})
    pto.trowmax ins(%empty : {empty}) outs(%none : {empty_col})
    pto.texp ins(%empty : {empty}) outs(%empty : {empty})
    pto.trowexpandsub ins(%empty, %none : {empty}, {empty_col}) outs(%empty : {empty})
    pto.tstore ins(%sum : {col}) outs(%py : !pto.partition_tensor_view<16x1xf32>)
    return
  }}
}}
""".format(full=TILE.format(c=64, vr=16, vc=64), col=TILE.format(c=8, vr=16, vc=1),
           empty=TILE.format(c=64, vr=0, vc=0), empty_col=TILE.format(c=8, vr=0, vc=0))


def test_a_kernel_with_an_empty_lane_runs_its_other_ops():
    x = np.random.default_rng(4).uniform(-1, 1, (16, 64)).astype(np.float32)
    y = np.full((16, 8), 7.0, np.float32)
    got = Kernel.from_text(EMPTY_LANE, "lane.pto").run({"x": x, "y": y}).outputs["y"]
    rows = x.reshape(16, 1, 64).sum(axis=2, dtype=np.float32)   # one 256 B chunk per row
    np.testing.assert_allclose(got[:, 0], rows[:, 0], rtol=1e-6, atol=1e-6)
    assert (got[:, 1:] == 7).all()


@pytest.mark.parametrize("op, shapes, msg", [
    # PTOAS issue708 *_invalid lit cases, as tiles: (dst, src) (rows, cols, valid)
    ("TROWMAX", ((16, 8, (16, 0)), (16, 16, (16, 8))), "dst's valid region 16x0 is empty but src's"),
    ("TROWEXPAND", ((16, 16, (16, 0)), (16, 8, (16, 1))), "dst's valid region 16x0 is empty"),
    ("TCOLMAX", ((1, 64, (0, 64)), (16, 64, (16, 64))), "dst's valid region 0x64 is empty"),
    ("TROWARGMAX", ((16, 8, (0, 0)), (16, 64, (0, 0))),
     "src's valid region 0x0 is empty: an arg reduction needs"),
])
def test_one_sided_empties_are_refused(op, shapes, msg):
    m = ptosim.Machine()
    (dr, dc, dv), (sr, sc, sv) = shapes
    dst = m.tile("Vec", "i32" if "ARG" in op else "f32", dr, dc, valid=dv)
    src = m.tile("Vec", "f32", sr, sc, valid=sv)
    before = _noise(m)
    with pytest.raises(VerifyError, match=msg):
        getattr(m, op)(dst, src)
    assert np.array_equal(m.blocks[0].ub[0], before)
