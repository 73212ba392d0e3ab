"""Small `.pto` spellings PTOAS's lit kernels use: thistogram's legacy ``isMSB``, with the DN
one-column idx pto-isa's 16-bit histogram requires."""

import numpy as np
import pytest

import ptosim
from ptosim.errors import PtoSyntaxError, VerifyError
from ptosim.kernel import Kernel


def cum_hist(values):
    counts = np.zeros(256, np.int64)
    for v in values:
        counts[int(v)] += 1
    return np.cumsum(counts)


def hist_case(rows=4, cols=32, dn=True):
    m = ptosim.Machine(target="a5")
    rng = np.random.default_rng(5)
    x = rng.integers(0, 1 << 16, (rows, cols)).astype(np.uint16)
    x[:, :8] = (x[:, :8] & 0x00FF) | 0x0300                  # MSB 3 on a few lanes
    src = m.tile("Vec", "ui16", rows, cols)
    m.write(src.ptr, x.ravel())
    idx = m.tile("Vec", "ui8", 32, 1, blayout="ColMajor") if dn else m.tile("Vec", "ui8", 1, 32)
    m.write(idx.ptr, np.full(32, 3, np.uint8))
    dst = m.tile("Vec", "ui32", rows, 256)
    return m, x, src, idx, dst


@pytest.mark.parametrize("is_msb,byte", [(True, 1), (False, 0)])
def test_is_msb_names_byte_one_or_zero(is_msb, byte):
    """pto-isa a5 THistogram<..., isMSB>: true counts the high byte of each value, false the
    low byte of the values whose high byte equals the row's idx byte (here 3)."""
    m, x, src, idx, dst = hist_case()
    m.THISTOGRAM(dst, src, idx, is_msb=is_msb)
    got = m.read(dst.ptr, 4 * 256).reshape(4, 256)
    for r in range(4):
        if byte == 1:
            want = cum_hist([v >> 8 for v in x[r]])
        else:
            want = cum_hist([v & 0xFF for v in x[r] if v >> 8 == 3])
        np.testing.assert_array_equal(got[r], want)
    m2, _, src2, idx2, dst2 = hist_case()
    m2.THISTOGRAM(dst2, src2, idx2, byte=byte, is_msb=is_msb)      # agreeing: accepted
    np.testing.assert_array_equal(m2.read(dst2.ptr, 4 * 256).reshape(4, 256), got)


def test_conflicting_byte_and_is_msb_is_a_verify_error():
    m, _, src, idx, dst = hist_case()
    with pytest.raises(VerifyError, match="does not allow conflicting 'byte' and legacy "
                                          "'isMSB' attributes"):
        m.THISTOGRAM(dst, src, idx, byte=1, is_msb=False)


def test_dn_idx_is_the_u16_filter_column():
    m, _, src, idx, dst = hist_case(dn=True)
    m.THISTOGRAM(dst, src, idx, byte=0)
    m, _, src, idx, dst = hist_case(dn=False)      # pto-isa's static_assert: DN only
    with pytest.raises(VerifyError, match="ui16 data needs a DN idx tile of one column"):
        m.THISTOGRAM(dst, src, idx, byte=0)
    m = ptosim.Machine(target="a5")
    with pytest.raises(VerifyError, match="idx must be a row-major ND tile \\(or a DN tile of "
                                          "one column\\), got DN with 2 columns"):
        m.THISTOGRAM(m.tile("Vec", "ui32", 1, 256), m.tile("Vec", "ui16", 1, 16),
                     m.tile("Vec", "ui8", 32, 2, blayout="ColMajor"), byte=0)


SRC = ("!pto.tile_buf<loc=vec, dtype=ui16, rows=8, cols=32, v_row=8, v_col=32, "
       "blayout=row_major, slayout=none_box, fractal=512, pad=0>")
IDX = ("!pto.tile_buf<loc=vec, dtype=ui8, rows=8, cols=1, v_row=8, v_col=1, "
       "blayout=col_major, slayout=none_box, fractal=512, pad=0>")
DST = ("!pto.tile_buf<loc=vec, dtype=ui32, rows=8, cols=256, v_row=8, v_col=256, "
       "blayout=row_major, slayout=none_box, fractal=512, pad=0>")


