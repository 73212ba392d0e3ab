"""PTOAS's handle form of the a5 cube <-> vector tile pipes (PTOOps.td ``InitializeL2LPipeOp``,
``DeclareTileOp``, ``TPushOp``, ``TPopOp``, ``TFreeOp``), which PTOAS lowers one to one to
pto-isa's ``TPipe`` / ``TPUSH`` / ``TPOP`` / ``TFREE``::

    %pipe = pto.initialize_l2l_pipe {dir_mask = 1, slot_size = 1024, slot_num = 8,
                                     flag_base = 0, nosplit = true}
                                    (%local_addr : i32[, %peer_local_addr : i32]) -> !pto.pipe
    pto.tpush(%acc, %pipe : !pto.tile_buf<loc=acc, ...>, !pto.pipe) {split = 0}
    %t = pto.declare_tile -> !pto.tile_buf<loc=vec, ...>
    pto.tpop(%t, %pipe : !pto.tile_buf<loc=vec, ...>, !pto.pipe) {split = 0}
    pto.tfree(%pipe : !pto.pipe) {split = 0}      (or pto.tfree(%t, %pipe : T, !pto.pipe))

``local_addr`` is the consumer buffer of the direction (C2V: the AIV's UB, V2C: the AIC's
L1); with both directions it is the C2V one and ``peer_local_addr`` the V2C one
(PTOToEmitC's TPipe construction). The verifiers check what PTO.cpp's do. Semantics:
`ptosim.interp.pipes` (the same protocol as the frontend form, `ptosim.frontend.pipe_ops`).
"""

from __future__ import annotations

from typing import ClassVar

from ..isa import OpSpec
from ..mlir.builtin import IntegerAttr, IntegerType
from ..mlir.exceptions import VerifyException
from ..mlir.ir import Attribute, Operation, ParametrizedAttribute, SSAValue, TypeAttribute
from ..mlir.irdl import (
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    var_operand_def,
    var_result_def,
)
from ..mlir.parser import Parser
from ..mlir.printer import Printer
from .pipe_ops import SPLITS, _attrs, int_attr
from .tile_types import TileBufType

_MAX_FLAG_IDS = 16              # PTO.cpp verifyPipeShape: hardware flag ids


@irdl_attr_definition
class PipeHandleType(ParametrizedAttribute, TypeAttribute):
    """``!pto.pipe``: a TPipe object (one per core that initialises it)."""

    name = "pto.pipe"


class _HandleOp(IRDLOperation):
    SPEC: ClassVar[OpSpec]
    args = var_operand_def()
    res = var_result_def()


def _split(op: IRDLOperation) -> int:
    split = int_attr(op, "split")
    if split is None:
        raise VerifyException(f"{op.name}: requires the 'split' attribute")
    if split not in SPLITS:
        raise VerifyException(f"{op.name}: split must be 0 (no split), 1 (up-down) or 2 "
                              f"(left-right), got {split}")
    return split


def _check_handle(op: IRDLOperation, pipe: SSAValue) -> None:
    """PTO.cpp verifyPipeHandleProducer."""
    if not isinstance(pipe.type, PipeHandleType):
        raise VerifyException(f"{op.name}: expects pipe operand type !pto.pipe")
    owner = getattr(pipe, "owner", None)
    if not isinstance(owner, Operation) or owner.name not in ("pto.initialize_l2l_pipe",
                                                              "pto.initialize_l2g2l_pipe"):
        raise VerifyException(f"{op.name}: pipe_handle must be produced by "
                              f"pto.initialize_l2l_pipe or pto.initialize_l2g2l_pipe")


def _loc(t: Attribute) -> str | None:
    return t.loc.data if isinstance(t, TileBufType) else None


