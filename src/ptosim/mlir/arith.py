"""MLIR's ``arith`` dialect as xDSL 0.74 defines it: the same op classes, op names,
operand / result / property names, custom syntax, verifiers and messages, plus
``arith.index_castui`` (which xDSL lacks and PTO-Gym kernels use).

xDSL writes most of these ops' syntax as declarative assembly formats; here each format is
a hand-written ``parse`` / ``print`` pair that reads and writes the same text, and checks
parsed types where xDSL's format engine does (raising its VerifyException messages while
parsing). Operand and result type rules (xDSL's constraint objects: type variables,
"integer-like", "float-like" ...) are checked in ``verify_`` with xDSL's wording, so the
op definitions themselves only declare names.

Only ``ConstantOp`` and ``IndexCastOp`` (the classes ptosim imports) are defined at import;
the other op classes are built the first time they are named (``arith.AddiOp``,
`op_class`, or the `Arith` dialect, which lists them all), to keep start-up short.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from enum import StrEnum
from typing import TYPE_CHECKING, Any, ClassVar, Literal, cast, get_args

from .builtin import (
    DYNAMIC_INDEX,
    AnyFloat,
    ContainerType,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IndexType,
    IntAttr,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ShapedType,
    Signedness,
    TensorType,
    UnrankedTensorType,
    VectorType,
)
from .exceptions import VerifyException
from .ir import Attribute, Data, Dialect, Operation, SSAValue
from .irdl import (
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
)
from .traits import Commutative, ConstantLike, NoMemoryEffect, Pure

if TYPE_CHECKING:
    from .parser import AttrParser, Parser, UnresolvedOperand
    from .printer import Printer

CMPI_COMPARISON_OPERATIONS = ["eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt",
                              "uge"]
CMPF_COMPARISON_OPERATIONS = ["false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq",
                              "ugt", "uge", "ult", "ule", "une", "uno", "true"]
_CMPI_INDEX = {name: i for i, name in enumerate(CMPI_COMPARISON_OPERATIONS)}
_CMPF_INDEX = {name: i for i, name in enumerate(CMPF_COMPARISON_OPERATIONS)}

_FLOATS: tuple[type[Attribute], ...] = get_args(AnyFloat)
_INTS = (IntegerType, IndexType)
_SCALARS = (IntegerType, IndexType, *_FLOATS)
_CONTAINERS = (VectorType, TensorType)     # xDSL's container_of(...)
_I1 = IntegerType(1)
_I64 = IntegerType(64)


# --- type rules, each returning xDSL's message for a type that breaks it (None: fine) -----
def _unexpected(t: Attribute) -> str:
    return f"Unexpected attribute {t}"


def _kind_like(t: Attribute, kinds: tuple[type[Attribute], ...]) -> str | None:
    """One of ``kinds``, or a vector / tensor of them."""
    if isinstance(t, kinds):
        return None
    if isinstance(t, _CONTAINERS):
        e = t.element_type
        return None if isinstance(e, kinds) else _unexpected(e)
    return _unexpected(t)


def _int_like(t: Attribute) -> str | None:
    """xDSL's signlessIntegerLike: an integer or index, or a vector / tensor of them (the
    name notwithstanding, any signedness)."""
    return _kind_like(t, _INTS)


def _float_like(t: Attribute) -> str | None:
    """xDSL's floatingPointLike: a float, or a vector / tensor of floats."""
    return _kind_like(t, _FLOATS)


def _is_i1(t: Attribute) -> str | None:
    return None if t == _I1 else f"Expected attribute i1 but got {t}"


def _bool_like(t: Attribute) -> str | None:
    """xDSL's boolLike: i1, or a vector / tensor of i1."""
    if isinstance(t, IntegerType):
        return _is_i1(t)
    if isinstance(t, _CONTAINERS):
        return _is_i1(t.element_type)
    return _unexpected(t)


def _float(t: Attribute) -> str | None:
    """xDSL's AnyFloatConstr."""
    return None if isinstance(t, _FLOATS) else _unexpected(t)


def _integer(t: Attribute) -> str | None:
    """base(IntegerType)."""
    return None if isinstance(t, IntegerType) else \
        f"{t} should be of base attribute {IntegerType.name}"


def _int_or_index(t: Attribute) -> str | None:
    """base(IntegerType) | base(IndexType)."""
    return None if isinstance(t, _INTS) else _unexpected(t)


def _signless(t: IntegerType) -> str | None:
    """xDSL's SignlessIntegerConstraint on an integer type."""
    if t.signedness.data is Signedness.SIGNLESS:
        return None
    return f"Expected attribute {_I1.signedness} but got {t.signedness}"


def _bitcastable(t: Attribute) -> str | None:
    """container_of(integer | index | float) | memref of (float | signless integer)."""
    if isinstance(t, MemRefType):
        e = t.element_type
        if isinstance(e, IntegerType):
            return _signless(e)
        return None if isinstance(e, _FLOATS) else _unexpected(e)
    return _kind_like(t, _SCALARS)


_Rule = Callable[[Attribute], "str | None"]


def _does_not_verify(kind: str, name: str, index: int, message: str) -> VerifyException:
    return VerifyException(f"{kind} '{name}' at position {index} does not verify:\n{message}")


