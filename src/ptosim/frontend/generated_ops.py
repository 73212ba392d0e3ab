"""Op classes generated from the op registry: ops whose text form is a generic one, so a
new op of such a family is one row in `ptosim.isa.table` (or a family module of
`ptosim.isa`) and nothing here.

``scalars``: ``pto.<name> %a, %b : i64, i64`` -- integer operands, no results.
``operands``: ``pto.<name> %p, %q, %a, ... [{flag = true}] : T0, T1, ...`` -- positional
operands of the kinds the row's ``operands`` give (``ptr``, ``int``, ``flag``, ``number``)
and the boolean attributes its ``attrs`` name (a ``number`` operand's MLIR type goes to the
method as the keyword ``<name>_type``); no results (PTOAS's assembly format of the
register-level ops: ``$a `,` $b ... attr-dict `:` type($a) `,` ...``).
``tile_dps``: ``pto.<name> ins(%a, %b[, %s] [{attrs}] : TB, TB[, f32]) outs(%d : TB)
[{attrs}]`` -- destination-passing tile ops (the vector tile ops): tiles and scalars in
``ins`` in one of the row's operand orders, the destination in ``outs``, attributes
(the row's ``attrs``) inside ``ins`` before the colon or after ``outs``.
``tile_dps_n``: ``pto.<name> ins(...) outs(%d, %e : TB, TB)`` -- DPS tile ops with several
outs (``pto.tinterleave``, ``pto.tmrgsort``'s list form).
``tile_ins``: ``pto.<name> ins(%a : TB) [{attrs}]`` -- tile ops without a destination
(``pto.tprint``).
``vector``: the vector micro ops (`ptosim.frontend.vector_ops`, rows in `ptosim.isa.vector`).
"""

from __future__ import annotations

from typing import ClassVar

from ..dtypes import dtype
from ..isa import GENERATED, OpSpec
from ..isa.tile_vector import bind, signature
from ..mlir.builtin import (
    ArrayAttr,
    IntegerAttr,
    IntegerType,
    StringAttr,
    VectorType,
    i1,
    i64,
)
from ..mlir.exceptions import VerifyException
from ..mlir.ir import Attribute, SSAValue
from ..mlir.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    var_operand_def,
)
from ..mlir.parser import Parser, UnresolvedOperand
from ..mlir.printer import Printer
from .attributes import _WordAttr, element_name, kind_error
from .base import MicroOp, Slot
from .syntax import (
    Operands,
    keyword,
    parse_type_at,
    parse_types,
    print_types,
    print_values,
    reject_extra_types,
)
from .tile_types import TileBufType, is_tile_type


class ScalarsOp(MicroOp):
    """Integer operands described by ``SPEC.operands``, each of type i64."""

    SPEC: ClassVar[OpSpec]
    values = var_operand_def(i64)

    @classmethod
    def parse(cls, parser: Parser) -> ScalarsOp:
        ops = Operands(parser, cls.name)
        ops.add_list(cls.SPEC.operand_names, "int")
        parser.parse_punctuation(":", f" before the type list of {cls.name}")
        types = parse_types(parser, len(cls.SPEC.operands), cls.name)
        return cls.build(operands=[ops.resolve(types)])

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        print_values(printer, self.values)
        printer.print_string(" : ")
        print_types(printer, self.values)

    def check_shape(self) -> None:
        from .base import require
        require(len(self.values) == len(self.SPEC.operands),
                f"{self.name} takes {len(self.SPEC.operands)} operands")

    def slots(self) -> list[Slot]:
        return [(label, v, "int") for label, v in zip(self.SPEC.operand_names, self.values)]

    def python_call(self) -> tuple[list[object], dict[str, object]]:
        return list(self.values), {}


