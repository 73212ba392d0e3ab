"""Tile views, SSA values over another tile's bytes (no data moves):

- ``pto.treshape`` (PTOAS ``TReshapeOp``: ``%r = pto.treshape %src : T -> U``): the bytes
  seen as another tile_buf type; PTOAS's rules (same loc, same total byte size, boxed <->
  non-boxed refused); the interpreter calls `ptosim.tile.shape.treshape`.
- ``pto.set_validshape %t, %rows, %cols : T`` / ``%r, %c = pto.get_validshape %t : T``
  (PTOAS ``SetValidShapeOp`` / ``GetValidShapeOp``): a tile whose valid region is dynamic in
  both dims (``valid=?x?``) gets a new one for its later uses; reading it back;
- ``pto.subview`` (PTOAS ``SubViewOp``: ``%s = pto.subview %src[%r, %c] sizes [R, C]
  (valid [%vr, %vc])? : T (-> U)?``): a window of src; the result type is R x C with the
  valid region of ``valid`` (constants clamped to the sizes, else ``?``) or the whole
  window, inferred when ``-> U`` is left out; PTOAS's verifier rules; the interpreter
  calls `ptosim.tile.shape.pto_subview`."""

from __future__ import annotations

from collections.abc import Sequence

from ..dtypes import dtype as _dtype
from ..layout import subview_box
from ..mlir.builtin import ArrayAttr, IndexType, IntAttr
from ..mlir.exceptions import VerifyException
from ..mlir.ir import Attribute, SSAValue
from ..mlir.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from ..mlir.parser import Parser
from ..mlir.printer import Printer
from ..mlir.traits import Pure
from .syntax import Operands, keyword, parse_type_at, resolve_untyped
from .tile_ops import constant_int
from .tile_types import DYNAMIC_INDEX, TileBufType, tile_info


def reshape_problem(src: Attribute, dst: Attribute) -> str | None:
    """Why ``src`` cannot be re-read as ``dst``, or None."""
    if not isinstance(src, TileBufType) or not isinstance(dst, TileBufType):
        return f"src and result must be !pto.tile_buf types, got {src} -> {dst}"
    a, b = tile_info(src), tile_info(dst)
    if a["loc"] != b["loc"]:
        return f"src and result must use the same loc, got {a['loc']} -> {b['loc']}"
    na = int(a["rows"]) * int(a["cols"]) * _dtype(str(a["dtype"])).size  # type: ignore[call-overload]
    nb = int(b["rows"]) * int(b["cols"]) * _dtype(str(b["dtype"])).size  # type: ignore[call-overload]
    if na != nb:
        return f"src ({na} B) and result ({nb} B) must have the same total byte size"
    if (a["slayout"] == "NoneBox") != (b["slayout"] == "NoneBox"):
        return "cannot reshape between boxed and non-boxed tile layouts"
    return None


@irdl_op_definition
class TReshapeOp(IRDLOperation):
    """``%r = pto.treshape %src : T -> U``."""

    name = "pto.treshape"

    src = operand_def()
    result = result_def()

    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser: Parser) -> TReshapeOp:
        ops = Operands(parser, cls.name)
        ops.add("src", "tile")
        parser.parse_punctuation(":", f" before the types of {cls.name}")
        src_t = parse_type_at(parser)
        parser.parse_punctuation("->", f" between the types of {cls.name}")
        dst, pos = parse_type_at(parser)
        (src,) = ops.resolve([src_t])
        if (why := reshape_problem(src.type, dst)) is not None:
            parser.raise_error(f"{cls.name}: {why}", pos)
        return cls.build(operands=[src], result_types=[dst])

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.src)
        printer.print_string(" : ")
        printer.print_attribute(self.src.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)

    def verify_(self) -> None:
        if (why := reshape_problem(self.src.type, self.result.type)) is not None:
            raise VerifyException(f"{self.name}: {why}")


# --- pto.subview ---------------------------------------------------------------------------
def _valid_dim(value: SSAValue | None, size: int) -> int:
    """A result valid dim as PTOAS infers it: the size, a constant clamped to it, or ``?``."""
    if value is None:
        return size
    c = constant_int(value)
    return DYNAMIC_INDEX if c is None else min(c, size)


def _count_problem(counts: Sequence[SSAValue], bounds: Sequence[int]) -> str | None:
    """A constant valid_row / valid_col outside [0, its bound], or None."""
    for v, bound, what in zip(counts, bounds, ("valid_row", "valid_col")):
        c = constant_int(v)
        if c is not None and not 0 <= c <= bound:
            return f"{what} {c} must lie in [0, {bound}]"
    return None


