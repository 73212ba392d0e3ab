"""FIXPIPE micro ops: L0C -> GM / L1 / UB writebacks.

::

    pto.mte_l0c_gm %src, %dst, %m, %n, %src_stride, %dst_stride, %sid, %l2cache[, clause]*
    pto.mte_l0c_l1 %src, %dst, %m, %n, %src_stride, %dst_stride[, clause]*
    pto.mte_l0c_ub %src, %dst, %m, %n, %src_stride, %dst_stride,
        dst_mode(%sub_block | split_m | split_n)[, clause]*
      : src_type, dst_type, i64 x4 [, sid, l2cache | sub_block], [pre_quant payload],
        [pre_relu payload], [clip], [nz2dn/nz2nz value], [loop3 x3]

Clauses, comma separated, each at most once and in this order: ``unit_flag(check_only |
check_and_clear)``, ``pre_quant(%p, mode = M)``, ``pre_relu([%p, ]mode = R[, clip = %c])``,
``nz2nd | nz2dn(%loop0) | nz2nz[(%split)]``, ``loop3(%count, %src_stride, %dst_stride)``,
``sat | sat(preserve_nan) | nosat``, ``atomic(type = T, op = add|max|min)`` (gm only).
The trailing type list is flat, in operand order.
"""

from __future__ import annotations

from typing import Any, ClassVar

from ..mlir.builtin import StringAttr
from ..mlir.irdl import (
    AttrSizedOperandSegments,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    var_operand_def,
)
from ..mlir.parser import Parser
from ..mlir.printer import Printer
from .base import MicroOp, Slot, require
from .syntax import (
    Operands,
    choice,
    comma,
    identifier,
    keyword,
    parse_types,
    print_group,
    print_types,
    print_values,
    reject_extra_types,
)

# Clause word -> order slot; words sharing a slot are mutually exclusive.
_ORDER = {"unit_flag": 0, "pre_quant": 1, "pre_relu": 2, "nz2nd": 3, "nz2dn": 3, "nz2nz": 3,
          "loop3": 4, "sat": 5, "nosat": 5, "atomic": 6}
_ORDER_TEXT = ("unit_flag, pre_quant, pre_relu, nz2nd|nz2dn|nz2nz, loop3, sat|nosat, "
               "atomic")
_HEAD = ("src", "dst", "m", "n", "src_stride", "dst_stride")
# segment name -> (label, kind) for the optional operands, in operand order
_OPTIONAL = (("sid", "sid", "int"), ("l2cache", "l2cache", "int"),
             ("sub_block", "dst_mode sub_block", "int"),
             ("quant_payload", "pre_quant payload", "payload"),
             ("relu_payload", "pre_relu payload", "payload"),
             ("clip", "pre_relu clip", "number"), ("layout_value", "layout value", "int"))


