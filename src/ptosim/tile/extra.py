"""Semantics of the further vector tile ops (rows in `ptosim.isa.tile_extra`): TADDC / TSUBC,
TAXPY, TPARTARGMAX / TPARTARGMIN.

Each family checks its static rules before a byte moves (element types per target, valid
regions), computes with the lane functions of `ptosim.isa.alu` over the valid region and
writes the destination's valid region only (what pto-isa's a5 / a2a3 code writes: predicated
vector stores, ``include/pto/npu/a5/TAxpy.hpp``, ``TPartArgBinOps.hpp``). docs/semantics.md
"Further vector tile ops" records each decision and its evidence.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..dtypes import DType, dtype
from ..errors import DtypeError, NotImplementedOpError, PtoTypeError, VerifyError
from ..isa import alu, convert
from . import pow_a5
from .tile import Tile
from .vector import _nd, _scalar, check_part_valid, same_valid

if TYPE_CHECKING:
    from .ops import TileOps

Family = Callable[["TileOps", str, dict[str, Any], dict[str, Any]], Any]


# --- shared checks ----------------------------------------------------------------------------
def legal_types(m: TileOps, op: str, default: frozenset[str]) -> list[str]:
    """The element types ``op`` accepts on the machine's target: the row's set narrowed by
    the target's table (`Target.tile_vector_dtypes`), and only types the target has."""
    allowed = default & m.target.tile_vector_dtypes.get(op.lower(), default)
    return sorted(d for d in allowed if m.target.has_dtype(d))


def dtype_in(m: TileOps, op: str, name: str, t: Tile, allowed: Sequence[str]) -> None:
    if t.dtype.name not in allowed:
        raise DtypeError(f"{name} element type must be one of {', '.join(allowed)} on "
                         f"{m.target.name}, got {t.dtype.name}", op=op, operand=name)


def same_type(op: str, v: dict[str, Any], names: Sequence[str]) -> DType:
    """The element type shared by the tiles ``names`` (the first one's)."""
    first = v[names[0]].dtype
    for n in names[1:]:
        if v[n].dtype.name != first.name:
            raise DtypeError(f"{n} is {v[n].dtype.name} but {names[0]} is {first.name}: they "
                             f"must share one element type", op=op, operand=n)
    return first


def valid_of(m: TileOps, t: Tile, operand: str) -> np.ndarray:
    vr, vc = t.valid
    return np.array(_nd(m, t, "R", operand)[:vr, :vc])


def put(m: TileOps, t: Tile, values: np.ndarray, operand: str) -> None:
    r, c = values.shape
    _nd(m, t, "W", operand)[:r, :c] = values.astype(t.dtype.np, copy=False)


def _cpu_sim_only(m: TileOps, op: str, kw: dict[str, Any], where: str) -> None:
    """Refuse an op the target's NPU code lacks (pto-isa implements it in its CPU simulator
    only) unless ``cpu_sim_compat`` asks for the simulator's formula."""
    if op.lower() in m.target.npu_missing_tile_ops and not kw.get("cpu_sim_compat"):
        raise NotImplementedOpError(
            f"{m.target.name} has no NPU implementation (pto-isa implements {op} in its CPU "
            f"simulator only, include/pto/cpu/{where}); pass cpu_sim_compat=True to run the "
            f"CPU simulator's formula", op=op)


# --- TADDC / TSUBC ----------------------------------------------------------------------------
def _ternary(m: TileOps, op: str, v: dict[str, Any], kw: dict[str, Any]) -> None:
    """src0 + src1 + src2 / src0 - src1 + src2, left to right, each step rounded to the
    element type (two vector adds; pto-isa's CPU ElementOpCal OP_ADDC / OP_SUBC)."""
    _cpu_sim_only(m, op, kw, "ElementTileOp.h")
    names = ("src0", "src1", "src2")
    dt = same_type(op, v, ("dst", *names))
    dtype_in(m, op, "dst", v["dst"], legal_types(m, "tadd", alu.OP_DTYPES["tadd"]))
    same_valid(op, v, "dst", names)
    a, b, c = (valid_of(m, v[n], n) for n in names)
    lane = "add3" if op == "TADDC" else "subadd"
    put(m, v["dst"], alu.TERNARY[lane](a, b, c, dt), "dst")


