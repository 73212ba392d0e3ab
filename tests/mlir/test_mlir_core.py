"""ptosim.mlir's core: exceptions and spans, attributes, values, ops, blocks, regions,
op and attribute definitions (irdl) and traits."""

from __future__ import annotations

from typing import ClassVar

import pytest

from mlir_helpers import OURS, core_ops
from ptosim.mlir.builtin import (
    UNKNOWN_LOC,
    ArrayAttr,
    DenseArrayBase,
    IndexType,
    IntAttr,
    StringAttr,
    i32,
    i64,
)
from ptosim.mlir.exceptions import (
    DiagnosticException,
    Input,
    ParseError,
    Span,
    VerifyException,
)
from ptosim.mlir.ir import (
    Attribute,
    Block,
    BlockArgument,
    Data,
    Dialect,
    Operation,
    OpResult,
    ParametrizedAttribute,
    Region,
    SSAValue,
    TypeAttribute,
)
from ptosim.mlir.irdl import (
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    traits_def,
)
from ptosim.mlir.traits import (
    HasParent,
    IsTerminator,
    NoTerminator,
    OpTrait,
    Pure,
    SingleBlockImplicitTerminator,
)


# --- definitions used below -------------------------------------------------------------
@irdl_attr_definition
class WordAttr(Data[str]):
    name = "test.word"

    @classmethod
    def parse_parameter(cls, parser):  # type: ignore[no-untyped-def]
        raise NotImplementedError

    def print_parameter(self, printer) -> None:  # type: ignore[no-untyped-def]
        printer.print_string(f"<{self.data}>")


class _Shaped(ParametrizedAttribute, TypeAttribute):
    """Undecorated base: its parameters come first."""

    KIND: ClassVar[str] = "shaped"
    shape: ArrayAttr[IntAttr]
    element: Attribute


@irdl_attr_definition
class BoxType(_Shaped):
    name = "test.box"

    space: StringAttr

    def __init__(self, shape: list[int], element: Attribute, space: str = "gm") -> None:
        super().__init__(ArrayAttr([IntAttr(d) for d in shape]), element, StringAttr(space))

    def verify(self) -> None:
        if self.space.data == "bad":
            raise VerifyException("bad space")


@irdl_attr_definition
class UnitType(ParametrizedAttribute, TypeAttribute):
    name = "test.unit"


ConstOp, AddOp, MixOp, _MaybeOp, SegOp, YieldOp, LoopOp, ScopeOp, IsolatedOp = core_ops(OURS)


class _Checked(IRDLOperation):
    """Undecorated base with fields, traits and a verify_."""

    src = operand_def()
    traits = traits_def(Pure())

    def verify_(self) -> None:
        if self.src.type == i32:
            raise VerifyException(f"{self.name}: i32 not allowed")


@irdl_op_definition
class CheckedOp(_Checked):
    name = "test.checked"
    dst = operand_def()
    traits = traits_def(NoTerminator())

    def verify_(self) -> None:
        super().verify_()
        if self.dst.type != self.src.type:
            raise VerifyException("types differ")


def const(t: Attribute = i64) -> OpResult:
    return ConstOp.build(result_types=[t]).res


# --- exceptions and spans ----------------------------------------------------------------------
def test_span_text_and_location() -> None:
    inp = Input("first line\n  second %x line\nthird", "k.pto")
    span = Span(20, 22, inp)
    assert span.text == "%x" and len(span) == 2 and span.len == 2
    assert str(span.get_location()) == "k.pto:2:10"
    assert span.print_with_context("oops") == (
        "k.pto:2:10\n  second %x line\n         ^^\n         oops\n")
    # an empty span at the end of the text still shows a caret
    end = Span(len(inp), len(inp), inp)
    assert end.print_with_context() == "k.pto:3:6\nthird\n     ^\n"
    assert Span(1, 2, inp) == Span(1, 2, inp)
    with pytest.raises(AttributeError):
        span.start = 3  # type: ignore[misc]


def test_parse_error_and_hierarchy() -> None:
    inp = Input("a = b", "f")
    err = ParseError(Span(4, 5, inp), "expected c")
    assert err.span.start == 4 and err.msg == "expected c"
    assert str(err) == "f:1:5\na = b\n    ^\n    expected c\n"
    assert not isinstance(err, DiagnosticException)  # as in xDSL
    assert issubclass(VerifyException, DiagnosticException)
    with pytest.raises(ParseError):
        raise err


