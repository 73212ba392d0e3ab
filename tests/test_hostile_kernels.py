"""Hostile and unusual kernels through the command line: declarations, calls to
declarations, use before definition, recursion, deep nesting, control characters in
loc(...), on-chip pointer parameters. Each ends in a located diagnostic (exit 1) from both
`ptosim check` and `ptosim run` (run in a real `python -m ptosim` process), never a
traceback; `check` needs memory in proportion to the kernel."""

import contextlib
import io
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

import ptosim
from conftest import without_excerpts
from ptosim.cli import main
from ptosim.errors import StructureError, printable
from ptosim.interp.structure import MAX_DEPTH
from ptosim.kernel import Kernel

ROOT = Path(__file__).resolve().parent.parent


def cli(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ptosim", *argv], capture_output=True,
                          text=True, timeout=120)


def in_process(*argv: str) -> SimpleNamespace:
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = main(list(argv))
    return SimpleNamespace(returncode=code, stderr=err.getvalue())


def both(path: Path, *run_args: str, real: bool = True) -> list[SimpleNamespace]:
    """`ptosim run` of one kernel in a real process (``real``) and, meanwhile, `ptosim
    check` through the CLI's main(): both must fail (exit 1) with a located diagnostic."""
    run = ["run", str(path), *run_args]
    proc = subprocess.Popen([sys.executable, "-m", "ptosim", *run], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True) if real else None
    out = [in_process("check", str(path))]
    if proc is not None:
        _, err = proc.communicate(timeout=120)
        out.append(SimpleNamespace(returncode=proc.returncode, stderr=err))
    else:
        out.append(in_process(*run))
    for done in out:
        assert done.returncode == 1, done.stderr
        assert "Traceback" not in done.stderr
    return out


def kernel(tmp_path: Path, body: str, name: str = "k.pto") -> Path:
    path = tmp_path / name
    path.write_text(body, encoding="utf-8")
    return path


def test_lone_declaration(tmp_path):
    path = kernel(tmp_path, "module {\n  func.func private @k(i64)\n}\n")
    for done in both(path, "--arg", "0=1"):
        assert without_excerpts(done.stderr) == (f"{path}:2:3: error: @k is a declaration without a body: "
                               f"there is nothing to run\n")


def test_call_to_declaration(tmp_path):
    path = kernel(tmp_path, """module {
  func.func private @ext(i64)
  func.func @k(%a: i64) attributes {pto.aicore} {
    func.call @ext(%a) : (i64) -> ()
    return
  }
}
""")
    for done in both(path, "--arg", "a=1"):
        assert without_excerpts(done.stderr) == (f"{path}:4:5: error: func.call: @ext is a declaration without "
                               f"a body; ptosim runs only functions defined in the module\n")


def test_entry_chosen_among_defined_functions():
    """A declaration next to the kernel does not make the entry ambiguous."""
    k = Kernel.from_text("""module {
  func.func private @ext(i64)
  func.func @k(%a: i64) {
    return
  }
}
""")
    assert k.entry == "k"


def test_use_before_definition(tmp_path):
    path = kernel(tmp_path, """module {
  func.func @k(%a: i64) attributes {pto.aicore} {
    %x = arith.addi %y, %a : i64
    %y = arith.constant 1 : i64
    return
  }
}
""")
    for done in both(path, "--arg", "a=1"):
        assert without_excerpts(done.stderr) == (f"{path}:3:5: error: arith.addi: operand %y is used before its "
                               f"definition\n")


def test_use_before_definition_from_a_nested_region(tmp_path):
    path = kernel(tmp_path, """module {
  func.func @k(%c: i1) attributes {pto.aicore} {
    scf.if %c {
      %x = arith.addi %y, %y : i64
    }
    %y = arith.constant 1 : i64
    return
  }
}
""")
    for done in both(path, "--arg", "c=1"):
        assert done.stderr.startswith(f"{path}:4:7: error: arith.addi: operand %y is used "
                                      f"before its definition")


