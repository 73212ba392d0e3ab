"""The elementwise vector families, one registry row each: every row against a plain numpy
formulation on f32 and i16 registers with a partial mask (inactive lanes are 0), the
bitwise ops on float bit patterns, the verifier's element-type rule, and the text form."""

import numpy as np
import pytest

import ptosim
from ptosim.errors import PtoError
from ptosim.kernel import Kernel
from ptosim.vector import Mask, VReg

RNG = np.random.default_rng(7)
F32 = {  # name -> numpy formulation (independent of ptosim.isa.alu)
    "vabs": lambda a: np.abs(a), "vneg": lambda a: -a, "vexp": np.exp,
    "vln": lambda a: np.log(np.abs(a) + 1), "vsqrt": lambda a: np.sqrt(np.abs(a)),
    "vrelu": lambda a: np.maximum(a, 0),
    "vadd": np.add, "vsub": np.subtract, "vmul": np.multiply, "vdiv": np.divide,
    "vmax": np.maximum, "vmin": np.minimum,
}
I16 = {
    "vadd": np.add, "vsub": np.subtract, "vmul": np.multiply, "vmax": np.maximum,
    "vmin": np.minimum, "vand": np.bitwise_and, "vor": np.bitwise_or, "vxor": np.bitwise_xor,
    "vabs": np.abs, "vneg": np.negative, "vnot": np.invert,
}


def regs(dtype, arity):
    n = 256 // np.dtype(dtype).itemsize
    if np.dtype(dtype).kind == "f":
        xs = [RNG.normal(size=n).astype(dtype) for _ in range(arity)]
        xs[0][:4] = [0.0, -0.0, 1.5, -2.5]
    else:
        xs = [RNG.integers(-32768, 32768, n).astype(dtype) for _ in range(arity)]
        xs[0][:3] = [-32768, 32767, 0]                       # wrap and the abs edge
    return xs


@pytest.mark.parametrize("dtype, table", [("float32", F32), ("int16", I16)])
def test_rows_match_numpy_with_a_tail_mask(dtype, table):
    m = ptosim.Machine()
    name_of = {"float32": "f32", "int16": "i16"}[dtype]
    for op, fn in table.items():
        arity = 2 if fn in (np.add, np.subtract, np.multiply, np.divide, np.maximum,
                            np.minimum, np.bitwise_and, np.bitwise_or,
                            np.bitwise_xor) else 1
        xs = regs(dtype, arity)
        if op == "vln" or op == "vsqrt":
            xs[0] = np.abs(xs[0]) + 1 if op == "vln" else np.abs(xs[0])
        n = xs[0].size
        active = np.arange(n) < n - 5
        mask = Mask.from_lanes(active, min(np.dtype(dtype).itemsize * 8, 32))
        got = getattr(m, op)(*(VReg.from_lanes(x, name_of) for x in xs), mask).lanes
        with np.errstate(all="ignore"):
            want = fn(*xs).astype(dtype) if op not in ("vln", "vsqrt") else \
                (np.log(xs[0]) if op == "vln" else np.sqrt(xs[0])).astype(dtype)
        want[~active] = 0
        np.testing.assert_array_equal(got, want, err_msg=f"{op} {dtype}")


def test_scalar_forms_and_bitwise_on_floats():
    m = ptosim.Machine()
    x = RNG.normal(size=64).astype(np.float32)
    v, full = VReg.from_lanes(x, "f32"), Mask.from_lanes(np.ones(64, bool), 32)
    np.testing.assert_array_equal(m.vadds(v, np.float32(2.5), full).lanes, x + np.float32(2.5))
    np.testing.assert_array_equal(m.vmaxs(v, np.float32(0), full).lanes, np.maximum(x, 0))
    np.testing.assert_array_equal(m.vlrelu(v, np.float32(0.1), full).lanes,
                                  np.where(x >= 0, x, x * np.float32(0.1)))
    y = RNG.normal(size=64).astype(np.float32)
    got = m.vor(v, VReg.from_lanes(y, "f32"), full).lanes.view(np.uint32)
    np.testing.assert_array_equal(got, x.view(np.uint32) | y.view(np.uint32))
    s = VReg.from_lanes(np.arange(128, dtype=np.int16) - 64, "i16")
    k = Mask.from_lanes(np.ones(128, bool), 16)
    np.testing.assert_array_equal(m.vshrs(s, 2, k).lanes, (np.arange(128) - 64) >> 2)


def test_text_form_and_element_type_rule():
    kernel = """module attributes {{pto.target_arch = "a5", pto.kernel_kind = #pto.kernel_kind<vector>}} {{
  func.func @k() attributes {{pto.aicore}} {{
    %c0 = arith.constant 0 : i64
    %n = arith.constant 64 : i32
    %p = pto.castptr %c0 : i64 -> !pto.ptr<{t}, ub>
    pto.vecscope {{
      %m, %r = pto.plt_b{g} %n : i32 -> !pto.mask<b{g}>, i32
      %a = pto.vlds %p[%c0] : !pto.ptr<{t}, ub> -> !pto.vreg<{l}x{t}>
      %b = pto.{op} %a, %a, %m : !pto.vreg<{l}x{t}>, !pto.vreg<{l}x{t}>, !pto.mask<b{g}> -> !pto.vreg<{l}x{t}>
      pto.vsts %b, %p[%c0], %m : !pto.vreg<{l}x{t}>, !pto.ptr<{t}, ub>, !pto.mask<b{g}>
    }}
    return
  }}
}}
"""
    Kernel.from_text(kernel.format(t="f32", l=64, g=32, op="vadd"), "k.pto").run({})
    with pytest.raises(PtoError, match=r"pto.vshl: src0 has f32 elements; vshl takes "):
        Kernel.from_text(kernel.format(t="f32", l=64, g=32, op="vshl"), "k.pto")
