"""Machine state: GM allocations, cube and vector buffers as byte arrays, typed pointers.

A `MachineState` holds ``block_dim`` blocks; each block is one cube core (AIC: L1, L0A,
L0B, L0C, BT, FB) and two vector sub-blocks (AIV0, AIV1: one UB each), sized by the target
profile. GM is shared by all blocks and is a set of allocations at absolute addresses.
The ops (`ptosim.ops`) add the instructions on top of this state.
"""

from __future__ import annotations

import bisect
import math
import mmap
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .dtypes import DType, dtype as _dtype, from_numpy
from .errors import (
    OutOfBoundsError,
    PtoError,
    PtoTypeError,
    PtoValueError,
    SpaceError,
    TargetError,
    UninitializedReadError,
    warn,
)
from .events import ACCESS
from .targets import CUBE_SPACES, VECTOR_SUBBLOCKS, Target, canonical_space, get_target

GM_BASE = 0x1000_0000   # first GM allocation address (never 0, so null pointers stand out)
GM_ALIGN = 512          # allocation alignment in GM
GM_GUARD = 512          # unmapped bytes between allocations: overruns fault instead of aliasing
# What an access past the end of its GM allocation does (MachineState's ``gm_overrun``):
# "error" raises OutOfBoundsError; "warn" reports it and lets it run, reads past the end
# seeing zeros and writes past it dropped (docs/semantics.md, "GM overruns").
GM_OVERRUN_MODES = ("error", "warn")
# With gm_overrun="warn", each allocation is backed this far past its end (zero pages the
# OS commits only when touched); an access reaching further is still an error.
GM_OVERRUN_REACH = 16 << 20
_OVERRUN_HINT = ("; pass --gm-overrun=warn (Python: gm_overrun=\"warn\") to run kernels "
                 "that overrun on purpose")
# CTRL at kernel entry: bit 48 set = the non-saturating (INF/NaN) mode, which is where
# kernels start on the NPU (docs/semantics.md, "CTRL at kernel entry").
CTRL_NOSAT = 1 << 48
ENTRY_CTRL = CTRL_NOSAT
# What an op does with the bytes of one buffer access (MachineState.region's ``access``):
# read, write, read and write (e.g. mad_acc's accumulator), GM atomic read-modify-write.
ACCESS_ROLES = ("R", "W", "RW", "A")
# The bytes a strided access touches inside its extent: runs of ``length`` bytes at
# start + sum(i_k * stride_k) for every index vector i_k < count_k, given as
# (length, ((count, stride), ...)).
Runs = tuple[int, tuple[tuple[int, int], ...]]


def lazy_zeros(nbytes: int) -> np.ndarray:
    """``nbytes`` zero bytes whose pages the OS commits only when touched: an anonymous
    mapping of its own. ``np.zeros`` gives that only above malloc's mmap threshold, which
    glibc raises at run time (to 256 KiB and beyond once such a block is freed), so a
    48-block machine's smaller buffers were memset and resident although never used."""
    if nbytes <= 0:
        return np.zeros(0, dtype=np.uint8)
    # private: `MachineState.release_block` drops pages with MADV_DONTNEED, which zeroes
    # a private anonymous page but leaves a shared one's bytes in place
    if hasattr(mmap, "MAP_PRIVATE"):        # (POSIX; elsewhere an unnamed map)
        return np.frombuffer(mmap.mmap(-1, nbytes, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS),
                             dtype=np.uint8)
    return np.frombuffer(mmap.mmap(-1, nbytes), dtype=np.uint8)  # pragma: no cover