def _verify_values(checks: Sequence[tuple[str, str, int, Attribute, _Rule]],
                   var: str = "T") -> None:
    """Check ``(kind, name, position, type, rule)`` in order as xDSL's verifier does for
    values sharing one type variable ``var``: the first fixes the variable and must satisfy
    ``rule``, the others must equal it."""
    bound: Attribute | None = None
    for kind, name, index, t, rule in checks:
        if bound is None:
            bound = t
            message = rule(t)
        elif t != bound:
            message = f"attribute {bound} expected from variable '{var}', but got {t}"
        else:
            continue
        if message is not None:
            raise _does_not_verify(kind, name, index, message)


def _check_each(checks: Sequence[tuple[str, str, int, Attribute, _Rule]]) -> None:
    """Independent constraints: each value against its own rule."""
    for kind, name, index, t, rule in checks:
        if (message := rule(t)) is not None:
            raise _does_not_verify(kind, name, index, message)


def _check_parsed(t: Attribute, rule: _Rule) -> None:
    """A type read by a declarative format: xDSL checks it against its constraint while
    parsing and raises the bare message."""
    if (message := rule(t)) is not None:
        raise VerifyException(message)


# --- the flag attributes ------------------------------------------------------------------
class IntegerOverflowFlag(StrEnum):
    NSW = "nsw"
    NUW = "nuw"


class FastMathFlag(StrEnum):
    REASSOC = "reassoc"
    NO_NANS = "nnan"
    NO_INFS = "ninf"
    NO_SIGNED_ZEROS = "nsz"
    ALLOW_RECIP = "arcp"
    ALLOW_CONTRACT = "contract"
    APPROX_FUNC = "afn"


class BitEnumAttribute(Data[frozenset[Any]]):
    """A set of flags from ``enum_type``, written ``<a,b>`` (``<none_value>`` for none,
    ``<all_value>`` for all of them)."""

    __slots__ = ()

    enum_type: ClassVar[type[StrEnum]]
    none_value: ClassVar[str | None] = None
    all_value: ClassVar[str | None] = None

    def __init__(self, flags: Iterable[StrEnum] | str | None) -> None:
        if flags is None or flags == self.none_value:
            data: frozenset[Any] = frozenset()
        elif flags == self.all_value:
            data = frozenset(self.enum_type)
        elif isinstance(flags, str):
            raise TypeError(f"expected string parameter to be one of {self.none_value} or "
                            f"{self.all_value}, got {flags}")
        else:
            data = frozenset(flags)
        super().__init__(data)

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> frozenset[Any]:
        enum_type = cls.enum_type

        def element() -> set[Any]:
            if cls.none_value is not None and \
                    parser.parse_optional_keyword(cls.none_value) is not None:
                return set()
            if cls.all_value is not None and \
                    parser.parse_optional_keyword(cls.all_value) is not None:
                return set(enum_type)
            return {enum_type(parser.parse_str_enum(enum_type))}

        found: set[Any] = set()
        for flags in parser.parse_list(parser.Delimiter.ANGLE, element, ","):
            found |= flags
        return frozenset(found)

    def print_parameter(self, printer: Printer) -> None:
        flags = self.data
        printer.print_string("<")
        if not flags and self.none_value is not None:
            printer.print_string(self.none_value)
        elif len(flags) == len(self.enum_type) and self.all_value is not None:
            printer.print_string(self.all_value)
        else:   # in the enum's order, whatever order they were written in
            printer.print_string(",".join(f.value for f in self.enum_type if f in flags))
        printer.print_string(">")


@irdl_attr_definition
class FastMathFlagsAttr(BitEnumAttribute):
    """``#arith.fastmath<...>``: LLVM's fast-math flags."""

    __slots__ = ()

    name = "arith.fastmath"
    enum_type = FastMathFlag
    none_value = "none"
    all_value = "fast"

    def __init__(self, flags: Iterable[FastMathFlag] | Literal["none", "fast"] | None) -> None:
        super().__init__(flags)


@irdl_attr_definition
class IntegerOverflowAttr(BitEnumAttribute):
    """``#arith.overflow<...>``: no signed / unsigned wrap flags."""

    __slots__ = ()

    name = "arith.overflow"
    enum_type = IntegerOverflowFlag
    none_value = "none"

    def __init__(self, flags: Iterable[IntegerOverflowFlag] | Literal["none"] | None) -> None:
        super().__init__(flags)


_NO_OVERFLOW = IntegerOverflowAttr("none")
_NO_FASTMATH = FastMathFlagsAttr("none")

_CMPI_PREDICATES = {name: IntegerAttr(i, _I64) for name, i in _CMPI_INDEX.items()}

# An optional flag property: (keyword, property name, attribute class, default)
_Flags = tuple[str, str, type[BitEnumAttribute], BitEnumAttribute]
_FASTMATH: _Flags = ("fastmath", "fastmath", FastMathFlagsAttr, _NO_FASTMATH)
_OVERFLOW: _Flags = ("overflow", "overflowFlags", IntegerOverflowAttr, _NO_OVERFLOW)

_PURE = traits_def(Pure())
_PURE_COMMUTATIVE = traits_def(Pure(), Commutative())
_NO_EFFECT = traits_def(NoMemoryEffect())


# --- shared syntax pieces ---------------------------------------------------------------
def _parse_flags(parser: Parser, flags: _Flags) -> BitEnumAttribute:
    """``keyword<flags>`` if the keyword is there, else the default."""
    keyword, _, cls, default = flags
    if parser.parse_optional_keyword(keyword) is None:
        return default
    return cls.new(cls.parse_parameter(parser))


