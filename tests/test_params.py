"""`ptosim params`, new outputs (a file that does not exist yet) and their sizes."""

from pathlib import Path

import numpy as np
import pytest

import ptosim
from ptosim.cli import main
from ptosim.errors import PtoValueError, UninitializedReadError
from ptosim.kernel import NEW, Kernel

ROOT = Path(__file__).resolve().parent.parent
SPLIT = ROOT / "examples" / "cube_vector" / "kernel.pto"
MATMUL = ROOT / "examples" / "matmul" / "kernel.pto"

# %x: 256 B read; %y: 128 B written at element 8 (bytes [32, 160)); %n: rows of a loop
KERNEL = """
module attributes {pto.target_arch = "a5", pto.kernel_kind = #pto.kernel_kind<vector>} {
  func.func @k(%x: !pto.ptr<f32, gm>, %y: !pto.ptr<f32, gm>, %z: memref<4x8xf32, #pto.address_space<gm>>,
               %n: i64) attributes {pto.aicore} {
    %zero = arith.constant 0 : i64
    %one = arith.constant 1 : i64
    %c8 = arith.constant 8 : i64
    %c128 = arith.constant 128 : i64
    %c256 = arith.constant 256 : i64
    %ub = pto.castptr %zero : i64 -> !pto.ptr<f32, ub>
    pto.mte_gm_ub %x, %ub, %zero, %c256 nburst(%one, %c256, %c256)
      : !pto.ptr<f32, gm>, !pto.ptr<f32, ub>, i64, i64, i64, i64, i64
    pto.set_flag["PIPE_MTE2", "PIPE_MTE3", "EVENT_ID0"]
    pto.wait_flag["PIPE_MTE2", "PIPE_MTE3", "EVENT_ID0"]
    %y8 = pto.addptr %y, %c8 : !pto.ptr<f32, gm> -> !pto.ptr<f32, gm>
    pto.mte_ub_gm %ub, %y8, %c128 nburst(%n, %c128, %c128)
      : !pto.ptr<f32, ub>, !pto.ptr<f32, gm>, i64, i64, i64, i64
    return
  }
}
"""


@pytest.fixture
def kernel_file(tmp_path):
    path = tmp_path / "k.pto"
    path.write_text(KERNEL)
    return path


