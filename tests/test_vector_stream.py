"""Stateful unaligned loads / stores (vldas, vldus, vstus, vstur, pstu, vstas, vstar) and
the block-strided loads / stores (vsldb, vsstb): each against an explicit byte-loop
formulation, the exact bytes each op touches, the text forms and every verifier rule."""

import numpy as np
import pytest

import ptosim
from ptosim.errors import AlignmentError, PtoSyntaxError, PtoTypeError, PtoValueError, SpaceError
from ptosim.frontend import parse_module, print_module
from ptosim.kernel import Kernel
from ptosim.vector import Align, Mask, VReg

RNG = np.random.default_rng(12)


def machine(nbytes: int = 2048, fill: bool = True):
    """A machine whose UB bytes [0, nbytes) are random (or 0) and a byte pointer to 0."""
    m = ptosim.Machine()
    p = m.ptr("ub", "ui8", 0)
    ub = RNG.integers(0, 256, nbytes, dtype=np.uint8) if fill else np.zeros(nbytes, np.uint8)
    m.write(p, ub)
    return m, p, ub.copy()


def ub_bytes(m, n: int = 2048) -> np.ndarray:
    return m.read(m.ptr("ub", "ui8", 0), n).copy()


def record(m) -> list:
    """Log (op, access, first byte, byte count) of every UB access the ops make."""
    log: list = []
    m.access_hook = lambda data, start, n, access, operand, op, runs=None: log.append(
        (op, access, start, n))
    return log


# --- unaligned loads ---------------------------------------------------------------------------
@pytest.mark.parametrize("k", [0, 1, 4, 17, 31, 32, 45])
def test_vldus_returns_the_256_bytes_at_any_byte_address(k):
    m, p, ub = machine()
    src = p + 64 + k
    a = m.vldas(src)
    assert isinstance(a, Align) and a.kind == "load"
    v, a2 = m.vldus(src, a, dtype="ui8")
    expect = [ub[64 + k + i] for i in range(256)]            # byte by byte
    assert v.lanes.tolist() == expect
    # the next vldus continues from the state this one left (no second vldas)
    v2, _ = m.vldus(src + 256, a2, dtype="ui8")
    assert v2.lanes.tolist() == [ub[64 + k + 256 + i] for i in range(256)]


def test_vldus_views_the_bytes_with_the_result_type_and_reads_whole_blocks():
    m, p, ub = machine()
    f = p.cast("f32") + 1                                    # Gym vldas-vldus: ub_in + 1
    log = record(m)
    v, _ = m.vldus(f, m.vldas(f))
    assert v.lanes.tolist() == ub[4:260].view(np.float32).tolist()
    # vldas reads the block around the source, vldus the 256 bytes after that block
    assert log == [("vldas", "R", 0, 32), ("vldus", "R", 32, 256)]


def test_vldus_uses_the_block_primed_by_vldas():
    # the state holds the block vldas read: a later store into it is not seen
    m, p, ub = machine()
    a = m.vldas(p + 8)
    m.write(p + 8, np.full(8, 0xEE, np.uint8))
    v, _ = m.vldus(p + 8, a, dtype="ui8")
    assert v.lanes[:24].tolist() == ub[8:32].tolist()


def test_vldus_errors():
    m, p, _ = machine()
    with pytest.raises(PtoValueError, match=r"vldus: align holds the block at 0x0 but "
                       r"source 0x40 lies in the block at 0x40"):
        m.vldus(p + 64, m.vldas(p + 3))
    with pytest.raises(PtoTypeError, match=r"vldus: align is the state of a store stream; "
                       r"vldus continues a load stream, which starts at pto\.vldas"):
        m.vldus(p, m.init_align())
    with pytest.raises(SpaceError, match="vldas: source must point into ub"):
        m.vldas(m.gm(np.zeros(64, np.float32)))


# --- unaligned stores ---------------------------------------------------------------------------
def stream_golden(ub: np.ndarray, pieces) -> np.ndarray:
    """Each (byte address, bytes) of a contiguous stream written byte by byte."""
    out = ub.copy()
    for at, data in pieces:
        for i, b in enumerate(data):
            out[at + i] = b
    return out


