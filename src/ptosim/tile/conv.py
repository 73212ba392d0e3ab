"""`ConvTile`: pto-isa's convolution-layout tile (``ConvTile<TileType, T, BufferSize, Layout,
ConvTileShape<...>>``, include/pto/common/pto_tile.hpp), as far as TTRANS uses it.

A conv tile is a flat run of ``nbytes`` bytes in a role's buffer, described by a 1-6 D
shape and a data layout name (NCHW, NC1HWC0, GNCHW, GNC1HWC0, NCDHW, FRACTAL_Z,
FRACTAL_Z_3D). Unlike `Tile` it has no Rows x Cols view, no valid region and no pad: the
code that reads it (a5 / a2a3 TTrans.hpp) computes flat element offsets from the shape
itself, so ptosim keeps exactly that and nothing more. Only Vec (UB) conv tiles are
modelled: TTRANS is their one op here (the Mat conv tiles of TLOAD / TIMG2COL are not).
"""

from __future__ import annotations

from dataclasses import dataclass
from math import prod
from typing import TYPE_CHECKING

from ..dtypes import DType, dtype as _dtype
from ..errors import NotImplementedOpError, VerifyError
from ..machine import Ptr

if TYPE_CHECKING:
    from .ops import TileOps

# the conv layouts TTRANS reads or writes, with the shape rank pto-isa's code indexes
# (GetShape(DIM_0 ..)); GNC1HWC0's C0 is its sixth dimension
CONV_RANK = {"NCHW": 4, "NC1HWC0": 5, "GNCHW": 5, "GNC1HWC0": 6, "NCDHW": 5,
             "FRACTAL_Z": 4, "FRACTAL_Z_3D": 4}


@dataclass(frozen=True)
class ConvTile:
    """A placed conv tile: ``shape`` in the order its ``layout`` names, ``nbytes`` the
    buffer (pto-isa's BufferSize), ``ptr`` its first byte."""

    tile_type: str
    dtype: DType
    layout: str
    shape: tuple[int, ...]
    nbytes: int
    ptr: Ptr

    @property
    def elems(self) -> int:
        """Whole elements the buffer holds."""
        return self.nbytes // self.dtype.size

    def __repr__(self) -> str:
        dims = "x".join(map(str, self.shape))
        return (f"ConvTile({self.tile_type}, {self.dtype.name}, {self.layout} {dims}, "
                f"{self.nbytes} B at {self.ptr})")


def conv_tile(m: TileOps, dtype: str | DType, layout: str, shape: tuple[int, ...], *,
              nbytes: int | None = None, addr: int | None = None, subblock: int = 0,
              tile_type: str = "Vec") -> ConvTile:
    """A conv tile placed at byte ``addr`` of UB (TASSIGN) or automatically; ``nbytes``
    defaults to the shape's elements."""
    op = "conv_tile"
    if tile_type != "Vec":
        raise NotImplementedOpError(f"only Vec conv tiles are modelled (TTRANS's); got "
                                    f"{tile_type!r}", op=op)
    if layout not in CONV_RANK:
        raise VerifyError(f"unknown conv layout {layout!r}; one of {', '.join(CONV_RANK)}",
                          op=op)
    dims = tuple(shape)
    rank = CONV_RANK[layout]
    if len(dims) != rank or not all(type(d) is int and d > 0 for d in dims):
        raise VerifyError(f"a {layout} conv tile has {rank} positive dimensions, got "
                          f"{dims}", op=op)
    dt = _dtype(dtype)
    size = prod(dims) * dt.size if nbytes is None else nbytes
    if type(size) is not int or size <= 0:
        raise VerifyError(f"nbytes must be a positive integer, got {size!r}", op=op)
    if addr is None:
        addr = m._place("ub", subblock, size, op, "; pass addr= to place tiles explicitly")
    else:                          # automatic placement continues after explicit tiles
        nxt = m.__dict__.setdefault("_tile_next", {})
        nxt[("ub", subblock)] = max(nxt.get(("ub", subblock), 0), addr + size)
    cap = m.target.capacity["ub"]
    if addr % 32 or addr < 0 or addr + size > cap:
        raise VerifyError(f"a {size} B conv tile at byte {addr} must be 32-byte aligned and "
                          f"fit the {cap} B ub", op=op)
    return ConvTile(tile_type, dt, layout, dims, size, m.ptr("ub", dt, addr, subblock=subblock))
