"""Reductions across the lanes of one vector register (rows in
`ptosim.isa.vector_reduce`): `vcadd`, `vcmax`, `vcmin` over the whole register, their
per-32-byte-block forms `vcgadd`, `vcgmax`, `vcgmin`, and `vcpadd` (adjacent pairs).

Inactive lanes contribute the identity (0 for sums, -inf / the type's minimum for max,
+inf / maximum for min). Sums are formed as a tree of adjacent pairs, level by level,
each add rounded to the element type (the hardware's order is not published; goldens
compare with a tolerance, and the tree is what `vcpadd` exposes one level of).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..dtypes import DType, dtype as _dtype
from ..errors import PtoTypeError
from ..isa import alu
from .ops import _mask, _vreg, active_lanes
from .values import VREG_BYTES, Mask, VReg

BLOCK = 32                      # bytes of one group (vcg*): one VLane
# vcadd widens narrow integers: i8 -> i16, ui8 -> ui16, i16 -> i32, ui16 -> ui32
WIDEN = {"i8": "i16", "si8": "si16", "ui8": "ui16", "i16": "i32", "si16": "si32",
         "ui16": "ui32"}


_INT8 = {"i8", "si8", "ui8"}
_INT16_32 = {"i16", "si16", "ui16", "i32", "si32", "ui32"}
# element types per op (PTOAS docs/isa/micro-isa/10-reduction-ops.md, "A5 types")
LEGAL: dict[str, frozenset[str]] = {
    "vcadd": frozenset(_INT8 | _INT16_32 | {"f16", "f32"}),
    **{op: frozenset(_INT16_32 | {"f16", "f32"})
       for op in ("vcmax", "vcmin", "vcgadd", "vcgmax", "vcgmin")},
    "vcpadd": frozenset({"f16", "f32"}),
}


def _width(d: DType) -> int:
    return min(d.size * 8, 32)


def _operands(op: str, input: Any, mask: Any) -> tuple[VReg, Mask, DType]:
    v, mk = _vreg(op, "input", input), _mask(op, "mask", mask)
    d = v.dtype
    if mk.g != _width(d):
        raise PtoTypeError(f"mask is b{mk.g} but input holds {d.name}; it takes "
                           f"b{_width(d)}", op=op, operand="mask")
    legal = LEGAL[op]
    if d.name not in legal:
        raise PtoTypeError(f"input has {d.name} elements; {op} takes "
                           f"{', '.join(sorted(legal))}", op=op, operand="input")
    return v, mk, d


def tree_sum(x: np.ndarray, d: DType) -> np.ndarray:
    """Sum along the last axis as a tree of adjacent pairs (length a power of two), each
    add rounded to ``d`` (integers wrap)."""
    while x.shape[-1] > 1:
        x = alu.BINARY["add"](np.ascontiguousarray(x[..., 0::2]),
                              np.ascontiguousarray(x[..., 1::2]), d)
    return x[..., 0]


def _identity(kind: str, d: DType) -> Any:
    if kind == "add":
        return 0
    if d.is_float:
        return -np.inf if kind == "max" else np.inf
    info = np.iinfo(d.np)
    return info.min if kind == "max" else info.max


def _masked(v: VReg, mk: Mask, d: DType, kind: str) -> np.ndarray:
    lanes = v.lanes
    return np.where(active_lanes(mk, d), lanes, np.asarray(_identity(kind, d)).astype(d.np))


def vcadd(m: Any, input: Any, mask: Any, dtype: Any = None) -> VReg:
    """``pto.vcadd``: lane 0 = the sum of the active lanes, every other lane 0. i8 / ui8 /
    i16 / ui16 sources give a result of the next wider type (half as many lanes)."""
    v, mk, d = _operands("vcadd", input, mask)
    out_name = WIDEN.get(d.name, d.name)
    if dtype is not None and _dtype(dtype).name != out_name:
        raise PtoTypeError(f"the result holds {_dtype(dtype).name}; vcadd of {d.name} gives "
                           f"{out_name}", op="vcadd", operand="result")
    od = _dtype(out_name)
    x = _masked(v, mk, d, "add")
    if od != d:
        x = x.astype(od.np)                       # exact: the wider type holds every lane
    total = tree_sum(x.astype(od.np), od)
    out = np.zeros(VREG_BYTES // od.size, od.np)
    out[0] = total
    return VReg.from_lanes(out, od)


def _extremum(op: str, kind: str) -> Any:
    pick = np.argmax if kind == "max" else np.argmin

    def impl(m: Any, input: Any, mask: Any) -> VReg:
        v, mk, d = _operands(op, input, mask)
        x = _masked(v, mk, d, kind)
        if d.is_float:
            x32 = x.astype(np.float32)
            nan = np.isnan(x32)
            i = int(np.argmax(nan)) if nan.any() else int(pick(x32))
        else:
            i = int(pick(x))                      # first extremum: numpy takes the first
        out = np.zeros(v.n, d.np)
        out[0] = x[i]
        out.view(f"u{d.size}")[1] = i             # the index as raw unsigned bits
        return VReg.from_lanes(out, d)
    impl.__doc__ = (f"``pto.{op}``: lane 0 = the {kind}imum of the active lanes, lane 1 = "
                    f"the index of its first occurrence (raw unsigned bits), others 0.")
    return impl


vcmax = _extremum("vcmax", "max")
vcmin = _extremum("vcmin", "min")


def _group(op: str, kind: str) -> Any:
    def impl(m: Any, input: Any, mask: Any) -> VReg:
        v, mk, d = _operands(op, input, mask)
        per = BLOCK // d.size
        x = _masked(v, mk, d, kind).reshape(-1, per)
        if kind == "add":
            red = tree_sum(x, d)
        elif d.is_float:
            with np.errstate(invalid="ignore"):
                red = (np.max if kind == "max" else np.min)(x.astype(np.float32), axis=1)
            red = red.astype(d.np)
        else:
            red = (np.max if kind == "max" else np.min)(x, axis=1)
        out = np.zeros(v.n, d.np)
        out[:red.size] = red
        return VReg.from_lanes(out, d)
    impl.__doc__ = (f"``pto.{op}``: lane g (g < 8) = the {kind} of the active lanes of "
                    f"32-byte block g; lanes 8 and up are 0.")
    return impl


vcgadd = _group("vcgadd", "add")
vcgmax = _group("vcgmax", "max")
vcgmin = _group("vcgmin", "min")


def vcpadd(m: Any, input: Any, mask: Any) -> VReg:
    """``pto.vcpadd``: lane i (i < N/2) = lane 2i + lane 2i+1 (inactive lanes count 0),
    the upper half 0: one level of the pair tree (what the hardware and the goldens do;
    the spec text describes a prefix scan, see docs/semantics.md)."""
    v, mk, d = _operands("vcpadd", input, mask)
    x = _masked(v, mk, d, "add")
    out = np.zeros(v.n, d.np)
    out[:v.n // 2] = alu.BINARY["add"](np.ascontiguousarray(x[0::2]),
                                       np.ascontiguousarray(x[1::2]), d)
    return VReg.from_lanes(out, d)