def _print_flags(printer: Printer, op: Operation, flags: _Flags) -> None:
    """`` keyword<flags>`` unless the property is absent or the default."""
    keyword, prop, _, default = flags
    value = op.properties.get(prop)
    if value is not None and value != default:
        printer.print_string(" " + keyword)
        value.print_parameter(printer)  # type: ignore[attr-defined]


def _parse_operand_pair(parser: Parser) -> tuple[UnresolvedOperand, UnresolvedOperand]:
    """``%a, %b``."""
    first = parser.parse_unresolved_operand()
    parser.parse_punctuation(",")
    return first, parser.parse_unresolved_operand()


def _print_operands(printer: Printer, first: SSAValue, *others: SSAValue) -> None:
    """`` %a, %b``."""
    printer.print_string(" ")
    printer.print_ssa_value(first)
    for value in others:
        printer.print_string(", ")
        printer.print_ssa_value(value)


def _parse_type_suffix(parser: Parser) -> tuple[dict[str, Attribute], Attribute]:
    """``{attrs} : type``: the attributes and the type."""
    attrs = parser.parse_optional_attr_dict()
    parser.parse_punctuation(":")
    return attrs, parser.parse_type()


def _print_type_suffix(printer: Printer, op: Operation, t: Attribute) -> None:
    """`` {attrs} : type``."""
    printer.print_op_attributes(op.attributes)
    printer.print_string(" : ")
    printer.print_attribute(t)


def _type_or_type_of(result_type: Attribute | None, operand: Operation | SSAValue
                     ) -> Attribute:
    """``result_type``, by default ``operand``'s type."""
    return SSAValue.get(operand).type if result_type is None else result_type


# --- constants -------------------------------------------------------------------------
def _constant_type(value: Attribute) -> Attribute:
    """The result type an ``arith.constant`` of ``value`` has, or xDSL's message for a
    value it does not accept."""
    if isinstance(value, IntegerAttr):
        t = value.type
        if isinstance(t, IntegerType) and (message := _signless(t)) is not None:
            raise VerifyException(message)
        return t
    if isinstance(value, (FloatAttr, DenseIntOrFPElementsAttr)):
        return value.type
    raise VerifyException(_unexpected(value))


@irdl_op_definition
class ConstantOp(IRDLOperation):
    """``arith.constant [{attrs}] value``: an integer, index, float or dense vector /
    tensor constant; the value's type is the result's."""

    __slots__ = ()

    name = "arith.constant"
    result = result_def(Attribute)
    value = prop_def(Attribute)

    traits = traits_def(Pure(), ConstantLike())

    def __init__(self, value: IntegerAttr | FloatAttr | DenseIntOrFPElementsAttr,
                 value_type: Attribute | None = None) -> None:
        if value_type is None:
            value_type = value.get_type()
        super().__init__(operands=[], result_types=[value_type],
                         properties={"value": value})

    @staticmethod
    def from_int_and_width(value: int | IntAttr, value_type: int | IntegerType | IndexType,
                           *, truncate_bits: bool = False) -> ConstantOp:
        if isinstance(value_type, int):
            value_type = IntegerType(value_type)
        return ConstantOp.create(result_types=[value_type], properties={
            "value": IntegerAttr(value, value_type, truncate_bits=truncate_bits)})

    def verify_(self) -> None:
        t = self.result.type
        found = _constant_type(self.properties["value"])
        if found != t:
            raise VerifyException(f"attribute {t} expected from variable 'T', but got {found}")

    @classmethod
    def parse(cls, parser: Parser) -> ConstantOp:
        attrs = parser.parse_optional_attr_dict()
        value = parser.parse_attribute()
        return cls.create(result_types=(_constant_type(value),),
                          properties={"value": value}, attributes=attrs)

    def print(self, printer: Printer) -> None:
        printer.print_op_attributes(self.attributes)
        value = self.properties.get("value")
        if value is not None:
            printer.print_string(" ")
            printer.print_attribute(value)


# --- binary operations ------------------------------------------------------------------
class _BinaryOperation(IRDLOperation):
    """``%lhs, %rhs [keyword<flags>] {attrs} : type``: two operands and a result of one
    type satisfying ``_rule``; ``_flags`` names the optional flag property."""

    __slots__ = ()

    lhs = operand_def(Attribute)
    rhs = operand_def(Attribute)
    result = result_def(Attribute)

    _rule: ClassVar[Any]    # a _Rule (typed loosely: mypy would take it for a method)
    _flags: ClassVar[_Flags | None] = None

    def verify_(self) -> None:
        rule = type(self)._rule
        _verify_values((("operand", "lhs", 0, self.lhs.type, rule),
                        ("operand", "rhs", 1, self.rhs.type, rule),
                        ("result", "result", 0, self.result.type, rule)))

    @classmethod
    def parse(cls, parser: Parser) -> Any:
        lhs, rhs = _parse_operand_pair(parser)
        flags = cls._flags
        properties: dict[str, Attribute] = {}
        if flags is not None:
            properties[flags[1]] = _parse_flags(parser, flags)
        attrs, t = _parse_type_suffix(parser)
        _check_parsed(t, cls._rule)
        operands = (parser.resolve_operand(lhs, t), parser.resolve_operand(rhs, t))
        return cls.create(operands=operands, result_types=(t,), properties=properties,
                          attributes=attrs)

    def print(self, printer: Printer) -> None:
        _print_operands(printer, self.lhs, self.rhs)
        flags = type(self)._flags
        if flags is not None:
            _print_flags(printer, self, flags)
        _print_type_suffix(printer, self, self.result.type)


