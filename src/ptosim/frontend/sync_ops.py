"""Synchronisation ops. The functional simulator treats intra-core ones as ordering
markers; ``pto.sync.set`` / ``pto.sync.wait`` are the cross-core semaphores.

::

    pto.set_flag["PIPE_SRC", "PIPE_DST", "EVENT_IDn"]     (and pto.wait_flag[...])
    pto.barrier #pto.pipe<PIPE_X>
    pto.pipe_barrier "PIPE_X"
    pto.sync.set <PIPE_X>, 1          id: an integer literal or an index / i64 value
    pto.sync.wait <PIPE_X>, %id
    pto.get_buf "PIPE_X", 0, 0        buf id and mode: literals, or values with ': i64, i64'
    pto.rls_buf "PIPE_X", %id, %mode : i64, i64
    pto.mem_bar "VST_VLD"
"""

from __future__ import annotations

from typing import Any, ClassVar

from ..mlir.builtin import IntAttr, StringAttr
from ..mlir.exceptions import VerifyException
from ..mlir.ir import Attribute, SSAValue
from ..mlir.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
)
from ..mlir.parser import Parser, UnresolvedOperand
from ..mlir.printer import Printer
from .attributes import EVENTS, PIPES, PipeAttr, is_int_type
from .syntax import Operands, choice, parse_types, print_types, resolve_untyped

MEM_BARRIERS = ("VV_ALL", "VST_VLD", "VLD_VST", "VST_VST", "VS_ALL", "VST_LD", "VLD_ST",
                "VST_ST", "SV_ALL", "ST_VLD", "LD_VST", "ST_VST")
_MAX_ID = 2 ** 31 - 1


def _quoted(parser: Parser, choices: tuple[str, ...], name: str, what: str) -> str:
    pos = parser.pos
    text = parser.parse_optional_str_literal()
    if text is None or text not in choices:
        got = f'"{text}"' if text is not None else "something else"
        parser.raise_error(f"{name}: expected {what} in quotes (one of {', '.join(choices)}), "
                           f"got {got}", pos)
    return text


class _Flag(IRDLOperation):
    """An intra-core event between two pipes; accessors return plain strings."""

    src = prop_def(StringAttr, prop_name="src_pipe")
    dst = prop_def(StringAttr, prop_name="dst_pipe")
    event_id = prop_def(StringAttr, prop_name="event_id")

    @classmethod
    def parse(cls, parser: Parser) -> _Flag:
        parser.parse_punctuation("[", f" after {cls.name}")
        src = _quoted(parser, PIPES, cls.name, "the source pipe")
        parser.parse_punctuation(",")
        dst = _quoted(parser, PIPES, cls.name, "the destination pipe")
        parser.parse_punctuation(",")
        event = _quoted(parser, EVENTS, cls.name, "the event id")
        parser.parse_punctuation("]", f" to close {cls.name}[...]")
        return cls.build(properties={"src_pipe": StringAttr(src), "dst_pipe": StringAttr(dst),
                                     "event_id": StringAttr(event)})

    def print(self, printer: Printer) -> None:
        printer.print_string(f'["{self.src_pipe()}", "{self.dst_pipe()}", "{self.event()}"]')

    def src_pipe(self) -> str:
        return self.src.data

    def dst_pipe(self) -> str:
        return self.dst.data

    def event(self) -> str:
        return self.event_id.data


@irdl_op_definition
class SetFlagOp(_Flag):
    name = "pto.set_flag"


@irdl_op_definition
class WaitFlagOp(_Flag):
    name = "pto.wait_flag"


