"""Run the cube -> vector split kernel with `ptosim run` and check C with numpy.

    python examples/cube_vector/run.py [--keep DIR]
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
    parser.add_argument("--keep", metavar="DIR", help="write the .bin files here and keep them")
    args = parser.parse_args()
    rng = np.random.default_rng(1)
    a = rng.integers(-8, 8, (40, 50)).astype(np.float16)
    b = rng.integers(-8, 8, (50, 64)).astype(np.float16)
    work = bin_dir(args.keep)
    a.tofile(work / "a.bin")
    b.tofile(work / "b.bin")
    np.zeros((40, 64), np.float32).tofile(work / "c.bin")
    run_ptosim(HERE / "kernel.pto", {"a": work / "a.bin", "b": work / "b.bin",
                                     "c": work / "c.bin"})
    got = np.fromfile(work / "c.bin", np.float32).reshape(40, 64)
    want = a.astype(np.float64) @ b.astype(np.float64)      # small integers: exact
    return 0 if report("C rows 0..19 from AIV0, rows 20..39 from AIV1", got, want) else 1


if __name__ == "__main__":
    sys.exit(main())
