"""Cube micro ops: L1 -> L0A/L0B staging and the ``mad`` family.

::

    pto.mte_l1_l0a %src, %dst, %m, %k[, %start_row, %start_col] [{transpose = true}]
      : !pto.ptr<T, l1>, !pto.ptr<T, l0a>, i64, i64[, i64, i64]
    pto.mte_l1_l0b %src, %dst, %k, %n [{transpose = true}] : ...
    pto.mad %lhs, %rhs, %dst, %m, %n, %k [unit_flag(check_only|check_and_set)] [disable_gemv]
        [sat|nosat] [tf32_mode(round_even|round_away)] [n_dir] : ptr, ptr, ptr, i64, i64, i64
    pto.mad_bias %lhs, %rhs, %dst, %bias, %m, %n, %k ... : ptr, ptr, ptr, ptr, i64, i64, i64

``mad`` clauses are space separated, each at most once, in the order above.
"""

from __future__ import annotations

from typing import ClassVar

from ..mlir.builtin import IntegerAttr, StringAttr, UnitAttr, i1
from ..mlir.ir import Attribute
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
    parse_types,
    print_types,
    print_values,
    reject_extra_types,
)


class _L1ToL0(MicroOp):
    """L1 -> L0A/L0B; ``transpose`` is a unit property, written ``{transpose = true}``.
    With ``HAS_STARTS`` the PTOAS form with two more operands ``%start_row, %start_col``
    is accepted too."""

    DIMS: ClassVar[tuple[str, str]]
    HAS_STARTS: ClassVar[bool] = False

    src = operand_def()
    dst = operand_def()
    first = operand_def()
    second = operand_def()
    starts = var_operand_def()
    transpose = opt_prop_def(UnitAttr)

    @classmethod
    def parse(cls, parser: Parser) -> _L1ToL0:
        ops = Operands(parser, cls.name)
        ops.add_list(["src", "dst", *cls.DIMS], ["ptr", "ptr", "int", "int"])
        if cls.HAS_STARTS and parser.parse_optional_punctuation(",") is not None:
            ops.add("start_row", "int")
            comma(parser, cls.name, "before start_col")
            ops.add("start_col", "int")
        pos = parser.pos
        attrs = parser.parse_optional_attr_dict()
        transpose = False
        for key, value in attrs.items():
            if key != "transpose" or not (isinstance(value, IntegerAttr) and value.type == i1):
                parser.raise_error(f"{cls.name}: the only attribute is 'transpose = true|false'"
                                   f", got '{key}'", pos)
            transpose = bool(value.value.data)
        parser.parse_punctuation(":", f" before the type list of {cls.name}")
        types = parse_types(parser, len(ops), cls.name)
        reject_extra_types(parser, cls.name)
        v = ops.resolve(types)
        return cls.build(operands=[*v[:4], v[4:]],
                         properties={"transpose": UnitAttr()} if transpose else {})

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        print_values(printer, self.operands)
        if self.transpose is not None:
            printer.print_string(" {transpose = true}")
        printer.print_string(" : ")
        print_types(printer, self.operands)

    def check_shape(self) -> None:
        require(len(self.starts) in ((0, 2) if self.HAS_STARTS else (0,)),
                f"{self.name}: takes 4{' or 6' if self.HAS_STARTS else ''} operands")

    def slots(self) -> list[Slot]:
        return [(n, v, k) for n, v, k in zip(("src", "dst", *self.DIMS, "start_row",
                                              "start_col"), self.operands,
                                             ("ptr", "ptr", "int", "int", "int", "int"))]

    def python_call(self) -> tuple[list[object], dict[str, object]]:
        return list(self.operands), {"transpose": True} if self.transpose is not None else {}


@irdl_op_definition
class MteL1L0aOp(_L1ToL0):
    name = "pto.mte_l1_l0a"
    DIMS: ClassVar[tuple[str, str]] = ("m", "k")
    HAS_STARTS: ClassVar[bool] = True


@irdl_op_definition
class MteL1L0bOp(_L1ToL0):
    name = "pto.mte_l1_l0b"
    DIMS: ClassVar[tuple[str, str]] = ("k", "n")
    HAS_STARTS: ClassVar[bool] = True


@irdl_op_definition
class MteL1L0aMxOp(_L1ToL0):
    """MX scale staging into the ScaleLeft / ScaleRight buffer (`ptosim.ops.cube`)."""

    name = "pto.mte_l1_l0a_mx"
    DIMS: ClassVar[tuple[str, str]] = ("m", "k")


@irdl_op_definition
class MteL1L0bMxOp(_L1ToL0):
    """MX scale staging into the ScaleLeft / ScaleRight buffer (`ptosim.ops.cube`)."""

    name = "pto.mte_l1_l0b_mx"
    DIMS: ClassVar[tuple[str, str]] = ("k", "n")