# --- attributes ------------------------------------------------------------------------------
def test_data_attribute() -> None:
    a, b = WordAttr("x"), WordAttr("x")
    assert a == b and hash(a) == hash(b) and a != WordAttr("y")
    assert a != StringAttr("x")  # same data, different class
    assert WordAttr.new("z").data == "z" and WordAttr.get(a) is a
    assert WordAttr.get("q") == WordAttr("q")
    assert repr(a) == "WordAttr(data='x')"
    with pytest.raises(AttributeError):
        a.data = "y"  # type: ignore[misc]


def test_parametrized_attribute_parameters() -> None:
    t = BoxType([2, 3], i64)
    assert BoxType._PARAM_NAMES_ == ("shape", "element", "space")  # bases first, no ClassVar
    assert t.parameters == (ArrayAttr([IntAttr(2), IntAttr(3)]), i64, StringAttr("gm"))
    assert t.element == i64 and t.space == StringAttr("gm")
    same = BoxType([2, 3], i64)
    assert t == same and hash(t) == hash(same) and t != BoxType([2, 3], i32)
    assert {t: 1}[same] == 1
    # new() bypasses the subclass __init__ (the parser builds attributes this way)
    built = BoxType.new([ArrayAttr([IntAttr(2), IntAttr(3)]), i64, StringAttr("gm")])
    assert built == t
    assert UnitType() == UnitType.new(()) and UnitType().parameters == ()
    with pytest.raises(AttributeError):
        t.space = StringAttr("ub")  # type: ignore[misc]
    with pytest.raises(ValueError, match="3 parameters"):
        BoxType.new([i64])


def test_parametrized_attribute_verification() -> None:
    with pytest.raises(VerifyException, match="bad space"):
        BoxType([1], i64, "bad")
    with pytest.raises(VerifyException, match="bad space"):
        BoxType.new([ArrayAttr([]), i64, StringAttr("bad")])
    # parameter kinds come from the annotations
    with pytest.raises(VerifyException) as info:
        BoxType.new([ArrayAttr([]), i64, IntAttr(1)])
    assert str(info.value) == \
        "parameter 'space' does not verify:\n#builtin.int<1> should be of base attribute string"
    with pytest.raises(VerifyException, match="parameter 'shape'"):
        BoxType.new([ArrayAttr([StringAttr("x")]), i64, StringAttr("gm")])


def test_attribute_text() -> None:
    assert str(i64) == "i64" and str(WordAttr("w")) == "#test.word<w>"
    assert str(BoxType([2], i32)) == '!test.box<[#builtin.int<2>], i32, "gm">'
    assert str(UnitType()) == "!test.unit"


# --- values, ops, blocks, regions ---------------------------------------------------------------
def test_name_hints() -> None:
    v = const()
    assert v.name_hint is None
    v.name_hint = "acc_12"
    assert v.name_hint == "acc"   # a numeric suffix is dropped, as in xDSL
    v.name_hint = "x.y$z-1"
    assert v.name_hint == "x.y$z-1"
    for bad in ("1abc", "a b", ""):
        with pytest.raises(ValueError):
            v.name_hint = bad
    v.name_hint = None
    assert v.name_hint is None
    assert SSAValue.is_valid_name("_ok") and not SSAValue.is_valid_name("9")


def test_operation_parts_and_uses() -> None:
    a, b = const(), const(IndexType())
    op = AddOp.create(operands=[a, b], result_types=[i64], properties={"kind": StringAttr("k")})
    assert op.operands == (a, b) and op.operands.types == (i64, IndexType())
    assert op.operand_types == (i64, IndexType()) and op.result_types == (i64,)
    assert isinstance(op.res, OpResult) and op.res.owner is op and op.res.index == 0
    assert op.lhs is a and op.rhs is b and op.mode == StringAttr("k")
    assert op.location is UNKNOWN_LOC and op.parent is None and op.parent_op() is None
    assert [u.operation for u in a.uses] == [op] and [u.index for u in b.uses] == [1]
    assert a.has_one_use() and a.get_user_of_unique_use() is op
    op2 = AddOp.create(operands=[a, a], result_types=[i64])
    assert [u.operation for u in a.uses] == [op2, op2, op]  # newest first, as in xDSL
    c = const()
    a.replace_all_uses_with(c)
    assert not a.uses and op.lhs is c and op2.operands == (c, c)
    assert c.uses.get_length() == 3
    op.operands = [b, b]
    assert op.operands == (b, b) and c.uses.get_length() == 2
    assert op.mode == StringAttr("k")
    op.mode = None
    assert "kind" not in op.properties and op.mode is None
    # identity semantics, usable as dict keys
    assert op != op2 and len({op, op2}) == 2


