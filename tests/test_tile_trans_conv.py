"""TTRANS on conv tiles (NCHW <-> NC1HWC0, the grouped forms, FRACTAL_Z, FRACTAL_Z_3D) against
numpy goldens built from the logical tensors (pad, reshape, transpose), pto-isa's test cases
as worked examples, and every rule refusing with its message."""

import numpy as np
import pytest

import ptosim
from ptosim.errors import DtypeError, NotImplementedOpError, SpaceError, VerifyError

SENT = 0x5A5A
TARGETS = ("a5", "a2a3")


def _bits(dt):
    return np.dtype(f"u{ptosim.dtype(dt).size}")


def _fill(m, t, rng):
    """Random bits over t's whole buffer; returns them as unsigned elements."""
    x = rng.integers(0, 1 << 15, t.elems).astype(_bits(t.dtype.name))
    m.write(t.ptr.cast(f"ui{8 * t.dtype.size}"), x)
    return x


def _sentinel(m, t):
    b = _bits(t.dtype.name)
    m.write(t.ptr.cast(f"ui{8 * t.dtype.size}"), np.full(t.elems, SENT & np.iinfo(b).max, b))


def _read(m, t):
    return m.read(t.ptr.cast(f"ui{8 * t.dtype.size}"), t.elems)


def _tmp(m, dt):
    return m.tile("Vec", dt, 64, 256 // ptosim.dtype(dt).size)


# --- NCHW -> NC1HWC0 (and grouped) ---------------------------------------------------------
@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dt, g, n, c, h, w, c0", [
    ("f32", 1, 1, 32, 6, 8, 8), ("f16", 1, 2, 30, 2, 16, 16), ("i8", 1, 3, 64, 2, 16, 32),
    ("ui16", 1, 1, 26, 2, 16, 4), ("i8", 1, 2, 18, 2, 16, 4), ("f32", 2, 2, 12, 2, 4, 8),
    ("bf16", 3, 1, 20, 1, 16, 16), ("f32", 1, 2, 20, 2, 4, 16), ("f16", 1, 1, 16, 2, 8, 8)])