class OperandsOp(MicroOp):
    """Positional operands of the kinds in ``SPEC.operands``, then an optional attribute
    dictionary of the booleans in ``SPEC.attrs``, then the type list."""

    SPEC: ClassVar[OpSpec]
    values = var_operand_def()
    flags = opt_prop_def(ArrayAttr[StringAttr])    # the attributes set to true

    @classmethod
    def parse(cls, parser: Parser) -> OperandsOp:
        ops = Operands(parser, cls.name)
        ops.add_list(cls.SPEC.operand_names, [o.kind for o in cls.SPEC.operands])
        pos = parser.pos
        flags = []
        for key, value in parser.parse_optional_attr_dict().items():
            if key not in dict(cls.SPEC.attrs) or not (isinstance(value, IntegerAttr)
                                                 and value.type == i1):
                allowed = " or ".join(f"'{a} = true|false'" for a, _ in cls.SPEC.attrs)
                parser.raise_error(f"{cls.name}: unexpected attribute '{key}'"
                                   + (f" (allowed: {allowed})" if allowed else
                                      " (the op takes none)"), pos)
            if value.value.data:
                flags.append(StringAttr(key))
        parser.parse_punctuation(":", f" before the type list of {cls.name}")
        types = parse_types(parser, len(cls.SPEC.operands), cls.name)
        reject_extra_types(parser, cls.name)
        props = {"flags": ArrayAttr(flags)} if flags else {}
        return cls.build(operands=[ops.resolve(types)], properties=props)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        print_values(printer, self.values)
        if self.flags is not None:
            printer.print_string(" {" + ", ".join(f"{f.data} = true" for f in self.flags)
                                 + "}")
        printer.print_string(" : ")
        print_types(printer, self.values)

    def check_shape(self) -> None:
        from .base import require
        require(len(self.values) == len(self.SPEC.operands),
                f"{self.name} takes {len(self.SPEC.operands)} operands")

    def slots(self) -> list[Slot]:
        return [(o.name, v, o.kind) for o, v in zip(self.SPEC.operands, self.values)]

    def python_call(self) -> tuple[list[object], dict[str, object]]:
        names = dict(self.SPEC.attrs)
        kw: dict[str, object] = {names[f.data]: True for f in self.flags} \
            if self.flags is not None else {}
        for o, v in zip(self.SPEC.operands, self.values):
            if o.kind == "number":       # the runtime value is a plain number: pass its type
                kw[f"{o.name}_type"] = str(v.type)
        return list(self.values), kw



def _operand_kind(t: Attribute) -> str:
    return "tile" if is_tile_type(t) else "scalar" if kind_error("scalar", t) is None else "?"


def _attr_value(value: Attribute) -> object:
    """An attribute as the Python face's keyword value: a word (or string), an int or a
    bool."""
    if isinstance(value, _WordAttr):
        return value.value.data
    if isinstance(value, StringAttr):    # {algo = "HIGH_PRECISION"}: the word itself
        return value.data
    if isinstance(value, IntegerAttr):
        n = value.value.data
        return bool(n) if isinstance(value.type, IntegerType) and value.type.width.data == 1 \
            else n
    return str(value)


def _known_attrs(spec: OpSpec, name: str, parser: Parser) -> dict[str, Attribute]:
    """An optional attribute dictionary holding only the row's attributes."""
    pos = parser.pos
    attrs = parser.parse_optional_attr_dict()
    known = [k for k, _ in spec.attrs]
    for key in attrs:
        if key not in known:
            parser.raise_error(f"{name}: unsupported attribute '{key}' (known: "
                               f"{', '.join(known) or 'none'})", pos)
    return attrs


# PTOAS's precisionType attribute kind per op (include/PTO/IR/PTOOps.td) and the
# constraint summary its verifier prints (PTOAttrs.td)
_PRECISION_KIND = {
    **{f"pto.{o}": "div" for o in ("tdiv", "tdivs", "trowexpanddiv", "tcolexpanddiv")},
    "pto.texp": "exp", "pto.tlog": "log", "pto.trecip": "recip", "pto.trem": "rem",
    "pto.trsqrt": "rsqrt", "pto.tsqrt": "sqrt", "pto.tfmod": "fmod",
}


def _verify_precision_kind(op: IRDLOperation) -> None:
    """precisionType must be the op's own ``#pto<X_precision ...>`` (e.g. no
    div_precision on texp), as PTOAS's ODS constraint."""
    kind = _PRECISION_KIND.get(op.name)
    prec = op.attributes.get("precisionType")
    if kind is None or prec is None or prec.name == f"pto.{kind}_precision":
        return
    what = "TDIV" if kind == "div" else "T" + kind.upper()
    raise VerifyException(f"{op.name}: attribute 'precisionType' failed to satisfy "
                          f"constraint: {what} precision mode attribute")


