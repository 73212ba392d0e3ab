"""MX (microscaling) tiles on a5 (docs/research/tile-level.md, "MX scale tiles"):
TLOAD of an MX_* scale view into a fractal-32 Mat tile, TMOV / TEXTRACT of such a tile
into ScaleLeft / ScaleRight, and TMATMUL_MX / TGEMV_MX [_ACC|_BIAS].

Scales are e8m0 bytes, one per 32 consecutive K elements: ScaleLeft is M x K/32 in ZZ-32
(16 x 2 byte boxes), ScaleRight K/32 x N in NN-32 (2 x 16 boxes). The DMA moves a pair of
scales as one 16-bit element, so the ND / DN views load through nd2nz / dn2nz on pairs.
GEMV's A scales form one row (scale g at byte g): a one-row ZZ-32 tile, loaded as one burst
and copied whole into ScaleLeft, which the cube reads as a plain row in GEMV mode.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..dtypes import dtype
from ..errors import DtypeError, NotImplementedOpError, VerifyError
from ..ops.mad import acc_layout, mx_product
from .tensor import GlobalTensor
from .tile import E8M0, Tile, check_roles, matmul_shape

if TYPE_CHECKING:
    from .ops import TileOps

_A_VIEWS = ("MX_A_ND", "MX_A_DN", "MX_A_ZZ", "ND")    # -> ZZ-32 (plain ND as MX_A_ND)
_B_VIEWS = ("MX_B_ND", "MX_B_DN", "MX_B_NN")          # -> NN-32
_FP8 = ("f8E4M3FN", "f8E5M2")
_SCALE_OF = {"ScaleLeft": "ZZ", "ScaleRight": "NN"}


def load_mx(m: TileOps, t: Tile, g: GlobalTensor) -> None:
    """TLOAD of an MX scale view into a Mat ZZ-32 (A scales) / NN-32 (B scales) tile."""
    op = "TLOAD"
    want = "ZZ" if g.layout in _A_VIEWS else "NN" if g.layout in _B_VIEWS else None
    if t.tile_type != "Mat" or t.fractal != 32 or want != t.name:
        raise VerifyError(f"MX scale views load into Mat ZZ-32 (MX_A_*) or NN-32 (MX_B_*) "
                          f"tiles; got a {g.layout} view and a {t.tile_type} {t.name}-"
                          f"{t.fractal} tile", op=op)
    if g.ptr.dtype.name != E8M0:
        raise DtypeError(f"an MX scale view holds {E8M0}, got {g.ptr.dtype.name}", op=op)
    vr, vc = t.valid
    if t.rows == 1:                           # the GEMV A scales: one plain burst
        _load_scale_row(m, t, g)
        return
    if (want == "ZZ" and vc % 2) or (want == "NN" and vr % 2):
        side = ("valid cols", vc) if want == "ZZ" else ("valid rows", vr)
        raise VerifyError(f"scales move in pairs along K: the {side[0]} ({side[1]}) must be "
                          f"even", op=op)
    s0, s1, s2, s3, s4 = g.shape
    t0, t1, t2, t3, t4 = g.stride
    if g.layout in ("MX_A_ZZ", "MX_B_NN"):    # already boxed: one burst per 16-line band
        if (s3, s4) != (16, 2) or (t2, t3, t4) != (32, 2, 1):
            raise VerifyError(f"a {g.layout} view has s3 = 16, s4 = 2 and packed boxes "
                              f"(t2, t3, t4) = (32, 2, 1); got shape {g.shape}, stride "
                              f"{g.stride}", op=op)
        band = 16 * (t.cols if want == "ZZ" else t.rows)      # bytes between bands
        for i0 in range(s0):
            m.mte_gm_l1(g.ptr + i0 * t0, t.ptr + i0 * s1 * band, 32 * s2,
                        nburst=(s1, t1, band))
        return
    plain = g.layout == "ND"
    if (s0, s1) != (1, 1) or (not plain and (s4 != 2 or t3 != 2)) or t4 != 1 \
            or (plain and s2 != 1):
        raise VerifyError(f"a {g.layout} scale view needs s0 = s1 = 1 and pairs of adjacent "
                          f"bytes (s4 = 2, t3 = 2, t4 = 1); got shape {g.shape}, stride "
                          f"{g.stride}", op=op)
    # (mode, pairs, lanes, byte stride of the strided index); lanes fill the 32 B lines
    mode, n, d, inner = {
        "ND": ("dn2nz", vc // 2, vr, t3), "MX_A_ND": ("dn2nz", vc // 2, vr, t2),
        "MX_A_DN": ("nd2nz", vc // 2, vr, t2), "MX_B_ND": ("nd2nz", vr // 2, vc, t2),
        "MX_B_DN": ("dn2nz", vr // 2, vc, t2)}[g.layout]
    blocks = (t.cols if want == "ZZ" else t.rows) // 2        # 32 B units between bands
    m.mte_gm_l1_frac(g.ptr.cast("ui16"), t.ptr.cast("ui16"), mode, shape=(n, d),
                     src_layout=(inner,), dst_group=(1, 1, blocks, 0))


def _load_scale_row(m: TileOps, t: Tile, g: GlobalTensor) -> None:
    """a5's one-row branch (``TLoadMxCubeAVector``): any A view of shape [1, 1, 1, 1, k]
    moves as one burst of the valid bytes to the tile's start."""
    op = "TLOAD"
    if tuple(g.shape[:4]) != (1, 1, 1, 1) or g.stride[4] != 1:
        raise VerifyError(f"a one-row scale tile loads from a [1, 1, 1, 1, k] view with unit "
                          f"stride; got shape {g.shape}, stride {g.stride}", op=op)
    vc = t.valid[1]           # = the view's k (TLOAD checks the view against valid)
    if vc != t.cols:
        # a5 pads (cols - valid) % 32 bytes past the burst with the tile's pad value
        raise NotImplementedOpError("a one-row scale load with valid cols < cols (its pad "
                                    "count) is not implemented", op=op)
    m.mte_gm_l1(g.ptr, t.ptr, vc, nburst=(1, vc, vc))


