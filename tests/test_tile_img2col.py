"""SETFMATRIX / SET_IMG2COL_RPT / SET_IMG2COL_PADDING / TIMG2COL (ptosim.tile.img2col)
against an independent im2col golden, pto-isa's timg2col ST kernels (TIMG2COL + TMATMUL
equal the convolution), the register images, and every rule's refusal."""

from __future__ import annotations

import numpy as np
import pytest

import ptosim
from ptosim import Img2colConfig

TARGETS = ("a5", "a2a3")


def golden_im2col(x: np.ndarray, kh: int, kw: int, stride: tuple[int, int],
                  dil: tuple[int, int], pad: tuple[int, int, int, int], pad_value: float
                  ) -> np.ndarray:
    """x: NC1HWC0 with N = 1, pad (top, bottom, left, right). Pad the image explicitly, then walk output positions and
    kernel offsets in loops; a row per output position, its columns ordered (c1, kh, kw,
    c0)."""
    _, c1n, h, w, c0n = x.shape
    top, bottom, left, right = pad                    # gen_data.py's order
    img = np.pad(x[0], ((0, 0), (top, bottom), (left, right), (0, 0)),
                 constant_values=pad_value)
    oh_n = (h + top + bottom - dil[0] * (kh - 1) - 1) // stride[0] + 1
    ow_n = (w + left + right - dil[1] * (kw - 1) - 1) // stride[1] + 1
    rows = []
    for oh in range(oh_n):
        for ow in range(ow_n):
            row = []
            for c1 in range(c1n):
                for i in range(kh):
                    for j in range(kw):
                        row.extend(img[c1, oh * stride[0] + i * dil[0],
                                       ow * stride[1] + j * dil[1], :])
            rows.append(row)
    return np.array(rows, dtype=x.dtype)


def _fmap(m, dt, shape, rng, **cfg):
    n, c1, h, w, c0 = shape
    kw = dict(fmap_h=h, fmap_w=w, channel_size=c1 * c0)
    kw.update(cfg)
    conf = Img2colConfig(**kw)
    a = m.conv_tile(dt, "NC1HWC0", shape, tile_type="Mat", img2col=conf)
    npdt = ptosim.dtype(dt).np
    if dt == "i8":
        x = rng.integers(-128, 128, shape).astype(np.int8)
    else:
        x = rng.uniform(-5, 5, shape).astype(npdt)
    m.write(a.ptr, x.reshape(-1))
    return a, x


# (dtype, NC1HWC0, kernel, stride, dilation, pad (top, bottom, left, right)) of pto-isa's
# a5 timg2col gen_data.py cases 1-8
CASES = [
    ("bf16", (1, 2, 4, 16, 16), 3, 3, (1, 1), (1, 1), (1, 1, 1, 1)),
    ("f16", (1, 4, 4, 16, 16), 3, 3, (1, 1), (2, 1), (1, 1, 1, 1)),
    ("f32", (1, 4, 8, 16, 8), 3, 3, (2, 2), (1, 1), (1, 1, 1, 1)),
    ("i8", (1, 1, 8, 16, 32), 3, 3, (1, 1), (1, 1), (1, 1, 1, 1)),
    ("bf16", (1, 4, 13, 57, 16), 3, 3, (2, 2), (2, 2), (1, 2, 1, 2)),
    ("f16", (1, 4, 25, 9, 16), 3, 3, (2, 1), (1, 2), (1, 1, 1, 1)),
    ("f32", (1, 2, 14, 30, 8), 4, 4, (2, 2), (1, 1), (1, 2, 3, 0)),
    ("i8", (1, 2, 29, 60, 32), 2, 2, (2, 2), (2, 2), (1, 1, 1, 0)),
]


