"""Acc exit paths at tile level (a5 TMOV / TINSERT / TEXTRACT into Vec with the
AccToVecMode modes, TEXTRACT Acc -> Mat), ported from the reference suites' tables
(tmov_acc2vec, tinsert_acc2vec, textract_acc2vec, tmov_acc2mat) and checked against
numpy goldens: the product in the destination type, ReLU, then the destination layout."""

import numpy as np
import pytest

import ptosim
from tile_helpers import NP, al, matmul_to_acc

LAYOUT = {"ND": ("RowMajor", "NoneBox"), "DN": ("ColMajor", "NoneBox"),
          "NZ": ("ColMajor", "RowMajor")}
RELU = (None, "normal_relu")


def acc_of(m, name, M, K, N):
    return matmul_to_acc(m, name, "i32" if name == "i8" else "f32", M, K, N)


def vec(m, dst, shape, layout, fractal=512, valid=None, addr=None, subblock=0):
    bl, sl = LAYOUT[layout]
    return m.tile("Vec", dst, *shape, blayout=bl, slayout=sl, fractal=fractal, valid=valid,
                  addr=addr, subblock=subblock)


def golden(want, dst, relu):
    return (np.maximum(want, 0) if relu else want).astype(NP[dst])


# (input, dst type, m, k, n, dst tile, layout, fractal, mode, relu)
TMOV_ACC2VEC_CASES = [
    ("f16", "f32", 60, 127, 120, (64, 128), "ND", 512, None, True),
    ("f16", "f16", 110, 100, 80, (112, 80), "ND", 512, None, True),
    ("f32", "f32", 6, 7, 8, (32, 32), "ND", 512, "SingleModeVec1", False),
    ("bf16", "bf16", 111, 47, 96, (112, 96), "ND", 512, None, False),
    ("f16", "f16", 96, 80, 112, (96, 112), "NZ", 512, None, False),
    ("f32", "f32", 80, 112, 96, (80, 96), "NZ", 1024, None, False),
    ("f32", "f32", 13, 16, 9, (16, 16), "NZ", 512, None, True),
    ("bf16", "bf16", 45, 112, 43, (48, 48), "NZ", 512, "SingleModeVec1", True),
    ("f32", "f32", 8, 7, 6, (16, 16), "DN", 512, None, False),
    ("f16", "f16", 112, 48, 95, (112, 96), "DN", 512, None, False),
    ("bf16", "bf16", 48, 31, 31, (48, 32), "DN", 512, None, True),
]


@pytest.mark.parametrize("name, dst, M, K, N, shape, layout, fractal, mode, relu",
                         TMOV_ACC2VEC_CASES)
def test_tmov_acc_to_vec_reference_cases(name, dst, M, K, N, shape, layout, fractal, mode,
                                         relu):
    m = ptosim.Machine(target="a5")
    acc, want = acc_of(m, name, M, K, N)
    t = vec(m, dst, shape, layout, fractal, valid=(M, N))
    m.TMOV(t, acc, mode=mode, pre_relu=RELU if relu else None)
    sub = 1 if mode == "SingleModeVec1" else 0
    seen = vec(m, dst, shape, layout, fractal, valid=(M, N), addr=t.ptr.offset, subblock=sub)
    np.testing.assert_array_equal(m.read_tile(seen), golden(want, dst, relu))


# split modes: one FIXPIPE, rows (split_m) or columns (split_n) halved between the two
# vector cores' UBs at the same address; (m, k, n, dst tile, layout, fractal, mode)
SPLIT_CASES = [
    (96, 32, 48, (96, 48), "ND", 512, "DualModeSplitM"),
    (48, 32, 128, (48, 128), "ND", 512, "DualModeSplitN"),
    (45, 80, 125, (48, 128), "NZ", 1024, "DualModeSplitN"),
    (110, 48, 78, (112, 80), "NZ", 1024, "DualModeSplitM"),
]


