"""PTOAS's pad clauses on `pto.tload` (``pad_mode``, ``pad_value``, ``left_padding_num``,
``init_out_buffer``, ``right_padding_num``, ``init_condition``; PTOOps.td TLoadOp): they
parse, print back and change nothing, as PTOAS's lowering drops them (PTOViewToMemref
rebuilds the op from src and dst, PTOToEmitC emits TLOAD(dst, src), the TileLang template
pads from the dst tile's pad). The tile's pad fills the padding lanes (independent golden:
the rest of each row's last 32 B block), the bytes equal the kernel without the clauses,
and the run warns, located, which clauses were ignored."""

import numpy as np
import pytest

import ptosim
from ptosim.errors import PtoSyntaxError
from ptosim.kernel import Kernel

# .pto pads (PTOAS's PadValue.eval: +-the largest finite value for floats)
FILL = {1: lambda dt: 0, 2: lambda dt: np.finfo(dt).max, 3: lambda dt: -np.finfo(dt).max}
NAMES = {"f32": np.float32, "f16": np.float16}


def _kernel(target, dt, rows, cols, vcols, pad, clauses):
    tile = f"!pto.tile_buf<vec, {rows}x{cols}x{dt}, valid={rows}x{vcols}, pad={pad}>"
    nbytes = rows * cols * np.dtype(NAMES[dt]).itemsize
    return f"""module attributes {{pto.target_arch = "{target}",
    pto.kernel_kind = #pto.kernel_kind<vector>}} {{
  func.func @k(%src: !pto.ptr<{dt}, gm>, %dst: !pto.ptr<{dt}, gm>) attributes {{pto.aicore}} {{
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %cr = arith.constant {rows} : index
    %cv = arith.constant {vcols} : index
    %true = arith.constant true
    %pv = arith.constant 3.0 : {dt}
    %c1_i64 = arith.constant 1 : i64
    %cn = arith.constant {nbytes} : i64
    %in = pto.make_tensor_view %src, shape = [%cr, %cv], strides = [%cv, %c1]
      : !pto.tensor_view<{rows}x{vcols}x{dt}>
    %t = pto.alloc_tile : {tile}
    pto.tload ins(%in : !pto.tensor_view<{rows}x{vcols}x{dt}>) outs(%t : {tile}){clauses}
    pto.set_flag["PIPE_MTE2", "PIPE_MTE3", "EVENT_ID0"]
    pto.wait_flag["PIPE_MTE2", "PIPE_MTE3", "EVENT_ID0"]
    %p = pto.tile_buf_addr %t : {tile} -> !pto.ptr<{dt}, ub>
    pto.mte_ub_gm %p, %dst, %cn nburst(%c1_i64, %cn, %cn)
      : !pto.ptr<{dt}, ub>, !pto.ptr<{dt}, gm>, i64, i64, i64, i64
    return
  }}
}}
"""


ALL = (" pad_mode = #pto.padmode<PadValue> pad_value = %pv : {dt} left_padding_num = %c1 "
       ": index init_out_buffer = true right_padding_num = %c2 : index init_condition = "
       "%true : i1")


def _run(text, rows, cols, vcols, dt):
    src = (np.arange(rows * vcols) % 50).astype(NAMES[dt]).reshape(rows, vcols)
    res = Kernel.from_text(text, "k.pto").run(
        {"src": src, "dst": np.full((rows, cols), 7, NAMES[dt])})
    assert res.findings == []
    return src, res


