"""PTOAS's frontend cube <-> vector pipe ops (PTOOps.td, "Frontend TPUSH/TPOP Pipe
Communication Ops") and the consumer slot buffers they use::

    %b = pto.reserve_buffer {name = "c2v_fifo", size = 4096,
                             location = #pto.address_space<vec>, auto = true} -> i32
    %p = pto.import_reserved_buffer {name = "c2v_fifo", peer_func = @vector_fn} -> i32
    pto.aic_initialize_pipe {id = 0, dir_mask = 1, slot_size = 1024}
        (c2v_consumer_buf = %p : i32)
    pto.tpush_to_aiv(%acc : !pto.tile_buf<...>) {id = 0, split = 0}
    %t = pto.tpop_from_aic {id = 0, split = 0} -> !pto.tile_buf<...>
    %t = pto.tpop_from_aic (%vr, %vc) {split = 0} -> !pto.tile_buf<...>
    pto.tfree_from_aic {id = 0, split = 0}          (or pto.tfree_from_aic(%t : T) {...})

Attributes stay in the op's attribute dictionary, as written; the verifier checks the ones
PTOAS's verifiers check (tile roles, split, dir_mask, sizes).
"""

from __future__ import annotations

from typing import ClassVar, TypeVar

from ..isa import OpSpec
from ..mlir.builtin import (
    IndexType,
    IntegerAttr,
    IntegerType,
    StringAttr,
    SymbolRefAttr,
    UnitAttr,
)
from ..mlir.exceptions import VerifyException
from ..mlir.ir import Attribute, SSAValue
from ..mlir.irdl import IRDLOperation, irdl_op_definition, var_operand_def, var_result_def
from ..mlir.parser import Parser
from ..mlir.printer import Printer
from .attributes import AddressSpaceAttr
from .tile_types import TileBufType

SPLITS = (0, 1, 2)              # TILE_NO_SPLIT, TILE_UP_DOWN, TILE_LEFT_RIGHT
_BUFFER_NAMES = ("c2v_consumer_buf", "v2c_consumer_buf", "gm_slot_buffer", "gm_slot_tensor")


def _attrs(parser: Parser, name: str) -> dict[str, Attribute]:
    """The op's ``{key = value, ...}``. PTOAS's reserve_buffer assembly format prints its
    ``location`` enum without the dialect prefix (``location = <vec>``): accepted as
    ``#pto.address_space<vec>``."""
    pos = parser.pos
    if parser.parse_optional_punctuation("{") is None:
        parser.raise_error(f"{name}: expected its '{{...}}' attribute dictionary", pos)
    attrs: dict[str, Attribute] = {}
    if parser.parse_optional_punctuation("}") is not None:
        parser.raise_error(f"{name}: expected its '{{...}}' attribute dictionary", pos)
    while True:
        key_pos = parser.pos
        key = parser.parse_optional_identifier() or parser.parse_optional_str_literal()
        if key is None:
            parser.raise_error(f"{name}: expected an attribute name", key_pos)
        at = parser.pos
        if parser.parse_optional_punctuation("=") is None:          # a unit attribute
            attrs[key] = UnitAttr()
        elif key == "location" and parser.parse_optional_punctuation("<") is not None:
            word = parser.parse_optional_identifier()
            if word is None or word not in AddressSpaceAttr.CHOICES:
                parser.raise_error(f"{name}: expected an address space (one of "
                                   f"{', '.join(AddressSpaceAttr.CHOICES)})", at)
            parser.parse_punctuation(">", " to close the address space")
            attrs[key] = AddressSpaceAttr(StringAttr(AddressSpaceAttr._canonical(word)))
        else:
            attrs[key] = parser.parse_attribute()
        if parser.parse_optional_punctuation(",") is None:
            break
    parser.parse_punctuation("}", f" to close the attributes of {name}")
    return attrs


def int_attr(op: IRDLOperation, key: str, default: int | None = None) -> int | None:
    """An integer (or boolean) attribute's value, ``default`` when absent."""
    a = op.attributes.get(key)
    if a is None:
        return default
    if isinstance(a, IntegerAttr):
        return int(a.value.data)
    raise VerifyException(f"{op.name}: '{key}' must be an integer, got {a}")


def _need_int(op: IRDLOperation, key: str) -> int:
    value = int_attr(op, key)
    if value is None:
        raise VerifyException(f"{op.name}: requires the '{key}' attribute")
    return value


