"""Unaligned loads (vldas / vldus) and block-strided loads / stores (vsldb / vsstb)
against explicit byte loops, masked-off blocks, the text form and the rules."""

import numpy as np
import pytest

import ptosim
from ptosim.errors import PtoError, PtoTypeError, PtoValueError
from ptosim.kernel import Kernel
from ptosim.vector import Align, Mask, VReg

RNG = np.random.default_rng(53)


def machine_with(data: np.ndarray) -> ptosim.Machine:
    m = ptosim.Machine()
    m.write(m.ptr("ub", "f32", 0), data)
    return m


@pytest.mark.parametrize("start", [0, 1, 7, 9, 63])
def test_vldus_loads_256_bytes_from_any_element(start):
    data = RNG.standard_normal(256).astype(np.float32)
    m = machine_with(data)
    p = m.ptr("ub", "f32", 0) + start
    a = m.vldas(p)
    v, a2 = m.vldus(p, a)
    np.testing.assert_array_equal(v.lanes, data[start:start + 64])
    assert isinstance(a2, Align) and a2.generation == a.generation + 1


def test_vldus_needs_an_align_state():
    m = machine_with(np.zeros(64, np.float32))
    with pytest.raises(PtoTypeError, match=r"vldus: align must be an alignment state"):
        m.vldus(m.ptr("ub", "f32", 0), 3)


def blocks_golden(src: np.ndarray, bs: int, rs: int, active: list[bool]) -> np.ndarray:
    out = np.zeros(64, np.float32)
    for i in range(8):
        if active[i]:
            b = rs + i * bs
            out[i * 8:(i + 1) * 8] = src[b * 8:(b + 1) * 8]
    return out


@pytest.mark.parametrize("bs, rs", [(2, 4), (1, 0), (0, 3), (5, 1)])
def test_vsldb_takes_block_i_from_repeat_plus_i_times_block_stride(bs, rs):
    data = RNG.standard_normal(8 * (rs + 7 * bs + 1)).astype(np.float32)
    m = machine_with(data)
    active = [True, False, True, True, False, True, True, True]
    mask = Mask.from_lanes(np.array(active + [True] * 56), 32)
    got = m.vsldb(m.ptr("ub", "f32", 0), bs, rs, mask).lanes
    np.testing.assert_array_equal(got, blocks_golden(data, bs, rs, active))


def test_vsstb_writes_active_blocks_only():
    m = machine_with(np.full(512, -1, np.float32))
    v = VReg.from_lanes(np.arange(64, dtype=np.float32), "f32")
    active = [True, True, False, True, True, True, False, True]
    mask = Mask.from_lanes(np.array(active + [False] * 56), 32)
    m.vsstb(v, m.ptr("ub", "f32", 0), 3, 2, mask)
    got = m.read(m.ptr("ub", "f32", 0), 512)
    want = np.full(512, -1, np.float32)
    for i in range(8):
        if active[i]:
            b = 2 + 3 * i
            want[b * 8:(b + 1) * 8] = np.arange(i * 8, i * 8 + 8)
    np.testing.assert_array_equal(got, want)
    # and a round trip through vsldb gives the active blocks back
    back = m.vsldb(m.ptr("ub", "f32", 0), 3, 2, mask).lanes
    np.testing.assert_array_equal(back, np.where(np.repeat(active, 8), np.arange(64), 0))


def test_block_rules():
    m = machine_with(np.zeros(64, np.float32))
    full = Mask.from_lanes(np.ones(64, bool), 32)
    with pytest.raises(PtoValueError, match=r"vsldb: source must be 32-byte aligned, got UB "
                                            r"offset 4"):
        m.vsldb(m.ptr("ub", "f32", 0) + 1, 1, 0, full)
    with pytest.raises(PtoValueError, match=r"vsldb: block_stride must be a 16-bit count of "
                                            r"32-byte blocks \(0..65535\), got -1"):
        m.vsldb(m.ptr("ub", "f32", 0), -1, 0, full)
    with pytest.raises(PtoTypeError, match=r"vsstb: mask is b16 but the register holds f32"):
        m.vsstb(VReg.zeros("f32"), m.ptr("ub", "f32", 0), 1, 0,
                Mask.from_lanes(np.ones(128, bool), 16))


HEAD = """module attributes {pto.target_arch = "a5", pto.kernel_kind = #pto.kernel_kind<vector>} {
  func.func @k() attributes {pto.aicore} {
    %c0 = arith.constant 0 : i64
    %ci = arith.constant 0 : index
    %n = arith.constant 64 : i32
    %s2 = arith.constant 2 : i16
    %s32 = arith.constant 2 : i32
    %p = pto.castptr %c0 : i64 -> !pto.ptr<f32, ub>
    %u = pto.castptr %c0 : i64 -> !pto.ptr<ui32, ub>
    pto.vecscope {
      %m, %r = pto.plt_b32 %n : i32 -> !pto.mask<b32>, i32
      %m16, %r16 = pto.plt_b16 %n : i32 -> !pto.mask<b16>, i32
      %x = pto.vlds %p[%ci] : !pto.ptr<f32, ub> -> !pto.vreg<64xf32>
      BODY
    }
    return
  }
}
"""
V, P = "!pto.vreg<64xf32>", "!pto.ptr<f32, ub>"


