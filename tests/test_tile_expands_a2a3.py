"""TEXPANDS's write footprint per target: a2a3's TExpandS.hpp chooses a contiguous fill of
valid rows x cols elements from the tile start whenever the valid width is a template
constant (or one row / one column), 8-bit types as 16-bit pairs; a5 stores exactly the
valid region. The golden below replays the C++ conditions on a flat buffer of the
transfer type (written from TExpandS.hpp, not from ptosim.tile.expands_a2a3)."""

from __future__ import annotations

import numpy as np
import pytest

import ptosim
from ptosim.errors import PtoTypeError
from ptosim.kernel import Kernel

DYNAMIC = -1


def golden_a2a3(before: np.ndarray, rows: int, cols: int, vr: int, vc: int, np_dt: str,
                row_major: bool, dyn_row: bool, dyn_col: bool, value: float) -> np.ndarray:
    """a2a3 TExpandS over the tile's bytes (and what follows them): ``before`` is a copy
    of those bytes, returned filled as the C++ fills them."""
    out = before.copy()
    es = np.dtype(np_dt).itemsize
    ValidRow = DYNAMIC if dyn_row else vr          # (the C++ names)
    ValidCol = DYNAMIC if dyn_col else vc
    b8 = es == 1
    trans = np.dtype("i2") if b8 else np.dtype(np_dt)
    scalar = np.array([value], np_dt)
    unit = np.tile(scalar.view(np.uint8), 2) if b8 else scalar.view(np.uint8)  # TransValue

    def trans_size(n: int) -> int:
        return (n + 1) // 2 if b8 else n

    def dup(start_units: int, n_units: int) -> None:      # count-mode vector_dup
        lo = start_units * trans.itemsize
        out[lo:lo + n_units * trans.itemsize] = np.tile(unit, n_units)

    is_continue = (row_major and (rows == 1 or ValidCol == cols)) or \
        (not row_major and (cols == 1 or ValidRow == rows))
    if is_continue:
        dup(0, trans_size(vr * vc))
        return out
    # (unsigned validCol == int ValidCol: -1 converts to UINT_MAX, never a valid size)
    valid_data_continue = (row_major and (vr == 1 or vc == ValidCol)) or \
        (not row_major and (vc == 1 or vr == ValidRow))
    if valid_data_continue:
        dup(0, trans_size(vr * vc))
        return out
    raw_stride = cols if row_major else rows
    stride = raw_stride // 2 if b8 else raw_stride
    n_loop = vr if row_major else vc
    n_elem = trans_size(vc) if row_major else trans_size(vr)
    for i in range(n_loop):
        dup(i * stride, n_elem)
    return out


def golden_valid_region(before: np.ndarray, rows: int, cols: int, vr: int, vc: int,
                        np_dt: str, row_major: bool, value: float) -> np.ndarray:
    """a5: the valid region, through the tile's row- or column-major storage."""
    out = before.copy()
    n = rows * cols * np.dtype(np_dt).itemsize
    grid = out[:n].view(np_dt).reshape((rows, cols) if row_major else (cols, rows))
    if row_major:
        grid[:vr, :vc] = value
    else:
        grid[:vc, :vr] = value
    return out


TAIL = 64      # bytes after the tile that the check looks at too


def _run(target: str, shape: tuple[int, int], valid: tuple[int, int], dt: str,
         dn: bool = False, dynamic: bool | tuple[bool, bool] = False, observed: bool = False,
         value: float = 5, calls: int = 2) -> tuple[np.ndarray, np.ndarray]:
    m = ptosim.Machine(target=target)
    if observed:
        m.access_hook = lambda *a: None
    t = m.tile("Vec", dt, *shape, valid=valid, blayout="ColMajor" if dn else None,
               dynamic_valid=dynamic)
    ub = m.blocks[0].ub[0]
    ub[:] = np.random.default_rng(1).integers(0, 256, ub.size, dtype=np.uint8)
    lo, hi = t.ptr.offset, t.ptr.offset + t.nbytes + TAIL
    before = ub[lo:hi].copy()
    for _ in range(calls):                  # the second call runs the cached plan
        m.TEXPANDS(t, value)
    return before, ub[lo:hi].copy()


NP = {"f32": "f4", "f16": "f2", "i32": "i4", "i16": "i2", "i8": "i1", "ui8": "u1"}

CASES = [
    # (shape, valid, dtype, DN, dynamic)
    ((16, 64), (16, 40), "f32", False, False),      # the quirk: 640 elements, rows 0-9
    ((16, 64), (16, 40), "f32", False, True),       # DYNAMIC: row by row
    ((16, 64), (16, 40), "f32", False, (True, False)),   # static width: still flat
    ((16, 64), (16, 40), "f32", False, (False, True)),   # dynamic width: row by row
    ((16, 64), (16, 64), "f32", False, False),      # full width: flat = valid region
    ((16, 64), (1, 40), "f32", False, True),        # one row: flat = valid region
    ((8, 32), (5, 13), "f16", False, False),
    ((8, 32), (5, 13), "i8", False, False),         # 65 bytes -> 66 (16-bit pairs)
    ((8, 32), (5, 13), "i8", False, True),          # 13 -> 14 bytes per row
    ((8, 64), (3, 17), "ui8", False, (False, True)),
    ((4, 32), (4, 7), "i16", False, False),
    ((16, 8), (10, 5), "f32", True, False),         # DN, static rows 10 < 16: flat 50
    ((16, 8), (10, 5), "f32", True, True),          # DN, dynamic: column by column
    ((16, 8), (16, 5), "f32", True, False),         # DN, all rows: flat = valid region
    ((32, 4), (9, 3), "i8", True, True),            # DN b8: 9 -> 10 bytes per column
]


