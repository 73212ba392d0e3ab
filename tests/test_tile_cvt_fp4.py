"""TCVT between bf16 and the packed FP4 pair types (a5). Goldens are written here without
the engine: codes found by searching the 16 FP4 values for the nearest / directed
neighbour, values decoded by the format's formula (E2M1 also by ml_dtypes' float4_e2m1fn,
which is exactly OCP FP4); footprints follow pto-isa's a5 castBf16toFp4 / castFp4toBf16
loops; shapes are the a5 ST list (tests/npu/a5/src/st/testcase/tcvt)."""

import ml_dtypes
import numpy as np
import pytest

import ptosim
from conftest import POISON, raw
from ptosim import VerifyError
from ptosim.dtypes import pack_nibbles, unpack_nibbles
from ptosim.errors import DtypeError
from ptosim.isa import convert
from ptosim.kernel import Kernel
from ptosim.tile.vector import fp4_row_extent

BF16 = ml_dtypes.bfloat16
FP4 = ("f4E2M1x2", "f4E1M2x2")


def fp4_values(fmt):
    """The 16 code values by formula: sign bit 3, bias 1, E2M1 = 1 mantissa bit."""
    e_bits, m_bits = (2, 1) if fmt == "f4E2M1x2" else (1, 2)
    out = []
    for code in range(16):
        mag = code & 7
        e, mant = mag >> m_bits, mag & ((1 << m_bits) - 1)
        v = mant / (1 << m_bits) if e == 0 else 2.0 ** (e - 1) * (1 + mant / (1 << m_bits))
        out.append(-v if code & 8 else v)
    return np.array(out)


def golden_codes(x, fmt, mode):
    """Search the eight magnitudes: nearest (ties: even code for RINT, larger for ROUND)
    or the directed neighbour; saturate to the largest; NaN -> +0; the sign stays."""
    mags = fp4_values(fmt)[:8]
    with np.errstate(invalid="ignore"):     # signalling NaN patterns
        v = np.asarray(x, np.float64).ravel()
    sign = np.where(np.signbit(v), 8, 0)
    a = np.minimum(np.abs(v), mags[-1])
    a = np.where(np.isnan(v), 0.0, a)
    dist = np.abs(mags[None, :] - a[:, None])
    best = dist.min(axis=1, keepdims=True)
    near = dist == best
    lo = np.where(mags[None, :] <= a[:, None], np.arange(8), -1).max(axis=1)
    hi = np.where(mags[None, :] >= a[:, None], np.arange(8), 99).min(axis=1)
    neg = sign == 8
    if mode == "RINT":
        k = np.where(near & (np.arange(8) % 2 == 0), np.arange(8), 99).min(axis=1)
        k = np.where(near.sum(axis=1) == 1, near.argmax(axis=1), k)
    elif mode == "ROUND":
        k = np.where(near, np.arange(8), -1).max(axis=1)
    elif mode == "TRUNC":
        k = lo
    elif mode == "FLOOR":
        k = np.where(neg, hi, lo)
    else:                                    # CEIL
        k = np.where(neg, lo, hi)
    code = sign | k
    return np.where(np.isnan(v), 0, code).astype(np.uint8).reshape(np.shape(x))


ALL_BF16 = np.arange(1 << 16, dtype=np.uint16).view(BF16)


@pytest.mark.parametrize("fmt", FP4)
@pytest.mark.parametrize("mode", ["RINT", "ROUND", "FLOOR", "CEIL", "TRUNC"])
def test_encode_every_bf16_pattern(fmt, mode):
    rnd = convert.tile_rnd(mode, "bf16", fmt)
    got = convert.fp4_encode(ALL_BF16, "bf16", fmt, rnd=rnd)
    np.testing.assert_array_equal(got, golden_codes(ALL_BF16.astype(np.float32), fmt, mode))


def test_encode_examples():
    x = np.array([0.25, 0.75, 1.75, 2.5, 5.0, 7.0, 1e30, -np.inf, -0.1, -0.0, np.nan],
                 np.float32).astype(BF16)
    # ties go to the even code; past 6 saturates; a tiny negative keeps its sign (-0)
    assert list(convert.fp4_encode(x, "bf16", "f4E2M1x2")) == [0, 2, 4, 4, 6, 7, 7, 15, 8,
                                                               8, 0]
    # E2M1 is OCP FP4: ml_dtypes agrees on every finite input
    fin = ALL_BF16[np.isfinite(ALL_BF16.astype(np.float32))]
    np.testing.assert_array_equal(
        convert.fp4_encode(fin, "bf16", "f4E2M1x2"),
        fin.astype(np.float32).astype(ml_dtypes.float4_e2m1fn).view(np.uint8))


