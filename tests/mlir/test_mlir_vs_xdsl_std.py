"""ptosim.mlir's arith, scf and func dialects against xDSL 0.74: the same text parses to
modules that print the same (custom form, generic form, with locations) and verify with
the same outcome and message, and malformed text fails with the same message at the same
offset. The cases cover every form the kernels under tests/, examples/ and PTO-Gym use, each
op's custom syntax, and the errors a kernel can make. (Drop this file with the xDSL
dependency.)"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from xdsl.dialects.arith import IndexCastOp as XIndexCastOp
from xdsl.dialects.builtin import (
    IndexType as XIndexType,
    IntegerType as XIntegerType,
)
from xdsl.irdl import (
    IRDLOperation,
    base,
    irdl_op_definition,
    operand_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure as XPure

from mlir_helpers import OURS, framework, printed, std_context


@irdl_op_definition
class XIndexCastUIOp(IRDLOperation):
    """arith.index_castui as ptosim's xDSL front end defines it (xDSL lacks it)."""

    name = "arith.index_castui"
    input = operand_def(base(XIntegerType) | base(XIndexType))
    result = result_def(base(XIntegerType) | base(XIndexType))
    traits = traits_def(XPure())
    assembly_format = "$input attr-dict `:` type($input) `to` type($result)"
    verify_ = XIndexCastOp.verify_


XDSL = framework("xdsl")


def _outcome(fw: SimpleNamespace, ctx: Any, text: str) -> dict[str, Any]:
    """What parsing, printing (three ways) and verifying ``text`` with ``fw`` gives."""
    try:
        module = fw.Parser(ctx, text).parse_module()
    except Exception as err:  # noqa: BLE001 - the exception itself is compared
        span = getattr(err, "span", None)
        return {"parse": (type(err).__name__, getattr(err, "msg", str(err)),
                          None if span is None else span.start)}
    out: dict[str, Any] = {}
    for key, options in (("custom", {}), ("generic", {"print_generic_format": True}),
                         ("debuginfo", {"print_debuginfo": True})):
        try:
            out[key] = printed(module, fw.Printer, **options)
        except Exception as err:  # noqa: BLE001 - invalid IR: both fail the same way
            out[key] = (type(err).__name__, str(err))
    try:
        module.verify()
        out["verify"] = "ok"
    except Exception as err:  # noqa: BLE001
        out["verify"] = (type(err).__name__, str(err))
    return out


def _cases(text: str) -> list[str]:
    """The cases in ``text``, between lines ``----``."""
    return text.split("\n----\n")


def _in_f(signature: str, bodies: str) -> list[str]:
    """A case for each body in ``bodies`` (between blank lines): the body in
    ``func.func @f(signature)``, then ``func.return``."""
    return [f"func.func @f({signature}) {{\n{body}\n  func.return\n}}"
            for body in bodies.strip("\n").split("\n\n")]


