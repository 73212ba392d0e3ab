"""Issue 14: TLOAD views larger than the valid region, rows longer than a 16-bit burst,
``arith.bitcast`` in the interpreter, and TCVT. Goldens are numpy / ml_dtypes formulations
written here (rint / floor / clip / modular wrap / astype), not the engine under test; the
shape tables are pto-isa's a5 ST lists (tests/npu/a5/src/st/testcase/tcvt/gen_data.py)."""

import ml_dtypes
import numpy as np
import pytest

import ptosim
from conftest import POISON, raw
from ptosim import VerifyError
from ptosim.dtypes import dtype
from ptosim.errors import DtypeError, PtoValueError
from ptosim.frontend import parse_module
from ptosim.interp.executor import Core, CoreState, Executor
from ptosim.kernel import Kernel

BF16 = ml_dtypes.bfloat16


def nd_view(m, a, shape=None, row_stride=None):
    r, c = shape or a.shape
    return m.global_tensor(m.gm(a), shape=(1, 1, 1, r, c),
                           stride=(0, 0, 0, row_stride or a.shape[1], 1))


def ub_matrix(m, t):
    return raw(m, "ub")[t.ptr.offset:t.ptr.offset + t.nbytes].view(t.dtype.np) \
        .reshape(t.rows, t.cols)


# --- TLOAD: a view larger than the valid region (a5) -----------------------------------
@pytest.mark.parametrize("extent, cols_written", [("valid", 40), ("view", 48)])
def test_nd_view_over_valid_copies_view_rows(m, extent, cols_written):
    a = np.arange(6 * 64, dtype=np.float32).reshape(6, 64)
    t = m.tile("Vec", "f32", 8, 64, valid=(4, 40))
    m.TLOAD(t, nd_view(m, a, shape=(6, 48)), extent=extent)
    got = ub_matrix(m, t)
    poison = np.frombuffer(bytes([POISON] * 4), np.float32)[0]
    want = np.full((8, 64), poison, np.float32)
    # pto-isa a5: burst count = the view's rows, length = valid cols; PTOAS: the view's cols
    want[:6, :cols_written] = a[:6, :cols_written]
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))


def test_nd_view_over_valid_pads_after_the_burst(m):
    a = np.arange(6 * 16, dtype=np.float32).reshape(6, 16)
    t = m.tile("Vec", "f32", 8, 16, valid=(4, 5), pad="Zero")
    m.TLOAD(t, nd_view(m, a, shape=(6, 5)))
    got = ub_matrix(m, t)
    np.testing.assert_array_equal(got[:6, :5], a[:6, :5])
    np.testing.assert_array_equal(got[:6, 5:8], 0)            # up to the 32 B block end
    assert (got[6:].view(np.uint32) == 0xCDCDCDCD).all()


def test_dn_view_over_valid_copies_view_columns(m):
    a = np.arange(6 * 48, dtype=np.float32).reshape(6, 48)     # DN: column j = a[j]
    g = m.global_tensor(m.gm(a), shape=(1, 1, 1, 48, 6), stride=(0, 0, 0, 1, 48), layout="DN")
    t = m.tile("Vec", "f32", 64, 8, blayout="ColMajor", valid=(40, 4))
    m.TLOAD(t, g)
    img = raw(m, "ub")[:t.nbytes].view(np.float32).reshape(8, 64)    # [col][row]
    np.testing.assert_array_equal(img[:6, :40], a[:, :40])             # length = valid rows
    assert (img[:6, 40:].view(np.uint32) == 0xCDCDCDCD).all()
    assert (img[6:].view(np.uint32) == 0xCDCDCDCD).all()


@pytest.mark.parametrize("shape, msg", [
    ((3, 40), r"^TLOAD: the ND view is 3x40: it must cover the tile's valid region 4x40 and "
              r"fit its shape 8x64"),
    ((9, 48), r"the ND view is 9x48: it must cover"),
    ((6, 65), r"the ND view is 6x65: it must cover"),
])
def test_view_must_cover_valid_and_fit_the_tile(m, shape, msg):
    a = np.zeros((9, 72), np.float32)
    t = m.tile("Vec", "f32", 8, 64, valid=(4, 40))
    with pytest.raises(VerifyError, match=msg):
        m.TLOAD(t, nd_view(m, a, shape=shape))


