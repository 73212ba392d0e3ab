"""Vector tile ops (ptosim.isa.tile_vector rows, ptosim.tile.vector semantics): results
against independent numpy goldens and explicit loops, the write footprint, every static
rule, and the text form. Shape tables are pto-isa's a5 ST parameter lists
(tests/npu/a5/src/st/testcase/<op>/gen_data.py) and PTO-Gym tileop cases.py."""

import numpy as np
import pytest

import ptosim
from ptosim import SpaceError, VerifyError
from ptosim.errors import DtypeError, PtoTypeError, PtoValueError
from ptosim.isa import spec
from ptosim.kernel import Kernel
from tile_helpers import NP

SENTINEL = 0x5A


def mk():
    return ptosim.Machine(target="a5")


def put(m, t, a):
    """The whole physical tile (rows x cols, row-major ND)."""
    m.write(t.ptr, np.ascontiguousarray(a, dtype=NP[t.dtype.name]).ravel())


def whole(m, t):
    return m.read(t.ptr, t.rows * t.cols).reshape(t.rows, t.cols)


def filled(m, name, rows, cols, valid=None, rng=None, lo=-8, hi=8):
    t = m.tile("Vec", name, rows, cols, valid=valid)
    rng = rng or np.random.default_rng(rows * 131 + cols)
    if name.startswith(("i", "ui")):
        a = rng.integers(lo, hi, (rows, cols)).astype(NP[name])
    else:
        a = rng.uniform(lo, hi, (rows, cols)).astype(NP[name])
    put(m, t, a)
    return t, a


def blank(m, name, rows, cols, valid=None):
    t = m.tile("Vec", name, rows, cols, valid=valid)
    m.write(t.ptr.cast("ui8"), np.full(t.nbytes, SENTINEL, np.uint8))
    return t


def untouched_outside(m, t, rows, cols):
    """Every byte of ``t`` outside its first ``rows`` x ``cols`` elements is the sentinel."""
    raw = m.read(t.ptr.cast("ui8"), t.nbytes).reshape(t.rows, t.cols * t.dtype.size)
    keep = np.ones_like(raw, bool)
    keep[:rows, :cols * t.dtype.size] = False
    return bool((raw[keep] == SENTINEL).all())


# --- elementwise tile-tile: a5 TADD parameter table (dst, src0, src1 tiles, valid) -----------
TADD_TABLE = [("f32", (64, 128), (64, 128), (64, 128), (64, 128)),
              ("i32", (64, 64), (64, 64), (64, 64), (64, 64)),
              ("i16", (64, 64), (64, 64), (64, 64), (64, 64)),
              ("f16", (16, 64), (16, 128), (16, 128), (16, 64)),
              ("f32", (16, 32), (16, 64), (16, 32), (16, 32)),
              ("i16", (32, 128), (32, 128), (32, 256), (32, 128)),
              ("f16", (16, 64), (16, 128), (16, 128), (16, 63)),
              ("f32", (16, 32), (16, 64), (16, 32), (16, 31)),
              ("i64", (4, 16), (4, 16), (4, 16), (4, 15))]

BINARY = {"TADD": np.add, "TSUB": np.subtract, "TMUL": np.multiply, "TMAX": np.maximum,
          "TMIN": np.minimum}


@pytest.mark.parametrize("op", sorted(BINARY))
@pytest.mark.parametrize("name,dshape,s0shape,s1shape,valid", TADD_TABLE)
def test_binary_matches_numpy_and_writes_only_the_valid_region(op, name, dshape, s0shape,
                                                               s1shape, valid):
    m = mk()
    a, x = filled(m, name, *s0shape, valid=valid)
    b, y = filled(m, name, *s1shape, valid=valid, rng=np.random.default_rng(7))
    d = blank(m, name, *dshape, valid=valid)
    getattr(m, op)(d, a, b)
    vr, vc = valid
    with np.errstate(over="ignore"):
        want = BINARY[op](x[:vr, :vc], y[:vr, :vc]).astype(NP[name])
    np.testing.assert_array_equal(m.read_tile(d), want)
    assert untouched_outside(m, d, vr, vc)


def _f32_floor_rem(a, b):
    """a5 / a2a3 DEFAULT f32 TREM (tests/test_tile_rem_fmod.py has the full story):
    a - floor(a / b) * b rounded per step, plus b where b * r < 0."""
    r = a - np.floor(a / b) * b
    return np.where(b * r < 0, r + b, r)


@pytest.mark.parametrize("op,name,fn", [
    ("TDIV", "f32", lambda a, b: a / b), ("TDIV", "i32", lambda a, b: np.trunc(a / b)),
    ("TAND", "i16", np.bitwise_and), ("TOR", "ui8", np.bitwise_or),
    ("TXOR", "i32", np.bitwise_xor), ("TSHL", "i32", lambda a, b: a << b),
    ("TSHR", "i16", lambda a, b: a >> b), ("TREM", "f32", _f32_floor_rem),
    ("TFMOD", "f32", lambda a, b: a - np.trunc(a / b) * b), ("TREM", "i32", np.remainder), ("TFMOD", "i16", np.fmod),
    ("TPRELU", "f32", lambda a, b: np.where(a >= 0, a, a * b))])
def test_more_binary_ops(op, name, fn):
    m = mk()
    rng = np.random.default_rng(3)
    a, x = filled(m, name, 16, 64, valid=(16, 50), lo=-100, hi=100)
    b = m.tile("Vec", name, 16, 64, valid=(16, 50))
    lo = 1 if name.startswith(("i", "ui")) else 0.5
    y = rng.integers(1, 9, (16, 64)) if op in ("TSHL", "TSHR") else rng.uniform(lo, 9, (16, 64))
    y = np.where(rng.integers(0, 2, y.shape) == 0, -y, y) if name[0] in "if" and \
        op not in ("TSHL", "TSHR") else y
    put(m, b, y.astype(NP[name]))
    y = y.astype(NP[name])
    d = blank(m, name, 16, 64, valid=(16, 50))
    getattr(m, op)(d, a, b)
    with np.errstate(all="ignore"):
        want = fn(x[:16, :50], y[:16, :50]).astype(NP[name])
    np.testing.assert_array_equal(m.read_tile(d), want)
    assert untouched_outside(m, d, 16, 50)


