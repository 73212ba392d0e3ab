"""Where a byte came from: an executor observer for ``run --compare`` and ``--initcheck``.

It keeps, for every buffer an op touches, the index of the op that last wrote each byte,
and for every op the byte ranges it read with the ops that had written them. From that:

- ``lineage(buffer, offset)``: the op that wrote a (mismatching) output byte, the ops that
  wrote what that op read, and so on back to the kernel's inputs — a wrong stride, a
  missing transpose or an overwritten operand is one of the ops on that chain;
- the first op that read on-chip bytes nothing wrote *and* whose written bytes change when
  on-chip memory starts as 0xFF instead of 0x00 (`first_tainted`, two runs compared):
  msSanitizer's initcheck at the op, not only at the output. Both conditions are needed:
  an op's access range may span bytes it skips (strided bursts, tile padding), so a read
  range holding unwritten bytes alone is no proof, and neither is a changed write (the
  skipped bytes of a strided write are unwritten in both runs, with different fills).

Accesses are whole ranges, as the ops report them to the machine; a strided access counts
its gaps. Costs memory and time only when asked for.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..machine import Runs
from ..mlir.ir import Operation
from ..ops.common import run_bytes


@dataclass
class OpRecord:
    where: str                                   # "k.pto:30:5 pto.tload (block0.aiv0)"
    reads: list[tuple[str, int, int, list[int]]] = field(default_factory=list)
    # (buffer name, start, end, indices of the ops that wrote those bytes)
    writes: list[tuple[np.ndarray, int, int, Any]] = field(default_factory=list)
    undefined: str | None = None                 # the first read of unwritten on-chip bytes
    digest: str = ""


class Provenance:
    """The observer (see module doc); ``names`` gives a buffer's readable name."""

    def __init__(self, locate: Callable[[Operation], str | None],
                 names: Callable[[np.ndarray], str]) -> None:
        self.locate = locate
        self.names = names
        self.ops: list[OpRecord] = []
        self.writer: dict[int, np.ndarray] = {}      # id(buffer) -> op index per byte
        self.defined: dict[int, np.ndarray] = {}     # on-chip buffers: bytes written so far
        self.buffers: dict[int, np.ndarray] = {}
        self._op: OpRecord | None = None

    def _map(self, buf: np.ndarray, end: int) -> np.ndarray:
        """The writer map of ``buf``, covering at least its first ``end`` bytes (a new
        output's backing is large and mostly untouched: maps grow as accesses reach)."""
        key = id(buf)
        if key not in self.writer:
            self.buffers[key] = buf
            self.writer[key] = np.full(0, -1, np.int32)
            if not self.names(buf).startswith("GM"):
                self.defined[key] = np.zeros(buf.size, bool)
        have = self.writer[key]
        if have.size < end:
            grown = np.full(min(buf.size, max(end, 2 * have.size)), -1, np.int32)
            grown[:have.size] = have
            self.writer[key] = have = grown
        return have

    def begin_op(self, core: Any, op: Operation, spec: Any, args: list[Any], pipe: str,
                 kwargs: dict[str, Any] | None = None) -> None:
        self._op = OpRecord(f"{self.locate(op) or '?'} {op.name} ({core.name})")

    def access(self, buf: np.ndarray, start: int, nbytes: int, access: str,
               operand: str | None, op_name: str | None, runs: Runs | None = None) -> None:
        rec = self._op
        if rec is None or nbytes <= 0:
            return
        end = min(start + nbytes, buf.size)
        writer = self._map(buf, end)
        # a strided access: just the bytes of its runs (else the whole extent)
        where: Any = slice(start, end) if runs is None else run_bytes(start, runs, end)
        if "R" in access:
            ids = np.unique(writer[where])
            rec.reads.append((self.names(buf), start, end, [int(i) for i in ids if i >= 0]))
            defined = self.defined.get(id(buf))
            if rec.undefined is None and defined is not None and not defined[where].all():
                first = int(np.arange(buf.size)[where][int(np.argmin(defined[where]))])
                rec.undefined = (f"{operand or 'an operand'} reads {self.names(buf)} "
                                 f"[{start}, {end}), byte {first} never written")
        if "W" in access or access == "A":
            rec.writes.append((buf, start, end, where))

    def end_op(self) -> None:
        rec, self._op = self._op, None
        if rec is None:
            return
        index = len(self.ops)
        h = hashlib.blake2b(digest_size=8)
        for buf, _, end, where in rec.writes:
            self._map(buf, end)[where] = index
            defined = self.defined.get(id(buf))
            if defined is not None:
                defined[where] = True
            h.update(buf[where].tobytes())
        rec.digest = h.hexdigest()
        rec.writes = [(np.empty(0, np.uint8), s, e, None)                     # keep no refs
                      for _, s, e, _ in rec.writes]
        self.ops.append(rec)

    def __getattr__(self, name: str) -> Callable[..., None]:
        # flags, barriers and semaphores do not move bytes
        return lambda *args, **kwargs: None

    def buffer(self, label: str) -> np.ndarray | None:
        """The writer map of the GM buffer whose name starts with ``label`` (``GM %c``)."""
        for key, buf in self.buffers.items():
            name = self.names(buf)
            if name == label or name.startswith(label + " "):
                return self.writer[key]
        return None

    def lineage(self, writer: np.ndarray, start: int, end: int, depth: int = 8,
                limit: int = 12) -> list[str]:
        """Lines: the ops that last wrote bytes [start, end) of a buffer, then who wrote
        what each of them read, indented by step; each op once."""
        lines: list[str] = []
        seen: set[int] = set()
        frontier = [(int(i), 0) for i in np.unique(writer[start:end]) if i >= 0]
        if not frontier:
            return ["  no op of the kernel wrote these bytes"]
        while frontier and len(lines) < limit:
            index, level = frontier.pop(0)
            if index in seen:
                continue
            seen.add(index)
            rec = self.ops[index]
            reads = "; ".join(f"{n} [{s}, {e})" for n, s, e, _ in rec.reads) or "nothing"
            lines.append(f"  {'  ' * level}{'written by' if level == 0 else '<- from'} "
                         f"{rec.where}, which read {reads}")
            if level + 1 < depth:
                frontier += [(w, level + 1) for *_, ws in rec.reads for w in ws]
        return lines


def first_tainted(zero: Provenance, poison: Provenance) -> OpRecord | None:
    """The first op that read unwritten on-chip bytes and whose writes differ between the
    zero-filled and the 0xFF-filled run (see module doc)."""
    for a, b in zip(zero.ops, poison.ops):
        if a.where != b.where:                  # the runs took different paths: stop here
            return b if b.undefined else None
        if b.undefined is not None and a.digest != b.digest:
            return b
    return None
