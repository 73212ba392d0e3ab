"""ptosim.mlir's arith, scf and func dialects: custom syntax read and written back, the
implied terminators, properties the interpreter reads, verifier and parser messages (with
the offset they point at), op construction and the arith classes built on first use."""

from __future__ import annotations

import pytest

from mlir_helpers import OURS, printed, std_context
from ptosim.mlir import arith, func, scf
from ptosim.mlir.builtin import (
    DenseIntOrFPElementsAttr,
    FloatAttr,
    FunctionType,
    IndexType,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    SymbolRefAttr,
    f32,
    i1,
    i32,
    i64,
)
from ptosim.mlir.exceptions import ParseError, VerifyException
from ptosim.mlir.ir import Block, Region
from ptosim.mlir.parser import Parser
from ptosim.mlir.traits import IsolatedFromAbove, IsTerminator

CTX = std_context(OURS)


def parse(text: str) -> ModuleOp:
    return Parser(CTX, text).parse_module()


ARGS = "%a: i32, %b: i32, %x: f32, %i: index, %c: i1"


def in_f(body: str, end: str = "\n  func.return") -> str:
    """``body`` as the first line(s) of a function taking ARGS, then ``end``."""
    return f"func.func @f({ARGS}) {{\n  {body}{end}\n}}"


def body_of(lines: str) -> list[str]:
    """Parse ``lines`` in a function taking ARGS; the printed body lines, unindented."""
    module = parse(in_f(lines))
    module.verify()
    return [line.strip() for line in printed(module).splitlines()[2:-3]]


# --- custom syntax -----------------------------------------------------------------------
@pytest.mark.parametrize("text, printed", [
    ("%0 = arith.constant 0 : index", None),
    ("%0 = arith.constant 7 : i32", None),
    ("%0 = arith.constant -1 : i64", None),
    ("%0 = arith.constant false", None),
    ("%0 = arith.constant true", None),
    ("%0 = arith.constant 1 : i1", "%0 = arith.constant true"),
    ("%0 = arith.constant 1.5 : f32", "%0 = arith.constant 1.500000e+00 : f32"),
    ("%0 = arith.constant 1 : f32", "%0 = arith.constant 1.000000e+00 : f32"),
    ("%0 = arith.constant dense<0> : vector<8xi16>", None),
    ("%0 = arith.constant {k} 3 : i64", None),
    ("%0 = arith.addi %a, %b : i32", None),
    ("%0 = arith.addi %a, %b overflow<nsw> : i32", None),
    ("%0 = arith.muli %a, %b overflow<nuw, nsw> : i32", "%0 = arith.muli %a, %b overflow<nsw,nuw> : i32"),
    ("%0 = arith.subi %a, %b overflow<none> : i32", "%0 = arith.subi %a, %b : i32"),
    ("%0 = arith.shli %a, %b {k = 1 : i32} : i32", None),
    ("%0 = arith.divsi %a, %b : i32", None),
    ("%0 = arith.ceildivui %i, %i : index", None),
    ("%0 = arith.addf %x, %x : f32", None),
    ("%0 = arith.mulf %x, %x fastmath<fast> : f32", None),
    ("%0 = arith.divf %x, %x fastmath<ninf,nnan> : f32", "%0 = arith.divf %x, %x fastmath<nnan,ninf> : f32"),
    ("%0 = arith.maxnumf %x, %x fastmath<none> : f32", "%0 = arith.maxnumf %x, %x : f32"),
    ("%0 = arith.negf %x fastmath<nsz> : f32", None),
    ("%0 = arith.cmpi slt, %a, %b : i32", None),
    ("%0 = arith.cmpi uge, %i, %i : index", None),
    ("%0 = arith.cmpf one, %x, %x : f32", None),
    ("%0 = arith.cmpf ult, %x, %x fastmath<fast> : f32", None),
    ("%0 = arith.select %c, %a, %b : i32", None),
    ("%0 = arith.index_cast %a : i32 to index", None),
    ("%0 = arith.index_castui %i : index to i64", None),
    ("%0 = arith.trunci %a : i32 to i8", None),
    ("%0 = arith.extsi %a {k} : i32 to i64", None),
    ("%0 = arith.bitcast %a : i32 to f32", None),
    ("%0 = arith.uitofp %a : i32 to f32", None),
    ("%0 = arith.fptosi %x : f32 to i32", None),
    ("%0 = arith.truncf %x : f32 to bf16", None),
    ("%0, %1 = arith.addui_extended %a, %b : i32, i1", None),
    ("%0, %1 = arith.mulsi_extended %a, %b : i32", None),
])
def test_arith_syntax(text: str, printed: str | None) -> None:
    assert body_of(text) == [printed or text]


