"""The .pto tile level: tile_buf / tensor view types, view and tile allocation ops, the
ins/outs tile ops, their accessors, and diagnostics at exact locations.

The kernels are written here in the PTO-Gym style (5-D views, partition, alloc_tile, tile
ops); nothing is read from outside the repository."""

import pytest

import ptosim
from ptosim.errors import PtoSyntaxError
from ptosim.frontend import (
    TILE_OPS,
    AllocTileOp,
    LayoutAttr,
    MakeTensorViewOp,
    PartitionTensorViewType,
    PartitionViewOp,
    PipeAttr,
    TensorViewType,
    TExtractOp,
    TFillPadExpandOp,
    TFillPadInplaceOp,
    TFillPadOp,
    TileBufAddrOp,
    TileBufType,
    TileOp,
    TInsertOp,
    TLoadOp,
    TMatmulAccOp,
    TMatmulBiasOp,
    TMatmulOp,
    TMovOp,
    TStoreOp,
    parse_module,
    print_module,
    ptr_info,
    tile_info,
    view_info,
)
from ptosim.mlir.builtin import f16, f32
from ptosim.mlir.exceptions import VerifyException
from ptosim.mlir.ir import SSAValue

# --- kernels -----------------------------------------------------------------------------------
VEC = """module attributes {pto.target_arch = "a5", pto.kernel_kind = #pto.kernel_kind<vector>} {
  func.func @pad_rows(%src_ptr: !pto.ptr<f32>, %dst_ptr: !pto.ptr<f32>) attributes {pto.aicore} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c24 = arith.constant 24 : index
    %c32 = arith.constant 32 : index
    %c60 = arith.constant 60 : index
    %c64 = arith.constant 64 : index
    %c768 = arith.constant 768 : index
    %c2048 = arith.constant 2048 : index
    %c0_i64 = arith.constant 0 : i64
    %in = pto.make_tensor_view %src_ptr,
      shape = [%c1, %c1, %c1, %c24, %c64],
      strides = [%c768, %c768, %c768, %c64, %c1]
      : !pto.tensor_view<1x1x1x24x64xf32>
    %out = pto.make_tensor_view %dst_ptr,
      shape = [%c1, %c1, %c1, %c32, %c64],
      strides = [%c2048, %c2048, %c2048, %c64, %c1] {layout = #pto.layout<nd>}
      : !pto.tensor_view<1x1x1x32x64xf32>
    %in_part = pto.partition_view %in,
      offsets = [%c0, %c0, %c0, %c0, %c0],
      sizes = [%c1, %c1, %c1, %c24, %c60]
      : !pto.tensor_view<1x1x1x24x64xf32> -> !pto.partition_tensor_view<1x1x1x24x60xf32>
    %out_part = pto.partition_view %out,
      offsets = [%c0, %c0, %c0, %c0, %c0],
      sizes = [%c1, %c1, %c1, %c32, %c64]
      : !pto.tensor_view<1x1x1x32x64xf32>
    %src = pto.alloc_tile addr = %c0_i64
      : !pto.tile_buf<loc=vec, dtype=f32, rows=32, cols=64, v_row=24, v_col=60,
                      blayout=row_major, slayout=none_box, fractal=512, pad=1>
    %dst = pto.alloc_tile : !pto.tile_buf<vec, 32x64xf32, pad=2>
    pto.tload ins(%in_part : !pto.partition_tensor_view<1x1x1x24x60xf32>)
              outs(%src : !pto.tile_buf<vec, 32x64xf32, valid=24x60, pad=1>)
    pto.tfillpad ins(%src : !pto.tile_buf<vec, 32x64xf32, valid=24x60, pad=1>)
                 outs(%dst : !pto.tile_buf<vec, 32x64xf32, pad=2>)
    pto.tfillpad_inplace ins(%dst : !pto.tile_buf<vec, 32x64xf32, pad=2>)
                         outs(%dst : !pto.tile_buf<vec, 32x64xf32, pad=2>)
    pto.tstore ins(%dst : !pto.tile_buf<vec, 32x64xf32, pad=2>)
               outs(%out_part : !pto.partition_tensor_view<1x1x1x32x64xf32>)
    return
  }
}
"""