def _cfg(case):
    dt, shape, kh, kw, stride, dil, (t, b, lft, r) = case
    return dict(pad=(lft, r, t, b), filter_h=kh, filter_w=kw, stride_h=stride[0],
                stride_w=stride[1], dilation_h=dil[0], dilation_w=dil[1])


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("case", CASES[:4] + CASES[6:7])
def test_whole_matrix_matches_golden(target, case):
    dt, shape, kh, kw, stride, dil, pad = case
    m = ptosim.Machine(target=target)
    rng = np.random.default_rng(7)
    a, x = _fmap(m, dt, shape, rng, **_cfg(case))
    want = golden_im2col(x, kh, kw, stride, dil, pad, 0)
    mm, kk = want.shape
    rows = -(-mm // 16) * 16
    while rows * kk * ptosim.dtype(dt).size > 64 * 1024:      # L0A holds 64 KB
        kk //= 2
    want = want[:, :kk]
    a = a.with_img2col(dst_stride=rows // 16)
    left = m.tile("Left", dt, rows, kk, valid=(mm, kk))
    m.SETFMATRIX(a)
    m.SET_IMG2COL_RPT(a)
    m.SET_IMG2COL_PADDING(a)
    m.TIMG2COL(left, a, 0, 0)
    np.testing.assert_array_equal(m.read_tile(left), want)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("pos_m, pos_k, vr, vc", [(16, 64, 32, 64), (5, 32, 11, 40),
                                                  (0, 256, 64, 32)])
def test_window_and_pad_value(target, pos_m, pos_k, vr, vc):
    """A window at (pos_m, pos_k) with a nonzero pad value: K aligned up to C0."""
    m = ptosim.Machine(target=target)
    case = ("f16", (1, 2, 8, 24, 16), 3, 3, (1, 2), (1, 1), (2, 0, 1, 1))
    a, x = _fmap(m, "f16", case[1], np.random.default_rng(3), pad_value=-2.5,
                 dst_stride=-(-vr // 16), **_cfg(case))
    want = golden_im2col(x, 3, 3, (1, 2), (1, 1), (2, 0, 1, 1), -2.5)
    left = m.tile("Left", "f16", 64, 64, valid=(vr, vc))
    m.TIMG2COL(left, a, pos_m, pos_k, fmatrix_mode="A_AUTO")
    kk = -(-vc // 16) * 16
    # compact L0A image of vr x kk at the tile's address, read through the same map mad uses
    from ptosim.ops.cube import l0a_layout, read_matrix
    buf, off = m._region(left.ptr, left.nbytes, access="R")
    img = read_matrix(buf, off, l0a_layout(m.target.l0a_layout, vr, kk, left.dtype), left.dtype)
    np.testing.assert_array_equal(img[:vr, :kk], want[pos_m:pos_m + vr, pos_k:pos_k + kk])


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("case", CASES[4:8])
def test_worked_example_split_k_conv(target, case):
    """pto-isa timg2col case5-8 (runTIMG2COLSplitK): K in 64-column steps, TIMG2COL +
    TMATMUL(_ACC) = the convolution as gen_data.py computes it. (The kernel's Left / Right
    tiles are twice as big as their valid shapes; ptosim's TMATMUL refuses tiles whose
    rows are not align16(m), docs/semantics.md TMATMUL, so these are M x 64 / 64 x N.)"""
    dt, shape, kh, kw, stride, dil, pad = case
    m = ptosim.Machine(target=target)
    rng = np.random.default_rng(19)
    n_out = 64 if dt == "i8" else 16
    c1, c0 = shape[1], shape[4]
    a, x = _fmap(m, dt, shape, rng, **_cfg(case))
    wgt = (rng.integers(-128, 128, (c1, kh, kw, n_out, c0)).astype(np.int8) if dt == "i8"
           else rng.uniform(-5, 5, (c1, kh, kw, n_out, c0)).astype(ptosim.dtype(dt).np))
    b = wgt.transpose(0, 1, 2, 4, 3).reshape(-1, n_out)      # K (c1, kh, kw, c0) x N
    acc_t = np.int32 if dt == "i8" else np.float32
    # gen_data.py: the NHWC convolution through its own im2col
    ref = golden_im2col(x, kh, kw, stride, dil, pad, 0).astype(acc_t) @ b.astype(acc_t)
    vm, vk = ref.shape[0], b.shape[0]
    mm = -(-vm // 16) * 16
    a = a.with_img2col(dst_stride=mm // 16)
    base = 64
    left = m.tile("Left", dt, mm, base, valid=(vm, base))
    nn = -(-n_out // 16) * 16
    right = m.tile("Right", dt, base, nn, valid=(base, n_out))
    acc = m.tile("Acc", "i32" if dt == "i8" else "f32", mm, nn, valid=(vm, n_out))
    mode = "B_AUTO" if target == "a5" else "B_MANUAL"
    m.SETFMATRIX(a, fmatrix_mode="B_MANUAL")
    m.SET_IMG2COL_PADDING(a)
    for i in range(-(-vk // base)):
        m.TIMG2COL(left, a, 0, i * base, fmatrix_mode=mode)
        blk = np.zeros((base, nn), b.dtype)
        blk[:base, :n_out] = b[i * base:(i + 1) * base]
        m._store_matrix(right, slice(None), slice(None), blk)
        (m.TMATMUL if i == 0 else m.TMATMUL_ACC)(acc, left, right)
    got = m.read_tile(acc)
    if dt == "i8":
        np.testing.assert_array_equal(got, ref)
    else:
        np.testing.assert_allclose(got, ref, rtol=2e-5, atol=2e-3)


@pytest.mark.parametrize("target", TARGETS)
def test_register_images(target):
    """The packed register values of SetFmatrix.hpp / SetImg2colRpt.hpp /
    SetImg2colPadding.hpp, per target and mode."""
    m = ptosim.Machine(target=target)
    cfg = Img2colConfig(fmap_h=0x1234, fmap_w=0x0567, pad=(1, 2, 3, 4), repeat_stride=7,
                        repeat_time=1, repeat_mode=1, dst_stride=9, dst_mposition=0,
                        pad_value=-1)
    a = m.conv_tile("i8", "NC1HWC0", (1, 1, 2, 2, 32), tile_type="Mat", img2col=cfg)
    m.SETFMATRIX(a, fmatrix_mode="B_MANUAL")
    m.SET_IMG2COL_RPT(a, fmatrix_mode="B_MANUAL")
    m.SET_IMG2COL_PADDING(a, fmatrix_mode="B_MANUAL")
    fm = 0x0567 | 0x1234 << 16 | 1 << 32 | 2 << 40 | 3 << 48 | 4 << 56
    rpt = 7 | 1 << 16 | 1 << 24
    sfx = "_b" if target == "a5" else ""       # a2a3 has one repeat / padding register
    want = {"fmatrix_b": (fm,), "l3d_rpt" + sfx: (rpt | (9 << 32 if target == "a5" else 0),),
            "padding" + sfx: (0xFFFF,)}
    assert m.regs == want
    m.SETFMATRIX(a, fmatrix_mode="A_AUTO")     # AUTO modes leave the registers alone
    m.SET_IMG2COL_RPT(a, fmatrix_mode="B_AUTO")
    m.SET_IMG2COL_PADDING(a, fmatrix_mode="A_AUTO")
    assert m.regs == want
    f = m.conv_tile("f32", "NC1HWC0", (1, 1, 2, 2, 8), tile_type="Mat",
                    img2col=Img2colConfig(pad_value=1.5))
    m.SET_IMG2COL_PADDING(f)
    assert m.regs["padding"] == (0x3FC00000,)
    h = m.conv_tile("bf16", "NC1HWC0", (1, 1, 2, 2, 16), tile_type="Mat",
                    img2col=Img2colConfig(pad_value=-2))
    m.SET_IMG2COL_PADDING(h)
    assert m.regs["padding"] == (0xC000,)


def test_fmatrix_b_is_separate_and_auto_programs():
    """TIMG2COL in a B mode reads fmatrix_b: an A-only SETFMATRIX leaves it unset."""
    m = ptosim.Machine(target="a5")
    a, _ = _fmap(m, "f16", (1, 1, 4, 4, 16), np.random.default_rng(0), dst_stride=1)
    left = m.tile("Left", "f16", 16, 16)
    m.SETFMATRIX(a)
    with pytest.raises(ptosim.VerifyError, match="fmatrix_b was never set"):
        m.TIMG2COL(left, a, fmatrix_mode="B_MANUAL")
    before = dict(m.regs)
    with pytest.raises(ptosim.NotImplementedOpError, match="repeat time of 3"):
        m.TIMG2COL(left, a.with_img2col(repeat_time=3), fmatrix_mode="B_AUTO")
    assert m.regs == before                   # a refused AUTO op keeps the registers
    m.TIMG2COL(left, a, fmatrix_mode="B_AUTO")
    assert {"fmatrix_b", "l3d_rpt_b", "padding_b"} <= set(m.regs)


def _setup(target="a5", dt="f16", shape=(1, 1, 4, 4, 16), **cfg):
    m = ptosim.Machine(target=target)
    base = dict(dst_stride=1)
    base.update(cfg)
    a, _ = _fmap(m, dt, shape, np.random.default_rng(0), **base)
    return m, a


@pytest.mark.parametrize("make, kind, msg", [
    (lambda m, a: (m.tile("Right", "f16", 16, 16), a), ptosim.VerifyError,
     "dst must be a Left tile"),
    (lambda m, a: (m.tile("Left", "bf16", 16, 16), a), ptosim.DtypeError,
     "dst and src element types differ: bf16 vs f16"),
    (lambda m, a: (m.tile("Left", "f16", 16, 16), m.conv_tile(
        "f16", "NCHW", (1, 16, 4, 4), tile_type="Mat")), ptosim.VerifyError,
     "src layout must be NC1HWC0, got NCHW"),
    (lambda m, a: (m.tile("Left", "f16", 16, 16), m.conv_tile(
        "f16", "NC1HWC0", (1, 1, 4, 4, 16))), ptosim.VerifyError,
     "src must be a Mat conv tile, got a Vec one"),
    (lambda m, a: (m.tile("Left", "f16", 16, 16), m.conv_tile(
        "f16", "NC1HWC0", (1, 2, 4, 4, 8), tile_type="Mat")), ptosim.VerifyError,
     r"src's C0 must be one 32 B block \(16 f16\), got 8"),
    (lambda m, a: (m.tile("Left", "f16", 16, 16), m.tile("Mat", "f16", 16, 16)),
     ptosim.PtoTypeError, "src must be a Mat conv tile"),
])
def test_static_rules(make, kind, msg):
    m, a = _setup()
    m.SETFMATRIX(a)
    dst, src = make(m, a)
    with pytest.raises(kind, match=msg):
        m.TIMG2COL(dst, src)


def test_dtype_rules_per_target():
    m, a = _setup("a2a3", "i16", (1, 1, 4, 4, 16))
    m.SETFMATRIX(a)
    with pytest.raises(ptosim.DtypeError, match="must be one of i8, f16, bf16, f32 on a2a3"):
        m.TIMG2COL(m.tile("Left", "i16", 16, 16), a)
    m, a = _setup("a5", "i16", (1, 1, 4, 4, 16))       # a5 takes 16-bit integers
    m.SETFMATRIX(a)
    m.SET_IMG2COL_RPT(a)
    m.TIMG2COL(m.tile("Left", "i16", 16, 16), a)


@pytest.mark.parametrize("cfg, pos, kind, msg", [
    (dict(channel_size=0), (0, 0), ptosim.VerifyError, "channel_size is 0"),
    (dict(channel_size=8), (0, 0), ptosim.NotImplementedOpError,
     "channel_size 8, not a multiple of C0 = 16"),
    (dict(), (0, 8), ptosim.NotImplementedOpError, "pos_k 8, not a multiple of C0"),
    (dict(), (0, 16), ptosim.VerifyError, r"columns \[16, 32\) leave the K"),
    (dict(), (8, 0), ptosim.NotImplementedOpError, r"rows \[8, 24\) pass the 4 x 4"),
    (dict(filter_h=7), (0, 0), ptosim.VerifyError, "kernel does not fit"),
    (dict(transpose=True), (0, 0), ptosim.NotImplementedOpError, "with transpose"),
    (dict(dst_stride=0), (0, 0), ptosim.NotImplementedOpError, "dst stride of 0"),
    (dict(dst_mposition=1), (0, 0), ptosim.NotImplementedOpError, "dst M position of 1"),
    (dict(repeat_time=2), (0, 0), ptosim.NotImplementedOpError, "repeat time of 2"),
    (dict(), (-1, 0), ptosim.FieldRangeError, r"pos_m = -1 is outside \[0, 65535\]"),
    (dict(), (0, 1.0), ptosim.PtoTypeError, "pos_k must be an integer"),
])
def test_operand_rules(cfg, pos, kind, msg):
    m, a = _setup(**cfg)
    m.SETFMATRIX(a)
    m.SET_IMG2COL_RPT(a)
    left = m.tile("Left", "f16", 16, 16)
    with pytest.raises(kind, match=msg):
        m.TIMG2COL(left, a, *pos)


def test_register_rules():
    m, a = _setup()
    left = m.tile("Left", "f16", 16, 16)
    with pytest.raises(ptosim.VerifyError, match="fmatrix was never set"):
        m.TIMG2COL(left, a)
    m.SETFMATRIX(a.with_img2col(fmap_w=0))
    with pytest.raises(ptosim.VerifyError, match="feature map in fmatrix is 4 x 0"):
        m.TIMG2COL(left, a)
    m.SETFMATRIX(a.with_img2col(fmap_h=64))             # reads past the tile
    m.SET_IMG2COL_RPT(a.with_img2col(dst_stride=4))
    with pytest.raises(ptosim.VerifyError, match="src holds 256"):
        m.TIMG2COL(m.tile("Left", "f16", 64, 16, valid=(64, 16)), a)
    with pytest.raises(ptosim.PtoValueError, match="fmatrix_mode must be one of"):
        m.SETFMATRIX(a, fmatrix_mode="C")


def test_dst_too_small():
    """a5 with a dst stride wider than the tile: the fractals leave dst."""
    m, a = _setup(shape=(1, 2, 4, 4, 16), dst_stride=8)
    m.SETFMATRIX(a)
    m.SET_IMG2COL_RPT(a)
    with pytest.raises(ptosim.VerifyError, match="the 16 x 32 im2col block spans 4608 B of L0A but dst holds 1024 B"):
        m.TIMG2COL(m.tile("Left", "f16", 16, 32), a)


@pytest.mark.parametrize("fields, kind, msg", [
    (dict(fmap_h=1 << 16), ptosim.FieldRangeError, r"fmap_h = 65536 is outside \[0, 65535\]"),
    (dict(filter_w=512), ptosim.FieldRangeError, r"filter_w = 512 is outside \[1, 511\]"),
    (dict(stride_h=0), ptosim.FieldRangeError, r"stride_h = 0 is outside \[1, 255\]"),
    (dict(dilation_w=256), ptosim.FieldRangeError, r"dilation_w = 256 is outside"),
    (dict(repeat_time=256), ptosim.FieldRangeError, r"repeat_time = 256 is outside"),
    (dict(pad=(0, 0, 256, 0)), ptosim.FieldRangeError, r"pad top = 256 is outside \[0, 255\]"),
    (dict(pad=(0, 0)), ptosim.PtoTypeError, "pad must be a"),
    (dict(fmap_w=1.0), ptosim.PtoTypeError, "fmap_w must be an integer"),
    (dict(pad_value="0"), ptosim.PtoTypeError, "pad_value must be a number"),
    (dict(transpose=1), ptosim.PtoTypeError, "transpose must be a bool"),
])
def test_config_rules(fields, kind, msg):
    with pytest.raises(kind, match=msg):
        Img2colConfig(**fields)


def test_pad_value_and_tile_rules():
    m = ptosim.Machine(target="a5")
    a = m.conv_tile("i8", "NC1HWC0", (1, 1, 2, 2, 32), tile_type="Mat",
                    img2col=Img2colConfig(pad_value=200))
    with pytest.raises(ptosim.FieldRangeError, match="pad_value 200 is not a i8 value"):
        m.SET_IMG2COL_PADDING(a)
    with pytest.raises(ptosim.FieldRangeError, match=r"pad_value 0\.5 is not a i8 value"):
        m.SET_IMG2COL_PADDING(a.with_img2col(pad_value=0.5))
    v = m.conv_tile("f16", "NC1HWC0", (1, 1, 2, 2, 16))
    with pytest.raises(ptosim.VerifyError, match="only Mat conv tiles carry"):
        v.with_img2col(fmap_h=2)
    with pytest.raises(ptosim.VerifyError, match="img2col= takes an Img2colConfig, on a Mat"):
        m.conv_tile("f16", "NC1HWC0", (1, 1, 2, 2, 16), img2col=Img2colConfig())
    with pytest.raises(ptosim.VerifyError, match=r"conv tiles are Vec .* or Mat"):
        m.conv_tile("f16", "NC1HWC0", (1, 1, 2, 2, 16), tile_type="Left")
    with pytest.raises(ptosim.VerifyError, match="TTRANS converts Vec conv tiles"):
        m.TTRANS(m.conv_tile("f16", "NCHW", (1, 16, 2, 2)),
                 m.conv_tile("f16", "NC1HWC0", (1, 1, 2, 2, 16), tile_type="Mat"),
                 m.tile("Vec", "f16", 16, 16))


@pytest.mark.parametrize("target", TARGETS)
def test_extract_reprograms_fmatrix_on_a2a3(target):
    """a2a3's TEXTRACT / TMOV Mat -> Left / Right run the load-3D with FMATRIX = (W = the
    source's rows or columns, H = 1): SETFMATRIX's value is gone afterwards; a5's are other
    instructions."""
    m, a = _setup(target)
    m.SETFMATRIX(a)
    m.SETFMATRIX(a, fmatrix_mode="B_MANUAL")
    before = dict(m.regs)
    nz = m.tile("Mat", "f16", 32, 64, blayout="ColMajor", slayout="RowMajor")
    zn = m.tile("Mat", "f16", 48, 32, blayout="RowMajor", slayout="ColMajor")
    m.TEXTRACT(m.tile("Left", "f16", 16, 32), nz, 16, 0)
    left_nz = m.regs["fmatrix"]
    m.TMOV(m.tile("Left", "f16", 48, 32), zn)
    left_zn = m.regs["fmatrix"]
    m.TMOV(m.tile("Right", "f16", 48, 32), zn)         # ZN -> Right: load-2D, no FMATRIX
    right_zn = m.regs["fmatrix_b"]
    m.TEXTRACT(m.tile("Right", "f16", 32, 32), nz, 0, 32)
    if target == "a5":
        assert m.regs == before
        return
    assert (left_nz, left_zn) == ((32 | 1 << 16,), (32 | 1 << 16,))
    assert right_zn == before["fmatrix_b"]
    assert m.regs["fmatrix_b"] == (32 | 1 << 16,)
    i8 = m.tile("Mat", "i8", 32, 64, blayout="RowMajor", slayout="ColMajor")
    m.SETFMATRIX(a)
    m.TMOV(m.tile("Left", "i8", 32, 64), i8)           # b8 transposing form: load-2D
    assert m.regs["fmatrix"] == before["fmatrix"]
    # a TIMG2COL after the TEXTRACT reads the 1 x 32 map it left
    m.TEXTRACT(m.tile("Left", "f16", 16, 32), nz, 16, 0)
    with pytest.raises(ptosim.NotImplementedOpError, match=r"pass the 1 x 30"):
        m.TIMG2COL(m.tile("Left", "f16", 32, 16), a.with_img2col(filter_w=3))
