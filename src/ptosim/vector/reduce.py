"""Semantics of the vector reduction micro ops: ``vcadd``, ``vcmax``, ``vcmin`` (whole
register), ``vcgadd``, ``vcgmax``, ``vcgmin`` (per 32-byte VLane) and ``vcpadd``
(adjacent pairs).

Each function is the ``impl`` of one row of `ptosim.isa.vector_reduce`, called as
``impl(machine, input, mask)``. Lane arithmetic comes from `ptosim.isa.alu`; f16 sums are
accumulated in f32 (exact widening by `ptosim.isa.convert`) and rounded once.

Summation order (`ordered_sum`): the active lanes, in lane order, summed the way numpy's
``np.sum`` does (pairwise: blocks of up to 128 values with eight interleaved partial sums
combined as a balanced tree; below 8 values left to right from +0). The hardware's order
is not published; this one makes the public goldens (numpy sums over the active lanes)
bit-exact. docs/semantics.md, "Vector reductions", has the evidence.
"""

from __future__ import annotations

from functools import reduce
from typing import Any

import numpy as np

from ..dtypes import DType, dtype as _dtype
from ..errors import PtoTypeError
from ..isa import alu, convert as C
from .ops import _mask, _vreg, active_lanes
from .values import VREG_BYTES, Mask, VReg

VLANE_BYTES = 32                      # the unit of the vcg* group reductions
_F32 = _dtype("f32")

# element types per op (PTO-Gym micro spec "A5 types"; PTOAS VPTO.cpp verifiers)
_I8 = ("i8", "si8", "ui8")
_I16 = ("i16", "si16", "ui16")
_I32 = ("i32", "si32", "ui32")
REDUCE_DTYPES: dict[str, tuple[str, ...]] = {
    "vcadd": (*_I8, *_I16, *_I32, "f16", "f32"),
    "vcmax": (*_I16, *_I32, "f16", "f32"), "vcmin": (*_I16, *_I32, "f16", "f32"),
    "vcgadd": (*_I16, *_I32, "f16", "f32"), "vcgmax": (*_I16, *_I32, "f16", "f32"),
    "vcgmin": (*_I16, *_I32, "f16", "f32"),
    "vcpadd": ("f16", "f32"),
}


def vcadd_result(src: str) -> str:
    """The result element type of ``vcadd``: 8- and 16-bit integers widen (keeping their
    signedness), everything else stays (PTOAS verifyWideningReductionVecOp)."""
    widen = {"i8": "i16", "si8": "si16", "ui8": "ui16", "i16": "i32", "si16": "si32",
             "ui16": "ui32"}
    return widen.get(src, src)


def reduce_error(op: str, src: str, result: str, mask_g: int) -> str | None:
    """Why ``op`` on ``src`` elements giving ``result`` elements with a ``b<mask_g>`` mask
    is illegal, or None."""
    legal = REDUCE_DTYPES[op]
    if src not in legal:
        return f"input has {src} elements; {op} takes {', '.join(legal)}"
    want = vcadd_result(src) if op == "vcadd" else src
    if result != want:
        return f"the result of {op} on {src} elements is !pto.vreg<" \
               f"{VREG_BYTES // _dtype(want).size}x{want}>, got {result} elements"
    g = min(_dtype(src).size * 8, 32)
    if mask_g != g:
        return f"mask is !pto.mask<b{mask_g}> but input has {src} elements; it takes " \
               f"!pto.mask<b{g}>"
    return None


def check_row(op: str) -> Any:
    def check(t: dict[str, Any]) -> str | None:
        return reduce_error(op, t["input"], t["result"], t["mask"])
    return check


