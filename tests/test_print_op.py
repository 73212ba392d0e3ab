"""``pto.print ins("fmt", %x : T)``: printf of one scalar (PTOAS PrintOp), through the
real CLI and against Python's own rendering of the same C conversions."""

import pytest

from ptosim.cli import main
from ptosim.errors import PtoValueError
from ptosim.frontend import parse_module
from ptosim.frontend.debug_ops import c_printf

KERNEL = """module attributes {pto.target_arch = "a5", pto.kernel_kind = #pto.kernel_kind<vector>} {
  func.func @k(%x: f32, %n: i32) attributes {pto.aicore} {
    %c0 = arith.constant 0 : index
    %c3 = arith.constant 3 : index
    %c1 = arith.constant 1 : index
    pto.print ins("x = %+08.3f\\n", %x : f32)
    scf.for %i = %c0 to %c3 step %c1 {
      pto.print ins("i=%ld;", %i : index)
    }
    pto.print ins("\\nn = %d (100%%)", %n : i32)
    pto.print ins(", %08x\\n", %n : i32)
    return
  }
}
"""


@pytest.mark.parametrize("fmt, value, bits, want", [
    ("%+08.3f", -3.14159, 64, "-003.142"), ("%d", -7, 32, "-7"), ("%5i|", 42, 32, "   42|"),
    ("%x", -1, 32, "ffffffff"), ("%lx", -1, 64, "ffffffffffffffff"), ("%#o", 8, 32, "010"),
    ("%e", 12345.678, 64, "1.234568e+04"), ("%g", 0.0001, 64, "0.0001"),
    ("%-6u|", 5, 32, "5     |"), ("[%%] %c", 65, 8, "[%] A"), ("plain text", 1, 32, "plain text"),
    ("%f", 2, 32, "2.000000"), ("%a", 1.0, 64, "0x1.0000000000000p+0")])
def test_c_conversions(fmt, value, bits, want):
    assert c_printf(fmt, value, bits) == want


@pytest.mark.parametrize("fmt, message", [
    ("%d %d", r"format '%d %d' has 2 conversions; pto.print passes one value"),
    ("%*d", r"a '\*' width or precision needs a second value")])
def test_formats_that_need_more_values(fmt, message):
    with pytest.raises(PtoValueError, match=message):
        c_printf(fmt, 1)


def test_prints_in_program_order_through_the_cli(tmp_path, capsys):
    (tmp_path / "k.pto").write_text(KERNEL)
    assert main(["run", str(tmp_path / "k.pto"), "--arg", "x=-3.14159", "--arg", "n=-2"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("x = -003.142\ni=0;i=1;i=2;\nn = -2 (100%), fffffffe\n")


def test_round_trip_and_type_rules():
    module = parse_module(KERNEL)
    op = next(o for o in module.walk() if o.name == "pto.print")
    assert op.format.data == "x = %+08.3f\n"
    again = next(o for o in parse_module(str(module)).walk() if o.name == "pto.print")
    assert again.format.data == op.format.data          # printed form parses back
    bad = KERNEL.replace('pto.print ins("x = %+08.3f\\n", %x : f32)',
                         'pto.print ins("%d", %p : !pto.ptr<f32, gm>)').replace(
        "%n: i32)", "%n: i32, %p: !pto.ptr<f32, gm>)")
    with pytest.raises(Exception, match=r"pto\.print prints an index, integer or float scalar"):
        parse_module(bad)


MULTI = """module attributes {pto.target_arch = "a5", pto.kernel_kind = #pto.kernel_kind<vector>} {
  func.func @k(%n: i32) attributes {pto.aicore} {
    %b = pto.get_block_idx
    pto.print ins("block %ld: ", %b : i64)
    pto.print ins("n = %d\\n", %n : i32)
    pto.print ins("tail %d", %n : i32)
    return
  }
}
"""


def test_several_cores_print_whole_lines_named_by_their_core(tmp_path, capsys):
    """With more than one core in the launch, each output line carries its core; a line a
    core leaves unfinished is ended at the end of the run."""
    (tmp_path / "k.pto").write_text(MULTI)
    assert main(["run", str(tmp_path / "k.pto"), "--arg", "n=7", "--block-dim", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    printed = [t for t in lines if t.startswith("[")]
    assert sorted(printed) == ["[block0.aiv0] block 0: n = 7", "[block0.aiv0] tail 7",
                               "[block1.aiv0] block 1: n = 7", "[block1.aiv0] tail 7"]
    # each core's lines in its program order
    for core in ("[block0.aiv0]", "[block1.aiv0]"):
        mine = [t for t in printed if t.startswith(core)]
        assert mine[0].endswith("n = 7") and mine[1].endswith("tail 7")
    # one core: the text exactly as printf writes it
    assert main(["run", str(tmp_path / "k.pto"), "--arg", "n=7"]) == 0
    assert capsys.readouterr().out.startswith("block 0: n = 7\ntail 7")