@dataclass(frozen=True)
class Ptr:
    """A typed pointer: address space, element type, byte offset.

    ``sub`` selects the vector sub-block for ``ub`` (0 or 1); ``block`` the block of a
    multi-block launch. For ``gm`` the offset is the absolute GM byte address.
    Adding an integer moves by whole elements, as ``pto.addptr`` does.
    """

    space: str
    dtype: DType
    offset: int
    sub: int = 0
    block: int = 0

    def __add__(self, elements: int) -> Ptr:
        if type(elements) is not int and not isinstance(elements, np.integer):
            raise PtoTypeError(f"pointer arithmetic moves by whole elements; got {elements!r}")
        return Ptr(self.space, self.dtype, self.offset + int(elements) * self.dtype.size,
                   self.sub, self.block)

    def __sub__(self, elements: int) -> Ptr:
        if type(elements) is not int and not isinstance(elements, np.integer):
            raise PtoTypeError(f"pointer arithmetic moves by whole elements; got {elements!r}")
        return self + (-int(elements))

    def cast(self, dt: DType | str) -> Ptr:
        """The same address seen with another element type."""
        return Ptr(self.space, _dtype(dt), self.offset, self.sub, self.block)

    def __repr__(self) -> str:
        where = f"{self.space}{self.sub}" if self.space == "ub" else self.space
        blk = f", block={self.block}" if self.block else ""
        return f"Ptr({where}, {self.dtype.name}, {self.offset:#x}{blk})"


@dataclass
class _Allocation:
    base: int
    data: np.ndarray                    # exactly the allocation's bytes
    # gm_overrun="warn": the array ``data`` is the head of, GM_OVERRUN_REACH bytes longer,
    # and the end of the bytes past ``data`` that an op may have written since
    backing: np.ndarray | None = None
    dirty: int = 0
    name: str | None = None             # how diagnostics call it (a kernel's "%x")
    # A new output whose size the kernel decides (`MachineState.gm_new`): it grows into
    # ``backing`` as ops touch it, ``dirty`` is the end of the bytes touched, ``written``
    # the byte ranges written so far (sorted, disjoint, adjacent ones merged).
    grows: bool = False
    written: list[list[int]] = field(default_factory=list)
    stored: bool = False                # an op has written (or tried to write) to it

    def describe(self) -> str:
        named = f" {self.name}" if self.name else ""
        return (f"GM allocation{named} [{self.base:#x}, {self.base + self.data.size:#x}) "
                f"({self.data.size} bytes)")


@dataclass
class BlockState:
    """One block: the cube core's buffers and the two vector sub-blocks' UBs.

    FB is keyed by its full address: bits 16 and up select a bank (kernels place relu
    parameters at 0x10040 while quant parameters sit at 0), each bank the FB's capacity."""

    cube: dict[str, np.ndarray]
    ub: list[np.ndarray] = field(default_factory=list)
    fb_banks: dict[int, np.ndarray] = field(default_factory=dict)


