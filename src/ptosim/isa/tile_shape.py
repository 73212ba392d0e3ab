"""Vector tile ops that rearrange a tile (issue 14): ``pto.ttrans`` (2-D transpose through a
scratch tile) and ``pto.tconcat`` (two tiles side by side). One row each in the generic DPS
text family (``ins(%src, %tmp) outs(%dst)``, ``ins(%src0, %src1) outs(%dst)``, PTOAS's
spelling); Python face as pto-isa's C++: ``m.TTRANS(dst, src, tmp)`` (``tmp`` may be left
out where the target does not stage through it), ``m.TCONCAT(dst, src0, src1)``.

Semantics in `ptosim.tile.shape`; docs/semantics.md "Further vector tile ops" records the
decisions, the write footprints and the a2a3 / a5 split.
"""

from __future__ import annotations

from math import prod

from .spec import Args, Operand, OpSpec
from .tile_sort import TileRule, _work


def _t(name: str, role: str = "R", optional: bool = False) -> Operand:
    return Operand(name, "tile", role, optional=optional)


def _trans_work(args: Args) -> tuple[int, int]:
    """tile_sort's one operation per valid element; conv tiles (a shape, no valid region:
    `ptosim.tile.conv.ConvTile`) count their largest shape's elements."""
    best, size = _work(args)
    for a in args:
        if getattr(a, "valid", None) is None and isinstance(getattr(a, "shape", None), tuple):
            n = prod(a.shape)
            if n > best:
                best, size = n, a.dtype.size
    return best, size


def _row(name: str, family: str, ins: tuple[Operand, ...],
         forms: tuple[tuple[str, ...], ...] = ()) -> OpSpec:
    work = _trans_work if family == "trans" else _work
    return OpSpec(name, "tile", "V", "vector", name.upper(), work=work, syntax="tile_dps",
                  operands=(Operand("dst", "tile", "W"), *ins), impl=TileRule(family),
                  forms=forms)


ROWS: tuple[OpSpec, ...] = (
    # tmp is scratch the a2a3 path writes (role W for the hazard checker)
    _row("ttrans", "trans", (_t("src"), _t("tmp", "W", optional=True))),
    _row("tconcat", "concat", (_t("src0"), _t("src1"))),
    # pto-isa's TCONCAT with index tiles: (dst, src0, src1, dst_idx, src0_idx, src1_idx) or
    # without dst_idx; PTOAS's pto.tconcatidx spells the latter, ins(src0, src1, src0Idx,
    # src1Idx) outs(dst)
    _row("tconcatidx", "concatidx", (_t("src0"), _t("src1"), _t("dst_idx", "W"),
                                     _t("src0_idx"), _t("src1_idx")),
         forms=(("src0", "src1", "src0_idx", "src1_idx"),)),
)

# Views: no data moves, the scalar unit only re-points a tile (PTOAS TReshapeOp getPipe:
# PIPE_S). The Python face returns the view (``m.TRESHAPE(src, dtype, rows, cols)``): a
# ptosim Tile is immutable, where pto-isa's C++ re-points its dst argument. TSUBVIEW is a
# Python-only method (`ptosim.tile.shape.tsubview`, pto-isa's TSUBVIEW); ``pto.subview`` is
# PTOAS's own view, lowered to a tile of the parent's physical shape with the window's valid
# region (`ptosim.tile.shape.pto_subview`).
VIEW_ROWS: tuple[OpSpec, ...] = (
    OpSpec("treshape", "view", "S", "any", "TRESHAPE"),
    OpSpec("subview", "view", "S", "any"),          # `.pto` only (see below)
    OpSpec("set_validshape", "view", "S", "any"),   # `.pto` only: a tile's dynamic valid
    OpSpec("get_validshape", "view", "S", "any"),   # region set / read at run time
)
ROWS += VIEW_ROWS
