"""Start-up: wall time of `ptosim run` for a one-op kernel, against importing numpy.

    python benchmarks/bench_startup.py [--rounds 7]

Each figure is the best of ``--rounds`` fresh processes, measured in the same run as its
baselines: ``python -c "import numpy"`` (what any numpy tool pays) and the front end's
modules (`ptosim.mlir`: parser, printer, builtin, arith, func, scf) imported on top of
numpy (the floor a `.pto` run cannot go below), also with the garbage collector paused as
the `ptosim` command runs its start-up (ptosim.startup). Goal (issue 17): the run under
0.25 s. Bytecode is cached in a temporary directory, as an installed package would have
it. The last row is the same command answered by a warm ``ptosim server`` (started here in
a private temporary socket directory, stopped at the end).
"""

from __future__ import annotations

import argparse
import subprocess
import tempfile
from pathlib import Path

import numpy as np

from _proc import child_env, measure, pycache_dir, python

KERNEL = """
module attributes {pto.target_arch = "a5", pto.kernel_kind = #pto.kernel_kind<vector>} {
  func.func @load(%src: !pto.ptr<f32, gm>) attributes {pto.aicore} {
    %z = arith.constant 0 : i64
    %one = arith.constant 1 : i64
    %len = arith.constant 256 : i64
    %ub = pto.castptr %z : i64 -> !pto.ptr<f32, ub>
    pto.mte_gm_ub %src, %ub, %z, %len nburst(%one, %len, %len)
      : !pto.ptr<f32, gm>, !pto.ptr<f32, ub>, i64, i64, i64, i64, i64
    return
  }
}
"""
PAUSED = "import gc; gc.disable(); "     # as the `ptosim` command starts (ptosim.startup)
FLOOR = ("import numpy, ptosim.mlir.builtin, ptosim.mlir.arith, ptosim.mlir.func, "
         "ptosim.mlir.scf, ptosim.mlir.parser, ptosim.mlir.printer")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp, pycache_dir() as pyc:
        folder = Path(tmp)
        (folder / "one.pto").write_text(KERNEL)
        np.arange(64, dtype=np.float32).tofile(folder / "in.bin")
        env = child_env(pyc)
        run = [python(), "-m", "ptosim", "run", str(folder / "one.pto"),
               "--arg", f"src={folder / 'in.bin'}"]
        cases = {"import numpy": [python(), "-c", "import numpy"],
                 "import numpy + parser (floor)": [python(), "-c", FLOOR],
                 "  the same, collector paused": [python(), "-c", PAUSED + FLOOR],
                 "import ptosim": [python(), "-c", "import ptosim"],
                 "ptosim --help": [python(), "-m", "ptosim", "--help"],
                 "ptosim run (one op)": run}
        for cmd in cases.values():          # warm the bytecode cache and the file cache
            measure(cmd, env, 1)
        got = {name: measure(cmd, env, args.rounds) for name, cmd in cases.items()}
        served = {**env, "PTOSIM_SERVER_DIR": str(folder / "srv")}
        server = [python(), "-m", "ptosim", "server"]
        subprocess.run([*server, "start", "--idle", "300"], env=served, check=True,
                       stdout=subprocess.DEVNULL)
        try:
            measure(run, served, 1)
            got["ptosim run (one op), warm server"] = measure(run, served, args.rounds)
        finally:
            subprocess.run([*server, "stop"], env=served, stdout=subprocess.DEVNULL)
    base_wall, base_cpu, _ = got["import numpy"]
    print(f"{'':36s} {'wall s':>8s} {'cpu s':>8s} {'x numpy':>8s}")
    for name, (wall, cpu, _) in got.items():
        print(f"{name:36s} {wall:8.3f} {cpu:8.3f} {wall / base_wall:8.2f}")
    wall = got["ptosim run (one op)"][0]
    warm = got["ptosim run (one op), warm server"][0]
    floor = got["  the same, collector paused"][0]
    print(f"goal: run < 0.25 s -> cold {wall:.3f} s ({'met' if wall < 0.25 else 'not met'}; "
          f"run - paused parser floor = {wall - floor:.3f} s), warm server {warm:.3f} s "
          f"({'met' if warm < 0.25 else 'not met'})")


if __name__ == "__main__":
    main()
