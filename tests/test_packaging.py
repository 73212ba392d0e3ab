"""Packaging promises: the README's test command is what CI runs (then the linters), the
declared licence ships, and pictures fail clearly without the optional matplotlib."""

import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_ci_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text()
    command = readme.split("```sh\n", 1)[1].splitlines()[1].split("#")[0].strip()
    assert command.startswith("pip install -e '.[dev]'")
    assert command in (ROOT / ".ci" / "run").read_text()


def test_ci_lints_with_the_tools_pinned_in_the_dev_extra():
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    tests = next(i for i, line in enumerate(ci) if line.endswith("python -m pytest"))
    assert ci[tests + 1:tests + 3] == ["ruff check .", "mypy"]     # after the tests
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    dev = pyproject["project"]["optional-dependencies"]["dev"]
    for tool in ("ruff", "mypy"):
        assert sum(d.startswith(tool + "==") for d in dev) == 1, (tool, dev)
    assert pyproject["tool"]["ruff"]["line-length"] == 100
    assert pyproject["tool"]["mypy"]["files"] == ["src"]


def test_licence_file_matches_the_declared_licence():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["license"] == "Apache-2.0"
    text = (ROOT / "LICENSE").read_text()
    assert "Apache License" in text and "Version 2.0, January 2004" in text


def test_plotting_is_an_optional_extra():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert not any(d.startswith("matplotlib") for d in project["dependencies"])
    assert any(d.startswith("matplotlib") for d in project["optional-dependencies"]["plot"])


def test_pictures_without_matplotlib_fail_with_a_clear_message(tmp_path):
    """With matplotlib unimportable, `ptosim layout -o` names the extra to install and
    the text grid (which needs no matplotlib) still works."""
    block = "import sys; sys.modules['matplotlib'] = None; from ptosim.cli import main; "
    args = "['layout', '--layout', 'nz', '--shape', '16x16', '--tile', 'Mat'"
    picture = subprocess.run(
        [sys.executable, "-c", block + f"sys.exit(main({args}, '-o', 'x.png']))"],
        cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert picture.returncode == 2
    assert picture.stderr.strip() == ("ptosim: drawing pictures needs matplotlib; install it "
                                      "with pip install 'ptosim[plot]'")
    assert not (tmp_path / "x.png").exists()
    grid = subprocess.run(
        [sys.executable, "-c", block + f"sys.exit(main({args}, '--color', 'never']))"],
        cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert grid.returncode == 0, grid.stderr
    assert grid.stdout
    (tmp_path / "t.json").write_text('{"traceEvents": []}')
    trace = subprocess.run(
        [sys.executable, "-c", block + "sys.exit(main(['trace', 't.json', '-o', 't.png']))"],
        cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert (trace.returncode, trace.stderr) == (2, picture.stderr)
