"""TLOAD from a GM tensor into a Mat (L1) conv tile, as pto-isa's a5 / a2a3 code issues
it (a5 TLoad.hpp ``TLOAD_CONVTILE_IMPL``; a2a3 through arch/memory/tload_common.hpp).

Every form becomes the DMA micro-ops the code issues, so bounds, pipes and the hazard
checker see the same accesses:

- NC1HWC0 -> NC1HWC0 (both targets): one W x C0 row per (n, c1, h), ``mte_gm_l1``;
- FRACTAL_Z -> FRACTAL_Z ([C1HW, N/16, 16, C0]; a2a3 also FRACTAL_Z_3D -> FRACTAL_Z_3D):
  one N/16 x 16 x C0 run per C1HW row, ``mte_gm_l1``; the 5-D [C1, H, W, N, C0] one
  N x C0 run per (c1, h, w), as NC1HWC0;
- NHWC -> NC1HWC0 (a5): per n a multi nd2nz (one group per h, W rows of C channels);
- NCHW -> NC1HWC0 (a5): per n a multi dn2nz (one group of H x W, or one per h when the
  view's rows are longer than W);
- NCHW -> FRACTAL_Z and NCDHW -> FRACTAL_Z_3D (a5): one multi dn2nz, a group per n.

The 16-bit fields the C++ narrows silently (MTE2_NZ_PARA, nValue, a2a3 burst counts and
lengths) cannot overflow for a tile inside L1's 512 KiB, and mte_gm_l1_frac checks them
again; a2a3's 16-bit gaps can, and are refused (`_gap`).

The nd2nz / dn2nz forms zero the channels from C up to the next C0 multiple (the micro
op's tail lanes); C0 blocks past that, and FRACTAL_Z rows past N, keep what was there.
NDC1HWC0 has no ptosim conv tile: NotImplementedOpError.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import DtypeError, NotImplementedOpError, VerifyError
from ..machine import Ptr
from .conv import ConvTile
from .tensor import GlobalTensor

if TYPE_CHECKING:
    from .ops import TileOps

OP = "TLOAD"


def _ceil(a: int, b: int) -> int:
    return -(-a // b)


def _fail(msg: str, operand: str | None = None) -> VerifyError:
    return VerifyError(msg, op=OP, operand=operand)


def check_conv_load(m: TileOps, t: ConvTile, g: GlobalTensor) -> None:
    """The rules every form shares: a Mat tile, a legal layout pair for the target, element
    types of one size the target loads, C0 of 32 bytes."""
    if t.tile_type != "Mat":
        raise _fail(f"a conv-tile TLOAD writes a Mat (L1) conv tile, got a {t.tile_type} "
                    f"one", "tile")
    pairs = m.target.conv_load_pairs
    if g.layout == "NDC1HWC0" or (g.layout, t.layout) == ("NCDHW", "NDC1HWC0"):
        raise NotImplementedOpError(f"the {g.layout} -> NDC1HWC0 conv-tile load (ptosim has "
                                    f"no NDC1HWC0 conv tile)", op=OP)
    if (g.layout, t.layout) not in pairs:
        legal = ", ".join(f"{a}->{b}" for a, b in sorted(pairs))
        raise _fail(f"{g.layout} -> {t.layout} is not a conv-tile load on {m.target.name}; "
                    f"legal: {legal}")
    dt, gdt = t.dtype, g.ptr.dtype
    if dt.name not in m.target.conv_load_dtypes:
        raise DtypeError(f"conv-tile loads take {', '.join(sorted(m.target.conv_load_dtypes))}"
                         f" on {m.target.name}, got {dt.name}", op=OP, operand="tile")
    if gdt.size != dt.size:
        raise DtypeError(f"the GM element ({gdt.name}, {gdt.size} B) and the tile's "
                         f"({dt.name}, {dt.size} B) must have one size", op=OP,
                         operand="src")
    if t.layout in ("NC1HWC0", "FRACTAL_Z", "FRACTAL_Z_3D") and t.shape[-1] != dt.c0:
        raise _fail(f"a {t.layout} tile's last dimension is C0 = 32 B = {dt.c0} {dt.name} "
                    f"elements, got {t.shape[-1]}", "tile")


def _fits(t: ConvTile, nbytes: int) -> None:
    if nbytes > t.nbytes:
        raise _fail(f"the load writes {nbytes} B from the tile's start, past its "
                    f"{t.nbytes} B", "tile")


def tload_conv(m: TileOps, t: ConvTile, g: GlobalTensor) -> None:
    """TLOAD(dst conv tile, src GlobalTensor) after the shared checks."""
    check_conv_load(m, t, g)
    src = g.ptr.cast(t.dtype)           # same-size element types: the bytes move as they are
    if g.layout in ("NC1HWC0", "FRACTAL_Z", "FRACTAL_Z_3D"):
        if t.layout == "NC1HWC0" or len(t.shape) == 5:
            _load_5hd(m, t, g, src)
        else:
            _load_fz(m, t, g, src)
    elif g.layout == "NHWC":
        _load_nhwc(m, t, g, src)
    elif t.layout == "NC1HWC0":
        _load_nchw(m, t, g, src)
    else:
        _load_nchw_fz(m, t, g, src)


def _gap(g: GlobalTensor, stride: int, row: int, what: str) -> None:
    """a2a3 copies 32 B-block bursts with a 16-bit gap in 32 B blocks (the code shifts the
    byte gap right by 5): refuse a stride that field cannot say rather than read elsewhere."""
    step = stride * g.ptr.dtype.size
    if step % 32 or step < row or (step - row) // 32 > 0xFFFF:
        raise _fail(f"on a2a3 the view's {what} stride ({step} B) must be a 32 B multiple, "
                    f"at least the {row} B it steps over and at most 65535 blocks more (the "
                    f"burst gap field)", "src")


def _a2a3_5hd(g: GlobalTensor, dims: tuple[int, int, int, int], row: int) -> None:
    """a2a3 TLoad5HD: per n, C1 bursts of H x W blocks when the rows of a c1 are
    contiguous and the fields allow; else per (n, c1) H bursts of W blocks."""
    c1, h, w, c0 = dims
    es = g.ptr.dtype.size
    _, gs1, gs2, _, _ = g.stride
    gap1 = (gs1 - h * w * c0) * es
    if (gs2 == w * c0 or h == 1) and gap1 >= 0 and gap1 >> 5 <= 0xFFFF and c1 <= 4095 \
            and h * w <= 0xFFFF:
        if c1 > 1:                      # one burst: no gap read
            _gap(g, gs1, h * row, "C1")
        return
    if h > 4095 or w > 0xFFFF:
        raise _fail(f"a2a3 copies H = {h} rows of W = {w} blocks per (n, c1): at most 4095 "
                    f"rows of 65535 blocks")
    if h > 1:
        _gap(g, gs2, row, "H")


def _load_5hd(m: TileOps, t: ConvTile, g: GlobalTensor, src: Ptr) -> None:
    """NC1HWC0 -> NC1HWC0: W x C0 contiguous per (n, c1, h), tile dense; the 5-D
    FRACTAL_Z [C1, H, W, N, C0] likewise (N x C0 per (c1, h, w))."""
    n, c1, h, w, c0 = t.shape
    es = t.dtype.size
    if g.shape != t.shape:
        raise _fail(f"a {g.layout} view's shape must equal the tile's {t.shape}, got "
                    f"{g.shape}", "src")
    gs0, gs1, gs2, gs3, gs4 = g.stride
    if (gs3, gs4) != (c0, 1):
        raise _fail(f"the DMA reads {'W' if t.layout == 'NC1HWC0' else 'N'} x C0 contiguous "
                    f"elements per row: the view's inner strides must be ({c0}, 1), got "
                    f"({gs3}, {gs4})", "src")
    row = w * c0 * es
    if m.target.conv_load_block_gaps and t.layout == "NC1HWC0":
        _a2a3_5hd(g, (c1, h, w, c0), row)
    elif m.target.conv_load_block_gaps:
        _a2a3_fz5(g, (n, c1, h, w), row)
    _fits(t, n * c1 * h * row)
    m.mte_gm_l1(src, t.ptr, row, nburst=(h, gs2 * es, row),
                loop=[(c1, gs1 * es, h * row), (n, gs0 * es, c1 * h * row)])


def _a2a3_fz5(g: GlobalTensor, dims: tuple[int, int, int, int], row: int) -> None:
    """a2a3 TLoadFractalZ, 5-D: the C1 x H x W rows (or H x W per c1 when there are more
    than 4095) as bursts stepped by the W stride alone. A view whose H (and C1) stride
    is not that step would be read elsewhere: refused."""
    c1, h, w, nn = dims
    gs0, gs1, gs2, _, _ = g.stride
    whole = c1 * h * w <= 4095
    need = []                           # (axis, the stride the bursts step, the view's)
    if h > 1:
        need.append(("H", w * gs2, gs1))
    if whole and c1 > 1:
        need.append(("C1", h * w * gs2, gs0))
    bad = [f"{axis} stride must be {want}, got {got}" for axis, want, got in need
           if want != got]
    if bad:
        raise _fail(f"a2a3 steps the {'C1 x ' if whole else ''}H x W rows by the W stride "
                    f"{gs2} alone: the view's {' and its '.join(bad)}", "src")
    if (c1 * h * w if whole else h * w) > 1:   # (per c1 a software loop: any C1 stride)
        _gap(g, gs2, row, "W")


def _load_fz(m: TileOps, t: ConvTile, g: GlobalTensor, src: Ptr) -> None:
    """FRACTAL_Z [C1HW, N/16, 16, C0]: N/16 x 16 x C0 contiguous per C1HW row."""
    c1hw, n1, n0, c0 = t.shape
    es = t.dtype.size
    if n0 != 16:
        raise _fail(f"a {t.layout} tile is [C1HW, N/16, 16, C0]: its third dimension must "
                    f"be 16, got {n0}", "tile")
    if g.shape != (1,) + t.shape:
        raise _fail(f"a {g.layout} view is [1, C1HW, N/16, 16, C0] = {(1,) + t.shape} for "
                    f"this tile, got {g.shape}", "src")
    _, gs1, gs2, gs3, gs4 = g.stride
    if (gs2, gs3, gs4) != (16 * c0, c0, 1):
        raise _fail(f"the DMA reads N/16 x 16 x C0 contiguous elements per row: the view's "
                    f"inner strides must be ({16 * c0}, {c0}, 1), got ({gs2}, {gs3}, "
                    f"{gs4})", "src")
    row = n1 * 16 * 32
    if m.target.conv_load_block_gaps and c1hw > 1:
        _gap(g, gs1, row, "C1HW")
    _fits(t, c1hw * row)
    m.mte_gm_l1(src, t.ptr, row, nburst=(c1hw, gs1 * es, row))


def _pixel_view(t: ConvTile, g: GlobalTensor, dims: str, outer: tuple[int, int, int, int],
                c: int) -> None:
    """An NHWC / NCHW view's (1, N, H, W) are the tile's and its C channels fit C1 x C0."""
    n, c1, h, w, c0 = t.shape
    if outer != (1, n, h, w):
        raise _fail(f"an {g.layout} view is {dims} with N, H, W the tile's ({n}, {h}, {w}), "
                    f"got {g.shape}", "src")
    if c > c1 * c0:
        raise _fail(f"C = {c} channels do not fit the tile's C1 x C0 = {c1 * c0}", "src")


def _load_nhwc(m: TileOps, t: ConvTile, g: GlobalTensor, src: Ptr) -> None:
    """NHWC [1, N, H, W, C] -> NC1HWC0: per n, a group per h of W rows x C channels."""
    n, c1, h, w, c0 = t.shape
    es = t.dtype.size
    s0, sn, sh, sw, c = g.shape
    _pixel_view(t, g, "[1, N, H, W, C]", (s0, sn, sh, sw), c)
    _, gs1, gs2, gs3, gs4 = g.stride
    if gs4 != 1:
        raise _fail(f"nd2nz reads each pixel's C channels contiguously: the view's channel "
                    f"stride must be 1, got {gs4}", "src")
    _fits(t, n * c1 * h * w * 32)
    for i in range(n):
        m.mte_gm_l1_frac(src + i * gs1, t.ptr + i * c1 * h * w * c0, "nd2nz",
                         shape=(w, c), src_layout=(gs3 * es, gs2 * es),
                         dst_group=(h, 1, h * w, w))


def _load_nchw(m: TileOps, t: ConvTile, g: GlobalTensor, src: Ptr) -> None:
    """NCHW [1, N, C, H, W] -> NC1HWC0: per n a dn2nz of H x W pixels by C channels (one
    group when the view's rows are W long, else a group per h)."""
    n, c1, h, w, c0 = t.shape
    es = t.dtype.size
    s0, sn, c, sh, sw = g.shape
    _pixel_view(t, g, "[1, N, C, H, W]", (s0, sn, sh, sw), c)
    _, gs1, gs2, gs3, gs4 = g.stride
    if gs4 != 1:
        raise _fail(f"dn2nz reads each row's W pixels contiguously: the view's W stride "
                    f"must be 1, got {gs4}", "src")
    if gs3 < w:
        # the code programs MTE2_NZ_PARA only for gs3 == W and gs3 > W
        raise _fail(f"the view's H stride {gs3} is shorter than W = {w}: pto-isa's code "
                    f"leaves MTE2_NZ_PARA unset for it", "src")
    groups, rows, outer = (1, h * w, 0) if gs3 == w else (h, w, gs3 * es)
    _fits(t, n * c1 * h * w * 32)
    for i in range(n):
        m.mte_gm_l1_frac(src + i * gs1, t.ptr + i * c1 * h * w * c0, "dn2nz",
                         shape=(rows, c), src_layout=(gs2 * es, outer),
                         dst_group=(groups, 1, h * w, w))


def _load_nchw_fz(m: TileOps, t: ConvTile, g: GlobalTensor, src: Ptr) -> None:
    """NCHW [1, N, C, H, W] -> FRACTAL_Z, NCDHW [N, C, D, H, W] -> FRACTAL_Z_3D: one dn2nz,
    a group per n: pixel r of channel c to row (c // C0) * HW + r, column n, lane c % C0."""
    c1hw, n1, n0, c0 = t.shape
    es = t.dtype.size
    if n0 != 16:
        raise _fail(f"a {t.layout} tile is [C1(D)HW, N/16, 16, C0]: its third dimension "
                    f"must be 16, got {n0}", "tile")
    if g.layout == "NCHW":
        s0, nn, c, h, w = g.shape
        _, gsn, gsc, gsh, gsw = g.stride
        if s0 != 1:
            raise _fail(f"an NCHW view is [1, N, C, H, W], got {g.shape}", "src")
        if gsc != h * w:
            raise _fail(f"H x W must be loaded whole: the view's C stride must be H x W = "
                        f"{h * w}, got {gsc}", "src")
        plane = gsc
    else:
        nn, c, d, h, w = g.shape
        gsn, gsc, gsd, gsh, gsw = g.stride
        if gsd != h * w:
            raise _fail(f"H x W must be loaded whole: the view's D stride must be H x W = "
                        f"{h * w}, got {gsd}", "src")
        plane = gsd * d
    if (gsh, gsw) != (w, 1):
        raise _fail(f"dn2nz reads a channel's pixels contiguously: the view's H, W strides "
                    f"must be ({w}, 1), got ({gsh}, {gsw})", "src")
    c1 = _ceil(c, c0)
    if c1hw % c1 or c1hw // c1 < plane:
        raise _fail(f"the tile's first dimension {c1hw} must be C1 = {c1} times at least "
                    f"{plane} pixels", "tile")
    if nn > n1 * 16:
        raise _fail(f"N = {nn} does not fit the tile's N/16 x 16 = {n1 * 16}", "tile")
    l2 = n1 * 16
    l3 = l2 * (c1hw // c1)
    _fits(t, c1hw * l2 * 32)
    m.mte_gm_l1_frac(src, t.ptr, "dn2nz", shape=(plane, c), src_layout=(gsc * es, gsn * es),
                     dst_group=(nn, l2, l3, 1))
