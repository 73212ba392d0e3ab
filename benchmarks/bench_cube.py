"""Cube path speed: mad and a FIXPIPE writeback, next to numpy doing the same work.

    python benchmarks/bench_cube.py [--quick]

Goal (issue: cube path): mad 128x128x128 f32 at least 20x faster than the compiled C++
reference CPU simulator's TMATMUL, which takes about 2260 us on a 2-core machine (that
figure is the issue's; the numpy columns are measured here, in the same run).
"""

from __future__ import annotations

import argparse

import numpy as np

import ptosim

from _timing import paired_us

CPP_TMATMUL_US = 2260.0   # reference simulator, 128^3 f32 (issue figure, not measured here)


def mad_case(m: ptosim.Machine, dt: str, npdt: type, M: int, N: int, K: int, number: int
             ) -> tuple[str, float, float]:
    rng = np.random.default_rng(0)
    l0a, l0b, l0c = m.ptr("l0a", dt, 0), m.ptr("l0b", dt, 0), m.ptr("l0c", "f32", 0)
    m.write(l0a, rng.standard_normal(M * K).astype(npdt))
    m.write(l0b, rng.standard_normal(K * N).astype(npdt))
    a = rng.standard_normal((M, K)).astype(npdt)
    b = rng.standard_normal((K, N)).astype(npdt)
    return (f"mad {dt}->f32 {M}x{N}x{K}",
            *paired_us(lambda: m.mad(l0a, l0b, l0c, M, N, K),
                       lambda: a.astype(np.float32) @ b.astype(np.float32), number))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer iterations")
    k = 5 if parser.parse_args().quick else 1
    m = ptosim.Machine(target="a5")
    rows = [mad_case(m, "f32", np.float32, 128, 128, 128, 200 // k),
            mad_case(m, "f16", np.float16, 128, 256, 128, 100 // k)]

    c = np.random.default_rng(1).standard_normal((128, 128)).astype(np.float32)
    m.write(m.ptr("l0c", "f32", 0), c.reshape(128, 8, 16).transpose(1, 0, 2))
    out = m.gm_empty(128 * 128, "f32")
    l0c = m.ptr("l0c", "f32", 0)
    plain = np.empty((128, 128), np.float32)
    nz = np.ascontiguousarray(c.reshape(128, 8, 16).transpose(1, 0, 2))
    rows.append(("mte_l0c_gm nz2nd 128x128 f32",
                 *paired_us(lambda: m.mte_l0c_gm(l0c, out, 128, 128, 128, 128, 0, 0,
                                                 layout="nz2nd"),
                            lambda: plain.reshape(128, 8, 16).__setitem__(
                                slice(None), nz.transpose(1, 0, 2)), 1000 // k)))

    print(f"{'op':34} {'ptosim us':>10} {'numpy us':>10} {'ratio':>7}")
    for label, ours, base in rows:
        print(f"{label:34} {ours:10.1f} {base:10.1f} {ours / base:7.2f}")
    speedup = CPP_TMATMUL_US / rows[0][1]
    print(f"goal mad 128^3 f32 >= 20x faster than the C++ simulator's ~{CPP_TMATMUL_US:.0f} us: "
          f"{speedup:.0f}x {'met' if speedup >= 20 else 'MISSED'}")


if __name__ == "__main__":
    main()
