"""The pipe-hazard checker: each kind of missing synchronisation is caught, correctly
synchronised kernels (including double-buffered ones) report nothing."""

from pathlib import Path

import numpy as np
import pytest

from ptosim.cli import main
from ptosim.errors import DeadlockError
from ptosim.kernel import Kernel

ROOT = Path(__file__).resolve().parent.parent
MATMUL = (ROOT / "examples" / "matmul" / "kernel.pto").read_text()
SPLIT = (ROOT / "examples" / "cube_vector" / "kernel.pto").read_text()
MM_ARGS = dict(m=150, n=140, k=300)


def mm_inputs():
    m, n, k = MM_ARGS["m"], MM_ARGS["n"], MM_ARGS["k"]
    return {"a": np.ones((m, k), np.float16), "b": np.ones((k, n), np.float16),
            "bias": np.zeros(n, np.float32), "c": np.zeros((m, n), np.float32), **MM_ARGS}


def split_inputs():
    return {"a": np.ones((40, 50), np.float16), "b": np.ones((50, 64), np.float16),
            "c": np.zeros((40, 64), np.float32)}


def line_of(text, needle, nth=0):
    return [i for i, t in enumerate(text.splitlines(), 1) if needle in t][nth]


def drop(text, *lines):
    for line in lines:
        assert line in text
        text = text.replace(line, "")
    return text


def test_examples_are_clean():
    assert Kernel.from_text(MATMUL, "mm.pto").run(mm_inputs()).findings == []
    assert Kernel.from_text(SPLIT, "cv.pto").run(split_inputs()).findings == []


def test_raw_across_mte2_to_mte1():
    text = drop(MATMUL, '          pto.set_flag["PIPE_MTE2", "PIPE_MTE1", "EVENT_ID0"]\n',
                '          pto.wait_flag["PIPE_MTE2", "PIPE_MTE1", "EVENT_ID0"]\n')
    found = Kernel.from_text(text, "mm.pto").run(mm_inputs()).findings
    raw = [f for f in found if f.kind == "RAW"]
    assert {f.loc for f in raw} == {f"mm.pto:{line_of(text, 'pto.mte_l1_l0a %l1_a')}:11",
                                    f"mm.pto:{line_of(text, 'pto.mte_l1_l0b %l1_b')}:11"}
    first = next(f for f in raw if "mte_l1_l0a" in f.message)
    assert "RAW hazard on block0 l1 bytes [0, " in first.message
    assert f"pto.mte_gm_l1_frac (block0.aic PIPE_MTE2) at mm.pto:" \
           f"{line_of(text, 'pto.mte_gm_l1_frac %a_src')}:11 wrote" in first.message
    assert 'add pto.set_flag["PIPE_MTE2", "PIPE_MTE1", "EVENT_IDn"]' in first.message
    assert first.related == f"mm.pto:{line_of(text, 'pto.mte_gm_l1_frac %a_src')}:11"
    assert first.related_note == "the write it races with: pto.mte_gm_l1_frac on " \
                                 "block0.aic PIPE_MTE2"


def test_war_on_reused_l1_across_iterations():
    text = drop(MATMUL, '          pto.set_flag["PIPE_MTE1", "PIPE_MTE2", "EVENT_ID0"]\n',
                '          pto.wait_flag["PIPE_MTE1", "PIPE_MTE2", "EVENT_ID0"]\n')
    found = Kernel.from_text(text, "mm.pto").run(mm_inputs()).findings
    war = [f for f in found if f.kind == "WAR"]
    assert war and all("PIPE_MTE1" in f.message and "overwrites what" in f.message for f in war)
    assert any(f.loc == f"mm.pto:{line_of(text, 'pto.mte_gm_l1_frac %a_src')}:11" for f in war)
    assert all(f.count >= 1 for f in war)


def test_cube_to_vector_without_semaphores():
    text = drop(SPLIT, "      pto.sync.wait <PIPE_MTE3>, 1\n",
                "      pto.sync.set <PIPE_FIX>, 1\n      pto.sync.set <PIPE_FIX>, 17\n")
    found = Kernel.from_text(text, "cv.pto").run(split_inputs()).findings
    assert [f.kind for f in found] == ["RAW"]
    msg = found[0].message
    assert "pto.mte_ub_gm (block0.aiv0 PIPE_MTE3) reads what pto.mte_l0c_ub (block0.aic " \
           "PIPE_FIX)" in msg
    assert "order the cores: pto.sync.set <PIPE_FIX> on block0.aic" in msg
    assert found[0].count == 2                       # both vector sub-blocks