class SignlessIntegerBinaryOperation(_BinaryOperation):
    """A binary operation on integers or index (or vectors / tensors of them)."""

    __slots__ = ()

    _rule = staticmethod(_int_like)

    def __init__(self, operand1: Operation | SSAValue, operand2: Operation | SSAValue,
                 result_type: Attribute | None = None) -> None:
        super().__init__(operands=[operand1, operand2],
                         result_types=[_type_or_type_of(result_type, operand1)])

    def __hash__(self) -> int:
        return id(self)


class SignlessIntegerBinaryOperationWithOverflow(SignlessIntegerBinaryOperation):
    """An integer binary operation with ``overflow<nsw, nuw>`` flags."""

    __slots__ = ()

    overflow_flags = prop_def(IntegerOverflowAttr, default_value=_NO_OVERFLOW,
                              prop_name="overflowFlags")

    _flags = _OVERFLOW

    def __init__(self, operand1: Operation | SSAValue, operand2: Operation | SSAValue,
                 result_type: Attribute | None = None,
                 overflow: IntegerOverflowAttr = _NO_OVERFLOW) -> None:
        IRDLOperation.__init__(self, operands=[operand1, operand2],
                               properties={"overflowFlags": overflow},
                               result_types=[_type_or_type_of(result_type, operand1)])


class FloatingPointLikeBinaryOperation(_BinaryOperation):
    """A binary operation on floats (or vectors / tensors of them), with
    ``fastmath<...>`` flags."""

    __slots__ = ()

    fastmath = prop_def(FastMathFlagsAttr, default_value=_NO_FASTMATH)

    _rule = staticmethod(_float_like)
    _flags = _FASTMATH

    def __init__(self, operand1: Operation | SSAValue, operand2: Operation | SSAValue,
                 flags: FastMathFlagsAttr | None = None,
                 result_type: Attribute | None = None) -> None:
        super().__init__(operands=[operand1, operand2],
                         result_types=[_type_or_type_of(result_type, operand1)],
                         properties={"fastmath": flags})


def _infer_overflow_type(input_type: Attribute) -> Attribute:
    """i1, or the container of i1 shaped like ``input_type``."""
    if isinstance(input_type, IntegerType):
        return _I1
    if isinstance(input_type, VectorType):
        return VectorType(_I1, input_type.shape, input_type.scalable_dims)
    if isinstance(input_type, UnrankedTensorType):
        return UnrankedTensorType(_I1)
    if isinstance(input_type, TensorType):
        return TensorType(_I1, input_type.shape, input_type.encoding)
    raise ValueError(f"Unsupported input type for arith.addui_extended: {input_type}")


class _AddUIExtended(IRDLOperation):
    """Unsigned addition that also returns whether it overflowed:
    ``%lhs, %rhs {attrs} : sum-type, overflow-type``."""

    __slots__ = ()

    lhs = operand_def(Attribute)
    rhs = operand_def(Attribute)
    sum = result_def(Attribute)
    overflow = result_def(Attribute)

    def __init__(self, operand1: Operation | SSAValue, operand2: Operation | SSAValue,
                 attributes: dict[str, Attribute] | None = None,
                 result_type: Attribute | None = None) -> None:
        result_type = _type_or_type_of(result_type, operand1)
        super().__init__(operands=[operand1, operand2],
                         result_types=[result_type, _infer_overflow_type(result_type)],
                         attributes=attributes)

    def verify_(self) -> None:
        _verify_values((("operand", "lhs", 0, self.lhs.type, _int_like),
                        ("operand", "rhs", 1, self.rhs.type, _int_like),
                        ("result", "sum", 0, self.sum.type, _int_like)))
        _check_each((("result", "overflow", 1, self.overflow.type, _bool_like),))
        expected = _infer_overflow_type(self.lhs.type)
        if self.overflow.type != expected:
            raise VerifyException(f"overflow type {self.overflow.type} does not match input "
                                  f"types {self.lhs.type}. Expected {expected}")

    @classmethod
    def parse(cls, parser: Parser) -> Any:
        lhs, rhs = _parse_operand_pair(parser)
        attrs, sum_type = _parse_type_suffix(parser)
        parser.parse_punctuation(",")
        overflow_type = parser.parse_type()
        _check_parsed(sum_type, _int_like)
        _check_parsed(overflow_type, _bool_like)
        operands = (parser.resolve_operand(lhs, sum_type),
                    parser.resolve_operand(rhs, sum_type))
        return cls.create(operands=operands, result_types=(sum_type, overflow_type),
                          attributes=attrs)

    def print(self, printer: Printer) -> None:
        _print_operands(printer, self.lhs, self.rhs)
        _print_type_suffix(printer, self, self.sum.type)
        printer.print_string(", ")
        printer.print_attribute(self.overflow.type)


class MulExtendedBase(IRDLOperation):
    """Multiplication returning the low and high halves: ``%lhs, %rhs {attrs} : type``."""

    __slots__ = ()

    lhs = operand_def(Attribute)
    rhs = operand_def(Attribute)
    low = result_def(Attribute)
    high = result_def(Attribute)

    def __init__(self, operand1: SSAValue, operand2: SSAValue,
                 result_type: Attribute | None = None) -> None:
        result_type = _type_or_type_of(result_type, operand1)
        super().__init__(operands=[operand1, operand2], result_types=[result_type, result_type])

    def verify_(self) -> None:
        _verify_values((("operand", "lhs", 0, self.lhs.type, _int_like),
                        ("operand", "rhs", 1, self.rhs.type, _int_like),
                        ("result", "low", 0, self.low.type, _int_like),
                        ("result", "high", 1, self.high.type, _int_like)))

    @classmethod
    def parse(cls, parser: Parser) -> Any:
        lhs, rhs = _parse_operand_pair(parser)
        attrs, t = _parse_type_suffix(parser)
        _check_parsed(t, _int_like)
        operands = (parser.resolve_operand(lhs, t), parser.resolve_operand(rhs, t))
        return cls.create(operands=operands, result_types=(t, t), attributes=attrs)

    def print(self, printer: Printer) -> None:
        _print_operands(printer, self.lhs, self.rhs)
        _print_type_suffix(printer, self, self.lhs.type)


