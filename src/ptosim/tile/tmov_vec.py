"""TMOV Vec -> Vec layout changes: ND -> NZ and ND -> ZN (two operands) and the MX
exponent repacks ND -> ZZ / DN -> ZZ (three operands, a scratch tile), as a5's vector
code runs them. Each writes exactly the bytes a5 writes, placed by that code's own
strides (which follow the valid shape, not the tile's), so the results equal the tile
layouts only for tiles shaped as pto-isa's kernels shape them (docs/semantics.md, "TMOV
Vec relayouts (a5)"). a2a3's Vec -> Vec TMOV is a layout-blind row copy: no relayout."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..errors import DtypeError, NotImplementedOpError, PtoValueError, VerifyError
from ..ops.cube import align
from .tile import E8M0, Tile

if TYPE_CHECKING:
    from .ops import TileOps

OP = "TMOV"
# a5 TMovToVecNd2Nz / TMovNdTo2Zn static_asserts (int32_t / int8_t also in their s-spelling)
RELAYOUT_TYPES = frozenset({"f16", "bf16", "f32", "i32", "si32", "i8", "si8", "ui8",
                            "f8E4M3FN", "f8E5M2", "hif8", "f4E2M1x2", "f4E1M2x2"})
ZZ_TYPES = frozenset({"ui8", "hif8", E8M0})      # a5 CommonCheckZZ


def _bytes(m: TileOps, t: Tile, nbytes: int, access: str, operand: str) -> np.ndarray:
    """The first ``nbytes`` bytes of tile ``t`` as a writable uint8 view."""
    buf, off = m._region(t.ptr, nbytes, access=access, op=OP, operand=operand)
    return buf[off:off + nbytes]


def _elements(m: TileOps, t: Tile, count: int, access: str, operand: str) -> np.ndarray:
    """The first ``count`` elements of ``t`` as unsigned integers of the element's size
    (a move copies bits, whatever the type)."""
    es = t.dtype.size
    return _bytes(m, t, count * es, access, operand).view(f"u{es}")


def _fits(t: Tile, nbytes: int, what: str) -> None:
    if nbytes > t.nbytes:
        raise VerifyError(f"{what} spans {nbytes} B, past the {t.rows}x{t.cols} "
                          f"{t.dtype.name} tile's {t.nbytes} B", op=OP)


def _target_has(m: TileOps, src: Tile, dst: Tile, form: str) -> None:
    if (src.name, dst.name) not in m.target.tmov_vec_layouts:
        raise NotImplementedOpError(
            f"TMOV Vec {src.name} -> Vec {dst.name}{form} does not exist on "
            f"{m.target.name}: its Vec -> Vec TMOV copies rows at each tile's row stride "
            f"whatever the layouts (a5 has ND -> NZ / ZN and the 3-operand ND / DN -> ZZ)",
            op=OP)


def _same_type(dst: Tile, src: Tile, allowed: frozenset[str], form: str) -> None:
    if dst.dtype.name not in allowed:
        raise DtypeError(f"{form}: element type {dst.dtype.name} is not one of "
                         f"{', '.join(sorted(allowed))}", op=OP)
    if src.dtype.name != dst.dtype.name:
        raise DtypeError(f"{form}: src and dst element types differ ({src.dtype.name} -> "
                         f"{dst.dtype.name})", op=OP)


def relayout(m: TileOps, dst: Tile, src: Tile) -> None:
    """Two-operand Vec -> Vec TMOV between different layouts."""
    if src.name == "ND" and dst.name == "ZZ":
        raise PtoValueError("TMOV Vec ND -> ZZ is the 3-operand form: TMOV(dst, src, tmp)",
                            op=OP)
    _target_has(m, src, dst, "")
    if dst.ptr.sub != src.ptr.sub:
        raise VerifyError("Vec -> Vec stays in one vector core's UB", op=OP)
    if dst.name == "NZ":
        nd_to_nz(m, dst, src)
    else:
        nd_to_zn(m, dst, src)


def nd_to_nz(m: TileOps, dst: Tile, src: Tile) -> None:
    """a5 TMovToVecNd2Nz: row i < src valid rows, column c < dst valid cols goes to the
    32 B line i of column block c // C0, blocks align16(dst valid rows) lines apart (one
    more under CompactMode RowPlusOne); masked stores write those elements and nothing
    else. The source row is read at src's row stride (its cols)."""
    _same_type(dst, src, RELAYOUT_TYPES, "ND -> NZ")
    c0 = 32 // dst.dtype.size
    rows = src.valid[0]
    vr, vc = dst.valid
    lines = align(vr, 16) + (1 if dst.compact == "RowPlusOne" else 0)
    if rows > lines:
        raise VerifyError(f"ND -> NZ: {rows} source rows overrun the {lines}-line column "
                          f"blocks the destination's valid rows ({vr}) give", op=OP)
    if vc > src.cols:
        raise VerifyError(f"ND -> NZ: the destination's {vc} valid cols run past the "
                          f"source's {src.cols}-column rows", op=OP)
    blocks = -(-vc // c0)
    _fits(dst, ((blocks - 1) * lines + rows) * 32, "ND -> NZ's output")
    i = np.arange(rows)[:, None]
    c = np.arange(vc)[None, :]
    d_idx = (c // c0) * lines * c0 + i * c0 + c % c0
    s_idx = i * src.cols + c
    s = _elements(m, src, (rows - 1) * src.cols + vc, "R", "src").copy()
    d = _elements(m, dst, int(d_idx.max()) + 1, "W", "dst")
    d[d_idx] = s[s_idx]


def nd_to_zn(m: TileOps, dst: Tile, src: Tile) -> None:
    """a5 TMovNdTo2Zn: whole C0 x 16 fractals of dst's valid shape (floor(valid rows /
    C0) x floor(valid cols / 16); partial ones are not written), fractal (kf, nf) at
    (kf * nF + nf) x 512 B, element (i, j) at j * C0 + i, gathered from the source read
    with a row stride of dst's valid cols."""
    _same_type(dst, src, RELAYOUT_TYPES, "ND -> ZN")
    k0 = 32 // dst.dtype.size
    if src.rows % k0:
        raise VerifyError(f"ND -> ZN: source rows {src.rows} must be a multiple of K0 = {k0}",
                          op=OP)
    if src.cols % 16:
        raise VerifyError(f"ND -> ZN: source cols {src.cols} must be a multiple of 16", op=OP)
    vr, vc = dst.valid
    kf, nf = vr // k0, vc // 16
    if kf == 0 or nf == 0:
        return                                   # no whole fractal: nothing is written
    _fits(dst, kf * nf * 512, "ND -> ZN's output")
    _fits(src, (kf * k0 * vc) * dst.dtype.size, "ND -> ZN's input (row stride = dst valid "
          "cols)")
    # destination position (fractal row a, fractal col b, col j, row i) <- src (a k0 + i, b 16 + j)
    a, b, j, i = np.ix_(np.arange(kf), np.arange(nf), np.arange(16), np.arange(k0))
    s_idx = (a * k0 + i) * vc + b * 16 + j
    s = _elements(m, src, kf * k0 * vc, "R", "src").copy()
    d = _elements(m, dst, kf * nf * 16 * k0, "W", "dst")
    d[:] = s[s_idx].ravel()


def to_zz(m: TileOps, dst: Tile, src: Tile, tmp: Tile, grp_axis: int) -> None:
    """The 3-operand TMOV(dst, src, tmp): the MX exponent repack into 16 x 2 byte boxes,
    ND -> ZZ (grp_axis 1) or DN-grouped -> ZZ (grp_axis 0)."""
    if tmp.tile_type == "Scaling":
        raise VerifyError("a Scaling third operand is TMOV's fp form: use TMOV_FP", op=OP)
    if grp_axis not in (0, 1):
        raise PtoValueError(f"grp_axis must be 1 (ND -> ZZ) or 0 (DN -> ZZ), got {grp_axis!r}",
                            op=OP)
    form = "ND -> ZZ" if grp_axis == 1 else "DN -> ZZ"
    for name, t in (("dst", dst), ("src", src), ("tmp", tmp)):
        if t.tile_type != "Vec":
            raise VerifyError(f"{form}: {name} must be a Vec tile, got {t.tile_type}", op=OP)
    if src.name != "ND":
        raise VerifyError(f"{form}: the source must be an ND (RowMajor, NoneBox) tile, got "
                          f"{src.name}", op=OP)
    if dst.name != "ZZ":
        raise VerifyError(f"{form}: the destination must be a ZZ (RowMajor, RowMajor) tile, "
                          f"got {dst.name}", op=OP)
    _target_has(m, src, dst, f" (3-operand, {form})")
    if dst.dtype.name not in ZZ_TYPES:
        raise DtypeError(f"{form}: element type {dst.dtype.name} is not one of "
                         f"{', '.join(sorted(ZZ_TYPES))}", op=OP)
    if src.dtype.name != dst.dtype.name or tmp.dtype.name != dst.dtype.name:
        raise DtypeError(f"{form}: dst, src and tmp must share one element type, got "
                         f"{dst.dtype.name}, {src.dtype.name}, {tmp.dtype.name}", op=OP)
    if len({dst.ptr.sub, src.ptr.sub, tmp.ptr.sub}) != 1:
        raise VerifyError("Vec -> Vec stays in one vector core's UB", op=OP)
    if grp_axis == 1:
        _nd_to_zz(m, dst, src, tmp)
    else:
        _dn_to_zz(m, dst, src)


def _nd_to_zz(m: TileOps, dst: Tile, src: Tile, tmp: Tile) -> None:
    """a5 TMovNdTo2Zz with n = dst valid rows, P = dst valid cols // 2 (an odd last column
    is dropped), RB = ceil(n / 16). tmp gets the b16 gather indices: q * P (q < 16), then
    rb * 16P + p for every box, then the last row block's first 16 (vstus tail). The
    source, read flat with 2P bytes per row, has its b16 elements [n P, RB 16 P) zeroed
    (ZeroSourcePaddingB16), and dst's first RB x P boxes of 32 B get box (rb, p) = 16 rows
    x 2 bytes: byte 2q + d = src[(16 rb + q) 2P + 2p + d]."""
    n, vc = dst.valid
    p_cnt, rb = vc // 2, -(-n // 16)
    if p_cnt == 0:
        raise VerifyError("ND -> ZZ: the destination needs at least 2 valid cols (one 16 x 2 "
                          "box)", op=OP)
    total = rb * 16 * p_cnt * 2                  # bytes: align16(n) rows of 2P bytes
    tmp_bytes = (16 + rb * p_cnt + 16) * 2
    _fits(src, total, "ND -> ZZ's source (read and zero-padded to align16(rows) rows)")
    _fits(dst, total, "ND -> ZZ's output")
    _fits(tmp, tmp_bytes, "ND -> ZZ's index scratch")
    idx = np.concatenate([np.arange(16) * p_cnt,
                          (np.arange(rb)[:, None] * 16 * p_cnt + np.arange(p_cnt)).ravel(),
                          (rb - 1) * 16 * p_cnt + np.arange(16)]).astype(np.uint16)
    _bytes(m, tmp, tmp_bytes, "W", "tmp")[:] = idx.view(np.uint8)
    s = _bytes(m, src, total, "RW", "src")
    s[n * p_cnt * 2:] = 0
    boxes = s.reshape(rb, 16, p_cnt, 2).transpose(0, 2, 1, 3)   # (rb, p, q, d)
    _bytes(m, dst, total, "W", "dst")[:] = boxes.ravel()


def _dn_to_zz(m: TileOps, dst: Tile, src: Tile) -> None:
    """a5 TMovDnTo2Zz with M = src valid rows, N = src valid cols: box (cb, p) for cb <
    N // 16, p < M // 2 at byte (cb (M // 2) + p) 32 holds src rows 2p, 2p + 1 (read flat,
    N bytes apart) at cols 16 cb + q, byte 2q + d = src[(2p + d) N + 16 cb + q]; tmp is
    not touched."""
    hat_m, cols = src.valid
    pairs, cbs = hat_m // 2, cols // 16
    if pairs == 0 or cbs == 0:
        return                                   # no whole box: nothing is written
    _fits(dst, cbs * pairs * 32, "DN -> ZZ's output")
    s = _bytes(m, src, 2 * pairs * cols, "R", "src").reshape(2 * pairs, cols)
    boxes = s[:, :16 * cbs].reshape(pairs, 2, cbs, 16).transpose(2, 0, 3, 1)  # (cb, p, q, d)
    _bytes(m, dst, cbs * pairs * 32, "W", "dst")[:] = boxes.ravel()


def cpu_sim_copy(m: TileOps, dst: Tile, src: Tile) -> None:
    """pto-isa's CPU simulator TMOV (``cpu_sim_compat=True``): any Vec -> Vec layout pair,
    element (r, c) of the valid region through both tiles' layout maps (it asserts equal
    valid shapes); nothing else is written."""
    if src.valid != dst.valid:
        raise VerifyError(f"the CPU simulator's TMOV needs equal valid shapes, got "
                          f"{src.valid[0]}x{src.valid[1]} -> {dst.valid[0]}x{dst.valid[1]}",
                          op=OP)
    if src.dtype.name != dst.dtype.name:
        raise DtypeError(f"src and dst element types differ ({src.dtype.name} -> "
                         f"{dst.dtype.name})", op=OP)
    vr, vc = src.valid
    s_idx, d_idx = src.layout.offsets(vr, vc), dst.layout.offsets(vr, vc)
    s = _elements(m, src, src.rows * src.cols, "R", "src").copy()
    _elements(m, dst, dst.rows * dst.cols, "W", "dst")[d_idx] = s[s_idx]
