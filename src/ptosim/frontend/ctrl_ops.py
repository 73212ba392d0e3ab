"""The CTRL register (sat / tf32 / atomic mode bits) and its scalar bit helpers.

::

    %c = pto.get_ctrl : i64
    pto.set_ctrl %c : i64
    %r = pto.sbitset1 %c, %bit : i64, i64 -> i64      (sbitset0 clears the bit)
"""

from __future__ import annotations

from typing import ClassVar

from ..mlir.builtin import i64
from ..mlir.irdl import IRDLOperation, irdl_op_definition, operand_def, result_def, traits_def
from ..mlir.parser import Parser
from ..mlir.printer import Printer
from ..mlir.traits import Pure
from .syntax import Operands, parse_types, print_types, print_values


def _expect_i64(parser: Parser, name: str) -> None:
    pos = parser.pos
    if parser.parse_type() != i64:
        parser.raise_error(f"{name}: expected i64", pos)


@irdl_op_definition
class GetCtrlOp(IRDLOperation):
    """``result``: the current CTRL register value."""

    name = "pto.get_ctrl"
    result = result_def(i64)

    @classmethod
    def parse(cls, parser: Parser) -> GetCtrlOp:
        parser.parse_punctuation(":", " before the get_ctrl result type")
        _expect_i64(parser, cls.name)
        return cls.build(result_types=[i64])

    def print(self, printer: Printer) -> None:
        printer.print_string(" : i64")


@irdl_op_definition
class SetCtrlOp(IRDLOperation):
    """CTRL register <- ``value``."""

    name = "pto.set_ctrl"
    value = operand_def(i64)

    @classmethod
    def parse(cls, parser: Parser) -> SetCtrlOp:
        ops = Operands(parser, cls.name)
        ops.add("value", "i64")
        parser.parse_punctuation(":", " before the set_ctrl type")
        return cls.build(operands=ops.resolve(parse_types(parser, 1, cls.name)))

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.value)
        printer.print_string(" : i64")


class _BitSet(IRDLOperation):
    """``result`` = ``value`` with bit ``bit`` set (sbitset1) or cleared (sbitset0)."""

    BIT_VALUE: ClassVar[int]

    value = operand_def(i64)
    bit = operand_def(i64)
    result = result_def(i64)
    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser: Parser) -> _BitSet:
        ops = Operands(parser, cls.name)
        ops.add_list(["value", "bit"], "i64")
        parser.parse_punctuation(":", f" before the {cls.name} types")
        types = parse_types(parser, 2, cls.name)
        parser.parse_punctuation("->", f" before the {cls.name} result type")
        _expect_i64(parser, cls.name)
        return cls.build(operands=ops.resolve(types), result_types=[i64])

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        print_values(printer, self.operands)
        printer.print_string(" : ")
        print_types(printer, self.operands)
        printer.print_string(" -> i64")


@irdl_op_definition
class Sbitset0Op(_BitSet):
    name = "pto.sbitset0"
    BIT_VALUE: ClassVar[int] = 0


@irdl_op_definition
class Sbitset1Op(_BitSet):
    name = "pto.sbitset1"
    BIT_VALUE: ClassVar[int] = 1