# --- comparisons, select, negf ----------------------------------------------------------
class ComparisonOperation(IRDLOperation):
    """``pred, %lhs, %rhs : type``; the predicate is stored as an i64 index into the
    comparison's mnemonic list. The custom syntax has no attribute dictionary (xDSL's
    neither reads nor prints one)."""

    __slots__ = ()

    traits = _PURE

    @staticmethod
    def _get_comparison_predicate(mnemonic: str, comparison_operations: dict[str, int]) -> int:
        if mnemonic in comparison_operations:
            return comparison_operations[mnemonic]
        raise VerifyException(f"Unknown comparison mnemonic: {mnemonic}")

    @staticmethod
    def _validate_operand_types(operand1: SSAValue, operand2: SSAValue) -> None:
        if operand1.type != operand2.type:
            raise TypeError(f"Comparison operands must have same type, but provided "
                            f"{operand1.type} and {operand2.type}")


class _Comparison(ComparisonOperation):
    """cmpi / cmpf: ``_mnemonics`` name the predicates (``_index``: their positions), the
    operands satisfy ``_rule``, ``_flags`` is the optional flag property. (The subclasses
    declare the fields, in xDSL's order.)"""

    __slots__ = ()

    predicate: IntegerAttr
    lhs: SSAValue
    rhs: SSAValue
    result: SSAValue

    _mnemonics: ClassVar[list[str]]
    _index: ClassVar[dict[str, int]]
    _rule: ClassVar[Any]    # a _Rule
    _flags: ClassVar[_Flags | None] = None

    def _build(self, operand1: Operation | SSAValue, operand2: Operation | SSAValue,
               arg: int | str, **properties: Attribute) -> None:
        lhs, rhs = SSAValue.get(operand1), SSAValue.get(operand2)
        self._validate_operand_types(lhs, rhs)
        if isinstance(arg, str):
            arg = self._get_comparison_predicate(arg, self._index)
        super().__init__(operands=[lhs, rhs], result_types=[_I1],
                         properties={"predicate": IntegerAttr(arg, _I64), **properties})

    def verify_(self) -> None:
        rule = type(self)._rule
        _check_each((("operand", "lhs", 0, self.lhs.type, rule),
                     ("operand", "rhs", 1, self.rhs.type, rule),
                     ("result", "result", 0, self.result.type, _is_i1)))

    @staticmethod
    def _parse_operands(parser: Parser, flags: _Flags | None = None
                        ) -> tuple[str, SSAValue, SSAValue, BitEnumAttribute | None]:
        """``pred, %lhs, %rhs [flags] : type``: the predicate's name, the operands and the
        flags (None without ``flags``)."""
        arg = parser.parse_identifier()
        parser.parse_punctuation(",")
        operand1, operand2 = _parse_operand_pair(parser)
        found = None if flags is None else _parse_flags(parser, flags)
        parser.parse_punctuation(":")
        input_type = parser.parse_type()
        lhs, rhs = parser.resolve_operands([operand1, operand2], [input_type, input_type],
                                           parser.pos)
        return arg, lhs, rhs, found

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self._mnemonics[self.predicate.value.data]},")
        _print_operands(printer, self.lhs, self.rhs)
        flags = type(self)._flags
        if flags is not None:
            _print_flags(printer, self, flags)
        printer.print_string(" : ")
        printer.print_attribute(self.lhs.type)


class _Cmpi(_Comparison):
    """``arith.cmpi slt, %a, %b : i32``."""

    __slots__ = ()

    predicate = prop_def(IntegerAttr)
    lhs = operand_def(Attribute)
    rhs = operand_def(Attribute)
    result = result_def(Attribute)

    _mnemonics = CMPI_COMPARISON_OPERATIONS
    _index = _CMPI_INDEX
    _rule = staticmethod(_int_like)

    def __init__(self, operand1: Operation | SSAValue, operand2: Operation | SSAValue,
                 arg: int | str) -> None:
        self._build(operand1, operand2, arg)

    @classmethod
    def parse(cls, parser: Parser) -> Any:
        arg, lhs, rhs, _ = cls._parse_operands(parser)
        # what ``cls(lhs, rhs, arg)`` builds (the operands share their type), more quickly
        predicate = _CMPI_PREDICATES.get(arg)
        if predicate is None:     # (raises xDSL's error)
            predicate = IntegerAttr(cls._get_comparison_predicate(arg, _CMPI_INDEX), _I64)
        return cls.create(operands=(lhs, rhs), result_types=(_I1,),
                          properties={"predicate": predicate})


