"""TSTORE Acc -> GM conv views (ptosim.tile.conv_store): a2a3 NC1HWC0, a5 NHWC / NCHW /
NCDHW, each one FIXPIPE writeback. Goldens are numpy reshapes / transposes of the float64
matmul product (pixel rows n H W + h W + w, channel columns), written into a sentinel-filled
GM array so untouched bytes are checked; shapes from pto-isa's a5 tstore_acc2gm cases and
a2a3 timg2col's output store; one refusal per rule."""

import numpy as np
import pytest

import ptosim
from tile_helpers import NP, matmul_to_acc


def _strides(shape):
    out, acc = [], 1
    for s in reversed(shape):
        out.append(acc)
        acc *= s
    return tuple(reversed(out))


def _acc(m, name, acc, rows, k, cols):
    return matmul_to_acc(m, name, acc, rows, k, cols)


def _store(m, whole, dst, shape, stride, layout, acc, offset=0, sentinel=-77, **kw):
    """TSTORE into a view of a sentinel-filled GM array of ``whole`` elements; returns the
    whole array after the store."""
    base = np.full(whole, sentinel).astype(NP[dst])
    p = m.gm(base)
    g = m.global_tensor(p + offset, shape, stride, layout)
    m.TSTORE(g, acc, **kw)
    return m.read(p, whole), base


def _cast(v, dst, relu=False):
    v = np.maximum(v, 0) if relu else v
    return v.astype(NP[dst])


# ------------------------------------------------------------------------- a5 NHWC
# pto-isa a5 tstore_acc2gm case_nhwc_1..4: (input, acc, dst, k, (N, H, W, C), relu)
NHWC_CASES = [
    ("f32", "f32", "f32", 16, (1, 16, 8, 128), False),
    ("i8", "i32", "i32", 31, (4, 8, 16, 63), False),
    ("f32", "f32", "bf16", 8, (1, 32, 32, 32), False),
    ("bf16", "f32", "f32", 64, (1, 2, 63, 43), True),
    ("f16", "f32", "f16", 20, (2, 3, 5, 24), True),
]


@pytest.mark.parametrize("name, acc, dst, k, nhwc, relu", NHWC_CASES)
def test_a5_nhwc(name, acc, dst, k, nhwc, relu):
    m = ptosim.Machine(target="a5")
    n, h, w, c = nhwc
    t, want = _acc(m, name, acc, n * h * w, k, c)
    shape = (1, n, h, w, c)
    out, base = _store(m, n * h * w * c + 40, dst, shape, _strides(shape), "NHWC", t,
                       pre_relu=(None, "normal_relu") if relu else None)
    golden = _cast(want, dst, relu).reshape(n, h, w, c)
    np.testing.assert_array_equal(out[:n * h * w * c].reshape(n, h, w, c), golden)
    np.testing.assert_array_equal(out[n * h * w * c:], base[n * h * w * c:])


def test_a5_nhwc_channel_window_keeps_other_channels():
    """A C window (channels 16 .. 16 + 43 of 80): rows stepped by the whole tensor's C."""
    m = ptosim.Machine(target="a5")
    n, h, w, c, cw, c_at = 2, 3, 4, 43, 80, 16
    t, want = _acc(m, "f16", "f32", n * h * w, 32, c)
    shape = (1, n, h, w, c)
    stride = (n * h * w * cw, h * w * cw, w * cw, cw, 1)
    out, base = _store(m, n * h * w * cw, "f32", shape, stride, "NHWC", t, offset=c_at)
    img = base.reshape(n, h, w, cw).copy()
    img[..., c_at:c_at + c] = want.astype(np.float32).reshape(n, h, w, c)
    np.testing.assert_array_equal(out.reshape(n, h, w, cw), img)


# ------------------------------------------------------------------------- a5 NCHW / NCDHW
# case_nchw_1 / 2 / 4: (input, acc, dst, k, (N, C, H, W), relu)
NCHW_CASES = [
    ("f32", "f32", "f32", 16, (1, 128, 16, 8), False),
    ("i8", "i32", "i32", 31, (1, 63, 32, 16), False),
    ("bf16", "f32", "f32", 64, (1, 43, 2, 63), True),
    ("f16", "f32", "f16", 17, (1, 20, 3, 7), False),
]


