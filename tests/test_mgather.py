"""MGATHER: Row / Elem gathers from a GM table into a Vec tile under every OOB policy, on
a5 (rows packed at the valid width, capacity Shape[3]) and a2a3 (Stride[3] rows, capacity
Shape[0..3]; NZ table / NZ tile pairs); footprints; rules; the `.pto` form and its pipes.
Goldens index a numpy matrix of the table directly (np.take / ravel, clip / mod / where)."""

from __future__ import annotations

import numpy as np
import pytest

import ptosim
from ptosim.kernel import Kernel
from tile_helpers import tile_buf, vec_kernel

POISON = 0xCD


def _machine(target: str) -> ptosim.Machine:
    return ptosim.Machine(target=target, poison=POISON)


def _table(m, a: np.ndarray, shape=None, stride=None):
    rows, cols = a.shape
    return m.global_tensor(m.gm(a), shape or (1, 1, 1, rows, cols),
                           stride or (0, 0, 0, cols, 1))


def _idx(m, values, rows: int, cols: int, valid=None, blayout=None, dt="i32"):
    t = m.tile("Vec", dt, rows, cols, valid=valid, blayout=blayout)
    buf = np.zeros(rows * cols, np.int64)
    v = np.asarray(values, np.int64)
    if blayout == "ColMajor":
        buf.reshape(cols, rows)[:v.shape[1], :v.shape[0]] = v.T
    else:
        buf.reshape(rows, cols)[:v.shape[0], :v.shape[1]] = v
    m.write(t.ptr, buf.astype(np.uint32 if dt == "ui32" else np.int32))
    return t


def _raw(m, t) -> np.ndarray:
    return m.read(t.ptr, t.rows * t.cols)


def _untouched(x: np.ndarray) -> bool:
    return bool((np.ascontiguousarray(x).view(np.uint8) == POISON).all())


TABLE = np.arange(10 * 8, dtype=np.float32).reshape(10, 8) * 1.5 + 1


@pytest.mark.parametrize("target", ["a5", "a2a3"])
@pytest.mark.parametrize("oob, golden", [
    ("Clamp", lambda i, n: np.minimum(i, n - 1)),
    ("Wrap", lambda i, n: i % n),
])
def test_row_gather_remaps(target: str, oob: str, golden) -> None:
    m = _machine(target)
    g = _table(m, TABLE)
    raw = np.array([3, 0, 9, 12, 25, 7])
    idx = _idx(m, raw[None, :], 1, 8, valid=(1, 6))
    dst = m.tile("Vec", "f32", 6, 8)
    m.MGATHER(dst, g, idx, oob=oob)
    np.testing.assert_array_equal(m.read_tile(dst), np.take(TABLE, golden(raw, 10), axis=0))


@pytest.mark.parametrize("target", ["a5", "a2a3"])
def test_row_gather_zero_writes_the_valid_region_only(target: str) -> None:
    """Out-of-range rows become zeros; nothing outside the 3 x 5 valid region moves."""
    m = _machine(target)
    a = np.arange(6 * 5, dtype=np.float32).reshape(6, 5) + 100
    g = _table(m, a)
    idx = _idx(m, [[4, 6, 1]], 1, 8, valid=(1, 3))
    dst = m.tile("Vec", "f32", 4, 8, valid=(3, 5))
    m.MGATHER(dst, g, idx, coalesce="Row", oob="Zero")
    want = np.where(np.array([4, 6, 1])[:, None] < 6, a[np.minimum([4, 6, 1], 5)], 0)
    np.testing.assert_array_equal(m.read_tile(dst), want)
    raw = _raw(m, dst).reshape(4, 8)
    assert _untouched(raw[:, 5:]) and _untouched(raw[3:])


def test_row_gather_undefined_in_range() -> None:
    m = _machine("a5")
    idx = _idx(m, [[2, 2, 0, 9]], 1, 8, valid=(1, 4))
    dst = m.tile("Vec", "f32", 4, 8)
    m.MGATHER(dst, _table(m, TABLE), idx)
    np.testing.assert_array_equal(m.read_tile(dst), TABLE[[2, 2, 0, 9]])


