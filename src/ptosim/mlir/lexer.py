"""MLIR tokens, found by one compiled regular expression.

`TOKEN_RE.match(text, pos)` skips white space and ``//`` comments and matches one token;
``m.lastindex`` indexes `KINDS`, the token's kind. Kinds are plain strings: the
identifier and literal kinds below, and for punctuation its spelling (``"->"``, ``":"``
...). A token is only ``(kind, start, end)``: no objects on the hot path, and line and
column are computed only when an error is reported (`Span.get_location`).

Token boundaries follow xDSL's MLIR lexer (``xdsl.utils.mlir_lexer``), including its
quirks that kernels can hit: ``0x`` starts a hexadecimal literal only when a hex digit
follows, ``1.`` is a float, ``%1abc`` is ``%1`` then ``abc``, a non-ASCII letter is a
one-letter bare identifier. All patterns are possessive, so a malformed token (an
unterminated string literal, a long run of white space before a bad character) fails in
linear time.
"""

from __future__ import annotations

import re

from .exceptions import Input, ParseError, Span

# --- token kinds ---------------------------------------------------------------------------
EOF = "EOF"
BARE_IDENT = "BARE_IDENT"          # foo, foo.bar, i32
AT_IDENT = "AT_IDENT"              # @foo, @"foo bar"
HASH_IDENT = "HASH_IDENT"          # #foo, #0
PERCENT_IDENT = "PERCENT_IDENT"    # %foo, %0
CARET_IDENT = "CARET_IDENT"        # ^bb0
EXCLAMATION_IDENT = "EXCLAMATION_IDENT"  # !foo
FLOAT_LIT = "FLOAT_LIT"
INTEGER_LIT = "INTEGER_LIT"
STRING_LIT = "STRING_LIT"          # a literal whose contents are UTF-8 text
BYTES_LIT = "BYTES_LIT"            # a literal with escapes that make it non-ASCII bytes

# punctuation kinds are their spelling; the names are xDSL's (error messages show them)
PUNCTUATION: dict[str, str] = {
    "->": "ARROW", ":": "COLON", ",": "COMMA", "...": "ELLIPSIS", "=": "EQUAL",
    ">": "GREATER", "{": "L_BRACE", "(": "L_PAREN", "[": "L_SQUARE", "<": "LESS",
    "-": "MINUS", "+": "PLUS", "?": "QUESTION", "/": "SLASH", "}": "R_BRACE",
    ")": "R_PAREN", "]": "R_SQUARE", "*": "STAR", "|": "VERTICAL_BAR",
    "{-#": "FILE_METADATA_BEGIN", "#-}": "FILE_METADATA_END",
}


def kind_name(kind: str) -> str:
    """The kind's name as xDSL spells it (``BARE_IDENT``, ``R_PAREN`` ...)."""
    return PUNCTUATION.get(kind, kind)


# --- the regular expression ----------------------------------------------------------------
_SUFFIX = r"(?:[0-9]++|[A-Za-z$._-][A-Za-z0-9$._-]*+)"
# the body of a string literal: escapes are \n \t \\ \" and two hex digits
_STRING = r'"(?:[^"\\\n\v\f]++|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*+"'
_WHITESPACE = r"(?:[ \t\n\r\f\v]++|//[^\n]*+)*+"
_ESCAPED = "ESCAPED"   # a string literal with escapes: STRING_LIT or BYTES_LIT, see `lex_at`

# Alternatives in order of frequency where the order does not matter; where it does:
# `{-#` before `{`, `#-}` before `#`-identifiers, hex before float before integer, `->`
# before `-`.
_ALTERNATIVES: tuple[tuple[str, str], ...] = (
    (PERCENT_IDENT, "%" + _SUFFIX),
    (BARE_IDENT, r"[A-Za-z_][A-Za-z0-9_$.]*+"),
    (",", ","), (":", ":"), ("=", "="), ("(", r"\("), (")", r"\)"), ("<", "<"), (">", ">"),
    ("{-#", r"\{-\#"), ("{", r"\{"), ("}", r"\}"),
    (EXCLAMATION_IDENT, "!" + _SUFFIX),
    ("#-}", r"\#-\}"), (HASH_IDENT, r"\#" + _SUFFIX),
    (INTEGER_LIT, r"0x[0-9a-fA-F]++"),
    (FLOAT_LIT, r"[0-9]++\.[0-9]*+(?:[eE][+-]?[0-9]++)?"),
    (INTEGER_LIT, r"[0-9]++"),
    ("->", "->"), ("-", "-"), ("[", r"\["), ("]", r"\]"),
    (STRING_LIT, r'"[^"\\\n\v\f]*+"'), (_ESCAPED, _STRING),
    (AT_IDENT, r"@[A-Za-z_][A-Za-z0-9_$.]*+"), (AT_IDENT, "@" + _STRING),
    (CARET_IDENT, r"\^" + _SUFFIX),
    ("?", r"\?"), ("*", r"\*"), ("...", r"\.\.\."), ("+", r"\+"), ("/", "/"), ("|", r"\|"),
    (EOF, r"\Z"),
)
TOKEN_RE = re.compile(
    _WHITESPACE + "(?:" + "|".join(f"({pattern})" for _, pattern in _ALTERNATIVES) + ")")