# --- TADDSC / TSUBSC --------------------------------------------------------------------------
# the element types of the manual pages (TADDSC.md / TSUBSC.md, the same for a2a3 and a5)
_SCALAR_CARRY_TYPES = ("f16", "f32", "i16", "i32")


def _scalar_carry(m: TileOps, op: str, v: dict[str, Any], kw: dict[str, Any]) -> None:
    """(src0 + scalar) + src1 / (src0 - scalar) + src1, left to right with each step
    rounded to the element type, integers wrapping (the CPU simulator's OP_ADDCS /
    OP_SUBCS); the scalar converted as TADDS's. A target whose NPU code lacks the op
    refuses it unless ``cpu_sim_compat`` asks for the CPU simulator's formula."""
    _cpu_sim_only(m, op, kw, "ElementTileScalarOp.h")
    names = ("src0", "src1")
    dt = same_type(op, v, ("dst", *names))
    dtype_in(m, op, "dst", v["dst"], [d for d in _SCALAR_CARRY_TYPES if m.target.has_dtype(d)])
    dst = v["dst"]
    for n in names:                 # C++: one TileData type for all three tiles
        t = v[n]
        if (t.rows, t.cols) != (dst.rows, dst.cols):
            raise VerifyError(f"{n}'s shape {t.rows}x{t.cols} differs from dst's "
                              f"{dst.rows}x{dst.cols}: the three tiles share one tile type",
                              op=op, operand=n)
    same_valid(op, v, "dst", names)
    a, b = (valid_of(m, v[n], n) for n in names)
    s = np.broadcast_to(np.asarray(_scalar(op, v["scalar"], dt), dtype=dt.np), a.shape)
    first = alu.BINARY["add" if op == "TADDSC" else "sub"](a, s, dt)
    put(m, dst, alu.BINARY["add"](first, b, dt), "dst")


# --- TFUSEDMULADD / TFUSEDMULADDRELU / TMULADDDST / TSUBRELU ------------------------------------
_MULADD_TYPES = frozenset({"f16", "f32"})


def _muladd(m: TileOps, op: str, v: dict[str, Any], kw: dict[str, Any]) -> None:
    """TFUSEDMULADD: dst = src0 * dst + src1 (vmadd); TFUSEDMULADDRELU: its ReLU (a5 vmadd
    then vrelu, a2a3 vmaddrelu); TMULADDDST: dst = src0 * src1 + dst (a5 vmula, a2a3 vmla).
    One rounding on both targets (alu ``fma``): a5's TPow.hpp uses vmadd as ``fmaf`` and
    vmula / vmadd in error-free residuals; a2a3 has no evidence either way (docs/semantics.md)."""
    names = ("src0", "src1")
    dt = same_type(op, v, ("dst", *names))
    dtype_in(m, op, "dst", v["dst"], legal_types(m, op, _MULADD_TYPES))
    same_valid(op, v, "dst", names)
    a, b, d = valid_of(m, v["src0"], "src0"), valid_of(m, v["src1"], "src1"), \
        valid_of(m, v["dst"], "dst")
    if op == "TMULADDDST":
        out = alu.TERNARY["fma"](a, b, d, dt)
    else:
        out = alu.TERNARY["fmarelu" if op == "TFUSEDMULADDRELU" else "fma"](a, d, b, dt)
    put(m, v["dst"], out, "dst")


def _subrelu(m: TileOps, op: str, v: dict[str, Any], kw: dict[str, Any]) -> None:
    """dst = ReLU(src0 - src1): the difference rounded, then ReLU (a5 vsub + vrelu, a2a3
    vsubrelu)."""
    names = ("src0", "src1")
    dt = same_type(op, v, ("dst", *names))
    dtype_in(m, op, "dst", v["dst"], legal_types(m, op, _MULADD_TYPES))
    same_valid(op, v, "dst", names)
    a, b = (valid_of(m, v[n], n) for n in names)
    put(m, v["dst"], alu.UNARY["relu"](alu.BINARY["sub"](a, b, dt), dt), "dst")


