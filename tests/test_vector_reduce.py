"""Vector reductions as ops, against numpy formulations written with explicit loops: whole
register (vcadd / vcmax / vcmin: result and index lanes, the identity of inactive lanes),
per 32-byte VLane (vcgadd / vcgmax / vcgmin: lanes 0..7), the adjacent-pair add vcpadd;
f32/f16 sums bit-exact with np.sum over the active lanes (the goldens' order); integer
widening and wrap-around; the text form; one negative test per verifier rule."""

from __future__ import annotations

import numpy as np
import pytest

import ptosim
from ptosim import dtype
from ptosim.errors import PtoError, PtoTypeError
from ptosim.kernel import Kernel
from ptosim.vector import Mask, VReg

RNG = np.random.default_rng(13)


def lanes(name: str) -> int:
    return 256 // dtype(name).size


def mask_for(active: np.ndarray, name: str) -> Mask:
    return Mask.from_lanes(active, min(dtype(name).size * 8, 32))


def values(name: str) -> np.ndarray:
    d = dtype(name)
    if d.is_float:      # magnitudes spread over 7 decades so the summation order shows
        x = RNG.uniform(-8, 8, lanes(name)) * 10.0 ** RNG.integers(-3, 4, lanes(name))
        return x.astype(d.np)
    info = np.iinfo(d.np)
    return RNG.integers(info.min, info.max, lanes(name), endpoint=True).astype(d.np)


def bits(x: np.ndarray) -> np.ndarray:
    return x.view(f"u{x.dtype.itemsize}")


MASKS = {"all": lambda n: np.ones(n, bool), "tail": lambda n: np.arange(n) < n - 11,
         "holes": lambda n: np.arange(n) % 3 != 1, "none": lambda n: np.zeros(n, bool)}


@pytest.mark.parametrize("kind", list(MASKS))
@pytest.mark.parametrize("name", ["f32", "f16"])
def test_vcadd_float_is_np_sum_of_the_active_lanes(name, kind):
    m = ptosim.Machine()
    for _ in range(20):
        x = values(name)
        act = MASKS[kind](x.size)
        got = m.vcadd(VReg.from_lanes(x, name), mask_for(act, name)).lanes
        want = np.zeros_like(x)
        want[0] = np.sum(x[act], dtype=x.dtype) if act.any() else 0
        assert np.array_equal(bits(got), bits(want))


@pytest.mark.parametrize("name, wide", [("si8", np.int16), ("ui8", np.uint16),
                                        ("si16", np.int32), ("ui16", np.uint32),
                                        ("si32", np.int32), ("ui32", np.uint32)])
def test_vcadd_integers_widen_and_wrap(name, wide):
    m = ptosim.Machine()
    x = values(name)
    act = MASKS["holes"](x.size)
    got = m.vcadd(VReg.from_lanes(x, name), mask_for(act, name))
    total = 0
    for v, a in zip(x.tolist(), act):
        total += v if a else 0
    n = 256 // np.dtype(wide).itemsize
    want = np.zeros(n, wide)
    want[0] = np.array(total % (1 << (8 * np.dtype(wide).itemsize)), np.uint64).astype(wide)
    assert got.dtype.np == wide and np.array_equal(got.lanes, want)


@pytest.mark.parametrize("name", ["f32", "f16", "si16", "ui16", "si32", "ui32"])
@pytest.mark.parametrize("op", ["vcmax", "vcmin"])
def test_vcmax_vcmin_value_and_first_index(op, name):
    m = ptosim.Machine()
    x = values(name)
    x[[5, 40]] = x.max() if op == "vcmax" else x.min()       # a tie: the first index wins
    for kind, gen in MASKS.items():
        act = gen(x.size)
        got = m.__getattribute__(op)(VReg.from_lanes(x, name), mask_for(act, name)).lanes
        best, idx = None, 0
        for i, (v, a) in enumerate(zip(x.tolist(), act)):
            if a and (best is None or (v > best if op == "vcmax" else v < best)):
                best, idx = v, i
        if best is None:                                      # no active lane: the identity
            if dtype(name).is_float:
                best = -np.inf if op == "vcmax" else np.inf
            else:
                info = np.iinfo(x.dtype)
                best = info.min if op == "vcmax" else info.max
        want = np.zeros_like(x)
        want[0] = best
        bits(want)[1] = idx
        assert np.array_equal(bits(got), bits(want)), kind


