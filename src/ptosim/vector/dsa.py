"""Semantics of the DSA / SFU vector micro ops: the fused lane ops (``vprelu``, ``vexpdif``,
``vaxpy``, ``vmull``, ``vmula``, ``vaddreluconv``, ``vmulconv``) and the UB-to-UB sort
helpers (``vbitsort``, ``vmrgsort4``) with the merge status query ``get_vms4_sr``.

Each function is the ``impl`` of one row of `ptosim.isa.vector_dsa`, called as
``impl(machine, *operands, **attrs)`` with operands in assembly order. Lane arithmetic
comes from `ptosim.isa.alu`; memory moves only through ``machine._region``. Every operand
is checked before a byte is written. Facts, sources and the decisions taken where the
sources are silent: docs/semantics.md, "DSA / SFU ops and sorts".
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..dtypes import DType
from ..errors import DtypeError, FieldRangeError, PtoTypeError, PtoValueError
from ..isa import alu
from .ops import _int, _mask, _ptr, _read, _vreg, _word, _write_bytes, active_lanes, zeroing
from .values import VREG_BYTES, Mask, VReg, vreg_dtype


def _same(op: str, d: DType, **regs: VReg) -> None:
    for name, r in regs.items():
        if r.dtype != d:
            raise PtoTypeError(f"{name} has {r.dtype.name} elements but the first register "
                               f"has {d.name}; they must match", op=op, operand=name)


def _legal(op: str, d: DType, legal: frozenset[str], operand: str) -> None:
    if d.name not in legal:
        raise DtypeError(f"{operand} has {d.name} elements; {op} takes "
                         f"{', '.join(sorted(legal))}", op=op, operand=operand)


def _mask_for(op: str, mk: Mask, d: DType) -> None:
    want = min(d.size * 8, 32)
    if mk.g != want:
        raise PtoTypeError(f"mask is b{mk.g} but the registers hold {d.name}; it takes "
                           f"b{want}", op=op, operand="mask")


def _merging(out: np.ndarray, keep: VReg, mask: Mask) -> VReg:
    """Computed lanes where active, the lanes of ``keep`` elsewhere: PTOAS lowers vmula
    and vaxpy to the merging (``.m``) intrinsics (VPTOLLVMEmitter.cpp buildVmulaCallee,
    buildVaxpyCallee), whose destination is the accumulator / addend register."""
    d = keep.dtype
    return VReg.from_lanes(np.where(active_lanes(mask, d), out.astype(d.np, copy=False),
                                    keep.lanes), d)


# --- fused lane ops ------------------------------------------------------------------------
PARTS = ("EVEN", "ODD")
EXPDIF_DTYPES = alu.F16F32
VMULA_DTYPES = frozenset({"i16", "si16", "ui16", "i32", "si32", "ui32"}) | alu.FLOATS
VMULL_DTYPES = frozenset({"i32", "si32", "ui32"})


def vexpdif(m: Any, input: Any, max: Any, mask: Any, part: str) -> VReg:
    """``pto.vexpdif``: ``exp(input - max)`` as f32, inactive lanes 0. An f32 source maps
    lane for lane (``part`` is accepted and has no effect: Gym vexpdiff-f32 passes "ODD"
    and expects every lane); an f16 source of 128 lanes yields 64 f32 lanes from its even
    (EVEN) or odd (ODD) lanes, each gated by the mask bit of its source lane (Gym
    vexpdiff-f16-part)."""
    op = "vexpdif"
    x, mx = _vreg(op, "input", input), _vreg(op, "max", max)
    mk = _mask(op, "mask", mask)
    part = _word(op, "part", part, PARTS)
    d = x.dtype
    _legal(op, d, EXPDIF_DTYPES, "input")
    _same(op, d, max=mx)
    _mask_for(op, mk, d)
    active = active_lanes(mk, d)
    xs, ms = x.lanes, mx.lanes
    if d.size == 2:                                  # f16: one half of the lanes
        pick = slice(0, None, 2) if part == "EVEN" else slice(1, None, 2)
        xs, ms, active = xs[pick], ms[pick], active[pick]
    out = alu.expdif(xs, ms, d)
    return VReg.from_lanes(np.where(active, out, np.float32(0)), "f32")


def vaxpy(m: Any, src0: Any, src1: Any, alpha: Any, mask: Any) -> VReg:
    """``pto.vaxpy``: ``alpha * src0 + src1`` (alu ``axpy``, one rounding); inactive
    lanes keep ``src1`` (merging)."""
    op = "vaxpy"
    a, b = _vreg(op, "src0", src0), _vreg(op, "src1", src1)
    mk = _mask(op, "mask", mask)
    d = a.dtype
    _legal(op, d, alu.F16F32, "src0")
    _same(op, d, src1=b)
    _mask_for(op, mk, d)
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float, np.integer, np.floating)):
        raise PtoTypeError(f"alpha must be a number, got {alpha!r}", op=op, operand="alpha")
    with np.errstate(all="ignore"):
        s = np.asarray(alpha, np.float64).astype(d.np)
        out = alu.TERNARY["axpy"](a.lanes, b.lanes, s, d)
    return _merging(np.asarray(out), b, mk)


def vmula(m: Any, acc: Any, lhs: Any, rhs: Any, mask: Any) -> VReg:
    """``pto.vmula``: ``acc + lhs * rhs``, fused (alu ``fma``: one rounding for floats,
    wrapping for integers); inactive lanes keep ``acc`` (merging)."""
    op = "vmula"
    c, a, b = _vreg(op, "acc", acc), _vreg(op, "lhs", lhs), _vreg(op, "rhs", rhs)
    mk = _mask(op, "mask", mask)
    d = c.dtype
    _legal(op, d, VMULA_DTYPES, "acc")
    _same(op, d, lhs=a, rhs=b)
    _mask_for(op, mk, d)
    with np.errstate(all="ignore"):
        out = alu.TERNARY["fma"](a.lanes, b.lanes, c.lanes, d)
    return _merging(np.asarray(out), c, mk)


def vmull(m: Any, lhs: Any, rhs: Any, mask: Any) -> tuple[VReg, VReg]:
    """``pto.vmull``: the 64-bit product of each lane pair as (low 32 bits, high 32 bits),
    signed for i32 / si32, unsigned for ui32; inactive lanes 0 in both results."""
    op = "vmull"
    a, b = _vreg(op, "lhs", lhs), _vreg(op, "rhs", rhs)
    mk = _mask(op, "mask", mask)
    d = a.dtype
    _legal(op, d, VMULL_DTYPES, "lhs")
    _same(op, d, rhs=b)
    _mask_for(op, mk, d)
    lo, hi = alu.mull(a.lanes, b.lanes, d)
    return zeroing(lo, mk, d), zeroing(hi, mk, d)


def _fused_conv(op: str, lane: str) -> Any:
    def impl(m: Any, lhs: Any, rhs: Any, dtype: Any = None) -> VReg:
        a, b = _vreg(op, "lhs", lhs), _vreg(op, "rhs", rhs)
        d = a.dtype
        _same(op, d, rhs=b)
        out_dt = d if dtype is None else vreg_dtype(dtype)
        if out_dt != d:
            raise PtoValueError(f"the converting form {d.name} -> {out_dt.name} has no "
                                f"published semantics (PTOAS has no lowering for it and no "
                                f"manual gives its rounding or lane placement); only the "
                                f"same-type form runs", op=op, operand="result")
        with np.errstate(all="ignore"):
            out = alu.BINARY[lane](a.lanes, b.lanes, d)
        return VReg.from_lanes(np.asarray(out).astype(d.np, copy=False), d)
    impl.__doc__ = (f"``pto.{op}``: lane function ``{lane}`` on every lane (the op has no "
                    f"mask); same element type in and out.")
    return impl


vaddreluconv = _fused_conv("vaddreluconv", "addrelu")
vmulconv = _fused_conv("vmulconv", "mul")


# --- sorts ---------------------------------------------------------------------------------
RECORD = 8                        # one proposal: score field (4 bytes) + u32 index
SORT_DTYPES = alu.F16F32
BITSORT_GROUP = 32                # proposals per vbitsort repeat


def _sort_dtype(op: str, name: str, p: Any) -> DType:
    if p.dtype.name not in SORT_DTYPES:
        raise DtypeError(f"{name} points to {p.dtype.name}; {op} sorts f16 or f32 scores",
                         op=op, operand=name)
    return p.dtype


def descending_order(scores: np.ndarray) -> np.ndarray:
    """The stable descending order of ``scores``: equal scores (also -0 and +0) keep
    their input order; NaN of either sign sorts after every number (A5 pads a partial
    vbitsort block with NaN so that the pads come last, pto-isa a5/TSort32.hpp)."""
    s = scores.astype(np.float64)
    nan = np.isnan(s)
    return np.lexsort((np.arange(s.size), np.where(nan, 0.0, -s), nan))


def _records(scores: np.ndarray, index_words: np.ndarray, d: DType) -> np.ndarray:
    """8-byte records: the score in the low bytes of the 4-byte score field (an f16
    score in bytes 0-1, bytes 2-3 written as 0), the u32 index in bytes 4-7."""
    out = np.zeros((scores.size, RECORD), np.uint8)
    out[:, :d.size] = scores.astype(d.np).view(np.uint8).reshape(-1, d.size)
    out[:, 4:] = index_words.astype(np.uint32).view(np.uint8).reshape(-1, 4)
    return out.reshape(-1)


def vbitsort(m: Any, destination: Any, source: Any, indices: Any, repeat_times: Any) -> None:
    """``pto.vbitsort``: per repeat, 32 scores from ``source`` and 32 u32 indices from
    ``indices`` sorted by score, descending and stable, written as 32 8-byte records
    (score, index) to ``destination``; repeat ``r`` reads the next 32 scores and indices
    and writes the next 256 bytes."""
    op = "vbitsort"
    dst = _ptr(op, "destination", destination)
    src = _ptr(op, "source", source)
    idx = _ptr(op, "indices", indices)
    reps = _int(op, "repeat_times", repeat_times)
    d = _sort_dtype(op, "source", src)
    if idx.dtype.size != 4:
        raise DtypeError(f"indices points to {idx.dtype.name}; the index field is 32 bits "
                         f"(ui32 / i32)", op=op, operand="indices")
    if not 0 <= reps <= 255:                         # an 8-bit field (config bits 63:56)
        raise FieldRangeError(f"repeat_times = {reps} is outside [0, 255] (an 8-bit field)",
                              op=op, operand="repeat_times")
    n = BITSORT_GROUP * reps
    scores = _read(m, op, "source", src, n * d.size).view(d.np)
    ids = _read(m, op, "indices", idx, n * 4).view(np.uint32)
    if n == 0:
        return
    image = np.concatenate([
        _records(scores[g:g + BITSORT_GROUP][order], ids[g:g + BITSORT_GROUP][order], d)
        for g in range(0, n, BITSORT_GROUP)
        for order in (descending_order(scores[g:g + BITSORT_GROUP]),)])
    _write_bytes(m, op, "destination", dst, image)


def _fields(word: int) -> tuple[int, int, int, int]:
    return tuple((word >> (16 * k)) & 0xFFFF for k in range(4))  # type: ignore[return-value]


def vmrgsort4(m: Any, destination: Any, source0: Any, source1: Any, source2: Any,
              source3: Any, count: Any, config: Any) -> None:
    """``pto.vmrgsort4``: merge up to four score-descending lists of 8-byte records.

    ``count`` holds the record count of list k in bits [16k+15:16k]; ``config`` holds
    the repeat count in bits [7:0], the valid-list mask in [11:8] and exhausted
    suspension in [12] (pto-isa a5/TMrgSort.hpp). The merge takes the highest head score
    among the valid lists, the lower list on a tie. With suspension it stops as soon as
    a valid list runs out. ``VMS4_SR`` then holds the records taken from each list
    (bits [16k+15:16k]). Repeat ``r`` merges the lists that follow the previous repeat's,
    each source advanced by the sum of the valid counts, the destination likewise."""
    op = "vmrgsort4"
    dst = _ptr(op, "destination", destination)
    srcs = [_ptr(op, f"source{k}", s) for k, s in enumerate((source0, source1, source2,
                                                               source3))]
    d = _sort_dtype(op, "destination", dst)
    for k, s in enumerate(srcs):
        if s.dtype != d:
            raise DtypeError(f"source{k} points to {s.dtype.name} but destination to "
                             f"{d.name}; they must match", op=op, operand=f"source{k}")
    cnt = _int(op, "count", count) & (2**64 - 1)
    cfg = _int(op, "config", config) & (2**64 - 1)
    if cfg >> 13:
        raise FieldRangeError(f"config = {cfg:#x} sets bits above 12, which have no "
                              f"published meaning (repeat [7:0], list mask [11:8], "
                              f"exhausted suspension [12])", op=op, operand="config")
    reps, valid, exhausted = cfg & 0xFF, (cfg >> 8) & 0xF, bool(cfg >> 12 & 1)
    if exhausted and reps > 1:
        raise PtoValueError(f"exhausted suspension with repeat {reps} > 1 has no published "
                            f"semantics (where a later repeat would start)", op=op,
                            operand="config")
    lens = [n if valid >> k & 1 else 0 for k, n in enumerate(_fields(cnt))]
    step = sum(lens)                                 # records per repeat
    # read every input before writing: the destination may overlap a source
    lists = []
    for r in range(reps):
        group = []
        for k, s in enumerate(srcs):
            at = s.cast("ui8") + r * step * RECORD
            raw = _read(m, op, f"source{k}", at, lens[k] * RECORD) if lens[k] else \
                np.zeros(0, np.uint8)
            group.append(raw.reshape(-1, RECORD))
        lists.append(group)
    out: list[np.ndarray] = []
    taken = [0, 0, 0, 0]
    for group in lists:
        taken = [0, 0, 0, 0]
        heads = [g[:, :d.size].copy().view(d.np).reshape(-1).astype(np.float64)
                 for g in group]
        while True:
            if exhausted and any(valid >> k & 1 and taken[k] == lens[k] for k in range(4)):
                break
            best = -1
            for k in range(4):
                if taken[k] < lens[k]:
                    v = heads[k][taken[k]]
                    if best < 0 or _beats(v, heads[best][taken[best]]):
                        best = k
            if best < 0:
                break
            out.append(group[best][taken[best]])
            taken[best] += 1
    m.regs["VMS4_SR"] = (sum(t << (16 * k) for k, t in enumerate(taken)),)
    if out:
        _write_bytes(m, op, "destination", dst, np.concatenate(out))


def _beats(v: float, best: float) -> bool:
    """Strictly higher, NaN lowest (so an earlier list keeps a tie)."""
    if np.isnan(v):
        return False
    return bool(np.isnan(best) or v > best)


def get_vms4_sr(m: Any) -> tuple[int, int, int, int]:
    """``pto.get_vms4_sr``: the four 16-bit fields of ``VMS4_SR`` (records taken from
    lists 0..3 by the last vmrgsort4; 0 before any), each as an i16."""
    word = m.regs.get("VMS4_SR", (0,))[0]
    return tuple(f - 0x10000 if f >> 15 else f for f in _fields(word))  # type: ignore


__all__ = ["vexpdif", "vaxpy", "vmula", "vmull", "vaddreluconv", "vmulconv", "vbitsort",
           "vmrgsort4", "get_vms4_sr", "descending_order", "VREG_BYTES"]
