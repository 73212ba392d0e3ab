"""Lane arithmetic: one table of elementwise functions shared by the vector micro-ops
(``pto.vadd`` ...) and the vector tile ops (``pto.tadd`` ...).

Contract
--------
- Inputs are numpy arrays of any shape in the element's carrier dtype (``DType.np``);
  the ``DType`` is passed where semantics depend on it (signedness, width, float format).
  A second operand may be a scalar (Python or numpy number) and broadcasts; it is
  converted to the carrier first (integers wrap to the width). An *array* of another
  dtype is a caller bug and raises `DtypeError`.
- Outputs are new arrays in the result's carrier dtype with the broadcast shape.
  No masks, no valid regions: callers zero inactive lanes / restrict regions.
- Integer arithmetic wraps (two's complement). Floats: f32 via numpy float32 (what every
  golden computes); f16/bf16 are widened to f32 exactly, computed there and rounded to
  nearest-even once (correctly rounded for + - * / sqrt because f32 has more than twice
  their precision plus two bits). No warnings leak (everything runs under np.errstate).
- Tables: `UNARY[name](x, dt)`, `BINARY[name](a, b, dt)`, `SCALAR[name](x, s, dt)` (only
  where the scalar form differs from broadcasting: i16 shift counts, f32 slopes, reversed
  division), `TERNARY[name](a, b, c, dt)`, `compare(mode, a, b, dt)`, `select(m, a, b)`,
  carries `addc/subc/addcs/subcs`, `mull`, `expdif`. Which element types each op
  mnemonic accepts is data in `OP_DTYPES` (`check_dtype` raises the verifier error).

Semantic decisions and their evidence are in docs/semantics.md, "Lane arithmetic".
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from ..dtypes import DType
from ..errors import DtypeError, PtoValueError

Array = np.ndarray
UnaryFn = Callable[[Array, DType], Array]
BinaryFn = Callable[[Any, Any, DType], Array]
TernaryFn = Callable[[Any, Any, Any, DType], Array]




# --- element-type helpers ----------------------------------------------------------

def bits(dt: DType) -> int:
    """Width of one element in bits."""
    return dt.size * 8


def is_signed(dt: DType) -> bool:
    """Signed or signless integer (signless ``iN`` computes as signed, like ``siN``)."""
    return dt.kind == "int"


def _unsigned(dt: DType) -> np.dtype:
    return np.dtype(f"u{dt.size}")


def _arr(x: Any, dt: DType, what: str = "operand") -> Array:
    """``x`` as an array of ``dt``'s carrier; scalars are converted (integers wrap)."""
    if isinstance(x, np.ndarray):
        if x.dtype != dt.np:
            raise DtypeError(f"lane function: {what} has dtype {x.dtype}, expected the "
                             f"{dt.name} carrier {dt.np}")
        return x
    if dt.kind in ("int", "uint"):
        if not isinstance(x, (int, np.integer)):
            raise DtypeError(f"lane function: {what} {x!r} is not an integer ({dt.name})")
        return np.asarray(int(x) & ((1 << bits(dt)) - 1), dtype=_unsigned(dt)).view(dt.np)
    with np.errstate(all="ignore"):
        return np.asarray(x).astype(dt.np)


def _f32(x: Array) -> Array:
    return x if x.dtype == np.float32 else x.astype(np.float32)


def _out(y: Any, dt: DType) -> Array:
    """Round (floats: nearest-even) or reinterpret a result into ``dt``'s carrier (a
    result already of the carrier is returned as is: the lane functions make new arrays)."""
    if isinstance(y, np.ndarray) and y.dtype == dt.np:
        return y
    return np.asarray(y).astype(dt.np)


# > 0 while a kernel run holds np.errstate(all="ignore") around all its ops
# (`quiet_floats`): the lane functions then skip entering their own, about a microsecond
# each. Process-wide: another thread calling them meanwhile may see numpy's float
# warnings (never different results).
_QUIET = [0]


@contextmanager
def quiet_floats() -> Iterator[None]:
    """numpy's float warnings off for a whole run of ops (see `_QUIET`)."""
    with np.errstate(all="ignore"):
        _QUIET[0] += 1
        try:
            yield
        finally:
            _QUIET[0] -= 1


