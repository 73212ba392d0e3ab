"""TLOAD GM -> Mat conv tile (ptosim.tile.conv_load): every form against an independent
numpy golden (pad / reshape / transpose of the whole GM array), the bytes left untouched,
the micro-ops' accesses, a worked example (TLOAD the feature map, TIMG2COL, TMATMUL = a
numpy convolution) and each rule's refusal."""

from __future__ import annotations

import numpy as np
import pytest

import ptosim
from ptosim import DtypeError, NotImplementedOpError, PtoTypeError, VerifyError

SENT = 0x5A   # the L1 byte pattern before a load: bytes the load must not touch keep it


def _strides(shape):
    return tuple(int(np.prod(shape[i + 1:])) for i in range(len(shape)))


def _machine(target):
    m = ptosim.Machine(target=target)
    return m


def _tile(m, dt, layout, shape):
    t = m.conv_tile(dt, layout, shape, tile_type="Mat")
    m.write(t.ptr.cast("ui8"), np.full(t.nbytes, SENT, np.uint8))
    return t


def _read(m, t):
    return m.read(t.ptr, t.elems).reshape(t.shape)


def _data(dt, shape, rng):
    npdt = ptosim.dtype(dt).np
    if npdt.itemsize == 1 or np.issubdtype(npdt, np.integer):
        return rng.integers(-100, 100, shape).astype(npdt)
    return rng.uniform(-4, 4, shape).astype(npdt)


def _sent(dt):
    return np.frombuffer(bytes([SENT]) * ptosim.dtype(dt).size, ptosim.dtype(dt).np)[0]


def _c0(dt):
    return 32 // ptosim.dtype(dt).size


# ---------------------------------------------------------------- NC1HWC0 -> NC1HWC0
@pytest.mark.parametrize("target", ["a5", "a2a3"])
@pytest.mark.parametrize("dt, tile, whole", [
    # pto-isa tload_mix / tload_gm2mat NC1HWC0 cases, scaled down: a window of a larger
    # NC1HWC0 tensor (tile shape, whole GM shape)
    ("i8", (1, 3, 16, 12, 32), (3, 4, 20, 16, 32)),
    ("i8", (3, 2, 8, 12, 32), (3, 8, 8, 12, 32)),
    ("bf16", (2, 1, 4, 8, 16), (2, 3, 6, 8, 16)),
    ("f32", (1, 1, 5, 7, 8), (2, 3, 9, 11, 8)),
    ("f16", (1, 2, 1, 9, 16), (1, 2, 3, 10, 16)),
])
def test_5hd_window(target, dt, tile, whole):
    m = _machine(target)
    x = _data(dt, whole, np.random.default_rng(1))
    g = m.global_tensor(m.gm(x), tile, _strides(whole), "NC1HWC0")
    t = _tile(m, dt, "NC1HWC0", tile)
    m.TLOAD(t, g)
    n, c1, h, w, _ = tile
    np.testing.assert_array_equal(_read(m, t), x[:n, :c1, :h, :w, :])


# ---------------------------------------------------------------- FRACTAL_Z -> FRACTAL_Z
@pytest.mark.parametrize("target, layout", [("a5", "FRACTAL_Z"), ("a2a3", "FRACTAL_Z"),
                                            ("a2a3", "FRACTAL_Z_3D")])
@pytest.mark.parametrize("dt", ["f16", "i8", "f32"])
def test_fractal_z_rows(target, layout, dt):
    """[C1HW, N/16, 16, C0] rows of a GM tensor whose rows hold more N blocks."""
    m = _machine(target)
    c0 = _c0(dt)
    whole = (1, 6, 3, 16, c0)
    x = _data(dt, whole, np.random.default_rng(2))
    shape = (6, 2, 16, c0)
    g = m.global_tensor(m.gm(x), (1,) + shape, _strides(whole), layout)
    t = _tile(m, dt, layout, shape)
    m.TLOAD(t, g)
    np.testing.assert_array_equal(_read(m, t), x[0, :, :2])


