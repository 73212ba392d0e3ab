"""Tile-op speed next to numpy doing the same work in the same run.

    python benchmarks/bench_tile.py [--quick]

Goals (issue: tile level), against the compiled C++ reference CPU simulator's figures on a
2-core machine (quoted from the issue, not measured here): TLOAD ND -> NZ 128x128 f32 within
1.2x of its ~8.6 us; TMATMUL 128^3 f32 at least 20x faster than its ~2260 us.
"""

from __future__ import annotations

import argparse

import numpy as np

import ptosim

from _timing import paired_us

CPP_TLOAD_US, CPP_TMATMUL_US = 8.6, 2260.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer iterations")
    k = 5 if parser.parse_args().quick else 1
    m = ptosim.Machine(target="a5")
    a = np.random.default_rng(0).standard_normal((128, 128)).astype(np.float32)
    g = m.global_tensor(m.gm(a), shape=(1, 1, 1, 128, 128), stride=(0, 0, 0, 128, 1))
    mat = m.tile("Mat", "f32", 128, 128, blayout="ColMajor", slayout="RowMajor")
    mat_b = m.tile("Mat", "f32", 128, 128, blayout="ColMajor", slayout="RowMajor")
    left = m.tile("Left", "f32", 128, 128)
    right = m.tile("Right", "f32", 128, 128)
    acc = m.tile("Acc", "f32", 128, 128)
    m.TLOAD(mat_b, g)
    nz = np.empty((16, 128, 8), np.float32)
    rows = [
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
    # a Vec ND tile from a 64x128 ND view: one burst per row, as a row-major copy
    vec = m.tile("Vec", "f32", 64, 128)
    gv = m.global_tensor(m.gm(a[:64]), shape=(1, 1, 1, 64, 128), stride=(0, 0, 0, 128, 1))
    plain = np.empty((64, 128), np.float32)
    rows.append(("TLOAD Vec ND->ND 64x128 f32", *paired_us(
        lambda: m.TLOAD(vec, gv), lambda: plain.__setitem__(slice(None), a[:64]), 2000 // k)))
    # the accumulator (NZ, 1024 B fractals) through FIXPIPE to an ND f32 view
    out = m.global_tensor(m.gm_empty(128 * 128, "f32"), shape=(1, 1, 1, 128, 128),
                          stride=(0, 0, 0, 128, 1))
    acc_nz = np.empty((8, 128, 16), np.float32)
    nd = np.empty((128, 128), np.float32)
    rows.append(("TSTORE Acc->GM 128x128 f32", *paired_us(
        lambda: m.TSTORE(out, acc),
        lambda: nd.reshape(128, 8, 16).__setitem__(slice(None), acc_nz.transpose(1, 0, 2)),
        1000 // k)))
    print(f"{'op':30} {'ptosim us':>10} {'numpy us':>10} {'ratio':>7}")
    for label, ours, base in rows:
        print(f"{label:30} {ours:10.1f} {base:10.1f} {ours / base:7.2f}")
    print("(C++ CPU simulator figures for the other rows: measured separately, see the "
          "README's performance notes)")
    tload, tmm = rows[0][1], rows[2][1]
    print(f"goal TLOAD within 1.2x of the C++ simulator's ~{CPP_TLOAD_US} us: "
          f"{tload / CPP_TLOAD_US:.2f}x {'met' if tload <= 1.2 * CPP_TLOAD_US else 'MISSED'}")
    print(f"goal TMATMUL >= 20x faster than the C++ simulator's ~{CPP_TMATMUL_US:.0f} us: "
          f"{CPP_TMATMUL_US / tmm:.0f}x {'met' if CPP_TMATMUL_US / tmm >= 20 else 'MISSED'}")


if __name__ == "__main__":
    main()
