"""Shared parse and print pieces of the ``pto`` op syntax.

PTO micro ops name their operands first and give all types afterwards in a trailing type
list. `Operands` records each operand with a label and a kind (``ptr``, ``int``, ...) in
source order; once the types are parsed, `Operands.resolve` checks every type against its
operand's kind and against the SSA value's known type, reporting at the offending token.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..mlir.builtin import IndexType
from ..mlir.ir import Attribute, SSAValue
from ..mlir.parser import Parser, UnresolvedOperand
from ..mlir.printer import Printer
from .attributes import PtrType, kind_error, parse_ptr_body

Typed = tuple[Attribute, int]  # a parsed type and the position it started at


class Operands:
    """Operands of one op in source order, as (label, unresolved operand, kind)."""

    def __init__(self, parser: Parser, op_name: str) -> None:
        self.parser = parser
        self.op_name = op_name
        self.items: list[tuple[str, UnresolvedOperand, str]] = []

    def __len__(self) -> int:
        return len(self.items)

    def add(self, label: str, kind: str) -> None:
        """Parse one ``%value`` operand."""
        operand = self.parser.parse_optional_unresolved_operand()
        if operand is None:
            self.parser.raise_error(f"{self.op_name}: expected SSA operand for {label}")
        self.items.append((label, operand, kind))

    def add_list(self, labels: Sequence[str], kinds: str | Sequence[str]) -> None:
        """Comma-separated operands (no delimiters)."""
        for i, label in enumerate(labels):
            if i:
                comma(self.parser, self.op_name, f"before {label}")
            self.add(label, kinds if isinstance(kinds, str) else kinds[i])

    def add_group(self, clause: str, labels: Sequence[str], kind: str | Sequence[str]) -> None:
        """``(%a, %b, ...)`` after a clause keyword, exactly ``len(labels)`` operands."""
        self.parser.parse_punctuation("(", f" after {clause}")
        self.add_list([f"{clause} {lb}" for lb in labels], kind)
        self.parser.parse_punctuation(")", f" to close {clause}(...)")

    def resolve(self, types: Sequence[Typed]) -> list[SSAValue]:
        """Check the parsed types against the operands and resolve them, in order."""
        if len(types) != len(self.items):
            pos = types[-1][1] if types else self.parser.pos
            self.parser.raise_error(f"{self.op_name}: {len(self.items)} operands but "
                                    f"{len(types)} types in the trailing type list", pos)
        values = []
        for (label, operand, kind), (t, pos) in zip(self.items, types):
            if (why := kind_error(kind, t)) is not None:
                self.parser.raise_error(f"{self.op_name}: {label} {why}", pos)
            known = self.parser.ssa_values.get(operand.operand_name)
            if known is not None and operand.index < len(known) \
                    and known[operand.index].type != t:
                self.parser.raise_error(
                    f"{self.op_name}: {label} is typed {t} in the type list but "
                    f"%{operand.operand_name} has type {known[operand.index].type}",
                    operand.span)
            values.append(self.parser.resolve_operand(operand, t))
        return values


def comma(parser: Parser, op_name: str, where: str = "") -> None:
    if parser.parse_optional_punctuation(",") is None:
        parser.raise_error(f"{op_name}: expected ','" + (f" {where}" if where else ""))


def parse_type_at(parser: Parser) -> Typed:
    """One type of a trailing type list. ``<T, space>`` is the short form of a pointer
    (the op's own dialect may be elided, as MLIR prints it)."""
    pos = parser.pos
    if parser.parse_optional_punctuation("<") is not None:
        element, space = parse_ptr_body(parser, opened=True)
        return PtrType(element, space), pos
    return parser.parse_type(), pos


def parse_types(parser: Parser, count: int, op_name: str, first: bool = True) -> list[Typed]:
    """``count`` comma-separated types; ``first`` means no comma before the first one."""
    out = []
    for i in range(count):
        if i or not first:
            comma(parser, op_name, "in the type list (fewer types than operands)")
        out.append(parse_type_at(parser))
    return out


def reject_extra_types(parser: Parser, op_name: str) -> None:
    """A comma after the last expected type means the list is longer than the operands."""
    if parser.parse_optional_punctuation(",") is not None:
        parser.raise_error(f"{op_name}: the trailing type list has more types than operands")


def keyword(parser: Parser, word: str, op_name: str, where: str = "") -> None:
    if parser.parse_optional_keyword(word) is None:
        parser.raise_error(f"{op_name}: expected '{word}'" + (f" {where}" if where else ""))


def choice(parser: Parser, words: Iterable[str], op_name: str, what: str) -> str:
    """One bare word from a closed set."""
    words = tuple(words)
    pos = parser.pos
    word = parser.parse_optional_identifier()
    if word is None or word not in words:
        got = f"'{word}'" if word is not None else "something else"
        parser.raise_error(f"{op_name}: expected {what} ({' | '.join(words)}), got {got}", pos)
    return word


def identifier(parser: Parser, op_name: str, what: str) -> str:
    word = parser.parse_optional_identifier()
    if word is None:
        parser.raise_error(f"{op_name}: expected {what}")
    return word


def resolve_untyped(parser: Parser, operand: UnresolvedOperand,
                    default: Attribute | None = None) -> SSAValue:
    """An operand whose type the syntax does not spell (addptr offsets, sync ids): the
    type it was defined with, or ``default`` (index) for a forward reference."""
    known = parser.ssa_values.get(operand.operand_name)
    if known is not None and operand.index < len(known):
        return known[operand.index]
    return parser.resolve_operand(operand, default or IndexType())


# --- printing ------------------------------------------------------------------------------
def print_values(printer: Printer, values: Iterable[SSAValue]) -> None:
    printer.print_list(values, printer.print_operand)


def print_group(printer: Printer, clause: str, values: Iterable[SSAValue]) -> None:
    printer.print_string(f"{clause}(")
    print_values(printer, values)
    printer.print_string(")")


def print_types(printer: Printer, values: Iterable[SSAValue]) -> None:
    printer.print_list([v.type for v in values], printer.print_attribute)
