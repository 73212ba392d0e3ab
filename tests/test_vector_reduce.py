"""Lane reductions (rows of ptosim.isa.vector_reduce) against explicit loops: sums as the
documented pair tree, extremum and first index, 32-byte groups, adjacent pairs, partial
masks, special values, widening, the text form and the verifier rules."""

import numpy as np
import pytest

import ptosim
from ptosim.errors import PtoError, PtoTypeError
from ptosim.kernel import Kernel
from ptosim.vector import Mask, VReg

RNG = np.random.default_rng(41)


def reg(x, t):
    return VReg.from_lanes(np.asarray(x), t)


def tail(n, keep, g):
    return Mask.from_lanes(np.arange(n) < keep, g)


def pair_tree(x, t):
    """Level by level: lane i of the next level = lane 2i + lane 2i+1, rounded to t."""
    x = list(x)
    while len(x) > 1:
        x = [t(x[2 * i] + x[2 * i + 1]) for i in range(len(x) // 2)]
    return x[0]


@pytest.mark.parametrize("keep", [64, 37, 1, 0])
def test_vcadd_f32_is_the_pair_tree_over_active_lanes(keep):
    m = ptosim.Machine()
    x = RNG.uniform(-8, 8, 64).astype(np.float32)
    got = m.vcadd(reg(x, "f32"), tail(64, keep, 32)).lanes
    active = [x[i] if i < keep else np.float32(0) for i in range(64)]
    assert got[0] == pair_tree(active, np.float32)
    assert not got[1:].any()
    assert abs(float(got[0]) - float(np.sum(x[:keep], dtype=np.float64))) < 1e-4


def test_vcadd_f16_rounds_every_level():
    m = ptosim.Machine()
    x = RNG.uniform(-4, 4, 128).astype(np.float16)
    got = m.vcadd(reg(x, "f16"), tail(128, 128, 16)).lanes
    assert got[0] == pair_tree(list(x), np.float16)


@pytest.mark.parametrize("src, out", [("si8", "si16"), ("ui8", "ui16"), ("i16", "i32"),
                                      ("ui16", "ui32"), ("i32", "i32")])
def test_vcadd_integers_widen_and_wrap(src, out):
    m = ptosim.Machine()
    np_src = {"si8": np.int8, "ui8": np.uint8, "i16": np.int16, "ui16": np.uint16,
              "i32": np.int32}[src]
    n = 256 // np.dtype(np_src).itemsize
    info = np.iinfo(np_src)
    x = RNG.integers(info.min, info.max, n, endpoint=True).astype(np_src)
    g = min(np.dtype(np_src).itemsize * 8, 32)
    got = m.vcadd(reg(x, src), tail(n, n - 3, g))
    assert got.dtype.name == out and got.n == 256 // got.dtype.size
    total = sum(int(v) for v in x[:n - 3])
    bits = got.dtype.size * 8
    want = total & ((1 << bits) - 1)
    assert int(got.lanes.view(f"u{got.dtype.size}")[0]) == want
    assert not got.lanes[1:].any()


@pytest.mark.parametrize("op", ["vcmax", "vcmin"])
def test_extremum_and_first_index(op):
    m = ptosim.Machine()
    x = RNG.uniform(-8, 8, 64).astype(np.float32)
    x[[5, 9, 40]] = 100.0 if op == "vcmax" else -100.0        # ties: the first wins
    x[45] = 1000.0 if op == "vcmax" else -1000.0              # inactive: ignored
    got = getattr(m, op)(reg(x, "f32"), tail(64, 45, 32)).lanes
    assert got[0] == x[5] and got.view(np.uint32)[1] == 5 and not got[2:].any()


def test_vcmax_all_inactive_gives_minus_inf_and_int_minimum():
    m = ptosim.Machine()
    got = m.vcmax(reg(np.zeros(64, np.float32), "f32"), tail(64, 0, 32)).lanes
    assert got[0] == -np.inf
    got = m.vcmin(reg(np.zeros(128, np.int16), "i16"), tail(128, 0, 16)).lanes
    assert got[0] == np.iinfo(np.int16).max


def test_vcmax_nan_wins():
    m = ptosim.Machine()
    x = np.arange(64, dtype=np.float32)
    x[7] = np.nan
    got = m.vcmax(reg(x, "f32"), tail(64, 64, 32)).lanes
    assert np.isnan(got[0]) and got.view(np.uint32)[1] == 7


@pytest.mark.parametrize("op, fn", [("vcgadd", None), ("vcgmax", np.max), ("vcgmin", np.min)])
def test_group_reductions_per_32_byte_block(op, fn):
    m = ptosim.Machine()
    x = RNG.uniform(-8, 8, 64).astype(np.float32)
    keep = 43
    got = getattr(m, op)(reg(x, "f32"), tail(64, keep, 32)).lanes
    ident = {"vcgadd": 0.0, "vcgmax": -np.inf, "vcgmin": np.inf}[op]
    act = np.where(np.arange(64) < keep, x, np.float32(ident)).reshape(8, 8)
    for g in range(8):
        want = pair_tree(list(act[g]), np.float32) if fn is None else fn(act[g])
        assert got[g] == want
    assert not got[8:].any()


def test_vcpadd_adds_adjacent_pairs_into_the_low_half():
    m = ptosim.Machine()
    x = RNG.uniform(-8, 8, 64).astype(np.float32)
    got = m.vcpadd(reg(x, "f32"), tail(64, 39, 32)).lanes
    act = np.where(np.arange(64) < 39, x, np.float32(0))
    want = np.zeros(64, np.float32)
    for i in range(32):
        want[i] = np.float32(act[2 * i] + act[2 * i + 1])
    np.testing.assert_array_equal(got, want)


def test_runtime_rules():
    m = ptosim.Machine()
    with pytest.raises(PtoTypeError, match=r"vcpadd: input has i32 elements; vcpadd takes "
                                           r"f16, f32"):
        m.vcpadd(reg(np.zeros(64, np.int32), "i32"), tail(64, 64, 32))
    with pytest.raises(PtoTypeError, match=r"vcmax: input has si8 elements"):
        m.vcmax(reg(np.zeros(256, np.int8), "si8"), tail(256, 256, 8))
    with pytest.raises(PtoTypeError, match=r"vcadd: mask is b16 but input holds f32"):
        m.vcadd(reg(np.zeros(64, np.float32), "f32"), tail(128, 128, 16))


HEAD = """module attributes {pto.target_arch = "a5", pto.kernel_kind = #pto.kernel_kind<vector>} {
  func.func @k() attributes {pto.aicore} {
    %c0 = arith.constant 0 : i64
    %ci = arith.constant 0 : index
    %n = arith.constant 64 : i32
    %p = pto.castptr %c0 : i64 -> !pto.ptr<f32, ub>
    %b = pto.castptr %c0 : i64 -> !pto.ptr<si8, ub>
    pto.vecscope {
      %m, %r = pto.plt_b32 %n : i32 -> !pto.mask<b32>, i32
      %m8, %r8 = pto.plt_b8 %n : i32 -> !pto.mask<b8>, i32
      %x = pto.vlds %p[%ci] : !pto.ptr<f32, ub> -> !pto.vreg<64xf32>
      %y = pto.vlds %b[%ci] : !pto.ptr<si8, ub> -> !pto.vreg<256xsi8>
      BODY
    }
    return
  }
}
"""
F, M = "!pto.vreg<64xf32>", "!pto.mask<b32>"


@pytest.mark.parametrize("body", [
    f"%o = pto.{op} %x, %m : {F}, {M} -> {F}"
    for op in ("vcadd", "vcmax", "vcmin", "vcgadd", "vcgmax", "vcgmin", "vcpadd")] + [
    "%o = pto.vcadd %y, %m8 : !pto.vreg<256xsi8>, !pto.mask<b8> -> !pto.vreg<128xsi16>"])
def test_text_forms_parse_print_and_run(body):
    k = Kernel.from_text(HEAD.replace("BODY", body), "k.pto")
    k.run({})
    assert str(Kernel.from_text(str(k.module), "again.pto").module) == str(k.module)


@pytest.mark.parametrize("body, message", [
    ("%o = pto.vcadd %y, %m8 : !pto.vreg<256xsi8>, !pto.mask<b8> -> !pto.vreg<256xsi8>",
     r"pto.vcadd: the result has si8 elements; vcadd of si8 gives si16"),
    (f"%o = pto.vcmax %x, %m8 : {F}, !pto.mask<b8> -> {F}",
     r"pto.vcmax: mask is !pto.mask<b8> but input has f32 elements; it takes !pto.mask<b32>"),
    ("%o = pto.vcgmax %y, %m8 : !pto.vreg<256xsi8>, !pto.mask<b8> -> !pto.vreg<256xsi8>",
     r"pto.vcgmax: input has si8 elements; vcgmax takes"),
    (f"%o = pto.vcpadd %x, %m : {F}, {M} -> !pto.vreg<64xi32>",
     r"pto.vcpadd: the result has i32 elements; vcpadd of f32 gives f32"),
])
def test_verifier_rules(body, message):
    with pytest.raises(PtoError, match=message):
        Kernel.from_text(HEAD.replace("BODY", body), "k.pto")
