"""a5's HIGH_PRECISION division, square root and reciprocal square root, lane by lane as
pto-isa's vector code issues them (``include/pto/npu/a5/custom/Div754.hpp``,
``custom/TSqrtHp.hpp``, ``TDiv.hpp``, ``TRowExpandDiv.hpp``, ``TColExpandDiv.hpp``,
``TRsqrt.hpp``).

Every step is one vector instruction in the element type: ``vdiv`` / ``vsqrt`` are ptosim's
lane functions (`ptosim.isa.alu`, IEEE numpy), ``vmula`` / ``vmadd`` round once (alu
``fma``), bit operations act on the lanes' integer views, and ``vsel`` picks per lane.
Quirks of the code are kept (docs/semantics.md "Vector tile ops", row "Division
precision")."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..dtypes import DType, dtype
from ..isa import alu

F32 = dtype("f32")
F16 = dtype("f16")


@dataclass(frozen=True)
class _Fmt:
    """The constants one DivIEEE754*Impl uses for its element type."""

    dt: DType
    uint: type
    sint: type
    mant_bits: int            # 23 / 10: the exponent field's shift
    bias: int                 # 127 / 15
    exp_max: int              # 255 / 31
    under: int                # -23 / -9: the scale at which the result is the smallest step
    sign: int
    inf: int                  # +inf bits (also the exponent-field mask)
    keep: int                 # sign and mantissa bits (exponent cleared)
    one: int                  # 1.0 bits
    max_sub: int              # the largest subnormal's bits
    nan: int                  # the canonical NaN
    half_min_normal: int      # 0x00400000 / 0x0200: shifted right for a negative scale
    src0_sub_eq: bool         # f32 compares |src0| == max subnormal (the f16 code: <)
    fused: bool               # f32 corrects vdiv's quotient by residuals (DivPrecisionImpl)


_FMT = {
    "f32": _Fmt(F32, np.uint32, np.int32, 23, 127, 255, -23, 0x80000000, 0x7F800000,
                0x807FFFFF, 0x3F800000, 0x007FFFFF, 0x7FC00000, 0x00400000, True, True),
    "f16": _Fmt(F16, np.uint16, np.int16, 10, 15, 31, -9, 0x8000, 0x7C00, 0x83FF, 0x3C00,
                0x03FF, 0x7E00, 0x0200, False, False),
}


def _u(x: np.ndarray, f: _Fmt) -> np.ndarray:
    return np.ascontiguousarray(x, f.dt.np).view(f.uint)


def _f(bits: np.ndarray, f: _Fmt) -> np.ndarray:
    return np.ascontiguousarray(np.asarray(bits).astype(f.uint)).view(f.dt.np)


def _c(value: int, f: _Fmt) -> np.ndarray:
    """A float constant given by its bits (``FloatUnion`` / ``HalfUnion`` in the code)."""
    return np.array([value], f.uint).view(f.dt.np)[0]


def _mul(a: np.ndarray, b: object, dt: DType) -> np.ndarray:
    return alu.BINARY["mul"](a, np.broadcast_to(np.asarray(b, dt.np), np.shape(a)), dt)


def _div(a: np.ndarray, b: np.ndarray, dt: DType) -> np.ndarray:
    return alu.BINARY["div"](a, b, dt)


def _fma(a: np.ndarray, b: np.ndarray, c: np.ndarray, dt: DType) -> np.ndarray:
    """``a * b + c`` rounded once (vmula ``c += a * b``, vmadd ``a = a * b + c``)."""
    return alu.TERNARY["fma"](a, b, c, dt)


def _step(z: np.ndarray, k: int, f: _Fmt) -> np.ndarray:
    """``vadds`` of +-1 on a quotient's signed integer view: one ulp away or toward 0."""
    s = np.ascontiguousarray(z, f.dt.np).view(f.sint).astype(np.int64) + k
    return _f(s.astype(f.sint).view(f.uint), f)