def test_scf_and_func_syntax() -> None:
    text = """\
func.func private @ext(i32, f32) -> i64
func.func private @decl(i32)
func.func @callee(%v: i32 {pto.k}, %w: f32) -> (i32 {pto.r}, f32) attributes {pto.aicore} {
  func.return %v, %w : i32, f32
}
func.func @f(%a: i32, %i: index, %n: i8) -> i32 attributes { pto.entry , pto.aicore} {
  %r:2 = func.call @callee(%a, %x) : (i32, f32) -> (i32, f32)
  func.call @decl(%a) : (i32) -> ()
  %x = arith.constant 0.0 : f32
  %s = scf.for %k = %i to %i step %i iter_args(%acc = %a) -> (i32) {
    %t = arith.addi %acc, %a : i32
    scf.yield %t : i32
  }
  scf.for %k = %i to %i step %i {
    scf.yield
  }
  scf.for %k = %n to %n step %n : i8 {
  }
  %c = arith.cmpi eq, %a, %s : i32
  scf.if %c {
    %u = arith.addi %a, %a : i32
  }
  %v = scf.if %c -> (i32) {
    scf.yield %a : i32
  } else {
    scf.yield %s : i32
  }
  %e = scf.execute_region -> i32 {
    scf.yield %a : i32
  }
  %w = scf.while (%p = %a) : (i32) -> i32 {
    scf.condition(%c) %p : i32
  } do {
  ^bb0(%q: i32):
    scf.yield %q : i32
  }
  return %v : i32
}"""
    module = parse(text)
    module.verify()
    assert printed(module) == """\
builtin.module {
  func.func private @ext(i32, f32) -> i64
  func.func private @decl(i32) -> ()
  func.func @callee(%v: i32 {pto.k}, %w: f32) -> (i32 {pto.r}, f32) attributes {pto.aicore} {
    func.return %v, %w : i32, f32
  }
  func.func @f(%a: i32, %i: index, %n: i8) -> i32 attributes {pto.entry, pto.aicore} {
    %r, %r_1 = func.call @callee(%a, %x) : (i32, f32) -> (i32, f32)
    func.call @decl(%a) : (i32) -> ()
    %x = arith.constant 0.000000e+00 : f32
    %s = scf.for %k = %i to %i step %i iter_args(%acc = %a) -> (i32) {
      %t = arith.addi %acc, %a : i32
      scf.yield %t : i32
    }
    scf.for %k_1 = %i to %i step %i {
    }
    scf.for %k_2 = %n to %n step %n : i8 {
    }
    %c = arith.cmpi eq, %a, %s : i32
    scf.if %c {
      %u = arith.addi %a, %a : i32
    }
    %v = scf.if %c -> (i32) {
      scf.yield %a : i32
    } else {
      scf.yield %s : i32
    }
    %e = scf.execute_region -> (i32) {
      scf.yield %a : i32
    }
    %w = scf.while (%p = %a) : (i32) -> i32 {
      scf.condition(%c) %p : i32
    } do {
    ^bb0(%q: i32):
      scf.yield %q : i32
    }
    func.return %v : i32
  }
}"""
    # the printed text reads back to the same text
    assert printed(parse(printed(module))) == printed(module)


