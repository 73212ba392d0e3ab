"""ptosim.mlir.printer.Printer: the generic op form, value and block naming, regions,
custom syntax, literals and the helpers custom ``print`` methods use."""

from __future__ import annotations

import math
from collections.abc import Sequence
from io import StringIO
from typing import Any

import pytest

from mlir_helpers import OURS, any_op, core_ops, printed, term_op
from ptosim.mlir import builtin as b
from ptosim.mlir.ir import Attribute, Block, Operation, Region
from ptosim.mlir.irdl import (
    IRDLOperation,
    irdl_op_definition,
    var_operand_def,
    var_result_def,
)
from ptosim.mlir.printer import Printer

GenOp, TermOp, IsolatedOp = any_op(OURS), term_op(OURS), core_ops(OURS).IsolatedOp


@irdl_op_definition
class CustomOp(IRDLOperation):
    """``test.custom %a, %b : i32, i32 [attr-dict]``."""

    name = "test.custom"
    ins = var_operand_def()
    outs = var_result_def()

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list(self.ins, printer.print_operand)
        printer.print_string(" : ")
        printer.print_list([v.type for v in self.ins], printer.print_attribute)
        printer.print_op_attributes(self.attributes)


def op(ins: Sequence[Any] = (), outs: Sequence[Attribute] = (),
       regions: Sequence[Region] = (), succ: Sequence[Block] = (),
       cls: type[Operation] = GenOp, **kw: Any) -> Any:
    if cls is IsolatedOp:
        return cls.build(regions=list(regions), **kw)
    kwargs: dict[str, Any] = {"operands": [list(ins)], "result_types": [list(outs)]}
    if cls is GenOp:
        kwargs["regions"] = [list(regions)]
        kwargs["successors"] = [list(succ)]
    if cls is TermOp:
        kwargs.pop("result_types")
    return cls.build(**kwargs, **kw)



def module(*ops: Operation) -> b.ModuleOp:
    return b.ModuleOp(list(ops))


def test_generic_form_and_numbering() -> None:
    a = op(outs=[b.i32])
    c = op(ins=[a.results[0], a.results[0]], outs=[b.i32, b.f32],
           attributes={"k": b.IntegerAttr(1, b.i64), "u": b.UnitAttr()},
           properties={"p": b.StringAttr("v")})
    assert printed(module(a, c)) == (
        'builtin.module {\n'
        '  %0 = "test.op"() : () -> i32\n'
        '  %1, %2 = "test.op"(%0, %0) <{p = "v"}> {k = 1 : i64, u} : (i32, i32) -> (i32, f32)\n'
        '}')
    assert str(a) == '%0 = "test.op"() : () -> i32'


def test_name_hints_and_duplicates() -> None:
    ops = [op(outs=[b.i1]) for _ in range(4)]
    for o, hint in zip(ops, ["x", "x", None, "x"]):
        o.results[0].name_hint = hint
    assert printed(module(*ops)).splitlines()[1:5] == [
        '  %x = "test.op"() : () -> i1', '  %x_1 = "test.op"() : () -> i1',
        '  %0 = "test.op"() : () -> i1', '  %x_2 = "test.op"() : () -> i1']


def test_isolated_ops_open_a_scope() -> None:
    inner = op(outs=[b.i1])
    inner.results[0].name_hint = "v"
    iso = op(cls=IsolatedOp, regions=[Region(Block([op(outs=[b.i8]), inner]))])
    first, after = op(outs=[b.i1]), op(outs=[b.i1])
    first.results[0].name_hint = "v"
    lines = printed(module(first, iso, after)).splitlines()
    assert lines[1:7] == [
        '  %v = "test.op"() : () -> i1',
        '  "test.isolated"() ({',
        '    %0 = "test.op"() : () -> i8',
        '    %v_1 = "test.op"() : () -> i1',
        '  }) : () -> ()',
        '  %0 = "test.op"() : () -> i1']


def test_blocks_regions_and_successors() -> None:
    region = Region([Block(arg_types=[b.i32, b.IndexType()]), Block(), Block()])
    blocks = list(region.blocks)
    blocks[0].add_op(op(ins=[blocks[0].args[0]], succ=[blocks[2]]))
    blocks[1].add_op(op(succ=[blocks[0], blocks[1]]))
    blocks[2].name_hint = "exit"
    blocks[2].args  # noqa: B018 - no arguments
    blocks[0].args[1].name_hint = "idx"
    outer = op(regions=[region, Region(), Region(Block())])
    assert printed(outer) == (
        '"test.op"() ({\n'
        '^bb0(%0: i32, %idx: index):\n'
        '  "test.op"(%0) [^exit] : (i32) -> ()\n'
        '^bb1:\n'
        '  "test.op"() [^bb0, ^bb1] : () -> ()\n'
        '^exit:\n'
        '}, {\n'
        '}, {\n'
        '^bb0:\n'
        '}) : () -> ()')


