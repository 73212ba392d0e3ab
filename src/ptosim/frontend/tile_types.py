"""Tile-level types of the ``pto`` dialect: tile buffers, GM tensor views, the GM layout.

``!pto.tile_buf`` has two spellings on input; both give the same type::

    !pto.tile_buf<vec, 16x64xf32, valid=16x63, blayout=col_major, pad=1>        (compact)
    !pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=64, v_row=16, v_col=63,
                  blayout=col_major, slayout=none_box, fractal=512, pad=1>        (keyed)

Compact: ``LOC, RxCxT`` then optional ``KEY=VALUE`` items in any order, each at most once:
``valid=VRxVC`` (``?`` for a dynamic dim), ``blayout=row_major|col_major``,
``slayout=none_box|row_major|col_major``, ``fractal=512|1024|32``, ``pad=0..3``
(Null Zero Max Min), ``compact=0..2`` (Null Normal RowPlusOne). Keyed: all of ``loc dtype
rows cols v_row v_col blayout slayout fractal pad`` in that order, then an optional
``compact``; ``v_row``/``v_col`` take an integer, ``?`` or ``-1`` (dynamic). LOC is ``vec
mat left right acc bias scaling``. Words may also be written as string literals.

The canonical (printed) spelling is the compact one with every default left out (valid =
R x C, row_major, none_box, 512, pad 0, compact 0), items in the order valid blayout
slayout fractal pad compact.

``!pto.tensor_view<D0x...xDnxT>`` and ``!pto.partition_tensor_view<...>``: rank 1..5, each
dim an integer or ``?``. ``#pto.layout<nd|dn|nz>`` is the GM layout hint of
``pto.make_tensor_view``.

`tile_info` and `view_info` give the interpreter plain Python values.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..dtypes import DTYPES
from ..mlir.builtin import DYNAMIC_INDEX, ArrayAttr, IntAttr, MemRefType, StringAttr
from ..mlir.exceptions import ParseError, VerifyException
from ..mlir.ir import Attribute, ParametrizedAttribute, TypeAttribute
from ..mlir.irdl import irdl_attr_definition
from ..mlir.parser import AttrParser
from ..mlir.printer import Printer
from .attributes import (
    KINDS,
    SPACE_ALIASES,
    AddressSpaceAttr,
    _WordAttr,
    element_name,
    is_number_type,
)

# .pto spelling -> ptosim name (the names `ptosim.Machine.tile` uses)
TILE_LOCS: dict[str, str] = {"vec": "Vec", "mat": "Mat", "left": "Left", "right": "Right",
                             "acc": "Acc", "bias": "Bias", "scaling": "Scaling"}
BLAYOUTS: dict[str, str] = {"row_major": "RowMajor", "col_major": "ColMajor"}
SLAYOUTS: dict[str, str] = {"none_box": "NoneBox", "row_major": "RowMajor",
                            "col_major": "ColMajor"}
FRACTALS: tuple[int, ...] = (512, 1024, 32)
PADS: tuple[str, ...] = ("Null", "Zero", "Max", "Min")            # pad=0..3
COMPACTS: tuple[str, ...] = ("Null", "Normal", "RowPlusOne")        # compact=0..2
GM_LAYOUTS: tuple[str, ...] = ("nd", "dn", "nz")
MAX_VIEW_RANK = 5
_MAX_DIM = 2 ** 31 - 1

_DEFAULTS = {"blayout": "row_major", "slayout": "none_box", "fractal": 512, "pad": 0,
             "compact": 0}
_COMPACT_KEYS = ("valid", "blayout", "slayout", "fractal", "pad", "compact")
_KEYED_KEYS = ("dtype", "rows", "cols", "v_row", "v_col", "blayout", "slayout", "fractal",
               "pad")


# --- small parse helpers --------------------------------------------------------------------
def _word(parser: AttrParser, choices: Sequence[str], what: str) -> str:
    """An identifier (or string literal) from a closed set."""
    pos = parser.pos
    word = parser.parse_optional_identifier_or_str_literal()
    if word is None or word not in choices:
        got = f"'{word}'" if word is not None else "nothing"
        parser.raise_error(f"!pto.tile_buf: unknown {what} {got} (one of "
                           f"{', '.join(choices)})", pos)
    return word


def _int(parser: AttrParser, what: str, lo: int, hi: int, dynamic: bool = False) -> int:
    """An integer in ``[lo, hi]``; with ``dynamic``, ``?`` or ``-1`` give DYNAMIC_INDEX."""
    pos = parser.pos
    if dynamic and parser.parse_optional_punctuation("?") is not None:
        return DYNAMIC_INDEX
    value = parser.parse_optional_integer(allow_boolean=False, allow_negative=True)
    if value is None:
        parser.raise_error(f"!pto.tile_buf: expected an integer{' or ?' if dynamic else ''} "
                           f"for {what}", pos)
    if dynamic and value == -1:
        return DYNAMIC_INDEX
    if not lo <= value <= hi:
        parser.raise_error(f"!pto.tile_buf: {what} must be in [{lo}, {hi}], got {value}", pos)
    return value


def _key(parser: AttrParser, expected: str | None, seen: set[str] | None = None) -> str:
    """``KEY =``; ``expected`` fixes the key (keyed spelling), else one of the compact
    keys not yet in ``seen``."""
    pos = parser.pos
    key = parser.parse_optional_identifier()
    if expected is not None and key != expected:
        parser.raise_error(f"!pto.tile_buf: expected '{expected}=' (keyed spelling: "
                           f"loc, {', '.join(_KEYED_KEYS)}[, compact] in this order)", pos)
    if expected is None:
        if key not in _COMPACT_KEYS:
            got = f"'{key}'" if key is not None else "nothing"
            parser.raise_error(f"!pto.tile_buf: unknown key {got} (compact keys: "
                               f"{', '.join(_COMPACT_KEYS)})", pos)
        assert seen is not None
        if key in seen:
            parser.raise_error(f"!pto.tile_buf: '{key}' given twice", pos)
        seen.add(key)
    assert key is not None          # a missing key was rejected above
    parser.parse_punctuation("=", f" after '{key}' in !pto.tile_buf")
    return key


def _element(parser: AttrParser, what: str) -> Attribute:
    pos = parser.pos
    element = parser.parse_optional_type()
    if element is None:
        parser.raise_error(f"{what}: expected an element type", pos)
    if element_name(element) is None:
        parser.raise_error(f"{what}: {element} is not a PTO element type (one of "
                           f"{', '.join(DTYPES)})", pos)
    return element


def _dims_text(dims: Sequence[int]) -> str:
    return "x".join("?" if d == DYNAMIC_INDEX else str(d) for d in dims)


# --- !pto.tile_buf ---------------------------------------------------------------------------
@irdl_attr_definition
class TileBufType(ParametrizedAttribute, TypeAttribute):
    """An on-chip tile: role (loc), element, physical rows x cols, valid region (-1 =
    dynamic), layout, fractal size, pad and compact mode, as the ``.pto`` spells them."""

    name = "pto.tile_buf"

    loc: StringAttr
    element: Attribute
    rows: IntAttr
    cols: IntAttr
    valid_row: IntAttr
    valid_col: IntAttr
    blayout: StringAttr
    slayout: StringAttr
    fractal: IntAttr
    pad: IntAttr
    compact: IntAttr

    def __init__(self, loc: str, element: Attribute, rows: int, cols: int,
                 valid: tuple[int | None, int | None] | None = None,
                 blayout: str = "row_major", slayout: str = "none_box", fractal: int = 512,
                 pad: int = 0, compact: int = 0) -> None:
        vr, vc = valid if valid is not None else (rows, cols)
        super().__init__(StringAttr(loc), element, IntAttr(rows), IntAttr(cols),
                         IntAttr(DYNAMIC_INDEX if vr is None else vr),
                         IntAttr(DYNAMIC_INDEX if vc is None else vc), StringAttr(blayout),
                         StringAttr(slayout), IntAttr(fractal), IntAttr(pad), IntAttr(compact))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> tuple[Attribute, ...]:
        parser.parse_punctuation("<", " after !pto.tile_buf")
        pos = parser.pos
        first = parser.parse_optional_identifier_or_str_literal()
        if first == "loc" and parser.parse_optional_punctuation("=") is not None:
            fields = _parse_keyed(parser)
        else:
            if first is None or first not in TILE_LOCS:
                got = f"'{first}'" if first is not None else "nothing"
                parser.raise_error(f"!pto.tile_buf: unknown loc {got} (one of "
                                   f"{', '.join(TILE_LOCS)}, or the keyed spelling "
                                   f"'loc=...')", pos)
            fields = _parse_compact(parser, first)
        parser.parse_punctuation(">", " to close !pto.tile_buf<...>")
        for dim, bound, what in ((fields["v_row"], fields["rows"], "row"),
                                 (fields["v_col"], fields["cols"], "col")):
            if dim != DYNAMIC_INDEX and dim > bound:
                parser.raise_error(f"!pto.tile_buf: valid {what} count {dim} exceeds the "
                                   f"{bound} physical {what}s", fields[f"v_{what}_pos"])
        return (StringAttr(fields["loc"]), fields["dtype"], IntAttr(fields["rows"]),
                IntAttr(fields["cols"]), IntAttr(fields["v_row"]), IntAttr(fields["v_col"]),
                StringAttr(fields["blayout"]), StringAttr(fields["slayout"]),
                IntAttr(fields["fractal"]), IntAttr(fields["pad"]), IntAttr(fields["compact"]))

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{self.loc.data}, {self.rows.data}x{self.cols.data}x")
        printer.print_attribute(self.element)
        items = []
        if (self.valid_row.data, self.valid_col.data) != (self.rows.data, self.cols.data):
            items.append(f"valid={_dims_text((self.valid_row.data, self.valid_col.data))}")
        for key in ("blayout", "slayout", "fractal", "pad", "compact"):
            attr = getattr(self, key)
            value = attr.data
            if value != _DEFAULTS[key]:
                items.append(f"{key}={value}")
        printer.print_string("".join(f", {item}" for item in items) + ">")

    def verify(self) -> None:
        if (why := tile_problem(self)) is not None:
            raise VerifyException(f"!pto.tile_buf: {why}")


def _parse_compact(parser: AttrParser, loc: str) -> dict:
    parser.parse_punctuation(",", " after the tile_buf loc")
    pos = parser.pos
    try:
        dims, element = parser.parse_ranked_shape()
    except ParseError as err:
        parser.raise_error(f"!pto.tile_buf: expected ROWSxCOLSxTYPE after the loc, as in "
                           f"16x64xf32 ({err.msg.strip()})", err.span.start)
    if len(dims) != 2 or DYNAMIC_INDEX in dims:
        parser.raise_error("!pto.tile_buf: the shape is ROWSxCOLSxTYPE with two static "
                           "dims", pos)
    for d in dims:
        if not 0 < d <= _MAX_DIM:
            parser.raise_error(f"!pto.tile_buf: rows and cols must be in [1, {_MAX_DIM}]",
                               pos)
    if element_name(element) is None:
        parser.raise_error(f"!pto.tile_buf: {element} is not a PTO element type (one of "
                           f"{', '.join(DTYPES)})", pos)
    fields = {"loc": loc, "dtype": element, "rows": dims[0], "cols": dims[1],
              "v_row": dims[0], "v_col": dims[1], "v_row_pos": pos, "v_col_pos": pos,
              **_DEFAULTS}
    seen: set[str] = set()
    while parser.parse_optional_punctuation(",") is not None:
        key = _key(parser, None, seen)
        if key == "valid":
            fields["v_row_pos"] = fields["v_col_pos"] = vpos = parser.pos
            valid = parser.parse_dimension_list()
            if len(valid) != 2 or any(d < DYNAMIC_INDEX or d > _MAX_DIM for d in valid):
                parser.raise_error("!pto.tile_buf: valid is VROWSxVCOLS (integers or ?)",
                                   vpos)
            fields["v_row"], fields["v_col"] = valid
        else:
            fields[key] = _value(parser, key)
    return fields


def _parse_keyed(parser: AttrParser) -> dict:
    fields: dict = {"loc": _word(parser, tuple(TILE_LOCS), "loc"), "compact": 0}
    for key in _KEYED_KEYS:
        parser.parse_punctuation(",", f" before '{key}=' in !pto.tile_buf")
        _key(parser, key)
        if key == "dtype":
            fields[key] = _element(parser, "!pto.tile_buf")
        elif key in ("rows", "cols"):
            fields[key] = _int(parser, key, 1, _MAX_DIM)
        elif key in ("v_row", "v_col"):
            fields[f"{key}_pos"] = parser.pos
            fields[key] = _int(parser, key, 0, _MAX_DIM, dynamic=True)
        else:
            fields[key] = _value(parser, key)
    if parser.parse_optional_punctuation(",") is not None:
        _key(parser, "compact")
        fields["compact"] = _value(parser, "compact")
    return fields


def _value(parser: AttrParser, key: str) -> object:
    if key == "blayout":
        return _word(parser, tuple(BLAYOUTS), "blayout")
    if key == "slayout":
        return _word(parser, tuple(SLAYOUTS), "slayout")
    if key == "fractal":
        pos = parser.pos
        value = _int(parser, key, 0, _MAX_DIM)
        if value not in FRACTALS:
            parser.raise_error(f"!pto.tile_buf: fractal must be one of "
                               f"{', '.join(map(str, FRACTALS))}, got {value}", pos)
        return value
    if key == "pad":
        return _int(parser, "pad (0 null, 1 zero, 2 max, 3 min)", 0, len(PADS) - 1)
    assert key == "compact"
    return _int(parser, "compact (0 null, 1 normal, 2 row_plus_one)", 0, len(COMPACTS) - 1)


def tile_problem(t: TileBufType) -> str | None:
    """Why the parameters of a tile_buf type are inconsistent, or None."""
    if t.loc.data not in TILE_LOCS:
        return f"unknown loc '{t.loc.data}'"
    if element_name(t.element) is None:
        return f"{t.element} is not a PTO element type"
    rows, cols = t.rows.data, t.cols.data
    if not (0 < rows <= _MAX_DIM and 0 < cols <= _MAX_DIM):
        return "rows and cols must be positive"
    for dim, bound in ((t.valid_row.data, rows), (t.valid_col.data, cols)):
        if dim != DYNAMIC_INDEX and not 0 <= dim <= bound:
            return f"valid shape {_dims_text((t.valid_row.data, t.valid_col.data))} " \
                f"exceeds {rows}x{cols}"
    if t.blayout.data not in BLAYOUTS or t.slayout.data not in SLAYOUTS:
        return f"unknown layout {t.blayout.data}/{t.slayout.data}"
    if t.fractal.data not in FRACTALS:
        return f"fractal must be one of {FRACTALS}"
    if not 0 <= t.pad.data < len(PADS) or not 0 <= t.compact.data < len(COMPACTS):
        return "pad must be 0..3 and compact 0..2"
    return None


# --- tensor views -----------------------------------------------------------------------------
class _ViewType(ParametrizedAttribute, TypeAttribute):
    """A GM tensor view: shape (DYNAMIC_INDEX for ``?``) and element type. Subclasses
    declare the parameters (attribute equality sees only those of decorated classes)."""

    shape: ArrayAttr[IntAttr]
    element: Attribute

    def __init__(self, shape: Sequence[int | None], element: Attribute) -> None:
        super().__init__(ArrayAttr([IntAttr(DYNAMIC_INDEX if d is None else d)
                                    for d in shape]), element)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> tuple[Attribute, ...]:
        what = "!" + cls.name
        parser.parse_punctuation("<", f" after {what}")
        pos = parser.pos
        dims = parser.parse_dimension_list()
        if not 1 <= len(dims) <= MAX_VIEW_RANK:
            parser.raise_error(f"{what}: expected 1 to {MAX_VIEW_RANK} dims (integers or ?) "
                               f"then the element type, as in <1x16x64xf32>", pos)
        if any(d > _MAX_DIM for d in dims):
            parser.raise_error(f"{what}: dims must be at most {_MAX_DIM}", pos)
        parser.parse_shape_delimiter()
        element = _element(parser, what)
        parser.parse_punctuation(">", f" to close {what}<...>")
        return ArrayAttr([IntAttr(d) for d in dims]), element

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{_dims_text([d.data for d in self.shape])}x")
        printer.print_attribute(self.element)
        printer.print_string(">")

    def verify(self) -> None:
        dims = [d.data for d in self.shape]
        if not 1 <= len(dims) <= MAX_VIEW_RANK or any(d < DYNAMIC_INDEX for d in dims):
            raise VerifyException(f"!{self.name}: rank 1..{MAX_VIEW_RANK}, dims >= 0 or ?")
        if element_name(self.element) is None:
            raise VerifyException(f"!{self.name}: {self.element} is not a PTO element type")

    def dims(self) -> list[int | None]:
        return [None if d.data == DYNAMIC_INDEX else d.data for d in self.shape]


@irdl_attr_definition
class TensorViewType(_ViewType):
    """``!pto.tensor_view<...>``: a GM tensor made by ``pto.make_tensor_view``."""

    name = "pto.tensor_view"

    shape: ArrayAttr[IntAttr]
    element: Attribute


@irdl_attr_definition
class PartitionTensorViewType(_ViewType):
    """``!pto.partition_tensor_view<...>``: a window of a tensor view."""

    name = "pto.partition_tensor_view"

    shape: ArrayAttr[IntAttr]
    element: Attribute


@irdl_attr_definition
class LayoutAttr(_WordAttr):
    """``#pto.layout<nd|dn|nz>``: the GM layout of a tensor view."""

    name = "pto.layout"

    value: StringAttr
    CHOICES = GM_LAYOUTS
    WHAT = "a GM layout"


