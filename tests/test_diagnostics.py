"""What `ptosim check` and `ptosim run` print: located, counted diagnostics, never Python
warnings or internal objects; `check` resolves clause operands and counts what it verified."""

import dataclasses
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import ptosim.api
from conftest import without_excerpts
from ptosim.cli import main
from ptosim.errors import NotImplementedOpError, PtoWarning, warn, warning_sink
from ptosim.interp.diagnostics import WarningLog
from ptosim.interp.static import check_kernel
from ptosim.isa import spec
from ptosim.kernel import Kernel

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "examples").glob("*/kernel.pto"))

# A vector kernel whose burst copy writes 64 B bursts 32 B apart (each overlaps the next):
# legal, but worth a warning, three times from the loop and once after it.
OVERLAP = """\
module attributes {pto.target_arch = "a5"} {
  func.func @overlap(%x: !pto.ptr<ui8, gm>) attributes {pto.aicore} {
    %c0 = arith.constant 0 : i64
    %c1 = arith.constant 1 : i64
    %c3 = arith.constant 3 : i64
    %c4 = arith.constant 4 : i64
    %c32 = arith.constant 32 : i64
    %c64 = arith.constant 64 : i64
    %ub = pto.castptr %c0 : i64 -> !pto.ptr<ui8, ub>
    scf.for %i = %c0 to %c3 step %c1 : i64 {
      pto.mte_gm_ub %x, %ub, %c0, %c64 nburst(%c4, %c64, %c32) : !pto.ptr<ui8, gm>, !pto.ptr<ui8, ub>, i64, i64, i64, i64, i64
    }
    pto.mte_gm_ub %x, %ub, %c0, %c64 nburst(%c4, %c64, %c32) : !pto.ptr<ui8, gm>, !pto.ptr<ui8, ub>, i64, i64, i64, i64, i64
    return
  }
}
"""
LOOP_WARNING = ("k.pto:11:7: warning: mte_gm_ub: destination bursts may overlap; copying in "
                "program order, the later burst wins (seen 3 times)")
