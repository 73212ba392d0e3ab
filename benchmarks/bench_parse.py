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
"""

from __future__ import annotations

import argparse
import re
import time
from collections.abc import Callable

from ptosim.frontend import parse_module
from ptosim.mlir.context import Context
from ptosim.mlir.parser import Parser

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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ops", type=int, default=20000)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    n = max(args.ops // 3, 1)

    pto = HEAD + "".join(PTO_BODY.format(i=i) for i in range(n)) + "    return\n  }\n}\n"
    ops = 3 * n + 3
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
