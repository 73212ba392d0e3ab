"""Irregular vector tile ops (ptosim.isa.tile_sort rows, ptosim.tile.sort semantics): TSORT32,
TRANDOM, TGATHERB, TSCATTER against explicit-loop goldens, the write footprint, every static
rule and the text form. Shape tables are pto-isa's a5 ST parameter lists
(tests/npu/a5/src/st/testcase/<op>/gen_data.py)."""

import numpy as np
import pytest

import ptosim
from ptosim.errors import DtypeError, PtoTypeError, PtoValueError, TargetError, VerifyError
from ptosim.kernel import Kernel
from ptosim.tile.sort import philox4x32
from tile_helpers import NP as _NP, SENTINEL, blank, put

NP = {**_NP, "ui32": np.uint32}



def mk():
    return ptosim.Machine(target="a5")


def raw(m, t):
    return m.read(t.ptr.cast("ui8"), t.nbytes).reshape(t.rows, t.cols * t.dtype.size)


# --- TSORT32 --------------------------------------------------------------------------------
def sort32_golden(vals, idx, dt):
    """Explicit loops: each row's 32-element blocks (a tail padded with -inf) sorted by
    descending value, equal values keeping their input order; records of 8 bytes: the score
    (f16: 2 bytes, then 2 zero bytes) and the u32 index."""
    rows, cols = vals.shape
    span = -(-cols // 32) * 32
    out = bytearray()
    per_row = []
    for r in range(rows):
        row = bytearray()
        for b in range(0, span, 32):
            block = []
            for k in range(32):
                c = b + k
                v = float(vals[r, c]) if c < cols else float("-inf")
                block.append((v, k, int(idx[r, c]) if c < idx.shape[1] else 0))
            block.sort(key=lambda e: (-e[0], e[1]))
            for v, _, i in block:
                if dt == "f32":
                    row += np.float32(v).tobytes() + np.uint32(i).tobytes()
                else:
                    row += np.float16(v).tobytes() + b"\0\0" + np.uint32(i).tobytes()
        per_row.append(bytes(row))
    out = np.frombuffer(b"".join(per_row), np.uint8).reshape(rows, span * 8)
    return out


# a5 TSORT32 table (type, rows, valid cols); physical cols = valid rounded to 32 bytes
SORT_TABLE = [("f32", 2, 32), ("f16", 4, 64), ("f32", 1, 256 * 32), ("f32", 2, 13),
              ("f32", 1, 4164), ("f32", 2, 2084), ("f32", 2, 100)]


@pytest.mark.parametrize("dt,rows,cols", SORT_TABLE)
def test_tsort32_matches_block_sort_loops(dt, rows, cols):
    m = mk()
    esize = 4 if dt == "f32" else 2
    pcols = -(-cols * esize // 32) * 32 // esize
    span = -(-cols // 32) * 32
    rng = np.random.default_rng(cols)
    vals = rng.uniform(-10, 10, (rows, pcols)).astype(NP[dt])
    vals[:, 1:cols:7] = vals[:, 0:1]                     # ties: input order must hold
    idx = np.arange(rows * max(pcols, span), dtype=np.uint32).reshape(rows, -1)
    src = m.tile("Vec", dt, rows, pcols, valid=(rows, cols))
    it = m.tile("Vec", "ui32", rows, idx.shape[1], valid=(rows, cols))
    put(m, src, vals)
    put(m, it, idx)
    dcols = span * 8 // esize + 32 // esize              # one spare block per row
    dst = blank(m, dt, rows, dcols)
    args = [dst, src, it]
    if cols % 32:
        args.append(m.tile("Vec", dt, 1, span))
    m.TSORT32(*args)
    want = sort32_golden(vals[:, :cols], idx, dt)
    got = raw(m, dst)
    np.testing.assert_array_equal(got[:, :span * 8], want)
    assert (got[:, span * 8:] == SENTINEL).all()          # nothing past the records


def test_tsort32_shared_idx_row_and_f16_record_layout():
    m = mk()
    vals = np.array([[3, 1, 2, 3] + [0] * 28, [-1, 5, 5, 4] + [9] * 28], np.float16)
    src = m.tile("Vec", "f16", 2, 32)
    it = m.tile("Vec", "ui32", 1, 32)
    put(m, src, vals)
    put(m, it, np.arange(100, 132, dtype=np.uint32))
    dst = blank(m, "f16", 2, 128)
    m.TSORT32(dst, src, it)
    rec = raw(m, dst).reshape(2, 32, 8)
    # row 0: 3 (pos 0), 3 (pos 3), 2, 1, then the zeros
    assert rec[0, 0, :2].view(np.float16)[0] == 3 and rec[0, 0, 4:].view(np.uint32)[0] == 100
    assert rec[0, 1, 4:].view(np.uint32)[0] == 103
    assert (rec[:, :, 2:4] == 0).all()                    # the reserved half of the score
    # row 1 reads the same (shared) indices: 9s first from position 4 on
    assert rec[1, 0, 4:].view(np.uint32)[0] == 104


def test_tsort32_tail_leaves_padded_copy_in_tmp():
    m = mk()
    src = m.tile("Vec", "f32", 1, 16, valid=(1, 13))
    put(m, src, np.arange(16, dtype=np.float32))
    it = m.tile("Vec", "ui32", 1, 32, valid=(1, 13))
    dst = m.tile("Vec", "f32", 1, 64)
    tmp = m.tile("Vec", "f32", 1, 32)
    m.TSORT32(dst, src, it, tmp)
    t = m.read(tmp.ptr, 32)
    np.testing.assert_array_equal(t[:13], np.arange(13))
    assert np.isneginf(t[13:]).all()


PTOAS_PAD = np.float32(0xFF800000)        # the integer by value: 4286578688.0


def test_tsort32_ptoas_template_short_rows():
    """PTOAS's template (a .pto tsort32): the row copied to tmp in whole 32 B blocks, the
    pad stored into the first 32 - tail lanes of the last block, then sorted from tmp; tmp
    is used at its address whatever its size (the Gym case f32_2x13's 1x16 tmp)."""
    m = mk()
    src = m.tile("Vec", "f32", 2, 16, valid=(2, 13))
    put(m, src, np.arange(32, dtype=np.float32).reshape(2, 16) + 1)
    it = m.tile("Vec", "ui32", 2, 16, valid=(2, 13))
    put(m, it, np.arange(32, dtype=np.uint32).reshape(2, 16) + 100)
    dst = blank(m, "f32", 2, 64)
    tmp = m.tile("Vec", "f32", 1, 16)
    after = blank(m, "f32", 1, 16)                   # the UB bytes that follow tmp
    m.TSORT32(dst, src, it, tmp, ptoas=True)
    # staged block: 19 pads over the row's copy, then lanes 19..31 = the bytes after tmp
    # (its own 16 elements: the row, then 3 pads spilt over the next tile)
    sentinel = np.full(13, SENTINEL, np.uint8).repeat(4).view(np.float32)
    block = np.concatenate([np.full(19, PTOAS_PAD, np.float32), sentinel])[None, :]
    ids = np.arange(32, dtype=np.uint32).reshape(2, 16) + 100
    got = raw(m, dst)
    for r in range(2):
        np.testing.assert_array_equal(got[r:r + 1, :32 * 8],
                                      sort32_golden(block, ids[r:r + 1], "f32"))
    after_now = m.read(after.ptr, 16)
    assert (after_now[:3] == PTOAS_PAD).all()
    assert (after_now[3:].view(np.uint32) == 0x5A5A5A5A).all()


def test_tsort32_ptoas_template_long_rows():
    """Rows over 8160 bytes: whole blocks sort straight from src, only the tail block goes
    through tmp (its first 32 - tail lanes padded, the rest tmp's old bytes)."""
    m = mk()
    cols = 2084                                       # 65 whole blocks and a tail of 4
    vals = np.random.default_rng(5).uniform(-9, 9, (1, 2088)).astype(np.float32)
    src = m.tile("Vec", "f32", 1, 2088, valid=(1, cols))
    put(m, src, vals)
    it = m.tile("Vec", "ui32", 1, 2112, valid=(1, cols))
    idx = np.arange(2112, dtype=np.uint32)[None, :]
    put(m, it, idx)
    dst = blank(m, "f32", 1, 67 * 64)
    tmp = m.tile("Vec", "f32", 1, 32)
    put(m, tmp, np.full(32, -7.0, np.float32))
    m.TSORT32(dst, src, it, tmp, ptoas=True)
    got = raw(m, dst)
    np.testing.assert_array_equal(got[:, :2080 * 8], sort32_golden(vals[:, :2080], idx, "f32"))
    block = np.concatenate([np.full(28, PTOAS_PAD, np.float32), np.full(4, -7.0, np.float32)])
    want = sort32_golden(block[None, :], idx[:, 2080:2112], "f32")
    np.testing.assert_array_equal(got[:, 2080 * 8:2112 * 8], want)
    assert (got[:, 2112 * 8:] == SENTINEL).all()


@pytest.mark.parametrize("build,exc,msg", [
    (lambda m: (m.tile("Vec", "i32", 1, 32), m.tile("Vec", "i32", 1, 32),
                m.tile("Vec", "ui32", 1, 32)), DtypeError, "src element type must be one of"),
    (lambda m: (m.tile("Vec", "f16", 1, 64), m.tile("Vec", "f32", 1, 32),
                m.tile("Vec", "ui32", 1, 32)), DtypeError, "dst is f16 but src is f32"),
    (lambda m: (m.tile("Vec", "f32", 1, 64), m.tile("Vec", "f32", 1, 32),
                m.tile("Vec", "i32", 1, 32)), DtypeError, "idx element type must be one of ui32"),
    (lambda m: (m.tile("Vec", "f32", 1, 64), m.tile("Vec", "f32", 1, 16, valid=(1, 13)),
                m.tile("Vec", "ui32", 1, 16)), VerifyError, "needs the tmp operand"),
    (lambda m: (m.tile("Vec", "f32", 1, 32), m.tile("Vec", "f32", 1, 32),
                m.tile("Vec", "ui32", 1, 32)), VerifyError, "dst rows hold 128 bytes but 1 blocks"),
    (lambda m: (m.tile("Vec", "f32", 1, 64), m.tile("Vec", "f32", 1, 16, valid=(1, 13)),
                m.tile("Vec", "ui32", 1, 16), m.tile("Vec", "f32", 1, 16)), VerifyError,
     "tmp holds 16 elements but 32 are needed for 13 valid cols"),
    (lambda m: (m.tile("Vec", "f32", 3, 64), m.tile("Vec", "f32", 3, 32),
                m.tile("Vec", "ui32", 2, 32)), VerifyError, "idx must have 1 valid row"),
    (lambda m: (m.tile("Vec", "f32", 1, 64), m.tile("Vec", "f32", 1, 32)), PtoTypeError,
     "operands after dst must be (src: tile, idx: tile, tmp: tile) or (src: tile, idx: tile)"),
])
def test_tsort32_rules(build, exc, msg):
    m = mk()
    with pytest.raises(exc) as info:
        m.TSORT32(*build(m))
    assert msg in str(info.value) and "TSORT32" in str(info.value)


# --- TRANDOM --------------------------------------------------------------------------------
# Random123 known-answer vectors of philox4x32-10: (counter words, key words, output words)
PHILOX_KAT = [
    ((0, 0, 0, 0), (0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
    ((0xFFFFFFFF,) * 4, (0xFFFFFFFF,) * 2, (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
    ((0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344), (0xA4093822, 0x299F31D0),
     (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1)),
]


@pytest.mark.parametrize("ctr,key,want", PHILOX_KAT)
def test_philox_known_answers(ctr, key, want):
    got = philox4x32(np.array([ctr], np.uint32), key, 10)
    assert tuple(int(x) for x in got[0]) == want
    m = mk()
    dst = m.tile("Vec", "ui32", 1, 8, valid=(1, 4))
    m.TRANDOM(dst, *key, *ctr)
    assert tuple(int(x) for x in m.read(dst.ptr, 4)) == want


def philox_loop(c, k, rounds):
    """One counter, plain Python ints."""
    c, (k0, k1) = list(c), k
    for _ in range(rounds):
        p0, p1 = c[0] * 0xD2511F53, c[2] * 0xCD9E8D57
        c = [((p1 >> 32) ^ c[1] ^ k0) & 0xFFFFFFFF, p1 & 0xFFFFFFFF,
             ((p0 >> 32) ^ c[3] ^ k1) & 0xFFFFFFFF, p0 & 0xFFFFFFFF]
        k0, k1 = (k0 + 0x9E3779B9) & 0xFFFFFFFF, (k1 + 0xBB67AE85) & 0xFFFFFFFF
    return c


def trandom_golden(rows, cols, key, counter, rounds):
    """a5 TRandom.hpp order: per row, chunks of 256 outputs = lanes 0..63 x 4 words; lane l of
    a chunk uses counter base + l; the base moves 64 per chunk and (cols-1) % 64 + 1 after a
    row's last chunk, carrying into the next row."""
    base = sum(w << (32 * i) for i, w in enumerate(counter))
    out = np.zeros((rows, cols), np.uint32)
    chunks = -(-cols // 256)
    for r in range(rows):
        for j in range(chunks):
            for lane in range(64):
                c = (base + lane) % (1 << 128)
                words = philox_loop([(c >> (32 * i)) & 0xFFFFFFFF for i in range(4)], key,
                                    rounds)
                for w in range(4):
                    col = j * 256 + 4 * lane + w
                    if col < cols:
                        out[r, col] = words[w]
            base += 64 if j < chunks - 1 else (cols - 1) % 64 + 1
    return out


# a5 TRANDOM table (type, rows, cols, valid rows, valid cols, rounds) and the Gym case
RANDOM_TABLE = [("i32", 4, 256, 4, 256, 10), ("ui32", 2, 512, 2, 500, 7),
                ("i32", 3, 64, 3, 37, 10), ("ui32", 1, 1024, 1, 1024, 10)]


@pytest.mark.parametrize("dt,rows,cols,vr,vc,rounds", RANDOM_TABLE)
def test_trandom_matches_philox_loops(dt, rows, cols, vr, vc, rounds):
    m = mk()
    dst = blank(m, dt, rows, cols, valid=(vr, vc))
    key, counter = (0x12345678, 0x9ABCDEF0), (0xFFFFFFF0, 0xFFFFFFFF, 7, 0)   # carries
    m.TRANDOM(dst, *key, *counter, rounds=rounds)
    got = raw(m, dst)
    want = trandom_golden(vr, vc, key, counter, rounds)
    np.testing.assert_array_equal(got[:vr, :vc * 4].copy().view(np.uint32), want)
    keep = np.ones(got.shape, bool)
    keep[:vr, :vc * 4] = False
    assert (got[keep] == SENTINEL).all()


def test_trandom_rules():
    m = mk()
    with pytest.raises(DtypeError, match="dst element type must be one of i32, ui32, got f32"):
        m.TRANDOM(m.tile("Vec", "f32", 1, 64), 0, 0, 0, 0, 0, 0)
    with pytest.raises(PtoValueError, match=r"TRANDOM.*rounds must be 7 or 10, got 8"):
        m.TRANDOM(m.tile("Vec", "i32", 1, 64), 0, 0, 0, 0, 0, 0, rounds=8)
    with pytest.raises(PtoTypeError, match=r"key0 must be an integer, got 1\.5"):
        m.TRANDOM(m.tile("Vec", "i32", 1, 64), 1.5, 0, 0, 0, 0, 0)
    with pytest.raises(PtoTypeError, match="operands after dst must be"):
        m.TRANDOM(m.tile("Vec", "i32", 1, 64), 0, 0)


# --- TGATHERB -------------------------------------------------------------------------------
# a5 TGATHERB table: (type, dst rows, dst cols, offset rows, offset cols, src rows, src cols)
GATHERB_TABLE = [("f32", 2, 128, 2, 16, 2, 128), ("i32", 2, 128, 2, 16, 2, 128),
                 ("ui32", 2, 128, 2, 16, 2, 128), ("i16", 1, 32768, 1, 2048, 1, 32768),
                 ("ui16", 257, 128, 257, 8, 257, 128), ("f16", 1, 32768, 1, 2048, 1, 32768),
                 ("i8", 2, 256, 2, 8, 2, 256), ("i8", 2, 32768, 2, 1024, 2, 32768),
                 ("ui8", 2, 32768, 2, 1024, 2, 32768)]


@pytest.mark.parametrize("dt,dr,dc,orr,oc,sr,sc", GATHERB_TABLE)
def test_tgatherb_copies_32_byte_blocks(dt, dr, dc, orr, oc, sr, sc):
    m = mk()
    rng = np.random.default_rng(dc + dr)
    src = m.tile("Vec", dt, sr, sc)
    sb = rng.integers(0, 256, src.nbytes, dtype=np.uint8)
    m.write(src.ptr.cast("ui8"), sb)
    offs = rng.integers(0, src.nbytes // 32, (orr, oc)).astype(np.uint32) * 32
    ot = m.tile("Vec", "ui32", orr, oc)
    put(m, ot, offs)
    dst = blank(m, dt, dr, dc)
    m.TGATHERB(dst, src, ot)
    want = np.zeros((dr, dc * dst.dtype.size), np.uint8)
    for r in range(dr):
        for b in range(dc * dst.dtype.size // 32):
            o = int(offs[r, b])
            want[r, b * 32:(b + 1) * 32] = sb[o:o + 32]
    np.testing.assert_array_equal(raw(m, dst), want)


def test_tgatherb_partial_valid_region_writes_only_it():
    m = mk()
    src = m.tile("Vec", "f32", 1, 64)
    put(m, src, np.arange(64, dtype=np.float32))
    ot = m.tile("Vec", "ui32", 2, 8)
    put(m, ot, np.array([[64, 0] + [0] * 6, [224, 32] + [0] * 6], np.uint32))
    dst = blank(m, "f32", 2, 16, valid=(2, 11))
    m.TGATHERB(dst, src, ot)
    got = raw(m, dst)
    np.testing.assert_array_equal(got[:, :44].copy().view(np.float32),
                                  [list(range(16, 24)) + [0, 1, 2],
                                   list(range(56, 64)) + [8, 9, 10]])
    assert (got[:, 44:] == SENTINEL).all()


@pytest.mark.parametrize("off,msg", [(36, "offsets[0, 1] = 36: a block offset must be a "
                                      "multiple of 32"),
                                     (256, "offsets[0, 1] = 256"), ])
def test_tgatherb_offset_rules(off, msg):
    m = mk()
    src = m.tile("Vec", "f32", 1, 64)
    ot = m.tile("Vec", "ui32", 1, 8)
    put(m, ot, np.array([0, off] + [0] * 6, np.uint32))
    with pytest.raises(PtoValueError) as info:
        m.TGATHERB(m.tile("Vec", "f32", 1, 64), src, ot)
    assert msg in str(info.value) and "inside src's 256" in str(info.value)


def test_tgatherb_type_rules():
    m = mk()
    with pytest.raises(DtypeError, match="src is f16 but dst is f32"):
        m.TGATHERB(m.tile("Vec", "f32", 1, 8), m.tile("Vec", "f16", 1, 16),
                   m.tile("Vec", "ui32", 1, 8))
    with pytest.raises(DtypeError, match="offsets element type must be one of ui32, i32"):
        m.TGATHERB(m.tile("Vec", "f32", 1, 8), m.tile("Vec", "f32", 1, 8),
                   m.tile("Vec", "ui16", 1, 16))
    with pytest.raises(DtypeError, match="dst element type must be 1, 2 or 4 bytes"):
        m.TGATHERB(m.tile("Vec", "i64", 1, 8), m.tile("Vec", "i64", 1, 8),
                   m.tile("Vec", "ui32", 1, 8))
    with pytest.raises(VerifyError, match="offsets is 1x8 but dst's valid 2x64 needs 2x8"):
        m.TGATHERB(m.tile("Vec", "f32", 2, 64), m.tile("Vec", "f32", 1, 8),
                   m.tile("Vec", "ui32", 1, 8))


# --- TSCATTER -------------------------------------------------------------------------------
# a5 TSCATTER index-form table: (data, index, rows, cols) with dst = src shape
SCATTER_TABLE = [("i16", "ui16", 2, 32), ("f16", "ui16", 63, 64), ("i32", "ui32", 31, 128),
                 ("i16", "i16", 15, 192), ("f32", "i32", 7, 448), ("i8", "ui16", 256, 32),
                 ("f32", "ui32", 32, 64), ("i64", "ui32", 4, 16), ("ui64", "ui32", 4, 16)]


@pytest.mark.parametrize("dt,it,rows,cols", SCATTER_TABLE)
def test_tscatter_matches_loop(dt, it, rows, cols):
    m = mk()
    rng = np.random.default_rng(rows * cols)
    n = rows * cols
    vals = rng.integers(-100, 100, (rows, cols)).astype(NP[dt])
    idx = rng.integers(0, n, (rows, cols)).astype(NP[it])    # duplicates included
    src = m.tile("Vec", dt, rows, cols)
    put(m, src, vals)
    itile = m.tile("Vec", it, rows, cols)
    put(m, itile, idx)
    dst = blank(m, dt, rows, cols)
    before = raw(m, dst).copy().view(NP[dt]).ravel()
    m.TSCATTER(dst, src, itile)
    want = before.copy()
    for r in range(rows):
        for c in range(cols):
            want[int(idx[r, c])] = vals[r, c]                 # later elements win
    np.testing.assert_array_equal(raw(m, dst).copy().view(NP[dt]).ravel(), want)


def test_tscatter_rules():
    m = mk()
    itile = m.tile("Vec", "ui32", 1, 8)
    put(m, itile, np.array([0, 1, 2, 3, 4, 5, 6, 8], np.uint32))
    with pytest.raises(PtoValueError, match=r"indexes\[0, 7\] = 8 is outside dst's 8 elements"):
        m.TSCATTER(m.tile("Vec", "f32", 1, 8), m.tile("Vec", "f32", 1, 8), itile)
    with pytest.raises(DtypeError, match="f32 data takes 32-bit indexes, got ui16"):
        m.TSCATTER(m.tile("Vec", "f32", 1, 8), m.tile("Vec", "f32", 1, 8),
                   m.tile("Vec", "ui16", 1, 16))
    with pytest.raises(DtypeError, match="dst is f16 but src is f32"):
        m.TSCATTER(m.tile("Vec", "f16", 1, 16), m.tile("Vec", "f32", 1, 8), itile)
    with pytest.raises(VerifyError, match="indexes' valid region 1x8 does not cover src's 2x8"):
        m.TSCATTER(m.tile("Vec", "f32", 2, 8), m.tile("Vec", "f32", 2, 8), itile)


# --- text form ------------------------------------------------------------------------------
SORT_KERNEL = """
module {
  func.func @k(%x: !pto.ptr<f32>, %i: !pto.ptr<ui32>, %o: !pto.ptr<f32>, %r: !pto.ptr<ui32>,
               %k0: i32) attributes {pto.aicore} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %z = arith.constant 0 : i32
    %vx = pto.make_tensor_view %x, shape = [%c1, %c32], strides = [%c32, %c1]
      : !pto.tensor_view<1x32xf32>
    %vi = pto.make_tensor_view %i, shape = [%c1, %c32], strides = [%c32, %c1]
      : !pto.tensor_view<1x32xui32>
    %vo = pto.make_tensor_view %o, shape = [%c1, %c64], strides = [%c64, %c1]
      : !pto.tensor_view<1x64xf32>
    %vr = pto.make_tensor_view %r, shape = [%c1, %c64], strides = [%c64, %c1]
      : !pto.tensor_view<1x64xui32>
    %px = pto.partition_view %vx, offsets = [%c0, %c0], sizes = [%c1, %c32]
      : !pto.tensor_view<1x32xf32>
    %pi = pto.partition_view %vi, offsets = [%c0, %c0], sizes = [%c1, %c32]
      : !pto.tensor_view<1x32xui32>
    %po = pto.partition_view %vo, offsets = [%c0, %c0], sizes = [%c1, %c64]
      : !pto.tensor_view<1x64xf32>
    %pr = pto.partition_view %vr, offsets = [%c0, %c0], sizes = [%c1, %c64]
      : !pto.tensor_view<1x64xui32>
    %a = pto.alloc_tile : !pto.tile_buf<vec, 1x32xf32>
    %b = pto.alloc_tile : !pto.tile_buf<vec, 1x32xui32>
    %d = pto.alloc_tile : !pto.tile_buf<vec, 1x64xf32>
    %g = pto.alloc_tile : !pto.tile_buf<vec, 1x64xui32>
    pto.tload ins(%px : !pto.partition_tensor_view<1x32xf32>) outs(%a : !pto.tile_buf<vec, 1x32xf32>)
    pto.tload ins(%pi : !pto.partition_tensor_view<1x32xui32>) outs(%b : !pto.tile_buf<vec, 1x32xui32>)
    pto.tsort32 ins(%a, %b : !pto.tile_buf<vec, 1x32xf32>, !pto.tile_buf<vec, 1x32xui32>)
      outs(%d : !pto.tile_buf<vec, 1x64xf32>)
    pto.trandom ins(%k0, %z, %z, %z, %z, %z : i32, i32, i32, i32, i32, i32)
      outs(%g : !pto.tile_buf<vec, 1x64xui32>) {rounds = 7 : i32}
    pto.tstore ins(%d : !pto.tile_buf<vec, 1x64xf32>) outs(%po : !pto.partition_tensor_view<1x64xf32>)
    pto.tstore ins(%g : !pto.tile_buf<vec, 1x64xui32>) outs(%pr : !pto.partition_tensor_view<1x64xui32>)
    return
  }
}
"""


def test_text_form_runs_like_the_python_face():
    x = np.random.default_rng(1).uniform(-5, 5, 32).astype(np.float32)
    i = np.arange(32, dtype=np.uint32)
    res = Kernel.from_text(SORT_KERNEL).run({"x": x, "i": i, "o": np.zeros(64, np.float32),
                                             "r": np.zeros(64, np.uint32), "k0": -1})
    want = sort32_golden(x[None], i[None], "f32").view(np.float32).ravel()
    np.testing.assert_array_equal(res.outputs["o"].ravel().view(np.uint32),
                                  want.view(np.uint32))
    np.testing.assert_array_equal(res.outputs["r"].ravel().view(np.uint32),
                                  trandom_golden(1, 64, (0xFFFFFFFF, 0), (0, 0, 0, 0), 7)[0])


def test_text_diagnostics():
    text = SORT_KERNEL.replace("{rounds = 7 : i32}", "{round = 7 : i32}")
    with pytest.raises(ptosim.PtoError, match="pto.trandom: unsupported attribute 'round' "
                                              r"\(known: rounds\)"):
        Kernel.from_text(text)


# --- TMRGSORT -------------------------------------------------------------------------------
def records(vals, idx, dt):
    """(score, index) records as the tile's element type (f16: score, 2 zero bytes, index)."""
    out = bytearray()
    for v, i in zip(vals, idx):
        score = np.float32(v).tobytes() if dt == "f32" else np.float16(v).tobytes() + b"\0\0"
        out += score + np.uint32(i).tobytes()
    return np.frombuffer(bytes(out), NP[dt])


def merge_loop(lists, exhausted):
    """Head-by-head merge, ties to the lower list; ``exhausted``: stop when a list runs out."""
    pos, out = [0] * len(lists), []
    while len(out) < sum(map(len, lists)):
        if exhausted and any(p == len(x) for p, x in zip(pos, lists)):
            break
        best = None
        for i, x in enumerate(lists):
            if pos[i] < len(x) and (best is None or x[pos[i]][0] > lists[best][pos[best]][0]):
                best = i
        out.append(lists[best][pos[best]])
        pos[best] += 1
    return out, pos


# a5 TMRGSORT multi-list table: (type, src0..src3 cols, lists, dst cols, exhausted)
MRG_TABLE = [("f32", (128, 128, 128, 128), 4, 512, False),
             ("f16", (128, 128, 128, 128), 4, 512, False),
             ("f32", (128, 128, 128, 64), 4, 448, False),
             ("f32", (128, 128, 64), 3, 128, False),
             ("f32", (64, 64), 2, 128, True),
             ("f16", (256, 256, 256), 3, 768, True)]


@pytest.mark.parametrize("dt,cols,n,dcols,exhausted", MRG_TABLE)
def test_tmrgsort_lists_match_merge_loop(dt, cols, n, dcols, exhausted):
    m = mk()
    per = 2 if dt == "f32" else 4
    rng = np.random.default_rng(sum(cols) + n)
    lists, srcs = [], []
    for k, c in enumerate(cols):
        v = np.sort(rng.uniform(0, 1, c // per).astype(NP[dt]))[::-1]
        v[1::5] = v[0::5][:len(v[1::5])]                    # ties inside a list
        lst = [(float(x), 1000 * k + j) for j, x in enumerate(v)]
        lists.append(lst)
        t = m.tile("Vec", dt, 1, c)
        put(m, t, records(*zip(*lst), dt))
        srcs.append(t)
    tmp = m.tile("Vec", dt, 1, max(dcols, sum(cols)))
    dst = blank(m, dt, 1, dcols)
    got_counts = m.TMRGSORT(dst, tmp, *srcs, exhausted=exhausted)
    merged, taken = merge_loop(lists, exhausted)
    assert got_counts == tuple(taken + [0] * (4 - n))
    want = records(*zip(*merged), dt).view(np.uint8)
    span = min(len(want), dcols * dst.dtype.size)
    np.testing.assert_array_equal(raw(m, dst)[0, :span], want[:span])


# a5 TMRGSORT single-list table: (type, cols, block_len)
SINGLE_TABLE = [("f32", 256, 64), ("f32", 320, 64), ("f32", 512, 64), ("f32", 640, 64),
                ("f16", 256, 64), ("f16", 320, 64), ("f16", 512, 64), ("f16", 1024, 256)]


@pytest.mark.parametrize("dt,cols,blen", SINGLE_TABLE)
def test_tmrgsort_single_list_merges_groups_of_four_blocks(dt, cols, blen):
    m = mk()
    per = 2 if dt == "f32" else 4
    rng = np.random.default_rng(cols + blen)
    nrec, blk = cols // per, blen // per
    vals = rng.uniform(0, 1, nrec).astype(NP[dt])
    for b in range(0, nrec - nrec % blk, blk):
        vals[b:b + blk] = np.sort(vals[b:b + blk])[::-1]
    src = m.tile("Vec", dt, 1, cols)
    put(m, src, records(vals, range(nrec), dt))
    dst = blank(m, dt, 1, cols)
    m.TMRGSORT(dst, src, blen)
    want = bytearray()
    for g in range(cols // (4 * blen)):
        blocks = [[(float(vals[g * 4 * blk + i * blk + j]), g * 4 * blk + i * blk + j)
                   for j in range(blk)] for i in range(4)]
        want += records(*zip(*merge_loop(blocks, False)[0]), dt).tobytes()
    got = raw(m, dst)[0]
    np.testing.assert_array_equal(got[:len(want)], np.frombuffer(bytes(want), np.uint8))
    assert (got[len(want):] == SENTINEL).all()              # the partial group stays


def test_tmrgsort_exhausted_one_record_lists():
    """The Gym dsa-sfu/vmrgsort4 golden: four 1-record lists, exhausted mode -> only the
    largest record, executed counts (1, 0, 0, 0)."""
    m = mk()
    srcs = []
    for v, i in ((9.0, 90), (7.0, 70), (5.0, 50), (3.0, 30)):
        t = m.tile("Vec", "f32", 1, 8, valid=(1, 2))
        put(m, t, np.concatenate([records([v], [i], "f32"), np.zeros(6, np.float32)]))
        srcs.append(t)
    tmp = m.tile("Vec", "f32", 1, 8)
    dst = m.tile("Vec", "f32", 1, 8, valid=(1, 2))
    assert m.TMRGSORT(dst, tmp, *srcs, exhausted=True) == (1, 0, 0, 0)
    assert m.read(dst.ptr, 2)[0] == 9.0 and m.read(dst.ptr.cast("ui32"), 2)[1] == 90


@pytest.mark.parametrize("build,exc,msg", [
    (lambda m: (m.tile("Vec", "i32", 1, 64), m.tile("Vec", "i32", 1, 64),
                m.tile("Vec", "i32", 1, 32), m.tile("Vec", "i32", 1, 32)), DtypeError,
     "dst element type must be one of f16, f32"),
    (lambda m: (m.tile("Vec", "f32", 1, 64), m.tile("Vec", "f32", 1, 64),
                m.tile("Vec", "f16", 1, 32), m.tile("Vec", "f32", 1, 32)), DtypeError,
     "src0 is f16 but dst is f32"),
    (lambda m: (m.tile("Vec", "f32", 1, 64), m.tile("Vec", "f32", 1, 32),
                m.tile("Vec", "f32", 1, 32), m.tile("Vec", "f32", 1, 32)), VerifyError,
     "tmp has 32 cols, fewer than dst's 64"),
    (lambda m: (m.tile("Vec", "f32", 2, 64), m.tile("Vec", "f32", 2, 64),
                m.tile("Vec", "f32", 1, 32), m.tile("Vec", "f32", 1, 32)), VerifyError,
     "dst must have 1 row, got 2"),
    (lambda m: (m.tile("Vec", "f32", 1, 256), m.tile("Vec", "f32", 1, 256), 32), PtoValueError,
     "block_len must be a positive multiple of 64, got 32"),
    (lambda m: (m.tile("Vec", "f32", 1, 256), m.tile("Vec", "f32", 1, 128), 64), VerifyError,
     "src valid cols 128 must hold 1 to 255 groups of 4 x block_len = 256, got 0"),
    (lambda m: (m.tile("Vec", "f32", 1, 64), m.tile("Vec", "f32", 1, 64)), PtoTypeError,
     "operands after dst must be"),
])
def test_tmrgsort_rules(build, exc, msg):
    m = mk()
    with pytest.raises(exc) as info:
        m.TMRGSORT(*build(m))
    assert msg in str(info.value) and "TMRGSORT" in str(info.value)


def test_tmrgsort_single_list_text_form():
    text = """
module {
  func.func @k() attributes {pto.aicore} {
    %c64 = arith.constant 64 : i32
    %s = pto.alloc_tile : !pto.tile_buf<vec, 1x256xf32>
    %d = pto.alloc_tile : !pto.tile_buf<vec, 1x256xf32>
    pto.tmrgsort ins(%s, %c64 : !pto.tile_buf<vec, 1x256xf32>, i32) outs(%d : !pto.tile_buf<vec, 1x256xf32>)
    return
  }
}
"""
    k = Kernel.from_text(text)
    assert "pto.tmrgsort ins(" in str(k.module)


# --- THISTOGRAM -----------------------------------------------------------------------------
def cum_hist_loop(values):
    counts = [0] * 256
    for x in values:
        counts[int(x)] += 1
    out, total = [], 0
    for c in counts:
        total += c
        out.append(total)
    return out


def padded_cols(cols, size):
    return -(-cols * size // 32) * 32 // size


# a5 THISTOGRAM u16 table: (rows, cols, byte) (MSB = byte 1, LSB = byte 0)
HIST16_TABLE = [(2, 128, 1), (4, 64, 1), (8, 128, 1), (1, 256, 1), (4, 256, 1), (2, 100, 1),
                (2, 128, 0), (4, 64, 0), (8, 128, 0), (1, 256, 0), (4, 256, 0), (2, 100, 0)]


@pytest.mark.parametrize("rows,cols,byte", HIST16_TABLE)
def test_thistogram_u16_cumulative_counts(rows, cols, byte):
    m = mk()
    rng = np.random.default_rng(rows * cols + byte)
    pc = padded_cols(cols, 2)
    x = rng.integers(0, 1 << 16, (rows, pc)).astype(np.uint16)
    x[:, : cols // 2] &= 0x3FFF                                  # crowd a few MSBs
    src = m.tile("Vec", "ui16", rows, pc, valid=(rows, cols))
    put(m, src, x)
    filt = rng.integers(0, 64, 32).astype(np.uint8)
    idx = m.tile("Vec", "ui8", 32, 1, blayout="ColMajor")   # a5: DN, one column
    put(m, idx, filt)
    dst = blank(m, "ui32", rows, 256)
    m.THISTOGRAM(dst, src, idx, byte=byte)
    got = raw(m, dst).copy().view(np.uint32)
    for r in range(rows):
        row = [int(v) for v in x[r, :cols]]
        if byte == 1:
            want = cum_hist_loop([v >> 8 for v in row])
        else:
            want = cum_hist_loop([v & 0xFF for v in row if v >> 8 == filt[r]])
        assert list(got[r]) == want


# a5 THISTOGRAM u32 table: (rows, cols, byte)
HIST32_TABLE = [(1, 128, 3), (1, 256, 3), (2, 128, 3), (2, 4096, 3), (2, 192, 3), (6, 912, 3),
                (1, 128, 2), (2, 256, 1), (2, 256, 0)]


@pytest.mark.parametrize("rows,cols,byte", HIST32_TABLE)
def test_thistogram_u32_filters_on_higher_bytes(rows, cols, byte):
    m = mk()
    rng = np.random.default_rng(rows * cols + byte)
    x = rng.integers(0, 1 << 32, (rows, cols), dtype=np.uint64).astype(np.uint32)
    x[:, ::2] = (x[:, ::2] & 0x0000FFFF) | 0x07030000             # many pass the filters
    x[:, ::4] = (x[:, ::4] & 0xFFFF00FF) | 0x00000500
    src = m.tile("Vec", "ui32", rows, cols)
    put(m, src, x)
    filt = [7, 3, 5]
    idx = m.tile("Vec", "ui8", 3, 32)
    put(m, idx, np.repeat(np.array(filt, np.uint8)[:, None], 32, axis=1))
    dst = blank(m, "ui32", rows, 256)
    m.THISTOGRAM(dst, src, idx, byte=byte)
    got = raw(m, dst).copy().view(np.uint32)
    for r in range(rows):
        vals = []
        for v in (int(t) for t in x[r]):
            bs = [(v >> (8 * b)) & 0xFF for b in range(4)]
            if all(bs[3 - k] == filt[k] for k in range(3 - byte)):
                vals.append(bs[byte])
        assert list(got[r]) == cum_hist_loop(vals)


def test_thistogram_rules():
    m = mk()
    src, idx = m.tile("Vec", "ui16", 1, 64), m.tile("Vec", "ui8", 1, 32)
    with pytest.raises(DtypeError, match="src element type must be one of ui16, ui32, got i16"):
        m.THISTOGRAM(m.tile("Vec", "ui32", 1, 256), m.tile("Vec", "i16", 1, 64), idx)
    with pytest.raises(DtypeError, match="dst element type must be one of ui32, got i32"):
        m.THISTOGRAM(m.tile("Vec", "i32", 1, 256), src, idx)
    with pytest.raises(DtypeError, match="idx element type must be one of ui8, got i8"):
        m.THISTOGRAM(m.tile("Vec", "ui32", 1, 256), src, m.tile("Vec", "i8", 1, 32))
    with pytest.raises(PtoValueError, match="byte must be 0 to 1 for ui16 data, got 2"):
        m.THISTOGRAM(m.tile("Vec", "ui32", 1, 256), src, idx, byte=2)
    with pytest.raises(VerifyError, match="dst needs 256 valid cols"):
        m.THISTOGRAM(m.tile("Vec", "ui32", 1, 128), src, idx)
    with pytest.raises(VerifyError, match="byte 0 filters on 3 higher bytes: idx needs 3 rows"):
        m.THISTOGRAM(m.tile("Vec", "ui32", 1, 256), m.tile("Vec", "ui32", 1, 64), idx, byte=0)
    column = m.tile("Vec", "ui8", 32, 1, blayout="ColMajor")
    with pytest.raises(VerifyError, match="ui16 data needs a DN idx tile of one column, got "
                                          "ND 1x32"):
        m.THISTOGRAM(m.tile("Vec", "ui32", 1, 256), src, idx)
    with pytest.raises(VerifyError, match="ui32 data needs an ND idx tile, got DN 32x1"):
        m.THISTOGRAM(m.tile("Vec", "ui32", 1, 256), m.tile("Vec", "ui32", 1, 64), column)
    with pytest.raises(VerifyError, match="idx must be a row-major ND tile \\(or a DN tile of "
                                          "one column\\), got DN with 2 columns"):
        m.THISTOGRAM(m.tile("Vec", "ui32", 1, 256), src,
                     m.tile("Vec", "ui8", 32, 2, blayout="ColMajor"))


# --- TPRINT ---------------------------------------------------------------------------------
def test_tprint_prints_the_valid_region(capsys):
    m = mk()
    t = m.tile("Vec", "f32", 2, 8, valid=(2, 3))
    put(m, t, np.arange(16, dtype=np.float32).reshape(2, 8) / 4 - 1)
    m.TPRINT(t)
    m.TPRINT(t, format="w10p6")
    i = m.tile("Vec", "i8", 1, 32, valid=(1, 4))
    put(m, i, np.arange(32, dtype=np.int8) - 2)
    m.TPRINT(i)
    assert capsys.readouterr().out == (
        "TPRINT 2x3\n -1.0000  -0.7500  -0.5000\n  1.0000   1.2500   1.5000\n"
        "TPRINT 2x3\n -1.000000  -0.750000  -0.500000\n  1.000000   1.250000   1.500000\n"
        "TPRINT 1x4\n      -2       -1        0        1\n")


def test_tprint_rules_and_text_form(capsys, tmp_path):
    m = mk()
    with pytest.raises(PtoValueError, match="format must be one of w8p4, w8p2, w10p6, got 'x'"):
        m.TPRINT(m.tile("Vec", "f32", 1, 8), format="x")
    with pytest.raises(PtoTypeError, match="unknown keyword 'fmt'"):
        m.TPRINT(m.tile("Vec", "f32", 1, 8), fmt="w8p2")
    text = """
module {
  func.func @k(%x: !pto.ptr<i32>) attributes {pto.aicore} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %v = pto.make_tensor_view %x, shape = [%c1, %c8], strides = [%c8, %c1]
      : !pto.tensor_view<1x8xi32>
    %p = pto.partition_view %v, offsets = [%c0, %c0], sizes = [%c1, %c8]
      : !pto.tensor_view<1x8xi32>
    %s = pto.alloc_tile : !pto.tile_buf<vec, 1x8xi32>
    pto.tload ins(%p : !pto.partition_tensor_view<1x8xi32>) outs(%s : !pto.tile_buf<vec, 1x8xi32>)
    pto.tprint ins(%s : !pto.tile_buf<vec, 1x8xi32>)
    return
  }
}
"""
    Kernel.from_text(text).run({"x": np.arange(8, dtype=np.int32) * 100})
    out = capsys.readouterr().out
    assert "TPRINT 1x8\n       0      100      200      300      400      500      600      700\n" \
        in out
    with pytest.raises(ptosim.PtoError, match=r"pto\.tprint: unsupported attribute 'format'"):
        Kernel.from_text(text.replace("xi32>)\n    return", "xi32>) {format = \"w8p2\"}\n    return"))
    from ptosim.cli import main  # `ptosim check` verifies it, prints nothing
    path = tmp_path / "print.pto"
    path.write_text(text)
    assert main(["check", str(path)]) == 0
    out = capsys.readouterr().out
    assert "checks clean" in out and "TPRINT" not in out


# --- TGATHER / TSCATTER mask forms --------------------------------------------------------------
# a5 TGATHER index table: (data, index, src rows, src cols, index rows, index cols)
GATHER_TABLE = [("f32", "i32", 32, 1024, 16, 64), ("i32", "i32", 32, 512, 16, 256),
                ("f16", "i16", 16, 1024, 16, 128), ("i16", "i16", 32, 256, 32, 64),
                ("i8", "i16", 16, 128, 16, 64), ("i8", "ui16", 16, 128, 16, 64),
                ("ui8", "ui16", 16, 128, 16, 64), ("i64", "ui32", 4, 16, 4, 16),
                ("ui64", "ui32", 4, 16, 4, 16), ("f16", "i32", 4, 64, 4, 16)]


@pytest.mark.parametrize("dt,it,sr,sc,ir,ic", GATHER_TABLE)
def test_tgather_index_form_matches_loop(dt, it, sr, sc, ir, ic):
    m = mk()
    rng = np.random.default_rng(sr * sc + ic)
    data = rng.integers(-20, 20, (sr, sc)).astype(NP[dt])
    idx = rng.integers(0, sr * sc, (ir, ic)).astype(NP[it])
    src = m.tile("Vec", dt, sr, sc)
    put(m, src, data)
    it_ = m.tile("Vec", it, ir, ic)
    put(m, it_, idx)
    dst = blank(m, dt, ir, ic)
    m.TGATHER(dst, src, it_)
    flat = data.ravel()
    want = np.zeros((ir, ic), NP[dt])
    for r in range(ir):
        for c in range(ic):
            want[r, c] = flat[int(idx[r, c])]
    np.testing.assert_array_equal(raw(m, dst).copy().view(NP[dt]).reshape(ir, ic), want)


# a5 TGATHER mask table (f32 rows / cols per pattern) and f16 shapes
MASK_TABLE = [("f32", 4, 64, "P0101"), ("f32", 4, 64, "P1010"), ("f32", 4, 64, "P0001"),
              ("f32", 4, 64, "P0010"), ("f32", 4, 64, "P0100"), ("f32", 4, 64, "P1000"),
              ("f32", 7, 320, "P1111"), ("f16", 5, 128, "P0101"), ("f16", 7, 320, "P1111"),
              ("i8", 3, 96, "P1000")]


@pytest.mark.parametrize("dt,rows,cols,pattern", MASK_TABLE)
def test_tgather_mask_form_streams_selected_lanes(dt, rows, cols, pattern):
    m = mk()
    data = np.random.default_rng(cols).integers(1, 100, (rows, cols)).astype(NP[dt])
    src = m.tile("Vec", dt, rows, cols)
    put(m, src, data)
    dst = blank(m, dt, rows, cols)
    m.TGATHER(dst, src, mask_pattern=pattern)
    # the manual's reading: bit k from the right selects lane k of each group of 2 or 4
    width, lane = {"P1111": (1, 0), "P0101": (2, 0), "P1010": (2, 1), "P0001": (4, 0),
                   "P0010": (4, 1), "P0100": (4, 2), "P1000": (4, 3)}[pattern]
    want = [data[r, c] for r in range(rows) for c in range(cols) if c % width == lane]
    got = raw(m, dst).copy().view(NP[dt]).ravel()
    np.testing.assert_array_equal(got[:len(want)], np.array(want, NP[dt]))
    assert (raw(m, dst).ravel()[len(want) * data.itemsize:] == SENTINEL).all()


# a5 TSCATTER mask table: (type, rows, src cols, dst cols, pattern)
SCATTER_MASK_TABLE = [("f16", 16, 64, 64, "P1111"), ("f32", 16, 64, 64, "P1111"),
                      ("f16", 16, 64, 128, "P1010"), ("f32", 16, 64, 128, "P0101"),
                      ("i32", 16, 64, 128, "P1010"), ("f16", 16, 64, 256, "P1000"),
                      ("f32", 16, 64, 256, "P0100"), ("f32", 16, 64, 256, "P0010"),
                      ("f16", 16, 64, 256, "P0001")]


@pytest.mark.parametrize("dt,rows,sc,dc,pattern", SCATTER_MASK_TABLE)
def test_tscatter_mask_form_expands_groups(dt, rows, sc, dc, pattern):
    m = mk()
    data = np.random.default_rng(dc).integers(1, 100, (rows, sc)).astype(NP[dt])
    src = m.tile("Vec", dt, rows, sc)
    put(m, src, data)
    dst = blank(m, dt, rows, dc)
    m.TSCATTER(dst, src, mask_pattern=pattern)
    width = dc // sc
    lane = pattern[::-1].index("1")
    want = np.zeros((rows, dc), NP[dt])
    for r in range(rows):
        for c in range(sc):
            want[r, width * c + lane] = data[r, c]
    np.testing.assert_array_equal(raw(m, dst).copy().view(NP[dt]), want)


def test_tgather_and_mask_rules():
    m = mk()
    src = m.tile("Vec", "f32", 2, 8)
    idx = m.tile("Vec", "i32", 2, 8)
    put(m, idx, np.array([[0] * 8, [0] * 7 + [16]], np.int32))
    with pytest.raises(PtoValueError, match=r"indices\[1, 7\] = 16 is outside src's 16"):
        m.TGATHER(m.tile("Vec", "f32", 2, 8), src, idx)
    with pytest.raises(DtypeError, match="f32 data takes 32-bit indices, got i16"):
        m.TGATHER(m.tile("Vec", "f32", 2, 8), src, m.tile("Vec", "i16", 2, 16))
    with pytest.raises(VerifyError, match="dst must be continuous: valid cols 5 != cols 8"):
        m.TGATHER(m.tile("Vec", "f32", 2, 8, valid=(2, 5)), src, idx)
    with pytest.raises(PtoTypeError, match="either an indices tile or mask_pattern"):
        m.TGATHER(m.tile("Vec", "f32", 2, 8), src, idx, mask_pattern="P0101")
    with pytest.raises(PtoValueError, match="mask_pattern must be one of P1111, P0101"):
        m.TGATHER(m.tile("Vec", "f32", 2, 8), src, mask_pattern="P0110")
    with pytest.raises(DtypeError, match=r"dst \(f16\) and src \(f32\) must have one element"):
        m.TGATHER(m.tile("Vec", "f16", 2, 16), src, mask_pattern="P0101")
    with pytest.raises(VerifyError, match="dst's valid region 2x8 must be 2x16"):
        m.TSCATTER(m.tile("Vec", "f32", 2, 8), src, mask_pattern="P0101")


def test_tgather_mask_text_form():
    text = """
module {
  func.func @k() attributes {pto.aicore} {
    %s = pto.alloc_tile : !pto.tile_buf<vec, 2x64xf32>
    %d = pto.alloc_tile : !pto.tile_buf<vec, 2x64xf32>
    pto.tgather ins(%s, {maskPattern = #pto.mask_pattern<P0101>} : !pto.tile_buf<vec, 2x64xf32>)
      outs(%d : !pto.tile_buf<vec, 2x64xf32>)
    pto.tscatter ins(%s {maskPattern = #pto<mask_pattern P1111>} : !pto.tile_buf<vec, 2x64xf32>)
      outs(%d : !pto.tile_buf<vec, 2x64xf32>)
    return
  }
}
"""
    k = Kernel.from_text(text)
    printed = str(k.module)
    assert "#pto.mask_pattern<P0101>" in printed and "#pto.mask_pattern<P1111>" in printed
    k.run({})


# --- TQUANT / TDEQUANT ----------------------------------------------------------------------
QUANT_TABLE = [("INT8_SYM", 64, 128), ("INT8_SYM", 128, 128), ("INT8_SYM", 256, 128),
               ("INT8_ASYM", 64, 128), ("INT8_ASYM", 128, 128), ("INT8_ASYM", 256, 128),
               ("INT8_SYM", 3, 40)]


@pytest.mark.parametrize("qt,rows,cols", QUANT_TABLE)
def test_tquant_int8_matches_loop(qt, rows, cols):
    """a5 ST parameters: per-row inverse scales (and zero points) as an N x 1 vector."""
    m = mk()
    rng = np.random.default_rng(rows + cols)
    x = rng.uniform(-2, 2, (rows, cols)).astype(np.float32)
    x[0, :4] = [0.5, 1.5, -2.5, 1e9]                        # ties to even, saturation
    lo, hi = (np.min(x, 1), np.max(x, 1))
    sym = qt == "INT8_SYM"
    inv = (127 / np.max(np.abs(x), 1) if sym else 255 / (hi - lo)).astype(np.float32)
    inv[0] = 1
    zp = np.clip(np.round(-lo * inv), 0, 255).astype(np.float32)
    src = m.tile("Vec", "f32", rows, cols)
    put(m, src, x)
    sc = m.tile("Vec", "f32", 1, -(-rows // 8) * 8)
    put(m, sc, np.resize(inv, sc.cols))
    args = [src, sc]
    if not sym:
        off = m.tile("Vec", "f32", 1, -(-rows // 8) * 8)
        put(m, off, np.resize(zp, off.cols))
        args.append(off)
    out = "i8" if sym else "ui8"
    dst = blank(m, out, rows, -(-cols // 32) * 32)
    m.TQUANT(dst, *args, quant_type=qt)
    want = np.zeros((rows, cols), NP[out])
    for r in range(rows):
        for c in range(cols):
            y = np.float32(x[r, c] * inv[r])
            if not sym:
                y = np.float32(y + zp[r])
            q = round(float(y))                               # Python rounds half to even
            want[r, c] = min(max(q, -128 if sym else 0), 127 if sym else 255)
    got = raw(m, dst)
    np.testing.assert_array_equal(got[:, :cols].view(NP[out]), want)
    assert (got[:, cols:] == SENTINEL).all()


# a5 TDEQUANT table: (src, zero offsets, rows, cols, valid rows, valid cols)
DEQUANT_TABLE = [("i16", True, 64, 64, 64, 64), ("i16", False, 128, 128, 64, 64),
                 ("i16", False, 128, 128, 63, 63), ("i8", True, 64, 64, 64, 64),
                 ("i8", False, 128, 128, 64, 64), ("i8", False, 128, 128, 63, 63),
                 ("i16", True, 51, 112, 51, 112)]


@pytest.mark.parametrize("st,zero,rows,cols,vr,vc", DEQUANT_TABLE)
def test_tdequant_matches_loop(st, zero, rows, cols, vr, vc):
    m = mk()
    rng = np.random.default_rng(rows * cols + vr)
    pc = padded_cols(cols, 1)
    x = rng.integers(-100, 100, (rows, pc)).astype(NP[st])
    scale = rng.uniform(-100, 100, (rows, 8)).astype(np.float32)
    offset = np.zeros((rows, 8), np.float32) if zero else \
        rng.uniform(-100, 100, (rows, 8)).astype(np.float32)
    src = m.tile("Vec", st, rows, pc, valid=(vr, vc))
    put(m, src, x)
    sc = m.tile("Vec", "f32", rows, 8, valid=(vr, 1))
    put(m, sc, scale)
    of = m.tile("Vec", "f32", rows, 8, valid=(vr, 1))
    put(m, of, offset)
    dst = blank(m, "f32", rows, padded_cols(cols, 4), valid=(vr, vc))
    m.TDEQUANT(dst, src, sc, of)
    got = raw(m, dst)
    want = np.zeros((vr, vc), np.float32)
    for r in range(vr):
        for c in range(vc):
            want[r, c] = np.float32(np.float32(x[r, c]) - offset[r, 0]) * scale[r, 0]
    np.testing.assert_array_equal(got[:vr, :vc * 4].copy().view(np.float32), want)
    keep = np.ones(got.shape, bool)
    keep[:vr, :vc * 4] = False
    assert (got[keep] == SENTINEL).all()


def test_tquant_tdequant_rules():
    m = mk()
    f = m.tile("Vec", "f32", 2, 8)
    with pytest.raises(PtoTypeError, match="INT8_ASYM needs offset tile"):
        m.TQUANT(m.tile("Vec", "ui8", 2, 32), f, f, quant_type="INT8_ASYM")
    with pytest.raises(PtoValueError, match="quant_type must be INT8_SYM or INT8_ASYM"):
        m.TQUANT(m.tile("Vec", "i8", 2, 32), f, f, quant_type="MXFP8")
    with pytest.raises(DtypeError, match="dst element type must be one of i8, got ui8"):
        m.TQUANT(m.tile("Vec", "ui8", 2, 32), f, f)
    with pytest.raises(DtypeError, match="src element type must be one of f32, got f16"):
        m.TQUANT(m.tile("Vec", "i8", 2, 32), m.tile("Vec", "f16", 2, 16), f)
    with pytest.raises(DtypeError, match="src element type must be one of i8, i16, got i32"):
        m.TDEQUANT(f, m.tile("Vec", "i32", 2, 8), f, f)
    with pytest.raises(VerifyError, match="src's valid region 2x16 differs from dst's 2x8"):
        m.TDEQUANT(f, m.tile("Vec", "i16", 2, 16), f, f)
    with pytest.raises(VerifyError, match="scale has 1 valid rows but dst 2"):
        m.TDEQUANT(f, m.tile("Vec", "i16", 2, 16, valid=(2, 8)), m.tile("Vec", "f32", 1, 8), f)


def test_tquant_text_form():
    text = """
module {
  func.func @k() attributes {pto.aicore} {
    %s = pto.alloc_tile : !pto.tile_buf<vec, 2x8xf32>
    %f = pto.alloc_tile : !pto.tile_buf<vec, 1x8xf32>
    %d = pto.alloc_tile : !pto.tile_buf<vec, 2x32xui8>
    %e = pto.alloc_tile : !pto.tile_buf<vec, 2x32xi8>
    pto.tquant ins(%s, %f, %f : !pto.tile_buf<vec, 2x8xf32>, !pto.tile_buf<vec, 1x8xf32>,
      !pto.tile_buf<vec, 1x8xf32>) outs(%d : !pto.tile_buf<vec, 2x32xui8>)
      {quant_type = #pto<quant_type INT8_ASYM>}
    pto.tquant ins(%s, %f : !pto.tile_buf<vec, 2x8xf32>, !pto.tile_buf<vec, 1x8xf32>)
      outs(%e : !pto.tile_buf<vec, 2x32xi8>) {quant_type = #pto.quant_type<INT8_SYM>}
    return
  }
}
"""
    k = Kernel.from_text(text)
    assert "#pto.quant_type<INT8_ASYM>" in str(k.module)
    k.run({})


# --- TINTERLEAVE / TDEINTERLEAVE ------------------------------------------------------------
INTLV_TABLE = [("f32", 4, 64, 64), ("f16", 3, 256, 200), ("i8", 2, 512, 300), ("i32", 1, 16, 8),
               ("bf16", 2, 128, 128)]


@pytest.mark.parametrize("dt,rows,cols,vc", INTLV_TABLE)
def test_tinterleave_and_back(dt, rows, cols, vc):
    m = mk()
    rng = np.random.default_rng(cols + vc)
    a = rng.integers(-50, 50, (rows, cols)).astype(NP[dt])
    b = rng.integers(-50, 50, (rows, cols)).astype(NP[dt])
    s0, s1 = m.tile("Vec", dt, rows, cols, valid=(rows, vc)), \
        m.tile("Vec", dt, rows, cols, valid=(rows, vc))
    put(m, s0, a)
    put(m, s1, b)
    d0, d1 = blank(m, dt, rows, cols, (rows, vc)), blank(m, dt, rows, cols, (rows, vc))
    m.TINTERLEAVE(d1, d0, s1, s0)
    h = vc // 2
    w0, w1 = np.zeros((rows, vc), NP[dt]), np.zeros((rows, vc), NP[dt])
    for r in range(rows):
        for c in range(h):
            w0[r, 2 * c], w0[r, 2 * c + 1] = a[r, c], b[r, c]
            w1[r, 2 * c], w1[r, 2 * c + 1] = a[r, h + c], b[r, h + c]
    size = np.dtype(NP[dt]).itemsize
    for d, w in ((d0, w0), (d1, w1)):
        got = raw(m, d)
        np.testing.assert_array_equal(got[:, :vc * size].copy().view(NP[dt]), w)
        assert (got[:, vc * size:] == SENTINEL).all()
    e0, e1 = blank(m, dt, rows, cols, (rows, vc)), blank(m, dt, rows, cols, (rows, vc))
    m.TDEINTERLEAVE(e1, e0, d1, d0)                      # the inverse
    np.testing.assert_array_equal(raw(m, e0)[:, :vc * size].copy().view(NP[dt]), a[:, :vc])
    np.testing.assert_array_equal(raw(m, e1)[:, :vc * size].copy().view(NP[dt]), b[:, :vc])


def test_tdeinterleave_one_source():
    m = mk()
    src = m.tile("Vec", "f32", 2, 16)
    put(m, src, np.arange(32, dtype=np.float32).reshape(2, 16))
    d0, d1 = m.tile("Vec", "f32", 2, 8), m.tile("Vec", "f32", 2, 8)
    m.TDEINTERLEAVE(d1, d0, src)
    np.testing.assert_array_equal(m.read(d0.ptr, 16).reshape(2, 8),
                                  np.arange(32).reshape(2, 16)[:, 0::2])
    np.testing.assert_array_equal(m.read(d1.ptr, 16).reshape(2, 8),
                                  np.arange(32).reshape(2, 16)[:, 1::2])


def test_interleave_rules():
    m = mk()
    t = m.tile("Vec", "f32", 2, 8)
    with pytest.raises(DtypeError, match="src1 is f16 but dst0 is f32"):
        m.TINTERLEAVE(t, t, m.tile("Vec", "f16", 2, 16, valid=(2, 8)), t)
    with pytest.raises(VerifyError, match="dst0's valid cols 7 must be even"):
        m.TINTERLEAVE(m.tile("Vec", "f32", 2, 8, valid=(2, 7)),
                      m.tile("Vec", "f32", 2, 8, valid=(2, 7)),
                      m.tile("Vec", "f32", 2, 8, valid=(2, 7)),
                      m.tile("Vec", "f32", 2, 8, valid=(2, 7)))
    with pytest.raises(VerifyError, match="src0's valid region 1x8 differs from 2x8"):
        m.TINTERLEAVE(t, t, t, m.tile("Vec", "f32", 1, 8))
    with pytest.raises(VerifyError, match="src1's valid region 2x8 differs from 2x16"):
        m.TDEINTERLEAVE(t, t, t)
    with pytest.raises(DtypeError, match="dst0 element type must be one of"):
        i64 = m.tile("Vec", "i64", 2, 8)
        m.TINTERLEAVE(i64, i64, i64, i64)


def _views(names, shape="1x32"):
    c = shape.split("x")[1]
    lines = []
    for n in names:
        lines.append(f"    %v{n} = pto.make_tensor_view %{n}, shape = [%c1, %c{c}], strides = "
                     f"[%c{c}, %c1] : !pto.tensor_view<{shape}xf32>\n"
                     f"    %p{n} = pto.partition_view %v{n}, offsets = [%c0, %c0], sizes = "
                     f"[%c1, %c{c}] : !pto.tensor_view<{shape}xf32>\n")
    return "".join(lines)


T32 = "!pto.tile_buf<vec, 1x32xf32>"
P32 = "!pto.partition_tensor_view<1x32xf32>"
MULTI_OUT_KERNEL = f"""
module {{
  func.func @k(%a: !pto.ptr<f32>, %b: !pto.ptr<f32>, %o: !pto.ptr<f32>, %q: !pto.ptr<f32>)
      attributes {{pto.aicore}} {{
    %ex = arith.constant dense<0> : vector<4xi16>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
{_views("abq")}{_views("o", "1x64")}
    %ta = pto.alloc_tile : {T32}
    %tb = pto.alloc_tile : {T32}
    %t0 = pto.alloc_tile : {T32}
    %t1 = pto.alloc_tile : {T32}
    %tmp = pto.alloc_tile : !pto.tile_buf<vec, 1x64xf32>
    %d = pto.alloc_tile : !pto.tile_buf<vec, 1x64xf32>
    pto.tload ins(%pa : {P32}) outs(%ta : {T32})
    pto.tload ins(%pb : {P32}) outs(%tb : {T32})
    pto.tmrgsort ins(%ta, %tb, %tmp {{exhausted = false}} : {T32}, {T32},
      !pto.tile_buf<vec, 1x64xf32>) outs(%d, %ex : !pto.tile_buf<vec, 1x64xf32>, vector<4xi16>)
    pto.tinterleave ins(%tb, %ta : {T32}, {T32}) outs(%t1, %t0 : {T32}, {T32})
    pto.tstore ins(%d : !pto.tile_buf<vec, 1x64xf32>) outs(%po : !pto.partition_tensor_view<1x64xf32>)
    pto.tstore ins(%t0 : {T32}) outs(%pq : {P32})
    return
  }}
}}
"""


def test_multi_out_text_forms():
    """tmrgsort's list form (PTOAS's spelling; the executed vector is accepted and not
    written) and tinterleave's two outs run like the Python face."""
    rng = np.random.default_rng(3)
    lists = [[(float(v), 100 * k + j) for j, v in
              enumerate(np.sort(rng.uniform(0, 1, 16).astype(np.float32))[::-1])]
             for k in range(2)]
    a, b = (records(*zip(*lst), "f32") for lst in lists)
    k = Kernel.from_text(MULTI_OUT_KERNEL)
    printed = str(k.module)
    assert "outs(%d, %ex : " in printed and "outs(%t1, %t0 : " in printed
    res = k.run({"a": a, "b": b, "o": np.zeros(64, np.float32), "q": np.zeros(32, np.float32)})
    want = records(*zip(*merge_loop(lists, False)[0]), "f32")
    np.testing.assert_array_equal(res.outputs["o"].ravel().view(np.uint32), want.view(np.uint32))
    inter = np.empty(32, np.float32)
    inter[0::2], inter[1::2] = a[:16], b[:16]
    np.testing.assert_array_equal(res.outputs["q"].ravel().view(np.uint32),
                                  inter.view(np.uint32))


def test_multi_out_text_diagnostics():
    bad = MULTI_OUT_KERNEL.replace("outs(%d, %ex : !pto.tile_buf<vec, 1x64xf32>, vector<4xi16>)",
                                   "outs(%d, %tmp : !pto.tile_buf<vec, 1x64xf32>, "
                                   "!pto.tile_buf<vec, 1x64xf32>)")
    with pytest.raises(ptosim.PtoError, match=r"second out \(executed counts\) must be a "
                                              "vector<4xi16>"):
        Kernel.from_text(bad)
    bad = MULTI_OUT_KERNEL.replace(f"outs(%t1, %t0 : {T32}, {T32})", f"outs(%t1 : {T32})")
    with pytest.raises(ptosim.PtoError, match=r"pto\.tinterleave: operands must be dst1: tile, "
                                              r"then"):
        Kernel.from_text(bad)


@pytest.mark.parametrize("op", ["THISTOGRAM", "TINTERLEAVE", "TDEINTERLEAVE", "TRANDOM"])
def test_a5_only_ops_do_not_exist_on_a2a3(op):
    """pto-isa has no a2a3 code for these (no *_IMPL under include/pto/npu/a2a3) and PTOAS
    refuses them there ("only supported on A5")."""
    m = ptosim.Machine(target="a2a3")
    t = m.tile("Vec", "ui32", 1, 256)
    before = m.blocks[0].ub[0].copy()
    with pytest.raises(TargetError, match=f"{op}: {op} does not exist on a2a3 \\(pto-isa "
                                          f"implements it for a5 only"):
        getattr(m, op)(t, t, t)
    assert np.array_equal(m.blocks[0].ub[0], before)
