"""`Img2colConfig`: the im2col parameters pto-isa keeps on a Mat ``ConvTile`` (its setters
SetFmapH / SetPadListArray / SetFilterH / ... in include/pto/common/pto_tile.hpp), which
SETFMATRIX, SET_IMG2COL_RPT, SET_IMG2COL_PADDING and TIMG2COL read.

Each field is checked against the width the hardware code hands it on (the 16-bit FMATRIX
fields, the 8-bit pad bytes, the uint8_t stride / dilation getters, the 8 + 1 bit filter
split of TImg2col.hpp), so a value the C++ would silently truncate is refused here.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from ..errors import FieldRangeError, PtoTypeError

# field -> (low, high) inclusive: the C++ member's width as the hardware code uses it
_RANGES: dict[str, tuple[int, int]] = {
    "fmap_h": (0, 0xFFFF), "fmap_w": (0, 0xFFFF),
    "filter_h": (1, 511), "filter_w": (1, 511),          # low byte + one high bit
    "dilation_h": (1, 255), "dilation_w": (1, 255),      # GetDilationH returns uint8_t
    "stride_h": (1, 255), "stride_w": (1, 255),          # GetStrideH returns uint8_t
    "channel_size": (0, 0xFFFF),
    "repeat_stride": (0, 0xFFFF), "repeat_time": (0, 0xFF), "repeat_mode": (0, 0xFF),
    "dst_stride": (0, 0xFFFF), "dst_mposition": (0, 0xFFFF),
}


def _int(name: str, v: object) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise PtoTypeError(f"{name} must be an integer, got {v!r}", op="Img2colConfig")
    return v


@dataclass(frozen=True)
class Img2colConfig:
    """pto-isa ConvTile's im2col state, with its defaults. ``pad`` is the pad list in
    pto-isa's order (left, right, top, bottom); ``pad_value`` the element written where
    the window leaves the feature map (a number of the tile's element type);
    ``channel_size`` the feature map's channels C (0: the tile's C1 x C0); ``dst_stride``
    and ``dst_mposition`` exist on a5 only (pto-isa's a2a3 ConvTile has no such fields)."""

    fmap_h: int = 0
    fmap_w: int = 0
    pad: tuple[int, int, int, int] = (0, 0, 0, 0)
    filter_h: int = 1
    filter_w: int = 1
    dilation_h: int = 1
    dilation_w: int = 1
    stride_h: int = 1
    stride_w: int = 1
    pad_value: float | int = 0
    channel_size: int = 0
    repeat_stride: int = 0
    repeat_time: int = 1
    repeat_mode: int = 0
    dst_stride: int = 0
    dst_mposition: int = 0
    transpose: bool = False

    def __post_init__(self) -> None:
        for f in fields(self):
            if f.name in _RANGES:
                v = _int(f.name, getattr(self, f.name))
                lo, hi = _RANGES[f.name]
                if not lo <= v <= hi:
                    raise FieldRangeError(f"{f.name} = {v} is outside [{lo}, {hi}]",
                                          op="Img2colConfig")
        pad = self.pad
        if not isinstance(pad, tuple) or len(pad) != 4:
            raise PtoTypeError(f"pad must be a (left, right, top, bottom) tuple, got {pad!r}",
                               op="Img2colConfig")
        for side, v in zip(("left", "right", "top", "bottom"), pad):
            if not 0 <= _int(f"pad {side}", v) <= 0xFF:
                raise FieldRangeError(f"pad {side} = {v} is outside [0, 255] (one byte of "
                                      f"the FMATRIX register)", op="Img2colConfig")
        pv = self.pad_value
        if isinstance(pv, bool) or not isinstance(pv, (int, float)):
            raise PtoTypeError(f"pad_value must be a number, got {pv!r}", op="Img2colConfig")
        if not isinstance(self.transpose, bool):
            raise PtoTypeError(f"transpose must be a bool, got {self.transpose!r}",
                               op="Img2colConfig")
