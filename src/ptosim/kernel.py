"""Run a `.pto` kernel from Python: parse, bind arguments, launch, read results back.

    >>> from ptosim.kernel import Kernel
    >>> k = Kernel.from_file("examples/matmul/kernel.pto")          # doctest: +SKIP
    >>> outs = k.run({"a": a, "b": b, "c": np.zeros(...)}, target="a5")  # doctest: +SKIP

The CLI (`ptosim run`) is a thin layer over this module.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from . import blas as _blas
from .api import Machine
from .dtypes import dtype as _dtype
from .errors import PtoError, PtoSyntaxError, api_guard
from .interp import check_structure, functions, kernel_function, run_kernel, target_of
from .interp.diagnostics import Diagnostic, WarningLog
from .interp.dump import Dumper, DumpRequest
from .interp.executor import pointer_like
from .interp.hazards import HazardChecker, buffer_namer
from .interp.oplog import OpLog
from .interp.timeline import Observers, Timeline
from .mlir.builtin import IndexType, IntegerType, ModuleOp
from .mlir.ir import Operation


class UsageError(PtoError):
    """A problem with how the kernel is invoked (arguments, files), not with the kernel."""


@dataclass
class Param:
    """One kernel parameter: its name (without %), position and type."""

    index: int
    name: str
    type: Any

    @property
    def is_pointer(self) -> bool:
        return pointer_like(self.type)

    def element(self) -> str:
        from .frontend import ptr_info
        return ptr_info(self.type)[0]


# The ops by which a kernel orders its pipes and cores itself.
SYNC_OPS = frozenset({"pto.set_flag", "pto.wait_flag", "pto.set_flag_dyn", "pto.wait_flag_dyn",
                      "pto.barrier", "pto.pipe_barrier", "pto.sync.set", "pto.sync.wait",
                      "pto.get_buf", "pto.rls_buf", "pto.mem_bar", "pto.record_event",
                      "pto.wait_event", "pto.barrier_sync", "pto.syncall"})


class _New:
    """See `NEW`."""

    def __repr__(self) -> str:
        return "ptosim.kernel.NEW"


NEW = _New()
"""Bind a GM pointer parameter to ``NEW`` for an output whose size the kernel decides: it
starts empty, holds the bytes the ops touch (zero until written) and comes back in
``RunResult.outputs`` as a 1-D array up to the last byte touched."""


@dataclass
class RunResult:
    outputs: dict[str, np.ndarray]      # every GM pointer parameter after the run
    stored: frozenset[str]              # the pointer parameters whose GM an op wrote to
    findings: list[Any]                 # hazard-checker findings (empty when not checked)
    warnings: list[Diagnostic]          # the ops' warnings, located and counted
    timeline: Any                       # interp.timeline.Timeline when traced, else None
    machine: Any                        # the Machine after the run (every buffer, for a look)
    ops: int
    seconds: float
    target: str
    entry: str
    provenance: Any = None              # interp.provenance.Provenance when asked for


_PARSED: dict[tuple[str, str], ModuleOp] = {}     # (file name, text) -> parsed module
_PARSED_MAX = 4


class Kernel:
    """A parsed `.pto` module and the kernel function to launch."""

    def __init__(self, module: ModuleOp, filename: str, entry: str | None = None,
                 locate: Callable[[Operation], str | None] = lambda op: None) -> None:
        self.module = module
        self.filename = filename
        self.locate = locate
        self.func = kernel_function(module, entry)
        check_structure(functions(module), self.func, locate)   # before anything walks it
        self.entry = self.func.properties["sym_name"].data   # type: ignore[attr-defined]
        block = self.func.regions[0].blocks.first
        assert block is not None
        self.params = [Param(i, a.name_hint or str(i), a.type) for i, a in enumerate(block.args)]

    @classmethod
    def from_text(cls, text: str, filename: str = "<input>", entry: str | None = None) -> Kernel:
        """Parse ``text`` (named ``filename`` in diagnostics). The same text under the same
        name parses once per process: a sweep of cases over one large module (a test
        file with hundreds of kernel functions, one ``--entry`` each) pays the parse once.
        Runs never change a parsed module, so kernels may share it."""
        from .frontend import op_location, parse_module
        from .interp.diagnostics import remember_source
        remember_source(filename, text)
        key = (filename, text)
        module = _PARSED.pop(key, None)
        if module is None:
            module = parse_module(text, filename)
        _PARSED[key] = module                   # most recent last
        while len(_PARSED) > _PARSED_MAX:
            del _PARSED[next(iter(_PARSED))]
        return cls(module, filename, entry, op_location)

    @classmethod
    def from_file(cls, path: str | Path, entry: str | None = None) -> Kernel:
        return cls.from_bytes(Path(path).read_bytes(), str(path), entry)

    @classmethod
    def from_bytes(cls, raw: bytes | bytearray, path: str, entry: str | None = None
                   ) -> Kernel:
        """A kernel from the bytes of a `.pto` file (UTF-8), named ``path`` in diagnostics."""
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as err:
            raise PtoSyntaxError(f"the file is not UTF-8 text (byte {err.start})",
                                 loc=f"{path}:1:1") from None
        return cls.from_text(text, path, entry)

    def has_sync(self) -> bool:
        """True when the module orders its pipes itself (any flag, barrier, semaphore or
        buffer-token op); False for kernels left to PTOAS's automatic sync insertion."""
        return any(op.name in SYNC_OPS for op in self.module.walk())

    def target(self, override: str | None = None) -> str:
        return override or target_of(self.module) or "a5"

    def param(self, key: str) -> Param:
        """A parameter by name (without %) or by 0-based position."""
        for p in self.params:
            if p.name == key or str(p.index) == key:
                return p
        names = ", ".join(p.name for p in self.params)
        raise UsageError(f"@{self.entry} has no parameter {key!r}; parameters: {names}")

    def extents(self, scalars: Mapping[str, Any] | None = None, *, target: str | None = None
                ) -> tuple[dict[str, int], int]:
        """GM bytes each pointer parameter's ops touch, as far as the kernel determines it
        without running: from the ops whose operands are constants, kernel pointers or the
        given ``scalars`` (name -> value). Returns (parameter name -> bytes, number of ops
        whose operands depend on loop variables or unbound scalars, so were not counted)."""
        from .interp.static import check_kernel
        bound = {}
        for key, value in (scalars or {}).items():
            p = self.param(str(key))
            if p.is_pointer:
                raise UsageError(f"parameter {p.name} is a pointer; only scalars can be "
                                 f"bound to work out sizes")
            bound[p.index] = _scalar(p, value)
        found = check_kernel(self.module, self.func, self.target(target), self.locate, bound)
        return ({self.params[i].name: n for i, n in found.extents.items()}, found.skipped)

    def run(self, args: Mapping[str, Any], *, target: str | None = None, block_dim: int = 1,
            progress: Callable[[int, float], None] | None = None,
            hazards: bool = True, trace: bool = False,
            warnings: WarningLog | None = None, max_ops: int | None = None,
            ctrl: int | None = None, force_block_dim: bool = False,
            blas_threads: int | None = None, op_log: TextIO | None = None,
            gm_overrun: str = "error", sources: Mapping[str, str] | None = None,
            poison: int | None = None, dumps: list[DumpRequest] | None = None,
            adopt: bool = False, provenance: bool = False,
            keep_on_chip: bool = True) -> RunResult:
        """Launch with ``args`` (name or position -> numpy array or `NEW` for pointers,
        number for scalars); returns every GM buffer after the run, the ops' warnings and, with
        ``hazards``, what the pipe-hazard checker found. Pass your own ``warnings`` log to
        see the warnings of a run that fails. ``max_ops`` bounds the ops run over all cores
        (an ``OpBudgetError`` naming the loop still running; None or 0: no limit).
        ``ctrl``: every core's CTRL register at entry (default `machine.ENTRY_CTRL`, the
        non-saturating mode). ``block_dim`` is at most the target's AI-core count unless
        ``force_block_dim``. ``blas_threads``: numpy's BLAS threads during the run (default
        1 or $PTOSIM_BLAS_THREADS; 0 keeps the process's setting; see `ptosim.blas`).
        ``op_log``: a text stream that receives one line per op (`interp.oplog`).
        ``gm_overrun="warn"`` runs kernels that access GM past the end of their buffers (each
        site reported once, counted; reads there see zeros, writes there are dropped)
        instead of raising ``OutOfBoundsError``. ``sources``: parameter name -> where its
        data came from (a file name), shown with the parameter in diagnostics. ``poison``:
        the byte every on-chip buffer starts filled with (default 0). ``dumps``: buffers to
        copy after given kernel lines (`interp.dump`); each request receives its bytes,
        also when the run fails. ``adopt``: the pointer arguments' arrays (C-contiguous,
        writable, of the element type) become GM itself and the outputs are views of them:
        no copies, but the kernel writes into your arrays. ``provenance``: record which op
        wrote each byte and what it read (`interp.provenance`; ``RunResult.provenance``).
        ``keep_on_chip=False``: each block's on-chip buffers are released when its cores
        end (``RunResult.machine`` then reads them as zeros), so a many-block launch holds
        the on-chip pages of about one block at a time."""
        bound: dict[int, Any] = {}
        for key, value in args.items():
            p = self.param(str(key))
            if p.index in bound:
                raise UsageError(f"parameter {p.name} is bound twice")
            bound[p.index] = value
        missing = [p.name for p in self.params if p.index not in bound]
        if missing:
            raise UsageError(f"missing value for parameter(s) {', '.join(missing)} of "
                             f"@{self.entry}")
        tgt = self.target(target)
        m = Machine(target=tgt, block_dim=block_dim, ctrl=ctrl, force_block_dim=force_block_dim,
                    gm_overrun=gm_overrun, poison=poison)
        values: list[Any] = [None] * len(self.params)

        def label(p: Param) -> str:
            where = (sources or {}).get(p.name)
            return f"%{p.name} ({where})" if where else f"%{p.name}"
        for p in self.params:
            v = bound[p.index]
            if p.is_pointer and v is NEW:
                continue                    # allocated last: they grow past their start
            if p.is_pointer:
                arr = np.ascontiguousarray(v)
                dt = _dtype(p.element())
                if arr.dtype.itemsize != dt.size or arr.dtype.kind != dt.np.kind:
                    raise UsageError(f"parameter {p.name} points to {dt.name} but the array "
                                     f"holds {arr.dtype}")
                values[p.index] = m.gm(arr.view(np.uint8).reshape(-1), name=label(p),
                                       adopt=adopt and arr is v).cast(dt)
            elif v is NEW:
                raise UsageError(f"parameter {p.name} is a scalar; NEW is for GM pointers")
            else:
                values[p.index] = _scalar(p, v)
        for p in self.params:
            if p.is_pointer and bound[p.index] is NEW:
                values[p.index] = m.gm_new(p.element(), name=label(p))
        namer = buffer_namer(m)
        checker = HazardChecker(self.locate, namer) if hazards else None
        timeline = Timeline(m.target, self.locate) if trace else None
        oplog = OpLog(op_log, self.locate, namer) if op_log is not None else None
        dumper = Dumper(dumps, m, self.locate) if dumps else None
        from .interp.provenance import Provenance
        origin = Provenance(self.locate, namer) if provenance else None
        parts = [o for o in (checker, timeline, oplog, dumper, origin) if o is not None]
        observer = parts[0] if len(parts) == 1 else Observers(*parts) if parts else None
        log = warnings if warnings is not None else WarningLog(self.locate)
        start = time.perf_counter()
        with _blas.blas_threads(blas_threads):
            ex = run_kernel(self.module, m, values, entry=self.entry, locate=self.locate,
                            progress=progress, observer=observer, warnings=log,
                            max_ops=max_ops, release_blocks=not keep_on_chip)
        seconds = time.perf_counter() - start
        findings = checker.finish() if checker is not None else []
        outs = {}
        for p, ptr in zip(self.params, values):
            if p.is_pointer and bound[p.index] is NEW:
                outs[p.name] = m.gm_new_bytes(ptr).view(ptr.dtype.np)
            elif p.is_pointer and adopt and m.gm_shares(ptr, bound[p.index]):
                outs[p.name] = bound[p.index]           # GM is the caller's array
            elif p.is_pointer:
                nbytes = np.asarray(bound[p.index]).nbytes
                outs[p.name] = m.read(ptr.cast("ui8"), nbytes).view(
                    np.asarray(bound[p.index]).dtype).reshape(np.shape(bound[p.index]))
        stored = frozenset(p.name for p, ptr in zip(self.params, values)
                           if p.is_pointer and m.gm_stored(ptr))
        return RunResult(outs, stored, findings, log.diagnostics, timeline, m, ex.ops_executed,
                         seconds, tgt, self.entry, origin)


