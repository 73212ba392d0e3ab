"""Vector reduction rows (issue 13): ``vcadd``, ``vcmax``, ``vcmin``, ``vcgadd``,
``vcgmax``, ``vcgmin``, ``vcpadd`` (syntax ``vector``, see `ptosim.frontend.vector_ops`);
semantics and the type rule in `ptosim.vector.reduce`.

::

    %r = pto.vcadd %v, %m : !pto.vreg<64xf32>, !pto.mask<b32> -> !pto.vreg<64xf32>
    %r = pto.vcadd %v, %m : !pto.vreg<256xi8>, !pto.mask<b8> -> !pto.vreg<128xi16>
"""

from __future__ import annotations

from ..vector import reduce as VR
from .spec import Operand, OpSpec
from .vector import _vector

ROWS: tuple[OpSpec, ...] = tuple(
    _vector(name, (Operand("input", "vreg"), Operand("mask", "mask")),
            (Operand("result", "vreg"),), getattr(VR, name), check=VR.check_row(name),
            result_kw=None)
    for name in ("vcadd", "vcmax", "vcmin", "vcgadd", "vcgmax", "vcgmin", "vcpadd"))
