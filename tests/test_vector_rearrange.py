"""The vector rearrangement micro ops (rows of `ptosim.isa.vector_rearrange`): each op
against an independent loop formulation, the SQZN register, the text forms and every
verifier rule."""

import numpy as np
import pytest

import ptosim
from ptosim.errors import PtoSyntaxError, PtoTypeError, PtoValueError
from ptosim.frontend import parse_module, print_module
from ptosim.isa import REGISTRY
from ptosim.vector import Mask, VReg
from ptosim.vector.rearrange import sqzn
from test_vector import kernel, run_copy

RNG = np.random.default_rng(13)


def rand_vreg(dt: str) -> VReg:
    return VReg(dt, RNG.integers(0, 256, 256, dtype=np.uint8))


def lanes_of(dt: str) -> int:
    return 256 // ptosim.dtype(dt).size


# --- interleave ---------------------------------------------------------------------------------
@pytest.mark.parametrize("dt", ["f32", "f16", "ui8", "i32"])
def test_vintlv_and_vdintlv_against_loops(dt):
    m = ptosim.Machine()
    a, b = rand_vreg(dt), rand_vreg(dt)
    n = a.n
    lo, hi = m.vintlv(a, b)
    stream = []
    for i in range(n):                           # l0, r0, l1, r1, ...
        stream += [a.lanes[i], b.lanes[i]]
    assert lo.raw.tobytes() == np.array(stream[:n], a.lanes.dtype).tobytes()
    assert hi.raw.tobytes() == np.array(stream[n:], a.lanes.dtype).tobytes()
    dlo, dhi = m.vdintlv(a, b)
    cat = list(a.lanes) + list(b.lanes)
    assert dlo.raw.tobytes() == np.array([cat[2 * i] for i in range(n)], a.lanes.dtype).tobytes()
    assert dhi.raw.tobytes() == np.array([cat[2 * i + 1] for i in range(n)],
                                         a.lanes.dtype).tobytes()
    assert m.vdintlv(lo, hi) == (a, b)           # the Gym round trip (vintlv-vdintlv)
    with pytest.raises(PtoTypeError, match=r"vintlv: rhs has .* elements but lhs has"):
        m.vintlv(a, b.view("ui8" if dt != "ui8" else "f16"))


# --- pack / unpack ------------------------------------------------------------------------------
@pytest.mark.parametrize("src_dt, dst_dt", [("i32", "ui16"), ("ui32", "ui16"), ("i16", "ui8"),
                                            ("ui16", "ui8")])
@pytest.mark.parametrize("part", ["LOWER", "HIGHER"])
def test_vpack_truncates_into_one_half(src_dt, dst_dt, part):
    m = ptosim.Machine()
    v = rand_vreg(src_dt)
    out = m.vpack(v, part, dtype=dst_dt)
    n = v.n
    bits = ptosim.dtype(dst_dt).size * 8
    expect = [0] * (2 * n)
    for i in range(n):
        expect[i + (0 if part == "LOWER" else n)] = int(v.lanes[i]) % (1 << bits)
    assert out.dtype.name == dst_dt and out.lanes.tolist() == expect


def test_vpack_runtime_rules():
    m = ptosim.Machine()
    with pytest.raises(PtoTypeError, match="vpack: src has f32 elements; vpack takes integer"):
        m.vpack(rand_vreg("f32"), "LOWER")
    with pytest.raises(PtoTypeError, match="vpack: src has ui8 elements; vpack narrows"):
        m.vpack(rand_vreg("ui8"), "LOWER")
    with pytest.raises(PtoValueError, match="vpack: part must be one of LOWER, HIGHER"):
        m.vpack(rand_vreg("i32"), "MIDDLE")
    with pytest.raises(PtoTypeError, match="the result of i32 lanes holds ui16, got ui8"):
        m.vpack(rand_vreg("i32"), "LOWER", dtype="ui8")


