"""``pto.subview`` (PTOAS SubViewOp): parsing, PTOAS's verifier rules, the inferred result
type, and the runtime view (the parent's physical shape, the window's valid region, the
address through the parent's layout), checked against numpy slicing and against the
tile layouts' own element maps."""

from __future__ import annotations

import numpy as np
import pytest

import ptosim
from ptosim.errors import VerifyError
from ptosim.kernel import Kernel
from ptosim.tile.shape import pto_subview

TILE = "!pto.tile_buf<vec, 16x16xf32>"

KERNEL = """
module {
  func.func @k(%a: !pto.ptr<f32>, %o: !pto.ptr<f32>, %r: index, %c: index, %vr: index,
               %vc: index) attributes {pto.aicore} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %one = arith.constant 1.0 : f32
    %ten = arith.constant 10.0 : f32
    %va = pto.make_tensor_view %a, shape = [%c16, %c16], strides = [%c16, %c1] : !pto.tensor_view<16x16xf32>
    %pa = pto.partition_view %va, offsets = [%c0, %c0], sizes = [%c16, %c16] : !pto.tensor_view<16x16xf32>
    %vo = pto.make_tensor_view %o, shape = [%c16, %c16], strides = [%c16, %c1] : !pto.tensor_view<16x16xf32>
    %po = pto.partition_view %vo, offsets = [%c0, %c0], sizes = [%c16, %c16] : !pto.tensor_view<16x16xf32>
    %t = pto.alloc_tile : !pto.tile_buf<vec, 16x16xf32>
    pto.tload ins(%pa : !pto.partition_tensor_view<16x16xf32>) outs(%t : !pto.tile_buf<vec, 16x16xf32>)
    %q = pto.subview %t[%c8, %c8] sizes [8, 8] : !pto.tile_buf<vec, 16x16xf32>
    pto.tadds ins(%q, %one : !pto.tile_buf<vec, 8x8xf32>, f32) outs(%q : !pto.tile_buf<vec, 8x8xf32>)
    %d = pto.subview %t[%r, %c] sizes [8, 8] valid [%vr, %vc] : !pto.tile_buf<vec, 16x16xf32> -> !pto.tile_buf<vec, 8x8xf32, valid=?x?>
    pto.tmuls ins(%d, %ten : !pto.tile_buf<vec, 8x8xf32, valid=?x?>, f32) outs(%d : !pto.tile_buf<vec, 8x8xf32, valid=?x?>)
    pto.tstore ins(%t : !pto.tile_buf<vec, 16x16xf32>) outs(%po : !pto.partition_tensor_view<16x16xf32>)
    return
  }
}
"""


def _run(r: int, c: int, vr: int, vc: int) -> np.ndarray:
    a = np.arange(256, dtype=np.float32).reshape(16, 16)
    res = Kernel.from_text(KERNEL).run({"a": a, "o": np.zeros((16, 16), np.float32), "r": r,
                                        "c": c, "vr": vr, "vc": vc})
    return res.outputs["o"]


@pytest.mark.parametrize("r, c, vr, vc", [(0, 0, 8, 8), (8, 0, 3, 5), (2, 8, 8, 1),
                                          (0, 8, 0, 4)])
def test_windows_touch_only_their_part_of_the_parent(r: int, c: int, vr: int, vc: int) -> None:
    want = np.arange(256, dtype=np.float32).reshape(16, 16)
    want[8:16, 8:16] += 1
    want[r:r + vr, c:c + vc] *= 10
    np.testing.assert_array_equal(_run(r, c, vr, vc), want)


def test_the_result_type_is_inferred_and_printed() -> None:
    k = Kernel.from_text(KERNEL)
    text = str(k.module).replace("\n", " ")
    assert f"pto.subview %t[%c8, %c8] sizes [8, 8] : {TILE} -> !pto.tile_buf<vec, 8x8xf32>" \
        in text
    assert "sizes [8, 8] valid [%vr, %vc] :" in text
    assert Kernel.from_text(text).module is not None        # the printed form parses again


