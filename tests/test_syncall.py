"""SYNCALL: PTOAS's `pto.syncall` run by the scheduler (hard: every participant of the
core type rendezvouses; soft: syncall_soft.hpp's i32 counter in GM), seen by the hazard
checker and by deadlock detection, PTOAS's operand rules, the targets' support matrix, and
the Python face."""

from __future__ import annotations

import numpy as np
import pytest

import ptosim
from ptosim.errors import DeadlockError, PtoSyntaxError, TargetError
from ptosim.frontend.text import parse_module
from ptosim.kernel import Kernel

HARD = "pto.syncall() mode = #pto.sync_all_mode<hard>, core_type = #pto.sync_core_type<aiv_only>"
WS_T = "!pto.tensor_view<8xi32>, !pto.tile_buf<vec, 1x64xi32>"


def _soft(used: str = "") -> str:
    ops, types = ("%ws, %u", WS_T) if not used else (f"%ws, %u, {used}", WS_T + ", i32")
    return (f"pto.syncall({ops} : {types}) mode = #pto.sync_all_mode<soft>, "
            f"core_type = #pto.sync_core_type<aiv_only>")


# block 0 copies src to mid; block 1 copies mid to dst: a cross-block RAW through GM
KERNEL = """module attributes {{pto.target_arch = "{target}", pto.kernel_kind = #pto.kernel_kind<vector>}} {{
  func.func @k(%src: !pto.ptr<f32, gm>, %mid: !pto.ptr<f32, gm>, %dst: !pto.ptr<f32, gm>,
               %wsp: !pto.ptr<i32, gm>) attributes {{pto.aicore}} {{
    %c0 = arith.constant 0 : i64
    %c1 = arith.constant 1 : i64
    %c32 = arith.constant 32 : i64
    %i1 = arith.constant 1 : index
    %i8 = arith.constant 8 : index
    %n3 = arith.constant 3 : i32
    %n1 = arith.constant 1 : i32
    %ws = pto.make_tensor_view %wsp, shape = [%i8], strides = [%i1] : !pto.tensor_view<8xi32>
    %u = pto.alloc_tile : !pto.tile_buf<vec, 1x64xi32>
    %ub = pto.castptr %c0 : i64 -> !pto.ptr<f32, ub>
    %blk = pto.get_block_idx
    %is0 = arith.cmpi eq, %blk, %c0 : i64
    %is1 = arith.cmpi eq, %blk, %c1 : i64
    scf.if %is0 {{
      pto.mte_gm_ub %src, %ub, %c0, %c32 nburst(%c1, %c32, %c32)
        : !pto.ptr<f32, gm>, !pto.ptr<f32, ub>, i64, i64, i64, i64, i64
      pto.set_flag["PIPE_MTE2", "PIPE_MTE3", "EVENT_ID0"]
      pto.wait_flag["PIPE_MTE2", "PIPE_MTE3", "EVENT_ID0"]
      pto.mte_ub_gm %ub, %mid, %c32 nburst(%c1, %c32, %c32)
        : !pto.ptr<f32, ub>, !pto.ptr<f32, gm>, i64, i64, i64, i64
{only0}
    }}
{sync}
    scf.if %is1 {{
      pto.mte_gm_ub %mid, %ub, %c0, %c32 nburst(%c1, %c32, %c32)
        : !pto.ptr<f32, gm>, !pto.ptr<f32, ub>, i64, i64, i64, i64, i64
      pto.set_flag["PIPE_MTE2", "PIPE_MTE3", "EVENT_ID0"]
      pto.wait_flag["PIPE_MTE2", "PIPE_MTE3", "EVENT_ID0"]
      pto.mte_ub_gm %ub, %dst, %c32 nburst(%c1, %c32, %c32)
        : !pto.ptr<f32, ub>, !pto.ptr<f32, gm>, i64, i64, i64, i64
    }}
    return
  }}
}}
"""
SRC = np.arange(8, dtype=np.float32) + 1


