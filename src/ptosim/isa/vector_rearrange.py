"""The vector rearrangement micro ops, one row each (syntax ``vector``; semantics in
`ptosim.vector.rearrange`): ``vintlv`` / ``vdintlv``, ``vpack`` / ``vsunpack`` /
``vzunpack``, ``vperm``, ``vshift``, ``vslide``, ``vsqz`` / ``vusqz``.

Text forms follow PTOAS ``include/PTO/IR/VPTOOps.td`` (the unpack ``part`` index is not
spelled in the type list there); vperm / vshift / vslide, which PTOAS does not define,
follow the pto-isa manual (docs/isa/vector/ops/data-rearrangement/). The type rules are
PTOAS ``lib/PTO/IR/VPTO.cpp``'s verifiers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..vector import rearrange as R
from .spec import Operand, OpSpec
from .vector import _bits, _vector, _word, same_vreg_mask

_INTS = frozenset({"i8", "si8", "ui8", "i16", "si16", "ui16", "i32", "si32", "ui32",
                   "i64", "si64", "ui64"})


def _v(name: str) -> Operand:
    return Operand(name, "vreg")


def _check_pair(t: dict[str, Any]) -> str | None:
    names = ("lhs", "rhs", "low", "high")
    for n in names[1:]:
        if t[n] != t["lhs"]:
            return (f"{n} has {t[n]} elements but lhs has {t['lhs']}; operands and results "
                    f"share one vector type")
    return None


def _check_vpack(t: dict[str, Any]) -> str | None:
    src, res = t["src"], t["result"]
    if src not in _INTS or res not in _INTS:
        return f"src ({src}) and the result ({res}) must hold integers"
    if not ((_bits(src) == 32 and res == "ui16") or (_bits(src) == 16 and res == "ui8")):
        return (f"packs 32-bit integers to ui16 or 16-bit integers to ui8, got {src} -> "
                f"{res}")
    return None


def _check_unpack(t: dict[str, Any]) -> str | None:
    src, res = t["src"], t["result"]
    if src not in _INTS or res not in _INTS:
        return f"src ({src}) and the result ({res}) must hold integers"
    if _bits(res) != 2 * _bits(src):
        return (f"the result elements must be twice as wide as src's, got {src} -> {res}")
    return None


def _check_vperm(t: dict[str, Any]) -> str | None:
    if t["result"] != t["src"]:
        return f"the result has {t['result']} elements but src has {t['src']}; they must match"
    if t["index"] not in _INTS:
        return f"index has {t['index']} elements; it must hold integers"
    if _bits(t["index"]) != _bits(t["src"]):
        return (f"index ({t['index']}) must have as many lanes as src ({t['src']})")
    return None


def _amt_i16(check: Callable[[dict[str, Any]], str | None]
             ) -> Callable[[dict[str, Any]], str | None]:
    def both(t: dict[str, Any]) -> str | None:
        if t["amt"] != "i16":
            return f"amt is {t['amt']}; the lane count is an i16"
        return check(t)
    return both


def _check_vusqz(t: dict[str, Any]) -> str | None:
    if t["src"] not in ("i8", "si8", "i16", "si16", "i32", "si32"):
        return (f"src has {t['src']} elements; vusqz takes signed or signless 8, 16 or "
                f"32-bit integers")
    return same_vreg_mask("src", "result")(t)


ROWS: tuple[OpSpec, ...] = (
    _vector("vintlv", (_v("lhs"), _v("rhs")), (_v("low"), _v("high")), R.vintlv,
            check=_check_pair),
    _vector("vdintlv", (_v("lhs"), _v("rhs")), (_v("low"), _v("high")), R.vdintlv,
            check=_check_pair),
    _vector("vpack", (_v("src"), _word("part", R.PARTS)), (_v("result"),), R.vpack,
            check=_check_vpack, result_kw="dtype"),
    _vector("vsunpack", (_v("src"), Operand("part", "int")), (_v("result"),), R.vsunpack,
            check=_check_unpack, result_kw="dtype", type_order=("src",)),
    _vector("vzunpack", (_v("src"), Operand("part", "int")), (_v("result"),), R.vzunpack,
            check=_check_unpack, result_kw="dtype", type_order=("src",)),
    _vector("vperm", (_v("src"), _v("index")), (_v("result"),), R.vperm, check=_check_vperm),
    _vector("vshift", (_v("src"), Operand("amt", "scalar")), (_v("result"),), R.vshift,
            check=_amt_i16(same_vreg_mask("src", "result"))),
    _vector("vslide", (_v("src0"), _v("src1"), Operand("amt", "scalar")), (_v("result"),),
            R.vslide, check=_amt_i16(same_vreg_mask("src0", "src1", "result"))),
    _vector("vsqz", (_v("input"), Operand("mask", "mask")), (_v("result"),), R.vsqz,
            check=same_vreg_mask("input", "result")),
    _vector("vusqz", (_v("src"), Operand("mask", "mask")), (_v("result"),), R.vusqz,
            check=_check_vusqz),
)