def test_print_region_options() -> None:
    arg_block = Block(arg_types=[b.i1])
    arg_block.add_op(op(ins=[arg_block.args[0]]))
    arg_block.add_op(op(cls=TermOp, ins=[arg_block.args[0]]))
    region = Region(arg_block)

    def show(r: Region, **kw: Any) -> str:
        out = StringIO()
        Printer(stream=out).print_region(r, **kw)
        return out.getvalue()

    assert show(region) == ('{\n^bb0(%0: i1):\n  "test.op"(%0) : (i1) -> ()\n'
                            '  "test.term"(%0) : (i1) -> ()\n}')
    assert show(region, print_entry_block_args=False, print_block_terminators=False) == \
        '{\n  "test.op"(%0) : (i1) -> ()\n}'
    assert show(Region(Block())) == "{\n^bb0:\n}"
    assert show(Region(Block()), print_empty_block=False) == "{\n}"
    assert show(Region()) == "{\n}"


def test_custom_syntax_and_generic_override() -> None:
    a = op(outs=[b.i32])
    c = op(cls=CustomOp, ins=[a.results[0], a.results[0]], outs=[b.i1],
           attributes={"z": b.UnitAttr()})
    m = module(a, c)
    assert printed(m).splitlines()[2] == "  %1 = test.custom %0, %0 : i32, i32 {z}"
    generic = printed(m, print_generic_format=True)
    assert generic.startswith('"builtin.module"() ({\n')
    assert generic.splitlines()[2] == '  %1 = "test.custom"(%0, %0) {z} : (i32, i32) -> i1'
    assert generic.endswith("}) : () -> ()")


def test_properties_as_attributes_and_debuginfo() -> None:
    a = op(outs=[b.i32], attributes={"a": b.UnitAttr()}, properties={"p": b.IntAttr(2)})
    a.location = b.FileLineColLoc(b.StringAttr("f.pto"), b.IntAttr(3), b.IntAttr(4))
    assert printed(a, print_properties_as_attributes=True) == \
        '%0 = "test.op"() {a, p = #builtin.int<2>} : () -> i32'
    assert printed(a, print_debuginfo=True) == \
        '%0 = "test.op"() <{p = #builtin.int<2>}> {a} : () -> i32 loc("f.pto":3:4)'
    clash = op(attributes={"p": b.UnitAttr()}, properties={"p": b.UnitAttr()})
    with pytest.raises(ValueError, match="Properties p would overwrite"):
        printed(clash, print_properties_as_attributes=True)


def test_indentation() -> None:
    out = StringIO()
    p = Printer(stream=out, indent_num_spaces=3)
    p.print_string("a\nb")
    with p.indented():
        p.print_string("\nc")
        p.print_string("\nd", indent=0)
        with p.indented(2):
            p.print_string("\ne")
    p.print_string("\nf")
    assert out.getvalue() == "a\nb\n   c\nd\n         e\nf"
    nested = module(module(op(outs=[b.i1])))
    assert printed(nested, indent_num_spaces=4) == (
        'builtin.module {\n    builtin.module {\n        %0 = "test.op"() : () -> i1\n'
        '    }\n}')


def test_print_op_attributes() -> None:
    out = StringIO()
    p = Printer(stream=out)
    assert p.print_op_attributes({}) is False
    assert p.print_op_attributes({"a": b.i1}, reserved_attr_names=["a"]) is False
    assert out.getvalue() == ""
    assert p.print_op_attributes({"a": b.i1, "b": b.UnitAttr(), "c d": b.i8},
                                 reserved_attr_names=("a",), print_keyword=True) is True
    assert out.getvalue() == ' attributes {b, "c d" = i8}'


def test_literals() -> None:
    out = StringIO()
    p = Printer(stream=out)
    p.print_string_literal('plain')
    p.print_string_literal('q"b\\s\n\x7f\u00e9')
    p.print_bytes_literal(b"\x00\xff")
    p.print_identifier_or_string_literal("ok.id$1")
    p.print_identifier_or_string_literal("1bad")
    p.print_symbol_name("f")
    p.print_symbol_name("a-b")
    assert out.getvalue() == ('"plain""q\\22b\\\\s\\0A\\7F\\C3\\A9""\\00\\FF"ok.id$1"1bad"'
                              '@f@"a-b"')