CUBE = """module attributes {pto.target_arch = "a5", pto.kernel_kind = #pto.kernel_kind<cube>} {
  func.func @mm(%a_ptr: !pto.ptr<f16>, %b_ptr: !pto.ptr<f16>, %bias_ptr: !pto.ptr<f32>,
                %c_ptr: !pto.ptr<f32, gm>) attributes {pto.aicore} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %c512 = arith.constant 512 : index
    %c1024 = arith.constant 1024 : index
    %c1024_i64 = arith.constant 1024 : i64
    %a_view = pto.make_tensor_view %a_ptr, shape = [%c1, %c1, %c1, %c16, %c32],
      strides = [%c512, %c512, %c512, %c32, %c1] : !pto.tensor_view<1x1x1x16x32xf16>
    %b_view = pto.make_tensor_view %b_ptr, shape = [%c32, %c32], strides = [%c32, %c1]
      : !pto.tensor_view<32x32xf16>
    %bias_view = pto.make_tensor_view %bias_ptr, shape = [%c32], strides = [%c1]
      : !pto.tensor_view<32xf32>
    %c_view = pto.make_tensor_view %c_ptr, shape = [%c16, %c32], strides = [%c32, %c1]
      : !pto.tensor_view<16x32xf32>
    %a_part = pto.partition_view %a_view, offsets = [%c0, %c0, %c0, %c0, %c0],
      sizes = [%c1, %c1, %c1, %c16, %c32]
      : !pto.tensor_view<1x1x1x16x32xf16> -> !pto.partition_tensor_view<1x1x1x16x32xf16>
    %b_part = pto.partition_view %b_view, offsets = [%c0, %c0], sizes = [%c32, %c32]
      : !pto.tensor_view<32x32xf16> -> !pto.partition_tensor_view<32x32xf16>
    %bias_part = pto.partition_view %bias_view, offsets = [%c0], sizes = [%c32]
      : !pto.tensor_view<32xf32> -> !pto.partition_tensor_view<32xf32>
    %c_part = pto.partition_view %c_view, offsets = [%c0, %c0], sizes = [%c16, %c32]
      : !pto.tensor_view<16x32xf32> -> !pto.partition_tensor_view<16x32xf32>
    %a_mat = pto.alloc_tile : !pto.tile_buf<mat, 16x32xf16, blayout=col_major, slayout=row_major>
    %b_mat = pto.alloc_tile addr = %c1024_i64
      : !pto.tile_buf<mat, 32x32xf16, blayout=col_major, slayout=row_major>
    %b_half = pto.alloc_tile : !pto.tile_buf<mat, 16x32xf16, blayout=col_major, slayout=row_major>
    %bias_mat = pto.alloc_tile : !pto.tile_buf<mat, 1x32xf32>
    %left = pto.alloc_tile : !pto.tile_buf<left, 16x16xf16, blayout=col_major, slayout=row_major>
    %right = pto.alloc_tile : !pto.tile_buf<right, 16x32xf16, slayout=col_major>
    %bias = pto.alloc_tile : !pto.tile_buf<bias, 1x32xf32>
    %acc = pto.alloc_tile
      : !pto.tile_buf<acc, 16x32xf32, blayout=col_major, slayout=row_major, fractal=1024>
    pto.tload ins(%a_part : !pto.partition_tensor_view<1x1x1x16x32xf16>)
              outs(%a_mat : !pto.tile_buf<mat, 16x32xf16, blayout=col_major, slayout=row_major>)
    pto.tload ins(%b_part : !pto.partition_tensor_view<32x32xf16>)
              outs(%b_mat : !pto.tile_buf<mat, 32x32xf16, blayout=col_major, slayout=row_major>)
    pto.tload ins(%bias_part : !pto.partition_tensor_view<32xf32>)
              outs(%bias_mat : !pto.tile_buf<mat, 1x32xf32>)
    pto.tmov ins(%bias_mat : !pto.tile_buf<mat, 1x32xf32>) outs(%bias : !pto.tile_buf<bias, 1x32xf32>)
    pto.textract ins(%a_mat, %c0, %c0 : !pto.tile_buf<mat, 16x32xf16, blayout=col_major, slayout=row_major>,
                     index, index)
                 outs(%left : !pto.tile_buf<left, 16x16xf16, blayout=col_major, slayout=row_major>)
    pto.textract ins(%b_mat, %c0, %c0 : !pto.tile_buf<mat, 32x32xf16, blayout=col_major, slayout=row_major>,
                     index, index)
                 outs(%b_half : !pto.tile_buf<mat, 16x32xf16, blayout=col_major, slayout=row_major>)
    pto.tmov ins(%b_half : !pto.tile_buf<mat, 16x32xf16, blayout=col_major, slayout=row_major>)
             outs(%right : !pto.tile_buf<right, 16x32xf16, slayout=col_major>)
    pto.tmatmul.bias ins(%left, %right, %bias : !pto.tile_buf<left, 16x16xf16, blayout=col_major, slayout=row_major>,
                         !pto.tile_buf<right, 16x32xf16, slayout=col_major>, !pto.tile_buf<bias, 1x32xf32>)
                     outs(%acc : !pto.tile_buf<acc, 16x32xf32, blayout=col_major, slayout=row_major, fractal=1024>)
    pto.textract ins(%a_mat, %c0, %c16 : !pto.tile_buf<mat, 16x32xf16, blayout=col_major, slayout=row_major>,
                     index, index)
                 outs(%left : !pto.tile_buf<left, 16x16xf16, blayout=col_major, slayout=row_major>)
    pto.textract ins(%b_mat, %c16, %c0 : !pto.tile_buf<mat, 32x32xf16, blayout=col_major, slayout=row_major>,
                     index, index)
                 outs(%b_half : !pto.tile_buf<mat, 16x32xf16, blayout=col_major, slayout=row_major>)
    pto.tmov ins(%b_half : !pto.tile_buf<mat, 16x32xf16, blayout=col_major, slayout=row_major>)
             outs(%right : !pto.tile_buf<right, 16x32xf16, slayout=col_major>)
    pto.tmatmul.acc ins(%acc, %left, %right : !pto.tile_buf<acc, 16x32xf32, blayout=col_major, slayout=row_major, fractal=1024>,
                        !pto.tile_buf<left, 16x16xf16, blayout=col_major, slayout=row_major>,
                        !pto.tile_buf<right, 16x32xf16, slayout=col_major>)
                    outs(%acc : !pto.tile_buf<acc, 16x32xf32, blayout=col_major, slayout=row_major, fractal=1024>)
    pto.tmatmul ins(%left, %right : !pto.tile_buf<left, 16x16xf16, blayout=col_major, slayout=row_major>,
                    !pto.tile_buf<right, 16x32xf16, slayout=col_major>)
                outs(%acc : !pto.tile_buf<acc, 16x32xf32, blayout=col_major, slayout=row_major, fractal=1024>)
    pto.tinsert ins(%left, %c0, %c16 : !pto.tile_buf<left, 16x16xf16, blayout=col_major, slayout=row_major>,
                    index, index)
                outs(%a_mat : !pto.tile_buf<mat, 16x32xf16, blayout=col_major, slayout=row_major>)
    %acc_ptr = pto.tile_buf_addr %acc
      : !pto.tile_buf<acc, 16x32xf32, blayout=col_major, slayout=row_major, fractal=1024>
     -> !pto.ptr<f32, acc>
    pto.tstore ins(%acc : !pto.tile_buf<acc, 16x32xf32, blayout=col_major, slayout=row_major, fractal=1024>)
               outs(%c_part : !pto.partition_tensor_view<16x32xf32>)
    return
  }
}
"""

