"""Runs one core's copy of a kernel function: func / arith / scf and the pto ops.

Each core executes as a generator: it runs ops in program order and yields only when a
cross-core `pto.sync.wait` cannot proceed yet, so the scheduler can interleave cores
deterministically. Micro-ops and tile ops are dispatched to the Machine method their
registry entry names (``op.SPEC.method``) with the arguments of ``python_call()`` /
``tile_call()`` (the Python face), so a kernel and a Python script run the very same op
code; the spec also gives the issuing core and the pipe.
"""

from __future__ import annotations

import dataclasses
import functools
import operator
import sys
import time
import weakref
from collections.abc import Callable, Generator, Iterable
from dataclasses import dataclass, field
from typing import Any, NoReturn

import ml_dtypes
import numpy as np

from ..dtypes import dtype as _dtype
from ..errors import DeadlockError, PtoError, VerifyError, warn
from ..events import BEGIN, FLUSH_AT, SET_FLAG, WAIT_FLAG
from ..isa import OpSpec
from ..isa.table import GENERATED
from ..machine import MachineState, Ptr
from ..mlir.builtin import (
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
)
from ..mlir.ir import Block, BlockArgument, Operation, OpResult, Region, SSAValue
from ..targets import canonical_space
from . import pipes
from .overlap import TileOverlap
from .tiles import Memref, alloc_tile, make_view, memref_operands, partition, tile_op_args


@dataclass(frozen=True)
class Core:
    """One core of a launch: the cube core (AIC) or vector sub-block ``sub`` (AIV0/1)."""

    kind: str          # "cube" or "vector"
    sub: int
    block: int

    @functools.cached_property
    def name(self) -> str:          # the observers ask on every op
        unit = "aic" if self.kind == "cube" else f"aiv{self.sub}"
        return f"block{self.block}.{unit}"


@dataclass
class Wait:
    """Yielded by a core that cannot pass a `pto.sync.wait` yet."""

    op: Operation
    cells: list[tuple[tuple, int]]       # semaphore keys the wait needs (key, amount)
    what: str                            # readable semaphore description
    # a SYNCALL's wait: what it waits for (the deadlock report) and, for a soft one, the
    # GM counter test that releases it (instead of ``cells``)
    says: str | None = None
    poll: Callable[[], bool] | None = None


@dataclass
class CoreState:
    core: Core
    ctrl: int = 0              # the launch passes the Machine's entry CTRL
    env: dict[SSAValue, Any] = field(default_factory=dict)
    regs: dict[str, tuple[int, ...]] = field(default_factory=dict)   # special registers
    # set_flag counts not yet consumed by a wait_flag, by (src pipe, dst pipe, event)
    flags: dict[tuple[str, str, str], int] = field(default_factory=dict)
    # an event-log observer's handles for the ops this core ran (see `ptosim.events`)
    handles: dict[Operation, Any] = field(default_factory=dict)


@functools.cache
def pipe_name(text: str) -> str:
    """``PIPE_MTE2`` / ``#pto.pipe<PIPE_MTE2>`` / ``MTE2`` -> ``MTE2``."""
    return text.split("<")[-1].rstrip(">").removeprefix("PIPE_")


class KernelError(PtoError):
    """A runtime failure inside a kernel that is not an op's own rule (e.g. divide by 0)."""


class OpBudgetError(KernelError):
    """The run executed more ops than its budget (``max_ops``; the CLI's ``--max-ops``).

    Raised where the budget runs out; the innermost ``scf.for`` still running takes it over
    (``op`` "scf.for", its iteration, and its location), so the message names the loop."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.in_loop = False
        self._spent = (f"the budget of {limit:,} ops (max_ops, --max-ops) is spent; raise "
                       f"it, or pass --max-ops 0 for no limit")
        super().__init__(self._spent)

    def in_for(self, i: int, lb: int, ub: int, step: int) -> None:
        """Name the innermost loop that was still running (called once, by ``_scf_for``)."""
        self.in_loop = True
        self.op = "scf.for"
        self.loc = None                 # re-located at the loop by the enclosing run_block
        self.detail = (f"still running at iteration {i} of [{lb}, {ub}) step {step} when "
                       f"{self._spent}")
        self.args = (self._render(),)


def _int_width(t: object) -> int:
    if isinstance(t, IndexType):
        return 64
    if isinstance(t, IntegerType):
        return t.width.data
    raise KernelError(f"expected an integer or index type, got {t}")


def wrap(value: int, width: int) -> int:
    """Two's-complement wrap to ``width`` bits, read as signed (i1 reads as 0/1)."""
    if width == 1:
        return value & 1
    value &= (1 << width) - 1
    return value - (1 << width) if value >> (width - 1) else value


def _unsigned(value: int, width: int) -> int:
    return value & ((1 << width) - 1)


def _round_float(value: float, t: object) -> float:
    name = str(t)
    if name == "f32":
        return float(np.float32(value))
    if name == "f16":
        return float(np.float16(value))
    return float(value)


