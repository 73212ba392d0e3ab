"""HIGH_PRECISION TEXP / TLOG / TRECIP / TFMOD / TFMODS / TREM / TREMS (a5 pto-isa vector
code: custom/TExp_Custom.hpp, custom/TLog_Custom.hpp, TDivS.hpp via TRECIP,
custom/TFmodRemHp.hpp) through the Python face and `.pto` text (PTOAS
``#pto<exp_precision ...>`` and its siblings)."""

from fractions import Fraction

import numpy as np
import pytest

import ptosim
from ptosim.errors import PtoSyntaxError, PtoTypeError, VerifyError
from ptosim.kernel import Kernel
from tile_helpers import read, vec

F32, F16 = np.float32, np.float16
HP = "high_precision"


def u(x):
    x = np.asarray(x)
    return x.view(np.uint32 if x.dtype == F32 else np.uint16)


def bits_equal(x, y):
    np.testing.assert_array_equal(u(x), u(y))


def unary(op, x, word=HP, target="a5"):
    m = ptosim.Machine(target=target)
    name = "f32" if x.dtype == F32 else "f16"
    r, c = x.shape
    s, d = vec(m, name, r, c, x), vec(m, name, r, c)
    getattr(m, op)(d, s, precision=word)
    return read(m, d)


def binary(op, a, b, word=HP, target="a5"):
    m = ptosim.Machine(target=target)
    name = "f32" if a.dtype == F32 else "f16"
    r, c = a.shape
    ta, tb, d = vec(m, name, r, c, a), vec(m, name, r, c, b), vec(m, name, r, c)
    args = (d, ta, tb, vec(m, name, r, c)) if op == "TREM" else (d, ta, tb)
    getattr(m, op)(*args, precision=word)
    return read(m, d)


def rand_f32(rng, shape, lo, hi):
    mag = 10.0 ** rng.uniform(lo, hi, shape)
    return (mag * rng.choice([-1.0, 1.0], shape)).astype(F32)


MAX_SUB32 = np.array([0x007FFFFF], np.uint32).view(F32)[0]
MAX_SUB16 = np.array([0x03FF], np.uint16).view(F16)[0]


# --- TEXP ---------------------------------------------------------------------------------------
def test_texp_f32_high_precision_squares_exp_of_half_for_subnormal_results():
    x = np.linspace(-103.0, -80.0, 512).astype(F32).reshape(8, 64)
    x[0, :4] = [0.5, -3.0, 20.0, 88.0]                    # normal results: vexp untouched
    x[0, 4:8] = [-np.inf, np.nan, -87.3, -1e4]
    hp, plain = unary("TEXP", x), unary("TEXP", x, "default")
    tiny = plain <= MAX_SUB32
    bits_equal(hp[~tiny], plain[~tiny])
    # the tiny lanes: TEXP of x / 2 (an exact halving), squared with one rounding (f64 holds
    # the square of an f32 exactly)
    half = unary("TEXP", (x.astype(np.float64) / 2).astype(F32), "default")
    want = (half.astype(np.float64) ** 2).astype(F32)
    bits_equal(hp[tiny], want[tiny])
    # ... which stays within two subnormal steps of exp(x) (exp(x / 2)'s rounding doubles)
    exact = np.exp(x.astype(np.float64))
    ok = np.isfinite(x) & tiny
    assert np.all(np.abs(hp[ok] - exact[ok]) <= 2.0 ** -148)
    assert np.isnan(hp[0, 5]) and hp[0, 4] == 0 and hp[0, 7] == 0


def test_texp_f32_double_rounding_worked_example():
    """x = -94.8104f: exp(x) = 4762.47.. x 2^-149 rounds to 4762 steps, but
    exp(x / 2) = 0x1.6e7b..p-69 rounded to f32 and squared gives 4762.5+ steps: 4763."""
    x = np.array([[F32(-94.8104)]], F32)
    exact = Fraction(float(np.exp(np.float64(x[0, 0]))))
    assert 4762 < exact * 2 ** 149 < Fraction(47625, 10)
    h = Fraction(float(F32(np.exp(np.float64(x[0, 0]) / 2))))
    assert h * h * 2 ** 149 > Fraction(47625, 10)
    assert u(unary("TEXP", x))[0, 0] == 4763
    assert u(unary("TEXP", x, "default"))[0, 0] == 4762


