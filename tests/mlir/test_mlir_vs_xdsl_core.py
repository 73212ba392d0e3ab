"""ptosim.mlir's core against xDSL 0.74: the same definitions, built and verified in both,
give the same accessors, messages, walk orders, name hints and diagnostics text.
(Drop this file with the xDSL dependency.)"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any

import xdsl.dialects.builtin as x_builtin
import xdsl.ir as xdsl_ir
import xdsl.irdl as x_irdl

import ptosim.mlir.builtin as p_builtin
import ptosim.mlir.ir as p_ir
import ptosim.mlir.irdl as p_irdl
from mlir_helpers import OURS, any_op, core_ops, framework

XDSL = framework("xdsl")


# (annotations are resolved in the module's namespace, so these live at module level)
@x_irdl.irdl_attr_definition
class XBoxType(xdsl_ir.ParametrizedAttribute, xdsl_ir.TypeAttribute):
    name = "test.box"
    shape: x_builtin.ArrayAttr[x_builtin.IntAttr]
    space: x_builtin.StringAttr


@p_irdl.irdl_attr_definition
class PBoxType(p_ir.ParametrizedAttribute, p_ir.TypeAttribute):
    name = "test.box"
    shape: p_builtin.ArrayAttr[p_builtin.IntAttr]
    space: p_builtin.StringAttr


# the same op and attribute definitions, written against either API
DEFS = {name: types.SimpleNamespace(**core_ops(fw)._asdict(), AnyOp=any_op(fw), BoxType=box)
        for name, fw, box in (("xdsl", XDSL, XBoxType), ("ours", OURS, PBoxType))}


def outcome(fn: Callable[[], Any]) -> Any:
    """The value, or the exception's class name and text."""
    try:
        return fn()
    except Exception as e:  # noqa: BLE001 - any exception is part of the observation
        text = str(e).strip()
        for module in ("xdsl.dialects.builtin", "ptosim.mlir.builtin"):
            text = text.replace(module, "builtin")
        return (type(e).__name__, text)


def both(scenario: Callable[[types.SimpleNamespace, types.SimpleNamespace], Any]) -> None:
    expected = scenario(XDSL, DEFS["xdsl"])
    got = scenario(OURS, DEFS["ours"])
    assert got == expected


def _const(d: types.SimpleNamespace, t: Any) -> Any:
    return d.ConstOp.build(result_types=[t]).res


def _verify(op: Any) -> Any:
    return outcome(lambda: op.verify() or "ok")


def test_verify_messages() -> None:
    def scenario(m: Any, d: Any) -> Any:
        b = m.builtin
        a, idx, s = _const(d, b.i64), _const(d, b.IndexType()), _const(d, b.StringAttr("x"))
        seg_ok = d.SegOp.build(operands=[a, None, [a, a], [a]],
                               properties={"tag": b.StringAttr("t")})
        missing = d.SegOp.build(operands=[a, None, [], None], properties={})
        return [
            _verify(d.AddOp.create(operands=[idx, a], result_types=[b.i64])),
            _verify(d.AddOp.create(operands=[a, s], result_types=[b.i64])),
            _verify(d.AddOp.create(operands=[a, a], result_types=[b.IndexType()])),
            _verify(d.AddOp.create(operands=[a], result_types=[b.i64])),
            _verify(d.AddOp.create(operands=[a, a, a], result_types=[])),
            _verify(d.AddOp.create(operands=[a, a], result_types=[b.i64],
                                   properties={"kind": b.IntAttr(1)})),
            _verify(d.AddOp.create(operands=[a, a], result_types=[b.i64],
                                   properties={"other": b.IntAttr(1)})),
            _verify(d.AddOp.create(operands=[a, a], result_types=[b.i64])),
            _verify(seg_ok),
            _verify(missing),
            _verify(d.SegOp.create(operands=[a], properties={"tag": b.StringAttr("t")})),
            _verify(d.SegOp.create(operands=[a, a], properties={
                "tag": b.StringAttr("t"),
                "operandSegmentSizes": b.DenseArrayBase.from_list(b.i32, [1, 0, 0, 0])})),
            _verify(d.SegOp.create(operands=[a, a, a], properties={
                "tag": b.StringAttr("t"),
                "operandSegmentSizes": b.DenseArrayBase.from_list(b.i32, [1, 2, 0, 0])})),
            _verify(d.SegOp.create(operands=[a], properties={
                "tag": b.StringAttr("t"),
                "operandSegmentSizes": b.DenseArrayBase.from_list(b.i32, [1, 0, 0])})),
            _verify(d.SegOp.build(operands=[a, None, [a, idx], None],
                                  properties={"tag": b.StringAttr("t")})),
            _verify(d.SegOp.build(operands=[a, None, [], None], properties={
                "tag": b.StringAttr("t"),
                "words": b.ArrayAttr([b.StringAttr("w"), b.IntAttr(3)])})),
            _verify(d.MixOp.create(operands=[a])),
            _verify(d.MixOp.create(operands=[a, a, a])),
        ]
    both(scenario)