@irdl_op_definition
class InitializeL2LPipeOp(_HandleOp):
    """The TPipe of a local-to-local pipe: ``{dir_mask, slot_size, slot_num[, flag_base]
    [, nosplit]} (%local_addr : T[, %peer_local_addr : T]) -> !pto.pipe``."""

    name = "pto.initialize_l2l_pipe"

    @classmethod
    def parse(cls, parser: Parser) -> InitializeL2LPipeOp:
        attrs = _attrs(parser, cls.name)
        parser.parse_punctuation("(", f" before the buffers of {cls.name}")
        values: list[SSAValue] = []
        while True:
            operand = parser.parse_unresolved_operand()
            parser.parse_punctuation(":")
            values.append(parser.resolve_operand(operand, parser.parse_type()))
            if parser.parse_optional_punctuation(")") is not None:
                break
            parser.parse_punctuation(",")
        extra = parser.parse_optional_attr_dict()
        parser.parse_punctuation("->", f" before the result type of {cls.name}")
        return cls.build(operands=[values], result_types=[[parser.parse_type()]],
                         attributes={**attrs, **extra})

    def print(self, printer: Printer) -> None:
        printer.print_op_attributes(self.attributes)
        printer.print_string(" (")
        for i, v in enumerate(self.args):
            printer.print_string(", " if i else "")
            printer.print_operand(v)
            printer.print_string(" : ")
            printer.print_attribute(v.type)
        printer.print_string(") -> ")
        printer.print_attribute(self.res[0].type)

    def verify_(self) -> None:
        for key in ("dir_mask", "slot_size", "slot_num"):
            if int_attr(self, key) is None:
                raise VerifyException(f"{self.name}: requires the '{key}' attribute")
        dir_mask = int_attr(self, "dir_mask")
        if dir_mask not in (1, 2, 3):
            raise VerifyException(f"{self.name}: expects 'dir_mask' to be 1, 2, or 3")
        if int(int_attr(self, "slot_size")) <= 0:  # type: ignore[arg-type]
            raise VerifyException(f"{self.name}: expects 'slot_size' to be greater than 0")
        if int(int_attr(self, "slot_num")) <= 0:  # type: ignore[arg-type]
            raise VerifyException(f"{self.name}: expects 'slot_num' to be greater than 0")
        flag_base = int_attr(self, "flag_base")
        if flag_base is not None and flag_base < 0:
            raise VerifyException(f"{self.name}: expects 'flag_base' to be non-negative "
                                  f"when present")
        if flag_base is not None and flag_base + (4 if dir_mask == 3 else 2) > _MAX_FLAG_IDS:
            raise VerifyException(f"{self.name}: requires 'flag_base' and dir_mask to fit "
                                  f"within {_MAX_FLAG_IDS} hardware flag ids")
        nosplit = self.attributes.get("nosplit")
        if nosplit is not None and not (isinstance(nosplit, IntegerAttr)
                                        and isinstance(nosplit.type, IntegerType)
                                        and nosplit.type.width.data == 1):
            raise VerifyException(f"{self.name}: 'nosplit' must be true or false")
        if not 1 <= len(self.args) <= 2:
            raise VerifyException(f"{self.name}: expects local_addr and an optional "
                                  f"peer_local_addr")
        if dir_mask == 3 and len(self.args) != 2:
            raise VerifyException(f"{self.name}: expects 'peer_local_addr' when dir_mask is 3")
        if dir_mask != 3 and len(self.args) == 2:
            raise VerifyException(f"{self.name}: 'peer_local_addr' is only allowed when "
                                  f"dir_mask is 3")
        if len(self.res) != 1 or not isinstance(self.res[0].type, PipeHandleType):
            raise VerifyException(f"{self.name}: the result is one !pto.pipe")

    def local_addr(self) -> SSAValue:
        return self.args[0]

    def peer_local_addr(self) -> SSAValue | None:
        return self.args[1] if len(self.args) > 1 else None


@irdl_op_definition
class DeclareTileOp(_HandleOp):
    """``-> T``: a tile value with no address yet; a `pto.tpop` binds it to its slot."""

    name = "pto.declare_tile"

    @classmethod
    def parse(cls, parser: Parser) -> DeclareTileOp:
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation("->", f" before the tile type of {cls.name}")
        return cls.build(operands=[[]], result_types=[[parser.parse_type()]], attributes=attrs)

    def print(self, printer: Printer) -> None:
        printer.print_op_attributes(self.attributes)
        printer.print_string(" -> ")
        printer.print_attribute(self.res[0].type)

    def verify_(self) -> None:
        if len(self.res) != 1 or not isinstance(self.res[0].type, TileBufType):
            raise VerifyException(f"{self.name}: declares one !pto.tile_buf")


