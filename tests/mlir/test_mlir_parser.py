"""ptosim.mlir.parser and ptosim.mlir.context: types, attributes, ops, regions, errors,
the parser API custom ``parse`` methods use, and the subclass override points."""

from __future__ import annotations

import math

import pytest

from mlir_helpers import OURS, any_op, parse_error, std_context
from ptosim.mlir import arith, builtin, func, scf
from ptosim.mlir.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    FileLineColLoc,
    FloatAttr,
    FunctionType,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    Signedness,
    StringAttr,
    SymbolRefAttr,
    UnitAttr,
    UnknownLoc,
    VectorType,
    f32,
    f64,
    i1,
    i32,
    i64,
)
from ptosim.mlir.context import Context
from ptosim.mlir.exceptions import (
    AlreadyRegisteredConstructException,
    ParseError,
    UnregisteredConstructException,
)
from ptosim.mlir.ir import Dialect, Operation, ParametrizedAttribute, TypeAttribute
from ptosim.mlir.irdl import irdl_attr_definition
from ptosim.mlir.parser import AttrParser, ForwardDeclaredValue, Parser, UnresolvedOperand

AnyOp = any_op(OURS, "test.any")

BOX_PARSES: list[int] = []


@irdl_attr_definition
class BoxType(ParametrizedAttribute, TypeAttribute):
    """``!test.box`` or ``!test.box<N>``; records where each parse of its body starts."""

    name = "test.box"
    width: builtin.IntAttr

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> tuple[builtin.IntAttr]:
        BOX_PARSES.append(parser.pos)
        if parser.parse_optional_punctuation("<") is None:
            return (builtin.IntAttr(0),)
        width = parser.parse_integer()
        parser.parse_punctuation(">")
        return (builtin.IntAttr(width),)


CTX = std_context(OURS, Dialect("test", [AnyOp], [BoxType]))


def P(text: str, cls: type[Parser] = Parser) -> Parser:
    return cls(CTX, text, "t.pto")


def module(text: str) -> ModuleOp:
    return P(text).parse_module()


def error(text: str, method: str = "parse_module") -> tuple[int, str]:
    """The offset and message of the ParseError that parsing ``text`` with ``method`` raises."""
    return parse_error(getattr(P(text), method))


# --- context --------------------------------------------------------------------------------
def test_context_registration_and_lookup():
    ctx = Context()
    ctx.load_dialect(arith.Arith)
    assert ctx.get_optional_op("arith.addi") is arith.AddiOp
    assert ctx.get_op("addi", dialect_stack=["builtin", "arith"]) is arith.AddiOp
    assert ctx.get_optional_op("addi") is None
    assert ctx.get_optional_type("pto.ptr") is None
    assert ctx.get_optional_attr("pto.kind") is None
    with pytest.raises(AlreadyRegisteredConstructException):
        ctx.load_dialect(arith.Arith)
    with pytest.raises(AlreadyRegisteredConstructException):
        ctx.load_op(arith.AddiOp)
    with pytest.raises(UnregisteredConstructException, match=r"Operation x\.y is not registered"):
        ctx.get_op("x.y")
    with pytest.raises(UnregisteredConstructException):
        ctx.get_dialect("nope")
    assert ctx.get_dialect("arith") is arith.Arith
    clone = ctx.clone()
    clone.load_dialect(scf.Scf)
    assert ctx.get_optional_op("scf.for") is None and clone.get_optional_op("scf.for")


def test_registered_dialects_load_on_first_lookup():
    ctx = Context()
    loads = []
    ctx.register_dialect("scf", lambda: loads.append(1) or scf.Scf)  # type: ignore[func-returns-value]
    assert list(ctx.registered_dialect_names) == ["scf"] and not loads
    assert ctx.get_optional_op("scf.yield") is scf.YieldOp
    assert loads == [1] and list(ctx.loaded_dialects) == [scf.Scf]
    assert ctx.get_optional_op("scf.nothing") is None and loads == [1]


