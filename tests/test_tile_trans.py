"""TTRANS (2-D): dst[j, i] = src[i, j] over src's valid region, against numpy's transpose,
in the Python face and as a .pto op; every rule refuses with its message."""

import numpy as np
import pytest

import ptosim
from ptosim.errors import DtypeError, VerifyError
from ptosim.kernel import Kernel

SENTINEL = 0x5A


def machine():
    return ptosim.Machine(target="a5")


@pytest.mark.parametrize("src_t, dst_t, shape, valid", [
    ("f32", "f32", (16, 32), (10, 20)), ("i16", "i16", (32, 64), (32, 48)),
    ("i8", "ui8", (32, 64), (17, 33)), ("bf16", "bf16", (16, 16), (16, 16)),
    ("f32", "i32", (8, 8), (8, 8))])
def test_transpose_against_numpy(src_t, dst_t, shape, valid):
    m = machine()
    rows, cols = shape
    vr, vc = valid
    src = m.tile("Vec", src_t, rows, cols, valid=valid)
    es = src.dtype.size
    dst_cols = max(rows, 32 // es)
    dst = m.tile("Vec", dst_t, cols, dst_cols)
    tmp = m.tile("Vec", src_t, cols, dst_cols)
    raw = np.random.default_rng(3).integers(0, 256, rows * cols * es, dtype=np.uint8)
    m.write(src.ptr.cast("ui8"), raw)
    m.write(dst.ptr.cast("ui8"), np.full(dst.nbytes, SENTINEL, np.uint8))
    m.TTRANS(dst, src, tmp)
    bits = np.dtype(f"u{es}")
    x = raw.view(bits).reshape(rows, cols)
    got = m.read(dst.ptr.cast("ui8"), dst.nbytes).view(bits).reshape(cols, dst_cols)
    np.testing.assert_array_equal(got[:vc, :vr], x[:vr, :vc].T)      # bits as they are
    untouched = np.ones(got.shape, bool)
    untouched[:vc, :vr] = False
    assert (got.view(np.uint8).reshape(cols, -1)[untouched.repeat(es, axis=1)] ==
            SENTINEL).all()


@pytest.mark.parametrize("make, error, message", [
    (lambda m: (m.tile("Vec", "f32", 8, 8), m.tile("Vec", "f16", 8, 16)), DtypeError,
     "dst is f16 but the sources are f32|dst elements are 2 B but src's are 4 B"),
    (lambda m: (m.tile("Vec", "f32", 8, 16), m.tile("Vec", "f32", 8, 8)), VerifyError,
     r"dst \(8x8\) cannot hold the 16x8 transpose of src's valid region"),
    (lambda m: (m.tile("Vec", "i64", 8, 8), m.tile("Vec", "i64", 8, 8)), DtypeError,
     "src element type must be one of .* got i64")])
def test_rules(make, error, message):
    m = machine()
    src, dst = make(m)
    with pytest.raises(error, match=message):
        m.TTRANS(dst, src, m.tile("Vec", "f32", 8, 8))


KERNEL = """module attributes {pto.target_arch = "a5", pto.kernel_kind = #pto.kernel_kind<vector>} {
  func.func @t(%x: !pto.ptr<f32, gm>, %y: !pto.ptr<f32, gm>) attributes {pto.aicore} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %xv = pto.make_tensor_view %x, shape = [%c8, %c16], strides = [%c16, %c1]
      : !pto.tensor_view<8x16xf32>
    %yv = pto.make_tensor_view %y, shape = [%c16, %c8], strides = [%c8, %c1]
      : !pto.tensor_view<16x8xf32>
    %a = pto.alloc_tile : !pto.tile_buf<vec, 8x16xf32>
    %b = pto.alloc_tile : !pto.tile_buf<vec, 16x8xf32>
    %s = pto.alloc_tile : !pto.tile_buf<vec, 16x8xf32>
    pto.tload ins(%xv : !pto.tensor_view<8x16xf32>) outs(%a : !pto.tile_buf<vec, 8x16xf32>)
    pto.set_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]
    pto.wait_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]
    pto.ttrans ins(%a, %s : !pto.tile_buf<vec, 8x16xf32>, !pto.tile_buf<vec, 16x8xf32>)
      outs(%b : !pto.tile_buf<vec, 16x8xf32>)
    pto.set_flag["PIPE_V", "PIPE_MTE3", "EVENT_ID0"]
    pto.wait_flag["PIPE_V", "PIPE_MTE3", "EVENT_ID0"]
    pto.tstore ins(%b : !pto.tile_buf<vec, 16x8xf32>) outs(%yv : !pto.tensor_view<16x8xf32>)
    return
  }
}
"""


def test_ttrans_in_a_kernel():
    x = np.arange(128, dtype=np.float32).reshape(8, 16)
    res = Kernel.from_text(KERNEL).run({"x": x, "y": np.zeros(128, np.float32)})
    np.testing.assert_array_equal(res.outputs["y"].reshape(16, 8), x.T)
    assert not res.findings


def test_a5_needs_whole_32_byte_rows():
    """A5 TTrans.hpp: Cols x sizeof a multiple of 32 on both sides (only a .pto tile can
    break it: the Python face's ND rule already refuses such tiles)."""
    m = machine()
    narrow = m._new_tile("Vec", "f32", 8, 4, None, None, None, None, "Null", None, 0,
                         row_align=False)
    dst = m.tile("Vec", "f32", 8, 8)
    with pytest.raises(VerifyError, match=r"a5 transposes tiles whose rows are whole 32-byte "
                                          r"blocks: src 4 x 4 B, dst 8 x 4 B"):
        m.TTRANS(dst, narrow, dst)
