"""`ptosim run --dump BUFFER@LINE[#N]`: buffer bytes right after an op, as .npy files."""

from pathlib import Path

import numpy as np
import pytest

from ptosim.cli import main
from ptosim.errors import PtoValueError
from ptosim.interp.dump import parse_dump

ROOT = Path(__file__).resolve().parent.parent
SPLIT = ROOT / "examples" / "cube_vector" / "kernel.pto"
TEXT = SPLIT.read_text()


def line_of(needle: str, nth: int = 0) -> int:
    return [i for i, t in enumerate(TEXT.splitlines(), 1) if needle in t][nth]


def split_args(tmp_path):
    np.ones((40, 50), np.float16).tofile(tmp_path / "a.bin")
    np.ones((50, 64), np.float16).tofile(tmp_path / "b.bin")
    np.zeros((40, 64), np.float32).tofile(tmp_path / "c.bin")
    return [f"--arg={n}={tmp_path / (n + '.bin')}" for n in "abc"]


def test_dumps_after_the_op(tmp_path, capsys):
    mad, store = line_of("pto.mad "), line_of("pto.mte_ub_gm")
    out = tmp_path / "dumps"
    out.mkdir()
    assert main(["run", str(SPLIT), *split_args(tmp_path), "--dump-dir", str(out),
                 "--dump", f"l0c@{mad}", "--dump", f"%c@{store}#1", "--dump", "ub1@1"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err == [
        f"dump l0c@{mad}: 262,144 bytes after run 1 of line {mad} in {out / f'dump-l0c-L{mad}.npy'}",
        f"dump %c@{store}#1: 10,240 bytes after run 1 of line {store} in "
        f"{out / f'dump-c-L{store}-1.npy'}",
        "dump ub1@1: nothing taken, its op did not run (micro and tile ops only)"]
    l0c = np.load(out / f"dump-l0c-L{mad}.npy")
    assert l0c.dtype == np.uint8
    # L0C holds the 40x64 f32 result as NZ 16x16 fractals: each 1 KiB fractal is 16 rows
    first = l0c[:1024].view(np.float32).reshape(16, 16)
    np.testing.assert_array_equal(first, np.full((16, 16), 50.0))     # K = 50 ones
    c = np.load(out / f"dump-c-L{store}-1.npy").view(np.float32).reshape(40, 64)
    np.testing.assert_array_equal(c[:20], np.full((20, 64), 50.0))    # AIV0's half only
    np.testing.assert_array_equal(c[20:], np.zeros((20, 64)))


@pytest.mark.parametrize("text, message", [
    ("l2@3", "--dump expects BUFFER@LINE[#N]"),
    ("l1", "--dump expects BUFFER@LINE[#N]"),
    ("l1@3#0", "--dump l1@3#0: runs are counted from 1"),
])
def test_bad_requests(text, message):
    with pytest.raises(PtoValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
        parse_dump(text)


def test_cli_refuses_bad_requests_before_the_run(tmp_path, capsys):
    args = split_args(tmp_path)
    assert main(["run", str(SPLIT), *args, "--dump", "l2@3"]) == 2
    assert "--dump expects BUFFER@LINE[#N]" in capsys.readouterr().err
    assert main(["run", str(SPLIT), *args, "--dump", "l1@3", "--dump-dir",
                 str(tmp_path / "none")]) == 2
    assert "is not a directory" in capsys.readouterr().err
    assert (np.fromfile(tmp_path / "c.bin", np.float32) == 0).all()
