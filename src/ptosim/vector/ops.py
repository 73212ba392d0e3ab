"""Semantics of the non-arithmetic vector micro ops: loads and stores, predicate loads and
stores, predicate generation and logic, register materialisation, scalar loads/stores.

Each function is the ``impl`` of one or more rows of `ptosim.isa.vector` and is called as
``impl(machine, *operands, **attrs)`` with the operands in assembly order (an indexed
pointer ``%p[%off]`` as two arguments, the pointer and the element offset). The
`ptosim.Machine` method of each row is generated from it. Every memory access goes
through ``machine._region`` with its access role, and every operand is checked before a
byte moves. Facts and sources: docs/semantics.md, "Vector micro ISA".
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..dtypes import DType, dtype as _dtype
from ..errors import PtoTypeError, PtoValueError, SpaceError
from .values import MASK_BITS, MASK_WIDTHS, VREG_BYTES, Align, Mask, VReg, vreg_dtype

# --- operand checks ------------------------------------------------------------------------


def _vreg(op: str, name: str, x: Any) -> VReg:
    if not isinstance(x, VReg):
        raise PtoTypeError(f"{name} must be a vector register (VReg), got {x!r}", op=op,
                           operand=name)
    return x


def _mask(op: str, name: str, x: Any) -> Mask:
    if not isinstance(x, Mask):
        raise PtoTypeError(f"{name} must be a predicate (Mask), got {x!r}", op=op,
                           operand=name)
    return x


def _int(op: str, name: str, x: Any) -> int:
    if isinstance(x, bool) or not isinstance(x, (int, np.integer)):
        raise PtoTypeError(f"{name} must be an integer, got {x!r}", op=op, operand=name)
    return int(x)


def _ptr(op: str, name: str, p: Any, spaces: tuple[str, ...] = ("ub",)) -> Any:
    from ..machine import Ptr
    if not isinstance(p, Ptr):
        raise PtoTypeError(f"{name} must be a pointer, got {p!r}", op=op, operand=name)
    if p.space not in spaces:
        raise SpaceError(f"{name} must point into {' or '.join(spaces)}, got a {p.space} "
                         f"pointer", op=op, operand=name)
    return p


def _word(op: str, name: str, word: Any, choices: tuple[str, ...]) -> str:
    if word not in choices:
        raise PtoValueError(f"{name} must be one of {', '.join(choices)}, got {word!r}",
                            op=op, operand=name)
    return str(word)


def _width(op: str, g: Any) -> int:
    if isinstance(g, str) and g.startswith("b"):
        g = g[1:]
    try:
        gi = int(g)
    except (TypeError, ValueError):
        gi = -1
    if gi not in MASK_WIDTHS:
        raise PtoValueError(f"mask width must be one of b8, b16, b32, got {g!r}", op=op)
    return gi


def _read(m: Any, op: str, name: str, p: Any, nbytes: int) -> np.ndarray:
    data, start = m._region(p, nbytes, access="R", op=op, operand=name)
    return data[start:start + nbytes].copy()


def _write_bytes(m: Any, op: str, name: str, p: Any, image: np.ndarray,
                 keep: np.ndarray | None = None) -> None:
    """Write ``image`` at ``p``; with ``keep`` (bool per byte) only those bytes."""
    data, start = m._region(p, image.size, access="W", op=op, operand=name)
    if keep is None:
        data[start:start + image.size] = image
    else:
        view = data[start:start + image.size]
        view[keep] = image[keep]


def _units(raw: np.ndarray, unit: int) -> np.ndarray:
    """The byte image as rows of ``unit`` bytes."""
    return raw.reshape(-1, unit)


# --- vlds / vldsx2 -------------------------------------------------------------------------
VLDS_DISTS = ("NORM", "BRC_B8", "BRC_B16", "BRC_B32", "BRC_BLK", "US_B8", "US_B16",
              "DS_B8", "DS_B16", "UNPK_B8", "UNPK_B16", "UNPK_B32")
# footprint in bytes of each distribution (vector-notes §1.3, PTOAS 03-vector-load-store)
_VLDS_BYTES = {"NORM": 256, "BRC_B8": 1, "BRC_B16": 2, "BRC_B32": 4, "BRC_BLK": 32,
               "US_B8": 128, "US_B16": 128, "DS_B8": 512, "DS_B16": 512,
               "UNPK_B8": 128, "UNPK_B16": 128, "UNPK_B32": 128}


def _bits_of(dist: str) -> int:
    return int(dist.rsplit("_B", 1)[1]) // 8


def _distribute_load(src: np.ndarray, dist: str) -> np.ndarray:
    """The 256-byte register image a load distribution makes of the bytes it read."""
    if dist == "NORM":
        return src
    if dist.startswith("BRC_B"):                         # one element replicated
        return np.tile(src, VREG_BYTES // src.size)
    if dist == "BRC_BLK":                                # one 32-byte block replicated
        return np.tile(src, 8)
    unit = _bits_of(dist)
    rows = _units(src, unit)
    if dist.startswith("US_"):                           # dst[2i] = dst[2i+1] = src[i]
        return np.repeat(rows, 2, axis=0).reshape(-1)
    if dist.startswith("DS_"):                           # dst[i] = src[2i]
        return rows[::2].reshape(-1)
    # UNPK: element i into the low half of the double-width slot i, high half zero
    out = np.zeros((rows.shape[0], 2 * unit), np.uint8)
    out[:, :unit] = rows
    return out.reshape(-1)


def vlds(m: Any, source: Any, offset: Any, dist: str = "NORM", dtype: Any = None,
         post_update: bool = False) -> Any:
    """``pto.vlds``: a register loaded with distribution ``dist`` from ``source[offset]``;
    the post-update form loads at ``source`` and also returns ``source + offset``."""
    op = "vlds"
    p = _ptr(op, "source", source)
    off = _int(op, "offset", offset)
    dist = _word(op, "dist", dist, VLDS_DISTS)
    d = vreg_dtype(dtype if dtype is not None else p.dtype)
    at = p if post_update else p + off
    image = _distribute_load(_read(m, op, "source", at, _VLDS_BYTES[dist]), dist)
    v = VReg(d, image)
    return (v, p + off) if post_update else v


VLDSX2_DISTS = ("DINTLV_B8", "DINTLV_B16", "DINTLV_B32")


def vldsx2(m: Any, source: Any, offset: Any, dist: str, dtype: Any = None) -> tuple[VReg, VReg]:
    """``pto.vldsx2``: 512 bytes deinterleaved in ``dist`` units: (even units, odd units)."""
    op = "vldsx2"
    p = _ptr(op, "source", source)
    off = _int(op, "offset", offset)
    if dist == "BDINTLV":
        raise PtoValueError("dist BDINTLV (block deinterleave) has no specified semantics "
                            "ptosim could follow", op=op, operand="dist")
    dist = _word(op, "dist", dist, VLDSX2_DISTS)
    d = vreg_dtype(dtype if dtype is not None else p.dtype)
    rows = _units(_read(m, op, "source", p + off, 2 * VREG_BYTES), _bits_of(dist))
    return VReg(d, rows[0::2].reshape(-1)), VReg(d, rows[1::2].reshape(-1))


# --- vsts / vstsx2 -------------------------------------------------------------------------
VSTS_DISTS = ("NORM_B8", "NORM_B16", "NORM_B32", "1PT_B8", "1PT_B16", "1PT_B32",
              "PK_B16", "PK_B32", "PK_B64", "PK4_B32")


def default_store_dist(dt: DType) -> str:
    """NORM_B8 / B16 / B32 by element width (64-bit elements store as NORM_B32)."""
    return f"NORM_B{min(dt.size, 4) * 8}"


def _byte_active(mask: Mask, slot: int) -> np.ndarray:
    """Per slot of ``slot`` bytes: is the predicate bit of its first byte set."""
    return mask.bits[::slot]


def vsts(m: Any, value: Any, destination: Any, offset: Any, mask: Any,
         dist: str | None = None, post_update: bool = False) -> Any:
    """``pto.vsts``: store ``value`` at ``destination[offset]`` with ``dist``; inactive
    lanes are not written. The post-update form stores at ``destination`` and returns
    ``destination + offset``."""
    op = "vsts"
    v = _vreg(op, "value", value)
    p = _ptr(op, "destination", destination)
    off = _int(op, "offset", offset)
    mk = _mask(op, "mask", mask)
    dist = _word(op, "dist", dist if dist is not None else default_store_dist(v.dtype),
                 VSTS_DISTS)
    at = p if post_update else p + off
    raw = v.raw
    if dist.startswith("NORM_B"):
        unit = _bits_of(dist)
        keep = np.repeat(_byte_active(mk, unit), unit)
        _write_bytes(m, op, "destination", at, raw, keep)
    elif dist.startswith("1PT_B"):                       # element 0 only, predicate ignored
        _write_bytes(m, op, "destination", at, raw[:_bits_of(dist)].copy())
    else:                                                # PK: the low part of each slot
        slot = _bits_of(dist)
        part = 1 if dist == "PK4_B32" else slot // 2
        rows = _units(raw, slot)[:, :part]
        keep = np.repeat(_byte_active(mk, slot), part)
        _write_bytes(m, op, "destination", at, rows.reshape(-1).copy(), keep)
    return p + off if post_update else None


VSTSX2_DISTS = ("INTLV_B8", "INTLV_B16", "INTLV_B32")


def vstsx2(m: Any, low: Any, high: Any, destination: Any, offset: Any, dist: str,
           mask: Any) -> None:
    """``pto.vstsx2``: ``low`` and ``high`` interleaved in ``dist`` units, 512 bytes; the
    predicate does not gate this store (vector-notes §1.3, Gym vstsx2-layout-check)."""
    op = "vstsx2"
    lo, hi = _vreg(op, "low", low), _vreg(op, "high", high)
    p = _ptr(op, "destination", destination)
    off = _int(op, "offset", offset)
    _mask(op, "mask", mask)
    dist = _word(op, "dist", dist, VSTSX2_DISTS)
    unit = _bits_of(dist)
    out = np.stack([_units(lo.raw, unit), _units(hi.raw, unit)], axis=1).reshape(-1)
    _write_bytes(m, op, "destination", p + off, out)


# --- predicate loads and stores --------------------------------------------------------------
PLOAD_DISTS = ("NORM", "US", "DS")
PSTORE_DISTS = ("NORM", "PK")


def _pload(op: str) -> Any:
    def load(m: Any, source: Any, offset: Any, dist: str, g: Any = 8) -> Mask:
        p = _ptr(op, "source", source)
        off = _int(op, "offset", offset)
        dist = _word(op, "dist", dist, PLOAD_DISTS)
        gw = _width(op, g)
        nbytes = {"NORM": 32, "US": 16, "DS": 64}[dist]
        bits = np.unpackbits(_read(m, op, "source", p + off, nbytes), bitorder="little")
        if dist == "US":                                 # each bit twice
            bits = np.repeat(bits, 2)
        elif dist == "DS":                               # every other bit
            bits = bits[::2]
        return Mask(gw, bits.astype(bool))
    load.__doc__ = (f"``pto.{op}``: a predicate image from ``source[offset]``: NORM reads "
                    f"32 bytes, US 16 bytes (each bit doubled), DS 64 bytes (even bits).")
    return load


def _pstore(op: str) -> Any:
    def store(m: Any, value: Any, destination: Any, offset: Any, dist: str) -> None:
        mk = _mask(op, "value", value)
        p = _ptr(op, "destination", destination)
        off = _int(op, "offset", offset)
        dist = _word(op, "dist", dist, PSTORE_DISTS)
        bits = mk.bits if dist == "NORM" else mk.bits[::2]
        _write_bytes(m, op, "destination", p + off,
                     np.packbits(bits, bitorder="little"))
    store.__doc__ = (f"``pto.{op}``: the predicate image to ``destination[offset]``: NORM "
                     f"writes 32 bytes, PK the even bits in 16 bytes.")
    return store


plds, pldi = _pload("plds"), _pload("pldi")
psts, psti = _pstore("psts"), _pstore("psti")


# --- predicate generation ------------------------------------------------------------------
PATTERNS = ("PAT_ALL", "PAT_ALLF", "PAT_H", "PAT_Q", "PAT_M3", "PAT_M4",
            *(f"PAT_VL{n}" for n in (1, 2, 3, 4, 8, 16, 32, 64, 128)))


def pattern_lanes(pattern: str, n: int) -> np.ndarray:
    """The active lanes of ``pattern`` over ``n`` lanes. PAT_H / PAT_Q are the FIRST half /
    quarter (Gym pset-pattern-fragment), PAT_VLk the first min(k, n) lanes."""
    i = np.arange(n)
    if pattern == "PAT_ALL":
        return np.ones(n, bool)
    if pattern == "PAT_ALLF":
        return np.zeros(n, bool)
    if pattern == "PAT_H":
        return i < n // 2
    if pattern == "PAT_Q":
        return i < n // 4
    if pattern == "PAT_M3":
        return i % 3 == 0
    if pattern == "PAT_M4":
        return i % 4 == 0
    return i < int(pattern.removeprefix("PAT_VL"))


def _pattern_op(op: str, g: int) -> Any:
    def make(m: Any, pattern: str) -> Mask:
        pat = _word(op, "pattern", pattern, PATTERNS)
        return Mask.from_lanes(pattern_lanes(pat, Mask.lanes_for(g)), g)
    make.__doc__ = f"``pto.{op}``: the b{g} predicate of a pattern (PAT_ALL, PAT_VL8, ...)."
    return make


def _plt(op: str, g: int) -> Any:
    def make(m: Any, scalar: Any) -> tuple[Mask, int]:
        n = _int(op, "scalar", scalar) & 0xFFFF_FFFF     # an i32 count, read unsigned
        vl = Mask.lanes_for(g)
        left = n - vl if n >= vl else 0
        mask = Mask.from_lanes(np.arange(vl) < n, g)
        return mask, left - (1 << 32) if left >> 31 else left
    make.__doc__ = (f"``pto.{op}``: the first min(n, {Mask.lanes_for(g)}) lanes, and the "
                    f"count left for the next iteration (n - VL, or 0).")
    return make


# --- predicate logic and reordering ----------------------------------------------------------
def _same_width(op: str, *masks: tuple[str, Mask]) -> int:
    g = masks[0][1].g
    for name, mk in masks[1:]:
        if mk.g != g:
            raise PtoTypeError(f"{name} is a b{mk.g} mask but {masks[0][0]} is b{g}; the "
                               f"operands share one width", op=op, operand=name)
    return g


def _plogic(op: str, fn: Any) -> Any:
    def logic(m: Any, src0: Any, src1: Any, mask: Any) -> Mask:
        a, b, gate = _mask(op, "src0", src0), _mask(op, "src1", src1), _mask(op, "mask", mask)
        g = _same_width(op, ("src0", a), ("src1", b), ("mask", gate))
        return Mask.from_lanes(fn(a.lanes, b.lanes) & gate.lanes, g)
    logic.__doc__ = f"``pto.{op}``: lane-wise, lanes the gate ``mask`` clears are 0."
    return logic


pand = _plogic("pand", np.logical_and)
por = _plogic("por", np.logical_or)
pxor = _plogic("pxor", np.logical_xor)


def pnot(m: Any, input: Any, mask: Any) -> Mask:
    """``pto.pnot``: the inverted lanes, lanes the gate ``mask`` clears are 0."""
    a, gate = _mask("pnot", "input", input), _mask("pnot", "mask", mask)
    g = _same_width("pnot", ("input", a), ("mask", gate))
    return Mask.from_lanes(~a.lanes & gate.lanes, g)


def psel(m: Any, src0: Any, src1: Any, mask: Any) -> Mask:
    """``pto.psel``: lane ``i`` of ``src0`` where ``mask`` is set, else of ``src1``."""
    a, b, sel = (_mask("psel", n, x) for n, x in (("src0", src0), ("src1", src1),
                                                    ("mask", mask)))
    g = _same_width("psel", ("src0", a), ("src1", b), ("mask", sel))
    return Mask.from_lanes(np.where(sel.lanes, a.lanes, b.lanes), g)


PARTS = ("LOWER", "HIGHER")


def ppack(m: Any, input: Any, part: str) -> Mask:
    """``pto.ppack``: even bits of the raw image packed into the LOWER / HIGHER half, the
    other half 0 (raw bits, not lanes: Gym ppack-punpack)."""
    a = _mask("ppack", "input", input)
    part = _word("ppack", "part", part, PARTS)
    half = MASK_BITS // 2
    out = np.zeros(MASK_BITS, bool)
    lo = 0 if part == "LOWER" else half
    out[lo:lo + half] = a.bits[::2]
    return Mask(a.g, out)


def punpack(m: Any, input: Any, part: str) -> Mask:
    """``pto.punpack``: the LOWER / HIGHER half of the raw image spread to the even bits."""
    a = _mask("punpack", "input", input)
    part = _word("punpack", "part", part, PARTS)
    half = MASK_BITS // 2
    out = np.zeros(MASK_BITS, bool)
    lo = 0 if part == "LOWER" else half
    out[::2] = a.bits[lo:lo + half]
    return Mask(a.g, out)


def _pintlv(op: str, g: int, interleave: bool) -> Any:
    def reorder(m: Any, src0: Any, src1: Any) -> tuple[Mask, Mask]:
        a, b = _mask(op, "src0", src0), _mask(op, "src1", src1)
        for name, mk in (("src0", a), ("src1", b)):
            if mk.g != g:
                raise PtoTypeError(f"{name} must be a b{g} mask, got b{mk.g}", op=op,
                                   operand=name)
        vl = Mask.lanes_for(g)
        if interleave:                   # [a0, b0, a1, b1, ...]; low = first VL lanes
            both = np.stack([a.lanes, b.lanes], axis=1).reshape(-1)
            return Mask.from_lanes(both[:vl], g), Mask.from_lanes(both[vl:], g)
        both = np.concatenate([a.lanes, b.lanes])       # a ‖ b; low = even, high = odd
        return Mask.from_lanes(both[0::2], g), Mask.from_lanes(both[1::2], g)
    what = "interleaved (low = first half)" if interleave else "deinterleaved (even, odd)"
    reorder.__doc__ = f"``pto.{op}``: the lanes of src0 and src1 {what}."
    return reorder


def pbitcast(m: Any, input: Any, g: Any = None) -> Mask:
    """``pto.pbitcast``: the same image seen with another lane width."""
    a = _mask("pbitcast", "input", input)
    return a.view(_width("pbitcast", g) if g is not None else a.g)


# --- materialisation -----------------------------------------------------------------------
def _scalar_lane(op: str, value: Any, d: DType) -> np.ndarray:
    """A scalar as one lane of ``d`` (integers wrap to the lane's width)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise PtoTypeError(f"the scalar must be a number, got {value!r}", op=op)
    if d.is_float:
        return np.asarray([value], dtype=np.float64).astype(d.np)
    bits = d.size * 8
    return np.asarray([int(value) & ((1 << bits) - 1)], dtype=f"u{d.size}").view(d.np)


def vbr(m: Any, value: Any, dtype: Any = "f32") -> VReg:
    """``pto.vbr``: the scalar in every lane (8-bit lanes take its low 8 bits)."""
    d = vreg_dtype(dtype)
    return VReg.from_lanes(np.repeat(_scalar_lane("vbr", value, d), VREG_BYTES // d.size), d)


POSITIONS = ("LOWEST", "HIGHEST")


def vdup(m: Any, input: Any, mask: Any, position: str = "LOWEST", dtype: Any = None) -> VReg:
    """``pto.vdup``: a scalar, or lane 0 (LOWEST) / the last lane (HIGHEST) of a register,
    in every active lane; inactive lanes are 0."""
    mk = _mask("vdup", "mask", mask)
    position = _word("vdup", "position", position, POSITIONS)
    if isinstance(input, VReg):
        d = vreg_dtype(dtype) if dtype is not None else input.dtype
        src = input.view(d).lanes
        lane = src[:1] if position == "LOWEST" else src[-1:]
    else:
        d = vreg_dtype(dtype if dtype is not None else "f32")
        lane = _scalar_lane("vdup", input, d)
    n = VREG_BYTES // d.size
    active = mk.bits[::d.size]                           # lane i: bit i * sizeof
    out = np.where(active[:n], np.repeat(lane, n), np.zeros(n, d.np))
    return VReg.from_lanes(out.astype(d.np), d)


ORDERS = ("ASC", "DESC")


def vci(m: Any, index: Any, order: str = "ASC", dtype: Any = "i32") -> VReg:
    """``pto.vci``: lane ``i`` = index + i (ASC) or index - i (DESC), in the lane type."""
    d = vreg_dtype(dtype)
    order = _word("vci", "order", order, ORDERS)
    n = VREG_BYTES // d.size
    step = np.arange(n) if order == "ASC" else -np.arange(n)
    if d.is_float:
        return VReg.from_lanes((np.float64(index) + step).astype(d.np), d)
    base = _int("vci", "index", index)
    return VReg.from_lanes(((base + step) & ((1 << 8 * d.size) - 1)).astype(f"u{d.size}"), d)


def init_align(m: Any) -> Align:
    """``pto.init_align``: a fresh, empty store-stream state (``vstus`` / ``vstur`` /
    ``pstu``; a load stream starts from ``vldas``, `ptosim.vector.stream`)."""
    return Align()


SPRS = ("AR",)


def sprclr(m: Any, spr: str) -> None:
    """``pto.sprclr "AR"``: clear the address register the unaligned stores use."""
    _word("sprclr", "spr", spr, SPRS)
    m.regs[spr] = (0,)


# --- scalar loads and stores -----------------------------------------------------------------
def _scalar_of(arr: np.ndarray, d: DType) -> Any:
    if d.is_float:
        return float(arr.astype(np.float64)[0])
    return int(arr[0])


def load_scalar(m: Any, ptr: Any, offset: Any) -> Any:
    """``pto.load_scalar``: one element at ``ptr[offset]`` (UB or GM) as a Python number."""
    p = _ptr("load_scalar", "ptr", ptr, ("ub", "gm"))
    off = _int("load_scalar", "offset", offset)
    raw = _read(m, "load_scalar", "ptr", p + off, p.dtype.size)
    return _scalar_of(raw.view(p.dtype.np), p.dtype)


def store_scalar(m: Any, value: Any, ptr: Any, offset: Any) -> None:
    """``pto.store_scalar``: ``value`` converted to the pointer's element type at
    ``ptr[offset]`` (UB or GM)."""
    p = _ptr("store_scalar", "ptr", ptr, ("ub", "gm"))
    off = _int("store_scalar", "offset", offset)
    lane = _scalar_lane("store_scalar", value, _dtype(p.dtype))
    _write_bytes(m, "store_scalar", "ptr", p + off, lane.view(np.uint8).copy())


# --- elementwise ops: the shared shape of vadd / vexp / vadds ... ------------------------------
def _alu_table(kind: str) -> dict[str, Any]:
    """``UNARY`` / ``BINARY`` / ``SCALAR`` of the shared lane-function table."""
    from ..isa import alu  # the lane-table module (ptosim.isa.alu)
    return dict(getattr(alu, kind))


_MASK_FOR_SIZE = {1: 8, 2: 16, 4: 32, 8: 32}     # element bytes -> predicate width
_new_vreg = VReg.__new__


def active_lanes(mask: Mask, d: DType) -> np.ndarray:
    """Lane ``i`` of a register of ``d`` is active iff mask bit ``i * sizeof(d)`` is set."""
    return mask.bits[::d.size][:VREG_BYTES // d.size]


def zeroing(out: np.ndarray, mask: Mask, d: DType) -> VReg:
    """The result register: computed lanes where active, 0 elsewhere (compute ops zero
    their inactive lanes: Gym spec, predication; PTOAS lowers them to the ``.x`` forms)."""
    out = np.asarray(out)
    if out.shape != (VREG_BYTES // d.size,):
        return VReg.from_lanes(np.where(active_lanes(mask, d), out.astype(d.np, copy=False),
                                        np.zeros(1, d.np)), d)
    if mask.covers(d.size):                 # the usual full mask: the lanes as computed
        # a ufunc's fresh 1-D result is taken as is; views (an input returned) are copied
        lanes = out if out.base is None and out.dtype == d.np else out.astype(d.np)
    else:
        lanes = np.where(active_lanes(mask, d), out.astype(d.np, copy=False),
                         np.zeros(1, d.np))
    return VReg._own(d, lanes)


def elementwise(op: str, lane: str, arity: int, scalar: bool = False,
                lanes: dict[str, Any] | None = None) -> Any:
    """The ``impl`` of an elementwise row: ``impl(m, v0[, v1], [scalar], mask) -> VReg``.

    The registers share one element type, the mask has its width, the lane function
    ``lane`` comes from `ptosim.isa.alu` (``UNARY`` for one register, ``BINARY`` for two,
    ``SCALAR`` -- else ``BINARY`` -- for a register and a scalar) or from ``lanes``, and
    inactive lanes are 0."""
    kind = "SCALAR" if scalar else ("UNARY" if arity == 1 else "BINARY")
    names = [f"src{i}" for i in range(arity)] + (["scalar"] if scalar else []) + ["mask"]
    nops = len(names)
    # resolved on first use (the lane table imports this module's package): the lane
    # function, alu's quiet-run flag and, per element type, the exact ufunc (alu.NATIVE)
    resolved: list[Any] = []
    natives: dict[str, Any] = {}
    direct = not scalar and lanes is None      # the lane table's own function: NATIVE applies

    def impl(m: Any, *operands: Any) -> VReg:
        if len(operands) != nops:
            raise PtoTypeError(f"takes {nops} operands ({', '.join(names)}), got "
                               f"{len(operands)}", op=op)
        src0, mk = operands[0], operands[-1]
        if type(src0) is not VReg:              # exact types: the per-op fast path
            _vreg(op, "src0", src0)
        if type(mk) is not Mask:
            _mask(op, "mask", mk)
        d = src0.dtype
        for i in range(1, arity):
            r = operands[i]
            if type(r) is not VReg:
                _vreg(op, names[i], r)
            if r.dtype is not d and r.dtype != d:
                raise PtoTypeError(f"{names[i]} has {r.dtype.name} elements but src0 has "
                                   f"{d.name}", op=op, operand=names[i])
        if mk.g != _MASK_FOR_SIZE[d.size]:
            raise PtoTypeError(f"mask is b{mk.g} but the registers hold {d.name}; it takes "
                               f"b{_MASK_FOR_SIZE[d.size]}", op=op, operand="mask")
        if not resolved:
            _resolve()
        if direct and resolved[1][0]:
            ufunc = natives.get(d.name)
            if ufunc is not None:
                out = ufunc(src0.lanes, operands[1].lanes) if arity == 2 else \
                    ufunc(*[r.lanes for r in operands[:arity]])
                if mk.covers(d.size):           # a fresh array of d's carrier: taken as is
                    out.setflags(write=False)       # (VReg._own, inlined: the hot path)
                    reg = _new_vreg(VReg)
                    reg.dtype = d
                    reg.lanes = out
                    return reg
                return zeroing(out, mk, d)
        args = [r.lanes for r in operands[:arity]]
        if scalar:
            args.append(operands[arity])
        return zeroing(resolved[0](*args, d), mk, d)   # lane functions raise no numpy warnings

    def _resolve() -> None:
        from ..isa import alu
        table = lanes if lanes is not None else _alu_table(kind)
        if kind == "SCALAR" and lane not in table:
            table = lanes if lanes is not None else _alu_table("BINARY")
        resolved.extend((table[lane], alu._QUIET))
        natives.update({t: fn for (name, t), fn in alu.NATIVE.items() if name == lane})
    impl.__doc__ = (f"``pto.{op}``: lane function ``{lane}`` over the active lanes "
                    f"({', '.join(names)}); inactive lanes are 0.")
    return impl
