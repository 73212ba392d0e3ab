"""Ops on one tile handle: where it lives (TASSIGN) and one of its elements read or written
by the scalar unit (pto-isa ``Tile::GetValue`` / ``SetValue``; PTOAS ``pto.tgetval`` /
``pto.tsetval``, intrinsics GETVAL / SETVAL, pipe PIPE_S).

Python tiles are values: `tassign` returns the tile bound at the new address (pto-isa's
``TASSIGN(tile, addr)`` rebinds the handle in place). `tgetval` / `tsetval` address the
tile's storage at a linear element offset, without the layout (``*(ptr + offset)``), so the
bytes move through ``Machine._region`` as one scalar access: the hazard checker sees them
on the scalar pipe. docs/semantics.md "Tile handles and element access" has the sources.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import OutOfBoundsError, PtoTypeError, SpaceError, VerifyError
from ..vector.ops import _scalar_lane, _scalar_of
from .tile import Tile

if TYPE_CHECKING:
    from .ops import TileOps

ALIGN = 32       # every on-chip tile address is 32 B aligned (TASSIGN.md, SA-0354)


def _tile(op: str, name: str, t: object) -> Tile:
    if not isinstance(t, Tile):
        raise PtoTypeError(f"{name} must be a Tile, got {type(t).__name__}", op=op,
                           operand=name)
    return t


def _index(op: str, name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise PtoTypeError(f"{name} must be an integer, got {value!r}", op=op, operand=name)
    return int(value)


def tassign(m: TileOps, tile: Tile, addr: int) -> Tile:
    """``TASSIGN(tile, addr)``: the tile bound at byte ``addr`` of its role's buffer (the
    same sub-block and type); the address must be 32 B aligned and the tile must fit the
    buffer (pto-isa's compile-time checks SA-0353 / SA-0354, here checked at run time).
    Automatic placement continues after it, as after ``m.tile(..., addr=)``."""
    op = "TASSIGN"
    t = _tile(op, "tile", tile)
    a = _index(op, "addr", addr)
    space = t.ptr.space
    cap = m.target.capacity[space]
    if a < 0 or a % ALIGN or a + t.nbytes > cap:
        raise VerifyError(f"a {t.nbytes} B {t.tile_type} tile at byte {a} must be {ALIGN}-byte "
                          f"aligned and fit the {cap} B {space}", op=op, operand="addr")
    nxt = m.__dict__.setdefault("_tile_next", {})
    key = (space, t.ptr.sub)
    nxt[key] = max(nxt.get(key, 0), a + t.nbytes)
    return replace(t, ptr=replace(t.ptr, offset=a))


def _element(m: TileOps, op: str, name: str, tile: object, offset: object) -> Any:
    """The tile and the Ptr of its element at ``offset``: a Vec tile (GetValue / SetValue
    static_assert it; the scalar unit reaches UB only), the offset inside its storage."""
    t = _tile(op, name, tile)
    if t.tile_type != "Vec":
        raise SpaceError(f"{name} must be a Vec tile: the scalar unit reads and writes UB only "
                         f"(pto-isa GetValue / SetValue), got a {t.tile_type} tile", op=op,
                         operand=name)
    off = _index(op, "offset", offset)
    n = t.rows * t.cols
    if not 0 <= off < n:
        raise OutOfBoundsError(f"offset {off} leaves the tile's {t.rows} x {t.cols} = {n} "
                               f"elements", op=op, operand="offset")
    return t.ptr + off


def tgetval(m: TileOps, src: Tile, offset: int) -> Any:
    """``src.GetValue(offset)`` (``pto.tgetval``): the element at linear offset ``offset``
    of the tile's storage (row stride and layout are not applied), as a Python number."""
    op = "TGETVAL"
    p = _element(m, op, "src", src, offset)
    data, start = m._region(p, p.dtype.size, access="R", op=op, operand="src")
    return _scalar_of(data[start:start + p.dtype.size].view(p.dtype.np), p.dtype)


def tsetval(m: TileOps, dst: Tile, offset: int, value: float | int) -> None:
    """``dst.SetValue(offset, value)`` (``pto.tsetval``): ``value`` converted to the
    element type (floats round to nearest even, integers wrap) at linear offset
    ``offset`` of the tile's storage."""
    op = "TSETVAL"
    p = _element(m, op, "dst", dst, offset)
    lane = _scalar_lane(op, value, p.dtype)
    data, start = m._region(p, p.dtype.size, access="W", op=op, operand="dst")
    data[start:start + p.dtype.size] = lane.view(np.uint8)