def _float_op(fn: Callable[..., Any]) -> Callable[..., Array]:
    """Lift an f32 numpy function to every float format: widen, compute, round once."""
    def run(*args: Any) -> Array:
        *xs, dt = args
        if _QUIET[0]:
            return _out(fn(*[_f32(_arr(x, dt)) for x in xs]), dt)
        with np.errstate(all="ignore"):
            return _out(fn(*[_f32(_arr(x, dt)) for x in xs]), dt)
    return run


def _int_op(fn: Callable[..., Any]) -> Callable[..., Array]:
    """Integer function on the carrier dtype itself (numpy wraps)."""
    def run(*args: Any) -> Array:
        *xs, dt = args
        if _QUIET[0]:
            return _out(fn(*[_arr(x, dt) for x in xs], dt), dt)
        with np.errstate(all="ignore"):
            return _out(fn(*[_arr(x, dt) for x in xs], dt), dt)
    return run


def _either(f: Callable[..., Array], i: Callable[..., Array]) -> Callable[..., Array]:
    """One lane function: ``f`` for float types, ``i`` for integer types."""
    def run(*args: Any) -> Array:
        dt = args[-1]
        if dt.is_float:
            return f(*args)
        if dt.kind not in ("int", "uint"):
            raise DtypeError(f"lane function: no arithmetic on element type {dt.name}")
        return i(*args)
    return run


def _float_only(name: str, fn: Callable[..., Array]) -> Callable[..., Array]:
    def run(*args: Any) -> Array:
        if not args[-1].is_float:
            raise DtypeError(f"lane function {name!r}: float element types only, "
                             f"got {args[-1].name}")
        return fn(*args)
    return run


def _int_only(name: str, fn: Callable[..., Array]) -> Callable[..., Array]:
    def run(*args: Any) -> Array:
        if args[-1].kind not in ("int", "uint"):
            raise DtypeError(f"lane function {name!r}: integer element types only, "
                             f"got {args[-1].name}")
        return fn(*args)
    return run


# --- integer building blocks ---------------------------------------------------------

def _all_ones(dt: DType) -> Any:
    return np.asarray(-1 if is_signed(dt) else np.iinfo(dt.np).max, dtype=dt.np)


def _idiv(a: Array, b: Array, dt: DType) -> Array:
    """C division (truncates toward zero); ``x / 0`` = all ones, ``MIN / -1`` = MIN."""
    safe = np.where(b == 0, np.ones((), dt.np), b)
    q = np.floor_divide(a, safe)
    if is_signed(dt):
        r = a - q * safe
        q = q + ((r != 0) & ((a < 0) != (safe < 0))).astype(dt.np)
    return np.where(b == 0, _all_ones(dt), q)


def _irem(a: Array, b: Array, dt: DType) -> Array:
    """Floored remainder (sign of the divisor); ``x rem 0`` = x."""
    safe = np.where(b == 0, np.ones((), dt.np), b)
    return np.where(b == 0, a, np.remainder(a, safe))


def _ifmod(a: Array, b: Array, dt: DType) -> Array:
    """Truncated remainder (sign of the dividend, C ``%``); ``x fmod 0`` = x."""
    safe = np.where(b == 0, np.ones((), dt.np), b)
    return np.where(b == 0, a, np.fmod(a, safe))


def _counts(n: Any) -> Array:
    """Shift counts as unsigned numbers of their own width (pto-isa vshl.md: "treated as
    unsigned"); a negative i16 count is therefore a huge count."""
    n = np.asarray(n)
    if n.dtype.kind == "i":
        return n.view(f"u{n.dtype.itemsize}")
    if n.dtype.kind != "u":
        raise DtypeError(f"lane function: shift counts must be integers, got {n.dtype}")
    return n


def _shl(a: Array, n: Any, dt: DType) -> Array:
    c = _counts(n)
    k = bits(dt)
    u = a.view(_unsigned(dt))
    s = np.left_shift(u, np.minimum(c, k - 1).astype(u.dtype))
    return np.where(c >= k, np.zeros((), u.dtype), s).view(dt.np)


