"""Op classes generated from the op registry: ops whose text form is a generic one, so a
new op of such a family is one row in `ptosim.isa.table` and nothing here.

``scalars``: ``pto.<name> %a, %b : i64, i64`` -- integer operands, no results.
``vector``: the vector micro ops (`ptosim.frontend.vector_ops`, rows in `ptosim.isa.vector`).
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import i64
from xdsl.irdl import irdl_op_definition, var_operand_def
from xdsl.parser import Parser
from xdsl.printer import Printer

from ..isa import GENERATED, OpSpec
from .base import MicroOp, Slot
from .syntax import Operands, parse_types, print_types, print_values


class ScalarsOp(MicroOp):
    """Integer operands described by ``SPEC.operands``, each of type i64."""

    SPEC: ClassVar[OpSpec]
    values = var_operand_def(i64)

    @classmethod
    def parse(cls, parser: Parser) -> ScalarsOp:
        ops = Operands(parser, cls.name)
        ops.add_list(cls.SPEC.operand_names, "int")
        parser.parse_punctuation(":", f" before the type list of {cls.name}")
        types = parse_types(parser, len(cls.SPEC.operands), cls.name)
        return cls.build(operands=[ops.resolve(types)])

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        print_values(printer, self.values)
        printer.print_string(" : ")
        print_types(printer, self.values)

    def check_shape(self) -> None:
        from .base import require
        require(len(self.values) == len(self.SPEC.operands),
                f"{self.name} takes {len(self.SPEC.operands)} operands")

    def slots(self) -> list[Slot]:
        return [(label, v, "int") for label, v in zip(self.SPEC.operand_names, self.values)]

    def python_call(self) -> tuple[list[object], dict[str, object]]:
        return list(self.values), {}


_FAMILIES: dict[str, type[MicroOp]] = {"scalars": ScalarsOp}


def _make(spec: OpSpec) -> type[MicroOp]:
    camel = "".join(part.capitalize() for part in spec.name.replace(".", "_").split("_"))
    if spec.syntax == "vector":
        from .vector_ops import make_vector_op
        vcls = make_vector_op(spec, camel)
        vcls.SPEC = spec
        return vcls
    family = _FAMILIES[spec.syntax or ""]
    cls: type[MicroOp] = irdl_op_definition(type(f"{camel}Op", (family,), {
        "name": spec.mnemonic, "__doc__": f"``{spec.mnemonic}``"}))
    cls.SPEC = spec
    return cls


GENERATED_OPS: tuple[type[MicroOp], ...] = tuple(_make(s) for s in GENERATED)
