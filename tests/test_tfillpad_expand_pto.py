"""`.pto` tfillpad_expand (and the tfillpad family's static rules): PTOAS's shapes end to
end against independent goldens (its ST case shape, 259x7 in a 260-row tile; dynamic valid
regions; rows only / columns only), PTOAS's verifier rules where the text is read
(``verifyTFillPadLike``), and a5's unsigned bottom-row count (a dst with fewer valid rows
than src is refused there, a2a3 fills no bottom row)."""

import numpy as np
import pytest

import ptosim
from ptosim.errors import NotImplementedOpError, PtoSyntaxError, VerifyError
from ptosim.kernel import Kernel
from tile_helpers import NP

NP = {**NP, "ui16": np.uint16}


def _tile(dt, rows, cols, vr, vc, pad, loc="vec", bl="row_major", sl="none_box"):
    return (f"!pto.tile_buf<loc={loc}, dtype={dt}, rows={rows}, cols={cols}, v_row={vr}, "
            f"v_col={vc}, blayout={bl}, slayout={sl}, fractal=512, pad={pad}>")


def _kernel(target, dt, src, dst, view, dyn=""):
    """tload a [vr, vc] view into src, tfillpad_expand into dst, store dst's whole rows x
    cols through a view. ``dyn``: alloc_tile operands for a ``?`` valid dim of src."""
    (vr, vc), (dr, dc) = view, (dst[0], dst[1])
    s_t, d_t = _tile(dt, *src), _tile(dt, *dst)
    ins = sorted({vr, vc, dr, dc})
    consts = "\n    ".join(f"%k{n} = arith.constant {n} : index" for n in ins)
    return f"""module attributes {{pto.target_arch = "{target}",
    pto.kernel_kind = #pto.kernel_kind<vector>}} {{
  func.func @k(%x: !pto.ptr<{dt}, gm>, %y: !pto.ptr<{dt}, gm>) attributes {{pto.aicore}} {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    {consts}
    %xv = pto.make_tensor_view %x, shape = [%k{vr}, %k{vc}], strides = [%k{vc}, %c1]
      : !pto.tensor_view<{vr}x{vc}x{dt}>
    %yv = pto.make_tensor_view %y, shape = [%k{dr}, %k{dc}], strides = [%k{dc}, %c1]
      : !pto.tensor_view<{dr}x{dc}x{dt}>
    %s = pto.alloc_tile {dyn}: {s_t}
    %d = pto.alloc_tile : {d_t}
    pto.tload ins(%xv : !pto.tensor_view<{vr}x{vc}x{dt}>) outs(%s : {s_t})
    pto.set_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]
    pto.wait_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]
    pto.tfillpad_expand ins(%s : {s_t}) outs(%d : {d_t})
    pto.set_flag["PIPE_V", "PIPE_MTE3", "EVENT_ID0"]
    pto.wait_flag["PIPE_V", "PIPE_MTE3", "EVENT_ID0"]
    pto.tstore ins(%d : {d_t}) outs(%yv : !pto.tensor_view<{dr}x{dc}x{dt}>)
    return
  }}
}}
"""


def _fill(dt, pad):
    """A `.pto` pad's value: Zero 0, Max / Min the largest finite / the integer extremes."""
    info = np.finfo(NP[dt]) if dt.startswith("f") else np.iinfo(NP[dt])
    return {1: 0, 2: info.max, 3: -info.max if dt.startswith("f") else info.min}[pad]


def _golden(data, dst_shape, fill):
    """PTOAS's ST golden for a fully valid dst: src's valid data, then the fill over the
    rest of dst."""
    out = np.full(dst_shape, fill, data.dtype)
    out[:data.shape[0], :data.shape[1]] = data
    return out


@pytest.mark.parametrize("target", ["a5", "a2a3"])
@pytest.mark.parametrize("dt,src,dst", [
    ("ui16", (260, 32, 259, 7, 3), (260, 32, 260, 32, 2)),      # the ST's case 8 shape
    ("i8", (260, 64, 259, 7, 3), (260, 64, 260, 64, 2)),        # case 9
    ("f32", (8, 32, 8, 32, 0), (16, 64, 16, 64, 2)),            # PTOAS's vpto lit test shape
    ("f32", (8, 16, 5, 11, 0), (16, 16, 16, 16, 3)),            # rows only, partial src
    ("i16", (4, 16, 4, 13, 0), (4, 48, 4, 48, 1)),              # columns only
    ("i32", (8, 8, 6, 8, 1), (8, 8, 8, 8, 3)),                  # one shape, fewer valid rows
])
def test_expand_shapes_match_the_st_golden(target, dt, src, dst):
    rng = np.random.default_rng(src[2] * 31 + dst[1])
    data = rng.integers(1, 10, (src[2], src[3])).astype(NP[dt])
    text = _kernel(target, dt, src, dst, (src[2], src[3]))
    res = Kernel.from_text(text, "k.pto").run({"x": data, "y": np.zeros(dst[:2], NP[dt])})
    assert res.findings == []
    np.testing.assert_array_equal(res.outputs["y"], _golden(data, dst[:2], _fill(dt, dst[4])))