class _FlagDyn(IRDLOperation):
    """``set_flag`` / ``wait_flag`` with the event id an SSA value (0-7 at run time); a
    pipe is written ``#pto.pipe<PIPE_X>`` (PTOAS's form) or quoted as in ``set_flag``."""

    src = prop_def(StringAttr, prop_name="src_pipe")
    dst = prop_def(StringAttr, prop_name="dst_pipe")
    event_id = operand_def()

    @classmethod
    def parse(cls, parser: Parser) -> _FlagDyn:
        parser.parse_punctuation("[", f" after {cls.name}")
        pipes = []
        for what in ("the source pipe", "the destination pipe"):
            pos = parser.pos
            text = parser.parse_optional_str_literal()
            if text is not None:
                if text not in PIPES:
                    parser.raise_error(f"{cls.name}: expected {what} (one of "
                                       f"{', '.join(PIPES)}), got \"{text}\"", pos)
                pipes.append(text)
                parser.parse_punctuation(",")
                continue
            attr = parser.parse_optional_attribute()
            if not isinstance(attr, PipeAttr):
                parser.raise_error(f"{cls.name}: expected {what} as #pto.pipe<PIPE_X> or "
                                   f"\"PIPE_X\"", pos)
            pipes.append(attr.value.data)
            parser.parse_punctuation(",")
        pos = parser.pos
        operand = parser.parse_optional_unresolved_operand()
        if operand is None:
            parser.raise_error(f"{cls.name}: expected the event id as an SSA value", pos)
        event = resolve_untyped(parser, operand)
        if not is_int_type(event.type):
            parser.raise_error(f"{cls.name}: the event id must be an integer or index value, "
                               f"got {event.type}", pos)
        parser.parse_punctuation("]", f" to close {cls.name}[...]")
        return cls.build(operands=[event], properties={"src_pipe": StringAttr(pipes[0]),
                                                       "dst_pipe": StringAttr(pipes[1])})

    def print(self, printer: Printer) -> None:
        printer.print_string(f"[#pto.pipe<{self.src_pipe()}>, #pto.pipe<{self.dst_pipe()}>, ")
        printer.print_operand(self.event_id)
        printer.print_string("]")

    def src_pipe(self) -> str:
        return self.src.data

    def dst_pipe(self) -> str:
        return self.dst.data


@irdl_op_definition
class SetFlagDynOp(_FlagDyn):
    name = "pto.set_flag_dyn"


@irdl_op_definition
class WaitFlagDynOp(_FlagDyn):
    name = "pto.wait_flag_dyn"


@irdl_op_definition
class BarrierOp(IRDLOperation):
    """Drain pipe ``pipe()`` (``PIPE_ALL``: every pipe)."""

    name = "pto.barrier"
    pipe_attr = prop_def(PipeAttr, prop_name="pipe")

    @classmethod
    def parse(cls, parser: Parser) -> BarrierOp:
        pos = parser.pos
        if parser.parse_optional_punctuation("<") is not None:    # PTOAS prints <PIPE_X>
            word = parser.parse_optional_identifier()
            if word is None or word not in PipeAttr.CHOICES:
                parser.raise_error(f"{cls.name}: expected a pipe (one of "
                                   f"{', '.join(PipeAttr.CHOICES)})", pos)
            parser.parse_punctuation(">", " to close the pipe")
            return cls.build(properties={"pipe": PipeAttr(StringAttr(word))})
        attr = parser.parse_attribute()
        if not isinstance(attr, PipeAttr):
            parser.raise_error(f"{cls.name}: expected #pto.pipe<PIPE_X>", pos)
        return cls.build(properties={"pipe": attr})

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_attribute(self.pipe_attr)

    def pipe(self) -> str:
        return self.pipe_attr.value.data


class _QuotedWord(IRDLOperation):
    """An op whose only operand is one quoted word from a fixed list (``CHOICES``)."""

    CHOICES: ClassVar[tuple[str, ...]]
    WHAT: ClassVar[str]
    word = prop_def(StringAttr, prop_name="word")

    @classmethod
    def parse(cls, parser: Parser) -> _QuotedWord:
        return cls.build(properties={"word": StringAttr(_quoted(parser, cls.CHOICES, cls.name,
                                                                cls.WHAT))})

    def print(self, printer: Printer) -> None:
        printer.print_string(f' "{self.word.data}"')


@irdl_op_definition
class PipeBarrierOp(_QuotedWord):
    """The documented spelling ``pto.pipe_barrier "PIPE_X"`` of a barrier."""

    name = "pto.pipe_barrier"
    CHOICES: ClassVar[tuple[str, ...]] = PIPES
    WHAT: ClassVar[str] = "a pipe"

    def pipe(self) -> str:
        return self.word.data


def _int_or_operand(parser: Parser, name: str, what: str) -> int | UnresolvedOperand:
    """An integer literal in [0, 2^31) or an SSA operand (resolved by the caller)."""
    pos = parser.pos
    number = parser.parse_optional_integer(allow_boolean=False, allow_negative=True)
    if number is not None:
        if not 0 <= number <= _MAX_ID:
            parser.raise_error(f"{name}: {what} {number} is out of range [0, {_MAX_ID}]", pos)
        return number
    operand = parser.parse_optional_unresolved_operand()
    if operand is None:
        parser.raise_error(f"{name}: expected {what} (an integer or an SSA value)", pos)
    return operand


