"""Tile ops out of an accumulator: TSTORE / TMOV / TINSERT / TEXTRACT with an Acc source,
all lowered onto one FIXPIPE writeback (docs/research/tile-level.md §3.2-3.5).

What the C++ lowering passes, per destination layout (research: Acc exit paths):
ND  nz2nd, dst_stride = the tile's cols (a view's row stride);  DN  nz2dn, the tile's rows;
NZ  C0-element lines (the tile's inner box width: 32 B, 16 for NZ-1024 / f32 views),
    dst_stride = rows x C0, m = the Acc's rows and n = valid cols rounded up to C0.
"""

from __future__ import annotations

from ..dtypes import DType
from ..errors import NotImplementedOpError, VerifyError
from ..layout import fractal_box
from ..machine import Ptr
from ..ops.cube import align
from ..ops.fixpipe import FixpipeOps
from .tensor import GlobalTensor
from .tile import Tile

# AccToVecMode (the C++ enum names) -> mte_l0c_ub's dst_mode
_ATOMIC_NAME = {"i32": "s32", "si32": "s32", "i16": "s16", "si16": "s16", "i8": "s8", "si8": "s8"}
ACC_TO_VEC_MODES = {"SingleModeVec0": 0, "SingleModeVec1": 1, "DualModeSplitM": "split_m",
                    "DualModeSplitN": "split_n"}


def nz_line(dt: DType) -> int:
    """Elements per line of an NZ GM view FIXPIPE writes: 32 B of a 1- or 2-byte type, 16
    of a 4-byte one (an f32 view may also choose the channel split's 8)."""
    return 16 if dt.size >= 2 else 32


def acc_quant(op: str, acc: DType, dst: DType, pre_quant: tuple | None) -> tuple | None:
    """The pre_quant an Acc writeback needs: none for the accumulator's own type, the
    f32 -> f16 / bf16 casts by default, an explicit mode for everything else."""
    if pre_quant is not None or dst.name == acc.name or (acc.name in ("i32", "si32")
                                                         and dst.name in ("i32", "si32")):
        return pre_quant
    cast = {("f32", "f16"): "f32_f16", ("f32", "bf16"): "f32_bf16"}.get((acc.name, dst.name))
    if cast is None:
        raise VerifyError(f"an {acc.name} accumulator writes {dst.name} only with pre_quant",
                          op=op)
    return (0.0, cast)