def _check_split(op: IRDLOperation) -> None:
    split = _need_int(op, "split")
    if split not in SPLITS:
        raise VerifyException(f"{op.name}: split must be 0 (no split), 1 (up-down) or 2 "
                              f"(left-right), got {split}")
    ident = int_attr(op, "id", 0)
    assert ident is not None
    if ident < 0:
        raise VerifyException(f"{op.name}: id must not be negative, got {ident}")


def _tile_loc(t: Attribute) -> str | None:
    return t.loc.data if isinstance(t, TileBufType) else None


class _PipeOp(IRDLOperation):
    SPEC: ClassVar[OpSpec]
    args = var_operand_def()
    res = var_result_def()

    def print(self, printer: Printer) -> None:
        printer.print_op_attributes(self.attributes)
        if self.res:
            printer.print_string(" -> ")
            printer.print_attribute(self.res[0].type)


_T = TypeVar("_T", bound="_PipeOp")


def _attrs_then_result(cls: type[_T], parser: Parser) -> _T:
    """``{attributes} -> type``: the reserve / import forms."""
    attrs = _attrs(parser, cls.name)
    parser.parse_punctuation("->", f" before the result type of {cls.name}")
    return cls.build(operands=[[]], result_types=[[parser.parse_type()]], attributes=attrs)


@irdl_op_definition
class ReserveBufferOp(_PipeOp):
    """A named consumer slot buffer in this function's local memory (``vec`` or ``mat``)."""

    name = "pto.reserve_buffer"

    @classmethod
    def parse(cls, parser: Parser) -> ReserveBufferOp:
        return _attrs_then_result(cls, parser)

    def verify_(self) -> None:
        name, loc = self.attributes.get("name"), self.attributes.get("location")
        if not isinstance(name, StringAttr) or not name.data:
            raise VerifyException(f"{self.name}: requires a non-empty string 'name'")
        size = _need_int(self, "size")
        if size <= 0:
            raise VerifyException(f"{self.name}: size must be positive, got {size}")
        if not isinstance(loc, AddressSpaceAttr) or loc.value.data not in ("vec", "mat"):
            raise VerifyException(f"{self.name}: location must be #pto.address_space<vec> or "
                                  f"<mat>, got {loc}")
        if not isinstance(self.attributes.get("auto"), IntegerAttr):
            raise VerifyException(f"{self.name}: requires 'auto = true' or 'auto = false'")
        base = int_attr(self, "base")
        if not int_attr(self, "auto") and base is None:
            raise VerifyException(f"{self.name}: 'auto = false' requires an explicit 'base'")
        if base is not None and (base < 0 or base % 32):
            raise VerifyException(f"{self.name}: base must be a non-negative multiple of 32, "
                                  f"got {base}")
        if len(self.res) != 1 or self.res[0].type != IntegerType(32):
            raise VerifyException(f"{self.name}: the result is one i32 address")

    def buffer_name(self) -> str:
        return self.attributes["name"].data  # type: ignore[attr-defined]

    def space_name(self) -> str:
        return self.attributes["location"].value.data  # type: ignore[attr-defined]


@irdl_op_definition
class ImportReservedBufferOp(_PipeOp):
    """The address of a buffer ``peer_func`` reserves under ``name``."""

    name = "pto.import_reserved_buffer"

    @classmethod
    def parse(cls, parser: Parser) -> ImportReservedBufferOp:
        return _attrs_then_result(cls, parser)

    def verify_(self) -> None:
        if not isinstance(self.attributes.get("name"), StringAttr):
            raise VerifyException(f"{self.name}: requires a string 'name'")
        if not isinstance(self.attributes.get("peer_func"), SymbolRefAttr):
            raise VerifyException(f"{self.name}: requires 'peer_func = @function'")
        if len(self.res) != 1 or self.res[0].type != IntegerType(32):
            raise VerifyException(f"{self.name}: the result is one i32 address")

    def buffer_name(self) -> str:
        return self.attributes["name"].data  # type: ignore[attr-defined]

    def peer(self) -> str:
        return self.attributes["peer_func"].string_value()  # type: ignore[attr-defined]