def test_texp_f16_high_precision():
    x = np.linspace(-17.0, -9.0, 256).astype(F16).reshape(2, 128)
    x[0, :3] = [1.0, -2.0, 8.0]
    hp, plain = unary("TEXP", x), unary("TEXP", x, "default")
    tiny = plain <= MAX_SUB16
    assert tiny.sum() > 100
    bits_equal(hp[~tiny], plain[~tiny])
    half = np.exp(x.astype(np.float64) / 2).astype(F16).astype(np.float64)
    bits_equal(hp[tiny], (half ** 2).astype(F16)[tiny])


# --- TLOG ---------------------------------------------------------------------------------------
def test_tlog_f32_high_precision_rescales_subnormal_inputs():
    bits = np.linspace(1, 0x007FFFFE, 256).astype(np.uint32)
    x = np.concatenate([bits.view(F32), np.array([0.5, 3.0, 1e30, 1.2e-38], F32)])
    x = np.resize(x, 512).reshape(8, 64)
    hp, plain = unary("TLOG", x), unary("TLOG", x, "default")
    sub = x < MAX_SUB32
    bits_equal(hp[~sub], plain[~sub])
    # ln(x 2^23) (x 2^23 is exact), plus the f32 constant -23 ln 2, one rounding
    scaled = unary("TLOG", (x.astype(np.float64) * 2.0 ** 23).astype(F32), "default")
    fix = np.float64(F32(-23 * np.log(2.0)))
    bits_equal(hp[sub], (scaled.astype(np.float64) + fix).astype(F32)[sub])
    exact = np.log(x.astype(np.float64))
    assert np.all(np.abs(hp[sub] - exact[sub]) <= 3 * np.spacing(np.abs(hp[sub])))


def test_tlog_high_precision_special_inputs():
    """Zeros and negatives are below the threshold too: ln(+-0 x 2^23) = -inf (+ c stays
    -inf), ln(-x 2^23) = NaN. The largest subnormal itself is not below it (vcmps_lt) and
    goes to vln unscaled."""
    x = np.array([[0.0, -0.0, -1.0, -1e-40, np.nan, np.inf, MAX_SUB32, 1.0]], F32)
    hp = unary("TLOG", x)
    assert hp[0, 0] == -np.inf and hp[0, 1] == -np.inf
    assert np.isnan(hp[0, 2:5]).all()
    assert hp[0, 5] == np.inf and hp[0, 7] == 0
    bits_equal(hp[0, 6], unary("TLOG", x, "default")[0, 6])


def test_tlog_f16_high_precision():
    x = np.arange(1, 0x400, 4, dtype=np.uint16).view(F16)
    x = np.resize(np.concatenate([x, np.array([0.25, 3.0, 1000.0], F16)]), 256).reshape(2, 128)
    hp = unary("TLOG", x)
    sub = x < MAX_SUB16
    scaled = np.log(x.astype(np.float64) * 2.0 ** 10).astype(F16).astype(np.float64)
    want = np.where(sub, (scaled + np.float64(F16(-10 * np.log(2.0)))).astype(F16),
                    np.log(x.astype(np.float64)).astype(F16))
    bits_equal(hp, want)
    assert F16(-10 * np.log(2.0)) == F16(-6.9296875)     # the code's const half


# --- TRECIP -------------------------------------------------------------------------------------
def test_trecip_high_precision_is_tdivs_of_one():
    rng = np.random.default_rng(11)
    x = rand_f32(rng, (4, 64), -30, 30)
    bits_equal(unary("TRECIP", x), (1.0 / x.astype(np.float64)).astype(F32))
    h = rng.uniform(-300, 300, (2, 128)).astype(F16)
    bits_equal(unary("TRECIP", h), (1.0 / h.astype(np.float64)).astype(F16))
    # zero / inf operands keep vdiv's quotient; NaN gives the canonical NaN
    sp = np.array([[0.0, -0.0, np.inf, -np.inf, -np.nan, 2.0, 4.0, 0.5]], F32)
    got = unary("TRECIP", sp)
    bits_equal(got[0, :4], np.array([np.inf, -np.inf, 0.0, -0.0], F32))
    assert u(got)[0, 4] == 0x7FC00000


# --- TFMOD / TFMODS / TREM / TREMS --------------------------------------------------------------
def exact_fmod(a, b):
    """fmod is exact: the f64 fmod of two f32 values is the f32 result."""
    with np.errstate(all="ignore"):
        return np.fmod(a.astype(np.float64), b.astype(np.float64)).astype(F32)


