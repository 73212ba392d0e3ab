"""`ptosim run` never loses a user's data: atomic all-or-nothing write-back, safe reads, limits
and signals, each tried through the real command-line process.

Every scenario checks the exit status, the one-line message and that the user's files are
byte-identical afterwards (and, where nothing may be written, not even replaced: same inode
and modification time).
"""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from conftest import without_excerpts
from ptosim.cli import main

SRC = str(Path(__file__).resolve().parent.parent / "src")

# A vector kernel: %n iterations of a counting loop, then copy 64 f32 (256 B) from %src to %dst.
COPY = """module attributes {{pto.target_arch = "a5", pto.kernel_kind = #pto.kernel_kind<vector>}} {{
  func.func @copy(%src: {src_t}, %dst: !pto.ptr<f32, gm>, %n: index) attributes {{pto.aicore}} {{
    %z = arith.constant 0 : index
    %one = arith.constant 1 : index
    %c0 = arith.constant 0 : i64
    %c1 = arith.constant 1 : i64
    %c256 = arith.constant 256 : i64
    %s = scf.for %i = %z to %n step %one iter_args(%acc = %c0) -> (i64) {{
      %a = arith.addi %acc, %c1 : i64
      scf.yield %a : i64
    }}
    %ub = pto.castptr %c0 : i64 -> !pto.ptr<f32, ub>
    pto.mte_gm_ub %src, %ub, %c0, %c256 nburst(%c1, %c256, %c256)
      : {src_t}, !pto.ptr<f32, ub>, i64, i64, i64, i64, i64
{sync}    pto.mte_ub_gm %ub, %dst, %c256 nburst(%c1, %c256, %c256)
      : !pto.ptr<f32, ub>, !pto.ptr<f32, gm>, i64, i64, i64, i64
    return
  }}
}}
"""
SYNC = """    pto.set_flag["PIPE_MTE2", "PIPE_MTE3", "EVENT_ID0"]
    pto.wait_flag["PIPE_MTE2", "PIPE_MTE3", "EVENT_ID0"]
"""
LOOP_LINE = 8                       # the scf.for above, column 5


# A flag pair that orders nothing the copy needs (V -> MTE3, V idle): with it instead of
# SYNC the kernel still synchronises by hand, so its MTE2 -> MTE3 race is reported.
UNRELATED = """    pto.set_flag["PIPE_V", "PIPE_MTE3", "EVENT_ID1"]
    pto.wait_flag["PIPE_V", "PIPE_MTE3", "EVENT_ID1"]
"""


def copy_kernel(path: Path, *, sync: bool = True, src_t: str = "!pto.ptr<f32, gm>") -> Path:
    path.write_text(COPY.format(sync=SYNC if sync else UNRELATED, src_t=src_t))
    return path


@pytest.fixture
def work(tmp_path):
    """A kernel, an input (64 f32) and an output file (4096 f32 of 7s) in a fresh directory."""
    kernel = copy_kernel(tmp_path / "copy.pto")
    np.arange(64, dtype=np.float32).tofile(tmp_path / "a.bin")
    np.full(4096, 7, np.float32).tofile(tmp_path / "b.bin")
    return tmp_path, kernel


def snapshot(*dirs: Path) -> dict[str, tuple[bytes, int, int]]:
    """Every file under ``dirs``: contents, inode and mtime (a replaced file changes inode)."""
    out = {}
    for d in dirs:
        for p in sorted(d.rglob("*")):
            if p.is_file() and not p.is_symlink():
                st = p.stat()
                out[str(p)] = (p.read_bytes(), st.st_ino, st.st_mtime_ns)
    return out


def args(tmp: Path, kernel: Path, n: int = 3, *extra: str) -> list[str]:
    return ["run", str(kernel), "--arg", f"src={tmp / 'a.bin'}", "--arg",
            f"dst={tmp / 'b.bin'}", "--arg", f"n={n}", *extra]


