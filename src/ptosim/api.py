"""`Machine`: the machine state with every implemented op family as methods."""

from __future__ import annotations

from .errors import NotImplementedOpError
from .tile.ops import TileOps

# PTO ops of the manual that ptosim does not implement yet (README support table).
PLANNED_OPS = frozenset({
    "mte_l1_l0a_mx", "mte_l1_l0b_mx", "mad_mx", "mad_mx_acc", "mad_mx_bias",
    "set_flag", "wait_flag", "barrier", "pipe_barrier",
})


class Machine(TileOps):
    """A simulated Ascend NPU: GM, one cube core and two vector sub-blocks per block.

    >>> import numpy as np, ptosim
    >>> m = ptosim.Machine(target="a5")
    >>> src = m.gm(np.arange(64, dtype=np.float32))
    >>> ub = m.ptr("ub", "f32", 0)
    >>> m.mte_gm_ub(src, ub, 0, 256, nburst=(1, 256, 256))
    >>> float(m.read(ub + 5, 1)[0])
    5.0
    """

    def __getattr__(self, name: str) -> object:
        if name in PLANNED_OPS:
            raise NotImplementedOpError(f"{name} is a PTO op that ptosim does not implement "
                                        f"yet (see the README's support table)", op=name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