def _verify_histogram_byte(op: IRDLOperation) -> None:
    """PTOAS THistogramOp::verify: a legacy isMSB must name the same byte as ``byte``."""
    msb, byte = op.attributes.get("isMSB"), op.attributes.get("byte")
    if op.name != "pto.thistogram" or msb is None or byte is None:
        return
    legacy = 1 if _attr_value(msb) else 0
    if _attr_value(byte) != legacy:
        raise VerifyException("pto.thistogram: does not allow conflicting 'byte' and legacy "
                              "'isMSB' attributes")


def _verify_cvt_sat(op: IRDLOperation) -> None:
    """PTOAS TCvtOp::parse: satmode is sat_mode's other spelling, not both at once."""
    if op.name == "pto.tcvt" and "satmode" in op.attributes and "sat_mode" in op.attributes:
        raise VerifyException("pto.tcvt: cannot specify both satmode and sat_mode")


def _verify_tmp(op: IRDLOperation, names: tuple[str, ...]) -> None:
    """PTOAS's tmp rules of a vector tile op's text form (lib/PTO/IR/PTO.cpp
    TRowExpandDivOp / TRsqrtOp::verify): high precision needs tmp; a tmp holds at least
    ``tmp_min_bytes``."""
    rule = op.SPEC.impl  # type: ignore[attr-defined]
    has_tmp = "tmp" in names
    prec = op.attributes.get("precisionType")
    high = isinstance(prec, _WordAttr) and prec.value.data.lower() == "high_precision"
    if getattr(rule, "hp_needs_tmp", False) and high and not has_tmp:
        raise VerifyException(f"{op.name}: expects tmp when precisionType is high_precision")
    least = getattr(rule, "tmp_min_bytes", 0)
    if has_tmp and least:
        t = op.operands[names.index("tmp")].type      # (the ins come first, dst last)
        if isinstance(t, TileBufType) and t.rows.data > 0 and t.cols.data > 0:
            name = element_name(t.element)
            size = dtype(name).size if name is not None else 0
            if size and t.rows.data * t.cols.data * size < least:
                raise VerifyException(f"{op.name}: expects tmp to be at least {least} bytes "
                                      f"when provided")


def _verify_mrgsort_lists(op: IRDLOperation, order: list[SSAValue]) -> None:
    """PTOAS TMrgSortOp::verify, format2 (the list form): tmp takes the merged lists
    before dst gets them, so it has at least dst's columns (pto-isa's TMRGSORT reads
    dst's columns out of tmp; the Python face refuses the call at run time)."""
    dst_t, tmp_t = order[0].type, order[1].type
    if isinstance(dst_t, TileBufType) and isinstance(tmp_t, TileBufType) \
            and tmp_t.cols.data < dst_t.cols.data:
        raise VerifyException(f"{op.name}: format2 expects tmp.cols >= dst.cols (tmp has "
                              f"{tmp_t.cols.data}, dst {dst_t.cols.data})")


