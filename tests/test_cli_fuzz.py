"""Hostile and mutated kernels through the command line: always exit 0, 1 or 2 with a
diagnostic on stderr, never a Python traceback."""

import subprocess
import sys
from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, given, settings, strategies as st

from ptosim.cli import main

ROOT = Path(__file__).resolve().parent.parent
KERNELS = [ROOT / "examples" / "matmul" / "kernel.pto", ROOT / "examples" / "cube_vector" / "kernel.pto"]
TOKENS = ["%c0", "%c1", "i64", "f16", "l1", "ub", "gm", "(", ")", ",", "{", "}", "<", ">", ":",
          "nburst", "nd2nz", "split_m", "99999999999999999999", "-1", "pto.mad", "\x00", "é"]


@st.composite
def mutated(draw):
    text = KERNELS[draw(st.integers(0, len(KERNELS) - 1))].read_text()
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(text) - 1))
        j = min(len(text), i + draw(st.integers(0, 40)))
        how = draw(st.sampled_from(["delete", "insert", "replace", "duplicate"]))
        piece = draw(st.sampled_from(TOKENS))
        if how == "delete":
            text = text[:i] + text[j:]
        elif how == "insert":
            text = text[:i] + piece + text[i:]
        elif how == "replace":
            text = text[:i] + piece + text[j:]
        else:
            text = text[:j] + text[i:j] + text[j:]
    return text


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=mutated())
def test_mutated_examples_never_crash(tmp_path, text):
    path = tmp_path / "k.pto"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    for argv in (["check", str(path)],
                 ["run", str(path), "--arg", f"0={_zeros(tmp_path)}", "--arg", f"1={_zeros(tmp_path)}",
                  "--arg", f"2={_zeros(tmp_path)}"]):
        assert main(argv) in (0, 1, 2)


def _zeros(tmp_path):
    p = tmp_path / "z.bin"
    np.zeros(4096, np.float32).tofile(p)
    return p


def test_hostile_files_exit_1_with_a_diagnostic(tmp_path):
    cases = {
        "truncated.pto": KERNELS[0].read_text()[:1500],
        "garbage.pto": bytes(range(256)).decode("latin-1"),
        "huge.pto": "module {\n  %x = arith.constant 123456789012345678901234567890 : i64\n}\n",
        "unknown.pto": "module {\n  func.func @k() attributes {pto.aicore} {\n    pto.frobnicate\n"
                       "    return\n  }\n}\n",
        "nested.pto": "module {" + "scf.execute_region {" * 200_000,
    }
    for name, text in cases.items():
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        done = subprocess.run([sys.executable, "-m", "ptosim", "check", str(path)],
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 1, (name, done.stderr)
        assert "Traceback" not in done.stderr, name
        assert done.stderr.startswith(f"{path}:"), (name, done.stderr[:200])
    assert "unknown op 'pto.frobnicate'" in subprocess.run(
        [sys.executable, "-m", "ptosim", "check", str(tmp_path / "unknown.pto")],
        capture_output=True, text=True).stderr


def test_example_scripts_pass_as_a_user_runs_them(tmp_path):
    for script, extra in (("matmul/run.py", ["--m", "72", "--n", "130", "--k", "140"]),
                          ("cube_vector/run.py", [])):
        done = subprocess.run([sys.executable, str(ROOT / "examples" / script), *extra,
                               "--keep", str(tmp_path / script.split("/")[0])],
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr
        assert "PASS" in done.stdout and "$ ptosim run" in done.stdout
