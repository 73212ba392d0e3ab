"""examples/tile_softmax: a tile-level row softmax (vector tile ops over 16-row tiles with a
partial last step) against numpy, and the hazard its MTE3 -> MTE2 flag prevents."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ptosim.kernel import Kernel

KERNEL = Path(__file__).resolve().parent.parent / "examples" / "tile_softmax" / "kernel.pto"


@pytest.mark.parametrize("rows", [1, 16, 40])
def test_row_softmax(rows: int) -> None:
    x = (np.random.default_rng(rows).standard_normal((rows, 64)) * 4).astype(np.float32)
    res = Kernel.from_file(KERNEL).run({"x": x, "y": np.zeros_like(x), "n": rows})
    assert not res.findings
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(res.outputs["y"], e / e.sum(axis=1, keepdims=True),
                               rtol=1e-5, atol=1e-7)


def test_without_the_store_to_load_flag_the_next_load_races_the_store() -> None:
    text = KERNEL.read_text()
    for line in ('pto.set_flag["PIPE_MTE3", "PIPE_MTE2", "EVENT_ID0"]',
                 'pto.wait_flag["PIPE_MTE3", "PIPE_MTE2", "EVENT_ID0"]'):
        assert line in text
        text = text.replace(line, "")
    x = np.ones((40, 64), np.float32)
    res = Kernel.from_text(text).run({"x": x, "y": np.zeros_like(x), "n": 40})
    kinds = {f.kind for f in res.findings}
    assert "WAR" in kinds, [f.render() for f in res.findings]
    assert any("pto.tload" in f.message and "overwrites what pto.tstore" in f.message
               for f in res.findings)


def test_an_allocation_in_a_loop_is_the_same_bytes_every_iteration() -> None:
    """PTOAS plans one address per alloc_tile: 125 steps of four tiles fit in UB because
    each step reuses its allocations' bytes (fresh bytes per step would not fit)."""
    rows = 16 * 125
    x = np.zeros((rows, 64), np.float32)
    res = Kernel.from_file(KERNEL).run({"x": x, "y": np.zeros_like(x), "n": rows})
    np.testing.assert_array_equal(res.outputs["y"], np.full_like(x, 1 / 64))