def _run(sync: str = "", only0: str = "", target: str = "a5") -> ptosim.kernel.RunResult:
    text = KERNEL.format(target=target, sync=f"    {sync}" if sync else "",
                         only0=f"      {only0}" if only0 else "")
    args = {"src": SRC, "mid": np.zeros(8, np.float32), "dst": np.zeros(8, np.float32),
            "wsp": np.zeros(8, np.int32)}
    return Kernel.from_text(text, "s.pto").run(args, block_dim=2)


def _races(res: ptosim.kernel.RunResult) -> list[str]:
    return [f.message for f in res.findings]


@pytest.mark.parametrize("target", ["a5", "a2a3"])
def test_hard_syncall_orders_the_blocks(target: str) -> None:
    bad = _run(target=target)
    assert len(bad.findings) == 1
    msg = bad.findings[0].message
    assert ("RAW hazard on GM %mid bytes [0, 32): pto.mte_gm_ub (block1.aiv0 PIPE_MTE2) reads "
            "what pto.mte_ub_gm (block0.aiv0 PIPE_MTE3)") in msg
    assert msg.endswith("order the blocks: a pto.syncall that both cores reach between the "
                        "first and the second")
    good = _run(HARD, target=target)
    assert good.findings == []
    np.testing.assert_array_equal(good.outputs["dst"], SRC)


def test_soft_syncall_orders_and_counts() -> None:
    good = _run(_soft())
    assert good.findings == []
    np.testing.assert_array_equal(good.outputs["dst"], SRC)
    # one arrival per participant: the counter holds 2 (the other slots untouched)
    np.testing.assert_array_equal(good.outputs["wsp"], [2, 0, 0, 0, 0, 0, 0, 0])


def test_soft_syncall_with_one_core_per_generation_orders_nothing() -> None:
    """used_cores = 1: each arrival completes its own generation (the counter reaches
    (before // 1 + 1) * 1 at once), so the blocks race as without SYNCALL."""
    res = _run(_soft("%n1"))
    assert len(res.findings) == 1 and "block1.aiv0" in res.findings[0].message
    assert list(res.outputs["wsp"][:1]) == [2]


def test_syncall_not_reached_by_every_core_is_a_deadlock() -> None:
    with pytest.raises(DeadlockError) as info:
        _run(only0=HARD)
    msg = str(info.value)
    assert "deadlock: every unfinished core is blocked on a cross-core semaphore or SYNCALL" \
        in msg
    assert ("block0.aiv0 waits in pto.syncall at s.pto:24:7 for the other aiv_only cores: "
            "1 of 2 arrived at SYNCALL #0") in msg


def test_soft_syncall_counting_too_many_cores_is_a_deadlock() -> None:
    with pytest.raises(DeadlockError) as info:
        _run(_soft("%n3"))
    msg = str(info.value)
    assert "block0.aiv0 waits in pto.syncall at s.pto:26:5 for the soft SYNCALL counter" in msg
    assert "to reach 3 (it holds 2; 3 participants per generation)" in msg
    assert "block1.aiv0 waits in pto.syncall" in msg


MIXED = """module attributes {{pto.target_arch = "{target}"}} {{
  func.func @k(%out: !pto.ptr<f32, gm>) attributes {{pto.aicore}} {{
    {line}
    return
  }}
}}
"""


def _mixed(line: str, target: str, name: str = "m.pto", **kw: object) -> object:
    return Kernel.from_text(MIXED.format(target=target, line=line), name).run(
        {"out": np.zeros(8, np.float32)}, **kw)


@pytest.mark.parametrize("core", ["aiv_only", "aic_only", "mix"])
def test_hard_core_types_run_on_a2a3(core: str) -> None:
    line = HARD.replace("aiv_only", core)
    assert _mixed(line, "a2a3", block_dim=2).findings == []