@pytest.mark.parametrize("target", ["a5", "a2a3"])
@pytest.mark.parametrize("dt, tile, whole", [
    # pto-isa a2a3 timg2col's filter load: FRACTAL_Z [C1, H, W, N, C0] (here a window of
    # more N on a5; a2a3 steps rows by the W stride, so only N may be windowed there)
    ("f16", (2, 3, 3, 16, 16), (2, 3, 3, 32, 16)),
    ("i8", (1, 2, 2, 32, 32), (1, 2, 2, 32, 32)),
])
def test_fractal_z_5d(target, dt, tile, whole):
    m = _machine(target)
    x = _data(dt, whole, np.random.default_rng(12))
    g = m.global_tensor(m.gm(x), tile, _strides(whole), "FRACTAL_Z")
    t = _tile(m, dt, "FRACTAL_Z", tile)
    m.TLOAD(t, g)
    np.testing.assert_array_equal(_read(m, t), x[:, :, :, :tile[3]])


def test_fractal_z_5d_a5_windows_every_axis():
    m = _machine("a5")
    whole, tile = (3, 4, 5, 32, 16), (2, 3, 2, 16, 16)
    x = _data("f16", whole, np.random.default_rng(13))
    g = m.global_tensor(m.gm(x), tile, _strides(whole), "FRACTAL_Z")
    t = _tile(m, "f16", "FRACTAL_Z", tile)
    m.TLOAD(t, g)
    np.testing.assert_array_equal(_read(m, t), x[:2, :3, :2, :16])