LINE_WARNING = ("k.pto:13:5: warning: mte_gm_ub: destination bursts may overlap; copying in "
                "program order, the later burst wins")


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ptosim", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("kernel", EXAMPLES, ids=lambda p: p.parent.name)
def test_check_is_clean_on_every_example(kernel):
    done = _cli("check", str(kernel), cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert "checks clean" in done.stdout and "verified" in done.stdout


def test_check_resolves_clause_operands(capsys):
    """Constant operands inside clauses (shape(...), dst_group(...)) are resolved: the
    cube_vector example used to fail with an IR object in the message."""
    k = Kernel.from_file(ROOT / "examples" / "cube_vector" / "kernel.pto")
    found = check_kernel(k.module, k.func, "a5", k.locate)
    assert found.errors == []
    assert found.verified >= 5      # both frac loads, the cube loads, mad, the writeback


def test_check_reports_clause_violations_with_values(tmp_path, capsys):
    """A constant clause operand that breaks a rule is reported with its value."""
    text = (ROOT / "examples" / "cube_vector" / "kernel.pto").read_text()
    bad = tmp_path / "k.pto"
    bad.write_text(text.replace("ctrl(%c0, %false)", "ctrl(%c256, %false)", 1))
    assert main(["check", str(bad)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"{bad}:30:7: error: mte_gm_l1_frac: ctrl l2_cache_ctrl = 256 is out "
                          f"of range [0, 15] (4-bit field)\n")
    assert "OpResult" not in err and "SSAValue" not in err
    assert "1 error(s); verified" in err


def test_check_counts_ops_left_to_run_time(capsys):
    """The tiled matmul's ops use loop variables: check says so instead of claiming them."""
    path = ROOT / "examples" / "matmul" / "kernel.pto"
    assert main(["check", str(path)]) == 0
    out = capsys.readouterr().out
    k = Kernel.from_file(path)
    found = check_kernel(k.module, k.func, "a5", k.locate)
    assert found.skipped > 0
    assert (f"verified {found.verified} op(s), {found.skipped} left to run time (their "
            f"operands depend on loop variables or scalar arguments)") in out


def test_check_locates_unimplemented_ops_and_goes_on(tmp_path, capsys, monkeypatch):
    """An op ptosim cannot run yet is a located error; the ops after it are still checked."""
    text = (ROOT / "examples" / "cube_vector" / "kernel.pto").read_text()
    k = Kernel.from_text(text, "k.pto")
    # pretend the first frac load is an op without an implementation (every micro-op of
    # the registry has one now, so the stand-in is a planned method of a copied spec)
    first = next(op for op in k.func.walk()
                 if getattr(op, "SPEC", None) is not None and op.SPEC.kind == "micro")
    first.SPEC = dataclasses.replace(spec("mte_l1_l0a"), name="pretend_op",
                                     method="pretend_op", implemented=False)
    monkeypatch.setattr(ptosim.api, "PLANNED_OPS", ptosim.api.PLANNED_OPS | {"pretend_op"})
    found = check_kernel(k.module, k.func, "a5", k.locate)
    assert [type(e) for e in found.errors] == [NotImplementedOpError]
    assert str(found.errors[0]).startswith("k.pto:30:7: error: pretend_op:")
    assert found.verified >= 5


def test_run_warnings_are_located_and_counted(tmp_path):
    """Warnings of a run print as `file:L:C: warning: <op>: ...`, counted per location,
    never as Python warnings with interpreter paths."""
    (tmp_path / "k.pto").write_text(OVERLAP)
    np.arange(256, dtype=np.uint8).tofile(tmp_path / "x.bin")
    done = _cli("run", "k.pto", "--arg", "x=x.bin", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert without_excerpts(done.stderr).splitlines() == [LOOP_WARNING, LINE_WARNING]


def test_check_warnings_are_located_and_counted(tmp_path):
    (tmp_path / "k.pto").write_text(OVERLAP)
    done = _cli("check", "k.pto", cwd=tmp_path)
    assert done.returncode == 0
    assert without_excerpts(done.stderr).splitlines() == [LOOP_WARNING.replace(" (seen 3 times)", ""),
                                        LINE_WARNING]


def test_kernel_run_returns_warnings():
    out = Kernel.from_text(OVERLAP, "k.pto").run({"x": np.arange(256, dtype=np.uint8)})
    assert [d.render() for d in out.warnings] == [LOOP_WARNING, LINE_WARNING]


def test_warnings_of_a_failing_run_are_printed(tmp_path):
    """A run that fails after warning still shows the warnings (they may explain it)."""
    text = OVERLAP.replace("    return\n", "    %bad = arith.divsi %c1, %c0 : i64\n    return\n")
    (tmp_path / "k.pto").write_text(text)
    np.arange(256, dtype=np.uint8).tofile(tmp_path / "x.bin")
    done = _cli("run", "k.pto", "--arg", "x=x.bin", cwd=tmp_path)
    assert done.returncode == 1
    lines = without_excerpts(done.stderr).splitlines()
    assert lines[:2] == [LOOP_WARNING, LINE_WARNING]
    assert "error: arith.divsi: division by zero" in lines[2]


def test_python_face_still_raises_python_warnings(m):
    """Outside a run, ops warn through Python's warnings (so pytest.warns works)."""
    x = np.repeat(np.arange(4, dtype=np.uint8), 64)
    with pytest.warns(PtoWarning, match="destination bursts may overlap"):
        m.mte_gm_ub(m.gm(x), m.ptr("ub", "ui8", 0), 0, 64, nburst=(4, 64, 32))


def test_warning_sink_nests_and_restores():
    outer, inner = WarningLog(lambda op: None), WarningLog(lambda op: None)
    with warning_sink(outer):
        warn("a: one")
        with warning_sink(inner):
            warn("b: two")
        warn("a: one")
    assert [(d.message, d.count) for d in outer.diagnostics] == [("a: one", 2)]
    assert [(d.message, d.count) for d in inner.diagnostics] == [("b: two", 1)]
    with pytest.warns(PtoWarning, match="c: three"):
        warn("c: three")


def test_diagnostics_quote_their_source_line_with_a_caret(tmp_path):
    """Errors, warnings and hazard notes print the line they point at and a caret under
    the column, as compilers do."""
    text = OVERLAP.replace("    return\n", "    %bad = arith.divsi %c1, %c0 : i64\n    return\n")
    (tmp_path / "k.pto").write_text(text)
    np.arange(256, dtype=np.uint8).tofile(tmp_path / "x.bin")
    done = _cli("run", "k.pto", "--arg", "x=x.bin", cwd=tmp_path)
    lines = done.stderr.splitlines()
    row = next(i for i, t in enumerate(text.splitlines(), 1) if "arith.divsi" in t)
    at = lines.index(next(t for t in lines if t.startswith(f"k.pto:{row}:")))
    assert lines[at + 1:at + 3] == [text.splitlines()[row - 1], "    ^"]
    warn = next(i for i, t in enumerate(lines) if ": warning: " in t)
    col = int(lines[warn].split(":")[2])
    assert lines[warn + 2] == " " * (col - 1) + "^"


def test_excerpt_needs_a_known_text_and_a_real_line():
    from ptosim.interp.diagnostics import excerpt, remember_source
    remember_source("t.pto", "a\n\tb c\n")
    assert excerpt("t.pto:2:4") == [" b c", "   ^"]
    assert excerpt("t.pto:9:1") == [] and excerpt("other.pto:1:1") == []
    assert excerpt(None) == [] and excerpt("t.pto") == []
