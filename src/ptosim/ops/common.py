"""Shared verifier checks and the strided byte-copy engine of the DMA ops.

Checks raise before any byte moves; their messages follow one pattern:
``<op>: <operand or clause> <what is wrong> (<values>)``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from ..dtypes import BLOCK_BYTES
from ..errors import (
    AlignmentError,
    DtypeError,
    FieldRangeError,
    SpaceError,
    TargetError,
    VerifyError,
    warn,
)
from ..machine import MachineState, Ptr

Dim = tuple[int, int, int]  # (count, src_stride, dst_stride) in bytes


def require_op(m: MachineState, op: str) -> None:
    if not m.target.has_op(op):
        raise TargetError(f"does not exist on target {m.target.name}", op=op)


def check_ptr(op: str, operand: str, ptr: object, *spaces: str) -> Ptr:
    if not isinstance(ptr, Ptr):
        raise SpaceError(f"{operand} must be a Ptr, got {type(ptr).__name__}",
                         op=op, operand=operand)
    if ptr.space not in spaces:
        raise SpaceError(f"{operand} must point into {' or '.join(spaces)}, got {ptr.space}",
                         op=op, operand=operand)
    return ptr


def check_aligned(op: str, operand: str, ptr: Ptr, align: int = BLOCK_BYTES) -> None:
    if ptr.offset % align:
        raise AlignmentError(f"{operand} byte offset {ptr.offset} is not {align}-byte aligned",
                             op=op, operand=operand)


def check_same_size(op: str, src: Ptr, dst: Ptr, names: tuple[str, str]) -> None:
    if src.dtype.size != dst.dtype.size:
        raise DtypeError(f"{names[0]} and {names[1]} element sizes differ "
                         f"({src.dtype.name}: {src.dtype.size} B, {dst.dtype.name}: "
                         f"{dst.dtype.size} B)", op=op)


def field(op: str, name: str, value: object, bits: int | None, minimum: int = 0) -> int:
    """An integer field: ``minimum <= value < 2**bits`` (no upper bound if bits is None)."""
    if type(value) is int:
        v = value
    elif isinstance(value, np.integer):
        v = int(value)
    else:
        raise FieldRangeError(f"{name} must be an integer, got {value!r}", op=op, operand=name)
    if v >= minimum and (bits is None or v >> bits == 0):
        return v
    upper = f"{(1 << bits) - 1}" if bits is not None else "inf"
    width = f" ({bits}-bit field)" if bits is not None else ""
    raise FieldRangeError(f"{name} = {v} is out of range [{minimum}, {upper}]{width}",
                          op=op, operand=name)


def clause(op: str, name: str, value: object, arity: Sequence[int]) -> tuple:
    """A clause tuple with one of the allowed lengths."""
    if not isinstance(value, (tuple, list)) or len(value) not in arity:
        want = " or ".join(str(a) for a in arity)
        raise VerifyError(f"{name}(...) takes {want} values, got {value!r}", op=op, operand=name)
    return tuple(value)


def loop_clauses(op: str, loop: object) -> list[tuple]:
    """``loop=`` accepts one triple or a list of triples (inner to outer)."""
    if loop is None:
        return []
    if isinstance(loop, (tuple, list)) and len(loop) == 3 and \
            all(isinstance(x, (int, np.integer)) for x in loop):
        loop = [loop]
    if not isinstance(loop, (tuple, list)):
        raise VerifyError(f"loop must be a (count, src_stride, dst_stride) triple or a list "
                          f"of them, got {loop!r}", op=op, operand="loop")
    return [clause(op, f"loop[{i}]", g, (3,)) for i, g in enumerate(loop)]


def check_stride_aligned(op: str, name: str, count: int, stride: int,
                         align: int = BLOCK_BYTES) -> None:
    """On-chip strides must keep every burst 32 B aligned (only matters if count > 1)."""
    if count > 1 and stride % align:
        raise AlignmentError(f"{name} = {stride} bytes is not a multiple of {align}",
                             op=op, operand=name)


def extent(length: int, dims: Iterable[tuple[int, int]]) -> int:
    """Bytes from the first to one past the last byte touched (non-negative strides)."""
    return length + sum((c - 1) * s for c, s in dims)


def runs(length: int, dims: Sequence[tuple[int, int]]) -> tuple | None:
    """The `machine.Runs` of a strided access, or None when its bytes are its whole
    extent (one burst, or bursts that leave no gap), which observers handle fastest."""
    live = tuple((c, s) for c, s in dims if c > 1)
    if not live or (len(live) == 1 and live[0][1] <= length):
        return None
    return length, live


def run_starts(start: int, runs: tuple) -> np.ndarray:
    """Where each run of a strided access (`machine.Runs`, from ``start``) begins."""
    starts = np.array([start], np.int64)
    for count, stride in runs[1]:
        starts = (starts[:, None] + np.arange(count, dtype=np.int64) * stride).ravel()
    return starts


def run_bytes(start: int, runs: tuple, limit: int) -> np.ndarray:
    """The byte offsets a strided access touches (`machine.Runs` from ``start``), below
    ``limit``, ascending and without repeats."""
    offsets = (run_starts(start, runs)[:, None] + np.arange(runs[0], dtype=np.int64)).ravel()
    return np.unique(offsets[offsets < limit])


def strided(buf: np.ndarray, start: int, dims: Sequence[tuple[int, int]], tail: Sequence[int],
            tail_strides: Sequence[int], dt: np.dtype) -> np.ndarray:
    """View of ``buf`` with axes ``dims`` (count, byte stride; outer first) then ``tail``."""
    # positional arguments: numpy parses keywords here several times slower (hot path)
    if dims:
        shape, strides = zip(*dims)
        return np.ndarray(shape + tuple(tail), dt, buf, start, strides + tuple(tail_strides))
    return np.ndarray(tuple(tail), dt, buf, start, tuple(tail_strides))


def disjoint(length: int, dims: Sequence[tuple[int, int]]) -> bool:
    """True when no two bursts can touch the same byte: each level's stride clears the
    whole span of the levels inside it (a sufficient test; interleavings fail it)."""
    span = length
    for count, stride in dims:
        if count > 1 and stride < span:
            return False
        span += (count - 1) * stride
    return True


def burst_copy(src: tuple[np.ndarray, int], dst: tuple[np.ndarray, int], length: int,
               dims: Sequence[Dim], op: str = "") -> None:
    """Copy ``length`` bytes per burst over nested dims given inner (nburst) to outer.

    Each burst is one numpy void element, so numpy moves it with one memcpy. numpy may
    reorder axes while assigning, so destinations whose bursts may overlap are copied
    burst by burst in program order (the later burst wins, as on hardware)."""
    burst = np.dtype((np.void, length))
    shape = tuple(c for c, _, _ in reversed(dims))
    s = np.ndarray(shape, burst, src[0], src[1], tuple(x for _, x, _ in reversed(dims)))
    d = np.ndarray(shape, burst, dst[0], dst[1], tuple(y for _, _, y in reversed(dims)))
    if disjoint(length, [(c, ds) for c, _, ds in dims]):
        d[...] = s
        return
    warn(f"{op}: destination bursts may overlap; copying in program order, the "
                  f"later burst wins")
    for index in np.ndindex(*shape):
        d[index] = s[index]