def _cdiv(a: int, b: int) -> int:
    return -(-a // b)


def _tdiv(a: int, b: int) -> int:
    """C-style division truncating toward zero."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _trem(a: int, b: int) -> int:
    return a - _tdiv(a, b) * b


_INT_BIN: dict[str, Callable[[int, int, int], int]] = {
    "arith.addi": lambda a, b, w: a + b,
    "arith.subi": lambda a, b, w: a - b,
    "arith.muli": lambda a, b, w: a * b,
    "arith.divsi": lambda a, b, w: _tdiv(a, b),
    "arith.divui": lambda a, b, w: _unsigned(a, w) // _unsigned(b, w),
    "arith.remsi": lambda a, b, w: _trem(a, b),
    "arith.remui": lambda a, b, w: _unsigned(a, w) % _unsigned(b, w),
    "arith.ceildivsi": lambda a, b, w: _cdiv(a, b),
    "arith.ceildivui": lambda a, b, w: _cdiv(_unsigned(a, w), _unsigned(b, w)),
    "arith.floordivsi": lambda a, b, w: a // b,
    "arith.andi": lambda a, b, w: a & b,
    "arith.ori": lambda a, b, w: a | b,
    "arith.xori": lambda a, b, w: a ^ b,
    "arith.shli": lambda a, b, w: a << b if 0 <= b < w else 0,
    "arith.shrsi": lambda a, b, w: a >> min(b, w - 1),
    "arith.shrui": lambda a, b, w: _unsigned(a, w) >> b if b < w else 0,
    "arith.maxsi": lambda a, b, w: max(a, b),
    "arith.minsi": lambda a, b, w: min(a, b),
    "arith.maxui": lambda a, b, w: max(_unsigned(a, w), _unsigned(b, w)),
    "arith.minui": lambda a, b, w: min(_unsigned(a, w), _unsigned(b, w)),
}
_DIVIDES = frozenset({"arith.divsi", "arith.divui", "arith.remsi", "arith.remui",
                      "arith.ceildivsi", "arith.ceildivui", "arith.floordivsi"})

_FLOAT_BIN: dict[str, Callable[[float, float], float]] = {
    "arith.addf": operator.add, "arith.subf": operator.sub, "arith.mulf": operator.mul,
    "arith.divf": lambda a, b: float(np.float64(a) / np.float64(b)),
    "arith.maximumf": lambda a, b: float(np.maximum(a, b)),
    "arith.minimumf": lambda a, b: float(np.minimum(a, b)),
    "arith.maxnumf": lambda a, b: float(np.fmax(a, b)),
    "arith.minnumf": lambda a, b: float(np.fmin(a, b)),
}

_CMPI = {
    "eq": lambda a, b, w: a == b, "ne": lambda a, b, w: a != b,
    "slt": lambda a, b, w: a < b, "sle": lambda a, b, w: a <= b,
    "sgt": lambda a, b, w: a > b, "sge": lambda a, b, w: a >= b,
    "ult": lambda a, b, w: _unsigned(a, w) < _unsigned(b, w),
    "ule": lambda a, b, w: _unsigned(a, w) <= _unsigned(b, w),
    "ugt": lambda a, b, w: _unsigned(a, w) > _unsigned(b, w),
    "uge": lambda a, b, w: _unsigned(a, w) >= _unsigned(b, w),
}
_CMPI_BY_INDEX = ["eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"]
_CMPF = {
    "oeq": operator.eq, "ogt": operator.gt, "oge": operator.ge, "olt": operator.lt,
    "ole": operator.le, "one": lambda a, b: a != b and a == a and b == b,
    "ueq": lambda a, b: a == b or a != a or b != b, "une": operator.ne,
    "ugt": lambda a, b: not a <= b, "uge": lambda a, b: not a < b,
    "ult": lambda a, b: not a >= b, "ule": lambda a, b: not a > b,
    "ord": lambda a, b: a == a and b == b, "uno": lambda a, b: a != a or b != b,
    "true": lambda a, b: True, "false": lambda a, b: False,
}
_CMPF_BY_INDEX = ["false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt",
                  "uge", "ult", "ule", "une", "uno", "true"]


def _attr(op: Operation, name: str) -> Any:
    """A property or attribute by name (attributes like IntegerAttr(0) are falsy)."""
    value = op.properties.get(name)
    return op.attributes.get(name) if value is None else value


def _predicate(op: Operation, names: list[str]) -> str:
    pred = _attr(op, "predicate")
    value = getattr(pred, "value", pred)
    return names[int(getattr(value, "data", value))]


class Executor:
    """Executes functions of a parsed module for one core at a time (see module doc)."""

    def __init__(self, machine: MachineState, locate: Callable[[Operation], str | None],
                 sync: Any, progress: Callable[[int, float], None] | None = None,
                 max_ops: int | None = None) -> None:
        self.m = machine
        self.locate = locate
        self.sync = sync            # the scheduler's semaphore service
        self.ops_executed = 0
        self.progress = progress    # called every 4096 ops with (ops, seconds)
        self.max_ops = max_ops or None      # None or 0: no budget
        # one comparison per op: the next op count at which progress or the budget is due
        self._next_check = min(4096, self.max_ops + 1 if self.max_ops else 4096)
        self.started = time.perf_counter()
        self.observer: Any = None   # a HazardChecker (or anything with its event methods)
        # the observer's event log (`ptosim.events`) when it takes its frequent events so
        self.events: list[tuple] | None = None
        self.warnings: Any = None   # a WarningLog told which op runs, when one collects
        self._overlap: TileOverlap | None = None     # see `interp.overlap`, with warnings
        # Each op's call shape (python_call / tile_call: operands as SSA values, decoded
        # from the IR's operand segments), built on the op's first run: the IR does not
        # change during a run, and decoding it was half the cost of a small DMA op.
        # Simple handlers keep their own decoded operands here too.
        self._calls: dict[Operation, Any] = {}
        self._extras: dict[Operation, tuple[str | None, str | None, bool]] = {}
        # the byte address each pto.alloc_tile without addr got when it first ran
        self.tile_addrs: dict[Operation, int] = {}
        self._memref_views: dict[Operation, list[Memref]] = {}
        self._direct: dict[Operation, Any] = {}     # _vector_op's plans
        self._plans: dict[Block, tuple[list[Step], bool]] = {}   # see `_compile`
        self._waiting: dict[Operation, bool] = {}
        self.subblocks = 2          # vector sub-blocks per block in this launch
        # the machine is discarded after the run: give each block's on-chip pages back
        # when its last core ends (`MachineState.release_block`)
        self.release_blocks = False
        # pto.print: with more than one core in the launch each output line is prefixed
        # with its core; a core's line not yet ended waits here (`flush_prints`)
        self.print_cores = 1
        self._print_pending: dict[str, str] = {}

    def flush_prints(self) -> None:
        """End every core's unfinished pto.print line (at the end of a run, also a failed
        one)."""
        pending, self._print_pending = self._print_pending, {}
        if pending:
            sys.stdout.write("".join(f"[{name}] {rest}\n" for name, rest in pending.items()))
            sys.stdout.flush()

    # --- entry points -------------------------------------------------------------------
    def run_function(self, state: CoreState, func: Operation, args: list[Any]
                     ) -> Generator[Wait, None, list[Any]]:
        block = func.regions[0].blocks.first
        assert block is not None
        for arg, value in zip(block.args, args):
            state.env[arg] = value
        return (yield from self.run_block(state, block))

    def run_block(self, state: CoreState, block: Block) -> Generator[Wait, None, list[Any]]:
        """Run ``block``'s ops; returns the values of its terminator (yield / return)."""
        plan = self._plans.get(block)
        if plan is None:
            plan = self._compile(block)
        steps, waits = plan
        if not waits:       # nothing inside can suspend: no generator per nested block
            return self._run_plain(state, steps)
        env = state.env
        for op, fast, gen, plain, term in steps:
            self.ops_executed += 1
            try:
                if self.ops_executed >= self._next_check:
                    self._tick()        # may raise OpBudgetError, located at this op
                if fast is not None:
                    fast(state)
                    continue
                if term is not None:
                    return [env[v] for v in term]
                if plain is not None and not self._waits(op):
                    out = plain(self, state, op)
                else:
                    assert gen is not None
                    out = yield from gen(self, state, op)
            except Exception as err:        # noqa: BLE001 - `_failed` sorts them
                self._failed(op, err)
            if out is not None:
                for res, value in zip(op.results, out):
                    env[res] = value
        return []

    def _run_plain(self, state: CoreState, steps: list[Step]) -> list[Any]:
        """`run_block` for a block in which nothing can wait: an ordinary call."""
        env = state.env
        for op, fast, _gen, plain, term in steps:
            self.ops_executed += 1
            try:
                if self.ops_executed >= self._next_check:
                    self._tick()
                if fast is not None:
                    fast(state)
                    continue
                if term is not None:
                    return [env[v] for v in term]
                assert plain is not None        # every control op that cannot wait has one
                out = plain(self, state, op)
            except Exception as err:        # noqa: BLE001 - `_failed` sorts them
                self._failed(op, err)
            if out is not None:
                for res, value in zip(op.results, out):
                    env[res] = value
        return []

    def _failed(self, op: Operation, err: Exception) -> NoReturn:
        """Re-raise what escaped ``op``: a PtoError located at the op, a Python error a
        kernel can cause (division by zero, a bad cast ...) as a located KernelError."""
        if isinstance(err, PtoError):
            if err.loc is None and (loc := self.locate(op)) is not None:
                err.with_loc(loc)
            raise err
        if isinstance(err, (ArithmeticError, ValueError, TypeError, IndexError, KeyError)):
            raise KernelError(f"{op.name}: {type(err).__name__}: {err}",
                              loc=self.locate(op)) from None
        raise err

    def _compile(self, block: Block) -> tuple[list[Step], bool]:
        """Decode ``block`` once: per op a prebuilt step (see `Step`), and whether any op
        in it can suspend the core (a cross-core wait, directly or in a nested region)."""
        steps: list[Step] = []
        waits = False
        for op in block.ops:
            name = op.name
            if name == "scf.yield" or name == "func.return":
                steps.append((op, None, None, None, tuple(op.operands)))
                continue
            fast = _step(self, op)
            if fast is not None:
                steps.append((op, fast, None, None, None))
                continue
            gen = _CONTROL.get(name)
            if gen is None:
                steps.append((op, _unknown(name), None, None, None))
                continue
            waits = waits or self._waits(op)
            steps.append((op, None, gen, _PLAIN.get(name), None))
        plan = self._plans[block] = (steps, waits)
        return plan

    def _waits(self, op: Operation) -> bool:
        """Whether ``op`` can suspend its core: a cross-core wait or a call (whose callee
        may wait), or a region holding one."""
        known = self._waiting.get(op)
        if known is None:
            known = op.name in _SUSPENDS or any(
                self._block_waits(b) for region in op.regions for b in region.blocks)
            self._waiting[op] = known
        return known

    def _block_waits(self, block: Block) -> bool:
        plan = self._plans.get(block)
        return (plan if plan is not None else self._compile(block))[1]

    def _tick(self) -> None:
        """Every 4096 ops: report progress; at ``max_ops + 1`` ops: stop the run."""
        n = self.ops_executed
        if self.max_ops is not None and n > self.max_ops:
            raise OpBudgetError(self.max_ops)
        if not n & 0xFFF and self.progress is not None:
            self.progress(n, time.perf_counter() - self.started)
        nxt = (n | 0xFFF) + 1
        self._next_check = min(nxt, self.max_ops + 1) if self.max_ops is not None else nxt

    def run_region(self, state: CoreState, region: Region, args: Iterable[Any] = ()
                   ) -> Generator[Wait, None, list[Any]]:
        block = region.blocks.first
        if block is None:
            return []
        for arg, value in zip(block.args, args):
            state.env[arg] = value
        return (yield from self.run_block(state, block))

    # --- micro-ops and tile ops ----------------------------------------------------------
    @staticmethod
    def _require_core(state: CoreState, op: Operation, what: str, want: str) -> None:
        """Reject an op issued on a core kind that cannot run it (``want``)."""
        if want != "any" and state.core.kind != want:
            where = "vector cores (AIV)" if want == "vector" else "cube core (AIC)"
            raise KernelError(f"{what} runs on the {where}, not on {state.core.name}; put it "
                              f"in pto.section.{want}", op=op.name)

    def _invoke(self, state: CoreState, op: Operation, spec: OpSpec, args: list[Any],
                kwargs: dict[str, Any], before: Callable[[], None] | None = None,
                call: Callable[..., Any] | None = None) -> list[Any] | None:
        """Call the op's Machine method (``call`` when the caller looked it up already;
        after ``before``, part of the same op), bracketed by the observer's begin/end when
        one watches; returns the op's result values."""
        if call is None:
            call = getattr(self.m, spec.method)  # type: ignore[arg-type]
        if self.warnings is not None:
            self.warnings.current = op
        self.m.ctrl = state.ctrl        # mad / FIXPIPE (also under tile ops) read this core's CTRL
        self.m.regs = state.regs        # and its other special registers
        obs = self.observer
        if obs is None:
            if before is not None:
                before()
            value = call(*args, **kwargs)
        elif self.events is not None:
            events = self.events
            events.append((BEGIN, state.core, op, spec,
                           spec.pipe_of(args, self.m.target)))
            if len(events) >= FLUSH_AT:
                obs.flush()
            self.m.access_log = events      # the op's accesses; its end needs no entry
            try:
                if before is not None:
                    before()
                value = call(*args, **kwargs)
            finally:
                self.m.access_log = None
        else:
            obs.begin_op(state.core, op, spec, args, spec.pipe_of(args, self.m.target),
                         kwargs)
            try:
                if before is not None:
                    before()
                value = call(*args, **kwargs)
            finally:
                obs.end_op()
        if not op.results:
            return None
        return list(value) if isinstance(value, tuple) else [value]

    def _micro(self, state: CoreState, op: Operation, spec: OpSpec) -> list[Any] | None:
        self._require_core(state, op, spec.name, spec.core_of(()))
        call = self._calls.get(op)
        if call is None:
            call = self._calls[op] = op.python_call()  # type: ignore[attr-defined]
        pos, kw = call
        env = state.env
        args = [_resolve(env, a) for a in pos]
        kwargs = {k: _resolve(env, v) for k, v in kw.items()}
        return self._invoke(state, op, spec, args, kwargs)

    def _tile_op(self, state: CoreState, op: Operation, spec: OpSpec) -> list[Any] | None:
        """A tile op: resolve views, check it runs on the core that owns its tiles, call
        the Machine's tile method (under the hazard checker when one observes)."""
        call = self._calls.get(op)
        if call is None:
            call = self._calls[op] = op.tile_call()  # type: ignore[attr-defined]
        pos, kw = call
        memrefs = self._memref_views.get(op)
        if memrefs is None:
            memrefs = self._memref_views[op] = memref_operands(pos, op)
        args = tile_op_args(self.m, [_resolve(state.env, a) for a in pos], memrefs)
        self._require_core(state, op, f"{spec.method} on these tiles", spec.core_of(args))
        acc_in = getattr(op, "acc_in", None)
        if self.warnings is not None:       # tiles of different allocations sharing bytes
            if self._overlap is None:
                self._overlap = TileOverlap(self.locate, self.warnings)
            self.warnings.current = op
            pairs = list(zip(pos, args))
            if acc_in is not None:
                pairs.append((acc_in, state.env[acc_in]))
            self._overlap.op(op, pairs)
        before: Callable[[], None] | None = None
        extra = self._extras.get(op)
        if extra is None:
            extra = self._extras[op] = _tile_extras(op, kw)
        note, method, kw_ssa = extra
        if note is not None:            # text clauses the op runs without
            before = functools.partial(warn, note)
        if kw_ssa:                      # a keyword that is an SSA value (a scalar operand)
            kw = _resolve(state.env, kw)
        if acc_in is not None and state.env[acc_in] is not args[0]:
            src, dst = state.env[acc_in], args[0]      # accumulate from another tile: copy it,

            def copy() -> None:                         # as part of the op (hazards see R, W)
                self.m.write(dst.ptr.cast("ui8"), self.m.read(src.ptr.cast("ui8"), src.nbytes))
            before = copy
        return self._invoke(state, op, spec, args, kw, before,
                            getattr(self.m, method) if method is not None else None)