class TileDpsOp(IRDLOperation):
    """A destination-passing tile op described by ``SPEC.operands`` (dst first, then the
    ins in one of the row's orders) and ``SPEC.attrs``."""

    SPEC: ClassVar[OpSpec]
    srcs = var_operand_def()
    dst = operand_def()

    @classmethod
    def parse(cls, parser: Parser) -> TileDpsOp:
        name = cls.name
        keyword(parser, "ins", name)
        parser.parse_punctuation("(", " after ins")
        ins_pos = parser.pos
        unresolved: list[UnresolvedOperand] = []
        while True:
            operand = parser.parse_optional_unresolved_operand()
            if operand is None:
                break
            unresolved.append(operand)
            if parser.parse_optional_punctuation(",") is None:
                break
        attrs = cls._parse_attrs(parser)
        parser.parse_punctuation(":", f" before the ins(...) types of {name}")
        types = parse_types(parser, len(unresolved), name) if unresolved else []
        pos = parser.pos
        if parser.parse_optional_punctuation(",") is not None:
            parser.raise_error(f"{name}: ins(...) has more types than operands", pos)
        parser.parse_punctuation(")", " to close ins(...)")
        keyword(parser, "outs", name, "after ins(...)")
        parser.parse_punctuation("(", " after outs")
        ops = Operands(parser, name)
        kinds = [_operand_kind(t) for t, _ in types]
        form = bind(cls.SPEC, kinds)
        if form is None:
            parser.raise_error(f"{name}: ins(...) must be {signature(cls.SPEC)}, got "
                               f"({', '.join(kinds)})", ins_pos)
        for label, operand, kind in zip(form, unresolved, kinds):
            ops.items.append((label, operand, kind))
        ops.add("dst", "tile")
        parser.parse_punctuation(":", f" before the outs(...) type of {name}")
        types.append(parse_type_at(parser))
        parser.parse_punctuation(")", " to close outs(...)")
        for key, value in cls._parse_attrs(parser).items():
            attrs[key] = value
        values = ops.resolve(types)
        return cls.build(operands=[values[:-1], values[-1]], attributes=attrs)

    @classmethod
    def _parse_attrs(cls, parser: Parser) -> dict[str, Attribute]:
        return _known_attrs(cls.SPEC, cls.name, parser)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ins(")
        print_values(printer, self.srcs)
        printer.print_string(" : ")
        print_types(printer, self.srcs)
        printer.print_string(") outs(")
        printer.print_operand(self.dst)
        printer.print_string(" : ")
        printer.print_attribute(self.dst.type)
        printer.print_string(")")
        if self.attributes:
            printer.print_op_attributes(self.attributes)

    def verify_(self) -> None:
        kinds = [_operand_kind(v.type) for v in self.srcs]
        if bind(self.SPEC, kinds) is None:
            raise VerifyException(f"{self.name}: ins(...) must be {signature(self.SPEC)}, got "
                                  f"({', '.join(kinds)})")
        if (why := kind_error("tile", self.dst.type)) is not None:
            raise VerifyException(f"{self.name}: dst {why}")
        known = {k for k, _ in self.SPEC.attrs}
        for key in self.attributes:
            if key not in known:
                raise VerifyException(f"{self.name}: unsupported attribute '{key}'")
        _verify_precision_kind(self)
        _verify_histogram_byte(self)
        _verify_cvt_sat(self)
        _verify_tmp(self, bind(self.SPEC, kinds) or ())

    def tile_call(self) -> tuple[list[object], dict[str, object]]:
        """``[dst, *ins]`` and the attributes as the Python face's keywords."""
        names = dict(self.SPEC.attrs)
        kw = dict(getattr(self.SPEC.impl, "text_defaults", ()))
        kw.update({names[k]: _attr_value(v) for k, v in self.attributes.items()})
        return [self.dst, *self.srcs], kw


class TileInsOp(IRDLOperation):
    """A tile op with inputs only (``pto.tprint ins(%src : T)``): ``SPEC.operands`` in
    ``ins(...)``, attributes (the row's ``attrs``) after it."""

    SPEC: ClassVar[OpSpec]
    srcs = var_operand_def()

    @classmethod
    def parse(cls, parser: Parser) -> TileInsOp:
        name = cls.name
        keyword(parser, "ins", name)
        parser.parse_punctuation("(", " after ins")
        ops = Operands(parser, name)
        ops.add_list([o.name for o in cls.SPEC.operands], [o.kind for o in cls.SPEC.operands])
        parser.parse_punctuation(":", f" before the ins(...) types of {name}")
        types = parse_types(parser, len(cls.SPEC.operands), name)
        parser.parse_punctuation(")", " to close ins(...)")
        return cls.build(operands=[ops.resolve(types)],
                         attributes=_known_attrs(cls.SPEC, name, parser))

    def print(self, printer: Printer) -> None:
        printer.print_string(" ins(")
        print_values(printer, self.srcs)
        printer.print_string(" : ")
        print_types(printer, self.srcs)
        printer.print_string(")")
        if self.attributes:
            printer.print_op_attributes(self.attributes)

    def verify_(self) -> None:
        for o, v in zip(self.SPEC.operands, self.srcs):
            if (why := kind_error(o.kind, v.type)) is not None:
                raise VerifyException(f"{self.name}: {o.name} {why}")
        known = {k for k, _ in self.SPEC.attrs}
        for key in self.attributes:
            if key not in known:
                raise VerifyException(f"{self.name}: unsupported attribute '{key}'")

    def tile_call(self) -> tuple[list[object], dict[str, object]]:
        """The ins and the attributes as the Python face's keywords."""
        names = dict(self.SPEC.attrs)
        return list(self.srcs), {names[k]: _attr_value(v) for k, v in self.attributes.items()}


def _operand_list(parser: Parser, name: str, what: str) -> list[UnresolvedOperand]:
    """``%a, %b, ...`` (possibly empty) up to the colon or an attribute dictionary."""
    out: list[UnresolvedOperand] = []
    while (operand := parser.parse_optional_unresolved_operand()) is not None:
        out.append(operand)
        if parser.parse_optional_punctuation(",") is None:
            break
    if not out:
        parser.raise_error(f"{name}: expected SSA operands in {what}(...)")
    return out


class TileDpsMultiOp(IRDLOperation):
    """A DPS tile op with several outs: ``pto.<name> ins(%a, ... [{attrs}] : T, ...)
    outs(%d, %e : T, U) [{attrs}]``. ``tile_call`` puts the outs first (``pto.tinterleave
    ins(%src1, %src0) outs(%dst1, %dst0)`` -> TINTERLEAVE(dst1, dst0, src1, src0)); a row
    whose rule names ``text_call = "mrgsort"`` maps PTOAS's tmrgsort forms instead."""

    SPEC: ClassVar[OpSpec]
    srcs = var_operand_def()
    outs = var_operand_def()
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    @classmethod
    def parse(cls, parser: Parser) -> TileDpsMultiOp:
        name = cls.name
        keyword(parser, "ins", name)
        parser.parse_punctuation("(", " after ins")
        ins = _operand_list(parser, name, "ins")
        attrs = _known_attrs(cls.SPEC, name, parser)
        parser.parse_punctuation(":", f" before the ins(...) types of {name}")
        in_types = parse_types(parser, len(ins), name)
        parser.parse_punctuation(")", " to close ins(...)")
        keyword(parser, "outs", name, "after ins(...)")
        parser.parse_punctuation("(", " after outs")
        outs = _operand_list(parser, name, "outs")
        parser.parse_punctuation(":", f" before the outs(...) types of {name}")
        out_types = parse_types(parser, len(outs), name)
        parser.parse_punctuation(")", " to close outs(...)")
        attrs.update(_known_attrs(cls.SPEC, name, parser))
        values = [[parser.resolve_operand(o, t) for o, (t, _) in zip(group, types)]
                  for group, types in ((ins, in_types), (outs, out_types))]
        return cls.build(operands=values, attributes=attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ins(")
        print_values(printer, self.srcs)
        printer.print_string(" : ")
        print_types(printer, self.srcs)
        printer.print_string(") outs(")
        print_values(printer, self.outs)
        printer.print_string(" : ")
        print_types(printer, self.outs)
        printer.print_string(")")
        if self.attributes:
            printer.print_op_attributes(self.attributes)

    def _order(self) -> list[SSAValue]:
        """The operands in the Python face's order."""
        outs, ins = list(self.outs), list(self.srcs)
        if getattr(self.SPEC.impl, "text_call", "") == "mrgsort" and len(outs) == 2:
            if not isinstance(outs[1].type, VectorType):
                raise VerifyException(f"{self.name}: the second out (executed counts) must be "
                                      f"a vector<4xi16>, got {outs[1].type}")
            return [outs[0], ins[-1], *ins[:-1]]    # (dst, tmp, src0 ...); executed dropped
        if getattr(self.SPEC.impl, "text_call", "") == "partarg" and len(outs) == 2 \
                and len(ins) == 4:
            # PTOAS ins(src0, src1, src0Idx, src1Idx) outs(dst, dstIdx) -> the C++ order
            return [outs[0], ins[0], ins[1], outs[1], ins[2], ins[3]]
        if getattr(self.SPEC.impl, "text_call", "") == "gathercmp" and len(outs) == 2 \
                and len(ins) == 3:
            # PTOAS ins(src, k, tmp) outs(dst, cdst) -> TGATHER(dst, src, k, cdst, tmp, ...)
            return [outs[0], ins[0], ins[1], outs[1], ins[2]]
        return outs + ins

    def _gather_cmp(self) -> bool:
        """``pto.tgather``'s compare form (two outs, or a compare attribute)."""
        return getattr(self.SPEC.impl, "text_call", "") == "gathercmp" and (
            len(self.outs) == 2 or "cmpMode" in self.attributes or "offset" in self.attributes)

    def _verify_gather_cmp(self) -> None:
        """PTOAS's compare-form rules the generic kinds do not carry."""
        ins, outs = list(self.srcs), list(self.outs)
        kinds = [_operand_kind(v.type) for v in ins]
        if len(outs) != 2 or kinds != ["tile", "scalar", "tile"]:
            raise VerifyException(f"{self.name}: the compare form is ins(%src, %k, %tmp : T, "
                                  f"elem, T) outs(%dst, %cdst : T, T) {{cmpMode, offset}}, got "
                                  f"ins({', '.join(kinds)}) and {len(outs)} outs")
        src_t = ins[0].type
        if isinstance(src_t, TileBufType) and ins[1].type != src_t.element:
            raise VerifyException(f"{self.name}: k must have src's element type "
                                  f"{src_t.element}, got {ins[1].type}")
        mode = self.attributes.get("cmpMode")
        if mode is not None and str(_attr_value(mode)).upper() not in ("EQ", "GT"):
            raise VerifyException(f"{self.name}: cmpMode must be eq or gt, got "
                                  f"{_attr_value(mode)}")
        offset = self.attributes.get("offset")
        if offset is not None and not (isinstance(offset, IntegerAttr)
                                       and offset.type == IntegerType(32)):
            raise VerifyException(f"{self.name}: offset must be an i32 integer, got {offset}")

    def verify_(self) -> None:
        if self._gather_cmp():
            self._verify_gather_cmp()
            return
        kinds = [_operand_kind(v.type) for v in self._order()]
        if kinds[0] != "tile" or bind(self.SPEC, kinds[1:]) is None:
            raise VerifyException(f"{self.name}: operands must be {self.SPEC.operands[0].name}: "
                                  f"tile, then {signature(self.SPEC)}, got "
                                  f"({', '.join(kinds)})")
        known = {k for k, _ in self.SPEC.attrs}
        for key in self.attributes:
            if key not in known:
                raise VerifyException(f"{self.name}: unsupported attribute '{key}'")
        if getattr(self.SPEC.impl, "text_call", "") == "mrgsort" and len(self.outs) == 2:
            _verify_mrgsort_lists(self, self._order())

    def tile_call(self) -> tuple[list[object], dict[str, object]]:
        """The operands in the Python face's order and the attributes as keywords."""
        names = dict(self.SPEC.attrs)
        kw = dict(getattr(self.SPEC.impl, "text_defaults", ()))
        kw.update({names[k]: _attr_value(v) for k, v in self.attributes.items()})
        if self._gather_cmp():
            # PTOAS's defaults: cmpMode eq, offset 0; the offset is the C++ call's operand
            kw["cmp_mode"] = str(kw.get("cmp_mode", "EQ")).upper()
            return [*self._order(), kw.pop("offset", 0)], kw
        return list(self._order()), kw


_FAMILIES: dict[str, type[IRDLOperation]] = {"scalars": ScalarsOp, "operands": OperandsOp,
                                              "tile_dps": TileDpsOp, "tile_ins": TileInsOp,
                                              "tile_dps_n": TileDpsMultiOp}


def _make(spec: OpSpec) -> type[IRDLOperation]:
    camel = "".join(part.capitalize() for part in spec.name.replace(".", "_").split("_"))
    if spec.syntax == "vector":
        from .vector_ops import make_vector_op
        vcls = make_vector_op(spec, camel)
        vcls.SPEC = spec
        return vcls
    family = _FAMILIES[spec.syntax or ""]
    cls: type[IRDLOperation] = irdl_op_definition(type(f"{camel}Op", (family,), {
        "name": spec.mnemonic, "__doc__": f"``{spec.mnemonic}``"}))
    cls.SPEC = spec  # type: ignore[attr-defined]
    return cls


# Classes are built on first use: building all of them (irdl_op_definition per row)
# costs milliseconds at import, and a kernel names a handful.
_BY_MNEMONIC: dict[str, OpSpec] = {s.mnemonic: s for s in GENERATED}
_MADE: dict[str, type[IRDLOperation]] = {}


def generated_op(mnemonic: str) -> type[IRDLOperation] | None:
    """The op class of a generated row (``"pto.vadd"``), built once; None for other names."""
    cls = _MADE.get(mnemonic)
    if cls is None:
        spec = _BY_MNEMONIC.get(mnemonic)
        if spec is None:
            return None
        cls = _MADE[mnemonic] = _make(spec)
    return cls


def generated_ops() -> tuple[type[IRDLOperation], ...]:
    """Every generated op class, in registry order (builds those not built yet)."""
    return tuple(_MADE.get(s.mnemonic) or _made(s) for s in GENERATED)


def _made(spec: OpSpec) -> type[IRDLOperation]:
    cls = generated_op(spec.mnemonic)
    assert cls is not None
    return cls


def __getattr__(name: str) -> object:
    if name == "GENERATED_OPS":         # the full tuple, for code that lists every op
        return generated_ops()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