def test_a5_row_capacity_is_shape3_a2a3_counts_outer_dims() -> None:
    """A (1, 1, 2, 4, 8) table: a5 clamps against Shape[3] = 4 rows, a2a3 against 8."""
    a = np.arange(64, dtype=np.float32).reshape(8, 8)
    got = {}
    for target in ("a5", "a2a3"):
        m = _machine(target)
        g = m.global_tensor(m.gm(a), (1, 1, 2, 4, 8), (0, 0, 32, 8, 1))
        dst = m.tile("Vec", "f32", 2, 8)
        m.MGATHER(dst, g, _idx(m, [[6, 1]], 1, 8, valid=(1, 2)), oob="Clamp")
        got[target] = m.read_tile(dst)
    np.testing.assert_array_equal(got["a5"], a[[3, 1]])
    np.testing.assert_array_equal(got["a2a3"], a[[6, 1]])


def test_a2a3_row_follows_the_row_stride() -> None:
    """a2a3 reads row i at i * Stride[3]: a 6-column view of 16-element rows."""
    m = _machine("a2a3")
    big = np.arange(5 * 16, dtype=np.float32).reshape(5, 16)
    g = m.global_tensor(m.gm(big), (1, 1, 1, 5, 6), (0, 0, 0, 16, 1))
    dst = m.tile("Vec", "f32", 3, 8, valid=(3, 6))
    m.MGATHER(dst, g, _idx(m, [[4, 0, 2]], 1, 8, valid=(1, 3)))
    np.testing.assert_array_equal(m.read_tile(dst), big[[4, 0, 2], :6])


def test_a5_row_index_column_and_col_major_dst() -> None:
    """a5: a [R, 1] ColMajor index tile, and a ColMajor destination."""
    m = _machine("a5")
    idx = _idx(m, [[5], [1], [8], [0], [3], [3], [9], [2]], 8, 1, blayout="ColMajor")
    dst = m.tile("Vec", "f32", 8, 8, blayout="ColMajor")
    m.MGATHER(dst, _table(m, TABLE), idx)
    np.testing.assert_array_equal(m.read_tile(dst), TABLE[[5, 1, 8, 0, 3, 3, 9, 2]])
    np.testing.assert_array_equal(_raw(m, dst).reshape(8, 8).T, TABLE[[5, 1, 8, 0, 3, 3, 9, 2]])


@pytest.mark.parametrize("target", ["a5", "a2a3"])
@pytest.mark.parametrize("oob", ["Clamp", "Wrap", "Zero"])
def test_elem_gather(target: str, oob: str) -> None:
    """dst[r, c] = flat[idx[r, c]] over all five dims; ui32 indices past 2**31 are out."""
    m = _machine(target)
    a = (np.arange(2 * 3 * 7, dtype=np.float32) * 0.25).reshape(6, 7)
    g = m.global_tensor(m.gm(a), (1, 1, 2, 3, 7), (0, 0, 21, 7, 1))
    raw = np.array([[0, 41, 42, 100, 3], [2**31 + 5, 17, 20, 8, 40], [1, 2, 3, 4, 63]],
                   dtype=np.int64)
    idx = _idx(m, raw, 3, 8, valid=(3, 5), dt="ui32")
    dst = m.tile("Vec", "f32", 4, 8, valid=(3, 5))
    m.MGATHER(dst, g, idx, coalesce="Elem", oob=oob)
    flat, n = a.ravel(), 42
    if oob == "Clamp":
        want = flat[np.clip(raw, 0, n - 1)]
    elif oob == "Wrap":
        want = flat[raw % n]
    else:
        want = np.where(raw < n, flat[np.where(raw < n, raw, 0)], 0)
    np.testing.assert_array_equal(m.read_tile(dst), want)
    assert _untouched(_raw(m, dst).reshape(4, 8)[:, 5:])


