"""TGATHER comparison form with one scalar k for every row (PTOAS's spelling
``pto.tgather ins(%src, %k, %tmp : T, elem, T) outs(%dst, %cdst : T, T)``).

pto-isa has no such overload: its comparison form reads a per-row ``k_value`` tile of
integer words (a5: ui16 / ui32; a2a3: i32 / ui32 for f32 and i32 sources, i16 / ui16 for
f16). ptosim defines the scalar form as that tile form with every row's word equal to k,
so both run one code path. A k no such word holds (a float k that is not an integer, or one
outside the range the source type's path reads) is refused rather than given a meaning no
source defines. docs/semantics.md, TGATHER, records the decision.
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import PtoTypeError, PtoValueError

# src type -> the integer range a k of that type may take (the float sources: the words the
# threshold conversions read, i16 for f16 (a5 reads k's low half as i16; a2a3 vconv_s162f16),
# i32 for f32 (a5 compares with the s32-rounded score; a2a3 vconv_s322f32))
_K_RANGE = {"f16": (-(1 << 15), 1 << 15), "f32": (-(1 << 31), 1 << 31),
            "i8": (-(1 << 7), 1 << 7), "ui8": (0, 1 << 8),
            "i16": (-(1 << 15), 1 << 15), "ui16": (0, 1 << 16),
            "i32": (-(1 << 31), 1 << 31), "ui32": (0, 1 << 32)}


def scalar_k(op: str, src_dtype: str, k: object) -> int:
    """The integer every row's k_value word holds for the scalar ``k`` (before the word's
    own wrap: a5 stores it as a u32 word, a2a3 as src's k type)."""
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, float, np.integer,
                                                             np.floating)):
        raise PtoTypeError(f"k must be a number, got {type(k).__name__}", op=op,
                           operand="k")
    x = float(k) if isinstance(k, (float, np.floating)) else None
    if x is not None and (not math.isfinite(x) or not x.is_integer()):
        raise PtoValueError(f"k = {k!r}: the comparison form's thresholds are integer "
                            f"words (pto-isa's k_value tile), so a scalar k must be an "
                            f"integral value", op=op, operand="k")
    n = int(x) if x is not None else int(k)
    lo, hi = _K_RANGE.get(src_dtype, (-(1 << 31), 1 << 32))
    if not lo <= n < hi:
        raise PtoValueError(f"k = {n} is outside [{lo}, {hi}), the range a k_value word "
                            f"holds for {src_dtype} src", op=op, operand="k")
    return n
