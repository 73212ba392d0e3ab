"""Vector tile ops (``pto.tadd`` ...): one row each, in the generic DPS text family
``pto.tX ins(%a, %b[, %s] [{attrs}] : T, T[, f32]) outs(%d : T) [{attrs}]``.

A row's ``impl`` is a `VecRule`: which semantics family runs it (``ptosim.tile.vector``),
which lane function of `ptosim.isa.alu` it applies, and its static rules (element types,
the destination's element type). Every op runs on the vector core's V pipe over Vec ND
tiles; the Python face is ``m.TADD(dst, src0, src1)`` (destination first, as pto-isa's C++
``TADD(dst, src0, src1)``), the text form's ins(...) follow in order. Element-type sets are
the static_asserts of pto-isa ``include/pto/npu/a5/T<Op>.hpp`` (`alu.OP_DTYPES` where it
lists the op); docs/semantics.md "Vector tile ops" records the sources.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from . import alu
from .convert import TCVT_PAIRS_A2A3, TCVT_PAIRS_A5
from .spec import Args, Operand, OpSpec

_I8 = frozenset({"i8", "ui8"})
_I16 = frozenset({"i16", "ui16"})
_I32 = frozenset({"i32", "ui32"})
_I64 = frozenset({"i64", "ui64"})
_F = frozenset({"f16", "f32"})
_BF = frozenset({"bf16"})
_ALL = _I8 | _I16 | _I32 | _I64 | _F | _BF
_INT = _I8 | _I16 | _I32 | _I64
_NO64 = _I8 | _I16 | _I32 | _F | _BF


@dataclass(frozen=True)
class VecRule:
    """Semantics and static rules of one vector tile op.

    ``family``: the semantics in `ptosim.tile.vector.FAMILIES`; ``lane``: the `alu` lane
    function (or reduction: sum / max / min / prod); ``dtypes``: element types of the
    source tiles; ``out``: the destination's element types when they differ from the
    source's (None: the same type)."""

    family: str
    lane: str = ""
    dtypes: frozenset[str] = _ALL
    out: frozenset[str] | None = None
    text_defaults: tuple[tuple[str, object], ...] = ()   # keywords a .pto op always passes
    # PTOAS verifier rules of the text form (lib/PTO/IR/PTO.cpp): precisionType =
    # high_precision needs the tmp operand; a tmp holds at least this many bytes
    hp_needs_tmp: bool = False
    tmp_min_bytes: int = 0


def forms(spec: OpSpec) -> list[tuple[str, ...]]:
    """Every operand order (without dst) the op accepts: the row's order and its
    ``forms``, each also without its trailing optional operands."""
    by_name = {o.name: o for o in spec.operands}
    out = []
    for form in (tuple(o.name for o in spec.operands[1:]), *spec.forms):
        names = list(form)
        out.append(tuple(names))
        while names and by_name[names[-1]].optional:
            names.pop()
            out.append(tuple(names))
    return out


def bind(spec: OpSpec, kinds: Sequence[str]) -> tuple[str, ...] | None:
    """The operand names of the first form whose kinds (tile / scalar) match ``kinds``."""
    by_name = {o.name: o for o in spec.operands}
    for form in forms(spec):
        if len(form) == len(kinds) and all(by_name[n].kind == k for n, k in zip(form, kinds)):
            return form
    return None


def signature(spec: OpSpec) -> str:
    """The accepted operand lists, for diagnostics: ``(src0: tile, src1: tile)``."""
    kind = {o.name: o.kind for o in spec.operands}
    return " or ".join("(" + ", ".join(f"{n}: {kind[n]}" for n in form) + ")"
                       for form in forms(spec))


def _work(args: Args) -> tuple[int, int]:
    """One operation per element of the largest tile's valid region."""
    best, size = 0, 4
    for a in args:
        valid = getattr(a, "valid", None)
        if valid is not None and valid[0] * valid[1] > best:
            best, size = valid[0] * valid[1], a.dtype.size
    return best, size


def _dst() -> Operand:
    return Operand("dst", "tile", "W")


def _t(name: str, optional: bool = False) -> Operand:
    return Operand(name, "tile", "R", optional=optional)


def _s(name: str = "scalar") -> Operand:
    return Operand(name, "scalar")


def _row(name: str, rule: VecRule, ins: tuple[Operand, ...],
         attrs: tuple[tuple[str, str], ...] = (),
         forms: tuple[tuple[str, ...], ...] = ()) -> OpSpec:
    return OpSpec(name, "tile", "V", "vector", name.upper(), work=_work, syntax="tile_dps",
                  operands=(_dst(), *ins), impl=rule, attrs=attrs, forms=forms)


def _types(op: str, default: frozenset[str]) -> frozenset[str]:
    return alu.OP_DTYPES.get(op, default)


_PRECISION = (("precision_mode", "precision"), ("precisionType", "precision"))
_EXPAND_ATTRS = (("src1Col", "src1_col"), ("src0eqdst", "src0eqdst"),
                 ("highPrecision", "precision"), ("precisionType", "precision"))
