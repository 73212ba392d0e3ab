"""`ptosim server`: a warm process answers later commands with the caller's files, working
directory, environment, output streams, exit code and signals, and only for the same user
and the same code."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from ptosim import server
from test_cli_files import copy_kernel, snapshot

pytestmark = pytest.mark.skipif(not server.available(), reason="needs Unix sockets and fork")

SRC = str(Path(__file__).resolve().parent.parent / "src")


def _env(sock_dir: Path, **extra: str) -> dict[str, str]:
    env = {**os.environ, "PTOSIM_SERVER_DIR": str(sock_dir), "PTOSIM_SERVER": "",
           "PYTHONPATH": os.pathsep.join(p for p in (SRC, os.environ.get("PYTHONPATH")) if p)}
    env.update(extra)
    return env


def _ptosim(env: dict[str, str], *argv: str, cwd: Path | None = None
            ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ptosim", *argv], env=env, cwd=cwd,
                          capture_output=True, text=True, timeout=120)


def _status(env: dict[str, str]) -> dict[str, int] | None:
    code = ("import json, ptosim.server as s; r = s._ask({'status': True}); "
            "print(json.dumps(r))")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, timeout=60, check=True).stdout
    import json
    return json.loads(out)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """A server in the foreground of a child process, in a private socket directory."""
    sock_dir = tmp_path_factory.mktemp("srv") / "sockets"
    env = _env(sock_dir)
    proc = subprocess.Popen([sys.executable, "-m", "ptosim", "server", "start",
                             "--foreground", "--idle", "300"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while _status(env) is None:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline
        time.sleep(0.05)
    yield env
    assert _ptosim(env, "server", "stop").returncode == 0
    proc.wait(timeout=30)
    assert not list(sock_dir.glob("*.sock"))


@pytest.fixture
def files(tmp_path: Path) -> Path:
    copy_kernel(tmp_path / "copy.pto")
    np.arange(64, dtype=np.float32).tofile(tmp_path / "a.bin")
    np.full(64, 7, np.float32).tofile(tmp_path / "b.bin")
    return tmp_path


RUN = ("run", "copy.pto", "--arg", "src=a.bin", "--arg", "dst=b.bin", "--arg", "n=2")


def test_a_served_run_equals_an_in_process_run(served: dict[str, str], files: Path,
                                               tmp_path_factory: pytest.TempPathFactory
                                               ) -> None:
    twin = tmp_path_factory.mktemp("twin")
    for name in ("copy.pto", "a.bin", "b.bin"):
        (twin / name).write_bytes((files / name).read_bytes())
    before = _status(served)["served"]  # type: ignore[index]
    got = _ptosim(served, *RUN, cwd=files)                     # relative paths: its cwd
    assert _status(served)["served"] == before + 1  # type: ignore[index]
    ref = _ptosim({**served, "PTOSIM_SERVER": "off"}, *RUN, cwd=twin)
    assert got.returncode == ref.returncode == 0, got.stderr
    timing = re.compile(r"in [0-9.]+ s")                      # the one varying figure
    assert timing.sub("", got.stdout) == timing.sub("", ref.stdout)
    assert (files / "b.bin").read_bytes() == (twin / "b.bin").read_bytes()
    assert (np.fromfile(files / "b.bin", np.float32) == np.arange(64)).all()


def test_exit_code_and_stderr_come_back(served: dict[str, str], files: Path) -> None:
    before = _status(served)["served"]  # type: ignore[index]
    got = _ptosim(served, "run", "missing.pto", cwd=files)
    assert got.returncode == 2
    assert got.stderr.strip() == "ptosim: cannot read missing.pto: No such file or directory"
    assert _status(served)["served"] == before + 1  # type: ignore[index]


def test_forward_from_python_runs_in_the_callers_directory(served: dict[str, str],
                                                          files: Path) -> None:
    """`forward` answers a command (not None) and its output reaches the caller's stdout.
    (The caller's environment reaching the run is shown by the signal tests' pause hook.)"""
    code = ("import os, sys, ptosim.server as s; "
            "sys.exit(s.forward(['params', 'copy.pto']) is None)")
    got = subprocess.run([sys.executable, "-c", code], env=served, cwd=files,
                         capture_output=True, text=True, timeout=60)
    assert got.returncode == 0, got.stderr
    assert "src" in got.stdout and "dst" in got.stdout


@pytest.mark.parametrize("sig, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_to_the_client_reaches_the_run(served: dict[str, str], files: Path,
                                                sig: signal.Signals, code: int) -> None:
    before = snapshot(files)
    marker = files.parent / f"{files.name}-marker-{code}"
    proc = subprocess.Popen([sys.executable, "-m", "ptosim", *RUN], cwd=files,
                            env={**served, "PTOSIM_TEST_PAUSE_BEFORE_RENAME": str(marker)},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not marker.exists():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline
        time.sleep(0.02)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == code
    assert "no file was changed" in err
    assert snapshot(files) == before


def test_a_killed_client_ends_its_run_without_writing(served: dict[str, str],
                                                      files: Path) -> None:
    before = snapshot(files)
    marker = files.parent / f"{files.name}-marker-kill"
    proc = subprocess.Popen([sys.executable, "-m", "ptosim", *RUN], cwd=files,
                            env={**served, "PTOSIM_TEST_PAUSE_BEFORE_RENAME": str(marker)},
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while not marker.exists():
        assert proc.poll() is None
        assert time.monotonic() < deadline
        time.sleep(0.02)
    proc.kill()
    proc.wait()
    deadline = time.monotonic() + 30
    while _status(served)["running"]:  # type: ignore[index]
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert snapshot(files) == before
    assert not list(files.glob("*.ptosim-tmp"))


def test_off_switch_and_missing_server_run_in_process(tmp_path: Path) -> None:
    code = "import sys, ptosim.server as s; sys.exit(s.forward(['--help']) is not None)"
    for extra in ({"PTOSIM_SERVER": "off"}, {}):
        env = _env(tmp_path / "nobody-here", **extra)
        assert subprocess.run([sys.executable, "-c", code], env=env,
                              timeout=60).returncode == 0


def test_status_and_stop_without_a_server(tmp_path: Path) -> None:
    env = _env(tmp_path / "none")
    got = _ptosim(env, "server", "status")
    assert got.returncode == 1 and got.stdout.startswith("ptosim server: not running")
    got = _ptosim(env, "server", "stop")
    assert got.returncode == 1 and got.stdout.strip() == "ptosim server: not running"


def test_a_shared_socket_directory_is_refused(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o777)
    shared.chmod(0o777)
    got = _ptosim(_env(shared), "server", "start", "--foreground", "--idle", "1")
    assert got.returncode == 2
    assert got.stderr.strip() == (f"ptosim server: {shared} is not a private directory of "
                                  f"this user")
    assert not server._private_dir(shared, create=False)


def test_fingerprint_follows_every_source_file(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "a.py").write_text("x = 1\n")
    (pkg / "sub" / "b.py").write_text("y = 2\n")
    first = server.fingerprint(pkg)
    assert server.fingerprint(pkg) == first
    os.utime(pkg / "sub" / "b.py", ns=(1, 1))
    second = server.fingerprint(pkg)
    assert second != first
    (pkg / "a.py").write_text("x = 10\n")
    assert server.fingerprint(pkg) not in (first, second)
