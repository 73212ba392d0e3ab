"""Tile-level ops: GM views, tile allocation, and the destination-passing tile ops.

::

    %v  = pto.make_tensor_view %ptr, shape = [%d0, ...], strides = [%t0, ...]
              [{layout = #pto.layout<nd|dn|nz>}] : !pto.tensor_view<D0x...xT>
    %pv = pto.partition_view %v, offsets = [%o0, ...], sizes = [%s0, ...]
              : !pto.tensor_view<...> [-> !pto.partition_tensor_view<...>]
    %t  = pto.alloc_tile [addr = %a] [valid_row = %r] [valid_col = %c] : !pto.tile_buf<...>
    %p  = pto.tile_buf_addr %t : !pto.tile_buf<...> -> !pto.ptr<T, space>

    pto.tload ins(%pv : !pto.partition_tensor_view<...>) outs(%t : !pto.tile_buf<...>)
    pto.tstore ins(%t : !pto.tile_buf<...>) outs(%pv : !pto.partition_tensor_view<...>)
    pto.tmov ins(%src : TB) outs(%dst : TB)
    pto.tmatmul ins(%a, %b : TB, TB) outs(%c : TB)
    pto.tmatmul.acc ins(%c_in, %a, %b : TB, TB, TB) outs(%c : TB)
    pto.tmatmul.bias ins(%a, %b, %bias : TB, TB, TB) outs(%c : TB)
    pto.tgemv[.acc|.bias] ins(...) outs(%c : TB)   (the same operands, GEMV mode)
    pto.tmatmul.mx ins(%a, %a_scale, %b, %b_scale : TB, TB, TB, TB) outs(%c : TB)
    pto.tmatmul.mx.acc ins(%c_in, %a, %a_scale, %b, %b_scale : ...) outs(%c : TB)
    pto.tmatmul.mx.bias ins(%a, %a_scale, %b, %b_scale, %bias : ...) outs(%c : TB)
    pto.tgemv.mx[.acc|.bias] ins(...) outs(%c : TB)   (the same operands, GEMV mode)
    pto.textract ins(%src, %row, %col : TB, index, index) outs(%dst : TB)
    pto.tinsert ins(%src, %row, %col : TB, index, index) outs(%dst : TB)
    pto.tfillpad | pto.tfillpad_expand | pto.tfillpad_inplace ins(%src : TB) outs(%dst : TB)

Operands whose type the syntax does not spell (the pointer, shape, strides, offsets, sizes,
addr, valid_row, valid_col) take the type they were defined with; shape-like operands must
be index or integer scalars. The view pointer must be a GM pointer of the view's element;
a static view dim must equal a constant size operand; a partition without ``->`` gets the
type inferred from its constant sizes (``?`` for the others); the printer always writes
``->``. ``valid_row``/``valid_col`` are present exactly when that valid dim is ``?``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Self

from ..dtypes import DTYPES
from ..isa import OpSpec
from ..mlir.arith import ConstantOp
from ..mlir.builtin import IndexType, IntegerAttr, LocationAttr, i1, i64
from ..mlir.exceptions import VerifyException
from ..mlir.ir import Attribute, Block, OpResult, Region, SSAValue
from ..mlir.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from ..mlir.parser import Parser, UnresolvedOperand
from ..mlir.printer import Printer
from ..mlir.traits import Pure
from .attributes import PtrType, element_name, is_int_type, is_pointer_type, kind_error, ptr_info
from .syntax import (
    Operands,
    keyword,
    parse_type_at,
    parse_types,
    print_types,
    print_values,
    resolve_untyped,
)
from .tile_types import (
    PADS,
    AccPhaseAttr,
    AccToVecModeAttr,
    AtomicTypeAttr,
    GatherOOBAttr,
    LayoutAttr,
    PadModeAttr,
    PartitionTensorViewType,
    ReluPreModeAttr,
    ScatterAtomicOpAttr,
    ScatterOOBAttr,
    STPhaseAttr,
    TensorViewType,
    TileBufType,
    is_tile_type,
    tile_space,
)


def constant_int(value: SSAValue) -> int | None:
    """The value of an ``arith.constant`` integer / index operand, else None."""
    if isinstance(value, OpResult) and isinstance(value.owner, ConstantOp) \
            and isinstance(value.owner.value, IntegerAttr):
        return value.owner.value.value.data
    return None       # not a constant, a block argument, or not defined yet


def _operand_list(parser: Parser, op_name: str, clause: str) -> tuple[list[UnresolvedOperand],
                                                                     int]:
    """``clause = [%a, %b, ...]``; returns the operands and where the list starts."""
    keyword(parser, clause, op_name)
    parser.parse_punctuation("=", f" after {clause}")
    pos = parser.pos
    items = parser.parse_comma_separated_list(
        parser.Delimiter.SQUARE,
        lambda: parser.parse_unresolved_operand(f"{op_name}: expected an SSA operand in "
                                                f"{clause} = [...]"))
    return items, pos


def _resolve_ints(parser: Parser, op_name: str, clause: str,
                  operands: Sequence[UnresolvedOperand]) -> list[SSAValue]:
    values = []
    for i, operand in enumerate(operands):
        value = resolve_untyped(parser, operand, IndexType())
        if not is_int_type(value.type):
            parser.raise_error(f"{op_name}: {clause}[{i}] must be an index or integer scalar, "
                               f"got {value.type}", operand.span)
        values.append(value)
    return values


def _static_mismatch(op_name: str, dims: Sequence[int | None], values: Sequence[SSAValue],
                     clause: str) -> tuple[int, str] | None:
    """A static dim of a type that differs from its constant operand: (index, message)."""
    for i, (dim, value) in enumerate(zip(dims, values)):
        const = constant_int(value)
        if dim is not None and const is not None and const != dim:
            return i, (f"{op_name}: {clause}[{i}] is {const} but the type's dim {i} is "
                       f"{dim}")
    return None


# --- views -------------------------------------------------------------------------------------
def _view_problem(ptr: Attribute, view: Attribute, n_shape: int,
                  n_strides: int) -> tuple[str, str] | None:
    """(where, why) a make_tensor_view is inconsistent: where is ptr / type / shape /
    strides."""
    if not isinstance(view, TensorViewType):
        return "type", f"the result must be a !pto.tensor_view, got {view}"
    if not is_pointer_type(ptr):
        return "ptr", f"the source must be a !pto.ptr, got {ptr}"
    dtype, space = ptr_info(ptr)
    if space != "gm" or dtype != element_name(view.element):
        return "ptr", (f"the source must be a GM pointer to {view.element}, got {ptr}")
    rank = len(view.shape)
    if n_shape != rank:
        return "shape", f"shape has {n_shape} operands but the view has rank {rank}"
    if n_strides != rank:
        return "strides", f"strides has {n_strides} operands but the view has rank {rank}"
    return None


@irdl_op_definition
class MakeTensorViewOp(IRDLOperation):
    """A GM tensor: base pointer, one shape and one stride (elements) operand per dim,
    optional GM layout hint."""

    name = "pto.make_tensor_view"

    ptr = operand_def()
    shape = var_operand_def()
    strides = var_operand_def()
    layout_hint = opt_prop_def(LayoutAttr, prop_name="layout")
    result = result_def()

    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser: Parser) -> MakeTensorViewOp:
        name = cls.name
        ptr = parser.parse_unresolved_operand(f"{name}: expected the pointer operand")
        parser.parse_punctuation(",", " after the pointer")
        shape, shape_pos = _operand_list(parser, name, "shape")
        parser.parse_punctuation(",", " after shape = [...]")
        strides, strides_pos = _operand_list(parser, name, "strides")
        attr_pos = parser.pos
        props: dict[str, Attribute] = {}
        for key, value in parser.parse_optional_attr_dict().items():
            if key != "layout" or not isinstance(value, LayoutAttr):
                parser.raise_error(f"{name}: the only attribute is 'layout = "
                                   f"#pto.layout<nd|dn|nz>', got '{key}'", attr_pos)
            props["layout"] = value
        parser.parse_punctuation(":", f" before the type of {name}")
        view, type_pos = parse_type_at(parser)
        default = PtrType(view.element) if isinstance(view, TensorViewType) else None
        ptr_value = resolve_untyped(parser, ptr, default)
        problem = _view_problem(ptr_value.type, view, len(shape), len(strides))
        if problem is not None:
            where: Any = {"type": type_pos, "ptr": ptr.span, "shape": shape_pos,
                     "strides": strides_pos}[problem[0]]
            parser.raise_error(f"{name}: {problem[1]}", where)
        shape_values = _resolve_ints(parser, name, "shape", shape)
        stride_values = _resolve_ints(parser, name, "strides", strides)
        assert isinstance(view, TensorViewType)
        if (bad := _static_mismatch(name, view.dims(), shape_values, "shape")) is not None:
            parser.raise_error(bad[1], shape[bad[0]].span)
        return cls.build(operands=[ptr_value, shape_values, stride_values],
                         result_types=[view], properties=props)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.ptr)
        printer.print_string(", shape = [")
        print_values(printer, self.shape)
        printer.print_string("], strides = [")
        print_values(printer, self.strides)
        printer.print_string("]")
        if self.layout_hint is not None:
            printer.print_string(" {layout = ")
            printer.print_attribute(self.layout_hint)
            printer.print_string("}")
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)

    def verify_(self) -> None:
        problem = _view_problem(self.ptr.type, self.result.type, len(self.shape),
                                len(self.strides))
        if problem is not None:
            raise VerifyException(f"{self.name}: {problem[1]}")
        for clause, values in (("shape", self.shape), ("strides", self.strides)):
            for i, v in enumerate(values):
                if not is_int_type(v.type):
                    raise VerifyException(f"{self.name}: {clause}[{i}] must be an index or "
                                          f"integer scalar, got {v.type}")
        assert isinstance(self.result.type, TensorViewType)
        if (bad := _static_mismatch(self.name, self.result.type.dims(), self.shape,
                                    "shape")) is not None:
            raise VerifyException(bad[1])

    def shape_operands(self) -> list[SSAValue]:
        return list(self.shape)

    def stride_operands(self) -> list[SSAValue]:
        """Strides in elements, one per dim."""
        return list(self.strides)

    def layout(self) -> str | None:
        """``"ND"``, ``"DN"``, ``"NZ"`` from ``{layout = #pto.layout<...>}``, else None."""
        return self.layout_hint.value.data.upper() if self.layout_hint is not None else None


def _partition_problem(source: Attribute, result: Attribute, offsets: Sequence[SSAValue],
                       sizes: Sequence[SSAValue]) -> tuple[str, str] | None:
    """(where, why) a partition_view is inconsistent: where is type / result / offsets /
    sizes, or (str(i) for a size index)."""
    if not isinstance(source, TensorViewType):
        return "type", f"the source must be a !pto.tensor_view, got {source}"
    rank = len(source.shape)
    if len(offsets) != rank:
        return "offsets", f"offsets has {len(offsets)} operands but the view has rank {rank}"
    if len(sizes) != rank:
        return "sizes", f"sizes has {len(sizes)} operands but the view has rank {rank}"
    if not isinstance(result, PartitionTensorViewType) or len(result.shape) != rank \
            or result.element != source.element:
        return "result", (f"the result must be a rank-{rank} !pto.partition_tensor_view of "
                          f"{source.element}, got {result}")
    src_dims, dims = source.dims(), result.dims()
    for i in range(rank):
        off, size = constant_int(offsets[i]), constant_int(sizes[i])
        if (off is not None and off < 0) or (size is not None and size < 0):
            return str(i), f"offset and size {i} must not be negative"
        if size is not None and dims[i] is not None and size != dims[i]:
            return str(i), f"sizes[{i}] is {size} but the result's dim {i} is {dims[i]}"
        src_dim = src_dims[i]
        if off is not None and size is not None and src_dim is not None \
                and off + size > src_dim:
            return str(i), (f"offsets[{i}] + sizes[{i}] = {off + size} exceeds the source "
                            f"dim {src_dims[i]}")
    return None


@irdl_op_definition
class PartitionViewOp(IRDLOperation):
    """A window of a tensor view: one offset and one size operand per dim; strides are the
    source's."""

    name = "pto.partition_view"

    source = operand_def()
    offsets = var_operand_def()
    sizes = var_operand_def()
    result = result_def()

    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser: Parser) -> PartitionViewOp:
        name = cls.name
        ops = Operands(parser, name)
        ops.add("source", "tensor_view")
        parser.parse_punctuation(",", " after the source view")
        offsets, offsets_pos = _operand_list(parser, name, "offsets")
        parser.parse_punctuation(",", " after offsets = [...]")
        sizes, sizes_pos = _operand_list(parser, name, "sizes")
        parser.parse_punctuation(":", f" before the types of {name}")
        source_t = parse_type_at(parser)
        (source,) = ops.resolve([source_t])
        offset_values = _resolve_ints(parser, name, "offsets", offsets)
        size_values = _resolve_ints(parser, name, "sizes", sizes)
        result_pos = parser.pos
        if parser.parse_optional_punctuation("->") is not None:
            result_pos = parser.pos
            result, _ = parse_type_at(parser)
        else:
            assert isinstance(source.type, TensorViewType)
            result = PartitionTensorViewType([constant_int(v) for v in size_values],
                                             source.type.element)
        problem = _partition_problem(source.type, result, offset_values, size_values)
        if problem is not None:
            where = {"type": source_t[1], "offsets": offsets_pos, "sizes": sizes_pos,
                     "result": result_pos}.get(problem[0])
            parser.raise_error(f"{name}: {problem[1]}",
                               where if where is not None else sizes[int(problem[0])].span)
        return cls.build(operands=[source, offset_values, size_values], result_types=[result])

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.source)
        printer.print_string(", offsets = [")
        print_values(printer, self.offsets)
        printer.print_string("], sizes = [")
        print_values(printer, self.sizes)
        printer.print_string("] : ")
        printer.print_attribute(self.source.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)

    def verify_(self) -> None:
        problem = _partition_problem(self.source.type, self.result.type, self.offsets,
                                     self.sizes)
        if problem is not None:
            raise VerifyException(f"{self.name}: {problem[1]}")
        for clause, values in (("offsets", self.offsets), ("sizes", self.sizes)):
            for i, v in enumerate(values):
                if not is_int_type(v.type):
                    raise VerifyException(f"{self.name}: {clause}[{i}] must be an index or "
                                          f"integer scalar, got {v.type}")

    def offset_operands(self) -> list[SSAValue]:
        """Element offsets into the source, one per dim."""
        return list(self.offsets)

    def size_operands(self) -> list[SSAValue]:
        return list(self.sizes)


