"""Layouts as (shape, stride) index maps.

A layout maps a logical ``[rows, cols]`` matrix onto element offsets. Each index is split
mixed-radix into *modes* (outer to inner), each mode has a size and a stride, and
``offset(r, c)`` is the dot product of the digits with the strides - the CuTe view of
layouts. Every tile layout of the manual (ND, DN, NZ, ZN, ZZ, NN with 512 B, 1024 B or
32 B fractals) and every GlobalTensor 5-D view (ND, DN, NZ) is such a layout.

Two roads lead through a layout and tests keep them equal:
- `Layout.offsets` returns the index map as a numpy array (the general definition, and
  the fallback for irregular regions);
- `Layout.view` returns a strided numpy view of a byte buffer with one axis per mode, so
  a whole layout moves in one bulk numpy copy.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from math import prod

import numpy as np

from .dtypes import DType, dtype as _dtype
from .errors import PtoValueError

Mode = tuple[int, int]  # (size, stride in elements)

# The TileTypes `ptosim layout --tile` draws (here, so the CLI's parser needs no plotting)
TILE_TYPES = ("Vec", "Mat", "Left", "Right", "Acc", "Bias", "Scaling", "ScaleLeft",
              "ScaleRight")

TILE_LAYOUTS: dict[str, tuple[str, str]] = {
    # name: (BLayout, SLayout)
    "ND": ("RowMajor", "NoneBox"),
    "DN": ("ColMajor", "NoneBox"),
    "NZ": ("ColMajor", "RowMajor"),
    "ZN": ("RowMajor", "ColMajor"),
    "ZZ": ("RowMajor", "RowMajor"),
    "NN": ("ColMajor", "ColMajor"),
}
_BY_PAIR = {v: k for k, v in TILE_LAYOUTS.items()}


@dataclass(frozen=True)
class Layout:
    """A logical ``rows x cols`` matrix laid out by row modes and column modes (outer->inner)."""

    row_modes: tuple[Mode, ...]
    col_modes: tuple[Mode, ...]

    # Derived values are cached: a layout is immutable, and the ops' hot paths read them
    # per call (frozen dataclasses still allow cached_property: it writes __dict__).
    @cached_property
    def rows(self) -> int:
        return prod(s for s, _ in self.row_modes)

    @cached_property
    def cols(self) -> int:
        return prod(s for s, _ in self.col_modes)

    @cached_property
    def shape(self) -> tuple[int, ...]:
        """Shape of `view`: one axis per mode, row modes first."""
        return tuple(s for s, _ in self.row_modes + self.col_modes)

    @cached_property
    def strides(self) -> tuple[int, ...]:
        """Element strides of `view`'s axes."""
        return tuple(t for _, t in self.row_modes + self.col_modes)

    @cached_property
    def _byte_strides(self) -> dict[int, tuple[int, ...]]:
        """`strides` in bytes, per element size (filled by `view`)."""
        return {}

    @cached_property
    def span(self) -> int:
        """Elements from offset 0 to one past the largest offset."""
        if self.rows == 0 or self.cols == 0:
            return 0
        return 1 + sum((s - 1) * t for s, t in self.row_modes + self.col_modes)

    def offsets(self, rows: int | None = None, cols: int | None = None) -> np.ndarray:
        """Element offsets of the logical region ``[0:rows, 0:cols]`` as an int64 array."""
        rows = self.rows if rows is None else rows
        cols = self.cols if cols is None else cols
        if not (0 <= rows <= self.rows and 0 <= cols <= self.cols):
            raise PtoValueError(f"region {rows}x{cols} exceeds layout {self.rows}x{self.cols}")
        r = _digits_dot(np.arange(rows, dtype=np.int64), self.row_modes)
        c = _digits_dot(np.arange(cols, dtype=np.int64), self.col_modes)
        return r[:, None] + c[None, :]

    def view(self, buf: np.ndarray, byte_offset: int, dt: DType | str) -> np.ndarray:
        """A strided view of ``buf`` (uint8) with one axis per mode; reshape to (rows, cols)
        to read the logical matrix, assign through it to write one."""
        d = dt if type(dt) is DType else _dtype(dt)
        size = d.size
        need = byte_offset + self.span * size
        if byte_offset < 0 or need > buf.nbytes:
            raise PtoValueError(f"layout {self.rows}x{self.cols} at byte {byte_offset} needs "
                           f"{need} bytes, the buffer has {buf.nbytes}")
        strides = self._byte_strides.get(size)
        if strides is None:
            strides = self._byte_strides[size] = tuple([t * size for t in self.strides])
        return np.ndarray(self.shape, d.np, buf, byte_offset, strides)


def _digits_dot(index: np.ndarray, modes: tuple[Mode, ...]) -> np.ndarray:
    out = np.zeros_like(index)
    rest = index
    for size, stride in reversed(modes):
        out += (rest % size) * stride
        rest = rest // size
    return out


