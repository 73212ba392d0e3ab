"""Tile level in Python: Tile / GlobalTensor descriptors, TLOAD / TSTORE / TMOV / TMATMUL.

Parameter rows port the reference suites' tested cases (shapes, dtypes, pads: facts, see
docs/research/tile-level.md §5); every golden is built with numpy."""

import ml_dtypes
import numpy as np
import pytest

import ptosim
from conftest import POISON, raw
from ptosim import SpaceError, VerifyError

NP = {"f32": np.float32, "f16": np.float16, "bf16": ml_dtypes.bfloat16, "i16": np.int16,
      "ui8": np.uint8, "i8": np.int8, "i64": np.int64, "ui64": np.uint64}


def ramp(shape, name):
    return (np.arange(int(np.prod(shape))) % 113).astype(NP[name]).reshape(shape)


def nd_strides(shape):
    s0, s1, s2, s3, s4 = shape
    return (s1 * s2 * s3 * s4, s2 * s3 * s4, s3 * s4, s4, 1)


def pad_golden(name, pad):
    if pad in ("Null", "Zero"):
        return 0
    t = NP[name]
    if np.issubdtype(t, np.floating) or t == ml_dtypes.bfloat16:
        return np.inf if pad == "Max" else -np.inf
    return np.iinfo(t).max if pad == "Max" else np.iinfo(t).min


