"""Rows of the stateful unaligned loads / stores and the block-strided loads / stores
(syntax ``vector``; semantics in `ptosim.vector.stream`). Operand orders, result lists
and type rules follow PTOAS ``include/PTO/IR/VPTOOps.td`` and the verifiers in
``lib/PTO/IR/VPTO.cpp`` (``VldasOp::verify`` ... ``VsturOp::verify``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..vector import stream as S
from .spec import Operand, OpSpec
from .vector import _ptr, _vector, _word

_ALIGN = Operand("align", "align")


def _int_typed(*pairs: tuple[str, str]) -> Callable[[dict[str, Any]], str | None]:
    """Each named integer operand has the given type (i16 strides, i32 offsets)."""
    def check(t: dict[str, Any]) -> str | None:
        for name, want in pairs:
            if t.get(name) != want:
                return f"{name} must be {want}, got {t.get(name)}"
        return None
    return check


def _check_pstu(t: dict[str, Any]) -> str | None:
    (elem, _), g = t["base"], t["value"]
    want = {16: "ui16", 32: "ui32"}.get(g)
    if want is None:
        return f"value is !pto.mask<b{g}>; pstu stores b16 or b32 masks"
    if elem != want:
        return (f"value is !pto.mask<b{g}> so base must be !pto.ptr<{want}, ub>, got "
                f"{elem} elements")
    if t["base_out"] != t["base"]:
        return "base_out must have the type of base"
    return None


def _check_vsstb(t: dict[str, Any]) -> str | None:
    why = _int_typed(("block_stride", "i16"), ("repeat_stride", "i16"))(t)
    if why is None and t["post_update"] and t.get("updated_base") != t["destination"]:
        return "the updated base must have the type of destination"
    return why


ROWS: tuple[OpSpec, ...] = (
    # unaligned load stream
    _vector("vldas", (_ptr("source", "R", indexed=False),), (Operand("result", "align"),),
            S.vldas),
    _vector("vldus", (_ptr("source", "R", indexed=False), _ALIGN),
            (Operand("result", "vreg"), Operand("updated_align", "align")), S.vldus,
            result_kw="dtype"),
    # unaligned store stream and its flushes
    _vector("vstus", (Operand("align_in", "align"), Operand("offset", "int"),
                      Operand("value", "vreg"), _ptr("base", "W", indexed=False)),
            (Operand("align_out", "align"),), S.vstus, check=_int_typed(("offset", "i32"))),
    _vector("vstur", (Operand("align_in", "align"), Operand("value", "vreg"),
                      _ptr("base", "W", indexed=False), _word("mode", S.MODES)),
            (Operand("align_out", "align"),), S.vstur),
    _vector("pstu", (Operand("align_in", "align"), Operand("value", "mask"),
                     _ptr("base", "W", indexed=False)),
            (Operand("align_out", "align"), Operand("base_out", "ptr")), S.pstu,
            check=_check_pstu),
    _vector("vstas", (Operand("value", "align"), _ptr("destination", "W", indexed=False),
                      Operand("offset", "int")), (), S.vstas,
            check=_int_typed(("offset", "i32"))),
    _vector("vstar", (Operand("value", "align"), _ptr("destination", "W", indexed=False)),
            (), S.vstar),
    # block-strided
    _vector("vsldb", (_ptr("source", "R", indexed=False), Operand("block_stride", "scalar"),
                      Operand("repeat_stride", "scalar"), Operand("mask", "mask")),
            (Operand("result", "vreg"),), S.vsldb,
            check=_int_typed(("block_stride", "i16"), ("repeat_stride", "i16")),
            result_kw="dtype"),
    _vector("vsstb", (Operand("value", "vreg"), _ptr("destination", "W", indexed=False),
                      Operand("block_stride", "scalar"), Operand("repeat_stride", "scalar"),
                      Operand("mask", "mask")),
            (Operand("updated_base", "ptr", optional=True),), S.vsstb, check=_check_vsstb),
)
