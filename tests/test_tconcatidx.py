"""TCONCATIDX (pto-isa's TCONCAT with index tiles; PTOAS ``pto.tconcatidx``) on a5, against
a per-element golden over the UB bytes: counts are bytes of index words, clamped to dst's
valid columns only, sources read straight on through the buffer."""

from __future__ import annotations

import numpy as np
import pytest

import ptosim
from ptosim.errors import DtypeError, VerifyError
from ptosim.kernel import Kernel
from ptosim.tile.shape import pto_subview

NP = {"f32": np.float32, "f16": np.float16, "i8": np.int8, "i16": np.int16,
      "i32": np.int32, "ui8": np.uint8, "ui16": np.uint16, "ui32": np.uint32}


def _golden(ub: np.ndarray, dst, s0, s1, i0, i1, rows: int) -> tuple[np.ndarray, list[int]]:
    """A copy of UB after the op, written element by element with Python integers."""
    out = ub.copy()
    es, isz = dst.dtype.size, i0.dtype.size
    totals = []

    def word(t, r: int) -> int:                     # element (r, 0) of an ND index tile
        at = t.ptr.offset + r * t.cols * isz
        v = int.from_bytes(ub[at:at + isz].tobytes(), "little",
                           signed=t.dtype.name.startswith("i"))
        return (v % (1 << 64)) // isz % (1 << 32)   # C++: promoted to size_t, divided, kept
    for r in range(rows):
        n0, n1 = word(i0, r), word(i1, r)
        k0 = min(n0, dst.valid[1])
        k1 = min(n1, dst.valid[1] - k0)
        totals.append(min(n0 + n1, dst.valid[1]) * isz)
        for c in range(k0 + k1):
            src, j = (s0, c) if c < k0 else (s1, c - k0)
            at = src.ptr.offset + (r * src.cols + j) * es
            to = dst.ptr.offset + (r * dst.cols + c) * es
            out[to:to + es] = ub[at:at + es]
    return out, totals


@pytest.mark.parametrize("dt, it", [("f32", "i32"), ("f16", "ui16"), ("i8", "i8"),
                                    ("i16", "ui32"), ("ui32", "ui8")])
@pytest.mark.parametrize("with_dst_idx", [False, True])
def test_matches_the_golden(dt: str, it: str, with_dst_idx: bool) -> None:
    rng = np.random.default_rng(7)
    m = ptosim.Machine(target="a5")
    es, isz = np.dtype(NP[dt]).itemsize, np.dtype(NP[it]).itemsize
    cols = 64 // es                                  # two 32 B blocks per source row
    rows = 6
    s0 = m.tile("Vec", dt, rows, cols, valid=(rows, cols - 3))
    s1 = m.tile("Vec", dt, rows, cols, valid=(rows, cols))
    dst = m.tile("Vec", dt, rows, 2 * cols, valid=(rows, 2 * cols - 5))
    icols = 32 // isz
    i0 = m.tile("Vec", it, rows, icols, valid=(rows, 1))
    i1 = m.tile("Vec", it, rows, icols, valid=(rows, 1))
    di = m.tile("Vec", it, rows, icols, valid=(rows, 1)) if with_dst_idx else None
    ub = m.blocks[0].ub[0]
    ub[:] = rng.integers(0, 256, ub.size, dtype=np.uint8)
    # counts in bytes: zero, short, past a source's row (reads run on), past dst's valid
    # columns, not a multiple of the word size, and (signed types) negative
    cap = min(np.iinfo(NP[it]).max, 3 * cols * isz)
    for t in (i0, i1):
        words = rng.integers(0, cap + 1, rows)
        words[0] = 0
        words[1] = cols * isz + isz - 1
        if it.startswith("i"):
            words[2] = -isz
        block = np.zeros((rows, icols), NP[it])
        block[:, 0] = words.astype(NP[it])
        m.write(t.ptr, block.ravel())
    before = ub.copy()
    want, totals = _golden(before, dst, s0, s1, i0, i1, rows)
    if di is not None:
        m.TCONCATIDX(dst, s0, s1, di, i0, i1)
        for r, total in enumerate(totals):
            at = di.ptr.offset + r * icols * isz
            want[at:at + isz] = np.array([total], np.int64).astype(NP[it]).view(np.uint8)
    else:
        m.TCONCATIDX(dst, s0, s1, i0, i1)
    np.testing.assert_array_equal(ub, want)


