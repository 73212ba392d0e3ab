"""The scalar debug print (PTOAS ``PrintOp``)::

    pto.print ins("%+08.3f", %v : f32)

``printf(format, value)`` on the core that runs it: the format is a string attribute, the
value one index / integer / float scalar. `c_printf` renders a C format string.
"""

from __future__ import annotations

import re

from ..errors import PtoValueError
from ..mlir.builtin import (
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerType,
    StringAttr,
)
from ..mlir.irdl import IRDLOperation, irdl_op_definition, operand_def, prop_def
from ..mlir.parser import Parser
from ..mlir.printer import Printer

_SCALARS = (IndexType, IntegerType, Float16Type, Float32Type, Float64Type)
# one printf conversion: flags, width, precision, length modifier (dropped), conversion
_CONVERSION = re.compile(
    r"%([-+ #0]*)(\d+|\*)?(?:\.(\d+|\*))?(hh|h|ll|l|j|z|t|L)?([diouxXeEfFgGaAcs%])")


@irdl_op_definition
class PrintOp(IRDLOperation):
    """``format`` (a StringAttr) and the scalar ``value``."""

    name = "pto.print"
    format = prop_def(StringAttr)
    value = operand_def()

    @classmethod
    def parse(cls, parser: Parser) -> PrintOp:
        parser.parse_keyword("ins")
        parser.parse_punctuation("(")
        text = parser.parse_str_literal(" (the format string)")
        parser.parse_punctuation(",")
        unresolved = parser.parse_unresolved_operand()
        parser.parse_punctuation(":")
        pos = parser.pos
        t = parser.parse_type()
        if not isinstance(t, _SCALARS):
            parser.raise_error(f"pto.print prints an index, integer or float scalar, got {t}",
                               pos)
        parser.parse_punctuation(")")
        value = parser.resolve_operand(unresolved, t)
        return cls.build(operands=[value], properties={"format": StringAttr(text)})

    def print(self, printer: Printer) -> None:
        printer.print_string(" ins(")
        printer.print_string_literal(self.format.data)
        printer.print_string(", ")
        printer.print_operand(self.value)
        printer.print_string(f" : {self.value.type})")


def c_printf(fmt: str, value: int | float, bits: int = 64) -> str:
    """``printf(fmt, value)`` for one scalar of ``bits`` bits: C flags, width and precision,
    length modifiers ignored (the value's own width counts: %x of an i32 -1 is ffffffff),
    ``%%`` a percent sign; a format with more than one conversion is an error."""
    used = [m for m in _CONVERSION.finditer(fmt) if m[5] != "%"]
    if len(used) > 1:
        raise PtoValueError(f"format {fmt!r} has {len(used)} conversions; pto.print passes "
                            f"one value", op="pto.print")
    if any(m[2] == "*" or m[3] == "*" for m in used):
        raise PtoValueError(f"format {fmt!r}: a '*' width or precision needs a second value",
                            op="pto.print", operand="format")

    def one(m: re.Match[str]) -> str:
        flags, width, prec, _, conv = m.groups()
        if conv == "%":
            return "%"
        if conv in "diouxXc":
            n = int(value)
            if conv in "ouxX" and n < 0:          # C reinterprets as the unsigned type
                n &= (1 << bits) - 1
            v: int | float = n
            conv = "d" if conv in "iu" else conv
        elif conv in "aA":                        # hexadecimal float
            text = float(value).hex()
            return text.upper() if conv == "A" else text
        elif conv == "s":
            v = value
        else:
            v = float(value)
        arg: int | float | str = v
        if conv == "o" and "#" in flags:          # C's alternate octal is a leading 0
            digits = f"{int(v):o}"
            arg, conv = ("0" + digits if digits[0] != "0" else digits), "s"
            flags = flags.replace("#", "").replace("0", "")
        spec = f"%{flags}{width or ''}{'.' + prec if prec is not None else ''}{conv}"
        return spec % arg
    return _CONVERSION.sub(one, fmt)