@pytest.mark.parametrize("lo,hi", [(-3, 3), (-38, 38), (-45, 38)])
def test_tfmod_f32_high_precision_is_exact(lo, hi):
    rng = np.random.default_rng(lo + 100)
    a, b = rand_f32(rng, (16, 64), lo, hi), rand_f32(rng, (16, 64), lo, hi)
    bits_equal(binary("TFMOD", a, b), exact_fmod(a, b))


def floor_rem(a, b):
    """TREM's golden: the exact fmod r, plus b when r and b differ in sign -- unless the
    f32 product b r underflows to zero (the code's sign test is vmul then < 0), then r."""
    r = np.fmod(a.astype(np.float64), b.astype(np.float64))
    with np.errstate(over="ignore"):
        prod = (b.astype(np.float64) * r).astype(F32)       # exact f64 product, one rounding
    fixed = np.array([float(Fraction(float(x)) + Fraction(float(y)))
                      for x, y in zip(r.ravel(), b.ravel())]).reshape(r.shape)
    return np.where(prod < 0, fixed.astype(F32), r.astype(F32))


@pytest.mark.parametrize("lo,hi", [(-3, 3), (-38, 38)])
def test_trem_f32_high_precision(lo, hi):
    rng = np.random.default_rng(lo + 200)
    a, b = rand_f32(rng, (8, 64), lo, hi), rand_f32(rng, (8, 64), lo, hi)
    got = binary("TREM", a, b)
    bits_equal(got, floor_rem(a, b))
    if lo == -3:                                       # no underflow: floor remainder
        np.testing.assert_array_equal(np.sign(got[got != 0]), np.sign(b[got != 0]))


def test_trem_underflowing_sign_test_keeps_the_truncated_remainder():
    """-1.2449208e-06 rem 4.6674863e-30: fmod gives r = -5.956382e-31 and b r ~ -2.8e-60
    underflows to -0 in f32, so r is kept (a floor remainder would be r + b)."""
    a = np.array([[-1.2449208e-06, 7.0]], F32)
    b = np.array([[4.6674863e-30, -2.0]], F32)
    got = binary("TREM", a, b)
    r = F32(np.fmod(np.float64(a[0, 0]), np.float64(b[0, 0])))
    assert r < 0 and F32(np.float64(r) * np.float64(b[0, 0])) == 0
    bits_equal(got[0, 0], r)
    assert got[0, 1] == -1.0                           # 7 = -4 * -2 - 1


def test_fmod_rem_high_precision_special_values():
    """b = +-inf: a; both infinite or a infinite or b zero: NaN; a = +-0 (b non-zero, not
    NaN): a, sign kept (TREM too: b * -0 is not < 0); an exact multiple keeps a's sign."""
    a = np.array([[3.0, -3.0, np.inf, np.inf, 5.0, 0.0, -0.0, -0.0, -6.0, np.nan, 1.0, 2.0]],
                 F32)
    b = np.array([[np.inf, -np.inf, -np.inf, 2.0, 0.0, 3.0, 3.0, np.inf, 3.0, 1.0, np.nan,
                   -0.0]], F32)
    nan = np.nan
    want_fmod = np.array([[3.0, -3.0, nan, nan, nan, 0.0, -0.0, -0.0, -0.0, nan, nan, nan]],
                         F32)
    for op in ("TFMOD", "TREM"):
        got = binary(op, a, b)
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want_fmod))
        ok = ~np.isnan(want_fmod)
        bits_equal(got[ok], want_fmod[ok])


def test_scalar_forms_high_precision():
    rng = np.random.default_rng(21)
    a = rand_f32(rng, (4, 64), -38, 38)
    for op, s in (("TFMODS", 3.0e-20), ("TREMS", -7.5)):
        m = ptosim.Machine(target="a5")
        ta, d = vec(m, "f32", 4, 64, a), vec(m, "f32", 4, 64)
        args = (d, ta, s, vec(m, "f32", 4, 64)) if op == "TREMS" else (d, ta, s)
        getattr(m, op)(*args, precision=HP)
        b = np.full_like(a, s)
        bits_equal(read(m, d), exact_fmod(a, b) if op == "TFMODS" else floor_rem(a, b))


