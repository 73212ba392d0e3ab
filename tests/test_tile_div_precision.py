"""HIGH_PRECISION division / square root / reciprocal square root (a5 pto-isa vector code:
custom/Div754.hpp, custom/TSqrtHp.hpp) through the Python face and `.pto` text
(PTOAS ``#pto<div_precision ...>`` / ``#pto<rsqrt_precision ...>``, optional tmp)."""

import numpy as np
import pytest

import ptosim
from ptosim.errors import PtoSyntaxError, VerifyError
from ptosim.kernel import Kernel
from tile_helpers import read, vec

F32, F16 = np.float32, np.float16


def exact_div(a, b, to):
    """Correctly rounded quotient: f64 carries more than 2p + 2 bits for f32 / f16, so
    rounding the f64 quotient again is innocuous."""
    with np.errstate(all="ignore"):
        return (a.astype(np.float64) / b.astype(np.float64)).astype(to)


def normal_f32(rng, shape, lo=-30, hi=30):
    mag = 10.0 ** rng.uniform(lo, hi, shape)
    return (mag * rng.choice([-1.0, 1.0], shape)).astype(F32)


def bits_equal(x, y):
    np.testing.assert_array_equal(np.asarray(x).view(np.uint32 if x.dtype == F32 else np.uint16),
                                  np.asarray(y).view(np.uint32 if y.dtype == F32 else np.uint16))


# --- TDIV -----------------------------------------------------------------------------------
@pytest.mark.parametrize("word", ["high_precision", "HIGH_PRECISION", "high", True])
def test_tdiv_f32_high_precision_is_the_correctly_rounded_quotient(word):
    rng = np.random.default_rng(1)
    a, b = normal_f32(rng, (8, 64)), normal_f32(rng, (8, 64), -5, 5)
    a[0, :4] = [1e-30, -3e-25, 2e-38, 1e-45]     # dividends below 2^-64: scaled by 2^k first
    m = ptosim.Machine(target="a5")
    ta, tb, td = vec(m, "f32", 8, 64, a), vec(m, "f32", 8, 64, b), vec(m, "f32", 8, 64)
    m.TDIV(td, ta, tb, precision=word)
    bits_equal(read(m, td), exact_div(a, b, F32))


def test_tdiv_f32_high_precision_keeps_vdiv_for_zero_inf_nan_results():
    sp = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -2.5, 3e38], F32)
    a, b = (x.reshape(8, 8).astype(F32) for x in np.meshgrid(sp, sp))
    m = ptosim.Machine(target="a5")
    ta, tb, td = vec(m, "f32", 8, 8, a), vec(m, "f32", 8, 8, b), vec(m, "f32", 8, 8)
    m.TDIV(td, ta, tb, precision="high_precision")
    np.testing.assert_array_equal(read(m, td), exact_div(a, b, F32))   # (NaN == NaN here)


def test_tdiv_f16_high_precision_runs_the_ieee754_half_code():
    rng = np.random.default_rng(2)
    a = rng.uniform(-60000, 60000, (4, 128)).astype(F16)
    b = rng.uniform(-30, 30, (4, 128)).astype(F16)
    a[0, :3] = [F16(2.0 ** -24), F16(3 * 2.0 ** -24), F16(-1e-5)]   # f16 subnormals
    m = ptosim.Machine(target="a5")
    ta, tb, td = vec(m, "f16", 4, 128, a), vec(m, "f16", 4, 128, b), vec(m, "f16", 4, 128)
    m.TDIV(td, ta, tb, precision="high_precision")
    bits_equal(read(m, td), exact_div(a, b, F16))


def test_precision_is_ignored_on_a2a3_and_for_default():
    rng = np.random.default_rng(3)
    a = np.full((1, 16), 1e-45, F32)
    b = np.ones((1, 16), F32)
    a[0, 8:] = rng.uniform(1, 2, 8)
    for target, word in (("a2a3", "high_precision"), ("a5", "default"), ("a5", None)):
        m = ptosim.Machine(target=target)
        ta, tb, td = vec(m, "f32", 1, 16, a), vec(m, "f32", 1, 16, b), vec(m, "f32", 1, 16)
        m.TDIV(td, ta, tb, precision=word)
        bits_equal(read(m, td), exact_div(a, b, F32))


def test_bad_precision_word_is_a_verify_error():
    m = ptosim.Machine(target="a5")
    t = vec(m, "f32", 1, 16, np.ones((1, 16), F32))
    with pytest.raises(VerifyError, match="precision must be 'default' or 'high_precision', "
                                          "got 'fast'"):
        m.TDIV(t, t, t, precision="fast")