@pytest.mark.parametrize("body", [
    f"%a = pto.vldas %p : {P} -> !pto.align\n"
    f"      %v, %a2 = pto.vldus %p, %a : {P}, !pto.align -> {V}, !pto.align",
    f"%v = pto.vsldb %p, %s2, %s2, %m : {P}, i16, i16, !pto.mask<b32> -> {V}",
    f"pto.vsstb %x, %p, %s2, %s2, %m : {V}, {P}, i16, i16, !pto.mask<b32>",
    f"%a = pto.init_align : !pto.align\n"
    f"      %a1 = pto.vstus %a, %s32, %x, %p : !pto.align, i32, {V}, {P} -> !pto.align\n"
    f"      pto.vstas %a1, %p, %s32 : !pto.align, {P}, i32",
    f"%a = pto.init_align : !pto.align\n"
    f'      %a1 = pto.vstur %a, %x, %p, "POST_UPDATE" : !pto.align, {V}, {P} -> !pto.align\n'
    f"      pto.vstar %a1, %p : !pto.align, {P}",
    "%a = pto.init_align : !pto.align\n"
    "      %a1, %b1 = pto.pstu %a, %m, %u : !pto.align, !pto.mask<b32>, !pto.ptr<ui32, ub> "
    "-> !pto.align, !pto.ptr<ui32, ub>",
])
def test_text_forms_parse_print_and_run(body):
    k = Kernel.from_text(HEAD.replace("BODY", body), "k.pto")
    k.run({})
    assert str(Kernel.from_text(str(k.module), "again.pto").module) == str(k.module)


@pytest.mark.parametrize("body, message", [
    (f"%v = pto.vsldb %p, %s2, %s2, %m16 : {P}, i16, i16, !pto.mask<b16> -> {V}",
     r"pto.vsldb: mask is !pto.mask<b16> but result has f32 elements; it takes "
     r"!pto.mask<b32>"),
    (f"pto.vsstb %x, %p, %s32, %s2, %m : {V}, {P}, i32, i16, !pto.mask<b32>",
     r"pto.vsstb: block_stride is i32; it is an i16 field"),
    ("%a = pto.init_align : !pto.align\n"
     "      %a1, %b1 = pto.pstu %a, %m, %p : !pto.align, !pto.mask<b32>, !pto.ptr<f32, ub> "
     "-> !pto.align, !pto.ptr<f32, ub>",
     r"pto.pstu: a !pto.mask<b32> stores through !pto.ptr<ui32, ub>, got !pto.ptr<f32, ub>"),
])
def test_verifier_rules(body, message):
    with pytest.raises(PtoError, match=message):
        Kernel.from_text(HEAD.replace("BODY", body), "k.pto")


# --- stateful unaligned stores (write-through model, docs/semantics.md) ------------------
def test_vstus_writes_offset_elements_and_vstas_flushes_nothing_more():
    m = machine_with(np.full(128, -1, np.float32))
    v = VReg.from_lanes(np.arange(64, dtype=np.float32), "f32")
    base = m.ptr("ub", "f32", 0) + 5
    a = m.vstus(m.init_align(), 3, v, base)
    m.vstas(a, base, 3)
    got = m.read(m.ptr("ub", "f32", 0), 128)
    want = np.full(128, -1, np.float32)
    want[5:8] = [0, 1, 2]
    np.testing.assert_array_equal(got, want)
    with pytest.raises(PtoValueError, match=r"vstus: offset must be 0..64 elements of f32, "
                                            r"got 65"):
        m.vstus(a, 65, v, base)


def test_vstur_writes_sqzn_bytes_at_ar_and_post_update_advances_ar():
    m = machine_with(np.zeros(128, np.float32))
    src = VReg.from_lanes(np.arange(1, 65, dtype=np.float32), "f32")
    keep = Mask.from_lanes(np.arange(64) % 8 == 0, 32)           # 8 lanes -> SQZN 32 bytes
    packed = m.vsqz(src, keep)
    m.sprclr("AR")
    base = m.ptr("ub", "f32", 0) + 1
    a = m.vstur(m.init_align(), packed, base, "POST_UPDATE")
    a = m.vstur(a, packed, base, "NO_POST_UPDATE")              # same place again: AR kept
    m.vstar(a, base)
    got = m.read(m.ptr("ub", "f32", 0), 32)
    want = np.zeros(32, np.float32)
    want[9:17] = np.arange(1, 65, 8)                                # at base + AR (32 bytes)
    want[1:9] = np.arange(1, 65, 8)
    np.testing.assert_array_equal(got, want)
    assert m.regs["AR"] == (32,)
    with pytest.raises(PtoValueError, match=r"vstur: mode must be one of POST_UPDATE, "
                                            r"NO_POST_UPDATE"):
        m.vstur(a, packed, base, "POST")


@pytest.mark.parametrize("g, t, n", [(32, "ui32", 64), (16, "ui16", 128)])
def test_pstu_packs_one_bit_per_lane_and_advances(g, t, n):
    m = ptosim.Machine()
    m.write(m.ptr("ub", "ui8", 0), np.full(64, 0xAA, np.uint8))
    first = RNG.integers(0, 2, n).astype(bool)
    second = np.arange(n) < 7
    base = m.ptr("ub", t, 0)
    a, b1 = m.pstu(m.init_align(), Mask.from_lanes(first, g), base)
    a, b2 = m.pstu(a, Mask.from_lanes(second, g), b1)
    m.vstas(a, b2, 0)
    size = n // 8
    got = m.read(m.ptr("ub", "ui8", 0), 64)
    want = np.full(64, 0xAA, np.uint8)
    want[:size] = np.packbits(first.astype(np.uint8), bitorder="little")
    want[size:2 * size] = np.packbits(second.astype(np.uint8), bitorder="little")
    np.testing.assert_array_equal(got, want)
    assert b2.offset == 2 * size
    with pytest.raises(PtoTypeError, match=rf"pstu: a b{g} predicate stores through a {t} "
                                           r"pointer, got f32"):
        m.pstu(a, Mask.from_lanes(first, g), m.ptr("ub", "f32", 0))
