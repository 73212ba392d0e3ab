"""TSTORE from an Acc tile into a GM conv layout, as pto-isa's code issues it: one FIXPIPE
writeback (`mte_l0c_gm`) with the parameters the C++ programs, so bounds, conversions
(f32 -> f16 / bf16, quantisation, ReLU, atomics) and the hazard checker see the real write.

- a2a3 NC1HWC0 [N, C1, H, W, C0] (``TStoreAccNz2NC1HWC0``): nz2nz lines of C0 elements
  (f32 into C0 = 8: the channel split), the N H W pixel rows one line apart, the C1 blocks
  ``N x s1 / s3`` lines apart;
- a5 NHWC [1, N, H, W, C] (``TStoreAccNHWC``): nz2nd, pixel rows ``s3`` elements apart
  (LOOP3 once);
- a5 NCHW [1, N, C, H, W] and NCDHW [N, C, 1, H, W] (``TStoreAccNCHW``): nz2dn with
  loop0_src_stride 1, channel columns ``s2`` (NCDHW: ``s1``) elements apart.

The code addresses pixel row r = (n H + h) W + w at r times one step and never reads the
view's other strides, so a view whose strides say otherwise is refused (a VerifyError
naming the stride) instead of writing where the view does not point. The Acc holds one
[N H W, C] matrix: its valid rows must be N H W and its valid columns C (C1 C0).
NDC1HWC0 (a2a3) is not implemented.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import NotImplementedOpError, VerifyError
from .acc import _ATOMIC_NAME, acc_quant, nz_line
from .tensor import GlobalTensor
from .tile import Tile

if TYPE_CHECKING:
    from .acc import AccOps

OP = "TSTORE"


def _fail(msg: str, operand: str | None = "view") -> VerifyError:
    return VerifyError(msg, op=OP, operand=operand)


def _need(g: GlobalTensor, cond: bool, what: str) -> None:
    if not cond:
        raise _fail(f"{what}; got a {g.layout} view of shape {g.shape}, stride {g.stride}")


def tstore_acc_conv(m: AccOps, g: GlobalTensor, t: Tile, pre_quant: tuple | None,
                    pre_relu: tuple | None, atomic: str | tuple[str, str] | None) -> None:
    """TSTORE(conv view, Acc tile) after TSTORE's own type checks."""
    forms = m.target.acc_conv_stores
    if g.layout not in forms:
        raise _fail(f"an Acc tile stores into {' / '.join(sorted(forms))} conv views on "
                    f"{m.target.name}, not {g.layout}")
    if g.layout == "NDC1HWC0":
        raise NotImplementedOpError("TSTORE Acc -> NDC1HWC0 (TStoreAccNz2NDC1HWC0) is not "
                                    "implemented", op=OP)
    dst = g.ptr.dtype
    pre_quant = acc_quant(OP, t.dtype, dst, pre_quant)
    if isinstance(atomic, str):            # "add": in the view's own type (C++ AtomicAdd)
        atomic = (_ATOMIC_NAME.get(dst.name, dst.name), atomic)
    if g.layout == "NC1HWC0":
        _nc1hwc0(m, g, t, pre_quant, pre_relu, atomic)
    elif g.layout == "NHWC":
        _nhwc(m, g, t, pre_quant, pre_relu, atomic)
    else:
        _nchw(m, g, t, pre_quant, pre_relu, atomic)


def _valid(g: GlobalTensor, t: Tile, rows: int, cols: int, what: str) -> None:
    if t.valid != (rows, cols):
        raise _fail(f"the Acc's valid region must be the view's {what} = {rows}x{cols}, got "
                    f"{t.valid[0]}x{t.valid[1]}", "tile")


def _pixels(g: GlobalTensor, n: int, h: int, w: int, sn: int, sh: int, sw: int,
            step: int) -> None:
    """The code writes pixel row (n H + h) W + w at that index times ``step``: the view's
    W / H / N strides must be step, W step, H W step (each only where it is stepped)."""
    _need(g, w == 1 or sw == step, f"the W stride must be {step} (the code's pixel step)")
    _need(g, h == 1 or sh == w * step, f"the H stride must be W x {step} = {w * step} (the "
                                       f"code steps pixel rows only)")
    _need(g, n == 1 or sn == h * w * step, f"the N stride must be H x W x {step} = "
                                           f"{h * w * step} (the code steps pixel rows only)")