class _TileAndPipe(_HandleOp):
    """``(%tile, %pipe : T, !pto.pipe) {split = s}``."""

    @classmethod
    def parse(cls, parser: Parser) -> _TileAndPipe:
        parser.parse_punctuation("(", f" after {cls.name}")
        tile, pipe = parser.parse_unresolved_operand(), None
        parser.parse_punctuation(",")
        pipe = parser.parse_unresolved_operand()
        parser.parse_punctuation(":")
        tile_t = parser.parse_type()
        parser.parse_punctuation(",")
        pipe_t = parser.parse_type()
        parser.parse_punctuation(")")
        attrs = _attrs(parser, cls.name)
        extra = parser.parse_optional_attr_dict()
        values = [parser.resolve_operand(tile, tile_t), parser.resolve_operand(pipe, pipe_t)]
        return cls.build(operands=[values], result_types=[[]], attributes={**attrs, **extra})

    def print(self, printer: Printer) -> None:
        printer.print_string("(")
        printer.print_operand(self.args[0])
        printer.print_string(", ")
        printer.print_operand(self.args[1])
        printer.print_string(" : ")
        printer.print_attribute(self.args[0].type)
        printer.print_string(", ")
        printer.print_attribute(self.args[1].type)
        printer.print_string(") ")
        printer.print_op_attributes(self.attributes)

    # the tile locations the op takes, and PTOAS's message for another
    LOCS: ClassVar[tuple[str, ...]] = ()
    BAD_LOC: ClassVar[str] = ""

    def verify_(self) -> None:
        if len(self.args) != 2:
            raise VerifyException(f"{self.name}: expects a tile and a pipe")
        _check_handle(self, self.args[1])
        _split(self)
        if _loc(self.args[0].type) not in self.LOCS:
            raise VerifyException(f"{self.name}: {self.BAD_LOC}, got {self.args[0].type}")

    def tile(self) -> SSAValue:
        return self.args[0]

    def pipe(self) -> SSAValue:
        return self.args[1]


@irdl_op_definition
class TPushOp(_TileAndPipe):
    """An Acc tile goes C2V (FIXPIPE), a Vec tile V2C (MTE3): PTOAS TPushOp getPipe."""

    name = "pto.tpush"
    LOCS: ClassVar[tuple[str, ...]] = ("acc", "vec")
    BAD_LOC: ClassVar[str] = ("tile type must map to a supported producer pipe (a loc=acc or "
                              "loc=vec tile)")


@irdl_op_definition
class TPopOp(_TileAndPipe):
    """A Vec tile pops C2V (on the AIV), a Mat tile V2C (on the AIC)."""

    name = "pto.tpop"
    LOCS: ClassVar[tuple[str, ...]] = ("vec", "mat")
    BAD_LOC: ClassVar[str] = ("tile type and target arch must map to a supported consumer "
                              "pipe (a loc=vec or loc=mat tile)")


@irdl_op_definition
class TFreeOp(_HandleOp):
    """``(%pipe : !pto.pipe) {split = s}`` or ``(%entry, %pipe : T, !pto.pipe) {...}``."""

    name = "pto.tfree"

    @classmethod
    def parse(cls, parser: Parser) -> TFreeOp:
        parser.parse_punctuation("(", f" after {cls.name}")
        first = parser.parse_unresolved_operand()
        if parser.parse_optional_punctuation(",") is not None:
            pipe = parser.parse_unresolved_operand()
            parser.parse_punctuation(":")
            first_t = parser.parse_type()
            parser.parse_punctuation(",")
            pipe_t = parser.parse_type()
            values = [parser.resolve_operand(first, first_t)]
        else:
            parser.parse_punctuation(":")
            pipe, pipe_t, values = first, parser.parse_type(), []
        parser.parse_punctuation(")")
        values.append(parser.resolve_operand(pipe, pipe_t))
        attrs = _attrs(parser, cls.name)
        extra = parser.parse_optional_attr_dict()
        return cls.build(operands=[values], result_types=[[]], attributes={**attrs, **extra})

    def print(self, printer: Printer) -> None:
        printer.print_string("(")
        for i, v in enumerate(self.args):
            printer.print_string(", " if i else "")
            printer.print_operand(v)
        printer.print_string(" : ")
        for i, v in enumerate(self.args):
            printer.print_string(", " if i else "")
            printer.print_attribute(v.type)
        printer.print_string(") ")
        printer.print_op_attributes(self.attributes)

    def verify_(self) -> None:
        if len(self.args) not in (1, 2):
            raise VerifyException(f"{self.name}: expects an optional entry and a pipe")
        _check_handle(self, self.args[-1])
        _split(self)

    def pipe(self) -> SSAValue:
        return self.args[-1]


HANDLE_OPS = (InitializeL2LPipeOp, DeclareTileOp, TPushOp, TPopOp, TFreeOp)