def _shr(a: Array, n: Any, dt: DType) -> Array:
    c = _counts(n)
    k = bits(dt)
    s = np.right_shift(a, np.minimum(c, k - 1).astype(a.dtype))
    if is_signed(dt):
        return s                         # arithmetic: counts >= width fill with the sign
    return np.where(c >= k, np.zeros((), a.dtype), s)


def _ipow(a: Array, e: Array, dt: DType) -> Array:
    """Wrapping power by squaring over every exponent bit (A5 TPow.hpp PowIntegerCore);
    a negative exponent gives 1 for base 1, +-1 for base -1, else 0."""
    base, exp = np.broadcast_arrays(a, e)
    r = np.ones(base.shape, dt.np)
    b = base.copy()
    ue = exp.view(_unsigned(dt)).copy()
    for _ in range(bits(dt)):
        r = np.where((ue & 1) == 1, r * b, r)
        b = b * b
        ue >>= 1
    if is_signed(dt):
        neg = exp < 0
        r = np.where(neg & (base == 1), np.ones((), dt.np), r)
        r = np.where(neg & (base == -1), np.where((exp & 1) == 1, base, -base), r)
        r = np.where(neg & (base != 1) & (base != -1), np.zeros((), dt.np), r)
    return np.where(exp == 0, np.ones((), dt.np), r)


def _relu_f(x: Array) -> Array:
    return np.maximum(x, np.float32(0))


def _lrelu_f(x: Array, s: Any) -> Array:
    return np.where(x >= 0, x, x * s)


# --- the tables ---------------------------------------------------------------------

UNARY: dict[str, UnaryFn] = {
    "abs": _either(_float_op(np.abs), _int_op(lambda x, dt: np.abs(x))),
    "neg": _either(_float_op(np.negative), _int_op(lambda x, dt: np.negative(x))),
    "exp": _float_only("exp", _float_op(np.exp)),
    "ln": _float_only("ln", _float_op(np.log)),
    "sqrt": _float_only("sqrt", _float_op(np.sqrt)),
    "rsqrt": _float_only("rsqrt", _float_op(lambda x: np.reciprocal(np.sqrt(x)))),
    "rec": _float_only("rec", _float_op(np.reciprocal)),
    "relu": _either(_float_op(_relu_f),
                    _int_op(lambda x, dt: np.maximum(x, np.zeros((), dt.np)))),
    "not": _int_only("not", _int_op(lambda x, dt: np.invert(x))),
}
UNARY["log"] = UNARY["ln"]
UNARY["recip"] = UNARY["rec"]


def _fpow(a: Array, b: Array) -> Array:
    # pto-isa's CPU simulator evaluates pow in double (ElementOp.h OP_POW); no golden.
    return np.power(a.astype(np.float64), b.astype(np.float64))


BINARY: dict[str, BinaryFn] = {
    "add": _either(_float_op(np.add), _int_op(lambda a, b, dt: a + b)),
    "sub": _either(_float_op(np.subtract), _int_op(lambda a, b, dt: a - b)),
    "mul": _either(_float_op(np.multiply), _int_op(lambda a, b, dt: a * b)),
    "div": _either(_float_op(np.divide), _int_op(_idiv)),
    "max": _either(_float_op(np.maximum), _int_op(lambda a, b, dt: np.maximum(a, b))),
    "min": _either(_float_op(np.minimum), _int_op(lambda a, b, dt: np.minimum(a, b))),
    "and": _int_only("and", _int_op(lambda a, b, dt: a & b)),
    "or": _int_only("or", _int_op(lambda a, b, dt: a | b)),
    "xor": _int_only("xor", _int_op(lambda a, b, dt: a ^ b)),
    "rem": _either(_float_op(np.remainder), _int_op(_irem)),
    "fmod": _either(_float_op(np.fmod), _int_op(_ifmod)),
    "pow": _either(_float_op(_fpow), _int_op(_ipow)),
    "prelu": _float_only("prelu", _float_op(_lrelu_f)),
    "addrelu": _either(_float_op(lambda a, b: _relu_f(a + b)),
                       _int_op(lambda a, b, dt: np.maximum(a + b, np.zeros((), dt.np)))),
    "subrelu": _either(_float_op(lambda a, b: _relu_f(a - b)),
                       _int_op(lambda a, b, dt: np.maximum(a - b, np.zeros((), dt.np)))),
}