# the cases that are a function @f ending in func.return, grouped by signature (_in_f), and
# the rest whole (_cases)
CASES = [
    *_cases("""\
module {
  func.func @kernel(%arg0: memref<?xf32>, %arg1: i64, %arg2: f32, %arg3: i32) attributes { pto.entry , pto.aicore} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16   : index
    %c256 = arith.constant 256 : index  // 16*16 (src size)
    %i0 = arith.constant 0 : i64
    %i1 = arith.constant -7 : i32
    %i2 = arith.constant 65535 : i16
    %i3 = arith.constant 255 : i8
    %b0 = arith.constant false
    %b1 = arith.constant true
    %b2 = arith.constant 1 : i1
    %f0 = arith.constant 0.0 : f32
    %f1 = arith.constant -1.5 : f16
    %f2 = arith.constant 3.0e-3 : bf16
    %f3 = arith.constant 1.0e+10 : f64
    %f4 = arith.constant 0x7F800000 : f32
    %f5 = arith.constant 1 : f32
    %f6 = arith.constant 0.1 : f32
    %v = arith.constant dense<0> : vector<8xi16>
    %v2 = arith.constant dense<[1, 2, 3, 4]> : vector<4xi32>
    %a = arith.addi %c0, %c1 : index
    %m = arith.muli %a, %c16 : index
    %s = arith.subi %m, %c1 : index
    %d = arith.divsi %arg3, %i1 : i32
    %du = arith.divui %arg3, %i1 : i32
    %r = arith.remsi %arg3, %i1 : i32
    %ru = arith.remui %arg3, %i1 : i32
    %cd = arith.ceildivsi %arg3, %i1 : i32
    %cdu = arith.ceildivui %arg3, %i1 : i32
    %fd = arith.floordivsi %arg3, %i1 : i32
    %mn = arith.minsi %arg3, %i1 : i32
    %mx = arith.maxsi %arg3, %i1 : i32
    %mnu = arith.minui %arg3, %i1 : i32
    %mxu = arith.maxui %arg3, %i1 : i32
    %an = arith.andi %arg3, %i1 : i32
    %o = arith.ori %arg3, %i1 : i32
    %x = arith.xori %arg3, %i1 : i32
    %sl = arith.shli %arg3, %i1 : i32
    %sr = arith.shrsi %arg3, %i1 : i32
    %su = arith.shrui %arg3, %i1 : i32
    %af = arith.addf %arg2, %f0 : f32
    %sf = arith.subf %arg2, %f0 : f32
    %mf = arith.mulf %arg2, %f0 fastmath<fast> : f32
    %dvf = arith.divf %arg2, %f0 fastmath<nnan, ninf> : f32
    %mxf = arith.maximumf %arg2, %f0 : f32
    %mnf = arith.minimumf %arg2, %f0 : f32
    %mxn = arith.maxnumf %arg2, %f0 : f32
    %mnn = arith.minnumf %arg2, %f0 : f32
    %ng = arith.negf %arg2 : f32
    %ng2 = arith.negf %arg2 fastmath<contract> : f32
    %cmp = arith.cmpi eq, %arg3, %i1 : i32
    %cmp2 = arith.cmpi sgt, %c0, %c1 : index
    %cmp3 = arith.cmpi uge, %arg3, %i1 : i32
    %cf = arith.cmpf olt, %arg2, %f0 : f32
    %cf2 = arith.cmpf une, %arg2, %f0 fastmath<fast> : f32
    %cf3 = arith.cmpf true, %arg2, %f0 : f32
    %sel = arith.select %cmp, %arg3, %i1 : i32
    %ic = arith.index_cast %arg3 : i32 to index
    %ic2 = arith.index_cast %c0 : index to i64
    %icu = arith.index_castui %c0 : index to i32
    %icu2 = arith.index_castui %arg3 : i32 to index
    %tr = arith.trunci %arg1 : i64 to i32
    %es = arith.extsi %arg3 : i32 to i64
    %eu = arith.extui %arg3 : i32 to i64
    %ef = arith.extf %f1 : f16 to f32
    %tf = arith.truncf %arg2 : f32 to f16
    %bc = arith.bitcast %arg3 : i32 to f32
    %bc2 = arith.bitcast %arg2 : f32 to i32
    %si = arith.sitofp %arg3 : i32 to f32
    %ui = arith.uitofp %arg3 : i32 to f32
    %fs = arith.fptosi %arg2 : f32 to i32
    %fu = arith.fptoui %arg2 : f32 to i32
    %ov = arith.addi %arg3, %i1 overflow<nsw> : i32
    %ov2 = arith.muli %arg3, %i1 overflow<nsw,nuw> : i32
    %ov3 = arith.subi %arg3, %i1 overflow<nuw> : i32
    %ov4 = arith.shli %arg3, %i1 overflow<none> : i32
    %ae:2 = arith.addui_extended %arg3, %i1 : i32, i1
    %me:2 = arith.mului_extended %arg3, %i1 : i32
    %ms:2 = arith.mulsi_extended %arg3, %i1 : i32
    %sum = scf.for %iv = %c0 to %c16 step %c1 iter_args(%acc = %i0) -> (i64) {
      %t = arith.addi %acc, %arg1 : i64
      scf.yield %t : i64
    }
    scf.for %iv = %c0 to %c16 step %c1 {
      %ii = arith.index_cast %iv : index to i64
      scf.if %cmp {
        %q = arith.addi %ii, %arg1 : i64
      }
    }
    scf.for %iv2 = %i1 to %arg3 step %i1 : i32 {
    }
    %y:2 = scf.if %cmp -> (i64, i32) {
      scf.yield %i0, %arg3 : i64, i32
    } else {
      scf.yield %arg1, %i1 : i64, i32
    }
    scf.if %cmp {
      func.call @helper(%arg3) : (i32) -> ()
    } else {
      func.call @none() : () -> ()
    }
    %h = func.call @helper2(%arg3, %arg2) : (i32, f32) -> i32
    %h2:2 = func.call @helper3() : () -> (i32, i32)
    return
  }
  func.func private @helper(%x: i32) attributes {pto.aicore} {
    return
  }
  func.func private @none() {
    func.return
  }
  func.func @helper2(%x: i32, %y: f32) -> i32 attributes {pto.aicore} {
    return %x : i32
  }
  func.func @helper3() -> (i32, i32) {
    %c = arith.constant 3 : i32
    func.return %c, %c : i32, i32
  }
  func.func private @ext(i32)
  func.func private @ext2(i32, f32) -> i64
}"""),
    *_in_f("%a: i32, %x: f32", """
  %c = arith.addi %a, %a : f32

  %c = arith.addi %a, %x : i32

  %c = "arith.addi"(%a, %x) : (i32, f32) -> i32

  %c = "arith.addi"(%x, %x) : (f32, f32) -> f32

  %c = arith.addf %a, %a : i32

  %c = arith.constant 1 : f32

  %c = arith.constant 1.5 : i32

  %c = arith.constant 300 : i8

  %c = arith.constant "s"

  %c = arith.constant 1

  %c = "arith.constant"() <{value = 1 : i32}> : () -> i64

  %c = arith.cmpi foo, %a, %a : i32

  %c = arith.cmpi slt, %x, %x : f32

  %c = arith.cmpf slt, %x, %x : f32

  %c = arith.index_cast %a : i32 to i64

  %c = arith.trunci %a : i32 to i64

  %c = arith.extsi %a : i32 to i16

  %c = arith.extui %a : i32 to i16

  %c = arith.bitcast %a : i32 to f64

  %c = arith.sitofp %x : f32 to f64

  %c = arith.select %a, %a, %a : i32

  %c = arith.addi %a, %a overflow<foo> : i32

  %c = arith.addf %x, %x fastmath<foo> : f32

  %c = arith.addi %a, %a {overflowFlags = #arith.overflow<nsw>} : i32

  %c = arith.cmpi slt, %a, %a {foo} : i32

  %c = arith.addi %a %a : i32

  %c = arith.addi %a, %a
"""),
    *_in_f("%a: i32, %x: f32, %v: vector<4xf32>, %vi: vector<4xi32>, %i: index, %b: i1", """
  %c = "arith.addi"(%v, %v) : (vector<4xf32>, vector<4xf32>) -> vector<4xf32>

  %c = "arith.addi"(%a, %a) : (i32, i32) -> i64

  %c = "arith.addf"(%a, %a) : (i32, i32) -> i32

  %c = "arith.addf"(%vi, %vi) : (vector<4xi32>, vector<4xi32>) -> vector<4xi32>

  %c = "arith.cmpi"(%a, %a) <{predicate = 0 : i64}> : (i32, i32) -> i32

  %c = "arith.select"(%a, %a, %a) : (i32, i32, i32) -> i32

  %c = "arith.select"(%b, %a, %x) : (i1, i32, f32) -> i32

  %c = "arith.fptosi"(%a) : (i32) -> i32

  %c = arith.fptosi %x : f32 to f32

  %c = arith.index_cast %x : f32 to index

  %c = arith.bitcast %v : vector<4xf32> to i32

  %c = arith.bitcast %i : index to f32

  %c = arith.bitcast %b : i1 to tensor<2xf32>

  %c = arith.extf %a : i32 to f64

  %c = arith.extf %x : f32 to f16

  %c = arith.truncf %x : f32 to f64

  %c = arith.trunci %i : index to i32

  %c = arith.cmpf olt, %a, %a : i32

  %c = arith.negf %a : i32

  %c = arith.select %b, %a, %a : f32

  %c = arith.constant dense<[1,2]> : vector<2xi32>
  %d = arith.constant dense<1.0> : tensor<2xf32>
  %e = arith.constant -1 : i1
  %g = arith.constant 1 : i1
  %h = arith.constant 0x7FC00000 : f32
  %k = arith.constant 1 : f32
  %l = arith.constant 1 : i64
  %m = arith.constant -5 : index
  %n = arith.constant 255 : i8

  %o = arith.constant 1.0e10 : f16

  %c = arith.constant 1 : ui32

  %c = arith.constant 1 : si32

  %c = arith.constant unit

  %c = "arith.constant"() <{value = 1.0 : f32}> : () -> f64

  %c = "arith.constant"() <{value = "x"}> : () -> f64

  %c = "arith.constant"() : () -> f64

  %c = "arith.constant"() <{value = 1 : i32}> : () -> (i32, i32)
"""),
    *_in_f("%a: i32", """
  func.call @g::@h(%a) : (i32) -> ()

  func.call "g"(%a) : (i32) -> ()

  func.call @g(%a) : (i32, i32) -> ()

  func.call @f(%a) : (i32) -> ()

  func.call @f(%a) {operandSegmentSizes = 1} : (i32) -> ()

  "func.call"(%a) <{callee = @g::@h}> : (i32) -> ()

  "func.call"(%a) <{callee = "x"}> : (i32) -> ()

  "func.call"(%a) : (i32) -> ()
"""),
    *_cases("""\
func.func @f(%a: i32) {
  func.return %a : i32
}
----
func.func @f(%a: i32) -> i64 {
  func.return %a : i32
}
----
func.func @f(%a: i32) {
  func.return {operandSegmentSizes} %a : i32
}
----
func.func @f(%a: i32) {
  func.return %a : i32, i32
}
----
func.func @f(%a: i32) {
  func.return : i32
}
----
module {
  func.return
}
----
func.func @f(%a: i32) {
  func.return
  func.return
}
----
func.func @f(%a: i32) {
}
----
func.func @f(%a: i32, i32) {
}
----
func.func @f(i32, %a: i32) {
}
----
func.func @f(%a: i32 loc("x":1:2) {a}) {
}
----
func.func @f(%a: i32 {a} loc("x":1:2)) {
  func.return
}
----
func.func @f(%a: i32) -> (i32, i64 {x = 1}) {
}
----
func.func @f(%a: i32) attributes {sym_name = "g"} {
}
----
func.func @f() attributes {function_type = i32}
----
func.func @f(%a: i32) -> () {
  func.return
}
----
func.func public @f(%a: i32) -> () {
  func.return
}
----
func.func nested @f(%a: i32) -> () {
  func.return
}
----
func.func private @f
----
func.func @f(%a: i32) -> i32
----
"func.func"() <{sym_name = "f", function_type = (i32) -> ()}> ({
^bb0(%a: i64):
  func.return
}) : () -> ()
----
"func.func"() <{sym_name = 1, function_type = (i32) -> ()}> ({
^bb0(%a: i32):
  func.return
}) : () -> ()
----
"func.func"() <{function_type = (i32) -> ()}> ({
^bb0(%a: i32):
  func.return
}) : () -> ()
----
func.func @f(%a: i32) {
  %0 = arith.constant 0 : i32
  func.func @g() {
    %1 = arith.addi %0, %0 : i32
    func.return
  }
  func.return
}
----
func.func @f(%a: i32) {
  func.call @g(%a) : (i32) -> ()
  func.return
}
func.func private @g(i64)
----
func.func @f(%a: i32) {
  %r = func.call @g(%a) : (i32) -> i32
  func.return
}
func.func private @g(i32)
----
func.func @f(%a: i32) {
  %r = func.call @g(%a) : (i32) -> i32
  func.return
}
func.func private @g(i32) -> i64
----
func.func @f(%a: i32) {
  func.call @g(%a, %a) : (i32, i32) -> ()
  func.return
}
func.func private @g(i32)
----
func.func @f(%a: i32) {
  func.call @g() : () -> ()
  func.return
}
----
module @m {
  func.func @f(%a: i32) {
    func.call @m::@g() : () -> ()
    func.return
  }
}"""),
    *_in_f("%a: i32", """
  func.call @f(%a) : (i32) -> i32 i32

  func.call @f(%a : (i32) -> ()

  func.call @f(%a) : (i32) -> (i32, i64) loc("a":1:1)
"""),
    *_cases("""\
func.func @f(%a: i32, %b: i64) {
  func.return %a, %b : i32, i64
}
----
func.func @f(%a: i32, %b: i64) -> (i32, i64) {
  func.return {x} %a, %b : i32, i64
}
----
func.func @f(%a: i32, %b: i64) -> (i32, i64) {
  func.return %a, %b : i32
}
----
func.func @f(%a: i32, %b: i64) -> (i32, i64) {
  func.return %a, %b
}
----
func.func @f(%a: i32, %b: i64) -> (i32, i64) {
  func.return %a, %b : i64, i32
}
----
func.func @"a b"(%a: i32 {x = 1 : i32, y}, %b: i64) -> (i32 {r}, i64) attributes {pto.aicore, k = "s"} {
  func.return %a, %b : i32, i64
}
----
func.func @f() {
  %0 = arith.constant 1 : i32
  func.return
}
func.func @f() {
  func.return
}"""),
    *_in_f("%a: i32, %b: i32", """
  ^bb1:

  %c = arith.cmpi sgt, %a, %b : i32
  cf.br ^bb1
  ^bb1:
"""),
    *_cases("""\
func.func @f(%a: i32, %b: i32) attributes {} {
  func.return
}
----
func.func @f(%a: i32, %b: i32) attributes {a} -> i32 {
  func.return
}
----
func.func @f(%a: i32, %b: i32) -> i32 attributes {a} {
  func.return %a : i32
}
----
func.func @f(%a, %b: i32) {
  func.return
}
----
func.func @f(%a: i32) -> (i32) {
  func.return %a : i32
}
----
func.func @f(%a: i32) -> (i32 {}) {
  func.return %a : i32
}
----
func.func @f(%a: i32 {}) {
  func.return
}
----
func.func @f(%a: i32) -> (() -> i32) {
  func.return
}
----
func.func @f(%a: i32) -> ((i32) -> i32, i32) {
  func.return
}
----
func.func @f(%a: i32) {
  %r = func.call @g(%a) : (i32) -> (() -> i32)
  func.return
}
----
func.func private @k() -> (i32 {x}, i32)
----
func.func private @k(i32 {x}, f32 loc("a":1:1)) -> (i32)
----
func.func private @k(%a : i32) -> (i32)
----
func.func @k(%a : i32) -> (i32) {
  func.return %a : i32
} loc("a":3:4)
----
func.func private @k(%a : i32) -> (i32) {
  func.return %a : i32
}
----
func.func private(%a : i32) -> (i32) {
  func.return %a : i32
}
----
func.func @k(%a : i32) -> i32, i32 {
  func.return %a : i32
}"""),
    *_in_f("%lb: index, %a: i32, %c: i1, %i8: i8", """
  scf.for %i = %lb to %lb step %lb {
    %x = arith.addi %a, %a : i32
  }
  scf.for %i = %lb to %lb step %lb {
    scf.yield
  }
  scf.for %i = %lb to %lb step %lb {
  } {attr = 1 : i32}
  %r:2 = scf.for %i = %lb to %lb step %lb iter_args(%x = %a, %y = %c) -> (i32, i1) {
    scf.yield %x, %y : i32, i1
  }
  scf.for %j = %i8 to %i8 step %i8 : i8 {
  }
"""),
    *_in_f("%lb: index, %a: i32", """
  %r = scf.for %i = %lb to %lb step %lb iter_args(%x = %a) -> (i32) {
  }

  %r = scf.for %i = %lb to %lb step %lb iter_args(%x = %a) -> (i64) {
    scf.yield %x : i64
  }

  %r = scf.for %i = %lb to %lb step %lb iter_args(%x = %a) -> (i32) {
    scf.yield
  }

  scf.for %i = %lb to %lb step %lb : i32 {
  }

  scf.for %i = %a to %a step %a : i32 {
  }

  "scf.for"(%lb, %a, %lb) ({
  ^bb0(%i: index):
    scf.yield
  }) : (index, i32, index) -> ()

  "scf.for"(%lb, %lb, %lb) ({
  ^bb0(%i: i32):
    scf.yield
  }) : (index, index, index) -> ()

  "scf.for"(%lb, %lb, %lb) ({
    scf.yield
  }) : (index, index, index) -> ()

  "scf.for"(%lb, %lb, %lb) ({
  ^bb0(%i: index, %j: index):
    scf.yield
  }) : (index, index, index) -> ()

  %r = "scf.for"(%lb, %lb, %lb, %a) ({
  ^bb0(%i: index, %j: index):
    scf.yield %a : i32
  }) : (index, index, index, i32) -> i32

  "scf.for"(%lb, %lb, %lb) ({
  ^bb0(%i: index):
    %x = arith.addi %a, %a : i32
  }) : (index, index, index) -> ()

  scf.for %i = %lb to %lb step %lb {
    func.return
  }

  scf.for %i = %lb to %lb {
  }

  scf.for %i = %lb, %lb step %lb {
  }

  scf.for %i : %lb to %lb step %lb {
  }

  %r = scf.for %i = %lb to %lb step %lb iter_args(%x = %a) {
  }

  %r = scf.for %i = %lb to %lb step %lb iter_args(%x = %a) -> (i32, i32) {
  }

  %r = scf.for %i = %lb to %lb step %lb iter_args(%x : %a) -> (i32) {
  }

  %r = scf.for %i = %lb to %lb step %lb iter_args(%x = %a) -> i32 {
    scf.yield %x : i32
  }

  scf.for %i = %lb to %lb step %lb {
    scf.yield %a : i32
  }

  scf.for %i = %lb to %lb step %lb {
    %x = arith.addi %a, %a : i32
    scf.yield
    %y = arith.addi %a, %a : i32
  }

  scf.for %i = %lb to %lb step %lb {
  ^bb1:
    scf.yield
  }
"""),
    *_in_f("%lb: index, %a: i32, %b: i64", """
  %r = scf.for %i = %lb to %lb step %lb iter_args(%x = %a) -> (i32) {
    scf.yield %b : i64
  }
"""),
    *_in_f("%lb: index, %a: ui32", """
  scf.for %i = %a to %a step %a : ui32 {
  }
"""),
    *_in_f("%lb: index, %a: f32", """
  scf.for %i = %a to %a step %a : f32 {
  }
"""),
    *_cases("""\
func.func @f(%lb: index, %a: i32) {
  scf.yield
}"""),
    *_in_f("%c: i1, %a: i32", """
  scf.if %c {
  }
  scf.if %c {
    %x = arith.addi %a, %a : i32
  } else {
    %y = arith.addi %a, %a : i32
  }
  scf.if %c {
    scf.yield
  } else {
    scf.yield
  } {foo = 1 : i32}
  %r = scf.if %c -> (i32) {
    scf.yield %a : i32
  } else {
    scf.yield %a : i32
  }
  %p, %q = scf.if %c -> (i32, i1) {
    scf.yield %a, %c : i32, i1
  } else {
    scf.yield %a, %c : i32, i1
  }

  %r = scf.if %c -> (i32) {
  }

  %r = scf.if %c -> i32 {
    scf.yield %a : i32
  }

  %r = scf.if %c -> (i32) {
    scf.yield %a : i32
  }

  scf.if %c {
  } else

  scf.if %c {
    func.return
  }

  "scf.if"(%c) ({
    %x = arith.addi %a, %a : i32
  }, {
  }) : (i1) -> ()

  "scf.if"(%c) ({
    scf.yield
  }) : (i1) -> ()

  %r = scf.execute_region -> i32 {
    scf.yield %a : i32
  }
  %s = scf.execute_region -> (i32, i1) {
    scf.yield %a, %c : i32, i1
  } {foo}
  scf.execute_region {
    %x = arith.addi %a, %a : i32
    scf.yield
  }

  scf.execute_region {
  }

  scf.execute_region {
    %x = arith.addi %a, %a : i32
  }

  %r = scf.execute_region -> () {
    scf.yield
  }

  %r = scf.execute_region -> (i32) {
    cf.br ^bb1
  ^bb1:
    scf.yield %a : i32
  }

  "scf.execute_region"() ({
  }) : () -> ()

  %wr = scf.while (%arg1 = %a) : (i32) -> i32 {
    %cc = arith.cmpi slt, %arg1, %arg1 : i32
    scf.condition(%cc) %arg1 : i32
  } do {
  ^bb0(%arg2: i32):
    scf.yield %arg2 : i32
  } attributes {foo}
  scf.while () : () -> () {
    scf.condition(%c)
  } do {
    scf.yield
  }

  %wr = scf.while (%arg1 = %a) : (i32, i32) -> i32 {
    scf.condition(%c) %arg1 : i32
  } do {
  ^bb0(%arg2: i32):
    scf.yield %arg2 : i32
  }

  %wr = scf.while (%arg1 = %a) : (i32) -> i32 {
    scf.condition(%c) %arg1 : i32
  } do {
  ^bb0(%arg2: i64):
    scf.yield %arg2 : i64
  }

  %wr = scf.while (%arg1 = %a) : (i32) -> i32 {
    scf.condition(%c) %arg1 : i32
  } {
  ^bb0(%arg2: i32):
    scf.yield %arg2 : i32
  }

  scf.while () : () -> () {
    scf.condition(%c) {operandSegmentSizes} %a : i32
  } do {
    scf.yield
  }

  scf.while () : () -> () {
    scf.condition(%c) {x} %a : i32
  } do {
    scf.yield
  }

  scf.while () : () -> () {
    scf.condition(%c) %a : i32, i32
  } do {
    scf.yield
  }
"""),
    *_in_f("%c: i32, %a: i32", """
  scf.if %c {
  }

  scf.while () : () -> () {
    scf.condition(%c)
  } do {
    scf.yield
  }
"""),
    *_in_f("%i: index, %a: i32", """
  %r = scf.index_switch %i -> i32
  case 2 {
    scf.yield %a : i32
  }
  case 5 {
    scf.yield %a : i32
  }
  default {
    scf.yield %a : i32
  }
  scf.index_switch %i {foo}
  default {
    scf.yield
  }

  %r = scf.index_switch %i -> i32
  case 2 {
    scf.yield %a : i32
  }
  case 2 {
    scf.yield %a : i32
  }
  default {
    scf.yield %a : i32
  }

  %r = scf.index_switch %i -> i32
  default {
    scf.yield
  }

  %r = scf.index_switch %i ->
  default {
    scf.yield
  }

  scf.index_switch %i
  case 1 {
    scf.yield
  }
"""),
    *_in_f("%lb: index, %a: i32", """
  %r = "scf.parallel"(%lb, %lb, %lb, %a) <{operandSegmentSizes = array<i32: 1, 1, 1, 1>}> ({
  ^bb0(%i: index):
    scf.reduce(%a : i32) {
    ^bb0(%x: i32, %y: i32):
      %s = arith.addi %x, %y : i32
      scf.reduce.return %s : i32
    }
  }) : (index, index, index, i32) -> i32
  "scf.parallel"(%lb, %lb, %lb) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    scf.reduce
  }) : (index, index, index) -> ()

  scf.parallel (%i) = (%lb) to (%lb) step (%lb) {
  }

  "scf.parallel"(%lb, %lb, %lb) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    scf.reduce {x}
  }) : (index, index, index) -> ()
  "scf.parallel"(%lb, %lb, %lb, %a) <{operandSegmentSizes = array<i32: 1, 1, 1, 1>}> ({
  ^bb0(%i: index):
    scf.reduce( : )
  }) : (index, index, index, i32) -> i32
"""),
    *_cases("""\
func.func @k(%a: i32, %x: f32) attributes {pto.aicore} {
  %c = arith.constant 3 : i64 loc("k.pto":3:5)
  %d = arith.constant {tag = "t"} dense<[1.0, 2.0]> : tensor<2xf32>
  %e = arith.constant -0.0 : f32
  %f = arith.constant 0x7FC00000 : f32
  %g = arith.constant 1.0 : bf16
  %h = arith.addi %a, %a {tag} : i32 loc("k.pto":9:1)
  %i = arith.addf %x, %x fastmath<reassoc,nnan> {tag} : f32
  %j = arith.index_cast %a {tag} : i32 to index
  %k = arith.select %c1, %a, %a {tag} : i32
  %c1 = arith.constant true
  %l = arith.negf %x {tag} : f32
  %m:2 = arith.mulsi_extended %a, %a {tag} : i32
  return
}
----
"builtin.module"() ({
  "func.func"() <{sym_name = "g", function_type = (i32) -> i32}> ({
  ^bb0(%a: i32):
    %0 = "arith.addi"(%a, %a) <{overflowFlags = #arith.overflow<nsw,nuw>}> : (i32, i32) -> i32
    %1 = "arith.mulf"(%b, %b) <{fastmath = #arith.fastmath<fast>}> : (f32, f32) -> f32
    %b = "arith.constant"() <{value = 1.0 : f32}> : () -> f32
    %2 = "arith.cmpf"(%b, %b) <{predicate = 3 : i64, fastmath = #arith.fastmath<nsz>}> : (f32, f32) -> i1
    %3 = "arith.cmpi"(%a, %a) <{predicate = 9 : i64}> : (i32, i32) -> i1
    "func.return"(%0) : (i32) -> ()
  }) : () -> ()
}) : () -> ()"""),
    *_in_f("%a: i32", """
  %0 = "arith.addi"(%a, %a) <{overflowFlags = #arith.overflow<bad>}> : (i32, i32) -> i32

  %0 = "arith.addi"(%a, %a) <{overflowFlags = #arith.fastmath<fast>}> : (i32, i32) -> i32

  %0 = "arith.cmpi"(%a, %a) <{predicate = 12 : i64}> : (i32, i32) -> i1

  %0 = "arith.cmpi"(%a, %a) : (i32, i32) -> i1

  %0 = arith.addi %a, %a overflow<> : i32
  %1 = arith.addi %a, %a overflow<"nsw"> : i32

  %0 = arith.addi %a, %a overflow<nsw nuw> : i32
"""),
    *_cases("""\
func.func @f(%x: f32) {
  %0 = arith.addf %x, %x fastmath<none,nnan> : f32
  %1 = arith.addf %x, %x fastmath<reassoc,nnan,ninf,nsz,arcp,contract,afn> : f32
  func.return
}
"""),
    *_in_f("%lb: index, %a: i32, %c: i1", """
  scf.for %i = %lb to %lb step %lb : index {
    scf.if %c {
      %r = scf.for %j = %lb to %lb step %lb iter_args(%x = %a) -> (i32) {
        %y = arith.addi %x, %z : i32
        %z = arith.constant 2 : i32
        scf.yield %y : i32
      }
    } else {
      %q = arith.muli %a, %a : i32
    }
  }
"""),
    *_in_f("%v: vector<4xi32>, %t: tensor<2xf32>", """
  %0 = arith.cmpi eq, %v, %v : vector<4xi32>

  %0 = arith.addi %v, %v : vector<4xi32>
  %1 = arith.addf %t, %t : tensor<2xf32>
  %2 = arith.negf %t : tensor<2xf32>
  %3:2 = arith.addui_extended %v, %v : vector<4xi32>, vector<4xi1>
  %4 = arith.bitcast %v : vector<4xi32> to vector<4xf32>

  %3:2 = arith.addui_extended %v, %v : vector<4xi32>, i1

  %3:2 = arith.addui_extended %v, %v : vector<4xi32>, vector<4xi32>
"""),
    *_in_f("%m: memref<4xi32>, %n: memref<4xf32>, %u: memref<4xui32>, %i: memref<4xindex>", """
  %0 = arith.bitcast %m : memref<4xi32> to memref<4xf32>
  %1 = arith.bitcast %u : memref<4xui32> to memref<4xf32>

  %1 = arith.bitcast %i : memref<4xindex> to memref<4xf32>
"""),
    *_in_f("%a: i32", """
  %0 = arith.constant 0x10 : i32
  %1 = arith.constant -0x10 : i64
  %2 = arith.constant 1.0e-3 : f64
  %3 = arith.constant 65504.0 : f16
  %4 = arith.constant 4294967295 : i32
  %5 = arith.constant -2147483648 : i32
  %6 = arith.constant 18446744073709551615 : i64

  %0 = arith.constant 4294967296 : i32
"""),
    *_cases("""\
func.func @f(%a: i32) {
  %c0_i32 = arith.constant 0 : i32
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %0 = arith.index_cast %c0_i32 : i32 to index
  scf.for %arg1 = %0 to %c16 step %c1 {
    %1 = arith.index_cast %arg1 : index to i32
    %2 = arith.addi %1, %a : i32
  }
  return
}
----
func.func @f(%a: i32) -> (i32) {
  %0 = scf.execute_region -> i32 {
    %1 = arith.addi %a, %a : i32
    scf.yield %1 : i32
  }
  return %0 : i32
}
----
func.func @f(%a: i32) -> (i32) {
  %0 = scf.if %b -> i32 {
    scf.yield %a : i32
  } else {
    scf.yield %a : i32
  }
  return %0 : i32
}
----
func.func @f(%c: i1, %a: i32) -> (i32) {
  %0, %1 = scf.if %c -> (i32) {
    scf.yield %a : i32
  } else {
    scf.yield %a : i32
  }
  return %0 : i32
}
"""),
]


@pytest.fixture(scope="module")
def contexts() -> tuple[Any, Any]:
    return std_context(XDSL, XDSL.ir.Dialect("ptosim", [XIndexCastUIOp])), std_context(OURS)


@pytest.mark.parametrize("text", CASES)
def test_same_as_xdsl(text: str, contexts: tuple[Any, Any]) -> None:
    xdsl_ctx, our_ctx = contexts
    assert _outcome(OURS, our_ctx, text) == _outcome(XDSL, xdsl_ctx, text)