DYNAMIC = """module attributes {pto.target_arch = "a5"} {
  func.func @rows(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>, %n: i32) attributes {pto.aicore} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %rows = arith.index_cast %n : i32 to index
    %total = arith.muli %rows, %c128 : index
    %xv = pto.make_tensor_view %x, shape = [%c1, %c1, %c1, %rows, %c128],
      strides = [%total, %total, %total, %c128, %c1] : !pto.tensor_view<?x?x?x?x?xf32>
    %yv = pto.make_tensor_view %y, shape = [%rows, %c128], strides = [%c128, %c1]
      : !pto.tensor_view<?x128xf32>
    %xp = pto.partition_view %xv, offsets = [%c0, %c0, %c0, %c0, %c0],
      sizes = [%c1, %c1, %c1, %rows, %c128]
      : !pto.tensor_view<?x?x?x?x?xf32> -> !pto.partition_tensor_view<?x?x?x?x?xf32>
    %yp = pto.partition_view %yv, offsets = [%c0, %c0], sizes = [%rows, %c128]
      : !pto.tensor_view<?x128xf32>
    %t = pto.alloc_tile valid_row = %rows valid_col = %c128
      : !pto.tile_buf<vec, 8x128xf32, valid=?x?>
    %u = pto.alloc_tile valid_row = %rows
      : !pto.tile_buf<loc=vec, dtype=f32, rows=8, cols=128, v_row=?, v_col=128,
                      blayout=row_major, slayout=none_box, fractal=512, pad=1>
    %w = pto.alloc_tile valid_col = %c128
      : !pto.tile_buf<loc=vec, dtype=f32, rows=8, cols=128, v_row=8, v_col=-1,
                      blayout=row_major, slayout=none_box, fractal=512, pad=3, compact=1>
    pto.tload ins(%xp : !pto.partition_tensor_view<?x?x?x?x?xf32>)
              outs(%t : !pto.tile_buf<vec, 8x128xf32, valid=?x?>)
    pto.tfillpad_expand ins(%t : !pto.tile_buf<vec, 8x128xf32, valid=?x?>)
                        outs(%u : !pto.tile_buf<vec, 8x128xf32, valid=?x128, pad=1>)
    pto.tmov ins(%u : !pto.tile_buf<vec, 8x128xf32, valid=?x128, pad=1>)
             outs(%w : !pto.tile_buf<vec, 8x128xf32, valid=8x?, pad=3, compact=1>)
    pto.tstore ins(%w : !pto.tile_buf<vec, 8x128xf32, valid=8x?, pad=3, compact=1>)
               outs(%yp : !pto.partition_tensor_view<?x128xf32>)
    %p = pto.tile_buf_addr %t : !pto.tile_buf<vec, 8x128xf32, valid=?x?>
      -> memref<?xf32, #pto.address_space<vec>>
    return
  }
}
"""


def roundtrip(text: str, filename: str = "k.pto"):
    module = parse_module(text, filename)
    printed = print_module(module)
    assert print_module(parse_module(printed)) == printed
    return module, printed


def ops_of(module, cls):
    return [op for op in module.walk() if isinstance(op, cls)]


def only(module, cls):
    (op,) = ops_of(module, cls)
    return op


def names(values):
    return [v.name_hint if isinstance(v, SSAValue) else v for v in values]


# --- round trips ---------------------------------------------------------------------------
@pytest.mark.parametrize("text", [VEC, CUBE, DYNAMIC], ids=["vec", "cube", "dynamic"])
def test_kernels_round_trip(text):
    module, printed = roundtrip(text)
    # every tile op of the kernel survived, in canonical form
    assert len(ops_of(parse_module(printed), TileOp)) == len(ops_of(module, TileOp)) > 0
    assert "loc=" not in printed and "v_row" not in printed


