import os

import numpy as np
import pytest

import ptosim

# Command-line tests run ptosim in this process's code: never in a warm `ptosim server` a
# developer may have running (tests/test_server.py starts its own).
os.environ["PTOSIM_SERVER"] = "off"

POISON = 0xCD


@pytest.fixture
def m() -> ptosim.Machine:
    """An a5 machine whose on-chip buffers start as 0xCD bytes, so untouched bytes show."""
    return ptosim.Machine(target="a5", poison=POISON)


def raw(m: ptosim.Machine, space: str, sub: int = 0) -> np.ndarray:
    """The whole backing byte array of a space (a view, not a copy)."""
    blk = m.blocks[0]
    return blk.ub[sub] if space == "ub" else blk.cube[space]


def without_excerpts(text: str) -> str:
    """Diagnostics without the quoted source line and caret printed under each one."""
    lines = text.split("\n")
    keep, i = [], 0
    while i < len(lines):
        if i + 1 < len(lines) and lines[i + 1].strip() == "^":
            i += 2
            continue
        keep.append(lines[i])
        i += 1
    return "\n".join(keep)
