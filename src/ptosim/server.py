"""A warm `ptosim` for the command line: ``ptosim server start`` keeps one process with
numpy and ptosim imported; each later ``ptosim ...`` command of the same user and
the same installation is run by a fork of it instead of importing everything again.

The client side (`forward`) uses the standard library only, so a forwarded command costs
a socket round trip and a fork, not ~0.3 s of imports. The forked child gets the caller's
stdin / stdout / stderr (passed over the Unix socket), working directory, environment
and arguments, runs `ptosim.cli.main` and reports its exit code; SIGINT / SIGTERM /
SIGHUP sent to the client are forwarded to the child, so ptosim's interrupt handling
(files stay as they were) works unchanged. A server only answers its own user (the
socket lives in a 0700 directory and the peer's uid is checked) and only the very same
code: the socket's name is a digest of the interpreter, ptosim's location, version and
every source file's size and mtime, so an edited or upgraded installation never talks to
an old server. ``PTOSIM_SERVER=off`` turns forwarding off. Platforms without Unix
sockets or fork run every command in-process.
"""

from __future__ import annotations

import contextlib
import gc
import os
import signal
import socket
import struct
import sys
import time
from pathlib import Path
from typing import Any

_HEADER = struct.Struct("!I")
_CODE = struct.Struct("!i")
_MAX_REQUEST = 16 << 20
FORWARDED_SIGNALS = ("SIGINT", "SIGTERM", "SIGHUP")
DEFAULT_IDLE = 1800.0


def available() -> bool:
    return hasattr(socket, "AF_UNIX") and hasattr(os, "fork") and hasattr(socket, "send_fds")