# Lane functions a bare numpy ufunc computes exactly, on arrays of the carrier dtype: f32
# arithmetic already is f32 (widening is a no-op, numpy rounds once) and integer add /
# sub / mul / max / min / bitwise ops wrap as the ALU does. The ops' fast path calls them
# while a run keeps numpy quiet (`quiet_floats`); tests check each against the table.
_INT_CARRIERS = ("i8", "si8", "ui8", "i16", "si16", "ui16", "i32", "si32", "ui32",
                 "i64", "si64", "ui64")
NATIVE: dict[tuple[str, str], np.ufunc] = {
    **{(lane, "f32"): fn for lane, fn in (
        ("add", np.add), ("sub", np.subtract), ("mul", np.multiply), ("div", np.divide),
        ("max", np.maximum), ("min", np.minimum), ("abs", np.abs), ("neg", np.negative),
        ("exp", np.exp), ("ln", np.log), ("sqrt", np.sqrt))},
    **{(lane, t): fn for t in _INT_CARRIERS for lane, fn in (
        ("add", np.add), ("sub", np.subtract), ("mul", np.multiply), ("max", np.maximum),
        ("min", np.minimum), ("and", np.bitwise_and), ("or", np.bitwise_or),
        ("xor", np.bitwise_xor))},
}


def quiet_state() -> list[int]:
    """The live counter of `quiet_floats` scopes (non-zero: numpy is quiet already)."""
    return _QUIET


def native(lane: str, dt: DType) -> np.ufunc | None:
    """The ufunc that computes ``lane`` on ``dt`` exactly (`NATIVE`), when the caller runs
    with numpy's float warnings off (`quiet_floats`); otherwise None."""
    return NATIVE.get((lane, dt.name)) if _QUIET[0] else None


def _shift(fn: Callable[[Array, Any, DType], Array], name: str) -> BinaryFn:
    def run(a: Any, n: Any, dt: DType) -> Array:
        if dt.kind not in ("int", "uint"):
            raise DtypeError(f"lane function {name!r}: integer element types only, "
                             f"got {dt.name}")
        with np.errstate(all="ignore"):
            cnt = n if isinstance(n, np.ndarray) else np.asarray(n, dtype=np.int64)
            return _out(fn(_arr(a, dt), cnt, dt), dt)
    return run


BINARY["shl"] = _shift(_shl, "shl")
BINARY["shr"] = _shift(_shr, "shr")


def _scalar_shift(name: str) -> BinaryFn:
    """vshls/vshrs: the count is an ``i16`` scalar whatever the element type (MS 3996)."""
    def run(x: Any, s: Any, dt: DType) -> Array:
        return BINARY[name](x, np.asarray(int(s) & 0xFFFF, np.uint16).view(np.int16), dt)
    return run


def _lrelu(x: Any, s: Any, dt: DType) -> Array:
    """``x >= 0 ? x : s*x`` with the slope kept in f32 (tile TLRELU takes an f32 slope for
    f16 tiles; the f16 micro slope widens exactly)."""
    if not dt.is_float:
        raise DtypeError(f"lane function 'lrelu': float element types only, got {dt.name}")
    with np.errstate(all="ignore"):
        return _out(_lrelu_f(_f32(_arr(x, dt)), np.float32(s)), dt)


def _rdiv(x: Any, s: Any, dt: DType) -> Array:
    """``s / x`` (``tdivs`` with the scalar first)."""
    return BINARY["div"](_arr(s, dt), x, dt)


SCALAR: dict[str, BinaryFn] = {
    "shl": _scalar_shift("shl"),
    "shr": _scalar_shift("shr"),
    "lrelu": _lrelu,
    "rdiv": _rdiv,
}


# --- fused multiply-add ---------------------------------------------------------------

