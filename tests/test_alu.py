"""Lane arithmetic (`ptosim.isa.alu`) against independent formulations: Python-int loops for
wrapping, shifts, carries and wide products; exact `Fraction` results rounded half-to-even
by hand for floats; worked values from PTO-Gym goldens computed here from their rules."""

import math
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

from ptosim.dtypes import dtype as D
from ptosim.errors import DtypeError, PtoValueError
from ptosim.isa import alu

pytestmark = pytest.mark.filterwarnings("error")     # no numpy warning may leak

INT_TYPES = ["i8", "ui8", "i16", "si16", "ui16", "i32", "ui32", "i64", "ui64"]
FLOAT_TYPES = ["f16", "bf16", "f32"]
N = 96                                                # examples per parametrised case


# --- independent references ------------------------------------------------------------

def wrap(v: int, name: str) -> int:
    """Python int -> the value of its low bits in the type (two's complement if signed)."""
    dt = D(name)
    k = dt.size * 8
    v &= (1 << k) - 1
    return v - (1 << k) if dt.kind == "int" and v >> (k - 1) else v


def int_samples(name: str, n: int = N, seed: int = 0) -> np.ndarray:
    info = np.iinfo(D(name).np)
    edges = [info.min, info.min + 1, -1 if info.min else 0, 0, 1, info.max - 1, info.max]
    rng = np.random.default_rng(seed)
    rand = rng.integers(info.min, info.max, size=n - len(edges), dtype=D(name).np,
                        endpoint=True)
    return np.concatenate([np.array(edges, dtype=D(name).np), rand])


# (mantissa bits incl. the implicit one, min normal exponent, max finite)
FMT = {"f16": (11, -14, 65504.0), "bf16": (8, -126, float(ml_dtypes.finfo(ml_dtypes.bfloat16).max)),
       "f32": (24, -126, float(np.finfo(np.float32).max))}


def round_exact(x: Fraction, name: str) -> float:
    """Round the exact rational ``x`` to format ``name``, nearest, ties to even."""
    p, emin, fmax = FMT[name]
    if x == 0:
        return 0.0
    e = math.floor(math.log2(abs(x)))
    while Fraction(2) ** e > abs(x):
        e -= 1
    while Fraction(2) ** (e + 1) <= abs(x):
        e += 1
    quantum = Fraction(2) ** (max(e, emin) - (p - 1))
    r = round(x / quantum) * quantum              # Python rounds Fractions half to even
    if abs(r) > Fraction(fmax):                   # rounded past the largest finite value
        return math.copysign(math.inf, x)
    return float(r)


def float_samples(name: str, n: int = N, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    mag = np.exp2(rng.uniform(-12, 12, size=n))
    vals = (mag * rng.choice([-1.0, 1.0], size=n)).astype(np.float32)
    return vals.astype(D(name).np)


def as_fracs(a: np.ndarray) -> list[Fraction]:
    return [Fraction(float(v)) for v in a.astype(np.float64)]


def assert_same(got: np.ndarray, want: np.ndarray) -> None:
    """Bit-exact equality (NaN == NaN of any payload)."""
    assert got.dtype == want.dtype and got.shape == want.shape
    if got.dtype.kind in "iu":
        assert np.array_equal(got, want), (got[got != want][:8], want[got != want][:8])
        return
    nan = np.isnan(got.astype(np.float64)) & np.isnan(want.astype(np.float64))
    u = f"u{got.dtype.itemsize}"
    bad = ~(nan | (got.view(u) == want.view(u)))
    assert not bad.any(), (got[bad][:8], want[bad][:8])


# --- integer arithmetic wraps ----------------------------------------------------------

INT_BINARY = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b,
              "mul": lambda a, b: a * b, "max": max, "min": min,
              "and": lambda a, b: a & b, "or": lambda a, b: a | b, "xor": lambda a, b: a ^ b,
              "addrelu": lambda a, b: a + b, "subrelu": lambda a, b: a - b}


