"""Reference test-suite parameter tables, ported as facts (docs/research/tile-level.md §5):
each case is run through the tile ops and checked against a golden built with numpy."""

import numpy as np
import pytest

import ptosim
from tile_helpers import NP, al, matmul_to_acc, run_matmul


def packed(kind, w, c0):
    """Packed strides of a whole 5-D tensor ``w`` in layout ``kind``."""
    w0, w1, w2, w3, w4 = w
    if kind == "ND":
        return (w1 * w2 * w3 * w4, w2 * w3 * w4, w3 * w4, w4, 1)
    if kind == "DN":
        return (w1 * w2 * w3 * w4, w2 * w3 * w4, w3 * w4, 1, w3)
    return (w1 * w2 * 16 * c0, w2 * 16 * c0, 16 * c0, c0, 1)       # NZ: w3 = 16, w4 = C0


def view_index(g, stride):
    """Flat element index of every element of a 5-D view (numpy broadcasting)."""
    idx = np.zeros(g, np.int64)
    for axis, (n, t) in enumerate(zip(g, stride)):
        shape = [1] * 5
        shape[axis] = n
        idx = idx + (np.arange(n) * t).reshape(shape)
    return idx


# 5.2(a): TLOAD a corner view g of a whole tensor W, TSTORE it into a zeroed W.
TSTORE_CASES = [
    ("a5", "NZ", "f32", (1, 1, 1, 16, 8), (1, 1, 2, 16, 8)),
    ("a5", "NZ", "ui8", (1, 2, 1, 16, 32), (2, 4, 2, 16, 32)),
    ("a5", "NZ", "i16", (2, 2, 2, 16, 16), (5, 3, 3, 16, 16)),
    ("a5", "ND", "f32", (2, 1, 1, 39, 47), (3, 2, 1, 43, 61)),
    ("a5", "ND", "i16", (1, 2, 1, 23, 121), (3, 2, 2, 35, 125)),
    ("a5", "ND", "i8", (2, 2, 3, 23, 47), (3, 3, 4, 32, 50)),
    ("a5", "DN", "f32", (1, 1, 1, 4, 21), (1, 1, 1, 8, 32)),
    ("a5", "DN", "ui16", (3, 1, 1, 1, 124), (5, 1, 1, 2, 128)),
    ("a5", "DN", "i8", (2, 3, 7, 47, 13), (2, 3, 7, 55, 29)),
    ("a5", "ND", "i64", (1, 1, 2, 39, 47), (2, 2, 2, 43, 50)),
    ("a2a3", "ND", "f32", (1, 1, 1, 2, 128), (1, 1, 1, 2, 128)),
    ("a2a3", "DN", "i8", (2, 1, 2, 32, 32), (3, 4, 3, 64, 35)),
    ("a2a3", "NZ", "i8", (1, 2, 1, 16, 32), (2, 4, 2, 16, 32)),
]


@pytest.mark.parametrize("target, kind, name, g, w", TSTORE_CASES)
def test_vec_load_store_round_trip(target, kind, name, g, w):
    m = ptosim.Machine(target=target)
    es = np.dtype(NP[name]).itemsize
    c0 = 32 // es
    stride = packed(kind, w, c0)
    data = np.random.default_rng(sum(g)).integers(0, 100, int(np.prod(w))).astype(NP[name])
    src, out = m.gm(data), m.gm_empty(data.size, name)
    if kind == "ND":
        shape, rows, cols, tile = g, int(np.prod(g[:4])), g[4], dict()
        R, C = rows, al(cols, c0)
    elif kind == "DN":
        shape, rows, cols, tile = g, g[3], g[0] * g[1] * g[2] * g[4], dict(blayout="ColMajor")
        R, C = al(rows, c0), cols
    else:
        shape, rows, cols = g, g[2] * g[3], g[0] * g[1] * g[4]
        tile, (R, C) = dict(blayout="ColMajor", slayout="RowMajor"), (rows, cols)
    t = m.tile("Vec", name, R, C, valid=(rows, cols), **tile)
    m.TLOAD(t, m.global_tensor(src, shape=shape, stride=stride, layout=kind))
    m.TSTORE(m.global_tensor(out, shape=shape, stride=stride, layout=kind), t)
    idx = view_index(g, stride)
    golden = np.zeros_like(data)
    golden[idx] = data[idx]
    np.testing.assert_array_equal(m.read(out, data.size), golden)


