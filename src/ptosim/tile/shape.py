"""Semantics of the rearranging vector tile ops (rows in `ptosim.isa.tile_shape`): TTRANS,
TCONCAT.

Each family checks its static rules before a byte moves and writes what pto-isa's code
writes: a5 scatters / stores element-exact (``include/pto/npu/a5/TTrans.hpp``,
``TConcat.hpp``); a2a3 stages through UB -> UB block copies that move whole 32 B blocks per
row (``include/pto/npu/a2a3/TTrans.hpp``, ``TConcat.hpp``; `Target.vec_block_copies`).
docs/semantics.md "Further vector tile ops" records each decision and its evidence.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np

from ..dtypes import dtype as _dtype
from ..errors import (
    DtypeError,
    PtoTypeError,
    TargetError,
    VerifyError,
)
from ..layout import layout_name, subview_box
from .conv import ConvTile
from .conv_trans import conv_trans
from .extra import dtype_in, same_type, valid_of
from .tile import Tile, check_tile
from .vector import _nd

if TYPE_CHECKING:
    from .ops import TileOps

Family = Callable[["TileOps", str, dict[str, Any], dict[str, Any]], Any]

BLOCK = 32        # bytes of one UB block
REPEAT = 256      # bytes of one vector repeat
# element types with a 1, 2 or 4 byte transpose / concat (pto-isa a5 + a2a3 static_asserts)
_TYPES = ("bf16", "f16", "f32", "i16", "i32", "i8", "ui16", "ui32", "ui8")


def _legal(m: TileOps) -> list[str]:
    return [d for d in _TYPES if m.target.has_dtype(d)]


def _round_up(n: int, k: int) -> int:
    return -(-n // k) * k


# --- TTRANS -----------------------------------------------------------------------------------
def _trans(m: TileOps, op: str, v: dict[str, Any], kw: dict[str, Any]) -> None:
    """dst[j, i] = src[i, j] over src's valid region. a5: element scatters, nothing else
    written, tmp unused. a2a3 (block copies): the transpose is staged in tmp (row stride
    = src valid rows rounded up to 16 rows, 32 for 1-byte types) and each of dst's first
    ``vc`` rows receives whole 32 B blocks from tmp."""
    dst, src, tmp = v["dst"], v["src"], v.get("tmp")
    if isinstance(src, ConvTile) or isinstance(dst, ConvTile):
        conv_trans(m, op, dst, src, tmp)
        return
    dtype_in(m, op, "src", src, _legal(m))
    dt = src.dtype
    es = dt.size
    # the bits move as they are: dst needs elements of src's size, not its type; tmp is
    # scratch the code re-types to src's (TTRANS_IMPL static_asserts on both targets)
    if dst.dtype.size != es:
        raise DtypeError(f"dst elements are {dst.dtype.size} B but src's are {es} B: a "
                         f"transpose moves elements of one size", op=op, operand="dst")
    if m.target.ttrans_row_blocks and ((src.cols * es) % BLOCK or (dst.cols * es) % BLOCK):
        raise VerifyError(f"{m.target.name} transposes tiles whose rows are whole 32-byte "
                          f"blocks: src {src.cols} x {es} B, dst {dst.cols} x {es} B", op=op)
    vr, vc = src.valid
    if dst.rows < vc or dst.cols < vr:
        raise VerifyError(f"dst ({dst.rows}x{dst.cols}) cannot hold the {vc}x{vr} transpose "
                          f"of src's valid region {vr}x{vc}", op=op, operand="dst")
    bits = np.dtype(f"u{es}")
    out = valid_of(m, src, "src").view(bits).T
    ytile = 32 if es == 1 else 16
    # a2a3 TTransOperation: the staged path needs dst's row stride in whole 16- (32-) row
    # tiles and src's in whole blocks; otherwise it copies element by element
    staged = (m.target.vec_block_copies and dst.cols % ytile == 0
              and (src.cols * es) % BLOCK == 0)
    if not staged:                  # a5, or a2a3's element-copy path (no tmp needed)
        _nd(m, dst, "W", "dst").view(bits)[:vc, :vr] = out
        return
    if tmp is None:
        raise VerifyError(f"{m.target.name} transposes through tmp: pass a tmp tile of at "
                          f"least {vc} x {_round_up(vr, ytile)} elements", op=op,
                          operand="tmp")
    stride = _round_up(vr, ytile)
    need = vc * stride
    held = tmp.nbytes // es                     # tmp counted in src's elements
    if held < need:
        raise VerifyError(f"tmp holds {held} elements but the transpose of "
                          f"{vr}x{vc} needs {vc} x {stride} = {need}", op=op, operand="tmp")
    if vr == 0 or vc == 0:
        return
    flat = _nd(m, tmp, "W", "tmp").view(np.uint8).reshape(-1).view(bits)
    staging = flat[:need].reshape(vc, stride)
    staging[:, :vr] = out
    span = _round_up(vr * es, BLOCK) // es        # elements per dst row copied from tmp
    _nd(m, dst, "W", "dst").view(bits)[:vc, :span] = staging[:, :span]


# --- TCONCAT ----------------------------------------------------------------------------------
def _concat(m: TileOps, op: str, v: dict[str, Any], kw: dict[str, Any]) -> None:
    """dst[i, :vc0] = src0[i, :vc0], dst[i, vc0:vc0 + vc1] = src1[i, :vc1] for dst's valid
    rows. a2a3 (block copies): src0's row goes as whole 32 B blocks, src1's too when vc0 is
    block aligned (else element by element)."""
    dst, s0, s1 = v["dst"], v["src0"], v["src1"]
    dt = same_type(op, v, ("dst", "src0", "src1"))
    dtype_in(m, op, "dst", dst, _legal(m))
    vr = dst.valid[0]
    for n in ("src0", "src1"):
        if v[n].valid[0] != vr:
            raise VerifyError(f"{n} has {v[n].valid[0]} valid rows but dst {vr}", op=op,
                              operand=n)
    c0, c1 = s0.valid[1], s1.valid[1]
    if c0 + c1 > dst.cols:
        raise VerifyError(f"src0's {c0} + src1's {c1} valid columns exceed dst's {dst.cols} "
                          f"columns", op=op, operand="dst")
    if vr == 0:
        return
    out = _nd(m, dst, "W", "dst")
    epb = BLOCK // dt.size
    w0, w1 = c0, c1
    if m.target.vec_block_copies:
        w0 = _round_up(c0, epb)
        if c0 % epb == 0:
            w1 = _round_up(c1, epb)
    out[:vr, :w0] = np.array(_nd(m, s0, "R", "src0")[:vr, :w0])
    out[:vr, c0:c0 + w1] = np.array(_nd(m, s1, "R", "src1")[:vr, :w1])


# --- TCONCATIDX ---------------------------------------------------------------------------
_IDX_TYPES = ("i8", "i16", "i32", "ui8", "ui16", "ui32")   # the a5 / a2a3 static_asserts


def _count(raw: np.ndarray, size: int) -> np.ndarray:
    """A count word as the a5 code reads it: the index element (sign-extended as the C++
    integer promotion does) divided by its size in bytes, kept to 32 bits."""
    return ((raw.astype(np.int64).astype(np.uint64) // np.uint64(size))
            & np.uint64(0xFFFFFFFF)).astype(np.int64)


def _concat_idx(m: TileOps, op: str, v: dict[str, Any], kw: dict[str, Any]) -> None:
    """``TCONCATIDX`` (pto-isa's TCONCAT with index tiles; a5 ``TConcatIdx``): per valid
    row i of dst, n0 = src0_idx[i, 0] / its element size (the counts are bytes of index
    words, as TGATHER's cdst writes them), n1 likewise; k0 = min(n0, dst's valid cols), k1
    = min(n1, dst's valid cols - k0); dst[i, :k0] = the k0 elements from src0's row i
    start, dst[i, k0:k0 + k1] = the k1 from src1's, read straight on through the buffer
    (the counts are not clamped to the sources' columns). ``dst_idx[i, 0]``, when given,
    receives min(n0 + n1, dst's valid cols) x the index size, in the index type."""
    dst, s0, s1, i0, i1 = v["dst"], v["src0"], v["src1"], v["src0_idx"], v["src1_idx"]
    same_type(op, v, ("dst", "src0", "src1"))
    dtype_in(m, op, "dst", dst, _legal(m))
    names = ("src0_idx", "src1_idx", "dst_idx") if "dst_idx" in v else ("src0_idx", "src1_idx")
    it = same_type(op, v, names)
    dtype_in(m, op, "src0_idx", i0, _IDX_TYPES)
    vr, dvc = dst.valid
    for n in ("src0", "src1", "src0_idx", "src1_idx"):
        if v[n].valid[0] != vr:
            raise VerifyError(f"{n} has {v[n].valid[0]} valid rows but dst {vr}", op=op,
                              operand=n)
    for n in ("src0_idx", "src1_idx"):
        if v[n].valid[1] < 1:
            raise VerifyError(f"{n} needs a valid column (its column 0 holds the count)",
                              op=op, operand=n)
    didx = v.get("dst_idx")
    if didx is not None and (didx.valid[0] < vr or didx.valid[1] != 1):
        raise VerifyError(f"dst_idx must have {vr} valid rows and 1 valid column, got "
                          f"{didx.valid[0]}x{didx.valid[1]}", op=op, operand="dst_idx")
    if vr == 0:
        return
    n0 = _count(_nd(m, i0, "R", "src0_idx")[:vr, 0], it.size)
    n1 = _count(_nd(m, i1, "R", "src1_idx")[:vr, 0], it.size)
    k0 = np.minimum(n0, dvc)
    k1 = np.minimum(n1, dvc - k0)
    rows = np.arange(vr)
    if m.target.vec_block_copies:
        e0, e1 = _a2a3_concat_extents(op, dst.dtype.size, k0, k1)
    else:
        e0, e1 = k0, k1
    parts = []
    for name, t, k in (("src0", s0, e0), ("src1", s1, e1)):
        need = int((rows * t.cols + k).max())          # elements read from t's start
        buf, off = m._region(t.ptr, need * t.dtype.size, access="R", op=op, operand=name)
        parts.append(buf[off:off + need * t.dtype.size].view(t.dtype.np))
    if didx is not None:
        total = np.minimum(n0 + n1, dvc) * it.size
        _nd(m, didx, "W", "dst_idx")[:vr, 0] = total.astype(np.int64).astype(it.np)
    if m.target.vec_block_copies:         # whole last repeats may run past the row
        end = int((rows * dst.cols + np.maximum(e0, k0 + e1)).max())
        buf, off = m._region(dst.ptr, end * dst.dtype.size, access="W", op=op, operand="dst")
        flat = buf[off:off + end * dst.dtype.size].view(dst.dtype.np)
        for i in range(vr):
            a, b, d = int(e0[i]), int(e1[i]), i * dst.cols
            flat[d:d + a] = parts[0][i * s0.cols:i * s0.cols + a]
            flat[d + int(k0[i]):d + int(k0[i]) + b] = parts[1][i * s1.cols:i * s1.cols + b]
        return
    out = _nd(m, dst, "W", "dst")
    for i in range(vr):
        a, b = int(k0[i]), int(k1[i])
        out[i, :a] = parts[0][i * s0.cols:i * s0.cols + a]
        out[i, a:a + b] = parts[1][i * s1.cols:i * s1.cols + b]


def _a2a3_concat_extents(op: str, size: int, k0: np.ndarray, k1: np.ndarray
                         ) -> tuple[np.ndarray, np.ndarray]:
    """Elements a2a3's TConcatIdx really copies per row: ``vcopy`` of (repeats - 1) whole
    256 B repeats, then one repeat under a continuous mask of the WHOLE count (in 4-byte
    units for 32-bit data, else 2-byte units), so a count past one repeat copies the
    last repeat entirely; src1 goes that way only when k0 is a whole number of 32 B
    blocks (else element by element on the scalar unit: exactly k1)."""
    unit = 4 if size == 4 else 2
    per = REPEAT // size

    def vcopied(k: np.ndarray, what: str) -> np.ndarray:
        if (k == 0).any():
            raise VerifyError(f"a row copies 0 elements from {what}: a2a3's vcopy then runs "
                              f"(repeats - 1) = -1 repeats (its code has no guard)", op=op,
                              operand=what)
        reps = -(-k // per)
        last = np.minimum(-(-k * size // unit) * unit, REPEAT)
        return ((reps - 1) * REPEAT + last) // size

    e0 = vcopied(k0, "src0")
    aligned = k0 % (BLOCK // size) == 0
    e1 = k1.copy()
    if aligned.any():
        e1[aligned] = vcopied(k1[aligned], "src1")
    return e0, e1


FAMILIES: dict[str, Family] = {"trans": _trans, "concat": _concat, "concatidx": _concat_idx}


# --- TRESHAPE / TSUBVIEW: views, no data moves -----------------------------------------------
def _boxed(slayout: str) -> bool:
    return slayout != "NoneBox"


def treshape(m: TileOps, src: Tile, dtype: str | None = None, rows: int | None = None,
             cols: int | None = None, *, blayout: str | None = None,
             slayout: str | None = None, valid: tuple[int, int] | None = None) -> Tile:
    """``TRESHAPE``: ``src``'s bytes seen as another tile (element type, shape, layout) of
    the same TileType and total byte size; no byte moves (pto-isa TASSIGNs dst to src's
    address). Unset arguments keep src's; ``valid`` defaults to the whole new shape."""
    op = "TRESHAPE"
    if not isinstance(src, Tile):
        raise PtoTypeError(f"src must be a Tile, got {type(src).__name__}", op=op,
                           operand="src")
    dt = _dtype(dtype) if dtype is not None else src.dtype
    r = src.rows if rows is None else int(rows)
    c = src.cols if cols is None else int(cols)
    bl, sl = blayout or src.blayout, slayout or src.slayout
    if r * c * dt.size != src.nbytes:
        raise VerifyError(f"the new tile holds {r}x{c} {dt.name} = {r * c * dt.size} B but src "
                          f"{src.rows}x{src.cols} {src.dtype.name} = {src.nbytes} B: the total "
                          f"byte size must match", op=op, operand="dst")
    if _boxed(sl) != _boxed(src.slayout):
        raise VerifyError(f"cannot reshape between boxed and non-boxed layouts ({src.name} "
                          f"-> {layout_name(bl, sl)})", op=op, operand="dst")
    v = (r, c) if valid is None else (int(valid[0]), int(valid[1]))
    check_tile(op, src.tile_type, dt, r, c, bl, sl, src.fractal, v, src.pad, m.target)
    return Tile(src.tile_type, dt, r, c, bl, sl, src.fractal, v, src.pad, src.ptr.cast(dt))


def tsubview(m: TileOps, src: Tile, row: int, col: int, rows: int, cols: int, *,
             valid: tuple[int, int] | None = None) -> Tile:
    """``TSUBVIEW``: the ``rows x cols`` window of ``src`` at (row, col), as a tile aliasing
    src's bytes (pto-isa: dst's address = src's + row x RowStride + col x ColStride). A
    ptosim tile has no row stride of its own, so the window keeps src's: an ND window spans
    src's columns (cols = src.cols), a DN window src's rows."""
    op = "TSUBVIEW"
    if not isinstance(src, Tile):
        raise PtoTypeError(f"src must be a Tile, got {type(src).__name__}", op=op,
                           operand="src")
    if src.name not in ("ND", "DN"):
        raise VerifyError(f"src must be an ND or DN tile (boxed layouts have no row / column "
                          f"stride), got {src.name}", op=op, operand="src")
    row, col, rows, cols = int(row), int(col), int(rows), int(cols)
    nd = src.name == "ND"
    if nd and cols != src.cols:
        raise VerifyError(f"an ND window keeps src's row stride: cols must be src's {src.cols}, "
                          f"got {cols}", op=op, operand="dst")
    if not nd and rows != src.rows:
        raise VerifyError(f"a DN window keeps src's column stride: rows must be src's "
                          f"{src.rows}, got {rows}", op=op, operand="dst")
    offset = (row * src.cols + col) if nd else (col * src.rows + row)
    if row < 0 or col < 0 or offset + rows * cols > src.rows * src.cols:
        raise VerifyError(f"the {rows}x{cols} window at ({row}, {col}) leaves src's "
                          f"{src.rows}x{src.cols} storage", op=op, operand="src")
    v = (rows, cols) if valid is None else (int(valid[0]), int(valid[1]))
    if v[0] > src.valid[0] or v[1] > src.valid[1]:
        raise VerifyError(f"the view's valid region {v[0]}x{v[1]} exceeds src's "
                          f"{src.valid[0]}x{src.valid[1]}", op=op, operand="dst")
    nbytes = offset * src.dtype.size
    if nbytes % BLOCK:
        raise VerifyError(f"the window starts {nbytes} B into src: a tile address must be "
                          f"32-byte aligned", op=op, operand="src")
    check_tile(op, src.tile_type, src.dtype, rows, cols, src.blayout, src.slayout,
               src.fractal, v, src.pad, m.target)
    return Tile(src.tile_type, src.dtype, rows, cols, src.blayout, src.slayout, src.fractal,
                v, src.pad, src.ptr + offset)


def pto_subview(src: Tile, row: int, col: int, sizes: tuple[int, int],
                valid: tuple[int, int]) -> Tile:
    """``pto.subview`` as PTOAS lowers it: a tile with src's physical shape (so its row /
    column / fractal strides stay src's), its valid region the subview's, at src's address
    plus (row, col) through src's layout strides; no data moves."""
    op = "pto.subview"
    rows, cols = sizes
    vr, vc = valid
    if row < 0 or col < 0:
        raise VerifyError(f"offsets must be non-negative, got [{row}, {col}]", op=op,
                          operand="offsets")
    if not (0 <= vr <= rows and 0 <= vc <= cols):
        raise VerifyError(f"valid [{vr}, {vc}] must lie in [0, sizes] = [{rows}, {cols}]",
                          op=op, operand="valid")
    if row + rows > src.rows or col + cols > src.cols:
        raise VerifyError(f"the {rows}x{cols} window at [{row}, {col}] leaves src's "
                          f"{src.rows}x{src.cols} tile", op=op, operand="source")
    ir, ic = subview_box(src.dtype, src.slayout, src.fractal)
    if row % ir or col % ic:
        raise VerifyError(f"a {src.name} subview starts on its {ir}x{ic} inner box, got "
                          f"offsets [{row}, {col}]", op=op, operand="offsets")
    if not _boxed(src.slayout):         # the memref strides PTOAS gives the parent
        offset = row * src.cols + col if src.blayout == "RowMajor" else row + col * src.rows
    elif src.blayout == "ColMajor":
        offset = row * ic + col * src.rows
    else:
        offset = row * src.cols + col * ir
    if offset * src.dtype.size % BLOCK:
        raise VerifyError(f"the subview starts {offset * src.dtype.size} B into its source: a "
                          f"tile address must be 32-byte aligned", op=op, operand="offsets")
    return Tile(src.tile_type, src.dtype, src.rows, src.cols, src.blayout, src.slayout,
                src.fractal, (vr, vc), src.pad, src.ptr + offset, src.compact)


# --- TGET_SCALE_ADDR: a scale tile bound where the cube reads a data tile's scales -----------
_SCALE_ROLE = {"Left": "ScaleLeft", "Right": "ScaleRight"}
SHIFT_MX_ADDR = 4       # pto-isa a5 utils.hpp: scale address = data address >> 4


def tget_scale_addr(m: TileOps, dst: Tile, src: Tile) -> Tile:
    """``TGET_SCALE_ADDR``: ``dst`` (a ScaleLeft / ScaleRight tile) bound at ``src``'s (the
    Left / Right data tile's) address >> 4, where `TMATMUL_MX` reads its scales; returns
    that tile (Python tiles are values; pto-isa rebinds dst). No byte moves. a5 only."""
    op = "TGET_SCALE_ADDR"
    for name, t in (("dst", dst), ("src", src)):
        if not isinstance(t, Tile):
            raise PtoTypeError(f"{name} must be a Tile, got {type(t).__name__}", op=op,
                               operand=name)
    if not m.target.capacity["l0a_mx"]:
        raise TargetError(f"target {m.target.name} has no MX scale buffers (a5 has)", op=op)
    want = _SCALE_ROLE.get(src.tile_type)
    if want is None:
        raise VerifyError(f"src must be a Left or Right tile, got {src.tile_type}", op=op,
                          operand="src")
    if dst.tile_type != want:
        raise VerifyError(f"the scale tile of a {src.tile_type} tile is a {want} tile, got "
                          f"{dst.tile_type}", op=op, operand="dst")
    offset = src.ptr.offset >> SHIFT_MX_ADDR
    cap = m.target.capacity[dst.ptr.space]
    if offset + dst.nbytes > cap:
        raise VerifyError(f"a {dst.nbytes} B {want} tile at byte {offset} (src's {src.ptr.offset}"
                          f" >> {SHIFT_MX_ADDR}) does not fit the {cap} B {dst.ptr.space}",
                          op=op, operand="dst")
    return replace(dst, ptr=m.ptr(dst.ptr.space, dst.dtype, offset))
