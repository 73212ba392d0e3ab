"""Lean unobserved plans (`fastpath`) for vector tile families beyond the plain elementwise
ones: the family's static choices (which operand broadcasts, store widths, the mask's row
bytes) are made once per call shape, its array helpers (`vector._reduce_rows`,
`vector._argext`, `alu.compare` ...) run on cached views per call. Each plan covers the
common shapes of its family and returns None otherwise (the family function then runs);
tests/test_tile_fastpath.py checks every family against the observed path, byte for byte.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..isa import alu
from ..isa.tile_vector import VecRule
from . import vector
from .fastpath import Plan, nd_view, quiet, ufunc_plan
from .tile import Tile

if TYPE_CHECKING:
    from .ops import TileOps

Factory = Callable[["TileOps", str, VecRule, dict[str, Any], dict[str, Any]], Plan | None]


def _valid(m: TileOps, t: Tile, operand: str, rows: int | None = None,
           cols: int | None = None) -> np.ndarray:
    vr, vc = t.valid
    return nd_view(m, t, operand)[:vr if rows is None else rows, :vc if cols is None else cols]


def _rowreduce(m: TileOps, op: str, rule: VecRule, v: dict[str, Any],
               kw: dict[str, Any]) -> Plan | None:
    src, dst = v["src"], v["dst"]
    if dst.valid[0] != src.valid[0]:
        return None
    x, out = _valid(m, src, "src"), _valid(m, dst, "dst", cols=1)
    lane, dt = rule.lane, dst.dtype
    if lane == "sum" and dt.name == "f32" and src.dtype.name == "f32":
        return _rowsum_f32(x, out[:, 0])

    def run(a: Sequence[Any]) -> None:
        r = quiet(vector._reduce_rows, x, lane, dt)
        out[...] = r.reshape(-1, 1)        # (the family's astype and store, in one)
    return run


def _rowsum_f32(x: np.ndarray, out: np.ndarray) -> Plan | None:
    """f32 row sums in `vector._chunk_sum`'s order, straight into dst's column: every
    256 B chunk's pairwise sum in one call, then the chunks added left to right onto
    +0.0 (so a row of -0.0 sums to +0.0, as the family's zero accumulator gives)."""
    rows, cols = x.shape
    step = vector.VL // 4
    if not x.flags.c_contiguous or cols % step or rows == 0:
        return None
    n = cols // step
    chunks = x.reshape(rows * n, step)      # row r's chunk k is line r * n + k: a 2-D
    add = np.add                            # reduce costs numpy less than the 3-D one
    # Each chunk's sum starts from +0 (the reduce's initial): 0 + p is p with -0 made +0,
    # and ((0 + p0) + p1) + ... equals (0 + p0) + (0 + p1) + ...: only a zero's sign could
    # differ, and a sum is -0 only when both its terms are (never 0 + p).
    if n == 1:
        return lambda a: quiet(lambda: add.reduce(chunks, axis=1, out=out, initial=0.0))
    parts = np.empty((rows, n), np.float32)
    flat_parts = parts.reshape(-1)
    first, *rest = (parts[:, i] for i in range(n))

    def sums() -> None:
        add.reduce(chunks, axis=1, out=flat_parts, initial=0.0)
        acc = first
        for p in rest:
            add(acc, p, out=out)
            acc = out
    return lambda a: quiet(sums)


def _colreduce_exact(m: TileOps, op: str, rule: VecRule, v: dict[str, Any],
                     kw: dict[str, Any]) -> Plan | None:
    """TCOLMAX / TCOLMIN (exact in any order); the sums and products keep the family."""
    src, dst = v["src"], v["dst"]
    if rule.lane not in ("max", "min") or dst.valid[1] != src.valid[1] or kw:
        return None
    x, out = _valid(m, src, "src"), _valid(m, dst, "dst", rows=1)
    ufunc = np.maximum if rule.lane == "max" else np.minimum

    row = out[0]
    return lambda a: quiet(ufunc.reduce, x, 0, None, row)      # (array, axis, dtype, out)


def _arg(keep: int) -> Factory:
    def make(m: TileOps, op: str, rule: VecRule, v: dict[str, Any],
             kw: dict[str, Any]) -> Plan | None:
        src, dst = v["src"], v["dst"]
        if dst.valid[keep] != src.valid[keep] or (src.dtype.name != "f32" and src.dtype.is_float):
            return None                     # f16 / bf16 widen per call: the family's way
        x = _valid(m, src, "src")
        out = _valid(m, dst, "dst", cols=1) if keep == 0 else _valid(m, dst, "dst", rows=1)
        lane, shape = rule.lane, out.shape

        def run(a: Sequence[Any]) -> None:
            out[...] = vector._argext(x, lane, 1 - keep).reshape(shape)
        return run
    return make


def _expandop(axis: int) -> Factory:
    """Row (``axis`` 1: one column broadcast) and column (0: one row) expand-ops whose
    lane is a native ufunc: numpy broadcasting instead of the repeated copy."""
    def make(m: TileOps, op: str, rule: VecRule, v: dict[str, Any],
             kw: dict[str, Any]) -> Plan | None:
        dst = v["dst"]
        ufunc = alu.NATIVE.get((rule.lane, dst.dtype.name))
        if ufunc is None or set(kw) - {"src1_col", "ptoas"}:
            return None
        dv = dst.valid
        if v["src0"].valid == dv:
            full, bc = "src0", "src1"
        elif v["src1"].valid == dv:
            full, bc = "src1", "src0"
        else:
            return None
        b = v[bc]
        if v[full].name != "ND":            # the family refuses it
            return None
        if b.valid[1 - axis] != dv[1 - axis]:
            return None
        if axis == 1:                       # the family's src1_col / one-column rules
            k = kw.get("src1_col")
            if not (b.valid[1] == 1 if k is None else type(k) is int and k == 1):
                return None
            line = _valid(m, b, bc, cols=1)
        else:
            if kw:
                return None
            line = _valid(m, b, bc, rows=1)
        big = _valid(m, v[full], full)
        x, y = (big, line) if full == "src0" else (line, big)
        out = _valid(m, dst, "dst")
        return ufunc_plan(ufunc, x, y, out=out)
    return make


def _part(m: TileOps, op: str, rule: VecRule, v: dict[str, Any],
          kw: dict[str, Any]) -> Plan | None:
    """Both sources cover dst's valid region: plain elementwise."""
    dst, s0, s1 = v["dst"], v["src0"], v["src1"]
    ufunc = alu.NATIVE.get((rule.lane, dst.dtype.name))
    if ufunc is None or not s0.valid == s1.valid == dst.valid:
        return None
    x, y, out = _valid(m, s0, "src"), _valid(m, s1, "src"), _valid(m, dst, "dst")
    return ufunc_plan(ufunc, x, y, out=out)


def _cmp(m: TileOps, op: str, rule: VecRule, v: dict[str, Any],
         kw: dict[str, Any]) -> Plan | None:
    """a5's TCMP (a predicate of the valid columns, whole 16 B stores per row); the
    a2a3 whole-repeat reads, the CPU simulator's words and bad modes keep the family."""
    s0, s1, dst = v["src0"], v["src1"], v["dst"]
    mode = str(kw.get("mode", "eq")).lower()
    if set(kw) - {"mode"} or mode not in alu.CMP_MODES or s0.valid != s1.valid \
            or m.target.tcmp_whole_repeats:
        return None
    elem = s0.dtype
    vr, vc = s0.valid
    lanes = vector.VL // elem.size
    unit = max(lanes // 8, 16)
    width = -(-vc // (unit * 8)) * unit
    row_bytes = dst.cols * dst.dtype.size
    if width > row_bytes or (vr - 1) * row_bytes + width > dst.nbytes:
        return None
    x, y = _valid(m, s0, "src"), _valid(m, s1, "src")
    nbits = -(-vc // 8)
    rows = nd_view(m, dst, "dst").reshape(-1).view(np.uint8).reshape(dst.rows, row_bytes)
    out, pad = rows[:vr, :nbits], rows[:vr, nbits:width]

    fn = alu.compare_ufunc(mode, elem)

    def run(a: Sequence[Any]) -> None:
        bits = quiet(fn, x, y) if fn is not None else quiet(alu.compare, mode, x, y, elem)
        out[...] = np.packbits(bits, axis=1, bitorder="little")
        if pad.size:
            pad[...] = 0
    return run


def _sel(m: TileOps, op: str, rule: VecRule, v: dict[str, Any],
         kw: dict[str, Any]) -> Plan | None:
    """TSEL with the mask's rows at its row stride (not the CPU simulator's stream)."""
    mask, s0, s1, dst = v["mask"], v["src0"], v["src1"], v["dst"]
    if kw or not s0.valid == s1.valid == dst.valid:
        return None
    vr, vc = dst.valid
    row_bytes = mask.cols * mask.dtype.size
    need = -(-vc // 8)
    if need > row_bytes or vr > mask.rows:
        return None
    raw = nd_view(m, mask, "mask").reshape(-1).view(np.uint8).reshape(mask.rows, row_bytes)
    bits_src = raw[:vr, :need]
    x, y, out = _valid(m, s0, "src"), _valid(m, s1, "src"), _valid(m, dst, "dst")
    es = dst.dtype.size
    if vc % 8 == 0 and es in _LANE_MASKS and s0.dtype.size == s1.dtype.size == es:
        return _sel_bitwise(bits_src, x, y, out, es)

    def run(a: Sequence[Any]) -> None:
        bits = np.unpackbits(bits_src, axis=1, count=vc, bitorder="little").view(bool)
        np.copyto(out, alu.select(bits, x, y))
    return run


# every mask byte as its 8 lanes' all-ones / all-zeros words, per element size, in 64-bit
# words (a byte's 8 lanes are ``es`` of them): the same bits in fewer, wider operations
_LANE_MASKS = {es: (-np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1,
                                   bitorder="little").astype(f"i{es}")).view(np.int64)
               for es in (1, 2, 4)}


def _sel_bitwise(bits: np.ndarray, x: np.ndarray, y: np.ndarray, out: np.ndarray, es: int
                 ) -> Plan:
    """TSEL as integer bit operations, ``y ^ ((x ^ y) & lanes)`` with each lane's mask
    word looked up per mask byte: the bits move as they are (NaN payloads, -0.0), the same
    as `alu.select`, without numpy's slower boolean select. Whole rows (x, y and dst as
    one run each) go as flat 64-bit words, others row by row in 2-D."""
    take = _LANE_MASKS[es].take             # (a fresh array: faster than take's out=)
    if all(v.flags.c_contiguous for v in (x, y, out)):
        xi, yi, oi = (v.reshape(-1).view(np.int64) for v in (x, y, out))
        shape: tuple[int, ...] = xi.shape
        it = np.dtype(np.int64)
    else:
        it = np.dtype(f"i{es}")
        xi, yi, oi = x.view(it), y.view(it), out.view(it)
        shape = (x.shape[0], -1)
    scratch = np.empty(xi.shape, it)
    xor, and_ = np.bitwise_xor, np.bitwise_and

    def run(a: Sequence[Any]) -> None:
        lanes = take(bits, axis=0).reshape(shape).view(it)
        xor(xi, yi, out=scratch)
        and_(scratch, lanes, out=scratch)
        xor(yi, scratch, out=oi)
    return run


FACTORIES: dict[str, Factory] = {
    "rowreduce": _rowreduce, "colreduce": _colreduce_exact, "rowarg": _arg(0),
    "colarg": _arg(1), "rowexpandop": _expandop(1), "colexpandop": _expandop(0),
    "part": _part, "cmp": _cmp, "sel": _sel,
}


def plan(m: TileOps, op: str, rule: VecRule, names: Sequence[str], args: Sequence[Any],
         kw: dict[str, Any]) -> Plan | None:
    """The lean plan of a family for this call shape, or None."""
    make = FACTORIES.get(rule.family)
    if make is None:
        return None
    vals: dict[str, Any] = dict(zip(names, args[1:]))
    vals["dst"] = args[0]
    if any(type(vals.get(n)) is not Tile for n in ("dst", "src", "src0", "src1", "mask")
           if n in vals):
        return None
    return make(m, op, rule, vals, kw)