def env(**more: str) -> dict[str, str]:
    e = dict(os.environ, PYTHONPATH=SRC, PYTHONDONTWRITEBYTECODE="1")
    e.update(more)
    return e


def ptosim(argv: list[str], *, preexec=None, timeout: float = 60, **more: str
           ) -> subprocess.CompletedProcess:
    """The real command-line process."""
    return subprocess.run([sys.executable, "-m", "ptosim", *argv], capture_output=True,
                          text=True, env=env(**more), preexec_fn=preexec, timeout=timeout)


def cli(argv: list[str], proc: bool = False) -> subprocess.CompletedProcess:
    """``ptosim argv`` as a process (``proc``) or, for the many variants of one scenario
    that a process already covers, in this process (a process costs about a second)."""
    if proc:
        return ptosim(argv)
    import contextlib
    import io
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return subprocess.CompletedProcess(argv, code, out.getvalue(), err.getvalue())


def one_line(err: str) -> str:
    """stderr holds exactly one diagnostic (no traceback; its source excerpt aside)."""
    lines = without_excerpts(err).strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


def no_temps(d: Path) -> None:
    assert not [p for p in d.rglob("*.ptosim-tmp")]


# --- a good run still writes every output --------------------------------------------------
def test_successful_run_replaces_outputs_in_place(work):
    tmp, kernel = work
    before = (tmp / "b.bin").stat()
    os.chmod(tmp / "b.bin", 0o640)
    done = cli(args(tmp, kernel))
    assert done.returncode == 0, done.stderr
    assert "wrote" in done.stdout and done.stderr == ""
    got = np.fromfile(tmp / "b.bin", np.float32)
    np.testing.assert_array_equal(got[:64], np.arange(64, dtype=np.float32))
    np.testing.assert_array_equal(got[64:], 7)                 # bytes the kernel left
    assert (tmp / "b.bin").stat().st_ino != before.st_ino      # renamed over, not rewritten
    assert (tmp / "b.bin").stat().st_mode & 0o777 == 0o640     # permissions kept
    no_temps(tmp)


def test_in_place_output_through_a_symlink_updates_its_target(work):
    """A file the user names is followed: the link stays, its target gets the result."""
    tmp, kernel = work
    real = tmp / "data"
    real.mkdir()
    (tmp / "b.bin").rename(real / "b.bin")
    (tmp / "b.bin").symlink_to(real / "b.bin")
    done = cli(args(tmp, kernel))
    assert done.returncode == 0, done.stderr
    assert (tmp / "b.bin").is_symlink()
    np.testing.assert_array_equal(np.fromfile(real / "b.bin", np.float32)[:64], np.arange(64))
    no_temps(tmp)


# --- item 1: write-back that cannot lose data -------------------------------------------------
def _fsize_limit(limit: int):
    def preexec() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)   # so write() fails with EFBIG
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return preexec


def test_full_disk_fails_with_exit_1_and_changes_nothing(work):
    tmp, kernel = work
    before = snapshot(tmp)
    # 1000 bytes: a.bin (256 B) fits, b.bin (16 KiB) does not -> a.bin must not be renamed
    done = ptosim(args(tmp, kernel), preexec=_fsize_limit(1000))
    assert done.returncode == 1
    line = one_line(done.stderr)
    assert line.startswith(f"ptosim: cannot write {os.path.realpath(tmp / 'b.bin')} (dst): ")
    assert "File too large" in line and line.endswith("no file was changed")
    assert "wrote" not in done.stdout
    assert snapshot(tmp) == before
    no_temps(tmp)


def test_full_disk_with_out_dir_leaves_no_directory_behind(work):
    tmp, kernel = work
    before = snapshot(tmp)
    done = ptosim(args(tmp, kernel, 3, "--out-dir", str(tmp / "out" / "deep")),
                  preexec=_fsize_limit(1000))
    assert done.returncode == 1
    assert "no file was changed" in one_line(done.stderr)
    assert snapshot(tmp) == before and not (tmp / "out").exists()


