"""The one error hierarchy of ptosim.

Every failure a user can cause ends in a `PtoError`. Errors raised by an op name the
op, the operand or clause, the rule and the offending values, so that the message alone
tells what to fix: ``mte_ub_l1: l1_dst byte offset 48 is not 32-byte aligned``.
"""

from __future__ import annotations


def printable(text: object, *, keep_newlines: bool = False) -> str:
    """``text`` with every control or invisible character (ESC, CR, newline, bidi
    overrides ...) spelled as a visible escape (``\\x1b``, ``\\r``, ``\\n``, ``\\u202e``), so that
    text from a kernel (``loc("...")`` file names, symbol names) can neither recolour a
    terminal nor forge a second diagnostic line. ``keep_newlines`` leaves ``\\n`` alone for
    messages that are multi-line by design (the deadlock report)."""
    s = str(text)
    if s.isprintable():
        return s
    return "".join(c if c.isprintable() or (keep_newlines and c == "\n") else repr(c)[1:-1]
                   for c in s)


class PtoError(Exception):
    """Base class of every error ptosim raises on purpose."""

    MULTILINE = False   # True for reports whose message has several lines by design

    def __init__(self, message: str, *, op: str | None = None, operand: str | None = None,
                 loc: str | None = None) -> None:
        self.op = op
        self.operand = operand
        self.detail = message
        self.loc = loc
        super().__init__(self._render())

    def _render(self) -> str:
        text = f"{self.op}: {self.detail}" if self.op else self.detail
        text = printable(text, keep_newlines=self.MULTILINE)
        return f"{printable(self.loc)}: error: {text}" if self.loc else text

    def with_loc(self, loc: str) -> "PtoError":
        """Attach a source location (``file:line:col``) and re-render the message."""
        self.loc = loc
        self.args = (self._render(),)
        return self


class PtoSyntaxError(PtoError):
    """Malformed .pto text: bad syntax, unknown op, types that do not match the operands."""


class DeadlockError(PtoError):
    """Every unfinished core waits on a cross-core semaphore that nobody will signal."""

    MULTILINE = True    # one line per blocked core


class StructureError(PtoError):
    """A kernel whose functions cannot run as written: an entry or callee that is only a
    declaration, a call cycle, nesting deeper than ptosim runs, or an entry pointer
    parameter outside GM."""


class PtoTypeError(PtoError, TypeError):
    """A Python API argument of the wrong type (``None`` for a count, a string for a
    pointer ...); also a `TypeError`, so generic handlers keep working."""


class PtoValueError(PtoError, ValueError):
    """A Python API argument of the right type but an unusable value (a NaN count, an
    empty shape tuple, an integer too large for any field ...); also a `ValueError`."""


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
