"""Expected-diagnostic comments (``ptosim check --verify-diagnostics``), as MLIR's
``-verify-diagnostics`` reads them::

    pto.mte_gm_ub %x, %ub, ...   // expected-error {{len_burst = 0 is out of range}}
    // expected-warning @+1 {{destination bursts may overlap}}
    pto.mte_gm_ub ...

``expected-error``, ``expected-warning`` or ``expected-note``, an optional line offset
(``@+N``, ``@-N``; default: the comment's own line) and the text between ``{{`` and ``}}``,
which must occur in the diagnostic's message. Every diagnostic must be expected and every
expectation met.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .diagnostics import split_loc

_EXPECT = re.compile(r"//\s*expected-(error|warning|note)\s*(?:@([+-]\d+))?\s*\{\{(.*?)\}\}")


@dataclass
class Expectation:
    severity: str
    line: int
    text: str
    source_line: int            # where the comment is
    met: bool = False


@dataclass
class Seen:
    """One diagnostic as the check produced it."""

    severity: str
    line: int | None
    message: str
    text: str                   # the rendered line, for the report


def expectations(text: str) -> list[Expectation]:
    """Every expected-* comment of a kernel's text, with the line it applies to."""
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        for match in _EXPECT.finditer(line):
            severity, offset, wanted = match.groups()
            found.append(Expectation(severity, number + int(offset or 0), wanted, number))
    return found


def line_of(loc: str | None) -> int | None:
    """The line of a ``file:line:col`` location."""
    where = split_loc(loc)
    return where[1] if where is not None else None


def verify(expected: list[Expectation], seen: list[Seen], filename: str) -> list[str]:
    """Match diagnostics to expectations; the problems, as diagnostic lines (none: ok)."""
    problems = []
    for diag in seen:
        match = next((e for e in expected if not e.met and e.severity == diag.severity and
                      e.line == diag.line and e.text in diag.message), None)
        if match is None:
            problems.append(f"{filename}:{diag.line or '?'}: error: unexpected {diag.severity}: "
                            f"{diag.text}")
        else:
            match.met = True
    for e in expected:
        if not e.met:
            problems.append(f"{filename}:{e.source_line}: error: expected {e.severity} on line "
                            f"{e.line} was not produced: {{{{{e.text}}}}}")
    return problems
