"""Shared by the tests in tests/mlir: ptosim.mlir's or xDSL's modules under the same names,
the small `test` dialect's ops written once against the API the two share, contexts with the
standard dialects, and the offset and message of a parse error. xDSL is imported only when a
comparison test asks framework("xdsl") for it."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from io import StringIO
from types import SimpleNamespace
from typing import Any, NamedTuple

import pytest

from ptosim.mlir.exceptions import ParseError
from ptosim.mlir.printer import Printer

_MODULES = {  # name: (module under ptosim.mlir, module under xdsl)
    "ir": ("ir", "ir"), "irdl": ("irdl", "irdl"), "traits": ("traits", "traits"),
    "exc": ("exceptions", "utils.exceptions"), "lexer": ("lexer", "utils.lexer"),
    "context": ("context", "context"), "parser": ("parser", "parser"),
    "printer": ("printer", "printer"), "builtin": ("builtin", "dialects.builtin"),
    "arith": ("arith", "dialects.arith"), "func": ("func", "dialects.func"),
    "scf": ("scf", "dialects.scf"),
}


def framework(package: str) -> SimpleNamespace:
    """The modules of ``package`` ("ptosim.mlir" or "xdsl") by the names in _MODULES, with
    Context, Parser, Printer, Input and Span."""
    which = 0 if package == "ptosim.mlir" else 1
    fw = SimpleNamespace(**{name: importlib.import_module(f"{package}.{paths[which]}")
                            for name, paths in _MODULES.items()})
    fw.Context, fw.Parser, fw.Printer = fw.context.Context, fw.parser.Parser, fw.printer.Printer
    fw.Input, fw.Span = fw.lexer.Input, fw.lexer.Span
    return fw


OURS = framework("ptosim.mlir")


def std_context(fw: SimpleNamespace, *dialects: Any) -> Any:
    """A context with builtin, func, arith and scf loaded, then ``dialects``."""
    ctx = fw.Context()
    for dialect in (fw.builtin.Builtin, fw.func.Func, fw.arith.Arith, fw.scf.Scf, *dialects):
        ctx.load_dialect(dialect)
    return ctx


# --- the `test` dialect's ops ------------------------------------------------------------
def any_op(fw: SimpleNamespace, op_name: str = "test.op") -> Any:
    """Any operands, results, regions and successors; an optional property ``p``."""
    irdl = fw.irdl

    @irdl.irdl_op_definition
    class AnyOp(irdl.IRDLOperation):
        name = op_name
        ins = irdl.var_operand_def()
        outs = irdl.var_result_def()
        regs = irdl.var_region_def()
        succ = irdl.var_successor_def()
        p = irdl.opt_prop_def()

    return AnyOp


def term_op(fw: SimpleNamespace) -> Any:
    """``test.term``: a terminator with any operands."""
    irdl = fw.irdl

    @irdl.irdl_op_definition
    class TermOp(irdl.IRDLOperation):
        name = "test.term"
        ins = irdl.var_operand_def()
        traits = irdl.traits_def(fw.traits.IsTerminator())

    return TermOp


class CoreOps(NamedTuple):
    ConstOp: Any
    AddOp: Any
    MixOp: Any
    MaybeOp: Any
    SegOp: Any
    YieldOp: Any
    LoopOp: Any
    ScopeOp: Any
    IsolatedOp: Any


def core_ops(fw: SimpleNamespace) -> CoreOps:
    """Ops with each kind of operand, result, property and region definition and the
    common traits."""
    irdl, bt, tr = fw.irdl, fw.builtin, fw.traits

    @irdl.irdl_op_definition
    class ConstOp(irdl.IRDLOperation):
        name = "test.const"
        res = irdl.result_def()

    @irdl.irdl_op_definition
    class AddOp(irdl.IRDLOperation):
        name = "test.add"
        lhs = irdl.operand_def(bt.i64)
        rhs = irdl.operand_def(irdl.base(bt.IntegerType) | irdl.base(bt.IndexType))
        res = irdl.result_def(bt.IntegerType)
        mode = irdl.opt_prop_def(bt.StringAttr, prop_name="kind")
        traits = irdl.traits_def(tr.Pure())

    @irdl.irdl_op_definition
    class MixOp(irdl.IRDLOperation):
        """A single operand before and after a variadic one, and variadic results."""

        name = "test.mix"
        first = irdl.operand_def()
        middle = irdl.var_operand_def()
        last = irdl.operand_def()
        outs = irdl.var_result_def()

    @irdl.irdl_op_definition
    class MaybeOp(irdl.IRDLOperation):
        name = "test.maybe"
        first = irdl.operand_def()
        maybe = irdl.opt_operand_def()
        last = irdl.operand_def()
        outs = irdl.var_result_def()

    @irdl.irdl_op_definition
    class SegOp(irdl.IRDLOperation):
        name = "test.seg"
        a = irdl.operand_def()
        b = irdl.opt_operand_def()
        c = irdl.var_operand_def(bt.i64)
        d = irdl.opt_operand_def()
        tag = irdl.prop_def(bt.StringAttr)
        words = irdl.opt_prop_def(bt.ArrayAttr[bt.StringAttr])
        irdl_options = (irdl.AttrSizedOperandSegments(as_property=True),)

    @irdl.irdl_op_definition
    class YieldOp(irdl.IRDLOperation):
        name = "test.yield"
        args = irdl.var_operand_def()
        traits = irdl.lazy_traits_def(lambda: (tr.IsTerminator(), tr.HasParent(LoopOp)))

    @irdl.irdl_op_definition
    class LoopOp(irdl.IRDLOperation):
        name = "test.loop"
        body = irdl.region_def("single_block")
        traits = irdl.traits_def(tr.SingleBlockImplicitTerminator(YieldOp))

    @irdl.irdl_op_definition
    class ScopeOp(irdl.IRDLOperation):
        name = "test.scope"
        body = irdl.region_def()
        traits = irdl.traits_def(tr.NoTerminator())

    @irdl.irdl_op_definition
    class IsolatedOp(irdl.IRDLOperation):
        name = "test.isolated"
        body = irdl.region_def()
        traits = irdl.traits_def(tr.NoTerminator(), tr.IsolatedFromAbove())

    return CoreOps(ConstOp, AddOp, MixOp, MaybeOp, SegOp, YieldOp, LoopOp, ScopeOp, IsolatedOp)


# --- printing and parse errors -------------------------------------------------------------
def printed(op: Any, printer: Callable[..., Any] = Printer, **options: Any) -> str:
    """``op`` as ``printer`` (ptosim.mlir's by default) prints it with ``options``."""
    out = StringIO()
    printer(stream=out, **options).print_op(op)
    return out.getvalue()


def parse_error(fn: Callable[[], object]) -> tuple[int, str]:
    """The offset and message of the ParseError ``fn()`` raises."""
    with pytest.raises(ParseError) as info:
        fn()
    return info.value.span.start, info.value.msg
