"""The vector micro ISA family: one row per op (syntax ``vector``, see
`ptosim.frontend.vector_ops`). A row gives the operands in assembly order, the attribute
entries, the results, its type rule (``check``) and its semantics (``impl``, from
`ptosim.vector.ops`); the op class, parser, printer, verifier and the `ptosim.Machine`
method all come from the row.

Adding an elementwise op later is one row: ``_vec("vadd", ("lhs", "rhs"), lane="vadd")``
style rows name their lane function in `ptosim.isa.alu` (``lane=``) and use a shared
``impl``; the type rule `same_vreg_mask` below is the usual one (all vregs one type, mask
width = element width).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..vector import ops as V
from . import alu
from .spec import Operand, OpSpec

UB = ("ub",)


def _ptr(name: str, role: str, indexed: bool = True, space: tuple[str, ...] = UB) -> Operand:
    return Operand(name, "ptr", role, space=space, indexed=indexed)


def _word(name: str, choices: tuple[str, ...]) -> Operand:
    return Operand(name, "str", choices=choices)


def _attr(name: str, choices: tuple[str, ...], default: str | None = None) -> Operand:
    return Operand(name, "str", choices=choices, default=default)


def _bits(dtype: str) -> int:
    from ..dtypes import DTYPES
    return DTYPES[dtype].size * 8


def mask_width_for(dtype: str) -> int:
    """The predicate width of an element type: b8 / b16 / b32 (64-bit data uses b32)."""
    return min(_bits(dtype), 32)


def _mask_matches(t: dict[str, Any], mask: str, vreg: str, g: int | None = None) -> str | None:
    want = g if g is not None else mask_width_for(t[vreg])
    if t[mask] != want:
        return (f"{mask} is !pto.mask<b{t[mask]}> but {vreg} has {t[vreg]} elements; it "
                f"takes !pto.mask<b{want}>")
    return None


def same_vreg_mask(*vregs: str, mask: str = "mask") -> Callable[[dict[str, Any]], str | None]:
    """All named vregs share one element type and ``mask`` has its width."""
    def check(t: dict[str, Any]) -> str | None:
        first = t[vregs[0]]
        for v in vregs[1:]:
            if t[v] != first:
                return f"{v} has {t[v]} elements but {vregs[0]} has {first}; they must match"
        return _mask_matches(t, mask, vregs[0]) if mask in t else None
    return check


def _same_masks(*names: str) -> Callable[[dict[str, Any]], str | None]:
    def check(t: dict[str, Any]) -> str | None:
        for n in names[1:]:
            if t[n] != t[names[0]]:
                return (f"{n} is !pto.mask<b{t[n]}> but {names[0]} is "
                        f"!pto.mask<b{t[names[0]]}>; they must match")
        return None
    return check


def _post_base(t: dict[str, Any], base: str) -> str | None:
    if t["post_update"] and t.get("updated_base") != t[base]:
        return f"the updated base must have the type of {base}"
    return None


def _check_vlds(t: dict[str, Any]) -> str | None:
    return _post_base(t, "source")


def _check_vsts(t: dict[str, Any]) -> str | None:
    dist = t["dist"]
    bits = _bits(t["value"])
    if dist is not None and dist.startswith(("NORM_B", "1PT_B")) \
            and int(dist.rsplit("_B", 1)[1]) != min(bits, 32):
        return f"dist {dist} does not match the {bits}-bit elements of value"
    if dist in ("PK_B16", "PK_B32"):               # PTOAS VPTO.cpp mask granularity override
        why = _mask_matches(t, "mask", "value", int(dist[4:]))
    elif dist in ("PK_B64", "PK4_B32"):
        why = _mask_matches(t, "mask", "value", 32)
    else:
        why = _mask_matches(t, "mask", "value")
    return why or _post_base(t, "destination")


def _check_vstsx2(t: dict[str, Any]) -> str | None:
    if t["low"] != t["high"]:
        return f"low has {t['low']} elements but high has {t['high']}; they must match"
    return None


def _check_vdup(t: dict[str, Any]) -> str | None:
    if "input" in t["vregs"] and t["input"] != t["result"]:
        return f"input has {t['input']} elements but the result has {t['result']}"
    return _mask_matches(t, "mask", "result")


def _vector(name: str, operands: tuple[Operand, ...], results: tuple[Operand, ...],
            impl: Callable[..., Any], options: tuple[Operand, ...] = (),
            check: Callable[[dict[str, Any]], str | None] | None = None,
            result_kw: str | None = None, typed_offset: bool = False,
            type_order: tuple[str, ...] = (), core: str = "vector", pipe: str = "V",
            lane: str | None = None) -> OpSpec:
    return OpSpec(name, "micro", pipe, core, name, syntax="vector", operands=operands,
                  results=results, options=options, check=check, impl=impl,
                  result_kw=result_kw, typed_offset=typed_offset, type_order=type_order,
                  lane=lane)


def _on_bits(lane: str) -> dict[str, Any]:
    """A bitwise lane function that also takes float registers, on their bit patterns:
    PTOAS verifies vand / vor / vxor like any binary op (VPTO.cpp `verifyBinaryVecOp`)
    and PTO-Gym's binary-vector/vor-f16 golden ORs the f16 bits."""
    from ..dtypes import dtype as _dtype

    def fn(a: Any, b: Any, dt: Any) -> Any:
        if not dt.is_float:
            return alu.BINARY[lane](a, b, dt)
        bits = _dtype(f"ui{dt.size * 8}")
        return alu.BINARY[lane](a.view(bits.np), b.view(bits.np), bits).view(dt.np)
    return {lane: fn}


