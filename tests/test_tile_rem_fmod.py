"""DEFAULT TREM / TREMS / TFMOD / TFMODS per target (pto-isa a5 TRem.hpp, TRemS.hpp,
TFMod.hpp, TFModS.hpp, Int64Div.hpp; a2a3 TRem.hpp, TRemS.hpp, TFmod.hpp, TFmodS.hpp) and the
CPU simulator's formula (cpu_sim_compat; cpu/ElementOp.h, cpu/TFMod.hpp).

The goldens emulate the instruction sequences with Python floats and ints, rounding each
step with ``struct`` ('f' / 'e': correctly rounded; a double result of one f32 / f16 operation
rounds to the same value as the single operation, 53 >= 2 * 24 + 2 bits), not with numpy or
ptosim's lane functions."""

import math
import struct

import numpy as np
import pytest

import ptosim
from ptosim.errors import PtoValueError
from tile_helpers import read, vec

F32_MAX = 3.4028234663852886e38
F16_MAX = 65504.0


# --- the independent step-by-step emulation ---------------------------------------------
def f32(x: float) -> float:
    if math.isnan(x) or math.isinf(x):
        return x
    try:
        return struct.unpack("<f", struct.pack("<f", x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


def f16(x: float) -> float:
    if math.isnan(x) or math.isinf(x):
        return x
    try:
        return struct.unpack("<e", struct.pack("<e", x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


def ieee_div(a: float, b: float) -> float:
    if b == 0:
        if a == 0 or math.isnan(a):
            return math.nan
        return math.copysign(math.inf, a) * math.copysign(1.0, b)
    return a / b


def ieee_mul(a: float, b: float) -> float:
    if (math.isinf(a) and b == 0) or (a == 0 and math.isinf(b)):
        return math.nan
    return a * b


def integral(q: float, rem: bool) -> float:
    """vtrc ROUND_F (rem) / ROUND_Z (fmod); specials and zeros pass through."""
    if math.isnan(q) or math.isinf(q) or q == 0:
        return q
    v = float(math.floor(q) if rem else math.trunc(q))
    return math.copysign(0.0, q) if v == 0 else v


def steps_f32(a: float, b: float, rem: bool) -> float:
    q = integral(f32(ieee_div(a, b)), rem)
    return f32(a - f32(ieee_mul(q, b)))


def sign_fix(r: float, b: float, rnd) -> float:
    t = rnd(ieee_mul(b, r))
    return rnd(r + b) if t < 0 else r


def f16_toward_zero_sat(r: float) -> float:
    """vcvt f32 -> f16 ROUND_Z with RS_ENABLE: NaN -> +0, beyond the range -> +-65504."""
    if math.isnan(r):
        return 0.0
    if abs(r) >= F16_MAX or math.isinf(r):
        return math.copysign(F16_MAX, r)
    if r == 0:
        return r
    _, e = math.frexp(r)
    ulp = 2.0 ** max(e - 11, -24)
    return math.copysign(math.trunc(abs(r) / ulp) * ulp, r)


def golden_a5_float(a: float, b: float, rem: bool, scalar: bool, half: bool) -> float:
    r = steps_f32(a, b, rem)
    if half:
        r = f16_toward_zero_sat(r)
    if rem and not scalar:
        r = sign_fix(r, b, f16 if half else f32)
    return r


def golden_a2a3_f32(a: float, b: float, rem: bool) -> float:
    r = steps_f32(a, b, rem)
    return sign_fix(r, b, f32) if rem else r


def s32(x: float, how) -> int:
    """f32 -> s32, saturating, NaN -> 0."""
    if math.isnan(x):
        return 0
    if math.isinf(x):
        return 2**31 - 1 if x > 0 else -2**31
    return max(-2**31, min(2**31 - 1, int(how(x))))


def wrap32(n: int) -> int:
    return (n + 2**31) % 2**32 - 2**31


def golden_a2a3_i32(a: int, b: int) -> tuple[int, int, int]:
    """(dst, src0 afterwards, src1 afterwards)."""
    af, bf = f32(float(a)), f32(float(b))
    q = s32(f32(ieee_div(af, bf)), math.floor)
    ar, br = s32(af, round), s32(bf, round)
    r = wrap32(ar - wrap32(q * br))
    rf, bf2 = f32(float(r)), f32(float(br))
    if f32(rf * bf2) < 0:
        rf = f32(rf + bf2)
    return s32(rf, math.trunc), ar, br


def trunc_rem_int(a: int, b: int) -> int:
    if b == 0:
        return 0
    q = abs(a) // abs(b)
    q = q if (a < 0) == (b < 0) else -q
    return a - q * b


# --- running the ops -------------------------------------------------------------------
def run(op, a, b, name, target, **kw):
    """dst after the op (b an array: the tile form; a number: the scalar form); also the
    source tiles afterwards."""
    m = ptosim.Machine(target=target)
    r, c = a.shape
    ta, d = vec(m, name, r, c, a), vec(m, name, r, c)
    scalar = not isinstance(b, np.ndarray)
    tb = b if scalar else vec(m, name, r, c, b)
    args = [d, ta, tb]
    if op in ("TREM", "TREMS"):
        args.append(vec(m, name, 2, max(c, 64) * 2))
    getattr(m, op)(*args, **kw)
    return read(m, d), read(m, ta), (None if scalar else read(m, tb))


def bits(x):
    x = np.asarray(x)
    return x.view({4: np.uint32, 2: np.uint16, 8: np.uint64}[x.dtype.itemsize])


def same_bits(got, want):
    np.testing.assert_array_equal(bits(got), bits(want))


def rand_pairs(rng, n, dt, lo=-3, hi=9):
    a = (10.0 ** rng.uniform(lo, hi, n) * rng.choice([-1, 1], n)).astype(dt)
    b = (10.0 ** rng.uniform(-3, 3, n) * rng.choice([-1, 1], n)).astype(dt)
    return a.reshape(4, -1), b.reshape(4, -1)


# --- f32: a5 and a2a3 ------------------------------------------------------------------
@pytest.mark.parametrize("target", ["a5", "a2a3"])
@pytest.mark.parametrize("op", ["TREM", "TFMOD", "TREMS", "TFMODS"])
def test_f32_matches_the_emulation(op, target):
    rng = np.random.default_rng(7)
    a, b = rand_pairs(rng, 256, np.float32)
    rem = op.startswith("TREM")
    scalar = op.endswith("S")
    if scalar:
        s = float(b[0, 0])
        got = run(op, a, s, "f32", target)[0]
        bb = np.full(a.shape, s, np.float32)
    else:
        got = run(op, a, b, "f32", target)[0]
        bb = b
    want = np.array([
        golden_a5_float(float(x), float(y), rem, scalar, False) if target == "a5"
        else golden_a2a3_f32(float(x), float(y), rem)
        for x, y in zip(a.ravel(), bb.ravel())], np.float32).reshape(a.shape)
    same_bits(got, want)
    # the random data reaches the cases where this differs from the exact remainder
    exact = np.remainder(a, bb) if rem else np.fmod(a, bb)
    assert np.any(got != exact)


@pytest.mark.parametrize("op", ["TREM", "TFMOD", "TREMS", "TFMODS"])
def test_f16_a5_matches_the_emulation(op):
    rng = np.random.default_rng(11)
    a, b = rand_pairs(rng, 256, np.float16, lo=-2, hi=4.5)
    rem = op.startswith("TREM")
    scalar = op.endswith("S")
    bb = np.full(a.shape, b[0, 0], np.float16) if scalar else b
    got = run(op, a, float(b[0, 0]) if scalar else b, "f16", "a5")[0]
    want = np.array([golden_a5_float(float(x), float(y), rem, scalar, True)
                     for x, y in zip(a.ravel(), bb.ravel())], np.float16).reshape(a.shape)
    same_bits(got, want)


# --- hand-worked cases where the hardware differs from the exact operation ---------------
def one(op, a, b, name="f32", target="a5", **kw):
    dt = np.float32 if name == "f32" else np.float16
    x = np.full((1, 16), a, dt)
    if isinstance(b, float) and op.endswith("S"):
        return run(op, x, b, name, target, **kw)[0][0, 0]
    y = np.full((1, 16), b, dt)
    return run(op, x, y, name, target, **kw)[0][0, 0]


@pytest.mark.parametrize("target", ["a5", "a2a3"])
def test_large_quotient_loses_the_remainder(target):
    """1e10 = 2^10 x 9765625 is an f32; 1e10 fmod 3 is 1. q = f32(1e10 / 3) = 3333333248,
    q x 3 = 9999999744 rounds to 1e10 (spacing 1024 there), so r = 0."""
    assert np.fmod(np.float32(1e10), np.float32(3)) == 1
    for op in ("TFMOD", "TREM", "TFMODS", "TREMS"):
        assert one(op, 1e10, 3.0, target=target) == 0


def test_sign_fix_only_where_the_code_has_it():
    """a = 255532.796875, b = -0.005244745... : floor(a / b) x b rounds, r = a - q b
    = +0.015625 has a's sign, not b's. TREM adds b (both targets), a5's TREMS does not,
    a2a3's TREMS does."""
    a, b = 255532.796875, float(np.float32(-0.005244745872914791))
    assert steps_f32(a, b, True) == 0.015625
    fixed = np.float32(f32(0.015625 + b))
    assert fixed == np.float32(0.010380254127085209)
    assert one("TREM", a, b) == fixed
    assert one("TREM", a, b, target="a2a3") == fixed
    assert one("TREMS", a, b) == np.float32(0.015625)
    assert one("TREMS", a, b, target="a2a3") == fixed


@pytest.mark.parametrize("target", ["a5", "a2a3"])
def test_sign_of_zero(target):
    """-6 fmod 3: q = -2, -6 - (-6) = +0 (IEEE x - x); the exact fmod is -0. TREM: +0 too
    (3 x 0 is not < 0); numpy's remainder is +0 by its own rule."""
    for op in ("TFMOD", "TREM", "TFMODS", "TREMS"):
        got = one(op, -6.0, 3.0, target=target)
        assert got == 0 and not np.signbit(got)
    assert np.signbit(np.fmod(np.float32(-6), np.float32(3)))


@pytest.mark.parametrize("target", ["a5", "a2a3"])
def test_special_values_f32(target):
    """x / 0 = inf, floor(inf) x 0 = NaN: x rem 0 is NaN (as the exact one). 3 rem inf:
    q = 0, 0 x inf = NaN, so NaN where the exact remainder is 3. inf rem 2: NaN."""
    with np.errstate(all="ignore"):
        for op in ("TREM", "TFMOD"):
            assert np.isnan(one(op, 5.0, 0.0, target=target))
            assert np.isnan(one(op, 3.0, np.inf, target=target))
            assert np.isnan(one(op, np.inf, 2.0, target=target))
            assert np.isnan(one(op, np.nan, 2.0, target=target))
        assert np.fmod(np.float32(3), np.float32(np.inf)) == 3


def test_special_values_f16_a5_saturate():
    """f16 goes through f32 and back with ROUND_Z + RS_ENABLE: the f32 NaN of x rem 0 and
    of inf rem 2 becomes +0; a remainder that truncates in f16 rounds toward zero."""
    for op in ("TREM", "TFMOD", "TREMS", "TFMODS"):
        for a, b in ((5.0, 0.0), (np.inf, 2.0), (-np.inf, 2.0), (3.0, np.inf)):
            got = one(op, a, b, name="f16")
            assert got == 0 and not np.signbit(got), (op, a, b)
    # 1000.5 fmod 0.3 in f32: r is not an f16; ROUND_Z keeps the smaller magnitude
    r32 = steps_f32(1000.5, float(np.float16(0.3)), False)
    got = one("TFMOD", 1000.5, float(np.float16(0.3)), name="f16")
    assert got == np.float16(f16_toward_zero_sat(r32)) and abs(float(got)) <= abs(r32)


# --- integers ------------------------------------------------------------------------------
def test_a2a3_i32_rem_through_f32():
    """a2a3 i32 TREM(S): 2^24 + 1 becomes 2^24 in f32, so 2^24 + 1 rem 3 is 1 (exact 2),
    and the source tile keeps the rounded 2^24; INT_MIN rem -1: floor(2^31) saturates to
    2^31 - 1, r = INT_MIN + 2^31 - 1 = -1; x rem 0 = f32(x)."""
    a = np.array([[2**24 + 1, -7, 7, -2**31, 5, 2**24 + 1, 100, -100]], np.int32)
    b = np.array([[3, 3, -3, -1, 0, 0, 7, 7]], np.int32)
    dst, sa, sb = run("TREM", a, b, "i32", "a2a3")
    want = [golden_a2a3_i32(int(x), int(y)) for x, y in zip(a[0], b[0])]
    assert list(dst[0]) == [w[0] for w in want] == [1, 2, -2, -1, 5, 2**24, 2, 5]
    assert list(sa[0]) == [w[1] for w in want]
    assert sa[0, 0] == 2**24 and sa[0, 1] == -7
    assert list(sb[0]) == list(b[0])
    dst, sa, _ = run("TREMS", a, 3, "i32", "a2a3")
    assert list(dst[0]) == [golden_a2a3_i32(int(x), 3)[0] for x in a[0]]
    assert sa[0, 0] == 2**24


def test_a2a3_i32_random_matches_the_emulation():
    rng = np.random.default_rng(5)
    a = rng.integers(-2**31, 2**31, (2, 64)).astype(np.int32)
    b = rng.integers(-2**20, 2**20, (2, 64)).astype(np.int32)
    dst, sa, sb = run("TREM", a, b, "i32", "a2a3")
    want = [golden_a2a3_i32(int(x), int(y)) for x, y in zip(a.ravel(), b.ravel())]
    assert dst.ravel().tolist() == [w[0] for w in want]
    assert sa.ravel().tolist() == [w[1] for w in want]
    assert sb.ravel().tolist() == [w[2] for w in want]
    assert np.any(dst != np.remainder(a, b))        # beyond 2^24 the f32 path is off


@pytest.mark.parametrize("name", ["i64", "ui64"])
def test_a5_64bit_rem_truncates(name):
    """a5 Int64RemRegs: a - trunc(a / b) * b, 0 where b = 0 (no floor fix)."""
    dt = np.int64 if name == "i64" else np.uint64
    if name == "i64":
        xs = [-7, 7, -7, 7, 5, -2**63, 2**62 + 3, -9]
        ys = [3, -3, -3, 3, 0, -1, 2**40 + 1, 4]
    else:
        xs = [7, 2**64 - 1, 5, 0, 9, 2**63, 12, 13]
        ys = [3, 10, 0, 4, 9, 3, 5, 2**63]
    a, b = np.array([xs], dt), np.array([ys], dt)
    got = run("TREM", a, b, name, "a5")[0][0].tolist()
    assert got == [trunc_rem_int(x, y) if name == "ui64" or x != -2**63 else 0
                   for x, y in zip(xs, ys)]
    assert got[0] == (-1 if name == "i64" else 1)
    got_s = run("TREMS", a, -3 if name == "i64" else 3, name, "a5")[0][0].tolist()
    assert got_s == [trunc_rem_int(x, -3 if name == "i64" else 3) for x in xs]


@pytest.mark.parametrize("name", ["i16", "i32", "ui16", "ui32"])
def test_a5_small_int_rem_is_floored_and_fmod_truncated(name):
    """vmod (16 / 32-bit TREM) is the floored remainder; integer TFMOD is vdiv / vmul / vsub
    (C's %); x rem 0 and x fmod 0 give x."""
    dt = {"i16": np.int16, "i32": np.int32, "ui16": np.uint16, "ui32": np.uint32}[name]
    signed = name[0] == "i"
    xs = [-7, 7, -7, 7, 5, 0, 9, 11] if signed else [7, 8, 9, 10, 5, 0, 9, 11]
    ys = [3, -3, -3, 3, 0, 4, 9, 4] if signed else [3, 3, 4, 3, 0, 4, 9, 4]
    a, b = np.array([xs], dt), np.array([ys], dt)
    rem = run("TREM", a, b, name, "a5")[0][0].tolist()
    fmod = run("TFMOD", a, b, name, "a5")[0][0].tolist()
    assert rem == [x if y == 0 else x - math.floor(x / y) * y for x, y in zip(xs, ys)]
    assert fmod == [x if y == 0 else trunc_rem_int(x, y) for x, y in zip(xs, ys)]


# --- cpu_sim_compat ----------------------------------------------------------------------
@pytest.mark.parametrize("target", ["a5", "a2a3"])
def test_cpu_sim_compat_is_the_exact_formula(target):
    """CPU OP_REM: fmod in double, + b where (a >= 0) != (b >= 0) and r != 0: 1e10 rem 3
    is exactly 1; -6 rem 3 keeps fmod's -0; TFMOD is std::fmod."""
    assert one("TFMOD", 1e10, 3.0, target=target, cpu_sim_compat=True) == 1
    assert one("TREM", 1e10, 3.0, target=target, cpu_sim_compat=True) == 1
    z = one("TREM", -6.0, 3.0, target=target, cpu_sim_compat=True)
    assert z == 0 and np.signbit(z)
    rng = np.random.default_rng(3)
    a, b = rand_pairs(rng, 256, np.float32)
    got = run("TREM", a, b, "f32", target, cpu_sim_compat=True)[0]
    want = []
    for x, y in zip(a.ravel().tolist(), b.ravel().tolist()):
        r = f32(math.fmod(x, y))
        if (x >= 0) != (y >= 0) and r != 0:
            r = f32(r + y)
        want.append(r)
    same_bits(got, np.array(want, np.float32).reshape(a.shape))
    got = run("TFMODS", a, 0.37, "f32", target, cpu_sim_compat=True)[0]
    s = float(np.float32(0.37))
    same_bits(got, np.array([math.fmod(x, s) for x in a.ravel().tolist()],
                            np.float32).reshape(a.shape))


def test_cpu_sim_compat_integers():
    a = np.array([[-7, 7, -7, 7, 2**24 + 1, 0, 9, 11]], np.int32)
    b = np.array([[3, -3, -3, 3, 3, 4, 9, 4]], np.int32)
    for target in ("a5", "a2a3"):
        got = run("TREM", a, b, "i32", target, cpu_sim_compat=True)[0][0].tolist()
        assert got == [x - math.floor(x / y) * y for x, y in zip(a[0].tolist(), b[0].tolist())]
    got = run("TFMOD", a, b, "i32", "a5", cpu_sim_compat=True)[0][0].tolist()
    assert got == [trunc_rem_int(x, y) for x, y in zip(a[0].tolist(), b[0].tolist())]


@pytest.mark.parametrize("op", ["TREM", "TFMOD", "TREMS"])
def test_cpu_sim_compat_integer_zero_divisor_refused(op):
    a = np.array([[5, 6, 7, 8, 1, 2, 3, 4]], np.int32)
    b = 0 if op == "TREMS" else np.array([[1, 1, 0, 1, 1, 1, 1, 1]], np.int32)
    with pytest.raises(PtoValueError, match=f"{op}: integer division by zero \\(the CPU "
                       "simulator's C % is undefined there\\)"):
        run(op, a, b, "i32", "a5", cpu_sim_compat=True)


def test_high_precision_unchanged_and_ignored_on_a2a3():
    """HIGH_PRECISION still runs TFmodRemHp on a5 (the exact fmod for 1e10 fmod 3), and is
    ignored on a2a3 (the DEFAULT code)."""
    assert one("TFMOD", 1e10, 3.0, precision="high_precision") == 1
    assert one("TFMOD", 1e10, 3.0, target="a2a3", precision="high_precision") == 0


def test_repeated_call_keeps_the_target_code():
    """A repeated call on the same tiles (the cached plan) runs the same code: a2a3's i32
    TREM rewrites its source again and gives the same result."""
    m = ptosim.Machine(target="a2a3")
    a = np.array([[2**24 + 1, -7, 7, 5, 1, 2, 3, 4]], np.int32)
    b = np.array([[3, 3, -3, 0, 1, 1, 1, 1]], np.int32)
    ta, tb, d = vec(m, "i32", 1, 8, a), vec(m, "i32", 1, 8, b), vec(m, "i32", 1, 8)
    tmp = vec(m, "i32", 2, 128)
    for _ in range(3):
        m.write(ta.ptr, a.ravel())
        m.TREM(d, ta, tb, tmp)
        assert read(m, d)[0].tolist() == [1, 2, -2, 5, 0, 0, 0, 0]
        assert read(m, ta)[0, 0] == 2**24
