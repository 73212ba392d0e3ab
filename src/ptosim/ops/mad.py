"""The cube MAD family: mad, mad_acc, mad_bias (pipe M).

C (m x n, accumulator type) = A (m x k, L0A) . B (k x n, L0B) [+ C] [+ bias row].
A and B are read through the target's operand fractal layouts (`cube.l0a_layout`,
`cube.l0b_layout`); C is stored in L0C as NZ with 16 x 16 fractals. Floating inputs are
widened exactly to f32 and multiplied with BLAS, accumulating in f32; 8-bit integers are
multiplied in f64 (exact: |sum| < 2^27) and stored as i32. Only the m x n region of L0C is
written (docs/semantics.md, "MAD").
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import ml_dtypes
import numpy as np

from ..dtypes import DType, dtype, hif8_to_float32
from ..errors import DtypeError, FieldRangeError, NotImplementedOpError, VerifyError
from ..layout import Layout, tile_layout
from ..machine import MachineState, Ptr
from .common import check_aligned, check_ptr, field, require_op, typed_key
from .cube import (
    E8M0,
    MNK_BITS,
    align,
    l0a_layout,
    l0b_layout,
    mx_scale_layout,
    mx_scale_ptr,
    read_matrix,
)

_SIGNLESS = {"si8": "i8", "si16": "i16", "si32": "i32", "si64": "i64"}
_F32_MAX = np.float32(np.finfo(np.float32).max)
_U16 = dtype("ui16")


@lru_cache(maxsize=256)
def acc_layout(m: int, n: int, dt: DType) -> Layout:
    """L0C image of an m x n accumulator: NZ with 16 x 16 fractals (1024 B for 4-byte C)."""
    return tile_layout("NZ", align(m, 16), align(n, 16), dt, fractal=1024)


def acc_read(buf: np.ndarray, off: int, dt: DType, m: int, n: int, rows: int) -> np.ndarray:
    """The m x n accumulator at ``off`` whose N-blocks are ``rows`` rows apart (a copy)."""
    v = acc_layout(rows, n, dt).view(buf, off, dt)            # (rows, nblk, 16)
    r = v[:m].reshape(m, -1)
    return r[:, :n] if r.base is None else r[:, :n].copy()    # reshape copied already?


def acc_write(buf: np.ndarray, off: int, dt: DType, rows: int, mat: np.ndarray) -> None:
    """Store an m x n matrix as NZ 16 x 16 fractals, writing only its m x n elements."""
    m, n = mat.shape
    v = acc_layout(rows, n, dt).view(buf, off, dt)
    full, tail = divmod(n, 16)
    if full:
        v[:m, :full, :] = mat[:, :full * 16].reshape(m, full, 16)
    if tail:
        v[:m, full, :tail] = mat[:, full * 16:]


def _round_tf32(x: np.ndarray, mode: str) -> np.ndarray:
    """Round f32 values to TF32 (10 mantissa bits), ties to even or away from zero."""
    bits = x.view(np.uint32)
    finite = (bits & 0x7F800000) != 0x7F800000
    if mode == "round_even":
        rounded = bits + np.uint32(0x0FFF) + ((bits >> 13) & np.uint32(1))
    else:
        rounded = bits + np.uint32(0x1000)
    rounded &= np.uint32(0xFFFFE000)
    return np.where(finite, rounded, bits).view(np.float32)


def finite_max(dt: DType) -> float:
    """Largest finite value of a floating element type."""
    if dt.name == "hif8":
        return 32768.0
    return float(ml_dtypes.finfo(dt.np).max)


def saturate_inputs(x: np.ndarray, dt: DType) -> np.ndarray:
    """Saturating mode: NaN inputs count as 0 and infinities as the type's largest value."""
    top = finite_max(dt)
    return np.nan_to_num(x, nan=0.0, posinf=top, neginf=-top)


MX_TYPES = ("f8E4M3FN", "f8E5M2")       # MX operand types ptosim computes (fp4: not yet)