@pytest.mark.parametrize("name", INT_TYPES)
@pytest.mark.parametrize("op", list(INT_BINARY))
def test_int_binary_wraps(name, op):
    a, b = int_samples(name, seed=1), int_samples(name, seed=2)[::-1].copy()
    got = alu.BINARY[op](a, b, D(name))
    want = [wrap(INT_BINARY[op](int(x), int(y)), name) for x, y in zip(a, b, strict=True)]
    if op.endswith("relu"):
        want = [max(w, 0) for w in want]
    assert got.dtype == D(name).np
    assert got.tolist() == want


@pytest.mark.parametrize("name", INT_TYPES)
def test_int_unary_wraps(name):
    a = int_samples(name, seed=3)
    dt = D(name)
    assert alu.UNARY["abs"](a, dt).tolist() == [wrap(abs(int(x)), name) for x in a]
    assert alu.UNARY["neg"](a, dt).tolist() == [wrap(-int(x), name) for x in a]
    assert alu.UNARY["not"](a, dt).tolist() == [wrap(~int(x), name) for x in a]
    assert alu.UNARY["relu"](a, dt).tolist() == [max(int(x), 0) for x in a]


def c_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


@pytest.mark.parametrize("name", INT_TYPES)
def test_int_div_rem_fmod(name):
    a, b = int_samples(name, seed=4), int_samples(name, seed=5)
    b[:3] = [0, 1, 7]
    if D(name).kind == "int":
        a[3], b[3] = np.iinfo(D(name).np).min, -1          # MIN / -1 wraps to MIN
    dt = D(name)
    q, r, f = (alu.BINARY[k](a, b, dt) for k in ("div", "rem", "fmod"))
    for i, (x, y) in enumerate(zip(a.tolist(), b.tolist(), strict=True)):
        if y == 0:                      # documented choice: all ones / dividend
            assert (q[i], r[i], f[i]) == (wrap(-1, name), x, x)
            continue
        assert q[i] == wrap(c_div(x, y), name)
        assert f[i] == x - c_div(x, y) * y                  # sign of the dividend
        fl = x - (Fraction(x, y).__floor__()) * y           # sign of the divisor
        assert r[i] == fl


def shift_ref(x: int, n: int, name: str, left: bool) -> int:
    k = D(name).size * 8
    if left:
        return wrap(x << n, name) if n < k else 0
    if D(name).kind == "int":
        return x >> min(n, k - 1)                            # Python >> is arithmetic
    return x >> n if n < k else 0


@pytest.mark.parametrize("name", INT_TYPES)
@pytest.mark.parametrize("left", [True, False])
def test_shifts_vector_counts(name, left):
    dt = D(name)
    k = dt.size * 8
    a = int_samples(name, seed=6)
    cnt_u = np.arange(a.size) % (k + 3)                      # in range and past the width
    counts = cnt_u.astype(dt.np)
    got = alu.BINARY["shl" if left else "shr"](a, counts, dt)
    uc = [int(c) & ((1 << k) - 1) for c in counts.tolist()]  # counts are unsigned
    assert got.tolist() == [shift_ref(int(x), n, name, left) for x, n in zip(a, uc, strict=True)]


@pytest.mark.parametrize("name", ["i8", "ui8", "i16", "ui16", "i32", "ui32"])
@pytest.mark.parametrize("count", [0, 1, 7, 15, 16, 31, 32, -1, -32768])
def test_shifts_scalar_i16_count(name, count):
    a = int_samples(name, seed=7)
    dt = D(name)
    n = count & 0xFFFF                                       # i16 scalar read unsigned
    assert alu.SCALAR["shl"](a, count, dt).tolist() == [shift_ref(int(x), n, name, True) for x in a]
    assert alu.SCALAR["shr"](a, count, dt).tolist() == [shift_ref(int(x), n, name, False) for x in a]


# --- carries and the widening product ----------------------------------------------------

