"""Vector conversions ``vcvt`` / ``vtrc`` / ``vbitcast`` as ops: every legal vcvt pair
with every part it takes and a partial mask against explicit lane loops over numpy /
ml_dtypes element casts, each rounding mode and both saturation forms, the CTRL override,
special values (PTO-Gym vcvt-f32-special, vcvt-f16-special, vtrc-f32-special), the text
form, and one negative test per verifier rule (text and Python faces)."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import ptosim
from ptosim import dtype
from ptosim.errors import PtoError, PtoTypeError, PtoValueError
from ptosim.isa.convert import VCVT_RULES, int_range
from ptosim.kernel import Kernel
from ptosim.vector import Mask, VReg

pytestmark = pytest.mark.filterwarnings(
    "ignore:(invalid value|overflow) encountered in cast:RuntimeWarning")

RNG = np.random.default_rng(2026)
PARTS = {1: (None,), 2: ("EVEN", "ODD"), 4: ("P0", "P1", "P2", "P3")}


def lanes(name: str) -> int:
    return 256 // dtype(name).size


def round64(t: np.ndarray, rnd: str) -> np.ndarray:
    """Float64 values to integers with a micro rounding mode (no O: see the engine tests)."""
    return {"R": np.rint, "F": np.floor, "C": np.ceil, "Z": np.trunc,
            "A": lambda v: np.copysign(np.floor(np.abs(v) + 0.5), v)}[rnd](t)


def ref_to_float(x: np.ndarray, dst: str, rnd: str) -> np.ndarray:
    """In-range values to a float type: numpy / ml_dtypes round to nearest even; the
    directed modes step the RNE result one ulp toward their side when it overshot."""
    to = dtype(dst).np
    y = x.astype(np.float64).astype(to) if dst != "bf16" else \
        x.astype(np.float32).astype(ml_dtypes.bfloat16)
    x64, y64 = x.astype(np.float64), y.astype(np.float64)
    if rnd == "F":
        y = np.where(y64 > x64, np.nextafter(y, np.array(-np.inf, to)), y)
    elif rnd == "C":
        y = np.where(y64 < x64, np.nextafter(y, np.array(np.inf, to)), y)
    elif rnd == "Z":
        y = np.where(np.abs(y64) > np.abs(x64), np.nextafter(y, np.array(0, to)), y)
    return y.astype(to)


def ref_element(x: np.ndarray, s: str, d: str, rnd: str, sat: bool) -> np.ndarray:
    """One source array converted element by element (independent of ptosim.isa.convert)."""
    dd = dtype(d)
    if dd.is_float:
        return ref_to_float(x, d, rnd)
    lo, hi = int_range(d)
    n = round64(x.astype(np.float64), rnd) if dtype(s).is_float else x.astype(np.int64)
    if sat:
        return np.clip(n, lo, hi).astype(np.int64).astype(dd.np)
    return n.astype(np.int64).astype(dd.np)             # wraps modulo 2^bits


def sample(s: str, d: str) -> np.ndarray:
    """A full source register of values every destination represents (mostly)."""
    n = lanes(s)
    if dtype(s).is_float:
        if dtype(d).is_float:
            return (RNG.uniform(-60, 60, n) * 1.37).astype(dtype(s).np)
        lo, hi = int_range(d)
        return RNG.uniform(max(lo, -3e4), min(hi, 3e4), n).astype(dtype(s).np)
    lo, hi = int_range(s)
    return RNG.integers(lo, hi, n, endpoint=True).astype(dtype(s).np)


def layout(conv: np.ndarray, active: np.ndarray, s: str, d: str, part: str | None
           ) -> np.ndarray:
    """The result register by explicit loops: narrowing puts value i in lane
    ratio*i + part, widening reads source lane ratio*i + part; inactive lanes 0."""
    ns, nd = lanes(s), lanes(d)
    p = {None: 0, "EVEN": 0, "ODD": 1, "P0": 0, "P1": 1, "P2": 2, "P3": 3}[part]
    out = np.zeros(nd, dtype(d).np)
    if nd >= ns:
        r = nd // ns
        for i in range(ns):
            if active[i]:
                out[r * i + p] = conv[i]
    else:
        r = ns // nd
        for i in range(nd):
            if active[r * i + p]:
                out[i] = conv[r * i + p]
    return out


def same(got: np.ndarray, want: np.ndarray) -> bool:
    if got.dtype.kind == "f" or got.dtype == ml_dtypes.bfloat16:
        g, w = got.astype(np.float64), want.astype(np.float64)
        return bool(np.all(((g == w) & (np.signbit(g) == np.signbit(w)))
                           | (np.isnan(g) & np.isnan(w))))
    return bool(np.array_equal(got, want))


def call(m, x, s, d, active, **attrs):
    g = min(dtype(s).size * 8, 32)
    if dtype(s).size == 8:      # a 64-bit lane spans two b32 lanes (as plt_b32 sets them)
        active = np.repeat(active, 2)
    return m.vcvt(VReg.from_lanes(x, s), Mask.from_lanes(active, g), dtype=d, **attrs).lanes


@pytest.mark.parametrize("pair", sorted(VCVT_RULES))
def test_every_pair_every_part_with_a_partial_mask(pair):
    s, d = pair
    rule = VCVT_RULES[pair]
    m = ptosim.Machine()
    x = sample(s, d)
    active = np.arange(lanes(s)) < lanes(s) - 7
    active[3] = False
    for part in PARTS[rule.ratio]:
        attrs = {k: v for k, v in (("rnd", "R" if rule.rnd else None),
                                   ("sat", "SAT" if rule.sat else None),
                                   ("part", part)) if v is not None}
        got = call(m, x, s, d, active, **attrs)
        want = layout(ref_element(x, s, d, "R", True), active, s, d, part)
        assert same(got, want), (pair, part)


@pytest.mark.parametrize("rnd", ["R", "A", "F", "C", "Z"])
@pytest.mark.parametrize("pair", [("f32", "f16"), ("f32", "bf16"), ("f32", "si32"),
                                  ("f16", "si16"), ("f32", "si16"), ("bf16", "si32")])
def test_rounding_modes(pair, rnd):
    s, d = pair
    m = ptosim.Machine()
    x = sample(s, d)
    x[:6] = np.array([2.5, -2.5, 3.5, -0.5, 1.25, -1.75]).astype(dtype(s).np)  # ties
    rule = VCVT_RULES[(s, d)]
    part = "EVEN" if rule.part else None
    attrs = {"rnd": rnd, "sat": "SAT", **({"part": part} if part else {})}
    active = np.ones(lanes(s), bool)
    got = call(m, x, s, d, active, **attrs)
    assert same(got, layout(ref_element(x, s, d, rnd, True), active, s, d, part))


@pytest.mark.parametrize("pair", [(s, d) for (s, d), r in VCVT_RULES.items()
                                  if r.sat and not dtype(s).is_float])
def test_integer_narrowing_sat_and_nosat(pair):
    """Full-range integers: SAT clamps, NOSAT wraps (Gym vcvt-i32-to-i16-overflow)."""
    s, d = pair
    m = ptosim.Machine()
    x = sample(s, d)
    active = np.ones(lanes(s), bool)
    part = PARTS[VCVT_RULES[pair].ratio][-1]
    for word, sat in (("SAT", True), ("NOSAT", False), ("RS_ENABLE", True),
                      ("RS_DISABLE", False)):
        got = call(m, x, s, d, active, sat=word, part=part)
        assert same(got, layout(ref_element(x, s, d, "R", sat), active, s, d, part)), word


def test_ctrl_bits_override_the_sat_attribute():
    """CTRL[60]=1 hands saturation to CTRL[59] (1 = non-saturating; pto-isa A5 TCvt.hpp)."""
    x = np.array([70000, -70000, 5, -5] * 16, np.int32)
    active = np.ones(64, bool)
    wrap = layout(x.astype(np.int16), active, "si32", "si16", "EVEN")
    clamp = layout(np.clip(x, -32768, 32767).astype(np.int16), active, "si32", "si16", "EVEN")
    m = ptosim.Machine(ctrl=(1 << 60) | (1 << 59))
    assert same(call(m, x, "si32", "si16", active, sat="SAT", part="EVEN"), wrap)
    m = ptosim.Machine(ctrl=1 << 60)
    assert same(call(m, x, "si32", "si16", active, sat="NOSAT", part="EVEN"), clamp)
    m = ptosim.Machine(ctrl=1 << 59)                      # no enable bit: the attribute
    assert same(call(m, x, "si32", "si16", active, sat="SAT", part="EVEN"), clamp)


def test_special_values():
    """f32 -> f16 SAT: NaN -> 0, +-inf -> +-65504 (Gym vcvt-f32-special); NOSAT keeps
    them; f16 -> f32 passes inf / NaN (Gym vcvt-f16-special); f32 -> si32 SAT: NaN -> 0,
    +-inf -> the limits."""
    m = ptosim.Machine()
    sp = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e6, -1e6, 65520.0], np.float32)
    x = np.resize(sp, 64).astype(np.float32)
    on = np.ones(64, bool)
    got = call(m, x, "f32", "f16", on, rnd="R", sat="SAT", part="EVEN")[0::2]
    want = np.resize(np.array([0, -0.0, 65504, -65504, 0, 65504, -65504, 65504],
                              np.float16), 64)
    assert same(got, want)
    got = call(m, x, "f32", "f16", on, rnd="R", sat="NOSAT", part="ODD")[1::2]
    assert same(got, np.resize(np.array([0, -0.0, np.inf, -np.inf, np.nan, np.inf,
                                         -np.inf, np.inf], np.float16), 64))
    h = np.resize(np.array([np.inf, -np.inf, np.nan, -0.0, 6e-8], np.float16), 128)
    got = call(m, h, "f16", "f32", np.ones(128, bool), part="EVEN")
    assert same(got, h[0::2].astype(np.float32))
    got = call(m, x, "f32", "si32", on, rnd="Z", sat="SAT")
    lo, hi = -2**31, 2**31 - 1
    assert got[:8].tolist() == [0, 0, hi, lo, 0, 1000000, -1000000, 65520]


def test_f32_to_f16_even_odd_merge_idiom():
    """The Gym narrowing idiom: EVEN of one register | ODD of the next = interleaved f16."""
    m = ptosim.Machine()
    a, b = sample("f32", "f16"), sample("f32", "f16")
    on = Mask.from_lanes(np.ones(64, bool), 32)
    ev = m.vcvt(VReg.from_lanes(a, "f32"), on, rnd="R", sat="SAT", part="EVEN", dtype="f16")
    od = m.vcvt(VReg.from_lanes(b, "f32"), on, rnd="R", sat="SAT", part="ODD", dtype="f16")
    merged = ev.raw.view(np.uint16) | od.raw.view(np.uint16)
    want = np.empty(128, np.float16)
    want[0::2], want[1::2] = a.astype(np.float16), b.astype(np.float16)
    assert np.array_equal(merged, want.view(np.uint16))


def test_vtrc_modes_specials_and_mask():
    m = ptosim.Machine()
    x = np.resize(np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 2.7, -2.7, 1e9 + 0.5,
                            np.inf, -np.inf, np.nan, -0.0, 0.49999997], np.float32), 64)
    active = np.arange(64) < 60
    ref = {"R": np.rint, "F": np.floor, "C": np.ceil, "Z": np.trunc,
           "A": lambda v: np.copysign(np.floor(np.abs(v) + np.float32(0.5)), v)}
    for rnd, fn in ref.items():
        for word in (rnd, f"ROUND_{rnd}"):
            got = m.vtrc(VReg.from_lanes(x, "f32"), Mask.from_lanes(active, 32), word).lanes
            want = np.where(active, fn(x.astype(np.float64)), 0).astype(np.float32)
            if rnd == "A":      # 0.49999997 + 0.5 rounds up in f32; the exact answer is 0
                want[13::14][active[13::14]] = 0.0
            assert same(got, want), rnd
    h = np.resize(np.array([0.5, 1.5, -2.5, 65504, np.inf], np.float16), 128)
    got = m.vtrc(VReg.from_lanes(h, "f16"), Mask.from_lanes(np.ones(128, bool), 16), "Z")
    assert same(got.lanes, np.trunc(h))
    b = np.resize(np.array([0.5, 1.5, -2.5, 3.75], ml_dtypes.bfloat16), 128)
    got = m.vtrc(VReg.from_lanes(b, "bf16"), Mask.from_lanes(np.ones(128, bool), 16), "R")
    assert same(got.lanes, np.rint(b.astype(np.float32)).astype(ml_dtypes.bfloat16))


def test_vbitcast_keeps_the_bytes():
    m = ptosim.Machine()
    x = RNG.normal(size=64).astype(np.float32)
    got = m.vbitcast(VReg.from_lanes(x, "f32"), dtype="ui16")
    assert got.dtype.name == "ui16" and np.array_equal(got.lanes, x.view(np.uint16))
    assert np.array_equal(m.vbitcast(got, dtype="f32").lanes, x)


# --- text form and verifier ------------------------------------------------------------------
KERNEL = """module attributes {{pto.target_arch = "a5", pto.kernel_kind = #pto.kernel_kind<vector>}} {{
  func.func @k() attributes {{pto.aicore}} {{
    %c0 = arith.constant 0 : i64
    %c512 = arith.constant 512 : i64
    %n = arith.constant 1000 : i32
    %p = pto.castptr %c0 : i64 -> !pto.ptr<{s}, ub>
    %q = pto.castptr %c512 : i64 -> !pto.ptr<{d}, ub>
    pto.vecscope {{
      %m, %r = pto.plt_b{g} %n : i32 -> !pto.mask<b{g}>, i32
      %mo, %ro = pto.plt_b{go} %n : i32 -> !pto.mask<b{go}>, i32
      %a = pto.vlds %p[%c0] : !pto.ptr<{s}, ub> -> !pto.vreg<{ns}x{s}>
      %b = {op} : !pto.vreg<{ns}x{s}>, !pto.mask<b{g}> -> !pto.vreg<{nd}x{d}>
      pto.vsts %b, %q[%c0], %mo : !pto.vreg<{nd}x{d}>, !pto.ptr<{d}, ub>, !pto.mask<b{go}>
    }}
    return
  }}
}}
"""


def kernel(s: str, d: str, op: str, g: int | None = None) -> str:
    gs = min(dtype(s).size * 8, 32)
    return KERNEL.format(s=s, d=d, g=g or gs, go=min(dtype(d).size * 8, 32), ns=lanes(s),
                         nd=lanes(d), op=op)


def test_text_form_runs_and_prints():
    k = Kernel.from_text(kernel("f32", "f16", 'pto.vcvt %a, %m {rnd = "R", sat = "SAT", '
                                'part = "ODD"}'), "k.pto")
    assert 'pto.vcvt %a, %m {rnd = "R", sat = "SAT", part = "ODD"}' in str(k.module)
    k.run({})
    Kernel.from_text(kernel("f32", "f32", 'pto.vtrc %a, %m, "ROUND_F"'), "k.pto").run({})
    Kernel.from_text(kernel("f32", "si32", "pto.vbitcast %a").replace(
        "%b = pto.vbitcast %a : !pto.vreg<64xf32>, !pto.mask<b32>",
        "%b = pto.vbitcast %a : !pto.vreg<64xf32>"), "k.pto").run({})


@pytest.mark.parametrize("s, d, op, g, message", [
    ("f32", "ui8", "pto.vcvt %a, %m", None, r"f32 -> ui8 is not a vcvt pair"),
    ("f16", "f32", 'pto.vcvt %a, %m {part = "EVEN"}', 32,
     r"mask is !pto.mask<b32> but vcvt takes the granularity of its source \(f16\): "
     r"!pto.mask<b16>"),
    ("f32", "f16", 'pto.vcvt %a, %m {sat = "SAT", part = "EVEN"}', None,
     r"f32 -> f16 requires the rnd attribute"),
    ("f16", "f32", 'pto.vcvt %a, %m {rnd = "R", part = "EVEN"}', None,
     r"the rnd attribute is not valid for f16 -> f32"),
    ("f32", "f16", 'pto.vcvt %a, %m {rnd = "R", part = "EVEN"}', None,
     r"f32 -> f16 requires the sat attribute"),
    ("si32", "f32", 'pto.vcvt %a, %m {rnd = "R", sat = "SAT"}', None,
     r"the sat attribute is not valid for si32 -> f32"),
    ("f16", "f32", "pto.vcvt %a, %m", None, r"f16 -> f32 requires the part attribute"),
    ("f32", "si32", 'pto.vcvt %a, %m {rnd = "R", sat = "SAT", part = "EVEN"}', None,
     r"the part attribute is not valid for f32 -> si32"),
    ("f16", "f32", 'pto.vcvt %a, %m {part = "P1"}', None,
     r"part P1 is illegal for f16 -> f32 \(widths differ 2x\); it takes EVEN or ODD"),
    ("ui32", "ui8", 'pto.vcvt %a, %m {sat = "SAT", part = "ODD"}', None,
     r"part ODD is illegal for ui32 -> ui8 \(widths differ 4x\); it takes P0 or P1"),
    ("f32", "f16", 'pto.vcvt %a, %m {rnd = "X", sat = "SAT", part = "EVEN"}', None,
     r"rnd must be one of R, A, F, C, Z, O, ROUND_R"),
    ("f32", "f16", 'pto.vcvt %a, %m {rnd = "R", sat = "YES", part = "EVEN"}', None,
     r"sat must be one of SAT, NOSAT, RS_ENABLE, RS_DISABLE"),
    ("f32", "f32", 'pto.vtrc %a, %m, "O"', None, r"rnd must be one of R, A, F, C, Z"),
    ("si32", "si32", 'pto.vtrc %a, %m, "R"', None,
     r"input has si32 elements; vtrc takes f16, bf16, f32"),
    ("f16", "f16", 'pto.vtrc %a, %m, "R"', 32,
     r"mask is !pto.mask<b32> but input has f16 elements; it takes !pto.mask<b16>"),
    ("f32", "f16", 'pto.vtrc %a, %m, "R"', None,
     r"the result has f16 elements but input has f32; they must match"),
])
def test_verifier_rules(s, d, op, g, message):
    text = kernel(s, d, op, g)
    if g is not None:     # a mask of another width than the loads imply
        text = text.replace(f"%m, %r = pto.plt_b{min(dtype(s).size * 8, 32)} %n : i32 -> "
                            f"!pto.mask<b{min(dtype(s).size * 8, 32)}>",
                            f"%m, %r = pto.plt_b{g} %n : i32 -> !pto.mask<b{g}>")
    with pytest.raises(PtoError, match=message):
        Kernel.from_text(text, "k.pto")


def test_python_face_errors():
    m = ptosim.Machine()
    v = VReg.from_lanes(np.zeros(64, np.float32), "f32")
    k32 = Mask.from_lanes(np.ones(64, bool), 32)
    with pytest.raises(PtoTypeError, match=r"vcvt.*f32 -> ui8 is not a vcvt pair"):
        m.vcvt(v, k32, dtype="ui8")
    with pytest.raises(PtoValueError, match=r"vcvt.*f32 -> f16 requires the part attribute"):
        m.vcvt(v, k32, rnd="R", sat="SAT", dtype="f16")
    with pytest.raises(PtoTypeError, match=r"vcvt.*result element type \(dtype=\)"):
        m.vcvt(v, k32, rnd="R", sat="SAT", part="EVEN")
    with pytest.raises(PtoTypeError, match=r"vcvt.*mask is !pto.mask<b16>"):
        m.vcvt(v, Mask.from_lanes(np.ones(128, bool), 16), rnd="R", sat="SAT",
               part="EVEN", dtype="f16")
    with pytest.raises(PtoValueError, match=r"vtrc.*round mode must be one of .* got 'O'"):
        m.vtrc(v, k32, "O")
    with pytest.raises(PtoTypeError, match=r"vtrc.*input has si32 elements"):
        m.vtrc(v.view("si32"), k32, "R")
    with pytest.raises(PtoTypeError, match=r"vbitcast.*input must be a vector register"):
        m.vbitcast(np.zeros(64), dtype="f32")
