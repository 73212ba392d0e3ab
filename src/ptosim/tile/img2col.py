"""SETFMATRIX, SET_IMG2COL_RPT, SET_IMG2COL_PADDING and TIMG2COL (pto-isa
include/pto/npu/{a2a3,a5}/SetFmatrix.hpp, SetImg2colRpt.hpp, SetImg2colPadding.hpp,
TImg2col.hpp): the cube's load-3D (``img2colv2_cbuf_to_ca``) from an L1 feature map into
a Left tile, and the registers it reads.

The registers are per-core state on the Machine (``m.regs``), packed as the hardware code
packs them: ``fmatrix`` / ``fmatrix_b`` (W bits 0-15, H 16-31, pad left / right / top /
bottom one byte each from bit 32), ``l3d_rpt`` / ``l3d_rpt_b`` (repeat stride 0-15, time
16-23, mode 24-31; a5 adds dst stride 32-47 and dst M position 48-63) and ``padding`` /
``padding_b`` (the pad element's bits; a 1-byte element twice). a2a3 has only the A
repeat and padding registers. docs/semantics.md "Im2col" records the decisions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..dtypes import DType
from ..errors import (
    DtypeError,
    FieldRangeError,
    NotImplementedOpError,
    PtoError,
    PtoTypeError,
    PtoValueError,
    VerifyError,
)
from .conv import ConvTile
from .img2col_config import Img2colConfig
from .tile import Tile

if TYPE_CHECKING:
    from .ops import TileOps

MODES = ("A_AUTO", "B_AUTO", "A_MANUAL", "B_MANUAL")   # pto-isa's SetFmatrixMode
FRACTAL = 512
_ORDER = ("i8", "ui8", "i16", "ui16", "i32", "ui32", "f16", "bf16", "f32")


def _mode(op: str, mode: object) -> str:
    if not isinstance(mode, str) or mode not in MODES:
        raise PtoValueError(f"fmatrix_mode must be one of {', '.join(MODES)}, got {mode!r}",
                            op=op)
    return mode


def _conv_src(op: str, src: object) -> tuple[ConvTile, Img2colConfig]:
    if not isinstance(src, ConvTile):
        raise PtoTypeError(f"src must be a Mat conv tile (m.conv_tile(..., tile_type='Mat')), "
                           f"got {type(src).__name__}", op=op, operand="src")
    if src.tile_type != "Mat":
        raise VerifyError(f"src must be a Mat conv tile, got a {src.tile_type} one", op=op,
                          operand="src")
    return src, src.img2col or Img2colConfig()   # C++ ConvTile's member defaults


def _fmatrix_bits(cfg: Img2colConfig) -> int:
    bits = cfg.fmap_w | cfg.fmap_h << 16
    for i, p in enumerate(cfg.pad):
        bits |= p << (32 + 8 * i)
    return bits


def _rpt_bits(b_pair: bool, cfg: Img2colConfig) -> int:
    bits = cfg.repeat_stride | cfg.repeat_time << 16 | cfg.repeat_mode << 24
    if b_pair:                                # a2a3's ConvTile has no dst stride / M position
        bits |= cfg.dst_stride << 32 | cfg.dst_mposition << 48
    return bits


def _pad_bits(op: str, dt: DType, value: float | int) -> int:
    """The padding register value: the element's bits (1-byte elements twice over)."""
    if not dt.is_float:
        info = np.iinfo(dt.np)
        if (isinstance(value, float) and not value.is_integer()) \
                or not info.min <= value <= info.max:
            raise FieldRangeError(f"pad_value {value!r} is not a {dt.name} value", op=op)
    with np.errstate(over="ignore"):
        u = int(np.array([value]).astype(dt.np).view(f"u{dt.size}")[0])
    return u | u << 8 if dt.size == 1 else u


def _suffix(b_pair: bool, mode: str) -> str:
    return "_b" if mode.startswith("B") and b_pair else ""