@irdl_attr_definition
class PadModeAttr(_WordAttr):
    """``#pto.padmode<PadNull|PadFirstElem|PadValue>``: a tload's pad_mode clause (PTOAS's
    PadMode enum; its lowering drops it, the dst tile's pad decides)."""

    name = "pto.padmode"

    value: StringAttr
    CHOICES = ("PadNull", "PadFirstElem", "PadValue")
    WHAT = "a pad mode"


@irdl_attr_definition
class AtomicTypeAttr(_WordAttr):
    """``#pto.atomic_type<atomic_none|atomic_add>`` (also ``#pto<atomic_type ...>``): a
    tstore's GM combine."""

    name = "pto.atomic_type"

    value: StringAttr
    CHOICES = ("atomic_none", "atomic_add")
    WHAT = "an atomic type"


@irdl_attr_definition
class GatherOOBAttr(_WordAttr):
    """``#pto<gather_oob undefined|clamp|wrap|zero>``: an mgather's out-of-range policy."""

    name = "pto.gather_oob"

    value: StringAttr
    CHOICES = ("undefined", "clamp", "wrap", "zero")
    WHAT = "a gather OOB mode"


@irdl_attr_definition
class ScatterOOBAttr(_WordAttr):
    """``#pto<scatter_oob undefined|skip|clamp|wrap>``: an mscatter's out-of-range policy."""

    name = "pto.scatter_oob"

    value: StringAttr
    CHOICES = ("undefined", "skip", "clamp", "wrap")
    WHAT = "a scatter OOB mode"