MUTUAL = """module {
  func.func @f(%a: i64) {
    func.call @g(%a) : (i64) -> ()
    return
  }
  func.func @g(%a: i64) {
    func.call @f(%a) : (i64) -> ()
    return
  }
  func.func @k(%a: i64) attributes {pto.aicore} {
    func.call @f(%a) : (i64) -> ()
    return
  }
}
"""
SELF = """module {
  func.func @k(%a: i64) attributes {pto.aicore} {
    func.call @k(%a) : (i64) -> ()
    return
  }
}
"""


@pytest.mark.parametrize("text, line, cycle", [(MUTUAL, 7, "@f -> @g -> @f"),
                                                (SELF, 3, "@k -> @k")])
def test_recursion_is_a_located_error(tmp_path, text, line, cycle):
    path = kernel(tmp_path, text)
    for done in both(path, "--arg", "a=1"):
        assert without_excerpts(done.stderr) == (f"{path}:{line}:5: error: func.call: recursive call "
                               f"({cycle}); ptosim refuses call cycles\n")


def _chain(calls: int, ifs: int) -> str:
    """@k calls @f0 -> ... -> @f<calls>, whose body nests ``ifs`` scf.if regions."""
    fs = [f"  func.func @f{i}(%a: i1) {{\n    func.call @f{i + 1}(%a) : (i1) -> ()\n"
          f"    return\n  }}\n" for i in range(calls)]
    fs.append(f"  func.func @f{calls}(%a: i1) {{\n" + "    scf.if %a {\n" * ifs +
              "    }\n" * ifs + "    return\n  }\n")
    fs.append("  func.func @k(%a: i1) attributes {pto.aicore} {\n"
              "    func.call @f0(%a) : (i1) -> ()\n    return\n  }\n")
    return "module {\n" + "".join(fs) + "}\n"


def test_deep_nesting_of_calls_and_regions(tmp_path):
    # depth = 1 (entry body) + calls + 1 (callee body) + ifs
    ok = Kernel.from_text(_chain(150, MAX_DEPTH - 152))
    assert ok.run({"a": 1}).ops > 0                 # exactly at the limit: runs
    path = kernel(tmp_path, _chain(150, MAX_DEPTH - 151))
    for done in both(path, "--arg", "a=1"):
        assert f"error: scf.yield: regions and calls nest {MAX_DEPTH + 1} levels deep; ptosim " \
               f"runs at most {MAX_DEPTH}\n" in done.stderr
        assert done.stderr.startswith(f"{path}:")
    path = kernel(tmp_path, _chain(400, 0), "calls.pto")    # used to be a RecursionError
    for done in both(path, "--arg", "a=1"):
        assert done.stderr.startswith(f"{path}:")
        assert f"nest {MAX_DEPTH + 1} levels deep" in done.stderr


def test_control_characters_in_loc_are_escaped(tmp_path):
    forged = 'evil\\1b[31m\\0d\\0aforged.pto'      # ESC [31m CR LF inside loc("...")
    path = kernel(tmp_path, f"""module {{
  func.func @k(%a: i64) attributes {{pto.aicore}} {{
    %x = arith.divsi %a, %a : i64 loc("{forged}":7:9)
    return
  }}
}}
""")
    done = cli("run", str(path), "--arg", "a=0")
    assert done.returncode == 1
    assert without_excerpts(done.stderr) == ("evil\\x1b[31m\\r\\nforged.pto:7:9: error: arith.divsi: division "
                           "by zero [on block0.aic]\n")
    assert "\x1b" not in done.stderr and "\r" not in done.stderr


def test_control_characters_in_names_are_escaped(tmp_path):
    path = kernel(tmp_path, 'module {\n  func.func @"k\\1b[2J\\0a"(%a: i64) {\n    return\n'
                            '  }\n}\n')
    done = cli("check", str(path))
    assert done.returncode == 0, done.stderr
    assert "@k\\x1b[2J\\n checks clean" in done.stdout and "\x1b" not in done.stdout
    err = ptosim.PtoError("x\x1by\nz", op="op", loc="f\r:1:1")
    assert str(err) == "f\\r:1:1: error: op: x\\x1by\\nz"
    assert err.detail == "x\x1by\nz"          # the raw text stays available to callers