def _subview_text(line: str) -> str:
    return f"""
module {{
  func.func @k() attributes {{pto.aicore}} {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c9 = arith.constant 9 : index
    %t = pto.alloc_tile : {TILE}
    %n = pto.alloc_tile : !pto.tile_buf<mat, 32x32xf16, blayout=col_major, slayout=row_major>
    {line}
    return
  }}
}}
"""


def test_constant_valid_counts_set_the_inferred_type() -> None:
    text = str(Kernel.from_text(_subview_text(
        f"%s = pto.subview %t[%c0, %c8] sizes [8, 8] valid [%c1, %c4] : {TILE}")).module)
    assert "-> !pto.tile_buf<vec, 8x8xf32, valid=1x4>" in text


@pytest.mark.parametrize("line, message", [
    (f"%s = pto.subview %t[%c0, %c0] sizes [0, 8] : {TILE}", r"sizes must be positive"),
    (f"%s = pto.subview %t[%c0] sizes [8, 8] : {TILE}", r"takes 2 offsets and 2 sizes"),
    (f"%s = pto.subview %t[%c0, %c0] sizes [8, 8] valid [%c9, %c1] : {TILE}",
     r"valid_row 9 must lie in \[0, 8\]"),
    (f"%s = pto.subview %t[%c0, %c0] sizes [8, 8] : {TILE} -> !pto.tile_buf<vec, 8x16xf32>",
     r"the result shape 8x16 must be the subview sizes 8x8"),
    (f"%s = pto.subview %t[%c0, %c0] sizes [8, 8] : {TILE} -> !pto.tile_buf<vec, 8x8xf16>",
     r"the result's dtype must be the source's \(f32\), got f16"),
    (f"%s = pto.subview %t[%c0, %c0] sizes [8, 8] : {TILE} -> "
     f"!pto.tile_buf<vec, 8x8xf32, valid=?x8>",
     r"the result's valid row count must be 8"),
    ("%s = pto.subview %n[%c4, %c0] sizes [16, 16] : "
     "!pto.tile_buf<mat, 32x32xf16, blayout=col_major, slayout=row_major>",
     r"a boxed subview's offsets must be multiples of its 16x16 inner box"),
    ("%s = pto.subview %n[%c0, %c0] sizes [8, 16] : "
     "!pto.tile_buf<mat, 32x32xf16, blayout=col_major, slayout=row_major>",
     r"a boxed subview's sizes must be multiples of its 16x16 inner box"),
])
def test_ptoas_verifier_rules(line: str, message: str) -> None:
    with pytest.raises(ptosim.PtoError, match=r"pto\.subview: " + message):
        Kernel.from_text(_subview_text(line))


@pytest.mark.parametrize("r, c, vr, vc, message", [
    (9, 0, 8, 8, r"the 8x8 window at \[9, 0\] leaves src's 16x16 tile"),
    (0, 4, 8, 8, r"the subview starts 16 B into its source: a tile address must be 32-byte"),
    (0, 0, 9, 8, r"valid \[9, 8\] must lie in \[0, sizes\] = \[8, 8\]"),
    (-8, 0, 8, 8, r"offsets must be non-negative"),
])
def test_runtime_rules(r: int, c: int, vr: int, vc: int, message: str) -> None:
    with pytest.raises(VerifyError, match=message):
        _run(r, c, vr, vc)


# (tile type, dtype, rows, cols, blayout, slayout, fractal, window offsets)
LAYOUTS = [
    ("Vec", "f32", 16, 32, "RowMajor", "NoneBox", 512, (3, 8)),      # ND
    ("Vec", "f32", 32, 16, "ColMajor", "NoneBox", 512, (8, 5)),      # DN
    ("Mat", "f16", 32, 64, "ColMajor", "RowMajor", 512, (16, 32)),   # NZ
    ("Mat", "f32", 32, 64, "ColMajor", "RowMajor", 512, (16, 24)),   # NZ, C0 = 8
    ("Right", "f32", 64, 256, "RowMajor", "ColMajor", 512, (8, 128)),  # ZN (the PTOAS test)
    ("Acc", "f32", 32, 64, "ColMajor", "RowMajor", 1024, (16, 16)),  # NZ 1024 B fractals
]


