"""`ptosim run --compare`: element-wise comparison with a golden, reported by position."""

import numpy as np
import pytest

from ptosim.cli import main
from ptosim.compare import _ranges, compare, parse_shape
from ptosim.errors import PtoValueError
from test_cli_run import MATMUL, mm_args, mm_files  # noqa: F401  (fixture)


@pytest.mark.parametrize("seed", range(20))
def test_mismatch_count_matches_numpy_isclose(seed):
    rng = np.random.default_rng(seed)
    want = rng.normal(size=(7, 9)).astype(np.float32)
    got = want + rng.choice([0, 0, 0, 1e-3, 1e-1], size=want.shape).astype(np.float32)
    got.flat[rng.integers(0, got.size)] = np.nan
    atol, rtol = 1e-2, 1e-3
    r = compare("x", got, want, atol=atol, rtol=rtol, shape=(7, 9))
    independent = ~np.isclose(got, want, atol=atol, rtol=rtol, equal_nan=True)
    assert r.bad == int(independent.sum())
    assert [m.index for m in r.first] == [tuple(map(int, i)) for i in
                                         np.argwhere(independent)[:10]]
    assert r.rows == sorted({int(i) for i in np.argwhere(independent)[:, 0]})


def test_special_values():
    inf, nan = np.inf, np.nan
    got = np.array([inf, -inf, nan, 0.0, -0.0, inf], np.float32)
    want = np.array([inf, -inf, nan, -0.0, 0.0, -inf], np.float32)
    r = compare("x", got, want)
    assert r.bad == 1 and r.first[0].index == (5,) and r.max_abs == np.inf
    assert compare("x", np.array([nan]), np.array([1.0])).bad == 1


def test_integer_outputs_compare_exactly():
    got = np.array([1, 2, 3, -4], np.int32)
    r = compare("y", got, np.array([1, 2, 4, -4], np.int32), shape=(2, 2))
    assert (r.bad, r.worst, r.rows) == (1, (1, 0), [1])
    assert r.render() == ["compare y: 1 of 4 elements (2x2) differ; max |error| 1 at [1, 0]",
                          "  y[1, 0]: got 3, want 4", "  rows with a mismatch: 1"]


def test_render_of_a_match_and_ranges():
    assert compare("z", np.zeros(6), np.zeros(6), shape=(2, 3)).render() == \
        ["compare z: all 6 elements (2x3) match"]
    assert _ranges([0, 1, 2, 5, 7, 8]) == "0-2, 5, 7-8"
    assert _ranges([4]) == "4"


@pytest.mark.parametrize("call, message", [
    (lambda: compare("c", np.zeros(4), np.zeros(5)), r"c has 4 elements but its golden has 5$"),
    (lambda: compare("c", np.zeros(4), np.zeros(4), shape=(3, 2)),
     r"shape 3x2 holds 6 elements but c has 4$"),
    (lambda: compare("c", np.zeros(4), np.zeros(4), atol=-1),
     r"tolerances must be >= 0, got atol=-1, rtol=0.0$"),
    (lambda: parse_shape("4xa"), r"a shape is written like 40x64, got '4xa'$"),
    (lambda: parse_shape("0x4"), r"shape dimensions must be positive, got '0x4'$"),
])
def test_refusals(call, message):
    with pytest.raises(PtoValueError, match=message):
        call()


def golden_file(tmp_path, golden, change=None):
    g = golden.astype(np.float32)
    if change is not None:
        change(g)
    path = tmp_path / "golden.bin"
    g.tofile(path)
    return path


def test_cli_compare_match_and_mismatch(mm_files, tmp_path, capsys):  # noqa: F811
    files, shape, golden = mm_files
    m, n, _ = shape
    good = golden_file(tmp_path, golden)
    assert main(["run", str(MATMUL), *mm_args(files, shape), "--compare", f"c={good}"]) == 0
    assert f"compare c: all {m * n} elements ({m * n}) match" in capsys.readouterr().out

    def plant(g):
        g[:, 17] += 1                                   # one wrong column

    bad = golden_file(tmp_path, golden, plant)
    code = main(["run", str(MATMUL), *mm_args(files, shape), "--compare", f"c={bad}",
                 "--shape", f"c={m}x{n}", "--atol", "0.5"])
    out = capsys.readouterr().out
    assert code == 1
    assert f"compare c: {m} of {m * n} elements ({m}x{n}) differ; max |error| 1 at [0, 17]" \
        in out
    assert "  c[1, 17]: got " in out and f"rows with a mismatch: 0-{m - 1}" in out
    got = np.fromfile(files["c"], np.float32).reshape(m, n)   # the output is still written
    np.testing.assert_array_equal(got, golden)
    assert main(["run", str(MATMUL), *mm_args(files, shape), "--compare", f"c={bad}",
                 "--atol", "1"]) == 0


@pytest.mark.parametrize("extra, message", [
    (["--compare", "c"], "--compare expects NAME=GOLDEN.bin, got 'c'"),
    (["--compare", "m=x.bin"], "--compare m: only a GM pointer parameter bound with --arg "
                               "has an output to compare"),
    (["--compare", "c={short}"], "has 16 bytes but c holds 6000 f32 elements (24000 bytes)"),
    (["--compare", "c={good}", "--shape", "c=7x7"],
     "--shape c=7x7 holds 49 elements, not 6000"),
    (["--shape", "c=7xq"], "--shape c: a shape is written like 40x64, got '7xq'"),
    (["--atol", "-1"], "--atol: must be a finite number >= 0, got -1"),
])
def test_cli_compare_usage_errors(mm_files, tmp_path, capsys, extra, message):  # noqa: F811
    files, shape, golden = mm_files
    short = tmp_path / "short.bin"
    np.zeros(4, np.float32).tofile(short)
    good = golden_file(tmp_path, golden)
    extra = [e.format(short=short, good=good) for e in extra]
    before = files["c"].read_bytes()
    assert main(["run", str(MATMUL), *mm_args(files, shape), *extra]) == 2
    assert message in capsys.readouterr().err
    assert files["c"].read_bytes() == before            # refused before the run