def test_every_tile_op_appears_in_the_kernels():
    from test_tile_gemv import ACC, GEMV, LEFT, RIGHT
    bias = "!pto.tile_buf<bias, 1x32xf32>"
    fp, vec = "!pto.tile_buf<scaling, 1x32xui64>", "!pto.tile_buf<vec, 16x32xf16>"
    gemv = GEMV.replace("{body}", (
        f"%bias = pto.alloc_tile : {bias}\n"
        f"pto.tgemv ins(%l, %r : {LEFT}, {RIGHT}) outs(%acc : {ACC})\n"
        f"pto.tgemv.acc ins(%acc, %l, %r : {ACC}, {LEFT}, {RIGHT}) outs(%acc : {ACC})\n"
        f"pto.tgemv.bias ins(%l, %r, %bias : {LEFT}, {RIGHT}, {bias}) outs(%acc : {ACC})\n"
        f"%fp = pto.alloc_tile : {fp}\n%vec = pto.alloc_tile : {vec}\n"
        f"pto.tmov.fp ins(%acc, %fp : {ACC}, {fp}) outs(%vec : {vec})\n"
        f"pto.textract_fp ins(%acc, %fp, %c0, %c0 : {ACC}, {fp}, index, index) "
        f"outs(%vec : {vec})\n"
        f"pto.tinsert_fp ins(%acc, %fp, %c0, %c0 : {ACC}, {fp}, index, index) "
        f"outs(%vec : {vec})\n"
        f"pto.tstore_fp ins(%acc, %fp : {ACC}, {fp}) "
        f"outs(%cp : !pto.partition_tensor_view<1x32xf32>)"))
    prefetch = VEC.replace("pto.tload ins(", "pto.tprefetch ins(", 1)
    from test_mgather import _pto as gather_text
    from test_mscatter import scatter_text
    from test_pto_mx import (
        ACC as MX_ACC,
        BIAS as MX_BIAS,
        GACC,
        GMX,
        MX,
        gemv_kernel,
        kernel as mx_kernel,
    )
    mx = mx_kernel(
        f"pto.tmatmul.mx ins(%l, %as, %r, %bs : {MX}) outs(%acc : {MX_ACC})\n"
        f"pto.tmatmul.mx.acc ins(%acc, %l, %as, %r, %bs : {MX_ACC}, {MX}) outs(%acc : {MX_ACC})\n"
        f"pto.tmatmul.mx.bias ins(%l, %as, %r, %bs, %bt : {MX}, {MX_BIAS}) outs(%acc : {MX_ACC})")
    gemv_mx = gemv_kernel(
        f"pto.tgemv.mx ins(%l, %as, %r, %bs : {GMX}) outs(%acc : {GACC})\n"
        f"pto.tgemv.mx.acc ins(%acc, %l, %as, %r, %bs : {GACC}, {GMX}) outs(%acc : {GACC})\n"
        f"pto.tgemv.mx.bias ins(%l, %as, %r, %bs, %bt : {GMX}, {MX_BIAS}) outs(%acc : {GACC})")
    seen = {type(op) for text in (VEC, CUBE, DYNAMIC, gemv, prefetch, gather_text("a5", (1, 4)),
                                  scatter_text("a5"), mx, gemv_mx)
            for op in parse_module(text).walk()}
    assert set(TILE_OPS) <= seen
    assert {MakeTensorViewOp, PartitionViewOp, AllocTileOp, TileBufAddrOp} <= seen


def test_canonical_spelling_of_each_form():
    _, printed = roundtrip(VEC)
    lines = [line.strip() for line in printed.splitlines()]
    assert ("%src = pto.alloc_tile addr = %c0_i64 : !pto.tile_buf<vec, 32x64xf32, "
            "valid=24x60, pad=1>") in lines
    assert ("%out = pto.make_tensor_view %dst_ptr, shape = [%c1, %c1, %c1, %c32, %c64], "
            "strides = [%c2048, %c2048, %c2048, %c64, %c1] {layout = #pto.layout<nd>} : "
            "!pto.tensor_view<1x1x1x32x64xf32>") in lines
    # a partition without '->' is printed with its inferred result type
    assert ("%out_part = pto.partition_view %out, offsets = [%c0, %c0, %c0, %c0, %c0], "
            "sizes = [%c1, %c1, %c1, %c32, %c64] : !pto.tensor_view<1x1x1x32x64xf32> -> "
            "!pto.partition_tensor_view<1x1x1x32x64xf32>") in lines
    assert ("pto.tfillpad ins(%src : !pto.tile_buf<vec, 32x64xf32, valid=24x60, pad=1>) "
            "outs(%dst : !pto.tile_buf<vec, 32x64xf32, pad=2>)") in lines
    _, printed = roundtrip(CUBE)
    assert ("pto.textract ins(%a_mat, %c0, %c16 : !pto.tile_buf<mat, 16x32xf16, "
            "blayout=col_major, slayout=row_major>, index, index) outs(%left : "
            "!pto.tile_buf<left, 16x16xf16, blayout=col_major, slayout=row_major>)"
            ) in printed
    assert "-> !pto.ptr<f32, l0c>" in printed


@pytest.mark.parametrize("keyed, compact", [
    ("loc=vec, dtype=f32, rows=16, cols=64, v_row=16, v_col=64, blayout=row_major, "
     "slayout=none_box, fractal=512, pad=0", "vec, 16x64xf32"),
    ("loc=mat, dtype=f16, rows=32, cols=48, v_row=?, v_col=-1, blayout=col_major, "
     "slayout=row_major, fractal=512, pad=2, compact=1",
     "mat, 32x48xf16, valid=?x?, blayout=col_major, slayout=row_major, pad=2, compact=1"),
    ('loc="acc", dtype=f32, rows=16, cols=16, v_row=15, v_col=9, blayout="col_major", '
     'slayout=row_major, fractal=1024, pad=0',
     "acc, 16x16xf32, valid=15x9, blayout=col_major, slayout=row_major, fractal=1024"),
    ("loc=scaling, dtype=ui64, rows=1, cols=32, v_row=1, v_col=32, blayout=row_major, "
     "slayout=none_box, fractal=32, pad=3", "scaling, 1x32xui64, fractal=32, pad=3"),
])
def test_both_tile_buf_spellings_are_one_type(keyed, compact):
    def alloc(spelling):
        dyn = " valid_row = %c8 valid_col = %c8" if "?" in spelling else ""
        return ("module {\n  %c8 = arith.constant 8 : index\n"
                f"  %t = pto.alloc_tile{dyn} : !pto.tile_buf<{spelling}>\n}}\n")
    (t1,) = only(parse_module(alloc(keyed)), AllocTileOp).results
    (t2,) = only(parse_module(alloc(compact)), AllocTileOp).results
    assert t1.type == t2.type
    assert f"!pto.tile_buf<{compact}>" in print_module(parse_module(alloc(keyed)))
    # compact items in another order, defaults spelled out: the same type again
    items = compact.split(", ")
    defaults = ["slayout=none_box"] if "slayout" not in compact else []
    shuffled = ", ".join(items[:2] + items[:1:-1] + defaults)
    (t3,) = only(parse_module(alloc(shuffled)), AllocTileOp).results
    assert t3.type == t1.type


