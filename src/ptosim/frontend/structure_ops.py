"""Kernel structure: core-kind sections and the runtime queries (block / sub-block ids).

::

    pto.section.cube { ... }          single block, no terminator; runs on the AIC only
    pto.section.vector { ... }        runs on the AIVs only
    %b = pto.get_block_idx            i64 results (an optional ``: i64`` is accepted)
    %n = pto.get_block_num
    %s = pto.get_subblock_idx
    %t = pto.get_subblock_num
"""

from __future__ import annotations

from ..mlir.builtin import i64
from ..mlir.exceptions import VerifyException
from ..mlir.ir import Block, Region
from ..mlir.irdl import IRDLOperation, irdl_op_definition, region_def, result_def, traits_def
from ..mlir.parser import Parser
from ..mlir.printer import Printer
from ..mlir.traits import NoTerminator, Pure


class BareRegionOp(IRDLOperation):
    """``pto.<op> { ... }``: one single-block region without terminator or block arguments
    in the text (the sections, ``pto.vecscope``)."""

    body = region_def("single_block")
    traits = traits_def(NoTerminator())

    @classmethod
    def parse(cls, parser: Parser) -> BareRegionOp:
        region = parser.parse_region()
        if not region.blocks:
            region.add_block(Block())
        return cls.build(regions=[region])

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False, print_empty_block=False)


class _Section(BareRegionOp):
    """Code for one core kind; ``body`` is a single-block region without terminator."""

    def verify_(self) -> None:
        if self.body.blocks and self.body.block.args:
            raise VerifyException(f"{self.name}: the section body takes no block arguments")

    def __init__(self, body: Region | None = None) -> None:
        super().__init__(regions=[body if body is not None else Region(Block())])


@irdl_op_definition
class SectionCubeOp(_Section):
    name = "pto.section.cube"


@irdl_op_definition
class SectionVectorOp(_Section):
    name = "pto.section.vector"


class _Query(IRDLOperation):
    """A pure i64 producer of the current core's coordinates."""

    result = result_def(i64)
    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser: Parser) -> _Query:
        if parser.parse_optional_punctuation(":") is not None:
            pos = parser.pos
            if parser.parse_type() != i64:
                parser.raise_error(f"{cls.name}: the result type is i64", pos)
        return cls.build(result_types=[i64])

    def print(self, printer: Printer) -> None:
        pass


@irdl_op_definition
class GetBlockIdxOp(_Query):
    name = "pto.get_block_idx"


@irdl_op_definition
class GetBlockNumOp(_Query):
    name = "pto.get_block_num"


@irdl_op_definition
class GetSubblockIdxOp(_Query):
    name = "pto.get_subblock_idx"


@irdl_op_definition
class GetSubblockNumOp(_Query):
    name = "pto.get_subblock_num"