Kernel.run = api_guard("Kernel.run", Kernel.run)  # type: ignore[method-assign]


def _float_bits(p: Param, name: str, text: str) -> float:
    """A float parameter given as its bit pattern (``0x4200`` is f16 3.0), as a host
    program passes an f16 scalar through an ``unsigned short``."""
    from .dtypes import dtype as _dtype
    dt = _dtype(name)
    try:
        bits = int(text, 16)
    except ValueError:
        raise UsageError(f"parameter {p.name} ({name}): {text!r} is not a hexadecimal bit "
                         f"pattern") from None
    if bits >> (8 * dt.size):
        raise UsageError(f"parameter {p.name} ({name}): {text} has more than {8 * dt.size} "
                         f"bits")
    return float(np.array(bits, f"u{dt.size}").view(dt.np))


def _scalar(p: Param, value: Any) -> Any:
    t = p.type
    if isinstance(t, (IntegerType, IndexType)):
        if isinstance(value, str):
            try:
                value = int(value, 0)
            except ValueError:
                raise UsageError(f"parameter {p.name} ({t}) needs an integer, got "
                                 f"{value!r}") from None
        if isinstance(value, (bool, float)) or not isinstance(value, (int, np.integer)):
            raise UsageError(f"parameter {p.name} ({t}) needs an integer, got {value!r}")
        width = 64 if isinstance(t, IndexType) else t.width.data
        lo, hi = (0, 1) if width == 1 else (-(1 << (width - 1)), (1 << width) - 1)
        if not lo <= int(value) <= hi:
            raise UsageError(f"parameter {p.name} ({t}): {value} does not fit")
        from .interp.executor import wrap
        return wrap(int(value), width)
    if str(t) in ("f16", "bf16", "f32", "f64"):
        if isinstance(value, str) and value.strip().lower().startswith("0x"):
            return _float_bits(p, str(t), value.strip())
        try:
            return float(value)
        except (TypeError, ValueError):
            raise UsageError(f"parameter {p.name} ({t}) needs a number, got {value!r}") from None
    raise UsageError(f"parameter {p.name} has type {t}, which ptosim cannot bind")
