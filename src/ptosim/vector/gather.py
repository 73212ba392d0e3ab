"""Semantics of the indexed UB loads and stores: ``vgather2``, ``vgather2_bc``,
``vgatherb`` and ``vscatter`` (rows of `ptosim.isa.vector_gather`).

Every active lane's index is checked against the UB range before any byte moves (an
`OutOfBoundsError` naming the op, lane, index and range), and every access goes through
``machine._region`` with exactly the bytes that lane (or block) touches, so the hazard
checker sees the real footprint. Inactive lanes issue no request: their indices are not
checked and their result lanes are 0. Facts and sources: docs/semantics.md, "Vector
gathers and scatter".
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import OutOfBoundsError, PtoTypeError, PtoValueError
from .ops import _mask, _ptr, _vreg, active_lanes
from .values import VREG_BYTES, VReg, vreg_dtype

BLOCK = 32                     # bytes per vgatherb block (one VLane)


def _indices(op: str, offsets: VReg, n: int) -> np.ndarray:
    """The index lanes, read unsigned (an address offset has no sign)."""
    if offsets.dtype.is_float:
        raise PtoTypeError(f"offsets has {offsets.dtype.name} elements; indices are integers",
                           op=op, operand="offsets")
    if offsets.n != n:
        raise PtoTypeError(f"offsets has {offsets.n} lanes but the data register has {n}; "
                           f"they must match", op=op, operand="offsets")
    return offsets.lanes.view(f"u{offsets.dtype.size}").astype(np.int64)


def _ub_size(m: Any) -> int:
    return int(m.target.capacity["ub"])


def _check_lane(m: Any, op: str, name: str, base: Any, lane: int, index: int, unit: int,
                nbytes: int, what: str = "index") -> None:
    """Lane ``lane`` addresses ``base + index * unit`` for ``nbytes``: inside UB or a located
    error."""
    start = base.offset + index * unit
    size = _ub_size(m)
    if start + nbytes > size:
        raise OutOfBoundsError(
            f"lane {lane}: {what} {index} addresses ub bytes [{start}, {start + nbytes}) "
            f"outside the ub range [0, {size}) ({name} at byte {base.offset})",
            op=op, operand="offsets")


def _gather(op: str, bc: bool) -> Any:
    def gather(m: Any, source: Any, offsets: Any, mask: Any, dtype: Any = None) -> VReg:
        p = _ptr(op, "source", source)
        ix = _vreg(op, "offsets", offsets)
        mk = _mask(op, "mask", mask)
        d = vreg_dtype(dtype if dtype is not None else p.dtype)
        n = VREG_BYTES // d.size
        if bc and ix.dtype.size != 4:
            raise PtoTypeError(f"offsets has {ix.dtype.name} elements; {op} takes 32-bit "
                               f"indices", op=op, operand="offsets")
        idx = _indices(op, ix, n)
        if mk.g != min(d.size * 8, 32):
            raise PtoTypeError(f"mask is b{mk.g} but the result holds {d.name}; it takes "
                               f"b{min(d.size * 8, 32)}", op=op, operand="mask")
        act = active_lanes(mk, d)
        at = p.cast(d)
        for i in np.flatnonzero(act):            # check every request before reading any
            _check_lane(m, op, "source", at, int(i), int(idx[i]), d.size, d.size)
        out = np.zeros((n, d.size), np.uint8)
        for i in np.flatnonzero(act):
            data, start = m._region(at + int(idx[i]), d.size, access="R", op=op,
                                    operand="source")
            out[i] = data[start:start + d.size]
        return VReg(d, out.reshape(-1))
    form = "32-bit indices, " if bc else ""
    gather.__doc__ = (f"``pto.{op}``: ``result[i] = source[offsets[i]]`` (element index, "
                      f"{form}read unsigned) for the active lanes, 0 for the others.")
    return gather


vgather2 = _gather("vgather2", False)
vgather2_bc = _gather("vgather2_bc", True)


def vgatherb(m: Any, source: Any, offsets: Any, mask: Any, dtype: Any = None) -> VReg:
    """``pto.vgatherb``: 8 blocks of 32 bytes; block ``b`` is read from byte offset
    ``offsets[b]`` (u32, a multiple of 32) past ``source`` when b32 lane ``b`` of the mask
    is set, else 0. Only the first 8 offset lanes matter."""
    op = "vgatherb"
    p = _ptr(op, "source", source)
    ix = _vreg(op, "offsets", offsets)
    mk = _mask(op, "mask", mask)
    d = vreg_dtype(dtype if dtype is not None else p.dtype)
    if ix.dtype.size != 4 or ix.dtype.is_float:
        raise PtoTypeError(f"offsets has {ix.dtype.name} elements; vgatherb takes 32-bit "
                           f"integer byte offsets", op=op, operand="offsets")
    if mk.g != 32:
        raise PtoTypeError(f"mask is b{mk.g}; vgatherb takes a b32 mask (one lane per block)",
                           op=op, operand="mask")
    if p.offset % BLOCK:
        raise PtoValueError(f"source is at ub byte {p.offset}, not 32-byte aligned", op=op,
                            operand="source")
    nblk = VREG_BYTES // BLOCK
    offs = ix.lanes.view(np.uint32)[:nblk].astype(np.int64)
    act = mk.lanes[:nblk]
    raw = p.cast("ui8")
    for b in np.flatnonzero(act):
        off = int(offs[b])
        if off % BLOCK:
            raise PtoValueError(f"lane {b}: byte offset {off} is not a multiple of {BLOCK}",
                                op=op, operand="offsets")
        _check_lane(m, op, "source", raw, int(b), off, 1, BLOCK, what="byte offset")
    out = np.zeros((nblk, BLOCK), np.uint8)
    for b in np.flatnonzero(act):
        data, start = m._region(raw + int(offs[b]), BLOCK, access="R", op=op,
                                operand="source")
        out[b] = data[start:start + BLOCK]
    return VReg(d, out.reshape(-1))


def vscatter(m: Any, value: Any, destination: Any, offsets: Any, mask: Any) -> None:
    """``pto.vscatter``: ``destination[offsets[i]] = value[i]`` (element index, read
    unsigned) for the active lanes. Where indices repeat, the highest such lane's value
    is what memory holds (the spec leaves the winner to the implementation)."""
    op = "vscatter"
    v = _vreg(op, "value", value)
    p = _ptr(op, "destination", destination)
    ix = _vreg(op, "offsets", offsets)
    mk = _mask(op, "mask", mask)
    d = v.dtype
    if d.size not in (1, 2, 4):
        raise PtoTypeError(f"value has {d.name} elements; vscatter stores 8, 16 or 32-bit "
                           f"elements", op=op, operand="value")
    if ix.dtype.size != 4:
        raise PtoTypeError(f"offsets has {ix.dtype.name} elements; vscatter takes 32-bit "
                           f"indices", op=op, operand="offsets")
    idx = _indices(op, ix, v.n)
    if mk.g != d.size * 8:
        raise PtoTypeError(f"mask is b{mk.g} but value holds {d.name}; it takes b{d.size * 8}",
                           op=op, operand="mask")
    act = active_lanes(mk, d)
    at = p.cast(d)
    for i in np.flatnonzero(act):
        _check_lane(m, op, "destination", at, int(i), int(idx[i]), d.size, d.size)
    lanes = v.raw.reshape(-1, d.size)
    for i in np.flatnonzero(act):                # ascending: the last lane of an index wins
        data, start = m._region(at + int(idx[i]), d.size, access="W", op=op,
                                operand="destination")
        data[start:start + d.size] = lanes[i]
