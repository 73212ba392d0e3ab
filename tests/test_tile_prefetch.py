"""TPREFETCH: slices of a GM view copied into a Vec tile's start (rows packed at their byte
length on a5, at 32 B boundaries on a2a3), chunked when a slice outgrows the tile, the tile
keeping the last copy; rules; `.pto` form. Goldens are numpy slicing of the source."""

from __future__ import annotations

import numpy as np
import pytest

import ptosim
from ptosim.kernel import Kernel
from tile_helpers import tile_buf, vec_kernel

POISON = 0xCD


def _run(target: str, shape: tuple, stride: tuple, tile: tuple[int, int]):
    m = ptosim.Machine(target=target, poison=POISON)
    src = np.arange(4096, dtype=np.float32)
    g = m.global_tensor(m.gm(src), shape=shape, stride=stride)
    t = m.tile("Vec", "f32", *tile)
    m.TPREFETCH(t, g)
    return src, m.read(t.ptr, tile[0] * tile[1])


def _untouched(x: np.ndarray) -> bool:
    return bool((x.view(np.uint8) == POISON).all())


@pytest.mark.parametrize("target, cols, pitch", [("a5", 40, 40), ("a2a3", 36, 40)])
def test_a_fitting_slice_packs_its_rows(target: str, cols: int, pitch: int) -> None:
    """8 rows of 40 f32 (160 B) packed 40 apart on a5; 8 rows of 36 (144 B) at 160 B
    boundaries (40 elements) on a2a3."""
    src, got = _run(target, (1, 1, 1, 8, cols), (0, 0, 0, 64, 1), (16, 64))
    for r in range(8):
        np.testing.assert_array_equal(got[r * pitch:r * pitch + cols],
                                      src[r * 64:r * 64 + cols])
    assert _untouched(got[8 * pitch:])


def test_outer_slices_overwrite_the_tile() -> None:
    """Three slices (dim 2) each copied to the tile's start: the last one stays."""
    src, got = _run("a5", (1, 1, 3, 4, 16), (0, 0, 512, 32, 1), (8, 32))
    np.testing.assert_array_equal(got[:64].reshape(4, 16),
                                  src[1024:1024 + 128].reshape(4, 32)[:, :16])


def test_a_large_slice_goes_in_chunks() -> None:
    """A 6 x 96 slice against a 2 x 64 tile: chunks of <= 2 rows x 64 columns from the
    tile's start; the last is rows 4..5, columns 64..95 (rows packed 32 apart)."""
    src, got = _run("a5", (1, 1, 1, 6, 96), (0, 0, 0, 128, 1), (2, 64))
    last = src.reshape(-1, 128)[4:6, 64:96]
    np.testing.assert_array_equal(got[:64], last.reshape(-1))
    np.testing.assert_array_equal(got[64:128], src.reshape(-1, 128)[5, 0:64])  # chunk 5


def test_rules() -> None:
    m = ptosim.Machine(target="a5")
    g = m.global_tensor(m.gm(np.zeros(64, np.float32)), shape=(1, 1, 1, 1, 64),
                        stride=(0, 0, 0, 64, 1))
    with pytest.raises(ptosim.SpaceError, match="TPREFETCH: dst must be a Vec tile \\(UB\\), "
                                                "got Mat"):
        m.TPREFETCH(m.tile("Mat", "f32", 16, 64, blayout="ColMajor", slayout="RowMajor"), g)
    odd = m.global_tensor(m.gm(np.zeros(8 * 36, np.float32)), shape=(1, 1, 1, 8, 36),
                          stride=(0, 0, 0, 36, 1))
    with pytest.raises(ptosim.AlignmentError, match="TPREFETCH: a5 packs the 8 rows at their "
                                                    "144 B length in UB"):
        m.TPREFETCH(m.tile("Vec", "f32", 16, 64), odd)
    with pytest.raises(ptosim.PtoTypeError, match="TPREFETCH: src must be a GlobalTensor"):
        m.TPREFETCH(m.tile("Vec", "f32", 1, 64), m.tile("Vec", "f32", 1, 64))


def test_pto_form() -> None:
    t = tile_buf("f32", 16, 16)
    text = vec_kernel(f"pto.tprefetch ins(%p : !pto.partition_tensor_view<16x16xf32>) "
                      f"outs(%d : {t})", target="a5", params="%g: !pto.ptr<f32, gm>, "
                      "%o: !pto.ptr<f32, gm>",
                      views={"p": ("g", "f32", 16, 16), "q": ("o", "f32", 16, 16)},
                      tiles={"d": t}, stores=[("d", "q")])
    text = text.replace('pto.set_flag["PIPE_V", "PIPE_MTE3"', 'pto.set_flag["PIPE_MTE2", '
                        '"PIPE_MTE3"').replace('pto.wait_flag["PIPE_V", "PIPE_MTE3"',
                                               'pto.wait_flag["PIPE_MTE2", "PIPE_MTE3"')
    x = np.arange(256, dtype=np.float32)
    res = Kernel.from_text(text, "k.pto").run({"g": x, "o": np.zeros(256, np.float32)})
    assert res.findings == []
    np.testing.assert_array_equal(res.outputs["o"], x)