class _Cmpf(_Comparison):
    """``arith.cmpf olt, %a, %b [fastmath<...>] : f32``."""

    __slots__ = ()

    predicate = prop_def(IntegerAttr)
    lhs = operand_def(Attribute)
    rhs = operand_def(Attribute)
    fastmath = prop_def(FastMathFlagsAttr, default_value=_NO_FASTMATH)
    result = result_def(Attribute)

    _mnemonics = CMPF_COMPARISON_OPERATIONS
    _index = _CMPF_INDEX
    _rule = staticmethod(_float_like)
    _flags = _FASTMATH

    def __init__(self, operand1: SSAValue | Operation, operand2: SSAValue | Operation,
                 arg: int | str, fastmath: FastMathFlagsAttr = _NO_FASTMATH) -> None:
        self._build(operand1, operand2, arg, fastmath=fastmath)

    @classmethod
    def parse(cls, parser: Parser) -> Any:
        arg, lhs, rhs, flags = cls._parse_operands(parser, _FASTMATH)
        return cls(lhs, rhs, arg, cast(FastMathFlagsAttr, flags))


def _no_rule(t: Attribute) -> str | None:
    return None


class _Select(IRDLOperation):
    """``arith.select %cond, %a, %b : type``: %a if %cond is 1, else %b."""

    __slots__ = ()

    cond = operand_def(Attribute)
    lhs = operand_def(Attribute)
    rhs = operand_def(Attribute)
    result = result_def(Attribute)

    def __init__(self, operand1: Operation | SSAValue, operand2: Operation | SSAValue,
                 operand3: Operation | SSAValue) -> None:
        operand2 = SSAValue.get(operand2)
        super().__init__(operands=[operand1, operand2, operand3], result_types=[operand2.type])

    def verify_(self) -> None:
        _check_each((("operand", "cond", 0, self.cond.type, _is_i1),))
        _verify_values((("operand", "lhs", 1, self.lhs.type, _no_rule),
                        ("operand", "rhs", 2, self.rhs.type, _no_rule),
                        ("result", "result", 0, self.result.type, _no_rule)), "_T")

    @classmethod
    def parse(cls, parser: Parser) -> Any:
        cond = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        lhs, rhs = _parse_operand_pair(parser)
        attrs, t = _parse_type_suffix(parser)
        operands = (parser.resolve_operand(cond, _I1), parser.resolve_operand(lhs, t),
                    parser.resolve_operand(rhs, t))
        return cls.create(operands=operands, result_types=(t,), attributes=attrs)

    def print(self, printer: Printer) -> None:
        _print_operands(printer, self.cond, self.lhs, self.rhs)
        _print_type_suffix(printer, self, self.result.type)


class _Negf(IRDLOperation):
    """``arith.negf %x [fastmath<...>] : type``."""

    __slots__ = ()

    fastmath = prop_def(FastMathFlagsAttr, default_value=_NO_FASTMATH)
    operand = operand_def(Attribute)
    result = result_def(Attribute)

    def __init__(self, operand: Operation | SSAValue,
                 fastmath: FastMathFlagsAttr | None = None) -> None:
        operand = SSAValue.get(operand)
        # (xDSL passes the flags as an attribute here, not as the property)
        super().__init__(attributes={"fastmath": fastmath}, operands=[operand],
                         result_types=[operand.type])

    def verify_(self) -> None:
        _verify_values((("operand", "operand", 0, self.operand.type, _float_like),
                        ("result", "result", 0, self.result.type, _float_like)), "_T")

    @classmethod
    def parse(cls, parser: Parser) -> Any:
        operand = parser.parse_unresolved_operand()
        flags = _parse_flags(parser, _FASTMATH)
        attrs, t = _parse_type_suffix(parser)
        _check_parsed(t, _float_like)
        return cls.create(operands=(parser.resolve_operand(operand, t),), result_types=(t,),
                          properties={"fastmath": flags}, attributes=attrs)

    def print(self, printer: Printer) -> None:
        _print_operands(printer, self.operand)
        _print_flags(printer, self, _FASTMATH)
        _print_type_suffix(printer, self, self.result.type)


# --- casts ------------------------------------------------------------------------------
class _CastOperation(IRDLOperation):
    """``%x {attrs} : from-type to to-type``; ``_rules`` are the input's and the result's
    type rules."""

    __slots__ = ()

    input = operand_def(Attribute)
    result = result_def(Attribute)

    _rules: ClassVar[tuple[_Rule, _Rule]]

    def __init__(self, op: SSAValue | Operation, target_type: Attribute) -> None:
        super().__init__(operands=[op], result_types=[target_type])

    def _verify_types(self) -> None:
        in_rule, out_rule = type(self)._rules
        _check_each((("operand", "input", 0, self.input.type, in_rule),
                     ("result", "result", 0, self.result.type, out_rule)))

    def verify_(self) -> None:
        self._verify_types()

    @classmethod
    def parse(cls, parser: Parser) -> Any:
        operand = parser.parse_unresolved_operand()
        attrs, src = _parse_type_suffix(parser)
        parser.parse_keyword("to")
        dst = parser.parse_type()
        in_rule, out_rule = cls._rules
        _check_parsed(src, in_rule)
        _check_parsed(dst, out_rule)
        return cls.create(operands=(parser.resolve_operand(operand, src),), result_types=(dst,),
                          attributes=attrs)

    def print(self, printer: Printer) -> None:
        _print_operands(printer, self.input)
        _print_type_suffix(printer, self, self.input.type)
        printer.print_string(" to ")
        printer.print_attribute(self.result.type)


def _element_type_or_self(t: Attribute) -> Attribute:
    return t.get_element_type() if isinstance(t, ContainerType) else t


