"""The hazard checker takes its frequent events (op begin / end, accesses, flags) from a
log (`ptosim.events`) that it reads in batches. Its findings do not depend on where a
batch ends (even between the two accesses of a race, or inside an op), nor on whether the
events came as log entries and handles (the checker alone) or as method calls (the checker
next to the timeline)."""

from types import SimpleNamespace

import numpy as np
import pytest

from ptosim.events import event_log
from ptosim.interp import executor, hazards
from ptosim.interp.timeline import Observers
from ptosim.kernel import Kernel
from test_hazards import MATMUL, SPLIT, _events, _Op, drop, mm_inputs, split_inputs

CASES = {
    "raw": (drop(MATMUL, '          pto.set_flag["PIPE_MTE2", "PIPE_MTE1", "EVENT_ID0"]\n',
                 '          pto.wait_flag["PIPE_MTE2", "PIPE_MTE1", "EVENT_ID0"]\n'), mm_inputs),
    "war": (drop(MATMUL, '          pto.set_flag["PIPE_MTE1", "PIPE_MTE2", "EVENT_ID0"]\n',
                 '          pto.wait_flag["PIPE_MTE1", "PIPE_MTE2", "EVENT_ID0"]\n'), mm_inputs),
    "cores": (drop(SPLIT, "      pto.sync.wait <PIPE_MTE3>, 1\n",
                   "      pto.sync.set <PIPE_FIX>, 1\n      pto.sync.set <PIPE_FIX>, 17\n"),
              split_inputs),
}


def _run(name, **kw):
    text, inputs = CASES[name]
    found = Kernel.from_text(text, f"{name}.pto").run(inputs(), **kw).findings
    return [(f.kind, f.message, f.loc, f.count, f.related, f.related_note) for f in found]


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("flush_at", [1, 2, 5, 37])
def test_findings_do_not_depend_on_the_batch_size(monkeypatch, name, flush_at):
    want = _run(name)
    assert want and any(kind in ("RAW", "WAR") for kind, *_ in want)
    monkeypatch.setattr(executor, "FLUSH_AT", flush_at)   # the executor's trigger
    monkeypatch.setattr(hazards, "FLUSH_AT", flush_at)    # the checker's own methods
    assert _run(name) == want


@pytest.mark.parametrize("name", sorted(CASES))
def test_log_entries_and_method_calls_find_the_same(name):
    """With the timeline the checker sits behind `Observers` and gets method calls."""
    assert _run(name, trace=True) == _run(name)


def test_a_forwarding_wrapper_has_no_event_log():
    checker = hazards.HazardChecker(lambda op: None, lambda b: "b")
    assert event_log(checker) is checker.event_log
    assert event_log(Observers(checker)) is None


def test_a_batch_ending_between_two_racing_accesses():
    checker, core, do = _events()
    do("MTE2", "W", 0, 64)
    checker.flush()                         # the write is taken in, the read comes later
    do("MTE3", "R", 32, 96)
    [raw] = checker.finish()
    assert raw.kind == "RAW" and "bytes [32, 64): MTE3:R[32,96)" in raw.message
    assert "MTE2:W[0,64)" in raw.message


def test_a_batch_ending_inside_an_op_keeps_the_op():
    """The current op outlives a batch: its later accesses still belong to it."""
    checker, core, _ = _events()
    buf = np.zeros(256, np.uint8)
    spec = SimpleNamespace(name="x", syntax=None)
    first, second = _Op("first"), _Op("second")
    checker.begin_op(core, first, spec, [], "MTE2")
    checker.flush()
    checker.access(buf, 0, 16, "W", None, None)
    checker.end_op()
    checker.access(buf, 0, 16, "W", None, None)     # between ops: not part of any op
    checker.begin_op(core, second, spec, [], "V")
    checker.access(buf, 8, 8, "R", None, None)
    checker.flush()
    checker.end_op()
    [raw] = checker.finish()
    assert raw.kind == "RAW" and raw.count == 1
    assert "bytes [8, 16): second (block0.aiv0 PIPE_V) reads what first" in raw.message


def test_flags_given_by_handles_order_like_flag_calls():
    """A set / wait pair told by handles orders the pipes as the method calls do; a wait
    handle is refused (None) while its flag was never set."""
    checker, core, do = _events()
    assert checker.flag_handle(core, "PIPE_MTE2", "PIPE_MTE3", "EVENT_ID0", _Op("w"),
                               setting=False) is None
    set_h = checker.flag_handle(core, "PIPE_MTE2", "PIPE_MTE3", "EVENT_ID0", _Op("s"),
                                setting=True)
    wait_h = checker.flag_handle(core, "PIPE_MTE2", "PIPE_MTE3", "EVENT_ID0", _Op("w"),
                                 setting=False)
    do("MTE2", "W", 0, 32)
    checker.event_log += [set_h, wait_h]
    do("MTE3", "R", 0, 32)                  # ordered by the flag
    do("MTE2", "W", 0, 32)                  # WAR: nothing orders MTE3's read before it
    [war] = checker.finish()
    assert war.kind == "WAR" and "MTE2:W[0,32)" in war.message
