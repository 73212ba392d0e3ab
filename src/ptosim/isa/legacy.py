"""Rows of the register-level ("legacy") DMA and cube-load ops: the forms PTOAS lowers the
``mte_*`` micro-ops to (``include/PTO/IR/VPTOOps.td``, operand order as there). Their text
form is the generic ``operands`` syntax; their semantics are `ptosim.ops.legacy.LegacyOps`
methods named like the op, each running the ``mte_*`` op it comes from."""

from __future__ import annotations

from .spec import Operand, OpSpec

A5 = frozenset({"a5"})


def _ptr(name: str, role: str, *space: str) -> Operand:
    return Operand(name, "ptr", role, space=space, align=None if space == ("gm",) else 32)


def _ints(*names_bits: tuple[str, int]) -> tuple[Operand, ...]:
    return tuple(Operand(n, "int", bits=b) for n, b in names_bits)


def _row(name: str, pipe: str, core: str, operands: tuple[Operand, ...],
         targets: frozenset[str] | None = None,
         attrs: tuple[tuple[str, str], ...] = ()) -> OpSpec:
    return OpSpec(name, "micro", pipe, core, name, targets, syntax="operands",
                  operands=operands, attrs=attrs)


_GAP = _ints(("sid", 4), ("n_burst", 12), ("len_burst", 16), ("src_gap", 16), ("dst_gap", 16))
_LOAD = _ints(("m_start", 16), ("k_start", 16), ("m_step", 8), ("k_step", 8),
              ("src_stride", 16), ("dst_stride", 16))

_TRANSPOSE = (("transpose", "transpose"),)      # {transpose = true}

ROWS: tuple[OpSpec, ...] = (
    _row("set_mov_pad_val", "S", "vector", (Operand("value", "number"),)),
    _row("copy_gm_to_ubuf", "MTE2", "vector", (
        _ptr("gm_src", "R", "gm"), _ptr("ub_dst", "W", "ub"),
        *_ints(("sid", 4), ("n_burst", 16), ("len_burst", 16), ("left_padding", 6),
               ("right_padding", 6)),
        Operand("data_select_bit", "flag", bits=1),
        *_ints(("l2_cache_ctl", 2), ("src_stride", 40), ("dst_stride", 21)))),
    _row("copy_ubuf_to_gm", "MTE3", "vector", (
        _ptr("ub_src", "R", "ub"), _ptr("gm_dst", "W", "gm"),
        *_ints(("sid", 4), ("n_burst", 16), ("len_burst", 16), ("reserved", 4),
               ("dst_stride", 40), ("src_stride", 21)))),
    _row("copy_ubuf_to_ubuf", "V", "vector", (
        _ptr("ub_src", "R", "ub"), _ptr("ub_dst", "W", "ub"), *_GAP)),
    _row("copy_ubuf_to_cbuf", "MTE3", "vector", (
        _ptr("ub_src", "R", "ub"), _ptr("l1_dst", "W", "l1"), *_GAP), A5),
    _row("copy_cbuf_to_ubuf", "MTE1", "cube", (
        _ptr("l1_src", "R", "l1"), _ptr("ub_dst", "W", "ub"), *_GAP), A5),
    _row("copy_gm_to_cbuf", "MTE2", "cube", (
        _ptr("src", "R", "gm"), _ptr("dst", "W", "l1"),
        *_ints(("n_burst", 21), ("len_burst", 21), ("src_stride", 40), ("dst_stride", 21)))),
    _row("copy_cbuf_to_bt", "MTE1", "cube", (
        _ptr("src", "R", "l1"), _ptr("dst", "W", "bt"), Operand("conv_control", "flag", bits=1),
        *_ints(("n_burst", 12), ("len_burst", 16), ("src_gap", 16), ("dst_gap", 16)))),
    _row("copy_cbuf_to_fbuf", "FIX", "cube", (
        _ptr("src", "R", "l1"), _ptr("dst", "W", "fb"),
        *_ints(("n_burst", 12), ("len_burst", 16), ("src_gap", 16), ("dst_gap", 16)))),
    _row("load_cbuf_to_ca_mx", "MTE1", "cube", (
        _ptr("src", "R", "l1"), _ptr("dst", "W", "l0a"), *_ints(("m", 12), ("k", 12))), A5),
    _row("load_cbuf_to_ca", "MTE1", "cube", (
        _ptr("src", "R", "l1"), _ptr("dst", "W", "l0a"), *_LOAD), attrs=_TRANSPOSE),
    _row("load_cbuf_to_cb", "MTE1", "cube", (
        _ptr("src", "R", "l1"), _ptr("dst", "W", "l0b"), *_LOAD), attrs=_TRANSPOSE),
)