def test_build_errors() -> None:
    def scenario(m: Any, d: Any) -> Any:
        b = m.builtin
        a = _const(d, b.i64)
        tag = {"tag": b.StringAttr("t")}
        return [
            outcome(lambda: d.AddOp.build(operands=[a], result_types=[b.i64])),
            outcome(lambda: d.AddOp.build(operands=[a, None], result_types=[b.i64])),
            outcome(lambda: d.AddOp.build(operands=[a, a], result_types=[None])),
            outcome(lambda: d.AddOp.build(operands=[[a, a], a], result_types=[b.i64])),
            outcome(lambda: d.SegOp.build(operands=[a, [a, a], [], None], properties=tag)),
            outcome(lambda: d.SegOp.build(operands=[a, [], [], None], properties=tag) and "ok"),
        ]
    both(scenario)


def test_accessors_and_segments() -> None:
    def scenario(m: Any, d: Any) -> Any:
        b = m.builtin
        vs = [_const(d, b.i64) for _ in range(6)]
        for i, v in enumerate(vs):
            v.name_hint = f"v{i}"

        def names(x: Any) -> Any:
            if x is None:
                return None
            if isinstance(x, tuple):
                return [v.name_hint for v in x]
            return x.name_hint

        mix = d.MixOp.create(operands=vs[:4])
        mix2 = d.MixOp.create(operands=vs[:2])
        may = d.MaybeOp.create(operands=vs[:3], result_types=[b.i64, b.i32])
        may2 = d.MaybeOp.build(operands=[vs[0], None, vs[1]], result_types=[[]])
        seg = d.SegOp.build(operands=[vs[0], None, vs[1:4], [vs[4]]],
                            properties={"tag": b.StringAttr("t")})
        return [
            [names(getattr(mix, f)) for f in ("first", "middle", "last")],
            [names(getattr(mix2, f)) for f in ("first", "middle", "last")],
            [names(getattr(may, f)) for f in ("first", "maybe", "last")],
            [names(getattr(may2, f)) for f in ("first", "maybe", "last")],
            [str(t) for t in may.outs.types], may2.outs, str(may), str(may2),
            _verify(may), _verify(d.MaybeOp.create(operands=vs[:4])),
            [names(getattr(seg, f)) for f in ("a", "b", "c", "d")],
            str(seg.properties["operandSegmentSizes"]),
            str(seg),
            sorted(seg.properties),
        ]
    both(scenario)


def test_structure_and_walk() -> None:
    def scenario(m: Any, d: Any) -> Any:
        b, ir = m.builtin, m.ir
        made: list[Any] = []

        def c() -> Any:
            op = d.ConstOp.build(result_types=[b.i64])
            op.res.name_hint = f"c{len(made)}"
            made.append(op)
            return op

        inner = d.ScopeOp.build(regions=[[c(), c()]])
        top = d.ScopeOp.build(regions=[ir.Region([ir.Block([c(), inner, c()]),
                                                  ir.Block([c()], arg_types=[b.i64])])])

        def label(op: Any) -> str:
            return op.res.name_hint if op.name == "test.const" else op.name

        return [
            [label(o) for o in top.walk()],
            [label(o) for o in top.walk(region_first=True)],
            [label(o) for o in top.walk(reverse=True)],
            [label(o) for o in top.walk(reverse=True, region_first=True)],
            len(list(top.walk_blocks())),
            str(top),
        ]
    both(scenario)