@pytest.mark.parametrize("M, K, N, shape, layout, fractal, mode", SPLIT_CASES)
@pytest.mark.parametrize("op", ["TMOV", "TINSERT"])
def test_acc_to_vec_split_modes(M, K, N, shape, layout, fractal, mode, op):
    m = ptosim.Machine(target="a5")
    acc, want = acc_of(m, "f16", M, K, N)
    t = vec(m, "f32", shape, layout, fractal)
    if op == "TMOV":
        m.TMOV(t, acc, mode=mode)
    else:
        m.TINSERT(t, acc, 0, 0, mode=mode)
    halves = [vec(m, "f32", shape, layout, fractal, addr=t.ptr.offset, subblock=s)
              for s in (0, 1)]
    got = [m.read_tile(h) for h in halves]
    if mode == "DualModeSplitM":   # NZ writes the Acc's whole rows: halves of align16(m)
        cut = acc.rows // 2 if layout == "NZ" else M // 2
        np.testing.assert_array_equal(got[0][:cut, :N], want[:cut].astype(np.float32))
        np.testing.assert_array_equal(got[1][:M - cut, :N], want[cut:].astype(np.float32))
    else:
        cut = al(N, 16) // 2
        np.testing.assert_array_equal(got[0][:M, :cut], want[:, :cut].astype(np.float32))
        np.testing.assert_array_equal(got[1][:M, :N - cut], want[:, cut:].astype(np.float32))


# TEXTRACT Acc -> Vec (ND): (input, dst type, m, k, n, (r0, c0), dst tile, mode)
TEXTRACT_ACC2VEC_CASES = [
    ("f16", "f32", 60, 127, 120, (0, 16), (64, 128), None),
    ("f16", "f16", 110, 100, 80, (5, 0), (120, 96), None),
    ("f32", "f32", 6, 7, 8, (2, 0), (10, 16), "SingleModeVec1"),
    ("bf16", "bf16", 111, 47, 96, (3, 32), (150, 160), None),
]


@pytest.mark.parametrize("name, dst, M, K, N, at, shape, mode", TEXTRACT_ACC2VEC_CASES)
def test_textract_acc_to_vec_reference_cases(name, dst, M, K, N, at, shape, mode):
    m = ptosim.Machine(target="a5")
    acc, want = acc_of(m, name, M, K, N)
    r0, c0 = at
    t = vec(m, dst, shape, "ND", valid=(M - r0, N - c0))
    m.TEXTRACT(t, acc, r0, c0, mode=mode)
    seen = vec(m, dst, shape, "ND", valid=t.valid, addr=t.ptr.offset,
               subblock=1 if mode else 0)
    np.testing.assert_array_equal(m.read_tile(seen), want[r0:, c0:].astype(NP[dst]))


# TINSERT Acc -> Vec: (input, dst type, m, k, n, (r0, c0), dst tile, layout, relu); the
# golden is a zero tile with the block pasted at (r0, c0)
TINSERT_ACC2VEC_CASES = [
    ("f16", "f32", 60, 127, 120, (0, 8), (60, 128), "ND", True),
    ("f16", "f16", 110, 100, 80, (5, 0), (120, 96), "ND", False),
    ("f32", "f32", 6, 7, 8, (2, 0), (10, 16), "ND", False),
    ("bf16", "bf16", 111, 47, 96, (3, 32), (150, 160), "ND", True),
    ("f16", "f16", 32, 32, 32, (16, 16), (64, 64), "NZ", False),
    ("f16", "f32", 24, 16, 20, (8, 5), (32, 40), "DN", False),
]


@pytest.mark.parametrize("name, dst, M, K, N, at, shape, layout, relu", TINSERT_ACC2VEC_CASES)
def test_tinsert_acc_to_vec_reference_cases(name, dst, M, K, N, at, shape, layout, relu):
    m = ptosim.Machine(target="a5")
    acc, want = acc_of(m, name, M, K, N)
    r0, c0 = at
    t = vec(m, dst, shape, layout)
    m.TINSERT(t, acc, r0, c0, pre_relu=RELU if relu else None)
    expect = np.zeros(shape, NP[dst])
    expect[r0:r0 + M, c0:c0 + N] = golden(want, dst, relu)
    np.testing.assert_array_equal(m.read_tile(t), expect)


# TEXTRACT Acc -> Mat (NZ, both targets): (target, input, Mat type, m, k, n, (r0, c0), quant)
TEXTRACT_ACC2MAT_CASES = [
    ("a2a3", "f16", "f16", 64, 64, 64, (16, 16), None),
    ("a5", "f16", "f16", 64, 64, 64, (16, 16), None),
    ("a2a3", "i8", "f16", 96, 128, 64, (48, 48), (2.0, "deqf16_scalar")),
    ("a5", "i8", "f16", 96, 128, 64, (48, 48), (2.0, "deqf16_scalar")),
]