# --- type accessors -------------------------------------------------------------------------
def test_tile_info():
    module = parse_module(DYNAMIC)
    t, u, w = (op.result.type for op in ops_of(module, AllocTileOp))
    assert tile_info(t) == {
        "tile_type": "Vec", "dtype": "f32", "rows": 8, "cols": 128, "valid": (None, None),
        "blayout": "RowMajor", "slayout": "NoneBox", "fractal": 512, "pad": "Null",
        "compact": "Null", "loc": "vec", "space": "ub"}
    assert tile_info(u)["valid"] == (None, 128)
    assert (tile_info(w)["valid"], tile_info(w)["pad"], tile_info(w)["compact"]) == \
        ((8, None), "Min", "Normal")
    acc = TileBufType("acc", f32, 16, 32, blayout="col_major", slayout="row_major",
                      fractal=1024, pad=2)
    info = tile_info(acc)
    assert (info["tile_type"], info["blayout"], info["slayout"], info["fractal"], info["pad"],
            info["valid"], info["space"]) == ("Acc", "ColMajor", "RowMajor", 1024, "Max",
                                              (16, 32), "l0c")
    for loc, name in [("left", "Left"), ("right", "Right"), ("bias", "Bias"),
                      ("scaling", "Scaling"), ("mat", "Mat")]:
        assert tile_info(TileBufType(loc, f16, 16, 16))["tile_type"] == name
    assert tile_info(TileBufType("vec", f16, 16, 16, slayout="col_major"))["slayout"] == \
        "ColMajor"
    with pytest.raises(TypeError):
        tile_info(f32)


def test_tile_info_feeds_machine_tile():
    """The names tile_info returns are the ones `Machine.tile` takes."""
    m = ptosim.Machine(target="a5")
    for op in ops_of(parse_module(CUBE), AllocTileOp):
        info = tile_info(op.result.type)
        tile = m.tile(info["tile_type"], info["dtype"], info["rows"], info["cols"],
                      blayout=info["blayout"], slayout=info["slayout"],
                      fractal=info["fractal"], valid=info["valid"], pad=info["pad"])
        assert (tile.rows, tile.cols, tile.valid) == (info["rows"], info["cols"],
                                                      info["valid"])


def test_view_info():
    module = parse_module(DYNAMIC)
    xv, yv = ops_of(module, MakeTensorViewOp)
    assert view_info(xv.result.type) == ([None] * 5, "f32")
    assert view_info(yv.result.type) == ([None, 128], "f32")
    assert view_info(only(parse_module(CUBE), TStoreOp).dst.type) == ([16, 32], "f32")
    assert view_info(TensorViewType([1, None, 64], f16)) == ([1, None, 64], "f16")
    assert TensorViewType([4], f16) != PartitionTensorViewType([4], f16)
    assert PartitionTensorViewType([4, 8], f16) != PartitionTensorViewType([4, 16], f16)
    with pytest.raises(TypeError):
        view_info(TileBufType("vec", f16, 16, 16))


def test_word_attributes_compare_by_value():
    assert LayoutAttr("nd") != LayoutAttr("nz") and LayoutAttr("nd") == LayoutAttr("nd")
    assert PipeAttr("PIPE_S") != PipeAttr("PIPE_V")


def test_built_types_are_verified():
    with pytest.raises(VerifyException):
        TileBufType("vec", f32, 16, 16, valid=(17, 16))
    with pytest.raises(VerifyException):
        TileBufType("ub", f32, 16, 16)
    with pytest.raises(VerifyException):
        TileBufType("vec", f32, 16, 16, fractal=64)
    with pytest.raises(VerifyException):
        TensorViewType([1, 2, 3, 4, 5, 6], f32)


# --- op accessors ----------------------------------------------------------------------------
def test_view_and_alloc_accessors():
    module = parse_module(VEC)
    into, out = ops_of(module, MakeTensorViewOp)
    assert into.ptr.name_hint == "src_ptr"
    assert names(into.shape_operands()) == ["c1", "c1", "c1", "c24", "c64"]
    assert names(into.stride_operands()) == ["c768", "c768", "c768", "c64", "c1"]
    assert (into.layout(), out.layout()) == (None, "ND")
    part = ops_of(module, PartitionViewOp)[0]
    assert part.source is into.result
    assert names(part.offset_operands()) == ["c0"] * 5
    assert names(part.size_operands()) == ["c1", "c1", "c1", "c24", "c60"]
    src, dst = ops_of(module, AllocTileOp)
    assert (src.addr().name_hint, src.valid_row(), src.valid_col()) == ("c0_i64", None, None)
    assert (dst.addr(), dst.valid_row(), dst.valid_col()) == (None, None, None)
    t, u, w = ops_of(parse_module(DYNAMIC), AllocTileOp)
    assert (t.addr(), t.valid_row().name_hint, t.valid_col().name_hint) == (None, "rows",
                                                                            "c128")
    assert (u.valid_row().name_hint, u.valid_col()) == ("rows", None)
    assert (w.valid_row(), w.valid_col().name_hint) == (None, "c128")
    addr = only(parse_module(CUBE), TileBufAddrOp)
    assert addr.tile.name_hint == "acc" and ptr_info(addr.result.type) == ("f32", "l0c")
    dyn_addr = only(parse_module(DYNAMIC), TileBufAddrOp)
    assert ptr_info(dyn_addr.result.type) == ("f32", "ub")


def test_layout_spellings():
    for word in ("nd", "dn", "nz"):
        text = VEC.replace("#pto.layout<nd>", f"#pto.layout<{word}>")
        assert ops_of(roundtrip(text)[0], MakeTensorViewOp)[1].layout() == word.upper()


