"""The DSA / SFU vector micro ops, one row each (syntax ``vector``, see
`ptosim.frontend.vector_ops`; semantics in `ptosim.vector.dsa`). Operand order, result
shapes and the type rules follow PTOAS include/PTO/IR/VPTOOps.td and its verifiers
(lib/PTO/IR/VPTO.cpp ``VexpdifOp::verify`` ...); decisions: docs/semantics.md, "DSA / SFU
ops and sorts".
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..vector import dsa as D
from .spec import Operand, OpSpec
from .vector import _vector, elementwise_row, mask_width_for, same_vreg_mask

_VREG = Operand("result", "vreg")
# UB helpers that PTOAS refuses inside a vecscope (VPTO.cpp verifyNotNestedInVecScope)
OUTSIDE_VECSCOPE = frozenset({"vbitsort", "vmrgsort4"})


def _ptr(name: str, role: str) -> Operand:
    return Operand(name, "ptr", role, space=("ub",))


def _typed(legal: frozenset[str], first: str, op: str,
           rule: Callable[[dict[str, Any]], str | None]) -> Callable[[dict[str, Any]], str | None]:
    """``rule`` after the element type of ``first`` is checked against ``legal``."""
    def check(t: dict[str, Any]) -> str | None:
        if t[first] not in legal:
            return f"{first} has {t[first]} elements; {op} takes {', '.join(sorted(legal))}"
        return rule(t)
    return check


def _check_vexpdif(t: dict[str, Any]) -> str | None:
    if t["max"] != t["input"]:
        return f"max has {t['max']} elements but input has {t['input']}; they must match"
    if t["mask"] != mask_width_for(t["input"]):
        return (f"mask is !pto.mask<b{t['mask']}> but input has {t['input']} elements; it "
                f"takes !pto.mask<b{mask_width_for(t['input'])}>")
    if t["result"] != "f32":
        return f"the result has {t['result']} elements; vexpdif yields f32"
    return None


def _check_vaxpy(t: dict[str, Any]) -> str | None:
    if t["alpha"] != t["src0"]:
        return f"alpha is {t['alpha']} but the registers hold {t['src0']}; they must match"
    return same_vreg_mask("src0", "src1", "result")(t)


def _check_conv(t: dict[str, Any]) -> str | None:
    if t["rhs"] != t["lhs"]:
        return f"rhs has {t['rhs']} elements but lhs has {t['lhs']}; they must match"
    return None


def _check_sort(t: dict[str, Any]) -> str | None:
    score = t["source"][0]
    if score not in D.SORT_DTYPES:
        return f"source points to {score}; vbitsort sorts f16 or f32 scores"
    return None


def _check_mrgsort(t: dict[str, Any]) -> str | None:
    d = t["destination"][0]
    for k in range(4):
        if t[f"source{k}"][0] != d:
            return (f"source{k} points to {t[f'source{k}'][0]} but destination to {d}; "
                    f"they must match")
    if d not in D.SORT_DTYPES:
        return f"destination points to {d}; vmrgsort4 merges f16 or f32 records"
    return None


def _check_sr(t: dict[str, Any]) -> str | None:
    bad = [k for k in range(4) if t[f"list{k}"] != "i16"]
    return f"list{bad[0]} is {t[f'list{bad[0]}']}; every result is i16" if bad else None


ROWS: tuple[OpSpec, ...] = (
    # fused activation / arithmetic on registers
    elementwise_row("vprelu", 2, lane="prelu"),
    _vector("vexpdif", (Operand("input", "vreg"), Operand("max", "vreg"),
                        Operand("mask", "mask"), Operand("part", "str", choices=D.PARTS)),
            (_VREG,), D.vexpdif,
            check=_typed(D.EXPDIF_DTYPES, "input", "vexpdif", _check_vexpdif)),
    _vector("vaxpy", (Operand("src0", "vreg"), Operand("src1", "vreg"),
                      Operand("alpha", "scalar"), Operand("mask", "mask")),
            (_VREG,), D.vaxpy, check=_typed(D.alu.F16F32, "src0", "vaxpy", _check_vaxpy)),
    _vector("vmull", (Operand("lhs", "vreg"), Operand("rhs", "vreg"), Operand("mask", "mask")),
            (Operand("low", "vreg"), Operand("high", "vreg")), D.vmull,
            check=_typed(D.VMULL_DTYPES, "lhs", "vmull",
                         same_vreg_mask("lhs", "rhs", "low", "high"))),
    _vector("vmula", (Operand("acc", "vreg"), Operand("lhs", "vreg"), Operand("rhs", "vreg"),
                      Operand("mask", "mask")),
            (_VREG,), D.vmula,
            check=_typed(D.VMULA_DTYPES, "acc", "vmula",
                         same_vreg_mask("acc", "lhs", "rhs", "result"))),
    _vector("vaddreluconv", (Operand("lhs", "vreg"), Operand("rhs", "vreg")), (_VREG,),
            D.vaddreluconv, check=_check_conv, result_kw="dtype"),
    _vector("vmulconv", (Operand("lhs", "vreg"), Operand("rhs", "vreg")), (_VREG,),
            D.vmulconv, check=_check_conv, result_kw="dtype"),
    # UB-to-UB sort helpers and the merge status register (outside vecscopes)
    _vector("vbitsort", (_ptr("destination", "W"), _ptr("source", "R"), _ptr("indices", "R"),
                         Operand("repeat_times", "int")), (), D.vbitsort, check=_check_sort),
    _vector("vmrgsort4", (_ptr("destination", "W"), *(_ptr(f"source{k}", "R") for k in range(4)),
                          Operand("count", "int"), Operand("config", "int")),
            (), D.vmrgsort4, check=_check_mrgsort),
    _vector("get_vms4_sr", (), tuple(Operand(f"list{k}", "scalar") for k in range(4)),
            D.get_vms4_sr, check=_check_sr, pipe="S"),
)
