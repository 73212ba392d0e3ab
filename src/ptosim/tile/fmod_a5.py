"""a5's HIGH_PRECISION TFMOD / TFMODS / TREM / TREMS for f32 tiles, lane by lane as pto-isa's
vector code issues them (``include/pto/npu/a5/custom/TFmodRemHp.hpp``, called by
``TFMod.hpp``, ``TFModS.hpp``, ``TRem.hpp``, ``TRemS.hpp``).

|a| is reduced modulo |b| scaled by 2^240, 2^216, ..., 2^24 and finally 1 (eleven
iterations: k = vtrc(|r| / b'), r = r - k b' with one rounding), the last iteration first
scaling a subnormal divisor and the running remainder by 2^24 and adding b' back to a
negative remainder; the sign of a is applied, the 2^24 undone, then the special lanes
(b = +-inf: a; both infinite: NaN; a = +-0 with b non-zero and not NaN: a). TREM then adds b
to a remainder whose sign differs from b's. fmod truncates the quotient (ROUND_Z), rem
floors it (ROUND_F).

Every step is one vector instruction in f32: ``vdiv`` / ``vmul`` are IEEE (ptosim's
`ptosim.isa.alu`), ``vmula`` rounds once (alu ``fma``), ``vtrc`` is
`ptosim.isa.convert.trunc_float`. docs/semantics.md "Vector tile ops", row "Fmod / rem
precision"."""

from __future__ import annotations

import numpy as np

from ..dtypes import dtype
from ..isa import alu, convert

F32 = dtype("f32")
_MAX = np.float32(3.4028235e38)
_MIN_NORMAL = np.float32(1.1754944e-38)          # the code's "subNormal" bound (2^-126)
_NAN = np.array(0x7FC00000, np.uint32).view(np.float32)


def _p2(k: int) -> np.float32:
    return np.float32(2.0 ** k)


# (scale1, scale2) of iterations 11 .. 1 (the code's scaleList1 / scaleList2, read from
# the back): b' = |b| * scale1 (* scale2 above iteration 5)
_SCALES = [(_p2(24 if n <= 2 else min(24 * (n - 1), 120)),
            _p2(0 if n <= 6 else 24 * (n - 6))) for n in range(11, 0, -1)]


def _mul(a: np.ndarray, b: object) -> np.ndarray:
    return alu.BINARY["mul"](a, np.broadcast_to(np.asarray(b, np.float32), np.shape(a)), F32)


def _add(a: np.ndarray, b: object) -> np.ndarray:
    return alu.BINARY["add"](a, np.broadcast_to(np.asarray(b, np.float32), np.shape(a)), F32)


def _div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return alu.BINARY["div"](a, b, F32)


def _fma(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    return alu.TERNARY["fma"](a, b, c, F32)


def _sign01(x: np.ndarray) -> np.ndarray:
    """GetSignBit: the sign bit as 0.0 / 1.0 (shift, and, vcvt)."""
    return (np.ascontiguousarray(x, np.float32).view(np.uint32) >> 31).astype(np.float32)


def _reduce(r: np.ndarray, b: np.ndarray, n: int, mode: str) -> np.ndarray:
    """One SolveScale iteration (n = 11 .. 1) on the running remainder r >= 0 (mostly)."""
    s1, s2 = _SCALES[11 - n]
    if n == 1:                                       # a subnormal |b|: both scaled by 2^24
        sub = b <= _MIN_NORMAL
        bt = np.where(sub, _mul(b, s1), b)
        r = np.where(sub, _mul(r, s1), r)
    else:
        bt = _mul(b, s1)
        if n > 5:
            bt = _mul(bt, s2)
    k = convert.trunc_float(_div(r, bt), F32, mode)
    if n != 1:
        bt = np.minimum(bt, _MAX)                    # vmins: an overflowed b' stays finite
    r = _fma(-k, bt, r)                              # vneg, vmula: r - k b', one rounding
    if n == 1:                                       # a negative remainder gets b' back
        r = _add(r, _mul(_sign01(r), bt))
    return r


def fmod_rem_hp(a: np.ndarray, b: np.ndarray, rem: bool) -> np.ndarray:
    """TFmodRemHP<isFmod = not rem> on f32 lanes a (src0) and b (src1)."""
    with np.errstate(all="ignore"):
        a = np.asarray(a, np.float32)
        b = np.asarray(b, np.float32)
        r, babs = np.abs(a), np.abs(b)
        mode = "F" if rem else "Z"
        for n in range(11, 0, -1):
            r = _reduce(r, babs, n, mode)
        r = _mul(r, _add(_mul(_sign01(a), -2.0), 1.0))       # a's sign: * (1 - 2 sign)
        sub = babs <= _MIN_NORMAL
        r = np.where(sub, _mul(r, _p2(-24)), r)
        # SolveExceptionScenarios, in the code's order
        r = np.where(np.isinf(b), a, r)
        r = np.where(np.isinf(a) & np.isinf(b), _NAN, r)
        r = np.where((a == 0) & (b != 0) & ~np.isnan(b), a, r)
        if rem:                                      # a remainder of b's sign
            diff = _mul(b, r) < 0
            r = np.where(diff, _add(r, b), r)
        return r.astype(np.float32)
