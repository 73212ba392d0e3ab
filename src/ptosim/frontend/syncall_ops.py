"""SYNCALL in ``.pto``: PTOAS's ``pto.syncall``.

::

    pto.syncall() mode = #pto.sync_all_mode<hard>, core_type = #pto.sync_core_type<aiv_only>
    pto.syncall(%gm, %ub, %used : V, U, i32) mode = #pto.sync_all_mode<soft>,
                core_type = #pto.sync_core_type<aiv_only>

Operands by mode and core type (PTOAS SyncAllOp::parse / verify): hard none; soft
aiv_only gm, ub[, used]; aic_only gm, l1[, used]; mix gm, ub, l1[, used]. gm is a GM
memref / tensor_view / partition_tensor_view of i32; ub / l1 a vec / mat tile_buf or
memref of i32, rank 1 or 2; used an i32. The run is the scheduler's (interp/executor.py).
"""

from __future__ import annotations

from typing import ClassVar

from ..mlir.builtin import IntegerType, MemRefType, StringAttr
from ..mlir.ir import Attribute, SSAValue
from ..mlir.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    opt_operand_def,
    prop_def,
)
from ..mlir.parser import Parser
from ..mlir.printer import Printer
from .attributes import AddressSpaceAttr, _WordAttr, element_name
from .syntax import Operands, parse_types
from .tile_types import PartitionTensorViewType, TensorViewType, TileBufType

MODES = ("hard", "soft")
CORE_TYPES = ("aiv_only", "aic_only", "mix")


@irdl_attr_definition
class SyncAllModeAttr(_WordAttr):
    """``#pto.sync_all_mode<hard|soft>``."""

    name = "pto.sync_all_mode"

    value: StringAttr
    CHOICES = MODES
    WHAT = "a SYNCALL mode"


@irdl_attr_definition
class SyncCoreTypeAttr(_WordAttr):
    """``#pto.sync_core_type<aiv_only|aic_only|mix>``."""

    name = "pto.sync_core_type"

    value: StringAttr
    CHOICES = CORE_TYPES
    WHAT = "a SYNCALL core type"


# the workspaces each soft form takes, used_cores aside (PTOAS's operand segments)
_SOFT_FORMS = {"aiv_only": ("gm_workspace", "ub_workspace"),
               "aic_only": ("gm_workspace", "l1_workspace"),
               "mix": ("gm_workspace", "ub_workspace", "l1_workspace")}
_SOFT_SAYS = {"aiv_only": "soft AIV-only syncall to have gm_workspace, ub_workspace",
              "aic_only": "soft AIC-only syncall to have gm_workspace, l1_workspace",
              "mix": "soft mixed syncall to have gm_workspace, ub_workspace, l1_workspace"}


def _gm_problem(t: Attribute) -> str | None:
    if isinstance(t, MemRefType):
        space = t.memory_space
        if not isinstance(space, AddressSpaceAttr) or space.space() != "gm":
            return "to be in GM address space"
        element, rank = element_name(t.element_type), len(t.get_shape())
    elif isinstance(t, (TensorViewType, PartitionTensorViewType)):
        element, rank = element_name(t.element), len(t.shape.data)
    else:
        return "to be a GM memref/tensor_view/partition_view"
    if element != "i32":
        return "element type to be i32"
    return "to have rank >= 1" if rank == 0 else None


def _tile_problem(t: Attribute, loc: str) -> str | None:
    if isinstance(t, TileBufType):
        space, element, rank = t.loc.data, element_name(t.element), 2
    elif isinstance(t, MemRefType):
        ms = t.memory_space
        space = ms.value.data if isinstance(ms, AddressSpaceAttr) else "?"
        element, rank = element_name(t.element_type), len(t.get_shape())
    else:
        return "to be tile_buf or memref type"
    if space != loc:
        return f"to be in {loc} address space"
    if element != "i32":
        return "element type to be i32"
    return "to be rank-1 or rank-2" if rank not in (1, 2) else None


@irdl_op_definition
class SyncAllOp(IRDLOperation):
    """``pto.syncall``: see the module docstring; accessors give mode and core type as
    words and the operands by role."""

    name = "pto.syncall"
    SPEC: ClassVar[object]

    gm_workspace = opt_operand_def()
    ub_workspace = opt_operand_def()
    l1_workspace = opt_operand_def()
    used_cores = opt_operand_def()
    mode_attr = prop_def(StringAttr, prop_name="mode")
    core_attr = prop_def(StringAttr, prop_name="core_type")
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    @classmethod
    def parse(cls, parser: Parser) -> SyncAllOp:
        name = cls.name
        parser.parse_punctuation("(", f" after {name}")
        ops = Operands(parser, name)
        types: list = []
        if parser.parse_optional_punctuation(")") is None:
            ops.add("operand 1", "any")
            while parser.parse_optional_punctuation(",") is not None:
                ops.add(f"operand {len(ops) + 1}", "any")
            parser.parse_punctuation(":", f" before the types of {name}")
            types = parse_types(parser, len(ops), name)
            parser.parse_punctuation(")", f" to close {name}(...)")
        words = []
        for key, kind, what in (("mode", SyncAllModeAttr, "#pto.sync_all_mode<...>"),
                                ("core_type", SyncCoreTypeAttr, "#pto.sync_core_type<...>")):
            if key == "core_type":
                parser.parse_punctuation(",", f" before core_type of {name}")
            parser.parse_characters(key, f" in {name}")
            parser.parse_punctuation("=", f" after {key}")
            pos = parser.pos
            attr = parser.parse_optional_attribute()
            if not isinstance(attr, kind):
                parser.raise_error(f"{name}: expects {key} to be {what}", pos)
            words.append(attr.value.data)
        mode, core = words
        pos = parser.pos
        values = ops.resolve(types)
        if mode == "hard":
            if values:
                parser.raise_error(f"{name}: expects hard syncall to have no operands", pos)
            segments: list[SSAValue | None] = [None, None, None, None]
        else:
            roles = _SOFT_FORMS[core]
            if len(values) not in (len(roles), len(roles) + 1):
                parser.raise_error(f"{name}: expects {_SOFT_SAYS[core]}, and optional "
                                   f"used_cores", pos)
            by_role = dict(zip((*roles, "used_cores"), values))
            for role, (t, tpos) in zip(by_role, types):
                if role == "gm_workspace":
                    why = _gm_problem(t)
                elif role == "used_cores":
                    ok = isinstance(t, IntegerType) and t.width.data == 32
                    why = None if ok else "to be i32"
                else:
                    why = _tile_problem(t, "vec" if role == "ub_workspace" else "mat")
                if why is not None:
                    parser.raise_error(f"{name}: expects {role} {why}", tpos)
            segments = [by_role.get(r) for r in ("gm_workspace", "ub_workspace",
                                                 "l1_workspace", "used_cores")]
        return cls.build(operands=list(segments),
                         properties={"mode": StringAttr(mode), "core_type": StringAttr(core)})

    def print(self, printer: Printer) -> None:
        values = list(self.operands)
        printer.print_string("(")
        if values:
            printer.print_list(values, printer.print_operand)
            printer.print_string(" : ")
            printer.print_list([v.type for v in values], printer.print_attribute)
        printer.print_string(f") mode = #pto.sync_all_mode<{self.mode()}>, core_type = "
                             f"#pto.sync_core_type<{self.core_type()}>")

    def mode(self) -> str:
        return self.mode_attr.data

    def core_type(self) -> str:
        return self.core_attr.data


SYNCALL_ATTRS = (SyncAllModeAttr, SyncCoreTypeAttr)
