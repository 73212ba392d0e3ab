"""PTOAS's ops on tile handles and GM views that the scalar unit runs, in its spellings
(include/PTO/IR/PTOOps.td, VPTOOps.td; verifiers in lib/PTO/IR/PTO.cpp, VPTO.cpp)::

    %v = pto.tgetval ins(%src, %off : T, index) outs : E
    pto.tsetval ins(%off, %val : index, E) outs(%dst : T)
    %t1 = pto.tassign %t, %addr : T -> T                     (%addr : i64)
    %r = pto.tile_valid_rows %t : T -> index                 (tile_valid_cols alike)
    %d = pto.get_tensor_view_dim %tv, %i : V -> index        (get_tensor_view_stride alike)
    %p = pto.tensor_view_addr %tv : V -> !pto.ptr<E, gm>     (or -> memref<..., gm>)

``T`` is a ``!pto.tile_buf``, ``E`` its element type, ``V`` a ``!pto.tensor_view``,
``!pto.partition_tensor_view`` or a GM memref of static shape. tgetval / tsetval are tile
ops (the interpreter calls ``TGETVAL`` / ``TSETVAL`` under the hazard checker, scalar pipe);
the others are views evaluated by the interpreter (and folded by ``ptosim check``).
"""

from __future__ import annotations

from typing import ClassVar

from ..isa import OpSpec
from ..mlir.builtin import IndexType, IntegerType, MemRefType, Signedness
from ..mlir.exceptions import VerifyException
from ..mlir.ir import Attribute
from ..mlir.irdl import IRDLOperation, irdl_op_definition, operand_def, result_def, traits_def
from ..mlir.parser import Parser
from ..mlir.printer import Printer
from ..mlir.traits import Pure
from .attributes import AddressSpaceAttr, PtrType, element_name, ptr_info
from .syntax import Operands, keyword, parse_type_at, parse_types, resolve_untyped
from .tile_types import (
    PartitionTensorViewType,
    TensorViewType,
    TileBufType,
    memref_view,
)


def _is_index(t: Attribute) -> bool:
    return isinstance(t, IndexType)


def _is_i64(t: Attribute) -> bool:
    return isinstance(t, IntegerType) and t.width.data == 64 \
        and t.signedness.data == Signedness.SIGNLESS


def _attrs(parser: Parser) -> dict[str, Attribute]:
    attrs = parser.parse_optional_attr_dict()
    return dict(attrs) if attrs else {}


def _print_attrs(printer: Printer, op: IRDLOperation) -> None:
    if op.attributes:
        printer.print_op_attributes(op.attributes)


# --- tgetval / tsetval ------------------------------------------------------------------------
def getval_problem(src: Attribute, offset: Attribute, result: Attribute) -> str | None:
    """Why PTOAS's TGetValOp verifier (and its ODS types) refuse these types, or None."""
    if not isinstance(src, TileBufType):
        return f"expects src to be tile_buf, got {src}"     # PTOAS also takes a UB memref
    if src.loc.data == "mat":
        return "Ascend hardware does not support reading from Mat tile_buf to Scalar unit"
    if src.loc.data != "vec":
        return "expects src memory space to be vec"
    if not _is_index(offset):
        return f"offset must be index, got {offset}"
    if src.element != result:
        return "expects dst type to match src element type"
    return None


def setval_problem(dst: Attribute, offset: Attribute, val: Attribute) -> str | None:
    """Why PTOAS's TSetValOp verifier (and its ODS types) refuse these types, or None."""
    if not isinstance(dst, TileBufType):
        return f"expects dst to be tile_buf, got {dst}"
    if not _is_index(offset):
        return f"offset must be index, got {offset}"
    if dst.element != val:
        return "expects val type to match dst element type"
    return None


def _ins_then_outs(parser: Parser, name: str, names: list[str], kinds: list[str]
                   ) -> tuple[Operands, list[tuple[Attribute, int]]]:
    """``ins(%a, %b : A, B) outs``: the operands (unresolved), their types and positions."""
    keyword(parser, "ins", name)
    parser.parse_punctuation("(", " after ins")
    ops = Operands(parser, name)
    ops.add_list(names, kinds)
    parser.parse_punctuation(":", f" before the ins(...) types of {name}")
    types = parse_types(parser, len(names), name)
    parser.parse_punctuation(")", " to close ins(...)")
    keyword(parser, "outs", name)
    return ops, types


