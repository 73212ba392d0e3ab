"""The interpreter's cost per vector micro-op, and a vector kernel's ops per second.

    python benchmarks/bench_vector.py [--iterations 20000]

Inside one `pto.vecscope`, an `scf.for` loop runs ten 256-byte `pto.vadd`s (64 f32 lanes,
a full mask) per iteration, or ten `arith.addi`s, or nothing; the per-op cost is the time
over the empty loop's, measured in the same run, and reported also as a ratio to the
`arith.addi` cost. Then the column-softmax example (examples/vector_softmax) runs on a
256 x 512 f32 matrix over 8 blocks: ops per second and bytes per second.
Goal: <= 5 us per vector op through the interpreter.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

import numpy as np

from ptosim.kernel import Kernel

HEAD = """
module attributes {pto.target_arch = "a5", pto.kernel_kind = #pto.kernel_kind<vector>} {
  func.func @k(%n: index, %x: i64) attributes {pto.aicore} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %z = arith.constant 0 : i64
    %ub = pto.castptr %z : i64 -> !pto.ptr<f32, ub>
    pto.vecscope {
      %all = pto.pset_b32 "PAT_ALL" : !pto.mask<b32>
      %v = pto.vlds %ub[%c0] : !pto.ptr<f32, ub> -> !pto.vreg<64xf32>
      scf.for %i = %c0 to %n step %c1 {
"""
TAIL = """
      }
    }
    return
  }
}
"""
VT = "!pto.vreg<64xf32>"
VADD = "\n".join(f"        %a{j} = pto.vadd %v, %v, %all : {VT}, {VT}, !pto.mask<b32> -> {VT}"
                 for j in range(10))
ADDI = "\n".join(f"        %a{j} = arith.addi %x, %x : i64" for j in range(10))
SOFTMAX = Path(__file__).resolve().parent.parent / "examples" / "vector_softmax" / "kernel.pto"


def best(kernel: Kernel, args: dict[str, Any], rounds: int = 5, **kw: Any) -> float:
    times = []
    for _ in range(rounds):
        start = time.process_time()
        kernel.run(args, **kw)
        times.append(time.process_time() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=20000)
    n = parser.parse_args().iterations
    empty, addi, vadd = (Kernel.from_text(HEAD + body + TAIL, f"{name}.pto")
                         for name, body in (("empty", ""), ("addi", ADDI), ("vadd", VADD)))
    args = {"n": n, "x": 3}
    base = best(empty, args, hazards=False)
    arith = (best(addi, args, hazards=False) - base) / (10 * n) * 1e6
    vector = (best(vadd, args, hazards=False) - base) / (10 * n) * 1e6
    print(f"empty loop iteration: {base / n * 1e6:.2f} us")
    print(f"arith.addi:           {arith:.2f} us/op")
    print(f"pto.vadd 64xf32:      {vector:.2f} us/op ({vector / arith:.2f}x an arith.addi); "
          f"goal <= 5 us: {'met' if vector <= 5 else 'MISSED'}")

    kernel = Kernel.from_file(SOFTMAX)
    x = np.random.default_rng(0).standard_normal((256, 512)).astype(np.float32)
    y = np.zeros_like(x)
    run = {"x": x, "y": y, "rows": 256, "cols": 512}
    ops = kernel.run(run, block_dim=8).ops
    for hazards in (False, True):
        t = best(kernel, run, rounds=3, block_dim=8, hazards=hazards)
        start = time.process_time()
        e = np.exp(x - x.max(axis=0))
        _ = e / e.sum(axis=0)
        ref = time.process_time() - start
        print(f"softmax 256x512 f32, 8 blocks, hazards {'on ' if hazards else 'off'}: "
              f"{ops} ops in {t:.3f} s = {ops / t:,.0f} ops/s, "
              f"{x.nbytes / t / 1e6:.1f} MB/s ({t / ref:,.0f}x numpy's {ref * 1e3:.2f} ms)")


if __name__ == "__main__":
    main()
