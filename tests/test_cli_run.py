"""`ptosim run` and `ptosim check` on real kernels: goldens, exit codes 0 / 1 / 2."""

from pathlib import Path

import numpy as np
import pytest

from ptosim.cli import main

ROOT = Path(__file__).resolve().parent.parent
MATMUL = ROOT / "examples" / "matmul" / "kernel.pto"
SPLIT = ROOT / "examples" / "cube_vector" / "kernel.pto"


def write(path: Path, arr: np.ndarray) -> Path:
    arr.tofile(path)
    return path


@pytest.fixture
def mm_files(tmp_path):
    rng = np.random.default_rng(0)
    m, n, k = 40, 150, 270                     # tails in every dimension, 3 K steps
    a = rng.integers(-4, 5, (m, k)).astype(np.float16)
    b = rng.integers(-4, 5, (k, n)).astype(np.float16)
    bias = rng.integers(-4, 5, n).astype(np.float32)
    files = {"a": write(tmp_path / "a.bin", a), "b": write(tmp_path / "b.bin", b),
             "bias": write(tmp_path / "bias.bin", bias),
             "c": write(tmp_path / "c.bin", np.zeros((m, n), np.float32))}
    golden = a.astype(np.float64) @ b.astype(np.float64) + bias
    return files, (m, n, k), golden


def mm_args(files, shape):
    m, n, k = shape
    return [f"--arg={name}={path}" for name, path in files.items()] + \
        ["--arg", f"m={m}", "--arg", f"n={n}", "--arg", f"k={k}"]


def test_matmul_example_matches_numpy_in_place(mm_files, capsys):
    files, shape, golden = mm_files
    assert main(["run", str(MATMUL), *mm_args(files, shape)]) == 0
    got = np.fromfile(files["c"], np.float32).reshape(shape[0], shape[1])
    np.testing.assert_array_equal(got, golden)         # small integers: exact
    assert "ran @matmul_bias on a5 x 1 block(s)" in capsys.readouterr().out


def test_ctrl_option_sets_the_entry_ctrl(mm_files, capsys):
    """--ctrl 0 starts every core saturating: a NaN in A counts as 0 in mad; the default
    entry (bit 48, INF/NaN mode) keeps it."""
    files, shape, golden = mm_files
    a = np.fromfile(files["a"], np.float16).reshape(shape[0], shape[2])
    a[5, 7] = np.nan
    a.tofile(files["a"])
    assert main(["run", str(MATMUL), *mm_args(files, shape)]) == 0
    assert np.isnan(np.fromfile(files["c"], np.float32).reshape(shape[:2])[5]).all()
    assert main(["run", str(MATMUL), *mm_args(files, shape), "--ctrl", "0"]) == 0
    got = np.fromfile(files["c"], np.float32).reshape(shape[:2])
    b = np.fromfile(files["b"], np.float16).reshape(shape[2], shape[1]).astype(np.float64)
    bias = np.fromfile(files["bias"], np.float32).astype(np.float64)
    np.testing.assert_array_equal(got[5], np.nan_to_num(a[5].astype(np.float64)) @ b + bias)
    capsys.readouterr()
    assert main(["run", str(MATMUL), *mm_args(files, shape), "--ctrl", "nope"]) == 2
    assert "--ctrl: not an integer: 'nope'" in capsys.readouterr().err


def test_out_dir_keeps_inputs(mm_files, tmp_path):
    files, shape, golden = mm_files
    out = tmp_path / "out"
    assert main(["run", str(MATMUL), *mm_args(files, shape), "--out-dir", str(out)]) == 0
    assert (np.fromfile(files["c"], np.float32) == 0).all()
    np.testing.assert_array_equal(np.fromfile(out / "c.bin", np.float32).reshape(golden.shape),
                                  golden)
    assert sorted(p.name for p in out.iterdir()) == ["c.bin"]     # what the kernel wrote


def test_positional_args_and_a2a3_override(mm_files):
    files, shape, golden = mm_files
    pos = [f"--arg={i}={files[name]}" for i, name in enumerate(("a", "b", "bias", "c"))]
    pos += [f"--arg=4={shape[0]}", f"--arg=5={shape[1]}", f"--arg=6={shape[2]}"]
    assert main(["run", str(MATMUL), *pos, "--target", "a2a3"]) == 0
    np.testing.assert_array_equal(np.fromfile(files["c"], np.float32).reshape(golden.shape), golden)


def test_cube_vector_example(tmp_path):
    rng = np.random.default_rng(1)
    a = rng.integers(-8, 8, (40, 50)).astype(np.float16)
    b = rng.integers(-8, 8, (50, 64)).astype(np.float16)
    args = [f"--arg=a={write(tmp_path / 'a.bin', a)}", f"--arg=b={write(tmp_path / 'b.bin', b)}",
            f"--arg=c={write(tmp_path / 'c.bin', np.zeros(2560, np.float32))}"]
    assert main(["run", str(SPLIT), *args]) == 0
    np.testing.assert_array_equal(np.fromfile(tmp_path / "c.bin", np.float32).reshape(40, 64),
                                  a.astype(np.float64) @ b.astype(np.float64))


