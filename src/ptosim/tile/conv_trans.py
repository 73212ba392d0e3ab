"""TTRANS on conv tiles (`ptosim.tile.conv.ConvTile`): the layout conversions of pto-isa's
``TTransImplConvTile`` (include/pto/npu/a5/TTrans.hpp, include/pto/npu/a2a3/TTrans.hpp).

Each form is the element map its code's pointer arithmetic defines, written here as flat
offsets into the two buffers (dst offset <- src offset, plus the dst offsets set to 0):

- NCHW -> NC1HWC0 (and GNCHW -> GNC1HWC0): per (g, n, c1) block, the C0 x HW slab is
  transposed to HW x C0. The source is addressed with C padded to C1 x C0 channels (the
  code's nStride = C1 C0 H W): channels C .. C1 C0 - 1 are read from the source buffer.
- NC1HWC0 -> NCHW (and GNC1HWC0 -> GNCHW), a2a3 only: the inverse slab transpose; the
  grouped form's code takes C0 = 32 B / element size whatever the tile says.
- NC1HWC0 -> FRACTAL_Z (and GNC1HWC0 -> FRACTAL_Z): [N, C1HW, C0] -> [C1HW, N1 N0, C0].
  The plain form leaves dst's padded n (N .. N1 N0 - 1) untouched; the grouped form zeroes
  them, and addresses the source's groups with the padded N (gStride = N1 N0 C1 H W C0).
- NCDHW -> FRACTAL_Z_3D, a2a3 only: [N, C, D, HW] -> [D, C1, HW, N1 N0, C0], channels past C
  and n past N zero.

a2a3 stages the slab transposes through tmp when the strides are block aligned (the
vtranspose path, TTransRepeatXOperation) and NCDHW -> FRACTAL_Z_3D always does; ptosim
checks tmp holds what that path addresses and leaves tmp's bytes as they were (scratch).
a5 never touches tmp. docs/semantics.md "Further vector tile ops" records the decisions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..errors import DtypeError, NotImplementedOpError, VerifyError
from .conv import ConvTile
from .tile import Tile

if TYPE_CHECKING:
    from ..targets import Target
    from .ops import TileOps

BLOCK = 32
_TYPES = ("bf16", "f16", "f32", "i16", "i32", "i8", "ui16", "ui32", "ui8")
# every conv form pto-isa defines (either target): SRC->DST layout pairs
FORMS = ("NCHW->NC1HWC0", "NC1HWC0->NCHW", "GNCHW->GNC1HWC0", "GNC1HWC0->GNCHW",
         "NC1HWC0->FRACTAL_Z", "GNC1HWC0->FRACTAL_Z", "NCDHW->FRACTAL_Z_3D")

Moves = tuple[np.ndarray, np.ndarray, np.ndarray, int]   # dst idx, src idx, zero idx, tmp


def _up(n: int, k: int) -> int:
    return -(-n // k) * k


def _need(ok: bool, op: str, msg: str, operand: str | None = None) -> None:
    if not ok:
        raise VerifyError(msg, op=op, operand=operand)


def _grid(*dims: int) -> list[np.ndarray]:
    """Open index grids (np.ix_) over ``dims``, as int64 so offsets cannot wrap."""
    return list(np.ix_(*(np.arange(d, dtype=np.int64) for d in dims)))


def _flat(*arrays: np.ndarray) -> list[np.ndarray]:
    full = np.broadcast_arrays(*arrays)
    return [a.reshape(-1) for a in full]


def _ytile(es: int) -> int:
    """Rows of one a2a3 vtranspose sub-tile (Y_ELEM_B8 / Y_ELEM_OTHER)."""
    return 32 if es == 1 else 16


def _staged(dst_stride: int, src_stride: int, es: int) -> bool:
    """a2a3 takes the vtranspose (tmp) path when both strides are whole blocks and the
    source stride fits the 8-bit repeat stride (TTransConvNCHW2NC1HWC0's test)."""
    epb = BLOCK // es
    return dst_stride % epb == 0 and src_stride % epb == 0 and src_stride // epb <= 255


def _to_c1hwc0(op: str, src: ConvTile, dst: ConvTile, es: int, grouped: bool,
               target: Target) -> Moves:
    if grouped:
        g, n, c, h, w = src.shape
        g2, n2, c1, h2, w2, c0 = dst.shape
    else:
        n, c, h, w = src.shape
        n2, c1, h2, w2, c0 = dst.shape
        g = g2 = 1
    names = "G, N, H, W" if grouped else "N, H, W"
    _need((g, n, h, w) == (g2, n2, h2, w2), op,
          f"src and dst must agree on {names}: src {src.shape}, dst {dst.shape}", "dst")
    _need(c1 == -(-c // c0), op, f"dst's C1 = {c1} must be ceil(C / C0) = ceil({c} / {c0})",
          "dst")
    hw = h * w
    _need(hw * es % BLOCK == 0, op, f"H x W = {hw} elements of {es} B must fill whole 32 B "
          f"blocks", "src")
    # no C0 rule: the manual's "C0 x size = 32 B, or 4" is checked by neither target's code
    # and pto-isa's own float32_5_57_4_16 case runs f32 with C0 = 16
    gi, ni, ci, ki, pi = _grid(g, n, c1, c0, hw)
    base = ((gi * n + ni) * c1 + ci) * (c0 * hw)
    within = ki * hw + pi                  # the offset inside one C0 x HW slab
    if target.ttrans_conv_index16 and es < 4 and (c0 * es) % BLOCK == 0:
        # a5's aligned path gathers the slab column-wise (vgather2) with offsets computed
        # in 16-bit lanes (vci / vmuls / vadds on uint16): past 65535 they wrap
        within = within % (1 << 16)
    d, s = _flat(base + pi * c0 + ki, base + within)
    staging = target.vec_block_copies
    tmp = hw * _up(c0, _ytile(es)) if staging and _staged(c0, hw, es) else 0
    return d, s, np.empty(0, np.int64), tmp


def _from_c1hwc0(op: str, src: ConvTile, dst: ConvTile, es: int, grouped: bool,
                 target: Target) -> Moves:
    if grouped:
        g, n, c1, h, w, c0 = src.shape
        g2, n2, c, h2, w2 = dst.shape
        # the code passes C0 = BLOCK_BYTE_SIZE / sizeof(T), not the tile's sixth dimension
        _need(c0 == BLOCK // es, op, f"a2a3's GNC1HWC0 -> GNCHW code takes C0 = 32 B / {es} B "
              f"= {BLOCK // es}; src's C0 is {c0}", "src")
    else:
        n, c1, h, w, c0 = src.shape
        n2, c, h2, w2 = dst.shape
        g = g2 = 1
    names = "G, N, H, W" if grouped else "N, H, W"
    _need((g, n, h, w) == (g2, n2, h2, w2), op,
          f"src and dst must agree on {names}: src {src.shape}, dst {dst.shape}", "dst")
    _need(c1 == -(-c // c0), op, f"src's C1 = {c1} must be ceil(C / C0) = ceil({c} / {c0})",
          "src")
    hw = h * w
    gi, ni, ci, ki, pi = _grid(g, n, c1, c0, hw)
    base = ((gi * n + ni) * c1 + ci) * (c0 * hw)
    d, s = _flat(base + ki * hw + pi, base + pi * c0 + ki)
    tmp = c0 * _up(hw, _ytile(es)) if target.vec_block_copies and _staged(hw, c0, es) else 0
    return d, s, np.empty(0, np.int64), tmp


def _to_fractal_z(op: str, src: ConvTile, dst: ConvTile, es: int, grouped: bool,
                  target: Target) -> Moves:
    if grouped:
        g, n, c1, h, w, c0 = src.shape
    else:
        n, c1, h, w, c0 = src.shape
        g = 1
    rows, n1, n0, c0d = dst.shape
    r = c1 * h * w
    want = f"G x C1 x H x W = {g * r}" if grouped else f"C1 x H x W = {r}"
    _need(rows == g * r, op, f"dst's first dimension {rows} must be {want}", "dst")
    _need(c0d == c0, op, f"dst's C0 {c0d} must be src's C0 {c0}", "dst")
    _need(n1 == -(-n // n0), op, f"dst's N1 = {n1} must be ceil(N / N0) = ceil({n} / {n0})",
          "dst")
    npad = n1 * n0
    gi, ni, ri, ji = _grid(g, n, r, c0)
    gbase = gi * (npad * r * c0)           # both the source's and dst's group stride
    d, s = _flat(gbase + (ri * npad + ni) * c0 + ji, gbase + (ni * r + ri) * c0 + ji)
    zero = np.empty(0, np.int64)
    if grouped and npad > n:               # only the grouped code zeroes the padded n
        gi, ni, ri, ji = _grid(g, npad - n, r, c0)
        (zero,) = _flat(gi * (npad * r * c0) + (ri * npad + ni + n) * c0 + ji)
    return d, s, zero, 0


def _to_fractal_z_3d(op: str, src: ConvTile, dst: ConvTile, es: int, grouped: bool,
                     target: Target) -> Moves:
    n, c, dd, h, w = src.shape
    rows, n1, n0, c0 = dst.shape
    _need(c0 == BLOCK // es, op, f"C0 must be 32 B / {es} B = {BLOCK // es} elements, got "
          f"{c0}", "dst")
    c1 = -(-c // c0)
    hw = h * w
    _need(rows == dd * c1 * hw, op, f"dst's first dimension {rows} must be D x C1 x H x W = "
          f"{dd} x {c1} x {h} x {w}", "dst")
    _need(n1 == -(-n // n0), op, f"dst's N1 = {n1} must be ceil(N / N0) = ceil({n} / {n0})",
          "dst")
    npad = n1 * n0
    di, ci, pi, ni, ki = _grid(dd, c1, hw, npad, c0)
    ch = ci * c0 + ki
    d, s, live = _flat((((di * c1 + ci) * hw + pi) * npad + ni) * c0 + ki,
                       ((ni * c + ch) * dd + di) * hw + pi, (ch < c) & (ni < n))
    plane = n * c1 * c0 * hw
    tmp = plane + max(plane, hw * _up(c0, _ytile(es)))   # the manual's tmp formula
    return d[live], s[live], d[~live], tmp


_IMPL = {
    "NCHW->NC1HWC0": (_to_c1hwc0, False), "GNCHW->GNC1HWC0": (_to_c1hwc0, True),
    "NC1HWC0->NCHW": (_from_c1hwc0, False), "GNC1HWC0->GNCHW": (_from_c1hwc0, True),
    "NC1HWC0->FRACTAL_Z": (_to_fractal_z, False), "GNC1HWC0->FRACTAL_Z": (_to_fractal_z, True),
    "NCDHW->FRACTAL_Z_3D": (_to_fractal_z_3d, False),
}


def conv_trans(m: TileOps, op: str, dst: object, src: object, tmp: Tile | None) -> None:
    """TTRANS with conv tiles: check the form, the types and the shapes, then move."""
    if not (isinstance(src, ConvTile) and isinstance(dst, ConvTile)):
        raise VerifyError(f"a conv-tile transpose takes conv tiles for both src and dst; got "
                          f"{type(src).__name__} -> {type(dst).__name__}", op=op)
    if src.tile_type != "Vec" or dst.tile_type != "Vec":
        raise VerifyError(f"TTRANS converts Vec conv tiles; got {src.tile_type} -> "
                          f"{dst.tile_type}", op=op)
    form = f"{src.layout}->{dst.layout}"
    if form not in _IMPL:
        raise VerifyError(f"no conv-tile transpose {src.layout} -> {dst.layout}; pto-isa "
                          f"defines {', '.join(FORMS)}", op=op)
    if form not in m.target.ttrans_conv_forms:
        raise NotImplementedOpError(f"TTRANS {src.layout} -> {dst.layout}: {m.target.name}'s "
                                    f"TTrans.hpp has no code for this conv form (pto-isa "
                                    f"implements it for a2a3 only)", op=op)
    legal = [d for d in _TYPES if m.target.has_dtype(d)]
    if src.dtype.name not in legal:
        raise DtypeError(f"src element type must be one of {', '.join(legal)}, got "
                         f"{src.dtype.name}", op=op, operand="src")
    es = src.dtype.size
    if dst.dtype.size != es:
        raise DtypeError(f"dst elements are {dst.dtype.size} B but src's are {es} B: a "
                         f"transpose moves elements of one size", op=op, operand="dst")
    fn, grouped = _IMPL[form]
    d, s, zero, tmp_need = fn(op, src, dst, es, grouped, m.target)
    s_hi = int(s.max()) + 1
    d_hi = int(max(d.max(), zero.max(initial=-1))) + 1
    _need(s_hi <= src.elems, op, f"the {form} code reads {s_hi} elements from src but its "
          f"buffer holds {src.elems}", "src")
    _need(d_hi <= dst.elems, op, f"the {form} code writes {d_hi} elements of dst but its "
          f"buffer holds {dst.elems}", "dst")
    if tmp_need:
        _need(tmp is not None, op, f"{m.target.name} stages {form} through tmp: pass a tmp "
              f"tile of at least {tmp_need} elements", "tmp")
        assert tmp is not None
        held = tmp.nbytes // es                     # tmp counted in src's elements
        _need(held >= tmp_need, op, f"tmp holds {held} elements but {form} stages "
              f"{tmp_need}", "tmp")
    bits = np.dtype(f"u{es}")
    buf, off = m._region(src.ptr, s_hi * es, access="R", op=op, operand="src")
    vals = buf[off:off + s_hi * es].view(bits)[s]          # fancy indexing copies
    buf, off = m._region(dst.ptr, d_hi * es, access="W", op=op, operand="dst")
    out = buf[off:off + d_hi * es].view(bits)
    out[d] = vals
    out[zero] = 0