@pytest.mark.parametrize("op, src_dt, dst_dt", [
    ("vsunpack", "i16", "i32"), ("vsunpack", "i8", "i16"), ("vsunpack", "si16", "si32"),
    ("vzunpack", "ui16", "ui32"), ("vzunpack", "i8", "ui16"), ("vzunpack", "i16", "i32")])
@pytest.mark.parametrize("part", [0, 1])
def test_unpack_extends_one_half(op, src_dt, dst_dt, part):
    m = ptosim.Machine()
    v = rand_vreg(src_dt)
    out = getattr(m, op)(v, part, dtype=dst_dt)
    bits = ptosim.dtype(src_dt).size * 8
    wide = 2 * bits
    expect = []
    for i in range(v.n // 2):
        raw = int(v.lanes[part * v.n // 2 + i]) % (1 << bits)     # the narrow bit pattern
        if op == "vsunpack" and raw >= 1 << (bits - 1):
            raw -= 1 << bits
        expect.append(raw % (1 << wide))
    assert out.dtype.name == dst_dt
    assert out.lanes.view(f"u{wide // 8}").tolist() == expect


def test_unpack_runtime_rules():
    m = ptosim.Machine()
    with pytest.raises(PtoValueError, match=r"vsunpack: part selects half 0 .* or 1 .*got 2"):
        m.vsunpack(rand_vreg("i16"), 2)
    with pytest.raises(PtoTypeError, match="vzunpack: src has f16 elements"):
        m.vzunpack(rand_vreg("f16"), 0)
    with pytest.raises(PtoTypeError, match="vzunpack: the result of ui16 lanes is a 32-bit"):
        m.vzunpack(rand_vreg("ui16"), 0, dtype="ui16")


# --- permute, shift, slide ----------------------------------------------------------------------
@pytest.mark.parametrize("dt, idt", [("f32", "i32"), ("f16", "ui16"), ("ui8", "i8")])
def test_vperm_wraps_the_index(dt, idt):
    m = ptosim.Machine()
    v, ix = rand_vreg(dt), rand_vreg(idt)
    out = m.vperm(v, ix)
    n = v.n
    idx = ix.lanes.view(f"u{ix.dtype.size}")
    assert out.raw.tobytes() == b"".join(v.lanes[int(idx[i]) % n].tobytes() for i in range(n))
    with pytest.raises(PtoTypeError, match="vperm: index has 64 lanes but src has 128"):
        m.vperm(rand_vreg("f16"), rand_vreg("i32"))


@pytest.mark.parametrize("dt", ["f32", "i16", "ui8"])
@pytest.mark.parametrize("amt", [0, 1, 5, "n-1", "n"])
def test_vshift_and_vslide(dt, amt):
    m = ptosim.Machine()
    a, b = rand_vreg(dt), rand_vreg(dt)
    n = a.n
    k = {"n-1": n - 1, "n": n}.get(amt, amt)
    zero = np.zeros(1, a.lanes.dtype)[0]
    shifted = [a.lanes[i - k] if i >= k else zero for i in range(n)]
    assert m.vshift(a, k).raw.tobytes() == np.array(shifted, a.lanes.dtype).tobytes()
    window = [(list(b.lanes) + list(a.lanes))[k + i] for i in range(n)]   # src1 ‖ src0
    assert m.vslide(a, b, k).raw.tobytes() == np.array(window, a.lanes.dtype).tobytes()


def test_shift_amount_range():
    m = ptosim.Machine()
    with pytest.raises(PtoValueError, match=r"vshift: amt = 65 lanes is outside 0\.\.64"):
        m.vshift(rand_vreg("f32"), 65)
    with pytest.raises(PtoValueError, match=r"vslide: amt = -1 lanes is outside 0\.\.128"):
        m.vslide(rand_vreg("f16"), rand_vreg("f16"), -1)


# --- squeeze / unsqueeze ------------------------------------------------------------------------
@pytest.mark.parametrize("dt, g", [("f32", 32), ("f16", 16), ("i8", 8)])
@pytest.mark.parametrize("density", [0.0, 0.3, 1.0])
def test_vsqz_compacts_and_sets_sqzn(dt, g, density):
    m = ptosim.Machine()
    assert sqzn(m) == 0
    v = rand_vreg(dt)
    act = RNG.random(v.n) < density
    out = m.vsqz(v, Mask.from_lanes(act, g))
    kept = [v.lanes[i] for i in range(v.n) if act[i]]
    expect = kept + [np.zeros(1, v.lanes.dtype)[0]] * (v.n - len(kept))
    assert out.raw.tobytes() == np.array(expect, v.lanes.dtype).tobytes()
    assert sqzn(m) == len(kept) * v.dtype.size and m.regs["SQZN"] == (sqzn(m),)


@pytest.mark.parametrize("dt, g", [("i32", 32), ("si16", 16), ("i8", 8)])
def test_vusqz_counts_the_active_lanes_before_each_lane(dt, g):
    m = ptosim.Machine()
    v = rand_vreg(dt)
    act = RNG.random(v.n) < 0.4
    out = m.vusqz(v, Mask.from_lanes(act, g))
    count, expect = 0, []
    for i in range(v.n):
        expect.append(count)
        count += int(act[i])
    assert out.lanes.tolist() == expect and out.dtype.name == dt
    assert sqzn(m) == int(act.sum()) * v.dtype.size


def test_squeeze_runtime_rules():
    m = ptosim.Machine()
    with pytest.raises(PtoTypeError, match="vsqz: mask is b16 but the register holds f32; it "
                                           "takes b32"):
        m.vsqz(rand_vreg("f32"), Mask.from_lanes(np.ones(128, bool), 16))
    with pytest.raises(PtoTypeError, match="vusqz: src has ui32 elements; vusqz takes signed "
                                           "or signless"):
        m.vusqz(rand_vreg("ui32"), Mask.from_lanes(np.ones(64, bool), 32))
    with pytest.raises(PtoTypeError, match="vusqz: src has f32 elements"):
        m.vusqz(rand_vreg("f32"), Mask.from_lanes(np.ones(64, bool), 32))


# --- text forms ---------------------------------------------------------------------------------
TEXT = """    %part = arith.constant 1 : index
    %amt = arith.constant 3 : i16
    pto.vecscope {
      %m = pto.pset_b32 "PAT_VL16" : !pto.mask<b32>
      %a = pto.vlds %in[%c0] : !pto.ptr<f32, ub> -> !pto.vreg<64xf32>
      %b = pto.vlds %in[%c64] : !pto.ptr<f32, ub> -> !pto.vreg<64xf32>
      %lo, %hi = pto.vintlv %a, %b : !pto.vreg<64xf32>, !pto.vreg<64xf32> -> !pto.vreg<64xf32>, !pto.vreg<64xf32>
      %dl, %dh = pto.vdintlv %lo, %hi : !pto.vreg<64xf32>, !pto.vreg<64xf32> -> !pto.vreg<64xf32>, !pto.vreg<64xf32>
      %i = pto.vlds %in[%c0] : !pto.ptr<f32, ub> -> !pto.vreg<64xi32>
      %p = pto.vpack %i, "HIGHER" : !pto.vreg<64xi32> -> !pto.vreg<128xui16>
      %s = pto.vsunpack %p, %part : !pto.vreg<128xui16> -> !pto.vreg<64xi32>
      %z = pto.vzunpack %p, %part : !pto.vreg<128xui16> -> !pto.vreg<64xui32>
      %q = pto.vperm %a, %i : !pto.vreg<64xf32>, !pto.vreg<64xi32> -> !pto.vreg<64xf32>
      %h = pto.vshift %a, %amt : !pto.vreg<64xf32>, i16 -> !pto.vreg<64xf32>
      %l = pto.vslide %a, %b, %amt : !pto.vreg<64xf32>, !pto.vreg<64xf32>, i16 -> !pto.vreg<64xf32>
      %c = pto.vsqz %dh, %m : !pto.vreg<64xf32>, !pto.mask<b32> -> !pto.vreg<64xf32>
      %u = pto.vusqz %s, %m : !pto.vreg<64xi32>, !pto.mask<b32> -> !pto.vreg<64xi32>
      %all = pto.pset_b32 "PAT_ALL" : !pto.mask<b32>
      pto.vsts %c, %out[%c0], %all : !pto.vreg<64xf32>, !pto.ptr<f32, ub>, !pto.mask<b32>
      pto.vsts %s, %out[%c64], %all : !pto.vreg<64xi32>, !pto.ptr<f32, ub>, !pto.mask<b32>
      %c128 = arith.constant 128 : index
      pto.vsts %u, %out[%c128], %all : !pto.vreg<64xi32>, !pto.ptr<f32, ub>, !pto.mask<b32>
    }
"""


def test_text_round_trips_and_runs():
    printed = print_module(parse_module(kernel(TEXT), "k.pto"))
    for line in TEXT.splitlines()[3:-1]:
        if "pto.v" in line and "vlds" not in line and "vsts" not in line:
            assert line.strip() in printed
    assert print_module(parse_module(printed, "k.pto")) == printed
    x = RNG.standard_normal(256).astype(np.float32)
    y = run_copy(TEXT, x)
    # vdintlv(vintlv(a, b)) = (a, b): %c squeezes the first 16 lanes of b = x[64:80]
    assert y[:16].tolist() == x[64:80].tolist() and not y[16:64].any()
    # vpack HIGHER puts the low halves of x's first 64 words in lanes 64..127; part 1
    # sign-extends them
    low = x[:64].view(np.uint32) & 0xFFFF
    assert y[64:128].view(np.int32).tolist() == \
        [v - 0x10000 if v >= 0x8000 else v for v in low.tolist()]
    assert y[128:192].view(np.int32).tolist() == [min(i, 16) for i in range(64)]


@pytest.mark.parametrize("line, match", [
    ("%r, %s = pto.vintlv %a, %b : !pto.vreg<64xf32>, !pto.vreg<64xf32> -> "
     "!pto.vreg<64xf32>, !pto.vreg<64xi32>",
     "pto.vintlv: high has i32 elements but lhs has f32; operands and results share one"),
    ("%r, %s = pto.vdintlv %a, %i : !pto.vreg<64xf32>, !pto.vreg<64xi32> -> "
     "!pto.vreg<64xf32>, !pto.vreg<64xf32>", "pto.vdintlv: rhs has i32 elements but lhs"),
    ("%r = pto.vpack %i, \"LOWER\" : !pto.vreg<64xi32> -> !pto.vreg<128xi16>",
     r"pto.vpack: packs 32-bit integers to ui16 or 16-bit integers to ui8, got i32 -> i16"),
    ("%r = pto.vpack %a, \"LOWER\" : !pto.vreg<64xf32> -> !pto.vreg<128xui16>",
     r"pto.vpack: src \(f32\) and the result \(ui16\) must hold integers"),
    ("%r = pto.vpack %i, \"UPPER\" : !pto.vreg<64xi32> -> !pto.vreg<128xui16>",
     "pto.vpack: part must be one of LOWER, HIGHER"),
    ("%r = pto.vsunpack %i, %c0 : !pto.vreg<64xi32> -> !pto.vreg<64xi32>",
     "pto.vsunpack: the result elements must be twice as wide as src's, got i32 -> i32"),
    ("%r = pto.vzunpack %a, %c0 : !pto.vreg<64xf32> -> !pto.vreg<32xi64>",
     r"pto.vzunpack: src \(f32\) and the result \(i64\) must hold integers"),
    ("%r = pto.vperm %a, %a : !pto.vreg<64xf32>, !pto.vreg<64xf32> -> !pto.vreg<64xf32>",
     "pto.vperm: index has f32 elements; it must hold integers"),
    ("%r = pto.vperm %a, %i : !pto.vreg<64xf32>, !pto.vreg<64xi32> -> !pto.vreg<64xi32>",
     "pto.vperm: the result has i32 elements but src has f32"),
    ("%r = pto.vshift %a, %n : !pto.vreg<64xf32>, i32 -> !pto.vreg<64xf32>",
     "pto.vshift: amt is i32; the lane count is an i16"),
    ("%r = pto.vslide %a, %i, %k : !pto.vreg<64xf32>, !pto.vreg<64xi32>, i16 -> "
     "!pto.vreg<64xf32>", "pto.vslide: src1 has i32 elements but src0 has f32"),
    ("%r = pto.vsqz %a, %m16 : !pto.vreg<64xf32>, !pto.mask<b16> -> !pto.vreg<64xf32>",
     r"pto.vsqz: mask is !pto.mask<b16> but input has f32 elements; it takes !pto.mask<b32>"),
    ("%r = pto.vusqz %u, %m : !pto.vreg<64xui32>, !pto.mask<b32> -> !pto.vreg<64xui32>",
     "pto.vusqz: src has ui32 elements; vusqz takes signed or signless"),
    ("%r = pto.vusqz %i, %m : !pto.vreg<64xi32>, !pto.mask<b32> -> !pto.vreg<64xsi32>",
     "pto.vusqz: result has si32 elements but src has i32; they must match"),
])
def test_verifier_rules(line, match):
    body = ("    %n = arith.constant 1 : i32\n    %k = arith.constant 1 : i16\n"
            "    pto.vecscope {\n"
            "      %m = pto.pset_b32 \"PAT_ALL\" : !pto.mask<b32>\n"
            "      %m16 = pto.pset_b16 \"PAT_ALL\" : !pto.mask<b16>\n"
            "      %a = pto.vlds %in[%c0] : !pto.ptr<f32, ub> -> !pto.vreg<64xf32>\n"
            "      %i = pto.vlds %in[%c0] : !pto.ptr<f32, ub> -> !pto.vreg<64xi32>\n"
            "      %u = pto.vlds %in[%c0] : !pto.ptr<f32, ub> -> !pto.vreg<64xui32>\n"
            f"      {line}\n    }}\n")
    text = kernel(body)
    with pytest.raises(PtoSyntaxError, match=match) as err:
        parse_module(text, "k.pto")
    row = next(i for i, ln in enumerate(text.splitlines(), 1) if line[:20] in ln)
    assert err.value.loc.startswith(f"k.pto:{row}:")


def test_rows_are_registered():
    from ptosim.isa import vector_rearrange
    names = [r.name for r in vector_rearrange.ROWS]
    assert names == ["vintlv", "vdintlv", "vpack", "vsunpack", "vzunpack", "vperm", "vshift",
                     "vslide", "vsqz", "vusqz"]
    for r in vector_rearrange.ROWS:
        assert REGISTRY[r.name] is r and r.pipe == "V" and r.core == "vector"
        assert callable(getattr(ptosim.Machine, r.method))


def test_vusqz_and_vsqz_with_the_gym_nontrivial_masks():
    """Gym rearrangement/vusqz-nontrivial-mask and vsqz-nontrivial-mask place 16 active lanes
    at fixed positions (there via vcmps "gt" 0 on a seed vector; here as the mask)."""
    m = ptosim.Machine()
    pos = [1, 4, 5, 9, 12, 16, 21, 24, 29, 33, 36, 40, 45, 49, 54, 60]
    act = np.isin(np.arange(64), pos)
    counts = m.vusqz(VReg.from_lanes(np.arange(64) + 7, "i32"), Mask.from_lanes(act, 32))
    assert counts.lanes.tolist() == [sum(1 for q in pos if q < i) for i in range(64)]
    src = RNG.uniform(-8, 8, 64).astype(np.float32)
    sq = m.vsqz(VReg.from_lanes(src, "f32"), Mask.from_lanes(act, 32))
    assert sq.lanes.tolist() == src[pos].tolist() + [0.0] * 48 and sqzn(m) == 64
