"""Compare / select and carry-chain vector micro-ops, one row each (syntax ``vector``;
semantics in `ptosim.vector.select`). Operand order and forms follow PTOAS
include/PTO/IR/VPTOOps.td and docs/isa/micro-isa/07-binary-vector-ops.md,
11-compare-select.md:

    %m = pto.vcmp %a, %b, %mask, "lt" : V, V, M -> M
    %m = pto.vcmps %a, %s, %mask, "gt" : !pto.vreg<128xi16>, i16, !pto.mask<b16> -> !pto.mask<b16>
    %r = pto.vsel %a, %b, %m : V, V, M -> V
    %r = pto.vselr %a, %idx : !pto.vreg<64xf32>, !pto.vreg<64xi32> -> !pto.vreg<64xf32>
    %r, %c = pto.vaddc %a, %b, %mask : U, U, M -> U, M
    %r, %c = pto.vaddcs %a, %b, %cin, %mask : U, U, M, M -> U, M

(V = !pto.vreg<64xf32>, U = !pto.vreg<64xui32>, M = !pto.mask<b32>).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..vector import select as S
from .spec import Operand, OpSpec
from .vector import _vector, mask_width_for, same_vreg_mask


def _mask_result(vreg: str, *masks: str) -> Callable[[dict[str, Any]], str | None]:
    """Every named mask (operands and the result) has ``vreg``'s predicate width."""
    def check(t: dict[str, Any]) -> str | None:
        want = mask_width_for(t[vreg])
        for name in masks:
            if t[name] != want:
                return (f"{name} is !pto.mask<b{t[name]}> but {vreg} has {t[vreg]} "
                        f"elements; it takes !pto.mask<b{want}>")
        return None
    return check


def _both(*rules: Callable[[dict[str, Any]], str | None]) -> Callable[[dict[str, Any]], str | None]:
    def check(t: dict[str, Any]) -> str | None:
        for rule in rules:
            why = rule(t)
            if why is not None:
                return why
        return None
    return check


def _check_vcmps(t: dict[str, Any]) -> str | None:
    want = t["src"]
    bits = int(want.lstrip("siuf").removeprefix("i") or 0) if want != "bf16" else 16
    scalar = t["scalar"]
    if want.startswith("f") or want == "bf16":
        return None if scalar == want else \
            f"scalar is {scalar} but src has {want} elements; it must be {want}"
    return None if scalar in (f"i{bits}", f"si{bits}", f"ui{bits}") else \
        f"scalar is {scalar} but src has {want} elements; it must be an i{bits}"


def _check_vselr(t: dict[str, Any]) -> str | None:
    if t["result"] != t["src"]:
        return f"the result has {t['result']} elements but src has {t['src']}; they must match"
    return None


def _carry_dtype(t: dict[str, Any]) -> str | None:
    if t["src0"] not in S.CARRY_DTYPES:
        return (f"src0 has {t['src0']} elements; carry chains take "
                f"{', '.join(sorted(S.CARRY_DTYPES))}")
    return None


_MODE = Operand("mode", "str", choices=S.CMP_MODES)
_PRED = Operand("result", "mask")


def _carry(name: str, impl: Callable[..., Any], chained: bool) -> OpSpec:
    ins = (Operand("src0", "vreg"), Operand("src1", "vreg")) + \
        ((Operand("carry_in", "mask"),) if chained else ()) + (Operand("mask", "mask"),)
    masks = ("carry_in", "mask", "carry") if chained else ("mask", "carry")
    return _vector(name, ins, (Operand("result", "vreg"), Operand("carry", "mask")), impl,
                   check=_both(_carry_dtype, same_vreg_mask("src0", "src1", "result", mask=""),
                               _mask_result("src0", *masks)))


ROWS: tuple[OpSpec, ...] = (
    _vector("vcmp", (Operand("src0", "vreg"), Operand("src1", "vreg"), Operand("mask", "mask"),
                     _MODE), (_PRED,), S.vcmp,
            check=_both(same_vreg_mask("src0", "src1", mask=""),
                        _mask_result("src0", "mask", "result"))),
    _vector("vcmps", (Operand("src", "vreg"), Operand("scalar", "scalar"),
                      Operand("mask", "mask"), _MODE), (_PRED,), S.vcmps,
            check=_both(_check_vcmps, _mask_result("src", "mask", "result"))),
    _vector("vsel", (Operand("src0", "vreg"), Operand("src1", "vreg"), Operand("mask", "mask")),
            (Operand("result", "vreg"),), S.vsel,
            check=same_vreg_mask("src0", "src1", "result")),
    _vector("vselr", (Operand("src", "vreg"), Operand("index", "vreg")),
            (Operand("result", "vreg"),), S.vselr, check=_check_vselr),
    _carry("vaddc", S.vaddc, False), _carry("vsubc", S.vsubc, False),
    _carry("vaddcs", S.vaddcs, True), _carry("vsubcs", S.vsubcs, True),
)