def _have_compatible_shape(lhs: Attribute, rhs: Attribute) -> bool:
    """xDSL's have_compatible_shape: both scalars, or containers whose ranked shapes agree
    (dynamic dimensions match anything)."""
    lhs_container = isinstance(lhs, ContainerType)
    if lhs_container != isinstance(rhs, ContainerType):
        return False
    if not lhs_container or not isinstance(lhs, ShapedType) or not isinstance(rhs, ShapedType):
        return True
    a, b = lhs.get_shape(), rhs.get_shape()
    return len(a) == len(b) and all(DYNAMIC_INDEX in (x, y) or x == y for x, y in zip(a, b))


def _bitwidth(t: Attribute) -> int | None:
    """Bits of a fixed-width scalar type (integer or float); None for others."""
    return t.bitwidth if isinstance(t, (IntegerType, *_FLOATS)) else None  # type: ignore


class _Bitcast(_CastOperation):
    """``arith.bitcast %x : t1 to t2``: the same bits as another type of their width."""

    __slots__ = ()

    _rules = (_bitcastable, _bitcastable)

    def verify_(self) -> None:
        self._verify_types()
        in_type, res_type = self.input.type, self.result.type
        if not _have_compatible_shape(in_type, res_type):
            raise VerifyException("operand and result type must have compatible shape")
        t1, t2 = _element_type_or_self(in_type), _element_type_or_self(res_type)
        if not (isinstance(t1, IndexType) or isinstance(t2, IndexType)):
            w1, w2 = _bitwidth(t1), _bitwidth(t2)
            if w1 is None or w2 is None or w1 != w2:
                raise VerifyException(
                    "operand and result types must have equal bitwidths or be IndexType")


class _IndexCast(_CastOperation):
    """``%x : t1 to t2`` between an integer and index (exactly one side index)."""

    __slots__ = ()

    traits = _PURE
    _rules = (_int_or_index, _int_or_index)

    def verify_(self) -> None:
        self._verify_types()
        # xDSL's message names arith.index_cast and the input type twice, for both casts
        if isinstance(self.input.type, IndexType) == isinstance(self.result.type, IndexType):
            raise VerifyException(
                f"'arith.index_cast' op operand type '{self.input.type}' and result type "
                f"'{self.input.type}' are cast incompatible")


@irdl_op_definition
class IndexCastOp(_IndexCast):
    """``arith.index_cast %x : i32 to index``: sign-extending (or truncating) cast."""

    __slots__ = ()

    name = "arith.index_cast"


class FloatingPointToIntegerBaseOp(_CastOperation):
    """``%x : float to integer``."""

    __slots__ = ()

    traits = _PURE
    _rules = (_float, _integer)


class IntegerToFloatingPointBaseOp(_CastOperation):
    """``%x : integer to float``."""

    __slots__ = ()

    traits = _PURE
    _rules = (_integer, _float)


class _FloatResize(_CastOperation):
    """extf / truncf: float to float (xDSL does not compare the widths)."""

    __slots__ = ()

    traits = _PURE
    _rules = (_float_like, _float_like)


class _IntResize(_CastOperation):
    """trunci / extsi / extui: integer to a narrower (``_narrows``) or wider integer."""

    __slots__ = ()

    _rules = (_integer, _integer)
    _narrows: ClassVar[bool]

    def verify_(self) -> None:
        self._verify_types()
        src = self.input.type.width.data  # type: ignore[attr-defined]
        dst = self.result.type.width.data  # type: ignore[attr-defined]
        if type(self)._narrows:
            if not dst < src:
                raise VerifyException(
                    "Destination bit-width must be smaller than the input bit-width")
        elif not dst > src:
            raise VerifyException("Destination bit-width must be larger than the input bit-width")


# --- the op classes ----------------------------------------------------------------------
# Every op but ConstantOp and IndexCastOp is a class built the first time it is named
# (`op_class`, or ``arith.AddiOp``): only a name, a base holding the behaviour and traits,
# so defining all ~50 at import would only cost start-up time.
_SpecT = tuple[str, type[IRDLOperation], Any, dict[str, Any] | None]
_W, _I, _F = (SignlessIntegerBinaryOperationWithOverflow, SignlessIntegerBinaryOperation,
              FloatingPointLikeBinaryOperation)
