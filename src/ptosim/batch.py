"""Sweeps: many `ptosim run` cases without paying start-up for each.

A case file has one JSON object per line; each is one ``ptosim run``::

    {"name": "small", "kernel": "kernel.pto", "args": {"a": "a.bin", "m": 40}, "block_dim": 2}

``kernel`` and ``args`` (parameter -> file or value, as ``--arg NAME=...``) are required;
any other key is a ``ptosim run`` option by its long name (``block_dim``, ``target``,
``entry``, ``out_dir``, ``hazards``, ``no_hazards``: true, ``max_ops`` ...); ``name`` labels
the case (default: its line number). Relative paths are relative to the case file's folder.
Each case behaves exactly as the same ``ptosim run`` would -- same checks, same
all-or-nothing write-back, same exit code -- and a kernel file is parsed once per worker.

Cases run in a local process pool (one worker per core by default), in this process
(``workers=0``), or on a Ray cluster (``backend="ray"``; the optional ``ray`` extra).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import time
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from .errors import PtoError

RESERVED = ("name", "kernel", "args")


class BatchError(PtoError):
    """The case file itself is wrong (not JSON, a case without a kernel ...)."""


@dataclass(frozen=True)
class Case:
    """One case: its label, the folder its paths are relative to, and its ``ptosim run``
    arguments."""

    name: str
    base: str
    argv: tuple[str, ...]


@dataclass
class Outcome:
    """What one case did: ``ptosim run``'s exit code and its output."""

    name: str
    code: int
    stdout: str
    stderr: str
    seconds: float

    @property
    def ok(self) -> bool:
        return self.code == 0


def _option(key: str, value: Any, where: str) -> list[str]:
    flag = "--" + key.replace("_", "-")
    if value is True:
        return [flag]
    if value is False or value is None:
        return []
    if isinstance(value, (int, float, str)):
        return [flag, str(value)]
    raise BatchError(f"{where}: option {key!r} must be a string, number or boolean, "
                     f"got {json.dumps(value)}")


def case_from(obj: Any, base: Path, where: str, default_name: str) -> Case:
    """A case from one decoded JSON object (see the module doc)."""
    if not isinstance(obj, dict):
        raise BatchError(f"{where}: a case is a JSON object, got {json.dumps(obj)[:60]}")
    kernel, args = obj.get("kernel"), obj.get("args", {})
    if not isinstance(kernel, str) or not kernel:
        raise BatchError(f"{where}: a case needs \"kernel\": the .pto file to run")
    if not isinstance(args, dict):
        raise BatchError(f"{where}: \"args\" maps parameter names to files or values, got "
                         f"{json.dumps(args)[:60]}")
    argv = [kernel]
    for key, value in args.items():
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            raise BatchError(f"{where}: argument {key!r} must be a file name or a number, "
                             f"got {json.dumps(value)}")
        argv += ["--arg", f"{key}={value}"]
    for key, value in obj.items():
        if key not in RESERVED:
            argv += _option(key, value, where)
    name = obj.get("name", default_name)
    return Case(str(name), str(base), tuple(argv))


def read_cases(path: str | Path) -> list[Case]:
    """Every case of a JSON-lines case file (blank lines and ``//`` comments skipped)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise BatchError(f"cannot read the case file {path}: {err}") from None
    base = path.resolve().parent
    cases = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("//"):
            continue
        where = f"{path}:{number}"
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as err:
            raise BatchError(f"{where}: not JSON: {err.msg} (column {err.colno})") from None
        cases.append(case_from(obj, base, where, f"line {number}"))
    names = [c.name for c in cases]
    dup = next((n for n in names if names.count(n) > 1), None)
    if dup is not None:
        raise BatchError(f"{path}: two cases are named {dup!r}")
    return cases


_PARSERS: list[Any] = []          # this process's `ptosim` argument parser, built once


def run_case(case: Case) -> Outcome:
    """Run one case in this process, as ``ptosim run`` would, from its folder."""
    from .cli import build_parser, main
    if not _PARSERS:
        _PARSERS.append(build_parser())
    out, err = io.StringIO(), io.StringIO()
    start = time.perf_counter()
    cwd = os.getcwd()
    try:
        os.chdir(case.base)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["run", *case.argv], _PARSERS[0])
    finally:
        os.chdir(cwd)
    return Outcome(case.name, code, out.getvalue(), err.getvalue(),
                   time.perf_counter() - start)


def default_workers() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:                        # not on Linux
        return os.cpu_count() or 1


def run_cases(cases: Iterable[Case], *, workers: int | None = None, backend: str = "local",
              address: str | None = None) -> Iterator[Outcome]:
    """Run the cases; yields their outcomes in case order. ``workers``: processes of the
    local pool (None: one per core; 0: in this process). ``backend="ray"`` sends each case
    to a Ray cluster (``address``: the cluster's, e.g. ``ray://head:10001``; None: the one
    ``RAY_ADDRESS`` names, or a new local instance)."""
    cases = list(cases)
    if backend == "ray":
        yield from _ray(cases, address)
        return
    if backend != "local":
        raise BatchError(f"unknown backend {backend!r} (local or ray)")
    n = default_workers() if workers is None else workers
    if n < 0:
        raise BatchError(f"workers must be >= 0, got {n}")
    if n == 0 or len(cases) <= 1:
        for case in cases:
            yield run_case(case)
        return
    from concurrent.futures import ProcessPoolExecutor

    from . import cli, kernel  # noqa: F401  (imported once here, inherited by forked workers)
    pool = ProcessPoolExecutor(max_workers=min(n, len(cases)))
    try:
        yield from pool.map(run_case, cases, chunksize=max(1, len(cases) // (8 * n)))
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _ray(cases: list[Case], address: str | None) -> Iterator[Outcome]:
    try:
        import ray
    except ImportError:
        raise BatchError("the Ray backend needs Ray: pip install 'ptosim[ray]'") from None
    started = not ray.is_initialized()
    if started:
        ray.init(address=address, include_dashboard=False, log_to_driver=False)
    try:
        remote = ray.remote(run_case)
        refs = [remote.remote(case) for case in cases]
        for ref in refs:
            yield ray.get(ref)
    finally:
        if started:
            ray.shutdown()


def outcome_json(outcome: Outcome) -> str:
    """One line of a results file."""
    return json.dumps({**asdict(outcome), "ok": outcome.ok})