@pytest.mark.parametrize("target", ["a5", "a2a3"])
@pytest.mark.parametrize("dt,rows,cols,vcols", [("f32", 4, 16, 13), ("f16", 3, 32, 21)])
@pytest.mark.parametrize("pad", [1, 2, 3])
def test_the_tile_pad_fills_not_pad_value(target, dt, rows, cols, vcols, pad):
    src, res = _run(_kernel(target, dt, rows, cols, vcols, pad, ALL.format(dt=dt)),
                    rows, cols, vcols, dt)
    out = res.outputs["dst"]
    np.testing.assert_array_equal(out[:, :vcols], src)
    lanes = 32 // np.dtype(NAMES[dt]).itemsize
    end = -(-vcols // lanes) * lanes              # the rest of the last 32 B block
    assert (out[:, vcols:end] == FILL[pad](NAMES[dt])).all()
    assert (out[:, vcols:end] != 3.0).all()       # never the op's pad_value
    _, plain = _run(_kernel(target, dt, rows, cols, vcols, pad, ""), rows, cols, vcols, dt)
    np.testing.assert_array_equal(out, plain.outputs["dst"])
    assert plain.warnings == []
    [w] = res.warnings
    assert w.loc is not None and w.loc.endswith(":15:5")
    assert w.message == (f"pto.tload: pad_mode = PadValue, init_out_buffer = true, pad_value, "
                         f"left_padding_num, right_padding_num, init_condition ignored, as "
                         f"PTOAS's lowering drops them (it emits TLOAD(dst, src)); dst's own "
                         f"pad ({['Null', 'Zero', 'Max', 'Min'][pad]}) fills its padding")


def test_no_warning_for_clauses_that_ask_for_nothing():
    """pad_mode = PadNull and init_out_buffer = false are what runs anyway."""
    text = _kernel("a5", "f32", 4, 16, 13, 1,
                   " {pad_mode = #pto.padmode<PadNull>} init_out_buffer = false")
    _, res = _run(text, 4, 16, 13, "f32")
    assert res.warnings == []


def test_clauses_print_back():
    text = _kernel("a5", "f32", 4, 16, 13, 2, ALL.format(dt="f32"))
    printed = str(Kernel.from_text(text, "k.pto").module)
    assert ("outs(%t : !pto.tile_buf<vec, 4x16xf32, valid=4x13, pad=2>) pad_mode = "
            "#pto.padmode<PadValue> pad_value = %pv : f32 left_padding_num = %c1 : index "
            "init_out_buffer = true right_padding_num = %c2 : index init_condition = %true : "
            "i1") in printed
    Kernel.from_text(printed, "again.pto")            # and parse again


@pytest.mark.parametrize("clauses,msg", [
    (" pad_mode = #pto.padmode<PadZero>", r"expected a pad mode \(one of PadNull, "
                                          r"PadFirstElem, PadValue\), got 'PadZero'"),
    (" pad_mode = 3", r"pto.tload: pad_mode must be #pto.padmode<PadNull\|PadFirstElem\|"
                      r"PadValue>, got 3 : i64"),
    (" init_out_buffer = 1", r"pto.tload: init_out_buffer must be true or false, got 1 : i64"),
    (" {init_out_buffer = 1 : i32}", r"pto.tload: init_out_buffer must be true or false, got "
                                     r"1 : i32"),
    (" {pad_mode = #pto.padmode<PadValue>} pad_mode = #pto.padmode<PadValue>",
     r"pto.tload: pad_mode is given twice"),
    (" pad_value = %in : !pto.tensor_view<4x13xf32>", r"pto.tload: pad_value must be an "
                                                      r"integer or float scalar"),
    (" left_padding_num = %pv : f32", r"pto.tload: left_padding_num must be an integer scalar"),
    (" pad_value = %pv : f16", r"pto.tload: pad_value is typed f16 in the type list but %pv "
                               r"has type f32"),
    (" {layoutx = 1}", r"pto.tload: unsupported attribute 'layoutx' \(known: pad_mode = "
                       r"#pto.padmode<...>, init_out_buffer = true\|false, layout = "
                       r"#pto.layout<...>\)"),
])
def test_malformed_clauses(clauses, msg):
    with pytest.raises(PtoSyntaxError, match=msg):
        Kernel.from_text(_kernel("a5", "f32", 4, 16, 13, 2, clauses), "k.pto")


# --- {layout = #pto.layout<...>} on tload / tstore: the layout of a memref operand's view ---
def _memref_kernel(load_attr: str, store_attr: str = "") -> str:
    mem = "memref<16x32xf32, #pto.address_space<gm>>"
    tile = "!pto.tile_buf<vec, 16x32xf32>"
    return f"""module attributes {{pto.target_arch = "a5"}} {{
  func.func @k(%x: {mem}, %y: {mem}) attributes {{pto.aicore,
      pto.kernel_kind = #pto.kernel_kind<vector>}} {{
    %t = pto.alloc_tile : {tile}
    pto.tload ins(%x : {mem}) outs(%t : {tile}){load_attr}
    pto.set_flag["PIPE_MTE2", "PIPE_MTE3", "EVENT_ID0"]
    pto.wait_flag["PIPE_MTE2", "PIPE_MTE3", "EVENT_ID0"]
    pto.tstore ins(%t : {tile}) outs(%y : {mem}){store_attr}
    return
  }}
}}
"""


def test_layout_attribute_sets_a_memref_views_layout():
    """PTOAS builds a memref operand's GlobalTensor with the op's layout attribute
    (PTOToEmitC resolveLayoutForGlobalTensor): nd round-trips; dn makes the view DN, which
    an ND Vec tile does not load (a5's Vec pairs are same-layout)."""
    x = np.arange(16 * 32, dtype=np.float32).reshape(16, 32)
    text = _memref_kernel(" {layout = #pto.layout<nd>}", " {layout = #pto.layout<nd>}")
    res = Kernel.from_text(text, "k.pto").run({"x": x, "y": np.zeros_like(x)})
    assert res.findings == []
    np.testing.assert_array_equal(res.outputs["y"], x)
    printed = str(Kernel.from_text(text, "k.pto").module)
    assert "outs(%t : !pto.tile_buf<vec, 16x32xf32>) {layout = #pto.layout<nd>}" in printed
    with pytest.raises(ptosim.PtoError, match="TLOAD: DN -> ND is not a Vec load on a5"):
        Kernel.from_text(_memref_kernel(" {layout = #pto.layout<dn>}"), "k.pto").run(
            {"x": x, "y": np.zeros_like(x)})
