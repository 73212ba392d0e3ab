"""Unaligned loads and block-strided loads / stores of vector registers (rows in
`ptosim.isa.vector_stream`): `vldas` / `vldus` and `vsldb` / `vsstb`.

An unaligned load stream is primed by `vldas` (the aligned 32-byte block around its
source) and each `vldus` then yields the 256 bytes starting at its source, wherever it
is; ptosim reads them directly, so the `!pto.align` value only chains the stream. The
block forms move the eight 32-byte blocks of a register to / from UB block
``repeat_stride + i * block_stride`` (in 32-byte units) of the base, for the blocks whose
predicate lane ``i`` is active (the spec's ``pg[blk]``); a masked-off block loads as 0
and is not stored.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..dtypes import dtype as _dtype
from ..errors import PtoTypeError, PtoValueError
from .ops import _int, _mask, _ptr, _read, _vreg, _write_bytes, active_lanes
from .values import VREG_BYTES, Align, VReg, vreg_dtype

BLOCK = 32                       # bytes of one block of a register (one VLane)
BLOCKS = VREG_BYTES // BLOCK


def _align(op: str, a: Any) -> Align:
    if not isinstance(a, Align):
        raise PtoTypeError(f"align must be an alignment state (!pto.align), got {a!r}", op=op,
                           operand="align")
    return a


def vldas(m: Any, source: Any) -> Align:
    """``pto.vldas``: prime an unaligned load stream with the aligned 32-byte block that
    holds ``source`` (the hardware truncates the address)."""
    p = _ptr("vldas", "source", source)
    block = p.cast("ui8") + (-(p.offset % BLOCK))
    _read(m, "vldas", "source", block, BLOCK)
    return Align()


def vldus(m: Any, source: Any, align: Any, dtype: Any = None) -> tuple[VReg, Align]:
    """``pto.vldus``: the 256 bytes starting at ``source`` (any element-aligned address)
    and the stream's next state."""
    p = _ptr("vldus", "source", source)
    a = _align("vldus", align)
    d = vreg_dtype(dtype if dtype is not None else p.dtype)
    return VReg(d, _read(m, "vldus", "source", p, VREG_BYTES)), a.next()


def _strides(op: str, block_stride: Any, repeat_stride: Any) -> tuple[int, int]:
    bs, rs = _int(op, "block_stride", block_stride), _int(op, "repeat_stride", repeat_stride)
    for name, v in (("block_stride", bs), ("repeat_stride", rs)):
        if not 0 <= v < 1 << 16:
            raise PtoValueError(f"{name} must be a 16-bit count of 32-byte blocks (0..65535), "
                                f"got {v}", op=op, operand=name)
    return bs, rs


def _blocks_active(op: str, mask: Any, d: Any) -> np.ndarray:
    mk = _mask(op, "mask", mask)
    want = min(d.size * 8, 32)
    if mk.g != want:
        raise PtoTypeError(f"mask is b{mk.g} but the register holds {d.name}; it takes "
                           f"b{want}", op=op, operand="mask")
    return active_lanes(mk, d)[:BLOCKS]


def vsldb(m: Any, source: Any, block_stride: Any, repeat_stride: Any, mask: Any,
          dtype: Any = None) -> VReg:
    """``pto.vsldb``: block i of the result is UB block ``repeat_stride + i *
    block_stride`` of ``source`` where predicate lane i is active, else 0."""
    op = "vsldb"
    p = _ptr(op, "source", source).cast("ui8")
    if p.offset % BLOCK:
        raise PtoValueError(f"source must be 32-byte aligned, got UB offset {p.offset}", op=op,
                            operand="source")
    d = vreg_dtype(dtype if dtype is not None else source.dtype)
    bs, rs = _strides(op, block_stride, repeat_stride)
    out = np.zeros(VREG_BYTES, np.uint8)
    for i, on in enumerate(_blocks_active(op, mask, d)):
        if on:                    # a masked-off block is neither read nor checked
            out[i * BLOCK:(i + 1) * BLOCK] = _read(m, op, "source", p + (rs + i * bs) * BLOCK,
                                                   BLOCK)
    return VReg(d, out)


