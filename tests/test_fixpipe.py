"""FIXPIPE writebacks: mte_l0c_gm / mte_l0c_l1 / mte_l0c_ub (seed page 001)."""

import warnings

import ml_dtypes
import numpy as np
import pytest

import ptosim
from conftest import POISON, raw
from ptosim import (
    AlignmentError,
    DtypeError,
    FieldRangeError,
    NotImplementedOpError,
    OutOfBoundsError,
    PtoWarning,
    SpaceError,
    TargetError,
    VerifyError,
)

NP_OF = {"f32": np.float32, "f16": np.float16}


def al(x, a=16):
    return -(-x // a) * a


def put_acc(m, c, byte=0, dt="f32"):
    """Write an m x n accumulator into L0C as NZ 16x16 fractals, built with numpy."""
    M, N = c.shape
    p = np.zeros((al(M), al(N)), c.dtype)
    p[:M, :N] = c
    m.write(m.ptr("l0c", dt, byte), p.reshape(al(M), al(N) // 16, 16).transpose(1, 0, 2))
    return m.ptr("l0c", dt, byte)


def acc_40x64(seed=0):
    return np.random.default_rng(seed).standard_normal((40, 64)).astype(np.float32) * 4


# --- end to end ---------------------------------------------------------------------------

@pytest.mark.parametrize("dt, acc, M, N, K", [(np.float16, "f32", 40, 60, 50),
                                              (np.int8, "i32", 33, 57, 70)])
def test_gm_l1_l0_mad_fixpipe_end_to_end(dt, acc, M, N, K):
    """GM -(nd2nz)-> L1 -> L0A/L0B -> mad -> L0C -(nz2nd)-> GM equals numpy.matmul."""
    m = ptosim.Machine(poison=POISON)
    rng = np.random.default_rng(1)
    a = rng.integers(-9, 9, (M, K)).astype(dt)
    b = rng.integers(-9, 9, (K, N)).astype(dt)
    name = "f16" if dt == np.float16 else "i8"
    es, c0t = a.itemsize, max(16, 32 // a.itemsize)
    l1a, l1b = m.ptr("l1", name, 0), m.ptr("l1", name, 128 * 1024)
    m.mte_gm_l1_frac(m.gm(a), l1a, "nd2nz", shape=(M, K), src_layout=(K * es,),
                     dst_group=(1, 1, al(M), 0))
    m.mte_gm_l1_frac(m.gm(b), l1b, "nd2nz", shape=(K, N), src_layout=(N * es,),
                     dst_group=(1, 1, al(K, c0t), 0))
    l0a, l0b, l0c = m.ptr("l0a", name, 0), m.ptr("l0b", name, 0), m.ptr("l0c", acc, 0)
    m.mte_l1_l0a(l1a, l0a, M, K)
    m.mte_l1_l0b(l1b, l0b, K, N, transpose=True)
    m.mad(l0a, l0b, l0c, M, N, K)
    out = m.gm_empty(M * N, acc)
    m.mte_l0c_gm(l0c, out, M, N, al(M), N, 0, 0, layout="nz2nd")
    want = np.matmul(a.astype(np.int64), b.astype(np.int64))
    np.testing.assert_array_equal(m.read(out, M * N).reshape(M, N), want)


# --- layouts, strides, loop3 -------------------------------------------------------------

def test_nz2nd_writes_only_m_by_n_with_row_pitch(m):
    c = acc_40x64()
    l0c = put_acc(m, c)
    ub = m.ptr("ub", "f32", 0)
    m.mte_l0c_ub(l0c, ub, 40, 60, 48, 72, dst_mode=0)        # no layout clause = nz2nd
    rows = raw(m, "ub")[:40 * 72 * 4].reshape(40, 72 * 4)
    np.testing.assert_array_equal(rows[:, :240].view(np.float32), c[:, :60])
    assert (rows[:, 240:] == POISON).all()


def test_gm_writebacks_share_a_set_up_across_destinations(m):
    """Writebacks differing only in their GM destination reuse one checked set-up: each
    lands at its own destination, one past the end of GM is still refused, and another
    destination type is checked anew."""
    c = acc_40x64()
    l0c = put_acc(m, c)
    out = m.gm_empty(80 * 64, "f32")
    for tile in range(2):
        m.mte_l0c_gm(l0c, out + tile * 40 * 64, 40, 64, 48, 64, 0, 0, layout="nz2nd")
    np.testing.assert_array_equal(m.read(out, 80 * 64).reshape(2, 40, 64), np.stack([c, c]))
    with pytest.raises(OutOfBoundsError, match="dst touches GM bytes"):
        m.mte_l0c_gm(l0c, out + 41 * 64, 40, 64, 48, 64, 0, 0, layout="nz2nd")
    with pytest.raises(DtypeError, match="without pre_quant the dst element type"):
        m.mte_l0c_gm(l0c, m.gm_empty(40 * 64, "f16"), 40, 64, 48, 64, 0, 0, layout="nz2nd")


def test_nz2dn_kernel_case(m):
    """cube-bridge-store-nz2dn-nchw: 16x16 C = I . arange, dst_stride 32 -> out[j*32 + i]."""
    c = (np.eye(16, dtype=np.float32) @ np.arange(256, dtype=np.float32).reshape(16, 16))
    out = m.gm_empty(16 * 32, "f32")
    m.mte_l0c_gm(put_acc(m, c), out, 16, 16, 16, 32, 0, 0, layout=("nz2dn", 1))
    got = m.read(out, 16 * 32).reshape(16, 32)
    np.testing.assert_array_equal(got[:, :16], c.T)
    assert (got[:, 16:] == 0).all()


@pytest.mark.parametrize("split, c0", [(None, 16), (0, 16), (1, 8)])
def test_nz2nz(m, split, c0):
    c = acc_40x64(2)
    ds = 48 * c0                                             # N-blocks of 48 rows
    ub = m.ptr("ub", "f32", 0)
    layout = "nz2nz" if split is None else ("nz2nz", split)
    m.mte_l0c_ub(put_acc(m, c), ub, 40, 64, 48, ds, dst_mode=0, layout=layout)
    blocks = m.read(ub, 64 // c0 * ds).reshape(64 // c0, 48, c0)
    np.testing.assert_array_equal(blocks[:, :40], c.reshape(40, 64 // c0, c0).transpose(1, 0, 2))


def test_loop3_repeats_the_pattern(m):
    """loop3(2, s3, d3): a second accumulator s3 x 16 elements later goes d3 elements on."""
    c1, c2 = acc_40x64(3), acc_40x64(4)
    put_acc(m, c1, 0)
    put_acc(m, c2, 48 * 64 * 4)
    out = m.gm_empty(2 * 4096, "f32")
    m.mte_l0c_gm(m.ptr("l0c", "f32", 0), out, 40, 64, 48, 64, 0, 0, layout="nz2nd",
                 loop3=(2, 48 * 64 // 16, 4096))
    got = m.read(out, 2 * 4096)
    np.testing.assert_array_equal(got[:2560].reshape(40, 64), c1)
    np.testing.assert_array_equal(got[4096:4096 + 2560].reshape(40, 64), c2)


# --- split destinations --------------------------------------------------------------------

def test_dual_ub_kernel_case(m):
    """fixpipe-acc-store-dual-ub-cv: split_m gives rows 0..19 / 20..39, split_n columns
    0..31 / 32..63 with the row pitch still dst_stride (64 f32 = 256 B)."""
    c = acc_40x64(5)
    l0c = put_acc(m, c)
    m.mte_l0c_ub(l0c, m.ptr("ub", "f32", 0), 40, 64, 48, 64, dst_mode="split_m",
                 layout="nz2nd", sat="sat")
    m.mte_l0c_ub(l0c, m.ptr("ub", "f32", 32768), 40, 64, 48, 64, dst_mode="split_n")
    for sb, rows, cols in ((0, slice(0, 20), slice(0, 32)), (1, slice(20, 40), slice(32, 64))):
        np.testing.assert_array_equal(m.read(m.ptr("ub", "f32", 0, subblock=sb), 20 * 64)
                                      .reshape(20, 64), c[rows])
        pitched = m.read(m.ptr("ub", "f32", 32768, subblock=sb), 40 * 64).reshape(40, 64)
        np.testing.assert_array_equal(pitched[:, :32], c[:, cols])


def test_single_destination_selects_sub_block(m):
    c = acc_40x64(6)
    m.mte_l0c_ub(put_acc(m, c), m.ptr("ub", "f32", 0), 40, 64, 48, 64, dst_mode=1)
    np.testing.assert_array_equal(m.read(m.ptr("ub", "f32", 0, subblock=1), 2560).reshape(40, 64), c)
    assert (raw(m, "ub", 0) == POISON).all()


# --- quantisation ---------------------------------------------------------------------------

def quant_words(scales, offsets=None, signed=None):
    """FB words of a vector pre_quant: f32 scale bits in [31:0], offset [45:37], sign [46]."""
    w = np.asarray(scales, np.float32).view(np.uint32).astype(np.uint64)
    if offsets is not None:
        w |= (np.asarray(offsets, np.uint64) & np.uint64(0x1FF)) << np.uint64(37)
    if signed is not None:
        w |= np.asarray(signed, np.uint64) << np.uint64(46)
    return w


def test_quant_vec_kernel_case(m):
    """fixpipe-quant-ub-cv: scale_j = (j mod 4) + 1 per channel, f16(C * s_j)."""
    c = acc_40x64(7)
    fb = m.ptr("fb", "f32", 0)
    s = (np.arange(64) % 4 + 1).astype(np.float32)
    m.write(fb.cast("ui64"), quant_words(s))
    out = m.ptr("ub", "f16", 0)
    m.mte_l0c_ub(put_acc(m, c), out, 40, 64, 48, 64, dst_mode=0,
                 pre_quant=(fb, "qf322f16_pre_vec"), layout="nz2nd")
    np.testing.assert_array_equal(m.read(out, 2560).reshape(40, 64), (c * s).astype(np.float16))


def test_vector_scale_keeps_19_bits(m):
    """Vector scales use f32 bits [31:13]; the low 13 mantissa bits are dropped."""
    scale = np.float32(1 + 2**-20)                            # lost in the 19-bit float
    c = np.full((16, 16), 1024.0, np.float32)
    fb = m.ptr("fb", "f32", 0)
    m.write(fb.cast("ui64"), quant_words([scale] * 16))
    out = m.gm_empty(256, "f32")
    m.mte_l0c_gm(put_acc(m, c), out, 16, 16, 16, 16, 0, 0, pre_quant=(fb, "qf322f32_pre_vec"))
    assert (m.read(out, 256) == 1024.0).all()
    m.mte_l0c_gm(put_acc(m, c), out, 16, 16, 16, 16, 0, 0, pre_quant=(scale, "qf322f32_pre_scalar"))
    assert (m.read(out, 256) == np.float32(1024 * scale)).all()


def test_a_scalar_scale_past_f32_is_inf_quietly(m):
    """A Python scale beyond f32's range is what the register can hold of it, inf, without
    numpy's overflow warning (found by the hostile-argument fuzz)."""
    c = np.full((16, 16), 2.0, np.float32)
    out = m.gm_empty(256, "f32")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m.mte_l0c_gm(put_acc(m, c), out, 16, 16, 16, 16, 0, 0,
                     pre_quant=(-1e300, "qf322f32_pre_scalar"))
    assert np.isneginf(m.read(out, 256)).all()


@pytest.mark.parametrize("mode, dst, fn", [
    ("f32_f16", "f16", lambda c: c.astype(np.float16)),
    ("f32_bf16", "bf16", lambda c: c.astype(ml_dtypes.bfloat16)),
    ("qf322f16_pre_scalar", "f16", lambda c: (c * np.float32(0.5)).astype(np.float16)),
    ("qf322bf16_pre_scalar", "bf16", lambda c: (c * np.float32(0.5)).astype(ml_dtypes.bfloat16)),
    ("qf322fp8_pre_scalar", "f8E4M3FN",
     lambda c: np.clip(c * np.float32(0.5), -448, 448).astype(ml_dtypes.float8_e4m3fn)),
])
def test_float_quant_modes(m, mode, dst, fn):
    c = acc_40x64(8) * 30
    out = m.gm_empty(2560, dst)
    m.mte_l0c_gm(put_acc(m, c), out, 40, 64, 48, 64, 0, 0, pre_quant=(0.5, mode))
    got = m.read(out, 2560).reshape(40, 64)
    np.testing.assert_array_equal(got.view(np.uint8), fn(c).view(np.uint8))


def b8_reference(v, offset, signed):
    """round-half-even(clamp(v, -256, 255)) + offset, then clamp to the byte range."""
    t = np.rint(np.clip(v, -256, 255)) + offset
    return np.where(signed, np.clip(t, -128, 127), np.clip(t, 0, 255)).astype(np.int64)


def test_qf322b8_vec_with_offset_and_sign(m):
    c = np.tile(np.array([-300, -130.5, -2.5, 0.5, 1.5, 126.5, 200, 300], np.float32), (16, 2))
    fb = m.ptr("fb", "f32", 0)
    signed = np.arange(16) % 2
    offsets = np.where(np.arange(16) < 8, 0, 3)
    m.write(fb.cast("ui64"), quant_words(np.ones(16), offsets, signed))
    out = m.gm_empty(256, "i8")
    m.mte_l0c_gm(put_acc(m, c), out, 16, 16, 16, 16, 0, 0, pre_quant=(fb, "qf322b8_pre_vec"))
    want = b8_reference(c, offsets[None, :], signed[None, :].astype(bool))
    np.testing.assert_array_equal(m.read(out, 256).reshape(16, 16).astype(np.int64),
                                  np.where(want > 127, want - 256, want))


def test_req8_and_deqf16_from_i32(m):
    c = np.arange(-128, 128, dtype=np.int32).reshape(16, 16) * 37
    l0c = put_acc(m, c, dt="i32")
    out = m.gm_empty(256, "ui8")
    m.mte_l0c_gm(l0c, out, 16, 16, 16, 16, 0, 0, pre_quant=(0.25, "req8_scalar"))
    np.testing.assert_array_equal(m.read(out, 256).reshape(16, 16),
                                  b8_reference(c.astype(np.float32) * np.float32(0.25), 0, False))
    out16 = m.gm_empty(256, "f16")
    m.mte_l0c_gm(l0c, out16, 16, 16, 16, 16, 0, 0, pre_quant=(16.0, "deqf16_scalar"), sat="nosat")
    want = np.clip(c.astype(np.float32) * 16, -65504, 65504).astype(np.float16)   # always clamps
    np.testing.assert_array_equal(m.read(out16, 256).reshape(16, 16), want)


def test_scalar_b8_into_signed_destination_warns(m):
    with pytest.warns(PtoWarning, match="carries no sign bit"):
        m.mte_l0c_gm(put_acc(m, np.zeros((16, 16), np.float32)), m.gm_empty(256, "i8"), 16, 16,
                     16, 16, 0, 0, pre_quant=(1.0, "qf322b8_pre_scalar"))


# --- sat modes ---------------------------------------------------------------------------------

SPECIAL = np.array([72000, -72000, np.inf, -np.inf, np.nan, 120], np.float32)


@pytest.mark.parametrize("sat, want", [
    ("sat", [65504, -65504, 65504, -65504, 0, 120]),
    ("nosat", [np.inf, -np.inf, np.inf, -np.inf, np.nan, 120]),
    ("preserve_nan", [65504, -65504, 65504, -65504, np.nan, 120]),
])
def test_sat_f16_kernel_case(m, sat, want):
    """fixpipe-acc-store-sat-f16-cv: 72000 / inf / NaN under each sat mode, bit for bit."""
    c = np.tile(SPECIAL, (16, 3))[:, :16]
    fb = m.ptr("fb", "f32", 0)
    m.write(fb.cast("ui64"), quant_words(np.ones(16)))
    for space, dst in (("gm", m.gm_empty(256, "f16")), ("ub", m.ptr("ub", "f16", 0)),
                       ("l1", m.ptr("l1", "f16", 0))):
        args = (put_acc(m, c), dst, 16, 16, 16, 16)
        kw = dict(pre_quant=(fb, "qf322f16_pre_vec"), layout="nz2nd", sat=sat)
        if space == "gm":
            m.mte_l0c_gm(*args, 0, 0, **kw)
        elif space == "ub":
            m.mte_l0c_ub(*args, dst_mode=0, **kw)
        else:
            m.mte_l0c_l1(*args, **kw)
        got = m.read(dst, 256).reshape(16, 16)
        expect = np.tile(np.array(want, np.float16), (16, 3))[:, :16]
        np.testing.assert_array_equal(got.view(np.uint16) if sat != "sat" else got,
                                      expect.view(np.uint16) if sat != "sat" else expect)


def test_absent_sat_follows_ctrl(m):
    c = np.tile(SPECIAL, (16, 3))[:, :16]
    out = m.gm_empty(256, "f16")
    m.mte_l0c_gm(put_acc(m, c), out, 16, 16, 16, 16, 0, 0, pre_quant=(1.0, "f32_f16"))
    assert np.isinf(m.read(out, 6)[0]) and np.isnan(m.read(out, 6)[4])  # entry CTRL: nosat
    m.ctrl = 0                                                           # bit 48 clear: sat
    m.mte_l0c_gm(put_acc(m, c), out, 16, 16, 16, 16, 0, 0, pre_quant=(1.0, "f32_f16"))
    assert m.read(out, 6)[0] == 65504 and m.read(out, 6)[4] == 0
    m.ctrl = 1 << 50                                                     # bit 50: keep NaN
    m.mte_l0c_gm(put_acc(m, c), out, 16, 16, 16, 16, 0, 0, pre_quant=(1.0, "f32_f16"))
    assert m.read(out, 6)[0] == 65504 and np.isnan(m.read(out, 6)[4])


# --- relu and clip -------------------------------------------------------------------------------

def test_relu_modes_and_clip(m):
    c = acc_40x64(9) * 8
    l0c = put_acc(m, c)
    fb = m.ptr("fb", "f32", 0x10040)
    alpha = np.array([0.125, 0.25, 0.5, 0.75] * 16, np.float32)
    m.write(fb, alpha)
    cases = [
        (None, "normal_relu", None, np.maximum(c, 0)),
        (0.25, "scalar_relu", None, np.where(c >= 0, c, np.float32(0.25) * c)),
        (fb, "vector_relu", None, np.where(c >= 0, c, alpha * c)),
        (None, "no_relu", np.float16(8.0), np.minimum(c, 8)),
        (0.25, "scalar_relu", np.float16(8.0), np.minimum(np.where(c >= 0, c, 0.25 * c), 8)),
    ]
    for payload, mode, clip, want in cases:
        out = m.ptr("ub", "f16", 0)
        m.mte_l0c_ub(l0c, out, 40, 64, 48, 64, dst_mode=0, pre_quant=(1.0, "qf322f16_pre_scalar"),
                     pre_relu=(payload, mode, clip), layout="nz2nd")
        np.testing.assert_array_equal(m.read(out, 2560).reshape(40, 64),
                                      want.astype(np.float32).astype(np.float16), err_msg=mode)


def test_relu_without_quant_keeps_f32(m):
    c = acc_40x64(10)
    out = m.gm_empty(2560, "f32")
    m.mte_l0c_gm(put_acc(m, c), out, 40, 64, 48, 64, 0, 0, pre_relu=(None, "normal_relu"))
    np.testing.assert_array_equal(m.read(out, 2560).reshape(40, 64), np.maximum(c, 0))


RELU_SPECIAL = np.array([-3.0, -0.0, -np.inf, np.nan, np.inf, 2.5, -1e-30, 0.0], np.float32)


def relu_reference(c):
    """normal_relu by an explicit loop: x if x > 0 else +0.0 (NaN compares false)."""
    return np.array([[x if x > 0 else 0.0 for x in row] for row in c.tolist()], np.float32)


@pytest.mark.parametrize("space", ["gm", "l1", "ub"])
@pytest.mark.parametrize("dst, quant", [("f32", None), ("f16", (1.0, "f32_f16")),
                                        ("f16", (1.0, "qf322f16_pre_scalar"))])
def test_normal_relu_gives_positive_zero(m, space, dst, quant):
    """max(x, 0): negatives, -0.0, -inf and NaN all become +0.0 (not -0.0 or NaN)."""
    c = np.tile(RELU_SPECIAL, (16, 2))
    want = relu_reference(c).astype(NP_OF[dst])
    out = m.gm_empty(256, dst) if space == "gm" else m.ptr(space, dst, 0)
    args = (put_acc(m, c), out, 16, 16, 16, 16)
    kw = dict(pre_quant=quant, pre_relu=(None, "normal_relu"), sat="nosat")
    if dst == "f32":
        kw.pop("sat")
    if space == "gm":
        m.mte_l0c_gm(*args, 0, 0, **kw)
    elif space == "ub":
        m.mte_l0c_ub(*args, dst_mode=0, **kw)
    else:
        m.mte_l0c_l1(*args, **kw)
    got = m.read(out, 256).reshape(16, 16)
    uint = np.uint32 if dst == "f32" else np.uint16
    np.testing.assert_array_equal(got.view(uint), want.view(uint))


def test_normal_relu_at_tile_level_gives_positive_zero():
    """TSTORE / TMOV / TINSERT / TEXTRACT out of an Acc with ReLU go through the same path."""
    m = ptosim.Machine(target="a5")
    c = np.tile(RELU_SPECIAL, (16, 2))
    want = relu_reference(c)
    acc = m.tile("Acc", "f32", 16, 16)
    put_acc(m, c, acc.ptr.offset)
    out = m.gm_empty(256, "f32")
    m.TSTORE(m.global_tensor(out, (1, 1, 1, 16, 16), (256, 256, 256, 16, 1)), acc,
             pre_relu=(None, "normal_relu"))
    np.testing.assert_array_equal(m.read(out, 256).reshape(16, 16).view(np.uint32),
                                  want.view(np.uint32))
    for op in ("TMOV", "TINSERT", "TEXTRACT"):
        v = m.tile("Vec", "f32", 16, 16)
        if op == "TMOV":
            m.TMOV(v, acc, pre_relu=(None, "normal_relu"))
        else:
            getattr(m, op)(v, acc, 0, 0, pre_relu=(None, "normal_relu"))
        np.testing.assert_array_equal(m.read_tile(v).view(np.uint32), want.view(np.uint32),
                                      err_msg=op)


def test_leaky_relu_and_clip_on_special_values(m):
    """Leaky ReLU is x >= 0 ? x : a*x (the Gym relu goldens' formula, IEEE products, so
    -0.0 stays -0.0 and NaN stays NaN); clip is min(y, c) and keeps NaN."""
    c = np.tile(RELU_SPECIAL, (16, 2))
    out = m.gm_empty(256, "f32")
    m.mte_l0c_gm(put_acc(m, c), out, 16, 16, 16, 16, 0, 0, pre_relu=(0.5, "scalar_relu"))
    with np.errstate(invalid="ignore"):
        want = np.where(c >= 0, c, np.float32(0.5) * c)
    np.testing.assert_array_equal(m.read(out, 256).reshape(16, 16).view(np.uint32),
                                  want.view(np.uint32))
    h = m.gm_empty(256, "f16")
    m.mte_l0c_gm(put_acc(m, c), h, 16, 16, 16, 16, 0, 0, pre_quant=(1.0, "qf322f16_pre_scalar"),
                 pre_relu=(None, "no_relu", np.float16(2.0)), sat="nosat")
    with np.errstate(invalid="ignore"):
        want16 = np.minimum(c, np.float32(2.0)).astype(np.float16)
    np.testing.assert_array_equal(m.read(h, 256).reshape(16, 16).view(np.uint16),
                                  want16.view(np.uint16))


# --- atomic -------------------------------------------------------------------------------------

@pytest.mark.parametrize("how, init, fn", [
    ("add", lambda c: np.full_like(c, 1.25), lambda old, c: old + c),
    ("max", lambda c: c + np.where(np.arange(c.size).reshape(c.shape) % 2, 0.5, -0.5),
     np.maximum),
    ("min", lambda c: c - np.where(np.arange(c.size).reshape(c.shape) % 2, 0.5, -0.5),
     np.minimum),
])
def test_atomic_kernel_case(m, how, init, fn):
    """fixpipe-acc-store-atomic-f32-cv: add onto 1.25, max/min against C +- 0.5."""
    c = acc_40x64(11)
    old = init(c).astype(np.float32)
    out = m.gm(old)
    m.mte_l0c_gm(put_acc(m, c), out, 40, 64, 48, 64, 0, 0, layout="nz2nd", atomic=("f32", how))
    np.testing.assert_array_equal(m.read(out, 2560).reshape(40, 64), fn(old, c))


# --- verifier -----------------------------------------------------------------------------------

def _gm(m, *, src=None, dst=None, dt="f32", mm=16, n=16, ss=16, ds=16, sid=0, l2=0, **kw):
    src = src if src is not None else m.ptr("l0c", "f32", 0)
    dst = dst if dst is not None else m.gm_empty(16 * 64, dt)
    m.mte_l0c_gm(src, dst, mm, n, ss, ds, sid, l2, **kw)


FB = lambda m, dt="f32": m.ptr("fb", dt, 0)                      # noqa: E731


@pytest.mark.parametrize("call, err, msg", [
    (lambda m: _gm(m, src=m.ptr("l0a", "f32", 0)), SpaceError, "src must point into l0c"),
    (lambda m: _gm(m, dst=m.ptr("ub", "f32", 0)), SpaceError, "dst must point into gm"),
    (lambda m: _gm(m, src=m.ptr("l0c", "f16", 0), dt="f16"), DtypeError,
     "src element type must be f32 or i32"),
    (lambda m: _gm(m, dt="f16"), DtypeError, "without pre_quant the dst element type must be "
                                             "the accumulator type f32, got f16"),
    (lambda m: _gm(m, dt="f16", pre_quant=(1.0, "qf322f16_pre_vec")), VerifyError,
     r"vector pre_quant mode requires a scaling \(fb\) pointer"),
    (lambda m: _gm(m, dt="f16", pre_quant=(FB(m, "i32"), "qf322f16_pre_vec")), DtypeError,
     "fb payload element type must be f16, bf16 or f32, got i32"),
    (lambda m: _gm(m, dt="f16", pre_quant=(FB(m), "qf322f16_pre_scalar")), VerifyError,
     "scalar pre_quant mode requires an f16, bf16 or f32 scalar payload"),
    (lambda m: _gm(m, dt="f16", pre_quant=(np.int32(1), "qf322f16_pre_scalar")), VerifyError,
     "scalar pre_quant mode requires"),
    (lambda m: _gm(m, dt="ui8", pre_quant=(1.0, "req8_scalar")), VerifyError,
     "pre_quant mode req8_scalar is incompatible with source element type f32"),
    (lambda m: _gm(m, dt="f16", pre_quant=(1.0, "fastest")), VerifyError,
     "invalid pre_quant mode 'fastest'"),
    (lambda m: _gm(m, dt="f16", pre_quant=(1.0, "no_convert")), VerifyError,
     "no_convert is incompatible"),
    (lambda m: _gm(m, dt="bf16", pre_quant=(1.0, "qf322f16_pre_scalar")), DtypeError,
     "pre_quant mode qf322f16_pre_scalar writes f16, not bf16"),
    (lambda m: _gm(m, dt="hif8", pre_quant=(1.0, "qf322hif8_pre_scalar")), NotImplementedOpError,
     "pre_quant mode qf322hif8_pre_scalar is not implemented"),
    (lambda m: _gm(m, pre_relu=(None, "no_relu", np.float16(8))), DtypeError,
     "clip requires destination element type to be f16, ui8, or signed 4/8/16-bit integer"),
    (lambda m: _gm(m, dt="f16", pre_quant=(1.0, "f32_f16"), pre_relu=(None, "no_relu",
                                                                      np.float32(8))),
     DtypeError, "clip payload must be an f16 value for a f16 destination"),
    (lambda m: _gm(m, pre_relu=(0.5, "normal_relu")), VerifyError,
     "normal_relu does not accept a pre_relu payload"),
    (lambda m: _gm(m, pre_relu=(None, "scalar_relu")), VerifyError,
     "scalar_relu requires an f16, bf16 or f32 scalar payload"),
    (lambda m: _gm(m, pre_relu=(0.5, "vector_relu")), VerifyError,
     r"vector_relu requires a scaling \(fb\) pointer payload"),
    (lambda m: _gm(m, pre_relu=(FB(m, "ui8"), "vector_relu")), DtypeError,
     "fb payload element type must be f16, bf16 or f32, got ui8"),
    (lambda m: _gm(m, pre_relu=(None, "pwl")), VerifyError,
     "pwl is not supported for target_profile mte_l0c_gm"),
    (lambda m: _gm(m, pre_relu=(None, "leaky")), VerifyError, "invalid pre_relu mode 'leaky'"),
    (lambda m: _gm(m, loop3=(1, 0, 0)), VerifyError, "loop3 requires nz2nd or nz2dn"),
    (lambda m: _gm(m, layout="nz2nz", loop3=(1, 0, 0)), VerifyError, "loop3 requires nz2nd or nz2dn"),
    (lambda m: _gm(m, layout="nz2dn"), VerifyError, "nz2dn requires loop0_src_stride"),
    (lambda m: _gm(m, layout=("nz2dn", 2), unit_flag="check_only"), VerifyError,
     "unit_flag must be off when nz2dn loop0_src_stride is not 1"),
    (lambda m: _gm(m, layout=("nz2dn", 2)), NotImplementedOpError, "loop0_src_stride = 2"),
    (lambda m: _gm(m, dt="f16", pre_quant=(1.0, "f32_f16"), layout="nz2nz"), DtypeError,
     "nz2nz requires destination element type to be f32, got f16"),
    (lambda m: _gm(m, layout="zz"), VerifyError, "layout must be nz2nd, nz2dn or nz2nz"),
    (lambda m: _gm(m, unit_flag="check_and_set"), VerifyError,
     "unit_flag must be 'check_only' or 'check_and_clear'"),
    (lambda m: _gm(m, sat="clamp"), VerifyError, "sat must be 'sat', 'preserve_nan' or 'nosat'"),
    (lambda m: _gm(m, atomic=("f64", "add")), VerifyError, "invalid atomic type 'f64'"),
    (lambda m: _gm(m, atomic=("f32", "mul")), VerifyError, "invalid atomic op 'mul'"),
    (lambda m: _gm(m, atomic=("s32", "add")), DtypeError, "atomic type s32 does not match the "
                                                          "dst element type f32"),
    (lambda m: _gm(m, mm=0), FieldRangeError, "m = 0 is out of range"),
    (lambda m: _gm(m, n=4096), FieldRangeError, r"n = 4096 .*12-bit"),
    (lambda m: _gm(m, ss=1 << 16), FieldRangeError, r"src_stride = 65536 .*16-bit"),
    (lambda m: _gm(m, ds=0), FieldRangeError, "dst_stride = 0 is out of range"),
    (lambda m: _gm(m, sid=4), FieldRangeError, r"sid = 4 is out of range \[0, 3\]"),
    (lambda m: _gm(m, l2=16), FieldRangeError, "l2cache = 16"),
    (lambda m: _gm(m, layout="nz2nd", loop3=(0, 0, 0)), FieldRangeError, "loop3 count = 0"),
    (lambda m: _gm(m, src=m.ptr("l0c", "f32", 16)), AlignmentError, "src byte offset 16"),
    (lambda m: _gm(m, src=m.ptr("l0c", "f32", 256 * 1024 - 512)), OutOfBoundsError,
     "src touches l0c bytes"),
    (lambda m: _gm(m, dst=m.gm_empty(100, "f32")), OutOfBoundsError, "dst touches GM bytes"),
])
def test_l0c_gm_rejects(m, call, err, msg):
    with pytest.raises(err, match=msg) as info:
        call(m)
    assert str(info.value).startswith("mte_l0c_gm: ")


def _ub(m, dst_mode=0, *, dst=None, mm=16, n=32, ds=32, **kw):
    dst = dst if dst is not None else m.ptr("ub", "f32", 0)
    m.mte_l0c_ub(m.ptr("l0c", "f32", 0), dst, mm, n, 16, ds, dst_mode=dst_mode, **kw)


@pytest.mark.parametrize("call, err, msg", [
    (lambda m: _ub(m, 2), VerifyError, "sub_blockid must be 0 or 1, got 2"),
    (lambda m: _ub(m, "split_k"), VerifyError, "dst_mode must be 0, 1, 'split_m' or 'split_n'"),
    (lambda m: _ub(m, "split_m", mm=15), VerifyError, "split_m needs an even m, got 15"),
    (lambda m: _ub(m, "split_n", n=48, ds=48), VerifyError, "split_n needs n % 32 == 0, got 48"),
    (lambda m: _ub(m, "split_m", dst=m.ptr("ub", "f16", 0), pre_quant=(1.0, "f32_f16")),
     VerifyError, "dual destination mode cannot be combined with pre_quant"),
    (lambda m: _ub(m, "split_m", pre_relu=(None, "no_relu")), VerifyError,
     "cannot be combined with pre_relu"),
    (lambda m: _ub(m, "split_n", layout="nz2nz", ds=256), VerifyError,
     "cannot be combined with nz2nz"),
    (lambda m: _ub(m, "split_m", layout="nz2nd", loop3=(1, 0, 0)), VerifyError,
     "cannot be combined with loop3"),
    (lambda m: _ub(m, "split_m", dst=m.ptr("ub", "f32", 0, subblock=1)), SpaceError,
     "pass a sub-block 0 pointer"),
    (lambda m: _ub(m, 0, dst=m.ptr("ub", "f32", 0, subblock=1)), SpaceError,
     "dst points into sub-block 1's UB but dst_mode selects sub-block 0"),
    (lambda m: _ub(m, 0, dst=m.ptr("ub", "i32", 0), pre_quant=None), DtypeError,
     "a UB destination must be f16 or f32, got i32"),
    (lambda m: _ub(m, 0, ds=36), VerifyError, r"dst_stride = 36 elements \(144 B\) is not a "
                                              "multiple of 32 bytes"),
    (lambda m: _ub(m, 0, dst=m.ptr("ub", "f32", 48)), AlignmentError, "dst byte offset 48"),
    (lambda m: _ub(m, 0, atomic=("f32", "add")), VerifyError,
     "atomic is only supported for mte_l0c_gm"),
])
def test_l0c_ub_rejects(m, call, err, msg):
    with pytest.raises(err, match=msg) as info:
        call(m)
    assert str(info.value).startswith("mte_l0c_ub: ")
    assert (raw(m, "ub", 0) == POISON).all() and (raw(m, "ub", 1) == POISON).all()


def test_l0c_l1_rejects_atomic(m):
    with pytest.raises(VerifyError, match="mte_l0c_l1: atomic is only supported for mte_l0c_gm"):
        m.mte_l0c_l1(m.ptr("l0c", "f32", 0), m.ptr("l1", "f32", 0), 16, 16, 16, 16,
                     atomic=("f32", "add"))


def test_a2a3_limits():
    m = ptosim.Machine(target="a2a3")
    with pytest.raises(TargetError, match="mte_l0c_ub: does not exist on target a2a3"):
        m.mte_l0c_ub(m.ptr("l0c", "f32", 0), m.ptr("ub", "f32", 0), 16, 16, 16, 16, dst_mode=0)
    with pytest.raises(TargetError, match="nz2dn does not exist on target a2a3"):
        m.mte_l0c_gm(m.ptr("l0c", "f32", 0), m.gm_empty(256, "f32"), 16, 16, 16, 16, 0, 0,
                     layout=("nz2dn", 1))
    with pytest.raises(TargetError, match="qf322f32_pre_scalar does not exist on target a2a3"):
        m.mte_l0c_gm(m.ptr("l0c", "f32", 0), m.gm_empty(256, "f32"), 16, 16, 16, 16, 0, 0,
                     pre_quant=(1.0, "qf322f32_pre_scalar"))
