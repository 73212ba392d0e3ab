"""The README's Python blocks run as written, and its set-up commands match CI."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()


def test_python_blocks_run(monkeypatch):
    monkeypatch.chdir(ROOT)                    # blocks use paths relative to the clone
    blocks = re.findall(r"```python\n(.*?)```", README, re.S)
    assert len(blocks) >= 2
    namespace: dict = {}
    for block in blocks:            # later blocks use names from earlier ones
        exec(compile(block, "README.md", "exec"), namespace)


def test_two_setup_commands_and_ci_runs_the_test_one():
    first = re.search(r"```sh\n(.*?)```", README, re.S).group(1)
    commands = [line.split("#")[0].strip() for line in first.strip().splitlines()]
    assert len(commands) == 2
    assert "examples/" in commands[0] and (ROOT / commands[0].split()[-1]).is_file()
    ci = (ROOT / ".ci" / "run").read_text()
    assert commands[1] in ci
