"""The hazard checker's cost as a buffer's history grows.

    python benchmarks/bench_hazards.py [--ranges 1024 16384]

A vector kernel copies N distinct 32-byte chunks GM -> UB -> GM through one UB slot,
ordered by flags (MTE2 -> MTE3 -> MTE2), so GM input and output each collect N byte
ranges. Prints the run time without and with the checker and their ratio for each N, in
the same run, as CPU seconds of this process (what the checker costs, whatever else the
machine runs; as bench_interp) and as wall seconds. Each figure is the best of
``--rounds``, the two runs alternating. Goal: the checker costs at most 1.3x at 16k
ranges (CPU).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np

from ptosim.kernel import Kernel

KERNEL = """
module attributes {pto.target_arch = "a5", pto.kernel_kind = #pto.kernel_kind<vector>} {
  func.func @chunks(%src: !pto.ptr<f32, gm>, %dst: !pto.ptr<f32, gm>, %n: index)
      attributes {pto.aicore} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %z = arith.constant 0 : i64
    %c8 = arith.constant 8 : i64
    %c32 = arith.constant 32 : i64
    %c1_i64 = arith.constant 1 : i64
    %ub = pto.castptr %z : i64 -> !pto.ptr<f32, ub>
    scf.for %i = %c0 to %n step %c1 {
      %i64 = arith.index_cast %i : index to i64
      %off = arith.muli %i64, %c8 : i64
      %s = pto.addptr %src, %off : !pto.ptr<f32, gm> -> !pto.ptr<f32, gm>
      %d = pto.addptr %dst, %off : !pto.ptr<f32, gm> -> !pto.ptr<f32, gm>
      pto.mte_gm_ub %s, %ub, %z, %c32 nburst(%c1_i64, %c32, %c32)
        : !pto.ptr<f32, gm>, !pto.ptr<f32, ub>, i64, i64, i64, i64, i64
      pto.set_flag["PIPE_MTE2", "PIPE_MTE3", "EVENT_ID0"]
      pto.wait_flag["PIPE_MTE2", "PIPE_MTE3", "EVENT_ID0"]
      pto.mte_ub_gm %ub, %d, %c32 nburst(%c1_i64, %c32, %c32)
        : !pto.ptr<f32, ub>, !pto.ptr<f32, gm>, i64, i64, i64, i64
      pto.set_flag["PIPE_MTE3", "PIPE_MTE2", "EVENT_ID0"]
      pto.wait_flag["PIPE_MTE3", "PIPE_MTE2", "EVENT_ID0"]
    }
    return
  }
}
"""


def timed(kernel: Kernel, n: int, hazards: bool) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one run copying ``n`` chunks."""
    src = np.arange(8 * n, dtype=np.float32)
    dst = np.zeros_like(src)
    cpu, wall = time.process_time(), time.perf_counter()
    result = kernel.run({"src": src, "dst": dst, "n": n}, hazards=hazards)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    assert np.array_equal(result.outputs["dst"], src), "the copy is wrong"
    assert not result.findings, result.findings
    return cpu, wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ranges", type=int, nargs="+", default=[1024, 16384])
    parser.add_argument("--rounds", type=int, default=5)
    opts = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "chunks.pto"
        path.write_text(KERNEL)
        kernel = Kernel.from_file(str(path))
    print(f"{'ranges':>8} {'no checker s':>13} {'checker s':>10} {'ratio':>6}   "
          f"{'wall: no checker':>16} {'checker':>8} {'ratio':>6}")
    ratio = 0.0
    for n in opts.ranges:
        runs = [[timed(kernel, n, hz) for hz in (False, True)] for _ in range(opts.rounds)]
        (off, off_wall), (on, on_wall) = (
            (min(r[i][0] for r in runs), min(r[i][1] for r in runs)) for i in (0, 1))
        ratio = on / off
        print(f"{n:>8} {off:>13.3f} {on:>10.3f} {ratio:>6.2f}   {off_wall:>16.3f} "
              f"{on_wall:>8.3f} {on_wall / off_wall:>6.2f}")
    verdict = "met" if ratio <= 1.3 else "MISSED"
    print(f"goal: checker <= 1.3x (CPU) at {opts.ranges[-1]} ranges: {ratio:.2f}x {verdict}")


if __name__ == "__main__":
    main()
