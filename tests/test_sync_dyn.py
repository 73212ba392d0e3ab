"""``pto.set_flag_dyn`` / ``pto.wait_flag_dyn``: set_flag / wait_flag with the event id an
SSA value (PTOAS PTOOps.td SetFlagDynOp / WaitFlagDynOp). They order pipes exactly like the
static forms."""

import numpy as np
import pytest

import ptosim
from ptosim.errors import DeadlockError
from ptosim.frontend import parse_module, print_module
from ptosim.kernel import Kernel
from test_hazards import MATMUL, mm_inputs

STATIC = ('pto.set_flag["PIPE_MTE2", "PIPE_MTE1", "EVENT_ID0"]',
          'pto.wait_flag["PIPE_MTE2", "PIPE_MTE1", "EVENT_ID0"]')


def dynamic(text: str, event: int = 0, wait_event: int | None = None) -> str:
    """MATMUL with its MTE2 -> MTE1 flags written in the dynamic form."""
    assert all(s in text for s in STATIC)
    text = text.replace(STATIC[0], f"%ev_s = arith.constant {event} : index\n"
                        "          pto.set_flag_dyn[#pto.pipe<PIPE_MTE2>, "
                        "#pto.pipe<PIPE_MTE1>, %ev_s]")
    w = event if wait_event is None else wait_event
    return text.replace(STATIC[1], f"%ev_w = arith.constant {w} : index\n"
                        '          pto.wait_flag_dyn["PIPE_MTE2", "PIPE_MTE1", %ev_w]')


def test_dynamic_flags_order_pipes_like_static_ones():
    text = dynamic(MATMUL, 3)
    out = Kernel.from_text(text, "mm.pto").run(mm_inputs())
    assert out.findings == []
    np.testing.assert_array_equal(out.outputs["c"], 300)
    printed = print_module(parse_module(text))
    assert "pto.wait_flag_dyn[#pto.pipe<PIPE_MTE2>, #pto.pipe<PIPE_MTE1>, %ev_w]" in printed
    assert print_module(parse_module(printed)) == printed


def test_a_wait_on_another_event_hangs_and_an_event_out_of_range_is_an_error():
    with pytest.raises(DeadlockError, match=r"wait_flag\[PIPE_MTE2, PIPE_MTE1, EVENT_ID4\]"):
        Kernel.from_text(dynamic(MATMUL, 3, 4), "mm.pto").run(mm_inputs())
    with pytest.raises(ptosim.PtoError, match=r"mm\.pto:\d+:\d+: error: pto.set_flag_dyn: "
                       r"event id 8 is out of range \[0, 7\]"):
        Kernel.from_text(dynamic(MATMUL, 8), "mm.pto").run(mm_inputs())


def test_syntax_errors_are_located():
    bad = dynamic(MATMUL).replace("#pto.pipe<PIPE_MTE2>, #pto.pipe<PIPE_MTE1>, %ev_s",
                                  "#pto.pipe<PIPE_MTE2>, 7, %ev_s")
    with pytest.raises(ptosim.PtoSyntaxError, match=r"expected the destination pipe as "
                       r"#pto.pipe<PIPE_X> or \"PIPE_X\""):
        parse_module(bad, "mm.pto")
    bad = dynamic(MATMUL).replace('"PIPE_MTE1", %ev_w]', '"PIPE_MTE1", 2]')
    with pytest.raises(ptosim.PtoSyntaxError, match=r"mm\.pto:\d+:\d+: error: "
                       r"pto.wait_flag_dyn: expected the event id as an SSA value"):
        parse_module(bad, "mm.pto")
