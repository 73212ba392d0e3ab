"""Located, counted diagnostics: ``kernel.pto:L:C: warning: <op>: <text> (seen N times)``.

An op reports a suspicious but legal use through `ptosim.errors.warn`; during a kernel run
or a static check those reports land in a `WarningLog`, keyed by the op's source location
and the text, so a warning inside a loop prints once with its count instead of once per
iteration (or, with Python's own warning filter, once per Python source line).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..errors import printable
from ..mlir.ir import Operation

# Kernel texts by file name, for excerpts under diagnostics (the last few parsed).
_SOURCES: dict[str, list[str]] = {}


def remember_source(filename: str, text: str) -> None:
    """Keep ``text`` so diagnostics located in ``filename`` can quote their line."""
    _SOURCES.pop(filename, None)
    if len(_SOURCES) >= 16:
        _SOURCES.pop(next(iter(_SOURCES)))
    _SOURCES[filename] = text.splitlines()


def split_loc(loc: str | None) -> tuple[str, int, int] | None:
    """(file, line, column) of a ``file:line:col`` location (file names may hold colons)."""
    parts = loc.rsplit(":", 2) if loc else []
    if len(parts) != 3 or not parts[1].isdigit() or not parts[2].isdigit():
        return None
    return parts[0], int(parts[1]), int(parts[2])


def excerpt(loc: str | None) -> list[str]:
    """The source line a ``file:line:col`` location points at and a caret under the
    column, as compilers print them; nothing if the text is not known."""
    where = split_loc(loc)
    if where is None:
        return []
    filename, row, col = where
    lines = _SOURCES.get(filename)
    if lines is None or not 1 <= row <= len(lines):
        return []
    text = lines[row - 1].expandtabs(1)
    return [printable(text), " " * (max(col, 1) - 1) + "^"]


def render(loc: str | None, severity: str, message: str, count: int = 1) -> str:
    """One diagnostic line, the way every ptosim command prints it (control characters
    escaped: locations and names come from the kernel's text)."""
    more = f" (seen {count} times)" if count > 1 else ""
    return printable(f"{loc or '?'}: {severity}: {message}{more}")


@dataclass
class Diagnostic:
    message: str
    loc: str | None
    count: int = 1
    severity: str = "warning"
    related: str | None = None      # a second location, printed as a ``note:`` line
    note: str = ""

    def render(self) -> str:
        return render(self.loc, self.severity, self.message, self.count)


class WarningLog:
    """Collects op warnings; ``current`` is the op being executed or checked."""

    def __init__(self, locate: Callable[[Operation], str | None]) -> None:
        self.locate = locate
        self.current: Operation | None = None
        self._entries: dict[tuple[str | None, str], Diagnostic] = {}

    def __call__(self, message: str, related: str | None = None, note: str = "") -> None:
        loc = self.locate(self.current) if self.current is not None else None
        entry = self._entries.get((loc, message))
        if entry is None:
            self._entries[(loc, message)] = Diagnostic(message, loc, related=related,
                                                        note=note)
        else:
            entry.count += 1

    @property
    def diagnostics(self) -> list[Diagnostic]:
        return list(self._entries.values())


__all__ = ["Diagnostic", "WarningLog", "render", "excerpt", "remember_source", "split_loc"]