def _nc1hwc0(m: AccOps, g: GlobalTensor, t: Tile, pre_quant: tuple | None,
             pre_relu: tuple | None, atomic: tuple[str, str] | None) -> None:
    n, c1, h, w, c0 = g.shape
    t0, t1, t2, t3, t4 = g.stride
    dst = g.ptr.dtype
    lines = {8, 16} if dst.name == "f32" else {nz_line(dst)}
    _need(g, c0 in lines, f"C0 must be {' or '.join(map(str, sorted(lines)))} for a "
                          f"{dst.name} view (FIXPIPE's {dst.name} lines; f32 8: channel split)")
    _valid(g, t, n * h * w, c1 * c0, "N H W x C1 C0")
    _need(g, c0 == 1 or t4 == 1, "the C0 stride must be 1")
    _need(g, t3 != 0, "the W stride must not be 0 (the code divides the C1 stride by it)")
    _pixels(g, n, h, w, t0, t2, t3, c0)
    # TStoreAccNz2NC1HWC0: dstStride = N s1 / s3 x C0 bytes >> 5, in 32 B blocks
    es = dst.size
    blocks = (n * t1 // t3 * c0 * es) >> 5
    step = blocks * 32 // es
    if c1 > 1:
        _need(g, step == t1, f"a2a3 steps the C1 blocks N x s1 / s3 C0 lines apart "
                             f"({step} elements), which must be the view's C1 stride (N = 1 "
                             f"and a C1 stride that is a multiple of C0)")
        _need(g, t1 >= n * h * w * c0, f"the C1 stride must reach past a block's N x H x W "
                                       f"x C0 = {n * h * w * c0} elements")
    m._fixpipe("mte_l0c_gm", "gm", t.ptr, g.ptr, n * h * w, c1 * c0, t.rows, max(step, 1),
               None, None, pre_quant, pre_relu, None, None, None, atomic, nz_c0=c0)


def _nhwc(m: AccOps, g: GlobalTensor, t: Tile, pre_quant: tuple | None,
          pre_relu: tuple | None, atomic: tuple[str, str] | None) -> None:
    s0, n, h, w, c = g.shape
    t0, t1, t2, t3, t4 = g.stride
    _need(g, s0 == 1, "the first dimension must be 1 (the code repeats the writeback over it "
                      "with LOOP3, reading further Acc matrices past the tile's one)")
    _valid(g, t, n * h * w, c, "N H W x C")
    _need(g, c == 1 or t4 == 1, "the C stride must be 1")
    _need(g, n * h * w == 1 or t3 >= c, f"the W stride must be at least C = {c} (pixel rows "
                                         f"of C channels)")
    _pixels(g, n, h, w, t1, t2, t3, t3)
    # TStoreAccNHWC: nz2nd, dst_stride s3; LOOP3 (s0 = 1 times, Rows C / 16, s0's stride),
    # the fields as the C++ narrows them
    loop3 = (1, t.rows * c // 16 & 0xFFFF, t0 & 0xFFFFFFFF)
    m.mte_l0c_gm(t.ptr, g.ptr, n * h * w, c, t.rows, max(t3, 1), 0, 0, pre_quant=pre_quant,
                 pre_relu=pre_relu, layout="nz2nd", loop3=loop3, atomic=atomic)


def _nchw(m: AccOps, g: GlobalTensor, t: Tile, pre_quant: tuple | None,
          pre_relu: tuple | None, atomic: tuple[str, str] | None) -> None:
    t0, t1, t2, t3, t4 = g.stride
    if g.layout == "NCHW":
        s0, n, c, h, w = g.shape
        _need(g, s0 == 1, "the first dimension must be 1 (the code writes one [N, C, H, W] "
                          "block)")
        sn, sc = t1, t2
    else:                                                    # NCDHW
        n, c, d, h, w = g.shape
        _need(g, d == 1, "D must be 1 (the code writes one D slice: N H W pixel rows)")
        sn, sc = t0, t1
    _valid(g, t, n * h * w, c, "N H W x C")
    _pixels(g, n, h, w, sn, t3, t4, 1)
    _need(g, c == 1 or sc >= n * h * w, f"the C stride must be at least N x H x W = "
                                        f"{n * h * w} (one channel's pixels)")
    # TStoreAccNCHW: nz2dn (loop0_src_stride 1), dst_stride the C stride, LOOP3 (1, 0, 0)
    m.mte_l0c_gm(t.ptr, g.ptr, n * h * w, c, t.rows, max(sc, 1), 0, 0, pre_quant=pre_quant,
                 pre_relu=pre_relu, layout=("nz2dn", 1), loop3=(1, 0, 0), atomic=atomic)