# --- DivIEEE754FloatImpl (row / col expand, TDIVS, TRSQRT's division) -------------------------
def test_row_and_col_expand_div_high_precision_normal_operands():
    rng = np.random.default_rng(4)
    a = normal_f32(rng, (4, 16))
    col = normal_f32(rng, (4, 8), -3, 3)          # one 32 B block: column c mod 8 per lane
    row = normal_f32(rng, (1, 16), -3, 3)
    m = ptosim.Machine(target="a5")
    ta, tc, tr = vec(m, "f32", 4, 16, a), vec(m, "f32", 4, 8, col), vec(m, "f32", 1, 16, row)
    tmp, d1, d2 = vec(m, "f32", 4, 16), vec(m, "f32", 4, 16), vec(m, "f32", 4, 16)
    m.TROWEXPANDDIV(d1, ta, tc, tmp, precision="high_precision")
    bits_equal(read(m, d1), exact_div(a, np.tile(col, 2), F32))
    m.TCOLEXPANDDIV(d2, ta, tr, precision="high_precision")
    bits_equal(read(m, d2), exact_div(a, np.repeat(row, 4, 0), F32))


def test_ieee754_float_code_quirks_worked_examples():
    """DivIEEE754FloatImpl tests a subnormal dividend with vcmp_eq against 0x007FFFFF, so
    only the largest subnormal is rescaled; any other subnormal keeps exponent field 0
    and its mantissa is read as 1.m: 2^-149 / 1 -> (1 + 2^-23) x 2^-127, which rounds to
    2^-127 (a tie on the subnormal grid, to even). Zero / inf operands keep vdiv's
    result, NaN operands give 0x7FC00000. TDIV's DivDiffCompensation code has no such
    step (2^-149 / 1 = 2^-149)."""
    a = np.array([[2.0 ** -149, np.float32(np.frombuffer(np.uint32(0x007FFFFF).tobytes(),
                                                         F32)[0]), 6.0, 0.0,
                   np.inf, np.nan, 1.0, 1.0]], F32)
    b = np.array([[1.0, 1.0, 0.0, 0.0, 2.0, 1.0, np.inf, 4.0]], F32)
    m = ptosim.Machine(target="a5")
    ta, tb, td = vec(m, "f32", 1, 8, a), vec(m, "f32", 1, 8, b), vec(m, "f32", 1, 8)
    m.TCOLEXPANDDIV(td, ta, tb, precision="high_precision")
    got = read(m, td)[0]
    assert got[0] == F32(2.0 ** -127)
    assert got[1] == a[0, 1]                          # the largest subnormal: exact
    assert got[2] == np.inf and got[3] != got[3] and got[4] == np.inf
    assert got.view(np.uint32)[5] == 0x7FC00000
    assert got[6] == 0.0 and got[7] == 0.25
    m.TDIV(td, ta, tb, precision="high_precision")
    assert read(m, td)[0, 0] == F32(2.0 ** -149)


def test_tdivs_high_precision_both_operand_orders():
    rng = np.random.default_rng(5)
    a = normal_f32(rng, (2, 16))
    m = ptosim.Machine(target="a5")
    ta, td = vec(m, "f32", 2, 16, a), vec(m, "f32", 2, 16)
    m.TDIVS(td, ta, 3.0, precision="high_precision")
    bits_equal(read(m, td), exact_div(a, np.full_like(a, 3.0), F32))
    m.TDIVS(td, 3.0, ta, precision="high_precision")
    bits_equal(read(m, td), exact_div(np.full_like(a, 3.0), a, F32))


# --- TSQRT / TRSQRT ---------------------------------------------------------------------------
def test_sqrt_and_rsqrt_high_precision_f32():
    """SqrtFloatImpl (Newton + residual steps, x < 1 scaled by 2^24) gives the correctly
    rounded root here, also for subnormals; TRSQRT divides 1 by it with DivIEEE754."""
    rng = np.random.default_rng(6)
    x = np.abs(normal_f32(rng, (4, 64), -37, 38))
    x[0, :6] = [0.0, -0.0, np.inf, 1e-45, 1e-40, 1.0]
    m = ptosim.Machine(target="a5")
    tx, ts, tr, tmp = (vec(m, "f32", 4, 64, x), vec(m, "f32", 4, 64), vec(m, "f32", 4, 64),
                       vec(m, "f32", 1, 8))
    m.TSQRT(ts, tx, precision="high_precision")
    root = np.sqrt(x.astype(np.float64)).astype(F32)
    bits_equal(read(m, ts), root)
    m.TRSQRT(tr, tx, tmp, precision="high_precision")
    got = read(m, tr)
    bits_equal(got, exact_div(np.ones_like(root), root, F32))
    assert got[0, 0] == np.inf and got[0, 1] == -np.inf and got[0, 2] == 0.0


