"""The interpreter: arith / scf semantics, cores and sections, cross-core sync, deadlocks,
blocks, runtime diagnostics with file:line:col."""

import numpy as np
import pytest

import ptosim
from ptosim.frontend import parse_module, print_module
from ptosim.interp.executor import Core, CoreState, Executor
from ptosim.kernel import Kernel


def returns(body: str, *args, types="i64, i64", results="i64"):
    """Run a one-function module on a cube core and return what it returns."""
    text = (f"func.func @f(%x: i64, %y: i64) -> ({results}) {{\n{body}\n}}")
    module = parse_module(text, "t.pto")
    func = next(iter(module.ops))
    ex = Executor(ptosim.Machine(), lambda op: None, sync=None)
    gen = ex.run_function(CoreState(Core("cube", 0, 0)), func, list(args))
    try:
        next(gen)
    except StopIteration as stop:
        return stop.value
    raise AssertionError("the function blocked")


@pytest.mark.parametrize("op, x, y, want", [
    ("arith.addi", 2**63 - 1, 1, -2**63),              # wraps like i64
    ("arith.subi", -2**63, 1, 2**63 - 1),
    ("arith.muli", 2**62, 4, 0),
    ("arith.divsi", -7, 2, -3),                         # truncates toward zero
    ("arith.remsi", -7, 2, -1),
    ("arith.floordivsi", -7, 2, -4),
    ("arith.ceildivsi", 7, 2, 4),
    ("arith.divui", -1, 2, 2**63 - 1),                  # unsigned view of -1
    ("arith.shli", 1, 63, -2**63),
    ("arith.shrsi", -8, 1, -4),
    ("arith.shrui", -8, 60, 15),
    ("arith.maxsi", -3, 2, 2), ("arith.minui", -1, 2, 2),
    ("arith.andi", 12, 10, 8), ("arith.ori", 12, 10, 14), ("arith.xori", 12, 10, 6),
])
def test_integer_arithmetic(op, x, y, want):
    body = f"%r = {op} %x, %y : i64\n  func.return %r : i64"
    assert returns(body, x, y) == [want]


@pytest.mark.parametrize("pred, x, y, want", [
    ("slt", -1, 0, 1), ("ult", -1, 0, 0), ("eq", 3, 3, 1), ("sge", 2, 3, 0), ("ugt", -1, 5, 1)])
def test_cmpi(pred, x, y, want):
    body = f"%r = arith.cmpi {pred}, %x, %y : i64\n  func.return %r : i1"
    assert returns(body, x, y, results="i1") == [want]


def test_scf_for_with_iter_args_and_if():
    body = """
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.index_cast %x : i64 to index
  %zero = arith.constant 0 : i64
  %two = arith.constant 2 : i64
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (i64) {
    %i64 = arith.index_cast %i : index to i64
    %rem = arith.remsi %i64, %two : i64
    %even = arith.cmpi eq, %rem, %zero : i64
    %add = scf.if %even -> (i64) {
      scf.yield %i64 : i64
    } else {
      scf.yield %zero : i64
    }
    %next = arith.addi %acc, %add : i64
    scf.yield %next : i64
  }
  func.return %s : i64"""
    assert returns(body, 10, 0) == [0 + 2 + 4 + 6 + 8]


def test_division_by_zero_is_a_diagnostic():
    text = "func.func @f(%x: i64, %y: i64) {\n  %r = arith.divsi %x, %y : i64\n" \
           "  func.return\n}"
    k = Kernel.from_text(text, "div.pto")
    with pytest.raises(ptosim.PtoError, match=r"div.pto:2:\d+: error: arith.divsi: division by zero"):
        k.run({"x": 1, "y": 0})


MIXED = """module attributes {{pto.target_arch = "a5"}} {{
  func.func @k(%out: !pto.ptr<f32, gm>) attributes {{pto.aicore}} {{
    %c0 = arith.constant 0 : i64
    %c1 = arith.constant 1 : i64
    %c32 = arith.constant 32 : i64
    %ub = pto.castptr %c0 : i64 -> !pto.ptr<f32, ub>
{cube}
    pto.section.vector {{
{vector}
    }}
    return
  }}
}}
"""


def test_deadlock_names_every_blocked_core():
    text = MIXED.format(cube="    pto.section.cube {\n      pto.sync.wait <PIPE_FIX>, 0\n    }",
                        vector="      pto.sync.wait <PIPE_MTE3>, 3")
    k = Kernel.from_text(text, "dead.pto")
    with pytest.raises(ptosim.DeadlockError) as info:
        k.run({"out": np.zeros(8, np.float32)})
    msg = str(info.value)
    assert msg.startswith("dead.pto:8:")
    assert "block0.aic waits in pto.sync.wait at dead.pto:8:" in msg
    assert "semaphore block0 aiv0->aic #0" in msg
    assert "block0.aiv0 waits in pto.sync.wait at dead.pto:11:" in msg
    assert "semaphore block0 aic->aiv1 #3" in msg