@pytest.mark.parametrize("name, acc, dst, k, nchw, relu", NCHW_CASES)
def test_a5_nchw(name, acc, dst, k, nchw, relu):
    m = ptosim.Machine(target="a5")
    n, c, h, w = nchw
    t, want = _acc(m, name, acc, n * h * w, k, c)
    shape = (1, n, c, h, w)
    total = n * c * h * w
    out, base = _store(m, total + 33, dst, shape, _strides(shape), "NCHW", t,
                       pre_relu=(None, "normal_relu") if relu else None)
    golden = _cast(want, dst, relu).reshape(n, h, w, c).transpose(0, 3, 1, 2)
    np.testing.assert_array_equal(out[:total].reshape(n, c, h, w), golden)
    np.testing.assert_array_equal(out[total:], base[total:])


def test_a5_nchw_channel_window_and_n_outside_c():
    """N = 2 pixel planes one after the other inside each channel (N stride H W: the code
    steps pixel rows only), channels 3 .. 3 + 5 of 12 (C stride 2 H W)."""
    m = ptosim.Machine(target="a5")
    n, c, h, w, cw, c_at = 2, 5, 4, 6, 12, 3
    t, want = _acc(m, "f16", "f32", n * h * w, 16, c)
    plane = n * h * w
    out, base = _store(m, cw * plane, "f32", (1, n, c, h, w),
                       (cw * plane, h * w, plane, w, 1), "NCHW", t, offset=c_at * plane)
    img = base.reshape(cw, n, h, w).copy()                         # C N H W in memory
    img[c_at:c_at + c] = want.astype(np.float32).reshape(n, h, w, c).transpose(3, 0, 1, 2)
    np.testing.assert_array_equal(out.reshape(cw, n, h, w), img)


def test_a5_ncdhw_writes_one_depth_slice():
    """case_ncdhw_1: a [1, 128, 1, 16, 8] view of a [1, 128, 2, 16, 8] tensor: d = 0 only."""
    m = ptosim.Machine(target="a5")
    c, d, h, w = 128, 2, 16, 8
    t, want = _acc(m, "f32", "f32", h * w, 16, c)
    whole = (1, c, d, h, w)
    out, base = _store(m, c * d * h * w, "f32", (1, c, 1, h, w), _strides(whole), "NCDHW", t)
    img = base.reshape(whole).copy()
    img[0, :, 0] = want.astype(np.float32).reshape(h, w, c).transpose(2, 0, 1)
    np.testing.assert_array_equal(out.reshape(whole), img)


# ------------------------------------------------------------------------- a2a3 NC1HWC0
# (input, acc, dst, k, (N, C1, H, W, C0), relu); f32 into C0 = 8 is the channel split
NC1HWC0_CASES = [
    ("f16", "f32", "f16", 32, (1, 3, 8, 8, 16), False),
    ("f16", "f32", "f32", 20, (1, 2, 4, 12, 16), True),
    ("f16", "f32", "f32", 20, (1, 4, 3, 16, 8), False),
    ("i8", "i32", "i32", 40, (1, 2, 5, 16, 16), False),
    ("f16", "f32", "bf16", 16, (1, 1, 3, 16, 16), True),
    ("f16", "f32", "f16", 16, (3, 1, 2, 8, 16), False),        # N > 1 with one C1 block
]


@pytest.mark.parametrize("name, acc, dst, k, shape, relu", NC1HWC0_CASES)
def test_a2a3_nc1hwc0(name, acc, dst, k, shape, relu):
    m = ptosim.Machine(target="a2a3")
    n, c1, h, w, c0 = shape
    t, want = _acc(m, name, acc, n * h * w, k, c1 * c0)
    total = n * c1 * h * w * c0
    out, base = _store(m, total + 24, dst, shape, _strides(shape), "NC1HWC0", t,
                       pre_relu=(None, "normal_relu") if relu else None)
    golden = _cast(want, dst, relu).reshape(n, h, w, c1, c0).transpose(0, 3, 1, 2, 4)
    np.testing.assert_array_equal(out[:total].reshape(shape), golden)
    np.testing.assert_array_equal(out[total:], base[total:])


