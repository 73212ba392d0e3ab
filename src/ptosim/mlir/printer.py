"""MLIR text output: `Printer`, with the API and the exact output of xDSL 0.74's printer.

Values without a name hint are numbered ``%0, %1 ...`` in print order; a hint ``x`` is
printed as ``%x``, then ``%x_1, %x_2 ...`` for later values with the same hint. Ops that are
isolated from above (``builtin.module``, ``func.func``) open a naming scope. Locations are
printed only with ``print_debuginfo``.
"""

from __future__ import annotations

import math
import re
import struct
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import IO, Any, TypeVar

from .builtin import (
    DYNAMIC_INDEX,
    BuiltinAttribute,
    Float32Type,
    Float64Type,
    FunctionType,
    UnitAttr,
    i1,
)
from .ir import (
    Attribute,
    Block,
    BlockArgument,
    Data,
    OpaqueSyntaxAttribute,
    Operation,
    ParametrizedAttribute,
    Region,
    SpacedOpaqueSyntaxAttribute,
    SSAValue,
    TypeAttribute,
)
from .traits import IsolatedFromAbove, IsTerminator

_T = TypeVar("_T")
_K = TypeVar("_K")
_V = TypeVar("_V")

# MLIR's bare identifier: attribute-dictionary keys and symbol names that match it are
# printed unquoted.
_BARE_IDENT = re.compile(r"[a-zA-Z_][a-zA-Z0-9_$.]*")

# Bytes printed as-is inside a string literal (printable ASCII but '"' and '\\'); others
# are escaped: '\\' as '\\\\', the rest as '\\' and two upper-case hex digits.
_ESCAPES: tuple[str, ...] = tuple(
    "\\\\" if b == 0x5C else (f"\\{b:02X}" if b < 0x20 or b > 0x7E or b == 0x22 else chr(b))
    for b in range(256))
_NEEDS_ESCAPE = re.compile(r'[^\x20-\x7e]|["\\]')