@irdl_attr_definition
class ScatterAtomicOpAttr(_WordAttr):
    """``#pto<scatter_atomic_op none|add|max|min>``: an mscatter's GM combine."""

    name = "pto.scatter_atomic_op"

    value: StringAttr
    CHOICES = ("none", "add", "max", "min")
    WHAT = "a scatter atomic op"


@irdl_attr_definition
class ReluPreModeAttr(_WordAttr):
    """``#pto.relu_pre_mode<no_relu|normal_relu>``: FIXPIPE's ReLU on a tile op."""

    name = "pto.relu_pre_mode"

    value: StringAttr
    CHOICES = ("no_relu", "normal_relu")
    WHAT = "a relu mode"


@irdl_attr_definition
class AccToVecModeAttr(_WordAttr):
    """``#pto.acc_to_vec_mode<...>``: which vector core(s) an Acc -> Vec tmov feeds."""

    name = "pto.acc_to_vec_mode"

    value: StringAttr
    CHOICES = ("single_mode_vec0", "single_mode_vec1", "dual_mode_split_m", "dual_mode_split_n")
    WHAT = "an acc-to-vec mode"


@irdl_attr_definition
class CmpModeAttr(_WordAttr):
    """``#pto.cmp<eq|ne|lt|le|gt|ge>`` (also ``#pto<cmp ...>``): tcmp / tcmps's predicate."""

    name = "pto.cmp"

    value: StringAttr
    CHOICES = ("eq", "ne", "lt", "le", "gt", "ge")
    WHAT = "a compare mode"