def test_context_lazy_hooks():
    """The override points ptosim's front end uses to build op classes on first use."""

    class Lazy(Context):
        def _get_known_op(self, name: str) -> type[Operation] | None:
            known = super()._get_known_op(name)
            if known is None and name == "test.late":
                known = type("LateOp", (AnyOp,), {"name": "test.late"})
                self._loaded_ops[name] = known
            return known

        def get_optional_type(self, name: str) -> type[TypeAttribute] | None:
            found = super().get_optional_type(name)
            if found is None and name == "test.i":
                self.load_attr_or_type(_IndexAlias)
                found = super().get_optional_type(name)
            return found

    class _IndexAlias(IndexType):
        __slots__ = ()
        name = "test.i"

        @classmethod
        def parse_parameters(cls, parser: AttrParser) -> list:
            return []

    ctx = Lazy()
    ctx.load_dialect(builtin.Builtin)
    op = Parser(ctx, '%x = "test.late"() : () -> !test.i', "t").parse_module().body.block.first_op
    assert op is not None and op.name == "test.late" and isinstance(op.results[0].type, _IndexAlias)


# --- types ----------------------------------------------------------------------------------
@pytest.mark.parametrize("text", [
    "i1", "i64", "si8", "ui16", "i0", "index", "f16", "bf16", "f32", "f64", "f80", "f128",
    "tf32", "f8E4M3FN", "f8E5M2", "f6E2M3FN", "f4E2M1FN", "none",
    "(i32, f32) -> i64", "() -> ()", "(i32) -> (i32, i64)", "(index) -> (() -> i1)",
    "vector<4xf32>", "vector<[4]x8xf32>", "vector<f32>",
    "memref<4x?xf32>", "memref<f32>", "memref<*xf32>", "memref<8x8xf32, strided<[17, 1]>>",
    "memref<4xf32, strided<[?], offset: ?>>", "memref<4xi8, 1 : i64>",
    "memref<4xi8, strided<[1], offset: 4>, 2 : i32>",
    "tensor<2x3xi8>", "tensor<*xf32>", "tensor<?x4xf32>", "tensor<0x4xf32>",
    "tuple<>", "tuple<i32, f32>",
])
def test_builtin_types_round_trip(text: str):
    p = P(text)
    t = p.parse_type()
    assert str(t) == text
    assert p._kind == "EOF"


def test_builtin_type_values():
    assert P("si8").parse_type() == IntegerType(8, Signedness.SIGNED)
    assert P("ui8").parse_type() == IntegerType(8, Signedness.UNSIGNED)
    assert P("index").parse_type() == IndexType()
    assert P("(i32) -> i64").parse_type() == FunctionType.from_lists([i32], [i64])
    v = P("vector<[4]x8xf32>").parse_type()
    assert isinstance(v, VectorType) and v.get_shape() == (4, 8)
    assert [s.value.data for s in v.scalable_dims] == [-1, 0]   # BoolAttr: i1 true / false
    m = P("memref<4x?xf32>").parse_type()
    assert isinstance(m, MemRefType) and m.get_shape() == (4, DYNAMIC_INDEX)
    # a hexadecimal dimension is `0` then `x...`
    assert P("memref<0x4xf32>").parse_type().get_shape() == (0, 4)  # type: ignore[attr-defined]


TYPE_ERRORS = [  # (text, offset, message)
    ("vector<?xf32>", 7, "Expected vector element type"),
    ("vector<[?]xf32>", 9, "Unexpected dynamic dimension!"),
    ("vector<[x]xf32>", 8, "Expected integer literal in shape dimension, got BARE_IDENT!"),
    ("memref<4xq>", 9, "Expected shape type."),
    ("memref<4f32>", 8, "Expected 'x' in shape delimiter, got f32"),
    ("memref<4x>", 9, "Expected shape type."),
    ("tensor<*xf32, 1>", 14, "Unranked tensors don't have an encoding!"),
    ("vector<4xf32", 12, "Expected '>' after builtin parameter list"),
    ("(i32 -> i32", 5, "')' expected"),
    ("(i32)", 5, "Expected '->'"),
    ("complex<f32>", 8, "Builtin complex is not supported yet!"),
    ("!foo.bar<1>", 8, "'foo.bar' is not registered"),
    ("!t", 2, "undefined symbol alias '!t'"),
]


