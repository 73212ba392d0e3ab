"""The ``builtin`` dialect: MLIR's core types and attributes, ``builtin.module`` and
``builtin.unrealized_conversion_cast``, with the names, constructors and printed forms of
xDSL 0.74's ``xdsl.dialects.builtin`` (the subset ptosim and its parser use).

Attributes are immutable, compared by class and contents and hashed once. Parsing builds
them per token, so each class sets its fields directly instead of going through the
generic parameter machinery; ``verify`` runs on construction where it can fail.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Iterable, Iterator, Mapping, Sequence
from enum import Enum
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeAlias, TypeVar

from .exceptions import VerifyException
from .ir import (
    Attribute,
    Block,
    BuiltinAttribute,
    Data,
    Dialect,
    Operation,
    ParametrizedAttribute,
    Region,
    SSAValue,
    TypeAttribute,
    TypedAttribute,
)
from .irdl import (
    IRDLOperation,
    irdl_op_definition,
    opt_prop_def,
    region_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from .traits import (
    IsolatedFromAbove,
    NoMemoryEffect,
    NoTerminator,
    OptionalSymbolOpInterface,
    SymbolTable,
)

if TYPE_CHECKING:
    from .parser import Parser
    from .printer import Printer

DYNAMIC_INDEX = -(2**63)
"""A dynamic (``?``) dimension in a shape (MLIR's value)."""

_set = object.__setattr__
_AttrT = TypeVar("_AttrT", bound=Attribute, covariant=True)
_DataT = TypeVar("_DataT")


class _Params(ParametrizedAttribute):
    """A builtin parametrized attribute: its own ``__init__`` sets the named fields and
    ``_params``; no generic parameter checks (``_PARAM_CHECKS_`` is empty)."""

    __slots__ = ()
    _PARAM_CHECKS_: ClassVar[tuple[Any, ...]] = ()

    def _init(self, *params: Any) -> None:
        for name, value in zip(self._PARAM_NAMES_, params):
            _set(self, name, value)
        _set(self, "_params", params)


class _NoParams(_Params):
    """A builtin attribute without parameters (``index``, ``f32``, ``unit`` ...); prints
    its name unless it says otherwise."""

    __slots__ = ()

    def __init__(self) -> None:
        _set(self, "_params", ())

    def print_builtin(self, printer: Printer) -> None:
        printer.print_string(self.name)

    def __eq__(self, other: object) -> bool:
        return other.__class__ is self.__class__

    def __ne__(self, other: object) -> bool:
        return other.__class__ is not self.__class__

    def __hash__(self) -> int:
        return hash(self.__class__.name)


class ShapedType(Attribute):
    """A type with a shape (``get_shape``; ``DYNAMIC_INDEX`` for ``?``)."""

    __slots__ = ()

    def get_num_dims(self) -> int:
        return len(self.get_shape())

    def get_shape(self) -> tuple[int, ...]:
        raise NotImplementedError

    def element_count(self) -> int:
        return math.prod(self.get_shape())

    def has_static_shape(self) -> bool:
        return DYNAMIC_INDEX not in self.get_shape()

    @staticmethod
    def strides_for_shape(shape: Sequence[int], factor: int = 1) -> tuple[int | None, ...]:
        """Row-major strides (innermost ``factor``); None from a dynamic dimension out."""
        strides: list[int | None] = []
        stride: int | None = factor
        for dim in reversed(shape):
            strides.append(stride)
            stride = None if stride is None or dim == DYNAMIC_INDEX else stride * dim
        return tuple(reversed(strides))


class ContainerType(Attribute):
    """A type holding elements of one type."""

    __slots__ = ()

    def get_element_type(self) -> Attribute:
        return self.element_type  # type: ignore[attr-defined]


# --- data attributes ------------------------------------------------------------------
class _PlainData(Data[_DataT]):
    """A builtin `Data` built from its value as is (nothing to check)."""

    __slots__ = ()

    def __init__(self, data: _DataT) -> None:
        _set(self, "data", data)


class NoneAttr(_NoParams, BuiltinAttribute):
    """The absence of an attribute (``none``)."""

    __slots__ = ()
    name = "none"
    _PARAM_NAMES_ = ()


class ArrayAttr(Data[tuple[_AttrT, ...]], BuiltinAttribute, Generic[_AttrT]):
    """``[a, b, ...]``: a tuple of attributes."""

    __slots__ = ()
    name = "array"

    def __init__(self, param: Iterable[_AttrT]) -> None:
        _set(self, "data", tuple(param))

    def print_builtin(self, printer: Printer) -> None:
        printer.print_string("[")
        printer.print_list(self.data, printer.print_attribute)
        printer.print_string("]")

    def __len__(self) -> int:
        return len(self.data)

    def __iter__(self) -> Iterator[_AttrT]:
        return iter(self.data)


class StringAttr(_PlainData[str], BuiltinAttribute):
    """A string literal."""

    __slots__ = ()
    name = "string"

    def print_builtin(self, printer: Printer) -> None:
        printer.print_string_literal(self.data)


class BytesAttr(_PlainData[bytes], BuiltinAttribute):
    """A bytes literal."""

    __slots__ = ()
    name = "bytes"

    def print_builtin(self, printer: Printer) -> None:
        printer.print_bytes_literal(self.data)


class IntAttr(_PlainData[int]):
    """A Python int (printed ``#builtin.int<N>``; shapes and widths are made of these)."""

    __slots__ = ()
    name = "builtin.int"

    def print_parameter(self, printer: Printer) -> None:
        printer.print_string(f"<{self.data}>")

    def __bool__(self) -> bool:
        return bool(self.data)


class FloatData(_PlainData[float]):
    """A Python float, compared by its bits (``-0.0 != 0.0``, a NaN equals itself)."""

    __slots__ = ()
    name = "builtin.float_data"

    def print_parameter(self, printer: Printer) -> None:
        printer.print_string(f"<{self.data}>")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, FloatData) and _f64_bits(self.data) == _f64_bits(other.data)

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return hash(_f64_bits(self.data))


class DictionaryAttr(Data[Mapping[str, Attribute]], BuiltinAttribute):
    """``{name = attr, ...}``: a read-only mapping."""

    __slots__ = ()
    name = "dictionary"

    def __init__(self, value: Mapping[str, Attribute]) -> None:
        _set(self, "data", value if isinstance(value, MappingProxyType)
             else MappingProxyType(dict(value)))

    def print_builtin(self, printer: Printer) -> None:
        printer.print_attr_dict(self.data)

    def __hash__(self) -> int:
        try:
            return self._hash
        except AttributeError:
            h = hash((DictionaryAttr, frozenset(self.data.items())))
            _set(self, "_hash", h)
            return h


