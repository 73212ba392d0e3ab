"""TGATHER's comparison form (ptosim.tile.sort._gather_cmp): per-row k thresholds, GT / EQ,
squeezed u32 index streams per dst row and cdst byte counts, against explicit per-lane loops
written from pto-isa's a5 TGather_cmp paths (independent of the numpy implementation), the
a5 ST parameter table (tests/npu/a5/src/st/testcase/tgather/gen_data.py, its golden
formula), the write footprint, every static rule and the .pto spelling."""

import math
import struct
import zlib

import numpy as np
import pytest

import ptosim
from ptosim.errors import (
    DtypeError,
    PtoTypeError,
    PtoValueError,
    SpaceError,
    VerifyError,
)
from ptosim.kernel import Kernel

NP = {"i8": np.int8, "ui8": np.uint8, "i16": np.int16, "ui16": np.uint16, "i32": np.int32,
      "ui32": np.uint32, "f16": np.float16, "f32": np.float32}
SENTINEL = 0xA5A5A5A5


def mk(target="a5"):
    return ptosim.Machine(target=target)


def col(m, dt, n):
    """An n x 1 ColMajor tile (the ST's k_value / cdst tiles), padded to 32 bytes."""
    size = np.dtype(NP[dt]).itemsize
    rows = max(n, 32 // size)
    return m.tile("Vec", dt, rows, 1, blayout="ColMajor", valid=(n, 1))


def setup(m, sdt, rows, cols, kdt, kcols, src_cols=None, valid_cols=None):
    sc = src_cols or cols
    src = m.tile("Vec", sdt, rows, sc, valid=(rows, valid_cols or cols))
    k = col(m, kdt, rows)
    dst = m.tile("Vec", "ui32", rows, kcols)
    cdst = col(m, "ui32", rows)
    tmp = m.tile("Vec", "ui8", rows, 32)
    for t in (dst, cdst):
        m.write(t.ptr.cast("ui32"), np.full(t.nbytes // 4, SENTINEL, np.uint32))
    return src, k, dst, cdst, tmp


# --- the golden: one lane at a time --------------------------------------------------------
def f32_to_s32_bits(x):
    """vcvt f32 -> s32, ROUND_R, no saturation: nearest-even, NaN / inf 0, wrap mod 2**32."""
    if math.isnan(x) or math.isinf(x):
        return 0
    return round(x) % (1 << 32)           # Python's round() ties to even


def lane_hit(sdt, raw_bits, value, k, mode):
    """Does one lane match? ``raw_bits``: the element's bits as an unsigned int."""
    if sdt == "f16":
        t = float(struct.unpack("<h", struct.pack("<H", k & 0xFFFF))[0])
        v = float(value)
        return (v > t) if mode == "GT" else (v == t)
    if sdt == "f32":
        s = f32_to_s32_bits(float(value))
        t = k
    elif sdt in ("i32", "ui32"):
        s, t = raw_bits, k
    else:                                 # 1- / 2-byte ints: zero-extended, k via f32
        s = raw_bits
        kk = k - (1 << 32) if (sdt in ("i8", "ui8") and k >= 1 << 31) else k
        t = int(np.float32(kk))
    return (s > t) if mode == "GT" else (s == t)


def golden(sdt, flat, src_cols, rows, cols, ks, mode, offset):
    """Per row: (index list, byte count). Lanes per row: whole 64-lane compares (1-byte: 128
    element loads); 4-byte types compare the valid columns only, the others every lane of
    the last load (storage past the valid columns)."""
    size = np.dtype(NP[sdt]).itemsize
    step = 128 if size == 1 else 64
    span = -(-cols // step) * step
    lanes = cols if size == 4 else span
    ubits = flat.view({1: np.uint8, 2: np.uint16, 4: np.uint32}[size])
    out = []
    for r in range(rows):
        got = []
        for c in range(lanes):
            e = r * src_cols + c
            if lane_hit(sdt, int(ubits[e]), flat[e], int(ks[r]), mode):
                got.append((offset + r * span + c) % (1 << 32))
        out.append(got)
    return out


def run_case(m, sdt, rows, cols, kdt, kcols, data, ks, mode, offset=0, src_cols=None,
             valid_cols=None):
    src, k, dst, cdst, tmp = setup(m, sdt, rows, cols, kdt, kcols, src_cols, valid_cols)
    m.write(src.ptr, np.ascontiguousarray(data, NP[sdt]).ravel())
    m.write(k.ptr, np.asarray(ks, NP[kdt]))
    m.TGATHER(dst, src, k, cdst, tmp, offset, cmp_mode=mode)
    flat = np.ascontiguousarray(data, NP[sdt]).ravel()
    want = golden(sdt, flat, src.cols, rows, src.valid[1], ks, mode,
                  offset % (1 << 32))
    got = m.read(dst.ptr.cast("ui32"), rows * kcols).reshape(rows, kcols)
    counts = m.read(cdst.ptr.cast("ui32"), cdst.rows)
    for r, idx in enumerate(want):
        assert list(got[r, :len(idx)]) == idx, (r, idx)
        assert (got[r, len(idx):] == SENTINEL).all()           # past the stream: untouched
        assert counts[r] == 4 * len(idx)                       # AR: the stream's bytes
    assert (counts[rows:] == SENTINEL).all()
    return want


# --- the a5 ST table: (src, k tile, rows, cols, k, dst cols, mode) --------------------------
ST_TABLE = [("f32", "ui32", 16, 64, 80, 32, "GT"), ("ui32", "ui32", 8, 128, 80, 64, "GT"),
            ("f32", "ui32", 4, 256, 30, 64, "EQ"), ("i16", "ui16", 16, 128, 90, 32, "GT"),
            ("i16", "ui16", 4, 64, 20, 32, "EQ"), ("f16", "ui16", 2, 256, 90, 32, "GT"),
            ("f16", "ui16", 8, 128, 40, 32, "EQ"), ("i8", "ui16", 16, 128, 90, 32, "GT"),
            ("i8", "ui16", 16, 128, 50, 32, "EQ"), ("ui8", "ui16", 16, 128, 90, 32, "GT")]


@pytest.mark.parametrize("sdt,kdt,rows,cols,kval,kcols,mode", ST_TABLE)
def test_st_table_matches_the_st_golden(sdt, kdt, rows, cols, kval, kcols, mode):
    """The ST's golden (gen_data.py): data randint(0, 100), index i * cols + j of each match,
    packed from the row's start; the ST compares dst only (its cdst is not stored)."""
    m = mk()
    rng = np.random.default_rng(rows * cols + kval)
    data = rng.integers(0, 100, (rows, cols)).astype(NP[sdt])
    src, k, dst, cdst, tmp = setup(m, sdt, rows, cols, kdt, kcols)
    m.write(src.ptr, data.ravel())
    m.write(k.ptr, np.full(rows, kval, NP[kdt]))
    m.TGATHER(dst, src, k, cdst, tmp, 0, cmp_mode=mode)
    st = np.zeros((rows, kcols), np.uint32)
    for i in range(rows):
        hits = [i * cols + j for j in range(cols)
                if (data[i, j] > kval if mode == "GT" else data[i, j] == kval)]
        st[i, :len(hits)] = hits
    got = m.read(dst.ptr.cast("ui32"), rows * kcols).reshape(rows, kcols)
    counts = m.read(cdst.ptr.cast("ui32"), rows)
    for i in range(rows):
        n = counts[i] // 4
        np.testing.assert_array_equal(got[i, :n], st[i, :n])
        assert (st[i, n:] == 0).all()            # the ST's zeros past the stream
    run_case(mk(), sdt, rows, cols, kdt, kcols, data, [kval] * rows, mode)


# --- random cases: every type, both modes, ties, specials, unaligned valid columns ---------
def random_data(rng, sdt, shape):
    if sdt == "f32":
        a = rng.choice(np.array([0.5, 1.5, 2.5, -0.5, 2.4999, 3.0, 7.0, -3.0, 4e9, -4e9, 1e10,
                                 np.nan, np.inf, -np.inf, 2.0 ** 31, -(2.0 ** 31)], np.float32),
                       shape)
        return np.where(rng.random(shape) < 0.5, a, rng.integers(-5, 10, shape)).astype(np.float32)
    if sdt == "f16":
        a = rng.choice(np.array([0.5, 2.0, -2.0, 3.0, -1.0, np.nan, np.inf, -np.inf, 65504,
                                 -0.0], np.float16), shape)
        return np.where(rng.random(shape) < 0.5, a, rng.integers(-4, 6, shape)).astype(np.float16)
    info = np.iinfo(NP[sdt])
    edge = rng.choice(np.array([info.min, info.max, 0, 1, 2, 3], np.int64), shape)
    return np.where(rng.random(shape) < 0.3, edge, rng.integers(-3, 6, shape)).astype(NP[sdt])


RANDOM = [(s, kd, mode) for s in ("i8", "ui8", "i16", "ui16", "i32", "ui32", "f16", "f32")
          for kd in ("ui16", "ui32") for mode in ("GT", "EQ") if not (s == "ui16" and mode == "GT")]


@pytest.mark.parametrize("sdt,kdt,mode", RANDOM)
def test_random_cases_match_the_lane_loop(sdt, kdt, mode):
    rng = np.random.default_rng(zlib.crc32(f"{sdt}{kdt}{mode}".encode()))
    size = np.dtype(NP[sdt]).itemsize
    step = 128 if size == 1 else 64
    rows, cols = 3, 2 * step
    data = random_data(rng, sdt, (rows, cols))
    ks = rng.choice([0, 1, 2, 3, 0xFFFE, 0xFFFF] if kdt == "ui16"
                    else [0, 1, 2, 3, 0xFFFF, 0x7FFFFFFF, 0xFFFFFFFE], rows)
    if sdt in ("i8", "ui8", "i16", "ui16") and kdt == "ui32":
        ks = np.minimum(ks, 0x7FFFFF00)           # k through f32 to u32 (i32 for 8-bit)
    want = run_case(mk(), sdt, rows, cols, kdt, cols, data, ks, mode, offset=5)
    assert any(want) or mode == "EQ"


@pytest.mark.parametrize("sdt", ["f32", "i32", "f16", "i16", "i8"])
def test_unaligned_valid_columns(sdt):
    """Valid columns short of a whole compare: the 4-byte paths predicate them; the others
    compare (and may select) the storage lanes past them. Every row's index starts at
    offset + row * lanes visited, not row * the tile's columns."""
    size = np.dtype(NP[sdt]).itemsize
    step = 128 if size == 1 else 64
    rows, cols, valid = 3, step, step - 13
    data = np.full((rows, cols), 7, NP[sdt])
    data[:, valid:] = 9                              # past the valid columns: 9
    data[:, ::5] = 9
    want = run_case(mk(), sdt, rows, cols, "ui16", cols, data, [8] * rows, "GT", offset=100,
                    valid_cols=valid)
    beyond = [i for i in want[0] if i - 100 >= valid]
    assert bool(beyond) == (size != 4)


def test_offset_wraps_and_rows_step_by_whole_compares():
    m = mk()
    data = np.arange(2 * 64, dtype=np.float32).reshape(2, 64)
    want = run_case(m, "f32", 2, 64, "ui32", 64, data, [60, 0], "GT", offset=-3,
                    valid_cols=40)
    assert want[0] == [] and want[1][:4] == [61, 62, 63, 64]


def test_f32_rounds_then_compares_unsigned():
    """2.5 -> 2 and 3.5 -> 4 (ties to even); -1 -> 0xFFFFFFFF beats any k; NaN / inf -> 0."""
    data = np.zeros((1, 64), np.float32)
    data[0, :6] = [2.5, 3.5, -1.0, np.nan, np.inf, 2.4]
    want = run_case(mk(), "f32", 1, 64, "ui32", 64, data, [2], "GT")
    assert want == [[1, 2]]
    want = run_case(mk(), "f32", 1, 64, "ui32", 64, data, [0], "EQ")
    assert want[0][:3] == [3, 4, 6]


def test_f16_compares_floats_against_k_as_i16():
    """k 0xFFFF reads as -1.0; NaN never matches; -inf is not > -1."""
    data = np.full((1, 64), -4, np.float16)
    data[0, :5] = [-0.5, np.nan, -np.inf, np.inf, -1.0]
    assert run_case(mk(), "f16", 1, 64, "ui16", 64, data, [0xFFFF], "GT") == [[0, 3]]
    assert run_case(mk(), "f16", 1, 64, "ui16", 64, data, [0xFFFF], "EQ") == [[4]]


def test_signed_small_ints_compare_zero_extended():
    data = np.zeros((1, 128), np.int8)
    data[0, :3] = [-1, 127, 5]                        # -1 -> 255
    assert run_case(mk(), "i8", 1, 128, "ui16", 128, data, [126], "GT") == [[0, 1]]


# --- static rules ---------------------------------------------------------------------------
def parts(m, sdt="f32", kdt="ui32", ddt="ui32", cdt="ui32", rows=2, cols=64, kcols=64):
    src = m.tile("Vec", sdt, rows, cols)
    return src, col(m, kdt, rows), m.tile("Vec", ddt, rows, kcols), col(m, cdt, rows), \
        m.tile("Vec", "ui8", rows, 32)


@pytest.mark.parametrize("over,err,msg", [
    ({"ddt": "f32"}, DtypeError, "dst element type must be one of i32, ui32, got f32"),
    ({"cdt": "ui16"}, DtypeError, "cdst element type must be one of i32, ui32, got ui16"),
    ({"sdt": "bf16"}, DtypeError, "src element type must be one of i8, ui8, i16, ui16, i32, "
                                  "ui32, f16, f32, got bf16"),
    ({"kdt": "i32"}, DtypeError, "k_value element type must be one of ui16, ui32, got i32"),
])
def test_type_rules(over, err, msg):
    m = mk()
    src, k, dst, cdst, tmp = parts(m, **over)
    with pytest.raises(err, match=msg):
        m.TGATHER(dst, src, k, cdst, tmp, 0, cmp_mode="GT")


def test_mode_offset_shape_and_form_rules():
    m = mk()
    src, k, dst, cdst, tmp = parts(m)
    with pytest.raises(PtoValueError, match='cmp_mode must be "GT" or "EQ", got \'LT\''):
        m.TGATHER(dst, src, k, cdst, tmp, 0, cmp_mode="LT")
    with pytest.raises(PtoValueError, match=r"offset must be an integer in \[-2\*\*31, "):
        m.TGATHER(dst, src, k, cdst, tmp, 1 << 32, cmp_mode="GT")
    with pytest.raises(PtoValueError, match="offset must be an integer"):
        m.TGATHER(dst, src, k, cdst, tmp, 1.5, cmp_mode="GT")
    knd = m.tile("Vec", "ui32", 2, 8)
    with pytest.raises(PtoTypeError, match="the comparison form takes"):
        m.TGATHER(dst, src, knd, dst, cmp_mode="GT")          # binds as the index form
    with pytest.raises(PtoTypeError, match="the comparison form takes"):
        m.TGATHER(dst, src, knd, tmp, dst, knd, cmp_mode="GT")
    with pytest.raises(DtypeError, match="ui16 src with cmp_mode GT runs the equality path"):
        s16, k16, d, c, t = parts(m, sdt="ui16", kdt="ui16")
        m.TGATHER(d, s16, k16, c, t, 0, cmp_mode="GT")
    with pytest.raises(VerifyError, match="dst has 1 rows but src 2 valid rows"):
        m.TGATHER(m.tile("Vec", "ui32", 1, 64), src, k, cdst, tmp, 0, cmp_mode="GT")
    small = m.tile("Vec", "ui32", 1, 8)
    with pytest.raises(VerifyError, match="cdst holds 8 elements but src has 16 valid rows"):
        m.TGATHER(m.tile("Vec", "ui32", 16, 8), m.tile("Vec", "f32", 16, 64), col(m, "ui32", 16),
                  small, tmp, 0, cmp_mode="GT")
    with pytest.raises(VerifyError, match="k_value holds 8 elements but src has 16 valid rows"):
        m.TGATHER(m.tile("Vec", "ui32", 16, 8), m.tile("Vec", "f32", 16, 64), small,
                  col(m, "ui32", 16), tmp, 0, cmp_mode="GT")
    with pytest.raises(SpaceError, match="k_value must be a Vec tile"):
        m.TGATHER(dst, src, m.tile("Mat", "ui32", 16, 16), cdst, tmp, 0, cmp_mode="GT")
    with pytest.raises(VerifyError, match="src must be a row-major ND tile"):
        m.TGATHER(dst, m.tile("Vec", "f32", 64, 8, blayout="ColMajor"), k, cdst, tmp, 0,
                  cmp_mode="GT")
    # 2-byte data, 40 valid of 40 storage cols: the last row's 64-lane load leaves src
    with pytest.raises(VerifyError, match="row 1's compares read 64 elements from its start, "
                                          r"past src's end \(2x48\)"):
        m.TGATHER(dst, m.tile("Vec", "i16", 2, 48), col(m, "ui16", 2), cdst, tmp, 0,
                  cmp_mode="EQ")


def test_data_rules():
    m = mk()
    src, k, dst, cdst, tmp = parts(m, kcols=8)
    m.write(src.ptr, np.arange(128, dtype=np.float32))
    m.write(k.ptr, np.zeros(k.rows, np.uint32))
    with pytest.raises(PtoValueError, match="row 0 selects 63 indices but dst rows hold 8"):
        m.TGATHER(dst, src, k, cdst, tmp, 0, cmp_mode="GT")
    s8, k32, d, c, t = parts(m, sdt="i8", cols=128)
    m.write(k32.ptr, np.full(k32.rows, 1 << 31, np.uint32))
    with pytest.raises(PtoValueError, match=r"k_value\[0\] = 2147483648: the a5 i8 path "
                                            r"converts it through f32 to u32"):
        m.TGATHER(d, s8, k32, c, t, 0, cmp_mode="EQ")


def _a2a3_golden(ub, src, kv, tmp, offset, mode, valid_cols):
    """a2a3's staging replayed lane by lane on a copy of UB: returns (ub after, per-row
    index lists)."""
    out = ub.copy()
    sdt = src.dtype.name
    es = src.dtype.size
    lanes = 256 // es
    rows = src.valid[0]
    span = -(-valid_cols // lanes) * lanes
    kb = kv.ptr.offset
    streams = []
    ramp_at = tmp.ptr.offset + tmp.rows * tmp.cols
    for i in range(src.rows * src.cols):
        out[ramp_at + 4 * i:ramp_at + 4 * i + 4] = list(((offset + i) % (1 << 32))
                                                        .to_bytes(4, "little"))
    cvt_at = ramp_at + src.rows * src.cols * 4
    if sdt == "f32":
        n_k = -(-rows // 64) * 64
        ks = [float(np.float32(struct.unpack("<i", bytes(ub[kb + 4 * i:kb + 4 * i + 4]))[0]))
              for i in range(n_k)]
        blob = b"".join(struct.pack("<f", x) for x in ks)
    elif sdt == "f16":
        n_k = -(-rows // 128) * 128
        ks = [float(np.float16(struct.unpack("<h", bytes(ub[kb + 2 * i:kb + 2 * i + 2]))[0]))
              for i in range(n_k)]
        blob = np.array(ks, np.float16).tobytes()
    else:
        n_k = src.rows
        ks = [struct.unpack("<i", bytes(ub[kb + 4 * i:kb + 4 * i + 4]))[0] for i in range(n_k)]
        blob = b"".join(struct.pack("<i", x) for x in ks)
    out[cvt_at:cvt_at + len(blob)] = list(blob)
    fmt = {"f32": "<f", "f16": "<e", "i32": "<i"}[sdt]
    for r in range(rows):
        bits, picked = [], []
        for c in range(span):
            at = src.ptr.offset + (r * src.cols + c) * es
            x = struct.unpack(fmt, bytes(ub[at:at + es]))[0]
            hit = (x > ks[r]) if mode == "GT" else (x == ks[r])
            bits.append(hit)
            if hit and c < valid_cols:
                picked.append((offset + r * src.cols + c) % (1 << 32))
        for b in range(span // 8):
            out[tmp.ptr.offset + r * tmp.cols + b] = sum(int(bits[8 * b + j]) << j
                                                         for j in range(8))
        streams.append(picked)
    return out, streams


@pytest.mark.parametrize("sdt, kdt, mode", [("f32", "i32", "GT"), ("f32", "ui32", "EQ"),
                                            ("f16", "i16", "GT"), ("f16", "ui16", "EQ"),
                                            ("i32", "ui32", "EQ")])
def test_a2a3_stages_in_tmp(sdt, kdt, mode):
    m = mk("a2a3")
    rows, cols, vc = 3, 96, 70
    rng = np.random.default_rng(5)
    src = m.tile("Vec", sdt, rows, cols, valid=(rows, vc))
    if sdt.startswith("f"):
        vals = rng.integers(-6, 7, rows * cols).astype(NP[sdt])
        vals[::17] = np.nan
    else:
        vals = rng.integers(-3, 4, rows * cols).astype(NP[sdt])
    m.write(src.ptr, vals)
    kv = m.tile("Vec", kdt, 1, 64 if kdt.endswith("32") else 128)
    ks = np.zeros(kv.cols, NP[kdt])
    ks[:rows] = [1, 3, 0]
    m.write(kv.ptr, ks)
    dst = m.tile("Vec", "ui32", rows, 96)
    cdst = m.tile("Vec", "i32", 1, 8)
    tmp = m.tile("Vec", "ui8", rows, 32)          # 32 bytes of bits a row: 256 lanes
    m.write(dst.ptr, np.full(dst.rows * dst.cols, SENTINEL, np.uint32))
    ub = m.blocks[0].ub[0]
    want, streams = _a2a3_golden(ub.copy(), src, kv, tmp, 1000, mode, vc)
    for r, picked in enumerate(streams):
        row = dst.ptr.offset + r * dst.cols * 4
        want[row:row + 4 * len(picked)] = np.array(picked, np.uint32).view(np.uint8)
    counts = np.array([len(p) for p in streams], np.int32)
    want[cdst.ptr.offset:cdst.ptr.offset + 4 * rows] = counts.view(np.uint8)
    m.TGATHER(dst, src, kv, cdst, tmp, 1000, cmp_mode=mode)
    np.testing.assert_array_equal(ub, want)
    assert counts.min() > 0                              # the case selects something


def test_a2a3_rules():
    m = mk("a2a3")
    src = m.tile("Vec", "i32", 2, 64)
    kv = m.tile("Vec", "i32", 1, 64)
    dst, cdst = m.tile("Vec", "ui32", 2, 64), m.tile("Vec", "i32", 1, 8)
    tmp = m.tile("Vec", "ui8", 2, 32)
    with pytest.raises(DtypeError, match="TGATHER: i32 src compares with cmp_mode EQ only"):
        m.TGATHER(dst, src, kv, cdst, tmp, 0, cmp_mode="GT")
    with pytest.raises(DtypeError, match="TGATHER: src element type must be one of f16, f32, "
                                         "i32 on a2a3, got i16"):
        m.TGATHER(dst, m.tile("Vec", "i16", 2, 64), kv, cdst, tmp, 0, cmp_mode="EQ")
    with pytest.raises(DtypeError, match="TGATHER: k_value must be one of i16, ui16 for f16 "
                                         "src"):
        m.TGATHER(dst, m.tile("Vec", "f16", 2, 64), kv, cdst, tmp, 0, cmp_mode="EQ")
    with pytest.raises(VerifyError, match="TGATHER: tmp holds 32 bytes of compare bits but "
                                          "row 1's end at byte 40"):
        m.TGATHER(dst, src, kv, cdst, m.tile("Vec", "ui8", 1, 32), 0, cmp_mode="EQ")


# --- .pto: PTOAS's scalar-k spelling --------------------------------------------------------
PTOAS_CMP = """
module attributes {pto.target_arch = "a2a3"} {
  func.func @k() attributes {pto.aicore} {
    %k = arith.constant 0.0 : f16
    %s = pto.alloc_tile : !pto.tile_buf<vec, 1x32xf16>
    %t = pto.alloc_tile : !pto.tile_buf<vec, 1x32xui8>
    %d = pto.alloc_tile : !pto.tile_buf<vec, 1x32xi32>
    %c = pto.alloc_tile : !pto.tile_buf<vec, 1x32xi32>
    pto.tgather ins(%s, %k, %t : !pto.tile_buf<vec, 1x32xf16>, f16, !pto.tile_buf<vec, 1x32xui8>)
      outs(%d, %c : !pto.tile_buf<vec, 1x32xi32>, !pto.tile_buf<vec, 1x32xi32>) {offset = 7 : i32}
    return
  }
}
"""


def test_ptoas_compare_spelling_runs():
    """PTOAS's compare form (test/lit/pto/tgather_three_forms_emitc.pto): a scalar k of src's
    type, outs(dst, cdst); it runs as the k_value form with k in every row (more in
    tests/test_tgather_cmp_scalar.py). The lit test is an a3 one: a5's f16 path would
    compare a whole 64-lane load, past this 1x32 source."""
    Kernel.from_text(PTOAS_CMP).run({})
    with pytest.raises(VerifyError, match="row 0's compares read 64 elements from its start, "
                                          "past src's end"):
        Kernel.from_text(PTOAS_CMP.replace('"a2a3"', '"a5"')).run({})
