"""ptosim.mlir.lexer: token kinds and boundaries, string literals, errors, linear time."""

from __future__ import annotations

import pytest

from mlir_helpers import parse_error
from ptosim.mlir.exceptions import ParseError
from ptosim.mlir.lexer import (
    BYTES_LIT,
    EOF,
    STRING_LIT,
    kind_name,
    string_bytes,
    string_value,
    tokenize,
)


def toks(text: str) -> list[tuple[str, str]]:
    return [(kind_name(t.kind), t.text) for t in tokenize(text)][:-1]


def test_identifiers_and_values():
    assert toks("%c0 = arith.constant 0 : i64") == [
        ("PERCENT_IDENT", "%c0"), ("EQUAL", "="), ("BARE_IDENT", "arith.constant"),
        ("INTEGER_LIT", "0"), ("COLON", ":"), ("BARE_IDENT", "i64")]


def test_prefixed_identifiers():
    assert toks('%r#1 ^bb0 @main @"a b" #pto.kind !pto.ptr %0 %-x') == [
        ("PERCENT_IDENT", "%r"), ("HASH_IDENT", "#1"), ("CARET_IDENT", "^bb0"),
        ("AT_IDENT", "@main"), ("AT_IDENT", '@"a b"'), ("HASH_IDENT", "#pto.kind"),
        ("EXCLAMATION_IDENT", "!pto.ptr"), ("PERCENT_IDENT", "%0"), ("PERCENT_IDENT", "%-x")]
    # a numeric suffix stops at the first non-digit, as in MLIR
    assert toks("%1abc") == [("PERCENT_IDENT", "%1"), ("BARE_IDENT", "abc")]
    assert toks("a$b.c_d") == [("BARE_IDENT", "a$b.c_d")]


def test_punctuation():
    assert [k for k, _ in toks("-> : , ... = > { ( [ < - + ? / } ) ] * | {-# #-}")] == [
        "ARROW", "COLON", "COMMA", "ELLIPSIS", "EQUAL", "GREATER", "L_BRACE", "L_PAREN",
        "L_SQUARE", "LESS", "MINUS", "PLUS", "QUESTION", "SLASH", "R_BRACE", "R_PAREN",
        "R_SQUARE", "STAR", "VERTICAL_BAR", "FILE_METADATA_BEGIN", "FILE_METADATA_END"]
    assert toks("->-") == [("ARROW", "->"), ("MINUS", "-")]


def test_numbers():
    assert toks("42 0x1F 1.5 1. 1.e5 2.5e-3 1e5 0xg 0X1 -7") == [
        ("INTEGER_LIT", "42"), ("INTEGER_LIT", "0x1F"), ("FLOAT_LIT", "1.5"),
        ("FLOAT_LIT", "1."), ("FLOAT_LIT", "1.e5"), ("FLOAT_LIT", "2.5e-3"),
        ("INTEGER_LIT", "1"), ("BARE_IDENT", "e5"), ("INTEGER_LIT", "0"),
        ("BARE_IDENT", "xg"), ("INTEGER_LIT", "0"), ("BARE_IDENT", "X1"),
        ("MINUS", "-"), ("INTEGER_LIT", "7")]


def test_shapes_are_split_by_the_parser_not_the_lexer():
    assert toks("4x8xf32") == [("INTEGER_LIT", "4"), ("BARE_IDENT", "x8xf32")]


def test_comments_and_whitespace():
    assert toks("a // comment ( \n b\t\v\f\r//x") == [("BARE_IDENT", "a"), ("BARE_IDENT", "b")]
    tokens = tokenize("  x  ")
    assert tokens[-1].kind == EOF
    assert (tokens[-1].span.start, tokens[-1].span.end) == (5, 6)   # xDSL's EOF span


def test_string_literals():
    (tok,) = tokenize('"a\\n\\t\\\\\\"\\41"')[:-1]
    assert tok.kind == STRING_LIT
    assert string_value(tok.text) == 'a\n\t\\"A'
    assert string_value('"plain é"') == "plain é"
    # escapes that make non-ASCII bytes: a bytes literal
    (tok,) = tokenize('"\\ff\\00"')[:-1]
    assert tok.kind == BYTES_LIT
    assert string_bytes(tok.text) == b"\xff\x00"
    assert tokenize('"\\c3\\a9"')[0].kind == BYTES_LIT
    assert tokenize('"é\\n"')[0].kind == BYTES_LIT


def test_non_ascii_letters_and_digits():
    assert toks("é1 x") == [("BARE_IDENT", "é1"), ("BARE_IDENT", "x")]
    assert toks("٣") == [("INTEGER_LIT", "٣")]


@pytest.mark.parametrize(("text", "start", "msg"), [
    ('x "abc', 2, "End of file reached before closing string literal."),
    ('"a\\q"', 0, "End of file reached before closing string literal."),
    ('"a\nb"', 0, "End of file reached before closing string literal."),
    ("a . b", 2, "Expected three consecutive '.' for an ellipsis"),
    ("a ..", 2, "Expected three consecutive '.' for an ellipsis"),
    ("%", 0, "Expected suffix identifier after {first_char}"),
    ("# x", 0, "Expected suffix identifier after {first_char}"),
    ("@", 0, "Unexpected end of file after @."),
    ("@1", 0, "@ identifier expected to start with letter, '_', or '\"'."),
    ('@"ab', 1, "End of file reached before closing string literal."),
    ("a $", 2, "Unexpected character: $"),
    ("\xa0", 0, "Unexpected character: \xa0"),
])
def test_errors(text: str, start: int, msg: str):
    assert parse_error(lambda: tokenize(text)) == (start, msg)


def test_malformed_input_fails_cleanly():
    # nested quantifiers over these inputs backtrack exponentially (xDSL's string pattern);
    # possessive ones fail at once (speed: benchmarks/bench_parse.py, not a timed test)
    cases = ['"' + "a\\n" * 50_000, '"' + "ab" * 100_000 + "\\", " \n" * 100_000 + "$",
             "// x\n" * 50_000 + "."]
    for text in cases:
        with pytest.raises(ParseError):
            tokenize(text)