class Signedness(Enum):
    """Signedness semantics of an integer type."""

    SIGNLESS = 0
    SIGNED = 1
    UNSIGNED = 2

    def value_range(self, bitwidth: int) -> tuple[int, int]:
        """``(min, max + 1)`` of the values of ``bitwidth`` bits; signless integers are bit
        patterns, so their range is the union of the signed and unsigned ones."""
        if self is Signedness.UNSIGNED:
            return 0, 1 << bitwidth
        low = -((1 << bitwidth) >> 1)
        if self is Signedness.SIGNED:
            return low, 1 << max(bitwidth - 1, 0)
        return low, 1 << bitwidth


class SignednessAttr(_PlainData[Signedness]):
    """A `Signedness` (printed ``#builtin.signedness<signless>``)."""

    __slots__ = ()
    name = "builtin.signedness"

    def print_parameter(self, printer: Printer) -> None:
        printer.print_string(f"<{self.data.name.lower()}>")


_SIGNEDNESS_ATTRS = {s: SignednessAttr(s) for s in Signedness}


# --- integer and index types ----------------------------------------------------------
_SIGNED_FORMATS = ("<b", "<h", "<i", "<i", "<q", "<q", "<q", "<q")
_UNSIGNED_FORMATS = ("<B", "<H", "<I", "<I", "<Q", "<Q", "<Q", "<Q")


def _buffer_error(size: int, name: str, element_size: int, num: int | None = None
                  ) -> ValueError:
    """A buffer of ``size`` bytes that is not ``num`` elements (None: a whole number of
    them) of ``element_size`` bytes."""
    if num is None:
        return ValueError(f"Buffer length {size} not multiple of {name} element size "
                          f"{element_size}.")
    return ValueError(f"Buffer length {size} not product of {name} element size "
                      f"{element_size} and num {num}.")


class _StructPacked(Attribute):
    """Values packed with ``struct`` and the class's ``format``."""

    __slots__ = ()

    @property
    def format(self) -> str:
        raise NotImplementedError

    @property
    def compile_time_size(self) -> int:
        return struct.calcsize(self.format)

    def pack(self, values: Sequence[Any]) -> bytes:
        fmt = self.format
        return struct.pack(f"{fmt[0]}{len(values)}{fmt[1:]}", *values)

    def unpack(self, buffer: bytes, num: int, /) -> tuple[Any, ...]:
        fmt = self.format
        try:
            return struct.unpack(f"{fmt[0]}{num}{fmt[1:]}", buffer)
        except struct.error:
            size = len(memoryview(buffer))
            if size != num * self.compile_time_size:
                raise _buffer_error(size, self.name, self.compile_time_size, num) from None
            raise

    def iter_unpack(self, buffer: bytes, /) -> Iterator[Any]:
        try:
            return (v[0] for v in struct.iter_unpack(self.format, buffer))
        except struct.error:
            size = len(memoryview(buffer))
            if size % self.compile_time_size:
                raise _buffer_error(size, self.name, self.compile_time_size) from None
            raise

    def pack_into(self, buffer: Any, offset: int, value: Any) -> None:
        struct.pack_into(self.format, buffer, offset, value)


class IntegerType(_Params, _StructPacked, TypeAttribute, BuiltinAttribute):
    """``iN`` / ``siN`` / ``uiN``: ``width`` (IntAttr) bits of ``signedness``."""

    __slots__ = ("signedness", "width")
    name = "integer_type"
    _PARAM_NAMES_ = ("width", "signedness")

    width: IntAttr
    signedness: SignednessAttr

    def __init__(self, data: int | IntAttr,
                 signedness: Signedness | SignednessAttr = Signedness.SIGNLESS) -> None:
        width = IntAttr(data) if isinstance(data, int) else data
        sign = _SIGNEDNESS_ATTRS[signedness] if isinstance(signedness, Signedness) \
            else signedness
        _set(self, "width", width)
        _set(self, "signedness", sign)
        _set(self, "_params", (width, sign))
        if width.data < 0:
            self.verify()   # raises

    def print_builtin(self, printer: Printer) -> None:
        printer.print_string(_INT_PREFIX[self.signedness.data] + str(self.width.data))

    def __repr__(self) -> str:
        sign = self.signedness.data
        if sign is Signedness.SIGNLESS:
            return f"IntegerType({self.width.data})"
        return f"IntegerType({self.width.data}, {sign})"

    def verify(self) -> None:
        if self.width.data < 0:
            raise VerifyException(
                f"integer type bitwidth should be nonnegative (got {self.width.data})")

    def value_range(self) -> tuple[int, int]:
        return self.signedness.data.value_range(self.width.data)

    def _out_of_range(self, value: int) -> str:
        low, high = self.value_range()
        return (f"Integer value {value} is out of range for type {self} which supports "
                f"values in the range [{low}, {high})")

    def verify_value(self, value: int) -> None:
        low, high = self.value_range()
        if not low <= value < high:
            raise VerifyException(self._out_of_range(value))

    def normalized_value(self, value: int, *, truncate_bits: bool = False) -> int | None:
        """``value`` as stored: signless values in the upper half of the unsigned range
        become negative. Out of range: None, or the low bits with ``truncate_bits``."""
        width = self.width.data
        low, high = self.value_range()
        if not low <= value < high:
            if not truncate_bits:
                return None
            value = value % (1 << width)
        if self.signedness.data is not Signedness.UNSIGNED and \
                value >= 1 << max(width - 1, 0):
            return value - (1 << width)
        return value

    def get_normalized_value(self, value: int) -> int:
        """`normalized_value`, raising ValueError when ``value`` is out of range."""
        v = self.normalized_value(value)
        if v is None:
            raise ValueError(self._out_of_range(value))
        return v

    @property
    def bitwidth(self) -> int:
        return self.width.data

    @property
    def size(self) -> int:
        return (self.width.data + 7) >> 3

    @property
    def format(self) -> str:
        index = ((self.width.data + 7) >> 3) - 1
        if index >= 8:
            raise NotImplementedError(f"Format not implemented for {self}")
        unsigned = self.signedness.data is Signedness.UNSIGNED
        return (_UNSIGNED_FORMATS if unsigned else _SIGNED_FORMATS)[index]


_INT_PREFIX = {Signedness.SIGNLESS: "i", Signedness.SIGNED: "si", Signedness.UNSIGNED: "ui"}

i128 = IntegerType(128)
i64 = IntegerType(64)
i32 = IntegerType(32)
i16 = IntegerType(16)
i8 = IntegerType(8)
i1 = IntegerType(1)


class IndexType(_NoParams, _StructPacked, TypeAttribute, BuiltinAttribute):
    """``index`` (packed as 64 bits)."""

    __slots__ = ()
    name = "index"
    _PARAM_NAMES_ = ()

    @property
    def format(self) -> str:
        return "<q"


class UnitAttr(_NoParams, BuiltinAttribute):
    """``unit``: a present flag."""

    __slots__ = ()
    name = "unit"
    _PARAM_NAMES_ = ()


class NoneType(_NoParams, TypeAttribute, BuiltinAttribute):
    """The ``none`` type."""

    __slots__ = ()
    name = "none_type"
    _PARAM_NAMES_ = ()

    def print_builtin(self, printer: Printer) -> None:
        printer.print_string("none")


