"""`MicroOp`: the common face of every ``pto`` op that maps onto one Machine method."""

from __future__ import annotations

from typing import ClassVar

from ..isa import OpSpec
from ..mlir.exceptions import VerifyException
from ..mlir.ir import SSAValue
from ..mlir.irdl import IRDLOperation
from .attributes import kind_error

Slot = tuple[str, SSAValue, str]  # operand label, value, kind


class MicroOp(IRDLOperation):
    """A micro op the interpreter runs as ``getattr(machine, SPEC.method)(*pos, **kw)``
    with ``pos, kw = op.python_call()`` after replacing each SSAValue (possibly nested in a
    tuple or list) by its runtime value. ``SPEC`` (the op's registry entry) is attached to
    every dialect op class by `ptosim.frontend.dialect`."""

    SPEC: ClassVar[OpSpec]

    def python_call(self) -> tuple[list[object], dict[str, object]]:
        """Positional operands and keyword clauses in the Machine method's shape."""
        raise NotImplementedError

    def slots(self) -> list[Slot]:
        """Every operand with its label and kind, in source (= type list) order."""
        raise NotImplementedError

    def verify_(self) -> None:
        # Parsing already checked kinds with source positions; this guards built ops.
        self.check_shape()
        for label, value, kind in self.slots():
            if (why := kind_error(kind, value.type)) is not None:
                raise VerifyException(f"{self.name}: {label} {why}")

    def check_shape(self) -> None:
        """Arity rules that operand segments alone do not express."""


def require(cond: bool, message: str) -> None:
    if not cond:
        raise VerifyException(message)


def triples(values: tuple[SSAValue, ...] | list[SSAValue]) -> list[tuple[SSAValue, ...]]:
    return [tuple(values[i:i + 3]) for i in range(0, len(values), 3)]