@pytest.mark.parametrize("mutate, code, msg", [
    (lambda f, s: [a for a in mm_args(f, s) if "bias" not in a], 2, "missing value for parameter"),
    (lambda f, s: mm_args(f, s) + ["--arg", "nope=1"], 2, "has no parameter 'nope'"),
    (lambda f, s: mm_args(f, s) + ["--arg", "m=3"], 2, "parameter m is bound twice"),
    (lambda f, s: [a.replace(str(f["a"]), "/nonexistent/a.bin") for a in mm_args(f, s)], 2,
     "cannot read /nonexistent/a.bin"),
    (lambda f, s: [a.replace("m=40", "m=forty") for a in mm_args(f, s)], 2,
     "parameter m .* needs an integer"),
    (lambda f, s: mm_args(f, s) + ["--arg", "junk"], 2, "--arg expects NAME=FILE"),
])
def test_usage_errors_exit_2(mm_files, capsys, mutate, code, msg):
    files, shape, _ = mm_files
    assert main(["run", str(MATMUL), *mutate(files, shape)]) == code
    import re
    assert re.search(msg, capsys.readouterr().err)


def test_file_size_not_a_multiple_is_a_usage_error(mm_files, capsys):
    files, shape, _ = mm_files
    files["c"].write_bytes(b"\0" * 7)
    assert main(["run", str(MATMUL), *mm_args(files, shape)]) == 2
    assert "has 7 bytes, not a whole number of f32 elements" in capsys.readouterr().err


def test_unknown_entry_and_unreadable_kernel_are_usage_errors(tmp_path, capsys):
    assert main(["run", str(MATMUL), "--entry", "nope"]) == 2
    assert "no function @nope" in capsys.readouterr().err
    assert main(["run", str(tmp_path / "missing.pto")]) == 2
    assert main(["run"]) == 2


def test_kernel_errors_exit_1_with_location(mm_files, tmp_path, capsys):
    files, shape, _ = mm_files
    bad = tmp_path / "bad.pto"
    text = MATMUL.read_text().replace("%l1_b = pto.castptr %c32768", "%l1_b = pto.castptr %c16")
    bad.write_text(text)
    line = next(i for i, t in enumerate(text.splitlines(), 1) if "pto.mte_gm_l1_frac %b_src" in t)
    assert main(["run", str(bad), *mm_args(files, shape)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"{bad}:{line}:")
    assert "mte_gm_l1_frac: dst byte offset 16 is not 32-byte aligned" in err


def test_syntax_error_and_binary_garbage_exit_1(tmp_path, capsys):
    broken = tmp_path / "broken.pto"
    broken.write_text("module {\n  func.func @k( {\n")
    assert main(["check", str(broken)]) == 1
    assert capsys.readouterr().err.startswith(f"{broken}:2:")
    garbage = tmp_path / "garbage.pto"
    garbage.write_bytes(bytes(range(256)) * 4)
    assert main(["run", str(garbage)]) == 1
    assert "error:" in capsys.readouterr().err


def test_check_reports_constant_operand_violations(tmp_path, capsys):
    assert main(["check", str(MATMUL)]) == 0
    assert "checks clean" in capsys.readouterr().out
    bad = tmp_path / "bad.pto"
    text = SPLIT.read_text().replace("%c48, %c64, dst_mode(split_m)", "%c48, %c64, dst_mode(split_n)")
    text = text.replace("%c40, %c64, %c48", "%c40, %c50, %c48")        # n = 50: not % 32
    bad.write_text(text)
    assert main(["check", str(bad)]) == 1
    err = capsys.readouterr().err
    assert f"{bad}:" in err and "split_n needs n % 32 == 0, got 50" in err


TWO_KERNELS = """
module attributes {pto.target_arch = "a5"} {
  func.func @good(%src: !pto.ptr<f32, gm>) attributes {pto.aicore} {
    %z = arith.constant 0 : i64
    %one = arith.constant 1 : i64
    %len = arith.constant 256 : i64
    %ub = pto.castptr %z : i64 -> !pto.ptr<f32, ub>
    pto.mte_gm_ub %src, %ub, %z, %len nburst(%one, %len, %len)
      : !pto.ptr<f32, gm>, !pto.ptr<f32, ub>, i64, i64, i64, i64, i64
    return
  }
  func.func @bad(%src: !pto.ptr<f32, gm>) attributes {pto.aicore} {
    %z = arith.constant 0 : i64
    %odd = arith.constant 16 : i64
    %one = arith.constant 1 : i64
    %len = arith.constant 256 : i64
    %ub = pto.castptr %odd : i64 -> !pto.ptr<f32, ub>
    pto.mte_gm_ub %src, %ub, %z, %len nburst(%one, %len, %len)
      : !pto.ptr<f32, gm>, !pto.ptr<f32, ub>, i64, i64, i64, i64, i64
    return
  }
}
"""


def test_check_without_entry_checks_every_kernel_function(tmp_path, capsys):
    path = tmp_path / "two.pto"
    path.write_text(TWO_KERNELS)
    assert main(["check", str(path)]) == 1          # @bad fails, @good is still checked
    captured = capsys.readouterr()
    assert f"{path}: @good checks clean on a5" in captured.out
    assert f"{path}: @bad on a5: 1 error(s)" in captured.err
    assert "not 32-byte aligned" in captured.err
    assert main(["check", str(path), "--entry", "good"]) == 0
    assert "@bad" not in capsys.readouterr().out


def test_run_without_entry_names_the_candidates(tmp_path, capsys):
    path = tmp_path / "two.pto"
    path.write_text(TWO_KERNELS)
    src = tmp_path / "src.bin"
    np.zeros(256, np.float32).tofile(src)
    assert main(["run", str(path), "--arg", f"src={src}"]) == 2
    assert ("the module has 2 candidate kernel functions (@good, @bad); choose one with "
            "--entry") in capsys.readouterr().err
