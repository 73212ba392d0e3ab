"""`ptosim run --log`: one line per op with location, core, pipe, operands and the bytes it
read and wrote; written also when the run fails."""

from pathlib import Path

import numpy as np
import pytest

from ptosim.cli import main

ROOT = Path(__file__).resolve().parent.parent
SPLIT = ROOT / "examples" / "cube_vector" / "kernel.pto"


def line_of(text: str, needle: str) -> int:
    return next(i for i, t in enumerate(text.splitlines(), 1) if needle in t)


@pytest.fixture
def split_files(tmp_path):
    np.ones((40, 50), np.float16).tofile(tmp_path / "a.bin")
    np.ones((50, 64), np.float16).tofile(tmp_path / "b.bin")
    np.zeros((40, 64), np.float32).tofile(tmp_path / "c.bin")
    return [f"--arg={n}={tmp_path / (n + '.bin')}" for n in "abc"]


def test_log_lines_name_op_core_pipe_operands_and_bytes(split_files, tmp_path, capsys):
    log = tmp_path / "run.log"
    assert main(["run", str(SPLIT), *split_files, "--log", str(log)]) == 0
    lines = log.read_text().splitlines()
    text = SPLIT.read_text()
    first = lines[0]
    assert first.startswith(f"{SPLIT}:{line_of(text, 'pto.mte_gm_l1_frac %a')}:7 block0.aic "
                            f"MTE2 pto.mte_gm_l1_frac(Ptr(gm, f16, 0x")
    assert "'nd2nz', shape=(40, 50), src_layout=(100,)" in first
    assert first.endswith(f"| R GM %a ({tmp_path / 'a.bin'}) [0, 4000) W block0 l1 [0, 5888)")
    assert f"{SPLIT}:{line_of(text, 'pto.set_flag')}:7 block0.aic MTE2 set_flag MTE2 -> " \
           f"MTE1 EVENT_ID0" in lines
    mad = next(line for line in lines if " pto.mad(" in line)
    assert " block0.aic M pto.mad(" in mad and ", 40, 64, 50)" in mad
    assert mad.endswith("R block0 l0a [0, 6144) R block0 l0b [0, 8192) W block0 l0c [0, 12288)")
    stores = [line for line in lines if "pto.mte_ub_gm(" in line]
    assert [s.split()[1] for s in stores] == ["block0.aiv0", "block0.aiv1"]
    assert all(" MTE3 " in s and f"W GM %c ({tmp_path / 'c.bin'}) [" in s for s in stores)
    assert any(" sync.set " in line for line in lines)
    capsys.readouterr()
    assert main(["run", str(SPLIT), *split_files, "--log", "-"]) == 0
    assert capsys.readouterr().err.splitlines() == lines


def test_log_is_written_when_the_run_fails(tmp_path, capsys):
    kernel = tmp_path / "k.pto"
    kernel.write_text(SPLIT.read_text().replace("nburst(%c20, %c256, %c256)",
                                                "nburst(%c40, %c256, %c256)"))
    np.ones((40, 50), np.float16).tofile(tmp_path / "a.bin")
    np.ones((50, 64), np.float16).tofile(tmp_path / "b.bin")
    np.zeros((40, 64), np.float32).tofile(tmp_path / "c.bin")
    log = tmp_path / "run.log"
    log.write_text("old\n")
    args = [f"--arg={n}={tmp_path / (n + '.bin')}" for n in "abc"]
    assert main(["run", str(kernel), *args, "--log", str(log)]) == 1
    assert "error: mte_ub_gm: gm_dst touches GM bytes" in capsys.readouterr().err
    lines = log.read_text().splitlines()
    assert lines and lines != ["old"]
    assert "pto.mte_l0c_ub(" in "\n".join(lines)             # the ops before it
    assert not any(".tmp" in p.name for p in tmp_path.iterdir())


def test_log_destination_is_checked_before_the_run(split_files, tmp_path, capsys):
    c = tmp_path / "c.bin"
    before = c.read_bytes()
    assert main(["run", str(SPLIT), *split_files, "--log", str(c)]) == 2
    assert f"--log {c} is also where c is written" in capsys.readouterr().err
    assert main(["run", str(SPLIT), *split_files, "--log", str(tmp_path)]) == 2
    assert c.read_bytes() == before
