"""a5's HIGH_PRECISION TEXP and TLOG for f16 / f32 tiles, lane by lane as pto-isa's vector
code issues them (``include/pto/npu/a5/custom/TExp_Custom.hpp`` ExpPrecisionImpl,
``custom/TLog_Custom.hpp`` LogPrecisionImpl, called by ``TUnaryOp.hpp``).

- exp: vexp; where that result is at most the largest subnormal (0x007FFFFF / 0x03FF,
  zero included), exp(x / 2) squared instead (vdiv by 2, vexp, vmul: two roundings).
- log: inputs below the largest subnormal (strictly: zeros and negatives too) are scaled by
  2^23 / 2^10 before vln, and the constant -23 ln 2 / -10 ln 2 (rounded to the element type,
  as the code's ``const T``) is added back with one rounding (vadds).

vexp / vln / vdiv / vmul are ptosim's lane functions (`ptosim.isa.alu`). docs/semantics.md
"Vector tile ops", row "Exp / log precision"."""

from __future__ import annotations

import numpy as np

from ..dtypes import DType
from ..isa import alu

# per element type: the largest subnormal's bits, log's scale 2^23 / 2^10, -k ln 2
_MAX_SUB = {"f32": (np.uint32, 0x007FFFFF), "f16": (np.uint16, 0x03FF)}
_LOG_SCALE = {"f32": 2.0 ** 23, "f16": 2.0 ** 10}
_LOG_FIX = {"f32": -15.9423851528787421, "f16": -6.931471805599453094172}


def _max_sub(dt: DType) -> np.floating:
    u, bits = _MAX_SUB[dt.name]
    return np.array([bits], u).view(dt.np)[0]


def _full(value: float, like: np.ndarray, dt: DType) -> np.ndarray:
    return np.full(like.shape, value, dt.np)


def exp_hp(x: np.ndarray, dt: DType) -> np.ndarray:
    """ExpPrecisionImpl on f16 / f32 lanes."""
    with np.errstate(all="ignore"):
        x = np.asarray(x, dt.np)
        e = alu.UNARY["exp"](x, dt)
        small = e <= _max_sub(dt)                    # vcmps_le (NaN lanes: false)
        half = alu.BINARY["div"](x, _full(2.0, x, dt), dt)
        h = alu.UNARY["exp"](half, dt)
        sq = alu.BINARY["mul"](h, h, dt)
        return np.where(small, sq, e).astype(dt.np)


def log_hp(x: np.ndarray, dt: DType) -> np.ndarray:
    """LogPrecisionImpl on f16 / f32 lanes."""
    with np.errstate(all="ignore"):
        x = np.asarray(x, dt.np)
        small = x < _max_sub(dt)                     # vcmps_lt: zeros and negatives too
        xs = np.where(small, alu.BINARY["mul"](x, _full(_LOG_SCALE[dt.name], x, dt), dt), x)
        ln = alu.UNARY["ln"](xs, dt)
        fixed = alu.BINARY["add"](ln, _full(_LOG_FIX[dt.name], x, dt), dt)
        return np.where(small, fixed, ln).astype(dt.np)
