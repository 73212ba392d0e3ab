"""TGEMV_MX / _ACC / _BIAS (a5): the cube's GEMV mode with MX scales. The pipeline follows
pto-isa's a5 ST (`RunTGEMVMX`): the A scales load as one row (a [1, 1, 1, 1, k/32] ND view
into a one-row Mat ZZ-32 tile, one burst) and TMOV copies them whole into a one-row
ScaleLeft tile at the Left tile's address >> 4; B's scales take TMATMUL_MX's path. The
golden sums group by group in float64 (einsum over [groups, 32] blocks), rounded to f32
once, independent of ptosim's repeat-and-matmul."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import ptosim
from test_tile_mx import codes, gm_view, mat_scale
from tile_helpers import NP, al

E8M0 = ml_dtypes.float8_e8m0fnu


def golden(a: np.ndarray, b: np.ndarray, sa: np.ndarray, sb: np.ndarray) -> np.ndarray:
    """sum_g sum_{k in g} a[k] 2^(sa[g]-127) b[k, j] 2^(sb[g, j]-127), in float64."""
    k, n = b.shape
    groups = -(-k // 32)
    ap = np.zeros(groups * 32)
    ap[:k] = a.astype(np.float64)
    bp = np.zeros((groups * 32, n))
    bp[:k] = b.astype(np.float64)
    ea = 2.0 ** (sa.view(np.uint8)[:groups].astype(np.float64) - 127)
    eb = 2.0 ** (sb.view(np.uint8)[:groups].astype(np.float64) - 127)
    per_group = np.einsum("gk,gkn->gn", ap.reshape(groups, 32), bp.reshape(groups, 32, n))
    return (per_group * ea[:, None] * eb).sum(axis=0)


def operands(m: ptosim.Machine, a_t: str, b_t: str, k: int, n: int, seed: int):
    """Left (1 x align512(k)), Right (align64(k) x align16(n)) and their scale tiles, as
    the ST builds them; returns the tiles and the inputs."""
    rng = np.random.default_rng(seed)
    kp, np_ = al(k, 64), al(n, 16)
    groups = kp // 32
    a = rng.integers(-10, 11, k).astype(NP[a_t])
    b = rng.integers(-10, 11, (k, n)).astype(NP[b_t])
    sa = codes((groups,), seed, 120, 135)
    sb = codes((groups, n), seed + 1, 120, 135)
    ma = m.tile("Mat", a_t, 16, al(k, 512), blayout="ColMajor", slayout="RowMajor",
                valid=(1, k))
    m.TLOAD(ma, m.global_tensor(m.gm(a), shape=(1, 1, 1, 1, k), stride=(0, 0, 0, k, 1)))
    left = m.tile("Left", a_t, 1, al(k, 512), valid=(1, k), addr=0)
    m.TEXTRACT(left, ma, 0, 0)
    mb = m.tile("Mat", b_t, kp, np_, blayout="ColMajor", slayout="RowMajor", valid=(k, n))
    m.TLOAD(mb, m.global_tensor(m.gm(b), shape=(1, 1, 1, k, n), stride=(0, 0, 0, n, 1)))
    right = m.tile("Right", b_t, kp, np_, valid=(kp, n), addr=0)
    m.TMOV(right, mb)
    msa = mat_scale(m, "A", 1, groups, (1, groups))
    m.TLOAD(msa, m.global_tensor(m.gm(sa), shape=(1, 1, 1, 1, groups),
                                 stride=(groups,) * 4 + (1,)))
    msb = mat_scale(m, "B", groups, np_, (groups, n))
    m.TLOAD(msb, gm_view(m, "MX_B_ND", sb, (groups, n), (groups, n)))
    sl = m.tile("ScaleLeft", "e8m0", 1, groups, addr=left.ptr.offset >> 4)
    sr = m.tile("ScaleRight", "e8m0", groups, np_, addr=right.ptr.offset >> 4)
    m.TMOV(sl, msa)
    m.TMOV(sr, msb)
    return left, sl, right, sr, (a, b, sa, sb)


def row0(m: ptosim.Machine, acc: ptosim.Tile, n: int) -> np.ndarray:
    out = m.gm_empty(n, "f32")
    m.TSTORE(m.global_tensor(out, shape=(1, 1, 1, 1, n), stride=(0, 0, 0, n, 1)), acc)
    return m.read(out, n)


# (A, B, k, n): the ST's fp8 GEMV case (e4m3 x e5m2, 1 x 256 x 20) and more shapes,
# k not a multiple of 64 included (n with align16(n) = align32(n): an fp8 NZ Mat tile
# holds 32-column blocks, and ptosim's Right tile must be align16(n) wide)
CASES = [("f8E4M3FN", "f8E5M2", 256, 20), ("f8E5M2", "f8E5M2", 128, 62),
         ("f8E4M3FN", "f8E4M3FN", 100, 50), ("f8E5M2", "f8E4M3FN", 640, 96)]


@pytest.mark.parametrize("a_t, b_t, k, n", CASES)
def test_tgemv_mx(a_t: str, b_t: str, k: int, n: int) -> None:
    m = ptosim.Machine("a5")
    left, sl, right, sr, (a, b, sa, sb) = operands(m, a_t, b_t, k, n, seed=k + n)
    acc = m.tile("Acc", "f32", 16, al(n, 16), valid=(1, n))
    m.TGEMV_MX(acc, left, sl, right, sr)
    want = golden(a, b, sa, sb).astype(np.float32)
    np.testing.assert_array_equal(row0(m, acc, n), want)


def test_mad_mx_gemv_is_the_tile_op() -> None:
    """The micro-op ``mad_mx`` with m = 1 (GEMV on) reads the same plain rows as TGEMV_MX:
    both accumulators get the same row 0 (k a multiple of 64, the micro-op's rule)."""
    m = ptosim.Machine("a5")
    left, sl, right, sr, (a, b, sa, sb) = operands(m, "f8E5M2", "f8E4M3FN", 192, 64, seed=8)
    acc = m.tile("Acc", "f32", 16, 64, valid=(1, 64))
    m.TGEMV_MX(acc, left, sl, right, sr)
    other = m.tile("Acc", "f32", 16, 64, valid=(1, 64))
    m.mad_mx(left.ptr, right.ptr, other.ptr, 1, 64, 192)
    np.testing.assert_array_equal(row0(m, other, 64), row0(m, acc, 64))
    np.testing.assert_array_equal(row0(m, acc, 64), golden(a, b, sa, sb).astype(np.float32))


def test_tgemv_mx_acc_and_bias() -> None:
    """The split-K pattern of the ST (`RunTGEMVMX_SPLIT_K`): the bias form first, then the
    accumulating form; and ACC adds to what acc holds."""
    m = ptosim.Machine("a5")
    left, sl, right, sr, (a, b, sa, sb) = operands(m, "f8E4M3FN", "f8E5M2", 192, 60, seed=4)
    prod = golden(a, b, sa, sb)
    bias = m.tile("Bias", "f32", 1, 64, valid=(1, 60))
    bv = np.arange(64, dtype=np.float32) * 0.5 - 7
    m.write(bias.ptr, bv)
    acc = m.tile("Acc", "f32", 16, 64, valid=(1, 60))
    m.TGEMV_MX_BIAS(acc, left, sl, right, sr, bias)
    first = (prod.astype(np.float32) + bv[:60]).astype(np.float32)
    np.testing.assert_array_equal(row0(m, acc, 60), first)
    m.TGEMV_MX_ACC(acc, left, sl, right, sr)
    np.testing.assert_array_equal(row0(m, acc, 60), first + prod.astype(np.float32))


def test_one_row_scale_tiles_are_plain_rows() -> None:
    """The one-row A scale path moves bytes verbatim: TLOAD writes the scales at bytes
    0..g-1 of the Mat tile; TMOV copies ceil(g/32) 32-byte boxes into ScaleLeft, past the
    end of a shorter tile (a5's load_cbuf_to_ca_mx with rowStep 1)."""
    m = ptosim.Machine("a5")
    s = codes((6,), 3)
    mat = mat_scale(m, "A", 1, 6, (1, 6), addr=0)
    m.write(m.ptr("l1", "ui8", 0), np.full(64, 0xEE, np.uint8))
    m.TLOAD(mat, m.global_tensor(m.gm(s), shape=(1, 1, 1, 1, 6), stride=(6, 6, 6, 6, 1)))
    np.testing.assert_array_equal(m.read(m.ptr("l1", "ui8", 0), 8),
                                  np.r_[s.view(np.uint8), 0xEE, 0xEE])
    np.testing.assert_array_equal(m.read_tile(mat).view(np.uint8), s.view(np.uint8)[None])
    sl = m.tile("ScaleLeft", "e8m0", 1, 6, addr=64)
    m.TMOV(sl, mat)
    np.testing.assert_array_equal(m.read(m.ptr("l0a_mx", "ui8", 64), 32),
                                  np.r_[s.view(np.uint8), [0xEE] * 26])


def test_rules() -> None:
    m = ptosim.Machine("a5")
    left, sl, right, sr, _ = operands(m, "f8E4M3FN", "f8E4M3FN", 128, 32, seed=1)
    acc = m.tile("Acc", "f32", 16, 32, valid=(1, 32))
    with pytest.raises(ptosim.VerifyError, match="TGEMV_MX: GEMV multiplies a one-row left "
                                                 "tile, got a 16x128"):
        m.TGEMV_MX(acc, m.tile("Left", "f8E4M3FN", 16, 128, addr=4096), sl, right, sr)
    with pytest.raises(ptosim.VerifyError, match=r"TGEMV_MX: mad writes one 16-row band of "
                                                 r"align16\(n\) columns: acc must be 16x32"):
        m.TGEMV_MX(m.tile("Acc", "f32", 32, 32), left, sl, right, sr)
    with pytest.raises(ptosim.VerifyError, match=r"TGEMV_MX: k = 128 \(left's valid cols\) "
                                                 r"must be at most right's 64 rows"):
        m.TGEMV_MX(acc, left, sl, m.tile("Right", "f8E4M3FN", 64, 32, addr=8192),
                   m.tile("ScaleRight", "e8m0", 2, 32, addr=512))
    with pytest.raises(ptosim.VerifyError, match="TGEMV_MX: GEMV reads one row of ceil"
                                                 r"\(k / 32\) = 4 left scales: the ScaleLeft "
                                                 "tile must be 1 x at least 4, got 1x2"):
        m.TGEMV_MX(acc, left, m.tile("ScaleLeft", "e8m0", 1, 2, addr=0), right, sr)
    with pytest.raises(ptosim.VerifyError, match="TGEMV_MX: the ScaleRight tile of a 128x32 "
                                                 "Right tile is 4x32, got 2x32"):
        m.TGEMV_MX(acc, left, sl, right, m.tile("ScaleRight", "e8m0", 2, 32, addr=0))
    with pytest.raises(ptosim.VerifyError, match=r"TGEMV_MX: the cube reads Left's scales at "
                                                 r"its address >> 4 = 0; the ScaleLeft tile "
                                                 r"is at 64"):
        m.TGEMV_MX(acc, left, m.tile("ScaleLeft", "e8m0", 1, 4, addr=64), right, sr)
    with pytest.raises(ptosim.SpaceError, match="scale_left must be a ScaleLeft tile"):
        m.TGEMV_MX(acc, left, sr, right, sr)
    with pytest.raises(ptosim.SpaceError, match="bias must be a Bias tile"):
        m.TGEMV_MX_BIAS(acc, left, sl, right, sr, acc)
    with pytest.raises(ptosim.DtypeError, match="TGEMV_MX_BIAS: the bias of an MX matmul is "
                                                "f32, got f16"):
        m.TGEMV_MX_BIAS(acc, left, sl, right, sr, m.tile("Bias", "f16", 1, 32))
    f16l = m.tile("Left", "f16", 1, 128, addr=0)
    with pytest.raises(ptosim.DtypeError, match=r"TGEMV_MX: MX operands are fp8 .* got f16 x "
                                                r"f8E4M3FN -> f32"):
        m.TGEMV_MX(acc, f16l, sl, right, sr)
    with pytest.raises(ptosim.NotImplementedOpError, match="TGEMV_MX_ACC: TGEMV_MX with fp4"):
        m.TGEMV_MX_ACC(acc, m.tile("Left", "f4E2M1x2", 1, 128, addr=0), sl, right, sr)
    narrow = m.tile("Left", "f8E4M3FN", 1, 96, valid=(1, 96), addr=0)
    with pytest.raises(ptosim.VerifyError, match=r"TGEMV_MX: the left tile's cols \(96\) must "
                                                 r"be a multiple of 64"):
        m.TGEMV_MX(acc, narrow, sl, right, sr)


def test_one_row_scale_rules() -> None:
    m = ptosim.Machine("a5")
    mat = mat_scale(m, "A", 1, 8, (1, 8))
    with pytest.raises(ptosim.VerifyError, match=r"TLOAD: a one-row scale tile loads from a "
                                                 r"\[1, 1, 1, 1, k\] view"):
        m.TLOAD(mat, m.global_tensor(m.gm(codes((8,), 1)), shape=(1, 1, 1, 4, 2),
                                     stride=(8, 8, 8, 2, 1), layout="MX_A_ND"))
    with pytest.raises(ptosim.VerifyError, match="TLOAD: the MX_A_DN view is 1x6 but the "
                                                 "tile's valid region is 1x8"):
        m.TLOAD(mat, m.global_tensor(m.gm(codes((6,), 1)), shape=(1, 1, 1, 1, 6),
                                     stride=(6, 6, 6, 6, 1), layout="MX_A_DN"))
    short = mat_scale(m, "A", 1, 8, (1, 6))
    with pytest.raises(ptosim.NotImplementedOpError, match="TLOAD: a one-row scale load with "
                                                           "valid cols < cols"):
        m.TLOAD(short, m.global_tensor(m.gm(codes((6,), 1)), shape=(1, 1, 1, 1, 6),
                                       stride=(6, 6, 6, 6, 1)))
    sl = m.tile("ScaleLeft", "e8m0", 1, 8)
    with pytest.raises(ptosim.NotImplementedOpError, match="TEXTRACT: TEXTRACT of a one-row "
                                                           "scale tile at a non-zero column"):
        m.TEXTRACT(m.tile("ScaleLeft", "e8m0", 1, 4), mat, 0, 2)
    with pytest.raises(ptosim.VerifyError, match="TMOV: Mat -> ScaleLeft needs equal shapes"):
        m.TMOV(m.tile("ScaleLeft", "e8m0", 1, 4), mat)
    m.TMOV(sl, mat)
    with pytest.raises(ptosim.NotImplementedOpError, match="one-row NN-32"):
        m.tile("ScaleRight", "e8m0", 1, 16)