@irdl_attr_definition
class PrecisionModeAttr(_WordAttr):
    """``#pto.precision_mode<DEFAULT|HIGH_PRECISION>`` (the Gym tile spec's spelling of the
    SFU ops' precision; the `precision` keyword of the vector tile ops)."""

    name = "pto.precision_mode"

    value: StringAttr
    CHOICES = ("DEFAULT", "HIGH_PRECISION", "HIGH_PERFORMANCE")
    WHAT = "a precision mode"


@irdl_attr_definition
class DivPrecisionAttr(_WordAttr):
    """``#pto<div_precision default|high_precision>``: PTOAS's precisionType of tdiv / tdivs /
    trowexpanddiv / tcolexpanddiv (include/PTO/IR/PTOAttrs.td DivPrecision; pto-isa's
    ``DivAlgorithm`` template argument)."""

    name = "pto.div_precision"

    value: StringAttr
    CHOICES = ("default", "high_precision")
    WHAT = "a div precision"


@irdl_attr_definition
class RsqrtPrecisionAttr(_WordAttr):
    """``#pto<rsqrt_precision default|high_precision>``: PTOAS's precisionType of trsqrt
    (pto-isa's ``RsqrtAlgorithm``)."""

    name = "pto.rsqrt_precision"

    value: StringAttr
    CHOICES = ("default", "high_precision")
    WHAT = "an rsqrt precision"