def test_generic_form_and_flag_attributes() -> None:
    module = parse('%0 = "arith.addi"(%1, %1) <{overflowFlags = #arith.overflow<nuw,nsw>}> '
                   ': (i32, i32) -> i32\n'
                   '%1 = "arith.constant"() <{value = 2 : i32}> : () -> i32\n'
                   '%2 = "arith.cmpf"(%3, %3) <{predicate = 4 : i64, '
                   'fastmath = #arith.fastmath<fast>}> : (f32, f32) -> i1\n'
                   '%3 = arith.constant 1.0 : f32')
    module.verify()
    assert printed(module).splitlines()[1:4] == [
        "  %0 = arith.addi %1, %1 overflow<nsw,nuw> : i32",
        "  %1 = arith.constant 2 : i32",
        "  %2 = arith.cmpf olt, %3, %3 fastmath<fast> : f32"]
    generic = printed(module, print_generic_format=True)
    assert '"arith.addi"(%1, %1) <{overflowFlags = #arith.overflow<nsw,nuw>}> : (i32, i32) -> i32' \
        in generic
    assert '<{predicate = 4 : i64, fastmath = #arith.fastmath<fast>}>' in generic
    # properties left out of the generic form get their defaults
    addi = parse('%a = arith.constant 1 : i32\n%0 = "arith.addi"(%a, %a) : (i32, i32) -> i32'
                 ).body.block.last_op
    assert addi is not None
    assert addi.properties["overflowFlags"] == arith.IntegerOverflowAttr("none")


# --- what the interpreter reads ----------------------------------------------------------
def test_properties_read_by_the_interpreter() -> None:
    module = parse(f"""func.func @f({ARGS}) {{
  %k = arith.constant 5 : index
  %t = arith.constant 2.5 : f32
  %v = arith.constant dense<[1, 2]> : vector<2xi32>
  %p = arith.cmpi sge, %a, %b : i32
  %q = arith.cmpf uno, %x, %x : f32
  func.call @f(%a, %b, %x, %i, %c) : (i32, i32, f32, index, i1) -> ()
  func.return
}}""")
    module.verify()
    fn = module.body.block.first_op
    assert isinstance(fn, func.FuncOp)
    assert fn.properties["sym_name"] == StringAttr("f")
    assert fn.sym_name.data == "f" and fn.function_type.outputs.data == ()
    assert [a.type for a in fn.args] == list(fn.function_type.inputs.data)
    k, t, v, p, q, call, ret = fn.body.block.ops
    assert isinstance(k, arith.ConstantOp) and k.value == IntegerAttr(5, IndexType())
    assert isinstance(k.value, IntegerAttr) and k.value.value.data == 5
    assert isinstance(t.properties["value"], FloatAttr)
    assert isinstance(v.properties["value"], DenseIntOrFPElementsAttr)
    assert p.properties["predicate"] == IntegerAttr(5, i64)      # sge
    assert q.properties["predicate"] == IntegerAttr(14, i64)     # uno
    assert p.results[0].type == i1
    assert call.properties["callee"] == SymbolRefAttr("f")
    assert isinstance(ret, func.ReturnOp) and fn.get_return_op() is ret


def test_implied_terminators() -> None:
    module = parse(f"""func.func @f({ARGS}) {{
  scf.for %k = %i to %i step %i {{
    %u = arith.addi %a, %b : i32
  }}
  scf.if %c {{
  }}
  scf.if %c {{
  }} else {{
    scf.yield
  }}
  func.return
}}""")
    module.verify()
    fn = module.body.block.first_op
    assert fn is not None
    loop, if1, if2, _ = fn.regions[0].block.ops
    assert [op.name for op in loop.regions[0].block.ops] == ["arith.addi", "scf.yield"]
    assert [op.name for op in if1.regions[0].block.ops] == ["scf.yield"]
    assert not if1.regions[1].blocks                 # no else: an empty region
    assert [op.name for op in if2.regions[1].block.ops] == ["scf.yield"]
    assert all(isinstance(r.block.last_op, scf.YieldOp) for r in loop.regions)
    assert scf.YieldOp.has_trait(IsTerminator) and func.ReturnOp.has_trait(IsTerminator)
    assert func.FuncOp.has_trait(IsolatedFromAbove)