def test_cross_core_sync_orders_cores():
    """AIV1 can only store after the cube signalled id 17 (its local 1)."""
    vector = """      %sb = pto.get_subblock_idx
      %is1 = arith.cmpi eq, %sb, %c1 : i64
      scf.if %is1 {
        pto.sync.wait <PIPE_MTE3>, 1
        pto.mte_ub_gm %ub, %out, %c32 nburst(%c1, %c32, %c32)
          : !pto.ptr<f32, ub>, !pto.ptr<f32, gm>, i64, i64, i64, i64
      }"""
    cube = "    pto.section.cube {\n      pto.sync.set <PIPE_FIX>, 17\n    }"
    k = Kernel.from_text(MIXED.format(cube=cube, vector=vector), "ok.pto")
    out = k.run({"out": np.ones(8, np.float32)}).outputs["out"]
    assert (out == 0).all()          # AIV1's (zeroed) UB row reached GM


def test_cube_op_on_vector_core_is_refused():
    vector = """      pto.mte_ub_gm %ub, %out, %c32 nburst(%c1, %c32, %c32)
        : !pto.ptr<f32, ub>, !pto.ptr<f32, gm>, i64, i64, i64, i64"""
    text = MIXED.format(cube="", vector=vector).replace("pto.section.vector", "pto.section.cube")
    k = Kernel.from_text(text, "wrong.pto")
    with pytest.raises(ptosim.PtoError, match=r"wrong.pto:9:\d+: error: .*mte_ub_gm runs on the "
                                              r"vector cores \(AIV\)"):
        k.run({"out": np.zeros(8, np.float32)})


def test_op_errors_carry_the_source_location():
    vector = """      %bad = pto.castptr %c32 : i64 -> !pto.ptr<f32, ub>
      pto.mte_ub_gm %bad, %out, %c32 nburst(%c1, %c32, %c1)
        : !pto.ptr<f32, ub>, !pto.ptr<f32, gm>, i64, i64, i64, i64"""
    k = Kernel.from_text(MIXED.format(cube="", vector=vector), "loc.pto")
    k.run({"out": np.zeros(8, np.float32)})           # aligned, single burst: fine
    bad = vector.replace("%c32 : i64 -> !pto.ptr<f32, ub>", "%c1 : i64 -> !pto.ptr<f32, ub>")
    k = Kernel.from_text(MIXED.format(cube="", vector=bad), "loc.pto")
    with pytest.raises(ptosim.AlignmentError,
                       match=r"^loc.pto:10:7: error: mte_ub_gm: ub_src byte offset 1 is not "
                             r"32-byte aligned \[on block0.aiv0\]"):
        k.run({"out": np.zeros(8, np.float32)})


def test_blocks_see_their_index():
    text = """module attributes {pto.target_arch = "a5", pto.kernel_kind = #pto.kernel_kind<vector>} {
  func.func @k(%out: !pto.ptr<f32, gm>) attributes {pto.aicore} {
    %c0 = arith.constant 0 : i64
    %c1 = arith.constant 1 : i64
    %c8 = arith.constant 8 : i64
    %c32 = arith.constant 32 : i64
    %ub = pto.castptr %c0 : i64 -> !pto.ptr<f32, ub>
    %blk = pto.get_block_idx
    %num = pto.get_block_num
    %off = arith.muli %blk, %c8 : i64
    %dst = pto.addptr %out, %off : !pto.ptr<f32, gm> -> !pto.ptr<f32, gm>
    pto.mte_gm_ub %dst, %ub, %c0, %c32 nburst(%c1, %c32, %c32)
      : !pto.ptr<f32, gm>, !pto.ptr<f32, ub>, i64, i64, i64, i64, i64
    pto.mte_ub_gm %ub, %dst, %c32 nburst(%c1, %c32, %c32)
      : !pto.ptr<f32, ub>, !pto.ptr<f32, gm>, i64, i64, i64, i64
    return
  }
}"""
    k = Kernel.from_text(text, "blk.pto")
    data = np.arange(24, dtype=np.float32)
    out = k.run({"out": data}, block_dim=3).outputs["out"]
    np.testing.assert_array_equal(out, data)           # each block moved its own 8 values


def test_ctrl_register_ops():
    body = """
  %c = pto.get_ctrl : i64
  %bit = arith.constant 48 : i64
  %s = pto.sbitset1 %c, %bit : i64, i64 -> i64
  pto.set_ctrl %s : i64
  %back = pto.get_ctrl : i64
  %zero = pto.sbitset0 %back, %bit : i64, i64 -> i64
  func.return %back, %zero : i64, i64"""
    assert returns(body, 0, 0, results="i64, i64") == [1 << 48, 0]


def test_python_api_refuses_mismatched_arrays():
    from ptosim.kernel import UsageError
    k = Kernel.from_text(MIXED.format(cube="", vector=""), "api.pto")
    with pytest.raises(UsageError, match="parameter out points to f32 but the array holds float64"):
        k.run({"out": np.zeros(8)})
    with pytest.raises(UsageError, match="missing value for parameter"):
        k.run({})


