"""Pipe-hazard checker: finds accesses that only program order keeps apart.

On the NPU each core's pipes (MTE2, MTE1, M, FIX on the cube; MTE2, V, MTE3 on a vector
core) run in parallel; only `set_flag`/`wait_flag`, `PIPE_ALL` barriers and cross-core
semaphores order them. ptosim runs ops in program order, so it sees every access and can
decide exactly, with vector clocks, whether two conflicting accesses are ordered:

- every (core, pipe) is a thread with a vector clock; ops on one pipe are ordered;
- `set_flag(src, dst, e)` publishes the src pipe's clock, the matching `wait_flag` joins it
  into the dst pipe; `barrier PIPE_ALL` joins all pipes of the core; `sync.set` / `sync.wait`
  carry clocks between cores through the semaphore;
- access B happens before access A iff B's epoch <= A's clock entry for B's thread.

Two accesses to overlapping bytes, at least one a write (GM atomics only conflict with
non-atomic accesses), that are not ordered are reported with both ops' locations, pipes,
the buffer and byte range, and the flag that would order them. An access is its extent
(first to last byte) plus, for strided DMAs, the runs of bytes it really touches: two
accesses conflict only if their runs share a byte, so blocks that write interleaved
column strips of one GM matrix are not reported.

Inside a vecscope the V pipe does not order its own UB loads and stores either (PTO
micro-instruction spec, intra-pipeline memory barriers): a vector load of bytes an earlier
vector store of the same scope wrote needs ``pto.mem_bar "VST_VLD"`` (or ``"VV_ALL"``)
between them, a vector store over bytes an earlier vector load read needs ``"VLD_VST"``
unless the stored data is computed from that load's result (an in-place update: the
register dependency orders them). A missing barrier is reported like a missing flag.

The frequent events (op starts and ends, accesses, flags) arrive as entries of the
checker's ``event_log`` (see `ptosim.events`), read in order by `HazardChecker.flush`;
every other event and `finish` flush first, so the order of the events is kept.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..events import (
    ACCESS,
    BEGIN,
    END,
    END_ENTRY,
    FLUSH_AT,
    OP_HANDLE,
    SET_FLAG,
    SET_HANDLE,
    WAIT_FLAG,
    WAIT_HANDLE,
)
from ..isa import OpSpec
from ..machine import Runs
from ..mlir.ir import BlockArgument, Operation, OpResult, SSAValue
from ..ops.common import run_starts
from .diagnostics import render
from .executor import Core, pipe_name

PIPES_OF = {"cube": ("MTE2", "MTE1", "M", "FIX"), "vector": ("MTE2", "V", "MTE3")}  # by Core.kind
# The accesses each declared role stands for (machine.ACCESS_ROLES; the op declares the
# role when it asks for the bytes, nothing is inferred from operand names).
ROLE_KINDS = {"R": ("R",), "W": ("W",), "RW": ("R", "W"), "A": ("A",)}


# a lane's key for an extent without runs: start << _SHIFT | end (ends stay below 2**48)
_SHIFT = 48
_LOW = (1 << _SHIFT) - 1
_OPB = 24          # bits of an op's number in a lane's stamp (a kernel's ops, not runs)
_OP_MASK = (1 << _OPB) - 1
_BUCKET = 256       # bytes per bucket of the vector accesses not yet behind a mem_bar
_Pending = tuple[int, int, int, Operation]     # (sequence number, start, end, op)


@dataclass(slots=True)
class _Access:
    thread: int
    epoch: int
    kind: str              # "R", "W" or "A" (atomic write)
    start: int
    end: int
    op: Operation
    core: str
    pipe: str
    runs: Runs | None = None     # the strided bytes inside [start, end); None: all of them


def _run_starts(a: _Access) -> tuple[np.ndarray, int]:
    if a.runs is None:
        return np.array([a.start], np.int64), a.end - a.start
    return run_starts(a.start, a.runs), a.runs[0]


def shared_bytes(a: _Access, b: _Access) -> tuple[int, int] | None:
    """The lowest run of bytes both accesses touch, or None. Exact for any two sets of
    runs: b's runs sorted by start with a running maximum of their ends answer, for each
    of a's runs, whether some run of b starts before its end and ends after its start."""
    if a.runs is None and b.runs is None:
        lo, hi = max(a.start, b.start), min(a.end, b.end)
        return (lo, hi) if lo < hi else None
    sa, la = _run_starts(a)
    sb, lb = _run_starts(b)
    sb = np.sort(sb)
    ends = np.maximum.accumulate(sb + lb)
    last = np.searchsorted(sb, sa + la, side="left") - 1
    hit = (last >= 0) & (ends[np.maximum(last, 0)] > sa)
    if not hit.any():
        return None
    x = int(sa[hit].min())                        # a's lowest run that meets b
    j = int(np.searchsorted(sb + lb, x, side="right"))
    # the first b run ending after x (b's runs have one length, so ends are sorted too)
    lo = max(x, int(sb[j]))
    return lo, min(x + la, int(sb[j]) + lb)


