"""Make inputs for the tiled matmul kernel, run it with `ptosim run`, check C with numpy.

    python examples/matmul/run.py [--m 200 --n 300 --k 260] [--keep DIR]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from common import bin_dir, report, run_ptosim  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--m", type=int, default=200)
    parser.add_argument("--n", type=int, default=300)
    parser.add_argument("--k", type=int, default=260)
    parser.add_argument("--keep", metavar="DIR", help="write the .bin files here and keep them")
    args = parser.parse_args()
    m, n, k = args.m, args.n, args.k
    rng = np.random.default_rng(0)
    a = rng.uniform(-1, 1, (m, k)).astype(np.float16)
    b = rng.uniform(-1, 1, (k, n)).astype(np.float16)
    bias = rng.uniform(-1, 1, n).astype(np.float32)
    work = bin_dir(args.keep)
    for name, arr in (("a", a), ("b", b), ("bias", bias), ("c", np.zeros((m, n), np.float32))):
        arr.tofile(work / f"{name}.bin")
    run_ptosim(HERE / "kernel.pto", {"a": work / "a.bin", "b": work / "b.bin",
                                     "bias": work / "bias.bin", "c": work / "c.bin",
                                     "m": m, "n": n, "k": k})
    got = np.fromfile(work / "c.bin", np.float32).reshape(m, n)
    want = a.astype(np.float64) @ b.astype(np.float64) + bias
    # f32 accumulation per 128-wide K step: compare with a tolerance on the f64 golden
    return 0 if report("C = A.B + bias", got, want, atol=1e-3, rtol=1e-4) else 1


if __name__ == "__main__":
    sys.exit(main())