def test_a2a3_needs_the_view_equal_to_the_valid_region():
    m = ptosim.Machine(target="a2a3")
    a = np.zeros((6, 64), np.float32)
    t = m.tile("Vec", "f32", 8, 64, valid=(4, 40))
    with pytest.raises(VerifyError, match=r"^TLOAD: the ND view is 6x48 but the tile's valid "
                                          r"region is 4x40$"):
        m.TLOAD(t, nd_view(m, a, shape=(6, 48)))


def test_nd2nz_needs_the_view_equal_to_the_valid_region(m):
    a = np.zeros((32, 32), np.float16)
    t = m.tile("Mat", "f16", 32, 32, blayout="ColMajor", slayout="RowMajor", valid=(20, 16))
    with pytest.raises(VerifyError, match=r"the ND view is 24x16 but the tile's valid region "
                                          r"is 20x16 \(ND -> NZ loads need them equal\)"):
        m.TLOAD(t, nd_view(m, a, shape=(24, 16)))


def test_extent_keyword_is_checked(m):
    t = m.tile("Vec", "f32", 8, 64)
    with pytest.raises(PtoValueError, match="extent must be 'valid' or 'view'"):
        m.TLOAD(t, nd_view(m, np.zeros((8, 64), np.float32)), extent="all")


# --- rows longer than a 16-bit burst ----------------------------------------------------
def test_64_kib_row_loads_and_stores(m):
    """PTO-Gym tprelu f32_1x16384: one 65536-byte row (the micro-op's len_burst is 16
    bits; the tile op moves it in 32 B-aligned pieces)."""
    x = np.arange(16384, dtype=np.float32).reshape(1, 16384) - 5000
    t = m.tile("Vec", "f32", 1, 16384)
    m.TLOAD(t, nd_view(m, x))
    np.testing.assert_array_equal(m.read_tile(t), x)
    out = np.zeros_like(x)
    g = nd_view(m, out)
    m.TSTORE(g, t)
    np.testing.assert_array_equal(m.read(g.ptr, 16384).reshape(1, -1), x)


def test_long_row_pads_only_after_its_last_piece(m):
    x = (np.arange(3 * 16401, dtype=np.float32) % 1000).reshape(3, 16401)
    t = m.tile("Vec", "f32", 3, 16408, valid=(3, 16401), pad="Min")
    m.TLOAD(t, nd_view(m, x))
    got = ub_matrix(m, t)
    np.testing.assert_array_equal(got[:, :16401], x)
    np.testing.assert_array_equal(got[:, 16401:], -np.inf)   # to the block end (16408)


def test_mte_gm_ub_keeps_the_manual_16_bit_length(m):
    src = m.gm(np.zeros(16384, np.float32))
    with pytest.raises(ptosim.FieldRangeError, match="len_burst = 65536 is out of range"):
        m.mte_gm_ub(src, m.ptr("ub", "f32", 0), 0, 65536, nburst=(1, 65536, 65536))


# --- arith.bitcast ------------------------------------------------------------------------
def scalar_fn(body: str, arg_type: str, result_type: str, x):
    text = f"func.func @f(%x: {arg_type}) -> ({result_type}) {{\n{body}\n}}"
    func = next(iter(parse_module(text, "t.pto").ops))
    ex = Executor(ptosim.Machine(), lambda op: None, sync=None)
    gen = ex.run_function(CoreState(Core("cube", 0, 0)), func, [x])
    try:
        next(gen)
    except StopIteration as stop:
        return stop.value[0]
    raise AssertionError("the function blocked")


@pytest.mark.parametrize("src, dst, x, want", [
    ("i32", "f32", 0x3F800000, 1.0),
    ("i32", "f32", -0x40000000, -2.0),                    # 0xC0000000
    ("f32", "i32", -0.0, -2**31),
    ("f32", "i32", 1.5, 0x3FC00000),
    ("f16", "i16", -2.0, -0x4000),                        # 0xC000
    ("i16", "bf16", 0x3F80, 1.0),
    ("f64", "i64", 1.0, 0x3FF0000000000000),
])
def test_bitcast_reinterprets_the_bits(src, dst, x, want):
    body = f"%r = arith.bitcast %x : {src} to {dst}\n  func.return %r : {dst}"
    got = scalar_fn(body, src, dst, x)
    assert got == want and type(got) is type(want)
    if dst == "f32":   # independent: numpy's view of the same bits
        assert got == float(np.array([x & 0xFFFFFFFF], np.uint32).view(np.float32)[0])