# 5.6: TMATMUL cases (m, k, n) per target; bias cases name the bias element type.
TMATMUL_CASES = [
    ("a5", "f16", "f32", 40, 50, 60, None), ("a5", "i8", "i32", 6, 7, 8, None),
    ("a5", "f16", "f32", 127, 128, 61, None), ("a5", "f32", "f32", 120, 110, 50, None),
    ("a5", "bf16", "f32", 144, 80, 48, None), ("a5", "f8E4M3FN", "f32", 32, 64, 96, None),
    ("a5", "i8", "i32", 8, 7, 6, "i32"), ("a5", "f16", "f32", 16, 15, 16, "f16"),
    ("a5", "bf16", "f32", 80, 112, 63, "f32"),
    ("a2a3", "f16", "f32", 31, 120, 58, None), ("a2a3", "i8", "i32", 65, 90, 89, None),
    ("a2a3", "f16", "f32", 5, 75, 11, None), ("a2a3", "f16", "f32", 26, 100, 94, "f32"),
    ("a2a3", "f32", "f32", 15, 16, 15, "f32"), ("a2a3", "i8", "i32", 55, 127, 29, "i32"),
]


@pytest.mark.parametrize("target, name, acc, M, K, N, bias", TMATMUL_CASES)
def test_tmatmul_reference_cases(target, name, acc, M, K, N, bias):
    got, want = run_matmul(ptosim.Machine(target=target), name, acc, M, K, N, bias)
    np.testing.assert_array_equal(got, want)


# 5.4: TEXTRACT windows (m, n, k, sm, sn, sk): C = A[sm:, sk:] . B[sk:, sn:]
TEXTRACT_CASES = [
    ("a2a3", "f16", "f32", 64, 32, 80, (16, 16, 32)), ("a2a3", "i8", "i32", 128, 64, 128, (48, 32, 64)),
    ("a2a3", "f32", "f32", 128, 48, 64, (32, 16, 16)), ("a2a3", "bf16", "f32", 64, 48, 96, (32, 32, 16)),
    ("a5", "f16", "f32", 32, 64, 96, (0, 0, 0)), ("a5", "f32", "f32", 128, 64, 48, (32, 16, 16)),
    ("a5", "i8", "i32", 128, 64, 128, (32, 32, 64)),
]


@pytest.mark.parametrize("target, name, acc, M, N, K, window", TEXTRACT_CASES)
def test_textract_reference_cases(target, name, acc, M, N, K, window):
    got, want = run_matmul(ptosim.Machine(target=target), name, acc, M, K, N, window=window)
    np.testing.assert_array_equal(got, want)


# 5.5: TINSERT ND Vec -> Vec (a5): (type, src R x C, dst R x C, r0, c0)
TINSERT_CASES = [
    ("f32", (8, 8), (16, 16), 0, 0), ("f32", (8, 8), (16, 16), 4, 8), ("f16", (16, 16), (32, 32), 8, 16),
    ("i8", (32, 32), (64, 64), 0, 32), ("i8", (32, 32), (64, 64), 0, 7), ("f16", (16, 16), (32, 48), 4, 16),
    ("f32", (8, 8), (16, 24), 3, 8), ("f16", (8, 16), (16, 48), 2, 5), ("f16", (4, 128), (8, 144), 0, 5),
]


@pytest.mark.parametrize("name, src_shape, dst_shape, r0, c0", TINSERT_CASES)
def test_tinsert_reference_cases(name, src_shape, dst_shape, r0, c0):
    m = ptosim.Machine(target="a5")
    dst = m.tile("Vec", name, *dst_shape)
    src = m.tile("Vec", name, *src_shape)
    before = (np.arange(np.prod(dst_shape)) % 11).astype(NP[name]).reshape(dst_shape)
    piece = (np.arange(np.prod(src_shape)) % 7 + 20).astype(NP[name]).reshape(src_shape)
    m.write(dst.ptr, before)
    m.write(src.ptr, piece)
    m.TINSERT(dst, src, r0, c0)
    golden = before.copy()
    golden[r0:r0 + src_shape[0], c0:c0 + src_shape[1]] = piece
    np.testing.assert_array_equal(m.read_tile(dst), golden)