@pytest.mark.parametrize("target, name, dst, M, K, N, at, quant", TEXTRACT_ACC2MAT_CASES)
def test_textract_acc_to_mat_reference_cases(target, name, dst, M, K, N, at, quant):
    m = ptosim.Machine(target=target)
    acc, want = acc_of(m, name, M, K, N)
    r0, c0 = at
    mat = m.tile("Mat", dst, M - r0, N - c0, blayout="ColMajor", slayout="RowMajor")
    m.TEXTRACT(mat, acc, r0, c0, pre_quant=quant)
    scale = quant[0] if quant else 1.0
    np.testing.assert_array_equal(m.read_tile(mat), (want[r0:, c0:] * scale).astype(NP[dst]))


def _setup(target="a5", acc_dtype="f32"):
    m = ptosim.Machine(target=target)
    return m, m.tile("Acc", acc_dtype, 32, 32)


@pytest.mark.parametrize("call, message", [
    (lambda m, acc: m.TMOV(vec(m, "f32", (32, 32), "ND"), acc, mode="Both"),
     "TMOV: mode is an AccToVecMode \\(SingleModeVec0, SingleModeVec1, DualModeSplitM, "
     "DualModeSplitN\\) of an Acc -> Vec move, got 'Both' into a Vec tile"),
    (lambda m, acc: m.TMOV(m.tile("Mat", "f32", 32, 32, blayout="ColMajor",
                                  slayout="RowMajor"), acc, mode="DualModeSplitM"),
     "TMOV: mode is an AccToVecMode .* into a Mat tile"),
    (lambda m, acc: m.TMOV(vec(m, "f16", (32, 32), "ND"), acc, mode="DualModeSplitM"),
     "TMOV: dual destination mode cannot be combined with pre_quant \\(in its mte_l0c_ub\\)"),
    (lambda m, acc: m.TMOV(vec(m, "f32", (32, 32), "DN"), acc, mode="DualModeSplitN"),
     "TMOV: dual destination mode cannot be combined with nz2dn"),
    (lambda m, acc: m.TEXTRACT(vec(m, "f32", (16, 16), "ND"), acc, 0, 8),
     "TEXTRACT: an Acc window starts on a 16-column block: column 8"),
    (lambda m, acc: m.TEXTRACT(vec(m, "f32", (16, 16), "NZ"), acc, 0, 0),
     "TEXTRACT: Acc -> Vec writes ND tiles on a5, got NZ"),
    (lambda m, acc: m.TEXTRACT(vec(m, "f32", (24, 16), "ND"), acc, 16, 0),
     "TEXTRACT: a 24x16 window at \\(16, 0\\) leaves the 32x32 Acc"),
    (lambda m, acc: m.TINSERT(vec(m, "f32", (40, 40), "ND"), acc, 16, 0),
     "TINSERT: a 32x32 Acc block at \\(16, 0\\) leaves the 40x40 Vec tile"),
    (lambda m, acc: m.TINSERT(vec(m, "f32", (64, 64), "DN"), acc, 3, 0),
     "TINSERT: the corner \\(3, 0\\) is byte 12 of the DN tile; FIXPIPE writes start on 32 B"),
    (lambda m, acc: m.TINSERT(vec(m, "f32", (64, 64), "ND"), acc, -1, 0),
     "TINSERT: the corner \\(-1, 0\\) must not be negative"),
    (lambda m, acc: m.TMOV(vec(m, "ui8", (32, 32), "ND"), acc),
     "TMOV: an f32 accumulator writes ui8 only with pre_quant"),
])
def test_acc_exit_rules(call, message):
    m, acc = _setup()
    with pytest.raises(ptosim.VerifyError, match=message):
        call(m, acc)


def test_acc_to_vec_is_a5_only():
    m, acc = _setup("a2a3")
    with pytest.raises(ptosim.VerifyError, match="TMOV: Acc -> Vec exists on a5 only"):
        m.TMOV(vec(m, "f32", (32, 32), "ND"), acc)