def test_bitcast_width_mismatch_is_an_error():
    body = "%r = arith.bitcast %x : i32 to f16\n  func.return %r : f16"
    with pytest.raises(ptosim.PtoSyntaxError, match=r"arith\.bitcast: operand and result types must have equal bitwidths"):
        scalar_fn(body, "i32", "f16", 1)


# --- TCVT -----------------------------------------------------------------------------------
A5_PAIRS = [("f32", "f32"), ("f32", "f16"), ("f32", "bf16"), ("f32", "i16"), ("f32", "i32"),
            ("f32", "i64"), ("f32", "f8E4M3FN"), ("f32", "f8E5M2"), ("f16", "f32"),
            ("f16", "i32"), ("f16", "i16"), ("f16", "i8"), ("f16", "ui8"), ("bf16", "f32"),
            ("bf16", "i32"), ("bf16", "f16"), ("i16", "ui8"), ("i16", "f16"), ("i16", "f32"),
            ("i16", "ui32"), ("i16", "i32"), ("i32", "f32"), ("i32", "i16"), ("i32", "ui16"),
            ("i32", "i64"), ("i32", "ui8"), ("i64", "f32"), ("i64", "i32"), ("ui8", "f16"),
            ("ui8", "ui16"), ("i8", "f16"), ("i8", "i16"), ("i8", "i32"), ("ui32", "ui8"),
            ("ui32", "ui16"), ("ui32", "i16"), ("f8E4M3FN", "f32"), ("f8E5M2", "f32")]
# pto-isa a5 ST shapes: (rows, cols, valid rows, valid cols)
SHAPES = [(1, 128, 1, 128), (2, 64, 2, 64), (4, 32, 4, 32), (4, 128, 4, 65),
          (4, 256, 4, 200), (1, 256, 1, 129)]
# pairs that wrap by default (A5 TCVT_IMPL without a SaturationMode; gen_data
# default_saturation_off); every other pair clamps
WRAP = {("f16", "ui8"), ("f16", "i8"), ("f32", "i16"), ("f16", "i16"), ("i64", "i32"),
        ("i32", "i16")}


def np_type(name):
    return dtype(name).np


def sample(src, shape, rng):
    """Values spanning past the destination's range (finite, no NaN)."""
    t = np_type(src)
    if np.issubdtype(t, np.integer):
        info = np.iinfo(t)
        return rng.integers(info.min, int(info.max) + 1, shape, dtype=np.int64).astype(t)
    big = {"f16": 60000.0, "bf16": 1e6, "f8E4M3FN": 400.0, "f8E5M2": 50000.0}.get(src, 3e9)
    x = rng.uniform(-big, big, shape)
    x[..., ::3] = rng.uniform(-300, 300, x[..., ::3].shape)       # small values too
    x[..., ::7] = np.round(x[..., ::7]) + 0.5                       # ties
    return x.astype(t)


def golden(x, src, dst, wrap):
    """Round to nearest even (float->int truncation is not the default: CAST_RINT), then
    clamp or wrap to the destination; float destinations by ml_dtypes' astype."""
    d = np_type(dst)
    if np.issubdtype(d, np.integer):
        v = np.rint(x.astype(np.float64)) if not np.issubdtype(x.dtype, np.integer) \
            else x.astype(np.int64)
        info = np.iinfo(d)
        if wrap:
            bits = 8 * np.dtype(d).itemsize
            return (np.mod(v.astype(object), 2 ** bits).astype(np.uint64)
                    .astype(f"u{bits // 8}").view(d))
        return np.clip(v, info.min, info.max).astype(d)
    if (src, dst) == ("f32", "f32"):
        return np.rint(x)
    if dst in ("f16", "bf16", "f8E4M3FN", "f8E5M2") and src not in ("f8E4M3FN", "f8E5M2"):
        # saturating by default: clamp to the largest finite value, then round
        fin = float(ml_dtypes.finfo(d).max)
        return np.clip(x.astype(np.float64), -fin, fin).astype(np.float32).astype(d) \
            if src != "i64" else np.clip(x, -fin, fin).astype(d)
    return x.astype(d)


# every pair on the first shape; the whole shape table for four representative pairs
CVT_CASES = [(s, d, *SHAPES[0]) for s, d in A5_PAIRS] + \
    [(s, d, *shape) for s, d in (("f32", "i32"), ("f16", "ui8"), ("i32", "i16"), ("f32", "bf16"))
     for shape in SHAPES[1:]]


