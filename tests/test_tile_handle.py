"""Tile handles and views read by the scalar unit (PTOAS ``pto.tgetval`` / ``pto.tsetval``,
``pto.tassign``, ``pto.tile_valid_rows`` / ``_cols``, ``pto.get_tensor_view_dim`` /
``_stride``, ``pto.tensor_view_addr``; Python ``TGETVAL`` / ``TSETVAL`` / ``TASSIGN``):
values against numpy, PTOAS's verifier rules, ptosim's run-time rules, `ptosim check`,
and the hazard checker seeing the element accesses on the scalar pipe."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import ptosim
from ptosim.errors import OutOfBoundsError, PtoTypeError, SpaceError, VerifyError
from ptosim.interp.static import check_kernel
from ptosim.kernel import Kernel


# --- Python face -----------------------------------------------------------------------------
@pytest.mark.parametrize("dt, np_t", [("f32", np.float32), ("f16", np.float16),
                                      ("bf16", ml_dtypes.bfloat16), ("i8", np.int8),
                                      ("ui16", np.uint16), ("i32", np.int32)])
def test_tgetval_reads_the_storage_at_a_linear_offset(dt: str, np_t: type) -> None:
    m = ptosim.Machine("a5")
    t = m.tile("Vec", dt, 4, 32, valid=(3, 5), addr=2048)
    rng = np.random.default_rng(1)
    image = (rng.standard_normal(4 * 32) * 50).astype(np_t)
    m.write(t.ptr, image)                      # the tile's bytes, set from outside
    for off in (0, 5, 37, 127):                # valid or not: the raw storage
        got = m.TGETVAL(t, off)
        want = image[off]
        assert got == (float(want) if np.issubdtype(image.dtype, np.inexact)
                       or np_t is ml_dtypes.bfloat16 else int(want))


def test_tgetval_ignores_the_layout() -> None:
    """The offset counts elements from the tile's first byte, whatever the layout: on a
    DN tile, offset 1 is logical element (1, 0)."""
    m = ptosim.Machine("a5")
    t = m.tile("Vec", "f32", 8, 4, blayout="ColMajor", addr=0)
    m.write(t.ptr, np.arange(32, dtype=np.float32))
    assert m.read_tile(t)[1, 0] == 1.0 and m.TGETVAL(t, 1) == 1.0
    assert m.read_tile(t)[0, 1] == 8.0 and m.TGETVAL(t, 8) == 8.0


@pytest.mark.parametrize("dt, value, want", [
    ("f16", 1 / 3, np.float16(1 / 3)), ("f32", 1e-50, np.float32(0.0)),
    ("bf16", 1.00390625, ml_dtypes.bfloat16(1.0)),       # a tie: rounds to even
    ("i8", 300, np.int8(44)), ("ui16", -1, np.uint16(65535)), ("i32", 7, np.int32(7)),
])
def test_tsetval_converts_and_writes_one_element(dt: str, value: float, want: object) -> None:
    m = ptosim.Machine("a5")
    t = m.tile("Vec", dt, 2, 32, addr=4096)
    np_t = type(want)
    before = np.arange(64).astype(np_t)
    m.write(t.ptr, before)
    m.TSETVAL(t, 33, value)
    after = m.read(t.ptr, 64)
    expect = before.copy()
    expect[33] = want
    assert after.tobytes() == expect.tobytes()
    assert m.TGETVAL(t, 33) == (int(want) if np.issubdtype(np.dtype(np_t), np.integer)
                                else float(want))


def test_element_access_rules() -> None:
    m = ptosim.Machine("a5")
    vec = m.tile("Vec", "f32", 2, 8, addr=0)
    mat = m.tile("Mat", "f16", 16, 16, addr=0)
    with pytest.raises(SpaceError, match=r"TGETVAL: src must be a Vec tile: the scalar unit "
                                         r"reads and writes UB only .* got a Mat tile"):
        m.TGETVAL(mat, 0)
    with pytest.raises(SpaceError, match=r"TSETVAL: dst must be a Vec tile"):
        m.TSETVAL(mat, 0, 1.0)
    with pytest.raises(OutOfBoundsError, match=r"TGETVAL: offset 16 leaves the tile's "
                                               r"2 x 8 = 16 elements"):
        m.TGETVAL(vec, 16)
    with pytest.raises(OutOfBoundsError, match=r"TSETVAL: offset -1 leaves"):
        m.TSETVAL(vec, -1, 0.0)
    with pytest.raises(PtoTypeError, match=r"TGETVAL: offset must be an integer, got 1.5"):
        m.TGETVAL(vec, 1.5)
    with pytest.raises(PtoTypeError, match=r"TSETVAL: the scalar must be a number"):
        m.TSETVAL(vec, 0, "x")
    with pytest.raises(PtoTypeError, match=r"TGETVAL: src must be a Tile, got int"):
        m.TGETVAL(3, 0)


def test_tassign_rebinds_and_keeps_the_rest() -> None:
    m = ptosim.Machine("a5")
    t = m.tile("Vec", "f16", 16, 16, valid=(5, 7), addr=0)
    u = m.TASSIGN(t, 8192)
    assert (u.ptr.space, u.ptr.offset, u.valid, u.dtype.name) == ("ub", 8192, (5, 7), "f16")
    assert t.ptr.offset == 0                  # Python tiles are values
    m.write(m.ptr("ub", "f16", 8192), np.arange(256, dtype=np.float16))
    np.testing.assert_array_equal(m.read_tile(u), np.arange(256, dtype=np.float16)
                                  .reshape(16, 16)[:5, :7])
    # automatic placement continues after the assigned tile
    auto = m.tile("Vec", "f16", 16, 16)
    assert auto.ptr.offset >= 8192 + 512
    # sub-block 1's UB stays sub-block 1's
    assert m.TASSIGN(m.tile("Vec", "f32", 8, 8, addr=0, subblock=1), 256).ptr.sub == 1


@pytest.mark.parametrize("target, addr, message", [
    ("a5", 8200, r"TASSIGN: a 512 B Vec tile at byte 8200 must be 32-byte aligned and fit "
                 r"the 262144 B ub"),
    ("a5", 262144 - 256, r"at byte 261888 must be 32-byte aligned and fit the 262144 B ub"),
    ("a2a3", 196608 - 256, r"at byte 196352 must be 32-byte aligned and fit the 196608 B ub"),
    ("a5", -32, r"at byte -32 must be"),
])
def test_tassign_rules(target: str, addr: int, message: str) -> None:
    m = ptosim.Machine(target)
    t = m.tile("Vec", "f16", 16, 16, addr=0)
    with pytest.raises(VerifyError, match=message):
        m.TASSIGN(t, addr)
    with pytest.raises(PtoTypeError, match=r"TASSIGN: addr must be an integer"):
        m.TASSIGN(t, 32.0)


# --- .pto -------------------------------------------------------------------------------------
T = "!pto.tile_buf<vec, 8x16xf32>"
TV = "!pto.tensor_view<?x16xf32>"
PV = "!pto.partition_tensor_view<4x8xf32>"

KERNEL = f"""module attributes {{pto.kernel_kind = #pto.kernel_kind<vector>}} {{
  func.func @k(%a: !pto.ptr<f32>, %o: !pto.ptr<f32>, %q: !pto.ptr<i64>, %n: index,
               %off: index, %vr: index) attributes {{pto.aicore}} {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c5 = arith.constant 5 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %addr = arith.constant 8192 : i64
    %a0 = arith.constant 0 : i64
    %a1 = arith.constant 1024 : i64
    %va = pto.make_tensor_view %a, shape = [%n, %c16], strides = [%c16, %c1] : {TV}
    %pa = pto.partition_view %va, offsets = [%c0, %c0], sizes = [%c8, %c16] : {TV} -> !pto.partition_tensor_view<8x16xf32>
    %vo = pto.make_tensor_view %o, shape = [%n, %c16], strides = [%c16, %c1] : {TV}
    %po = pto.partition_view %vo, offsets = [%c2, %c3], sizes = [%c4, %c8] : {TV} -> {PV}
    %t0 = pto.alloc_tile addr = %a0 : {T}
    %t = pto.tassign %t0, %addr : {T} -> {T}
    pto.tload ins(%pa : !pto.partition_tensor_view<8x16xf32>) outs(%t : {T})
    pto.set_flag["PIPE_MTE2", "PIPE_S", "EVENT_ID0"]
    pto.wait_flag["PIPE_MTE2", "PIPE_S", "EVENT_ID0"]
    %x = pto.tgetval ins(%t, %off : {T}, index) outs : f32
    %y = arith.addf %x, %x : f32
    pto.tsetval ins(%c5, %y : index, f32) outs(%t : {T})
    %d = pto.alloc_tile addr = %a1 valid_row = %vr valid_col = %c5 : !pto.tile_buf<vec, 8x16xf32, valid=?x?>
    %rows = pto.tile_valid_rows %d : !pto.tile_buf<vec, 8x16xf32, valid=?x?> -> index
    %cols = pto.tile_valid_cols %d : !pto.tile_buf<vec, 8x16xf32, valid=?x?> -> index
    %dim0 = pto.get_tensor_view_dim %va, %c0 : {TV} -> index
    %dim1 = pto.get_tensor_view_dim %po, %c1 : {PV} -> index
    %str0 = pto.get_tensor_view_stride %po, %c0 : {PV} -> index
    %p = pto.tensor_view_addr %po : {PV} -> !pto.ptr<f32, gm>
    pto.store_scalar %y, %p[%c0] : !pto.ptr<f32, gm>, f32
    %results = pto.tensor_view_addr %q : memref<8xi64, #pto.address_space<gm>> -> !pto.ptr<i64, gm>
    %i0 = arith.index_cast %rows : index to i64
    %i1 = arith.index_cast %cols : index to i64
    %i2 = arith.index_cast %dim0 : index to i64
    %i3 = arith.index_cast %dim1 : index to i64
    %i4 = arith.index_cast %str0 : index to i64
    pto.store_scalar %i0, %results[%c0] : !pto.ptr<i64, gm>, i64
    pto.store_scalar %i1, %results[%c1] : !pto.ptr<i64, gm>, i64
    pto.store_scalar %i2, %results[%c2] : !pto.ptr<i64, gm>, i64
    pto.store_scalar %i3, %results[%c3] : !pto.ptr<i64, gm>, i64
    pto.store_scalar %i4, %results[%c4] : !pto.ptr<i64, gm>, i64
    return
  }}
}}
"""
# %q is typed as a static GM memref in the signature (PTOAS's memref form of a view)
KERNEL = KERNEL.replace("%q: !pto.ptr<i64>", "%q: memref<8xi64, #pto.address_space<gm>>")


def _inputs(n: int = 10, off: int = 37, vr: int = 6) -> dict[str, object]:
    return {"a": np.arange(n * 16, dtype=np.float32).reshape(n, 16),
            "o": np.zeros((n, 16), np.float32), "q": np.zeros(8, np.int64),
            "n": n, "off": off, "vr": vr}


@pytest.mark.parametrize("n, off, vr", [(10, 37, 6), (8, 0, 1), (12, 127, 8)])
def test_kernel_values_against_numpy(n: int, off: int, vr: int) -> None:
    res = Kernel.from_text(KERNEL, "k.pto").run(_inputs(n, off, vr))
    a = np.arange(n * 16, dtype=np.float32).reshape(n, 16)
    y = 2 * a[:8].reshape(-1)[off]                       # tgetval of the loaded tile, doubled
    want_o = np.zeros((n, 16), np.float32)
    want_o[2, 3] = y                                      # the partition's first element
    np.testing.assert_array_equal(res.outputs["o"], want_o)
    # valid rows / cols; the view's dim 0 (dynamic); the partition's dim 1 and stride 0
    np.testing.assert_array_equal(res.outputs["q"], [vr, 5, n, 8, 16, 0, 0, 0])
    assert res.findings == []


def test_printed_form_parses_again() -> None:
    text = str(Kernel.from_text(KERNEL, "k.pto").module)
    flat = " ".join(text.split())
    for line in (f"%t = pto.tassign %t0, %addr : {T} -> {T}",
                 f"%x = pto.tgetval ins(%t, %off : {T}, index) outs : f32",
                 f"pto.tsetval ins(%c5, %y : index, f32) outs(%t : {T})",
                 "%rows = pto.tile_valid_rows %d : !pto.tile_buf<vec, 8x16xf32, valid=?x?> "
                 "-> index",
                 f"%dim0 = pto.get_tensor_view_dim %va, %c0 : {TV} -> index",
                 f"%str0 = pto.get_tensor_view_stride %po, %c0 : {PV} -> index",
                 f"%p = pto.tensor_view_addr %po : {PV} -> !pto.ptr<f32, gm>"):
        assert line in flat, line
    res = Kernel.from_text(text, "k.pto").run(_inputs())
    assert res.outputs["q"][2] == 10


def _edit(old: str, new: str) -> str:
    assert old in KERNEL, old
    return KERNEL.replace(old, new)


MAT = "!pto.tile_buf<mat, 16x16xf16>"
ACC = "!pto.tile_buf<acc, 16x16xf32>"


@pytest.mark.parametrize("old, new, message", [
    (f"%x = pto.tgetval ins(%t, %off : {T}, index) outs : f32",
     f"%m = pto.alloc_tile : {MAT}\n    %x0 = pto.tgetval ins(%m, %off : {MAT}, index) outs : "
     f"f16\n    %x = arith.extf %x0 : f16 to f32",
     r"pto\.tgetval: Ascend hardware does not support reading from Mat tile_buf to Scalar "
     r"unit"),
    (f"%x = pto.tgetval ins(%t, %off : {T}, index) outs : f32",
     f"%m = pto.alloc_tile : {ACC}\n    %x = pto.tgetval ins(%m, %off : {ACC}, index) outs : "
     f"f32",
     r"pto\.tgetval: expects src memory space to be vec"),
    (f"%x = pto.tgetval ins(%t, %off : {T}, index) outs : f32",
     f"%x0 = pto.tgetval ins(%t, %off : {T}, index) outs : f16\n    "
     f"%x = arith.extf %x0 : f16 to f32",
     r"pto\.tgetval: expects dst type to match src element type"),
    (f"%x = pto.tgetval ins(%t, %off : {T}, index) outs : f32",
     f"%o32 = arith.index_cast %off : index to i32\n    "
     f"%x = pto.tgetval ins(%t, %o32 : {T}, i32) outs : f32",
     r"pto\.tgetval: offset must be index, got i32"),
    (f"pto.tsetval ins(%c5, %y : index, f32) outs(%t : {T})",
     f"%h = arith.truncf %y : f32 to f16\n    pto.tsetval ins(%c5, %h : index, f16) "
     f"outs(%t : {T})",
     r"pto\.tsetval: expects val type to match dst element type"),
    (f"pto.tsetval ins(%c5, %y : index, f32) outs(%t : {T})",
     f"%c5i = arith.constant 5 : i64\n    pto.tsetval ins(%c5i, %y : i64, f32) "
     f"outs(%t : {T})",
     r"pto\.tsetval: offset must be index, got i64"),
    (f"%t = pto.tassign %t0, %addr : {T} -> {T}",
     f"%t = pto.tassign %t0, %addr : {T} -> !pto.tile_buf<vec, 8x16xf32, valid=8x8>",
     r"pto\.tassign: result type must match tile operand type"),
    (f"%t = pto.tassign %t0, %addr : {T} -> {T}",
     f"%a32 = arith.constant 8192 : i32\n    %t = pto.tassign %t0, %a32 : {T} -> {T}",
     r"pto\.tassign: addr must be i64, got i32"),
    ("%rows = pto.tile_valid_rows %d : !pto.tile_buf<vec, 8x16xf32, valid=?x?> -> index",
     "%rows = pto.tile_valid_rows %d : !pto.tile_buf<vec, 8x16xf32, valid=?x?> -> i64",
     r"pto\.tile_valid_rows: the result must be index, got i64"),
    (f"%dim0 = pto.get_tensor_view_dim %va, %c0 : {TV} -> index",
     f"%z = arith.constant 0 : i64\n    %dim0 = pto.get_tensor_view_dim %va, %z : {TV} -> "
     f"index",
     r"pto\.get_tensor_view_dim: dim_index must be index, got i64"),
    (f"%dim0 = pto.get_tensor_view_dim %va, %c0 : {TV} -> index",
     f"%dim0 = pto.get_tensor_view_dim %t, %c0 : {T} -> index",
     r"pto\.get_tensor_view_dim: tensor_view must be a !pto\.partition_tensor_view"),
    (f"%p = pto.tensor_view_addr %po : {PV} -> !pto.ptr<f32, gm>",
     f"%p = pto.tensor_view_addr %po : {PV} -> !pto.ptr<f16, gm>",
     r"pto\.tensor_view_addr: pointer result element type must match source element type"),
    (f"%p = pto.tensor_view_addr %po : {PV} -> !pto.ptr<f32, gm>",
     f"%p = pto.tensor_view_addr %po : {PV} -> !pto.ptr<f32, ub>",
     r"pto\.tensor_view_addr: pointer result must stay in gm memory space"),
    (f"%p = pto.tensor_view_addr %po : {PV} -> !pto.ptr<f32, gm>",
     f"%p = pto.tensor_view_addr %po : {PV} -> memref<4x8xf16, #pto.address_space<gm>>",
     r"pto\.tensor_view_addr: memref result element type must match source element type"),
    (f"%p = pto.tensor_view_addr %po : {PV} -> !pto.ptr<f32, gm>",
     f"%p = pto.tensor_view_addr %po : {PV} -> memref<32xf32, #pto.address_space<gm>>",
     r"pto\.tensor_view_addr: memref result rank must match source rank"),
    (f"%p = pto.tensor_view_addr %po : {PV} -> !pto.ptr<f32, gm>",
     f"%p = pto.tensor_view_addr %po : {PV} -> memref<4x8xf32, #pto.address_space<vec>>",
     r"pto\.tensor_view_addr: memref result must stay in gm memory space"),
    (f"%p = pto.tensor_view_addr %po : {PV} -> !pto.ptr<f32, gm>",
     f"%p = pto.tensor_view_addr %po : {PV} -> i64",
     r"pto\.tensor_view_addr: result must be a memref or !pto\.ptr<\.\.\.>"),
    (f"%p = pto.tensor_view_addr %po : {PV} -> !pto.ptr<f32, gm>",
     f"%p = pto.tensor_view_addr %t : {T} -> !pto.ptr<f32, gm>",
     r"pto\.tensor_view_addr: source must be a tensor_view, partition_tensor_view, or memref"),
])
def test_ptoas_rules(old: str, new: str, message: str) -> None:
    with pytest.raises(ptosim.PtoError, match=message):
        Kernel.from_text(_edit(old, new), "k.pto")


def test_run_time_rules_are_located() -> None:
    k = Kernel.from_text(KERNEL, "k.pto")
    with pytest.raises(OutOfBoundsError, match=r"k\.pto:\d+:5: error: TGETVAL: offset 128 "
                                               r"leaves the tile's 8 x 16 = 128 elements"):
        k.run(_inputs(off=128))
    bad = Kernel.from_text(_edit(f"%dim1 = pto.get_tensor_view_dim %po, %c1 : {PV}",
                                 f"%dim1 = pto.get_tensor_view_dim %po, %c2 : {PV}"), "k.pto")
    with pytest.raises(VerifyError, match=r"pto\.get_tensor_view_dim: dim_index 2 must lie "
                                          r"in \[0, 2\) \(the view's rank\)"):
        bad.run(_inputs())
    found = check_kernel(bad.module, bad.func, "a5", bad.locate, scalars={3: 10, 4: 0, 5: 1})
    assert len(found.errors) == 1
    assert "error: pto.get_tensor_view_dim: dim_index 2 must lie in [0, 2)" in \
        str(found.errors[0])


def test_tsetval_on_a_mat_tile_parses_but_is_refused() -> None:
    """PTOAS's TSetValOp verifier takes any tile; pto-isa's SetValue static_asserts Vec."""
    text = _edit(f"pto.tsetval ins(%c5, %y : index, f32) outs(%t : {T})",
                 f"%m = pto.alloc_tile addr = %a0 : {MAT}\n    %h = arith.truncf %y : f32 to "
                 f"f16\n"
                 f"    pto.tsetval ins(%c5, %h : index, f16) outs(%m : {MAT})")
    k = Kernel.from_text(text, "k.pto")
    found = check_kernel(k.module, k.func, "a5", k.locate)
    assert found.errors == [] and found.skipped >= 1      # %h depends on the loaded data
    text = text.replace("%h = arith.truncf %y : f32 to f16", "%h = arith.constant 1.0 : f16")
    k = Kernel.from_text(text, "k.pto")
    found = check_kernel(k.module, k.func, "a5", k.locate)
    assert [type(e).__name__ for e in found.errors] == ["SpaceError"]
    assert "TSETVAL: dst must be a Vec tile" in str(found.errors[0])


def test_check_folds_the_queries_and_verifies_the_accesses() -> None:
    text = _edit("%addr = arith.constant 8192 : i64", "%addr = arith.constant 8200 : i64")
    k = Kernel.from_text(text, "k.pto")
    found = check_kernel(k.module, k.func, "a5", k.locate, scalars={3: 10, 4: 37, 5: 6})
    assert len(found.errors) == 1
    assert "TASSIGN: a 512 B Vec tile at byte 8200 must be 32-byte aligned" in \
        str(found.errors[0])
    good = Kernel.from_text(KERNEL, "k.pto")
    clean = check_kernel(good.module, good.func, "a5", good.locate, scalars={3: 10, 4: 200,
                                                                             5: 6})
    assert [str(e).split(": error: ")[1][:28] for e in clean.errors] == \
        ["TGETVAL: offset 200 leaves t"]


def test_hazards_on_the_scalar_pipe() -> None:
    """tgetval / tsetval run on PIPE_S: a load's MTE2 write needs MTE2 -> S before the
    read, and a store after tsetval needs S -> MTE3."""
    text = _edit('    pto.set_flag["PIPE_MTE2", "PIPE_S", "EVENT_ID0"]\n'
                 '    pto.wait_flag["PIPE_MTE2", "PIPE_S", "EVENT_ID0"]\n', "")
    found = Kernel.from_text(text, "k.pto").run(_inputs()).findings
    assert [f.kind for f in found] == ["RAW", "WAW"]
    assert "pto.tgetval (block0.aiv0 PIPE_S) reads what pto.tload (block0.aiv0 PIPE_MTE2)" \
        in found[0].message
    assert 'add pto.set_flag["PIPE_MTE2", "PIPE_S", "EVENT_IDn"]' in found[0].message
    store = _edit("    %d = pto.alloc_tile",
                  f"    pto.tstore ins(%t : {T}) outs(%pa : !pto.partition_tensor_view"
                  f"<8x16xf32>)\n    %d = pto.alloc_tile")
    found = Kernel.from_text(store, "k.pto").run(_inputs()).findings
    after_set = [f for f in found if "reads what pto.tsetval" in f.message]
    assert len(after_set) == 1 and after_set[0].kind == "RAW"
    assert "pto.tstore (block0.aiv0 PIPE_MTE3) reads what pto.tsetval (block0.aiv0 PIPE_S)" \
        in after_set[0].message
    assert 'add pto.set_flag["PIPE_S", "PIPE_MTE3", "EVENT_IDn"]' in after_set[0].message
    synced = _edit("    %d = pto.alloc_tile",
                   '    pto.set_flag["PIPE_S", "PIPE_MTE3", "EVENT_ID0"]\n'
                   '    pto.wait_flag["PIPE_S", "PIPE_MTE3", "EVENT_ID0"]\n'
                   f"    pto.tstore ins(%t : {T}) outs(%pa : !pto.partition_tensor_view"
                   f"<8x16xf32>)\n    %d = pto.alloc_tile")
    # MTE2 -> S -> MTE3 also orders the load before the store
    assert Kernel.from_text(synced, "k.pto").run(_inputs()).findings == []


def test_element_access_runs_on_the_vector_core() -> None:
    text = KERNEL.replace("#pto.kernel_kind<vector>", "#pto.kernel_kind<cube>")
    with pytest.raises(ptosim.PtoError, match=r"runs on the vector cores \(AIV\)"):
        Kernel.from_text(text, "k.pto").run(_inputs())


def test_timeline_puts_the_element_accesses_on_the_scalar_pipe() -> None:
    timeline = Kernel.from_text(KERNEL, "k.pto").run(_inputs(), trace=True).timeline
    pipes = {s.name: (s.pipe, s.args["bytes"]) for s in timeline.slices}
    assert pipes["pto.tgetval"] == ("S", 4) and pipes["pto.tsetval"] == ("S", 4)
    assert "pto.tassign" not in pipes and "pto.get_tensor_view_dim" not in pipes
