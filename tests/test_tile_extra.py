"""Further vector tile ops (ptosim.isa.tile_extra / tile_shape rows, ptosim.tile.extra / shape
semantics): TTRANS, TADDC / TSUBC, TAXPY, TPARTARGMAX / TPARTARGMIN, TCONCAT against
explicit-loop goldens, the exact write footprint (a sentinel everywhere else), per-target
rules (a2a3 / a5) with their error type and message, and the text forms."""

import numpy as np
import pytest

import ptosim
from ptosim.errors import DtypeError, PtoTypeError, VerifyError
from ptosim.kernel import Kernel
from tile_helpers import NP as _NP

NP = {**_NP, "ui32": np.uint32}
SENTINEL = 0x5A
ALL = ["bf16", "f16", "f32", "i16", "i32", "i8", "ui16", "ui32", "ui8"]


def mk(target="a5"):
    return ptosim.Machine(target=target)


def cols_for(dt, n):
    """Columns of an ND tile holding at least n elements per row (rows are 32 B)."""
    per = 32 // np.dtype(NP[dt]).itemsize
    return -(-n // per) * per


def blank(m, dt, rows, cols, valid=None):
    t = m.tile("Vec", dt, rows, cols, valid=valid)
    m.write(t.ptr.cast("ui8"), np.full(t.nbytes, SENTINEL, np.uint8))
    return t


def put(m, t, a):
    m.write(t.ptr, np.ascontiguousarray(a, dtype=NP[t.dtype.name]).ravel())


def whole(m, t):
    return m.read(t.ptr, t.rows * t.cols).reshape(t.rows, t.cols)


def raw(m, t):
    return m.read(t.ptr.cast("ui8"), t.nbytes).reshape(t.rows, t.cols * t.dtype.size)


def rand(dt, shape, seed):
    rng = np.random.default_rng(seed)
    if dt.startswith(("f", "bf")):
        return rng.uniform(-8, 8, shape).astype(NP[dt])
    info = np.iinfo(NP[dt])
    return rng.integers(max(info.min, -100), min(info.max, 100), shape).astype(NP[dt])


def untouched(m, t, region):
    """Bytes of t outside region (rows, element cols) still hold the sentinel."""
    r, c = region
    b = raw(m, t).copy()
    b[:r, :c * t.dtype.size] = SENTINEL
    assert (b == SENTINEL).all()


# --- TTRANS -----------------------------------------------------------------------------------
def trans_golden(a):
    rows, cols = a.shape
    out = np.empty((cols, rows), a.dtype)
    for i in range(rows):
        for j in range(cols):
            out[j, i] = a[i, j]
    return out


@pytest.mark.parametrize("dt", ALL)
@pytest.mark.parametrize("vr,vc", [(16, 16), (5, 7), (1, 40), (33, 3)])
def test_ttrans_a5_matches_loops_and_writes_only_the_transpose(dt, vr, vc):
    m = mk()
    src = blank(m, dt, vr, cols_for(dt, vc), valid=(vr, vc))
    a = rand(dt, (src.rows, src.cols), vr * 31 + vc)
    put(m, src, a)
    dst = blank(m, dt, vc + 2, cols_for(dt, vr + 1))
    tmp = blank(m, dt, 2, cols_for(dt, 8))
    m.TTRANS(dst, src, tmp)
    got = whole(m, dst)[:vc, :vr]
    np.testing.assert_array_equal(got.view(np.uint8), trans_golden(a[:vr, :vc]).view(np.uint8))
    untouched(m, dst, (vc, vr))
    untouched(m, tmp, (0, 0))                      # a5 does not use tmp


@pytest.mark.parametrize("dt", ["f32", "f16", "i8"])
@pytest.mark.parametrize("vr,vc", [(16, 8), (5, 7), (40, 3)])
def test_ttrans_a2a3_stages_in_tmp_and_copies_whole_blocks(dt, vr, vc):
    m = mk("a2a3")
    es = np.dtype(NP[dt]).itemsize
    ytile = 32 if es == 1 else 16
    src = blank(m, dt, vr, cols_for(dt, vc), valid=(vr, vc))
    a = rand(dt, (src.rows, src.cols), vr + vc)
    put(m, src, a)
    dst = blank(m, dt, vc + 1, -(-(vr + 1) // ytile) * ytile)
    stride = -(-vr // ytile) * ytile
    tmp = blank(m, dt, vc, stride)
    m.TTRANS(dst, src, tmp)
    want = trans_golden(a[:vr, :vc])
    # tmp: row j holds src column j in its first vr elements, the rest untouched
    np.testing.assert_array_equal(whole(m, tmp)[:vc, :vr].view(np.uint8), want.view(np.uint8))
    untouched(m, tmp, (vc, vr))
    # dst: each of the vc rows gets vr elements rounded up to whole 32 B blocks from tmp
    span = -(-vr * es // 32) * 32 // es
    np.testing.assert_array_equal(whole(m, dst)[:vc, :vr].view(np.uint8), want.view(np.uint8))
    assert (raw(m, dst)[:vc, vr * es:span * es] == SENTINEL).all()   # tmp's untouched bytes
    untouched(m, dst, (vc, span))


def test_ttrans_a2a3_element_path_without_tmp():
    """a2a3: a dst row stride that is not a whole number of 16-row tiles takes the element
    copy path, which needs no tmp and writes only the transpose."""
    m = mk("a2a3")
    src = blank(m, "f32", 4, 8, valid=(4, 8))
    put(m, src, np.arange(32))
    dst = blank(m, "f32", 8, 8)
    m.TTRANS(dst, src)
    np.testing.assert_array_equal(whole(m, dst)[:8, :4], np.arange(32).reshape(4, 8).T)
    untouched(m, dst, (8, 4))


def test_ttrans_rules():
    m = mk()
    src = m.tile("Vec", "f32", 8, 8, valid=(8, 6))
    with pytest.raises(DtypeError, match=r"TTRANS.*dst elements are 4 B but src's are 2 B"):
        m.TTRANS(m.tile("Vec", "f32", 8, 8), m.tile("Vec", "f16", 8, 16))
    with pytest.raises(DtypeError, match=r"TTRANS.*src element type must be one of .* got i64"):
        m.TTRANS(m.tile("Vec", "i64", 8, 8), m.tile("Vec", "i64", 8, 8))
    with pytest.raises(VerifyError, match=r"TTRANS.*dst \(4x8\) cannot hold the 6x8 transpose"):
        m.TTRANS(m.tile("Vec", "f32", 4, 8), src)
    with pytest.raises(PtoTypeError, match="TTRANS"):
        m.TTRANS(m.tile("Vec", "f32", 8, 8), src, 3)
    a2 = mk("a2a3")
    s2 = a2.tile("Vec", "f32", 16, 8, valid=(16, 8))
    with pytest.raises(VerifyError, match=r"TTRANS.*a2a3 transposes through tmp: pass a tmp "
                                          r"tile of at least 8 x 16 elements"):
        a2.TTRANS(a2.tile("Vec", "f32", 8, 16), s2)
    with pytest.raises(VerifyError, match=r"TTRANS.*tmp holds 64 elements but the transpose "
                                          r"of 16x8 needs 8 x 16 = 128"):
        a2.TTRANS(a2.tile("Vec", "f32", 8, 16), s2, a2.tile("Vec", "f32", 8, 8))


# --- TADDC / TSUBC ----------------------------------------------------------------------------
def ternary_golden(op, a, b, c, dt):
    out = np.empty(a.shape, NP[dt])
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            if dt.startswith(("f", "bf")):
                x = NP[dt](np.float32(a[i, j]) + np.float32(b[i, j]) if op == "TADDC"
                           else np.float32(a[i, j]) - np.float32(b[i, j]))
                out[i, j] = NP[dt](np.float32(x) + np.float32(c[i, j]))
            else:
                bits = np.dtype(NP[dt]).itemsize * 8
                x = int(a[i, j]) + int(b[i, j]) if op == "TADDC" else int(a[i, j]) - int(b[i, j])
                x += int(c[i, j])
                out[i, j] = np.array(x & ((1 << bits) - 1), np.uint64).astype(
                    np.dtype(f"u{bits // 8}")).view(NP[dt])
    return out


@pytest.mark.parametrize("op", ["TADDC", "TSUBC"])
@pytest.mark.parametrize("dt", ALL)
def test_taddc_tsubc_match_loops_over_the_valid_region(op, dt):
    m = mk()
    vr, vc = 3, 5
    cols = cols_for(dt, 8)
    tiles = []
    for k in range(3):
        t = blank(m, dt, 4, cols, valid=(vr, vc))
        put(m, t, rand(dt, (4, cols), k + 1))
        tiles.append(t)
    if not dt.startswith(("f", "bf")):        # integer wraparound
        put(m, tiles[0], np.full((4, cols), np.iinfo(NP[dt]).max, NP[dt]))
    dst = blank(m, dt, 4, cols, valid=(vr, vc))
    getattr(m, op)(dst, *tiles, cpu_sim_compat=True)
    a, b, c = (whole(m, t)[:vr, :vc] for t in tiles)
    want = ternary_golden(op, a, b, c, dt)
    np.testing.assert_array_equal(whole(m, dst)[:vr, :vc].view(np.uint8), want.view(np.uint8))
    untouched(m, dst, (vr, vc))


def test_taddc_rounds_after_each_add():
    """f16: (a + b) is rounded before c is added: 2048 + 1 + 1 = 2048 (not 2050)."""
    m = mk()
    t = [m.tile("Vec", "f16", 1, 16) for _ in range(4)]
    for x, v in zip(t[:3], (2048.0, 1.0, 1.0)):
        put(m, x, np.full(16, v))
    m.TADDC(t[3], *t[:3], cpu_sim_compat=True)
    assert whole(m, t[3])[0, 0] == np.float16(2048)


@pytest.mark.parametrize("target", ["a5", "a2a3"])
def test_taddc_tsubc_need_cpu_sim_compat(target):
    """No NPU code implements them (pto-isa's CPU simulator only): refused by default."""
    m = mk(target)
    t = [m.tile("Vec", "f32", 2, 8) for _ in range(4)]
    for op in ("TADDC", "TSUBC"):
        with pytest.raises(ptosim.NotImplementedOpError,
                           match=f"{op}: {target} has no NPU implementation \\(pto-isa "
                                 f"implements {op} in its CPU simulator only"):
            getattr(m, op)(*t)


def test_ternary_rules():
    m = mk()
    a = m.tile("Vec", "f32", 2, 8)
    with pytest.raises(DtypeError, match=r"TADDC.*src1 is f16 but dst is f32"):
        m.TADDC(a, a, m.tile("Vec", "f16", 2, 16), a, cpu_sim_compat=True)
    with pytest.raises(VerifyError, match=r"TSUBC.*src2's valid region 1x8 differs from "
                                          r"dst's 2x8"):
        m.TSUBC(a, a, a, m.tile("Vec", "f32", 2, 8, valid=(1, 8)), cpu_sim_compat=True)
    a2 = mk("a2a3")
    b = a2.tile("Vec", "i8", 2, 32)
    with pytest.raises(DtypeError, match=r"TADDC.*dst element type must be one of f16, f32, "
                                         r"i16, i32 on a2a3, got i8"):
        a2.TADDC(b, b, b, b, cpu_sim_compat=True)


# --- TAXPY ------------------------------------------------------------------------------------
def axpy_golden(x, y, alpha, dt):
    """Explicit loop in float64 (exact product and sum of f16 / f32 values), one rounding."""
    out = np.empty(y.shape, NP[dt])
    for i in range(y.shape[0]):
        for j in range(y.shape[1]):
            out[i, j] = NP[dt](float(alpha) * float(x[i, j]) + float(y[i, j]))
    return out


@pytest.mark.parametrize("target", ["a5", "a2a3"])
@pytest.mark.parametrize("sd,dd", [("f32", "f32"), ("f16", "f16"), ("f16", "f32")])
def test_taxpy_is_fused_over_the_valid_region(target, sd, dd):
    m = mk(target)
    vr, vc = 3, 13
    src = blank(m, sd, 4, cols_for(sd, 16), valid=(vr, vc))
    dst = blank(m, dd, 4, cols_for(dd, 16), valid=(vr, vc))
    x, y = rand(sd, (4, src.cols), 1), rand(dd, (4, dst.cols), 2)
    put(m, src, x)
    put(m, dst, y)
    alpha = 1.3
    m.TAXPY(dst, src, alpha)
    want = axpy_golden(x[:vr, :vc], y[:vr, :vc], NP[sd](alpha), dd)
    got = whole(m, dst)
    np.testing.assert_array_equal(got[:vr, :vc], want)
    outside = np.ones(got.shape, bool)
    outside[:vr, :vc] = False                      # nothing else of dst is written
    np.testing.assert_array_equal(got[outside].view(np.uint8), y[outside].view(np.uint8))


def test_taxpy_single_rounding():
    """f32: 1 + 2^-24 * (1 + 2^-23) * 1 rounds once to 1 + 2^-23 (two roundings give 1)."""
    m = mk()
    src, dst = m.tile("Vec", "f32", 1, 8), m.tile("Vec", "f32", 1, 8)
    put(m, src, np.full(8, 1 + 2.0 ** -23, np.float32))
    put(m, dst, np.ones(8, np.float32))
    m.TAXPY(dst, src, 2.0 ** -24)
    assert whole(m, dst)[0, 0] == np.float32(1 + 2.0 ** -23)


def test_taxpy_rules():
    m = mk()
    with pytest.raises(DtypeError, match=r"TAXPY.*src is f32 but dst is f16: they must match, "
                                         r"or src f16 with dst f32"):
        m.TAXPY(m.tile("Vec", "f16", 1, 16), m.tile("Vec", "f32", 1, 8), 1.0)
    with pytest.raises(DtypeError, match=r"TAXPY.*dst element type must be one of f16, f32 on "
                                         r"a5, got i32"):
        m.TAXPY(m.tile("Vec", "i32", 1, 8), m.tile("Vec", "i32", 1, 8), 1)
    with pytest.raises(DtypeError, match=r"TAXPY.*dst element type must be one of f16, f32 on "
                                         r"a5, got bf16"):
        m.TAXPY(m.tile("Vec", "bf16", 1, 16), m.tile("Vec", "bf16", 1, 16), 1.0)
    with pytest.raises(VerifyError, match=r"TAXPY.*src's valid region 1x4 differs from dst's "
                                          r"1x8"):
        m.TAXPY(m.tile("Vec", "f32", 1, 8), m.tile("Vec", "f32", 1, 8, valid=(1, 4)), 1.0)
    with pytest.raises(PtoTypeError, match=r"TAXPY: operands after dst must be \(src: tile, "
                                           r"scalar: scalar\)"):
        m.TAXPY(m.tile("Vec", "f32", 1, 8), m.tile("Vec", "f32", 1, 8))


# --- TPARTARGMAX / TPARTARGMIN ----------------------------------------------------------------
def partarg_golden(op, v0, i0, v1, i1, dv, a2a3=False):
    """Explicit loops: where both are valid the larger (smaller) value and its index, ties
    to src0 (a2a3: a NaN comparison picks src1, a5: src0); elsewhere the covering source."""
    vals = np.empty(dv, v0.dtype)
    idx = np.empty(dv, i0.dtype)
    for r in range(dv[0]):
        for c in range(dv[1]):
            in0 = r < v0.shape[0] and c < v0.shape[1]
            in1 = r < v1.shape[0] and c < v1.shape[1]
            if in0 and in1:
                a, b = float(v0[r, c]), float(v1[r, c])
                if a2a3:
                    pick0 = (a >= b) if op == "TPARTARGMAX" else (a <= b)
                else:
                    pick0 = not ((b > a) if op == "TPARTARGMAX" else (b < a))
            else:
                pick0 = in0
            vals[r, c] = v0[r, c] if pick0 else v1[r, c]
            idx[r, c] = i0[r, c] if pick0 else i1[r, c]
    return vals, idx


@pytest.mark.parametrize("target", ["a5", "a2a3"])
@pytest.mark.parametrize("op", ["TPARTARGMAX", "TPARTARGMIN"])
@pytest.mark.parametrize("vt,it", [("f32", "i32"), ("f32", "ui32"), ("f16", "i16"),
                                   ("f16", "ui16"), ("f16", "i32"), ("f16", "ui32")])
@pytest.mark.parametrize("s0v,s1v", [((4, 20), (4, 20)), ((4, 20), (2, 20)),
                                     ((4, 9), (4, 20)), ((4, 20), (3, 7))])
def test_tpartarg_matches_loops(target, op, vt, it, s0v, s1v):
    m = mk(target)
    dv = (max(s0v[0], s1v[0]), max(s0v[1], s1v[1]))
    vc_cols, ic_cols = cols_for(vt, 24), cols_for(it, 24)
    tiles = {}
    for k, (n, valid) in enumerate((("src0", s0v), ("src1", s1v), ("dst", dv))):
        tiles[n] = blank(m, vt, 4, vc_cols, valid=valid)
        tiles[n + "Idx"] = blank(m, it, 4, ic_cols, valid=valid)
        rng = np.random.default_rng(k)
        v = rng.integers(-4, 5, (4, vc_cols)).astype(NP[vt])      # many ties
        v[0, 0] = np.nan
        v[1, 1 + k] = np.nan
        if n != "dst":                      # dst keeps the sentinel outside its region
            put(m, tiles[n], v)
            put(m, tiles[n + "Idx"], rng.integers(0, 1000, (4, ic_cols)))
    getattr(m, op)(tiles["dst"], tiles["src0"], tiles["src1"], tiles["dstIdx"],
                   tiles["src0Idx"], tiles["src1Idx"])
    sub = {n: whole(m, t)[:t.valid[0], :t.valid[1]] for n, t in tiles.items()}
    vals, idx = partarg_golden(op, sub["src0"], sub["src0Idx"], sub["src1"], sub["src1Idx"],
                               dv, target == "a2a3")
    np.testing.assert_array_equal(sub["dst"].view(np.uint8), vals.view(np.uint8))
    np.testing.assert_array_equal(sub["dstIdx"], idx)
    untouched(m, tiles["dst"], dv)
    untouched(m, tiles["dstIdx"], dv)


def test_tpartarg_rules():
    m = mk()

    def t(dt, valid=(2, 8)):
        return m.tile("Vec", dt, 2, cols_for(dt, 8), valid=valid)
    f, i = t("f32"), t("i32")
    with pytest.raises(DtypeError, match=r"TPARTARGMAX.*src1 is f16 but dst is f32"):
        m.TPARTARGMAX(f, f, t("f16"), i, i, i)
    with pytest.raises(DtypeError, match=r"TPARTARGMIN.*src0Idx is ui32 but dstIdx is i32"):
        m.TPARTARGMIN(f, f, f, i, t("ui32"), i)
    with pytest.raises(DtypeError, match=r"TPARTARGMAX.*dstIdx element type must be one of "
                                         r"i32, ui32 on a5, got i16"):
        m.TPARTARGMAX(f, f, f, t("i16"), t("i16"), t("i16"))
    with pytest.raises(DtypeError, match=r"TPARTARGMAX.*dst element type must be one of f16, "
                                         r"f32 on a5, got i32"):
        m.TPARTARGMAX(i, i, i, i, i, i)
    with pytest.raises(VerifyError, match=r"TPARTARGMAX.*src1Idx's valid region 1x8 differs "
                                          r"from src1's 2x8"):
        m.TPARTARGMAX(f, f, f, i, i, t("i32", (1, 8)))
    with pytest.raises(VerifyError, match=r"TPARTARGMAX.*one of src0 \(1x8\) and src1 \(2x4\) "
                                          r"must have dst's valid region 2x8"):
        m.TPARTARGMAX(f, t("f32", (1, 8)), t("f32", (2, 4)), i, t("i32", (1, 8)),
                      t("i32", (2, 4)))


# --- TCONCAT ----------------------------------------------------------------------------------
def concat_golden(a, b):
    out = []
    for r in range(a.shape[0]):
        out.append(list(a[r]) + list(b[r]))
    return np.array(out, a.dtype)


@pytest.mark.parametrize("dt", ALL)
@pytest.mark.parametrize("c0,c1", [(8, 8), (5, 11), (32, 3), (1, 1)])
def test_tconcat_a5_matches_loops(dt, c0, c1):
    m = mk()
    vr = 3
    s0 = blank(m, dt, 4, cols_for(dt, c0), valid=(vr, c0))
    s1 = blank(m, dt, 4, cols_for(dt, c1), valid=(vr, c1))
    a, b = rand(dt, (4, s0.cols), 1), rand(dt, (4, s1.cols), 2)
    put(m, s0, a)
    put(m, s1, b)
    dst = blank(m, dt, 4, cols_for(dt, c0 + c1 + 1), valid=(vr, c0 + c1))
    m.TCONCAT(dst, s0, s1)
    want = concat_golden(a[:vr, :c0], b[:vr, :c1])
    np.testing.assert_array_equal(whole(m, dst)[:vr, :c0 + c1].view(np.uint8),
                                  want.view(np.uint8))
    untouched(m, dst, (vr, c0 + c1))


@pytest.mark.parametrize("dt,c0,c1", [("f32", 5, 3), ("f32", 8, 3), ("f16", 16, 20),
                                      ("i8", 7, 40)])
def test_tconcat_a2a3_block_copies(dt, c0, c1):
    """a2a3: src0's rows go as whole 32 B blocks; src1's too when c0 is block aligned,
    else element by element (explicit block arithmetic below)."""
    m = mk("a2a3")
    es = np.dtype(NP[dt]).itemsize
    epb = 32 // es
    vr = 2
    s0 = blank(m, dt, 2, cols_for(dt, c0), valid=(vr, c0))
    s1 = blank(m, dt, 2, cols_for(dt, c1), valid=(vr, c1))
    a, b = rand(dt, (2, s0.cols), 3), rand(dt, (2, s1.cols), 4)
    put(m, s0, a)
    put(m, s1, b)
    dst = blank(m, dt, 2, cols_for(dt, c0 + c1 + epb), valid=(vr, c0 + c1))
    m.TCONCAT(dst, s0, s1)
    want = np.full((2, dst.cols), 0, NP[dt])
    got = whole(m, dst)
    w0 = -(-c0 // epb) * epb
    w1 = -(-c1 // epb) * epb if c0 % epb == 0 else c1
    for r in range(vr):
        for c in range(w0):
            want[r, c] = a[r, c]
        for c in range(w1):
            want[r, c0 + c] = b[r, c]
    end = max(w0, c0 + w1)
    np.testing.assert_array_equal(got[:vr, :end].view(np.uint8), want[:vr, :end].view(np.uint8))
    untouched(m, dst, (vr, end))


def test_tconcat_rules():
    m = mk()
    a = m.tile("Vec", "f32", 2, 8, valid=(2, 6))
    with pytest.raises(DtypeError, match=r"TCONCAT.*src1 is i32 but dst is f32"):
        m.TCONCAT(m.tile("Vec", "f32", 2, 16), a, m.tile("Vec", "i32", 2, 8))
    with pytest.raises(VerifyError, match=r"TCONCAT.*src1 has 1 valid rows but dst 2"):
        m.TCONCAT(m.tile("Vec", "f32", 2, 16), a, m.tile("Vec", "f32", 2, 8, valid=(1, 8)))
    with pytest.raises(VerifyError, match=r"TCONCAT.*src0's 6 \+ src1's 6 valid columns "
                                          r"exceed dst's 8 columns"):
        m.TCONCAT(m.tile("Vec", "f32", 2, 8), a, a)
    with pytest.raises(DtypeError, match=r"TCONCAT.*dst element type must be one of .* got "
                                         r"i64"):
        b = m.tile("Vec", "i64", 2, 8)
        m.TCONCAT(m.tile("Vec", "i64", 2, 16), b, b)


# --- text forms -------------------------------------------------------------------------------
def _tb(shape, dt="f32", valid=None):
    v = f", valid={valid}" if valid else ""
    return f"!pto.tile_buf<vec, {shape}x{dt}{v}>"


def _io(name, shape, dt="f32"):
    r, c = shape.split("x")
    return (f"    %v{name} = pto.make_tensor_view %{name}, shape = [%c{r}, %c{c}], strides = "
            f"[%c{c}, %c1] : !pto.tensor_view<{shape}x{dt}>\n"
            f"    %p{name} = pto.partition_view %v{name}, offsets = [%c0, %c0], sizes = "
            f"[%c{r}, %c{c}] : !pto.tensor_view<{shape}x{dt}>\n")


T8 = _tb("8x8")
P8 = "!pto.partition_tensor_view<8x8xf32>"
I8 = _tb("8x8", "i32")
PI8 = "!pto.partition_tensor_view<8x8xi32>"
T16 = _tb("8x16")
P16 = "!pto.partition_tensor_view<8x16xf32>"
TEXT = f"""
module {{
  func.func @k(%a: !pto.ptr<f32>, %b: !pto.ptr<f32>, %ia: !pto.ptr<i32>, %ib: !pto.ptr<i32>,
               %t: !pto.ptr<f32>, %s: !pto.ptr<f32>, %x: !pto.ptr<f32>, %g: !pto.ptr<f32>,
               %ig: !pto.ptr<i32>, %cc: !pto.ptr<f32>) attributes {{pto.aicore}} {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %alpha = arith.constant 2.5 : f32
{_io("a", "8x8")}{_io("b", "8x8")}{_io("ia", "8x8", "i32")}{_io("ib", "8x8", "i32")}{_io("t", "8x8")}{_io("s", "8x8")}{_io("x", "8x8")}{_io("g", "8x8")}{_io("ig", "8x8", "i32")}{_io("cc", "8x16")}
    %ta = pto.alloc_tile : {T8}
    %tb = pto.alloc_tile : {T8}
    %tia = pto.alloc_tile : {I8}
    %tib = pto.alloc_tile : {I8}
    %tt = pto.alloc_tile : {T8}
    %tmp = pto.alloc_tile : {T8}
    %ts = pto.alloc_tile : {T8}
    %tx = pto.alloc_tile : {T8}
    %tg = pto.alloc_tile : {T8}
    %tig = pto.alloc_tile : {I8}
    %tc = pto.alloc_tile : {T16}
    pto.tload ins(%pa : {P8}) outs(%ta : {T8})
    pto.tload ins(%pb : {P8}) outs(%tb : {T8})
    pto.tload ins(%pia : {PI8}) outs(%tia : {I8})
    pto.tload ins(%pib : {PI8}) outs(%tib : {I8})
    pto.ttrans ins(%ta, %tmp : {T8}, {T8}) outs(%tt : {T8})
    pto.tadd ins(%ta, %tb : {T8}, {T8}) outs(%ts : {T8})
    pto.tsub ins(%ta, %tb : {T8}, {T8}) outs(%tx : {T8})
    pto.taxpy ins(%tb, %alpha : {T8}, f32) outs(%tx : {T8})
    pto.tpartargmax ins(%ta, %tb, %tia, %tib : {T8}, {T8}, {I8}, {I8})
      outs(%tg, %tig : {T8}, {I8})
    pto.tconcat ins(%ta, %tb : {T8}, {T8}) outs(%tc : {T16})
    pto.tstore ins(%tt : {T8}) outs(%pt : {P8})
    pto.tstore ins(%ts : {T8}) outs(%ps : {P8})
    pto.tstore ins(%tx : {T8}) outs(%px : {P8})
    pto.tstore ins(%tg : {T8}) outs(%pg : {P8})
    pto.tstore ins(%tig : {I8}) outs(%pig : {PI8})
    pto.tstore ins(%tc : {T16}) outs(%pcc : {P16})
    return
  }}
}}
"""


@pytest.mark.parametrize("target", ["a5", "a2a3"])
def test_text_forms_run_like_the_python_face(target):
    rng = np.random.default_rng(9)
    a = rng.integers(-9, 9, (8, 8)).astype(np.float32)
    b = rng.integers(-9, 9, (8, 8)).astype(np.float32)
    ia = np.arange(64, dtype=np.int32).reshape(8, 8)
    ib = ia + 100
    k = Kernel.from_text(TEXT)
    printed = str(k.module)
    assert "outs(%tg, %tig : " in printed and "pto.ttrans ins(%ta, %tmp : " in printed
    z = np.zeros((8, 8), np.float32)
    res = k.run({"a": a, "b": b, "ia": ia, "ib": ib, "t": z, "s": z, "x": z, "g": z,
                 "ig": np.zeros((8, 8), np.int32), "cc": np.zeros((8, 16), np.float32)},
                target=target)
    o = res.outputs
    np.testing.assert_array_equal(o["t"].reshape(8, 8), a.T)
    np.testing.assert_array_equal(o["s"].reshape(8, 8), a + b)
    np.testing.assert_array_equal(o["x"].reshape(8, 8), (a - b) + 2.5 * b)
    np.testing.assert_array_equal(o["g"].reshape(8, 8), np.where(b > a, b, a))
    np.testing.assert_array_equal(o["ig"].reshape(8, 8), np.where(b > a, ib, ia))
    np.testing.assert_array_equal(o["cc"].reshape(8, 16), np.concatenate([a, b], axis=1))


@pytest.mark.parametrize("target", ["a5", "a2a3"])
def test_text_taddc_is_refused_where_it_runs(target):
    """pto.taddc parses (PTOAS's spelling) but no NPU code implements it."""
    text = TEXT.replace(f"pto.tadd ins(%ta, %tb : {T8}, {T8}) outs(%ts : {T8})",
                        f"pto.taddc ins(%ta, %tb, %tb : {T8}, {T8}, {T8}) outs(%ts : {T8})")
    k = Kernel.from_text(text)
    z = np.zeros((8, 8), np.float32)
    with pytest.raises(ptosim.NotImplementedOpError, match=f"TADDC: {target} has no NPU "
                                                           f"implementation"):
        k.run({"a": z, "b": z, "ia": np.zeros((8, 8), np.int32),
               "ib": np.zeros((8, 8), np.int32), "t": z, "s": z, "x": z, "g": z,
               "ig": np.zeros((8, 8), np.int32), "cc": np.zeros((8, 16), np.float32)},
              target=target)


def test_text_diagnostics():
    bad = TEXT.replace(f"outs(%tg, %tig : {T8}, {I8})", f"outs(%tg : {T8})")
    with pytest.raises(ptosim.PtoError, match=r"pto\.tpartargmax: operands must be dst: tile"):
        Kernel.from_text(bad)
    bad = TEXT.replace(f"pto.taxpy ins(%tb, %alpha : {T8}, f32)",
                       f"pto.taxpy ins(%tb, %tb : {T8}, {T8})")
    with pytest.raises(ptosim.PtoError, match=r"pto\.taxpy: ins\(\.\.\.\) must be \(src: tile, "
                                              r"scalar: scalar\)"):
        Kernel.from_text(bad)


# --- TRESHAPE / TSUBVIEW ----------------------------------------------------------------------
def test_treshape_aliases_the_bytes():
    """The view reads src's bytes in the new type and shape (numpy view golden); writing
    through it changes src; nothing is copied."""
    m = mk()
    src = m.tile("Vec", "f32", 4, 16, valid=(3, 10))
    a = np.arange(64, dtype=np.float32).reshape(4, 16)
    put(m, src, a)
    r = m.TRESHAPE(src, "f16", 2, 64)
    assert (r.rows, r.cols, r.dtype.name, r.valid, r.ptr.offset) == (2, 64, "f16", (2, 64),
                                                                     src.ptr.offset)
    np.testing.assert_array_equal(whole(m, r).view(np.uint16),
                                  a.view(np.uint16).reshape(2, 64))
    flat = m.TRESHAPE(src, rows=1, cols=64, valid=(1, 30))
    m.TADDS(flat, flat, 1.0)
    want = a.reshape(-1).copy()
    want[:30] += 1
    np.testing.assert_array_equal(whole(m, src).reshape(-1), want)


def test_treshape_rules():
    m = mk()
    src = m.tile("Vec", "f32", 4, 16)
    with pytest.raises(VerifyError, match=r"TRESHAPE: the new tile holds 8x16 f32 = 512 B but "
                                          r"src 4x16 f32 = 256 B: the total byte size must "
                                          r"match"):
        m.TRESHAPE(src, rows=8)
    with pytest.raises(VerifyError, match=r"TRESHAPE: cannot reshape between boxed and "
                                          r"non-boxed layouts \(ND -> NZ\)"):
        m.TRESHAPE(src, rows=16, cols=4 * 16 // 16, blayout="ColMajor", slayout="RowMajor")
    with pytest.raises(VerifyError, match=r"TRESHAPE.*row .* must be a multiple of 32 bytes"):
        m.TRESHAPE(src, rows=16, cols=4)
    with pytest.raises(PtoTypeError, match=r"TRESHAPE: src must be a Tile, got int"):
        m.TRESHAPE(3, rows=1)


def test_tsubview_windows():
    m = mk()
    src = m.tile("Vec", "f32", 6, 16, valid=(5, 12))
    a = np.arange(96, dtype=np.float32).reshape(6, 16)
    put(m, src, a)
    v = m.TSUBVIEW(src, 2, 0, 3, 16, valid=(3, 12))
    np.testing.assert_array_equal(whole(m, v), a[2:5])
    v2 = m.TSUBVIEW(src, 1, 8, 2, 16, valid=(2, 4))      # starts at a 32 B block in row 1
    np.testing.assert_array_equal(whole(m, v2)[:, :4], a[1:3, 8:12])
    dn = m.tile("Vec", "f32", 16, 4, blayout="ColMajor", slayout="NoneBox")
    put(m, dn, np.arange(64, dtype=np.float32).reshape(4, 16))     # column-major storage
    w = m.TSUBVIEW(dn, 0, 2, 16, 2)
    assert w.ptr.offset == dn.ptr.offset + 2 * 16 * 4


def test_tsubview_rules():
    m = mk()
    src = m.tile("Vec", "f32", 6, 16, valid=(5, 12))
    with pytest.raises(VerifyError, match=r"TSUBVIEW: an ND window keeps src's row stride: "
                                          r"cols must be src's 16, got 8"):
        m.TSUBVIEW(src, 0, 0, 2, 8)
    with pytest.raises(VerifyError, match=r"TSUBVIEW: the 3x16 window at \(4, 0\) leaves src's "
                                          r"6x16 storage"):
        m.TSUBVIEW(src, 4, 0, 3, 16, valid=(2, 8))
    with pytest.raises(VerifyError, match=r"TSUBVIEW: the view's valid region 3x16 exceeds "
                                          r"src's 5x12"):
        m.TSUBVIEW(src, 0, 0, 3, 16)
    with pytest.raises(VerifyError, match=r"TSUBVIEW: the window starts 12 B into src: a tile "
                                          r"address must be 32-byte aligned"):
        m.TSUBVIEW(src, 0, 3, 2, 16, valid=(2, 4))
    nz = m.tile("Vec", "f16", 16, 16, blayout="ColMajor", slayout="RowMajor")
    with pytest.raises(VerifyError, match=r"TSUBVIEW: src must be an ND or DN tile"):
        m.TSUBVIEW(nz, 0, 0, 16, 16)


RESHAPE_TEXT = """
module {
  func.func @k(%a: !pto.ptr<f32>, %o: !pto.ptr<f32>) attributes {pto.aicore} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %one = arith.constant 1.0 : f32
    %va = pto.make_tensor_view %a, shape = [%c4, %c8], strides = [%c8, %c1] : !pto.tensor_view<4x8xf32>
    %pa = pto.partition_view %va, offsets = [%c0, %c0], sizes = [%c4, %c8] : !pto.tensor_view<4x8xf32>
    %vo = pto.make_tensor_view %o, shape = [%c1, %c32], strides = [%c32, %c1] : !pto.tensor_view<1x32xf32>
    %po = pto.partition_view %vo, offsets = [%c0, %c0], sizes = [%c1, %c32] : !pto.tensor_view<1x32xf32>
    %t = pto.alloc_tile : !pto.tile_buf<vec, 4x8xf32>
    pto.tload ins(%pa : !pto.partition_tensor_view<4x8xf32>) outs(%t : !pto.tile_buf<vec, 4x8xf32>)
    %f = pto.treshape %t : !pto.tile_buf<vec, 4x8xf32> -> !pto.tile_buf<vec, 1x32xf32>
    pto.tadds ins(%f, %one : !pto.tile_buf<vec, 1x32xf32>, f32) outs(%f : !pto.tile_buf<vec, 1x32xf32>)
    pto.tstore ins(%f : !pto.tile_buf<vec, 1x32xf32>) outs(%po : !pto.partition_tensor_view<1x32xf32>)
    return
  }
}
"""


def test_treshape_text_form():
    a = np.arange(32, dtype=np.float32).reshape(4, 8)
    k = Kernel.from_text(RESHAPE_TEXT)
    assert "pto.treshape %t : !pto.tile_buf<vec, 4x8xf32> -> !pto.tile_buf<vec, 1x32xf32>" \
        in str(k.module).replace("\n", " ")
    res = k.run({"a": a, "o": np.zeros(32, np.float32)})
    np.testing.assert_array_equal(res.outputs["o"].ravel(), a.ravel() + 1)


def test_treshape_text_rules():
    bad = RESHAPE_TEXT.replace("-> !pto.tile_buf<vec, 1x32xf32>\n",
                               "-> !pto.tile_buf<vec, 1x64xf32>\n")
    with pytest.raises(ptosim.PtoError, match=r"pto\.treshape: src \(128 B\) and result "
                                              r"\(256 B\) must have the same total byte size"):
        Kernel.from_text(bad)