PTO = """
module {
  func.func @k(%a: !pto.ptr<f32>, %b: !pto.ptr<f32>, %n: !pto.ptr<i32>, %o: !pto.ptr<f32>)
      attributes {pto.aicore} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %va = pto.make_tensor_view %a, shape = [%c2, %c8], strides = [%c8, %c1] : !pto.tensor_view<2x8xf32>
    %pa = pto.partition_view %va, offsets = [%c0, %c0], sizes = [%c2, %c8] : !pto.tensor_view<2x8xf32>
    %vb = pto.make_tensor_view %b, shape = [%c2, %c8], strides = [%c8, %c1] : !pto.tensor_view<2x8xf32>
    %pb = pto.partition_view %vb, offsets = [%c0, %c0], sizes = [%c2, %c8] : !pto.tensor_view<2x8xf32>
    %vn = pto.make_tensor_view %n, shape = [%c2, %c8], strides = [%c8, %c1] : !pto.tensor_view<2x8xi32>
    %pn = pto.partition_view %vn, offsets = [%c0, %c0], sizes = [%c2, %c8] : !pto.tensor_view<2x8xi32>
    %vo = pto.make_tensor_view %o, shape = [%c2, %c16], strides = [%c16, %c1] : !pto.tensor_view<2x16xf32>
    %po = pto.partition_view %vo, offsets = [%c0, %c0], sizes = [%c2, %c16] : !pto.tensor_view<2x16xf32>
    %ta = pto.alloc_tile : !pto.tile_buf<vec, 2x8xf32>
    %tb = pto.alloc_tile : !pto.tile_buf<vec, 2x8xf32>
    %tn = pto.alloc_tile : !pto.tile_buf<vec, 2x8xi32>
    %to = pto.alloc_tile : !pto.tile_buf<vec, 2x16xf32>
    pto.tload ins(%pa : !pto.partition_tensor_view<2x8xf32>) outs(%ta : !pto.tile_buf<vec, 2x8xf32>)
    pto.tload ins(%pb : !pto.partition_tensor_view<2x8xf32>) outs(%tb : !pto.tile_buf<vec, 2x8xf32>)
    pto.tload ins(%pn : !pto.partition_tensor_view<2x8xi32>) outs(%tn : !pto.tile_buf<vec, 2x8xi32>)
    pto.tload ins(%po : !pto.partition_tensor_view<2x16xf32>) outs(%to : !pto.tile_buf<vec, 2x16xf32>)
    pto.tconcatidx ins(%ta, %tb, %tn, %tn : !pto.tile_buf<vec, 2x8xf32>, !pto.tile_buf<vec, 2x8xf32>, !pto.tile_buf<vec, 2x8xi32>, !pto.tile_buf<vec, 2x8xi32>) outs(%to : !pto.tile_buf<vec, 2x16xf32>)
    pto.tstore ins(%to : !pto.tile_buf<vec, 2x16xf32>) outs(%po : !pto.partition_tensor_view<2x16xf32>)
    return
  }
}
"""


def test_pto_spelling() -> None:
    a = np.arange(16, dtype=np.float32).reshape(2, 8)
    b = -a - 1
    n = np.zeros((2, 8), np.int32)
    n[:, 0] = [3 * 4, 6 * 4]                # byte counts of i32 words: 3 and 6 elements
    o = np.full((2, 16), 7.0, np.float32)
    res = Kernel.from_text(PTO).run({"a": a, "b": b, "n": n, "o": o})
    want = o.copy()
    want[0, :6] = [*a[0, :3], *b[0, :3]]
    want[1, :12] = [*a[1, :6], *b[1, :6]]
    np.testing.assert_array_equal(res.outputs["o"], want)


def _tiles(m: ptosim.Machine, dt: str = "f32", it: str = "i32",
           idx_valid: tuple[int, int] = (4, 1)) -> list:
    return [m.tile("Vec", dt, 4, 16), m.tile("Vec", dt, 4, 8), m.tile("Vec", dt, 4, 8),
            m.tile("Vec", it, 4, 8, valid=idx_valid), m.tile("Vec", it, 4, 8, valid=(4, 1))]


def test_rules() -> None:
    m = ptosim.Machine(target="a5")
    d, s0, s1, i0, i1 = _tiles(m)
    with pytest.raises(DtypeError, match=r"TCONCATIDX: src1 is f16 but dst is f32"):
        m.TCONCATIDX(d, s0, m.tile("Vec", "f16", 4, 16), i0, i1)
    f0, f1 = (m.tile("Vec", "f32", 4, 8, valid=(4, 1)) for _ in range(2))
    with pytest.raises(DtypeError, match=r"src0_idx element type must be one of i8, i16, i32"):
        m.TCONCATIDX(d, s0, s1, f0, f1)
    with pytest.raises(DtypeError, match=r"src1_idx is i16 but src0_idx is i32"):
        m.TCONCATIDX(d, s0, s1, i0, m.tile("Vec", "i16", 4, 16, valid=(4, 1)))
    with pytest.raises(VerifyError, match=r"src1 has 3 valid rows but dst 4"):
        m.TCONCATIDX(d, s0, m.tile("Vec", "f32", 4, 8, valid=(3, 8)), i0, i1)
    empty = pto_subview(i0, 0, 0, (4, 8), (4, 0))  # (a view may have no valid columns)
    with pytest.raises(VerifyError, match=r"src0_idx needs a valid column"):
        m.TCONCATIDX(d, s0, s1, empty, i1)
    with pytest.raises(VerifyError, match=r"dst_idx must have 4 valid rows and 1 valid "
                                          r"column, got 4x2"):
        m.TCONCATIDX(d, s0, s1, m.tile("Vec", "i32", 4, 8, valid=(4, 2)), i0, i1)
    with pytest.raises(ptosim.PtoTypeError, match=r"operands after dst must be"):
        m.TCONCATIDX(d, s0, s1, i0)