def mx_product(a: np.ndarray, b: np.ndarray, sa: np.ndarray, sb: np.ndarray, adt: DType,
               bdt: DType, sat: str) -> np.ndarray:
    """sum_k A[i,k] 2^(sA[i,k/32]-127) B[k,j] 2^(sB[k/32,j]-127) in f64 (one rounding to
    f32 later); ``sa``/``sb`` are e8m0 arrays (0xFF decodes as NaN). In saturating mode a
    non-finite result is recomputed with NaN inputs as 0 and infinities as the largest
    finite value, as ``mad`` does. Shared by ``mad_mx*`` and TMATMUL_MX*."""
    kv = a.shape[1]
    x, y = a.astype(np.float64), b.astype(np.float64)
    xs = np.repeat(sa.astype(np.float64), 32, axis=1)[:, :kv]
    ys = np.repeat(sb.astype(np.float64), 32, axis=0)[:kv]

    def product(p: np.ndarray, q: np.ndarray) -> np.ndarray:
        with np.errstate(over="ignore", invalid="ignore"):
            return np.asarray((p * xs) @ (q * ys))

    prod = product(x, y)
    if sat == "sat" and not np.isfinite(prod).all():
        prod = product(saturate_inputs(x, adt), saturate_inputs(y, bdt))
    return prod


def _to_compute(x: np.ndarray, dt: DType) -> np.ndarray:
    if dt.name == "hif8":
        return hif8_to_float32(x)
    if dt.kind in ("int", "uint"):
        return x.astype(np.float64)
    return x.astype(np.float32, copy=False)


@lru_cache(maxsize=1)
def _f16_to_f32() -> np.ndarray:
    """Every f16 bit pattern's f32 value, by way of f64 as ptosim has always widened f16
    (the two routes differ only in NaN payloads): one gather replaces numpy's f16
    conversion, which is slower than the matmul it feeds."""
    every = np.arange(1 << 16, dtype=np.uint16).view(np.float16)
    with np.errstate(invalid="ignore"):
        return every.astype(np.float64).astype(np.float32)


def _read_compute(buf: np.ndarray, offset: int, lay: Layout, dt: DType) -> np.ndarray:
    """`read_matrix` and `_to_compute` in one pass for float operands (the fractal view
    converts straight into a fresh row-major array)."""
    if dt.name == "f16":            # the bits index the table (a view of them as u16);
        # u16 indices cannot leave its 65536 entries, so "wrap" takes exactly what the
        # default "raise" does, without a bounds check per element
        return np.take(_f16_to_f32(), lay.view(buf, offset, _U16), mode="wrap") \
            .reshape(lay.rows, lay.cols)
    if dt.kind == "float" and dt.name != "hif8":
        return lay.view(buf, offset, dt).astype(np.float32).reshape(lay.rows, lay.cols)
    return _to_compute(read_matrix(buf, offset, lay, dt), dt)


class _MadSetup(NamedTuple):
    """What `MadOps._mad`'s checks establish from its operands."""

    a: Ptr
    b: Ptr
    c: Ptr
    bias: Ptr | None
    mv: int
    nv: int
    kv: int
    gemv: bool                      # m == 1 and not disable_gemv: A is one plain row
    is_float: bool
    a_lay: Layout
    b_lay: Layout
    a_bytes: int                    # bytes of L0A read (the row alone for GEMV)
    c_bytes: int                    # bytes of L0C's accumulator image


