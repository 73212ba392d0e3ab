"""Tiles of different allocations that share on-chip bytes (issue 16's "overlapping L1
operands" bug): `ptosim run` and `ptosim check` warn, at the op, with a ``note:`` at the
allocation that lies over the other one.

Two findings:

* two source tiles of one op are different allocations sharing bytes (whichever was loaded
  last holds both operands' data);
* an op writes a tile over bytes that a different allocation holds, written by an earlier
  op and not read since -- two TLOADs into overlapping L1 tiles, whose TEXTRACTs feed
  TMATMUL's A and B, show here: no single op reads both tiles.

Reusing bytes after their data was read (PTOAS's memory planning does it all the time) is
not a finding. Tiles are traced back to the ``pto.alloc_tile`` they are views of; a tile
that comes from elsewhere (a block argument, a loop-carried value) is not tracked: writing
it forgets what it covers, reading it counts as a read.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..mlir.ir import Operation, OpResult, SSAValue
from ..tile.tile import Tile

Warn = Callable[..., None]      # WarningLog: (message, related=loc, note=text)
Locate = Callable[[Operation], "str | None"]


@dataclass
class _Span:
    lo: int
    hi: int
    alloc: Operation | None     # the pto.alloc_tile the writing tile is a view of
    value: SSAValue             # the tile written (its name is in the messages)
    writer: Operation           # the op that wrote the bytes
    read: bool = False


def allocation(value: Any) -> Operation | None:
    """The ``pto.alloc_tile`` op ``value`` is (a view of), or None when it is not known."""
    for _ in range(64):         # view chains are short; a bound keeps this total
        if not isinstance(value, OpResult):
            return None
        op = value.op
        if op.name == "pto.alloc_tile":
            return op
        if not op.operands:
            return None
        value = op.operands[0]  # treshape / subset / bitcast: a view of their first operand
    return None


def outputs(op: Operation) -> set[SSAValue]:
    """The operands an op writes: its ``outs(...)`` (``dst`` of the hand-written tile ops);
    an op with neither (``pto.tprint``) writes no tile."""
    outs = getattr(op, "outs", None)
    if isinstance(outs, Sequence):
        return {v for v in outs if isinstance(v, SSAValue)}
    dst = getattr(op, "dst", None)
    return {dst} if isinstance(dst, SSAValue) else set()


def _name(value: SSAValue) -> str:
    return f"%{value.name_hint or '?'}"


class TileOverlap:
    """The spans of on-chip bytes tile ops wrote in one run (or one `check` walk), per
    buffer, with the allocation that wrote them and whether anything read them since."""

    def __init__(self, locate: Locate, warn: Warn) -> None:
        self.locate = locate
        self.warn = warn
        self._spans: dict[tuple[Any, ...], list[_Span]] = {}
        self._outputs: dict[Operation, frozenset[SSAValue]] = {}
        self._allocs: dict[SSAValue, Operation | None] = {}

    def op(self, op: Operation, operands: Sequence[tuple[Any, Any]]) -> None:
        """One tile op with its ``(SSA value, runtime value)`` operand pairs: warn about
        overlapping sources and about a write over unread bytes of another allocation,
        then record the op's reads and writes."""
        written = self._outputs.get(op)
        if written is None:     # IRDL operand accessors are slow: once per op
            written = self._outputs[op] = frozenset(outputs(op))
        sources: list[tuple[SSAValue, Tile]] = []
        dsts: list[tuple[SSAValue, Tile]] = []
        for v, t in operands:
            if type(t) is Tile and isinstance(v, SSAValue):
                (dsts if v in written else sources).append((v, t))
        if len(sources) > 1:
            self._sources(op, sources)
        for _, t in sources:    # (an in-place destination is its own allocation: no finding)
            for span in self._overlapping(t):
                span.read = True
        for v, t in dsts:
            self._write(op, v, t)

    def forget(self) -> None:
        """Drop every span (`check` does at each block boundary: it walks both branches of
        an ``scf.if`` one after the other, which no run does)."""
        self._spans.clear()

    @staticmethod
    def _key(t: Tile) -> tuple[Any, ...]:
        p = t.ptr
        return (p.space, p.sub, p.block)

    def _overlapping(self, t: Tile) -> list[_Span]:
        lo, hi = t.ptr.offset, t.ptr.offset + t.nbytes
        return [s for s in self._spans.get(self._key(t), ()) if s.lo < hi and lo < s.hi]

    def _sources(self, op: Operation, sources: list[tuple[SSAValue, Tile]]) -> None:
        """Two source tiles of one op that are different allocations sharing bytes (a tile
        passed twice, or one allocation under two names, is fine)."""
        seen: list[tuple[SSAValue, Tile]] = []
        for value, t in sources:
            for other_value, u in seen:
                p, q = t.ptr, u.ptr
                if value is other_value or self._key(t) != self._key(u):
                    continue
                lo, hi = max(p.offset, q.offset), min(p.offset + t.nbytes, q.offset + u.nbytes)
                if lo >= hi or not (isinstance(value, OpResult) and
                                    isinstance(other_value, OpResult)) or \
                        value.op is other_value.op:
                    continue
                self.warn(f"{op.name}: source tiles {_name(other_value)} and {_name(value)} are "
                     f"different allocations sharing {p.space} bytes [{lo}, {hi}); loading "
                     f"one overwrites the other", related=self.locate(value.op),
                     note=f"{_name(value)} is allocated here, over {_name(other_value)}")
            seen.append((value, t))

    def _write(self, op: Operation, value: SSAValue, t: Tile) -> None:
        try:
            alloc = self._allocs[value]
        except KeyError:
            alloc = self._allocs[value] = allocation(value)
        lo, hi = t.ptr.offset, t.ptr.offset + t.nbytes
        key = self._key(t)
        kept: list[_Span] = []
        for s in self._spans.get(key, ()):
            if s.hi <= lo or hi <= s.lo:
                kept.append(s)
                continue
            if alloc is not None and s.alloc is not None and s.alloc is not alloc \
                    and not s.read:
                a, b = max(lo, s.lo), min(hi, s.hi)
                where = self.locate(s.writer)
                self.warn(f"{op.name}: {_name(value)} is written over {t.ptr.space} bytes "
                     f"[{a}, {b}) of {_name(s.value)}, a different allocation, which "
                     f"{s.writer.name}{f' at {where}' if where else ''} wrote and nothing "
                     f"has read since", related=self.locate(alloc),
                     note=f"{_name(value)} is allocated here, over {_name(s.value)}")
            # what the write leaves of the older span stays (with its state)
            if s.lo < lo:
                kept.append(_Span(s.lo, lo, s.alloc, s.value, s.writer, s.read))
            if hi < s.hi:
                kept.append(_Span(hi, s.hi, s.alloc, s.value, s.writer, s.read))
        kept.append(_Span(lo, hi, alloc, value, op))
        self._spans[key] = kept


__all__ = ["TileOverlap", "allocation", "outputs"]
