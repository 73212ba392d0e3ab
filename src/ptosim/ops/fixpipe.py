"""FIXPIPE writebacks from L0C: mte_l0c_gm, mte_l0c_l1, mte_l0c_ub (pipe FIX).

Per element of the m x n accumulator, in this order (docs/semantics.md, "FIXPIPE"):
read acc(i, j) from L0C NZ (16 x 16 fractals, N-blocks ``src_stride`` 16-element rows
apart) -> pre_quant scale -> pre_relu -> clip -> convert to the destination type under the
sat mode -> write at the layout's address -> (gm) atomic combine / (ub) split between the
two vector sub-blocks. Only the m x n elements are written.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import ml_dtypes
import numpy as np

from ..dtypes import DType
from ..errors import (
    DtypeError,
    FieldRangeError,
    NotImplementedOpError,
    SpaceError,
    TargetError,
    VerifyError,
    warn,
)
from ..machine import MachineState, Ptr
from .common import (
    burst_plan,
    check_aligned,
    check_ptr,
    clause,
    field,
    require_op,
    run_burst,
    strided,
    typed_key,
)

_F32_ACC_MODES = frozenset({
    "f32_f16", "f32_bf16", "qf322hif8_pre_vec", "qf322hif8_pre_scalar",
    "qf322hif8_pre_hybrid_vec", "qf322hif8_pre_hybrid_scalar", "qf322fp8_pre_vec",
    "qf322fp8_pre_scalar", "qf322f32_pre_vec", "qf322f32_pre_scalar", "qf162b8_pre_vec",
    "qf162b8_pre_scalar", "qf162s4_pre_vec", "qf162s4_pre_scalar", "qf322b8_pre_vec",
    "qf322b8_pre_scalar", "qf322s4_pre_vec", "qf322s4_pre_scalar", "qf322f16_pre_vec",
    "qf322f16_pre_scalar", "qf322bf16_pre_vec", "qf322bf16_pre_scalar"})
_I32_ACC_MODES = frozenset({
    "deqs32_int_vec", "deqs32_int_scalar", "req8_vec", "req8_scalar", "deqf16_vec",
    "deqf16_scalar", "deqs16_vec", "deqs16_scalar", "qf162s16_pre_vec", "qf162s16_pre_scalar",
    "req4_vec", "req4_scalar", "qs322bf16_pre_vec", "qs322bf16_pre_scalar"})
ALL_QUANT_MODES = _F32_ACC_MODES | _I32_ACC_MODES | {"no_convert"}

_B8 = frozenset({"i8", "si8", "ui8"})
# Destination element types each implemented mode produces (the manual's mode table).
_QUANT_DST: dict[str, frozenset[str]] = {
    "f32_f16": frozenset({"f16"}), "f32_bf16": frozenset({"bf16"}),
    "qf322f16_pre": frozenset({"f16"}), "qf322bf16_pre": frozenset({"bf16"}),
    "qf322f32_pre": frozenset({"f32"}), "qf322fp8_pre": frozenset({"f8E4M3FN"}),
    "qf322b8_pre": _B8, "req8": _B8, "deqf16": frozenset({"f16"}),
    "qs322bf16_pre": frozenset({"bf16"}),
}
RELU_MODES = frozenset({"no_relu", "normal_relu", "scalar_relu", "vector_relu", "pwl"})
_FLOAT_PAYLOAD = frozenset({"f16", "bf16", "f32"})
_ATOMIC_TYPES = {"f32": "f32", "f16": "f16", "bf16": "bf16", "s32": "i32", "s16": "i16",
                 "s8": "i8"}
_ATOMIC_OPS = frozenset({"add", "max", "min"})


def _family(mode: str) -> str:
    """``qf322f16_pre_vec`` -> ``qf322f16_pre``; ``req8_scalar`` -> ``req8``."""
    for tail in ("_vec", "_scalar"):
        if mode.endswith(tail):
            return mode[: -len(tail)]
    return mode


@dataclass(frozen=True)
class QuantWord:
    """A scalar pre_quant payload given as the 64-bit QUANT_PRE word the tile ops write
    (SET_QUANT_SCALAR, preQuantScalar): bits 0-31 the f32 scale, bit 46 the 8-bit output's
    sign, as in a vector word. Bits 32-45 and 47-63 must be clear (the tile layer checks)."""

    bits: int


@dataclass
class _Plan:
    """The checked clauses of one FIXPIPE op."""

    quant: str | None = None
    quant_payload: Any = None
    relu: str | None = None
    relu_payload: Any = None
    clip: float | None = None
    layout: str = "nz2nd"
    layout_arg: int | None = None
    loop3: tuple[int, int, int] = (1, 0, 0)
    has_loop3: bool = False
    sat: str = "sat"
    nz_c0: int = 16          # elements per NZ output line (nz2nz)
    tile: bool = False       # called by a tile op: the C++ lowering's rules apply


def _is_float_scalar(v: object) -> bool:
    if isinstance(v, (bool, np.bool_)):
        return False
    if isinstance(v, (int, float)):
        return True
    return isinstance(v, np.generic) and v.dtype in (np.float16, np.float32,
                                                    np.dtype(ml_dtypes.bfloat16))


def _f32_from_word(bits: np.ndarray) -> np.ndarray:
    """A FIXPIPE parameter's 19-bit float: f32 bits [31:13] (the low 13 bits are dropped)."""
    return (bits.astype(np.uint32) & np.uint32(0xFFFFE000)).view(np.float32)


