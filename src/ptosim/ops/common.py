"""Shared verifier checks and the strided byte-copy engine of the DMA ops.

Checks raise before any byte moves; their messages follow one pattern:
``<op>: <operand or clause> <what is wrong> (<values>)``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

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


class Burst(NamedTuple):
    """The layout of a burst copy, ready to run: what `burst_copy` derives from its dims,
    worked out once per (op, length, dims) and reused whatever the pointers."""

    src_extent: int
    dst_extent: int
    src_runs: tuple | None
    dst_runs: tuple | None
    burst: np.dtype                 # one burst as a single numpy void element
    shape: tuple[int, ...]          # outer to inner
    src_strides: tuple[int, ...]
    dst_strides: tuple[int, ...]
    disjoint: bool
    flat: bool                      # both sides one gapless run: a single slice copy


def burst_plan(length: int, dims: Sequence[Dim]) -> Burst:
    """The layout of copying ``length`` bytes per burst over ``dims`` (inner to outer)."""
    src_dims = [(c, x) for c, x, _ in dims]
    dst_dims = [(c, y) for c, _, y in dims]
    span, flat = length, True
    for count, x, y in dims:
        if count > 1:
            flat = flat and x == y == span
            span *= count
    return Burst(extent(length, src_dims), extent(length, dst_dims),
                 runs(length, src_dims), runs(length, dst_dims), np.dtype((np.void, length)),
                 tuple(c for c, _, _ in reversed(dims)), tuple(x for _, x, _ in reversed(dims)),
                 tuple(y for _, _, y in reversed(dims)), disjoint(length, dst_dims), flat)


def run_burst(m: MachineState, op: str, names: tuple[str, str], src: Ptr, dst: Ptr,
              plan: Burst) -> None:
    """Check both regions (bounds, observers) and copy, as `burst_copy` does."""
    if m._recording is not None:        # a tile op learning its DMAs (`MachineState.replay`)
        m._recording.append((op, names, src, dst, plan))
    sb, so = m._region(src, plan.src_extent, access="R", op=op, operand=names[0],
                       runs=plan.src_runs)
    db, do = m._region(dst, plan.dst_extent, access="W", op=op, operand=names[1],
                       runs=plan.dst_runs)
    s, d = burst_views(plan, sb, so, db, do)
    if plan.flat or plan.disjoint:
        d[...] = s
    else:
        _ordered(s, d, op)


def burst_views(plan: Burst, sb: np.ndarray, so: int, db: np.ndarray, do: int
                ) -> tuple[np.ndarray, np.ndarray]:
    """The source and destination of a burst copy as arrays over their buffers (one
    slice each when the copy is flat, else one void element per burst)."""
    if plan.flat:
        return sb[so:so + plan.src_extent], db[do:do + plan.dst_extent]
    return (np.ndarray(plan.shape, plan.burst, sb, so, plan.src_strides),
            np.ndarray(plan.shape, plan.burst, db, do, plan.dst_strides))


def plan_key(*parts: object) -> tuple | None:
    """``parts`` as a memo key for an op's validated layout, or None when a part is not a
    plain int / str / None, or a tuple / list of ints or of such tuples (a clause, a list
    of loop triples): a bool or float equal to an int must still meet the op's own type
    checks rather than a layout cached for the int."""
    key = []
    for p in parts:
        t = type(p)
        if t is int or t is str or p is None:
            key.append(p)
            continue
        if t is tuple or t is list:
            items = []
            for q in p:                         # type: ignore[attr-defined]
                if type(q) is int:
                    items.append(q)
                elif (type(q) is tuple or type(q) is list) and \
                        all(type(r) is int for r in q):
                    items.append((type(q), *q))  # type: ignore[arg-type]
                else:
                    return None
            key.append((t, *items))
            continue
        return None
    return tuple(key)


def typed_key(*parts: object) -> tuple | None:
    """``parts`` as a memo key that tells 1, 1.0 and True apart (tuples inside too), or
    None when a part cannot be hashed."""
    try:
        key = tuple((type(p), typed_key(*p) if type(p) is tuple else p) for p in parts)
        hash(key)
    except TypeError:
        return None
    return key


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
    _ordered(s, d, op)


def _ordered(s: np.ndarray, d: np.ndarray, op: str) -> None:
    warn(f"{op}: destination bursts may overlap; copying in program order, the "
         f"later burst wins")
    for index in np.ndindex(*s.shape):
        d[index] = s[index]