@pytest.mark.parametrize("line,msg", [
    (HARD.replace("aiv_only", "mix"), r"m.pto:3:5: error: .*hard SYNCALL of core type mix "
     r"does not exist on a5"),
])
def test_a5_support_matrix(line: str, msg: str) -> None:
    with pytest.raises(TargetError, match=msg):
        _mixed(line, "a5")


def test_mix_syncall_needs_a_mixed_kernel() -> None:
    text = KERNEL.format(target="a2a3", sync="    " + HARD.replace("aiv_only", "mix"),
                         only0="")
    with pytest.raises(ptosim.PtoError, match=r"a mix SYNCALL needs a mixed kernel"):
        Kernel.from_text(text, "s.pto").run(
            {"src": SRC, "mid": np.zeros(8, np.float32), "dst": np.zeros(8, np.float32),
             "wsp": np.zeros(8, np.int32)})


def _module(line: str, params: str = "") -> str:
    return (f"module {{\n  func.func @k({params}) attributes {{pto.aicore}} {{\n"
            f"    {line}\n    return\n  }}\n}}\n")


GM = "%g: memref<64xi32, #pto.address_space<gm>>"
UB = "%u: memref<64xi32, #pto.address_space<vec>>"
L1 = "%l: memref<64xi32, #pto.address_space<mat>>"
GM_T = "memref<64xi32, #pto.address_space<gm>>"
UB_T = "memref<64xi32, #pto.address_space<vec>>"
L1_T = "memref<64xi32, #pto.address_space<mat>>"
SOFT = "mode = #pto.sync_all_mode<soft>, core_type = #pto.sync_core_type<{}>"


def test_ptoas_lit_form_round_trips() -> None:
    """PTOAS's syncall_emitc.pto lines parse and print back."""
    soft = f"pto.syncall(%g, %u, %l, %n : {GM_T}, {UB_T}, {L1_T}, i32) {SOFT.format('mix')}"
    module = parse_module(_module(soft, f"{GM}, {UB}, {L1}, %n: i32"), "k.pto")
    assert soft in str(module)


@pytest.mark.parametrize("line,params,msg", [
    (f"pto.syncall(%g : {GM_T}) {SOFT.format('aiv_only')}", GM,
     r"pto.syncall: expects soft AIV-only syncall to have gm_workspace, ub_workspace, and "
     r"optional used_cores"),
    (f"pto.syncall(%g, %u : {GM_T}, {UB_T}) {SOFT.format('mix')}", f"{GM}, {UB}",
     r"expects soft mixed syncall to have gm_workspace, ub_workspace, l1_workspace"),
    (f"pto.syncall(%g, %l : {GM_T}, {L1_T}) {SOFT.format('aic_only')}".replace(
        "soft", "hard"), f"{GM}, {L1}", r"expects hard syncall to have no operands"),
    (f"pto.syncall(%u, %u : {UB_T}, {UB_T}) {SOFT.format('aiv_only')}", UB,
     r"expects gm_workspace to be in GM address space"),
    (f"pto.syncall(%g, %l : {GM_T}, {L1_T}) {SOFT.format('aiv_only')}", f"{GM}, {L1}",
     r"expects ub_workspace to be in vec address space"),
    (f"pto.syncall(%g, %l, %x : {GM_T}, {L1_T}, i64) {SOFT.format('aic_only')}",
     f"{GM}, {L1}, %x: i64", r"expects used_cores to be i32"),
    ("pto.syncall() mode = #pto.pipe<PIPE_V>, core_type = #pto.sync_core_type<mix>", "",
     r"expects mode to be #pto.sync_all_mode<...>"),
    ("pto.syncall() mode = #pto.sync_all_mode<hard>, core_type = #pto.sync_core_type<all>",
     "", r"expected a SYNCALL core type \(one of aiv_only, aic_only, mix\), got 'all'"),
])
def test_ptoas_rules(line: str, params: str, msg: str) -> None:
    with pytest.raises(PtoSyntaxError, match=msg):
        parse_module(_module(line, params), "k.pto")


