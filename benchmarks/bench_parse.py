"""Front end speed: parsing and verifying `.pto` text, per op, against baselines in one run.

    python benchmarks/bench_parse.py [--ops 20000]

Two kernels of ``--ops`` ops each:
- a pto kernel (DMA micro ops, pointer casts and arith) through `ptosim.frontend.parse_module`
  (parse and verify), against one regular-expression pass that only splits the same text
  into tokens (the least any parser does);
- an arith / func kernel that xDSL 0.74 can also read (it knows no pto ops): ptosim's parser
  against xDSL's on the same text, when xDSL is installed (the dev extra has it as the
  reference of tests/mlir). The ratio is the front end's speed-up over the parser it
  replaced.

And two costs the front end must keep small, each against a baseline in the same run:
defining an op class (ptosim defines ~400; against creating the same class with `type()`
alone), and failing on an unterminated string literal (n and 2n characters: about 2x means
linear time, where a backtracking pattern would not finish).
"""

from __future__ import annotations

import argparse
import re
import time
from collections.abc import Callable

from ptosim.frontend import parse_module
from ptosim.mlir.builtin import StringAttr
from ptosim.mlir.context import Context
from ptosim.mlir.exceptions import ParseError
from ptosim.mlir.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    traits_def,
    var_operand_def,
)
from ptosim.mlir.lexer import tokenize
from ptosim.mlir.parser import Parser
from ptosim.mlir.traits import Pure

HEAD = ('module attributes {pto.target_arch = "a5", pto.kernel_kind = '
        '#pto.kernel_kind<vector>} {\n  func.func @k(%src: !pto.ptr<f32, gm>) '
        'attributes {pto.aicore} {\n    %z = arith.constant 0 : i64\n'
        '    %one = arith.constant 1 : i64\n')
PTO_BODY = ("    %len{i} = arith.addi %one, %z : i64\n"
            "    %ub{i} = pto.castptr %len{i} : i64 -> !pto.ptr<f32, ub>\n"
            "    pto.mte_gm_ub %src, %ub{i}, %z, %len{i} nburst(%one, %len{i}, %len{i})\n"
            "      : !pto.ptr<f32, gm>, !pto.ptr<f32, ub>, i64, i64, i64, i64, i64\n")
ARITH_HEAD = "func.func @k(%a: i64, %b: index) {\n"
ARITH_BODY = ("  %x{i} = arith.addi %a, %a : i64\n"
              "  %c{i} = arith.cmpi slt, %x{i}, %a : i64\n"
              "  %y{i} = arith.index_cast %b : index to i64\n")
TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[%#!^@]?[\w.$-]+|->|\S')


def best(fn: Callable[[], object], rounds: int) -> float:
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def _xdsl_parse(text: str) -> Callable[[], object] | None:
    try:
        from xdsl.context import Context as XContext
        from xdsl.dialects.arith import Arith
        from xdsl.dialects.builtin import Builtin
        from xdsl.dialects.func import Func
        from xdsl.parser import Parser as XParser
    except ImportError:
        return None
    ctx = XContext()
    for dialect in (Builtin, Func, Arith):
        ctx.load_dialect(dialect)
    return lambda: XParser(ctx, text).parse_module().verify()


def _own_parse(text: str) -> Callable[[], object]:
    from ptosim.mlir.arith import Arith
    from ptosim.mlir.builtin import Builtin
    from ptosim.mlir.func import Func

    ctx = Context()
    for dialect in (Builtin, Func, Arith):
        ctx.load_dialect(dialect)
    return lambda: Parser(ctx, text).parse_module().verify()


def _define_classes(count: int, decorate: bool) -> None:
    for i in range(count):
        cls = type(f"GenOp{i}", (IRDLOperation,), {
            "name": f"bench.gen{i}", "a": operand_def(), "b": opt_operand_def(),
            "c": var_operand_def(), "p": opt_prop_def(StringAttr),
            "irdl_options": (AttrSizedOperandSegments(as_property=True),),
            "traits": traits_def(Pure())})
        if decorate:
            irdl_op_definition(cls)


def _fail_to_lex(text: str) -> None:
    try:
        tokenize(text)
    except ParseError:
        return
    raise AssertionError("an unterminated literal lexed")


def extras(rounds: int) -> None:
    count = 200
    defined = best(lambda: _define_classes(count, True), rounds) / count
    plain = best(lambda: _define_classes(count, False), rounds) / count
    print(f"op class definition: {defined * 1e6:.1f} us per class; type() alone "
          f"{plain * 1e6:.1f} us; ratio {defined / plain:.1f}x")
    n = 200_000
    short = best(lambda: _fail_to_lex('"' + "ab" * (n // 2)), rounds)
    long = best(lambda: _fail_to_lex('"' + "ab" * n), rounds)
    print(f"unterminated string literal: {n:,} chars fail in {short * 1e3:.1f} ms, "
          f"{2 * n:,} in {long * 1e3:.1f} ms; ratio {long / short:.1f}x (2x = linear)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ops", type=int, default=20000)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    n = max(args.ops // 3, 1)

    pto = HEAD + "".join(PTO_BODY.format(i=i) for i in range(n)) + "    return\n  }\n}\n"
    ops = 3 * n + 3
    extras(args.rounds)
    ours = best(lambda: parse_module(pto, "bench.pto"), args.rounds)
    lex = best(lambda: TOKEN.findall(pto), args.rounds)
    print(f"pto kernel, {ops} ops: parse + verify {ours:.3f} s = {ours / ops * 1e6:.1f} us/op; "
          f"one regex token pass {lex:.3f} s; ratio {ours / lex:.1f}x")

    arith = ARITH_HEAD + "".join(ARITH_BODY.format(i=i) for i in range(n)) + "  return\n}\n"
    ops = 3 * n + 1
    own = best(_own_parse(arith), args.rounds)
    line = f"arith kernel, {ops} ops: ptosim.mlir {own / ops * 1e6:.1f} us/op"
    xdsl = _xdsl_parse(arith)
    if xdsl is None:
        print(line + "; xDSL not installed, no comparison")
        return
    theirs = best(xdsl, args.rounds)
    print(line + f", xDSL 0.74 {theirs / ops * 1e6:.1f} us/op; ptosim.mlir is "
          f"{theirs / own:.1f}x faster")


if __name__ == "__main__":
    main()
