"""TMOV Vec -> Vec layout changes (a5): ND -> NZ, ND -> ZN and the 3-operand MX exponent
repacks ND -> ZZ / DN -> ZZ, byte for byte as a5's vector code writes them (every byte an
op must not write keeps SENTINEL). Goldens are numpy reshapes / transposes (and, for the
index scratch, plain loops); the parameter rows are pto-isa's a5 ST cases (tmov_nd2nz,
tmov_nd2zn, tmov_zz, tquant_dn)."""

import ml_dtypes
import numpy as np
import pytest

import ptosim
from ptosim.errors import (
    DtypeError,
    NotImplementedOpError,
    PtoValueError,
    VerifyError,
)
from test_tquant_mx import raw
from test_tquant_mx_zz import tiles as zz_tiles
from tile_helpers import NP, SENTINEL, al, put

NP = {**NP, "hif8": np.uint8, "f8E8M0FNU": ml_dtypes.float8_e8m0fnu}
ZZ = {"blayout": "RowMajor", "slayout": "RowMajor", "fractal": 32}
NZ = {"blayout": "ColMajor", "slayout": "RowMajor"}
ZN = {"blayout": "RowMajor", "slayout": "ColMajor"}


def blank(m, name, rows, cols, **kw):
    """A Vec tile of any layout filled with SENTINEL bytes."""
    t = m.tile("Vec", name, rows, cols, **kw)
    m.write(t.ptr.cast("ui8"), np.full(t.nbytes, SENTINEL, np.uint8))
    return t


def data(name, rows, cols, seed=0):
    """Distinct-ish bit patterns of the element type (as its unsigned carrier)."""
    es = np.dtype(NP[name]).itemsize
    rng = np.random.default_rng(seed + rows * 131 + cols)
    hi = 250 if es == 1 else 60000
    return rng.integers(1, hi, (rows, cols)).astype(f"u{es}")


def put_bits(m, t, bits):
    m.write(t.ptr.cast("ui8"), np.ascontiguousarray(bits).view(np.uint8).ravel())


def bits_of(m, t):
    return raw(m, t).view(f"u{t.dtype.size}")


