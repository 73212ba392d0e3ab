"""The unobserved fast path of the vector tile ops (``m.TADD`` ...), and the cached numpy
views of tiles it reads and writes.

Nothing about a tile op's outcome depends on anything but its tiles (immutable
descriptors), its scalar operands and its keywords. So, while no observer watches the
machine (``Machine.access_hook`` is None: no hazard checker, access log, provenance /
initcheck or timeline), `plan` checks the static rules of a call once per (op, tile
objects, operand kinds, keywords) and keeps a plan for it: the family function with the
operand names bound, or, for elementwise families whose lane function is a bare numpy
ufunc (`alu.NATIVE`), that ufunc writing straight into the destination's valid region
(as one flat run when the region is whole rows). A call on the very same operand objects
as an earlier one finds its plan by their ids alone (`remember`). Every byte is the same
as on the observed path (tests/test_tile_fastpath.py compares both); when an observer is
attached every op takes the observed path with all hooks.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..isa import alu
from .tile import Tile

if TYPE_CHECKING:
    from .ops import TileOps

# Plans and views hold their tiles (so an id() in a key cannot be reused while it is
# cached); a kernel that makes fresh tiles in a loop would grow the caches without end,
# so each is emptied when it reaches this many entries.
LIMIT = 4096

try:        # numpy >= 2: entering np.errstate costs ~1-3 us a call; setting its context
    # variable straight to a prebuilt "ignore all" state is the same thing without that
    from numpy._core._ufunc_config import (  # type: ignore[attr-defined]
        _extobj_contextvar,
        _make_extobj,
    )
    _IGNORE: Any = _make_extobj(all="ignore")
except (ImportError, AttributeError, TypeError):    # pragma: no cover - other numpy
    _extobj_contextvar = None
    _IGNORE = None


def quiet(fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` with numpy's float warnings off and `alu`'s quiet-run flag raised, so
    its lane functions skip entering np.errstate themselves (`alu.quiet_floats`, without
    the generator's cost)."""
    if alu._QUIET[0]:                       # a kernel run holds np.errstate already
        return fn(*args)
    if _extobj_contextvar is None:          # pragma: no cover - other numpy
        with alu.quiet_floats():
            return fn(*args)
    token = _extobj_contextvar.set(_IGNORE)
    alu._QUIET[0] += 1
    try:
        return fn(*args)
    finally:
        alu._QUIET[0] -= 1
        _extobj_contextvar.reset(token)


def ufunc_quiet(ufunc: np.ufunc, *xs: Any, out: np.ndarray) -> None:
    """``ufunc(*xs, out=out)`` with numpy's float warnings off."""
    if alu._QUIET[0]:
        ufunc(*xs, out=out)
        return
    if _extobj_contextvar is None:          # pragma: no cover - other numpy
        with np.errstate(all="ignore"):
            ufunc(*xs, out=out)
        return
    token = _extobj_contextvar.set(_IGNORE)
    try:
        ufunc(*xs, out=out)
    finally:
        _extobj_contextvar.reset(token)


def ufunc_plan(ufunc: np.ufunc, *xs: np.ndarray, out: np.ndarray) -> Plan:
    """A plan running ``ufunc(*xs, out=out)`` quietly: `ufunc_quiet` unrolled into one
    closure per arity (this is the whole cost of a repeated elementwise op but numpy's)."""
    flag, cv, ignore = alu._QUIET, _extobj_contextvar, _IGNORE
    if cv is None:                          # pragma: no cover - other numpy
        return lambda a: ufunc_quiet(ufunc, *xs, out=out)
    if len(xs) == 1:
        (x,) = xs

        def one(a: Sequence[Any]) -> None:
            if flag[0]:
                ufunc(x, out=out)
                return
            token = cv.set(ignore)
            try:
                ufunc(x, out=out)
            finally:
                cv.reset(token)
        return one
    x, y = xs

    def two(a: Sequence[Any]) -> None:
        if flag[0]:
            ufunc(x, y, out=out)
            return
        token = cv.set(ignore)
        try:
            ufunc(x, y, out=out)
        finally:
            cv.reset(token)
    return two


def nd_view(m: TileOps, t: Tile, operand: str) -> np.ndarray:
    """The whole ND tile as a writable (rows, cols) view of its buffer, built (and bounds
    checked, with the observed path's error) once per tile and machine. On-chip buffers
    never move, so the view stays valid; callers use it only while nothing observes."""
    cache = m.__dict__.get("_tile_views")
    if cache is None:
        cache = m.__dict__["_tile_views"] = {}
    hit = cache.get(id(t))
    if hit is not None and hit[0] is t:
        return hit[1]
    buf, off = m._region(t.ptr, t.nbytes, access="R", op="tile", operand=operand)
    view = buf[off:off + t.nbytes].view(t.dtype.np).reshape(t.rows, t.cols)
    if t.ptr.space != "gm":                 # a GM region may be a scratch window: not kept
        if len(cache) >= LIMIT:
            cache.clear()
        cache[id(t)] = (t, view)
    return view