def _tile_extras(op: Operation, kw: dict[str, Any]) -> tuple[str | None, str | None, bool]:
    """Once per tile op: the warning of text clauses it runs without (``op.dropped()``),
    another Machine method than its SPEC's (``op.tile_method()``, e.g. a tmov with an fp
    operand runs TMOV_FP) and whether a keyword holds an SSA value."""
    dropped = getattr(op, "dropped", None)
    method = getattr(op, "tile_method", None)
    return (dropped() if dropped is not None else None,
            method() if method is not None else None,
            any(isinstance(v, SSAValue) for v in kw.values()))


def _resolve(env: dict[SSAValue, Any], x: Any) -> Any:
    """Replace SSA values by their runtime values inside clause tuples and lists (exact
    type tests: SSAValue's isinstance goes through the ABC machinery, on every operand)."""
    t = type(x)
    if t is OpResult or t is BlockArgument:
        return env[x]
    if t is tuple:
        return tuple([_resolve(env, y) for y in x])
    if t is list:
        return [_resolve(env, y) for y in x]
    if t is dict:
        return {k: _resolve(env, y) for k, y in x.items()}
    if isinstance(x, SSAValue):
        return env[x]
    return x


# --- simple (non-yielding) handlers -----------------------------------------------------
def _constant(ex: Executor, st: CoreState, op: Operation) -> list[Any]:
    attr = _attr(op, "value")
    t = op.results[0].type
    if isinstance(attr, IntegerAttr):
        return [wrap(attr.value.data, _int_width(t))]
    if isinstance(attr, FloatAttr):
        return [_round_float(attr.value.data, t)]
    if isinstance(attr, DenseIntOrFPElementsAttr):     # a vector<NxT> constant (the executed
        return [np.array(attr.get_values())]           # counts operand of pto.tmrgsort)
    raise KernelError(f"arith.constant: unsupported constant {attr}")


def _int_binary(ex: Executor, st: CoreState, op: Operation) -> list[Any]:
    plan = ex._calls.get(op)
    if plan is None:        # operands, width, function and zero check, decoded once
        plan = ex._calls[op] = (tuple(op.operands), _int_width(op.results[0].type),
                                _INT_BIN[op.name], op.name in _DIVIDES)
    (x, y), w, fn, divides = plan
    env = st.env
    a, b = env[x], env[y]
    if divides and b == 0:
        raise KernelError(f"{op.name}: division by zero")
    return [wrap(fn(a, b, w), w)]


def _float_binary(ex: Executor, st: CoreState, op: Operation) -> list[Any]:
    a, b = (st.env[v] for v in op.operands)
    with np.errstate(all="ignore"):
        return [_round_float(_FLOAT_BIN[op.name](a, b), op.results[0].type)]


def _cmpi(ex: Executor, st: CoreState, op: Operation) -> list[Any]:
    a, b = (st.env[v] for v in op.operands)
    return [int(_CMPI[_predicate(op, _CMPI_BY_INDEX)](a, b, _int_width(op.operands[0].type)))]


def _cmpf(ex: Executor, st: CoreState, op: Operation) -> list[Any]:
    a, b = (st.env[v] for v in op.operands)
    return [int(_CMPF[_predicate(op, _CMPF_BY_INDEX)](a, b))]


def _select(ex: Executor, st: CoreState, op: Operation) -> list[Any]:
    c, a, b = (st.env[v] for v in op.operands)
    return [a if c else b]


def _int_cast(ex: Executor, st: CoreState, op: Operation) -> list[Any]:
    x = st.env[op.operands[0]]
    src_w = _int_width(op.operands[0].type)
    dst_w = _int_width(op.results[0].type)
    if op.name in ("arith.extui", "arith.index_castui"):
        x = _unsigned(x, src_w)
    return [wrap(x, dst_w)]


def _conversion_cast(ex: Executor, st: CoreState, op: Operation) -> list[Any]:
    """``builtin.unrealized_conversion_cast`` between integer types (PTO-Gym kernels turn a
    ui32 argument into the signless i32 an op wants): the same bits, re-wrapped."""
    if len(op.operands) != 1 or len(op.results) != 1:
        raise KernelError(f"{op.name}: ptosim casts one integer to one integer, got "
                          f"{len(op.operands)} operands and {len(op.results)} results")
    src_w, dst_w = _int_width(op.operands[0].type), _int_width(op.results[0].type)
    return [wrap(_unsigned(st.env[op.operands[0]], src_w), dst_w)]