# 5.7: TFILLPAD (type, GM rows x cols, tile R x C, load pad, fill pad)
TFILLPAD_CASES = [
    ("f32", 128, 127, 128, 128, "Max", "Max"), ("f32", 128, 127, 128, 160, "Max", "Max"),
    ("f32", 128, 127, 128, 160, "Min", "Max"), ("f32", 260, 7, 260, 16, "Min", "Max"),
    ("ui16", 260, 7, 260, 32, "Min", "Max"), ("i8", 260, 7, 260, 64, "Min", "Max"),
    ("f32", 128, 64, 128, 128, "Null", -1.0), ("f32", 128, 127, 128, 160, -1.0, -1.0),
]


@pytest.mark.parametrize("name, vr, vc, R, C, load_pad, fill_pad", TFILLPAD_CASES)
def test_tfillpad_reference_cases(name, vr, vc, R, C, load_pad, fill_pad):
    m = ptosim.Machine(target="a5")
    data = (np.arange(vr * vc) % 97).astype(NP[name]).reshape(vr, vc)
    g = m.global_tensor(m.gm(data), shape=(1, 1, 1, vr, vc), stride=(0, 0, 0, vc, 1))
    src = m.tile("Vec", name, R, C, valid=(vr, vc), pad=load_pad)
    m.TLOAD(src, g)
    dst = m.tile("Vec", name, R, C, valid=(R, C), pad=fill_pad, addr=src.ptr.offset)
    m.TFILLPAD(dst, src)

    def value(pad):
        if not isinstance(pad, str):
            return pad
        t = NP[name]
        if np.issubdtype(t, np.floating):
            return np.inf if pad == "Max" else -np.inf
        return np.iinfo(t).max if pad == "Max" else np.iinfo(t).min

    golden = np.full((R, C), value(fill_pad)).astype(NP[name])
    golden[:vr, :vc] = data
    c0 = 32 // np.dtype(NP[name]).itemsize
    if load_pad == fill_pad:                  # the load's own pad lanes stay as loaded
        golden[:vr, vc:al(vc, c0)] = value(load_pad)
    np.testing.assert_array_equal(m.read_tile(dst), golden)


# 5.3: TMOV Vec -> Vec (copy) for f32 / f16 / u8 over the suite's shapes
@pytest.mark.parametrize("name", ["f32", "f16", "ui8"])
@pytest.mark.parametrize("shape", [(64, 64), (32, 32), (128, 128), (128, 32), (128, 64)])
def test_tmov_vec_reference_cases(name, shape):
    m = ptosim.Machine(target="a5")
    src, dst = m.tile("Vec", name, *shape), m.tile("Vec", name, *shape)
    data = (np.arange(np.prod(shape)) % 251).astype(NP[name]).reshape(shape)
    m.write(src.ptr, data)
    m.TMOV(dst, src)
    np.testing.assert_array_equal(m.read_tile(dst), data)


def test_tmov_acc_to_mat_then_second_matmul():
    """a2a3 tmov_acc2mat family: C1 = A.B (f32) -> Mat f16 (NZ) -> Left -> C2 = C1.B2."""
    m = ptosim.Machine(target="a5")
    got, want = run_matmul(m, "f16", "f32", 32, 32, 32)
    acc = m.tile("Acc", "f32", 32, 32, addr=0)                 # the accumulator just used
    mat = m.tile("Mat", "f16", 32, 32, blayout="ColMajor", slayout="RowMajor")
    m.TMOV(mat, acc)
    np.testing.assert_array_equal(m.read_tile(mat), want.astype(np.float16))


# 5.2(c): Acc -> GM in NZ, (target, dst, input, m, n, k, s4, pre_quant); golden: the product
# in the destination type, re-laid out C.reshape(m/16, 16, n/s4, s4).transpose(2, 0, 1, 3)
TSTORE_NZ_CASES = [
    ("a2a3", "f32", "f32", 32, 64, 25, 16, None), ("a5", "f32", "f32", 48, 32, 45, 16, None),
    ("a2a3", "f32", "f16", 32, 64, 24, 16, None), ("a5", "f16", "f16", 96, 96, 23, 16, None),
    ("a2a3", "f32", "bf16", 48, 96, 22, 16, None), ("a5", "bf16", "bf16", 48, 256, 32, 16, None),
    ("a2a3", "i32", "i8", 64, 96, 30, 16, None), ("a5", "f32", "f32", 64, 192, 43, 8, None),
    ("a2a3", "f16", "i8", 64, 32, 64, 16, (0.5, "deqf16_scalar")),
    ("a5", "ui8", "i8", 32, 32, 17, 32, (2.0, "req8_scalar")),
]