# --- tiles -------------------------------------------------------------------------------------
_ALLOC_CLAUSES = (("addr", "addr_value", i64), ("valid_row", "valid_row_value", IndexType()),
                  ("valid_col", "valid_col_value", IndexType()))


def _alloc_problem(tile: Attribute, valid_row: SSAValue | None,
                   valid_col: SSAValue | None) -> tuple[str, str] | None:
    if not isinstance(tile, TileBufType):
        return "type", f"the result must be a !pto.tile_buf, got {tile}"
    for clause, value, dim in (("valid_row", valid_row, tile.valid_row.data),
                               ("valid_col", valid_col, tile.valid_col.data)):
        if (value is not None) != (dim < 0):
            if value is None:
                return "type", (f"the tile's {clause} is ? so the op needs "
                                f"'{clause} = %value'")
            return clause, f"{clause} is given but the tile's {clause} is static ({dim})"
    return None


@irdl_op_definition
class AllocTileOp(IRDLOperation):
    """A tile buffer; ``addr`` (i64 byte address in the tile's buffer) places it, the
    valid operands give the dynamic (``?``) valid dims."""

    name = "pto.alloc_tile"

    addr_value = opt_operand_def()
    valid_row_value = opt_operand_def()
    valid_col_value = opt_operand_def()
    result = result_def()

    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    @classmethod
    def parse(cls, parser: Parser) -> AllocTileOp:
        name = cls.name
        given: dict[str, UnresolvedOperand] = {}
        for clause, _, _ in _ALLOC_CLAUSES:
            if parser.parse_optional_keyword(clause) is not None:
                parser.parse_punctuation("=", f" after {clause}")
                given[clause] = parser.parse_unresolved_operand(
                    f"{name}: expected an SSA operand after '{clause} ='")
        parser.parse_punctuation(":", f" before the type of {name} (clauses: [addr = %a] "
                                      f"[valid_row = %r] [valid_col = %c], in this order)")
        tile, type_pos = parse_type_at(parser)
        values: dict[str, SSAValue] = {}
        for clause, _, default in _ALLOC_CLAUSES:
            if clause in given:
                values[clause] = v = resolve_untyped(parser, given[clause], default)
                if not is_int_type(v.type):
                    parser.raise_error(f"{name}: {clause} must be an index or integer scalar, "
                                       f"got {v.type}", given[clause].span)
        problem = _alloc_problem(tile, values.get("valid_row"), values.get("valid_col"))
        if problem is not None:
            where = type_pos if problem[0] == "type" else given[problem[0]].span
            parser.raise_error(f"{name}: {problem[1]}", where)
        return cls.build(operands=[[values[c]] if c in values else [] for c, _, _ in
                                   _ALLOC_CLAUSES], result_types=[tile])

    def print(self, printer: Printer) -> None:
        for clause, field, _ in _ALLOC_CLAUSES:
            value = getattr(self, field)
            if value is not None:
                printer.print_string(f" {clause} = ")
                printer.print_operand(value)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)

    def verify_(self) -> None:
        problem = _alloc_problem(self.result.type, self.valid_row_value, self.valid_col_value)
        if problem is not None:
            raise VerifyException(f"{self.name}: {problem[1]}")
        for clause, field, _ in _ALLOC_CLAUSES:
            value = getattr(self, field)
            if value is not None and not is_int_type(value.type):
                raise VerifyException(f"{self.name}: {clause} must be an index or integer "
                                      f"scalar, got {value.type}")

    def addr(self) -> SSAValue | None:
        """The byte address in the tile's buffer, or None (placed automatically)."""
        return self.addr_value

    def valid_row(self) -> SSAValue | None:
        """The runtime valid row count (only when the type's valid row is ``?``)."""
        return self.valid_row_value

    def valid_col(self) -> SSAValue | None:
        return self.valid_col_value


