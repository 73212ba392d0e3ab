"""`ptosim batch`: a case file runs like the same `ptosim run`s, in this process, in a
local pool or on a local Ray instance; the pto_kernel fixture parses a kernel once."""

import json
from pathlib import Path

import numpy as np
import pytest

from ptosim import batch
from ptosim.batch import BatchError, Case, read_cases, run_cases
from ptosim.cli import main

ROOT = Path(__file__).resolve().parent.parent
MATMUL = ROOT / "examples" / "matmul" / "kernel.pto"


def write_cases(folder: Path, count: int = 3, extra: list[dict] | None = None):
    """``count`` small matmul cases with their files in ``folder``; returns the case file
    and each case's golden C."""
    rng = np.random.default_rng(1)
    lines, goldens = [], {}
    for i in range(count):
        m, n, k = 16 + 3 * i, 32, 40
        a = rng.integers(-3, 4, (m, k)).astype(np.float16)
        b = rng.integers(-3, 4, (k, n)).astype(np.float16)
        bias = rng.integers(-3, 4, n).astype(np.float32)
        for name, arr in (("a", a), ("b", b), ("bias", bias)):
            arr.tofile(folder / f"{name}{i}.bin")
        np.zeros((m, n), np.float32).tofile(folder / f"c{i}.bin")
        goldens[f"mm{i}"] = a.astype(np.float64) @ b.astype(np.float64) + bias
        lines.append({"name": f"mm{i}", "kernel": str(MATMUL),
                      "args": {"a": f"a{i}.bin", "b": f"b{i}.bin", "bias": f"bias{i}.bin",
                               "c": f"c{i}.bin", "m": m, "n": n, "k": k}})
    path = folder / "cases.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines + (extra or [])) + "\n")
    return path, goldens


def check_outputs(folder: Path, goldens: dict) -> None:
    for i, (name, golden) in enumerate(goldens.items()):
        got = np.fromfile(folder / f"c{i}.bin", np.float32).reshape(golden.shape)
        np.testing.assert_array_equal(got, golden, err_msg=name)