class Printer:
    """Writes IR as MLIR text to ``stream`` (standard output when None)."""

    def __init__(self, stream: IO[str] | None = None, print_generic_format: bool = False,
                 print_properties_as_attributes: bool = False,
                 print_debuginfo: bool = False, *, indent_num_spaces: int = 2) -> None:
        self.stream = stream
        self.print_generic_format = print_generic_format
        self.print_properties_as_attributes = print_properties_as_attributes
        self.print_debuginfo = print_debuginfo
        self.indent_num_spaces = indent_num_spaces
        self.printing_location = False
        self._indent = 0
        self._ssa_values: dict[SSAValue, str] = {}
        self._blocks: dict[Block, str] = {}
        self._ssa_names: list[dict[str, int]] = [{}]
        self._block_names: list[dict[str, int]] = [{}]
        self._next_valid_name_id: list[int] = [0]
        self._next_valid_block_id: list[int] = [0]
        if stream is not None:
            self._write: Callable[[str], Any] = stream.write
        else:  # looked up per call, as print() does: sys.stdout may be replaced later
            self._write = lambda text: sys.stdout.write(text)

    # --- low level ------------------------------------------------------------------------
    def print_string(self, text: str, *, indent: int | None = None) -> None:
        """Write ``text``; each newline in it is followed by the indentation (the current
        level, or ``indent`` levels)."""
        if "\n" not in text:
            self._write(text)
            return
        if indent is None:
            indent = self._indent
        self._write(text.replace("\n", "\n" + " " * (indent * self.indent_num_spaces)))

    def _print_new_line(self, indent: int | None = None, print_message: bool = True) -> None:
        if indent is None:
            indent = self._indent
        self._write("\n" + " " * (indent * self.indent_num_spaces))

    def print_list(self, elems: Iterable[_T], print_fn: Callable[[_T], Any],
                   delimiter: str = ", ") -> None:
        first = True
        for elem in elems:
            if first:
                first = False
            else:
                self.print_string(delimiter)
            print_fn(elem)

    def print_dictionary(self, elems: Mapping[_K, _V], print_key: Callable[[_K], None],
                         print_value: Callable[[_V], None], delimiter: str = ", ") -> None:
        for i, (key, value) in enumerate(elems.items()):
            if i:
                self.print_string(delimiter)
            print_key(key)
            self._write("=")
            print_value(value)

    @contextmanager
    def delimited(self, start: str, end: str) -> Iterator[None]:
        self.print_string(start)
        yield
        self.print_string(end)

    def in_angle_brackets(self) -> Any:
        return self.delimited("<", ">")

    def in_braces(self) -> Any:
        return self.delimited("{", "}")

    def in_parens(self) -> Any:
        return self.delimited("(", ")")

    def in_square_brackets(self) -> Any:
        return self.delimited("[", "]")

    @contextmanager
    def indented(self, amount: int = 1) -> Iterator[None]:
        """Indent the lines started inside the block by ``amount`` more levels."""
        self._indent += amount
        try:
            yield
        finally:
            self._indent -= amount

    # --- values and blocks ----------------------------------------------------------------
    @property
    def ssa_names(self) -> dict[str, int]:
        return self._ssa_names[-1]

    @property
    def block_names(self) -> dict[str, int]:
        return self._block_names[-1]

    def _get_new_valid_name_id(self) -> str:
        ids = self._next_valid_name_id
        ids[-1] += 1
        return str(ids[-1] - 1)

    def _get_new_valid_block_id(self) -> int:
        ids = self._next_valid_block_id
        ids[-1] += 1
        return ids[-1] - 1

    def print_ssa_value(self, value: SSAValue) -> str:
        """Print ``%name`` for ``value``, naming it on first sight; returns the name."""
        name = self._ssa_values.get(value)
        if name is None:
            hint = value.name_hint
            if hint:
                names = self._ssa_names[-1]
                n = names.get(hint, 0)
                name = f"{hint}_{n}" if n else hint
                names[hint] = n + 1
            else:
                name = self._get_new_valid_name_id()
            self._ssa_values[value] = name
        self._write("%" + name)
        return name

    def print_operand(self, operand: SSAValue) -> None:
        self.print_ssa_value(operand)

    def print_operands(self, operands: Sequence[SSAValue]) -> None:
        self._write("(")
        self.print_list(operands, self.print_ssa_value)
        self._write(")")

    def _populate_block_name(self, block: Block, block_index: int | None = None) -> None:
        hint = block.name_hint
        if hint:
            names = self._block_names[-1]
            n = names.get(hint, 0)
            name = f"{hint}_{n}" if n else hint
            names[hint] = n + 1
        elif block_index is not None:
            name = f"bb{block_index}"
        else:
            name = f"bb{self._get_new_valid_block_id()}"
        self._blocks[block] = name

    def _get_block_name(self, block: Block) -> str:
        if block not in self._blocks:
            self._populate_block_name(block)
        return self._blocks[block]

    def print_block_name(self, block: Block) -> str:
        """Print ``^name`` for ``block``, naming it on first sight; returns the name."""
        name = self._get_block_name(block)
        self._write("^" + name)
        return name

    def print_block_argument(self, arg: BlockArgument, print_type: bool = True) -> None:
        """``%arg: type`` (or ``%arg`` alone)."""
        self.print_ssa_value(arg)
        if print_type:
            self._write(": ")
            self.print_attribute(arg.type)
            if self.print_debuginfo:
                self._write(" ")
                self.print_attribute(arg.location)

    def print_block(self, block: Block, print_block_args: bool = True,
                    print_block_terminator: bool = True) -> None:
        """``^name(args):`` (unless ``print_block_args`` is False) and the ops, one per
        line, one level deeper."""
        if print_block_args:
            self._print_new_line()
            if block not in self._blocks:
                self._populate_block_name(block)
            self.print_block_name(block)
            if block.args:
                self._write("(")
                self.print_list(block.args, self.print_block_argument)
                self._write(")")
            self._write(":")
        self._indent += 1
        try:
            for op in block.ops:
                if not print_block_terminator and op.has_trait(
                        IsTerminator, value_if_unregistered=False):
                    continue
                self._print_new_line()
                self.print_op(op)
        finally:
            self._indent -= 1

    def print_region(self, region: Region, print_entry_block_args: bool = True,
                     print_empty_block: bool = True,
                     print_block_terminators: bool = True) -> None:
        """``{ blocks }``. The entry block's label is printed when it has arguments and
        ``print_entry_block_args``, or when it is empty and ``print_empty_block``."""
        blocks = list(region.blocks)
        for index, block in enumerate(blocks):   # names in region order, as MLIR does
            if block not in self._blocks:
                self._populate_block_name(block, index)
        self._write("{")
        if not blocks:
            self._print_new_line()
            self._write("}")
            return
        entry = blocks[0]
        show_entry = (bool(entry.args) and print_entry_block_args) or \
            (not _has_ops(entry) and print_empty_block)
        self.print_block(entry, print_block_args=show_entry,
                         print_block_terminator=print_block_terminators)
        for block in blocks[1:]:
            self.print_block(block, print_block_terminator=print_block_terminators)
        self._print_new_line()
        self._write("}")

    def print_regions(self, regions: Sequence[Region]) -> None:
        if not regions:
            return
        self._write(" (")
        self.print_list(regions, self.print_region)
        self._write(")")

    def print_successors(self, successors: Sequence[Block]) -> None:
        if not successors:
            return
        self._write(" [")
        self.print_list(successors, self.print_block_name)
        self._write("]")

    # --- literals -------------------------------------------------------------------------
    def print_string_literal(self, string: str) -> None:
        """A double-quoted MLIR string literal of the UTF-8 bytes of ``string``."""
        if _NEEDS_ESCAPE.search(string) is None:
            self._write('"' + string + '"')
        else:
            self.print_bytes_literal(string.encode("utf-8"))

    def print_bytes_literal(self, bytestring: bytes) -> None:
        escapes = _ESCAPES
        self._write('"' + "".join([escapes[b] for b in bytestring]) + '"')

    def print_identifier_or_string_literal(self, string: str) -> None:
        """``string`` bare if it is an identifier, else as a string literal."""
        if _BARE_IDENT.fullmatch(string) is None:
            self.print_string_literal(string)
        else:
            self._write(string)

    def print_symbol_name(self, sym_name: str) -> None:
        """``@name`` (the name quoted unless it is an identifier)."""
        self._write("@")
        self.print_identifier_or_string_literal(sym_name)

    def print_int(self, value: int, type: Attribute | None = None) -> None:
        """Decimal ``value``; ``true`` / ``false`` when ``type`` is i1."""
        if type is not None and type == i1:
            self._write("true" if value else "false")
        else:
            self._write(f"{value:d}")

    def print_float(self, value: float, type: Any) -> None:
        """``value`` as MLIR prints it for ``type``: ``d.dddddde+XX`` when that reads back
        exactly, else more digits (f32: 9, f64: 17, others: Python's repr), with the bit
        pattern in hex for NaN, infinities and integral values too long to print so."""
        if math.isnan(value) or math.isinf(value):
            raw = type.pack((value,))
            self._write(f"0x{raw[::-1].hex()}")
            return
        text = f"{value:.5e}"
        e = text.find("e")
        text = text[:e] + "0" + text[e:]
        if type.unpack(type.pack([float(text)]), 1)[0] == value:
            self._write(text)
        elif isinstance(type, Float32Type):
            text = f"{value:.9g}"
            if "." in text:
                self._write(text)
            else:
                bits = struct.unpack("<I", struct.pack("<f", value))[0]
                self._write(f"0x{bits:X}")
        elif isinstance(type, Float64Type):
            text = f"{value:.17g}"
            if "." in text:
                self._write(text)
            else:
                bits = struct.unpack("<Q", struct.pack("<d", value))[0]
                self._write(f"0x{bits:X}")
        else:
            self._write(repr(value))

    def print_dimension_list(self, dims: Sequence[int]) -> None:
        """``5x?x4``: dynamic dimensions as ``?``."""
        self._write("x".join(["?" if d == DYNAMIC_INDEX else f"{d:d}" for d in dims]))

    # --- attributes -----------------------------------------------------------------------
    def print_attribute(self, attribute: Attribute) -> None:
        """Builtin attributes in their own syntax; dialect ones as ``!name<...>`` (types)
        or ``#name<...>`` with the class's parameter printer."""
        if isinstance(attribute, BuiltinAttribute):
            attribute.print_builtin(self)
            return
        prefix = "!" if isinstance(attribute, TypeAttribute) else "#"
        opaque = isinstance(attribute, OpaqueSyntaxAttribute)
        if opaque:   # ``#dialect<name params>``
            self._write(prefix + attribute.name.replace(".", "<", 1))
            if isinstance(attribute, SpacedOpaqueSyntaxAttribute):
                self._write(" ")
        else:
            self._write(prefix + attribute.name)
        if isinstance(attribute, Data):
            attribute.print_parameter(self)
        elif isinstance(attribute, ParametrizedAttribute):
            attribute.print_parameters(self)
        if opaque:
            self._write(">")

    def print_paramattr_parameters(self, params: Sequence[Attribute],
                                   always_print_brackets: bool = False) -> None:
        if not params and not always_print_brackets:
            return
        self._write("<")
        self.print_list(params, self.print_attribute)
        self._write(">")

    def _print_attr_string(self, item: tuple[str, Attribute]) -> None:
        name, value = item
        self.print_identifier_or_string_literal(name)
        if not isinstance(value, UnitAttr):
            self._write(" = ")
            self.print_attribute(value)

    def print_attr_dict(self, attr_dict: Mapping[str, Attribute]) -> None:
        """``{name = value, unit_name, ...}``."""
        self._write("{")
        self.print_list(attr_dict.items(), self._print_attr_string)
        self._write("}")

    def _print_op_properties(self, properties: Mapping[str, Attribute]) -> None:
        if properties:
            self._write(" <")
            self.print_attr_dict(properties)
            self._write(">")

    def print_op_attributes(self, attributes: Mapping[str, Attribute], *,
                            reserved_attr_names: Iterable[str] = (),
                            print_keyword: bool = False) -> bool:
        """`` {attrs}`` (after `` attributes`` with ``print_keyword``) without the
        reserved names; nothing, and False, when that leaves no attribute."""
        if not attributes:
            return False
        if reserved_attr_names:
            reserved = set(reserved_attr_names)
            attributes = {k: v for k, v in attributes.items() if k not in reserved}
            if not attributes:
                return False
        if print_keyword:
            self._write(" attributes")
        self._write(" ")
        self.print_attr_dict(attributes)
        return True

    def print_function_type(self, input_types: Iterable[Attribute],
                            output_types: Iterable[Attribute]) -> None:
        """``(ins) -> out``: the outputs in parentheses unless there is exactly one that is
        not itself a function type."""
        self._write("(")
        self.print_list(input_types, self.print_attribute)
        self._write(") -> ")
        outputs = list(output_types)
        if len(outputs) == 1 and not isinstance(outputs[0], FunctionType):
            self.print_attribute(outputs[0])
        else:
            self._write("(")
            self.print_list(outputs, self.print_attribute)
            self._write(")")

    def print_operation_type(self, op: Operation) -> None:
        self.print_function_type([v.type for v in op.operands], [r.type for r in op.results])
        if self.print_debuginfo:
            self._write(" ")
            self.print_attribute(op.location)

    @contextmanager
    def in_location(self) -> Iterator[None]:
        """``loc(...)`` around the outermost location being printed."""
        if self.printing_location:
            yield
            return
        self.printing_location = True
        self._write("loc(")
        yield
        self._write(")")
        self.printing_location = False

    # --- operations -----------------------------------------------------------------------
    def enter_scope(self) -> None:
        self._next_valid_name_id.append(self._next_valid_name_id[-1])
        self._next_valid_block_id.append(self._next_valid_block_id[-1])
        self._ssa_names.append(self._ssa_names[-1].copy())
        self._block_names.append(self._block_names[-1].copy())

    def exit_scope(self) -> None:
        self._next_valid_name_id.pop()
        self._next_valid_block_id.pop()
        self._ssa_names.pop()
        self._block_names.pop()

    def print_op_with_default_format(self, op: Operation) -> None:
        """The generic form after the name: ``(%a) [^succ] <{props}> (regions) {attrs} :
        (types) -> types``."""
        self.print_operands(op.operands)
        self.print_successors(op.successors)
        if self.print_properties_as_attributes:
            self.print_regions(op.regions)
            clashing = op.properties.keys() & op.attributes.keys()
            if clashing:
                raise ValueError(f"Properties {', '.join(clashing)} would overwrite the "
                                 "attributes of the same names.")
            self.print_op_attributes({**op.attributes, **op.properties})
        else:
            self._print_op_properties(op.properties)
            self.print_regions(op.regions)
            self.print_op_attributes(op.attributes)
        self._write(" : ")
        self.print_operation_type(op)

    def print_op(self, op: Operation) -> None:
        """``%results = `` and the op in its custom syntax if its class has one (and the
        printer is not generic), else in the generic form."""
        scope = op.has_trait(IsolatedFromAbove)
        results = op.results
        if results:
            self.print_list(results, self.print_ssa_value)
            self._write(" = ")
        if scope:
            self.enter_scope()
        if self.print_generic_format or type(op).print is Operation.print:
            self._write(f'"{op.name}"')
            self.print_op_with_default_format(op)
        else:
            self._write(op.name)
            op.print(self)
            if self.print_debuginfo:
                self._write(" ")
                self.print_attribute(op.location)
        if scope:
            self.exit_scope()


def _has_ops(block: Block) -> bool:
    for _ in block.ops:
        return True
    return False