def _to_float(ex: Executor, st: CoreState, op: Operation) -> list[Any]:
    x = st.env[op.operands[0]]
    if op.name == "arith.uitofp":
        x = _unsigned(x, _int_width(op.operands[0].type))
    return [_round_float(float(x), op.results[0].type)]


def _to_int(ex: Executor, st: CoreState, op: Operation) -> list[Any]:
    x = st.env[op.operands[0]]
    if x != x or x in (float("inf"), float("-inf")):
        raise KernelError(f"{op.name}: {x} has no integer value")
    return [wrap(int(x), _int_width(op.results[0].type))]


def _float_cast(ex: Executor, st: CoreState, op: Operation) -> list[Any]:
    return [_round_float(st.env[op.operands[0]], op.results[0].type)]


_BITCAST_FLOATS = {"f16": np.float16, "bf16": ml_dtypes.bfloat16, "f32": np.float32,
                   "f64": np.float64}


def _bitcast(ex: Executor, st: CoreState, op: Operation) -> list[Any]:
    """arith.bitcast between equal-width integer and float scalars: the same bits read
    as the other type (integers are kept signed, floats as Python floats)."""
    x = st.env[op.operands[0]]
    src, dst = op.operands[0].type, op.results[0].type
    widths = []
    for t in (src, dst):
        name = str(t)
        if name in _BITCAST_FLOATS:
            widths.append(np.dtype(_BITCAST_FLOATS[name]).itemsize * 8)
        elif isinstance(t, IntegerType):
            widths.append(_int_width(t))
        else:
            raise KernelError(f"arith.bitcast: {name} is not an integer or float scalar type")
    if widths[0] != widths[1]:
        raise KernelError(f"arith.bitcast: {src} and {dst} differ in width "
                          f"({widths[0]} and {widths[1]} bits)")
    w = widths[0]
    carrier = np.dtype(f"u{w // 8}")
    if str(src) in _BITCAST_FLOATS:
        bits = int(np.asarray(x, _BITCAST_FLOATS[str(src)]).view(carrier))
    else:
        bits = _unsigned(int(x), w)
    if str(dst) in _BITCAST_FLOATS:
        return [float(np.asarray(bits, carrier).view(_BITCAST_FLOATS[str(dst)]))]
    return [wrap(bits, w)]


def _negf(ex: Executor, st: CoreState, op: Operation) -> list[Any]:
    return [-st.env[op.operands[0]]]


def _ptr_info(t: Any) -> tuple[str, str]:
    from ..frontend import ptr_info  # the dialect owns the pointer spellings
    return ptr_info(t)


def _castptr(ex: Executor, st: CoreState, op: Operation) -> list[Any]:
    x = st.env[op.operands[0]]
    rt = op.results[0].type
    if isinstance(rt, (IntegerType, IndexType)):          # ptr -> integer: its address
        return [wrap(x.offset, _int_width(rt))]
    dtype, space = _ptr_info(rt)
    space = canonical_space(space)
    if isinstance(x, Ptr):                                # ptr -> ptr: same space only
        if x.space != space:
            raise KernelError(f"pto.castptr: cannot move a {x.space} pointer into {space}")
        return [x.cast(dtype)]
    if space == "gm":
        dt = _dtype(dtype)
        ex.m.require_dtype(dt)
        return [Ptr("gm", dt, int(x))]
    # A vector core's UB pointers address its own sub-block's UB.
    sub = st.core.sub if st.core.kind == "vector" and space == "ub" else 0
    return [ex.m.ptr(space, dtype, int(x), subblock=sub, block=st.core.block)]


def _addptr(ex: Executor, st: CoreState, op: Operation) -> list[Any]:
    p, off = (st.env[v] for v in op.operands)
    return [p + off]


def _make_tensor_view(ex: Executor, st: CoreState, op: Operation) -> list[Any]:
    env = st.env
    return [make_view(ex.m, env[op.ptr], [env[v] for v in op.shape_operands()],  # type: ignore[attr-defined]
                      [env[v] for v in op.stride_operands()], op.layout())]  # type: ignore[attr-defined]


def _partition_view(ex: Executor, st: CoreState, op: Operation) -> list[Any]:
    env = st.env
    return [partition(ex.m, env[op.source], [env[v] for v in op.offset_operands()],  # type: ignore[attr-defined]
                      [env[v] for v in op.size_operands()])]  # type: ignore[attr-defined]


def _alloc_tile(ex: Executor, st: CoreState, op: Operation) -> list[Any]:
    """A tile of the op's type. Without ``addr`` the op is placed once per run and keeps
    that address every time it runs, on every core (PTOAS plans one address per
    ``alloc_tile``: an allocation in a loop is the same bytes each iteration)."""
    from ..frontend import tile_info
    env = st.env
    get = lambda v: None if v is None else int(env[v])  # noqa: E731
    addr = get(op.addr())  # type: ignore[attr-defined]
    planned = addr is None
    if planned:
        addr = ex.tile_addrs.get(op)
    tile = alloc_tile(ex.m, tile_info(op.results[0].type), addr,
                      get(op.valid_row()), get(op.valid_col()),  # type: ignore[attr-defined]
                      st.core.sub if st.core.kind == "vector" else 0, op)
    if planned:
        ex.tile_addrs[op] = tile.ptr.offset
    return [tile]


def _treshape(ex: Executor, st: CoreState, op: Operation) -> list[Any]:
    from ..frontend import tile_info
    info: dict[str, Any] = tile_info(op.results[0].type)
    vr, vc = info["valid"]
    rows, cols = int(info["rows"]), int(info["cols"])
    valid = (rows if vr is None else int(vr), cols if vc is None else int(vc))
    treshape = ex.m.TRESHAPE  # type: ignore[attr-defined]  # the Machine's Python face
    from .tiles import with_valid_kind
    return [with_valid_kind(treshape(st.env[op.operands[0]], str(info["dtype"]), rows, cols,
                                     blayout=str(info["blayout"]),
                                     slayout=str(info["slayout"]), valid=valid), info)]


def _subview(ex: Executor, st: CoreState, op: Operation) -> list[Any]:
    from ..frontend import tile_info
    from ..frontend.tile_views import SubViewOp
    from ..tile.shape import pto_subview
    assert isinstance(op, SubViewOp)
    env = st.env
    sizes = op.size_values()
    info: dict[str, Any] = tile_info(op.result.type)
    valid = [int(env[v]) for v in op.valid] if op.valid else \
        [n if d is None else int(d) for d, n in zip(info["valid"], sizes)]
    row, col = (int(env[v]) for v in op.offsets)
    from .tiles import with_valid_kind
    return [with_valid_kind(pto_subview(env[op.source], row, col, (sizes[0], sizes[1]),
                                        (valid[0], valid[1])), info)]


def _set_validshape(ex: Executor, st: CoreState, op: Operation) -> None:
    """The tile's later uses see the new valid region (PTOAS updates the tile handle's
    runtime metadata in place; ptosim tiles are immutable, so the SSA value is rebound)."""
    env = st.env
    tile = env[op.operands[0]]
    rows, cols = int(env[op.operands[1]]), int(env[op.operands[2]])
    if not (0 <= rows <= tile.rows and 0 <= cols <= tile.cols):
        raise VerifyError(f"valid shape [{rows}, {cols}] must lie in [0, {tile.rows}] x "
                          f"[0, {tile.cols}] (the tile's shape)", op="pto.set_validshape")
    env[op.operands[0]] = dataclasses.replace(tile, valid=(rows, cols))


def _get_validshape(ex: Executor, st: CoreState, op: Operation) -> list[Any]:
    return list(st.env[op.operands[0]].valid)


def _tassign(ex: Executor, st: CoreState, op: Operation) -> list[Any]:
    """The tile bound at the i64 address (PTOAS rebinds the handle; ptosim's tiles are
    values, so the result is the rebound tile and the operand keeps its address)."""
    tassign = ex.m.TASSIGN  # type: ignore[attr-defined]  # the Machine's Python face
    src = st.env[op.operands[0]]
    if isinstance(src, pipes.DeclaredTile):     # pto.declare_tile: a tile of its type here
        from ..frontend import tile_info
        from .tiles import alloc_tile
        sub = st.core.sub if st.core.kind == "vector" else 0
        return [alloc_tile(ex.m, tile_info(op.operands[0].type), int(st.env[op.operands[1]]),
                           None, None, sub, op)]
    return [tassign(src, int(st.env[op.operands[1]]))]


def _tile_valid(ex: Executor, st: CoreState, op: Operation) -> list[Any]:
    return [st.env[op.operands[0]].valid[op.AXIS]]  # type: ignore[attr-defined]


