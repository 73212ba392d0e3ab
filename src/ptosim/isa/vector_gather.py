"""The indexed UB loads and stores, one row each (syntax ``vector``; semantics in
`ptosim.vector.gather`): ``vgather2``, ``vgather2_bc``, ``vgatherb``, ``vscatter``.

Text forms and type rules: PTOAS ``include/PTO/IR/VPTOOps.td`` and the verifiers in
``lib/PTO/IR/VPTO.cpp`` (UB pointers only; integer offsets with the data register's lane
count; 32-bit offsets for vgather2_bc / vgatherb / vscatter; vgatherb takes a b32 mask).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..vector import gather as G
from .spec import Operand, OpSpec
from .vector import _bits, _mask_matches, _ptr, _vector

_INTS = frozenset({"i8", "si8", "ui8", "i16", "si16", "ui16", "i32", "si32", "ui32",
                   "i64", "si64", "ui64"})


def _offsets(t: dict[str, Any], data: str, bits32: bool) -> str | None:
    off = t["offsets"]
    if off not in _INTS:
        return f"offsets has {off} elements; indices are integers"
    if bits32 and _bits(off) != 32:
        return f"offsets has {off} elements; this op takes 32-bit offsets"
    if _bits(off) != _bits(t[data]):
        return f"offsets ({off}) must have as many lanes as {data} ({t[data]})"
    return None


def _check_gather(bits32: bool, g: int | None = None) -> Callable[[dict[str, Any]],
                                                                      str | None]:
    def check(t: dict[str, Any]) -> str | None:
        if t["source"][0] != t["result"]:
            return (f"source points to {t['source'][0]} but the result holds "
                    f"{t['result']}; they must match")
        return _offsets(t, "result", bits32) or _mask_matches(t, "mask", "result", g)
    return check


def _check_vscatter(t: dict[str, Any]) -> str | None:
    if t["destination"][0] != t["value"]:
        return (f"destination points to {t['destination'][0]} but value holds "
                f"{t['value']}; they must match")
    if _bits(t["value"]) > 32:
        return f"value has {t['value']} elements; vscatter stores 8, 16 or 32-bit elements"
    return _offsets(t, "value", True) or _mask_matches(t, "mask", "value")


def _gather_row(name: str, impl: Any, check: Callable[[dict[str, Any]], str | None]
                ) -> OpSpec:
    return _vector(name, (_ptr("source", "R", indexed=False), Operand("offsets", "vreg"),
                          Operand("mask", "mask")), (Operand("result", "vreg"),), impl,
                   check=check, result_kw="dtype")


ROWS: tuple[OpSpec, ...] = (
    _gather_row("vgather2", G.vgather2, _check_gather(False)),
    _gather_row("vgather2_bc", G.vgather2_bc, _check_gather(True)),
    _gather_row("vgatherb", G.vgatherb, _check_gather(True, 32)),
    _vector("vscatter", (Operand("value", "vreg"), _ptr("destination", "W", indexed=False),
                         Operand("offsets", "vreg"), Operand("mask", "mask")), (),
            G.vscatter, check=_check_vscatter),
)
