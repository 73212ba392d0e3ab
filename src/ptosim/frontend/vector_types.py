"""Types of the vector micro ISA: ``!pto.vreg<NxT>``, ``!pto.mask<b8|b16|b32>``, ``!pto.align``.

``N * sizeof(T)`` must be 256 bytes (one vector register); the mask width is one of b8,
b16, b32. Parse errors point at the offending token.
"""

from __future__ import annotations

from ..dtypes import DTYPES
from ..mlir.builtin import IntAttr, StringAttr
from ..mlir.exceptions import VerifyException
from ..mlir.ir import Attribute, ParametrizedAttribute, TypeAttribute
from ..mlir.irdl import irdl_attr_definition
from ..mlir.parser import AttrParser
from ..mlir.printer import Printer
from ..vector.values import MASK_WIDTHS, VREG_BYTES, VREG_DTYPES
from .attributes import KINDS, element_name


@irdl_attr_definition
class VRegType(ParametrizedAttribute, TypeAttribute):
    """``!pto.vreg<64xf32>``: one 256-byte vector register viewed as N lanes of T."""

    name = "pto.vreg"

    lanes: IntAttr
    element: Attribute

    def __init__(self, lanes: int, element: Attribute) -> None:
        super().__init__(IntAttr(lanes), element)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> tuple[Attribute, ...]:
        parser.parse_punctuation("<", " after !pto.vreg")
        pos = parser.pos
        n = parser.parse_optional_integer(allow_boolean=False, allow_negative=False)
        if n is None:
            parser.raise_error("!pto.vreg: expected the lane count, as in <64xf32>", pos)
        parser.parse_shape_delimiter()
        tpos = parser.pos
        element = parser.parse_type()
        name = element_name(element)
        if name not in VREG_DTYPES:
            parser.raise_error(f"!pto.vreg: {element} is not a vector element type (one of "
                               f"{', '.join(VREG_DTYPES)})", tpos)
        size = DTYPES[name].size
        if n * size != VREG_BYTES:
            parser.raise_error(f"!pto.vreg: {n} lanes of {name} are {n * size} bytes; a vector "
                               f"register is {VREG_BYTES} bytes ({VREG_BYTES // size}x{name})",
                               pos)
        parser.parse_punctuation(">", " to close !pto.vreg<...>")
        return IntAttr(n), element

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{self.lanes.data}x")
        printer.print_attribute(self.element)
        printer.print_string(">")

    def verify(self) -> None:
        name = element_name(self.element)
        if name not in VREG_DTYPES:
            raise VerifyException(f"!pto.vreg: {self.element} is not a vector element type")
        if self.lanes.data * DTYPES[name].size != VREG_BYTES:
            raise VerifyException(f"!pto.vreg: {self.lanes.data}x{name} is not "
                                  f"{VREG_BYTES} bytes")

    @property
    def dtype_name(self) -> str:
        return element_name(self.element) or ""


@irdl_attr_definition
class MaskType(ParametrizedAttribute, TypeAttribute):
    """``!pto.mask<b32>``: the 256-bit predicate viewed with G-bit lanes."""

    name = "pto.mask"

    width: StringAttr

    def __init__(self, g: int) -> None:
        super().__init__(StringAttr(f"b{g}"))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> tuple[Attribute, ...]:
        parser.parse_punctuation("<", " after !pto.mask")
        pos = parser.pos
        word = parser.parse_optional_identifier()
        legal = [f"b{g}" for g in MASK_WIDTHS]
        if word not in legal:
            got = f"'{word}'" if word is not None else "nothing"
            parser.raise_error(f"!pto.mask: unknown mask width {got} (one of "
                               f"{', '.join(legal)})", pos)
        parser.parse_punctuation(">", " to close !pto.mask<...>")
        return (StringAttr(word),)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{self.width.data}>")

    def verify(self) -> None:
        if self.width.data not in [f"b{g}" for g in MASK_WIDTHS]:
            raise VerifyException(f"!pto.mask: unknown width {self.width.data}")

    @property
    def g(self) -> int:
        return int(self.width.data[1:])


@irdl_attr_definition
class AlignType(ParametrizedAttribute, TypeAttribute):
    """``!pto.align``: the state of an unaligned load/store stream."""

    name = "pto.align"


def is_vector_type(t: Attribute) -> bool:
    """True for the types that may only live inside a vecscope."""
    return isinstance(t, (VRegType, MaskType, AlignType))


KINDS.update({
    "vreg": (lambda t: isinstance(t, VRegType), "a !pto.vreg<NxT>"),
    "mask": (lambda t: isinstance(t, MaskType), "a !pto.mask<b8|b16|b32>"),
    "align": (lambda t: isinstance(t, AlignType), "a !pto.align"),
})