def test_split_nz_and_relu_stay_refused_at_micro_level():
    """The tile ops may combine a dual mode with NZ and ReLU (the C++ lowering does); the
    micro-op keeps the micro-ISA's rule."""
    m, acc = _setup()
    dst = m.ptr("ub", "f32", 0)
    with pytest.raises(ptosim.VerifyError, match="cannot be combined with pre_relu"):
        m.mte_l0c_ub(acc.ptr, dst, 32, 32, 32, 32, dst_mode="split_m",
                     pre_relu=(None, "normal_relu"))
    with pytest.raises(ptosim.DtypeError, match="a UB destination must be f16 or f32"):
        m.mte_l0c_ub(acc.ptr, m.ptr("ub", "bf16", 0), 32, 32, 32, 32, dst_mode=0)


# a5 TINSERT Vec NZ -> Mat NZ: NZ moves the valid rows as whole 32 B lines; SPLIT2 / SPLIT4
# move whole fractal rows (tinsert kernel: "writes all aligned rows")
def nz_vec(m, name, rows, cols, valid, seed):
    t = m.tile("Vec", name, rows, cols, blayout="ColMajor", slayout="RowMajor", valid=valid)
    m.write(t.ptr, (np.arange(rows * cols) * 7 + seed) % 97)
    whole = m.tile("Vec", name, rows, cols, blayout="ColMajor", slayout="RowMajor",
                   addr=t.ptr.offset)
    return t, m.read_tile(whole)


def nz_mat(m, name, rows, cols):
    return m.tile("Mat", name, rows, cols, blayout="ColMajor", slayout="RowMajor")


def test_tinsert_vec_nz_rows_into_mat():
    """15 rows at row 0, then 10 rows at row 15 of a 32-row Mat: both blocks land, rows
    past them stay as they were (zero)."""
    m = ptosim.Machine(target="a5")
    a, wa = nz_vec(m, "f32", 16, 32, (15, 32), 1)
    b, wb = nz_vec(m, "f32", 16, 32, (10, 32), 2)
    mat = nz_mat(m, "f32", 32, 32)
    m.TINSERT(mat, a, 0, 0)
    m.TINSERT(mat, b, 15, 0)
    expect = np.zeros((32, 32), np.float32)
    expect[:15], expect[15:25] = wa[:15], wb[:10]
    np.testing.assert_array_equal(m.read_tile(mat), expect)


@pytest.mark.parametrize("mode", ["SPLIT2", "SPLIT4"])
def test_tinsert_split_modes_move_whole_fractal_rows(mode):
    m = ptosim.Machine(target="a5")
    src, whole = nz_vec(m, "f16", 16, 256, (8, 250), 3)
    mat = nz_mat(m, "f16", 16, 256)
    m.TINSERT(mat, src, 0, 0, mode=mode)
    np.testing.assert_array_equal(m.read_tile(mat), whole)    # rows 8..15, cols 250..255 too
    plain = nz_mat(m, "f16", 16, 256)
    m.TINSERT(plain, src, 0, 0)
    expect = np.zeros((16, 256), np.float16)
    expect[:8] = whole[:8]                                    # whole lines: cols up to 256
    np.testing.assert_array_equal(m.read_tile(plain), expect)


@pytest.mark.parametrize("src_layout, dst_type, mode, message", [
    ("ND", "Mat", "SPLIT2", "a Vec -> Mat insert's mode is SPLIT2 or SPLIT4 \\(NZ sources "
                            "only\\), got 'SPLIT2' with an ND source"),
    ("NZ", "Mat", "SPLIT3", "a Vec -> Mat insert's mode is SPLIT2 or SPLIT4"),
    ("ND", "Vec", "SPLIT2", "a Vec -> Vec insert takes no mode, got 'SPLIT2'"),
])
def test_tinsert_mode_rules(src_layout, dst_type, mode, message):
    m = ptosim.Machine(target="a5")
    bl, sl = LAYOUT[src_layout]
    src = m.tile("Vec", "f32", 16, 32, blayout=bl, slayout=sl)
    dst = nz_mat(m, "f32", 32, 32) if dst_type == "Mat" else m.tile("Vec", "f32", 32, 32)
    with pytest.raises(ptosim.VerifyError, match="TINSERT: " + message):
        m.TINSERT(dst, src, 0, 0, mode=mode)


def test_tinsert_nz_column_starts_a_line():
    m = ptosim.Machine(target="a5")
    src, _ = nz_vec(m, "f32", 16, 16, (16, 16), 4)
    with pytest.raises(ptosim.VerifyError, match="TINSERT: an NZ insert's column 4 must start "
                                                 "a 8-element line"):
        m.TINSERT(nz_mat(m, "f32", 32, 32), src, 0, 4)