def test_elem_gather_col_major_index_on_a5() -> None:
    """a5 walks both tiles through their own layouts (tile_offset_2d)."""
    m = _machine("a5")
    raw = (np.arange(64).reshape(8, 8) * 11) % 80
    idx = _idx(m, raw, 8, 8, blayout="ColMajor")
    dst = m.tile("Vec", "f32", 8, 8)
    m.MGATHER(dst, _table(m, TABLE), idx, coalesce="Elem")
    np.testing.assert_array_equal(m.read_tile(dst), TABLE.ravel()[raw])


def test_fp8_gather_on_a5() -> None:
    m = _machine("a5")
    a = np.arange(4 * 32, dtype=np.uint8).reshape(4, 32)
    g = m.global_tensor(m.gm(a.view(ptosim.dtype("f8E4M3FN").np)), (1, 1, 1, 4, 32),
                        (0, 0, 0, 32, 1))
    dst = m.tile("Vec", "f8E4M3FN", 2, 32)
    m.MGATHER(dst, g, _idx(m, [[3, 1]], 1, 8, valid=(1, 2)))
    np.testing.assert_array_equal(_raw(m, dst).view(np.uint8).reshape(2, 32), a[[3, 1]])


# --- a2a3 NZ tables ----------------------------------------------------------------------------
def _nz_table(m, logical: np.ndarray, c0: int):
    """A packed NZ GM table of a logical (s2 * 16) x (s1 * C0) matrix."""
    rows, cols = logical.shape
    s2, s1 = rows // 16, cols // c0
    enc = logical.reshape(s2, 16, s1, c0).transpose(2, 0, 1, 3).ravel()
    return m.global_tensor(m.gm(np.ascontiguousarray(enc)), (1, s1, s2, 16, c0),
                           (s1 * s2 * 256, s2 * 16 * c0, 16 * c0, c0, 1), layout="NZ")


def test_a2a3_nz_row_gather_copies_whole_rows() -> None:
    m = _machine("a2a3")
    logical = np.arange(32 * 32, dtype=np.float16).reshape(32, 32)
    g = _nz_table(m, logical, 16)
    dst = m.tile("Vec", "f16", 16, 32, blayout="ColMajor", slayout="RowMajor", valid=(3, 5))
    m.MGATHER(dst, g, _idx(m, [[31, 0, 17]], 1, 8, valid=(1, 3)))
    full = m.read_tile(m.tile("Vec", "f16", 16, 32, blayout="ColMajor", slayout="RowMajor",
                              addr=dst.ptr.offset))
    np.testing.assert_array_equal(full[:3], logical[[31, 0, 17]])   # all 32 columns
    assert _untouched(full[3:])


def test_a2a3_nz_row_zero_clears_the_whole_tile() -> None:
    m = _machine("a2a3")
    logical = np.arange(16 * 16, dtype=np.float32).reshape(16, 16) + 1
    g = _nz_table(m, logical, 8)
    dst = m.tile("Vec", "f32", 16, 16, blayout="ColMajor", slayout="RowMajor", valid=(2, 16))
    m.MGATHER(dst, g, _idx(m, [[40, 5]], 1, 8, valid=(1, 2)), oob="Zero")
    raw = _raw(m, dst)
    want = np.zeros((16, 16), np.float32)
    want[1] = logical[5]
    np.testing.assert_array_equal(raw.reshape(2, 16, 8).transpose(1, 0, 2).reshape(16, 16),
                                  want)


def test_a2a3_nz_elem_gather() -> None:
    """A flat index names (idx // cols, idx % cols) of the logical NZ matrix."""
    m = _machine("a2a3")
    logical = np.arange(32 * 16, dtype=np.float32).reshape(32, 16) * 2
    g = _nz_table(m, logical, 8)
    raw = (np.arange(3 * 12).reshape(3, 12) * 37) % 600
    idx = _idx(m, raw, 3, 16, valid=(3, 12))
    dst = m.tile("Vec", "f32", 16, 16, blayout="ColMajor", slayout="RowMajor", valid=(3, 12))
    m.MGATHER(dst, g, idx, coalesce="Elem", oob="Zero")
    want = np.where(raw < 512, logical.ravel()[np.minimum(raw, 511)], 0)
    np.testing.assert_array_equal(m.read_tile(dst), want)