def _view_query(ex: Executor, st: CoreState, op: Operation) -> list[Any]:
    """One dimension's size or stride (elements) of a view, counted in the view type's
    rank (ptosim keeps views right-aligned in 5-D: dimension i is 5 - rank + i)."""
    from ..frontend.tile_handle import view_rank
    from ..frontend.tile_types import memref_view
    t = op.operands[0].type
    rank = view_rank(t)
    i = int(st.env[op.operands[1]])
    if not 0 <= i < rank:
        raise VerifyError(f"dim_index {i} must lie in [0, {rank}) (the view's rank)",
                          op=op.name, operand="dim_index")
    mem = memref_view(t)
    if mem is not None:                 # a GM memref: a Ptr at run time, shape in the type
        shape, strides = mem[0], mem[1]
    else:
        g = st.env[op.operands[0]].tensor
        shape, strides = list(g.shape[5 - rank:]), list(g.stride[5 - rank:])
    return [int((shape if op.WHAT == "size" else strides)[i])]  # type: ignore[attr-defined]


def _tensor_view_addr(ex: Executor, st: CoreState, op: Operation) -> list[Any]:
    """A view's first element as a GM pointer (a partition's offsets included); a GM
    memref operand (already a pointer) is its own address."""
    v = st.env[op.operands[0]]
    return [v if isinstance(v, Ptr) else v.tensor.ptr]


def _tile_buf_addr(ex: Executor, st: CoreState, op: Operation) -> list[Any]:
    return [st.env[op.tile].ptr]  # type: ignore[attr-defined]


def _query(value: Callable[[Executor, CoreState], int]) -> Callable[..., list[Any]]:
    return lambda ex, st, op: [value(ex, st)]


def _noop(ex: Executor, st: CoreState, op: Operation) -> None:
    return None


def _get_ctrl(ex: Executor, st: CoreState, op: Operation) -> list[Any]:
    return [wrap(st.ctrl, 64)]


def _set_ctrl(ex: Executor, st: CoreState, op: Operation) -> None:
    st.ctrl = _unsigned(st.env[op.operands[0]], 64)


# the flag ops that set (the others wait); record_event / wait_event are TSYNC's forms
_SETTERS = frozenset({"pto.set_flag", "pto.set_flag_dyn", "pto.record_event"})


def _flag(ex: Executor, st: CoreState, op: Operation) -> None:
    src, dst = op.src_pipe(), op.dst_pipe()  # type: ignore[attr-defined]
    if op.name in ("pto.set_flag_dyn", "pto.wait_flag_dyn"):
        n = st.env[op.operands[0]]
        if not 0 <= n < 8:
            raise KernelError(f"{op.name}: event id {n} is out of range [0, 7]")
        event = f"EVENT_ID{n}"
    else:
        event = op.event()  # type: ignore[attr-defined]
    key = (pipe_name(src), pipe_name(dst), str(event))
    if op.name in _SETTERS:
        st.flags[key] = st.flags.get(key, 0) + 1
    elif st.flags.get(key, 0) > 0:
        st.flags[key] -= 1
    else:       # flags are per core and consumed once: nothing later can release this wait
        raise DeadlockError(
            f"wait_flag[PIPE_{key[0]}, PIPE_{key[1]}, {key[2]}] on {st.core.name} has no "
            f"unconsumed set_flag[PIPE_{key[0]}, PIPE_{key[1]}, {key[2]}] before it: on "
            f"hardware PIPE_{key[1]} would wait forever", op=op.name)
    if ex.events is not None:
        setting = op.name in _SETTERS
        ex.events.append((SET_FLAG if setting else WAIT_FLAG, st.core, src, dst, event, op))
    elif ex.observer is not None:
        notify = ex.observer.set_flag if op.name in _SETTERS else ex.observer.wait_flag
        notify(st.core, src, dst, event, op)


def _barrier(ex: Executor, st: CoreState, op: Operation) -> None:
    if op.name == "pto.barrier_sync" and ex.m.target.drops_v_barrier \
            and op.pipe() == "PIPE_V":  # type: ignore[attr-defined]
        return          # PTOAS erases a PIPE_V barrier_sync on a5
    if ex.observer is not None:
        ex.observer.barrier(st.core, op.pipe(), op)  # type: ignore[attr-defined]


def _mem_bar(ex: Executor, st: CoreState, op: Operation) -> None:
    if ex.observer is not None:
        ex.observer.mem_bar(st.core, op.kind(), op)  # type: ignore[attr-defined]


def _sbitset(ex: Executor, st: CoreState, op: Operation) -> list[Any]:
    value, bit = (st.env[v] for v in op.operands)
    if not 0 <= bit < 64:
        raise KernelError(f"{op.name}: bit {bit} is outside a 64-bit register")
    mask = 1 << bit
    bits = _unsigned(value, 64)
    return [wrap(bits | mask if op.BIT_VALUE else bits & ~mask, 64)]  # type: ignore[attr-defined]


def _print_scalar(ex: Executor, st: CoreState, op: Operation) -> None:
    """``pto.print``: printf of one scalar on the core that runs it (to stdout, as
    TPRINT's text goes)."""
    from ..frontend.debug_ops import c_printf
    value, t = st.env[op.operands[0]], op.operands[0].type
    bits = _int_width(t) if isinstance(t, (IntegerType, IndexType)) else 64
    text = c_printf(op.format.data, value, bits)  # type: ignore[attr-defined]
    if ex.print_cores <= 1:
        sys.stdout.write(text)
    else:       # several cores print: whole lines, each named by its core
        name = st.core.name
        *lines, rest = (ex._print_pending.pop(name, "") + text).split("\n")
        sys.stdout.write("".join(f"[{name}] {line}\n" for line in lines))
        if rest:
            ex._print_pending[name] = rest
    sys.stdout.flush()


def _sync_set(ex: Executor, st: CoreState, op: Operation) -> None:
    ex.sync.signal(st.core, _sync_id(st, op), op)


def _sync_id(st: CoreState, op: Operation) -> int:
    ident = op.sync_id()  # type: ignore[attr-defined]
    return int(st.env[ident]) if isinstance(ident, SSAValue) else int(ident)


def _make_prefetch_ctx(ex: Executor, st: CoreState, op: Operation) -> list[Any]:
    from ..tile.prefetch_async import PrefetchAsyncContext
    v = st.env[op.operands[0]]
    ptr = v if isinstance(v, Ptr) else v.tensor.ptr
    return [PrefetchAsyncContext(ptr.cast("i8"), st.core.sub, st.core.block)]


def _prefetch_session(ex: Executor, st: CoreState, op: Operation) -> list[Any]:
    return [st.env[op.operands[0]].session]


def _tprefetch_async(ex: Executor, st: CoreState, op: Operation) -> list[Any] | None:
    """TPREFETCH_ASYNC on a vector core: PIPE_ALL barriers around the SDMA bookkeeping
    (tile/prefetch_async.py); a PTOAS-checked 1-D view made the flat GlobalTensor."""
    from ..tile.prefetch_async import tprefetch_async
    from ..tile.tensor import GlobalTensor
    ex._require_core(st, op, op.name, "vector")
    v, ctx = st.env[op.operands[0]], st.env[op.operands[1]]
    if isinstance(v, Ptr):
        n = int(np.prod(op.operands[0].type.get_shape()))
    else:
        g: GlobalTensor = v.tensor
        if g.stride[4] != 1 and g.shape[4] > 1:
            raise KernelError(f"{op.name}: src is not contiguous (stride {g.stride[4]})",
                              op=op.name)
        v, n = g.ptr, int(np.prod(g.shape))
    m: Any = ex.m                       # the full Machine (TileOps)
    flat = m.global_tensor(v, shape=(1, 1, 1, 1, n), stride=(n, n, n, n, 1))
    return _async_step(ex, st, op, lambda f, c: tprefetch_async(m, f, c), [flat, ctx])


def _wait_async_event(ex: Executor, st: CoreState, op: Operation) -> list[Any] | None:
    ex._require_core(st, op, op.name, "vector")
    ev, session = st.env[op.operands[0]], st.env[op.operands[1]]
    return _async_step(ex, st, op, lambda e, s: int(e.Wait(s)), [ev, session])


def _async_step(ex: Executor, st: CoreState, op: Operation, call: Callable[..., Any],
                args: list[Any]) -> list[Any] | None:
    if ex.observer is not None:
        ex.observer.barrier(st.core, "PIPE_ALL", op)
    out = ex._invoke(st, op, op.SPEC, args, {}, call=call)  # type: ignore[attr-defined]
    if ex.observer is not None:
        ex.observer.barrier(st.core, "PIPE_ALL", op)
    return out