def _to_float(v: np.ndarray, dst: DType, sat: str) -> np.ndarray:
    """Convert f32 values to a floating destination under a sat mode."""
    if dst.name == "f32":
        return v.astype(np.float32)
    if sat == "nosat":
        return v.astype(dst.np)
    top = np.float32(ml_dtypes.finfo(dst.np).max)
    out = np.clip(v, -top, top)
    if sat == "sat":
        out = np.where(np.isnan(out), np.float32(0), out)
    return out.astype(dst.np)


def _to_b8(v: np.ndarray, offset: np.ndarray, signed: np.ndarray, dst: DType) -> np.ndarray:
    """8-bit narrowing: round half to even within [-256, 255], add the offset, then clamp to
    the signed or unsigned byte range chosen by the sign bit; stored as raw bytes."""
    t = np.rint(np.clip(np.nan_to_num(v, nan=0.0), -256, 255)) + offset
    y = np.where(signed, np.clip(t, -128, 127), np.clip(t, 0, 255)).astype(np.int64)
    return (y & 0xFF).astype(np.uint8).view(dst.np)


class FixpipeOps(MachineState):
    """mte_l0c_gm / mte_l0c_l1 / mte_l0c_ub as Machine methods."""

    def mte_l0c_gm(self, src: Ptr, dst: Ptr, m: int, n: int, src_stride: int,
                   dst_stride: int, sid: int, l2cache: int, *, unit_flag: str | None = None,
                   pre_quant: tuple | None = None, pre_relu: tuple | None = None,
                   layout: object = None, loop3: tuple[int, int, int] | None = None,
                   sat: str | None = None, atomic: tuple[str, str] | None = None) -> None:
        """L0C -> GM writeback; ``atomic=(type, "add"|"max"|"min")`` combines with GM."""
        op = "mte_l0c_gm"
        field(op, "sid", sid, None)
        if int(sid) > 3:
            raise FieldRangeError(f"sid = {sid} is out of range [0, 3]", op=op, operand="sid")
        field(op, "l2cache", l2cache, 4)
        self._fixpipe(op, "gm", src, dst, m, n, src_stride, dst_stride, None, unit_flag,
                      pre_quant, pre_relu, layout, loop3, sat, atomic)

    def mte_l0c_l1(self, src: Ptr, dst: Ptr, m: int, n: int, src_stride: int, dst_stride: int,
                   *, unit_flag: str | None = None, pre_quant: tuple | None = None,
                   pre_relu: tuple | None = None, layout: object = None,
                   loop3: tuple[int, int, int] | None = None, sat: str | None = None,
                   atomic: object = None) -> None:
        """L0C -> L1 writeback."""
        self._fixpipe("mte_l0c_l1", "l1", src, dst, m, n, src_stride, dst_stride, None,
                      unit_flag, pre_quant, pre_relu, layout, loop3, sat, atomic)

    def mte_l0c_ub(self, src: Ptr, dst: Ptr, m: int, n: int, src_stride: int, dst_stride: int,
                   *, dst_mode: int | str, unit_flag: str | None = None,
                   pre_quant: tuple | None = None, pre_relu: tuple | None = None,
                   layout: object = None, loop3: tuple[int, int, int] | None = None,
                   sat: str | None = None, atomic: object = None) -> None:
        """L0C -> UB of vector sub-block ``dst_mode`` (0 or 1), or split between both:
        ``"split_m"`` (row halves) / ``"split_n"`` (column halves), each re-based at dst."""
        self._fixpipe("mte_l0c_ub", "ub", src, dst, m, n, src_stride, dst_stride, dst_mode,
                      unit_flag, pre_quant, pre_relu, layout, loop3, sat, atomic)

    # --- checks ------------------------------------------------------------------------
    def _fixpipe(self, op: str, space: str, src: object, dst: object, m: object, n: object,
                 src_stride: object, dst_stride: object, dst_mode: object, unit_flag: object,
                 pre_quant: object, pre_relu: object, layout: object, loop3: object,
                 sat: object, atomic: object, nz_c0: int | None = None,
                 tile: bool = False) -> None:
        """The three writebacks. With ``tile`` the tile ops' (C++ lowering's) rules apply
        where they are wider than the micro-ISA's (docs/semantics.md, "FIXPIPE NZ at tile
        level"): ``nz_c0`` gives an NZ output of any destination type with lines of that
        many elements (nz2nz itself takes f32 only), a UB may receive any destination
        type, and the dual modes may write NZ and apply ReLU."""
        # the checks and set-up depend on the operands (and on CTRL when sat is left to
        # it) only: done once per distinct call; the bytes move every time
        dst_key: object = dst
        if space == "gm" and type(dst) is Ptr and pre_quant is None:
            # no check reads a GM destination's address (nor can one warn without
            # pre_quant): one set-up serves every tile of an output
            dst_key = ("gm dst", dst.dtype, dst.sub, dst.block)
        key = typed_key(op, space, src, dst_key, m, n, src_stride, dst_stride, dst_mode,
                        unit_flag, pre_quant, pre_relu, layout, loop3, sat, atomic, nz_c0,
                        tile, self.ctrl if sat is None else None)
        setup = self._op_plans.get(key) if key is not None else None
        if setup is None:
            setup = self._fixpipe_setup(op, space, src, dst, m, n, src_stride, dst_stride,
                                        dst_mode, unit_flag, pre_quant, pre_relu, layout,
                                        loop3, sat, atomic, nz_c0, tile)
            if key is not None:
                self._op_plans[key] = setup
        s, dt, plan, combine, targets, mv, nv, sstride, dstride = setup
        if dst_key is not dst:              # the set-up's GM target is this call's dst
            targets = [(dst, *t[1:]) for t in targets]
        count, s3, d3 = plan.loop3
        acc_es = 4
        nblk = -(-nv // 16)
        if (count == 1 and plan.quant is None and plan.relu is None and combine is None
                and plan.layout == "nz2nd" and nv == nblk * 16 and len(targets) == 1
                and targets[0][1:] == (0, mv, 0, nv) and dt.np == s.dtype.np):
            # a plain NZ -> ND copy of one type: each fractal row (16 elements) is one
            # burst straight into dst's row, the same bytes without gathering first (and
            # a tile op can replay it, `TileOps._replayed`)
            bkey = (key, "burst") if key is not None else None
            burst = self._op_plans.get(bkey) if bkey is not None else None
            if burst is None:
                burst = burst_plan(16 * acc_es, [(nblk, sstride * 16 * acc_es, 16 * acc_es),
                                                 (mv, 16 * acc_es, dstride * acc_es)])
                if bkey is not None:
                    self._op_plans[bkey] = burst
            if burst.disjoint:              # (rows closer than n: the general path below)
                run_burst(self, op, ("src", "dst"), s, targets[0][0], burst)
                return
        src_extent = ((count - 1) * s3 * 16 + (nblk - 1) * sstride * 16 + (mv - 1) * 16 + 16) \
            * acc_es
        src_buf, src_off = self._region(s, src_extent, access="R", op=op, operand="src")
        params = self._payloads(op, plan, nv)
        regions = []                                   # check every destination first
        for r in range(count):
            for ptr, r0, r1, c0, c1 in targets:
                tgt = Ptr(ptr.space, ptr.dtype, ptr.offset + r * d3 * ptr.dtype.size, ptr.sub,
                          ptr.block)
                ext = _dst_extent(plan, r1 - r0, c1 - c0, dstride, ptr.dtype.size)
                regions.append(self._region(tgt, ext, op=op, operand="dst",
                                            access="W" if combine is None else "A"))
        slots = iter(regions)
        for r in range(count):
            acc = strided(src_buf, src_off + r * s3 * 16 * acc_es,
                          [(mv, 16 * acc_es), (nblk, sstride * 16 * acc_es)], (16,), (acc_es,),
                          s.dtype.np).reshape(mv, nblk * 16)[:, :nv]
            y = _convert(plan, acc, params, s.dtype, dt)
            for _, r0, r1, c0, c1 in targets:
                buf, off = next(slots)
                _store(plan, buf, off, dt, dstride, y[r0:r1, c0:c1], combine)

    def _fixpipe_setup(self, op: str, space: str, src: object, dst: object, m: object,
                       n: object, src_stride: object, dst_stride: object, dst_mode: object,
                       unit_flag: object, pre_quant: object, pre_relu: object,
                       layout: object, loop3: object, sat: object, atomic: object,
                       nz_c0: int | None, tile: bool) -> tuple:
        """`_fixpipe`'s checks and plan: (src, dst element type, plan, combine, targets, m,
        n, src_stride, dst_stride)."""
        require_op(self, op)
        s = check_ptr(op, "src", src, "l0c")
        d = check_ptr(op, "dst", dst, space)
        if s.dtype.name not in ("f32", "i32", "si32"):
            raise DtypeError(f"src element type must be f32 or i32, got {s.dtype.name}",
                             op=op, operand="src")
        if space == "ub" and d.dtype.name not in ("f16", "f32") and not tile:
            raise DtypeError(f"a UB destination must be f16 or f32, got {d.dtype.name}", op=op,
                             operand="dst")
        mv = field(op, "m", m, 16, 1)
        nv = field(op, "n", n, 12, 1)
        sstride = field(op, "src_stride", src_stride, 16)
        dstride = field(op, "dst_stride", dst_stride, 32, 1)
        check_aligned(op, "src", s)
        if space != "gm":
            check_aligned(op, "dst", d)
            if dstride * d.dtype.size % 32:
                raise VerifyError(f"dst_stride = {dstride} elements ({dstride * d.dtype.size} B) "
                                  f"is not a multiple of 32 bytes", op=op, operand="dst_stride")
        if atomic is not None and space != "gm":
            raise VerifyError("atomic is only supported for mte_l0c_gm", op=op, operand="atomic")
        if unit_flag not in (None, "check_only", "check_and_clear"):
            raise VerifyError(f"unit_flag must be 'check_only' or 'check_and_clear', got "
                              f"{unit_flag!r}", op=op, operand="unit_flag")
        plan = _Plan(tile=tile)
        self._check_quant(op, plan, pre_quant, s.dtype, d.dtype)
        self._check_relu(op, plan, pre_relu, d.dtype)
        self._check_layout(op, plan, layout, loop3, unit_flag, d.dtype)
        if nz_c0 is not None:                   # layout must be left out by the caller
            plan.layout, plan.nz_c0 = "nz2nz", nz_c0
        plan.sat = self._check_sat(op, sat)
        combine = self._check_atomic(op, atomic, d.dtype)
        targets = self._ub_targets(op, plan, dst_mode, d, mv, nv) if space == "ub" \
            else [(d, 0, mv, 0, nv)]
        return s, d.dtype, plan, combine, targets, mv, nv, sstride, dstride

    def _check_quant(self, op: str, plan: _Plan, pre_quant: object, acc: DType,
                     dst: DType) -> None:
        if pre_quant is None:
            if dst.np != acc.np:
                raise DtypeError(f"without pre_quant the dst element type must be the "
                                 f"accumulator type {acc.name}, got {dst.name}", op=op,
                                 operand="dst")
            return
        payload, mode = clause(op, "pre_quant", pre_quant, (2,))
        if mode not in ALL_QUANT_MODES:
            raise VerifyError(f"invalid pre_quant mode {mode!r}", op=op, operand="pre_quant")
        acc_modes = _F32_ACC_MODES if acc.name == "f32" else _I32_ACC_MODES
        if mode not in acc_modes:
            raise VerifyError(f"pre_quant mode {mode} is incompatible with source element "
                              f"type {acc.name}", op=op, operand="pre_quant")
        if mode.endswith("_vec"):
            if not isinstance(payload, Ptr) or payload.space != "fb":
                raise VerifyError("vector pre_quant mode requires a scaling (fb) pointer "
                                  "payload", op=op, operand="pre_quant")
            if payload.dtype.name not in _FLOAT_PAYLOAD:
                raise DtypeError(f"fb payload element type must be f16, bf16 or f32, got "
                                 f"{payload.dtype.name}", op=op, operand="pre_quant")
        elif not _is_float_scalar(payload) and not isinstance(payload, QuantWord):
            raise VerifyError(f"scalar pre_quant mode requires an f16, bf16 or f32 scalar "
                              f"payload, got {payload!r}", op=op, operand="pre_quant")
        if mode not in self.target.quant_modes:
            if _family(mode) in _QUANT_DST:
                raise TargetError(f"pre_quant mode {mode} does not exist on target "
                                  f"{self.target.name}", op=op, operand="pre_quant")
            raise NotImplementedOpError(
                f"pre_quant mode {mode} is not implemented: no source pins its arithmetic "
                f"down", op=op)
        allowed = _QUANT_DST[_family(mode)]
        if dst.name not in allowed:
            raise DtypeError(f"pre_quant mode {mode} writes {'/'.join(sorted(allowed))}, not "
                             f"{dst.name}", op=op, operand="dst")
        if _family(mode) in ("qf322b8_pre", "req8") and mode.endswith("_scalar") \
                and dst.name != "ui8" and not (isinstance(payload, QuantWord)
                                               and payload.bits >> 46 & 1):
            warn(f"{op}: a scalar {mode} payload carries no sign bit, so results "
                          f"are clamped to [0, 255] and stored in a {dst.name}")
        plan.quant, plan.quant_payload = mode, payload

    def _check_relu(self, op: str, plan: _Plan, pre_relu: object, dst: DType) -> None:
        if pre_relu is None:
            return
        parts = clause(op, "pre_relu", pre_relu, (2, 3))
        payload, mode = parts[0], parts[1]
        clip = parts[2] if len(parts) == 3 else None
        if mode not in RELU_MODES:
            raise VerifyError(f"invalid pre_relu mode {mode!r}", op=op, operand="pre_relu")
        if mode == "pwl":
            raise VerifyError(f"pwl is not supported for target_profile {op}", op=op,
                              operand="pre_relu")
        if mode in ("no_relu", "normal_relu") and payload is not None:
            raise VerifyError(f"{mode} does not accept a pre_relu payload", op=op,
                              operand="pre_relu")
        if mode == "scalar_relu" and not _is_float_scalar(payload):
            raise VerifyError(f"scalar_relu requires an f16, bf16 or f32 scalar payload, got "
                              f"{payload!r}", op=op, operand="pre_relu")
        if mode == "vector_relu":
            if not isinstance(payload, Ptr) or payload.space != "fb":
                raise VerifyError("vector_relu requires a scaling (fb) pointer payload", op=op,
                                  operand="pre_relu")
            if payload.dtype.name not in _FLOAT_PAYLOAD:
                raise DtypeError(f"fb payload element type must be f16, bf16 or f32, got "
                                 f"{payload.dtype.name}", op=op, operand="pre_relu")
        if clip is not None:
            self._check_clip(op, clip, dst)
        plan.relu, plan.relu_payload, plan.clip = mode, payload, clip

    @staticmethod
    def _check_clip(op: str, clip: Any, dst: DType) -> None:
        ints = {"i8", "si8", "i16", "si16"}
        if dst.name != "f16" and dst.name != "ui8" and dst.name not in ints:
            raise DtypeError(f"clip requires destination element type to be f16, ui8, or "
                             f"signed 4/8/16-bit integer, got {dst.name}", op=op, operand="clip")
        typed = isinstance(clip, np.generic)
        if dst.name == "f16":
            ok = (clip.dtype == np.float16) if typed else _is_float_scalar(clip)
            want = "an f16"
        elif dst.name == "ui8":
            ok = (clip.dtype in (np.uint16, np.int16)) if typed else \
                isinstance(clip, int) and not isinstance(clip, bool)
            want = "a ui16/i16"
        else:
            ok = (clip.dtype.kind == "i" and clip.dtype.itemsize == dst.size) if typed else \
                isinstance(clip, int) and not isinstance(clip, bool)
            want = f"a signed {dst.size * 8}-bit"
        if not ok:
            raise DtypeError(f"clip payload must be {want} value for a {dst.name} destination, "
                             f"got {clip!r}", op=op, operand="clip")

    def _check_layout(self, op: str, plan: _Plan, layout: object, loop3: object,
                      unit_flag: object, dst: DType) -> None:
        name, arg = (layout, None) if not isinstance(layout, tuple) else \
            (clause(op, "layout", layout, (2,)))
        if name is not None and name not in ("nz2nd", "nz2dn", "nz2nz"):
            raise VerifyError(f"layout must be nz2nd, nz2dn or nz2nz, got {name!r}", op=op,
                              operand="layout")
        if name == "nz2nd" and arg is not None:
            raise VerifyError("nz2nd takes no value", op=op, operand="layout")
        if name == "nz2dn":
            if arg is None:
                raise VerifyError("nz2dn requires loop0_src_stride", op=op, operand="layout")
            arg = field(op, "nz2dn loop0_src_stride", arg, 16)
            if arg != 1:
                if unit_flag is not None:
                    raise VerifyError("unit_flag must be off when nz2dn loop0_src_stride is "
                                      "not 1", op=op, operand="unit_flag")
                raise NotImplementedOpError(f"nz2dn with loop0_src_stride = {arg} (only 1, the "
                                            f"NZ-source value, is specified)", op=op)
        if name == "nz2nz":
            if arg is not None:
                arg = field(op, "nz2nz split", arg, 1)
            if dst.name != "f32":
                raise DtypeError(f"nz2nz requires destination element type to be f32, got "
                                 f"{dst.name}", op=op, operand="layout")
        if name is not None and name not in self.target.fixpipe_layouts:
            raise TargetError(f"{name} does not exist on target {self.target.name}", op=op,
                              operand="layout")
        if loop3 is not None:
            if name not in ("nz2nd", "nz2dn"):
                raise VerifyError("loop3 requires nz2nd or nz2dn", op=op, operand="loop3")
            cnt, s3, d3 = clause(op, "loop3", loop3, (3,))
            plan.has_loop3 = True
            plan.loop3 = (field(op, "loop3 count", cnt, 16, 1),
                          field(op, "loop3 src_stride", s3, 16),
                          field(op, "loop3 dst_stride", d3, 32))
        plan.layout, plan.layout_arg = name or "nz2nd", arg
        if name == "nz2nz":
            plan.nz_c0 = 8 if arg == 1 else 16

    def _check_sat(self, op: str, sat: object) -> str:
        if sat is None:       # the CTRL register decides: bit 48 nosat, bit 50 keeps NaN
            return "nosat" if self.ctrl >> 48 & 1 else \
                ("preserve_nan" if self.ctrl >> 50 & 1 else "sat")
        if sat not in ("sat", "preserve_nan", "nosat"):
            raise VerifyError(f"sat must be 'sat', 'preserve_nan' or 'nosat', got {sat!r}",
                              op=op, operand="sat")
        return str(sat)

    @staticmethod
    def _check_atomic(op: str, atomic: object, dst: DType) -> str | None:
        if atomic is None:
            return None
        kind, how = clause(op, "atomic", atomic, (2,))
        if kind not in _ATOMIC_TYPES:
            raise VerifyError(f"invalid atomic type {kind!r}; one of "
                              f"{', '.join(_ATOMIC_TYPES)}", op=op, operand="atomic")
        if how not in _ATOMIC_OPS:
            raise VerifyError(f"invalid atomic op {how!r}; one of add, max, min", op=op,
                              operand="atomic")
        want = _ATOMIC_TYPES[kind]
        if dst.name.replace("si", "i") != want:
            raise DtypeError(f"atomic type {kind} does not match the dst element type "
                             f"{dst.name}", op=op, operand="atomic")
        return str(how)

    def _ub_targets(self, op: str, plan: _Plan, dst_mode: object, d: Ptr, m: int,
                    n: int) -> list[tuple[Ptr, int, int, int, int]]:
        """(destination, row range, column range) per receiving vector sub-block."""
        if dst_mode in ("split_m", "split_n"):
            banned = [name for name, on in (
                ("pre_quant", plan.quant is not None), ("pre_relu", plan.relu is not None),
                ("clip", plan.clip is not None), ("nz2dn", plan.layout == "nz2dn"),
                ("nz2nz", plan.layout == "nz2nz"), ("loop3", plan.has_loop3))
                if on and not (plan.tile and name in ("pre_relu", "nz2nz"))]
            if banned:
                raise VerifyError(f"dual destination mode cannot be combined with "
                                  f"{', '.join(banned)}", op=op, operand="dst_mode")
            if d.sub != 0:
                raise SpaceError("a split destination is an offset into both sub-blocks' UBs; "
                                 f"pass a sub-block 0 pointer (got subblock={d.sub})", op=op,
                                 operand="dst")
            halves = [Ptr("ub", d.dtype, d.offset, sb, d.block) for sb in (0, 1)]
            if dst_mode == "split_m":
                if m % 2:
                    raise VerifyError(f"split_m needs an even m, got {m}", op=op,
                                      operand="dst_mode")
                return [(halves[0], 0, m // 2, 0, n), (halves[1], m // 2, m, 0, n)]
            if n % 32:
                raise VerifyError(f"split_n needs n % 32 == 0, got {n}", op=op,
                                  operand="dst_mode")
            return [(halves[0], 0, m, 0, n // 2), (halves[1], 0, m, n // 2, n)]
        if isinstance(dst_mode, (bool, np.bool_)) or not isinstance(dst_mode, (int, np.integer)):
            raise VerifyError(f"dst_mode must be 0, 1, 'split_m' or 'split_n', got {dst_mode!r}",
                              op=op, operand="dst_mode")
        if dst_mode not in (0, 1):
            raise VerifyError(f"sub_blockid must be 0 or 1, got {dst_mode}", op=op,
                              operand="dst_mode")
        if d.sub not in (0, int(dst_mode)):
            raise SpaceError(f"dst points into sub-block {d.sub}'s UB but dst_mode selects "
                             f"sub-block {dst_mode}", op=op, operand="dst")
        return [(Ptr("ub", d.dtype, d.offset, int(dst_mode), d.block), 0, m, 0, n)]

    def _payloads(self, op: str, plan: _Plan, n: int) -> dict[str, np.ndarray]:
        """Per-channel parameters: scale, offset and sign for quant; alpha for relu."""
        out: dict[str, np.ndarray] = {}
        if plan.quant is not None and plan.quant not in ("f32_f16", "f32_bf16"):
            if plan.quant.endswith("_vec"):
                buf, off = self._region(plan.quant_payload, 8 * n, access="R", op=op,
                                        operand="pre_quant")
                words = buf[off:off + 8 * n].view(np.uint64)
                out["scale"] = _f32_from_word(words & np.uint64(0xFFFFFFFF))
                out["offset"] = ((words >> np.uint64(37)) & np.uint64(0x1FF)).astype(np.int64)
                out["signed"] = ((words >> np.uint64(46)) & np.uint64(1)).astype(bool)
            elif isinstance(plan.quant_payload, QuantWord):
                bits = plan.quant_payload.bits
                word = np.array([bits & 0xFFFFFFFF], np.uint64)
                out["scale"] = np.repeat(_f32_from_word(word), n)
                out["offset"] = np.zeros(n, np.int64)
                out["signed"] = np.full(n, bool(bits >> 46 & 1))
            else:
                with np.errstate(over="ignore"):    # the register holds f32(scale): inf past
                    out["scale"] = np.full(n, np.float32(plan.quant_payload), np.float32)
                out["offset"] = np.zeros(n, np.int64)
                out["signed"] = np.zeros(n, bool)
        if plan.relu == "scalar_relu":
            with np.errstate(over="ignore"):        # (likewise f32(alpha))
                alpha = np.array([np.float32(plan.relu_payload)], np.float32).view(np.uint32)
            out["alpha"] = np.repeat(_f32_from_word(alpha), n)
        elif plan.relu == "vector_relu":
            buf, off = self._region(plan.relu_payload, 4 * n, access="R", op=op,
                                    operand="pre_relu")
            out["alpha"] = buf[off:off + 4 * n].view(np.float32).copy()
        return out


def _convert(plan: _Plan, acc: np.ndarray, params: dict[str, np.ndarray], acc_t: DType,
             dst: DType) -> np.ndarray:
    """quant -> relu -> clip -> convert, for the whole m x n accumulator."""
    if plan.quant is None and plan.relu is None:
        return acc.astype(dst.np, copy=False)    # same type: acc is a fresh gather already
    with np.errstate(over="ignore", invalid="ignore"):
        if plan.quant is None and acc_t.name != "f32":   # i32 -> i32 with relu: stay exact
            v64 = acc.astype(np.float64)
            if plan.relu == "normal_relu":
                v64 = np.maximum(v64, 0)
            elif plan.relu in ("scalar_relu", "vector_relu"):
                v64 = np.where(v64 >= 0, v64, params["alpha"][None, :] * v64)
            return np.rint(v64).astype(np.int64).astype(dst.np)
        v = acc.astype(np.float32)
        if "scale" in params:
            v = v * params["scale"][None, :]
        if plan.relu == "normal_relu":     # x > 0 ? x : +0 (so -0, -inf and NaN give +0)
            v = np.where(v > 0, v, np.float32(0))
        elif plan.relu in ("scalar_relu", "vector_relu"):
            v = np.where(v >= 0, v, params["alpha"][None, :] * v)
        if plan.clip is not None:
            v = np.minimum(v, np.float32(plan.clip))
        family = _family(plan.quant) if plan.quant else None
        if family in ("qf322b8_pre", "req8"):
            return _to_b8(v, params["offset"][None, :], params["signed"][None, :], dst)
        if family == "deqf16":
            v = np.clip(v, -65504, 65504)
        return _to_float(v, dst, plan.sat)


def _dst_extent(plan: _Plan, m: int, n: int, ds: int, es: int) -> int:
    """Bytes from the destination base to one past the last element written."""
    if plan.layout == "nz2nd":
        last = (m - 1) * ds + n - 1
    elif plan.layout == "nz2dn":
        last = (n - 1) * ds + m - 1
    else:
        c0 = plan.nz_c0
        last = max(((j // c0) * ds + (m - 1) * c0 + j % c0)
                   for j in {n - 1, max(0, (n // c0) * c0 - 1)})
    return (last + 1) * es


def _dst_views(plan: _Plan, buf: np.ndarray, off: int, dst: DType, ds: int, m: int,
               n: int) -> list[tuple[np.ndarray, int, int]]:
    """Strided views of the destination, each with the column range it holds."""
    es, npdt = dst.size, dst.np
    if plan.layout == "nz2nd":
        return [(strided(buf, off, [(m, ds * es)], (n,), (es,), npdt), 0, n)]
    if plan.layout == "nz2dn":
        return [(strided(buf, off, [(m, es)], (n,), (ds * es,), npdt), 0, n)]
    c0 = plan.nz_c0
    full, tail = divmod(n, c0)
    views = []
    if full:
        views.append((strided(buf, off, [(m, c0 * es), (full, ds * es)], (c0,), (es,), npdt),
                      0, full * c0))
    if tail:
        views.append((strided(buf, off + full * ds * es, [(m, c0 * es)], (tail,), (es,), npdt),
                      full * c0, n))
    return views


def _store(plan: _Plan, buf: np.ndarray, off: int, dst: DType, ds: int, y: np.ndarray,
           combine: str | None) -> None:
    m, n = y.shape
    for view, a, b in _dst_views(plan, buf, off, dst, ds, m, n):
        part = y[:, a:b].reshape(view.shape)
        if combine is not None:
            part = _atomic(combine, view, part, dst)
        view[...] = part


def _atomic(how: str, old: np.ndarray, y: np.ndarray, dst: DType) -> np.ndarray:
    """GM atomic combine, computed in the destination type (floats via f64, one rounding)."""
    if dst.kind == "float":
        a, b = old.astype(np.float64), y.astype(np.float64)
    else:
        a, b = old.astype(np.int64), y.astype(np.int64)
    with np.errstate(over="ignore", invalid="ignore"):
        r = a + b if how == "add" else (np.maximum(a, b) if how == "max" else np.minimum(a, b))
    return r.astype(dst.np)