def test_vcmax_nan_and_inactive_extremes():
    m = ptosim.Machine()
    x = np.arange(64, dtype=np.float32)
    x[10] = 1000.0                                   # inactive: ignored
    act = np.arange(64) != 10
    got = m.vcmax(VReg.from_lanes(x, "f32"), mask_for(act, "f32")).lanes
    assert got[0] == 63 and bits(got)[1] == 63
    x[20] = np.nan
    got = m.vcmin(VReg.from_lanes(x, "f32"), mask_for(act, "f32")).lanes
    assert np.isnan(got[0]) and bits(got)[1] == 20


@pytest.mark.parametrize("name", ["f32", "f16", "si16", "si32", "ui32"])
@pytest.mark.parametrize("op", ["vcgadd", "vcgmax", "vcgmin"])
def test_group_reductions_per_32_byte_vlane(op, name):
    m = ptosim.Machine()
    x = values(name)
    if not dtype(name).is_float:
        x = (x // 64).astype(x.dtype) if op == "vcgadd" else x
    for kind, gen in MASKS.items():
        act = gen(x.size)
        got = getattr(m, op)(VReg.from_lanes(x, name), mask_for(act, name)).lanes
        k = 32 // x.dtype.itemsize
        want = np.zeros_like(x)
        for g in range(8):
            seg = [v for v, a in zip(x[g * k:(g + 1) * k], act[g * k:(g + 1) * k]) if a]
            if op == "vcgadd":
                want[g] = np.sum(np.array(seg, x.dtype), dtype=x.dtype)
            elif seg:
                want[g] = max(seg) if op == "vcgmax" else min(seg)
            elif dtype(name).is_float:
                want[g] = -np.inf if op == "vcgmax" else np.inf
            else:
                info = np.iinfo(x.dtype)
                want[g] = info.min if op == "vcgmax" else info.max
        assert np.array_equal(bits(got), bits(want)), kind


@pytest.mark.parametrize("name", ["f32", "f16"])
def test_vcpadd_adjacent_pairs_into_the_low_half(name):
    """dst[i] = src[2i] + src[2i+1] (inactive lanes 0), upper half 0: Gym reduction/vcpadd
    and vcpadd-tail; pto-isa A5 TPairReduceSum."""
    m = ptosim.Machine()
    x = values(name)
    for kind, gen in MASKS.items():
        act = gen(x.size)
        got = m.vcpadd(VReg.from_lanes(x, name), mask_for(act, name)).lanes
        want = np.zeros_like(x)
        for i in range(x.size // 2):
            a = x[2 * i] if act[2 * i] else x.dtype.type(0)
            b = x[2 * i + 1] if act[2 * i + 1] else x.dtype.type(0)
            want[i] = (np.float32(a) + np.float32(b)).astype(x.dtype)
        assert np.array_equal(bits(got), bits(want)), kind


def test_gym_worked_vcgmax_tie_block():
    """PTO-Gym reduction/vcgmax-tie: every block [7, 7, -3, 1, 0.5, -2, 4, 6]."""
    m = ptosim.Machine()
    x = np.tile(np.array([7.0, 7.0, -3.0, 1.0, 0.5, -2.0, 4.0, 6.0], np.float32), 8)
    full = mask_for(np.ones(64, bool), "f32")
    assert m.vcgmax(VReg.from_lanes(x, "f32"), full).lanes[:9].tolist() == [7.0] * 8 + [0]
    assert m.vcgmin(VReg.from_lanes(x, "f32"), full).lanes[:8].tolist() == [-3.0] * 8


# --- text form and verifier ------------------------------------------------------------------
KERNEL = """module attributes {{pto.target_arch = "a5", pto.kernel_kind = #pto.kernel_kind<vector>}} {{
  func.func @k() attributes {{pto.aicore}} {{
    %c0 = arith.constant 0 : i64
    %c512 = arith.constant 512 : i64
    %n = arith.constant 1000 : i32
    %p = pto.castptr %c0 : i64 -> !pto.ptr<{s}, ub>
    %q = pto.castptr %c512 : i64 -> !pto.ptr<{d}, ub>
    pto.vecscope {{
      %m, %r = pto.plt_b{g} %n : i32 -> !pto.mask<b{g}>, i32
      %mo, %ro = pto.plt_b{go} %n : i32 -> !pto.mask<b{go}>, i32
      %a = pto.vlds %p[%c0] : !pto.ptr<{s}, ub> -> !pto.vreg<{ns}x{s}>
      %b = pto.{op} %a, %m : !pto.vreg<{ns}x{s}>, !pto.mask<b{g}> -> !pto.vreg<{nd}x{d}>
      pto.vsts %b, %q[%c0], %mo : !pto.vreg<{nd}x{d}>, !pto.ptr<{d}, ub>, !pto.mask<b{go}>
    }}
    return
  }}
}}
"""


def kernel(op: str, s: str, d: str, g: int | None = None) -> str:
    gs = min(dtype(s).size * 8, 32)
    return KERNEL.format(op=op, s=s, d=d, g=g or gs, go=min(dtype(d).size * 8, 32),
                         ns=lanes(s), nd=lanes(d))


@pytest.mark.parametrize("op, s, d", [("vcadd", "f32", "f32"), ("vcadd", "si8", "si16"),
                                      ("vcadd", "ui16", "ui32"), ("vcmax", "f16", "f16"),
                                      ("vcgadd", "si16", "si16"), ("vcpadd", "f32", "f32")])
def test_text_form_runs(op, s, d):
    Kernel.from_text(kernel(op, s, d), "k.pto").run({})


@pytest.mark.parametrize("op, s, d, g, message", [
    ("vcadd", "si64", "si64", None, r"input has si64 elements; vcadd takes i8, si8"),
    ("vcadd", "bf16", "bf16", None, r"input has bf16 elements; vcadd takes"),
    ("vcadd", "si8", "si8", None,
     r"the result of vcadd on si8 elements is !pto.vreg<128xsi16>, got si8 elements"),
    ("vcadd", "f32", "f32", 16,
     r"mask is !pto.mask<b16> but input has f32 elements; it takes !pto.mask<b32>"),
    ("vcmax", "si8", "si8", None, r"input has si8 elements; vcmax takes i16"),
    ("vcmin", "f32", "si32", None,
     r"the result of vcmin on f32 elements is !pto.vreg<64xf32>, got si32 elements"),
    ("vcgadd", "ui8", "ui8", None, r"input has ui8 elements; vcgadd takes"),
    ("vcgmax", "f16", "f16", 32, r"mask is !pto.mask<b32> but input has f16 elements"),
    ("vcgmin", "bf16", "bf16", None, r"input has bf16 elements; vcgmin takes"),
    ("vcpadd", "si32", "si32", None, r"input has si32 elements; vcpadd takes f16, f32"),
])
def test_verifier_rules(op, s, d, g, message):
    text = kernel(op, s, d, g)
    with pytest.raises(PtoError, match=rf"pto.{op}: {message}"):
        Kernel.from_text(text, "k.pto")


def test_python_face_errors():
    m = ptosim.Machine()
    v = VReg.from_lanes(np.zeros(64, np.int32), "si32")
    with pytest.raises(PtoTypeError, match=r"vcpadd.*input has si32 elements"):
        m.vcpadd(v, mask_for(np.ones(64, bool), "si32"))
    with pytest.raises(PtoTypeError, match=r"vcadd.*mask is !pto.mask<b16>"):
        m.vcadd(v, Mask.from_lanes(np.ones(128, bool), 16))
    with pytest.raises(PtoTypeError, match=r"vcgadd.*input must be a vector register"):
        m.vcgadd(np.zeros(64), mask_for(np.ones(64, bool), "si32"))
