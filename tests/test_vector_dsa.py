"""DSA / SFU vector ops and the UB sort helpers (rows of ptosim.isa.vector_dsa): each op
against an explicit numpy formulation (loops for the sorts), partial masks, special
values, the text form, and one negative test per verifier rule."""

import struct

import numpy as np
import pytest

import ptosim
from ptosim.errors import DtypeError, FieldRangeError, PtoError, PtoTypeError, PtoValueError
from ptosim.kernel import Kernel
from ptosim.vector import Mask, VReg

RNG = np.random.default_rng(13)


def f32(x):
    return VReg.from_lanes(np.asarray(x, np.float32), "f32")


def tail(n, keep, g=32):
    return Mask.from_lanes(np.arange(n) < keep, g)


# --- lane ops ------------------------------------------------------------------------------
def test_vprelu_per_lane_slope_zeroes_inactive_lanes():
    m = ptosim.Machine()
    x = RNG.uniform(-4, 4, 64).astype(np.float32)
    x[:4] = [0.0, -0.0, np.inf, -np.inf]
    a = RNG.uniform(0.05, 0.5, 64).astype(np.float32)
    got = m.vprelu(f32(x), f32(a), tail(64, 50)).lanes
    want = np.zeros(64, np.float32)
    for i in range(50):
        want[i] = x[i] if x[i] >= 0 else np.float32(x[i] * a[i])
    np.testing.assert_array_equal(got, want)
    assert np.signbit(got[1])                   # -0 >= 0: passes through unchanged


def test_vprelu_f16():
    m = ptosim.Machine()
    x = RNG.uniform(-4, 4, 128).astype(np.float16)
    a = np.full(128, 0.25, np.float16)
    got = m.vprelu(VReg.from_lanes(x, "f16"), VReg.from_lanes(a, "f16"),
                   tail(128, 128, 16)).lanes
    np.testing.assert_array_equal(got, np.where(x >= 0, x, x * a))


def test_vexpdif_f32_lane_for_lane_with_special_values():
    m = ptosim.Machine()
    x = np.array([0, 88, -120, np.nan, np.inf, -np.inf, 1, -1] * 8, np.float32)
    mx = np.array([0, 0, 0, 1, np.inf, -np.inf, -1, 1] * 8, np.float32)
    for part in ("EVEN", "ODD"):                # part does not matter for f32 sources
        got = m.vexpdif(f32(x), f32(mx), tail(64, 60), part).lanes
        with np.errstate(all="ignore"):
            want = np.array([np.exp(np.float32(x[i] - mx[i])) if i < 60 else 0
                             for i in range(64)], np.float32)
        np.testing.assert_array_equal(got, want)
    assert np.isnan(got[3]) and np.isnan(got[4]) and got[2] == np.exp(np.float32(-120))


def test_vexpdif_f16_even_odd_parts_follow_the_source_lane_mask():
    m = ptosim.Machine()
    x = RNG.uniform(-4, 4, 128).astype(np.float16)
    mx = RNG.uniform(-2, 2, 128).astype(np.float16)
    active = np.arange(128) % 5 != 0            # mask over the 128 f16 source lanes
    mask = Mask.from_lanes(active, 16)
    for part, first in (("EVEN", 0), ("ODD", 1)):
        got = m.vexpdif(VReg.from_lanes(x, "f16"), VReg.from_lanes(mx, "f16"), mask,
                        part)
        assert got.dtype.name == "f32" and got.n == 64
        want = np.zeros(64, np.float32)
        for j in range(64):
            s = 2 * j + first
            if active[s]:
                want[j] = np.exp(np.float32(x[s]) - np.float32(mx[s]))
        np.testing.assert_array_equal(got.lanes, want)


def test_vaxpy_merges_src1_into_inactive_lanes():
    m = ptosim.Machine()
    a = RNG.uniform(-8, 8, 64).astype(np.float32)
    b = RNG.uniform(-8, 8, 64).astype(np.float32)
    got = m.vaxpy(f32(a), f32(b), np.float32(1.5), tail(64, 40)).lanes
    want = b.copy()
    for i in range(40):                         # fused: one rounding of the exact value
        want[i] = np.float32(1.5 * np.float64(a[i]) + np.float64(b[i]))
    np.testing.assert_array_equal(got, want)