def test_missing_mte1_to_m_flag_is_caught_on_l0():
    text = drop(MATMUL, '          pto.set_flag["PIPE_MTE1", "PIPE_M", "EVENT_ID0"]\n',
                '          pto.wait_flag["PIPE_MTE1", "PIPE_M", "EVENT_ID0"]\n')
    found = Kernel.from_text(text, "mm.pto").run(mm_inputs()).findings
    assert any(f.kind == "RAW" and "block0 l0a" in f.message and "pto.mad" in f.message
               for f in found)


PINGPONG = """module attributes {pto.target_arch = "a5", pto.kernel_kind = #pto.kernel_kind<cube>} {
  func.func @pingpong(%a: !pto.ptr<f16, gm>, %c: !pto.ptr<f32, gm>) attributes {pto.aicore} {
    %c0 = arith.constant 0 : i64
    %c1 = arith.constant 1 : i64
    %c16 = arith.constant 16 : i64
    %c32 = arith.constant 32 : i64
    %c256 = arith.constant 256 : i64
    %c512 = arith.constant 512 : i64
    %c1024 = arith.constant 1024 : i64
    %false = arith.constant false
    %i0 = arith.constant 0 : index
    %i1 = arith.constant 1 : index
    %i4 = arith.constant 4 : index
    %l1_0 = pto.castptr %c0 : i64 -> !pto.ptr<f16, l1>
    %l1_1 = pto.castptr %c512 : i64 -> !pto.ptr<f16, l1>
    %l0a_0 = pto.castptr %c0 : i64 -> !pto.ptr<f16, l0a>
    %l0a_1 = pto.castptr %c512 : i64 -> !pto.ptr<f16, l0a>
    %l0b = pto.castptr %c0 : i64 -> !pto.ptr<f16, l0b>
    %l0c = pto.castptr %c0 : i64 -> !pto.ptr<f32, l0c>
    pto.mte_gm_l1_frac %a, %l1_0, nd2nz, shape(%c16, %c16), src_layout(%c32),
        dst_group(%c1, %c1, %c16, %c0), ctrl(%c0, %false)
      : !pto.ptr<f16, gm>, !pto.ptr<f16, l1>, nd2nz, shape i64, i64, src_layout(i64),
        dst_group i64, i64, i64, i64, ctrl i64, i1
    pto.set_flag["PIPE_MTE2", "PIPE_MTE1", "EVENT_ID2"]
    pto.wait_flag["PIPE_MTE2", "PIPE_MTE1", "EVENT_ID2"]
    pto.mte_l1_l0b %l1_0, %l0b, %c16, %c16 {transpose = true}
      : !pto.ptr<f16, l1>, !pto.ptr<f16, l0b>, i64, i64
    pto.set_flag["PIPE_MTE1", "PIPE_MTE2", "EVENT_ID0"]
    pto.set_flag["PIPE_MTE1", "PIPE_MTE2", "EVENT_ID1"]
    pto.set_flag["PIPE_M", "PIPE_MTE1", "EVENT_ID0"]
    pto.set_flag["PIPE_M", "PIPE_MTE1", "EVENT_ID1"]
    scf.for %i = %i0 to %i4 step %i1 {
PINGPONG_STAGES
    }
    pto.wait_flag["PIPE_MTE1", "PIPE_MTE2", "EVENT_ID0"]
    pto.wait_flag["PIPE_MTE1", "PIPE_MTE2", "EVENT_ID1"]
    pto.wait_flag["PIPE_M", "PIPE_MTE1", "EVENT_ID0"]
    pto.wait_flag["PIPE_M", "PIPE_MTE1", "EVENT_ID1"]
    pto.set_flag["PIPE_M", "PIPE_FIX", "EVENT_ID0"]
    pto.wait_flag["PIPE_M", "PIPE_FIX", "EVENT_ID0"]
    pto.mte_l0c_gm %l0c, %c, %c16, %c16, %c16, %c16, %c0, %c0, nz2nd
      : !pto.ptr<f32, l0c>, !pto.ptr<f32, gm>, i64, i64, i64, i64, i64, i64
    return
  }
}
"""