def fingerprint(pkg: Path | None = None) -> str:
    """Digest of what a server must share with its clients: the interpreter, ptosim's
    directory (``pkg``, default this package) and version, and each source file's name,
    size and mtime."""
    import hashlib

    from . import __version__  # ptosim's own light __init__
    pkg = pkg or Path(__file__).resolve().parent
    h = hashlib.sha256(f"{sys.executable}\0{pkg}\0{__version__}".encode())
    for root, dirs, files in os.walk(pkg):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if name.endswith(".py"):
                st = os.stat(os.path.join(root, name))
                h.update(f"{root}/{name}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return h.hexdigest()[:20]


def socket_dir() -> Path:
    base = os.environ.get("PTOSIM_SERVER_DIR")
    if base:
        return Path(base)
    runtime = os.environ.get("XDG_RUNTIME_DIR") or "/tmp"
    return Path(runtime) / f"ptosim-{os.getuid()}"


def socket_path() -> Path:
    return socket_dir() / f"{fingerprint()}.sock"


def _private_dir(path: Path, create: bool) -> bool:
    """The socket directory exists (made if ``create``), is ours and nobody else's."""
    try:
        if create:
            path.mkdir(mode=0o700, parents=True, exist_ok=True)
        st = path.stat()
    except OSError:
        return False
    return st.st_uid == os.getuid() and not st.st_mode & 0o077


# -- client -------------------------------------------------------------------------------

def _connect(path: Path, timeout: float = 2.0) -> socket.socket | None:
    if not _private_dir(path.parent, create=False):
        return None
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    try:
        sock.connect(str(path))
    except OSError:
        sock.close()
        return None
    return sock


def _recv_exact(sock: socket.socket, n: int) -> bytes | None:
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            return None
        data += chunk
    return data


def _send(sock: socket.socket, obj: Any, fds: list[int] | None = None) -> None:
    import json
    body = json.dumps(obj).encode()
    payload = _HEADER.pack(len(body)) + body
    if fds:
        socket.send_fds(sock, [payload], fds)
    else:
        sock.sendall(payload)


def forward(argv: list[str]) -> int | None:
    """Run ``ptosim argv`` in a warm server; None when there is none (run in-process)."""
    if os.environ.get("PTOSIM_SERVER", "").lower() in ("off", "0", "no") or not available():
        return None
    if not socket_dir().is_dir():       # no server was ever started: skip the fingerprint
        return None
    try:
        sock = _connect(socket_path())
    except OSError:
        return None
    if sock is None:
        return None
    with sock:
        request = {"argv": argv, "cwd": os.getcwd(), "env": dict(os.environ)}
        try:
            _send(sock, request, [0, 1, 2])
            sock.settimeout(None)
            head = _recv_exact(sock, _CODE.size)
        except OSError:
            return None                 # nothing ran: the caller runs it in-process
        if head is None:
            return None
        child = _CODE.unpack(head)[0]
        saved = {}

        def relay(signum: int, _frame: Any) -> None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(child, signum)
        for name in FORWARDED_SIGNALS:
            sig = getattr(signal, name)
            saved[sig] = signal.signal(sig, relay)
        try:
            while True:
                try:
                    tail = _recv_exact(sock, _CODE.size)
                    break
                except InterruptedError:
                    continue
        finally:
            for sig, old in saved.items():
                signal.signal(sig, old)
    if tail is None:
        print("ptosim: the server's run ended without an exit code", file=sys.stderr)
        return 1
    return int(_CODE.unpack(tail)[0])


def entry(argv: list[str] | None = None) -> int:
    """The `ptosim` command: forwarded to a warm server when one runs, else in-process."""
    args = sys.argv[1:] if argv is None else argv
    if argv is None:                # the process's own command line: see ptosim.startup
        from .startup import pause
        pause()
    if args[:1] != ["server"]:
        code = forward(args)
        if code is not None:
            return code
    from .cli import main
    return main(args)


# -- server -------------------------------------------------------------------------------

def _warm() -> Any:
    """Import what commands need and build the argument parser once, before any fork."""
    from . import api, kernel  # noqa: F401
    from .cli import build_parser
    from .frontend import text
    text._context()
    return build_parser()


def _read_request(conn: socket.socket) -> tuple[dict[str, Any], list[int]]:
    msg, fds, _flags, _addr = socket.recv_fds(conn, 65536, 3)
    if len(msg) < _HEADER.size:
        raise ValueError("short request")
    size = _HEADER.unpack(msg[:_HEADER.size])[0]
    if size > _MAX_REQUEST:
        raise ValueError("request too large")
    body = msg[_HEADER.size:]
    if len(body) < size:
        rest = _recv_exact(conn, size - len(body))
        if rest is None:
            raise ValueError("truncated request")
        body += rest
    import json
    return json.loads(body), list(fds)


def _peer_is_us(conn: socket.socket) -> bool:
    if not hasattr(socket, "SO_PEERCRED"):
        return True                     # the 0700 directory is the guard there
    creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    return struct.unpack("3i", creds)[1] == os.getuid()


def _watch_client(conn: socket.socket, done: list[bool]) -> None:
    """A client that goes away (killed, even by SIGKILL) ends its command as SIGTERM would:
    nothing is written unless the write-back had already begun, as in-process."""
    import threading

    def wait() -> None:
        try:
            while conn.recv(1):
                pass
        except OSError:
            pass
        if not done[0]:
            os.kill(os.getpid(), signal.SIGTERM)
    threading.Thread(target=wait, daemon=True).start()


def _child(conn: socket.socket, request: dict[str, Any], fds: list[int], parser: Any) -> None:
    """In the forked child: become the caller's process and run its command."""
    code = 1
    done = [False]
    try:
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGCHLD):
            signal.signal(sig, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        sys.stdin = open(0, closefd=False)  # noqa: SIM115 - the caller's descriptors
        sys.stdout = open(1, "w", closefd=False)  # noqa: SIM115
        sys.stderr = open(2, "w", buffering=1, closefd=False)  # noqa: SIM115
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        sys.argv = ["ptosim", *request["argv"]]
        _watch_client(conn, done)
        from .cli import main
        code = main(list(request["argv"]), parser)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except BaseException:               # noqa: BLE001 - report, never reach the server loop
        import traceback
        traceback.print_exc()
        code = 1
    finally:
        done[0] = True
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):  # a closed pipe must not block
                stream.flush()
        with contextlib.suppress(OSError):
            conn.sendall(_CODE.pack(code))
        os._exit(code & 0xFF)