def test_to_nc1hwc0(target, dt, g, n, c, h, w, c0):
    m = ptosim.Machine(target=target)
    c1 = -(-c // c0)
    es = ptosim.dtype(dt).size
    grouped = g > 1
    lead = (g,) if grouped else ()
    # the code addresses the source with C padded to C1 x C0 channels: a buffer that big
    src = m.conv_tile(dt, "GNCHW" if grouped else "NCHW", (*lead, n, c, h, w),
                      nbytes=g * n * c1 * c0 * h * w * es)
    dst = m.conv_tile(dt, "GNC1HWC0" if grouped else "NC1HWC0", (*lead, n, c1, h, w, c0))
    x = _fill(m, src, np.random.default_rng(1))
    m.TTRANS(dst, src, _tmp(m, dt))
    # golden: the logical padded tensor, channels split into (C1, C0), C0 moved last
    t = x.reshape(g, n, c1, c0, h, w).transpose(0, 1, 2, 4, 5, 3)
    np.testing.assert_array_equal(_read(m, dst), t.reshape(-1))


@pytest.mark.parametrize("target", TARGETS)
def test_worked_example_pto_isa_float32_5_57_4_16(target):
    """pto-isa ttrans_conv TTRANSConvTest.float32_5_57_4_16: GM NCHW [5, 57, 4, 16] zero
    padded to 64 channels, tile NCHW [5, 64, 4, 16] -> NC1HWC0 [5, 4, 4, 16, 16]."""
    m = ptosim.Machine(target=target)
    rng = np.random.default_rng(19)
    a = rng.integers(1, 5, (5, 57, 4, 16)).astype(np.float32)
    padded = np.pad(a, ((0, 0), (0, 7), (0, 0), (0, 0)))
    src = m.conv_tile("f32", "NCHW", (5, 64, 4, 16))
    dst = m.conv_tile("f32", "NC1HWC0", (5, 4, 4, 16, 16))
    m.write(src.ptr, padded.reshape(-1))
    m.TTRANS(dst, src, m.tile("Vec", "f32", 64, 16))
    golden = padded.reshape(5, 4, 16, 4, 16).transpose(0, 1, 3, 4, 2)
    np.testing.assert_array_equal(m.read(dst.ptr, dst.elems), golden.reshape(-1))
    assert m.read(dst.ptr, dst.elems).reshape(5, 4, 4, 16, 16)[0, 3, 0, 0, 9] == 0  # c = 57


# --- NC1HWC0 -> NCHW (a2a3) ------------------------------------------------------------------
@pytest.mark.parametrize("dt, g, n, c1, h, w, c0", [
    ("f32", 1, 2, 2, 3, 4, 8), ("f32", 1, 1, 1, 2, 4, 8), ("f16", 1, 2, 3, 2, 8, 16),
    ("i8", 1, 1, 2, 4, 8, 32), ("f16", 1, 1, 2, 3, 5, 4), ("f32", 2, 2, 2, 3, 4, 8),
    ("ui8", 3, 1, 2, 2, 16, 32)])
def test_from_nc1hwc0_a2a3(dt, g, n, c1, h, w, c0):
    m = ptosim.Machine(target="a2a3")
    grouped = g > 1
    lead = (g,) if grouped else ()
    src = m.conv_tile(dt, "GNC1HWC0" if grouped else "NC1HWC0", (*lead, n, c1, h, w, c0))
    dst = m.conv_tile(dt, "GNCHW" if grouped else "NCHW", (*lead, n, c1 * c0, h, w))
    x = _fill(m, src, np.random.default_rng(2))
    m.TTRANS(dst, src, _tmp(m, dt))
    t = x.reshape(g, n, c1, h, w, c0).transpose(0, 1, 2, 5, 3, 4)
    np.testing.assert_array_equal(_read(m, dst), t.reshape(-1))


def test_worked_example_pto_isa_nc1hwc0_to_nchw():
    """pto-isa a2a3 ttrans_conv float32_NC1HWC02NC1C0HW_2: NC1HWC0 [2, 2, 3, 4, 8] ->
    NCHW [2, 16, 3, 4] (the golden's transpose (0, 1, 4, 2, 3))."""
    m = ptosim.Machine(target="a2a3")
    a = np.random.default_rng(19).integers(1, 5, (2, 2, 3, 4, 8)).astype(np.float32)
    src = m.conv_tile("f32", "NC1HWC0", (2, 2, 3, 4, 8))
    dst = m.conv_tile("f32", "NCHW", (2, 16, 3, 4))
    m.write(src.ptr, a.reshape(-1))
    m.TTRANS(dst, src, m.tile("Vec", "f32", 16, 16))
    golden = a.transpose(0, 1, 4, 2, 3).reshape(2, 16, 3, 4)
    np.testing.assert_array_equal(m.read(dst.ptr, dst.elems), golden.reshape(-1))


# --- NC1HWC0 -> FRACTAL_Z ----------------------------------------------------------------------
@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dt, n, c1, h, w, c0, n0", [
    ("f32", 3, 2, 2, 16, 4, 2), ("i32", 37, 2, 3, 10, 8, 16), ("f16", 7, 2, 1, 8, 16, 16),
    ("f16", 7, 2, 1, 8, 4, 16), ("i8", 25, 5, 1, 6, 32, 16), ("ui16", 16, 1, 2, 2, 16, 16)])
