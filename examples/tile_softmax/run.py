"""Run the tile-level row-softmax kernel with `ptosim run` and check it with numpy.

    python examples/tile_softmax/run.py [--rows R] [--keep DIR]

The kernel steps over 16-row tiles; a row count that is not a multiple of 16 leaves the
last step's tiles with fewer valid rows.
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
    parser.add_argument("--rows", type=int, default=40, help="matrix rows (default 40)")
    parser.add_argument("--keep", metavar="DIR", help="write the .bin files here and keep them")
    args = parser.parse_args()
    if args.rows < 1:
        parser.error("--rows must be positive")
    rng = np.random.default_rng(3)
    x = (rng.standard_normal((args.rows, 64)) * 4).astype(np.float32)
    work = bin_dir(args.keep)
    x.tofile(work / "x.bin")
    run_ptosim(HERE / "kernel.pto", {"x": work / "x.bin", "y": work / "y.bin",
                                     "n": args.rows})
    got = np.fromfile(work / "y.bin", np.float32).reshape(args.rows, 64)
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    want = e / e.sum(axis=1, keepdims=True)
    # float32 arithmetic in the kernel against a float64 golden
    return 0 if report("softmax(x, axis=1)", got, want, atol=1e-7, rtol=1e-5) else 1


if __name__ == "__main__":
    sys.exit(main())