@pytest.mark.parametrize("fmt", FP4)
def test_decode_all_codes(fmt):
    codes = np.arange(16, dtype=np.uint8)
    got = convert.fp4_decode(codes, fmt, "bf16")
    np.testing.assert_array_equal(got.astype(np.float64), fp4_values(fmt))
    assert (np.signbit(got.astype(np.float32)) == (codes >= 8)).all()   # -0 stays -0
    if fmt == "f4E2M1x2":
        np.testing.assert_array_equal(got.astype(np.float32),
                                      codes.view(ml_dtypes.float4_e2m1fn).astype(np.float32))


def test_nibble_order():
    assert list(pack_nibbles(np.array([1, 2, 3], np.uint8))) == [0x21, 0x03]
    assert list(unpack_nibbles(np.array([0x21, 0x03], np.uint8), 3)) == [1, 2, 3]


# --- the tile op ----------------------------------------------------------------------
# a5 ST shapes (rows, bf16 cols, valid rows, valid cols); the FP4 tile has cols / 2 bytes
# (4x32 is left out: its 16-byte FP4 rows break the 32-byte row rule of ND tiles)
SHAPES = [(1, 128, 1, 128), (2, 64, 2, 64), (2, 128, 2, 128),
          (4, 128, 4, 65), (4, 256, 4, 200), (1, 256, 1, 129)]


def ub(m, t):
    return raw(m, "ub")[t.ptr.offset:t.ptr.offset + t.nbytes]