class IntegerAttr(_Params, TypedAttribute, BuiltinAttribute):
    """``42 : i32`` (``true`` / ``false`` for i1): ``value`` (IntAttr) of ``type``.
    Signless values are stored normalised (``IntegerAttr(255, i8).value.data == -1``);
    a value outside the type's range raises VerifyException."""

    __slots__ = ("type", "value")
    name = "integer"
    _PARAM_NAMES_ = ("value", "type")

    value: IntAttr
    type: IntegerType | IndexType

    def __init__(self, value: int | IntAttr, value_type: int | IntegerType | IndexType, *,
                 truncate_bits: bool = False) -> None:
        if isinstance(value_type, int):
            value_type = IntegerType(value_type)
        if not isinstance(value, int):
            value = value.data
        if isinstance(value_type, IntegerType):
            normalized = value_type.normalized_value(value, truncate_bits=truncate_bits)
            if normalized is None:
                value_type.verify_value(value)   # raises: out of range
            else:
                value = normalized
        elif not isinstance(value_type, IndexType):
            raise VerifyException(f"parameter 'type' does not verify:\n{value_type} should "
                                  "be of base attribute integer_type or index")
        v = IntAttr(value)
        _set(self, "value", v)
        _set(self, "type", value_type)
        _set(self, "_params", (v, value_type))

    @staticmethod
    def from_index_int_value(value: int) -> IntegerAttr:
        return IntegerAttr(value, IndexType())

    @staticmethod
    def from_bool(value: bool) -> IntegerAttr:
        return IntegerAttr(value, 1)

    def verify(self) -> None:
        if isinstance(self.type, IntegerType):
            self.type.verify_value(self.value.data)

    def print_builtin(self, printer: Printer) -> None:
        printer.print_int(self.value.data, self.type)
        if self.type != i1:
            printer.print_string(" : ")
            printer.print_attribute(self.type)

    def print_without_type(self, printer: Printer) -> None:
        printer.print_int(self.value.data, self.type)

    def get_type(self) -> Attribute:
        return self.type

    def __bool__(self) -> bool:
        return bool(self.value.data)


BoolAttr: TypeAlias = IntegerAttr


# --- float types ----------------------------------------------------------------------
def _f64_bits(value: float) -> int:
    return struct.unpack("<Q", struct.pack("<d", value))[0]


class _FloatType(_NoParams, TypeAttribute, BuiltinAttribute):
    """A float type; prints its name."""

    __slots__ = ()
    _PARAM_NAMES_ = ()
    _BITS: ClassVar[int] = 0

    @property
    def bitwidth(self) -> int:
        return self._BITS

    @property
    def size(self) -> int:
        return (self.bitwidth + 7) >> 3


class _StructFloat(_FloatType, _StructPacked):
    __slots__ = ()
    _FORMAT: ClassVar[str] = ""

    @property
    def format(self) -> str:
        if not self._FORMAT:
            raise NotImplementedError()
        return self._FORMAT


class Float16Type(_StructFloat):
    __slots__ = ()
    name = "f16"
    _BITS = 16
    _FORMAT = "<e"


class Float32Type(_StructFloat):
    __slots__ = ()
    name = "f32"
    _BITS = 32
    _FORMAT = "<f"


class Float64Type(_StructFloat):
    __slots__ = ()
    name = "f64"
    _BITS = 64
    _FORMAT = "<d"


class Float80Type(_StructFloat):
    __slots__ = ()
    name = "f80"
    _BITS = 80


class Float128Type(_StructFloat):
    __slots__ = ()
    name = "f128"
    _BITS = 128


def _round_half_even(significand: int, shift: int) -> int:
    """``significand >> shift`` rounded to nearest, ties to even (exact)."""
    if shift <= 0:
        return significand << -shift
    quotient = significand >> shift
    dropped = significand & ((1 << shift) - 1)
    half = 1 << (shift - 1)
    if dropped > half or (dropped == half and quotient & 1):
        quotient += 1
    return quotient


class _CodedFloat(_FloatType):
    """A float format encoded bit by bit: ``pack`` rounds to nearest even."""

    __slots__ = ()

    @property
    def compile_time_size(self) -> int:
        return self.size

    def encode_bits(self, value: float) -> int:
        raise NotImplementedError

    def decode_bits(self, bits: int) -> float:
        raise NotImplementedError

    def pack(self, values: Sequence[float]) -> bytes:
        size = self.size
        return b"".join(self.encode_bits(v).to_bytes(size, "little") for v in values)

    def pack_into(self, buffer: Any, offset: int, value: float) -> None:
        size = self.size
        memoryview(buffer)[offset:offset + size] = self.encode_bits(value).to_bytes(
            size, "little")

    def unpack(self, buffer: bytes, num: int, /) -> tuple[float, ...]:
        size = self.size
        mv = memoryview(buffer)
        if len(mv) != num * size:
            raise _buffer_error(len(mv), self.name, size, num)
        return tuple(self.iter_unpack(buffer))

    def iter_unpack(self, buffer: bytes, /) -> Iterator[float]:
        size = self.size
        mv = memoryview(buffer)
        if len(mv) % size:
            raise _buffer_error(len(mv), self.name, size)
        decode = self.decode_bits
        return (decode(int.from_bytes(mv[i:i + size], "little"))
                for i in range(0, len(mv), size))


class BFloat16Type(_CodedFloat):
    """``bf16``: the top half of an f32."""

    __slots__ = ()
    name = "bf16"
    _BITS = 16

    def encode_bits(self, value: float) -> int:
        bits = _f64_bits(value)
        sign = (bits >> 48) & 0x8000
        exponent = ((bits >> 52) & 0x7FF) - 1023
        fraction = bits & ((1 << 52) - 1)
        if exponent == 1024:               # inf, or NaN kept quiet with its top payload
            out = 0x7F80 | ((fraction >> 45) | 0x40 if fraction else 0)
        elif exponent < -134:              # below half the smallest subnormal
            out = 0
        elif exponent < -126:              # subnormal: a multiple of 2**-133
            out = _round_half_even((1 << 52) | fraction, -133 - (exponent - 52))
        else:                              # a carry out of the fraction bumps the exponent
            out = min(((exponent + 127) << 7) + _round_half_even(fraction, 45), 0x7F80)
        return sign | out

    def decode_bits(self, bits: int) -> float:
        return struct.unpack("<f", struct.pack("<I", bits << 16))[0]


# How a reduced-precision format spends its top exponent: IEEE (inf and NaN), NAN_ONLY
# (no infinities), FINITE_ONLY (neither; overflow saturates).
_IEEE, _NAN_ONLY, _FINITE_ONLY = 0, 1, 2
# Which pattern is NaN: IEEE (top exponent, non-zero mantissa), ALL_ONES, NEGATIVE_ZERO.
_NAN_IEEE, _NAN_ONES, _NAN_NEGZERO = 0, 1, 2


