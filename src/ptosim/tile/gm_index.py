"""What MGATHER and MSCATTER share: their modes, the static rules of their operands on
each target, the index remap, and the GM / tile element addressing of pto-isa's
a5 (SIMT) and a2a3 (scalar + MTE) MGather.hpp / MScatter.hpp.

Addressing, per target, as the code computes it (elements from the table's first one):

- Row, a5: ``idx * validCols + j`` (rows packed at the valid width), capacity ``Shape[3]``;
- Row, a2a3 ND: ``idx * Stride[3] + j``, capacity ``Shape[0] * ... * Shape[3]``;
- Row, a2a3 NZ: 32 B bursts of the logical row ``idx`` of each column block, capacity
  ``Shape[2] * 16`` logical rows;
- Elem: ``idx`` itself (a flat index from the table's base), capacity the product of the
  five sizes; a2a3 NZ splits it into (row, column) of the NZ table and translates.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..errors import (
    AlignmentError,
    DtypeError,
    PtoTypeError,
    PtoValueError,
    SpaceError,
    VerifyError,
)
from .tensor import GlobalTensor
from .tile import Tile

if TYPE_CHECKING:
    from .ops import TileOps

FRACTAL_ROWS = 16
INDEX_DTYPES = frozenset({"i32", "si32", "ui32"})


def choice(op: str, name: str, value: object, choices: tuple[str, ...]) -> str:
    """A mode keyword: the C++ enumerator (``Clamp``) or PTOAS's word (``clamp``)."""
    word = value.lower() if isinstance(value, str) else None
    if word not in choices:
        raise PtoValueError(f"{name} must be one of {', '.join(choices)}, got {value!r}",
                            op=op, operand=name)
    return word


@dataclass(frozen=True)
class Geometry:
    """The checked operands: mode, valid extent of the data tile, table capacity."""

    row: bool
    nz: bool
    vr: int
    vc: int
    cap: int


def check_operands(m: TileOps, op: str, data: Tile, data_name: str, table: GlobalTensor,
                   idx: Tile, coalesce: str) -> Geometry:
    """The static rules of pto-isa's MGatherCheck / MScatterCheck for this target (plus
    the ones its manual states and ptosim enforces because the kernel would misread)."""
    tgt = m.target.name
    if not isinstance(data, Tile):
        raise PtoTypeError(f"{data_name} must be a Tile, got {type(data).__name__}", op=op,
                           operand=data_name)
    if not isinstance(idx, Tile):
        raise PtoTypeError(f"idx must be a Tile, got {type(idx).__name__}", op=op,
                           operand="idx")
    if not isinstance(table, GlobalTensor):
        raise PtoTypeError(f"table must be a GlobalTensor, got {type(table).__name__}",
                           op=op, operand="table")
    for name, t in ((data_name, data), ("idx", idx)):
        if t.tile_type != "Vec":
            raise SpaceError(f"{name} must be a Vec tile (UB), got {t.tile_type}", op=op,
                             operand=name)
    dt = data.dtype
    if dt.name not in m.target.gm_index_dtypes:
        raise DtypeError(f"{data_name} element type {dt.name} is not one of "
                         f"{', '.join(sorted(m.target.gm_index_dtypes))} on {tgt}", op=op,
                         operand=data_name)
    if idx.dtype.name not in INDEX_DTYPES:
        raise DtypeError(f"idx element type must be i32 or ui32, got {idx.dtype.name}",
                         op=op, operand="idx")
    if table.ptr.dtype != dt:
        raise DtypeError(f"table element type {table.ptr.dtype.name} must match "
                         f"{data_name}'s {dt.name}", op=op, operand="table")
    vr, vc = data.valid
    ir, ic = idx.valid
    simt = m.target.gm_index_simt
    nz = _check_layouts(m, op, data, data_name, table, idx)
    row = coalesce == "row"
    if coalesce == "auto":      # PTOAS's choice (.pto): from the index tile's shape / layout
        row = (idx.blayout == "RowMajor" and (ir, ic) == (1, vr)) or \
            (idx.blayout == "ColMajor" and (ir, ic) == (vr, 1))
    if row:
        shapes = [(1, vr)] + ([(vr, 1)] if simt else [])
        if (ir, ic) not in shapes:
            raise VerifyError(f"Coalesce::Row needs an index tile of valid shape "
                              f"{' or '.join(f'[{a}, {b}]' for a, b in shapes)} on {tgt}, "
                              f"got [{ir}, {ic}]", op=op, operand="idx")
        # the kernels read idx[r] as the r-th element of the tile's storage
        if not np.array_equal(idx.layout.offsets(ir, ic).ravel(), np.arange(vr)):
            raise VerifyError(f"Coalesce::Row reads the {vr} indices as consecutive "
                              f"elements: a [{vr}, 1] index tile must be ColMajor", op=op,
                              operand="idx")
    elif (ir, ic) != (vr, vc):
        raise VerifyError(f"Coalesce::Elem needs the index tile's valid shape to equal "
                          f"{data_name}'s [{vr}, {vc}], got [{ir}, {ic}]", op=op,
                          operand="idx")
    s = table.shape
    if nz:
        cap = s[2] * FRACTAL_ROWS if row else s[0] * s[1] * s[2] * s[3] * s[4]
    elif row and simt:
        if s[4] != vc:
            raise VerifyError(f"Coalesce::Row on a5 needs the table's Shape[4] ({s[4]}) to "
                              f"equal {data_name}'s valid columns ({vc})", op=op,
                              operand="table")
        if table.stride[4] != 1 or (s[3] > 1 and table.stride[3] != vc):
            raise VerifyError(f"Coalesce::Row on a5 addresses the table as rows packed "
                              f"{vc} elements apart (srcRow = table + idx * validCols); got "
                              f"strides {table.stride}", op=op, operand="table")
        cap = s[3]
    elif row:
        cap = s[0] * s[1] * s[2] * s[3]
    else:
        cap = s[0] * s[1] * s[2] * s[3] * s[4]
    return Geometry(row, nz, vr, vc, cap)


