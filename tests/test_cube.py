"""Cube path: mte_l1_l0a / mte_l1_l0b (fractal operand layouts, transpose) and the MAD family."""

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
    OutOfBoundsError,
    SpaceError,
    VerifyError,
)

NAMES = {np.float16: "f16", np.float32: "f32", np.int8: "i8", ml_dtypes.bfloat16: "bf16"}


def al(x, a):
    return -(-x // a) * a


def pad(mat, rows, cols):
    out = np.zeros((rows, cols), mat.dtype)
    out[:mat.shape[0], :mat.shape[1]] = mat
    return out


def stage_nd2nz(m, mat, l1_byte, rows_pad):
    """nd2nz of a row-major matrix into L1 with ``rows_pad`` rows per column block."""
    name = NAMES[mat.dtype.type]
    r, c = mat.shape
    ptr = m.ptr("l1", name, l1_byte)
    m.mte_gm_l1_frac(m.gm(mat), ptr, "nd2nz", shape=(r, c), src_layout=(c * mat.itemsize,),
                     dst_group=(1, 1, rows_pad, 0))
    return ptr


def matmul_on(m, a, b, *, a_transposed_in_l1=False, b_nz_in_l1=True):
    """Run GM -> L1 -> L0A/L0B -> mad and return the m x n accumulator."""
    name = NAMES[a.dtype.type]
    M, K = a.shape
    N = b.shape[1]
    c0 = 32 // a.itemsize
    c0t = max(16, c0)
    if a_transposed_in_l1:
        l1a = stage_nd2nz(m, np.ascontiguousarray(a.T), 0, al(K, c0t))
    else:
        l1a = stage_nd2nz(m, a, 0, al(M, 16))
    if b_nz_in_l1:
        l1b = stage_nd2nz(m, b, 256 * 1024, al(K, c0t))
    else:                                       # ZN image of B = NZ image of B^T
        l1b = stage_nd2nz(m, np.ascontiguousarray(b.T), 256 * 1024, al(N, 16))
    l0a, l0b = m.ptr("l0a", name, 0), m.ptr("l0b", name, 0)
    acc = "i32" if name == "i8" else "f32"
    l0c = m.ptr("l0c", acc, 0)
    m.mte_l1_l0a(l1a, l0a, M, K, transpose=a_transposed_in_l1)
    m.mte_l1_l0b(l1b, l0b, K, N, transpose=b_nz_in_l1)
    m.mad(l0a, l0b, l0c, M, N, K, disable_gemv=True)
    return acc_matrix(m, acc, M, N)


def acc_matrix(m, acc, M, N, byte=0):
    """Read the m x n accumulator straight from L0C bytes: NZ 16x16 fractals, numpy-style."""
    npdt = np.int32 if acc == "i32" else np.float32
    Mp, Np = al(M, 16), al(N, 16)
    blocks = raw(m, "l0c")[byte:byte + Mp * Np * 4].view(npdt).reshape(Np // 16, Mp, 16)
    return blocks.transpose(1, 0, 2).reshape(Mp, Np)[:M, :N]


@pytest.mark.parametrize("target", ["a5", "a2a3"])
@pytest.mark.parametrize("dt, M, N, K", [
    (np.float16, 40, 60, 50), (np.float16, 1, 20, 40), (ml_dtypes.bfloat16, 17, 33, 65),
    (np.float32, 20, 30, 37), (np.int8, 33, 64, 70), (np.int8, 16, 96, 96)])
def test_matmul_matches_numpy(target, dt, M, N, K):
    rng = np.random.default_rng(M * N + K)
    a = rng.integers(-8, 8, (M, K)).astype(dt)
    b = rng.integers(-8, 8, (K, N)).astype(dt)
    got = matmul_on(ptosim.Machine(target=target, poison=POISON), a, b)
    np.testing.assert_array_equal(got, (a.astype(np.int64) @ b.astype(np.int64)).astype(got.dtype))


@pytest.mark.parametrize("dt", [np.float16, np.float32, np.int8])
@pytest.mark.parametrize("a_t, b_nz", [(True, True), (False, False), (True, False)])
def test_transposed_and_zn_sources(dt, a_t, b_nz):
    rng = np.random.default_rng(7)
    a = rng.integers(-4, 4, (24, 40)).astype(dt)
    b = rng.integers(-4, 4, (40, 64)).astype(dt)
    got = matmul_on(ptosim.Machine(poison=POISON), a, b, a_transposed_in_l1=a_t,
                    b_nz_in_l1=b_nz)
    np.testing.assert_array_equal(got, (a.astype(np.int64) @ b.astype(np.int64)).astype(got.dtype))


@pytest.mark.parametrize("target, l0a_golden", [
    ("a5", lambda p, M1, K1, c0: p.reshape(M1 * 16, K1, c0).transpose(1, 0, 2)),      # NZ
    ("a2a3", lambda p, M1, K1, c0: p.reshape(M1, 16, K1, c0).transpose(0, 2, 1, 3)),  # ZZ
])
def test_operand_fractal_bytes(target, l0a_golden):
    """L0A holds NZ (a5) / ZZ (a2a3) 16 x C0 fractals of A, L0B holds [K1][Npad][C0] of B,
    padding lanes included (zero here: nd2nz zero-fills the C0 tails)."""
    m = ptosim.Machine(target=target, poison=0)
    a = np.arange(20 * 24, dtype=np.float16).reshape(20, 24)
    b = np.arange(24 * 18, dtype=np.float16).reshape(24, 18) % 97
    matmul_on(m, a, b)
    Mp, Kp, Np = 32, 32, 32
    got_a = raw(m, "l0a")[:Mp * Kp * 2].view(np.float16)
    np.testing.assert_array_equal(got_a, l0a_golden(pad(a, Mp, Kp), 2, 2, 16).ravel())
    got_b = raw(m, "l0b")[:Kp * Np * 2].view(np.float16)
    np.testing.assert_array_equal(got_b, pad(b, Kp, Np).reshape(2, 16, Np).transpose(0, 2, 1).ravel())


def test_mad_writes_only_the_m_by_n_region(m):
    a = np.ones((20, 16), np.float16)
    b = np.ones((16, 18), np.float16)
    matmul_on(m, a, b)
    blocks = raw(m, "l0c")[:32 * 32 * 4].reshape(2, 32, 16, 4)      # [N1][Mpad][16][4 B]
    assert (blocks[0, 20:] == POISON).all()                          # rows 20..31
    assert (blocks[1, :20, 2:] == POISON).all()                      # columns 18..31
    assert (blocks[1, :20, :2].view(np.float32) == 16).all()


def _load_operands(m, a, b):
    """Write L0A (NZ, a5) and L0B (ZN) images directly, as numpy builds them."""
    M, K = a.shape
    N = b.shape[1]
    Mp, Kp, Np = al(M, 16), al(K, 16), al(N, 16)
    l0a, l0b = m.ptr("l0a", "f16", 0), m.ptr("l0b", "f16", 0)
    m.write(l0a, pad(a, Mp, Kp).reshape(Mp, Kp // 16, 16).transpose(1, 0, 2))
    m.write(l0b, pad(b, Kp, Np).reshape(Kp // 16, 16, Np).transpose(0, 2, 1))
    return l0a, l0b


def test_mad_acc_and_bias(m):
    rng = np.random.default_rng(3)
    a = rng.integers(-3, 3, (24, 40)).astype(np.float16)
    b = rng.integers(-3, 3, (40, 20)).astype(np.float16)
    l0a, l0b = _load_operands(m, a, b)
    l0c = m.ptr("l0c", "f32", 4096)
    bias = m.ptr("bt", "f32", 64)
    m.write(bias, np.arange(20, dtype=np.float32))
    p = a.astype(np.float32) @ b.astype(np.float32)
    m.mad_bias(l0a, l0b, l0c, bias, 24, 20, 40)
    np.testing.assert_array_equal(acc_matrix(m, "f32", 24, 20, 4096), p + np.arange(20))
    m.mad_acc(l0a, l0b, l0c, 24, 20, 40)
    np.testing.assert_array_equal(acc_matrix(m, "f32", 24, 20, 4096), 2 * p + np.arange(20))
    m.mad(l0a, l0b, l0c, 24, 20, 40)
    np.testing.assert_array_equal(acc_matrix(m, "f32", 24, 20, 4096), p)


def test_mad_acc_int32_wraps():
    m = ptosim.Machine(poison=0)
    a, b = np.full((16, 32), 127, np.int8), np.full((32, 16), 127, np.int8)
    l0a, l0b, l0c = m.ptr("l0a", "i8", 0), m.ptr("l0b", "i8", 0), m.ptr("l0c", "i32", 0)
    m.write(l0a, a)                                  # one 16x32 fractal: NZ = row-major here
    m.write(l0b, b.T)                                # ZN of one C0 x 16 block = B^T row-major
    m.write(l0c, np.full(256, 2**31 - 1000, np.int32))
    m.mad_acc(l0a, l0b, l0c, 16, 16, 32)
    want = (np.int64(2**31 - 1000) + 32 * 127 * 127 + 2**31) % 2**32 - 2**31
    assert (acc_matrix(m, "i32", 16, 16) == want).all()


def test_gemv_reads_a_contiguous_row(m):
    """m = 1 without disable_gemv: A(0, k) is read from l0a + k * sizeof."""
    b = np.arange(40 * 20, dtype=np.float16).reshape(40, 20) % 7
    l0a, l0b = _load_operands(m, np.zeros((1, 40), np.float16), b)
    row = np.arange(40, dtype=np.float16) % 5
    m.write(l0a, row)
    l0c = m.ptr("l0c", "f32", 0)
    m.mad(l0a, l0b, l0c, 1, 20, 40)
    np.testing.assert_array_equal(acc_matrix(m, "f32", 1, 20), [row.astype(np.float32) @ b])


def _tf32_reference(x, mode):
    """Round to 11 significant bits with frexp: independent of the bit-twiddling code."""
    mant, exp = np.frexp(x.astype(np.float64))
    scaled = mant * 2.0 ** 11
    if mode == "round_even":
        r = np.round(scaled)
    else:
        r = np.sign(scaled) * np.floor(np.abs(scaled) + 0.5)
    return (r * 2.0 ** (exp - 11)).astype(np.float32)


@pytest.mark.parametrize("mode", ["round_even", "round_away"])
def test_tf32_modes(mode):
    m = ptosim.Machine(poison=0)
    rng = np.random.default_rng(5)
    a = rng.standard_normal((16, 8)).astype(np.float32)
    a[0, :4] = [1 + 2**-11, 1 + 3 * 2**-11, -(1 + 2**-11), 1 + 2**-12]   # exact ties and below
    b = rng.standard_normal((8, 16)).astype(np.float32)
    l0a, l0b, l0c = m.ptr("l0a", "f32", 0), m.ptr("l0b", "f32", 0), m.ptr("l0c", "f32", 0)
    m.write(l0a, a)                                   # 16 x 8 f32 = one NZ fractal, row-major
    m.write(l0b, b.T)                                 # ZN: [K1=1][16][8] = B^T row-major
    m.mad(l0a, l0b, l0c, 16, 16, 8, tf32_mode=mode)
    want = _tf32_reference(a, mode) @ _tf32_reference(b, mode)
    np.testing.assert_allclose(acc_matrix(m, "f32", 16, 16), want, rtol=1e-6)
    if mode == "round_even":
        assert _tf32_reference(a, mode)[0, 0] == 1.0 and _tf32_reference(a, mode)[0, 1] == 1 + 2**-9


@pytest.mark.parametrize("ctrl, sat, want", [
    (None, None, np.inf),                          # the entry CTRL: bit 48 set, nosat
    (0, None, np.finfo(np.float32).max),           # CTRL bit 48 clear: no clause is sat
    (None, "sat", np.finfo(np.float32).max), (0, "nosat", np.inf)])
def test_sat_modes_on_overflow(ctrl, sat, want):
    m = ptosim.Machine(poison=0, ctrl=ctrl)
    l0a, l0b, l0c = m.ptr("l0a", "f32", 0), m.ptr("l0b", "f32", 0), m.ptr("l0c", "f32", 0)
    m.write(l0a, np.full((16, 8), 1e30, np.float32))
    m.write(l0b, np.full((16, 8), 1e30, np.float32))
    m.mad(l0a, l0b, l0c, 16, 16, 8, sat=sat)
    assert (acc_matrix(m, "f32", 16, 16) == np.float32(want)).all()


@pytest.mark.parametrize("sat", [None, "nosat"])
def test_sat_treats_nan_and_inf_inputs(sat):
    """Saturating mode reads NaN inputs as 0 and +-inf as the input type's largest value."""
    m = ptosim.Machine(poison=0, ctrl=0)           # CTRL bit 48 clear: no clause means sat
    a = np.ones((16, 16), np.float16)
    a[0, 0], a[1, 0] = np.nan, np.inf
    l0a, l0b, l0c = m.ptr("l0a", "f16", 0), m.ptr("l0b", "f16", 0), m.ptr("l0c", "f32", 0)
    m.write(l0a, a)
    m.write(l0b, np.ones((16, 16), np.float16))
    m.mad(l0a, l0b, l0c, 16, 16, 16, sat=sat)
    got = acc_matrix(m, "f32", 16, 16)
    if sat is None:
        assert (got[0] == 15).all() and (got[1] == 65504 + 15).all()
    else:
        assert np.isnan(got[0]).all() and np.isinf(got[1]).all()
    m.ctrl |= 1 << 48                              # CTRL bit 48 set: no clause means nosat
    m.mad(l0a, l0b, l0c, 16, 16, 16)
    assert np.isnan(acc_matrix(m, "f32", 16, 16)[0]).all()


def test_fp8_and_hif8_on_a5(m):
    a = (np.arange(16 * 32) % 5 - 2).astype(ml_dtypes.float8_e4m3fn).reshape(16, 32)
    b = (np.arange(32 * 16) % 3).astype(ml_dtypes.float8_e5m2).reshape(32, 16)
    l0a, l0b, l0c = m.ptr("l0a", "f8E4M3FN", 0), m.ptr("l0b", "f8E5M2", 0), m.ptr("l0c", "f32", 0)
    m.write(l0a, a)
    m.write(l0b, b.T)
    m.mad(l0a, l0b, l0c, 16, 16, 32)
    np.testing.assert_array_equal(acc_matrix(m, "f32", 16, 16),
                                  a.astype(np.float32) @ b.astype(np.float32))
    codes = np.full((16, 32), 0x08, np.uint8)            # HiFloat8 1.0
    l0a, l0b = m.ptr("l0a", "hif8", 0), m.ptr("l0b", "hif8", 0)
    m.write(l0a, codes)
    m.write(l0b, codes)
    m.mad(l0a, l0b, l0c, 16, 16, 32)
    assert (acc_matrix(m, "f32", 16, 16) == 32).all()


def _mad_args(mach, **over):
    a = dict(lhs=mach.ptr("l0a", "f16", 0), rhs=mach.ptr("l0b", "f16", 0),
             dst=mach.ptr("l0c", "f32", 0), m=16, n=16, k=16)
    a.update(over)
    return a


@pytest.mark.parametrize("over, kw, err, msg", [
    (lambda m: dict(lhs=m.ptr("l1", "f16", 0)), {}, SpaceError, "lhs must point into l0a"),
    (lambda m: dict(rhs=m.ptr("l0a", "f16", 0)), {}, SpaceError, "rhs must point into l0b"),
    (lambda m: dict(dst=m.ptr("ub", "f32", 0)), {}, SpaceError, "dst must point into l0c"),
    (lambda m: dict(rhs=m.ptr("l0b", "bf16", 0)), {}, DtypeError,
     r"type triple \(f16, bf16, f32\) is not a mad form on target a5"),
    (lambda m: dict(dst=m.ptr("l0c", "i32", 0)), {}, DtypeError, r"\(f16, f16, i32\)"),
    (lambda m: dict(m=0), {}, FieldRangeError, r"m = 0 is out of range \[1, 4095\]"),
    (lambda m: dict(n=4096), {}, FieldRangeError, "n = 4096 .*12-bit"),
    (lambda m: dict(k=-1), {}, FieldRangeError, "k = -1"),
    (lambda m: dict(), dict(tf32_mode="round_even"), VerifyError, "tf32_mode needs f32 x f32"),
    (lambda m: dict(), dict(tf32_mode="nearest"), VerifyError, "tf32_mode must be"),
    (lambda m: dict(), dict(unit_flag="check_and_clear"), VerifyError, "unit_flag must be"),
    (lambda m: dict(), dict(sat="preserve_nan"), VerifyError, "sat must be 'sat' or 'nosat'"),
    (lambda m: dict(lhs=m.ptr("l0a", "i8", 0), rhs=m.ptr("l0b", "i8", 0),
                    dst=m.ptr("l0c", "i32", 0)), dict(sat="sat"), VerifyError,
     "applies to floating-point accumulation only"),
    (lambda m: dict(), dict(disable_gemv=1), FieldRangeError, "disable_gemv must be a boolean"),
    (lambda m: dict(lhs=m.ptr("l0a", "f16", 16)), {}, AlignmentError,
     "lhs byte offset 16 is not 32-byte aligned"),
    (lambda m: dict(dst=m.ptr("l0c", "f32", 256 * 1024 - 512)), {}, OutOfBoundsError,
     "dst touches l0c bytes"),
])
def test_mad_rejects(m, over, kw, err, msg):
    with pytest.raises(err, match=msg) as info:
        m.mad(**_mad_args(m, **over(m)), **kw)
    assert str(info.value).startswith("mad: ")


def test_mad_set_up_is_memoised_per_operand_values(m):
    """A set-up checked once is reused for the same operands only: operands equal to the
    cached ones but of another type still meet the checks, and a failing call raises every
    time (only successful set-ups are kept)."""
    args = _mad_args(m)
    m.mad(**args)
    m.mad(**args)                                        # the cached set-up
    m.mad(**{**args, "m": np.int64(16)})                 # numpy ints pass as before
    m.mad(**args, disable_gemv=np.bool_(True))
    for _ in range(2):
        with pytest.raises(FieldRangeError, match="m must be an integer, got True"):
            m.mad(**{**args, "m": True, "k": 16})
        with pytest.raises(FieldRangeError, match=r"n must be an integer, got 16\.0"):
            m.mad(**{**args, "n": 16.0})
        with pytest.raises(FieldRangeError, match="disable_gemv must be a boolean, got 0"):
            m.mad(**args, disable_gemv=0)
        with pytest.raises(AlignmentError, match="lhs byte offset 16"):
            m.mad(**{**args, "lhs": m.ptr("l0a", "f16", 16)})
        with pytest.raises(OutOfBoundsError, match="dst touches l0c bytes"):
            m.mad(**{**args, "dst": m.ptr("l0c", "f32", 256 * 1024 - 512)})


@pytest.mark.parametrize("sat", ["nosat", "sat"])
@pytest.mark.parametrize("N", [32, 20])    # whole 16-column blocks (written in place) or not
def test_mad_family_bits_with_inf_and_nan(sat, N):
    """mad_bias, mad_acc (repeated: the later calls on cached set-ups) and mad give the
    bits of the widened product computed directly, inf and NaN inputs included, whether
    L0C's fractals are written in place (N % 16 == 0) or through a row-major copy."""
    rng = np.random.default_rng(11)
    M, K = 40, 48
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    a[3, 5], a[7, 1], b[2, 9] = np.inf, np.nan, -np.inf
    m = ptosim.Machine(poison=0)
    l0a, l0b = _load_operands(m, a, b)
    l0c, bias = m.ptr("l0c", "f32", 0), m.ptr("bt", "f32", 0)
    row = rng.standard_normal(N).astype(np.float32)
    row[4] = np.nan
    m.write(bias, row)
    top = np.finfo(np.float32).max

    def clamp(v):
        return np.nan_to_num(v, nan=0.0, posinf=top, neginf=-top) if sat == "sat" else v

    x, y = a.astype(np.float64).astype(np.float32), b.astype(np.float64).astype(np.float32)
    with np.errstate(invalid="ignore", over="ignore"):
        p = x @ y
        if sat == "sat":            # inputs saturate to f16's range, results to f32's
            f16max = float(np.finfo(np.float16).max)
            p = (np.nan_to_num(x, nan=0.0, posinf=f16max, neginf=-f16max)
                 @ np.nan_to_num(y, nan=0.0, posinf=f16max, neginf=-f16max))
        first = clamp(p + row)
        want = [first, clamp(first + p), clamp(clamp(first + p) + p), clamp(p)]
    for _ in range(2):
        got = []
        m.mad_bias(l0a, l0b, l0c, bias, M, N, K, sat=sat)
        got.append(acc_matrix(m, "f32", M, N).copy())
        for _ in range(2):
            m.mad_acc(l0a, l0b, l0c, M, N, K, sat=sat)
            got.append(acc_matrix(m, "f32", M, N).copy())
        m.mad(l0a, l0b, l0c, M, N, K, sat=sat)
        got.append(acc_matrix(m, "f32", M, N).copy())
        for g, w in zip(got, want):
            assert np.array_equal(g.view(np.uint32), w.view(np.uint32))


def test_mad_bias_rejects(m):
    args = _mad_args(m)
    with pytest.raises(SpaceError, match="mad_bias: bias must point into bt"):
        m.mad_bias(args["lhs"], args["rhs"], args["dst"], m.ptr("l0c", "f32", 0), 16, 16, 16)
    with pytest.raises(DtypeError, match="bias element type f16 must be the accumulator type f32"):
        m.mad_bias(args["lhs"], args["rhs"], args["dst"], m.ptr("bt", "f16", 0), 16, 16, 16)


def test_fp8_mad_is_a5_only():
    m = ptosim.Machine(target="a2a3")
    with pytest.raises(DtypeError, match=r"\(f32, f16, f32\) is not a mad form on target a2a3"):
        m.mad(m.ptr("l0a", "f32", 0), m.ptr("l0b", "f16", 0), m.ptr("l0c", "f32", 0), 16, 16, 16)


@pytest.mark.parametrize("op, args, err, msg", [
    ("mte_l1_l0a", lambda m: (m.ptr("ub", "f16", 0), m.ptr("l0a", "f16", 0), 16, 16), SpaceError,
     "src must point into l1"),
    ("mte_l1_l0a", lambda m: (m.ptr("l1", "f16", 0), m.ptr("l0b", "f16", 0), 16, 16), SpaceError,
     "dst must point into l0a"),
    ("mte_l1_l0b", lambda m: (m.ptr("l1", "f16", 0), m.ptr("l0a", "f16", 0), 16, 16), SpaceError,
     "dst must point into l0b"),
    ("mte_l1_l0a", lambda m: (m.ptr("l1", "f16", 0), m.ptr("l0a", "bf16", 0), 16, 16), DtypeError,
     r"element types differ \(f16 vs bf16\)"),
    ("mte_l1_l0a", lambda m: (m.ptr("l1", "i64", 0), m.ptr("l0a", "i64", 0), 16, 16), DtypeError,
     "not a cube operand type"),
    ("mte_l1_l0a", lambda m: (m.ptr("l1", "f16", 0), m.ptr("l0a", "f16", 0), 0, 16),
     FieldRangeError, "m = 0"),
    ("mte_l1_l0b", lambda m: (m.ptr("l1", "f16", 0), m.ptr("l0b", "f16", 0), 16, 4096),
     FieldRangeError, "n = 4096"),
    ("mte_l1_l0a", lambda m: (m.ptr("l1", "f16", 8), m.ptr("l0a", "f16", 0), 16, 16),
     AlignmentError, "src byte offset 8"),
    ("mte_l1_l0b", lambda m: (m.ptr("l1", "f16", 0), m.ptr("l0b", "f16", 40), 16, 16),
     AlignmentError, "dst byte offset 40"),
    ("mte_l1_l0a", lambda m: (m.ptr("l1", "f16", 0), m.ptr("l0a", "f16", 0), 256, 256),
     OutOfBoundsError, "dst touches l0a bytes"),
])
def test_l1_l0_rejects(m, op, args, err, msg):
    with pytest.raises(err, match=msg) as info:
        getattr(m, op)(*args(m))
    assert str(info.value).startswith(f"{op}: ")
    assert (raw(m, "l0a") == POISON).all() and (raw(m, "l0b") == POISON).all()


def test_one_byte_transpose_padding_mismatch_warns(m):
    """A transposed 8-bit load pads n to 32-row blocks while mad reads 16-row ones
    (n % 32 in 1..16): warned, since the operand fractals no longer line up - at every
    call, the ones on the memoised set-up too."""
    for _ in range(2):
        with pytest.warns(ptosim.PtoWarning,
                          match="pads n = 48 to 64 rows per block while mad reads 48"):
            m.mte_l1_l0b(m.ptr("l1", "i8", 0), m.ptr("l0b", "i8", 0), 64, 48, transpose=True)


@pytest.mark.parametrize("op", ["mte_l1_l0a", "mte_l1_l0b"])
def test_l1_l0_set_up_is_memoised_per_operand_values(op):
    """A move's checked set-up is reused for the same operands only: equal values of
    other types still meet the checks, failing calls raise every time, and the bytes of
    repeated moves are those of the first."""
    m = ptosim.Machine(poison=0)
    src, dst = m.ptr("l1", "f16", 0), m.ptr("l0a" if op == "mte_l1_l0a" else "l0b", "f16", 0)
    m.write(src, np.arange(48 * 32, dtype=np.uint16).view(np.float16))
    move = getattr(m, op)
    move(src, dst, 48, 32, transpose=True)
    first = m.read(dst, 48 * 32).view(np.uint16).copy()
    m.write(dst, np.zeros(48 * 32, np.float16))
    move(src, dst, 48, 32, transpose=True)                      # the cached set-up
    move(src, dst, np.int64(48), 32, transpose=np.bool_(True))  # checked anew, same move
    assert (m.read(dst, 48 * 32).view(np.uint16) == first).all()
    for _ in range(2):
        with pytest.raises(FieldRangeError, match="must be an integer, got True"):
            move(src, dst, True, 32, transpose=True)
        with pytest.raises(DtypeError, match="transpose must be a boolean, got 1"):
            move(src, dst, 48, 32, transpose=1)
        with pytest.raises(AlignmentError, match="dst byte offset 16"):
            move(src, dst + 8, 48, 32, transpose=True)


@pytest.mark.parametrize("target, a_t, M, K, N", [
    ("a5", False, 24, 32, 48),     # L0B: n = 48 pads to 64, but one K block: no K stride
    ("a2a3", False, 24, 32, 48),
    ("a5", True, 48, 32, 32),      # L0A NZ: m = 48 pads to 64, one K block
    ("a2a3", True, 48, 64, 32),    # L0A ZZ: row blocks outermost, padding m moves nothing
])
def test_one_byte_transpose_that_lines_up_is_silent_and_right(target, a_t, M, K, N):
    """The padding mismatch only matters where the padded extent is the stride between
    K blocks: with one 32-element K block (or a ZZ L0A) the fractals line up, so no
    warning, and the product is exact."""
    rng = np.random.default_rng(M + K + N)
    a = rng.integers(-8, 8, (M, K)).astype(np.int8)
    b = rng.integers(-8, 8, (K, N)).astype(np.int8)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = matmul_on(ptosim.Machine(target=target, poison=POISON), a, b,
                        a_transposed_in_l1=a_t)
    np.testing.assert_array_equal(got, a.astype(np.int32) @ b.astype(np.int32))


def test_one_byte_transposed_l0a_with_two_k_blocks_warns():
    """NZ L0A (a5): m = 48 pads to 64 rows per K block, mad steps 48: two K blocks differ."""
    m = ptosim.Machine(target="a5")
    with pytest.warns(ptosim.PtoWarning, match="pads m = 48 to 64 rows per block while mad "
                                               "reads 48; with more than one 32-element K"):
        m.mte_l1_l0a(m.ptr("l1", "i8", 0), m.ptr("l0a", "i8", 0), 48, 64, transpose=True)


def test_bias_and_fb_loads(m):
    """mte_l1_bt widens f16 to f32 in 32 B source units; mte_l1_fb copies 64 B units raw,
    FB keyed by its full address (bank 0x1 at 0x10040 is not bank 0)."""
    l1 = m.ptr("l1", "f16", 0)
    m.write(l1, np.arange(64, dtype=np.float16))
    bt = m.ptr("bt", "f32", 0)
    m.mte_l1_bt(l1, bt, 1, nburst=(2, 1, 0))             # 16 f16, skip 16, 16 f16
    np.testing.assert_array_equal(m.read(bt, 32), np.r_[0:16, 32:48])
    fb_hi, fb_lo = m.ptr("fb", "f32", 0x10040), m.ptr("fb", "f32", 0x40)
    m.mte_l1_fb(l1.cast("f32"), fb_hi, 2, nburst=(1, 0, 0))
    np.testing.assert_array_equal(m.read(fb_hi, 32).view(np.uint8),
                                  raw(m, "l1")[:128])
    assert (m.read(fb_lo, 32).view(np.uint8) == POISON).all()


@pytest.mark.parametrize("target, unit", [("a5", 32), ("a2a3", 64)])
def test_bias_unit_per_target(target, unit):
    m = ptosim.Machine(target=target, poison=0)
    l1 = m.ptr("l1", "f32", 0)
    m.write(l1, np.arange(64, dtype=np.float32))
    m.mte_l1_bt(l1, m.ptr("bt", "f32", 0), 1, nburst=(1, 0, 0))
    got = m.read(m.ptr("bt", "f32", 0), 32)
    n = unit // 4
    np.testing.assert_array_equal(got[:n], np.arange(n))
    assert (got[n:] == 0).all()


@pytest.mark.parametrize("op, args, err, msg", [
    ("mte_l1_bt", lambda m: (m.ptr("l1", "f16", 0), m.ptr("bt", "f16", 0)), DtypeError,
     "f16 -> f16 is not one of f32->f32, i32->i32, f16->f32, bf16->f32"),
    ("mte_l1_bt", lambda m: (m.ptr("ub", "f32", 0), m.ptr("bt", "f32", 0)), SpaceError,
     "src must point into l1"),
    ("mte_l1_bt", lambda m: (m.ptr("l1", "f32", 0), m.ptr("fb", "f32", 0)), SpaceError,
     "dst must point into bt"),
    ("mte_l1_bt", lambda m: (m.ptr("l1", "f32", 0), m.ptr("bt", "f32", 8)), AlignmentError,
     "dst byte offset 8"),
    ("mte_l1_fb", lambda m: (m.ptr("l1", "f32", 0), m.ptr("bt", "f32", 0)), SpaceError,
     "dst must point into fb"),
    ("mte_l1_fb", lambda m: (m.ptr("l1", "f32", 0), m.ptr("fb", "f32", 4096 - 32)),
     OutOfBoundsError, "dst touches fb bytes"),
])
def test_bias_fb_rejects(m, op, args, err, msg):
    with pytest.raises(err, match=msg) as info:
        getattr(m, op)(*args(m), 1, nburst=(1, 0, 0))
    assert str(info.value).startswith(f"{op}: ")


def test_bias_load_field_ranges(m):
    with pytest.raises(FieldRangeError, match=r"nburst count = 4096 is out of range \[1, 4095\]"):
        m.mte_l1_bt(m.ptr("l1", "f32", 0), m.ptr("bt", "f32", 0), 1, nburst=(4096, 0, 0))
    with pytest.raises(FieldRangeError, match="len_burst = 0"):
        m.mte_l1_fb(m.ptr("l1", "f32", 0), m.ptr("fb", "f32", 0), 0, nburst=(1, 0, 0))


def test_bf16_bias_is_a5_only():
    m = ptosim.Machine(target="a2a3")
    with pytest.raises(DtypeError, match="bf16 -> f32 bias loads exist on a5 only"):
        m.mte_l1_bt(m.ptr("l1", "bf16", 0), m.ptr("bt", "f32", 0), 1, nburst=(1, 0, 0))


def test_transpose_flag_must_be_boolean(m):
    with pytest.raises(DtypeError, match="transpose must be a boolean"):
        m.mte_l1_l0b(m.ptr("l1", "f16", 0), m.ptr("l0b", "f16", 0), 16, 16, transpose="yes")


def test_f16_widening_table_is_exact():
    """mad widens f16 operands by table: every pattern gives the exact value (f16 -> f32
    loses nothing), NaNs stay NaN with their sign."""
    from ptosim.ops.mad import _f16_to_f32

    table = _f16_to_f32()
    bits = np.arange(1 << 16, dtype=np.uint16)
    sign = np.where(bits >> 15, -1.0, 1.0)
    exp, man = (bits >> 10) & 0x1F, (bits & 0x3FF).astype(np.float64)
    value = np.where(exp == 0, man * 2.0 ** -24, (1024 + man) * 2.0 ** (exp.astype(np.float64) - 25))
    finite = exp != 0x1F
    np.testing.assert_array_equal(table[finite].astype(np.float64), (sign * value)[finite])
    assert np.isinf(table[(exp == 0x1F) & (man == 0)]).all()
    nan = (exp == 0x1F) & (man != 0)
    assert np.isnan(table[nan]).all()
    assert (np.signbit(table[nan]) == (bits[nan] >> 15).astype(bool)).all()


@pytest.mark.parametrize("sat, want", [("sat", np.finfo(np.float32).max), ("nosat", np.inf)])
def test_mad_acc_whole_blocks_overflow_and_footprint(sat, want):
    """mad_acc on whole 16-column blocks (added into L0C in place): the sum saturates or
    overflows as the mode says, and rows past m keep their bytes."""
    m = ptosim.Machine(poison=0)
    M, N, K = 5, 32, 16
    l0a, l0b = _load_operands(m, np.ones((M, K), np.float16), np.ones((K, N), np.float16))
    l0c = m.ptr("l0c", "f32", 0)
    old = np.full((2, 16, 16), 7.0, np.float32)          # [N1][Mpad][16]: an NZ image
    old[0, :M] = np.inf                                  # (f16 products cannot overflow)
    m.write(l0c, old)
    m.mad_acc(l0a, l0b, l0c, M, N, K, sat=sat)
    got = acc_matrix(m, "f32", M, N)
    assert (got[:, :16] == np.float32(want)).all()
    assert (got[:, 16:] == 7 + K).all()
    img = m.read(l0c, 2 * 16 * 16).reshape(2, 16, 16)
    assert (img[:, M:] == 7).all()