class MachineState:
    """Buffers and pointers of a simulated NPU; see `ptosim.Machine` for the ops."""

    def __init__(self, target: str | Target = "a5", *, block_dim: int = 1,
                 poison: int | None = None, ctrl: int | None = None,
                 force_block_dim: bool = False, gm_overrun: str = "error") -> None:
        self.target: Target = get_target(target)
        if not isinstance(gm_overrun, str) or gm_overrun not in GM_OVERRUN_MODES:
            raise PtoValueError(f"gm_overrun must be one of {', '.join(GM_OVERRUN_MODES)}, "
                                f"got {gm_overrun!r}")
        # fixed at construction: every allocation is backed for it when it is made
        self._gm_overrun = gm_overrun
        if not isinstance(block_dim, int) or block_dim < 1:
            raise PtoValueError(f"block_dim must be a positive integer, got {block_dim!r}")
        if block_dim > self.target.max_blocks and not force_block_dim:
            # each block holds ~1.4 MB of buffers: an unbounded count exhausts memory
            raise PtoValueError(f"block_dim {block_dim} exceeds the {self.target.max_blocks} "
                                f"blocks (AI cores) of {self.target.name}; pass "
                                f"force_block_dim=True to run it anyway")
        fill = 0 if poison is None else int(poison) & 0xFF
        self._fill = fill
        # CTRL register: bit 48 = nosat, bit 50 = sat keeps NaN. A kernel's cores start
        # from this value; the default is the NPU's entry state, ENTRY_CTRL (nosat).
        self.ctrl = check_ctrl(ENTRY_CTRL if ctrl is None else ctrl)
        # Per-core special registers other than CTRL (the copy ops' loop registers ...),
        # by register name; a kernel gives each core its own, empty at entry.
        self.regs: dict[str, tuple[int, ...]] = {}
        # ops' validated plans by operand values (`ops.common.plan_key`): the checks and
        # layout arithmetic of an op that runs again with the same operands, done once
        self._op_plans: dict[tuple, Any] = {}
        # vector tile ops' prepared calls by (op, operand identities): see tile.vector.run
        self._tile_plans: dict[tuple, Any] = {}
        # while a tile op runs the first time: its burst copies and its other writes
        self._recording: list[tuple] | None = None
        self._recorded_writes = 0
        cap = self.target.capacity

        def buf(space: str) -> np.ndarray:
            # untouched pages are never committed: a block costs memory only for the
            # pages its kernel touches. A poison fill has to write every byte.
            if fill == 0:
                return lazy_zeros(cap[space])
            return np.full(cap[space], fill, dtype=np.uint8)

        self.blocks = [BlockState({s: buf(s) for s in CUBE_SPACES},
                                  [buf("ub") for _ in range(VECTOR_SUBBLOCKS)])
                       for _ in range(block_dim)]
        # Observer of every buffer access an op makes (the hazard checker / timeline):
        # called as hook(buffer, start, nbytes, access, operand, op, runs) before the op
        # moves data; ``access`` is the role the op declared (see ACCESS_ROLES), ``runs``
        # None (every byte of the extent) or the strided bytes inside it (see `Runs`).
        self.access_hook: Callable[[np.ndarray, int, int, str, str | None, str | None,
                                    Runs | None], None] | None = None
        # With a hook set: an observer's event log (`ptosim.events`) that takes the
        # accesses as entries instead of hook calls (the executor sets it while an op
        # runs; the hook stays set: it marks the machine as observed)
        self.access_log: list[tuple] | None = None
        self._gm: list[_Allocation] = []
        self._gm_bases: list[int] = []
        self._gm_next = GM_BASE

    def release_block(self, block: int) -> None:
        """Hand the pages a finished block's on-chip buffers touched back to the OS. The
        buffers stay mapped and read as zeros again (their state at launch without a
        poison fill); a run that discards its machine (the CLI) calls this as each block
        ends, so a launch costs the pages of one block at a time, not of all of them."""
        if type(block) is not int or not 0 <= block < len(self.blocks):
            raise PtoValueError(f"block {block} does not exist (block_dim = {len(self.blocks)})")
        blk = self.blocks[block]
        for data in (*blk.cube.values(), *blk.ub, *blk.fb_banks.values()):
            owner = getattr(data.base, "obj", None)     # frombuffer's memoryview
            if isinstance(owner, mmap.mmap) and hasattr(mmap, "MADV_DONTNEED"):
                owner.madvise(mmap.MADV_DONTNEED)   # (`lazy_zeros`; a poison fill is not)

    # --- allocation and pointers -----------------------------------------------------
    def gm(self, array: np.ndarray | list | tuple, dtype: str | DType | None = None, *,
           name: str | None = None, adopt: bool = False) -> Ptr:
        """Copy an array into a new GM allocation; the pointer is typed by the array's
        dtype, or by ``dtype`` (values are then converted as `write` does). ``name``
        labels the allocation in diagnostics. ``adopt``: a C-contiguous, writable array of
        the element's carrier type becomes the allocation itself (no copy; the kernel's
        writes land in it), so GM is held once; other arrays are copied."""
        if name is not None and not isinstance(name, str):
            raise PtoTypeError(f"gm: name must be a string, got {name!r}")
        arr = np.ascontiguousarray(array)
        dt = _dtype(dtype) if dtype is not None else from_numpy(arr.dtype)
        self.require_dtype(dt)
        if dtype is not None and arr.dtype != dt.np:
            arr = _as_carrier(arr, dt)
        if adopt is True and arr is array and arr.flags.writeable and arr.nbytes \
                and self._gm_overrun == "error":
            ptr = self._allocate(0, dt)
            alloc = self._gm[-1]
            alloc.data = arr.reshape(-1).view(np.uint8)
            alloc.name = name
            self._gm_next = ptr.offset + -(-arr.nbytes // GM_ALIGN) * GM_ALIGN + GM_GUARD
            return ptr
        ptr = self._allocate(arr.nbytes, dt)
        if arr.nbytes:
            self._gm[-1].data[:] = arr.reshape(-1).view(np.uint8)
        self._gm[-1].name = name
        return ptr

    def gm_shares(self, ptr: Ptr, array: object) -> bool:
        """True when the GM allocation at ``ptr`` is ``array``'s memory (see ``adopt``)."""
        i = bisect.bisect_right(self._gm_bases, ptr.offset) - 1
        return i >= 0 and isinstance(array, np.ndarray) and \
            np.shares_memory(self._gm[i].data, array)

    def _gm_alloc(self, ptr: Ptr) -> _Allocation | None:
        """The GM allocation whose range starts at or before ``ptr`` (None: none)."""
        i = bisect.bisect_right(self._gm_bases, ptr.offset) - 1
        return self._gm[i] if i >= 0 else None

    def gm_stored(self, ptr: Ptr) -> bool:
        """True when an op has written to the GM allocation at ``ptr`` (its bytes may
        still equal what they were); a kernel's pure inputs stay False."""
        i = bisect.bisect_right(self._gm_bases, ptr.offset) - 1
        return i >= 0 and self._gm[i].stored

    def gm_new(self, dtype: str | DType, *, reach: int = 1 << 30,
               name: str | None = None) -> Ptr:
        """A GM allocation with no size yet: it holds whatever bytes the ops touch (up to
        ``reach``, zero until written; pages are mapped only when touched) and
        `gm_new_bytes` gives them back. For an output whose size the kernel decides.
        Allocate it after every other buffer: addresses past it must stay free."""
        dt = _dtype(dtype)
        self.require_dtype(dt)
        if type(reach) is not int or not 0 < reach <= 1 << 40:
            raise PtoValueError(f"gm_new: reach must be a whole number of bytes in "
                                f"(0, 2**40], got {reach!r}")
        if name is not None and not isinstance(name, str):
            raise PtoTypeError(f"gm_new: name must be a string, got {name!r}")
        ptr = self._allocate(0, dt)
        alloc = self._gm[-1]
        alloc.backing = lazy_zeros(reach)
        alloc.data = alloc.backing[:0]
        alloc.grows, alloc.name = True, name
        self._gm_next = ptr.offset + reach + GM_GUARD
        return ptr

    def gm_new_bytes(self, ptr: Ptr) -> np.ndarray:
        """The bytes a `gm_new` allocation's ops touched (a copy), from its start to the
        end of the last byte touched, rounded up to whole elements of ``ptr``."""
        alloc = self._gm[bisect.bisect_right(self._gm_bases, ptr.offset) - 1]
        if not alloc.grows or alloc.backing is None or alloc.base != ptr.offset:
            raise PtoValueError("gm_new_bytes takes a pointer made by gm_new")
        end = -(-alloc.dirty // ptr.dtype.size) * ptr.dtype.size
        return alloc.backing[:end].copy()

    def gm_empty(self, n: int, dtype: str | DType) -> Ptr:
        """A zero-filled GM allocation of ``n`` elements."""
        dt = _dtype(dtype)
        self.require_dtype(dt)
        if not isinstance(n, (int, np.integer)) or n < 0:
            raise PtoValueError(f"gm_empty: element count must be a non-negative integer, "
                                f"got {n!r}")
        return self._allocate(int(n) * dt.size, dt)

    @property
    def gm_overrun(self) -> str:
        """"error" or "warn": what an access past the end of a GM allocation does."""
        return self._gm_overrun

    def _allocate(self, nbytes: int, dt: DType) -> Ptr:
        base = self._gm_next
        if self._gm_overrun == "warn":
            backing = lazy_zeros(nbytes + GM_OVERRUN_REACH)
            self._gm.append(_Allocation(base, backing[:nbytes], backing, nbytes))
        else:
            self._gm.append(_Allocation(base, np.zeros(nbytes, dtype=np.uint8)))
        self._gm_bases.append(base)
        self._gm_next = base + -(-max(nbytes, 1) // GM_ALIGN) * GM_ALIGN + GM_GUARD
        return Ptr("gm", dt, base)

    def ptr(self, space: str, dtype: str | DType, byte_offset: int = 0, *,
            subblock: int = 0, block: int = 0) -> Ptr:
        """A pointer into an on-chip buffer (``l1 l0a l0b l0c bt fb ub`` or the aliases
        ``mat left right acc vec bias scaling``) at a byte offset."""
        sp = canonical_space(space)
        dt = _dtype(dtype)
        self.require_dtype(dt)
        if sp == "gm":
            raise SpaceError("GM pointers come from m.gm(array) or m.gm_empty(n, dtype)")
        if type(block) is not int or not 0 <= block < len(self.blocks):
            raise PtoValueError(f"block {block} does not exist (block_dim = {len(self.blocks)})")
        if sp == "ub":
            if type(subblock) is not int or subblock not in range(VECTOR_SUBBLOCKS):
                raise PtoValueError(f"subblock must be 0 or 1, got {subblock!r}")
        elif subblock != 0:
            raise PtoValueError(f"subblock selects a vector sub-block's UB; {sp} belongs to the "
                           f"cube core (got subblock={subblock})")
        local = byte_offset & 0xFFFF if sp == "fb" and isinstance(byte_offset, (int, np.integer)) \
            else byte_offset
        if not isinstance(byte_offset, (int, np.integer)) or byte_offset < 0 or not \
                0 <= local < self.target.capacity[sp] or byte_offset >> 32:
            raise OutOfBoundsError(
                f"byte offset {byte_offset!r} is outside {sp} "
                f"({self.target.capacity[sp]} bytes on {self.target.name})")
        return Ptr(sp, dt, int(byte_offset), subblock, block)

    def require_dtype(self, dt: DType) -> None:
        if not self.target.has_dtype(dt.name):
            raise TargetError(f"element type {dt.name} does not exist on target "
                              f"{self.target.name}")

    def _set_register(self, op: str, register: str, values: tuple[int, ...]) -> None:
        """An op writing ``values`` (each an i64 operand) into a per-core register."""
        for i, v in enumerate(values):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
                raise PtoTypeError(f"operand {i} must be an integer, got {v!r}", op=op)
            if not -(1 << 63) <= int(v) < 1 << 64:
                raise PtoValueError(f"operand {i} = {v} does not fit a 64-bit register",
                                    op=op)
        self.regs[register] = tuple(int(v) for v in values)

    # --- raw memory access -----------------------------------------------------------
    def region(self, ptr: Ptr, nbytes: int, *, access: str, op: str | None = None,
               operand: str | None = None) -> tuple[np.ndarray, int]:
        """The backing byte array of ``ptr`` and its start index, after checking that
        ``nbytes`` bytes from ``ptr`` lie inside one buffer or GM allocation. ``access`` is
        what the op does with those bytes: "R" reads, "W" writes, "RW" both, "A" a GM
        atomic read-modify-write (one of ACCESS_ROLES; the hazard checker trusts it)."""
        return self._region(ptr, nbytes, access=access, op=op, operand=operand)

    def _region(self, ptr: Ptr, nbytes: int, *, access: str, op: str | None = None,
                operand: str | None = None, runs: Runs | None = None
                ) -> tuple[np.ndarray, int]:
        # What the ops call: the public `region` is wrapped by the API guard, and an op
        # is guarded once already (one guard per op keeps the per-op cost down). ``runs``
        # tells observers which bytes of the extent a strided access really touches.
        if access not in ACCESS_ROLES:
            raise PtoValueError(f"region: access must be one of {', '.join(ACCESS_ROLES)}, "
                                f"got {access!r}", op=op, operand=operand)
        if self._recording is not None and access != "R":
            self._recorded_writes += 1
        who = operand or "pointer"
        if ptr.space == "gm":
            i = bisect.bisect_right(self._gm_bases, ptr.offset) - 1
            if i >= 0:
                alloc = self._gm[i]
                if access != "R":
                    alloc.stored = True
                start = ptr.offset - alloc.base
                if start + nbytes <= alloc.data.size:
                    if self.access_hook is not None and op is not None:
                        log = self.access_log
                        if log is not None:
                            log.append((ACCESS, alloc.data, start, nbytes, access, runs))
                        else:
                            self.access_hook(alloc.data, start, nbytes, access, operand, op,
                                             runs)
                    return alloc.data, start
                if alloc.backing is not None and start + nbytes <= alloc.backing.size:
                    if alloc.grows:
                        _grow(alloc, start, nbytes, access, op, operand)
                        if self.access_hook is not None and op is not None:
                            self._observe(alloc.backing, start, nbytes, access, operand, op,
                                          runs)
                        return alloc.backing, start
                    return self._overrun(alloc, start, nbytes, access, op, operand)
                hint = _OVERRUN_HINT if alloc.backing is None else \
                    (f" (--gm-overrun=warn backs {GM_OVERRUN_REACH >> 20} MiB past the end "
                     f"of an allocation, no more)")
                if start < alloc.data.size:
                    raise OutOfBoundsError(
                        f"{who} touches GM bytes [{ptr.offset:#x}, {ptr.offset + nbytes:#x}) "
                        f"past the end of its {alloc.describe()}{hint}",
                        op=op, operand=operand)
                raise OutOfBoundsError(
                    f"{who} address {ptr.offset:#x} is not inside any GM allocation (it lies "
                    f"past the end of {alloc.describe()}){hint}", op=op, operand=operand)
            raise OutOfBoundsError(f"{who} address {ptr.offset:#x} is not inside any GM "
                                   f"allocation", op=op, operand=operand)
        blk = self.blocks[ptr.block]
        start = ptr.offset
        if ptr.space == "fb":
            bank, start = ptr.offset >> 16, ptr.offset & 0xFFFF
            data = blk.fb_banks.get(bank)
            if data is None:
                data = blk.fb_banks[bank] = np.full_like(blk.cube["fb"], self._fill) \
                    if bank else blk.cube["fb"]
        else:
            data = blk.ub[ptr.sub] if ptr.space == "ub" else blk.cube[ptr.space]
        if start < 0 or start + nbytes > data.size:
            raise OutOfBoundsError(
                f"{who} touches {ptr.space} bytes [{start}, {start + nbytes}) "
                f"beyond its {data.size} bytes on {self.target.name}", op=op, operand=operand)
        if self.access_hook is not None and op is not None:
            log = self.access_log
            if log is not None:
                log.append((ACCESS, data, start, nbytes, access, runs))
            else:
                self.access_hook(data, start, nbytes, access, operand, op, runs)
        return data, start

    def _observe(self, data: np.ndarray, start: int, nbytes: int, access: str,
                 operand: str | None, op: str, runs: Runs | None) -> None:
        """Tell the observer about an access (the hot paths above inline this)."""
        if self.access_log is not None:
            self.access_log.append((ACCESS, data, start, nbytes, access, runs))
        elif self.access_hook is not None:
            self.access_hook(data, start, nbytes, access, operand, op, runs)

    def _overrun(self, alloc: _Allocation, start: int, nbytes: int, access: str,
                 op: str | None, operand: str | None) -> tuple[np.ndarray, int]:
        """An access reaching past the end of ``alloc`` with gm_overrun="warn": reported,
        then given the allocation's backing, whose bytes past the end read as zeros and
        swallow what is written there. Observers see only the part inside."""
        size = alloc.data.size
        backing = alloc.backing
        assert backing is not None
        end = start + nbytes
        if access != "W" and alloc.dirty > max(start, size):
            # what earlier ops wrote past the end is dropped: zero the part this one reads
            backing[max(start, size):min(end, alloc.dirty)] = 0
        if access != "R" and end > alloc.dirty:
            alloc.dirty = end        # a high-water mark of bytes written past the end
        verb = {"R": "reads", "W": "writes", "RW": "reads and writes", "A": "writes"}[access]
        effect = {"R": "bytes there read as zeros", "W": "writes there are dropped",
                  "RW": "bytes there read as zeros and writes there are dropped",
                  "A": "writes there are dropped"}[access]
        # no per-access numbers: the log counts one line per (op location, operand, buffer)
        warn(f"{op or 'region'}: {operand or 'pointer'} {verb} past the end of "
             f"{alloc.describe()}; {effect} (--gm-overrun=warn)")
        inside = min(nbytes, size - start)
        if inside > 0 and self.access_hook is not None and op is not None:
            self._observe(alloc.data, start, inside, access, operand, op, None)
        return backing, start

    def read(self, ptr: Ptr, count: int) -> np.ndarray:
        """A copy of ``count`` elements at ``ptr`` as a numpy array of its carrier dtype."""
        if not isinstance(count, (int, np.integer)) or count < 0:
            raise PtoValueError(f"read: count must be a non-negative integer, got {count!r}")
        nbytes = int(count) * ptr.dtype.size
        data, start = self._region(ptr, nbytes, access="R", op="read")
        return data[start:start + nbytes].view(ptr.dtype.np).copy()

    def write(self, ptr: Ptr, array: np.ndarray | list | tuple | float | int) -> None:
        """Store elements at ``ptr``. Values are converted to the pointer's element type;
        an unsigned-integer array of the element's size is taken as raw bit patterns."""
        arr = _as_carrier(np.asarray(array), ptr.dtype).reshape(-1)
        data, start = self._region(ptr, arr.nbytes, access="W", op="write")
        data[start:start + arr.nbytes] = arr.view(np.uint8)


def _grow(alloc: _Allocation, start: int, nbytes: int, access: str, op: str | None,
          operand: str | None) -> None:
    """Track a `gm_new` allocation's bytes: a read of bytes nothing wrote is refused (the
    parameter was most likely meant to name an existing input file)."""
    end = start + nbytes
    runs = alloc.written
    if access in ("R", "RW"):
        k = bisect.bisect_right(runs, [start, math.inf]) - 1
        if k < 0 or runs[k][1] < end:
            what = alloc.name or "a new GM output"
            raise UninitializedReadError(
                f"{operand or 'pointer'} reads bytes [{start}, {end}) of {what} that nothing "
                f"wrote: it was bound to a file that does not exist, so it is a new output; if "
                f"it is an input, check the file name", op=op, operand=operand)
    alloc.dirty = max(alloc.dirty, end)
    if access == "R":
        return
    i = bisect.bisect_left(runs, [start, end])      # merge [start, end) into the runs
    if i > 0 and runs[i - 1][1] >= start:
        i -= 1
        start = runs[i][0]
    j = i
    while j < len(runs) and runs[j][0] <= end:
        end = max(end, runs[j][1])
        j += 1
    runs[i:j] = [[start, end]]


def check_ctrl(value: object) -> int:
    """A CTRL register value: an integer in [0, 2**64)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) \
            or not 0 <= int(value) < 1 << 64:
        raise PtoError(f"ctrl must be an integer in [0, 2**64) (the 64-bit CTRL register), "
                       f"got {value!r}")
    return int(value)


def _as_carrier(arr: np.ndarray, dt: DType) -> np.ndarray:
    if arr.dtype == dt.np:
        return np.ascontiguousarray(arr)
    if arr.dtype.kind == "u" and arr.dtype.itemsize == dt.size:
        return np.ascontiguousarray(arr).view(dt.np)
    if dt.kind == "packed":
        raise PtoValueError(f"{dt.name} holds raw codes: pass an unsigned integer array of "
                       f"{dt.size}-byte items, got {arr.dtype}")
    with np.errstate(all="ignore"):     # numpy's cast (1e300 -> f16 inf), without its warning
        return np.ascontiguousarray(arr.astype(dt.np))