@pytest.mark.parametrize("dt, counts, start", [
    ("f32", [3], 0),                       # Gym vstas-vstus-offset-update
    ("f32", [5, 64, 7, 0, 13], 4),
    ("f16", [1, 127, 128, 9], 2),
    ("ui8", [31, 1, 200, 33], 17),
    ("f32", [8, 8, 8, 8], 0),              # every store ends on a block boundary
])
def test_vstus_streams_then_vstas_flushes_the_tail(dt, counts, start):
    m, p, ub = machine()
    base = p.cast(dt) + start
    d = np.dtype(ptosim.dtype(dt).np)
    regs = [VReg(dt, RNG.integers(0, 256, 256, dtype=np.uint8)) for _ in counts]
    a = m.init_align()
    at, pieces = base, []
    for n, v in zip(counts, regs):
        a = m.vstus(a, n, v, at)
        pieces.append((at.offset, v.raw[:n * d.itemsize]))
        at = at + n
    end = at.offset
    golden = stream_golden(ub, pieces)
    before = ub_bytes(m)
    # everything up to the last block boundary is in UB, the tail is still pending
    cut = end - end % 32
    assert before[:cut].tolist() == golden[:cut].tolist()
    assert before[cut:].tolist() == ub[cut:].tolist()
    assert a.pending == end - max(cut, start * d.itemsize)
    m.vstas(a, base, sum(counts))
    assert ub_bytes(m).tolist() == golden.tolist()


def test_vstus_writes_only_the_stored_bytes_of_each_block():
    m, p, ub = machine()
    log = record(m)
    a = m.vstus(m.init_align(), 10, VReg.full(7, "f32"), p.cast("f32") + 1)   # bytes 4..44
    assert log == [("vstus", "W", 4, 28)]
    m.vstas(a, p.cast("f32") + 11, 0)
    assert log[1:] == [("vstas", "W", 32, 12)]
    out = ub_bytes(m)
    assert out[:4].tolist() == ub[:4].tolist() and out[44:].tolist() == ub[44:].tolist()
    assert out[4:44].view(np.float32).tolist() == [7.0] * 10


def test_vstus_and_vstas_errors():
    m, p, _ = machine()
    v = VReg.zeros("f32")
    f = p.cast("f32")
    with pytest.raises(PtoValueError, match=r"vstus: offset 65 elements is outside 0\.\.64"):
        m.vstus(m.init_align(), 65, v, f)
    with pytest.raises(PtoTypeError, match=r"vstus: align_in is the state of a load stream"):
        m.vstus(m.vldas(f), 1, v, f)
    a = m.vstus(m.init_align(), 3, v, f)
    with pytest.raises(PtoValueError, match=r"vstas: flushes at 0x8 but the stream ends at "
                       r"0xc with 12 bytes pending"):
        m.vstas(a, f, 2)
    m.vstas(m.init_align(), f, 5)                 # nothing pending: writes nothing
    with pytest.raises(SpaceError, match="vstus: base must point into ub"):
        m.vstus(m.init_align(), 1, v, m.gm(np.zeros(64, np.float32)))


def test_vstur_stores_sqzn_bytes_at_base_plus_ar_and_post_updates_ar():
    m, p, ub = machine()
    f = p.cast("f32")
    v = VReg.from_lanes(RNG.standard_normal(64).astype(np.float32), "f32")
    m.sprclr("AR")
    m.regs["SQZN"] = (32,)                        # what vsqz sets for 8 active f32 lanes
    a = m.vstur(m.init_align(), v, f + 1, "POST_UPDATE")
    assert m.regs["AR"] == (32,)
    m.vstar(a, f + 1)                             # Gym vstur / vstar: 8 f32 at ub_out + 1
    want = ub.copy()
    want[4:36] = v.raw[:32]
    assert ub_bytes(m).tolist() == want.tolist()
    # a second POST_UPDATE store continues at base + AR
    m.regs["SQZN"] = (6,)
    a = m.vstur(a, v, f + 1, "POST_UPDATE")
    assert m.regs["AR"] == (38,)
    m.vstar(a, f + 1)
    want[36:42] = v.raw[:6]
    assert ub_bytes(m).tolist() == want.tolist()