def _precision_attr(word: str, cls_name: str, op: str, algo: str) -> type[_WordAttr]:
    """``#pto<WORD_precision default|high_precision>``: PTOAS's precisionType of ``op``
    (include/PTO/IR/PTOAttrs.td ``WORDPrecision``; pto-isa's ``ALGO`` template argument)."""
    cls = type(cls_name, (_WordAttr,), {
        "__doc__": f"``#pto<{word}_precision default|high_precision>``: PTOAS's "
                   f"precisionType of {op} (pto-isa's ``{algo}``).",
        "__module__": __name__,
        "__annotations__": {"value": StringAttr},
        "name": f"pto.{word}_precision",
        "CHOICES": ("default", "high_precision"),
        "WHAT": f"{'an' if word[0] in 'aeiou' else 'a'} {word} precision",
    })
    return irdl_attr_definition(cls)


ExpPrecisionAttr = _precision_attr("exp", "ExpPrecisionAttr", "texp", "ExpAlgorithm")
LogPrecisionAttr = _precision_attr("log", "LogPrecisionAttr", "tlog", "LogAlgorithm")
RecipPrecisionAttr = _precision_attr("recip", "RecipPrecisionAttr", "trecip",
                                     "RecipAlgorithm")
RemPrecisionAttr = _precision_attr("rem", "RemPrecisionAttr", "trem", "RemAlgorithm")
SqrtPrecisionAttr = _precision_attr("sqrt", "SqrtPrecisionAttr", "tsqrt", "SqrtAlgorithm")
FmodPrecisionAttr = _precision_attr("fmod", "FmodPrecisionAttr", "tfmod", "FmodAlgorithm")


