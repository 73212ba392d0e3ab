"""DMA micro ops: the burst copies (``mte_gm_ub`` and siblings) and ``mte_gm_l1_frac``.

Burst syntax (``%l2`` only on mte_gm_ub; ``loop`` and ``pad`` only where the op has them)::

    pto.mte_gm_ub %src, %dst, %l2, %len nburst(%n, %ss, %ds) [loop(%c, %s, %d)]*
        [pad(%v[, %left, %right])]
      : !pto.ptr<T, gm>, !pto.ptr<T, ub>, i64, i64, i64, i64, i64
        [, loop i64, i64, i64]* [, pad T[, i64, i64]]

``loop1``/``loop2`` are accepted for ``loop``; ``loop`` is printed.
"""

from __future__ import annotations

from typing import ClassVar

from ..mlir.builtin import StringAttr
from ..mlir.ir import SSAValue
from ..mlir.irdl import (
    AttrSizedOperandSegments,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    prop_def,
    var_operand_def,
)
from ..mlir.parser import Parser
from ..mlir.printer import Printer
from .base import MicroOp, Slot, require, triples
from .syntax import (
    Operands,
    choice,
    comma,
    keyword,
    parse_types,
    print_group,
    print_types,
    print_values,
    reject_extra_types,
)

_LOOP_WORDS = ("loop", "loop1", "loop2")
_BURST_CLAUSES = ("nburst",) + _LOOP_WORDS + ("pad",)


class _BurstDma(MicroOp):
    """Shared body of the burst DMA ops; class flags say which parts an op has."""

    HAS_L2: ClassVar[bool] = False
    HAS_LOOP: ClassVar[bool] = False
    HAS_PAD: ClassVar[bool] = False
    NAMES: ClassVar[tuple[str, str]] = ("src", "dst")

    src = operand_def()
    dst = operand_def()
    l2_cache = opt_operand_def()
    length = operand_def()
    nburst = var_operand_def()
    loops = var_operand_def()
    pad = var_operand_def()

    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    @classmethod
    def parse(cls, parser: Parser) -> _BurstDma:
        ops = Operands(parser, cls.name)
        heads = [cls.NAMES[0], cls.NAMES[1]] + (["l2_cache_ctl"] if cls.HAS_L2 else []) \
            + ["len_burst"]
        ops.add_list(heads, ["ptr", "ptr"] + ["int"] * (len(heads) - 2))
        keyword(parser, "nburst", cls.name, "after len_burst")
        ops.add_group("nburst", ("count", "src_stride", "dst_stride"), "int")
        n_loops = 0
        while cls.HAS_LOOP and parser.parse_optional_keyword_in(_LOOP_WORDS) is not None:
            ops.add_group(f"loop[{n_loops}]", ("count", "src_stride", "dst_stride"), "int")
            n_loops += 1
        n_pad = 0
        if cls.HAS_PAD and parser.parse_optional_keyword("pad") is not None:
            parser.parse_punctuation("(", " after pad")
            ops.add("pad value", "number")
            n_pad = 1
            if parser.parse_optional_punctuation(",") is not None:
                ops.add_list(["pad left_count", "pad right_count"], "int")
                n_pad = 3
            parser.parse_punctuation(")", " to close pad(...)")
        _reject_misplaced_clause(parser, cls)
        parser.parse_punctuation(":", f" before the type list of {cls.name}")
        n_base = len(heads) + 3
        types = parse_types(parser, n_base, cls.name)
        for i in range(n_loops):
            comma(parser, cls.name, f"before the types of loop[{i}]")
            choice(parser, _LOOP_WORDS, cls.name, f"'loop' types for loop[{i}]")
            types += parse_types(parser, 3, cls.name)
        if n_pad:
            comma(parser, cls.name, "before the types of pad")
            keyword(parser, "pad", cls.name, "in the type list")
            types += parse_types(parser, n_pad, cls.name)
        reject_extra_types(parser, cls.name)
        values = ops.resolve(types)
        head, rest = values[:len(heads)], values[len(heads):]
        return cls.build(operands=[
            head[0], head[1], head[2:3] if cls.HAS_L2 else None, head[-1], rest[:3],
            rest[3:3 + 3 * n_loops], rest[3 + 3 * n_loops:]])

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        print_values(printer, self._heads())
        printer.print_string(" ")
        print_group(printer, "nburst", self.nburst)
        for loop in triples(self.loops):
            printer.print_string(" ")
            print_group(printer, "loop", loop)
        if self.pad:
            printer.print_string(" ")
            print_group(printer, "pad", self.pad)
        printer.print_string(" : ")
        print_types(printer, list(self._heads()) + list(self.nburst))
        for loop in triples(self.loops):
            printer.print_string(", loop ")
            print_types(printer, loop)
        if self.pad:
            printer.print_string(", pad ")
            print_types(printer, self.pad)

    def _heads(self) -> list[SSAValue]:
        l2 = [self.l2_cache] if self.l2_cache is not None else []
        return [self.src, self.dst, *l2, self.length]

    def check_shape(self) -> None:
        require(len(self.nburst) == 3, f"{self.name}: nburst takes 3 operands")
        require((self.l2_cache is not None) == self.HAS_L2,
                f"{self.name}: l2_cache_ctl operand {'missing' if self.HAS_L2 else 'unexpected'}")
        require(len(self.loops) % 3 == 0 and (self.HAS_LOOP or not self.loops),
                f"{self.name}: loop clauses take 3 operands each"
                + ("" if self.HAS_LOOP else " and are not allowed"))
        require(len(self.pad) in ((0, 1, 3) if self.HAS_PAD else (0,)),
                f"{self.name}: pad takes 1 or 3 operands")

    def slots(self) -> list[Slot]:
        names = [*self.NAMES] + (["l2_cache_ctl"] if self.HAS_L2 else []) + ["len_burst"]
        kinds = ["ptr", "ptr"] + ["int"] * (len(names) - 2)
        out = [(n, v, k) for n, v, k in zip(names, self._heads(), kinds)]
        out += [(f"nburst[{i}]", v, "int") for i, v in enumerate(self.nburst)]
        out += [(f"loop operand {i}", v, "int") for i, v in enumerate(self.loops)]
        out += [(f"pad[{i}]", v, "int" if i else "number") for i, v in enumerate(self.pad)]
        return out

    def python_call(self) -> tuple[list[object], dict[str, object]]:
        kw: dict[str, object] = {"nburst": tuple(self.nburst)}
        if self.loops:
            kw["loop"] = triples(self.loops)
        if self.pad:
            kw["pad"] = tuple(self.pad)
        return list(self._heads()), kw