# --- TPAIRREDUCESUM ---------------------------------------------------------------------------
def _pairsum(m: TileOps, op: str, v: dict[str, Any], kw: dict[str, Any]) -> None:
    """dst[i, k] = src[i, 2k] + src[i, 2k + 1] for k < valid cols // 2 (vcpadd; an odd
    last column is dropped, nothing else written). a5 with both tiles fully valid (its
    contiguous path: static valid = shape, or one row each) runs the flat stream instead:
    the pair sums of all valid elements packed from dst's first element."""
    dst, src = v["dst"], v["src"]
    dt = same_type(op, v, ("dst", "src"))
    dtype_in(m, op, "dst", dst, legal_types(m, op, _MULADD_TYPES))
    same_valid(op, v, "dst", ("src",))
    x = valid_of(m, src, "src")
    vc = dst.valid[1]
    flat = m.target.vcpadd_flat_tiles and (
        (dst.valid == (dst.rows, dst.cols) and src.valid == (src.rows, src.cols))
        or dst.rows == src.rows == 1)
    if flat:
        stream = x.reshape(-1)
        n = stream.size // 2
        sums = alu.BINARY["add"](stream[0:2 * n:2], stream[1:2 * n:2], dt)
        whole, rest = divmod(n, dst.cols)
        if whole:
            put(m, dst, sums[:whole * dst.cols].reshape(whole, dst.cols), "dst")
        if rest:
            _nd(m, dst, "W", "dst")[whole, :rest] = sums[whole * dst.cols:]
        return
    half = vc // 2
    if half:
        put(m, dst, alu.BINARY["add"](x[:, 0:2 * half:2], x[:, 1:2 * half:2], dt), "dst")


# --- TADDRELUCONV / TSUBRELUCONV / TADDDEQRELU ---------------------------------------------
_RELUCONV_PAIRS = {("f32", "f16"), ("f16", "i8"), ("i16", "i8")}


def _vcvt_sat(m: TileOps, src: str, dst: str) -> bool:
    """A vcvt written with RS_DISABLE: no saturation unless CTRL takes it over, as
    ptosim's vcvt micro-op decides it."""
    forced = convert.ctrl_sat(src, dst, m.ctrl) if (m.ctrl >> convert.CTRL_SAT_ENABLE) & 1 \
        else None
    return bool(forced)


def _addreluconv(m: TileOps, op: str, v: dict[str, Any], kw: dict[str, Any]) -> None:
    """TADDRELUCONV / TSUBRELUCONV: dst = convert(max(src0 +- src1, 0)), a5's vadd / vsub,
    vmaxs 0 and vcvt (round to nearest even); i16 -> i8 clamps to 127 first (vmins) and
    narrows. a2a3 runs one fused vaddreluconv_* / vsubreluconv_* instruction whose
    arithmetic is not published: not implemented."""
    lane = "add" if op == "TADDRELUCONV" else "sub"
    if not m.target.addreluconv_composed:
        raise NotImplementedOpError(f"a2a3 runs the fused v{lane}reluconv_* instruction, "
                                    f"whose conversion is not published; implemented for a5",
                                    op=op)
    st = same_type(op, v, ("src0", "src1"))
    dst = v["dst"]
    pair = (st.name, dst.dtype.name)
    if pair not in _RELUCONV_PAIRS:
        raise DtypeError(f"src -> dst must be f32 -> f16, f16 -> i8 or i16 -> i8, got "
                         f"{pair[0]} -> {pair[1]}", op=op, operand="dst")
    same_valid(op, v, "dst", ("src0", "src1"))
    a, b = valid_of(m, v["src0"], "src0"), valid_of(m, v["src1"], "src1")
    r = alu.BINARY["max"](alu.BINARY[lane](a, b, st), np.zeros((), st.np), st)
    if st.name == "i16":
        out = np.minimum(r, 127).astype(np.int8)
    else:
        out = convert.convert(r, st, dst.dtype, rnd="R", sat=_vcvt_sat(m, st.name, pair[1]))
    put(m, dst, out, "dst")


