"""TPREFETCH_ASYNC in ``.pto``: PTOAS's context, session, prefetch and wait ops.

::

    %ctx = pto.make_prefetch_async_context(%ws : !pto.ptr<i8>) -> !pto.prefetch_async_context
    %ev = pto.tprefetch_async(%src, %ctx : memref<128xf32, #pto.address_space<gm>>,
                              !pto.prefetch_async_context) -> !pto.async_event
    %s = pto.get_prefetch_async_session %ctx : !pto.prefetch_async_context -> !pto.async_session
    %done = pto.comm.wait_async_event(%ev, %s : !pto.async_event, !pto.async_session) -> i1

Rules as PTOAS's verifiers (PTO.cpp MakePrefetchAsyncContextOp / TPrefetchAsyncOp); the run
is `ptosim.tile.prefetch_async`'s, driven by the interpreter.
"""

from __future__ import annotations

from typing import ClassVar

from ..mlir.builtin import IntegerType, MemRefType
from ..mlir.ir import Attribute, ParametrizedAttribute, TypeAttribute
from ..mlir.irdl import (
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    result_def,
)
from ..mlir.parser import Parser
from ..mlir.printer import Printer
from .attributes import AddressSpaceAttr, PtrType, element_name, ptr_info
from .syntax import Operands, parse_type_at, parse_types
from .tile_types import PartitionTensorViewType, TensorViewType


@irdl_attr_definition
class PrefetchAsyncContextType(ParametrizedAttribute, TypeAttribute):
    name = "pto.prefetch_async_context"


@irdl_attr_definition
class AsyncSessionType(ParametrizedAttribute, TypeAttribute):
    name = "pto.async_session"


@irdl_attr_definition
class AsyncEventType(ParametrizedAttribute, TypeAttribute):
    name = "pto.async_event"


def workspace_problem(t: Attribute) -> str | None:
    """Why PTOAS's MakePrefetchAsyncContextOp verifier refuses ``t``, or None."""
    if isinstance(t, PtrType):
        element, space = ptr_info(t)
        if space != "gm":
            return "expects workspace to be in GM address space"
    elif isinstance(t, MemRefType):
        ms = t.memory_space
        if not isinstance(ms, AddressSpaceAttr) or ms.space() != "gm":
            return "expects workspace memref to be in GM address space"
        element = element_name(t.element_type) or "?"
    else:
        return "expects workspace to be !pto.ptr<i8> or GM memref<i8>"
    if element not in ("i8", "si8", "ui8"):
        return "expects workspace element type to be an 8-bit integer"
    return None


def src_problem(t: Attribute) -> str | None:
    """Why PTOAS's verifyAsyncFlatContiguous1DGMViewLike refuses ``t``, or None."""
    if isinstance(t, MemRefType):
        ms = t.memory_space
        if not isinstance(ms, AddressSpaceAttr) or ms.space() != "gm":
            return "expects src to be in GM address space"
        shape = list(t.get_shape())
        strides = t.get_strides()
        if not shape:
            return "expects src to have rank >= 1"
        if any(d < 0 for d in shape):
            return "expects src to have a static shape"
        if strides is not None and all(s is not None for s in strides):
            packed = strides[-1] == 1 and all(
                strides[i] == strides[i + 1] * shape[i + 1]  # type: ignore[operator]
                for i in range(len(shape) - 1))
            if not packed or any(d != 1 for d in shape[:-1]):
                return "expects src to be a static flat contiguous logical 1D GM memref"
        return None
    if not isinstance(t, (TensorViewType, PartitionTensorViewType)):
        return "expects src to be a memref/tensor_view/partition_view"
    dims = [d.data for d in t.shape.data]
    if not dims:
        return "expects src to have rank >= 1"
    if any(d < 0 for d in dims):
        return "expects src to have a static shape"
    if any(d != 1 for d in dims[:-1]):
        return "expects src to be a static flat contiguous logical 1D GM view"
    return None


def _result(parser: Parser, name: str, want: type, spelling: str) -> Attribute:
    parser.parse_punctuation("->", f" before the result type of {name}")
    t, pos = parse_type_at(parser)
    if not isinstance(t, want):
        parser.raise_error(f"{name}: the result must be {spelling}, got {t}", pos)
    return t


@irdl_op_definition
class MakePrefetchAsyncContextOp(IRDLOperation):
    """``%ctx = pto.make_prefetch_async_context(%ws : T) -> !pto.prefetch_async_context``."""

    name = "pto.make_prefetch_async_context"
    SPEC: ClassVar[object]
    workspace = operand_def()
    ctx = result_def(PrefetchAsyncContextType)

    @classmethod
    def parse(cls, parser: Parser) -> MakePrefetchAsyncContextOp:
        name = cls.name
        parser.parse_punctuation("(", f" after {name}")
        ops = Operands(parser, name)
        ops.add("workspace", "any")
        parser.parse_punctuation(":", f" before the type of {name}'s workspace")
        types = parse_types(parser, 1, name)
        parser.parse_punctuation(")", f" to close {name}(...)")
        if (why := workspace_problem(types[0][0])) is not None:
            parser.raise_error(f"{name}: {why}", types[0][1])
        (ws,) = ops.resolve(types)
        t = _result(parser, name, PrefetchAsyncContextType, "!pto.prefetch_async_context")
        return cls.build(operands=[ws], result_types=[t])

    def print(self, printer: Printer) -> None:
        printer.print_string("(")
        printer.print_operand(self.workspace)
        printer.print_string(" : ")
        printer.print_attribute(self.workspace.type)
        printer.print_string(") -> !pto.prefetch_async_context")