_SIMPLE: dict[str, Callable[..., Any]] = {
    "arith.constant": _constant, "arith.cmpi": _cmpi, "arith.cmpf": _cmpf,
    "arith.select": _select, "arith.negf": _negf,
    **{name: _int_binary for name in _INT_BIN},
    **{name: _float_binary for name in _FLOAT_BIN},
    **{name: _int_cast for name in ("arith.index_cast", "arith.index_castui", "arith.extsi",
                                     "arith.extui", "arith.trunci")},
    "builtin.unrealized_conversion_cast": _conversion_cast,
    "arith.sitofp": _to_float, "arith.uitofp": _to_float,
    "arith.fptosi": _to_int, "arith.fptoui": _to_int,
    "arith.extf": _float_cast, "arith.truncf": _float_cast, "arith.bitcast": _bitcast,
    "pto.castptr": _castptr, "pto.addptr": _addptr,
    "pto.make_tensor_view": _make_tensor_view, "pto.partition_view": _partition_view,
    "pto.alloc_tile": _alloc_tile, "pto.tile_buf_addr": _tile_buf_addr,
    "pto.treshape": _treshape,
    "pto.subview": _subview,
    "pto.set_validshape": _set_validshape,
    "pto.get_validshape": _get_validshape,
    "pto.tassign": _tassign,
    "pto.tile_valid_rows": _tile_valid, "pto.tile_valid_cols": _tile_valid,
    "pto.get_tensor_view_dim": _view_query, "pto.get_tensor_view_stride": _view_query,
    "pto.tensor_view_addr": _tensor_view_addr,
    "pto.get_block_idx": _query(lambda ex, st: st.core.block),
    "pto.get_block_num": _query(lambda ex, st: len(ex.m.blocks)),
    "pto.get_subblock_idx": _query(lambda ex, st: st.core.sub),
    "pto.get_subblock_num": _query(lambda ex, st: ex.subblocks),
    "pto.get_ctrl": _get_ctrl, "pto.set_ctrl": _set_ctrl,
    "pto.sbitset0": _sbitset, "pto.sbitset1": _sbitset,
    # Intra-core ordering has no functional effect in program order; the hazard checker
    # turns it into happens-before edges.
    "pto.set_flag": _flag, "pto.wait_flag": _flag, "pto.barrier": _barrier,
    "pto.set_flag_dyn": _flag, "pto.wait_flag_dyn": _flag,
    "pto.pipe_barrier": _barrier, "pto.get_buf": _noop, "pto.rls_buf": _noop,
    "pto.mem_bar": _mem_bar,
    "pto.record_event": _flag, "pto.wait_event": _flag, "pto.barrier_sync": _barrier,
    "pto.tsync": _noop,
    "pto.make_prefetch_async_context": _make_prefetch_ctx,
    "pto.get_prefetch_async_session": _prefetch_session,
    "pto.tprefetch_async": _tprefetch_async, "pto.comm.wait_async_event": _wait_async_event,
    "pto.sync.set": _sync_set, "pto.print": _print_scalar,
    "pto.reserve_buffer": pipes.reserve_buffer,
    "pto.import_reserved_buffer": pipes.import_reserved_buffer,
    "pto.aic_initialize_pipe": pipes.init_pipe, "pto.aiv_initialize_pipe": pipes.init_pipe,
    "pto.tfree_from_aic": pipes.tfree, "pto.tfree_from_aiv": pipes.tfree,
    "pto.initialize_l2l_pipe": pipes.init_handle, "pto.declare_tile": pipes.declare_tile,
    "pto.tfree": pipes.tfree_handle,
}


def _vector_op(ex: Executor, st: CoreState, op: Operation) -> list[Any] | None:
    """A vector micro-op (a registry row with semantics): unobserved on its core, its
    ``impl`` is called straight with the decoded operands -- the Machine method's path
    minus the method lookup and the API guard (run_block locates what escapes). Watched
    or on the wrong core it takes the general micro-op path."""
    plan = ex._direct.get(op)
    if plan is None:
        spec = op.SPEC  # type: ignore[attr-defined]
        pos, kw = op.python_call()  # type: ignore[attr-defined]
        plain = all(type(a) is OpResult or type(a) is BlockArgument for a in pos)
        plan = ex._direct[op] = (spec, spec.impl, spec.core_of(()), pos, kw, plain)
    spec, impl, core, pos, kw, plain = plan
    if ex.observer is not None or (core != st.core.kind and core != "any"):
        return ex._micro(st, op, spec)
    env = st.env
    args = [env[a] for a in pos] if plain else [_resolve(env, a) for a in pos]
    m = ex.m
    m.ctrl = st.ctrl
    m.regs = st.regs
    if ex.warnings is not None:
        ex.warnings.current = op
    value = impl(m, *args, **{k: _resolve(env, v) for k, v in kw.items()}) if kw \
        else impl(m, *args)
    if not op.results:
        return None
    return list(value) if type(value) is tuple else [value]


_SIMPLE.update({spec.mnemonic: _vector_op for spec in GENERATED
                if spec.syntax == "vector" and spec.impl is not None})


# --- prebuilt steps ----------------------------------------------------------------------
# One op's step, built on the op's first run (`Executor._compile`): (op, fast, gen, plain,
# term). ``fast(state)`` runs an op that cannot suspend and stores its results itself;
# a control op has ``gen`` (its generator handler) and ``plain`` (the same as an ordinary
# call, for when nothing inside can wait); a terminator has ``term``, the values it returns.
Step = tuple[Operation, Callable[[CoreState], None] | None,
             Callable[..., Generator[Wait, None, Any]] | None, Callable[..., Any] | None,
             tuple[SSAValue, ...] | None]


def _step(ex: Executor, op: Operation) -> Callable[[CoreState], None] | None:
    """``op``'s fast step, or None for control ops. A step whose decoding fails is built
    generic, so the failure surfaces when (and where) the op runs."""
    handler = _SIMPLE.get(op.name)
    if handler is None:
        spec = getattr(op, "SPEC", None)
        if spec is None or spec.kind not in ("micro", "tile"):
            return None
        if spec.kind == "tile":
            return _generic(ex, lambda ex, st, op: ex._tile_op(st, op, spec), op)
        build: Callable[..., Any] | None = _micro_step
        handler = lambda ex, st, op: ex._micro(st, op, spec)  # noqa: E731
    else:
        build = _FAST.get(handler)
    if build is not None:
        try:
            fast = build(ex, op)
        except Exception:       # noqa: BLE001 - reported by the generic step at run time
            fast = None
        if fast is not None:
            return fast
    return _generic(ex, handler, op)


def _generic(ex: Executor, handler: Callable[..., Any], op: Operation
             ) -> Callable[[CoreState], None]:
    """A step calling ``handler(ex, state, op)`` and storing the values it returns."""
    results = tuple(op.results)
    if not results:
        def run0(st: CoreState) -> None:
            handler(ex, st, op)
        return run0
    if len(results) == 1:
        r = results[0]

        def run1(st: CoreState) -> None:
            out = handler(ex, st, op)
            if out:
                st.env[r] = out[0]
        return run1

    def run(st: CoreState) -> None:
        out = handler(ex, st, op)
        if out is not None:
            env = st.env
            for res, value in zip(results, out):
                env[res] = value
    return run


def _store(results: tuple[SSAValue, ...]) -> Callable[[dict[SSAValue, Any], Any], None]:
    """How a step stores a Machine method's return value (a value or a tuple of them)."""
    if not results:
        return lambda env, value: None
    if len(results) == 1:
        r = results[0]

        def one(env: dict[SSAValue, Any], value: Any) -> None:
            env[r] = value[0] if type(value) is tuple else value
        return one

    def many(env: dict[SSAValue, Any], value: Any) -> None:
        for res, v in zip(results, value if type(value) is tuple else [value]):
            env[res] = v
    return many


def _plain_ssa(x: Any) -> bool:
    return type(x) is OpResult or type(x) is BlockArgument


def _args_kinds(values: Iterable[Any]) -> list[tuple[int, Any]]:
    """Each decoded operand with how `_args`' resolver reads it: 0 = one SSA value, 1 = a
    tuple of them, 2 = anything else (`_resolve`)."""
    return [(0 if _plain_ssa(v) else
             1 if type(v) is tuple and all(_plain_ssa(x) for x in v) else 2, v)
            for v in values]