def test_to_fractal_z(target, dt, n, c1, h, w, c0, n0):
    m = ptosim.Machine(target=target)
    n1 = -(-n // n0)
    src = m.conv_tile(dt, "NC1HWC0", (n, c1, h, w, c0))
    dst = m.conv_tile(dt, "FRACTAL_Z", (c1 * h * w, n1, n0, c0))
    x = _fill(m, src, np.random.default_rng(3))
    _sentinel(m, dst)
    m.TTRANS(dst, src)                    # no tmp: neither target stages this form
    got = _read(m, dst).reshape(c1, h, w, n1 * n0, c0)
    # golden: N moved inside C1HW; the padded n keep dst's bytes (the code writes n < N)
    np.testing.assert_array_equal(got[:, :, :, :n], x.reshape(n, c1, h, w, c0)
                                  .transpose(1, 2, 3, 0, 4))
    assert (got[:, :, :, n:] == (SENT & np.iinfo(got.dtype).max)).all()


@pytest.mark.parametrize("target", TARGETS)
def test_worked_example_pto_isa_int32_37_2_3_10_8(target):
    """pto-isa ttrans_conv int32_37_2_3_10_8: NC1HWC0 [37, 2, 3, 10, 8] -> FRACTAL_Z
    [60, 3, 16, 8]; the test zeroes dst first (TSUB), so the padded n read 0."""
    m = ptosim.Machine(target=target)
    a = np.random.default_rng(19).integers(1, 5, (37, 2, 3, 10, 8)).astype(np.int32)
    src = m.conv_tile("i32", "NC1HWC0", (37, 2, 3, 10, 8))
    dst = m.conv_tile("i32", "FRACTAL_Z", (60, 3, 16, 8))
    m.write(src.ptr, a.reshape(-1))
    m.write(dst.ptr, np.zeros(dst.elems, np.int32))
    m.TTRANS(dst, src, m.tile("Vec", "i32", 16, 32))
    golden = np.pad(a, ((0, 11), (0, 0), (0, 0), (0, 0), (0, 0))).transpose(1, 2, 3, 0, 4)
    np.testing.assert_array_equal(m.read(dst.ptr, dst.elems), golden.reshape(-1))


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dt, g, n, c1, h, w, c0, n0", [
    ("f32", 2, 3, 2, 2, 16, 4, 2), ("f32", 2, 4, 2, 2, 16, 4, 2), ("f16", 4, 7, 2, 1, 8, 4, 16),
    ("i8", 3, 5, 1, 2, 3, 32, 16)])
