"""Tile and GlobalTensor layouts: index maps checked against formulas and numpy goldens."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from ptosim import PtoError, dtype as pto_dtype
from ptosim.layout import (
    copy_plan,
    fractal_box,
    gm_layout,
    gm_nz_canonical,
    layout_name,
    tile_layout,
)

NAMES = ("ND", "DN", "NZ", "ZN", "ZZ", "NN")
PAIRS = {
    "ND": ("RowMajor", "NoneBox"), "DN": ("ColMajor", "NoneBox"),
    "NZ": ("ColMajor", "RowMajor"), "ZN": ("RowMajor", "ColMajor"),
    "ZZ": ("RowMajor", "RowMajor"), "NN": ("ColMajor", "ColMajor"),
}
C0 = {"f16": 16, "bf16": 16, "f32": 8, "i8": 32}
SIZE = {"f16": 2, "bf16": 2, "f32": 4, "i8": 1}


def ref_box(name, dt, fractal):
    """Inner box IR x IC of the layout's SLayout (None for the box-less ND/DN)."""
    s = PAIRS[name][1]
    if s == "NoneBox":
        return None
    if fractal == 512:
        return (16, C0[dt]) if s == "RowMajor" else (C0[dt], 16)
    if fractal == 1024:
        return (16, 16)
    return (16, 2) if s == "RowMajor" else (2, 16)


