"""Register-level ("legacy") DMA and cube-load ops: the forms the ``mte_*`` micro-ops lower
to in PTOAS (``include/PTO/IR/VPTOOps.td``, ``lib/PTO/Transforms/VPTOExpandWrapperOps.cpp``).

Each op here re-expresses its operands as the ``mte_*`` op it comes from and runs that op's
semantics (so units, field checks, alignment and bounds are the micro-op's), reading the
per-core loop registers the ``set_loop*`` ops wrote. Errors name the legacy op. Units and
decisions: docs/semantics.md, "Register-level ops".

- ``copy_gm_to_ubuf`` = ``mte_gm_ub`` (bytes, start-to-start strides), loops from
  ``set_loop_size_outtoub`` / ``set_loop{1,2}_stride_outtoub``;
- ``copy_ubuf_to_gm`` = ``mte_ub_gm``, loops from the ``*_ubtoout`` registers;
- ``copy_gm_to_cbuf`` = ``mte_gm_l1``, loops from the packed ``*_outtol1`` registers
  (count: LOOP2 << 21 | LOOP1; strides: dst << 40 | src, PTOAS packLoopSize / packLoopPair);
- ``copy_ubuf_to_ubuf`` / ``copy_ubuf_to_cbuf`` / ``copy_cbuf_to_ubuf`` = ``mte_ub_ub`` /
  ``mte_ub_l1`` / ``mte_l1_ub`` (32 B units and gaps); ``copy_cbuf_to_ubuf``'s ``sid`` picks
  the destination vector sub-block;
- ``load_cbuf_to_ca`` / ``load_cbuf_to_cb``: whole 512 B fractals, ``m_step`` x ``k_step`` of
  them, the general form of ``mte_l1_l0a`` / ``mte_l1_l0b``.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np

from ..dtypes import dtype
from ..errors import NotImplementedOpError, VerifyError
from ..machine import MachineState, Ptr
from .common import check_ptr, field, require_op
from .cube import CubeMoveOps
from .dma import DmaOps

_SID_BITS = 4            # sid [3:0] of every MTE config word
_COUNT_MASK = (1 << 21) - 1
_PAD_TYPES = ("i8", "i16", "i32", "f16", "bf16", "f32")    # set_mov_pad_val (PTOAS docs)
_PAD_TYPE_OF = {np.dtype(np.int8): "i8", np.dtype(np.int16): "i16", np.dtype(np.int32): "i32",
                np.dtype(np.float16): "f16", np.dtype(ml_dtypes.bfloat16): "bf16",
                np.dtype(np.float32): "f32"}
_SRC_MASK = (1 << 40) - 1


class LegacyOps(DmaOps, CubeMoveOps, MachineState):
    """The register-level ops as Machine methods, operands in PTOAS's order."""

    def _hw_loops(self, op: str, direction: str) -> list[tuple[int, int, int]]:
        """The hardware loops around the bursts, inner first, as ``loop=`` triples.

        PTOAS lowers an ``mte_*`` op's first loop (the one wrapping the bursts) into the
        LOOP2 registers and the second into LOOP1, and ``set_loop_size(a, b)`` packs a as
        LOOP2's count and b as LOOP1's (VPTOExpandWrapperOps.cpp ExpandDmaLoadPattern,
        VPTOLLVMEmitter.cpp packLoopSize). A register never set counts as (1, 1) / strides
        (0, 0); a count above 1 needs its stride register."""
        sizes = self.regs.get(f"loop_size_{direction}", (1, 1))
        if len(sizes) == 1:     # GM -> L1: one packed value, LOOP2 count [41:21], LOOP1 [20:0]
            sizes = (sizes[0] >> 21, sizes[0] & _COUNT_MASK)
        loops = []
        for count, reg, which in ((sizes[0], f"loop2_stride_{direction}", "first"),
                                  (sizes[1], f"loop1_stride_{direction}", "second")):
            count = field(op, f"set_loop_size_{direction} {which} count", count, 21, 1)
            stride = self.regs.get(reg)
            if stride is not None and len(stride) == 1:   # packed: src [39:0], dst [63:40]
                stride = (stride[0] & _SRC_MASK, stride[0] >> 40)
            if stride is None:
                if count > 1:
                    raise VerifyError(f"set_loop_size_{direction} gives a loop of {count} but "
                                      f"set_{reg} was never issued on this core", op=op)
                stride = (0, 0)
            loops.append((count, stride[0], stride[1]))
        return [lp for lp in loops if lp[0] > 1]      # a loop of one adds nothing

    # --- GM <-> UB (vector core) -------------------------------------------------------
    def copy_gm_to_ubuf(self, gm_src: Ptr, ub_dst: Ptr, sid: int, n_burst: int,
                        len_burst: int, left_padding: int, right_padding: int,
                        data_select_bit: bool | int, l2_cache_ctl: int, src_stride: int,
                        dst_stride: int) -> None:
        """GM -> UB (MTE2) as ``mte_gm_ub(gm_src, ub_dst, l2_cache_ctl, len_burst,
        nburst=(n_burst, src_stride, dst_stride), loop=<loop registers>)``."""
        op = "copy_gm_to_ubuf"
        require_op(self, op)
        field(op, "sid", sid, _SID_BITS)
        select = field(op, "data_select_bit", int(data_select_bit)
                       if isinstance(data_select_bit, (bool, np.bool_)) else data_select_bit, 1)
        pad = None
        if select:
            pad = (self._pad_register(op, ub_dst), left_padding, right_padding)
        else:
            for name, v in (("left_padding", left_padding), ("right_padding", right_padding)):
                if field(op, name, v, 6):
                    raise VerifyError(f"{name} = {v} without data_select_bit: padding needs "
                                      f"the pad value (data_select_bit = 1)", op=op,
                                      operand=name)
        self._gm_ub(op, gm_src, ub_dst, l2_cache_ctl, len_burst,
                    (n_burst, src_stride, dst_stride), self._hw_loops(op, "outtoub"), pad)

    def _pad_register(self, op: str, ub_dst: object) -> np.generic:
        """The pad value set_mov_pad_val left in this core's register, as raw bits of the
        destination's element size (the register holds the value's bit pattern)."""
        reg = self.regs.get("mov_pad_val")
        if reg is None:
            raise VerifyError("data_select_bit = 1 pads with the set_mov_pad_val register, "
                              "which was never set on this core", op=op,
                              operand="data_select_bit")
        bits, size = reg
        d = check_ptr(op, "ub_dst", ub_dst, "ub")
        if size != d.dtype.size:
            raise VerifyError(f"the pad value was set as a {size}-byte scalar but ub_dst holds "
                              f"{d.dtype.size}-byte {d.dtype.name} elements", op=op,
                              operand="data_select_bit")
        return np.dtype(f"u{size}").type(bits)

    def set_mov_pad_val(self, value: float | int | np.generic, *,
                        value_type: str | None = None) -> None:
        """The GM -> UB pad value register (vector core): ``value`` of type ``value_type``
        (i8 i16 i32 f16 bf16 f32; a numpy scalar of such a type carries its own), kept as
        its bit pattern."""
        op = "set_mov_pad_val"
        require_op(self, op)
        if value_type is None and isinstance(value, np.generic):
            value_type = _PAD_TYPE_OF.get(value.dtype)
        if value_type not in _PAD_TYPES:
            raise VerifyError(f"the pad value must be an i8, i16, i32, f16, bf16 or f32 "
                              f"scalar, got {value!r} of type {value_type}", op=op,
                              operand="value")
        dt = dtype(value_type)
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.number,
                                                                         np.generic)):
            raise VerifyError(f"the pad value must be a number, got {value!r}", op=op,
                              operand="value")
        if dt.kind == "int":
            v = field(op, "value", int(value) + (1 << 8 * dt.size - 1), 8 * dt.size)
            arr = np.array(v - (1 << 8 * dt.size - 1), dtype=dt.np)
        else:
            arr = np.array(value).astype(dt.np)
        self.regs["mov_pad_val"] = (int(arr.view(f"u{dt.size}")), dt.size)


    def copy_ubuf_to_gm(self, ub_src: Ptr, gm_dst: Ptr, sid: int, n_burst: int,
                        len_burst: int, reserved: int, dst_stride: int,
                        src_stride: int) -> None:
        """UB -> GM (MTE3) as ``mte_ub_gm(ub_src, gm_dst, len_burst, nburst=(n_burst,
        src_stride, dst_stride), loop=<loop registers>)``; note the operand order: the GM
        stride comes first (PTOAS ExpandDmaStorePattern)."""
        op = "copy_ubuf_to_gm"
        require_op(self, op)
        field(op, "sid", sid, _SID_BITS)
        if field(op, "reserved", reserved, 4):
            raise VerifyError(f"reserved must be 0, got {reserved}", op=op, operand="reserved")
        self._ub_gm(op, ub_src, gm_dst, len_burst, (n_burst, src_stride, dst_stride),
                    self._hw_loops(op, "ubtoout"))

    def copy_ubuf_to_ubuf(self, ub_src: Ptr, ub_dst: Ptr, sid: int, n_burst: int,
                          len_burst: int, src_gap: int, dst_gap: int) -> None:
        """UB -> UB as ``mte_ub_ub`` (32 B units and gaps)."""
        op = "copy_ubuf_to_ubuf"
        require_op(self, op)
        field(op, "sid", sid, _SID_BITS)
        self._gap_copy(op, ("ub_src", "ub_dst"), ("ub", "ub"), ub_src, ub_dst, len_burst,
                       (n_burst, src_gap, dst_gap), 16)

    # --- UB <-> L1, GM -> L1 ----------------------------------------------------------
    def copy_ubuf_to_cbuf(self, ub_src: Ptr, l1_dst: Ptr, sid: int, n_burst: int,
                          len_burst: int, src_gap: int, dst_gap: int) -> None:
        """UB -> L1 (AIV MTE3) as ``mte_ub_l1`` (32 B units and gaps)."""
        op = "copy_ubuf_to_cbuf"
        require_op(self, op)
        field(op, "sid", sid, _SID_BITS)
        self._gap_copy(op, ("ub_src", "l1_dst"), ("ub", "l1"), ub_src, l1_dst, len_burst,
                       (n_burst, src_gap, dst_gap), 12)

    def copy_cbuf_to_ubuf(self, l1_src: Ptr, ub_dst: Ptr, sid: int, n_burst: int,
                          len_burst: int, src_gap: int, dst_gap: int) -> None:
        """L1 -> UB (AIC MTE1) as ``mte_l1_ub``; ``sid`` selects the vector sub-block whose
        UB is written (``mte_l1_ub`` lowers with sid 0: sub-block 0)."""
        op = "copy_cbuf_to_ubuf"
        require_op(self, op)
        sub = field(op, "sid", sid, _SID_BITS)
        if sub > 1:
            raise VerifyError(f"sid selects the vector sub-block (0 or 1), got {sub}", op=op,
                              operand="sid")
        d = check_ptr(op, "ub_dst", ub_dst, "ub")
        d = Ptr(d.space, d.dtype, d.offset, sub, d.block)
        self._gap_copy(op, ("l1_src", "ub_dst"), ("l1", "ub"), l1_src, d, len_burst,
                       (n_burst, src_gap, dst_gap), 12, any_sub=True)

    def copy_gm_to_cbuf(self, src: Ptr, dst: Ptr, n_burst: int, len_burst: int,
                        src_stride: int, dst_stride: int) -> None:
        """GM -> L1 (MTE2) as ``mte_gm_l1(src, dst, len_burst, nburst=(n_burst, src_stride,
        dst_stride), loop=<loop registers>)``: bytes, start-to-start strides; the loops come
        from the packed ``set_loop*_outtol1`` registers."""
        op = "copy_gm_to_cbuf"
        require_op(self, op)
        self._gm_l1(op, src, dst, len_burst, (n_burst, src_stride, dst_stride),
                    self._hw_loops(op, "outtol1"))

    # --- L1 -> BT / FB / MX scales -------------------------------------------------------
    def copy_cbuf_to_bt(self, src: Ptr, dst: Ptr, conv_control: bool | int, n_burst: int,
                        len_burst: int, src_gap: int, dst_gap: int) -> None:
        """L1 -> BT as ``mte_l1_bt``; ``conv_control`` is the f16 -> f32 widening bit the
        lowering sets exactly for f16 sources (ExpandBiasLoadPattern), so it must agree."""
        op = "copy_cbuf_to_bt"
        require_op(self, op)
        conv = field(op, "conv_control", int(conv_control)
                     if isinstance(conv_control, (bool, np.bool_)) else conv_control, 1)
        s = check_ptr(op, "src", src, "l1")
        if conv != (s.dtype.name == "f16"):
            raise VerifyError(f"conv_control = {conv} but the source is {s.dtype.name}: the "
                              f"bit is 1 exactly for f16 sources (widened to f32)", op=op,
                              operand="conv_control")
        self._l1_bt(op, src, dst, len_burst, (n_burst, src_gap, dst_gap))

    def copy_cbuf_to_fbuf(self, src: Ptr, dst: Ptr, n_burst: int, len_burst: int,
                          src_gap: int, dst_gap: int) -> None:
        """L1 -> FB as ``mte_l1_fb`` (raw bytes, 64 B units on a5)."""
        op = "copy_cbuf_to_fbuf"
        require_op(self, op)
        self._l1_fb(op, src, dst, len_burst, (n_burst, src_gap, dst_gap))

    def load_cbuf_to_ca_mx(self, src: Ptr, dst: Ptr, m: int, k: int) -> None:
        """MX scales into ScaleLeft: exactly ``mte_l1_l0a_mx`` (PTOAS passes m, k on)."""
        self._mx_scales("load_cbuf_to_ca_mx", src, dst, "l0a", ("m", m), k)

    # --- L1 -> L0A / L0B --------------------------------------------------------------
    def load_cbuf_to_ca(self, src: Ptr, dst: Ptr, m_start: int, k_start: int, m_step: int,
                        k_step: int, src_stride: int, dst_stride: int, *,
                        transpose: bool = False) -> None:
        """L1 -> L0A in whole fractals: for kb < k_step, mb < m_step, the fractal
        ``(k_start + kb) * src_stride + m_start + mb`` of src goes to ``kb * dst_stride + mb``
        of dst (fractal = 16 rows x 32 B; strides count 16-row fractals per K block)."""
        self._load_fractals("load_cbuf_to_ca", "l0a", src, dst,
                            (m_start, k_start, m_step, k_step, src_stride, dst_stride),
                            transpose)

    def load_cbuf_to_cb(self, src: Ptr, dst: Ptr, m_start: int, k_start: int, m_step: int,
                        k_step: int, src_stride: int, dst_stride: int, *,
                        transpose: bool = False) -> None:
        """L1 -> L0B in whole fractals, as ``load_cbuf_to_ca`` (here the "m" fields count
        16-column blocks of N: L0B is ZN, [K1][Npad][C0])."""
        self._load_fractals("load_cbuf_to_cb", "l0b", src, dst,
                            (m_start, k_start, m_step, k_step, src_stride, dst_stride),
                            transpose)

    def _load_fractals(self, op: str, space: str, src: object, dst: object,
                       fields: tuple[object, ...], transpose: object) -> None:
        require_op(self, op)
        names = ("m_start", "k_start", "m_step", "k_step", "src_stride", "dst_stride")
        bits = (16, 16, 8, 8, 16, 16)       # config0 [15:0] [31:16] [39:32] [47:40]; config1
        ms, ks, mstep, kstep, ss, ds = (field(op, n, v, b, 1 if "step" in n else 0)
                                        for n, v, b in zip(names, fields, bits))
        s, d, _ = self._l1_to_l0(op, src, dst, space, (), transpose)  # type: ignore[arg-type]
        if transpose:
            self._load_transposed(op, space, s, d, (ms, ks, mstep, kstep, ss, ds))
            return
        self._copy_fractals(op, space, s, d, (ms, ks, mstep, kstep, ss, ds))

    def _load_transposed(self, op: str, space: str, s: Ptr, d: Ptr,
                         fields: tuple[int, ...]) -> None:
        """A transposed load is ``mte_l1_l0a/b(..., transpose=True)`` when its fields are
        the ones PTOAS derives from an (m, k) / (k, n) pair (deriveLoadCbufToCaControl):
        m_step = K/16, k_step = M x sizeof / 32, src_stride = K/16, dst_stride = M/16, both
        extents padded to max(16, C0). Other field sets are not modelled."""
        ms, ks, mstep, kstep, ss, ds = fields
        es, t = d.dtype.size, max(16, d.dtype.c0)
        k_al, m_al = mstep * 16, kstep * 32 // es
        if (ms, ks) != (0, 0) or k_al % t or m_al % t or ss != mstep or ds * 16 != m_al:
            raise NotImplementedOpError(
                f"a transposed load is modelled only with the fields the mte_l1_l0"
                f"{space[-1]} lowering produces (starts 0, m_step = K/16, k_step = M x "
                f"{es} / 32, src_stride = m_step, dst_stride = M/16, M and K multiples of "
                f"{t}); got m_start {ms}, k_start {ks}, m_step {mstep}, k_step {kstep}, "
                f"src_stride {ss}, dst_stride {ds}", op=op)
        if space == "l0a":
            self.mte_l1_l0a(s, d, m_al, k_al, transpose=True)
        else:
            self.mte_l1_l0b(s, d, k_al, m_al, transpose=True)