def test_ir_objects_hash_by_identity_in_c() -> None:
    """The interpreter keys its environment by values, ops and blocks: equality is
    identity and the hash is object's own (no Python-level __hash__ on the hot path)."""
    for cls in (SSAValue, OpResult, BlockArgument, Operation, Block, Region):
        assert cls.__hash__ is object.__hash__ and cls.__eq__ is object.__eq__, cls


def test_block_and_region_structure() -> None:
    ops = [ConstOp.build(result_types=[i64]) for _ in range(3)]
    block = Block(ops[:2], arg_types=[i64, i32])
    assert [a.type for a in block.args] == [i64, i32] and block.arg_types == (i64, i32)
    assert isinstance(block.args[0], BlockArgument) and block.args[1].index == 1
    assert block.first_op is ops[0] and block.last_op is ops[1] and len(block.ops) == 2
    block.insert_op_before(ops[2], ops[0])
    assert list(block.ops) == [ops[2], ops[0], ops[1]]
    assert list(reversed(block.ops)) == [ops[1], ops[0], ops[2]]
    assert block.ops.first is ops[2] and ops[0].next_op is ops[1]
    assert block.detach_op(ops[0]) is ops[0] and ops[0].parent is None
    assert list(block.ops) == [ops[2], ops[1]]
    with pytest.raises(ValueError):
        block.add_op(ops[1])    # already attached
    arg = block.insert_arg(IndexType(), 1)
    assert [a.index for a in block.args] == [0, 1, 2] and block.args[1] is arg
    block.erase_arg(arg)
    assert block.arg_types == (i64, i32)

    region = Region(block)
    assert region.block is block and region.blocks.first is block and len(region.blocks) == 1
    second = Block()
    region.add_block(second)
    assert list(region.blocks) == [block, second] and region.blocks[1] is second
    assert region.blocks[-1] is second and block.next_block is second
    with pytest.raises(ValueError):
        _ = region.block
    scope = ScopeOp.build(regions=[region])
    assert region.parent is scope and block.parent_op() is scope
    assert ops[1].parent_op() is scope and ops[1].parent_region() is region
    with pytest.raises(ValueError):
        ScopeOp.build(regions=[region])   # a region belongs to one op


def test_walk_order() -> None:
    inner = [ConstOp.build(result_types=[i64]) for _ in range(2)]
    nested = ScopeOp.build(regions=[[*inner]])
    tail = ConstOp.build(result_types=[i64])
    head = ConstOp.build(result_types=[i64])
    second_block = [ConstOp.build(result_types=[i64])]
    top = ScopeOp.build(regions=[Region([Block([head, nested, tail]), Block(second_block)])])
    pre = [top, head, nested, *inner, tail, *second_block]
    assert list(top.walk()) == pre
    assert list(top.walk(region_first=True)) == [head, *inner, nested, tail,
                                                 *second_block, top]
    assert list(top.walk(reverse=True)) == [top, second_block[0], tail, nested,
                                            inner[1], inner[0], head]
    assert list(top.regions[0].walk()) == pre[1:]
    assert list(top.walk_blocks()) == [top.regions[0].blocks[0], nested.body.block,
                                       top.regions[0].blocks[1]]


def test_clone() -> None:
    a = const()
    inner = AddOp.build(operands=[a, a], result_types=[i64])
    scope = ScopeOp.build(regions=[Region(Block([inner]))])
    copy = scope.clone()
    (cloned,) = copy.body.block.ops
    assert cloned is not inner and cloned.operands == (a, a) and cloned.name == "test.add"
    assert a.uses.get_length() == 4


# --- irdl -------------------------------------------------------------------------------------
def test_accessors_single_variadic() -> None:
    vs = [const() for _ in range(5)]
    op = MixOp.build(operands=[vs[0], vs[1:4], vs[4]], result_types=[[i64, i32]])
    assert op.first is vs[0] and op.middle == tuple(vs[1:4]) and op.last is vs[4]
    assert op.middle.types == (i64, i64, i64)
    assert op.outs == op.results and len(op.outs) == 2
    empty = MixOp.build(operands=[vs[0], [], vs[1]], result_types=[[]])
    assert empty.middle == () and empty.last is vs[1] and empty.outs == ()
    with pytest.raises(NotImplementedError):
        op.first = vs[1]  # type: ignore[misc]


