"""Types and attributes of the ``pto`` dialect, and the type predicates the ops share.

Pointer spellings accepted on input (all describe one address-space pointer):

- ``!pto.ptr<T, space>`` with space ``gm l1 l0a l0b l0c ub bt fb`` or an alias
  ``mat left right acc vec bias scaling``; ``!pto.ptr<T>`` is a GM pointer. The canonical
  space name is stored and printed.
- ``memref<?xT, #pto.address_space<X>>`` with X ``gm mat left right acc vec bias scaling``.

`ptr_info` maps either spelling to ``(dtype_name, canonical_space)`` where ``dtype_name`` is
a spelling `ptosim.dtypes.dtype` accepts.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from ..dtypes import DTYPES
from ..mlir.builtin import (
    AnyFloat,
    IndexType,
    IntegerType,
    MemRefType,
    Signedness,
    StringAttr,
)
from ..mlir.exceptions import VerifyException
from ..mlir.ir import Attribute, ParametrizedAttribute, TypeAttribute
from ..mlir.irdl import irdl_attr_definition
from ..mlir.parser import AttrParser
from ..mlir.printer import Printer

# Canonical pointer spaces, and the other names (memref enum mnemonics) that mean them.
SPACES: tuple[str, ...] = ("gm", "l1", "l0a", "l0b", "l0c", "ub", "bt", "fb")
SPACE_ALIASES: dict[str, str] = {
    "mat": "l1", "left": "l0a", "right": "l0b", "acc": "l0c", "vec": "ub", "bias": "bt",
    "scaling": "fb",
}
# The memref memory-space enum knows only these mnemonics.
_MNEMONIC: dict[str, str] = {"gm": "gm", **{v: k for k, v in SPACE_ALIASES.items()}}

PIPES: tuple[str, ...] = ("PIPE_S", "PIPE_V", "PIPE_M", "PIPE_MTE1", "PIPE_MTE2", "PIPE_MTE3",
                          "PIPE_ALL", "PIPE_MTE4", "PIPE_MTE5", "PIPE_V2", "PIPE_FIX")
EVENTS: tuple[str, ...] = tuple(f"EVENT_ID{i}" for i in range(8))
KERNEL_KINDS: tuple[str, ...] = ("cube", "vector")


def canonical_space(name: str) -> str | None:
    """The canonical space for a canonical name or an alias; None if unknown."""
    if name in SPACES:
        return name
    return SPACE_ALIASES.get(name)


def _parse_choice(parser: AttrParser, choices: Sequence[str], what: str) -> str:
    pos = parser.pos
    word = parser.parse_optional_identifier()
    if word is None or word not in choices:
        got = f"'{word}'" if word is not None else "nothing"
        parser.raise_error(f"expected {what} (one of {', '.join(choices)}), got {got}", pos)
    return word


# --- element types that the builtin dialect lacks ----------------------------------------
class _ElementType(ParametrizedAttribute, TypeAttribute):
    """A parameterless PTO element type; its dtype name is its mnemonic."""


@irdl_attr_definition
class Hif8Type(_ElementType):
    name = "pto.hif8"


@irdl_attr_definition
class Hif8x2Type(_ElementType):
    name = "pto.hif8x2"


@irdl_attr_definition
class F4E2M1x2Type(_ElementType):
    name = "pto.f4E2M1x2"


@irdl_attr_definition
class F4E1M2x2Type(_ElementType):
    name = "pto.f4E1M2x2"


_name_cache: dict[Attribute, str | None] = {}


def element_name(t: Attribute) -> str | None:
    """The ptosim dtype spelling of an element type (``si8``, ``hif8``...), or None."""
    try:
        return _name_cache[t]
    except KeyError:
        pass
    name: str | None = None
    if isinstance(t, _ElementType):
        name = t.name.split(".", 1)[1]
    elif isinstance(t, IntegerType):
        prefix = {Signedness.SIGNLESS: "i", Signedness.SIGNED: "si",
                  Signedness.UNSIGNED: "ui"}[t.signedness.data]
        name = f"{prefix}{t.width.data}"
    elif isinstance(t, AnyFloat):
        name = str(t)
    if name not in DTYPES:
        name = None
    _name_cache[t] = name
    return name


# --- pointer type ------------------------------------------------------------------------
@irdl_attr_definition
class PtrType(ParametrizedAttribute, TypeAttribute):
    """``!pto.ptr<T, space>``: a byte address in one space, typed by its element."""

    name = "pto.ptr"

    element: Attribute
    space: StringAttr

    def __init__(self, element: Attribute, space: str | StringAttr = "gm") -> None:
        if isinstance(space, str):
            space = StringAttr(space)
        super().__init__(element, space)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> tuple[Attribute, StringAttr]:
        return parse_ptr_body(parser)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_attribute(self.element)
            printer.print_string(f", {self.space.data}")

    def verify(self) -> None:
        if element_name(self.element) is None:
            raise VerifyException(f"{self.element} is not a PTO element type")
        if self.space.data not in SPACES:
            raise VerifyException(f"unknown address space '{self.space.data}'")


def parse_ptr_body(parser: AttrParser, opened: bool = False) -> tuple[Attribute, StringAttr]:
    """``<T[, space]>``: also used for the short ``<T, space>`` form inside op type lists
    (``opened``: the ``<`` is already consumed)."""
    if not opened:
        parser.parse_punctuation("<")
    pos = parser.pos
    element = parser.parse_type()
    if element_name(element) is None:
        parser.raise_error(f"{element} is not a PTO element type (one of "
                           f"{', '.join(DTYPES)})", pos)
    space = "gm"
    if parser.parse_optional_punctuation(",") is not None:
        pos = parser.pos
        word = parser.parse_optional_identifier()
        space_c = canonical_space(word) if word is not None else None
        if space_c is None:
            parser.raise_error(f"expected an address space (one of {', '.join(SPACES)} or "
                               f"{', '.join(SPACE_ALIASES)})", pos)
        space = space_c
    parser.parse_punctuation(">", " to close !pto.ptr<...>")
    return element, StringAttr(space)


# --- attributes ----------------------------------------------------------------------------
class _WordAttr(ParametrizedAttribute):
    """An attribute holding one word from a closed set, printed as ``#pto.x<word>``.
    Each subclass redeclares ``value``: the dataclass equality of an attribute class sees
    only the parameters declared on decorated classes."""

    CHOICES: ClassVar[tuple[str, ...]] = ()
    WHAT: ClassVar[str] = ""

    value: StringAttr

    def __init__(self, value: str | StringAttr) -> None:
        super().__init__(StringAttr(value) if isinstance(value, str) else value)

    @classmethod
    def _canonical(cls, word: str) -> str:
        return word

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> tuple[StringAttr]:
        with parser.in_angle_brackets():
            word = _parse_choice(parser, cls.CHOICES, cls.WHAT)
        return (StringAttr(cls._canonical(word)),)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{self.value.data}>")


@irdl_attr_definition
class PipeAttr(_WordAttr):
    """``#pto.pipe<PIPE_X>``."""

    name = "pto.pipe"

    value: StringAttr
    CHOICES = PIPES
    WHAT = "a pipe"