class _InitPipe(_PipeOp):
    """``{id, dir_mask, slot_size[, slot_num, local_slot_num, nosplit]}`` then
    ``(c2v_consumer_buf = %a : i32, v2c_consumer_buf = %b : i32)``; the operands' names
    are kept in the ``buffers`` attribute, in order."""

    @classmethod
    def parse(cls, parser: Parser) -> _InitPipe:
        attrs = _attrs(parser, cls.name)
        names: list[str] = []
        values: list[SSAValue] = []
        if parser.parse_optional_punctuation("(") is not None:
            while True:
                pos = parser.pos
                word = parser.parse_identifier(f" (a buffer name) in {cls.name}")
                if word not in _BUFFER_NAMES or word in names:
                    parser.raise_error(f"{cls.name}: expected one of {', '.join(_BUFFER_NAMES)}"
                                       f" once each, got {word}", pos)
                parser.parse_punctuation("=")
                operand = parser.parse_unresolved_operand()
                parser.parse_punctuation(":")
                values.append(parser.resolve_operand(operand, parser.parse_type()))
                names.append(word)
                if parser.parse_optional_punctuation(")") is not None:
                    break
                parser.parse_punctuation(",")
        attrs["buffers"] = StringAttr(",".join(names))
        return cls.build(operands=[values], result_types=[[]], attributes=attrs)

    def print(self, printer: Printer) -> None:
        printer.print_op_attributes({k: v for k, v in self.attributes.items()
                                     if k != "buffers"})
        if self.args:
            printer.print_string(" (")
            for i, (n, v) in enumerate(zip(self.buffer_names(), self.args)):
                printer.print_string(f"{', ' if i else ''}{n} = ")
                printer.print_operand(v)
                printer.print_string(" : ")
                printer.print_attribute(v.type)
            printer.print_string(")")

    def buffer_names(self) -> list[str]:
        text = self.attributes["buffers"].data  # type: ignore[attr-defined]
        return text.split(",") if text else []

    def buffer(self, name: str) -> SSAValue | None:
        names = self.buffer_names()
        return self.args[names.index(name)] if name in names else None

    def verify_(self) -> None:
        dir_mask = _need_int(self, "dir_mask")
        if dir_mask not in (1, 2, 3):
            raise VerifyException(f"{self.name}: dir_mask must be 1 (C2V), 2 (V2C) or 3 (both), "
                                  f"got {dir_mask}")
        slot_size = _need_int(self, "slot_size")
        if slot_size <= 0:
            raise VerifyException(f"{self.name}: slot_size must be positive, got {slot_size}")
        slot_num = int_attr(self, "slot_num")
        if slot_num is not None and slot_num not in (1, 2, 4, 8):   # PTOAS verifier
            raise VerifyException(f"{self.name}: slot_num must be 1, 2, 4 or 8, got {slot_num}")
        ident = int_attr(self, "id", 0)
        assert ident is not None
        if ident < 0:
            raise VerifyException(f"{self.name}: id must not be negative, got {ident}")
        names = self.buffer_names()
        local = "c2v_consumer_buf" in names, "v2c_consumer_buf" in names
        if "gm_slot_tensor" not in names and "gm_slot_buffer" not in names \
                and local[0] != local[1]:                           # PTOAS verifier
            raise VerifyException(f"{self.name}: expects 'c2v_consumer_buf' and "
                                  f"'v2c_consumer_buf' to be provided together")
        local_slots = int_attr(self, "local_slot_num")
        if local_slots is not None:
            limit = slot_num if slot_num is not None else (4 if dir_mask == 3 else 8)
            if local_slots <= 0:
                raise VerifyException(f"{self.name}: expects 'local_slot_num' to be greater "
                                      f"than 0")
            if local_slots > limit:
                raise VerifyException(f"{self.name}: expects 'local_slot_num' to be less than "
                                      f"or equal to slot_num ({limit}) for dir_mask = "
                                      f"{dir_mask}")
        if dir_mask & 1 and "c2v_consumer_buf" not in names and "gm_slot_buffer" not in names:
            raise VerifyException(f"{self.name}: dir_mask {dir_mask} (C2V) requires "
                                  f"c2v_consumer_buf")
        if dir_mask & 2 and "v2c_consumer_buf" not in names and "gm_slot_buffer" not in names:
            raise VerifyException(f"{self.name}: dir_mask {dir_mask} (V2C) requires "
                                  f"v2c_consumer_buf")


@irdl_op_definition
class AicInitializePipeOp(_InitPipe):
    name = "pto.aic_initialize_pipe"


@irdl_op_definition
class AivInitializePipeOp(_InitPipe):
    name = "pto.aiv_initialize_pipe"


