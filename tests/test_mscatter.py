"""MSCATTER: Row / Elem scatters from a Vec tile into a GM table under every OOB policy,
collisions (last writer; a5 Default refuses disagreeing writers), atomic Add / Max / Min per
target, a2a3 NZ pairs, rules, and the `.pto` form with its pipes. Goldens replay the
stores one by one in source order on a numpy copy of the table."""

from __future__ import annotations

import numpy as np
import pytest

import ptosim
from ptosim.kernel import Kernel
from test_mgather import _idx, _machine, _nz_table
from tile_helpers import tile_buf, vec_kernel


def _put(m, t, a: np.ndarray) -> None:
    full = np.zeros((t.rows, t.cols), a.dtype)
    full[:a.shape[0], :a.shape[1]] = a
    m.write(t.ptr, full.ravel())


def _replay(table: np.ndarray, targets, values, combine=None) -> np.ndarray:
    """Independent golden: a Python loop of single stores in source order."""
    out = table.copy().ravel()
    for t, v in zip(targets, values):
        if t is None:
            continue
        out[t] = v if combine is None else combine(out[t], v)
    return out.reshape(table.shape)


def _oob(i: int, n: int, oob: str):
    if oob == "Skip":
        return None if i >= n else i
    if oob == "Clamp":
        return min(i, n - 1)
    if oob == "Wrap":
        return i % n
    return i


@pytest.mark.parametrize("target", ["a5", "a2a3"])
@pytest.mark.parametrize("oob", ["Skip", "Clamp", "Wrap"])
def test_row_scatter(target: str, oob: str) -> None:
    """Rows 1 and 3 collide on table row 2 (and row 4 after remapping): last one wins."""
    m = _machine(target)
    table = np.full((6, 8), -1, np.float32)
    out = m.gm(table)
    g = m.global_tensor(out, (1, 1, 1, 6, 8), (0, 0, 0, 8, 1))
    src_vals = np.arange(5 * 8, dtype=np.float32).reshape(5, 8) + 10
    src = m.tile("Vec", "f32", 5, 8)
    _put(m, src, src_vals)
    raw = [2, 2, 9, 0, 16]
    m.MSCATTER(g, src, _idx(m, [raw], 1, 8, valid=(1, 5)), oob=oob)
    want = table.copy()
    for r, i in enumerate(raw):
        t = _oob(i, 6, oob)
        if t is not None:
            want[t] = src_vals[r]
    np.testing.assert_array_equal(m.read(out, 48).reshape(6, 8), want)


@pytest.mark.parametrize("target", ["a5", "a2a3"])
@pytest.mark.parametrize("oob", ["Skip", "Clamp", "Wrap"])
def test_elem_scatter(target: str, oob: str) -> None:
    m = _machine(target)
    table = np.arange(40, dtype=np.int32) * -1
    out = m.gm(table)
    g = m.global_tensor(out, (1, 1, 1, 5, 8), (0, 0, 0, 8, 1))
    vals = np.arange(3 * 6, dtype=np.int32).reshape(3, 6) + 100
    src = m.tile("Vec", "i32", 3, 8, valid=(3, 6))
    _put(m, src, vals)
    raw = (np.arange(18).reshape(3, 6) * 7) % 47     # collisions and a few out of range
    m.MSCATTER(g, src, _idx(m, raw, 3, 8, valid=(3, 6)), coalesce="Elem", oob=oob)
    want = _replay(table, [_oob(int(i), 40, oob) for i in raw.ravel()], vals.ravel())
    np.testing.assert_array_equal(m.read(out, 40), want)


def test_a2a3_row_scatter_follows_the_row_stride() -> None:
    m = _machine("a2a3")
    table = np.zeros((4, 16), np.float32)
    out = m.gm(table)
    g = m.global_tensor(out, (1, 1, 1, 4, 5), (0, 0, 0, 16, 1))
    src = m.tile("Vec", "f32", 2, 8, valid=(2, 5))
    vals = np.arange(10, dtype=np.float32).reshape(2, 5) + 1
    _put(m, src, vals)
    m.MSCATTER(g, src, _idx(m, [[3, 1]], 1, 8, valid=(1, 2)))
    want = table.copy()
    want[3, :5], want[1, :5] = vals[0], vals[1]
    np.testing.assert_array_equal(m.read(out, 64).reshape(4, 16), want)