def _residual_pick(z: np.ndarray, a: np.ndarray, b: np.ndarray, f: _Fmt) -> np.ndarray:
    """Of z - 1 ulp, z, z + 1 ulp the one whose residual |a - q b| (one fused rounding) is
    smallest, z kept on ties, then z - 1 ulp over z + 1 ulp (the code's two strict
    compares)."""
    dt = f.dt
    y = _mul(b, -1.0, dt)
    zp, zn = _step(z, -1, f), _step(z, 1, f)
    r, rp, rn = (np.abs(_fma(q, y, a, dt)) for q in (z, zp, zn))
    keep = r < rp
    r = np.where(keep, r, rp)
    z = np.where(keep, z, zp)
    return np.where(rn < r, zn, z)


def div_compensated_f32(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a5 TDIV HIGH_PRECISION for f32 (``DivDiffCompensationFloatImpl``): vdiv's quotient,
    kept for a zero / inf / NaN result, else the residual pick of `_residual_pick` on
    operands both scaled by 2^(-64 - e) when a's unbiased exponent e is below -64."""
    f = _FMT["f32"]
    with np.errstate(all="ignore"):
        a = np.asarray(a, np.float32)
        b = np.asarray(b, np.float32)
        z = _div(a, b, F32)
        special = (z == 0) | ((_u(z, f) | f.sign) >= 0xFF800000)
        e = ((_u(a, f) & f.inf) >> 23).astype(np.int32) - f.bias
        need = e < -64
        scale_exp = np.maximum(-64 - e, 0)
        scale = np.where(need, _f(((scale_exp + f.bias) << 23).astype(np.uint32), f),
                         np.float32(1.0))
        q = _residual_pick(z, _mul(a, scale, F32), _mul(b, scale, F32), f)
        return np.where(special, z, q).astype(np.float32)


def div_ieee754(a: np.ndarray, b: np.ndarray, dt: DType) -> np.ndarray:
    """a5 ``DivIEEE754FloatImpl`` (f32) / ``DivIEEE754HalfImpl`` (f16): both mantissas
    normalised to [1, 2) (subnormals first scaled by 2^23 / 2^10), divided (f32: with the
    residual correction of DivPrecisionImpl), then the exponent difference applied with the
    code's underflow / overflow cases; NaN operands give the canonical NaN."""
    f = _FMT[dt.name]
    with np.errstate(all="ignore"):
        return _div754(np.asarray(a, dt.np), np.asarray(b, dt.np), f)


def _div754(a: np.ndarray, b: np.ndarray, f: _Fmt) -> np.ndarray:
    dt, U, S = f.dt, f.uint, f.sint
    max_sub = _c(f.max_sub, f)
    a_abs, b_abs = np.abs(a), np.abs(b)
    # lanes with no inf and no zero operand get the corrections (NaN lanes are fixed last)
    invalid = (_u(a_abs, f) == f.inf) | (_u(b_abs, f) == f.inf)
    invalid |= (_u(a_abs, f) == 0) | (_u(b_abs, f) == 0)
    valid = ~invalid
    enlarge = _c(0x4B000000 if dt.name == "f32" else 0x6400, f)      # 2^23 / 2^10
    adjust = np.zeros(a.shape, np.int64)
    # the f32 code tests src0 with vcmp_eq (only the largest subnormal), the f16 code vcmp_lt
    a_sub = (a_abs == max_sub) if f.src0_sub_eq else (a_abs < max_sub)
    adjust = np.where(a_sub, -f.mant_bits, adjust)
    b_sub = b_abs < max_sub
    adjust = np.where(b_sub, adjust + f.mant_bits, adjust)
    a_all = np.where(a_sub, _mul(a, enlarge, dt), a)
    b_all = np.where(b_sub, _mul(b, enlarge, dt), b)

    def norm(x: np.ndarray) -> np.ndarray:           # exponent field set to the bias
        bits = ((_u(x, f) & f.keep).astype(np.int64) + f.one) & np.iinfo(U).max
        return np.where(valid, _f(bits, f), x)
    a_n, b_n = norm(a_all), norm(b_all)
    dst = _div(a_n, b_n, dt)
    if f.fused:                                      # DivPrecisionImpl on the valid lanes
        dst = np.where(valid, _residual_pick(dst, a_n, b_n, f), dst)
    le = valid & (np.abs(a_n) <= np.abs(b_n))
    dst = _mul(dst, _f((adjust + f.bias) << f.mant_bits, f), dt)
    dst_sign = _u(dst, f) & f.sign
    ea = (_u(a_all, f) & f.inf) >> f.mant_bits
    eb = (_u(b_all, f) & f.inf) >> f.mant_bits
    scale = ea.astype(np.int64) - eb.astype(np.int64) + f.bias
    # exactly `under`: the smallest subnormal step, or a signed zero when |a_n| <= |b_n|
    m0 = valid & (scale == f.under)
    tiny = np.where(le, _f(dst_sign, f), _f(dst_sign + 1, f))
    dst = np.where(m0, tiny, dst)
    valid &= ~m0
    m0 = valid & (scale < f.under)                   # underflow: signed zero
    dst = np.where(m0, _f(dst_sign, f), dst)
    valid &= ~m0
    m0 = valid & (scale == f.exp_max)                # one step down, the quotient doubled
    scale = np.where(m0, scale - 1, scale)
    dst = np.where(m0, _mul(dst, 2.0, dt), dst)
    m0 = valid & (scale > f.exp_max)                 # overflow: signed inf
    dst = np.where(m0, _f(dst_sign | f.inf, f), dst)
    valid &= ~m0
    up = valid & (scale > 0)                         # times 2^(scale - bias)
    factor = _f(np.where(up, scale, 0).astype(S).astype(np.int64) << f.mant_bits, f)
    dst = np.where(up, _mul(dst, factor, dt), dst)
    down = valid & ~(scale > 0)                      # times a subnormal power of two
    sh = np.where(down, np.abs(scale), 0)
    dst = np.where(down, _mul(dst, _f(f.half_min_normal >> np.minimum(sh, 63), f), dt), dst)
    nan = np.isnan(a_abs) | np.isnan(b_abs)
    return np.where(nan, _c(f.nan, f), dst).astype(dt.np)


def sqrt_hp(x: np.ndarray, dt: DType) -> np.ndarray:
    """a5 HIGH_PRECISION square root: f32 ``SqrtFloatImpl`` (x < 1 scaled by 2^24, the
    reciprocal root refined by one Newton step, the root by one residual step, the result
    scaled back by 2^-12; +-0 and +inf pass through), f16 ``SqrtPrecisionImpl`` (x below the
    largest subnormal scaled by 2^12, vsqrt, then by 2^-6)."""
    with np.errstate(all="ignore"):
        x = np.asarray(x, dt.np)
        return _sqrt_f32(x) if dt.name == "f32" else _sqrt_f16(x)


def _sqrt_f16(x: np.ndarray) -> np.ndarray:
    f = _FMT["f16"]
    small = x < _c(f.max_sub, f)
    xs = np.where(small, _mul(x, 4096.0, F16), x)
    s = alu.UNARY["sqrt"](xs, F16)
    return np.where(small, _mul(s, 2.0 ** -6, F16), s).astype(np.float16)


def _sqrt_f32(x: np.ndarray) -> np.ndarray:
    f = _FMT["f32"]
    small = x < np.float32(1.0)
    xs = np.where(small, _mul(x, 16777216.0, F32), x)
    one = np.ones(x.shape, np.float32)
    d = _div(one, alu.UNARY["sqrt"](xs, F32), F32)          # 1 / sqrt(x)
    err = _mul(d, xs, F32)
    e1 = _fma(err, _mul(d, -1.0, F32), one, F32)          # 1 - x d^2
    d = _fma(e1, _mul(d, 0.5, F32), d, F32)               # Newton step on 1 / sqrt
    res = _mul(d, xs, F32)                                # sqrt(x) ~ x d
    err = _fma(res, _mul(res, -1.0, F32), xs, F32)        # x - res^2
    t = _fma(_mul(d, 0.5, F32), err, res, F32)            # res + err d / 2
    t = np.where(small, _mul(t, 2.0 ** -12, F32), t)
    keep = (_u(xs, f) == f.inf) | ((_u(xs, f) | f.sign) == f.sign)
    return np.where(keep, xs, t).astype(np.float32)


def rsqrt_hp(x: np.ndarray, dt: DType) -> np.ndarray:
    """a5 TRSQRT HIGH_PRECISION: `sqrt_hp`, then 1 / root by `div_ieee754`."""
    s = sqrt_hp(x, dt)
    return div_ieee754(np.ones(s.shape, dt.np), s, dt)