@irdl_attr_definition
class AccPhaseAttr(_WordAttr):
    """``#pto<acc_phase unspecified|partial|final>``: PTOAS's accPhase of the matmul / gemv
    ops, pto-isa's ``AccPhase`` template argument (0 / 2 / 3), which TMATMUL passes to
    ``mad`` as its unit-flag field (2 = check_only, 3 = check_and_set): a pipe
    synchronisation hint that changes no value (docs/semantics.md, "accPhase")."""

    name = "pto.acc_phase"

    value: StringAttr
    CHOICES = ("unspecified", "partial", "final")
    WHAT = "an acc phase"


@irdl_attr_definition
class STPhaseAttr(_WordAttr):
    """``#pto<st_phase unspecified|partial|final>``: PTOAS's stPhase of ``pto.tstore``,
    pto-isa's ``STPhase`` template argument of TSTORE (0 / 2 / 3), which the Acc -> GM
    FIXPIPE writeback puts in its unit-flag field (2 = check_only, 3 = check_and_clear)
    and the Vec / Mat stores ignore: a pipe-sync hint that changes no value
    (docs/semantics.md, "stPhase")."""

    name = "pto.st_phase"

    value: StringAttr
    CHOICES = ("unspecified", "partial", "final")
    WHAT = "a store phase"