STAGE = """      pto.wait_flag["PIPE_MTE1", "PIPE_MTE2", "EVENT_IDe"]
      pto.mte_gm_l1_frac %a, %l1_e, nd2nz, shape(%c16, %c16), src_layout(%c32),
          dst_group(%c1, %c1, %c16, %c0), ctrl(%c0, %false)
        : !pto.ptr<f16, gm>, !pto.ptr<f16, l1>, nd2nz, shape i64, i64, src_layout(i64),
          dst_group i64, i64, i64, i64, ctrl i64, i1
      pto.set_flag["PIPE_MTE2", "PIPE_MTE1", "EVENT_IDe"]
      pto.wait_flag["PIPE_MTE2", "PIPE_MTE1", "EVENT_IDe"]
      pto.wait_flag["PIPE_M", "PIPE_MTE1", "EVENT_IDe"]
      pto.mte_l1_l0a %l1_e, %l0a_e, %c16, %c16
        : !pto.ptr<f16, l1>, !pto.ptr<f16, l0a>, i64, i64
      pto.set_flag["PIPE_MTE1", "PIPE_MTE2", "EVENT_IDe"]
      pto.set_flag["PIPE_MTE1", "PIPE_M", "EVENT_IDe"]
      pto.wait_flag["PIPE_MTE1", "PIPE_M", "EVENT_IDe"]
      pto.mad_acc %l0a_e, %l0b, %l0c, %c16, %c16, %c16
        : !pto.ptr<f16, l0a>, !pto.ptr<f16, l0b>, !pto.ptr<f32, l0c>, i64, i64, i64
      pto.set_flag["PIPE_M", "PIPE_MTE1", "EVENT_IDe"]
"""


def pingpong(stages=STAGE):
    body = stages.replace("EVENT_IDe", "EVENT_ID0").replace("_e,", "_0,") + \
        stages.replace("EVENT_IDe", "EVENT_ID1").replace("_e,", "_1,")
    return PINGPONG.replace("PINGPONG_STAGES\n", body)


def test_double_buffered_kernel_with_correct_flags_is_clean():
    out = Kernel.from_text(pingpong(), "pp.pto").run(
        {"a": np.ones((16, 16), np.float16), "c": np.zeros((16, 16), np.float32)})
    assert out.findings == []
    assert (out.outputs["c"] == 8 * 16).all()          # 8 accumulations of ones . ones


def test_double_buffer_with_one_event_missing_is_caught():
    broken = STAGE.replace('      pto.wait_flag["PIPE_MTE1", "PIPE_MTE2", "EVENT_IDe"]\n', "")
    text = pingpong(broken)
    found = Kernel.from_text(text, "pp.pto").run(
        {"a": np.ones((16, 16), np.float16), "c": np.zeros((16, 16), np.float32)}).findings
    assert any(f.kind == "WAR" and "pto.mte_gm_l1_frac" in f.message for f in found)
    assert any(f.kind == "flag left set" for f in found)        # the primed sets stay set


@pytest.mark.parametrize("hazards", [True, False])
def test_unmatched_wait_flag_is_a_hang(hazards):
    """A wait_flag no set_flag can release would hang the pipe on hardware: an error at
    the wait, with or without the hazard checker."""
    text = MATMUL.replace('    pto.barrier #pto.pipe<PIPE_ALL>\n',
                          '    pto.wait_flag["PIPE_V", "PIPE_M", "EVENT_ID7"]\n')
    with pytest.raises(DeadlockError, match=r"mm\.pto:\d+:\d+: error: pto\.wait_flag: "
                       r"wait_flag\[PIPE_V, PIPE_M, EVENT_ID7\] on block0\.aic has no "
                       r"unconsumed set_flag\[PIPE_V, PIPE_M, EVENT_ID7\] before it: on "
                       r"hardware PIPE_M would wait forever"):
        Kernel.from_text(text, "mm.pto").run(mm_inputs(), hazards=hazards)


def test_second_wait_on_one_set_flag_is_a_hang():
    """Each set_flag releases one wait_flag: a second wait on the same event hangs."""
    text = MATMUL.replace('    pto.barrier #pto.pipe<PIPE_ALL>\n',
                          '    pto.set_flag["PIPE_V", "PIPE_M", "EVENT_ID7"]\n'
                          '    pto.wait_flag["PIPE_V", "PIPE_M", "EVENT_ID7"]\n'
                          '    pto.wait_flag["PIPE_V", "PIPE_M", "EVENT_ID7"]\n')
    with pytest.raises(DeadlockError, match="has no unconsumed set_flag"):
        Kernel.from_text(text, "mm.pto").run(mm_inputs(), hazards=False)


