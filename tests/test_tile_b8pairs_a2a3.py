"""a2a3's 8-bit TAND / TOR / TNOT compute 16-bit pairs (B82B16Trait): an odd valid width
also computes (reads and writes) the next column. The golden replays TAnd.hpp's / TOr.hpp's
per-row pair loop and TUnaryOp.hpp's 1-D / 2-D choice on 16-bit views of the bytes; a5
(per-element predicates) writes exactly the valid region."""

from __future__ import annotations

import numpy as np
import pytest

import ptosim
from ptosim.errors import NotImplementedOpError


def golden_bin(d: np.ndarray, a: np.ndarray, b: np.ndarray, cols: int, vr: int, vc: int,
               fn) -> np.ndarray:
    """TAnd / TOr b8: the stride overload, one run of ceil(vc / 2) pairs per valid row at
    TransStride<RowStride> = cols / 2 pairs."""
    out = d.copy().view(np.uint16)
    x, y = a.view(np.uint16), b.view(np.uint16)
    stride, n = cols // 2, (vc + 1) // 2
    for r in range(vr):
        s = slice(r * stride, r * stride + n)
        out[s] = fn(x[s], y[s])
    return out.view(np.uint8)


def golden_not(d: np.ndarray, a: np.ndarray, rows: int, cols: int, vr: int, vc: int,
               static_full: bool) -> np.ndarray:
    """TNOT b8 (TUnaryOp with B82B16Trait)."""
    out = d.copy().view(np.uint16)
    x = a.view(np.uint16)
    trans_valid, dst_col = (vc + 1) // 2, cols // 2
    is_combined = static_full or rows == 1
    if is_combined or trans_valid == dst_col or vr == 1:      # Unary1L
        n = vr * trans_valid
        out[:n] = ~x[:n]
    else:                                                      # Unary2L*
        for r in range(vr):
            s = slice(r * dst_col, r * dst_col + trans_valid)
            out[s] = ~x[s]
    return out.view(np.uint8)


def _setup(target: str, shape, valid, dt="i8", dynamic=False):
    m = ptosim.Machine(target=target)
    ts = [m.tile("Vec", dt, *shape, valid=valid, dynamic_valid=dynamic) for _ in range(3)]
    ub = m.blocks[0].ub[0]
    ub[:] = np.random.default_rng(3).integers(0, 256, ub.size, dtype=np.uint8)
    return m, ts, ub


def _bytes(ub, t):
    return ub[t.ptr.offset:t.ptr.offset + t.nbytes]


CASES = [((8, 32), (5, 13)), ((8, 32), (8, 31)), ((4, 64), (1, 7)), ((8, 32), (6, 12)),
         ((1, 32), (1, 9))]


@pytest.mark.parametrize("observed", [False, True])
@pytest.mark.parametrize("op,fn", [("TAND", np.bitwise_and), ("TOR", np.bitwise_or)])
@pytest.mark.parametrize("shape,valid", CASES)
@pytest.mark.parametrize("dt", ["i8", "ui8"])
def test_a2a3_and_or_compute_whole_pairs(shape, valid, op, fn, observed, dt):
    m, (d, a, b), ub = _setup("a2a3", shape, valid, dt)
    if observed:
        m.access_hook = lambda *x: None
    want = golden_bin(_bytes(ub, d), _bytes(ub, a), _bytes(ub, b), shape[1], *valid, fn)
    for _ in range(2):
        getattr(m, op)(d, a, b)
    assert np.array_equal(_bytes(ub, d), want)


@pytest.mark.parametrize("observed", [False, True])
@pytest.mark.parametrize("shape,valid", CASES)
@pytest.mark.parametrize("dynamic", [False, True])
def test_a2a3_not_computes_whole_pairs(shape, valid, observed, dynamic):
    m, (d, a, _), ub = _setup("a2a3", shape, valid, dynamic=dynamic)
    if observed:
        m.access_hook = lambda *x: None
    static_full = not dynamic and valid[1] == shape[1]
    want = golden_not(_bytes(ub, d), _bytes(ub, a), *shape, *valid, static_full)
    for _ in range(2):
        m.TNOT(d, a)
    assert np.array_equal(_bytes(ub, d), want)