@pytest.mark.parametrize("name", ["i32", "ui32"])
def test_carries(name):
    dt = D(name)
    a, b = int_samples(name, seed=8), int_samples(name, seed=9)
    cin = (np.arange(a.size) % 3) == 0
    ua = [int(x) & 0xFFFFFFFF for x in a]
    ub = [int(x) & 0xFFFFFFFF for x in b]
    s, c = alu.addc(a, b, dt)
    assert s.tolist() == [wrap(x + y, name) for x, y in zip(ua, ub, strict=True)]
    assert c.tolist() == [(x + y) >> 32 == 1 for x, y in zip(ua, ub, strict=True)]
    s, c = alu.addcs(a, b, cin, dt)
    assert s.tolist() == [wrap(x + y + k, name) for x, y, k in zip(ua, ub, cin, strict=True)]
    assert c.tolist() == [(x + y + k) >> 32 == 1 for x, y, k in zip(ua, ub, cin, strict=True)]
    d, nb = alu.subc(a, b, dt)
    assert d.tolist() == [wrap(x - y, name) for x, y in zip(ua, ub, strict=True)]
    assert nb.tolist() == [x >= y for x, y in zip(ua, ub, strict=True)]
    d, nb = alu.subcs(a, b, cin, dt)
    assert d.tolist() == [wrap(x - y - (1 - k), name) for x, y, k in zip(ua, ub, cin, strict=True)]
    assert nb.tolist() == [x >= y + (1 - k) for x, y, k in zip(ua, ub, cin, strict=True)]


@pytest.mark.parametrize("name", ["i32", "si32", "ui32"])
def test_mull(name):
    dt = D(name)
    a, b = int_samples(name, seed=10), int_samples(name, seed=11)
    lo, hi = alu.mull(a, b, dt)
    for x, y, l_, h in zip(a.tolist(), b.tolist(), lo.tolist(), hi.tolist(), strict=True):
        p = x * y
        assert l_ == wrap(p, name) and h == wrap(p >> 32, name)


@pytest.mark.parametrize("name", ["i8", "ui8", "i16", "ui16", "i32", "ui32"])
def test_int_pow(name):
    dt = D(name)
    base = int_samples(name, seed=12)
    exp = (np.arange(base.size) % 40 - (8 if dt.kind == "int" else 0)).astype(dt.np)
    base[:6] = [1, 1, 0, 2, 3, 0]
    if dt.kind == "int":
        base[6:9] = [-1, -1, -2]
        exp[6:9] = [-3, -4, -1]
    got = alu.BINARY["pow"](base, exp, dt)
    for x, e, g in zip(base.tolist(), exp.tolist(), got.tolist(), strict=True):
        if e >= 0:
            want = wrap(pow(x, e, 1 << (dt.size * 8)), name)
        else:                                                # 1/x^n truncated
            want = 1 if x == 1 else (-1) ** (-e) if x == -1 else 0
        assert g == want, (x, e)


# --- floats: one correct rounding of the exact result -------------------------------------

EXACT = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
         "div": lambda a, b: a / b, "max": max, "min": min,
         "addrelu": lambda a, b: max(a + b, 0), "subrelu": lambda a, b: max(a - b, 0),
         "fmod": lambda a, b: a - b * math.trunc(a / b),
         "rem": lambda a, b: a - b * math.floor(a / b)}


@pytest.mark.parametrize("name", FLOAT_TYPES)
@pytest.mark.parametrize("op", list(EXACT))
def test_float_binary_correctly_rounded(name, op):
    a, b = float_samples(name, seed=13), float_samples(name, seed=14)
    got = alu.BINARY[op](a, b, D(name))
    # an exact zero of fmod takes the dividend's sign, of rem the divisor's (C fmod; numpy
    # remainder as in the trem golden); + - give +0 in round-to-nearest
    zero_sign = {"fmod": lambda x, y: x, "rem": lambda x, y: y}.get(op, lambda x, y: 1.0)
    want = np.array([round_exact(EXACT[op](x, y), name) or math.copysign(0.0, zero_sign(x, y))
                     for x, y in zip(as_fracs(a), as_fracs(b), strict=True)]).astype(D(name).np)
    assert_same(got, want)


