"""GM overruns: `OutOfBoundsError` by default; ``--gm-overrun=warn`` / ``gm_overrun="warn"``
runs kernels that reach past their buffers on purpose (reads there see zeros, writes there
are dropped, each site reported once with a count, output files keep their size)."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import ptosim
from conftest import without_excerpts
from ptosim.cli import main
from ptosim.errors import OutOfBoundsError, PtoValueError, PtoWarning
from ptosim.kernel import Kernel
from ptosim.machine import GM_OVERRUN_REACH

POISON = 0xAB

# A vector kernel that overruns on both sides, like the PTO-Gym compare-select cases: it
# DMAs 1 KiB from its 256 B input x (twice, in a loop), writes 128 B of that into its 32 B
# output y, reads 128 B of y back and stores them inside z. With the overruns tolerated, z
# holds y's 32 bytes and then zeros: the 96 bytes written past y were dropped.
KERNEL = """\
module attributes {pto.target_arch = "a5"} {
  func.func @overrun(%x: !pto.ptr<ui8, gm>, %y: !pto.ptr<ui8, gm>, %z: !pto.ptr<ui8, gm>) attributes {pto.aicore} {
    %c0 = arith.constant 0 : i64
    %c1 = arith.constant 1 : i64
    %c2 = arith.constant 2 : i64
    %c4 = arith.constant 4 : i64
    %c128 = arith.constant 128 : i64
    %c256 = arith.constant 256 : i64
    %c4096 = arith.constant 4096 : i64
    %ub = pto.castptr %c0 : i64 -> !pto.ptr<ui8, ub>
    %back = pto.castptr %c4096 : i64 -> !pto.ptr<ui8, ub>
    scf.for %i = %c0 to %c2 step %c1 : i64 {
      pto.mte_gm_ub %x, %ub, %c0, %c256 nburst(%c4, %c256, %c256) : !pto.ptr<ui8, gm>, !pto.ptr<ui8, ub>, i64, i64, i64, i64, i64
    }
    pto.set_flag["PIPE_MTE2", "PIPE_MTE3", "EVENT_ID0"]
    pto.wait_flag["PIPE_MTE2", "PIPE_MTE3", "EVENT_ID0"]
    pto.mte_ub_gm %ub, %y, %c128 nburst(%c1, %c128, %c128) : !pto.ptr<ui8, ub>, !pto.ptr<ui8, gm>, i64, i64, i64, i64
    pto.set_flag["PIPE_MTE3", "PIPE_MTE2", "EVENT_ID0"]
    pto.wait_flag["PIPE_MTE3", "PIPE_MTE2", "EVENT_ID0"]
    pto.mte_gm_ub %y, %back, %c0, %c128 nburst(%c1, %c128, %c128) : !pto.ptr<ui8, gm>, !pto.ptr<ui8, ub>, i64, i64, i64, i64, i64
    pto.set_flag["PIPE_MTE2", "PIPE_MTE3", "EVENT_ID1"]
    pto.wait_flag["PIPE_MTE2", "PIPE_MTE3", "EVENT_ID1"]
    pto.mte_ub_gm %back, %z, %c128 nburst(%c1, %c128, %c128) : !pto.ptr<ui8, ub>, !pto.ptr<ui8, gm>, i64, i64, i64, i64
    return
  }
}
"""
# GM allocations are 512 B aligned with a 512 B guard: x, y, z at these addresses.
X, Y = 0x1000_0000, 0x1000_0400
WARNINGS = [
    f"k.pto:13:7: warning: mte_gm_ub: gm_src reads past the end of GM allocation %x "
    f"[{X:#x}, {X + 256:#x}) (256 bytes); bytes there read as zeros (--gm-overrun=warn) "
    f"(seen 2 times)",
    f"k.pto:17:5: warning: mte_ub_gm: gm_dst writes past the end of GM allocation %y "
    f"[{Y:#x}, {Y + 32:#x}) (32 bytes); writes there are dropped (--gm-overrun=warn)",
    f"k.pto:20:5: warning: mte_gm_ub: gm_src reads past the end of GM allocation %y "
    f"[{Y:#x}, {Y + 32:#x}) (32 bytes); bytes there read as zeros (--gm-overrun=warn)",
]
ERROR = (f"k.pto:13:7: error: mte_gm_ub: gm_src touches GM bytes [{X:#x}, {X + 1024:#x}) past "
         f"the end of its GM allocation %x [{X:#x}, {X + 256:#x}) (256 bytes); pass "
         f"--gm-overrun=warn (Python: gm_overrun=\"warn\") to run kernels that overrun on "
         f"purpose")


def from_cli(line: str) -> str:
    """The CLI names each GM parameter with its file: ``%x (x.bin)``."""
    return line.replace("allocation %x ", "allocation %x (x.bin) ").replace(
        "allocation %y ", "allocation %y (y.bin) ")


def inputs() -> dict[str, np.ndarray]:
    return {"x": (np.arange(256) + 1).astype(np.uint8), "y": np.full(32, 0xEE, np.uint8),
            "z": np.full(256, 0xCC, np.uint8)}


def expected(x: np.ndarray) -> dict[str, np.ndarray]:
    """The outputs, built independently: y gets x's first 32 bytes; z the 128 bytes read
    back from y (its 32 bytes, then 96 zeros) and keeps the rest."""
    z = np.full(256, 0xCC, np.uint8)
    z[:128] = np.concatenate([x[:32], np.zeros(96, np.uint8)])
    return {"x": x, "y": x[:32].copy(), "z": z}


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "k.pto").write_text(KERNEL)
    for name, arr in inputs().items():
        arr.tofile(tmp_path / f"{name}.bin")
    return tmp_path


def _run(cwd: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ptosim", "run", "k.pto", "--arg", "x=x.bin",
                           "--arg", "y=y.bin", "--arg", "z=z.bin", *extra], cwd=cwd,
                          capture_output=True, text=True, timeout=120)


# --- the CLI ------------------------------------------------------------------------------
def test_cli_default_refuses_the_overrun_and_names_the_option(files):
    done = _run(files)
    assert done.returncode == 1
    assert without_excerpts(done.stderr).splitlines() == [from_cli(ERROR)]
    for name, arr in inputs().items():           # nothing written
        assert (files / f"{name}.bin").read_bytes() == arr.tobytes()


def test_cli_warn_runs_it_reports_each_site_once_and_keeps_file_sizes(files):
    done = _run(files, "--gm-overrun=warn")
    assert done.returncode == 0, done.stderr
    assert without_excerpts(done.stderr).splitlines() == [from_cli(w) for w in WARNINGS]
    assert "0 hazard finding(s)" in done.stdout
    for name, want in expected(inputs()["x"]).items():
        got = (files / f"{name}.bin").read_bytes()
        assert len(got) == inputs()[name].nbytes
        assert got == want.tobytes(), name


def test_cli_explicit_error_is_the_default(files):
    done = _run(files, "--gm-overrun", "error")
    assert done.returncode == 1 and without_excerpts(done.stderr).splitlines() == [from_cli(ERROR)]


@pytest.mark.parametrize("value", ["maybe", "WARN", ""])
def test_cli_bad_value_is_a_usage_error(files, capsys, value):
    assert main(["run", str(files / "k.pto"), f"--gm-overrun={value}"]) == 2
    assert "argument --gm-overrun: invalid choice" in capsys.readouterr().err


# --- Kernel.run ---------------------------------------------------------------------------
def test_kernel_run_default_raises_out_of_bounds():
    with pytest.raises(OutOfBoundsError) as err:
        Kernel.from_text(KERNEL, "k.pto").run(inputs())
    assert (err.value.op, err.value.operand) == ("mte_gm_ub", "gm_src")
    assert str(err.value) == ERROR


def test_kernel_run_warn_returns_counted_warnings_and_outputs():
    out = Kernel.from_text(KERNEL, "k.pto").run(inputs(), gm_overrun="warn", trace=True)
    assert [d.render() for d in out.warnings] == WARNINGS
    assert [d.count for d in out.warnings] == [2, 1, 1]
    assert out.findings == []
    for name, want in expected(inputs()["x"]).items():
        np.testing.assert_array_equal(out.outputs[name], want)
    assert out.machine.gm_overrun == "warn"


@pytest.mark.parametrize("bad", ["Warn", "off", 1, None])
def test_kernel_run_rejects_a_bad_mode(bad):
    with pytest.raises(PtoValueError, match="gm_overrun must be one of error, warn, got"):
        Kernel.from_text(KERNEL, "k.pto").run(inputs(), gm_overrun=bad)


def test_hazard_checker_sees_the_part_inside():
    """Without the MTE3 -> MTE2 flag, reading y back races the write of y: the finding
    names y's 32 bytes, not the 128 the ops reach for."""
    text = KERNEL.replace('    pto.set_flag["PIPE_MTE3", "PIPE_MTE2", "EVENT_ID0"]\n'
                          '    pto.wait_flag["PIPE_MTE3", "PIPE_MTE2", "EVENT_ID0"]\n', "")
    out = Kernel.from_text(text, "k.pto").run(inputs(), gm_overrun="warn")
    assert [f.kind for f in out.findings] == ["RAW"]
    assert "GM %y bytes [0, 32)" in out.findings[0].message