def _start_paused(tmp: Path, kernel: Path, marker: Path) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-m", "ptosim", *args(tmp, kernel)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env(PTOSIM_TEST_PAUSE_BEFORE_RENAME=str(marker)))
    deadline = time.monotonic() + 60
    while not marker.exists():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline
        time.sleep(0.02)
    return proc


def test_a_file_the_kernel_only_reads_is_not_rewritten(work):
    """Only parameters an op wrote to are written back: an input keeps its bytes, inode
    and timestamps, and the summary names only the output."""
    tmp, kernel = work
    before = snapshot(tmp)
    done = ptosim(args(tmp, kernel, 3))
    assert done.returncode == 0, done.stderr
    after = snapshot(tmp)
    assert after[str(tmp / "a.bin")] == before[str(tmp / "a.bin")]
    assert after[str(tmp / "b.bin")] != before[str(tmp / "b.bin")]
    assert done.stdout.rstrip().endswith(f"wrote {tmp / 'b.bin'}")


def test_kill_during_write_back_leaves_the_originals(work):
    """SIGKILL after every temporary file is written, before any rename: the user's files
    are untouched; only the documented temporary files remain."""
    tmp, kernel = work
    before = snapshot(tmp)
    marker = tmp.parent / f"{tmp.name}-marker"
    proc = _start_paused(tmp, kernel, marker)
    temps = sorted(p.name for p in tmp.glob("*.ptosim-tmp"))
    assert len(temps) == 1 and temps[0].startswith(".b.bin.")     # a.bin is only read
    proc.kill()
    proc.communicate()
    for p in tmp.glob("*.ptosim-tmp"):
        p.unlink()
    assert snapshot(tmp) == before


