"""`ConvTile`: pto-isa's convolution-layout tile (``ConvTile<TileType, T, BufferSize, Layout,
ConvTileShape<...>>``, include/pto/common/pto_tile.hpp), as far as TTRANS uses it.

A conv tile is a flat run of ``nbytes`` bytes in a role's buffer, described by a 1-6 D
shape and a data layout name (NCHW, NC1HWC0, GNCHW, GNC1HWC0, NCDHW, FRACTAL_Z,
FRACTAL_Z_3D). Unlike `Tile` it has no Rows x Cols view, no valid region and no pad: the
code that reads it (a5 / a2a3 TTrans.hpp) computes flat element offsets from the shape
itself, so ptosim keeps exactly that and nothing more. Vec (UB) conv tiles are TTRANS's;
Mat (L1) conv tiles are TIMG2COL's feature maps, and carry the im2col configuration
(`Img2colConfig`, pto-isa's ConvTile setters) that SETFMATRIX / SET_IMG2COL_* and
TIMG2COL read (`ptosim.tile.img2col`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from math import prod
from typing import TYPE_CHECKING, Any

from ..dtypes import DType, dtype as _dtype
from ..errors import PtoTypeError, VerifyError
from ..machine import Ptr
from .img2col_config import Img2colConfig

if TYPE_CHECKING:
    from .ops import TileOps

# the conv layouts TTRANS reads or writes, with the shape rank pto-isa's code indexes
# (GetShape(DIM_0 ..)); GNC1HWC0's C0 is its sixth dimension
# (a Mat FRACTAL_Z tile may also be the 5-D [C1, H, W, N, C0] that TLOAD fills)
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
    img2col: Img2colConfig | None = None

    def with_img2col(self, config: Img2colConfig | None = None, **fields: Any
                     ) -> ConvTile:
        """This tile with its im2col configuration replaced by ``config`` and then the named
        fields changed (pto-isa's ConvTile setters SetFmapH, SetPadListArray, ...)."""
        if self.tile_type != "Mat":
            raise VerifyError(f"only Mat conv tiles carry an im2col configuration, this one "
                              f"is {self.tile_type}", op="with_img2col")
        if config is not None and not isinstance(config, Img2colConfig):
            raise PtoTypeError(f"config must be an Img2colConfig, got {config!r}",
                               op="with_img2col")
        base = config or self.img2col or Img2colConfig()
        return replace(self, img2col=replace(base, **fields) if fields else base)

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
              tile_type: str = "Vec", img2col: Img2colConfig | None = None) -> ConvTile:
    """A conv tile placed at byte ``addr`` of UB (Vec) or L1 (Mat) (TASSIGN) or
    automatically; ``nbytes`` defaults to the shape's elements."""
    op = "conv_tile"
    if not isinstance(tile_type, str) or tile_type not in ("Vec", "Mat"):
        raise VerifyError(f"conv tiles are Vec (TTRANS's) or Mat (TIMG2COL's); got "
                          f"{tile_type!r}", op=op)
    if img2col is not None and (tile_type != "Mat" or not isinstance(img2col, Img2colConfig)):
        raise VerifyError(f"img2col= takes an Img2colConfig, on a Mat conv tile; got "
                          f"{img2col!r} on a {tile_type} tile", op=op)
    space = "ub" if tile_type == "Vec" else "l1"
    subblock = subblock if space == "ub" else 0
    if layout not in CONV_RANK:
        raise VerifyError(f"unknown conv layout {layout!r}; one of {', '.join(CONV_RANK)}",
                          op=op)
    dims = tuple(shape)
    rank = CONV_RANK[layout]
    if tile_type == "Mat" and layout == "FRACTAL_Z" and len(dims) == 5:
        rank = 5                   # TLOAD's [C1, H, W, N, C0] weights (pto-isa TLoad5HD)
    if len(dims) != rank or not all(type(d) is int and d > 0 for d in dims):
        raise VerifyError(f"a {layout} conv tile has {rank} positive dimensions, got "
                          f"{dims}", op=op)
    dt = _dtype(dtype)
    size = prod(dims) * dt.size if nbytes is None else nbytes
    if type(size) is not int or size <= 0:
        raise VerifyError(f"nbytes must be a positive integer, got {size!r}", op=op)
    if addr is None:
        addr = m._place(space, subblock, size, op, "; pass addr= to place tiles explicitly")
    else:                          # automatic placement continues after explicit tiles
        nxt = m.__dict__.setdefault("_tile_next", {})
        nxt[(space, subblock)] = max(nxt.get((space, subblock), 0), addr + size)
    cap = m.target.capacity[space]
    if addr % 32 or addr < 0 or addr + size > cap:
        raise VerifyError(f"a {size} B conv tile at byte {addr} must be 32-byte aligned and "
                          f"fit the {cap} B {space}", op=op)
    return ConvTile(tile_type, dt, layout, dims, size,
                    m.ptr(space, dt, addr, subblock=subblock), img2col)