@pytest.mark.parametrize("name", FLOAT_TYPES)
def test_fma_single_rounding(name):
    a, b, c = (float_samples(name, seed=s) for s in (15, 16, 17))
    # cases where rounding the product first changes the result
    eps = float(np.finfo(np.float32).eps) if name == "f32" else 2.0 ** -10
    a[:2] = [1 + eps, 3.0]
    b[:2] = [1 - eps, 1 / 3]
    c[:2] = [-1.0, -1.0]
    got = alu.TERNARY["fma"](a, b, c, D(name))
    want = np.array([round_exact(x * y + z, name) for x, y, z in
                     zip(as_fracs(a), as_fracs(b), as_fracs(c), strict=True)]).astype(D(name).np)
    assert_same(got, want)
    axpy = alu.TERNARY["axpy"](a, c, a.dtype.type(b[0]), D(name))    # alpha*x + y
    want = np.array([round_exact(Fraction(float(b[0])) * x + z, name) for x, z in
                     zip(as_fracs(a), as_fracs(c), strict=True)]).astype(D(name).np)
    assert_same(axpy, want)


def test_fma_round_to_odd_catches_double_rounding():
    """f16: exact a*b+c just below an f16 tie; rounding through f32 lands on the tie and
    nearest-even then picks the wrong neighbour."""
    a = np.float16([1 + 2.0 ** -10])
    b = np.float16([2.0 ** -11 * (1 - 2.0 ** -10)])
    c = np.float16([1 + 2.0 ** -10])
    exact = Fraction(float(a[0])) * Fraction(float(b[0])) + Fraction(float(c[0]))
    assert exact == 1 + Fraction(3, 2 ** 11) - Fraction(1, 2 ** 31)
    assert round_exact(exact, "f16") == 1 + 2 ** -10
    naive = (a.astype(np.float32) * b.astype(np.float32) + c.astype(np.float32)).astype(np.float16)
    assert float(naive[0]) == 1 + 2 ** -9                 # the double-rounding trap
    assert float(alu.TERNARY["fma"](a, b, c, D("f16"))[0]) == 1 + 2 ** -10


def test_muladd_rounds_twice():
    f32 = D("f32")
    e = float(np.finfo(np.float32).eps)
    a, b, c = (np.float32([v]) for v in (1 + e, 1 - e, -1.0))
    assert float(alu.TERNARY["muladd"](a, b, c, f32)[0]) == 0.0
    assert float(alu.TERNARY["fma"](a, b, c, f32)[0]) == -e * e


@pytest.mark.parametrize("name", FLOAT_TYPES)
def test_float_unary(name):
    dt = D(name)
    x = np.abs(float_samples(name, seed=18))
    for op, fn in (("sqrt", math.sqrt), ("exp", math.exp), ("ln", math.log),
                   ("rsqrt", lambda v: 1 / math.sqrt(v)), ("rec", lambda v: 1 / v)):
        inp = x if op != "exp" else (x / 512).astype(dt.np)
        got = alu.UNARY[op](inp, dt).astype(np.float64)
        ref = np.array([fn(float(v)) for v in inp.astype(np.float64)])
        ulp = np.spacing(np.abs(ref).astype(dt.np)).astype(np.float64)
        # sqrt is correctly rounded; the rest (numpy float32, as the goldens) within 2 ulp
        tol = 0.5 if op == "sqrt" else 2.0
        assert np.all(np.abs(got - ref) <= tol * ulp), op
    assert alu.UNARY["log"] is alu.UNARY["ln"] and alu.UNARY["recip"] is alu.UNARY["rec"]
    sgn = float_samples(name, seed=19)
    assert_same(alu.UNARY["abs"](sgn, dt), np.abs(sgn.astype(np.float64)).astype(dt.np))
    assert_same(alu.UNARY["neg"](sgn, dt), (-sgn.astype(np.float64)).astype(dt.np))


# --- special values --------------------------------------------------------------------

INF, NAN = math.inf, math.nan


