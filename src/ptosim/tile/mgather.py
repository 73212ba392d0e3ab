"""MGATHER: GM table -> Vec tile through a UB index tile (pto-isa MGather.hpp).

Row coalesce copies whole table rows (``dst[r, :] = table[idx[r], :]``), Elem coalesce
single elements (``dst[r, c] = table[idx[r, c]]``); both write the valid region only,
except that an a2a3 NZ Row gather copies whole logical rows of the table and, under
``oob="zero"``, first zeroes the whole tile. a5 runs the gather as a SIMT kernel on the
vector core; a2a3 walks it from the scalar unit with an MTE2 DMA per row (Row) or scalar
copies (Elem). The GM -> L1 form (a Mat destination) is not implemented.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..errors import NotImplementedOpError, VerifyError
from . import gm_index as gi
from .tensor import GlobalTensor
from .tile import Tile

if TYPE_CHECKING:
    from .ops import TileOps

OOB = ("undefined", "clamp", "wrap", "zero")


def mgather(m: TileOps, dst: Tile, table: GlobalTensor, idx: Tile, *, coalesce: str = "Row",
            oob: str = "Undefined") -> None:
    """``MGATHER<coalesce, oob>(dst, table, idx)``: see the module docstring. ``coalesce``
    is Row or Elem ("auto": PTOAS's choice from the index tile, what ``.pto`` runs);
    ``oob`` is Undefined (an index out of range is an error), Clamp, Wrap or Zero."""
    op = "MGATHER"
    mode = gi.choice(op, "coalesce", coalesce, ("row", "elem", "auto"))
    policy = gi.choice(op, "oob", oob, OOB)
    if isinstance(dst, Tile) and dst.tile_type == "Mat":
        raise NotImplementedOpError("MGATHER into a Mat tile (the GM -> L1 nd2nz path with "
                                    "a GM index tensor) is not implemented", op=op)
    g = gi.check_operands(m, op, dst, "dst", table, idx, mode)
    if g.nz and g.row:
        blocks = table.shape[0] * table.shape[1] * dst.dtype.c0
        if blocks > dst.cols:
            raise VerifyError(f"an NZ Row gather copies whole logical rows of "
                              f"{blocks} columns, wider than dst's {dst.cols}", op=op,
                              operand="dst")
    raw = gi.read_indices(m, op, idx, g)
    safe, use = gi.remap(op, raw, g.cap, policy, "zero")
    es = dst.dtype.size
    if g.row:
        ub, gm, lane = gi.row_lanes(table, dst, g, safe, m.target.gm_index_simt)
        take = use[lane]
    else:
        ub = dst.layout.offsets(g.vr, g.vc).ravel()
        gm = gi.elem_gm(table, dst.dtype.c0, g, safe).ravel()
        take = use.ravel()
    src_buf, src_pos = gi.gm_bytes(m, op, table, gm[take], "R")
    # zero lanes are written where their copy would go; a2a3 pre-zeroes a whole NZ tile
    zero_at = np.arange(dst.rows * dst.cols) if g.nz and g.row and policy == "zero" \
        else ub[~take]
    written = np.union1d(ub[take], zero_at)
    dst_buf, dst_pos = gi.tile_bytes(m, op, dst, "dst", written, "W")
    if zero_at.size:
        z = np.searchsorted(written, zero_at)
        dst_buf[(dst_pos[z][:, None] + np.arange(es)).ravel()] = 0
    gi.move(dst_buf, dst_pos[np.searchsorted(written, ub[take])], src_buf, src_pos, es)