_FLOATS = frozenset({"f16", "bf16", "f32"})


def elementwise_row(name: str, arity: int, scalar: bool = False,
                    lane: str | None = None, lanes: dict[str, Any] | None = None,
                    more_dtypes: frozenset[str] = frozenset()) -> OpSpec:
    """One elementwise op as one row: ``%r = pto.<name> %src0[, %src1][, %scalar], %mask
    : T, ..., !pto.mask<bG> -> T``; its lane function is ``lane`` (default: the name
    without the leading ``v``) in `ptosim.isa.alu`, inactive lanes are 0. E.g.
    ``elementwise_row("vadd", 2)``, ``elementwise_row("vexp", 1)``,
    ``elementwise_row("vadds", 1, scalar=True, lane="add")``."""
    lane = lane or name.removeprefix("v")
    srcs = tuple(Operand(f"src{i}", "vreg") for i in range(arity))
    operands = srcs + ((Operand("scalar", "scalar"),) if scalar else ()) + \
        (Operand("mask", "mask"),)
    same = same_vreg_mask(*(o.name for o in srcs), "result")
    legal = alu.OP_DTYPES.get(name)
    if legal is not None:
        legal = legal | more_dtypes

    def check(t: dict[str, Any]) -> str | None:
        if legal is not None and t["src0"] not in legal:
            return (f"src0 has {t['src0']} elements; {name} takes "
                    f"{', '.join(sorted(legal))}")
        return same(t)
    return _vector(name, operands, (Operand("result", "vreg"),),
                   V.elementwise(name, lane, arity, scalar, lanes), check=check, lane=lane)


_VREG = Operand("result", "vreg")
_MASK = Operand("result", "mask")


def _result_is(g: int) -> Callable[[dict[str, Any]], str | None]:
    def check(t: dict[str, Any]) -> str | None:
        return None if t["result"] == g else \
            f"the result is a b{g} mask, got !pto.mask<b{t['result']}>"
    return check


def _plt_form(g: int) -> Callable[[dict[str, Any]], str | None]:
    def check(t: dict[str, Any]) -> str | None:
        ok = t["mask"] == g and t["scalar"] == "i32" and t["scalar_out"] == "i32"
        return None if ok else f"the form is i32 -> !pto.mask<b{g}>, i32"
    return check


def _all_masks(g: int) -> Callable[[dict[str, Any]], str | None]:
    def check(t: dict[str, Any]) -> str | None:
        ok = t["src0"] == t["src1"] == t["low"] == t["high"] == g
        return None if ok else f"every operand and result is a !pto.mask<b{g}>"
    return check


def _pattern_rows(prefix: str) -> tuple[OpSpec, ...]:
    return tuple(_vector(f"{prefix}_b{g}", (_word("pattern", V.PATTERNS),),
                         (Operand("result", "mask"),), V._pattern_op(f"{prefix}_b{g}", g),
                         check=_result_is(g))
                 for g in (8, 16, 32))


def _plt_rows() -> tuple[OpSpec, ...]:
    return tuple(_vector(f"plt_b{g}", (Operand("scalar", "int"),),
                         (Operand("mask", "mask"), Operand("scalar_out", "int")),
                         V._plt(f"plt_b{g}", g), check=_plt_form(g))
                 for g in (8, 16, 32))


def _pintlv_rows() -> tuple[OpSpec, ...]:
    rows = []
    for stem, inter in (("pintlv", True), ("pdintlv", False)):
        for g in (8, 16, 32):
            rows.append(_vector(
                f"{stem}_b{g}", (Operand("src0", "mask"), Operand("src1", "mask")),
                (Operand("low", "mask"), Operand("high", "mask")),
                V._pintlv(f"{stem}_b{g}", g, inter), check=_all_masks(g)))
    return tuple(rows)


def _plogic(name: str, impl: Callable[..., Any]) -> OpSpec:
    return _vector(name, (Operand("src0", "mask"), Operand("src1", "mask"),
                          Operand("mask", "mask")), (_MASK,), impl,
                   check=_same_masks("src0", "src1", "mask", "result"))


