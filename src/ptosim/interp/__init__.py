"""Interpreter: runs a parsed kernel module on a Machine (see executor and scheduler)."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import nullcontext
from typing import Any

from ..errors import PtoError, warning_sink
from ..events import event_log, ignore_access
from ..isa.alu import quiet_floats
from ..machine import MachineState
from ..mlir.builtin import ModuleOp, StringAttr
from ..mlir.ir import Operation
from .diagnostics import WarningLog
from .executor import Core, Executor
from .scheduler import SyncService, launch
from .structure import check_structure, is_declaration

KERNEL_ATTRS = ("pto.aicore", "pto.kernel")


class EntryError(PtoError):
    """The kernel function to launch cannot be chosen (unknown --entry, several kernels).
    ``candidates``: the functions one could choose (empty for an unknown --entry)."""

    candidates: tuple[str, ...] = ()


def functions(module: ModuleOp) -> dict[str, Operation]:
    """Every func.func of the module by symbol name."""
    out = {}
    for op in module.ops:
        if op.name == "func.func":
            out[op.properties["sym_name"].data] = op
    return out


def kernel_function(module: ModuleOp, entry: str | None = None) -> Operation:
    """The function to launch: ``entry``, or the module's only kernel function."""
    funcs = functions(module)
    if entry is not None:
        if entry not in funcs:
            raise EntryError(f"no function @{entry} in the module; functions: "
                           f"{', '.join('@' + f for f in funcs) or 'none'}")
        return funcs[entry]
    kernels = [f for f in funcs.values() if any(a in f.attributes for a in KERNEL_ATTRS)]
    if len(kernels) == 1:
        return kernels[0]
    entries = [f for f in funcs.values() if "pto.entry" in f.attributes]
    if not kernels and len(entries) == 1:   # PTOAS's entry marker (pipe kernels' callers)
        return entries[0]
    defined = [f for f in funcs.values() if not is_declaration(f)]   # not the callees'
    if not kernels and len(defined) == 1:                            # declarations
        return defined[0]
    void = [f for f in defined if not f.function_type.outputs.data]  # type: ignore[attr-defined]
    if not kernels and len(void) == 1:      # a function with results is a helper, not a
        return void[0]                      # kernel (kernels return void: check_structure)
    if not kernels and len(funcs) == 1:     # a lone declaration: check_structure says so
        return next(iter(funcs.values()))
    candidates = tuple(f.properties["sym_name"].data  # type: ignore[attr-defined]
                       for f in (kernels or funcs.values()))
    err = EntryError(f"the module has {len(candidates)} candidate kernel functions "
                     f"({', '.join('@' + c for c in candidates)}); choose one with --entry")
    err.candidates = candidates
    raise err


def kernel_kind(module: ModuleOp, func: Operation) -> str:
    """"cube", "vector" or "mixed": the module attribute, else inferred from the body."""
    attr = module.attributes.get("pto.kernel_kind")
    if attr is not None:
        text = str(attr)
        return "cube" if "cube" in text else "vector" if "vector" in text else "mixed"
    kinds = set()
    for op in func.walk():
        if op.name in ("pto.section.cube", "pto.section.vector"):
            return "mixed"
        spec = getattr(op, "SPEC", None)
        if spec is not None and spec.kind == "micro":
            kinds.add(spec.core_of(()))
        if op.name == "pto.alloc_tile":       # tile kernels: the tiles' roles decide
            from ..frontend import tile_info
            kinds.add("vector" if tile_info(op.results[0].type)["tile_type"] == "Vec"
                      else "cube")
    return kinds.pop() if len(kinds) == 1 else "mixed"


def target_of(module: ModuleOp) -> str | None:
    """The module's ``pto.target_arch`` attribute, if any."""
    attr = module.attributes.get("pto.target_arch")
    return attr.data if isinstance(attr, StringAttr) else None


def cores_for(kind: str, block_dim: int) -> list[Core]:
    """Cores of a launch: mixed kernels run on AIC + AIV0 + AIV1 of every block; vector
    kernels on AIV0 only (docs/semantics.md, "Launch")."""
    out = []
    for b in range(block_dim):
        if kind in ("cube", "mixed"):
            out.append(Core("cube", 0, b))
        if kind == "mixed":
            out += [Core("vector", 0, b), Core("vector", 1, b)]
        elif kind == "vector":
            out.append(Core("vector", 0, b))
    return out


def run_kernel(module: ModuleOp, machine: MachineState, args: list[Any], *,
               entry: str | None = None,
               locate: Callable[[Operation], str | None] = lambda op: None,
               progress: Callable[[int, float], None] | None = None,
               observer: Any = None, warnings: WarningLog | None = None,
               max_ops: int | None = None, release_blocks: bool = False) -> Executor:
    """Launch the kernel on every core of ``machine``'s blocks; returns the executor
    (``ops_executed`` counts ops run). ``observer`` (e.g. a HazardChecker) sees every
    buffer access, flag, barrier and semaphore; ``warnings`` collects the ops' warnings
    as located diagnostics (without it they are Python PtoWarnings). ``max_ops`` (None or
    0: no limit) stops the run with an ``OpBudgetError`` once that many ops have run, over
    all cores. ``release_blocks``: a block's on-chip buffers read as zeros again once its
    cores have ended (their pages go back to the OS: for callers that discard the
    machine)."""
    func = kernel_function(module, entry)
    funcs = functions(module)
    check_structure(funcs, func, locate)
    cores = cores_for(kernel_kind(module, func), len(machine.blocks))
    sync = SyncService(machine.target, funcs)
    sync.observer = observer
    machine.access_hook = observer.access if observer is not None else None
    if event_log(observer) is not None:     # the executor logs each op's accesses itself
        machine.access_hook = ignore_access
    executor = Executor(machine, locate, sync, progress, max_ops)
    executor.warnings = warnings
    executor.print_cores = len(cores)
    executor.release_blocks = release_blocks
    try:
        with warning_sink(warnings) if warnings is not None else nullcontext(), \
                quiet_floats():
            return launch(machine, func, args, cores, executor, sync)
    finally:
        machine.access_hook = None
        machine.access_log = None
        executor.flush_prints()


__all__ = ["run_kernel", "kernel_function", "EntryError", "kernel_kind", "target_of", "functions",
           "cores_for", "Core", "check_structure"]