def fractal_box(dt: DType | str, slayout: str, fractal: int = 512) -> tuple[int, int]:
    """Inner box (rows, cols) of a fractal: 16 x C0 (RowMajor), C0 x 16 (ColMajor),
    16 x 16 for the 1024 B accumulator fractal, 16 x 2 / 2 x 16 for the 32 B MX scale one."""
    c0 = _dtype(dt).c0
    if slayout not in ("RowMajor", "ColMajor"):
        raise PtoValueError(f"SLayout {slayout!r} has no fractal box")
    if fractal == 512:
        return (16, c0) if slayout == "RowMajor" else (c0, 16)
    if fractal == 1024:
        return (16, 16)
    if fractal == 32:
        return (16, 2) if slayout == "RowMajor" else (2, 16)
    raise PtoValueError(f"fractal size {fractal} is not one of 512, 1024, 32")


def subview_box(dt: DType, slayout: str, fractal: int) -> tuple[int, int]:
    """The inner box PTOAS aligns a boxed ``pto.subview`` to (its verifier's inner shape:
    16 x 16 for 1024 B fractals, 16 x 2 for 32 B ones, else the 512 B fractal's box);
    (1, 1) for a non-boxed tile."""
    if slayout == "NoneBox":
        return 1, 1
    if fractal == 1024:
        return 16, 16
    if fractal == 32:
        return 16, 2
    return (16, 32 // dt.size) if slayout == "RowMajor" else (32 // dt.size, 16)


def layout_name(blayout: str, slayout: str) -> str:
    """ND/DN/NZ/ZN/ZZ/NN for a (BLayout, SLayout) pair."""
    try:
        return _BY_PAIR[(blayout, slayout)]
    except KeyError:
        raise PtoValueError(f"no layout for BLayout={blayout!r}, SLayout={slayout!r}") from None


def tile_layout(name: str, rows: int, cols: int, dt: DType | str,
                fractal: int = 512) -> Layout:
    """Layout of a physical ``rows x cols`` tile (offsets in elements from the tile base)."""
    key = name.upper()
    if key not in TILE_LAYOUTS:
        raise PtoValueError(f"unknown tile layout {name!r}; known: {', '.join(TILE_LAYOUTS)}")
    if key == "ND":
        return Layout(((rows, cols),), ((cols, 1),))
    if key == "DN":
        return Layout(((rows, 1),), ((cols, rows),))
    if key == "ZZ" and rows == 1:
        # A one-row ZZ tile is one plain row: the GEMV Left tile on a2a3 (TEXTRACT copies
        # whole 512 B fractals of a one-row Mat tile into it) and the one-row MX scale tile
        # (TLOAD writes it as one burst, TMOV copies it whole); NZ's one-row form is
        # plain already
        return Layout(((1, cols),), ((cols, 1),))
    ir, ic = fractal_box(dt, TILE_LAYOUTS[key][1], fractal)
    # Only the split side must hold whole fractals: NZ splits columns, ZN splits rows.
    need_cols = key in ("NZ", "ZZ", "NN")
    need_rows = key in ("ZN", "ZZ", "NN")
    if (need_cols and cols % ic) or (need_rows and rows % ir):
        raise PtoValueError(f"{key} tile {rows}x{cols} is not a whole number of {ir}x{ic} "
                       f"fractals along its blocked side")
    if key == "NZ":
        return Layout(((rows, ic),), ((cols // ic, rows * ic), (ic, 1)))
    if key == "ZN":
        return Layout(((rows // ir, cols * ir), (ir, 1)), ((cols, ir),))
    if key == "ZZ":
        return Layout(((rows // ir, cols * ir), (ir, ic)), ((cols // ic, ir * ic), (ic, 1)))
    return Layout(((rows // ir, ir * ic), (ir, 1)), ((cols // ic, rows * ic), (ic, ir)))  # NN


def gm_layout(kind: str, shape: tuple[int, ...], stride: tuple[int, ...]) -> Layout:
    """Layout of a GlobalTensor 5-D view (shape s0..s4, strides t0..t4 in elements).

    ND: rows = s0 s1 s2 s3, cols = s4. DN: rows = s3, cols = s0 s1 s2 s4.
    NZ: rows = s2 s3, cols = s0 s1 s4 (canonical NZ: s3 = 16, s4 = C0).
    """
    if len(shape) != 5 or len(stride) != 5:
        raise PtoValueError(f"a GlobalTensor view needs 5 sizes and 5 strides, got "
                       f"{len(shape)} and {len(stride)}")
    m = list(zip(shape, stride))
    key = kind.upper()
    if key == "ND":
        return Layout((m[0], m[1], m[2], m[3]), (m[4],))
    if key == "DN":
        return Layout((m[3],), (m[0], m[1], m[2], m[4]))
    if key == "NZ":
        return Layout((m[2], m[3]), (m[0], m[1], m[4]))
    if key in _MX_MODES:        # MX scale views: element (r, c) of the M x K/32 (A) or
        rows, cols = _MX_MODES[key]           # K/32 x N (B) scale matrix
        return Layout(tuple(m[i] for i in rows), tuple(m[i] for i in cols))
    raise PtoValueError(f"unknown GlobalTensor layout {kind!r}; known: ND, DN, NZ, "
                   f"{', '.join(_MX_MODES)}")


# Which 5-D dims index the rows and the columns of an MX scale view, outer first
# (pto-isa's CPU tile-offset map; docs/research/mx-scale-tiles.md §2): A_ZZ rows (s0 s1 s3)
# cols (s2 s4); A_ND rows s2, cols (s3 s4); A_DN rows s3, cols (s2 s4); B_ND rows (s2 s4),
# cols s3; B_DN rows (s3 s4), cols s2; B_NN rows (s2 s4), cols (s0 s1 s3).
_MX_MODES: dict[str, tuple[tuple[int, ...], tuple[int, ...]]] = {
    "MX_A_ZZ": ((0, 1, 3), (2, 4)), "MX_A_ND": ((0, 1, 2), (3, 4)),
    "MX_A_DN": ((3,), (0, 1, 2, 4)), "MX_B_ND": ((0, 1, 2, 4), (3,)),
    "MX_B_DN": ((3, 4), (0, 1, 2)), "MX_B_NN": ((2, 4), (0, 1, 3)),
}
MX_LAYOUTS = tuple(_MX_MODES)


def gm_nz_canonical(rows: int, cols: int, dt: DType | str
                    ) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Shape and packed strides of the canonical GM NZ view of a rows x cols matrix
    (rows a multiple of 16, cols a multiple of C0): byte-identical to an NZ tile."""
    c0 = _dtype(dt).c0
    if rows % 16 or cols % c0:
        raise PtoValueError(f"canonical NZ view needs rows % 16 == 0 and cols % {c0} == 0, "
                       f"got {rows}x{cols}")
    s1, s2 = cols // c0, rows // 16
    return (1, s1, s2, 16, c0), (s1 * s2 * 16 * c0, s2 * 16 * c0, 16 * c0, c0, 1)


def _prefix(modes: tuple[Mode, ...], n: int) -> tuple[Mode, ...] | None:
    """The modes of the logical indices [0, n), or None when they are not a box."""
    if not modes:
        return () if n == 1 else None
    low = prod(s for s, _ in modes[1:])
    if n <= low:                        # the outer digit stays 0
        return _prefix(modes[1:], n)
    if n % low or n // low > modes[0][0]:
        return None
    return ((n // low, modes[0][1]),) + modes[1:]


def _cuts(modes: tuple[Mode, ...]) -> set[int]:
    """The digit boundaries of a mixed-radix split: its partial products from the inside."""
    cuts, p = set(), 1
    for size, _ in reversed(modes):
        p *= size
        cuts.add(p)
    return cuts


def _split(modes: tuple[Mode, ...], cuts: list[int]) -> list[Mode] | None:
    """``modes`` cut at every boundary of ``cuts`` (ascending), outer to inner; None when
    a cut falls inside a digit that it does not divide."""
    out: list[Mode] = []
    p = 1
    for size, stride in reversed(modes):
        prev = p
        for c in cuts:
            if p < c <= p * size:
                if c % prev:
                    return None
                out.append((c // prev, stride * (prev // p)))
                prev = c
        p *= size
    return out[::-1]


def _common(a: tuple[Mode, ...], b: tuple[Mode, ...]) -> tuple[list[Mode], list[Mode]] | None:
    cuts = sorted(_cuts(a) | _cuts(b))
    sa, sb = _split(a, cuts), _split(b, cuts)
    if sa is None or sb is None:
        return None
    return sa, sb


def copy_plan(src: Layout, dst: Layout, transpose: bool = False
              ) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]] | None:
    """One strided copy that moves the logical matrix from ``src`` into ``dst`` (its
    transpose with ``transpose``; src may be larger: its leading region is read): a
    shape and the element strides of both sides, on the common refinement of the two
    layouts' digits. None when the region or the digits do not line up (copy through
    the logical matrix instead)."""
    rows, cols = (dst.cols, dst.rows) if transpose else (dst.rows, dst.cols)
    s_rows, s_cols = _prefix(src.row_modes, rows), _prefix(src.col_modes, cols)
    if s_rows is None or s_cols is None:
        return None
    d_rows, d_cols = (dst.col_modes, dst.row_modes) if transpose else \
        (dst.row_modes, dst.col_modes)
    r, c = _common(s_rows, d_rows), _common(s_cols, d_cols)
    if r is None or c is None:
        return None
    modes = list(zip(r[0] + c[0], r[1] + c[1], strict=True))
    return (tuple(m[0][0] for m in modes), tuple(m[0][1] for m in modes),
            tuple(m[1][1] for m in modes))
