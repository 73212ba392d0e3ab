"""``pto.treshape``: a tile buffer's bytes seen as another tile_buf type, an SSA view (PTOAS
``TReshapeOp``: ``%r = pto.treshape %src : T -> U``; no data moves). The static rules are
PTOAS's verifier's (same loc, same total byte size, boxed <-> non-boxed refused); the
interpreter makes the view with `ptosim.tile.shape.treshape`."""

from __future__ import annotations

from xdsl.ir import Attribute
from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def, result_def, traits_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from ..dtypes import dtype as _dtype
from .syntax import Operands, parse_type_at
from .tile_types import TileBufType, tile_info


def reshape_problem(src: Attribute, dst: Attribute) -> str | None:
    """Why ``src`` cannot be re-read as ``dst``, or None."""
    if not isinstance(src, TileBufType) or not isinstance(dst, TileBufType):
        return f"src and result must be !pto.tile_buf types, got {src} -> {dst}"
    a, b = tile_info(src), tile_info(dst)
    if a["loc"] != b["loc"]:
        return f"src and result must use the same loc, got {a['loc']} -> {b['loc']}"
    na = int(a["rows"]) * int(a["cols"]) * _dtype(str(a["dtype"])).size  # type: ignore[call-overload]
    nb = int(b["rows"]) * int(b["cols"]) * _dtype(str(b["dtype"])).size  # type: ignore[call-overload]
    if na != nb:
        return f"src ({na} B) and result ({nb} B) must have the same total byte size"
    if (a["slayout"] == "NoneBox") != (b["slayout"] == "NoneBox"):
        return "cannot reshape between boxed and non-boxed tile layouts"
    return None


@irdl_op_definition
class TReshapeOp(IRDLOperation):
    """``%r = pto.treshape %src : T -> U``."""

    name = "pto.treshape"

    src = operand_def()
    result = result_def()

    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser: Parser) -> TReshapeOp:
        ops = Operands(parser, cls.name)
        ops.add("src", "tile")
        parser.parse_punctuation(":", f" before the types of {cls.name}")
        src_t = parse_type_at(parser)
        parser.parse_punctuation("->", f" between the types of {cls.name}")
        dst, pos = parse_type_at(parser)
        (src,) = ops.resolve([src_t])
        if (why := reshape_problem(src.type, dst)) is not None:
            parser.raise_error(f"{cls.name}: {why}", pos)
        return cls.build(operands=[src], result_types=[dst])

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.src)
        printer.print_string(" : ")
        printer.print_attribute(self.src.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)

    def verify_(self) -> None:
        if (why := reshape_problem(self.src.type, self.result.type)) is not None:
            raise VerifyException(f"{self.name}: {why}")