# --- rules --------------------------------------------------------------------------------
def _ok(target="a5"):
    m = _machine(target)
    return m, _table(m, TABLE), _idx(m, [[1, 2]], 1, 8, valid=(1, 2)), \
        m.tile("Vec", "f32", 2, 8)


def test_operand_kinds() -> None:
    m, g, idx, dst = _ok()
    with pytest.raises(ptosim.PtoTypeError, match="MGATHER: dst must be a Tile"):
        m.MGATHER(g, g, idx)
    with pytest.raises(ptosim.PtoTypeError, match="MGATHER: idx must be a Tile"):
        m.MGATHER(dst, g, g)
    with pytest.raises(ptosim.PtoTypeError, match="MGATHER: table must be a GlobalTensor"):
        m.MGATHER(dst, dst, idx)
    with pytest.raises(ptosim.SpaceError, match="MGATHER: dst must be a Vec tile \\(UB\\), "
                                                "got Left"):
        m.MGATHER(m.tile("Left", "f16", 16, 16), g, idx)
    with pytest.raises(ptosim.NotImplementedOpError, match="MGATHER into a Mat tile"):
        m.MGATHER(m.tile("Mat", "f32", 16, 8, blayout="ColMajor", slayout="RowMajor"), g,
                  idx)
    with pytest.raises(ptosim.PtoValueError, match="coalesce must be one of row, elem, auto"):
        m.MGATHER(dst, g, idx, coalesce="Rows")
    with pytest.raises(ptosim.PtoValueError, match="oob must be one of undefined, clamp"):
        m.MGATHER(dst, g, idx, oob="Skip")


def test_index_tile_must_be_vec() -> None:
    m, g, idx, dst = _ok()
    ub_idx = m.tile("Mat", "i32", 16, 8, blayout="ColMajor", slayout="RowMajor")
    with pytest.raises(ptosim.SpaceError, match="MGATHER: idx must be a Vec tile"):
        m.MGATHER(dst, g, ub_idx)


def test_dtypes() -> None:
    m2, g2, idx2, _ = _ok("a2a3")
    with pytest.raises(ptosim.DtypeError, match=r"dst element type i64 is not one of .* on "
                                                r"a2a3"):
        m2.MGATHER(m2.tile("Vec", "i64", 2, 8), g2, idx2)
    m, g, idx, dst = _ok()
    with pytest.raises(ptosim.DtypeError, match="dst element type i64 is not one of"):
        m.MGATHER(m.tile("Vec", "i64", 2, 8), g, idx)
    with pytest.raises(ptosim.DtypeError, match="idx element type must be i32 or ui32, got "
                                                "i16"):
        m.MGATHER(dst, g, m.tile("Vec", "i16", 1, 16, valid=(1, 2)))
    with pytest.raises(ptosim.DtypeError, match="table element type f32 must match dst's f16"):
        m.MGATHER(m.tile("Vec", "f16", 2, 16, valid=(2, 8)), g, idx)


def test_row_index_shapes() -> None:
    m, g, _, dst = _ok()
    with pytest.raises(ptosim.VerifyError, match=r"Coalesce::Row needs an index tile of "
                                                 r"valid shape \[1, 2\] or \[2, 1\] on a5, "
                                                 r"got \[1, 3\]"):
        m.MGATHER(dst, g, _idx(m, [[1, 2, 3]], 1, 8, valid=(1, 3)))
    with pytest.raises(ptosim.VerifyError, match=r"a \[2, 1\] index tile must be ColMajor"):
        m.MGATHER(dst, g, _idx(m, [[1], [2]], 2, 8, valid=(2, 1)))
    m2, g2, _, dst2 = _ok("a2a3")
    with pytest.raises(ptosim.VerifyError, match=r"valid shape \[1, 2\] on a2a3, got "
                                                 r"\[2, 1\]"):
        m2.MGATHER(dst2, g2, _idx(m2, [[1], [2]], 2, 8, valid=(2, 1)))


def test_elem_index_shape() -> None:
    m, g, _, dst = _ok()
    with pytest.raises(ptosim.VerifyError, match=r"Coalesce::Elem needs the index tile's "
                                                 r"valid shape to equal dst's \[2, 8\], got "
                                                 r"\[1, 8\]"):
        m.MGATHER(dst, g, _idx(m, [[0] * 8], 1, 8), coalesce="Elem")