def hist_text(attrs):
    return f"""
module {{
  func.func @h() {{
    %s = pto.alloc_tile : {SRC}
    %i = pto.alloc_tile : {IDX}
    %d = pto.alloc_tile : {DST}
    pto.thistogram ins(%s, %i : {SRC}, {IDX}) outs(%d : {DST}) {{{attrs}}}
    return
  }}
}}
"""


@pytest.mark.parametrize("attrs,kw", [
    ("isMSB = false", {"is_msb": False}), ("isMSB = true", {"is_msb": True}),
    ("byte = 0 : i32, isMSB = false", {"byte": 0, "is_msb": False}),
])
def test_pto_is_msb_loads_and_runs(attrs, kw):
    k = Kernel.from_text(hist_text(attrs))
    k.run({})
    op = next(o for o in k.module.walk() if o.name == "pto.thistogram")
    assert op.tile_call()[1] == kw


def test_pto_conflicting_is_msb_is_refused_at_load():
    with pytest.raises(PtoSyntaxError, match=r"pto\.thistogram: does not allow conflicting "
                                              r"'byte' and legacy 'isMSB' attributes"):
        Kernel.from_text(hist_text("byte = 1 : i32, isMSB = false"))


# --- tcvt's satmode -----------------------------------------------------------------------------
F32T = ("!pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=16, v_row=16, v_col=16, "
        "blayout=row_major, slayout=none_box, fractal=512, pad=0>")
I16T = ("!pto.tile_buf<loc=vec, dtype=i16, rows=16, cols=16, v_row=16, v_col=16, "
        "blayout=row_major, slayout=none_box, fractal=512, pad=0>")


def cvt_text(attrs):
    return f"""
module {{
  func.func @c() {{
    %s = pto.alloc_tile : {F32T}
    %d = pto.alloc_tile : {I16T}
    pto.tcvt ins(%s {{{attrs}}} : {F32T}) outs(%d : {I16T})
    return
  }}
}}
"""


@pytest.mark.parametrize("mode", ["ON", "OFF"])
def test_pto_tcvt_satmode_is_sat_mode(mode):
    """PTOAS prints and parses TCvtOp's sat_mode as ``satmode`` (TCvtOp::print / parse)."""
    calls = []
    for key in ("satmode", "sat_mode"):
        k = Kernel.from_text(cvt_text(f"rmode = #pto<round_mode TRUNC>, "
                                      f"{key} = #pto<saturation_mode {mode}>"))
        k.run({})
        calls.append(next(o for o in k.module.walk() if o.name == "pto.tcvt").tile_call()[1])
    assert calls[0] == calls[1]
    assert calls[0]["sat_mode"] == mode


def test_pto_tcvt_satmode_and_sat_mode_together_are_refused():
    with pytest.raises(PtoSyntaxError, match=r"pto\.tcvt: cannot specify both satmode and "
                                             "sat_mode"):
        Kernel.from_text(cvt_text("satmode = #pto<saturation_mode ON>, "
                                  "sat_mode = #pto<saturation_mode ON>"))


# --- tmov's generic form ------------------------------------------------------------------------
ACC = ("!pto.tile_buf<loc=acc, dtype=f32, rows=16, cols=16, v_row=16, v_col=16, "
       "blayout=col_major, slayout=row_major, fractal=1024, pad=0>")
MAT = ("!pto.tile_buf<loc=mat, dtype=f32, rows=16, cols=16, v_row=16, v_col=16, "
       "blayout=row_major, slayout=none_box, fractal=512, pad=0>")
MATQ = ("!pto.tile_buf<loc=mat, dtype=i8, rows=16, cols=32, v_row=16, v_col=16, "
        "blayout=row_major, slayout=none_box, fractal=512, pad=0>")


def tmov_text(body):
    return f"""
module attributes {{pto.target_arch = "a5"}} {{
  func.func @t() {{
    %s = pto.alloc_tile : {ACC}
    %m = pto.alloc_tile : {MAT}
    %q = pto.alloc_tile : {MATQ}
    %pre = arith.constant 7 : i64
{body}
    return
  }}
}}
"""


CUSTOM = (f"    pto.tmov ins(%s : {ACC}) outs(%m : {MAT})\n"
          "      {reluPreMode = #pto<relu_pre_mode normal_relu>}")
