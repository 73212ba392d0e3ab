"""`alloc_tile` without addr in a run: one address per op (PTOAS's plan), and a clear
error when the kernel's tiles do not fit together."""

from __future__ import annotations

import numpy as np
import pytest

from ptosim.errors import VerifyError
from ptosim.kernel import Kernel

KERNEL = """
module attributes {pto.target_arch = "a5", pto.kernel_kind = #pto.kernel_kind<vector>} {
  func.func @k(%n: index) attributes {pto.aicore} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %one = arith.constant 1.0 : f32
    scf.for %i = %c0 to %n step %c1 {
      %a = pto.alloc_tile : !pto.tile_buf<vec, 2x16384xf32>
      %b = pto.alloc_tile : !pto.tile_buf<vec, 2x16384xf32>
      pto.tadds ins(%a, %one : !pto.tile_buf<vec, 2x16384xf32>, f32) outs(%a : !pto.tile_buf<vec, 2x16384xf32>)
      pto.tadds ins(%b, %one : !pto.tile_buf<vec, 2x16384xf32>, f32) outs(%b : !pto.tile_buf<vec, 2x16384xf32>)
    }
    %c = pto.alloc_tile : !pto.tile_buf<vec, 2x8xf32>
    return
  }
}
"""


def test_a_loop_reuses_its_allocations() -> None:
    """Two 128 KiB tiles fill UB; a loop of 50 steps allocating them runs (fresh bytes per
    step would not fit in the second)."""
    k = Kernel.from_text(KERNEL.replace("%c = pto.alloc_tile : !pto.tile_buf<vec, 2x8xf32>\n",
                                        ""))
    k.run({"n": 50})


def test_tiles_that_do_not_fit_together_are_reported() -> None:
    with pytest.raises(VerifyError, match=r"alloc_tile: no room for a 64 B tile in ub "
                                          r"\(262144 B, 262144 B in use\): the kernel's tiles "
                                          r"without addr do not fit together"):
        Kernel.from_text(KERNEL).run({"n": np.int64(1)})