@pytest.mark.parametrize("target, dt", [("a5", "f32"), ("a5", "i32"), ("a5", "ui32"),
                                        ("a2a3", "f32"), ("a2a3", "i16"), ("a2a3", "i8")])
@pytest.mark.parametrize("coalesce", ["Row", "Elem"])
def test_atomic_add_accumulates_duplicates(target: str, dt: str, coalesce: str) -> None:
    m = _machine(target)
    npd = ptosim.dtype(dt).np
    cols = 32 // npd.itemsize
    table = (np.arange(4 * cols) % 50).astype(npd).reshape(4, cols)
    out = m.gm(table)
    g = m.global_tensor(out, (1, 1, 1, 4, cols), (0, 0, 0, cols, 1))
    vals = ((np.arange(3 * cols) * 9) % 120).astype(npd).reshape(3, cols)
    src = m.tile("Vec", dt, 3, cols)
    _put(m, src, vals)
    if coalesce == "Row":
        raw = [1, 3, 1]
        idx = _idx(m, [raw], 1, 8, valid=(1, 3))
        targets = [r * cols + j for r in raw for j in range(cols)]
    else:
        raw = (np.arange(3 * cols).reshape(3, cols) * 5) % (4 * cols)
        idx = _idx(m, raw, 3, cols, valid=(3, cols))
        targets = list(raw.ravel())
    m.MSCATTER(g, src, idx, coalesce=coalesce, atomic="Add")
    wrap = np.iinfo(npd) if npd.kind in "iu" else None

    def add(a, b):
        s = int(a) + int(b) if wrap else float(a) + float(b)
        if wrap:
            s = (s - wrap.min) % (1 << (8 * npd.itemsize)) + wrap.min
        return npd.type(s)
    want = _replay(table, targets, vals.ravel(), add)
    np.testing.assert_array_equal(m.read(out, 4 * cols).reshape(4, cols), want)


@pytest.mark.parametrize("target", ["a5", "a2a3"])
def test_half_atomic_add_rounds_each_sum(target: str) -> None:
    """2048 + 1 + 1 in f16 stays 2048 (each sum rounds to even), not 2050."""
    m = _machine(target)
    out = m.gm(np.full(16, 2048, np.float16))
    g = m.global_tensor(out, (1, 1, 1, 1, 16), (0, 0, 0, 16, 1))
    src = m.tile("Vec", "f16", 1, 16)
    _put(m, src, np.ones((1, 16), np.float16))
    idx = _idx(m, [[0, 0, 1, 1, 1, 2] + list(range(3, 13))], 1, 16)
    m.MSCATTER(g, src, idx, coalesce="Elem", atomic="Add")
    want = _replay(np.full(16, 2048, np.float16), [0, 0, 1, 1, 1, 2, *range(3, 13)],
                   np.ones(16, np.float16),
                   lambda a, b: np.float16(np.float32(a) + np.float32(b)))
    np.testing.assert_array_equal(m.read(out, 16), want)
    assert m.read(out, 16)[0] == 2048


@pytest.mark.parametrize("how, fn", [("Max", max), ("Min", min)])
@pytest.mark.parametrize("dt", ["f32", "i32", "ui32"])
def test_a5_atomic_max_min(how: str, fn, dt: str) -> None:
    m = _machine("a5")
    npd = ptosim.dtype(dt).np
    table = (np.arange(16) * 3 % 17).astype(npd)
    out = m.gm(table)
    g = m.global_tensor(out, (1, 1, 1, 2, 8), (0, 0, 0, 8, 1))
    vals = ((np.arange(16) * 5) % 23).astype(npd).reshape(2, 8)
    src = m.tile("Vec", dt, 2, 8)
    _put(m, src, vals)
    raw = (np.arange(16).reshape(2, 8) * 3) % 16
    m.MSCATTER(g, src, _idx(m, raw, 2, 8), coalesce="Elem", atomic=how)
    want = _replay(table, list(raw.ravel()), vals.ravel(), fn)
    np.testing.assert_array_equal(m.read(out, 16), want)