def _window_problem(offsets: Sequence[object], sizes: Sequence[int]) -> str | None:
    if len(sizes) != 2 or len(offsets) != 2:
        return f"takes 2 offsets and 2 sizes, got {len(offsets)} and {len(sizes)}"
    if min(sizes) <= 0:
        return f"sizes must be positive, got [{sizes[0]}, {sizes[1]}]"
    return None


def subview_problem(src: Attribute, dst: Attribute, offsets: Sequence[SSAValue],
                    sizes: Sequence[int], valid: Sequence[SSAValue]) -> str | None:
    """Why PTOAS's verifier refuses this ``pto.subview``, or None."""
    if not isinstance(src, TileBufType) or not isinstance(dst, TileBufType):
        return f"source and result must be !pto.tile_buf types, got {src} -> {dst}"
    if (why := _window_problem(offsets, sizes)) is not None:
        return why
    size_r, size_c = sizes
    off = [constant_int(v) for v in offsets]
    if any(o is not None and o < 0 for o in off):
        return "offsets must be non-negative"
    if (why := _count_problem(valid, sizes)) is not None:
        return f"{why} (the subview size)"
    if (dst.rows.data, dst.cols.data) != (size_r, size_c):
        return (f"the result shape {dst.rows.data}x{dst.cols.data} must be the subview sizes "
                f"{size_r}x{size_c}")
    a, b = tile_info(src), tile_info(dst)
    for key in ("dtype", "loc", "blayout", "slayout", "fractal", "pad", "compact"):
        if a[key] != b[key]:
            return f"the result's {key} must be the source's ({a[key]}), got {b[key]}"
    dst_valid: tuple[int | None, int | None] = b["valid"]  # type: ignore[assignment]
    for i, (got, size) in enumerate(zip(dst_valid, sizes)):
        want = _valid_dim(valid[i] if valid else None, size)
        got_dim = DYNAMIC_INDEX if got is None else got
        if got_dim != want and (valid or got is None or not 0 <= got <= size):
            return (f"the result's valid {('row', 'col')[i]} count must be "
                    f"{'?' if want == DYNAMIC_INDEX else want} (the sizes or the valid "
                    f"operands), got {'?' if got is None else got}")
    ir, ic = subview_box(_dtype(str(a["dtype"])), str(a["slayout"]), int(a["fractal"]))  # type: ignore[call-overload]
    if size_r % ir or size_c % ic:
        return f"a boxed subview's sizes must be multiples of its {ir}x{ic} inner box"
    if (off[0] is not None and off[0] % ir) or (off[1] is not None and off[1] % ic):
        return f"a boxed subview's offsets must be multiples of its {ir}x{ic} inner box"
    return None


@irdl_op_definition
class SubViewOp(IRDLOperation):
    """``%s = pto.subview %src[%r, %c] sizes [R, C] (valid [%vr, %vc])? : T (-> U)?``."""

    name = "pto.subview"

    source = operand_def()
    offsets = var_operand_def()
    valid = var_operand_def()
    result = result_def()
    sizes = prop_def(ArrayAttr[IntAttr])

    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser: Parser) -> SubViewOp:
        ops = Operands(parser, cls.name)
        ops.add("source", "tile")
        offsets = parser.parse_comma_separated_list(
            parser.Delimiter.SQUARE,
            lambda: parser.parse_unresolved_operand(f"{cls.name}: expected an offset"))
        keyword(parser, "sizes", cls.name, "after the offsets")
        sizes = parser.parse_comma_separated_list(parser.Delimiter.SQUARE,
                                                  parser.parse_integer)
        valid_ops = []
        if parser.parse_optional_keyword("valid") is not None:
            valid_ops = parser.parse_comma_separated_list(
                parser.Delimiter.SQUARE,
                lambda: parser.parse_unresolved_operand(f"{cls.name}: expected a valid "
                                                        f"count"))
        parser.parse_optional_attr_dict()
        parser.parse_punctuation(":", f" before the types of {cls.name}")
        src_t = parse_type_at(parser)
        (src,) = ops.resolve([src_t])
        offs = [resolve_untyped(parser, o) for o in offsets]
        valid = [resolve_untyped(parser, v) for v in valid_ops]
        pos = parser.pos
        if parser.parse_optional_punctuation("->") is not None:
            dst, pos = parse_type_at(parser)
        elif (why := _window_problem(offs, sizes)) is not None:
            parser.raise_error(f"{cls.name}: {why}", pos)
        elif isinstance(src.type, TileBufType) and len(valid) in (0, 2):
            t = src.type
            dims = [_valid_dim(valid[i] if valid else None, n) for i, n in enumerate(sizes)]
            dst = TileBufType(t.loc.data, t.element, sizes[0], sizes[1],
                              (None if dims[0] == DYNAMIC_INDEX else dims[0],
                               None if dims[1] == DYNAMIC_INDEX else dims[1]),
                              t.blayout.data, t.slayout.data, t.fractal.data, t.pad.data,
                              t.compact.data)
        else:
            parser.raise_error(f"{cls.name}: cannot infer the result type; spell it with "
                               f"'-> !pto.tile_buf<...>'", pos)
        if len(valid) not in (0, 2):
            parser.raise_error(f"{cls.name}: valid takes both counts [%rows, %cols], got "
                               f"{len(valid)}", pos)
        if (why := subview_problem(src.type, dst, offs, sizes, valid)) is not None:
            parser.raise_error(f"{cls.name}: {why}", pos)
        return cls.build(operands=[src, offs, valid], result_types=[dst],
                         properties={"sizes": ArrayAttr([IntAttr(n) for n in sizes])})

    def size_values(self) -> list[int]:
        return [a.data for a in self.sizes.data]

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.source)
        printer.print_string("[")
        printer.print_list(self.offsets, printer.print_operand)
        printer.print_string(f"] sizes [{', '.join(map(str, self.size_values()))}]")
        if self.valid:
            printer.print_string(" valid [")
            printer.print_list(self.valid, printer.print_operand)
            printer.print_string("]")
        printer.print_string(" : ")
        printer.print_attribute(self.source.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)

    def verify_(self) -> None:
        if len(self.valid) not in (0, 2):
            raise VerifyException(f"{self.name}: valid takes both counts or neither")
        why = subview_problem(self.source.type, self.result.type, list(self.offsets),
                              self.size_values(), list(self.valid))
        if why is not None:
            raise VerifyException(f"{self.name}: {why}")