def test_dialect_types_and_their_reuse():
    """An identical spelling (up to and including the token after it) is parsed once."""
    BOX_PARSES.clear()
    p = P("!test.box<4>, !test.box<4>, !test.box, !test.box<5> !test.box<4>) "
          "!test.box x !test.box xy !test.box<4>, !test.box, !test.box<2>")
    types = [p.parse_type()]
    p.parse_punctuation(",")
    types.append(p.parse_type())
    p.parse_punctuation(",")
    types.append(p.parse_type())
    p.parse_punctuation(",")
    types += [p.parse_type(), p.parse_type()]
    p.parse_punctuation(")")
    for word in ("x", "xy"):
        types.append(p.parse_type())
        assert p.parse_identifier() == word
    types.append(p.parse_type())
    p.parse_punctuation(",")
    types.append(p.parse_type())
    p.parse_punctuation(",")
    types.append(p.parse_type())
    assert [t.width.data for t in types] == [4, 4, 0, 5, 4, 0, 0, 4, 0, 2]  # type: ignore[attr-defined]
    # parsed: the first <4> (the next one reuses it), the bare box, <5>, <4> before `)`
    # (another next token), the box before `x` and before `xy` (a longer token), <2>
    assert len(BOX_PARSES) == 7
    assert types[0] is types[1] and types[0] == types[4]


# --- attributes -----------------------------------------------------------------------------
def attr(text: str):
    p = P(text)
    a = p.parse_attribute()
    assert p._kind == "EOF", text
    return a


def test_numeric_attributes():
    assert attr("1 : i32") == IntegerAttr(1, i32)
    assert attr("-5") == IntegerAttr(-5, i64)
    assert attr("0x10 : index") == IntegerAttr(16, IndexType())
    assert attr("true") == IntegerAttr(1, i1) and attr("false") == IntegerAttr(0, i1)
    assert attr("1.5") == FloatAttr(1.5, f64)
    assert attr("-2.5e1 : f32") == FloatAttr(-25.0, f32)
    assert attr("3 : f32") == FloatAttr(3.0, f32)
    inf = attr("0x7F800000 : f32")
    assert isinstance(inf, FloatAttr) and math.isinf(inf.value.data)
    assert attr("0x3C00 : f16").value.data == 1.0  # type: ignore[attr-defined]
    assert attr("0x3F80 : bf16").value.data == 1.0  # type: ignore[attr-defined]


def test_other_builtin_attributes():
    assert attr('"a\\n\\22"') == StringAttr('a\n"')
    assert attr('[1, "x", [], i32]') == ArrayAttr([IntegerAttr(1, i64), StringAttr("x"),
                                                   ArrayAttr([]), i32])
    d = attr('{a = 1 : i32, b, "c d" = unit}')
    assert isinstance(d, DictionaryAttr)
    assert dict(d.data) == {"a": IntegerAttr(1, i32), "b": UnitAttr(), "c d": UnitAttr()}
    s = attr("@a::@b::@\"c d\"")
    assert isinstance(s, SymbolRefAttr)
    assert s.root_reference.data == "a"
    assert [r.data for r in s.nested_references.data] == ["b", "c d"]
    assert attr("i32") == i32
    assert attr("loc(unknown)") == UnknownLoc()
    loc = attr('loc("f.pto":3:4)')
    assert isinstance(loc, FileLineColLoc) and (loc.line.data, loc.column.data) == (3, 4)


def test_dense_attributes():
    d = attr("dense<[1, 2, 3]> : vector<3xi32>")
    assert isinstance(d, DenseIntOrFPElementsAttr) and list(d.get_values()) == [1, 2, 3]
    splat = attr("dense<1.5> : tensor<2x2xf32>")
    assert list(splat.get_values()) == [1.5] * 4  # type: ignore[attr-defined]
    assert list(attr("dense<[[1, 2], [3, 4]]> : tensor<2x2xi8>").get_values()) == [1, 2, 3, 4]  # type: ignore[attr-defined]
    assert list(attr('dense<"0x01000000"> : tensor<2xi32>').get_values()) == [1, 1]  # type: ignore[attr-defined]
    a = attr("array<i32: 1, -2>")
    assert isinstance(a, DenseArrayBase) and list(a.get_values()) == [1, -2]
    assert list(attr("array<f32: 1.5>").get_values()) == [1.5]  # type: ignore[attr-defined]
    assert len(attr("array<i8>")) == 0  # type: ignore[arg-type]


