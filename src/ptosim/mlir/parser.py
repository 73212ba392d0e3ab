"""A recursive-descent parser for MLIR text, with xDSL 0.74's parser API.

`AttrParser` parses types and attributes, `Parser` operations, blocks and regions. Method
names, signatures, error messages and error positions are those of ``xdsl.parser`` for
what ptosim uses, so custom ``parse`` methods written for xDSL run unchanged.

The current token is three attributes: ``_kind`` (see `ptosim.mlir.lexer`), ``pos`` (its
start) and ``_end``; consuming it matches the next one with `lexer.TOKEN_RE`. As in xDSL
the next token is lexed when the current one is consumed, so a lexical error surfaces
at the same point of the parse. Subclasses may override `Parser.parse_operation`,
`Parser._get_op_by_name`, `AttrParser.parse_optional_type` and
`AttrParser.parse_optional_attribute`: the parser calls them (and not internal
shortcuts) wherever xDSL does.

Speed: builtin type names are looked up once per parser, and a dialect type or attribute
spelled exactly as before (the same text up to and including the token after it) is the
attribute parsed then (`AttrParser._parse_dialect_body_cached`), which assumes that
``parse_parameters`` / ``parse_parameter`` depend on the text alone.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from enum import Enum
from typing import Any, NoReturn, TypeVar, cast

from . import lexer as _lx
from .builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    BoolAttr,
    BytesAttr,
    CallSiteLoc,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    FileLineColLoc,
    FloatAttr,
    FunctionType,
    FusedLoc,
    IndexType,
    IntAttr,
    IntegerAttr,
    IntegerType,
    LocationAttr,
    MemRefLayoutAttr,
    MemRefType,
    ModuleOp,
    NameLoc,
    NoneAttr,
    NoneType,
    Signedness,
    StridedLayoutAttr,
    StringAttr,
    SymbolRefAttr,
    TensorType,
    TupleType,
    UnitAttr,
    UnknownLoc,
    UnrankedMemRefType,
    UnrankedTensorType,
    VectorType,
    bf16,
    f4E2M1FN,
    f6E2M3FN,
    f6E3M2FN,
    f8E3M4,
    f8E4M3,
    f8E4M3B11FNUZ,
    f8E4M3FN,
    f8E4M3FNUZ,
    f8E5M2,
    f8E5M2FNUZ,
    f8E8M0FNU,
    f16,
    f32,
    f64,
    f80,
    f128,
    i64,
    tf32,
)
from .context import Context
from .exceptions import Input, MultipleSpansParseError, ParseError, Span, VerifyException
from .ir import (
    Attribute,
    Block,
    Data,
    Operation,
    ParametrizedAttribute,
    Region,
    SSAValue,
    TypeAttribute,
)
from .irdl import IRDLOperation
from .lexer import (
    AT_IDENT,
    BARE_IDENT,
    BYTES_LIT,
    CARET_IDENT,
    EOF,
    EXCLAMATION_IDENT,
    FLOAT_LIT,
    HASH_IDENT,
    INTEGER_LIT,
    PERCENT_IDENT,
    STRING_LIT,
    MLIRLexer,
    kind_name,
    lex_at,
    string_bytes,
    string_value,
)

__all__ = ["AttrParser", "BaseParser", "ForwardDeclaredValue", "Parser", "UnresolvedOperand"]

_T = TypeVar("_T")

_match = _lx.TOKEN_RE.match
# the kinds `_advance` takes as they are: escaped strings and EOF go through `lex_at`
_KINDS = tuple(None if k is EOF else k for k in _lx.KINDS)
_INTEGER_TYPE = re.compile(r"([su]?)i([0-9]+)")
_VALUE_NAME = re.compile(r"[A-Za-z_$.-][\w$.-]*")
_DECIMAL = re.compile(r"[0-9]+")


_FLOAT_TYPES: dict[str, TypeAttribute] = {
    t.name: t for t in (bf16, f16, f32, f64, f80, f128, tf32, f8E5M2, f8E4M3, f8E4M3FN,
                        f8E5M2FNUZ, f8E4M3FNUZ, f8E4M3B11FNUZ, f8E3M4, f8E8M0FNU, f6E2M3FN,
                        f6E3M2FN, f4E2M1FN)}
_FLOAT_CLASSES: tuple[type[Attribute], ...] = tuple({type(t) for t in _FLOAT_TYPES.values()})
_SHAPED_CLASSES = (VectorType, TensorType, MemRefType)


class ForwardDeclaredValue(SSAValue):
    """A value used before its definition; the definition replaces all its uses."""

    __slots__ = ()

    @property
    def owner(self) -> NoReturn:
        raise ValueError("Forward declared values do not have an owner")


class UnresolvedOperand:
    """An operand name (``%x`` or ``%x#1``) waiting for its type (`Parser.resolve_operand`).
    ``span`` covers the name with its ``%``, not the ``#index``."""

    __slots__ = ("_end", "_input", "_span", "_start", "index", "operand_name")

    def __init__(self, span: Span, index: int = 0) -> None:
        self._span: Span | None = span
        self._start, self._end, self._input = span.start, span.end, span.input
        self.index = index
        self.operand_name = span.text[1:]

    @classmethod
    def _at(cls, inp: Input, start: int, end: int, index: int) -> UnresolvedOperand:
        self = cls.__new__(cls)
        self._span = None
        self._start, self._end, self._input = start, end, inp
        self.index = index
        self.operand_name = inp.content[start + 1:end]
        return self

    @property
    def span(self) -> Span:
        if self._span is None:
            self._span = Span(self._start, self._end, self._input)
        return self._span

    def __eq__(self, other: object) -> bool:
        return isinstance(other, UnresolvedOperand) and self.span == other.span \
            and self.index == other.index

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"UnresolvedOperand(%{self.operand_name}, index={self.index})"


class BaseParser:
    """Tokens, punctuation, keywords, literals and lists."""

    ctx: Context
    lexer: MLIRLexer
    """``lexer.input`` is the source (the parser lexes itself: ``lexer.pos`` stays 0)."""
    pos: int
    """Start of the current (next unconsumed) token."""

    class Delimiter(Enum):
        """The brackets around a list (`BaseParser.parse_comma_separated_list`)."""

        PAREN = ("(", ")")
        ANGLE = ("<", ">")
        SQUARE = ("[", "]")
        BRACES = ("{", "}")
        METADATA_TOKEN = ("{-#", "#-}")
        NONE = None

    def __init__(self, ctx: Context, input: str | bytes, name: str = "<unknown>") -> None:
        text = input.decode("utf-8") if isinstance(input, bytes) else input
        self.ctx = ctx
        inp = Input(text, name)
        self.lexer = MLIRLexer(inp)
        self._input = inp
        self._text = text
        self._end = 0
        self._advance()

    # --- tokens ---------------------------------------------------------------------------
    def _advance(self) -> None:
        """Consume the current token: lex the next one."""
        m = _match(self._text, self._end)
        if m is not None:
            i = m.lastindex
            kind = _KINDS[i]  # type: ignore[index]
            if kind is not None:
                self._kind = kind
                self.pos, self._end = m.span(i)  # type: ignore[arg-type]
                return
        self._kind, self.pos, self._end = lex_at(self._input, self._end)

    def _resume_from(self, pos: int) -> None:
        """Lex again from a raw offset (splits tokens such as ``4xf32``)."""
        self._end = pos
        self._advance()

    def _token_span(self) -> Span:
        return Span(self.pos, self._end, self._input)

    def _parse_token(self, kind: str, error_msg: str) -> tuple[int, int]:
        """Consume a token of ``kind``, returning its start and end, or fail."""
        if self._kind != kind:
            self.raise_error(error_msg)
        start, end = self.pos, self._end
        self._advance()
        return start, end

    def raise_error(self, msg: str, at_position: Span | int | None = None,
                    end_position: int | None = None) -> NoReturn:
        """Raise a `ParseError`: at the current token, at a position, a range or a span."""
        if end_position is not None:
            assert isinstance(at_position, int)
            span = Span(at_position, end_position, self._input)
        elif at_position is None:
            span = Span(self.pos, self._end, self._input)
        elif isinstance(at_position, int):
            span = Span(at_position, at_position, self._input)
        else:
            span = at_position
        raise ParseError(span, msg)

    def expect(self, try_parse: Callable[[], _T | None], error_message: str) -> _T:
        """``try_parse()``, or an error at the current token if it returns None."""
        res = try_parse()
        if res is None:
            self.raise_error(error_message)
        return res

    # --- punctuation and characters ---------------------------------------------------------
    def parse_optional_punctuation(self, punctuation: str) -> str | None:
        if self._kind == punctuation:
            self._advance()
            return punctuation
        return None

    def parse_punctuation(self, punctuation: str, context_msg: str = "") -> str:
        if self._kind != punctuation:
            self.raise_error(f"Expected '{punctuation}'" + context_msg)
        self._advance()
        return punctuation

    def parse_optional_characters(self, text: str) -> str | None:
        """Consume the current token if its text is ``text`` (a prefix is not enough)."""
        if self._text[self.pos:self._end] == text:
            self._advance()
            return text
        return None

    def parse_characters(self, text: str, context_msg: str = "") -> str:
        if self._text[self.pos:self._end] == text:
            self._advance()
            return text
        self.raise_error(f"'{text}' expected" + context_msg)

    @contextmanager
    def delimited(self, start: str, end: str) -> Iterator[None]:
        self.parse_characters(start)
        yield
        self.parse_characters(end)

    def in_angle_brackets(self) -> AbstractContextManager[None]:
        return self.delimited("<", ">")

    def in_square_brackets(self) -> AbstractContextManager[None]:
        return self.delimited("[", "]")

    def in_parens(self) -> AbstractContextManager[None]:
        return self.delimited("(", ")")

    def in_braces(self) -> AbstractContextManager[None]:
        return self.delimited("{", "}")

    # --- lists ----------------------------------------------------------------------------
    def parse_list(self, delimiter: BaseParser.Delimiter, parse: Callable[[], _T],
                   separator: str = ",", context_msg: str = "") -> list[_T]:
        """Elements separated by ``separator`` inside ``delimiter`` (which may be empty),
        or at least one element with `Delimiter.NONE`."""
        delims = delimiter.value
        if delims is not None:
            left, right = delims
            self.parse_characters(left, context_msg)
            if self._text[self.pos:self._end] == right:
                self._advance()
                return []
        elems = [parse()]
        if separator == ",":
            while self._kind == ",":
                self._advance()
                elems.append(parse())
        else:
            while self.parse_optional_characters(separator) is not None:
                elems.append(parse())
        if delims is not None:
            self.parse_characters(delims[1], context_msg)
        return elems

    def parse_comma_separated_list(self, delimiter: BaseParser.Delimiter,
                                   parse: Callable[[], _T], context_msg: str = "") -> list[_T]:
        return self.parse_list(delimiter, parse, ",", context_msg)

    def parse_optional_comma_separated_list(
            self, delimiter: BaseParser.Delimiter, parse: Callable[[], _T],
            context_msg: str = "") -> list[_T] | None:
        """As `parse_comma_separated_list`, or None if the opening bracket is absent."""
        if delimiter.value is None:
            raise ValueError(
                "Cannot use `Delimiter.NONE` with `parse_optional_comma_separated_list`. "
                "Use `parse_optional_undelimited_comma_separated_list` instead.")
        left, right = delimiter.value
        if self.parse_optional_characters(left) is None:
            return None
        if self.parse_optional_characters(right) is not None:
            return []
        elems = self.parse_list(self.Delimiter.NONE, parse, ",", context_msg)
        self.parse_characters(right, context_msg)
        return elems

    def parse_optional_undelimited_comma_separated_list(
            self, parse_optional: Callable[[], _T | None],
            parse: Callable[[], _T]) -> list[_T] | None:
        first = parse_optional()
        if first is None:
            return None
        elems = [first]
        if self._kind == ",":
            self._advance()
            elems.extend(self.parse_list(self.Delimiter.NONE, parse))
        return elems

    # --- literals and identifiers ---------------------------------------------------------
    def parse_optional_boolean(self) -> bool | None:
        if self._kind is BARE_IDENT:
            text = self._text[self.pos:self._end]
            if text == "true":
                self._advance()
                return True
            if text == "false":
                self._advance()
                return False
        return None

    def parse_boolean(self, context_msg: str = "") -> bool:
        return self.expect(self.parse_optional_boolean, "Expected boolean literal" + context_msg)

    def parse_optional_integer(self, allow_boolean: bool = True,
                               allow_negative: bool = True) -> int | None:
        """A decimal or hexadecimal integer (negative if allowed; ``true`` / ``false`` as
        1 / 0 if allowed), or None."""
        if allow_boolean and (boolean := self.parse_optional_boolean()) is not None:
            return 1 if boolean else 0
        negative = False
        if allow_negative and self._kind == "-":
            self._advance()
            negative = True
        if self._kind is not INTEGER_LIT:
            if negative:
                self.raise_error("Expected integer literal after '-'")
            return None
        value = _int_value(self._text[self.pos:self._end])
        self._advance()
        return -value if negative else value

    def parse_integer(self, allow_boolean: bool = True, allow_negative: bool = True,
                      context_msg: str = "") -> int:
        value = self.parse_optional_integer(allow_boolean, allow_negative)
        if value is None:
            self.raise_error("Expected integer literal" + context_msg)
        return value

    def parse_optional_float(self, *, allow_negative: bool = True) -> float | None:
        negative = False
        if allow_negative and self._kind == "-":
            self._advance()
            negative = True
        if self._kind is FLOAT_LIT:
            value = float(self._text[self.pos:self._end])
            self._advance()
            return -value if negative else value
        return None

    def parse_float(self, *, allow_negative: bool = True) -> float:
        return self.expect(lambda: self.parse_optional_float(allow_negative=allow_negative),
                           "Expected float literal")

    def parse_optional_number(self, *, allow_boolean: bool = False) -> int | float | None:
        negative = False
        if self._kind == "-":
            self._advance()
            negative = True
        if self._kind is INTEGER_LIT:
            value: int | float = _int_value(self._text[self.pos:self._end])
        elif self._kind is FLOAT_LIT:
            value = float(self._text[self.pos:self._end])
        else:
            if negative:
                self.raise_error("Expected integer or float literal after '-'")
            if allow_boolean and (boolean := self.parse_optional_boolean()) is not None:
                return 1 if boolean else 0
            return None
        self._advance()
        return -value if negative else value

    def parse_number(self, allow_boolean: bool = False, context_msg: str = "") -> int | float:
        return self.expect(
            lambda: self.parse_optional_number(allow_boolean=allow_boolean),
            f"integer{', boolean,' if allow_boolean else ''} or float literal expected"
            + context_msg)

    def parse_optional_str_literal(self) -> str | None:
        """The contents of a string literal (escapes resolved), or None."""
        if self._kind is not STRING_LIT:
            return None
        text = self._text[self.pos:self._end]
        self._advance()
        try:
            return string_value(text)
        except UnicodeDecodeError:
            return None

    def parse_str_literal(self, context_msg: str = "") -> str:
        return self.expect(self.parse_optional_str_literal,
                           "string literal expected" + context_msg)

    def parse_optional_bytes_literal(self) -> bytes | None:
        if self._kind is not BYTES_LIT:
            return None
        text = self._text[self.pos:self._end]
        self._advance()
        return string_bytes(text)

    def parse_bytes_literal(self, context_msg: str = "") -> bytes:
        return self.expect(self.parse_optional_bytes_literal,
                           "bytes literal expected" + context_msg)

    def parse_optional_identifier(self) -> str | None:
        """A bare identifier (``foo``, ``foo.bar``), or None."""
        if self._kind is BARE_IDENT:
            text = self._text[self.pos:self._end]
            self._advance()
            return text
        return None

    def parse_identifier(self, context_msg: str = "") -> str:
        return self.expect(self.parse_optional_identifier, "identifier expected" + context_msg)

    def parse_optional_identifier_or_str_literal(self) -> str | None:
        if (ident := self.parse_optional_identifier()) is not None:
            return ident
        return self.parse_optional_str_literal()

    def parse_identifier_or_str_literal(self, context_msg: str = "") -> str:
        return self.expect(self.parse_optional_identifier_or_str_literal,
                           "identifier or string literal expected" + context_msg)

    def parse_optional_keyword(self, keyword: str) -> str | None:
        if self._kind is BARE_IDENT and self._text[self.pos:self._end] == keyword:
            self._advance()
            return keyword
        return None

    def parse_keyword(self, keyword: str, context_msg: str = "") -> str:
        if self.parse_optional_keyword(keyword) is not None:
            return keyword
        self.raise_error(f"Expected '{keyword}'" + context_msg)

    def parse_optional_keyword_in(self, keywords: Collection[str]) -> str | None:
        if self._kind is BARE_IDENT:
            text = self._text[self.pos:self._end]
            if text in keywords:
                self._advance()
                return text
        return None

    def parse_keyword_in(self, keywords: Collection[str], context_msg: str = "") -> str:
        expected = ", ".join(f"'{k}'" for k in sorted(keywords))
        return self.expect(lambda: self.parse_optional_keyword_in(keywords),
                           f"Expected one of {expected}" + context_msg)

    def parse_optional_str_enum(self, enum_type: type[Any]) -> Any:
        span = self._token_span()
        value = self.parse_optional_identifier_or_str_literal()
        if value is None:
            return None
        if value not in enum_type.__members__.values():
            self._raise_wrong_str_enum_value_error(enum_type, span)
        return enum_type(value)

    def parse_str_enum(self, enum_type: type[Any]) -> Any:
        span = self._token_span()
        result = self.parse_optional_str_enum(enum_type)
        if result is None:
            self._raise_wrong_str_enum_value_error(enum_type, span)
        return result

    def _raise_wrong_str_enum_value_error(self, enum_type: type[Any], span: Span) -> NoReturn:
        values: tuple[Any, ...] = tuple(enum_type)  # type: ignore[arg-type]
        if len(values) == 1:
            self.raise_error(f"Expected `{values[0]}`.", span)
        self.raise_error(f"Expected `{'`, `'.join(values[:-1])}`, or `{values[-1]}`.", span)


def _int_value(text: str) -> int:
    return int(text, 16) if text[:2] in ("0x", "0X") else int(text, 10)


class AttrParser(BaseParser):
    """Types and attributes: builtin ones by their MLIR syntax, dialect ones
    (``!dialect.name<...>`` / ``#dialect.name<...>``) through the class the context
    registers (``parse_parameters`` / ``parse_parameter``)."""

    attribute_aliases: dict[str, Attribute]
    """``#name`` / ``!name`` alias definitions, keyed with their prefix."""

    def __init__(self, ctx: Context, input: str | bytes, name: str = "<unknown>") -> None:
        self.attribute_aliases = {}
        self._type_cache: dict[str, TypeAttribute] = {}
        self._body_cache: dict[str, list[tuple[str, Attribute, int, str]]] = {}
        super().__init__(ctx, input, name)

    # --- entry points ---------------------------------------------------------------------
    def parse_optional_type(self) -> TypeAttribute | None:
        """A builtin type, a dialect type ``!d.name<...>`` or a type alias, or None."""
        kind = self._kind
        if kind is BARE_IDENT:
            return self._parse_optional_named_type()
        if kind is EXCLAMATION_IDENT:
            name = self._text[self.pos + 1:self._end]
            self._advance()
            return cast(TypeAttribute, self._parse_extended_type_or_attribute(name, True))
        if kind == "(":
            return self.parse_optional_function_type()
        return None

    def parse_type(self) -> TypeAttribute:
        return self.expect(self.parse_optional_type, "type expected")

    def parse_optional_attribute(self) -> Attribute | None:
        """A builtin attribute (or type), a dialect attribute ``#d.name<...>`` or an
        attribute alias, or None."""
        if self._kind is HASH_IDENT:
            name = self._text[self.pos + 1:self._end]
            self._advance()
            return self._parse_extended_type_or_attribute(name, False)
        return self._parse_optional_builtin_attr()

    def parse_attribute(self) -> Attribute:
        return self.expect(self.parse_optional_attribute, "attribute expected")

    # --- dictionaries ---------------------------------------------------------------------
    def _parse_attribute_entry(self) -> tuple[str, Attribute]:
        """``name = attribute``, or ``name`` alone (a unit attribute)."""
        if (name := self.parse_optional_identifier_or_str_literal()) is None:
            self.raise_error(
                "Expected bare-id or string-literal here as part of attribute entry!")
        if self._kind != "=":
            return name, UnitAttr()
        self._advance()
        return name, self.parse_attribute()

    @staticmethod
    def _find_duplicated_key(attrs: list[tuple[str, Attribute]]) -> str | None:
        seen: set[str] = set()
        for key, _ in attrs:
            if key in seen:
                return key
            seen.add(key)
        return None

    def parse_optional_dictionary_attr_dict(self) -> dict[str, Attribute]:
        """``{name = attr, ...}`` as a dict; an empty dict if there is no ``{``."""
        if self._kind != "{":
            return {}
        attrs = self.parse_comma_separated_list(self.Delimiter.BRACES,
                                                self._parse_attribute_entry)
        if (key := self._find_duplicated_key(attrs)) is not None:
            self.raise_error(f"Duplicate key '{key}' in dictionary attribute")
        return dict(attrs)

    def _parse_optional_builtin_dict_attr(self) -> Attribute | None:
        if self._kind != "{":
            return None
        return self._parse_builtin_dict_attr()

    def _parse_builtin_dict_attr(self) -> DictionaryAttr:
        return DictionaryAttr(self.parse_optional_dictionary_attr_dict())

    # --- dialect types and attributes -----------------------------------------------------
    def _parse_extended_type_or_attribute(self, name: str, is_type: bool) -> Attribute:
        """After ``!name`` / ``#name``: a dialect type or attribute (``d.name<...>``, or
        the opaque ``d<name ...>``) or an alias."""
        if "." in name:
            return self._parse_dialect_body_cached(name, is_type)
        if self._kind != "<":
            alias = ("!" if is_type else "#") + name
            if alias not in self.attribute_aliases:
                self.raise_error(f"undefined symbol alias '{alias}'")
            return self.attribute_aliases[alias]
        self._advance()
        if self._kind is not BARE_IDENT:
            self.raise_error("Expected attribute name.")
        name += "." + self._text[self.pos:self._end]
        self._advance()
        attr = self._parse_dialect_type_or_attribute_body(name, is_type)
        self.parse_punctuation(">")
        return attr

    def _parse_dialect_body_cached(self, name: str, is_type: bool) -> Attribute:
        """`_parse_dialect_type_or_attribute_body`, reusing the attribute of an earlier
        identical spelling. A body's parse depends only on the tokens it consumes and on
        the token after them (one token of lookahead), so the text from the body's start
        to the end of that token determines the attribute (immutable, so shareable)."""
        start = self.pos
        text = self._text
        seen = self._body_cache.get(name) if is_type else self._body_cache.get("#" + name)
        if seen is not None:
            for key, attr, next_start, next_kind in seen:
                if text.startswith(key, start):
                    kind, end = self._kind, self._end
                    self._end = start + next_start
                    self._advance()
                    if self._kind == next_kind and self._end == start + len(key):
                        return attr
                    self._kind, self.pos, self._end = kind, start, end
                    break
        attr = self._parse_dialect_type_or_attribute_body(name, is_type)
        if seen is None:
            seen = self._body_cache[name if is_type else "#" + name] = []
        if len(seen) < 16:
            seen.append((text[start:self._end], attr, self.pos - start, self._kind))
        return attr

    def _parse_dialect_type_or_attribute_body(self, name: str, is_type: bool) -> Attribute:
        ctx = self.ctx
        cls = ctx.get_optional_type(name) if is_type else ctx.get_optional_attr(name)
        if cls is None:
            self.raise_error(f"'{name}' is not registered")
        if issubclass(cls, ParametrizedAttribute):
            return cls.new(cls.parse_parameters(self))
        if issubclass(cls, Data):
            return cls(cls.parse_parameter(self))
        raise TypeError("Attributes are either ParametrizedAttribute or Data.")

    def parse_paramattr_parameters(self, skip_white_space: bool = True) -> list[Attribute]:
        res = self.parse_optional_comma_separated_list(self.Delimiter.ANGLE,
                                                       self.parse_attribute)
        return [] if res is None else res

    # --- builtin types --------------------------------------------------------------------
    def _parse_optional_named_type(self) -> TypeAttribute | None:
        """A builtin type spelled by a bare identifier: ``i32``, ``f16``, ``index``,
        ``none``, or ``vector`` / ``memref`` / ``tensor`` / ``tuple<...>`` (``complex`` is
        not supported)."""
        text = self._text[self.pos:self._end]
        found = self._type_cache.get(text)
        if found is None:
            found = self._named_type(text)
            if found is None:
                return self._parse_optional_builtin_parametrized_type(text)
            self._type_cache[text] = found
        self._advance()
        return found

    @staticmethod
    def _named_type(text: str) -> TypeAttribute | None:
        if text == "index":
            return IndexType()
        if (m := _INTEGER_TYPE.fullmatch(text)) is not None:
            sign = m.group(1)
            if not sign:
                return IntegerType(int(m.group(2)))
            signedness = Signedness.SIGNED if sign == "s" else Signedness.UNSIGNED
            return IntegerType(int(m.group(2)), signedness)
        if (t := _FLOAT_TYPES.get(text)) is not None:
            return t
        if text == "none":
            return NoneType()
        return None

    def _parse_optional_builtin_parametrized_type(self, name: str) -> TypeAttribute | None:
        parsers = {
            "vector": self._parse_vector_attrs, "memref": self._parse_memref_attrs,
            "tensor": self._parse_tensor_attrs, "complex": self._unsupported_complex,
            "tuple": self._parse_tuple_attrs,
        }
        parse = parsers.get(name)
        if parse is None:
            return None
        self._advance()
        self.parse_punctuation("<", " after builtin name")
        res = parse()
        self.parse_punctuation(">", " after builtin parameter list")
        return res

    def parse_optional_function_type(self) -> TypeAttribute | None:
        """``(t1, t2) -> t3`` or ``(t1) -> (t2, t3)``, or None."""
        if self._kind != "(":
            return None
        args = self.parse_comma_separated_list(self.Delimiter.PAREN, self.parse_type)
        self.parse_punctuation("->")
        returns = self.parse_optional_comma_separated_list(self.Delimiter.PAREN,
                                                           self.parse_type)
        if returns is None:
            returns = [self.parse_type()]
        return FunctionType.from_lists(args, returns)

    def parse_function_type(self) -> Any:
        return self.expect(self.parse_optional_function_type, "function type expected")

    # shapes: `4x?xf32`; an identifier starting with `x` is split by lexing again after it
    def parse_shape_dimension(self, allow_dynamic: bool = True) -> int:
        kind = self._kind
        if kind is not INTEGER_LIT and kind != "?":
            if allow_dynamic:
                self.raise_error("Expected either integer literal or '?' in shape dimension, "
                                 f"got {kind_name(kind)}!")
            self.raise_error(
                f"Expected integer literal in shape dimension, got {kind_name(kind)}!")
        if kind == "?":
            self._advance()
            if allow_dynamic:
                return DYNAMIC_INDEX
            self.raise_error("Unexpected dynamic dimension!")
        start, text = self.pos, self._text[self.pos:self._end]
        if text[:2] == "0x":   # `0x10`: the dimension 0, then `x10`
            self._resume_from(start + 1)
            return 0
        self._advance()
        return int(text, 10)

    def _parse_optional_shape_delimiter(self) -> str | None:
        if self._kind is not BARE_IDENT or self._text[self.pos] != "x":
            return None
        self._resume_from(self.pos + 1)
        return "x"

    def parse_shape_delimiter(self) -> None:
        if self._parse_optional_shape_delimiter() is not None:
            return
        kind = self._kind
        got = self._text[self.pos:self._end] if kind is BARE_IDENT else kind_name(kind)
        self.raise_error(f"Expected 'x' in shape delimiter, got {got}")

    def parse_dimension_list(self) -> list[int]:
        """``(dimension x)* dimension`` with dimensions integers or ``?``; a trailing
        ``x`` is left unconsumed."""
        if self._kind is not INTEGER_LIT and self._kind != "?":
            return []
        dims = [self.parse_shape_dimension()]
        while self._parse_optional_shape_delimiter():
            if self._kind is INTEGER_LIT or self._kind == "?":
                dims.append(self.parse_shape_dimension())
            else:
                self._resume_from(self.pos - 1)   # give the `x` back
                break
        return dims

    def parse_ranked_shape(self) -> tuple[list[int], Attribute]:
        dims = self.parse_dimension_list()
        if dims:
            self.parse_shape_delimiter()
        element = self.expect(self.parse_optional_type, "Expected shape type.")
        return dims, element

    def parse_shape(self) -> tuple[list[int] | None, Attribute]:
        if self._kind == "*":
            self._advance()
            self.parse_shape_delimiter()
            return None, self.expect(self.parse_optional_type, "Expected shape type.")
        return self.parse_ranked_shape()

    def _unsupported_complex(self) -> NoReturn:
        self.raise_error("Builtin complex is not supported yet!")

    def _parse_memref_attrs(self) -> TypeAttribute:
        shape, element = self.parse_shape()
        if shape is None:
            if self._kind != ",":
                return UnrankedMemRefType.from_type(element)
            self._advance()
            return UnrankedMemRefType.from_type(
                element, self.parse_attribute())
        if self._kind != ",":
            return MemRefType(element, shape)
        self._advance()
        memory_or_layout = self.parse_attribute()
        layout_cls = MemRefLayoutAttr
        is_layout = layout_cls is not None and isinstance(memory_or_layout, layout_cls)
        if self._kind == ",":
            self._advance()
            memory_space = self.parse_attribute()
            if not is_layout:
                self.raise_error("Expected a MemRef layout attribute")
            return MemRefType(element, shape, memory_or_layout,
                                 memory_space)
        if is_layout:
            return MemRefType(element, shape, layout=memory_or_layout)
        return MemRefType(element, shape,
                             memory_space=memory_or_layout)

    def _parse_vector_attrs(self) -> TypeAttribute:
        dims: list[int] = []
        scalable: list[bool] = []
        while True:
            if self._kind is INTEGER_LIT:
                dims.append(self.parse_shape_dimension(allow_dynamic=False))
                scalable.append(False)
                self.parse_shape_delimiter()
            elif self._kind == "[":
                self._advance()
                dims.append(self.parse_shape_dimension(allow_dynamic=False))
                scalable.append(True)
                self.parse_punctuation("]")
                self.parse_shape_delimiter()
            else:
                break
        element = self.parse_optional_type()
        if element is None:
            self.raise_error("Expected vector element type")
        flags = ArrayAttr([BoolAttr.from_bool(s) for s in scalable])
        return VectorType(element, dims, flags)

    def _parse_tensor_attrs(self) -> TypeAttribute:
        shape, element = self.parse_shape()
        if shape is None:
            if self._kind == ",":
                self._advance()
                self.raise_error("Unranked tensors don't have an encoding!")
            return UnrankedTensorType(element)
        if self._kind == ",":
            self._advance()
            return TensorType(element, shape, self.parse_attribute())
        return TensorType(element, shape)

    def _parse_tuple_attrs(self) -> TypeAttribute:
        params = self.parse_optional_undelimited_comma_separated_list(self.parse_optional_type,
                                                                      self.parse_type)
        return TupleType(tuple(params or ()))

    # --- builtin attributes ---------------------------------------------------------------
    def _parse_optional_builtin_attr(self) -> Attribute | None:
        """String, bytes, unit, boolean, number, array, symbol reference, location,
        dictionary, type, or dense / array / strided attribute, or None (xDSL's order)."""
        kind = self._kind
        if kind is STRING_LIT:
            return StringAttr(cast(str, self.parse_optional_str_literal()))
        if kind is BYTES_LIT:
            return BytesAttr(cast(bytes, self.parse_optional_bytes_literal()))
        if kind is BARE_IDENT:
            text = self._text[self.pos:self._end]
            if text == "unit":
                self._advance()
                return UnitAttr()
            if text in ("true", "false"):
                self._advance()
                return IntegerAttr(1 if text == "true" else 0,
                                      IntegerType(1))
            if text == "loc":
                return self.parse_optional_location()
            if (t := self.parse_optional_type()) is not None:
                return t
            return self._parse_optional_builtin_parametrized_attr()
        if kind is INTEGER_LIT or kind is FLOAT_LIT or kind == "-":
            return self.parse_optional_builtin_int_or_float_attr()
        if kind == "[":
            return self._parse_optional_array_attr()
        if kind is AT_IDENT:
            return self._parse_optional_symref_attr()
        if kind == "{":
            return self._parse_builtin_dict_attr()
        return self.parse_optional_type()

    def parse_optional_unit_attr(self) -> Attribute | None:
        if self._kind is BARE_IDENT and self._text[self.pos:self._end] == "unit":
            self._advance()
            return UnitAttr()
        return None

    def try_parse_builtin_boolean_attr(self) -> Attribute | None:
        if (value := self.parse_optional_boolean()) is not None:
            return IntegerAttr(1 if value else 0, IntegerType(1))
        return None

    def parse_optional_builtin_int_or_float_attr(self) -> Attribute | None:
        """``42``, ``-1.5``, ``0x7F80 : bf16``, ``true`` with an optional ``: type``
        (default ``i64`` / ``f64``)."""
        if (boolean := self.try_parse_builtin_boolean_attr()) is not None:
            return boolean
        is_hex = self._text[self.pos:self.pos + 2] in ("0x", "0X")
        if (value := self.parse_optional_number()) is None:
            return None
        if self._kind != ":":
            if isinstance(value, float):
                return FloatAttr(value, f64)
            return IntegerAttr(value, i64)
        type = self._parse_attribute_type()
        if isinstance(type, _FLOAT_CLASSES):
            if is_hex:
                assert isinstance(value, int)
                return FloatAttr(_float_from_bits(value, type), type)
            return FloatAttr(float(value), type)
        if isinstance(type, (IntegerType, IndexType)):
            if isinstance(value, float):
                self.raise_error("Floating point value is not valid for integer type.")
            return IntegerAttr(value, type)
        self.raise_error("Invalid type given for integer or float attribute.")

    def _parse_attribute_type(self) -> TypeAttribute:
        self.parse_characters(":", " in attribute type")
        return self.parse_type()

    def _parse_optional_array_attr(self) -> Attribute | None:
        attrs = self.parse_optional_comma_separated_list(self.Delimiter.SQUARE,
                                                         self.parse_attribute)
        if attrs is None:
            return None
        return ArrayAttr(attrs)

    def parse_optional_visibility_keyword(self) -> Attribute | None:
        word = self.parse_optional_keyword_in(("public", "nested", "private"))
        return None if word is None else StringAttr(word)

    def parse_visibility_keyword(self) -> Attribute:
        return self.expect(self.parse_optional_visibility_keyword,
                           "expect symbol visibility keyword")

    def parse_optional_symbol_name(self) -> Any:
        """``@name`` or ``@"quoted name"`` as a StringAttr without the ``@``, or None."""
        if self._kind is not AT_IDENT:
            return None
        text = self._text[self.pos + 1:self._end]
        self._advance()
        if text[0] == '"':
            text = string_value(text)
        return StringAttr(text)

    def parse_symbol_name(self) -> Any:
        return self.expect(self.parse_optional_symbol_name, "expect symbol name")

    def _parse_optional_symref_attr(self) -> Attribute | None:
        """``@a``, ``@a::@b::@c``."""
        root = self.parse_optional_symbol_name()
        if root is None:
            return None
        refs = []
        while self._kind == ":":
            pos = self.pos
            self._advance()
            if self._kind != ":":
                self._resume_from(pos)   # a lone `:` (e.g. `@f : type`) is not ours
                break
            self._advance()
            refs.append(self.parse_symbol_name())
        return SymbolRefAttr(root, ArrayAttr(refs))

    def _parse_optional_builtin_parametrized_attr(self) -> Attribute | None:
        if self._kind is not BARE_IDENT:
            return None
        parsers = {
            "dense": self._parse_builtin_dense_attr,
            "array": self._parse_builtin_densearray_attr,
            "strided": self._parse_strided_layout_attr,
        }
        name = self._text[self.pos:self._end]
        if name in ("opaque", "dense_resource", "affine_map", "affine_set"):
            self.raise_error(f"Builtin {name} is not supported yet!")
        parse = parsers.get(name)
        if parse is None:
            return None
        self._advance()
        return parse()

    def _parse_int_or_question(self, context_msg: str = "") -> int | None:
        """An integer, or ``?`` (None)."""
        if self._kind == "?":
            self._advance()
            return None
        if (v := self.parse_optional_integer(allow_boolean=False)) is not None:
            return v
        self.raise_error("Expected an integer literal or `?`" + context_msg)

    def _parse_strided_layout_attr(self) -> Attribute:
        """``strided<[s0, s1, ...]>`` or ``strided<[...], offset: n>``, ``?`` for dynamic."""
        self._parse_token("<", "Expected `<` after `strided`")
        strides = self.parse_comma_separated_list(
            self.Delimiter.SQUARE, lambda: self._parse_int_or_question(" in stride list"),
            " in stride list")
        if self._kind == ">":
            self._advance()
            return StridedLayoutAttr(strides)
        self._parse_token(",", "Expected end of strided attribute or ',' for offset.")
        self.parse_keyword("offset", " after comma")
        self._parse_token(":", "Expected ':' after 'offset'")
        offset = self._parse_int_or_question(" in stride offset")
        self._parse_token(">", "Expected '>' in end of stride attribute")
        return StridedLayoutAttr(strides, offset)

    def _parse_typed_integer(self, type: Any, allow_boolean: bool = True,
                             allow_negative: bool = True, context_msg: str = "") -> int:
        pos = self.pos
        value = self.parse_integer(allow_boolean, allow_negative, context_msg)
        try:
            type.verify_value(value)
        except VerifyException as err:
            self.raise_error(str(err), pos, self.pos)
        return value

    def _parse_builtin_densearray_attr(self) -> Attribute:
        """``array<i32: 1, 2>``, ``array<f32: 1.0>``, ``array<i8>``."""
        self.parse_characters("<", " in dense array")
        pos = self.pos
        element = self.parse_attribute()
        if not isinstance(element, (IntegerType, *_FLOAT_CLASSES)):
            self.raise_error("dense array element type must be an integer or floating point "
                             "type", pos, self.pos)
        if self._kind == ">":
            self._advance()
            return DenseArrayBase.from_list(element, [])
        self.parse_characters(":", " in dense array")
        values: list[Any]
        if isinstance(element, IntegerType):
            values = self.parse_comma_separated_list(
                self.Delimiter.NONE, lambda: self._parse_typed_integer(element))
        else:
            values = self.parse_comma_separated_list(self.Delimiter.NONE, self.parse_float)
        res = DenseArrayBase.from_list(element, values)
        self.parse_characters(">", " in dense array")
        return res

    # dense<...>: a tensor literal or a hex string, then `: type`
    def _parse_builtin_dense_attr(self) -> Attribute:
        return self.parse_dense_int_or_fp_elements_attr(None)

    def _parse_dense_literal_type(self) -> Any:
        type = self.expect(self.parse_optional_type, "Dense attribute must be typed!")
        element = getattr(type, "element_type", None)
        if not isinstance(type, _SHAPED_CLASSES) or not isinstance(
                element, (IntegerType, IndexType, *_FLOAT_CLASSES)):
            self.raise_error("Expected memref, vector or tensor type of integer, index, float, "
                             "or complex type")
        if any(dim == DYNAMIC_INDEX for dim in type.get_shape()):
            self.raise_error("Dense literal attribute should have a static shape.")
        return type

    def parse_dense_int_or_fp_elements_attr(self, type: Any) -> Attribute:
        self.parse_punctuation("<", " in dense attribute")
        contents: tuple[list[_Element], list[int]] | str | None
        if self._kind == ">":
            self._advance()
            contents = None
        else:
            if (hex_string := self.parse_optional_str_literal()) is not None:
                contents = hex_string
            else:
                contents = self._parse_tensor_literal()
            self.parse_punctuation(">", " in dense attribute")
        if type is None:
            self.parse_punctuation(":", " in dense attribute")
            type = self._parse_dense_literal_type()
        shape = list(type.get_shape())
        count = math.prod(shape)
        element = type.element_type
        if contents is None:
            if count != 0:
                self.raise_error(
                    "Expected at least one element in the dense literal, but got None")
            values: list[Any] = []
        elif isinstance(contents, str):
            try:
                raw = bytes.fromhex(contents[2:])
            except ValueError:
                self.raise_error("Hex string in denseAttr is invalid")
            if len(raw) == element.compile_time_size:   # a splat
                raw *= count
            attr = DenseIntOrFPElementsAttr(type, BytesAttr(raw))
            if len(attr) != count:
                self.raise_error(f"Shape mismatch in dense literal. Expected {count} "
                                 f"elements from the type, but got {len(attr)} elements.")
            return attr
        else:
            elements, literal_shape = contents
            values = [e.to_type(self, element) for e in elements]
            if literal_shape:
                if shape != literal_shape:
                    self.raise_error(f"Shape mismatch in dense literal. Expected {shape} "
                                     f"shape from the type, but got {literal_shape} shape.")
            else:
                values *= count
        return DenseIntOrFPElementsAttr.from_list(type, values)

    def _parse_tensor_literal(self) -> tuple[list[_Element], list[int]]:
        """A nested ``[...]`` literal (flattened, with its shape) or one element (shape
        ``[]``: a splat)."""
        res = self.parse_optional_comma_separated_list(self.Delimiter.SQUARE,
                                                       self._parse_tensor_literal)
        if res is None:
            return [self._parse_tensor_literal_element()], []
        if not res:
            return [], [0]
        inner = res[0][1]
        if any(r[1] != inner for r in res):
            self.raise_error("Tensor literal has inconsistent ranks between elements")
        return [e for sub in res for e in sub[0]], [len(res), *inner]

    def _parse_tensor_literal_element(self) -> _Element:
        start = self.pos
        negative = False
        if self._kind == "-":
            self._advance()
            negative = True
        kind, text = self._kind, self._text[self.pos:self._end]
        value: int | float | bool
        if kind is BARE_IDENT and not negative and text in ("true", "false"):
            value = text == "true"
        elif kind is INTEGER_LIT:
            value = _int_value(text)
        elif kind is FLOAT_LIT:
            value = float(text)
        else:
            self._resume_from(start)
            if self._kind == "(":
                self.raise_error("complex dense literals are not supported")
            self.raise_error("Expected either a float, integer, or complex literal")
        end = self._end
        self._advance()
        if negative:
            value = -value
        return _Element(value, value < 0, Span(start, end, self._input))

    # --- locations ------------------------------------------------------------------------
    def parse_optional_location(self) -> LocationAttr | None:
        """``loc(...)``, or None."""
        if self._kind is not BARE_IDENT or self._text[self.pos:self._end] != "loc":
            return None
        self._advance()
        self.parse_characters("(")
        loc = self._parse_location()
        self.parse_characters(")")
        return loc

    def _parse_location(self) -> LocationAttr:
        if self.parse_optional_keyword("unknown"):
            return UnknownLoc()
        if (filename := self.parse_optional_str_literal()) is not None:
            if self._kind != ":":
                nested: Attribute
                if self._kind == "(":
                    self._advance()
                    nested = self._parse_location()
                    self.parse_characters(")")
                else:
                    nested = NoneAttr()
                return NameLoc(StringAttr(filename), nested)
            self._advance()
            line = self.parse_integer(False, False)
            self.parse_punctuation(":")
            col = self.parse_integer(False, False)
            return FileLineColLoc(
                StringAttr(filename), IntAttr(line), IntAttr(col))
        if self._kind is HASH_IDENT:
            attr = self.parse_attribute()
            if isinstance(attr, LocationAttr):
                return attr
            self.raise_error("Expected location alias.")
        if (identifier := self.parse_optional_identifier()) is not None:
            if identifier == "callsite":
                self.parse_characters("(")
                callee = self._parse_location()
                self.parse_identifier("at")
                caller = self._parse_location()
                loc = CallSiteLoc(callee, caller)
                self.parse_characters(")")
                return loc
            if identifier == "fused":
                locs = self.parse_comma_separated_list(self.Delimiter.SQUARE,
                                                       self._parse_location)
                return FusedLoc(tuple(locs), NoneAttr())
            self.raise_error("Unsupported location type.")
        self.raise_error("Unexpected location syntax.")


class _Element:
    """One scalar of a dense literal before its element type is known."""

    __slots__ = ("is_negative", "span", "value")

    def __init__(self, value: int | float | bool, is_negative: bool, span: Span) -> None:
        self.value = value
        self.is_negative = is_negative
        self.span = span

    def to_type(self, parser: AttrParser, type: Attribute) -> int | float:
        if isinstance(type, _FLOAT_CLASSES):
            return float(self.value)
        if isinstance(type, IntegerType):
            unsigned = type.signedness.data == Signedness.UNSIGNED
            if self.is_negative and unsigned:
                parser.raise_error("Expected non-negative integer values", self.span)
            if isinstance(self.value, bool) and type.width.data != 1:
                parser.raise_error("Boolean values are only allowed for i1 types", self.span)
        elif isinstance(self.value, bool):
            parser.raise_error("Boolean values are only allowed for i1 types", self.span)
        if not isinstance(self.value, int):
            parser.raise_error("Expected integer value", self.span)
        return int(self.value)


def _float_from_bits(bits: int, type: Any) -> float:
    """The float whose bit pattern is ``bits`` (``0x7F800000 : f32``)."""
    return next(iter(type.iter_unpack(bits.to_bytes(type.compile_time_size, "little"))))


class Parser(AttrParser):
    """Operations, blocks and regions (and everything `AttrParser` parses).

    ``ssa_values`` maps a value name (without ``%``) to the values it defines (a tuple:
    ``%x:2 = ...`` defines two); names are scoped by region. A use before the definition
    creates a `ForwardDeclaredValue` that the definition replaces."""

    ssa_values: dict[str, tuple[SSAValue, ...]]
    blocks: dict[str, tuple[Block, Span | None]]
    forward_block_references: dict[str, list[Span]]
    forward_ssa_references: dict[str, dict[int, SSAValue]]
    dialect_stack: list[str]
    """Dialects whose ops may be named without their prefix (the op being parsed first)."""

    def __init__(self, ctx: Context, input: str | bytes, name: str = "<unknown>") -> None:
        super().__init__(ctx, input, name)
        self.ssa_values = {}
        self.blocks = {}
        self.forward_block_references = defaultdict(list)
        self.forward_ssa_references = {}
        self.dialect_stack = ["builtin"]
        self._dialect_names: dict[type[Operation], str] = {}

    # --- module ---------------------------------------------------------------------------
    def parse_module(self, allow_implicit_module: bool = True) -> ModuleOp:
        """The whole input: one ``builtin.module``, or top-level ops (and ``#`` / ``!``
        alias definitions) that are wrapped in one."""
        if not allow_implicit_module:
            op = self.parse_optional_operation()
            if op is None:
                self.raise_error("Could not parse entire input!")
            if not isinstance(op, ModuleOp):
                self._resume_from(0)
                self.raise_error("builtin.module operation expected", 0)
            module = op
        else:
            ops: list[Operation] = []
            while self._kind is not EOF:
                if self._kind is HASH_IDENT or self._kind is EXCLAMATION_IDENT:
                    self._parse_alias_def()
                    continue
                if self._kind == "{-#":
                    self.raise_error("file metadata dictionaries are not supported")
                if (op := self.parse_optional_operation()) is not None:
                    ops.append(op)
                    continue
                self.raise_error("Could not parse entire input!")
            if not ops:
                self.raise_error("Could not parse entire input!")
            module = ops[0] if len(ops) == 1 and isinstance(ops[0], ModuleOp) \
                else ModuleOp(ops)
        if self.forward_ssa_references:
            names = ", ".join("%" + name for name in self.forward_ssa_references)
            self.raise_error(f"values used but not defined: [{names}]")
        return module

    def _parse_alias_def(self) -> None:
        """``#name = attribute`` or ``!name = type``."""
        if self._kind is not HASH_IDENT and self._kind is not EXCLAMATION_IDENT:
            self.raise_error("expected attribute name")
        name = self._text[self.pos:self._end]
        self._advance()
        if name in self.attribute_aliases:
            self.raise_error(f"re-declaration of alias '{name}'")
        self.parse_punctuation("=", "after attribute alias name")
        self.attribute_aliases[name] = self.parse_attribute()

    # --- operations -----------------------------------------------------------------------
    def parse_optional_operation(self) -> Operation | None:
        kind = self._kind
        if kind is not PERCENT_IDENT and kind is not BARE_IDENT and kind is not STRING_LIT:
            return None
        return self.parse_operation()

    def parse_op(self) -> Operation:
        return self.parse_operation()

    def parse_operation(self) -> Operation:
        """One op: results (``%a, %b:2 =``) then the custom form (``dialect.op ...``,
        the class's ``parse``) or the generic form (``"dialect.op"(...) ... : type``)."""
        op_start, op_end = self.pos, self._end
        results = self._parse_op_result_list() if self._kind is PERCENT_IDENT else None
        stack = self.dialect_stack
        if self._kind is BARE_IDENT:
            name = self._text[self.pos:self._end]
            self._advance()
            op_type = self._get_op_by_name(name)
            dialect = self._dialect_names.get(op_type)
            if dialect is None:
                dialect = self._dialect_names[op_type] = op_type.dialect_name()
            stack.append(dialect)
            op = op_type.parse(self)
            stack.pop()
            if self._kind is BARE_IDENT and self._text[self.pos:self._end] == "loc" \
                    and (loc := self.parse_optional_location()) is not None:
                op.location = loc
        else:
            name = self.expect(self.parse_optional_str_literal, "operation name expected")
            op_type = self._get_op_by_name(name)
            stack.append(op_type.dialect_name())
            op = self._parse_generic_operation(op_type)
            stack.pop()
        if results is not None:
            self._bind_results(op, results, op_start, op_end)
        return op

    def _bind_results(self, op: Operation, results: list[tuple[int, int, int]],
                      op_start: int, op_end: int) -> None:
        values = op.results
        count = sum(r[2] for r in results)
        if count != 0 and len(values) != count:
            self.raise_error(f"Operation has {len(values)} results, but was given {count} "
                             "to bind.", Span(op_start, op_end, self._input))
        i = 0
        text = self._text
        for start, end, size in results:
            self._register_ssa_definition(text[start + 1:end], values[i:i + size],
                                          (start, end))
            i += size

    def _get_op_by_name(self, name: str) -> type[Operation]:
        """The op class the context registers under ``name`` (or under a dialect of the
        dialect stack + ``name``); an error if there is none."""
        op_type = self.ctx.get_optional_op(name, dialect_stack=self.dialect_stack)
        if op_type is None:
            self.raise_error(f"Operation {name} is not registered")
        return op_type

    def _parse_op_result_list(self) -> list[tuple[int, int, int]]:
        """``%a, %b:2 =`` as (start, end, size) per name."""
        results = [self._parse_op_result()]
        while self._kind == ",":
            self._advance()
            results.append(self._parse_op_result())
        self.parse_punctuation("=", " after operation result list")
        return results

    def _parse_op_result(self) -> tuple[int, int, int]:
        if self._kind is not PERCENT_IDENT:
            self.raise_error("Expected result SSA value!")
        start, end = self.pos, self._end
        self._advance()
        if self._kind != ":":
            return start, end, 1
        self._advance()
        if self._kind is not INTEGER_LIT:
            self.raise_error("Expected SSA value tuple size")
        size = _int_value(self._text[self.pos:self._end])
        self._advance()
        return start, end, size

    def _parse_generic_operation(self, op_type: type[Operation]) -> Operation:
        """``(%a, %b) [^succ] <{props}> ({regions}) {attrs} : (types) -> types loc(...)``"""
        args = self.parse_op_args_list()
        successors = self.parse_optional_successors() or []
        properties = self.parse_optional_properties_dict()
        regions = self.parse_region_list()
        attributes = self.parse_optional_attr_dict()
        self.parse_punctuation(":", "function type signature expected")
        func_type_pos = self.pos
        func_type = self.parse_function_type()
        location = self.parse_optional_location()
        operands = self.resolve_operands(args, func_type.inputs.data, func_type_pos)
        # properties may also be written in the attribute dictionary
        irdl = IRDLOperation
        if irdl is not None and issubclass(op_type, irdl):
            for prop in op_type.get_irdl_definition().properties:
                if prop in attributes and prop not in properties:
                    properties[prop] = attributes.pop(prop)
        return op_type.create(
            operands=operands, result_types=func_type.outputs.data, properties=properties,
            attributes=attributes, location=location, successors=successors,
            regions=regions)

    def parse_op_args_list(self) -> list[UnresolvedOperand]:
        """``(%a, %b#1, ...)``."""
        return self.parse_comma_separated_list(self.Delimiter.PAREN,
                                               self.parse_unresolved_operand,
                                               " in operation argument list")

    def parse_optional_attr_dict(self) -> dict[str, Attribute]:
        return self.parse_optional_dictionary_attr_dict()

    def parse_optional_properties_dict(self) -> dict[str, Attribute]:
        """``<{name = attr, ...}>`` as a dict; empty if there is no ``<``."""
        if self._kind != "<":
            return {}
        self._advance()
        entries = self.parse_comma_separated_list(self.Delimiter.BRACES,
                                                  self._parse_attribute_entry)
        self.parse_punctuation(">")
        if (key := self._find_duplicated_key(entries)) is not None:
            self.raise_error(f"Duplicate key '{key}' in properties dictionary")
        return dict(entries)

    def parse_optional_attr_dict_with_keyword(
            self, reserved_attr_names: Iterable[str] = ()) -> Attribute | None:
        """``attributes {...}`` (custom op syntax), or None without the keyword."""
        if self.parse_optional_keyword("attributes") is None:
            return None
        return self.parse_optional_attr_dict_with_reserved_attr_names(reserved_attr_names)

    def parse_optional_attr_dict_with_reserved_attr_names(
            self, reserved_attr_names: Iterable[str] = ()) -> Attribute | None:
        begin = self._end   # (xDSL reports the lexer's position: after the `{`)
        attr = self._parse_builtin_dict_attr()
        for name in reserved_attr_names:
            if name in attr.data:
                self.raise_error(f"Attribute dictionary entry '{name}' is already passed "
                                 "through the operation custom assembly format.",
                                 Span(begin, begin, self._input))
        return attr

    # --- operands -------------------------------------------------------------------------
    def parse_optional_unresolved_operand(self) -> UnresolvedOperand | None:
        """``%name`` or ``%name#index``, or None."""
        if self._kind is not PERCENT_IDENT:
            return None
        start, end = self.pos, self._end
        self._advance()
        index = 0
        if self._kind is HASH_IDENT:
            digits = self._text[self.pos + 1:self._end]
            if _DECIMAL.fullmatch(digits) is None:
                self.raise_error("Expected integer as SSA value tuple index")
            index = int(digits, 10)
            self._advance()
        return UnresolvedOperand._at(self._input, start, end, index)

    def parse_unresolved_operand(self, msg: str = "operand expected") -> UnresolvedOperand:
        operand = self.parse_optional_unresolved_operand()
        if operand is None:
            self.raise_error(msg)
        return operand

    def resolve_operand(self, operand: UnresolvedOperand, type: Attribute) -> SSAValue:
        """The value ``operand`` names, checked to have ``type``; a forward reference of
        that type if the name is not defined yet."""
        name = operand.operand_name
        values = self.ssa_values.get(name)
        if values is None:
            refs = self.forward_ssa_references.setdefault(name, {})
            resolved = refs.get(operand.index)
            if resolved is None:
                value = ForwardDeclaredValue(type)
                refs[operand.index] = value
                return value
        else:
            if operand.index >= len(values):
                self.raise_error(
                    "SSA value tuple index out of bounds. Tuple is of size "
                    f"{len(values)} but tried to access element {operand.index}.",
                    operand.span)
            resolved = values[operand.index]
        if resolved.type != type:
            self.raise_error(f"operand is used with type {type}, but has been previously used "
                             f"or defined with type {resolved.type}", operand.span)
        return resolved

    def resolve_operands(self, args: Sequence[UnresolvedOperand],
                         input_types: Sequence[Attribute], error_pos: int) -> list[SSAValue]:
        """`resolve_operand` pairwise; an error at ``error_pos`` if the counts differ."""
        length = len(list(input_types))
        if len(args) != length:
            self.raise_error(f"expected {length} operand types but had {len(args)}",
                             error_pos)
        return [self.resolve_operand(a, t) for a, t in zip(args, input_types)]

    def parse_optional_operand(self, type: Attribute | None = None) -> SSAValue | None:
        """``%x`` resolved with ``type`` (or, without one, an already defined value)."""
        operand = self.parse_optional_unresolved_operand()
        if operand is None:
            return None
        if type is not None:
            return self.resolve_operand(operand, type)
        return self._defined_value(operand)

    def parse_operand(self, type: Attribute | str | None = None, *,
                      msg: str = "Expected an operand.") -> SSAValue:
        if isinstance(type, str):
            msg, type = type, None
        operand = self.parse_unresolved_operand(msg)
        if type is not None:
            return self.resolve_operand(operand, type)
        return self._defined_value(operand)

    def _defined_value(self, operand: UnresolvedOperand) -> SSAValue:
        values = self.ssa_values.get(operand.operand_name)
        if values is None:
            self.raise_error("SSA value used before assignment", operand.span)
        if operand.index >= len(values):
            self.raise_error("SSA value tuple index out of bounds. Tuple is of size "
                             f"{len(values)} but tried to access element {operand.index}.",
                             operand.span)
        return values[operand.index]

    def _register_ssa_definition(self, name: str, values: Sequence[SSAValue],
                                 span: Span | tuple[int, int]) -> None:
        """Define ``%name`` (replacing its forward references)."""
        if name in self.ssa_values:
            self.raise_error(f"SSA value %{name} is already defined", self._span(span))
        self.ssa_values[name] = tuple(values)
        size = len(values)
        refs = self.forward_ssa_references.pop(name, None)
        if refs is not None:
            if any(index >= size for index in refs):
                self.raise_error(f"SSA value %{name} is referenced with an index larger than "
                                 "its size", self._span(span))
            for index, forward in refs.items():
                result = values[index]
                if forward.type != result.type:
                    shown = f"%{name}" if size == 1 else f"%{name}#{index}"
                    self.raise_error(f"Result {shown} is defined with type {result.type}, but "
                                     f"used with type {forward.type}", self._span(span))
                forward.replace_all_uses_with(result)
        if _VALUE_NAME.fullmatch(name) is not None:
            for value in values:
                value.name_hint = name

    def _span(self, span: Span | tuple[int, int]) -> Span:
        return span if isinstance(span, Span) else Span(span[0], span[1], self._input)

    # --- block arguments ------------------------------------------------------------------
    class UnresolvedArgument:
        """A block argument name (``%x``) whose type comes later."""

        __slots__ = ("name",)

        def __init__(self, name: Span) -> None:
            self.name = name

        def resolve(self, type: Attribute) -> Parser.Argument:
            return Parser.Argument(self.name, type)

    class Argument:
        """A block argument: its name span (with the ``%``), type and optional location."""

        __slots__ = ("location", "name", "type")

        def __init__(self, name: Span, type: Attribute, location: LocationAttr | None = None
                     ) -> None:
            self.name = name
            self.type = type
            self.location = location

    def parse_optional_argument(self, expect_type: bool = True) -> Any:
        """``%x: type`` (or just ``%x`` without ``expect_type``), or None."""
        if self._kind is not PERCENT_IDENT:
            return None
        span = self._token_span()
        self._advance()
        if expect_type:
            self.parse_punctuation(":", " after block argument name!")
            return self.Argument(span, self.parse_type())
        return self.UnresolvedArgument(span)

    def parse_argument(self, *, expect_type: bool = True) -> Any:
        arg = self.parse_optional_argument(expect_type)
        if arg is None:
            self.raise_error("Expected block argument!")
        return arg

    # --- regions and blocks ---------------------------------------------------------------
    def parse_optional_region(self, arguments: Iterable[Parser.Argument] | None = None
                              ) -> Region | None:
        """``{ ops ^bb1(%x: t): ops ... }``, or None. With ``arguments`` the entry block
        takes them and has no label."""
        if self._kind != "{":
            return None
        self._advance()
        region = Region()
        old_values = self.ssa_values.copy()
        old_blocks, old_forward = self.blocks, self.forward_block_references
        self.blocks = {}
        self.forward_block_references = defaultdict(list)
        if arguments is not None:
            arguments = list(arguments)
            if self._kind is CARET_IDENT:
                self.raise_error("invalid block name in region with named arguments")
            entry = Block(arg_types=[a.type for a in arguments])
            for block_arg, arg in zip(entry.args, arguments):
                self._register_ssa_definition(arg.name.text[1:], (block_arg,), arg.name)
                if arg.location is not None:
                    block_arg.location = arg.location
            self._parse_block_body(entry)
            region.add_block(entry)
        elif self._kind is not CARET_IDENT and self._kind != "}":
            block = Block()
            self._parse_block_body(block)
            region.add_block(block)
        while self._kind != "}":
            region.add_block(self._parse_block())
        self._advance()
        if self.forward_block_references:
            pos = self.pos
            names = ", ".join(self.forward_block_references)
            refs: list[tuple[Span, str | None]] = [
                (s, f'reference to block "{s.text}" without implementation')
                for spans in self.forward_block_references.values() for s in spans]
            raise MultipleSpansParseError(
                Span(pos, pos + 1, self._input),
                f"region ends with missing block declarations for block(s) {names}",
                "dangling block references:", refs)
        self.ssa_values = old_values
        self.blocks, self.forward_block_references = old_blocks, old_forward
        return region

    def parse_region(self, arguments: Iterable[Parser.Argument] | None = None) -> Region:
        region = self.parse_optional_region(arguments)
        if region is None:
            self.raise_error("Expected region!")
        return region

    def parse_region_list(self) -> list[Region]:
        """``({...}, {...})`` of the generic op form; empty without ``(``."""
        if self._kind != "(":
            return []
        return self.parse_comma_separated_list(self.Delimiter.PAREN, self.parse_region,
                                               " in operation region list")

    def _parse_block_body(self, block: Block) -> None:
        add = block.add_op
        while (op := self.parse_optional_operation()) is not None:
            add(op)

    def _parse_block(self) -> Block:
        """``^name(%a: t, ...): ops``."""
        if self._kind is not CARET_IDENT:
            self.raise_error(" in block definition")
        span = self._token_span()
        name = span.text[1:]
        self._advance()
        if name not in self.blocks:
            block = Block()
            self.blocks[name] = (block, span)
        else:
            block, first = self.blocks[name]
            if first is not None:
                raise MultipleSpansParseError(span, f"re-declaration of block '{name}'",
                                              "originally declared here:", [(first, None)])
            self.forward_block_references.pop(name)
        if not _is_default_block_name(name):
            block.name_hint = name
        self._parse_optional_block_arg_list(block)
        self.parse_punctuation(":")
        self._parse_block_body(block)
        return block

    def _parse_optional_block_arg_list(self, block: Block) -> Block | None:
        if self._kind != "(":
            return None

        def parse_argument() -> None:
            if self._kind is not PERCENT_IDENT:
                self.raise_error("block argument expected")
            span = self._token_span()
            self._advance()
            self.parse_punctuation(":")
            arg_type = self.parse_attribute()
            location = self.parse_optional_location()
            arg = block.insert_arg(arg_type, len(block.args), location)
            self._register_ssa_definition(span.text[1:], (arg,), span)

        self.parse_comma_separated_list(self.Delimiter.PAREN, parse_argument)
        return block

    # --- successors -----------------------------------------------------------------------
    def parse_optional_successor(self) -> Block | None:
        if self._kind is not CARET_IDENT:
            return None
        span = self._token_span()
        name = span.text[1:]
        self._advance()
        if name not in self.blocks:
            self.forward_block_references[name].append(span)
            block = Block()
            if not _is_default_block_name(name):
                block.name_hint = name
            self.blocks[name] = (block, None)
        return self.blocks[name][0]

    def parse_successor(self) -> Block:
        return self.expect(self.parse_optional_successor, "successor expected")

    def parse_optional_successors(self) -> list[Block] | None:
        if self._kind != "[":
            return None
        return self.parse_successors()

    def parse_successors(self) -> list[Block]:
        return self.parse_comma_separated_list(
            self.Delimiter.SQUARE, lambda: self.expect(self.parse_successor, "block-id expected"))


def _is_default_block_name(name: str) -> bool:
    """``bb`` and digits: such names are not kept as name hints."""
    return name.startswith("bb") and name[2:].isdigit()