def _addr_problem(tile: Attribute, ptr: Attribute) -> str | None:
    if not isinstance(tile, TileBufType):
        return f"the operand must be a !pto.tile_buf, got {tile}"
    if not is_pointer_type(ptr):
        return f"the result must be a !pto.ptr (or pointer memref), got {ptr}"
    dtype, space = ptr_info(ptr)
    if dtype != element_name(tile.element) or space != tile_space(tile):
        return (f"the result must point to {tile.element} in {tile_space(tile)} (the "
                f"{tile.loc.data} tile's buffer), got {ptr}")
    return None


@irdl_op_definition
class TileBufAddrOp(IRDLOperation):
    """The address of a tile's data, as a pointer into the tile's buffer."""

    name = "pto.tile_buf_addr"

    tile = operand_def()
    result = result_def()

    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser: Parser) -> TileBufAddrOp:
        ops = Operands(parser, cls.name)
        ops.add("tile", "tile")
        parser.parse_punctuation(":", f" before the types of {cls.name}")
        tile_t = parse_type_at(parser)
        parser.parse_punctuation("->", f" between the types of {cls.name}")
        ptr, pos = parse_type_at(parser)
        (tile,) = ops.resolve([tile_t])
        if (why := _addr_problem(tile.type, ptr)) is not None:
            parser.raise_error(f"{cls.name}: {why}", pos)
        return cls.build(operands=[tile], result_types=[ptr])

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.tile)
        printer.print_string(" : ")
        printer.print_attribute(self.tile.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)

    def verify_(self) -> None:
        if (why := _addr_problem(self.tile.type, self.result.type)) is not None:
            raise VerifyException(f"{self.name}: {why}")