@pytest.mark.parametrize("fmt", FP4)
@pytest.mark.parametrize("rows, cols, vr, vc", SHAPES)
def test_bf16_to_fp4_tile(m, fmt, rows, cols, vr, vc):
    rng = np.random.default_rng(rows * 1000 + vc)
    top = fp4_values(fmt)[7]
    x = rng.uniform(-1.5 * top, 1.5 * top, (rows, cols)).astype(BF16)
    x[0, :4] = [np.nan, np.inf, -np.inf, -0.0]
    s = m.tile("Vec", "bf16", rows, cols, valid=(vr, vc))
    d = m.tile("Vec", fmt, rows, cols // 2, valid=(vr, (vc + 1) // 2))
    m.write(s.ptr, x.ravel())
    m.TCVT(d, s)
    want = np.full((rows, cols // 2), POISON, np.uint8)
    want[:vr] = 0                              # the valid rows are zeroed whole first
    codes = golden_codes(x[:vr, :vc].astype(np.float64), fmt, "RINT")
    for j in range(vc // 2):                   # complete pairs only; low nibble first
        want[:vr, j] = codes[:, 2 * j] | (codes[:, 2 * j + 1] << 4)
    np.testing.assert_array_equal(ub(m, d).reshape(rows, -1), want)


@pytest.mark.parametrize("fmt", FP4)
@pytest.mark.parametrize("rows, cols, vr, vc", SHAPES)
def test_fp4_to_bf16_tile(m, fmt, rows, cols, vr, vc):
    rng = np.random.default_rng(rows * 7 + vc)
    b = rng.integers(0, 256, (rows, cols // 2), dtype=np.uint8)
    s = m.tile("Vec", fmt, rows, cols // 2, valid=(vr, (vc + 1) // 2))
    d = m.tile("Vec", "bf16", rows, cols, valid=(vr, vc))
    m.write(s.ptr, b.ravel())
    m.TCVT(d, s)
    vals = fp4_values(fmt)
    got = ub(m, d).view(np.uint16).reshape(rows, cols)
    for r in range(rows):
        for c in range(cols):
            if r < vr and c < vc:
                nib = (b[r, c // 2] >> (4 * (c % 2))) & 15
                assert got[r, c].view(BF16).astype(np.float64) == vals[nib]
                assert bool(got[r, c] >> 15) == bool(nib & 8)
            else:
                assert got[r, c] == 0xCDCD


def test_fp4_to_bf16_long_rows_overrun_like_a5(m):
    # 300 valid columns: the a5 loop's second pass stores 128 + 44 lanes past column 256
    assert [fp4_row_extent(n) for n in (256, 257, 300, 384, 512, 513, 700)] == \
        [256, 385, 428, 512, 512, 768, 768]
    b = np.random.default_rng(3).integers(0, 256, (2, 256), dtype=np.uint8)
    s = m.tile("Vec", "f4E2M1x2", 2, 256, valid=(2, 150))
    d = m.tile("Vec", "bf16", 2, 512, valid=(2, 300))
    m.write(s.ptr, b.ravel())
    m.TCVT(d, s)
    got = ub(m, d).view(np.uint16).reshape(2, 512)
    vals = fp4_values("f4E2M1x2")
    nib = np.stack([b & 15, b >> 4], axis=-1).reshape(2, 512)
    np.testing.assert_array_equal(got[:, :428].view(BF16).astype(np.float64),
                                  vals[nib[:, :428]])
    assert (got[:, 428:] == 0xCDCD).all()


def test_fp4_to_bf16_overrun_reaches_the_next_row(m):
    b = np.random.default_rng(4).integers(0, 256, (4, 160), dtype=np.uint8)
    s = m.tile("Vec", "f4E1M2x2", 4, 160, valid=(2, 150))
    d = m.tile("Vec", "bf16", 4, 304, valid=(2, 300))
    m.write(s.ptr, b.ravel())
    m.TCVT(d, s)
    flat = np.full(4 * 304, 0xCDCD, np.uint16)
    nib = np.stack([b & 15, b >> 4], axis=-1).ravel()
    vals = fp4_values("f4E1M2x2").astype(np.float32).astype(BF16).view(np.uint16)
    for r in range(2):                         # row by row, 428 columns each
        flat[r * 304:r * 304 + 428] = vals[nib[r * 320:r * 320 + 428]]
    np.testing.assert_array_equal(ub(m, d).view(np.uint16), flat)


def test_round_sat_and_odd(m):
    x = np.array([[2.5, -2.5, 0.2, -0.2, 7.0, -7.0, 1.25, 100.0] * 2], np.float32)
    s = m.tile("Vec", "bf16", 1, 16)
    d = m.tile("Vec", "f4E2M1x2", 1, 32, valid=(1, 8))
    m.write(s.ptr, x.astype(BF16).ravel())
    for mode in ("RINT", "CAST_ROUND", "FLOOR", "CEIL", "TRUNC", "ODD", "NONE"):
        for sat in (None, "ON", "OFF"):        # no CTRL bit and no sat form: same bytes
            kw = {} if sat is None else {"sat_mode": sat}
            m.TCVT(d, s, round_mode=mode, **kw)
            name = {"CAST_ROUND": "ROUND", "ODD": "RINT", "NONE": "RINT"}.get(mode, mode)
            want = pack_nibbles(golden_codes(x[0], "f4E2M1x2", name))
            np.testing.assert_array_equal(m.read_tile(d)[0], want)


def test_fp4_rules():
    m = ptosim.Machine(target="a5")
    s, d = m.tile("Vec", "bf16", 2, 128, valid=(2, 65)), m.tile("Vec", "f4E2M1x2", 2, 64)
    with pytest.raises(VerifyError, match=r"^TCVT: dst's valid region 2x64 \(packed pairs\) "
                                          r"must be 2x33 for src's 2x65 bf16 elements"):
        m.TCVT(d, s)
    with pytest.raises(VerifyError, match=r"^TCVT: src's valid region 2x64 \(packed pairs\) "
                                          r"must be 2x33 for dst's 2x65 bf16"):
        m.TCVT(s, d)
    f = m.tile("Vec", "f32", 2, 64)
    with pytest.raises(DtypeError, match=r"^TCVT: f32 -> f4E2M1x2 is not a TCVT pair on a5"):
        m.TCVT(d, f)
    with pytest.raises(DtypeError, match=r"^TCVT: f4E1M2x2 -> f32 is not a TCVT pair on a5; "
                                         r"f4E1M2x2 converts to bf16$"):
        m.TCVT(f, m.tile("Vec", "f4E1M2x2", 2, 64))
    big = m.tile("Vec", "bf16", 1, 384, valid=(1, 300))
    with pytest.raises(VerifyError, match=r"^TCVT: a 300-column row makes the a5 FP4 -> BF16 "
                                          r"loop store 428 columns per row: row 0 would "
                                          r"write past dst's 1x384 tile"):
        m.TCVT(big, m.tile("Vec", "f4E2M1x2", 1, 256, valid=(1, 150)))
    with pytest.raises(VerifyError, match=r"^TCVT: a 300-column row makes the a5 FP4 -> BF16 "
                                          r"loop decode 428 nibbles per row: row 0 would "
                                          r"read past src's 1x160 bytes"):
        m.TCVT(m.tile("Vec", "bf16", 1, 512, valid=(1, 300)),
               m.tile("Vec", "f4E2M1x2", 1, 160, valid=(1, 150)))


def test_fp4_not_on_a2a3():
    m = ptosim.Machine(target="a2a3")
    with pytest.raises(ptosim.PtoError, match="f4E2M1x2"):
        m.TCVT(m.tile("Vec", "f4E2M1x2", 2, 64), m.tile("Vec", "bf16", 2, 128))


TEXT = """
module {
  func.func @k(%x: !pto.ptr<bf16>, %o: !pto.ptr<!pto.f4E2M1x2>, %y: !pto.ptr<bf16>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %xv = pto.make_tensor_view %x, shape = [%c4, %c128], strides = [%c128, %c1]
      : !pto.tensor_view<4x128xbf16>
    %ov = pto.make_tensor_view %o, shape = [%c4, %c64], strides = [%c64, %c1]
      : !pto.tensor_view<4x64x!pto.f4E2M1x2>
    %yv = pto.make_tensor_view %y, shape = [%c4, %c128], strides = [%c128, %c1]
      : !pto.tensor_view<4x128xbf16>
    %xp = pto.partition_view %xv, offsets = [%c0, %c0], sizes = [%c4, %c128]
      : !pto.tensor_view<4x128xbf16> -> !pto.partition_tensor_view<4x128xbf16>
    %op = pto.partition_view %ov, offsets = [%c0, %c0], sizes = [%c4, %c64]
      : !pto.tensor_view<4x64x!pto.f4E2M1x2> -> !pto.partition_tensor_view<4x64x!pto.f4E2M1x2>
    %yp = pto.partition_view %yv, offsets = [%c0, %c0], sizes = [%c4, %c128]
      : !pto.tensor_view<4x128xbf16> -> !pto.partition_tensor_view<4x128xbf16>
    pto.section.vector {
      %s = pto.alloc_tile : !pto.tile_buf<vec, 4x128xbf16>
      %d = pto.alloc_tile : !pto.tile_buf<vec, 4x64x!pto.f4E2M1x2>
      %b = pto.alloc_tile : !pto.tile_buf<vec, 4x128xbf16>
      pto.tload ins(%xp : !pto.partition_tensor_view<4x128xbf16>)
                outs(%s : !pto.tile_buf<vec, 4x128xbf16>)
      pto.tcvt ins(%s {rmode = #pto<round_mode FLOOR>} : !pto.tile_buf<vec, 4x128xbf16>)
               outs(%d : !pto.tile_buf<vec, 4x64x!pto.f4E2M1x2>)
      pto.tcvt ins(%d : !pto.tile_buf<vec, 4x64x!pto.f4E2M1x2>)
               outs(%b : !pto.tile_buf<vec, 4x128xbf16>)
      pto.tstore ins(%d : !pto.tile_buf<vec, 4x64x!pto.f4E2M1x2>)
                 outs(%op : !pto.partition_tensor_view<4x64x!pto.f4E2M1x2>)
      pto.tstore ins(%b : !pto.tile_buf<vec, 4x128xbf16>)
                 outs(%yp : !pto.partition_tensor_view<4x128xbf16>)
    }
    return
  }
}
"""


def test_text_form_round_trip():
    x = np.random.default_rng(5).uniform(-9, 9, (4, 128)).astype(BF16)
    res = Kernel.from_text(TEXT).run({"x": x, "o": np.zeros((4, 64), np.uint8),
                                      "y": np.zeros((4, 128), BF16)}, target="a5")
    codes = golden_codes(x.astype(np.float64), "f4E2M1x2", "FLOOR")
    np.testing.assert_array_equal(res.outputs["o"].reshape(4, 64), pack_nibbles(codes))
    np.testing.assert_array_equal(res.outputs["y"].view(BF16).reshape(4, 128)
                                  .astype(np.float64), fp4_values("f4E2M1x2")[codes])
