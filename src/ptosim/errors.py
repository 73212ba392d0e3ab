"""The one error hierarchy of ptosim.

Every failure a user can cause ends in a `PtoError`. Errors raised by an op name the
op, the operand or clause, the rule and the offending values, so that the message alone
tells what to fix: ``mte_ub_l1: l1_dst byte offset 48 is not 32-byte aligned``.
"""

from __future__ import annotations

import functools
import inspect
import sys
import warnings
from collections.abc import Callable
from typing import Any


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

    def with_loc(self, loc: str) -> PtoError:
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


class VerifyError(PtoError, ValueError):
    """An op's operands break a rule of its manual page (checked before any byte moves).
    Also a `ValueError`: the operands have the right types but unusable values."""


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


class UninitializedReadError(PtoError):
    """An op reads bytes that nothing has written (a new output read before written)."""


class TargetError(VerifyError):
    """The op, element type or clause does not exist on the machine's target."""


class NotImplementedOpError(PtoError, NotImplementedError):
    """A PTO op or form that ptosim does not implement yet."""


class NotImplementedTextOpError(PtoSyntaxError, NotImplementedOpError):
    """A ``.pto`` op that PTO defines and ptosim does not implement yet: refused where the
    text is read, so it is both a syntax error (of ptosim's dialect) and not-implemented."""


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


# --- the Python API's guard --------------------------------------------------------------
# Public entry points (Machine methods, Kernel.run) are wrapped once by `api_guard`. Their
# rules raise PtoErrors; a builtin error that escapes them anyway (``None.space``,
# ``int("x")``, numpy refusing a shape) comes from an argument nothing validated, and
# becomes the matching PtoError subclass naming the op and, when its annotation shows it,
# the argument. Only the outermost guarded call converts (a tile op names itself, not the
# micro-op it lowers to). Every op validates before it writes, so a refusal has written
# nothing (tests/test_api_hostile.py checks every byte).

_BUILTIN_TO_PTO: tuple[tuple[type[BaseException], type[PtoError]], ...] = (
    (TypeError, PtoTypeError), (AttributeError, PtoTypeError), (ValueError, PtoValueError),
    (ArithmeticError, PtoValueError), (LookupError, PtoValueError),
    (MemoryError, PtoValueError), (AssertionError, PtoValueError),
)


def api_guard(op: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` raising only PtoErrors (see above); ``op`` names it in messages. The happy
    path costs one try block: whether this guard is the outermost is asked only when an
    error has escaped."""

    @functools.wraps(fn)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except PtoError:
            raise
        except Exception as err:     # converted below or re-raised
            if _inside_a_guard(sys._getframe(1)):
                raise                # the outermost guard converts, naming its op
            for builtin, pto in _BUILTIN_TO_PTO:
                if isinstance(err, builtin):
                    culprit = _culprit(fn, args, kwargs)
                    if culprit is not None:        # a wrong type: say which and what
                        name, want, value = culprit
                        raise PtoTypeError(f"argument {name} must be {want}, got {value}",
                                           op=op, operand=name) from err
                    raise pto(printable(_brief(err)), op=op) from err
            raise

    guarded.__pto_guarded__ = True  # type: ignore[attr-defined]
    return guarded


def _inside_a_guard(frame: Any) -> bool:
    """True when a guarded call is already running further up this thread's stack (every
    guard's wrapper shares one code object)."""
    code = _GUARD_CODE
    while frame is not None:
        if frame.f_code is code:
            return True
        frame = frame.f_back
    return False


_GUARD_CODE = api_guard("", lambda: None).__code__


def _brief(err: BaseException) -> str:
    text = str(err) or type(err).__name__
    text = text if len(text) <= 200 else text[:200] + " ..."
    return f"{type(err).__name__}: {text}" if isinstance(err, (LookupError, AssertionError,
                                                               MemoryError)) else text


def _culprit(fn: Callable[..., Any], args: tuple, kwargs: dict
             ) -> tuple[str, str, str] | None:
    """(name, annotation, shown value) of the first argument whose value does not match
    its annotation; None when all match or the call cannot bind (Python's own message
    then names the argument)."""
    sig = inspect.signature(fn)
    try:
        bound = sig.bind(*args, **kwargs)
    except TypeError:
        return None
    for name, value in bound.arguments.items():
        annotation = str(sig.parameters[name].annotation).strip("'\"")
        if name == "self" or not _mismatch(annotation, value):
            continue
        shown = repr(value)
        shown = shown if len(shown) <= 60 else shown[:60] + "..."
        return name, annotation, printable(f"{shown} ({type(value).__name__})")
    return None


def _mismatch(annotation: str, value: Any) -> bool:
    import numbers
    kinds = {k.strip(" '\"") for k in annotation.replace("|", ",").split(",")}
    if value is None:
        return "None" not in kinds and annotation != "object" and \
            annotation != inspect.Parameter.empty.__name__
    names = {type(value).__name__, *(c.__name__ for c in type(value).__mro__)}
    if kinds & names:
        return False
    if "int" in kinds and isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return False
    if "float" in kinds and isinstance(value, numbers.Real):
        return False
    if any(k.startswith(("tuple", "Sequence", "list")) for k in kinds):
        return not isinstance(value, (tuple, list))
    return bool(kinds & {"int", "str", "bool", "float", "Ptr", "Tile", "GlobalTensor",
                         "DType"})