class _Fixpipe(MicroOp):
    DST: ClassVar[str]

    src = operand_def()
    dst = operand_def()
    m = operand_def()
    n = operand_def()
    src_stride = operand_def()
    dst_stride = operand_def()
    sid = opt_operand_def()
    l2cache = opt_operand_def()
    sub_block = opt_operand_def()
    quant_payload = opt_operand_def()
    relu_payload = opt_operand_def()
    clip = opt_operand_def()
    layout_value = opt_operand_def()
    loop3 = var_operand_def()

    dst_mode = opt_prop_def(StringAttr)      # split_m / split_n (ub, when no sub_block)
    unit_flag = opt_prop_def(StringAttr)
    quant_mode = opt_prop_def(StringAttr)
    relu_mode = opt_prop_def(StringAttr)
    layout = opt_prop_def(StringAttr)
    sat = opt_prop_def(StringAttr)           # sat / preserve_nan / nosat
    atomic_type = opt_prop_def(StringAttr)
    atomic_op = opt_prop_def(StringAttr)

    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    @classmethod
    def parse(cls, parser: Parser) -> _Fixpipe:
        name = cls.name
        st = _State(Operands(parser, name))
        st.ops.add_list(_HEAD, ["ptr", "ptr", "int", "int", "int", "int"])
        if cls.DST == "gm":
            comma(parser, name, "before sid")
            st.opt("sid", "sid", "int")
            comma(parser, name, "before l2cache")
            st.opt("l2cache", "l2cache", "int")
        elif cls.DST == "ub":
            comma(parser, name, "before dst_mode(...)")
            keyword(parser, "dst_mode", name)
            parser.parse_punctuation("(", " after dst_mode")
            split = parser.parse_optional_keyword_in(("split_m", "split_n"))
            if split is not None:
                st.props["dst_mode"] = StringAttr(split)
            else:
                st.opt("sub_block", "dst_mode sub_block", "int")
            parser.parse_punctuation(")", " to close dst_mode(...)")
        last = -1
        while parser.parse_optional_punctuation(",") is not None:
            pos = parser.pos
            word = identifier(parser, name, "a clause")
            if word not in _ORDER:
                parser.raise_error(f"{name}: unknown clause '{word}' (clauses in order: "
                                   f"{_ORDER_TEXT})", pos)
            if word == "atomic" and cls.DST != "gm":
                parser.raise_error(f"{name}: atomic(...) is only allowed on pto.mte_l0c_gm",
                                   pos)
            if _ORDER[word] <= last:
                parser.raise_error(f"{name}: clause '{word}' is out of order or repeated "
                                   f"(order: {_ORDER_TEXT})", pos)
            last = _ORDER[word]
            _parse_clause(parser, name, word, st)
        parser.parse_punctuation(":", f" before the type list of {name}")
        types = parse_types(parser, len(st.ops), name)
        reject_extra_types(parser, name)
        values = st.ops.resolve(types)
        operands: list[Any] = list(values[:6])
        for segment, _, _ in _OPTIONAL:
            at = st.segments.get(segment)
            operands.append(None if at is None else [values[at]])
        at = st.segments.get("loop3")
        operands.append([] if at is None else values[at:at + 3])
        return cls.build(operands=operands, properties=st.props)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        print_values(printer, [self.src, self.dst, self.m, self.n, self.src_stride,
                               self.dst_stride])
        if self.sid is not None and self.l2cache is not None:
            printer.print_string(", ")
            print_values(printer, [self.sid, self.l2cache])
        if self.sub_block is not None:
            printer.print_string(", ")
            print_group(printer, "dst_mode", [self.sub_block])
        elif self.dst_mode is not None:
            printer.print_string(f", dst_mode({self.dst_mode.data})")
        if self.unit_flag is not None:
            printer.print_string(f", unit_flag({self.unit_flag.data})")
        if self.quant_mode is not None and self.quant_payload is not None:
            printer.print_string(", pre_quant(")
            printer.print_operand(self.quant_payload)
            printer.print_string(f", mode = {self.quant_mode.data})")
        if self.relu_mode is not None:
            printer.print_string(", pre_relu(")
            if self.relu_payload is not None:
                printer.print_operand(self.relu_payload)
                printer.print_string(", ")
            printer.print_string(f"mode = {self.relu_mode.data}")
            if self.clip is not None:
                printer.print_string(", clip = ")
                printer.print_operand(self.clip)
            printer.print_string(")")
        if self.layout is not None:
            printer.print_string(f", {self.layout.data}")
            if self.layout_value is not None:
                printer.print_string("(")
                printer.print_operand(self.layout_value)
                printer.print_string(")")
        if self.loop3:
            printer.print_string(", ")
            print_group(printer, "loop3", self.loop3)
        if self.sat is not None:
            printer.print_string(", " + {"preserve_nan": "sat(preserve_nan)"}.get(
                self.sat.data, self.sat.data))
        if self.atomic_type is not None and self.atomic_op is not None:
            printer.print_string(f", atomic(type = {self.atomic_type.data}, "
                                 f"op = {self.atomic_op.data})")
        printer.print_string(" : ")
        print_types(printer, self.operands)

    def check_shape(self) -> None:
        name = self.name
        gm, ub = self.DST == "gm", self.DST == "ub"
        require((self.sid is not None) == gm and (self.l2cache is not None) == gm,
                f"{name}: sid and l2cache operands belong to pto.mte_l0c_gm only")
        require(not ub or (self.sub_block is None) != (self.dst_mode is None),
                f"{name}: dst_mode takes a sub-block value or split_m / split_n")
        require(ub or (self.sub_block is None and self.dst_mode is None),
                f"{name}: dst_mode belongs to pto.mte_l0c_ub only")
        require((self.quant_mode is None) == (self.quant_payload is None),
                f"{name}: pre_quant takes a payload and a mode")
        require(self.relu_mode is not None or (self.relu_payload is None and self.clip is None),
                f"{name}: pre_relu payload and clip need a pre_relu mode")
        require(len(self.loop3) in (0, 3), f"{name}: loop3 takes 3 operands")
        require(self.layout_value is None or (self.layout is not None
                and self.layout.data in ("nz2dn", "nz2nz")),
                f"{name}: only nz2dn and nz2nz take a value")
        require(self.layout is None or self.layout.data in ("nz2nd", "nz2dn", "nz2nz"),
                f"{name}: layout must be nz2nd, nz2dn or nz2nz")
        require(gm or self.atomic_type is None, f"{name}: atomic belongs to mte_l0c_gm only")

    def slots(self) -> list[Slot]:
        out: list[Slot] = [(lb, getattr(self, lb), k) for lb, k in
                           zip(_HEAD, ("ptr", "ptr", "int", "int", "int", "int"))]
        for segment, label, kind in _OPTIONAL:
            value = getattr(self, segment)
            if value is not None:
                out.append((label, value, kind))
        out += [(f"loop3[{i}]", v, "int") for i, v in enumerate(self.loop3)]
        return out

    def python_call(self) -> tuple[list[object], dict[str, object]]:
        pos: list[object] = [self.src, self.dst, self.m, self.n, self.src_stride,
                             self.dst_stride]
        kw: dict[str, object] = {}
        if self.DST == "gm":
            pos += [self.sid, self.l2cache]
        if self.DST == "ub":
            kw["dst_mode"] = self.sub_block if self.sub_block is not None else \
                (self.dst_mode.data if self.dst_mode is not None else None)
        if self.unit_flag is not None:
            kw["unit_flag"] = self.unit_flag.data
        if self.quant_mode is not None:
            kw["pre_quant"] = (self.quant_payload, self.quant_mode.data)
        if self.relu_mode is not None:
            kw["pre_relu"] = (self.relu_payload, self.relu_mode.data, self.clip)
        if self.layout is not None:
            kw["layout"] = self.layout.data if self.layout_value is None else \
                (self.layout.data, self.layout_value)
        if self.loop3:
            kw["loop3"] = tuple(self.loop3)
        if self.sat is not None:
            kw["sat"] = self.sat.data
        if self.atomic_type is not None and self.atomic_op is not None:
            kw["atomic"] = (self.atomic_type.data, self.atomic_op.data)
        return pos, kw