class MadOps(MachineState):
    """mad / mad_acc / mad_bias as Machine methods: operands (lhs, rhs, dst[, bias], m, n, k)."""

    def mad(self, lhs: Ptr, rhs: Ptr, dst: Ptr, m: int, n: int, k: int, *,
            unit_flag: str | None = None, disable_gemv: bool = False, sat: str | None = None,
            tf32_mode: str | None = None, n_dir: bool = False) -> None:
        """C = A . B (L0C overwritten)."""
        self._mad("mad", lhs, rhs, dst, None, m, n, k, unit_flag, disable_gemv, sat,
                  tf32_mode, n_dir)

    def mad_acc(self, lhs: Ptr, rhs: Ptr, dst: Ptr, m: int, n: int, k: int, *,
                unit_flag: str | None = None, disable_gemv: bool = False,
                sat: str | None = None, tf32_mode: str | None = None,
                n_dir: bool = False) -> None:
        """C += A . B."""
        self._mad("mad_acc", lhs, rhs, dst, None, m, n, k, unit_flag, disable_gemv, sat,
                  tf32_mode, n_dir)

    def mad_bias(self, lhs: Ptr, rhs: Ptr, dst: Ptr, bias: Ptr, m: int, n: int, k: int, *,
                 unit_flag: str | None = None, disable_gemv: bool = False,
                 sat: str | None = None, tf32_mode: str | None = None,
                 n_dir: bool = False) -> None:
        """C = A . B + bias[j] (bias: n accumulator-typed values in BT)."""
        self._mad("mad_bias", lhs, rhs, dst, bias, m, n, k, unit_flag, disable_gemv, sat,
                  tf32_mode, n_dir)

    def _mad(self, op: str, lhs: object, rhs: object, dst: object, bias: object, m: object,
             n: object, k: object, unit_flag: object, disable_gemv: object, sat: object,
             tf32_mode: object, n_dir: object) -> None:
        # the checks and layouts depend on the operands only (the target is the machine's):
        # done once per distinct call; the regions are checked and the bytes move every time
        if type(lhs) is Ptr and type(rhs) is Ptr and type(dst) is Ptr and \
                (bias is None or type(bias) is Ptr) and type(m) is int and type(n) is int \
                and type(k) is int and type(disable_gemv) is bool and type(n_dir) is bool \
                and (unit_flag is None or type(unit_flag) is str) and \
                (sat is None or type(sat) is str) and \
                (tf32_mode is None or type(tf32_mode) is str):
            # the usual operands: one type per position, so the values alone are a key
            # (cheaper to hash than `typed_key`'s pairs)
            key: tuple | None = (op, lhs, rhs, dst, bias, m, n, k, unit_flag, disable_gemv,
                                 sat, tf32_mode, n_dir)
        else:
            key = typed_key(op, lhs, rhs, dst, bias, m, n, k, unit_flag, disable_gemv, sat,
                            tf32_mode, n_dir)
        setup = self._op_plans.get(key) if key is not None else None
        if setup is None:
            setup = self._mad_setup(op, lhs, rhs, dst, bias, m, n, k, unit_flag, disable_gemv,
                                    sat, tf32_mode, n_dir)
            if key is not None:
                self._op_plans[key] = setup
        a, b, c, bias_ptr, mv, nv, kv, gemv, is_float, a_lay, b_lay, a_bytes, c_bytes = setup
        at, bt_, ct = a.dtype, b.dtype, c.dtype
        a_buf, a_off = self._region(a, a_bytes, access="R", op=op, operand="lhs")
        b_buf, b_off = self._region(b, b_lay.span * bt_.size, access="R", op=op, operand="rhs")
        c_buf, c_off = self._region(c, c_bytes, op=op, operand="dst",
                                    access="RW" if op == "mad_acc" else "W")  # acc: C += ...
        if bias_ptr is not None:
            bias_buf, bias_off = self._region(bias_ptr, nv * ct.size, access="R", op=op,
                                              operand="bias")

        if gemv:   # GEMV: the single A row is read contiguously
            x = _to_compute(a_buf[a_off:a_off + kv * at.size].view(at.np).reshape(1, kv), at)
        else:
            x = _read_compute(a_buf, a_off, a_lay, at)[:mv, :kv]
        y = _read_compute(b_buf, b_off, b_lay, bt_)[:kv, :nv]
        if is_float and sat is None:      # no clause: the CTRL register decides (bit 48)
            sat = "nosat" if self.ctrl >> 48 & 1 else "sat"
        if tf32_mode is not None:
            x, y = _round_tf32(x, str(tf32_mode)), _round_tf32(y, str(tf32_mode))
        with np.errstate(over="ignore", invalid="ignore"):  # overflow is modelled below
            prod = x @ y
            # Every input element reaches some output, so a finite product means finite
            # inputs; only otherwise does saturating mode need its input pass.
            if is_float and sat == "sat" and not np.isfinite(prod).all():
                prod = saturate_inputs(x, at) @ saturate_inputs(y, bt_)
            self._accumulate(op, prod, is_float, sat, c_buf, c_off, ct, mv, nv,
                             bias_buf[bias_off:bias_off + nv * 4].view(ct.np)
                             if bias_ptr is not None else None)

    def _mad_setup(self, op: str, lhs: object, rhs: object, dst: object, bias: object,
                   m: object, n: object, k: object, unit_flag: object, disable_gemv: object,
                   sat: object, tf32_mode: object, n_dir: object) -> _MadSetup:
        """`_mad`'s operand checks, raising as the op does; what they establish."""
        require_op(self, op)
        a = check_ptr(op, "lhs", lhs, "l0a")
        b = check_ptr(op, "rhs", rhs, "l0b")
        c = check_ptr(op, "dst", dst, "l0c")
        mv = field(op, "m", m, MNK_BITS, 1)
        nv = field(op, "n", n, MNK_BITS, 1)
        kv = field(op, "k", k, MNK_BITS, 1)
        triple = tuple(_SIGNLESS.get(p.dtype.name, p.dtype.name) for p in (a, b, c))
        if triple not in self.target.mad_types:
            raise DtypeError(f"type triple ({', '.join(p.dtype.name for p in (a, b, c))}) is "
                             f"not a {op} form on target {self.target.name}", op=op)
        for name, p in (("lhs", a), ("rhs", b), ("dst", c)):
            check_aligned(op, name, p, self.target.l0_align)
        is_float = c.dtype.name == "f32"
        if unit_flag not in (None, "check_only", "check_and_set"):
            raise VerifyError(f"unit_flag must be 'check_only' or 'check_and_set', got "
                              f"{unit_flag!r}", op=op, operand="unit_flag")
        if sat not in (None, "sat", "nosat"):
            raise VerifyError(f"sat must be 'sat' or 'nosat', got {sat!r}", op=op, operand="sat")
        if sat is not None and not is_float:
            raise VerifyError(f"{sat} applies to floating-point accumulation only, got an "
                              f"{c.dtype.name} accumulator", op=op, operand="sat")
        if tf32_mode not in (None, "round_even", "round_away"):
            raise VerifyError(f"tf32_mode must be 'round_even' or 'round_away', got "
                              f"{tf32_mode!r}", op=op, operand="tf32_mode")
        if tf32_mode is not None and triple != ("f32", "f32", "f32"):
            raise VerifyError(f"tf32_mode needs f32 x f32 -> f32 operands, got "
                              f"{'x'.join(triple)}", op=op, operand="tf32_mode")
        for name, flag in (("disable_gemv", disable_gemv), ("n_dir", n_dir)):
            if not isinstance(flag, (bool, np.bool_)):
                raise FieldRangeError(f"{name} must be a boolean, got {flag!r}", op=op,
                                      operand=name)
        bias_ptr = None
        if op == "mad_bias":
            bias_ptr = check_ptr(op, "bias", bias, "bt")
            if bias_ptr.dtype.np != c.dtype.np:
                raise DtypeError(f"bias element type {bias_ptr.dtype.name} must be the "
                                 f"accumulator type {c.dtype.name}", op=op, operand="bias")
            check_aligned(op, "bias", bias_ptr)
        at = a.dtype
        gemv = mv == 1 and not disable_gemv
        a_lay = l0a_layout(self.target.l0a_layout, mv, kv, at)
        return _MadSetup(a, b, c, bias_ptr, mv, nv, kv, gemv, is_float, a_lay,
                         l0b_layout(kv, nv, b.dtype), (kv if gemv else a_lay.span) * at.size,
                         acc_layout(mv, nv, c.dtype).span * c.dtype.size)

    def mad_mx(self, lhs: Ptr, rhs: Ptr, dst: Ptr, m: int, n: int, k: int, *,
               unit_flag: str | None = None, disable_gemv: bool = False,
               sat: str | None = None, tf32_mode: str | None = None,
               n_dir: bool = False) -> None:
        """MX: C = sum_k (A . 2^sA) (B . 2^sB), scales from the ScaleLeft / ScaleRight
        buffers at the lhs / rhs addresses >> 4 (put there by mte_l1_l0a_mx / _l0b_mx)."""
        self._mad_mx("mad_mx", lhs, rhs, dst, None, m, n, k, unit_flag, disable_gemv, sat,
                     tf32_mode, n_dir)

    def mad_mx_acc(self, lhs: Ptr, rhs: Ptr, dst: Ptr, m: int, n: int, k: int, *,
                   unit_flag: str | None = None, disable_gemv: bool = False,
                   sat: str | None = None, tf32_mode: str | None = None,
                   n_dir: bool = False) -> None:
        """MX: C += sum_k (A . 2^sA) (B . 2^sB)."""
        self._mad_mx("mad_mx_acc", lhs, rhs, dst, None, m, n, k, unit_flag, disable_gemv,
                     sat, tf32_mode, n_dir)

    def mad_mx_bias(self, lhs: Ptr, rhs: Ptr, dst: Ptr, bias: Ptr, m: int, n: int, k: int, *,
                    unit_flag: str | None = None, disable_gemv: bool = False,
                    sat: str | None = None, tf32_mode: str | None = None,
                    n_dir: bool = False) -> None:
        """MX: C = sum_k (A . 2^sA) (B . 2^sB) + bias[j] (n f32 values in BT)."""
        self._mad_mx("mad_mx_bias", lhs, rhs, dst, bias, m, n, k, unit_flag, disable_gemv,
                     sat, tf32_mode, n_dir)

    def _mad_mx(self, op: str, lhs: object, rhs: object, dst: object, bias: object,
                m: object, n: object, k: object, unit_flag: object, disable_gemv: object,
                sat: object, tf32_mode: object, n_dir: object) -> None:
        require_op(self, op)
        a = check_ptr(op, "lhs", lhs, "l0a")
        b = check_ptr(op, "rhs", rhs, "l0b")
        c = check_ptr(op, "dst", dst, "l0c")
        mv = field(op, "m", m, MNK_BITS, 1)
        nv = field(op, "n", n, MNK_BITS, 1)
        kv = field(op, "k", k, MNK_BITS, 1)
        types = (a.dtype.name, b.dtype.name)
        if any(t.startswith("f4") for t in types):
            raise NotImplementedOpError(f"{op} with fp4 (x2 packed) operands is not "
                                        f"implemented; fp8 e4m3 / e5m2 are", op=op)
        if any(t not in MX_TYPES for t in types) or c.dtype.name != "f32":
            raise DtypeError(f"MX operands are fp8 (f8E4M3FN / f8E5M2) with an f32 "
                             f"accumulator, got {types[0]} x {types[1]} -> {c.dtype.name}",
                             op=op)
        if kv % 64:
            raise VerifyError(f"k = {kv} must be a multiple of 64: K is consumed 64 at a "
                              f"time (two scale groups)", op=op, operand="k")
        for name, p in (("lhs", a), ("rhs", b), ("dst", c)):
            check_aligned(op, name, p, self.target.l0_align)
        if unit_flag not in (None, "check_only", "check_and_set"):
            raise VerifyError(f"unit_flag must be 'check_only' or 'check_and_set', got "
                              f"{unit_flag!r}", op=op, operand="unit_flag")
        if sat not in (None, "sat", "nosat"):
            raise VerifyError(f"sat must be 'sat' or 'nosat', got {sat!r}", op=op, operand="sat")
        if tf32_mode is not None:
            raise VerifyError(f"tf32_mode applies to f32 x f32 mad only, got {tf32_mode!r}",
                              op=op, operand="tf32_mode")
        for name, flag in (("disable_gemv", disable_gemv), ("n_dir", n_dir)):
            if not isinstance(flag, (bool, np.bool_)):
                raise FieldRangeError(f"{name} must be a boolean, got {flag!r}", op=op,
                                      operand=name)
        bias_ptr = None
        if bias is not None or op == "mad_mx_bias":
            bias_ptr = check_ptr(op, "bias", bias, "bt")
            if bias_ptr.dtype.name != "f32":
                raise DtypeError(f"the bias of an MX matmul is f32, got "
                                 f"{bias_ptr.dtype.name}", op=op, operand="bias")
            check_aligned(op, "bias", bias_ptr)
        at, bt_, ct = a.dtype, b.dtype, c.dtype
        groups = kv // 32
        # GEMV: the A row and its scale row are read as plain rows (TGEMV_MX's one-row
        # ScaleLeft tile: TLOAD writes it as one burst, TMOV copies it whole)
        gemv = mv == 1 and not disable_gemv
        a_lay = Layout(((1, kv),), ((kv, 1),)) if gemv else \
            l0a_layout(self.target.l0a_layout, mv, kv, at)
        sa_lay = Layout(((1, groups),), ((groups, 1),)) if gemv else \
            mx_scale_layout("l0a", mv, kv)
        b_lay, sb_lay = l0b_layout(kv, nv, bt_), mx_scale_layout("l0b", nv, kv)
        a_buf, a_off = self._region(a, a_lay.span * at.size, access="R", op=op, operand="lhs")
        b_buf, b_off = self._region(b, b_lay.span * bt_.size, access="R", op=op, operand="rhs")
        sa_buf, sa_off = self._region(mx_scale_ptr(a), sa_lay.span, access="R", op=op,
                                      operand="lhs scales")
        sb_buf, sb_off = self._region(mx_scale_ptr(b), sb_lay.span, access="R", op=op,
                                      operand="rhs scales")
        c_buf, c_off = self._region(c, acc_layout(mv, nv, ct).span * ct.size, op=op,
                                    operand="dst", access="RW" if op == "mad_mx_acc" else "W")
        bias_row = None
        if bias_ptr is not None:
            bb, bo = self._region(bias_ptr, nv * 4, access="R", op=op, operand="bias")
            bias_row = bb[bo:bo + nv * 4].view(np.float32)
        amat = read_matrix(a_buf, a_off, a_lay, at)[:mv, :kv]
        bmat = read_matrix(b_buf, b_off, b_lay, bt_)[:kv, :nv]
        sa = read_matrix(sa_buf, sa_off, sa_lay, E8M0)[:mv, :groups]
        sb = read_matrix(sb_buf, sb_off, sb_lay, E8M0)[:groups, :nv]
        if sat is None:                  # no clause: the CTRL register decides (bit 48)
            sat = "nosat" if self.ctrl >> 48 & 1 else "sat"
        prod = mx_product(amat, bmat, sa, sb, at, bt_, str(sat))
        kind = {"mad_mx": "mad", "mad_mx_acc": "mad_acc"}.get(op, "mad_bias")
        self._accumulate(kind, prod, True, sat, c_buf, c_off, ct, mv, nv, bias_row)

    @staticmethod
    def _accumulate(op: str, prod: np.ndarray, is_float: bool, sat: object, c_buf: np.ndarray,
                    c_off: int, ct: DType, mv: int, nv: int, bias: np.ndarray | None) -> None:
        if is_float:
            prod = prod.astype(np.float32, copy=False)
            if nv % 16 == 0 and ct.np == np.float32:
                # whole 16-column blocks: the result goes straight into L0C's fractals,
                # walked as (block, row, 16) - their memory order, so numpy's loop runs
                # contiguously (elementwise results do not depend on the order)
                acc = acc_layout(align(mv, 16), nv, ct).view(c_buf, c_off, ct)[:mv] \
                    .transpose(1, 0, 2)
                blocks = prod.reshape(mv, -1, 16).transpose(1, 0, 2)
                if op == "mad_acc":
                    np.add(acc, blocks, out=acc)
                elif bias is not None:
                    np.add(blocks, bias.reshape(-1, 1, 16), out=acc)
                else:
                    acc[...] = blocks
                if sat == "sat" and not np.isfinite(acc).all():    # the reset state: clamp
                    acc[...] = np.nan_to_num(acc, nan=0.0, posinf=float(_F32_MAX),
                                             neginf=-float(_F32_MAX))
                return
            if op == "mad_acc":
                prod = acc_read(c_buf, c_off, ct, mv, nv, align(mv, 16)) + prod
            elif bias is not None:
                prod = prod + bias[None, :]
            if sat == "sat" and not np.isfinite(prod).all():   # the reset state: clamp
                prod = np.nan_to_num(prod, nan=0.0, posinf=float(_F32_MAX), neginf=-float(_F32_MAX))
        else:
            prod = prod.astype(np.int64).astype(np.int32)
            if op == "mad_acc":
                prod = acc_read(c_buf, c_off, ct, mv, nv, align(mv, 16)) + prod
            elif bias is not None:
                prod = prod + bias[None, :]
        acc_write(c_buf, c_off, ct, align(mv, 16), prod.astype(ct.np, copy=False))
