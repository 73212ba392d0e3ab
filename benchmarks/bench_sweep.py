"""Sweep throughput: cases per second for many small cases.

    python benchmarks/bench_sweep.py [--cases 1000] [--cli-sample 20] [--no-ray]

Each case copies 256 bytes GM -> UB -> GM with its own input and output file. Prints the
cases/s of one `ptosim run` process per case (measured on a sample), of `ptosim batch` in
one process, with the local process pool, and on a local Ray instance (when Ray is
installed), each as a ratio to the one-process-per-case figure, all in the same run.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from ptosim.batch import Case, read_cases, run_cases

from _proc import child_env, pycache_dir

KERNEL = """
module attributes {pto.target_arch = "a5", pto.kernel_kind = #pto.kernel_kind<vector>} {
  func.func @copy(%src: !pto.ptr<f32, gm>, %dst: !pto.ptr<f32, gm>) attributes {pto.aicore} {
    %z = arith.constant 0 : i64
    %one = arith.constant 1 : i64
    %len = arith.constant 256 : i64
    %ub = pto.castptr %z : i64 -> !pto.ptr<f32, ub>
    pto.mte_gm_ub %src, %ub, %z, %len nburst(%one, %len, %len)
      : !pto.ptr<f32, gm>, !pto.ptr<f32, ub>, i64, i64, i64, i64, i64
    pto.set_flag["PIPE_MTE2", "PIPE_MTE3", "EVENT_ID0"]
    pto.wait_flag["PIPE_MTE2", "PIPE_MTE3", "EVENT_ID0"]
    pto.mte_ub_gm %ub, %dst, %len nburst(%one, %len, %len)
      : !pto.ptr<f32, ub>, !pto.ptr<f32, gm>, i64, i64, i64, i64
    return
  }
}
"""


def make_cases(folder: Path, count: int) -> Path:
    (folder / "copy.pto").write_text(KERNEL)
    lines = []
    for i in range(count):
        np.full(64, i, np.float32).tofile(folder / f"in{i}.bin")
        np.zeros(64, np.float32).tofile(folder / f"out{i}.bin")
        lines.append(json.dumps({"name": f"c{i}", "kernel": "copy.pto",
                                 "args": {"src": f"in{i}.bin", "dst": f"out{i}.bin"}}))
    path = folder / "cases.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def timed(cases: list, **how: object) -> float:
    start = time.perf_counter()
    bad = [o.name for o in run_cases(cases, **how) if not o.ok]  # type: ignore[arg-type]
    assert not bad, f"cases failed: {bad[:5]}"
    return len(cases) / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--cli-sample", type=int, default=20,
                        help="cases run as separate processes (they take ~0.3 s each)")
    parser.add_argument("--no-ray", action="store_true")
    opts = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, pycache_dir() as pyc:
        folder = Path(tmp)
        cases = read_cases(make_cases(folder, opts.cases))
        # each command in-process (no warm server), bytecode cached as when installed
        env = {**child_env(pyc), "PTOSIM_SERVER": "off"}
        sample = cases[:opts.cli_sample]

        def command(case: Case) -> None:
            subprocess.run([sys.executable, "-m", "ptosim", "run", *case.argv], cwd=folder,
                           env=env, check=True, capture_output=True)
        command(sample[0])                  # fills the bytecode cache
        start = time.perf_counter()
        for case in sample:
            command(case)
        cli = opts.cli_sample / (time.perf_counter() - start)
        rows = [("one `ptosim run` per case", cli)]
        rows.append(("batch, this process", timed(cases, workers=0)))
        rows.append(("batch, local pool", timed(cases)))
        if not opts.no_ray:
            try:
                import ray  # noqa: F401
            except ImportError:
                print("(Ray not installed: pip install 'ptosim[ray]')")
            else:
                rows.append(("batch, local Ray", timed(cases, backend="ray")))
        out = np.fromfile(folder / f"out{opts.cases - 1}.bin", np.float32)
        assert (out == opts.cases - 1).all(), "the last case's output is wrong"
    print(f"{opts.cases} cases of a 256-byte copy kernel")
    print(f"{'how':<28} {'cases/s':>9} {'vs CLI':>7}")
    for label, rate in rows:
        print(f"{label:<28} {rate:>9.1f} {rate / cli:>6.1f}x")


if __name__ == "__main__":
    main()
