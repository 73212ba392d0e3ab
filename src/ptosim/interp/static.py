"""Static verification for `ptosim check`: every micro-op whose operands are all known
before running (constants, pointers cast from constants, kernel GM arguments) is checked
on a scratch machine, so its diagnostics are exactly the ones a run would give.

Operands that depend on loop variables or runtime scalars are left to the run-time checks.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..api import Machine
from ..errors import OutOfBoundsError, PtoError, VerifyError, warning_sink
from ..machine import GM_GUARD, Ptr
from ..mlir.builtin import ModuleOp
from ..mlir.ir import Operation, SSAValue
from .diagnostics import Diagnostic, WarningLog
from .executor import _SIMPLE, Core, CoreState, Executor, _resolve, pointer_like
from .overlap import TileOverlap
from .pipe_rules import pipe_init_problems
from .tiles import memref_operands, tile_op_args

SCRATCH_GM = 1 << 30        # bytes of GM every kernel pointer argument may address
_FOLDABLE = {name for name in _SIMPLE if name.startswith("arith.")} | {
    "pto.castptr", "pto.addptr", "pto.make_tensor_view", "pto.partition_view",
    "pto.tile_buf_addr", "pto.treshape", "pto.subview", "pto.set_validshape",
    "pto.get_validshape", "pto.tassign", "pto.tile_valid_rows", "pto.tile_valid_cols",
    "pto.get_tensor_view_dim", "pto.get_tensor_view_stride", "pto.tensor_view_addr"}
_ONCE = frozenset({"pto.alloc_tile"})     # creates state: evaluate once, share the result


@dataclass
class CheckResult:
    """What `check_kernel` found: located errors and warnings, and how many ops with
    operand rules it verified or had to leave to run time (their operands depend on loop
    variables or scalar arguments)."""

    errors: list[PtoError] = field(default_factory=list)
    warnings: list[Diagnostic] = field(default_factory=list)
    verified: int = 0
    skipped: int = 0
    # GM bytes the verified ops touch through each pointer parameter (by position): from
    # the parameter's address to the end of the last byte read or written
    extents: dict[int, int] = field(default_factory=dict)


def check_kernel(module: ModuleOp, func: Operation, target: str,
                 locate: Callable[[Operation], str | None],
                 scalars: dict[int, Any] | None = None) -> CheckResult:
    """Verify every op whose operands are known without running the kernel; ``scalars``
    binds scalar parameters (by position) so the ops that depend on them are known too."""
    from ..frontend import ptr_info
    entry = func.regions[0].blocks.first
    assert entry is not None
    pointers = [i for i, arg in enumerate(entry.args) if pointer_like(arg.type)]
    m = _ScratchMachine(target, len(pointers))
    result = CheckResult()
    log = WarningLog(locate)
    ex = Executor(m, locate, sync=None)
    states = {kind: CoreState(Core(kind, 0, 0), m.ctrl) for kind in ("cube", "vector")}
    for st in states.values():
        for slot, i in enumerate(pointers):
            arg = entry.args[i]
            st.env[arg] = (m.scratch + slot * SCRATCH_GM).cast(ptr_info(arg.type)[0])
        for i, value in (scalars or {}).items():
            st.env[entry.args[i]] = value
    overlap = TileOverlap(locate, log)
    from . import functions
    for bad, message in pipe_init_problems(functions(module), m.target):   # module-wide
        result.errors.append(VerifyError(message, op=bad.name, loc=locate(bad)))
    block = None
    # the scratch machine's TPRINT output is not the kernel's: checking prints nothing
    with warning_sink(log), contextlib.redirect_stdout(io.StringIO()):
        for op in func.walk():
            log.current = op
            if op.parent is not block:      # writes over unread bytes: within one block
                block = op.parent
                overlap.forget()
            _check_op(op, m, ex, states, result, locate, overlap)
    result.warnings = log.diagnostics
    result.extents = {pointers[slot]: end for slot, end in sorted(m.extents.items())}
    return result


def _check_op(op: Operation, m: Machine, ex: Executor, states: dict[str, CoreState],
              result: CheckResult, locate: Callable[[Operation], str | None],
              overlap: TileOverlap) -> None:
    cube_env = states["cube"].env
    if op.name in _ONCE:
        if not _known(cube_env, op.operands):
            result.skipped += 1
            return
        result.verified += 1
        try:
            out = _SIMPLE[op.name](ex, states["cube"], op)
        except PtoError as err:
            result.errors.append(_located(err, op, locate))
            return
        for st in states.values():
            st.env[op.results[0]] = out[0]
        return
    spec = getattr(op, "SPEC", None)
    if spec is not None and spec.kind == "tile":
        pos, kw = op.tile_call()  # type: ignore[attr-defined]
        if not _known(cube_env, op.operands):
            result.skipped += 1
            return
        args = tile_op_args(m, _resolve(cube_env, pos), memref_operands(pos, op))
        pairs = list(zip(pos, args))
        if (acc_in := getattr(op, "acc_in", None)) is not None:
            pairs.append((acc_in, cube_env[acc_in]))
        overlap.op(op, pairs)
        method = getattr(op, "tile_method", None)     # e.g. a tmov with fp: TMOV_FP
        name = method() if method is not None else None
        _verify_call(op, getattr(m, name or spec.method), args, _resolve(cube_env, kw),
                     locate, result)
        return
    method = spec.method if spec is not None and spec.kind == "micro" else None
    st = states["vector" if spec is not None and spec.core_of(()) == "vector" else "cube"]
    if op.name in _FOLDABLE and _known(st.env, op.operands):
        for other in states.values():       # fold into both cores' views
            try:
                out = _SIMPLE[op.name](ex, other, op)
            except PtoError as err:
                result.errors.append(_located(err, op, locate))
                break
            except Exception:               # noqa: BLE001 - not foldable statically
                break
            for res, value in zip(op.results, out or []):
                other.env[res] = value
        return
    if method is None:
        return
    if not _known(st.env, op.operands):
        result.skipped += 1
        return
    try:
        call = getattr(m, method)
    except PtoError as err:                 # an op ptosim does not implement yet
        result.errors.append(_located(err, op, locate))
        return
    pos, kw = op.python_call()  # type: ignore[attr-defined]
    _verify_call(op, call, _resolve(st.env, pos), _resolve(st.env, kw), locate, result)


class _ScratchMachine(Machine):
    """A Machine whose kernel GM arguments each point into a virtual allocation of
    `SCRATCH_GM` bytes (one slot per pointer parameter, so the bytes each parameter's ops
    touch are known: ``extents``). Only the span of bytes the checked ops touch is backed
    by memory (grown on demand), so `check` needs memory in proportion to the kernel's
    accesses, not a 1 GiB array (whose address space alone broke `ulimit -v` limits)."""

    def __init__(self, target: str, slots: int = 1) -> None:
        super().__init__(target=target)
        self.scratch = self.gm_empty(0, "ui8")
        self._slots = max(slots, 1)
        self._gm_next = self.scratch.offset + self._slots * SCRATCH_GM + GM_GUARD  # kept free
        self._lo = 0
        self._store = np.zeros(0, np.uint8)     # backs scratch bytes [_lo, _lo + size)
        self.extents: dict[int, int] = {}       # slot -> end of the bytes touched in it

    def _region(self, ptr: Ptr, nbytes: int, *args: Any, **kwargs: Any
               ) -> tuple[np.ndarray, int]:
        base = self.scratch.offset
        if ptr.space != "gm" or not base <= ptr.offset < base + self._slots * SCRATCH_GM:
            return super()._region(ptr, nbytes, *args, **kwargs)
        start = ptr.offset - base
        slot, inside = divmod(start, SCRATCH_GM)
        if inside + nbytes > SCRATCH_GM:
            lo = base + slot * SCRATCH_GM
            raise OutOfBoundsError(
                f"{kwargs.get('operand') or 'pointer'} touches GM bytes [{ptr.offset:#x}, "
                f"{ptr.offset + nbytes:#x}) but its allocation is [{lo:#x}, "
                f"{lo + SCRATCH_GM:#x}) ({SCRATCH_GM} bytes)", op=kwargs.get("op"),
                operand=kwargs.get("operand"))
        if nbytes > 0:
            self.extents[slot] = max(self.extents.get(slot, 0), inside + nbytes)
        lo, hi = self._lo, self._lo + self._store.size
        if self._store.size == 0:
            lo, hi = start, start
        if start < lo or start + nbytes > hi:
            new_lo, new_hi = min(lo, start), max(hi, start + nbytes)
            if new_hi - new_lo > max(4 * (hi - lo + nbytes), _SPAN):
                # far from the bytes touched so far: a window of its own, not kept (the
                # checks look at addresses, not at what earlier ops left in GM)
                return _zeros(nbytes, kwargs.get("op")), 0
            store = _zeros(new_hi - new_lo, kwargs.get("op"))
            store[lo - new_lo:hi - new_lo] = self._store
            self._lo, self._store = new_lo, store
        return self._store, start - self._lo


_SPAN = 16 << 20     # bytes the scratch span may always grow to


def _zeros(nbytes: int, op: str | None) -> np.ndarray:
    try:
        return np.zeros(nbytes, np.uint8)
    except MemoryError:
        raise PtoError(f"the op touches {nbytes} bytes of GM, more than `check` can "
                       f"allocate here", op=op) from None


def _verify_call(op: Operation, call: Callable[..., Any], args: list[Any],
                 kwargs: dict[str, Any], locate: Callable[[Operation], str | None],
                 result: CheckResult) -> None:
    """Run one op on the scratch machine; its PtoError joins the result, located."""
    if _unresolved((args, kwargs)):      # never hand an IR value to an op's rules
        result.skipped += 1
        return
    result.verified += 1
    try:
        call(*args, **kwargs)
    except PtoError as err:
        result.errors.append(_located(err, op, locate))


def _unresolved(x: Any) -> bool:
    if isinstance(x, SSAValue):
        return True
    if isinstance(x, (tuple, list)):
        return any(_unresolved(y) for y in x)
    if isinstance(x, dict):
        return any(_unresolved(y) for y in x.values())
    return False


def _known(env: dict[SSAValue, Any], values: Any) -> bool:
    return all(v in env for v in values)


def _located(err: PtoError, op: Operation, locate: Callable[[Operation], str | None]
             ) -> PtoError:
    if err.loc is None and (loc := locate(op)) is not None:
        err.with_loc(loc)
    return err


__all__ = ["check_kernel", "CheckResult"]