def test_f32_gm_workspace_is_refused() -> None:
    t = "memref<64xf32, #pto.address_space<gm>>"
    line = f"pto.syncall(%g, %u : {t}, {UB_T}) {SOFT.format('aiv_only')}"
    with pytest.raises(PtoSyntaxError, match=r"expects gm_workspace element type to be i32"):
        parse_module(_module(line, f"%g: {t}, {UB}"), "k.pto")


# --- Python --------------------------------------------------------------------------------
def test_python_hard_and_soft() -> None:
    m = ptosim.Machine("a5")
    m.SYNCALL()
    m.SYNCALL("aic_only")
    ws = m.gm(np.zeros(8, np.int32))
    g = m.global_tensor(ws, shape=(1, 1, 1, 1, 8), stride=(8, 8, 8, 8, 1))
    m.SYNCALL("aiv_only", mode="soft", gm_workspace=g)
    m.SYNCALL("mix", mode="soft", gm_workspace=g, used_cores=3)
    np.testing.assert_array_equal(m.read(ws, 8), [2, 0, 0, 0, 0, 0, 0, 0])


@pytest.mark.parametrize("target,args,kw,err,msg", [
    ("a5", ("mix",), {}, TargetError, r"hard SYNCALL of core type mix does not exist on a5"),
    ("a5", ("aic_only",), {"mode": "soft"}, TargetError,
     r"soft SYNCALL of core type aic_only does not exist on a5"),
    ("a2a3", ("all",), {}, ptosim.PtoValueError, r"core_type must be one of aiv_only"),
    ("a2a3", (), {"mode": "firm"}, ptosim.PtoValueError, r"mode must be 'hard' or 'soft'"),
    ("a2a3", (), {"mode": "soft"}, ptosim.PtoTypeError,
     r"a soft SYNCALL needs gm_workspace, a GlobalTensor, got NoneType"),
    ("a2a3", (), {"used_cores": 2}, ptosim.PtoValueError,
     r"a hard SYNCALL takes no gm_workspace or used_cores"),
    ("a2a3", (), {"used_cores": -1}, ptosim.PtoValueError,
     r"used_cores must be a non-negative int, got -1"),
])
def test_python_rules(target: str, args: tuple, kw: dict, err: type, msg: str) -> None:
    with pytest.raises(err, match=msg):
        ptosim.Machine(target).SYNCALL(*args, **kw)


def test_python_soft_workspace_must_be_i32() -> None:
    m = ptosim.Machine("a2a3")
    g = m.global_tensor(m.gm(np.zeros(8, np.float32)), shape=(1, 1, 1, 1, 8),
                        stride=(8, 8, 8, 8, 1))
    with pytest.raises(ptosim.DtypeError, match=r"gm_workspace must hold i32, got f32"):
        m.SYNCALL(mode="soft", gm_workspace=g)


def test_trace_and_op_log_see_the_rendezvous() -> None:
    """The timeline and the op log take SYNCALL's arrivals and departures too."""
    import io
    text = KERNEL.format(target="a5", sync="    " + HARD, only0="")
    log = io.StringIO()
    res = Kernel.from_text(text, "s.pto").run(
        {"src": SRC, "mid": np.zeros(8, np.float32), "dst": np.zeros(8, np.float32),
         "wsp": np.zeros(8, np.int32)}, block_dim=2, trace=True, op_log=log)
    assert res.findings == []
    lines = [ln for ln in log.getvalue().splitlines() if "syncall" in ln]
    # both arrive before either leaves; the last to arrive leaves first
    assert [ln.split()[1:4] for ln in lines] == [
        ["block0.aiv0", "syncall", "arrive"], ["block1.aiv0", "syncall", "arrive"],
        ["block1.aiv0", "syncall", "leave"], ["block0.aiv0", "syncall", "leave"]]