@pytest.mark.parametrize("src, dst, rows, cols, vr, vc", CVT_CASES)
def test_tcvt_pairs_against_numpy(m, src, dst, rows, cols, vr, vc):
    rng = np.random.default_rng(hash((src, dst)) % 2**32)
    x = sample(src, (vr, vc), rng)
    s = m.tile("Vec", src, rows, cols, valid=(vr, vc))
    elems_d = cols
    d = m.tile("Vec", dst, rows, elems_d, valid=(vr, vc))
    full = np.zeros((rows, cols), np_type(src))
    full[:vr, :vc] = x
    m.write(s.ptr, full.view(np.uint8).ravel() if full.dtype.itemsize == 1 else full.ravel())
    before = raw(m, "ub")[d.ptr.offset:d.ptr.offset + d.nbytes].copy()
    m.TCVT(d, s)
    want = golden(x.astype(np_type(src)), src, dst, (src, dst) in WRAP)
    img = raw(m, "ub")[d.ptr.offset:d.ptr.offset + d.nbytes]
    got = img.view(np_type(dst)).reshape(rows, cols)
    np.testing.assert_array_equal(got[:vr, :vc].astype(np.float64) if dst[0] == "f" else
                                  got[:vr, :vc], want.astype(np.float64) if dst[0] == "f"
                                  else want)
    # nothing outside dst's valid region changes
    changed = (img != before).reshape(rows, -1)
    es = d.dtype.size
    assert not changed[vr:].any() and not changed[:, vc * es:].any()


@pytest.mark.parametrize("mode, fn", [
    ("RINT", np.rint), ("CAST_RINT", np.rint), ("ROUND", lambda v: np.sign(v) * np.floor(
        np.abs(v) + 0.5)), ("FLOOR", np.floor), ("CEIL", np.ceil), ("TRUNC", np.trunc),
    ("NONE", np.trunc), ("ODD", np.trunc),   # ODD is f32->f16 only: else like NONE
    ("CAST_FLOOR", np.floor)])
def test_tcvt_round_modes_f32_to_i32(m, mode, fn):
    x = np.array([[-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, -1.2, 1.7] * 4], np.float32)
    s, d = m.tile("Vec", "f32", 1, 32), m.tile("Vec", "i32", 1, 32)
    m.write(s.ptr, x.ravel())
    m.TCVT(d, s, round_mode=mode)
    np.testing.assert_array_equal(m.read_tile(d), fn(x.astype(np.float64)).astype(np.int32))


def test_tcvt_round_to_odd_f32_to_f16(m):
    one_ulp = 2.0 ** -10
    x = np.array([1 + one_ulp / 2, 1 + 3 * one_ulp / 2, 1 + one_ulp / 4] + [0.0] * 13,
                 np.float32)
    s, d = m.tile("Vec", "f32", 1, 16), m.tile("Vec", "f16", 1, 16)
    m.write(s.ptr, x)
    m.TCVT(d, s, round_mode="ODD")
    # an inexact result takes the neighbour with an odd last bit
    np.testing.assert_array_equal(m.read_tile(d)[0, :3].astype(np.float64),
                                  [1 + one_ulp, 1 + one_ulp, 1 + one_ulp])
    m.TCVT(d, s, round_mode="RINT")
    np.testing.assert_array_equal(m.read_tile(d)[0, :3].astype(np.float64),
                                  [1.0, 1 + 2 * one_ulp, 1.0])


@pytest.mark.parametrize("sat, want", [(None, 40000 - 65536), ("OFF", 40000 - 65536),
                                       ("ON", 32767), (True, 32767)])
def test_tcvt_saturation_mode(m, sat, want):
    s, d = m.tile("Vec", "f32", 1, 8), m.tile("Vec", "i16", 1, 16, valid=(1, 8))
    m.write(s.ptr, np.full(8, 40000.0, np.float32))
    kw = {} if sat is None else {"sat_mode": sat}
    m.TCVT(d, s, **kw)
    assert (m.read_tile(d) == want).all()


def test_tcvt_to_f32_never_saturates(m):
    s, d = m.tile("Vec", "f16", 1, 16), m.tile("Vec", "f32", 1, 16)
    m.write(s.ptr, np.array([np.inf, -np.inf] + [1.0] * 14, np.float16))
    m.TCVT(d, s, sat_mode="ON")
    assert m.read_tile(d)[0, 0] == np.inf and m.read_tile(d)[0, 1] == -np.inf