def _reject_misplaced_clause(parser: Parser, cls: type[_BurstDma]) -> None:
    """A clause keyword where ':' belongs: out of order, repeated or not allowed here."""
    pos = parser.pos
    word = parser.parse_optional_keyword_in(_BURST_CLAUSES)
    if word is None:
        return
    allowed = ["nburst"] + (["loop"] if cls.HAS_LOOP else []) + (["pad"] if cls.HAS_PAD else [])
    base = "loop" if word in _LOOP_WORDS else word
    if base not in allowed:
        parser.raise_error(f"{cls.name}: {word}(...) is not a clause of this op "
                           f"(clauses: {' '.join(allowed)})", pos)
    parser.raise_error(f"{cls.name}: {word}(...) is out of order or repeated (order: "
                       f"nburst(...) {'[loop(...)]* ' if cls.HAS_LOOP else ''}"
                       f"{'[pad(...)]' if cls.HAS_PAD else ''})".rstrip(), pos)


@irdl_op_definition
class MteGmUbOp(_BurstDma):
    """GM -> UB burst copy (MTE2)."""

    name = "pto.mte_gm_ub"
    HAS_L2: ClassVar[bool] = True
    HAS_LOOP: ClassVar[bool] = True
    HAS_PAD: ClassVar[bool] = True
    NAMES: ClassVar[tuple[str, str]] = ("gm_src", "ub_dst")


@irdl_op_definition
class MteUbGmOp(_BurstDma):
    """UB -> GM burst copy (MTE3)."""

    name = "pto.mte_ub_gm"
    HAS_LOOP: ClassVar[bool] = True
    NAMES: ClassVar[tuple[str, str]] = ("ub_src", "gm_dst")


@irdl_op_definition
class MteGmL1Op(_BurstDma):
    """GM -> L1 burst copy (MTE2)."""

    name = "pto.mte_gm_l1"
    HAS_LOOP: ClassVar[bool] = True


@irdl_op_definition
class MteL1UbOp(_BurstDma):
    """L1 -> UB copy in 32 B units and gaps (MTE1)."""

    name = "pto.mte_l1_ub"
    HAS_LOOP: ClassVar[bool] = True


@irdl_op_definition
class MteUbUbOp(_BurstDma):
    """UB -> UB copy in 32 B units and gaps."""

    name = "pto.mte_ub_ub"
    NAMES: ClassVar[tuple[str, str]] = ("ub_src", "ub_dst")


@irdl_op_definition
class MteUbL1Op(_BurstDma):
    """UB -> L1 copy in 32 B units and gaps (AIV MTE3)."""

    name = "pto.mte_ub_l1"
    NAMES: ClassVar[tuple[str, str]] = ("ub_src", "l1_dst")


@irdl_op_definition
class MteL1BtOp(_BurstDma):
    """L1 -> bias table."""

    name = "pto.mte_l1_bt"


@irdl_op_definition
class MteL1FbOp(_BurstDma):
    """L1 -> FIXPIPE parameter buffer."""

    name = "pto.mte_l1_fb"


# --- GM -> L1 with ND/DN -> NZ packing ----------------------------------------------------
_FRAC_MODES = ("nd2nz", "dn2nz")