@pytest.mark.parametrize("tile_type, dt, rows, cols, bl, sl, fractal, off", LAYOUTS)
def test_every_window_element_is_the_parents(tile_type: str, dt: str, rows: int, cols: int,
                                             bl: str, sl: str, fractal: int,
                                             off: tuple[int, int]) -> None:
    """Independent of the stride formula: element (i, j) of the view, through the view's
    own layout map from its address, is element (r + i, c + j) of the parent."""
    m = ptosim.Machine(target="a5")
    parent = m.tile(tile_type, dt, rows, cols, blayout=bl, slayout=sl, fractal=fractal)
    r, c = off
    size = (rows - r, cols - c)
    view = pto_subview(parent, r, c, size, size)
    assert (view.rows, view.cols, view.valid) == (rows, cols, size)
    p_off, v_off = parent.layout.offsets(), view.layout.offsets()
    base = (view.ptr.offset - parent.ptr.offset) // parent.dtype.size
    for i in range(0, size[0], 3):
        for j in range(0, size[1], 5):
            assert base + v_off[i, j] == p_off[r + i, c + j], (i, j)


MEMREF_KERNEL = """
module {
  func.func @k(%src: memref<16x16xf32, #pto.address_space<gm>>,
               %dst: memref<8x8xf32, strided<[17, 1]>, #pto.address_space<gm>>) {
    %c8 = arith.constant 8 : index
    %two = arith.constant 2.0 : f32
    %t = pto.alloc_tile : !pto.tile_buf<vec, 16x16xf32>
    pto.tload ins(%src : memref<16x16xf32, #pto.address_space<gm>>) outs(%t : !pto.tile_buf<vec, 16x16xf32>)
    %s = pto.subview %t[%c8, %c0] sizes [8, 8] : !pto.tile_buf<vec, 16x16xf32>
    pto.tmuls ins(%s, %two : !pto.tile_buf<vec, 8x8xf32>, f32) outs(%s : !pto.tile_buf<vec, 8x8xf32>)
    pto.tstore ins(%s : !pto.tile_buf<vec, 8x8xf32>) outs(%dst : memref<8x8xf32, strided<[17, 1]>, #pto.address_space<gm>>)
    return
  }
}
"""


def test_shaped_gm_memrefs_are_tensor_views() -> None:
    """PTOAS's memref spelling of tload / tstore operands: the memref's shape and strides
    (row-major, or its strided layout) make the view, as a make_tensor_view would."""
    text = MEMREF_KERNEL.replace("%c8 = arith", "%c0 = arith.constant 0 : index\n    %c8 = arith")
    a = np.arange(256, dtype=np.float32).reshape(16, 16)
    out = np.full(8 * 17, -1.0, np.float32)
    res = Kernel.from_text(text).run({"src": a, "dst": out})
    want = np.full(8 * 17, -1.0, np.float32)
    np.lib.stride_tricks.as_strided(want, (8, 8), (17 * 4, 4))[...] = a[8:, :8] * 2
    np.testing.assert_array_equal(res.outputs["dst"], want)


def test_a_dynamic_memref_is_not_a_view() -> None:
    text = MEMREF_KERNEL.replace("memref<16x16xf32,", "memref<?x16xf32,")
    with pytest.raises(ptosim.PtoError, match=r"pto\.tload: src must be a "
                                              r"!pto\.partition_tensor_view \(or !pto\.tensor_view, "
                                              r"or a GM memref of static shape\)"):
        Kernel.from_text(text)