def test_attr_sized_operand_segments() -> None:
    a, b, c1, c2 = const(), const(), const(), const()
    op = SegOp.build(operands=[a, None, [c1, c2], [b]], properties={"tag": StringAttr("t")})
    seg = op.properties["operandSegmentSizes"]
    assert isinstance(seg, DenseArrayBase) and seg.elt_type == i32
    assert tuple(seg.get_values()) == (1, 0, 2, 1)
    assert str(seg) == "array<i32: 1, 0, 2, 1>"
    assert op.a is a and op.b is None and op.c == (c1, c2) and op.d is b
    op.verify()
    # the generic form's create() takes the sizes from the properties
    again = SegOp.create(operands=[a, b, c1], properties=op.properties | {
        "operandSegmentSizes": DenseArrayBase.from_list(i32, [1, 1, 1, 0])})
    assert again.b is b and again.c == (c1,) and again.d is None
    again.verify()


def test_build_argument_errors() -> None:
    a = const()
    with pytest.raises(ValueError, match="Expected 2 operand, but got 1"):
        AddOp.build(operands=[a], result_types=[i64])
    with pytest.raises(ValueError, match="passed None to a non-optional"):
        AddOp.build(operands=[a, a], result_types=[None])
    # (as in xDSL, a None operand group becomes [] first)
    with pytest.raises(ValueError, match="passed Sequence to non-variadic VarIRConstruct"):
        AddOp.build(operands=[a, None], result_types=[i64])
    with pytest.raises(ValueError, match="expects a list of size at most 1"):
        SegOp.build(operands=[a, [a, a], [], None], properties={"tag": StringAttr("t")})
    with pytest.raises(ValueError, match="passed Sequence to non-variadic"):
        AddOp.build(operands=[[a, a], a], result_types=[i64])
    # an op with a single result stands for its result
    op = AddOp.build(operands=[a.owner, a], result_types=[i64])
    assert op.lhs is a


def _verify_error(op: Operation) -> str:
    with pytest.raises(VerifyException) as info:
        op.verify()
    return str(info.value)


def test_verify_messages() -> None:
    a, idx, s = const(), const(IndexType()), const(StringAttr("x"))
    assert _verify_error(AddOp.create(operands=[idx, a], result_types=[i64])) == (
        "operand 'lhs' at position 0 does not verify:\nExpected attribute i64 but got index")
    assert _verify_error(AddOp.create(operands=[a, s], result_types=[i64])) == (
        "operand 'rhs' at position 1 does not verify:\nUnexpected attribute \"x\"")
    assert _verify_error(AddOp.create(operands=[a, a], result_types=[idx.type])) == (
        "result 'res' at position 0 does not verify:\n"
        "index should be of base attribute integer_type")
    assert _verify_error(AddOp.create(operands=[a], result_types=[i64])) == \
        "Expected 2 operands, but got 1"
    assert _verify_error(AddOp.create(operands=[a, a], result_types=[i64],
                                      properties={"kind": IntAttr(1)})) == \
        "#builtin.int<1> should be of base attribute string"
    assert _verify_error(AddOp.create(operands=[a, a], result_types=[i64],
                                      properties={"other": IntAttr(1)})) == (
        "property 'other' is not defined by the operation 'test.add'. Use the dictionary "
        "attribute to add arbitrary information to the operation.")
    seg = SegOp.build(operands=[a, None, [], None], properties={"tag": StringAttr("t")})
    seg.properties.pop("tag")
    assert _verify_error(seg) == "property 'tag' expected in operation 'test.seg'"
    bad_seg = SegOp.create(operands=[a, a], properties={
        "tag": StringAttr("t"), "operandSegmentSizes": DenseArrayBase.from_list(i32, [1, 0, 0, 0])})
    assert _verify_error(bad_seg) == ("operand count (2) does not match with the total size (1) "
                                      "specified in attribute 'operandSegmentSizes'")
    no_seg = SegOp.create(operands=[a], properties={"tag": StringAttr("t")})
    assert _verify_error(no_seg) == \
        "Expected operandSegmentSizes property in test.seg operation."
    var_bad = SegOp.build(operands=[a, None, [a, idx], None], properties={"tag": StringAttr("t")})
    assert _verify_error(var_bad) == ("operand 'c' at positions 1 to 2 does not verify:\n"
                                      "Expected attribute i64 but got index")


