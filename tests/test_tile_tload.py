"""TLOAD / GlobalTensor / TFILLPAD rules found by the independent checks of issue 10: pad
values of every float type, no partial writes, strides the DMA cannot follow, per-target
limits, a5's TFILLPAD start column, cpu_sim_compat's whole-tile image, and `.pto` views as
PTOAS writes them. Goldens are built with numpy (reshape / transpose) or explicit loops."""

import ml_dtypes
import numpy as np
import pytest

import ptosim
from conftest import POISON, raw
from ptosim import OutOfBoundsError, VerifyError
from ptosim.kernel import Kernel

BF16 = ml_dtypes.bfloat16


def nd_view(m, a, stride=None):
    r, c = a.shape
    return m.global_tensor(m.gm(a), shape=(1, 1, 1, r, c), stride=stride or (0, 0, 0, c, 1))


def nz_image(tile_bytes, rows, cols, np_type):
    """(rows, cols) logical matrix of an NZ tile's bytes: [cols / C0][rows][C0]."""
    c0 = 32 // np.dtype(np_type).itemsize
    return tile_bytes.view(np_type).reshape(cols // c0, rows, c0).transpose(1, 0, 2) \
        .reshape(rows, cols)


# --- item 4: bf16 (and other ml_dtypes) pad values ------------------------------------
def test_mte_gm_ub_takes_a_bf16_pad_scalar(m):
    src = m.gm(np.arange(12).astype(BF16))
    ub = m.ptr("ub", "bf16", 0)
    for value in (BF16(0), BF16(2.5)):
        m.mte_gm_ub(src, ub, 0, 24, nburst=(1, 24, 32), pad=(value,))
        got = m.read(ub, 16).astype(np.float32)
        want = np.concatenate([np.arange(12), np.full(4, float(value))]).astype(np.float32)
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("pad, want", [("Zero", 0.0), ("Max", np.inf), ("Min", -np.inf)])
@pytest.mark.parametrize("target", ["a5", "a2a3"])
def test_tload_bf16_vec_tile_with_a_pad(target, pad, want):
    m = ptosim.Machine(target=target, poison=POISON)
    a = (np.arange(4 * 13) % 50).astype(BF16).reshape(4, 13)
    t = m.tile("Vec", "bf16", 4, 32, valid=(4, 13), pad=pad)
    m.TLOAD(t, nd_view(m, a))
    rows = raw(m, "ub")[:4 * 64].reshape(4, 64)
    np.testing.assert_array_equal(rows[:, :26].copy().view(BF16), a)
    assert (rows[:, 26:32].copy().view(BF16).astype(np.float32) == want).all()   # to 32 B
    assert (rows[:, 32:] == POISON).all()


# --- item 5: a refused TLOAD leaves memory unchanged -----------------------------------
def test_refused_cpu_sim_compat_load_writes_nothing(m):
    a = np.ones((8, 16), np.float32)
    g = m.global_tensor(m.gm(a), shape=(1, 1, 1, 16, 16), stride=(0, 0, 0, 16, 1))  # 16 rows
    t = m.tile("Vec", "f32", 16, 16, pad="Max")
    with pytest.raises(OutOfBoundsError, match=r"^TLOAD: gm_src touches GM bytes"):
        m.TLOAD(t, g, cpu_sim_compat=True)
    assert (raw(m, "ub") == POISON).all()


def test_refused_multi_dma_load_writes_nothing(m):
    """s0 = 2: one DMA per slice; the second slice overruns GM, so nothing may move."""
    a = np.ones((3, 16), np.float32)
    g = m.global_tensor(m.gm(a), shape=(2, 1, 1, 2, 16), stride=(32, 32, 32, 16, 1))
    t = m.tile("Vec", "f32", 4, 16)
    with pytest.raises(OutOfBoundsError, match=r"^TLOAD: global_tensor touches GM bytes"):
        m.TLOAD(t, g)
    assert (raw(m, "ub") == POISON).all()


# --- item 6: strides the DMA cannot follow --------------------------------------------
def test_nd_view_with_a_non_unit_innermost_stride_is_refused(m):
    a = np.arange(64, dtype=np.float32).reshape(4, 16)
    g = m.global_tensor(m.gm(a), shape=(1, 1, 1, 4, 4), stride=(0, 0, 0, 16, 2))
    with pytest.raises(VerifyError, match=r"^TLOAD: an ND view's innermost stride "
                                          r"t4 must be 1 .* got stride \(0, 0, 0, 16, 2\)"):
        m.TLOAD(m.tile("Vec", "f32", 4, 8, valid=(4, 4)), g)
    assert (raw(m, "ub") == POISON).all()
    out = m.global_tensor(m.gm_empty(64, "f32"), shape=(1, 1, 1, 4, 4), stride=(0, 0, 0, 16, 2))
    with pytest.raises(VerifyError, match=r"^TSTORE: an ND view's innermost"):
        m.TSTORE(out, m.tile("Vec", "f32", 4, 8, valid=(4, 4)))


def test_dn_view_with_a_non_unit_innermost_stride_is_refused(m):
    g = m.global_tensor(m.gm(np.zeros(256, np.float32)), shape=(1, 1, 1, 8, 4),
                        stride=(0, 0, 0, 2, 32), layout="DN")
    with pytest.raises(VerifyError, match=r"^TLOAD: a DN view's innermost stride "
                                          r"t3 must be 1"):
        m.TLOAD(m.tile("Vec", "f32", 8, 4, blayout="ColMajor"), g)


def test_a_unit_extent_makes_its_stride_irrelevant(m):
    """One column: t4 is never applied (the manual's dst(i, 0) = src(r0 + i, c0))."""
    a = np.arange(16, dtype=np.float32).reshape(16, 1)
    g = m.global_tensor(m.gm(a), shape=(1, 1, 1, 16, 1), stride=(0, 0, 0, 1, 7))
    t = m.tile("Vec", "f32", 16, 8, valid=(16, 1))
    m.TLOAD(t, g)
    np.testing.assert_array_equal(m.read_tile(t), a)


# --- item 7: per-target rules ----------------------------------------------------------
@pytest.mark.parametrize("pad", ["Max", "Min", 5])
def test_a5_64_bit_pads_are_null_or_zero(m, pad):
    g = nd_view(m, np.arange(8 * 3, dtype=np.int64).reshape(8, 3))
    t = m.tile("Vec", "i64", 8, 4, valid=(8, 3), pad=pad)
    with pytest.raises(VerifyError, match=r"^TLOAD: a 64-bit tile loads with pad Null or "
                                          r"Zero on a5, got"):
        m.TLOAD(t, g)
    m.TLOAD(m.tile("Vec", "i64", 8, 4, valid=(8, 3), pad="Zero"), g)      # still legal


def test_a2a3_64_bit_max_pad_still_pads_zero():
    m = ptosim.Machine(target="a2a3", poison=POISON)
    a = np.arange(8 * 3, dtype=np.int64).reshape(8, 3)
    t = m.tile("Vec", "i64", 8, 4, valid=(8, 3), pad="Max")
    m.TLOAD(t, nd_view(m, a))
    assert (raw(m, "ub")[:256].view(np.int64).reshape(8, 4)[:, 3] == 0).all()


@pytest.mark.parametrize("role", ["Vec", "Mat"])
def test_tload_refuses_1024_byte_fractal_tiles(m, role):
    """An NZ-1024 tile (16 x 16 boxes) is an accumulator's image; GM NZ is 16 x C0."""
    from ptosim.layout import gm_nz_canonical
    shape, stride = gm_nz_canonical(16, 16, "f32")
    g = m.global_tensor(m.gm(np.zeros(256, np.float32)), shape, stride, layout="NZ")
    t = m.tile(role, "f32", 16, 16, blayout="ColMajor", slayout="RowMajor", fractal=1024)
    with pytest.raises(VerifyError, match=r"^TLOAD: a TLOAD writes 512 B \(16 x C0\) "
                                          r"fractals; a NZ tile with 1024 B fractals"):
        m.TLOAD(t, g)
    if role == "Vec":
        with pytest.raises(VerifyError, match=r"^TSTORE: a TSTORE moves 512 B"):
            m.TSTORE(g, t)


def test_a2a3_tload_tile_has_at_most_4095_rows():
    m = ptosim.Machine(target="a2a3")
    a = np.zeros((4096, 8), np.float32)
    with pytest.raises(VerifyError, match=r"^TLOAD: a TLOAD destination has at most 4095 "
                                          r"rows on a2a3, got 4096"):
        m.TLOAD(m.tile("Vec", "f32", 4096, 8), nd_view(m, a))
    t = m.tile("Vec", "f32", 4095, 8, addr=0)
    m.TLOAD(t, nd_view(m, a[:4095]))
    a5 = ptosim.Machine(target="a5")
    a5.TLOAD(a5.tile("Vec", "f32", 4096, 8), nd_view(a5, a))         # a5 has no such limit


# --- item 9: a5 Vec TFILLPAD starts at src's valid column ------------------------------
@pytest.mark.parametrize("target", ["a5", "a2a3"])
def test_tfillpad_start_column_per_target(target):
    m = ptosim.Machine(target=target, poison=POISON)
    src = m.tile("Vec", "f32", 4, 16, valid=(4, 5), pad="Max")
    m.write(src.ptr, np.arange(64, dtype=np.float32))
    dst = m.tile("Vec", "f32", 4, 16, pad="Max")
    m.TFILLPAD(dst, src)
    got = m.read(dst.ptr, 64).reshape(4, 16)
    want = np.arange(64, dtype=np.float32).reshape(4, 16)
    start = 5 if target == "a5" else 8        # a2a3: the 32 B block's tail keeps its data
    want[:, start:] = np.inf
    np.testing.assert_array_equal(got, want)


# --- item 10: cpu_sim_compat reproduces the C++ simulator's whole tile -------------------
@pytest.mark.parametrize("pad, fill", [("Max", np.inf), ("Min", -np.inf), ("Null", 0.0)])
@pytest.mark.parametrize("name, np_type", [("f16", np.float16), ("f32", np.float32)])
def test_cpu_sim_compat_mat_nz_load_is_the_cpu_simulator_image(m, pad, fill, name, np_type):
    """The C++ CPU simulator fills the tile with the pad value, then writes the valid
    elements: nd2nz's zeroed C0 tail lanes carry the pad value there too."""
    a = (np.arange(20 * 13) % 31).astype(np_type).reshape(20, 13)
    t = m.tile("Mat", name, 32, 32, blayout="ColMajor", slayout="RowMajor", valid=(20, 13),
               pad=pad)
    m.TLOAD(t, nd_view(m, a), cpu_sim_compat=True)
    want = np.full((32, 32), fill, np_type)
    want[:20, :13] = a
    np.testing.assert_array_equal(nz_image(raw(m, "l1")[:t.nbytes], 32, 32, np_type), want)


def test_cpu_sim_compat_zn_load_through_dn2zn(m):
    a = np.arange(9 * 20, dtype=np.float32).reshape(9, 20)     # DN: column-major 20 x 9
    g = m.global_tensor(m.gm(a), shape=(1, 1, 1, 20, 9), stride=(0, 0, 0, 1, 20), layout="DN")
    t = m.tile("Mat", "f32", 32, 16, blayout="RowMajor", slayout="ColMajor", valid=(20, 9),
               pad="Min")
    m.TLOAD(t, g, cpu_sim_compat=True)
    want = np.full((32, 16), -np.inf, np.float32)
    want[:20, :9] = a.T
    # ZN: [rows / C0][cols][C0], the C0 lanes along the rows
    got = raw(m, "l1")[:t.nbytes].view(np.float32).reshape(4, 16, 8).transpose(0, 2, 1) \
        .reshape(32, 16)
    np.testing.assert_array_equal(got, want)


# --- item 11: `.pto` views as PTOAS writes them ----------------------------------------
def test_ptoas_nz_view_spelling_loads_like_the_canonical_one(m):
    """[C1, 1, R, 1, C0] (PTOAS) and [1, C1, R / 16, 16, C0] (pto-isa) name the same bytes."""
    x = (np.arange(32 * 24) % 97).astype(np.float32).reshape(32, 24)
    img = x.reshape(32, 3, 8).transpose(1, 0, 2).copy()              # NZ image [3][32][8]
    ptr = m.gm(img)
    tiles = []
    for shape, stride in (((3, 1, 32, 1, 8), (256, 256, 8, 8, 1)),
                          ((1, 3, 2, 16, 8), (768, 256, 128, 8, 1))):
        g = m.global_tensor(ptr, shape, stride, layout="NZ")
        t = m.tile("Vec", "f32", 32, 24, blayout="ColMajor", slayout="RowMajor")
        m.TLOAD(t, g)
        tiles.append(m.read_tile(t))
    np.testing.assert_array_equal(tiles[0], x)
    np.testing.assert_array_equal(tiles[1], x)
    bad = m.global_tensor(ptr, (3, 1, 32, 1, 8), (256, 256, 16, 8, 1), layout="NZ")
    with pytest.raises(VerifyError, match=r"^TLOAD: an NZ view needs s4 = C0 = 8 "
                                          r"with stride 1 and packed rows"):
        m.TLOAD(m.tile("Vec", "f32", 32, 24, blayout="ColMajor", slayout="RowMajor"), bad)


PTO = """module attributes {pto.target_arch = "a5", pto.kernel_kind = #pto.kernel_kind<vector>} {
  func.func @k(%src: !pto.ptr<f32, gm>, %dst: !pto.ptr<f32, gm>) attributes {pto.aicore} {
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c8 = arith.constant 8 : index
    %c10 = arith.constant 10 : index
    %c12 = arith.constant 12 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %c256 = arith.constant 256 : index
    %sv = pto.make_tensor_view %src, shape = [SHAPE], strides = [STRIDES]
      : !pto.tensor_view<VIEW>
    %dv = pto.make_tensor_view %dst, shape = [SHAPE], strides = [STRIDES]
      : !pto.tensor_view<VIEW>
    %t = pto.alloc_tile : !pto.tile_buf<TILE>
    pto.tload ins(%sv : !pto.tensor_view<VIEW>) outs(%t : !pto.tile_buf<TILE>)
    pto.set_flag["PIPE_MTE2", "PIPE_MTE3", "EVENT_ID0"]
    pto.wait_flag["PIPE_MTE2", "PIPE_MTE3", "EVENT_ID0"]
    pto.tstore ins(%t : !pto.tile_buf<TILE>) outs(%dv : !pto.tensor_view<VIEW>)
    return
  }
}
"""


def pto_kernel(shape: str, strides: str, view: str, tile: str) -> Kernel:
    text = PTO.replace("SHAPE", shape).replace("STRIDES", strides).replace("VIEW", view)
    return Kernel.from_text(text.replace("TILE", tile), "k.pto")


def test_pto_nz_view_in_ptoas_convention_round_trips():
    """shape [C1, 1, R, 1, C0] = (3, 1, 32, 1, 8), strides (256, 256, 8, 8, 1): an implicit
    layout, a Vec NZ tile; before, ptosim refused the view (it wanted s3 = 16)."""
    k = pto_kernel("%c3, %c1, %c32, %c1, %c8", "%c256, %c256, %c8, %c8, %c1", "3x1x32x1x8xf32",
                   "vec, 32x24xf32, blayout=col_major, slayout=row_major")
    img = (np.arange(768) % 251).astype(np.float32)
    run = k.run({"src": img, "dst": np.zeros(768, np.float32)})
    np.testing.assert_array_equal(run.outputs["dst"], img)
    np.testing.assert_array_equal(run.machine.blocks[0].ub[0][:3072].view(np.float32), img)


def test_pto_implicit_view_takes_the_dn_tile_layout():
    """shape (1, 1, 1, 10, 12), strides (.., 1, 16): rows are padded to 16 in GM, so the
    strides alone read as neither ND nor DN; the DN Vec tile decides, as in PTOAS."""
    k = pto_kernel("%c1, %c1, %c1, %c10, %c12", "%c256, %c256, %c256, %c1, %c16",
                   "1x1x1x10x12xf32", "vec, 16x12xf32, valid=10x12, blayout=col_major, pad=3")
    col_major = (np.arange(16 * 12) % 89).astype(np.float32)           # 12 columns of 16
    run = k.run({"src": col_major, "dst": np.full(192, -7, np.float32)})
    out = run.outputs["dst"].reshape(12, 16)
    np.testing.assert_array_equal(out[:, :10], col_major.reshape(12, 16)[:, :10])
    assert (out[:, 10:] == -7).all()                  # TSTORE writes the valid rows only
    tile = run.machine.blocks[0].ub[0][:16 * 12 * 4].view(np.float32).reshape(12, 16)
    assert (tile[:, 10:] == -np.finfo(np.float32).max).all()    # `.pto` pad Min = -FLT_MAX