# by group index; None where the token needs a second look (`lex_at`)
KINDS: tuple[str | None, ...] = (None, *(None if k == _ESCAPED else k for k, _ in _ALTERNATIVES))

# slow paths: compiled on first use (`re.compile` caches), not at import
_BARE_SUFFIX = r"[A-Za-z0-9_$.]*"
_NUMBER_TAIL = r"[0-9]*(\.[0-9]*(?:[eE][+-]?[0-9]+)?)?"
_ESCAPE = r'\\(?:(["nt\\])|([0-9A-Fa-f]{2}))'
_ESCAPES = {"n": "\n", "t": "\t", "\\": "\\", '"': '"'}


def lex_at(input: Input, pos: int) -> tuple[str, int, int]:
    """The token at or after ``pos`` (white space and comments skipped): its kind, start
    and end. Raises `ParseError` where xDSL's lexer does, with the same span and message."""
    text = input.content
    m = TOKEN_RE.match(text, pos)
    if m is not None:
        i = m.lastindex
        assert i is not None
        kind = KINDS[i]
        if kind is None:   # a string literal with escapes
            kind = string_kind(m.group(i))
        elif kind is EOF:  # xDSL's end-of-file token is one character long
            return EOF, m.end(), m.end() + 1
        return kind, m.start(i), m.end()
    return _lex_unusual(input, re.compile(_WHITESPACE).match(text, pos).end())  # type: ignore[union-attr]


def _lex_unusual(input: Input, start: int) -> tuple[str, int, int]:
    """What the regular expression does not match: a token starting with a non-ASCII
    letter or digit (xDSL tests ``str.isalpha`` / ``str.isnumeric``), or an error."""
    text = input.content
    c = text[start]
    if c.isalpha():
        return BARE_IDENT, start, re.compile(_BARE_SUFFIX).match(text, start + 1).end()  # type: ignore[union-attr]
    if c.isnumeric():
        m = re.compile(_NUMBER_TAIL).match(text, start + 1)
        assert m is not None
        return (FLOAT_LIT if m.group(1) else INTEGER_LIT), start, m.end()
    if c == "@":
        if start + 1 >= len(text):
            raise ParseError(Span(start, start + 1, input), "Unexpected end of file after @.")
        nxt = text[start + 1]
        if nxt.isalpha():
            return AT_IDENT, start, re.compile(_BARE_SUFFIX).match(text, start + 2).end()  # type: ignore[union-attr]
        if nxt == '"':
            raise ParseError(Span(start + 1, start + 2, input),
                             "End of file reached before closing string literal.")
        raise ParseError(Span(start, start + 2, input),
                         "@ identifier expected to start with letter, '_', or '\"'.")
    if c in "#!^%":
        # (xDSL's message names no character: its f-string prefix is missing)
        raise ParseError(Span(start, start + 1, input),
                         "Expected suffix identifier after {first_char}")
    if c == '"':
        raise ParseError(Span(start, start + 1, input),
                         "End of file reached before closing string literal.")
    if c == ".":
        raise ParseError(Span(start, start + 1, input),
                         "Expected three consecutive '.' for an ellipsis")
    raise ParseError(Span(start, start + 1, input), f"Unexpected character: {c}")


def string_kind(literal: str) -> str:
    """STRING_LIT, or BYTES_LIT for a literal whose escapes make it non-ASCII."""
    if "\\" not in literal:
        return STRING_LIT
    return STRING_LIT if string_bytes(literal).isascii() else BYTES_LIT


def string_bytes(literal: str) -> bytes:
    """The bytes a string literal (quotes included, escapes valid) stands for."""
    out = bytearray()
    body = literal[1:-1]
    last = 0
    for m in re.compile(_ESCAPE).finditer(body):
        out += body[last:m.start()].encode()
        simple = m.group(1)
        out += _ESCAPES[simple].encode() if simple else bytes((int(m.group(2), 16),))
        last = m.end()
    out += body[last:].encode()
    return bytes(out)


def string_value(literal: str) -> str:
    """The text a STRING_LIT token (quotes included) stands for."""
    if "\\" not in literal:
        return literal[1:-1]
    return string_bytes(literal).decode()


class Token:
    """A token of `MLIRLexer.lex` (the parser itself keeps tokens as plain tuples)."""

    __slots__ = ("kind", "span")

    def __init__(self, kind: str, span: Span) -> None:
        self.kind = kind
        self.span = span

    @property
    def text(self) -> str:
        return self.span.text

    def __repr__(self) -> str:
        return f"Token({kind_name(self.kind)}, {self.span!r})"


class MLIRLexer:
    """Token by token over an `Input`: ``lex()`` returns the next token and moves on."""

    __slots__ = ("input", "pos")

    def __init__(self, input: Input) -> None:
        self.input = input
        self.pos = 0

    def lex(self) -> Token:
        kind, start, end = lex_at(self.input, self.pos)
        self.pos = end
        return Token(kind, Span(start, end, self.input))


def tokenize(text: str, name: str = "<unknown>") -> list[Token]:
    """Every token of ``text``, the final EOF included."""
    lexer = MLIRLexer(Input(text, name))
    tokens = [lexer.lex()]
    while tokens[-1].kind != EOF:
        tokens.append(lexer.lex())
    return tokens
