"""Compare / select and carry-chain vector ops (rows of ptosim.isa.vector_cmp): each op
against an explicit numpy loop, partial masks, special values (NaN, +-inf, -0.0, unsigned
wrap), the text form, and one negative test per verifier and runtime rule."""

import numpy as np
import pytest

import ptosim
from ptosim.errors import PtoError, PtoTypeError, PtoValueError
from ptosim.kernel import Kernel
from ptosim.vector import Mask, VReg

RNG = np.random.default_rng(29)
MODES = {"eq": lambda a, b: a == b, "ne": lambda a, b: a != b, "lt": lambda a, b: a < b,
         "le": lambda a, b: a <= b, "gt": lambda a, b: a > b, "ge": lambda a, b: a >= b}


def reg(x, t):
    return VReg.from_lanes(np.asarray(x), t)


def tail(n, keep, g):
    return Mask.from_lanes(np.arange(n) < keep, g)


def lanes_of(mask: Mask) -> list[bool]:
    return [bool(b) for b in mask.lanes]


@pytest.mark.parametrize("mode", list(MODES))
def test_vcmp_f32_special_values_and_tail(mode):
    m = ptosim.Machine()
    specials = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, np.nan, 2.0]
    a = np.array(specials * 8, np.float32)
    b = np.array((specials[3:] + specials[:3]) * 8, np.float32)
    got = lanes_of(m.vcmp(reg(a, "f32"), reg(b, "f32"), tail(64, 61, 32), mode))
    want = [i < 61 and bool(MODES[mode](float(a[i]), float(b[i]))) for i in range(64)]
    assert got == want


@pytest.mark.parametrize("t", ["si16", "ui16", "i16"])
def test_vcmp_16_bit_signedness(t):
    """ui16 compares unsigned (0xFFFF > 1), si16 / i16 signed (-1 < 1)."""
    m = ptosim.Machine()
    np_t = np.uint16 if t == "ui16" else np.int16
    a = RNG.integers(0, 1 << 16, 128).astype(np.uint16).view(np_t)
    b = RNG.integers(0, 1 << 16, 128).astype(np.uint16).view(np_t)
    a[0], b[0] = np.array([0xFFFF, 1], np.uint16).view(np_t)
    got = lanes_of(m.vcmp(reg(a, t), reg(b, t), tail(128, 128, 16), "gt"))
    assert got == [bool(a[i] > b[i]) for i in range(128)]
    assert got[0] is (t == "ui16")


def test_vcmps_scalar_is_the_element_bit_pattern():
    """An i8 scalar -1 against ui8 registers is 255; against si8 it is -1."""
    m = ptosim.Machine()
    x = np.arange(256, dtype=np.uint8)
    got_u = lanes_of(m.vcmps(reg(x, "ui8"), -1, tail(256, 256, 8), "ge"))
    assert got_u == [i == 255 for i in range(256)]
    got_s = lanes_of(m.vcmps(reg(x.view(np.int8), "si8"), -1, tail(256, 200, 8), "gt"))
    assert got_s == [i < 200 and int(x.view(np.int8)[i]) > -1 for i in range(256)]


def test_vcmps_f32_nan_threshold_and_tail():
    m = ptosim.Machine()
    x = RNG.standard_normal(64).astype(np.float32)
    assert not any(lanes_of(m.vcmps(reg(x, "f32"), float("nan"), tail(64, 64, 32), "lt")))
    assert all(lanes_of(m.vcmps(reg(x, "f32"), float("nan"), tail(64, 64, 32), "ne")))
    got = lanes_of(m.vcmps(reg(x, "f32"), 0.0, tail(64, 10, 32), "gt"))
    assert got == [i < 10 and bool(x[i] > 0) for i in range(64)]


def test_vsel_keeps_bit_patterns_and_needs_no_execution_mask():
    m = ptosim.Machine()
    a = np.array([np.nan, -0.0] * 32, np.float32)
    a[0] = np.frombuffer(np.uint32(0x7FC01234).tobytes(), np.float32)[0]   # NaN payload
    b = RNG.standard_normal(64).astype(np.float32)
    pick = RNG.integers(0, 2, 64).astype(bool)
    got = m.vsel(reg(a, "f32"), reg(b, "f32"), Mask.from_lanes(pick, 32)).lanes
    want = np.array([a[i] if pick[i] else b[i] for i in range(64)], np.float32)
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))


def test_vsel_i16():
    m = ptosim.Machine()
    a, b = (RNG.integers(-30000, 30000, 128).astype(np.int16) for _ in range(2))
    pick = np.arange(128) % 3 == 0
    got = m.vsel(reg(a, "i16"), reg(b, "i16"), Mask.from_lanes(pick, 16)).lanes
    np.testing.assert_array_equal(got, np.where(pick, a, b))


