"""Whole-kernel speed: the tiled matmul example (examples/matmul/kernel.pto) at
1024 x 1024 x 1024, f16 -> f32, through the .pto interpreter.

    python benchmarks/bench_kernel.py [--size 1024]

Prints total seconds, ops executed per second, and numpy's time for the same matmul in
the same run, then the run time with and without the pipe-hazard checker. Goals: under
2 s on a 2-core machine; the checker costs at most 1.5x; parse + run within 4x of one
numpy matmul of the same size. The first kernel a process parses also pays the one-time
set-up of the dialects' op classes, so parsing is timed cold and warm; numpy is timed
with its default BLAS threads and with one (a run's default, see ptosim.blas).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

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
    t0 = time.perf_counter()
    kernel = Kernel.from_file(KERNEL)
    warm_parse = time.perf_counter() - t0
    start += warm_parse                 # the second parse is not part of the cold total
    args = {"a": a, "b": b, "bias": bias, "c": np.zeros((size, size), np.float32),
            "m": size, "n": size, "k": size}
    result = kernel.run(args)
    total = time.perf_counter() - start
    a32, b32 = a.astype(np.float32), b.astype(np.float32)
    numpy_s = min(_timed(lambda: a32 @ b32) for _ in range(3))
    with threadpool_limits(1):
        numpy_1 = min(_timed(lambda: a32 @ b32) for _ in range(3))
    want = a32 @ b32
    warm = min(warm_parse + kernel.run(args, hazards=False).seconds for _ in range(3))
    err = float(np.max(np.abs(result.outputs["c"] - want)))
    print(f"tiled matmul {size}^3 f16->f32: {total:.3f} s total ({parsed:.3f} s parsing, "
          f"{result.seconds:.3f} s running), {result.ops} ops, "
          f"{result.ops / result.seconds:,.0f} ops/s; max |error| vs numpy {err:.2g}")
    print(f"numpy f32 matmul of the same size: {numpy_s:.3f} s, {numpy_1:.3f} s on one "
          f"BLAS thread")
    print(f"warm (parse {warm_parse:.3f} s + run, hazards off): {warm:.3f} s = "
          f"{warm / numpy_s:.1f}x numpy ({warm / numpy_1:.1f}x numpy on one thread); "
          f"cold total {total / numpy_s:.1f}x")
    # ptosim runs its matmuls on one BLAS thread (ptosim.blas), so the like-for-like figure
    # is numpy on one thread; numpy's default threads are printed beside it
    print(f"goal within 4x numpy: {'met' if warm <= 4 * numpy_1 else 'MISSED'} against one "
          f"BLAS thread (ptosim's setting), {'met' if warm <= 4 * numpy_s else 'MISSED'} "
          f"against numpy's default threads; goal < 2 s: {'met' if total < 2 else 'MISSED'}")
    runs = {True: [], False: []}
    for _ in range(3):                       # alternate to share machine noise
        for hazards in (False, True):
            runs[hazards].append(kernel.run(args, hazards=hazards).seconds)
    with_, without = min(runs[True]), min(runs[False])
    print(f"run time without the hazard checker {without:.3f} s, with it {with_:.3f} s "
          f"({with_ / without:.2f}x; "
          f"goal <= 1.5x: {'met' if with_ / without <= 1.5 else 'MISSED'})")


def _timed(fn: Callable[[], object]) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


if __name__ == "__main__":
    main()