# --- the Python face ----------------------------------------------------------------------
def test_machine_default_raises_and_writes_nothing():
    m = ptosim.Machine(poison=POISON)
    src = m.gm(np.arange(256, dtype=np.uint8), name="src")
    ub = m.ptr("ub", "ui8", 0)
    with pytest.raises(OutOfBoundsError, match=r"mte_gm_ub: gm_src touches GM bytes .* past "
                       r"the end of its GM allocation src .*gm_overrun=\"warn\""):
        m.mte_gm_ub(src, ub, 0, 256, nburst=(4, 256, 256))
    assert (m.read(ub, 1024) == POISON).all()


def test_machine_warn_reads_zeros_past_the_end():
    m = ptosim.Machine(poison=POISON, gm_overrun="warn")
    x = (np.arange(256) + 1).astype(np.uint8)
    src = m.gm(x)
    ub = m.ptr("ub", "ui8", 0)
    with pytest.warns(PtoWarning, match=r"mte_gm_ub: gm_src reads past the end of GM "
                      r"allocation \[0x10000000, 0x10000100\) \(256 bytes\); bytes there "
                      r"read as zeros"):
        m.mte_gm_ub(src, ub, 0, 256, nburst=(4, 256, 256))
    got = m.read(ub, 2048)
    np.testing.assert_array_equal(got[:256], x)
    assert (got[256:1024] == 0).all()                     # read past the end: zeros
    assert (got[1024:] == POISON).all()                   # beyond the DMA: untouched


