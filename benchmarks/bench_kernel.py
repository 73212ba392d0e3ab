"""Whole-kernel speed: the tiled matmul example (examples/matmul/kernel.pto) at
1024 x 1024 x 1024, f16 -> f32, through the .pto interpreter.

    python benchmarks/bench_kernel.py [--size 1024]

Prints total seconds, ops executed per second, and numpy's time for the same matmul in
the same run, then the run time with and without the pipe-hazard checker. Goals: under
2 s on a 2-core machine; the checker costs at most 1.5x.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from ptosim.kernel import Kernel

KERNEL = Path(__file__).resolve().parent.parent / "examples" / "matmul" / "kernel.pto"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=1024, help="m = n = k (default 1024)")
    size = parser.parse_args().size
    rng = np.random.default_rng(0)
    a = rng.uniform(-1, 1, (size, size)).astype(np.float16)
    b = rng.uniform(-1, 1, (size, size)).astype(np.float16)
    bias = np.zeros(size, np.float32)
    start = time.perf_counter()
    kernel = Kernel.from_file(KERNEL)
    parsed = time.perf_counter() - start
    args = {"a": a, "b": b, "bias": bias, "c": np.zeros((size, size), np.float32),
            "m": size, "n": size, "k": size}
    result = kernel.run(args)
    total = time.perf_counter() - start
    t0 = time.perf_counter()
    want = a.astype(np.float32) @ b.astype(np.float32)
    numpy_s = time.perf_counter() - t0
    err = float(np.max(np.abs(result.outputs["c"] - want)))
    print(f"tiled matmul {size}^3 f16->f32: {total:.3f} s total ({parsed:.3f} s parsing, "
          f"{result.seconds:.3f} s running), {result.ops} ops, "
          f"{result.ops / result.seconds:,.0f} ops/s; max |error| vs numpy {err:.2g}")
    print(f"numpy f32 matmul of the same size: {numpy_s:.3f} s "
          f"(ratio {total / numpy_s:.0f}x)")
    print(f"goal < 2 s: {'met' if total < 2 else 'MISSED'}")
    runs = {True: [], False: []}
    for _ in range(3):                       # alternate to share machine noise
        for hazards in (False, True):
            runs[hazards].append(kernel.run(args, hazards=hazards).seconds)
    with_, without = min(runs[True]), min(runs[False])
    print(f"run time without the hazard checker {without:.3f} s, with it {with_:.3f} s "
          f"({with_ / without:.2f}x; "
          f"goal <= 1.5x: {'met' if with_ / without <= 1.5 else 'MISSED'})")


if __name__ == "__main__":
    main()
