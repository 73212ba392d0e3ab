"""Strided DMAs report the runs of bytes they touch, and the hazard checker decides overlap
on those runs: blocks that write interleaved column strips of one GM matrix do not race,
strips that share a column do, and the reported range is the first shared run."""

from pathlib import Path

import numpy as np
import pytest

from ptosim.interp.hazards import _Access, shared_bytes
from ptosim.kernel import Kernel
from ptosim.ops.common import runs

SOFTMAX = Path(__file__).resolve().parent.parent / "examples" / "vector_softmax" / "kernel.pto"


def _strip_kernel(tmp_path: Path, strip: int) -> Kernel:
    """The softmax example with block b starting at column ``strip`` * b (its strips are
    64 wide, so ``strip`` < 64 makes neighbouring blocks share columns)."""
    text = SOFTMAX.read_text().replace(
        "%col0 = arith.muli %block_i32, %c64_i32 : i32",
        f"%c_strip = arith.constant {strip} : i32\n"
        f"    %col0 = arith.muli %block_i32, %c_strip : i32")
    path = tmp_path / "k.pto"
    path.write_text(text)
    return Kernel.from_file(path)


def _run(kernel: Kernel, blocks: int, cols: int):
    x = np.random.default_rng(0).standard_normal((8, cols)).astype(np.float32)
    return kernel.run({"x": x, "y": np.zeros_like(x), "rows": 8, "cols": cols},
                      block_dim=blocks)


def test_interleaved_column_strips_do_not_race(tmp_path):
    res = _run(_strip_kernel(tmp_path, 64), 3, 192)
    assert res.findings == []
    x = res.outputs["x"].astype(np.float64)
    e = np.exp(x - x.max(0))
    np.testing.assert_allclose(res.outputs["y"], e / e.sum(0), rtol=1e-6)


def test_strips_sharing_a_column_race_on_exactly_those_bytes(tmp_path):
    res = _run(_strip_kernel(tmp_path, 63), 2, 192)     # block 1 starts at column 63
    waw = [f for f in res.findings if f.kind == "WAW"]
    assert len(waw) == 1
    # row 0, column 63 of y: bytes [252, 256), the first of the 8 shared runs
    assert "bytes [252, 256)" in waw[0].message and waw[0].count == 1


def _brute(start_a, ra, start_b, rb):
    def bytes_of(start, r):
        length, dims = r
        out = {start}
        for count, stride in dims:
            out = {s + i * stride for s in out for i in range(count)}
        return {s + k for s in out for k in range(length)}
    return bytes_of(start_a, ra) & bytes_of(start_b, rb)


def _access(start, r):
    length, dims = r
    end = start + length + sum((c - 1) * s for c, s in dims)
    return _Access(0, 0, "W", start, end, None, "c", "p", None if not dims else r)


@pytest.mark.parametrize("seed", range(200))
def test_shared_bytes_matches_a_byte_set_intersection(seed):
    rng = np.random.default_rng(seed)

    def pattern():
        length = int(rng.integers(1, 9))
        dims = tuple((int(rng.integers(1, 5)), int(rng.integers(0, 24)))
                     for _ in range(int(rng.integers(0, 3))))
        return int(rng.integers(0, 40)), (length, dims)
    (sa, ra), (sb, rb) = pattern(), pattern()
    want = _brute(sa, ra, sb, rb)
    got = shared_bytes(_access(sa, ra), _access(sb, rb))
    if not want:
        assert got is None
    else:
        lo, hi = got
        assert lo == min(want) and lo < hi and set(range(lo, hi)) <= want


def test_runs_is_none_when_the_bursts_leave_no_gap():
    assert runs(64, [(4, 64)]) is None and runs(64, [(4, 32)]) is None
    assert runs(64, [(1, 500)]) is None
    assert runs(32, [(4, 64)]) == (32, ((4, 64),))
    assert runs(32, [(1, 64), (3, 96)]) == (32, ((3, 96),))