# PTOAS gives these row expand-ops an optional scratch tmp (include/PTO/IR/PTOOps.td)
_ROW_TMP = frozenset({"div", "mul", "sub", "expdif", "max", "min"})
# PTOAS refuses these trowexpand ops' tmp operand on a5 (verifyTRowExpandReduceLikeOp)
_A5_NO_TMP = frozenset({"expdif", "max", "min"})


# lanes with a HIGH_PRECISION variant (pto-isa DivAlgorithm / RemAlgorithm / FmodAlgorithm)
_HP_LANES = frozenset({"div", "rem", "fmod"})


def _binary(name: str, lane: str, default: frozenset[str] = _ALL, tmp: bool = False
            ) -> OpSpec:
    ins = (_t("src0"), _t("src1")) + ((_t("tmp", optional=True),) if tmp else ())
    return _row(name, VecRule("binary", lane, _types(name, default)), ins,
                _PRECISION if lane in _HP_LANES else ())


def _scalar(name: str, lane: str, default: frozenset[str] = _ALL, tmp: bool = False
            ) -> OpSpec:
    ins = (_t("src"), _s()) + ((_t("tmp", optional=True),) if tmp else ())
    # pto-isa TREMS / TFMODS take RemSAlgorithm / FmodSAlgorithm; PTOAS's ops have no
    # precisionType, so a .pto op passes the default (the Python keyword stays open)
    defaults = (("precision", "default"),) if lane in ("rem", "fmod") else ()
    return _row(name, VecRule("scalar", lane, _types(name, default), text_defaults=defaults),
                ins)


def _unary(name: str, lane: str, default: frozenset[str]) -> OpSpec:
    return _row(name, VecRule("unary", lane, default), (_t("src"),), _PRECISION)


def _rsqrt() -> OpSpec:
    # pto-isa TRSQRT(dst, src[, tmp]); PTOAS TRsqrtOp: optional tmp of at least 32 B,
    # required with precisionType = #pto<rsqrt_precision high_precision>
    return _row("trsqrt", VecRule("unary", "rsqrt", _F, hp_needs_tmp=True, tmp_min_bytes=32),
                (_t("src"), _t("tmp", optional=True)), _PRECISION)


def _reduce(name: str, family: str, lane: str, dtypes: frozenset[str],
            out: frozenset[str] | None = None, tmp: bool = True) -> OpSpec:
    ins = (_t("src"),) + ((_t("tmp", optional=True),) if tmp else ())
    attrs = (("isBinary", "is_binary"),) if name == "tcolsum" else ()
    return _row(name, VecRule(family, lane, dtypes, out), ins, attrs)


def _expand_op(name: str, family: str, lane: str, dtypes: frozenset[str]) -> OpSpec:
    # PTOAS's TileLang templates broadcast src1[row, 0] (vdup of the first element): a .pto
    # row expand-op without src1Col means src1Col = 1 (lib/TileOps/trowexpand*_template.py)
    defaults: tuple[tuple[str, object], ...] = \
        (("src1_col", 1),) if family == "rowexpandop" else ()
    if family == "rowexpandop" and lane in _A5_NO_TMP:    # PTOAS's a5 rule (tile/vector.py)
        defaults += (("ptoas", True),)
    tmp = family == "rowexpandop" and lane in _ROW_TMP
    ins = (_t("src0"), _t("src1")) + ((_t("tmp", optional=True),) if tmp else ())
    return _row(name, VecRule(family, lane, dtypes, text_defaults=defaults,
                              hp_needs_tmp=tmp and lane == "div"), ins, _EXPAND_ATTRS)


_RED = _I16 | _I32 | _I64 | _F


def _cvt_names(side: int) -> frozenset[str]:
    """Element types on one side of some TCVT pair; the pairs use signed names (si32),
    tiles may be signless (i32): both spellings are listed. The target's pair table
    (`Target.tcvt_pairs`) is the real rule."""
    names = {p[side] for p in TCVT_PAIRS_A2A3 | TCVT_PAIRS_A5}
    return frozenset(names | {n[1:] for n in names if n.startswith("si")})


# TCVT: pto-isa TCVT(dst, src, mode[, satMode]); PTOAS spells the attributes rmode /
# sat_mode (include/PTO/IR/PTOOps.td TCvtOp) and prints / parses sat_mode as satmode
# (lib/PTO/IR/PTO.cpp TCvtOp::print / parse), its TileLang template reads round_mode
_CVT_ATTRS = (("rmode", "round_mode"), ("round_mode", "round_mode"), ("roundMode", "round_mode"),
              ("sat_mode", "sat_mode"), ("satMode", "sat_mode"), ("satmode", "sat_mode"))
_EXP_T = _I16 | _I32 | _F           # expand-ops (CPU IsRowExpandAllowedType, a5 headers)

