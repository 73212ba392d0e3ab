"""SET_QUANT_SCALAR / SET_QUANT_VECTOR: the FIXPIPE quantisation registers of the cube core,
and the Acc exits that read them (``quant_reg=`` of TSTORE / TMOV).

Both targets' SetQuantScalar.hpp write QUANT_PRE (``set_quant_pre``) with the f32 scale's
bits sign-extended from 32 to 64 bits, bit 46 then forced to the 8-bit output's sign (1 for
int8, 0 for uint8 and the other 1-byte types); SetQuantVector.hpp writes FPC
(``set_fpc``) with the Scaling tile's FB address in 128-byte units at bit 8. TPUSH's Acc
push reads them: it runs FIXPIPE with a quant mode and sets neither register itself. The
preQuantScalar overloads of TSTORE / TMOV write QUANT_PRE before their FIXPIPE, so the
register keeps their word afterwards.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..dtypes import dtype as _dtype
from ..errors import (
    AlignmentError,
    DtypeError,
    PtoTypeError,
    PtoValueError,
    UnknownDtypeError,
    VerifyError,
)
from .acc_fp import _payload, scalar_quant, vector_mode
from .tile import Tile

if TYPE_CHECKING:
    from .ops import TileOps

QUANT_PRE = "quant_pre"          # the per-core register names in Machine.regs
FPC = "fpc"
SIGN_BIT = 46                    # QUANT_PRE: the 8-bit output's sign
FPC_UNIT = 128                   # FPC[15:8] counts the FB address in 128-byte units


def _canon(name: str) -> str:
    return name[1:] if name in ("si8", "si16", "si32") else name


def quant_pre_word(out_dtype: str, scale: float) -> int:
    """The QUANT_PRE word SET_QUANT_SCALAR writes (see the module docstring)."""
    bits = int(np.array([scale], np.float32).view(np.int32)[0]) % (1 << 64)
    if _dtype(out_dtype).size == 1:
        sign = _canon(_dtype(out_dtype).name) == "i8"
        bits = (bits & ~(1 << SIGN_BIT)) | (int(sign) << SIGN_BIT)
    return bits


def set_quant_scalar(m: TileOps, out_dtype: str, scale: float) -> None:
    """``SET_QUANT_SCALAR<OutType>(preQuantScalar)``: QUANT_PRE <- the scale's f32 bits
    (sign-extended), bit 46 the sign of an 8-bit ``out_dtype``."""
    op = "SET_QUANT_SCALAR"
    if not isinstance(out_dtype, str):
        raise PtoTypeError(f"out_dtype must be an element type name, got "
                           f"{type(out_dtype).__name__}", op=op, operand="out_dtype")
    outs = {b for table in (m.target.scalar_quant_gm, m.target.scalar_quant_chip)
            for (_, b) in table}
    try:
        name = _canon(_dtype(out_dtype).name)
    except UnknownDtypeError:
        name = out_dtype
    if name not in outs:
        raise DtypeError(f"out_dtype {out_dtype} is no output of a scalar quantisation on "
                         f"{m.target.name} (outputs: {', '.join(sorted(outs))})", op=op,
                         operand="out_dtype")
    if isinstance(scale, (bool, np.bool_)) or not isinstance(scale, (int, float, np.integer,
                                                                      np.floating)):
        raise PtoTypeError(f"pre_quant_scalar must be a real number (an f32 scale), got "
                           f"{type(scale).__name__}", op=op, operand="pre_quant_scalar")
    with np.errstate(over="ignore"):
        f32 = np.float32(float(scale))
    if np.isfinite(float(scale)) and not np.isfinite(f32):
        raise PtoValueError(f"pre_quant_scalar = {scale} overflows f32", op=op,
                            operand="pre_quant_scalar")
    m.regs[QUANT_PRE] = (quant_pre_word(name, float(f32)),)


def set_quant_vector(m: TileOps, fp: Tile) -> None:
    """``SET_QUANT_VECTOR(fpTile)``: FPC <- the Scaling tile's FB address in 128-byte
    units at bit 8 (the per-channel words a vector quant mode reads)."""
    op = "SET_QUANT_VECTOR"
    ptr = _payload(op, fp)
    if ptr.offset % FPC_UNIT:
        # hardware drops the low 7 bits: FIXPIPE would read words from another place
        raise AlignmentError(f"the fp tile's FB address {ptr.offset:#x} is not a multiple "
                             f"of {FPC_UNIT} B (FPC keeps it in {FPC_UNIT}-byte units)",
                             op=op, operand="fp")
    m.regs[FPC] = ((ptr.offset // FPC_UNIT) << 8,)


def register_clause(m: TileOps, op: str, acc: Tile, dst_dtype: str, to_gm: bool,
                    which: object) -> tuple:
    """FIXPIPE's pre_quant clause from the register SET_QUANT_SCALAR (``which`` "scalar")
    or SET_QUANT_VECTOR ("vector") wrote, with the target's mode of that kind for the
    (Acc, destination) pair."""
    if which == "scalar":
        word = m.regs.get(QUANT_PRE)
        if word is None:
            raise VerifyError("quant_reg='scalar' reads QUANT_PRE, which no SET_QUANT_SCALAR "
                              "(or preQuantScalar TSTORE / TMOV) has set on this core",
                              op=op, operand="quant_reg")
        return scalar_quant(m, op, acc, dst_dtype, to_gm, word[0])
    if which == "vector":
        fpc = m.regs.get(FPC)
        if fpc is None:
            raise VerifyError("quant_reg='vector' reads FPC, which no SET_QUANT_VECTOR has "
                              "set on this core", op=op, operand="quant_reg")
        mode = vector_mode(m, op, acc, dst_dtype, to_gm)
        return m.ptr("fb", "f32", (fpc[0] >> 8) * FPC_UNIT), mode
    raise PtoValueError(f"quant_reg must be 'scalar' or 'vector', got {which!r}", op=op,
                        operand="quant_reg")