@pytest.mark.parametrize("name", FLOAT_TYPES)
def test_special_values(name):
    dt = D(name)

    def v(*xs):
        return np.array(xs, dtype=np.float64).astype(dt.np)

    def same(got, *want):
        assert_same(got, v(*want))

    a = v(INF, -INF, NAN, 1.0, -0.0, 0.0, -1.0, 0.0)
    b = v(-INF, -INF, 1.0, 0.0, 0.0, -0.0, -0.0, 0.0)
    same(alu.BINARY["add"](a, b, dt), NAN, -INF, NAN, 1.0, 0.0, 0.0, -1.0, 0.0)
    same(alu.BINARY["div"](a, b, dt), NAN, NAN, NAN, INF, NAN, NAN, INF, NAN)
    same(alu.BINARY["mul"](a, b, dt), -INF, INF, NAN, 0.0, -0.0, -0.0, 0.0, 0.0)
    # max/min: NaN from either side wins (golden vmin-f32-exceptional uses np.minimum);
    # on equal values (+-0) the second operand is returned, as MS's `a > b ? a : b`
    x = v(NAN, 1.0, -0.0, 0.0, -INF, 3.5)
    y = v(1.0, NAN, 0.0, -0.0, INF, 3.5)
    same(alu.BINARY["max"](x, y, dt), NAN, NAN, 0.0, -0.0, INF, 3.5)
    same(alu.BINARY["min"](x, y, dt), NAN, NAN, 0.0, -0.0, -INF, 3.5)
    u = v(-0.0, 0.0, -1.0, INF, -INF, NAN)
    same(alu.UNARY["sqrt"](u, dt), -0.0, 0.0, NAN, INF, NAN, NAN)
    same(alu.UNARY["ln"](u, dt), -INF, -INF, NAN, INF, NAN, NAN)
    same(alu.UNARY["exp"](u, dt), 1.0, 1.0, float(alu.UNARY["exp"](v(-1.0), dt)[0]), INF, 0.0,
         NAN)
    same(alu.UNARY["abs"](u, dt), 0.0, 0.0, 1.0, INF, INF, NAN)
    same(alu.UNARY["relu"](u, dt), 0.0, 0.0, 0.0, INF, 0.0, NAN)
    same(alu.UNARY["rec"](u, dt), -INF, INF, -1.0, 0.0, -0.0, NAN)
    # lrelu keeps -0.0 (x >= 0 holds for -0.0) and scales the rest
    same(alu.SCALAR["lrelu"](u, 0.5, dt), -0.0, 0.0, -0.5, INF, -INF, NAN)
    # fmod / rem by zero and of infinity are NaN; rem result takes the divisor's sign
    same(alu.BINARY["fmod"](v(5.0, INF, -5.0), v(0.0, 2.0, 3.0), dt), NAN, NAN, -2.0)
    same(alu.BINARY["rem"](v(5.0, INF, -5.0), v(0.0, 2.0, 3.0), dt), NAN, NAN, 1.0)


def test_subnormals_and_overflow():
    f16, bf16, f32 = D("f16"), D("bf16"), D("f32")
    tiny = np.array([2.0 ** -24, 2.0 ** -24], np.float16)            # smallest f16 subnormal
    assert alu.BINARY["add"](tiny, tiny, f16).tolist() == [2.0 ** -23] * 2
    assert alu.BINARY["mul"](tiny, np.float16([0.5, 0.75]), f16).tolist() == [0.0, 2.0 ** -24]
    big = np.float16([60000.0])
    assert alu.BINARY["add"](big, big, f16).tolist() == [INF]        # overflow rounds to inf
    s = np.float32([1.4e-45])                                        # f32 min subnormal
    assert alu.BINARY["sub"](s, np.float32([0.0]), f32).tolist() == [float(s[0])]
    assert alu.UNARY["sqrt"](np.float32([2.0 ** -148]), f32).tolist() == [2.0 ** -74]
    b = np.array([2.0 ** -133], ml_dtypes.bfloat16)                  # bf16 min subnormal
    assert float(alu.BINARY["add"](b, b, bf16)[0]) == 2.0 ** -132


# --- compare and select ------------------------------------------------------------------