class _ReducedFloat(_CodedFloat):
    """An 8-bit-or-narrower (or tf32) float format described by ``_SEM``:
    (exponent bits, mantissa bits, bias, nonfinite kind, NaN encoding, has zero,
    has sign)."""

    __slots__ = ()
    _SEM: ClassVar[tuple[int, int, int, int, int, bool, bool]] = (0, 0, 0, 0, 0, True, True)

    def _nan(self, sign: int) -> int:
        e, m, _, nonfinite, nan, _, _ = self._SEM
        if nonfinite == _FINITE_ONLY:
            return self._overflow(sign)
        if nan == _NAN_IEEE:
            return (((1 << e) - 1) << m) | (1 << (m - 1))
        if nan == _NAN_ONES:
            return (sign << (e + m)) | (((1 << e) - 1) << m) | ((1 << m) - 1)
        return 1 << (e + m)

    def _overflow(self, sign: int) -> int:
        e, m, _, nonfinite, _, _, _ = self._SEM
        if nonfinite == _IEEE:
            return (sign << (e + m)) | (((1 << e) - 1) << m)
        if nonfinite == _NAN_ONLY:
            return self._nan(sign)
        return (sign << (e + m)) | (((1 << e) - 1) << m) | ((1 << m) - 1)

    def encode_bits(self, value: float) -> int:
        e, m, bias, nonfinite, nan, has_zero, has_sign = self._SEM
        sign = 1 if has_sign and math.copysign(1.0, value) < 0 else 0
        if math.isinf(value):
            return self._overflow(sign)
        if math.isnan(value):
            return self._nan(sign)
        zero = 0 if nan == _NAN_NEGZERO else sign << (e + m)
        if value == 0.0:
            return zero
        if not has_sign and value < 0:
            raise ValueError(f"{self.name} does not support signed values")
        magnitude = abs(value)
        raw = _f64_bits(magnitude)
        biased64 = (raw >> 52) & 0x7FF
        fraction = raw & ((1 << 52) - 1)
        significand, power = (fraction | (1 << 52), biased64 - 1075) if biased64 \
            else (fraction, -1074)
        exponent = math.frexp(magnitude)[1] - 1
        implicit = 1 << m
        max_exp = (1 << e) - 1
        if exponent < (1 - bias if has_zero else -bias):
            if not has_zero:
                return sign << (e + m)          # no subnormals: the smallest value
            quotient = _round_half_even(significand, (1 - bias - m) - power)
            biased, mantissa = (0, quotient) if quotient < implicit else (1, 0)
        else:
            quotient = _round_half_even(significand, (exponent - m) - power)
            if quotient == implicit << 1:
                exponent += 1
                quotient = implicit
            biased, mantissa = exponent + bias, quotient - implicit
            if nonfinite == _IEEE:
                over = biased >= max_exp
            elif nan == _NAN_ONES:
                over = biased > max_exp or (biased == max_exp and mantissa == implicit - 1)
            else:
                over = biased > max_exp
            if over:
                return self._overflow(sign)
        if has_zero and not biased and not mantissa:
            return zero
        return (sign << (e + m)) | (biased << m) | mantissa

    def decode_bits(self, bits: int) -> float:
        e, m, bias, nonfinite, nan, has_zero, has_sign = self._SEM
        negative = has_sign and (bits >> (e + m)) & 1
        max_exp = (1 << e) - 1
        biased = (bits >> m) & max_exp
        mantissa = bits & ((1 << m) - 1)
        if nonfinite == _IEEE:
            if biased == max_exp:
                return math.nan if mantissa else (-math.inf if negative else math.inf)
        elif nonfinite == _NAN_ONLY:
            if nan == _NAN_ONES:
                if biased == max_exp and mantissa == (1 << m) - 1:
                    return math.nan
            elif negative and not biased and not mantissa:
                return math.nan
        sign = -1.0 if negative else 1.0
        if has_zero and biased == 0:
            return sign * mantissa * 2.0 ** (1 - bias - m)
        return sign * (1 + mantissa / 2.0 ** m) * 2.0 ** (biased - bias)

    @property
    def bitwidth(self) -> int:
        e, m, _, _, _, _, has_sign = self._SEM
        return int(has_sign) + e + m


class FloatTF32Type(_ReducedFloat):
    __slots__ = ()
    name = "tf32"
    _SEM = (8, 10, 127, _IEEE, _NAN_IEEE, True, True)


class Float8E5M2Type(_ReducedFloat):
    __slots__ = ()
    name = "f8E5M2"
    _SEM = (5, 2, 15, _IEEE, _NAN_IEEE, True, True)


class Float8E4M3Type(_ReducedFloat):
    __slots__ = ()
    name = "f8E4M3"
    _SEM = (4, 3, 7, _IEEE, _NAN_IEEE, True, True)


class Float8E4M3FNType(_ReducedFloat):
    __slots__ = ()
    name = "f8E4M3FN"
    _SEM = (4, 3, 7, _NAN_ONLY, _NAN_ONES, True, True)


class Float8E5M2FNUZType(_ReducedFloat):
    __slots__ = ()
    name = "f8E5M2FNUZ"
    _SEM = (5, 2, 16, _NAN_ONLY, _NAN_NEGZERO, True, True)


class Float8E4M3FNUZType(_ReducedFloat):
    __slots__ = ()
    name = "f8E4M3FNUZ"
    _SEM = (4, 3, 8, _NAN_ONLY, _NAN_NEGZERO, True, True)


class Float8E4M3B11FNUZType(_ReducedFloat):
    __slots__ = ()
    name = "f8E4M3B11FNUZ"
    _SEM = (4, 3, 11, _NAN_ONLY, _NAN_NEGZERO, True, True)


class Float8E3M4Type(_ReducedFloat):
    __slots__ = ()
    name = "f8E3M4"
    _SEM = (3, 4, 3, _IEEE, _NAN_IEEE, True, True)


class Float8E8M0FNUType(_ReducedFloat):
    __slots__ = ()
    name = "f8E8M0FNU"
    _SEM = (8, 0, 127, _NAN_ONLY, _NAN_ONES, False, False)


class Float6E2M3FNType(_ReducedFloat):
    __slots__ = ()
    name = "f6E2M3FN"
    _SEM = (2, 3, 1, _FINITE_ONLY, _NAN_IEEE, True, True)


class Float6E3M2FNType(_ReducedFloat):
    __slots__ = ()
    name = "f6E3M2FN"
    _SEM = (3, 2, 3, _FINITE_ONLY, _NAN_IEEE, True, True)


class Float4E2M1FNType(_ReducedFloat):
    __slots__ = ()
    name = "f4E2M1FN"
    _SEM = (2, 1, 1, _FINITE_ONLY, _NAN_IEEE, True, True)


AnyFloat: TypeAlias = (
    BFloat16Type | Float16Type | Float32Type | Float64Type | Float80Type | Float128Type
    | FloatTF32Type | Float8E5M2Type | Float8E4M3Type | Float8E4M3FNType
    | Float8E5M2FNUZType | Float8E4M3FNUZType | Float8E4M3B11FNUZType | Float8E3M4Type
    | Float8E8M0FNUType | Float6E2M3FNType | Float6E3M2FNType | Float4E2M1FNType
)