def test_custom_verify_after_definition_checks() -> None:
    a, b32 = const(), const(i32)
    assert CheckedOp.has_trait(Pure) and CheckedOp.has_trait(NoTerminator)  # traits merge
    # as in xDSL, the class's own fields come before those of its bases
    assert [n for n, _ in CheckedOp.get_irdl_definition().operands] == ["dst", "src"]
    CheckedOp.build(operands=[a, a]).verify()
    assert _verify_error(CheckedOp.build(operands=[b32, a])) == "types differ"
    assert _verify_error(CheckedOp.build(operands=[a, b32])) == "test.checked: i32 not allowed"
    assert _verify_error(CheckedOp.create(operands=[a])) == "Expected 2 operands, but got 1"


def test_regions_and_terminators() -> None:
    loop = LoopOp.build(regions=[[YieldOp.build(operands=[[]])]])
    loop.verify()
    assert YieldOp.has_trait(IsTerminator) and YieldOp.get_trait(HasParent) == HasParent(LoopOp)
    # a terminator elsewhere than at the end, and a body without one
    body = Block([YieldOp.build(operands=[[]]), ConstOp.build(result_types=[i64])])
    assert _verify_error(LoopOp.build(regions=[Region(body)])) == \
        "'test.yield' must be the last operation in its parent block"
    body = Block([ConstOp.build(result_types=[i64])])
    assert _verify_error(LoopOp.build(regions=[Region(body)])) == \
        "Operation test.const terminates block in single-block region but is not a terminator"
    assert _verify_error(LoopOp.build(regions=[Region(Block())])) == (
        "Operation test.loop contains empty block in single-block region that expects at "
        "least a terminator")
    assert _verify_error(LoopOp.build(regions=[Region([Block(), Block()])])) == \
        "Region 'body' at position 0 expected a single block, but got 2 blocks"
    stray = ScopeOp.build(regions=[[YieldOp.build(operands=[[]])]])
    assert _verify_error(stray) == "'test.yield' expects parent op 'test.loop'"
    ScopeOp.build(regions=[Region(Block())]).verify()   # NoTerminator: empty is fine
    # nested ops are verified unless verify_nested_ops=False
    inner_bad = AddOp.create(operands=[], result_types=[])
    outer = ScopeOp.build(regions=[[inner_bad]])
    with pytest.raises(VerifyException):
        outer.verify()
    outer.verify(verify_nested_ops=False)


def test_isolated_from_above() -> None:
    outside = const()
    user = AddOp.build(operands=[outside, outside], result_types=[i64])
    op = IsolatedOp.build(regions=[[user]])
    with pytest.raises(VerifyException, match="IsolatedFromAbove"):
        op.verify()
    inside = ConstOp.build(result_types=[i64])
    ok = IsolatedOp.build(regions=[[inside, AddOp.build(operands=[inside.res, inside.res],
                                                        result_types=[i64])]])
    ok.verify()


def test_traits() -> None:
    assert Pure() == Pure() and hash(Pure()) == hash(Pure()) and Pure() != NoTerminator()
    assert HasParent(LoopOp) == HasParent(LoopOp) and HasParent(LoopOp) != HasParent(ScopeOp)
    assert AddOp.has_trait(Pure()) and AddOp.has_trait(Pure) and not AddOp.has_trait(IsTerminator)
    assert AddOp.get_trait(Pure) == Pure() and ConstOp.get_trait(Pure) is None
    assert isinstance(Pure(), OpTrait)
    assert LoopOp.get_trait(SingleBlockImplicitTerminator) == \
        SingleBlockImplicitTerminator(YieldOp)


def test_dialect() -> None:
    d = Dialect("test", [AddOp, ConstOp], [WordAttr])
    assert d.name == "test" and list(d.operations) == [AddOp, ConstOp]
    assert list(d.attributes) == [WordAttr]
    assert Dialect.split_name("test.add.x") == ("test", "add.x") and AddOp.dialect_name() == "test"


def test_op_text() -> None:
    a = const()
    a.name_hint = "a"
    op = AddOp.build(operands=[a, a], result_types=[i64])
    assert str(op) == '%0 = "test.add"(%a, %a) : (i64, i64) -> i64'


def test_walk_survives_erasing_the_current_op() -> None:
    ops = [ConstOp.build(result_types=[i64]) for _ in range(4)]
    top = ScopeOp.build(regions=[ops])
    seen = []
    for op in top.walk():
        seen.append(op)
        if op is ops[1]:
            op.detach()
            op.erase()
    assert seen == [top, *ops] and list(top.body.block.ops) == [ops[0], *ops[2:]]


def test_package_import_loads_no_submodule() -> None:
    import subprocess
    import sys

    code = ("import sys, ptosim.mlir; "
            "print(sorted(m for m in sys.modules if m.startswith('ptosim.mlir.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"