def test_printable_keeps_text_and_escapes_controls():
    assert printable("kernel.pto:3:5 é µ") == "kernel.pto:3:5 é µ"
    assert printable("a\x1b[0m\r\n\t\u202eb\x00") == "a\\x1b[0m\\r\\n\\t\\u202eb\\x00"
    assert printable("one\ntwo\x07", keep_newlines=True) == "one\ntwo\\x07"


@pytest.mark.parametrize("space", ["ub", "l1", "l0c"])
def test_on_chip_pointer_parameter_is_refused(tmp_path, space):
    path = kernel(tmp_path, f"""module {{
  func.func @k(%buf: !pto.ptr<f32, {space}>) attributes {{pto.aicore}} {{
    return
  }}
}}
""")
    data = tmp_path / "d.bin"
    np.zeros(8, np.float32).tofile(data)
    for done in both(path, "--arg", f"buf={data}", real=space == "ub"):
        assert without_excerpts(done.stderr) == (
            f"{path}:2:3: error: parameter %buf of @k is a {space} pointer (!pto.ptr<f32, "
            f"{space}>); a kernel's pointer parameters are GM addresses: pass "
            f"!pto.ptr<f32, gm> and make on-chip pointers with pto.castptr\n")
    assert (np.fromfile(data, np.float32) == 0).all()


def test_structure_errors_from_python():
    with pytest.raises(StructureError, match="@k is a declaration without a body"):
        Kernel.from_text("module {\n  func.func private @k(i64)\n}\n")


def test_check_memory_is_proportional_to_the_kernel(tmp_path):
    """`check` used to allocate a 1 GiB scratch GM (1.2 GB of address space): now it runs
    under a 600 MB address-space limit, and an op far into the scratch range still checks."""
    far = kernel(tmp_path, """module {
  func.func @k(%a: !pto.ptr<f32, gm>) attributes {pto.aicore} {
    %c0 = arith.constant 0 : i64
    %c64 = arith.constant 64 : i64
    %c256 = arith.constant 256 : i64
    %far = arith.constant 268000000 : i64
    %ub = pto.castptr %c0 : i64 -> !pto.ptr<f32, ub>
    %p = pto.addptr %a, %far : !pto.ptr<f32, gm> -> !pto.ptr<f32, gm>
    pto.section.vector {
      pto.mte_gm_ub %a, %ub, %c0, %c256 nburst(%c64, %c256, %c256)
        : !pto.ptr<f32, gm>, !pto.ptr<f32, ub>, i64, i64, i64, i64, i64
      pto.mte_gm_ub %p, %ub, %c0, %c256 nburst(%c64, %c256, %c256)
        : !pto.ptr<f32, gm>, !pto.ptr<f32, ub>, i64, i64, i64, i64, i64
    }
    return
  }
}
""", "far.pto")
    for path in (ROOT / "examples" / "tile_matmul" / "kernel.pto", far):
        done = subprocess.run(["bash", "-c", f"ulimit -v 600000 && {sys.executable} -m ptosim "
                               f"check {path}"], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        assert "checks clean" in done.stdout


def test_check_scratch_still_bounds_gm(tmp_path):
    path = kernel(tmp_path, """module {
  func.func @k(%a: !pto.ptr<ui8, gm>) attributes {pto.aicore} {
    %c0 = arith.constant 0 : i64
    %c32 = arith.constant 32 : i64
    %end = arith.constant 1073741800 : i64
    %ub = pto.castptr %c0 : i64 -> !pto.ptr<ui8, ub>
    %p = pto.addptr %a, %end : !pto.ptr<ui8, gm> -> !pto.ptr<ui8, gm>
    pto.section.vector {
      pto.mte_gm_ub %p, %ub, %c0, %c32 nburst(%c32, %c32, %c32)
        : !pto.ptr<ui8, gm>, !pto.ptr<ui8, ub>, i64, i64, i64, i64, i64
    }
    return
  }
}
""")
    done = cli("check", str(path))
    assert done.returncode == 1
    assert f"{path}:9:7: error: mte_gm_ub: gm_src touches GM bytes" in done.stderr
    assert "(1073741824 bytes)" in done.stderr