@pytest.mark.parametrize("observed", [False, True])
@pytest.mark.parametrize("shape,valid,dt,dn,dynamic", CASES)
def test_a2a3_footprint_follows_the_cpp_conditions(shape, valid, dt, dn, dynamic, observed):
    dyn = (dynamic, dynamic) if isinstance(dynamic, bool) else dynamic
    before, after = _run("a2a3", shape, valid, dt, dn, dynamic, observed)
    want = golden_a2a3(before, *shape, *valid, NP[dt], not dn, *dyn, 5)
    assert np.array_equal(after, want)


@pytest.mark.parametrize("observed", [False, True])
@pytest.mark.parametrize("shape,valid,dt,dn,dynamic", CASES)
def test_a5_writes_exactly_the_valid_region(shape, valid, dt, dn, dynamic, observed):
    before, after = _run("a5", shape, valid, dt, dn, dynamic, observed)
    assert np.array_equal(after, golden_valid_region(before, *shape, *valid, NP[dt], not dn, 5))


def test_the_issue_example_in_elements():
    """16x64 f32, static valid 16x40: rows 0-9 filled whole, rows 10-15 untouched."""
    before, after = _run("a2a3", (16, 64), (16, 40), "f32")
    a = after[:16 * 64 * 4].view(np.float32).reshape(16, 64)
    b = before[:16 * 64 * 4].view(np.float32).reshape(16, 64)
    assert (a[:10] == 5).all()
    assert np.array_equal(a[10:], b[10:], equal_nan=True)


def test_cpu_sim_compat_writes_the_valid_region_on_a2a3():
    m = ptosim.Machine(target="a2a3")
    t = m.tile("Vec", "f32", 16, 64, valid=(16, 40))
    ub = m.blocks[0].ub[0]
    ub[:] = 0
    m.TEXPANDS(t, 5.0, cpu_sim_compat=True)
    a = ub[t.ptr.offset:t.ptr.offset + t.nbytes].view(np.float32).reshape(16, 64)
    assert (a[:, :40] == 5).all() and (a[:, 40:] == 0).all()


def test_hazard_checker_sees_the_flat_run():
    """The observed write covers the bytes really written (rows 0-9 whole)."""
    m = ptosim.Machine(target="a2a3")
    t = m.tile("Vec", "f32", 16, 64, valid=(16, 40))
    seen: list[tuple[int, int, str]] = []
    m.access_hook = lambda buf, start, n, access, *rest: seen.append((start, n, access))
    m.TEXPANDS(t, 1.0)
    assert (t.ptr.offset, 640 * 4, "W") in seen


@pytest.mark.parametrize("bad", ["yes", (True,), (1, 0)])
def test_dynamic_valid_must_be_bools(bad):
    m = ptosim.Machine(target="a2a3")
    with pytest.raises(PtoTypeError, match="dynamic_valid must be a bool or a pair of bools"):
        m.tile("Vec", "f32", 16, 64, valid=(16, 40), dynamic_valid=bad)


KERNEL = """
module attributes {{pto.target_arch = "a2a3"}} {{
  func.func @k(%x: !pto.ptr<f32, gm>, %y: !pto.ptr<f32, gm>) attributes {{pto.aicore}} {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %c64 = arith.constant 64 : index
    %c0_i64 = arith.constant 0 : i64
    %c40 = arith.constant 40 : index
    %s = arith.constant 5.0 : f32
    %tx = pto.make_tensor_view %x, shape = [%c16, %c64], strides = [%c64, %c1] : !pto.tensor_view<?x?xf32>
    %ty = pto.make_tensor_view %y, shape = [%c16, %c64], strides = [%c64, %c1] : !pto.tensor_view<?x?xf32>
    %px = pto.partition_view %tx, offsets = [%c0, %c0], sizes = [%c16, %c64] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<16x64xf32>
    %py = pto.partition_view %ty, offsets = [%c0, %c0], sizes = [%c16, %c64] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<16x64xf32>
    %full = pto.alloc_tile addr = %c0_i64 : {full}
    %part = pto.alloc_tile addr = %c0_i64 {operands} : {part}
    pto.tload ins(%px : !pto.partition_tensor_view<16x64xf32>) outs(%full : {full})
    pto.texpands ins(%s : f32) outs(%part : {part})
    pto.tstore ins(%full : {full}) outs(%py : !pto.partition_tensor_view<16x64xf32>)
    return
  }}
}}
"""
TILE = ("!pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=64, v_row={vr}, v_col={vc}, "
        "blayout=row_major, slayout=none_box, fractal=512, pad=0>")


@pytest.mark.parametrize("dynamic", [False, True])
def test_pto_kernel_static_and_dynamic_valid_width(dynamic):
    """A `.pto` tile with a static v_col takes the flat fill on a2a3, v_col=? row by row."""
    part = TILE.format(vr="?", vc="?") if dynamic else TILE.format(vr=16, vc=40)
    text = KERNEL.format(full=TILE.format(vr=16, vc=64), part=part,
                         operands="valid_row = %c16 valid_col = %c40" if dynamic else "")
    x = np.arange(16 * 64, dtype=np.float32).reshape(16, 64)
    got = Kernel.from_text(text, "k.pto").run({"x": x, "y": np.zeros_like(x)}).outputs["y"]
    want = x.copy()
    if dynamic:
        want[:, :40] = 5
    else:
        want.reshape(-1)[:640] = 5
    assert np.array_equal(got, want)