bf16 = BFloat16Type()
f16 = Float16Type()
f32 = Float32Type()
f64 = Float64Type()
f80 = Float80Type()
f128 = Float128Type()
tf32 = FloatTF32Type()
f8E5M2 = Float8E5M2Type()
f8E4M3 = Float8E4M3Type()
f8E4M3FN = Float8E4M3FNType()
f8E5M2FNUZ = Float8E5M2FNUZType()
f8E4M3FNUZ = Float8E4M3FNUZType()
f8E4M3B11FNUZ = Float8E4M3B11FNUZType()
f8E3M4 = Float8E3M4Type()
f8E8M0FNU = Float8E8M0FNUType()
f6E2M3FN = Float6E2M3FNType()
f6E3M2FN = Float6E3M2FNType()
f4E2M1FN = Float4E2M1FNType()

_FLOAT_BY_WIDTH: dict[int, Attribute] = {16: f16, 32: f32, 64: f64, 80: f80, 128: f128}


class FloatAttr(_Params, TypedAttribute, BuiltinAttribute):
    """``1.000000e+00 : f32``: ``value`` (FloatData, rounded to the type) of ``type``."""

    __slots__ = ("type", "value")
    name = "float"
    _PARAM_NAMES_ = ("value", "type")

    value: FloatData
    type: Any

    def __init__(self, data: float | FloatData, type: int | Attribute) -> None:
        if isinstance(type, int):
            found = _FLOAT_BY_WIDTH.get(type)
            if found is None:
                raise ValueError(f"Invalid bitwidth: {type}")
            type = found
        value = data.data if isinstance(data, FloatData) else data
        if isinstance(type, (Float16Type, Float32Type, Float64Type, _CodedFloat)):
            value = type.unpack(type.pack((value,)), 1)[0]  # round to the type
        elif not isinstance(type, _FloatType):
            raise VerifyException(f"parameter 'type' does not verify:\nUnexpected attribute "
                                  f"{type}")
        v = FloatData(value)
        _set(self, "value", v)
        _set(self, "type", type)
        _set(self, "_params", (v, type))

    def print_without_type(self, printer: Printer) -> None:
        printer.print_float(self.value.data, self.type)

    def print_builtin(self, printer: Printer) -> None:
        printer.print_float(self.value.data, self.type)
        printer.print_string(" : ")
        printer.print_attribute(self.type)

    def get_type(self) -> Attribute:
        return self.type


# --- symbol references and locations ----------------------------------------------------
class SymbolRefAttr(_Params, BuiltinAttribute):
    """``@root::@nested...``."""

    __slots__ = ("nested_references", "root_reference")
    name = "symbol_ref"
    _PARAM_NAMES_ = ("root_reference", "nested_references")

    root_reference: StringAttr
    nested_references: ArrayAttr[StringAttr]

    def __init__(self, root: str | StringAttr,
                 nested: Sequence[str] | Sequence[StringAttr] | ArrayAttr[StringAttr] = ()
                 ) -> None:
        if isinstance(root, str):
            root = StringAttr(root)
        if not isinstance(nested, ArrayAttr):
            nested = ArrayAttr([StringAttr(x) if isinstance(x, str) else x for x in nested])
        self._init(root, nested)

    @staticmethod
    def get(value: str | SymbolRefAttr) -> SymbolRefAttr:
        return SymbolRefAttr(value) if isinstance(value, str) else value

    def string_value(self) -> str:
        return ".".join([self.root_reference.data] +
                        [ref.data for ref in self.nested_references.data])

    def print_builtin(self, printer: Printer) -> None:
        printer.print_symbol_name(self.root_reference.data)
        for ref in self.nested_references.data:
            printer.print_string("::")
            printer.print_symbol_name(ref.data)


class UnknownLoc(_NoParams, BuiltinAttribute):
    """``loc(unknown)``."""

    __slots__ = ()
    name = "unknown_loc"
    _PARAM_NAMES_ = ()

    def print_builtin(self, printer: Printer) -> None:
        with printer.in_location():
            printer.print_string("unknown")


class FileLineColLoc(_Params, BuiltinAttribute):
    """``loc("file":line:col)``."""

    __slots__ = ("column", "filename", "line")
    name = "file_line_loc"
    _PARAM_NAMES_ = ("filename", "line", "column")

    filename: StringAttr
    line: IntAttr
    column: IntAttr

    def __init__(self, filename: StringAttr, line: IntAttr, column: IntAttr) -> None:
        _set(self, "filename", filename)
        _set(self, "line", line)
        _set(self, "column", column)
        _set(self, "_params", (filename, line, column))

    def print_builtin(self, printer: Printer) -> None:
        with printer.in_location():
            printer.print_string_literal(self.filename.data)
            printer.print_string(f":{self.line.data:d}:{self.column.data:d}")


class CallSiteLoc(_Params, BuiltinAttribute):
    """``loc(callsite(callee at caller))``."""

    __slots__ = ("callee", "caller")
    name = "builtin.callsite_loc"
    _PARAM_NAMES_ = ("callee", "caller")

    callee: Attribute
    caller: Attribute

    def __init__(self, callee: Attribute, caller: Attribute) -> None:
        self._init(callee, caller)

    def print_builtin(self, printer: Printer) -> None:
        with printer.in_location():
            printer.print_string("callsite(")
            printer.print_attribute(self.callee)
            printer.print_string(" at ")
            printer.print_attribute(self.caller)
            printer.print_string(")")


class FusedLoc(_Params, BuiltinAttribute):
    """``loc(fused<metadata>[locations])``."""

    __slots__ = ("locations", "metadata")
    name = "builtin.fused_loc"
    _PARAM_NAMES_ = ("locations", "metadata")

    locations: ArrayAttr[Attribute]
    metadata: Attribute

    def __init__(self, locations: ArrayAttr[Attribute] | Sequence[Attribute],
                 metadata: Attribute) -> None:
        if not isinstance(locations, ArrayAttr):
            locations = ArrayAttr(locations)
        self._init(locations, metadata)

    def print_builtin(self, printer: Printer) -> None:
        with printer.in_location():
            printer.print_string("fused")
            if not isinstance(self.metadata, NoneAttr):
                printer.print_string("<")
                printer.print_attribute(self.metadata)
                printer.print_string(">")
            printer.print_attribute(self.locations)


class NameLoc(_Params, BuiltinAttribute):
    """``loc("name"(child))``."""

    __slots__ = ("desc", "location")
    name = "builtin.name_loc"
    _PARAM_NAMES_ = ("desc", "location")

    desc: StringAttr
    location: Attribute

    def __init__(self, desc: StringAttr, location: Attribute) -> None:
        self._init(desc, location)

    def print_builtin(self, printer: Printer) -> None:
        with printer.in_location():
            printer.print_attribute(self.desc)
            if not isinstance(self.location, NoneAttr):
                printer.print_string("(")
                printer.print_attribute(self.location)
                printer.print_string(")")


