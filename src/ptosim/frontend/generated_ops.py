"""Op classes generated from the op registry: ops whose text form is a generic one, so a
new op of such a family is one row in `ptosim.isa.table` (or a family module of
`ptosim.isa`) and nothing here.

``scalars``: ``pto.<name> %a, %b : i64, i64`` -- integer operands, no results.
``operands``: ``pto.<name> %p, %q, %a, ... [{flag = true}] : T0, T1, ...`` -- positional
operands of the kinds the row's ``operands`` give (``ptr``, ``int``, ``flag``, ``number``)
and the boolean attributes its ``attrs`` name (a ``number`` operand's MLIR type goes to the
method as the keyword ``<name>_type``); no results (PTOAS's assembly format of the
register-level ops: ``$a `,` $b ... attr-dict `:` type($a) `,` ...``).
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import ArrayAttr, IntegerAttr, StringAttr, i1, i64
from xdsl.irdl import irdl_op_definition, opt_prop_def, var_operand_def
from xdsl.parser import Parser
from xdsl.printer import Printer

from ..isa import GENERATED, OpSpec
from .base import MicroOp, Slot
from .syntax import Operands, parse_types, print_types, print_values, reject_extra_types


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


class OperandsOp(MicroOp):
    """Positional operands of the kinds in ``SPEC.operands``, then an optional attribute
    dictionary of the booleans in ``SPEC.attrs``, then the type list."""

    SPEC: ClassVar[OpSpec]
    values = var_operand_def()
    flags = opt_prop_def(ArrayAttr[StringAttr])    # the attributes set to true

    @classmethod
    def parse(cls, parser: Parser) -> OperandsOp:
        ops = Operands(parser, cls.name)
        ops.add_list(cls.SPEC.operand_names, [o.kind for o in cls.SPEC.operands])
        pos = parser.pos
        flags = []
        for key, value in parser.parse_optional_attr_dict().items():
            if key not in cls.SPEC.attrs or not (isinstance(value, IntegerAttr)
                                                 and value.type == i1):
                allowed = " or ".join(f"'{a} = true|false'" for a in cls.SPEC.attrs)
                parser.raise_error(f"{cls.name}: unexpected attribute '{key}'"
                                   + (f" (allowed: {allowed})" if allowed else
                                      " (the op takes none)"), pos)
            if value.value.data:
                flags.append(StringAttr(key))
        parser.parse_punctuation(":", f" before the type list of {cls.name}")
        types = parse_types(parser, len(cls.SPEC.operands), cls.name)
        reject_extra_types(parser, cls.name)
        props = {"flags": ArrayAttr(flags)} if flags else {}
        return cls.build(operands=[ops.resolve(types)], properties=props)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        print_values(printer, self.values)
        if self.flags is not None:
            printer.print_string(" {" + ", ".join(f"{f.data} = true" for f in self.flags)
                                 + "}")
        printer.print_string(" : ")
        print_types(printer, self.values)

    def check_shape(self) -> None:
        from .base import require
        require(len(self.values) == len(self.SPEC.operands),
                f"{self.name} takes {len(self.SPEC.operands)} operands")

    def slots(self) -> list[Slot]:
        return [(o.name, v, o.kind) for o, v in zip(self.SPEC.operands, self.values)]

    def python_call(self) -> tuple[list[object], dict[str, object]]:
        kw: dict[str, object] = {f.data: True for f in self.flags} \
            if self.flags is not None else {}
        for o, v in zip(self.SPEC.operands, self.values):
            if o.kind == "number":       # the runtime value is a plain number: pass its type
                kw[f"{o.name}_type"] = str(v.type)
        return list(self.values), kw


_FAMILIES: dict[str, type[MicroOp]] = {"scalars": ScalarsOp, "operands": OperandsOp}


def _make(spec: OpSpec) -> type[MicroOp]:
    camel = "".join(part.capitalize() for part in spec.name.replace(".", "_").split("_"))
    family = _FAMILIES[spec.syntax or ""]
    cls: type[MicroOp] = irdl_op_definition(type(f"{camel}Op", (family,), {
        "name": spec.mnemonic, "__doc__": f"``{spec.mnemonic}``"}))
    cls.SPEC = spec
    return cls


GENERATED_OPS: tuple[type[MicroOp], ...] = tuple(_make(s) for s in GENERATED)