@pytest.mark.parametrize("shape,valid", CASES)
def test_a5_writes_the_valid_region_only(shape, valid):
    m, (d, a, b), ub = _setup("a5", shape, valid)
    before = _bytes(ub, d).copy().reshape(shape)
    x, y = _bytes(ub, a).reshape(shape), _bytes(ub, b).reshape(shape)
    m.TAND(d, a, b)
    want = before.copy()
    want[:valid[0], :valid[1]] = x[:valid[0], :valid[1]] & y[:valid[0], :valid[1]]
    assert np.array_equal(_bytes(ub, d).reshape(shape), want)


def test_the_extra_column_is_read_and_written_for_observers():
    m, (d, a, b), ub = _setup("a2a3", (8, 32), (5, 13))
    seen = []
    m.access_hook = lambda buf, start, n, access, *rest: seen.append((start, n, access))
    m.TAND(d, a, b)
    col = (4 * 32 + 1)                      # byte 13 of rows 0 .. 4
    assert (a.ptr.offset + 13, col, "R") in seen
    assert (d.ptr.offset + 13, col, "W") in seen


def test_cpu_sim_compat_keeps_the_valid_region():
    m, (d, a, b), ub = _setup("a2a3", (8, 32), (5, 13))
    before = _bytes(ub, d).copy().reshape(8, 32)
    m.TOR(d, a, b, cpu_sim_compat=True)
    assert np.array_equal(_bytes(ub, d).reshape(8, 32)[:, 13:], before[:, 13:])


def test_odd_column_count_is_refused_before_anything_moves():
    """A `.pto` 8-bit tile may have an odd number of columns; a2a3's pair stride
    (cols // 2) then is not the row: not modelled."""
    m = ptosim.Machine(target="a2a3")
    ts = [m._new_tile("Vec", "i8", 4, 33, None, None, None, (3, 5), "Null", None, 0,
                      row_align=False) for _ in range(3)]
    ub = m.blocks[0].ub[0]
    ub[:] = 7
    before = ub.copy()
    with pytest.raises(NotImplementedOpError, match="dst is an 8-bit tile of 33 columns"):
        m.TAND(*ts)
    assert np.array_equal(ub, before)


def golden_rowexpand(d: np.ndarray, s: np.ndarray, cols: int, src_cols: int, vr: int,
                     vc: int) -> np.ndarray:
    """TRowExpand b8: per valid row, ceil(vc / 2) pairs of the row's value duplicated
    (TransValue) at TransStride<dst RowStride>; the source read at its own row stride."""
    out = d.copy().view(np.uint16)
    for r in range(vr):
        byte = int(s[r * src_cols])
        start = r * (cols // 2)
        out[start:start + (vc + 1) // 2] = byte | (byte << 8)
    return out.view(np.uint8)


@pytest.mark.parametrize("observed", [False, True])
@pytest.mark.parametrize("vc", [13, 12, 31, 1])
def test_a2a3_rowexpand_fills_whole_pairs(vc, observed):
    m = ptosim.Machine(target="a2a3")
    if observed:
        m.access_hook = lambda *x: None
    d = m.tile("Vec", "ui8", 8, 32, valid=(6, vc))
    s = m.tile("Vec", "ui8", 8, 32, valid=(6, 1))
    ub = m.blocks[0].ub[0]
    ub[:] = np.random.default_rng(5).integers(0, 256, ub.size, dtype=np.uint8)
    want = golden_rowexpand(_bytes(ub, d), _bytes(ub, s), 32, 32, 6, vc)
    for _ in range(2):
        m.TROWEXPAND(d, s)
    assert np.array_equal(_bytes(ub, d), want)
    m5 = ptosim.Machine(target="a5")
    d5 = m5.tile("Vec", "ui8", 8, 32, valid=(6, vc))
    s5 = m5.tile("Vec", "ui8", 8, 32, valid=(6, 1))
    ub5 = m5.blocks[0].ub[0]
    ub5[:] = 0
    _bytes(ub5, s5)[:] = 9
    m5.TROWEXPAND(d5, s5)
    got = _bytes(ub5, d5).reshape(8, 32)
    assert (got[:6, :vc] == 9).all() and (got[:, vc:] == 0).all()   # a5: the valid region
