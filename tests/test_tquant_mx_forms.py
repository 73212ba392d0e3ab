"""TQUANT MX forms beyond ND-flat: DN grouping (linear and interleaved exponents), MXFP4
with the NV recipe, b16 sources with padding columns and 2-D exp tiles (a5's packed
scratch layouts). Goldens go element by element: the group maximum by Python's max over
float64 values, exponents from `np.frexp` (NV: a ceiling of log2(max / 448 or 6)), codes
by a nearest-value search (test_tquant_mx's helpers), layouts by index arithmetic."""

import ml_dtypes
import numpy as np
import pytest

import ptosim
from ptosim.errors import PtoValueError, VerifyError
from test_tquant_mx import e2m1_code, e4m3_code, raw, shared_exp
from tile_helpers import NP, SENTINEL, blank, put


def mk():
    return ptosim.Machine(target="a5")


def ocp_exp(mx, emax):
    """OCP e8m0 from a float64 maximum: biased exponent - emax, at least 0."""
    if emax == 8:
        return shared_exp(mx)
    if np.isnan(mx):
        return 255
    if np.isinf(mx):
        return 255 - emax
    if mx == 0:
        return 0
    return max(int(np.frexp(mx)[1]) - 1 + 127 - emax, 0)


def nv_exp(mx, fmax):
    """NV e8m0: ceil(log2(f32(mx * f32(1/fmax)))) + 127, at least 0; 254 inf, 255 NaN."""
    if np.isnan(mx):
        return 255
    if np.isinf(mx):
        return 254
    d = float(np.float32(np.float32(mx) * (np.float32(1) / np.float32(fmax))))
    if d == 0:
        return 0
    f, e = np.frexp(d)
    return max((int(e) - 1 if f == 0.5 else int(e)) + 127, 0)


def scale_of(e, nv):
    if e == 255:
        return np.nan
    if nv and e == 254:
        return 2.0 ** -127
    return 2.0 ** (127 - e)


def group_golden(vals, fp4, nv, b16):
    """(e8m0, scaling bits, codes) of one 32-value group (float64 values)."""
    mx = np.nan if np.isnan(vals).any() else max(abs(v) for v in vals)
    fmax = 6.0 if fp4 else 448.0
    e = nv_exp(mx, fmax) if nv else ocp_exp(mx, 2 if fp4 else 8)
    s = scale_of(e, nv)
    if fp4:
        codes = [7 if np.isnan(s) else e2m1_code(v * s) for v in vals]
    else:
        codes = [0x7F if np.isnan(s) else e4m3_code(v * s) for v in vals]
    if b16:
        nan_bits = 0x7FC0 if fp4 else 0x7F81
        bits = nan_bits if e == 255 else 0x0040 if (nv and e == 254) else (254 - e) << 7
    else:
        bits = 0x7FC00000 if e == 255 else 0x00400000 if (nv and e == 254) else (254 - e) << 23
    return e, bits, codes


def sample(st, shape, seed, span=None):
    rng = np.random.default_rng(seed)
    span = span or {"f32": (-120, 100), "bf16": (-60, 60), "f16": (-12, 8)}[st]
    x = rng.normal(size=shape) * np.exp2(rng.integers(*span, (1, shape[1])))
    return x.astype(NP[st])


# --- DN -------------------------------------------------------------------------------
DN_CASES = [("MXFP8", "f32", "OCP"), ("MXFP8", "f32", "NV"), ("MXFP8", "bf16", "OCP"),
            ("MXFP8", "bf16", "NV"), ("MXFP8", "f16", "OCP"), ("MXFP8", "f16", "NV"),
            ("MXFP4_E2M1", "bf16", "OCP"), ("MXFP4_E2M1", "bf16", "NV"),
            ("MXFP4_E2M1", "f16", "OCP"), ("MXFP4_E2M1", "f16", "NV")]


