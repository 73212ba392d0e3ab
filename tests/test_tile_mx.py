"""MX scale tiles (a5): ScaleLeft / ScaleRight descriptors, TLOAD of the MX_* scale views
into Mat ZZ-32 / NN-32 tiles, TMOV / TEXTRACT into the scale tiles and TMATMUL_MX, ported
from the reference suites' tables (tload_mx_*, tmov_mx, tmatmul_mx) and checked against
numpy goldens: scale matrices re-laid out with reshape / transpose, and the scaled product
sum_k A[i,k] B[k,j] 2^(sA[i,k/32]-127) 2^(sB[k/32,j]-127)."""

import ml_dtypes
import numpy as np
import pytest

import ptosim
from tile_helpers import NP, al

E8M0 = ml_dtypes.float8_e8m0fnu


def codes(shape, seed, low=120, high=135):
    return np.random.default_rng(seed).integers(low, high, shape).astype(np.uint8).view(E8M0)


def gm_view(m, layout, s, whole, valid):
    """GM holding the logical scale matrix ``s`` (whole rows x cols) in ``layout``, and the
    5-D view of its top-left ``valid`` corner (the reference suites' stride sets)."""
    (wr, wc), (vr, vc) = whole, valid
    if layout == "MX_A_ND":                      # M x S row-major
        arr, shape, stride = s, (1, 1, vr, vc // 2, 2), (0, 0, wc, 2, 1)
    elif layout == "MX_A_DN":                    # [S/2][M][2]
        arr = s.reshape(wr, wc // 2, 2).transpose(1, 0, 2)
        shape, stride = (1, 1, vc // 2, vr, 2), (0, 0, 2 * wr, 2, 1)
    elif layout == "MX_A_ZZ":                    # [M/16][S/2][16][2]
        arr = s.reshape(wr // 16, 16, wc // 2, 2).transpose(0, 2, 1, 3)
        shape, stride = (1, vr // 16, vc // 2, 16, 2), (0, 16 * wc, 32, 2, 1)
    elif layout == "MX_B_ND":                    # [S/2][N][2]
        arr = s.reshape(wr // 2, 2, wc).transpose(0, 2, 1)
        shape, stride = (1, 1, vr // 2, vc, 2), (0, 0, 2 * wc, 2, 1)
    elif layout == "MX_B_DN":                    # N x S row-major
        arr, shape, stride = s.T, (1, 1, vc, vr // 2, 2), (0, 0, wr, 2, 1)
    else:                                        # MX_B_NN: [N/16][S/2][16][2]
        arr = s.reshape(wr // 2, 2, wc // 16, 16).transpose(2, 0, 3, 1)
        shape, stride = (1, vc // 16, vr // 2, 16, 2), (0, 16 * wr, 32, 2, 1)
    return m.global_tensor(m.gm(np.ascontiguousarray(arr)), shape=shape, stride=stride,
                           layout=layout)


def mat_scale(m, side, rows, cols, valid, **kw):
    bl, sl = ("RowMajor", "RowMajor") if side == "A" else ("ColMajor", "ColMajor")
    return m.tile("Mat", "e8m0", rows, cols, blayout=bl, slayout=sl, fractal=32, valid=valid,
                  **kw)


# (layout, valid, whole GM, L1 tile), from tload_mx_ND_DN / tload_mx_gmtensor
TLOAD_MX_CASES = [
    ("MX_A_ND", (16, 4), (16, 4), (16, 4)), ("MX_A_ND", (16, 64), (16, 64), (32, 158)),
    ("MX_A_ND", (32, 128), (160, 128), (64, 1008)), ("MX_A_ND", (31, 118), (34, 126), (64, 128)),
    ("MX_A_DN", (16, 64), (16, 64), (16, 64)), ("MX_A_DN", (27, 126), (128, 128), (128, 128)),
    ("MX_A_DN", (31, 118), (34, 126), (64, 128)),
    ("MX_B_ND", (4, 64), (4, 64), (4, 64)), ("MX_B_ND", (32, 127), (32, 128), (32, 256)),
    ("MX_B_ND", (116, 34), (130, 60), (128, 64)),
    ("MX_B_DN", (2, 128), (32, 128), (4, 1088)), ("MX_B_DN", (30, 127), (128, 128), (128, 128)),
    ("MX_B_DN", (116, 34), (130, 60), (128, 64)),
    ("MX_A_ZZ", (16, 4), (16, 4), (16, 4)), ("MX_A_ZZ", (80, 66), (176, 80), (128, 96)),
    ("MX_B_NN", (4, 64), (4, 64), (4, 64)), ("MX_B_NN", (58, 1024), (58, 1040), (58, 1088)),
]


@pytest.mark.parametrize("layout, valid, whole, tile", TLOAD_MX_CASES)
def test_tload_mx_reference_cases(layout, valid, whole, tile):
    m = ptosim.Machine(target="a5")
    s = codes(whole, seed=sum(whole))
    t = mat_scale(m, layout[3], *tile, valid)
    m.TLOAD(t, gm_view(m, layout, s, whole, valid))
    np.testing.assert_array_equal(m.read_tile(t).view(np.uint8),
                                  s[:valid[0], :valid[1]].view(np.uint8))


def test_tload_mx_writes_what_the_dma_writes():
    """MX_A_ND goes through dn2nz on byte pairs: each written pair column holds 16 rows
    (zero past the valid rows); pairs past the valid columns stay untouched."""
    m = ptosim.Machine(target="a5", poison=0xAB)
    s = codes((34, 126), seed=5)
    t = mat_scale(m, "A", 64, 128, (31, 118))
    m.TLOAD(t, gm_view(m, "MX_A_ND", s, (34, 126), (31, 118)))
    raw = m.read(t.ptr.cast("ui8"), 64 * 128).reshape(4, 64, 16, 2)   # bands, pairs, rows, 2
    assert (raw[1, :59, 15] == 0).all()               # row 31: the zeroed lane of band 1
    assert (raw[:2, 59:] == 0xAB).all()               # pairs 59.. (cols 118..) untouched
    assert (raw[2:] == 0xAB).all()                    # bands past the valid rows untouched


def test_scale_tiles_and_their_rules():
    m = ptosim.Machine(target="a5")
    sl = m.tile("ScaleLeft", "e8m0", 32, 4)
    sr = m.tile("ScaleRight", "e8m0", 4, 32)
    assert (sl.name, sl.fractal, sl.ptr.space, sr.name, sr.ptr.space) == \
        ("ZZ", 32, "l0a_mx", "NN", "l0b_mx")
    with pytest.raises(ptosim.VerifyError, match="cannot be ZZ with 32 B fractals on a2a3"):
        ptosim.Machine(target="a2a3").tile("ScaleLeft", "e8m0", 32, 4)
    with pytest.raises(ptosim.VerifyError, match="fractal-32 \\(MX scale\\) tiles hold "
                                                 "f8E8M0FNU \\(e8m0\\), got ui8"):
        m.tile("ScaleLeft", "ui8", 32, 4)
    with pytest.raises(ptosim.NotImplementedOpError, match="one-row NN-32 \\(B scale\\) "
                                                           "tiles are not implemented"):
        m.tile("ScaleRight", "e8m0", 1, 16)
    assert m.tile("ScaleLeft", "e8m0", 1, 4).layout.offsets().tolist() == [[0, 1, 2, 3]]
    with pytest.raises(ptosim.VerifyError, match="a 8192 B ScaleLeft tile at byte 0 must be "
                                                 "32-byte aligned and fit the 4096 B l0a_mx"):
        m.tile("ScaleLeft", "e8m0", 256, 32, addr=0)


@pytest.mark.parametrize("layout, message", [
    ("MX_A_ND", "scales move in pairs along K: the valid cols \\(5\\) must be even"),
    ("ND", "MX scale views load into Mat ZZ-32 \\(MX_A_\\*\\) or NN-32 \\(MX_B_\\*\\) tiles; got "
           "a ND view and a Mat NN-32 tile"),
])
def test_tload_mx_rules(layout, message):
    m = ptosim.Machine(target="a5")
    s = codes((16, 6), seed=1)
    if layout == "ND":
        t = mat_scale(m, "B", 16, 16, (16, 6))
        g = m.global_tensor(m.gm(s), shape=(1, 1, 1, 16, 6), stride=(0, 0, 0, 6, 1))
    else:
        t = mat_scale(m, "A", 16, 6, (16, 5))
        g = m.global_tensor(m.gm(s), shape=(1, 1, 16, 5, 1), stride=(0, 0, 6, 1, 1),
                            layout="MX_A_ND")
    with pytest.raises(ptosim.VerifyError, match="TLOAD: " + message):
        m.TLOAD(t, g)


def test_tload_mx_boxed_view_needs_packed_boxes():
    m = ptosim.Machine(target="a5")
    g = m.global_tensor(m.gm(codes((16, 4), 2)), shape=(1, 1, 2, 16, 2),
                        stride=(0, 64, 64, 2, 1), layout="MX_A_ZZ")
    with pytest.raises(ptosim.VerifyError, match="a MX_A_ZZ view has s3 = 16, s4 = 2 and "
                                                 "packed boxes"):
        m.TLOAD(mat_scale(m, "A", 16, 4, (16, 4)), g)


def test_tmov_and_textract_into_scale_tiles():
    m = ptosim.Machine(target="a5")
    s, sb = codes((32, 8), 3), codes((8, 32), 4)
    a = mat_scale(m, "A", 32, 8, (32, 8))
    m.TLOAD(a, gm_view(m, "MX_A_ND", s, (32, 8), (32, 8)))
    b = mat_scale(m, "B", 8, 32, (8, 32))
    m.TLOAD(b, gm_view(m, "MX_B_ND", sb, (8, 32), (8, 32)))
    sl, sr = m.tile("ScaleLeft", "e8m0", 32, 8), m.tile("ScaleRight", "e8m0", 8, 32)
    m.TMOV(sl, a)
    m.TMOV(sr, b)
    np.testing.assert_array_equal(m.read(sl.ptr.cast("ui8"), 256), m.read(a.ptr.cast("ui8"), 256))
    np.testing.assert_array_equal(m.read_tile(sr).view(np.uint8), sb.view(np.uint8))
    win = m.tile("ScaleLeft", "e8m0", 16, 4, addr=1024)
    m.TEXTRACT(win, a, 16, 2)
    np.testing.assert_array_equal(m.read_tile(win).view(np.uint8), s[16:, 2:6].view(np.uint8))
    with pytest.raises(ptosim.VerifyError, match="TEXTRACT: the window must start on a box: "
                                                 "row 8 a multiple of 16, column 2 of 2"):
        m.TEXTRACT(win, a, 8, 2)
    with pytest.raises(ptosim.VerifyError, match="TMOV: a ScaleRight tile comes from a Mat "
                                                 "NN-32 tile of f8E8M0FNU, got ZZ-32"):
        m.TMOV(m.tile("ScaleRight", "e8m0", 32, 16, addr=2048), mat_scale(m, "A", 32, 16,
                                                                           (32, 16)))


def mx_operands(m, a_t, b_t, M, K, N, seed):
    """The tmatmul_mx pipeline: data through ND -> NZ Mat tiles and TMOV, scales through
    MX_A_ND / MX_B_ND views, Mat ZZ / NN and TMOV; each scale tile at its data tile's
    address >> 4. Returns the tiles and the float64 golden."""
    rng = np.random.default_rng(seed)
    Mp, Kp, Np = al(M, 16), al(K, 64), al(N, 16)
    a = rng.integers(-2, 3, (M, K)).astype(NP[a_t])
    b = rng.integers(-2, 3, (K, N)).astype(NP[b_t])
    groups = Kp // 32
    sa, sb = codes((M, groups), seed, 125, 130), codes((groups, N), seed + 1, 125, 130)
    ma = m.tile("Mat", a_t, Mp, Kp, blayout="ColMajor", slayout="RowMajor", valid=(M, K))
    m.TLOAD(ma, m.global_tensor(m.gm(a), shape=(1, 1, 1, M, K), stride=(0, 0, 0, K, 1)))
    mb = m.tile("Mat", b_t, Kp, Np, blayout="ColMajor", slayout="RowMajor", valid=(K, N))
    m.TLOAD(mb, m.global_tensor(m.gm(b), shape=(1, 1, 1, K, N), stride=(0, 0, 0, N, 1)))
    left = m.tile("Left", a_t, Mp, Kp, valid=(M, K))
    right = m.tile("Right", b_t, Kp, Np, valid=(K, N))
    m.TMOV(left, ma)
    m.TMOV(right, mb)
    msa = mat_scale(m, "A", Mp, groups, (M, groups))
    m.TLOAD(msa, gm_view(m, "MX_A_ND", sa, (M, groups), (M, groups)))
    msb = mat_scale(m, "B", groups, Np, (groups, N))
    m.TLOAD(msb, gm_view(m, "MX_B_ND", sb, (groups, N), (groups, N)))
    sl = m.tile("ScaleLeft", "e8m0", Mp, groups, addr=left.ptr.offset >> 4)
    sr = m.tile("ScaleRight", "e8m0", groups, Np, addr=right.ptr.offset >> 4)
    m.TMOV(sl, msa)
    m.TMOV(sr, msb)
    fa = np.exp2(sa.view(np.uint8).astype(np.float64) - 127)
    fb = np.exp2(sb.view(np.uint8).astype(np.float64) - 127)
    want = (a.astype(np.float64) * np.repeat(fa, 32, axis=1)[:, :K]) @ \
        (b.astype(np.float64) * np.repeat(fb, 32, axis=0)[:K])
    return left, sl, right, sr, want


def store(m, acc, M, N):
    out = m.gm_empty(M * N, "f32")
    m.TSTORE(m.global_tensor(out, shape=(1, 1, 1, M, N), stride=(0, 0, 0, N, 1)), acc)
    return m.read(out, M * N).reshape(M, N)


# tmatmul_mx cases with fp8 operands: (A, B, M, K, N, bias). The suite's 16 x 32 x 16 case
# pads N to 32 in its Right tile, which ptosim refuses (mad reads align16(n) columns).
TMATMUL_MX_CASES = [
    ("f8E5M2", "f8E5M2", 128, 64, 64, False), ("f8E4M3FN", "f8E4M3FN", 127, 72, 64, False),
    ("f8E4M3FN", "f8E5M2", 128, 110, 63, False),
    ("f8E4M3FN", "f8E5M2", 10, 50, 54, False), ("f8E5M2", "f8E4M3FN", 115, 64, 30, True),
    ("f8E4M3FN", "f8E4M3FN", 200, 192, 95, True),
]


@pytest.mark.parametrize("a_t, b_t, M, K, N, with_bias", TMATMUL_MX_CASES)
def test_tmatmul_mx_reference_cases(a_t, b_t, M, K, N, with_bias):
    m = ptosim.Machine(target="a5")
    left, sl, right, sr, want = mx_operands(m, a_t, b_t, M, K, N, seed=M + K + N)
    acc = m.tile("Acc", "f32", left.rows, right.cols, valid=(M, N))
    if with_bias:
        bias = (np.arange(N) % 7 - 3).astype(np.float32)
        mb = m.tile("Mat", "f32", 1, al(N, 16), valid=(1, N))
        m.TLOAD(mb, m.global_tensor(m.gm(bias), shape=(1, 1, 1, 1, N), stride=(0, 0, 0, N, 1)))
        tb = m.tile("Bias", "f32", 1, al(N, 16))
        m.TMOV(tb, mb)
        m.TMATMUL_MX_BIAS(acc, left, sl, right, sr, tb)
        want = want + bias
    else:
        m.TMATMUL_MX(acc, left, sl, right, sr)
    np.testing.assert_array_equal(store(m, acc, M, N), want.astype(np.float32))


def test_tmatmul_mx_acc_accumulates():
    """tmatmul_mx split-K family: the second product adds to the first in acc's storage."""
    m = ptosim.Machine(target="a5")
    left, sl, right, sr, want = mx_operands(m, "f8E4M3FN", "f8E5M2", 64, 64, 64, seed=9)
    acc = m.tile("Acc", "f32", 64, 64)
    m.TMATMUL_MX(acc, left, sl, right, sr)
    m.TMATMUL_MX_ACC(acc, left, sl, right, sr)
    np.testing.assert_array_equal(store(m, acc, 64, 64), (2 * want).astype(np.float32))


def test_tmatmul_mx_rules():
    m = ptosim.Machine(target="a5")
    left, sl, right, sr, _ = mx_operands(m, "f8E4M3FN", "f8E4M3FN", 32, 64, 32, seed=1)
    acc = m.tile("Acc", "f32", 32, 32)
    moved = m.tile("ScaleLeft", "e8m0", 32, 2, addr=sl.ptr.offset + 512)
    with pytest.raises(ptosim.VerifyError, match=f"TMATMUL_MX: the cube reads Left's scales at "
                                                 f"its address >> 4 = {left.ptr.offset >> 4}"):
        m.TMATMUL_MX(acc, left, moved, right, sr)
    narrow = m.tile("ScaleRight", "e8m0", 4, 16, addr=right.ptr.offset >> 4)
    with pytest.raises(ptosim.VerifyError, match="the ScaleRight tile of a 64x32 Right tile is "
                                                 "2x32, got 4x16"):
        m.TMATMUL_MX(acc, left, sl, right, narrow)
    with pytest.raises(ptosim.SpaceError, match="scale_left must be a ScaleLeft tile"):
        m.TMATMUL_MX(acc, left, sr, right, sr)
    f16l = m.tile("Left", "f16", 32, 64)
    f16r = m.tile("Right", "f16", 64, 32)
    with pytest.raises(ptosim.DtypeError, match="MX operands are fp8 \\(e4m3 / e5m2\\) with an "
                                                "f32 accumulator, got f16 x f16 -> f32"):
        m.TMATMUL_MX(acc, f16l, sl, f16r, sr)
    short = m.tile("Left", "f8E4M3FN", 32, 32)
    with pytest.raises(ptosim.VerifyError, match="the left tile's cols \\(32\\) must be a "
                                                 "multiple of 64"):
        m.TMATMUL_MX(m.tile("Acc", "f32", 32, 32), short, sl,
                     m.tile("Right", "f8E4M3FN", 32, 32), sr)