_SPECS: dict[str, _SpecT] = {
    "arith.addi": ("AddiOp", _W, _PURE_COMMUTATIVE, None),
    "arith.addui_extended": ("AddUIExtendedOp", _AddUIExtended, _PURE, None),
    "arith.subi": ("SubiOp", _W, _PURE, None),
    "arith.muli": ("MuliOp", _W, _PURE_COMMUTATIVE, None),
    "arith.mului_extended": ("MulUIExtendedOp", MulExtendedBase, _PURE, None),
    "arith.mulsi_extended": ("MulSIExtendedOp", MulExtendedBase, _PURE, None),
    "arith.divui": ("DivUIOp", _I, _NO_EFFECT, None),
    "arith.divsi": ("DivSIOp", _I, _NO_EFFECT, None),
    "arith.floordivsi": ("FloorDivSIOp", _I, _PURE, None),
    "arith.ceildivsi": ("CeilDivSIOp", _I, _PURE, None),
    "arith.ceildivui": ("CeilDivUIOp", _I, _NO_EFFECT, None),
    "arith.remui": ("RemUIOp", _I, None, None),
    "arith.remsi": ("RemSIOp", _I, _PURE, None),
    "arith.minsi": ("MinSIOp", _I, _PURE, None),
    "arith.maxsi": ("MaxSIOp", _I, _PURE, None),
    "arith.minui": ("MinUIOp", _I, _PURE, None),
    "arith.maxui": ("MaxUIOp", _I, _PURE, None),
    "arith.addf": ("AddfOp", _F, _PURE, None),
    "arith.subf": ("SubfOp", _F, _PURE, None),
    "arith.mulf": ("MulfOp", _F, _PURE, None),
    "arith.divf": ("DivfOp", _F, _PURE, None),
    "arith.negf": ("NegfOp", _Negf, _PURE, None),
    "arith.cmpi": ("CmpiOp", _Cmpi, None, None),
    "arith.cmpf": ("CmpfOp", _Cmpf, None, None),
    "arith.select": ("SelectOp", _Select, _PURE, None),
    "arith.andi": ("AndIOp", _I, _PURE_COMMUTATIVE, None),
    "arith.ori": ("OrIOp", _I, _PURE_COMMUTATIVE, None),
    "arith.xori": ("XOrIOp", _I, _PURE_COMMUTATIVE, None),
    "arith.shli": ("ShLIOp", _W, _PURE, None),
    "arith.shrui": ("ShRUIOp", _I, _PURE, None),
    "arith.shrsi": ("ShRSIOp", _I, _PURE, None),
    "arith.minimumf": ("MinimumfOp", _F, _PURE, None),
    "arith.minnumf": ("MinnumfOp", _F, _PURE, None),
    "arith.maximumf": ("MaximumfOp", _F, _PURE, None),
    "arith.maxnumf": ("MaxnumfOp", _F, _PURE, None),
    "arith.bitcast": ("BitcastOp", _Bitcast, _PURE, None),
    # MLIR's unsigned index cast, which xDSL lacks (ptosim defined it in frontend/text.py)
    "arith.index_castui": ("IndexCastUIOp", _IndexCast, None, None),
    "arith.fptosi": ("FPToSIOp", FloatingPointToIntegerBaseOp, None, None),
    "arith.fptoui": ("FPToUIOp", FloatingPointToIntegerBaseOp, None, None),
    "arith.sitofp": ("SIToFPOp", IntegerToFloatingPointBaseOp, None, None),
    "arith.uitofp": ("UIToFPOp", IntegerToFloatingPointBaseOp, None, None),
    "arith.extf": ("ExtFOp", _FloatResize, None, None),
    "arith.truncf": ("TruncFOp", _FloatResize, None, None),
    "arith.trunci": ("TruncIOp", _IntResize, _PURE, {"_narrows": True}),
    "arith.extsi": ("ExtSIOp", _IntResize, None, {"_narrows": False}),
    "arith.extui": ("ExtUIOp", _IntResize, _PURE, {"_narrows": False}),
}
_BY_CLASS_NAME = {spec[0]: name for name, spec in _SPECS.items()}
_BUILT: dict[str, type[Operation]] = {ConstantOp.name: ConstantOp, IndexCastOp.name: IndexCastOp}

# every arith op, in xDSL's Arith dialect order (plus arith.index_castui)
OP_NAMES: tuple[str, ...] = (
    "arith.constant", "arith.addi", "arith.addui_extended", "arith.subi", "arith.muli",
    "arith.mului_extended", "arith.mulsi_extended", "arith.divui", "arith.divsi",
    "arith.floordivsi", "arith.ceildivsi", "arith.ceildivui", "arith.remui", "arith.remsi",
    "arith.minsi", "arith.maxsi", "arith.minui", "arith.maxui", "arith.addf", "arith.subf",
    "arith.mulf", "arith.divf", "arith.negf", "arith.cmpi", "arith.cmpf", "arith.select",
    "arith.andi", "arith.ori", "arith.xori", "arith.shli", "arith.shrui", "arith.shrsi",
    "arith.minimumf", "arith.minnumf", "arith.maximumf", "arith.maxnumf", "arith.bitcast",
    "arith.index_cast", "arith.index_castui", "arith.fptosi", "arith.fptoui", "arith.sitofp",
    "arith.uitofp", "arith.extf", "arith.truncf", "arith.trunci", "arith.extsi", "arith.extui")

ATTRIBUTES: tuple[type[Attribute], ...] = (FastMathFlagsAttr, IntegerOverflowAttr)


def op_class(name: str) -> type[Operation] | None:
    """The class of arith op ``name`` (``"arith.addi"``), built on first use; None if
    arith has no such op. A context can resolve ``arith.*`` names with it instead of
    loading the whole `Arith` dialect."""
    cls = _BUILT.get(name)
    if cls is None:
        spec = _SPECS.get(name)
        if spec is None:
            return None
        class_name, base, traits, extra = spec
        namespace: dict[str, Any] = {"__slots__": (), "__module__": __name__,
                                     "__qualname__": class_name, "__doc__": base.__doc__,
                                     "name": name}
        if traits is not None:
            namespace["traits"] = traits
        if extra:
            namespace.update(extra)
        cls = _BUILT[name] = irdl_op_definition(type(class_name, (base,), namespace))
        globals()[class_name] = cls
    return cls


def __getattr__(attr: str) -> Any:
    """The op classes built on first use (``arith.AddiOp``) and the `Arith` dialect."""
    if attr == "Arith":
        dialect = Dialect("arith", [op_class(n) for n in OP_NAMES],  # type: ignore[misc]
                          list(ATTRIBUTES))
        globals()["Arith"] = dialect
        return dialect
    name = _BY_CLASS_NAME.get(attr)
    if name is None:
        raise AttributeError(f"module {__name__!r} has no attribute {attr!r}")
    return op_class(name)
