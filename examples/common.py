"""Shared by the example scripts: run a kernel through the `ptosim run` command line."""

from __future__ import annotations

import shlex
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path


def run_ptosim(kernel: Path, args: Mapping[str, object], *extra: str) -> None:
    """Invoke ``ptosim run KERNEL --arg name=value ...`` exactly as a user would."""
    cmd = [sys.executable, "-m", "ptosim", "run", str(kernel), *extra]
    for name, value in args.items():
        cmd += ["--arg", f"{name}={value}"]
    print("$ " + " ".join(shlex.quote(c) for c in ["ptosim", *cmd[3:]]))
    done = subprocess.run(cmd, check=False)
    if done.returncode:
        sys.exit(f"ptosim run failed with exit code {done.returncode}")


def report(name: str, got, want, atol: float = 0.0, rtol: float = 0.0) -> bool:
    """Print how ``got`` compares with the numpy golden and return whether it matches."""
    import numpy as np
    err = float(np.max(np.abs(got.astype(np.float64) - want))) if got.size else 0.0
    ok = got.shape == want.shape and bool(np.allclose(got, want, atol=atol, rtol=rtol))
    print(f"{name}: {'PASS' if ok else 'FAIL'} (shape {got.shape}, max |error| {err:.3g})")
    return ok


def bin_dir(keep: str | None) -> Path:
    """A directory for the .bin files: ``keep`` if given, else a fresh temporary one."""
    import tempfile
    path = Path(keep) if keep else Path(tempfile.mkdtemp(prefix="ptosim-"))
    path.mkdir(parents=True, exist_ok=True)
    return path
