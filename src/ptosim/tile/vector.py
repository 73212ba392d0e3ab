"""Vector tile ops (TADD, TROWSUM, TCMP ...): one shared Machine method per registry row.

`run` binds a call to the row's operands (``ptosim.isa.tile_vector``), checks every
static rule before a byte moves (Vec role, ND layout, element types, valid shapes), reads
the sources' valid regions, computes with the lane functions of `ptosim.isa.alu`, and
writes what the a5 / a2a3 code writes: the destination's valid region (a reduction's one
column or row, a compare's packed mask bytes), nothing outside it. docs/semantics.md
"Vector tile ops" records each family's decisions and evidence.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import ml_dtypes
import numpy as np

from ..dtypes import DType, is_fp4, pack_nibbles, unpack_nibbles
from ..errors import (
    DtypeError,
    PtoError,
    PtoTypeError,
    PtoValueError,
    SpaceError,
    TargetError,
    VerifyError,
)
from ..isa import alu, convert
from ..isa.spec import OpSpec
from ..isa.tile_vector import VecRule, bind, signature
from . import fastpath
from .conv import ConvTile
from .tile import Tile

if TYPE_CHECKING:
    from .ops import TileOps

VL = 256          # bytes of one vector register (one repeat)


# --- binding ---------------------------------------------------------------------------
def _kind(x: object) -> str:
    if isinstance(x, (Tile, ConvTile)):
        return "tile"
    if isinstance(x, (bool, np.bool_)):
        return "bool"
    if isinstance(x, (int, float, np.integer, np.floating)):
        return "scalar"
    return type(x).__name__


# --- the shared method ------------------------------------------------------------------
_BOUND: dict[tuple[str, tuple[str, ...]], tuple[str, ...] | None] = {}


def run(m: TileOps, spec: OpSpec, args: Sequence[Any], kw: dict[str, Any]) -> None:
    """Check and run a vector tile op. Unobserved (no access hook), a call repeating an
    earlier one on the same tiles runs the plan kept for it (`fastpath`)."""
    key = None
    if m.access_hook is None:               # unobserved: the cached plan of this call
        key, plan = fastpath.lookup(m, spec.name, args, kw)
        if plan is not None:
            if not kw:                      # (a scalar object new to this call shape)
                fastpath.remember(m, spec.name, args, plan)
            plan(args)
            return
    op, names = _bind(m, spec, args, kw)
    rule: VecRule = spec.impl
    if _empty_call(op, rule, names, args):  # nothing to compute: nothing written
        if key is not None:
            fastpath.store(m, key, args, _nothing, kw)
        return
    if key is not None:
        plan = _plan(m, op, rule, names, args, kw)
        fastpath.store(m, key, args, plan, kw)
        plan(args)
        return
    vals: dict[str, Any] = dict(zip(names, args[1:]))
    vals["dst"] = args[0]
    FAMILIES[rule.family](m, op, rule, vals, kw)


# the axis a reduction family reduces over (0: down the rows)
_REDUCED_AXIS = {"rowreduce": 1, "rowarg": 1, "colreduce": 0, "colarg": 0}


def _empty_call(op: str, rule: VecRule, names: Sequence[str], args: Sequence[Any]) -> bool:
    """True when dst and every source tile (tmp aside) have an empty valid region: the
    op writes nothing (PyPTO marks its inactive lane's tiles 0 x 0 and PTOAS accepts
    that; pto-isa's loops run zero times). A reduction over an empty extent into a
    non-empty dst is refused: there is nothing to reduce (PTOAS rejects it too)."""
    if any(isinstance(t, ConvTile) for t in args):
        return False                        # (no valid region)
    tiles = [(n, t) for n, t in zip(("dst", *names), args) if n != "tmp" and isinstance(t, Tile)]
    if rule.family in ("rowarg", "colarg"):     # PTOAS keeps these strict (its #708 note)
        for n, t in tiles[1:]:
            if 0 in t.valid:
                raise VerifyError(f"{n}'s valid region {t.valid[0]}x{t.valid[1]} is empty: an "
                                  f"arg reduction needs at least one element per line",
                                  op=op, operand=n)
    if all(0 in t.valid for _, t in tiles):
        return True
    dst = args[0]
    if 0 in dst.valid:                      # a one-sided empty: PTOAS rejects it, and the
        full = next(n for n, t in tiles if 0 not in t.valid)    # C++ would write outside
        raise VerifyError(f"dst's valid region {dst.valid[0]}x{dst.valid[1]} is empty but "
                          f"{full}'s is not", op=op, operand="dst")
    axis = _REDUCED_AXIS.get(rule.family)
    if axis is not None:
        for n, t in tiles[1:]:
            if t.valid[axis] == 0:
                raise VerifyError(f"{n} has no valid {_AXIS[axis]} to reduce (valid region "
                                  f"{t.valid[0]}x{t.valid[1]})", op=op, operand=n)
    return False


def _nothing(args: Sequence[Any]) -> None:
    return None


def _bind(m: TileOps, spec: OpSpec, args: Sequence[Any], kw: dict[str, Any]
          ) -> tuple[str, tuple[str, ...]]:
    """The static rules of a call (operand kinds, keywords, roles, layouts, element
    types): (op name, the operand names after dst)."""
    op = spec.method or spec.name.upper()
    if not args:
        raise PtoTypeError(f"takes the destination tile first, then {signature(spec)}", op=op)
    dst, ins = args[0], list(args[1:])
    kinds = tuple(_kind(x) for x in ins)
    bkey = (spec.name, kinds)
    if bkey not in _BOUND:                  # one binding per op and operand kinds
        _BOUND[bkey] = bind(spec, kinds)
    names = _BOUND[bkey]
    if names is None:
        got = ", ".join(_kind(x) for x in ins)
        raise PtoTypeError(f"operands after dst must be {signature(spec)}, got ({got})", op=op)
    known = {k for _, k in spec.attrs} | {"cpu_sim_compat"} | \
        {k for k, _ in getattr(spec.impl, "text_defaults", ())} if kw else set()
    for key in kw:
        if key not in known:
            raise PtoTypeError(f"unknown keyword {key!r}; known: {', '.join(sorted(known))}",
                               op=op)
    if kw.get("ptoas") and "tmp" in names and spec.impl.family == "rowexpandop" \
            and m.target.ptoas_rowexpand_no_tmp:
        # .pto only: PTOAS lowers a tmp form to a2a3's 4-operand call, so it refuses it on
        # a5 (even for an empty valid region); pto-isa's a5 overload ignores tmp
        raise TargetError("expects A5 form to omit tmp (PTOAS refuses the tmp operand of "
                          "this op on a5)", op=op, operand="tmp")
    vals: dict[str, Any] = dict(zip(names, ins))
    vals["dst"] = dst
    rule: VecRule = spec.impl
    for name in ("dst", *names):
        if name == "dst" or isinstance(vals[name], (Tile, ConvTile)):
            role = (rule.family, name)
            _check_tile(op, name, vals[name], m, role in _DN_COLUMN, role in _DN_ANY)
    src_names = [n for n in names if isinstance(vals[n], Tile) and n not in ("tmp", "mask")]
    elem = vals[src_names[0]].dtype if src_names else dst.dtype
    _check_dtypes(op, rule, elem, dst, [vals[n] for n in src_names], src_names, m)
    if "mask" in vals and vals["mask"].dtype.kind not in ("int", "uint"):
        raise DtypeError(f"mask must hold an integer type (packed bits), got "
                         f"{vals['mask'].dtype.name}", op=op, operand="mask")
    return op, names


def _plan(m: TileOps, op: str, rule: VecRule, names: tuple[str, ...], args: Sequence[Any],
          kw: dict[str, Any]) -> fastpath.Plan:
    """What an unobserved call with these tiles runs from now on (`fastpath`): a ufunc
    into dst for plain elementwise calls, else the family function with the operand names
    bound (its dynamic checks still run on every call)."""
    from . import vector_plans  # builds on this module
    dt = args[0].dtype
    try:                                    # (a hand-made tile out of bounds: the family
        fast = fastpath.elementwise(m, rule.family, rule.lane, names, args,  # reports it)
                                    lambda s: _scalar(op, s, dt)) \
            if not kw and not _pairs_call(m, op, args) else None
        if fast is None:
            fast = vector_plans.plan(m, op, rule, names, args, kw)
    except PtoError:
        fast = None
    if fast is not None:
        return fast
    family = FAMILIES[rule.family]

    def generic(a: Sequence[Any]) -> None:
        vals: dict[str, Any] = dict(zip(names, a[1:]))
        vals["dst"] = a[0]
        fastpath.quiet(family, m, op, rule, vals, kw)
    return generic


# (family, operand) that may also be a DN tile of one column: the row reductions' results
# and the row broadcasts' one-column sources, as pto-isa's a5 / a2a3 code allows them
# (TRowReduceCheck: "DN layout with exactly one column"; TRowExpand's broadcast source;
# TRowExpand<op>'s src with valid cols 1). Its element r lies at r, as in an ND tile of one
# column, so every matrix view below reads it unchanged.
_DN_COLUMN = frozenset({("rowreduce", "dst"), ("rowarg", "dst"), ("rowexpand", "src"),
                        ("rowexpandop", "src0"), ("rowexpandop", "src1")})
# (family, operand) that may be a DN tile of any width: TEXPANDS fills a column-major
# tile's valid region too (a5 TExpandS's ColMajor branch, a2a3 TExpandS)
_DN_ANY = frozenset({("expands", "dst")})


def _check_tile(op: str, name: str, t: object, m: TileOps, dn_column: bool = False,
                dn_any: bool = False) -> None:
    if not isinstance(t, Tile):
        raise SpaceError(f"{name} must be a Tile, got {type(t).__name__}", op=op, operand=name)
    if t.tile_type != "Vec":
        raise SpaceError(f"{name} must be a Vec tile, got a {t.tile_type} tile", op=op,
                         operand=name)
    if dn_any and t.name == "DN":
        return
    if t.name != "ND" and not (dn_column and t.name == "DN" and t.cols == 1):
        also = " (or a DN tile of one column)" if dn_column else ""
        raise VerifyError(f"{name} must be a row-major ND tile{also}, got {t.name}"
                          f"{' with ' + str(t.cols) + ' columns' if t.name == 'DN' else ''}",
                          op=op, operand=name)


_DTYPES_OK: set[tuple[str, str, str, str, tuple[str, ...]]] = set()


def _check_dtypes(op: str, rule: VecRule, elem: DType, dst: Tile, srcs: list[Tile],
                  names: list[str], m: TileOps) -> None:
    key = (op, m.target.name, elem.name, dst.dtype.name, tuple(t.dtype.name for t in srcs))
    if key in _DTYPES_OK:                   # element types depend on nothing else
        return
    _check_dtypes_once(op, rule, elem, dst, srcs, names, m)
    _DTYPES_OK.add(key)


def _check_dtypes_once(op: str, rule: VecRule, elem: DType, dst: Tile, srcs: list[Tile],
                       names: list[str], m: TileOps) -> None:
    for name, t in zip(names, srcs):
        if t.dtype.name != elem.name:
            raise DtypeError(f"{name} is {t.dtype.name} but {names[0]} is {elem.name}: the "
                             f"sources must share one element type", op=op, operand=name)
    allowed = rule.dtypes & m.target.tile_vector_dtypes.get(op.lower(), rule.dtypes)
    if elem.name not in allowed or not m.target.has_dtype(elem.name):
        legal = sorted(d for d in allowed if m.target.has_dtype(d))
        raise DtypeError(f"element type {elem.name} is not supported on {m.target.name}; "
                         f"legal: {', '.join(legal)}", op=op, operand=names[0] if names else "dst")
    if rule.out is None:
        if dst.dtype.name != elem.name:
            raise DtypeError(f"dst is {dst.dtype.name} but the sources are {elem.name}",
                             op=op, operand="dst")
    elif dst.dtype.name not in rule.out:
        raise DtypeError(f"dst element type must be one of {', '.join(sorted(rule.out))}, got "
                         f"{dst.dtype.name}", op=op, operand="dst")


def same_valid(op: str, vals: dict[str, Any], ref: str, names: Sequence[str]
               ) -> tuple[int, int]:
    """``ref``'s valid region, which each of ``names`` must have too."""
    vr, vc = vals[ref].valid
    for n in names:
        if vals[n].valid != (vr, vc):
            r, c = vals[n].valid
            raise VerifyError(f"{n}'s valid region {r}x{c} differs from {ref}'s {vr}x{vc}",
                              op=op, operand=n)
    return vr, vc


def _same_valid(op: str, vals: dict[str, Any], names: Sequence[str]) -> tuple[int, int]:
    return same_valid(op, vals, "dst", names)


# --- reading and writing ------------------------------------------------------------------
def _nd(m: TileOps, t: Tile, access: str, operand: str) -> np.ndarray:
    """The whole ND tile as a writable (rows, cols) view of its buffer (ND is plain
    row-major, so no layout map is needed)."""
    if m.access_hook is None:               # nothing observes: the tile's cached view
        return fastpath.nd_view(m, t, operand)
    buf, off = m._region(t.ptr, t.nbytes, access=access, op="tile", operand=operand)
    return buf[off:off + t.nbytes].view(t.dtype.np).reshape(t.rows, t.cols)


def _read(m: TileOps, t: Tile, rows: int | None = None, cols: int | None = None) -> np.ndarray:
    vr, vc = t.valid
    r = vr if rows is None else rows
    c = vc if cols is None else cols
    return _nd(m, t, "R", "src")[:r, :c].copy()


def _view(m: TileOps, t: Tile) -> np.ndarray:
    """The valid region as a read-only view, for computations that make a new array
    before anything is written (elementwise lane functions): no copy needed."""
    vr, vc = t.valid
    out = _nd(m, t, "R", "src")[:vr, :vc]
    out.setflags(write=False)
    return out


def _write(m: TileOps, dst: Tile, values: np.ndarray, r0: int = 0, c0: int = 0) -> None:
    r, c = values.shape
    _nd(m, dst, "W", "dst")[r0:r0 + r, c0:c0 + c] = values.astype(dst.dtype.np, copy=False)


def _scalar(op: str, x: Any, dt: DType) -> Any:
    """A scalar operand in the element's terms: integers for integer tiles (a float
    scalar with an integer tile is refused), floats as given (alu rounds once)."""
    if dt.kind in ("int", "uint"):
        if isinstance(x, (float, np.floating)):
            if not float(x).is_integer():
                raise DtypeError(f"scalar {x!r} is not an integer ({dt.name} tile)", op=op,
                                 operand="scalar")
            x = int(x)
        return int(x)
    return float(x)


# --- families -----------------------------------------------------------------------------
Family = Callable[["TileOps", str, VecRule, dict[str, Any], dict[str, Any]], None]


def high_precision(op: str, kw: dict[str, Any]) -> bool:
    """The ``precision`` keyword: pto-isa's DivAlgorithm / RsqrtAlgorithm / ... as
    "high_precision" (PTOAS's word; also "HIGH_PRECISION", "high", True) or "default"
    (also "HIGH_PERFORMANCE", False, None)."""
    p = kw.get("precision")
    if p is None or p is False:
        return False
    if p is True:
        return True
    word = str(p).lower()
    if word in ("high_precision", "high"):
        return True
    if word in ("default", "high_performance"):
        return False
    raise VerifyError(f"precision must be 'default' or 'high_precision', got {p!r}", op=op,
                      operand="precision")


def _hp(m: TileOps, op: str, kw: dict[str, Any], dt: DType,
        types: tuple[str, ...] = ("f16", "f32")) -> bool:
    """Whether the call runs a5's HIGH_PRECISION code: asked for, on a target that has it,
    for the element types the code branches on (f16 / f32; TFMOD / TREM and their scalar
    forms: f32 only); other types take the plain instructions."""
    return high_precision(op, kw) and m.target.div_high_precision and dt.name in types


def _div_hp(a: np.ndarray, b: np.ndarray, dt: DType) -> np.ndarray:
    """a5 DivIEEE754*Impl (TDIVS, TROWEXPANDDIV, TCOLEXPANDDIV, TRSQRT's division)."""
    from . import div_a5  # the high-precision modules load on first use (start-up)
    shape = np.broadcast(a, b).shape
    return div_a5.div_ieee754(np.broadcast_to(a, shape), np.broadcast_to(b, shape), dt)


def _pairs(m: TileOps, op: str, v: dict[str, Any], names: tuple[str, ...],
           kw: dict[str, Any]) -> bool:
    """a2a3's 8-bit TAND / TOR / TNOT with an odd valid width (`b8pairs_a2a3`)."""
    if not m.target.tile_b8_pair_ops or kw.get("cpu_sim_compat"):
        return False
    from . import b8pairs_a2a3
    return b8pairs_a2a3.applies(m, op, v["dst"], [v[n] for n in names])


def _pair_tail(m: TileOps, lane: str, v: dict[str, Any], names: tuple[str, ...]) -> None:
    from . import b8pairs_a2a3
    b8pairs_a2a3.pair_tail(m, lane, v["dst"], [v[n] for n in names])


def _pairs_call(m: TileOps, op: str, args: Sequence[Any]) -> bool:
    """Whether a plan must keep the family for `_pairs` (checked by the family itself)."""
    dst = args[0]
    return bool(m.target.tile_b8_pair_ops) and isinstance(dst, Tile) and dst.dtype.size == 1 \
        and op.lower() in m.target.tile_b8_pair_ops and dst.valid[1] % 2 == 1


def _binary(m: TileOps, op: str, rule: VecRule, v: dict[str, Any], kw: dict[str, Any]) -> None:
    _same_valid(op, v, ("src0", "src1"))
    pairs = _pairs(m, op, v, ("src0", "src1"), kw)
    dt = v["dst"].dtype
    a, b = _view(m, v["src0"]), _view(m, v["src1"])
    if rule.lane == "div" and _hp(m, op, kw, dt):     # a5 TDiv.hpp DivOp
        from . import div_a5
        out = div_a5.div_compensated_f32(a, b) if dt.name == "f32" else _div_hp(a, b, dt)
    elif rule.lane in ("rem", "fmod"):
        _rem_fmod(m, op, rule, v, kw, a, b, ("src0", "src1"))
        return
    else:
        high_precision(op, kw)
        out = alu.BINARY[rule.lane](a, b, dt)
    _write(m, v["dst"], out)
    if pairs:
        _pair_tail(m, rule.lane, v, ("src0", "src1"))


def _rem_fmod(m: TileOps, op: str, rule: VecRule, v: dict[str, Any], kw: dict[str, Any],
              a: np.ndarray, b: np.ndarray, srcs: tuple[str, ...]) -> None:
    """TREM / TREMS / TFMOD / TFMODS: the CPU simulator's formula (``cpu_sim_compat``),
    a5's HIGH_PRECISION code, or the target's DEFAULT code (`rem_fmod`), which on a2a3
    (i32 TREM(S)) also rewrites the sources in place; dst is written last."""
    from . import rem_fmod
    dt = v["dst"].dtype
    rem = rule.lane == "rem"
    scalar = len(srcs) == 1
    b = np.broadcast_to(b, a.shape)
    if kw.get("cpu_sim_compat"):
        high_precision(op, kw)
        res = rem_fmod.cpu_sim(a, b, dt, rem=rem, op=op)
    elif _hp(m, op, kw, dt, ("f32",)):                # a5 TFmodRemHp
        from . import fmod_a5
        res = rem_fmod.RemResult(fmod_a5.fmod_rem_hp(a, b, rem))
    else:
        high_precision(op, kw)
        code = rem_fmod.a2a3 if m.target.rem_fmod_a2a3 else rem_fmod.a5
        res = code(a, b, dt, rem=rem, scalar=scalar)
    for name, values in zip(srcs, res.sources or ()):
        _write(m, v[name], values)
    _write(m, v["dst"], res.out)


def _scalar_op(m: TileOps, op: str, rule: VecRule, v: dict[str, Any],
               kw: dict[str, Any]) -> None:
    _same_valid(op, v, ("src",))
    dt = v["dst"].dtype
    s = v["scalar"]
    x = _read(m, v["src"])
    if rule.lane == "lrelu":                 # the slope stays f32 (f16 tiles too)
        out = alu.SCALAR["lrelu"](x, float(s), dt)
    elif rule.lane in ("shl", "shr"):        # the count is a scalar of its own (i16)
        out = alu.SCALAR[rule.lane](x, int(s), dt)
    elif rule.lane in ("rem", "fmod"):               # the scalar in the element type
        sv = _scalar(op, s, dt)
        one = alu._arr(sv, dt) if dt.kind in ("int", "uint") else \
            np.asarray(sv, np.float64).astype(dt.np)
        _rem_fmod(m, op, rule, v, kw, x, np.asarray(one, dt.np), ("src",))
        return
    else:
        high_precision(op, kw)
        out = alu.BINARY[rule.lane](x, _scalar(op, s, dt), dt)
    _write(m, v["dst"], out)


def _divs(m: TileOps, op: str, rule: VecRule, v: dict[str, Any], kw: dict[str, Any]) -> None:
    """TDIVS: src / s, or s / src when the scalar comes first."""
    _same_valid(op, v, ("src",))
    dt = v["dst"].dtype
    x, s = _read(m, v["src"]), _scalar(op, v["scalar"], dt)
    first = next(iter(k for k in v if k in ("src", "scalar")))
    if _hp(m, op, kw, dt):                           # a5 TDivS.hpp: DivIEEE754*Impl
        sv = np.asarray(s, dt.np)
        out = _div_hp(sv, x, dt) if first == "scalar" else _div_hp(x, sv, dt)
    else:
        out = alu.SCALAR["rdiv"](x, s, dt) if first == "scalar" else alu.BINARY["div"](x, s, dt)
    _write(m, v["dst"], out)


def _expands(m: TileOps, op: str, rule: VecRule, v: dict[str, Any], kw: dict[str, Any]) -> None:
    dst = v["dst"]
    vr, vc = dst.valid
    dt = dst.dtype
    one = alu.BINARY["add"](np.zeros(1, dt.np), _scalar(op, v["scalar"], dt), dt) \
        if dt.kind in ("int", "uint") else np.asarray([v["scalar"]], np.float64).astype(dt.np)
    if dst.name == "DN" and dt.size == 8:   # a5: "TEXPANDS B64 currently requires row-major"
        raise VerifyError("a 64-bit TEXPANDS needs a row-major ND tile", op=op, operand="dst")
    if m.target.texpands_flat_fill and not kw.get("cpu_sim_compat"):
        # a2a3: the runs follow the static valid shape, not the valid region
        from . import expands_a2a3
        if not expands_a2a3.is_valid_region(dst, expands_a2a3.texpands_runs(dst)):
            expands_a2a3.fill(m, dst, one[0])
            return
    if dst.name == "DN":                    # column-major: the valid region through its map
        m._matrix(dst, "W")[:vr, :vc] = one[0]
        return
    _write(m, dst, np.full((vr, vc), one[0], dt.np))


def _ci(m: TileOps, op: str, rule: VecRule, v: dict[str, Any], kw: dict[str, Any]) -> None:
    """TCI: dst[0, j] = start + j (start - j when descending) for the valid columns,
    wrapping to the element type; one-row tiles only (a5 / CPU static_assert Rows == 1)."""
    dst = v["dst"]
    if dst.rows != 1:
        raise VerifyError(f"TCI fills a one-row tile, got {dst.rows} rows", op=op,
                          operand="dst")
    start = _scalar(op, v["scalar"], dst.dtype)
    j = np.arange(dst.valid[1], dtype=np.int64)
    ramp = start - j if kw.get("descending", False) else start + j
    bits = 8 * dst.dtype.size
    wrapped = np.mod(ramp, 1 << bits).astype(f"u{dst.dtype.size}").view(dst.dtype.np)
    _write(m, dst, wrapped.reshape(1, -1))


def _cvt(m: TileOps, op: str, rule: VecRule, v: dict[str, Any], kw: dict[str, Any]) -> None:
    """TCVT: dst's valid region = src's converted by the tested engine (`convert.tcvt`):
    the tile RoundMode (default CAST_RINT), the saturation mode or the pair's default."""
    src, dst = v["src"], v["dst"]
    fp4 = is_fp4(src.dtype) or is_fp4(dst.dtype)
    if not fp4:
        _same_valid(op, v, ("src",))
    pair = (convert._canon(src.dtype), convert._canon(dst.dtype))
    if pair not in m.target.tcvt_pairs:
        legal = sorted(d for s, d in m.target.tcvt_pairs if s == pair[0])
        raise DtypeError(f"{src.dtype.name} -> {dst.dtype.name} is not a TCVT pair on "
                         f"{m.target.name}; {src.dtype.name} converts to "
                         f"{', '.join(legal) or 'nothing'}", op=op, operand="dst")
    mode = str(kw.get("round_mode", "CAST_RINT"))
    if mode.upper().removeprefix("CAST_") not in convert.TILE_ROUND_MODES:
        raise PtoValueError(f"round_mode {mode!r} is not one of "
                            f"{', '.join(convert.TILE_ROUND_MODES)}", op=op,
                            operand="round_mode")
    sat = kw.get("sat_mode")
    if isinstance(sat, bool):
        sat = "ON" if sat else "OFF"
    if sat is not None and str(sat).upper() not in ("ON", "OFF"):
        raise PtoValueError(f"sat_mode {sat!r} is not ON or OFF", op=op, operand="sat_mode")
    if fp4:
        _cvt_fp4(m, op, src, dst, mode)
        return
    out = convert.tcvt(_read(m, src), src.dtype, dst.dtype, round_mode=mode,
                       sat_mode=None if sat is None else str(sat).upper())
    _write(m, dst, out)


def fp4_row_extent(n: int) -> int:
    """bf16 columns a5's FP4 -> BF16 TCVT writes in a row of ``n`` valid columns.

    The a5 loop (TCvt.hpp castFp4toBf16) stores two 128-lane halves per 256 columns under
    two `plt_b16` POST_UPDATE predicates, but starts the second one at n - 128 and lets
    each lose 128 per store; from the second pass on they run ahead of the data. So rows
    over 256 columns are written up to the next multiple of 256, or n + 128 for
    256 < n < 384."""
    cur, nxt, end = n, max(n - 128, 0), 0
    for idx in range(-(-n // 256)):
        for start, left in ((256 * idx, cur), (256 * idx + 128, nxt)):
            if min(left, 128):
                end = max(end, start + min(left, 128))
        cur, nxt = max(cur - 128, 0), max(nxt - 128, 0)
    return end


def _cvt_fp4(m: TileOps, op: str, src: Tile, dst: Tile, mode: str) -> None:
    """TCVT bf16 <-> packed FP4 as a5 runs it. The bf16 tile's valid columns count the
    FP4 elements n; the packed tile's valid columns (bytes) must be ceil(n / 2).

    bf16 -> FP4 (castBf16toFp4): the valid rows of dst are zeroed whole (cols bytes), then
    each row gets n // 2 complete bytes (element 2i low nibble, 2i+1 high); for an odd n
    the byte holding the last element stays 0. FP4 -> bf16 (castFp4toBf16): exact; row r
    of dst gets `fp4_row_extent(n)` columns decoded from the nibbles at the same positions
    of src row r, in row order, so a row that runs past the tile's row reaches into the
    next row (rewritten when that row's turn comes)."""
    to_fp4 = is_fp4(dst.dtype)
    wide, narrow = (src, dst) if to_fp4 else (dst, src)
    vr, n = wide.valid
    want = (vr, -(-n // 2))
    if narrow.valid != want:
        wname, nname = ("src", "dst") if to_fp4 else ("dst", "src")
        raise VerifyError(f"{nname}'s valid region {narrow.valid[0]}x{narrow.valid[1]} "
                          f"(packed pairs) must be {want[0]}x{want[1]} for {wname}'s "
                          f"{vr}x{n} {wide.dtype.name} elements", op=op, operand=nname)
    if to_fp4:
        rnd = convert.tile_rnd(mode, src.dtype, dst.dtype)
        codes = convert.fp4_encode(_read(m, src), src.dtype, dst.dtype, rnd=rnd)
        rows = np.zeros((vr, dst.cols), np.uint8)
        rows[:, :n // 2] = pack_nibbles(codes[:, :n - n % 2])
        _nd(m, dst, "W", "dst")[:vr, :] = rows
        return
    w = fp4_row_extent(n)
    last_src = (vr - 1) * 2 * src.cols + w
    if last_src > 2 * src.rows * src.cols:
        raise VerifyError(f"a {n}-column row makes the a5 FP4 -> BF16 loop decode {w} "
                          f"nibbles per row: row {vr - 1} would read past src's "
                          f"{src.rows}x{src.cols} bytes", op=op, operand="src")
    if (vr - 1) * dst.cols + w > dst.rows * dst.cols:
        raise VerifyError(f"a {n}-column row makes the a5 FP4 -> BF16 loop store {w} "
                          f"columns per row: row {vr - 1} would write past dst's "
                          f"{dst.rows}x{dst.cols} tile", op=op, operand="dst")
    nib = unpack_nibbles(_nd(m, src, "R", "src").reshape(-1))
    out = _nd(m, dst, "W", "dst").reshape(-1)
    if w <= dst.cols:                        # rows do not overlap: one store
        starts = np.arange(vr)
        vals = nib[(2 * src.cols * starts)[:, None] + np.arange(w)]
        out.reshape(dst.rows, dst.cols)[:vr, :w] = convert.fp4_decode(vals, src.dtype,
                                                                      dst.dtype)
        return
    for r in range(vr):                      # later rows overwrite the earlier overrun
        a = 2 * src.cols * r
        out[r * dst.cols:r * dst.cols + w] = convert.fp4_decode(nib[a:a + w], src.dtype,
                                                                dst.dtype)


def _unary(m: TileOps, op: str, rule: VecRule, v: dict[str, Any], kw: dict[str, Any]) -> None:
    _same_valid(op, v, ("src",))
    pairs = _pairs(m, op, v, ("src",), kw)
    dt = v["dst"].dtype
    x = _view(m, v["src"])
    hp = _hp(m, op, kw, dt) and rule.lane in _UNARY_HP_LANES
    out = _unary_hp(rule.lane)(x, dt) if hp else alu.UNARY[rule.lane](x, dt)
    _write(m, v["dst"], out)
    if pairs:
        _pair_tail(m, rule.lane, v, ("src",))


def _recip_hp(x: np.ndarray, dt: DType) -> np.ndarray:
    """TRECIP is TDIVS(dst, 1, src) (pto-isa pto_instr.hpp): a5 DivIEEE754*Impl of 1 / x."""
    return _div_hp(np.ones((), dt.np), x, dt)


# a5's HIGH_PRECISION unary code (TUnaryOp.hpp, custom/TSqrtHp.hpp, TExp_Custom.hpp,
# TLog_Custom.hpp, TRsqrt.hpp, TDivS.hpp) per lane function
_UNARY_HP_LANES = frozenset({"sqrt", "rsqrt", "exp", "ln", "rec"})


def _unary_hp(lane: str) -> Callable[[np.ndarray, DType], np.ndarray]:
    from . import div_a5, explog_a5
    return {"sqrt": div_a5.sqrt_hp, "rsqrt": div_a5.rsqrt_hp, "exp": explog_a5.exp_hp,
            "ln": explog_a5.log_hp, "rec": _recip_hp}[lane]


def _chunk_sum(x: np.ndarray, dt: DType) -> np.ndarray:
    """Row sums in the a5 TRowReduce order: per 256 B chunk one vcadd (its internal tree
    is unpublished: numpy's pairwise f32 sum here), accumulated chunk by chunk in the
    element type (integers wrap). Quiet: inf - inf in a sum is NaN, as in `alu`."""
    return fastpath.quiet(_chunk_sum_quiet, x, dt)


def _chunk_sum_quiet(x: np.ndarray, dt: DType) -> np.ndarray:
    rows, cols = x.shape
    step = VL // dt.size
    if dt.kind in ("int", "uint"):            # modular: the order cannot matter
        total = x.astype(np.uint64).sum(axis=1, dtype=np.uint64)
        return total.astype(f"u{dt.size}").view(dt.np)
    acc = np.zeros(rows, dt.np)
    add = alu.native("add", dt)             # the exact ufunc, in a quiet run (f32)
    # whole chunks of a contiguous region: every chunk's sum in one call (the same
    # contiguous pairwise sum per chunk, bit for bit)
    parts = np.add.reduce(x.reshape(rows, -1, step).astype(np.float32, copy=False), axis=2,
                          dtype=np.float32) if x.flags.c_contiguous and cols % step == 0 \
        else None
    for i, c in enumerate(range(0, cols, step)):
        part = parts[:, i] if parts is not None else \
            x[:, c:c + step].astype(np.float32, copy=False).sum(axis=1, dtype=np.float32)
        acc = add(acc, part) if add is not None else \
            alu.BINARY["add"](acc, part.astype(dt.np), dt)
    return acc


_EXACT = {"max": np.maximum, "min": np.minimum}    # exact in any order (NaN propagates)


def _reduce_rows(x: np.ndarray, lane: str, dt: DType) -> np.ndarray:
    """Reduce each row of ``x`` (rows, cols) to one element of ``dt``."""
    if lane == "sum":
        return _chunk_sum(x, dt)
    if lane in _EXACT:
        return _EXACT[lane].reduce(x, axis=1)
    acc = x[:, 0].copy()
    fn = alu.BINARY["mul" if lane == "prod" else lane]
    for c in range(1, x.shape[1]):             # left to right (max / min: exact anyway)
        acc = fn(acc, np.ascontiguousarray(x[:, c]), dt)
    return acc


_AXIS = ("rows", "cols")


def _same_extent(op: str, a_name: str, a: Any, b_name: str, b: Any, axis: int) -> None:
    """``a``'s valid rows (axis 0) or cols (axis 1) equal ``b``'s."""
    if a.valid[axis] != b.valid[axis]:
        raise VerifyError(f"{a_name}'s valid {_AXIS[axis]} {a.valid[axis]} must equal "
                          f"{b_name}'s {b.valid[axis]}", op=op, operand=a_name)


def _rowreduce(m: TileOps, op: str, rule: VecRule, v: dict[str, Any],
               kw: dict[str, Any]) -> None:
    src, dst = v["src"], v["dst"]
    vr, vc = src.valid
    _same_extent(op, "dst", dst, "src", src, 0)
    out = _reduce_rows(_view(m, src), rule.lane, dst.dtype)
    _write(m, dst, out.reshape(vr, 1))


def _colreduce(m: TileOps, op: str, rule: VecRule, v: dict[str, Any],
               kw: dict[str, Any]) -> None:
    """Columns reduce down the rows with elementwise vector ops, top to bottom (a5
    TColReduceOps); ``is_binary`` (TCOLSUM with a tmp tile) adds rows pairwise instead,
    as a5 TColSum_Binary does."""
    src, dst = v["src"], v["dst"]
    vr, vc = src.valid
    _same_extent(op, "dst", dst, "src", src, 1)
    x = _view(m, src)                   # read only: every branch makes new arrays
    dt = dst.dtype
    fn = alu.BINARY["mul" if rule.lane == "prod" else "add" if rule.lane == "sum"
                    else rule.lane]
    if kw.get("is_binary") and rule.lane == "sum":
        if "tmp" not in v:
            raise VerifyError("is_binary needs the tmp tile", op=op, operand="tmp")
        acc = _pairwise_rows(x, dt)
    elif rule.lane in _EXACT:
        acc = _EXACT[rule.lane].reduce(x, axis=0)
    elif dt.kind in ("int", "uint") or dt.name == "f32":
        # numpy reduces axis 0 row by row, rounding (or wrapping) each step: top to bottom
        with np.errstate(all="ignore"):
            acc = (np.add if rule.lane == "sum" else np.multiply).reduce(x, axis=0,
                                                                          dtype=dt.np)
    else:
        acc = x[0].copy()
        for r in range(1, vr):
            acc = fn(acc, x[r], dt)
    _write(m, dst, acc.reshape(1, vc))


def _pairwise_rows(x: np.ndarray, dt: DType) -> np.ndarray:
    """a5 TColSum_Binary: add adjacent row pairs, the odd last row onto the last pair,
    then halve again the same way until one row is left."""
    add = alu.BINARY["add"]
    rows = x.shape[0]
    n = rows // 2
    if n == 0:
        return x[0].copy()
    tmp = [add(x[2 * j], x[2 * j + 1], dt) for j in range(n)]
    if rows % 2:
        tmp[n - 1] = add(x[rows - 1], tmp[n - 1], dt)
    while len(tmp) > 1:
        odd = len(tmp) % 2
        half = len(tmp) // 2
        nxt = [add(tmp[2 * j], tmp[2 * j + 1], dt) for j in range(half)]
        if odd:
            nxt[half - 1] = add(tmp[2 * half], nxt[half - 1], dt)
        tmp = nxt
    return tmp[0]


def _argext(x: np.ndarray, lane: str, axis: int) -> np.ndarray:
    """Index of the first maximum / minimum along ``axis`` (vcmax / vcmin keep the first
    of equal values; a NaN counts as the extremum, numpy's rule)."""
    # the methods: np.argmax's dispatch wrapper costs more than the search on a tile
    return x.argmax(axis=axis) if lane == "max" else x.argmin(axis=axis)


def _argreduce(keep: int) -> Callable[..., None]:
    """TROWARGMAX / ... (``keep`` = 0: one index per row) and TCOLARGMAX / ... (1: per
    column): the first extremum along the other axis."""
    def run(m: TileOps, op: str, rule: VecRule, v: dict[str, Any], kw: dict[str, Any]) -> None:
        src, dst = v["src"], v["dst"]
        _same_extent(op, "dst", dst, "src", src, keep)
        # f32 indexes as itself (widening is exact); f16 / bf16 through f64
        x = _view(m, src)
        if src.dtype.is_float and src.dtype.name != "f32":
            x = x.astype(np.float64)
        out = _argext(x, rule.lane, 1 - keep)
        _write(m, dst, out.reshape((-1, 1) if keep == 0 else (1, -1)))
    return run


def _expand(keep: int) -> Callable[..., None]:
    """TROWEXPAND (``keep`` = 0: src's column 0 across each row) and TCOLEXPAND (1: src's
    row 0 down each column)."""
    def run(m: TileOps, op: str, rule: VecRule, v: dict[str, Any], kw: dict[str, Any]) -> None:
        src, dst = v["src"], v["dst"]
        _same_extent(op, "src", src, "dst", dst, keep)
        pairs = keep == 0 and _pairs(m, op, v, (), kw)    # a2a3 b8: dst's rows in pairs
        line = _read(m, src, cols=1) if keep == 0 else _read(m, src, rows=1)
        _write(m, dst, np.repeat(line, dst.valid[1 - keep], axis=1 - keep))
        if pairs:                           # the pair's second byte holds the value too
            from . import b8pairs_a2a3
            vr, vc = dst.valid
            b8pairs_a2a3.column(m, dst, vc, vr, "W", "dst")[...] = line[:, 0]
    return run


def _lane2(lane: str, a: np.ndarray, b: np.ndarray, dt: DType, hp: bool = False
           ) -> np.ndarray:
    if lane == "div" and hp:                         # a5 Row/ColExpandDivOp HIGH_PRECISION
        return _div_hp(a, b, dt)
    if lane == "expdif":                    # f32 -> f16 overflows to inf, quietly
        return fastpath.quiet(lambda: alu.expdif(a, b, dt).astype(dt.np))
    return alu.BINARY[lane](a, b, dt)


def _expand_operands(op: str, v: dict[str, Any], axis: int) -> tuple[str, str]:
    """(full, broadcast) operand names: the one whose valid region is dst's is full."""
    dv = v["dst"].valid
    if v["src0"].valid == dv:
        return "src0", "src1"
    if v["src1"].valid == dv:
        return "src1", "src0"
    raise VerifyError(f"src0 ({v['src0'].valid[0]}x{v['src0'].valid[1]}) or src1 "
                      f"({v['src1'].valid[0]}x{v['src1'].valid[1]}) must have dst's valid "
                      f"region {dv[0]}x{dv[1]}", op=op, operand="src0")


def _rowexpandop(m: TileOps, op: str, rule: VecRule, v: dict[str, Any],
                 kw: dict[str, Any]) -> None:
    """dst = src0 op b(r, c) where b is the broadcast operand (src1, or src0 when src1 has
    dst's valid region; the operand order is kept). Without ``src1_col``: as a5 / the C++
    simulator, b(r, c) = bcast[r, c mod 32/sizeof] (a5 loads its first 32 B block with
    BRC_BLK, replicated across the register) when its valid cols are 32 / sizeof, or
    bcast[r, 0] when its valid cols are 1. ``src1_col`` = k (PTOAS TileLang attribute):
    k = 1 broadcasts column 0; k > 1 gives each of its k columns dst's valid cols / k
    columns (the Gym golden)."""
    full, bc = _expand_operands(op, v, 1)
    dst = v["dst"]
    vr, vc = dst.valid
    b = v[bc]
    _same_extent(op, bc, b, "dst", dst, 0)
    if v[full].name != "ND":                # a5 / a2a3: the full-size operand is row-major
        raise VerifyError(f"{full} has dst's valid region, so it must be a row-major ND tile, "
                          f"got {v[full].name}", op=op, operand=full)
    block = 32 // b.dtype.size
    if kw.get("src1_col") is not None:
        k = int(kw["src1_col"])
        if k < 1 or vc % k or k > b.cols:
            raise VerifyError(f"src1_col {k} must divide dst's valid cols {vc} and fit {bc}'s "
                              f"{b.cols} columns", op=op, operand=bc)
        wide = np.repeat(_read(m, b, cols=k), vc // k, axis=1)
    elif b.valid[1] == 1:
        wide = np.repeat(_read(m, b, cols=1), vc, axis=1)
    elif b.valid[1] == block:
        wide = np.tile(_read(m, b, cols=block), -(-vc // block))[:, :vc]
    else:
        raise VerifyError(f"{bc}'s valid cols must be 1 or one 32 B block ({block}), got "
                          f"{b.valid[1]}", op=op, operand=bc)
    a = _read(m, v[full])
    x, y = (a, wide) if full == "src0" else (wide, a)
    _write(m, dst, _lane2(rule.lane, np.ascontiguousarray(x), np.ascontiguousarray(y),
                          dst.dtype, _hp(m, op, kw, dst.dtype)))


def _colexpandop(m: TileOps, op: str, rule: VecRule, v: dict[str, Any],
                 kw: dict[str, Any]) -> None:
    """dst = src0 op src1[0, c] (or the other way round when src0 is the row)."""
    full, bc = _expand_operands(op, v, 0)
    dst = v["dst"]
    vr, vc = dst.valid
    _same_extent(op, bc, v[bc], "dst", dst, 1)
    b = np.repeat(_read(m, v[bc], rows=1), vr, axis=0)
    a = _read(m, v[full])
    x, y = (a, b) if full == "src0" else (b, a)
    _write(m, dst, _lane2(rule.lane, x, y, dst.dtype, _hp(m, op, kw, dst.dtype)))


def check_part_valid(op: str, dst: Tile, s0: Tile, s1: Tile) -> None:
    """The partial ops' rule: one source has dst's valid region, the other fits in it."""
    dv = dst.valid
    if not ((s0.valid == dv or s1.valid == dv)
            and max(s0.valid[0], s1.valid[0]) == dv[0]
            and max(s0.valid[1], s1.valid[1]) == dv[1]):
        raise VerifyError(f"one of src0 ({s0.valid[0]}x{s0.valid[1]}) and src1 "
                          f"({s1.valid[0]}x{s1.valid[1]}) must have dst's valid region "
                          f"{dv[0]}x{dv[1]} and the other must fit in it", op=op,
                          operand="src0")


def _part(m: TileOps, op: str, rule: VecRule, v: dict[str, Any], kw: dict[str, Any]) -> None:
    """Where both sources are valid: src0 op src1; elsewhere in dst's valid region the
    source that covers it (a5 TPartBinOps: one source must have dst's valid region and
    the other may be smaller)."""
    dst, s0, s1 = v["dst"], v["src0"], v["src1"]
    dv = dst.valid
    if kw.get("ptoas") and rule.lane in ("max", "min"):
        _part_ptoas(m, rule, dst, s0, s1)
        return
    check_part_valid(op, dst, s0, s1)
    big, small = (s0, s1) if s0.valid == dv else (s1, s0)
    out = _read(m, big)
    r, c = small.valid
    out[:r, :c] = alu.BINARY[rule.lane](_view(m, s0)[:r, :c], _view(m, s1)[:r, :c], dst.dtype)
    _write(m, dst, out)


def _part_ptoas(m: TileOps, rule: VecRule, dst: Tile, s0: Tile, s1: Tile) -> None:
    """PTOAS's tpartmax / tpartmin template: dst's valid region set to the pad value Min
    (max) / Max (min), src0's valid region copied over it, then max / min with src1 over
    src1's valid region; the sources need not cover dst (lib/TileOps/tpartmax_template.py)."""
    dt = dst.dtype
    if dt.kind in ("int", "uint"):
        info = np.iinfo(dt.np)
        pad: float | int = int(info.min if rule.lane == "max" else info.max)
    else:                       # the largest finite value (PadValue.MIN / MAX.eval)
        big = float(ml_dtypes.finfo(dt.np).max)
        pad = -big if rule.lane == "max" else big
    vr, vc = dst.valid
    out = np.full((vr, vc), pad, dt.np)
    r0, c0 = min(s0.valid[0], vr), min(s0.valid[1], vc)
    out[:r0, :c0] = _read(m, s0)[:r0, :c0]
    r1, c1 = min(s1.valid[0], vr), min(s1.valid[1], vc)
    out[:r1, :c1] = alu.BINARY[rule.lane](np.ascontiguousarray(out[:r1, :c1]),
                                          _read(m, s1)[:r1, :c1], dt)
    _write(m, dst, out)


def _mode(op: str, kw: dict[str, Any]) -> str:
    mode = str(kw.get("mode", "eq")).lower()
    if mode not in alu.CMP_MODES:
        raise PtoValueError(f"mode must be one of {', '.join(alu.CMP_MODES)}, got {mode!r}",
                            op=op, operand="mode")
    return mode


def _cmp_rows(m: TileOps, op: str, dst: Tile, srcs: list[Tile], scalar: Any,
              mode: str, cpu: bool = False, dense: bool = False) -> None:
    """Compare row by row and store one bit per element, little-endian within each byte,
    row r at byte r x (dst's row bytes). Both targets store whole repeats (VL / sizeof
    elements = VL / sizeof / 8 mask bytes) per row, rows in order. a5 compares under a
    predicate of the valid columns (the bits past them are 0); a2a3 compares every lane of
    the repeats with a full mask, reading the bytes past the valid columns (the next row's
    data, or whatever follows the tile), and computes ``ne`` as ``eq`` followed by a NOT of
    the valid rows' dst bytes (a2a3 TCmp.hpp). ``cpu``: the C++ CPU simulator's bytes,
    ceil(valid cols / bits) words per row (8 bits per element, 32 for a ui32 dst), at most
    dst's valid columns, bits past the valid columns 0; TCMP zeroes the whole dst tile
    first, TCMPS writes nothing else. ``dense``:
    PTOAS's tcmps lowering (see `_cmp_dense`)."""
    if cpu:
        if len(srcs) == 1:
            _cmps_cpu(m, op, dst, srcs[0], scalar, mode)
        else:
            _cmp_cpu(m, op, dst, srcs, scalar, mode)
        return
    src = srcs[0]
    elem = src.dtype
    vr, vc = src.valid
    lanes = VL // elem.size
    whole = m.target.tcmp_whole_repeats
    # a5 pairs the repeats of 32-bit types (two compares, one 16-byte PK store)
    unit = lanes // 8 if whole else max(lanes // 8, 16)
    width = -(-vc // (unit * 8)) * unit
    reps = width * 8 // lanes
    row_bytes = dst.cols * dst.dtype.size
    if dense:
        _cmp_dense(m, op, dst, srcs, scalar, mode)
        return
    if (vr - 1) * row_bytes + width > dst.nbytes:
        raise VerifyError(f"a {vr}x{vc} compare stores {vr} rows of {width} mask bytes (whole "
                          f"{VL} B repeats) at a {row_bytes} B row stride; dst has "
                          f"{dst.nbytes} bytes", op=op, operand="dst")
    used = "eq" if whole and mode == "ne" else mode

    def lines(t: Tile | None) -> np.ndarray:
        if t is None:
            return np.broadcast_to(alu._arr(_scalar(op, scalar, elem), elem),
                                   (vr, reps * lanes)).copy()
        if not whole:
            if vc == reps * lanes:          # no lanes past the valid columns
                return _view(m, t)
            out = np.zeros((vr, reps * lanes), elem.np)
            out[:, :vc] = _read(m, t)
            return out
        span = ((vr - 1) * t.cols + reps * lanes) * elem.size
        buf, off = m._region(t.ptr, span, access="R", op=op, operand="src")
        flat = np.array(buf[off:off + span]).view(elem.np)
        return np.stack([flat[r * t.cols:r * t.cols + reps * lanes] for r in range(vr)])

    a = lines(srcs[0])
    b = lines(srcs[1] if len(srcs) > 1 else None)
    bits = alu.compare(used, a, b, elem)
    if not whole:
        bits[:, vc:] = False
    packed = np.packbits(bits, axis=1, bitorder="little")
    buf, off = m._region(dst.ptr, dst.nbytes, access="W", op=op, operand="dst")
    if width <= row_bytes:                  # rows do not overlap: one strided store
        buf[off:off + dst.nbytes].reshape(dst.rows, row_bytes)[:vr, :width] = packed
    else:                                   # each row's store reaches into the next
        for r in range(vr):
            start = off + r * row_bytes
            buf[start:start + width] = packed[r]
    if whole and mode == "ne":          # vnot over valid rows x dst cols / 2 halfwords
        n = vr * dst.cols // 2 * 2
        buf[off:off + n] = ~buf[off:off + n]


def _cmp_dense(m: TileOps, op: str, dst: Tile, srcs: list[Tile], scalar: Any,
               mode: str) -> None:
    """PTOAS's TileLang tcmps (lib/TileOps/tcmps_template.py): the mask packed from dst's
    first byte without dst's row stride. 8 / 16-bit types: each row's bits padded to whole
    32 / 16-byte stores, rows back to back; 32-bit types: the valid region as one stream of
    vr x vc elements, in 16-byte stores of 128 elements (one more repeat than needed is
    issued, so (ceil(vr x vc / 64) + 1) // 2 stores)."""
    src = srcs[0]
    elem = src.dtype
    vr, vc = src.valid
    a = _read(m, src)
    b = _read(m, srcs[1]) if len(srcs) > 1 else np.broadcast_to(
        alu._arr(_scalar(op, scalar, elem), elem), a.shape).copy()
    bits = alu.compare(mode, a, b, elem)
    lanes = VL // elem.size
    if elem.size == 4:
        total = ((-(-(vr * vc) // lanes) + 1) // 2) * 16
        stream = np.zeros(total * 8, bool)
        stream[:vr * vc] = bits.ravel()[:total * 8]
        packed = np.packbits(stream, bitorder="little")
    else:
        store = 16 if elem.size == 2 else 32
        per_row = -(-vc // lanes) * store
        rows = np.zeros((vr, per_row * 8), bool)
        rows[:, :vc] = bits
        packed = np.packbits(rows, axis=1, bitorder="little").ravel()
    if packed.size > dst.nbytes:
        raise VerifyError(f"the packed mask needs {packed.size} bytes; dst has {dst.nbytes}",
                          op=op, operand="dst")
    buf, off = m._region(dst.ptr, dst.nbytes, access="W", op=op, operand="dst")
    buf[off:off + packed.size] = packed


def _cmps_cpu(m: TileOps, op: str, dst: Tile, src: Tile, scalar: Any, mode: str) -> None:
    """The C++ CPU simulator's TCMPS (cpu/TCmps.hpp): bits of the whole source tile (0
    outside its valid region; EQ / NE as |a - b| < 1e-9 in double) packed 8 to a byte,
    Cols / 8 bytes per source row, the packed stream poured into dst's valid region row
    by row (dst's valid cols bytes per row), the rest of dst zero."""
    vr, vc = src.valid
    elem = src.dtype
    a = _read(m, src)
    s = alu._arr(_scalar(op, scalar, elem), elem)
    if mode in ("eq", "ne"):
        with np.errstate(all="ignore"):
            close = np.abs(a.astype(np.float64) - np.float64(s)) < 1e-9
        hit = close if mode == "eq" else (~close | np.isnan(a.astype(np.float64)))
    else:
        hit = alu.compare(mode, a, np.broadcast_to(s, a.shape).copy(), elem)
    golden = np.zeros((src.rows, src.cols), bool)
    golden[:vr, :vc] = hit
    stream = np.packbits(golden[:, :src.cols // 8 * 8], axis=1, bitorder="little").ravel()
    whole = _nd(m, dst, "W", "dst")
    whole[...] = 0
    dvr, dvc = dst.valid
    n = min(stream.size, dvr * dvc)
    grid = np.zeros(dvr * dvc, np.uint8)
    grid[:n] = stream[:n]
    whole[:dvr, :dvc] = grid.reshape(dvr, dvc).astype(dst.dtype.np)


def _cmp_cpu(m: TileOps, op: str, dst: Tile, srcs: list[Tile], scalar: Any,
             mode: str) -> None:
    src = srcs[0]
    elem = src.dtype
    vr, vc = src.valid
    a = _read(m, src)
    b = _read(m, srcs[1]) if len(srcs) > 1 else np.broadcast_to(
        alu._arr(_scalar(op, scalar, elem), elem), a.shape).copy()
    bits = alu.compare(mode, a, b, elem)
    k = 32 if dst.dtype.name == "ui32" else 8
    words = min(-(-vc // k), dst.valid[1])
    if vr > dst.rows:
        raise VerifyError(f"a {vr}-row compare needs {vr} dst rows, dst has {dst.rows}",
                          op=op, operand="dst")
    if len(srcs) > 1:       # the simulator's TCMP (not TCMPS) first zeroes dst's whole tile
        _nd(m, dst, "W", "dst")[...] = 0
    padded = np.zeros((vr, words * k), bool)
    n = min(vc, words * k)
    padded[:, :n] = bits[:, :n]
    weights = (np.uint64(1) << np.arange(k, dtype=np.uint64))
    packed = (padded.reshape(vr, words, k).astype(np.uint64) * weights).sum(axis=2)
    _write(m, dst, packed.astype(f"u{dst.dtype.size}").view(dst.dtype.np))


def _cmp(m: TileOps, op: str, rule: VecRule, v: dict[str, Any], kw: dict[str, Any]) -> None:
    s0, s1 = v["src0"], v["src1"]
    if s0.valid != s1.valid:
        raise VerifyError(f"src1's valid region {s1.valid[0]}x{s1.valid[1]} differs from "
                          f"src0's {s0.valid[0]}x{s0.valid[1]}", op=op, operand="src1")
    _cmp_rows(m, op, v["dst"], [s0, s1], None, _mode(op, kw), bool(kw.get("cpu_sim_compat")))


def _cmps(m: TileOps, op: str, rule: VecRule, v: dict[str, Any], kw: dict[str, Any]) -> None:
    _cmp_rows(m, op, v["dst"], [v["src"]], v["scalar"], _mode(op, kw),
              bool(kw.get("cpu_sim_compat")), kw.get("mask_layout", "rows") == "dense")


def _mask_bits(m: TileOps, op: str, mask: Tile, vr: int, vc: int, cpu: bool) -> np.ndarray:
    """(vr, vc) select bits from a packed mask tile: row r's bits start at byte r x (mask
    row bytes) (a5 TSel, the Gym goldens). ``cpu``: the C++ CPU simulator reads one bit
    stream that moves to the next mask row after the mask's valid-column count of
    bytes."""
    row_bytes = mask.cols * mask.dtype.size
    buf, off = m._region(mask.ptr, mask.nbytes, access="R", op=op, operand="mask")
    raw = np.array(buf[off:off + mask.nbytes]).reshape(mask.rows, row_bytes)
    if not cpu:
        need = -(-vc // 8)
        if need > row_bytes or vr > mask.rows:
            raise VerifyError(f"{vr} rows of {vc} elements need {vr} mask rows of {need} "
                              f"bytes; mask is {mask.rows} rows of {row_bytes} bytes", op=op,
                              operand="mask")
        return np.unpackbits(raw, axis=1, bitorder="little")[:vr, :vc].astype(bool)
    per_row = mask.valid[1]                 # the CPU's validMaskCol, in bytes
    stream = np.unpackbits(raw[:, :per_row].reshape(-1), bitorder="little").astype(bool)
    if stream.size < vr * vc:
        raise VerifyError(f"the mask holds {stream.size} bits, {vr * vc} needed", op=op,
                          operand="mask")
    return stream[:vr * vc].reshape(vr, vc)


def _sel(m: TileOps, op: str, rule: VecRule, v: dict[str, Any], kw: dict[str, Any]) -> None:
    vr, vc = _same_valid(op, v, ("src0", "src1"))
    bits = _mask_bits(m, op, v["mask"], vr, vc, bool(kw.get("cpu_sim_compat")))
    _write(m, v["dst"], alu.select(bits, _read(m, v["src0"]), _read(m, v["src1"])))


def _sels(m: TileOps, op: str, rule: VecRule, v: dict[str, Any], kw: dict[str, Any]) -> None:
    vr, vc = _same_valid(op, v, ("src",))
    dt = v["dst"].dtype
    # the C++ simulator's TSELS reads the mask row by row, as the NPU does (cpu/TSelS.hpp);
    # only its TSEL reads one bit stream, so cpu_sim_compat changes nothing here
    bits = _mask_bits(m, op, v["mask"], vr, vc, False)
    s = np.broadcast_to(alu._arr(_scalar(op, v["scalar"], dt), dt), (vr, vc)).copy()
    _write(m, v["dst"], alu.select(bits, _read(m, v["src"]), s))


FAMILIES: dict[str, Family] = {
    "binary": _binary, "scalar": _scalar_op, "divs": _divs, "expands": _expands,
    "unary": _unary, "rowreduce": _rowreduce, "colreduce": _colreduce, "rowarg": _argreduce(0),
    "colarg": _argreduce(1), "rowexpand": _expand(0), "colexpand": _expand(1),
    "rowexpandop": _rowexpandop, "colexpandop": _colexpandop, "part": _part, "cmp": _cmp,
    "cmps": _cmps, "sel": _sel, "sels": _sels, "cvt": _cvt, "ci": _ci,
}


_NO_PLANS: dict[Any, Any] = {}


def method(spec: OpSpec) -> Callable[..., Any]:
    """The Python face of a vector tile row: ``m.TADD(dst, src0, src1, **attrs)``."""
    if not isinstance(spec.impl, VecRule):
        # the irregular ops (isa.tile_sort rows); imported late: sort builds on this module
        from . import sort
        return sort.method(spec)
    name = spec.name

    def call(self: TileOps, *args: Any, **kw: Any) -> None:
        if not kw and self.access_hook is None:     # the same operand objects as before
            # (fastpath.remember's key; spelled out for the common arities: cheaper)
            key = (name, id(args[0]), id(args[1]), id(args[2])) if len(args) == 3 else \
                (name, id(args[0]), id(args[1])) if len(args) == 2 else (name, *map(id, args))
            hit = self.__dict__.get("_vec_ids", _NO_PLANS).get(key)
            if hit is not None:                     # (fastpath.remember)
                hit[1](args)
                return
        run(self, spec, args, kw)
    call.__name__ = call.__qualname__ = spec.method or spec.name.upper()
    ins = ", ".join(o.name for o in spec.operands[1:])
    keys = "".join(f", {k}=" for _, k in spec.attrs)
    call.__doc__ = (f"``{spec.mnemonic}``: {spec.method}(dst, {ins}{keys}); "
                    f"{spec.impl.family} family (see docs/semantics.md, Vector tile ops).")
    return call
