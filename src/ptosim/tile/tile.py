"""`Tile`: a typed region of an on-chip buffer, as the reference C++ `Tile<...>` describes it.

A tile has a role (TileType), an element type, a physical Rows x Cols shape laid out by
(BLayout, SLayout, fractal size), a valid region, a pad value and a byte address in its
role's buffer. The static rules are those of pto-isa's tile template (docs/research/
tile-level.md §1.2-1.3); every violation is a VerifyError naming the rule.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ..dtypes import DType
from ..errors import NotImplementedOpError, SpaceError, VerifyError
from ..layout import Layout, fractal_box, layout_name, tile_layout
from ..machine import Ptr
from ..ops.cube import align
from ..targets import Target

TILE_TYPES = ("Vec", "Mat", "Left", "Right", "Acc", "Bias", "Scaling", "ScaleLeft", "ScaleRight")
SPACE_OF = {"Vec": "ub", "Mat": "l1", "Left": "l0a", "Right": "l0b", "Acc": "l0c", "Bias": "bt",
            "Scaling": "fb", "ScaleLeft": "l0a_mx", "ScaleRight": "l0b_mx"}
E8M0 = "f8E8M0FNU"      # the element type of MX scale (fractal 32) tiles
BLAYOUTS = ("RowMajor", "ColMajor")
SLAYOUTS = ("NoneBox", "RowMajor", "ColMajor")
PAD_NAMES = ("Null", "Zero", "Max", "Min")
COMPACT_MODES = ("Null", "Normal", "RowPlusOne")


def legal_layouts(tile_type: str, target: Target) -> frozenset[tuple[str, int]]:
    """(layout name, fractal) pairs a TileType may use on a target (its ``tile_layouts``)."""
    return target.tile_layouts.get(tile_type, frozenset())


def pad_element(pad: str | float | int, dt: DType) -> np.ndarray | None:
    """The element a pad value stands for (None for Null). Zero is 0; Max / Min are the
    type's infinities (floats) or extremes (integers); 64-bit, 8-bit float and packed types
    pad every named value with 0; a number is converted to the element type."""
    if pad == "Null":
        return None
    if pad in ("Zero", "Max", "Min"):
        if pad == "Zero" or dt.size == 8 or dt.kind == "packed" or dt.name.startswith("f8"):
            return np.zeros(1, dt.np)
        if dt.kind == "float":
            return np.array([np.inf if pad == "Max" else -np.inf], np.float32).astype(dt.np)
        info = np.iinfo(dt.np)
        return np.array([info.max if pad == "Max" else info.min], dt.np)
    return np.array([pad]).astype(dt.np)


@dataclass(frozen=True)
class Tile:
    """A placed tile. ``ptr`` points at its first byte; ``valid`` is (rows, cols)."""

    tile_type: str
    dtype: DType
    rows: int
    cols: int
    blayout: str
    slayout: str
    fractal: int
    valid: tuple[int, int]
    pad: str | float | int
    ptr: Ptr
    compact: str = "Normal"     # pto-isa CompactMode; only TMOV Vec ND -> NZ reads it
    # whether the valid rows / cols are DYNAMIC in pto-isa's terms (a `.pto` ``v_row=?`` /
    # ``v_col=?``, or ``m.tile(..., dynamic_valid=True)``), else template constants: a2a3
    # code picks its contiguous paths on them (docs/semantics.md "Footprint (TEXPANDS)")
    valid_dynamic: tuple[bool, bool] = (False, False)

    @property
    def name(self) -> str:
        """ND, DN, NZ, ZN, ZZ or NN."""
        return layout_name(self.blayout, self.slayout)

    @cached_property
    def layout(self) -> Layout:
        return tile_layout(self.name, self.rows, self.cols, self.dtype, self.fractal)

    @property
    def nbytes(self) -> int:
        return self.rows * self.cols * self.dtype.size

    def __repr__(self) -> str:
        vr, vc = self.valid
        return (f"Tile({self.tile_type}, {self.dtype.name}, {self.rows}x{self.cols} {self.name}, "
                f"valid {vr}x{vc}, at {self.ptr})")


def check_tile(op: str, tile_type: str, dt: DType, rows: int, cols: int, blayout: str,
               slayout: str, fractal: int, valid: tuple[int, int], pad: object,
               target: Target, row_align: bool = True) -> None:
    """The static rules of a tile descriptor (research notes §1.2-1.4). ``row_align``:
    pto-isa's rule that an ND row / DN column fills whole 32-byte blocks (PTOAS dropped
    it from its tile_buf verifier: `.pto` tiles pass False)."""
    if tile_type not in TILE_TYPES:
        raise VerifyError(f"unknown TileType {tile_type!r}; one of {', '.join(TILE_TYPES)}",
                          op=op)
    if blayout not in BLAYOUTS or slayout not in SLAYOUTS:
        raise VerifyError(f"blayout must be one of {BLAYOUTS} and slayout one of {SLAYOUTS}, "
                          f"got {blayout!r}, {slayout!r}", op=op)
    if fractal not in (512, 1024, 32):
        raise VerifyError(f"fractal size must be 512, 1024 or 32, got {fractal}", op=op)
    if not (isinstance(rows, int) and isinstance(cols, int) and rows > 0 and cols > 0):
        raise VerifyError(f"tile shape must be positive integers, got {rows}x{cols}", op=op)
    vr, vc = valid
    if not (0 <= vr <= rows and 0 <= vc <= cols):    # 0: an empty tile (pto-isa's
        raise VerifyError(f"valid region {vr}x{vc} must lie within the tile "   # assert)
                          f"{rows}x{cols}", op=op)
    name = layout_name(blayout, slayout)
    if (name, fractal) not in legal_layouts(tile_type, target):
        legal = ", ".join(f"{n}-{f}" for n, f in sorted(legal_layouts(tile_type, target)))
        raise VerifyError(f"a {tile_type} tile cannot be {name} with {fractal} B fractals on "
                          f"{target.name}; legal: {legal}", op=op)
    if fractal == 32:     # MX scales: 16 x 2 (ZZ) / 2 x 16 (NN) byte boxes
        # a Vec ZZ-32 tile is TMOV ND -> ZZ's destination, which a5 types u8 / hif8 too
        if dt.name != E8M0 and not (tile_type == "Vec" and dt.name in ("ui8", "hif8")):
            raise VerifyError(f"fractal-32 (MX scale) tiles hold {E8M0} (e8m0), got {dt.name}",
                              op=op)
        if rows == 1 and slayout != "RowMajor":
            raise NotImplementedOpError("one-row NN-32 (B scale) tiles are not implemented: "
                                        "only A scales have a one-row (GEMV) form", op=op)
    es = dt.size
    if slayout == "NoneBox" and row_align:
        if blayout == "RowMajor" and (cols * es) % 32 and rows != 1:
            raise VerifyError(f"an ND tile's row ({cols} x {es} B) must be a multiple of 32 "
                              f"bytes", op=op)
        if blayout == "ColMajor" and (rows * es) % 32 and cols != 1:
            raise VerifyError(f"a DN tile's column ({rows} x {es} B) must be a multiple of 32 "
                              f"bytes", op=op)
    elif slayout != "NoneBox":
        ir, ic = fractal_box(dt, slayout, fractal)
        if cols % ic:
            raise VerifyError(f"{name} tile cols {cols} must be a multiple of the fractal's "
                              f"{ic} columns", op=op)
        if rows % ir and tile_type != "Vec" and rows != 1:
            raise VerifyError(f"{name} tile rows {rows} must be a multiple of the fractal's "
                              f"{ir} rows", op=op)
    if pad not in PAD_NAMES and (isinstance(pad, bool) or not isinstance(pad, (int, float))):
        raise VerifyError(f"pad must be Null, Zero, Max, Min or a number, got {pad!r}", op=op)


def check_roles(op: str, roles: Sequence[tuple[str, object, str]]) -> None:
    """Each (operand name, value, TileType) must be a tile of that role."""
    for name, tile, role in roles:
        if not isinstance(tile, Tile) or tile.tile_type != role:
            raise SpaceError(f"{name} must be a {role} tile", op=op, operand=name)


def matmul_shape(op: str, acc: Tile, left: Tile, right: Tile,
                 bias: Tile | None) -> tuple[int, int, int]:
    """Roles and shapes of a TMATMUL family op; returns (m, n, k) from the valid shapes."""
    roles = [("acc", acc, "Acc"), ("left", left, "Left"), ("right", right, "Right")]
    if bias is not None:
        roles.append(("bias", bias, "Bias"))
    check_roles(op, roles)
    m, k = left.valid
    k2, n = right.valid
    if k != k2:
        raise VerifyError(f"left is {m}x{k} but right is {k2}x{n}: the K extents differ",
                          op=op)
    if (left.rows, left.cols, right.cols) != (acc.rows, right.rows, acc.cols):
        raise VerifyError(f"tile shapes must chain: left {left.rows}x{left.cols}, right "
                          f"{right.rows}x{right.cols}, acc {acc.rows}x{acc.cols}", op=op)
    if left.rows != align(m, 16) or right.cols != align(n, 16):
        raise VerifyError(f"mad reads align16(m) x align16(n) fractals: left rows "
                          f"{left.rows} must be {align(m, 16)} and right cols {right.cols} "
                          f"must be {align(n, 16)}", op=op)
    c0 = left.dtype.c0
    if left.name == "ZZ" and left.cols != align(k, c0):
        raise VerifyError(f"a ZZ left tile's row blocks are align(k, C0) = {align(k, c0)} "
                          f"wide for mad; got {left.cols} columns", op=op)
    return m, n, k
