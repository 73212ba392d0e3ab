"""Tile ops as Machine methods, lowered onto the micro-ops (docs/research/tile-level.md §3):
a TLOAD writes exactly the bytes its DMA writes, a TMATMUL is a `mad`, a TSTORE from an
accumulator is a FIXPIPE writeback. Errors a micro-op raises are reported under the tile
op's name, with the micro-op named in the message.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any, Literal

import numpy as np

from ..dtypes import DType, dtype as _dtype
from ..errors import (
    NotImplementedOpError,
    PtoError,
    PtoTypeError,
    PtoValueError,
    SpaceError,
    TargetError,
    VerifyError,
)
from ..machine import Ptr
from ..ops.common import Burst, burst_views, run_burst
from ..ops.cube import CubeMoveOps, align
from ..ops.dma import DmaOps, frac_fields
from ..ops.mad import MadOps
from .acc import AccOps
from .acc_fp import scalar_quant
from .conv import ConvTile, conv_tile
from .img2col_config import Img2colConfig
from .mx import load_mx, move_scale, tgemv_mx, tmatmul_mx
from .quant_regs import QUANT_PRE, register_clause
from .shape import treshape
from .tensor import CONV_GM_LAYOUTS, GlobalTensor, make_global_tensor
from .tile import COMPACT_MODES, SPACE_OF, Tile, check_roles, check_tile, matmul_shape, pad_element

# img2col, tmov_vec and conv_load are imported where used: few runs need them (start-up)
_TILE_ALIGN = {"l0a": 512, "l0b": 512, "l0c": 1024}   # whole fractals; 32 B elsewhere
# (BLayout, SLayout) of a Left tile in the target's L0A layout (Target.l0a_layout)
_LEFT_BOX = {"NZ": ("ColMajor", "RowMajor"), "ZZ": ("RowMajor", "RowMajor")}


class _lowered:
    """Report a micro-op's error as the tile op's, keeping its class and the detail.
    (A class, not @contextmanager: this wraps every tile op, and generators cost ~1 us.)"""

    __slots__ = ("op",)

    def __init__(self, op: str) -> None:
        self.op = op

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type | None, err: BaseException | None, tb: object
                 ) -> Literal[False]:
        if isinstance(err, PtoError) and err.op is not None and err.op != self.op:
            err.detail = f"{err.detail} (in its {err.op})"
            err.op = self.op
            err.args = (err._render(),)
        return False


class TileOps(DmaOps, CubeMoveOps, MadOps, AccOps):
    """Tile, GlobalTensor and the tile ops."""

    # --- descriptors ---------------------------------------------------------------------
    def tile(self, tile_type: str, dtype: str | DType, rows: int, cols: int, *,
             blayout: str | None = None, slayout: str | None = None, fractal: int | None = None,
             valid: tuple[int, int] | None = None, pad: str | float | int = "Null",
             addr: int | None = None, subblock: int = 0, compact: str = "Normal",
             dynamic_valid: bool | tuple[bool, bool] = False) -> Tile:
        """A tile placed at byte ``addr`` of its role's buffer (TASSIGN), or automatically.
        Defaults follow the role: Left NZ (a5) / ZZ (a2a3), Right ZN, Acc NZ-1024, ScaleLeft
        ZZ-32, ScaleRight NN-32, else ND. ``compact``: pto-isa's CompactMode (Null, Normal,
        RowPlusOne); only TMOV Vec ND -> NZ reads it. ``valid`` is pto-isa's static
        ValidRow / ValidCol template arguments; ``dynamic_valid`` (one flag, or (rows, cols))
        makes them DYNAMIC (``Tile<..., -1, -1>(vr, vc)``), which some a2a3 paths tell
        apart (docs/semantics.md)."""
        dyn = (dynamic_valid, dynamic_valid) if isinstance(dynamic_valid, bool) else dynamic_valid
        if not (isinstance(dyn, tuple) and len(dyn) == 2 and all(isinstance(d, bool) for d in dyn)):
            raise PtoTypeError(f"dynamic_valid must be a bool or a pair of bools, got "
                               f"{dynamic_valid!r}", op="tile")
        t = self._new_tile(tile_type, dtype, rows, cols, blayout, slayout, fractal, valid,
                           pad, addr, subblock, row_align=True, compact=compact)
        return replace(t, valid_dynamic=dyn) if dyn != (False, False) else t

    def _new_tile(self, tile_type: str, dtype: str | DType, rows: int, cols: int,
                  blayout: str | None, slayout: str | None, fractal: int | None,
                  valid: tuple[int, int] | None, pad: str | float | int, addr: int | None,
                  subblock: int, row_align: bool, op: str = "tile",
                  no_room: str = "; pass addr= to place tiles explicitly",
                  compact: str = "Normal") -> Tile:
        """`tile`; ``row_align=False`` (a `.pto` tile_buf, as PTOAS verifies it) lets an
        ND / DN row or column be any whole number of bytes; ``op`` and ``no_room`` name
        the caller and its advice when automatic placement runs out of room."""
        dt = _dtype(dtype)
        default = {"Left": _LEFT_BOX[self.target.l0a_layout],
                   "Right": ("RowMajor", "ColMajor"), "Acc": ("ColMajor", "RowMajor"),
                   "ScaleLeft": ("RowMajor", "RowMajor"), "ScaleRight": ("ColMajor", "ColMajor")}
        bl, sl = default.get(tile_type, ("RowMajor", "NoneBox"))
        blayout, slayout = blayout or bl, slayout or sl
        fractal = fractal or {"Acc": 1024, "ScaleLeft": 32, "ScaleRight": 32}.get(tile_type, 512)
        valid = valid or (rows, cols)
        if compact not in COMPACT_MODES:
            raise VerifyError(f"compact must be one of {', '.join(COMPACT_MODES)}, got "
                              f"{compact!r}", op="tile")
        check_tile("tile", tile_type, dt, rows, cols, blayout, slayout, fractal, valid, pad,
                   self.target, row_align)
        space = SPACE_OF[tile_type]
        nbytes = rows * cols * dt.size
        if addr is None:
            addr = self._place(space, subblock, nbytes, op, no_room)
        else:                      # automatic placement continues after explicit tiles
            nxt = self.__dict__.setdefault("_tile_next", {})
            nxt[(space, subblock)] = max(nxt.get((space, subblock), 0), addr + nbytes)
        sub = subblock if space == "ub" else 0
        if addr % 32 or addr + nbytes > self.target.capacity[space]:
            raise VerifyError(f"a {nbytes} B {tile_type} tile at byte {addr} must be 32-byte "
                              f"aligned and fit the {self.target.capacity[space]} B "
                              f"{space}", op="tile")
        ptr = self.ptr(space, dt, addr, subblock=sub)
        return Tile(tile_type, dt, rows, cols, blayout, slayout, fractal,
                    tuple(valid), pad, ptr, compact)  # type: ignore[arg-type]  # a pair: check_tile unpacks it

    def conv_tile(self, dtype: str | DType, layout: str, shape: tuple[int, ...], *,
                  nbytes: int | None = None, addr: int | None = None,
                  subblock: int = 0, tile_type: str = "Vec",
                  img2col: Img2colConfig | None = None) -> ConvTile:
        """A conv tile (pto-isa's ``ConvTile``): ``layout`` one of NCHW, NC1HWC0, GNCHW,
        GNC1HWC0, NCDHW, FRACTAL_Z, FRACTAL_Z_3D, ``shape`` in that order, ``nbytes`` the
        buffer (default: the shape's elements), placed at byte ``addr`` of UB (``tile_type``
        Vec: TTRANS converts between the layouts) or L1 (Mat: TIMG2COL's feature map, with
        its ``img2col`` configuration), or automatically (docs/semantics.md)."""
        return conv_tile(self, dtype, layout, shape, nbytes=nbytes, addr=addr,
                         subblock=subblock, tile_type=tile_type, img2col=img2col)

    # --- im2col (cube) -------------------------------------------------------------------
    def SETFMATRIX(self, src: ConvTile, *, fmatrix_mode: str = "A_MANUAL") -> None:
        """Program the FMATRIX register (``fmatrix``, or ``fmatrix_b`` in a B mode) from a
        Mat conv tile's im2col configuration: feature map H x W and the pad list. The AUTO
        modes write nothing (TIMG2COL programs the registers itself)."""
        from . import img2col
        img2col.setfmatrix(self, src, fmatrix_mode)

    def SET_IMG2COL_RPT(self, src: ConvTile, *, fmatrix_mode: str = "A_MANUAL") -> None:
        """Program the load-3D repeat register (``l3d_rpt``; a5's B modes ``l3d_rpt_b``):
        repeat stride / time / mode, and on a5 the dst stride and M position."""
        from . import img2col
        img2col.set_img2col_rpt(self, src, fmatrix_mode)

    def SET_IMG2COL_PADDING(self, src: ConvTile, *, fmatrix_mode: str = "A_MANUAL") -> None:
        """Program the padding register (``padding``; a5's B modes ``padding_b``) with the
        bits of the configuration's pad value in the tile's element type."""
        from . import img2col
        img2col.set_img2col_padding(self, src, fmatrix_mode)

    def TIMG2COL(self, dst: Tile, src: ConvTile, pos_m: int = 0, pos_k: int = 0, *,
                 fmatrix_mode: str = "A_MANUAL") -> None:
        """dst = rows [pos_m, pos_m + valid rows) x columns [pos_k, pos_k + align(valid
        cols, C0)) of the im2col matrix of the NC1HWC0 feature map ``src``: row m is output
        position (m // outW, m % outW), column k is channel block k // (Kh Kw C0), kernel
        offset (k // C0) % (Kh Kw) and channel k % C0; the window outside the feature map
        reads the padding register. Written into the Left tile's L0A fractals as the
        hardware writes them (docs/semantics.md "TIMG2COL")."""
        with _lowered("TIMG2COL"):
            from . import img2col
            img2col.timg2col(self, dst, src, pos_m, pos_k, fmatrix_mode)

    def _place(self, space: str, sub: int, nbytes: int, op: str, no_room: str) -> int:
        """A bump allocator per buffer; tiles placed automatically never overlap."""
        nxt = self.__dict__.setdefault("_tile_next", {})
        unit = _TILE_ALIGN.get(space, 32)
        addr = -(-nxt.get((space, sub), 0) // unit) * unit
        if addr + nbytes > self.target.capacity[space]:
            raise VerifyError(f"no room for a {nbytes} B tile in {space} "
                              f"({self.target.capacity[space]} B, {addr} B in use){no_room}",
                              op=op)
        nxt[(space, sub)] = addr + nbytes
        return addr

    def global_tensor(self, ptr: Ptr, shape: tuple, stride: tuple,
                      layout: str = "ND") -> GlobalTensor:
        """A 5-D view of GM: ``shape`` (s0..s4), ``stride`` in elements, layout ND/DN/NZ, an MX
        scale layout or a conv layout (NC1HWC0, FRACTAL_Z, NHWC, NCHW, NCDHW ...)."""
        return make_global_tensor(ptr, shape, stride, layout)

    def read_tile(self, t: Tile) -> np.ndarray:
        """The tile's valid region in logical (row, col) order, as a numpy array."""
        buf, off = self._region(t.ptr, t.nbytes, access="R", op="read_tile", operand="tile")
        vr, vc = t.valid
        return t.layout.view(buf, off, t.dtype).reshape(t.rows, t.cols)[:vr, :vc].copy()

    # --- TLOAD ---------------------------------------------------------------------------
    def _replayed(self, key: tuple, pins: tuple, run: Callable[[], None]) -> None:
        """Run a data-movement tile op, or replay its burst copies. Unobserved (no access
        hook), the first successful run on these operand objects (tiles and views are
        immutable) records the bursts its DMAs copied; if they were all it wrote, a repeat
        replays them: each still checks its regions, the op's own checks passed already."""
        if self.access_hook is not None or self._recording is not None:
            run()
            return
        try:
            plan = self._tile_plans.get(key)
        except TypeError:                       # an unhashable keyword value: no replay
            run()
            return
        if plan is not None:
            fixed = plan[2] if len(plan) > 2 else None
            if fixed is not None:               # regions resolved once: copy straight
                for copy in fixed:
                    copy()
                return
            for burst in plan[0]:
                run_burst(self, *burst)
            # every region checked again and fine: bind the copies to their buffers when
            # none of them can move (on-chip buffers, GM allocations that cannot grow)
            fixed = [self._fixed_copy(*burst) for burst in plan[0]]
            if all(c is not None for c in fixed):
                self._tile_plans[key] = (*plan[:2], fixed)
            return
        self._recording, self._recorded_writes = [], 0
        try:
            run()
            bursts, writes = self._recording, self._recorded_writes
        finally:
            self._recording = None
        if bursts and writes == len(bursts):
            if len(self._tile_plans) >= 4096:
                self._tile_plans.clear()
            self._tile_plans[key] = (tuple(bursts), pins)   # pins keep the ids theirs

    def _fixed_copy(self, op: str, names: tuple[str, str], src: Ptr, dst: Ptr, plan: Burst
                    ) -> Callable[[], None] | None:
        """A replayed burst as a copy between fixed array views (what `run_burst` does
        after its region checks, which passed and cannot change while the buffers stay
        put), or None when a side lives in GM that may grow or be re-backed."""
        ends = []
        for ptr, extent, name in ((src, plan.src_extent, names[0]),
                                  (dst, plan.dst_extent, names[1])):
            alloc = self._gm_alloc(ptr) if ptr.space == "gm" else None
            if ptr.space == "gm" and (alloc is None or alloc.backing is not None):
                return None
            buf, off = self._region(ptr, extent, access="R", op=op, operand=name)
            ends.append((buf, off, alloc))
        if not (plan.flat or plan.disjoint):
            return None                         # ordered copies keep `run_burst`
        (sb, so, _), (db, do, alloc) = ends
        s_view, d_view = burst_views(plan, sb, so, db, do)

        def copy() -> None:
            if alloc is not None:
                alloc.stored = True
            d_view[...] = s_view
        return copy

    def TLOAD(self, t: Tile | ConvTile, g: GlobalTensor, *, cpu_sim_compat: bool = False,
              extent: str = "valid") -> None:
        """GM view -> the tile's valid region, writing what the DMA writes (plus the pad
        value up to the next 32 B block where the hardware pads). ``cpu_sim_compat`` then
        sets every element outside the valid region to the pad value (Null: 0), as the C++
        CPU simulator does. Every rule is checked before a byte is written.

        On a5 an ND / DN / NZ view may be larger than the valid region (up to the tile's
        shape): the view's rows (ND) / columns (DN) / column blocks (NZ) are all copied.
        ``extent`` picks an ND row's length: "valid" (pto-isa's C++: the valid columns) or
        "view" (PTOAS's TileLang template, what a ``.pto`` tload runs: the view's).

        A Mat conv tile (``m.conv_tile(..., tile_type="Mat")``) loads from a conv-layout view
        (NC1HWC0, FRACTAL_Z, NHWC, NCHW, NCDHW ...) as pto-isa's code does
        (`ptosim.tile.conv_load`)."""
        if isinstance(t, ConvTile):
            if not isinstance(g, GlobalTensor):
                raise PtoTypeError(f"src must be a GlobalTensor, got {type(g).__name__}",
                                   op="TLOAD", operand="src")
            with _lowered("TLOAD"):
                from .conv_load import tload_conv
                tload_conv(self, t, g)
            return
        self._replayed(("TLOAD", id(t), id(g), cpu_sim_compat, extent), (t, g),
                       lambda: self._tload(t, g, cpu_sim_compat, extent))

    def _tload(self, t: Tile, g: GlobalTensor, cpu_sim_compat: bool, extent: str) -> None:
        op = "TLOAD"
        if extent not in ("valid", "view"):
            raise PtoValueError(f"extent must be 'valid' or 'view', got {extent!r}", op=op,
                                operand="extent")
        _check_pair(op, t, g, exact=False)
        self._check_tload_tile(op, t)
        self._check_tload_extent(op, t, g)
        if g.layout.startswith("MX_") or t.fractal == 32:
            with _lowered(op):
                load_mx(self, t, g)
            return
        src, dst, tl = g.layout, t.name, self.target.name
        pairs = self.target.tload_pairs
        if t.tile_type not in pairs:
            raise VerifyError(f"loads into Vec or Mat tiles only, got {t.tile_type}", op=op)
        if (src, dst) not in pairs[t.tile_type]:
            raise VerifyError(f"{src} -> {dst} is not a {t.tile_type} load on {tl}; legal: "
                              f"{', '.join(f'{a}->{b}' for a, b in sorted(pairs[t.tile_type]))}",
                              op=op)
        if t.fractal != 512:
            # GM NZ and the nd2nz / dn2nz outputs are 16 x C0 (512 B) fractals; a 1024 B
            # fractal tile is an accumulator's image, reached by TMOV / TEXTRACT from Acc
            raise VerifyError(f"a TLOAD writes 512 B (16 x C0) fractals; a {dst} tile with "
                              f"{t.fractal} B fractals is filled from an Acc tile (TMOV / "
                              f"TEXTRACT), not from GM", op=op, operand="tile")
        if t.dtype.size == 8 and (src, dst) not in {("ND", "ND"), ("DN", "DN")}:
            raise VerifyError("64-bit elements load ND -> ND or DN -> DN only", op=op)
        s0, s1, s2, s3, s4 = g.shape
        if src != dst and (s0, s1, s2) != (1, 1, 1):
            raise VerifyError(f"{src} -> {dst} needs a 2-D view (s0 = s1 = s2 = 1), got shape "
                              f"{g.shape}", op=op)
        _check_view_strides(op, g, t.dtype.c0)
        if s0 > 1:             # one DMA per s0 slice: a late one must not fail half way
            self._check_extents(op, t, g)
        with _lowered(op):
            if (src, dst) == ("NZ", "NZ"):
                self._load_nz(t, g)
            elif src == dst:
                self._load_nd_dn(t, g, extent)
            else:
                self._load_frac(t, g)
        if cpu_sim_compat:
            self._fill_outside_valid(op, t)

    def _check_tload_extent(self, op: str, t: Tile, g: GlobalTensor) -> None:
        """The view's 2-D extent: the valid region exactly, or (a5, same-layout loads) at
        least the valid region and at most the tile's shape, PTOAS's tload precondition."""
        vr, vc = t.valid
        same = g.layout == t.name and g.layout in ("ND", "DN", "NZ")
        if (g.rows, g.cols) == (vr, vc):
            return
        if not (same and self.target.tload_view_over_valid):
            why = "" if same else f" ({g.layout} -> {t.name} loads need them equal)"
            raise VerifyError(f"the {g.layout} view is {g.rows}x{g.cols} but the tile's valid "
                              f"region is {vr}x{vc}{why}", op=op, operand="global_tensor")
        if not (vr <= g.rows <= t.rows and vc <= g.cols <= t.cols):
            raise VerifyError(f"the {g.layout} view is {g.rows}x{g.cols}: it must cover the "
                              f"tile's valid region {vr}x{vc} and fit its shape "
                              f"{t.rows}x{t.cols}", op=op, operand="global_tensor")

    def _check_tload_tile(self, op: str, t: Tile) -> None:
        """The target profile's TLOAD limits on the destination tile."""
        limit = self.target.tload_max_rows
        if limit is not None and t.rows > limit:
            raise VerifyError(f"a TLOAD destination has at most {limit} rows on "
                              f"{self.target.name}, got {t.rows}", op=op, operand="tile")
        allowed = self.target.tload_b64_pads
        if t.dtype.size == 8 and t.pad not in allowed and \
                not (t.pad == 0 and "Zero" in allowed and not isinstance(t.pad, str)):
            raise VerifyError(f"a 64-bit tile loads with pad {' or '.join(sorted(allowed))} "
                              f"on {self.target.name}, got {t.pad!r}", op=op, operand="tile")

    def _check_extents(self, op: str, t: Tile, g: GlobalTensor) -> None:
        """Bounds of the whole view and the whole tile, checked before the first of
        several DMAs writes (a single DMA checks its own bounds before moving a byte)."""
        last = sum((n - 1) * st for n, st in zip(g.shape, g.stride))
        for ptr, nbytes, name, access in (
                (g.ptr, (last + 1) * t.dtype.size, "global_tensor", "R"),
                (t.ptr, t.nbytes, "tile", "W")):
            try:        # no op name: a bounds check only, not an access the observer sees
                self._region(ptr, nbytes, access=access, operand=name)
            except PtoError as err:
                err.op = op
                err.args = (err._render(),)
                raise

    def _fill_outside_valid(self, op: str, t: Tile) -> None:
        """cpu_sim_compat: the C++ CPU simulator fills the tile with the pad value before
        copying the valid region, so every element outside it ends as the pad value."""
        fill = pad_element(t.pad, t.dtype)
        value = np.zeros(1, t.dtype.np)[0] if fill is None else fill[0]
        vr, vc = t.valid
        outside = np.ones((t.rows, t.cols), bool)
        outside[:vr, :vc] = False
        buf, off = self._region(t.ptr, t.nbytes, access="W", op=op, operand="tile")
        buf[off:off + t.nbytes].view(t.dtype.np)[t.layout.offsets()[outside]] = value

    def _load_nd_dn(self, t: Tile, g: GlobalTensor, extent: str = "valid") -> None:
        """ND -> ND and DN -> DN: one burst per row (ND) or column (DN) with the view's
        strides; Vec pads the tail of the last 32 B block when a pad value is set, Mat on
        a5 always does (Null pads with 0). The view gives the burst count and loops, the
        valid rows a DN column's length, ``extent`` an ND row's (valid or view columns)."""
        es, (vr, vc) = t.dtype.size, t.valid
        s0, s1, s2, s3, s4 = g.shape
        t0, t1, t2, t3, t4 = g.stride
        nd = g.layout == "ND"
        if nd and extent == "view":
            vc = s4
        # per burst: len elements; bursts: count, src stride, dst pitch (tile row / column)
        length, count, src_step, pitch = (vc, s3, t3, t.cols) if nd else (vr, s4, t4, t.rows)
        fill = pad_element(t.pad, t.dtype)
        if t.tile_type == "Mat" and self.target.tload_mat_null_pad_zero and fill is None:
            fill = np.zeros(1, t.dtype.np)
        if t.tile_type == "Mat" and self.target.tload_mat_one_row_nd2nz and nd and vr == 1 \
                and s0 == 1:
            # one row: a2a3 moves it with nd2nz into contiguous C0 blocks (zero-filled tail)
            self.mte_gm_l1_frac(g.ptr, t.ptr, "nd2nz", shape=(1, vc), src_layout=(t3 * es,),
                                dst_group=(1, 1, 1, 1))
            return
        if t.tile_type == "Mat" and self.target.tload_mat_whole_blocks and (length * es) % 32:
            raise VerifyError(f"an {self.target.name} Mat {g.layout} load moves whole 32 B blocks: "
                              f"{length} x {es} B is not a multiple of 32", op="TLOAD")
        loops = [(s2, t2 * es, count * pitch * es), (s1, t1 * es, s2 * count * pitch * es)]
        for i0 in range(s0):
            src = g.ptr + i0 * t0
            dst = t.ptr + i0 * s1 * s2 * count * pitch
            if t.tile_type == "Vec":
                if fill is not None and es == 8:      # 64-bit types pad with 0: as 2 x 32 bit
                    src, dst, fill = src.cast("ui32"), dst.cast("ui32"), np.zeros(1, np.uint32)
                for at, nbytes in _pieces(length * es):
                    self.mte_gm_ub(_at(src, at), _at(dst, at), 0, nbytes,
                                   nburst=(count, src_step * es, pitch * es), loop=loops,
                                   pad=None if fill is None else (fill[0],))
            else:
                self.mte_gm_l1(src, dst, length * es, nburst=(count, src_step * es, pitch * es),
                               loop=loops)
                if fill is not None:     # lanes [len, next 32 B) of every burst
                    tail = align(length * es, 32) // es - length
                    if tail:
                        buf, off = self._region(dst + length, (s1 * s2 * count - 1) * pitch * es
                                                + tail * es, access="W", op="TLOAD",
                                                operand="tile")
                        rows = s1 * s2 * count
                        np.ndarray((rows, tail), t.dtype.np, buf, off,
                                   (pitch * es, es))[...] = fill[0]

    def _load_nz(self, t: Tile, g: GlobalTensor) -> None:
        """NZ -> NZ: each column block of the view is ``vr`` rows x 32 B, contiguous."""
        es, c0, vr = t.dtype.size, t.dtype.c0, t.valid[0]
        s0, s1, s2, s3, s4 = g.shape
        t0, t1, t2, t3, t4 = g.stride
        for i0 in range(s0):
            src = g.ptr + i0 * t0
            dst = t.ptr + i0 * s1 * t.rows * c0
            if t.tile_type == "Vec":
                self.mte_gm_ub(src, dst, 0, vr * 32, nburst=(s1, t1 * es, t.rows * 32))
            else:
                self.mte_gm_l1(src, dst, vr * 32, nburst=(s1, t1 * es, t.rows * 32))

    def _load_frac(self, t: Tile, g: GlobalTensor) -> None:
        """ND -> NZ, DN -> NZ (a5) and DN -> ZN through mte_gm_l1_frac."""
        if t.fractal != 512:
            raise VerifyError("ND/DN -> NZ/ZN loads need 512 B fractals", op="TLOAD")
        if g.ptr.dtype.np != t.dtype.np or t.dtype.size not in (1, 2, 4):
            raise VerifyError(f"an nd2nz / dn2nz load needs one 8/16/32-bit element type, got "
                              f"view {g.ptr.dtype.name}, tile {t.dtype.name}", op="TLOAD")
        es, (vr, vc) = t.dtype.size, t.valid
        _, _, _, s3, s4 = g.shape
        _, _, _, t3, t4 = g.stride
        if (g.layout, t.name) == ("ND", "NZ"):
            mode, shape, inner, l3 = "nd2nz", (s3, vc), t3 * es, t.rows
        elif t.name == "NZ":
            mode, shape, inner, l3 = "dn2nz", (s3, vc), t4 * es, t.rows
        else:                                                         # DN -> ZN
            mode, shape, inner, l3 = "nd2nz", (s4, vr), t4 * es, t.cols
        # The tile's pointer is an aligned L1 address and the view's a GM one, so only the
        # fields remain to check: the same memoised check mte_gm_l1_frac uses.
        fields = frac_fields(mode, shape, (inner,), (1, 1, l3, 0), (0, False))
        self._frac_move("mte_gm_l1_frac", g.ptr, t.ptr, mode, fields)

    # --- TSTORE --------------------------------------------------------------------------
    def TSTORE(self, g: GlobalTensor, t: Tile, *, pre_quant: tuple | None = None,
               pre_relu: tuple | None = None,
               atomic: str | tuple[str, str] | None = None,
               pre_quant_scalar: int | None = None, quant_reg: str | None = None) -> None:
        """The tile's valid region -> the GM view. Vec tiles store through MTE3 in the same
        layout (Mat too on a2a3); Acc tiles through FIXPIPE into an ND or NZ view, or a
        conv view (a2a3 NC1HWC0, a5 NHWC / NCHW / NCDHW: `ptosim.tile.conv_store`),
        casting f32 to an f16 / bf16 view by default. ``atomic``: "add" (in the view's type) or a
        (type, "add"|"max"|"min") pair as `mte_l0c_gm` takes it. ``pre_quant_scalar``:
        pto-isa's ``TSTORE(dst, src, preQuantScalar)`` (the QUANT_PRE word; see
        `acc_fp.scalar_quant`). ``quant_reg``: "scalar" / "vector", the quantisation
        from the register SET_QUANT_SCALAR / SET_QUANT_VECTOR wrote (`quant_regs`)."""
        if pre_quant_scalar is not None or quant_reg is not None:
            pre_quant = self._scalar_clause("TSTORE", t, g, pre_quant, pre_quant_scalar,
                                            quant_reg)
        self._replayed(("TSTORE", id(g), id(t), pre_quant, pre_relu, atomic), (g, t),
                       lambda: self._tstore(g, t, pre_quant, pre_relu, atomic))
        if pre_quant_scalar is not None:        # set_quant_pre(word) before the FIXPIPE
            self.regs[QUANT_PRE] = (int(pre_quant_scalar) % (1 << 64),)

    def _tstore(self, g: GlobalTensor, t: Tile, pre_quant: tuple | None,
                pre_relu: tuple | None, atomic: str | tuple[str, str] | None) -> None:
        op = "TSTORE"
        if isinstance(t, ConvTile):
            raise VerifyError("pto-isa's code has no TSTORE from a conv tile", op=op,
                              operand="tile")
        if isinstance(g, GlobalTensor) and g.layout in CONV_GM_LAYOUTS:
            if isinstance(t, Tile) and t.tile_type == "Acc":
                with _lowered(op):
                    from .conv_store import tstore_acc_conv
                    tstore_acc_conv(self, g, t, pre_quant, pre_relu, atomic)
                return
            raise VerifyError(f"a {g.layout} view is stored from an Acc tile only", op=op,
                              operand="view")
        _check_pair(op, t, g, same_size=t.tile_type != "Acc")
        if g.layout in ("ND", "DN") or t.tile_type != "Acc":   # Acc NZ: FIXPIPE's own rules
            _check_view_strides(op, g, t.dtype.c0)
        if t.tile_type != "Acc" and t.fractal == 1024:
            raise VerifyError(f"a TSTORE moves 512 B (16 x C0) fractals; a {t.name} tile with "
                              f"1024 B fractals has no GM layout (move it with TMOV first)",
                              op=op, operand="tile")
        with _lowered(op):
            if t.tile_type == "Acc":
                self._store_acc(g, t, pre_quant, pre_relu, atomic)
                return
            if pre_quant or pre_relu or atomic:
                raise VerifyError("pre_quant, pre_relu and atomic apply to Acc tiles only",
                                  op=op)
            if t.tile_type == "Mat" and self.target.tstore_mat:
                self._store_mat(g, t)
                return
            if t.tile_type == "Mat":
                raise TargetError(f"a Mat tile cannot be stored on {self.target.name} (there "
                                  f"is no L1 -> GM path); move it to a Vec tile first", op=op)
            if t.tile_type != "Vec":
                raise VerifyError(f"TSTORE stores Vec, Mat (a2a3) or Acc tiles, got "
                                  f"{t.tile_type}", op=op)
            if g.layout != t.name:
                if not ({g.layout, t.name} <= {"ND", "DN"} and 1 in (t.rows, t.cols)):
                    raise VerifyError(f"a Vec tile stores in its own layout: {t.name} tile, "
                                      f"{g.layout} view (or one row / one column ND / DN)",
                                      op=op)
                # a5 / a2a3 allow a one-row / one-column tile with either view (their
                # static_assert's special case) and run the tile's layout path on the
                # view's shape and strides: so does ptosim, with that layout's rules
                seen = g.layout
                g = GlobalTensor(g.ptr, g.shape, g.stride, t.name)
                _check_pair(op, t, g)
                try:
                    _check_view_strides(op, g, t.dtype.c0)
                except VerifyError as err:
                    raise VerifyError(f"{err.detail} (the {seen} view of a one-"
                                      f"{'column' if t.cols == 1 else 'row'} {t.name} tile "
                                      f"is stored through the {t.name} path)", op=op) from None
            es, (vr, vc) = t.dtype.size, t.valid
            s0, s1, s2, s3, s4 = g.shape
            t0, t1, t2, t3, t4 = g.stride
            if g.layout == "NZ":
                for i0 in range(s0):
                    self.mte_ub_gm(t.ptr + i0 * s1 * t.rows * t.dtype.c0, g.ptr + i0 * t0,
                                   vr * 32, nburst=(s1, t.rows * 32, t1 * es))
                return
            nd = g.layout == "ND"
            length, count, dst_step, pitch = (vc, s3, t3, t.cols) if nd else (vr, s4, t4, t.rows)
            loops = [(s2, count * pitch * es, t2 * es), (s1, s2 * count * pitch * es, t1 * es)]
            if (pitch * es) % 32 and pitch == length == dst_step:
                # a .pto tile whose rows are not whole 32 B blocks (PTOAS allows them), dense
                # on both sides: its rows are one contiguous run, stored as one burst
                length, count = length * count, 1
            for i0 in range(s0):
                for at, nbytes in _pieces(length * es):
                    self.mte_ub_gm(_at(t.ptr + i0 * s1 * s2 * count * pitch, at),
                                   _at(g.ptr + i0 * t0, at), nbytes,
                                   nburst=(count, pitch * es, dst_step * es), loop=loops)

    def _store_mat(self, g: GlobalTensor, t: Tile) -> None:
        """Mat -> GM (a2a3): the valid region in the view's layout; ptosim has no L1 -> GM
        micro-op, so the elements move through the layout maps."""
        if g.layout != t.name and not (g.layout == "ND" and t.name == "ND"):
            raise VerifyError(f"a Mat tile stores in its own layout: {t.name} tile, "
                              f"{g.layout} view", op="TSTORE")
        vr, vc = t.valid
        idx = g.view.offsets(vr, vc)
        buf, off = self._region(g.ptr, (int(idx.max()) + 1) * t.dtype.size, access="W",
                                op="TSTORE", operand="global_tensor")
        buf[off:off + (int(idx.max()) + 1) * t.dtype.size].view(t.dtype.np)[idx] = \
            self._matrix(t, "R")[:vr, :vc]

    # --- TMOV ----------------------------------------------------------------------------
    def TMOV(self, dst: Tile, src: Tile, tmp: Tile | None = None, *, grp_axis: int = 1,
             mode: str | None = None, pre_quant: tuple | None = None,
             pre_relu: tuple | None = None, pre_quant_scalar: int | None = None,
             quant_reg: str | None = None, cpu_sim_compat: bool = False) -> None:
        """Mat -> Left / Right / Bias (whole tiles), Vec -> Vec (ND copies; a5: ND -> NZ /
        ZN relayouts), Vec -> Mat (a5), Acc -> Mat and Acc -> Vec (a5) through FIXPIPE
        (``mode``: an AccToVecMode name, default the destination tile's own sub-block;
        ``pre_quant`` / ``pre_relu`` as FIXPIPE's; ``pre_quant_scalar``: pto-isa's
        ``TMOV(dst, src, preQuantScalar)``; ``quant_reg`` as TSTORE's). With ``tmp`` (a5):
        the MX exponent repack of a Vec ND tile into a Vec ZZ tile, ND-grouped (``grp_axis=1``) or
        DN-grouped (``grp_axis=0``) exponents; ``tmp`` is ND -> ZZ's index scratch.
        ``cpu_sim_compat=True`` runs pto-isa's CPU simulator instead, for Vec -> Vec only:
        the valid region element by element through both layouts, any pair."""
        if cpu_sim_compat:
            if tmp is not None or (src.tile_type, dst.tile_type) != ("Vec", "Vec"):
                raise PtoValueError("cpu_sim_compat applies to the 2-operand Vec -> Vec TMOV",
                                    op="TMOV")
            from . import tmov_vec
            tmov_vec.cpu_sim_copy(self, dst, src)
            return
        if tmp is not None:
            if (mode, pre_quant, pre_relu, pre_quant_scalar, quant_reg) != (None,) * 5:
                raise PtoValueError("the 3-operand (tmp) TMOV takes no mode, pre_quant(_scalar) or "
                                    "pre_relu", op="TMOV")
            with _lowered("TMOV"):
                from . import tmov_vec
                tmov_vec.to_zz(self, dst, src, tmp, grp_axis)
            return
        if grp_axis != 1:
            raise PtoValueError("grp_axis selects the 3-operand ZZ form: pass a tmp tile",
                                op="TMOV")
        if pre_quant_scalar is not None or quant_reg is not None:
            pre_quant = self._scalar_clause("TMOV", src, dst, pre_quant, pre_quant_scalar,
                                            quant_reg)
        self._replayed(("TMOV", id(dst), id(src), mode, pre_quant, pre_relu), (dst, src),
                       lambda: self._tmov(dst, src, mode, pre_quant, pre_relu))
        if pre_quant_scalar is not None:
            self.regs[QUANT_PRE] = (int(pre_quant_scalar) % (1 << 64),)

    def _scalar_clause(self, op: str, acc: Tile, dst: object, pre_quant: tuple | None,
                       word: int | None, reg: str | None = None) -> tuple:
        """FIXPIPE's pre_quant clause of a preQuantScalar overload, or of ``quant_reg``
        (checked first, so a refusal writes nothing)."""
        if pre_quant is not None:
            other = "pre_quant_scalar" if word is not None else "quant_reg"
            raise PtoTypeError(f"takes pre_quant or {other}, not both", op=op, operand=other)
        if word is not None and reg is not None:
            raise PtoTypeError("takes pre_quant_scalar or quant_reg, not both", op=op,
                               operand="quant_reg")
        want = GlobalTensor if op == "TSTORE" else Tile
        if not isinstance(dst, want):
            raise PtoTypeError(f"dst must be a {want.__name__}, got {type(dst).__name__}",
                               op=op, operand="dst")
        to_gm = isinstance(dst, GlobalTensor)
        dst_type = dst.ptr.dtype.name if isinstance(dst, GlobalTensor) else dst.dtype.name
        if reg is not None:
            if not isinstance(acc, Tile) or acc.tile_type != "Acc":
                raise SpaceError("quant_reg applies to an Acc source", op=op, operand="src")
            return register_clause(self, op, acc, dst_type, to_gm, reg)
        return scalar_quant(self, op, acc, dst_type, to_gm, word)

    def _tmov(self, dst: Tile, src: Tile, mode: str | None, pre_quant: tuple | None,
              pre_relu: tuple | None) -> None:
        op = "TMOV"
        pair = (src.tile_type, dst.tile_type)
        with _lowered(op):
            if pair in (("Mat", "Left"), ("Mat", "Right")):
                if (src.rows, src.cols) != (dst.rows, dst.cols):
                    raise VerifyError(f"Mat -> {dst.tile_type} needs equal shapes, got "
                                      f"{src.rows}x{src.cols} -> {dst.rows}x{dst.cols}", op=op)
                if src.name not in ("NZ", "ZN"):
                    raise VerifyError(f"the Mat source must be NZ or ZN, got {src.name}", op=op)
                if dst.tile_type == "Left":
                    self.mte_l1_l0a(src.ptr, dst.ptr, src.rows, src.cols,
                                    transpose=src.name == "ZN")
                else:
                    self.mte_l1_l0b(src.ptr, dst.ptr, src.rows, src.cols,
                                    transpose=src.name == "NZ")
                from . import img2col
                img2col.extract_sets_fmatrix(self, dst, src)
            elif src.tile_type == "Mat" and dst.tile_type in ("ScaleLeft", "ScaleRight"):
                move_scale(self, op, dst, src, 0, 0)
            elif pair == ("Mat", "Bias"):
                unit = self.target.bt_unit
                self.mte_l1_bt(src.ptr, dst.ptr, -(-src.cols * src.dtype.size // unit),
                               nburst=(1, 0, 0))
            elif pair == ("Vec", "Vec") and src.name == dst.name:
                self._tmov_vec(dst, src)
            elif pair == ("Vec", "Vec"):
                from . import tmov_vec
                tmov_vec.relayout(self, dst, src)
            elif pair == ("Vec", "Mat"):
                self._tmov_vec_mat(dst, src)
            elif src.tile_type == "Acc" and dst.tile_type in ("Mat", "Vec"):
                self._acc_move(op, dst, src, (0, 0), "move", mode, pre_quant, pre_relu)
            else:
                raise NotImplementedOpError(f"TMOV {pair[0]} -> {pair[1]} is not implemented "
                                            f"yet", op=op)

    def _tmov_text(self, dst: Tile, src: Tile, **kw: Any) -> None:
        """``pto.tmov`` as PTOAS compiles it: on a5 a Vec DN -> DN pair becomes TMOV of
        the ND tiles of the transposed shapes and valid regions over the same bytes (its
        PTOA5NormalizeTMov pass inserts the two treshapes); every other pair is TMOV."""
        if self.target.tmov_dn_as_nd and all(
                isinstance(t, Tile) and t.tile_type == "Vec" and t.name == "DN"
                for t in (dst, src)):
            dst, src = (treshape(self, t, rows=t.cols, cols=t.rows, blayout="RowMajor",
                                 valid=(t.valid[1], t.valid[0])) for t in (dst, src))
        self.TMOV(dst, src, **kw)

    def _tmov_vec(self, dst: Tile, src: Tile) -> None:
        """Vec -> Vec (ND) over the valid region both tiles share. a5 stores exactly those
        elements (vector loads and predicated stores); a2a3 copies 32 B blocks with
        copy_ubuf_to_ubuf: one burst of whole rows when the tiles are equally wide (or dst
        is one row) and dst's valid columns are its columns, else each row's blocks."""
        if src.name != "ND" or dst.name != "ND" or src.dtype.np != dst.dtype.np:
            raise NotImplementedOpError("TMOV Vec -> Vec is implemented for ND tiles of one "
                                        "element type", op="TMOV")
        if dst.ptr.sub != src.ptr.sub:
            raise VerifyError("Vec -> Vec stays in one vector core's UB", op="TMOV")
        vr, vc = min(src.valid[0], dst.valid[0]), min(src.valid[1], dst.valid[1])
        if vr == 0 or vc == 0:
            return
        if self.target.tmov_vec_exact:      # ND layouts: both matrices are views
            self._matrix(dst, "W")[:vr, :vc] = self._matrix(src, "R")[:vr, :vc]
            return
        es = src.dtype.size
        if (src.cols == dst.cols or dst.rows == 1) and dst.cols in (dst.valid[1], vc):
            self.mte_ub_ub(src.ptr, dst.ptr, -(-dst.cols * vr * es // 32), nburst=(1, 0, 0))
            return
        units = -(-vc * es // 32)
        self.mte_ub_ub(src.ptr, dst.ptr, units,
                       nburst=(vr, -(-src.cols * es // 32) - units,
                               -(-dst.cols * es // 32) - units))

    def _tmov_vec_mat(self, dst: Tile, src: Tile) -> None:
        """Vec -> Mat (a5) through mte_ub_l1: an ND tile as one contiguous burst, an NZ tile
        as one burst group per column block (align16(valid rows) rows each)."""
        op = "TMOV"
        if src.dtype.np != dst.dtype.np or src.name != dst.name or src.name not in ("ND", "NZ"):
            raise VerifyError(f"Vec -> Mat moves ND -> ND or NZ -> NZ of one element type, got "
                              f"{src.name} {src.dtype.name} -> {dst.name} {dst.dtype.name}", op=op)
        if src.name == "ND":
            if (src.rows, src.cols) != (dst.rows, dst.cols):
                raise VerifyError("an ND Vec -> Mat move needs equal shapes", op=op)
            self.mte_ub_l1(src.ptr, dst.ptr, src.nbytes // 32, nburst=(1, 0, 0))
            return
        vr, vc = src.valid
        rows = align(vr, 16)
        if rows > dst.rows or src.cols > dst.cols:
            raise VerifyError(f"{rows} rows x {src.cols} columns do not fit the {dst.rows}x"
                              f"{dst.cols} Mat tile", op=op)
        blocks = -(-vc // src.dtype.c0)
        self.mte_ub_l1(src.ptr, dst.ptr, rows, nburst=(blocks, src.rows - rows, dst.rows - rows))

    # --- TEXTRACT / TINSERT / TFILLPAD ------------------------------------------------------
    def _matrix(self, t: Tile, access: str) -> np.ndarray:
        """A writable (rows, cols) view of the whole tile when its layout allows one, else
        a copy (callers write back with `_store_matrix`). ``access``: "R" when the caller
        reads the tile, "W" when it writes through the view (the hazard checker's role)."""
        buf, off = self._region(t.ptr, t.nbytes, access=access, op="tile", operand="tile")
        return t.layout.view(buf, off, t.dtype).reshape(t.rows, t.cols)

    def _store_matrix(self, t: Tile, rows: slice, cols: slice, values: np.ndarray) -> None:
        buf, off = self._region(t.ptr, t.nbytes, access="W", op="tile", operand="tile")
        idx = t.layout.offsets()[rows, cols]
        buf[off:off + t.nbytes].view(t.dtype.np)[idx] = values

    def TEXTRACT(self, dst: Tile, src: Tile, r0: int, c0: int, *, mode: str | None = None,
                 pre_quant: tuple | None = None, pre_relu: tuple | None = None) -> None:
        """dst(i, j) = src(r0 + i, c0 + j): over dst's whole fractals for Mat -> Left /
        Right (the L1 -> L0 micro-ops have no source stride, so the fractals move directly,
        docs/semantics.md "Tile level") and Mat -> ScaleLeft / ScaleRight; over dst's valid
        region for Vec -> Vec; Acc -> Mat / Vec (a5) through FIXPIPE."""
        op = "TEXTRACT"
        pair = (src.tile_type, dst.tile_type)
        if pair == ("Vec", "Vec"):                  # a5: a window of an ND vector tile
            vr, vc = dst.valid
            if src.name != "ND" or dst.name != "ND" or src.dtype.np != dst.dtype.np:
                raise VerifyError("Vec -> Vec extracts need ND tiles of one element type", op=op)
            if r0 < 0 or c0 < 0 or r0 + vr > src.rows or c0 + vc > src.cols:
                raise VerifyError(f"a {vr}x{vc} window at ({r0}, {c0}) leaves the "
                                  f"{src.rows}x{src.cols} source", op=op)
            self._store_matrix(dst, slice(0, vr), slice(0, vc),
                               self._matrix(src, "R")[r0:r0 + vr, c0:c0 + vc])
            return
        if src.tile_type == "Acc" and dst.tile_type in ("Mat", "Vec"):
            with _lowered(op):
                self._acc_move(op, dst, src, (r0, c0), "extract", mode, pre_quant, pre_relu)
            return
        if src.tile_type == "Mat" and dst.tile_type in ("ScaleLeft", "ScaleRight"):
            move_scale(self, op, dst, src, r0, c0)
            return
        if pair not in (("Mat", "Left"), ("Mat", "Right")):
            raise NotImplementedOpError(f"TEXTRACT {pair[0]} -> {pair[1]} is not implemented "
                                        f"(Mat -> Left / Right, Vec -> Vec, Acc -> Mat / Vec "
                                        f"are)", op=op)
        if src.dtype.np != dst.dtype.np:
            raise VerifyError(f"element types differ: {src.dtype.name} -> {dst.dtype.name}",
                              op=op)
        if src.rows == 1 and src.blayout == "RowMajor" and dst.tile_type == "Left":
            self._extract_row(op, dst, src, r0, c0)
            return
        if src.name not in ("NZ", "ZN"):
            raise VerifyError(f"the Mat source must be NZ or ZN (or a one-row ND / ZZ tile "
                              f"into Left), got {src.name}", op=op)
        if r0 < 0 or c0 < 0 or r0 + dst.rows > src.rows or c0 + dst.cols > src.cols:
            raise VerifyError(f"a {dst.rows}x{dst.cols} window at ({r0}, {c0}) leaves the "
                              f"{src.rows}x{src.cols} source", op=op)
        c0_elems = src.dtype.c0
        row_step, col_step = (16, c0_elems) if dst.tile_type == "Left" else (c0_elems, 16)
        if r0 % row_step or c0 % col_step:
            raise VerifyError(f"the window must start on a fractal: row {r0} a multiple of "
                              f"{row_step}, column {c0} of {col_step}", op=op)
        window = self._matrix(src, "R")[r0:r0 + dst.rows, c0:c0 + dst.cols]
        self._store_matrix(dst, slice(None), slice(None), window)
        from . import img2col
        img2col.extract_sets_fmatrix(self, dst, src)

    def _extract_row(self, op: str, dst: Tile, src: Tile, r0: int, c0: int) -> None:
        """The GEMV vector form (both targets' ``TExtractToAVector``): a one-row Mat tile
        into a one-row Left tile as ceil(valid cols / F) whole 512 B fractals (F = 512 /
        element size) copied verbatim from fractal c0 / F on: the Left tile gets one plain
        row, its columns past the valid ones up to the fractal's end included."""
        frac = 512 // src.dtype.size
        if dst.rows != 1 or r0 != 0:
            raise VerifyError(f"a one-row Mat tile extracts into a one-row Left tile at row 0, "
                              f"got a {dst.rows}-row tile at row {r0}", op=op)
        if src.cols % frac or dst.cols % frac or c0 % frac or c0 < 0:
            raise VerifyError(f"the one-row (GEMV) extract moves 512 B fractals: src cols "
                              f"({src.cols}), dst cols ({dst.cols}) and the column ({c0}) must "
                              f"be multiples of {frac}", op=op)
        if c0 + dst.cols > src.cols:
            raise VerifyError(f"a 1x{dst.cols} window at column {c0} leaves the 1x{src.cols} "
                              f"source", op=op)
        nbytes = -(-dst.valid[1] // frac) * 512
        sbuf, soff = self._region(src.ptr + c0, nbytes, access="R", op=op, operand="src")
        dbuf, doff = self._region(dst.ptr, nbytes, access="W", op=op, operand="dst")
        dbuf[doff:doff + nbytes] = sbuf[soff:soff + nbytes]

    def TINSERT(self, dst: Tile, src: Tile, r0: int, c0: int, *, mode: str | None = None,
                pre_quant: tuple | None = None, pre_relu: tuple | None = None) -> None:
        """dst(r0 + i, c0 + j) = src(i, j): Vec -> Vec (ND) and Vec -> Mat over src's
        valid region (an NZ source moves whole 32 B lines; ``mode`` SPLIT2 / SPLIT4 also
        whole fractal rows); Acc -> Mat / Vec (a5) through FIXPIPE (NZ: src's rows x
        align(valid cols, C0); f32 -> f16 / bf16 cast by default, else ``pre_quant``;
        ``mode`` an AccToVecMode name)."""
        op = "TINSERT"
        pair = (src.tile_type, dst.tile_type)
        vr, vc = src.valid
        if mode is not None and src.tile_type == "Vec" and dst.tile_type == "Vec":
            raise VerifyError(f"a Vec -> Vec insert takes no mode, got {mode!r}", op=op)
        if pair == ("Vec", "Vec"):
            if src.name != "ND" or dst.name != "ND" or src.dtype.np != dst.dtype.np:
                raise VerifyError("Vec -> Vec inserts need ND tiles of one element type", op=op)
            rows, cols = vr, vc
            if self.target.tinsert_vec_col_block and (c0 * dst.dtype.size) % 32:
                raise VerifyError(f"column {c0} must start on a 32 B block on "
                                  f"{self.target.name}", op=op)
        elif pair == ("Vec", "Mat"):               # a5: an ND or NZ vector tile into NZ
            if dst.name != "NZ" or src.name not in ("ND", "NZ") or src.dtype.np != dst.dtype.np:
                raise VerifyError("Vec -> Mat inserts an ND or NZ Vec tile into an NZ Mat tile "
                                  "of the same element type", op=op)
            if mode not in (None, "SPLIT2", "SPLIT4") or (mode and src.name != "NZ"):
                raise VerifyError(f"a Vec -> Mat insert's mode is SPLIT2 or SPLIT4 (NZ sources "
                                  f"only), got {mode!r} with an {src.name} source", op=op)
            if src.name == "ND":
                self._insert_nd_rows(dst, src, r0, c0)
                return
            rows, cols = vr, vc
            if src.name == "NZ":       # whole 32 B lines per column block; SPLITn: whole
                line = src.dtype.c0   # fractal rows (the split itself only cuts the DMA)
                rows, cols = (align(vr, 16) if mode else vr), align(vc, line)
                if c0 % line:
                    raise VerifyError(f"an NZ insert's column {c0} must start a {line}-element "
                                      f"line", op=op)
        elif src.tile_type == "Acc" and dst.tile_type in ("Mat", "Vec"):
            with _lowered(op):
                self._acc_move(op, dst, src, (r0, c0), "insert", mode, pre_quant, pre_relu)
            return
        else:
            raise NotImplementedOpError(f"TINSERT {pair[0]} -> {pair[1]} is not implemented "
                                        f"(Vec -> Vec, Vec -> Mat, Acc -> Mat / Vec are)", op=op)
        if r0 < 0 or c0 < 0 or r0 + rows > dst.rows or c0 + cols > dst.cols:
            raise VerifyError(f"a {rows}x{cols} insert at ({r0}, {c0}) leaves the "
                              f"{dst.rows}x{dst.cols} destination", op=op)
        values = self._matrix(src, "R")[:rows, :cols]
        with np.errstate(over="ignore", invalid="ignore"):
            if dst.name == "NZ":
                self._store_nz_window(dst, r0, rows, c0, cols, values.astype(dst.dtype.np))
            else:
                self._store_matrix(dst, slice(r0, r0 + rows), slice(c0, c0 + cols),
                                   values.astype(dst.dtype.np))

    def _insert_nd_rows(self, dst: Tile, src: Tile, r0: int, c0: int) -> None:
        """a5's TInsertNDImpl: src's valid rows copied as raw ND rows to dst's address +
        (r0 x dst cols + c0) elements, whatever dst's layout, in whole 32 B bursts (one
        burst when the rows are whole and equally wide, else one per row of
        floor(valid cols x size / 32) blocks; rows under 32 B: one burst of all bytes)."""
        vr, vc = src.valid
        es = src.dtype.size
        r0, c0 = int(r0), int(c0)
        first = r0 * dst.cols + c0
        total = vr * vc * es
        if vc == src.cols and vc == dst.cols and total >= 32:
            n, length, gaps, extent = 1, total // 32, (0, 0), total // 32 * 32
        elif vc * es >= 32:
            length = vc * es // 32
            gaps = ((src.cols - vc) * es // 32, (dst.cols - vc) * es // 32)
            n, extent = vr, ((vr - 1) * (length + gaps[1]) + length) * 32
        else:
            n, length, gaps = 1, -(-total // 32), (0, 0)
            extent = length * 32
        if r0 < 0 or c0 < 0 or first * es + extent > dst.nbytes:
            raise VerifyError(f"the insert's raw rows at ({r0}, {c0}) write bytes "
                              f"[{first * es}, {first * es + extent}) past the "
                              f"{dst.nbytes} B destination tile", op="TINSERT")
        self.mte_ub_l1(src.ptr, dst.ptr + first, length, nburst=(n, *gaps))

    def _store_nz_window(self, t: Tile, r0: int, rows: int, c0: int, cols: int,
                         values: np.ndarray) -> None:
        """Write rows x cols at (r0, c0) of an NZ tile, telling observers only the 32 B
        lines written (one run per column block): the two AIVs of a split V2C pipe insert
        disjoint halves of one L1 slot, which must not look like a conflict."""
        line = t.dtype.c0                       # elements per 32 B line
        first, last = c0 // line, -(-(c0 + cols) // line)
        block = t.rows * 32                     # bytes of one column block
        start = first * t.rows * line + r0 * line
        runs = (rows * 32, ((last - first, block),))
        buf, off = self._region(t.ptr + start, (last - first - 1) * block + rows * 32,
                                access="W", op="tile", operand="tile", runs=runs)
        base = off - start * t.dtype.size
        idx = t.layout.offsets()[r0:r0 + rows, c0:c0 + cols]
        buf[base:base + t.nbytes].view(t.dtype.np)[idx] = values

    def TFILLPAD(self, dst: Tile, src: Tile, *, mode: str = "plain",
                 ptoas: bool = False) -> None:
        """Vec ND: copy src's valid rows and fill the rest of dst's valid region with dst's
        pad value; Mat NZ (dst is src): zero rows below the valid region and column blocks
        past it. On a2a3 lanes of the last partial 32 B block keep their data unless the
        pads differ; a5 pads from src's valid column.
        ``mode``: "plain" (same shapes), "expand" (dst at least as large), "inplace".
        ``ptoas`` (what a `.pto` tfillpad runs): PTOAS's template fills an f32 tile whose
        pad is Zero with -1.0 when dst's valid region is larger than src's."""
        op = "TFILLPAD"
        if mode not in ("plain", "expand", "inplace"):
            raise VerifyError(f"mode must be plain, expand or inplace, got {mode!r}", op=op)
        same = (src.rows, src.cols) == (dst.rows, dst.cols)
        bigger = dst.rows >= src.rows and dst.cols >= src.cols
        if (mode == "expand" and not bigger) or (mode != "expand" and not same) \
                or src.dtype.np != dst.dtype.np:
            need = "a destination at least as large" if mode == "expand" else "one shape"
            raise VerifyError(f"TFILLPAD ({mode}) needs one element type and {need}",
                              op=op)
        if dst.dtype.size not in (1, 2, 4):
            raise VerifyError(f"TFILLPAD needs 8/16/32-bit elements, got {dst.dtype.name}", op=op)
        fill = pad_element(dst.pad, dst.dtype)
        svr, svc = src.valid
        whole = self._matrix(dst, "W")
        if dst.tile_type == "Mat" and dst.name == "NZ" and src.ptr == dst.ptr:
            zero = np.zeros(1, dst.dtype.np)[0]
            lanes = align(svc, dst.dtype.c0)
            self._store_matrix(dst, slice(svr, dst.rows), slice(0, lanes), zero)
            self._store_matrix(dst, slice(0, dst.rows), slice(lanes, dst.cols), zero)
            return
        if dst.tile_type != "Vec" or dst.name != "ND" or src.name != "ND":
            raise NotImplementedOpError("TFILLPAD is implemented for Vec ND tiles and an NZ Mat "
                                        "tile in place", op=op)
        if fill is None:
            raise VerifyError("the destination's pad value must not be Null", op=op)
        dvr, dvc = dst.valid
        if dvr < svr and self.target.fillpad_rows_unsigned:
            raise VerifyError(f"dst has {dvr} valid rows, fewer than src's {svr}: "
                              f"{self.target.name} counts the bottom pad rows as the unsigned "
                              f"difference, which wraps into a fill far past the tile", op=op,
                              operand="dst")
        if ptoas and dst.dtype.name == "f32" and dst.pad == "Zero" and \
                (svc < dvc or svr < dvr):     # the template's stand-in for Custom(-1.0f)
            fill = np.array([-1.0], np.float32)
        lanes = align(svc, dst.dtype.c0)
        data = self._matrix(src, "R")[:svr].copy()
        whole[:svr, :src.cols] = data
        # a5 pads from src's valid column; a2a3 leaves the last 32 B block's tail (TLOAD's
        # pad lanes) alone when both tiles carry the same pad value
        first = svc if self.target.fillpad_from_valid_col or dst.pad != src.pad else lanes
        whole[:svr, first:] = fill[0]
        whole[svr:max(dvr, svr)] = fill[0]

    # --- TMATMUL -------------------------------------------------------------------------
    def TMATMUL(self, acc: Tile, left: Tile, right: Tile) -> None:
        """acc = left . right over the valid shapes (m = left rows, k = left cols,
        n = right cols)."""
        self._tmatmul("TMATMUL", acc, left, right, None)

    def TMATMUL_ACC(self, acc: Tile, left: Tile, right: Tile) -> None:
        """acc += left . right (accumulates in acc's storage, as the NPU does)."""
        self._tmatmul("TMATMUL_ACC", acc, left, right, None)

    def TMATMUL_BIAS(self, acc: Tile, left: Tile, right: Tile, bias: Tile) -> None:
        """acc = left . right + bias (a one-row Bias tile)."""
        self._tmatmul("TMATMUL_BIAS", acc, left, right, bias)

    def TMATMUL_MX(self, acc: Tile, left: Tile, scale_left: Tile, right: Tile,
                   scale_right: Tile) -> None:
        """acc = (left x its scales) . (right x its scales): fp8 operands, one e8m0 scale
        per 32 K elements (a5). Each scale tile must sit at its data tile's address >> 4,
        where the cube reads it."""
        tmatmul_mx(self, "TMATMUL_MX", acc, left, scale_left, right, scale_right, None)

    def TMATMUL_MX_ACC(self, acc: Tile, left: Tile, scale_left: Tile, right: Tile,
                       scale_right: Tile) -> None:
        """acc += the scaled product (in acc's storage)."""
        tmatmul_mx(self, "TMATMUL_MX_ACC", acc, left, scale_left, right, scale_right, None)

    def TMATMUL_MX_BIAS(self, acc: Tile, left: Tile, scale_left: Tile, right: Tile,
                        scale_right: Tile, bias: Tile) -> None:
        """acc = the scaled product + bias (a one-row f32 Bias tile)."""
        tmatmul_mx(self, "TMATMUL_MX_BIAS", acc, left, scale_left, right, scale_right, bias)

    def TGEMV_MX(self, acc: Tile, left: Tile, scale_left: Tile, right: Tile,
                 scale_right: Tile) -> None:
        """acc[0, :n] = the scaled product of a one-row fp8 left tile (k = its valid cols)
        and right, in the cube's GEMV mode (a5): the left scales are one row (1 x at least
        ceil(k/32) e8m0), read as a plain row; the scale tiles sit at their data tiles'
        addresses >> 4, as for TMATMUL_MX."""
        tgemv_mx(self, "TGEMV_MX", acc, left, scale_left, right, scale_right, None)

    def TGEMV_MX_ACC(self, acc: Tile, left: Tile, scale_left: Tile, right: Tile,
                     scale_right: Tile) -> None:
        """acc[0, :n] += the scaled GEMV product (in acc's storage)."""
        tgemv_mx(self, "TGEMV_MX_ACC", acc, left, scale_left, right, scale_right, None)

    def TGEMV_MX_BIAS(self, acc: Tile, left: Tile, scale_left: Tile, right: Tile,
                      scale_right: Tile, bias: Tile) -> None:
        """acc[0, :n] = the scaled GEMV product + bias (a one-row f32 Bias tile)."""
        tgemv_mx(self, "TGEMV_MX_BIAS", acc, left, scale_left, right, scale_right, bias)

    def TGEMV(self, acc: Tile, left: Tile, right: Tile) -> None:
        """acc[0, :n] = left[0, :k] . right (the cube's GEMV mode: m = 1, k and n from
        right's valid shape; a one-row Left tile read as a contiguous row)."""
        self._tgemv("TGEMV", acc, left, right, None)

    def TGEMV_ACC(self, acc: Tile, left: Tile, right: Tile) -> None:
        """acc[0, :n] += left[0, :k] . right (in acc's storage)."""
        self._tgemv("TGEMV_ACC", acc, left, right, None)

    def TGEMV_BIAS(self, acc: Tile, left: Tile, right: Tile, bias: Tile) -> None:
        """acc[0, :n] = left[0, :k] . right + bias (a one-row Bias tile)."""
        self._tgemv("TGEMV_BIAS", acc, left, right, bias)

    def _tgemv(self, op: str, acc: Tile, left: Tile, right: Tile, bias: Tile | None) -> None:
        roles = [("acc", acc, "Acc"), ("left", left, "Left"), ("right", right, "Right")]
        check_roles(op, roles + ([("bias", bias, "Bias")] if bias is not None else []))
        k, n = right.valid
        if left.rows != 1 or left.valid != (1, k):
            raise VerifyError(f"GEMV multiplies a one-row left tile with valid 1x{k} (right's "
                              f"valid rows), got a {left.rows}x{left.cols} tile with valid "
                              f"{left.valid[0]}x{left.valid[1]}", op=op, operand="left")
        if (acc.rows, acc.cols) != (16, right.cols) or right.cols != align(n, 16):
            raise VerifyError(f"mad writes one 16-row band of align16(n) columns: acc must be "
                              f"16x{align(n, 16)} and right's cols {align(n, 16)}, got acc "
                              f"{acc.rows}x{acc.cols}, right {right.rows}x{right.cols}",
                              op=op, operand="acc")
        with _lowered(op):                   # disable_gemv off: the GEMV path of mad
            if op == "TGEMV":
                self.mad(left.ptr, right.ptr, acc.ptr, 1, n, k)
            elif op == "TGEMV_ACC":
                self.mad_acc(left.ptr, right.ptr, acc.ptr, 1, n, k)
            else:
                assert bias is not None
                self.mad_bias(left.ptr, right.ptr, acc.ptr, bias.ptr, 1, n, k)

    def _tmatmul(self, op: str, acc: Tile, left: Tile, right: Tile, bias: Tile | None) -> None:
        m, n, k = matmul_shape(op, acc, left, right, bias)
        # The library never lets a one-row Left take the GEMV path (which would read the
        # fractal tile as a contiguous row): a5 sets disable_gemv, a2a3 issues m = 16.
        flags: dict = {}
        if self.target.matmul_no_gemv == "disable_gemv":
            flags["disable_gemv"] = True
        elif m == 1:
            m = 16
        with _lowered(op):
            if op == "TMATMUL":
                self.mad(left.ptr, right.ptr, acc.ptr, m, n, k, **flags)
            elif op == "TMATMUL_ACC":
                self.mad_acc(left.ptr, right.ptr, acc.ptr, m, n, k, **flags)
            else:
                assert bias is not None
                self.mad_bias(left.ptr, right.ptr, acc.ptr, bias.ptr, m, n, k, **flags)


# The UB-side DMAs' len_burst is 16 bits in the micro-op manual, 21 bits in the register
# encoding that pto-isa's TLOAD / TSTORE fill (a uint32 lenBurst; a 64 KiB f32 row is a
# PTO-Gym case). The micro-ops keep the manual's width, so a tile op moves a longer row as
# column pieces of whole 32 B blocks: the same bytes, the pad only after the last piece.
_PIECE = 65535 // 32 * 32


def _pieces(nbytes: int) -> list[tuple[int, int]]:
    """(byte offset, length) pieces of one burst of ``nbytes``, each at most `_PIECE`."""
    return [(at, min(_PIECE, nbytes - at)) for at in range(0, nbytes, _PIECE)]


def _at(p: Ptr, nbytes: int) -> Ptr:
    """``p`` moved by ``nbytes`` (a multiple of 32, so of every element size)."""
    return p + nbytes // p.dtype.size


def _check_view_strides(op: str, g: GlobalTensor, c0: int) -> None:
    """Strides a DMA can follow. An ND row (DN column) moves as one contiguous burst: the
    DMA has no element stride, so the innermost stride must be 1 (pto-isa's NPU TLOAD /
    TSTORE never read it). An NZ view's column block must be its rows of C0 contiguous
    elements: s4 = C0 with unit stride, and the two row dims (s2, s3) packed, which holds
    for pto-isa's [1, C1, R/16, 16, C0] and PTOAS's [C1, 1, R, 1, C0] spelling alike."""
    s0, s1, s2, s3, s4 = g.shape
    t0, t1, t2, t3, t4 = g.stride
    if g.layout == "ND" and s4 > 1 and t4 != 1:
        raise VerifyError(f"an ND view's innermost stride t4 must be 1 (each row moves as one "
                          f"contiguous burst; the DMA has no element stride), got stride "
                          f"{g.stride} for shape {g.shape}", op=op, operand="global_tensor")
    if g.layout == "DN" and s3 > 1 and t3 != 1:
        raise VerifyError(f"a DN view's innermost stride t3 must be 1 (each column moves as "
                          f"one contiguous burst; the DMA has no element stride), got stride "
                          f"{g.stride} for shape {g.shape}", op=op, operand="global_tensor")
    if g.layout == "NZ" and (s4 != c0 or t4 != 1 or (s3 > 1 and t3 != c0)
                             or (s2 > 1 and t2 != s3 * c0)):
        raise VerifyError(f"an NZ view needs s4 = C0 = {c0} with stride 1 and packed rows "
                          f"(t3 = {c0} when s3 > 1, t2 = s3 x {c0} when s2 > 1), got shape "
                          f"{g.shape}, stride {g.stride}", op=op, operand="global_tensor")


def _check_pair(op: str, t: object, g: object, same_size: bool = True,
                exact: bool = True) -> None:
    if not isinstance(t, Tile):
        raise SpaceError(f"expected a Tile, got {type(t).__name__}", op=op, operand="tile")
    if not isinstance(g, GlobalTensor):
        raise SpaceError(f"expected a GlobalTensor, got {type(g).__name__}", op=op,
                         operand="global_tensor")
    if same_size and g.ptr.dtype.size != t.dtype.size:
        raise VerifyError(f"element sizes differ: tile {t.dtype.name}, view "
                          f"{g.ptr.dtype.name}", op=op)
    if exact and (g.rows, g.cols) != t.valid:
        raise VerifyError(f"the {g.layout} view is {g.rows}x{g.cols} but the tile's valid "
                          f"region is {t.valid[0]}x{t.valid[1]}", op=op)