@pytest.mark.parametrize("t, it", [("f32", "i32"), ("f16", "ui16"), ("ui8", "ui8")])
def test_vselr_gathers_lanes_by_index(t, it):
    m = ptosim.Machine()
    np_t = {"f32": np.float32, "f16": np.float16, "ui8": np.uint8}[t]
    n = 256 // np.dtype(np_t).itemsize
    src = (RNG.standard_normal(n) * 100).astype(np_t)
    idx = RNG.permutation(n) if n < 256 else RNG.integers(0, n, n)
    np_it = {"i32": np.int32, "ui16": np.uint16, "ui8": np.uint8}[it]
    got = m.vselr(reg(src, t), reg(idx.astype(np_it), it)).lanes
    np.testing.assert_array_equal(got, np.array([src[j] for j in idx], src.dtype))


def test_vselr_refuses_an_index_past_the_last_lane():
    m = ptosim.Machine()
    idx = np.zeros(64, np.int32)
    idx[5] = 64
    with pytest.raises(PtoValueError, match=r"vselr: index lane 5 is 64, past the last of "
                                             r"the 64 lanes of src"):
        m.vselr(reg(np.zeros(64, np.float32), "f32"), reg(idx, "i32"))
    with pytest.raises(PtoTypeError, match=r"index must hold 32-bit integers"):
        m.vselr(reg(np.zeros(64, np.float32), "f32"), reg(np.zeros(128, np.int16), "i16"))


def _carry_golden(a, b, cin, active, sub):
    out, carry = [], []
    for i in range(64):
        x, y = int(a[i]), int(b[i])
        if sub:
            r = x - y - (0 if cin[i] else 1)
            c = r >= 0
        else:
            r = x + y + (1 if cin[i] else 0)
            c = r >= 1 << 32
        out.append(r & 0xFFFFFFFF if active[i] else 0)
        carry.append(bool(c) and bool(active[i]))
    return np.array(out, np.uint32), carry


@pytest.mark.parametrize("op", ["vaddc", "vsubc", "vaddcs", "vsubcs"])
def test_carry_chain_against_64_bit_arithmetic(op):
    m = ptosim.Machine()
    a = RNG.integers(0, 1 << 32, 64, dtype=np.uint64).astype(np.uint32)
    b = RNG.integers(0, 1 << 32, 64, dtype=np.uint64).astype(np.uint32)
    a[:4] = [0xFFFFFFFF, 0, 5, 0xFFFFFFFF]
    b[:4] = [1, 1, 5, 0xFFFFFFFF]
    sub = "sub" in op
    chained = op.endswith("s")
    cin = RNG.integers(0, 2, 64).astype(bool) if chained else np.full(64, sub)
    active = np.arange(64) < 57
    mask = Mask.from_lanes(active, 32)
    args = [reg(a, "ui32"), reg(b, "ui32")] + ([Mask.from_lanes(cin, 32)] if chained else [])
    out, carry = getattr(m, op)(*args, mask)
    want_out, want_carry = _carry_golden(a, b, cin, active, sub)
    np.testing.assert_array_equal(out.lanes, want_out)
    assert lanes_of(carry) == want_carry


def test_carry_ops_refuse_other_element_types():
    m = ptosim.Machine()
    x = reg(np.zeros(128, np.int16), "i16")
    with pytest.raises(PtoTypeError, match=r"vaddc: src0 has i16 elements; vaddc takes i32, "
                                           r"si32, ui32"):
        m.vaddc(x, x, tail(128, 128, 16))


def test_compare_runtime_rules():
    m = ptosim.Machine()
    x = reg(np.zeros(64, np.float32), "f32")
    with pytest.raises(PtoValueError, match=r"vcmp: mode must be one of eq, ne, lt, le, gt, "
                                            r"ge, got 'lte'"):
        m.vcmp(x, x, tail(64, 64, 32), "lte")
    with pytest.raises(PtoTypeError, match=r"vcmp: mask is b16 but the registers hold f32"):
        m.vcmp(x, x, tail(128, 128, 16), "eq")
    with pytest.raises(PtoTypeError, match=r"vsel: src1 has i32 elements but src0 has f32"):
        m.vsel(x, reg(np.zeros(64, np.int32), "i32"), tail(64, 64, 32))
    with pytest.raises(PtoTypeError, match=r"vcmps: scalar must be an integer for i32"):
        m.vcmps(reg(np.zeros(64, np.int32), "i32"), 1.5, tail(64, 64, 32), "eq")


