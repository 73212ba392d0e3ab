"""Values of the vector micro ISA: vector registers, predicates and the unaligned-stream state.

A `VReg` is one 256-byte vector register with the element type it is viewed as
(``!pto.vreg<NxT>``, ``N = 256 / sizeof(T)``). It keeps the raw byte image, so every
reinterpretation (a BRC_B16 load into an f32 register, a PK_B32 store of an f16 register,
``vbitcast``) is a view of the same bytes.

A `Mask` is one 256-bit predicate image with a view width ``G`` (``!pto.mask<bG>``,
G in 8 / 16 / 32): each bit governs one byte of a register, and lane ``i`` of the ``bG``
view is bit ``i * G / 8``. Producers set only those bits; the other bits stay 0.

An `Align` is the state of an unaligned load/store stream (``!pto.align``): the one
32-byte block it holds (`ptosim.vector.stream`).

All three are immutable: ops return new values (SSA semantics), so a value carried
through ``scf.for`` iter_args can never be changed behind the loop's back.

>>> import numpy as np
>>> v = VReg.from_lanes(np.arange(64, dtype=np.float32), "f32")
>>> v.lanes[:3]
array([0., 1., 2.], dtype=float32)
>>> v.view("ui16").lanes.shape
(128,)
>>> m = Mask.from_lanes([True] * 3 + [False] * 61, 32)
>>> m.bits[:9].astype(int).tolist()
[1, 0, 0, 0, 1, 0, 0, 0, 1]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..dtypes import DType, dtype as _dtype
from ..errors import PtoTypeError, PtoValueError

VREG_BYTES = 256                       # 8 VLanes of 32 bytes (vector-notes §1.1)
MASK_BITS = VREG_BYTES                 # one predicate bit per register byte
MASK_WIDTHS = (8, 16, 32)              # the bG views of !pto.mask
# element types a vector register can hold (PTO micro ISA spec, vreg types)
VREG_DTYPES = ("i8", "si8", "ui8", "i16", "si16", "ui16", "i32", "si32", "ui32",
               "i64", "si64", "ui64", "f16", "bf16", "f32")


def vreg_dtype(dt: str | DType) -> DType:
    """The `DType` of a vector element type, or a PtoTypeError naming the legal ones."""
    d = _dtype(dt)
    if d.name not in VREG_DTYPES:
        raise PtoTypeError(f"{d.name} is not a vector element type (one of "
                           f"{', '.join(VREG_DTYPES)})")
    return d


def lanes_of(dt: str | DType) -> int:
    """Lanes of a vector register of element type ``dt`` (256 / element bytes)."""
    return VREG_BYTES // vreg_dtype(dt).size


class VReg:
    """A 256-byte vector register viewed with element type ``dtype``."""

    __slots__ = ("dtype", "lanes")

    def __init__(self, dtype: str | DType, raw: np.ndarray | bytes) -> None:
        d = vreg_dtype(dtype)
        img = np.frombuffer(bytes(raw), dtype=np.uint8) if isinstance(raw, bytes) \
            else np.ascontiguousarray(raw, dtype=np.uint8).reshape(-1).copy()
        if img.size != VREG_BYTES:
            raise PtoValueError(f"a vector register holds {VREG_BYTES} bytes, got {img.size}")
        img.flags.writeable = False
        self.dtype: DType = d
        # The lanes as a read-only array of the element's carrier dtype; `raw` is the
        # same memory as bytes. Kept in lane form: that is what the ops read.
        self.lanes: np.ndarray = img.view(d.np)

    @classmethod
    def _own(cls, d: DType, lanes: np.ndarray) -> VReg:
        """A register taking ``lanes`` as is: a fresh C-contiguous array of ``d``'s carrier
        with exactly ``lanes_of(d)`` values that nothing else holds (the ops' fast path;
        no checks, no copy)."""
        reg = cls.__new__(cls)
        lanes.setflags(write=False)
        reg.dtype = d
        reg.lanes = lanes
        return reg

    @classmethod
    def from_lanes(cls, values: Any, dtype: str | DType) -> VReg:
        """A register from exactly ``lanes_of(dtype)`` values, converted to ``dtype``
        (an unsigned array of the element's size is taken as raw bit patterns)."""
        d = vreg_dtype(dtype)
        arr = np.asarray(values)
        if arr.dtype != d.np and arr.dtype.kind == "u" and arr.dtype.itemsize == d.size:
            arr = arr.view(d.np)
        arr = np.ascontiguousarray(arr, dtype=d.np).reshape(-1)
        if arr.size != VREG_BYTES // d.size:
            raise PtoValueError(f"a vreg of {d.name} has {VREG_BYTES // d.size} lanes, got "
                                f"{arr.size} values")
        return cls(d, arr.view(np.uint8))

    @classmethod
    def zeros(cls, dtype: str | DType) -> VReg:
        return cls(dtype, np.zeros(VREG_BYTES, np.uint8))

    @classmethod
    def full(cls, value: Any, dtype: str | DType) -> VReg:
        """Every lane ``value`` (converted to ``dtype``)."""
        d = vreg_dtype(dtype)
        return cls.from_lanes(np.full(VREG_BYTES // d.size, value, dtype=d.np), d)

    @property
    def n(self) -> int:
        """Number of lanes of this view."""
        return VREG_BYTES // self.dtype.size

    @property
    def raw(self) -> np.ndarray:
        """The 256-byte image (read-only uint8 view of the lanes)."""
        return self.lanes.view(np.uint8)

    def view(self, dtype: str | DType) -> VReg:
        """The same 256 bytes seen with another element type (no conversion)."""
        return VReg(dtype, self.raw)

    @property
    def type_name(self) -> str:
        """``vreg<64xf32>``: the type as the text spells it (without ``!pto.``)."""
        return f"vreg<{self.n}x{self.dtype.name}>"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, VReg) and other.dtype == self.dtype and \
            bool(np.array_equal(other.raw, self.raw))

    def __hash__(self) -> int:
        return hash((self.dtype.name, self.raw.tobytes()))

    def __repr__(self) -> str:
        return f"VReg({self.type_name}, {np.array2string(self.lanes, threshold=8)})"


class Mask:
    """A 256-bit predicate image viewed as ``g``-bit lanes (``!pto.mask<b{g}>``)."""

    __slots__ = ("_full", "bits", "g")

    def __init__(self, g: int, bits: np.ndarray) -> None:
        if g not in MASK_WIDTHS:
            raise PtoTypeError(f"mask width must be one of b8, b16, b32, got b{g}")
        img = np.ascontiguousarray(bits, dtype=bool).reshape(-1).copy()
        if img.size != MASK_BITS:
            raise PtoValueError(f"a mask image has {MASK_BITS} bits, got {img.size}")
        img.flags.writeable = False
        self.g: int = g
        self.bits: np.ndarray = img
        self._full: dict[int, bool] = {}

    def covers(self, size: int) -> bool:
        """True when every lane of a register of ``size``-byte elements is active (bit
        ``i * size`` set for every lane ``i``); cached, the image is immutable."""
        full = self._full.get(size)
        if full is None:
            full = self._full[size] = bool(self.bits[::size].all())
        return full

    @staticmethod
    def lanes_for(g: int) -> int:
        """Logical lanes of the ``bG`` view: 256 / 128 / 64."""
        return MASK_BITS * 8 // g

    @classmethod
    def from_lanes(cls, active: Sequence[bool] | np.ndarray, g: int) -> Mask:
        """A mask whose lane ``i`` of the ``bG`` view is ``active[i]`` (other bits 0)."""
        if g not in MASK_WIDTHS:
            raise PtoTypeError(f"mask width must be one of b8, b16, b32, got b{g}")
        act = np.asarray(active, dtype=bool).reshape(-1)
        if act.size != cls.lanes_for(g):
            raise PtoValueError(f"a b{g} mask has {cls.lanes_for(g)} lanes, got {act.size}")
        bits = np.zeros(MASK_BITS, dtype=bool)
        bits[::g // 8] = act
        return cls(g, bits)

    @classmethod
    def from_bytes(cls, data: np.ndarray | bytes, g: int) -> Mask:
        """The image as stored by ``psts NORM``: 32 bytes, bit ``k`` is bit ``k % 8`` of
        byte ``k // 8`` (little-endian bit order)."""
        raw = np.frombuffer(bytes(data), np.uint8) if isinstance(data, bytes) \
            else np.asarray(data, np.uint8).reshape(-1)
        if raw.size != MASK_BITS // 8:
            raise PtoValueError(f"a mask image is {MASK_BITS // 8} bytes, got {raw.size}")
        return cls(g, np.unpackbits(raw, bitorder="little").astype(bool))

    def to_bytes(self) -> np.ndarray:
        """The 32-byte image (inverse of `from_bytes`)."""
        return np.packbits(self.bits, bitorder="little")

    @property
    def n(self) -> int:
        return self.lanes_for(self.g)

    @property
    def lanes(self) -> np.ndarray:
        """Lane ``i`` of the ``bG`` view is image bit ``i * G / 8`` (read-only bool array)."""
        return self.bits[::self.g // 8]

    def view(self, g: int) -> Mask:
        """The same image seen with another lane width (``pbitcast``)."""
        return Mask(g, self.bits)

    @property
    def type_name(self) -> str:
        return f"mask<b{self.g}>"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Mask) and other.g == self.g and \
            bool(np.array_equal(other.bits, self.bits))

    def __hash__(self) -> int:
        return hash((self.g, self.bits.tobytes()))

    def __repr__(self) -> str:
        return f"Mask(b{self.g}, {int(self.lanes.sum())}/{self.n} lanes active)"


class Align:
    """The state of an unaligned load/store stream (``!pto.align``): one 32-byte block.

    ``kind`` is ``"store"`` (made by ``init_align``, threaded through ``vstus`` / ``vstur``
    / ``pstu``, drained by ``vstas`` / ``vstar``) or ``"load"`` (made by ``vldas``,
    threaded through ``vldus``); the two kinds never mix (PTOAS verifies separate load and
    store chains). ``block`` is the pointer to the 32-byte aligned UB block the state holds
    (None: empty), ``data`` its 32 bytes and, for a store stream, ``valid`` which of them
    are still pending (not yet written to UB). ``position`` is where a store stream ends:
    the address its flush must name. ``generation`` counts the ops that produced it.
    Immutable: ops return a new state (docs/semantics.md, "Unaligned streams")."""

    __slots__ = ("block", "data", "generation", "kind", "position", "valid")

    def __init__(self, generation: int = 0, kind: str = "store", block: Any = None,
                 data: np.ndarray | None = None, valid: np.ndarray | None = None,
                 position: Any = None) -> None:
        self.generation = generation
        self.kind = kind
        self.block = block
        self.data = _frozen(data if data is not None else np.zeros(ALIGN_BYTES, np.uint8),
                            np.uint8)
        self.valid = _frozen(valid if valid is not None else np.zeros(ALIGN_BYTES, bool),
                             bool)
        self.position = position

    def next(self, **changes: Any) -> Align:
        """The state after one more op, with ``changes`` to its fields."""
        fields = {k: getattr(self, k) for k in ("kind", "block", "data", "valid",
                                                "position")}
        fields.update(changes)
        return Align(self.generation + 1, **fields)

    @property
    def pending(self) -> int:
        """Bytes a store stream holds that have not reached UB yet."""
        return int(self.valid.sum())

    def __repr__(self) -> str:
        where = "" if self.block is None else f", block {self.block.offset:#x}"
        held = f", {self.pending} bytes pending" if self.kind == "store" else ""
        return f"Align({self.kind}{where}{held}, #{self.generation})"


ALIGN_BYTES = 32                       # the stream state holds one 32-byte UB block


def _frozen(a: np.ndarray, dt: Any) -> np.ndarray:
    out = np.array(a, dtype=dt).reshape(-1)
    if out.size != ALIGN_BYTES:
        raise PtoValueError(f"an align state holds {ALIGN_BYTES} bytes, got {out.size}")
    out.flags.writeable = False
    return out


def element_bits(v: VReg) -> int:
    return v.dtype.size * 8
