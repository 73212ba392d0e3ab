"""DMA micro-ops: GM <-> UB, UB <-> UB, GM -> L1 (raw and ND/DN -> NZ), UB <-> L1.

Units, field widths and decisions are recorded in docs/semantics.md ("DMA ops").
Two burst models exist:
- the *stride* model (``mte_gm_ub``, ``mte_ub_gm``, ``mte_gm_l1``): lengths and strides in
  bytes, strides measured start to start;
- the *gap* model (``mte_ub_ub``, ``mte_ub_l1``, ``mte_l1_ub``): lengths and gaps in 32 B
  blocks, the next burst starts ``(len + gap) * 32`` bytes after the current one.
Both become one list of ``(count, src_stride, dst_stride)`` byte dims and one bulk copy.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..dtypes import BLOCK_BYTES, DType
from ..errors import AlignmentError, DtypeError, FieldRangeError, SpaceError, VerifyError, warn
from ..machine import MachineState, Ptr
from .common import (
    Burst,
    Dim,
    burst_copy,
    burst_plan,
    check_aligned,
    check_ptr,
    check_same_size,
    check_stride_aligned,
    clause,
    extent,
    field,
    loop_clauses,
    plan_key,
    require_op,
    run_burst,
    runs,
    strided,
)


@dataclass(frozen=True)
class _StrideSpec:
    """Field widths (bits) of a stride-model op; ``None`` = software loop, no hardware field."""

    src: tuple[str, str]          # (operand name, space)
    dst: tuple[str, str]
    len_bits: int
    n_bits: int
    src_stride_bits: int
    dst_stride_bits: int
    loop_bits: tuple[int, int, int]


# Widths are the narrower of the manual's table and the lowering's register encoding.
_GM_UB = _StrideSpec(("gm_src", "gm"), ("ub_dst", "ub"), 16, 16, 40, 21, (21, 40, 21))
_UB_GM = _StrideSpec(("ub_src", "ub"), ("gm_dst", "gm"), 16, 16, 21, 40, (21, 21, 40))
_GM_L1 = _StrideSpec(("src", "gm"), ("dst", "l1"), 21, 21, 40, 21, (21, 40, 21))

_PAD_COUNT_BITS = 6      # left/right pad counts (register fields [51:46] and [57:52])
_GAP_BITS = 16           # len_burst / gaps of the gap-model ops
_ROW = np.dtype((np.void, BLOCK_BYTES))  # one 32 B C0 row as a single numpy element


def _align_up(x: int, a: int) -> int:
    return -(-x // a) * a


def _pad_scalar(op: str, value: object, dt: DType) -> np.ndarray:
    """The pad value as one element of ``dt``: a number is converted, a numpy scalar of the
    element's size but another type (e.g. int16 for f16) is taken as its bit pattern."""
    if dt.size not in (1, 2, 4) or dt.kind == "packed":
        raise DtypeError(f"pad value needs an 8/16/32-bit element type, got {dt.name}",
                         op=op, operand="pad")
    if isinstance(value, np.generic) and value.dtype.itemsize == dt.size \
            and value.dtype != dt.np:
        return np.array(value).view(dt.np)
    if isinstance(value, np.generic) and value.dtype == dt.np:
        return np.array(value)    # already the element (ml_dtypes scalars are no np.number)
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.number)):
        raise VerifyError(f"pad value must be a number, got {value!r}", op=op, operand="pad")
    if dt.kind in ("int", "uint"):
        info = np.iinfo(dt.np)
        if not float(value).is_integer() or not info.min <= int(value) <= info.max:
            raise FieldRangeError(f"pad value {value!r} is not representable in {dt.name} "
                                  f"[{info.min}, {info.max}]", op=op, operand="pad")
        return np.array(int(value), dtype=dt.np)
    return np.array(value).astype(dt.np)