def _fma_f(a: Array, b: Array, c: Array, dt: DType) -> Array:
    """Single rounding of ``a*b + c``: the f64 product of f32/f16/bf16 values is exact;
    TwoSum gives the f64 sum plus its exact error; round-to-odd to f32 keeps enough
    information for the final nearest-even rounding to the result format."""
    a64, b64, c64 = (_f32(x).astype(np.float64) for x in (a, b, c))
    p = a64 * b64
    s = p + c64
    bp = s - c64
    e = (p - bp) + (c64 - (s - bp))             # TwoSum error term (exact)
    e = np.where(np.isfinite(s), e, 0.0)
    s_odd = _odd64(s, e)
    # f16/bf16: a second round-to-odd step to f32 (round-to-odd composes), then one
    # nearest-even rounding; f32: nearest-even straight from the odd f64
    return _out(s_odd.astype(np.float32) if dt.name == "f32" else _odd_to(s_odd, np.float32),
                dt)


def _odd64(s: Array, e: Array) -> Array:
    """``s`` nudged to an odd f64 significand when ``e`` (the lost part) is non-zero,
    toward ``e``: the round-to-odd f64 image of ``s + e``."""
    even = (s.view(np.uint64) & 1) == 0
    fix = (e != 0) & even & np.isfinite(s)
    return np.where(fix, np.nextafter(s, np.where(e > 0, np.inf, -np.inf)), s)


def _odd_to(x: Array, to: type) -> Array:
    """Round f64 ``x`` to ``to`` with round-to-odd (so a later rounding is exact)."""
    r: Array = x.astype(to)
    back = r.astype(np.float64)
    lost = (back != x) & np.isfinite(r)
    # truncate toward x: if nearest-even rounding moved away from zero past x, step back
    away = lost & (np.abs(back) > np.abs(x))
    r = np.where(away, np.nextafter(r, np.asarray(0, to)), r)
    odd = (r.view(f"u{np.dtype(to).itemsize}") & 1) == 1
    step = np.where(x > 0, np.asarray(np.inf, to), np.asarray(-np.inf, to))
    return np.where(lost & ~odd, np.nextafter(r, step), r)


def _fma_any(a: Any, b: Any, c: Any, dt: DType) -> Array:
    with np.errstate(all="ignore"):
        a, b, c = (_arr(x, dt) for x in (a, b, c))
        if dt.is_float:
            return _fma_f(a, b, c, dt)
        return _out(a * b + c, dt)


def _muladd(a: Any, b: Any, c: Any, dt: DType) -> Array:
    """``a*b + c`` with the product rounded first (two roundings)."""
    return BINARY["add"](BINARY["mul"](a, b, dt), c, dt)


TERNARY: dict[str, TernaryFn] = {
    "fma": _fma_any,                                   # a*b + c, one rounding (vmula)
    "muladd": _muladd,                                 # round(round(a*b) + c)
    "axpy": lambda x, y, alpha, dt: _fma_any(np.broadcast_to(_arr(alpha, dt), np.shape(x)),
                                             x, y, dt),            # alpha*x + y, fused
    "fmarelu": lambda a, b, c, dt: UNARY["relu"](_fma_any(a, b, c, dt), dt),
    "add3": lambda a, b, c, dt: BINARY["add"](BINARY["add"](a, b, dt), c, dt),
    "subadd": lambda a, b, c, dt: BINARY["add"](BINARY["sub"](a, b, dt), c, dt),
}


# --- compare / select ------------------------------------------------------------------

_CMP: dict[str, Callable[[Array, Array], Array]] = {
    "eq": np.equal, "ne": np.not_equal, "lt": np.less,
    "le": np.less_equal, "gt": np.greater, "ge": np.greater_equal,
}
CMP_MODES: tuple[str, ...] = tuple(_CMP)


def compare_ufunc(mode: str, dt: DType) -> np.ufunc | None:
    """The ufunc `compare` applies to arrays of ``dt``'s carrier as they are (None for an
    unknown mode and for f16 / bf16, which `compare` widens first); call it with numpy's
    float warnings off (`quiet_floats`)."""
    if dt.is_float and dt.np != np.float32:
        return None
    return _CMP.get(str(mode).lower())  # type: ignore[return-value]