class AccOps(FixpipeOps):
    """The Acc-source halves of TSTORE, TMOV, TINSERT and TEXTRACT."""

    def _store_acc(self, g: GlobalTensor, t: Tile, pre_quant: tuple | None,
                   pre_relu: tuple | None, atomic: str | tuple[str, str] | None) -> None:
        """FIXPIPE to an ND view (nz2nd, dst_stride = the row stride t3) or an NZ view
        (lines of s4 elements, dst_stride = the column-block stride t1)."""
        vr, vc = t.valid
        s0, s1, s2, s3, s4 = g.shape
        t0, t1, t2, t3, t4 = g.stride
        dst = g.ptr.dtype
        pre_quant = acc_quant("TSTORE", t.dtype, dst, pre_quant)
        if isinstance(atomic, str):            # "add": in the view's own type (C++ AtomicAdd)
            atomic = (_ATOMIC_NAME.get(dst.name, dst.name), atomic)
        if g.layout == "NZ" and s0 == 1:
            lines = {8, 16} if dst.name == "f32" else {nz_line(dst)}
            if s3 != 16 or s4 not in lines or (t2, t3, t4) != (16 * s4, s4, 1):
                raise VerifyError(f"an Acc stores to an NZ view with s3 = 16, s4 = "
                                  f"{' or '.join(map(str, sorted(lines)))} ({dst.name} lines) "
                                  f"and packed rows (t2, t3, t4) = (16 s4, s4, 1); got shape "
                                  f"{g.shape}, stride {g.stride}", op="TSTORE")
            self._fixpipe("mte_l0c_gm", "gm", t.ptr, g.ptr, vr, vc, t.rows, t1, None, None,
                          pre_quant, pre_relu, None, None, None, atomic, nz_c0=s4)
            return
        if g.layout != "ND" or (s0, s1, s2) != (1, 1, 1):
            raise NotImplementedOpError(f"TSTORE from an Acc tile to a {g.layout} view with "
                                        f"shape {g.shape} (2-D ND views and NZ views with s0 "
                                        f"= 1 are implemented)", op="TSTORE")
        self.mte_l0c_gm(t.ptr, g.ptr, vr, vc, t.rows, t3, 0, 0, pre_quant=pre_quant,
                        pre_relu=pre_relu, layout="nz2nd", atomic=atomic)

    def _acc_move(self, op: str, dst: Tile, src: Tile, at: tuple[int, int], kind: str,
                  mode: str | None, pre_quant: tuple | None, pre_relu: tuple | None) -> None:
        """One FIXPIPE writeback from ``src`` (Acc) into ``dst`` (Mat or Vec). ``kind`` is
        "move" (TMOV), "insert" (``at`` is the destination corner) or "extract" (``at`` is
        the source corner); ``mode`` an AccToVecMode name for Vec destinations."""
        r0, c0 = at
        if dst.tile_type == "Vec" and not self.target.acc_to_vec:
            raise VerifyError("Acc -> Vec exists on a5 only (a2a3 has no L0C -> UB path)",
                              op=op)
        legal = self.target.acc_dst_layouts.get((kind, dst.tile_type), ())
        if dst.name not in legal:
            raise VerifyError(f"Acc -> {dst.tile_type} writes {' / '.join(legal)} tiles on "
                              f"{self.target.name}, got {dst.name}", op=op)
        if mode is not None and (dst.tile_type != "Vec" or mode not in ACC_TO_VEC_MODES):
            raise VerifyError(f"mode is an AccToVecMode ({', '.join(ACC_TO_VEC_MODES)}) of an "
                              f"Acc -> Vec move, got {mode!r} into a {dst.tile_type} tile", op=op)
        vr, vc = dst.valid if kind == "extract" else src.valid
        nz = dst.name == "NZ"
        line = fractal_box(dst.dtype, dst.slayout, dst.fractal)[1] if nz else 0
        if nz:        # whole fractal rows, as the C++ passes them (TEXTRACT: the valid rows)
            m, n = (vr if kind == "extract" else src.rows), align(vc, line)
        else:
            m, n = vr, (align(vc, dst.dtype.c0) if kind == "extract" else vc)
        if r0 < 0 or c0 < 0:
            raise VerifyError(f"the corner ({r0}, {c0}) must not be negative", op=op)
        src_off = dst_off = 0
        if kind == "extract":
            if c0 % 16:
                raise VerifyError(f"an Acc window starts on a 16-column block: column {c0}",
                                  op=op)
            if r0 + m > src.rows or c0 + n > src.cols:
                raise VerifyError(f"a {m}x{n} window at ({r0}, {c0}) leaves the "
                                  f"{src.rows}x{src.cols} Acc", op=op)
            src_off = src.rows * 16 * (c0 // 16) + r0 * 16
        else:
            if nz and c0 % line:
                raise VerifyError(f"an NZ destination column must start a {line}-element "
                                  f"line block, got {c0}", op=op)
            if kind == "move" and dst.tile_type == "Mat" and \
                    (src.rows, src.cols) != (dst.rows, dst.cols):
                raise VerifyError(f"Acc -> Mat needs equal shapes, got {src.rows}x{src.cols} "
                                  f"-> {dst.rows}x{dst.cols}", op=op)
            halves: dict[str | None, tuple[int, int]] = {"DualModeSplitM": (2, 1),
                                                          "DualModeSplitN": (1, 2)}
            half = halves.get(mode, (1, 1))
            if r0 + m // half[0] > dst.rows or c0 + n // half[1] > dst.cols:
                raise VerifyError(f"a {m}x{n} Acc block at ({r0}, {c0}) leaves the "
                                  f"{dst.rows}x{dst.cols} {dst.tile_type} tile", op=op)
            dst_off = int(dst.layout.offsets()[r0, c0])
            if dst_off * dst.dtype.size % 32:
                raise VerifyError(f"the corner ({r0}, {c0}) is byte {dst_off * dst.dtype.size} "
                                  f"of the {dst.name} tile; FIXPIPE writes start on 32 B",
                                  op=op)
        stride = dst.rows * line if nz else (dst.cols if dst.name == "ND" else dst.rows)
        layout = None if nz else ("nz2nd" if dst.name == "ND" else ("nz2dn", 1))
        quant = acc_quant(op, src.dtype, dst.dtype, pre_quant)
        s = src.ptr + src_off
        if dst.tile_type == "Mat":
            self._fixpipe("mte_l0c_l1", "l1", s, dst.ptr + dst_off, m, n, src.rows, stride,
                          None, None, quant, pre_relu, layout, None, None, None,
                          nz_c0=line or None, tile=True)
            return
        dst_mode = dst.ptr.sub if mode is None else ACC_TO_VEC_MODES[mode]
        d = dst.ptr + dst_off
        sub = dst_mode if isinstance(dst_mode, int) else 0      # split: both UBs, same offset
        d = Ptr("ub", d.dtype, d.offset, sub, d.block)
        self._fixpipe("mte_l0c_ub", "ub", s, d, m, n, src.rows, stride, dst_mode, None, quant,
                      pre_relu, layout, None, None, None, nz_c0=line or None, tile=True)