ATTRIBUTE_ERRORS = [  # (text, offset, message)
    ("-x", 1, "Expected integer or float literal after '-'"),
    ("1.5 : i32", 9, "Floating point value is not valid for integer type."),
    ("1 : none", 8, "Invalid type given for integer or float attribute."),
    ("{a = 1, a = 2}", 14, "Duplicate key 'a' in dictionary attribute"),
    ("{1}", 1, "Expected bare-id or string-literal here as part of attribute entry!"),
    ("[1, 2", 5, "']' expected"),
    ("dense<[1, 2]> : vector<3xi32>", 29,
     "Shape mismatch in dense literal. Expected [3] shape from the type, but got [2] shape."),
    ("dense<[1, [2]]> : vector<2xi32>", 14, "Tensor literal has inconsistent ranks between elements"),
    ("dense<[1, x]> : vector<2xi32>", 10, "Expected either a float, integer, or complex literal"),
    ("dense<-1> : vector<2xui8>", 6, "Expected non-negative integer values"),
    ("dense<1> : i32", 14,
     "Expected memref, vector or tensor type of integer, index, float, or complex type"),
    ("array<i8: 300>", 10, "Integer value 300 is out of range for type i8 which supports "
                           "values in the range [-128, 256)"),
    ("#foo.bar", 8, "'foo.bar' is not registered"),
    ("#a", 2, "undefined symbol alias '#a'"),
    ("loc(what)", 8, "Unsupported location type."),
    ("@a::", 4, "expect symbol name"),
]


def test_symbol_ref_leaves_a_single_colon():
    p = P("@f : i32")
    assert p.parse_attribute() == SymbolRefAttr("f")
    assert p.parse_optional_punctuation(":") == ":"


# --- the parser API ------------------------------------------------------------------------
def test_tokens_punctuation_and_positions():
    p = P("  // comment\n  ( a )")
    assert p.pos == 15
    assert p.parse_optional_punctuation("<") is None
    assert p.parse_punctuation("(") == "("
    assert p.pos == 17
    assert parse_error(lambda: p.parse_punctuation(",", " in the test")) == \
        (17, "Expected ',' in the test")


def test_characters_keywords_identifiers():
    p = P('to tox x.y "s" ins')
    assert p.parse_optional_characters("t") is None      # a prefix is not a token
    assert p.parse_characters("to") == "to"
    with pytest.raises(ParseError, match="'to' expected after x"):
        p.parse_characters("to", " after x")
    assert p.parse_optional_keyword("to") is None
    assert p.parse_optional_keyword_in(("tox", "x")) == "tox"
    assert p.parse_identifier() == "x.y"
    assert p.parse_optional_identifier() is None
    assert p.parse_optional_identifier_or_str_literal() == "s"
    with pytest.raises(ParseError) as info:
        p.parse_keyword_in(("b", "a"), " here")
    assert info.value.msg == "Expected one of 'a', 'b' here"
    with pytest.raises(ParseError, match="Expected 'outs' after"):
        p.parse_keyword("outs", " after")
    assert p.parse_keyword("ins") == "ins"


def test_literals():
    p = P("- 5 -x true 7 0x1f 2.5 -1.0")
    assert p.parse_optional_integer(allow_negative=False) is None
    assert p.parse_integer() == -5
    with pytest.raises(ParseError, match="Expected integer literal after '-'"):
        p.parse_optional_integer()
    p = P("true 7 0x1f 2.5 -1.0")
    assert p.parse_optional_integer(allow_boolean=False) is None
    assert p.parse_integer() == 1
    assert p.parse_number() == 7
    assert p.parse_integer(allow_boolean=False, allow_negative=False) == 31
    assert p.parse_float() == 2.5
    assert p.parse_optional_number() == -1.0
    with pytest.raises(ParseError, match="Expected integer literal in the list"):
        p.parse_integer(context_msg=" in the list")
    p = P('"\\ff" "ok"')
    assert p.parse_optional_str_literal() is None           # a bytes literal
    assert p.parse_optional_bytes_literal() == b"\xff"
    assert p.parse_str_literal() == "ok"
    with pytest.raises(ParseError, match="string literal expected for the name"):
        p.parse_str_literal(" for the name")
    p = P('@main @"with space"')
    assert p.parse_symbol_name() == StringAttr("main")
    assert p.parse_optional_symbol_name() == StringAttr("with space")


