"""Memory: peak RSS of `ptosim run` processes, against importing numpy.

    python benchmarks/bench_memory.py [--rounds 3] [--gm-mb 64]

Figures, each the smallest peak RSS over ``--rounds`` fresh processes, all in one run:

- ``python -c "import numpy"``: the baseline any numpy tool pays;
- examples/cube_vector with ``--block-dim 1`` and ``--block-dim 48`` (``--force-block-dim``):
  on-chip buffers cost only the pages a block's kernel touches, and `ptosim run` hands a
  block's pages back when its cores end (goal, issue 17: 48 blocks under 60 MB);
- a GM -> UB -> GM copy kernel over a ``--gm-mb`` MB input file and a same-size output
  file, minus the same kernel over 1 KB: the extra RSS per MB of GM arguments (1.0 would
  mean every GM byte is held once; the file is read once into the machine's GM and the
  outputs are written from that same memory).
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import numpy as np

from _proc import child_env, measure, pycache_dir, python

ROOT = Path(__file__).resolve().parent.parent
COPY = """
module attributes {{pto.target_arch = "a5", pto.kernel_kind = #pto.kernel_kind<vector>}} {{
  func.func @copy(%src: !pto.ptr<f32, gm>, %dst: !pto.ptr<f32, gm>) attributes {{pto.aicore}} {{
    %z = arith.constant 0 : i64
    %one = arith.constant 1 : i64
    %len = arith.constant 256 : i64
    %off = arith.constant {last} : i64
    %ub = pto.castptr %z : i64 -> !pto.ptr<f32, ub>
    %s = pto.addptr %src, %off : !pto.ptr<f32, gm> -> !pto.ptr<f32, gm>
    %d = pto.addptr %dst, %off : !pto.ptr<f32, gm> -> !pto.ptr<f32, gm>
    pto.mte_gm_ub %s, %ub, %z, %len nburst(%one, %len, %len)
      : !pto.ptr<f32, gm>, !pto.ptr<f32, ub>, i64, i64, i64, i64, i64
    pto.set_flag["PIPE_MTE2", "PIPE_MTE3", "EVENT_ID0"]
    pto.wait_flag["PIPE_MTE2", "PIPE_MTE3", "EVENT_ID0"]
    pto.mte_ub_gm %ub, %d, %len nburst(%one, %len, %len)
      : !pto.ptr<f32, ub>, !pto.ptr<f32, gm>, i64, i64, i64, i64
    return
  }}
}}
"""


def copy_case(folder: Path, nbytes: int, tag: str) -> list[str]:
    """A kernel copying the last 256 bytes of a ``nbytes`` input into its output."""
    n = nbytes // 4
    (folder / f"copy{tag}.pto").write_text(COPY.format(last=n - 64))
    np.arange(n, dtype=np.float32).tofile(folder / f"in{tag}.bin")
    np.zeros(n, np.float32).tofile(folder / f"out{tag}.bin")
    return [str(folder / f"copy{tag}.pto"), "--arg", f"src={folder / f'in{tag}.bin'}",
            "--arg", f"dst={folder / f'out{tag}.bin'}"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--gm-mb", type=int, default=64)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp, pycache_dir() as pyc:
        folder = Path(tmp)
        rng = np.random.default_rng(1)
        rng.integers(-8, 8, (40, 50)).astype(np.float16).tofile(folder / "a.bin")
        rng.integers(-8, 8, (50, 64)).astype(np.float16).tofile(folder / "b.bin")
        np.zeros((40, 64), np.float32).tofile(folder / "c.bin")
        env = child_env(pyc)
        run = [python(), "-m", "ptosim", "run"]
        cube = [*run, str(ROOT / "examples/cube_vector/kernel.pto"),
                "--arg", f"a={folder / 'a.bin'}", "--arg", f"b={folder / 'b.bin'}",
                "--arg", f"c={folder / 'c.bin'}", "--force-block-dim"]
        cases = {"import numpy": [python(), "-c", "import numpy"],
                 "cube_vector --block-dim 1": [*cube, "--block-dim", "1"],
                 "cube_vector --block-dim 48": [*cube, "--block-dim", "48"],
                 "copy, 1 KB GM args": [*run, *copy_case(folder, 1024, "small")],
                 f"copy, {args.gm_mb} MB GM args": [
                     *run, *copy_case(folder, args.gm_mb << 20, "big")]}
        measure(cases["import numpy"], env, 1)          # warm the bytecode cache
        got = {name: measure(cmd, env, args.rounds)[2] for name, cmd in cases.items()}
    base = got["import numpy"]
    print(f"{'':32s} {'peak RSS MB':>12s} {'x numpy':>8s}")
    for name, mb in got.items():
        print(f"{name:32s} {mb:12.1f} {mb / base:8.2f}")
    per_block = (got["cube_vector --block-dim 48"] - got["cube_vector --block-dim 1"]) / 47
    extra = got[f"copy, {args.gm_mb} MB GM args"] - got["copy, 1 KB GM args"]
    held = extra / (2 * args.gm_mb)
    blocks = got["cube_vector --block-dim 48"]
    print(f"per extra block: {per_block * 1024:.0f} KB; GM arguments held {held:.2f}x "
          f"({extra:.1f} MB extra for {2 * args.gm_mb} MB of in + out files)")
    print(f"goal: 48 blocks < 60 MB -> {blocks:.1f} MB "
          f"({'met' if blocks < 60 else 'not met'})")


if __name__ == "__main__":
    main()