_DEQ_DOWN, _DEQ_UP = np.float32(1 / 131072), np.float32(131072)


def _adddeqrelu(m: TileOps, op: str, v: dict[str, Any], kw: dict[str, Any]) -> None:
    """dst = f16(max(f32(src0 + src1) * 2^-17 * deqScale * 2^17, 0)): i32 add (wrapping),
    s32 -> f32 and f32 -> f16 rounded to nearest even, each multiply rounded in f32.
    a2a3 stages it in place: tmp ends as zeros, src0 holds the scaled floats and src1 the
    ReLU'd ones (their valid regions, as f32 bits)."""
    dst, tmp = v["dst"], v["tmp"]
    for name in ("src0", "src1", "tmp"):
        dtype_in(m, op, name, v[name], ["i32"])
    dtype_in(m, op, "dst", dst, ["f16"])
    same_valid(op, v, "dst", ("src0", "src1"))
    i32, f32 = v["src0"].dtype, dtype("f32")
    scale = np.float32(_scalar(op, v["deqScale"], f32))
    a, b = valid_of(m, v["src0"], "src0"), valid_of(m, v["src1"], "src1")
    x = convert.convert(alu.BINARY["add"](a, b, i32), i32, f32, rnd="R")
    for factor in (_DEQ_DOWN, scale, _DEQ_UP):
        x = alu.BINARY["mul"](x, np.full_like(x, factor), f32)
    relu = alu.BINARY["max"](x, np.zeros_like(x), f32)
    put(m, dst, convert.convert(relu, f32, dst.dtype, rnd="R", sat=_vcvt_sat(m, "f32", "f16")),
        "dst")
    if not m.target.adddeqrelu_in_place:
        return
    same_valid(op, v, "dst", ("tmp",))
    put(m, tmp, np.zeros(x.shape, np.int32), "tmp")
    put(m, v["src0"], x.view(np.int32), "src0")
    put(m, v["src1"], relu.view(np.int32), "src1")


# --- TPOW / TPOWS ------------------------------------------------------------------------------
# the widest set (a5 DEFAULT); a2a3 narrows it (Target.tile_vector_dtypes), a5's
# HIGH_PRECISION takes Target.tpow_high_precision_types instead
_POW_TYPES = frozenset({"i8", "ui8", "i16", "ui16", "i32", "ui32", "f16", "f32"})
_M32 = (1 << 32) - 1


def _wrap32(x: np.ndarray) -> np.ndarray:
    """int64 values reduced to C ``int`` (two's complement 32 bits)."""
    return ((x & _M32) ^ (1 << 31)) - (1 << 31)


def _pow_int(base: np.ndarray, exp: np.ndarray) -> np.ndarray:
    """a2a3 ``TPowICore`` on C ints: exp 0 -> 1 (0^0 too), base 0 -> 0, 1 -> 1, -1 -> +-1
    by exp's parity, exp < 0 -> 0, else squaring with every product wrapped to 32 bits."""
    b = _wrap32(base.astype(np.int64))
    e = _wrap32(exp.astype(np.int64))
    out = np.ones(np.broadcast(b, e).shape, np.int64)
    b = np.broadcast_to(b, out.shape).copy()
    e = np.broadcast_to(e, out.shape).copy()
    loop = (e > 0) & (b != 0) & (b != 1) & (b != -1)
    bb, ee, acc = b[loop], e[loop], out[loop]
    while ee.any():
        odd = (ee & 1) == 1
        acc[odd] = _wrap32(acc[odd] * bb[odd])
        ee >>= 1
        bb = _wrap32(bb * bb)
    out[loop] = acc
    out[(e != 0) & (b == 0)] = 0
    minus = (e != 0) & (b == -1)
    out[minus] = np.where(e[minus] & 1, -1, 1)
    out[(e < 0) & (b != 0) & (b != 1) & (b != -1)] = 0
    return out


def _is_integer_f32(x: np.ndarray) -> np.ndarray:
    """a2a3 ``IsInteger``: finite and without a fraction (0 included)."""
    with np.errstate(invalid="ignore"):
        return np.isfinite(x) & (np.floor(x) == x)