class DmaOps(MachineState):
    """The DMA micro-ops as Machine methods (operands in the manual's order, clauses as
    keyword tuples)."""

    # --- stride model ----------------------------------------------------------------
    def _stride_dims(self, op: str, spec: _StrideSpec, src: object, dst: object,
                     len_burst: object, nburst: object, loop: object
                     ) -> tuple[Ptr, Ptr, int, list[Dim]]:
        """The checked pointers, burst length and dims (inner to outer) of a stride-model
        copy; the fields' checks run once per (op, fields) (`plan_key`)."""
        s, d = self._stride_ptrs(op, spec, src, dst)
        length, dims, _ = self._stride_layout(op, spec, len_burst, nburst, loop)
        return s, d, length, dims

    def _stride_ptrs(self, op: str, spec: _StrideSpec, src: object, dst: object
                     ) -> tuple[Ptr, Ptr]:
        require_op(self, op)
        s = check_ptr(op, spec.src[0], src, spec.src[1])
        d = check_ptr(op, spec.dst[0], dst, spec.dst[1])
        check_same_size(op, s, d, (spec.src[0], spec.dst[0]))
        if s.space != "gm":  # on-chip side: base 32 B aligned (its strides: the layout's)
            check_aligned(op, spec.src[0], s)
        if d.space != "gm":
            check_aligned(op, spec.dst[0], d)
        return s, d

    def _stride_layout(self, op: str, spec: _StrideSpec, len_burst: object,
                       nburst: object, loop: object) -> tuple[int, list[Dim], Burst]:
        key = plan_key(op, len_burst, nburst, loop)
        plan = self._op_plans.get(key) if key is not None else None
        if plan is not None:
            return plan
        length = field(op, "len_burst", len_burst, spec.len_bits, 1)
        n, ss, ds = clause(op, "nburst", nburst, (3,))
        dims: list[Dim] = [(field(op, "nburst count", n, spec.n_bits, 1),
                            field(op, "nburst src_stride", ss, spec.src_stride_bits),
                            field(op, "nburst dst_stride", ds, spec.dst_stride_bits))]
        cb, sb, db = spec.loop_bits
        for i, (c, ls, ld) in enumerate(loop_clauses(op, loop)):
            dims.append((field(op, f"loop[{i}] count", c, cb, 1),
                         field(op, f"loop[{i}] src_stride", ls, sb),
                         field(op, f"loop[{i}] dst_stride", ld, db)))
        for (_, space), k in ((spec.src, 1), (spec.dst, 2)):
            if space != "gm":  # on-chip side: every stride keeps bursts 32 B aligned
                for j, dim in enumerate(dims):
                    label = "nburst" if j == 0 else f"loop[{j - 1}]"
                    check_stride_aligned(op, f"{label} {('src', 'dst')[k - 1]}_stride",
                                         dim[0], dim[k])
        plan = (length, dims, burst_plan(length, dims))
        if key is not None:
            self._op_plans[key] = plan
        return plan

    def _stride_copy(self, op: str, spec: _StrideSpec, src: object, dst: object,
                     len_burst: object, nburst: object, loop: object) -> None:
        """A stride-model copy without padding: bursts copied verbatim."""
        s, d = self._stride_ptrs(op, spec, src, dst)
        burst = self._stride_layout(op, spec, len_burst, nburst, loop)[2]
        run_burst(self, op, (spec.src[0], spec.dst[0]), s, d, burst)

    def _regions(self, op: str, names: tuple[str, str], s: Ptr, d: Ptr, length: int,
                    dims: Sequence[Dim], dst_length: int | None = None) -> tuple:
        src_dims = [(c, x) for c, x, _ in dims]
        dst_dims = [(c, y) for c, _, y in dims]
        dst_length = dst_length or length
        src_reg = self._region(s, extent(length, src_dims), access="R", op=op,
                               operand=names[0], runs=runs(length, src_dims))
        dst_reg = self._region(d, extent(dst_length, dst_dims), access="W", op=op,
                               operand=names[1], runs=runs(dst_length, dst_dims))
        return src_reg, dst_reg

    def mte_gm_ub(self, gm_src: Ptr, ub_dst: Ptr, l2_cache_ctl: int, len_burst: int, *,
                  nburst: tuple[int, int, int],
                  loop: Sequence[tuple[int, int, int]] | None = None,
                  pad: tuple | None = None) -> None:
        """GM -> UB (MTE2). ``pad=(value[, left, right])`` writes each UB row as
        [left x value][data][right x value] and pads with value to the next 32 B."""
        self._gm_ub("mte_gm_ub", gm_src, ub_dst, l2_cache_ctl, len_burst, nburst, loop, pad)

    def _gm_ub(self, op: str, gm_src: object, ub_dst: object, l2_cache_ctl: object,
               len_burst: object, nburst: object, loop: object, pad: object) -> None:
        """mte_gm_ub's semantics, reported as ``op`` (also copy_gm_to_ubuf's)."""
        if pad is None:
            field(op, "l2_cache_ctl", l2_cache_ctl, 2)
            self._stride_copy(op, _GM_UB, gm_src, ub_dst, len_burst, nburst, loop)
            return
        s, d, length, dims = self._stride_dims(op, _GM_UB, gm_src, ub_dst, len_burst,
                                               nburst, loop)
        field(op, "l2_cache_ctl", l2_cache_ctl, 2)
        p = clause(op, "pad", pad, (1, 3))
        es = d.dtype.size
        value = _pad_scalar(op, p[0], d.dtype)
        left = field(op, "pad left count", p[1], _PAD_COUNT_BITS) if len(p) == 3 else 0
        right = field(op, "pad right count", p[2], _PAD_COUNT_BITS) if len(p) == 3 else 0
        if length % es:
            raise AlignmentError(f"len_burst = {length} bytes is not a whole number of "
                                 f"{d.dtype.name} elements, so rows cannot be padded",
                                 op=op, operand="len_burst")
        row = _align_up(left * es + length + right * es, BLOCK_BYTES)
        if dims[0][0] > 1 and row > dims[0][2]:
            raise VerifyError(f"padded UB row of {row} bytes is longer than nburst dst_stride "
                              f"= {dims[0][2]} bytes, so rows would overwrite each other",
                              op=op, operand="pad")
        src_reg, dst_reg = self._regions(op, ("gm_src", "ub_dst"), s, d, length, dims,
                                            dst_length=row)
        outer_first = [(c, y) for c, _, y in reversed(dims)]
        strided(dst_reg[0], dst_reg[1], outer_first, (row // es,), (es,), d.dtype.np)[...] = value
        burst_copy(src_reg, (dst_reg[0], dst_reg[1] + left * es), length, dims, op)

    def mte_ub_gm(self, ub_src: Ptr, gm_dst: Ptr, len_burst: int, *,
                  nburst: tuple[int, int, int],
                  loop: Sequence[tuple[int, int, int]] | None = None) -> None:
        """UB -> GM (MTE3): ``len_burst`` bytes of each 32 B-aligned UB row to GM."""
        self._ub_gm("mte_ub_gm", ub_src, gm_dst, len_burst, nburst, loop)

    def _ub_gm(self, op: str, ub_src: object, gm_dst: object, len_burst: object,
               nburst: object, loop: object) -> None:
        self._stride_copy(op, _UB_GM, ub_src, gm_dst, len_burst, nburst, loop)

    def mte_gm_l1(self, src: Ptr, dst: Ptr, len_burst: int, *,
                  nburst: tuple[int, int, int],
                  loop: Sequence[tuple[int, int, int]] | None = None) -> None:
        """GM -> L1 (MTE2), bytes copied verbatim, no layout change."""
        self._gm_l1("mte_gm_l1", src, dst, len_burst, nburst, loop)

    def _gm_l1(self, op: str, src: object, dst: object, len_burst: object, nburst: object,
               loop: object) -> None:
        self._stride_copy(op, _GM_L1, src, dst, len_burst, nburst, loop)

    # --- gap model -------------------------------------------------------------------
    def _gap_copy(self, op: str, names: tuple[str, str], spaces: tuple[str, str],
                  src: object, dst: object, len_burst: object, nburst: object,
                  n_bits: int, loop: object = None, any_sub: bool = False) -> None:
        if op not in self.target.ops:
            require_op(self, op)
        # the checks inline on their passing path (a small copy is mostly this overhead)
        s = src if type(src) is Ptr and src.space == spaces[0] else \
            check_ptr(op, names[0], src, spaces[0])
        d = dst if type(dst) is Ptr and dst.space == spaces[1] else \
            check_ptr(op, names[1], dst, spaces[1])
        if spaces == ("ub", "ub") and s.sub != d.sub:
            raise SpaceError(f"{names[0]} is in sub-block {s.sub}'s UB but {names[1]} in "
                             f"sub-block {d.sub}'s; a vector core copies within its own UB",
                             op=op)
        if spaces == ("l1", "ub") and d.sub != 0 and not any_sub:
            raise SpaceError(f"{names[1]} must be sub-block 0's UB: the op has no sub-block "
                             f"selector (got subblock={d.sub})", op=op, operand=names[1])
        if s.dtype.size != d.dtype.size:
            check_same_size(op, s, d, names)
        if s.offset % BLOCK_BYTES or d.offset % BLOCK_BYTES:
            check_aligned(op, names[0], s)
            check_aligned(op, names[1], d)
        key = plan_key(op, n_bits, len_burst, nburst, loop)     # op fixes names and spaces
        burst = self._op_plans.get(key) if key is not None else None
        if burst is None:
            burst = self._gap_layout(op, len_burst, nburst, n_bits, loop)
            if key is not None:
                self._op_plans[key] = burst
        if s.space != "gm" and d.space != "gm" and s.block != d.block:
            raise SpaceError(f"{names[0]} is in block {s.block} but {names[1]} in block "
                             f"{d.block}", op=op)
        run_burst(self, op, names, s, d, burst)

    @staticmethod
    def _gap_layout(op: str, len_burst: object, nburst: object, n_bits: int, loop: object
                    ) -> Burst:
        """The checked fields of a gap-model copy as its burst layout."""
        length = field(op, "len_burst", len_burst, _GAP_BITS, 1)
        n, sg, dg = clause(op, "nburst", nburst, (3,))
        n = field(op, "nburst count", n, n_bits, 1)
        sg = field(op, "nburst src_gap", sg, _GAP_BITS)
        dg = field(op, "nburst dst_gap", dg, _GAP_BITS)
        dims: list[Dim] = [(n, (length + sg) * BLOCK_BYTES, (length + dg) * BLOCK_BYTES)]
        for i, (c, ls, ld) in enumerate(loop_clauses(op, loop)):
            c = field(op, f"loop[{i}] count", c, None, 1)
            dims.append((c, field(op, f"loop[{i}] src_stride", ls, None),
                         field(op, f"loop[{i}] dst_stride", ld, None)))
            check_stride_aligned(op, f"loop[{i}] src_stride", c, dims[-1][1])
            check_stride_aligned(op, f"loop[{i}] dst_stride", c, dims[-1][2])
        return burst_plan(length * BLOCK_BYTES, dims)

    def mte_ub_ub(self, ub_src: Ptr, ub_dst: Ptr, len_burst: int, *,
                  nburst: tuple[int, int, int]) -> None:
        """UB -> UB within one vector sub-block; 32 B units and gaps."""
        self._gap_copy("mte_ub_ub", ("ub_src", "ub_dst"), ("ub", "ub"), ub_src, ub_dst,
                       len_burst, nburst, _GAP_BITS)

    def mte_ub_l1(self, ub_src: Ptr, l1_dst: Ptr, len_burst: int, *,
                  nburst: tuple[int, int, int]) -> None:
        """UB -> L1 (AIV MTE3): a raw burst copy in 32 B units and gaps (no ND -> NZ
        conversion; stage NZ with one burst per column block)."""
        self._gap_copy("mte_ub_l1", ("ub_src", "l1_dst"), ("ub", "l1"), ub_src, l1_dst,
                       len_burst, nburst, 12)

    def mte_l1_ub(self, src: Ptr, dst: Ptr, len_burst: int, *,
                  nburst: tuple[int, int, int],
                  loop: Sequence[tuple[int, int, int]] | None = None) -> None:
        """L1 -> UB of vector sub-block 0 (AIC MTE1); nburst in 32 B units and gaps,
        loop strides in bytes."""
        self._gap_copy("mte_l1_ub", ("src", "dst"), ("l1", "ub"), src, dst, len_burst,
                       nburst, 12, loop)

    # --- GM -> L1 with ND/DN -> NZ packing -------------------------------------------
    def mte_gm_l1_frac(self, src: Ptr, dst: Ptr, mode: str, *,
                       shape: tuple[int, int], src_layout: tuple[int] | tuple[int, int],
                       dst_group: tuple[int, int, int, int],
                       ctrl: tuple[int, bool] = (0, False)) -> None:
        """GM -> L1 NZ fractal load (MTE2). ``shape=(n, d)`` elements;
        ``src_layout=(inner[, outer])`` bytes; ``dst_group=(count, loop2, loop3, loop4)``
        in 32 B units; ``ctrl=(l2_cache_ctrl, smallc0_en)``."""
        op = "mte_gm_l1_frac"
        # the checks and the copy's plan depend on the operands only (not on src's
        # address, which bounds and observers see): done once per distinct call
        key = _frac_key(src, dst, mode, shape, src_layout, dst_group, ctrl)
        setup = self._op_plans.get(key) if key is not None else None
        if setup is None:
            setup = self._frac_setup(op, src, dst, mode, shape, src_layout, dst_group, ctrl)
            if key is not None:
                self._op_plans[key] = setup
        fields, burst = setup
        if burst is not None:
            run_burst(self, op, ("src", "dst"), src, dst, burst)
            return
        self._frac_general(op, src, dst, mode, fields)    # the set-up found no burst

    def _frac_setup(self, op: str, src: object, dst: object, mode: object, shape: object,
                    src_layout: object, dst_group: object, ctrl: object
                    ) -> tuple[tuple, Burst | None]:
        """mte_gm_l1_frac's operand checks, raising as the op does: its fields, and the
        burst copy that moves it when there is one (`_frac_burst`)."""
        require_op(self, op)
        s = check_ptr(op, "src", src, "gm")
        d = check_ptr(op, "dst", dst, "l1")
        if s.dtype.np != d.dtype.np:
            raise DtypeError(f"src and dst element types differ ({s.dtype.name} vs "
                             f"{d.dtype.name})", op=op)
        if d.dtype.size not in (1, 2, 4):
            raise DtypeError(f"element type {d.dtype.name} ({d.dtype.size} B) is not an "
                             f"8/16/32-bit type", op=op, operand="dst")
        check_aligned(op, "dst", d)
        # uncached: frac_fields' own cache would let (True, ...) share (1, ...)'s entry and
        # skip its type checks; this set-up is memoised by a key that tells them apart
        fields = frac_fields.__wrapped__(mode, shape, src_layout, dst_group, ctrl)
        return fields, self._frac_burst(d, str(mode), fields)

    def _frac_burst(self, d: Ptr, mode: str, fields: tuple) -> Burst | None:
        """The burst copy a checked mte_gm_l1_frac is, or None: whole C0 rows of 32
        contiguous source bytes whose destination rows never meet (a tile op can replay
        it, `TileOps._replayed`)."""
        n, dv, inner, outer, g, l2, l3, l4, small = fields
        if n == 0 or dv == 0:
            return None
        es, c0 = d.dtype.size, d.dtype.c0
        rs, cs = (inner, es) if mode == "nd2nz" else (es, inner)  # src bytes per r, per c
        if cs != es or small or dv % c0:
            return None
        key = ("frac", n, dv, rs, outer, g, l2, l3, l4, es, c0)
        burst = self._op_plans.get(key)
        if burst is None:
            unit = BLOCK_BYTES
            burst = burst_plan(c0 * es, [(n, rs, l2 * unit), (dv // c0, c0 * cs, l3 * unit),
                                         (g, outer, l4 * unit)])
            # the exact test: interleaved rows that never meet copy in one go;
            # overlapping ones keep the general path (and its warning)
            burst = burst._replace(disjoint=not _frac_overlap(g, dv // c0, n, l2, l3, l4))
            self._op_plans[key] = burst
        return burst if burst.disjoint else None

    def _frac_move(self, op: str, s: Ptr, d: Ptr, mode: str, fields: tuple) -> None:
        """mte_gm_l1_frac after its operand checks: bounds, overlap warning, the move.
        The tile layer calls it directly once it has established the same facts."""
        burst = self._frac_burst(d, mode, fields)
        if burst is not None:
            run_burst(self, op, ("src", "dst"), s, d, burst)
            return
        self._frac_general(op, s, d, mode, fields)

    def _frac_general(self, op: str, s: Ptr, d: Ptr, mode: str, fields: tuple) -> None:
        """`_frac_move` of a load that is no burst copy (`_frac_burst` gave None)."""
        n, dv, inner, outer, g, l2, l3, l4, small = fields
        if n == 0 or dv == 0:
            return
        es, c0 = d.dtype.size, d.dtype.c0
        rs, cs = (inner, es) if mode == "nd2nz" else (es, inner)  # src bytes per r, per c
        src_reg = self._region(s, (g - 1) * outer + (n - 1) * rs + (dv - 1) * cs + es,
                               access="R", op=op, operand="src")
        if small:
            _frac_small_c0(self, op, d, src_reg, (g, n, dv), (outer, rs, cs), l4)
            return
        nblk = -(-dv // c0)
        unit = BLOCK_BYTES
        dst_reg = self._region(d, (g - 1) * l4 * unit + (nblk - 1) * l3 * unit
                               + (n - 1) * l2 * unit + c0 * es, access="W", op=op,
                               operand="dst")
        _warn_frac_overlap(op, g, nblk, n, l2, l3, l4)
        npdt = d.dtype.np
        full, tail = divmod(dv, c0)
        sb, so = src_reg
        db, do = dst_reg
        if full:
            dst_axes = [(g, l4 * unit), (full, l3 * unit), (n, l2 * unit)]
            src_axes = [(g, outer), (full, c0 * cs), (n, rs)]
            if cs == es:  # a C0 row is 32 contiguous source bytes: move it as one element
                strided(db, do, dst_axes, (), (), _ROW)[...] = strided(sb, so, src_axes, (), (),
                                                                        _ROW)
            else:
                strided(db, do, dst_axes, (c0,), (es,), npdt)[...] = \
                    strided(sb, so, src_axes, (c0,), (cs,), npdt)
        if tail:
            base = do + full * l3 * unit
            rows = [(g, l4 * unit), (n, l2 * unit)]
            strided(db, base, rows, (tail,), (es,), npdt)[...] = \
                strided(sb, so + full * c0 * cs, [(g, outer), (n, rs)], (tail,), (cs,), npdt)
            strided(db, base + tail * es, rows, (c0 - tail,), (es,), npdt)[...] = 0


_CLAUSE_INTS = frozenset((int, bool))


def _frac_key(src: object, dst: object, mode: object, shape: object, src_layout: object,
              dst_group: object, ctrl: object) -> tuple | None:
    """mte_gm_l1_frac's memo key: what its checks and plan depend on (src's space and type,
    dst, the clauses with their values' types, so 1 and True differ), or None when an
    operand is not of the usual kinds (Ptrs, a str, tuples of ints and bools)."""
    if type(src) is not Ptr or type(dst) is not Ptr or type(mode) is not str or \
            type(shape) is not tuple or type(src_layout) is not tuple or \
            type(dst_group) is not tuple or type(ctrl) is not tuple:
        return None
    types = tuple(map(type, shape + src_layout + dst_group + ctrl))
    if not _CLAUSE_INTS.issuperset(types):
        return None
    return ("mte_gm_l1_frac", src.space, src.dtype, dst, mode, shape, src_layout, dst_group,
            ctrl, types)


@lru_cache(maxsize=1024)
def frac_fields(mode: object, shape: object, src_layout: object, dst_group: object,
                 ctrl: object) -> tuple:
    """mte_gm_l1_frac's field checks; they depend on these operands only (cached for the
    tile layer, whose operands are exact ints; a failing set raises every time: errors
    are not cached)."""
    op = "mte_gm_l1_frac"
    if mode not in ("nd2nz", "dn2nz"):
        raise VerifyError(f"mode must be 'nd2nz' or 'dn2nz', got {mode!r}", op=op,
                          operand="mode")
    n, dv = clause(op, "shape", shape, (2,))
    n = field(op, "shape n_value", n, 16)
    dv = field(op, "shape d_value", dv, 21)
    lay = clause(op, "src_layout", src_layout, (1, 2))
    inner = field(op, "src_layout inner_stride", lay[0], 40)
    outer = field(op, "src_layout outer_stride", lay[1], 40) if len(lay) == 2 else 0
    g, l2, l3, l4 = clause(op, "dst_group", dst_group, (4,))
    g = field(op, "dst_group group_count", g, 16, 1)
    l2 = field(op, "dst_group loop2_stride", l2, 16)
    l3 = field(op, "dst_group loop3_stride", l3, 16)
    l4 = field(op, "dst_group loop4_stride", l4, 16)
    cache, small = clause(op, "ctrl", ctrl, (2,))
    field(op, "ctrl l2_cache_ctrl", cache, 4)
    if not isinstance(small, (bool, np.bool_, int, np.integer)) or small not in (0, 1):
        raise FieldRangeError(f"ctrl smallc0_en must be a boolean, got {small!r}",
                              op=op, operand="ctrl")
    if small and dv > 4:
        raise VerifyError(f"small-C0 mode needs d_value <= 4, got {dv}", op=op,
                          operand="shape")
    return n, dv, inner, outer, g, l2, l3, l4, small


def _frac_small_c0(m: MachineState, op: str, d: Ptr, src_reg: tuple[np.ndarray, int],
                   gnd: tuple[int, int, int], src_strides: tuple[int, int, int],
                   l4: int) -> None:
    """Small-C0 packing (docs/semantics.md, "small-C0"): element (r, c) of group g lands at
    element ``g*l4*C0 + r*4 + c``; lanes [d, 4) and rows up to the 32 B boundary are zero."""
    g, n, dv = gnd
    es = d.dtype.size
    rows_per_block = BLOCK_BYTES // (4 * es)
    n_al = _align_up(n, rows_per_block)
    gstride = l4 * BLOCK_BYTES
    db, do = m._region(d, (g - 1) * gstride + n_al * 4 * es, access="W", op=op, operand="dst")
    if g > 1 and gstride < n_al * 4 * es:
        warn(f"{op}: dst groups overlap (loop4_stride {l4} x 32 B < "
                      f"{n_al * 4 * es} B per group)")
    outer, rs, cs = src_strides
    npdt = d.dtype.np
    dview = strided(db, do, [(g, gstride), (n_al, 4 * es)], (4,), (es,), npdt)
    dview[...] = 0
    dview[:, :n, :dv] = strided(src_reg[0], src_reg[1], [(g, outer), (n, rs)], (dv,), (cs,),
                                npdt)


def _frac_overlap(g: int, nblk: int, n: int, l2: int, l3: int, l4: int) -> bool:
    """Whether two generated 32 B rows may land on the same destination unit. Cheap
    sufficient tests first, exact check otherwise."""
    rows_ok = n == 1 or l2 >= 1
    block_span = (n - 1) * l2 + 1
    blocks_ok = nblk == 1 or l3 >= block_span
    group_span = (nblk - 1) * l3 + block_span
    groups_ok = g == 1 or l4 >= group_span
    if rows_ok and blocks_ok and groups_ok:
        return False
    if g * nblk * n <= 1 << 20:
        units = (np.arange(g)[:, None, None] * l4 + np.arange(nblk)[None, :, None] * l3
                 + np.arange(n)[None, None, :] * l2).ravel()
        if np.unique(units).size == units.size:
            return False
    return True


def _warn_frac_overlap(op: str, g: int, nblk: int, n: int, l2: int, l3: int, l4: int) -> None:
    """Warn when two generated 32 B rows land on the same destination unit (the manual
    calls the result unstable)."""
    if not _frac_overlap(g, nblk, n, l2, l3, l4):
        return
    warn(f"{op}: destination 32 B rows overlap (loop2 {l2}, loop3 {l3}, loop4 {l4} "
                  f"for {g} group(s) of {nblk} block(s) x {n} rows); the result is not a "
                  f"stable program result on hardware")
