"""Tile-level `.pto` ops in the interpreter: tensor views, tile allocation, the tile ops.

Views are GlobalTensors. A `make_tensor_view` without an explicit layout is resolved when
a tile op uses it: a Vec tile's own ND / DN / NZ layout, else the first reading among (the
stride-inferred ND or DN, then NZ) whose logical shape equals the tile's valid region
(docs/semantics.md, "Tile level in .pto").
Tile ops call the Machine's tile methods (TLOAD, TMATMUL ...) with the same arguments as
the Python API.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import ml_dtypes
import numpy as np

from ..errors import PtoError
from ..mlir.ir import Operation, SSAValue
from ..tile.tensor import GlobalTensor
from ..tile.tile import Tile

# Largest finite value per float type: what a `.pto` tile's pad Max (Min: its negation)
# stands for.
_FINITE_MAX = {"f16": 65504.0, "bf16": float(ml_dtypes.finfo(ml_dtypes.bfloat16).max),
               "f32": float(np.finfo(np.float32).max)}


class TileKernelError(PtoError):
    """A tile-level `.pto` construct ptosim cannot evaluate as written."""


@dataclass(frozen=True)
class View:
    """A tensor view as written: the GlobalTensor plus whether its layout was explicit."""

    tensor: GlobalTensor
    explicit: bool


def make_view(machine: Any, ptr: Any, shape: list[int], strides: list[int],
              layout: str | None) -> View:
    """Right-align a rank <= 5 view into 5-D (leading sizes 1, packed leading strides)."""
    if not 1 <= len(shape) <= 5 or len(shape) != len(strides):
        raise TileKernelError(f"a tensor view needs 1 to 5 sizes and as many strides, got "
                              f"{len(shape)} and {len(strides)}")
    s = [1] * (5 - len(shape)) + list(shape)
    t = [0] * (5 - len(strides)) + list(strides)
    for i in range(4 - len(shape), -1, -1):
        t[i] = s[i + 1] * t[i + 1]
    guess = layout or ("DN" if t[3] == 1 and t[4] == s[3] and s[3] > 1 else "ND")
    return View(machine.global_tensor(ptr, tuple(s), tuple(t), guess), layout is not None)


def partition(machine: Any, view: View, offsets: list[int], sizes: list[int]) -> View:
    """A window of a view: base moved by the offsets, sizes replaced, strides kept."""
    g = view.tensor
    if len(offsets) != len(sizes) or not 1 <= len(sizes) <= 5:
        raise TileKernelError(f"partition_view needs matching offsets and sizes (1 to 5), got "
                              f"{len(offsets)} and {len(sizes)}")
    pad = 5 - len(sizes)
    off = [0] * pad + list(offsets)
    size = list(g.shape[:pad]) + list(sizes)
    for o, z, full in zip(off, size, g.shape):
        if o < 0 or z < 1 or o + z > full:
            raise TileKernelError(f"partition offsets {offsets} and sizes {sizes} leave the "
                                  f"view of shape {list(g.shape)}")
    base = g.ptr + sum(o * st for o, st in zip(off, g.stride))
    return View(machine.global_tensor(base, tuple(size), g.stride, g.layout), view.explicit)


Memref = tuple[int, list[int], list[int], str | None]


def memref_operands(pos: list[Any], op: Any = None) -> list[Memref]:
    """(position, shape, strides, layout) of a tile op's operands typed as statically
    shaped GM memrefs: a kernel argument (a Ptr at run time) that the op takes as a tensor
    view (`frontend.tile_types.memref_view`), made one with `make_view`. The layout is the
    op's ``{layout = #pto.layout<...>}`` (PTOAS builds such a view's GlobalTensor with the
    layout attribute of the op that takes it), else None (inferred)."""
    from ..frontend.tile_types import LayoutAttr, memref_view
    attr = getattr(op, "attributes", {}).get("layout")
    layout = attr.value.data.upper() if isinstance(attr, LayoutAttr) else None
    out = []
    for i, a in enumerate(pos):
        mem = memref_view(a.type) if isinstance(a, SSAValue) else None
        if mem is not None:
            out.append((i, mem[0], mem[1], layout))
    return out


def tile_op_args(machine: Any, values: list[Any], memrefs: list[Memref]) -> list[Any]:
    """A tile op's operand values as its Machine method takes them: the ones typed as GM
    memrefs (``memrefs``, from `memref_operands`; a Ptr at run time) made tensor views,
    then every view `resolve`d."""
    for i, shape, strides, layout in memrefs:
        values[i] = make_view(machine, values[i], shape, strides, layout)
    return resolve(values)


def resolve(args: list[Any]) -> list[Any]:
    """Views -> GlobalTensors, choosing an implicit view's layout from its tile: a Vec
    tile's own ND / DN / NZ layout (PTOAS picks the tload / tstore template by the tile's
    layout alone), else the stride guess, then the reading that fits the valid shape."""
    tile = next((a for a in args if isinstance(a, Tile)), None)
    out = []
    for a in args:
        if isinstance(a, View):
            g = a.tensor
            if not a.explicit and tile is not None and tile.tile_type == "Vec" \
                    and tile.name in ("ND", "DN", "NZ"):
                g = replace(g, layout=tile.name)
            elif not a.explicit and tile is not None and (g.rows, g.cols) != tile.valid:
                for kind in ("NZ", "DN" if g.layout == "ND" else "ND"):
                    cand = replace(g, layout=kind)
                    if (cand.rows, cand.cols) == tile.valid:
                        g = cand
                        break
            out.append(g)
        else:
            out.append(a)
    return out


def alloc_tile(machine: Any, info: dict[str, Any], addr: int | None,
               valid_row: int | None, valid_col: int | None, sub: int, op: Operation) -> Tile:
    vr, vc = info["valid"]
    vr = valid_row if valid_row is not None else vr
    vc = valid_col if valid_col is not None else vc
    if vr is None or vc is None:
        raise TileKernelError(f"{op.name}: a dynamic valid shape ('?') needs valid_row / "
                              f"valid_col operands")
    pad = info["pad"]
    if pad in ("Max", "Min") and info["dtype"] in _FINITE_MAX:
        # PTOAS lowers a float tile's pad Max / Min to the largest finite value (its
        # TileLang PadValue.eval), where pto-isa's C++ uses +-inf (docs/semantics.md)
        pad = _FINITE_MAX[info["dtype"]] * (1 if pad == "Max" else -1)
    tile = machine._new_tile(info["tile_type"], info["dtype"], info["rows"], info["cols"],
                             info["blayout"], info["slayout"], info["fractal"], (vr, vc), pad,
                             addr, sub if info["tile_type"] == "Vec" else 0, row_align=False,
                             op="alloc_tile", no_room=_NO_ROOM,
                             compact=info.get("compact", "Normal"))
    return with_valid_kind(tile, info)


def with_valid_kind(tile: Tile, info: dict[str, Any]) -> Tile:
    """``tile`` marked with which valid dims its `.pto` type leaves dynamic (``?``):
    PTOAS passes those to pto-isa as DYNAMIC, the others as template constants."""
    dyn = (info["valid"][0] is None, info["valid"][1] is None)
    return replace(tile, valid_dynamic=dyn) if dyn != tile.valid_dynamic else tile


# what to do when automatic placement runs out of room, for a kernel (not the Python face)
_NO_ROOM = (": the kernel's tiles without addr do not fit together (each alloc_tile keeps "
            "its bytes for the whole run); give alloc_tile an addr operand to share bytes "
            "between tiles that are not live at once")