@irdl_attr_definition
class MaskPatternAttr(_WordAttr):
    """``#pto.mask_pattern<P0101|...|P1111>`` (also ``#pto<mask_pattern ...>``): the lane
    pattern of tgather / tscatter's mask forms."""

    name = "pto.mask_pattern"

    value: StringAttr
    CHOICES = ("P0101", "P1010", "P0001", "P0010", "P0100", "P1000", "P1111")
    WHAT = "a mask pattern"


@irdl_attr_definition
class QuantTypeAttr(_WordAttr):
    """``#pto.quant_type<INT8_SYM|INT8_ASYM>`` (also ``#pto<quant_type ...>``): tquant's
    integer mode."""

    name = "pto.quant_type"

    value: StringAttr
    CHOICES = ("INT8_SYM", "INT8_ASYM")
    WHAT = "a quant type"


@irdl_attr_definition
class RoundModeAttr(_WordAttr):
    """``#pto.round_mode<RINT|ROUND|...>`` (also ``#pto<round_mode ...>``): tcvt's tile
    RoundMode (PTOAS include/PTO/IR/PTOAttrs.td RoundMode; pto-isa's CAST_* names too)."""

    name = "pto.round_mode"

    value: StringAttr
    CHOICES = ("NONE", "RINT", "ROUND", "FLOOR", "CEIL", "TRUNC", "ODD", "CAST_RINT",
               "CAST_NONE", "CAST_ROUND", "CAST_FLOOR", "CAST_CEIL", "CAST_TRUNC", "CAST_ODD")
    WHAT = "a round mode"


@irdl_attr_definition
class SaturationModeAttr(_WordAttr):
    """``#pto.saturation_mode<ON|OFF>`` (also ``#pto<saturation_mode ...>``): tcvt's
    saturation."""

    name = "pto.saturation_mode"

    value: StringAttr
    CHOICES = ("ON", "OFF")
    WHAT = "a saturation mode"