def test_vstur_no_post_update_keeps_ar():
    m, p, ub = machine()
    v = VReg.full(1, "ui8")
    m.regs["AR"] = (64,)
    m.regs["SQZN"] = (32,)
    a = m.vstur(m.init_align(), v, p, "NO_POST_UPDATE")   # bytes 64..96: a whole block
    assert m.regs["AR"] == (64,) and a.pending == 0
    want = ub.copy()
    want[64:96] = 1
    assert ub_bytes(m).tolist() == want.tolist()


def test_vstur_and_vstar_errors():
    m, p, _ = machine()
    v = VReg.zeros("f32")
    with pytest.raises(PtoValueError, match=r"vstur: stores SQZN bytes, but SQZN is unset"):
        m.vstur(m.init_align(), v, p, "POST_UPDATE")
    m.regs["SQZN"] = (4,)
    with pytest.raises(PtoValueError, match=r"vstur: mode must be one of POST_UPDATE, "
                       r"NO_POST_UPDATE, got 'POST'"):
        m.vstur(m.init_align(), v, p, "POST")
    a = m.vstur(m.init_align(), v, p, "NO_POST_UPDATE")
    with pytest.raises(PtoValueError, match=r"vstar: flushes at 0x0 but the stream ends at "
                       r"0x4 with 4 bytes pending"):
        m.vstar(a, p)


@pytest.mark.parametrize("g, dt, lanes", [(32, "ui32", [13, 7]), (32, "ui32", [64, 0, 5]),
                                          (16, "ui16", [1, 127]), (16, "ui16", [128, 3, 77])])