def test_fmod_rem_high_precision_is_f32_only_and_a5_only():
    """f16 tiles take the DEFAULT code (the code's HIGH_PRECISION branch is f32's); a2a3 has
    no HIGH_PRECISION branch; default ignores it."""
    a = np.array([[1e-30, 5.5, -7.25, 1e30]], F32)
    b = np.array([[3e-31, 2.0, 2.0, 7.0]], F32)
    for target, word in (("a2a3", HP), ("a5", "default")):
        bits_equal(binary("TFMOD", a, b, word, target), binary("TFMOD", a, b, None, "a5"))
    h = np.array([[5.5, -7.25, 100.0, 3.0]], F16)
    g = np.array([[2.0, 2.0, 7.0, -2.0]], F16)
    bits_equal(binary("TREM", h, g), binary("TREM", h, g, "default"))


@pytest.mark.parametrize("op", ["TEXP", "TLOG", "TRECIP"])
def test_unary_precision_ignored_on_a2a3(op):
    x = np.array([[-100.0, -95.0, 1e-40, 3.0]], F32)
    bits_equal(unary(op, x, HP, "a2a3"), unary(op, x, "default", "a2a3"))


def test_bad_precision_word_and_keyword():
    m = ptosim.Machine(target="a5")
    t = vec(m, "f32", 1, 16, np.ones((1, 16), F32))
    with pytest.raises(VerifyError, match="precision must be 'default' or 'high_precision', "
                                          "got 'fast'"):
        m.TEXP(t, t, precision="fast")
    with pytest.raises(VerifyError, match="got 'fast'"):
        m.TFMODS(t, t, 2.0, precision="fast")
    with pytest.raises(PtoTypeError, match="unknown keyword 'precision'"):
        m.TADDS(t, t, 2.0, precision=HP)


# --- .pto text ----------------------------------------------------------------------------------
TB = ("!pto.tile_buf<loc=vec, dtype=f32, rows=1, cols=16, v_row=1, v_col=16, "
      "blayout=row_major, slayout=none_box, fractal=512, pad=0>")


def op_text(body):
    return f"""
module {{
  func.func @k() {{
    %a = pto.alloc_tile : {TB}
    %b = pto.alloc_tile : {TB}
    %t = pto.alloc_tile : {TB}
    %d = pto.alloc_tile : {TB}
{body}
    return
  }}
}}
"""


UNARY_SPELLINGS = [("texp", "exp"), ("tlog", "log"), ("trecip", "recip"), ("tsqrt", "sqrt")]
BINARY_SPELLINGS = [("tfmod", "fmod", "%a, %b", 2), ("trem", "rem", "%a, %b, %t", 3)]


@pytest.mark.parametrize("op,word", UNARY_SPELLINGS)
def test_pto_unary_precision_attributes_load_and_run(op, word):
    for level in ("default", "high_precision"):
        text = op_text(f"    pto.{op} ins(%a : {TB}) outs(%d : {TB})\n"
                       f"      {{precisionType = #pto<{word}_precision {level}>}}")
        k = Kernel.from_text(text)
        k.run({})
        call = next(o for o in k.module.walk() if o.name == f"pto.{op}").tile_call()
        assert call[1] == {"precision": level}


@pytest.mark.parametrize("op,word,ins,n", BINARY_SPELLINGS)
def test_pto_binary_precision_attributes_load_and_run(op, word, ins, n):
    types = ", ".join([TB] * n)
    text = op_text(f"    pto.{op} ins({ins} : {types}) outs(%d : {TB})\n"
                   f"      {{precisionType = #pto<{word}_precision high_precision>}}")
    k = Kernel.from_text(text)
    k.run({})
    call = next(o for o in k.module.walk() if o.name == f"pto.{op}").tile_call()
    assert call[1] == {"precision": "high_precision"}


def test_pto_scalar_fmod_rem_pass_the_default():
    text = op_text("    %s = arith.constant 2.0 : f32\n"
                   f"    pto.tfmods ins(%a, %s : {TB}, f32) outs(%d : {TB})")
    k = Kernel.from_text(text)
    assert next(o for o in k.module.walk()
                if o.name == "pto.tfmods").tile_call()[1] == {"precision": "default"}