Plan = Callable[[Sequence[Any]], None]


def lookup(m: TileOps, name: str, args: Sequence[Any], kw: dict[str, Any]
           ) -> tuple[tuple[Any, ...] | None, Plan | None]:
    """(key, plan): the cached plan of this call, or its key (None: not cacheable)."""
    key: tuple[Any, ...] = (name, *[id(a) if type(a) is Tile else type(a) for a in args])
    if kw:
        key += tuple(kw.items())
    cache = m.__dict__.get("_vec_plans")
    if cache is None:
        cache = m.__dict__["_vec_plans"] = {}
    try:
        hit = cache.get(key)
    except TypeError:                       # an unhashable keyword value
        return None, None
    if hit is None:
        return key, None
    return key, hit[1]


def store(m: TileOps, key: tuple[Any, ...], args: Sequence[Any], plan: Plan,
          kw: dict[str, Any]) -> None:
    """Keep ``plan`` under its key, and (calls without keywords) by identity too."""
    cache = m.__dict__["_vec_plans"]
    if len(cache) >= LIMIT:
        cache.clear()
    cache[key] = ([a for a in args if type(a) is Tile], plan)
    if not kw:
        remember(m, key[0], args, plan)


def remember(m: TileOps, name: str, args: Sequence[Any], plan: Plan) -> None:
    """Keep ``plan`` under (op name, id of every operand) in ``_vec_ids``: a call repeating
    an earlier one on the very same operand objects finds it with the cheapest key
    (`vector.method`'s call, while nothing observes). The entry holds the operands, scalars
    too, so no other object can take one of those ids while it is cached."""
    ids = m.__dict__.setdefault("_vec_ids", {})
    if len(ids) >= LIMIT:                   # (a loop of fresh scalar objects fills it)
        ids.clear()
    ids[(name, *map(id, args))] = (tuple(args), plan)


def flat(m: TileOps, t: Tile, operand: str, rows: int, cols: int, whole: bool
         ) -> np.ndarray:
    """The first ``rows`` x ``cols`` of a tile: one flat run when every tile of the call
    has exactly ``cols`` columns (``whole``: a 1-D ufunc call costs numpy less than the
    same elements in 2-D), else a 2-D view."""
    view = nd_view(m, t, operand)
    return view[:rows].reshape(-1) if whole else view[:rows, :cols]


def elementwise(m: TileOps, family: str, lane: str, names: Sequence[str], args: Sequence[Any],
                scalar: Callable[[Any], Any] | None) -> Plan | None:
    """A plan writing ``ufunc(src..., out=dst's valid region)`` for the binary, scalar and
    unary families when every tile has dst's valid region and `alu.NATIVE` has the lane
    function for the element type (None otherwise: the family function runs). ``scalar``
    converts a scalar operand as the family does (validation included)."""
    dst = args[0]
    ufunc = alu.NATIVE.get((lane, dst.dtype.name))
    if ufunc is None:
        return None
    tiles = [a for a in args[1:] if type(a) is Tile]
    if any(t.valid != dst.valid or t.dtype.name != dst.dtype.name for t in tiles):
        return None
    vr, vc = dst.valid
    whole = all(t.cols == vc for t in (dst, *tiles))
    out = flat(m, dst, "dst", vr, vc, whole)
    if family == "unary":
        src = flat(m, tiles[0], "src", vr, vc, whole)
        return ufunc_plan(ufunc, src, out=out)
    if family == "binary" and list(names) == ["src0", "src1"]:
        x = flat(m, tiles[0], "src", vr, vc, whole)
        y = flat(m, tiles[1], "src", vr, vc, whole)
        return ufunc_plan(ufunc, x, y, out=out)
    if family == "scalar" and list(names) == ["src", "scalar"] and scalar is not None:
        x = flat(m, tiles[0], "src", vr, vc, whole)
        dt = dst.dtype
        conv = scalar
        floating = dt.is_float
        last: list[Any] = [None, None]      # the last scalar object and its conversion
        flag, cv, ignore = alu._QUIET, _extobj_contextvar, _IGNORE

        def run(a: Sequence[Any]) -> None:
            s = a[2]
            if s is not last[0]:            # the family's checks and conversion, once per
                v = conv(s)                 # scalar object (alu._arr's: floats by
                last[1] = quiet(_scalar_float, v, dt.np) if floating else alu._arr(v, dt)
                last[0] = s                 # np.asarray(s).astype, under quiet here)
            if flag[0] or cv is None:       # (ufunc_quiet, unrolled: the whole cost of a
                ufunc_quiet(ufunc, x, last[1], out=out)     # repeated call but numpy's)
                return
            token = cv.set(ignore)
            try:
                ufunc(x, last[1], out=out)
            finally:
                cv.reset(token)
        return run
    return None


def _scalar_float(s: float, np_dt: Any) -> np.ndarray:
    return np.asarray(s).astype(np_dt)