def test_comma_separated_lists():
    p = P("[1, 2, 3] () <4> 5, 6 [1 2]")
    assert p.parse_comma_separated_list(p.Delimiter.SQUARE, p.parse_integer) == [1, 2, 3]
    assert p.parse_comma_separated_list(p.Delimiter.PAREN, p.parse_integer) == []
    assert p.parse_optional_comma_separated_list(p.Delimiter.SQUARE, p.parse_integer) is None
    assert p.parse_comma_separated_list(p.Delimiter.ANGLE, p.parse_integer) == [4]
    assert p.parse_comma_separated_list(p.Delimiter.NONE, p.parse_integer) == [5, 6]
    assert parse_error(lambda: p.parse_comma_separated_list(
        p.Delimiter.SQUARE, p.parse_integer, " in offsets")) == (25, "']' expected in offsets")


def test_shapes():
    p = P("4x?x8xf32")
    assert p.parse_ranked_shape() == ([4, DYNAMIC_INDEX, 8], f32)
    p = P("16x64 x")
    assert p.parse_dimension_list() == [16, 64]
    p = P("16x64xf16")
    assert p.parse_dimension_list() == [16, 64]
    p.parse_shape_delimiter()              # the trailing `x` was given back
    assert p.parse_type() == builtin.f16
    p = P("8, 2")
    assert p.parse_dimension_list() == [8]
    with pytest.raises(ParseError, match="Expected 'x' in shape delimiter, got COMMA"):
        p.parse_shape_delimiter()
    assert P("xyz").parse_dimension_list() == []


def test_in_angle_brackets_and_raise_error():
    p = P("<a> b")
    with p.in_angle_brackets():
        assert p.parse_identifier() == "a"
    with pytest.raises(ParseError) as info:
        p.raise_error("here")
    assert (info.value.span.start, info.value.span.end) == (4, 5)
    for args, span in (((1,), (1, 1)), ((1, 3), (1, 3))):
        with pytest.raises(ParseError) as info:
            p.raise_error("x", *args)
        assert (info.value.span.start, info.value.span.end) == span
    with pytest.raises(ParseError) as info:
        P("").raise_error("at the end")
    assert (info.value.span.start, info.value.span.end) == (0, 1)


def test_unresolved_operands():
    p = P("%a#2 %b %c#x")
    a = p.parse_unresolved_operand()
    assert isinstance(a, UnresolvedOperand)
    assert (a.operand_name, a.index, a.span.start, a.span.end) == ("a", 2, 0, 2)
    assert p.parse_optional_unresolved_operand().operand_name == "b"  # type: ignore[union-attr]
    with pytest.raises(ParseError, match="Expected integer as SSA value tuple index"):
        p.parse_optional_unresolved_operand()
    with pytest.raises(ParseError, match="my message"):
        P("x").parse_unresolved_operand("my message")


# --- operations, blocks and regions --------------------------------------------------------
def test_generic_ops_regions_blocks_and_forward_references():
    m = module('''
      "test.any"() ({
        %u = "test.any"(%late) : (i32) -> i64
        %late, %pair:2 = "test.any"() <{p = 3 : i8}> {q = "x"} : () -> (i32, i1, i1)
        "test.any"(%pair#1) [^bb1] : (i1) -> ()
      ^bb1(%arg: index, %f: f32 loc("k":1:2)):
        "test.any"(%arg, %f) : (index, f32) -> ()
      }) {p = 1 : i64} : () -> () loc("t.pto":2:7)
    ''')
    outer = m.body.block.first_op
    assert isinstance(outer, AnyOp) and outer.properties == {"p": IntegerAttr(1, i64)}
    assert outer.location == FileLineColLoc(StringAttr("t.pto"), builtin.IntAttr(2),
                                            builtin.IntAttr(7))
    entry, bb1 = outer.regions[0].blocks
    u, late, br = entry.ops
    assert u.operands[0] is late.results[0]              # the forward reference was replaced
    assert not isinstance(u.operands[0], ForwardDeclaredValue)
    assert late.results[0].name_hint == "late"
    assert late.properties == {"p": IntegerAttr(3, IntegerType(8))}
    assert late.attributes == {"q": StringAttr("x")}
    assert br.operands[0] is late.results[2] and br.successors == (bb1,)
    assert [a.type for a in bb1.args] == [IndexType(), f32]
    assert bb1.args[0].name_hint == "arg"
    assert isinstance(bb1.args[1].location, FileLineColLoc)
    use = next(iter(bb1.ops))
    assert list(use.operands) == list(bb1.args)