def setfmatrix(m: TileOps, src: object, fmatrix_mode: str) -> None:
    op = "SETFMATRIX"
    mode = _mode(op, fmatrix_mode)
    _, cfg = _conv_src(op, src)
    if mode.endswith("MANUAL"):               # the AUTO modes leave it to TIMG2COL
        m.regs["fmatrix" + _suffix(True, mode)] = (_fmatrix_bits(cfg),)   # both targets


def set_img2col_rpt(m: TileOps, src: object, fmatrix_mode: str) -> None:
    op = "SET_IMG2COL_RPT"
    mode = _mode(op, fmatrix_mode)
    _, cfg = _conv_src(op, src)
    if mode.endswith("MANUAL"):
        bp = m.target.img2col_b_pair
        m.regs["l3d_rpt" + _suffix(bp, mode)] = (_rpt_bits(bp, cfg),)


def set_img2col_padding(m: TileOps, src: object, fmatrix_mode: str) -> None:
    op = "SET_IMG2COL_PADDING"
    mode = _mode(op, fmatrix_mode)
    tile, cfg = _conv_src(op, src)
    if mode.endswith("MANUAL"):
        m.regs["padding" + _suffix(m.target.img2col_b_pair, mode)] = \
            (_pad_bits(op, tile.dtype, cfg.pad_value),)


