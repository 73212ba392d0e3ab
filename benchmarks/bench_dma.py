"""DMA micro-op speed, as ratios to plain numpy copies of the same bytes in the same run.

    python benchmarks/bench_dma.py [--quick]

Goals (issue: foundation): nd2nz 128x128 f32 within 1.5x of a numpy strided copy of the
same bytes; per-op overhead of a one-burst mte_ub_ub at most 10 us.
"""

from __future__ import annotations

import argparse

import numpy as np

import ptosim

from _timing import paired_us


def nd2nz_case(m: ptosim.Machine, rows: int, cols: int, npdt: type, name: str, number: int
               ) -> tuple[str, float, float]:
    a = np.random.default_rng(0).standard_normal((rows, cols)).astype(npdt)
    c0 = 32 // a.itemsize
    src, l1 = m.gm(a), m.ptr("l1", name, 0)

    def op() -> None:
        m.mte_gm_l1_frac(src, l1, "nd2nz", shape=(rows, cols),
                         src_layout=(cols * a.itemsize,), dst_group=(1, 1, rows, 0))

    out = np.empty(rows * cols, npdt)

    def baseline() -> None:      # the same move written directly in numpy
        out.reshape(cols // c0, rows, c0)[...] = a.reshape(rows, cols // c0, c0).transpose(1, 0, 2)

    label = f"mte_gm_l1_frac nd2nz {rows}x{cols} {name}"
    return (label, *paired_us(op, baseline, number))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer iterations")
    args = parser.parse_args()
    k = 10 if args.quick else 1
    m = ptosim.Machine(target="a5")
    rows = [nd2nz_case(m, 128, 128, np.float32, "f32", 2000 // k),
            nd2nz_case(m, 256, 512, np.float16, "f16", 400 // k)]

    data = np.random.default_rng(1).integers(0, 256, 64 * 1024, dtype=np.uint8)
    gm, ub = m.gm(data), m.ptr("ub", "ui8", 0)
    plain = np.empty_like(data)
    # len_burst is a 16-bit field: 64 KiB is two 32 KiB bursts
    rows.append(("mte_gm_ub 64 KiB (2 x 32 KiB bursts)",
                 *paired_us(lambda: m.mte_gm_ub(gm, ub, 0, 32768, nburst=(2, 32768, 32768)),
                            lambda: plain.__setitem__(slice(None), data), 2000 // k)))
    u0, u1 = m.ptr("ub", "f32", 0), m.ptr("ub", "f32", 4096)
    small = np.empty(32, np.uint8)
    rows.append(("mte_ub_ub one 32 B burst (overhead)",
                 *paired_us(lambda: m.mte_ub_ub(u0, u1, 1, nburst=(1, 0, 0)),
                            lambda: small.__setitem__(slice(None), data[:32]), 20000 // k)))

    print(f"{'op':42} {'ptosim us':>10} {'numpy us':>10} {'ratio':>7}")
    for label, ours, base in rows:
        print(f"{label:42} {ours:10.2f} {base:10.2f} {ours / base:7.2f}")
    nd2nz_ratio = rows[0][1] / rows[0][2]
    print(f"goal nd2nz 128x128 f32 <= 1.5x numpy: {nd2nz_ratio:.2f}x "
          f"{'met' if nd2nz_ratio <= 1.5 else 'MISSED'}")
    print(f"goal one-burst overhead <= 10 us: {rows[3][1]:.2f} us "
          f"{'met' if rows[3][1] <= 10 else 'MISSED'}")


if __name__ == "__main__":
    main()