# --- lane arithmetic over a list of values ---------------------------------------------------
def ordered_sum(x: np.ndarray, dt: DType) -> np.ndarray:
    """The sum of the 1-D array ``x`` (carrier of ``dt``, integers already widened) in
    numpy's pairwise order, with `alu` additions in ``dt``; a 0-d array."""
    def add(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return alu.BINARY["add"](a, b, dt)
    n = x.size
    if n < 8:
        return reduce(add, (x[i:i + 1] for i in range(n)), np.zeros(1, dt.np)).reshape(())
    if n <= 128:
        full = n - n % 8
        r = reduce(add, (x[i:i + 8] for i in range(8, full, 8)), x[:8])
        res = add(add(add(r[0:1], r[1:2]), add(r[2:3], r[3:4])),
                  add(add(r[4:5], r[5:6]), add(r[6:7], r[7:8])))
        return reduce(add, (x[i:i + 1] for i in range(full, n)), res).reshape(())
    half = n // 2
    half -= half % 8
    return add(ordered_sum(x[:half], dt), ordered_sum(x[half:], dt)).reshape(())


def _sum(values: np.ndarray, src: DType, dst: DType) -> Any:
    """Sum of ``values`` (``src`` carrier) as a ``dst`` element: floats through f32,
    integers widened to ``dst`` and wrapped there."""
    if src.is_float:
        wide = values if src == _F32 else C.convert(values, src, _F32)
        acc = ordered_sum(wide, _F32)
        return C.convert(acc, _F32, dst, rnd="R")
    return ordered_sum(C.convert(values, src, dst), dst)


def _identity(op_max: bool, dt: DType) -> Any:
    """What an inactive lane contributes to a max (min): -inf (+inf) or the integer limit."""
    if dt.is_float:
        return np.asarray(-np.inf if op_max else np.inf, dt.np)
    lo, hi = C.int_range(dt)
    return np.asarray(lo if op_max else hi, dt.np)


def _extreme(values: np.ndarray, op_max: bool, dt: DType) -> np.ndarray:
    fn = alu.BINARY["max" if op_max else "min"]
    if values.size == 0:
        return _identity(op_max, dt)
    return reduce(lambda a, b: fn(a, b, dt),
                  (values[i:i + 1] for i in range(values.size))).reshape(())


# --- the ops ----------------------------------------------------------------------------------
def _operands(op: str, input: Any, mask: Any) -> tuple[VReg, Mask, np.ndarray]:
    v = _vreg(op, "input", input)
    mk = _mask(op, "mask", mask)
    d = v.dtype
    why = reduce_error(op, d.name, vcadd_result(d.name) if op == "vcadd" else d.name, mk.g)
    if why is not None:
        raise PtoTypeError(why, op=op)
    return v, mk, active_lanes(mk, d)


def vcadd(m: Any, input: Any, mask: Any) -> VReg:
    """``pto.vcadd``: the sum of the active lanes in lane 0 (8/16-bit integers widen to
    twice the width, the sum wraps there), every other lane 0; no active lane: 0."""
    v, _, act = _operands("vcadd", input, mask)
    d = _dtype(vcadd_result(v.dtype.name))
    out = np.zeros(VREG_BYTES // d.size, d.np)
    out[0] = _sum(v.lanes[act], v.dtype, d)
    return VReg.from_lanes(out, d)


def _argext(op: str, op_max: bool) -> Any:
    def impl(m: Any, input: Any, mask: Any) -> VReg:
        v, _, act = _operands(op, input, mask)
        d, lanes = v.dtype, v.lanes
        best = _extreme(lanes[act], op_max, d)
        hit = act & ((lanes == best) | (np.isnan(lanes) & np.isnan(best)
                                        if d.is_float else False))
        idx = int(np.argmax(hit)) if hit.any() else 0
        out = np.zeros(VREG_BYTES // d.size, d.np)
        out[0] = best
        out.view(f"u{d.size}")[1] = idx                 # the index as raw unsigned bits
        return VReg.from_lanes(out, d)
    word = "largest" if op_max else "smallest"
    impl.__doc__ = (f"``pto.{op}``: the {word} active lane in lane 0 and the index of its "
                    f"first occurrence (raw unsigned bits) in lane 1, other lanes 0; "
                    f"inactive lanes count as {'-inf' if op_max else '+inf'} (integers: "
                    f"the type's limit), NaN wins.")
    return impl


vcmax = _argext("vcmax", True)
vcmin = _argext("vcmin", False)


def _group(op: str, kind: str) -> Any:
    def impl(m: Any, input: Any, mask: Any) -> VReg:
        v, _, act = _operands(op, input, mask)
        d = v.dtype
        k = VLANE_BYTES // d.size
        lanes, out = v.lanes.reshape(8, k), np.zeros(VREG_BYTES // d.size, d.np)
        for g, (vals, on) in enumerate(zip(lanes, act.reshape(8, k))):
            out[g] = _sum(vals[on], d, d) if kind == "add" else \
                _extreme(vals[on], kind == "max", d)
        return VReg.from_lanes(out, d)
    impl.__doc__ = (f"``pto.{op}``: per 32-byte VLane g (0..7), the {kind} of its active "
                    f"lanes in lane g; lanes 8.. are 0.")
    return impl


vcgadd = _group("vcgadd", "add")
vcgmax = _group("vcgmax", "max")
vcgmin = _group("vcgmin", "min")


def vcpadd(m: Any, input: Any, mask: Any) -> VReg:
    """``pto.vcpadd``: lane i < N/2 = lane 2i + lane 2i+1 (inactive lanes count as 0),
    the upper half 0 -- the adjacent-pair add the Gym goldens and pto-isa's A5
    TPairReduceSum use, not the prefix scan the spec text describes."""
    v, _, act = _operands("vcpadd", input, mask)
    d = v.dtype
    x = np.where(act, v.lanes, np.zeros(1, d.np))
    out = np.zeros(VREG_BYTES // d.size, d.np)
    out[:x.size // 2] = alu.BINARY["add"](x[0::2], x[1::2], d)
    return VReg.from_lanes(out, d)