def _check(m: TileOps, op: str, dst: object, src: ConvTile, cfg: Img2colConfig,
           pos_m: object, pos_k: object) -> tuple[Tile, int, int]:
    """TImg2col.hpp's static_asserts, then ptosim's rules on the operands."""
    if not isinstance(dst, Tile):
        raise PtoTypeError(f"dst must be a Left tile, got {type(dst).__name__}", op=op,
                           operand="dst")
    if dst.tile_type != "Left":
        raise VerifyError(f"dst must be a Left tile, got {dst.tile_type}", op=op,
                          operand="dst")
    if src.layout != "NC1HWC0":
        raise VerifyError(f"src layout must be NC1HWC0, got {src.layout}", op=op,
                          operand="src")
    # the layout assert (a5 NZ, a2a3 ZZ, 512 B fractals) holds for every Left tile:
    # ptosim's tiles take only the target's L0A layout
    if dst.dtype.np != src.dtype.np or dst.dtype.name != src.dtype.name:
        raise DtypeError(f"dst and src element types differ: {dst.dtype.name} vs "
                         f"{src.dtype.name}", op=op)
    legal = [d for d in _ORDER if d in m.target.img2col_dtypes]
    if dst.dtype.name not in legal:
        raise DtypeError(f"element type must be one of {', '.join(legal)} on "
                         f"{m.target.name}, got {dst.dtype.name}", op=op, operand="dst")
    c0 = 32 // src.dtype.size
    if src.shape[-1] != c0:
        raise VerifyError(f"src's C0 must be one 32 B block ({c0} {src.dtype.name}), got "
                          f"{src.shape[-1]}", op=op, operand="src")
    pos = []
    for name, v in (("pos_m", pos_m), ("pos_k", pos_k)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise PtoTypeError(f"{name} must be an integer, got {v!r}", op=op)
        if not 0 <= int(v) <= 0xFFFF:
            raise FieldRangeError(f"{name} = {v} is outside [0, 65535] (uint16_t)", op=op)
        pos.append(int(v))
    if cfg.transpose:
        raise NotImplementedOpError("TIMG2COL with transpose (the load-3D transposing "
                                    "form) is not implemented", op=op)
    return dst, pos[0], pos[1]


def _register(m: TileOps, name: str) -> int | None:
    v = m.regs.get(name)
    return None if v is None else int(v[0])


def timg2col(m: TileOps, dst: object, src: object, pos_m: object, pos_k: object,
             fmatrix_mode: str) -> None:
    saved = dict(m.regs)
    try:
        _timg2col(m, dst, src, pos_m, pos_k, fmatrix_mode)
    except PtoError:            # a refused op leaves the registers (AUTO modes) as they were
        m.regs.clear()
        m.regs.update(saved)
        raise


def _timg2col(m: TileOps, dst: object, src: object, pos_m: object, pos_k: object,
              fmatrix_mode: str) -> None:
    op = "TIMG2COL"
    mode = _mode(op, fmatrix_mode)
    stile, cfg = _conv_src(op, src)
    left, pm, pk = _check(m, op, dst, stile, cfg, pos_m, pos_k)
    bp = m.target.img2col_b_pair
    if mode.endswith("AUTO"):   # the op programs the registers itself from the tile
        setfmatrix(m, stile, mode.replace("AUTO", "MANUAL"))
        set_img2col_rpt(m, stile, mode.replace("AUTO", "MANUAL"))
        set_img2col_padding(m, stile, mode.replace("AUTO", "MANUAL"))
        if not bp:              # a2a3's auto SetRepeat / SetPadding always write the A pair
            m.regs["l3d_rpt"] = (_rpt_bits(bp, cfg),)
            m.regs["padding"] = (_pad_bits(op, stile.dtype, cfg.pad_value),)
    b = mode.startswith("B")
    fm_name = "fmatrix_b" if b else "fmatrix"
    fm = _register(m, fm_name)
    if fm is None:
        raise VerifyError(f"{fm_name} was never set: issue SETFMATRIX (fmatrix_mode="
                          f"{'B' if b else 'A'}_MANUAL) first, or use an AUTO mode", op=op)
    sfx = "_b" if b and bp else ""
    rpt = _register(m, "l3d_rpt" + sfx) or 0       # reset value 0
    padbits = _register(m, "padding" + sfx) or 0   # reset value 0
    fw, fh = fm & 0xFFFF, fm >> 16 & 0xFFFF
    pl, pr, pt, pb = (fm >> (32 + 8 * i) & 0xFF for i in range(4))
    dt = stile.dtype
    es = dt.size
    c0 = 32 // es
    if (rpt >> 16 & 0xFF) > 1:
        raise NotImplementedOpError(f"TIMG2COL with a repeat time of {rpt >> 16 & 0xFF} "
                                    f"(SET_IMG2COL_RPT) is not implemented: one pass only",
                                    op=op)
    if fh == 0 or fw == 0:
        raise VerifyError(f"the feature map in {fm_name} is {fh} x {fw}: SETFMATRIX with a "
                          f"nonzero fmap_h and fmap_w", op=op)
    kh, kw, dh, dw, sh, sw = (cfg.filter_h, cfg.filter_w, cfg.dilation_h, cfg.dilation_w,
                              cfg.stride_h, cfg.stride_w)
    span_h, span_w = dh * (kh - 1) + 1, dw * (kw - 1) + 1
    if fh + pt + pb < span_h or fw + pl + pr < span_w:
        raise VerifyError(f"the dilated {span_h} x {span_w} kernel does not fit the padded "
                          f"{fh + pt + pb} x {fw + pl + pr} feature map", op=op)
    out_h = (fh + pt + pb - span_h) // sh + 1
    out_w = (fw + pl + pr - span_w) // sw + 1
    ch = cfg.channel_size
    if ch == 0:
        raise VerifyError("channel_size is 0: set the feature map's channel count (pto-isa's "
                          "SetChannelSize); the hardware takes the operand as given", op=op)
    if ch % c0:
        raise NotImplementedOpError(f"TIMG2COL with channel_size {ch}, not a multiple of C0 "
                                    f"= {c0} (the small-channel forms), is not implemented",
                                    op=op)
    step_m, step_k = left.valid[0], -(-left.valid[1] // c0) * c0
    if pk % c0:
        raise NotImplementedOpError(f"TIMG2COL at pos_k {pk}, not a multiple of C0 = {c0}, "
                                    f"is not implemented (the K extent moves in C0 units)",
                                    op=op)
    k_total = kh * kw * ch
    if pk + step_k > k_total:
        raise VerifyError(f"columns [{pk}, {pk + step_k}) leave the K = {kh} x {kw} x {ch} "
                          f"= {k_total} im2col columns", op=op)
    if pm + step_m > out_h * out_w:
        raise NotImplementedOpError(f"rows [{pm}, {pm + step_m}) pass the {out_h} x {out_w} "
                                    f"= {out_h * out_w} output positions; what the hardware "
                                    f"reads there is not modelled", op=op)
    mf = -(-step_m // 16)                       # fractal rows the valid rows span
    nz = m.target.l0a_layout == "NZ"
    dst_stride = mf                             # compact, where L3D_RPT has no dst stride
    if bp:
        dst_stride, m_pos = rpt >> 32 & 0xFFFF, rpt >> 48 & 0xFFFF
        if m_pos:
            raise NotImplementedOpError(f"TIMG2COL with a dst M position of {m_pos} "
                                        f"(SET_IMG2COL_RPT) is not implemented", op=op)
        if dst_stride < mf:
            raise NotImplementedOpError(
                f"{m.target.name} TIMG2COL with a dst stride of {dst_stride} fractals (L3D_RPT, "
                f"SET_IMG2COL_RPT / ConvTile dst_stride) below the {mf} fractal rows of "
                f"{step_m} rows is not modelled (pto-isa's kernels set ceil(M / 16))", op=op)
    # the im2col matrix: row m -> output position, column k -> (c1, kh, kw, c0)
    rows = pm + np.arange(step_m)
    cols = pk + np.arange(step_k)
    oh, ow = (rows // out_w)[:, None], (rows % out_w)[:, None]
    c1, kern, cc = cols // (kh * kw * c0), cols % (kh * kw * c0) // c0, cols % c0
    ih = oh * sh - pt + (kern // kw * dh)[None, :]
    iw = ow * sw - pl + (kern % kw * dw)[None, :]
    inside = (ih >= 0) & (ih < fh) & (iw >= 0) & (iw < fw)
    src_idx = ((c1[None, :] * fh + ih) * fw + iw) * c0 + cc[None, :]
    read = src_idx[inside]
    need = int(read.max()) + 1 if read.size else 0
    if need > stile.elems:
        raise VerifyError(f"the {fh} x {fw} x {ch}-channel feature map reads {need} elements "
                          f"but src holds {stile.elems}", op=op, operand="src")
    # destination element offsets in the L0A fractals the hardware writes
    lm, lk = np.arange(step_m)[:, None], np.arange(step_k)[None, :]
    frac = (lk // c0 * dst_stride + lm // 16 if nz                 # NZ: fractal columns
            else lm // 16 * (step_k // c0) + lk // c0)            # ZZ: fractal rows
    dst_idx = frac * (FRACTAL // es) + lm % 16 * c0 + lk % c0
    extent = (int(dst_idx.max()) + 1) * es if dst_idx.size else 0
    if extent > left.nbytes:
        raise VerifyError(f"the {step_m} x {step_k} im2col block spans {extent} B of L0A but "
                          f"dst holds {left.nbytes} B", op=op, operand="dst")
    pad_el = np.array([padbits & ((1 << 8 * es) - 1)], dtype=f"u{es}").view(dt.np)[0]
    out = np.full((step_m, step_k), pad_el, dtype=dt.np)
    if need:
        sbuf, soff = m._region(stile.ptr, need * es, access="R", op=op, operand="src")
        out[inside] = sbuf[soff:soff + need * es].view(dt.np)[read]
    if extent:
        dbuf, doff = m._region(left.ptr, extent, access="W", op=op, operand="dst")
        dbuf[doff:doff + extent].view(dt.np)[dst_idx] = out


def extract_sets_fmatrix(m: TileOps, dst: Tile, src: Tile) -> None:
    """The FMATRIX write of a2a3's TEXTRACT / TMOV Mat -> Left / Right (textract_common.hpp):
    the copy is a load-3D over a 1-row feature map as wide as the source's rows (NZ -> Left,
    NZ -> Right transposing) or columns (ZN -> Left transposing), pads 0; the 1-byte
    transposing forms and ZN -> Right use other instructions and leave it."""
    if not m.target.extract_sets_fmatrix:
        return
    b8 = src.dtype.size == 1
    if dst.tile_type == "Left":
        if src.name == "NZ":
            m.regs["fmatrix"] = (src.rows | 1 << 16,)
        elif not b8:
            m.regs["fmatrix"] = (src.cols | 1 << 16,)
    elif dst.tile_type == "Right" and src.name == "NZ" and not b8:
        m.regs["fmatrix_b"] = (src.rows | 1 << 16,)