# --- destination-passing tile ops ---------------------------------------------------------
class TileOp(IRDLOperation):
    """A tile op written ``ins(...) outs(%dst : T)``; the interpreter runs it as
    ``getattr(machine, SPEC.method)(*pos, **kw)`` with ``pos, kw = op.tile_call()`` after
    replacing each SSAValue by its runtime value (Tile, GlobalTensor or int)."""

    SPEC: ClassVar[OpSpec]
    SLOTS: ClassVar[tuple[tuple[str, str], ...]]   # (operand, kind): ins..., then the out
    CALL: ClassVar[tuple[str, ...]]                # operands in the Machine method's order
    ROLES: ClassVar[dict[str, tuple[str, ...]]] = {}   # operand -> the tile locs it may have
    ATTRS: ClassVar[dict[str, type[Attribute]]] = {}    # trailing {key = #pto...} it accepts

    @classmethod
    def parse(cls, parser: Parser) -> TileOp:
        values, attrs = cls._parse_core(parser)
        return cls.build(operands=values, attributes=attrs)

    @classmethod
    def create(cls, *, operands: Sequence[SSAValue] = (),
               result_types: Sequence[Attribute] = (),
               properties: Mapping[str, Attribute] = {},
               attributes: Mapping[str, Attribute] = {},
               location: LocationAttr | None = None, successors: Sequence[Block] = (),
               regions: Sequence[Region] = ()) -> Self:
        """The generic form ``"pto.tmov"(...) <{reluPreMode = ...}>`` (MLIR prints inherent
        attributes as properties): the ATTRS found among the properties are attributes
        here, as the custom form's ``{...}`` makes them."""
        moved = {k: v for k, v in properties.items() if k in cls.ATTRS}
        if moved:
            properties = {k: v for k, v in properties.items() if k not in moved}
            attributes = {**attributes, **moved}
        return super().create(operands=operands, result_types=result_types,
                              properties=properties, attributes=attributes,
                              location=location, successors=successors, regions=regions)

    @classmethod
    def _parse_core(cls, parser: Parser) -> tuple[list[SSAValue], dict[str, Attribute]]:
        """``ins(...) outs(...) [{attrs}]``: the SLOTS operands and the attributes."""
        name = cls.name
        ops = Operands(parser, name)
        ins, out = cls.SLOTS[:-1], cls.SLOTS[-1]
        keyword(parser, "ins", name)
        parser.parse_punctuation("(", " after ins")
        ops.add_list([label for label, _ in ins], [kind for _, kind in ins])
        parser.parse_punctuation(":", f" before the ins(...) types of {name} ({len(ins)} "
                                      f"operand{'s' if len(ins) > 1 else ''})")
        types = parse_types(parser, len(ins), name)
        _close(parser, name, "ins")
        keyword(parser, "outs", name, "after ins(...)")
        parser.parse_punctuation("(", " after outs")
        ops.add(out[0], out[1])
        parser.parse_punctuation(":", f" before the outs(...) type of {name}")
        types += parse_types(parser, 1, name)
        _close(parser, name, "outs")
        attrs = cls._parse_attrs(parser)
        values = ops.resolve(types)
        for (label, _), (t, type_pos) in zip(cls.SLOTS, types):
            if (why := cls._role_problem(label, t)) is not None:
                parser.raise_error(f"{name}: {label} {why}", type_pos)
        return values, attrs

    @classmethod
    def _parse_attrs(cls, parser: Parser) -> dict[str, Attribute]:
        pos = parser.pos
        if not cls.ATTRS:
            if parser.parse_optional_punctuation("{") is not None:
                parser.raise_error(f"{cls.name}: attributes are not supported", pos)
            return {}
        attrs = parser.parse_optional_attr_dict()
        for key, value in attrs.items():
            want = cls.ATTRS.get(key)
            if want is None or not isinstance(value, want):
                known = ", ".join(f"{k} = true|false" if a is IntegerAttr else
                                  f"{k} = #{a.name}<...>" for k, a in cls.ATTRS.items())
                parser.raise_error(f"{cls.name}: unsupported attribute '{key}' (known: "
                                   f"{known})", pos)
        return attrs

    def print(self, printer: Printer) -> None:
        ins, out = self.operands[:-1], self.operands[-1]
        printer.print_string(" ins(")
        print_values(printer, ins)
        printer.print_string(" : ")
        print_types(printer, ins)
        printer.print_string(") outs(")
        printer.print_operand(out)
        printer.print_string(" : ")
        printer.print_attribute(out.type)
        printer.print_string(")")
        if self.attributes:
            printer.print_op_attributes(self.attributes)

    @classmethod
    def _role_problem(cls, label: str, t: Attribute) -> str | None:
        locs = cls.ROLES.get(label)
        if locs is None or not isinstance(t, TileBufType) or t.loc.data in locs:
            return None
        return f"must be a {'|'.join(locs)} tile, got loc={t.loc.data}"

    def verify_(self) -> None:
        if len(self.operands) != len(self.SLOTS):
            raise VerifyException(f"{self.name}: takes {len(self.SLOTS)} operands")
        for (label, kind), value in zip(self.SLOTS, self.operands):
            why = kind_error(kind, value.type) or self._role_problem(label, value.type)
            if why is not None:
                raise VerifyException(f"{self.name}: {label} {why}")

    def tile_call(self) -> tuple[list[object], dict[str, object]]:
        """Positional operands in the Machine method's order; the trailing attributes
        (only ops with ATTRS have any) as the method's keywords."""
        return [getattr(self, label) for label in self.CALL], \
            _attribute_keywords(self.attributes)


def _close(parser: Parser, name: str, clause: str) -> None:
    pos = parser.pos
    if parser.parse_optional_punctuation(",") is not None:
        parser.raise_error(f"{name}: {clause}(...) has more types than operands", pos)
    parser.parse_punctuation(")", f" to close {clause}(...)")


# PTOAS's optional pad clauses of pto.tload, in its assembly order: (keyword, operand or
# attribute, the operand's kind). Its lowering drops them all (`TLoadOp.dropped`).
# (PTOAS types pad_value, right_padding_num and init_condition AnyType, left_padding_num
# Index)
_TLOAD_CLAUSES = (("pad_mode", None), ("pad_value", "number"), ("left_padding_num", "int"),
                  ("init_out_buffer", None), ("right_padding_num", "any"),
                  ("init_condition", "any"))


