"""TPREFETCH: a GM view copied into a Vec tile through MTE2, as both targets' TPrefetch.hpp
issue it (pto-isa's manual leaves the effect "implementation-defined"; the code is one
DMA per slice or chunk, each overwriting the tile from its first byte).

For every index of the view's three outer dimensions, the (rows x cols) slice of its last
two: when it fits the tile's bytes, one burst per row with rows packed one after the
other (a5: ``copy_gm_to_ubuf_align_v2`` with the UB stride = the row's bytes; a2a3: the
TLOAD DMA with no UB gap, so rows at 32 B boundaries); otherwise in chunks of at most the
tile's rows x its columns, each again from the tile's start. The tile keeps the last copy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import AlignmentError, PtoTypeError, SpaceError
from .tensor import GlobalTensor
from .tile import Tile

if TYPE_CHECKING:
    from .ops import TileOps

BLOCK = 32


def tprefetch(m: TileOps, dst: Tile, src: GlobalTensor) -> None:
    """``TPREFETCH(dst, src)``: see the module docstring."""
    op = "TPREFETCH"
    if not isinstance(dst, Tile):
        raise PtoTypeError(f"dst must be a Tile, got {type(dst).__name__}", op=op,
                           operand="dst")
    if not isinstance(src, GlobalTensor):
        raise PtoTypeError(f"src must be a GlobalTensor, got {type(src).__name__}", op=op,
                           operand="src")
    if dst.tile_type != "Vec":
        raise SpaceError(f"dst must be a Vec tile (UB), got {dst.tile_type}", op=op,
                         operand="dst")
    es = src.ptr.dtype.size
    s0, s1, s2, s3, s4 = src.shape
    t0, t1, t2, t3, t4 = src.stride
    row_bytes = dst.cols * dst.dtype.size
    fits = s3 * s4 * es <= dst.rows * row_bytes
    max_cols = row_bytes // es
    for n0 in range(s0):
        for n1 in range(s1):
            for n2 in range(s2):
                base = n0 * t0 + n1 * t1 + n2 * t2
                if fits:
                    _copy(m, dst, src, base, s3, s4, t3)
                    continue
                for r in range(0, s3, dst.rows):
                    for c in range(0, s4, max_cols):
                        _copy(m, dst, src, base + r * t3 + c * t4, min(s3 - r, dst.rows),
                              min(s4 - c, max_cols), t3)


def _copy(m: TileOps, dst: Tile, src: GlobalTensor, offset: int, rows: int, cols: int,
          row_stride: int) -> None:
    """One DMA of ``rows`` bursts of ``cols`` elements into the tile's start."""
    es = src.ptr.dtype.size
    length = cols * es
    ub_stride = length if m.target.prefetch_packed_rows else -(-length // BLOCK) * BLOCK
    if rows > 1 and ub_stride % BLOCK:
        raise AlignmentError(f"{m.target.name} packs the {rows} rows at their {length} B "
                             f"length in UB, but a UB burst stride must be a multiple of "
                             f"{BLOCK} B (choose a view whose rows are whole 32 B blocks)",
                             op="TPREFETCH", operand="src")
    m.mte_gm_ub(src.ptr + offset, dst.ptr.cast(src.ptr.dtype), 0, length,
                nburst=(rows, row_stride * es, ub_stride))