@pytest.mark.parametrize("name, shape, rows, cols, pad", [
    ("f32", (1, 1, 1, 128, 128), 128, 128, "Null"),
    ("f32", (2, 2, 2, 32, 64), 256, 64, "Null"),
    ("f32", (1, 1, 1, 128, 127), 128, 128, "Max"),
    ("i16", (1, 1, 1, 128, 127), 128, 128, "Max"),
    ("ui8", (1, 1, 1, 128, 127), 128, 128, "Min"),
    ("f32", (2, 2, 2, 32, 60), 256, 64, "Max"),
    ("i64", (1, 1, 1, 128, 128), 128, 128, "Null"),
    ("ui64", (1, 1, 1, 128, 125), 128, 128, "Zero"),
])
def test_tload_vec_nd_reference_cases(m, name, shape, rows, cols, pad):
    """Vec ND: the valid rows land row by row; lanes up to the next 32 B block get the pad
    value (when set); nothing else of the tile is written."""
    data = ramp(shape, name)
    vr, vc = int(np.prod(shape[:4])), shape[4]
    g = m.global_tensor(m.gm(data), shape=shape, stride=nd_strides(shape), layout="ND")
    t = m.tile("Vec", name, rows, cols, valid=(vr, vc), pad=pad)
    m.TLOAD(t, g)
    np.testing.assert_array_equal(m.read_tile(t), data.reshape(vr, vc))
    es = np.dtype(NP[name]).itemsize
    tile_bytes = raw(m, "ub")[:rows * cols * es].reshape(rows, cols * es)
    tail = -(-vc * es // 32) * 32
    if pad != "Null" and tail > vc * es:
        pads = tile_bytes[:vr, vc * es:tail].copy().view(NP[name])
        want = pad_golden(name, pad)
        assert (pads == want).all()
    else:
        assert (tile_bytes[:vr, vc * es:tail] == POISON).all()
    assert (tile_bytes[:vr, tail:] == POISON).all()
    assert (tile_bytes[vr:] == POISON).all()


def test_tload_vec_dn_and_nz(m):
    # DN: column-major view of a 32 x 40 matrix into a DN tile
    a = ramp((40, 32), "f32")                              # stored column by column
    g = m.global_tensor(m.gm(a), shape=(1, 1, 1, 32, 40), stride=(1280, 1280, 1280, 1, 32),
                        layout="DN")
    t = m.tile("Vec", "f32", 32, 40, blayout="ColMajor")
    m.TLOAD(t, g)
    np.testing.assert_array_equal(m.read_tile(t), a.T)
    # NZ -> NZ: the canonical NZ view of a 32 x 48 f16 matrix, byte-identical to the tile
    from ptosim.layout import gm_nz_canonical
    x = ramp((32, 48), "f16")
    nz = x.reshape(32, 3, 16).transpose(1, 0, 2).copy()
    shape, stride = gm_nz_canonical(32, 48, "f16")
    for kind in ("Vec", "Mat"):
        gnz = m.global_tensor(m.gm(nz), shape=shape, stride=stride, layout="NZ")
        tnz = m.tile(kind, "f16", 32, 48, blayout="ColMajor", slayout="RowMajor")
        m.TLOAD(tnz, gnz)
        np.testing.assert_array_equal(m.read_tile(tnz), x)


def test_tload_mat_nd_to_nz_issue_example(m):
    arr = ramp((40, 50), "f16")
    g = m.global_tensor(m.gm(arr), shape=(1, 1, 1, 40, 50), stride=(2000, 2000, 2000, 50, 1),
                        layout="ND")
    t = m.tile("Mat", "f16", 48, 64, blayout="ColMajor", slayout="RowMajor", valid=(40, 50),
               pad="Zero", addr=0)
    m.TLOAD(t, g)
    np.testing.assert_array_equal(m.read_tile(t), arr)
    img = raw(m, "l1")[:48 * 64 * 2].reshape(4, 48, 32)          # [C1][R][32 B]
    assert (img[3, :40, 4:] == 0).all()                          # lanes 50..63 zeroed
    assert (img[:, 40:] == POISON).all()                         # rows 40..47 untouched


@pytest.mark.parametrize("name, vr, vc", [("f32", 49, 35), ("i16", 155, 250), ("bf16", 128, 51)])
def test_tload_nd_to_nz_and_dn_to_zn(m, name, vr, vc):
    a = ramp((vr, vc), name)
    es = np.dtype(NP[name]).itemsize
    c0 = 32 // es
    R, C = -(-vr // 16) * 16, -(-vc // c0) * c0
    g = m.global_tensor(m.gm(a), shape=(1, 1, 1, vr, vc), stride=(0, 0, 0, vc, 1))
    t = m.tile("Mat", name, R, C, blayout="ColMajor", slayout="RowMajor", valid=(vr, vc))
    m.TLOAD(t, g)
    np.testing.assert_array_equal(m.read_tile(t), a)
    # DN -> ZN: the same matrix stored column-major, loaded into a ZN tile
    m2 = ptosim.Machine(poison=POISON)
    R2, C2 = -(-vr // c0) * c0, -(-vc // 16) * 16
    g2 = m2.global_tensor(m2.gm(np.ascontiguousarray(a.T)), shape=(1, 1, 1, vr, vc),
                          stride=(0, 0, 0, 1, vr), layout="DN")
    t2 = m2.tile("Mat", name, R2, C2, blayout="RowMajor", slayout="ColMajor", valid=(vr, vc))
    m2.TLOAD(t2, g2)
    np.testing.assert_array_equal(m2.read_tile(t2), a)


def test_dn_to_nz_is_a5_only():
    for target in ("a5", "a2a3"):
        mm = ptosim.Machine(target=target)
        a = ramp((32, 48), "f16")
        g = mm.global_tensor(mm.gm(np.ascontiguousarray(a.T)), shape=(1, 1, 1, 32, 48),
                             stride=(0, 0, 0, 1, 32), layout="DN")
        t = mm.tile("Mat", "f16", 32, 48, blayout="ColMajor", slayout="RowMajor")
        if target == "a5":
            mm.TLOAD(t, g)
            np.testing.assert_array_equal(mm.read_tile(t), a)
        else:
            with pytest.raises(VerifyError, match="DN -> NZ is not a Mat load on a2a3"):
                mm.TLOAD(t, g)


def test_mat_nd_pads_on_a5_and_needs_whole_blocks_on_a2a3():
    a = ramp((8, 60), "f16")
    for target in ("a5", "a2a3"):
        mm = ptosim.Machine(target=target, poison=POISON)
        g = mm.global_tensor(mm.gm(a), shape=(1, 1, 1, 8, 60), stride=(0, 0, 0, 60, 1))
        t = mm.tile("Mat", "f16", 8, 64, valid=(8, 60))
        if target == "a2a3":
            with pytest.raises(VerifyError, match="moves whole 32 B blocks"):
                mm.TLOAD(t, g)
            continue
        mm.TLOAD(t, g)
        rows = raw(mm, "l1")[:8 * 128].reshape(8, 128)
        assert (rows[:, 120:] == 0).all()                        # Null pads with 0 on a5 Mat
        np.testing.assert_array_equal(mm.read_tile(t), a)


def test_cpu_sim_compat_fills_the_whole_tile(m):
    a = ramp((4, 24), "f32")
    g = m.global_tensor(m.gm(a), shape=(1, 1, 1, 4, 24), stride=(0, 0, 0, 24, 1))
    t = m.tile("Vec", "f32", 8, 32, valid=(4, 24), pad="Min")
    m.TLOAD(t, g, cpu_sim_compat=True)
    whole = m.read(t.ptr, 8 * 32).reshape(8, 32)
    np.testing.assert_array_equal(whole[:4, :24], a)
    assert (whole[4:] == -np.inf).all() and (whole[:, 24:] == -np.inf).all()


def test_tstore_round_trips_vec_layouts(m):
    a = ramp((2, 2, 2, 16, 24), "f32")
    shape = a.shape
    g = m.global_tensor(m.gm(a), shape=shape, stride=nd_strides(shape))
    t = m.tile("Vec", "f32", 128, 24)
    m.TLOAD(t, g)
    out = m.gm_empty(a.size, "f32")
    m.TSTORE(m.global_tensor(out, shape=shape, stride=nd_strides(shape)), t)
    np.testing.assert_array_equal(m.read(out, a.size), a.ravel())


def full_matmul(m, name, acc_name, M, K, N, bias=None):
    """GM -> Mat (ND->NZ) -> Left/Right (TMOV) -> TMATMUL[_BIAS] -> TSTORE (Acc -> GM)."""
    c0 = 32 // np.dtype(NP.get(name, np.float16)).itemsize
    a, b = ramp((M, K), name) % 5, ramp((K, N), name) % 7
    Kp = -(-K // max(16, c0)) * max(16, c0)
    ga = m.global_tensor(m.gm(a), shape=(1, 1, 1, M, K), stride=(0, 0, 0, K, 1))
    gb = m.global_tensor(m.gm(b), shape=(1, 1, 1, K, N), stride=(0, 0, 0, N, 1))
    Mp, Np_ = -(-M // 16) * 16, -(-N // 16) * 16
    Kc = -(-K // c0) * c0
    if m.target.name == "a2a3":
        Kp = Kc                       # ZZ L0A tiles are exactly align(K, C0) wide
    ma = m.tile("Mat", name, Mp, Kp, blayout="ColMajor", slayout="RowMajor", valid=(M, K))
    mb = m.tile("Mat", name, Kp, Np_, blayout="ColMajor", slayout="RowMajor", valid=(K, N))
    m.TLOAD(ma, ga)
    m.TLOAD(mb, gb)
    left = m.tile("Left", name, Mp, Kp, valid=(M, K))
    right = m.tile("Right", name, Kp, Np_, valid=(K, N))
    acc = m.tile("Acc", acc_name, Mp, Np_, valid=(M, N))
    m.TMOV(left, ma)
    m.TMOV(right, mb)
    if bias is None:
        m.TMATMUL(acc, left, right)
    else:
        gbias = m.global_tensor(m.gm(bias), shape=(1, 1, 1, 1, N), stride=(0, 0, 0, N, 1))
        mbias = m.tile("Mat", acc_name, 1, N)
        m.TLOAD(mbias, gbias)
        tbias = m.tile("Bias", acc_name, 1, N)
        m.TMOV(tbias, mbias)
        m.TMATMUL_BIAS(acc, left, right, tbias)
    out = m.gm_empty(M * N, acc_name)
    m.TSTORE(m.global_tensor(out, shape=(1, 1, 1, M, N), stride=(0, 0, 0, N, 1)), acc)
    want = a.astype(np.float64) @ b.astype(np.float64) + (0 if bias is None else bias)
    return m.read(out, M * N).reshape(M, N), want, acc


@pytest.mark.parametrize("target", ["a5", "a2a3"])
@pytest.mark.parametrize("name, acc, M, K, N", [("f16", "f32", 40, 50, 60), ("f32", "f32", 31, 32, 16),
                                                 ("i8", "i32", 33, 64, 32), ("bf16", "f32", 64, 64, 64)])
def test_tmatmul_through_tiles(target, name, acc, M, K, N):
    m = ptosim.Machine(target=target)
    got, want, _ = full_matmul(m, name, acc, M, K, N)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("target", ["a5", "a2a3"])
@pytest.mark.parametrize("op", ["TMATMUL", "TMATMUL_ACC", "TMATMUL_BIAS"])
def test_tmatmul_with_one_left_row(target, op):
    """A one-row Left tile is still a fractal tile: the library keeps mad off its GEMV path
    (a5: disable_gemv; a2a3 issues m = 16), so A 1x32 . ones(32x16) is the row sum 496."""
    m = ptosim.Machine(target=target)
    a = np.arange(32, dtype=np.float16).reshape(1, 32)
    b = np.ones((32, 16), np.float16)
    ma = m.tile("Mat", "f16", 16, 32, blayout="ColMajor", slayout="RowMajor", valid=(1, 32))
    mb = m.tile("Mat", "f16", 32, 16, blayout="ColMajor", slayout="RowMajor")
    m.TLOAD(ma, m.global_tensor(m.gm(a), (1, 1, 1, 1, 32), (32, 32, 32, 32, 1)))
    m.TLOAD(mb, m.global_tensor(m.gm(b), (1, 1, 1, 32, 16), (512, 512, 512, 16, 1)))
    left = m.tile("Left", "f16", 16, 32, valid=(1, 32))
    right = m.tile("Right", "f16", 32, 16)
    acc = m.tile("Acc", "f32", 16, 16, valid=(1, 16))
    m.TMOV(left, ma)
    m.TMOV(right, mb)
    want = np.einsum("ik,kj->ij", a.astype(np.float64), b.astype(np.float64))
    if op == "TMATMUL":
        m.TMATMUL(acc, left, right)
    elif op == "TMATMUL_ACC":
        m.TMATMUL(acc, left, right)
        m.TMATMUL_ACC(acc, left, right)
        want = 2 * want
    else:
        bias = np.arange(16, dtype=np.float32)
        mbias = m.tile("Mat", "f32", 1, 16)
        m.TLOAD(mbias, m.global_tensor(m.gm(bias), (1, 1, 1, 1, 16), (16, 16, 16, 16, 1)))
        tbias = m.tile("Bias", "f32", 1, 16)
        m.TMOV(tbias, mbias)
        m.TMATMUL_BIAS(acc, left, right, tbias)
        want = want + bias
    assert want[0, 0] == (496 if op != "TMATMUL_ACC" else 992)
    np.testing.assert_array_equal(m.read_tile(acc), want)


def test_tmatmul_bias_acc_and_acc_to_vec(m):
    bias = np.arange(48, dtype=np.float32)
    got, want, acc = full_matmul(m, "f16", "f32", 32, 32, 48, bias=bias)
    np.testing.assert_array_equal(got, want)
    vec = m.tile("Vec", "f16", 32, 48)
    m.TMOV(vec, acc)                                               # Acc -> Vec with f32 -> f16
    np.testing.assert_array_equal(m.read_tile(vec), want.astype(np.float16))


@pytest.mark.parametrize("kwargs, msg", [
    (dict(tile_type="Vec", dtype="f16", rows=16, cols=8), "ND tile's row \\(8 x 2 B\\) must be a multiple of 32"),
    (dict(tile_type="Mat", dtype="f16", rows=40, cols=64, blayout="ColMajor", slayout="RowMajor"),
     "NZ tile rows 40 must be a multiple of the fractal's 16 rows"),
    (dict(tile_type="Mat", dtype="f16", rows=32, cols=40, blayout="ColMajor", slayout="RowMajor"),
     "NZ tile cols 40 must be a multiple of the fractal's 16 columns"),
    (dict(tile_type="Cube", dtype="f16", rows=16, cols=16), "unknown TileType 'Cube'"),
    (dict(tile_type="Left", dtype="f16", rows=16, cols=16, blayout="RowMajor", slayout="RowMajor"),
     "a Left tile cannot be ZZ with 512 B fractals on a5; legal: NZ-512"),
    (dict(tile_type="Vec", dtype="f32", rows=16, cols=16, valid=(17, 16)),
     "valid region 17x16 must lie within the tile 16x16"),
    (dict(tile_type="Vec", dtype="f32", rows=16, cols=16, addr=48), "must be 32-byte aligned"),
    (dict(tile_type="Vec", dtype="f32", rows=1024, cols=1024), "no room for a 4194304 B tile"),
    (dict(tile_type="Vec", dtype="f32", rows=16, cols=16, pad="Huge"), "pad must be Null, Zero"),
])
def test_tile_descriptor_rules(m, kwargs, msg):
    with pytest.raises(VerifyError, match=msg):
        m.tile(kwargs.pop("tile_type"), kwargs.pop("dtype"), kwargs.pop("rows"),
               kwargs.pop("cols"), **kwargs)


def test_automatic_placement_never_overlaps(m):
    tiles = [m.tile("Vec", "f32", 16, 16) for _ in range(3)] + [m.tile("Left", "f16", 16, 16)]
    starts = [t.ptr.offset for t in tiles[:3]]
    assert starts == [0, 1024, 2048] and tiles[3].ptr.offset == 0
    pinned = m.tile("Mat", "f16", 16, 16, addr=4096)             # TASSIGN, then automatic
    after = m.tile("Mat", "f16", 16, 16)
    assert after.ptr.offset >= pinned.ptr.offset + pinned.nbytes


@pytest.mark.parametrize("call, err, msg", [
    (lambda m, g, t: m.TLOAD(m.tile("Vec", "f16", 32, 48, blayout="ColMajor", slayout="RowMajor"), g),
     VerifyError, "ND -> NZ is not a Vec load on a5"),
    (lambda m, g, t: m.TLOAD(m.tile("Vec", "f32", 16, 48), g), VerifyError,
     "element sizes differ: tile f32, view f16"),
    (lambda m, g, t: m.TLOAD(m.tile("Vec", "f16", 16, 48), g), VerifyError,
     "the ND view is 32x48: it must cover the tile's valid region 16x48 and fit its shape "
     "16x48"),
    (lambda m, g, t: m.TLOAD(m.tile("Acc", "f32", 32, 48), g), VerifyError,
     "element sizes differ"),
    (lambda m, g, t: m.TLOAD(t, "not a view"), SpaceError, "expected a GlobalTensor"),
    (lambda m, g, t: m.TSTORE(g, m.tile("Mat", "f16", 32, 48)), ptosim.TargetError,
     "a Mat tile cannot be stored on a5"),
    (lambda m, g, t: m.TSTORE(g, m.tile("Left", "f16", 32, 48)), VerifyError,
     "TSTORE stores Vec, Mat \\(a2a3\\) or Acc tiles, got Left"),
    (lambda m, g, t: m.TMATMUL(t, t, t), SpaceError, "acc must be a Acc tile"),
])
def test_tile_op_rules(m, call, err, msg):
    g = m.global_tensor(m.gm(ramp((32, 48), "f16")), shape=(1, 1, 1, 32, 48),
                        stride=(0, 0, 0, 48, 1))
    t = m.tile("Vec", "f16", 32, 48)
    with pytest.raises(err, match=msg):
        call(m, g, t)


def test_zz_left_width_must_match_k():
    m = ptosim.Machine(target="a2a3")
    left = m.tile("Left", "f32", 16, 32, valid=(16, 24))
    right = m.tile("Right", "f32", 32, 16, valid=(24, 16))
    acc = m.tile("Acc", "f32", 16, 16)
    with pytest.raises(VerifyError, match=r"ZZ left tile's row blocks are align\(k, C0\) = 24"):
        m.TMATMUL(acc, left, right)


def test_micro_op_errors_are_reported_as_the_tile_op(m):
    a = ramp((1, 1, 1, 16, 16), "f32")
    g = m.global_tensor(m.gm(a), shape=(1, 1, 1, 16, 16), stride=(0, 0, 0, 1 << 41, 1))
    with pytest.raises(ptosim.FieldRangeError, match=r"^TLOAD: nburst src_stride .*\(in its mte_gm_ub\)"):
        m.TLOAD(m.tile("Vec", "f32", 16, 16), g)


def nz_mat(m, a, rows, cols, name):
    g = m.global_tensor(m.gm(a), shape=(1, 1, 1, *a.shape), stride=(0, 0, 0, a.shape[1], 1))
    t = m.tile("Mat", name, rows, cols, blayout="ColMajor", slayout="RowMajor", valid=a.shape)
    m.TLOAD(t, g)
    return t


@pytest.mark.parametrize("target", ["a5", "a2a3"])
@pytest.mark.parametrize("role", ["Left", "Right"])
def test_textract_full_window_equals_tmov(target, role):
    """TEXTRACT at (0, 0) and TMOV (lowered to mte_l1_l0a/b) leave the same L0 bytes."""
    a = ramp((64, 64), "f16")
    images = []
    for how in ("TMOV", "TEXTRACT"):
        m = ptosim.Machine(target=target, poison=POISON)
        src = nz_mat(m, a, 64, 64, "f16")
        dst = m.tile(role, "f16", 64, 64)
        m.TMOV(dst, src) if how == "TMOV" else m.TEXTRACT(dst, src, 0, 0)
        images.append(raw(m, "l0a" if role == "Left" else "l0b")[:64 * 64 * 2].copy())
    np.testing.assert_array_equal(images[0], images[1])


def test_textract_window(m):
    a = ramp((64, 96), "f16")
    src = nz_mat(m, a, 64, 96, "f16")
    left = m.tile("Left", "f16", 32, 48)
    m.TEXTRACT(left, src, 16, 32)
    np.testing.assert_array_equal(m.read_tile(left), a[16:48, 32:80])
    right = m.tile("Right", "f16", 32, 32)
    m.TEXTRACT(right, src, 32, 48)
    np.testing.assert_array_equal(m.read_tile(right), a[32:64, 48:80])
    with pytest.raises(VerifyError, match="must start on a fractal: row 8 a multiple of 16"):
        m.TEXTRACT(left, src, 8, 0)
    with pytest.raises(VerifyError, match="a 32x48 window at \\(48, 0\\) leaves the 64x96 source"):
        m.TEXTRACT(left, src, 48, 0)


def test_tinsert_vec_and_acc_to_mat(m):
    big = m.tile("Vec", "f32", 16, 32)
    m.write(big.ptr, np.zeros(16 * 32, np.float32))
    small = m.tile("Vec", "f32", 8, 8)
    m.write(small.ptr, np.arange(64, dtype=np.float32))
    m.TINSERT(big, small, 4, 16)
    want = np.zeros((16, 32), np.float32)
    want[4:12, 16:24] = np.arange(64).reshape(8, 8)
    np.testing.assert_array_equal(m.read_tile(big), want)
    m.TINSERT(big, small, 0, 3)                       # a5 inserts at any column
    assert (m.read_tile(big)[0:8, 3:11] == np.arange(64).reshape(8, 8)).all()
    m2 = ptosim.Machine(target="a2a3")
    big2, small2 = m2.tile("Vec", "f32", 16, 32), m2.tile("Vec", "f32", 8, 8)
    with pytest.raises(VerifyError, match="column 3 must start on a 32 B block on a2a3"):
        m2.TINSERT(big2, small2, 0, 3)
    # Acc (f32) -> Mat (f16, NZ): converted, placed at a fractal-aligned corner
    acc = m.tile("Acc", "f32", 16, 16)
    c = np.arange(256, dtype=np.float32).reshape(16, 16) + 0.5
    m.write(acc.ptr, c.reshape(16, 1, 16).transpose(1, 0, 2))      # NZ 16x16 image
    mat = m.tile("Mat", "f16", 32, 32, blayout="ColMajor", slayout="RowMajor")
    m.write(mat.ptr, np.zeros(32 * 32, np.float16))
    m.TINSERT(mat, acc, 16, 16)
    got = m.read_tile(mat)
    np.testing.assert_array_equal(got[16:, 16:], c.astype(np.float16))
    assert (got[:16] == 0).all() and (got[:, :16] == 0).all()


def test_tfillpad_vec_and_mat(m):
    src = m.tile("Vec", "f32", 8, 16, valid=(5, 11), pad="Null")
    m.write(src.ptr, np.arange(128, dtype=np.float32))
    dst = m.tile("Vec", "f32", 8, 16, valid=(7, 16), pad=-1.5)
    m.TFILLPAD(dst, src)
    whole = m.read(dst.ptr, 128).reshape(8, 16)
    want = np.full((8, 16), POISON_F32(), np.float32)
    want[:5] = np.arange(128).reshape(8, 16)[:5]
    want[:5, 11:] = -1.5                       # pads differ: from the valid edge on
    want[5:7] = -1.5
    np.testing.assert_array_equal(whole[:7], want[:7])
    assert (m.read(dst.ptr + 7 * 16, 16).view(np.uint32) == 0xCDCDCDCD).all()   # untouched
    mat = nz_mat(m, ramp((20, 40), "f16"), 32, 48, "f16")
    m.TFILLPAD(mat, mat)
    got = m.read_tile(m.tile("Mat", "f16", 32, 48, blayout="ColMajor", slayout="RowMajor",
                             addr=mat.ptr.offset))
    assert (got[20:] == 0).all() and (got[:, 48:] == 0).all()
    np.testing.assert_array_equal(got[:20, :40], ramp((20, 40), "f16"))
    with pytest.raises(VerifyError, match="pad value must not be Null"):
        m.TFILLPAD(m.tile("Vec", "f32", 8, 16), src)


def POISON_F32():
    return np.frombuffer(bytes([POISON] * 4), np.float32)[0]


@pytest.mark.parametrize("ptoas, want", [(False, 0.0), (True, -1.0)])
def test_tfillpad_ptoas_template_fills_zero_pad_expansion_with_minus_one(ptoas, want):
    """PTOAS's tfillpad templates stand in -1.0 for a Zero pad of an f32 tile whose valid
    region grows (lib/TileOps/tfillpad_template.py; the Gym tfillpad neg1 cases)."""
    m = ptosim.Machine(target="a5")
    src = m.tile("Vec", "f32", 8, 64, valid=(8, 40))
    dst = m.tile("Vec", "f32", 8, 64, pad="Zero")
    m.write(src.ptr, np.arange(512, dtype=np.float32))
    m.TFILLPAD(dst, src, ptoas=ptoas)
    got = m.read(dst.ptr, 512).reshape(8, 64)
    np.testing.assert_array_equal(got[:, :40],
                                  np.arange(512, dtype=np.float32).reshape(8, 64)[:, :40])
    assert (got[:, 40:] == want).all()
