"""TGET_SCALE_ADDR: a ScaleLeft / ScaleRight tile bound at its data tile's address >> 4,
the address TMATMUL_MX reads the scales from (pto-isa a5 SHIFT_MX_ADDR = 4)."""

from __future__ import annotations

import numpy as np
import pytest

import ptosim
from test_tile_mx import mx_operands, store


def test_bound_tile_sits_at_the_data_address_shifted_by_four() -> None:
    m = ptosim.Machine(target="a5")
    left = m.tile("Left", "f8E4M3FN", 32, 64, addr=8192)
    right = m.tile("Right", "f8E4M3FN", 64, 32, addr=4096)
    sl = m.TGET_SCALE_ADDR(m.tile("ScaleLeft", "e8m0", 32, 2), left)
    sr = m.TGET_SCALE_ADDR(m.tile("ScaleRight", "e8m0", 2, 32), right)
    assert (sl.ptr.space, sl.ptr.offset) == ("l0a_mx", 8192 // 16)
    assert (sr.ptr.space, sr.ptr.offset) == ("l0b_mx", 4096 // 16)
    assert (sl.rows, sl.cols, sl.dtype.name, sl.name) == (32, 2, "f8E8M0FNU", "ZZ")


def test_a_matmul_through_bound_scale_tiles_equals_the_golden() -> None:
    """The scale tiles mx_operands places by hand (addr = data >> 4) are what
    TGET_SCALE_ADDR binds: loading the scales through the bound tiles gives the product."""
    m = ptosim.Machine(target="a5")
    left, sl, right, sr, want = mx_operands(m, "f8E4M3FN", "f8E5M2", 48, 64, 32, seed=5)
    bl = m.TGET_SCALE_ADDR(m.tile("ScaleLeft", "e8m0", sl.rows, sl.cols), left)
    br = m.TGET_SCALE_ADDR(m.tile("ScaleRight", "e8m0", sr.rows, sr.cols), right)
    assert (bl.ptr, br.ptr) == (sl.ptr, sr.ptr)
    acc = m.tile("Acc", "f32", left.rows, right.cols, valid=(48, 32))
    m.TMATMUL_MX(acc, left, bl, right, br)
    np.testing.assert_array_equal(store(m, acc, 48, 32), want.astype(np.float32))


def test_rules() -> None:
    m = ptosim.Machine(target="a5")
    left = m.tile("Left", "f8E4M3FN", 32, 64)
    vec = m.tile("Vec", "f32", 8, 8)
    with pytest.raises(ptosim.VerifyError, match="TGET_SCALE_ADDR: src must be a Left or "
                                                 "Right tile, got Vec"):
        m.TGET_SCALE_ADDR(m.tile("ScaleLeft", "e8m0", 32, 2), vec)
    with pytest.raises(ptosim.VerifyError, match="TGET_SCALE_ADDR: the scale tile of a Left "
                                                 "tile is a ScaleLeft tile, got ScaleRight"):
        m.TGET_SCALE_ADDR(m.tile("ScaleRight", "e8m0", 2, 32), left)
    with pytest.raises(ptosim.PtoTypeError, match="TGET_SCALE_ADDR: dst must be a Tile, got "
                                                  "int"):
        m.TGET_SCALE_ADDR(0, left)
    a2 = ptosim.Machine(target="a2a3")
    with pytest.raises(ptosim.TargetError, match="TGET_SCALE_ADDR: target a2a3 has no MX scale "
                                                 "buffers \\(a5 has\\)"):
        a2.TGET_SCALE_ADDR(vec, a2.tile("Left", "f16", 16, 16))


def test_a_scale_tile_past_its_buffer_is_refused() -> None:
    """A Left tile in the last 1 KiB of L0A (64 KiB) puts its scales at 4032 of the 4 KiB
    scale buffer: a 64x2 (128 B) ScaleLeft tile would run 64 B past it."""
    m = ptosim.Machine(target="a5")
    assert (m.target.capacity["l0a"], m.target.capacity["l0a_mx"]) == (65536, 4096)
    left = m.tile("Left", "f8E4M3FN", 16, 64, addr=65536 - 1024)
    assert m.TGET_SCALE_ADDR(m.tile("ScaleLeft", "e8m0", 16, 2), left).ptr.offset == 4032
    with pytest.raises(ptosim.VerifyError, match="TGET_SCALE_ADDR: a 128 B ScaleLeft tile at "
                                                 "byte 4032 \\(src's 64512 >> 4\\) does not "
                                                 "fit the 4096 B l0a_mx"):
        m.TGET_SCALE_ADDR(m.tile("ScaleLeft", "e8m0", 64, 2), left)