class _State:
    """Parse state of one FIXPIPE op: operands so far, where each optional operand group
    starts among them, and the clause properties."""

    def __init__(self, ops: Operands) -> None:
        self.ops = ops
        self.segments: dict[str, int] = {}
        self.props: dict[str, StringAttr] = {}

    def opt(self, segment: str, label: str, kind: str) -> None:
        self.segments[segment] = len(self.ops)
        self.ops.add(label, kind)


def _parse_clause(parser: Parser, name: str, word: str, st: _State) -> None:
    """The body of one clause after its keyword ``word``."""
    props = st.props
    if word == "unit_flag":
        parser.parse_punctuation("(", " after unit_flag")
        props["unit_flag"] = StringAttr(choice(parser, ("check_only", "check_and_clear"), name,
                                               "a unit_flag value"))
        parser.parse_punctuation(")", " to close unit_flag(...)")
    elif word == "pre_quant":
        parser.parse_punctuation("(", " after pre_quant")
        st.opt("quant_payload", "pre_quant payload", "payload")
        comma(parser, name, "after the pre_quant payload")
        props["quant_mode"] = StringAttr(_mode(parser, name, "pre_quant"))
        parser.parse_punctuation(")", " to close pre_quant(...)")
    elif word == "pre_relu":
        parser.parse_punctuation("(", " after pre_relu")
        if parser.parse_optional_keyword("mode") is None:
            st.opt("relu_payload", "pre_relu payload", "payload")
            comma(parser, name, "after the pre_relu payload")
            keyword(parser, "mode", name, "in pre_relu(...)")
        parser.parse_punctuation("=", " after mode")
        props["relu_mode"] = StringAttr(identifier(parser, name, "a pre_relu mode"))
        if parser.parse_optional_punctuation(",") is not None:
            keyword(parser, "clip", name, "in pre_relu(...)")
            parser.parse_punctuation("=", " after clip")
            st.opt("clip", "pre_relu clip", "number")
        parser.parse_punctuation(")", " to close pre_relu(...)")
    elif word in ("nz2nd", "nz2dn", "nz2nz"):
        props["layout"] = StringAttr(word)
        if word == "nz2dn":
            parser.parse_punctuation("(", " after nz2dn (it takes loop0_src_stride)")
        if word == "nz2dn" or (word == "nz2nz"
                               and parser.parse_optional_punctuation("(") is not None):
            st.opt("layout_value", f"{word} value", "int")
            parser.parse_punctuation(")", f" to close {word}(...)")
    elif word == "loop3":
        st.segments["loop3"] = len(st.ops)
        st.ops.add_group("loop3", ("count", "src_stride", "dst_stride"), "int")
    elif word in ("sat", "nosat"):
        mode = word
        if word == "sat" and parser.parse_optional_punctuation("(") is not None:
            keyword(parser, "preserve_nan", name, "in sat(...)")
            parser.parse_punctuation(")", " to close sat(...)")
            mode = "preserve_nan"
        props["sat"] = StringAttr(mode)
    else:  # atomic
        parser.parse_punctuation("(", " after atomic")
        keyword(parser, "type", name, "in atomic(...)")
        parser.parse_punctuation("=", " after type")
        props["atomic_type"] = StringAttr(identifier(parser, name, "an atomic type"))
        comma(parser, name, "in atomic(...)")
        keyword(parser, "op", name, "in atomic(...)")
        parser.parse_punctuation("=", " after op")
        props["atomic_op"] = StringAttr(choice(parser, ("add", "max", "min"), name,
                                               "an atomic op"))
        parser.parse_punctuation(")", " to close atomic(...)")


def _mode(parser: Parser, name: str, clause: str) -> str:
    keyword(parser, "mode", name, f"in {clause}(...)")
    parser.parse_punctuation("=", " after mode")
    return identifier(parser, name, f"a {clause} mode")


@irdl_op_definition
class MteL0cGmOp(_Fixpipe):
    name = "pto.mte_l0c_gm"
    DST: ClassVar[str] = "gm"


@irdl_op_definition
class MteL0cL1Op(_Fixpipe):
    name = "pto.mte_l0c_l1"
    DST: ClassVar[str] = "l1"


@irdl_op_definition
class MteL0cUbOp(_Fixpipe):
    name = "pto.mte_l0c_ub"
    DST: ClassVar[str] = "ub"

