"""``ptosim run --dump BUFFER@LINE``: a buffer's bytes as a numpy file, taken right after
the op on a kernel line runs (the last time it runs, or its Nth run with ``#N``).

BUFFER names raw memory: an on-chip buffer (``l1``, ``l0a``, ``l0b``, ``l0c``, ``bt``,
``fb``, ``ub`` = AIV0's UB, ``ub1`` = AIV1's), optionally of another block (``block2.l1``),
or a GM kernel parameter (``%c``); such a file holds the bytes as ``uint8``. Or a tile
operand of the op on that line (``%y``, an ``alloc_tile`` result the op reads or writes):
its valid region in logical (row, column) order and its element type, plus a picture
(``.png``, with matplotlib: ``pip install 'ptosim[plot]'``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import PtoValueError
from ..mlir.ir import Operation
from ..plotting import MissingDependencyError, require_matplotlib, save_grid
from .diagnostics import split_loc

_SPEC = re.compile(r"^(?:block(\d+)\.)?(%[\w.$-]+|ub1?|l1|l0a|l0b|l0c|bt|fb)@(\d+)(?:#(\d+))?$")


@dataclass
class DumpRequest:
    text: str                # as the user wrote it
    buffer: str              # "l1", "ub1", "%c" ...
    block: int
    line: int
    nth: int | None          # 1-based run of the op to take; None: the last
    seen: int = 0
    data: np.ndarray | None = None
    tile: Any = None            # the Tile when BUFFER named a tile operand of the op
    whole: np.ndarray | None = None     # that tile's rows x cols (padding too), for the picture

    @property
    def filename(self) -> str:
        block = f"block{self.block}." if self.block else ""
        which = f"-{self.nth}" if self.nth else ""
        return f"dump-{block}{self.buffer.lstrip('%')}-L{self.line}{which}.npy"


def parse_dump(text: str) -> DumpRequest:
    m = _SPEC.match(text)
    if m is None:
        raise PtoValueError(f"--dump expects BUFFER@LINE[#N] with BUFFER one of l1 l0a l0b l0c "
                            f"bt fb ub ub1 (optionally blockK.) or a GM parameter %name, got "
                            f"{text!r}")
    nth = int(m[4]) if m[4] else None
    if nth == 0:
        raise PtoValueError(f"--dump {text}: runs are counted from 1")
    return DumpRequest(text, m[2], int(m[1] or 0), int(m[3]), nth)


class Dumper:
    """An executor observer that copies the requested buffers after their ops."""

    def __init__(self, requests: list[DumpRequest], machine: Any,
                 locate: Callable[[Operation], str | None]) -> None:
        self.requests = requests
        self.machine = machine
        self.locate = locate
        self._op: Operation | None = None
        self._tiles: dict[str, Any] = {}

    def _buffer(self, req: DumpRequest) -> np.ndarray:
        m = self.machine
        if req.buffer.startswith("%"):
            for alloc in m._gm:
                if alloc.name and alloc.name.split(" ")[0] == req.buffer:
                    return alloc.data
            raise PtoValueError(f"--dump {req.text}: no GM parameter {req.buffer}")
        if req.block >= len(m.blocks):
            raise PtoValueError(f"--dump {req.text}: block {req.block} does not exist "
                                f"(block_dim = {len(m.blocks)})")
        blk = m.blocks[req.block]
        if req.buffer in ("ub", "ub1"):
            return blk.ub[1 if req.buffer == "ub1" else 0]
        return blk.cube[req.buffer]

    def begin_op(self, core: Any, op: Operation, spec: Any, args: list[Any], pipe: str,
                 kwargs: dict[str, Any] | None = None) -> None:
        self._op = op
        self._tiles.clear()
        call = getattr(op, "tile_call", None)
        if call is not None:        # tile operands by their SSA names, for %name dumps
            from ..tile.tile import Tile
            for value, arg in zip(call()[0], args):
                if isinstance(arg, Tile) and getattr(value, "name_hint", None):
                    self._tiles["%" + value.name_hint] = arg

    def _is_gm(self, name: str) -> bool:
        return any(a.name and a.name.split(" ")[0] == name for a in self.machine._gm)

    def end_op(self) -> None:
        op, self._op = self._op, None
        where = split_loc(self.locate(op)) if op is not None else None
        if where is None:
            return
        line = where[1]
        for req in self.requests:
            if req.line == line:
                tile = self._tiles.get(req.buffer) if req.buffer.startswith("%") and \
                    not self._is_gm(req.buffer) else None
                if tile is not None and req.block and tile.ptr.block != req.block:
                    continue
                req.seen += 1
                if req.nth is None or req.seen == req.nth:
                    if tile is not None:
                        req.tile, req.data = tile, self.machine.read_tile(tile)
                        req.whole = _whole_tile(self.machine, tile)
                    else:
                        req.data = self._buffer(req).copy()

    def __getattr__(self, name: str) -> Callable[..., None]:
        # the other observer events (access, flags, semaphores) do not matter here
        return lambda *args, **kwargs: None


def _whole_tile(machine: Any, t: Any) -> np.ndarray:
    """Every element of the tile (valid region and padding) in logical (row, col) order."""
    buf, off = machine._region(t.ptr, t.nbytes, access="R", op="dump", operand="tile")
    return t.layout.view(buf, off, t.dtype).reshape(t.rows, t.cols).copy()


def write_dumps(requests: list[DumpRequest], folder: Path) -> list[str]:
    """Save every dump taken; returns a line per request (file or why none)."""
    lines = []
    for req in requests:
        if req.data is None:
            why = "its op did not run" if req.seen == 0 else \
                f"its op ran {req.seen} time(s), not {req.nth}"
            lines.append(f"dump {req.text}: nothing taken, {why} (micro and tile ops only)")
            continue
        path = folder / req.filename
        np.save(path, req.data)
        run = req.seen if req.nth is None else req.nth
        if req.tile is None:
            lines.append(f"dump {req.text}: {req.data.size:,} bytes after run {run} of line "
                         f"{req.line} in {path}")
            continue
        t = req.tile
        what = (f"dump {req.text}: the {t.tile_type} tile's valid {t.valid[0]}x{t.valid[1]} "
                f"{t.dtype.name} after run {run} of line {req.line} in {path}")
        try:
            picture = path.with_suffix(".png")
            tile_picture(req.whole if req.whole is not None else req.data, t,
                         f"{req.buffer} after line {req.line}", picture)
            lines.append(f"{what} (picture {picture})")
        except MissingDependencyError as err:
            lines.append(f"{what} (no picture: {err})")
    return lines


def tile_picture(values: np.ndarray, tile: Any, title: str, path: Path) -> bool:
    """A heat map of a tile in logical (row, col) order: NaN cells black, +inf white, -inf
    grey, a colour bar for the finite values. ``values`` is the whole tile or its valid
    region; a valid region smaller than the values drawn is outlined in red (returns
    whether it was)."""
    require_matplotlib()
    import matplotlib.pyplot as plt
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Rectangle

    x = values.astype(np.float64) if values.dtype.kind in "fiub" else \
        values.astype(np.float32).astype(np.float64)
    rows, cols = x.shape
    vr, vc = min(tile.valid[0], rows), min(tile.valid[1], cols)
    fig, ax = plt.subplots(figsize=(max(6.0, min(12, 2 + cols / 8)),
                                    max(4.0, min(10, 1.5 + rows / 8))))
    finite = np.isfinite(x)
    # the colour scale follows the valid region: padding (often a huge pad value) would
    # flatten it
    scale = x[:vr, :vc][finite[:vr, :vc]]
    limits = (float(scale.min()), float(scale.max())) if scale.size else (None, None)
    shown = np.where(finite, x, np.nan)
    image = ax.imshow(shown, cmap="viridis", interpolation="nearest", aspect="auto",
                      vmin=limits[0], vmax=limits[1])
    for mask, colour in ((np.isnan(x), "black"), (x == np.inf, "white"),
                         (x == -np.inf, "grey")):
        if mask.any():
            ax.imshow(np.where(mask, 1.0, np.nan), cmap=ListedColormap([colour]),
                      interpolation="nearest", aspect="auto")
    outlined = (vr, vc) != (rows, cols)
    if outlined:
        ax.add_patch(Rectangle((-0.5, -0.5), vc, vr, fill=False, edgecolor="red",
                               linewidth=2.5))
    fig.colorbar(image, ax=ax)
    valid = f"valid {vr}x{vc}" + (" (red outline)" if outlined else "")
    ax.set_title(f"{title}: {tile.tile_type} {tile.dtype.name} {tile.rows}x{tile.cols}, "
                 f"{valid}\n(NaN black, +inf white, -inf grey)", fontsize=9)
    save_grid(fig, ax, path)
    return outlined