@pytest.mark.parametrize("body,msg", [
    (f"    pto.texp ins(%a : {TB}) outs(%d : {TB})\n"
     "      {precisionType = #pto<div_precision high_precision>}",
     "pto.texp: attribute 'precisionType' failed to satisfy constraint: TEXP precision mode "
     "attribute"),
    (f"    pto.tfmod ins(%a, %b : {TB}, {TB}) outs(%d : {TB})\n"
     "      {precisionType = #pto<rem_precision high_precision>}",
     "pto.tfmod: attribute 'precisionType' failed to satisfy constraint: TFMOD precision "
     "mode attribute"),
    (f"    pto.tdiv ins(%a, %b : {TB}, {TB}) outs(%d : {TB})\n"
     "      {precisionType = #pto<exp_precision high_precision>}",
     "pto.tdiv: attribute 'precisionType' failed to satisfy constraint: TDIV precision "
     "mode attribute"),
    (f"    pto.tlog ins(%a : {TB}) outs(%d : {TB})\n"
     "      {precisionType = #pto<log_precision fast>}", "log precision"),
    (f"    pto.trsqrt ins(%a : {TB}) outs(%d : {TB})\n"
     "      {precisionType = #pto<rsqrt_precision high_precision>}",
     "pto.trsqrt: expects tmp when precisionType is high_precision"),
    ("    %s = arith.constant 2.0 : f32\n"
     f"    pto.trems ins(%a, %s, %t : {TB}, f32, {TB}) outs(%d : {TB})\n"
     "      {precisionType = #pto<rem_precision high_precision>}",
     "pto.trems: unsupported attribute 'precisionType'"),
])
def test_pto_precision_rules(body, msg):
    with pytest.raises(PtoSyntaxError, match=msg):
        Kernel.from_text(op_text(body))


A5_TEXT = """
module attributes {pto.target_arch = "a5"} {
  func.func @k(%x: !pto.ptr<f32>, %o: !pto.ptr<f32>, %p: !pto.ptr<f32>) attributes {pto.aicore} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %vx = pto.make_tensor_view %x, shape = [%c1, %c16], strides = [%c16, %c1]
      : !pto.tensor_view<1x16xf32>
    %vo = pto.make_tensor_view %o, shape = [%c1, %c16], strides = [%c16, %c1]
      : !pto.tensor_view<1x16xf32>
    %vp = pto.make_tensor_view %p, shape = [%c1, %c16], strides = [%c16, %c1]
      : !pto.tensor_view<1x16xf32>
    %px = pto.partition_view %vx, offsets = [%c0, %c0], sizes = [%c1, %c16]
      : !pto.tensor_view<1x16xf32>
    %po = pto.partition_view %vo, offsets = [%c0, %c0], sizes = [%c1, %c16]
      : !pto.tensor_view<1x16xf32>
    %pp = pto.partition_view %vp, offsets = [%c0, %c0], sizes = [%c1, %c16]
      : !pto.tensor_view<1x16xf32>
    %a = pto.alloc_tile : !pto.tile_buf<vec, 1x16xf32>
    %d = pto.alloc_tile : !pto.tile_buf<vec, 1x16xf32>
    %e = pto.alloc_tile : !pto.tile_buf<vec, 1x16xf32>
    pto.tload ins(%px : !pto.partition_tensor_view<1x16xf32>) outs(%a : !pto.tile_buf<vec, 1x16xf32>)
    pto.set_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]
    pto.wait_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]
    pto.texp ins(%a : !pto.tile_buf<vec, 1x16xf32>) outs(%d : !pto.tile_buf<vec, 1x16xf32>)
      {precisionType = #pto<exp_precision high_precision>}
    pto.tfmod ins(%a, %d : !pto.tile_buf<vec, 1x16xf32>, !pto.tile_buf<vec, 1x16xf32>)
      outs(%e : !pto.tile_buf<vec, 1x16xf32>) {precisionType = #pto<fmod_precision high_precision>}
    pto.set_flag["PIPE_V", "PIPE_MTE3", "EVENT_ID0"]
    pto.wait_flag["PIPE_V", "PIPE_MTE3", "EVENT_ID0"]
    pto.tstore ins(%d : !pto.tile_buf<vec, 1x16xf32>) outs(%po : !pto.partition_tensor_view<1x16xf32>)
    pto.tstore ins(%e : !pto.tile_buf<vec, 1x16xf32>) outs(%pp : !pto.partition_tensor_view<1x16xf32>)
    return
  }
}
"""


def test_pto_kernel_runs_high_precision_exp_and_fmod():
    x = np.array([-94.8104, -100.0, -1.0, 0.5] * 4, F32)
    z = np.zeros(16, F32)
    res = Kernel.from_text(A5_TEXT).run({"x": x, "o": z, "p": z.copy()})
    assert res.findings == []
    e = res.outputs["o"].reshape(1, 16)
    assert u(e)[0, 0] == 4763                          # the worked example above
    bits_equal(e, unary("TEXP", x.reshape(1, 16)))
    bits_equal(res.outputs["p"].reshape(1, 16), exact_fmod(x.reshape(1, 16), e))
