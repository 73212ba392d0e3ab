"""Pointer construction: ``pto.castptr`` and ``pto.addptr``.

::

    %p = pto.castptr %addr : i64 -> !pto.ptr<T, space>       (byte address in that space)
    %a = pto.castptr %p : !pto.ptr<T, space> -> i64
    %q = pto.castptr %p : !pto.ptr<T, s> -> !pto.ptr<U, s>    (same space only)
    %r = pto.addptr %p, %off : !pto.ptr<T, s> -> !pto.ptr<T, s>   (offset in elements)
"""

from __future__ import annotations

from ..mlir.exceptions import VerifyException
from ..mlir.ir import Attribute
from ..mlir.irdl import IRDLOperation, irdl_op_definition, operand_def, result_def, traits_def
from ..mlir.parser import Parser
from ..mlir.printer import Printer
from ..mlir.traits import Pure
from .attributes import is_int_type, is_pointer_type, ptr_info
from .syntax import Operands, parse_type_at, resolve_untyped


def _cast_problem(src: Attribute, dst: Attribute) -> str | None:
    if is_pointer_type(src) and is_pointer_type(dst):
        if ptr_info(src)[1] != ptr_info(dst)[1]:
            return (f"a pointer cast keeps the address space ({ptr_info(src)[1]} -> "
                    f"{ptr_info(dst)[1]})")
        return None
    if (is_int_type(src) and is_pointer_type(dst)) or (is_pointer_type(src)
                                                        and is_int_type(dst)):
        return None
    return f"cannot cast {src} to {dst}: expected integer -> pointer, pointer -> integer " \
        f"or pointer -> pointer"


@irdl_op_definition
class CastPtrOp(IRDLOperation):
    """``input`` (integer address or pointer) reinterpreted as ``result.type``."""

    name = "pto.castptr"

    input = operand_def()
    result = result_def()

    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser: Parser) -> CastPtrOp:
        ops = Operands(parser, cls.name)
        ops.add("input", "any")
        parser.parse_punctuation(":", " before the castptr types")
        src = parse_type_at(parser)
        parser.parse_punctuation("->", " between the castptr types")
        dst, pos = parse_type_at(parser)
        if (why := _cast_problem(src[0], dst)) is not None:
            parser.raise_error(f"{cls.name}: {why}", pos)
        (value,) = ops.resolve([src])
        return cls.build(operands=[value], result_types=[dst])

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.input)
        printer.print_string(" : ")
        printer.print_attribute(self.input.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)

    def verify_(self) -> None:
        if (why := _cast_problem(self.input.type, self.result.type)) is not None:
            raise VerifyException(f"{self.name}: {why}")

    def cast_kind(self) -> str:
        """``"int_to_ptr"``, ``"ptr_to_int"`` or ``"ptr_to_ptr"``."""
        if is_pointer_type(self.input.type):
            return "ptr_to_ptr" if is_pointer_type(self.result.type) else "ptr_to_int"
        return "int_to_ptr"


@irdl_op_definition
class AddPtrOp(IRDLOperation):
    """``result = ptr + offset`` elements; same type as ``ptr``. The offset's type
    (index or an integer) is the one it was defined with."""

    name = "pto.addptr"

    ptr = operand_def()
    offset = operand_def()
    result = result_def()

    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser: Parser) -> AddPtrOp:
        ops = Operands(parser, cls.name)
        ops.add("ptr", "ptr")
        parser.parse_punctuation(",", " between the addptr operands")
        offset = parser.parse_unresolved_operand("pto.addptr: expected the offset operand")
        parser.parse_punctuation(":", " before the addptr types")
        src = parse_type_at(parser)
        parser.parse_punctuation("->", " between the addptr types")
        dst, pos = parse_type_at(parser)
        (ptr,) = ops.resolve([src])
        if dst != src[0]:
            parser.raise_error(f"{cls.name}: the result type {dst} must equal the pointer "
                               f"type {src[0]}", pos)
        off = resolve_untyped(parser, offset)
        if not is_int_type(off.type):
            parser.raise_error(f"{cls.name}: the offset must be an index or integer, got "
                               f"{off.type}", offset.span)
        return cls.build(operands=[ptr, off], result_types=[dst])

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.ptr)
        printer.print_string(", ")
        printer.print_operand(self.offset)
        printer.print_string(" : ")
        printer.print_attribute(self.ptr.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)

    def verify_(self) -> None:
        if not is_pointer_type(self.ptr.type) or self.result.type != self.ptr.type:
            raise VerifyException(f"{self.name}: operand and result must be the same pointer "
                                  f"type")
        if not is_int_type(self.offset.type):
            raise VerifyException(f"{self.name}: the offset must be an index or integer")