def test_a5_default_conflict() -> None:
    """Default: agreeing colliders are fine; disagreeing ones are the scheduler's pick."""
    m = _machine("a5")
    out = m.gm(np.zeros(16, np.float32))
    g = m.global_tensor(out, (1, 1, 1, 1, 16), (0, 0, 0, 16, 1))
    src = m.tile("Vec", "f32", 1, 8)
    _put(m, src, np.array([[1, 2, 3, 3, 5, 6, 7, 8]], np.float32))
    m.MSCATTER(g, src, _idx(m, [[0, 1, 2, 2, 4, 5, 6, 7]], 1, 8), coalesce="Elem",
               conflict="Default")
    np.testing.assert_array_equal(m.read(out, 8), [1, 2, 3, 0, 5, 6, 7, 8])
    with pytest.raises(ptosim.PtoValueError, match="several sources store different values "
                                                   "to table element 1; under "
                                                   "ScatterConflict::Default"):
        m.MSCATTER(g, src, _idx(m, [[0, 1, 1, 3, 4, 5, 6, 7]], 1, 8), coalesce="Elem",
                   conflict="Default")


def test_a2a3_nz_scatter() -> None:
    """Row: whole logical rows of the NZ table from the NZ tile; Elem: (idx // cols,
    idx % cols) of the logical matrix."""
    m = _machine("a2a3")
    logical = np.zeros((32, 16), np.float32)
    g = _nz_table(m, logical, 8)
    src = m.tile("Vec", "f32", 16, 16, blayout="ColMajor", slayout="RowMajor", valid=(2, 16))
    vals = np.arange(16 * 16, dtype=np.float32).reshape(16, 16) + 1
    m.write(src.ptr, vals.reshape(16, 2, 8).transpose(1, 0, 2).ravel())   # NZ tile bytes
    m.MSCATTER(g, src, _idx(m, [[30, 3]], 1, 8, valid=(1, 2)))
    want = logical.copy()
    want[30], want[3] = vals[0], vals[1]
    enc = m.read(g.ptr, 512).reshape(2, 2, 16, 8)         # [col block][row block][r][k]
    np.testing.assert_array_equal(enc.transpose(1, 2, 0, 3).reshape(32, 16), want)
    e = m.tile("Vec", "f32", 16, 16, blayout="ColMajor", slayout="RowMajor", valid=(2, 5),
               addr=src.ptr.offset)
    raw = np.array([[0, 17, 511, 600, 40], [16, 33, 8, 9, 200]])
    m.MSCATTER(g, e, _idx(m, raw, 2, 8, valid=(2, 5)), coalesce="Elem", oob="Skip")
    want = _replay(want, [int(i) if i < 512 else None for i in raw.ravel()],
                   vals[:2, :5].ravel())
    np.testing.assert_array_equal(m.read(g.ptr, 512).reshape(2, 2, 16, 8)
                                  .transpose(1, 2, 0, 3).reshape(32, 16), want)


