"""Run the attention kernel (cube and vector cores cooperating) with `ptosim run` and check
it against numpy.

    python examples/attention/run.py [--blocks B] [--keep DIR] [--trace OUT.json]

B blocks each take 32 query rows; K and V (64 keys, head dim 16) are shared.
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
    parser.add_argument("--blocks", type=int, default=2, help="blocks, 32 query rows each")
    parser.add_argument("--keep", metavar="DIR", help="write the .bin files here and keep them")
    parser.add_argument("--trace", metavar="OUT.json", help="also write the run's timeline")
    args = parser.parse_args()
    if not 1 <= args.blocks <= 48:
        parser.error("--blocks must be 1..48")
    rng = np.random.default_rng(3)
    n = 32 * args.blocks
    q = rng.standard_normal((n, 16)).astype(np.float16)
    k = rng.standard_normal((64, 16)).astype(np.float16)
    v = rng.standard_normal((64, 16)).astype(np.float32)
    work = bin_dir(args.keep)
    q.tofile(work / "q.bin")
    np.ascontiguousarray(k.T).tofile(work / "kt.bin")
    np.ascontiguousarray(v.T).tofile(work / "vt.bin")
    extra = ["--block-dim", str(args.blocks)] + (["--trace", args.trace] if args.trace else [])
    run_ptosim(HERE / "kernel.pto", {"q": work / "q.bin", "kt": work / "kt.bin",
                                     "vt": work / "vt.bin", "out": work / "out.bin"}, *extra)
    got = np.fromfile(work / "out.bin", np.float32).reshape(n, 16)
    s = q.astype(np.float64) @ k.astype(np.float64).T / 4.0
    p = np.exp(s - s.max(axis=1, keepdims=True))
    want = (p / p.sum(axis=1, keepdims=True)) @ v.astype(np.float64)
    # f16 inputs, f32 accumulation and softmax, against a float64 golden
    return 0 if report("softmax(Q K^T / 4) V", got, want, atol=1e-5, rtol=1e-4) else 1


if __name__ == "__main__":
    sys.exit(main())