@irdl_attr_definition
class KernelKindAttr(_WordAttr):
    """``#pto.kernel_kind<cube|vector>`` (module attribute ``pto.kernel_kind``)."""

    name = "pto.kernel_kind"

    value: StringAttr
    CHOICES = KERNEL_KINDS
    WHAT = "a kernel kind"


@irdl_attr_definition
class AddressSpaceAttr(_WordAttr):
    """``#pto.address_space<X>``: the memory space of a pointer memref. Holds and prints
    the enum mnemonic (gm mat left ...); canonical pointer names are accepted on input."""

    name = "pto.address_space"

    value: StringAttr
    CHOICES = tuple(_MNEMONIC.values()) + SPACES[1:]
    WHAT = "an address space"

    @classmethod
    def _canonical(cls, word: str) -> str:
        return _MNEMONIC.get(word, word)

    def space(self) -> str:
        """The canonical pointer space (l1 for mat, ...)."""
        return canonical_space(self.value.data) or self.value.data


# --- predicates ---------------------------------------------------------------------------
def is_pointer_type(t: Attribute) -> bool:
    """A ``!pto.ptr`` or a memref whose memory space is a ``#pto.address_space``."""
    if isinstance(t, PtrType):
        return True
    return isinstance(t, MemRefType) and isinstance(t.memory_space, AddressSpaceAttr) \
        and element_name(t.element_type) is not None


def ptr_info(t: Attribute) -> tuple[str, str]:
    """``(dtype_name, canonical_space)`` of a pointer type (either spelling).

    >>> ptr_info(PtrType(Hif8Type(), "vec"))
    ('hif8', 'ub')
    """
    if isinstance(t, PtrType):
        name = element_name(t.element)
        if name is not None:
            return name, t.space.data
    elif is_pointer_type(t):
        assert isinstance(t, MemRefType) and isinstance(t.memory_space, AddressSpaceAttr)
        return element_name(t.element_type) or "", t.memory_space.space()
    raise TypeError(f"{t} is not a PTO pointer type")


def is_int_type(t: Attribute) -> bool:
    """Scalar integer operands: i64 (canonical), also i32 and index."""
    return isinstance(t, IndexType) or (isinstance(t, IntegerType) and t.width.data in (32, 64))


def is_bool_type(t: Attribute) -> bool:
    return isinstance(t, IntegerType) and t.width.data == 1


def is_float_type(t: Attribute) -> bool:
    return isinstance(t, AnyFloat)


def is_number_type(t: Attribute) -> bool:
    """Any integer (including i1/i8/i16) or float scalar: pad values and clip payloads."""
    return isinstance(t, (IntegerType, IndexType, AnyFloat))


# Operand kinds: the predicate and the words used in diagnostics.
KINDS = {
    "any": (lambda t: True, "any type"),
    "i64": (lambda t: isinstance(t, IntegerType) and t.width.data == 64
            and t.signedness.data == Signedness.SIGNLESS, "i64"),
    "ptr": (is_pointer_type, "a !pto.ptr (or pointer memref)"),
    "int": (is_int_type, "an integer scalar (i64, i32 or index)"),
    "flag": (lambda t: is_bool_type(t) or is_int_type(t), "an i1 (or integer) scalar"),
    "payload": (lambda t: is_pointer_type(t) or is_float_type(t),
                "an f16/bf16/f32 scalar or a !pto.ptr"),
    "number": (is_number_type, "an integer or float scalar"),
}


def kind_error(kind: str, t: Attribute) -> str | None:
    """None when type ``t`` is acceptable for an operand of ``kind``, else the reason."""
    check, words = KINDS[kind]
    return None if check(t) else f"must be {words}, got {t}"
