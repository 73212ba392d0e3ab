"""Semantics of the vector conversion micro ops: ``vcvt``, ``vtrc``, ``vbitcast``.

Thin wrappers over the exact conversion engine `ptosim.isa.convert` (`convert`,
`trunc_float`, the PTOAS contract table `VCVT_RULES`, part placement, CTRL saturation).
Each function is the ``impl`` of one row of `ptosim.isa.vector_convert`, called as
``impl(machine, *operands, **attrs)``. The attribute rules are one function per op
(`vcvt_error`, `vtrc_error`), shared by the text verifier (the row's ``check``) and the
Python face, so both reject the same programs with the same words.

Facts and sources: docs/semantics.md, "Vector conversions".
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..dtypes import dtype as _dtype
from ..errors import PtoTypeError, PtoValueError
from ..isa import convert as C
from .ops import _mask, _vreg, active_lanes, zeroing
from .values import VREG_DTYPES, VReg, vreg_dtype

# Accepted spellings -> canonical word (PTOAS lib/PTO/IR/VPTO.cpp normalizeRoundModeToken,
# normalizeSaturationToken, normalizeVcvtPartToken).
RND_WORDS: dict[str, str] = {**{r: r for r in C.ROUND_MODES},
                             **{f"ROUND_{r}": r for r in C.ROUND_MODES}}
SAT_WORDS: dict[str, str] = {"SAT": "SAT", "NOSAT": "NOSAT", "RS_ENABLE": "SAT",
                             "RS_DISABLE": "NOSAT"}
PART_WORDS: dict[str, str] = {**{p: p for p in C.VCVT_PARTS},
                              **{f"PART_{p}": p for p in C.VCVT_PARTS}}
# vtrc rounds to an integral value: no round-to-odd (VPTO.cpp isSupportedVtrcRoundMode)
VTRC_WORDS: dict[str, str] = {k: v for k, v in RND_WORDS.items() if v != "O"}
VTRC_DTYPES = ("f16", "bf16", "f32")


def _mask_width(dt: str) -> int:
    return min(_dtype(dt).size * 8, 32)


def vcvt_error(src: str, dst: str, mask_g: int, rnd: str | None, sat: str | None,
               part: str | None) -> str | None:
    """Why ``vcvt`` from ``src`` to ``dst`` elements with a ``b<mask_g>`` mask and these
    attributes (any accepted spelling, None = absent) is illegal, or None. The rules of
    PTOAS's VcvtOp verifier: a contract pair; mask granularity of the SOURCE width;
    ``rnd``/``sat``/``part`` present exactly when the pair's contract requires them;
    ``part`` EVEN/ODD for 2x width ratios, P0..P3 for 4x."""
    rule = C.vcvt_rule(src, dst)
    if rule is None:
        return (f"{src} -> {dst} is not a vcvt pair (the legal pairs are PTOAS's contract "
                f"table, ptosim.isa.convert.VCVT_RULES)")
    want = _mask_width(src)
    if mask_g != want:
        return (f"mask is !pto.mask<b{mask_g}> but vcvt takes the granularity of its source "
                f"({src}): !pto.mask<b{want}>")
    for name, word, words, required in (("rnd", rnd, RND_WORDS, rule.rnd),
                                        ("sat", sat, SAT_WORDS, rule.sat),
                                        ("part", part, PART_WORDS, rule.part)):
        if word is not None and word not in words:
            return f"{name} must be one of {', '.join(words)}, got {word!r}"
        if required and word is None:
            return f"{src} -> {dst} requires the {name} attribute"
        if not required and word is not None:
            return f"the {name} attribute is not valid for {src} -> {dst}"
    if part is not None:
        p = PART_WORDS[part]
        legal = ("EVEN", "ODD") if rule.ratio == 2 else ("P0", "P1", "P2", "P3")
        if p not in legal:
            return (f"part {part} is illegal for {src} -> {dst} (widths differ "
                    f"{rule.ratio}x); it takes {' or '.join(legal)}")
    return None


def check_vcvt(t: dict[str, Any]) -> str | None:
    """The row rule of ``pto.vcvt`` (types and attribute words by name)."""
    return vcvt_error(t["input"], t["result"], t["mask"], t.get("rnd"), t.get("sat"),
                      t.get("part"))


def vcvt(m: Any, input: Any, mask: Any, rnd: str | None = None, sat: str | None = None,
         part: str | None = None, dtype: Any = None) -> VReg:
    """``pto.vcvt``: each active source lane converted to ``dtype`` with rounding ``rnd``
    and saturation ``sat`` (CTRL[59] instead when CTRL[60] is set); narrowing forms put
    value i in lane ``ratio*i + part`` of the result (other lanes 0), widening forms read
    source lane ``ratio*i + part``. A lane is active when the mask bit of its SOURCE lane
    is set; inactive result lanes are 0."""
    op = "vcvt"
    v = _vreg(op, "input", input)
    mk = _mask(op, "mask", mask)
    if dtype is None:
        raise PtoTypeError("the result element type (dtype=) is required", op=op,
                           operand="result")
    d = vreg_dtype(dtype)
    s = v.dtype
    why = vcvt_error(s.name, d.name, mk.g, rnd, sat, part)
    if why is not None:
        err = PtoTypeError if "mask" in why or "pair" in why else PtoValueError
        raise err(why, op=op)
    rule = C.vcvt_rule(s, d)
    assert rule is not None
    # No sat attribute: the pair's result is exact or float (IEEE: inf / NaN pass, Gym
    # vcvt-f16-special), except f16 -> si32, whose inf / NaN clamp like the SAT forms.
    saturate = SAT_WORDS[sat] == "SAT" if sat is not None else not d.is_float
    if (m.ctrl >> C.CTRL_SAT_ENABLE) & 1:
        forced = C.ctrl_sat(s, d, m.ctrl)
        saturate = saturate if forced is None else forced
    r = RND_WORDS[rnd] if rnd is not None else "R"
    lanes, active = v.lanes, active_lanes(mk, s)
    if rule.ratio > 1 and not rule.narrowing:            # widening: pick the part's lanes
        p = PART_WORDS[part or "EVEN"]
        lanes = C.select_part(lanes, p, rule.ratio)
        active = C.select_part(active, p, rule.ratio)
    out = np.where(active, C.convert(np.ascontiguousarray(lanes), s, d, rnd=r, sat=saturate),
                   np.zeros(1, d.np))
    if rule.ratio > 1 and rule.narrowing:                # narrowing: lay into the part
        out = C.place_part(out, PART_WORDS[part or "EVEN"], rule.ratio)
    return VReg.from_lanes(out.astype(d.np, copy=False), d)


def vtrc_error(dt: str, mask_g: int, rnd: str) -> str | None:
    """Why ``vtrc`` on ``dt`` elements with a ``b<mask_g>`` mask and mode ``rnd`` is
    illegal, or None (PTOAS VtrcOp::verify)."""
    if dt not in VTRC_DTYPES:
        return f"input has {dt} elements; vtrc takes {', '.join(VTRC_DTYPES)}"
    if mask_g != _mask_width(dt):
        return (f"mask is !pto.mask<b{mask_g}> but input has {dt} elements; it takes "
                f"!pto.mask<b{_mask_width(dt)}>")
    if rnd not in VTRC_WORDS:
        return f"round mode must be one of {', '.join(VTRC_WORDS)}, got {rnd!r}"
    return None


def check_vtrc(t: dict[str, Any]) -> str | None:
    if t["result"] != t["input"]:
        return f"the result has {t['result']} elements but input has {t['input']}; " \
               f"they must match"
    return vtrc_error(t["input"], t["mask"], t["rnd"])


def vtrc(m: Any, input: Any, mask: Any, rnd: str) -> VReg:
    """``pto.vtrc``: each active lane rounded to an integral value in its own float type
    (``R`` ties to even, ``A`` ties away, ``F``/``C``/``Z``); NaN, infinities and zeros pass
    through; inactive lanes are 0."""
    op = "vtrc"
    v = _vreg(op, "input", input)
    mk = _mask(op, "mask", mask)
    why = vtrc_error(v.dtype.name, mk.g, rnd)
    if why is not None:
        raise (PtoValueError if "round mode" in why else PtoTypeError)(why, op=op)
    return zeroing(C.trunc_float(v.lanes, v.dtype, VTRC_WORDS[rnd]), mk, v.dtype)


def check_vbitcast(t: dict[str, Any]) -> str | None:
    # Every vreg type is 256 bytes (the type itself is verified), so the only rule left of
    # PTOAS's VbitcastOp::verify is the element kind; both sides are vreg element types.
    for side in ("input", "result"):
        if t[side] not in VREG_DTYPES:
            return f"{side} has {t[side]} elements, not a vector element type"
    return None


def vbitcast(m: Any, input: Any, dtype: Any = None) -> VReg:
    """``pto.vbitcast``: the same 256 bytes seen with element type ``dtype``."""
    v = _vreg("vbitcast", "input", input)
    if dtype is None:
        raise PtoTypeError("the result element type (dtype=) is required", op="vbitcast",
                           operand="result")
    return v.view(vreg_dtype(dtype))