@pytest.mark.parametrize("target, dst, name, M, N, K, s4, quant", TSTORE_NZ_CASES)
def test_tstore_acc_to_nz_view(target, dst, name, M, N, K, s4, quant):
    m = ptosim.Machine(target=target)
    acc = "i32" if name == "i8" else "f32"
    accum, want = matmul_to_acc(m, name, acc, M, K, N)
    out = m.gm_empty(M * N, dst)
    view = m.global_tensor(out, shape=(1, N // s4, M // 16, 16, s4),
                           stride=(M * N, M * s4, 16 * s4, s4, 1), layout="NZ")
    m.TSTORE(view, accum, pre_quant=quant)
    c = want * (quant[0] if quant else 1)
    if dst == "ui8":
        c = np.clip(c, 0, 255)
    golden = c.astype(NP[dst]).reshape(M // 16, 16, N // s4, s4).transpose(2, 0, 1, 3).ravel()
    np.testing.assert_array_equal(m.read(out, M * N), golden)


# 5.3 tmov_acc2mat: Acc -> Mat (NZ on both targets; ND / DN on a5), (target, input, Mat
# type, m, k, n, layout); the Mat tile then holds C in its own layout
TMOV_ACC2MAT_CASES = [
    ("a2a3", "f16", "f16", 64, 128, 128, "NZ"), ("a2a3", "f16", "bf16", 48, 128, 64, "NZ"),
    ("a2a3", "f16", "f16", 14, 16, 9, "NZ"), ("a5", "f16", "f16", 96, 80, 112, "NZ"),
    ("a5", "f32", "f32", 65, 40, 80, "ND"), ("a5", "f32", "f32", 80, 40, 66, "DN"),
    ("a5", "i8", "i32", 32, 32, 32, "NZ"),
]


@pytest.mark.parametrize("target, name, dst, M, K, N, layout", TMOV_ACC2MAT_CASES)
def test_tmov_acc_to_mat_reference_cases(target, name, dst, M, K, N, layout):
    m = ptosim.Machine(target=target)
    accum, want = matmul_to_acc(m, name, "i32" if name == "i8" else "f32", M, K, N)
    bl, sl = {"NZ": ("ColMajor", "RowMajor"), "ND": ("RowMajor", "NoneBox"),
              "DN": ("ColMajor", "NoneBox")}[layout]
    mat = m.tile("Mat", dst, accum.rows, accum.cols, blayout=bl, slayout=sl, valid=(M, N))
    m.TMOV(mat, accum)
    np.testing.assert_array_equal(m.read_tile(mat), want.astype(NP[dst]))


def test_acc_to_mat_converts_like_fixpipe():
    """f32 -> f16 through FIXPIPE follows CTRL like the micro-op: the entry state is nosat
    (72000 -> inf), CTRL bit 48 clear saturates (72000 -> 65504), in TMOV and TINSERT
    alike; an i32 accumulator needs an explicit quant mode for a narrower Mat."""
    m = ptosim.Machine(target="a5")
    acc = m.tile("Acc", "f32", 16, 16)
    m.write(acc.ptr, np.full(256, 72000.0, np.float32))
    mat = m.tile("Mat", "f16", 32, 32, blayout="ColMajor", slayout="RowMajor")
    small = m.tile("Mat", "f16", 16, 16, blayout="ColMajor", slayout="RowMajor", addr=4096)
    m.TINSERT(mat, acc, 16, 16)
    m.TMOV(small, acc)
    assert np.isposinf(m.read_tile(mat)[16:, 16:]).all() and np.isposinf(m.read_tile(small)).all()
    m.ctrl = 0
    m.TINSERT(mat, acc, 16, 16)
    m.TMOV(small, acc)
    assert (m.read_tile(mat)[16:, 16:] == 65504).all() and (m.read_tile(small) == 65504).all()
    iacc = m.tile("Acc", "i32", 16, 32)
    m.write(iacc.ptr, np.arange(512, dtype=np.int32) - 100)
    i8 = m.tile("Mat", "ui8", 16, 32, blayout="ColMajor", slayout="RowMajor")
    with pytest.raises(ptosim.VerifyError, match="TMOV: an i32 accumulator writes ui8 only "
                                                 "with pre_quant"):
        m.TMOV(i8, iacc)
    m.TMOV(i8, iacc, pre_quant=(1.0, "req8_scalar"))
    golden = np.clip(m.read(iacc.ptr, 512).reshape(2, 16, 16).transpose(1, 0, 2)
                     .reshape(16, 32), 0, 255)
    np.testing.assert_array_equal(m.read_tile(i8), golden)


@pytest.mark.parametrize("target, bl, sl, shape, valid, dst_shape, where, message", [
    ("a2a3", "RowMajor", "NoneBox", (16, 16), (16, 16), (16, 16), (0, 0),
     "Acc -> Mat writes NZ tiles on a2a3, got ND"),
    ("a5", "ColMajor", "RowMajor", (16, 16), (16, 10), (32, 32), (8, 8),
     "an NZ destination column must start a 16-element line block, got 8"),
    ("a5", "RowMajor", "NoneBox", (16, 16), (16, 16), (32, 32), (0, 0),
     "Acc -> Mat writes NZ tiles on a5, got ND"),
    ("a5", "ColMajor", "RowMajor", (32, 32), (32, 32), (32, 32), (16, 0),
     "a 32x32 Acc block at \\(16, 0\\) leaves the 32x32 Mat tile"),
])
def test_acc_to_mat_rules(target, bl, sl, shape, valid, dst_shape, where, message):
    m = ptosim.Machine(target=target)
    acc = m.tile("Acc", "f32", *shape, valid=valid)
    mat = m.tile("Mat", "f16", *dst_shape, blayout=bl, slayout=sl)
    with pytest.raises(ptosim.VerifyError, match="TINSERT: " + message):
        m.TINSERT(mat, acc, *where)


@pytest.mark.parametrize("shape, message", [
    ((1, 4, 2, 16, 8), "an Acc stores to an NZ view with s3 = 16, s4 = 16 \\(f16 lines\\)"),
    ((1, 2, 2, 16, 16), None),
])
def test_tstore_nz_view_line_width(shape, message):
    m = ptosim.Machine(target="a5")
    acc = m.tile("Acc", "f32", 32, 32)
    m.write(acc.ptr, np.arange(1024, dtype=np.float32))
    out = m.gm_empty(1024, "f16")
    s4 = shape[4]
    view = m.global_tensor(out, shape=shape, stride=(1024, 32 * s4, 16 * s4, s4, 1),
                           layout="NZ")
    if message:
        with pytest.raises(ptosim.VerifyError, match="TSTORE: " + message):
            m.TSTORE(view, acc)
        return
    m.TSTORE(view, acc)
    c = m.read(acc.ptr, 1024).reshape(2, 32, 16).transpose(1, 0, 2).reshape(32, 32)
    golden = c.astype(np.float16).reshape(2, 16, 2, 16).transpose(2, 0, 1, 3).ravel()
    np.testing.assert_array_equal(m.read(out, 1024), golden)


# 5.3 a5 tmov_nd2nz / nd2zn: Vec ND -> Vec NZ / ZN
@pytest.mark.parametrize("name", ["f16", "f32"])
@pytest.mark.parametrize("shape", [(32, 32), (32, 64), (64, 64)])
@pytest.mark.parametrize("to", ["NZ", "ZN"])
def test_tmov_vec_relayout(name, shape, to):
    m = ptosim.Machine(target="a5")
    src = m.tile("Vec", name, *shape)
    data = (np.arange(np.prod(shape)) % 89).astype(NP[name]).reshape(shape)
    m.write(src.ptr, data)
    bl, sl = ("ColMajor", "RowMajor") if to == "NZ" else ("RowMajor", "ColMajor")
    dst = m.tile("Vec", name, *shape, blayout=bl, slayout=sl)
    m.TMOV(dst, src)
    c0 = 32 // np.dtype(NP[name]).itemsize
    R, C = shape
    raw_dst = m.read(dst.ptr, R * C)
    golden = data.reshape(R, C // c0, c0).transpose(1, 0, 2).ravel() if to == "NZ" \
        else data.reshape(R // c0, c0, C).transpose(0, 2, 1).ravel()
    np.testing.assert_array_equal(raw_dst, golden)


# 5.3 a5 tmov_ub2l1: Vec ND -> Vec NZ -> Mat NZ (then read back), optional TEXTRACT window
@pytest.mark.parametrize("name, rows, cols", [("f16", 16, 32), ("f16", 64, 256), ("f32", 48, 72),
                                              ("f32", 96, 8), ("i8", 32, 512), ("i8", 64, 96)])
def test_tmov_ub_to_l1(name, rows, cols):
    m = ptosim.Machine(target="a5")
    data = (np.arange(rows * cols) % 113).astype(NP[name]).reshape(rows, cols)
    nd = m.tile("Vec", name, rows, cols)
    m.write(nd.ptr, data)
    nz = m.tile("Vec", name, rows, cols, blayout="ColMajor", slayout="RowMajor")
    m.TMOV(nz, nd)
    mat = m.tile("Mat", name, al(rows, 16), cols, blayout="ColMajor", slayout="RowMajor",
                 valid=(rows, cols))
    m.TMOV(mat, nz)
    np.testing.assert_array_equal(m.read_tile(mat), data)


def test_tmov_vec_to_mat_is_a5_only():
    m = ptosim.Machine(target="a2a3")
    nd, mat = m.tile("Vec", "f16", 16, 32), m.tile("Mat", "f16", 16, 32)
    with pytest.raises(ptosim.TargetError, match="TMOV: does not exist on target a2a3 \\(in its mte_ub_l1\\)"):
        m.TMOV(mat, nd)


def test_tstore_mat_on_a2a3_and_not_on_a5():
    """5.2(b): a2a3 stores a Mat tile's valid region (here NZ) back to its view."""
    from ptosim.layout import gm_nz_canonical
    x = (np.arange(32 * 48) % 101).astype(np.float16).reshape(32, 48)
    shape, stride = gm_nz_canonical(32, 48, "f16")
    nz = x.reshape(32, 3, 16).transpose(1, 0, 2).copy()
    m = ptosim.Machine(target="a2a3")
    g = m.global_tensor(m.gm(nz), shape=shape, stride=stride, layout="NZ")
    t = m.tile("Mat", "f16", 32, 48, blayout="ColMajor", slayout="RowMajor")
    m.TLOAD(t, g)
    out = m.gm_empty(32 * 48, "f16")
    m.TSTORE(m.global_tensor(out, shape=shape, stride=stride, layout="NZ"), t)
    np.testing.assert_array_equal(m.read(out, 32 * 48), nz.ravel())


def test_tfillpad_expand_and_textract_tinsert_vec():
    m = ptosim.Machine(target="a5")
    data = (np.arange(259 * 7) % 50).astype(np.uint16).reshape(259, 7)
    g = m.global_tensor(m.gm(data), shape=(1, 1, 1, 259, 7), stride=(0, 0, 0, 7, 1))
    src = m.tile("Vec", "ui16", 259, 16, valid=(259, 7), pad="Min")
    m.TLOAD(src, g)
    dst = m.tile("Vec", "ui16", 260, 32, pad="Max")
    m.TFILLPAD(dst, src, mode="expand")
    golden = np.full((260, 32), 65535, np.uint16)
    golden[:259, :7] = data
    golden[:259, 7:16] = 0                                   # pads differ: fill from col 7
    golden[:259, 7:] = 65535
    np.testing.assert_array_equal(m.read_tile(dst), golden)
    with pytest.raises(ptosim.VerifyError, match="TFILLPAD \\(plain\\) needs one element type and one shape"):
        m.TFILLPAD(dst, src)
    # a5 Vec windows: TEXTRACT out of an ND tile, TINSERT an NZ Vec tile into a Mat tile
    big = m.tile("Vec", "f32", 16, 32)
    m.write(big.ptr, np.arange(512, dtype=np.float32))
    win = m.tile("Vec", "f32", 8, 8, valid=(5, 7))
    m.TEXTRACT(win, big, 3, 9)
    np.testing.assert_array_equal(m.read_tile(win), np.arange(512).reshape(16, 32)[3:8, 9:16])
    vec_nz = m.tile("Vec", "f32", 16, 16, blayout="ColMajor", slayout="RowMajor")
    m.write(vec_nz.ptr, np.arange(256, dtype=np.float32).reshape(2, 16, 8))
    mat = m.tile("Mat", "f32", 32, 32, blayout="ColMajor", slayout="RowMajor")
    m.write(mat.ptr, np.zeros(1024, np.float32))
    m.TINSERT(mat, vec_nz, 16, 8)
    logical = np.arange(256).reshape(2, 16, 8).transpose(1, 0, 2).reshape(16, 16)
    np.testing.assert_array_equal(m.read_tile(mat)[16:, 8:24], logical)