EXPECTED_CALLS = {
    TLoadOp: ("TLOAD", [["a_mat", "a_part"], ["b_mat", "b_part"], ["bias_mat", "bias_part"]]),
    TStoreOp: ("TSTORE", [["c_part", "acc"]]),
    TMovOp: ("TMOV", [["bias", "bias_mat"], ["right", "b_half"], ["right", "b_half"]]),
    TExtractOp: ("TEXTRACT", [["left", "a_mat", "c0", "c0"], ["b_half", "b_mat", "c0", "c0"],
                              ["left", "a_mat", "c0", "c16"],
                              ["b_half", "b_mat", "c16", "c0"]]),
    TMatmulBiasOp: ("TMATMUL_BIAS", [["acc", "left", "right", "bias"]]),
    TMatmulAccOp: ("TMATMUL_ACC", [["acc", "left", "right"]]),
    TMatmulOp: ("TMATMUL", [["acc", "left", "right"]]),
    TInsertOp: ("TINSERT", [["a_mat", "left", "c0", "c16"]]),
}


@pytest.mark.parametrize("cls", list(EXPECTED_CALLS), ids=lambda c: c.name)
def test_tile_call_is_in_machine_order(cls):
    method, calls = EXPECTED_CALLS[cls]
    ops = ops_of(parse_module(CUBE), cls)
    assert cls.SPEC.method == method
    for op, expected in zip(ops, calls, strict=True):
        pos, kw = op.tile_call()
        # a .pto tload runs PTOAS's template: the view's extent (docs/semantics.md)
        assert all(isinstance(v, SSAValue) for v in pos)
        assert kw == ({"extent": "view"} if cls is TLoadOp else {})
        assert names(pos) == expected


def test_fillpad_calls_and_modes():
    ops = [op for text in (VEC, DYNAMIC) for op in parse_module(text).walk()
           if isinstance(op, (TFillPadOp, TFillPadExpandOp, TFillPadInplaceOp))]
    got = [(op.SPEC.method, op.FILL_MODE, names(op.tile_call()[0])) for op in ops]
    assert got == [("TFILLPAD", "plain", ["dst", "src"]), ("TFILLPAD", "inplace", ["dst", "dst"]),
                   ("TFILLPAD", "expand", ["u", "t"])]
    assert all(op.tile_call()[1] == {"mode": op.FILL_MODE, "ptoas": True} for op in ops)


def test_tmatmul_acc_keeps_its_input_accumulator():
    op = only(parse_module(CUBE), TMatmulAccOp)
    assert op.acc_in is op.dst and names([op.acc_in, op.lhs, op.rhs]) == ["acc", "left", "right"]
    text = CUBE.replace("ins(%acc, %left, %right", "ins(%acc2, %left, %right").replace(
        "    %a_mat = pto.alloc_tile", "    %acc2 = pto.alloc_tile : !pto.tile_buf<acc, "
        "16x32xf32, blayout=col_major, slayout=row_major, fractal=1024>\n"
        "    %a_mat = pto.alloc_tile")
    op = only(roundtrip(text)[0], TMatmulAccOp)
    assert op.acc_in.name_hint == "acc2" and names(op.tile_call()[0]) == ["acc", "left", "right"]


def test_every_tile_method_is_a_machine_method():
    machine = ptosim.Machine()
    for cls in TILE_OPS:
        assert callable(getattr(machine, cls.SPEC.method))
        assert cls.CALL[0] == cls.SLOTS[-1][0]     # the outs(...) operand comes first


# --- diagnostics ---------------------------------------------------------------------------
def at(text: str, needle: str, occurrence: int = 1, offset: int = 0, start: int = 0) -> str:
    """``line:col`` of the ``occurrence``-th ``needle`` at or after ``start``."""
    pos = start - 1
    for _ in range(occurrence):
        pos = text.index(needle, pos + 1)
    pos += offset
    return f"{text.count(chr(10), 0, pos) + 1}:{pos - text.rfind(chr(10), 0, pos)}"


def error(text: str) -> PtoSyntaxError:
    with pytest.raises(PtoSyntaxError) as info:
        parse_module(text, "tile.pto")
    return info.value


def edited(text: str, old: str, new: str, count: int = 1) -> str:
    assert old in text, old
    return text.replace(old, new, count)


