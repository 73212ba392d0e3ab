"""a5's TPOW / TPOWS float arithmetic (pto-isa ``include/pto/npu/a5/TPow.hpp``), step by step
over f32 lanes with ptosim's lane functions (`ptosim.isa.alu`), so that every rounding sits
where a5's vector instruction sits:

- DEFAULT: ``exp(y * ln|x|)`` (vabs, vln, vmul, vexp);
- HIGH_PRECISION: a double-f32 log (range reduction on the bit pattern around sqrt(1/2),
  a division, an odd polynomial in s = q^2 with fused steps) and an error-compensated
  exp (`log_ext`, `exp_core`);
- both then run the same special-case pass (`special_cases`): 1 for y == 0 or x == 1,
  NaN, zero / infinite bases, negative bases, (-1)^(+-inf).

f16 / bf16 tiles are widened to f32 exactly and rounded back by the caller. The SFU lanes
(vln, vexp) and vdiv are ptosim's (numpy f32); everything else is IEEE f32 arithmetic, with
vmadd / vmula / vaxpy rounded once. docs/semantics.md "TPOW / TPOWS" records the decisions.
"""

from __future__ import annotations

import numpy as np

from ..dtypes import dtype
from ..isa import alu, convert

F32 = dtype("f32")
_I32 = np.int32
_EXP_MASK = _I32(0x7F800000)             # R10: flips a zero into an infinity and back
_ABS_MASK = _I32(0x7FFFFFFF)             # R12
_NAN = np.array(0x7FC00000, np.uint32).view(np.float32)


def _f(x: float) -> np.float32:
    return np.float32(x)


def _mul(a: np.ndarray, b: np.ndarray | np.float32) -> np.ndarray:
    return alu.BINARY["mul"](a, np.broadcast_to(b, np.shape(a)), F32)


def _add(a: np.ndarray, b: np.ndarray | np.float32) -> np.ndarray:
    return alu.BINARY["add"](a, np.broadcast_to(b, np.shape(a)), F32)


