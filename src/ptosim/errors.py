"""The one error hierarchy of ptosim.

Every failure a user can cause ends in a `PtoError`. Errors raised by an op name the
op, the operand or clause, the rule and the offending values, so that the message alone
tells what to fix: ``mte_ub_l1: l1_dst byte offset 48 is not 32-byte aligned``.
"""

from __future__ import annotations

import warnings
from typing import Callable


class PtoError(Exception):
    """Base class of every error ptosim raises on purpose."""

    def __init__(self, message: str, *, op: str | None = None, operand: str | None = None,
                 loc: str | None = None) -> None:
        self.op = op
        self.operand = operand
        self.detail = message
        self.loc = loc
        super().__init__(self._render())

    def _render(self) -> str:
        text = f"{self.op}: {self.detail}" if self.op else self.detail
        return f"{self.loc}: error: {text}" if self.loc else text

    def with_loc(self, loc: str) -> "PtoError":
        """Attach a source location (``file:line:col``) and re-render the message."""
        self.loc = loc
        self.args = (self._render(),)
        return self


class PtoSyntaxError(PtoError):
    """Malformed .pto text: bad syntax, unknown op, types that do not match the operands."""


class DeadlockError(PtoError):
    """Every unfinished core waits on a cross-core semaphore that nobody will signal."""


class UnknownDtypeError(PtoError, ValueError):
    """An element-type spelling that PTO does not define."""


class VerifyError(PtoError):
    """An op's operands break a rule of its manual page (checked before any byte moves)."""


class SpaceError(VerifyError):
    """An operand lives in the wrong address space."""


class DtypeError(VerifyError):
    """Element types of operands are illegal or do not match."""


class FieldRangeError(VerifyError):
    """A field value does not fit its bit width or legal range."""


class AlignmentError(VerifyError):
    """An address or stride is not aligned as the hardware requires."""


class OutOfBoundsError(VerifyError):
    """An access touches bytes outside its buffer or GM allocation."""


class TargetError(VerifyError):
    """The op, element type or clause does not exist on the machine's target."""


class NotImplementedOpError(PtoError, NotImplementedError):
    """A PTO op or form that ptosim does not implement yet."""


class PtoWarning(UserWarning):
    """A legal but suspicious use (e.g. overlapping destination regions)."""


# Where op warnings go. The Python face raises them as PtoWarnings; a kernel run (and
# `ptosim check`) installs a sink that turns each into a located, counted diagnostic.
_SINKS: list[Callable[[str], None]] = []


def warn(message: str) -> None:
    """Report a legal but suspicious use (``message`` starts with the op's name)."""
    if _SINKS:
        _SINKS[-1](message)
    else:
        warnings.warn(message, PtoWarning, stacklevel=3)


class warning_sink:
    """``with warning_sink(fn):`` sends every `warn` inside the block to ``fn``."""

    def __init__(self, sink: Callable[[str], None]) -> None:
        self.sink = sink

    def __enter__(self) -> None:
        _SINKS.append(self.sink)

    def __exit__(self, *exc: object) -> None:
        _SINKS.remove(self.sink)