LocationAttr: TypeAlias = UnknownLoc | FileLineColLoc | CallSiteLoc | NameLoc | FusedLoc
UNKNOWN_LOC: LocationAttr = UnknownLoc()


# --- shaped and composite types -------------------------------------------------------
def _shape_attr(shape: Iterable[int | IntAttr]) -> ArrayAttr[IntAttr]:
    if isinstance(shape, ArrayAttr):
        return shape
    return ArrayAttr([IntAttr(d) if isinstance(d, int) else d for d in shape])


_NONE = NoneAttr()


class _ShapeParam(ShapedType):
    """A shaped type whose ``shape`` parameter is an ArrayAttr of IntAttrs."""

    __slots__ = ()

    shape: ArrayAttr[IntAttr]

    def get_num_dims(self) -> int:
        return len(self.shape.data)

    def get_shape(self) -> tuple[int, ...]:
        return tuple(d.data for d in self.shape.data)

    def _print_dims(self, printer: Printer) -> None:
        """``4x?x`` (nothing for rank 0)."""
        if self.shape.data:
            printer.print_dimension_list(self.get_shape())
            printer.print_string("x")


def _print_optional_param(printer: Printer, param: Attribute) -> None:
    """``, param`` unless ``param`` is NoneAttr (left out)."""
    if not isinstance(param, NoneAttr):
        printer.print_string(", ")
        printer.print_attribute(param)


class TupleType(_Params, TypeAttribute, BuiltinAttribute):
    """``tuple<T, ...>``."""

    __slots__ = ("types",)
    name = "tuple"
    _PARAM_NAMES_ = ("types",)

    types: ArrayAttr[Attribute]

    def __init__(self, types: ArrayAttr[Attribute] | Iterable[Attribute]) -> None:
        self._init(types if isinstance(types, ArrayAttr) else ArrayAttr(types))

    def print_builtin(self, printer: Printer) -> None:
        printer.print_string("tuple<")
        printer.print_list(self.types, printer.print_attribute)
        printer.print_string(">")


class VectorType(_Params, TypeAttribute, _ShapeParam, ContainerType, BuiltinAttribute):
    """``vector<4x[8]xT>`` (``[n]``: a scalable dimension)."""

    __slots__ = ("element_type", "scalable_dims", "shape")
    name = "vector"
    _PARAM_NAMES_ = ("element_type", "shape", "scalable_dims")

    element_type: Attribute
    shape: ArrayAttr[IntAttr]
    scalable_dims: ArrayAttr[IntegerAttr]

    def __init__(self, element_type: Attribute, shape: Iterable[int | IntAttr],
                 scalable_dims: ArrayAttr[IntegerAttr] | None = None) -> None:
        shape_attr = _shape_attr(shape)
        if scalable_dims is None:
            false = IntegerAttr(False, i1)
            scalable_dims = ArrayAttr([false] * len(shape_attr.data))
        self._init(element_type, shape_attr, scalable_dims)
        self.verify()

    def verify(self) -> None:
        if len(self.shape.data) != len(self.scalable_dims.data):
            raise VerifyException(
                f"Number of scalable dimension specifiers {len(self.scalable_dims.data)} "
                f"must equal to number of dimensions {len(self.shape.data)}.")

    def print_builtin(self, printer: Printer) -> None:
        dims = [f"[{d.data}]" if s else f"{d.data}"
                for d, s in zip(self.shape.data, self.scalable_dims.data)]
        printer.print_string("vector<" + "".join(d + "x" for d in dims))
        printer.print_attribute(self.element_type)
        printer.print_string(">")

    def get_num_scalable_dims(self) -> int:
        return sum(bool(d) for d in self.scalable_dims.data)

    def get_scalable_dims(self) -> tuple[bool, ...]:
        return tuple(bool(d) for d in self.scalable_dims.data)


class TensorType(_Params, TypeAttribute, _ShapeParam, ContainerType, BuiltinAttribute):
    """``tensor<4x?xT[, encoding]>``."""

    __slots__ = ("element_type", "encoding", "shape")
    name = "tensor"
    _PARAM_NAMES_ = ("shape", "element_type", "encoding")

    shape: ArrayAttr[IntAttr]
    element_type: Attribute
    encoding: Attribute

    def __init__(self, element_type: Attribute, shape: Iterable[int | IntAttr],
                 encoding: Attribute = _NONE) -> None:
        self._init(_shape_attr(shape), element_type, encoding)

    def print_builtin(self, printer: Printer) -> None:
        printer.print_string("tensor<")
        self._print_dims(printer)
        printer.print_attribute(self.element_type)
        _print_optional_param(printer, self.encoding)
        printer.print_string(">")


class UnrankedTensorType(_Params, TypeAttribute, ContainerType, BuiltinAttribute):
    """``tensor<*xT>``."""

    __slots__ = ("element_type",)
    name = "unranked_tensor"
    _PARAM_NAMES_ = ("element_type",)

    element_type: Attribute

    def __init__(self, element_type: Attribute) -> None:
        self._init(element_type)

    def print_builtin(self, printer: Printer) -> None:
        printer.print_string("tensor<*x")
        printer.print_attribute(self.element_type)
        printer.print_string(">")


class MemRefLayoutAttr(Attribute):
    """An attribute usable as a memref layout."""

    __slots__ = ()

    def get_strides(self) -> Sequence[int | None] | None:
        return None

    def get_offset(self) -> int | None:
        return None


class StridedLayoutAttr(_Params, MemRefLayoutAttr, BuiltinAttribute):
    """``strided<[s, ?, ...], offset: o>`` (NoneAttr for a dynamic stride or offset)."""

    __slots__ = ("offset", "strides")
    name = "strided"
    _PARAM_NAMES_ = ("strides", "offset")

    strides: ArrayAttr[Attribute]
    offset: Attribute

    def __init__(self, strides: ArrayAttr[Attribute] | Sequence[int | IntAttr | NoneAttr | None],
                 offset: int | IntAttr | NoneAttr | None = 0) -> None:
        if not isinstance(strides, ArrayAttr):
            strides = ArrayAttr([IntAttr(s) if isinstance(s, int) else
                                 (_NONE if s is None else s) for s in strides])
        if isinstance(offset, int):
            offset = IntAttr(offset)
        elif offset is None:
            offset = _NONE
        self._init(strides, offset)

    def print_builtin(self, printer: Printer) -> None:
        strides = ", ".join(f"{s.data}" if isinstance(s, IntAttr) else "?"
                            for s in self.strides.data)
        printer.print_string(f"strided<[{strides}]")
        if self.offset != IntAttr(0):
            off = self.offset
            printer.print_string(f", offset: {off.data if isinstance(off, IntAttr) else '?'}")
        printer.print_string(">")

    def get_strides(self) -> Sequence[int | None]:
        return tuple(s.data if isinstance(s, IntAttr) else None for s in self.strides.data)

    def get_offset(self) -> int | None:
        return self.offset.data if isinstance(self.offset, IntAttr) else None