def test_a5_row_table_rules() -> None:
    m, g, idx, _ = _ok()
    with pytest.raises(ptosim.VerifyError, match=r"Shape\[4\] \(8\) to equal dst's valid "
                                                 r"columns \(6\)"):
        m.MGATHER(m.tile("Vec", "f32", 2, 8, valid=(2, 6)), g, idx)
    padded = m.global_tensor(m.gm(np.zeros(160, np.float32)), (1, 1, 1, 10, 8),
                             (0, 0, 0, 16, 1))
    with pytest.raises(ptosim.VerifyError, match="rows packed 8 elements apart"):
        m.MGATHER(m.tile("Vec", "f32", 2, 8), padded, idx)


def test_a5_layout_rules() -> None:
    m, g, idx, dst = _ok()
    nz = m.global_tensor(g.ptr, (1, 1, 1, 16, 8), (0, 0, 0, 8, 1), layout="NZ")
    with pytest.raises(ptosim.VerifyError, match="the table must be ND on a5"):
        m.MGATHER(dst, nz, idx)
    boxed = m.tile("Vec", "f32", 16, 8, blayout="ColMajor", slayout="RowMajor",
                   valid=(2, 8))
    with pytest.raises(ptosim.VerifyError, match="dst must be a RowMajor or ColMajor tile "
                                                 "without boxes on a5"):
        m.MGATHER(boxed, g, idx)


def test_a2a3_layout_rules() -> None:
    m, g, idx, dst = _ok("a2a3")
    col_idx = _idx(m, [[1, 2]], 8, 2, valid=(1, 2), blayout="ColMajor")
    with pytest.raises(ptosim.VerifyError, match=r"the index tile must be ND .* on a2a3, got "
                                                 r"ColMajor/NoneBox"):
        m.MGATHER(dst, g, col_idx)
    dn = m.global_tensor(g.ptr, (1, 1, 1, 10, 8), (0, 0, 0, 1, 10), layout="DN")
    with pytest.raises(ptosim.VerifyError, match="the table must be ND or NZ on a2a3, got DN"):
        m.MGATHER(dst, dn, idx)
    nz_dst = m.tile("Vec", "f32", 16, 8, blayout="ColMajor", slayout="RowMajor",
                    valid=(2, 8))
    with pytest.raises(ptosim.VerifyError, match=r"an ND table pairs with an ND .* dst tile "
                                                 "on a2a3, got ColMajor/RowMajor"):
        m.MGATHER(nz_dst, g, idx)
    nz = _nz_table(m, np.zeros((16, 8), np.float32), 8)
    with pytest.raises(ptosim.VerifyError, match="an NZ table pairs with an NZ"):
        m.MGATHER(dst, nz, idx)
    narrow = m._new_tile("Vec", "f32", 2, 6, None, None, None, None, "Null", None, 0,
                         row_align=False)
    with pytest.raises(ptosim.AlignmentError, match=r"dst's padded row \(6 x 4 B\) must be "
                                                    r"a multiple of 32 B on a2a3"):
        m.MGATHER(narrow, g, idx)


def test_a2a3_nz_rules() -> None:
    m = _machine("a2a3")
    idx = _idx(m, [[1, 2]], 1, 8, valid=(1, 2))
    bad = m.global_tensor(m.gm(np.zeros(256, np.float32)), (1, 1, 1, 32, 8),
                          (0, 0, 0, 8, 1), layout="NZ")
    dst = m.tile("Vec", "f32", 16, 8, blayout="ColMajor", slayout="RowMajor", valid=(2, 8))
    with pytest.raises(ptosim.VerifyError, match=r"an NZ table needs Shape\[3\] = 16 and "
                                                 r"Shape\[4\] = C0 = 8"):
        m.MGATHER(dst, bad, idx)
    g = _nz_table(m, np.zeros((16, 16), np.float32), 8)
    short = m.tile("Vec", "f16", 8, 16, blayout="ColMajor", slayout="RowMajor", valid=(2, 16))
    g16 = _nz_table(m, np.zeros((16, 16), np.float16), 16)
    with pytest.raises(ptosim.VerifyError, match="Rows a multiple of 16, got 8x16"):
        m.MGATHER(short, g16, idx)
    with pytest.raises(ptosim.VerifyError, match="copies whole logical rows of 16 columns, "
                                                 "wider than dst's 8"):
        m.MGATHER(dst, g, idx)