ROWS: tuple[OpSpec, ...] = (
    # loads and stores (PTOAS VPTOOps.td; semantics: docs/semantics.md)
    _vector("vlds", (_ptr("source", "R"),), (_VREG, Operand("updated_base", "ptr",
                                                            optional=True)),
            V.vlds, options=(_attr("dist", V.VLDS_DISTS, "NORM"),), check=_check_vlds,
            result_kw="dtype"),
    _vector("vldsx2", (_ptr("source", "R"), _word("dist", (*V.VLDSX2_DISTS, "BDINTLV"))),
            (Operand("low", "vreg"), Operand("high", "vreg")), V.vldsx2,
            check=same_vreg_mask("low", "high"), result_kw="dtype", typed_offset=True),
    _vector("vsts", (Operand("value", "vreg"), _ptr("destination", "W"),
                     Operand("mask", "mask")),
            (Operand("updated_base", "ptr", optional=True),), V.vsts,
            options=(_attr("dist", V.VSTS_DISTS),), check=_check_vsts),
    _vector("vstsx2", (Operand("low", "vreg"), Operand("high", "vreg"),
                       _ptr("destination", "W"), _word("dist", V.VSTSX2_DISTS),
                       Operand("mask", "mask")), (), V.vstsx2, check=_check_vstsx2,
            typed_offset=True),
    # predicate loads and stores
    _vector("plds", (_ptr("source", "R"), _word("dist", V.PLOAD_DISTS)), (_MASK,), V.plds,
            result_kw="g", typed_offset=True),
    _vector("pldi", (_ptr("source", "R"), _word("dist", V.PLOAD_DISTS)), (_MASK,), V.pldi,
            result_kw="g", typed_offset=True),
    _vector("psts", (Operand("value", "mask"), _ptr("destination", "W"),
                     _word("dist", V.PSTORE_DISTS)), (), V.psts, typed_offset=True),
    _vector("psti", (Operand("value", "mask"), _ptr("destination", "W"),
                     _word("dist", V.PSTORE_DISTS)), (), V.psti, typed_offset=True),
    # predicate generation and logic
    *_pattern_rows("pset"), *_pattern_rows("pge"), *_plt_rows(),
    _plogic("pand", V.pand), _plogic("por", V.por), _plogic("pxor", V.pxor),
    _vector("pnot", (Operand("input", "mask"), Operand("mask", "mask")), (_MASK,), V.pnot,
            check=_same_masks("input", "mask", "result")),
    _vector("psel", (Operand("src0", "mask"), Operand("src1", "mask"),
                     Operand("mask", "mask")), (_MASK,), V.psel,
            check=_same_masks("src0", "src1", "mask", "result")),
    _vector("ppack", (Operand("input", "mask"), _word("part", V.PARTS)), (_MASK,), V.ppack,
            check=_same_masks("input", "result")),
    _vector("punpack", (Operand("input", "mask"), _word("part", V.PARTS)), (_MASK,),
            V.punpack, check=_same_masks("input", "result")),
    *_pintlv_rows(),
    _vector("pbitcast", (Operand("input", "mask"),), (_MASK,), V.pbitcast, result_kw="g"),
    # materialisation
    _vector("vbr", (Operand("value", "scalar"),), (_VREG,), V.vbr, result_kw="dtype"),
    _vector("vdup", (Operand("input", "any"), Operand("mask", "mask")), (_VREG,), V.vdup,
            options=(_attr("position", V.POSITIONS, "LOWEST"),), check=_check_vdup,
            result_kw="dtype"),
    _vector("vci", (Operand("index", "scalar"),), (_VREG,), V.vci,
            options=(_attr("order", V.ORDERS, "ASC"),), result_kw="dtype"),
    _vector("init_align", (), (Operand("result", "align"),), V.init_align),
    _vector("sprclr", (_word("spr", V.SPRS),), (), V.sprclr),
    # elementwise families: one row each, lane functions from ptosim.isa.alu
    *(elementwise_row(n, 1) for n in ("vabs", "vneg", "vexp", "vln", "vsqrt", "vrelu",
                                      "vnot")),
    *(elementwise_row(n, 2) for n in ("vadd", "vsub", "vmul", "vdiv", "vmax", "vmin", "vshl",
                                      "vshr")),
    *(elementwise_row(n, 2, lanes=_on_bits(n[1:]), more_dtypes=_FLOATS)
      for n in ("vand", "vor", "vxor")),
    *(elementwise_row(n, 1, scalar=True, lane=n[1:-1]) for n in ("vadds", "vmuls", "vmaxs",
                                                                 "vmins", "vshls", "vshrs")),
    elementwise_row("vlrelu", 1, scalar=True, lane="lrelu"),
    # scalar access to UB or GM by the scalar unit
    _vector("load_scalar", (_ptr("ptr", "R", space=("ub", "gm")),),
            (Operand("value", "scalar"),), V.load_scalar, core="any", pipe="S"),
    _vector("store_scalar", (Operand("value", "scalar"), _ptr("ptr", "W", space=("ub", "gm"))),
            (), V.store_scalar, type_order=("ptr", "value"), core="any", pipe="S"),
)
