"""Compare a kernel's output with a golden, element by element, and say where they differ.

An element matches when ``|got - want| <= atol + rtol * |want|`` (numpy's ``allclose``
rule), NaN matches NaN and infinities must be equal; integer outputs with the default
tolerances of 0 must be equal. Positions are reported in the output's logical shape
(``[row, col]`` for a 2-D shape), so a wrong stride or a missing transpose shows as a
pattern of positions rather than a flat offset.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .errors import PtoValueError


@dataclass
class Mismatch:
    index: tuple[int, ...]
    got: float
    want: float


@dataclass
class Comparison:
    """The result of one comparison (``render`` gives the report lines)."""

    name: str
    shape: tuple[int, ...]
    count: int                       # elements compared
    bad: int                         # elements that differ
    max_abs: float                   # largest |got - want| over differing elements
    worst: tuple[int, ...] | None    # where it is
    first: list[Mismatch] = field(default_factory=list)
    rows: list[int] = field(default_factory=list)   # 2-D: rows with a mismatch (first ones)

    @property
    def ok(self) -> bool:
        return self.bad == 0

    def render(self) -> list[str]:
        where = "x".join(map(str, self.shape))
        if self.ok:
            return [f"compare {self.name}: all {self.count} elements ({where}) match"]
        lines = [f"compare {self.name}: {self.bad} of {self.count} elements ({where}) differ; "
                 f"max |error| {self.max_abs:.6g} at {list(self.worst or ())}"]
        for m in self.first:
            lines.append(f"  {self.name}{list(m.index)}: got {m.got!r}, want {m.want!r}")
        if self.bad > len(self.first):
            lines.append(f"  ... {self.bad - len(self.first)} more")
        if self.rows:
            lines.append(f"  rows with a mismatch: {_ranges(self.rows)}")
        return lines


def _ranges(values: list[int]) -> str:
    """[0, 1, 2, 5, 7, 8] -> '0-2, 5, 7-8'."""
    runs: list[list[int]] = []
    for v in values:
        if runs and v == runs[-1][1] + 1:
            runs[-1][1] = v
        else:
            runs.append([v, v])
    return ", ".join(f"{a}-{b}" if b > a else f"{a}" for a, b in runs)


def parse_shape(text: str) -> tuple[int, ...]:
    """``40x64`` -> (40, 64)."""
    try:
        shape = tuple(int(x) for x in text.lower().split("x"))
    except ValueError:
        raise PtoValueError(f"a shape is written like 40x64, got {text!r}") from None
    if not shape or any(d <= 0 for d in shape):
        raise PtoValueError(f"shape dimensions must be positive, got {text!r}")
    return shape


def _closeness(got: np.ndarray, want: np.ndarray, atol: float, rtol: float
               ) -> tuple[np.ndarray, np.ndarray]:
    """|got - want| (f64) and which elements match (allclose's rule, NaN matches NaN)."""
    g, w = got.astype(np.float64), want.astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        diff = np.abs(g - w)
        close = diff <= atol + rtol * np.abs(w)
    close |= (g == w)                                    # equal infinities
    close |= np.isnan(g) & np.isnan(w)
    return diff, close


PICTURE_WIDTH = 64      # columns of the grid a flat output (no --shape) is drawn in


def mismatch_picture(name: str, got: np.ndarray, want: np.ndarray, path: Path, *,
                     atol: float = 0.0, rtol: float = 0.0,
                     shape: tuple[int, ...] | None = None) -> tuple[int, int]:
    """Where ``got`` and ``want`` differ, as a picture: matching elements light grey, the
    others coloured by |error| (log scale), a NaN or inf error black. A 2-D ``shape`` is
    drawn as it is; anything else as rows of `PICTURE_WIDTH` elements in flat order.
    Returns the grid drawn (rows, cols). Needs matplotlib (the ``plot`` extra)."""
    from .plotting import require_matplotlib, save_grid
    require_matplotlib()
    import matplotlib.pyplot as plt
    from matplotlib.colors import ListedColormap, LogNorm

    got, want = np.asarray(got).reshape(-1), np.asarray(want).reshape(-1)
    diff, close = _closeness(got, want, atol, rtol)
    if shape is not None and len(shape) == 2:
        rows, cols = shape
    else:
        cols = min(PICTURE_WIDTH, got.size)
        rows = -(-got.size // cols)
    flat_err = np.full(rows * cols, np.nan)
    flat_err[:got.size] = np.where(close, np.nan, diff)
    flat_ok = np.full(rows * cols, np.nan)
    flat_ok[:got.size] = np.where(close, 1.0, np.nan)
    grid, ok = flat_err.reshape(rows, cols), flat_ok.reshape(rows, cols)
    fig, ax = plt.subplots(figsize=(max(6.0, min(12, 2 + cols / 8)),
                                    max(4.0, min(10, 1.5 + rows / 8))))
    ax.imshow(ok, cmap=ListedColormap(["#dddddd"]), interpolation="nearest", aspect="auto")
    finite = np.isfinite(grid)
    errors = grid[finite & (grid > 0)]
    if errors.size:
        image = ax.imshow(np.where(finite & (grid > 0), grid, np.nan), cmap="plasma",
                          norm=LogNorm(float(errors.min()), float(max(errors.max(),
                                                                     errors.min() * 1.01))),
                          interpolation="nearest", aspect="auto")
        fig.colorbar(image, ax=ax, label="|error|")
    special = ~np.isnan(grid) & ~finite
    if special.any():
        ax.imshow(np.where(special, 1.0, np.nan), cmap=ListedColormap(["black"]),
                  interpolation="nearest", aspect="auto")
    bad = int((~close).sum())
    layout = (f"{rows}x{cols}" if shape is not None and len(shape) == 2
              else f"flat order, {cols} per row")
    ax.set_title(f"{name}: {bad} of {got.size} elements differ ({layout}); grey: match, "
                 f"black: NaN / inf error", fontsize=9)
    save_grid(fig, ax, path)
    return rows, cols


def compare(name: str, got: np.ndarray, want: np.ndarray, *, atol: float = 0.0,
            rtol: float = 0.0, shape: tuple[int, ...] | None = None,
            show: int = 10) -> Comparison:
    """Compare ``got`` with ``want`` (same element count) in ``shape`` (default flat)."""
    got, want = np.asarray(got).reshape(-1), np.asarray(want).reshape(-1)
    if got.size != want.size:
        raise PtoValueError(f"{name} has {got.size} elements but its golden has {want.size}")
    shape = shape or (got.size,)
    if int(np.prod(shape)) != got.size:
        raise PtoValueError(f"shape {'x'.join(map(str, shape))} holds {int(np.prod(shape))} "
                            f"elements but {name} has {got.size}")
    if atol < 0 or rtol < 0:
        raise PtoValueError(f"tolerances must be >= 0, got atol={atol}, rtol={rtol}")
    diff, close = _closeness(got, want, atol, rtol)
    bad_flat = np.flatnonzero(~close)
    if bad_flat.size == 0:
        return Comparison(name, shape, got.size, 0, 0.0, None)
    errs = np.where(np.isnan(diff[bad_flat]), np.inf, diff[bad_flat])
    worst = int(bad_flat[int(np.argmax(errs))])
    first = [Mismatch(tuple(int(i) for i in np.unravel_index(int(k), shape)),
                      got[k].item(), want[k].item()) for k in bad_flat[:show]]
    rows: list[int] = []
    if len(shape) == 2:
        rows = sorted({int(k) // shape[1] for k in bad_flat})[:64]
    return Comparison(name, shape, got.size, int(bad_flat.size), float(errs.max()),
                      tuple(int(i) for i in np.unravel_index(worst, shape)), first, rows)
