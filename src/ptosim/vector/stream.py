"""Semantics of the stateful unaligned loads / stores and the block-strided loads / stores:
``vldas`` / ``vldus``, ``vstus`` / ``vstur`` / ``pstu`` with their flushes ``vstas`` /
``vstar``, and ``vsldb`` / ``vsstb`` (rows of `ptosim.isa.vector_stream`).

The `Align` state models the hardware's one-block alignment buffer:

- a **load** stream: ``vldas %p`` reads the 32-byte aligned block holding ``%p`` into the
  state; ``vldus %p`` reads the 256 bytes after that block and returns the 256 bytes
  starting at ``%p`` from the two (so a state primed earlier supplies its stale block), and
  its state holds the last block it read;
- a **store** stream (``init_align``): each store moves its bytes into the state block by
  block; a block is written to UB when the stream leaves it (or fills it to its end), and
  the last, partial block stays pending until a flush (``vstas`` / ``vstar``) at the
  stream's end address writes it. Only the bytes the stream stored are ever written.

So memory sees each byte when the hardware would commit it, and the hazard checker sees
the exact ranges. Facts and sources: docs/semantics.md, "Unaligned streams".
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import AlignmentError, PtoError, PtoTypeError, PtoValueError
from .ops import _int, _mask, _ptr, _read, _vreg, _word, _write_bytes
from .values import ALIGN_BYTES, VREG_BYTES, Align, Mask, VReg, vreg_dtype

BLOCK = ALIGN_BYTES                   # UB block: 32 bytes
AR, SQZN = "AR", "SQZN"               # special registers (Machine.regs), byte counts
MODES = ("POST_UPDATE", "NO_POST_UPDATE")


def _bytes_at(p: Any) -> Any:
    """``p`` as a byte pointer (the streams address bytes)."""
    return p.cast("ui8")


def _block_of(p: Any) -> Any:
    """The byte pointer to the 32-byte aligned block that holds ``p``."""
    b = _bytes_at(p)
    return b + (-(b.offset % BLOCK))


def _same_place(a: Any, b: Any) -> bool:
    return (a.space, a.sub, a.block, a.offset) == (b.space, b.sub, b.block, b.offset)


def _state(op: str, name: str, x: Any, kind: str) -> Align:
    if not isinstance(x, Align):
        raise PtoTypeError(f"{name} must be an align state (Align), got {x!r}", op=op,
                           operand=name)
    if x.kind != kind:
        made = "pto.vldas" if kind == "load" else "pto.init_align"
        raise PtoTypeError(f"{name} is the state of a {x.kind} stream; {op} continues a "
                           f"{kind} stream, which starts at {made}", op=op, operand=name)
    return x


def _reg(m: Any, name: str) -> int | None:
    value = m.regs.get(name)
    return None if not value else int(value[0])


# --- load stream -----------------------------------------------------------------------------
def vldas(m: Any, source: Any) -> Align:
    """``pto.vldas``: a load-stream state holding the 32-byte block around ``source``."""
    p = _ptr("vldas", "source", source)
    blk = _block_of(p)
    return Align(kind="load", block=blk, data=_read(m, "vldas", "source", blk, BLOCK))


def vldus(m: Any, source: Any, align: Any, dtype: Any = None) -> tuple[VReg, Align]:
    """``pto.vldus``: the 256 bytes at ``source`` (any byte address), from the state's block
    and the 256 bytes after it; the new state holds the last block read."""
    op = "vldus"
    p = _ptr(op, "source", source)
    st = _state(op, "align", align, "load")
    blk = _block_of(p)
    if not _same_place(st.block, blk):
        raise PtoValueError(f"align holds the block at {st.block.offset:#x} but source "
                            f"{_bytes_at(p).offset:#x} lies in the block at {blk.offset:#x}; "
                            f"prime it with pto.vldas on this source (or continue from the "
                            f"vldus that ended there)", op=op, operand="align")
    d = vreg_dtype(dtype if dtype is not None else p.dtype)
    fresh = _read(m, op, "source", blk + BLOCK, VREG_BYTES)
    k = _bytes_at(p).offset - blk.offset
    image = np.concatenate([st.data, fresh])[k:k + VREG_BYTES]
    return VReg(d, image), st.next(block=blk + VREG_BYTES, data=fresh[-BLOCK:])


def _check_range(m: Any, op: str, name: str, at: Any, nbytes: int) -> None:
    """Bounds of bytes an op will write, checked before any byte moves (the write itself
    reaches the hazard checker when it happens)."""
    try:
        m._region(at, nbytes, access="W", operand=name)     # no op: not an access yet
    except PtoError as err:
        raise type(err)(err.detail, op=op, operand=name) from None


# --- store stream ----------------------------------------------------------------------------
def _commit(m: Any, op: str, name: str, blk: Any, data: np.ndarray, valid: np.ndarray) -> None:
    """Write the valid bytes of one block, one contiguous run at a time."""
    i = 0
    while i < BLOCK:
        if not valid[i]:
            i += 1
            continue
        j = i
        while j < BLOCK and valid[j]:
            j += 1
        _write_bytes(m, op, name, blk + i, data[i:j].copy())
        i = j


def _store(m: Any, op: str, name: str, st: Align, at: Any, payload: np.ndarray) -> Align:
    """``payload`` stored into the stream at byte pointer ``at``: blocks the stream leaves
    are written, the block it ends in stays pending (written at once when full to its end)."""
    blk = st.block
    data, valid = st.data.copy(), st.valid.copy()
    start, n = at.offset, payload.size
    _check_range(m, op, name, at, n)
    pos = start
    while pos < start + n:
        here = _block_of(at + (pos - start))
        if blk is None or not _same_place(blk, here):
            if blk is not None and valid.any():
                _commit(m, op, name, blk, data, valid)
            blk, data, valid = here, np.zeros(BLOCK, np.uint8), np.zeros(BLOCK, bool)
        lo = pos - here.offset
        hi = min(BLOCK, lo + start + n - pos)
        data[lo:hi] = payload[pos - start:pos - start + hi - lo]
        valid[lo:hi] = True
        pos += hi - lo
    end = at + n
    if blk is not None and valid.any() and end.offset == blk.offset + BLOCK:
        _commit(m, op, name, blk, data, valid)          # filled to its end: nothing pending
        valid = np.zeros(BLOCK, bool)
    return st.next(block=blk, data=data, valid=valid, position=end)


def _flush(m: Any, op: str, name: str, st: Align, at: Any) -> None:
    """Write the pending bytes; the flush must name the stream's end address."""
    if not st.pending:
        return
    if not _same_place(st.position, at):
        raise PtoValueError(f"flushes at {at.offset:#x} but the stream ends at "
                            f"{st.position.offset:#x} with {st.pending} bytes pending; the "
                            f"flush names the address where the last unaligned store ended",
                            op=op, operand=name)
    _commit(m, op, name, st.block, st.data, st.valid)


