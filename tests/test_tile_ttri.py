"""TTRI: numpy's tril / triu over the valid region; a5's unclamped prefix stores past the
valid columns and rows, a2a3's clamped rows; the static rules; `.pto` `pto.ttri`."""

from __future__ import annotations

import numpy as np
import pytest

import ptosim
from ptosim.kernel import Kernel
from tile_helpers import tile_buf, vec_kernel

POISON = 0xCD


def _run(target: str, dt: str, shape: tuple[int, int], valid: tuple[int, int], diag: int,
         upper: int) -> tuple[ptosim.Machine, ptosim.Tile, np.ndarray]:
    m = ptosim.Machine(target=target, poison=POISON)
    t = m.tile("Vec", dt, *shape, valid=valid)
    m.TTRI(t, diag, upper_or_lower=upper)
    return m, t, m.read(t.ptr, shape[0] * shape[1]).reshape(shape)


def _golden(valid: tuple[int, int], diag: int, upper: int, np_t: type) -> np.ndarray:
    ones = np.ones(valid)
    return (np.triu(ones, diag) if upper else np.tril(ones, diag)).astype(np_t)


CASES = [((16, 16), (16, 16)), ((8, 32), (5, 7)), ((32, 64), (32, 64)), ((4, 128), (3, 100))]


@pytest.mark.parametrize("target", ["a5", "a2a3"])
@pytest.mark.parametrize("dt, np_t", [("f32", np.float32), ("f16", np.float16),
                                      ("i32", np.int32), ("ui16", np.uint16)])
@pytest.mark.parametrize("shape, valid", CASES)
@pytest.mark.parametrize("diag", [-40, -3, 0, 2, 90])
@pytest.mark.parametrize("upper", [0, 1])
def test_valid_region_is_the_triangle(target: str, dt: str, np_t: type,
                                      shape: tuple[int, int], valid: tuple[int, int],
                                      diag: int, upper: int) -> None:
    _, _, out = _run(target, dt, shape, valid, diag, upper)
    np.testing.assert_array_equal(out[:valid[0], :valid[1]],
                                  _golden(valid, diag, upper, np_t))


def _untouched(out: np.ndarray) -> np.ndarray:
    """Elements still holding the poison bytes."""
    raw = out.view(np.uint8).reshape(*out.shape, out.itemsize)
    return (raw == POISON).all(axis=-1)


@pytest.mark.parametrize("upper", [0, 1])
def test_a2a3_writes_only_the_valid_region(upper: int) -> None:
    _, _, out = _run("a2a3", "f32", (8, 32), (5, 7), 20, upper)
    written = ~_untouched(out)
    assert written[:5, :7].all() and not written[5:].any() and not written[:, 7:].any()


def test_a5_lower_prefix_runs_past_the_valid_columns() -> None:
    """Row i stores i + d + 1 ones (at most its 64 f32 repeat): with d = 2 and 7 valid
    columns row 4 stores 7, row 5.. would store more but are not valid rows; with d = 9
    every valid row spills: row i's ones reach column i + 9."""
    _, _, out = _run("a5", "f32", (8, 32), (5, 7), 9, 0)
    for i in range(5):
        assert (out[i, :i + 10] == 1).all()
        assert _untouched(out[i:i + 1, i + 10:]).all()
    assert _untouched(out[5:]).all()


def test_a5_upper_zeros_spill_into_the_next_rows() -> None:
    """An upper triangle with d = 40 on 16 columns: row i stores i + 40 zeros from its
    start, through the next two rows, and from the last valid row past the valid rows."""
    _, _, out = _run("a5", "f32", (8, 16), (4, 16), 40, 1)
    flat = out.reshape(-1)
    assert (flat[:3 * 16 + 43] == 0).all()           # last valid row (3): 43 zeros
    assert _untouched(flat[3 * 16 + 43:].reshape(1, -1)).all()


def test_a5_prefix_stops_at_the_rows_whole_repeats() -> None:
    """100 valid f32 columns are two 64-element repeats: a prefix of 500 stops at 128."""
    _, _, out = _run("a5", "f32", (4, 256), (1, 100), 499, 0)
    assert (out[0, :128] == 1).all() and _untouched(out[0:1, 128:]).all()


def test_a5_64_bit_rows_clamp() -> None:
    _, _, out = _run("a5", "i64", (4, 32), (3, 20), 30, 0)
    np.testing.assert_array_equal(out[:3, :20], np.ones((3, 20), np.int64))
    assert _untouched(out[:, 20:]).all() and _untouched(out[3:]).all()


def test_rules() -> None:
    m = ptosim.Machine(target="a2a3")
    with pytest.raises(ptosim.DtypeError, match="TTRI: dst element type must be one of f16, "
                                                "f32, i16, i32, ui16, ui32 on a2a3, got i8"):
        m.TTRI(m.tile("Vec", "i8", 8, 32), 0)
    a5 = ptosim.Machine(target="a5")
    t = a5.tile("Vec", "f32", 8, 16)
    with pytest.raises(ptosim.VerifyError, match="TTRI: upper_or_lower must be 0 \\(lower\\) or "
                                                 "1 \\(upper\\), got 2"):
        a5.TTRI(t, 0, upper_or_lower=2)
    with pytest.raises(ptosim.PtoTypeError, match="TTRI: diagonal must be a 32-bit integer, "
                                                  "got 1\\.5"):
        a5.TTRI(t, 1.5)
    with pytest.raises(ptosim.NotImplementedOpError, match="TTRI: a5 writes only the first 64 "
                                                           "of 80 valid columns"):
        a5.TTRI(a5.tile("Vec", "i64", 2, 80), 0)


TILE = tile_buf("i32", 16, 16)


@pytest.mark.parametrize("attr, upper", [("", 0), (" {upperOrLower = 1 : i32}", 1),
                                         (" {upperOrLower = 0 : i32}", 0)])
def test_pto_ttri(attr: str, upper: int) -> None:
    text = vec_kernel(f"pto.ttri ins(%diag{attr} : i32) outs(%d : {TILE})", target="a5",
                      params="%g: !pto.ptr<i32, gm>, %diag: i32",
                      views={"p": ("g", "i32", 16, 16)}, tiles={"d": TILE},
                      stores=[("d", "p")])
    k = Kernel.from_text(text, "k.pto")
    res = k.run({"g": np.zeros(256, np.int32), "diag": -2})
    assert res.findings == []
    np.testing.assert_array_equal(np.asarray(res.outputs["g"]).reshape(16, 16),
                                  _golden((16, 16), -2, upper, np.int32))
