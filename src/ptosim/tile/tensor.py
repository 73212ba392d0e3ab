"""`GlobalTensor`: a 5-D view of a GM allocation (shape, strides in elements, layout)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from ..errors import VerifyError
from ..layout import MX_LAYOUTS, Layout, gm_layout
from ..machine import Ptr

# the conv layouts a GlobalTensor may carry for TLOAD into a Mat conv tile (pto-isa
# Layout::NC1HWC0 ...): 5-D views read by the conv-tile forms only (ptosim.tile.conv_load)
# and written by TSTORE from an Acc tile (ptosim.tile.conv_store)
CONV_GM_LAYOUTS = ("NC1HWC0", "FRACTAL_Z", "FRACTAL_Z_3D", "NHWC", "NCHW", "NCDHW",
                   "NDC1HWC0")


@dataclass(frozen=True)
class GlobalTensor:
    """``ptr`` is the first element; ``layout`` is ND, DN or NZ (pto-notes §3.2), one
    of the MX scale layouts MX_A_ND / MX_A_DN / MX_A_ZZ / MX_B_ND / MX_B_DN / MX_B_NN, or a
    conv layout (`CONV_GM_LAYOUTS`, for TLOAD into a Mat conv tile and TSTORE from an Acc
    tile only)."""

    ptr: Ptr
    shape: tuple[int, int, int, int, int]
    stride: tuple[int, int, int, int, int]
    layout: str = "ND"

    @cached_property
    def view(self) -> Layout:
        if self.layout in CONV_GM_LAYOUTS:
            raise VerifyError(f"a {self.layout} GlobalTensor is read only by TLOAD into a Mat "
                              f"conv tile (m.conv_tile(..., tile_type='Mat')) and written only "
                              f"by TSTORE from an Acc tile; it has no rows x cols view",
                              operand="view")
        return gm_layout(self.layout, self.shape, self.stride)

    @cached_property
    def rows(self) -> int:
        return self.view.rows

    @cached_property
    def cols(self) -> int:
        return self.view.cols


def make_global_tensor(ptr: Ptr, shape: tuple, stride: tuple, layout: str) -> GlobalTensor:
    if ptr.space != "gm":
        raise VerifyError(f"a GlobalTensor views GM, got a {ptr.space} pointer",
                          op="global_tensor")
    if len(shape) != 5 or len(stride) != 5:
        raise VerifyError(f"shape and stride take 5 values each, got {shape} and {stride}",
                          op="global_tensor")
    if any(not isinstance(s, int) or s < 1 for s in shape) or \
            any(not isinstance(t, int) or t < 0 for t in stride):
        raise VerifyError(f"sizes must be positive and strides non-negative integers, got "
                          f"{shape} / {stride}", op="global_tensor")
    if layout not in ("ND", "DN", "NZ") + MX_LAYOUTS + CONV_GM_LAYOUTS:
        raise VerifyError(f"GlobalTensor layout must be ND, DN, NZ or one of "
                          f"{', '.join(MX_LAYOUTS + CONV_GM_LAYOUTS)}, got {layout!r}",
                          op="global_tensor")
    return GlobalTensor(ptr, tuple(shape), tuple(stride), layout)
