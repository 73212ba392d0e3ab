"""`Machine`: the machine state with every implemented op family as methods."""

from __future__ import annotations

from .ops.dma import DmaOps


class Machine(DmaOps):
    """A simulated Ascend NPU: GM, one cube core and two vector sub-blocks per block.

    >>> import numpy as np, ptosim
    >>> m = ptosim.Machine(target="a5")
    >>> src = m.gm(np.arange(64, dtype=np.float32))
    >>> ub = m.ptr("ub", "f32", 0)
    >>> m.mte_gm_ub(src, ub, 0, 256, nburst=(1, 256, 256))
    >>> float(m.read(ub + 5, 1)[0])
    5.0
    """