@irdl_op_definition
class GetPrefetchAsyncSessionOp(IRDLOperation):
    """``%s = pto.get_prefetch_async_session %ctx : !pto.prefetch_async_context ->
    !pto.async_session``."""

    name = "pto.get_prefetch_async_session"
    SPEC: ClassVar[object]
    ctx = operand_def(PrefetchAsyncContextType)
    session = result_def(AsyncSessionType)

    @classmethod
    def parse(cls, parser: Parser) -> GetPrefetchAsyncSessionOp:
        name = cls.name
        ops = Operands(parser, name)
        ops.add("ctx", "any")
        parser.parse_punctuation(":", f" before the types of {name}")
        types = parse_types(parser, 1, name)
        if not isinstance(types[0][0], PrefetchAsyncContextType):
            parser.raise_error(f"{name}: ctx must be a !pto.prefetch_async_context",
                               types[0][1])
        (ctx,) = ops.resolve(types)
        t = _result(parser, name, AsyncSessionType, "!pto.async_session")
        return cls.build(operands=[ctx], result_types=[t])

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.ctx)
        printer.print_string(" : !pto.prefetch_async_context -> !pto.async_session")


def _operand_pair(parser: Parser, name: str, names: list[str]
                  ) -> tuple[Operands, list[tuple[Attribute, int]]]:
    """``(%a, %b : A, B)``: the operands (unresolved), their types and positions."""
    parser.parse_punctuation("(", f" after {name}")
    ops = Operands(parser, name)
    ops.add_list(names, "any")
    parser.parse_punctuation(":", f" before the types of {name}")
    types = parse_types(parser, 2, name)
    parser.parse_punctuation(")", f" to close {name}(...)")
    return ops, types


@irdl_op_definition
class TPrefetchAsyncOp(IRDLOperation):
    """``%ev = pto.tprefetch_async(%src, %ctx : S, !pto.prefetch_async_context) ->
    !pto.async_event``."""

    name = "pto.tprefetch_async"
    SPEC: ClassVar[object]
    src = operand_def()
    ctx = operand_def(PrefetchAsyncContextType)
    event = result_def(AsyncEventType)

    @classmethod
    def parse(cls, parser: Parser) -> TPrefetchAsyncOp:
        name = cls.name
        ops, types = _operand_pair(parser, name, ["src", "ctx"])
        if (why := src_problem(types[0][0])) is not None:
            parser.raise_error(f"{name}: {why}", types[0][1])
        if not isinstance(types[1][0], PrefetchAsyncContextType):
            parser.raise_error(f"{name}: ctx must be a !pto.prefetch_async_context",
                               types[1][1])
        src, ctx = ops.resolve(types)
        t = _result(parser, name, AsyncEventType, "!pto.async_event")
        return cls.build(operands=[src, ctx], result_types=[t])

    def print(self, printer: Printer) -> None:
        printer.print_string("(")
        printer.print_operand(self.src)
        printer.print_string(", ")
        printer.print_operand(self.ctx)
        printer.print_string(" : ")
        printer.print_attribute(self.src.type)
        printer.print_string(", !pto.prefetch_async_context) -> !pto.async_event")


@irdl_op_definition
class WaitAsyncEventOp(IRDLOperation):
    """``%done = pto.comm.wait_async_event(%ev, %s : !pto.async_event, !pto.async_session)
    -> i1``: ``AsyncEvent::Wait(session)``."""

    name = "pto.comm.wait_async_event"
    SPEC: ClassVar[object]
    event = operand_def(AsyncEventType)
    session = operand_def(AsyncSessionType)
    completed = result_def(IntegerType)

    @classmethod
    def parse(cls, parser: Parser) -> WaitAsyncEventOp:
        name = cls.name
        ops, types = _operand_pair(parser, name, ["event", "session"])
        for (t, pos), want, what in zip(types, (AsyncEventType, AsyncSessionType),
                                        ("!pto.async_event", "!pto.async_session")):
            if not isinstance(t, want):
                parser.raise_error(f"{name}: expected {what}, got {t}", pos)
        ev, s = ops.resolve(types)
        parser.parse_punctuation("->", f" before the result type of {name}")
        t, pos = parse_type_at(parser)
        if not (isinstance(t, IntegerType) and t.width.data == 1):
            parser.raise_error(f"{name}: the result must be i1, got {t}", pos)
        return cls.build(operands=[ev, s], result_types=[t])

    def print(self, printer: Printer) -> None:
        printer.print_string("(")
        printer.print_operand(self.event)
        printer.print_string(", ")
        printer.print_operand(self.session)
        printer.print_string(" : !pto.async_event, !pto.async_session) -> i1")


PREFETCH_ASYNC_TYPES = (PrefetchAsyncContextType, AsyncSessionType, AsyncEventType)
PREFETCH_ASYNC_OPS = (MakePrefetchAsyncContextOp, GetPrefetchAsyncSessionOp, TPrefetchAsyncOp,
                      WaitAsyncEventOp)