def test_undefined_out_of_range_is_an_error() -> None:
    m, g, _, dst = _ok()
    with pytest.raises(ptosim.PtoValueError, match=r"index 10 at \[1\] is out of range "
                                                   r"\(capacity 10\); with OOB mode undefined"):
        m.MGATHER(dst, g, _idx(m, [[3, 10]], 1, 8, valid=(1, 2)))
    with pytest.raises(ptosim.PtoValueError, match="index 4294967295 at"):
        m.MGATHER(dst, g, _idx(m, [[-1] * 8, [0] * 8], 2, 8), coalesce="Elem")


# --- .pto ----------------------------------------------------------------------------------
def _pto(target: str, idx_shape: tuple[int, int], attrs: str = "", flag: str = "PIPE_V"):
    dst_t = tile_buf("f32", 4, 8)
    idx_t = tile_buf("i32", *idx_shape)
    body = (f"pto.mgather ins(%t, %ix : !pto.partition_tensor_view<10x8xf32>, {idx_t}) "
            f"outs(%d : {dst_t}){attrs}")
    text = vec_kernel(body, target=target,
                      params="%g: !pto.ptr<f32, gm>, %i: !pto.ptr<i32, gm>, "
                             "%o: !pto.ptr<f32, gm>",
                      views={"t": ("g", "f32", 10, 8), "iv": ("i", "i32", *idx_shape),
                             "q": ("o", "f32", 4, 8)},
                      tiles={"d": dst_t, "ix": idx_t}, loads=[("iv", "ix")],
                      stores=[("d", "q")])
    return text.replace('["PIPE_V", "PIPE_MTE3"', f'["{flag}", "PIPE_MTE3"')


@pytest.mark.parametrize("target, pipe", [("a5", "PIPE_V"), ("a2a3", "PIPE_MTE2")])
def test_pto_row_gather_and_its_pipe(target: str, pipe: str) -> None:
    """A [1, 4] row-major index tile picks Row; the store waits on the target's pipe."""
    idx = np.array([[7, 2, 12, 0]], np.int32)
    inputs = {"g": TABLE, "i": idx, "o": np.zeros((4, 8), np.float32)}
    res = Kernel.from_text(_pto(target, (1, 4), " {gatherOob = #pto<gather_oob zero>}",
                                pipe), "k.pto").run(inputs)
    assert res.findings == []
    want = np.where((idx[0] < 10)[:, None], TABLE[np.minimum(idx[0], 9)], 0)
    np.testing.assert_array_equal(res.outputs["o"], want)
    other = "PIPE_MTE2" if target == "a5" else "PIPE_V"
    res = Kernel.from_text(_pto(target, (1, 4), " {gatherOob = #pto<gather_oob zero>}",
                                other), "k.pto").run(inputs)
    assert res.findings != []          # the store does not wait for the gather's pipe


def test_pto_elem_gather_by_index_shape() -> None:
    idx = ((np.arange(32) * 13) % 80).reshape(4, 8).astype(np.int32)
    res = Kernel.from_text(_pto("a5", (4, 8)), "k.pto").run(
        {"g": TABLE, "i": idx, "o": np.zeros((4, 8), np.float32)})
    assert res.findings == []
    np.testing.assert_array_equal(res.outputs["o"], TABLE.ravel()[idx])


def test_pto_rejects_an_unknown_attribute() -> None:
    with pytest.raises(ptosim.PtoSyntaxError, match=r"pto.mgather: unsupported attribute "
                                                    r"'scatterOob'"):
        Kernel.from_text(_pto("a5", (1, 4), " {scatterOob = #pto<scatter_oob skip>}"),
                         "k.pto")
