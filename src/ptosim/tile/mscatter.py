"""MSCATTER: Vec tile -> GM table through a UB index tile (pto-isa MScatter.hpp), the
inverse of MGATHER with the same addressing (tile/gm_index.py).

Writes happen in source order (Row: row by row; Elem: row-major over the valid region),
so colliding plain stores leave the last writer: a2a3's sequential walk and a5's
``ScatterConflict::Last`` (its slot-centric reverse scan picks the largest source
index). a5's ``Default`` leaves the survivor to the warp scheduler: colliding stores of
different values are an error here. Atomic Add / Max / Min combine in source order; a
float sum is rounded once to the element type (what an f32 sum rounded to f16 / bf16 also
gives), an integer one wraps.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..errors import DtypeError, PtoValueError, VerifyError
from . import gm_index as gi
from .tensor import GlobalTensor
from .tile import Tile

if TYPE_CHECKING:
    from .ops import TileOps

OOB = ("undefined", "skip", "clamp", "wrap")
ATOMICS = ("none", "add", "max", "min")
def mscatter(m: TileOps, table: GlobalTensor, src: Tile, idx: Tile, *, coalesce: str = "Row",
             atomic: str = "None", oob: str = "Undefined", conflict: str | None = None
             ) -> None:
    """``MSCATTER<coalesce, atomic, oob[, conflict]>(table, src, idx)``: see the module
    docstring. ``conflict`` (Last or Default) exists on a5 only."""
    op = "MSCATTER"
    mode = gi.choice(op, "coalesce", coalesce, ("row", "elem", "auto"))
    how = gi.choice(op, "atomic", atomic, ATOMICS)
    policy = gi.choice(op, "oob", oob, OOB)
    tgt = m.target.name
    if conflict is not None and not m.target.gm_index_simt:
        raise VerifyError(f"{tgt} has no ScatterConflict policy (its walk is sequential: "
                          f"the last write wins)", op=op, operand="conflict")
    last = gi.choice(op, "conflict", conflict or "Last", ("last", "default")) == "last"
    g = gi.check_operands(m, op, src, "src", table, idx, mode)
    dt = src.dtype
    if how != "none" and dt.name not in m.target.scatter_atomic_dtypes[how]:
        allowed = sorted(m.target.scatter_atomic_dtypes[how])
        raise DtypeError(f"atomic {how} on {tgt} takes "
                         f"{', '.join(allowed) if allowed else 'no element type'}, got "
                         f"{dt.name}", op=op, operand="atomic")
    raw = gi.read_indices(m, op, idx, g)
    safe, use = gi.remap(op, raw, g.cap, policy, "skip")
    if g.row:
        ub, gm, lane = gi.row_lanes(table, src, g, safe, m.target.gm_index_simt)
        order = np.lexsort((ub, lane))              # row by row, then along the row
        ub, gm, lane = ub[order], gm[order], lane[order]
        keep = use[lane]
    else:
        ub = src.layout.offsets(g.vr, g.vc).ravel()
        gm = gi.elem_gm(table, dt.c0, g, safe).ravel()
        keep = use.ravel()
    ub, gm = ub[keep], gm[keep]
    if ub.size == 0:
        return
    s_buf, s_pos = gi.tile_bytes(m, op, src, "src", ub, "R")
    es = dt.size
    vals = s_buf[(s_pos[:, None] + np.arange(es)).ravel()].reshape(-1, es)
    if how == "none" and not last:
        _check_no_race(op, gm, vals)
    t_buf, t_pos = gi.gm_bytes(m, op, table, gm, "W" if how == "none" else "A")
    if how == "none":
        # the last writer of each element: reverse, keep first occurrences
        rev = slice(None, None, -1)
        _, first = np.unique(gm[rev], return_index=True)
        pick = (gm.size - 1) - first
        gi.move(t_buf, t_pos[pick], vals.ravel(), np.arange(gm.size)[pick] * es, es)
        return
    _combine(t_buf, t_pos, vals, how, dt.np, dt.kind)


def _check_no_race(op: str, gm: np.ndarray, vals: np.ndarray) -> None:
    """a5 ScatterConflict::Default: colliding stores must agree, else the survivor is
    the warp scheduler's choice."""
    order = np.argsort(gm, kind="stable")
    g, v = gm[order], vals[order]
    same = g[1:] == g[:-1]
    differ = same & (v[1:] != v[:-1]).any(axis=1)
    if differ.any():
        at = int(g[1:][differ][0])
        raise PtoValueError(f"several sources store different values to table element "
                            f"{at}; under ScatterConflict::Default the surviving writer is "
                            f"warp-scheduler dependent (use conflict='Last')", op=op,
                            operand="idx")


def _combine(buf: np.ndarray, pos: np.ndarray, vals: np.ndarray, how: str, carrier: np.dtype,
             kind: str) -> None:
    """GM read-modify-write of each lane in source order."""
    es = carrier.itemsize
    k = np.arange(es)
    new = vals.copy().view(carrier).ravel()
    wide = np.float64 if kind == "float" else np.int64
    for p, v in zip(pos, new):
        at = p + k
        old = buf[at].view(carrier)[0]
        a, b = wide(old), wide(v)
        with np.errstate(over="ignore", invalid="ignore"):
            r = a + b if how == "add" else (max(a, b) if how == "max" else min(a, b))
            if kind == "float" and (np.isnan(a) or np.isnan(b)):
                r = a + b                           # NaN propagates
        out = np.array(r, wide)
        out = out.astype(carrier) if kind == "float" else out.astype(np.int64).astype(carrier)
        buf[at] = out.reshape(1).view(np.uint8)
