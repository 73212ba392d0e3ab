"""Vector tile-op speed: one representative op per family on a 64x128 f32 tile, next to the
plain numpy expression doing the same work in the same run.

    python benchmarks/bench_tile_vector.py [--quick]

Goal (issues 14 and 17): every row within 3x of the numpy expression, measured unobserved
(no hazard checker or access log attached: the fast path of ptosim.tile.fastpath).
"""

from __future__ import annotations

import argparse

import numpy as np

import ptosim

from _timing import paired_us

GOAL = 3.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer iterations")
    n = 200 if parser.parse_args().quick else 1000
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
    print(f"{'op (64x128 f32)':28} {'ptosim us':>10} {'numpy us':>10} {'ratio':>7}  "
          f"goal <= {GOAL:g}x")
    missed = 0
    for label, ours, base in rows:
        t_ours, t_base = paired_us(ours, base, n)
        ratio = t_ours / t_base
        missed += ratio > GOAL
        print(f"{label:28} {t_ours:10.1f} {t_base:10.1f} {ratio:7.2f}  "
              f"{'met' if ratio <= GOAL else 'MISSED'}")
    print(f"goal every row within {GOAL:g}x of numpy: "
          f"{'met' if not missed else f'MISSED ({missed} of {len(rows)} rows)'}")


if __name__ == "__main__":
    main()