def test_vmula_fused_and_merging():
    m = ptosim.Machine()
    acc = RNG.uniform(-8, 8, 64).astype(np.float32)
    x = RNG.uniform(-8, 8, 64).astype(np.float32)
    y = RNG.uniform(-8, 8, 64).astype(np.float32)
    got = m.vmula(f32(acc), f32(x), f32(y), tail(64, 33)).lanes
    want = acc.copy()
    for i in range(33):
        want[i] = np.float32(np.float64(acc[i]) + np.float64(x[i]) * np.float64(y[i]))
    np.testing.assert_array_equal(got, want)
    # one rounding, not two: 1 + (1 + 2^-23)(1 - 2^-23) = 2 - 2^-46 rounds to 2 exactly,
    # rounding the product first (to 1) would give 2 as well; pick a case that differs
    e = np.float32(2.0 ** -12)
    one = f32(np.full(64, 1 + e))
    neg = f32(np.full(64, -1.0))
    fused = m.vmula(neg, one, one, tail(64, 64)).lanes[0]
    assert fused == np.float32(2 * 2.0 ** -12 + 2.0 ** -24)   # (1+e)^2 - 1, exact
    i16 = VReg.from_lanes(np.array([32767, -5] * 64, np.int16), "i16")
    got = m.vmula(i16, i16, i16, tail(128, 128, 16)).lanes
    want = (np.array([32767, -5] * 64, np.int64) * np.array([32767, -5] * 64) +
            np.array([32767, -5] * 64))
    np.testing.assert_array_equal(got, want.astype(np.int16))   # wraps


def test_vmull_signed_and_unsigned_halves():
    m = ptosim.Machine()
    a = RNG.integers(-2**31, 2**31, 64).astype(np.int32)
    b = RNG.integers(-2**31, 2**31, 64).astype(np.int32)
    a[:2], b[:2] = [-2**31, -1], [-2**31, -1]
    lo, hi = m.vmull(VReg.from_lanes(a, "i32"), VReg.from_lanes(b, "i32"), tail(64, 60))
    for i in range(64):
        p = int(a[i]) * int(b[i]) if i < 60 else 0
        assert int(lo.lanes[i]) & 0xFFFFFFFF == p & 0xFFFFFFFF
        assert int(hi.lanes[i]) & 0xFFFFFFFF == (p >> 32) & 0xFFFFFFFF
    ua, ub = a.view(np.uint32), b.view(np.uint32)
    lo, hi = m.vmull(VReg.from_lanes(ua, "ui32"), VReg.from_lanes(ub, "ui32"), tail(64, 64))
    p = ua.astype(object) * ub.astype(object)
    assert [int(v) for v in lo.lanes] == [int(v) & 0xFFFFFFFF for v in p]
    assert [int(v) for v in hi.lanes] == [int(v) >> 32 for v in p]


def test_vaddreluconv_and_vmulconv_same_type_forms():
    m = ptosim.Machine()
    a = RNG.normal(size=64).astype(np.float32)
    b = RNG.normal(size=64).astype(np.float32)
    np.testing.assert_array_equal(m.vaddreluconv(f32(a), f32(b)).lanes,
                                  np.maximum(a + b, np.float32(0)))
    np.testing.assert_array_equal(m.vmulconv(f32(a), f32(b)).lanes, a * b)
    with pytest.raises(PtoValueError, match=r"vaddreluconv.*converting form f32 -> f16 has "
                                            r"no published semantics"):
        m.vaddreluconv(f32(a), f32(b), dtype="f16")


def test_runtime_operand_rules():
    m = ptosim.Machine()
    v, k = f32(np.zeros(64)), tail(64, 64)
    i32 = VReg.from_lanes(np.zeros(64, np.int32), "i32")
    with pytest.raises(DtypeError, match=r"vexpdif.*input has i32 elements; vexpdif takes "
                                         r"f16, f32"):
        m.vexpdif(i32, i32, k, "ODD")
    with pytest.raises(PtoValueError, match="part must be one of EVEN, ODD"):
        m.vexpdif(v, v, k, "LOW")
    with pytest.raises(DtypeError, match="lhs has f32 elements; vmull takes i32, si32, ui32"):
        m.vmull(v, v, k)
    with pytest.raises(PtoTypeError, match="rhs has i32 elements but the first register "
                                           "has f32"):
        m.vmula(v, v, i32, k)
    with pytest.raises(PtoTypeError, match="mask is b16 but the registers hold f32"):
        m.vaxpy(v, v, 1.0, tail(128, 128, 16))


