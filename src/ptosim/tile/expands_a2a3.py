"""What a2a3's TEXPANDS writes into a Vec tile (pto-isa ``npu/a2a3/TExpandS.hpp``).

The fill is a count-mode ``vector_dup`` and its extent comes from the tile's STATIC
parameters and the runtime valid sizes, not from the valid region as such:

- one run of ``vr * vc`` elements from the tile's first byte (``TExpandsVec1D``) when the
  tile is "continuous" at compile time (ND: one row, or a static valid width equal to the
  columns; DN: one column, or static valid rows equal to the rows) or at run time (ND: one
  valid row, or ``validCol == ValidCol``, which holds for every static valid width; DN: the
  same with rows and columns swapped). With a static valid width narrower than the
  columns that run crosses rows: a 16x64 tile with static valid 16x40 gets its first 640
  elements, rows 0-9 whole, not the 16x40 corner.
- else one run per valid row (DN: per valid column) at the row stride
  (``TExpandsVec2D``): exactly the valid region.

8-bit types are filled as 16-bit pairs (``B82B16Trait``: the count rounded up to whole
pairs, the byte repeated), so an odd count writes one byte more.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .tile import Tile

if TYPE_CHECKING:
    from .ops import TileOps


def _fill_bytes(count: int, es: int) -> int:
    """Bytes of a fill of ``count`` elements of ``es`` bytes (8-bit: whole 16-bit pairs)."""
    return 2 * -(-count // 2) if es == 1 else count * es


def texpands_runs(t: Tile) -> tuple[int, int, int]:
    """(run bytes, run count, stride bytes) of the runs a2a3's TEXPANDS writes into ``t``,
    the first at the tile's first byte."""
    vr, vc = t.valid
    es = t.dtype.size
    dyn_row, dyn_col = t.valid_dynamic
    if t.blayout == "RowMajor":             # lines are rows
        line, lines, stride = vc, vr, t.cols * es
        one_line, static_width = t.rows == 1 or vr == 1, not dyn_col
    else:                                   # DN: lines are columns
        line, lines, stride = vr, vc, t.rows * es
        one_line, static_width = t.cols == 1 or vc == 1, not dyn_row
    if one_line or static_width:            # TExpandsVec1D
        return _fill_bytes(vr * vc, es), 1, 0
    return _fill_bytes(line, es), lines, stride     # TExpandsVec2D


def is_valid_region(t: Tile, runs: tuple[int, int, int]) -> bool:
    """Whether ``runs`` are exactly ``t``'s valid region (the common case)."""
    size, count, stride = runs
    vr, vc = t.valid
    es = t.dtype.size
    line, lines, full = (vc, vr, t.cols) if t.blayout == "RowMajor" else (vr, vc, t.rows)
    if count == 1:
        return size == vr * vc * es and (lines <= 1 or line == full)
    return size == line * es


def fill(m: TileOps, t: Tile, value: np.ndarray) -> None:
    """Write ``value`` (one element of ``t``'s type) over the runs, through the machine's
    region (observers see exactly those bytes; a run past the tile stays in its buffer's
    bounds or raises the machine's out-of-bounds error)."""
    size, count, stride = texpands_runs(t)
    if size == 0 or count == 0:
        return
    extent = (count - 1) * stride + size
    buf, off = m._region(t.ptr, extent, access="W", op="tile", operand="dst",
                         runs=(size, ((count, stride),)) if count > 1 else None)
    es = t.dtype.size
    pattern = np.full(-(-size // es), value, t.dtype.np).view(np.uint8)[:size]
    if count == 1:
        buf[off:off + size] = pattern
        return
    lines = np.lib.stride_tricks.as_strided(buf[off:off + extent], (count, size), (stride, 1))
    lines[...] = pattern
