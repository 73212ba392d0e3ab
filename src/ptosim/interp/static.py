"""Static verification for `ptosim check`: every micro-op whose operands are all known
before running (constants, pointers cast from constants, kernel GM arguments) is checked
on a scratch machine, so its diagnostics are exactly the ones a run would give.

Operands that depend on loop variables or runtime scalars are left to the run-time checks.
"""

from __future__ import annotations

import warnings
from typing import Any, Callable

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue

import numpy as np

from ..api import Machine
from ..errors import OutOfBoundsError, PtoError, PtoWarning
from ..machine import GM_GUARD, Ptr
from .executor import VECTOR_OPS, Core, CoreState, Executor, _SIMPLE, _resolve, pointer_like
from .tiles import resolve

SCRATCH_GM = 1 << 30        # bytes of GM every kernel pointer argument may address
_FOLDABLE = {name for name in _SIMPLE if name.startswith("arith.")} | {
    "pto.castptr", "pto.addptr", "pto.make_tensor_view", "pto.partition_view",
    "pto.tile_buf_addr"}
_ONCE = frozenset({"pto.alloc_tile"})     # creates state: evaluate once, share the result


def check_kernel(module: ModuleOp, func: Operation, target: str,
                 locate: Callable[[Operation], str | None]) -> tuple[list[PtoError], list[str]]:
    """Errors and warnings (``loc: warning: text``) found without running the kernel."""
    m = _ScratchMachine(target)
    gm = m.scratch
    errors: list[PtoError] = []
    notes: list[str] = []
    ex = Executor(m, locate, sync=None)
    entry = func.regions[0].blocks.first
    assert entry is not None
    states = {kind: CoreState(Core(kind, 0, 0)) for kind in ("cube", "vector")}
    for st in states.values():
        for arg in entry.args:
            if pointer_like(arg.type):
                from ..frontend import ptr_info
                st.env[arg] = gm.cast(ptr_info(arg.type)[0])
    for op in func.walk():
        if op.name in _ONCE and _known(states["cube"].env, op.operands):
            try:
                out = _SIMPLE[op.name](ex, states["cube"], op)
            except PtoError as err:
                errors.append(_located(err, op, locate))
                continue
            for st in states.values():
                st.env[op.results[0]] = out[0]
            continue
        if hasattr(op, "TILE_METHOD") and _known(env := states["cube"].env, op.operands):
            pos, kw = op.tile_call()  # type: ignore[attr-defined]
            _verify_call(op, getattr(m, op.TILE_METHOD), resolve(_resolve(env, pos)), kw,
                         locate, errors, notes)
            continue
        method = getattr(op, "MACHINE_METHOD", None)
        kind = "vector" if method in VECTOR_OPS else "cube"
        st = states[kind]
        if op.name in _FOLDABLE and _known(st.env, op.operands):
            for other in states.values():       # fold into both cores' views
                try:
                    out = _SIMPLE[op.name](ex, other, op)
                except PtoError as err:
                    errors.append(_located(err, op, locate))
                    break
                except Exception:               # noqa: BLE001 - not foldable statically
                    break
                for res, value in zip(op.results, out or []):
                    other.env[res] = value
            continue
        if method is None or not _known(st.env, op.operands):
            continue
        pos, kw = op.python_call()  # type: ignore[attr-defined]
        _verify_call(op, getattr(m, method), _resolve(st.env, pos), _resolve(st.env, kw),
                     locate, errors, notes)
    return errors, notes


class _ScratchMachine(Machine):
    """A Machine whose kernel GM arguments all point into one virtual allocation of
    `SCRATCH_GM` bytes. Only the span of bytes the checked ops touch is backed by memory
    (grown on demand), so `check` needs memory in proportion to the kernel's accesses, not
    a 1 GiB array (whose address space alone broke `ulimit -v` limits)."""

    def __init__(self, target: str) -> None:
        super().__init__(target=target)
        self.scratch = self.gm_empty(0, "ui8")
        self._gm_next = self.scratch.offset + SCRATCH_GM + GM_GUARD   # keep the range free
        self._lo = 0
        self._store = np.zeros(0, np.uint8)     # backs scratch bytes [_lo, _lo + size)

    def region(self, ptr: Ptr, nbytes: int, *args: Any, **kwargs: Any
               ) -> tuple[np.ndarray, int]:
        base = self.scratch.offset
        if ptr.space != "gm" or not base <= ptr.offset < base + SCRATCH_GM:
            return super().region(ptr, nbytes, *args, **kwargs)
        start = ptr.offset - base
        if start + nbytes > SCRATCH_GM:
            raise OutOfBoundsError(
                f"{kwargs.get('operand') or 'pointer'} touches GM bytes [{ptr.offset:#x}, "
                f"{ptr.offset + nbytes:#x}) but its allocation is [{base:#x}, "
                f"{base + SCRATCH_GM:#x}) ({SCRATCH_GM} bytes)", op=kwargs.get("op"),
                operand=kwargs.get("operand"))
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
                 errors: list[PtoError], notes: list[str]) -> None:
    """Run one op on the scratch machine: its PtoError joins ``errors`` (located), its
    PtoWarnings join ``notes``."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", PtoWarning)
        try:
            call(*args, **kwargs)
        except PtoError as err:
            errors.append(_located(err, op, locate))
    notes.extend(f"{locate(op) or '?'}: warning: {w.message}" for w in caught
                 if issubclass(w.category, PtoWarning))


def _known(env: dict[SSAValue, Any], values: Any) -> bool:
    return all(v in env for v in values)


def _located(err: PtoError, op: Operation, locate: Callable[[Operation], str | None]
             ) -> PtoError:
    if err.loc is None and (loc := locate(op)) is not None:
        err.with_loc(loc)
    return err


__all__ = ["check_kernel"]