# --- pto.set_validshape / pto.get_validshape -----------------------------------------------
def validshape_problem(t: Attribute, counts: Sequence[SSAValue]) -> str | None:
    """Why PTOAS's verifier refuses ``pto.set_validshape`` on a tile of type ``t``."""
    if not isinstance(t, TileBufType):
        return f"expects a !pto.tile_buf source, got {t}"
    if t.valid_row.data != DYNAMIC_INDEX or t.valid_col.data != DYNAMIC_INDEX:
        return "expects a tile_buf with a dynamic valid shape (valid=?x?)"
    return _count_problem(counts, (t.rows.data, t.cols.data))


@irdl_op_definition
class SetValidShapeOp(IRDLOperation):
    """``pto.set_validshape %tile, %valid_row, %valid_col : T``."""

    name = "pto.set_validshape"

    source = operand_def()
    valid_row = operand_def()
    valid_col = operand_def()

    @classmethod
    def parse(cls, parser: Parser) -> SetValidShapeOp:
        ops = Operands(parser, cls.name)
        ops.add("source", "tile")
        counts = []
        for label in ("valid_row", "valid_col"):
            parser.parse_punctuation(",", f" before {label}")
            counts.append(parser.parse_unresolved_operand(f"{cls.name}: expected {label}"))
        parser.parse_optional_attr_dict()
        parser.parse_punctuation(":", f" before the type of {cls.name}")
        src_t = parse_type_at(parser)
        (src,) = ops.resolve([src_t])
        vals = [resolve_untyped(parser, c) for c in counts]
        if (why := validshape_problem(src.type, vals)) is not None:
            parser.raise_error(f"{cls.name}: {why}", src_t[1])
        return cls.build(operands=[src, *vals])

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list([self.source, self.valid_row, self.valid_col],
                           printer.print_operand)
        printer.print_string(" : ")
        printer.print_attribute(self.source.type)

    def verify_(self) -> None:
        why = validshape_problem(self.source.type, [self.valid_row, self.valid_col])
        if why is not None:
            raise VerifyException(f"{self.name}: {why}")


@irdl_op_definition
class GetValidShapeOp(IRDLOperation):
    """``%rows, %cols = pto.get_validshape %tile : T``."""

    name = "pto.get_validshape"

    source = operand_def()
    valid_row = result_def(IndexType)
    valid_col = result_def(IndexType)

    @classmethod
    def parse(cls, parser: Parser) -> GetValidShapeOp:
        ops = Operands(parser, cls.name)
        ops.add("source", "tile")
        parser.parse_optional_attr_dict()
        parser.parse_punctuation(":", f" before the type of {cls.name}")
        (src,) = ops.resolve([parse_type_at(parser)])
        return cls.build(operands=[src], result_types=[IndexType(), IndexType()])

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.source)
        printer.print_string(" : ")
        printer.print_attribute(self.source.type)
