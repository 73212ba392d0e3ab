"""Cube operand staging: L1 -> L0A / L0B (with transpose), L1 -> BT, L1 -> FB.

The operand buffers hold fractal layouts (docs/semantics.md, "Cube operands"):
- L0A: A (m x k) padded to align16(m) x align(k, C0), NZ on a5 / ZZ on a2a3 (16 x C0 boxes);
- L0B: B (k x n) padded to align(k, C0) x align16(n), ZN ([K1][Npad][C0], K innermost).
An L1 source is an NZ image: of A (or of A^T with ``transpose``) for L0A, and for L0B
either already ZN (= NZ of B^T) or, with ``transpose``, NZ of B with align(k, max(16, C0))
rows - what nd2nz of a row-major B produces. Whole fractals move, padding included.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, NamedTuple

import numpy as np

from ..dtypes import DType, dtype
from ..errors import DtypeError, NotImplementedOpError, VerifyError, warn
from ..layout import Layout, copy_plan, tile_layout
from ..machine import MachineState, Ptr
from .common import (
    Burst,
    burst_plan,
    check_aligned,
    check_ptr,
    clause,
    field,
    require_op,
    run_burst,
    strided,
)

MNK_BITS = 12  # m, n, k fields of the cube ops: 1..4095
FRACTAL = 512  # one 16 x C0 fractal of L1 / L0A / L0B, in bytes
_FRAC = np.dtype((np.void, FRACTAL))
E8M0 = dtype("f8E8M0FNU")     # MX scales: one e8m0 byte per 32 consecutive K elements


def align(x: int, a: int) -> int:
    return -(-x // a) * a


@lru_cache(maxsize=256)
def l0a_layout(name: str, m: int, k: int, dt: DType) -> Layout:
    """L0A image of an m x k left operand (``name``: the target's L0A layout, NZ or ZZ)."""
    return tile_layout(name, align(m, 16), align(k, dt.c0), dt)


@lru_cache(maxsize=256)
def l0b_layout(k: int, n: int, dt: DType) -> Layout:
    """L0B image of a k x n right operand: ZN with C0 x 16 boxes."""
    return tile_layout("ZN", align(k, dt.c0), align(n, 16), dt)


def mx_scale_ptr(data: Ptr) -> Ptr:
    """Where the cube keeps the MX scales of the operand at ``data`` (an L0A / L0B
    pointer): the ScaleLeft / ScaleRight buffer at the data address >> 4."""
    return Ptr(f"{data.space}_mx", E8M0, data.offset >> 4, data.sub, data.block)


@lru_cache(maxsize=256)
def mx_scale_layout(space: str, rows: int, k: int) -> Layout:
    """The scales of an operand with ``rows`` rows (m for L0A, n for L0B) and K = ``k``:
    ScaleLeft is align16(m) x k/32 in ZZ-32 (16 x 2 byte boxes), ScaleRight k/32 x
    align16(n) in NN-32 (2 x 16 boxes) - the tile level's ScaleLeft / ScaleRight tiles."""
    if space == "l0a":
        return tile_layout("ZZ", align(rows, 16), k // 32, E8M0, fractal=32)
    return tile_layout("NN", k // 32, align(rows, 16), E8M0, fractal=32)


@lru_cache(maxsize=256)
def _l1_source(rows: int, cols: int, transposed: bool, dt: DType) -> tuple[Layout, int, int]:
    """The L1 NZ image a (rows x cols) operand is read from, and the logical size to read.

    Not transposed: NZ of the operand itself (rows padded to 16). Transposed: NZ of its
    transpose, whose row count is padded to the transpose block max(16, C0)."""
    if not transposed:
        return tile_layout("NZ", rows, cols, dt), rows, cols
    t_rows = align(cols, max(16, dt.c0))
    return tile_layout("NZ", t_rows, align(rows, dt.c0), dt), rows, cols


_RAW: dict[int, np.dtype[Any]] = {n: np.dtype(f"u{n}") for n in (1, 2, 4, 8)}


@lru_cache(maxsize=256)
def _stage_plan(src: Layout, dst: Layout, transpose: bool
                ) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]] | None:
    return copy_plan(src, dst, transpose)


def read_matrix(buf: np.ndarray, offset: int, lay: Layout, dt: DType) -> np.ndarray:
    """The logical matrix stored under a layout (a copy)."""
    return lay.view(buf, offset, dt).reshape(lay.rows, lay.cols)


def write_matrix(buf: np.ndarray, offset: int, lay: Layout, dt: DType, mat: np.ndarray) -> None:
    lay.view(buf, offset, dt)[...] = mat.reshape(lay.shape)


class _Stage(NamedTuple):
    """A checked L1 -> L0A / L0B move, ready to run (`CubeMoveOps._stage`): one of a flat
    burst, one strided copy of raw element bits, or the general gather (``general``)."""

    s: Ptr
    d: Ptr
    flat: Burst | None
    src_bytes: int
    dst_bytes: int
    copy: tuple | None              # (shape, raw dtype, src byte strides, dst byte strides)
    general: tuple                  # (src_lay, dst_lay, r, c, transpose, transposed_dst, dt)
    warning: tuple | None           # `_warn_b8_transpose`'s arguments: it warns per call


def _stage_key(op: str, src: object, dst: object, a: object, b: object, start_row: object,
               start_col: object, transpose: object) -> tuple | None:
    """The memo key of an L1 -> L0 move's set-up: its operands when they are of the
    usual kinds (Ptrs, ints, zero starts, a bool; one type per position, so equal values
    mean equal checks), else None (checked every call)."""
    if type(src) is Ptr and type(dst) is Ptr and type(a) is int and type(b) is int and \
            type(start_row) is int and type(start_col) is int and start_row == start_col == 0 \
            and type(transpose) is bool:
        return (op, src, dst, a, b, transpose)
    return None


def _stage_setup(s: Ptr, d: Ptr, dt: DType, dst_lay: Layout, transpose: bool,
                 transposed_dst: bool, warning: tuple | None) -> _Stage:
    """How an L1 -> L0 move of ``dst_lay`` runs (the layouts and plan of `_stage`)."""
    rows, cols = dst_lay.rows, dst_lay.cols
    if transposed_dst:          # stage the transpose of the operand (B^T for L0B)
        rows, cols = cols, rows
    src_lay, r, c = _l1_source(rows, cols, transpose, dt)
    general = (src_lay, dst_lay, r, c, transpose, transposed_dst, dt)
    src_bytes, dst_bytes = src_lay.span * dt.size, dst_lay.span * dt.size
    if not transpose and not transposed_dst and src_lay == dst_lay:
        return _Stage(s, d, _flat_burst(dst_bytes), src_bytes, dst_bytes, None, general,
                      warning)
    plan = _stage_plan(src_lay, dst_lay, transpose != transposed_dst)
    copy = None
    if plan is not None:
        shape, ss, ds = plan
        esz = dt.size           # bits, not values: no float canonicalises a NaN
        copy = (shape, _RAW[esz], tuple([x * esz for x in ss]), tuple([x * esz for x in ds]))
    return _Stage(s, d, None, src_bytes, dst_bytes, copy, general, warning)


@lru_cache(maxsize=256)
def _flat_burst(nbytes: int) -> Burst:
    return burst_plan(nbytes, [(1, nbytes, nbytes)])


class CubeMoveOps(MachineState):
    """L1 -> L0A/L0B/BT/FB moves (AIC MTE1; mte_l1_fb on FIX)."""

    def _l1_to_l0(self, op: str, src: object, dst: object, space: str, shape: tuple,
                  transpose: bool) -> tuple[Ptr, Ptr, DType]:
        require_op(self, op)
        s = check_ptr(op, "src", src, "l1")
        d = check_ptr(op, "dst", dst, space)
        if s.dtype.np != d.dtype.np:
            raise DtypeError(f"src and dst element types differ ({s.dtype.name} vs "
                             f"{d.dtype.name})", op=op)
        if d.dtype.size not in (1, 2, 4):
            raise DtypeError(f"element type {d.dtype.name} is not a cube operand type",
                             op=op, operand="dst")
        check_aligned(op, "src", s)
        check_aligned(op, "dst", d, self.target.l0_align)
        if not isinstance(transpose, (bool, np.bool_)):
            raise DtypeError(f"transpose must be a boolean, got {transpose!r}", op=op,
                             operand="transpose")
        return s, d, d.dtype

    def _copy_fractals(self, op: str, space: str, s: Ptr, d: Ptr,
                       fields: tuple[int, int, int, int, int, int]) -> None:
        """The register-level L1 -> L0 load (load_cbuf_to_ca / _cb): for kb < k_step and
        mb < m_step the 512 B fractal ``(k_start + kb) * src_stride + m_start + mb`` of src
        goes to fractal ``kb * dst_stride + mb`` of dst: K blocks outer, as in an NZ L1
        image, an NZ L0A (a5) and a ZN L0B."""
        ms, ks, mstep, kstep, ss, ds = fields
        if space == "l0a" and self.target.l0a_layout != "NZ":
            raise NotImplementedOpError(f"the fractal order of the register-level load into "
                                        f"a {self.target.l0a_layout} L0A (target "
                                        f"{self.target.name}) is not documented; use "
                                        f"mte_l1_l0a without start offsets", op=op)
        if kstep > 1 and ds < mstep:
            raise VerifyError(f"dst_stride = {ds} fractals is less than m_step = {mstep}: the "
                              f"K blocks would overwrite each other", op=op,
                              operand="dst_stride")
        first = (ks * ss + ms) * FRACTAL
        sb, so = self._region(s, first + ((kstep - 1) * ss + mstep) * FRACTAL, access="R",
                              op=op, operand="src")
        db, do = self._region(d, ((kstep - 1) * ds + mstep) * FRACTAL, access="W", op=op,
                              operand="dst")
        strided(db, do, [(kstep, ds * FRACTAL), (mstep, FRACTAL)], (), (), _FRAC)[...] = \
            strided(sb, so + first, [(kstep, ss * FRACTAL), (mstep, FRACTAL)], (), (), _FRAC)

    def _with_starts(self, op: str, space: str, src: object, dst: object, rows: int, k: int,
                     starts: tuple[object, object], transpose: object) -> bool:
        """The 6-operand form (PTOAS): start_row / start_col go unchanged into the
        register-level load's m_start / k_start (fractal units), with the steps and strides
        the lowering derives from (rows, k). True when it ran (non-zero starts)."""
        sr = field(op, "start_row", starts[0], 16)
        sc = field(op, "start_col", starts[1], 16)
        if sr == sc == 0:
            return False
        s, d, dt = self._l1_to_l0(op, src, dst, space, (), transpose)  # type: ignore[arg-type]
        if transpose:
            raise NotImplementedOpError("start_row / start_col with transpose are not "
                                        "modelled (only constant-0 starts)", op=op)
        steps = -(-rows // 16)
        self._copy_fractals(op, space, s, d,
                            (sr, sc, steps, -(-k * dt.size // 32), steps, steps))
        return True

    def mte_l1_l0a(self, src: Ptr, dst: Ptr, m: int, k: int, start_row: int = 0,
                   start_col: int = 0, *, transpose: bool = False) -> None:
        """L1 NZ image of A (or of A^T with ``transpose``) -> L0A fractals of A (m x k).
        ``start_row`` / ``start_col`` (PTOAS's 6-operand form) count 16-row fractals and
        C0 column blocks of the L1 image."""
        self._to_l0("mte_l1_l0a", "l0a", src, dst, ("m", m), ("k", k), (start_row, start_col),
                    transpose)

    def mte_l1_l0b(self, src: Ptr, dst: Ptr, k: int, n: int, start_row: int = 0,
                   start_col: int = 0, *, transpose: bool = False) -> None:
        """L1 ZN image of B, or with ``transpose`` the NZ image of B -> L0B fractals of B.
        ``start_row`` / ``start_col`` (6-operand form) count 16-column blocks of N and C0
        blocks of K, as the lowering passes them to load_cbuf_to_cb."""
        self._to_l0("mte_l1_l0b", "l0b", src, dst, ("k", k), ("n", n), (start_row, start_col),
                    transpose)

    def _to_l0(self, op: str, space: str, src: object, dst: object, rows: tuple[str, object],
               cols: tuple[str, object], starts: tuple[object, object],
               transpose: bool) -> None:
        """mte_l1_l0a (``rows`` m, ``cols`` k) or mte_l1_l0b (k, n): the checks, layouts and
        copy plan once per distinct operands (`_stage_key`), the move every call."""
        key = _stage_key(op, src, dst, rows[1], cols[1], *starts, transpose)
        stage = self._op_plans.get(key) if key is not None else None
        if stage is None:
            r = field(op, rows[0], rows[1], MNK_BITS, 1)
            c = field(op, cols[0], cols[1], MNK_BITS, 1)
            # the register form's fractal rows: A's m, B's n
            if self._with_starts(op, space, src, dst, *((r, c) if space == "l0a" else (c, r)),
                                 starts, transpose):
                return
            s, d, dt = self._l1_to_l0(op, src, dst, space, (r, c), transpose)
            name = self.target.l0a_layout if space == "l0a" else "ZN"
            plain = l0a_layout(name, r, c, dt) if space == "l0a" else l0b_layout(r, c, dt)
            warning = None
            dst_lay = plain
            if transpose:   # whole transpose blocks move: both extents padded to max(16, C0)
                t = max(16, dt.c0)
                dst_lay = tile_layout(name, align(r, t), align(c, t), dt)
                # the extent whose padding can spill: A's m, B's n
                spill, extent = (rows[0], r) if space == "l0a" else (cols[0], c)
                warning = (op, spill, extent, t, dst_lay, plain, (r, c))
            # L0B's ZN image of B is the NZ image of B^T, and so is an L1 ZN source; an L1
            # NZ image of B (``transpose``) is the transposed NZ form of B^T.
            stage = _stage_setup(s, d, dt, dst_lay, bool(transpose), space == "l0b", warning)
            if key is not None:
                self._op_plans[key] = stage
        self._stage(op, stage)

    def mte_l1_l0a_mx(self, src: Ptr, dst: Ptr, m: int, k: int) -> None:
        """MX scales of the L0A operand at ``dst``: the ZZ-32 image of an align16(m) x k/32
        e8m0 matrix, copied from L1 into ScaleLeft at ``dst``'s address >> 4."""
        self._mx_scales("mte_l1_l0a_mx", src, dst, "l0a", ("m", m), k)

    def mte_l1_l0b_mx(self, src: Ptr, dst: Ptr, k: int, n: int) -> None:
        """MX scales of the L0B operand at ``dst``: the NN-32 image of a k/32 x align16(n)
        e8m0 matrix, copied from L1 into ScaleRight at ``dst``'s address >> 4."""
        self._mx_scales("mte_l1_l0b_mx", src, dst, "l0b", ("n", n), k)

    def _mx_scales(self, op: str, src: object, dst: object, space: str,
                   rows: tuple[str, object], k: object) -> None:
        require_op(self, op)
        r = field(op, rows[0], rows[1], MNK_BITS, 1)
        kv = field(op, "k", k, MNK_BITS, 1)
        s = check_ptr(op, "src", src, "l1")
        d = check_ptr(op, "dst", dst, space)
        if kv % 64:
            raise VerifyError(f"k = {kv} must be a multiple of 64: scales move in pairs of "
                              f"32-element K groups", op=op, operand="k")
        if s.dtype.size != 1:
            raise DtypeError(f"scales are e8m0 bytes: src needs a 1-byte element type, got "
                             f"{s.dtype.name}", op=op, operand="src")
        check_aligned(op, "src", s)
        check_aligned(op, "dst", d, self.target.l0_align)
        # L1 holds the scale tile in the same boxed layout, so the bytes move unchanged
        nbytes = mx_scale_layout(space, r, kv).span
        sb, so = self._region(s, nbytes, access="R", op=op, operand="src")
        db, do = self._region(mx_scale_ptr(d), nbytes, access="W", op=op, operand="dst")
        db[do:do + nbytes] = sb[so:so + nbytes]

    def _stage(self, op: str, st: _Stage) -> None:
        """Run a prepared L1 -> L0A / L0B move (`_stage_setup`): the regions are checked
        and the bytes move every time."""
        if st.warning is not None:
            _warn_b8_transpose(*st.warning)
        if st.flat is not None:     # same image on both sides: one flat burst (a tile op
            run_burst(self, op, ("src", "dst"), st.s, st.d, st.flat)    # can replay it)
            return
        src_buf, src_off = self._region(st.s, st.src_bytes, access="R", op=op, operand="src")
        dst_buf, dst_off = self._region(st.d, st.dst_bytes, access="W", op=op, operand="dst")
        if st.copy is not None:     # one strided copy, fractal to fractal
            shape, raw, ss, ds = st.copy
            np.ndarray(shape, raw, dst_buf, dst_off, ds)[...] = \
                np.ndarray(shape, raw, src_buf, src_off, ss)
            return
        src_lay, dst_lay, r, c, transpose, transposed_dst, dt = st.general
        mat = read_matrix(src_buf, src_off, src_lay, dt)
        mat = mat[:c, :r].T if transpose else mat[:r, :c]
        if transposed_dst:
            mat = mat.T
        write_matrix(dst_buf, dst_off, dst_lay, dt, np.ascontiguousarray(mat))

    def mte_l1_bt(self, src: Ptr, dst: Ptr, len_burst: int, *,
                  nburst: tuple[int, int, int]) -> None:
        """L1 -> BT bias table (MTE1). Units of 32 B of source (64 B on a2a3); f16 and
        bf16 sources are widened to f32."""
        self._l1_bt("mte_l1_bt", src, dst, len_burst, nburst)

    def _l1_bt(self, op: str, src: object, dst: object, len_burst: object,
               nburst: object) -> None:
        s, d, dims, length = self._unit_bursts(op, src, dst, "bt", len_burst, nburst,
                                               self.target.bt_unit)
        pair = (s.dtype.name, d.dtype.name)
        legal = {("f32", "f32"), ("f16", "f32"), ("bf16", "f32")}
        is_i32 = s.dtype.kind in ("int", "uint") and d.dtype.kind in ("int", "uint") \
            and s.dtype.size == d.dtype.size == 4
        if pair not in legal and not is_i32:
            raise DtypeError(f"{s.dtype.name} -> {d.dtype.name} is not one of f32->f32, "
                             f"i32->i32, f16->f32, bf16->f32", op=op)
        if pair == ("bf16", "f32") and not self.target.bt_bf16:
            raise DtypeError("bf16 -> f32 bias loads exist on a5 only", op=op)
        widen = d.dtype.size // s.dtype.size
        n, ss, ds = dims
        src_reg = self._region(s, (n - 1) * ss + length, access="R", op=op, operand="src")
        dst_reg = self._region(d, (n - 1) * ds * widen + length * widen, access="W", op=op,
                               operand="dst")
        vals = strided(src_reg[0], src_reg[1], [(n, ss)], (length // s.dtype.size,),
                       (s.dtype.size,), s.dtype.np)
        strided(dst_reg[0], dst_reg[1], [(n, ds * widen)], (length // s.dtype.size,),
                (d.dtype.size,), d.dtype.np)[...] = vals.astype(d.dtype.np)

    def mte_l1_fb(self, src: Ptr, dst: Ptr, len_burst: int, *,
                  nburst: tuple[int, int, int]) -> None:
        """L1 -> FB (FIXPIPE parameters), raw bytes in units of 64 B (128 B on a2a3)."""
        self._l1_fb("mte_l1_fb", src, dst, len_burst, nburst)

    def _l1_fb(self, op: str, src: object, dst: object, len_burst: object,
               nburst: object) -> None:
        s, d, dims, length = self._unit_bursts(op, src, dst, "fb", len_burst, nburst,
                                               self.target.fb_unit)
        n, ss, ds = dims
        src_reg = self._region(s, (n - 1) * ss + length, access="R", op=op, operand="src")
        dst_reg = self._region(d, (n - 1) * ds + length, access="W", op=op, operand="dst")
        burst = np.dtype((np.void, length))
        strided(dst_reg[0], dst_reg[1], [(n, ds)], (), (), burst)[...] = \
            strided(src_reg[0], src_reg[1], [(n, ss)], (), (), burst)

    def _unit_bursts(self, op: str, src: object, dst: object, space: str, len_burst: object,
                     nburst: object, unit: int) -> tuple[Ptr, Ptr, tuple[int, int, int], int]:
        """Checks shared by the BT/FB loads; returns byte (count, src step, dst step) and
        the burst length in bytes (of source)."""
        require_op(self, op)
        s = check_ptr(op, "src", src, "l1")
        d = check_ptr(op, "dst", dst, space)
        check_aligned(op, "src", s)
        check_aligned(op, "dst", d)
        length = field(op, "len_burst", len_burst, 16, 1)
        n, sg, dg = clause(op, "nburst", nburst, (3,))
        n = field(op, "nburst count", n, 12, 1)
        sg = field(op, "nburst src_gap", sg, 16)
        dg = field(op, "nburst dst_gap", dg, 16)
        return s, d, (n, (length + sg) * unit, (length + dg) * unit), length * unit


def _warn_b8_transpose(op: str, name: str, extent: int, block: int, written: Layout,
                       read: Layout, shape: tuple[int, int]) -> None:
    """Warn when a transposed 1-byte load places an operand element where mad does not
    look for it. The 32-row transpose blocks pad ``extent`` to 32 while mad steps by
    align16; that only moves elements when the padded extent is the stride between K
    blocks (NZ L0A, ZN L0B) and more than one K block exists."""
    if block != 32 or align(extent, 32) == align(extent, 16):
        return
    if _fractals_agree(written, read, shape):
        return
    warn(f"{op}: a transposed 1-byte load pads {name} = {extent} to "
         f"{align(extent, 32)} rows per block while mad reads {align(extent, 16)}; "
         f"with more than one 32-element K block the operand fractals will not line up")


@lru_cache(maxsize=256)
def _fractals_agree(written: Layout, read: Layout, shape: tuple[int, int]) -> bool:
    """True when every element of the logical ``shape`` has one offset in both layouts."""
    return bool(np.array_equal(written.offsets(*shape), read.offsets(*shape)))