@pytest.mark.parametrize("target, src, dst, msg", [
    ("a2a3", "i8", "i16", r"^TCVT: i8 -> i16 is not a TCVT pair on a2a3; i8 converts to f16$"),
    ("a5", "f32", "ui8", r"^TCVT: f32 -> ui8 is not a TCVT pair on a5"),
    ("a5", "ui16", "f32", r"^TCVT: element type ui16 is not supported on a5; legal: bf16, "),
])
def test_tcvt_pair_must_exist_on_the_target(target, src, dst, msg):
    m = ptosim.Machine(target=target)
    s, d = m.tile("Vec", src, 1, 128), m.tile("Vec", dst, 1, 128)
    with pytest.raises(DtypeError, match=msg):
        m.TCVT(d, s)


def test_tcvt_static_rules(m):
    s, d = m.tile("Vec", "f32", 2, 64), m.tile("Vec", "f16", 2, 64, valid=(1, 64))
    with pytest.raises(VerifyError, match=r"^TCVT: src's valid region 2x64 differs from "
                                          r"dst's 1x64"):
        m.TCVT(d, s)
    d = m.tile("Vec", "f16", 2, 64)
    with pytest.raises(PtoValueError, match=r"^TCVT: round_mode 'NEAREST' is not one of "):
        m.TCVT(d, s, round_mode="NEAREST")
    with pytest.raises(PtoValueError, match=r"^TCVT: sat_mode 'MAYBE' is not ON or OFF"):
        m.TCVT(d, s, sat_mode="MAYBE")


TEXT = """
module {
  func.func @k(%x: !pto.ptr<f32>, %o: !pto.ptr<i32>, %o2: !pto.ptr<i16>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c48 = arith.constant 48 : index
    %c64 = arith.constant 64 : index
    %c40 = arith.constant 40 : index
    %xv = pto.make_tensor_view %x, shape = [%c4, %c64], strides = [%c64, %c1]
      : !pto.tensor_view<4x64xf32>
    %ov = pto.make_tensor_view %o, shape = [%c4, %c64], strides = [%c64, %c1]
      : !pto.tensor_view<4x64xi32>
    %o2v = pto.make_tensor_view %o2, shape = [%c4, %c64], strides = [%c64, %c1]
      : !pto.tensor_view<4x64xi16>
    %xp = pto.partition_view %xv, offsets = [%c0, %c0], sizes = [%c4, %c48]
      : !pto.tensor_view<4x64xf32> -> !pto.partition_tensor_view<4x48xf32>
    %op = pto.partition_view %ov, offsets = [%c0, %c0], sizes = [%c4, %c40]
      : !pto.tensor_view<4x64xi32> -> !pto.partition_tensor_view<4x40xi32>
    %o2p = pto.partition_view %o2v, offsets = [%c0, %c0], sizes = [%c4, %c40]
      : !pto.tensor_view<4x64xi16> -> !pto.partition_tensor_view<4x40xi16>
    pto.section.vector {
      %s = pto.alloc_tile : !pto.tile_buf<vec, 4x64xf32, valid=4x40>
      %d = pto.alloc_tile : !pto.tile_buf<vec, 4x64xi32, valid=4x40>
      %e = pto.alloc_tile : !pto.tile_buf<vec, 4x64xi16, valid=4x40>
      pto.tload ins(%xp : !pto.partition_tensor_view<4x48xf32>)
                outs(%s : !pto.tile_buf<vec, 4x64xf32, valid=4x40>)
      pto.tcvt ins(%s {rmode = #pto<round_mode ROUND>} : !pto.tile_buf<vec, 4x64xf32, valid=4x40>)
               outs(%d : !pto.tile_buf<vec, 4x64xi32, valid=4x40>)
      pto.tcvt ins(%s : !pto.tile_buf<vec, 4x64xf32, valid=4x40>)
               outs(%e : !pto.tile_buf<vec, 4x64xi16, valid=4x40>)
               {rmode = #pto.round_mode<FLOOR>, sat_mode = #pto<saturation_mode ON>}
      pto.tstore ins(%d : !pto.tile_buf<vec, 4x64xi32, valid=4x40>)
                 outs(%op : !pto.partition_tensor_view<4x40xi32>)
      pto.tstore ins(%e : !pto.tile_buf<vec, 4x64xi16, valid=4x40>)
                 outs(%o2p : !pto.partition_tensor_view<4x40xi16>)
    }
    return
  }
}
"""


