"""Pictures of tile and GlobalTensor layouts: which logical (row, col) lives at which offset.

`layout_grid` (tiles) and `gm_grid` (GlobalTensor 5-D views) compute what a picture shows;
`render_layout` draws it with matplotlib (PNG or SVG, or a `Drawing` a notebook displays)
and `render_terminal` as a coloured text grid. Two views:

- physical (default for tiles): the buffer as a stack of 32 B lines, C0 elements each, long
  buffers wrapped into side-by-side panels. Each cell is the element at that offset,
  coloured by the logical row (or column) stored there, so a 512 B fractal shows as a
  block of 16 lines. Thick lines separate fractals (rows for ND, columns for DN).
- logical (default for GM views): the rows x cols matrix, each cell labelled with its
  element offset and coloured by it; thick lines outline the fractal boxes.

Padding (inside the tile, outside the valid region) is grey and hatched; offsets no
logical element maps to (gaps of a strided GM view) are white and cross-hatched.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from math import ceil, log
from typing import Any, NamedTuple

import numpy as np

from .dtypes import BLOCK_BYTES, DType, dtype as _dtype
from .errors import PtoError
from .layout import TILE_LAYOUTS, TILE_TYPES, Layout, fractal_box, gm_layout, tile_layout
from .plotting import require_matplotlib

UNUSED, PADDING, VALID = 0, 1, 2
STATES = ("unused", "padding", "valid")
MAX_CELLS = 16384          # 128 x 128 f16: more is not a picture anyone can read
VIEWS = ("physical", "logical")
COLOR_KEYS = ("row", "col", "offset")

PAD_FACE, PAD_HATCH, FRAME = "#d9d9d9", "#9a9a9a", "#1a1a1a"


class Cell(NamedTuple):
    """One element of the buffer: what `LayoutGrid.at` returns."""

    offset: int
    row: int | None         # logical row, None if no logical element lives here
    col: int | None
    state: str              # "valid", "padding" or "unused"
    block: int              # fractal block in memory order, -1 without fractal boxes


@dataclass(frozen=True, eq=False)
class LayoutGrid:
    """A layout tabulated both ways: logical -> offset and physical offset -> logical."""

    name: str                          # "NZ", "GM ND", ...
    dtype: DType
    valid: tuple[int, int]
    box: tuple[int, int] | None        # fractal inner box IR x IC, None for ND/DN
    offsets: np.ndarray                # (rows, cols) element offset of each logical element
    row: np.ndarray                    # (size,) logical row at each element offset, -1 unused
    col: np.ndarray                    # (size,) logical column, -1 unused
    state: np.ndarray                  # (size,) UNUSED, PADDING or VALID
    block: np.ndarray                  # (size,) fractal block in memory order, -1 none
    blayout: str | None = None
    slayout: str | None = None
    fractal: int | None = None
    tile_type: str | None = None
    gm: tuple[tuple[int, ...], tuple[int, ...]] | None = None   # GM shape5, stride5

    @property
    def rows(self) -> int:
        return int(self.offsets.shape[0])

    @property
    def cols(self) -> int:
        return int(self.offsets.shape[1])

    @property
    def size(self) -> int:
        """Elements drawn in the physical view: the span rounded up to whole 32 B lines."""
        return int(self.row.size)

    @property
    def line(self) -> int:
        """Elements per 32 B line (C0)."""
        return self.dtype.c0

    @property
    def default_view(self) -> str:
        return "logical" if self.gm else "physical"

    @property
    def major(self) -> str:
        """"row" if consecutive columns are adjacent in memory (ND NZ ZZ), else "col"."""
        if self.cols > 1 and self.offsets[0, 1] - self.offsets[0, 0] != 1:
            return "col"
        return "row"

    def at(self, offset: int) -> Cell:
        """What lives at element ``offset``."""
        if not 0 <= offset < self.size:
            raise PtoError(f"offset {offset} is outside the {self.size}-element buffer")
        s = int(self.state[offset])
        r, c = int(self.row[offset]), int(self.col[offset])
        return Cell(offset, None if s == UNUSED else r, None if s == UNUSED else c,
                    STATES[s], int(self.block[offset]))

    def group(self) -> np.ndarray:
        """(size,) the unit outlined by thick lines: fractal block, else logical row (ND) or
        column (DN); unused elements form one group of their own."""
        if self.box:
            g = self.block.copy()
        else:
            g = self.row.copy() if self.major == "row" else self.col.copy()
        g[self.state == UNUSED] = -1
        return g

    def title(self) -> str:
        dims = f"{self.rows}x{self.cols}"
        if self.gm:
            shape, stride = self.gm
            return (f"GlobalTensor {self.name[3:]} view  ·  {self.dtype}  ·  "
                    f"shape {_tup(shape)} stride {_tup(stride)}  ->  {dims}")
        role = f"{self.tile_type} tile" if self.tile_type else "tile"
        frac = (f"fractal {self.fractal} B = {self.box[0]}x{self.box[1]}" if self.box
                else "no fractal")
        return (f"{self.name} {role}  ·  {self.dtype}  ·  {dims}  ·  valid "
                f"{self.valid[0]}x{self.valid[1]}  ·  BLayout={self.blayout}, "
                f"SLayout={self.slayout}  ·  {frac}")


def _tup(t: tuple[int, ...]) -> str:
    return "(" + ",".join(map(str, t)) + ")"


def layout_grid(layout: str | Layout, rows: int | None = None, cols: int | None = None,
                dtype: str | DType = "f16", valid: tuple[int, int] | None = None,
                fractal: int | None = None, tile_type: str | None = None) -> LayoutGrid:
    """Tabulate a tile layout (ND DN NZ ZN ZZ NN, or any `Layout`) of a rows x cols tile.

    ``fractal`` defaults to 1024 for an Acc tile, else 512; ``valid`` to the whole tile.
    A boxed layout must hold whole fractals on both sides.
    """
    dt = _dtype(dtype)
    if tile_type is not None and tile_type not in TILE_TYPES:
        raise PtoError(f"unknown TileType {tile_type!r}; known: {', '.join(TILE_TYPES)}")
    if isinstance(layout, Layout):
        if (rows, cols) not in ((None, None), (layout.rows, layout.cols)):
            raise PtoError(f"the layout is {layout.rows}x{layout.cols}, not {rows}x{cols}")
        return _tabulate("custom", layout, dt, valid, None)
    key = layout.upper()
    if key not in TILE_LAYOUTS:
        raise PtoError(f"unknown tile layout {layout!r}; known: {', '.join(TILE_LAYOUTS)}")
    if rows is None or cols is None or rows < 1 or cols < 1:
        raise PtoError(f"a tile needs a shape of at least 1x1, got {rows}x{cols}")
    fractal = fractal if fractal is not None else 1024 if tile_type == "Acc" else 512
    blayout, slayout = TILE_LAYOUTS[key]
    box = None if slayout == "NoneBox" else fractal_box(dt, slayout, fractal)
    if box and (rows % box[0] or cols % box[1]):
        raise PtoError(f"{key} tile {rows}x{cols} is not a whole number of {box[0]}x{box[1]} "
                       f"fractals ({fractal} B of {dt})")
    return _tabulate(key, tile_layout(key, rows, cols, dt, fractal), dt, valid, box,
                     blayout=blayout, slayout=slayout, fractal=fractal if box else None,
                     tile_type=tile_type)


def gm_grid(kind: str, shape: tuple[int, ...], stride: tuple[int, ...] | None = None,
            dtype: str | DType = "f16") -> LayoutGrid:
    """Tabulate a GlobalTensor 5-D view (ND, DN or NZ); ``stride`` defaults to packed."""
    key = kind.upper()
    shape = tuple(int(s) for s in shape)
    if len(shape) != 5 or min(shape) < 1:
        raise PtoError(f"a GlobalTensor shape is 5 sizes >= 1, got {_tup(shape)}")
    stride = tuple(int(t) for t in stride) if stride is not None else _packed(key, shape)
    if len(stride) == 5 and min(stride) < 0:
        raise PtoError(f"GlobalTensor strides must be >= 0, got {_tup(stride)}")
    lay = gm_layout(key, shape, stride)
    box = (shape[3], shape[4]) if key == "NZ" else None
    return _tabulate(f"GM {key}", lay, _dtype(dtype), None, box, gm=(shape, stride))


def _packed(kind: str, s: tuple[int, ...]) -> tuple[int, ...]:
    """Strides of a dense view: ND and NZ row-major over their modes, DN column-major."""
    if kind == "DN":
        t2 = s[3] * s[4]
        return (s[1] * s[2] * t2, s[2] * t2, t2, 1, s[3])
    out, acc = [], 1
    for size in reversed(s):
        out.append(acc)
        acc *= size
    return tuple(reversed(out))


def _tabulate(name: str, lay: Layout, dt: DType, valid: tuple[int, int] | None,
              box: tuple[int, int] | None, **meta: Any) -> LayoutGrid:
    rows, cols = lay.rows, lay.cols
    if rows * cols > MAX_CELLS or lay.span > MAX_CELLS:
        raise PtoError(f"{name} {rows}x{cols} spans {lay.span} elements; pictures stop at "
                       f"{MAX_CELLS}")
    vr, vc = valid if valid is not None else (rows, cols)
    if not (1 <= vr <= rows and 1 <= vc <= cols):
        raise PtoError(f"valid region {vr}x{vc} must be at least 1x1 and fit the "
                       f"{rows}x{cols} tile")
    offs = lay.offsets()
    size = -(-lay.span // dt.c0) * dt.c0
    rr, cc = np.indices((rows, cols))
    row, col = np.full(size, -1, np.int64), np.full(size, -1, np.int64)
    state, block = np.zeros(size, np.int8), np.full(size, -1, np.int64)
    row[offs], col[offs] = rr, cc
    state[offs] = np.where((rr < vr) & (cc < vc), VALID, PADDING)
    if box:
        ir, ic = box
        lowest = offs.reshape(rows // ir, ir, cols // ic, ic).min(axis=(1, 3)).ravel()
        rank = np.empty_like(lowest)
        rank[np.argsort(lowest, kind="stable")] = np.arange(lowest.size)
        block[offs] = rank[(rr // ir) * (cols // ic) + cc // ic]
    return LayoutGrid(name, dt, (vr, vc), box, offs, row, col, state, block, **meta)


# --- matplotlib --------------------------------------------------------------------------

@dataclass(eq=False)
class Drawing:
    """A rendered layout: the matplotlib figure and where each cell landed, in pixels."""

    figure: Any
    grid: LayoutGrid
    view: str
    dpi: int
    _ax: Any
    _xy: dict[Any, tuple[float, float]]       # cell index -> data (x, y) of its corner

    def cell_box(self, index: int | tuple[int, int]) -> tuple[float, float, float, float]:
        """(left, top, right, bottom) in image pixels of a cell: an element offset in the
        physical view, a logical (row, col) in the logical view."""
        x, y = self._xy[index]
        (x0, y0), (x1, y1) = self._ax.transData.transform([(x, y), (x + 1, y + 1)])
        height = self.figure.get_figheight() * self.dpi
        return float(x0), float(height - y0), float(x1), float(height - y1)

    def save(self, path: str) -> None:
        """Write a .png or .svg (text stays text in SVG)."""
        import matplotlib
        suffix = str(path).lower().rsplit(".", 1)[-1]
        if suffix not in ("png", "svg"):
            raise PtoError(f"cannot write {path}: pictures are .png or .svg")
        with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "ptosim"}):
            self.figure.savefig(path, dpi=self.dpi)

    def _repr_png_(self) -> bytes:
        buf = io.BytesIO()
        self.figure.savefig(buf, format="png", dpi=self.dpi)
        return buf.getvalue()


def render_layout(layout: str | Layout | LayoutGrid, rows: int | None = None,
                  cols: int | None = None, dtype: str | DType = "f16", *,
                  valid: tuple[int, int] | None = None, fractal: int | None = None,
                  tile_type: str | None = None, path: str | None = None,
                  view: str | None = None, color_by: str | None = None,
                  labels: bool | None = None, panels: int | None = None,
                  dpi: int = 100) -> Drawing:
    """Draw a layout; write it to ``path`` (.png or .svg) if given.

    ``color_by`` is "row", "col" or "offset" (default: the logical index constant along a
    32 B line in the physical view, the offset in the logical one). Cell labels ("r,c" or
    the offset) appear when the grid is at most 32x32 cells, unless ``labels`` says
    otherwise; ``panels`` fixes how many columns the physical buffer wraps into.
    """
    require_matplotlib()
    from matplotlib.colors import Normalize
    from matplotlib.figure import Figure

    grid = _as_grid(layout, rows, cols, dtype, valid, fractal, tile_type)
    view = view or grid.default_view
    if view not in VIEWS:
        raise PtoError(f"view {view!r} is not one of {', '.join(VIEWS)}")
    key = color_by or (grid.major if view == "physical" else "offset")
    if key not in COLOR_KEYS:
        raise PtoError(f"color_by {key!r} is not one of {', '.join(COLOR_KEYS)}")
    plan = _physical_plan(grid, panels) if view == "physical" else _logical_plan(grid)

    show = labels if labels is not None else len(plan.offsets) <= 32 * 32
    what = {"row": "logical row", "col": "logical column", "offset": "element offset"}[key]
    if view == "physical":
        what_major = {"row": "logical rows", "col": "logical columns"}[grid.major]
        sub = (f"physical view: one row of cells = one 32 B line = {grid.line} x {grid.dtype}"
               f"  ·  colour = {what}  ·  thick lines = "
               f"{'fractals' if grid.box else what_major}")
    else:
        sub = (f"logical view: {'cell = element offset  ·  ' if show else ''}colour = "
               f"{what}{'  ·  thick lines = fractal boxes' if grid.box else ''}")

    cell = plan.cell
    left, right, bottom = 1.0, 1.35, 0.8
    width_in, height_in = plan.width * cell, plan.height * cell
    fw = ceil(max(left + width_in + right, 7.5) * dpi) / dpi     # whole pixels
    left += (fw - left - width_in - right) / 2          # centre a narrow grid
    heads = _wrap(grid.title(), fw) + [sub]
    top = 0.3 + 0.26 * len(heads) + (0.4 if view == "logical" else 0.0)
    fig = Figure(figsize=(fw, ceil((top + height_in + bottom) * dpi) / dpi), dpi=dpi)
    fh = fig.get_figheight()
    for i, text in enumerate(heads):
        last = i == len(heads) - 1
        fig.text(0.5, 1 - (0.3 + 0.26 * i) / fh, text, ha="center", va="center",
                 fontsize=8.5 if last else 10.5, color="#444444" if last else "black",
                 weight="normal" if last else "bold")
    ax = fig.add_axes((left / fw, bottom / fh, width_in / fw, height_in / fh))
    ax.set_xlim(0, plan.width)
    ax.set_ylim(plan.height, 0)
    for spine in ax.spines.values():
        spine.set_visible(False)

    values = {"row": grid.row, "col": grid.col, "offset": np.arange(grid.size)}[key]
    vmax = {"row": grid.rows - 1, "col": grid.cols - 1, "offset": grid.size - 1}[key]
    norm, cmap = Normalize(0, max(vmax, 1)), _cmap()
    xy = plan.xy
    corners = np.array([(0, 0), (1, 0), (1, 1), (0, 1)], float)
    for state in (VALID, PADDING, UNUSED):
        sel = [i for i, off in enumerate(plan.offsets) if grid.state[off] == state]
        if not sel:
            continue
        verts = np.array([xy[i] for i in sel], float)[:, None, :] + corners
        if state == VALID:
            face: Any = cmap(norm(values[plan.offsets[sel]]))
            hatch = None
        else:
            face, hatch = (PAD_FACE, "///") if state == PADDING else ("white", "xx")
        _cells(ax, verts, face, hatch, f"cells-{STATES[state]}", cell)

    groups = grid.group() if view == "physical" or grid.box else np.zeros(grid.size, int)
    ax.add_collection(_outlines(plan, groups[plan.offsets]))
    if show:
        _labels(ax, grid, plan, view, norm, cmap, values)
    else:
        _block_notes(ax, grid, plan, view)
    _axes_text(ax, grid, plan, view)
    cax = fig.add_axes(((left + width_in + 0.3) / fw, bottom / fh, 0.16 / fw,
                        min(height_in, 3.5) / fh))
    from matplotlib.cm import ScalarMappable
    bar = fig.colorbar(ScalarMappable(norm, cmap), cax=cax)
    bar.set_label(what, fontsize=8)
    bar.ax.tick_params(labelsize=7)
    _legend(fig, grid, set(grid.state[plan.offsets].tolist()))
    drawing = Drawing(fig, grid, view, dpi, ax, {idx: xy[i] for i, idx in enumerate(plan.index)})
    if path is not None:
        drawing.save(path)
    return drawing


def _wrap(title: str, width_in: float) -> list[str]:
    """The title on one line, or split at its middle separator when wider than the figure."""
    if len(title) * 0.095 < width_in - 0.3:
        return [title]
    parts = title.split("  ·  ")
    half = min(range(1, len(parts)),
               key=lambda i: abs(len("  ·  ".join(parts[:i])) - len(title) / 2), default=1)
    return ["  ·  ".join(parts[:half]), "  ·  ".join(parts[half:])]


def _as_grid(layout: str | Layout | LayoutGrid, rows: int | None, cols: int | None,
             dtype: str | DType, valid: tuple[int, int] | None, fractal: int | None,
             tile_type: str | None) -> LayoutGrid:
    if isinstance(layout, LayoutGrid):
        return layout
    return layout_grid(layout, rows, cols, dtype, valid, fractal, tile_type)


def _cmap() -> Any:
    from matplotlib import colormaps
    return colormaps["viridis"]


@dataclass
class _Plan:
    """Where cells go: cell i shows element ``offsets[i]`` at data ``xy[i]`` (top-left)."""

    offsets: np.ndarray
    index: list[Any]                   # what `Drawing.cell_box` is keyed by
    xy: list[tuple[float, float]]
    width: float                       # data units (cells, gaps included)
    height: float
    cell: float                        # inches per cell
    panel_lines: int = 0
    panel_step: float = 0.0            # data x from one panel to the next


def _physical_plan(grid: LayoutGrid, panels: int | None) -> _Plan:
    c0 = grid.line
    lines = grid.size // c0
    unit = _lines_per_group(grid)
    if panels is not None:
        per = ceil(lines / max(1, panels) / unit) * unit
    else:                              # a landscape picture of whole groups, no ragged panel
        def badness(per: int) -> float:
            count = ceil(lines / per)
            return abs(log(per / (count * (c0 + 3)) / 0.55)) + (0.5 if lines % per else 0)
        per = min((k * unit for k in range(1, ceil(lines / unit) + 1)
                   if ceil(lines / (k * unit)) <= 16), key=badness)
    count = ceil(lines / per)
    gap_in = 0.6
    cell = max(0.04, min(0.3, (10.0 - gap_in * (count - 1)) / (count * c0), 7.5 / per))
    step = c0 + ceil(gap_in / cell)      # whole cells: neighbours compare exactly
    offs = np.arange(grid.size)
    line = offs // c0
    xy = [(float((ln // per) * step + off % c0), float(ln % per))
          for off, ln in zip(offs.tolist(), line.tolist())]
    return _Plan(offs, offs.tolist(), xy, (count - 1) * step + c0, per, cell, per, step)


def _lines_per_group(grid: LayoutGrid) -> int:
    """32 B lines in one fractal (or one ND row / DN column) when that is whole, else 1."""
    if grid.box:
        elems = grid.box[0] * grid.box[1]
    else:
        elems = grid.cols if grid.major == "row" else grid.rows
    span = elems * grid.dtype.size
    return span // BLOCK_BYTES if span % BLOCK_BYTES == 0 else 1


def _logical_plan(grid: LayoutGrid) -> _Plan:
    rr, cc = np.indices((grid.rows, grid.cols))
    cell = max(0.04, min(0.3, 10.0 / grid.cols, 7.5 / grid.rows))
    return _Plan(grid.offsets.ravel(), list(zip(rr.ravel().tolist(), cc.ravel().tolist())),
                 [(float(c), float(r)) for r, c in zip(rr.ravel().tolist(),
                                                       cc.ravel().tolist())],
                 grid.cols, grid.rows, cell)


def _cells(ax: Any, verts: np.ndarray, face: Any, hatch: str | None, gid: str,
           cell: float) -> None:
    from matplotlib.collections import PolyCollection
    coll = PolyCollection(verts, facecolors=face,  # type: ignore[arg-type]  # (N, 4, 2) array
                          edgecolors="white", hatch=hatch,
                          linewidths=0.4 if cell >= 0.09 else 0)
    if hatch:
        coll.set_hatchcolor(PAD_HATCH)
        coll.set_hatch_linewidth(0.6)
    coll.set_gid(gid)
    ax.add_collection(coll)


def _outlines(plan: _Plan, group: np.ndarray) -> Any:
    """Thick lines wherever two neighbouring cells belong to different groups, plus the
    outer edge of every cell without a neighbour (the frame of each panel)."""
    from matplotlib.collections import LineCollection
    where = {xy: g for xy, g in zip(plan.xy, group.tolist())}
    across: set[tuple[float, float]] = set()    # unit edges (y, x) from (x, y) to (x+1, y)
    down: set[tuple[float, float]] = set()      # unit edges (x, y) from (x, y) to (x, y+1)
    for (x, y), g in where.items():
        for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            other = where.get((x + dx, y + dy))
            if other is None or (other != g and (dx > 0 or dy > 0)):
                if dy:
                    across.add((y + max(dy, 0), x))
                else:
                    down.add((x + max(dx, 0), y))
    segs = [((a, fixed), (b, fixed)) for fixed, a, b in _runs(across)]
    segs += [((fixed, a), (fixed, b)) for fixed, a, b in _runs(down)]
    lines = LineCollection(segs, colors=FRAME, linewidths=1.8, capstyle="projecting")
    lines.set_gid("outlines")
    return lines


def _runs(edges: set[tuple[float, float]]) -> list[tuple[float, float, float]]:
    """Unit edges (fixed, start) merged into maximal runs (fixed, start, end)."""
    out: list[tuple[float, float, float]] = []
    for fixed, start in sorted(edges):
        if out and out[-1][0] == fixed and out[-1][2] == start:
            out[-1] = (fixed, out[-1][1], start + 1)
        else:
            out.append((fixed, start, start + 1))
    return out


def _labels(ax: Any, grid: LayoutGrid, plan: _Plan, view: str, norm: Any, cmap: Any,
            values: np.ndarray) -> None:
    texts = [_label(grid, int(off), view) for off in plan.offsets]
    longest = max((len(t) for t in texts), default=1)
    points = plan.cell * 72
    size = min(8.0, 0.88 * points / (0.6 * max(longest, 2)), 0.55 * points)
    if size < 3.5:
        return
    for (x, y), off, text in zip(plan.xy, plan.offsets.tolist(), texts):
        if not text:
            continue
        if grid.state[off] == VALID:
            r, g, b, _ = cmap(norm(values[off]))
            ink = "white" if 0.299 * r + 0.587 * g + 0.114 * b < 0.5 else "black"
        else:
            ink = "#555555"
        ax.text(x + 0.5, y + 0.5, text, ha="center", va="center", fontsize=size, color=ink)


def _label(grid: LayoutGrid, off: int, view: str) -> str:
    if grid.state[off] == UNUSED:
        return ""
    return f"{grid.row[off]},{grid.col[off]}" if view == "physical" else str(off)


def _block_notes(ax: Any, grid: LayoutGrid, plan: _Plan, view: str) -> None:
    """Name each fractal (physical: its logical rows and columns; logical: its index and
    byte offset) in its middle, when it is a rectangle big enough to hold the note."""
    if not grid.box:
        return
    xy = np.array(plan.xy)
    blocks = grid.block[plan.offsets]
    for b in range(int(blocks.max()) + 1):
        pts = xy[blocks == b]
        if not len(pts):
            continue
        (x0, y0), (x1, y1) = pts.min(axis=0), pts.max(axis=0) + 1
        if (x1 - x0) * (y1 - y0) != len(pts) or (x1 - x0) * plan.cell < 0.9 \
                or (y1 - y0) * plan.cell < 0.45:
            continue
        offs = np.flatnonzero(grid.block == b)
        if view == "physical":
            rs, cs = grid.row[offs], grid.col[offs]
            note = f"rows {rs.min()}-{rs.max()}\ncols {cs.min()}-{cs.max()}"
        else:
            note = f"fractal {b}\nat byte {offs.min() * grid.dtype.size}"
        ax.text((x0 + x1) / 2, (y0 + y1) / 2, note, ha="center", va="center", fontsize=7.5,
                linespacing=1.25,
                bbox={"boxstyle": "round,pad=0.25", "fc": "white", "ec": "none",
                      "alpha": 0.8})


def _axes_text(ax: Any, grid: LayoutGrid, plan: _Plan, view: str) -> None:
    every = max(1, ceil(0.16 / plan.cell))          # at most one tick label per 0.16 in
    if view == "logical":
        ir, ic = grid.box or (8, 8)
        cols = range(0, grid.cols, _nice(every, ic))
        rows = range(0, grid.rows, _nice(every, ir))
        ax.set_xticks([c + 0.5 for c in cols], [str(c) for c in cols])
        ax.set_yticks([r + 0.5 for r in rows], [str(r) for r in rows])
        ax.tick_params(labelsize=7, length=2)
        ax.xaxis.tick_top()
        ax.xaxis.set_label_position("top")
        ax.set_xlabel("logical column", fontsize=8.5)
        ax.set_ylabel("logical row", fontsize=8.5)
        return
    c0, per = grid.line, plan.panel_lines
    lines = grid.size // c0
    unit = _lines_per_group(grid)
    step = unit * ceil(every / unit) if unit > 1 else _nice(every, 8)
    lane_every = _nice(every, c0)
    xt, xl = [], []
    for p in range(ceil(lines / per)):
        x0 = p * plan.panel_step
        for lane in range(0, c0, lane_every):
            xt.append(x0 + lane + 0.5)
            xl.append(str(lane))
        marks = [ln for ln in range(p * per, min(lines, (p + 1) * per) + 1)
                 if ln % step == 0 or ln == min(lines, (p + 1) * per)]
        for ln in marks if p else ():         # panel 0 uses the axis' own ticks
            ax.text(x0 - 0.07 / plan.cell, ln - p * per, str(ln * BLOCK_BYTES),
                        ha="right", va="center", fontsize=7)
        if not p:
            ax.set_yticks(marks, [str(ln * BLOCK_BYTES) for ln in marks])
    ax.set_xticks(xt, xl)
    ax.tick_params(labelsize=7, length=2)
    ax.set_ylabel("byte offset", fontsize=8.5)
    ax.set_xlabel(f"lane: element within the 32 B line (C0 = {c0})"
                  + (f"  ·  memory continues panel to panel, {per * BLOCK_BYTES} B each"
                     if lines > per else ""), fontsize=8.5)


def _nice(at_least: int, period: int) -> int:
    """A tick step >= at_least that divides or is a multiple of period (1 2 4 8 16 ...)."""
    step = 1
    while step < at_least:
        step *= 2
    return step if step <= period or period <= 0 else period * ceil(step / period)


def _legend(fig: Any, grid: LayoutGrid, states: set[int]) -> None:
    from matplotlib.patches import Patch
    handles = []
    if PADDING in states:
        handles.append(Patch(facecolor=PAD_FACE, hatch="///", edgecolor=PAD_HATCH,
                             label=f"padding (outside valid {grid.valid[0]}x{grid.valid[1]})"))
    if UNUSED in states:
        handles.append(Patch(facecolor="white", hatch="xx", edgecolor=PAD_HATCH,
                             label="unused (no logical element)"))
    if handles:
        fig.legend(handles=handles, loc="lower right", fontsize=8, frameon=False,
                   ncol=len(handles), bbox_to_anchor=(1, 0), borderaxespad=0.4)


# --- terminal ----------------------------------------------------------------------------

_ANSI = (31, 32, 33, 34, 35, 36)      # red green yellow blue magenta cyan, cycled by key


def render_terminal(layout: str | Layout | LayoutGrid, rows: int | None = None,
                    cols: int | None = None, dtype: str | DType = "f16", *,
                    valid: tuple[int, int] | None = None, fractal: int | None = None,
                    tile_type: str | None = None, view: str | None = None,
                    color: bool = True) -> str:
    """The layout as text. Physical view (tile default): one 32 B line per text line, each
    cell "r,c", a header line opening each fractal. Logical view (GM default): one logical
    row per line, each cell its offset, fractal boxes ruled off. Padding shows as "·",
    unused elements as "-"; ANSI colours by the logical row (or column) unless ``color``
    is False."""
    grid = _as_grid(layout, rows, cols, dtype, valid, fractal, tile_type)
    view = view or grid.default_view
    if view not in VIEWS:
        raise PtoError(f"view {view!r} is not one of {', '.join(VIEWS)}")
    paint = (lambda text, code: f"\x1b[{code}m{text}\x1b[0m") if color else \
        (lambda text, code: text)
    key = grid.row if grid.major == "row" else grid.col
    out = [paint(grid.title(), 1)]

    def cell(off: int, text: str, width: int) -> str:
        s = int(grid.state[off])
        if s == VALID:
            return paint(text.rjust(width), _ANSI[int(key[off]) % len(_ANSI)])
        return paint(("·" if s == PADDING else "-").rjust(width), 90)

    if view == "physical":
        c0 = grid.line
        width = max(len(f"{grid.rows - 1},{grid.cols - 1}"), len(str(c0 - 1)))
        pos = len(str(grid.size * grid.dtype.size))
        out.append(f"one line = 32 B = {c0} x {grid.dtype}; cell = logical row,col"
                   + _marks(grid, grid.state))
        out.append(" " * pos + " | " + " ".join(str(j).rjust(width) for j in range(c0)))
        for start in range(0, grid.size, c0):
            b = int(grid.block[start])
            if grid.box and b >= 0 and (start == 0 or grid.block[start - 1] != b):
                offs = np.flatnonzero(grid.block == b)
                rs, cs = grid.row[offs], grid.col[offs]
                out.append(paint(f"-- fractal {b}: rows {rs.min()}-{rs.max()}, "
                                 f"cols {cs.min()}-{cs.max()} --", 1))
            text = " ".join(cell(o, f"{grid.row[o]},{grid.col[o]}", width)
                            for o in range(start, start + c0))
            out.append(f"{start * grid.dtype.size:>{pos}} | {text}")
        return "\n".join(out) + "\n"
    ir, ic = grid.box or (grid.rows, grid.cols)
    width = max(len(str(grid.size - 1)), len(str(grid.cols - 1)))
    out.append("cell = element offset" + ("; | and -- = fractal boxes" if grid.box else "")
               + _marks(grid, grid.state[grid.offsets]))

    def row_text(cells: list[str]) -> str:
        parts = [" ".join(cells[c:c + ic]) for c in range(0, len(cells), ic)]
        return " | ".join(parts)

    pos = len(str(grid.rows - 1))
    head = row_text([str(c).rjust(width) for c in range(grid.cols)])
    out.append(" " * pos + "   " + head)
    for r in range(grid.rows):
        if r and r % ir == 0:
            out.append(" " * pos + "   " + "".join("+" if ch == "|" else "-" for ch in head))
        offs = grid.offsets[r].tolist()
        out.append(f"{r:>{pos}} | " + row_text([cell(o, str(o), width) for o in offs]))
    return "\n".join(out) + "\n"


def _marks(grid: LayoutGrid, states: np.ndarray) -> str:
    """The legend of the text grid's markers for the states that occur."""
    marks = [f"· = padding (outside valid {grid.valid[0]}x{grid.valid[1]})"
             if (states == PADDING).any() else "",
             "- = unused" if (states == UNUSED).any() else ""]
    return "".join(f"; {m}" for m in marks if m)