def _args(pos: list[Any], kw: dict[str, Any]
          ) -> Callable[[dict[SSAValue, Any]], tuple[list[Any], dict[str, Any]]]:
    """The resolver of an op's decoded operands: plain SSA values and clause tuples of
    them (the common shapes) are read straight from the environment."""
    values = tuple(pos)
    flat = all(_plain_ssa(a) for a in values)
    kinds = tuple(_args_kinds(values))
    # SSA values and words (the nd2nz of mte_gm_l1_frac ...): the words read as they are
    words = all(kind == 0 or (kind == 2 and type(v) is str) for kind, v in kinds)
    items = tuple((k, *kind) for k, kind in zip(kw, _args_kinds(kw.values())))

    def resolve_args(env: dict[SSAValue, Any]) -> tuple[list[Any], dict[str, Any]]:
        args = [env[a] for a in values] if flat else \
            [env[v] if kind == 0 else v for kind, v in kinds] if words else \
            [_resolve(env, a) for a in values]
        kwargs = {}
        for k, kind, v in items:
            kwargs[k] = env[v] if kind == 0 else \
                tuple([env[x] for x in v]) if kind == 1 else _resolve(env, v)
        return args, kwargs
    return resolve_args


_DECODED: weakref.WeakKeyDictionary[Operation, Any] = weakref.WeakKeyDictionary()


def _python_call(op: Operation) -> tuple[list[Any], dict[str, Any]]:
    """``op.python_call()``, decoded once per op of a parsed module (each run of a kernel
    builds its steps anew; the IR they decode does not change)."""
    call = _DECODED.get(op)
    if call is None:
        call = _DECODED[op] = op.python_call()  # type: ignore[attr-defined]
    return call


def _micro_step(ex: Executor, op: Operation) -> Callable[[CoreState], None]:
    """A micro-op calling its Machine method, looked up once."""
    spec = op.SPEC  # type: ignore[attr-defined]
    core = spec.core_of(())
    resolve_args = _args(*_python_call(op))
    m = ex.m
    call = getattr(m, spec.method)
    results = tuple(op.results)
    pipe = None if callable(spec.pipe) else spec.pipe
    # the event-log observer's handle of this op on the core that ran it last (a step
    # belongs to one run; other cores keep theirs in CoreState.handles)
    last_core: Core | None = None
    last_handle: Any = None

    def run(st: CoreState) -> None:
        nonlocal last_core, last_handle
        if core != "any" and st.core.kind != core:
            ex._require_core(st, op, spec.name, core)
        env = st.env
        args, kwargs = resolve_args(env)
        if not results:                 # `_invoke` inlined (the DMA ops of a loop)
            if ex.warnings is not None:
                ex.warnings.current = op
            m.ctrl = st.ctrl
            m.regs = st.regs
            obs = ex.observer
            if obs is None:
                call(*args, **kwargs)
                return
            events = ex.events
            if events is None:
                obs.begin_op(st.core, op, spec, args,
                             pipe if pipe is not None else spec.pipe_of(args), kwargs)
                try:
                    call(*args, **kwargs)
                finally:
                    obs.end_op()
                return
            if pipe is None:
                events.append((BEGIN, st.core, op, spec, spec.pipe_of(args)))
            elif st.core is last_core:
                events.append(last_handle)
            else:
                handle = st.handles.get(op)
                if handle is None:
                    handle = st.handles[op] = obs.op_handle(st.core, op, spec, pipe)
                last_core, last_handle = st.core, handle
                events.append(handle)
            if len(events) >= FLUSH_AT:
                obs.flush()
            m.access_log = events           # the op's accesses; its end needs no entry
            try:
                call(*args, **kwargs)
            finally:
                m.access_log = None
            return
        out = ex._invoke(st, op, spec, args, kwargs, None, call)
        if out is not None:
            for res, value in zip(results, out):
                env[res] = value
    return run


def _vector_step(ex: Executor, op: Operation) -> Callable[[CoreState], None]:
    """A vector micro-op (a registry row with semantics): unobserved on its core, its
    ``impl`` is called straight with the decoded operands -- the Machine method's path
    minus the method lookup and the API guard (run_block locates what escapes). Watched
    or on the wrong core it takes the general micro-op path."""
    spec = op.SPEC  # type: ignore[attr-defined]
    impl, core = spec.impl, spec.core_of(())
    pos, kw = _python_call(op)
    resolve_args = _args(pos, kw)
    store = _store(tuple(op.results))
    slow = _generic(ex, lambda ex, st, op: ex._micro(st, op, spec), op)
    if not kw and len(op.results) == 1 and all(_plain_ssa(a) for a in pos):
        values, r = tuple(pos), op.results[0]
        method = getattr(ex.m, spec.method)

        def run1(st: CoreState) -> None:       # the usual shape: registers in, one out
            if core != st.core.kind and core != "any":
                slow(st)                        # reports the wrong core
                return
            env = st.env
            if ex.observer is not None:         # watched: the Machine method under the observer
                out = ex._invoke(st, op, spec, [env[a] for a in values], {}, None, method)
                env[r] = out[0]  # type: ignore[index]
                return
            m = ex.m
            m.ctrl = st.ctrl
            m.regs = st.regs
            if ex.warnings is not None:
                ex.warnings.current = op
            value = impl(m, *[env[a] for a in values])
            env[r] = value[0] if type(value) is tuple else value
        return run1

    def run(st: CoreState) -> None:
        if ex.observer is not None or (core != st.core.kind and core != "any"):
            slow(st)
            return
        env = st.env
        args, kwargs = resolve_args(env)
        m = ex.m
        m.ctrl = st.ctrl
        m.regs = st.regs
        if ex.warnings is not None:
            ex.warnings.current = op
        store(env, impl(m, *args, **kwargs))
    return run


def _int_binary_step(ex: Executor, op: Operation) -> Callable[[CoreState], None]:
    (x, y), r = op.operands, op.results[0]
    w, name = _int_width(r.type), op.name
    if w == 1 or name not in _WRAPPING:
        fn, divides = _INT_BIN[name], name in _DIVIDES

        def run(st: CoreState) -> None:
            env = st.env
            b = env[y]
            if divides and b == 0:
                raise KernelError(f"{name}: division by zero")
            env[r] = wrap(fn(env[x], b, w), w)
        return run
    f, mask, sign, full = _WRAPPING[name], (1 << w) - 1, 1 << (w - 1), 1 << w

    def run_wrapping(st: CoreState) -> None:       # wrap() inlined: the loop counters' ops
        env = st.env
        v = f(env[x], env[y]) & mask
        env[r] = v - full if v & sign else v
    return run_wrapping


_WRAPPING = {"arith.addi": operator.add, "arith.subi": operator.sub,
             "arith.muli": operator.mul, "arith.andi": operator.and_,
             "arith.ori": operator.or_, "arith.xori": operator.xor}


def _constant_step(ex: Executor, op: Operation) -> Callable[[CoreState], None] | None:
    if isinstance(_attr(op, "value"), DenseIntOrFPElementsAttr):
        return None             # an array: a fresh one per run of the op
    value, r = _constant(ex, None, op)[0], op.results[0]  # type: ignore[arg-type]

    def run(st: CoreState) -> None:
        st.env[r] = value
    return run


def _cmpi_step(ex: Executor, op: Operation) -> Callable[[CoreState], None]:
    """arith.cmpi with its predicate and width decoded once (`_cmpi` per run)."""
    (x, y), r = op.operands, op.results[0]
    fn, w = _CMPI[_predicate(op, _CMPI_BY_INDEX)], _int_width(x.type)

    def run(st: CoreState) -> None:
        env = st.env
        env[r] = int(fn(env[x], env[y], w))
    return run


def _addptr_step(ex: Executor, op: Operation) -> Callable[[CoreState], None]:
    (p, off), r = op.operands, op.results[0]

    def run(st: CoreState) -> None:
        env = st.env
        env[r] = env[p] + env[off]
    return run


def _int_cast_step(ex: Executor, op: Operation) -> Callable[[CoreState], None]:
    x, r = op.operands[0], op.results[0]
    src_w, dst_w = _int_width(x.type), _int_width(r.type)
    unsigned = op.name in ("arith.extui", "arith.index_castui")

    def run(st: CoreState) -> None:
        env = st.env
        v = env[x]
        env[r] = wrap(_unsigned(v, src_w) if unsigned else v, dst_w)
    return run


def _unknown(name: str) -> Callable[[CoreState], None]:
    def run(st: CoreState) -> None:
        raise KernelError(f"{name}: ptosim does not execute this op yet")
    return run