def test_params_lists_types_and_sizes(kernel_file, capsys):
    assert main(["params", str(kernel_file)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"@k in {kernel_file} (a5):"
    assert out[1].split()[:5] == ["0", "%x", "!pto.ptr<f32,", "gm>", "f32"]
    assert out[1].endswith("f32  at least 256 bytes (64 elements)")
    assert out[2].endswith("not determined before the run")    # its store depends on %n
    assert out[3].endswith("128 bytes (32 elements, from its type)")
    assert out[4].split()[:3] == ["3", "%n", "i64"] and out[4].endswith("scalar")
    assert out[5] == ("1 op(s) depend on loop variables or unbound scalars: their bytes are "
                      "not counted (bind scalars with --arg NAME=VALUE)")
    assert main(["params", str(kernel_file), "--arg", "n=2"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1].endswith(" 256 bytes (64 elements)") and "at least" not in out[1]
    assert out[2].endswith(" 288 bytes (72 elements)")      # 32 + 2 bursts of 128 B
    assert out[4].endswith("= 2") and len(out) == 5


@pytest.mark.parametrize("extra, message", [
    (["--arg", "n"], "--arg expects NAME=VALUE, got 'n'"),
    (["--arg", "q=1"], "@k has no parameter 'q'; parameters: x, y, z, n"),
    (["--arg", "x=1"], "parameter x is a pointer; only scalars can be bound to work out sizes"),
    (["--arg", "n=two"], "parameter n (i64) needs an integer, got 'two'"),
])
def test_params_usage_errors(kernel_file, capsys, extra, message):
    assert main(["params", str(kernel_file), *extra]) == 2
    assert message in capsys.readouterr().err


def test_a_missing_output_file_is_created_with_the_bytes_the_kernel_wrote(kernel_file,
                                                                          tmp_path, capsys):
    x = np.arange(64, dtype=np.float32)
    x.tofile(tmp_path / "x.bin")
    z = tmp_path / "z.bin"
    args = ["run", str(kernel_file), f"--arg=x={tmp_path / 'x.bin'}",
            f"--arg=y={tmp_path / 'y.bin'}", f"--arg=z={z}", "--arg=n=2"]
    assert main(args) == 0
    assert f"y.bin (new, 288 bytes), {z} (new, 128 bytes)" in capsys.readouterr().out
    y = np.fromfile(tmp_path / "y.bin", np.float32)
    want = np.concatenate([np.zeros(8, np.float32), x[:64]])   # 2 bursts of 128 B
    np.testing.assert_array_equal(y, want)
    assert z.read_bytes() == bytes(128)              # from its memref type, untouched


def test_a_missing_input_is_refused_and_nothing_is_created(kernel_file, tmp_path, capsys):
    args = ["run", str(kernel_file), f"--arg=x={tmp_path / 'typo.bin'}",
            f"--arg=y={tmp_path / 'y.bin'}", f"--arg=z={tmp_path / 'z.bin'}", "--arg=n=1"]
    assert main(args) == 1
    err = capsys.readouterr().err
    assert (f"error: mte_gm_ub: gm_src reads bytes [0, 256) of %x ({tmp_path / 'typo.bin'}) "
            f"that nothing wrote: it was bound to a file that does not exist, so it is a new "
            f"output; if it is an input, check the file name") in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["k.pto"]


def test_new_from_python_and_the_extent_api():
    k = Kernel.from_text(KERNEL, "k.pto")
    assert k.extents() == ({"x": 256}, 1)
    assert k.extents({"n": 3}) == ({"x": 256, "y": 32 + 3 * 128}, 0)
    x = np.arange(64, dtype=np.float32)
    out = k.run({"x": x, "y": NEW, "z": np.zeros((4, 8), np.float32), "n": 1}).outputs
    np.testing.assert_array_equal(out["y"], np.concatenate([np.zeros(8), x[:32]]))
    with pytest.raises(ptosim.PtoError, match="parameter n is a scalar; NEW is for GM pointers"):
        k.run({"x": x, "y": NEW, "z": np.zeros((4, 8), np.float32), "n": NEW})


def test_gm_new_tracks_what_was_written():
    m = ptosim.Machine()
    a = m.gm(np.arange(16, dtype=np.float32))
    c = m.gm_new("f32", reach=4096, name="%c")
    ub = m.ptr("ub", "f32", 0)
    m.mte_gm_ub(a, ub, 0, 64, nburst=(1, 64, 64))
    m.mte_ub_gm(ub, c + 16, 32, nburst=(1, 32, 32))     # bytes [64, 96)
    m.mte_ub_gm(ub, c, 32, nburst=(2, 32, 32))          # bytes [0, 64): one run with it
    m.mte_gm_ub(c, ub, 0, 96, nburst=(1, 96, 96))       # all written: fine
    assert m._gm[-1].written == [[0, 96]]
    with pytest.raises(UninitializedReadError, match=r"gm_src reads bytes \[0, 128\) of %c "):
        m.mte_gm_ub(c, ub, 0, 128, nburst=(1, 128, 128))
    got = m.gm_new_bytes(c).view(np.float32)
    np.testing.assert_array_equal(got, np.concatenate([np.arange(16), np.arange(8)]))
    with pytest.raises(PtoValueError, match=r"reach must be a whole number of bytes"):
        m.gm_new("f32", reach=0)
    with pytest.raises(PtoValueError, match=r"gm_new_bytes takes a pointer made by gm_new"):
        m.gm_new_bytes(a)


def test_written_runs_merge_like_a_set_of_bytes():
    """The written-run bookkeeping against a byte mask, on random writes."""
    from ptosim.machine import _Allocation, _grow
    rng = np.random.default_rng(0)
    for _ in range(50):
        alloc = _Allocation(0, np.zeros(0, np.uint8), np.zeros(256, np.uint8), grows=True)
        mask = np.zeros(256, bool)
        for _ in range(12):
            start, n = int(rng.integers(0, 240)), int(rng.integers(1, 16))
            _grow(alloc, start, n, "W", None, None)
            mask[start:start + n] = True
        runs = [[int(i[0]), int(i[-1]) + 1] for i in np.split(np.flatnonzero(mask),
                np.flatnonzero(np.diff(np.flatnonzero(mask)) > 1) + 1)]
        assert alloc.written == runs


FLOAT_SCALARS = """
module attributes {pto.target_arch = "a5", pto.kernel_kind = #pto.kernel_kind<vector>} {
  func.func @k(%h: f16, %f: f32, %i: i16) attributes {pto.aicore} {
    return
  }
}
"""


@pytest.mark.parametrize("name, text, want", [
    ("h", "0x4200", 3.0), ("h", "0x7c00", float("inf")), ("f", "0x3fc00000", 1.5),
    ("f", "2.5", 2.5), ("i", "0x7fff", 32767)])
def test_scalars_as_bit_patterns(name, text, want):
    """A host program passes an f16 scalar through an unsigned short: `--arg h=0x4200`."""
    from ptosim.kernel import Kernel, _scalar
    k = Kernel.from_text(FLOAT_SCALARS, "k.pto")
    assert _scalar(k.param(name), text) == want


@pytest.mark.parametrize("text, message", [
    ("0x1ffff", r"parameter h \(f16\): 0x1ffff has more than 16 bits"),
    ("0xzz", r"parameter h \(f16\): '0xzz' is not a hexadecimal bit pattern")])
def test_bit_pattern_errors(text, message):
    from ptosim.kernel import Kernel, UsageError, _scalar
    k = Kernel.from_text(FLOAT_SCALARS, "k.pto")
    with pytest.raises(UsageError, match=message):
        _scalar(k.param("h"), text)
