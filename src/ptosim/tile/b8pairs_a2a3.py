"""a2a3's 8-bit TAND / TOR / TNOT / TROWEXPAND run on 16-bit pairs (pto-isa
``npu/a2a3/TAnd.hpp``, ``TOr.hpp``, ``TUnaryOp.hpp`` TNOT_IMPL, ``TRowExpand.hpp``
TRowExpand: ``B82B16Trait``). The valid width becomes ``ceil(vc / 2)`` pairs, so an odd
valid width also computes column ``vc`` of every valid row: dst's byte there gets the op
of the sources' bytes there (bitwise ops work on the bytes of a pair independently;
TROWEXPAND duplicates the row's value into both bytes). The row stride becomes
``cols // 2`` pairs, which is the tile's row only for an even number of columns; odd ones
are not modelled (NotImplementedOpError).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..errors import NotImplementedOpError
from ..isa import alu
from .tile import Tile

if TYPE_CHECKING:
    from .ops import TileOps


def applies(m: TileOps, op: str, dst: Tile, srcs: list[Tile]) -> bool:
    """Whether the call computes a column past the valid region (an odd 8-bit width);
    raised before any byte moves when a tile's row is not whole pairs."""
    vr, vc = dst.valid
    if not (dst.dtype.size == 1 and vc % 2 == 1 and vr > 0
            and op.lower() in m.target.tile_b8_pair_ops):
        return False
    for t, name in zip((dst, *srcs), ("dst", "src0", "src1") if len(srcs) == 2 else
                       ("dst", "src")):     # (TROWEXPAND passes no sources: src keeps
                                            # its own stride)
        if t.cols % 2:
            raise NotImplementedOpError(
                f"{name} is an 8-bit tile of {t.cols} columns: a2a3 steps its rows by "
                f"cols // 2 16-bit pairs, which ptosim does not model", op=op, operand=name)
    return True


def column(m: TileOps, t: Tile, col: int, rows: int, access: str, operand: str
            ) -> np.ndarray:
    """Byte ``col`` of rows 0 .. rows - 1 as a strided view (observers see those bytes)."""
    stride = t.cols
    extent = (rows - 1) * stride + 1
    buf, off = m._region(t.ptr + col, extent, access=access, op="tile", operand=operand,
                         runs=(1, ((rows, stride),)))
    return np.lib.stride_tricks.as_strided(buf[off:off + extent], (rows,), (stride,)
                                           ).view(t.dtype.np)


def pair_tail(m: TileOps, lane: str, dst: Tile, srcs: list[Tile]) -> None:
    """Column ``vc`` of dst's valid rows = the lane function of the sources' column ``vc``
    (after the valid region is written, as the pairs are computed together)."""
    vr, vc = dst.valid
    names = ("src0", "src1") if len(srcs) == 2 else ("src",)
    xs = [column(m, s, vc, vr, "R", n).copy() for s, n in zip(srcs, names)]
    out = column(m, dst, vc, vr, "W", "dst")
    if len(xs) == 1:
        out[...] = alu.UNARY[lane](xs[0], dst.dtype)
    else:
        out[...] = alu.BINARY[lane](xs[0], xs[1], dst.dtype)
