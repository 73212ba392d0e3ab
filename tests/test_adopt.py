"""GM held once: `Kernel.run(adopt=True)` (what `ptosim run` uses) makes the argument
arrays GM itself and returns them as the outputs."""

from pathlib import Path

import numpy as np

import ptosim
from ptosim.kernel import Kernel

SPLIT = Path(__file__).resolve().parent.parent / "examples" / "cube_vector" / "kernel.pto"


def args():
    return {"a": np.ones((40, 50), np.float16), "b": np.ones((50, 64), np.float16),
            "c": np.zeros((40, 64), np.float32)}


def test_adopted_arrays_are_gm():
    k = Kernel.from_file(SPLIT)
    given = args()
    out = k.run(given, adopt=True).outputs
    assert out["c"] is given["c"] and (given["c"] == 50).all()
    copied = args()
    out = k.run(copied).outputs                     # the default copies: yours stay as given
    assert not np.shares_memory(out["c"], copied["c"]) and (copied["c"] == 0).all()
    np.testing.assert_array_equal(out["c"], given["c"])


def test_arrays_that_cannot_be_gm_are_copied():
    k = Kernel.from_file(SPLIT)
    given = args()
    c = np.zeros((64, 40), np.float32).T            # not C-contiguous
    out = k.run({**given, "c": c}, adopt=True).outputs
    assert out["c"] is not c and (c == 0).all() and (out["c"] == 50).all()
    readonly = np.zeros((40, 64), np.float32)
    readonly.setflags(write=False)
    out = k.run({**given, "c": readonly}, adopt=True).outputs
    assert (readonly == 0).all() and (out["c"] == 50).all()


def test_machine_adopt_and_overrun_mode():
    m = ptosim.Machine()
    x = np.arange(8, dtype=np.float32)
    p = m.gm(x, adopt=True)
    m.write(p + 2, np.float32(-1))
    assert x[2] == -1 and m.gm_shares(p, x)
    w = ptosim.Machine(gm_overrun="warn")            # needs room past the end: copies
    q = w.gm(x, adopt=True)
    assert not w.gm_shares(q, x)