def test_terminators_parents_isolation() -> None:
    def scenario(m: Any, d: Any) -> Any:
        b, ir = m.builtin, m.ir
        outside = _const(d, b.i64)
        y = d.YieldOp.build(operands=[[]])
        return [
            _verify(d.LoopOp.build(regions=[[d.YieldOp.build(operands=[[]])]])),
            _verify(d.LoopOp.build(regions=[ir.Region(ir.Block(
                [d.YieldOp.build(operands=[[]]), d.ConstOp.build(result_types=[b.i64])]))])),
            _verify(d.LoopOp.build(regions=[ir.Region(ir.Block(
                [d.ConstOp.build(result_types=[b.i64])]))])),
            _verify(d.LoopOp.build(regions=[ir.Region(ir.Block())])),
            _verify(d.LoopOp.build(regions=[ir.Region([ir.Block(), ir.Block()])])),
            _verify(d.ScopeOp.build(regions=[[y]])),
            _verify(d.ScopeOp.build(regions=[ir.Region([ir.Block(), ir.Block()])])),
            _verify(d.ScopeOp.build(regions=[ir.Region(ir.Block())])),
            _verify(d.IsolatedOp.build(regions=[[d.AddOp.build(
                operands=[outside, outside], result_types=[b.i64])]])),
            # without NoTerminator, the block's last op is checked before the isolation
            _verify(d.AnyOp.build(operands=[[]], result_types=[[]], successors=[[]],
                                  regions=[[ir.Region(ir.Block([d.AddOp.build(
                                      operands=[outside, outside], result_types=[b.i64])]))]])),
            d.AddOp.has_trait(m.traits.Pure), d.AddOp.has_trait(m.traits.Pure()),
            d.YieldOp.has_trait(m.traits.HasParent(d.LoopOp)),
            d.YieldOp.has_trait(m.traits.HasParent(d.ScopeOp)),
            m.traits.HasParent(d.LoopOp) == m.traits.HasParent(d.LoopOp),
        ]
    both(scenario)


def test_name_hints() -> None:
    def scenario(m: Any, d: Any) -> Any:
        out = []
        for name in ("x", "x_1", "x_1_2", "x1", "_", "$a.b-c", "1x", "a b", "", "bb0", "%x"):
            v = _const(d, m.builtin.i64)

            def assign(v: Any = v, name: str = name) -> Any:
                v.name_hint = name
                return v.name_hint
            r = outcome(assign)
            out.append(r if not isinstance(r, tuple) else r[0])
        return out
    both(scenario)


def test_attribute_parameters() -> None:
    def scenario(m: Any, d: Any) -> Any:
        b = m.builtin
        ok = d.BoxType.new([b.ArrayAttr([b.IntAttr(2)]), b.StringAttr("gm")])
        return [
            str(ok), ok == d.BoxType.new([b.ArrayAttr([b.IntAttr(2)]), b.StringAttr("gm")]),
            outcome(lambda: d.BoxType.new([b.ArrayAttr([b.IntAttr(2)]), b.IntAttr(1)])),
            outcome(lambda: d.BoxType.new([b.ArrayAttr([b.StringAttr("s")]),
                                           b.StringAttr("gm")])),
            outcome(lambda: d.BoxType.new([b.IntAttr(1), b.StringAttr("gm")])),
            [str(p) for p in ok.parameters],
        ]
    both(scenario)


def test_spans_and_parse_errors() -> None:
    text = "module {\n  %0 = \"x.y\"() : () -> i32\r\n}\n"

    def scenario(m: Any, d: Any) -> Any:
        inp = m.Input(text, "t.mlir")
        out = []
        for start, end in ((0, 6), (11, 13), (9, 30), (len(text), len(text)), (40, 41),
                           (8, 8), (36, 37)):
            span = m.Span(start, end, inp)
            out.append((span.text, str(span.get_location()), span.print_with_context("msg"),
                        span.print_with_context()))
            err = m.exc.ParseError(span, "bad thing")
            out.append((str(err), err.msg, err.span.start))
        return out
    both(scenario)
