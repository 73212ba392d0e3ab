"""Source positions and the exceptions of the MLIR front end.

`Input` and `Span` locate text (a span is a half-open range of character offsets into one
input); `ParseError` carries a span and renders it with the offending line underlined,
`VerifyException` reports IR that breaks an invariant.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from .ir import Attribute


class Location(NamedTuple):
    """``file:line:col`` of a position (line and column count from 1)."""

    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


class Input:
    """A named source text. Immutable; compared by name and content."""

    __slots__ = ("content", "len", "name")

    content: str
    name: str
    len: int

    def __init__(self, content: str, name: str) -> None:
        object.__setattr__(self, "content", content)
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "len", len(content))

    def __setattr__(self, key: str, value: object) -> None:
        raise AttributeError(f"cannot assign to field '{key}'")

    def __len__(self) -> int:
        return self.len

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Input) and self.name == other.name \
            and self.content == other.content

    def __hash__(self) -> int:
        return hash((self.name, self.content))

    def __repr__(self) -> str:
        return f"Input(name={self.name!r})"

    def get_start_of_line(self, pos: int) -> int:
        """Offset of the first character of the line holding ``pos``."""
        return self.content.rfind("\n", 0, pos) + 1

    def get_end_of_line(self, pos: int) -> int:
        """Offset of the newline ending the line holding ``pos`` (or the text's length)."""
        end = self.content.find("\n", pos)
        return self.len if end == -1 else end

    def at(self, i: int) -> str | None:
        return self.content[i] if i < self.len else None

    def slice(self, start: int, end: int) -> str | None:
        if end > self.len or start < 0:
            return None
        return self.content[start:end]


class Span:
    """Characters ``[start, end)`` of ``input``; ``line_offset`` shifts reported lines."""

    __slots__ = ("end", "input", "line_offset", "start")

    start: int
    end: int
    input: Input
    line_offset: int

    def __init__(self, start: int, end: int, input: Input, line_offset: int = 0) -> None:
        object.__setattr__(self, "start", start)
        object.__setattr__(self, "end", end)
        object.__setattr__(self, "input", input)
        object.__setattr__(self, "line_offset", line_offset)

    def __setattr__(self, key: str, value: object) -> None:
        raise AttributeError(f"cannot assign to field '{key}'")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Span) and self.start == other.start \
            and self.end == other.end and self.input == other.input \
            and self.line_offset == other.line_offset

    def __hash__(self) -> int:
        return hash((self.start, self.end, self.line_offset))

    def __len__(self) -> int:
        return self.end - self.start

    @property
    def len(self) -> int:
        return self.end - self.start

    @property
    def content(self) -> str:
        return self.input.content[self.start:self.end]

    @property
    def text(self) -> str:
        return self.input.content[self.start:self.end]

    def get_location(self) -> Location:
        content = self.input.content
        line_start = content.rfind("\n", 0, self.start) + 1
        line = content.count("\n", 0, line_start) + 1 + self.line_offset
        return Location(self.input.name, line, self.start - line_start + 1)

    def print_with_context(self, msg: str | None = None) -> str:
        """The location, the lines the span covers with carets under it, then ``msg``
        (the layout of xDSL's diagnostics)."""
        inp = self.input
        context_start = inp.get_start_of_line(self.start)
        context_end = inp.get_end_of_line(max(self.start, self.end - 1))
        context = inp.content[context_start:context_end]
        start = self.start - context_start
        end = self.end - context_start
        out = [f"{self.get_location()}\n"]
        line_start = 0
        for line in context.split("\n"):
            shown = line.removesuffix("\r")
            col0 = min(max(start - line_start, 0), len(shown))
            col1 = min(max(end - line_start, 0), len(shown))
            out.append(f"{shown}\n{' ' * col0}{'^' * max(col1 - col0, 1)}\n")
            if msg is not None:
                out.append(f"{' ' * col0}{msg}\n")
                msg = None
            line_start += len(line) + 1
        return "".join(out)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}[{self.start}:{self.end}]({self.content!r})"


class DiagnosticException(Exception):
    """An error about the IR or its text that is reported to the user."""


class VerifyException(DiagnosticException):
    """The IR breaks an invariant of an operation, attribute or trait."""


class InterpretationError(DiagnosticException):
    pass


class UnregisteredConstructException(Exception):
    """A dialect, operation or attribute name is not registered."""


class AlreadyRegisteredConstructException(Exception):
    """A dialect, operation or attribute name is registered twice."""


class PyRDLError(Exception):
    """A malformed operation or attribute definition."""


class PyRDLOpDefinitionError(PyRDLError):
    pass


class PyRDLAttrDefinitionError(PyRDLError):
    pass


class PyRDLTypeError(TypeError, PyRDLError):
    pass


class ParseError(Exception):
    """A syntax error at ``span``; ``str()`` shows the source line with the span marked.

    As in xDSL this is not a `DiagnosticException`."""

    span: Span
    msg: str

    def __init__(self, span: Span, msg: str) -> None:
        super().__init__(span, msg)
        self.span = span
        self.msg = msg

    def __str__(self) -> str:
        return self.span.print_with_context(self.msg)

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and self.args == other.args

    __hash__ = Exception.__hash__


class MultipleSpansParseError(ParseError):
    """A ParseError that also points at other places (e.g. an earlier definition)."""

    ref_text: str | None
    refs: list[tuple[Span, str | None]]

    def __init__(self, span: Span, msg: str, ref_text: str | None,
                 refs: list[tuple[Span, str | None]]) -> None:
        Exception.__init__(self, span, msg, ref_text, refs)
        self.span = span
        self.msg = msg
        self.ref_text = ref_text
        self.refs = refs

    def __str__(self) -> str:
        res = self.span.print_with_context(self.msg)
        if self.ref_text is not None:
            res += self.ref_text + "\n"
        for span, msg in self.refs:
            res += span.print_with_context(msg) + "\n"
        return res


class BuilderNotFoundException(Exception):
    """No builder of ``attribute`` accepts ``args``."""

    def __init__(self, attribute: type[Attribute], args: tuple[object, ...]) -> None:
        super().__init__(attribute, args)
        self.attribute = attribute
        self.args_ = args

    def __str__(self) -> str:
        return f"No builder found for attribute {self.attribute} with arguments {self.args_}"