@pytest.mark.parametrize("name", FLOAT_TYPES + INT_TYPES)
@pytest.mark.parametrize("mode", ["eq", "ne", "lt", "le", "gt", "ge"])
def test_compare(name, mode):
    dt = D(name)
    if dt.is_float:
        a = np.concatenate([float_samples(name, 40, 20),
                            np.array([NAN, NAN, 1.0, -0.0, INF], np.float64).astype(dt.np)])
        b = np.concatenate([a[:20], float_samples(name, 20, 21),
                            np.array([NAN, 1.0, NAN, 0.0, INF], np.float64).astype(dt.np)])
        pa, pb = a.astype(np.float64).tolist(), b.astype(np.float64).tolist()
    else:
        a = int_samples(name, 40, 22)
        b = np.concatenate([a[:20], int_samples(name, 20, 23)])
        pa, pb = [int(x) for x in a], [int(x) for x in b]
    ops = {"eq": lambda x, y: x == y, "ne": lambda x, y: x != y, "lt": lambda x, y: x < y,
           "le": lambda x, y: x <= y, "gt": lambda x, y: x > y, "ge": lambda x, y: x >= y}
    got = alu.compare(mode, a, b, dt)
    assert got.dtype == bool
    assert got.tolist() == [ops[mode](x, y) for x, y in zip(pa, pb, strict=True)]
    fn = alu.compare_ufunc(mode, dt)        # the fast path's ufunc: the same predicate
    if name in ("f16", "bf16"):
        assert fn is None
    else:
        with alu.quiet_floats():
            assert fn is not None and fn(a, b).tolist() == got.tolist()


def test_compare_rejects_unknown_mode():
    assert alu.compare_ufunc("lq", D("i32")) is None
    with pytest.raises(PtoValueError, match=r"compare: unknown mode 'lq'.*eq, ne, lt"):
        alu.compare("lq", np.int32([1]), np.int32([1]), D("i32"))


def test_select_is_bit_exact():
    a = np.array([np.nan, -0.0, 1.0], np.float32)
    a[0] = np.uint32(0x7FC01234).view(np.float32)                   # NaN with a payload
    b = np.array([2.0, 0.0, 3.0], np.float32)
    got = alu.select(np.array([True, True, False]), a, b)
    assert got.view(np.uint32).tolist() == [0x7FC01234, 0x80000000,
                                             np.float32(3.0).view(np.uint32)]
    with pytest.raises(DtypeError, match="select: operands differ in dtype"):
        alu.select(np.array([True]), np.float32([1]), np.float16([1]))


# --- worked values from PTO-Gym goldens (expectations derived here from the rules) ---------

def test_gym_vadd_i16_signed_overflow():
    # examples/pto/micro-op/binary-vector/vadd-i16-signed-overflow: wrap-around adds
    lhs = np.array([32767, 32760, -32768, -32760, 1000, -1000, 12345, -12345], np.int16)
    rhs = np.array([1, 100, -1, -100, 30000, -30000, 23456, -23456], np.int16)
    assert alu.BINARY["add"](lhs, rhs, D("i16")).tolist() == [
        -32768, -32676, 32767, 32676, 31000, -31000, -29735, 29735]


def test_gym_vabs_i16_edge():
    # unary-vector/vabs-i16-signed-overflow-edge: abs(-32768) stays -32768 (no saturation)
    edge = np.array([-32768, -32767, -12345, -1, 0, 1, 12345, 32767], np.int16)
    assert alu.UNARY["abs"](edge, D("i16")).tolist() == [
        -32768, 32767, 12345, 1, 0, 1, 12345, 32767]


def test_gym_vmin_f32_exceptional():
    # binary-vector/vmin-f32-exceptional
    lhs = np.array([-INF, -7.5, -0.0, 0.0, 1.0, INF, NAN, 3.5], np.float32)
    rhs = np.array([INF, -2.5, 0.0, -0.0, -1.0, 1.0, 1.0, NAN], np.float32)
    got = alu.BINARY["min"](lhs, rhs, D("f32")).tolist()
    assert got[:6] == [-INF, -7.5, 0.0, 0.0, -1.0, 1.0] and all(map(math.isnan, got[6:]))