@dataclass
class Finding:
    """One reported problem: ``loc`` points at the later op."""

    kind: str              # "RAW", "WAR", "WAW", "flag left set"
    message: str
    loc: str | None
    count: int = 1
    related: str | None = None      # the other op of the pair, for a ``note:`` line
    related_note: str = ""
    op: Any = None                  # the later op (the timeline marks it)

    def render(self, severity: str = "warning") -> str:
        return render(self.loc, severity, self.message, self.count)


# A new access of kind k may conflict with the lanes of these kinds (atomics only with
# plain accesses); the same relation read the other way round.
_CONFLICTS = {"R": ("W", "A"), "W": ("R", "W", "A"), "A": ("R", "W")}


def _join_into(clock: list[int], other: list[int]) -> None:
    """clock = max(clock, other) elementwise, in place (other no longer than clock)."""
    i = 0
    for v in other:
        if v > clock[i]:
            clock[i] = v
        i += 1      # noqa: SIM113 - a counter beats enumerate's tuples in this hot loop


class _Lane:
    """One (thread, kind) of a buffer: each byte range (start, end, runs; an int
    ``start << _SHIFT | end`` without runs) maps to its latest access, the int
    ``epoch << _OPB | op number`` (ints only: the garbage collector never walks a
    buffer's history), in
    epoch order (a range seen again moves to the end), so the accesses a new one is not
    yet ordered after are a suffix. ``last`` is the newest epoch: a lane whose ``last``
    the new access's clock covers is skipped whole."""

    __slots__ = ("kind", "last", "ranges", "thread")

    def __init__(self, thread: int, kind: str) -> None:
        self.thread = thread
        self.kind = kind
        self.ranges: dict[int | tuple[int, int, Runs], int] = {}
        self.last = 0


@dataclass(slots=True)
class _Buffer:
    """The accesses to one buffer: its lanes by (thread, kind); per kind of a new access
    the lanes it may conflict with, in the order the lanes were made (the order the
    findings of one access come in; shared: lanes made later join them)."""

    name: str
    lanes: dict[tuple[int, str], _Lane] = field(default_factory=dict)
    check: dict[str, list[_Lane]] = field(
        default_factory=lambda: {"R": [], "W": [], "A": []})