# --- ND -> NZ -------------------------------------------------------------------------------
def nz_golden(src, rows, vr, vc, c0, lines, nbytes, es):
    """src rows [:rows], cols [:vc] laid out as column blocks of `lines` 32 B lines: pad to
    (lines, blocks * c0) with sentinels, split the columns into blocks, blocks outermost."""
    blocks = -(-vc // c0)
    img = np.full((lines, blocks * c0), -1, np.int64)
    img[:rows, :vc] = src[:rows, :vc]
    img = img.reshape(lines, blocks, c0).transpose(1, 0, 2).ravel()
    out = np.full(nbytes // es, -1, np.int64)
    out[:img.size] = img
    return out


def check_bits(got, golden, es):
    """golden: element values, -1 where the sentinel must survive."""
    sent = int.from_bytes(bytes([SENTINEL] * es), "little")
    want = np.where(golden < 0, sent, golden).astype(got.dtype)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("name, rows, cols", [("hif8", 32, 32), ("hif8", 32, 64),
                                              ("hif8", 64, 64)])
def test_nd_to_nz_pto_isa_rows(name, rows, cols):
    """a5 ST tmov_nd2nz (hifloat8, whole tiles): the NZ image of the ND tile."""
    m = ptosim.Machine(target="a5")
    x = data(name, rows, cols)
    src = m.tile("Vec", name, rows, cols)
    put_bits(m, src, x)
    dst = blank(m, name, rows, cols, **NZ)
    m.TMOV(dst, src)
    golden = x.reshape(rows, cols // 32, 32).transpose(1, 0, 2).ravel()
    np.testing.assert_array_equal(bits_of(m, dst), golden)


@pytest.mark.parametrize("name, src_shape, src_rows, dst_shape, dst_valid, compact", [
    ("f16", (16, 48), 13, (16, 48), (13, 40), "Normal"),    # partial: only 13 x 40 written
    ("f32", (32, 24), 20, (48, 24), (20, 24), "Normal"),    # blocks 32 lines apart, not 48
    ("bf16", (8, 32), 8, (32, 32), (8, 17), "Normal"),
    ("i8", (31, 64), 31, (33, 64), (31, 64), "RowPlusOne"),  # tmov_zz's fp8 data tile
    ("f8E4M3FN", (47, 128), 47, (49, 128), (47, 128), "RowPlusOne"),
    ("i32", (16, 16), 16, (17, 16), (16, 16), "RowPlusOne"),
])
def test_nd_to_nz_exact_bytes(name, src_shape, src_rows, dst_shape, dst_valid, compact):
    """Rows < src valid rows, cols < dst valid cols, column blocks align16(dst valid rows)
    lines apart (+1 under RowPlusOne); nothing else written."""
    m = ptosim.Machine(target="a5")
    x = data(name, *src_shape)
    src = m.tile("Vec", name, *src_shape, valid=(src_rows, src_shape[1]))
    put_bits(m, src, x)
    dst = blank(m, name, *dst_shape, valid=dst_valid, compact=compact, **NZ)
    m.TMOV(dst, src)
    es = dst.dtype.size
    lines = al(dst_valid[0], 16) + (compact == "RowPlusOne")
    golden = nz_golden(x, src_rows, *dst_valid, 32 // es, lines, dst.nbytes, es)
    check_bits(bits_of(m, dst), golden, es)
    if lines == dst_shape[0]:                  # the tile's own NZ layout: read it back
        np.testing.assert_array_equal(m.read_tile(dst).view(x.dtype), x[:src_rows, :dst_valid[1]])


# --- ND -> ZN -------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["hif8", "f16", "f32"])
@pytest.mark.parametrize("rows, cols", [(32, 32), (32, 64), (64, 64), (128, 128)])
def test_nd_to_zn_pto_isa_rows(name, rows, cols):
    """a5 ST tmov_nd2zn (hif8, half, b32): C0 x 16 fractals, row-major over fractals,
    column-major inside."""
    m = ptosim.Machine(target="a5")
    x = data(name, rows, cols)
    src = m.tile("Vec", name, rows, cols)
    put_bits(m, src, x)
    dst = blank(m, name, rows, cols, **ZN)
    m.TMOV(dst, src)
    k0 = 32 // dst.dtype.size
    golden = x.reshape(rows // k0, k0, cols // 16, 16).transpose(0, 2, 3, 1).ravel()
    np.testing.assert_array_equal(bits_of(m, dst), golden)
    np.testing.assert_array_equal(m.read_tile(dst).view(x.dtype), x)


def test_nd_to_zn_partial_fractals_and_source_stride():
    """dst valid 40 x 40 (f16, K0 16): floor(40/16) x floor(40/16) = 2 x 2 fractals, packed
    2 per fractal row, gathered from the source read with a row stride of 40 (dst's valid
    cols), not the source tile's 48."""
    m = ptosim.Machine(target="a5")
    src = m.tile("Vec", "f16", 48, 48)
    flat = data("f16", 48, 48).ravel()
    put_bits(m, src, flat)
    dst = blank(m, "f16", 48, 48, valid=(40, 40), **ZN)
    m.TMOV(dst, src)
    s = flat[:32 * 40].reshape(32, 40)[:, :32]              # the rows the gather reads
    img = s.reshape(2, 16, 2, 16).transpose(0, 2, 3, 1).ravel()
    golden = np.full(48 * 48, -1, np.int64)
    golden[:img.size] = img
    check_bits(bits_of(m, dst), golden, 2)


# --- ND -> ZZ (3 operands) ------------------------------------------------------------------
def zz_boxes(e2d):
    """(rows, G) exponents, rows a multiple of 16 -> 16 x 2 byte boxes, row blocks outer,
    column pairs next, then the 16 rows, then the pair."""
    r, g = e2d.shape
    return e2d.reshape(r // 16, 16, g // 2, 2).transpose(0, 2, 1, 3).ravel()


def tmp_golden(rows, g):
    """The b16 gather indices, by loops: q * P for 16 lanes; rb * 16P + p per box; the
    last row block's first 16 indices again."""
    p, rb = g // 2, -(-rows // 16)
    out = [q * p for q in range(16)]
    for b in range(rb):
        for j in range(p):
            out.append(b * 16 * p + j)
    out += [(rb - 1) * 16 * p + j for j in range(16)]
    return np.array(out, np.uint16).view(np.uint8)


def run_nd_zz(name, rows, g, *, src_cols=None):
    m = ptosim.Machine(target="a5")
    pr = al(rows, 16)
    src = blank(m, name, 1, src_cols or al(pr * g, 32))
    e = data("ui8", rows, g, seed=5)
    m.write(src.ptr.cast("ui8"), e.ravel())
    dst = blank(m, name, pr, g, valid=(rows, g), **ZZ)
    tmp_bytes = al((16 + pr // 16 * (g // 2) + 16) * 2, 32)
    tmp = blank(m, name, 1, tmp_bytes)
    m.TMOV(dst, src, tmp)
    return m, src, dst, tmp, e


# a5 ST tmov_zz rows (validRows, validCols of the f32 input): exponents rows x cols / 32
TMOV_ZZ_ROWS = [(32, 64), (64, 64), (64, 128), (64, 192), (64, 256), (64, 320), (64, 384),
                (64, 448), (64, 512), (64, 576), (64, 640), (64, 704), (64, 768), (64, 832),
                (64, 896), (128, 128), (128, 256), (128, 384), (256, 192), (8, 64), (6, 64),
                (13, 64), (3, 64), (29, 64), (31, 64), (47, 64), (31, 128), (47, 128),
                (31, 256), (47, 256)]


@pytest.mark.parametrize("rows, cols", TMOV_ZZ_ROWS)
@pytest.mark.parametrize("name", ["ui8", "f8E8M0FNU"])
def test_nd_to_zz_pto_isa_rows(name, rows, cols):
    """gen_data.py's nd2zz_e8m0: rows zero-padded to 16, (rb, 16, G/2, 2) -> (rb, G/2, 16, 2);
    the source's padding rows are zeroed in place; tmp holds the index buffer."""
    g = cols // 32
    m, src, dst, tmp, e = run_nd_zz(name, rows, g)
    pr = al(rows, 16)
    padded = np.zeros((pr, g), np.uint8)
    padded[:rows] = e
    np.testing.assert_array_equal(raw(m, dst), zz_boxes(padded))
    s = raw(m, src)
    np.testing.assert_array_equal(s[:pr * g], padded.ravel())
    assert (s[pr * g:] == SENTINEL).all()
    t = raw(m, tmp)
    want = tmp_golden(rows, g)
    np.testing.assert_array_equal(t[:want.size], want)
    assert (t[want.size:] == SENTINEL).all()


def test_nd_to_zz_odd_valid_cols_drop_the_last_column():
    """P = valid cols // 2: with 5 valid cols only the first 4 columns move."""
    m = ptosim.Machine(target="a5")
    src = blank(m, "ui8", 16, 32)
    e = data("ui8", 16, 5, seed=9)
    m.write(src.ptr.cast("ui8"), e.ravel())     # flat: 5 bytes per exponent row
    dst = blank(m, "ui8", 16, 6, valid=(16, 5), **ZZ)
    tmp = blank(m, "ui8", 1, 128)
    m.TMOV(dst, src, tmp)
    flat = e.ravel()[:16 * 4].reshape(16, 4)    # read back with 2P = 4 bytes per row
    d = raw(m, dst)
    np.testing.assert_array_equal(d[:64], zz_boxes(flat))
    assert (d[64:] == SENTINEL).all()


# --- DN -> ZZ (3 operands, grp_axis=0) ------------------------------------------------------
@pytest.mark.parametrize("m_rows, n", [(64, 128), (128, 128), (256, 64), (64, 48), (96, 32)])
def test_dn_to_zz_is_transpose_then_boxes(m_rows, n):
    """TQUANT DN's (M/32) x N exponents: the ZZ boxes of their N x (M/32) transpose, whole
    boxes only (M/32 // 2 pairs); tmp and the source are untouched."""
    hat = m_rows // 32
    m = ptosim.Machine(target="a5")
    src = blank(m, "ui8", hat, al(n, 32), valid=(hat, n))
    e = data("ui8", hat, n, seed=3)
    m.write(src.ptr.cast("ui8"), e.ravel())     # a5 reads it flat, n bytes per row
    dst = blank(m, "ui8", al(n, 16), al(hat, 2), **ZZ)       # the N x (M/32) transpose
    tmp = blank(m, "ui8", 1, 64)
    m.TMOV(dst, src, tmp, grp_axis=0)
    pairs = hat // 2
    et = e[:2 * pairs].T                        # N x (2 pairs)
    boxes = et.reshape(n // 16, 16, pairs, 2).transpose(0, 2, 1, 3).ravel()
    d = raw(m, dst)
    np.testing.assert_array_equal(d[:boxes.size], boxes)
    assert (d[boxes.size:] == SENTINEL).all()
    assert (raw(m, tmp) == SENTINEL).all()
    np.testing.assert_array_equal(raw(m, src)[:hat * n], e.ravel())


# --- the MX flow ----------------------------------------------------------------------------
@pytest.mark.parametrize("st, rows, cols", [("f32", 32, 128), ("f16", 48, 256),
                                            ("bf16", 64, 64)])
def test_mx_flow_tquant_then_tmov_zz_equals_the_cpu_sim_overload(st, rows, cols):
    """a5's way (tquant_kernel.cpp mode 1): TQUANT MXFP8 with ND exponents, then TMOV(e8Zz,
    e8, tmp) and TMOV(fp8Nz, fp8): the exponent bytes equal the CPU simulator's ZZ overload
    (`TQUANT(..., exp_zz, store_mode="NZ", cpu_sim_compat=True)`), the fp8 bytes the NZ
    image of the plain TQUANT's."""
    rng = np.random.default_rng(rows + cols)
    x = (rng.standard_normal((rows, cols)) * np.exp2(rng.integers(-6, 7, (rows, cols)))
         ).astype(NP[st])
    g = cols // 32
    want = ptosim.Machine(target="a5")
    w_src, w_dst, w_exp, w_max, w_sc, w_zz = zz_tiles(want, st, rows, cols)
    put(want, w_src, x)
    want.TQUANT(w_dst, w_src, w_exp, w_max, w_sc, w_zz, store_mode="NZ", cpu_sim_compat=True)
    exp_zz = raw(want, w_zz)[:rows * g]

    m = ptosim.Machine(target="a5")
    src, fp8, exp, mx, sc, _ = zz_tiles(m, st, rows, cols)
    put(m, src, x)
    m.TQUANT(fp8, src, exp, mx, sc)
    e8zz = blank(m, "f8E8M0FNU", rows, g, **ZZ)
    tmp = blank(m, "f8E8M0FNU", 1, al((32 + rows // 16 * (g // 2)) * 2, 32))
    m.TMOV(e8zz, exp, tmp)
    np.testing.assert_array_equal(raw(m, e8zz), exp_zz)
    # and through ptosim's ZZ-32 layout map (the cube's ScaleLeft order): exp as rows x G
    np.testing.assert_array_equal(m.read_tile(e8zz).view(np.uint8),
                                  raw(m, exp)[:rows * g].reshape(rows, g))
    nz = blank(m, "f8E4M3FN", al(rows, 16) + 1, cols, valid=(rows, cols), compact="RowPlusOne",
               **NZ)
    m.TMOV(nz, fp8)
    np.testing.assert_array_equal(m.read_tile(nz).view(np.uint8), raw(m, fp8).reshape(rows, cols))


@pytest.mark.parametrize("m_rows, n", [(64, 128), (128, 64)])
def test_mx_dn_flow_tquant_then_tmov_grp_axis_0(m_rows, n):
    """a5 tquant_dn's pipeline: TQUANT grp_axis=0 ((M/32) x N exponents), then
    TMOV(e8Zz, e8Dn, tmp, grp_axis=0): the ZZ-32 tile read through its layout map is the
    N x (M/32) transpose of the exponents."""
    rng = np.random.default_rng(m_rows + n)
    x = (rng.standard_normal((m_rows, n)) * np.exp2(rng.integers(-6, 7, (m_rows, n)))
         ).astype(np.float32)
    m = a5()
    src = m.tile("Vec", "f32", m_rows, n)
    put(m, src, x)
    hat = m_rows // 32
    exp = blank(m, "ui8", hat, n)
    m.TQUANT(blank(m, "f8E4M3FN", m_rows, n), src, exp, blank(m, "f32", hat, n),
             blank(m, "f32", hat, n), grp_axis=0)
    zz = blank(m, "ui8", n, hat, **ZZ)
    m.TMOV(zz, exp, blank(m, "ui8", 1, 32), grp_axis=0)
    e = raw(m, exp).reshape(hat, n)
    np.testing.assert_array_equal(m.read_tile(zz), e.T)


# --- rules ----------------------------------------------------------------------------------
def a5():
    return ptosim.Machine(target="a5")


def test_a2a3_has_no_vec_relayout():
    m = ptosim.Machine(target="a2a3")
    src, dst = m.tile("Vec", "f16", 16, 32), m.tile("Vec", "f16", 16, 32, **NZ)
    with pytest.raises(NotImplementedOpError, match="TMOV: TMOV Vec ND -> Vec NZ does not "
                                                    "exist on a2a3: its Vec -> Vec TMOV copies"):
        m.TMOV(dst, src)
    with pytest.raises(VerifyError, match="a Vec tile cannot be ZZ with 32 B fractals on a2a3"):
        m.tile("Vec", "ui8", 16, 2, **ZZ)


def test_a5_other_vec_layout_pairs_are_not_modelled():
    m = a5()
    src = m.tile("Vec", "f16", 16, 32)
    for kw, name in ((dict(blayout="ColMajor"), "DN"), ):
        with pytest.raises(NotImplementedOpError, match=f"TMOV Vec ND -> Vec {name} does not "
                                                        "exist on a5"):
            m.TMOV(m.tile("Vec", "f16", 16, 32, **kw), src)
    nz = m.tile("Vec", "f16", 16, 32, **NZ)
    with pytest.raises(NotImplementedOpError, match="TMOV Vec NZ -> Vec ND does not exist"):
        m.TMOV(src, nz)


@pytest.mark.parametrize("make, exc, message", [
    (lambda m: (m.tile("Vec", "i16", 16, 32, **NZ), m.tile("Vec", "i16", 16, 32)), DtypeError,
     "ND -> NZ: element type i16 is not one of"),
    (lambda m: (m.tile("Vec", "f16", 16, 32, **NZ), m.tile("Vec", "bf16", 16, 32)), DtypeError,
     "ND -> NZ: src and dst element types differ \\(bf16 -> f16\\)"),
    (lambda m: (m.tile("Vec", "f16", 32, 32, valid=(8, 32), **NZ), m.tile("Vec", "f16", 32, 32)),
     VerifyError, "ND -> NZ: 32 source rows overrun the 16-line column blocks"),
    (lambda m: (m.tile("Vec", "f16", 16, 48, **NZ), m.tile("Vec", "f16", 16, 32)),
     VerifyError, "ND -> NZ: the destination's 48 valid cols run past the source's 32"),
    (lambda m: (m.tile("Vec", "f16", 8, 32, valid=(8, 32), **NZ), m.tile("Vec", "f16", 16, 32,
                                                                          valid=(16, 32))),
     VerifyError, "ND -> NZ's output spans 1024 B, past the 8x32 f16 tile's 512 B"),
    (lambda m: (m.tile("Vec", "ui16", 32, 32, **ZN), m.tile("Vec", "ui16", 32, 32)), DtypeError,
     "ND -> ZN: element type ui16 is not one of"),
    (lambda m: (m.tile("Vec", "f32", 16, 32, **ZN), m.tile("Vec", "f32", 12, 32)), VerifyError,
     "ND -> ZN: source rows 12 must be a multiple of K0 = 8"),
    (lambda m: (m.tile("Vec", "f32", 16, 16, **ZN), m.tile("Vec", "f32", 16, 24)), VerifyError,
     "ND -> ZN: source cols 24 must be a multiple of 16"),
    (lambda m: (m.tile("Vec", "f16", 32, 32, **ZN), m.tile("Vec", "f16", 16, 32)), VerifyError,
     "ND -> ZN's input \\(row stride = dst valid cols\\) spans 2048 B, past the 16x32"),
    (lambda m: (m.tile("Vec", "ui8", 16, 2, **ZZ), m.tile("Vec", "ui8", 1, 32)), PtoValueError,
     "TMOV Vec ND -> ZZ is the 3-operand form: TMOV\\(dst, src, tmp\\)"),
])
def test_two_operand_rules(make, exc, message):
    m = a5()
    dst, src = make(m)
    with pytest.raises(exc, match="TMOV: " + message):
        m.TMOV(dst, src)


def zz3(m, dst=None, src=None, tmp=None):
    return (dst or m.tile("Vec", "ui8", 16, 4, **ZZ), src or m.tile("Vec", "ui8", 1, 64),
            tmp or m.tile("Vec", "ui8", 1, 96))


@pytest.mark.parametrize("make, kw, exc, message", [
    (lambda m: zz3(m, tmp=m.tile("Scaling", "ui64", 1, 16)), {}, VerifyError,
     "a Scaling third operand is TMOV's fp form: use TMOV_FP"),
    (zz3, {"grp_axis": 2}, PtoValueError, "grp_axis must be 1 \\(ND -> ZZ\\) or 0"),
    (lambda m: zz3(m, src=m.tile("Vec", "ui8", 32, 2, blayout="ColMajor")), {}, VerifyError,
     "ND -> ZZ: the source must be an ND \\(RowMajor, NoneBox\\) tile, got DN"),
    (lambda m: zz3(m, dst=m.tile("Vec", "ui8", 16, 32)), {"grp_axis": 0}, VerifyError,
     "DN -> ZZ: the destination must be a ZZ \\(RowMajor, RowMajor\\) tile, got ND"),
    (lambda m: zz3(m, tmp=m.tile("Mat", "ui8", 1, 96)), {}, VerifyError,
     "ND -> ZZ: tmp must be a Vec tile, got Mat"),
    (lambda m: zz3(m, src=m.tile("Vec", "hif8", 1, 64)), {}, DtypeError,
     "ND -> ZZ: dst, src and tmp must share one element type, got ui8, hif8, ui8"),
    (lambda m: zz3(m, tmp=m.tile("Vec", "ui8", 1, 64)), {}, VerifyError,
     "ND -> ZZ's index scratch spans 68 B, past the 1x64 ui8 tile's 64 B"),
    (lambda m: zz3(m, src=m.tile("Vec", "ui8", 1, 32)), {}, VerifyError,
     "ND -> ZZ's source \\(read and zero-padded to align16\\(rows\\) rows\\) spans 64 B"),
    (lambda m: zz3(m, dst=m.tile("Vec", "ui8", 16, 2, valid=(16, 1), **ZZ)), {}, VerifyError,
     "ND -> ZZ: the destination needs at least 2 valid cols"),
    (lambda m: zz3(m, dst=m.tile("Vec", "ui8", 16, 2, **ZZ), src=m.tile("Vec", "ui8", 2, 64)),
     {"grp_axis": 0}, VerifyError, "DN -> ZZ's output spans 128 B, past the 16x2 ui8"),
])
def test_three_operand_rules(make, kw, exc, message):
    m = a5()
    with pytest.raises(exc, match="TMOV: " + message):
        m.TMOV(*make(m), **kw)


def test_keyword_and_tile_rules():
    m = a5()
    src, nz = m.tile("Vec", "f16", 16, 32), m.tile("Vec", "f16", 16, 32, **NZ)
    with pytest.raises(PtoValueError, match="TMOV: grp_axis selects the 3-operand ZZ form"):
        m.TMOV(nz, src, grp_axis=0)
    with pytest.raises(PtoValueError, match="TMOV: the 3-operand \\(tmp\\) TMOV takes no mode"):
        m.TMOV(*zz3(m), mode="SingleModeVec0")
    with pytest.raises(VerifyError, match="tile: compact must be one of Null, Normal, "
                                          "RowPlusOne, got 'Plus'"):
        m.tile("Vec", "f16", 16, 32, compact="Plus")
    with pytest.raises(VerifyError, match="fractal-32 \\(MX scale\\) tiles hold f8E8M0FNU "
                                          "\\(e8m0\\), got i8"):
        m.tile("Vec", "i8", 16, 2, **ZZ)


# --- .pto -----------------------------------------------------------------------------------
def tb(rows, cols, vr, vc, bl="row_major", sl="none_box", compact=0):
    return (f"!pto.tile_buf<loc=vec, dtype=f16, rows={rows}, cols={cols}, v_row={vr}, "
            f"v_col={vc}, blayout={bl}, slayout={sl}, fractal=512, pad=0, compact={compact}>")


def pto_relayout_kernel():
    """ND 32x32 f16 -> NZ with compact=2 (RowPlusOne: 33-line column blocks) and -> ZN, each
    stored through an ND alias at its address (pto-isa's kernels store ZZ tiles so)."""
    src, nz, zn = tb(32, 32, 32, 32), tb(33, 32, 32, 32, "col_major", "row_major", 2), \
        tb(32, 32, 32, 32, "row_major", "col_major")
    nz_nd, zn_nd = tb(33, 32, 33, 32), tb(32, 32, 32, 32)
    views = {"x": ("x_ptr", 32), "o1": ("nz_ptr", 33), "o2": ("zn_ptr", 32)}
    lines = ["%c0 = arith.constant 0 : index", "%c1 = arith.constant 1 : index",
             "%c32 = arith.constant 32 : index", "%c33 = arith.constant 33 : index",
             "%a0 = arith.constant 0 : i64", "%a1 = arith.constant 4096 : i64",
             "%a2 = arith.constant 8192 : i64"]
    for name, (ptr, rows) in views.items():
        lines += [f"%v{name} = pto.make_tensor_view %{ptr}, shape = [%c{rows}, %c32], strides = "
                  f"[%c32, %c1] : !pto.tensor_view<?x?xf16>",
                  f"%{name} = pto.partition_view %v{name}, offsets = [%c0, %c0], sizes = "
                  f"[%c{rows}, %c32] : !pto.tensor_view<?x?xf16> -> "
                  f"!pto.partition_tensor_view<{rows}x32xf16>"]
    lines += [f"%src = pto.alloc_tile addr = %a0 : {src}",
              f"%nz = pto.alloc_tile addr = %a1 : {nz}", f"%nz_nd = pto.alloc_tile addr = %a1 : {nz_nd}",
              f"%zn = pto.alloc_tile addr = %a2 : {zn}", f"%zn_nd = pto.alloc_tile addr = %a2 : {zn_nd}",
              f"pto.tload ins(%x : !pto.partition_tensor_view<32x32xf16>) outs(%src : {src})",
              'pto.set_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]',
              'pto.wait_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]',
              f"pto.tmov ins(%src : {src}) outs(%nz : {nz})",
              f"pto.tmov ins(%src : {src}) outs(%zn : {zn})",
              'pto.set_flag["PIPE_V", "PIPE_MTE3", "EVENT_ID0"]',
              'pto.wait_flag["PIPE_V", "PIPE_MTE3", "EVENT_ID0"]',
              f"pto.tstore ins(%nz_nd : {nz_nd}) outs(%o1 : !pto.partition_tensor_view<33x32xf16>)",
              f"pto.tstore ins(%zn_nd : {zn_nd}) outs(%o2 : !pto.partition_tensor_view<32x32xf16>)"]
    body = "\n    ".join(lines)
    return ('module attributes {pto.target_arch = "a5"} {\n'
            "  func.func @k(%x_ptr: !pto.ptr<f16>, %nz_ptr: !pto.ptr<f16>, %zn_ptr: !pto.ptr<f16>) "
            "attributes {pto.aicore, pto.kernel_kind = #pto.kernel_kind<vector>} {\n    "
            f"{body}\n    return\n  }}\n}}\n")


def test_pto_tmov_vec_relayouts():
    """`pto.tmov` between Vec tile_bufs of different layouts (PTOAS accepts any Vec -> Vec
    pair; there is no tmp operand, so no ZZ form) runs TMOV; the tile_buf's compact=2 is
    CompactMode RowPlusOne."""
    from ptosim.kernel import Kernel
    x = (np.arange(32 * 32) % 1000).astype(np.float16).reshape(32, 32)
    run = Kernel.from_text(pto_relayout_kernel(), "relayout.pto").run(
        {"x_ptr": x, "nz_ptr": np.zeros((33, 32), np.float16),
         "zn_ptr": np.zeros((32, 32), np.float16)})
    assert not run.findings
    nz = np.zeros((2, 33, 16), np.float16)
    nz[:, :32] = x.reshape(32, 2, 16).transpose(1, 0, 2)
    np.testing.assert_array_equal(run.outputs["nz_ptr"].ravel(), nz.ravel())
    np.testing.assert_array_equal(run.outputs["zn_ptr"].ravel(),
                                  x.reshape(2, 16, 2, 16).transpose(0, 2, 3, 1).ravel())


# --- cpu_sim_compat -------------------------------------------------------------------------
@pytest.mark.parametrize("src_kw, dst_kw, golden", [
    ({}, dict(blayout="ColMajor"), lambda x: x.T.ravel()),                       # ND -> DN
    (NZ, {}, lambda x: x.ravel()),                                               # NZ -> ND
    ({}, ZN, lambda x: x.reshape(2, 16, 2, 16).transpose(0, 2, 3, 1).ravel()),   # ND -> ZN
    (dict(blayout="ColMajor"), NZ, lambda x: x.reshape(32, 2, 16).transpose(1, 0, 2).ravel()),
])
def test_cpu_sim_compat_any_layout_pair(src_kw, dst_kw, golden):
    """pto-isa's CPU simulator TMOV: dst(r, c) = src(r, c) over the valid region through
    both layouts, whatever they are (a5's hardware has no such relayout for most pairs)."""
    m = a5()
    x = data("f16", 32, 32)
    src = m.tile("Vec", "f16", 32, 32, **src_kw)
    idx = src.layout.offsets()
    img = np.zeros(32 * 32, x.dtype)
    img[idx] = x
    put_bits(m, src, img)
    dst = blank(m, "f16", 32, 32, **dst_kw)
    m.TMOV(dst, src, cpu_sim_compat=True)
    np.testing.assert_array_equal(bits_of(m, dst), golden(x))


def test_cpu_sim_compat_writes_only_the_valid_region_and_its_rules():
    m = a5()
    x = data("f16", 16, 32)
    src = m.tile("Vec", "f16", 16, 32, valid=(5, 20))
    put_bits(m, src, x)
    dst = blank(m, "f16", 16, 32, valid=(5, 20), blayout="ColMajor")
    m.TMOV(dst, src, cpu_sim_compat=True)
    golden = np.full((32, 16), -1, np.int64)
    golden[:20, :5] = x[:5, :20].T
    check_bits(bits_of(m, dst), golden.ravel(), 2)
    with pytest.raises(VerifyError, match="TMOV: the CPU simulator's TMOV needs equal valid "
                                          "shapes, got 16x32 -> 5x20"):
        m.TMOV(dst, m.tile("Vec", "f16", 16, 32), cpu_sim_compat=True)
    with pytest.raises(DtypeError, match="TMOV: src and dst element types differ"):
        m.TMOV(m.tile("Vec", "bf16", 16, 32), m.tile("Vec", "f16", 16, 32), cpu_sim_compat=True)
    with pytest.raises(PtoValueError, match="TMOV: cpu_sim_compat applies to the 2-operand "
                                            "Vec -> Vec TMOV"):
        m.TMOV(*zz3(m), cpu_sim_compat=True)
