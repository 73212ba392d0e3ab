"""Child-process measurements shared by bench_startup.py and bench_memory.py."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"


def child_env(pycache: str) -> dict[str, str]:
    """This checkout's ptosim first on the path; bytecode cached in ``pycache`` (outside
    the tree) even where PYTHONDONTWRITEBYTECODE is set, as an installed package has it."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = pycache
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(SRC), env.get("PYTHONPATH")) if p)
    return env


# Runs a command line (``-c CODE`` or ``-m MODULE ARGS``) and writes the process's peak RSS
# (VmHWM, KiB) to the file named first when it exits. Measured from inside: the rusage of a
# child (RUSAGE_CHILDREN, wait4) keeps the high-water mark of the forked copy of the parent
# from before exec, so a big parent inflates every child's figure.
_PEAK = """
import atexit, runpy, sys
out, args = sys.argv[1], sys.argv[2:]
def peak():
    with open("/proc/self/status") as f:
        kib = next(line.split()[1] for line in f if line.startswith("VmHWM"))
    with open(out, "w") as f:
        f.write(kib)
atexit.register(peak)
if args[0] == "-m":
    sys.argv = [args[1], *args[2:]]
    runpy.run_module(args[1], run_name="__main__", alter_sys=True)
else:
    sys.argv = ["-c"]
    exec(compile(args[1], "<string>", "exec"))
"""


def measure(cmd: list[str], env: dict[str, str], rounds: int) -> tuple[float, float, float]:
    """Best wall seconds, best CPU seconds (user + system) and smallest peak RSS in MB over
    ``rounds`` runs of ``cmd`` (``[python, -c|-m, ...]``), each in a fresh process. The
    wall and CPU figures come from a plain run, the peak from a second run under _PEAK."""
    walls, cpus, peaks = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        out = str(Path(tmp) / "peak")
        for _ in range(rounds):
            start = time.perf_counter()
            proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.PIPE)
            err = proc.stderr.read().decode() if proc.stderr else ""  # until the child ends
            _, status, usage = os.wait4(proc.pid, 0)
            proc.returncode = os.waitstatus_to_exitcode(status)      # reaped here
            walls.append(time.perf_counter() - start)
            if proc.returncode != 0:
                raise SystemExit(f"{' '.join(cmd)} failed:\n{err}")
            cpus.append(usage.ru_utime + usage.ru_stime)
            subprocess.run([cmd[0], "-c", _PEAK, out, *cmd[1:]], env=env, check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            peaks.append(int(Path(out).read_text()) / 1024)
    return min(walls), min(cpus), min(peaks)


def python() -> str:
    return sys.executable


def pycache_dir() -> tempfile.TemporaryDirectory[str]:
    return tempfile.TemporaryDirectory(prefix="ptosim-bench-pyc-")