# --- verifier messages -------------------------------------------------------------------
@pytest.mark.parametrize("body, message", [
    ('%0 = "arith.addi"(%a, %x) : (i32, f32) -> i32',
     "operand 'rhs' at position 1 does not verify:\nattribute i32 expected from variable 'T', "
     "but got f32"),
    ('%0 = "arith.addf"(%a, %a) : (i32, i32) -> i32',
     "operand 'lhs' at position 0 does not verify:\nUnexpected attribute i32"),
    ('%0 = "arith.cmpi"(%a, %a) <{predicate = 0 : i64}> : (i32, i32) -> i32',
     "result 'result' at position 0 does not verify:\nExpected attribute i1 but got i32"),
    ('%0 = "arith.select"(%a, %a, %a) : (i32, i32, i32) -> i32',
     "operand 'cond' at position 0 does not verify:\nExpected attribute i1 but got i32"),
    ('%0 = "arith.constant"() <{value = 1 : i32}> : () -> i64',
     "attribute i64 expected from variable 'T', but got i32"),
    ('%0 = "arith.constant"() : () -> i64', "property 'value' expected in operation 'arith.constant'"),
    ("%0 = arith.index_cast %a : i32 to i64",
     "'arith.index_cast' op operand type 'i32' and result type 'i32' are cast incompatible"),
    ("%0 = arith.index_castui %i : index to index",
     "'arith.index_cast' op operand type 'index' and result type 'index' are cast incompatible"),
    ("%0 = arith.trunci %a : i32 to i64",
     "Destination bit-width must be smaller than the input bit-width"),
    ("%0 = arith.extui %a : i32 to i16", "Destination bit-width must be larger than the input bit-width"),
    ("%0 = arith.bitcast %a : i32 to f64",
     "operand and result types must have equal bitwidths or be IndexType"),
    ("%0 = arith.cmpf olt, %a, %a : i32",
     "operand 'lhs' at position 0 does not verify:\nUnexpected attribute i32"),
    ("scf.for %k = %a to %a step %a : i32 {\n}\n  scf.for %k = %i to %i step %i {\n  scf.yield %a : i32\n}",
     "scf.yield expected 0 args, but got 1. The scf.for must yield its loop-carried variables."),
    ("%r = scf.for %k = %i to %i step %i iter_args(%s = %a) -> (i32) {\n  scf.yield %x : f32\n}",
     "Expected yield arg #0 to be i32, but got f32. scf.yield of scf.for must match "
     "loop-carried variable types."),
    ("%r = scf.for %k = %i to %i step %i iter_args(%s = %a) -> (i32) {\n}",
     "Operation scf.for contains empty block in single-block region that expects at least a "
     "terminator"),
    ("scf.yield", "'scf.yield' expects parent op to be one of 'scf.for', 'scf.if', "
                  "'scf.execute_region', 'scf.while', 'scf.index_switch'"),
    ("func.return %a : i32",
     "Expected arguments to have the same types as the function output types: expected [], "
     "got [i32]"),
    ("func.call @nowhere() : () -> ()", "'@nowhere' could not be found in symbol table"),
    ("func.call @f(%a) : (i32) -> ()", "incorrect number of operands for callee"),
    ("func.call @f(%a, %b, %a, %i, %c) : (i32, i32, i32, index, i1) -> ()",
     "operand type mismatch: expected operand type f32, but provided i32 for operand number 2"),
])
def test_verify_messages(body: str, message: str) -> None:
    end = "" if body.startswith(("func.return", "scf.yield")) else "\n  func.return"
    module = parse(in_f(body, end))
    with pytest.raises(VerifyException) as err:
        module.verify()
    assert str(err.value) == message