# (kernel, old, new, needle the error points at (searched from the edit), occurrence, message)
DIAGNOSTICS = [
    # malformed tile_buf
    (VEC, "<vec, 32x64xf32, pad=2>", "<vec, 32x64, pad=2>", ", pad=2>", 1,
     "expected ROWSxCOLSxTYPE"),
    (VEC, "<vec, 32x64xf32, pad=2>", "<vec, 32x64xf32, pad=2, pad=1>", "pad=1>", 1,
     "'pad' given twice"),
    (VEC, "<vec, 32x64xf32, pad=2>", "<vec, 32x64xf32, pad=4>", "4>", 1, "pad"),
    (VEC, "<vec, 32x64xf32, pad=2>", "<vec, 32x64xf32, valid=24x65, pad=2>", "24x65", 1,
     "valid col count 65 exceeds the 64 physical cols"),
    (VEC, "<vec, 32x64xf32, pad=2>", "<vec, 32x64xf32, fractal=256, pad=2>", "256", 1,
     "fractal must be one of 512, 1024, 32"),
    (VEC, "<vec, 32x64xf32, pad=2>", "<vec, 32x64xf32, tiling=2>", "tiling", 1,
     "unknown key 'tiling'"),
    (VEC, "<vec, 32x64xf32, pad=2>", "<vec, 32x64xf32, blayout=zig_zag>", "zig_zag", 1,
     "unknown blayout 'zig_zag'"),
    (VEC, "<vec, 32x64xf32, pad=2>", "<vec, 16x16x16xf32>", "16x16x16", 1,
     "two static dims"),
    (VEC, "v_row=24, v_col=60,", "v_row=24, v_col=60, pad=1,", "pad=1,", 1,
     "expected 'blayout='"),
    (VEC, "cols=64, v_row=24", "cols=64, v_row=33", "33", 1,
     "valid row count 33 exceeds the 32 physical rows"),
    # unknown loc
    (VEC, "<vec, 32x64xf32, pad=2>", "<ub, 32x64xf32, pad=2>", "ub, 32x64", 1,
     "unknown loc 'ub'"),
    (VEC, "<loc=vec, dtype=f32", "<loc=l0a, dtype=f32", "l0a", 1, "unknown loc 'l0a'"),
    # type-list mismatches
    (VEC, "ins(%in_part : !pto.partition_tensor_view<1x1x1x24x60xf32>)",
     "ins(%in_part : !pto.partition_tensor_view<1x1x1x24x64xf32>)", "%in_part :", 1,
     "in_part has type !pto.partition_tensor_view<1x1x1x24x60xf32>"),
    (VEC, "outs(%dst : !pto.tile_buf<vec, 32x64xf32, pad=2>)\n    pto.tfillpad_inplace",
     "outs(%dst : !pto.tile_buf<vec, 32x64xf32, pad=1>)\n    pto.tfillpad_inplace", "%dst :",
     1, "dst is typed !pto.tile_buf<vec, 32x64xf32, pad=1> in the type list but %dst"),
    (VEC, "ins(%in_part : !pto.partition_tensor_view<1x1x1x24x60xf32>)",
     "ins(%in_part : !pto.tile_buf<vec, 32x64xf32, pad=2>)", "!pto.tile_buf",
     1, "src must be a !pto.partition_tensor_view"),
    (VEC, "ins(%dst : !pto.tile_buf<vec, 32x64xf32, pad=2>)\n",
     "ins(%dst : !pto.tile_buf<vec, 32x64xf32, pad=2>, index)\n", ", index", 1,
     "ins(...) has more types than operands"),
    (CUBE, "%left, %right : !pto.tile_buf<left, 16x16xf16, blayout=col_major, slayout=row_major>,\n"
     "                    !pto.tile_buf<right", "%left, %right : !pto.tile_buf<left, 16x16xf16, "
     "blayout=col_major, slayout=row_major>)\n (", ")\n (", 1,
     "expected ',' in the type list (fewer types than operands)"),
    (CUBE, "ins(%bias_mat : !pto.tile_buf<mat, 1x32xf32>) outs(%bias",
     "ins(%bias_mat, %bias_mat : !pto.tile_buf<mat, 1x32xf32>) outs(%bias", ", %bias_mat :", 1,
     "Expected ':' before the ins(...) types of pto.tmov"),
    (CUBE, "%acc_ptr = pto.tile_buf_addr %acc\n      : !pto.tile_buf<acc",
     "%acc_ptr = pto.tile_buf_addr %left\n      : !pto.tile_buf<acc", "%left\n", 1,
     "tile is typed"),
    # roles, shapes and clauses
    (CUBE, "pto.tmatmul ins(%left, %right", "pto.tmatmul ins(%right, %left", "%right, %left", 1,
     "lhs is typed"),
    (CUBE, "-> !pto.ptr<f32, acc>", "-> !pto.ptr<f32, ub>", "!pto.ptr<f32, ub>", 1,
     "must point to f32 in l0c"),
    (VEC, "%dst = pto.alloc_tile : !pto.tile_buf<vec, 32x64xf32, pad=2>",
     "%dst = pto.alloc_tile : !pto.tile_buf<vec, 32x64xf32, valid=?x64, pad=2>",
     "!pto.tile_buf<vec, 32x64xf32, valid=?x64", 1, "needs 'valid_row = %value'"),
    (VEC, "%src = pto.alloc_tile addr = %c0_i64", "%src = pto.alloc_tile valid_col = %c60",
     "%c60", 1, "valid_col is given but the tile's valid_col is static (60)"),
    (VEC, "%src = pto.alloc_tile addr = %c0_i64", "%src = pto.alloc_tile addr = %c0_i64 :",
     ": !pto", 1, "type expected"),
    (VEC, "shape = [%c1, %c1, %c1, %c24, %c64],", "shape = [%c1, %c1, %c24, %c64],",
     "[%c1, %c1, %c24", 1, "shape has 4 operands but the view has rank 5"),
    (VEC, "shape = [%c1, %c1, %c1, %c24, %c64],", "shape = [%c1, %c1, %c1, %c32, %c64],",
     "%c32, %c64],", 1, "shape[3] is 32 but the type's dim 3 is 24"),
    (VEC, "%in = pto.make_tensor_view %src_ptr", "%in = pto.make_tensor_view %c0_i64",
     "%c0_i64,", 1, "the source must be a !pto.ptr"),
    (CUBE, "make_tensor_view %b_ptr", "make_tensor_view %bias_ptr", "%bias_ptr,", 1,
     "GM pointer to f16"),
    (VEC, "strides = [%c2048, %c2048, %c2048, %c64, %c1] {layout = #pto.layout<nd>}",
     "strides = [%c2048, %c2048, %c2048, %c64, %c1] {layout = #pto.layout<zn>}", "zn>", 1,
     "expected a GM layout"),
    (VEC, "offsets = [%c0, %c0, %c0, %c0, %c0],\n      sizes = [%c1, %c1, %c1, %c32, %c64]",
     "offsets = [%c0, %c0, %c0, %c24, %c0],\n      sizes = [%c1, %c1, %c1, %c32, %c64]",
     "%c32, %c64]", 1, "offsets[3] + sizes[3] = 56 exceeds the source dim 32"),
    (VEC, "sizes = [%c1, %c1, %c1, %c24, %c60]", "sizes = [%c1, %c1, %c1, %c24, %c64]",
     "%c64]", 1, "sizes[4] is 64 but the result's dim 4 is 60"),
    (VEC, "sizes = [%c1, %c1, %c1, %c24, %c60]\n", "sizes = [%c1, %c1, %c1, %c24]\n",
     "[%c1, %c1, %c1, %c24]", 1, "sizes has 4 operands but the view has rank 5"),
    (VEC, "-> !pto.partition_tensor_view<1x1x1x24x60xf32>",
     "-> !pto.partition_tensor_view<24x60xf32>",
     "!pto.partition_tensor_view<24x60xf32>", 1,
     "the result must be a rank-5 !pto.partition_tensor_view of f32"),
    (VEC, "!pto.tensor_view<1x1x1x24x64xf32>\n", "!pto.tensor_view<1x1x1x1x1x24x64xf32>\n",
     "1x1x1x1x1x24", 1, "expected 1 to 5 dims"),
    (VEC, "outs(%out_part : !pto.partition_tensor_view<1x1x1x32x64xf32>)",
     "outs(%out_part : !pto.partition_tensor_view<1x1x1x32x64xf32>) {atomic}", "{atomic}", 1,
     "pto.tstore: unsupported attribute 'atomic' (known: atomicType = "
     "#pto.atomic_type<...>, reluPreMode = #pto.relu_pre_mode<...>, layout = #pto.layout<...>, "
     "stPhase = #pto.st_phase<...>)"),
    (VEC, "outs(%out_part : !pto.partition_tensor_view<1x1x1x32x64xf32>)",
     "outs(%out_part : !pto.partition_tensor_view<1x1x1x32x64xf32>) {atomicType = "
     "#pto<atomic_type atomic_sub>}", "atomic_sub", 1, "expected an atomic type"),
]