def test_sqrt_high_precision_f16_and_negative_inputs():
    x = np.array([[4.0, 2.0 ** -24, 1e-5, 65504.0, -1.0, 0.0, np.inf, 0.5]], F16)
    m = ptosim.Machine(target="a5")
    tx, ts = vec(m, "f16", 1, 8, x), vec(m, "f16", 1, 8)
    m.TSQRT(ts, tx, precision="high_precision")
    got = read(m, ts)[0]
    with np.errstate(invalid="ignore"):
        want = np.sqrt(x.astype(np.float64)).astype(F16)[0]
    np.testing.assert_array_equal(got, want)


def test_trsqrt_a2a3_tmp_form_is_sqrt_then_divide():
    x = np.array([[4.0, 2.0, 0.25, 3.0, 100.0, 7.0, 9.0, 1e-3]], F32)
    m = ptosim.Machine(target="a2a3")
    tx, td, tmp = vec(m, "f32", 1, 8, x), vec(m, "f32", 1, 8), vec(m, "f32", 1, 8)
    m.TRSQRT(td, tx, tmp, precision="high_precision")
    want = (1.0 / np.sqrt(x).astype(np.float64)).astype(F32)
    bits_equal(read(m, td), want)


# --- .pto text ----------------------------------------------------------------------------------
T4 = "!pto.tile_buf<vec, 4x16xf32>"
T8 = "!pto.tile_buf<vec, 4x8xf32>"
TEXT = f"""
module attributes {{pto.target_arch = "a5"}} {{
  func.func @k(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>, %o: !pto.ptr<f32>, %r: !pto.ptr<f32>,
               %q: !pto.ptr<f32>) attributes {{pto.aicore}} {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %vx = pto.make_tensor_view %x, shape = [%c4, %c16], strides = [%c16, %c1]
      : !pto.tensor_view<4x16xf32>
    %vy = pto.make_tensor_view %y, shape = [%c4, %c8], strides = [%c8, %c1]
      : !pto.tensor_view<4x8xf32>
    %vo = pto.make_tensor_view %o, shape = [%c4, %c16], strides = [%c16, %c1]
      : !pto.tensor_view<4x16xf32>
    %vr = pto.make_tensor_view %r, shape = [%c4, %c16], strides = [%c16, %c1]
      : !pto.tensor_view<4x16xf32>
    %vq = pto.make_tensor_view %q, shape = [%c4, %c16], strides = [%c16, %c1]
      : !pto.tensor_view<4x16xf32>
    %px = pto.partition_view %vx, offsets = [%c0, %c0], sizes = [%c4, %c16]
      : !pto.tensor_view<4x16xf32>
    %py = pto.partition_view %vy, offsets = [%c0, %c0], sizes = [%c4, %c8]
      : !pto.tensor_view<4x8xf32>
    %po = pto.partition_view %vo, offsets = [%c0, %c0], sizes = [%c4, %c16]
      : !pto.tensor_view<4x16xf32>
    %pr = pto.partition_view %vr, offsets = [%c0, %c0], sizes = [%c4, %c16]
      : !pto.tensor_view<4x16xf32>
    %pq = pto.partition_view %vq, offsets = [%c0, %c0], sizes = [%c4, %c16]
      : !pto.tensor_view<4x16xf32>
    %a = pto.alloc_tile : {T4}
    %b = pto.alloc_tile : {T8}
    %t = pto.alloc_tile : {T4}
    %d = pto.alloc_tile : {T4}
    %e = pto.alloc_tile : {T4}
    %f = pto.alloc_tile : {T4}
    pto.tload ins(%px : !pto.partition_tensor_view<4x16xf32>) outs(%a : {T4})
    pto.tload ins(%py : !pto.partition_tensor_view<4x8xf32>) outs(%b : {T8})
    pto.set_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]
    pto.wait_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]
    pto.trowexpanddiv ins(%a, %b, %t : {T4}, {T8}, {T4}) outs(%d : {T4})
      {{precisionType = #pto<div_precision high_precision>}}
    pto.trsqrt ins(%a, %t : {T4}, {T4}) outs(%e : {T4})
      {{precisionType = #pto<rsqrt_precision high_precision>}}
    pto.tdiv ins(%a, %e : {T4}, {T4}) outs(%f : {T4})
      {{precisionType = #pto<div_precision high_precision>}}
    pto.set_flag["PIPE_V", "PIPE_MTE3", "EVENT_ID0"]
    pto.wait_flag["PIPE_V", "PIPE_MTE3", "EVENT_ID0"]
    pto.tstore ins(%d : {T4}) outs(%po : !pto.partition_tensor_view<4x16xf32>)
    pto.tstore ins(%e : {T4}) outs(%pr : !pto.partition_tensor_view<4x16xf32>)
    pto.tstore ins(%f : {T4}) outs(%pq : !pto.partition_tensor_view<4x16xf32>)
    return
  }}
}}
"""