def serve(idle: float = DEFAULT_IDLE, path: Path | None = None) -> int:
    """Listen until idle for ``idle`` seconds (or a stop request); fork one child per
    command. Returns the exit code of the server itself."""
    path = path or socket_path()
    if not _private_dir(path.parent, create=True):
        print(f"ptosim server: {path.parent} is not a private directory of this user",
              file=sys.stderr)
        return 2
    if (old := _connect(path)) is not None:
        old.close()
        print(f"ptosim server: already running on {path}", file=sys.stderr)
        return 1
    parser = _warm()
    gc.freeze()     # what the forks share: their collections skip it, its pages stay shared
    path.unlink(missing_ok=True)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(path))
    listener.listen(64)
    listener.settimeout(1.0)
    children: set[int] = set()
    served = 0
    last = time.monotonic()
    stop = False

    def on_term(_signum: int, _frame: Any) -> None:
        nonlocal stop
        stop = True
    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGHUP, on_term)
    try:
        while not stop:
            for pid in list(children):
                if os.waitpid(pid, os.WNOHANG)[0]:
                    children.discard(pid)
            if children:
                last = time.monotonic()
            elif time.monotonic() - last > idle:
                break
            try:
                conn, _ = listener.accept()
            except (TimeoutError, InterruptedError):
                continue
            last = time.monotonic()
            with conn:
                conn.settimeout(10.0)
                fds: list[int] = []
                try:
                    if not _peer_is_us(conn):
                        continue
                    request, fds = _read_request(conn)
                    if request.get("stop"):
                        _send(conn, {"stopped": os.getpid()})
                        break
                    if request.get("status"):
                        _send(conn, {"pid": os.getpid(), "running": len(children),
                                     "served": served})
                        continue
                    if len(fds) != 3:
                        continue
                    sys.stdout.flush()
                    sys.stderr.flush()
                    pid = os.fork()
                    if pid == 0:
                        listener.close()
                        conn.settimeout(None)
                        _child(conn, request, fds, parser)
                    children.add(pid)
                    served += 1
                    conn.sendall(_CODE.pack(pid))
                except (OSError, ValueError):
                    continue
                finally:
                    for fd in fds:
                        with contextlib.suppress(OSError):
                            os.close(fd)
    finally:
        listener.close()
        path.unlink(missing_ok=True)
    return 0


def _ask(obj: dict[str, Any]) -> dict[str, Any] | None:
    sock = _connect(socket_path())
    if sock is None:
        return None
    with sock:
        try:
            _send(sock, obj)
            head = _recv_exact(sock, _HEADER.size)
            if head is None:
                return None
            body = _recv_exact(sock, _HEADER.unpack(head)[0])
        except OSError:
            return None
    import json
    return json.loads(body) if body is not None else None


def command(action: str, idle: float, foreground: bool) -> int:
    """``ptosim server start|stop|status``."""
    if not available():
        print("ptosim server: needs Unix sockets and fork; commands run in-process here",
              file=sys.stderr)
        return 2
    path = socket_path()
    if action == "status":
        reply = _ask({"status": True})
        if reply is None:
            print(f"ptosim server: not running (would listen on {path})")
            return 1
        print(f"ptosim server: running, pid {reply['pid']}, on {path}")
        return 0
    if action == "stop":
        reply = _ask({"stop": True})
        if reply is None:
            print("ptosim server: not running")
            return 1
        print(f"ptosim server: stopped (pid {reply['stopped']})")
        return 0
    if foreground:
        return serve(idle, path)
    if _ask({"status": True}) is not None:
        print(f"ptosim server: already running on {path}")
        return 0
    import subprocess
    subprocess.Popen([sys.executable, "-m", "ptosim", "server", "start", "--foreground",
                      "--idle", str(idle)], stdin=subprocess.DEVNULL,
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                     start_new_session=True, env={**os.environ, "PTOSIM_SERVER": "off"})
    deadline = time.monotonic() + 30.0
    while time.monotonic() < deadline:
        if (reply := _ask({"status": True})) is not None:
            print(f"ptosim server: started, pid {reply['pid']}, on {path} "
                  f"(stops after {idle:g} s idle)")
            return 0
        time.sleep(0.05)
    print("ptosim server: did not start within 30 s", file=sys.stderr)
    return 1
