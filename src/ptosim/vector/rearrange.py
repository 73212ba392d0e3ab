"""Semantics of the in-register rearrangement micro ops: interleave / deinterleave, pack /
unpack, permute, shift, slide, squeeze and unsqueeze (rows of
`ptosim.isa.vector_rearrange`).

None of them touches memory. ``vsqz`` (and ``vusqz``) also set the per-core special
register SQZN, the byte count a later ``vstur`` stores; `sqzn` reads it. Facts and
sources: docs/semantics.md, "Vector rearrangement".
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..dtypes import DType
from ..errors import PtoTypeError, PtoValueError
from .ops import _int, _mask, _vreg, _word, active_lanes
from .values import VREG_BYTES, Mask, VReg, vreg_dtype

PARTS = ("LOWER", "HIGHER")
SQZN = "SQZN"


def sqzn(m: Any) -> int:
    """The SQZN special register of ``m``: the byte count the last ``vsqz`` / ``vusqz``
    produced (active lanes x element bytes), 0 before any. ``vstur`` consumes it."""
    return int(m.regs.get(SQZN, (0,))[0])


def _same(op: str, first: tuple[str, VReg], *others: tuple[str, VReg]) -> DType:
    d = first[1].dtype
    for name, v in others:
        if v.dtype != d:
            raise PtoTypeError(f"{name} has {v.dtype.name} elements but {first[0]} has "
                               f"{d.name}; they must match", op=op, operand=name)
    return d


def _mask_for(op: str, mk: Mask, d: DType) -> None:
    want = min(d.size * 8, 32)
    if mk.g != want:
        raise PtoTypeError(f"mask is b{mk.g} but the register holds {d.name}; it takes "
                           f"b{want}", op=op, operand="mask")


def _int_dtype(op: str, name: str, d: DType) -> None:
    if d.is_float:
        raise PtoTypeError(f"{name} has {d.name} elements; {op} takes integer elements",
                           op=op, operand=name)


# --- interleave / deinterleave ----------------------------------------------------------------
def vintlv(m: Any, lhs: Any, rhs: Any) -> tuple[VReg, VReg]:
    """``pto.vintlv``: lanes of lhs and rhs alternated, ``[l0, r0, l1, r1, ...]``; low =
    the first N of those 2N lanes, high = the rest."""
    a, b = _vreg("vintlv", "lhs", lhs), _vreg("vintlv", "rhs", rhs)
    d = _same("vintlv", ("lhs", a), ("rhs", b))
    both = np.stack([a.lanes, b.lanes], axis=1).reshape(-1)
    n = a.n
    return VReg.from_lanes(both[:n], d), VReg.from_lanes(both[n:], d)


def vdintlv(m: Any, lhs: Any, rhs: Any) -> tuple[VReg, VReg]:
    """``pto.vdintlv``: the 2N-lane stream lhs ‖ rhs split into even lanes (low) and odd
    lanes (high); the inverse of `vintlv`."""
    a, b = _vreg("vdintlv", "lhs", lhs), _vreg("vdintlv", "rhs", rhs)
    d = _same("vdintlv", ("lhs", a), ("rhs", b))
    both = np.concatenate([a.lanes, b.lanes])
    return VReg.from_lanes(both[0::2], d), VReg.from_lanes(both[1::2], d)


# --- pack / unpack ----------------------------------------------------------------------------
def vpack(m: Any, src: Any, part: str, dtype: Any = None) -> VReg:
    """``pto.vpack``: every lane of a 32-bit (16-bit) register truncated to its low 16 (8)
    bits, placed in the LOWER or HIGHER half of the unsigned narrow result; the other half
    is 0."""
    op = "vpack"
    v = _vreg(op, "src", src)
    part = _word(op, "part", part, PARTS)
    _int_dtype(op, "src", v.dtype)
    if v.dtype.size not in (2, 4):
        raise PtoTypeError(f"src has {v.dtype.name} elements; vpack narrows 32-bit or 16-bit "
                           f"integers", op=op, operand="src")
    half = v.dtype.size // 2
    d = vreg_dtype(dtype if dtype is not None else f"ui{half * 8}")
    if d.size != half or d.is_float:
        raise PtoTypeError(f"the result of {v.dtype.name} lanes holds ui{half * 8}, got "
                           f"{d.name}", op=op)
    low = v.raw.reshape(-1, v.dtype.size)[:, :half].reshape(-1)    # little-endian low part
    out = np.zeros(VREG_BYTES, np.uint8)
    at = 0 if part == "LOWER" else VREG_BYTES // 2
    out[at:at + low.size] = low
    return VReg(d, out)


def _unpack(op: str, signed: bool) -> Any:
    def unpack(m: Any, src: Any, part: Any, dtype: Any = None) -> VReg:
        v = _vreg(op, "src", src)
        half = _int(op, "part", part)
        _int_dtype(op, "src", v.dtype)
        if v.dtype.size not in (1, 2, 4):
            raise PtoTypeError(f"src has {v.dtype.name} elements; {op} widens 8, 16 or "
                               f"32-bit integers", op=op, operand="src")
        if half not in (0, 1):
            raise PtoValueError(f"part selects half 0 (lanes 0..{v.n // 2 - 1}) or 1 (lanes "
                                f"{v.n // 2}..{v.n - 1}), got {half}", op=op, operand="part")
        wide = v.dtype.size * 16
        d = vreg_dtype(dtype if dtype is not None else f"{'i' if signed else 'ui'}{wide}")
        if d.size != 2 * v.dtype.size or d.is_float:
            raise PtoTypeError(f"the result of {v.dtype.name} lanes is a {wide}-bit integer "
                               f"register, got {d.name}", op=op)
        bits = v.dtype.size * 8
        narrow = v.lanes.view(f"u{v.dtype.size}")[half * (v.n // 2):(half + 1) * (v.n // 2)]
        vals = narrow.astype(np.int64)
        if signed:                                        # two's complement of the narrow lane
            vals = np.where(vals >> (bits - 1), vals - (1 << bits), vals)
        return VReg.from_lanes((vals & ((1 << 2 * bits) - 1)).astype(f"u{d.size}"), d)
    how = "sign" if signed else "zero"
    unpack.__doc__ = (f"``pto.{op}``: half ``part`` (0: lanes 0..N/2-1, 1: lanes N/2..N-1) "
                      f"of a narrow integer register, {how}-extended to double width.")
    return unpack


vsunpack = _unpack("vsunpack", True)
vzunpack = _unpack("vzunpack", False)


# --- permute, shift, slide --------------------------------------------------------------------
def vperm(m: Any, src: Any, index: Any) -> VReg:
    """``pto.vperm``: ``result[i] = src[index[i] mod N]`` (index read unsigned)."""
    op = "vperm"
    v, ix = _vreg(op, "src", src), _vreg(op, "index", index)
    _int_dtype(op, "index", ix.dtype)
    if ix.n != v.n:
        raise PtoTypeError(f"index has {ix.n} lanes but src has {v.n}; they must match",
                           op=op, operand="index")
    sel = ix.lanes.view(f"u{ix.dtype.size}").astype(np.int64) % v.n
    return VReg.from_lanes(v.lanes[sel], v.dtype)


def _amount(op: str, amt: Any, n: int) -> int:
    k = _int(op, "amt", amt)
    if not 0 <= k <= n:
        raise PtoValueError(f"amt = {k} lanes is outside 0..{n} (the lanes of the register)",
                            op=op, operand="amt")
    return k


def vshift(m: Any, src: Any, amt: Any) -> VReg:
    """``pto.vshift``: lanes moved up by ``amt``, ``result[i] = src[i - amt]``, the lanes
    below ``amt`` 0."""
    v = _vreg("vshift", "src", src)
    k = _amount("vshift", amt, v.n)
    out = np.zeros(v.n, v.dtype.np)
    out[k:] = v.lanes[:v.n - k]
    return VReg.from_lanes(out, v.dtype)


def vslide(m: Any, src0: Any, src1: Any, amt: Any) -> VReg:
    """``pto.vslide``: the N-lane window at ``amt`` of the 2N-lane stream src1 ‖ src0."""
    a, b = _vreg("vslide", "src0", src0), _vreg("vslide", "src1", src1)
    d = _same("vslide", ("src0", a), ("src1", b))
    k = _amount("vslide", amt, a.n)
    return VReg.from_lanes(np.concatenate([b.lanes, a.lanes])[k:k + a.n], d)


# --- squeeze / unsqueeze ----------------------------------------------------------------------
def vsqz(m: Any, input: Any, mask: Any) -> VReg:
    """``pto.vsqz``: the active lanes moved to the front in lane order, the rest 0; SQZN :=
    active lanes x element bytes (what a following ``vstur`` stores)."""
    v, mk = _vreg("vsqz", "input", input), _mask("vsqz", "mask", mask)
    _mask_for("vsqz", mk, v.dtype)
    act = active_lanes(mk, v.dtype)
    kept = v.lanes[act]
    out = np.zeros(v.n, v.dtype.np)
    out[:kept.size] = kept
    m.regs[SQZN] = (int(kept.size) * v.dtype.size,)
    return VReg.from_lanes(out, v.dtype)


def vusqz(m: Any, src: Any, mask: Any) -> VReg:
    """``pto.vusqz``: ``result[i]`` = the number of active lanes before lane ``i`` (so
    ``result[0] = 0``); ``src`` only fixes the type. Sets SQZN like `vsqz`."""
    op = "vusqz"
    v, mk = _vreg(op, "src", src), _mask(op, "mask", mask)
    if v.dtype.is_float or v.dtype.kind == "uint" or v.dtype.size == 8:
        raise PtoTypeError(f"src has {v.dtype.name} elements; vusqz takes signed or signless "
                           f"8, 16 or 32-bit integers", op=op, operand="src")
    _mask_for(op, mk, v.dtype)
    act = active_lanes(mk, v.dtype).astype(np.int64)
    counts = np.concatenate([[0], np.cumsum(act)[:-1]])
    m.regs[SQZN] = (int(act.sum()) * v.dtype.size,)
    return VReg.from_lanes(counts.astype(v.dtype.np), v.dtype)
