"""TGATHER's comparison form as a2a3 runs it (pto-isa ``include/pto/npu/a2a3/TGather.hpp``,
``TGather_cmp``): staged in UB from ``tmp``'s address on.

- tmp, from byte 0: one compare bit per source element, row r at byte r x tmp.cols (the
  code adds the row stride to a byte pointer), whole 256 B compares (``vcmpvs_gt`` /
  ``_eq`` of the valid columns rounded up to whole repeats, reading src's storage there);
- from byte tmp.rows x tmp.cols: the index ramp, one u32 ``offset + i`` per element of
  src's whole tile (src.rows x src.cols), written by the scalar unit;
- after it: each row's threshold in src's type (f32: ``vconv_s322f32`` of k's words read
  as i32, whole 64-lane repeats; f16: ``vconv_s162f16`` of k's halves read as i16, whole
  128-lane repeats; i32: the first src.rows words copied by the scalar unit).

Then per valid row ``vreducev2`` (count mode, src's valid columns) keeps the indices of the
set bits, packed from dst row r's start, and ``cdst[r]`` gets their element count (a5
stores bytes). All these writes are made, checked against the UB's end.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..errors import DtypeError, PtoValueError, VerifyError
from ..isa import convert as C
from .tile import Tile
from .vector import _nd

if TYPE_CHECKING:
    from .ops import TileOps

U32 = 1 << 32
REPEAT = 256
# src type -> k_value types it reads (reinterpreted as i32 / i16 where it converts)
_K_TYPES = {"f32": ("i32", "ui32"), "i32": ("i32", "ui32"), "f16": ("i16", "ui16")}
# a scalar k stands for a tile of the path's signed word
_K_SCALAR_NP = {"f32": np.int32, "i32": np.int32, "f16": np.int16}


def gather_cmp_a2a3(m: TileOps, op: str, dst: Tile, src: Tile, kv: Tile | int,
                    cdst: Tile, tmp: Tile, offset: int, mode: str) -> None:
    """``kv``: the k_value tile, or (PTOAS's scalar-k spelling) the integer every row's
    word holds: staged and converted as if read from a tile of the type the path reads."""
    sname = src.dtype.name
    if sname not in _K_TYPES:
        raise DtypeError(f"src element type must be one of f16, f32, i32 on a2a3, got "
                         f"{sname}", op=op, operand="src")
    if sname == "i32" and mode != "EQ":
        raise DtypeError("i32 src compares with cmp_mode EQ only (the a2a3 static_assert)",
                         op=op, operand="src")
    if isinstance(kv, Tile) and kv.dtype.name not in _K_TYPES[sname]:
        raise DtypeError(f"k_value must be one of {', '.join(_K_TYPES[sname])} for {sname} "
                         f"src (the a2a3 code reads its words that way), got "
                         f"{kv.dtype.name}", op=op, operand="k_value")
    rows, cols = src.valid
    if rows == 0:
        return
    es = src.dtype.size
    lanes = REPEAT // es
    span = -(-cols // lanes) * lanes                       # whole compares per row
    if (rows - 1) * tmp.cols + span // 8 > tmp.rows * tmp.cols:
        raise VerifyError(f"tmp holds {tmp.rows * tmp.cols} bytes of compare bits but row "
                          f"{rows - 1}'s end at byte {(rows - 1) * tmp.cols + span // 8}",
                          op=op, operand="tmp")
    # thresholds, converted as the code does (whole repeats of k's words)
    k_np = np.dtype(kv.dtype.np if isinstance(kv, Tile) else _K_SCALAR_NP[sname])
    k_size = k_np.itemsize
    k_lanes = REPEAT // k_size
    if sname == "i32":
        n_k, k_bytes = src.rows, src.rows * 4
    else:
        n_k = -(-rows // k_lanes) * k_lanes
        k_bytes = n_k * k_size
    if isinstance(kv, Tile):
        kbuf, koff = m._region(kv.ptr, k_bytes, access="R", op=op, operand="k_value")
        words = kbuf[koff:koff + k_bytes]
    else:                                # the words a tile of k's would hold
        words = np.full(n_k, kv, k_np).view(np.uint8)
    if sname == "f32":
        thr = C.convert(words.view(np.int32), "i32", "f32", rnd="R")
    elif sname == "f16":
        thr = C.convert(words.view(np.int16), "i16", "f16", rnd="R")
    else:
        thr = words.view(k_np).astype(np.int64).astype(np.uint32).view(np.int32)
    # compares of whole repeats from each row's start in src's storage
    need = (rows - 1) * src.cols + span
    sbuf, soff = m._region(src.ptr, need * es, access="R", op=op, operand="src")
    flat = sbuf[soff:soff + need * es].view(src.dtype.np)
    score = flat[np.arange(rows)[:, None] * src.cols + np.arange(span)]
    t = thr[:rows, None]
    with np.errstate(invalid="ignore"):
        hit = score > t if mode == "GT" else score == t
    counts = hit[:, :cols].sum(axis=1)
    if (counts > dst.cols).any():
        r = int(np.argmax(counts > dst.cols))
        raise PtoValueError(f"row {r} selects {int(counts[r])} indices but dst rows hold "
                            f"{dst.cols} (the stream would run into the next row)", op=op,
                            operand="dst")
    if dst.rows < rows:
        raise VerifyError(f"dst has {dst.rows} rows but src {rows} valid rows (one index "
                          f"stream per row)", op=op, operand="dst")
    if cdst.rows * cdst.cols < rows:
        raise VerifyError(f"cdst holds {cdst.rows * cdst.cols} elements but src has {rows} "
                          f"valid rows", op=op, operand="cdst")
    # the staging area: bits, index ramp, thresholds
    bits_at, ramp_at = 0, tmp.rows * tmp.cols
    cvt_at = ramp_at + src.rows * src.cols * 4
    end = cvt_at + n_k * es
    tbuf, toff = m._region(tmp.ptr, end, access="W", op=op, operand="tmp")
    area = tbuf[toff:toff + end]
    for r in range(rows):
        at = bits_at + r * tmp.cols
        area[at:at + span // 8] = np.packbits(hit[r], bitorder="little")
    ramp = ((int(offset) % U32 + np.arange(src.rows * src.cols, dtype=np.int64)) % U32)
    area[ramp_at:cvt_at] = ramp.astype(np.uint32).view(np.uint8)
    area[cvt_at:end] = thr[:n_k].astype(src.dtype.np).view(np.uint8)
    index = ramp.astype(np.uint32).reshape(src.rows, src.cols)
    out = _nd(m, dst, "W", "dst").view(np.uint32)
    for r in range(rows):
        out[r, :counts[r]] = index[r, :cols][hit[r, :cols]]
    cflat = _nd(m, cdst, "W", "cdst").reshape(-1)
    cflat[:rows] = counts.astype(np.int64).astype(cdst.dtype.np)

