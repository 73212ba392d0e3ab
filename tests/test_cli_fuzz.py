"""Hostile and mutated kernels through the command line: always exit 0, 1 or 2 with a
diagnostic on stderr, never a Python traceback; hostile Python API arguments: only
PtoErrors, and no byte written before a refusal. Bounded by example counts, not time."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from ptosim.cli import main

ROOT = Path(__file__).resolve().parent.parent
KERNELS = [ROOT / "examples" / "matmul" / "kernel.pto", ROOT / "examples" / "cube_vector" / "kernel.pto"]
TOKENS = ["%c0", "%c1", "i64", "f16", "l1", "ub", "gm", "(", ")", ",", "{", "}", "<", ">", ":",
          "nburst", "nd2nz", "split_m", "99999999999999999999", "-1", "pto.mad", "\x00", "é",
          # structure: declarations, calls, forward uses, locations with control characters
          "func.func private @d(i64)\n", "func.call @matmul_split(%a, %b, %c) : "
          "(!pto.ptr<f16, gm>, !pto.ptr<f16, gm>, !pto.ptr<f32, gm>) -> ()\n",
          "%c1280", ' loc("x\\1b[2J\\0d\\0ay.pto":1:1)', "private ", "!pto.ptr<f32, ub>"]


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
    import contextlib
    import io
    for argv in (["check", str(path)],
                 ["run", str(path), "--arg", f"0={_zeros(tmp_path)}", "--arg", f"1={_zeros(tmp_path)}",
                  "--arg", f"2={_zeros(tmp_path)}"]):
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            assert main(argv) in (0, 1, 2)
        assert "\x1b" not in err.getvalue() and "\r" not in err.getvalue()


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
                          ("cube_vector/run.py", []),
                          ("vector_softmax/run.py", ["--rows", "9", "--cols", "130"]),
                          ("attention/run.py", ["--blocks", "2"])):
        done = subprocess.run([sys.executable, str(ROOT / "examples" / script), *extra,
                               "--keep", str(tmp_path / script.split("/")[0])],
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr
        assert "PASS" in done.stdout and "$ ptosim run" in done.stdout


@pytest.mark.filterwarnings("ignore::ptosim.PtoWarning")   # legal but odd values may warn
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_hostile_python_api_arguments(data):
    """One hostile value (drawn by hypothesis) in one argument or clause element of one
    public Machine method: a PtoError (also a TypeError / ValueError) or success, and a
    refusal leaves every byte as it was."""
    import api_harness
    from ptosim.errors import PtoError
    m, calls = api_harness.setup()
    name = data.draw(st.sampled_from(sorted(calls)))
    value = data.draw(st.one_of(
        st.none(), st.integers(), st.floats(), st.text(max_size=8), st.binary(max_size=4),
        st.booleans(), st.tuples(st.integers(-2, 2**40)), st.lists(st.integers(), max_size=3),
        st.sampled_from([m.ptr("l0c", "f32"), m.ptr("ub", "i8"), m.ptr("bt", "f32"),
                         m.gm_empty(4, "f16"), m.tile("Vec", "f32", 8, 8)])))
    variants = list(api_harness.cases({name: calls[name]}, [value]))
    case = variants[data.draw(st.integers(0, len(variants) - 1))]
    saved = [b.copy() for b in api_harness.buffers(m)]
    try:
        getattr(m, case.method)(*case.args, **case.kwargs)
    except PtoError as err:
        assert isinstance(err, (TypeError, ValueError, NotImplementedError)), repr(err)
        now = api_harness.buffers(m)
        assert len(now) == len(saved) and all(np.array_equal(x, y) for x, y in zip(now, saved))