@pytest.mark.parametrize("target", ["a5", "a2a3"])
def test_dynamic_src_valid_region(target):
    """``valid=?x?`` src (alloc_tile valid_row / valid_col), as PTOAS's kernels size it at
    run time."""
    dt, vr, vc = "f32", 5, 20
    data = np.arange(vr * vc, dtype=np.float32).reshape(vr, vc)
    text = _kernel(target, dt, (8, 32, "?", "?", 0), (16, 64, 16, 64, 3), (vr, vc),
                   dyn=f"valid_row = %k{vr} valid_col = %k{vc} ")
    res = Kernel.from_text(text, "k.pto").run({"x": data, "y": np.zeros((16, 64), np.float32)})
    assert res.findings == []
    np.testing.assert_array_equal(res.outputs["y"], _golden(data, (16, 64), _fill(dt, 3)))


# --- a dst with fewer valid rows than src ------------------------------------------------------
def _fewer_rows(target):
    m = ptosim.Machine(target=target)
    src = m.tile("Vec", "f32", 8, 16, valid=(8, 16), pad="Zero")
    dst = m.tile("Vec", "f32", 8, 32, valid=(4, 32), pad="Max")
    m.write(src.ptr, np.arange(128, dtype=np.float32))
    m.write(dst.ptr, np.full(256, 7, np.float32))
    m.TFILLPAD(dst, src, mode="expand")
    return m.read(dst.ptr, 256).reshape(8, 32)


def test_a5_refuses_fewer_dst_valid_rows():
    with pytest.raises(VerifyError, match="TFILLPAD: dst has 4 valid rows, fewer than src's 8: "
                                          "a5 counts the bottom pad rows as the unsigned "
                                          "difference, which wraps into a fill far past the "
                                          "tile"):
        _fewer_rows("a5")


def test_a2a3_fills_no_bottom_row_for_fewer_dst_valid_rows():
    """a2a3's PadBottomRows returns on a negative count; src's 8 valid rows are still copied
    and padded on the right (rows are copied whole, the pad from align(16, 8) = 16)."""
    got = _fewer_rows("a2a3")
    want = np.full((8, 32), np.inf, np.float32)
    want[:, :16] = np.arange(128, dtype=np.float32).reshape(8, 16)
    np.testing.assert_array_equal(got, want)


# --- PTOAS's static rules, where the text is read ----------------------------------------------
def _op_only(op, src_t, dst_t):
    return f"""module {{
  func.func @k() attributes {{pto.aicore}} {{
    %s = pto.alloc_tile : {src_t}
    %d = pto.alloc_tile : {dst_t}
    {op} ins(%s : {src_t}) outs(%d : {dst_t})
    return
  }}
}}
"""


@pytest.mark.parametrize("op,src_t,dst_t,msg", [
    ("pto.tfillpad_expand", _tile("f32", 8, 32, 8, 32, 0), _tile("f32", 16, 64, 16, 64, 0),
     r"pto.tfillpad_expand: dst's pad must not be null \(pad=0\): it is the fill value of "
     r"pto.tfillpad_expand"),
    ("pto.tfillpad_expand", _tile("f32", 8, 32, 8, 32, 0), _tile("i16", 16, 64, 16, 64, 1),
     r"pto.tfillpad_expand: src and dst element sizes differ \(f32: 4 B, i16: 2 B\)"),
    ("pto.tfillpad_expand", _tile("i64", 8, 8, 8, 8, 0), _tile("i64", 16, 8, 16, 8, 1),
     r"pto.tfillpad_expand: the element size must be 1, 2 or 4 bytes, got 8 \(i64\)"),
    ("pto.tfillpad_expand", _tile("f32", 8, 64, 8, 64, 0), _tile("f32", 16, 32, 16, 32, 1),
     r"pto.tfillpad_expand: dst's static shape 16x32 must be at least src's 8x64 in both "
     r"dims"),
    ("pto.tfillpad", _tile("f32", 8, 32, 8, 32, 0), _tile("f32", 16, 32, 16, 32, 1),
     r"pto.tfillpad: src \(8x32\) and dst \(16x32\) must have one static shape "
     r"\(tfillpad_expand may grow it\)"),
    ("pto.tfillpad_inplace", _tile("f32", 8, 32, 8, 16, 0), _tile("f32", 8, 64, 8, 64, 1),
     r"pto.tfillpad_inplace: src \(8x32\) and dst \(8x64\) must have one static shape"),
    # PTOAS test/lit/pto/issue546_tfillpad_mat_mismatch_diag.pto's pair
    ("pto.tfillpad", _tile("bf16", 16, 64, "?", "?", 0, "mat", "col_major", "row_major"),
     _tile("bf16", 16, 64, 16, 64, 1, "mat", "col_major", "row_major"),
     r"pto.tfillpad: a mat tfillpad needs src and dst of one tile type"),
])
def test_static_rules(op, src_t, dst_t, msg):
    text = _op_only(op, src_t, dst_t)
    if "v_row=?" in src_t:
        text = text.replace("%s = pto.alloc_tile :", "%c = arith.constant 8 : index\n"
                            "    %s = pto.alloc_tile valid_row = %c valid_col = %c :")
    with pytest.raises(PtoSyntaxError, match=msg):
        Kernel.from_text(text, "k.pto")


def test_col_major_vec_tiles_are_not_implemented():
    """PTOAS's verifier takes any layout, but neither pto-isa's Vec TFILLPAD nor PTOAS's
    template follows one (both step rows by Cols): refused where it runs."""
    text = _op_only("pto.tfillpad_expand", _tile("f32", 32, 8, 32, 8, 0, bl="col_major"),
                    _tile("f32", 64, 16, 64, 16, 1, bl="col_major"))
    with pytest.raises(NotImplementedOpError, match="TFILLPAD is implemented for Vec ND tiles "
                                                    "and an NZ Mat tile in place"):
        Kernel.from_text(text, "k.pto").run({}, target="a5")