GENERIC = ('    "pto.tmov"(%s, %m) <{operandSegmentSizes = array<i32: 1, 1, 0, 0>,\n'
           "      reluPreMode = #pto<relu_pre_mode normal_relu>}> : "
           f"({ACC}, {MAT}) -> ()")
GENERIC_PRE = ('    "pto.tmov"(%s, %q, %pre) <{operandSegmentSizes = array<i32: 1, 1, 0, 1>,\n'
               "      reluPreMode = #pto<relu_pre_mode normal_relu>}> : "
               f"({ACC}, {MATQ}, i64) -> ()")


def test_pto_tmov_generic_form_takes_relu_pre_mode_as_a_property():
    """MLIR's generic form carries inherent attributes as properties (``<{...}>``); ptosim
    reads them as the custom form's ``{...}``."""
    calls = []
    for body in (CUSTOM, GENERIC):
        k = Kernel.from_text(tmov_text(body))
        k.run({})
        calls.append(next(o for o in k.module.walk() if o.name == "pto.tmov").tile_call()[1])
    assert calls[0] == calls[1] and calls[0]["pre_relu"][1] == "normal_relu"
    k = Kernel.from_text(tmov_text(GENERIC_PRE))
    op = next(o for o in k.module.walk() if o.name == "pto.tmov")
    assert op.tile_call()[1]["pre_relu"][1] == "normal_relu"
    assert "pre_quant_scalar" in op.tile_call()[1]


def test_pto_tmov_generic_form_still_refuses_unknown_properties():
    with pytest.raises(PtoSyntaxError, match="property 'bogus' is not defined"):
        Kernel.from_text(tmov_text(GENERIC.replace("reluPreMode", "bogus")))


# --- tstore's stPhase ---------------------------------------------------------------------------
STORE = """
module {
  func.func @s(%x: !pto.ptr<f32>, %o: !pto.ptr<f32>) attributes {pto.aicore} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %vx = pto.make_tensor_view %x, shape = [%c1, %c16], strides = [%c16, %c1]
      : !pto.tensor_view<1x16xf32>
    %vo = pto.make_tensor_view %o, shape = [%c1, %c16], strides = [%c16, %c1]
      : !pto.tensor_view<1x16xf32>
    %px = pto.partition_view %vx, offsets = [%c0, %c0], sizes = [%c1, %c16]
      : !pto.tensor_view<1x16xf32>
    %po = pto.partition_view %vo, offsets = [%c0, %c0], sizes = [%c1, %c16]
      : !pto.tensor_view<1x16xf32>
    %a = pto.alloc_tile : !pto.tile_buf<vec, 1x16xf32>
    pto.tload ins(%px : !pto.partition_tensor_view<1x16xf32>) outs(%a : !pto.tile_buf<vec, 1x16xf32>)
    pto.set_flag["PIPE_MTE2", "PIPE_MTE3", "EVENT_ID0"]
    pto.wait_flag["PIPE_MTE2", "PIPE_MTE3", "EVENT_ID0"]
    pto.tstore ins(%a : !pto.tile_buf<vec, 1x16xf32>) outs(%po : !pto.partition_tensor_view<1x16xf32>) ATTRS
    return
  }
}
"""


@pytest.mark.parametrize("word", ["unspecified", "partial", "final"])
def test_pto_tstore_st_phase_changes_no_value(word):
    k = Kernel.from_text(STORE.replace("ATTRS", f"{{stPhase = #pto<st_phase {word}>}}"))
    op = next(o for o in k.module.walk() if o.name == "pto.tstore")
    assert op.attributes["stPhase"].value.data == word
    assert op.tile_call()[1] == {}                       # no keyword reaches TSTORE
    x = np.arange(16, dtype=np.float32) - 3.5
    run = k.run({"x": x, "o": np.zeros(16, np.float32)})
    np.testing.assert_array_equal(run.outputs["o"].ravel(), x)


def test_pto_st_phase_rules():
    with pytest.raises(PtoSyntaxError, match=r"expected a store phase \(one of unspecified, "
                                             r"partial, final\), got"):
        Kernel.from_text(STORE.replace("ATTRS", "{stPhase = #pto<st_phase middle>}"))
    from ptosim.frontend import tile_ops as t
    assert "stPhase" in t.TStoreOp.ATTRS and "stPhase" not in t.TStoreFpOp.ATTRS