def test_custom_syntax_ops():
    m = module('''
      func.func @f(%a: i64, %n: index) -> i64 {
        %c0 = arith.constant 0 : index
        %c1 = arith.constant 1 : index
        %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %a) -> (i64) {
          %x = arith.addi %acc, %a : i64 loc("k.pto":5:9)
          scf.yield %x : i64
        }
        func.return %r : i64
      }
    ''')
    f = m.body.block.first_op
    assert isinstance(f, func.FuncOp)
    ops = list(f.body.block.ops)
    assert [op.name for op in ops] == ["arith.constant", "arith.constant", "scf.for",
                                       "func.return"]
    add = ops[2].regions[0].block.first_op
    assert add is not None and add.location == FileLineColLoc(
        StringAttr("k.pto"), builtin.IntAttr(5), builtin.IntAttr(9))


def test_module_forms_and_aliases():
    m = module("builtin.module attributes {a = 1 : i32} {\n}")
    assert m.attributes == {"a": IntegerAttr(1, i32)} and not list(m.body.block.ops)
    implicit = module('!t = i32\n#one = 1 : i32\n%x = "test.any"() {v = #one} : () -> !t\n'
                      '"test.any"(%x) : (i32) -> ()')
    assert isinstance(implicit, ModuleOp)
    first, _ = implicit.body.block.ops
    assert first.results[0].type == i32 and first.attributes["v"] == IntegerAttr(1, i32)
    # a single top-level module is the module; two are wrapped
    two = module("module {}\nmodule {}")
    assert len(list(two.body.block.ops)) == 2


OPERATION_ERRORS = [  # (text, offset, message)
    ('"test.any"(%y) : (i32) -> ()', 28, "values used but not defined: [%y]"),
    ('%x = "test.any"() : () -> i32\n%x = "test.any"() : () -> i32', 30,
     "SSA value %x is already defined"),
    ('"test.any"(%x) : (i64) -> ()\n%x = "test.any"() : () -> i32', 29,
     "Result %x is defined with type i32, but used with type i64"),
    ('%x = "test.any"() : () -> i32\n"test.any"(%x) : (i64) -> ()', 41,
     "operand is used with type i64, but has been previously used or defined with type i32"),
    ('%x = "test.any"() : () -> i32\n"test.any"(%x#1) : (i32) -> ()', 41,
     "SSA value tuple index out of bounds. Tuple is of size 1 but tried to access element 1."),
    ('"test.any"(%x#3) : (i32) -> ()\n%x:2 = "test.any"() : () -> (i32, i32)', 31,
     "SSA value %x is referenced with an index larger than its size"),
    ('%a, %b = "test.any"() : () -> i32', 0, "Operation has 1 results, but was given 2 to bind."),
    ('"test.nope"() : () -> ()', 11, "Operation test.nope is not registered"),
    ("test.nope", 9, "Operation test.nope is not registered"),
    ('"test.any"() : () -> !foo.x', 27, "'foo.x' is not registered"),
    ('"test.any"(%a) : () -> ()', 17, "expected 0 operand types but had 1"),
    ('"test.any"() () -> ()', 16, "Expected ':'function type signature expected"),
    ("%x", 2, "Expected '=' after operation result list"),
    ("%x = 5", 5, "operation name expected"),
    ("}", 0, "Could not parse entire input!"),
    ("", 0, "Could not parse entire input!"),
    ('"test.any"() ({ "test.any"() [^bb9] : () -> () }) : () -> ()', 48,
     "region ends with missing block declarations for block(s) bb9"),
    ('"test.any"() ({ "test.any"() : () -> () ^bb1: ^ }) : () -> ()', 46,
     "Expected suffix identifier after {first_char}"),
    ('"test.any"() ({ ^a: ^a: }) : () -> ()', 20, "re-declaration of block 'a'"),
    ('!t = i32\n!t = i32', 12, "re-declaration of alias '!t'"),
    ('%x:z = "test.any"() : () -> i32', 3, "Expected SSA value tuple size"),
    ('"test.any"() ({ ^bb0(%a i32): }) : () -> ()', 24, "Expected ':'"),
    ('"test.any"() ({ ^bb0(x): }) : () -> ()', 21, "block argument expected"),
    ('"test.any"() <{p = 1, p = 2}> : () -> ()', 30, "Duplicate key 'p' in properties dictionary"),
    ('module {\n  func.func @f() {\n    %0 = arith.constant 1 : i32\n    "x 1', 64,
     "End of file reached before closing string literal."),
]