def test_pstu_packs_one_bit_per_lane_and_advances_the_base(g, dt, lanes):
    m, p, ub = machine()
    base = p.cast(dt)
    a = m.init_align()
    nbytes = 256 // g                             # 64 lanes -> 8 bytes, 128 -> 16
    want, at = ub.copy(), 0
    for k in lanes:
        act = np.arange(2048 // g) < k
        a, nxt = m.pstu(a, Mask.from_lanes(act, g), base)
        assert nxt.offset == base.offset + nbytes and nxt.dtype == base.dtype
        for j in range(nbytes):                   # lane i -> bit i % 8 of byte i // 8
            want[at + j] = sum(int(act[8 * j + b]) << b for b in range(8))
        at += nbytes
        base = nxt
    m.vstas(a, base, 0)
    assert ub_bytes(m).tolist() == want.tolist()


def test_pstu_pairs_the_mask_width_with_the_base_type():
    m, p, _ = machine()
    with pytest.raises(PtoTypeError, match=r"pstu: value is a b16 mask and base points to "
                       r"ui32; pstu pairs b16 with ui16 and b32 with ui32"):
        m.pstu(m.init_align(), Mask.from_lanes([True] * 128, 16), p.cast("ui32"))
    with pytest.raises(PtoTypeError, match=r"pstu: value is a b8 mask"):
        m.pstu(m.init_align(), Mask.from_lanes([True] * 256, 8), p.cast("ui16"))


# --- block-strided ------------------------------------------------------------------------------
def block_golden_load(ub: np.ndarray, base: int, blk: int, rep: int, on) -> np.ndarray:
    out = np.zeros(256, np.uint8)
    for b in range(8):
        if on[b]:
            src = base + (rep + b * blk) * 32
            for i in range(32):
                out[b * 32 + i] = ub[src + i]
    return out


@pytest.mark.parametrize("blk, rep, active", [(2, 4, 64), (1, 0, 64), (3, 1, 20),
                                              (0, 5, 64), (9, 2, 33)])
def test_vsldb_loads_blocks_with_strides_and_zeroes_masked_blocks(blk, rep, active):
    m, p, ub = machine(8192)
    f = p.cast("f32") + 64
    mk = Mask.from_lanes(np.arange(64) < active, 32)
    on = [8 * b < active for b in range(8)]       # block b: b32 lane 8b (its first byte)
    v = m.vsldb(f, blk, rep, mk)
    assert v.dtype.name == "f32"
    assert v.raw.tolist() == block_golden_load(ub, 256, blk, rep, on).tolist()


def test_vsldb_block_b_follows_the_predicate_bit_of_its_first_byte():
    m, p, ub = machine()
    bits = np.zeros(256, bool)
    bits[[0, 65, 96, 224]] = True                 # blocks 0, 3, 7 (bit 65 is inside block 2)
    v = m.vsldb(p, 1, 0, Mask(8, bits), dtype="ui8")
    on = [True, False, False, True, False, False, False, True]
    assert v.raw.tolist() == block_golden_load(ub, 0, 1, 0, on).tolist()


def test_vsldb_masked_off_blocks_read_nothing():
    m = ptosim.Machine()
    top = m.target.capacity["ub"] - 64
    p = m.ptr("ub", "f32", top)
    log = record(m)
    v = m.vsldb(p, 100, 0, Mask.from_lanes(np.arange(64) < 8, 32))   # block 1+ beyond UB
    assert log == [("vsldb", "R", top, 32)] and not v.raw[32:].any()


@pytest.mark.parametrize("blk, rep, active", [(2, 4, 64), (1, 3, 17), (4, 0, 40)])
def test_vsstb_stores_active_blocks_only(blk, rep, active):
    m, p, ub = machine(8192)
    v = VReg("ui8", RNG.integers(0, 256, 256, dtype=np.uint8))
    mk = Mask.from_lanes(np.arange(64) < active, 32)
    m.vsstb(v, p.cast("f32") + 128, blk, rep, mk)
    want = ub.copy()
    for b in range(8):
        if 8 * b < active:
            dst = 512 + (rep + b * blk) * 32
            for i in range(32):
                want[dst + i] = v.raw[b * 32 + i]
    assert ub_bytes(m, 8192).tolist() == want.tolist()


def test_vsstb_post_update_stores_at_the_base_and_advances_by_repeat_blocks():
    m, p, ub = machine()
    v = VReg("ui8", RNG.integers(0, 256, 256, dtype=np.uint8))
    f = p.cast("f16") + 16                        # byte 32
    nxt = m.vsstb(v, f, 2, 3, Mask.from_lanes([True] * 128, 16), post_update=True)
    assert nxt.dtype.name == "f16" and nxt.offset == 32 + 3 * 32
    want = ub.copy()
    for b in range(8):
        want[32 + b * 64:32 + b * 64 + 32] = v.raw[b * 32:(b + 1) * 32]
    assert ub_bytes(m).tolist() == want.tolist()


def test_vsldb_vsstb_round_trip_like_the_gym_case():
    m, p, ub = machine(4096)
    f = p.cast("f32")
    mk = Mask.from_lanes([True] * 64, 32)
    v = m.vlds(f, 0)
    m.vsstb(v, f + 512, 2, 4, mk)
    assert m.vsldb(f + 512, 2, 4, mk) == v


def test_block_strided_bases_are_32_byte_aligned():
    m, p, _ = machine()
    mk = Mask.from_lanes([True] * 64, 32)
    with pytest.raises(AlignmentError, match=r"vsldb: source 0x4 is not 32-byte aligned"):
        m.vsldb(p.cast("f32") + 1, 1, 0, mk)
    with pytest.raises(AlignmentError, match=r"vsstb: destination 0x10 is not 32-byte "
                       r"aligned"):
        m.vsstb(VReg.zeros("f32"), p + 16, 1, 0, mk)


# --- text forms and verifier rules -----------------------------------------------------------
def kernel(body: str) -> str:
    return ("module attributes {pto.target_arch = \"a5\", pto.kernel_kind = "
            "#pto.kernel_kind<vector>} {\n"
            "  func.func @k(%x: !pto.ptr<f32, gm>, %y: !pto.ptr<f32, gm>) attributes "
            "{pto.aicore} {\n"
            "    %c0_i64 = arith.constant 0 : i64\n    %c4096 = arith.constant 4096 : i64\n"
            "    %c3 = arith.constant 3 : i32\n    %c2_i16 = arith.constant 2 : i16\n"
            "    %c4_i16 = arith.constant 4 : i16\n    %c0_i32 = arith.constant 0 : i32\n"
            "    %in = pto.castptr %c0_i64 : i64 -> !pto.ptr<f32, ub>\n"
            "    %out = pto.castptr %c4096 : i64 -> !pto.ptr<f32, ub>\n"
            "    %u = pto.castptr %c0_i64 : i64 -> !pto.ptr<ui32, ub>\n"
            f"{body}    return\n  }}\n}}\n")


TEXT = """    pto.vecscope {
      %a = pto.vldas %in : !pto.ptr<f32, ub> -> !pto.align
      %v, %a2 = pto.vldus %in, %a : !pto.ptr<f32, ub>, !pto.align -> !pto.vreg<64xf32>, !pto.align
      %s0 = pto.init_align : !pto.align
      %s1 = pto.vstus %s0, %c3, %v, %out : !pto.align, i32, !pto.vreg<64xf32>, !pto.ptr<f32, ub> -> !pto.align
      pto.vstas %s1, %out, %c3 : !pto.align, !pto.ptr<f32, ub>, i32
      %m = pto.pset_b32 "PAT_ALL" : !pto.mask<b32>
      %t0 = pto.init_align : !pto.align
      %t1, %u1 = pto.pstu %t0, %m, %u : !pto.align, !pto.mask<b32>, !pto.ptr<ui32, ub> -> !pto.align, !pto.ptr<ui32, ub>
      pto.vstas %t1, %u1, %c0_i32 : !pto.align, !pto.ptr<ui32, ub>, i32
      %w = pto.vsldb %in, %c2_i16, %c4_i16, %m : !pto.ptr<f32, ub>, i16, i16, !pto.mask<b32> -> !pto.vreg<64xf32>
      pto.vsstb %w, %out, %c2_i16, %c4_i16, %m : !pto.vreg<64xf32>, !pto.ptr<f32, ub>, i16, i16, !pto.mask<b32>
      %o2 = pto.vsstb %w, %out, %c2_i16, %c4_i16, %m : !pto.vreg<64xf32>, !pto.ptr<f32, ub>, i16, i16, !pto.mask<b32> -> !pto.ptr<f32, ub>
    }
"""


def test_text_round_trips_and_runs():
    printed = print_module(parse_module(kernel(TEXT), "k.pto"))
    for line in TEXT.splitlines()[1:-1]:
        assert line.strip() in printed
    assert print_module(parse_module(printed, "k.pto")) == printed
    Kernel.from_text(kernel(TEXT), "k.pto").run({"x": np.zeros(64, np.float32),
                                                 "y": np.zeros(64, np.float32)})


def test_vstur_vstar_text():
    body = ("    pto.vecscope {\n      pto.sprclr \"AR\"\n"
            "      %a = pto.init_align : !pto.align\n"
            "      %v = pto.vlds %in[%i0] : !pto.ptr<f32, ub> -> !pto.vreg<64xf32>\n"
            "      %a1 = pto.vstur %a, %v, %out, \"NO_POST_UPDATE\" : !pto.align, "
            "!pto.vreg<64xf32>, !pto.ptr<f32, ub> -> !pto.align\n"
            "      pto.vstar %a1, %out : !pto.align, !pto.ptr<f32, ub>\n    }\n")
    body = "    %i0 = arith.constant 0 : index\n" + body
    printed = print_module(parse_module(kernel(body), "k.pto"))
    assert 'pto.vstur %a, %v, %out, "NO_POST_UPDATE"' in printed
    assert "pto.vstar %a1, %out : !pto.align, !pto.ptr<f32, ub>" in printed


@pytest.mark.parametrize("line, match", [
    ("%a = pto.vldas %x : !pto.ptr<f32, gm> -> !pto.align",
     "pto.vldas: source must point into ub, got a gm pointer"),
    ("%a = pto.init_align : !pto.align\n      %v, %b = pto.vldus %x, %a : !pto.ptr<f32, gm>, "
     "!pto.align -> !pto.vreg<64xf32>, !pto.align",
     "pto.vldus: source must point into ub, got a gm pointer"),
    ("%a = pto.init_align : !pto.align\n      %v = pto.vlds %in[%i0] : !pto.ptr<f32, ub> -> "
     "!pto.vreg<64xf32>\n      %b = pto.vstus %a, %i0, %v, %out : !pto.align, index, "
     "!pto.vreg<64xf32>, !pto.ptr<f32, ub> -> !pto.align",
     "pto.vstus: offset must be i32, got index"),
    ("%a = pto.init_align : !pto.align\n      pto.vstas %a, %x, %c3 : !pto.align, "
     "!pto.ptr<f32, gm>, i32", "pto.vstas: destination must point into ub, got a gm pointer"),
    ("%a = pto.init_align : !pto.align\n      pto.vstar %a, %x : !pto.align, !pto.ptr<f32, gm>",
     "pto.vstar: destination must point into ub, got a gm pointer"),
    ("%a = pto.init_align : !pto.align\n      %v = pto.vlds %in[%i0] : !pto.ptr<f32, ub> -> "
     "!pto.vreg<64xf32>\n      %b = pto.vstur %a, %v, %out, \"POST\" : !pto.align, "
     "!pto.vreg<64xf32>, !pto.ptr<f32, ub> -> !pto.align",
     r"pto.vstur: mode must be one of POST_UPDATE, NO_POST_UPDATE \(quoted\), got \"POST\""),
    ("%a = pto.init_align : !pto.align\n      %m = pto.pset_b16 \"PAT_ALL\" : !pto.mask<b16>\n"
     "      %b, %p = pto.pstu %a, %m, %u : !pto.align, !pto.mask<b16>, !pto.ptr<ui32, ub> -> "
     "!pto.align, !pto.ptr<ui32, ub>",
     r"pto.pstu: value is !pto.mask<b16> so base must be !pto.ptr<ui16, ub>, got ui32"),
    ("%a = pto.init_align : !pto.align\n      %m = pto.pset_b32 \"PAT_ALL\" : !pto.mask<b32>\n"
     "      %b, %p = pto.pstu %a, %m, %in : !pto.align, !pto.mask<b32>, !pto.ptr<f32, ub> -> "
     "!pto.align, !pto.ptr<f32, ub>",
     r"pto.pstu: value is !pto.mask<b32> so base must be !pto.ptr<ui32, ub>, got f32"),
    ("%a = pto.init_align : !pto.align\n      %m = pto.pset_b32 \"PAT_ALL\" : !pto.mask<b32>\n"
     "      %b, %p = pto.pstu %a, %m, %u : !pto.align, !pto.mask<b32>, !pto.ptr<ui32, ub> -> "
     "!pto.align, !pto.ptr<ui16, ub>", "pto.pstu: base_out must have the type of base"),
    ("%m = pto.pset_b32 \"PAT_ALL\" : !pto.mask<b32>\n      %w = pto.vsldb %in, %c3, %c4_i16, "
     "%m : !pto.ptr<f32, ub>, i32, i16, !pto.mask<b32> -> !pto.vreg<64xf32>",
     "pto.vsldb: block_stride must be i16, got i32"),
    ("%m = pto.pset_b32 \"PAT_ALL\" : !pto.mask<b32>\n      %w = pto.vsldb %x, %c2_i16, "
     "%c4_i16, %m : !pto.ptr<f32, gm>, i16, i16, !pto.mask<b32> -> !pto.vreg<64xf32>",
     "pto.vsldb: source must point into ub, got a gm pointer"),
    ("%m = pto.pset_b32 \"PAT_ALL\" : !pto.mask<b32>\n      %v = pto.vlds %in[%i0] : "
     "!pto.ptr<f32, ub> -> !pto.vreg<64xf32>\n      pto.vsstb %v, %out, %c2_i16, %c3, %m : "
     "!pto.vreg<64xf32>, !pto.ptr<f32, ub>, i16, i32, !pto.mask<b32>",
     "pto.vsstb: repeat_stride must be i16, got i32"),
    ("%m = pto.pset_b32 \"PAT_ALL\" : !pto.mask<b32>\n      %v = pto.vlds %in[%i0] : "
     "!pto.ptr<f32, ub> -> !pto.vreg<64xf32>\n      %o = pto.vsstb %v, %out, %c2_i16, "
     "%c4_i16, %m : !pto.vreg<64xf32>, !pto.ptr<f32, ub>, i16, i16, !pto.mask<b32> -> "
     "!pto.ptr<f16, ub>", "pto.vsstb: the updated base must have the type of destination"),
])
def test_verifier_rules(line, match):
    body = "    %i0 = arith.constant 0 : index\n    pto.vecscope {\n      " + line + "\n    }\n"
    with pytest.raises(PtoSyntaxError, match=match):
        parse_module(kernel(body), "k.pto")


def test_align_state_flows_through_scf_for_like_the_gym_pstu_loop():
    body = ("    %i0 = arith.constant 0 : index\n    %i1 = arith.constant 1 : index\n"
            "    %i2 = arith.constant 2 : index\n    %c13 = arith.constant 13 : i32\n"
            "    pto.vecscope {\n      %a0 = pto.init_align : !pto.align\n"
            "      %af, %bf = scf.for %i = %i0 to %i2 step %i1 iter_args(%a = %a0, %b = %u) "
            "-> (!pto.align, !pto.ptr<ui32, ub>) {\n"
            "        %m, %r = pto.plt_b32 %c13 : i32 -> !pto.mask<b32>, i32\n"
            "        %a1, %b1 = pto.pstu %a, %m, %b : !pto.align, !pto.mask<b32>, "
            "!pto.ptr<ui32, ub> -> !pto.align, !pto.ptr<ui32, ub>\n"
            "        scf.yield %a1, %b1 : !pto.align, !pto.ptr<ui32, ub>\n      }\n"
            "      pto.vstas %af, %bf, %c0_i32 : !pto.align, !pto.ptr<ui32, ub>, i32\n    }\n"
            "    %nb = arith.constant 64 : i64\n    %one = arith.constant 1 : i64\n"
            "    pto.mte_ub_gm %in, %y, %nb nburst(%one, %nb, %nb) : !pto.ptr<f32, ub>, "
            "!pto.ptr<f32, gm>, i64, i64, i64, i64\n")
    res = Kernel.from_text(kernel(body), "k.pto").run({"x": np.zeros(16, np.float32),
                                                       "y": np.zeros(16, np.float32)})
    got = res.outputs["y"].view(np.uint8)
    one = np.packbits(np.arange(64) < 13, bitorder="little")
    assert got[:16].tolist() == one.tolist() * 2 and not got[16:].any()


def test_out_of_bounds_stores_write_nothing():
    m = ptosim.Machine()
    cap = m.target.capacity["ub"]
    p = m.ptr("ub", "f32", cap - 64)
    before = m.read(m.ptr("ub", "ui8", cap - 256), 256).copy()
    with pytest.raises(ptosim.OutOfBoundsError, match=r"vsstb: destination touches ub bytes"):
        m.vsstb(VReg.full(1, "f32"), p, 1, 0, Mask.from_lanes([True] * 64, 32))
    with pytest.raises(ptosim.OutOfBoundsError, match=r"vstus: base touches ub bytes"):
        m.vstus(m.init_align(), 20, VReg.full(1, "f32"), p)
    assert m.read(m.ptr("ub", "ui8", cap - 256), 256).tolist() == before.tolist()


def test_a_store_state_fed_to_vldus_is_a_located_error():
    body = ("    pto.vecscope {\n      %a = pto.init_align : !pto.align\n"
            "      %v, %b = pto.vldus %in, %a : !pto.ptr<f32, ub>, !pto.align -> "
            "!pto.vreg<64xf32>, !pto.align\n    }\n")
    with pytest.raises(PtoTypeError, match=r"k\.pto:\d+:\d+: error: vldus: align is the state "
                       r"of a store stream"):
        Kernel.from_text(kernel(body), "k.pto").run({"x": np.zeros(64, np.float32),
                                                     "y": np.zeros(64, np.float32)})