def _check_layouts(m: TileOps, op: str, data: Tile, data_name: str, table: GlobalTensor,
                   idx: Tile) -> bool:
    """Layout rules; True for the a2a3 NZ table / NZ tile pair."""
    if m.target.gm_index_simt:
        if table.layout != "ND":
            raise VerifyError(f"the table must be ND on a5 (the SIMT kernels address GM as "
                              f"packed ND), got {table.layout}", op=op, operand="table")
        for name, t in ((data_name, data), ("idx", idx)):
            if t.slayout != "NoneBox":
                raise VerifyError(f"{name} must be a RowMajor or ColMajor tile without "
                                  f"boxes on a5, got {t.blayout}/{t.slayout}", op=op,
                                  operand=name)
        return False
    if idx.name != "ND":
        raise VerifyError(f"the index tile must be ND (RowMajor, NoneBox) on a2a3, got "
                          f"{idx.blayout}/{idx.slayout}", op=op, operand="idx")
    if table.layout not in ("ND", "NZ"):
        raise VerifyError(f"the table must be ND or NZ on a2a3, got {table.layout}", op=op,
                          operand="table")
    nz_tile = data.name == "NZ" and data.fractal == 512
    kind = "NZ" if nz_tile else ("ND" if data.name == "ND" else "")
    if kind != table.layout:
        want = "ND (RowMajor, NoneBox)" if table.layout == "ND" else \
            "NZ (ColMajor, RowMajor, 512 B fractal)"
        raise VerifyError(f"an {table.layout} table pairs with an {want} {data_name} tile "
                          f"on a2a3, got {data.blayout}/{data.slayout}", op=op,
                          operand=data_name)
    es = data.dtype.size
    if data.cols * es % 32:
        raise AlignmentError(f"{data_name}'s padded row ({data.cols} x {es} B) must be a "
                             f"multiple of 32 B on a2a3", op=op, operand=data_name)
    if table.layout == "NZ":
        c0 = data.dtype.c0
        s = table.shape
        if s[3] != FRACTAL_ROWS or s[4] != c0:
            raise VerifyError(f"an NZ table needs Shape[3] = 16 and Shape[4] = C0 = {c0}, "
                              f"got {s}", op=op, operand="table")
        if data.cols % c0 or data.rows % FRACTAL_ROWS:
            raise VerifyError(f"an NZ {data_name} tile needs Cols a multiple of {c0} and "
                              f"Rows a multiple of 16, got {data.rows}x{data.cols}", op=op,
                              operand=data_name)
    return table.layout == "NZ"


def read_indices(m: TileOps, op: str, idx: Tile, g: Geometry) -> np.ndarray:
    """The raw indices as uint32 (the kernels' static_cast): [R] for Row, [R, C] for
    Elem, read where each target's code reads them."""
    buf, off = m._region(idx.ptr, idx.nbytes, access="R", op=op, operand="idx")
    flat = buf[off:off + idx.nbytes].view(np.uint32)
    if g.row:
        return flat[:g.vr].copy()
    return flat[idx.layout.offsets(g.vr, g.vc)]


def remap(op: str, raw: np.ndarray, cap: int, oob: str, drop: str) -> tuple[np.ndarray,
                                                                             np.ndarray]:
    """(index, in use) per lane under the OOB policy; ``drop`` is the policy that leaves
    an out-of-range lane out (gather: zero, scatter: skip). ``undefined``: the hardware's
    behaviour is undefined, so an index out of range is an error here."""
    raw = raw.astype(np.int64)
    bad = raw >= cap
    if oob == "undefined" and bad.any():
        first = int(raw[bad].flat[0])
        where = tuple(int(i) for i in np.argwhere(bad)[0])
        raise PtoValueError(f"index {first} at {list(where)} is out of range (capacity "
                            f"{cap}); with OOB mode undefined the hardware's result is "
                            f"undefined (choose clamp, wrap or {drop})", op=op,
                            operand="idx")
    if oob == "clamp":
        return np.minimum(raw, cap - 1), np.ones(raw.shape, bool)
    if oob == "wrap":
        return raw % cap, np.ones(raw.shape, bool)
    return raw, ~bad


