"""The vector micro ISA: register values (`values`) and the vector ops (`ops`)."""

from .values import MASK_BITS, MASK_WIDTHS, VREG_BYTES, VREG_DTYPES, Align, Mask, VReg, lanes_of

__all__ = ["VReg", "Mask", "Align", "VREG_BYTES", "MASK_BITS", "MASK_WIDTHS", "VREG_DTYPES",
           "lanes_of"]