def move_scale(m: TileOps, op: str, dst: Tile, src: Tile, r0: int, c0: int) -> None:
    """TMOV (whole tile, r0 = c0 = 0) / TEXTRACT (a window) of a Mat ZZ-32 / NN-32 tile
    into ScaleLeft / ScaleRight."""
    need = _SCALE_OF[dst.tile_type]
    if src.name != need or src.fractal != 32 or src.dtype.name != dst.dtype.name:
        raise VerifyError(f"a {dst.tile_type} tile comes from a Mat {need}-32 tile of "
                          f"{dst.dtype.name}, got {src.name}-{src.fractal} {src.dtype.name}",
                          op=op)
    if op == "TMOV" and (src.rows, src.cols) != (dst.rows, dst.cols):
        raise VerifyError(f"Mat -> {dst.tile_type} needs equal shapes, got {src.rows}x"
                          f"{src.cols} -> {dst.rows}x{dst.cols}", op=op)
    if src.rows == 1:
        _move_scale_row(m, op, dst, src, r0, c0)
        return
    row_step, col_step = (16, 2) if need == "ZZ" else (2, 16)
    if r0 % row_step or c0 % col_step or r0 < 0 or c0 < 0:
        raise VerifyError(f"the window must start on a box: row {r0} a multiple of {row_step}, "
                          f"column {c0} of {col_step}", op=op)
    if r0 + dst.rows > src.rows or c0 + dst.cols > src.cols:
        raise VerifyError(f"a {dst.rows}x{dst.cols} window at ({r0}, {c0}) leaves the "
                          f"{src.rows}x{src.cols} source", op=op)
    window = m._matrix(src, "R")[r0:r0 + dst.rows, c0:c0 + dst.cols]
    m._store_matrix(dst, slice(None), slice(None), window)