def nz_gm_offset(table: GlobalTensor, c0: int, row: np.ndarray, col: np.ndarray
                 ) -> np.ndarray:
    """Element offset of logical (row, col) in an a2a3 NZ table (MGatherNZGmOffset)."""
    s0, s1 = table.shape[0], table.shape[1]
    t0, t1, t2, t3, t4 = table.stride
    bcc, k = col // c0, col % c0
    o0 = np.zeros_like(bcc) if s0 == 1 else bcc // s1
    o1 = bcc if s0 == 1 else bcc - o0 * s1
    return o0 * t0 + o1 * t1 + (row // FRACTAL_ROWS) * t2 + (row % FRACTAL_ROWS) * t3 + k * t4


def row_lanes(table: GlobalTensor, t: Tile, g: Geometry, rows: np.ndarray,
              simt: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Row mode: (tile element offset, table element offset, lane row) of every element
    a row copy moves, for the table rows ``rows`` (one per tile row)."""
    r = np.arange(g.vr)
    if g.nz:                        # whole logical rows, 32 B per column block
        c0 = t.dtype.c0
        s0, s1 = table.shape[0], table.shape[1]
        t0, t1, t2, t3 = table.stride[:4]
        blk = np.arange(s0 * s1)
        i, j, k = blk // s1, blk % s1, np.arange(c0)
        gm = (i * t0 + j * t1)[None, :, None] + \
            ((rows // FRACTAL_ROWS) * t2 + (rows % FRACTAL_ROWS) * t3)[:, None, None] + \
            k[None, None, :]
        ub = (blk * t.rows * c0)[None, :, None] + (r * c0)[:, None, None] + k[None, None, :]
        lane = np.broadcast_to(r[:, None, None], gm.shape)
        return ub.ravel(), gm.ravel(), lane.ravel()
    stride = g.vc if simt else table.stride[3]
    ub = t.layout.offsets(g.vr, g.vc)
    gm = rows[:, None] * stride + np.arange(g.vc)[None, :]
    return ub.ravel(), gm.ravel(), np.broadcast_to(r[:, None], ub.shape).ravel()


def elem_gm(table: GlobalTensor, c0: int, g: Geometry, idx: np.ndarray) -> np.ndarray:
    """Elem mode: the table element offset of each (remapped) flat index."""
    if not g.nz:
        return idx
    n_cols = table.shape[0] * table.shape[1] * c0
    return nz_gm_offset(table, c0, idx // n_cols, idx % n_cols)


def gm_bytes(m: TileOps, op: str, table: GlobalTensor, offsets: np.ndarray, access: str
             ) -> tuple[np.ndarray, np.ndarray]:
    """(GM byte array, byte position of each element) after checking, and telling the
    observers about, each run of consecutive elements."""
    es = table.ptr.dtype.size
    if offsets.size == 0:
        return np.zeros(0, np.uint8), np.zeros(0, np.int64)
    order = np.argsort(offsets, kind="stable")
    srt = offsets[order]
    breaks = np.flatnonzero(np.diff(srt) > 1) + 1
    pos = np.empty(offsets.size, np.int64)
    buf = None
    for run in np.split(np.arange(srt.size), breaks):
        first, last = int(srt[run[0]]), int(srt[run[-1]])
        if first < 0:
            raise PtoValueError(f"table element {first} lies before the table", op=op,
                                operand="table")
        b, start = m._region(table.ptr + first, (last - first + 1) * es, access=access,
                             op=op, operand="table")
        if buf is not None and b is not buf:
            raise VerifyError("the table's elements span more than one GM allocation", op=op,
                              operand="table")
        buf = b
        pos[order[run]] = start + (srt[run] - first) * es
    assert buf is not None
    return buf, pos


def tile_bytes(m: TileOps, op: str, t: Tile, name: str, offsets: np.ndarray, access: str
               ) -> tuple[np.ndarray, np.ndarray]:
    """(UB byte array, byte position of each tile element), told to observers as the
    tile's rows (RowMajor), columns (ColMajor) or whole extent (NZ)."""
    es = t.dtype.size
    if t.name in ("ND", "DN"):
        line = t.cols if t.name == "ND" else t.rows
        for ln in np.unique(offsets // line):
            lo = offsets[offsets // line == ln]
            first, last = int(lo.min()), int(lo.max())
            m._region(t.ptr + first, (last - first + 1) * es, access=access, op=op,
                      operand=name)
        buf, off = m._region(t.ptr, 0, access="R")
    else:
        buf, off = m._region(t.ptr, t.nbytes, access=access, op=op, operand=name)
    return buf, off + offsets.astype(np.int64) * es


def move(dst_buf: np.ndarray, dst_pos: np.ndarray, src_buf: np.ndarray, src_pos: np.ndarray,
         es: int) -> None:
    """Copy ``es``-byte elements src_pos[i] -> dst_pos[i], later pairs last."""
    k = np.arange(es)
    dst_buf[(dst_pos[:, None] + k).ravel()] = src_buf[(src_pos[:, None] + k).ravel()]
