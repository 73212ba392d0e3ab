"""Compare, select and carry-chain vector micro-ops (PTO micro ISA compare/select and
binary "carry" families; rows in `ptosim.isa.vector_cmp`).

Lane arithmetic comes from `ptosim.isa.alu` (`compare`, `select`, `addc` ...). A
predicate result has one bit per lane at the element's width; bits of inactive lanes are
0, as are inactive lanes of a computed register (the zeroing convention of the other
compute ops). `vsel` and `vselr` compute every lane: their predicate or index vector *is*
the selection, there is no separate execution mask.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..dtypes import DType
from ..errors import PtoTypeError, PtoValueError
from ..isa import alu
from .ops import _mask, _vreg, active_lanes, zeroing
from .values import Mask, VReg

CMP_MODES = alu.CMP_MODES
CARRY_DTYPES = frozenset({"i32", "si32", "ui32"})      # A5: 32-bit carry chains only


def _width_of(d: DType) -> int:
    return min(d.size * 8, 32)


def _mask_for(op: str, name: str, mk: Mask, d: DType) -> None:
    if mk.g != _width_of(d):
        raise PtoTypeError(f"{name} is b{mk.g} but the registers hold {d.name}; it takes "
                           f"b{_width_of(d)}", op=op, operand=name)


def _same(op: str, d: DType, name: str, r: VReg) -> None:
    if r.dtype != d:
        raise PtoTypeError(f"{name} has {r.dtype.name} elements but src0 has {d.name}",
                           op=op, operand=name)


def _mode(op: str, mode: Any) -> str:
    if not isinstance(mode, str) or mode.lower() not in CMP_MODES:
        raise PtoValueError(f"mode must be one of {', '.join(CMP_MODES)}, got {mode!r}",
                            op=op, operand="mode")
    return mode.lower()


def _predicate(lanes: np.ndarray, g: int) -> Mask:
    return Mask.from_lanes(lanes, g)


def vcmp(m: Any, src0: Any, src1: Any, mask: Any, mode: str) -> Mask:
    """``pto.vcmp``: lane ``i`` of the result is ``src0[i] <mode> src1[i]`` where ``mask``
    is active, 0 elsewhere (floats: IEEE, NaN compares false except ``ne``; unsigned
    element types compare unsigned)."""
    a, b = _vreg("vcmp", "src0", src0), _vreg("vcmp", "src1", src1)
    mk = _mask("vcmp", "mask", mask)
    d = a.dtype
    _same("vcmp", d, "src1", b)
    _mask_for("vcmp", "mask", mk, d)
    hit = alu.compare(_mode("vcmp", mode), a.lanes, b.lanes, d)
    return _predicate(hit & active_lanes(mk, d), _width_of(d))


def vcmps(m: Any, src: Any, scalar: Any, mask: Any, mode: str) -> Mask:
    """``pto.vcmps``: ``src[i] <mode> scalar`` on the active lanes. An integer scalar is
    taken as the bit pattern of the element type (PTOAS passes a signless ``iN``, e.g.
    ``i16`` for ``ui16`` registers)."""
    a = _vreg("vcmps", "src", src)
    mk = _mask("vcmps", "mask", mask)
    d = a.dtype
    _mask_for("vcmps", "mask", mk, d)
    if d.kind in ("int", "uint"):
        if isinstance(scalar, (bool, float, np.floating)) or \
                not isinstance(scalar, (int, np.integer)):
            raise PtoTypeError(f"scalar must be an integer for {d.name} registers, got "
                               f"{scalar!r}", op="vcmps", operand="scalar")
    elif not isinstance(scalar, (int, float, np.integer, np.floating)) or \
            isinstance(scalar, bool):
        raise PtoTypeError(f"scalar must be a number, got {scalar!r}", op="vcmps",
                           operand="scalar")
    hit = alu.compare(_mode("vcmps", mode), a.lanes, scalar, d)
    return _predicate(hit & active_lanes(mk, d), _width_of(d))


def vsel(m: Any, src0: Any, src1: Any, mask: Any) -> VReg:
    """``pto.vsel``: lane ``i`` is ``src0[i]`` where the predicate is set, else
    ``src1[i]`` (bit patterns kept: NaN payloads, -0.0)."""
    a, b = _vreg("vsel", "src0", src0), _vreg("vsel", "src1", src1)
    mk = _mask("vsel", "mask", mask)
    d = a.dtype
    _same("vsel", d, "src1", b)
    _mask_for("vsel", "mask", mk, d)
    return VReg.from_lanes(alu.select(active_lanes(mk, d), a.lanes, b.lanes), d)


def vselr(m: Any, src: Any, index: Any) -> VReg:
    """``pto.vselr``: lane ``i`` is ``src[index[i]]``. ``index`` holds unsigned integers of
    the element's width; an index past the last lane is an error naming the lane (no
    source says what the hardware does with one)."""
    a, ix = _vreg("vselr", "src", src), _vreg("vselr", "index", index)
    d = a.dtype
    if ix.dtype.kind not in ("int", "uint") or ix.dtype.size != d.size:
        raise PtoTypeError(f"index must hold {d.size * 8}-bit integers (one per lane of "
                           f"{d.name}), got {ix.dtype.name}", op="vselr", operand="index")
    idx = ix.lanes.view(f"u{d.size}").astype(np.int64)
    bad = np.flatnonzero(idx >= a.n)
    if bad.size:
        lane = int(bad[0])
        raise PtoValueError(f"index lane {lane} is {int(idx[lane])}, past the last of the "
                            f"{a.n} lanes of src", op="vselr", operand="index")
    return VReg.from_lanes(a.lanes[idx], d)


def _carry_types(op: str, a: VReg, b: VReg, mk: Mask) -> DType:
    d = a.dtype
    if d.name not in CARRY_DTYPES:
        raise PtoTypeError(f"src0 has {d.name} elements; {op} takes "
                           f"{', '.join(sorted(CARRY_DTYPES))}", op=op, operand="src0")
    _same(op, d, "src1", b)
    _mask_for(op, "mask", mk, d)
    return d


def _chain(op: str, fn: Any, src0: Any, src1: Any, carry_in: Any, mask: Any
           ) -> tuple[VReg, Mask]:
    a, b = _vreg(op, "src0", src0), _vreg(op, "src1", src1)
    mk = _mask(op, "mask", mask)
    d = _carry_types(op, a, b, mk)
    if carry_in is None:
        out, carry = fn(a.lanes, b.lanes, d)
    else:
        cin = _mask(op, "carry_in", carry_in)
        _mask_for(op, "carry_in", cin, d)
        out, carry = fn(a.lanes, b.lanes, active_lanes(cin, d), d)
    active = active_lanes(mk, d)
    return zeroing(out, mk, d), _predicate(carry & active, _width_of(d))


def vaddc(m: Any, src0: Any, src1: Any, mask: Any) -> tuple[VReg, Mask]:
    """``pto.vaddc``: (wrapped sum, carry = bit 32 of the unsigned sum) on active lanes."""
    return _chain("vaddc", alu.addc, src0, src1, None, mask)


def vsubc(m: Any, src0: Any, src1: Any, mask: Any) -> tuple[VReg, Mask]:
    """``pto.vsubc``: (wrapped difference, carry = no borrow, ``src0 >= src1`` unsigned)."""
    return _chain("vsubc", alu.subc, src0, src1, None, mask)


def vaddcs(m: Any, src0: Any, src1: Any, carry_in: Any, mask: Any) -> tuple[VReg, Mask]:
    """``pto.vaddcs``: ``src0 + src1 + carry_in`` with carry out (a carry chain)."""
    return _chain("vaddcs", alu.addcs, src0, src1, carry_in, mask)


def vsubcs(m: Any, src0: Any, src1: Any, carry_in: Any, mask: Any) -> tuple[VReg, Mask]:
    """``pto.vsubcs``: ``src0 - src1 - (1 - carry_in)``; carry out = no borrow."""
    return _chain("vsubcs", alu.subcs, src0, src1, carry_in, mask)
