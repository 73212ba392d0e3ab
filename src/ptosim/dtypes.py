"""PTO element types: spellings, numpy carriers, sizes and C0.

Every element type has one canonical spelling (the MLIR one used by ``!pto.ptr<T, ...>``)
and a numpy carrier dtype whose bytes are exactly the bytes in device memory. Formats
that numpy and ml_dtypes lack (HiFloat8, packed pairs) are carried as unsigned integers
holding the raw codes; `hif8_to_float32` decodes HiFloat8 through an exact 256-entry table.
"""

from __future__ import annotations

from dataclasses import dataclass

import ml_dtypes
import numpy as np
from numpy.typing import DTypeLike

from .errors import UnknownDtypeError

BLOCK_BYTES = 32  # one C0 row: the unit of on-chip alignment and of most DMA fields


@dataclass(frozen=True)
class DType:
    """One PTO element type. ``size`` is bytes per element (per pair for ``...x2`` types)."""

    name: str
    np: np.dtype
    size: int
    kind: str  # "float", "int" (signed or signless), "uint", "packed"

    @property
    def c0(self) -> int:
        """Elements per 32-byte block row (C0 = 32 / sizeof)."""
        return BLOCK_BYTES // self.size

    @property
    def is_float(self) -> bool:
        return self.kind == "float"

    def __str__(self) -> str:
        return self.name


def _d(name: str, carrier: DTypeLike, kind: str) -> DType:
    dt = np.dtype(carrier)
    return DType(name, dt, dt.itemsize, kind)


_CANONICAL: tuple[DType, ...] = (
    _d("f16", np.float16, "float"),
    _d("bf16", ml_dtypes.bfloat16, "float"),
    _d("f32", np.float32, "float"),
    _d("i8", np.int8, "int"),
    _d("si8", np.int8, "int"),
    _d("ui8", np.uint8, "uint"),
    _d("i16", np.int16, "int"),
    _d("si16", np.int16, "int"),
    _d("ui16", np.uint16, "uint"),
    _d("i32", np.int32, "int"),
    _d("si32", np.int32, "int"),
    _d("ui32", np.uint32, "uint"),
    _d("i64", np.int64, "int"),
    _d("si64", np.int64, "int"),
    _d("ui64", np.uint64, "uint"),
    _d("f8E4M3FN", ml_dtypes.float8_e4m3fn, "float"),
    _d("f8E5M2", ml_dtypes.float8_e5m2, "float"),
    _d("f8E8M0FNU", ml_dtypes.float8_e8m0fnu, "float"),   # MX scale (e8m0)
    _d("hif8", np.uint8, "packed"),                       # HiFloat8 code
    _d("hif8x2", np.uint16, "packed"),                    # two HiFloat8 codes
    _d("f4E2M1x2", np.uint8, "packed"),                   # two FP4 E2M1 codes
    _d("f4E1M2x2", np.uint8, "packed"),                   # two FP4 E1M2 codes
)

DTYPES: dict[str, DType] = {d.name: d for d in _CANONICAL}

# Other spellings users write: MLIR dialect-prefixed forms, C++ type names, short forms.
_ALIASES: dict[str, str] = {
    "u8": "ui8", "u16": "ui16", "u32": "ui32", "u64": "ui64",
    "s8": "si8", "s16": "si16", "s32": "si32", "s64": "si64",
    "half": "f16", "float16": "f16", "float": "f32", "float32": "f32",
    "bfloat16": "bf16", "bfloat16_t": "bf16",
    "int8_t": "i8", "uint8_t": "ui8", "int16_t": "i16", "uint16_t": "ui16",
    "int32_t": "i32", "uint32_t": "ui32", "int64_t": "i64", "uint64_t": "ui64",
    "int8": "i8", "uint8": "ui8", "int16": "i16", "uint16": "ui16",
    "int32": "i32", "uint32": "ui32", "int64": "i64", "uint64": "ui64",
    "float8_e4m3": "f8E4M3FN", "float8_e4m3fn": "f8E4M3FN", "f8e4m3fn": "f8E4M3FN",
    "float8_e5m2": "f8E5M2", "f8e5m2": "f8E5M2",
    "e8m0": "f8E8M0FNU", "float8_e8m0fnu": "f8E8M0FNU", "f8e8m0fnu": "f8E8M0FNU",
    "hifloat8": "hif8", "hifloat8_t": "hif8",
}

# numpy carrier -> the spelling `Machine.gm(array)` gives an array of that dtype.
_FROM_NUMPY: dict[np.dtype, str] = {}
for _name in ("f16", "bf16", "f32", "i8", "ui8", "i16", "ui16", "i32", "ui32", "i64", "ui64",
              "f8E4M3FN", "f8E5M2", "f8E8M0FNU"):
    _FROM_NUMPY.setdefault(DTYPES[_name].np, _name)


def dtype(spelling: str | DType | np.dtype | type) -> DType:
    """Look up an element type by any accepted spelling (``f16``, ``!pto.hif8``, ``half`` ...)."""
    if isinstance(spelling, DType):
        return spelling
    if isinstance(spelling, str):
        key = spelling.strip()
        if key.startswith("!pto."):
            key = key[len("!pto."):]
        found = DTYPES.get(key) or DTYPES.get(_ALIASES.get(key, "")) \
            or DTYPES.get(_ALIASES.get(key.lower(), ""))
        if found is None:
            raise UnknownDtypeError(
                f"unknown element type {spelling!r}; known: {', '.join(DTYPES)}")
        return found
    try:
        npd = np.dtype(spelling)
    except TypeError:
        raise UnknownDtypeError(f"unknown element type {spelling!r}") from None
    return from_numpy(npd)


