"""Semantics of the irregular vector tile ops (rows in `ptosim.isa.tile_sort`): TSORT32,
TRANDOM, TGATHERB, TSCATTER.

Each family binds its operands, checks its static rules before a byte moves (Vec role, ND
layout, element types, shapes), computes with numpy over the valid region and writes what
pto-isa's a5 code writes (``include/pto/npu/a5/T<Op>.hpp``). docs/semantics.md "Sorts,
gathers, scatters, random" records each decision and its evidence.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import (
    DtypeError,
    PtoTypeError,
    PtoValueError,
    SpaceError,
    TargetError,
    VerifyError,
)
from ..isa import convert as C
from ..isa.spec import OpSpec
from ..isa.tile_sort import TileRule
from ..isa.tile_vector import bind, signature
from . import extra, mxquant, shape
from .conv import ConvTile
from .gather_cmp_a2a3 import gather_cmp_a2a3
from .gather_cmp_k import scalar_k
from .tile import Tile
from .vector import _check_tile, _kind, _nd

if TYPE_CHECKING:
    from .ops import TileOps

Family = Callable[["TileOps", str, dict[str, Any], dict[str, Any]], Any]


def run(m: TileOps, spec: OpSpec, args: Sequence[Any], kw: dict[str, Any]) -> Any:
    op = spec.method or spec.name.upper()
    if spec.name in m.target.absent_tile_ops:
        raise TargetError(f"{op} does not exist on {m.target.name} (pto-isa implements it "
                          f"for a5 only; PTOAS: only supported on A5)", op=op)
    if not args:
        raise PtoTypeError(f"takes the destination tile first, then {signature(spec)}", op=op)
    first = spec.operands[0].name        # dst, or TPRINT's src
    dst, ins = args[0], list(args[1:])
    names = bind(spec, tuple(_kind(x) for x in ins))
    if names is None:
        got = ", ".join(_kind(x) for x in ins)
        raise PtoTypeError(f"operands after dst must be {signature(spec)}, got ({got})", op=op)
    rule: TileRule = spec.impl
    known = {k for _, k in spec.attrs} | set(rule.keywords) | {k for k, _ in rule.text_defaults}
    for key in kw:
        if key not in known:
            raise PtoTypeError(f"unknown keyword {key!r}; known: "
                               f"{', '.join(sorted(known)) or 'none'}", op=op)
    vals: dict[str, Any] = dict(zip(names, ins))
    vals[first] = dst
    for name, v in vals.items():
        if isinstance(v, ConvTile):
            # conv tiles are TTRANS operands only (tile/conv_trans.py checks them)
            if op != "TTRANS":
                raise SpaceError(f"{name} is a conv tile: only TTRANS takes conv tiles", op=op,
                                 operand=name)
        elif name in _FLAT_OPERANDS and isinstance(v, Tile):
            _check_vec(op, name, v)
        elif isinstance(v, Tile) or name == first:
            _check_tile(op, name, v, m, (rule.family, name) == ("histogram", "idx"))
    return FAMILIES[rule.family](m, op, vals, kw)


# operands the code addresses as a flat array whatever the tile's layout (TGATHER's per-row
# k_value / cdst: element r at the tile's start + r; pto-isa's ST uses N x 1 ColMajor tiles)
_FLAT_OPERANDS = ("k_value", "cdst")


def _check_vec(op: str, name: str, t: Tile) -> None:
    if t.tile_type != "Vec":
        raise SpaceError(f"{name} must be a Vec tile, got a {t.tile_type} tile", op=op,
                         operand=name)


def _dtype_in(op: str, name: str, t: Tile, allowed: Sequence[str], m: TileOps) -> None:
    legal = [d for d in allowed if m.target.has_dtype(d)]
    if t.dtype.name not in legal:
        raise DtypeError(f"{name} element type must be one of {', '.join(legal)}, got "
                         f"{t.dtype.name}", op=op, operand=name)


def _rows_u8(m: TileOps, t: Tile, access: str, operand: str) -> np.ndarray:
    """The whole tile as (rows, row bytes) uint8: a writable view of its buffer."""
    return _nd(m, t, access, operand).view(np.uint8).reshape(t.rows, t.cols * t.dtype.size)


# --- TSORT32 -------------------------------------------------------------------------------
BLOCK = 32                 # records per vbitsort repeat
RECORD = 8                 # bytes per (score, index) record
MAX_UB_TMP = 32 * 255      # bytes one UB->UB copy moves: the a5 tail path's threshold
REPEAT_MAX = 255           # vbitsort repeats per instruction
BLOCK_BYTES = 32
_NEG_INF = {"f32": np.uint32(0xFF800000), "f16": np.uint16(0xFC00)}


def _sort32(m: TileOps, op: str, v: dict[str, Any], kw: dict[str, Any]) -> None:
    dst, src, idx, tmp = v["dst"], v["src"], v["idx"], v.get("tmp")
    _dtype_in(op, "src", src, ("f16", "f32"), m)
    if dst.dtype.name != src.dtype.name:
        raise DtypeError(f"dst is {dst.dtype.name} but src is {src.dtype.name}: they must "
                         f"match", op=op, operand="dst")
    _dtype_in(op, "idx", idx, ("ui32",), m)
    rows, cols = dst.valid[0], src.valid[1]
    if src.valid[0] < rows:
        raise VerifyError(f"src has {src.valid[0]} valid rows but dst {rows}", op=op,
                          operand="src")
    if idx.valid[0] not in (1, rows):
        raise VerifyError(f"idx must have 1 valid row (shared) or dst's {rows}, got "
                          f"{idx.valid[0]}", op=op, operand="idx")
    blocks = -(-cols // BLOCK)
    span = blocks * BLOCK                    # records written per row (a tail is padded)
    if cols % BLOCK and tmp is None:
        raise VerifyError(f"src valid cols {cols} is not a multiple of {BLOCK}: the tail "
                          f"block needs the tmp operand", op=op, operand="src")
    if span * RECORD > dst.cols * dst.dtype.size:
        raise VerifyError(f"dst rows hold {dst.cols * dst.dtype.size} bytes but {blocks} "
                          f"blocks of {BLOCK} records take {span * RECORD}", op=op,
                          operand="dst")
    esize = src.dtype.size
    if kw.get("ptoas") and cols % BLOCK and tmp is not None:
        if idx.cols < cols:
            raise VerifyError(f"idx has {idx.cols} cols but src {cols} valid cols", op=op,
                              operand="idx")
        _sort32_ptoas(m, op, dst, src, idx, tmp, rows, cols)
        return
    if tmp is not None and cols % BLOCK:
        if tmp.dtype.name != src.dtype.name:
            raise DtypeError(f"tmp is {tmp.dtype.name} but src is {src.dtype.name}", op=op,
                             operand="tmp")
        need = span if cols * esize <= MAX_UB_TMP else BLOCK
        if tmp.rows * tmp.cols < need:
            raise VerifyError(f"tmp holds {tmp.rows * tmp.cols} elements but {need} are "
                              f"needed for {cols} valid cols", op=op, operand="tmp")
    if idx.cols < cols:
        raise VerifyError(f"idx has {idx.cols} cols but src {cols} valid cols", op=op,
                          operand="idx")
    if rows == 0 or cols == 0:
        return
    bits = np.uint32 if esize == 4 else np.uint16
    raw = _nd(m, src, "R", "src").view(bits)[:rows, :cols]
    vals = np.full((rows, span), _NEG_INF[src.dtype.name], bits)
    vals[:, :cols] = raw
    keys = vals.view(src.dtype.np).astype(np.float64)
    # pad records take the indices the hardware reads past the valid columns (inside idx)
    ix = _nd(m, idx, "R", "idx").view(np.uint32)
    have = min(span, idx.cols)
    index = np.zeros((rows, span), np.uint32)
    index[:, :have] = ix[:1 if idx.valid[0] == 1 else rows, :have]
    _rows_u8(m, dst, "W", "dst")[:rows, :span * RECORD] = _bitsort(vals, keys, index)
    if tmp is not None and cols % BLOCK:
        # the a5 tail path leaves the last row's padded copy in tmp
        flat = _nd(m, tmp, "W", "tmp").reshape(-1).view(bits)
        if cols * esize <= MAX_UB_TMP:
            flat[:span] = vals[rows - 1]
        else:
            flat[:BLOCK] = vals[rows - 1, span - BLOCK:]


def _bitsort(vals: np.ndarray, keys: np.ndarray, index: np.ndarray) -> np.ndarray:
    """vbitsort over (rows, n x 32) scores (their bits ``vals``, their values ``keys``) and
    indices: each 32-record block sorted stably by descending score (NaN last); the
    records as (rows, n x 32 x 8) bytes, f16 scores in the low 2 bytes, 0 above."""
    rows, span = vals.shape
    blocks = span // BLOCK
    kb = keys.reshape(rows, blocks, BLOCK)
    order = np.argsort(np.where(np.isnan(kb), np.inf, -kb), axis=-1, kind="stable")
    rec = np.zeros((rows, span, 2), np.uint32)
    rec[..., 0] = np.take_along_axis(vals.reshape(rows, blocks, BLOCK), order,
                                     -1).reshape(rows, span)
    rec[..., 1] = np.take_along_axis(index.reshape(rows, blocks, BLOCK), order,
                                     -1).reshape(rows, span)
    return rec.view(np.uint8).reshape(rows, -1)


# PTOAS writes its pad as pto.f32(0xFF800000) / pto.f16(0xFC00): the integers converted
# by value (4286578688.0 and, past f16's range, +inf), not the -inf bit patterns
_PTOAS_PAD: dict[str, Any] = {"f32": np.float32(0xFF800000).view(np.uint32),
              "f16": np.float16(np.inf).view(np.uint16)}


def _sort32_ptoas(m: TileOps, op: str, dst: Tile, src: Tile, idx: Tile, tmp: Tile,
                  rows: int, cols: int) -> None:
    """PTOAS's ``template_tsort32_with_tmp`` step by step, per row: the row (or, past
    8160 bytes, its last block) copied to tmp in whole 32 B blocks, its pad value stored
    into the first 32 - tail lanes of tmp's last block (``make_mask(dtype, 32 - tail)``),
    then vbitsort from tmp; whole blocks before the tail sort straight from src. tmp is
    used at its address whatever its size (the template checks none)."""
    es = src.dtype.size
    bits = np.uint32 if es == 4 else np.uint16
    tail = cols % BLOCK
    blocks = -(-cols // BLOCK)
    pad = _PTOAS_PAD[src.dtype.name]
    src_rows = _nd(m, src, "R", "src").view(bits)
    index = _nd(m, idx, "R", "idx").view(np.uint32)
    out = _rows_u8(m, dst, "W", "dst")
    shared = idx.valid[0] == 1

    def ids(r: int, start: int, n: int) -> np.ndarray:
        got = np.zeros(n, np.uint32)        # records past idx's tile take index 0
        have = index[0 if shared else r, start:start + n]
        got[:have.size] = have
        return got

    def sort_into(r: int, start: int, scores: np.ndarray) -> None:
        n = scores.size
        keys = scores.view(src.dtype.np).astype(np.float64)[None, :]
        out[r, start * RECORD:(start + n) * RECORD] = _bitsort(
            scores[None, :], keys, ids(r, start, n)[None, :])[0]

    if cols * es <= MAX_UB_TMP:
        burst = -(-cols * es // BLOCK_BYTES) * BLOCK_BYTES // es
        last = blocks * BLOCK - BLOCK
        need = max(burst, last + BLOCK) * es
        for r in range(rows):
            buf, off = m._region(tmp.ptr, need, access="W", op=op, operand="tmp")
            t = buf[off:off + need].view(bits)
            chunk = src_rows.reshape(-1)[r * src.cols:r * src.cols + burst]
            t[:chunk.size] = chunk          # (a block past the tile's end: not modelled)
            t[last:last + BLOCK - tail] = pad
            sort_into(r, 0, t[:blocks * BLOCK].copy())
        return
    loops = -(-blocks // REPEAT_MAX)
    tail_repeats = blocks % REPEAT_MAX
    for r in range(rows):
        row = src_rows[r]
        for j in range(loops):
            base = j * REPEAT_MAX * BLOCK
            if j < loops - 1:
                sort_into(r, base, row[base:base + REPEAT_MAX * BLOCK].copy())
                continue
            if tail_repeats == 0:
                continue
            direct = max(tail_repeats - 1, 0)
            if direct:
                sort_into(r, base, row[base:base + direct * BLOCK].copy())
            start = (j * REPEAT_MAX + tail_repeats - 1) * BLOCK
            burst = -(-tail * es // BLOCK_BYTES) * BLOCK_BYTES // es
            buf, off = m._region(tmp.ptr, max(burst, BLOCK) * es, access="W", op=op,
                                 operand="tmp")
            t = buf[off:off + max(burst, BLOCK) * es].view(bits)
            chunk = src_rows.reshape(-1)[r * src.cols + start:r * src.cols + start + burst]
            t[:chunk.size] = chunk
            t[:BLOCK - tail] = pad
            sort_into(r, start, t[:BLOCK].copy())


# --- TMRGSORT ------------------------------------------------------------------------------
def _records(m: TileOps, t: Tile, n: int, operand: str) -> np.ndarray:
    """The first ``n`` 8-byte records of a one-row tile, as uint64."""
    return _rows_u8(m, t, "R", operand)[0, :n * RECORD].copy().view(np.uint64)


def _scores(rec: np.ndarray, dt: str) -> np.ndarray:
    """The score of each record (f16: the low 2 bytes), as float64."""
    low = (rec & np.uint64(0xFFFFFFFF)).astype(np.uint32)
    return (low.view(np.float32) if dt == "f32"
            else low.astype(np.uint16).view(np.float16)).astype(np.float64)


def merge_lists(lists: Sequence[np.ndarray], dt: str, exhausted: bool
                ) -> tuple[np.ndarray, list[int]]:
    """vmrgsort4: repeatedly emit the largest head record (ties to the lower list); with
    ``exhausted`` stop as soon as one list has run out. Returns the emitted records and
    how many were taken from each list."""
    keys = [_scores(r, dt) for r in lists]
    pos = [0] * len(lists)
    out: list[np.uint64] = []
    total = sum(len(r) for r in lists)
    while len(out) < total:
        if exhausted and any(p == len(r) for p, r in zip(pos, lists)):
            break
        pick = -1
        for i, r in enumerate(lists):
            if pos[i] < len(r) and (pick < 0 or keys[i][pos[i]] > keys[pick][pos[pick]]):
                pick = i
        out.append(lists[pick][pos[pick]])
        pos[pick] += 1
    return np.array(out, np.uint64), pos


def _one_row(op: str, name: str, t: Tile) -> None:
    if t.rows != 1:
        raise VerifyError(f"{name} must have 1 row, got {t.rows}", op=op, operand=name)


def _mrgsort(m: TileOps, op: str, v: dict[str, Any], kw: dict[str, Any]) -> Any:
    dst = v["dst"]
    _dtype_in(op, "dst", dst, ("f16", "f32"), m)
    dt = dst.dtype.name
    per = RECORD // dst.dtype.size                    # tile elements per record
    if "src" in v or "tmp" not in v:
        if "tmp" in v or "block_len" not in v:
            got = ", ".join(n for n in v if n != "dst")
            raise PtoTypeError(f"operands after dst must be (src, block_len) or (tmp, src0, "
                               f"src1[, src2[, src3]]), got ({got})", op=op)
        return _mrgsort_blocks(m, op, dst, v["src"], v["block_len"], per)
    tiles: list[str] = [n for n in ("tmp", "src0", "src1", "src2", "src3") if n in v]
    for n in tiles:
        if v[n].dtype.name != dt:
            raise DtypeError(f"{n} is {v[n].dtype.name} but dst is {dt}: the tiles must share "
                             f"one element type", op=op, operand=n)
    for name in ("dst", *tiles):
        _one_row(op, name, v[name])
    tmp = v["tmp"]
    if tmp.cols < dst.cols:
        raise VerifyError(f"tmp has {tmp.cols} cols, fewer than dst's {dst.cols}", op=op,
                          operand="tmp")
    srcs = [v[n] for n in tiles[1:]]
    counts = [s.valid[1] // per for s in srcs]
    if sum(counts) * RECORD > tmp.nbytes:
        raise VerifyError(f"tmp holds {tmp.nbytes} bytes but the {len(srcs)} lists take "
                          f"{sum(counts) * RECORD}", op=op, operand="tmp")
    for n, c in zip(tiles[1:], counts):
        if c > 0xFFFF:
            raise VerifyError(f"{n} holds {c} records; a list length is a 16-bit field",
                              op=op, operand=n)
    exhausted = bool(kw.get("exhausted", False))
    lists = [_records(m, s, c, n) for s, c, n in zip(srcs, counts, tiles[1:])]
    merged, taken = merge_lists(lists, dt, exhausted)
    tbytes = _rows_u8(m, tmp, "W", "tmp")[0]
    tbytes[:merged.size * RECORD] = merged.view(np.uint8)
    # a5 then copies dst's valid columns, in whole 32-byte blocks, from tmp to dst
    n = min(-(-dst.valid[1] * dst.dtype.size // 32) * 32, dst.cols * dst.dtype.size)
    _rows_u8(m, dst, "W", "dst")[0, :n] = np.array(_rows_u8(m, tmp, "R", "tmp")[0, :n])
    # the executed counts (VMS4_SR): records taken from each list (0 for absent lists)
    return tuple(taken + [0] * (4 - len(taken)))


def _mrgsort_blocks(m: TileOps, op: str, dst: Tile, src: Tile, block_len: Any, per: int
                    ) -> Any:
    if src.dtype.name != dst.dtype.name:
        raise DtypeError(f"src is {src.dtype.name} but dst is {dst.dtype.name}", op=op,
                         operand="src")
    _one_row(op, "dst", dst)
    _one_row(op, "src", src)
    if isinstance(block_len, float) and not float(block_len).is_integer():
        raise PtoTypeError(f"block_len must be an integer, got {block_len}", op=op,
                           operand="block_len")
    blen, cols = int(block_len), src.valid[1]
    if blen <= 0 or blen % 64:
        raise PtoValueError(f"block_len must be a positive multiple of 64, got {blen}", op=op,
                            operand="block_len")
    group = 4 * blen
    repeat = cols // group          # a5: whole groups only; a partial last group is left alone
    if not 1 <= repeat <= 255:
        raise VerifyError(f"src valid cols {cols} must hold 1 to 255 groups of 4 x block_len = "
                          f"{group}, got {repeat}", op=op, operand="src")
    cols = repeat * group
    if dst.cols < cols:
        raise VerifyError(f"dst has {dst.cols} cols but the merge writes {cols}", op=op,
                          operand="dst")
    recs = _records(m, src, cols // per, "src")
    nrec = blen // per
    out = [merge_lists([g[i * nrec:(i + 1) * nrec] for i in range(4)], dst.dtype.name,
                       False)[0] for g in recs.reshape(-1, 4 * nrec)]
    _rows_u8(m, dst, "W", "dst")[0, :cols * dst.dtype.size] = \
        np.concatenate(out).view(np.uint8)
    return None


# --- TRANDOM -------------------------------------------------------------------------------
_PHILOX_M = (0xD2511F53, 0xCD9E8D57)
_PHILOX_W = (0x9E3779B9, 0xBB67AE85)
LANES = 64                 # u32 lanes of one vector register
_M32 = (1 << 32) - 1


def philox4x32(ctr: np.ndarray, key: tuple[int, int], rounds: int) -> np.ndarray:
    """Philox-4x32 over counters ``ctr`` (n, 4) u32 words (word 0 lowest): (n, 4) u32."""
    c = [ctr[:, i].astype(np.uint64) for i in range(4)]
    k0, k1 = key
    for _ in range(rounds):
        p0 = c[0] * np.uint64(_PHILOX_M[0])
        p1 = c[2] * np.uint64(_PHILOX_M[1])
        hi0, lo0 = p0 >> np.uint64(32), p0 & np.uint64(_M32)
        hi1, lo1 = p1 >> np.uint64(32), p1 & np.uint64(_M32)
        c = [hi1 ^ c[1] ^ np.uint64(k0), lo1, hi0 ^ c[3] ^ np.uint64(k1), lo0]
        k0, k1 = (k0 + _PHILOX_W[0]) & _M32, (k1 + _PHILOX_W[1]) & _M32
    return np.stack(c, axis=1).astype(np.uint32)


def _random(m: TileOps, op: str, v: dict[str, Any], kw: dict[str, Any]) -> None:
    dst = v["dst"]
    _dtype_in(op, "dst", dst, ("i32", "ui32"), m)
    rounds = kw.get("rounds", 10)
    if rounds not in (7, 10):
        raise PtoValueError(f"rounds must be 7 or 10, got {rounds}", op=op, operand="rounds")
    words = []
    for name in ("key0", "key1", "counter0", "counter1", "counter2", "counter3"):
        x = v[name]
        if isinstance(x, float) and not float(x).is_integer():
            raise PtoTypeError(f"{name} must be an integer, got {x}", op=op, operand=name)
        words.append(int(x) & _M32)
    key = (words[0], words[1])
    base = sum(w << (32 * i) for i, w in enumerate(words[2:]))
    rows, cols = dst.valid
    if rows == 0 or cols == 0:
        return
    # a5: each chunk of 4 x 64 outputs is lane l's four words at 4l..4l+3 (the vintlv
    # shuffle), lane l's counter = base + l; base advances 64 per chunk, and by
    # ((cols - 1) % 64) + 1 after a row's last chunk; it carries on into the next row
    chunks = -(-cols // (4 * LANES))
    last = (cols - 1) % LANES + 1
    starts = []
    for _ in range(rows):
        for j in range(chunks):
            starts.append(base)
            base += LANES if j < chunks - 1 else last
    lanes = np.arange(LANES, dtype=object)
    ctr128 = (np.array(starts, dtype=object)[:, None] + lanes[None, :]).ravel()
    ctr = np.array([[(c >> (32 * i)) & _M32 for i in range(4)] for c in ctr128 % (1 << 128)],
                   dtype=np.uint64).astype(np.uint32)
    out = philox4x32(ctr, key, rounds).reshape(rows, chunks * 4 * LANES)
    _nd(m, dst, "W", "dst").view(np.uint32)[:rows, :cols] = out[:, :cols]


# --- THISTOGRAM ----------------------------------------------------------------------------
BINS = 256


def _histogram(m: TileOps, op: str, v: dict[str, Any], kw: dict[str, Any]) -> None:
    dst, src, idx = v["dst"], v["src"], v["idx"]
    _dtype_in(op, "src", src, ("ui16", "ui32"), m)
    _dtype_in(op, "dst", dst, ("ui32",), m)
    _dtype_in(op, "idx", idx, ("ui8",), m)
    byte = kw.get("byte", 1)
    if kw.get("is_msb") is not None:       # PTOAS's legacy isMSB (THistogramOp::verify)
        legacy = 1 if kw["is_msb"] else 0
        if kw.get("byte") is not None and kw["byte"] != legacy:
            raise VerifyError("does not allow conflicting 'byte' and legacy 'isMSB' "
                              "attributes", op=op, operand="is_msb")
        byte = legacy
    top = 1 if src.dtype.size == 2 else 3
    if not isinstance(byte, (int, np.integer)) or not 0 <= int(byte) <= top:
        raise PtoValueError(f"byte must be 0 to {top} for {src.dtype.name} data, got {byte}",
                            op=op, operand="byte")
    byte = int(byte)
    rows, cols = src.valid
    if dst.valid[1] < BINS:
        raise VerifyError(f"dst needs {BINS} valid cols (one per bin), got {dst.valid[1]}",
                          op=op, operand="dst")
    if dst.rows < rows:
        raise VerifyError(f"dst has {dst.rows} rows but src {rows} valid rows", op=op,
                          operand="dst")
    # a5 static_asserts: u16 data filters through a DN index tile of one column (byte r
    # for row r), u32 data through a row-major one (row k filters byte 3 - k)
    want = "DN" if src.dtype.size == 2 else "ND"
    if idx.name != want or (want == "DN" and idx.cols != 1):
        raise VerifyError(f"{src.dtype.name} data needs a{' DN' if want == 'DN' else 'n ND'} idx "
                          f"tile{' of one column' if want == 'DN' else ''}, got {idx.name} "
                          f"{idx.rows}x{idx.cols}", op=op, operand="idx")
    ib = _nd(m, idx, "R", "idx").reshape(-1)
    if src.dtype.size == 2:
        if byte == 0 and ib.size < rows:
            raise VerifyError(f"idx holds {ib.size} bytes but src has {rows} valid rows (one "
                              f"filter byte each)", op=op, operand="idx")
    elif 3 - byte > idx.rows:
        raise VerifyError(f"byte {byte} filters on {3 - byte} higher bytes: idx needs "
                          f"{3 - byte} rows, got {idx.rows}", op=op, operand="idx")
    if rows == 0 or cols == 0:
        return
    x = _nd(m, src, "R", "src")[:rows, :cols].astype(np.uint32)
    parts = [(x >> np.uint32(8 * b)) & np.uint32(0xFF) for b in range(src.dtype.size)]
    keep = np.ones((rows, cols), bool)
    if src.dtype.size == 2:
        if byte == 0:        # a5: row r keeps values whose MSB equals idx byte r (flat)
            keep = parts[1] == ib[:rows, None]
    else:                    # a5: idx[k, 0] filters byte 3 - k for every row
        for k in range(3 - byte):
            keep &= parts[3 - k] == ib[k * idx.cols]
    counts = np.zeros((rows, BINS), np.uint32)
    for r in range(rows):
        counts[r] = np.bincount(parts[byte][r][keep[r]], minlength=BINS)
    _nd(m, dst, "W", "dst")[:rows, :BINS] = np.cumsum(counts, axis=1, dtype=np.uint32)


# --- TPRINT -------------------------------------------------------------------------------
PRINT_FORMATS = {"w8p4": (8, 4), "w8p2": (8, 2), "w10p6": (10, 6)}


def _print(m: TileOps, op: str, v: dict[str, Any], kw: dict[str, Any]) -> None:
    """``TPRINT RxC``, then one line per valid row: the valid columns right-aligned in
    ``width`` characters, separated by one space; floats fixed-point with ``precision``
    decimals (the C++ CPU simulator's format, Width8_Precision4 by default)."""
    src = v["src"]
    fmt = kw.get("format", "w8p4")
    if fmt not in PRINT_FORMATS:
        raise PtoValueError(f"format must be one of {', '.join(PRINT_FORMATS)}, got {fmt!r}",
                            op=op, operand="format")
    width, prec = PRINT_FORMATS[fmt]
    rows, cols = src.valid
    x = _nd(m, src, "R", "src")[:rows, :cols]
    floating = src.dtype.kind == "float"
    lines = [f"TPRINT {rows}x{cols}"]
    for r in range(rows):
        cells = (f"{float(e):{width}.{prec}f}" if floating else f"{int(e):{width}d}"
                 for e in x[r])
        lines.append(" ".join(cells))
    print("\n".join(lines), flush=True)


# --- TQUANT / TDEQUANT (integer) ----------------------------------------------------------
_QUANT_OUT = {"INT8_SYM": ("i8", -128, 127), "INT8_ASYM": ("ui8", 0, 255)}


def _quant(m: TileOps, op: str, v: dict[str, Any], kw: dict[str, Any]) -> None:
    dst, src, scale, offset = v["dst"], v["src"], v["scale"], v.get("offset")
    if "scaling" in v:         # MX form: (dst, src, exp, max, scaling)
        qt = kw.get("quant_type", "MXFP8")
        if qt not in mxquant.MX_TYPES:
            raise PtoValueError(f"quant_type must be MXFP8 or MXFP4_E2M1 with exp, max and "
                                f"scaling tiles, got {qt!r}", op=op, operand="quant_type")
        if "exp_zz" in v or "store_mode" in kw:
            mxquant.mx_quant_zz(m, op, dst, src, scale, v["offset"], v["scaling"],
                                v.get("exp_zz"), kw)
            return
        mxquant.mx_quant(m, op, dst, src, scale, v["offset"], v["scaling"], kw)
        return
    qt = kw.get("quant_type", "INT8_SYM" if offset is None else "INT8_ASYM")
    if qt not in _QUANT_OUT:
        raise PtoValueError(f"quant_type must be INT8_SYM or INT8_ASYM with scale[, offset] "
                            f"tiles (the MX formats take exp, max and scaling tiles), got "
                            f"{qt!r}", op=op, operand="quant_type")
    for key in ("scale_alg", "grp_axis", "interleave", "store_mode", "cpu_sim_compat"):
        if key in kw:
            raise PtoTypeError(f"{key} belongs to the MX formats, not {qt}", op=op,
                               operand=key)
    if (qt == "INT8_ASYM") != (offset is not None):
        raise PtoTypeError(f"{qt} {'needs' if offset is None else 'takes no'} offset tile",
                           op=op, operand="offset")
    out, lo, hi = _QUANT_OUT[qt]
    _dtype_in(op, "src", src, ("f32",), m)
    _dtype_in(op, "dst", dst, (out,), m)
    _dtype_in(op, "scale", scale, ("f32",), m)
    if offset is not None:
        _dtype_in(op, "offset", offset, ("f32",), m)
    rows, cols = src.valid
    if dst.rows < rows or dst.cols < cols:
        raise VerifyError(f"dst is {dst.rows}x{dst.cols} but src's valid region is "
                          f"{rows}x{cols}", op=op, operand="dst")
    for name, t in (("scale", scale), ("offset", offset)):
        if t is not None and t.rows * t.cols < rows:
            raise VerifyError(f"{name} holds {t.rows * t.cols} values but src has {rows} valid "
                              f"rows", op=op, operand=name)
    if rows == 0 or cols == 0:
        return
    # a5: per row r the scale (and offset) at flat element r of its tile (vlds BRC_B32 at
    # offset r), y = x * scale (+ offset) in f32, rounded half to even once, saturated
    x = _nd(m, src, "R", "src")[:rows, :cols]
    s = _nd(m, scale, "R", "scale").reshape(-1)[:rows, None]
    y = x * s
    if offset is not None:
        y = y + _nd(m, offset, "R", "offset").reshape(-1)[:rows, None]
    with np.errstate(invalid="ignore"):
        q = np.clip(np.rint(np.nan_to_num(y.astype(np.float64), nan=0.0)), lo, hi)
    _nd(m, dst, "W", "dst")[:rows, :cols] = q.astype(dst.dtype.np)


def _dequant(m: TileOps, op: str, v: dict[str, Any], kw: dict[str, Any]) -> None:
    dst, src, scale, offset = v["dst"], v["src"], v["scale"], v["offset"]
    _dtype_in(op, "dst", dst, ("f32",), m)
    _dtype_in(op, "src", src, ("i8", "i16"), m)
    for name, t in (("scale", scale), ("offset", offset)):
        if t.dtype.name != "f32":
            raise DtypeError(f"{name} is {t.dtype.name} but dst is f32: they must match",
                             op=op, operand=name)
    rows, cols = dst.valid
    if src.valid != (rows, cols):
        raise VerifyError(f"src's valid region {src.valid[0]}x{src.valid[1]} differs from "
                          f"dst's {rows}x{cols}", op=op, operand="src")
    for name, t in (("scale", scale), ("offset", offset)):
        if t.valid[0] != rows:
            raise VerifyError(f"{name} has {t.valid[0]} valid rows but dst {rows}", op=op,
                              operand=name)
    if rows == 0 or cols == 0:
        return
    # a5: (f32(x) - offset[r, 0]) * scale[r, 0], each step rounded in f32
    x = _nd(m, src, "R", "src")[:rows, :cols].astype(np.float32)
    s = _nd(m, scale, "R", "scale")[:rows, :1]
    o = _nd(m, offset, "R", "offset")[:rows, :1]
    _nd(m, dst, "W", "dst")[:rows, :cols] = (x - o) * s


# --- TINTERLEAVE / TDEINTERLEAVE -----------------------------------------------------------
_INTLV_T = ("i8", "ui8", "i16", "ui16", "i32", "ui32", "f16", "f32", "bf16")


def _pairs(op: str, v: dict[str, Any], names: Sequence[str], m: TileOps) -> tuple[int, int]:
    """Shared rules: one element type (a5 list), even valid columns, and (returned) dst0's
    valid region, which every named tile must share."""
    first = v["dst0"]
    _dtype_in(op, "dst0", first, _INTLV_T, m)
    for n in names:
        if v[n].dtype.name != first.dtype.name:
            raise DtypeError(f"{n} is {v[n].dtype.name} but dst0 is {first.dtype.name}: the "
                             f"tiles must share one element type", op=op, operand=n)
    rows, cols = first.valid
    for n in ("dst0", *names):
        if v[n].valid[1] % 2:
            raise VerifyError(f"{n}'s valid cols {v[n].valid[1]} must be even", op=op,
                              operand=n)
    return rows, cols


def _same_region(op: str, v: dict[str, Any], names: Sequence[str], shape: tuple[int, int]
                 ) -> None:
    for n in names:
        if v[n].valid != shape:
            raise VerifyError(f"{n}'s valid region {v[n].valid[0]}x{v[n].valid[1]} differs "
                              f"from {shape[0]}x{shape[1]}", op=op, operand=n)


def _interleave(m: TileOps, op: str, v: dict[str, Any], kw: dict[str, Any]) -> None:
    names = ("dst1", "src1", "src0")
    rows, cols = _pairs(op, v, names, m)
    _same_region(op, v, names, (rows, cols))
    h = cols // 2
    a, b = _read_valid(m, v["src0"], "src0"), _read_valid(m, v["src1"], "src1")
    # a5: vintlv per 256-byte chunk of each half row = one interleave of the half rows:
    # dst0 takes the first halves, dst1 the second
    for dst, part in (("dst0", slice(0, h)), ("dst1", slice(h, cols))):
        out = np.empty((rows, cols), a.dtype)
        out[:, 0::2], out[:, 1::2] = a[:, part], b[:, part]
        _nd(m, v[dst], "W", dst)[:rows, :cols] = out


def _deinterleave(m: TileOps, op: str, v: dict[str, Any], kw: dict[str, Any]) -> None:
    two = "src0" in v
    names = ("dst1", "src1", "src0") if two else ("dst1", "src1")
    rows, cols = _pairs(op, v, names, m)
    _same_region(op, v, ("dst1",), (rows, cols))
    if two:
        _same_region(op, v, ("src1", "src0"), (rows, cols))
        h = cols // 2
        a, b = _read_valid(m, v["src0"], "src0"), _read_valid(m, v["src1"], "src1")
        outs = {"dst0": np.concatenate([a[:, 0::2], b[:, 0::2]], axis=1),
                "dst1": np.concatenate([a[:, 1::2], b[:, 1::2]], axis=1)}
        assert outs["dst0"].shape[1] == 2 * h
    else:                                  # one source of twice the columns
        _same_region(op, v, ("src1",), (rows, 2 * cols))
        x = _read_valid(m, v["src1"], "src")
        outs = {"dst0": x[:, 0::2], "dst1": x[:, 1::2]}
    for dst, out in outs.items():
        _nd(m, v[dst], "W", dst)[:rows, :cols] = out


def _read_valid(m: TileOps, t: Tile, operand: str) -> np.ndarray:
    r, c = t.valid
    return np.array(_nd(m, t, "R", operand)[:r, :c])


# --- TGATHERB ------------------------------------------------------------------------------
GATHER_BLOCK = 32          # bytes per gathered block


def _gatherb(m: TileOps, op: str, v: dict[str, Any], kw: dict[str, Any]) -> None:
    dst, src, offs = v["dst"], v["src"], v["offsets"]
    if dst.dtype.size not in (1, 2, 4):
        raise DtypeError(f"dst element type must be 1, 2 or 4 bytes, got {dst.dtype.name}",
                         op=op, operand="dst")
    if src.dtype.name != dst.dtype.name:
        raise DtypeError(f"src is {src.dtype.name} but dst is {dst.dtype.name}", op=op,
                         operand="src")
    _dtype_in(op, "offsets", offs, ("ui32", "i32"), m)
    rows, cols = dst.valid
    nblk = -(-cols * dst.dtype.size // GATHER_BLOCK)
    if offs.rows < rows or offs.cols < nblk:
        raise VerifyError(f"offsets is {offs.rows}x{offs.cols} but dst's valid {rows}x{cols} "
                          f"needs {rows}x{nblk} block offsets", op=op, operand="offsets")
    if rows == 0 or cols == 0:
        return
    o = _nd(m, offs, "R", "offsets").view(np.uint32)[:rows, :nblk].astype(np.int64)
    sbytes = _nd(m, src, "R", "src").view(np.uint8).reshape(-1)
    bad = (o % GATHER_BLOCK != 0) | (o + GATHER_BLOCK > sbytes.size)
    if bad.any():
        r, b = (int(x) for x in np.argwhere(bad)[0])
        raise PtoValueError(f"offsets[{r}, {b}] = {int(o[r, b])}: a block offset must be a "
                            f"multiple of {GATHER_BLOCK} with its {GATHER_BLOCK} bytes inside "
                            f"src's {sbytes.size}", op=op, operand="offsets")
    got = sbytes[o[..., None] + np.arange(GATHER_BLOCK)].reshape(rows, nblk * GATHER_BLOCK)
    _rows_u8(m, dst, "W", "dst")[:rows, :cols * dst.dtype.size] = got[:, :cols * dst.dtype.size]


_SCATTER_T = ("i8", "ui8", "i16", "ui16", "i32", "ui32", "i64", "ui64", "f16", "f32", "bf16")


# --- mask patterns (TGATHER / TSCATTER mask forms) ------------------------------------------
# pattern -> (group width F, selected lane in the group): read right to left, P0101 keeps
# lanes 0, 2, 4 ... (a5 GetMaskVal: pintlv of PAT_ALL with PAT_ALLF)
PATTERNS = {"P1111": (1, 0), "P0101": (2, 0), "P1010": (2, 1), "P0001": (4, 0),
            "P0010": (4, 1), "P0100": (4, 2), "P1000": (4, 3)}


def _pattern(op: str, kw: dict[str, Any]) -> tuple[int, int]:
    p = kw.get("mask_pattern")
    if p not in PATTERNS:
        raise PtoValueError(f"mask_pattern must be one of {', '.join(PATTERNS)}, got {p!r}",
                            op=op, operand="mask_pattern")
    return PATTERNS[p]


def _continuous(op: str, name: str, t: Tile) -> None:
    if t.valid[1] != t.cols:
        raise VerifyError(f"{name} must be continuous: valid cols {t.valid[1]} != cols "
                          f"{t.cols}", op=op, operand=name)


# --- TGATHER -------------------------------------------------------------------------------
_GATHER_T = ("i8", "ui8", "i16", "ui16", "i32", "ui32", "i64", "ui64", "f16", "f32", "bf16")
_GATHER_INDEX_SIZES = {1: (2,), 2: (2, 4), 4: (4,), 8: (4,)}   # the a5 gather paths
_INDEX_T = ("i16", "ui16", "i32", "ui32")


def _gather(m: TileOps, op: str, v: dict[str, Any], kw: dict[str, Any]) -> None:
    dst, src = v["dst"], v["src"]
    if "k_value" in v or "k" in v or kw.get("cmp_mode") is not None:
        if "indices" in v or "offset" not in v:
            raise PtoTypeError("the comparison form takes (dst, src, k_value, cdst, tmp, "
                               "offset, cmp_mode=\"GT\" | \"EQ\") (k_value a tile, or "
                               "one number k for every row)", op=op, operand="k_value")
        return _gather_cmp(m, op, v, kw)
    if "indices" not in v:
        return _gather_mask(m, op, dst, src, kw)
    if kw.get("mask_pattern") is not None:
        raise PtoTypeError("takes either an indices tile or mask_pattern, not both", op=op,
                           operand="mask_pattern")
    idx = v["indices"]
    _dtype_in(op, "dst", dst, _GATHER_T, m)
    if src.dtype.name != dst.dtype.name:
        raise DtypeError(f"src is {src.dtype.name} but dst is {dst.dtype.name}", op=op,
                         operand="src")
    _dtype_in(op, "indices", idx, _INDEX_T, m)
    sizes = _GATHER_INDEX_SIZES[dst.dtype.size]
    if idx.dtype.size not in sizes:
        bits = " or ".join(f"{8 * b}" for b in sizes)
        raise DtypeError(f"{dst.dtype.name} data takes {bits}-bit indices, got "
                         f"{idx.dtype.name}", op=op, operand="indices")
    _continuous(op, "dst", dst)
    _continuous(op, "indices", idx)
    rows, cols = dst.valid
    if idx.valid[0] < rows or idx.valid[1] < cols:
        raise VerifyError(f"indices' valid region {idx.valid[0]}x{idx.valid[1]} does not "
                          f"cover dst's {rows}x{cols}", op=op, operand="indices")
    if rows == 0 or cols == 0:
        return
    k = _nd(m, idx, "R", "indices")[:rows, :cols].view(
        np.uint32 if idx.dtype.size == 4 else np.uint16).astype(np.int64)
    size = src.rows * src.cols
    if (k >= size).any():
        r, c = (int(x) for x in np.argwhere(k >= size)[0])
        raise PtoValueError(f"indices[{r}, {c}] = {int(k[r, c])} is outside src's {size} "
                            f"elements", op=op, operand="indices")
    flat = _nd(m, src, "R", "src").reshape(-1)
    _nd(m, dst, "W", "dst")[:rows, :cols] = flat[k]


def _gather_mask(m: TileOps, op: str, dst: Tile, src: Tile, kw: dict[str, Any]) -> None:
    width, lane = _pattern(op, kw)
    _dtype_in(op, "src", src, _SCATTER_T, m)
    if dst.dtype.size != src.dtype.size:
        raise DtypeError(f"dst ({dst.dtype.name}) and src ({src.dtype.name}) must have one "
                         f"element size", op=op, operand="dst")
    _continuous(op, "dst", dst)
    rows, cols = src.valid
    picked = _nd(m, src, "R", "src")[:rows, lane:cols:width]
    n = picked.size
    if n > dst.rows * dst.cols:
        raise VerifyError(f"the {n} selected elements do not fit dst's {dst.rows * dst.cols}",
                          op=op, operand="dst")
    # a5 squeezes each row's selected lanes and stores them as one stream from dst's start
    # (vsqz + vstur), ignoring dst's row stride
    out = _nd(m, dst, "W", "dst").reshape(-1)
    out[:n] = np.ascontiguousarray(picked).reshape(-1).view(dst.dtype.np)


# --- TGATHER comparison form ----------------------------------------------------------------
_CMP_SRC_T = ("i8", "ui8", "i16", "ui16", "i32", "ui32", "f16", "f32")   # a5 static_assert
CMP_LANES = 64              # b32 lanes of one compare; the index vector steps by this
U32 = 1 << 32


def _gather_cmp(m: TileOps, op: str, v: dict[str, Any], kw: dict[str, Any]) -> None:
    """``TGATHER<cmpMode>(dst, src, k_value, cdst, tmp, offset)``, a5
    (``TGather_cmp``): per src valid row r, the indices of the lanes whose score compares
    GT / EQ to ``k_value[r]`` are squeezed and stored as one u32 stream from dst row r's
    start; ``cdst[r]`` receives the stream's byte count (the AR register). docs/semantics.md
    TGATHER has the per-type scores and thresholds. A number ``k`` in k_value's place
    (PTOAS's scalar-k spelling) is every row's k_value word (`gather_cmp_k`)."""
    dst, src, cdst, off = v["dst"], v["src"], v["cdst"], v["offset"]
    kv: Tile | int = v["k_value"] if "k_value" in v else scalar_k(op, src.dtype.name, v["k"])
    mode = kw.get("cmp_mode")
    if mode not in ("GT", "EQ"):
        raise PtoValueError(f"cmp_mode must be \"GT\" or \"EQ\", got {mode!r}", op=op,
                            operand="cmp_mode")
    _dtype_in(op, "dst", dst, ("i32", "ui32"), m)
    _dtype_in(op, "cdst", cdst, ("i32", "ui32"), m)
    if isinstance(off, (bool, np.bool_)) or not isinstance(off, (int, np.integer)) \
            or not -(1 << 31) <= int(off) < U32:
        raise PtoValueError(f"offset must be an integer in [-2**31, 2**32), got {off!r}",
                            op=op, operand="offset")
    if not m.target.tgather_cmp:          # a2a3 stages the compare in tmp
        return gather_cmp_a2a3(m, op, dst, src, kv, cdst, v["tmp"], int(off), mode)
    _dtype_in(op, "src", src, _CMP_SRC_T, m)
    if isinstance(kv, Tile):
        _dtype_in(op, "k_value", kv, ("ui16", "ui32"), m)
    if src.dtype.name == "ui16" and mode == "GT":
        # TGather_cmp dispatches every 2-byte type but int16_t GT to TGather_b16_eq
        raise DtypeError("ui16 src with cmp_mode GT runs the equality path in the a5 code "
                         "(its dispatch sends only i16 to the b16 GT path)", op=op,
                         operand="src")
    rows, cols = src.valid
    if dst.rows < rows:
        raise VerifyError(f"dst has {dst.rows} rows but src {rows} valid rows (one index "
                          f"stream per row)", op=op, operand="dst")
    for name, t in (("k_value", kv), ("cdst", cdst)):
        if isinstance(t, Tile) and t.rows * t.cols < rows:
            raise VerifyError(f"{name} holds {t.rows * t.cols} elements but src has {rows} "
                              f"valid rows", op=op, operand=name)
    esize = src.dtype.size
    # lanes each row visits: whole 64-lane compares (1-byte data: 128-element loads, two
    # compares each); the float / 4-byte paths predicate the valid columns, the 1- and
    # 2-byte paths compare every lane of the last load, reading src's storage past them
    step = 2 * CMP_LANES if esize == 1 else CMP_LANES
    span = -(-cols // step) * step
    whole = esize != 4
    if whole and rows and (rows - 1) * src.cols + span > src.rows * src.cols:
        raise VerifyError(f"row {rows - 1}'s compares read {span} elements from its start, "
                          f"past src's end ({src.rows}x{src.cols}): the a5 {src.dtype.name} "
                          f"path compares whole {step}-element loads", op=op, operand="src")
    if rows == 0:
        return
    flat = _nd(m, src, "R", "src").reshape(-1)
    if isinstance(kv, Tile):
        k = _nd(m, kv, "R", "k_value").reshape(-1)[:rows].astype(np.int64)
    else:                                    # one u32 word for every row
        k = np.full(rows, kv % U32, np.int64)
    n = span if whole else cols
    starts = np.arange(rows)[:, None] * src.cols
    score = flat[starts + np.arange(n)]
    hit = _cmp_hits(op, src.dtype.name, score, k, mode)
    base = (int(off) % U32) + np.arange(rows, dtype=np.int64)[:, None] * span
    index = ((base + np.arange(n)) % U32).astype(np.uint32)
    counts = hit.sum(axis=1)
    if (counts > dst.cols).any():
        r = int(np.argmax(counts > dst.cols))
        raise PtoValueError(f"row {r} selects {int(counts[r])} indices but dst rows hold "
                            f"{dst.cols} (the stream would run into the next row)", op=op,
                            operand="dst")
    out = _nd(m, dst, "W", "dst").view(np.uint32)
    for r in range(rows):
        out[r, :counts[r]] = index[r][hit[r]]
    # sprsts stores AR, the stream's byte offset: 4 bytes per index
    _nd(m, cdst, "W", "cdst").reshape(-1).view(np.uint32)[:rows] = counts * 4


def _cmp_hits(op: str, name: str, score: np.ndarray, k: np.ndarray, mode: str) -> np.ndarray:
    """Which lanes compare GT / EQ to their row's k, per the a5 path of src's type."""
    kk = k[:, None]
    if name == "f16":
        # f16 -> f32 scores; k's low 16 bits read as i16, converted to f32; float compare
        t = (kk & 0xFFFF).astype(np.uint16).view(np.int16).astype(np.float32)
        s = score.astype(np.float32)
        with np.errstate(invalid="ignore"):
            return s > t if mode == "GT" else s == t
    if name == "f32":
        # vcvt f32 -> s32 ROUND_R without saturation (NaN / inf -> 0, wraps), then an
        # unsigned compare of those bits with k
        s = C.convert(score, "f32", "i32", rnd="R", sat=False).view(np.uint32)
    else:
        # integers as unsigned bits (1- and 2-byte data zero-extended to 32 bits)
        s = score.view({1: np.uint8, 2: np.uint16, 4: np.uint32}[score.dtype.itemsize])
    s = s.astype(np.int64)
    if name in ("i32", "ui32", "f32"):
        t = kk                              # vcmps with the scalar k
    else:
        # k broadcast as a float then read as u32 (8-bit data: k as i32 first)
        kf = (kk.astype(np.int32) if name in ("i8", "ui8") else kk).astype(np.float32)
        if (kf < 0).any() or (kf >= U32).any():
            r = int(np.argmax(((kf < 0) | (kf >= U32)).ravel()))
            raise PtoValueError(f"k_value[{r}] = {int(k[r])}: the a5 {name} path converts "
                                f"it through f32 to u32, undefined outside [0, 2**32)",
                                op=op, operand="k_value")
        t = kf.astype(np.int64)
    return s > t if mode == "GT" else s == t


# --- TSCATTER ------------------------------------------------------------------------------
def _scatter(m: TileOps, op: str, v: dict[str, Any], kw: dict[str, Any]) -> None:
    dst, src = v["dst"], v["src"]
    _dtype_in(op, "src", src, _SCATTER_T, m)
    if "indexes" not in v:
        return _scatter_mask(m, op, dst, src, kw)
    if kw.get("mask_pattern") is not None:
        raise PtoTypeError("takes either an indexes tile or mask_pattern, not both", op=op,
                           operand="mask_pattern")
    idx = v["indexes"]
    if dst.dtype.name != src.dtype.name:
        raise DtypeError(f"dst is {dst.dtype.name} but src is {src.dtype.name}", op=op,
                         operand="dst")
    _dtype_in(op, "indexes", idx, ("i16", "ui16", "i32", "ui32"), m)
    want = 4 if src.dtype.size >= 4 else 2
    if idx.dtype.size != want:
        raise DtypeError(f"{src.dtype.name} data takes {want * 8}-bit indexes, got "
                         f"{idx.dtype.name}", op=op, operand="indexes")
    rows, cols = src.valid
    if idx.valid[0] < rows or idx.valid[1] < cols:
        raise VerifyError(f"indexes' valid region {idx.valid[0]}x{idx.valid[1]} does not "
                          f"cover src's {rows}x{cols}", op=op, operand="indexes")
    if rows == 0 or cols == 0:
        return
    k = _nd(m, idx, "R", "indexes")[:rows, :cols].astype(np.int64).ravel()
    size = dst.rows * dst.cols
    bad = (k < 0) | (k >= size)
    if bad.any():
        i = int(np.argmax(bad))
        raise PtoValueError(f"indexes[{i // cols}, {i % cols}] = {int(k[i])} is outside dst's "
                            f"{size} elements", op=op, operand="indexes")
    vals = _nd(m, src, "R", "src")[:rows, :cols].ravel()
    # duplicates: the last source element in row-major order wins (the CPU simulator's
    # loop order; numpy does not promise an order for repeated fancy indices)
    _, first_rev = np.unique(k[::-1], return_index=True)
    keep = k.size - 1 - first_rev
    _nd(m, dst, "W", "dst").reshape(-1)[k[keep]] = vals[keep]


def _scatter_mask(m: TileOps, op: str, dst: Tile, src: Tile, kw: dict[str, Any]) -> None:
    width, lane = _pattern(op, kw)
    if dst.dtype.name != src.dtype.name:
        raise DtypeError(f"dst is {dst.dtype.name} but src is {src.dtype.name}", op=op,
                         operand="dst")
    rows, cols = src.valid
    if dst.valid != (rows, cols * width):
        raise VerifyError(f"dst's valid region {dst.valid[0]}x{dst.valid[1]} must be "
                          f"{rows}x{cols * width} (src's rows, {width} x its cols)", op=op,
                          operand="dst")
    out = np.zeros((rows, cols * width), dst.dtype.np)
    out[:, lane::width] = _nd(m, src, "R", "src")[:rows, :cols]
    _nd(m, dst, "W", "dst")[:rows, :cols * width] = out


FAMILIES: dict[str, Family] = {
    "sort32": _sort32, "mrgsort": _mrgsort, "random": _random, "gatherb": _gatherb,
    "histogram": _histogram, "print": _print, "gather": _gather,
    "quant": _quant, "dequant": _dequant, "interleave": _interleave,
    "deinterleave": _deinterleave,
    "scatter": _scatter,
}
# the families of the further rows (isa.tile_extra, isa.tile_shape) share this dispatch
FAMILIES.update(extra.FAMILIES)
FAMILIES.update(shape.FAMILIES)


def method(spec: OpSpec) -> Callable[..., Any]:
    """The Python face of an irregular tile row: ``m.TSORT32(dst, src, idx)``; TMRGSORT's
    multi-list form returns the executed counts of its four lists."""
    def call(self: TileOps, *args: Any, **kw: Any) -> Any:
        return run(self, spec, args, kw)
    call.__name__ = call.__qualname__ = spec.method or spec.name.upper()
    ins = ", ".join(o.name for o in spec.operands[1:])
    keys = "".join(f", {k}=" for _, k in spec.attrs)
    call.__doc__ = (f"``{spec.mnemonic}``: {spec.method}(dst, {ins}{keys}); see "
                    f"docs/semantics.md, Sorts, gathers, scatters, random.")
    return call
