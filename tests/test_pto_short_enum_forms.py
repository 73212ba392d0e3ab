"""PTOAS's assembly formats print some enum attributes without the dialect prefix:
``pto.barrier <PIPE_ALL>`` and reserve_buffer's ``location = <vec>``."""

import numpy as np
import pytest

from ptosim.errors import PtoSyntaxError
from ptosim.frontend.text import parse_module
from ptosim.kernel import Kernel
from test_tile_pipes import _golden, _inputs, c2v_kernel

LONG = "location = #pto.address_space<vec>"


def test_barrier_short_pipe_form_equals_the_dotted_form():
    text = ("module {\n  func.func @k() attributes {pto.aicore} {\n"
            "    pto.barrier <PIPE_ALL>\n    pto.barrier #pto.pipe<PIPE_V>\n    return\n  }\n}\n")
    ops = [o for o in parse_module(text).walk() if o.name == "pto.barrier"]
    assert [o.pipe() for o in ops] == ["PIPE_ALL", "PIPE_V"]


def test_barrier_short_form_unknown_pipe():
    text = "module {\n  func.func @k() {\n    pto.barrier <PIPE_NOPE>\n    return\n  }\n}\n"
    with pytest.raises(PtoSyntaxError, match=r"pto\.barrier: expected a pipe \(one of "):
        parse_module(text)


def test_reserve_buffer_short_location_runs_like_the_dotted_form():
    text = c2v_kernel(2, 2)
    assert LONG in text
    args = _inputs(2)
    res = Kernel.from_text(text.replace(LONG, "location = <vec>"), "pipe.pto").run(
        args, target="a5")
    got = np.asarray(res.outputs["out"]).reshape(32, 16)
    np.testing.assert_allclose(got, _golden(args["a"], args["b"]), rtol=1e-5, atol=1e-4)
    op = next(o for o in Kernel.from_text(text.replace(LONG, "location = <vec>")).module.walk()
              if o.name == "pto.reserve_buffer")
    assert op.space_name() == "vec"


@pytest.mark.parametrize("loc,msg", [
    ("<nowhere>", r"pto\.reserve_buffer: expected an address space \(one of "),
    ("<gm>", r"pto\.reserve_buffer: location must be #pto\.address_space<vec> or <mat>"),
])
def test_reserve_buffer_short_location_errors(loc, msg):
    with pytest.raises(PtoSyntaxError, match=msg):
        Kernel.from_text(c2v_kernel(1, 2).replace(LONG, f"location = {loc}"))