@irdl_op_definition
class TLoadOp(TileOp):
    """GM view -> tile. PTOAS's pad clauses (``pad_mode = #pto.padmode<PadValue>
    pad_value = %v : f32 left_padding_num = %n : index init_out_buffer = true
    right_padding_num = %r : index init_condition = %c : i1``) parse and change nothing:
    PTOAS rebuilds the op from src and dst (PTOViewToMemref) and emits ``TLOAD(dst, src)``,
    or runs its TileLang template, both padding with the dst tile's ``pad``; a run warns
    that they were dropped. docs/semantics.md, ".pto tload pad clauses"."""

    name = "pto.tload"
    SLOTS: ClassVar[tuple[tuple[str, str], ...]] = (("src", "view"), ("dst", "tile"))
    CALL: ClassVar[tuple[str, ...]] = ("dst", "src")
    ROLES: ClassVar[dict[str, tuple[str, ...]]] = {"dst": ("vec", "mat")}
    ATTRS: ClassVar[dict[str, type[Attribute]]] = {"pad_mode": PadModeAttr,
                                                   "init_out_buffer": IntegerAttr,
                                                   "layout": LayoutAttr}

    src = operand_def()
    dst = operand_def()
    pad_value = opt_operand_def()
    left_padding_num = opt_operand_def()
    right_padding_num = opt_operand_def()
    init_condition = opt_operand_def()
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    @classmethod
    def parse(cls, parser: Parser) -> TLoadOp:
        values, attrs = cls._parse_core(parser)
        extra: dict[str, SSAValue] = {}
        for key, kind in _TLOAD_CLAUSES:
            pos = parser.pos
            if parser.parse_optional_keyword(key) is None:
                continue
            if key in attrs:
                parser.raise_error(f"{cls.name}: {key} is given twice", pos)
            parser.parse_punctuation("=", f" after {key}")
            if kind is None:
                at = parser.pos
                value = parser.parse_attribute()
                if key == "init_out_buffer" and not (isinstance(value, IntegerAttr)
                                                     and value.type == i1):
                    parser.raise_error(f"{cls.name}: {key} must be true or false, got "
                                       f"{value}", at)
                if key == "pad_mode" and not isinstance(value, PadModeAttr):
                    parser.raise_error(f"{cls.name}: {key} must be #pto.padmode<PadNull|"
                                       f"PadFirstElem|PadValue>, got {value}", at)
                attrs[key] = value
                continue
            ops = Operands(parser, cls.name)
            ops.add(key, kind)
            parser.parse_punctuation(":", f" before the type of {key}")
            extra[key] = ops.resolve([parse_type_at(parser)])[0]
        if "init_out_buffer" in attrs and not (isinstance(attrs["init_out_buffer"], IntegerAttr)
                                               and attrs["init_out_buffer"].type == i1):
            parser.raise_error(f"{cls.name}: init_out_buffer must be true or false, got "
                               f"{attrs['init_out_buffer']}")
        groups: list[list[SSAValue]] = [[v] for v in values]
        groups += [[extra[k]] if k in extra else [] for k, kind in _TLOAD_CLAUSES if kind]
        return cls.build(operands=groups, attributes=attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ins(")
        printer.print_operand(self.src)
        printer.print_string(" : ")
        printer.print_attribute(self.src.type)
        printer.print_string(") outs(")
        printer.print_operand(self.dst)
        printer.print_string(" : ")
        printer.print_attribute(self.dst.type)
        printer.print_string(")")
        clauses = {key for key, _ in _TLOAD_CLAUSES}
        rest = {k: v for k, v in self.attributes.items() if k not in clauses}
        if rest:
            printer.print_op_attributes(rest)
        for key, kind in _TLOAD_CLAUSES:
            value = self.attributes.get(key) if kind is None else getattr(self, key)
            if value is None:
                continue
            printer.print_string(f" {key} = ")
            if isinstance(value, IntegerAttr):          # init_out_buffer
                printer.print_string("true" if value.value.data else "false")
            elif isinstance(value, Attribute):
                printer.print_attribute(value)
            else:
                printer.print_operand(value)
                printer.print_string(" : ")
                printer.print_attribute(value.type)

    def verify_(self) -> None:
        for (label, kind), value in zip(self.SLOTS, (self.src, self.dst)):
            why = kind_error(kind, value.type) or self._role_problem(label, value.type)
            if why is not None:
                raise VerifyException(f"{self.name}: {label} {why}")
        for key, clause_kind in _TLOAD_CLAUSES:
            operand = getattr(self, key) if clause_kind else None
            if operand is not None and clause_kind is not None:
                problem = kind_error(clause_kind, operand.type)
                if problem is not None:
                    raise VerifyException(f"{self.name}: {key} {problem}")

    def dropped(self) -> str | None:
        """The pad clauses PTOAS's lowering drops, as the run's warning (None: none that
        ask for anything; ``pad_mode = PadNull`` and ``init_out_buffer = false`` alone
        are what runs anyway)."""
        names = []
        mode = self.attributes.get("pad_mode")
        if isinstance(mode, PadModeAttr) and mode.value.data != "PadNull":
            names.append(f"pad_mode = {mode.value.data}")
        init = self.attributes.get("init_out_buffer")
        if isinstance(init, IntegerAttr) and init.value.data:
            names.append("init_out_buffer = true")
        names += [key for key, kind in _TLOAD_CLAUSES if kind and getattr(self, key) is not None]
        if not names:
            return None
        pad = PADS[self.dst.type.pad.data] if isinstance(self.dst.type, TileBufType) \
            else "Null"
        return (f"{self.name}: {', '.join(names)} ignored, as PTOAS's lowering drops them "
                f"(it emits TLOAD(dst, src)); dst's own pad ({pad}) fills its padding")

    def tile_call(self) -> tuple[list[object], dict[str, object]]:
        # PTOAS lowers a .pto tload through its TileLang template, whose ND burst length is
        # the view's columns (lib/TileOps/tload_template.py); pto-isa's C++ uses valid cols
        return [self.dst, self.src], {"extent": "view"}


class _AccQuantOp(TileOp):
    """``ins(%src : T [, %fp : F] [, %pre : i64])``: PTOAS's optional quant operands of
    pto.tstore (the scalar) and pto.tmov (fp or the scalar), each operand with its type.
    ``%pre`` is the 64-bit QUANT_PRE word of pto-isa's preQuantScalar overloads (Python:
    the ``pre_quant_scalar`` keyword); a tmov's ``%fp`` (a loc=scaling tile) makes it
    TMOV_FP, as PTOAS lowers it."""

    EXTRAS: ClassVar[tuple[str, ...]] = ("pre_quant_scalar",)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    @classmethod
    def parse(cls, parser: Parser) -> _AccQuantOp:
        name = cls.name
        ops = Operands(parser, name)
        keyword(parser, "ins", name)
        parser.parse_punctuation("(", " after ins")
        (src_label, src_kind), (dst_label, dst_kind) = cls.SLOTS
        ops.add(src_label, src_kind)
        parser.parse_punctuation(":", f" before the ins(...) types of {name} (1 operand)")
        types = [parse_type_at(parser)]
        seen: list[str] = []
        while parser.parse_optional_punctuation(",") is not None:
            pos = parser.pos
            operand = parser.parse_optional_unresolved_operand()
            if operand is None:
                parser.raise_error(f"{name}: expected an SSA operand after ',' in ins(...)")
            parser.parse_punctuation(":", f" before the type of {name}'s ins operand")
            t, t_pos = parse_type_at(parser)
            label = "fp" if is_tile_type(t) else "pre_quant_scalar"
            if label not in cls.EXTRAS:
                parser.raise_error(f"{name}: ins(...) takes {src_label}"
                                   + "".join(f", {e}" for e in cls.EXTRAS)
                                   + f", got a tile after {src_label} (PTOAS spells this "
                                   f"pto.tstore_fp)", pos)
            if label in seen or (label == "fp" and seen):
                parser.raise_error(f"{name}: ins(...) takes at most one fp then one "
                                   f"pre-quant scalar, in that order", pos)
            if seen and label == "pre_quant_scalar" and "fp" in seen:
                parser.raise_error(f"{name}: fp and the pre-quant scalar exclude each other "
                                   f"(PTOAS's verifier)", pos)
            seen.append(label)
            ops.items.append((label, operand, "tile" if label == "fp" else "i64"))
            types.append((t, t_pos))
        _close(parser, name, "ins")
        keyword(parser, "outs", name, "after ins(...)")
        parser.parse_punctuation("(", " after outs")
        ops.add(dst_label, dst_kind)
        parser.parse_punctuation(":", f" before the outs(...) type of {name}")
        types += parse_types(parser, 1, name)
        _close(parser, name, "outs")
        attrs = cls._parse_attrs(parser)
        values = ops.resolve(types)
        by = {label: v for (label, _, _), v in zip(ops.items, values)}
        for label, (t, t_pos) in zip([item[0] for item in ops.items], types):
            if label in (src_label, dst_label) and (why := cls._role_problem(label, t)):
                parser.raise_error(f"{name}: {label} {why}", t_pos)
            if label == "fp" and isinstance(t, TileBufType) and t.loc.data != "scaling":
                parser.raise_error(f"{name}: fp must be a loc=scaling tile, got "
                                   f"loc={t.loc.data}", t_pos)
        src_t = by[src_label].type
        if seen and not (isinstance(src_t, TileBufType) and src_t.loc.data == "acc"):
            parser.raise_error(f"{name}: the {'/'.join(seen)} form needs a loc=acc {src_label} "
                               f"(PTOAS's verifier)")
        groups = [[by[src_label]], [by[dst_label]]] + [[by[e]] if e in by else []
                                                        for e in cls.EXTRAS]
        return cls.build(operands=groups, attributes=attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ins(")
        for i, value in enumerate([self.operands[0], *self._extras()]):
            printer.print_string(", " if i else "")
            printer.print_operand(value)
            printer.print_string(" : ")
            printer.print_attribute(value.type)
        printer.print_string(") outs(")
        out = self.operands[1]
        printer.print_operand(out)
        printer.print_string(" : ")
        printer.print_attribute(out.type)
        printer.print_string(")")
        if self.attributes:
            printer.print_op_attributes(self.attributes)

    def _extras(self) -> list[SSAValue]:
        return [v for e in self.EXTRAS if (v := getattr(self, e)) is not None]

    def verify_(self) -> None:
        for (label, kind), value in zip(self.SLOTS, self.operands[:2]):
            why = kind_error(kind, value.type) or self._role_problem(label, value.type)
            if why is not None:
                raise VerifyException(f"{self.name}: {label} {why}")
        pre = getattr(self, "pre_quant_scalar", None)
        if pre is not None and pre.type != i64:
            raise VerifyException(f"{self.name}: the pre-quant scalar must be an i64, got "
                                  f"{pre.type}")

    def tile_call(self) -> tuple[list[object], dict[str, object]]:
        args, kw = super().tile_call()
        pre = getattr(self, "pre_quant_scalar", None)
        if pre is not None:
            kw["pre_quant_scalar"] = pre             # resolved when the op runs
        fp = getattr(self, "fp", None)
        return ([*args, fp] if fp is not None else args), kw


@irdl_op_definition
class TStoreOp(_AccQuantOp):
    """Tile -> GM view (``ins(%acc : T, %pre : i64)``: TSTORE with the scalar pre-quant)."""

    name = "pto.tstore"
    SLOTS: ClassVar[tuple[tuple[str, str], ...]] = (("src", "tile"), ("dst", "view"))
    CALL: ClassVar[tuple[str, ...]] = ("dst", "src")
    ROLES: ClassVar[dict[str, tuple[str, ...]]] = {"src": ("vec", "mat", "acc")}
    # stPhase (PTOAS's TStoreOp, not its tstore_fp): pto-isa's STPhase, FIXPIPE's
    # unit-flag field on the Acc path; parsed and dropped, it orders pipes, no value changes
    ATTRS: ClassVar[dict[str, type[Attribute]]] = {"atomicType": AtomicTypeAttr,
                                                   "reluPreMode": ReluPreModeAttr,
                                                   "layout": LayoutAttr,
                                                   "stPhase": STPhaseAttr}

    src = operand_def()
    dst = operand_def()
    pre_quant_scalar = opt_operand_def()

    def verify_(self) -> None:
        super().verify_()
        # PTOAS TStoreOp::verify: with both sides static, the view holds as many elements
        # as src's valid region (reshapes such as 1x1024 <-> 32x32 stay legal); pto-isa
        # asserts the per-dimension match at run time
        src_t, dst_t = self.src.type, self.dst.type
        if not isinstance(src_t, TileBufType) or \
                not isinstance(dst_t, (TensorViewType, PartitionTensorViewType)):
            return
        dims = [d for d in dst_t.dims() if d is not None and d > 0]
        rows, cols = src_t.valid_row.data, src_t.valid_col.data
        if len(dims) < len(dst_t.shape) or rows <= 0 or cols <= 0:
            return                                  # dynamic (or empty): not static
        if math.prod(dims) != rows * cols:
            raise VerifyException(f"{self.name}: expects dst static element count "
                                  f"({math.prod(dims)}) to match src valid_shape static "
                                  f"element count ({rows * cols})")


@irdl_op_definition
class TMovOp(_AccQuantOp):
    """Tile -> tile of another role or layout (``ins(%acc : T, %fp : F)``: TMOV_FP;
    ``ins(%acc : T, %pre : i64)``: TMOV with the scalar pre-quant)."""

    name = "pto.tmov"
    SLOTS: ClassVar[tuple[tuple[str, str], ...]] = (("src", "tile"), ("dst", "tile"))
    CALL: ClassVar[tuple[str, ...]] = ("dst", "src")
    ATTRS: ClassVar[dict[str, type[Attribute]]] = {"accToVecMode": AccToVecModeAttr,
                                                   "reluPreMode": ReluPreModeAttr}
    EXTRAS: ClassVar[tuple[str, ...]] = ("fp", "pre_quant_scalar")

    src = operand_def()
    dst = operand_def()
    fp = opt_operand_def()
    pre_quant_scalar = opt_operand_def()

    def tile_method(self) -> str | None:
        """TMOV_FP with an fp operand (PTOAS's lowering); between two Vec DN tiles TMOV as
        PTOAS compiles it (a5: as ND tiles of the transposed shapes); else the SPEC's."""
        if self.fp is not None:
            return "TMOV_FP"
        if all(isinstance(t, TileBufType) and t.loc.data == "vec"
               and (t.blayout.data, t.slayout.data) == ("col_major", "none_box")
               for t in (self.src.type, self.dst.type)):
            return "_tmov_text"
        return None


@irdl_op_definition
class TPrefetchOp(TileOp):
    """GM view -> Vec tile, slice by slice (TPREFETCH)."""

    name = "pto.tprefetch"
    SLOTS: ClassVar[tuple[tuple[str, str], ...]] = (("src", "view"), ("dst", "tile"))
    CALL: ClassVar[tuple[str, ...]] = ("dst", "src")
    ROLES: ClassVar[dict[str, tuple[str, ...]]] = {"dst": ("vec",)}

    src = operand_def()
    dst = operand_def()


class _IndexedMemOp(TileOp):
    """MGATHER / MSCATTER: the coalescing mode comes from the index tile (``auto``)."""

    def tile_call(self) -> tuple[list[object], dict[str, object]]:
        args, kw = super().tile_call()
        return args, {**kw, "coalesce": "auto"}


@irdl_op_definition
class MGatherOp(_IndexedMemOp):
    """GM view -> Vec tile through an index tile (MGATHER); Row or Elem as PTOAS picks it
    from the index tile's valid shape and layout."""

    name = "pto.mgather"
    SLOTS: ClassVar[tuple[tuple[str, str], ...]] = (("mem", "view"), ("idx", "tile"),
                                                    ("dst", "tile"))
    CALL: ClassVar[tuple[str, ...]] = ("dst", "mem", "idx")
    ROLES: ClassVar[dict[str, tuple[str, ...]]] = {"dst": ("vec",), "idx": ("vec",)}
    ATTRS: ClassVar[dict[str, type[Attribute]]] = {"gatherOob": GatherOOBAttr}

    mem = operand_def()
    idx = operand_def()
    dst = operand_def()


@irdl_op_definition
class MScatterOp(_IndexedMemOp):
    """Vec tile -> GM view through an index tile (MSCATTER); PTOAS has no conflict
    attribute, so a5 runs ScatterConflict::Last."""

    name = "pto.mscatter"
    SLOTS: ClassVar[tuple[tuple[str, str], ...]] = (("src", "tile"), ("idx", "tile"),
                                                    ("mem", "view"))
    CALL: ClassVar[tuple[str, ...]] = ("mem", "src", "idx")
    ROLES: ClassVar[dict[str, tuple[str, ...]]] = {"src": ("vec",), "idx": ("vec",)}
    ATTRS: ClassVar[dict[str, type[Attribute]]] = {"scatterAtomicOp": ScatterAtomicOpAttr,
                                                   "scatterOob": ScatterOOBAttr}

    src = operand_def()
    idx = operand_def()
    mem = operand_def()


@irdl_op_definition
class TStoreFpOp(TileOp):
    """Acc tile -> GM view with vector pre-quantisation from a scaling tile (TSTORE_FP)."""

    name = "pto.tstore_fp"
    SLOTS: ClassVar[tuple[tuple[str, str], ...]] = (("src", "tile"), ("fp", "tile"),
                                                    ("dst", "view"))
    CALL: ClassVar[tuple[str, ...]] = ("dst", "src", "fp")
    ROLES: ClassVar[dict[str, tuple[str, ...]]] = {"src": ("acc",), "fp": ("scaling",)}
    ATTRS: ClassVar[dict[str, type[Attribute]]] = {
        k: v for k, v in TStoreOp.ATTRS.items() if k != "stPhase"}   # PTOAS's has none

    src = operand_def()
    fp = operand_def()
    dst = operand_def()


@irdl_op_definition
class TMovFpOp(TileOp):
    """Acc tile -> Mat / Vec tile with vector pre-quantisation (TMOV_FP; PTOAS's legacy
    spelling of ``pto.tmov`` with an fp operand)."""

    name = "pto.tmov.fp"
    SLOTS: ClassVar[tuple[tuple[str, str], ...]] = (("src", "tile"), ("fp", "tile"),
                                                    ("dst", "tile"))
    CALL: ClassVar[tuple[str, ...]] = ("dst", "src", "fp")
    ROLES: ClassVar[dict[str, tuple[str, ...]]] = {"src": ("acc",), "fp": ("scaling",)}
    ATTRS: ClassVar[dict[str, type[Attribute]]] = TMovOp.ATTRS

    src = operand_def()
    fp = operand_def()
    dst = operand_def()


def _attribute_keywords(attrs: dict[str, Attribute]) -> dict[str, object]:
    """The Python tile op's keywords for tstore / tmov attributes."""
    kw: dict[str, object] = {}
    for key, value in attrs.items():
        word = value.value.data  # type: ignore[attr-defined]
        if key == "atomicType" and word == "atomic_add":
            kw["atomic"] = "add"
        elif key == "reluPreMode" and word == "normal_relu":
            kw["pre_relu"] = (None, "normal_relu")
        elif key in ("gatherOob", "scatterOob"):
            kw["oob"] = word
        elif key == "scatterAtomicOp":
            kw["atomic"] = word
        elif key == "accToVecMode":
            kw["mode"] = "".join(part.capitalize() for part in word.split("_"))  # C++ name
    return kw


# PTOAS's accPhase (TMatmul* / TGemv* ops but the two MX bias forms): pto-isa's AccPhase,
# mad's unit-flag field; parsed and dropped (no keyword): it orders pipes, no value changes
_ACC_PHASE: dict[str, type[Attribute]] = {"accPhase": AccPhaseAttr}

_MM_ROLES: dict[str, tuple[str, ...]] = {"lhs": ("left",), "rhs": ("right",),
                                         "bias": ("bias",), "acc_in": ("acc",),
                                         "dst": ("acc",)}


class _Matmul(TileOp):
    SLOTS: ClassVar[tuple[tuple[str, str], ...]] = (("lhs", "tile"), ("rhs", "tile"),
                                                    ("dst", "tile"))
    CALL: ClassVar[tuple[str, ...]] = ("dst", "lhs", "rhs")
    ROLES: ClassVar[dict[str, tuple[str, ...]]] = _MM_ROLES
    ATTRS: ClassVar[dict[str, type[Attribute]]] = _ACC_PHASE

    lhs = operand_def()
    rhs = operand_def()
    dst = operand_def()


class _MatmulAcc(TileOp):
    """``tile_call`` passes dst (not acc_in) as the Machine's accumulator; when ``acc_in``
    is another tile, the executor copies it into dst first."""

    SLOTS: ClassVar[tuple[tuple[str, str], ...]] = (("acc_in", "tile"), ("lhs", "tile"),
                                                    ("rhs", "tile"), ("dst", "tile"))
    CALL: ClassVar[tuple[str, ...]] = ("dst", "lhs", "rhs")
    ROLES: ClassVar[dict[str, tuple[str, ...]]] = _MM_ROLES
    ATTRS: ClassVar[dict[str, type[Attribute]]] = _ACC_PHASE

    acc_in = operand_def()
    lhs = operand_def()
    rhs = operand_def()
    dst = operand_def()


class _MatmulBias(TileOp):
    SLOTS: ClassVar[tuple[tuple[str, str], ...]] = (("lhs", "tile"), ("rhs", "tile"),
                                                    ("bias", "tile"), ("dst", "tile"))
    CALL: ClassVar[tuple[str, ...]] = ("dst", "lhs", "rhs", "bias")
    ROLES: ClassVar[dict[str, tuple[str, ...]]] = _MM_ROLES
    ATTRS: ClassVar[dict[str, type[Attribute]]] = _ACC_PHASE

    lhs = operand_def()
    rhs = operand_def()
    bias = operand_def()
    dst = operand_def()


@irdl_op_definition
class TMatmulOp(_Matmul):
    """dst = lhs x rhs."""

    name = "pto.tmatmul"


@irdl_op_definition
class TMatmulAccOp(_MatmulAcc):
    """dst = acc_in + lhs x rhs."""

    name = "pto.tmatmul.acc"


@irdl_op_definition
class TMatmulBiasOp(_MatmulBias):
    """dst = lhs x rhs + bias (per column)."""

    name = "pto.tmatmul.bias"


@irdl_op_definition
class TGemvOp(_Matmul):
    """dst[0] = lhs (one row) x rhs: the cube's GEMV mode (PTOAS ``pto.tgemv``)."""

    name = "pto.tgemv"


@irdl_op_definition
class TGemvAccOp(_MatmulAcc):
    """dst[0] = acc_in[0] + lhs x rhs."""

    name = "pto.tgemv.acc"


@irdl_op_definition
class TGemvBiasOp(_MatmulBias):
    """dst[0] = lhs x rhs + bias."""

    name = "pto.tgemv.bias"


_MX_ROLES: dict[str, tuple[str, ...]] = {**_MM_ROLES, "lhs_scale": ("scaling",),
                                         "rhs_scale": ("scaling",)}


class _MatmulMx(TileOp):
    """PTOAS's MX forms: the scale operands are ``loc=scaling`` tiles, which a5's
    TMATMUL_MX / TGEMV_MX never read (the cube takes the scales from its MX buffers at the
    data tiles' addresses >> 4; `ptosim.tile.mx`)."""

    SLOTS: ClassVar[tuple[tuple[str, str], ...]] = (
        ("lhs", "tile"), ("lhs_scale", "tile"), ("rhs", "tile"), ("rhs_scale", "tile"),
        ("dst", "tile"))
    CALL: ClassVar[tuple[str, ...]] = ("dst", "lhs", "lhs_scale", "rhs", "rhs_scale")
    ROLES: ClassVar[dict[str, tuple[str, ...]]] = _MX_ROLES
    ATTRS: ClassVar[dict[str, type[Attribute]]] = _ACC_PHASE

    lhs = operand_def()
    lhs_scale = operand_def()
    rhs = operand_def()
    rhs_scale = operand_def()
    dst = operand_def()


class _MatmulMxAcc(TileOp):
    SLOTS: ClassVar[tuple[tuple[str, str], ...]] = (
        ("acc_in", "tile"), ("lhs", "tile"), ("lhs_scale", "tile"), ("rhs", "tile"),
        ("rhs_scale", "tile"), ("dst", "tile"))
    CALL: ClassVar[tuple[str, ...]] = ("dst", "lhs", "lhs_scale", "rhs", "rhs_scale")
    ROLES: ClassVar[dict[str, tuple[str, ...]]] = _MX_ROLES
    ATTRS: ClassVar[dict[str, type[Attribute]]] = _ACC_PHASE

    acc_in = operand_def()
    lhs = operand_def()
    lhs_scale = operand_def()
    rhs = operand_def()
    rhs_scale = operand_def()
    dst = operand_def()


class _MatmulMxBias(TileOp):
    SLOTS: ClassVar[tuple[tuple[str, str], ...]] = (
        ("lhs", "tile"), ("lhs_scale", "tile"), ("rhs", "tile"), ("rhs_scale", "tile"),
        ("bias", "tile"), ("dst", "tile"))
    CALL: ClassVar[tuple[str, ...]] = ("dst", "lhs", "lhs_scale", "rhs", "rhs_scale", "bias")
    ROLES: ClassVar[dict[str, tuple[str, ...]]] = _MX_ROLES

    lhs = operand_def()
    lhs_scale = operand_def()
    rhs = operand_def()
    rhs_scale = operand_def()
    bias = operand_def()
    dst = operand_def()


@irdl_op_definition
class TMatmulMxOp(_MatmulMx):
    """dst = the MX-scaled lhs x rhs (TMATMUL_MX)."""

    name = "pto.tmatmul.mx"


@irdl_op_definition
class TMatmulMxAccOp(_MatmulMxAcc):
    """dst = acc_in + the MX-scaled lhs x rhs (TMATMUL_MX_ACC)."""

    name = "pto.tmatmul.mx.acc"


@irdl_op_definition
class TMatmulMxBiasOp(_MatmulMxBias):
    """dst = the MX-scaled lhs x rhs + bias (TMATMUL_MX_BIAS)."""

    name = "pto.tmatmul.mx.bias"


@irdl_op_definition
class TGemvMxOp(_MatmulMx):
    """dst[0] = the MX-scaled one-row lhs x rhs, GEMV mode (TGEMV_MX)."""

    name = "pto.tgemv.mx"


@irdl_op_definition
class TGemvMxAccOp(_MatmulMxAcc):
    """dst[0] = acc_in[0] + the MX-scaled GEMV product (TGEMV_MX_ACC)."""

    name = "pto.tgemv.mx.acc"


@irdl_op_definition
class TGemvMxBiasOp(_MatmulMxBias):
    """dst[0] = the MX-scaled GEMV product + bias (TGEMV_MX_BIAS)."""

    name = "pto.tgemv.mx.bias"


class _Window(TileOp):
    SLOTS: ClassVar[tuple[tuple[str, str], ...]] = (("src", "tile"), ("row", "int"),
                                                    ("col", "int"), ("dst", "tile"))
    CALL: ClassVar[tuple[str, ...]] = ("dst", "src", "row", "col")

    src = operand_def()
    row = operand_def()
    col = operand_def()
    dst = operand_def()


@irdl_op_definition
class TExtractOp(_Window):
    """dst = src[row:, col:] (the dst's shape)."""

    name = "pto.textract"


@irdl_op_definition
class TInsertOp(_Window):
    """dst[row:, col:] = src."""

    name = "pto.tinsert"


class _WindowFp(TileOp):
    SLOTS: ClassVar[tuple[tuple[str, str], ...]] = (("src", "tile"), ("fp", "tile"),
                                                    ("row", "int"), ("col", "int"),
                                                    ("dst", "tile"))
    CALL: ClassVar[tuple[str, ...]] = ("dst", "src", "fp", "row", "col")
    ROLES: ClassVar[dict[str, tuple[str, ...]]] = {"src": ("acc",), "fp": ("scaling",)}

    src = operand_def()
    fp = operand_def()
    row = operand_def()
    col = operand_def()
    dst = operand_def()


@irdl_op_definition
class TExtractFpOp(_WindowFp):
    """TEXTRACT_FP: an Acc window with vector pre-quantisation."""

    name = "pto.textract_fp"


@irdl_op_definition
class TInsertFpOp(_WindowFp):
    """TINSERT_FP: an Acc tile into a window of dst with vector pre-quantisation."""

    name = "pto.tinsert_fp"


def fillpad_type_problem(name: str, mode: str, src: Attribute, dst: Attribute) -> str | None:
    """PTOAS's static rules of tfillpad / tfillpad_expand / tfillpad_inplace on the tile
    types (PTO.cpp ``verifyTFillPadLike``), checked where the text is read: one element
    size of 1, 2 or 4 bytes, a dst pad other than null, the same static shape (expand: dst
    at least src's in both dims), and for a Mat tfillpad one tile type (pto-isa has only the
    homogeneous Mat overload)."""
    if not (isinstance(src, TileBufType) and isinstance(dst, TileBufType)):
        return None
    sizes = [DTYPES[n].size if (n := element_name(t.element)) in DTYPES else 0
             for t in (src, dst)]
    if sizes[0] != sizes[1]:
        return (f"src and dst element sizes differ ({src.element}: {sizes[0]} B, "
                f"{dst.element}: {sizes[1]} B)")
    if sizes[0] not in (1, 2, 4):
        return f"the element size must be 1, 2 or 4 bytes, got {sizes[0]} ({src.element})"
    if mode == "plain" and src.loc.data == dst.loc.data == "mat" and src != dst:
        return ("a mat tfillpad needs src and dst of one tile type (valid shape and pad "
                "included): pto-isa's Mat TFILLPAD has only the one-type overload")
    if dst.pad.data == 0:
        return f"dst's pad must not be null (pad=0): it is the fill value of {name}"
    shapes = (src.rows.data, src.cols.data), (dst.rows.data, dst.cols.data)
    if mode != "expand" and shapes[0] != shapes[1]:
        return (f"src ({shapes[0][0]}x{shapes[0][1]}) and dst ({shapes[1][0]}x"
                f"{shapes[1][1]}) must have one static shape (tfillpad_expand may grow it)")
    if mode == "expand" and (shapes[1][0] < shapes[0][0] or shapes[1][1] < shapes[0][1]):
        return (f"dst's static shape {shapes[1][0]}x{shapes[1][1]} must be at least src's "
                f"{shapes[0][0]}x{shapes[0][1]} in both dims")
    return None


class _FillPad(TileOp):
    """Copy src's valid region into dst and fill the rest with dst's pad value."""

    FILL_MODE: ClassVar[str]
    SLOTS: ClassVar[tuple[tuple[str, str], ...]] = (("src", "tile"), ("dst", "tile"))
    CALL: ClassVar[tuple[str, ...]] = ("dst", "src")

    src = operand_def()
    dst = operand_def()

    def verify_(self) -> None:
        super().verify_()
        problem = fillpad_type_problem(self.name, self.FILL_MODE, self.src.type, self.dst.type)
        if problem is not None:
            raise VerifyException(f"{self.name}: {problem}")

    def tile_call(self) -> tuple[list[object], dict[str, object]]:
        """Operands as for any tile op, plus the fill mode as the ``mode`` keyword and
        PTOAS's template rules (``ptoas``)."""
        return super().tile_call()[0], {"mode": self.FILL_MODE, "ptoas": True}


@irdl_op_definition
class TFillPadOp(_FillPad):
    name = "pto.tfillpad"
    FILL_MODE: ClassVar[str] = "plain"


@irdl_op_definition
class TFillPadExpandOp(_FillPad):
    """dst may be larger than src."""

    name = "pto.tfillpad_expand"
    FILL_MODE: ClassVar[str] = "expand"


@irdl_op_definition
class TFillPadInplaceOp(_FillPad):
    """src and dst usually the same tile."""

    name = "pto.tfillpad_inplace"
    FILL_MODE: ClassVar[str] = "inplace"


TILE_OPS: tuple[type[TileOp], ...] = (
    TLoadOp, TStoreOp, TMovOp, TMatmulOp, TMatmulAccOp, TMatmulBiasOp, TGemvOp, TGemvAccOp,
    TGemvBiasOp, TMatmulMxOp, TMatmulMxAccOp, TMatmulMxBiasOp, TGemvMxOp, TGemvMxAccOp,
    TGemvMxBiasOp, TExtractOp,
    TInsertOp, TFillPadOp, TFillPadExpandOp, TFillPadInplaceOp, TStoreFpOp, TMovFpOp,
    TExtractFpOp, TInsertFpOp, TPrefetchOp, MGatherOp, MScatterOp,
)
VIEW_OPS = (MakeTensorViewOp, PartitionViewOp, AllocTileOp, TileBufAddrOp)