class MemRefType(_Params, TypeAttribute, _ShapeParam, ContainerType, BuiltinAttribute):
    """``memref<4x?xT[, layout][, memory_space]>``."""

    __slots__ = ("element_type", "layout", "memory_space", "shape")
    name = "memref"
    _PARAM_NAMES_ = ("shape", "element_type", "layout", "memory_space")

    shape: ArrayAttr[IntAttr]
    element_type: Attribute
    layout: Attribute
    memory_space: Attribute

    def __init__(self, element_type: Attribute, shape: ArrayAttr[IntAttr] |
                 Iterable[int | IntAttr], layout: Attribute = _NONE,
                 memory_space: Attribute = _NONE) -> None:
        self._init(_shape_attr(shape), element_type, layout, memory_space)

    def print_builtin(self, printer: Printer) -> None:
        printer.print_string("memref<")
        self._print_dims(printer)
        printer.print_attribute(self.element_type)
        _print_optional_param(printer, self.layout)
        _print_optional_param(printer, self.memory_space)
        printer.print_string(">")

    def get_strides(self) -> Sequence[int | None] | None:
        """Row-major strides for the default layout, else the layout's (None if it has
        none)."""
        if isinstance(self.layout, NoneAttr):
            return ShapedType.strides_for_shape(self.get_shape())
        if isinstance(self.layout, MemRefLayoutAttr):
            return self.layout.get_strides()
        return None

    def get_offset(self) -> int | None:
        if isinstance(self.layout, NoneAttr):
            return 0
        if isinstance(self.layout, MemRefLayoutAttr):
            return self.layout.get_offset()
        return None


class UnrankedMemRefType(_Params, TypeAttribute, ContainerType, BuiltinAttribute):
    """``memref<*xT[, memory_space]>``."""

    __slots__ = ("element_type", "memory_space")
    name = "unranked_memref"
    _PARAM_NAMES_ = ("element_type", "memory_space")

    element_type: Attribute
    memory_space: Attribute

    def __init__(self, element_type: Attribute, memory_space: Attribute = _NONE) -> None:
        self._init(element_type, memory_space)

    @staticmethod
    def from_type(referenced_type: Attribute,
                  memory_space: Attribute = _NONE) -> UnrankedMemRefType:
        return UnrankedMemRefType(referenced_type, memory_space)

    def print_builtin(self, printer: Printer) -> None:
        printer.print_string("memref<*x")
        printer.print_attribute(self.element_type)
        _print_optional_param(printer, self.memory_space)
        printer.print_string(">")


class FunctionType(_Params, TypeAttribute, BuiltinAttribute):
    """``(ins) -> outs``: ``inputs`` and ``outputs`` ArrayAttrs of types."""

    __slots__ = ("inputs", "outputs")
    name = "fun"
    _PARAM_NAMES_ = ("inputs", "outputs")

    inputs: ArrayAttr[Attribute]
    outputs: ArrayAttr[Attribute]

    def __init__(self, inputs: ArrayAttr[Attribute], outputs: ArrayAttr[Attribute]) -> None:
        self._init(inputs, outputs)

    @staticmethod
    def from_lists(inputs: Sequence[Attribute], outputs: Sequence[Attribute]) -> FunctionType:
        return FunctionType(ArrayAttr(inputs), ArrayAttr(outputs))

    @staticmethod
    def from_attrs(inputs: ArrayAttr[Attribute], outputs: ArrayAttr[Attribute]
                   ) -> FunctionType:
        return FunctionType(inputs, outputs)

    def print_builtin(self, printer: Printer) -> None:
        printer.print_function_type(self.inputs.data, self.outputs.data)


# --- dense constants ------------------------------------------------------------------
class DenseArrayBase(_Params, ContainerType, BuiltinAttribute):
    """``array<i32: 1, 0>``: packed integers or floats of ``elt_type``."""

    __slots__ = ("data", "elt_type")
    name = "array"
    _PARAM_NAMES_ = ("elt_type", "data")

    elt_type: Any
    data: BytesAttr

    def __init__(self, elt_type: Attribute, data: BytesAttr) -> None:
        self._init(elt_type, data)
        self.verify()

    def verify(self) -> None:
        size = self.elt_type.size
        if len(self.data.data) % size:
            raise VerifyException(f"Data length of {self.name} ({len(self.data.data)}) not "
                                  f"divisible by element size {size}")

    def get_element_type(self) -> Attribute:
        return self.elt_type

    @staticmethod
    def from_list(data_type: Attribute, data: Sequence[int] | Sequence[float]
                  ) -> DenseArrayBase:
        if isinstance(data_type, IntegerType):
            data = tuple(data_type.get_normalized_value(v) for v in data)  # type: ignore[arg-type]
        return DenseArrayBase(data_type, BytesAttr(data_type.pack(data)))  # type: ignore[attr-defined]

    def iter_values(self) -> Iterator[Any]:
        return self.elt_type.iter_unpack(self.data.data)

    def get_values(self) -> tuple[Any, ...]:
        return self.elt_type.unpack(self.data.data, len(self))

    def get_attrs(self) -> tuple[Attribute, ...]:
        elt = self.elt_type
        if isinstance(elt, IntegerType):
            return tuple(IntegerAttr(v, elt) for v in self.get_values())
        return tuple(FloatAttr(v, elt) for v in self.get_values())

    def __len__(self) -> int:
        return len(self.data.data) // self.elt_type.size

    def print_builtin(self, printer: Printer) -> None:
        elt = self.elt_type
        printer.print_string("array<")
        printer.print_attribute(elt)
        if len(self):
            printer.print_string(": ")
            if isinstance(elt, IntegerType):
                printer.print_list(self.iter_values(), lambda x: printer.print_int(x, elt))
            else:
                printer.print_list(self.iter_values(), lambda x: printer.print_float(x, elt))
        printer.print_string(">")