def test_tcvt_text_form_and_a_view_over_valid():
    x = (np.arange(4 * 64, dtype=np.float32).reshape(4, 64) - 100) * 250.5
    res = Kernel.from_text(TEXT).run({"x": x, "o": np.zeros((4, 64), np.int32),
                                      "o2": np.zeros((4, 64), np.int16)}, target="a5")
    v = x[:, :40].astype(np.float64)
    np.testing.assert_array_equal(res.outputs["o"].reshape(4, 64)[:, :40],
                                  (np.sign(v) * np.floor(np.abs(v) + 0.5)).astype(np.int32))
    np.testing.assert_array_equal(res.outputs["o2"].reshape(4, 64)[:, :40],
                                  np.clip(np.floor(v), -32768, 32767).astype(np.int16))
    np.testing.assert_array_equal(res.outputs["o"].reshape(4, 64)[:, 40:], 0)


def test_text_tload_uses_the_view_extent():
    module = parse_module(TEXT, "k.pto")
    op = next(o for o in module.walk() if o.name == "pto.tload")
    assert op.tile_call()[1] == {"extent": "view"}


def test_text_tcvt_rejects_unknown_round_mode():
    text = TEXT.replace("#pto<round_mode ROUND>", "#pto<round_mode NEAREST>")
    with pytest.raises(ptosim.PtoError, match="round mode"):
        Kernel.from_text(text)


# --- TCI ----------------------------------------------------------------------------------
@pytest.mark.parametrize("name, start, desc, vc", [
    ("i32", 100, False, 64), ("i32", 7, True, 33), ("ui16", 65530, False, 16),
    ("i16", -32766, True, 9), ("ui32", 3, True, 8), ("i16", 32760, False, 128)])
def test_tci_ramp_against_a_loop(m, name, start, desc, vc):
    d = m.tile("Vec", name, 1, 128, valid=(1, vc))
    before = raw(m, "ub")[d.ptr.offset:d.ptr.offset + d.nbytes].copy()
    m.TCI(d, start, descending=desc)
    bits = 8 * d.dtype.size
    want = []
    for j in range(vc):                        # wrap each value to the element type
        v = (start - j if desc else start + j) % (1 << bits)
        want.append(v - (1 << bits) if name[0] == "i" and v >> (bits - 1) else v)
    np.testing.assert_array_equal(m.read_tile(d)[0].astype(np.int64), want)
    img = raw(m, "ub")[d.ptr.offset:d.ptr.offset + d.nbytes]
    assert (img[vc * d.dtype.size:] == before[vc * d.dtype.size:]).all()


def test_tci_rules(m):
    with pytest.raises(VerifyError, match=r"^TCI: TCI fills a one-row tile, got 2 rows"):
        m.TCI(m.tile("Vec", "i32", 2, 8), 0)
    with pytest.raises(DtypeError, match=r"^TCI: element type f32 is not supported on a5; "
                                         r"legal: i16, i32, ui16, ui32"):
        m.TCI(m.tile("Vec", "f32", 1, 8), 0)
    with pytest.raises(DtypeError, match=r"scalar 1.5 is not an integer"):
        m.TCI(m.tile("Vec", "i32", 1, 8), 1.5)


TCI_TEXT = """
module {
  func.func @k(%o: !pto.ptr<i32>, %s: i32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %ov = pto.make_tensor_view %o, shape = [%c1, %c64], strides = [%c64, %c1]
      : !pto.tensor_view<1x64xi32>
    %op = pto.partition_view %ov, offsets = [%c0, %c0], sizes = [%c1, %c64]
      : !pto.tensor_view<1x64xi32> -> !pto.partition_tensor_view<1x64xi32>
    pto.section.vector {
      %d = pto.alloc_tile : !pto.tile_buf<vec, 1x64xi32>
      pto.tci ins(%s {descending = true} : i32) outs(%d : !pto.tile_buf<vec, 1x64xi32>)
      pto.tstore ins(%d : !pto.tile_buf<vec, 1x64xi32>)
                 outs(%op : !pto.partition_tensor_view<1x64xi32>)
    }
    return
  }
}
"""


def test_tci_text_form():
    res = Kernel.from_text(TCI_TEXT).run({"o": np.zeros((1, 64), np.int32), "s": 10},
                                         target="a5")
    np.testing.assert_array_equal(res.outputs["o"].ravel(), 10 - np.arange(64))
