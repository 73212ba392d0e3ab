"""Lane reductions of one vector register, one row each (syntax ``vector``; semantics in
`ptosim.vector.reduce`). Forms (PTOAS docs/isa/micro-isa/10-reduction-ops.md):

    %r = pto.vcadd %v, %mask : !pto.vreg<64xf32>, !pto.mask<b32> -> !pto.vreg<64xf32>
    %r = pto.vcadd %v, %mask : !pto.vreg<256xsi8>, !pto.mask<b8> -> !pto.vreg<128xsi16>

and likewise vcmax, vcmin, vcgadd, vcgmax, vcgmin, vcpadd (result type = input type).
"""

from __future__ import annotations

from typing import Any

from ..vector import reduce as R
from .spec import Operand, OpSpec
from .vector import _vector, mask_width_for


def _check(op: str, widen: bool = False) -> Any:
    def check(t: dict[str, Any]) -> str | None:
        src = t["input"]
        if src not in R.LEGAL[op]:
            return f"input has {src} elements; {op} takes {', '.join(sorted(R.LEGAL[op]))}"
        if t["mask"] != mask_width_for(src):
            return (f"mask is !pto.mask<b{t['mask']}> but input has {src} elements; it takes "
                    f"!pto.mask<b{mask_width_for(src)}>")
        want = R.WIDEN.get(src, src) if widen else src
        if t["result"] != want:
            return f"the result has {t['result']} elements; {op} of {src} gives {want}"
        return None
    return check


def _row(op: str, impl: Any, widen: bool = False) -> OpSpec:
    return _vector(op, (Operand("input", "vreg"), Operand("mask", "mask")),
                   (Operand("result", "vreg"),), impl, check=_check(op, widen),
                   result_kw="dtype" if widen else None)


ROWS: tuple[OpSpec, ...] = (
    _row("vcadd", R.vcadd, widen=True),
    _row("vcmax", R.vcmax), _row("vcmin", R.vcmin),
    _row("vcgadd", R.vcgadd), _row("vcgmax", R.vcgmax), _row("vcgmin", R.vcgmin),
    _row("vcpadd", R.vcpadd),
)