# --- tile-scalar --------------------------------------------------------------------------
@pytest.mark.parametrize("op,name,s,fn", [
    ("TADDS", "f32", 3.0, lambda x, s: x + np.float32(s)),
    ("TADDS", "i16", 3, lambda x, s: x + np.int16(s)),
    ("TSUBS", "i32", 5, lambda x, s: x - np.int32(s)),
    ("TMULS", "f16", 1.5, lambda x, s: (x.astype(np.float32) * 1.5).astype(np.float16)),
    ("TMAXS", "f32", 0.25, lambda x, s: np.maximum(x, np.float32(s))),
    ("TMINS", "i32", -2, lambda x, s: np.minimum(x, np.int32(s))),
    ("TANDS", "i32", 6, lambda x, s: x & 6), ("TORS", "i16", 9, lambda x, s: x | 9),
    ("TXORS", "i32", 5, lambda x, s: x ^ 5), ("TSHLS", "i16", 3, lambda x, s: x << 3),
    ("TSHRS", "i32", 2, lambda x, s: x >> 2),
    ("TREMS", "f32", 3.0, lambda x, s: np.remainder(x, np.float32(3))),
    ("TFMODS", "f32", 3.0, lambda x, s: np.fmod(x, np.float32(3))),
    ("TDIVS", "f32", 4.0, lambda x, s: x / np.float32(4))])
def test_scalar_ops(op, name, s, fn):
    m = mk()
    a, x = filled(m, name, 15, 192 if name == "i16" else 64, lo=-50, hi=50)
    d = blank(m, name, a.rows, a.cols)
    getattr(m, op)(d, a, s)
    np.testing.assert_array_equal(m.read_tile(d), fn(x, s).astype(NP[name]))


def test_tdivs_scalar_first_divides_the_scalar():
    m = mk()
    a, x = filled(m, "f32", 32, 64, lo=1, hi=9)
    d = blank(m, "f32", 32, 64)
    m.TDIVS(d, 3.0, a)
    np.testing.assert_array_equal(m.read_tile(d), np.float32(3) / x)
    m.TDIVS(d, a, 3.0)
    np.testing.assert_array_equal(m.read_tile(d), x / np.float32(3))


def test_tlrelu_keeps_an_f32_slope_for_f16_tiles():
    m = mk()
    a, x = filled(m, "f16", 63, 64)
    d = blank(m, "f16", 63, 64)
    slope = 0.1                          # not an f16 value: the product uses f32 0.1
    m.TLRELU(d, a, slope)
    xf = x.astype(np.float32)
    want = np.where(xf >= 0, xf, xf * np.float32(slope)).astype(np.float16)
    np.testing.assert_array_equal(m.read_tile(d), want)


def test_texpands_fills_the_valid_region_only():
    m = mk()
    d = blank(m, "i16", 20, 512, valid=(16, 200))
    m.TEXPANDS(d, 50)
    assert (m.read_tile(d) == 50).all() and untouched_outside(m, d, 16, 200)


# --- unary ---------------------------------------------------------------------------------
@pytest.mark.parametrize("op,name,fn,lo", [
    ("TABS", "f32", np.abs, -8), ("TNEG", "i16", np.negative, -8), ("TNOT", "i8", np.invert, -8),
    ("TEXP", "f32", np.exp, -8), ("TLOG", "f32", np.log, 0.1), ("TSQRT", "f16", np.sqrt, 0.1),
    ("TRSQRT", "f32", lambda x: np.float32(1) / np.sqrt(x), 0.1),
    ("TRECIP", "f32", lambda x: np.float32(1) / x, 0.5), ("TRELU", "i32", lambda x:
                                                          np.maximum(x, 0), -8)])
def test_unary_ops(op, name, fn, lo):
    m = mk()
    a, x = filled(m, name, 64, 64, valid=(60, 60), lo=lo)
    d = blank(m, name, 64, 64, valid=(60, 60))
    getattr(m, op)(d, a)
    with np.errstate(all="ignore"):
        want = fn(x[:60, :60].astype(np.float32) if name == "f16" else x[:60, :60])
    np.testing.assert_array_equal(m.read_tile(d), want.astype(NP[name]))
    assert untouched_outside(m, d, 60, 60)


# --- reductions: a5 TROWSUM table, order as TRowReduce --------------------------------------
def row_sum_loop(x, name):
    """Explicit loops: per row, one f32 sum per 256 B chunk, accumulated chunk by chunk in
    the element type."""
    step = 256 // np.dtype(NP[name]).itemsize
    out = np.zeros(x.shape[0], NP[name])
    for r in range(x.shape[0]):
        acc = NP[name](0)
        for c in range(0, x.shape[1], step):
            part = np.float32(0)
            part = np.sum(x[r, c:c + step].astype(np.float32), dtype=np.float32)
            acc = NP[name](np.float32(acc) + np.float32(NP[name](part)))
        out[r] = acc
    return out


@pytest.mark.parametrize("name,rows,cols,vc", [
    ("f32", 127, 64, 63), ("f32", 63, 64, 64), ("f32", 31, 128, 127), ("f32", 7, 448, 447),
    ("f16", 256, 16, 15), ("f32", 8, 1024, 1024), ("i32", 15, 192, 192),
    ("i16", 8, 448, 448)])
def test_trowsum_in_chunk_order(name, rows, cols, vc):
    m = mk()
    src, x = filled(m, name, rows, cols, valid=(rows, vc), lo=-1000, hi=1000)
    tmp = m.tile("Vec", name, rows, cols)
    dcols = 32 // np.dtype(NP[name]).itemsize
    d = blank(m, name, rows, dcols, valid=(rows, 1))
    m.TROWSUM(d, src, tmp)
    got = m.read_tile(d)[:, 0]
    if name.startswith("i"):                 # wraps: the sum modulo 2^bits
        want = x[:, :vc].astype(np.int64).sum(axis=1).astype(NP[name])
    else:
        want = row_sum_loop(x[:, :vc], name)
    np.testing.assert_array_equal(got, want)
    assert untouched_outside(m, d, rows, 1)


