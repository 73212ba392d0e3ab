"""TSYNC: in `.pto` its event form (PTOAS's pto.record_event / pto.wait_event, lowered to
set_flag / wait_flag of the op types' pipes), pto.barrier_sync and the pto.tsync bridge; in
Python the barrier form TSYNC<Op>() with each target's allowed pipes."""

from __future__ import annotations

import numpy as np
import pytest

import ptosim
from ptosim.errors import DeadlockError, PtoSyntaxError, PtoTypeError, TargetError
from ptosim.frontend.text import parse_module
from ptosim.kernel import Kernel

T = "!pto.tile_buf<vec, 16x16xf32, pad=1>"
KERNEL = """module attributes {{pto.target_arch = "{target}", pto.kernel_kind = #pto.kernel_kind<vector>}} {{
  func.func @k(%src: !pto.ptr<f32, gm>, %dst: !pto.ptr<f32, gm>) attributes {{pto.aicore}} {{
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %in = pto.make_tensor_view %src, shape = [%c16, %c16], strides = [%c16, %c1]
      : !pto.tensor_view<16x16xf32>
    %out = pto.make_tensor_view %dst, shape = [%c16, %c16], strides = [%c16, %c1]
      : !pto.tensor_view<16x16xf32>
    %a = pto.alloc_tile : {T}
    %b = pto.alloc_tile : {T}
    pto.tload ins(%in : !pto.tensor_view<16x16xf32>) outs(%a : {T})
{load_sync}    pto.tadd ins(%a, %a : {T}, {T}) outs(%b : {T})
{store_sync}    pto.tstore ins(%b : {T}) outs(%out : !pto.tensor_view<16x16xf32>)
    return
  }}
}}
"""


def _event(kind: str, src: str, dst: str, ev: int = 0, alias: bool = False) -> str:
    attr = "sync_op_type" if alias else "pipe_event_type"
    return (f"    pto.{kind} [#pto.{attr}<{src}>, #pto.pipe_event_type<{dst}>, "
            f"#pto.event<EVENT_ID{ev}>]\n")


LOAD = _event("record_event", "TLOAD", "TVEC") + _event("wait_event", "TLOAD", "TVEC")
STORE = _event("record_event", "TVEC", "TSTORE_VEC") + _event("wait_event", "TVEC",
                                                                "TSTORE_VEC")


def _run(load: str, store: str, target: str = "a5") -> ptosim.kernel.RunResult:
    src = np.arange(256, dtype=np.float32).reshape(16, 16)
    text = KERNEL.format(target=target, T=T, load_sync=load, store_sync=store)
    return Kernel.from_text(text, "t.pto").run({"src": src,
                                                "dst": np.zeros((16, 16), np.float32)})


@pytest.mark.parametrize("target", ["a5", "a2a3"])
def test_events_order_the_pipes(target: str) -> None:
    """Without events the checker reports the MTE2 -> V and V -> MTE3 races; the events
    (set_flag / wait_flag of the mapped pipes) make the kernel clean."""
    bad = _run("", "", target)
    kinds = sorted(f.kind for f in bad.findings)
    assert kinds == ["RAW", "RAW"]
    assert any("pto.tadd (block0.aiv0 PIPE_V) reads what pto.tload (block0.aiv0 PIPE_MTE2)"
               in f.message for f in bad.findings)
    assert any("pto.tstore (block0.aiv0 PIPE_MTE3) reads what pto.tadd (block0.aiv0 PIPE_V)"
               in f.message for f in bad.findings)
    good = _run(LOAD, STORE, target)
    assert good.findings == []
    np.testing.assert_array_equal(good.outputs["dst"],
                                  2 * np.arange(256, dtype=np.float32).reshape(16, 16))


def test_one_missing_event_pair_is_reported() -> None:
    res = _run(LOAD, "")
    assert [f.kind for f in res.findings] == ["RAW"]
    assert "pto.tstore" in res.findings[0].message


def test_event_pairs_with_a_plain_flag_and_the_legacy_spelling() -> None:
    """record_event is set_flag[PIPE_MTE2, PIPE_V]: a wait_flag of those pipes consumes it;
    #pto.sync_op_type<...> names the same endpoint."""
    load = (_event("record_event", "TLOAD", "TVEC", alias=True)
            + '    pto.wait_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]\n')
    assert _run(load, STORE).findings == []