# --- accessors and predicates --------------------------------------------------------------
def is_tile_type(t: Attribute) -> bool:
    return isinstance(t, TileBufType)


def is_view_type(t: Attribute) -> bool:
    return isinstance(t, (TensorViewType, PartitionTensorViewType)) or \
        memref_view(t) is not None


def memref_view(t: Attribute) -> tuple[list[int], list[int], str] | None:
    """``(shape, strides, dtype)`` of a statically shaped GM memref that a tile op reads or
    writes as a tensor view (PTOAS accepts ``pto.tload ins(%a : memref<16x16xf32,
    #pto.address_space<gm>>)``): its strides are the memref's layout (row-major without
    one); None for any other type."""
    if not isinstance(t, MemRefType) or not isinstance(t.memory_space, AddressSpaceAttr) \
            or t.memory_space.space() != "gm" or not t.has_static_shape():
        return None
    name = element_name(t.element_type)
    strides = t.get_strides()
    if name is None or strides is None or any(s is None for s in strides):
        return None
    return list(t.get_shape()), [int(s) for s in strides], name  # type: ignore[arg-type]


def tile_info(t: Attribute) -> dict[str, object]:
    """A tile_buf type as plain values, in ptosim's names::

        {"tile_type": "Vec", "dtype": "f32", "rows": 16, "cols": 64, "valid": (16, None),
         "blayout": "RowMajor", "slayout": "NoneBox", "fractal": 512, "pad": "Null",
         "compact": "Null", "loc": "vec", "space": "ub"}

    ``valid`` holds None for a dynamic (``?``) dim; ``dtype`` is a `ptosim.dtypes.dtype`
    spelling; ``space`` the canonical pointer space of the tile's buffer.
    """
    if not isinstance(t, TileBufType):
        raise TypeError(f"{t} is not a !pto.tile_buf type")
    vr, vc = t.valid_row.data, t.valid_col.data
    return {
        "tile_type": TILE_LOCS[t.loc.data],
        "dtype": element_name(t.element),
        "rows": t.rows.data,
        "cols": t.cols.data,
        "valid": (None if vr == DYNAMIC_INDEX else vr, None if vc == DYNAMIC_INDEX else vc),
        "blayout": BLAYOUTS[t.blayout.data],
        "slayout": SLAYOUTS[t.slayout.data],
        "fractal": t.fractal.data,
        "pad": PADS[t.pad.data],
        "compact": COMPACTS[t.compact.data],
        "loc": t.loc.data,
        "space": SPACE_ALIASES[t.loc.data],
    }


def view_info(t: Attribute) -> tuple[list[int | None], str]:
    """``(shape, dtype)`` of a tensor_view or partition_tensor_view type; None marks a
    ``?`` dim.

    >>> view_info(TensorViewType([1, None, 64], f32))   # f32 from ptosim.mlir.builtin
    ([1, None, 64], 'f32')
    """
    if (mem := memref_view(t)) is not None:
        return list[int | None](mem[0]), mem[2]
    if not is_view_type(t):
        raise TypeError(f"{t} is not a !pto.tensor_view or !pto.partition_tensor_view type")
    assert isinstance(t, _ViewType)
    return t.dims(), element_name(t.element) or ""


def tile_space(t: TileBufType) -> str:
    """The canonical pointer space of a tile's buffer (ub for vec, l0c for acc, ...)."""
    return SPACE_ALIASES[t.loc.data]


# Operand kinds of the tile ops (see attributes.KINDS).
KINDS.update({
    "tile": (is_tile_type, "a !pto.tile_buf"),
    "tensor_view": (lambda t: isinstance(t, TensorViewType), "a !pto.tensor_view"),
    "view": (is_view_type, "a !pto.partition_tensor_view (or !pto.tensor_view, or a GM "
                           "memref of static shape)"),
    "scalar": (is_number_type, "an integer or float scalar"),
})