def test_i16_row_sum_wraps():
    m = mk()
    src = m.tile("Vec", "i16", 1, 64)
    put(m, src, np.full((1, 64), 30000, np.int16))
    d = blank(m, "i16", 1, 16, valid=(1, 1))
    m.TROWSUM(d, src)
    assert m.read_tile(d)[0, 0] == (30000 * 64 + 32768) % 65536 - 32768


@pytest.mark.parametrize("op,fn", [("TROWMAX", np.max), ("TROWMIN", np.min),
                                   ("TROWPROD", None)])
def test_row_max_min_prod(op, fn):
    m = mk()
    src, x = filled(m, "f32", 16, 64, valid=(16, 50), lo=0.5, hi=1.5)
    d = blank(m, "f32", 16, 8, valid=(16, 1))
    getattr(m, op)(d, src, m.tile("Vec", "f32", 16, 64))
    if fn is None:                       # left to right, rounded each step
        want = np.ones(16, np.float32)
        for c in range(50):
            want = want * x[:, c]
    else:
        want = fn(x[:, :50], axis=1)
    np.testing.assert_array_equal(m.read_tile(d)[:, 0], want)


def test_column_reductions_top_to_bottom_and_pairwise():
    m = mk()
    src, x = filled(m, "f32", 13, 64, valid=(13, 60))
    d = blank(m, "f32", 1, 64, valid=(1, 60))
    m.TCOLSUM(d, src)
    want = x[0, :60].copy()
    for r in range(1, 13):
        want = want + x[r, :60]
    np.testing.assert_array_equal(m.read_tile(d)[0], want)
    assert untouched_outside(m, d, 1, 60)
    # is_binary: (r0+r1), (r2+r3), ... with the odd last row onto the last pair, then halve
    m.TCOLSUM(d, src, m.tile("Vec", "f32", 8, 64), is_binary=True)
    rows = [x[r, :60] for r in range(13)]
    level = [rows[2 * j] + rows[2 * j + 1] for j in range(6)]
    level[5] = rows[12] + level[5]
    while len(level) > 1:
        nxt = [level[2 * j] + level[2 * j + 1] for j in range(len(level) // 2)]
        if len(level) % 2:
            nxt[-1] = level[-1] + nxt[-1]
        level = nxt
    np.testing.assert_array_equal(m.read_tile(d)[0], level[0])
    for op, fn in (("TCOLMAX", np.max), ("TCOLMIN", np.min)):
        getattr(m, op)(d, src)
        np.testing.assert_array_equal(m.read_tile(d)[0], fn(x[:, :60], axis=0))


def test_arg_reductions_pick_the_first_extremum():
    m = mk()
    src = m.tile("Vec", "f32", 4, 64, valid=(4, 40))
    x = np.zeros((4, 64), np.float32)
    x[0, [3, 9]] = 5                     # a tie: the first wins
    x[1, 39] = 7
    x[2, 40] = 99                        # outside the valid columns
    x[3, :] = -1
    x[3, [0, 20]] = -9
    put(m, src, x)
    d = blank(m, "i32", 4, 8, valid=(4, 1))
    m.TROWARGMAX(d, src, m.tile("Vec", "f32", 4, 64))
    np.testing.assert_array_equal(m.read_tile(d)[:, 0], [3, 39, 0, 1])
    m.TROWARGMIN(d, src, m.tile("Vec", "f32", 4, 64))
    np.testing.assert_array_equal(m.read_tile(d)[:, 0], [0, 0, 0, 0])
    dc = blank(m, "i32", 1, 64, valid=(1, 40))
    m.TCOLARGMAX(dc, src, m.tile("Vec", "f32", 4, 64))
    np.testing.assert_array_equal(m.read_tile(dc)[0], np.argmax(x[:, :40], axis=0))
    m.TCOLARGMIN(dc, src)
    np.testing.assert_array_equal(m.read_tile(dc)[0], np.argmin(x[:, :40], axis=0))


# --- expands ---------------------------------------------------------------------------------
def test_row_and_column_expand():
    m = mk()
    col, c = filled(m, "f32", 16, 8, valid=(16, 1))
    d = blank(m, "f32", 16, 128, valid=(16, 127))
    m.TROWEXPAND(d, col)
    np.testing.assert_array_equal(m.read_tile(d), np.repeat(c[:, :1], 127, axis=1))
    row, r = filled(m, "f32", 1, 64, valid=(1, 63))
    d2 = blank(m, "f32", 54, 64, valid=(54, 63))
    m.TCOLEXPAND(d2, row)
    np.testing.assert_array_equal(m.read_tile(d2), np.repeat(r[:1, :63], 54, axis=0))
    assert untouched_outside(m, d2, 54, 63)


@pytest.mark.parametrize("op,fn", [("ADD", np.add), ("SUB", np.subtract),
                                   ("MUL", np.multiply), ("DIV", np.divide),
                                   ("MAX", np.maximum), ("MIN", np.minimum),
                                   ("EXPDIF", lambda a, b: np.exp(a - b))])
def test_expand_ops(op, fn):
    m = mk()
    a, x = filled(m, "f32", 16, 128, valid=(16, 120))
    col, c = filled(m, "f32", 16, 8, valid=(16, 1), lo=1, hi=3)
    d = blank(m, "f32", 16, 128, valid=(16, 120))
    getattr(m, f"TROWEXPAND{op}")(d, a, col)
    np.testing.assert_array_equal(m.read_tile(d), fn(x[:, :120], c[:, :1]).astype(np.float32))
    getattr(m, f"TROWEXPAND{op}")(d, col, a)          # the column first: col op a
    np.testing.assert_array_equal(m.read_tile(d), fn(c[:, :1], x[:, :120]).astype(np.float32))
    row, r = filled(m, "f32", 1, 128, valid=(1, 120), lo=1, hi=3)
    getattr(m, f"TCOLEXPAND{op}")(d, a, row)
    np.testing.assert_array_equal(m.read_tile(d), fn(x[:, :120], r[:1, :120]).astype(np.float32))
    assert untouched_outside(m, d, 16, 120)


def test_row_expand_src1_col_blocks():
    """TileLang's src1Col = k: each of the k columns covers valid cols / k dst columns;
    without it a full 32 B block repeats across the row (a5 BRC_BLK, CPU c % validCol)."""
    m = mk()
    a, x = filled(m, "f32", 8, 64)
    b, y = filled(m, "f32", 8, 8, lo=1, hi=3)
    d = blank(m, "f32", 8, 64)
    m.TROWEXPANDDIV(d, a, b, src1_col=4)
    np.testing.assert_array_equal(m.read_tile(d), x / np.repeat(y[:, :4], 16, axis=1))
    m.TROWEXPANDDIV(d, a, b, src1_col=1)
    np.testing.assert_array_equal(m.read_tile(d), x / y[:, :1])
    m.TROWEXPANDDIV(d, a, b)
    want = np.empty_like(x)
    for c in range(64):                      # explicit loop: column c uses c mod 8
        want[:, c] = x[:, c] / y[:, c % 8]
    np.testing.assert_array_equal(m.read_tile(d), want)


# --- partial ops: PTO-Gym tpartadd shapes -------------------------------------------------------
@pytest.mark.parametrize("op,fn", [("TPARTADD", np.add), ("TPARTMUL", np.multiply),
                                   ("TPARTMAX", np.maximum), ("TPARTMIN", np.minimum)])
@pytest.mark.parametrize("v0,v1", [((64, 64), (64, 64)), ((8, 64), (64, 64)),
                                   ((64, 8), (64, 64)), ((64, 64), (8, 64)),
                                   ((64, 64), (64, 8))])
def test_partial_ops(op, fn, v0, v1):
    m = mk()
    a, x = filled(m, "f32", 64, 64, valid=v0)
    b, y = filled(m, "f32", 64, 64, valid=v1, rng=np.random.default_rng(5))
    d = blank(m, "f32", 64, 64)
    getattr(m, op)(d, a, b)
    want = np.empty((64, 64), np.float32)          # explicit loops over dst's valid region
    for i in range(64):
        for j in range(64):
            in0 = i < v0[0] and j < v0[1]
            in1 = i < v1[0] and j < v1[1]
            want[i, j] = fn(x[i, j], y[i, j]) if in0 and in1 else x[i, j] if in0 else y[i, j]
    np.testing.assert_array_equal(m.read_tile(d), want)


# --- compare and select ------------------------------------------------------------------------
@pytest.mark.parametrize("name,rows,cols,vc,mode", [
    ("f32", 8, 64, 64, "gt"), ("i32", 77, 80, 80, "eq"), ("f16", 32, 32, 32, "eq"),
    ("i16", 32, 32, 32, "le"), ("f32", 4, 64, 20, "lt")])
def test_tcmp_packs_bits_little_endian(name, rows, cols, vc, mode):
    m = mk()
    a, x = filled(m, name, rows, cols, valid=(rows, vc), lo=-3, hi=3)
    b, y = filled(m, name, rows, cols, valid=(rows, vc), lo=-3, hi=3,
                  rng=np.random.default_rng(11))
    d = blank(m, "ui8", rows, 32)
    m.TCMP(d, a, b, mode=mode)
    fn = {"gt": np.greater, "eq": np.equal, "le": np.less_equal, "lt": np.less}[mode]
    bits = fn(x[:, :vc], y[:, :vc])
    raw = whole(m, d)
    for r in range(rows):
        for c in range(vc):
            assert (raw[r, c // 8] >> (c % 8)) & 1 == bits[r, c]
    # a5 stores whole predicate repeats: 256 / sizeof / 8 bytes (32-bit types: two repeats
    # in one 16-byte store), bits past vc zero
    unit = max(256 // np.dtype(NP[name]).itemsize // 8, 16)
    need = (vc + 7) // 8
    width = min((need + unit - 1) // unit * unit, 32)
    assert untouched_outside(m, d, rows, width)
    tail = np.unpackbits(raw[:, :width], axis=1, bitorder="little")[:, vc:]
    assert not tail.any()


def test_a2a3_tcmp_compares_whole_repeats_and_ne_inverts_the_rows():
    """a2a3 TCmp.hpp: a full mask over whole 256 B repeats (lanes past the valid columns
    compare the bytes there, here the next row), ``ne`` = ``eq`` then NOT of the valid rows'
    dst bytes; a2a3 TCMP takes i32 / f16 / f32 only."""
    m = ptosim.Machine(target="a2a3")
    a, x = filled(m, "f32", 4, 32, valid=(4, 20), lo=-3, hi=3)
    b, y = filled(m, "f32", 4, 32, valid=(4, 20), lo=-3, hi=3, rng=np.random.default_rng(1))
    d = blank(m, "ui8", 4, 32)
    m.TCMP(d, a, b, mode="gt")
    fx, fy = x.ravel(), y.ravel()
    raw = whole(m, d)
    for r in range(3):                   # row r's repeat: 64 lanes from flat r * 32
        want = np.packbits(fx[r * 32:r * 32 + 64] > fy[r * 32:r * 32 + 64], bitorder="little")
        np.testing.assert_array_equal(raw[r, :8], want)
    m.TCMP(d, a, b, mode="ne")
    eq = np.packbits(fx[:64] == fy[:64], bitorder="little")
    np.testing.assert_array_equal(whole(m, d)[0, :8], ~eq)
    assert (whole(m, d)[0, 8:] == (~np.uint8(SENTINEL))).all()   # inverted, never written
    with pytest.raises(DtypeError, match="TCMP: element type i16 is not supported on a2a3; "
                                         "legal: f16, f32, i32"):
        t = m.tile("Vec", "i16", 4, 32)
        m.TCMP(d, t, t)


def test_tcmp_cpu_sim_compat_writes_the_simulator_words():
    """pto-isa cpu/TCmp.h: the whole dst tile zeroed (ZeroTileData), then ceil(vc / 8) bytes
    per row (32-bit words for a ui32 dst), at most dst's valid columns."""
    m = mk()
    a, x = filled(m, "f32", 4, 64, valid=(4, 20))
    b, y = filled(m, "f32", 4, 64, valid=(4, 20), rng=np.random.default_rng(9))
    d = blank(m, "ui8", 6, 32)
    m.TCMP(d, a, b, mode="lt", cpu_sim_compat=True)
    want = np.zeros((6, 32), np.uint8)                                       # rows 4, 5 too
    want[:4, :3] = np.packbits(x[:, :20] < y[:, :20], axis=1, bitorder="little")
    np.testing.assert_array_equal(whole(m, d), want)
    w = blank(m, "ui32", 4, 8, valid=(4, 1))
    m.TCMP(w, a, b, mode="lt", cpu_sim_compat=True)
    bits = (x[:, :20] < y[:, :20]).astype(np.uint64)
    want32 = np.zeros((4, 8), np.uint32)
    want32[:, 0] = (bits << np.arange(20, dtype=np.uint64)).sum(axis=1).astype(np.uint32)
    np.testing.assert_array_equal(whole(m, w), want32)


def test_tcmps_cpu_sim_compat_pours_the_packed_source_rows_into_dst():
    """pto-isa cpu/TCmps.hpp: the whole source tile's bits (0 outside its valid region),
    Cols / 8 bytes per source row, poured into dst row by row (dst's valid cols bytes per
    row), everything else of dst zero; EQ is |a - b| < 1e-9 in double."""
    m = mk()
    a, x = filled(m, "f32", 4, 64, valid=(4, 20))
    d = blank(m, "ui8", 4, 32)
    m.TCMPS(d, a, 0.5, mode="lt", cpu_sim_compat=True)
    bits = np.zeros((4, 64), bool)
    bits[:, :20] = x[:, :20] < 0.5
    want = np.zeros((4, 32), np.uint8)
    want[0] = np.packbits(bits, axis=1, bitorder="little").ravel()      # 4 x 8 bytes
    np.testing.assert_array_equal(whole(m, d), want)
    m.TCMPS(d, a, float(x[0, 0]) + 1e-12, mode="eq", cpu_sim_compat=True)
    assert whole(m, d)[0, 0] & 1                                         # within 1e-9


def test_tsels_cpu_sim_compat_reads_the_mask_row_by_row():
    """pto-isa cpu/TSelS.hpp reads mask row r from byte r x (mask row bytes), as the NPU
    does: cpu_sim_compat changes nothing (only TSEL reads one bit stream)."""
    outs = []
    for compat in (False, True):
        m = mk()
        src, _ = filled(m, "f32", 4, 64, valid=(4, 40))
        mask = m.tile("Vec", "ui8", 4, 32)
        m.write(mask.ptr, np.random.default_rng(6).integers(0, 256, 128, dtype=np.uint8))
        d = blank(m, "f32", 4, 64, valid=(4, 40))
        m.TSELS(d, mask, src, m.tile("Vec", "f32", 4, 64), 7.0, cpu_sim_compat=compat)
        outs.append(whole(m, d))
    np.testing.assert_array_equal(*outs)


@pytest.mark.parametrize("op,name,legal", [
    ("TADD", "i8", "f16, f32, i16, i32"), ("TDIV", "i32", "f16, f32"),
    ("TFMOD", "f16", "f32"), ("TROWSUM", "i64", "f16, f32, i16, i32")])
def test_a2a3_narrows_element_types(op, name, legal):
    """a2a3 T<Op>.hpp static_asserts (Target.tile_vector_dtypes); a5 takes these types."""
    for target, ok in (("a5", True), ("a2a3", False)):
        m = ptosim.Machine(target=target)
        t = m.tile("Vec", name, 8, 64)
        d = m.tile("Vec", name, 8, 64, valid=(8, 1)) if op == "TROWSUM" else t
        args = (d, t) if op == "TROWSUM" else (d, t, t)
        if ok:
            getattr(m, op)(*args)
        else:
            with pytest.raises(DtypeError, match=rf"{op}: element type {name} is not supported "
                                                 rf"on a2a3; legal: {legal}$"):
                getattr(m, op)(*args)


def test_tcmps_compares_with_a_scalar():
    m = mk()
    a, x = filled(m, "f32", 4, 64)
    d = blank(m, "ui8", 4, 32)
    m.TCMPS(d, a, 0.5, mode="ge")
    np.testing.assert_array_equal(whole(m, d)[:, :8],
                                  np.packbits(x >= np.float32(0.5), axis=1, bitorder="little"))


def test_tsel_reads_each_mask_row_at_its_row_stride():
    m = mk()
    s0, x = filled(m, "f32", 2, 32, valid=(2, 31))
    s1, y = filled(m, "f32", 2, 32, valid=(2, 31), rng=np.random.default_rng(2))
    mask = m.tile("Vec", "ui8", 2, 64)
    bits = np.random.default_rng(4).integers(0, 256, (2, 64)).astype(np.uint8)
    put(m, mask, bits)
    d = blank(m, "f32", 2, 32, valid=(2, 31))
    m.TSEL(d, mask, s0, s1, m.tile("Vec", "f32", 1, 32))
    sel = np.unpackbits(bits, axis=1, bitorder="little")[:, :31].astype(bool)
    np.testing.assert_array_equal(m.read_tile(d), np.where(sel, x[:, :31], y[:, :31]))
    m.TSELS(d, mask, s0, m.tile("Vec", "f32", 1, 32), 2.5)
    np.testing.assert_array_equal(m.read_tile(d), np.where(sel, x[:, :31], np.float32(2.5)))
    # the C++ CPU simulator: one bit stream, the next mask row after valid-cols bytes
    m.TSEL(d, mask, s0, s1, cpu_sim_compat=True)
    stream = np.unpackbits(bits.ravel(), bitorder="little")[:62].reshape(2, 31).astype(bool)
    np.testing.assert_array_equal(m.read_tile(d), np.where(stream, x[:, :31], y[:, :31]))


# --- static rules: one negative test per rule ------------------------------------------------
def test_rules():
    m = mk()
    a, _ = filled(m, "f32", 16, 64)
    b, _ = filled(m, "f32", 16, 64)
    d = m.tile("Vec", "f32", 16, 64)
    mat = m.tile("Mat", "f32", 16, 64, blayout="ColMajor", slayout="RowMajor")
    dn = m.tile("Vec", "f32", 16, 64, blayout="ColMajor")
    half = m.tile("Vec", "f16", 16, 64)
    small = m.tile("Vec", "f32", 16, 64, valid=(16, 32))
    cases = [
        (lambda: m.TADD(d, mat, b), SpaceError, "TADD: src0 must be a Vec tile, got a Mat"),
        (lambda: m.TADD(d, dn, b), VerifyError, "TADD: src0 must be a row-major ND tile, got DN"),
        (lambda: m.TAND(d, a, b), DtypeError, "TAND: element type f32 is not supported on a5"),
        (lambda: m.TADD(d, a, half), DtypeError, "src1 is f16 but src0 is f32"),
        (lambda: m.TADD(half, a, b), DtypeError, "dst is f16 but the sources are f32"),
        (lambda: m.TADD(d, a, small), VerifyError, "src1's valid region 16x32 differs from"),
        (lambda: m.TADD(d, a, 1.0), PtoTypeError, "operands after dst must be (src0: tile, "
                                                   "src1: tile), got (tile, scalar)"),
        (lambda: m.TADD(d, a, b, mode="eq"), PtoTypeError, "unknown keyword 'mode'"),
        (lambda: m.TADD("x", a, b), SpaceError, "TADD: dst must be a Tile, got str"),
        (lambda: m.TROWSUM(m.tile("Vec", "f32", 8, 8, valid=(8, 1)), a), VerifyError,
         "dst's valid rows 8 must equal src's 16"),
        (lambda: m.TCOLSUM(m.tile("Vec", "f32", 1, 64, valid=(1, 8)), a), VerifyError,
         "dst's valid cols 8 must equal src's 64"),
        (lambda: m.TROWARGMAX(d, a), DtypeError, "dst element type must be one of i32, ui32"),
        (lambda: m.TCMP(m.tile("Vec", "f32", 16, 8), a, b), DtypeError,
         "dst element type must be one of"),
        (lambda: m.TCMP(m.tile("Vec", "ui8", 16, 32), a, b, mode="xx"), PtoValueError,
         "mode must be one of eq, ne, lt, le, gt, ge, got 'xx'"),
        (lambda: m.TCMP(m.tile("Vec", "ui8", 1, 32), a, b), VerifyError,
         "a 16x64 compare stores 16 rows of 16 mask bytes (whole 256 B repeats) at a 32 B row "
         "stride; dst has 32 bytes"),
        (lambda: m.TPARTADD(d, small, m.tile("Vec", "f32", 16, 64, valid=(8, 64))),
         VerifyError, "must have dst's valid region 16x64 and the other must fit"),
        (lambda: m.TROWEXPANDADD(d, small, small), VerifyError,
         "src0 (16x32) or src1 (16x32) must have dst's valid region"),
        (lambda: m.TROWEXPANDADD(d, a, m.tile("Vec", "f32", 8, 8, valid=(8, 1))), VerifyError,
         "src1's valid rows 8 must equal dst's 16"),
        (lambda: m.TROWEXPANDADD(d, a, b, src1_col=3), VerifyError,
         "src1_col 3 must divide dst's valid cols 64"),
        (lambda: m.TROWEXPANDADD(d, a, m.tile("Vec", "f32", 16, 8, valid=(16, 4))), VerifyError,
         "src1's valid cols must be 1 or one 32 B block (8), got 4"),
        (lambda: m.TROWEXPAND(d, m.tile("Vec", "f32", 8, 8, valid=(8, 1))), VerifyError,
         "src's valid rows 8 must equal dst's 16"),
        (lambda: m.TCOLEXPAND(d, m.tile("Vec", "f32", 1, 64, valid=(1, 8))), VerifyError,
         "src's valid cols 8 must equal dst's 64"),
        (lambda: m.TSEL(d, m.tile("Vec", "ui8", 1, 32), a, b), VerifyError,
         "16 rows of 64 elements need 16 mask rows of 8 bytes; mask is 1 rows of 32 bytes"),
        (lambda: m.TADDS(m.tile("Vec", "i32", 16, 64), m.tile("Vec", "i32", 16, 64), 1.5),
         DtypeError, "scalar 1.5 is not an integer (i32 tile)"),
        (lambda: m.TCOLSUM(m.tile("Vec", "f32", 1, 64), a, is_binary=True), VerifyError,
         "is_binary needs the tmp tile"),
        (lambda: m.TADD(), PtoTypeError, "takes the destination tile first"),
        (lambda: m.TSEL(d, m.tile("Vec", "f32", 16, 64), a, b), DtypeError,
         "TSEL: mask must hold an integer type (packed bits), got f32"),
    ]
    before = m.read(a.ptr.cast("ui8"), 1 << 16).copy()
    for call, err, msg in cases:
        with pytest.raises(err) as info:
            call()
        assert msg in str(info.value), (msg, str(info.value))
    assert (m.read(a.ptr.cast("ui8"), 1 << 16) == before).all()      # nothing written


# --- registry, text form, timeline -------------------------------------------------------------
def test_rows_run_on_the_vector_pipe():
    for name in ("tadd", "trowsum", "tcmp", "tsels", "texpands"):
        s = spec(name)
        assert (s.kind, s.pipe, s.core, s.syntax) == ("tile", "V", "vector", "tile_dps")
    m = mk()
    a = m.tile("Vec", "f32", 64, 128)
    assert spec("tadd").flops([a, a, a]) == (64 * 128, 4)


KERNEL = """
module attributes {pto.target_arch = "a5"} {
  func.func @k(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>, %o: !pto.ptr<f32>, %m: !pto.ptr<ui8>,
               %s: f32) attributes {pto.aicore} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %c64 = arith.constant 64 : index
    %c1024 = arith.constant 1024 : index
    %vx = pto.make_tensor_view %x, shape = [%c16, %c64], strides = [%c64, %c1]
      : !pto.tensor_view<16x64xf32>
    %vy = pto.make_tensor_view %y, shape = [%c16, %c64], strides = [%c64, %c1]
      : !pto.tensor_view<16x64xf32>
    %vo = pto.make_tensor_view %o, shape = [%c16, %c64], strides = [%c64, %c1]
      : !pto.tensor_view<16x64xf32>
    %vm = pto.make_tensor_view %m, shape = [%c16, %c8], strides = [%c8, %c1]
      : !pto.tensor_view<16x8xui8>
    %px = pto.partition_view %vx, offsets = [%c0, %c0], sizes = [%c16, %c64]
      : !pto.tensor_view<16x64xf32>
    %py = pto.partition_view %vy, offsets = [%c0, %c0], sizes = [%c16, %c64]
      : !pto.tensor_view<16x64xf32>
    %po = pto.partition_view %vo, offsets = [%c0, %c0], sizes = [%c16, %c64]
      : !pto.tensor_view<16x64xf32>
    %pm = pto.partition_view %vm, offsets = [%c0, %c0], sizes = [%c16, %c8]
      : !pto.tensor_view<16x8xui8>
    %a = pto.alloc_tile : !pto.tile_buf<vec, 16x64xf32>
    %b = pto.alloc_tile : !pto.tile_buf<vec, 16x64xf32>
    %d = pto.alloc_tile : !pto.tile_buf<vec, 16x64xf32>
    %k = pto.alloc_tile : !pto.tile_buf<vec, 16x32xui8>
    pto.tload ins(%px : !pto.partition_tensor_view<16x64xf32>) outs(%a : !pto.tile_buf<vec, 16x64xf32>)
    pto.tload ins(%py : !pto.partition_tensor_view<16x64xf32>) outs(%b : !pto.tile_buf<vec, 16x64xf32>)
    pto.tadd ins(%a, %b : !pto.tile_buf<vec, 16x64xf32>, !pto.tile_buf<vec, 16x64xf32>)
      outs(%d : !pto.tile_buf<vec, 16x64xf32>)
    pto.tdivs ins(%s, %d : f32, !pto.tile_buf<vec, 16x64xf32>) outs(%d : !pto.tile_buf<vec, 16x64xf32>)
    pto.tcmp ins(%a, %b {cmpMode = #pto<cmp lt>} : !pto.tile_buf<vec, 16x64xf32>,
      !pto.tile_buf<vec, 16x64xf32>) outs(%k : !pto.tile_buf<vec, 16x32xui8>)
    pto.tsel ins(%k, %a, %d : !pto.tile_buf<vec, 16x32xui8>, !pto.tile_buf<vec, 16x64xf32>,
      !pto.tile_buf<vec, 16x64xf32>) outs(%d : !pto.tile_buf<vec, 16x64xf32>)
    pto.tstore ins(%d : !pto.tile_buf<vec, 16x64xf32>) outs(%po : !pto.partition_tensor_view<16x64xf32>)
    return
  }
}
"""


def test_text_form_runs_like_the_python_face():
    rng = np.random.default_rng(0)
    x = rng.uniform(1, 2, (16, 64)).astype(np.float32)
    y = rng.uniform(1, 2, (16, 64)).astype(np.float32)
    res = Kernel.from_text(KERNEL).run({"x": x, "y": y, "o": np.zeros((16, 64), np.float32),
                                        "m": np.zeros((16, 8), np.uint8), "s": 3.0})
    d = np.float32(3) / (x + y)
    want = np.where(x < y, x, d)
    np.testing.assert_array_equal(res.outputs["o"].reshape(16, 64), want)


@pytest.mark.parametrize("line,msg", [
    ("pto.tadd ins(%a : !pto.tile_buf<vec, 16x64xf32>) outs(%d : !pto.tile_buf<vec, 16x64xf32>)",
     "pto.tadd: ins(...) must be (src0: tile, src1: tile)"),
    ("pto.tadd ins(%a, %b {cmpMode = #pto<cmp lt>} : !pto.tile_buf<vec, 16x64xf32>, "
     "!pto.tile_buf<vec, 16x64xf32>) outs(%d : !pto.tile_buf<vec, 16x64xf32>)",
     "pto.tadd: unsupported attribute 'cmpMode' (known: none)"),
    ("pto.tadds ins(%a, %b : !pto.tile_buf<vec, 16x64xf32>, !pto.tile_buf<vec, 16x64xf32>) "
     "outs(%d : !pto.tile_buf<vec, 16x64xf32>)", "pto.tadds: ins(...) must be (src: tile, "
     "scalar: scalar)"),
])
def test_text_diagnostics(line, msg):
    text = KERNEL.replace("pto.tdivs ins(%s, %d : f32, !pto.tile_buf<vec, 16x64xf32>) outs(%d : "
                          "!pto.tile_buf<vec, 16x64xf32>)", line)
    with pytest.raises(ptosim.PtoError) as info:
        Kernel.from_text(text)
    assert msg in str(info.value)
    assert ":" in (info.value.loc or "")


# a5 TCOLSUM / TCOLMAX tables: (type, rows, valid rows, cols, valid cols)
COL_TABLE = [("f32", 1, 1, 256, 255), ("f32", 16, 16, 128, 127), ("f32", 16, 15, 256, 255),
             ("f32", 64, 63, 128, 127), ("f16", 16, 16, 128, 127), ("f16", 64, 63, 128, 127),
             ("i8", 16, 15, 256, 255), ("i8", 64, 64, 128, 128), ("i64", 4, 4, 16, 16),
             ("ui16", 16, 15, 256, 255), ("i32", 16, 16, 128, 127)]


@pytest.mark.parametrize("name,rows,vr,cols,vc", COL_TABLE)
def test_column_tables(name, rows, vr, cols, vc):
    m = mk()
    src, x = filled(m, name, rows, cols, valid=(vr, vc), lo=0 if name[0] == "u" else -100,
                    hi=100)
    d = blank(m, name, 1, cols, valid=(1, vc))
    m.TCOLSUM(d, src)
    acc = x[0, :vc].copy()
    for r in range(1, vr):                       # top to bottom, rounded / wrapped each step
        with np.errstate(over="ignore"):
            acc = (acc.astype(np.float32) + x[r, :vc].astype(np.float32)).astype(NP[name]) \
                if name.startswith("f") else (acc + x[r, :vc]).astype(NP[name])
    np.testing.assert_array_equal(m.read_tile(d)[0], acc)
    m.TCOLMAX(d, src)
    np.testing.assert_array_equal(m.read_tile(d)[0], x[:vr, :vc].max(axis=0))
    assert untouched_outside(m, d, 1, vc)


def test_tcmp_rows_wider_than_the_dst_row_overlap_in_row_order():
    """300 f32 lanes = 3 16-byte stores (128 lanes each) = 48 mask bytes per row into
    32-byte dst rows: row r's store reaches 16 bytes into row r + 1, which the next row's
    store then overwrites."""
    m = mk()
    a, x = filled(m, "f32", 2, 512, valid=(2, 300))
    b, y = filled(m, "f32", 2, 512, valid=(2, 300), rng=np.random.default_rng(3))
    d = blank(m, "ui8", 4, 32)
    m.TCMP(d, a, b, mode="lt")
    bits = np.zeros((2, 384), bool)
    bits[:, :300] = x[:, :300] < y[:, :300]
    packed = np.packbits(bits, axis=1, bitorder="little")            # (2, 48)
    flat = m.read(d.ptr, 128)
    np.testing.assert_array_equal(flat[:32], packed[0, :32])
    np.testing.assert_array_equal(flat[32:80], packed[1])
    assert (flat[80:] == SENTINEL).all()


def test_text_row_expand_ops_broadcast_column_zero_as_ptoas_lowers_them():
    """A .pto trowexpandadd without src1Col: src1[row, 0] (PTOAS template), although the
    tile's valid block is 8 wide; the C++ API face repeats the 32 B block instead."""
    text = KERNEL.replace(
        "pto.tdivs ins(%s, %d : f32, !pto.tile_buf<vec, 16x64xf32>) outs(%d : "
        "!pto.tile_buf<vec, 16x64xf32>)",
        "pto.trowexpandadd ins(%a, %b8 : !pto.tile_buf<vec, 16x64xf32>, "
        "!pto.tile_buf<vec, 16x8xf32>) outs(%d : !pto.tile_buf<vec, 16x64xf32>)").replace(
        "    %k = pto.alloc_tile", "    %b8 = pto.alloc_tile addr = %c0i : !pto.tile_buf<vec, "
        "16x8xf32>\n    %k = pto.alloc_tile").replace(
        "    %c0 = arith.constant 0 : index", "    %c0 = arith.constant 0 : index\n"
        "    %c0i = arith.constant 196608 : i64")
    k = Kernel.from_text(text)
    op = next(o for o in k.module.walk() if o.name == "pto.trowexpandadd")
    assert op.tile_call()[1] == {"src1_col": 1}


@pytest.mark.parametrize("name,rows,cols", [("i32", 31, 128), ("f16", 32, 128),
                                            ("i16", 32, 128), ("f32", 7, 448)])
def test_tcmps_dense_layout_of_the_ptoas_lowering(name, rows, cols):
    """mask_layout="dense" (what a .pto tcmps runs): explicit loops of the Gym golden
    (tcmps/gen_data.py): 32-bit types as one linear stream in 16-byte stores of 128
    elements, 8 / 16-bit types row by row in whole 32 / 16-byte stores."""
    m = mk()
    a, x = filled(m, name, rows, cols, lo=-5, hi=5)
    d = blank(m, "ui8", rows, cols)
    m.TCMPS(d, a, 0, mode="lt", mask_layout="dense")
    size = np.dtype(NP[name]).itemsize
    lanes = 256 // size
    res = x < 0
    if size == 4:
        total = ((rows * cols + lanes - 1) // lanes + 1) // 2 * 16
    else:
        per = 16 if size == 2 else 32
        iters = (cols + lanes - 1) // lanes
        total = rows * iters * per
    want = np.zeros(total, np.uint8)
    for r in range(rows):
        for c in range(cols):
            if res[r, c]:
                if size == 4:
                    k = r * cols + c
                    byte, bit = (k // 128) * 16 + (k % 128) // 8, k % 8
                else:
                    byte = (r * iters + c // lanes) * per + (c % lanes) // 8
                    bit = (c % lanes) % 8
                want[byte] |= 1 << bit
    np.testing.assert_array_equal(m.read(d.ptr, total), want)
    assert (m.read(d.ptr.cast("ui8"), d.nbytes)[total:] == SENTINEL).all()


@pytest.mark.parametrize("op, fn", [("TPARTMAX", np.maximum), ("TPARTMIN", np.minimum)])
@pytest.mark.parametrize("name", ["f32", "i16"])
def test_tpart_max_min_as_ptoas_lowers_them(op, fn, name):
    """ptoas=True (what a .pto tpartmax / tpartmin runs, PTOAS lib/TileOps/tpart*_template):
    dst's valid region filled with the pad Min (max) / Max (min), src0's region copied, then
    max / min with src1 over src1's region; neither source has to cover dst."""
    m = mk()
    a, x = filled(m, name, 16, 64, valid=(12, 64), lo=-50, hi=50)
    b, y = filled(m, name, 16, 64, valid=(16, 40), lo=-50, hi=50,
                  rng=np.random.default_rng(4))
    d = blank(m, name, 16, 64)
    getattr(m, op)(d, a, b, ptoas=True)
    dt = NP[name]
    lim = np.finfo(dt) if name == "f32" else np.iinfo(dt)      # floats: largest finite
    want = np.full((16, 64), -lim.max if name == "f32" and op == "TPARTMAX" else
                   lim.min if op == "TPARTMAX" else lim.max, dt)
    want[:12, :64] = x[:12, :64]
    want[:16, :40] = fn(want[:16, :40], y[:16, :40])
    np.testing.assert_array_equal(m.read_tile(d), want)
    with pytest.raises(ptosim.PtoError, match="must have dst's valid region"):
        getattr(m, op)(d, a, b)                  # the C++ face keeps a5's rule