def vstus(m: Any, align_in: Any, offset: Any, value: Any, base: Any) -> Align:
    """``pto.vstus``: the first ``offset`` elements of ``value`` stored at ``base``; the
    stream then ends at ``base + offset`` elements (flush there with ``vstas``)."""
    op = "vstus"
    st = _state(op, "align_in", align_in, "store")
    n = _int(op, "offset", offset)
    v = _vreg(op, "value", value)
    p = _ptr(op, "base", base)
    if not 0 <= n <= v.n:
        raise PtoValueError(f"offset {n} elements is outside 0..{v.n} (the lanes of "
                            f"{v.type_name})", op=op, operand="offset")
    return _store(m, op, "base", st, _bytes_at(p), v.raw[:n * v.dtype.size].copy())


def vstur(m: Any, align_in: Any, value: Any, base: Any, mode: str) -> Align:
    """``pto.vstur``: the first SQZN bytes of ``value`` stored at ``base + AR`` (bytes);
    POST_UPDATE then advances AR by SQZN (flush with ``vstar``)."""
    op = "vstur"
    st = _state(op, "align_in", align_in, "store")
    v = _vreg(op, "value", value)
    p = _ptr(op, "base", base)
    mode = _word(op, "mode", mode, MODES)
    count = _reg(m, SQZN)
    if count is None:
        raise PtoValueError("stores SQZN bytes, but SQZN is unset: a pto.vsqz / pto.vusqz "
                            "sets it first", op=op, operand="value")
    if not 0 <= count <= VREG_BYTES:
        raise PtoValueError(f"SQZN is {count} bytes; a register holds {VREG_BYTES}", op=op)
    ar = _reg(m, AR) or 0
    out = _store(m, op, "base", st, _bytes_at(p) + ar, v.raw[:count].copy())
    if mode == "POST_UPDATE":
        m.regs[AR] = (ar + count,)
    return out