# --- rules --------------------------------------------------------------------------------
def _ok(target="a5", dt="f32"):
    m = _machine(target)
    npd = ptosim.dtype(dt).np
    g = m.global_tensor(m.gm(np.zeros(64, npd)), (1, 1, 1, 8, 8), (0, 0, 0, 8, 1))
    cols = max(8, 32 // npd.itemsize)
    return m, g, _idx(m, [[1, 2]], 1, 8, valid=(1, 2)), \
        m.tile("Vec", dt, 2, cols, valid=(2, 8))


def test_atomic_dtype_rules() -> None:
    m, g, idx, src = _ok("a2a3")
    with pytest.raises(ptosim.DtypeError, match="atomic max on a2a3 takes no element type, "
                                                "got f32"):
        m.MSCATTER(g, src, idx, atomic="Max")
    m, g, idx, src = _ok("a2a3", "ui32")
    with pytest.raises(ptosim.DtypeError, match="atomic add on a2a3 takes bf16, f16, f32, "
                                                "i16, i32, i8, si16, si32, si8, got ui32"):
        m.MSCATTER(g, src, idx, atomic="Add")
    m, g, idx, src = _ok("a5", "i16")
    with pytest.raises(ptosim.DtypeError, match=r"atomic add on a5 takes .*, got i16"):
        m.MSCATTER(g, src, idx, atomic="Add")
    m, g, idx, src = _ok("a5", "f16")
    with pytest.raises(ptosim.DtypeError, match="atomic min on a5 takes f32, i32, si32, "
                                                "ui32, got f16"):
        m.MSCATTER(g, src, idx, atomic="Min")


def test_policy_rules() -> None:
    m, g, idx, src = _ok("a2a3")
    with pytest.raises(ptosim.VerifyError, match="a2a3 has no ScatterConflict policy"):
        m.MSCATTER(g, src, idx, conflict="Last")
    m, g, idx, src = _ok()
    with pytest.raises(ptosim.PtoValueError, match="oob must be one of undefined, skip, "
                                                   "clamp, wrap, got 'Zero'"):
        m.MSCATTER(g, src, idx, oob="Zero")
    with pytest.raises(ptosim.PtoValueError, match="atomic must be one of none, add"):
        m.MSCATTER(g, src, idx, atomic="Sub")
    with pytest.raises(ptosim.PtoValueError, match="conflict must be one of last, default"):
        m.MSCATTER(g, src, idx, conflict="First")
    with pytest.raises(ptosim.SpaceError, match="MSCATTER: src must be a Vec tile"):
        m.MSCATTER(g, m.tile("Mat", "f32", 16, 8, blayout="ColMajor", slayout="RowMajor"),
                   idx)
    with pytest.raises(ptosim.PtoValueError, match=r"index 8 at \[0\] is out of range "
                                                   r"\(capacity 8\).*skip"):
        m.MSCATTER(g, src, _idx(m, [[8, 2]], 1, 8, valid=(1, 2)))


# --- .pto ----------------------------------------------------------------------------------
def scatter_text(target: str) -> str:
    """A kernel loading an index and a source tile, then an atomic wrapping mscatter."""
    src_t, idx_t = tile_buf("f32", 4, 8), tile_buf("i32", 1, 4)
    body = (f"pto.mscatter ins(%s, %ix : {src_t}, {idx_t}) outs(%t : "
            f"!pto.partition_tensor_view<10x8xf32>) "
            f"{{scatterAtomicOp = #pto<scatter_atomic_op add>, "
            f"scatterOob = #pto<scatter_oob wrap>}}")
    text = vec_kernel(body, target=target,
                      params="%g: !pto.ptr<f32, gm>, %i: !pto.ptr<i32, gm>, "
                             "%sv: !pto.ptr<f32, gm>",
                      views={"t": ("g", "f32", 10, 8), "iv": ("i", "i32", 1, 4),
                             "sw": ("sv", "f32", 4, 8)},
                      tiles={"s": src_t, "ix": idx_t}, loads=[("iv", "ix"), ("sw", "s")])
    return text


@pytest.mark.parametrize("target, pipe", [("a5", "PIPE_V"), ("a2a3", "PIPE_MTE3")])
def test_pto_scatter(target: str, pipe: str) -> None:
    """The scatter waits for the loads of its tiles on its target's pipe (a flag
    MTE2 -> ``pipe``); waiting on the other pipe leaves a hazard."""
    text = scatter_text(target)
    table = np.ones((10, 8), np.float32)
    vals = np.arange(32, dtype=np.float32).reshape(4, 8)
    idx = np.array([[3, 13, 0, 9]], np.int32)
    inputs = {"g": table, "i": idx, "sv": vals}
    flagged = text.replace('"PIPE_MTE2", "PIPE_V"', f'"PIPE_MTE2", "{pipe}"')
    res = Kernel.from_text(flagged, "k.pto").run(inputs)
    assert res.findings == []
    want = _replay(table, [((i % 10) * 8 + j) for i in idx[0] for j in range(8)],
                   vals.ravel(), lambda a, b: a + b)
    np.testing.assert_array_equal(res.outputs["g"], want)
    other = "PIPE_MTE3" if pipe == "PIPE_V" else "PIPE_V"
    flagged = text.replace('"PIPE_MTE2", "PIPE_V"', f'"PIPE_MTE2", "{other}"')
    assert Kernel.from_text(flagged, "k.pto").run(inputs).findings != []


def test_pto_parses_and_prints() -> None:
    from ptosim.frontend.text import parse_module
    src_t, idx_t = tile_buf("f32", 4, 8), tile_buf("i32", 4, 8)
    body = (f"pto.mscatter ins(%s, %ix : {src_t}, {idx_t}) outs(%t : "
            f"!pto.partition_tensor_view<10x8xf32>) {{scatterOob = #pto<scatter_oob skip>}}")
    text = vec_kernel(body, target="a5", params="%g: !pto.ptr<f32, gm>",
                      views={"t": ("g", "f32", 10, 8)}, tiles={"s": src_t, "ix": idx_t})
    printed = str(parse_module(text, "k.pto"))
    assert "pto.mscatter ins(" in printed and "#pto.scatter_oob<skip>" in printed
