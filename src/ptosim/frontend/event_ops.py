"""TSYNC in ``.pto``: PTOAS's event ops, which the manual's TSYNC page names as TSYNC's
low-level form, and PTOAS's thin ``pto.tsync`` bridge.

::

    pto.record_event [#pto.pipe_event_type<TLOAD>, #pto.pipe_event_type<TVEC>,
                      #pto.event<EVENT_ID0>]
    pto.wait_event [... the same three ...]
    pto.barrier_sync [#pto.sync_op_type<TLOAD>]
    pto.tsync ins()

PTOAS lowers record_event / wait_event to set_flag / wait_flag and barrier_sync to barrier,
each op type mapped to its pipe (PTOSyncUtils.cpp mapSyncOpTypeToPipe; the legacy
``#pto.sync_op_type<...>`` spelling is accepted in the events too). ``pto.tsync`` passes its
operands to pto-isa's ``TSYNC(events...)``: with none it is a no-op, and a ``.pto`` value is
never an Event, so operands are refused.
"""

from __future__ import annotations

from typing import ClassVar

from ..mlir.builtin import StringAttr
from ..mlir.ir import ParametrizedAttribute
from ..mlir.irdl import IRDLOperation, irdl_attr_definition, irdl_op_definition, prop_def
from ..mlir.parser import AttrParser, Parser
from ..mlir.printer import Printer
from .attributes import EVENTS, _WordAttr

# PTOAS mapSyncOpTypeToPipe
SYNC_OP_PIPES: dict[str, str] = {
    "TLOAD": "PIPE_MTE2", "TSTORE_VEC": "PIPE_MTE3", "TSTORE_ACC": "PIPE_FIX",
    "TMOV_M2L": "PIPE_MTE1", "TMOV_M2B": "PIPE_MTE1", "TMOV_M2S": "PIPE_FIX",
    "TMOV_M2V": "PIPE_V", "TMOV_V2M": "PIPE_FIX", "TMATMUL": "PIPE_M", "TVEC": "PIPE_V",
    "TVECWAIT_EVENT": "PIPE_V"}


@irdl_attr_definition
class PipeEventTypeAttr(_WordAttr):
    """``#pto.pipe_event_type<TLOAD>``: a sync endpoint, mapped to its pipe."""

    name = "pto.pipe_event_type"

    value: StringAttr
    CHOICES = tuple(SYNC_OP_PIPES)
    WHAT = "a sync op type"


@irdl_attr_definition
class SyncOpTypeAttr(_WordAttr):
    """``#pto.sync_op_type<TLOAD>``: PTOAS's legacy alias of pipe_event_type."""

    name = "pto.sync_op_type"

    value: StringAttr
    CHOICES = tuple(SYNC_OP_PIPES)
    WHAT = "a sync op type"


@irdl_attr_definition
class EventAttr(_WordAttr):
    """``#pto.event<EVENT_IDn>``."""

    name = "pto.event"

    value: StringAttr
    CHOICES = EVENTS
    WHAT = "an event id"


def _attr(parser: Parser, kinds: tuple[type[ParametrizedAttribute], ...], op: str,
          what: str) -> str:
    pos = parser.pos
    attr = parser.parse_optional_attribute()
    if not isinstance(attr, kinds):
        spell = " or ".join(f"#{k.name}<...>" for k in kinds)
        parser.raise_error(f"{op}: expected {what} as {spell}", pos)
    return attr.value.data  # type: ignore[attr-defined]


class _Event(IRDLOperation):
    """record_event / wait_event: a set_flag / wait_flag between the two op types' pipes;
    the accessors answer as set_flag's do."""

    src = prop_def(StringAttr, prop_name="src_op")
    dst = prop_def(StringAttr, prop_name="dst_op")
    event_id = prop_def(StringAttr, prop_name="event_id")

    @classmethod
    def parse(cls, parser: Parser) -> _Event:
        ends = (PipeEventTypeAttr, SyncOpTypeAttr)
        parser.parse_punctuation("[", f" after {cls.name}")
        src = _attr(parser, ends, cls.name, "the source op type")
        parser.parse_punctuation(",")
        dst = _attr(parser, ends, cls.name, "the destination op type")
        parser.parse_punctuation(",")
        event = _attr(parser, (EventAttr,), cls.name, "the event id")
        parser.parse_punctuation("]", f" to close {cls.name}[...]")
        return cls.build(properties={"src_op": StringAttr(src), "dst_op": StringAttr(dst),
                                     "event_id": StringAttr(event)})

    def print(self, printer: Printer) -> None:
        printer.print_string(f" [#pto.pipe_event_type<{self.src.data}>, "
                             f"#pto.pipe_event_type<{self.dst.data}>, "
                             f"#pto.event<{self.event_id.data}>]")

    def src_pipe(self) -> str:
        return SYNC_OP_PIPES[self.src.data]

    def dst_pipe(self) -> str:
        return SYNC_OP_PIPES[self.dst.data]

    def event(self) -> str:
        return self.event_id.data


@irdl_op_definition
class RecordEventOp(_Event):
    name = "pto.record_event"


@irdl_op_definition
class WaitEventOp(_Event):
    name = "pto.wait_event"


@irdl_op_definition
class BarrierSyncOp(IRDLOperation):
    """``pto.barrier_sync [#pto.sync_op_type<X>]``: a barrier on X's pipe (PTOAS drops a
    PIPE_V one on a5: the executor asks the target)."""

    name = "pto.barrier_sync"
    op_type = prop_def(StringAttr, prop_name="op_type")

    @classmethod
    def parse(cls, parser: Parser) -> BarrierSyncOp:
        parser.parse_punctuation("[", f" after {cls.name}")
        word = _attr(parser, (SyncOpTypeAttr,), cls.name, "the op type")
        parser.parse_punctuation("]", f" to close {cls.name}[...]")
        return cls.build(properties={"op_type": StringAttr(word)})

    def print(self, printer: Printer) -> None:
        printer.print_string(f" [#pto.sync_op_type<{self.op_type.data}>]")

    def pipe(self) -> str:
        return SYNC_OP_PIPES[self.op_type.data]


@irdl_op_definition
class TSyncOp(IRDLOperation):
    """``pto.tsync ins()``: TSYNC with no events, a no-op (see the module docstring)."""

    name = "pto.tsync"
    REFUSAL: ClassVar[str] = (
        "pto.tsync: TSYNC waits on RecordEvent tokens (pto-isa's TSYNC(events...)); a .pto "
        "value is no event, so PTOAS's TSYNC(%values) does not build. Order pipes with "
        "pto.record_event / pto.wait_event (set_flag / wait_flag)")

    @classmethod
    def parse(cls, parser: Parser) -> TSyncOp:
        parser.parse_characters("ins", f" after {cls.name}")
        parser.parse_punctuation("(", f" after {cls.name} ins")
        pos = parser.pos
        if parser.parse_optional_punctuation(":") is not None:
            parser.parse_punctuation(")", f" to close {cls.name} ins(...)")
        elif parser.parse_optional_punctuation(")") is None:
            parser.raise_error(cls.REFUSAL, pos)
        return cls.build()

    def print(self, printer: Printer) -> None:
        printer.print_string(" ins()")


EVENT_ATTRS = (PipeEventTypeAttr, SyncOpTypeAttr, EventAttr)
EVENT_OPS = (RecordEventOp, WaitEventOp, BarrierSyncOp, TSyncOp)
__all__ = ["EVENT_ATTRS", "EVENT_OPS", "SYNC_OP_PIPES", "AttrParser"]