def compare(mode: str, a: Any, b: Any, dt: DType) -> Array:
    """Lane predicate ``a <mode> b`` as a bool array (IEEE: any compare with NaN is false
    except ``ne``; unsigned types compare unsigned)."""
    fn = _CMP.get(str(mode).lower())
    if fn is None:
        raise PtoValueError(f"compare: unknown mode {mode!r}; expected one of "
                            f"{', '.join(CMP_MODES)}")
    a, b = _arr(a, dt), _arr(b, dt)
    if dt.is_float and dt.np != np.float32:
        a, b = _f32(a), _f32(b)
    if _QUIET[0]:                           # a quiet run: np.errstate is held already
        return np.asarray(fn(a, b), dtype=bool)
    with np.errstate(all="ignore"):
        return np.asarray(fn(a, b), dtype=bool)


def select(m: Any, a: Array, b: Array) -> Array:
    """``m ? a : b`` lane by lane (bit-exact: payloads, -0.0 and NaN bits are kept)."""
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype != b.dtype:
        raise DtypeError(f"select: operands differ in dtype ({a.dtype} vs {b.dtype})")
    return np.where(np.asarray(m, dtype=bool), a, b)


# --- carries and wide products ------------------------------------------------------------

def _carry_dt(name: str, dt: DType) -> None:
    if dt.kind not in ("int", "uint"):
        raise DtypeError(f"lane function {name!r}: integer element types only, got {dt.name}")


def addcs(a: Any, b: Any, carry_in: Any, dt: DType) -> tuple[Array, Array]:
    """``a + b + carry_in`` on the unsigned bit patterns: (wrapped sum, carry out) where the
    carry is bit ``width`` of the exact sum (MS vaddcs)."""
    _carry_dt("addcs", dt)
    u = _unsigned(dt)
    ua, ub = _arr(a, dt).view(u), _arr(b, dt).view(u)
    cin = np.asarray(carry_in, dtype=bool).astype(u)
    with np.errstate(all="ignore"):
        s1 = ua + ub
        s = s1 + cin
        carry = (s1 < ua) | (s < s1)
    return s.view(dt.np), np.asarray(carry, dtype=bool)


def addc(a: Any, b: Any, dt: DType) -> tuple[Array, Array]:
    """``a + b``: (wrapped sum, carry out = bit ``width`` of the unsigned sum)."""
    return addcs(a, b, False, dt)


def subcs(a: Any, b: Any, carry_in: Any, dt: DType) -> tuple[Array, Array]:
    """``a - b - (1 - carry_in)`` on the unsigned bit patterns: (wrapped difference,
    carry = no borrow, i.e. ``a >= b + (1 - carry_in)`` as unsigned) (MS vsubcs)."""
    _carry_dt("subcs", dt)
    u = _unsigned(dt)
    ua, ub = _arr(a, dt).view(u), _arr(b, dt).view(u)
    borrow_in = ~np.asarray(carry_in, dtype=bool)
    with np.errstate(all="ignore"):
        d = ua - ub - borrow_in.astype(u)
        ok = (ua > ub) | ((ua == ub) & ~borrow_in)
    return d.view(dt.np), np.asarray(ok, dtype=bool)


def subc(a: Any, b: Any, dt: DType) -> tuple[Array, Array]:
    """``a - b``: (wrapped difference, carry = no borrow = ``a >= b`` unsigned)."""
    return subcs(a, b, True, dt)


def mull(a: Any, b: Any, dt: DType) -> tuple[Array, Array]:
    """32 x 32 -> 64 widening product, split into (low 32 bits, high 32 bits), both in the
    element's carrier; signed for signed/signless types, unsigned for ``ui32``."""
    if dt.size != 4 or dt.kind not in ("int", "uint"):
        raise DtypeError(f"lane function 'mull': 32-bit integer types only, got {dt.name}")
    wide = np.int64 if is_signed(dt) else np.uint64
    with np.errstate(all="ignore"):
        p = _arr(a, dt).astype(wide) * _arr(b, dt).astype(wide)
        pu = np.asarray(p).view(np.uint64)
        lo = (pu & np.uint64(0xFFFFFFFF)).astype(np.uint32).view(dt.np)
        hi = (pu >> np.uint64(32)).astype(np.uint32).view(dt.np)
    return lo, hi