def run_dn(m, qt, st, alg, x, valid, exp_shape=None, interleave=False):
    rows, cols = x.shape
    fp4 = qt == "MXFP4_E2M1"
    src = m.tile("Vec", st, rows, cols, valid=valid)
    put(m, src, x)
    dst = blank(m, "f4E2M1x2" if fp4 else "f8E4M3FN", rows, cols // 2 if fp4 else cols)
    if interleave:
        er, ec = exp_shape or (rows // 64, 2 * cols)
        exp = blank(m, "f8E8M0FNU", er, ec, valid=(valid[0] // 64, 2 * valid[1]))
    else:
        er, ec = exp_shape or (rows // 32, cols)
        exp = blank(m, "f8E8M0FNU", er, ec)
    mx = blank(m, st, rows // 32, cols)
    sc = blank(m, st, rows // 32, cols)
    kw = {"interleave": True} if interleave else {}
    m.TQUANT(dst, src, exp, mx, sc, quant_type=qt, scale_alg=alg, grp_axis=0, **kw)
    return src, dst, exp, mx, sc


def check_dn(m, x, vr, vc, fp4, nv, b16, dst, e_at, sbits):
    """Every valid group against the golden; e_at(g, c) reads the exponent."""
    xf = x.astype(np.float64)
    d = raw(m, dst).reshape(x.shape[0], -1)
    for g in range(-(-vr // 32)):
        for c in range(vc):
            e, bits, codes = group_golden(xf[32 * g:32 * g + 32, c], fp4, nv, b16)
            assert e_at(g, c) == e, (g, c)
            assert sbits[g, c] == bits, (g, c)
            rs = np.arange(32 * g, 32 * g + 32)
            got = (d[rs, c // 2] >> (4 * (c % 2))) & 0xF if fp4 else d[rs, c]
            np.testing.assert_array_equal(got, codes, err_msg=f"{g} {c}")
    if fp4:
        assert (d[:, vc // 2:] == SENTINEL).all()
    else:
        assert (d[:, vc:] == SENTINEL).all()


@pytest.mark.parametrize("qt,st,alg", DN_CASES)
def test_dn(qt, st, alg):
    """Group g of column c = rows 32g..32g+31 of column c; exp / max / scaling at
    g * cols + c; dst row-major as for ND (FP4 packed along the row)."""
    m = mk()
    rows, cols, vc = 64, 64, 48
    fp4, nv, b16 = qt == "MXFP4_E2M1", alg == "NV", st != "f32"
    x = sample(st, (rows, cols), len(qt) * 10 + len(st) + len(alg))
    x[3, 0] = np.nan
    x[40, 1] = -np.inf
    x[32:64, 2] = 0
    x[33, 2] = -0.0
    x[:, vc:] = 7                                          # padding columns
    src, dst, exp, mx, sc = run_dn(m, qt, st, alg, x, (rows, vc))
    got_e = raw(m, exp).reshape(2, cols)
    sbits = raw(m, sc).view(np.uint16 if b16 else np.uint32).reshape(2, cols)
    check_dn(m, x, rows, vc, fp4, nv, b16, dst, lambda g, c: got_e[g, c], sbits)
    assert (got_e[:, vc:] == SENTINEL).all()
    tail = raw(m, mx).reshape(2, cols, -1)[:, vc:]
    assert (tail == SENTINEL).all()
    got_src = m.read(src.ptr, rows * cols).reshape(rows, cols).astype(np.float64)
    assert (got_src[:, vc:] == (0 if b16 else 7)).all()     # b16: zero-filled in place
    assert m.ctrl == 1 << 50


def _max_bits(x, alg):
    m = mk()
    _, _, _, mx, _ = run_dn(m, "MXFP8", "f16", alg, x, x.shape)
    return raw(m, mx).view(np.uint16)


def test_dn_max_tile():
    """The max tile: OCP f16 keeps the bf16 bits of the largest |x| (cut toward zero);
    NV f16 keeps f16 bits; f32 the f32 value."""
    x = sample("f16", (32, 64), 4)
    want = (np.abs(x.astype(np.float32)).max(axis=0).view(np.uint32) >> 16).astype(np.uint16)
    np.testing.assert_array_equal(_max_bits(x, "OCP"), want)
    np.testing.assert_array_equal(_max_bits(x, "NV"), np.abs(x).max(axis=0).view(np.uint16))
    m = mk()
    xf = sample("f32", (32, 32), 6)
    _, _, _, mx, _ = run_dn(m, "MXFP8", "f32", "OCP", xf, xf.shape)
    np.testing.assert_array_equal(raw(m, mx).view(np.float32), np.abs(xf).max(axis=0))


def test_dn_partial_rows_read_whole_groups():
    """Valid rows not a multiple of 32: a5 reads (and writes dst for) whole groups of rows,
    the padding rows included."""
    m = mk()
    x = sample("f32", (64, 32), 8)
    x[50, 5] = 1e30                                       # a padding row wins column 5
    src, dst, exp, mx, sc = run_dn(m, "MXFP8", "f32", "OCP", x, (40, 32))
    got_e = raw(m, exp).reshape(2, 32)
    sbits = raw(m, sc).view(np.uint32).reshape(2, 32)
    check_dn(m, x, 64, 32, False, False, False, dst, lambda g, c: got_e[g, c], sbits)
    assert got_e[1, 5] == ocp_exp(1e30, 8)


@pytest.mark.parametrize("qt,st,alg", [("MXFP8", "f32", "OCP"), ("MXFP8", "bf16", "NV"),
                                       ("MXFP4_E2M1", "f16", "OCP"),
                                       ("MXFP4_E2M1", "bf16", "NV")])
def test_dn_interleave(qt, st, alg):
    """interleave=True: exp row p holds groups 2p and 2p+1 of each column side by side
    (byte 2c + g % 2); data, max and scaling as without it."""
    m = mk()
    rows, cols, vc = 128, 64, 40
    fp4, nv, b16 = qt == "MXFP4_E2M1", alg == "NV", st != "f32"
    x = sample(st, (rows, cols), 9)
    x[70, 3] = np.nan
    src, dst, exp, mx, sc = run_dn(m, qt, st, alg, x, (rows, vc), interleave=True)
    got_e = raw(m, exp).reshape(2, 128)
    sbits = raw(m, sc).view(np.uint16 if b16 else np.uint32).reshape(4, cols)
    check_dn(m, x, rows, vc, fp4, nv, b16, dst, lambda g, c: got_e[g // 2, 2 * c + g % 2],
             sbits)
    assert (got_e[:, 2 * vc:] == SENTINEL).all()
    assert got_e[1, 2 * 3 + 0] == 255


def test_dn_worked_example():
    """By hand, DN MXFP8 f32: column 0 with max 3.0 -> e8m0 120, scaling 128, so rows 0 and
    1 (3.0, -0.01) give codes 0x7C and 0xBA; column 1 all zero -> e8m0 0."""
    m = mk()
    x = np.zeros((32, 32), np.float32)
    x[0, 0], x[1, 0] = 3.0, -0.01
    src, dst, exp, mx, sc = run_dn(m, "MXFP8", "f32", "OCP", x, (32, 32))
    e = raw(m, exp)
    assert e[0] == 120 and e[1] == 0
    d = raw(m, dst).reshape(32, 32)
    assert d[0, 0] == 0x7C and d[1, 0] == 0xBA and d[2, 0] == 0


B16_DN = [c for c in DN_CASES if c[1] != "f32"]


def odd_dn_golden(x, vc, fp4, nv):
    """Per column c < vc the group golden; the bytes a5 stores for the column pair that
    holds the last valid column, computed column by column: (e8m0[g, c], scaling bits
    [g, c], codes[r, c]) with column vc coded as +0."""
    rows = x.shape[0]
    xf = x.astype(np.float64)
    e = np.zeros((rows // 32, vc), np.int64)
    bits = np.zeros((rows // 32, vc), np.int64)
    codes = np.zeros((rows, vc + 1), np.int64)
    for g in range(rows // 32):
        for c in range(vc):
            e[g, c], bits[g, c], cs = group_golden(xf[32 * g:32 * g + 32, c], fp4, nv, True)
            codes[32 * g:32 * g + 32, c] = cs
    return e, bits, codes


@pytest.mark.parametrize("qt,st,alg", B16_DN)
@pytest.mark.parametrize("vc", [1, 33, 129, 191])
def test_dn_b16_odd_valid_cols(qt, st, alg, vc):
    """DN from bf16 / f16 with an odd number of valid columns: every valid column as
    usual, and the pair holding the last one stored whole - column vc gets the code of
    +0 (MXFP8: byte 0x00 at dst[r, vc]; MXFP4: the high nibble of byte vc // 2 is 0);
    nothing further. exp / max / scaling: exactly the valid columns."""
    m = mk()
    rows, cols = 64, 192
    fp4, nv = qt == "MXFP4_E2M1", alg == "NV"
    x = sample(st, (rows, cols), vc + len(st) + 3 * len(alg))
    x[5, vc - 1] = -np.inf
    x[:, vc:] = 3                                   # padding columns (zeroed by a5 first)
    src, dst, exp, mx, sc = run_dn(m, qt, st, alg, x, (rows, vc))
    e, bits, codes = odd_dn_golden(x, vc, fp4, nv)
    got_e = raw(m, exp).reshape(2, cols)
    np.testing.assert_array_equal(got_e[:, :vc], e)
    assert (got_e[:, vc:] == SENTINEL).all()
    sbits = raw(m, sc).view(np.uint16).reshape(2, cols)
    np.testing.assert_array_equal(sbits[:, :vc], bits)
    assert (raw(m, sc).reshape(2, cols, 2)[:, vc:] == SENTINEL).all()
    assert (raw(m, mx).reshape(2, cols, 2)[:, vc:] == SENTINEL).all()
    d = raw(m, dst).reshape(rows, -1)
    if fp4:
        nb = (vc + 1) // 2
        np.testing.assert_array_equal(d[:, :nb], codes[:, 0:vc + 1:2] + 16 * codes[:, 1::2])
        assert (d[:, nb - 1] >> 4 == 0).all()
        assert (d[:, nb:] == SENTINEL).all()
    else:
        np.testing.assert_array_equal(d[:, :vc + 1], codes)
        assert (d[:, vc] == 0).all()
        assert (d[:, vc + 1:] == SENTINEL).all()


def test_dn_odd_cols_worked_example():
    """By hand, DN MXFP8 bf16 OCP, one valid column: max 3.0 -> e8m0 120, scaling bf16
    0x4300 (128); rows 0 / 1 (3.0, -0.5) give 0x7C / 0xE8 (384 and -64); dst[:, 1] = 0x00."""
    m = mk()
    x = np.zeros((32, 32), ml_dtypes.bfloat16)
    x[0, 0], x[1, 0] = 3.0, -0.5
    x[:, 1:] = 9
    src, dst, exp, mx, sc = run_dn(m, "MXFP8", "bf16", "OCP", x, (32, 1))
    assert raw(m, exp)[0] == 120 and raw(m, exp)[1] == SENTINEL
    assert raw(m, sc).view(np.uint16)[0] == 0x4300
    d = raw(m, dst).reshape(32, 32)
    assert d[0, 0] == 0x7C and d[1, 0] == 0xE8 and (d[2:, 0] == 0).all()
    assert (d[:, 1] == 0).all() and (d[:, 2:] == SENTINEL).all()


# --- ND: MXFP4 NV, b16 padding columns, 2-D exp tiles ------------------------------------
def run_nd(m, qt, st, alg, x, valid, exp_shape, n_max=None):
    rows, cols = x.shape
    fp4 = qt == "MXFP4_E2M1"
    src = m.tile("Vec", st, rows, cols, valid=valid)
    put(m, src, x)
    dst = blank(m, "f4E2M1x2" if fp4 else "f8E4M3FN", rows, cols // 2 if fp4 else cols)
    exp = blank(m, "f8E8M0FNU", *exp_shape)
    n = n_max or rows * cols // 32
    mx = blank(m, st, 1, n)
    sc = blank(m, st, 1, n)
    m.TQUANT(dst, src, exp, mx, sc, quant_type=qt, scale_alg=alg)
    return src, dst, exp, mx, sc


def test_mxfp4_nv_flat_reads_f16_max_as_bf16():
    """a5's flat MXFP4 path: the NV reducer keeps an f16 max as raw f16 bits, then the OCP
    e2m1 extraction reads those bits as bf16 (exponent field bits 7..14). bf16 sources
    match OCP exactly."""
    m = mk()
    x = sample("f16", (2, 64), 12)
    x[0, :32] = 3.0                    # f16 0x4200: as bf16 bits exponent field 0x84 = 132
    src, dst, exp, mx, sc = run_nd(m, "MXFP4_E2M1", "f16", "NV", x, (2, 64), (1, 4))
    got_e = raw(m, exp)[:4]
    mbits = raw(m, mx).view(np.uint16)[:4]
    for g in range(4):
        b = x.reshape(4, 32)[g]
        hbits = np.abs(b).max().view(np.uint16)
        assert mbits[g] == hbits
        as_bf16 = float(np.array([hbits], np.uint16).view(ml_dtypes.bfloat16)[0])
        e = ocp_exp(as_bf16, 2)
        assert got_e[g] == e
        s = 2.0 ** (127 - e)
        codes = [e2m1_code(float(v) * s) for v in b.astype(np.float64)]
        d = raw(m, dst)[16 * g:16 * g + 16]
        np.testing.assert_array_equal(d, np.array(codes[0::2]) | (np.array(codes[1::2]) << 4))
    assert got_e[0] == 132 - 2
    mb, mo = mk(), mk()
    xb = sample("bf16", (2, 64), 13)
    tb = run_nd(mb, "MXFP4_E2M1", "bf16", "NV", xb, (2, 64), (1, 4))
    to = run_nd(mo, "MXFP4_E2M1", "bf16", "OCP", xb, (2, 64), (1, 4))
    for a, b in zip(tb[1:], to[1:]):
        np.testing.assert_array_equal(raw(mb, a), raw(mo, b))


def nd_golden(xrow_groups, fp4, nv, b16):
    return [group_golden(g, fp4, nv, b16) for g in xrow_groups]


@pytest.mark.parametrize("st,alg,cols", [("bf16", "NV", 64), ("f16", "OCP", 96),
                                         ("f16", "OCP", 512), ("bf16", "OCP", 512)])
def test_mxfp8_b16_padding_columns_flat_exp(st, alg, cols):
    """b16 MXFP8 with padding columns and a 1-row exp: src's padding is zeroed, then the
    flat stream of whole rows (exp, scaling, dst for every group) - except OCP with
    cols % 512 == 0, where a5 writes exp, scaling and dst only for the valid groups and
    columns of each row (at r * cols/32 + g); max gets every group either way."""
    m = mk()
    rows, vc = 2, cols - 40
    x = sample(st, (rows, cols), cols)
    x[:, vc:] = 9
    src, dst, exp, mx, sc = run_nd(m, "MXFP8", st, alg, x, (rows, vc), (1, rows * cols // 32))
    xz = x.astype(np.float64)
    xz[:, vc:] = 0
    cpr, gv = cols // 32, -(-vc // 32)
    split = alg == "OCP" and cols % 512 == 0
    got_e, d = raw(m, exp), raw(m, dst).reshape(rows, cols)
    sbits = raw(m, sc).view(np.uint16)
    for r in range(rows):
        for g in range(cpr):
            e, bits, codes = group_golden(xz[r, 32 * g:32 * g + 32], False, alg == "NV", True)
            i = r * cpr + g
            if split and g >= gv:
                assert got_e[i] == SENTINEL and sbits[i] == 0x5A5A
                assert (d[r, 32 * g:32 * g + 32] == SENTINEL).all()
                continue
            assert got_e[i] == e and sbits[i] == bits
            n = min(32, vc - 32 * g) if split else 32
            np.testing.assert_array_equal(d[r, 32 * g:32 * g + n], codes[:n])
            if n < 32:
                assert (d[r, 32 * g + n:32 * g + 32] == SENTINEL).all()
    assert (raw(m, mx).view(np.uint16)[:rows * cpr] != 0x5A5A).all()
    got_src = m.read(src.ptr, rows * cols).reshape(rows, cols).astype(np.float64)
    assert (got_src[:, vc:] == 0).all()


def test_zero_pad_covers_whole_vectors():
    """With src cols dividing a 256-byte vector, a5's pad mask repeats across each store:
    the padding columns of rows past the valid ones, up to the vector's end, are zeroed too."""
    m = mk()
    x = np.full((8, 32), 3.0, np.float16)
    src, *_ = run_nd(m, "MXFP8", "f16", "OCP", x, (1, 20), (1, 8))
    got = m.read(src.ptr, 8 * 32).reshape(8, 32).astype(np.float64)
    assert (got[:4, 20:] == 0).all()                      # rows 0..3: one 128-element store
    assert (got[4:, 20:] == 3).all() and (got[:, :20] == 3).all()


@pytest.mark.parametrize("qt,st,alg", [("MXFP8", "bf16", "OCP"), ("MXFP8", "f16", "NV"),
                                       ("MXFP4_E2M1", "f16", "OCP"),
                                       ("MXFP4_E2M1", "bf16", "NV"),
                                       ("MXFP4_E2M1", "f16", "NV")])
def test_b16_2d_exp_packed(qt, st, alg):
    """A 2-D exp tile with a b16 source: per row ceil(valid cols / 32) groups; exp[r, g];
    max and scaling packed at r * groups-per-row + g (NV is the real NV recipe here,
    MXFP4 included); dst gets whole groups. Scratch left behind: the packed maxima padded
    to 16 with the last row's maxima, and each row's scaling copied to the start of max
    (8 groups at a time), so max[0:k] ends as the last window's scaling."""
    m = mk()
    rows, cols, vc = 3, 128, 70
    fp4, nv = qt == "MXFP4_E2M1", alg == "NV"
    x = sample(st, (rows, cols), 17)
    x[1, 2] = np.nan
    x[:, vc:] = 11
    src, dst, exp, mx, sc = run_nd(m, qt, st, alg, x, (rows, vc), (4, 32), n_max=32)
    gv = 3
    xz = x.astype(np.float64)
    xz[:, vc:] = 0
    got_e = raw(m, exp).reshape(4, 32)
    sbits = raw(m, sc).view(np.uint16)
    mbits = raw(m, mx).view(np.uint16)
    d = raw(m, dst).reshape(rows, -1)
    maxima = []
    for r in range(rows):
        for g in range(gv):
            b = xz[r, 32 * g:32 * g + 32]
            e, bits, codes = group_golden(b, fp4, nv, True)
            assert got_e[r, g] == e, (r, g)
            assert sbits[r * gv + g] == bits
            if fp4:
                got = d[r, 16 * g:16 * g + 16]
                np.testing.assert_array_equal(
                    got, np.array(codes[0::2]) | (np.array(codes[1::2]) << 4))
            else:
                np.testing.assert_array_equal(d[r, 32 * g:32 * g + 32], codes)
            raw_b = x[r, 32 * g:32 * g + 32].copy()
            raw_b[max(vc - 32 * g, 0):] = 0
            if st == "f16" and nv:
                maxima.append(np.abs(raw_b).max().view(np.uint16))
            elif np.isnan(raw_b.astype(np.float64)).any():
                maxima.append(None)
            else:
                a = np.abs(raw_b.astype(np.float32)).max()
                maxima.append(a.view(np.uint32) >> 16)
    assert (got_e[:rows, gv:] == SENTINEL).all() and (got_e[rows:] == SENTINEL).all()
    width = gv * 16 if fp4 else gv * 32
    assert (d[:, width:] == SENTINEL).all()
    # scratch: max[0:3] = last row's scaling (one window of 3 groups); 3..8 maxima;
    # 9..15 = the last row's maxima (3 lanes), then zero lanes
    np.testing.assert_array_equal(mbits[:gv], sbits[(rows - 1) * gv:rows * gv])
    for i in range(gv, rows * gv):
        if maxima[i] is not None:
            assert mbits[i] == maxima[i], i
    pad = mbits[rows * gv:16]
    np.testing.assert_array_equal(pad[:gv], maxima[(rows - 1) * gv:rows * gv])
    assert (pad[gv:] == 0).all() and (mbits[16:] == 0x5A5A).all()


def test_mxfp8_b16_2d_small_tile_scratch_in_exp():
    """MXFP8 from b16 with a 2-D exp and fewer than 8 groups in all: a5 stages each row's
    scaling in that row of exp from byte 16 (little-endian bf16 bits), and leaves it."""
    m = mk()
    x = sample("bf16", (2, 64), 21)
    src, dst, exp, mx, sc = run_nd(m, "MXFP8", "bf16", "OCP", x, (2, 64), (2, 32), n_max=16)
    e = raw(m, exp).reshape(2, 32)
    sbits = raw(m, sc).view(np.uint16)[:4]
    for r in range(2):
        np.testing.assert_array_equal(e[r, 16:20].view(np.uint16), sbits[2 * r:2 * r + 2])
        assert (e[r, 2:16] == SENTINEL).all() and (e[r, 20:] == SENTINEL).all()


def test_mx_forms_rules():
    m = mk()
    f = m.tile("Vec", "f32", 2, 64)

    def dn(s=None, ex=None, mx=None, sc=None, **kw):
        s = s or m.tile("Vec", "f32", 64, 64)
        d = m.tile("Vec", "f8E4M3FN", s.rows, s.cols)
        ex = ex or m.tile("Vec", "ui8", 2, 64)
        m.TQUANT(d, s, ex, mx or f, sc or f, grp_axis=0, **kw)

    with pytest.raises(VerifyError, match=r"src's rows \(48\) must be a multiple of 32 for "
                                          r"grp_axis=0 \(DN\)"):
        dn(s=m.tile("Vec", "f32", 48, 64))
    with pytest.raises(VerifyError, match=r"exp holds 64 bytes but DN group g of column c goes "
                                          r"to byte g \* 64 \+ c: 128 needed"):
        dn(ex=m.tile("Vec", "ui8", 1, 64))
    with pytest.raises(VerifyError, match="max holds 64 values but DN group g of column c "
                                          "goes to"):
        dn(mx=m.tile("Vec", "f32", 1, 64))
    with pytest.raises(VerifyError, match="scaling holds 64 values"):
        dn(sc=m.tile("Vec", "f32", 1, 64))
    b = m.tile("Vec", "bf16", 64, 64, valid=(64, 33))
    with pytest.raises(VerifyError, match=r"max holds 96 values but DN group g of column c "
                                          r"goes to g \* 64 \+ c: 97 needed"):
        dn(s=b, mx=m.tile("Vec", "bf16", 1, 96), sc=m.tile("Vec", "bf16", 2, 64))
    with pytest.raises(VerifyError, match="interleave needs src's rows and valid rows to be "
                                          "multiples of 64, got 96 and 96"):
        dn(s=m.tile("Vec", "f32", 96, 64), ex=m.tile("Vec", "ui8", 2, 128),
           mx=m.tile("Vec", "f32", 3, 64), sc=m.tile("Vec", "f32", 3, 64), interleave=True)
    with pytest.raises(VerifyError, match=r"interleave needs .* got 64 and 32"):
        dn(s=m.tile("Vec", "f32", 64, 64, valid=(32, 64)), ex=m.tile("Vec", "ui8", 1, 128),
           interleave=True)
    with pytest.raises(VerifyError, match=r"interleaved exp is 2x64 but must be 1x128 "
                                          r"\(ceil\(rows/64\) x align32\(2\*cols\)\)"):
        dn(interleave=True)
    with pytest.raises(VerifyError, match="interleaved exp's valid region is 1x128 but must "
                                          "be 1x80"):
        dn(s=m.tile("Vec", "f32", 64, 64, valid=(64, 40)), ex=m.tile("Vec", "ui8", 1, 128),
           interleave=True)
    with pytest.raises(PtoValueError, match=r"interleave \(the paired exponent layout\) "
                                            r"needs grp_axis=0"):
        m.TQUANT(m.tile("Vec", "i8", 2, 64), f, m.tile("Vec", "ui8", 1, 32), f, f,
                 interleave=True)
    with pytest.raises(PtoValueError, match="interleave must be True or False, got 1"):
        dn(interleave=1)
    h = m.tile("Vec", "f16", 3, 128, valid=(3, 70))
    with pytest.raises(VerifyError, match="max holds 9 values but a5's packed maxima of 9 "
                                          "groups are padded to 16"):
        m.TQUANT(m.tile("Vec", "i8", 3, 128), h, m.tile("Vec", "ui8", 4, 32),
                 m.tile("Vec", "f16", 1, 9), m.tile("Vec", "f16", 1, 16))