def test_gym_vaddcs_and_vsubc_boundaries():
    # vec-scalar/vaddcs-carry-boundary (carry_in all ones), binary-vector/vsubc-borrow-boundary
    u32 = D("ui32")
    a = np.array([0xFFFFFFFF, 0x7FFFFFFF, 0, 0xFFFFFFFE], np.uint32)
    b = np.array([0, 0x80000000, 0, 1], np.uint32)
    s, c = alu.addcs(a, b, np.ones(4, bool), u32)
    assert s.tolist() == [0, 0, 1, 0] and c.tolist() == [True, True, False, True]
    lhs = np.array([0x00000000, 0x00000001, 0x7FFFFFFF, 0x80000000], np.uint32)
    rhs = np.array([0x00000001, 0x00000002, 0x80000000, 0xFFFFFFFF], np.uint32)
    d, nb = alu.subc(lhs, rhs, u32)
    assert d.tolist() == [0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0x80000001]
    assert nb.tolist() == [False] * 4


def test_gym_vmull_signed():
    # dsa-sfu/vmull: signed 32x32 -> (low, high)
    lo, hi = alu.mull(np.int32([-10000, 9999]), np.int32([9999, 9999]), D("i32"))
    assert lo.tolist() == [-99990000, 99980001] and hi.tolist() == [-1, 0]


def test_gym_vlrelu_and_tile_slope():
    # dsa-sfu/vlrelu-f16: x >= 0 ? x : alpha*x, product rounded to f16 once
    x = np.float16([-3.0, 2.0, -0.0, -1.5])
    got = alu.SCALAR["lrelu"](x, np.float16(0.1), D("f16"))
    want = [round_exact(Fraction(-3) * Fraction(float(np.float16(0.1))), "f16"), 2.0, -0.0,
            round_exact(Fraction(-3, 2) * Fraction(float(np.float16(0.1))), "f16")]
    assert got.tolist() == want
    # tile TLRELU: f32 slope on an f16 tile, product rounded once
    got = alu.SCALAR["lrelu"](np.float16([-3.0]), np.float32(0.1), D("f16"))
    assert got.tolist() == [round_exact(-3 * Fraction(float(np.float32(0.1))), "f16")]


def test_gym_vexpdif():
    # dsa-sfu/vexpdiff-f16-part: exp(x - m) in f32 from f16 inputs
    x, m = np.float16([1.5, -2.25]), np.float16([0.5, 0.75])
    got = alu.expdif(x, m, D("f16"))
    assert got.dtype == np.float32
    want = np.float32([math.e, math.exp(-3.0)])
    assert np.all(np.abs(got - want) <= 2 * np.spacing(want))      # numpy f32 exp


def test_gym_tile_rem_fmod_ints_and_shifts():
    # tileop trem/tfmod goldens: np.remainder (floored) / np.fmod (truncated)
    i32 = D("i32")
    a, b = np.int32([7, -7, 7, -7]), np.int32([3, 3, -3, -3])
    assert alu.BINARY["rem"](a, b, i32).tolist() == [1, 2, -2, -1]
    assert alu.BINARY["fmod"](a, b, i32).tolist() == [1, -1, 1, -1]
    # binary-vector/vshr-shift-boundary: u16 logical shifts by 0, 1, 14, 15
    v = np.uint16([0xFFFF, 0x8001, 0xC000, 0x8000])
    assert alu.BINARY["shr"](v, np.uint16([0, 1, 14, 15]), D("ui16")).tolist() == [
        0xFFFF, 0x4000, 3, 1]
    assert alu.BINARY["shr"](v.view(np.int16), np.int16([0, 1, 14, 15]), D("i16")).tolist() == [
        -1, -16384, -1, -1]


# --- scalars, dtypes and rules -------------------------------------------------------------

def test_scalar_operands_broadcast_and_wrap():
    i16, u8 = D("i16"), D("ui8")
    assert alu.BINARY["add"](np.int16([1, 2]), 70000, i16).tolist() == [4465, 4466]
    assert alu.BINARY["sub"](np.uint8([0]), 1, u8).tolist() == [255]
    assert alu.BINARY["mul"](np.float32([2, 3]), 0.5, D("f32")).tolist() == [1.0, 1.5]
    assert alu.SCALAR["rdiv"](np.float32([2, 4]), 1.0, D("f32")).tolist() == [0.5, 0.25]
    assert alu.BINARY["max"](np.int32([[1, 5], [7, -2]]), np.int32(3), D("i32")).shape == (2, 2)


