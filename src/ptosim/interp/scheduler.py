"""Launch a kernel on a Machine: one generator per core, deterministic interleaving,
cross-core semaphores and deadlock detection.

Cores are ordered block by block (AIC, AIV0, AIV1). The first runnable core runs until it
finishes or blocks in `pto.sync.wait`; then the next runnable one does. Same input, same
interleaving, every time. When every unfinished core is blocked, the run stops with a
DeadlockError naming each core, the op it waits in and the semaphore it waits on.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import numpy as np

from ..errors import DeadlockError, PtoError, TargetError
from ..events import event_log
from ..machine import MachineState, Ptr
from ..mlir.ir import Operation
from ..targets import Target
from .executor import Core, CoreState, Executor, KernelError, Wait

SEMAPHORES = 16          # per vector sub-block and direction
SEM_MAX = 15             # 4-bit counters


class SyncService:
    """Cross-core semaphores of every block (pto-notes §1.5).

    Unpaired (a5): cube ids 0-15 address AIV0 and 16-31 AIV1, for set and wait; a vector core
    uses its local ids 0-15. Paired (a2a3, ``Target.semaphores_paired``): one cube set reaches
    both AIVs and one cube wait needs both."""

    def __init__(self, target: Target, functions: dict[str, Operation]) -> None:
        self.paired = target.semaphores_paired
        self.target = target
        self.cores: list[Core] = []                       # the launch's (set by launch)
        self.generation: dict[tuple[str, str], int] = {}  # SYNCALLs passed, by core and kind
        self.count: dict[tuple, int] = {}
        self.functions = functions
        self.observer: Any = None          # receives sync_set / sync_wait (hazard checker)

    def lookup_function(self, name: str) -> Operation:
        if name not in self.functions:
            raise KernelError(f"func.call: no function @{name} in the module")
        return self.functions[name]

    def _cells(self, core: Core, ident: int, setting: bool, op: Operation) -> list[tuple]:
        """Semaphore keys a set increments / a wait consumes: (block, direction, aiv, id)."""
        limit = SEMAPHORES if core.kind == "vector" or self.paired else 2 * SEMAPHORES
        if not 0 <= ident < limit:
            raise KernelError(f"semaphore id {ident} is out of range [0, {limit - 1}] on "
                              f"{core.name}", op=op.name)
        if core.kind == "vector":
            direction = "v2c" if setting else "c2v"
            return [(core.block, direction, core.sub, ident)]
        direction = "c2v" if setting else "v2c"
        if self.paired:
            return [(core.block, direction, aiv, ident) for aiv in (0, 1)]
        return [(core.block, direction, ident // SEMAPHORES, ident % SEMAPHORES)]

    def signal(self, core: Core, ident: int, op: Operation, pipe: str | None = None) -> None:
        """Set semaphore ``ident`` from ``core``; ``pipe``: the setting pipe when the op
        has none of its own (the tile pipes' flags)."""
        keys = self._cells(core, ident, True, op)
        for key in keys:
            value = self.count.get(key, 0) + 1
            if value > SEM_MAX:
                raise KernelError(f"semaphore {_describe(key)} overflows its 4-bit counter "
                                  f"(more than {SEM_MAX} sets without a wait)", op=op.name)
            self.count[key] = value
        if self.observer is not None:
            self.observer.sync_set(core, pipe or op.pipe(), keys, op)  # type: ignore[attr-defined]

    def wait(self, core: Core, ident: int, op: Operation, pipe: str | None = None
             ) -> Generator[Wait, None, None]:
        keys = self._cells(core, ident, False, op)
        while not all(self.count.get(k, 0) > 0 for k in keys):
            yield Wait(op, [(k, 1) for k in keys], ", ".join(_describe(k) for k in keys))
        for k in keys:
            self.count[k] -= 1
        if self.observer is not None:
            self.observer.sync_wait(core, pipe or op.pipe(), keys, op)  # type: ignore[attr-defined]

    def ready(self, wait: Wait) -> bool:
        if wait.poll is not None:
            return wait.poll()
        return all(self.count.get(k, 0) >= n for k, n in wait.cells)

    def syncall(self, ex: Executor, st: CoreState, op: Operation
                ) -> Generator[Wait, None, None]:
        """``pto.syncall`` (both targets' SyncAll.hpp / syncall_soft.hpp): PIPE_ALL barrier,
        then, on a participating core, the rendezvous; the others only drain."""
        core, mode, kind = st.core, op.mode(), op.core_type()  # type: ignore[attr-defined]
        if (mode, kind) in self.target.syncall_missing:
            raise TargetError(f"{mode} SYNCALL of core type {kind} does not exist on "
                              f"{self.target.name}", op=op.name)
        kinds = {"aiv_only": ("vector",), "aic_only": ("cube",), "mix": ("cube", "vector")}
        if kind == "mix" and {c.kind for c in self.cores} != {"cube", "vector"}:
            raise KernelError("a mix SYNCALL needs a mixed kernel (AIC and AIV cores): the "
                              "other side's handshake never comes", op=op.name)
        if self.observer is not None:
            self.observer.barrier(core, "PIPE_ALL", op)
        members = [c for c in self.cores if c.kind in kinds[kind]]
        if core.kind not in kinds[kind]:
            return
        if mode == "soft":
            yield from self._soft(ex, st, op, kind, len(members))
            return
        gen = self.generation.get((core.name, kind), 0)
        self.generation[(core.name, kind)] = gen + 1
        key = ("syncall", kind, gen)
        self.count[key] = self.count.get(key, 0) + 1
        if self.observer is not None:
            self.observer.rendezvous_arrive(core, key, op)
        while self.count[key] < len(members):
            yield Wait(op, [(key, len(members))], f"SYNCALL {kind} #{gen}",
                       says=f"the other {kind} cores: {self.count[key]} of {len(members)} "
                            f"arrived at SYNCALL #{gen}")
        if self.observer is not None:
            self.observer.rendezvous_leave(core, key, op)

    def _soft(self, ex: Executor, st: CoreState, op: Operation, kind: str, members: int
              ) -> Generator[Wait, None, None]:
        """Soft mode: one i32 counter at gm_workspace[0]; each participant adds 1 and polls
        until it reaches the end of its generation, (before // total + 1) * total."""
        value = st.env[op.gm_workspace]  # type: ignore[attr-defined]
        ptr = (value if isinstance(value, Ptr) else value.tensor.ptr).cast("i32")
        used = 0 if op.used_cores is None else int(st.env[op.used_cores])  # type: ignore[attr-defined]
        if used < 0:
            raise KernelError(f"used_cores = {used} is negative", op=op.name)
        blocks = len(ex.m.blocks)
        default = {"aiv_only": blocks, "aic_only": blocks, "mix": blocks * (1 + ex.subblocks)}
        total = used or default[kind]
        before = int(ex.m.read(ptr, 1)[0])
        ex.m.write(ptr, np.array([before + 1], np.int32))
        goal = (before // total + 1) * total
        key = ("syncall_soft", ptr.offset, goal)
        if self.observer is not None:
            self.observer.rendezvous_arrive(st.core, key, op)

        def count() -> int:
            return int(ex.m.read(ptr, 1)[0])
        while count() < goal:
            yield Wait(op, [], f"SYNCALL counter {ptr!r}",
                       says=f"the soft SYNCALL counter at {ptr!r} to reach {goal} (it holds "
                            f"{count()}; {total} participants per generation)",
                       poll=lambda: count() >= goal)
        if self.observer is not None:
            self.observer.rendezvous_leave(st.core, key, op)


def _describe(key: tuple) -> str:
    block, direction, aiv, ident = key
    arrow = f"aic->aiv{aiv}" if direction == "c2v" else f"aiv{aiv}->aic"
    return f"block{block} {arrow} #{ident}"


def launch(machine: MachineState, func: Operation, args: list[Any], cores: list[Core],
           executor: Executor, sync: SyncService) -> Executor:
    """Run ``func`` on every core in ``cores`` to completion (or a PtoError)."""
    executor.observer = sync.observer
    sync.cores = list(cores)
    executor.events = event_log(sync.observer)
    # sub-blocks per block of this launch: 2 for mixed kernels, 1 for vector-only ones
    executor.subblocks = max(1, sum(c.kind == "vector" and c.block == 0 for c in cores))
    states = [CoreState(core, machine.ctrl) for core in cores]   # the entry CTRL
    gens: list[Generator[Wait, None, Any] | None] = [
        executor.run_function(state, func, list(args)) for state in states]
    waiting: list[Wait | None] = [None] * len(cores)
    while True:
        runnable = [i for i, g in enumerate(gens)
                    if g is not None and (waiting[i] is None
                                             or sync.ready(waiting[i]))]  # type: ignore[arg-type]
        if not runnable:
            blocked = [i for i, g in enumerate(gens) if g is not None]
            if not blocked:
                return executor
            raise _deadlock(executor, [(cores[i], waiting[i]) for i in blocked])
        i = runnable[0]
        try:
            waiting[i] = next(gens[i])   # type: ignore[arg-type]
        except StopIteration:
            gens[i], waiting[i] = None, None
            block = cores[i].block
            if executor.release_blocks and not any(
                    g is not None and c.block == block for g, c in zip(gens, cores)):
                machine.release_block(block)
        except PtoError as err:
            if len(cores) > 1:             # say which core failed
                err.detail = f"{err.detail} [on {cores[i].name}]"
                err.args = (err._render(),)
            raise


def _deadlock(executor: Executor, blocked: list[tuple[Core, Wait | None]]) -> DeadlockError:
    lines = []
    first_loc = None
    for core, wait in blocked:
        assert wait is not None
        loc = executor.locate(wait.op)
        first_loc = first_loc or loc
        what = wait.says or f"semaphore {wait.what} (count 0)"
        lines.append(f"  {core.name} waits in {wait.op.name} at {loc or '?'} for {what}")
    head = "semaphore that no running core will set" if all(
        w is not None and w.says is None for _, w in blocked) else \
        "semaphore or SYNCALL that no running core will release"
    return DeadlockError("deadlock: every unfinished core is blocked on a cross-core "
                         f"{head}\n" + "\n".join(lines),
                         loc=first_loc)
