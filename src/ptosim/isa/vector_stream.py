"""Unaligned loads and block-strided loads / stores, one row each (syntax ``vector``;
semantics in `ptosim.vector.stream`). Forms (PTOAS docs/isa/micro-isa/03-vector-load-store.md):

    %a = pto.vldas %p : !pto.ptr<f32, ub> -> !pto.align
    %v, %a2 = pto.vldus %p, %a : !pto.ptr<f32, ub>, !pto.align -> !pto.vreg<64xf32>, !pto.align
    %v = pto.vsldb %p, %bs, %rs, %m : !pto.ptr<f32, ub>, i16, i16, !pto.mask<b32> -> V
    pto.vsstb %v, %p, %bs, %rs, %m : V, !pto.ptr<f32, ub>, i16, i16, !pto.mask<b32>
"""

from __future__ import annotations

from typing import Any

from ..vector import stream as S
from .spec import Operand, OpSpec
from .vector import _ptr, _vector, mask_width_for


def _check_block(reg: str, ptr: str) -> Any:
    def check(t: dict[str, Any]) -> str | None:
        if t["mask"] != mask_width_for(t[reg]):
            return (f"mask is !pto.mask<b{t['mask']}> but {reg} has {t[reg]} elements; it "
                    f"takes !pto.mask<b{mask_width_for(t[reg])}>")
        for name in ("block_stride", "repeat_stride"):
            if t[name] != "i16":
                return f"{name} is {t[name]}; it is an i16 field"
        return None
    return check


def _check_pstu(t: dict[str, Any]) -> str | None:
    want = {16: "ui16", 32: "ui32"}.get(t["value"])
    if want is None or t["base"][0] != want:
        return (f"a !pto.mask<b{t['value']}> stores through !pto.ptr<{want or 'ui16/ui32'}, ub>,"
                f" got !pto.ptr<{t['base'][0]}, ub>")
    return None


_ALIGN = Operand("align", "align")
_NEXT = Operand("align_out", "align")

ROWS: tuple[OpSpec, ...] = (
    _vector("vldas", (_ptr("source", "R", indexed=False),), (Operand("result", "align"),),
            S.vldas),
    _vector("vldus", (_ptr("source", "R", indexed=False), Operand("align", "align")),
            (Operand("result", "vreg"), Operand("align_out", "align")), S.vldus,
            result_kw="dtype"),
    _vector("vsldb", (_ptr("source", "R", indexed=False), Operand("block_stride", "scalar"),
                      Operand("repeat_stride", "scalar"), Operand("mask", "mask")),
            (Operand("result", "vreg"),), S.vsldb, check=_check_block("result", "source"),
            result_kw="dtype"),
    _vector("vsstb", (Operand("value", "vreg"), _ptr("destination", "W", indexed=False),
                      Operand("block_stride", "scalar"), Operand("repeat_stride", "scalar"),
                      Operand("mask", "mask")), (), S.vsstb,
            check=_check_block("value", "destination")),
    _vector("vstus", (_ALIGN, Operand("offset", "int"), Operand("value", "vreg"),
                      _ptr("base", "W", indexed=False)), (_NEXT,), S.vstus),
    _vector("vstas", (_ALIGN, _ptr("destination", "W", indexed=False),
                      Operand("offset", "int")), (), S.vstas),
    _vector("vstur", (_ALIGN, Operand("value", "vreg"), _ptr("base", "W", indexed=False),
                      Operand("mode", "str", choices=S.UPDATE_MODES)), (_NEXT,), S.vstur),
    _vector("vstar", (_ALIGN, _ptr("destination", "W", indexed=False)), (), S.vstar),
    _vector("pstu", (_ALIGN, Operand("value", "mask"), _ptr("base", "W", indexed=False)),
            (_NEXT, Operand("base_out", "ptr")), S.pstu, check=_check_pstu),
)