def test_isolated_function_body() -> None:
    module = parse("func.func @f(%a: i32) {\n  %z = arith.constant 0 : i32\n"
                   "  func.func @g() {\n    %y = arith.addi %z, %z : i32\n    func.return\n  }\n"
                   "  func.return\n}")
    with pytest.raises(VerifyException, match="Operation using value defined out of its "
                                              "IsolatedFromAbove parent"):
        module.verify()


# --- parse errors: message and the offset they point at ----------------------------------
@pytest.mark.parametrize("body, message, at", [
    ("%0 = arith.addi %a, %x : i32",
     "operand is used with type i32, but has been previously used or defined with type f32",
     "%x : i32"),
    ("%0 = arith.addi %a %b : i32", "Expected ','", "%b : i32"),
    ("%0 = arith.addi %a, %b overflow<foo> : i32", "Expected `nsw`, or `nuw`.", "foo>"),
    ("%0 = arith.addf %x, %x fastmath<fst> : f32",
     "Expected `reassoc`, `nnan`, `ninf`, `nsz`, `arcp`, `contract`, or `afn`.", "fst>"),
    ("%0 = arith.cmpi slt, %a, %b {k} : i32", "Expected ':'", "{k}"),
    ("%0 = arith.select %a, %a, %a : i32",
     "operand is used with type i1, but has been previously used or defined with type i32",
     "%a, %a, %a"),
    ("%0 = arith.constant 1.5 : i32", "Floating point value is not valid for integer type.",
     "func.return"),
    ("func.return {operandSegmentSizes} %a : i32",
     "attributes operandSegmentSizes are defined in other parts of the assembly format, and "
     "thus should not be defined in the attribute dictionary.", "%a : i32"),
    ("%r = scf.for %k = %i to %i step %i iter_args(%s = %a) -> (i32, i32) {\n}",
     "expected 2 operand types but had 1", "iter_args"),
    ("scf.for %k = %i to %i {\n}", "Expected 'step'", "{\n}"),
])
def test_parse_errors(body: str, message: str, at: str) -> None:
    text = in_f(body)
    with pytest.raises(ParseError) as err:
        parse(text)
    assert err.value.msg == message
    assert err.value.span.start == text.index(at, text.index(body[:8]))


@pytest.mark.parametrize("body, message", [
    ("%0 = arith.addi %a, %a : f32", "Unexpected attribute f32"),
    ("%0 = arith.sitofp %x : f32 to f64", "f32 should be of base attribute integer_type"),
    ("%0 = arith.index_cast %x : f32 to index", "Unexpected attribute f32"),
    ("%0 = arith.constant 1 : ui32",
     "Expected attribute #builtin.signedness<signless> but got #builtin.signedness<unsigned>"),
    ('%0 = arith.constant "s"', 'Unexpected attribute "s"'),
    ("%0 = arith.cmpi foo, %a, %b : i32", "Unknown comparison mnemonic: foo"),
    ("func.call @f::@g() : () -> ()", "Expected SymbolRefAttr with no nested symbols.\n"
     'Underlying verification failure: expected empty array, but got ["g"]'),
])
def test_types_checked_while_parsing(body: str, message: str) -> None:
    """Where xDSL's format checks parsed types, the error is a VerifyException raised by
    the parser (ptosim reports it at the op)."""
    with pytest.raises(VerifyException) as err:
        parse(in_f(body))
    assert str(err.value) == message