_POW_ALGOS = ("DEFAULT", "HIGH_PRECISION")


def _pow_exp_scalar(op: str, x: Any, dt: DType) -> Any:
    """TPOWS's exponent as a value of the element type (C++ ``typename DstTile::DType``:
    integers wrap into it, floats round to it)."""
    s = _scalar(op, x, dt)
    return np.array(s).astype(dt.np)[()] if dt.is_float \
        else np.array(s & ((1 << (8 * dt.size)) - 1), np.uint64).astype(dt.np)[()]


def _pow(m: TileOps, op: str, v: dict[str, Any], kw: dict[str, Any]) -> None:
    """TPOW / TPOWS with pto-isa's ``PowAlgorithm`` as ``algo`` ("DEFAULT" or
    "HIGH_PRECISION"). a2a3 ignores ``algo`` and runs `_pow_a2a3`; a5 runs its vector
    code: integers by wrapping squaring over every exponent bit (alu ``pow``), floats in f32
    lanes (`ptosim.tile.pow_a5`), f16 / bf16 widened and rounded back to nearest even."""
    algo = kw.pop("algo", "DEFAULT")
    if algo not in _POW_ALGOS:
        raise VerifyError(f"algo must be DEFAULT or HIGH_PRECISION, got {algo!r}", op=op,
                          operand="algo")
    dst, base = v["dst"], v["base"]
    names = ("dst", "base") if op == "TPOWS" else ("dst", "base", "exp")
    dt = same_type(op, v, names)
    hp_types = m.target.tpow_high_precision_types
    if algo == "HIGH_PRECISION" and hp_types:
        allowed = sorted(d for d in hp_types if m.target.has_dtype(d))
        if dt.name not in allowed:
            raise DtypeError(f"dst element type must be one of {', '.join(allowed)} with "
                             f"algo=HIGH_PRECISION on {m.target.name}, got {dt.name}", op=op,
                             operand="dst")
    else:
        dtype_in(m, op, "dst", dst, legal_types(m, op, _POW_TYPES))
    same_valid(op, v, "dst", names[1:])
    b = valid_of(m, base, "base")
    if op == "TPOWS":
        e = np.full(b.shape, _pow_exp_scalar(op, v["exp"], dt), dtype=dt.np)
    else:
        e = valid_of(m, v["exp"], "exp")
    if m.target.tpow_ln_exp:
        _pow_a2a3(m, op, v, dt, b, e)
        return
    if not dt.is_float:
        put(m, dst, alu.BINARY["pow"](b, e, dt), "dst")
        return
    f32 = dtype("f32")
    wb, we = (convert.convert(x, dt, f32) for x in (b, e))          # exact widening
    out = pow_a5.pow_f32(wb, we, high_precision=algo == "HIGH_PRECISION")
    if dt.name != "f32":
        out = convert.convert(out, f32, dt, rnd="R", sat=_vcvt_sat(m, "f32", dt.name))
    put(m, dst, out, "dst")


def _pow_a2a3(m: TileOps, op: str, v: dict[str, Any], dt: DType, b: np.ndarray,
              e: np.ndarray) -> None:
    """a2a3: integers by TPowICore per element (as C ints, the result truncated to the
    type); f32 as tmp = exp(ln|base| * exp) and dst = exp(ln(base) * exp) (vabs, vln,
    vmul / vmuls, vexp: ptosim's lane functions), then the scalar unit overwrites exp == 0
    -> 1, base == 0 -> 0 (exp > 0) or +inf, base == -1 with an infinite exp -> 1, and an
    integer exp -> tmp, negated for a negative base and an odd exp."""
    dst, tmp = v["dst"], v["tmp"]
    if not dt.is_float:
        put(m, dst, _pow_int(b, e).astype(dt.np), "dst")   # C's int -> T truncation
        return
    same_type(op, v, ("dst", "tmp"))
    same_valid(op, v, "dst", ("tmp",))
    mul, ln, ex = alu.BINARY["mul"], alu.UNARY["ln"], alu.UNARY["exp"]
    with np.errstate(all="ignore"):
        t = ex(mul(ln(alu.UNARY["abs"](b, dt), dt), e, dt), dt)
        put(m, tmp, t, "tmp")
        out = ex(mul(ln(b, dt), e, dt), dt)
        integer = _is_integer_f32(e)
        # (int)exp: out-of-range floats convert to INT_MIN (even), as x86 and the cvt do
        as_int = np.where(np.abs(e) < 2.0 ** 31, e, -2.0 ** 31).astype(np.int64)
        odd = integer & (as_int % 2 != 0) & (b < 0)
        out = np.where(integer, np.where(odd, -t, t), out)
        out = np.where((b == -1) & np.isinf(e), np.float32(1), out)
        out = np.where(b == 0, np.where(e > 0, np.float32(0), np.float32(np.inf)), out)
        out = np.where(e == 0, np.float32(1), out)
    put(m, dst, out.astype(np.float32), "dst")