def vsstb(m: Any, value: Any, destination: Any, block_stride: Any, repeat_stride: Any,
          mask: Any) -> None:
    """``pto.vsstb``: block i of ``value`` goes to UB block ``repeat_stride + i *
    block_stride`` of ``destination`` where predicate lane i is active."""
    op = "vsstb"
    v = _vreg(op, "value", value)
    p = _ptr(op, "destination", destination).cast("ui8")
    if p.offset % BLOCK:
        raise PtoValueError(f"destination must be 32-byte aligned, got UB offset {p.offset}",
                            op=op, operand="destination")
    if _dtype(destination.dtype).size != v.dtype.size:
        raise PtoTypeError(f"destination points to {destination.dtype.name} but value holds "
                           f"{v.dtype.name}", op=op, operand="destination")
    bs, rs = _strides(op, block_stride, repeat_stride)
    raw = v.raw
    for i, on in enumerate(_blocks_active(op, mask, v.dtype)):
        if on:
            _write_bytes(m, op, "destination", p + (rs + i * bs) * BLOCK,
                         raw[i * BLOCK:(i + 1) * BLOCK].copy())


# --- stateful unaligned stores ------------------------------------------------------------
# The hardware buffers a partial 32-byte block in the align state and writes it at the
# flush (vstas / vstar). No source specifies that buffering, and a well-formed stream
# (every store followed by its flush) leaves the same bytes either way, so ptosim writes
# each store's bytes when it issues and the flushes only check their operands.
UPDATE_MODES = ("POST_UPDATE", "NO_POST_UPDATE")


def vstus(m: Any, align: Any, offset: Any, value: Any, base: Any) -> Align:
    """``pto.vstus``: the first ``offset`` elements of ``value`` at ``base`` (the amount
    the stream advances; PTO-Gym vstas-vstus-offset-update writes exactly that many)."""
    op = "vstus"
    a = _align(op, align)
    n = _int(op, "offset", offset)
    v = _vreg(op, "value", value)
    p = _ptr(op, "base", base)
    if not 0 <= n <= v.n:
        raise PtoValueError(f"offset must be 0..{v.n} elements of {v.dtype.name}, got {n}",
                            op=op, operand="offset")
    if n:
        _write_bytes(m, op, "base", p, v.raw[:n * v.dtype.size].copy())
    return a.next()


def vstas(m: Any, align: Any, destination: Any, offset: Any) -> None:
    """``pto.vstas``: flush a stream at ``destination`` + ``offset`` (its bytes are
    already in UB, see above)."""
    _align("vstas", align)
    _ptr("vstas", "destination", destination)
    _int("vstas", "offset", offset)


def vstar(m: Any, align: Any, destination: Any) -> None:
    """``pto.vstar``: flush a `vstur` stream (its bytes are already in UB)."""
    _align("vstar", align)
    _ptr("vstar", "destination", destination)


def vstur(m: Any, align: Any, value: Any, base: Any, mode: str) -> Align:
    """``pto.vstur``: the first SQZN bytes of ``value`` (the count the last vsqz / vusqz
    set) at ``base`` + AR bytes; ``"POST_UPDATE"`` then advances AR by SQZN."""
    from .rearrange import sqzn
    op = "vstur"
    a = _align(op, align)
    v = _vreg(op, "value", value)
    p = _ptr(op, "base", base).cast("ui8")
    if mode not in UPDATE_MODES:
        raise PtoValueError(f"mode must be one of {', '.join(UPDATE_MODES)}, got {mode!r}",
                            op=op, operand="mode")
    count = sqzn(m)
    ar = int(m.regs.get("AR", (0,))[0])
    if count:
        _write_bytes(m, op, "base", p + ar, v.raw[:count].copy())
    if mode == "POST_UPDATE":
        m.regs["AR"] = (ar + count,)
    return a.next()


def pstu(m: Any, align: Any, value: Any, base: Any) -> tuple[Align, Any]:
    """``pto.pstu``: the predicate as one bit per lane (b32: 64 bits = 8 bytes, b16: 16
    bytes) at ``base``; returns the next state and ``base`` advanced past those bytes."""
    op = "pstu"
    a = _align(op, align)
    mk = _mask(op, "value", value)
    p = _ptr(op, "base", base)
    want = {16: "ui16", 32: "ui32"}.get(mk.g)
    if want is None or p.dtype.name != want:
        raise PtoTypeError(f"a b{mk.g} predicate stores through a {want or 'ui16 / ui32'} "
                           f"pointer, got {p.dtype.name}", op=op, operand="base")
    image = np.packbits(mk.lanes.astype(np.uint8), bitorder="little")
    _write_bytes(m, op, "base", p, image)
    return a.next(), p + image.size // p.dtype.size
