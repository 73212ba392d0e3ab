"""A per-op log of a run (``ptosim run --log``): one line per micro-op, tile op and
synchronisation event, in execution order, with its location, core, pipe, resolved
operands and the byte ranges it read and wrote.

    k.pto:30:7 block0.aic MTE2 pto.mte_gm_l1_frac(Ptr(gm, f16, 0x10000000), ...)
        | R GM %a [0, 4000) W block0 l1 [0, 5888)        (one line in the log)

It is an observer of the executor, like the hazard checker: it sees every op the machine
runs, with the same access roles, and costs nothing when not asked for.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TextIO

import numpy as np

from ..errors import printable
from ..isa import OpSpec
from ..machine import Runs
from ..mlir.ir import Operation
from .executor import Core, pipe_name

_MAX_VALUE = 80         # characters of one operand's text


def _text(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        inner = ", ".join(_text(v) for v in value)
        if isinstance(value, list):
            return f"[{inner}]"
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if isinstance(value, np.ndarray):
        return f"array({'x'.join(map(str, value.shape))}, {value.dtype})"
    text = repr(value)
    return text if len(text) <= _MAX_VALUE else text[:_MAX_VALUE - 3] + "..."


class OpLog:
    """Writes the log to ``stream`` (see module doc)."""

    def __init__(self, stream: TextIO, locate: Callable[[Operation], str | None],
                 names: Callable[[np.ndarray], str]) -> None:
        self.stream = stream
        self.locate = locate
        self.names = names
        self.lines = 0
        self._head: str | None = None
        self._accesses: list[str] = []

    def _write(self, line: str) -> None:
        self.stream.write(printable(line) + "\n")
        self.lines += 1

    def _where(self, op: Operation | None) -> str:
        return (self.locate(op) if op is not None else None) or "?"

    def begin_op(self, core: Core, op: Operation, spec: OpSpec, args: list[Any],
                 pipe: str, kwargs: dict[str, Any] | None = None) -> None:
        operands = [_text(a) for a in args]
        operands += [f"{k}={_text(v)}" for k, v in (kwargs or {}).items() if v is not None]
        self._head = f"{self._where(op)} {core.name} {pipe} {op.name}({', '.join(operands)})"
        self._accesses = []

    def access(self, buf: np.ndarray, start: int, nbytes: int, access: str,
               operand: str | None, op_name: str | None, runs: Runs | None = None) -> None:
        if self._head is not None:
            self._accesses.append(f"{access} {self.names(buf)} [{start}, {start + nbytes})")

    def end_op(self) -> None:
        if self._head is not None:
            tail = f" | {' '.join(self._accesses)}" if self._accesses else ""
            self._write(self._head + tail)
        self._head = None

    def set_flag(self, core: Core, src: str, dst: str, event: str, op: Operation) -> None:
        self._write(f"{self._where(op)} {core.name} {pipe_name(src)} set_flag "
                    f"{pipe_name(src)} -> {pipe_name(dst)} {event}")

    def wait_flag(self, core: Core, src: str, dst: str, event: str, op: Operation) -> None:
        self._write(f"{self._where(op)} {core.name} {pipe_name(dst)} wait_flag "
                    f"{pipe_name(src)} -> {pipe_name(dst)} {event}")

    def barrier(self, core: Core, pipe: str, op: Operation) -> None:
        self._write(f"{self._where(op)} {core.name} barrier {pipe_name(pipe)}")

    def rendezvous_arrive(self, core: Core, key: tuple, op: Operation | None = None) -> None:
        self._write(f"{self._where(op)} {core.name} syncall arrive {_text(key)}")

    def rendezvous_leave(self, core: Core, key: tuple, op: Operation | None = None) -> None:
        self._write(f"{self._where(op)} {core.name} syncall leave {_text(key)}")

    def sync_set(self, core: Core, pipe: str, keys: list[tuple],
                 op: Operation | None = None) -> None:
        self._write(f"{self._where(op)} {core.name} {pipe_name(pipe)} sync.set {_text(keys)}")

    def sync_wait(self, core: Core, pipe: str, keys: list[tuple],
                  op: Operation | None = None) -> None:
        self._write(f"{self._where(op)} {core.name} {pipe_name(pipe)} sync.wait "
                    f"{_text(keys)}")
