"""Tile handles and views read by the scalar unit: PTOAS's ``pto.tgetval`` / ``pto.tsetval``
(one element of a Vec tile, PIPE_S), ``pto.tassign`` (a tile bound to an address),
``pto.tile_valid_rows`` / ``pto.tile_valid_cols`` (a tile's valid region),
``pto.get_tensor_view_dim`` / ``pto.get_tensor_view_stride`` and ``pto.tensor_view_addr``
(a GM view's sizes, strides and address). Hand-written front-end classes in
`ptosim.frontend.tile_handle`; semantics in `ptosim.tile.handle` and the interpreter."""

from __future__ import annotations

from .spec import OpSpec


def _scalar_access(args: object) -> tuple[int, int]:
    return 0, 2                       # a scalar move: no arithmetic


ROWS: tuple[OpSpec, ...] = (
    # the scalar unit's element accesses: tile ops on the S pipe of the vector core
    # (PTOAS TGetValOp / TSetValOp getPipe PIPE_S)
    OpSpec("tgetval", "tile", "S", "vector", "TGETVAL", work=_scalar_access),
    OpSpec("tsetval", "tile", "S", "vector", "TSETVAL", work=_scalar_access),
    # handles and views: no bytes move
    OpSpec("tassign", "view", "S", "any", "TASSIGN"),
    OpSpec("tile_valid_rows", "view", "S", "any"),
    OpSpec("tile_valid_cols", "view", "S", "any"),
    OpSpec("get_tensor_view_dim", "view", "S", "any"),
    OpSpec("get_tensor_view_stride", "view", "S", "any"),
    OpSpec("tensor_view_addr", "view", "S", "any"),
)