class DenseIntOrFPElementsAttr(_Params, TypedAttribute, ContainerType, BuiltinAttribute):
    """``dense<...> : vector<...>`` (or tensor / memref): packed element values."""

    __slots__ = ("data", "type")
    name = "dense"
    _PARAM_NAMES_ = ("type", "data")

    type: Any
    data: BytesAttr

    def __init__(self, type: Attribute, data: BytesAttr) -> None:
        self._init(type, data)
        self.verify()

    def get_shape(self) -> tuple[int, ...]:
        return self.type.get_shape()

    def get_element_type(self) -> Attribute:
        return self.type.element_type

    def get_type(self) -> Attribute:
        return self.type

    def __len__(self) -> int:
        return len(self.data.data) // self.type.element_type.compile_time_size

    @property
    def shape_is_complete(self) -> bool:
        n = 1
        for dim in self.get_shape():
            if dim < 1:
                return False
            n *= dim
        return n == len(self)

    def verify(self) -> None:
        if not self.type.get_shape() and len(self) != 1:
            raise VerifyException(f"A zero-rank {self.type.name} can only hold 1 value but "
                                  f"{len(self)} were given.")

    @staticmethod
    def from_list(type: Any, data: Sequence[int] | Sequence[float]
                  ) -> DenseIntOrFPElementsAttr:
        element = type.get_element_type()
        if isinstance(element, IntegerType):
            data = tuple(element.get_normalized_value(x) for x in data)  # type: ignore[arg-type]
        packed = element.pack(data)
        if len(data) == 1 and (count := math.prod(type.get_shape())) != 1:
            packed *= count                  # a splat
        return DenseIntOrFPElementsAttr(type, BytesAttr(packed))

    def iter_values(self) -> Iterator[Any]:
        return self.get_element_type().iter_unpack(self.data.data)  # type: ignore[attr-defined]

    def get_values(self) -> tuple[Any, ...]:
        return self.get_element_type().unpack(self.data.data, len(self))  # type: ignore[attr-defined]

    def get_attrs(self) -> tuple[Attribute, ...]:
        element: Any = self.get_element_type()
        if isinstance(element, _FloatType):
            return tuple(FloatAttr(v, element) for v in self.get_values())
        return tuple(IntegerAttr(v, element) for v in self.get_values())

    def is_splat(self) -> bool:
        values = self.get_values()
        return values.count(values[0]) == len(values)

    def _print_one(self, value: Any, printer: Printer) -> None:
        if isinstance(value, float):
            printer.print_float(value, self.get_element_type())
        else:
            printer.print_int(value, self.get_element_type())

    def _print_dense_list(self, values: Sequence[Any], shape: Sequence[int],
                          printer: Printer) -> None:
        printer.print_string("[")
        if len(shape) > 1:
            k = len(values) // shape[0]
            printer.print_list((values[i:i + k] for i in range(0, len(values), k)),
                               lambda sub: self._print_dense_list(sub, shape[1:], printer))
        else:
            printer.print_list(values, lambda v: self._print_one(v, printer))
        printer.print_string("]")

    def print_without_type(self, printer: Printer) -> None:
        printer.print_string("dense<")
        length = len(self)
        values = self.get_values()
        shape = self.get_shape() if self.shape_is_complete else (length,)
        if length == 0:
            pass
        elif self.is_splat():
            self._print_one(values[0], printer)
        elif length > 100:
            printer.print_string(f'"0x{self.data.data.hex().upper()}"')
        else:
            self._print_dense_list(values, shape, printer)
        printer.print_string(">")

    def print_builtin(self, printer: Printer) -> None:
        self.print_without_type(printer)
        printer.print_string(" : ")
        printer.print_attribute(self.type)


# --- operations -----------------------------------------------------------------------
@irdl_op_definition
class UnrealizedConversionCastOp(IRDLOperation):
    """``builtin.unrealized_conversion_cast %a : T to U``."""

    name = "builtin.unrealized_conversion_cast"

    inputs = var_operand_def()
    outputs = var_result_def()

    traits = traits_def(NoMemoryEffect())

    @staticmethod
    def get(inputs: Sequence[SSAValue | Operation], result_type: Sequence[Attribute]
            ) -> UnrealizedConversionCastOp:
        return UnrealizedConversionCastOp.build(operands=[inputs], result_types=[result_type])

    @classmethod
    def parse(cls, parser: Parser) -> UnrealizedConversionCastOp:
        if parser.parse_optional_characters("to") is None:
            args = parser.parse_comma_separated_list(parser.Delimiter.NONE,
                                                     parser.parse_unresolved_operand)
            parser.parse_punctuation(":")
            input_types = parser.parse_comma_separated_list(parser.Delimiter.NONE,
                                                            parser.parse_type)
            parser.parse_characters("to")
            inputs = parser.resolve_operands(args, input_types, parser.pos)
        else:
            inputs = []
        output_types = parser.parse_comma_separated_list(parser.Delimiter.NONE,
                                                         parser.parse_type)
        attributes = parser.parse_optional_attr_dict()
        return cls(operands=[inputs], result_types=[output_types], attributes=attributes)

    def print(self, printer: Printer) -> None:
        if self.inputs:
            printer.print_string(" ")
            printer.print_list(self.inputs, printer.print_operand)
            printer.print_string(" : ")
            printer.print_list(self.inputs, lambda v: printer.print_attribute(v.type))
        printer.print_string(" to ")
        printer.print_list(self.outputs, lambda v: printer.print_attribute(v.type))
        printer.print_op_attributes(self.attributes)


@irdl_op_definition
class ModuleOp(IRDLOperation):
    """``builtin.module [@name] [attributes {...}] { ops }``: one block, no terminator."""

    name = "builtin.module"

    sym_name = opt_prop_def(StringAttr)
    body = region_def("single_block")

    traits = traits_def(IsolatedFromAbove(), NoTerminator(), OptionalSymbolOpInterface(),
                        SymbolTable())

    def __init__(self, ops: Iterable[Operation] | Region,
                 attributes: Mapping[str, Attribute] | None = None,
                 sym_name: StringAttr | None = None) -> None:
        region = ops if isinstance(ops, Region) else Region(Block(ops))
        super().__init__(regions=[region], attributes=attributes or {},
                         properties={"sym_name": sym_name})

    @property
    def ops(self) -> Any:
        return self.body.ops

    @classmethod
    def parse(cls, parser: Parser) -> ModuleOp:
        name = parser.parse_optional_symbol_name()
        attributes = parser.parse_optional_attr_dict_with_keyword()
        region = parser.parse_region()
        if not region.blocks:
            region.add_block(Block())
        return ModuleOp(region, attributes.data if isinstance(attributes, DictionaryAttr)
                        else None, name)

    def print(self, printer: Printer) -> None:
        if self.sym_name is not None:
            printer.print_string(" ")
            printer.print_symbol_name(self.sym_name.data)
        if self.attributes:
            printer.print_op_attributes(self.attributes, print_keyword=True)
        if not self.body.block.ops:
            printer.print_string(" {\n")
            printer.print_string("}")
        else:
            printer.print_string(" ")
            printer.print_region(self.body)


Builtin = Dialect(
    "builtin",
    [ModuleOp, UnrealizedConversionCastOp],
    [
        StringAttr, SymbolRefAttr, IntAttr, IntegerAttr, ArrayAttr, DictionaryAttr,
        DenseIntOrFPElementsAttr, UnitAttr, FloatData, UnknownLoc, FileLineColLoc, NoneAttr,
        FunctionType, BFloat16Type, Float16Type, Float32Type, Float64Type, Float80Type,
        Float128Type, FloatTF32Type, Float8E5M2Type, Float8E4M3Type, Float8E4M3FNType,
        Float8E5M2FNUZType, Float8E4M3FNUZType, Float8E4M3B11FNUZType, Float8E3M4Type,
        Float8E8M0FNUType, Float6E2M3FNType, Float6E3M2FNType, Float4E2M1FNType, FloatAttr,
        SignednessAttr, TupleType, IntegerType, IndexType, NoneType, VectorType, TensorType,
        UnrankedTensorType, MemRefType, UnrankedMemRefType,
    ],
)