class HazardChecker:
    """Observes a run (see module doc); ``findings`` lists what it found."""

    def __init__(self, locate: Callable[[Operation], str | None],
                 names: Callable[[np.ndarray], str]) -> None:
        self.locate = locate
        self.names = names                 # buffer -> readable name
        self.threads: dict[tuple[str, str], int] = {}
        self.clocks: list[list[int]] = []
        self._where: list[tuple[str, str]] = []     # thread -> (core name, pipe)
        # thread -> access role -> buffer id -> (the buffer's record, per kind of the role:
        # (kind, the thread's lane, the lanes to check)), what `flush` needs per access
        self._plans: list[dict[str, dict[int, tuple]]] = []
        self.buffers: dict[int, _Buffer] = {}
        self.flags: dict[tuple, deque[tuple[list[int], Operation]]] = {}
        # (core name, src, dst, event) as the op spells them -> (thread, flag queue)
        self._setters: dict[tuple, tuple[int, deque[tuple[list[int], Operation]]]] = {}
        self._waiters: dict[tuple, tuple[int, deque[tuple[list[int], Operation]]]] = {}
        self.semaphores: dict[tuple, list[list[int]]] = {}
        self.rendezvous: dict[tuple, list[list[int]]] = {}      # SYNCALL arrivals by key
        self.findings: dict[tuple, Finding] = {}
        # begin/end of ops, accesses and flags arrive as entries (`ptosim.events`), from
        # the executor and the Machine straight, or from the methods below; `flush` reads
        # them in order. Every other event and `finish` flush first.
        self.event_log: list[tuple] = []
        # the op running, None between ops: its handle (OP_HANDLE, thread, op, the
        # thread's clock, the thread's lanes by role and buffer, core name, whether it is
        # a vector-family load/store)
        self._current: tuple | None = None
        # per core: vector stores / loads of the current vecscope not yet behind a mem_bar
        # (kept per buffer and 256-byte bucket: a store meets only the loads near it)
        self.unfenced: dict[str, dict[str, dict[tuple[int, int], list[_Pending]]]] = {}
        self._pending_seq = 0
        self._derived: dict[tuple[int, int], bool] = {}
        self._ops: list[Operation] = []             # op number -> op (lane stamps)
        self._op_numbers: dict[int, int] = {}       # id(op) -> op number

    def _op_number(self, op: Operation) -> int:
        number = self._op_numbers.get(id(op))
        if number is None:
            number = self._op_numbers[id(op)] = len(self._ops)
            self._ops.append(op)         # kept: the id stays this op's while the run lasts
        return number

    # --- threads and clocks ----------------------------------------------------------
    def _thread(self, core: Core, pipe: str) -> int:
        key = (core.name, pipe)
        tid = self.threads.get(key)
        if tid is None:
            tid = self.threads[key] = len(self.clocks)
            for clock in self.clocks:
                clock.append(0)
            # published clocks waiting in flag queues grow too (a join is then one
            # elementwise max of equal lengths)
            for queue in self.flags.values():
                for published, _ in queue:
                    published.append(0)
            self.clocks.append([0] * (tid + 1))
            self._where.append(key)
            self._plans.append({role: {} for role in ROLE_KINDS})
        return tid

    def _tick(self, tid: int) -> list[int]:
        clock = self.clocks[tid]
        clock[tid] += 1
        return clock

    def _join(self, tid: int, other: list[int]) -> None:
        # in place (the current op holds this list); a shorter ``other`` was published
        # before newer threads began: their entries are 0
        _join_into(self.clocks[tid], other)

    # --- events from the executor ------------------------------------------------------
    def begin_op(self, core: Core, op: Operation, spec: OpSpec, args: list[Any],
                 pipe: str, kwargs: dict[str, Any] | None = None) -> None:
        """``op`` (its registry entry ``spec``) starts on ``pipe`` of ``core``."""
        log = self.event_log
        log.append((BEGIN, core, op, spec, pipe))
        if len(log) >= FLUSH_AT:
            self.flush()

    def end_op(self) -> None:
        self.event_log.append(END_ENTRY)

    def access(self, buf: np.ndarray, start: int, nbytes: int, access: str,
               operand: str | None, op_name: str | None, runs: Runs | None = None) -> None:
        """One buffer access of the current op, with the role the op declared."""
        log = self.event_log
        log.append((ACCESS, buf, start, nbytes, access, runs))
        if len(log) >= FLUSH_AT:
            self.flush()

    def set_flag(self, core: Core, src: str, dst: str, event: str, op: Operation) -> None:
        self.event_log.append((SET_FLAG, core, src, dst, event, op))

    def wait_flag(self, core: Core, src: str, dst: str, event: str, op: Operation) -> None:
        self.event_log.append((WAIT_FLAG, core, src, dst, event, op))

    def op_handle(self, core: Core, op: Operation, spec: OpSpec, pipe: str) -> tuple:
        """The entry that tells ``op`` starting on ``pipe`` of ``core`` (see
        `ptosim.events`); also the current op while it runs."""
        self.flush()                    # threads are made in the order of the events
        return self._op_handle(core, op, spec, pipe)

    def _op_handle(self, core: Core, op: Operation, spec: OpSpec, pipe: str) -> tuple:
        name = core.name
        tid = self.threads.get((name, pipe))
        if tid is None:
            tid = self._thread(core, pipe)
        return (OP_HANDLE, tid, op, self.clocks[tid], self._plans[tid], name,
                pipe == "V" and spec.syntax == "vector")

    def flag_handle(self, core: Core, src: str, dst: str, event: str, op: Operation,
                    setting: bool) -> tuple | None:
        """The entry that tells this set_flag / wait_flag (see `ptosim.events`); None for
        a wait whose flag was never set (the executor refuses such a wait anyway)."""
        self.flush()                    # flag queues are made in the order of the events
        if setting:
            tid, pending = self._setter(core, src, dst, event)
            return (SET_HANDLE, tid, pending, op)
        hit = self._waiter(core, src, dst, event, tick=False)
        return None if hit is None else (WAIT_HANDLE, *hit)

    def flush(self) -> None:
        """Take in the logged events, in order (one loop: the per-event work of a long
        run is mostly here, so the common cases are written out inline)."""
        log = self.event_log
        if not log:
            return
        current = self._current
        op_numbers = self._op_numbers
        tid = -1
        if current is not None:
            _, tid, op, clock, plans, core, vector = current
            epoch = clock[tid]
            opx = self._op_number(op)
            stamp = epoch << _OPB | opx     # what the op's accesses leave in their lanes
        clocks = self.clocks
        for entry in log:
            tag = entry[0]
            if tag == ACCESS:
                if current is None:
                    continue                    # not part of an op
                _, buf, start, nbytes, access, runs = entry
                if nbytes <= 0:
                    continue
                end = start + nbytes
                if vector:
                    for kind in ROLE_KINDS[access]:
                        if kind in ("R", "W"):
                            self._vector_access(buf, kind, start, end, op, core)
                by_buffer = plans[access]
                hit = by_buffer.get(id(buf))
                if hit is None:
                    hit = self._lanes_of(buf, tid, access, by_buffer)
                target, lanes = hit
                # a plain extent as one int (cheaper to hash and keep than a tuple)
                key = (start << _SHIFT) | end if runs is None else (start, end, runs)
                for kind, mine, others in lanes:
                    # Every earlier access to overlapping bytes that conflicts with this
                    # one and is not ordered before it. A lane whose newest access the
                    # clock covers holds none (this thread's own lanes never do); of the
                    # others only the unordered suffix is visited, so the cost follows the
                    # unordered accesses, not the buffer's history.
                    for lane in others:
                        if lane.last > clock[lane.thread]:
                            self._unordered(target, lane, current, kind, start, end, runs)
                    ranges = mine.ranges
                    if key in ranges:           # the same range again: the newer access
                        del ranges[key]         # dominates and moves to the end, keeping
                    ranges[key] = stamp         # the lane in epoch order
                    mine.last = epoch
            elif tag == OP_HANDLE:
                current = entry
                _, tid, op, clock, plans, core, vector = entry
                clock[tid] += 1
                epoch = clock[tid]
                got = op_numbers.get(id(op))
                opx = self._op_number(op) if got is None else got
                stamp = epoch << _OPB | opx
            elif tag == END:
                current = None
            elif tag == SET_HANDLE:
                _, t, pending, flag_op = entry
                c = clocks[t]
                c[t] += 1
                pending.append((c.copy(), flag_op))
                if t == tid:                # (a flag inside an op, from direct callers)
                    epoch = c[t]
                    stamp = epoch << _OPB | opx
            elif tag == WAIT_HANDLE:
                _, t, pending = entry
                c = clocks[t]
                c[t] += 1
                if pending:                 # join in place (handles hold c); a plain
                    i = 0                       # loop: ~5x faster than map(max, ...)
                    for v in pending.popleft()[0]:
                        if v > c[i]:
                            c[i] = v
                        i += 1  # noqa: SIM113 - (as in _join_into)
                if t == tid:
                    epoch = c[t]
                    stamp = epoch << _OPB | opx
            elif tag == BEGIN:
                current = self._op_handle(*entry[1:])
                _, tid, op, clock, plans, core, vector = current
                clock[tid] += 1
                epoch = clock[tid]
                got = op_numbers.get(id(op))
                opx = self._op_number(op) if got is None else got
                stamp = epoch << _OPB | opx
            elif tag == SET_FLAG:
                _, core_, src, dst, event, flag_op = entry
                t, pending = self._setter(core_, src, dst, event)
                c = clocks[t]
                c[t] += 1
                pending.append((c.copy(), flag_op))
                if t == tid:
                    epoch = c[t]
                    stamp = epoch << _OPB | opx
            else:                               # WAIT_FLAG
                _, core_, src, dst, event, flag_op = entry
                hit = self._waiter(core_, src, dst, event, tick=True)
                if hit is None:                 # no flag was ever set (the executor refuses
                    if current is not None:     # such a wait before it gets here): a tick
                        epoch = clock[tid]
                        stamp = epoch << _OPB | opx
                    continue
                t, pending = hit
                c = clocks[t]
                c[t] += 1
                if pending:
                    self._join(t, pending.popleft()[0])
                if t == tid:
                    epoch = c[t]
                    stamp = epoch << _OPB | opx
        log.clear()
        self._current = current

    def _setter(self, core: Core, src: str, dst: str, event: str
                ) -> tuple[int, deque[tuple[list[int], Operation]]]:
        """The thread and flag queue of a set_flag as spelled."""
        spelled = (core.name, src, dst, event)
        hit = self._setters.get(spelled)
        if hit is None:
            s = pipe_name(src)
            tid = self._thread(core, s)
            key = (core.name, s, pipe_name(dst), event)
            pending = self.flags.get(key)
            if pending is None:
                pending = self.flags[key] = deque()
            hit = self._setters[spelled] = (tid, pending)
        return hit

    def _waiter(self, core: Core, src: str, dst: str, event: str, tick: bool
                ) -> tuple[int, deque[tuple[list[int], Operation]]] | None:
        """The thread and flag queue of a wait_flag as spelled (kept once the queue
        exists: queues are never dropped); None without one (after the wait's tick when
        ``tick``)."""
        spelled = (core.name, src, dst, event)
        hit = self._waiters.get(spelled)
        if hit is None:
            d = pipe_name(dst)
            tid = self._thread(core, d)
            pending = self.flags.get((core.name, pipe_name(src), d, event))
            if pending is None:
                if tick:
                    self._tick(tid)
                return None
            hit = self._waiters[spelled] = (tid, pending)
        return hit

    def _lanes_of(self, buf: np.ndarray, tid: int, access: str, by_buffer: dict
                  ) -> tuple[_Buffer, tuple[tuple[str, _Lane, list[_Lane]], ...]]:
        """A thread's first access with one role to a buffer: the buffer's record and,
        per kind of the role, the thread's lane of that kind and the lanes such an access
        may conflict with (made before its first check: a lane of its own thread is never
        unordered, so no finding changes); kept in ``by_buffer``."""
        target = self.buffers.get(id(buf))
        if target is None:
            target = self.buffers[id(buf)] = _Buffer(self.names(buf))
        out = []
        for kind in ROLE_KINDS[access]:
            mine = target.lanes.get((tid, kind))
            if mine is None:
                mine = target.lanes[(tid, kind)] = _Lane(tid, kind)
                for other in _CONFLICTS[kind]:
                    target.check[other].append(mine)
            out.append((kind, mine, target.check[kind]))
        hit = by_buffer[id(buf)] = (target, tuple(out))
        return hit

    def vecscope(self, core: Core, op: Operation) -> None:
        """A vector scope starts or ends on ``core``: barriers act within one scope."""
        self.flush()
        self.unfenced.pop(core.name, None)

    def mem_bar(self, core: Core, kind: str, op: Operation) -> None:
        """``pto.mem_bar``: VST_VLD fences the stores before it, VLD_VST the loads,
        VV_ALL both."""
        self.flush()
        pending = self.unfenced.get(core.name)
        if pending is None:
            return
        if kind in ("VST_VLD", "VV_ALL"):
            pending["W"] = {}
        if kind in ("VLD_VST", "VV_ALL"):
            pending["R"] = {}

    def _vector_access(self, buf: np.ndarray, kind: str, start: int, end: int,
                       op: Operation, core: str) -> None:
        pending = self.unfenced.get(core)
        if pending is None:
            pending = self.unfenced[core] = {"R": {}, "W": {}}
        other = pending["W" if kind == "R" else "R"]
        b = id(buf)
        first, last = start // _BUCKET, (end - 1) // _BUCKET
        if other:
            hits = [e for blk in range(first, last + 1) for e in other.get((b, blk), ())
                    if e[1] < end and start < e[2]]
            if last > first and len(hits) > 1:   # an access in several buckets: once, in order
                hits = sorted({e[0]: e for e in hits}.values())
            for _, lo, hi, old in hits:
                if not (kind == "W" and self._stores_what_it_loaded(op, old)):
                    self._report_vector(buf, old, op, kind, max(lo, start), min(hi, end))
        self._pending_seq += 1
        entry = (self._pending_seq, start, end, op)
        mine = pending[kind]
        for blk in range(first, last + 1):
            bucket = mine.get((b, blk))
            if bucket is None:
                mine[(b, blk)] = [entry]
            else:
                bucket.append(entry)

    def _stores_what_it_loaded(self, store: Operation, load: Operation) -> bool:
        """A store whose data derives from the load's result (in-place updates) cannot
        issue before the load has read: the register dependency orders them."""
        key = (id(store), id(load))
        hit = self._derived.get(key)
        if hit is None:
            hit = self._derived[key] = _derives_from(store, load)
        return hit

    def _report_vector(self, buf: np.ndarray, old: Operation, new: Operation, kind: str,
                       lo: int, hi: int) -> None:
        hazard, barrier = ("RAW", "VST_VLD") if kind == "R" else ("WAR", "VLD_VST")
        key = (hazard, id(old), id(new))
        if key in self.findings:
            self.findings[key].count += 1
            return
        verb = "reads what" if kind == "R" else "overwrites what"
        did = "wrote" if kind == "R" else "read"
        message = (f"{hazard} hazard on {self.names(buf)} bytes [{lo}, {hi}): {new.name} "
                   f"{verb} {old.name} at {self.locate(old) or '?'} {did} in the same "
                   f"vecscope, and the V pipe does not order its UB loads and stores; add "
                   f'pto.mem_bar "{barrier}" (or "VV_ALL") between them')
        self.findings[key] = Finding(hazard, message, self.locate(new))

    def _unordered(self, entry: _Buffer, lane: _Lane, current: tuple, kind: str, start: int,
                   end: int, runs: Runs | None) -> None:
        """Report the accesses of ``lane`` that the ``kind`` access to [start, end)
        (``runs``) of the ``current`` op races with: those of the lane's unordered suffix
        whose bytes meet it."""
        _, tid, op, clock, _, _, _ = current
        seen = clock[lane.thread]
        core, pipe = self._where[tid]
        old_core, old_pipe = self._where[lane.thread]
        new: _Access | None = None
        for key, stamp in reversed(lane.ranges.items()):
            epoch, old_op = stamp >> _OPB, self._ops[stamp & _OP_MASK]
            if epoch <= seen:
                break                             # this and older: ordered before new
            if isinstance(key, int):
                lo, hi, old_runs = key >> _SHIFT, key & _LOW, None
            else:
                lo, hi, old_runs = key
            if lo < end and start < hi:
                if new is None:
                    new = _Access(tid, clock[tid], kind, start, end, op, core, pipe, runs)
                old = _Access(lane.thread, epoch, lane.kind, lo, hi, old_op, old_core,
                              old_pipe, old_runs)
                shared = shared_bytes(old, new)
                if shared is not None:
                    self._report(entry, old, new, shared)

    def _report(self, buf: _Buffer, old: _Access, new: _Access,
                shared: tuple[int, int]) -> None:
        kind = {("W", "R"): "RAW", ("A", "R"): "RAW", ("R", "W"): "WAR", ("R", "A"): "WAR"}.get(
            (old.kind, new.kind), "WAW")
        key = (kind, id(old.op), id(new.op))
        if key in self.findings:
            self.findings[key].count += 1
            return
        lo, hi = shared
        verb = {"RAW": "reads what", "WAR": "overwrites what", "WAW": "overwrites what"}[kind]
        did = "read" if old.kind == "R" else "wrote"
        if old.core == new.core:
            fix = (f'add pto.set_flag["PIPE_{old.pipe}", "PIPE_{new.pipe}", "EVENT_IDn"] after '
                   f'the first and the matching pto.wait_flag before the second')
        elif old.core.split(".")[0] != new.core.split(".")[0]:
            # semaphores stay inside a block; blocks meet only at a SYNCALL
            fix = ("order the blocks: a pto.syncall that both cores reach between the first "
                   "and the second")
        else:
            fix = (f"order the cores: pto.sync.set <PIPE_{old.pipe}> on {old.core} after the "
                   f"first, pto.sync.wait <PIPE_{new.pipe}> on {new.core} before the second")
        message = (f"{kind} hazard on {buf.name} bytes [{lo}, {hi}): {new.op.name} "
                   f"({new.core} PIPE_{new.pipe}) {verb} {old.op.name} ({old.core} "
                   f"PIPE_{old.pipe}) at {self.locate(old.op) or '?'} {did}, and nothing orders "
                   f"them; {fix}")
        self.findings[key] = Finding(
            kind, message, self.locate(new.op), related=self.locate(old.op),
            related_note=f"the {'read' if old.kind == 'R' else 'write'} it races with: "
                         f"{old.op.name} on {old.core} PIPE_{old.pipe}", op=new.op)

    def barrier(self, core: Core, pipe: str, op: Operation) -> None:
        """PIPE_ALL joins every pipe of the core; a single pipe is ordered already."""
        self.flush()
        if pipe_name(pipe) != "ALL":
            return
        tids = [self._thread(core, p) for p in PIPES_OF[core.kind]]
        merged = [0] * len(self.clocks)
        for t in tids:
            for i, v in enumerate(self.clocks[t]):
                merged[i] = max(merged[i], v)
        for t in tids:
            self._join(t, merged)

    def sync_set(self, core: Core, pipe: str, keys: list[tuple],
                 op: Operation | None = None) -> None:
        self.flush()
        tid = self._thread(core, pipe_name(pipe))
        clock = list(self._tick(tid))
        for k in keys:
            self.semaphores.setdefault(k, []).append(clock)

    def sync_wait(self, core: Core, pipe: str, keys: list[tuple],
                  op: Operation | None = None) -> None:
        self.flush()
        tid = self._thread(core, pipe_name(pipe))
        self._tick(tid)
        for k in keys:
            queue = self.semaphores.get(k)
            if queue:
                self._join(tid, queue.pop(0))

    def rendezvous_arrive(self, core: Core, key: tuple, op: Operation | None = None) -> None:
        """SYNCALL: ``core`` arrives at rendezvous ``key`` (after its PIPE_ALL barrier):
        what every pipe of it did so far is published for the leavers."""
        self.flush()
        tids = [self._thread(core, p) for p in PIPES_OF[core.kind]]
        merged = [0] * len(self.clocks)
        for t in tids:
            _join_into(merged, self.clocks[t])
        self.rendezvous.setdefault(key, []).append(merged)
        for t in tids:
            self._join(t, merged)

    def rendezvous_leave(self, core: Core, key: tuple, op: Operation | None = None) -> None:
        """``core`` passes rendezvous ``key``: every pipe of it follows every arrival."""
        self.flush()
        tids = [self._thread(core, p) for p in PIPES_OF[core.kind]]
        for clock in self.rendezvous.get(key, []):
            for t in tids:
                self._join(t, clock)

    def finish(self) -> list[Finding]:
        """Everything found, plus flags set and never waited for."""
        self.flush()
        for (core, src, dst, event), pending in self.flags.items():
            for _, op in pending:
                self.findings[("left", id(op))] = Finding(
                    "flag left set", f"set_flag[PIPE_{src}, PIPE_{dst}, {event}] on {core} is "
                    f"never waited for by the end of the kernel", self.locate(op))
        return list(self.findings.values())