def test_a2a3_nc1hwc0_c1_window():
    """C1 blocks 1 .. 2 of 4 (the C1 stride is the tensor's H W C0)."""
    m = ptosim.Machine(target="a2a3")
    c1, c1w, h, w, c0 = 2, 4, 4, 8, 16
    t, want = _acc(m, "f16", "f32", h * w, 32, c1 * c0)
    whole = (1, c1w, h, w, c0)
    out, base = _store(m, c1w * h * w * c0, "f16", (1, c1, h, w, c0), _strides(whole),
                       "NC1HWC0", t, offset=h * w * c0)
    img = base.reshape(whole).copy()
    img[0, 1:3] = want.astype(np.float16).reshape(h, w, c1, c0).transpose(2, 0, 1, 3)
    np.testing.assert_array_equal(out.reshape(whole), img)


def test_a2a3_timg2col_output_store():
    """pto-isa a2a3 timg2col's f32 output view [1, N / C0, Hout, Wout, C0]: a 64-pixel,
    32-filter result (C0 = 16 f32 lines, no channel split)."""
    m = ptosim.Machine(target="a2a3")
    hout, wout, fn, c0 = 4, 16, 32, 16
    t, want = _acc(m, "f16", "f32", hout * wout, 64, fn)
    shape = (1, fn // c0, hout, wout, c0)
    stride = (fn * hout * wout, hout * wout * c0, wout * c0, c0, 1)
    out, _ = _store(m, fn * hout * wout, "f32", shape, stride, "NC1HWC0", t)
    golden = want.reshape(hout, wout, fn // c0, c0).transpose(2, 0, 1, 3)
    np.testing.assert_array_equal(out.reshape(shape)[0], golden.astype(np.float32))


# ------------------------------------------------------------------------- quant, atomics
def test_a5_nhwc_pre_quant_scalar_to_i8():
    """preQuantScalar (f32 scale 0.5, bit 46 signed): clip(rint(v x 0.5)) into i8."""
    m = ptosim.Machine(target="a5")
    n, h, w, c = 1, 4, 8, 32
    t, want = _acc(m, "f16", "f32", n * h * w, 48, c)
    word = int(np.float32(0.5).view(np.uint32)) | 1 << 46
    shape = (1, n, h, w, c)
    out, _ = _store(m, n * h * w * c, "i8", shape, _strides(shape), "NHWC", t,
                    pre_quant_scalar=word)
    golden = np.clip(np.rint(want * 0.5), -128, 127).astype(np.int8)
    np.testing.assert_array_equal(out.reshape(n * h * w, c), golden)


def test_a5_nchw_atomic_add():
    m = ptosim.Machine(target="a5")
    n, c, h, w = 1, 16, 4, 4
    t, want = _acc(m, "f16", "f32", n * h * w, 16, c)
    shape = (1, n, c, h, w)
    out, base = _store(m, c * h * w, "f32", shape, _strides(shape), "NCHW", t, sentinel=3,
                       atomic="add")
    golden = (want.reshape(h, w, c).transpose(2, 0, 1) + 3).astype(np.float32)
    np.testing.assert_array_equal(out.reshape(c, h, w), golden)


# ------------------------------------------------------------------------- accesses
@pytest.mark.parametrize("target, layout, shape", [
    ("a5", "NHWC", (1, 1, 2, 8, 16)), ("a5", "NCHW", (1, 1, 16, 2, 8)),
    ("a2a3", "NC1HWC0", (1, 1, 2, 8, 16))])
def test_accesses_are_the_fixpipe_micro_op(target, layout, shape):
    """The hazard checker's view: mte_l0c_gm reads L0C and writes the GM window."""
    m = ptosim.Machine(target=target)
    t, _ = _acc(m, "f16", "f32", 16, 16, 16)
    seen = []
    g = m.global_tensor(m.gm(np.zeros(256, np.float32)), shape, _strides(shape), layout)
    m.access_hook = lambda data, start, n, access, operand, op, runs=None: seen.append(
        (op, access, operand))
    m.TSTORE(g, t)
    assert {(o, a) for o, a, _ in seen} == {("mte_l0c_gm", "R"), ("mte_l0c_gm", "W")}


# ------------------------------------------------------------------------- refusals
def _refuse(target, layout, shape, stride=None, dst="f32", rows=16, cols=16, name="f16",
            acc="f32", err=ptosim.VerifyError, match="", **kw):
    m = ptosim.Machine(target=target)
    t, _ = _acc(m, name, acc, rows, 16, cols)
    base = np.full(4096, 9).astype(NP[dst])
    p = m.gm(base)
    g = m.global_tensor(p, shape, stride or _strides(shape), layout)
    with pytest.raises(err, match=match) as e:
        m.TSTORE(g, t, **kw)
    np.testing.assert_array_equal(m.read(p, 4096), base)           # nothing written
    return e.value


def test_refuses_forms_the_target_lacks():
    _refuse("a2a3", "NHWC", (1, 1, 2, 8, 16), match=r"TSTORE: an Acc tile stores into "
            r"NC1HWC0 / NDC1HWC0 conv views on a2a3, not NHWC")
    _refuse("a5", "NC1HWC0", (1, 1, 2, 8, 16), match=r"stores into NCDHW / NCHW / NHWC conv "
            r"views on a5, not NC1HWC0")
    _refuse("a5", "FRACTAL_Z", (1, 1, 1, 16, 16), match=r"not FRACTAL_Z")
    _refuse("a2a3", "NDC1HWC0", (1, 1, 2, 8, 16), err=ptosim.NotImplementedOpError,
            match=r"TSTORE Acc -> NDC1HWC0 \(TStoreAccNz2NDC1HWC0\) is not implemented")


def test_refuses_a_vec_tile():
    m = ptosim.Machine(target="a5")
    t = m.tile("Vec", "f32", 16, 16)
    g = m.global_tensor(m.gm(np.zeros(256, np.float32)), (1, 1, 2, 8, 16),
                        _strides((1, 1, 2, 8, 16)), "NHWC")
    with pytest.raises(ptosim.VerifyError, match="a NHWC view is stored from an Acc tile only"):
        m.TSTORE(g, t)


@pytest.mark.parametrize("target, layout, shape", [
    ("a5", "NHWC", (1, 1, 2, 4, 16)), ("a5", "NCHW", (1, 1, 16, 4, 2)),
    ("a5", "NCDHW", (1, 16, 1, 2, 4)), ("a2a3", "NC1HWC0", (1, 1, 1, 8, 16))])
def test_refuses_a_valid_region_other_than_the_view(target, layout, shape):
    _refuse(target, layout, shape, match=r"the Acc's valid region must be the view's N H W x "
            r"C(1 C0)? = 8x16, got 16x16")


def test_a2a3_c0_rules():
    _refuse("a2a3", "NC1HWC0", (1, 2, 2, 8, 8), dst="f16", match=r"C0 must be 16 for a f16 "
            r"view \(FIXPIPE's f16 lines")
    _refuse("a2a3", "NC1HWC0", (1, 2, 2, 8, 8), name="i8", acc="i32", dst="i32",
            match=r"C0 must be 16 for a i32 view")
    _refuse("a2a3", "NC1HWC0", (1, 1, 2, 8, 32), dst="f32", match=r"C0 must be 8 or 16")


def test_a2a3_stride_rules():
    shape = (1, 2, 4, 4, 8)          # f32 C0 = 8 (split): 16 pixel rows x 16 channels
    _refuse("a2a3", "NC1HWC0", shape, (256, 128, 32, 16, 1), match=r"the W stride must be 8")
    _refuse("a2a3", "NC1HWC0", shape, (256, 128, 40, 8, 1), match=r"the H stride must be W x "
            r"8 = 32")
    _refuse("a2a3", "NC1HWC0", shape, (512, 132, 32, 8, 1), match=r"a2a3 steps the C1 blocks "
            r"N x s1 / s3 C0 lines apart \(128 elements\)")
    _refuse("a2a3", "NC1HWC0", shape, (256, 128, 32, 8, 2), match=r"the C0 stride must be 1")
    _refuse("a2a3", "NC1HWC0", shape, (256, 128, 32, 0, 1), match=r"the W stride must not be "
            r"0")
    _refuse("a2a3", "NC1HWC0", shape, (256, 64, 32, 8, 1), match=r"the C1 stride must reach "
            r"past a block's N x H x W x C0 = 128 elements")


def test_a2a3_n_and_c1_together_are_refused():
    """N > 1 with C1 > 1: the code packs the N H W rows (N stride H W C0) and steps C1 by
    N x s1, never the view's C1 stride."""
    shape = (2, 2, 2, 4, 8)
    _refuse("a2a3", "NC1HWC0", shape, match=r"the N stride must be H x W x 8 = 64")
    _refuse("a2a3", "NC1HWC0", shape, (64, 128, 32, 8, 1), match=r"a2a3 steps the C1 blocks "
            r"N x s1 / s3 C0 lines apart \(256 elements\), which must be the view's C1 stride")


def test_a5_nhwc_stride_rules():
    shape = (1, 2, 2, 4, 16)
    _refuse("a5", "NHWC", (2, 1, 2, 4, 16), match=r"the first dimension must be 1 \(the code "
            r"repeats the writeback over it with LOOP3")
    _refuse("a5", "NHWC", shape, (256, 128, 64, 16, 2), match=r"the C stride must be 1")
    _refuse("a5", "NHWC", shape, (256, 128, 64, 8, 1), match=r"the W stride must be at least "
            r"C = 16")
    _refuse("a5", "NHWC", shape, (512, 256, 80, 16, 1), match=r"the H stride must be W x 16 "
            r"= 64")
    _refuse("a5", "NHWC", shape, (512, 160, 64, 16, 1), match=r"the N stride must be H x W x "
            r"16 = 128")


def test_a5_nchw_stride_rules():
    _refuse("a5", "NCHW", (2, 1, 16, 2, 8), match=r"the first dimension must be 1 \(the code "
            r"writes one \[N, C, H, W\] block\)")
    _refuse("a5", "NCHW", (1, 2, 16, 1, 8), _strides((1, 2, 16, 1, 8)),
            match=r"the N stride must be H x W x 1 = 8")
    _refuse("a5", "NCHW", (1, 1, 16, 2, 8), (256, 256, 16, 10, 1), match=r"the H stride must "
            r"be W x 1 = 8")
    _refuse("a5", "NCHW", (1, 1, 16, 2, 8), (512, 512, 32, 16, 2), match=r"the W stride must "
            r"be 1")
    _refuse("a5", "NCHW", (1, 1, 16, 2, 8), (256, 256, 8, 8, 1), match=r"the C stride must be "
            r"at least N x H x W = 16")
    _refuse("a5", "NCDHW", (1, 16, 2, 2, 4), match=r"D must be 1 \(the code writes one D "
            r"slice")


def test_type_rules_are_the_acc_stores():
    _refuse("a5", "NHWC", (1, 1, 2, 8, 16), dst="i8", match=r"an f32 accumulator writes i8 "
            r"only with pre_quant")
    _refuse("a2a3", "NC1HWC0", (1, 1, 2, 8, 32), dst="i8", match=r"an f32 accumulator writes "
            r"i8 only with pre_quant")


def test_a_view_past_the_allocation_is_refused_before_writing():
    m = ptosim.Machine(target="a5")
    t, _ = _acc(m, "f16", "f32", 16, 16, 16)
    base = np.full(200, 5, np.float32)
    p = m.gm(base)
    g = m.global_tensor(p, (1, 1, 2, 8, 16), _strides((1, 1, 2, 8, 16)), "NHWC")
    with pytest.raises(ptosim.PtoError, match=r"TSTORE"):
        m.TSTORE(g, t)
    np.testing.assert_array_equal(m.read(p, 200), base)


def test_a2a3_nc1hwc0_pre_quant_scalar_to_i8():
    """f32 -> i8 lines of C0 = 32 (scale 0.25, signed): clip(rint(v x 0.25))."""
    m = ptosim.Machine(target="a2a3")
    c1, h, w, c0 = 2, 2, 8, 32
    t, want = _acc(m, "f16", "f32", h * w, 64, c1 * c0)
    word = int(np.float32(0.25).view(np.uint32)) | 1 << 46
    shape = (1, c1, h, w, c0)
    out, _ = _store(m, c1 * h * w * c0, "i8", shape, _strides(shape), "NC1HWC0", t,
                    pre_quant_scalar=word)
    golden = np.clip(np.rint(want * 0.25), -128, 127).astype(np.int8)
    np.testing.assert_array_equal(out.reshape(shape)[0],
                                  golden.reshape(h, w, c1, c0).transpose(2, 0, 1, 3))


# ------------------------------------------------------------------------- worked example
@pytest.mark.parametrize("target, layout", [("a2a3", "NC1HWC0"), ("a5", "NHWC"),
                                            ("a5", "NCHW")])
def test_worked_example_conv_output(target, layout):
    """pto-isa timg2col case 2's shapes (f16 fmap 1 x 64 x 4 x 16, 16 filters 3 x 3, stride
    1, dilation (2, 1), pad 1): TLOAD, TIMG2COL, TMATMUL, then TSTORE the Acc into the
    output conv layout = a numpy convolution from its definition in that layout."""
    m = ptosim.Machine(target=target)
    rng = np.random.default_rng(5)
    c, h, w, kh, kw, n_out = 64, 4, 16, 3, 3, 16
    img = rng.uniform(-2, 2, (1, c, h, w)).astype(np.float16)              # NCHW
    wgt = rng.uniform(-2, 2, (n_out, c, kh, kw)).astype(np.float16)
    c1 = c // 16
    fm = np.ascontiguousarray(img.reshape(1, c1, 16, h, w).transpose(0, 1, 3, 4, 2))
    g = m.global_tensor(m.gm(fm), fm.shape, _strides(fm.shape), "NC1HWC0")
    conf = ptosim.Img2colConfig(fmap_h=h, fmap_w=w, channel_size=c, pad=(1, 1, 1, 1),
                                filter_h=kh, filter_w=kw, stride_h=1, stride_w=1,
                                dilation_h=2, dilation_w=1)
    a = m.conv_tile("f16", "NC1HWC0", (1, c1, h, w, 16), tile_type="Mat", img2col=conf)
    m.TLOAD(a, g)
    oh, ow = h + 2 - 2 * (kh - 1), w + 2 - (kw - 1)
    mm, kk = oh * ow, c * kh * kw
    a = a.with_img2col(dst_stride=mm // 16)
    left = m.tile("Left", "f16", mm, kk)
    m.SETFMATRIX(a)
    m.SET_IMG2COL_RPT(a)
    m.SET_IMG2COL_PADDING(a)
    m.TIMG2COL(left, a, 0, 0)
    b = wgt.reshape(n_out, c1, 16, kh, kw).transpose(1, 3, 4, 2, 0).reshape(kk, n_out)
    right = m.tile("Right", "f16", kk, n_out)
    m._store_matrix(right, slice(None), slice(None), b)
    acc = m.tile("Acc", "f32", mm, n_out)
    m.TMATMUL(acc, left, right)
    # out[o, y, x] = sum_{ch, i, j} pad(img)[ch, y + 2 i, x + j] w[o, ch, i, j]
    padded = np.pad(img[0].astype(np.float64), ((0, 0), (1, 1), (1, 1)))
    ref = np.zeros((n_out, oh, ow))
    for y in range(oh):
        for x in range(ow):
            win = padded[:, y:y + 2 * kh - 1:2, x:x + kw]                  # c x kh x kw
            ref[:, y, x] = np.tensordot(wgt.astype(np.float64), win, axes=3)
    if layout == "NC1HWC0":
        shape = (1, 1, oh, ow, 16)
        want = ref.transpose(1, 2, 0).reshape(shape)
    elif layout == "NHWC":
        shape = (1, 1, oh, ow, n_out)
        want = ref.transpose(1, 2, 0).reshape(shape)
    else:
        shape = (1, 1, n_out, oh, ow)
        want = ref.reshape(shape)
    out, base = _store(m, int(np.prod(shape)) + 16, "f32", shape, _strides(shape), layout, acc)
    np.testing.assert_allclose(out[:-16].reshape(shape), want, rtol=1e-3, atol=2e-2)
    np.testing.assert_array_equal(out[-16:], base[-16:])