# --- mad family -------------------------------------------------------------------------------
# (clause, property, arguments or None for a bare word); "sat" and "nosat" share a slot.
_MAD_CLAUSES: tuple[tuple[str, str, tuple[str, ...] | None], ...] = (
    ("unit_flag", "unit_flag", ("check_only", "check_and_set")),
    ("disable_gemv", "disable_gemv", None),
    ("sat", "sat", None),
    ("nosat", "sat", None),
    ("tf32_mode", "tf32_mode", ("round_even", "round_away")),
    ("n_dir", "n_dir", None),
)
_MAD_SLOTS = ("unit_flag", "disable_gemv", "sat", "tf32_mode", "n_dir")


class _Mad(MicroOp):
    HAS_BIAS: ClassVar[bool] = False

    lhs = operand_def()
    rhs = operand_def()
    dst = operand_def()
    bias = opt_operand_def()
    m = operand_def()
    n = operand_def()
    k = operand_def()

    unit_flag = opt_prop_def(StringAttr)
    disable_gemv = opt_prop_def(UnitAttr)
    sat = opt_prop_def(StringAttr)
    tf32_mode = opt_prop_def(StringAttr)
    n_dir = opt_prop_def(UnitAttr)

    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    @classmethod
    def _labels(cls) -> list[str]:
        return ["lhs", "rhs", "dst"] + (["bias"] if cls.HAS_BIAS else []) + ["m", "n", "k"]

    @classmethod
    def parse(cls, parser: Parser) -> _Mad:
        labels = cls._labels()
        ops = Operands(parser, cls.name)
        n_ptr = len(labels) - 3
        ops.add_list(labels, ["ptr"] * n_ptr + ["int"] * 3)
        props: dict[str, Attribute] = {}
        last = -1
        words = [c[0] for c in _MAD_CLAUSES]
        while True:
            pos = parser.pos
            word = parser.parse_optional_keyword_in(words)
            if word is None:
                break
            clause, prop, args = next(c for c in _MAD_CLAUSES if c[0] == word)
            slot = _MAD_SLOTS.index(prop)
            if slot <= last:
                parser.raise_error(f"{cls.name}: clause '{word}' is out of order or repeated "
                                   f"(order: unit_flag disable_gemv sat|nosat tf32_mode "
                                   f"n_dir)", pos)
            last = slot
            if args is not None:
                parser.parse_punctuation("(", f" after {word}")
                props[prop] = StringAttr(choice(parser, args, cls.name, f"a {word} value"))
                parser.parse_punctuation(")", f" to close {word}(...)")
            elif prop == "sat":
                props[prop] = StringAttr(word)
            else:
                props[prop] = UnitAttr()
        parser.parse_punctuation(":", f" before the type list of {cls.name}")
        types = parse_types(parser, len(labels), cls.name)
        reject_extra_types(parser, cls.name)
        v = ops.resolve(types)
        bias = [v[3]] if cls.HAS_BIAS else None
        return cls.build(operands=[v[0], v[1], v[2], bias, v[-3], v[-2], v[-1]],
                         properties=props)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        print_values(printer, self.operands)
        for key, value in self._clause_values().items():
            if value is True:
                printer.print_string(f" {key}")
            elif key == "sat":
                printer.print_string(f" {value}")
            else:
                printer.print_string(f" {key}({value})")
        printer.print_string(" : ")
        print_types(printer, self.operands)

    def _clause_values(self) -> dict[str, object]:
        out: dict[str, object] = {}
        for prop in _MAD_SLOTS:
            attr = getattr(self, prop)
            if attr is not None:
                out[prop] = attr.data if isinstance(attr, StringAttr) else True
        return out

    def check_shape(self) -> None:
        require((self.bias is not None) == self.HAS_BIAS,
                f"{self.name}: bias operand {'missing' if self.HAS_BIAS else 'unexpected'}")

    def slots(self) -> list[Slot]:
        labels = self._labels()
        return [(lb, v, "int" if lb in ("m", "n", "k") else "ptr")
                for lb, v in zip(labels, self.operands)]

    def python_call(self) -> tuple[list[object], dict[str, object]]:
        return list(self.operands), self._clause_values()


@irdl_op_definition
class MadOp(_Mad):
    name = "pto.mad"


@irdl_op_definition
class MadAccOp(_Mad):
    name = "pto.mad_acc"


@irdl_op_definition
class MadBiasOp(_Mad):
    name = "pto.mad_bias"
    HAS_BIAS: ClassVar[bool] = True


@irdl_op_definition
class MadMxOp(_Mad):
    """MX matmul (`ptosim.ops.mad`)."""

    name = "pto.mad_mx"


@irdl_op_definition
class MadMxAccOp(_Mad):
    """MX matmul-accumulate."""

    name = "pto.mad_mx_acc"


@irdl_op_definition
class MadMxBiasOp(_Mad):
    """MX matmul with bias."""

    name = "pto.mad_mx_bias"
    HAS_BIAS: ClassVar[bool] = True

