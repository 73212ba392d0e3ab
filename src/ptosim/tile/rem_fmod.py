"""The DEFAULT (not HIGH_PRECISION) TREM / TREMS / TFMOD / TFMODS per target, one vector
instruction at a time, as pto-isa's NPU code issues them; and the C++ CPU simulator's
formula (``cpu_sim_compat``).

Float paths compute the quotient, round it to an integral value and subtract, every step
rounded in the element type of its instruction (ptosim's IEEE lane functions for ``vdiv`` /
``vmul`` / ``vsub`` / ``vadd``, `convert.trunc_float` for ``vtrc`` / ``vconv_f322f32f|z``):

    q = vdiv(a, b); q = trunc(q, F for rem, Z for fmod); r = vsub(a, vmul(q, b))

then, where the code has it, the sign fix ``r = r + b where b * r < 0``. Large quotients
therefore lose the remainder (``q * b`` rounds), unlike the exact fmod.

- a5 (``include/pto/npu/a5/TRem.hpp``, ``TRemS.hpp``, ``TFMod.hpp``, ``TFModS.hpp``): f32 as
  above (TREMS has no sign fix); f16 widened to f32 (exact), the same steps in f32, narrowed
  with ROUND_Z and saturation (RS_ENABLE: NaN -> 0, inf -> 65504), TREM's sign fix then in
  f16. 16/32-bit integer TREM(S): ``vmod`` (kept as the floored remainder); 64-bit integer
  TREM(S) (``Int64Div.hpp`` Int64RemRegs): a - trunc(a / b) b, 0 where b = 0. Integer
  TFMOD(S): vdiv (truncating; x / 0 all ones), vmul, vsub: a - trunc(a / b) b.
- a2a3 (``include/pto/npu/a2a3/TRem.hpp``, ``TRemS.hpp``, ``TFmod.hpp``, ``TFmodS.hpp``): f32
  as above, TREMS with the sign fix too; i32 TREM(S) through f32: a, b converted to f32
  (nearest), q = floor(a / b) converted to s32, the sources written back in place as
  round(f32(x)) (an i32 beyond 2^24 changes in the source tile too), r = a' - q b' in
  wrapping i32, the sign fix in f32 on f32(r), f32(b), and the result truncated to s32.
  f32 -> s32 conversions saturate (NaN -> 0).
- CPU simulator (``include/pto/cpu/ElementOp.h`` OP_REM / OP_REMS / OP_FMODS,
  ``TFMod.hpp``): fmod in double (exact) or C ``%``; TREM(S) then add b where a and b lie on
  different sides of zero (``>= 0``) and the remainder is not zero. Integer division by zero
  is undefined there (it asserts in debug builds): refused.

docs/semantics.md "Vector tile ops", row "rem / fmod"."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..dtypes import DType, dtype
from ..errors import PtoValueError
from ..isa import alu, convert

F32 = dtype("f32")
F16 = dtype("f16")
I32 = dtype("i32")


class RemResult(NamedTuple):
    """dst's values; ``sources``: values a2a3's i32 code writes back into its source tiles
    (src0, src1; TREMS: src only), else None."""

    out: np.ndarray
    sources: tuple[np.ndarray, ...] | None = None


def _op(name: str, x: np.ndarray, y: np.ndarray, dt: DType) -> np.ndarray:
    return alu.BINARY[name](x, y, dt)


def _floor_or_trunc(q: np.ndarray, rem: bool) -> np.ndarray:
    return convert.trunc_float(q, F32, "F" if rem else "Z")


def _f32_steps(a: np.ndarray, b: np.ndarray, rem: bool) -> np.ndarray:
    """vdiv, vtrc (F / Z), vmul, vsub on f32 lanes."""
    q = _floor_or_trunc(_op("div", a, b, F32), rem)
    return _op("sub", a, _op("mul", q, b, F32), F32)


def _sign_fix(r: np.ndarray, b: np.ndarray, dt: DType) -> np.ndarray:
    """vmul(b, r), vcmps_lt 0 (NaN: false), vadd(r, b) on the lanes that compared true."""
    return np.where(_op("mul", b, r, dt) < 0, _op("add", r, b, dt), r)


def _int_trunc_rem(a: np.ndarray, b: np.ndarray, dt: DType) -> np.ndarray:
    """a - trunc(a / b) * b with the integer vdiv (x / 0 = all ones), wrapping."""
    return _op("sub", a, _op("mul", _op("div", a, b, dt), b, dt), dt)


def a5(a: np.ndarray, b: np.ndarray, dt: DType, *, rem: bool, scalar: bool) -> RemResult:
    """a5's DEFAULT code (``b`` already broadcast to ``a``'s shape)."""
    fix = rem and not scalar                   # TREMS has no sign fix on a5
    if dt.name == "f32":
        r = _f32_steps(a, b, rem)
        return RemResult(_sign_fix(r, b, F32) if fix else r)
    if dt.name == "f16":
        a32 = convert.convert(a, F16, F32)
        b32 = convert.convert(b, F16, F32)
        r = convert.convert(_f32_steps(a32, b32, rem), F32, F16, rnd="Z", sat=True)
        return RemResult(_sign_fix(r, b, F16) if fix else r)
    if rem and dt.size == 8:                   # Int64RemRegs: truncated, b = 0 gives 0
        r = _int_trunc_rem(a, b, dt)
        return RemResult(np.where(b == 0, np.zeros((), dt.np), r))
    if rem:                                    # vmod: the floored remainder
        return RemResult(alu.BINARY["rem"](a, b, dt))
    return RemResult(_int_trunc_rem(a, b, dt))


def _s32(x: np.ndarray, rnd: str) -> np.ndarray:
    return convert.convert(x, F32, I32, rnd=rnd, sat=True)


def _rem_i32_a2a3(a: np.ndarray, b: np.ndarray) -> RemResult:
    a_f = convert.convert(a, I32, F32)                    # vconv_s322f32
    b_f = convert.convert(b, I32, F32)
    q = _s32(_op("div", a_f, b_f, F32), "F")              # vdiv, vconv_f322s32f
    a_r, b_r = _s32(a_f, "R"), _s32(b_f, "R")             # vconv_f322s32r, in place
    r = _op("sub", a_r, _op("mul", q, b_r, I32), I32)     # vmul, vsub (i32)
    r_f = convert.convert(r, I32, F32)
    fixed = _sign_fix(r_f, convert.convert(b_r, I32, F32), F32)
    return RemResult(_s32(fixed, "Z"), (a_r, b_r))        # vconv_f322s32z


def a2a3(a: np.ndarray, b: np.ndarray, dt: DType, *, rem: bool, scalar: bool) -> RemResult:
    """a2a3's code (f32 TREM(S) / TFMOD(S), i32 TREM(S); ``b`` broadcast)."""
    if dt.name == "f32":
        r = _f32_steps(a, b, rem)
        return RemResult(_sign_fix(r, b, F32) if rem else r)
    if dt.name == "i32" and rem:
        res = _rem_i32_a2a3(a, b)
        return RemResult(res.out, res.sources[:1] if scalar and res.sources else res.sources)
    return a5(a, b, dt, rem=rem, scalar=scalar)  # not reached: the dtype rules refuse it


def cpu_sim(a: np.ndarray, b: np.ndarray, dt: DType, *, rem: bool, op: str) -> RemResult:
    """The C++ CPU simulator's formula."""
    if dt.is_float:
        with np.errstate(all="ignore"):
            r = np.fmod(a.astype(np.float64), b.astype(np.float64)).astype(dt.np)
    else:
        if np.any(b == 0):
            raise PtoValueError(f"{op}: integer division by zero (the CPU simulator's C % "
                                f"is undefined there)", op=op, operand="src1")
        r = _int_trunc_rem(a, b, dt)
    if rem:
        fix = ((a >= 0) != (b >= 0)) & (r != 0)
        r = np.where(fix, _op("add", r, b, dt), r)
    return RemResult(np.asarray(r, dt.np))