def test_machine_warn_drops_writes_past_the_end():
    m = ptosim.Machine(gm_overrun="warn")
    out = m.gm(np.zeros(32, np.uint8))
    after = m.gm(np.full(64, 7, np.uint8))                # the next allocation
    ub = m.ptr("ub", "ui8", 0)
    m.write(ub, (np.arange(128) + 1).astype(np.uint8))
    with pytest.warns(PtoWarning, match="mte_ub_gm: gm_dst writes past the end .*dropped"):
        m.mte_ub_gm(ub, out, 128, nburst=(1, 128, 128))
    np.testing.assert_array_equal(m.read(out, 32), np.arange(32) + 1)
    assert (m.read(after, 64) == 7).all()
    back = m.ptr("ub", "ui8", 4096)
    with pytest.warns(PtoWarning, match="reads past the end"):
        m.mte_gm_ub(out, back, 0, 128, nburst=(1, 128, 128))
    got = m.read(back, 128)
    np.testing.assert_array_equal(got[:32], np.arange(32) + 1)
    assert (got[32:] == 0).all()                          # the dropped bytes do not come back


def test_region_roles_and_observer_see_the_part_inside():
    """Every role goes through the one place: the observer gets the allocation and the
    bytes inside it; what a read-write access leaves past the end is gone next time."""
    m = ptosim.Machine(gm_overrun="warn")
    p = m.gm(np.arange(64, dtype=np.uint8))
    seen = []
    m.access_hook = lambda buf, start, n, access, operand, op, runs: seen.append(
        (buf is m._gm[0].data, start, n, access, operand, op))
    for access in ("R", "W", "RW", "A"):
        with pytest.warns(PtoWarning, match="^t: q .* past the end"):
            buf, off = m.region(p + 48, 40, access=access, op="t", operand="q")
        assert off == 48 and buf.size >= off + 40
        if access != "W":                                # what it reads: earlier writes
            assert (buf[64:88] == 0).all()               # there were dropped
        buf[off:off + 40] = 0xFF
    assert seen == [(True, 48, 16, a, "q", "t") for a in ("R", "W", "RW", "A")]
    np.testing.assert_array_equal(m.read(p, 64)[48:], np.full(16, 0xFF))


def test_pointer_past_the_end_reads_zeros_without_an_observer_call():
    m = ptosim.Machine(gm_overrun="warn")
    p = m.gm(np.ones(32, np.uint8))
    seen = []
    m.access_hook = lambda *a: seen.append(a)
    with pytest.warns(PtoWarning, match="reads past the end"):
        buf, off = m.region(p + 100, 16, access="R", op="t", operand="q")
    assert (buf[off:off + 16] == 0).all() and seen == []


def test_default_pointer_past_the_end_names_the_allocation_and_the_option():
    m = ptosim.Machine()
    p = m.gm(np.ones(32, np.uint8), name="buf")
    with pytest.raises(OutOfBoundsError, match=r"address 0x10000064 is not inside any GM "
                       r"allocation \(it lies past the end of GM allocation buf .*\); pass "
                       r"--gm-overrun=warn"):
        m.region(p + 100, 16, access="R", op="t")


def test_warn_has_a_reach():
    m = ptosim.Machine(gm_overrun="warn")
    p = m.gm(np.ones(32, np.uint8))
    with pytest.raises(OutOfBoundsError, match=r"t: pointer touches GM bytes .* "
                       r"\(--gm-overrun=warn backs 16 MiB past the end of an allocation"):
        m.region(p, 32 + GM_OVERRUN_REACH + 1, access="R", op="t")


@pytest.mark.parametrize("bad", ["Warn", "", 0, None])
def test_machine_rejects_a_bad_mode(bad):
    with pytest.raises(PtoValueError, match=r"^gm_overrun must be one of error, "
                       r"warn, got"):
        ptosim.Machine(gm_overrun=bad)


def test_gm_name_must_be_a_string():
    with pytest.raises(ptosim.PtoError, match="gm: name must be a string, got 3"):
        ptosim.Machine().gm(np.zeros(4, np.uint8), name=3)
