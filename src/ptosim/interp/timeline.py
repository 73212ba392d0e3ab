"""Pipeline timeline: when each op would run if every pipe ran in parallel.

A simple, documented cost model (docs/semantics.md, "Timeline"), not a calibrated one:
a data move takes ``bytes / bandwidth(pipe)`` plus a fixed start-up cost, a MAD takes
``2*m*n*k / peak(dtype)``. Each (core, pipe) track runs its ops in order; an op starts when
its pipe is free and every `wait_flag` / `sync.wait` before it on that pipe has seen its
matching set; a `PIPE_ALL` barrier aligns all pipes of its core. The result is a Chrome /
Perfetto JSON trace: one process per core, one thread per pipe, each op a slice, each flag
and semaphore a flow arrow.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..cost import STARTUP_NS, CostModel  # noqa: F401  (STARTUP_NS: re-exported)
from ..isa import OpSpec
from ..machine import Runs
from ..mlir.ir import Operation
from ..targets import TARGETS, Target, get_target
from .executor import Core
from .hazards import PIPES_OF, ROLE_KINDS, pipe_name

# The cost model is a field of the target profile (``Target.cost``); this view by name is
# kept for callers that look a model up by target name.
COST_MODELS: dict[str, CostModel] = {name: t.cost for name, t in TARGETS.items()}


@dataclass
class _Slice:
    name: str
    core: Core
    pipe: str
    start: float
    dur: float
    args: dict[str, Any]


@dataclass
class Timeline:
    """Observer that schedules ops on pipe tracks (see module doc)."""

    target: str | Target               # the profile (or its name) whose cost model applies
    locate: Callable[[Operation], str | None]
    slices: list[_Slice] = field(default_factory=list)
    flows: list[tuple[str, Core, str, float, Core, str, float]] = field(default_factory=list)
    ready: dict[tuple[str, str], float] = field(default_factory=dict)
    cores: dict[str, Core] = field(default_factory=dict)
    _flags: dict[tuple, list[tuple[float, Core, str]]] = field(default_factory=dict)
    _sems: dict[tuple, list[tuple[float, Core, str]]] = field(default_factory=dict)
    _op: tuple | None = None
    _bytes: dict[str, int] = field(default_factory=dict)
    _slice_of: dict[int, _Slice] = field(default_factory=dict)   # id(op) -> its last slice

    def __post_init__(self) -> None:
        self.profile: Target = get_target(self.target)

    def _at(self, core: Core, pipe: str) -> float:
        self.cores.setdefault(core.name, core)
        return self.ready.get((core.name, pipe), 0.0)

    def begin_op(self, core: Core, op: Operation, spec: OpSpec, args: list[Any],
                 pipe: str, kwargs: dict[str, Any] | None = None) -> None:
        flops, elem = spec.flops(args)
        self._op = (core, op, spec.name, pipe, flops, elem)
        self._bytes = {"R": 0, "W": 0}

    def access(self, buf: np.ndarray, start: int, nbytes: int, access: str,
               operand: str | None, op_name: str | None, runs: Runs | None = None) -> None:
        if self._op is not None:
            moved = nbytes if runs is None else runs[0] * math.prod(c for c, _ in runs[1])
            for kind in ROLE_KINDS[access]:          # an atomic write moves written bytes
                self._bytes["R" if kind == "R" else "W"] += moved

    def end_op(self) -> None:
        if self._op is None:
            return
        core, op, method, pipe, flops, elem = self._op
        nbytes = max(self._bytes["R"], self._bytes["W"])
        dur = self.profile.cost.duration(pipe, nbytes, flops, elem)
        start = self._at(core, pipe)
        self.ready[(core.name, pipe)] = start + dur
        self.slices.append(_Slice(op.name, core, pipe, start, dur,
                                  {"loc": self.locate(op) or "?", "bytes": nbytes,
                                   **({"flops": flops} if flops else {})}))
        self._slice_of[id(op)] = self.slices[-1]
        self._op = None

    def set_flag(self, core: Core, src: str, dst: str, event: str, op: Operation) -> None:
        s = pipe_name(src)
        self._flags.setdefault((core.name, s, pipe_name(dst), event), []).append(
            (self._at(core, s), core, s))

    def wait_flag(self, core: Core, src: str, dst: str, event: str, op: Operation) -> None:
        d = pipe_name(dst)
        pending = self._flags.get((core.name, pipe_name(src), d, event))
        if pending:
            t, src_core, s = pending.pop(0)
            at = max(self._at(core, d), t)
            self.ready[(core.name, d)] = at
            self.flows.append((event, src_core, s, t, core, d, at))

    def barrier(self, core: Core, pipe: str, op: Operation) -> None:
        if pipe_name(pipe) != "ALL":
            return
        pipes = PIPES_OF[core.kind]
        t = max(self._at(core, p) for p in pipes)
        for p in pipes:
            self.ready[(core.name, p)] = t

    def mem_bar(self, core: Core, kind: str, op: Operation) -> None:
        """A vector memory barrier costs nothing on the timeline."""

    def vecscope(self, core: Core, op: Operation) -> None:
        """Scope boundaries cost nothing on the timeline."""

    def rendezvous_arrive(self, core: Core, key: tuple, op: Operation | None = None) -> None:
        t = max(self._at(core, p) for p in PIPES_OF[core.kind])
        self._sems.setdefault(("syncall", key), []).append((t, core, "S"))

    def rendezvous_leave(self, core: Core, key: tuple, op: Operation | None = None) -> None:
        arrivals = self._sems.get(("syncall", key), [])
        t = max([self._at(core, p) for p in PIPES_OF[core.kind]] + [a[0] for a in arrivals])
        for p in PIPES_OF[core.kind]:
            self.ready[(core.name, p)] = t

    def sync_set(self, core: Core, pipe: str, keys: list[tuple],
                 op: Operation | None = None) -> None:
        p = pipe_name(pipe)
        for k in keys:
            self._sems.setdefault(k, []).append((self._at(core, p), core, p))

    def sync_wait(self, core: Core, pipe: str, keys: list[tuple],
                  op: Operation | None = None) -> None:
        p = pipe_name(pipe)
        for k in keys:
            queue = self._sems.get(k)
            if queue:
                t, src_core, s = queue.pop(0)
                at = max(self._at(core, p), t)
                self.ready[(core.name, p)] = at
                self.flows.append((f"semaphore #{k[-1]}", src_core, s, t, core, p, at))

    def finish(self) -> list[Any]:
        return []

    # --- output --------------------------------------------------------------------------
    def utilisation(self) -> list[tuple[str, str, float, float]]:
        """(core, pipe, busy ns, busy / whole run) per track, busiest first."""
        end = max((s.start + s.dur for s in self.slices), default=0.0)
        busy: dict[tuple[str, str], float] = {}
        for s in self.slices:
            busy[(s.core.name, s.pipe)] = busy.get((s.core.name, s.pipe), 0.0) + s.dur
        rows = [(c, p, t, t / end if end else 0.0) for (c, p), t in busy.items()]
        return sorted(rows, key=lambda r: -r[2])

    def trace(self, findings: list[Any] | None = None) -> dict[str, Any]:
        """The Chrome / Perfetto JSON trace (timestamps in microseconds); hazard
        ``findings`` become instant events on the later op's slice."""
        pids = {name: i for i, name in enumerate(self.cores)}
        order = {p: i for i, p in enumerate(("S", "MTE2", "MTE1", "M", "FIX", "V", "MTE3"))}
        events: list[dict[str, Any]] = []
        tracks = sorted({(s.core.name, s.pipe) for s in self.slices} |
                        {(f[1].name, f[2]) for f in self.flows} |
                        {(f[4].name, f[5]) for f in self.flows})
        for name, pid in pids.items():
            events.append({"name": "process_name", "ph": "M", "pid": pid, "tid": 0,
                           "args": {"name": name}})
        for core, pipe in tracks:
            events.append({"name": "thread_name", "ph": "M", "pid": pids[core],
                           "tid": order.get(pipe, 9), "args": {"name": f"PIPE_{pipe}"}})
        for s in self.slices:
            events.append({"name": s.name, "cat": f"PIPE_{s.pipe}", "ph": "X",
                           "ts": s.start / 1000, "dur": s.dur / 1000, "pid": pids[s.core.name],
                           "tid": order.get(s.pipe, 9), "args": s.args})
        for i, (label, c1, p1, t1, c2, p2, t2) in enumerate(self.flows, 1):
            events.append({"name": label, "cat": "sync", "ph": "s", "id": i, "ts": t1 / 1000,
                           "pid": pids[c1.name], "tid": order.get(p1, 9)})
            events.append({"name": label, "cat": "sync", "ph": "f", "bp": "e", "id": i,
                           "ts": t2 / 1000, "pid": pids[c2.name], "tid": order.get(p2, 9)})
        for f in findings or []:
            hit = self._slice_of.get(id(getattr(f, "op", None)))
            if hit is not None:
                events.append({"name": f"{f.kind} hazard", "cat": "hazard", "ph": "i",
                               "s": "t", "ts": hit.start / 1000, "pid": pids[hit.core.name],
                               "tid": order.get(hit.pipe, 9),
                               "args": {"message": f.message, "loc": f.loc or "?"}})
        end = max((s.start + s.dur for s in self.slices), default=0.0)
        return {"traceEvents": events, "displayTimeUnit": "ns",
                "otherData": {"tool": "ptosim", "target": self.profile.name,
                              "cost_model": "docs/semantics.md#timeline",
                              "end_us": end / 1000}}

    def write(self, path: str) -> None:
        """Write the trace JSON to ``path`` atomically (a temporary file, then a rename)."""
        from ..files import write_atomic
        write_atomic(path, json.dumps(self.trace(), indent=1).encode("utf-8"))


class Observers:
    """Forwards every event to several observers (hazard checker and timeline)."""

    def __init__(self, *observers: Any) -> None:
        self.observers = [o for o in observers if o is not None]

    def __getattr__(self, name: str) -> Callable[..., None]:
        methods = [getattr(o, name) for o in self.observers]

        def forward(*args: Any, **kwargs: Any) -> None:
            for method in methods:
                method(*args, **kwargs)
        setattr(self, name, forward)          # later lookups skip __getattr__
        return forward