@pytest.mark.parametrize("kernel, old, new, needle, occurrence, message", DIAGNOSTICS,
                         ids=[f"{i}-{d[-1][:30]}" for i, d in enumerate(DIAGNOSTICS)])
def test_diagnostics_point_at_the_token(kernel, old, new, needle, occurrence, message):
    text = edited(kernel, old, new)
    err = error(text)
    assert message in str(err)
    where = at(text, needle, occurrence, start=text.index(new))   # needles count from the edit
    assert err.loc == f"tile.pto:{where}", str(err)


def test_required_diagnostics_exact():
    """The three the issue names, with literal locations."""
    bad_buf = edited(VEC, "%dst = pto.alloc_tile : !pto.tile_buf<vec, 32x64xf32, pad=2>",
                     "%dst = pto.alloc_tile : !pto.tile_buf<vec, 32x64xf32, valid=24, pad=2>")
    err = error(bad_buf)
    assert (err.loc, "valid is VROWSxVCOLS" in str(err)) == ("tile.pto:31:65", True)
    bad_loc = edited(VEC, "%dst = pto.alloc_tile : !pto.tile_buf<vec,",
                     "%dst = pto.alloc_tile : !pto.tile_buf<gm,")
    err = error(bad_loc)
    assert err.loc == "tile.pto:31:43" and "unknown loc 'gm'" in str(err)
    mismatch = edited(VEC, "pto.tstore ins(%dst :", "pto.tstore ins(%src :")
    err = error(mismatch)
    assert err.loc == "tile.pto:38:20"
    assert "src is typed !pto.tile_buf<vec, 32x64xf32, pad=2> in the type list but %src " \
        "has type !pto.tile_buf<vec, 32x64xf32, valid=24x60, pad=1>" in str(err)


def test_malformed_inputs_raise_only_syntax_errors():
    fragments = ["!pto.tile_buf<", "!pto.tile_buf<vec", "!pto.tile_buf<vec,>",
                 "!pto.tile_buf<loc=>", "!pto.tile_buf<vec, 99999999999999x1xf32>",
                 "!pto.tile_buf<vec, 16x16xf32, valid=-1x4>", "!pto.tensor_view<>",
                 "!pto.tensor_view<?x?>", "!pto.partition_tensor_view<4x!pto.hif8",
                 "!pto.tile_buf<vec, 16x16xi128>", "!pto.tile_buf<loc=vec, dtype=f32, rows=0>"]
    for fragment in fragments:
        text = f"module {{\n  %t = pto.alloc_tile : {fragment}\n}}\n"
        with pytest.raises(PtoSyntaxError) as info:
            parse_module(text, "f.pto")
        assert info.value.loc.startswith("f.pto:"), (fragment, str(info.value))


@pytest.mark.parametrize("word, mode", [("single_mode_vec1", "SingleModeVec1"),
                                        ("dual_mode_split_m", "DualModeSplitM"),
                                        ("dual_mode_split_n", "DualModeSplitN")])
def test_tmov_acc_to_vec_mode_attribute(word, mode):
    """`{accToVecMode = #pto<acc_to_vec_mode ...>}` round-trips (printed dotted) and reaches
    TMOV as mode=<the C++ enum name>, with reluPreMode as FIXPIPE's normal_relu."""
    acc = "!pto.tile_buf<acc, 16x16xf32, blayout=col_major, slayout=row_major, fractal=1024>"
    vec = "!pto.tile_buf<vec, 16x16xf32>"
    text = f"""module {{
  func.func @k() {{
    %a = pto.alloc_tile : {acc}
    %v = pto.alloc_tile : {vec}
    pto.tmov ins(%a : {acc}) outs(%v : {vec}) {{accToVecMode = #pto<acc_to_vec_mode {word}>,
      reluPreMode = #pto<relu_pre_mode normal_relu>}}
    return
  }}
}}
"""
    module, printed = roundtrip(text)
    assert f"#pto.acc_to_vec_mode<{word}>" in printed
    op = only(module, TileOp)
    _, kw = op.tile_call()
    assert kw == {"mode": mode, "pre_relu": (None, "normal_relu")}