class _Sync(IRDLOperation):
    """A cross-core semaphore op on pipe ``pipe()``; ``sync_id()`` is an int or SSAValue."""

    pipe_name = prop_def(StringAttr, prop_name="pipe")
    id_attr = opt_prop_def(IntAttr, prop_name="event_id")
    id_value = opt_operand_def()

    @classmethod
    def parse(cls, parser: Parser) -> _Sync:
        parser.parse_punctuation("<", f" after {cls.name}")
        pipe = choice(parser, PIPES, cls.name, "a pipe")
        parser.parse_punctuation(">", " after the pipe")
        parser.parse_punctuation(",", " before the semaphore id")
        sid = _int_or_operand(parser, cls.name, "semaphore id")
        props: dict[str, Attribute] = {"pipe": StringAttr(pipe)}
        if isinstance(sid, int):
            props["event_id"] = IntAttr(sid)
            return cls.build(operands=[None], properties=props)
        value = resolve_untyped(parser, sid)
        if not is_int_type(value.type):
            parser.raise_error(f"{cls.name}: the semaphore id must be an index or integer "
                               f"value, got {value.type}", sid.span)
        return cls.build(operands=[[value]], properties=props)

    def print(self, printer: Printer) -> None:
        printer.print_string(f" <{self.pipe()}>, ")
        sid = self.sync_id()
        if isinstance(sid, int):
            printer.print_string(str(sid))
        else:
            printer.print_operand(sid)

    def pipe(self) -> str:
        return self.pipe_name.data

    def sync_id(self) -> int | SSAValue:
        if self.id_value is not None:
            return self.id_value
        assert self.id_attr is not None
        return self.id_attr.data

    def verify_(self) -> None:
        if (self.id_value is None) == (self.id_attr is None):
            raise VerifyException(f"{self.name}: exactly one of a literal id and an id value")


@irdl_op_definition
class SyncSetOp(_Sync):
    name = "pto.sync.set"


@irdl_op_definition
class SyncWaitOp(_Sync):
    name = "pto.sync.wait"


class _Buf(IRDLOperation):
    """Buffer-id ordering on pipe ``pipe()``; ``buf_id()`` and ``mode()`` (default 0) are
    ints or SSAValues. Functionally a no-op."""

    pipe_name = prop_def(StringAttr, prop_name="pipe")
    id_attr = opt_prop_def(IntAttr, prop_name="buf_id")
    mode_attr = opt_prop_def(IntAttr, prop_name="mode")
    id_value = opt_operand_def()
    mode_value = opt_operand_def()

    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    @classmethod
    def parse(cls, parser: Parser) -> _Buf:
        props: dict[str, Attribute] = {"pipe": StringAttr(_quoted(parser, PIPES, cls.name,
                                                               "a pipe"))}
        parser.parse_punctuation(",", " before the buffer id")
        pieces = [_int_or_operand(parser, cls.name, "buffer id"), 0]
        if parser.parse_optional_punctuation(",") is not None:
            pieces[1] = _int_or_operand(parser, cls.name, "mode")
        ops = Operands(parser, cls.name)
        for label, piece in zip(("buffer id", "mode"), pieces):
            if not isinstance(piece, int):
                ops.items.append((label, piece, "int"))
        values: list[SSAValue] = []
        if ops.items:
            parser.parse_punctuation(":", f" before the {cls.name} operand types")
            values = ops.resolve(parse_types(parser, len(ops.items), cls.name))
        operands: list[Any] = []
        for key, piece in zip(("buf_id", "mode"), pieces):
            if isinstance(piece, int):
                props[key] = IntAttr(piece)
                operands.append(None)
            else:
                operands.append([values.pop(0)])
        return cls.build(operands=operands, properties=props)

    def print(self, printer: Printer) -> None:
        printer.print_string(f' "{self.pipe()}", ')
        parts = [self.buf_id(), self.mode()]
        for i, part in enumerate(parts):
            printer.print_string(", " if i else "")
            if isinstance(part, int):
                printer.print_string(str(part))
            else:
                printer.print_operand(part)
        values = [p for p in parts if not isinstance(p, int)]
        if values:
            printer.print_string(" : ")
            print_types(printer, values)

    def pipe(self) -> str:
        return self.pipe_name.data

    def buf_id(self) -> int | SSAValue:
        if self.id_value is not None:
            return self.id_value
        return self.id_attr.data if self.id_attr is not None else 0

    def mode(self) -> int | SSAValue:
        if self.mode_value is not None:
            return self.mode_value
        return self.mode_attr.data if self.mode_attr is not None else 0


@irdl_op_definition
class GetBufOp(_Buf):
    name = "pto.get_buf"


@irdl_op_definition
class RlsBufOp(_Buf):
    name = "pto.rls_buf"


@irdl_op_definition
class MemBarOp(_QuotedWord):
    """A UB memory fence between vector / scalar access classes; ``kind()`` is its name."""

    name = "pto.mem_bar"
    CHOICES: ClassVar[tuple[str, ...]] = MEM_BARRIERS
    WHAT: ClassVar[str] = "a barrier type"

    def kind(self) -> str:
        return self.word.data