def test_wrong_pipe_pair_does_not_order() -> None:
    """An event between TLOAD and TMATMUL (MTE2 -> M) leaves the MTE2 -> V race."""
    load = _event("record_event", "TLOAD", "TMATMUL") + _event("wait_event", "TLOAD",
                                                                 "TMATMUL")
    res = _run(load, STORE)
    assert [f.kind for f in res.findings] == ["RAW"]
    assert "pto.tadd" in res.findings[0].message


def test_wait_event_without_record_is_a_deadlock() -> None:
    load = _event("wait_event", "TLOAD", "TVEC", 3)
    with pytest.raises(DeadlockError, match=r"wait_flag\[PIPE_MTE2, PIPE_V, EVENT_ID3\] on "
                       r"block0.aiv0 has no unconsumed set_flag"):
        _run(load, STORE)


def test_barrier_sync_and_empty_tsync_run() -> None:
    extra = "    pto.barrier_sync [#pto.sync_op_type<TVEC>]\n    pto.tsync ins()\n"
    for target in ("a5", "a2a3"):
        res = _run(LOAD + extra, STORE, target)
        assert res.findings == []


def _module(line: str) -> str:
    return ("module {\n  func.func @k() attributes {pto.aicore} {\n"
            f"    {line}\n    return\n  }}\n}}\n")


def test_printed_form_round_trips() -> None:
    line = ("pto.record_event [#pto.pipe_event_type<TMATMUL>, #pto.pipe_event_type<TSTORE_ACC>, "
            "#pto.event<EVENT_ID7>]")
    assert line in str(parse_module(_module(line), "k.pto"))
    assert "pto.barrier_sync [#pto.sync_op_type<TMOV_M2L>]" in str(
        parse_module(_module("pto.barrier_sync [#pto.sync_op_type<TMOV_M2L>]"), "k.pto"))


@pytest.mark.parametrize("line,msg", [
    ("pto.tsync ins(%x : i32)", r"k.pto:3:19: .*pto.tsync: TSYNC waits on RecordEvent tokens"),
    ("pto.record_event [#pto.pipe_event_type<TFOO>, #pto.pipe_event_type<TVEC>, "
     "#pto.event<EVENT_ID0>]", r"expected a sync op type \(one of TLOAD, .*\), got 'TFOO'"),
    ("pto.wait_event [#pto.pipe_event_type<TLOAD>, #pto.pipe_event_type<TVEC>, "
     "#pto.event<EVENT_ID8>]", r"expected an event id \(one of EVENT_ID0, .*\), got 'EVENT_ID8'"),
    ("pto.wait_event [#pto.pipe_event_type<TLOAD>, #pto.pipe_event_type<TVEC>, "
     "#pto.pipe<PIPE_V>]", r"pto.wait_event: expected the event id as #pto.event<...>"),
    ("pto.barrier_sync [#pto.pipe_event_type<TLOAD>]",
     r"pto.barrier_sync: expected the op type as #pto.sync_op_type<...>"),
])
def test_text_rules(line: str, msg: str) -> None:
    with pytest.raises(PtoSyntaxError, match=msg):
        parse_module(_module(line), "k.pto")


# --- Python: TSYNC<Op>() --------------------------------------------------------------------
@pytest.mark.parametrize("target,op", [("a5", "TLOAD"), ("a5", "TSTORE_VEC"),
                                       ("a2a3", "TADD"), ("a2a3", "TMATMUL"), ("a5", None)])
def test_python_barrier_form(target: str, op: str | None) -> None:
    ptosim.Machine(target).TSYNC(op)


@pytest.mark.parametrize("target,op,err,msg", [
    ("a5", "TADD", TargetError, r"TSYNC: TSYNC<TADD> on a5 barriers only PIPE_MTE2 / "
     r"PIPE_MTE3 / PIPE_ALL; TADD runs on PIPE_V"),
    ("a5", "TMATMUL", TargetError, r"TMATMUL runs on PIPE_M"),
    ("a2a3", "TFOO", ptosim.PtoValueError, r"op 'TFOO' is no Op of pto-isa's event table"),
    ("a2a3", 3, PtoTypeError, r"op must be an Op name, got int"),
])
def test_python_barrier_rules(target: str, op: object, err: type, msg: str) -> None:
    with pytest.raises(err, match=msg):
        ptosim.Machine(target).TSYNC(op)