def test_numbers() -> None:
    out = StringIO()
    p = Printer(stream=out)
    for value, t in [(1, b.i1), (0, b.i1), (5, b.i32), (-2, None)]:
        p.print_int(value, t)
        p.print_string(" ")
    for value, t in [(1.0, b.f32), (math.nan, b.f32), (-math.inf, b.f64), (1e100, b.f64),
                     (1.0, b.f8E4M3FN), (0.3, b.f64), (2.0**70, b.f64),
                     (12345678901234567.0, b.f64)]:
        p.print_float(value, t)
        p.print_string(" ")
    p.print_dimension_list([2, b.DYNAMIC_INDEX, 1])
    assert out.getvalue() == ("true false 5 -2 1.000000e+00 0x7fc00000 0xfff0000000000000 "
                              "1.000000e+100 1.000000e+00 3.000000e-01 1.1805916207174113e+21 "
                              "0x4345EE2A2EB5A5C4 2x?x1")


def test_function_types_and_lists() -> None:
    out = StringIO()
    p = Printer(stream=out)
    p.print_function_type([b.i1], [])
    p.print_string("|")
    p.print_function_type([], [b.i1])
    p.print_string("|")
    p.print_function_type([], [b.FunctionType.from_lists([], [])])
    p.print_string("|")
    p.print_function_type((t for t in [b.i1]), (t for t in [b.i8, b.i16]))
    p.print_string("|")
    p.print_list([1, 2, 3], lambda x: p.print_string(str(x)), "x")
    p.print_string("|")
    p.print_dictionary({"a": 1}, p.print_string, lambda v: p.print_string(str(v)))
    p.print_string("|")
    with p.in_angle_brackets():
        p.print_paramattr_parameters([b.i1, b.f32])
    with p.in_square_brackets(), p.in_parens(), p.in_braces():
        p.print_paramattr_parameters([], always_print_brackets=True)
    assert out.getvalue() == ("(i1) -> ()|() -> i1|() -> (() -> ())|(i1) -> (i8, i16)|"
                              "1x2x3|a=1|<<i1, f32>>[({<>})]")


def test_locations_nest_inside_one_loc() -> None:
    out = StringIO()
    p = Printer(stream=out)
    with p.in_location(), p.in_location():
        p.print_string("x")
    assert out.getvalue() == "loc(x)"


def test_ssa_and_block_names_are_stable_per_printer() -> None:
    a, c = op(outs=[b.i1]), op(outs=[b.i1])
    out = StringIO()
    p = Printer(stream=out)
    assert p.print_ssa_value(c.results[0]) == "0"
    assert p.print_ssa_value(a.results[0]) == "1"
    assert p.print_ssa_value(c.results[0]) == "0"
    block = Block()
    assert p.print_block_name(block) == "bb0"
    assert p.print_block_name(Block()) == "bb1"
    assert p.print_block_name(block) == "bb0"
    assert out.getvalue() == "%0%1%0^bb0^bb1^bb0"


def test_block_argument_and_block() -> None:
    block = Block([op()], arg_types=[b.f16])
    out = StringIO()
    p = Printer(stream=out)
    p.print_block_argument(block.args[0])
    p.print_string(" ")
    p.print_block_argument(block.args[0], print_type=False)
    p.print_block(block)
    p.print_block(block, print_block_args=False)
    assert out.getvalue() == ('%0: f16 %0\n^bb0(%0: f16):\n  "test.op"() : () -> ()'
                              '\n  "test.op"() : () -> ()')


def test_default_stream_is_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    Printer().print_attribute(b.MemRefType(b.f32, [2]))
    Printer().print_op(op(outs=[b.i8]))
    assert capsys.readouterr().out == 'memref<2xf32>%0 = "test.op"() : () -> i8'


def test_dialect_attribute_prefixes() -> None:
    """Non-builtin attributes print ``#name`` / ``!name`` and their parameters."""
    assert str(b.IntAttr(3)) == "#builtin.int<3>"
    out = StringIO()
    Printer(stream=out).print_attribute(b.ArrayAttr([b.IntAttr(1), b.i1]))
    assert out.getvalue() == "[#builtin.int<1>, i1]"
