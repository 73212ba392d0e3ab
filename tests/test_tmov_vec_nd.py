"""TMOV Vec -> Vec between ND tiles: the bytes each target writes.

a5 (TMovVecToVec) stores exactly the valid region both tiles share with predicated vector
stores; a2a3 (TMovToVecImpl) copies 32-byte blocks with copy_ubuf_to_ubuf, whole rows in
one burst when the tiles are equally wide (or dst is one row) and dst's valid columns are
its columns (statically, or as the shared count), else each row's blocks.
"""

from __future__ import annotations

import numpy as np
import pytest

import ptosim

MARK = -7.0


def _run(target: str, src_shape, src_valid, dst_shape, dst_valid):
    m = ptosim.Machine(target=target)
    src = m.tile("Vec", "f32", *src_shape, valid=src_valid)
    dst = m.tile("Vec", "f32", *dst_shape, valid=dst_valid)
    data = np.arange(src_shape[0] * src_shape[1], dtype=np.float32).reshape(src_shape)
    m.write(src.ptr, data.ravel())
    m.write(dst.ptr, np.full(dst_shape[0] * dst_shape[1], MARK, np.float32))
    m.TMOV(dst, src)
    return data, m.read(dst.ptr, dst_shape[0] * dst_shape[1]).reshape(dst_shape)


@pytest.mark.parametrize("src_valid, dst_valid", [((5, 37), (6, 40)), ((8, 64), (3, 9)),
                                                  ((8, 64), (8, 64)), ((1, 1), (8, 64))])
def test_a5_writes_exactly_the_shared_valid_region(src_valid, dst_valid):
    data, got = _run("a5", (8, 64), src_valid, (8, 64), dst_valid)
    r, c = min(src_valid[0], dst_valid[0]), min(src_valid[1], dst_valid[1])
    want = np.full((8, 64), MARK, np.float32)
    want[:r, :c] = data[:r, :c]
    np.testing.assert_array_equal(got, want)


def test_a5_different_widths():
    data, got = _run("a5", (4, 64), (3, 20), (6, 24), (6, 24))
    want = np.full((6, 24), MARK, np.float32)
    want[:3, :20] = data[:3, :20]
    np.testing.assert_array_equal(got, want)


def _blocks(cols: int) -> int:
    return -(-cols * 4 // 32) * 8          # f32 elements in whole 32 B blocks


@pytest.mark.parametrize("src_valid, dst_valid, whole_rows", [
    ((5, 37), (6, 64), True),       # equal widths, dst's valid cols are its cols: one burst
    ((5, 64), (6, 64), True),
    ((5, 64), (6, 40), False),      # else each row's blocks of the shared columns
    ((5, 37), (6, 40), False),
])
def test_a2a3_block_copies(src_valid, dst_valid, whole_rows):
    data, got = _run("a2a3", (8, 64), src_valid, (8, 64), dst_valid)
    r, c = min(src_valid[0], dst_valid[0]), min(src_valid[1], dst_valid[1])
    want = np.full((8, 64), MARK, np.float32)
    if whole_rows:
        want[:r] = data[:r]
    else:
        want[:r, :_blocks(c)] = data[:r, :_blocks(c)]
    np.testing.assert_array_equal(got, want)


def test_a2a3_different_widths_copy_each_rows_blocks():
    data, got = _run("a2a3", (4, 64), (3, 20), (6, 32), (6, 32))
    want = np.full((6, 32), MARK, np.float32)
    want[:3, :24] = data[:3, :24]           # 20 f32 = 80 B -> three 32 B blocks
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dst_valid, cols", [((1, 32), 32), ((1, 12), 16)])
def test_a2a3_one_row_dst(dst_valid, cols):
    """A one-row dst of another width: its whole row when its valid columns are its
    columns, else the shared columns' blocks."""
    data, got = _run("a2a3", (4, 64), (4, 64), (1, 32), dst_valid)
    want = np.full((1, 32), MARK, np.float32)
    want[0, :cols] = data[0, :cols]
    np.testing.assert_array_equal(got, want)


def test_a2a3_block_copies_replay():
    """Repeated a2a3 Vec -> Vec TMOVs replay their bursts and follow new data."""
    m = ptosim.Machine(target="a2a3")
    v, w = m.tile("Vec", "f32", 8, 64), m.tile("Vec", "f32", 8, 64)
    rng = np.random.default_rng(3)
    for _ in range(3):
        m.write(v.ptr, rng.standard_normal(8 * 64).astype(np.float32))
        m.TMOV(w, v)
        np.testing.assert_array_equal(m.read(w.ptr, 8 * 64), m.read(v.ptr, 8 * 64))
    assert ("TMOV", id(w)) in {(key[0], key[1]) for key in m._tile_plans}
