"""ptosim.mlir's lexer and parser against xDSL 0.74's (the reference while it is installed):
same tokens, same parse errors (position and message), same printed modules. xDSL comes
with the dev extra; without it these tests fail rather than skip."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from xdsl.utils.exceptions import ParseError as XParseError
from xdsl.utils.lexer import Input as XInput
from xdsl.utils.mlir_lexer import MLIRLexer as XLexer

from mlir_helpers import OURS, any_op, framework, std_context
from ptosim.mlir import lexer as mlexer
from ptosim.mlir.exceptions import ParseError

XDSL = framework("xdsl")
XCTX, MCTX = (std_context(fw, fw.ir.Dialect("test", [any_op(fw, "test.any")], []))
              for fw in (XDSL, OURS))


# --- the lexer ------------------------------------------------------------------------------
def _tokens(lex: Callable[[], Any], errors: type[Exception]) -> list[tuple]:
    out: list[tuple] = []
    try:
        while True:
            t = lex()
            kind = t.kind if isinstance(t.kind, str) else (
                t.kind.value if isinstance(t.kind.value, str) else t.kind.name)
            out.append((kind, t.span.start, t.span.end))
            if kind == "EOF":
                return out
    except errors as err:
        out.append(("error", err.span.start, err.span.end, err.msg))  # type: ignore[attr-defined]
        return out


def _lex_both(text: str) -> tuple[list[tuple], list[tuple]]:
    x = XLexer(XInput(text, "f"))
    m = mlexer.MLIRLexer(mlexer.Input(text, "f"))
    return _tokens(x.lex, XParseError), _tokens(m.lex, ParseError)


def test_lexer_matches_xdsl_on_random_text():
    rnd = random.Random(7)
    alphabet = 'aé0x1.-"\\%#!^@{}()<>[]:=,?* \n/e+_$f'
    for _ in range(3000):
        text = "".join(rnd.choice(alphabet) for _ in range(rnd.randint(1, 14)))
        x, m = _lex_both(text)
        assert x == m, text


@pytest.mark.parametrize("text", [
    '"abc\\n\\00\\ff"', '"\\c3\\a9"', '"é"', '@"x y"', '@é1', "0x1f", "1.e5", "%1abc",
    "a$b.c", "٣.5e3", "x²", "{-# #-}", "#-}", "->-", "\xa0", "//c\n x // y",
])
def test_lexer_matches_xdsl_on_corner_cases(text: str):
    x, m = _lex_both(text)
    assert x == m


# --- parsing --------------------------------------------------------------------------------
def _run(cls: type, ctx: Any, text: str, method: str) -> tuple:
    try:
        result = getattr(cls(ctx, text, "t.pto"), method)()
        return ("ok", str(result))
    except (XParseError, ParseError) as err:
        return ("error", err.span.start, err.msg)


GOOD_MODULES = [
    '''func.func @kernel(%a: i64, %n: index, %f: f32) -> i64 attributes {pto.aicore} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %h = arith.constant 0x7F80 : bf16
      %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %a) -> (i64) {
        %x = arith.addi %acc, %a : i64
        %y = arith.index_cast %i : index to i64
        %z = arith.muli %x, %y : i64
        scf.yield %z : i64
      }
      %t = arith.constant true
      scf.if %t {
        %g = arith.mulf %f, %f : f32
      }
      func.return %r : i64
    }''',
    '''module attributes {pto.target_arch = "a5", n = 3 : i8, l = [1, "a", @s::@t]} {
      %p:2 = "test.any"() <{p = dense<[1, 2]> : vector<2xi32>}> {q = array<i32: 1, -2>}
        : () -> (memref<4x?xf32, strided<[?, 1]>>, tensor<*xi8>)
      "test.any"(%p#1, %p#0) ({
        "test.any"(%later) : (i1) -> ()
        %later = "test.any"() : () -> i1
        "test.any"() [^bb1] : () -> ()
      ^bb1(%x: vector<[4]x8xf16>):
        "test.any"(%x) : (vector<[4]x8xf16>) -> ()
      }) : (tensor<*xi8>, memref<4x?xf32, strided<[?, 1]>>) -> () loc("t.pto":3:7)
      "test.any"() {u, s = "\\22q\\n", f = -1.5e-3 : f64, ty = (i32) -> (i1, none)} : () -> ()
    }''',
    '!t = i32\n#c = 7 : i32\n%x = "test.any"() {c = #c} : () -> !t\n'
    '"test.any"(%x) : (!t) -> ()',
]


BAD_MODULES = [
    '"test.any"(%y) : (i32) -> ()',
    '%x = "test.any"() : () -> i32\n%x = "test.any"() : () -> i32',
    '"test.any"(%x) : (i64) -> ()\n%x = "test.any"() : () -> i32',
    '%x = "test.any"() : () -> i32\n"test.any"(%x) : (i64) -> ()',
    '%x = "test.any"() : () -> i32\n"test.any"(%x#1) : (i32) -> ()',
    '"test.any"(%x#3) : (i32) -> ()\n%x:2 = "test.any"() : () -> (i32, i32)',
    '%a, %b = "test.any"() : () -> i32',
    '"test.nope"() : () -> ()',
    "test.nope",
    '"test.any"() : () -> !foo.x',
    '"test.any"() : () -> #foo.x',
    '"test.any"(%a) : () -> ()',
    '"test.any"() () -> ()',
    '"test.any"() : (i32 -> ()',
    "%x", "%x = 5", "%x:z = 1", "}", "", "   // only a comment\n",
    '"test.any"() ({ "test.any"() [^bb9] : () -> () }) : () -> ()',
    '"test.any"() ({ ^a: ^a: }) : () -> ()',
    '"test.any"() ({ "test.any"() : () -> () ^bb1: ^ }) : () -> ()',
    "!t = i32\n!t = i32",
    '"test.any"() ({ ^bb0(%a i32): }) : () -> ()',
    '"test.any"() ({ ^bb0(x): }) : () -> ()',
    '"test.any"() <{p = 1, p = 2}> : () -> ()',
    '"test.any"() {p = 1, p = 2} : () -> ()',
    '"test.any"() {p = } : () -> ()',
    '"test.any"() {p = 1 : i8 : i8} : () -> ()',
    '"test.any"() : () -> () loc(',
    '"test.any"() : () -> () loc("f":1)',
    'module {\n  func.func @f() {\n    %0 = arith.constant 1 : i32\n    "x 1',
    "module {\n  %0 = arith.constant 1 : i32\n  %1 = arith.addi %0, %0 : i64\n}",
    "module {\n  %0 = arith.constant 1 : i32\n  %1 = arith.addi %0 %0 : i32\n}",
    "module {\n  %0 = arith.constant 1 : i32\n  %1 = arith.addi %0, %9 : i32\n}",
    "module {\n  %0 = arith.constant 1 : i32\n  $\n}",
    "module {\n  %0 = arith.constant 1 : i32\n  %1 = arith.constant . : i32\n}",
    "module {\n  %0 = arith.constant 1 : i32\n  %1 = arith.constant @ : i32\n}",
    "module {\n  %0 = arith.constant 1 : memref<4xi32\n}",
    "module {\n  %0 = arith.constant 1 : vector<4x?xi32>\n}",
    "module {\n  %0 = arith.constant dense<[1, 2, 3]> : vector<2xi32>\n}",
    "module {\n  %0 = arith.constant -x : i32\n}",
    "module {\n  %0 = arith.constant 1.5 : i32\n}",
    "module {\n  func.func @f(%a: i32) -> i32 {\n    func.return %a : i32\n  }\n  %x = 1\n}",
    "module { scf.for %i = %a to %b step %c {\n} }",
    "func.func @f(%a: i32 {\n}",
    "func.func @f() -> (i32 {\n}",
]


BAD_ATTRIBUTES = [
    "-x", "1.5 : i32", "1 : none", "{a = 1, a = 2}", "{1}", "[1, 2", "[1 2]",
    "dense<[1, 2]> : vector<3xi32>", "dense<[1, [2]]> : vector<2xi32>",
    "dense<[1, x]> : vector<2xi32>", "dense<-1> : vector<2xui8>", "dense<1> : i32",
    "dense<1> : tensor<?xi32>", "dense<true> : tensor<2xi8>", "dense<1.5> : tensor<2xi8>",
    "dense<> : tensor<2xi8>", 'dense<"0xZZ"> : tensor<2xi8>', 'dense<"0x0102"> : tensor<3xi8>',
    "array<i8: 300>", "array<index: 1>", "array<i8 1>", "array<f32: 1>",
    "#foo.bar", "#a", "loc(what)", "loc(", "@a::", "@a::@", "strided<[1, x]>",
    "strided<[1], off: 2>", "strided<[1], offset 2>", "strided<[1]", "1 : vector<2xf32>",
]
BAD_TYPES = [
    "vector<?xf32>", "vector<[?]xf32>", "vector<[x]xf32>", "vector<4>", "memref<4xq>",
    "memref<4f32>", "memref<4x>", "memref<4xf32, 1, 2>", "tensor<*xf32, 1>", "vector<4xf32",
    "(i32 -> i32", "(i32)", "(i32) ->", "!foo.bar<1>", "!t", "tuple<i32,>", "i", "x",
    "memref<*f32>", "tensor<4x?>",
]


GOOD_ATTRIBUTES = [
    "1 : i32", "-5", "0x10 : index", "true", "1.5", "-2.5e1 : f32", "0x7F800000 : f32",
    "0xFC00 : f16", '"a\\n\\22"', '[1, "x", [], i32]', '{a = 1 : i32, b, "c d" = unit}',
    '@a::@b::@"c d"', "loc(unknown)", 'loc("f.pto":3:4)', "dense<[1, 2, 3]> : vector<3xi32>",
    "dense<1.5> : tensor<2x2xf32>", "dense<[[1, 2], [3, 4]]> : tensor<2x2xi8>",
    'dense<"0x01000000"> : tensor<2xi32>', "array<i32: 1, -2>", "array<f32: 1.5>",
    "array<i8>", "strided<[1, ?], offset: ?>", "memref<4xi8, 1 : i64>", "f8E4M3FN", "none",
]


@pytest.mark.parametrize(("method", "kind", "text"), [
    *(("parse_module", "ok", text) for text in GOOD_MODULES),
    *(("parse_module", "error", text) for text in BAD_MODULES),
    *(("parse_attribute", "error", text) for text in BAD_ATTRIBUTES),
    *(("parse_type", "error", text) for text in BAD_TYPES),
    *(("parse_attribute", "ok", text) for text in GOOD_ATTRIBUTES),
])
def test_same_outcome_as_xdsl(method: str, kind: str, text: str):
    """xDSL's outcome is ``kind``; ours is the same (printed text, or offset and message)."""
    x, m = _run(XDSL.Parser, XCTX, text, method), _run(OURS.Parser, MCTX, text, method)
    assert x[0] == kind, x
    assert m == x