@pytest.mark.parametrize("sig, code", [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_signal_during_write_back_removes_temps(work, sig, code):
    tmp, kernel = work
    before = snapshot(tmp)
    marker = tmp.parent / f"{tmp.name}-marker-{code}"
    proc = _start_paused(tmp, kernel, marker)
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == code
    assert one_line(err) == f"ptosim: interrupted by {sig.name}; no file was changed"
    assert "wrote" not in out
    assert snapshot(tmp) == before
    no_temps(tmp)


def test_symlink_at_out_dir_destination_is_refused(work):
    tmp, kernel = work
    out = tmp / "out"
    out.mkdir()
    victim = tmp / "victim.bin"
    victim.write_bytes(b"precious")
    (out / "dst.bin").symlink_to(victim)          # DIR/<parameter>.bin
    before = snapshot(tmp)
    done = ptosim(args(tmp, kernel, 3, "--out-dir", str(out)))
    assert done.returncode == 2
    assert one_line(done.stderr) == (
        f"ptosim: refusing to write {out / 'dst.bin'} (dst): it is a symbolic link, which "
        f"--out-dir does not follow; remove it or choose another directory")
    assert snapshot(tmp) == before and (out / "dst.bin").is_symlink()
    assert sorted(p.name for p in out.iterdir()) == ["dst.bin"]


@pytest.mark.parametrize("spelling", ["same", "dot", "hardlink", "symlink"])
def test_one_file_bound_to_two_parameters_is_refused(work, spelling):
    tmp, kernel = work
    other = {"same": tmp / "a.bin", "dot": tmp / "." / "a.bin", "hardlink": tmp / "h.bin",
             "symlink": tmp / "s.bin"}[spelling]
    if spelling == "hardlink":
        os.link(tmp / "a.bin", other)
    elif spelling == "symlink":
        other.symlink_to(tmp / "a.bin")
    before = snapshot(tmp)
    argv = [a.replace(str(tmp / "b.bin"), str(other)) for a in args(tmp, kernel)]
    done = cli(argv, proc=spelling == "hardlink")
    assert done.returncode == 2
    assert one_line(done.stderr) == (
        f"ptosim: {other} is bound to both src and dst; each GM parameter needs its own file "
        f"(one would overwrite the other's result on write-back)")
    assert snapshot(tmp) == before


def test_hazards_error_writes_nothing(work):
    tmp, _ = work
    kernel = copy_kernel(tmp / "racy.pto", sync=False)       # MTE2 -> MTE3 without a flag
    before = snapshot(tmp)
    done = ptosim(args(tmp, kernel, 3, "--hazards=error", "--trace", str(tmp / "t.json")))
    assert done.returncode == 1
    assert ": error: RAW hazard" in done.stderr and "Traceback" not in done.stderr
    assert done.stdout.strip().endswith("wrote nothing (--hazards=error)")
    assert snapshot(tmp) == before and not (tmp / "t.json").exists()
    warn = cli(args(tmp, kernel, 3))                        # warn: written as before
    assert warn.returncode == 0 and ": warning: RAW hazard" in warn.stderr
    np.testing.assert_array_equal(np.fromfile(tmp / "b.bin", np.float32)[:64], np.arange(64))


@pytest.mark.parametrize("where, msg", [
    ("missing/t.json", "directory {tmp}/missing does not exist"),
    ("a.bin/t.json", "Not a directory"),
    (".", "it is a directory, not a regular file"),
])
def test_bad_trace_path_is_refused_before_the_run(work, where, msg):
    tmp, kernel = work
    before = snapshot(tmp)
    trace = tmp / where
    done = cli(args(tmp, kernel, 3, "--trace", str(trace)), proc=where == ".")
    assert done.returncode == 2
    line = one_line(done.stderr)
    assert line.startswith(f"ptosim: cannot write {os.path.realpath(trace)} (--trace): ")
    assert line.endswith(msg.format(tmp=os.path.realpath(tmp)))
    assert snapshot(tmp) == before


def test_trace_is_written_with_the_outputs(work):
    tmp, kernel = work
    done = cli(args(tmp, kernel, 3, "--trace", str(tmp / "t.json")))
    assert done.returncode == 0, done.stderr
    import json
    assert json.loads((tmp / "t.json").read_text())["otherData"]["tool"] == "ptosim"
    no_temps(tmp)


def test_trace_cannot_be_an_output(work):
    tmp, kernel = work
    before = snapshot(tmp)
    done = cli(args(tmp, kernel, 3, "--trace", str(tmp / "b.bin")))
    assert done.returncode == 2
    assert one_line(done.stderr) == f"ptosim: --trace {tmp / 'b.bin'} is also where dst is written"
    assert snapshot(tmp) == before


@pytest.mark.parametrize("make, kind", [
    (lambda d: Path("/dev/zero"), "a character device"),
    (lambda d: (os.mkfifo(d / "fifo"), d / "fifo")[1], "a FIFO (named pipe)"),
    (lambda d: d, "a directory"),
])
def test_only_regular_files_are_read(work, make, kind):
    tmp, kernel = work
    src = make(tmp)
    before = snapshot(tmp)
    argv = [a.replace(str(tmp / "a.bin"), str(src)) for a in args(tmp, kernel)]
    done = cli(argv, proc=kind == "a FIFO (named pipe)")   # must not block in open()
    assert done.returncode == 2
    assert one_line(done.stderr) == (f"ptosim: cannot read {src} for src: it is {kind}, not a "
                                     f"regular file")
    assert snapshot(tmp) == before


def test_arg_file_size_cap(work):
    tmp, kernel = work
    before = snapshot(tmp)
    done = cli(args(tmp, kernel, 3, "--max-arg-size", "1K"))
    assert done.returncode == 2
    assert one_line(done.stderr) == (f"ptosim: {tmp / 'b.bin'} for dst has 16,384 bytes, more "
                                     f"than the limit of 1,024; --max-arg-size raises the limit")
    assert snapshot(tmp) == before
    assert cli(args(tmp, kernel, 3, "--max-arg-size", "16K")).returncode == 0


def test_static_memref_parameter_needs_its_bytes(work):
    tmp, _ = work
    kernel = copy_kernel(tmp / "m.pto", src_t="memref<128xf32, #pto.address_space<gm>>")
    before = snapshot(tmp)
    done = cli(args(tmp, kernel))
    assert done.returncode == 2
    assert one_line(done.stderr) == (
        f"ptosim: {tmp / 'a.bin'} has 256 bytes but src "
        f"(memref<128xf32, #pto.address_space<gm>>) needs 512")
    assert snapshot(tmp) == before
    np.arange(128, dtype=np.float32).tofile(tmp / "a.bin")
    assert cli(args(tmp, kernel)).returncode == 0


# --- item 2: filesystem and usage problems are one-line usage errors ---------------------------
def test_out_dir_that_is_a_file(work):
    tmp, kernel = work
    before = snapshot(tmp)
    done = cli(args(tmp, kernel, 3, "--out-dir", str(tmp / "a.bin")))
    assert done.returncode == 2
    assert one_line(done.stderr) == f"ptosim: --out-dir {tmp / 'a.bin'} exists and is not a directory"
    assert snapshot(tmp) == before


def test_out_dir_destination_that_is_a_directory(work):
    tmp, kernel = work
    (tmp / "out" / "dst.bin").mkdir(parents=True)
    before = snapshot(tmp)
    done = cli(args(tmp, kernel, 3, "--out-dir", str(tmp / "out")))
    assert done.returncode == 2
    assert one_line(done.stderr) == (f"ptosim: cannot write {tmp / 'out' / 'dst.bin'} (dst): it "
                                     f"is a directory, not a regular file")
    assert snapshot(tmp) == before


def _read_only(monkeypatch, *paths: Path) -> None:
    """Make ``paths`` read-only; as root (where permissions do not bind) also make
    os.access say so, which is what the pre-run check asks."""
    for p in paths:
        os.chmod(p, 0o555 if p.is_dir() else 0o444)
    if os.geteuid() == 0:
        real = os.access
        ro = {os.path.realpath(p) for p in paths}
        monkeypatch.setattr(os, "access", lambda p, mode: (
            False if os.path.realpath(p) in ro and mode & os.W_OK else real(p, mode)))


def test_read_only_output_file_is_a_usage_error(work, monkeypatch, capsys):
    tmp, kernel = work
    _read_only(monkeypatch, tmp / "b.bin")
    before = snapshot(tmp)
    assert main(args(tmp, kernel)) == 2
    assert one_line(capsys.readouterr().err) == (
        f"ptosim: cannot write {os.path.realpath(tmp / 'b.bin')} (dst): the file is read-only")
    assert snapshot(tmp) == before


def test_read_only_directory_is_a_usage_error(work, monkeypatch, capsys):
    tmp, kernel = work
    ro = tmp / "ro"
    ro.mkdir()
    for name in ("a.bin", "b.bin"):
        (tmp / name).rename(ro / name)
    _read_only(monkeypatch, ro)
    before = snapshot(tmp)
    argv = [a.replace(str(tmp), str(ro)) if "bin" in a else a for a in args(tmp, kernel)]
    try:
        assert main(argv) == 2
        assert one_line(capsys.readouterr().err) == (
            f"ptosim: cannot write {os.path.realpath(ro / 'a.bin')} (src): directory "
            f"{os.path.realpath(ro)} is not writable (results are written to a temporary file "
            f"beside the destination, then renamed); --out-dir writes elsewhere")
        assert main(argv + ["--out-dir", str(tmp / "out")]) == 0     # the way out
    finally:
        os.chmod(ro, 0o755)
    assert {k: v for k, v in snapshot(tmp).items() if "/out/" not in k} == before


def test_unreadable_trace_for_the_trace_command(tmp_path):
    done = cli(["trace", "/dev/zero", "-o", str(tmp_path / "x.png")])
    assert done.returncode == 2
    assert one_line(done.stderr) == ("ptosim: cannot read /dev/zero (trace): it is a character "
                                     "device, not a regular file")


# --- item 4: limits, progress and signals -------------------------------------------------------
def test_max_ops_names_the_running_loop(work):
    tmp, kernel = work
    before = snapshot(tmp)
    done = ptosim(args(tmp, kernel, 10 ** 12, "--max-ops", "5000"))
    assert done.returncode == 1
    line = one_line(done.stderr)
    assert line.startswith(f"{kernel}:{LOOP_LINE}:5: error: scf.for: still running at "
                           f"iteration ")
    assert line.endswith("of [0, 1000000000000) step 1 when the budget of 5,000 ops (max_ops, "
                         "--max-ops) is spent; raise it, or pass --max-ops 0 for no limit")
    assert snapshot(tmp) == before


def test_block_dim_is_bounded_by_the_target(work):
    tmp, kernel = work
    before = snapshot(tmp)
    for target, cores in (("a5", 36), ("a2a3", 24)):
        done = cli(args(tmp, kernel, 3, "--target", target, "--block-dim", str(cores + 1)),
                   proc=target == "a5")
        assert done.returncode == 2
        assert one_line(done.stderr) == (f"ptosim: --block-dim {cores + 1} exceeds the {cores} "
                                         f"blocks (AI cores) of {target}; --force-block-dim "
                                         f"runs it anyway")
        assert snapshot(tmp) == before
    done = cli(args(tmp, kernel, 3, "--block-dim", "37", "--force-block-dim"))
    assert done.returncode == 0 and "x 37 block(s)" in done.stdout


def test_kernel_size_limit(work):
    tmp, kernel = work
    before = snapshot(tmp)
    size = kernel.stat().st_size
    for cmd in (args(tmp, kernel, 3, "--max-kernel-size", "100"),
                ["check", str(kernel), "--max-kernel-size", "100"]):
        done = cli(cmd, proc=cmd[0] == "run")
        assert done.returncode == 2
        assert one_line(done.stderr) == (f"ptosim: {kernel} has {size:,} bytes, more than the "
                                         f"limit of 100; --max-kernel-size raises the limit")
    assert snapshot(tmp) == before
    assert cli(args(tmp, kernel, 3, "--max-kernel-size", "0")).returncode == 0


def test_kernel_must_be_a_regular_file(tmp_path):
    done = cli(["check", "/dev/zero"])
    assert done.returncode == 2
    assert one_line(done.stderr) == ("ptosim: cannot read /dev/zero: it is a character device, "
                                     "not a regular file")


@pytest.mark.parametrize("sig, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_signal_during_a_long_run(work, sig, code):
    tmp, kernel = work
    before = snapshot(tmp)
    proc = subprocess.Popen([sys.executable, "-m", "ptosim",
                             *args(tmp, kernel, 10 ** 12, "--progress-every", "0.1")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env())
    assert proc.stderr is not None
    import threading
    guard = threading.Timer(60, proc.kill)   # no progress line must not hang the suite
    guard.start()
    first = proc.stderr.readline()           # wait for the run to be well under way
    guard.cancel()
    assert first.startswith("ptosim: ") and " ops, " in first and first.endswith(" s\n")
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == code
    lines = [ln for ln in err.splitlines() if " ops, " not in ln]   # progress lines aside
    assert lines == [f"ptosim: interrupted by {sig.name}; no file was changed"]
    assert out == ""
    assert snapshot(tmp) == before


def test_progress_lines_off_a_terminal():
    import io

    from ptosim.cli import _Progress
    stream = io.StringIO()
    p = _Progress(stream, every=10)
    for ops, t in ((4096, 0.5), (8192, 9.9), (12288, 10.0), (16384, 15.0), (20480, 20.1)):
        p.update(ops, t)
    p.done()
    assert stream.getvalue() == "ptosim: 12,288 ops, 10.0 s\nptosim: 20,480 ops, 20.1 s\n"
    quiet = io.StringIO()
    q = _Progress(quiet, every=0)
    q.update(4096, 100.0)
    assert quiet.getvalue() == ""


# --- the pieces, in this process ------------------------------------------------------------
NESTED = """module attributes {pto.target_arch = "a5", pto.kernel_kind = #pto.kernel_kind<vector>} {
  func.func @k(%n: index, %m: index) attributes {pto.aicore} {
    %z = arith.constant 0 : index
    %one = arith.constant 1 : index
    scf.for %i = %z to %n step %one {
      scf.for %j = %z to %m step %one {
        %x = arith.addi %i, %j : index
      }
    }
    return
  }
}"""


def test_op_budget_is_exact_and_names_the_innermost_loop():
    from ptosim.interp.executor import OpBudgetError
    from ptosim.kernel import Kernel
    k = Kernel.from_text(NESTED, "nested.pto")
    used = k.run({"n": 3, "m": 5}).ops             # no budget: count what the run needs
    # counted by hand (one vector core): 2 constants, the outer for and the return; per
    # outer iteration the inner for and a yield; per inner iteration addi and yield
    assert used == 4 + 3 * (2 + 5 * 2)
    assert k.run({"n": 3, "m": 5}, max_ops=used).ops == used     # exactly enough
    # op 11 is the addi of inner iteration 3 (ops 1-3: constants, outer for; 4: inner for)
    with pytest.raises(OpBudgetError) as inner:
        k.run({"n": 3, "m": 5}, max_ops=10)
    assert inner.value.loc == "nested.pto:6:7"
    assert str(inner.value).startswith("nested.pto:6:7: error: scf.for: still running at "
                                       "iteration 3 of [0, 5) step 1 when the budget of 10 ops")
    # op 8 is the third inner scf.for itself: the outer loop is the one still running
    with pytest.raises(OpBudgetError) as outer:
        k.run({"n": 3, "m": 0}, max_ops=7)
    assert outer.value.loc == "nested.pto:5:5" and "iteration 2 of [0, 3)" in str(outer.value)
    # the last op (return) is outside every loop: located at itself
    with pytest.raises(OpBudgetError) as top:
        k.run({"n": 3, "m": 5}, max_ops=used - 1)
    assert str(top.value).startswith(f"nested.pto:10:5: error: the budget of {used - 1} ops")
    assert k.run({"n": 3, "m": 5}, max_ops=0).ops == used       # 0: no limit


def test_parse_size():
    from ptosim.files import parse_size
    assert [parse_size(t) for t in ("0", "4096", "64K", "16M", "1G", "2GiB", "3kb")] == \
        [0, 4096, 64 << 10, 16 << 20, 1 << 30, 2 << 30, 3 << 10]
    for bad in ("", "M", "1.5M", "-1", "12Q"):
        with pytest.raises(ValueError, match="byte count"):
            parse_size(bad)


def test_write_all_renames_only_after_every_temp_is_written(tmp_path, monkeypatch):
    from ptosim import files
    a, b = tmp_path / "a.bin", tmp_path / "b.bin"
    a.write_bytes(b"old a")
    b.write_bytes(b"old b")
    seen = []
    real_replace = os.replace

    def replace(src, dst):
        seen.append(sorted(p.name for p in tmp_path.iterdir()))
        if Path(dst) == b:
            raise OSError(5, "Input/output error")
        real_replace(src, dst)
    monkeypatch.setattr(files.os, "replace", replace)
    with pytest.raises(files.WriteBackError) as info:
        files.write_all([(files.Destination("a", a), b"new a"),
                         (files.Destination("b", b), np.frombuffer(b"new b", np.uint8))])
    assert len(seen[0]) == 4                       # both temporaries existed before rename 1
    assert str(info.value) == (f"cannot replace {b} (b): Input/output error; already "
                               f"replaced: {a}")
    assert (a.read_bytes(), b.read_bytes()) == (b"new a", b"old b")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.bin", "b.bin"]    # temps gone