# --- TTRI -------------------------------------------------------------------------------------
_TRI_TYPES = frozenset({"i8", "ui8", "i16", "ui16", "i32", "ui32", "i64", "ui64", "f16", "f32",
                        "bf16"})


def _tri(m: TileOps, op: str, v: dict[str, Any], kw: dict[str, Any]) -> None:
    """Lower (``upper_or_lower`` 0): 1 where col <= row + diagonal, else 0; upper (1): 0
    where col < row + diagonal, else 1, over dst's valid region. A5 first fills every
    valid row, then stores the prefix (a lower triangle's ones, an upper one's zeros) of
    row i unclamped: row + diagonal (+ 1) elements, at most the row's whole 256 B repeats,
    so it runs past the valid columns, and from the last valid row past the valid rows
    (64-bit types clamp, to at most 64 columns); a2a3 clamps to the valid columns."""
    dst = v["dst"]
    upper = kw.pop("upper_or_lower", 0)
    if kw:
        raise PtoTypeError(f"unknown keyword(s) {', '.join(sorted(kw))}", op=op)
    if type(upper) is not int or upper not in (0, 1):
        raise VerifyError(f"upper_or_lower must be 0 (lower) or 1 (upper), got {upper!r}",
                          op=op, operand="upper_or_lower")
    d = v["diagonal"]
    if isinstance(d, bool) or not isinstance(d, (int, np.integer)) or not -2**31 <= d < 2**31:
        raise PtoTypeError(f"diagonal must be a 32-bit integer, got {d!r}", op=op,
                           operand="diagonal")
    dtype_in(m, op, "dst", dst, legal_types(m, op, _TRI_TYPES))
    vr, vc = dst.valid
    dt, d = dst.dtype, int(d)
    if dt.size == 8 and vc > 64:                # Int64Tri stores one 64-lane repeat a row
        raise NotImplementedOpError(f"a5 writes only the first 64 of {vc} valid columns of a "
                                    f"64-bit TTRI (one repeat per row); wider 64-bit tiles "
                                    f"are not modelled", op=op)
    rows = np.arange(vr).reshape(-1, 1)
    cols = np.arange(vc)
    tri = cols >= rows + d if upper else cols <= rows + d
    put(m, dst, tri.astype(dt.np), "dst")
    if not m.target.ttri_unclamped or dt.size == 8 or vr == 0:
        return
    span = -(-vc // (256 // dt.size)) * (256 // dt.size)   # the row's whole repeats
    start = 0 if d > 0 else 1 - d if upper else max(-d, 0)
    counts = [min(i + d + (0 if upper else 1), span) for i in range(start, vr)]
    spill = [(i, n) for i, n in zip(range(start, vr), counts, strict=True) if n > vc]
    if not spill:
        return
    end = max(i * dst.cols + n for i, n in spill)            # elements from dst's start
    buf, off = m._region(dst.ptr, end * dt.size, access="W", op=op, operand="dst")
    flat = buf[off:off + end * dt.size].view(dt.np)
    value = dt.np.type(0 if upper else 1)
    for i, n in spill:                                       # rows in order, as the code
        flat[i * dst.cols + vc:i * dst.cols + n] = value


# --- TAXPY --------------------------------------------------------------------------------------
def _axpy(m: TileOps, op: str, v: dict[str, Any], kw: dict[str, Any]) -> None:
    """dst = scalar * src + dst, fused (one rounding: vaxpy); an f16 src with an f32 dst is
    widened exactly first and the scalar, an f16 value, too (a5 AxpyInstrDiff)."""
    dst, src = v["dst"], v["src"]
    legal = legal_types(m, op, alu.OP_DTYPES["taxpy"])
    dtype_in(m, op, "dst", dst, legal)
    dtype_in(m, op, "src", src, legal)
    d, s = dst.dtype.name, src.dtype.name
    if not (d == s or (d == "f32" and s == "f16")):
        raise DtypeError(f"src is {s} but dst is {d}: they must match, or src f16 with dst "
                         f"f32", op=op, operand="src")
    same_valid(op, v, "dst", ("src",))
    alpha = np.asarray(_scalar(op, v["scalar"], src.dtype), dtype=src.dtype.np)
    x = valid_of(m, src, "src").astype(dst.dtype.np)        # f16 -> f32 is exact
    y = valid_of(m, dst, "dst")
    put(m, dst, alu.TERNARY["axpy"](x, y, alpha.astype(dst.dtype.np), dst.dtype), "dst")


# --- TPARTARGMAX / TPARTARGMIN --------------------------------------------------------------
_PART_VALS = ("f16", "f32")
_PART_IDX = {"f16": ("i16", "i32", "ui16", "ui32"), "f32": ("i32", "ui32")}


def _partarg(m: TileOps, op: str, v: dict[str, Any], kw: dict[str, Any]) -> None:
    """Where both sources are valid: the winning (value, index) pair, ties to src0; in the
    rest of dst's valid region the pair of the source that covers it."""
    vt = same_type(op, v, ("dst", "src0", "src1"))
    same_type(op, v, ("dstIdx", "src0Idx", "src1Idx"))
    dtype_in(m, op, "dst", v["dst"], [d for d in _PART_VALS if m.target.has_dtype(d)])
    dtype_in(m, op, "dstIdx", v["dstIdx"], _PART_IDX[vt.name])
    for vname, iname in (("dst", "dstIdx"), ("src0", "src0Idx"), ("src1", "src1Idx")):
        same_valid(op, v, vname, (iname,))
    dst, s0, s1 = v["dst"], v["src0"], v["src1"]
    dv = dst.valid
    check_part_valid(op, dst, s0, s1)
    # a5 (vcmp_gt(src1, src0), vsel src1 : src0) keeps src0 on ties and NaN; a2a3
    # (vcmp_ge(src0, src1), vsel src0 : src1) takes src1 where a NaN is compared
    big = "src0" if s0.valid == dv else "src1"
    out = valid_of(m, v[big], big)
    idx = valid_of(m, v[big + "Idx"], big + "Idx")
    r, c = min(s0.valid[0], s1.valid[0]), min(s0.valid[1], s1.valid[1])
    a = np.array(_nd(m, s0, "R", "src0")[:r, :c])
    b = np.array(_nd(m, s1, "R", "src1")[:r, :c])
    ia = np.array(_nd(m, v["src0Idx"], "R", "src0Idx")[:r, :c])
    ib = np.array(_nd(m, v["src1Idx"], "R", "src1Idx")[:r, :c])
    better = "gt" if op == "TPARTARGMAX" else "lt"
    if m.target.tpartarg_src0_ge:
        keep = alu.compare("ge" if better == "gt" else "le", a, b, vt)
        take1 = ~keep
    else:
        take1 = alu.compare(better, b, a, vt)
    out[:r, :c] = alu.select(take1, b, a)
    idx[:r, :c] = alu.select(take1, ib, ia)
    put(m, dst, out, "dst")
    put(m, v["dstIdx"], idx, "dstIdx")


FAMILIES: dict[str, Family] = {"ternary": _ternary, "scalar_carry": _scalar_carry,
                               "muladd": _muladd, "subrelu": _subrelu, "axpy": _axpy,
                               "tri": _tri, "pairsum": _pairsum,
                               "addreluconv": _addreluconv, "adddeqrelu": _adddeqrelu,
                               "pow": _pow, "partarg": _partarg}