def _move_scale_row(m: TileOps, op: str, dst: Tile, src: Tile, r0: int, c0: int) -> None:
    """a5's one-row branch of TExtractToAmx: one 16-row band of ceil(valid cols / 32) 32-byte
    boxes with equal strides, i.e. ceil(valid cols / 32) x 32 bytes copied verbatim from the
    source's start - past the end of a tile shorter than that (both footprints modelled)."""
    if dst.rows != 1:
        raise VerifyError(f"a one-row Mat scale tile moves into a one-row {dst.tile_type} "
                          f"tile, got {dst.rows} rows", op=op)
    if (r0, c0) != (0, 0):
        raise NotImplementedOpError("TEXTRACT of a one-row scale tile at a non-zero column "
                                    "(a5 counts its start in 32-byte boxes) is not "
                                    "implemented", op=op)
    if dst.cols > src.cols:
        raise VerifyError(f"a 1x{dst.cols} window leaves the 1x{src.cols} source", op=op)
    nbytes = -(-dst.valid[1] // 32) * 32
    sbuf, soff = m._region(src.ptr, nbytes, access="R", op=op, operand="src")
    dbuf, doff = m._region(dst.ptr, nbytes, access="W", op=op, operand="dst")
    dbuf[doff:doff + nbytes] = sbuf[soff:soff + nbytes]


def tmatmul_mx(m: TileOps, op: str, acc: Tile, left: Tile, scale_left: Tile, right: Tile,
               scale_right: Tile, bias: Tile | None) -> None:
    """acc (=|+=) sum_k A[i,k] 2^(sA[i,k/32]-127) B[k,j] 2^(sB[k/32,j]-127) [+ bias[j]]."""
    mv, nv, kv = matmul_shape(op, acc, left, right, bias)
    scale_left, scale_right = _scale_tiles(m, op, left, scale_left, right, scale_right, False)
    _check_mx(op, acc, left, right)
    if max(mv, nv, kv) > 4095:
        raise VerifyError(f"m, n, k must be at most 4095, got {mv}, {nv}, {kv}", op=op)
    want_l, want_r = (left.rows, left.cols // 32), (right.rows // 32, right.cols)
    for tile, data, shape in ((scale_left, left, want_l), (scale_right, right, want_r)):
        if (tile.rows, tile.cols) != shape:
            raise VerifyError(f"the {tile.tile_type} tile of a {data.rows}x{data.cols} "
                              f"{data.tile_type} tile is {shape[0]}x{shape[1]}, got "
                              f"{tile.rows}x{tile.cols}", op=op)
        _check_scale_place(op, tile, data)
    groups = -(-kv // 32)
    a = m._matrix(left, "R")[:mv, :kv]
    b = m._matrix(right, "R")[:kv, :nv]
    sa = m._matrix(scale_left, "R")[:mv, :groups]        # e8m0 2^(e-127), FF NaN
    sb = m._matrix(scale_right, "R")[:groups, :nv]
    kind = {"TMATMUL_MX": "mad", "TMATMUL_MX_ACC": "mad_acc"}.get(op, "mad_bias")
    _mx_accumulate(m, op, kind, acc, a, b, sa, sb, left, right, bias, mv, nv)


def tgemv_mx(m: TileOps, op: str, acc: Tile, left: Tile, scale_left: Tile, right: Tile,
             scale_right: Tile, bias: Tile | None) -> None:
    """TGEMV_MX[_ACC|_BIAS] (a5 ``TGEMV_MX_IMPL``): ``mad_mx`` in GEMV mode with m = 1,
    k = left's valid cols, n = right's valid cols. GEMV reads the one-row Left tile and its
    one-row ScaleLeft tile as plain rows (scale g at byte g); B and its scales as
    TMATMUL_MX reads them. acc[0, :n] (=|+=) the scaled product [+ bias]."""
    roles = [("acc", acc, "Acc"), ("left", left, "Left"), ("right", right, "Right")]
    check_roles(op, roles + ([("bias", bias, "Bias")] if bias is not None else []))
    scale_left, scale_right = _scale_tiles(m, op, left, scale_left, right, scale_right, True)
    _check_mx(op, acc, left, right)
    kv, nv = left.valid[1], right.valid[1]
    if left.rows != 1 or left.valid[0] != 1:
        raise VerifyError(f"GEMV multiplies a one-row left tile, got a {left.rows}x{left.cols} "
                          f"tile with valid {left.valid[0]}x{left.valid[1]}", op=op,
                          operand="left")
    if kv > right.rows or max(kv, nv) > 4095:
        raise VerifyError(f"k = {kv} (left's valid cols) must be at most right's {right.rows} "
                          f"rows and k, n at most 4095 (n = {nv})", op=op)
    if (acc.rows, acc.cols) != (16, right.cols) or right.cols != -(-nv // 16) * 16:
        raise VerifyError(f"mad writes one 16-row band of align16(n) columns: acc must be "
                          f"16x{-(-nv // 16) * 16} and right's cols {-(-nv // 16) * 16}, got "
                          f"acc {acc.rows}x{acc.cols}, right {right.rows}x{right.cols}",
                          op=op, operand="acc")
    groups = -(-kv // 32)
    if scale_left.rows != 1 or scale_left.cols < groups:
        raise VerifyError(f"GEMV reads one row of ceil(k / 32) = {groups} left scales: the "
                          f"ScaleLeft tile must be 1 x at least {groups}, got "
                          f"{scale_left.rows}x{scale_left.cols}", op=op, operand="scale_left")
    want_r = (right.rows // 32, right.cols)
    if (scale_right.rows, scale_right.cols) != want_r:
        raise VerifyError(f"the ScaleRight tile of a {right.rows}x{right.cols} Right tile is "
                          f"{want_r[0]}x{want_r[1]}, got {scale_right.rows}x"
                          f"{scale_right.cols}", op=op, operand="scale_right")
    for tile, data in ((scale_left, left), (scale_right, right)):
        _check_scale_place(op, tile, data)
    a = m._matrix(left, "R")[:1, :kv]
    b = m._matrix(right, "R")[:kv, :nv]
    sa = m._matrix(scale_left, "R")[:1, :groups]
    sb = m._matrix(scale_right, "R")[:groups, :nv]
    kind = {"TGEMV_MX": "mad", "TGEMV_MX_ACC": "mad_acc"}.get(op, "mad_bias")
    _mx_accumulate(m, op, kind, acc, a, b, sa, sb, left, right, bias, 1, nv)


def _check_mx(op: str, acc: Tile, left: Tile, right: Tile) -> None:
    """a5 ``CheckMadMxValid``: fp8 pairs (fp4 not modelled), f32 acc, left cols % 64."""
    types = (left.dtype.name, right.dtype.name)
    if any(t.startswith("f4") for t in types):
        family = op.removesuffix("_ACC").removesuffix("_BIAS")
        raise NotImplementedOpError(f"{family} with fp4 (x2 packed) operands is not "
                                    f"implemented; fp8 e4m3 / e5m2 are", op=op)
    if any(t not in _FP8 for t in types) or acc.dtype.name != "f32":
        raise DtypeError(f"MX operands are fp8 (e4m3 / e5m2) with an f32 accumulator, got "
                         f"{types[0]} x {types[1]} -> {acc.dtype.name}", op=op)
    if left.cols % 64:
        raise VerifyError(f"the left tile's cols ({left.cols}) must be a multiple of 64: "
                          f"K is consumed 64 at a time", op=op)


def _check_scale_place(op: str, tile: Tile, data: Tile) -> None:
    if tile.ptr.offset != data.ptr.offset >> 4:
        raise VerifyError(f"the cube reads {data.tile_type}'s scales at its address >> 4 "
                          f"= {data.ptr.offset >> 4}; the {tile.tile_type} tile is at "
                          f"{tile.ptr.offset} (place it with addr={data.ptr.offset >> 4})",
                          op=op)


def _scale_tiles(m: TileOps, op: str, left: Tile, scale_left: Tile, right: Tile,
                 scale_right: Tile, gemv: bool) -> tuple[Tile, Tile]:
    """The ScaleLeft / ScaleRight tiles the cube reads. pto-isa passes them (checked in
    place); PTOAS passes ``loc=scaling`` placeholder tiles, which a5's TMATMUL_MX /
    TGEMV_MX never read (the cube takes the scales from the MX buffers at the data tiles'
    addresses >> 4), so for those ptosim reads the scale images there, as the C++ runs."""
    kinds = {scale_left.tile_type if isinstance(scale_left, Tile) else None,
             scale_right.tile_type if isinstance(scale_right, Tile) else None}
    if kinds != {"Scaling"}:
        check_roles(op, [("scale_left", scale_left, "ScaleLeft"),
                         ("scale_right", scale_right, "ScaleRight")])
        return scale_left, scale_right
    if gemv:        # PTOAS's tgemv.mx verifier: a scale tile is shaped like its data tile
        for name, tile, data in (("a_scale", scale_left, left), ("b_scale", scale_right, right)):
            if (tile.rows, tile.cols, tile.valid) != (data.rows, data.cols, data.valid):
                raise VerifyError(f"{name} must have {data.tile_type}'s shape {data.rows}x"
                                  f"{data.cols} and valid {data.valid[0]}x{data.valid[1]} "
                                  f"(PTOAS's rule), got {tile.rows}x{tile.cols} valid "
                                  f"{tile.valid[0]}x{tile.valid[1]}", op=op, operand=name)
    if not m.target.capacity.get("l0a_mx"):
        raise VerifyError(f"target {m.target.name} has no MX scale buffers (a5 has)", op=op)
    rows_l = 1 if gemv else left.rows
    sl = Tile("ScaleLeft", dtype(E8M0), rows_l, left.cols // 32, "RowMajor", "RowMajor", 32,
              (rows_l, left.cols // 32), "Null",
              m.ptr("l0a_mx", E8M0, left.ptr.offset >> 4))
    sr = Tile("ScaleRight", dtype(E8M0), right.rows // 32, right.cols, "ColMajor", "ColMajor", 32,
              (right.rows // 32, right.cols), "Null",
              m.ptr("l0b_mx", E8M0, right.ptr.offset >> 4))
    return sl, sr


def _mx_accumulate(m: TileOps, op: str, kind: str, acc: Tile, a: np.ndarray, b: np.ndarray,
                   sa: np.ndarray, sb: np.ndarray, left: Tile, right: Tile, bias: Tile | None,
                   mv: int, nv: int) -> None:
    """The shared tail: MX product, one rounding to f32, the accumulator write."""
    sat = "nosat" if m.ctrl >> 48 & 1 else "sat"
    prod = mx_product(a, b, sa, sb, left.dtype, right.dtype, sat)   # shared with mad_mx
    c_buf, c_off = m._region(acc.ptr, acc_layout(mv, nv, acc.dtype).span * 4, op=op,
                             operand="acc", access="RW" if kind == "mad_acc" else "W")
    bias_row = None
    if bias is not None:
        if bias.dtype.name != "f32":
            raise DtypeError(f"the bias of an MX matmul is f32, got {bias.dtype.name}", op=op)
        bias_row = m._matrix(bias, "R")[0, :nv]
    m._accumulate(kind, prod, True, sat, c_buf, c_off, acc.dtype, mv, nv, bias_row)