# ---------------------------------------------------------------- NHWC -> NC1HWC0 (a5)
@pytest.mark.parametrize("dt, n, h, w, c, c1, whole", [
    ("i8", 1, 3, 11, 40, 3, (1, 2, 5, 13, 45)),      # C in 2 of 3 C1 blocks
    ("bf16", 2, 4, 6, 16, 1, (1, 2, 4, 6, 16)),       # whole tensor, C = C0
    ("f32", 2, 3, 5, 19, 3, (1, 3, 4, 7, 25)),        # C = 19: C1 blocks 0..2, lanes 19..23 zero
    ("f16", 1, 2, 3, 5, 2, (1, 1, 2, 3, 5)),          # block 1 untouched
])
def test_nhwc(dt, n, h, w, c, c1, whole):
    m = _machine("a5")
    x = _data(dt, whole, np.random.default_rng(3))
    c0 = _c0(dt)
    g = m.global_tensor(m.gm(x), (1, n, h, w, c), _strides(whole), "NHWC")
    t = _tile(m, dt, "NC1HWC0", (n, c1, h, w, c0))
    m.TLOAD(t, g)
    got = _read(m, t)
    used = -(-c // c0)
    win = np.zeros((n, h, w, used * c0), x.dtype)
    win[..., :c] = x[0, :n, :h, :w, :c]
    want = win.reshape(n, h, w, used, c0).transpose(0, 3, 1, 2, 4)
    np.testing.assert_array_equal(got[:, :used], want)
    assert (got[:, used:].view(np.uint8) == SENT).all()


# ---------------------------------------------------------------- NCHW -> NC1HWC0 (a5)
@pytest.mark.parametrize("dt, n, c, h, w, c1, whole", [
    ("f16", 2, 20, 3, 5, 2, (1, 2, 20, 3, 5)),        # rows W long: one group of H x W
    ("f16", 1, 10, 16, 1, 1, (1, 1, 10, 16, 1)),      # the micro-op's known case, 10 -> 16
    ("i8", 1, 40, 4, 9, 3, (1, 2, 45, 6, 11)),        # a window: a group per h
    ("f32", 3, 9, 2, 3, 2, (1, 3, 9, 2, 7)),          # H stride 7 > W = 3
])
def test_nchw(dt, n, c, h, w, c1, whole):
    m = _machine("a5")
    x = _data(dt, whole, np.random.default_rng(4))
    c0 = _c0(dt)
    g = m.global_tensor(m.gm(x), (1, n, c, h, w), _strides(whole), "NCHW")
    t = _tile(m, dt, "NC1HWC0", (n, c1, h, w, c0))
    m.TLOAD(t, g)
    got = _read(m, t)
    used = -(-c // c0)
    padded = np.pad(x[0, :n, :c, :h, :w], ((0, 0), (0, used * c0 - c), (0, 0), (0, 0)))
    want = padded.reshape(n, used, c0, h, w).transpose(0, 1, 3, 4, 2)
    np.testing.assert_array_equal(got[:, :used], want)
    assert (got[:, used:].view(np.uint8) == SENT).all()


# ------------------------------------------------ NCHW -> FRACTAL_Z, NCDHW -> FRACTAL_Z_3D
@pytest.mark.parametrize("dt, n, c, h, w, n1", [
    ("f16", 16, 16, 3, 3, 1), ("f16", 5, 20, 2, 3, 1), ("i8", 20, 33, 2, 2, 2),
    ("f32", 3, 8, 1, 4, 1)])
def test_nchw_fractal_z(dt, n, c, h, w, n1):
    """Weights N x C x H x W -> rows (c1, h, w), columns n, lanes c0; N pads untouched."""
    m = _machine("a5")
    x = _data(dt, (n, c, h, w), np.random.default_rng(5))
    c0 = _c0(dt)
    c1 = -(-c // c0)
    g = m.global_tensor(m.gm(x), (1, n, c, h, w), (n * c * h * w,) + _strides((n, c, h, w)),
                        "NCHW")
    t = _tile(m, dt, "FRACTAL_Z", (c1 * h * w, n1, 16, c0))
    m.TLOAD(t, g)
    got = _read(m, t).reshape(c1 * h * w, n1 * 16, c0)
    padded = np.pad(x, ((0, 0), (0, c1 * c0 - c), (0, 0), (0, 0)))
    want = padded.reshape(n, c1, c0, h, w).transpose(1, 3, 4, 0, 2).reshape(-1, n, c0)
    np.testing.assert_array_equal(got[:, :n], want)
    assert (got[:, n:].view(np.uint8) == SENT).all()


def test_ncdhw_fractal_z_3d():
    m = _machine("a5")
    n, c, d, h, w = 4, 20, 2, 3, 2
    x = _data("f16", (n, c, d, h, w), np.random.default_rng(6))
    c1 = 2
    g = m.global_tensor(m.gm(x), (n, c, d, h, w), _strides((n, c, d, h, w)), "NCDHW")
    t = _tile(m, "f16", "FRACTAL_Z_3D", (c1 * d * h * w, 1, 16, 16))
    m.TLOAD(t, g)
    got = _read(m, t).reshape(c1 * d * h * w, 16, 16)
    padded = np.pad(x, ((0, 0), (0, 12), (0, 0), (0, 0), (0, 0)))
    want = padded.reshape(n, c1, 16, d, h, w).transpose(1, 3, 4, 5, 0, 2).reshape(-1, n, 16)
    np.testing.assert_array_equal(got[:, :n], want)
    assert (got[:, n:].view(np.uint8) == SENT).all()


# ---------------------------------------------------------------- element types
def test_same_size_types_move_bytes_and_fp8_on_a5():
    m = _machine("a5")
    x = np.arange(2 * 4 * 16, dtype=np.int16).reshape(1, 1, 2, 4, 16)
    g = m.global_tensor(m.gm(x), x.shape, _strides(x.shape), "NC1HWC0")
    t = _tile(m, "f16", "NC1HWC0", x.shape)
    m.TLOAD(t, g)
    np.testing.assert_array_equal(_read(m, t).view(np.int16), x)
    f8 = ptosim.dtype("f8E4M3FN").np
    y = np.arange(2 * 32, dtype=np.uint8).reshape(1, 1, 1, 2, 32)
    g8 = m.global_tensor(m.gm(y.view(f8)), y.shape, _strides(y.shape), "NC1HWC0")
    t8 = _tile(m, "f8E4M3FN", "NC1HWC0", y.shape)
    m.TLOAD(t8, g8)
    np.testing.assert_array_equal(_read(m, t8).view(np.uint8), y)


# ---------------------------------------------------------------- accesses
def test_accesses_are_the_micro_ops():
    """The hazard checker's view: MTE2 micro-ops read the GM window and write L1."""
    m = _machine("a5")
    x = _data("f16", (1, 1, 4, 3, 5), np.random.default_rng(7))
    g = m.global_tensor(m.gm(x), (1, 1, 4, 3, 5), _strides(x.shape), "NCHW")
    t = _tile(m, "f16", "NC1HWC0", (1, 1, 3, 5, 16))
    seen = []
    m.access_hook = lambda data, start, n, access, operand, op, runs=None: seen.append(
        (op, access, operand))
    m.TLOAD(t, g)
    assert ("mte_gm_l1_frac", "R", "src") in seen and ("mte_gm_l1_frac", "W", "dst") in seen
    seen.clear()
    y = _data("f16", (1, 1, 3, 5, 16), np.random.default_rng(7))
    m.TLOAD(t, m.global_tensor(m.gm(y), y.shape, _strides(y.shape), "NC1HWC0"))
    assert {(o, a) for o, a, _ in seen} == {("mte_gm_l1", "R"), ("mte_gm_l1", "W")}


# ---------------------------------------------------------------- worked example
@pytest.mark.parametrize("target, layout", [("a5", "NCHW"), ("a5", "NHWC"),
                                            ("a5", "NC1HWC0"), ("a2a3", "NC1HWC0")])
def test_worked_example_conv(target, layout):
    """pto-isa timg2col case 2's shapes (f16 fmap 1 x 64 x 4 x 16, 3 x 3 kernel, stride 1,
    dilation (2, 1), pad 1): TLOAD the feature map from GM, TIMG2COL, TMATMUL = a numpy
    convolution of the NCHW image."""
    m = _machine(target)
    rng = np.random.default_rng(11)
    c, h, w, kh, kw, n_out = 64, 4, 16, 3, 3, 16
    img = rng.uniform(-2, 2, (1, c, h, w)).astype(np.float16)            # NCHW
    wgt = rng.uniform(-2, 2, (n_out, c, kh, kw)).astype(np.float16)
    c1 = c // 16
    if layout == "NCHW":
        g = m.global_tensor(m.gm(img), (1, 1, c, h, w), (c * h * w, c * h * w, h * w, w, 1),
                            "NCHW")
    elif layout == "NHWC":
        nhwc = np.ascontiguousarray(img.transpose(0, 2, 3, 1))
        g = m.global_tensor(m.gm(nhwc), (1, 1, h, w, c), (c * h * w,) + _strides(nhwc.shape),
                            "NHWC")
    else:
        fm = np.ascontiguousarray(img.reshape(1, c1, 16, h, w).transpose(0, 1, 3, 4, 2))
        g = m.global_tensor(m.gm(fm), fm.shape, _strides(fm.shape), "NC1HWC0")
    conf = ptosim.Img2colConfig(fmap_h=h, fmap_w=w, channel_size=c, pad=(1, 1, 1, 1),
                                filter_h=kh, filter_w=kw, stride_h=1, stride_w=1,
                                dilation_h=2, dilation_w=1)
    a = m.conv_tile("f16", "NC1HWC0", (1, c1, h, w, 16), tile_type="Mat", img2col=conf)
    m.TLOAD(a, g)
    # the convolution straight from its definition (zero pad, dilation (2, 1))
    padded = np.pad(img[0].astype(np.float64), ((0, 0), (1, 1), (1, 1)))
    oh, ow = h + 2 - 2 * (kh - 1), w + 2 - (kw - 1)
    ref = np.zeros((oh * ow, n_out))
    for i in range(kh):
        for j in range(kw):
            patch = padded[:, 2 * i:2 * i + oh, j:j + ow].reshape(c, -1)   # c x (oh ow)
            ref += patch.T @ wgt[:, :, i, j].astype(np.float64).T
    mm, kk = oh * ow, c * kh * kw
    rows = -(-mm // 16) * 16
    a = a.with_img2col(dst_stride=rows // 16)
    left = m.tile("Left", "f16", rows, kk, valid=(mm, kk))
    m.SETFMATRIX(a)
    m.SET_IMG2COL_RPT(a)
    m.SET_IMG2COL_PADDING(a)
    m.TIMG2COL(left, a, 0, 0)
    # K runs (c1, kh, kw, c0): the weights in that order
    b = wgt.reshape(n_out, c1, 16, kh, kw).transpose(1, 3, 4, 2, 0).reshape(kk, n_out)
    right = m.tile("Right", "f16", kk, n_out)
    m._store_matrix(right, slice(None), slice(None), b)
    acc = m.tile("Acc", "f32", rows, n_out, valid=(mm, n_out))
    m.TMATMUL(acc, left, right)
    np.testing.assert_allclose(m.read_tile(acc), ref, rtol=1e-3, atol=2e-2)


# ---------------------------------------------------------------- rules
def _gt(m, dt, shape, stride, layout):
    return m.global_tensor(m.gm(np.zeros(4096, ptosim.dtype(dt).np)), shape, stride, layout)


FM = (1, 1, 2, 4, 16)
FM_S = _strides(FM)


@pytest.mark.parametrize("target, make, kind, msg", [
    ("a2a3", lambda m: (_tile(m, "f16", "NC1HWC0", FM), _gt(m, "f16", (1, 1, 16, 2, 4),
                                                         (128, 128, 8, 4, 1), "NCHW")),
     VerifyError, "NCHW -> NC1HWC0 is not a conv-tile load on a2a3"),
    ("a5", lambda m: (_tile(m, "f16", "FRACTAL_Z_3D", (1, 1, 16, 16)),
                      _gt(m, "f16", (1, 1, 1, 16, 16), (256, 256, 256, 16, 1), "FRACTAL_Z_3D")),
     VerifyError, "FRACTAL_Z_3D -> FRACTAL_Z_3D is not a conv-tile load on a5"),
    ("a5", lambda m: (m.conv_tile("f16", "NC1HWC0", FM), _gt(m, "f16", FM, FM_S, "NC1HWC0")),
     VerifyError, "writes a Mat (L1) conv tile, got a Vec one"),
    ("a5", lambda m: (_tile(m, "f16", "NC1HWC0", FM), _gt(m, "f16", FM, FM_S, "NDC1HWC0")),
     NotImplementedOpError, "NDC1HWC0 -> NDC1HWC0 conv-tile load"),
    ("a2a3", lambda m: (_tile(m, "i64", "NC1HWC0", (1, 1, 1, 1, 4)),
                        _gt(m, "i64", (1, 1, 1, 1, 4), (4, 4, 4, 4, 1), "NC1HWC0")),
     DtypeError, "on a2a3, got i64"),
    ("a5", lambda m: (_tile(m, "hif8", "NC1HWC0", (1, 1, 1, 1, 32)),
                      _gt(m, "ui8", (1, 1, 1, 1, 32), (32, 32, 32, 32, 1), "NC1HWC0")),
     DtypeError, "on a5, got hif8"),
    ("a5", lambda m: (_tile(m, "f16", "NC1HWC0", FM), _gt(m, "f32", FM, FM_S, "NC1HWC0")),
     DtypeError, "must have one size"),
    ("a5", lambda m: (_tile(m, "f16", "NC1HWC0", (1, 1, 2, 4, 8)),
                      _gt(m, "f16", (1, 1, 2, 4, 8), (64, 64, 32, 8, 1), "NC1HWC0")),
     VerifyError, "last dimension is C0 = 32 B = 16 f16 elements, got 8"),
    ("a5", lambda m: (_tile(m, "f16", "NC1HWC0", FM), _gt(m, "f16", (1, 1, 2, 3, 16), FM_S,
                                                         "NC1HWC0")),
     VerifyError, "shape must equal the tile's (1, 1, 2, 4, 16)"),
    ("a5", lambda m: (_tile(m, "f16", "NC1HWC0", FM), _gt(m, "f16", FM, (128, 128, 64, 32, 2),
                                                         "NC1HWC0")),
     VerifyError, "inner strides must be (16, 1), got (32, 2)"),
    ("a2a3", lambda m: (_tile(m, "f16", "NC1HWC0", (1, 2, 2, 4, 16)),
                        _gt(m, "f16", (1, 2, 2, 4, 16), (512, 200, 64, 16, 1), "NC1HWC0")),
     VerifyError, "C1 stride (400 B) must be a 32 B multiple"),
    ("a2a3", lambda m: (_tile(m, "f16", "NC1HWC0", (1, 1, 3, 4, 16)),
                        _gt(m, "f16", (1, 1, 3, 4, 16), (512, 512, 72, 16, 1), "NC1HWC0")),
     VerifyError, "H stride (144 B) must be a 32 B multiple"),
    ("a2a3", lambda m: (_tile(m, "i8", "NC1HWC0", (1, 1, 2, 1, 32)),
                        _gt(m, "i8", (1, 1, 2, 1, 32), (1, 1, 32 * 70000, 32, 1), "NC1HWC0")),
     VerifyError, "at most 65535 blocks more"),
    ("a2a3", lambda m: (_tile(m, "i8", "NC1HWC0", (1, 1, 4096, 1, 32)),
                        _gt(m, "i8", (1, 1, 4096, 1, 32), (1, 1, 64, 32, 1), "NC1HWC0")),
     VerifyError, "at most 4095 rows of 65535 blocks"),
    ("a2a3", lambda m: (_tile(m, "f16", "FRACTAL_Z", (2, 1, 16, 16)),
                        _gt(m, "f16", (1, 2, 1, 16, 16), (1, 264, 256, 16, 1), "FRACTAL_Z")),
     VerifyError, "C1HW stride (528 B) must be a 32 B multiple"),
    ("a2a3", lambda m: (_tile(m, "f16", "FRACTAL_Z", (1, 2, 2, 16, 16)),
                        _gt(m, "f16", (1, 2, 2, 16, 16), (2048, 1024, 256, 16, 1),
                            "FRACTAL_Z")),
     VerifyError, "by the W stride 256 alone: the view's H stride must be 512, got 1024"),
    ("a2a3", lambda m: (_tile(m, "f16", "FRACTAL_Z", (2, 1, 2, 16, 16)),
                        _gt(m, "f16", (2, 1, 2, 16, 16), (1024, 512, 256, 16, 1),
                            "FRACTAL_Z")),
     VerifyError, "the view's C1 stride must be 512, got 1024"),
    ("a2a3", lambda m: (_tile(m, "f16", "FRACTAL_Z", (1, 1, 2, 16, 16)),
                        _gt(m, "f16", (1, 1, 2, 16, 16), (1000, 1000, 264, 16, 1),
                            "FRACTAL_Z")),
     VerifyError, "W stride (528 B) must be a 32 B multiple"),
    ("a5", lambda m: (_tile(m, "f16", "FRACTAL_Z", (1, 1, 2, 16, 16)),
                      _gt(m, "f16", (1, 1, 2, 16, 16), (1000, 1000, 264, 8, 1), "FRACTAL_Z")),
     VerifyError, "reads N x C0 contiguous elements per row"),
    ("a5", lambda m: (_tile(m, "f16", "FRACTAL_Z", (2, 1, 8, 16)),
                      _gt(m, "f16", (1, 2, 1, 8, 16), (256, 128, 128, 16, 1), "FRACTAL_Z")),
     VerifyError, "third dimension must be 16, got 8"),
    ("a5", lambda m: (_tile(m, "f16", "FRACTAL_Z", (2, 1, 16, 16)),
                      _gt(m, "f16", (1, 2, 2, 16, 16), (1024, 512, 256, 16, 1), "FRACTAL_Z")),
     VerifyError, "[1, C1HW, N/16, 16, C0] = (1, 2, 1, 16, 16)"),
    ("a5", lambda m: (_tile(m, "f16", "FRACTAL_Z", (2, 1, 16, 16)),
                      _gt(m, "f16", (1, 2, 1, 16, 16), (1024, 512, 512, 32, 1), "FRACTAL_Z")),
     VerifyError, "inner strides must be (256, 16, 1), got (512, 32, 1)"),
    ("a5", lambda m: (_tile(m, "f16", "NC1HWC0", FM), _gt(m, "f16", (1, 1, 3, 4, 16),
                                                         (192, 192, 64, 16, 1), "NHWC")),
     VerifyError, "[1, N, H, W, C] with N, H, W the tile's (1, 2, 4)"),
    ("a5", lambda m: (_tile(m, "f16", "NC1HWC0", FM), _gt(m, "f16", (1, 1, 2, 4, 17),
                                                         (136, 136, 68, 17, 1), "NHWC")),
     VerifyError, "C = 17 channels do not fit the tile's C1 x C0 = 16"),
    ("a5", lambda m: (_tile(m, "f16", "NC1HWC0", FM), _gt(m, "f16", (1, 1, 2, 4, 8),
                                                         (128, 128, 64, 16, 2), "NHWC")),
     VerifyError, "channel stride must be 1, got 2"),
    ("a5", lambda m: (_tile(m, "f16", "NC1HWC0", FM), _gt(m, "f16", (1, 1, 8, 2, 4),
                                                         (64, 64, 8, 4, 2), "NCHW")),
     VerifyError, "W stride must be 1, got 2"),
    ("a5", lambda m: (_tile(m, "f16", "NC1HWC0", FM), _gt(m, "f16", (1, 1, 8, 2, 4),
                                                         (64, 64, 8, 3, 1), "NCHW")),
     VerifyError, "H stride 3 is shorter than W = 4"),
    ("a5", lambda m: (_tile(m, "f16", "NC1HWC0", FM), _gt(m, "f16", (1, 2, 8, 2, 4),
                                                         (128, 64, 8, 4, 1), "NCHW")),
     VerifyError, "[1, N, C, H, W] with N, H, W the tile's (1, 2, 4)"),
    ("a5", lambda m: (_tile(m, "f16", "FRACTAL_Z", (4, 1, 16, 16)),
                      _gt(m, "f16", (1, 4, 8, 2, 2), (128, 40, 5, 2, 1), "NCHW")),
     VerifyError, "C stride must be H x W = 4, got 5"),
    ("a5", lambda m: (_tile(m, "f16", "FRACTAL_Z", (4, 1, 16, 16)),
                      _gt(m, "f16", (1, 4, 8, 2, 2), (128, 32, 4, 1, 1), "NCHW")),
     VerifyError, "H, W strides must be (2, 1), got (1, 1)"),
    ("a5", lambda m: (_tile(m, "f16", "FRACTAL_Z", (3, 1, 16, 16)),
                      _gt(m, "f16", (1, 4, 8, 2, 2), (128, 32, 4, 2, 1), "NCHW")),
     VerifyError, "first dimension 3 must be C1 = 1 times at least 4 pixels"),
    ("a5", lambda m: (_tile(m, "f16", "FRACTAL_Z", (4, 1, 16, 16)),
                      _gt(m, "f16", (1, 17, 8, 2, 2), (1024, 32, 4, 2, 1), "NCHW")),
     VerifyError, "N = 17 does not fit the tile's N/16 x 16 = 16"),
    ("a5", lambda m: (_tile(m, "f16", "FRACTAL_Z_3D", (4, 1, 16, 16)),
                      _gt(m, "f16", (2, 8, 2, 1, 2), (64, 8, 3, 2, 1), "NCDHW")),
     VerifyError, "D stride must be H x W = 2, got 3"),
])
def test_rules(target, make, kind, msg):
    m = _machine(target)
    t, g = make(m)
    before = m.read(t.ptr.cast("ui8"), t.nbytes).copy()
    with pytest.raises(kind, match="TLOAD") as err:
        m.TLOAD(t, g)
    assert msg in str(err.value)
    np.testing.assert_array_equal(m.read(t.ptr.cast("ui8"), t.nbytes), before)


@pytest.mark.parametrize("target", ["a5", "a2a3"])
def test_one_burst_ignores_the_gap(target):
    """A single C1 (a2a3: one burst) or a single FRACTAL_Z row: the outer stride is never
    stepped, so an unaligned one loads; a5's strides are bytes anyway."""
    m = _machine(target)
    x = _data("f16", (1, 1, 3, 4, 16), np.random.default_rng(9))
    g = m.global_tensor(m.gm(x), x.shape, (1, 7, 64, 16, 1), "NC1HWC0")
    t = _tile(m, "f16", "NC1HWC0", x.shape)
    m.TLOAD(t, g)
    np.testing.assert_array_equal(_read(m, t), x)


def test_a5_byte_strides_need_no_block_alignment():
    """a5 programs byte strides: a window whose rows start off 32 B boundaries loads."""
    m = _machine("a5")
    whole = (1, 2, 3, 5, 16)
    x = _data("f16", (int(np.prod(whole)) + 8,), np.random.default_rng(10))
    st = (1000, 250, 88, 16, 1)                     # H stride 176 B: not a 32 B multiple
    g = m.global_tensor(m.gm(x), (1, 2, 2, 5, 16), st, "NC1HWC0")
    t = _tile(m, "f16", "NC1HWC0", (1, 2, 2, 5, 16))
    m.TLOAD(t, g)
    idx = (np.arange(2)[:, None, None, None] * 250 + np.arange(2)[None, :, None, None] * 88
           + np.arange(5)[None, None, :, None] * 16 + np.arange(16))
    np.testing.assert_array_equal(_read(m, t)[0], x[idx])


def test_tile_past_its_bytes_and_other_ops():
    m = _machine("a5")
    t = m.conv_tile("f16", "NC1HWC0", FM, tile_type="Mat", nbytes=64)
    with pytest.raises(VerifyError, match="writes 256 B from the tile's start, past its 64 B"):
        m.TLOAD(t, _gt(m, "f16", FM, FM_S, "NC1HWC0"))
    g = _gt(m, "f16", FM, FM_S, "NC1HWC0")
    with pytest.raises(PtoTypeError, match="src must be a GlobalTensor"):
        m.TLOAD(t, t)
    with pytest.raises(VerifyError, match="read only by TLOAD into a Mat conv tile"):
        m.TLOAD(m.tile("Mat", "f16", 16, 16), g)
    with pytest.raises(VerifyError, match="no TSTORE from a conv tile"):
        m.TSTORE(g, t)
    with pytest.raises(VerifyError, match="an Acc tile stores into NCDHW / NCHW / NHWC conv "
                                          "views on a5, not NC1HWC0"):
        m.TSTORE(g, m.tile("Acc", "f32", 16, 16))
    with pytest.raises(VerifyError, match="stored from an Acc tile only"):
        m.TSTORE(g, m.tile("Vec", "f16", 16, 16))
    with pytest.raises(VerifyError, match="layout must be ND, DN, NZ"):
        m.global_tensor(g.ptr, FM, FM_S, "NCHWX")
