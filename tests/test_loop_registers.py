"""The legacy loop-register ops, added as registry rows only (`ptosim.isa.table`): their
text form, their Python face and their per-core state all come from the row."""

import numpy as np
import pytest

import ptosim
from ptosim.cli import main
from ptosim.frontend import parse_module, print_module
from ptosim.isa import spec
from ptosim.kernel import Kernel

NAMES = ["set_loop_size_outtoub", "set_loop1_stride_outtoub", "set_loop2_stride_outtoub",
         "set_loop_size_ubtoout", "set_loop1_stride_ubtoout", "set_loop2_stride_ubtoout"]


def kernel(body: str) -> str:
    return ("module attributes {pto.target_arch = \"a5\"} {\n"
            "  func.func @k(%x: !pto.ptr<f32, gm>) attributes {pto.aicore} {\n"
            "    %c1 = arith.constant 1 : i64\n    %c256 = arith.constant 256 : i64\n"
            f"{body}    return\n  }}\n}}\n")


@pytest.mark.parametrize("name", NAMES)
def test_text_round_trips(name):
    text = kernel(f"    pto.{name} %c1, %c256 : i64, i64\n")
    printed = print_module(parse_module(text, "k.pto"))
    assert f"pto.{name} %c1, %c256 : i64, i64" in printed
    assert print_module(parse_module(printed, "k.pto")) == printed


def test_text_errors_are_located():
    with pytest.raises(ptosim.PtoSyntaxError, match=r"k\.pto:5:\d+: .*expected"):
        parse_module(kernel("    pto.set_loop_size_outtoub %c1 : i64\n"), "k.pto")


def test_each_core_starts_with_empty_registers_and_keeps_what_it_sets():
    text = kernel("    pto.set_loop1_stride_outtoub %c256, %c1 : i64, i64\n"
                  "    pto.set_loop_size_ubtoout %c1, %c1 : i64, i64\n")
    out = Kernel.from_text(text, "k.pto").run({"x": np.zeros(8, np.float32)})
    assert out.machine.regs == {"loop1_stride_outtoub": (256, 1), "loop_size_ubtoout": (1, 1)}
    # a second run starts from nothing again
    fresh = Kernel.from_text(kernel(""), "k.pto").run({"x": np.zeros(8, np.float32)})
    assert fresh.machine.regs == {}


def test_they_run_on_the_vector_cores(tmp_path, capsys):
    text = kernel("    pto.section.cube {\n"
                  "      pto.set_loop_size_outtoub %c1, %c1 : i64, i64\n    }\n"
                  "    pto.section.vector {\n    }\n")
    with pytest.raises(ptosim.PtoError, match="set_loop_size_outtoub runs on the vector cores"):
        Kernel.from_text(text, "k.pto").run({"x": np.zeros(8, np.float32)})
    path = tmp_path / "k.pto"
    path.write_text(kernel("    pto.set_loop2_stride_ubtoout %c256, %c256 : i64, i64\n"))
    assert main(["check", str(path)]) == 0
    assert "verified 1 op(s)" in capsys.readouterr().out


def test_python_face():
    m = ptosim.Machine()
    m.set_loop2_stride_outtoub(4096, 128)
    assert m.regs == {"loop2_stride_outtoub": (4096, 128)}
    with pytest.raises(ptosim.PtoTypeError, match=r"^set_loop2_stride_outtoub: takes 2 "
                       r"operands \(a, b\), got 3$"):
        m.set_loop2_stride_outtoub(1, 2, 3)
    with pytest.raises(ptosim.PtoTypeError, match=r"operand 0 must be an integer, got 1\.5"):
        m.set_loop2_stride_outtoub(1.5, 2)
    with pytest.raises(ptosim.PtoValueError, match="does not fit a 64-bit register"):
        m.set_loop2_stride_outtoub(1 << 64, 2)
    assert m.regs == {"loop2_stride_outtoub": (4096, 128)}     # refusals wrote nothing


def test_the_rows_are_the_whole_definition():
    for name in NAMES:
        s = spec(name)
        assert (s.kind, s.core, s.pipe, s.syntax, s.operand_names) == \
            ("micro", "vector", "S", "scalars", ("a", "b"))
        assert s.register == name.removeprefix("set_")