HEAD = """module attributes {pto.target_arch = "a5", pto.kernel_kind = #pto.kernel_kind<vector>} {
  func.func @k() attributes {pto.aicore} {
    %c0 = arith.constant 0 : i64
    %ci = arith.constant 0 : index
    %n = arith.constant 64 : i32
    %a = arith.constant 1.5 : f32
    %s16 = arith.constant 3 : i16
    %p = pto.castptr %c0 : i64 -> !pto.ptr<f32, ub>
    %q = pto.castptr %c0 : i64 -> !pto.ptr<ui32, ub>
    %h = pto.castptr %c0 : i64 -> !pto.ptr<i16, ub>
    pto.vecscope {
      %m, %r = pto.plt_b32 %n : i32 -> !pto.mask<b32>, i32
      %m16, %r16 = pto.plt_b16 %n : i32 -> !pto.mask<b16>, i32
      %x = pto.vlds %p[%ci] : !pto.ptr<f32, ub> -> !pto.vreg<64xf32>
      %u = pto.vlds %q[%ci] : !pto.ptr<ui32, ub> -> !pto.vreg<64xui32>
      %y = pto.vlds %h[%ci] : !pto.ptr<i16, ub> -> !pto.vreg<128xi16>
      %ix = pto.vci %n {order = "DESC"} : i32 -> !pto.vreg<64xi32>
      {body}
    }
    return
  }
}
"""
V32, U32, M32 = "!pto.vreg<64xf32>", "!pto.vreg<64xui32>", "!pto.mask<b32>"
GOOD = [
    f'%o = pto.vcmp %x, %x, %m, "le" : {V32}, {V32}, {M32} -> {M32}',
    '%o = pto.vcmps %y, %s16, %m16, "gt" : !pto.vreg<128xi16>, i16, !pto.mask<b16> -> !pto.mask<b16>',
    f'%o = pto.vcmps %x, %a, %m, "ne" : {V32}, f32, {M32} -> {M32}',
    f'%o = pto.vsel %x, %x, %m : {V32}, {V32}, {M32} -> {V32}',
    f'%o = pto.vaddc %u, %u, %m : {U32}, {U32}, {M32} -> {U32}, {M32}',
    f'%o, %c = pto.vsubcs %u, %u, %m, %m : {U32}, {U32}, {M32}, {M32} -> {U32}, {M32}',
]


@pytest.mark.parametrize("body", GOOD)
def test_text_forms_parse_print_and_run(body):
    if body.startswith("%o = pto.vaddc"):
        body = body.replace("%o = ", "%o, %c = ")
    k = Kernel.from_text(HEAD.replace("{body}", body), "k.pto")
    k.run({})
    again = Kernel.from_text(str(k.module), "again.pto")
    assert str(again.module) == str(k.module)


BAD = [
    (f'%o = pto.vcmp %x, %x, %m16, "lt" : {V32}, {V32}, !pto.mask<b16> -> !pto.mask<b16>',
     r"pto.vcmp: mask is !pto.mask<b16> but src0 has f32 elements; it takes !pto.mask<b32>"),
    (f'%o = pto.vcmp %x, %u, %m, "lt" : {V32}, {U32}, {M32} -> {M32}',
     r"pto.vcmp: src1 has ui32 elements but src0 has f32; they must match"),
    (f'%o = pto.vcmp %x, %x, %m, "lte" : {V32}, {V32}, {M32} -> {M32}',
     r'pto.vcmp: mode must be one of eq, ne, lt, le, gt, ge'),
    (f'%o = pto.vcmps %x, %s16, %m, "lt" : {V32}, i16, {M32} -> {M32}',
     r"pto.vcmps: scalar is i16 but src has f32 elements; it must be f32"),
    ('%o = pto.vcmps %y, %a, %m16, "lt" : !pto.vreg<128xi16>, f32, !pto.mask<b16> -> !pto.mask<b16>',
     r"pto.vcmps: scalar is f32 but src has i16 elements; it must be an i16"),
    (f'%o = pto.vcmps %x, %a, %m, "lt" : {V32}, f32, {M32} -> !pto.mask<b16>',
     r"pto.vcmps: result is !pto.mask<b16> but src has f32 elements; it takes !pto.mask<b32>"),
    (f'%o = pto.vsel %x, %x, %m16 : {V32}, {V32}, !pto.mask<b16> -> {V32}',
     r"pto.vsel: mask is !pto.mask<b16> but src0 has f32 elements"),
    (f'%o = pto.vselr %x, %ix : {V32}, !pto.vreg<64xi32> -> {U32}',
     r"pto.vselr: the result has ui32 elements but src has f32; they must match"),
    (f'%o, %c = pto.vaddc %x, %x, %m : {V32}, {V32}, {M32} -> {V32}, {M32}',
     r"pto.vaddc: src0 has f32 elements; carry chains take i32, si32, ui32"),
    (f'%o, %c = pto.vaddc %u, %u, %m : {U32}, {U32}, {M32} -> {U32}, !pto.mask<b16>',
     r"pto.vaddc: carry is !pto.mask<b16> but src0 has ui32 elements; it takes !pto.mask<b32>"),
    (f'%o, %c = pto.vaddcs %u, %u, %m16, %m : {U32}, {U32}, !pto.mask<b16>, {M32} -> {U32}, {M32}',
     r"pto.vaddcs: carry_in is !pto.mask<b16> but src0 has ui32 elements"),
]


@pytest.mark.parametrize("body, message", BAD)
def test_verifier_rules(body, message):
    with pytest.raises(PtoError, match=message):
        Kernel.from_text(HEAD.replace("{body}", body), "k.pto")