def _flag_step(ex: Executor, op: Operation) -> Callable[[CoreState], None] | None:
    """set_flag / wait_flag with a static event: the flag's key decoded once."""
    if op.name not in ("pto.set_flag", "pto.wait_flag", "pto.record_event", "pto.wait_event"):
        return None
    src, dst, event = op.src_pipe(), op.dst_pipe(), op.event()  # type: ignore[attr-defined]
    key = (pipe_name(src), pipe_name(dst), str(event))
    setting = op.name in _SETTERS
    tag = SET_FLAG if setting else WAIT_FLAG
    last_core: Core | None = None       # as in `_micro_step`
    last_handle: Any = None

    def run(st: CoreState) -> None:
        nonlocal last_core, last_handle
        flags = st.flags
        if setting:
            flags[key] = flags.get(key, 0) + 1
        elif flags.get(key, 0) > 0:
            flags[key] -= 1
        else:
            _flag(ex, st, op)       # reports the wait that nothing can release
            return
        if ex.events is not None:
            if st.core is last_core:
                ex.events.append(last_handle)
                return
            handle = st.handles.get(op)
            if handle is None:
                handle = ex.observer.flag_handle(st.core, src, dst, event, op, setting)
                if handle is None:      # a wait no flag can release: refused above
                    handle = (tag, st.core, src, dst, event, op)
                st.handles[op] = handle
            last_core, last_handle = st.core, handle
            ex.events.append(handle)
        elif ex.observer is not None:
            (ex.observer.set_flag if setting else ex.observer.wait_flag)(
                st.core, src, dst, event, op)
    return run


_FAST: dict[Callable[..., Any], Callable[..., Any]] = {
    _flag: _flag_step, _int_binary: _int_binary_step, _constant: _constant_step,
    _vector_op: _vector_step, _addptr: _addptr_step, _int_cast: _int_cast_step,
    _cmpi: _cmpi_step}


# --- control-flow and blocking handlers (generators) -------------------------------------
def _scf_for(ex: Executor, st: CoreState, op: Operation) -> Generator[Wait, None, list[Any]]:
    lb, ub, step, *inits = (st.env[v] for v in op.operands)
    if step <= 0:
        raise KernelError(f"scf.for: step must be positive, got {step}")
    carried = list(inits)
    i = lb
    try:
        while i < ub:
            carried = yield from ex.run_region(st, op.regions[0], [i, *carried])
            i += step
    except OpBudgetError as err:
        if not err.in_loop:             # the innermost loop names itself; run_block locates it
            err.in_for(i, lb, ub, step)
        raise
    return carried


def _scf_if(ex: Executor, st: CoreState, op: Operation) -> Generator[Wait, None, list[Any]]:
    cond = st.env[op.operands[0]]
    region = op.regions[0] if cond else (op.regions[1] if len(op.regions) > 1 else None)
    if region is None or region.blocks.first is None:
        return []
    return (yield from ex.run_region(st, region))


def _section(kind: str) -> Callable[..., Generator[Wait, None, None]]:
    def run(ex: Executor, st: CoreState, op: Operation) -> Generator[Wait, None, None]:
        if st.core.kind == kind and not pipes.skips_nosplit_guard(ex, st, op):
            yield from ex.run_region(st, op.regions[0])
        return None
    return run


def _vecscope(ex: Executor, st: CoreState, op: Operation) -> Generator[Wait, None, None]:
    """A vector interval: its body in program order on this vector core's V pipe (a strict
    scope binds its captures to the block arguments)."""
    ex._require_core(st, op, op.name, "vector")
    if ex.observer is not None:
        ex.observer.vecscope(st.core, op)
    yield from ex.run_region(st, op.regions[0], [st.env[v] for v in op.operands])
    if ex.observer is not None:
        ex.observer.vecscope(st.core, op)
    return None


def _syncall(ex: Executor, st: CoreState, op: Operation) -> Generator[Wait, None, None]:
    yield from ex.sync.syncall(ex, st, op)
    return None


def _sync_wait(ex: Executor, st: CoreState, op: Operation) -> Generator[Wait, None, None]:
    yield from ex.sync.wait(st.core, _sync_id(st, op), op)
    return None


def _call(ex: Executor, st: CoreState, op: Operation) -> Generator[Wait, None, list[Any]]:
    callee = op.properties["callee"].string_value()  # type: ignore[attr-defined]
    func = ex.sync.lookup_function(callee)
    kind = func.attributes.get("pto.kernel_kind")
    if kind is not None and not _runs_kind(str(kind), st.core.kind):
        return []           # PTOAS guards a kernel_kind function with its core's macro
    if kind is not None and pipes.skips_nosplit_guard(ex, st, func):
        return []
    inner = CoreState(st.core, st.ctrl, regs=st.regs, flags=st.flags)
    out = yield from ex.run_function(inner, func, [st.env[v] for v in op.operands])
    st.ctrl = inner.ctrl
    return out


def _runs_kind(kind: str, core_kind: str) -> bool:
    """Whether a function marked ``#pto.kernel_kind<...>`` runs on a core of this kind."""
    return ("cube" if "cube" in kind else "vector") == core_kind


# --- the same control flow as ordinary calls, for regions in which nothing can wait ------
def _plain_region(ex: Executor, st: CoreState, region: Region, args: Iterable[Any] = ()
                  ) -> list[Any]:
    block = region.blocks.first
    if block is None:
        return []
    env = st.env
    for arg, value in zip(block.args, args):
        env[arg] = value
    plan = ex._plans.get(block)
    return ex._run_plain(st, (plan if plan is not None else ex._compile(block))[0])


def _scf_for_plain(ex: Executor, st: CoreState, op: Operation) -> list[Any]:
    env = st.env
    lb, ub, step, *inits = (env[v] for v in op.operands)
    if step <= 0:
        raise KernelError(f"scf.for: step must be positive, got {step}")
    carried = list(inits)
    block = op.regions[0].blocks.first
    i = lb
    if block is None:
        return [] if lb < ub else carried
    plan = ex._plans.get(block)
    steps = (plan if plan is not None else ex._compile(block))[0]
    iv, *args = block.args
    try:
        while i < ub:
            env[iv] = i
            for arg, value in zip(args, carried):
                env[arg] = value
            carried = ex._run_plain(st, steps)
            i += step
    except OpBudgetError as err:
        if not err.in_loop:
            err.in_for(i, lb, ub, step)
        raise
    return carried


def _scf_if_plain(ex: Executor, st: CoreState, op: Operation) -> list[Any]:
    cond = st.env[op.operands[0]]
    region = op.regions[0] if cond else (op.regions[1] if len(op.regions) > 1 else None)
    return [] if region is None else _plain_region(ex, st, region)


def _section_plain(kind: str) -> Callable[..., None]:
    def run(ex: Executor, st: CoreState, op: Operation) -> None:
        if st.core.kind == kind and not pipes.skips_nosplit_guard(ex, st, op):
            _plain_region(ex, st, op.regions[0])
    return run


def _vecscope_plain(ex: Executor, st: CoreState, op: Operation) -> None:
    ex._require_core(st, op, op.name, "vector")
    if ex.observer is not None:
        ex.observer.vecscope(st.core, op)
    _plain_region(ex, st, op.regions[0], [st.env[v] for v in op.operands])
    if ex.observer is not None:
        ex.observer.vecscope(st.core, op)


_PLAIN: dict[str, Callable[..., Any]] = {
    "scf.for": _scf_for_plain, "scf.if": _scf_if_plain,
    "pto.section.cube": _section_plain("cube"), "pto.section.vector": _section_plain("vector"),
    "pto.vecscope": _vecscope_plain, "pto.strict_vecscope": _vecscope_plain,
}
_SUSPENDS = frozenset({"pto.sync.wait", "func.call", "pto.syncall", "pto.tpush_to_aiv",
                       "pto.tpush_to_aic", "pto.tpop_from_aic", "pto.tpop_from_aiv",
                       "pto.tpush", "pto.tpop"})
# (the ops above may yield to the scheduler)

_CONTROL: dict[str, Callable[..., Generator[Wait, None, Any]]] = {
    "scf.for": _scf_for, "scf.if": _scf_if,
    "pto.section.cube": _section("cube"), "pto.section.vector": _section("vector"),
    "pto.sync.wait": _sync_wait, "func.call": _call, "pto.syncall": _syncall,
    "pto.tpush_to_aiv": pipes.tpush, "pto.tpush_to_aic": pipes.tpush,
    "pto.tpop_from_aic": pipes.tpop, "pto.tpop_from_aiv": pipes.tpop,
    "pto.tpush": pipes.tpush_handle, "pto.tpop": pipes.tpop_handle,
    "pto.vecscope": _vecscope, "pto.strict_vecscope": _vecscope,
}


def pointer_like(t: Any) -> bool:
    """True for `!pto.ptr` and `memref<..., #pto.address_space<...>>` types."""
    from ..frontend import is_pointer_type
    return is_pointer_type(t)
