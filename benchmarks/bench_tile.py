"""Data-movement and matmul tile-op speed next to numpy doing the same work in the same run,
and against the compiled C++ reference CPU simulator.

    python benchmarks/bench_tile.py [--quick]

The C++ figures (`CPP_US`) were measured on this project's 2-core build machine on
2026-11-23: pto-isa's header-only CPU simulator built locally with g++ 12 (`-std=c++20 -O2
-D__CPU_SIM`), each op timed in a loop, best of 7 loops and of 5 runs (the simulator is
not part of ptosim and never committed); `--cpp BINARY` measures them in the same run
instead (the last column says which: "run" or "rec"). Goal (issue 17): every op at least
as fast as the simulator's figure; a repeated op on the same tiles is what both sides time.
"""

from __future__ import annotations

import argparse
import os

import numpy as np

import ptosim

from _timing import cpp_figures, cpp_for, paired_us

CPP_US = {"TLOAD Vec ND->ND 64x128 f32": 4.09, "TSTORE Vec->GM 64x128 f32": 3.63,
          "TLOAD ND->NZ 128x128 f32": 13.33, "TMOV Mat->Left 128x128 f32": 11.30,
          "TMATMUL 128^3 f32": 5073.7, "TSTORE Acc->GM 128x128 f32": 15.42}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer iterations")
    parser.add_argument("--cpp", metavar="BINARY", default=os.environ.get("PTOSIM_CPP_BENCH"),
                        help="a locally built C++ simulator benchmark printing '<op> <us>' "
                             "lines, run in this run (default $PTOSIM_CPP_BENCH; without "
                             "it the recorded CPP_US figures)")
    opts = parser.parse_args()
    k = 5 if opts.quick else 1
    cpp_run = cpp_figures(opts.cpp)         # before and after ours: the best of both
    m = ptosim.Machine(target="a5")
    a = np.random.default_rng(0).standard_normal((128, 128)).astype(np.float32)
    g = m.global_tensor(m.gm(a), shape=(1, 1, 1, 128, 128), stride=(0, 0, 0, 128, 1))
    out = m.global_tensor(m.gm(np.zeros_like(a)), shape=(1, 1, 1, 128, 128),
                          stride=(0, 0, 0, 128, 1))
    half = a[:64].copy()
    gv = m.global_tensor(m.gm(half), shape=(1, 1, 1, 64, 128), stride=(0, 0, 0, 128, 1))
    gv_out = m.global_tensor(m.gm(np.zeros_like(half)), shape=(1, 1, 1, 64, 128),
                             stride=(0, 0, 0, 128, 1))
    vec = m.tile("Vec", "f32", 64, 128)
    mat = m.tile("Mat", "f32", 128, 128, blayout="ColMajor", slayout="RowMajor")
    mat_b = m.tile("Mat", "f32", 128, 128, blayout="ColMajor", slayout="RowMajor")
    left = m.tile("Left", "f32", 128, 128)
    right = m.tile("Right", "f32", 128, 128)
    acc = m.tile("Acc", "f32", 128, 128)
    m.TLOAD(mat_b, g)
    nz = np.empty((16, 128, 8), np.float32)
    copy = np.empty_like(half)
    rows = [
        ("TLOAD Vec ND->ND 64x128 f32", *paired_us(
            lambda: m.TLOAD(vec, gv), lambda: np.copyto(copy, half), 4000 // k)),
        ("TSTORE Vec->GM 64x128 f32", *paired_us(
            lambda: m.TSTORE(gv_out, vec), lambda: np.copyto(copy, half), 4000 // k)),
        ("TLOAD ND->NZ 128x128 f32", *paired_us(
            lambda: m.TLOAD(mat, g),
            lambda: nz.__setitem__(slice(None), a.reshape(128, 16, 8).transpose(1, 0, 2)),
            2000 // k)),
        ("TMOV Mat->Left 128x128 f32", *paired_us(
            lambda: m.TMOV(left, mat), lambda: nz.copy(), 1000 // k)),
    ]
    m.TMOV(right, mat_b)
    rows.append(("TMATMUL 128^3 f32", *paired_us(
        lambda: m.TMATMUL(acc, left, right), lambda: a @ a, 200 // k)))
    rows.append(("TSTORE Acc->GM 128x128 f32", *paired_us(
        lambda: m.TSTORE(out, acc),
        lambda: nz.__setitem__(slice(None), a.reshape(128, 16, 8).transpose(1, 0, 2)),
        1000 // k)))
    for label, us in cpp_figures(opts.cpp).items():
        cpp_run[label] = min(us, cpp_run.get(label, us))
    print(f"{'op':30} {'ptosim us':>10} {'numpy us':>10} {'ratio':>7} {'C++ us':>8} "
          f"{'vs C++':>7}")
    missed = []
    for label, ours, base in rows:
        cpp, source = cpp_for(label, cpp_run, CPP_US)
        print(f"{label:30} {ours:10.1f} {base:10.1f} {ours / base:7.2f} {cpp:8.1f} "
              f"{ours / cpp:6.2f}x {source}")
        if ours > cpp:
            missed.append(label)
    print("goal every op at least as fast as the C++ simulator: "
          + ("met" if not missed else f"MISSED ({', '.join(missed)})"))


if __name__ == "__main__":
    main()