def _derives_from(user: Operation, source: Operation) -> bool:
    """Whether an operand of ``user`` is computed (through any chain of ops, scf.for
    iter_args and scope captures) from a result of ``source``: a static backward slice."""
    todo: list[SSAValue] = list(user.operands)
    seen: set[SSAValue] = set()
    while todo:
        value = todo.pop()
        if value in seen:
            continue
        seen.add(value)
        if isinstance(value, OpResult):
            owner = value.op
            if owner is source:
                return True
            todo.extend(owner.operands)
            for region in owner.regions:           # scf.for / scf.if results: the yields
                for block in region.blocks:
                    if block.last_op is not None:
                        todo.extend(block.last_op.operands)
        elif isinstance(value, BlockArgument):
            parent = value.block.parent_op()
            if parent is None:
                continue
            if parent.name == "scf.for":            # (iv, iter args...): init and yield
                i = value.index - 1
                if i >= 0:
                    todo.append(parent.operands[3 + i])
                    last = value.block.last_op
                    if last is not None and i < len(last.operands):
                        todo.append(last.operands[i])
            elif parent.name == "pto.strict_vecscope" and value.index < len(parent.operands):
                todo.append(parent.operands[value.index])
    return False


def buffer_namer(machine: Any) -> Callable[[np.ndarray], str]:
    """Readable names for the machine's buffers: ``block0 l1``, ``block0 aiv1 ub``, and GM
    allocations by their name (a kernel's ``%a``) or address."""
    names: dict[int, str] = {}
    for b, blk in enumerate(machine.blocks):
        for space, data in blk.cube.items():
            names[id(data)] = f"block{b} {space}"
        for sub, data in enumerate(blk.ub):
            names[id(data)] = f"block{b} aiv{sub} ub"
    for alloc in machine._gm:
        label = f"GM {alloc.name}" if alloc.name else f"GM allocation at {alloc.base:#x}"
        names[id(alloc.data)] = label
        if alloc.grows:
            names[id(alloc.backing)] = label

    def name(buf: np.ndarray) -> str:
        return names.get(id(buf), "fb bank")
    return name
