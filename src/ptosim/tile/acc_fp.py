"""The ``_FP`` overloads of the Acc exits (TSTORE_FP, TMOV_FP, TEXTRACT_FP, TINSERT_FP):
the same FIXPIPE writeback as TSTORE / TMOV / TEXTRACT / TINSERT, with the vector
pre-quantisation whose per-channel words come from ``fp``, a Scaling tile (FB). The mode
is the target's choice for the (accumulator, destination) element types (pto-isa
``GetVectorPreQuantModeGm`` for GM, ``GetVectorPreQuantMode`` on chip); FIXPIPE's own
rules (ptosim.ops.fixpipe) then apply, so a mode ptosim does not implement says so.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import DtypeError, NotImplementedOpError, PtoTypeError, PtoValueError, SpaceError
from ..ops.fixpipe import ALL_QUANT_MODES, QuantWord
from .tensor import GlobalTensor
from .tile import Tile

if TYPE_CHECKING:
    from .ops import TileOps


def _canon(name: str) -> str:
    return name[1:] if name in ("si8", "si16", "si32") else name


def vector_mode(m: TileOps, op: str, acc: Tile, dst_dtype: str, to_gm: bool) -> str:
    table = m.target.vector_quant_gm if to_gm else m.target.vector_quant_chip
    pair = (_canon(acc.dtype.name), _canon(dst_dtype))
    mode = table.get(pair)
    if mode is None:
        pairs = ", ".join(f"{a} -> {b}" for a, b in sorted(table))
        raise DtypeError(f"no vector quantisation for {pair[0]} -> {pair[1]} on "
                         f"{m.target.name} (pairs: {pairs})", op=op, operand="fp")
    return mode


def scalar_quant(m: TileOps, op: str, acc: Tile, dst_dtype: str, to_gm: bool,
                 word: object) -> tuple[np.float32 | QuantWord, str]:
    """pto-isa's preQuantScalar overloads (``TSTORE(dst, src, preQuantScalar)``, ``TMOV``
    likewise): FIXPIPE's ``pre_quant`` clause for the 64-bit QUANT_PRE word. The mode is
    the target's scalar mode of the (Acc, destination) pair; the word's bits 0-31 are the
    f32 scale and bit 46 the 8-bit output's sign (as in a vector word: FIXPIPE then clamps
    to the signed range); its other upper bits (the vector words' offset ...) are not
    modelled, so a word using them is refused."""
    _acc(op, acc)
    if isinstance(word, (bool, np.bool_)) or not isinstance(word, (int, np.integer)):
        raise PtoTypeError(f"pre_quant_scalar must be an integer (the 64-bit QUANT_PRE word), "
                           f"got {type(word).__name__}", op=op, operand="pre_quant_scalar")
    if not -(1 << 63) <= int(word) < (1 << 64):
        raise PtoValueError(f"pre_quant_scalar = {int(word)} does not fit 64 bits", op=op,
                            operand="pre_quant_scalar")
    bits = int(word) % (1 << 64)
    sign = 1 << 46          # the 8-bit output's sign (SET_QUANT_SCALAR<int8_t> sets it)
    if (bits & ~sign) >> 32:
        raise NotImplementedOpError(f"pre_quant_scalar = {bits:#x}: bits 32-63 of the "
                                    f"QUANT_PRE word (offset, sign) are not modelled; only the "
                                    f"f32 scale in bits 0-31 (and bit 46, the int8 sign) is",
                                    op=op)
    table = m.target.scalar_quant_gm if to_gm else m.target.scalar_quant_chip
    pair = (_canon(acc.dtype.name), _canon(dst_dtype))
    mode = table.get(pair)
    if mode is None:
        pairs = ", ".join(f"{a} -> {b}" for a, b in sorted(table))
        raise DtypeError(f"no scalar quantisation for {pair[0]} -> {pair[1]} on "
                         f"{m.target.name} (pairs: {pairs})", op=op,
                         operand="pre_quant_scalar")
    if mode not in ALL_QUANT_MODES:
        raise NotImplementedOpError(f"the scalar mode {mode} ({pair[0]} -> {pair[1]}) is not "
                                    f"implemented: no source pins its arithmetic down", op=op)
    if bits & sign:         # FIXPIPE then clamps b8 results to the signed range
        return QuantWord(bits), mode
    return np.array([bits], np.uint32).view(np.float32)[0], mode


def _payload(op: str, fp: object) -> Any:
    if not isinstance(fp, Tile):
        raise PtoTypeError(f"fp must be a Tile, got {type(fp).__name__}", op=op, operand="fp")
    if fp.tile_type != "Scaling":
        raise SpaceError(f"fp must be a Scaling tile (FB), got {fp.tile_type}", op=op,
                         operand="fp")
    return fp.ptr.cast("f32")            # FIXPIPE reads its 64-bit words from there


def tstore_fp(m: TileOps, g: GlobalTensor, src: Tile, fp: Tile, *,
              pre_relu: tuple | None = None, atomic: str | tuple[str, str] | None = None
              ) -> None:
    """``TSTORE_FP(dst, src, fp)``: TSTORE of an Acc tile with vector pre-quantisation."""
    op = "TSTORE_FP"
    payload = _payload(op, fp)
    _acc(op, src)
    if not isinstance(g, GlobalTensor):
        raise PtoTypeError(f"dst must be a GlobalTensor, got {type(g).__name__}", op=op,
                           operand="dst")
    mode = vector_mode(m, op, src, g.ptr.dtype.name, to_gm=True)
    m.TSTORE(g, src, pre_quant=(payload, mode), pre_relu=pre_relu, atomic=atomic)


def tmov_fp(m: TileOps, dst: Tile, src: Tile, fp: Tile, *, mode: str | None = None,
            pre_relu: tuple | None = None) -> None:
    """``TMOV_FP(dst, src, fp)``: TMOV Acc -> Mat / Vec with vector pre-quantisation."""
    op = "TMOV_FP"
    payload = _payload(op, fp)
    _acc(op, src)
    quant = vector_mode(m, op, src, _dst_type(op, dst), to_gm=False)
    m.TMOV(dst, src, mode=mode, pre_quant=(payload, quant), pre_relu=pre_relu)


def textract_fp(m: TileOps, dst: Tile, src: Tile, fp: Tile, r0: int, c0: int, *,
                mode: str | None = None, pre_relu: tuple | None = None) -> None:
    """``TEXTRACT_FP(dst, src, fp, indexRow, indexCol)``."""
    _window("TEXTRACT_FP", m.TEXTRACT, m, dst, src, fp, r0, c0, mode, pre_relu)


def tinsert_fp(m: TileOps, dst: Tile, src: Tile, fp: Tile, r0: int, c0: int, *,
               mode: str | None = None, pre_relu: tuple | None = None) -> None:
    """``TINSERT_FP(dst, src, fp, indexRow, indexCol)``."""
    _window("TINSERT_FP", m.TINSERT, m, dst, src, fp, r0, c0, mode, pre_relu)


def _window(op: str, plain: Callable[..., None], m: TileOps, dst: Tile, src: Tile, fp: Tile,
            r0: int, c0: int, mode: str | None, pre_relu: tuple | None) -> None:
    payload = _payload(op, fp)
    _acc(op, src)
    quant = vector_mode(m, op, src, _dst_type(op, dst), to_gm=False)
    plain(dst, src, r0, c0, mode=mode, pre_quant=(payload, quant), pre_relu=pre_relu)


def _acc(op: str, src: object) -> None:
    if not isinstance(src, Tile):
        raise PtoTypeError(f"src must be a Tile, got {type(src).__name__}", op=op,
                           operand="src")
    if src.tile_type != "Acc":
        raise SpaceError(f"src must be an Acc tile, got {src.tile_type}", op=op,
                         operand="src")


def _dst_type(op: str, dst: object) -> str:
    if not isinstance(dst, Tile):
        raise PtoTypeError(f"dst must be a Tile, got {type(dst).__name__}", op=op,
                           operand="dst")
    return dst.dtype.name