def test_memref_pointer_spelling_runs():
    """memref<?xT, #pto.address_space<...>> parameters and casts behave as !pto.ptr."""
    text = """module attributes {pto.target_arch = "a5", pto.kernel_kind = #pto.kernel_kind<vector>} {
  func.func @k(%src: memref<?xf32, #pto.address_space<gm>>,
               %dst: memref<?xf32, #pto.address_space<gm>>) attributes {pto.aicore} {
    %c0 = arith.constant 0 : i64
    %c1 = arith.constant 1 : i64
    %c64 = arith.constant 64 : i64
    %ub = pto.castptr %c0 : i64 -> !pto.ptr<f32, ub>
    pto.mte_gm_ub %src, %ub, %c0, %c64 nburst(%c1, %c64, %c64)
      : memref<?xf32, #pto.address_space<gm>>, !pto.ptr<f32, ub>, i64, i64, i64, i64, i64
    pto.mte_ub_gm %ub, %dst, %c64 nburst(%c1, %c64, %c64)
      : !pto.ptr<f32, ub>, memref<?xf32, #pto.address_space<gm>>, i64, i64, i64, i64
    return
  }
}"""
    out = Kernel.from_text(text, "memref.pto").run(
        {"src": np.arange(16, dtype=np.float32), "dst": np.zeros(16, np.float32)}).outputs
    np.testing.assert_array_equal(out["dst"], np.arange(16))       # 64 B = all 16 values


ROOT = __import__("pathlib").Path(__file__).resolve().parent.parent


def _matmul_with_nan(ctrl):
    """examples/matmul (mad_bias / mad_acc without a sat clause) with one NaN in A."""
    k = Kernel.from_file(ROOT / "examples" / "matmul" / "kernel.pto")
    a = np.ones((16, 32), np.float16)
    a[3, 5] = np.nan
    args = {"a": a, "b": np.ones((32, 16), np.float16), "bias": np.zeros(16, np.float32),
            "c": np.zeros((16, 16), np.float32), "m": 16, "n": 16, "k": 32}
    return k.run(args, ctrl=ctrl, hazards=False).outputs["c"]


def test_kernel_entry_ctrl_is_nosat_and_settable():
    """Cores start with CTRL bit 48 set (INF/NaN mode): a mad without a clause keeps NaN,
    as the PTO-Gym fixpipe-acc-store-sat-f16-cv golden expects; ctrl=0 starts saturating
    (NaN inputs count as 0)."""
    assert ptosim.Machine().ctrl == 1 << 48
    c = _matmul_with_nan(None)
    assert np.isnan(c[3]).all() and (np.delete(c, 3, axis=0) == 32).all()
    c = _matmul_with_nan(0)
    assert (c[3] == 31).all() and (np.delete(c, 3, axis=0) == 32).all()


def test_tile_ops_read_their_cores_ctrl():
    """A tile op sees the CTRL its core set (here: nosat set in the kernel before TMATMUL,
    on a run that starts saturating)."""
    text = (ROOT / "examples" / "tile_matmul" / "kernel.pto").read_text()
    at = text.index("    pto.tmatmul")
    text = text[:at] + """    %ctrl = pto.get_ctrl : i64
    %bit = arith.constant 48 : i64
    %nosat = pto.sbitset1 %ctrl, %bit : i64, i64 -> i64
    pto.set_ctrl %nosat : i64
""" + text[at:]
    k = Kernel.from_text(text, "ctrl.pto")
    a = np.ones((40, 50), np.float16)
    a[7, 0] = np.inf
    args = {"a": a, "b": np.ones((50, 60), np.float16), "c": np.zeros((40, 60), np.float32)}
    c = k.run(args, ctrl=0, hazards=False).outputs["c"]
    assert np.isposinf(c[7]).all() and (np.delete(c, 7, axis=0) == 50).all()


@pytest.mark.parametrize("value", [-1, 1 << 64, True, 1.5])
def test_entry_ctrl_must_be_a_64_bit_value(value):
    with pytest.raises(ptosim.PtoError, match="ctrl must be an integer in \\[0, 2\\*\\*64\\) "
                                              "\\(the 64-bit CTRL register\\), got"):
        ptosim.Machine(ctrl=value)


@pytest.mark.parametrize("cast, want", [("arith.index_castui", 2**32 - 1),
                                        ("arith.index_cast", -1)])
def test_index_castui_zero_extends(cast, want):
    """``arith.index_castui`` (used by PTO-Gym vector kernels) parses, prints and reads its
    source as unsigned; ``arith.index_cast`` sign-extends."""
    body = (f"%t = arith.trunci %x : i64 to i32\n  %i = {cast} %t : i32 to index\n"
            f"  %r = arith.index_cast %i : index to i64\n  func.return %r : i64")
    assert returns(body, -1, 0) == [want]
    text = f"func.func @f(%x: i64) -> index {{\n  %i = {cast} %x : i64 to index\n" \
           f"  func.return %i : index\n}}"
    assert f"{cast} %x : i64 to index" in print_module(parse_module(text))
    with pytest.raises(ptosim.PtoSyntaxError, match=r"k\.pto:2:\d+: .*cast incompatible"):
        parse_module(text.replace("i64 to index", "i64 to i32").replace("-> index", "-> i32")
                     .replace(": index", ": i32"), "k.pto")
