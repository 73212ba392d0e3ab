"""Vector conversion rows (issue 13): ``vcvt``, ``vtrc``, ``vbitcast`` (syntax ``vector``,
see `ptosim.frontend.vector_ops`); semantics and the attribute rules in
`ptosim.vector.convert`, over the exact engine `ptosim.isa.convert`.

::

    %r = pto.vcvt %v, %m {rnd = "R", sat = "SAT", part = "EVEN"}
        : !pto.vreg<64xf32>, !pto.mask<b32> -> !pto.vreg<128xf16>
    %r = pto.vtrc %v, %m, "Z" : !pto.vreg<64xf32>, !pto.mask<b32> -> !pto.vreg<64xf32>
    %r = pto.vbitcast %v : !pto.vreg<64xf32> -> !pto.vreg<64xi32>
"""

from __future__ import annotations

from ..vector import convert as VC
from .spec import Operand, OpSpec
from .vector import _attr, _vector, _word

_VREG = Operand("result", "vreg")

ROWS: tuple[OpSpec, ...] = (
    _vector("vcvt", (Operand("input", "vreg"), Operand("mask", "mask")), (_VREG,), VC.vcvt,
            options=(_attr("rnd", tuple(VC.RND_WORDS)), _attr("sat", tuple(VC.SAT_WORDS)),
                     _attr("part", tuple(VC.PART_WORDS))),
            check=VC.check_vcvt, result_kw="dtype"),
    _vector("vtrc", (Operand("input", "vreg"), Operand("mask", "mask"),
                     _word("rnd", tuple(VC.VTRC_WORDS))), (_VREG,), VC.vtrc,
            check=VC.check_vtrc),
    _vector("vbitcast", (Operand("input", "vreg"),), (_VREG,), VC.vbitcast,
            check=VC.check_vbitcast, result_kw="dtype"),
)