def test_grouped_to_fractal_z(target, dt, g, n, c1, h, w, c0, n0):
    m = ptosim.Machine(target=target)
    n1 = -(-n // n0)
    npad = n1 * n0
    r = c1 * h * w
    # the code steps the source's groups by the padded N: the buffer spans G x N1N0 images
    es = ptosim.dtype(dt).size
    src = m.conv_tile(dt, "GNC1HWC0", (g, n, c1, h, w, c0), nbytes=g * npad * r * c0 * es)
    dst = m.conv_tile(dt, "FRACTAL_Z", (g * r, n1, n0, c0))
    x = _fill(m, src, np.random.default_rng(4))
    _sentinel(m, dst)
    m.TTRANS(dst, src)
    # golden: each group's first N images, padded to N1N0 with zeros, N moved inside C1HW
    imgs = x.reshape(g, npad, c1, h, w, c0)[:, :n]
    golden = np.pad(imgs, ((0, 0), (0, npad - n), (0, 0), (0, 0), (0, 0), (0, 0)))
    np.testing.assert_array_equal(_read(m, dst), golden.transpose(0, 2, 3, 4, 1, 5).reshape(-1))


# --- NCDHW -> FRACTAL_Z_3D (a2a3) --------------------------------------------------------------
def _fz3d_loops(x, n, c, d, h, w, n1, n0, c0):
    """The 3-D fractal by explicit loops: [D, C1, H, W, N1 N0, C0], zero past C and N."""
    c1 = -(-c // c0)
    out = np.zeros((d, c1, h, w, n1 * n0, c0), x.dtype)
    for ni in range(n):
        for ci in range(c):
            for di in range(d):
                out[di, ci // c0, :, :, ni, ci % c0] = x[ni, ci, di]
    return out


@pytest.mark.parametrize("dt, n, c, d, h, w", [
    ("f32", 2, 4, 2, 2, 2), ("i32", 17, 3, 3, 2, 2), ("f16", 19, 14, 2, 4, 2),
    ("i8", 7, 28, 2, 3, 4), ("ui16", 4, 8, 2, 2, 3), ("f16", 16, 16, 1, 2, 8)])
def test_to_fractal_z_3d_a2a3(dt, n, c, d, h, w):
    m = ptosim.Machine(target="a2a3")
    es = ptosim.dtype(dt).size
    c0, n0 = 32 // es, 16
    c1, n1 = -(-c // c0), -(-n // n0)
    src = m.conv_tile(dt, "NCDHW", (n, c, d, h, w))
    dst = m.conv_tile(dt, "FRACTAL_Z_3D", (d * c1 * h * w, n1, n0, c0))
    plane = n * c1 * c0 * h * w
    need = plane + max(plane, h * w * (32 if es == 1 else 16))
    tmp = m.tile("Vec", dt, 1, -(-need * es // 32) * 32 // es)
    x = _fill(m, src, np.random.default_rng(5))
    _sentinel(m, dst)
    m.TTRANS(dst, src, tmp)
    golden = _fz3d_loops(x.reshape(n, c, d, h, w), n, c, d, h, w, n1, n0, c0)
    np.testing.assert_array_equal(_read(m, dst), golden.reshape(-1))


# --- rules ---------------------------------------------------------------------------------
def _conv(m, dt, layout, shape, **kw):
    return m.conv_tile(dt, layout, shape, **kw)


@pytest.mark.parametrize("target, make, error, message", [
    ("a5", lambda m: (_conv(m, "f32", "NC1HWC0", (1, 1, 2, 4, 8)),
                      _conv(m, "f32", "NCHW", (1, 8, 2, 4))),
     NotImplementedOpError, "TTRANS NC1HWC0 -> NCHW: a5's TTrans.hpp has no code"),
    ("a5", lambda m: (_conv(m, "f32", "GNC1HWC0", (1, 1, 1, 2, 4, 8)),
                      _conv(m, "f32", "GNCHW", (1, 1, 8, 2, 4))),
     NotImplementedOpError, "TTRANS GNC1HWC0 -> GNCHW: a5's"),
    ("a5", lambda m: (_conv(m, "f32", "NCDHW", (1, 8, 1, 2, 4)),
                      _conv(m, "f32", "FRACTAL_Z_3D", (8, 1, 16, 8))),
     NotImplementedOpError, "TTRANS NCDHW -> FRACTAL_Z_3D: a5's"),
    ("a2a3", lambda m: (_conv(m, "f32", "NCHW", (1, 8, 2, 4)),
                        _conv(m, "f32", "FRACTAL_Z", (8, 1, 16, 8))),
     VerifyError, "no conv-tile transpose NCHW -> FRACTAL_Z; pto-isa defines"),
    ("a5", lambda m: (_conv(m, "f32", "NCHW", (1, 8, 2, 4)), m.tile("Vec", "f32", 8, 8)),
     VerifyError, "takes conv tiles for both src and dst; got ConvTile -> Tile"),
    ("a5", lambda m: (_conv(m, "i64", "NCHW", (1, 8, 2, 4)),
                      _conv(m, "i64", "NC1HWC0", (1, 2, 2, 4, 4))),
     DtypeError, "src element type must be one of .* got i64"),
    ("a5", lambda m: (_conv(m, "f32", "NCHW", (1, 8, 2, 4)),
                      _conv(m, "f16", "NC1HWC0", (1, 1, 2, 4, 16))),
     DtypeError, "dst elements are 2 B but src's are 4 B"),
    ("a5", lambda m: (_conv(m, "f32", "NCHW", (2, 8, 2, 4)),
                      _conv(m, "f32", "NC1HWC0", (1, 1, 2, 4, 8))),
     VerifyError, r"src and dst must agree on N, H, W"),
    ("a2a3", lambda m: (_conv(m, "f32", "GNCHW", (2, 1, 8, 2, 4)),
                        _conv(m, "f32", "GNC1HWC0", (1, 1, 1, 2, 4, 8))),
     VerifyError, r"src and dst must agree on G, N, H, W"),
    ("a5", lambda m: (_conv(m, "f32", "NCHW", (1, 16, 2, 4)),
                      _conv(m, "f32", "NC1HWC0", (1, 1, 2, 4, 8))),
     VerifyError, r"dst's C1 = 1 must be ceil\(C / C0\) = ceil\(16 / 8\)"),
    ("a2a3", lambda m: (_conv(m, "f32", "NCHW", (1, 8, 3, 3)),
                        _conv(m, "f32", "NC1HWC0", (1, 1, 3, 3, 8))),
     VerifyError, "H x W = 9 elements of 4 B must fill whole 32 B blocks"),
    ("a5", lambda m: (_conv(m, "f32", "NCHW", (1, 5, 2, 4)),
                      _conv(m, "f32", "NC1HWC0", (1, 1, 2, 4, 8))),
     VerifyError, "the NCHW->NC1HWC0 code reads 64 elements from src but its buffer holds 40"),
    ("a2a3", lambda m: (_conv(m, "f32", "NC1HWC0", (3, 2, 2, 2, 4)),
                        _conv(m, "f32", "FRACTAL_Z", (8, 1, 2, 4))),
     VerifyError, r"dst's N1 = 1 must be ceil\(N / N0\) = ceil\(3 / 2\)"),
    ("a5", lambda m: (_conv(m, "f32", "NC1HWC0", (3, 2, 2, 2, 4)),
                      _conv(m, "f32", "FRACTAL_Z", (9, 2, 2, 4))),
     VerifyError, "dst's first dimension 9 must be C1 x H x W = 8"),
    ("a5", lambda m: (_conv(m, "f32", "GNC1HWC0", (2, 3, 2, 2, 2, 4)),
                      _conv(m, "f32", "FRACTAL_Z", (8, 2, 2, 4))),
     VerifyError, "dst's first dimension 8 must be G x C1 x H x W = 16"),
    ("a5", lambda m: (_conv(m, "f32", "NC1HWC0", (3, 2, 2, 2, 4)),
                      _conv(m, "f32", "FRACTAL_Z", (8, 2, 2, 8))),
     VerifyError, "dst's C0 8 must be src's C0 4"),
    ("a5", lambda m: (_conv(m, "f32", "GNC1HWC0", (2, 3, 1, 2, 2, 8)),
                      _conv(m, "f32", "FRACTAL_Z", (8, 1, 16, 8))),
     VerifyError, "the GNC1HWC0->FRACTAL_Z code reads 608 elements from src but its buffer "
                  "holds 192"),
    ("a5", lambda m: (_conv(m, "f32", "NC1HWC0", (3, 2, 2, 2, 4)),
                      _conv(m, "f32", "FRACTAL_Z", (8, 2, 2, 4), nbytes=256)),
     VerifyError, "the NC1HWC0->FRACTAL_Z code writes 124 elements of dst but its buffer "
                  "holds 64"),
    ("a2a3", lambda m: (_conv(m, "f16", "GNC1HWC0", (1, 1, 1, 2, 8, 4)),
                        _conv(m, "f16", "GNCHW", (1, 1, 4, 2, 8))),
     VerifyError, "a2a3's GNC1HWC0 -> GNCHW code takes C0 = 32 B / 2 B = 16; src's C0 is 4"),
    ("a2a3", lambda m: (_conv(m, "f32", "NC1HWC0", (1, 2, 2, 4, 8)),
                        _conv(m, "f32", "NCHW", (1, 20, 2, 4))),
     VerifyError, r"src's C1 = 2 must be ceil\(C / C0\) = ceil\(20 / 8\)"),
    ("a2a3", lambda m: (_conv(m, "f32", "NCDHW", (2, 4, 2, 2, 2)),
                        _conv(m, "f32", "FRACTAL_Z_3D", (8, 1, 16, 4))),
     VerifyError, "C0 must be 32 B / 4 B = 8 elements, got 4"),
    ("a2a3", lambda m: (_conv(m, "f32", "NCDHW", (2, 4, 2, 2, 2)),
                        _conv(m, "f32", "FRACTAL_Z_3D", (4, 1, 16, 8))),
     VerifyError, "dst's first dimension 4 must be D x C1 x H x W = 2 x 1 x 2 x 2"),
    ("a2a3", lambda m: (_conv(m, "f32", "NCDHW", (17, 4, 2, 2, 2)),
                        _conv(m, "f32", "FRACTAL_Z_3D", (8, 1, 16, 8))),
     VerifyError, r"dst's N1 = 1 must be ceil\(N / N0\) = ceil\(17 / 16\)")])
def test_rules(target, make, error, message):
    m = ptosim.Machine(target=target)
    src, dst = make(m)
    with pytest.raises(error, match=message):
        m.TTRANS(dst, src, m.tile("Vec", "f32", 64, 64))


def test_a2a3_tmp_rules():
    m = ptosim.Machine(target="a2a3")
    src = m.conv_tile("f32", "NCHW", (1, 8, 2, 4))
    dst = m.conv_tile("f32", "NC1HWC0", (1, 1, 2, 4, 8))
    # staged: H W = 8 and C0 = 8 are whole f32 blocks; tmp = HW x round16(C0) = 128
    with pytest.raises(VerifyError, match="a2a3 stages NCHW->NC1HWC0 through tmp: pass a tmp "
                                          "tile of at least 128 elements"):
        m.TTRANS(dst, src)
    with pytest.raises(VerifyError, match="tmp holds 64 elements but NCHW->NC1HWC0 stages 128"):
        m.TTRANS(dst, src, m.tile("Vec", "f32", 8, 8))
    m.TTRANS(dst, src, m.tile("Vec", "f32", 8, 16))
    rsrc = m.conv_tile("f32", "NC1HWC0", (1, 1, 2, 4, 8))
    rdst = m.conv_tile("f32", "NCHW", (1, 8, 2, 4))
    with pytest.raises(VerifyError, match="tmp holds 64 elements but NC1HWC0->NCHW stages 128"):
        m.TTRANS(rdst, rsrc, m.tile("Vec", "f32", 8, 8))
    s3 = m.conv_tile("f32", "NCDHW", (2, 4, 2, 2, 2))
    d3 = m.conv_tile("f32", "FRACTAL_Z_3D", (8, 1, 16, 8))
    # plane = N C1 C0 H W = 64; + max(64, H W x 16 = 64) = 128
    with pytest.raises(VerifyError, match="tmp holds 64 elements but NCDHW->FRACTAL_Z_3D "
                                          "stages 128"):
        m.TTRANS(d3, s3, m.tile("Vec", "f32", 8, 8))
    # C0 = 4: the scalar path, no tmp
    s4 = m.conv_tile("f32", "NCHW", (1, 4, 2, 4))
    d4 = m.conv_tile("f32", "NC1HWC0", (1, 1, 2, 4, 4))
    m.TTRANS(d4, s4)


def test_a5_never_needs_tmp():
    m = ptosim.Machine(target="a5")
    src = m.conv_tile("f32", "NCHW", (1, 8, 2, 4))
    dst = m.conv_tile("f32", "NC1HWC0", (1, 1, 2, 4, 8))
    x = np.arange(64, dtype=np.float32)
    m.write(src.ptr, x)
    m.TTRANS(dst, src)
    np.testing.assert_array_equal(m.read(dst.ptr, 64), x.reshape(8, 8).T.reshape(-1))


@pytest.mark.parametrize("kw, error, message", [
    (dict(dtype="f32", layout="NHWC", shape=(1, 2, 2, 8)), VerifyError,
     "unknown conv layout 'NHWC'; one of NCHW"),
    (dict(dtype="f32", layout="NC1HWC0", shape=(1, 2, 2, 8)), VerifyError,
     r"a NC1HWC0 conv tile has 5 positive dimensions, got \(1, 2, 2, 8\)"),
    (dict(dtype="f32", layout="NCHW", shape=(1, 0, 2, 8)), VerifyError,
     "a NCHW conv tile has 4 positive dimensions"),
    (dict(dtype="f32", layout="NCHW", shape=(1, 2, 2, 8), addr=16), VerifyError,
     "a 128 B conv tile at byte 16 must be 32-byte aligned"),
    (dict(dtype="f32", layout="NCHW", shape=(1, 2, 2, 8), nbytes=0), VerifyError,
     "nbytes must be a positive integer, got 0")])
def test_conv_tile_rules(kw, error, message):
    m = ptosim.Machine(target="a5")
    with pytest.raises(error, match=message):
        m.conv_tile(**kw)


def test_conv_tiles_are_ttrans_operands_only():
    m = ptosim.Machine(target="a5")
    a = m.conv_tile("f32", "NCHW", (1, 8, 2, 4))
    t = m.tile("Vec", "f32", 8, 8)
    with pytest.raises(SpaceError, match="src is a conv tile: only TTRANS takes conv tiles"):
        m.TSORT32(t, a, t)
    with pytest.raises(SpaceError, match="must be a Tile, got ConvTile"):
        m.TADD(t, a, t)


def test_a5_b8_slab_gather_offsets_wrap_at_16_bits():
    """a5 gathers an aligned 1-byte C0 x HW slab with 16-bit offsets: C0 = 32, HW = 2080
    puts channel 31's offsets 31 x 2080 + hw past 65535 from hw = 1056 on, and they wrap
    to channel 0's hw - 1056 (the 2-D path static_asserts this away; the conv path does
    not)."""
    m = ptosim.Machine(target="a5")
    src = m.conv_tile("ui8", "NCHW", (1, 32, 1, 2080))
    dst = m.conv_tile("ui8", "NC1HWC0", (1, 1, 1, 2080, 32))
    x = np.random.default_rng(6).integers(0, 256, src.elems).astype(np.uint8)
    m.write(src.ptr, x)
    m.TTRANS(dst, src)
    got = m.read(dst.ptr, dst.elems).reshape(2080, 32)
    chans = x.reshape(32, 2080)
    np.testing.assert_array_equal(got[:, :31], chans[:31].T)          # in range: exact
    np.testing.assert_array_equal(got[:1056, 31], chans[31, :1056])
    np.testing.assert_array_equal(got[1056:, 31], chans[0, :1024])     # wrapped


def test_a5_offsets_wrap_only_on_the_aligned_path():
    """The wrap belongs to a5's vgather2 path (C0 x size whole 32 B blocks); a 1-byte slab
    with C0 = 4 (more than 65536 elements) takes the scalar loop, whose offsets do not
    wrap."""
    m = ptosim.Machine(target="a5")
    hw = 16416                                   # C0 = 4: 65664 elements per slab
    src = m.conv_tile("i8", "NCHW", (1, 4, 1, hw))
    dst = m.conv_tile("i8", "NC1HWC0", (1, 1, 1, hw, 4))
    x = np.random.default_rng(7).integers(0, 256, src.elems).astype(np.uint8)
    m.write(src.ptr.cast("ui8"), x)
    m.TTRANS(dst, src)
    got = m.read(dst.ptr.cast("ui8"), dst.elems)
    np.testing.assert_array_equal(got, x.reshape(4, hw).T.reshape(-1))


@pytest.mark.parametrize("target", TARGETS)
def test_accesses_and_work(target):
    """The op reads the span of src its map reads, writes dst's span and leaves tmp alone
    (ptosim does not model a2a3's scratch bytes); its work is one element per dst element."""
    m = ptosim.Machine(target=target)
    src = m.conv_tile("f32", "NCHW", (1, 8, 2, 4))
    dst = m.conv_tile("f32", "NC1HWC0", (1, 1, 2, 4, 8))
    tmp = m.tile("Vec", "f32", 8, 16)
    seen = []
    m.access_hook = lambda data, start, n, access, operand, op, runs: seen.append(
        (operand, start, n, access))
    m.TTRANS(dst, src, tmp)
    m.access_hook = None
    base = src.ptr.offset
    assert seen == [("src", base, 256, "R"), ("dst", dst.ptr.offset, 256, "W")]
    from ptosim.isa.tile_shape import ROWS
    ttrans = next(r for r in ROWS if r.name == "ttrans")
    assert ttrans.flops([dst, src, tmp]) == (128, 4)   # tmp's 8 x 16 valid elements
    big = m.conv_tile("f32", "NC1HWC0", (2, 1, 2, 8, 8))
    assert ttrans.flops([big, src]) == (256, 4)