def _sub(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return alu.BINARY["sub"](a, b, F32)


def _fma(a: np.ndarray, b: np.ndarray | np.float32, c: np.ndarray | np.float32) -> np.ndarray:
    """``a * b + c`` rounded once (vmadd ``d = d * a + b``, vmula ``d = d + a * b``,
    vaxpy ``d = alpha * s + d``)."""
    shape = np.broadcast(a, b, c).shape
    x, y, z = (np.broadcast_to(np.asarray(v, np.float32), shape) for v in (a, b, c))
    return alu.TERNARY["fma"](x, y, z, F32)


def _bits(x: np.ndarray | np.float32) -> np.ndarray:
    return np.ascontiguousarray(x, np.float32).view(_I32)


def _floor(x: np.ndarray) -> np.ndarray:
    return convert.trunc_float(np.asarray(x, np.float32), F32, "F")     # vtrc ROUND_F


def default_core(b: np.ndarray, e: np.ndarray) -> np.ndarray:
    """GetTPowFloatCore: ``vexp(vmul(e, vln(vabs(b))))``."""
    ln = alu.UNARY["ln"](alu.UNARY["abs"](b, F32), F32)
    return alu.UNARY["exp"](_mul(e, ln), F32)


def log_ext(b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """GetLogFExtStepOne / StepTwo: ln|b| as a (high, low) f32 pair."""
    a = alu.UNARY["abs"](b, F32)
    # a5 computes a * 2^23 for bases below FLT_MIN but never uses it: the -23 offset is
    # applied while the reduction below still reads the unscaled subnormal (followed)
    high = np.where(a < _f(1.175494351e-38), _f(-23.0), _f(0.0)).astype(np.float32)
    ia = _bits(a)
    k = (ia - _bits(np.float32(0.70710678))) & np.int32(-0x800000)   # 0xff800000
    low = (ia - k).view(np.float32)                  # mantissa m in [sqrt(1/2), sqrt(2))
    kf = k.astype(np.float32)                         # exact: k is a multiple of 2^23
    high = _fma(kf, _f(1.19209290e-7), high)          # vaxpy: + k / 2^23 (exact)
    p = _add(low, _f(1.0))
    low = _add(low, _f(-1.0))
    r = alu.BINARY["div"](np.ones_like(p), p, F32)    # vdiv 1 / (m + 1)
    # step two: q = (m - 1) / (m + 1) as qhi + qlo, ln m = 2q + 2q * s * P(s)
    qhi = _mul(low, r)
    t = _add(_mul(qhi, _f(-2.0)), low)
    t2 = _fma(alu.UNARY["neg"](low, F32), qhi, t)   # vmadd: -low * qhi + t
    qlo = _mul(r, t2)
    s = _mul(qhi, qhi)
    poly = _fma(s, _f(0.129394531), _f(0.141957462))          # vaxpy onto rReg
    poly = _fma(poly, s, _f(0.200015724))                     # vmadd
    poly = _fma(poly, s, _f(0.333333254))                     # vmadd
    poly = _mul(poly, s)
    qhi = _add(qhi, qhi)
    qlo = _add(qlo, qlo)
    fhi = _add(_mul(high, _f(6.93147182e-1)), qhi)
    f2 = _fma(high, _f(-6.93147182e-1), fhi)                  # vaxpy
    flo = _sub(qhi, f2)
    qhi = _fma(qhi, poly, flo)                                # vmadd: qhi * poly + flo
    qlo = _fma(_mul(qlo, _f(3.0)), poly, qlo)                 # vmula
    qlo = _fma(high, _f(-1.90465421e-9), qlo)                 # vaxpy
    qlo = _add(qlo, qhi)
    hi = _add(fhi, qlo)
    lo = _add(_sub(fhi, hi), qlo)
    return hi, lo


def exp_core(hi: np.ndarray, lo: np.ndarray, e: np.ndarray) -> np.ndarray:
    """GetExpCore: exp(e * (hi + lo)) as exp(phi) * (1 + plo), phi = e * hi rounded and plo
    its fused error plus e * lo; phi >= 88.7228390 -> +inf, phi < -104 -> 0."""
    phi = _mul(hi, e)
    plo = _fma(hi, e, alu.UNARY["neg"](phi, F32))             # vmula onto -phi
    plo = _fma(lo, e, plo)                                    # vmula
    r = alu.UNARY["exp"](phi, F32)
    r = _fma(plo, r, r)                                       # vmula: r + plo * r
    big = np.where(phi >= 0, np.float32(np.inf), np.float32(0)).astype(np.float32)
    edge = (phi >= _f(88.7228390)) | (phi < _f(-104.0))
    return np.where(edge, big, r).astype(np.float32)


def high_precision_core(b: np.ndarray, e: np.ndarray) -> np.ndarray:
    hi, lo = log_ext(b)
    return exp_core(hi, lo, e)


def _odd_integer(e: np.ndarray) -> np.ndarray:
    """ComputeExpoOddInt: ``fma(-2, floor(0.5 * e), e) == 1`` (false for inf / NaN)."""
    return _fma(_floor(_mul(e, _f(0.5))), _f(-2.0), e) == 1


def special_cases(d: np.ndarray, b: np.ndarray, e: np.ndarray) -> np.ndarray:
    """ProcessFloatSpecialCase over the core's result ``d``; each step decides only the
    lanes no earlier step decided (its ``cur`` predicate)."""
    d = d.astype(np.float32)
    one = (e == 0) | (b == 1)
    d = np.where(one, _f(1.0), d)
    cur = ~one
    nan = cur & (np.isnan(b) | np.isnan(e))
    d = np.where(nan, _NAN, d)
    cur &= ~nan
    # zero or infinite base: flip the exponent field for e < 0 (0 <-> inf), keep the
    # sign for an odd integer e, else |.|
    edge = cur & (np.isinf(b) | (b == 0))
    flip = edge & (e < 0)
    flipped = np.where(cur, _bits(b) ^ _EXP_MASK, 0).view(np.float32)
    t = np.where(flip, flipped, b)
    t_abs = np.where(cur, _bits(t) & _ABS_MASK, 0).view(np.float32)
    odd = _odd_integer(e)
    d = np.where(edge, np.where(odd, t, t_abs), d)
    cur &= ~edge
    # negative base: NaN for a non-integer e, else the magnitude negated for an odd e
    signed = np.where(odd, np.where(cur, -d, 0).astype(np.float32), d)
    frac = cur & (e != _floor(e))
    signed = np.where(frac, _NAN, signed)
    d = np.where(cur & (b < 0), signed, d)
    d = np.where(cur & np.isinf(e) & (b == -1), _f(1.0), d)
    return d.astype(np.float32)


def pow_f32(b: np.ndarray, e: np.ndarray, high_precision: bool) -> np.ndarray:
    """a5's float TPOW on f32 lanes (f16 / bf16 widened by the caller)."""
    with np.errstate(all="ignore"):
        b = np.asarray(b, np.float32)
        e = np.asarray(e, np.float32)
        core = high_precision_core(b, e) if high_precision else default_core(b, e)
        return special_cases(core, b, e)