@irdl_op_definition
class MteGmL1FracOp(MicroOp):
    """GM -> L1 NZ fractal load::

        pto.mte_gm_l1_frac %src, %dst, nd2nz, shape(%n, %d), src_layout(%inner[, %outer]),
            dst_group(%g, %l2, %l3, %l4), ctrl(%l2cache, %smallc0)
          : !pto.ptr<T, gm>, !pto.ptr<T, l1>, nd2nz, shape i64, i64, src_layout(i64[, i64]),
            dst_group i64, i64, i64, i64, ctrl i64, i1
    """

    name = "pto.mte_gm_l1_frac"

    src = operand_def()
    dst = operand_def()
    shape = var_operand_def()
    src_layout = var_operand_def()
    dst_group = var_operand_def()
    ctrl = var_operand_def()
    mode = prop_def(StringAttr)

    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    @classmethod
    def parse(cls, parser: Parser) -> MteGmL1FracOp:
        name = cls.name
        ops = Operands(parser, name)
        ops.add_list(["src", "dst"], "ptr")
        comma(parser, name, "before the mode")
        mode = choice(parser, _FRAC_MODES, name, "a mode")
        comma(parser, name, "before shape(...)")
        keyword(parser, "shape", name)
        ops.add_group("shape", ("n_value", "d_value"), "int")
        comma(parser, name, "before src_layout(...)")
        keyword(parser, "src_layout", name)
        parser.parse_punctuation("(", " after src_layout")
        ops.add("src_layout inner_stride", "int")
        n_layout = 1
        if parser.parse_optional_punctuation(",") is not None:
            ops.add("src_layout outer_stride", "int")
            n_layout = 2
        parser.parse_punctuation(")", " to close src_layout(...)")
        comma(parser, name, "before dst_group(...)")
        keyword(parser, "dst_group", name)
        ops.add_group("dst_group", ("count", "loop2", "loop3", "loop4"), "int")
        comma(parser, name, "before ctrl(...)")
        keyword(parser, "ctrl", name)
        ops.add_group("ctrl", ("l2_cache_ctrl", "smallc0_en"), ("int", "flag"))
        parser.parse_punctuation(":", f" before the type list of {name}")
        types = parse_types(parser, 2, name)
        comma(parser, name, "after the pointer types")
        pos = parser.pos
        if choice(parser, _FRAC_MODES, name, "the mode") != mode:
            parser.raise_error(f"{name}: the type list repeats mode {mode}, not this one", pos)
        comma(parser, name, "before shape types")
        keyword(parser, "shape", name, "in the type list")
        types += parse_types(parser, 2, name)
        comma(parser, name, "before src_layout types")
        keyword(parser, "src_layout", name, "in the type list")
        parser.parse_punctuation("(", " after src_layout in the type list")
        types += parse_types(parser, n_layout, name)
        parser.parse_punctuation(")", f" after {n_layout} src_layout type(s)")
        comma(parser, name, "before dst_group types")
        keyword(parser, "dst_group", name, "in the type list")
        types += parse_types(parser, 4, name)
        comma(parser, name, "before ctrl types")
        keyword(parser, "ctrl", name, "in the type list")
        types += parse_types(parser, 2, name)
        reject_extra_types(parser, name)
        v = ops.resolve(types)
        return cls.build(operands=[v[0], v[1], v[2:4], v[4:4 + n_layout],
                                   v[4 + n_layout:8 + n_layout], v[8 + n_layout:]],
                         properties={"mode": StringAttr(mode)})

    def print(self, printer: Printer) -> None:
        mode = self.mode.data
        printer.print_string(" ")
        print_values(printer, [self.src, self.dst])
        printer.print_string(f", {mode}, ")
        for i, (clause, vals) in enumerate(self._clauses()):
            printer.print_string(", " if i else "")
            print_group(printer, clause, vals)
        printer.print_string(" : ")
        print_types(printer, [self.src, self.dst])
        printer.print_string(f", {mode}, shape ")
        print_types(printer, self.shape)
        printer.print_string(", src_layout(")
        print_types(printer, self.src_layout)
        printer.print_string("), dst_group ")
        print_types(printer, self.dst_group)
        printer.print_string(", ctrl ")
        print_types(printer, self.ctrl)

    def _clauses(self) -> list[tuple[str, tuple[SSAValue, ...]]]:
        return [("shape", tuple(self.shape)), ("src_layout", tuple(self.src_layout)),
                ("dst_group", tuple(self.dst_group)), ("ctrl", tuple(self.ctrl))]

    def check_shape(self) -> None:
        require(self.mode.data in _FRAC_MODES, f"{self.name}: mode must be nd2nz or dn2nz")
        require(len(self.shape) == 2 and len(self.src_layout) in (1, 2)
                and len(self.dst_group) == 4 and len(self.ctrl) == 2,
                f"{self.name}: clause arity is shape(2) src_layout(1|2) dst_group(4) ctrl(2)")

    def slots(self) -> list[Slot]:
        out: list[Slot] = [("src", self.src, "ptr"), ("dst", self.dst, "ptr")]
        for clause, vals in self._clauses():
            out += [(f"{clause}[{i}]", v, "flag" if clause == "ctrl" and i else "int")
                    for i, v in enumerate(vals)]
        return out

    def python_call(self) -> tuple[list[object], dict[str, object]]:
        return [self.src, self.dst, self.mode.data], dict(self._clauses())
