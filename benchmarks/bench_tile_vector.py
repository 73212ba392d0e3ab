"""Vector tile-op speed: one representative op per family on a 64x128 f32 tile, next to the
plain numpy expression doing the same work in the same run and to the compiled C++
reference CPU simulator.

    python benchmarks/bench_tile_vector.py [--quick]

Goals (issue 14): each op within 3x of numpy and at least as fast as the C++ simulator.
`CPP_US` was measured on this project's 2-core build machine on 2026-11-23: pto-isa's CPU
simulator built locally with g++ 12 (`-std=c++20 -O2 -D__CPU_SIM`), the same ops on
64x128 f32 tiles in a loop, best of 7 loops and of 5 runs (not part of ptosim, never
committed); `--cpp BINARY` (or $PTOSIM_CPP_BENCH) runs such a build before and after
ptosim's rows and uses its best figures instead ("run" / "rec" in the last column). Both
sides time an op repeated on the same tiles.
"""

from __future__ import annotations

import argparse
import os

import numpy as np

import ptosim

from _timing import cpp_figures, cpp_for, paired_us

CPP_US = {"TADD": 3.80, "TMULS": 4.04, "TEXP": 48.44, "TROWSUM": 5.67, "TCOLMAX": 2.81,
          "TROWARGMAX": 4.24, "TROWEXPANDSUB": 36.15, "TPARTADD": 10.77, "TCMP": 13.08,
          "TSEL": 8.81}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer iterations")
    parser.add_argument("--cpp", metavar="BINARY", default=os.environ.get("PTOSIM_CPP_BENCH"),
                        help="a locally built C++ simulator benchmark printing '<op> <us>' "
                             "lines, run in this run (default $PTOSIM_CPP_BENCH; without "
                             "it the recorded CPP_US figures)")
    opts = parser.parse_args()
    n = 200 if opts.quick else 1000
    cpp_run = cpp_figures(opts.cpp)
    m = ptosim.Machine(target="a5")
    rng = np.random.default_rng(0)
    x = rng.uniform(1, 2, (64, 128)).astype(np.float32)
    y = rng.uniform(1, 2, (64, 128)).astype(np.float32)
    a, b, d = (m.tile("Vec", "f32", 64, 128) for _ in range(3))
    m.write(a.ptr, x.ravel())
    m.write(b.ptr, y.ravel())
    col = m.tile("Vec", "f32", 64, 8, valid=(64, 1))
    row = m.tile("Vec", "f32", 1, 128)
    idx = m.tile("Vec", "i32", 64, 8, valid=(64, 1))
    mask = m.tile("Vec", "ui8", 64, 32)
    c = x[:, :1].copy()
    rows = [
        ("TADD (elementwise)", lambda: m.TADD(d, a, b), lambda: np.add(x, y)),
        ("TMULS (tile-scalar)", lambda: m.TMULS(d, a, 1.5), lambda: x * np.float32(1.5)),
        ("TEXP (unary)", lambda: m.TEXP(d, a), lambda: np.exp(x)),
        ("TROWSUM (row reduce)", lambda: m.TROWSUM(col, a), lambda: x.sum(axis=1)),
        ("TCOLMAX (col reduce)", lambda: m.TCOLMAX(row, a), lambda: x.max(axis=0)),
        ("TROWARGMAX (arg reduce)", lambda: m.TROWARGMAX(idx, a), lambda: x.argmax(axis=1)),
        ("TROWEXPANDSUB (expand-op)", lambda: m.TROWEXPANDSUB(d, a, col), lambda: x - c),
        ("TPARTADD (partial)", lambda: m.TPARTADD(d, a, b), lambda: x + y),
        ("TCMP (compare)", lambda: m.TCMP(mask, a, b, mode="lt"),
         lambda: np.packbits(x < y, axis=1, bitorder="little")),
        ("TSEL (select)", lambda: m.TSEL(d, mask, a, b), lambda: np.where(x < y, x, y)),
    ]
    timed = [(label, *paired_us(ours, base, n)) for label, ours, base in rows]
    for label, us in cpp_figures(opts.cpp).items():   # before and after ours: the best
        cpp_run[label] = min(us, cpp_run.get(label, us))
    print(f"{'op (64x128 f32)':28} {'ptosim us':>10} {'numpy us':>10} {'ratio':>7} "
          f"{'C++ us':>8} {'vs C++':>7}")
    slow, behind = [], []
    for label, t_ours, t_base in timed:
        cpp, source = cpp_for(label, cpp_run, CPP_US)
        print(f"{label:28} {t_ours:10.1f} {t_base:10.1f} {t_ours / t_base:7.2f} {cpp:8.1f} "
              f"{t_ours / cpp:6.2f}x {source}")
        if t_ours > 3 * t_base:
            slow.append(label.split()[0])
        if t_ours > cpp:
            behind.append(label.split()[0])
    print("goal within 3x of numpy: " + ("met" if not slow else f"MISSED ({', '.join(slow)})"))
    print("goal at least as fast as the C++ simulator: "
          + ("met" if not behind else f"MISSED ({', '.join(behind)})"))


if __name__ == "__main__":
    main()