def test_cli_hazard_modes(tmp_path, capsys):
    bad = tmp_path / "bad.pto"
    bad.write_text(drop(SPLIT, "      pto.sync.wait <PIPE_MTE3>, 1\n",
                        "      pto.sync.set <PIPE_FIX>, 1\n      pto.sync.set <PIPE_FIX>, 17\n"))
    files = []
    for name, arr in split_inputs().items():
        arr.tofile(tmp_path / f"{name}.bin")
        files += ["--arg", f"{name}={tmp_path / f'{name}.bin'}"]
    assert main(["run", str(bad), *files]) == 0
    out = capsys.readouterr()
    assert f"{bad}:" in out.err and ": warning: RAW hazard" in out.err
    assert "1 hazard finding(s)" in out.out
    assert main(["run", str(bad), *files, "--hazards=error"]) == 1
    assert ": error: RAW hazard" in capsys.readouterr().err
    assert main(["run", str(bad), *files, "--no-hazards"]) == 0
    captured = capsys.readouterr()
    assert "hazard" not in captured.err and "hazards not checked" in captured.out


class _Op:
    def __init__(self, name: str) -> None:
        self.name = name


def _events():
    """A checker driven directly: ``do(pipe, kind, start, end)`` is one op's one access."""
    from types import SimpleNamespace

    from ptosim.interp.hazards import HazardChecker
    core = SimpleNamespace(name="block0.aiv0", kind="vector")
    buf = np.zeros(4096, np.uint8)
    checker = HazardChecker(lambda op: op.name, lambda b: "gm")

    def do(pipe: str, access: str, start: int, end: int) -> None:
        op = _Op(f"{pipe}:{access}[{start},{end})")
        checker.begin_op(core, op, SimpleNamespace(name="x", syntax=None), [], pipe)
        checker.access(buf, start, end - start, access, None, None)
        checker.end_op()
    return checker, core, do


def test_a_range_written_again_after_a_flag_is_unordered_again():
    """Each buffer keeps one access per (pipe, kind, range) in epoch order; writing a range
    again moves it past the flag, so only that range conflicts with the later read."""
    checker, core, do = _events()
    do("MTE2", "W", 0, 32)
    do("MTE2", "W", 32, 64)
    checker.set_flag(core, "PIPE_MTE2", "PIPE_MTE3", "EVENT_ID0", _Op("set"))
    checker.wait_flag(core, "PIPE_MTE2", "PIPE_MTE3", "EVENT_ID0", _Op("wait"))
    do("MTE2", "W", 0, 32)                  # after the flag: unordered with MTE3 again
    do("MTE3", "R", 32, 64)                 # ordered by the flag: clean
    assert checker.finish() == []
    do("MTE3", "R", 0, 64)
    [raw] = checker.finish()
    assert raw.kind == "RAW" and "bytes [0, 32): MTE3:R[0,64)" in raw.message
    assert "MTE2:W[0,32)" in raw.message


def test_old_unordered_accesses_are_still_found_behind_many_newer_ones():
    checker, core, do = _events()
    do("V", "R", 100, 101)
    for i in range(50):                     # newer writes by MTE2 that touch other bytes
        do("MTE2", "W", 1000 + 8 * i, 1008 + 8 * i)
    do("MTE2", "W", 96, 104)                # WAR against the first read, never ordered
    [war] = checker.finish()
    assert war.kind == "WAR" and "bytes [100, 101)" in war.message


def test_a_kernel_without_any_sync_gets_one_note(tmp_path, capsys):
    """Written for PTOAS's automatic sync insertion: one explanatory note instead of a
    hazard per access, and --hazards=error does not fail it."""
    text = "\n".join(line for line in SPLIT.splitlines()
                     if not any(w in line for w in ("set_flag", "wait_flag", "sync.", "barrier")))
    path = tmp_path / "nosync.pto"
    path.write_text(text)
    k = Kernel.from_text(text, "nosync.pto")
    assert not k.has_sync() and Kernel.from_text(SPLIT, "cv.pto").has_sync()
    assert k.run(split_inputs()).findings            # the Python face still has them all
    files = []
    for name, arr in split_inputs().items():
        arr.tofile(tmp_path / f"{name}.bin")
        files += ["--arg", f"{name}={tmp_path / (name + '.bin')}"]
    assert main(["run", str(path), *files, "--hazards=error"]) == 0
    captured = capsys.readouterr()
    [note] = captured.err.splitlines()
    assert note.startswith(f"{path}: note: @matmul_split has no synchronisation ops")
    assert note.endswith("pipe hazard(s) an unsynchronised run would have are not reported")
    assert "0 hazard finding(s)" in captured.out