def test_lane_functions_reject_wrong_carriers_and_types():
    with pytest.raises(DtypeError, match=r"has dtype int32, expected the i16 carrier int16"):
        alu.BINARY["add"](np.int32([1]), np.int16([1]), D("i16"))
    with pytest.raises(DtypeError, match=r"lane function 'exp': float element types only, got i32"):
        alu.UNARY["exp"](np.int32([1]), D("i32"))
    with pytest.raises(DtypeError, match=r"lane function 'and': integer element types only, got f32"):
        alu.BINARY["and"](np.float32([1]), np.float32([1]), D("f32"))
    with pytest.raises(DtypeError, match=r"lane function 'shl': integer element types only"):
        alu.BINARY["shl"](np.float32([1]), np.int16([1]), D("f32"))
    with pytest.raises(DtypeError, match=r"'mull': 32-bit integer types only, got i16"):
        alu.mull(np.int16([1]), np.int16([1]), D("i16"))
    with pytest.raises(DtypeError, match=r"is not an integer \(i32\)"):
        alu.BINARY["add"](np.int32([1]), 1.5, D("i32"))


@pytest.mark.parametrize("op,name,ok", [
    ("vmul", "i8", False), ("vmul", "ui8", False), ("vmul", "i16", True),
    ("vdiv", "i32", False), ("vdiv", "f16", True), ("vdiv", "bf16", False),
    ("vand", "f32", False), ("vand", "ui64", True), ("vadd", "bf16", True),
    ("vabs", "bf16", False), ("vrelu", "i16", False), ("vrelu", "si32", True),
    ("vaddc", "i16", False), ("vaddc", "ui32", True), ("vexp", "f32", True),
    ("vlrelu", "i32", False),
    ("tmul", "i8", False), ("tmul", "i64", True), ("tdiv", "ui32", True), ("tdiv", "bf16", False),
    ("tfmod", "i64", False), ("txor", "i64", False), ("tshr", "ui64", True),
    ("tadd", "ui8", True), ("tlrelu", "bf16", False)])
def test_op_dtypes(op, name, ok):
    assert (name in alu.OP_DTYPES[op]) is ok
    if ok:
        alu.check_dtype(op, D(name))
    else:
        with pytest.raises(DtypeError, match=rf"^{op}: src element type {name} is not "
                                             r"supported; legal: "):
            alu.check_dtype(op, D(name), "src")


def test_native_ufuncs_equal_the_lane_functions_bit_for_bit():
    """Every `NATIVE` entry (the ops' fast path inside a run) gives exactly the table's
    bits, special values included; outside `quiet_floats` none is offered."""
    from ptosim.isa.alu import BINARY, NATIVE, UNARY, native, quiet_floats
    dtype = D
    rng = np.random.default_rng(5)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e38, -1e38, 1e-45, 3.0],
                        np.float32)
    assert native("add", dtype("f32")) is None
    with quiet_floats():
        for (lane, name), ufunc in NATIVE.items():
            dt = dtype(name)
            assert native(lane, dt) is ufunc
            if dt.is_float:
                a = np.concatenate([specials, rng.standard_normal(55).astype(np.float32) * 50])
                b = np.concatenate([specials[::-1], rng.standard_normal(55).astype(np.float32)])
            else:
                info = np.iinfo(dt.np)
                a = rng.integers(info.min, info.max, 64, dtype=dt.np, endpoint=True)
                b = rng.integers(info.min, info.max, 64, dtype=dt.np, endpoint=True)
                a[:2], b[:2] = info.max, info.min
            table = UNARY if lane in UNARY and lane not in BINARY else BINARY
            args = (a,) if table is UNARY else (a, b)
            want = table[lane](*args, dt)
            got = ufunc(*args)
            assert got.dtype == want.dtype, (lane, name)
            np.testing.assert_array_equal(got.view(f"u{dt.size}"), want.view(f"u{dt.size}"),
                                          err_msg=f"{lane} {name}")