class _Push(_PipeOp):
    """``(%tile : T) {id = n, split = s}``; ``LOC``: the role the pushed tile must have."""

    LOC: ClassVar[str]

    @classmethod
    def parse(cls, parser: Parser) -> _Push:
        parser.parse_punctuation("(", f" after {cls.name}")
        operand = parser.parse_unresolved_operand()
        parser.parse_punctuation(":")
        tile = parser.resolve_operand(operand, parser.parse_type())
        parser.parse_punctuation(")")
        attrs = _attrs(parser, cls.name)
        return cls.build(operands=[[tile]], result_types=[[]], attributes=attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string("(")
        printer.print_operand(self.args[0])
        printer.print_string(" : ")
        printer.print_attribute(self.args[0].type)
        printer.print_string(") ")
        printer.print_op_attributes(self.attributes)

    def verify_(self) -> None:
        _check_split(self)
        if len(self.args) != 1 or _tile_loc(self.args[0].type) != self.LOC:
            got = self.args[0].type if self.args else "nothing"
            raise VerifyException(f"{self.name}: pushes a loc={self.LOC} tile, got {got}")


@irdl_op_definition
class TPushToAivOp(_Push):
    name = "pto.tpush_to_aiv"
    LOC: ClassVar[str] = "acc"


@irdl_op_definition
class TPushToAicOp(_Push):
    name = "pto.tpush_to_aic"
    LOC: ClassVar[str] = "vec"


class _Pop(_PipeOp):
    """``[(%valid_row, %valid_col)] {id = n, split = s} -> T``."""

    LOC: ClassVar[str]

    @classmethod
    def parse(cls, parser: Parser) -> _Pop:
        values: list[SSAValue] = []
        if parser.parse_optional_punctuation("(") is not None:
            for i in range(2):
                if i:
                    parser.parse_punctuation(",")
                values.append(parser.resolve_operand(parser.parse_unresolved_operand(),
                                                     IndexType()))
            parser.parse_punctuation(")")
        attrs = _attrs(parser, cls.name)
        parser.parse_punctuation("->", f" before the tile type of {cls.name}")
        return cls.build(operands=[values], result_types=[[parser.parse_type()]],
                         attributes=attrs)

    def print(self, printer: Printer) -> None:
        if self.args:
            printer.print_string(" (")
            printer.print_operand(self.args[0])
            printer.print_string(", ")
            printer.print_operand(self.args[1])
            printer.print_string(")")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" -> ")
        printer.print_attribute(self.res[0].type)

    def verify_(self) -> None:
        _check_split(self)
        t = self.res[0].type if len(self.res) == 1 else None
        if t is None or _tile_loc(t) != self.LOC:
            raise VerifyException(f"{self.name}: pops a loc={self.LOC} tile, got {t}")
        assert isinstance(t, TileBufType)
        dynamic = t.valid_row.data < 0 or t.valid_col.data < 0
        # PTOAS: operands need a dynamic valid shape; a dynamic one without operands is
        # accepted (lit tpush_tpop_dynamic_validshape_default_a5) and runs as the full shape
        if self.args and not dynamic:
            raise VerifyException(f"{self.name}: expects tile result to have dynamic validShape "
                                  f"(?, ?) when valid_row/valid_col operands are provided")


@irdl_op_definition
class TPopFromAicOp(_Pop):
    name = "pto.tpop_from_aic"
    LOC: ClassVar[str] = "vec"


@irdl_op_definition
class TPopFromAivOp(_Pop):
    name = "pto.tpop_from_aiv"
    LOC: ClassVar[str] = "mat"


class _Free(_PipeOp):
    """``[(%entry : T)] {id = n, split = s}``."""

    @classmethod
    def parse(cls, parser: Parser) -> _Free:
        values: list[SSAValue] = []
        if parser.parse_optional_punctuation("(") is not None:
            operand = parser.parse_unresolved_operand()
            parser.parse_punctuation(":")
            values.append(parser.resolve_operand(operand, parser.parse_type()))
            parser.parse_punctuation(")")
        attrs = _attrs(parser, cls.name)
        return cls.build(operands=[values], result_types=[[]], attributes=attrs)

    def print(self, printer: Printer) -> None:
        if self.args:
            printer.print_string("(")
            printer.print_operand(self.args[0])
            printer.print_string(" : ")
            printer.print_attribute(self.args[0].type)
            printer.print_string(")")
        printer.print_string(" ")
        printer.print_op_attributes(self.attributes)

    def verify_(self) -> None:
        _check_split(self)


@irdl_op_definition
class TFreeFromAicOp(_Free):
    name = "pto.tfree_from_aic"


@irdl_op_definition
class TFreeFromAivOp(_Free):
    name = "pto.tfree_from_aiv"


PIPE_OPS = (ReserveBufferOp, ImportReservedBufferOp, AicInitializePipeOp, AivInitializePipeOp,
            TPushToAivOp, TPushToAicOp, TPopFromAicOp, TPopFromAivOp, TFreeFromAicOp,
            TFreeFromAivOp)