def test_reading_past_the_buffer_is_out_of_bounds() -> None:
    m = ptosim.Machine(target="a5")
    ub = m.target.capacity["ub"]
    d = m.tile("Vec", "f32", 1, 16)
    s1 = m.tile("Vec", "f32", 1, 8)
    i0, i1 = (m.tile("Vec", "i32", 1, 8, valid=(1, 1)) for _ in range(2))
    s0 = m.tile("Vec", "f32", 1, 8, addr=ub - 32)   # the last block of UB
    m.write(i0.ptr, np.array([12 * 4, 0, 0, 0, 0, 0, 0, 0], np.int32))   # 12 > 8 elements
    m.write(i1.ptr, np.zeros(8, np.int32))
    with pytest.raises(ptosim.OutOfBoundsError):
        m.TCONCATIDX(d, s0, s1, i0, i1)


def _a2a3_golden(ub: np.ndarray, dst, s0, s1, counts: list[tuple[int, int]]) -> np.ndarray:
    """a2a3's TConcatIdx replayed byte by byte: per row, src0 by vcopy (whole 256 B
    repeats, then one repeat under a continuous mask of the whole count in copy units),
    src1 the same way when src0's count is a whole number of 32 B blocks, else element
    by element."""
    out = ub.copy()
    es = dst.dtype.size
    unit = 4 if es == 4 else 2

    def vcopy(src_at: int, dst_at: int, n: int) -> None:
        reps = -(-n * es // 256)
        for r in range(reps - 1):
            out[dst_at + 256 * r:dst_at + 256 * (r + 1)] = out[src_at + 256 * r:
                                                               src_at + 256 * (r + 1)]
        units = min(-(-n * es // unit), 256 // unit)
        base = 256 * (reps - 1)
        out[dst_at + base:dst_at + base + units * unit] = \
            out[src_at + base:src_at + base + units * unit]
    for r, (n0, n1) in enumerate(counts):
        k0 = min(n0, dst.valid[1])
        k1 = min(n1, dst.valid[1] - k0)
        row = dst.ptr.offset + r * dst.cols * es
        vcopy(s0.ptr.offset + r * s0.cols * es, row, k0)
        if k0 % (32 // es) == 0:
            vcopy(s1.ptr.offset + r * s1.cols * es, row + k0 * es, k1)
        else:
            for j in range(k1):
                at = s1.ptr.offset + (r * s1.cols + j) * es
                out[row + (k0 + j) * es:row + (k0 + j + 1) * es] = out[at:at + es]
    return out


@pytest.mark.parametrize("dt, counts", [
    ("f32", [(70, 9), (8, 100), (5, 3)]),           # a whole last repeat; aligned; scalar
    ("f16", [(130, 7), (16, 17), (3, 200)]),
    ("i8", [(5, 33), (32, 7), (301, 1)]),            # 2-byte units: an odd count copies 1 more
])
def test_a2a3_copies_whole_last_repeats(dt: str, counts: list[tuple[int, int]]) -> None:
    rng = np.random.default_rng(11)
    m = ptosim.Machine(target="a2a3")
    es = np.dtype(NP[dt]).itemsize
    cols = 512 // es
    rows = len(counts)
    s0 = m.tile("Vec", dt, rows, cols)
    s1 = m.tile("Vec", dt, rows, cols)
    dst = m.tile("Vec", dt, rows, cols, valid=(rows, cols - 32 // es))
    i0, i1 = (m.tile("Vec", "i32", rows, 8, valid=(rows, 1)) for _ in range(2))
    ub = m.blocks[0].ub[0]
    ub[:] = rng.integers(0, 256, ub.size, dtype=np.uint8)
    for t, k in ((i0, 0), (i1, 1)):
        block = np.zeros((rows, 8), np.int32)
        block[:, 0] = [c[k] * 4 for c in counts]       # bytes of i32 index words
        m.write(t.ptr, block.ravel())
    want = _a2a3_golden(ub.copy(), dst, s0, s1, counts)
    m.TCONCATIDX(dst, s0, s1, i0, i1)
    np.testing.assert_array_equal(ub, want)


def test_a2a3_zero_count_is_refused() -> None:
    m = ptosim.Machine(target="a2a3")
    d = m.tile("Vec", "f32", 1, 64)
    s0, s1 = m.tile("Vec", "f32", 1, 64), m.tile("Vec", "f32", 1, 64)
    i0, i1 = (m.tile("Vec", "i32", 1, 8, valid=(1, 1)) for _ in range(2))
    m.write(i0.ptr, np.array([64 * 4, 0, 0, 0, 0, 0, 0, 0], np.int32))  # fills dst: k1 = 0
    m.write(i1.ptr, np.array([4 * 4, 0, 0, 0, 0, 0, 0, 0], np.int32))
    with pytest.raises(VerifyError, match=r"TCONCATIDX: a row copies 0 elements from src1: "
                                          r"a2a3's vcopy then runs \(repeats - 1\) = -1"):
        m.TCONCATIDX(d, s0, s1, i0, i1)