def expdif(x: Any, m: Any, dt: DType) -> Array:
    """``exp(x - m)`` with the subtraction and the result in f32 (vexpdif: f16 or f32 in,
    f32 out; choosing EVEN/ODD lanes of an f16 source is the caller's job)."""
    if dt.name not in ("f16", "f32"):
        raise DtypeError(f"lane function 'expdif': f16 or f32 only, got {dt.name}")
    with np.errstate(all="ignore"):
        return np.asarray(np.exp(_f32(_arr(x, dt)) - _f32(_arr(m, dt))), dtype=np.float32)


# --- which element types each op accepts -------------------------------------------------

_I8 = frozenset({"i8", "si8", "ui8"})
_I16 = frozenset({"i16", "si16", "ui16"})
_I32 = frozenset({"i32", "si32", "ui32"})
_I64 = frozenset({"i64", "si64", "ui64"})
INTS: frozenset[str] = _I8 | _I16 | _I32 | _I64
F16F32: frozenset[str] = frozenset({"f16", "f32"})
FLOATS: frozenset[str] = F16F32 | {"bf16"}

# Op mnemonic -> element types it accepts. Micro-ops: PTO-Gym
# docs/PTO-micro-Instruction-SPEC.md, the "A5 types" line of each op (line numbers in
# docs/semantics.md). Ops not listed are not restricted here (their owners verify them).
OP_DTYPES: dict[str, frozenset[str]] = {
    "vabs": _I8 | _I16 | _I32 | F16F32,
    "vneg": _I8 | _I16 | _I32 | F16F32,
    "vexp": F16F32, "vln": F16F32, "vsqrt": F16F32,
    "vrelu": frozenset({"i32", "si32"}) | F16F32,
    "vnot": INTS,
    "vadd": INTS | FLOATS, "vsub": INTS | FLOATS,
    "vmul": _I16 | _I32 | FLOATS,
    "vdiv": F16F32,
    "vmax": _I8 | _I16 | _I32 | FLOATS, "vmin": _I8 | _I16 | _I32 | FLOATS,
    "vand": INTS, "vor": INTS, "vxor": INTS, "vshl": INTS, "vshr": INTS,
    "vaddc": _I32, "vsubc": _I32, "vaddcs": _I32, "vsubcs": _I32,
    "vadds": _I8 | _I16 | _I32 | FLOATS,
    "vmuls": _I16 | _I32 | FLOATS,
    "vmaxs": _I8 | _I16 | _I32 | FLOATS, "vmins": _I8 | _I16 | _I32 | FLOATS,
    "vshls": INTS, "vshrs": INTS,
    "vlrelu": F16F32, "vprelu": F16F32, "vaxpy": F16F32, "vexpdif": F16F32,
    "vmull": _I32,
    # Tile ops (a5): the element-type static_asserts of pto-isa include/pto/npu/a5/T<Op>.hpp.
    "tadd": INTS | FLOATS, "tsub": INTS | FLOATS, "tmax": INTS | FLOATS, "tmin": INTS | FLOATS,
    "tadds": INTS | FLOATS, "tmaxs": INTS | FLOATS,
    "tmul": _I16 | _I32 | _I64 | FLOATS, "tmuls": _I16 | _I32 | _I64 | FLOATS,
    "tdiv": _I16 | _I32 | _I64 | F16F32, "trem": _I16 | _I32 | _I64 | F16F32,
    "tfmod": _I16 | _I32 | F16F32,
    "txor": _I8 | _I16 | _I32, "tshl": INTS, "tshr": INTS,
    "tlrelu": F16F32, "tprelu": F16F32, "taxpy": F16F32,
}


def check_dtype(op: str, dt: DType, operand: str = "operand") -> None:
    """Raise `DtypeError` naming ``op``, ``operand`` and the legal types unless ``op``
    accepts element type ``dt`` (ops absent from `OP_DTYPES` accept everything)."""
    legal = OP_DTYPES.get(op)
    if legal is not None and dt.name not in legal:
        raise DtypeError(f"{op}: {operand} element type {dt.name} is not supported; "
                         f"legal: {', '.join(sorted(legal))}")