# --- building ops ------------------------------------------------------------------------
def test_build_ops() -> None:
    block = Block(arg_types=[i32, i32, IndexType()])
    a, b, n = block.args
    c = arith.ConstantOp(IntegerAttr(3, i32))
    c2 = arith.ConstantOp.from_int_and_width(4, 32)
    add = arith.AddiOp(a, c)
    cmp = arith.CmpiOp(add, c2, "ult")
    sel = arith.SelectOp(cmp, a, b)
    cast = arith.IndexCastOp(sel, IndexType())
    one = arith.ConstantOp(FloatAttr(1.0, f32))
    neg = arith.NegfOp(one)
    block.add_ops([c, c2, add, cmp, sel, cast, one, neg])
    body = Region(Block(arg_types=[IndexType()]))
    body.block.add_op(scf.YieldOp())
    block.add_op(scf.ForOp(n, n, n, [], body))
    block.add_op(func.ReturnOp())
    fn = func.FuncOp("g", ([i32, i32, IndexType()], []), Region(block))
    fn.verify()
    assert printed(fn) == """\
func.func @g(%0: i32, %1: i32, %2: index) {
  %3 = arith.constant 3 : i32
  %4 = arith.constant 4 : i32
  %5 = arith.addi %0, %3 : i32
  %6 = arith.cmpi ult, %5, %4 : i32
  %7 = arith.select %6, %0, %1 : i32
  %8 = arith.index_cast %7 : i32 to index
  %9 = arith.constant 1.000000e+00 : f32
  %10 = arith.negf %9 : f32
  scf.for %11 = %2 to %2 step %2 {
  }
  func.return
}"""
    assert add.result.type == i32 and cmp.result.type == i1
    assert cmp.predicate == IntegerAttr(6, i64)
    assert add.properties["overflowFlags"] == arith.IntegerOverflowAttr("none")
    assert neg.properties["fastmath"] == arith.FastMathFlagsAttr("none")
    assert fn.function_type == FunctionType.from_lists([i32, i32, IndexType()], [])
    ext = func.FuncOp.external("e", [i32], [i64])
    assert ext.is_declaration and printed(ext) == "func.func private @e(i32) -> i64"
    call = func.CallOp("e", [a], [i64])
    assert call.callee == SymbolRefAttr("e") and call.res[0].type == i64
    with pytest.raises(VerifyException, match="Unknown comparison mnemonic: lt"):
        arith.CmpiOp(a, b, "lt")
    with pytest.raises(TypeError, match="Comparison operands must have same type"):
        arith.CmpiOp(a, n, "eq")


def test_arith_classes_built_on_first_use() -> None:
    addi = arith.op_class("arith.addi")
    assert addi is arith.AddiOp and addi.__name__ == "AddiOp"
    assert arith.op_class("arith.remf") is None         # not an xDSL 0.74 arith op
    assert arith.op_class("arith.index_castui") is arith.IndexCastUIOp
    names = [op.name for op in arith.Arith.operations]
    assert names == list(arith.OP_NAMES) and len(names) == 48
    assert {a.name for a in arith.Arith.attributes} == {"arith.fastmath", "arith.overflow"}
    assert issubclass(arith.MulfOp, arith.FloatingPointLikeBinaryOperation)
    assert not issubclass(arith.IndexCastUIOp, arith.IndexCastOp)   # as the two xDSL classes
    with pytest.raises(AttributeError):
        arith.NoSuchOp  # noqa: B018
    op = parse("%a = arith.constant 1 : i32\n%0 = arith.remsi %a, %a : i32").body.block.last_op
    assert isinstance(op, arith.RemSIOp)


def test_flag_attributes() -> None:
    flags = arith.FastMathFlagsAttr("fast")
    assert flags.data == frozenset(arith.FastMathFlag)
    assert str(flags) == "#arith.fastmath<fast>"
    assert str(arith.FastMathFlagsAttr([arith.FastMathFlag.ALLOW_CONTRACT,
                                         arith.FastMathFlag.REASSOC])) \
        == "#arith.fastmath<reassoc,contract>"
    assert str(arith.IntegerOverflowAttr(None)) == "#arith.overflow<none>"
    with pytest.raises(TypeError, match="expected string parameter to be one of none or None"):
        arith.IntegerOverflowAttr("fast")  # type: ignore[arg-type]