def ref_offset(name, r, c, R, C, box):
    IR, IC = box if box else (1, 1)
    if name == "ND":
        return r * C + c
    if name == "DN":
        return c * R + r
    if name == "NZ":
        return (c // IC) * R * IC + r * IC + c % IC
    if name == "ZN":
        return (r // IR) * C * IR + c * IR + r % IR
    if name == "ZZ":
        return (r // IR) * C * IR + (c // IC) * IR * IC + (r % IR) * IC + c % IC
    assert name == "NN"
    return (c // IC) * R * IC + (r // IR) * IR * IC + (c % IC) * IR + r % IR


def ref_offsets(name, R, C, box):
    return np.array([[ref_offset(name, r, c, R, C, box) for c in range(C)] for r in range(R)],
                    dtype=np.int64)


def golden_buffer(name, M, box):
    R, C = M.shape
    IR, IC = box if box else (1, 1)
    if name == "ND":
        return M.ravel()
    if name == "DN":
        return M.T.ravel()
    if name == "NZ":
        return M.reshape(R, C // IC, IC).transpose(1, 0, 2).ravel()
    if name == "ZN":
        return M.reshape(R // IR, IR, C).transpose(0, 2, 1).ravel()
    if name == "ZZ":
        return M.reshape(R // IR, IR, C // IC, IC).transpose(0, 2, 1, 3).ravel()
    return M.reshape(R // IR, IR, C // IC, IC).transpose(2, 0, 3, 1).ravel()


CASES = [(name, dt, fr) for name in NAMES for dt in ("f16", "f32", "i8")
         for fr in (512, 1024, 32)]


def _shape(name, dt, fr):
    box = ref_box(name, dt, fr)
    if box is None:
        return box, 6, 10
    return box, 2 * box[0], 3 * box[1]


@pytest.mark.parametrize("name,dt,fr", CASES)
def test_tile_offsets_match_formula(name, dt, fr):
    box, R, C = _shape(name, dt, fr)
    lay = tile_layout(name, R, C, dt, fr)
    off = lay.offsets()
    assert off.dtype == np.int64 and off.shape == (R, C)
    assert (lay.rows, lay.cols) == (R, C)
    np.testing.assert_array_equal(off, ref_offsets(name, R, C, box))
    # dense tile: a bijection onto 0 .. R*C-1
    np.testing.assert_array_equal(np.sort(off.ravel()), np.arange(R * C))
    assert lay.span == off.max() + 1


@pytest.mark.parametrize("name,dt,fr", CASES)
def test_tile_scatter_matches_numpy_golden(name, dt, fr):
    box, R, C = _shape(name, dt, fr)
    M = np.arange(R * C, dtype=np.int64).reshape(R, C)
    buf = np.full(R * C, -1, dtype=np.int64)
    buf[tile_layout(name, R, C, dt, fr).offsets()] = M
    np.testing.assert_array_equal(buf, golden_buffer(name, M, box))


def test_layout_name_is_case_insensitive():
    np.testing.assert_array_equal(tile_layout("nz", 32, 32, "f16").offsets(),
                                  tile_layout("NZ", 32, 32, "f16").offsets())


@st.composite
def tile_case(draw):
    name = draw(st.sampled_from(NAMES))
    dt = draw(st.sampled_from(("f16", "f32", "i8", "bf16")))
    fr = draw(st.sampled_from((512, 1024, 32)))
    box = ref_box(name, dt, fr)
    if box is None:
        R, C = draw(st.integers(1, 128)), draw(st.integers(1, 128))
    else:
        R = draw(st.integers(1, 128 // box[0])) * box[0]
        C = draw(st.integers(1, 128 // box[1])) * box[1]
        if name == "NZ":          # only the column side of NZ must hold whole fractals
            R = draw(st.integers(1, 128))
    k = draw(st.integers(1, 8))
    seed = draw(st.integers(0, 2**32 - 1))
    return name, dt, fr, R, C, k, seed


def _uint(dt):
    return np.dtype(f"u{SIZE[dt]}")


@settings(max_examples=60, deadline=None)
@given(tile_case())
def test_view_fast_path_equals_index_map(case):
    name, dt, fr, R, C, k, seed = case
    rng = np.random.default_rng(seed)
    lay = tile_layout(name, R, C, dt, fr)
    isz = SIZE[dt]
    npdt = pto_dtype(dt).np
    off = lay.offsets()
    byte_offset = k * isz
    nbytes = byte_offset + lay.span * isz + 3 * isz
    base = rng.integers(0, 256, nbytes, dtype=np.uint8)

    # (a) reading
    got = lay.view(base, byte_offset, dt).reshape(R, C)
    assert got.dtype == npdt
    typed = base[byte_offset:byte_offset + lay.span * isz].view(_uint(dt))
    np.testing.assert_array_equal(got.view(_uint(dt)), typed[off])

    # (b) writing
    M = rng.integers(-100, 100, (R, C)).astype(np.float32).astype(npdt)
    via_view = base.copy()
    lay.view(via_view, byte_offset, dt)[...] = M.reshape(lay.shape)
    via_index = base.copy()
    via_index[byte_offset:byte_offset + lay.span * isz].view(npdt)[off] = M
    np.testing.assert_array_equal(via_view, via_index)
    # bytes outside [byte_offset, byte_offset + span) are untouched
    np.testing.assert_array_equal(via_view[:byte_offset], base[:byte_offset])
    np.testing.assert_array_equal(via_view[byte_offset + lay.span * isz:],
                                  base[byte_offset + lay.span * isz:])


@pytest.mark.parametrize("name", NAMES)
def test_valid_region(name):
    box, R, C = _shape(name, "f32", 512)
    lay = tile_layout(name, R, C, "f32")
    full = lay.offsets()
    for vr, vc in ((1, 1), (R - 1, C), (R, C - 3), (5, 7), (0, C), (R, C)):
        np.testing.assert_array_equal(lay.offsets(vr, vc), full[:vr, :vc])
    with pytest.raises(PtoError, match="exceeds"):
        lay.offsets(R + 1, C)
    with pytest.raises(PtoError, match="exceeds"):
        lay.offsets(R, C + 1)


def test_nz_single_row_mode_allowed():
    lay = tile_layout("NZ", 40, 64, "f16")
    np.testing.assert_array_equal(lay.offsets(), ref_offsets("NZ", 40, 64, (16, 16)))
    M = np.arange(40 * 64).reshape(40, 64)
    buf = np.empty(40 * 64, dtype=M.dtype)
    buf[lay.offsets()] = M
    np.testing.assert_array_equal(buf, golden_buffer("NZ", M, (16, 16)))


def test_zn_any_cols_allowed():
    lay = tile_layout("ZN", 32, 5, "f32")  # ColMajor box 8x16: rows must be whole
    np.testing.assert_array_equal(lay.offsets(), ref_offsets("ZN", 32, 5, (8, 16)))


@pytest.mark.parametrize("name,R,C", [("ZZ", 40, 64), ("NN", 40, 64), ("NZ", 32, 40),
                                      ("ZN", 40, 32), ("ZZ", 32, 40)])
def test_partial_fractal_rejected(name, R, C):
    with pytest.raises(PtoError, match="whole number"):
        tile_layout(name, R, C, "f16")


def test_tile_layout_errors():
    with pytest.raises(PtoError, match="unknown tile layout"):
        tile_layout("XY", 16, 16, "f16")
    with pytest.raises(PtoError, match="fractal size"):
        tile_layout("NZ", 32, 32, "f16", 256)


@pytest.mark.parametrize("dt", ["f16", "f32", "i8"])
def test_fractal_box(dt):
    c0 = C0[dt]
    assert fractal_box(dt, "RowMajor") == (16, c0)
    assert fractal_box(dt, "RowMajor", 512) == (16, c0)
    assert fractal_box(dt, "ColMajor", 512) == (c0, 16)
    assert fractal_box(dt, "RowMajor", 1024) == (16, 16)
    assert fractal_box(dt, "ColMajor", 1024) == (16, 16)
    assert fractal_box(dt, "RowMajor", 32) == (16, 2)
    assert fractal_box(dt, "ColMajor", 32) == (2, 16)


def test_fractal_box_errors():
    with pytest.raises(PtoError, match="fractal size"):
        fractal_box("f16", "RowMajor", 256)
    with pytest.raises(PtoError, match="no fractal box"):
        fractal_box("f16", "NoneBox")


def test_layout_name_round_trip():
    for name, (b, s) in PAIRS.items():
        assert layout_name(b, s) == name
    with pytest.raises(PtoError, match="no layout"):
        layout_name("RowMajor", "Foo")


# --- GlobalTensor 5-D views --------------------------------------------------------------

def ref_gm_offsets(kind, shape, stride):
    s0, s1, s2, s3, s4 = shape
    if kind == "ND":
        rows, cols = s0 * s1 * s2 * s3, s4
    elif kind == "DN":
        rows, cols = s3, s0 * s1 * s2 * s4
    else:
        rows, cols = s2 * s3, s0 * s1 * s4
    out = np.zeros((rows, cols), dtype=np.int64)
    for r in range(rows):
        for c in range(cols):
            if kind == "ND":
                i = (r // (s1 * s2 * s3), (r // (s2 * s3)) % s1, (r // s3) % s2, r % s3, c)
            elif kind == "DN":
                q = c // s4
                i = (q // (s1 * s2), (q // s2) % s1, q % s2, r, c % s4)
            else:
                q = c // s4
                i = (q // s1, q % s1, r // s3, r % s3, c % s4)
            out[r, c] = sum(a * b for a, b in zip(i, stride))
    return out


@settings(max_examples=60, deadline=None)
@given(kind=st.sampled_from(("ND", "DN", "NZ")),
       shape=st.tuples(*[st.integers(1, 3)] * 5),
       stride=st.tuples(*[st.integers(0, 97)] * 5),
       seed=st.integers(0, 2**32 - 1))
def test_gm_layout_matches_reference(kind, shape, stride, seed):
    lay = gm_layout(kind, shape, stride)
    ref = ref_gm_offsets(kind, shape, stride)
    off = lay.offsets()
    np.testing.assert_array_equal(off, ref)
    assert lay.span == ref.max() + 1
    # strided view reads the same elements as the index map
    buf = np.random.default_rng(seed).integers(0, 256, 4 + lay.span * 4, dtype=np.uint8)
    got = lay.view(buf, 4, "f32").reshape(off.shape).view(np.uint32)
    np.testing.assert_array_equal(got, buf[4:].view(np.uint32)[off])


def test_gm_layout_packed_nd_is_row_major():
    shape = (2, 3, 2, 4, 5)
    stride = tuple(int(np.prod(shape[k + 1:])) for k in range(5))
    lay = gm_layout("ND", shape, stride)
    np.testing.assert_array_equal(lay.offsets(), np.arange(2 * 3 * 2 * 4 * 5).reshape(48, 5))


@pytest.mark.parametrize("dt,rows,cols", [("f16", 32, 48), ("f32", 16, 24), ("i8", 48, 64),
                                          ("f32", 64, 8)])
def test_gm_nz_canonical(dt, rows, cols):
    c0 = C0[dt]
    shape, stride = gm_nz_canonical(rows, cols, dt)
    assert shape == (1, cols // c0, rows // 16, 16, c0)
    packed = tuple(int(np.prod(shape[k + 1:])) for k in range(5))
    assert stride == packed
    np.testing.assert_array_equal(gm_layout("NZ", shape, stride).offsets(),
                                  tile_layout("NZ", rows, cols, dt).offsets())


def test_gm_layout_errors():
    with pytest.raises(PtoError, match="5 sizes"):
        gm_layout("ND", (1, 2, 3, 4), (24, 12, 4, 1))
    with pytest.raises(PtoError, match="5 sizes"):
        gm_layout("ND", (1, 1, 2, 3, 4), (24, 12, 4, 1))
    with pytest.raises(PtoError, match="unknown GlobalTensor layout"):
        gm_layout("ZZ", (1, 1, 1, 1, 1), (1, 1, 1, 1, 1))
    with pytest.raises(PtoError, match="canonical NZ"):
        gm_nz_canonical(20, 32, "f16")
    with pytest.raises(PtoError, match="canonical NZ"):
        gm_nz_canonical(32, 20, "f16")


def test_view_checks_buffer_size():
    lay = tile_layout("ND", 16, 16, "f32")
    with pytest.raises(PtoError, match="needs 1088 bytes, the buffer has 1024"):
        lay.view(np.zeros(1024, np.uint8), 64, "f32")


LAYOUTS_512 = ("ND", "DN", "NZ", "ZN", "ZZ", "NN")


@settings(max_examples=80, deadline=None)
@given(src=st.sampled_from(LAYOUTS_512), dst=st.sampled_from(LAYOUTS_512),
       dt=st.sampled_from(("f16", "f32", "i8")), transpose=st.booleans(),
       blocks=st.tuples(*[st.integers(1, 4)] * 4), extra=st.tuples(*[st.integers(0, 2)] * 2))
def test_copy_plan_moves_the_logical_matrix(src, dst, dt, transpose, blocks, extra):
    """The one-copy plan between two layouts against the index maps: dst's logical matrix
    (or its transpose) equals src's leading region, and nothing else of dst is touched."""
    c0 = 32 // SIZE[dt]
    box = 2 * max(16, c0)                 # a multiple of every box side of these layouts
    rows, cols = blocks[0] * box, blocks[1] * box
    d = tile_layout(dst, rows, cols, dt)
    s_rows, s_cols = (cols, rows) if transpose else (rows, cols)
    s = tile_layout(src, s_rows + extra[0] * box, s_cols + extra[1] * box, dt)
    plan = copy_plan(s, d, transpose)
    assert plan is not None               # whole boxes always line up
    shape, ss, ds = plan
    src_buf = np.arange(s.span, dtype=np.int64)
    got = np.full(d.span, -1, np.int64)
    strided = np.lib.stride_tricks.as_strided
    strided(got, shape, [x * 8 for x in ds])[...] = strided(src_buf, shape, [x * 8 for x in ss])
    logical = src_buf[s.offsets()]
    want = np.full(d.span, -1, np.int64)
    want[d.offsets()] = logical[:cols, :rows].T if transpose else logical[:rows, :cols]
    np.testing.assert_array_equal(got, want)


def test_copy_plan_refuses_regions_that_cut_a_box():
    # 24 rows of an NZ image split its 16-row boxes unevenly against a 16 x 16 ZZ box
    nz = tile_layout("NZ", 64, 32, "f16")
    assert copy_plan(nz, tile_layout("ND", 24, 32, "f16")) is not None   # ND rows are free
    assert copy_plan(tile_layout("ZZ", 64, 32, "f16"), tile_layout("ND", 24, 32, "f16")) is None