@pytest.mark.parametrize(("method", "text", "start", "msg"), [
    *(("parse_type", *case) for case in TYPE_ERRORS),
    *(("parse_attribute", *case) for case in ATTRIBUTE_ERRORS),
    *(("parse_module", *case) for case in OPERATION_ERRORS),
])
def test_parse_errors(method: str, text: str, start: int, msg: str):
    assert error(text, method) == (start, msg)


def test_scopes_are_per_region():
    # a value defined in a region is not visible after it
    start, msg = error('"test.any"() ({ %a = "test.any"() : () -> i32 }) : () -> ()\n'
                       '"test.any"(%a) : (i32) -> ()')
    assert msg == "values used but not defined: [%a]"
    # but a value defined later outside can be used inside (forward reference)
    m = module('"test.any"() ({ "test.any"(%b) : (i32) -> () }) : () -> ()\n'
               '%b = "test.any"() : () -> i32')
    inner = m.body.block.first_op.regions[0].block.first_op  # type: ignore[union-attr]
    assert inner.operands[0].name_hint == "b"  # type: ignore[union-attr]


def test_region_with_entry_arguments():
    p = P("%x: i32, %y: f32 { \"test.any\"(%x, %y) : (i32, f32) -> () }")
    args = [p.parse_argument(), p.parse_optional_punctuation(",") and p.parse_argument()]
    region = p.parse_region(args)
    block = region.block
    assert [a.type for a in block.args] == [i32, f32]
    assert list(block.first_op.operands) == list(block.args)  # type: ignore[union-attr]
    with pytest.raises(ParseError, match="invalid block name in region with named arguments"):
        P("{ ^bb0: }").parse_region([])
    assert P("x").parse_optional_region() is None


# --- override points ------------------------------------------------------------------------
def test_subclass_override_points():
    seen: list[str] = []

    class Sub(Parser):
        def parse_operation(self) -> Operation:
            start = self.pos
            op = super().parse_operation()
            seen.append(f"{op.name}@{start}")
            return op

        def _get_op_by_name(self, name: str) -> type[Operation]:
            op = self.ctx.get_optional_op(name, dialect_stack=self.dialect_stack)
            if op is None:
                self.raise_error(f"unknown op '{name}'", self.pos - len(name) - 2)
            return op

        def parse_optional_type(self) -> TypeAttribute | None:
            t = super().parse_optional_type()
            if t is not None:
                seen.append(str(t))
            return t

    text = 'func.func @f(%a: i64) {\n  %b = arith.addi %a, %a : i64\n  func.return\n}'
    Sub(CTX, text, "t").parse_module()
    assert seen == ["i64", "i64", "arith.addi@26", "func.return@57", "func.func@0"]
    assert parse_error(Sub(CTX, '"test.what"() : () -> ()', "t").parse_module) == \
        (0, "unknown op 'test.what'")


def test_parse_errors_render_the_line():
    with pytest.raises(ParseError) as info:
        P("module {\n  %x = arith.addi %a %b : i32\n}").parse_module()
    text = str(info.value)
    assert text.startswith("t.pto:2:")
    assert "%x = arith.addi %a %b : i32" in text and "^" in text