ROWS: tuple[OpSpec, ...] = (
    # tile-tile elementwise
    _binary("tadd", "add"), _binary("tsub", "sub"), _binary("tmul", "mul"),
    _binary("tdiv", "div"), _binary("tmax", "max"), _binary("tmin", "min"),
    _binary("tand", "and", _INT), _binary("tor", "or", _INT),
    _binary("txor", "xor", _INT, tmp=True),
    _binary("tshl", "shl", _INT), _binary("tshr", "shr", _INT),
    _binary("trem", "rem", tmp=True), _binary("tfmod", "fmod"),
    _binary("tprelu", "prelu", _F, tmp=True),
    # tile-scalar
    _scalar("tadds", "add"), _scalar("tsubs", "sub", _types("tadds", _ALL)),
    _scalar("tmuls", "mul"),
    _row("tdivs", VecRule("divs", "div", _types("tdiv", _F)), (_t("src"), _s()),
         _PRECISION, forms=(("scalar", "src"),)),
    _scalar("tmaxs", "max"), _scalar("tmins", "min", _types("tmaxs", _ALL)),
    _scalar("tands", "and", _INT), _scalar("tors", "or", _INT),
    _scalar("txors", "xor", _types("txor", _INT), tmp=True),
    _scalar("tshls", "shl", _types("tshl", _INT)), _scalar("tshrs", "shr", _types("tshr", _INT)),
    _scalar("trems", "rem", _types("trem", _ALL), tmp=True),
    _scalar("tfmods", "fmod", _types("tfmod", _ALL)),
    _scalar("tlrelu", "lrelu", _F),
    _row("texpands", VecRule("expands", "", _ALL), (_s(),)),
    # TCI: one-row index ramp, written by the scalar unit (PTOAS TCIOp getPipe PIPE_S)
    OpSpec("tci", "tile", "S", "vector", "TCI", work=_work, syntax="tile_dps",
           operands=(_dst(), _s()), impl=VecRule("ci", "", _I16 | _I32),
           attrs=(("descending", "descending"),)),
    _row("tcvt", VecRule("cvt", "", _cvt_names(0), _cvt_names(1)), (_t("src"),), _CVT_ATTRS),
    # unary
    _unary("tabs", "abs", _I8 | _I16 | _I32 | _F), _unary("tneg", "neg", _I8 | _I16 | _I32 | _F),
    _unary("tnot", "not", _I8 | _I16 | _I32), _unary("texp", "exp", _F),
    _unary("tlog", "ln", _F), _unary("tsqrt", "sqrt", _F), _rsqrt(),
    _unary("trecip", "rec", _F), _unary("trelu", "relu", frozenset({"i32"}) | _F),
    # reductions
    _reduce("trowsum", "rowreduce", "sum", _RED), _reduce("trowmax", "rowreduce", "max", _RED),
    _reduce("trowmin", "rowreduce", "min", _RED), _reduce("trowprod", "rowreduce", "prod", _RED),
    _reduce("tcolsum", "colreduce", "sum", _ALL), _reduce("tcolmax", "colreduce", "max", _ALL),
    _reduce("tcolmin", "colreduce", "min", _ALL),
    _reduce("tcolprod", "colreduce", "prod", _ALL, tmp=False),
    _reduce("trowargmax", "rowarg", "max", _NO64, _I32),
    _reduce("trowargmin", "rowarg", "min", _NO64, _I32),
    _reduce("tcolargmax", "colarg", "max", _NO64, _I32),
    _reduce("tcolargmin", "colarg", "min", _NO64, _I32),
    # expands and expand-ops
    _row("trowexpand", VecRule("rowexpand", "", _ALL), (_t("src"),)),
    _row("tcolexpand", VecRule("colexpand", "", _ALL), (_t("src"),)),
    *(_expand_op(f"trowexpand{op}", "rowexpandop", op, _EXP_T)
      for op in ("add", "sub", "mul", "div", "max", "min")),
    _expand_op("trowexpandexpdif", "rowexpandop", "expdif", _F),
    *(_expand_op(f"tcolexpand{op}", "colexpandop", op, _EXP_T)
      for op in ("add", "sub", "mul", "div", "max", "min")),
    _expand_op("tcolexpandexpdif", "colexpandop", "expdif", _F),
    # partial ops
    *(_row(f"tpart{op}", VecRule("part", op, _I8 | _I16 | _I32 | _F | _BF,
                                 # a .pto tpartmax / tpartmin runs PTOAS's template
                                 text_defaults=(("ptoas", True),) if op in ("max", "min")
                                 else ()),
           (_t("src0"), _t("src1"))) for op in ("add", "mul", "max", "min")),
    # compare and select
    _row("tcmp", VecRule("cmp", "", _ALL, _I8 | _I32), (_t("src0"), _t("src1")),
         (("cmpMode", "mode"),)),
    # a .pto tcmps is PTOAS's TileLang template: the mask packed densely (see docs)
    _row("tcmps", VecRule("cmps", "", _ALL, _I8 | _I32,
                          text_defaults=(("mask_layout", "dense"),)), (_t("src"), _s()),
         (("cmpMode", "mode"), ("maskLayout", "mask_layout"))),
    _row("tsel", VecRule("sel", "", _ALL), (_t("mask"), _t("src0"), _t("src1"),
                                            _t("tmp", optional=True))),
    _row("tsels", VecRule("sels", "", _ALL), (_t("mask"), _t("src"), _t("tmp"), _s())),
)
