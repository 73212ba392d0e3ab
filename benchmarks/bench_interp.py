"""The interpreter's cost per op: an `arith.addi` and a one-burst `mte_ub_ub`, each inside
an `scf.for` loop, against the same loop with an empty body, in the same run.

    python benchmarks/bench_interp.py [--iterations 20000]

Goals: <= 3 us per arith op and <= 8 us per small DMA op.
"""

from __future__ import annotations

import argparse
import time

from ptosim.kernel import Kernel

HEAD = """
module attributes {pto.target_arch = "a5", pto.kernel_kind = #pto.kernel_kind<vector>} {
  func.func @k(%n: index, %x: i64) attributes {pto.aicore} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %z = arith.constant 0 : i64
    %one = arith.constant 1 : i64
    %len = arith.constant 32 : i64
    %off = arith.constant 4096 : i64
    %ub = pto.castptr %z : i64 -> !pto.ptr<f32, ub>
    %ub2 = pto.castptr %off : i64 -> !pto.ptr<f32, ub>
    scf.for %i = %c0 to %n step %c1 {
"""
TAIL = """
    }
    return
  }
}
"""
ADDI = "\n".join(f"      %a{j} = arith.addi %x, %x : i64" for j in range(10))
DMA = ("      pto.mte_ub_ub %ub, %ub2, %len nburst(%one, %len, %len)\n"
       "        : !pto.ptr<f32, ub>, !pto.ptr<f32, ub>, i64, i64, i64, i64")


def best(kernel: Kernel, n: int, rounds: int = 5) -> float:
    times = []
    for _ in range(rounds):
        start = time.process_time()
        kernel.run({"n": n, "x": 3}, hazards=False)
        times.append(time.process_time() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=20000)
    n = parser.parse_args().iterations
    empty, addi, dma = (Kernel.from_text(HEAD + body + TAIL, f"{name}.pto")
                        for name, body in (("empty", ""), ("addi", ADDI), ("dma", DMA)))
    base = best(empty, n)
    per_iter = base / n * 1e6
    arith = (best(addi, n) - base) / (10 * n) * 1e6
    small = (best(dma, n) - base) / n * 1e6
    print(f"empty loop iteration: {per_iter:.2f} us")
    print(f"arith.addi:           {arith:.2f} us/op ({arith / per_iter:.2f}x an iteration); "
          f"goal <= 3 us: {'met' if arith <= 3 else 'MISSED'}")
    print(f"mte_ub_ub 32 B:       {small:.2f} us/op ({small / per_iter:.2f}x an iteration); "
          f"goal <= 8 us: {'met' if small <= 8 else 'MISSED'}")


if __name__ == "__main__":
    main()