@pytest.mark.parametrize("workers", ["0", "2"])
def test_batch_runs_every_case_like_run(tmp_path, monkeypatch, capsys, workers):
    bad = {"name": "missing-args", "kernel": str(MATMUL), "args": {"a": "a0.bin"}}
    path, goldens = write_cases(tmp_path, extra=[bad])
    monkeypatch.chdir(ROOT)                     # paths are relative to the case file
    results = tmp_path / "results.jsonl"
    assert main(["batch", str(path), "--workers", workers, "--results", str(results)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0].endswith("4 case(s) in " + ("this process" if workers == "0"
                                               else "2 worker process(es)"))
    assert [line.split()[:2] for line in out[1:5]] == \
        [["ok", "mm0"], ["ok", "mm1"], ["ok", "mm2"], ["FAIL", "missing-args"]]
    assert "(exit 2): ptosim: missing value for parameter(s) b, bias, c, m, n, k of " \
           "@matmul_bias" in out[4]
    assert out[5].startswith("4 case(s): 3 ok, 1 failed in ")
    check_outputs(tmp_path, goldens)
    rows = [json.loads(line) for line in results.read_text().splitlines()]
    assert [(r["name"], r["code"], r["ok"]) for r in rows] == \
        [("mm0", 0, True), ("mm1", 0, True), ("mm2", 0, True), ("missing-args", 2, False)]
    assert rows[0]["stdout"].startswith("ran @matmul_bias on a5 x 1 block(s)")


def test_options_become_run_flags(tmp_path):
    path = tmp_path / "c.jsonl"
    path.write_text('{"kernel": "k.pto", "args": {"x": "x.bin", "n": 3}, "block_dim": 2, '
                    '"no_hazards": true, "trace": null, "out_dir": "o"}\n\n// a comment\n')
    [case] = read_cases(path)
    assert case == Case("line 1", str(tmp_path), (
        "k.pto", "--arg", "x=x.bin", "--arg", "n=3", "--block-dim", "2", "--no-hazards",
        "--out-dir", "o"))


@pytest.mark.parametrize("line, message", [
    ("[1, 2]", r"c.jsonl:1: a case is a JSON object, got \[1, 2\]$"),
    ("{nope", r"c.jsonl:1: not JSON: Expecting property name enclosed in double quotes "
              r"\(column 2\)$"),
    ('{"args": {}}', r'c.jsonl:1: a case needs "kernel": the .pto file to run$'),
    ('{"kernel": "k.pto", "args": [1]}',
     r'c.jsonl:1: "args" maps parameter names to files or values, got \[1\]$'),
    ('{"kernel": "k.pto", "args": {"a": [1]}}',
     r"c.jsonl:1: argument 'a' must be a file name or a number, got \[1\]$"),
    ('{"kernel": "k.pto", "block_dim": {"x": 1}}',
     r"c.jsonl:1: option 'block_dim' must be a string, number or boolean, got "
     r'\{"x": 1\}$'),
    ('{"kernel": "k.pto", "name": "x"}\n{"kernel": "k.pto", "name": "x"}',
     r"c.jsonl: two cases are named 'x'$"),
])
def test_bad_case_files_are_refused_with_the_line(tmp_path, line, message):
    path = tmp_path / "c.jsonl"
    path.write_text(line + "\n")
    with pytest.raises(BatchError, match=message):
        read_cases(path)


def test_cli_reports_a_bad_case_file_as_a_usage_error(tmp_path, capsys):
    path = tmp_path / "c.jsonl"
    path.write_text('{"args": {}}\n')
    assert main(["batch", str(path)]) == 2
    assert capsys.readouterr().err.strip().endswith(
        'c.jsonl:1: a case needs "kernel": the .pto file to run')
    assert main(["batch", str(tmp_path / "none.jsonl")]) == 2
    assert "cannot read the case file" in capsys.readouterr().err


def test_an_unknown_option_fails_that_case_only(tmp_path, capsys):
    path, goldens = write_cases(tmp_path, 1, extra=[
        {"name": "typo", "kernel": str(MATMUL), "args": {}, "blok_dim": 2}])
    assert main(["batch", str(path), "--workers", "0"]) == 1
    out = capsys.readouterr().out
    assert "FAIL  typo (exit 2): ptosim: error: unrecognized arguments: --blok-dim 2" in out
    check_outputs(tmp_path, goldens)


def test_a_parsed_kernel_is_reused_until_its_text_changes(tmp_path):
    from ptosim import cli
    kernel = tmp_path / "k.pto"
    kernel.write_bytes(MATMUL.read_bytes())
    args = cli.build_parser().parse_args(["run", str(kernel)])
    first = cli._load(args)
    assert cli._load(args) is first
    kernel.write_bytes(MATMUL.read_bytes() + b"\n")
    assert cli._load(args) is not first


TWO_ENTRIES = """module attributes {pto.target_arch = "a5"} {
  func.func @one(%x: !pto.ptr<f32, gm>) attributes {pto.aicore} {
    return
  }
  func.func @two(%x: !pto.ptr<f32, gm>) attributes {pto.aicore} {
    return
  }
}
"""


def test_entries_of_one_module_share_its_parse():
    """A sweep over many entries of one file (`--entry` per case) parses it once; a
    changed text or another file name parses anew."""
    from ptosim.kernel import Kernel
    one = Kernel.from_text(TWO_ENTRIES, "many.pto", "one")
    two = Kernel.from_text(TWO_ENTRIES, "many.pto", "two")
    assert two.module is one.module and (one.entry, two.entry) == ("one", "two")
    assert Kernel.from_text(TWO_ENTRIES, "other.pto", "two").module is not one.module
    assert Kernel.from_text(TWO_ENTRIES + "\n", "many.pto", "two").module is not one.module


def test_ray_backend_on_a_local_instance(tmp_path):
    import ray  # noqa: F401  (the ray extra is part of .[dev])
    path, goldens = write_cases(tmp_path, 2)
    outcomes = list(run_cases(read_cases(path), backend="ray"))
    assert [(o.name, o.code) for o in outcomes] == [("mm0", 0), ("mm1", 0)]
    check_outputs(tmp_path, goldens)


def test_unknown_backend_and_negative_workers():
    with pytest.raises(BatchError, match=r"unknown backend 'dask' \(local or ray\)$"):
        list(run_cases([], backend="dask"))
    with pytest.raises(BatchError, match=r"workers must be >= 0, got -1$"):
        list(run_cases([], workers=-1))


def test_pto_kernel_fixture_parses_once(pto_kernel):
    k = pto_kernel(MATMUL)
    assert pto_kernel(str(MATMUL)) is k
    a, b = np.ones((16, 32), np.float16), np.ones((32, 16), np.float16)
    out = k.run({"a": a, "b": b, "bias": np.zeros(16, np.float32),
                 "c": np.zeros((16, 16), np.float32), "m": 16, "n": 16, "k": 32})
    np.testing.assert_array_equal(out.outputs["c"], np.full((16, 16), 32.0))


def test_default_workers_is_positive():
    assert batch.default_workers() >= 1