def test_pto_kernel_runs_the_high_precision_ops():
    rng = np.random.default_rng(7)
    x = (10.0 ** rng.uniform(-20, 20, (4, 16))).astype(F32)
    y = normal_f32(rng, (4, 8), -4, 4)
    z = np.zeros((4, 16), F32)
    res = Kernel.from_text(TEXT).run({"x": x, "y": y, "o": z, "r": z.copy(), "q": z.copy()})
    assert res.findings == []
    # a .pto trowexpanddiv without src1Col broadcasts src1[row, 0] (PTOAS's template)
    bits_equal(res.outputs["o"].reshape(4, 16), exact_div(x, np.repeat(y[:, :1], 16, 1), F32))
    root = np.sqrt(x.astype(np.float64)).astype(F32)
    rs = exact_div(np.ones_like(root), root, F32)
    bits_equal(res.outputs["r"].reshape(4, 16), rs)
    bits_equal(res.outputs["q"].reshape(4, 16), exact_div(x, rs, F32))


def test_pto_precision_attribute_reaches_the_python_keyword():
    k = Kernel.from_text(TEXT)
    op = next(o for o in k.module.walk() if o.name == "pto.trsqrt")
    assert op.tile_call()[1] == {"precision": "high_precision"}


@pytest.mark.parametrize("old,new,msg", [
    ("pto.trowexpanddiv ins(%a, %b, %t : {T4}, {T8}, {T4})",
     "pto.trowexpanddiv ins(%a, %b : {T4}, {T8})",
     "pto.trowexpanddiv: expects tmp when precisionType is high_precision"),
    ("pto.trsqrt ins(%a, %t : {T4}, {T4})", "pto.trsqrt ins(%a : {T4})",
     "pto.trsqrt: expects tmp when precisionType is high_precision"),
    ("pto.trsqrt ins(%a, %t : {T4}, {T4})",
     "pto.trsqrt ins(%a, %t : {T4}, !pto.tile_buf<vec, 1x4xf32>)",
     "pto.trsqrt: expects tmp to be at least 32 bytes when provided"),
    ("#pto<rsqrt_precision high_precision>", "#pto<rsqrt_precision fast>",
     "rsqrt precision"),
])
def test_pto_verifier_rules(old, new, msg):
    old, new = old.replace("{T4}", T4).replace("{T8}", T8), \
        new.replace("{T4}", T4).replace("{T8}", T8)
    assert old in TEXT
    text = TEXT.replace(old, new, 1)
    if "1x4xf32" in new:
        text = text.replace("    %t = pto.alloc_tile : " + T4,
                            "    %t = pto.alloc_tile : !pto.tile_buf<vec, 1x4xf32>", 1)
        text = text.replace("pto.trowexpanddiv ins(%a, %b, %t : " + f"{T4}, {T8}, {T4})",
                            "pto.trowexpanddiv ins(%a, %b, %t : " + f"{T4}, {T8}, "
                            "!pto.tile_buf<vec, 1x4xf32>)")
    with pytest.raises(PtoSyntaxError, match=msg.replace("(", r"\(")):
        Kernel.from_text(text)


def test_default_precision_without_tmp_is_accepted():
    text = TEXT.replace(f"pto.trowexpanddiv ins(%a, %b, %t : {T4}, {T8}, {T4}) outs(%d : {T4})\n"
                        "      {precisionType = #pto<div_precision high_precision>}",
                        f"pto.trowexpanddiv ins(%a, %b : {T4}, {T8}) outs(%d : {T4})\n"
                        "      {precisionType = #pto<div_precision default>}")
    assert "div_precision default" in text
    Kernel.from_text(text)