def from_numpy(npd: np.dtype) -> DType:
    """The PTO element type of a numpy dtype (int8 -> i8, bfloat16 -> bf16, ...)."""
    name = _FROM_NUMPY.get(np.dtype(npd))
    if name is None:
        raise UnknownDtypeError(
            f"numpy dtype {np.dtype(npd)} has no PTO element type; use one of "
            f"{', '.join(str(k) for k in _FROM_NUMPY)} or pass dtype= explicitly")
    return DTYPES[name]


def sizeof(spelling: str | DType) -> int:
    """Bytes per element (per pair for packed ``...x2`` types)."""
    return dtype(spelling).size


def c0(spelling: str | DType) -> int:
    """Elements per 32-byte block: C0 = 32 / sizeof."""
    return dtype(spelling).c0


# --- HiFloat8 -----------------------------------------------------------------------
# Code = sign | dot | exponent | mantissa. The dot field is a prefix code telling how many
# exponent bits D follow: 11 -> D=4 (1 mantissa bit), 10 -> 3 (2), 01 -> 2 (3), 001 -> 1 (3),
# 0001 -> 0 (3), 0000 -> subnormal (3 bits m, value 2^(m-23)). The exponent is
# sign-magnitude with an implicit leading 1 on the magnitude (D=4: +-[8,15], D=3: +-[4,7],
# D=2: +-[2,3], D=1: +-1, D=0: 0). 0x00 = 0, 0x80 = NaN, 0x6F/0xEF = +-inf.

def _hif8_decode(code: int) -> float:
    sign = -1.0 if code & 0x80 else 1.0
    mag = code & 0x7F
    if mag == 0:
        return float("nan") if code & 0x80 else 0.0
    if mag == 0x6F:
        return sign * float("inf")
    if mag >> 5 == 0b11:
        d, rest = 4, mag & 0x1F
    elif mag >> 5 == 0b10:
        d, rest = 3, mag & 0x1F
    elif mag >> 5 == 0b01:
        d, rest = 2, mag & 0x1F
    elif mag >> 4 == 0b001:
        d, rest = 1, mag & 0x0F
    elif mag >> 3 == 0b0001:
        d, rest = 0, mag & 0x07
    else:
        return sign * 2.0 ** ((mag & 0x07) - 23)
    mbits = {4: 1, 3: 2, 2: 3, 1: 3, 0: 3}[d]
    mant = rest & ((1 << mbits) - 1)
    if d == 0:
        exp = 0
    else:
        ebits = rest >> mbits                      # d bits: sign then d-1 magnitude bits
        e_sign = -1 if ebits >> (d - 1) else 1
        exp = e_sign * ((1 << (d - 1)) | (ebits & ((1 << (d - 1)) - 1)))
    return sign * 2.0 ** exp * (1.0 + mant / (1 << mbits))


HIF8_TABLE: np.ndarray = np.array([_hif8_decode(c) for c in range(256)], dtype=np.float32)
HIF8_TABLE.setflags(write=False)


def hif8_to_float32(codes: np.ndarray) -> np.ndarray:
    """Decode HiFloat8 codes (uint8) to float32, exactly."""
    return HIF8_TABLE[np.asarray(codes, dtype=np.uint8)]


# --- packed FP4 pairs ----------------------------------------------------------------
# A ``f4E2M1x2`` / ``f4E1M2x2`` byte holds two 4-bit codes: logical element 2i in the low
# nibble, element 2i+1 in the high nibble (pto-isa's CPU simulator GetProperDataPart and
# the a5 TCVT goldens, tests/npu/a5/src/st/testcase/tcvt/gen_data.py). Each code is
# sign | exponent | mantissa with bias 1 and no infinity or NaN: E2M1 is OCP MX FP4
# (0, 0.5, 1, 1.5, 2, 3, 4, 6), E1M2 holds 0, 0.25 ... 1.75.

FP4_TYPES: tuple[str, ...] = ("f4E2M1x2", "f4E1M2x2")


def is_fp4(spelling: str | DType) -> bool:
    """Whether an element type is one of the packed FP4 pair types."""
    return dtype(spelling).name in FP4_TYPES


def pack_nibbles(codes: np.ndarray) -> np.ndarray:
    """Pack 4-bit codes along the last axis into bytes: code 2i in the low nibble of byte i,
    code 2i+1 in its high nibble; an odd count leaves the last high nibble 0."""
    c = np.asarray(codes, dtype=np.uint8) & 0x0F
    n = c.shape[-1]
    if n % 2:
        c = np.concatenate([c, np.zeros(c.shape[:-1] + (1,), np.uint8)], axis=-1)
    return (c[..., 0::2] | (c[..., 1::2] << 4)).astype(np.uint8)


def unpack_nibbles(data: np.ndarray, count: int | None = None) -> np.ndarray:
    """The 4-bit codes of packed bytes along the last axis (low nibble first), the first
    ``count`` of them (default: two per byte)."""
    b = np.asarray(data, dtype=np.uint8)
    out = np.empty(b.shape[:-1] + (2 * b.shape[-1],), np.uint8)
    out[..., 0::2] = b & 0x0F
    out[..., 1::2] = b >> 4
    return out if count is None else out[..., :count]
