"""Run the column-softmax vector kernel with `ptosim run` and check it with numpy.

    python examples/vector_softmax/run.py [--rows R] [--cols C] [--keep DIR]

Each block handles a 64-column strip, so the script launches ceil(C / 64) blocks; a
width that is not a multiple of 64 exercises the masked tail.
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
    parser.add_argument("--rows", type=int, default=32, help="matrix rows, 1..256 (default 32)")
    parser.add_argument("--cols", type=int, default=200, help="matrix columns (default 200)")
    parser.add_argument("--keep", metavar="DIR", help="write the .bin files here and keep them")
    args = parser.parse_args()
    if not 1 <= args.rows <= 256 or args.cols < 1:
        parser.error("--rows must be 1..256 (one 64 KiB UB strip) and --cols positive")
    rng = np.random.default_rng(2)
    x = (rng.standard_normal((args.rows, args.cols)) * 4).astype(np.float32)
    work = bin_dir(args.keep)
    x.tofile(work / "x.bin")
    blocks = -(-args.cols // 64)
    run_ptosim(HERE / "kernel.pto", {"x": work / "x.bin", "y": work / "y.bin",
                                     "rows": args.rows, "cols": args.cols},
               "--block-dim", str(blocks))
    got = np.fromfile(work / "y.bin", np.float32).reshape(args.rows, args.cols)
    e = np.exp(x.astype(np.float64) - x.max(axis=0))
    want = e / e.sum(axis=0)
    # float32 arithmetic in the kernel against a float64 golden
    return 0 if report("softmax(x, axis=0)", got, want, atol=1e-7, rtol=1e-5) else 1


if __name__ == "__main__":
    sys.exit(main())