def pstu(m: Any, align_in: Any, value: Any, base: Any) -> tuple[Align, Any]:
    """``pto.pstu``: the predicate's lanes packed one bit each (lane i = bit i % 8 of byte
    i // 8; b16: 16 bytes, b32: 8 bytes) stored at ``base``; returns the state and
    ``base`` advanced past them."""
    op = "pstu"
    st = _state(op, "align_in", align_in, "store")
    mk = _mask(op, "value", value)
    p = _ptr(op, "base", base)
    want = {16: "ui16", 32: "ui32"}.get(mk.g)
    if want is None or p.dtype.name != want:
        raise PtoTypeError(f"value is a b{mk.g} mask and base points to {p.dtype.name}; "
                           f"pstu pairs b16 with ui16 and b32 with ui32", op=op,
                           operand="value" if want is None else "base")
    packed = np.packbits(mk.lanes, bitorder="little")
    out = _store(m, op, "base", st, _bytes_at(p), packed)
    return out, p + packed.size // p.dtype.size


def vstas(m: Any, value: Any, destination: Any, offset: Any) -> None:
    """``pto.vstas``: flush the pending bytes; ``destination + offset`` (elements) must be
    where the stream ends."""
    op = "vstas"
    st = _state(op, "value", value, "store")
    p = _ptr(op, "destination", destination)
    off = _int(op, "offset", offset)
    _flush(m, op, "destination", st, _bytes_at(p + off))


def vstar(m: Any, value: Any, destination: Any) -> None:
    """``pto.vstar``: flush the pending bytes; ``destination + AR`` (bytes) must be where
    the stream ends."""
    op = "vstar"
    st = _state(op, "value", value, "store")
    p = _ptr(op, "destination", destination)
    _flush(m, op, "destination", st, _bytes_at(p) + (_reg(m, AR) or 0))


# --- block-strided ---------------------------------------------------------------------------
def _strides(op: str, block_stride: Any, repeat_stride: Any) -> tuple[int, int]:
    # the two unsigned 16-bit fields of the hardware control word, in 32-byte blocks
    return (_int(op, "block_stride", block_stride) & 0xFFFF,
            _int(op, "repeat_stride", repeat_stride) & 0xFFFF)


def block_active(mask: Mask) -> np.ndarray:
    """Block ``b`` of a register takes part iff the predicate bit of its first byte (image
    bit 32·b, b32 lane 8·b) is set."""
    return mask.bits[::BLOCK]


def _blocks_base(op: str, name: str, p: Any) -> Any:
    b = _bytes_at(p)
    if b.offset % BLOCK:
        raise AlignmentError(f"{name} {b.offset:#x} is not 32-byte aligned; block-strided "
                             f"accesses address whole 32-byte blocks", op=op, operand=name)
    return b


def vsldb(m: Any, source: Any, block_stride: Any, repeat_stride: Any, mask: Any,
          dtype: Any = None) -> VReg:
    """``pto.vsldb``: block ``b`` (32 bytes) of the result from UB block
    ``repeat_stride + b * block_stride`` after ``source``; masked-off blocks are 0 and
    read nothing."""
    op = "vsldb"
    p = _ptr(op, "source", source)
    blk, rep = _strides(op, block_stride, repeat_stride)
    mk = _mask(op, "mask", mask)
    d = vreg_dtype(dtype if dtype is not None else p.dtype)
    b0 = _blocks_base(op, "source", p)
    image = np.zeros(VREG_BYTES, np.uint8)
    for b, on in enumerate(block_active(mk)):
        if on:
            image[b * BLOCK:(b + 1) * BLOCK] = _read(m, op, "source",
                                                     b0 + (rep + b * blk) * BLOCK, BLOCK)
    return VReg(d, image)


def vsstb(m: Any, value: Any, destination: Any, block_stride: Any, repeat_stride: Any,
          mask: Any, post_update: bool = False) -> Any:
    """``pto.vsstb``: block ``b`` of ``value`` to UB block ``repeat_stride + b *
    block_stride`` after ``destination``; masked-off blocks are not written. The
    post-update form stores at ``destination + b * block_stride`` and returns
    ``destination`` advanced by ``repeat_stride`` blocks."""
    op = "vsstb"
    v = _vreg(op, "value", value)
    p = _ptr(op, "destination", destination)
    blk, rep = _strides(op, block_stride, repeat_stride)
    mk = _mask(op, "mask", mask)
    b0 = _blocks_base(op, "destination", p)
    first = 0 if post_update else rep
    targets = [(b, b0 + (first + b * blk) * BLOCK)
               for b, on in enumerate(block_active(mk)) if on]
    for _, at in targets:                               # all in bounds before any write
        _check_range(m, op, "destination", at, BLOCK)
    for b, at in targets:
        _write_bytes(m, op, "destination", at, v.raw[b * BLOCK:(b + 1) * BLOCK].copy())
    if not post_update:
        return None
    return (b0 + rep * BLOCK).cast(p.dtype)