@irdl_op_definition
class TGetValOp(IRDLOperation):
    """``%v = pto.tgetval ins(%src, %offset : T, index) outs : E``."""

    name = "pto.tgetval"
    SPEC: ClassVar[OpSpec]

    src = operand_def()
    offset = operand_def()
    result = result_def()

    @classmethod
    def parse(cls, parser: Parser) -> TGetValOp:
        name = cls.name
        ops, types = _ins_then_outs(parser, name, ["src", "offset"], ["tile", "any"])
        parser.parse_punctuation(":", f" before the result type of {name}")
        result, pos = parse_type_at(parser)
        attrs = _attrs(parser)
        src, offset = ops.resolve(types)
        if (why := getval_problem(src.type, offset.type, result)) is not None:
            parser.raise_error(f"{name}: {why}", pos if "dst type" in why else types[0][1])
        return cls.build(operands=[src, offset], result_types=[result], attributes=attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ins(")
        printer.print_list([self.src, self.offset], printer.print_operand)
        printer.print_string(" : ")
        printer.print_list([self.src.type, self.offset.type], printer.print_attribute)
        printer.print_string(") outs : ")
        printer.print_attribute(self.result.type)
        _print_attrs(printer, self)

    def verify_(self) -> None:
        why = getval_problem(self.src.type, self.offset.type, self.result.type)
        if why is not None:
            raise VerifyException(f"{self.name}: {why}")

    def tile_call(self) -> tuple[list[object], dict[str, object]]:
        return [self.src, self.offset], {}


@irdl_op_definition
class TSetValOp(IRDLOperation):
    """``pto.tsetval ins(%offset, %val : index, E) outs(%dst : T)``."""

    name = "pto.tsetval"
    SPEC: ClassVar[OpSpec]

    dst = operand_def()
    offset = operand_def()
    val = operand_def()

    @classmethod
    def parse(cls, parser: Parser) -> TSetValOp:
        name = cls.name
        ops, types = _ins_then_outs(parser, name, ["offset", "val"], ["any", "number"])
        parser.parse_punctuation("(", " after outs")
        ops.add("dst", "tile")
        parser.parse_punctuation(":", f" before the outs(...) type of {name}")
        dst_t = parse_type_at(parser)
        parser.parse_punctuation(")", " to close outs(...)")
        attrs = _attrs(parser)
        offset, val, dst = ops.resolve([*types, dst_t])
        if (why := setval_problem(dst.type, offset.type, val.type)) is not None:
            parser.raise_error(f"{name}: {why}", types[0][1] if "offset" in why else dst_t[1])
        return cls.build(operands=[dst, offset, val], attributes=attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ins(")
        printer.print_list([self.offset, self.val], printer.print_operand)
        printer.print_string(" : ")
        printer.print_list([self.offset.type, self.val.type], printer.print_attribute)
        printer.print_string(") outs(")
        printer.print_operand(self.dst)
        printer.print_string(" : ")
        printer.print_attribute(self.dst.type)
        printer.print_string(")")
        _print_attrs(printer, self)

    def verify_(self) -> None:
        why = setval_problem(self.dst.type, self.offset.type, self.val.type)
        if why is not None:
            raise VerifyException(f"{self.name}: {why}")

    def tile_call(self) -> tuple[list[object], dict[str, object]]:
        return [self.dst, self.offset, self.val], {}


# --- tassign ----------------------------------------------------------------------------------
def tassign_problem(tile: Attribute, addr: Attribute, result: Attribute) -> str | None:
    """Why PTOAS's TAssignOp verifier (and its ODS types) refuse these types, or None."""
    if not isinstance(tile, TileBufType):
        return f"expects a !pto.tile_buf tile, got {tile}"
    if not _is_i64(addr):
        return f"addr must be i64, got {addr}"
    if tile != result:
        return "result type must match tile operand type"
    return None


@irdl_op_definition
class TAssignOp(IRDLOperation):
    """``%t1 = pto.tassign %tile, %addr : T -> T``: the tile bound at byte ``addr``."""

    name = "pto.tassign"
    SPEC: ClassVar[OpSpec]

    tile = operand_def()
    addr = operand_def()
    result = result_def()

    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser: Parser) -> TAssignOp:
        name = cls.name
        ops = Operands(parser, name)
        ops.add("tile", "tile")
        parser.parse_punctuation(",", " before addr")
        addr_u = parser.parse_unresolved_operand(f"{name}: expected addr")
        attrs = _attrs(parser)
        parser.parse_punctuation(":", f" before the types of {name}")
        tile_t = parse_type_at(parser)
        parser.parse_punctuation("->", f" between the types of {name}")
        result, pos = parse_type_at(parser)
        (tile,) = ops.resolve([tile_t])
        addr = resolve_untyped(parser, addr_u, IntegerType(64))
        if (why := tassign_problem(tile.type, addr.type, result)) is not None:
            parser.raise_error(f"{name}: {why}", addr_u.span.start if "addr" in why else pos)
        return cls.build(operands=[tile, addr], result_types=[result], attributes=attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list([self.tile, self.addr], printer.print_operand)
        _print_attrs(printer, self)
        printer.print_string(" : ")
        printer.print_attribute(self.tile.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)

    def verify_(self) -> None:
        why = tassign_problem(self.tile.type, self.addr.type, self.result.type)
        if why is not None:
            raise VerifyException(f"{self.name}: {why}")


# --- tile_valid_rows / tile_valid_cols --------------------------------------------------------
class _TileValid(IRDLOperation):
    """``%n = pto.tile_valid_rows %src : T -> index`` (PTOAS folds these to constants or
    to the tile's runtime valid counts; ptosim reads the tile's valid region)."""

    SPEC: ClassVar[OpSpec]
    AXIS: ClassVar[int]

    src = operand_def()
    result = result_def(IndexType)

    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser: Parser) -> _TileValid:
        name = cls.name
        ops = Operands(parser, name)
        ops.add("src", "tile")
        attrs = _attrs(parser)
        parser.parse_punctuation(":", f" before the types of {name}")
        src_t = parse_type_at(parser)
        parser.parse_punctuation("->", f" between the types of {name}")
        result, pos = parse_type_at(parser)
        if not _is_index(result):
            parser.raise_error(f"{name}: the result must be index, got {result}", pos)
        (src,) = ops.resolve([src_t])
        return cls.build(operands=[src], result_types=[result], attributes=attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.src)
        _print_attrs(printer, self)
        printer.print_string(" : ")
        printer.print_attribute(self.src.type)
        printer.print_string(" -> index")


@irdl_op_definition
class TileValidRowsOp(_TileValid):
    name = "pto.tile_valid_rows"
    AXIS: ClassVar[int] = 0


@irdl_op_definition
class TileValidColsOp(_TileValid):
    name = "pto.tile_valid_cols"
    AXIS: ClassVar[int] = 1


# --- get_tensor_view_dim / get_tensor_view_stride ---------------------------------------------
def view_rank(t: Attribute) -> int:
    """The rank of a tensor_view / partition_tensor_view / GM memref type."""
    mem = memref_view(t)
    if mem is not None:
        return len(mem[0])
    assert isinstance(t, (TensorViewType, PartitionTensorViewType))
    return len(t.shape.data)


class _ViewQuery(IRDLOperation):
    """``%n = pto.get_tensor_view_dim %tv, %dim : V -> index``: the size (``_dim``) or
    stride in elements (``_stride``) of one dimension of the view."""

    SPEC: ClassVar[OpSpec]
    WHAT: ClassVar[str]

    tensor_view = operand_def()
    dim_index = operand_def()
    result = result_def(IndexType)

    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser: Parser) -> _ViewQuery:
        name = cls.name
        ops = Operands(parser, name)
        ops.add("tensor_view", "view")
        parser.parse_punctuation(",", " before dim_index")
        dim_u = parser.parse_unresolved_operand(f"{name}: expected dim_index")
        parser.parse_punctuation(":", f" before the types of {name}")
        view_t = parse_type_at(parser)
        parser.parse_punctuation("->", f" between the types of {name}")
        result, pos = parse_type_at(parser)
        attrs = _attrs(parser)
        if not _is_index(result):
            parser.raise_error(f"{name}: the result must be index, got {result}", pos)
        (view,) = ops.resolve([view_t])
        dim = resolve_untyped(parser, dim_u)
        if not _is_index(dim.type):
            parser.raise_error(f"{name}: dim_index must be index, got {dim.type}", dim_u.span)
        return cls.build(operands=[view, dim], result_types=[result], attributes=attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list([self.tensor_view, self.dim_index], printer.print_operand)
        printer.print_string(" : ")
        printer.print_attribute(self.tensor_view.type)
        printer.print_string(" -> index")
        _print_attrs(printer, self)


@irdl_op_definition
class GetTensorViewDimOp(_ViewQuery):
    name = "pto.get_tensor_view_dim"
    WHAT: ClassVar[str] = "size"


@irdl_op_definition
class GetTensorViewStrideOp(_ViewQuery):
    name = "pto.get_tensor_view_stride"
    WHAT: ClassVar[str] = "stride"


# --- tensor_view_addr -------------------------------------------------------------------------
def _gm(space: Attribute | None) -> bool:
    return space is None or (isinstance(space, AddressSpaceAttr) and space.space() == "gm")


def view_addr_problem(src: Attribute, dst: Attribute) -> str | None:
    """Why PTOAS's TensorViewAddrOp verifier refuses these types, or None."""
    mem = memref_view(src)
    element: str | None
    if mem is not None:
        element, rank = mem[2], len(mem[0])
    elif isinstance(src, (TensorViewType, PartitionTensorViewType)):
        element, rank = element_name(src.element), len(src.shape.data)
    elif isinstance(src, MemRefType):
        return "memref source must stay in gm memory space" if not _gm(src.memory_space) \
            else "a memref source needs a static shape here (ptosim's GM memref views)"
    else:
        return "source must be a tensor_view, partition_tensor_view, or memref"
    if isinstance(dst, MemRefType):
        if element_name(dst.element_type) != element:
            return "memref result element type must match source element type"
        if len(dst.get_shape()) != rank:
            return "memref result rank must match source rank"
        if not _gm(dst.memory_space):
            return "memref result must stay in gm memory space"
        return None
    if not isinstance(dst, PtrType):
        return "result must be a memref or !pto.ptr<...>"
    if element_name(dst.element) != element:
        return "pointer result element type must match source element type"
    if ptr_info(dst)[1] != "gm":
        return "pointer result must stay in gm memory space"
    return None


@irdl_op_definition
class TensorViewAddrOp(IRDLOperation):
    """``%p = pto.tensor_view_addr %tv : V -> !pto.ptr<E, gm>`` (or a GM memref): the
    view's first element's address (a partition's offsets included)."""

    name = "pto.tensor_view_addr"
    SPEC: ClassVar[OpSpec]

    src = operand_def()
    dst = result_def()

    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser: Parser) -> TensorViewAddrOp:
        name = cls.name
        ops = Operands(parser, name)
        ops.add("src", "any")
        attrs = _attrs(parser)
        parser.parse_punctuation(":", f" before the types of {name}")
        src_t = parse_type_at(parser)
        parser.parse_punctuation("->", f" between the types of {name}")
        dst, pos = parse_type_at(parser)
        (src,) = ops.resolve([src_t])
        if (why := view_addr_problem(src.type, dst)) is not None:
            parser.raise_error(f"{name}: {why}", src_t[1] if "source" in why else pos)
        return cls.build(operands=[src], result_types=[dst], attributes=attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.src)
        _print_attrs(printer, self)
        printer.print_string(" : ")
        printer.print_attribute(self.src.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.dst.type)

    def verify_(self) -> None:
        if (why := view_addr_problem(self.src.type, self.dst.type)) is not None:
            raise VerifyException(f"{self.name}: {why}")


HANDLE_OPS = (TGetValOp, TSetValOp, TAssignOp, TileValidRowsOp, TileValidColsOp,
              GetTensorViewDimOp, GetTensorViewStrideOp, TensorViewAddrOp)