# --- sorts ---------------------------------------------------------------------------------
def records(raw, score_dt=np.float32):
    """(score, index) pairs of 8-byte records, decoded one by one."""
    out = []
    for r in range(len(raw) // 8):
        rec = bytes(raw[8 * r:8 * r + 8])
        score = np.frombuffer(rec[:np.dtype(score_dt).itemsize], score_dt)[0]
        out.append((score, struct.unpack("<I", rec[4:])[0]))
    return out


def naive_desc(scores, ids):
    """Selection sort: repeatedly the first maximum (NaN after every number)."""
    left = list(range(len(scores)))
    out = []
    while left:
        best = left[0]
        for i in left[1:]:
            s, b = scores[i], scores[best]
            if not np.isnan(s) and (np.isnan(b) or s > b):
                best = i
        out.append((scores[best], ids[best]))
        left.remove(best)
    return out


def same_pairs(got, want):
    assert len(got) == len(want)
    for (gs, gi), (ws, wi) in zip(got, want):
        assert gi == wi and (gs == ws or (np.isnan(gs) and np.isnan(ws)))


def test_vbitsort_gym_example_two_repeats_and_ties():
    m = ptosim.Machine()
    s0 = np.array([3.5, -2.0, 7.0, 7.0, 1.5, 4.25, 0.0, 9.5, -8.0, 9.5, 2.0, 2.0, 6.0, 6.0,
                   -1.0, 5.75, 5.75, 4.25, 8.0, 8.0, 3.0, -4.5, 1.25, 1.25, 10.0, 10.0, -3.0,
                   0.5, 12.0, 12.0, -7.0, 6.5], np.float32)       # Gym dsa-sfu/vbitsort
    s1 = RNG.integers(-3, 3, 32).astype(np.float32)               # many ties
    s1[[3, 9]] = [np.nan, -0.0]
    scores = np.concatenate([s0, s1])
    ids = np.arange(1000, 1064, dtype=np.uint32)
    src, idx, dst = m.ptr("ub", "f32", 0), m.ptr("ub", "ui32", 256), m.ptr("ub", "f32", 512)
    m.write(src, scores)
    m.write(idx, ids)
    m.vbitsort(dst, src, idx, 2)
    raw = m.read(dst.cast("ui8"), 512)
    for g in range(2):
        sl = slice(32 * g, 32 * g + 32)
        same_pairs(records(raw[256 * g:256 * g + 256]), naive_desc(scores[sl], ids[sl]))
    assert records(raw[:16]) == [(12.0, 1028), (12.0, 1029)]     # stable tie


def test_vbitsort_f16_score_field():
    m = ptosim.Machine()
    scores = RNG.normal(size=32).astype(np.float16)
    ids = np.arange(32, dtype=np.uint32) * 3
    src, idx, dst = m.ptr("ub", "f16", 0), m.ptr("ub", "ui32", 64), m.ptr("ub", "f16", 256)
    m.write(dst.cast("ui8"), np.full(256, 0xAA, np.uint8))
    m.write(src, scores)
    m.write(idx, ids)
    m.vbitsort(dst, src, idx, 1)
    raw = m.read(dst.cast("ui8"), 256)
    same_pairs(records(raw, np.float16), naive_desc(scores, ids))
    assert not raw.reshape(32, 8)[:, 2:4].any()      # reserved bytes of the score field


def test_vbitsort_rules():
    m = ptosim.Machine()
    src, idx, dst = m.ptr("ub", "f32", 0), m.ptr("ub", "ui32", 256), m.ptr("ub", "f32", 512)
    with pytest.raises(FieldRangeError, match=r"repeat_times = 256 is outside \[0, 255\]"):
        m.vbitsort(dst, src, idx, 256)
    with pytest.raises(DtypeError, match="source points to i32; vbitsort sorts f16 or f32"):
        m.vbitsort(dst, src.cast("i32"), idx, 1)
    with pytest.raises(DtypeError, match="indices points to f16; the index field is 32 bits"):
        m.vbitsort(dst, src, idx.cast("f16"), 1)
    with pytest.raises(PtoError, match="must point into ub"):
        m.vbitsort(dst, m.ptr("l1", "f32", 0), idx, 1)


def naive_merge(lists, valid, exhausted):
    """The merge as a loop over heads: highest first, lower list on ties, stop when a
    valid list runs out (exhausted mode)."""
    pos, out = [0] * 4, []
    while True:
        if exhausted and any(valid >> k & 1 and pos[k] == len(lists[k]) for k in range(4)):
            break
        cands = [k for k in range(4) if valid >> k & 1 and pos[k] < len(lists[k])]
        if not cands:
            break
        best = cands[0]
        for k in cands[1:]:
            if lists[k][pos[k]][0] > lists[best][pos[best]][0]:
                best = k
        out.append(lists[best][pos[best]])
        pos[best] += 1
    return out, pos


def pack(pairs, dt=np.float32):
    raw = bytearray()
    for s, i in pairs:
        score = np.asarray(s, dt).tobytes()
        raw += score + bytes(4 - len(score)) + struct.pack("<I", i)
    return np.frombuffer(bytes(raw), np.uint8)


def sorted_list(n, base):
    s = np.sort(RNG.integers(0, 20, n).astype(np.float32))[::-1]
    return [(float(v), base + j) for j, v in enumerate(s)]


@pytest.mark.parametrize("valid, exhausted", [(0xF, False), (0xF, True), (0b0101, False),
                                              (0b0011, True)])
def test_vmrgsort4_against_a_loop(valid, exhausted):
    m = ptosim.Machine()
    lens = [5, 3, 7, 2]
    lists = [sorted_list(n, 100 * k) for k, n in enumerate(lens)]
    ub = m.ptr("ub", "f32", 0)
    starts = [0, 64, 128, 192]                   # byte offsets of the four lists
    for s, lst in zip(starts, lists):
        m.write(ub.cast("ui8") + s, pack(lst))
    dst = m.ptr("ub", "f32", 1024)
    count = sum(n << (16 * k) for k, n in enumerate(lens))
    cfg = 1 | valid << 8 | int(exhausted) << 12
    m.vmrgsort4(dst, *(ub.cast("ui8").__add__(s).cast("f32") for s in starts), count, cfg)
    want, pos = naive_merge(lists, valid, exhausted)
    got = records(m.read(dst.cast("ui8"), 8 * len(want)))
    assert got == [(np.float32(s), i) for s, i in want]
    assert list(m.get_vms4_sr()) == pos


def test_vmrgsort4_gym_exhausted_example_and_repeats():
    m = ptosim.Machine()
    ub = m.ptr("ub", "f32", 0)
    m.write(ub.cast("ui8"), pack([(9.0, 90), (7.0, 70), (8.0, 80), (6.0, 60)]))
    dst = m.ptr("ub", "f32", 32)
    assert m.get_vms4_sr() == (0, 0, 0, 0)       # before any merge
    m.vmrgsort4(dst, ub, ub + 2, ub + 4, ub + 6, 0x0001_0001_0001_0001, 0x1F01)
    assert records(m.read(dst.cast("ui8"), 8)) == [(9.0, 90)]
    assert m.get_vms4_sr() == (1, 0, 0, 0)       # Gym dsa-sfu/vmrgsort4 golden
    # two repeats of four 2-record blocks laid out back to back (pto-isa TMrgSort's
    # single-source form): repeat r reads and writes 8 records further on
    blocks = [sorted_list(2, 10 * b) for b in range(8)]
    m.write(ub.cast("ui8"), pack([p for b in blocks for p in b]))
    out = m.ptr("ub", "f32", 512)
    m.vmrgsort4(out, ub, ub + 4, ub + 8, ub + 12, 0x0002_0002_0002_0002, 0x0F02)
    got = records(m.read(out.cast("ui8"), 128))
    want = naive_merge(blocks[:4], 0xF, False)[0] + naive_merge(blocks[4:], 0xF, False)[0]
    assert got == [(np.float32(s), i) for s, i in want]


def test_vmrgsort4_f16_and_rules():
    m = ptosim.Machine()
    ub = m.ptr("ub", "f16", 0)
    lists = [[(3.0, 1), (1.0, 2)], [(2.0, 3)], [(3.0, 4)], [(0.5, 5)]]
    offs = [0, 16, 24, 32]
    for o, lst in zip(offs, lists):
        m.write(ub.cast("ui8") + o, pack(lst, np.float16))
    dst = m.ptr("ub", "f16", 256)
    m.vmrgsort4(dst, *(ub + o // 2 for o in offs), 0x0001_0001_0001_0002, 0x0F01)
    got = records(m.read(dst.cast("ui8"), 40), np.float16)
    assert got == [(3.0, 1), (3.0, 4), (2.0, 3), (1.0, 2), (0.5, 5)]
    with pytest.raises(FieldRangeError, match=r"config = 0x2f01 sets bits above 12"):
        m.vmrgsort4(dst, ub, ub, ub, ub, 1, 0x2F01)
    with pytest.raises(PtoValueError, match="exhausted suspension with repeat 2 > 1"):
        m.vmrgsort4(dst, ub, ub, ub, ub, 1, 0x1F02)
    with pytest.raises(DtypeError, match="source2 points to f32 but destination to f16"):
        m.vmrgsort4(dst, ub, ub, ub.cast("f32"), ub, 1, 0x0F01)
    with pytest.raises(DtypeError, match="destination points to i32; vmrgsort4 sorts f16 "
                                         "or f32"):
        i = ub.cast("i32")
        m.vmrgsort4(i, i, i, i, i, 1, 0x0F01)


# --- text form and verifier rules --------------------------------------------------------
HEAD = """module attributes {pto.target_arch = "a5", pto.kernel_kind = #pto.kernel_kind<vector>} {
  func.func @k() attributes {pto.aicore} {
    %c0 = arith.constant 0 : i64
    %c1 = arith.constant 1 : index
    %ci = arith.constant 0 : index
    %n = arith.constant 64 : i32
    %a = arith.constant 1.5 : f32
    %p = pto.castptr %c0 : i64 -> !pto.ptr<f32, ub>
    %q = pto.castptr %c0 : i64 -> !pto.ptr<i32, ub>
    %h = pto.castptr %c0 : i64 -> !pto.ptr<f16, ub>
"""
VEC = """    pto.vecscope {{
      %m, %r = pto.plt_b32 %n : i32 -> !pto.mask<b32>, i32
      %m16, %r16 = pto.plt_b16 %n : i32 -> !pto.mask<b16>, i32
      %x = pto.vlds %p[%ci] : !pto.ptr<f32, ub> -> !pto.vreg<64xf32>
      %i = pto.vlds %q[%ci] : !pto.ptr<i32, ub> -> !pto.vreg<64xi32>
      %y = pto.vlds %h[%ci] : !pto.ptr<f16, ub> -> !pto.vreg<128xf16>
      {body}
    }}
"""
TAIL = """    return
  }
}
"""

GOOD = [
    '%o = pto.vprelu %x, %x, %m : !pto.vreg<64xf32>, !pto.vreg<64xf32>, !pto.mask<b32> -> !pto.vreg<64xf32>',
    '%o = pto.vexpdif %y, %y, %m16, "EVEN" : !pto.vreg<128xf16>, !pto.vreg<128xf16>, !pto.mask<b16> -> !pto.vreg<64xf32>',
    '%o = pto.vaxpy %x, %x, %a, %m : !pto.vreg<64xf32>, !pto.vreg<64xf32>, f32, !pto.mask<b32> -> !pto.vreg<64xf32>',
    '%l, %hh = pto.vmull %i, %i, %m : !pto.vreg<64xi32>, !pto.vreg<64xi32>, !pto.mask<b32> -> !pto.vreg<64xi32>, !pto.vreg<64xi32>',
    '%o = pto.vmula %x, %x, %x, %m : !pto.vreg<64xf32>, !pto.vreg<64xf32>, !pto.vreg<64xf32>, !pto.mask<b32> -> !pto.vreg<64xf32>',
    '%o = pto.vaddreluconv %x, %x : !pto.vreg<64xf32>, !pto.vreg<64xf32> -> !pto.vreg<64xf32>',
    '%o = pto.vmulconv %i, %i : !pto.vreg<64xi32>, !pto.vreg<64xi32> -> !pto.vreg<64xi32>',
]


@pytest.mark.parametrize("body", GOOD)
def test_text_forms_parse_print_and_run(body):
    k = Kernel.from_text(HEAD + VEC.format(body=body) + TAIL, "k.pto")
    k.run({})
    again = Kernel.from_text(str(k.module), "again.pto")   # the printed form parses back
    assert str(again.module) == str(k.module)


def test_sort_text_forms_run():
    body = """    pto.vbitsort %p, %p, %q, %c1 : !pto.ptr<f32, ub>, !pto.ptr<f32, ub>, !pto.ptr<i32, ub>, index
    %cnt = arith.constant 281479271743489 : i64
    %cfg = arith.constant 7937 : i64
    pto.vmrgsort4 %p, %p, %p, %p, %p, %cnt, %cfg : !pto.ptr<f32, ub>, !pto.ptr<f32, ub>, !pto.ptr<f32, ub>, !pto.ptr<f32, ub>, !pto.ptr<f32, ub>, i64, i64
    %l0, %l1, %l2, %l3 = pto.get_vms4_sr : i16, i16, i16, i16
"""
    Kernel.from_text(HEAD + body + TAIL, "k.pto").run({})


BAD = [
    ('%o = pto.vprelu %i, %i, %m : !pto.vreg<64xi32>, !pto.vreg<64xi32>, !pto.mask<b32> -> !pto.vreg<64xi32>',
     "pto.vprelu: src0 has i32 elements; vprelu takes f16, f32"),
    ('%o = pto.vexpdif %y, %y, %m, "EVEN" : !pto.vreg<128xf16>, !pto.vreg<128xf16>, !pto.mask<b32> -> !pto.vreg<64xf32>',
     r"pto.vexpdif: mask is !pto.mask<b32> but input has f16 elements; it takes !pto.mask<b16>"),
    ('%o = pto.vexpdif %x, %x, %m, "ODD" : !pto.vreg<64xf32>, !pto.vreg<64xf32>, !pto.mask<b32> -> !pto.vreg<64xi32>',
     "pto.vexpdif: the result has i32 elements; vexpdif yields f32"),
    ('%o = pto.vexpdif %x, %y, %m, "ODD" : !pto.vreg<64xf32>, !pto.vreg<128xf16>, !pto.mask<b32> -> !pto.vreg<64xf32>',
     "pto.vexpdif: max has f16 elements but input has f32; they must match"),
    ('%o = pto.vexpdif %i, %i, %m, "ODD" : !pto.vreg<64xi32>, !pto.vreg<64xi32>, !pto.mask<b32> -> !pto.vreg<64xf32>',
     "pto.vexpdif: input has i32 elements; vexpdif takes f16, f32"),
    ('%o = pto.vexpdif %x, %x, %m, "MID" : !pto.vreg<64xf32>, !pto.vreg<64xf32>, !pto.mask<b32> -> !pto.vreg<64xf32>',
     r'pto.vexpdif: part must be one of EVEN, ODD \(quoted\), got "MID"'),
    ('%o = pto.vaxpy %x, %x, %n, %m : !pto.vreg<64xf32>, !pto.vreg<64xf32>, i32, !pto.mask<b32> -> !pto.vreg<64xf32>',
     "pto.vaxpy: alpha is i32 but the registers hold f32; they must match"),
    ('%o = pto.vaxpy %i, %i, %n, %m : !pto.vreg<64xi32>, !pto.vreg<64xi32>, i32, !pto.mask<b32> -> !pto.vreg<64xi32>',
     "pto.vaxpy: src0 has i32 elements; vaxpy takes f16, f32"),
    ('%o = pto.vaxpy %x, %x, %a, %m16 : !pto.vreg<64xf32>, !pto.vreg<64xf32>, f32, !pto.mask<b16> -> !pto.vreg<64xf32>',
     r"pto.vaxpy: mask is !pto.mask<b16> but src0 has f32 elements"),
    ('%l, %hh = pto.vmull %x, %x, %m : !pto.vreg<64xf32>, !pto.vreg<64xf32>, !pto.mask<b32> -> !pto.vreg<64xf32>, !pto.vreg<64xf32>',
     "pto.vmull: lhs has f32 elements; vmull takes i32, si32, ui32"),
    ('%l, %hh = pto.vmull %i, %i, %m : !pto.vreg<64xi32>, !pto.vreg<64xi32>, !pto.mask<b32> -> !pto.vreg<64xi32>, !pto.vreg<64xf32>',
     "pto.vmull: high has f32 elements but lhs has i32; they must match"),
    ('%o = pto.vmula %x, %x, %i, %m : !pto.vreg<64xf32>, !pto.vreg<64xf32>, !pto.vreg<64xi32>, !pto.mask<b32> -> !pto.vreg<64xf32>',
     "pto.vmula: rhs has i32 elements but acc has f32; they must match"),
    ('%o = pto.vmula %y, %y, %y, %m16 : !pto.vreg<128xf16>, !pto.vreg<128xf16>, !pto.vreg<128xf16>, !pto.mask<b16> -> !pto.vreg<128xf16>',
     None),                                                      # legal: f16
    ('%o = pto.vaddreluconv %x, %i : !pto.vreg<64xf32>, !pto.vreg<64xi32> -> !pto.vreg<64xf32>',
     "pto.vaddreluconv: rhs has i32 elements but lhs has f32; they must match"),
]


@pytest.mark.parametrize("body, message", BAD)
def test_verifier_rules(body, message):
    text = HEAD + VEC.format(body=body) + TAIL
    if message is None:
        Kernel.from_text(text, "k.pto")
        return
    with pytest.raises(PtoError, match=message):
        Kernel.from_text(text, "k.pto")


SORT_BAD = [
    ("pto.vbitsort %p, %q, %q, %c1 : !pto.ptr<f32, ub>, !pto.ptr<i32, ub>, !pto.ptr<i32, ub>, index",
     "pto.vbitsort: source points to i32; vbitsort sorts f16 or f32 scores"),
    ("pto.vmrgsort4 %p, %p, %h, %p, %p, %c0, %c0 : !pto.ptr<f32, ub>, !pto.ptr<f32, ub>, !pto.ptr<f16, ub>, !pto.ptr<f32, ub>, !pto.ptr<f32, ub>, i64, i64",
     "pto.vmrgsort4: source1 points to f16 but destination to f32; they must match"),
    ("pto.vmrgsort4 %q, %q, %q, %q, %q, %c0, %c0 : !pto.ptr<i32, ub>, !pto.ptr<i32, ub>, !pto.ptr<i32, ub>, !pto.ptr<i32, ub>, !pto.ptr<i32, ub>, i64, i64",
     "pto.vmrgsort4: destination points to i32; vmrgsort4 merges f16 or f32 records"),
    ("%l0, %l1, %l2, %l3 = pto.get_vms4_sr : i16, i16, i32, i16",
     "pto.get_vms4_sr: list2 is i32; every result is i16"),
]


@pytest.mark.parametrize("body, message", SORT_BAD)
def test_sort_verifier_rules(body, message):
    with pytest.raises(PtoError, match=message):
        Kernel.from_text(HEAD + "    " + body + "\n" + TAIL, "k.pto")


def test_sort_pointers_must_be_ub():
    text = HEAD.replace("!pto.ptr<f32, ub>\n", "!pto.ptr<f32, ub>\n    %g = pto.castptr %c0 : "
                        "i64 -> !pto.ptr<f32, gm>\n", 1) + \
        "    pto.vbitsort %g, %p, %q, %c1 : !pto.ptr<f32, gm>, !pto.ptr<f32, ub>, " \
        "!pto.ptr<i32, ub>, index\n" + TAIL
    with pytest.raises(PtoError, match=r"pto.vbitsort: destination must point into ub, got a "
                                       r"gm pointer"):
        Kernel.from_text(text, "k.pto")


def test_sorts_are_refused_inside_a_vecscope():
    body = ("pto.vbitsort %p, %p, %q, %c1 : !pto.ptr<f32, ub>, !pto.ptr<f32, ub>, "
            "!pto.ptr<i32, ub>, index")
    with pytest.raises(PtoError, match=r"pto.vbitsort must not be inside a pto.vecscope"):
        Kernel.from_text(HEAD + VEC.format(body=body) + TAIL, "k.pto")
