"""pto.mte_gm_l1_frac: GM -> L1 with ND/DN -> NZ packing (seed page 000)."""

import warnings

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import ptosim
from conftest import POISON, raw
from ptosim import (
    AlignmentError,
    DtypeError,
    FieldRangeError,
    OutOfBoundsError,
    PtoWarning,
    SpaceError,
    VerifyError,
)


def reference_frac(gm: np.ndarray, l1: np.ndarray, es: int, mode: str, n: int, d: int,
                   inner: int, outer: int, g: int, l2: int, l3: int, l4: int) -> None:
    """The manual's reference addressing, element by element, on raw bytes."""
    c0 = 32 // es
    for grp in range(g):
        s, dst = grp * outer, grp * l4 * 32
        for r in range(n):
            for c in range(-(-d // c0) * c0):
                a = dst + (c // c0) * l3 * 32 + r * l2 * 32 + (c % c0) * es
                if c < d:
                    src = s + (r * inner + c * es if mode == "nd2nz" else c * inner + r * es)
                    l1[a:a + es] = gm[src:src + es]
                else:
                    l1[a:a + es] = 0


def test_seed_nd2nz_kernel_case(m):
    """A 40x50 f16 with src_layout(100), dst_group(1, 1, 48, 0), as the cube-load kernel does."""
    a = np.random.default_rng(0).standard_normal((40, 50)).astype(np.float16)
    src, l1 = m.gm(a), m.ptr("l1", "f16", 0)
    m.mte_gm_l1_frac(src, l1, "nd2nz", shape=(40, 50), src_layout=(100,),
                     dst_group=(1, 1, 48, 0), ctrl=(0, False))
    blocks = m.read(l1, 4 * 48 * 16).reshape(4, 48, 16)      # [C1][Rpad][C0]
    padded = np.zeros((40, 64), np.float16)
    padded[:, :50] = a
    np.testing.assert_array_equal(blocks[:, :40, :], padded.reshape(40, 4, 16).transpose(1, 0, 2))
    assert (blocks[3, :40, 2:] == 0).all()                   # lanes 50..63 zeroed
    untouched = raw(m, "l1")[:4 * 48 * 32].reshape(4, 48, 32)[:, 40:, :]
    assert (untouched == POISON).all()                       # rows 40..47 keep prior bytes
    assert (raw(m, "l1")[4 * 48 * 32:] == POISON).all()


def test_seed_page_two_group_example(m):
    """The page's example: shape(32, 16), src_layout(32, 1024), dst_group(2, 1, 16, 64)."""
    x = np.arange(2 * 512, dtype=np.float16)                  # two 32x16 matrices, 1024 B apart
    src, l1 = m.gm(x), m.ptr("l1", "f16", 0)
    m.mte_gm_l1_frac(src, l1, "nd2nz", shape=(32, 16), src_layout=(32, 1024),
                     dst_group=(2, 1, 16, 64), ctrl=(0, False))
    out = m.read(l1, 2 * 1024).reshape(2, 1024)               # groups 64 x 32 B = 2048 B apart
    np.testing.assert_array_equal(out[:, :512], x.reshape(2, 512))
    assert (raw(m, "l1")[1024:2048] == POISON).all()          # between the groups: untouched


def test_dn2nz_nchw_to_nc1hwc0(m):
    """dn2nz with shape(16, 10), src_layout(32), dst_group(1, 1, 16, 16): 10 channels of a
    4x4 image (C-major in GM) become NC1HWC0 with channels 10..15 zeroed."""
    x = np.random.default_rng(1).standard_normal((10, 16)).astype(np.float16)   # [C][HW]
    src, l1 = m.gm(x), m.ptr("l1", "f16", 0)
    m.mte_gm_l1_frac(src, l1, "dn2nz", shape=(16, 10), src_layout=(32,),
                     dst_group=(1, 1, 16, 16))
    out = m.read(l1, 16 * 16).reshape(16, 16)                 # [HW][C0]
    np.testing.assert_array_equal(out[:, :10], x.T)
    assert (out[:, 10:] == 0).all()


def test_fractal_z_weights_parameterisation(m):
    """FRACTAL_Z staging of conv weights [N][C][H][W] with one group per output channel:
    G = N, n = H*W, d = C, inner = H*W*es, outer = C*H*W*es, l2 = Npad, l3 = Npad*H*W, l4 = 1.
    Golden: L1[c1][hw][n][c0] = w[n][c1*16 + c0][hw]."""
    N, C, H, W = 16, 20, 2, 2
    w = np.random.default_rng(2).standard_normal((N, C, H, W)).astype(np.float16)
    src, l1 = m.gm(w), m.ptr("l1", "f16", 0)
    hw, es = H * W, 2
    m.mte_gm_l1_frac(src, l1, "dn2nz", shape=(hw, C), src_layout=(hw * es, C * hw * es),
                     dst_group=(N, N, N * hw, 1))
    out = m.read(l1, 2 * hw * N * 16).reshape(2, hw, N, 16)
    golden = np.zeros((N, 32, hw), np.float16)
    golden[:, :C] = w.reshape(N, C, hw)
    np.testing.assert_array_equal(out, golden.reshape(N, 2, 16, hw).transpose(1, 3, 0, 2))


@settings(max_examples=60, deadline=None)
@given(data=st.data(), dt=st.sampled_from(["f16", "f32", "i8", "bf16"]),
       mode=st.sampled_from(["nd2nz", "dn2nz"]))
def test_frac_matches_reference(data, dt, mode):
    m = ptosim.Machine(poison=POISON)
    es = ptosim.sizeof(dt)
    c0 = 32 // es
    n = data.draw(st.integers(1, 20), label="n")
    d = data.draw(st.integers(1, 3 * c0), label="d")
    g = data.draw(st.integers(1, 3), label="g")
    l2 = data.draw(st.integers(1, 2), label="l2")
    nblk = -(-d // c0)
    l3 = (n - 1) * l2 + 1 + data.draw(st.integers(0, 3), label="l3 extra")
    l4 = (nblk - 1) * l3 + (n - 1) * l2 + 1 + data.draw(st.integers(0, 3), label="l4 extra")
    span = (n if mode == "dn2nz" else d) * es
    inner = span + data.draw(st.integers(0, 4), label="inner extra") * es
    outer = (d if mode == "dn2nz" else n) * inner + data.draw(st.integers(0, 8), label="o")
    gm_bytes = (g - 1) * outer + ((d - 1) * inner + n * es if mode == "dn2nz"
                                  else (n - 1) * inner + d * es)
    gm = np.random.default_rng(data.draw(st.integers(0, 99))).integers(
        0, 256, gm_bytes, dtype=np.uint8)
    l1_off = 32 * data.draw(st.integers(0, 4), label="l1 block")
    src = m.gm(gm).cast(dt)
    m.mte_gm_l1_frac(src, m.ptr("l1", dt, l1_off), mode, shape=(n, d),
                     src_layout=(inner, outer), dst_group=(g, l2, l3, l4))
    expect = np.full_like(raw(m, "l1"), POISON)
    reference_frac(gm, expect[l1_off:], es, mode, n, d, inner, outer, g, l2, l3, l4)
    np.testing.assert_array_equal(raw(m, "l1"), expect)


def test_small_c0_packing(m):
    """Small-C0 mode (docs/semantics.md): rows of 4 channels, densely packed; lanes >= d and
    rows up to the 32 B boundary are zero; l2/l3 are not used."""
    x = np.arange(5 * 3, dtype=np.float16).reshape(5, 3)
    src, l1 = m.gm(x), m.ptr("l1", "f16", 64)
    m.mte_gm_l1_frac(src, l1, "nd2nz", shape=(5, 3), src_layout=(6,),
                     dst_group=(1, 1, 5, 0), ctrl=(0, True))
    expect = np.zeros((8, 4), np.float16)                     # 5 rows -> 8 (8 B rows, 32 B)
    expect[:5, :3] = x
    np.testing.assert_array_equal(m.read(l1, 32).reshape(8, 4), expect)
    assert (raw(m, "l1")[:64] == POISON).all() and (raw(m, "l1")[128:] == POISON).all()


def test_small_c0_groups(m):
    x = np.arange(2 * 2 * 4, dtype=np.float32).reshape(2, 2, 4)
    src, l1 = m.gm(x), m.ptr("l1", "f32", 0)
    m.mte_gm_l1_frac(src, l1, "nd2nz", shape=(2, 4), src_layout=(16, 32),
                     dst_group=(2, 1, 1, 3), ctrl=(0, True))
    out = raw(m, "l1")[:3 * 32 + 32].view(np.float32)
    np.testing.assert_array_equal(out[:8], x[0].ravel())
    np.testing.assert_array_equal(out[24:32], x[1].ravel())   # group 1 at 3 x 32 B


def test_fp8_on_a5(m):
    a = (np.arange(64 * 32) % 7).astype(ml_dtypes.float8_e4m3fn).reshape(64, 32)
    src, l1 = m.gm(a), m.ptr("l1", "f8E4M3FN", 0)
    m.mte_gm_l1_frac(src, l1, "nd2nz", shape=(64, 32), src_layout=(32,), dst_group=(1, 1, 64, 0))
    np.testing.assert_array_equal(m.read(l1, 64 * 32).reshape(64, 32), a)


def test_zero_shape_writes_nothing(m):
    src, l1 = m.gm(np.ones(16, np.float16)), m.ptr("l1", "f16", 0)
    m.mte_gm_l1_frac(src, l1, "nd2nz", shape=(0, 16), src_layout=(32,), dst_group=(1, 1, 16, 0))
    assert (raw(m, "l1") == POISON).all()


def test_overlapping_blocks_warn(m):
    src, l1 = m.gm(np.ones((16, 32), np.float16)), m.ptr("l1", "f16", 0)
    with pytest.warns(PtoWarning, match="overlap"):
        m.mte_gm_l1_frac(src, l1, "nd2nz", shape=(16, 32), src_layout=(64,),
                         dst_group=(1, 1, 8, 0))


def test_interleaved_blocks_do_not_warn(m):
    """l2 = 2, l3 = 1 interleaves the two column blocks row by row: no byte is hit twice."""
    src, l1 = m.gm(np.ones((4, 32), np.float16)), m.ptr("l1", "f16", 0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m.mte_gm_l1_frac(src, l1, "nd2nz", shape=(4, 32), src_layout=(64,),
                         dst_group=(1, 2, 1, 0))


def _call(m, **over):
    args = dict(src=m.gm(np.zeros((16, 16), np.float16)), dst=m.ptr("l1", "f16", 0),
                mode="nd2nz", shape=(16, 16), src_layout=(32,), dst_group=(1, 1, 16, 0),
                ctrl=(0, False))
    args.update(over)
    m.mte_gm_l1_frac(args.pop("src"), args.pop("dst"), args.pop("mode"), **args)


@pytest.mark.parametrize("over, err, msg", [
    (lambda m: dict(src=m.ptr("ub", "f16", 0)), SpaceError, "src must point into gm, got ub"),
    (lambda m: dict(dst=m.ptr("ub", "f16", 0)), SpaceError, "dst must point into l1, got ub"),
    (lambda m: dict(dst=m.ptr("l1", "bf16", 0)), DtypeError, r"element types differ \(f16 vs bf16\)"),
    (lambda m: dict(src=m.gm(np.zeros(8, np.int64)), dst=m.ptr("l1", "i64", 0)), DtypeError,
     "not an 8/16/32-bit type"),
    (lambda m: dict(dst=m.ptr("l1", "f16", 16)), AlignmentError,
     "dst byte offset 16 is not 32-byte aligned"),
    (lambda m: dict(mode="nz2nd"), VerifyError, "mode must be 'nd2nz' or 'dn2nz'"),
    (lambda m: dict(shape=(1 << 16, 1)), FieldRangeError, r"shape n_value = 65536 .*16-bit"),
    (lambda m: dict(shape=(1, 1 << 21)), FieldRangeError, r"shape d_value = 2097152 .*21-bit"),
    (lambda m: dict(shape=(16,)), VerifyError, r"shape\(\.\.\.\) takes 2 values"),
    (lambda m: dict(src_layout=(1 << 40,)), FieldRangeError, "inner_stride .*40-bit"),
    (lambda m: dict(src_layout=(32, -1)), FieldRangeError, "outer_stride = -1 is out of range"),
    (lambda m: dict(src_layout=(32, 0, 0)), VerifyError, r"src_layout\(\.\.\.\) takes 1 or 2"),
    (lambda m: dict(dst_group=(0, 1, 16, 0)), FieldRangeError, "group_count = 0 is out of range"),
    (lambda m: dict(dst_group=(1, 1 << 16, 16, 0)), FieldRangeError, "loop2_stride = 65536"),
    (lambda m: dict(dst_group=(1, 1, 1 << 16, 0)), FieldRangeError, "loop3_stride = 65536"),
    (lambda m: dict(dst_group=(1, 1, 16, 1 << 16)), FieldRangeError, "loop4_stride = 65536"),
    (lambda m: dict(dst_group=(1, 1, 16)), VerifyError, r"dst_group\(\.\.\.\) takes 4 values"),
    (lambda m: dict(ctrl=(16, False)), FieldRangeError, "l2_cache_ctrl = 16 .*4-bit"),
    (lambda m: dict(ctrl=(0, 2)), FieldRangeError, "smallc0_en must be a boolean"),
    (lambda m: dict(ctrl=(0, True), shape=(4, 5)), VerifyError, "small-C0 mode needs d_value <= 4"),
    (lambda m: dict(shape=(17, 16)), OutOfBoundsError, "src touches GM bytes"),
    (lambda m: dict(dst=m.ptr("l1", "f16", 512 * 1024 - 256)), OutOfBoundsError,
     "dst touches l1 bytes"),
    (lambda m: dict(shape=(16.0, 16)), FieldRangeError, "n_value must be an integer"),
])
def test_frac_rejects(m, over, err, msg):
    with pytest.raises(err, match=msg) as info:
        _call(m, **over(m))
    assert str(info.value).startswith("mte_gm_l1_frac: ")
    assert (raw(m, "l1") == POISON).all()                     # nothing written


def test_frac_checks_do_not_depend_on_earlier_calls(m):
    """A valid load checked (and memoised) first does not let an equal-valued operand of
    another type through: True is no group count, 16.0 no shape, whatever came before;
    a repeated valid load (its set-up memoised, src moved) lands where it should."""
    _call(m)
    for _ in range(2):
        with pytest.raises(FieldRangeError, match="group_count must be an integer, got True"):
            _call(m, dst_group=(True, 1, 16, 0))
        with pytest.raises(FieldRangeError, match="n_value must be an integer"):
            _call(m, shape=(16.0, 16))
    src = m.gm(np.arange(512, dtype=np.float16).reshape(32, 16))
    for half in range(2):
        _call(m, src=src + half * 256)
        np.testing.assert_array_equal(m.read(m.ptr("l1", "f16", 0), 256).reshape(16, 16),
                                      np.arange(256, dtype=np.float16).reshape(16, 16)
                                      + half * 256)


def test_frac_does_not_exist_for_unknown_dtype_on_a2a3():
    m = ptosim.Machine(target="a2a3")
    with pytest.raises(ptosim.TargetError, match="f8E5M2 does not exist on target a2a3"):
        m.ptr("l1", "f8E5M2", 0)
