"""Vector scopes and the registry-generated vector op family.

::

    pto.vecscope { ... }                                  a vector interval (no terminator)
    pto.strict_vecscope(%a, %b) {                         the same, every outside value
    ^bb0(%x: T, %y: U):                                   passed in as a block argument
      ...
    } : (T, U) -> ()

Every op of the ``vector`` family is one row of `ptosim.isa.vector` and has the form::

    [%r, ... =] pto.<name> <operand>, ... [{attr = "WORD", ...}] [: <types> [-> <results>]]

where an operand is ``%v``, an indexed pointer ``%p[%off]`` or a quoted word
(``"NORM"``). The type list gives the SSA operands' types in order (an indexed pointer's
offset type may be spelled or left out, as PTOAS prints either for different ops); ops
without SSA operands list their result types right after the colon. The row decides the
operand kinds, the legal words, the address spaces and its own type rule (``check``);
the parser reports each violation at the offending token.

Legality (PTO micro-instruction spec, "vecscope"): an op that takes or yields a
``!pto.vreg``, ``!pto.mask`` or ``!pto.align`` lies inside exactly one vecscope; scopes do
not nest.
"""

from __future__ import annotations

from typing import Any, ClassVar

from ..isa import OpSpec
from ..isa.vector_dsa import OUTSIDE_VECSCOPE
from ..mlir.builtin import DictionaryAttr, FunctionType, IndexType, StringAttr
from ..mlir.exceptions import VerifyException
from ..mlir.ir import Attribute, Operation, SSAValue
from ..mlir.irdl import (
    IRDLOperation,
    irdl_op_definition,
    prop_def,
    region_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from ..mlir.parser import Parser, UnresolvedOperand
from ..mlir.printer import Printer
from ..mlir.traits import IsolatedFromAbove, NoTerminator
from .attributes import is_pointer_type, kind_error, ptr_info
from .base import MicroOp, Slot
from .structure_ops import BareRegionOp
from .syntax import comma, parse_type_at
from .vector_types import MaskType, VRegType, is_vector_type

VECSCOPES = ("pto.vecscope", "pto.strict_vecscope")


def enclosing_vecscopes(op: Operation) -> list[Operation]:
    """The vecscope ops around ``op``, innermost first."""
    out = []
    parent = op.parent_op()
    while parent is not None:
        if parent.name in VECSCOPES:
            out.append(parent)
        parent = parent.parent_op()
    return out


def vector_scope_error(op: Operation) -> str | None:
    """Why ``op`` breaks the vecscope rule, or None: any op (scf.for with vreg iter_args,
    func.func with a mask argument ...) that takes, yields or binds a vreg / mask / align
    value lies inside a vecscope."""
    if op.name in VECSCOPES:
        return None
    values = [*op.operands, *op.results,
              *(a for r in op.regions for b in r.blocks for a in b.args)]
    if any(is_vector_type(v.type) for v in values) and not enclosing_vecscopes(op):
        return (f"{op.name} takes, yields or binds vector registers, masks or align state "
                f"outside a pto.vecscope; such values live inside one vecscope")
    return None


class _VecScope(IRDLOperation):
    body = region_def("single_block")
    traits = traits_def(NoTerminator())

    def verify_(self) -> None:
        if enclosing_vecscopes(self):
            raise VerifyException(f"{self.name}: vector scopes do not nest (this one is "
                                  f"inside another vecscope)")


@irdl_op_definition
class VecScopeOp(BareRegionOp, _VecScope):
    """``pto.vecscope { ... }``: one vector interval; may use values from outside."""

    name = "pto.vecscope"

    def verify_(self) -> None:
        super().verify_()
        if self.body.blocks and self.body.block.args:
            raise VerifyException("pto.vecscope: the body takes no block arguments (use "
                                  "pto.strict_vecscope to pass values in)")


@irdl_op_definition
class StrictVecScopeOp(_VecScope):
    """``pto.strict_vecscope(%a, ...) { ^bb0(...): ... } : (T, ...) -> ()``: every outside
    value enters as a block argument (isolated from above)."""

    name = "pto.strict_vecscope"
    captures = var_operand_def()
    traits = traits_def(NoTerminator(), IsolatedFromAbove())

    @classmethod
    def parse(cls, parser: Parser) -> StrictVecScopeOp:
        parser.parse_punctuation("(", " after pto.strict_vecscope")
        operands: list[UnresolvedOperand] = []
        if parser.parse_optional_punctuation(")") is None:
            while True:
                o = parser.parse_optional_unresolved_operand()
                if o is None:
                    parser.raise_error("pto.strict_vecscope: expected a captured SSA value")
                operands.append(o)
                if parser.parse_optional_punctuation(",") is None:
                    break
            parser.parse_punctuation(")", " to close the capture list")
        region = parser.parse_region()
        parser.parse_punctuation(":", " before the functional type of pto.strict_vecscope")
        pos = parser.pos
        ftype = parser.parse_type()
        inputs = list(ftype.inputs.data) if isinstance(ftype, FunctionType) else None
        if inputs is None or len(inputs) != len(operands):
            parser.raise_error(f"pto.strict_vecscope: expected a functional type with "
                               f"{len(operands)} inputs, as in (T, ...) -> ()", pos)
        values = [parser.resolve_operand(o, t) for o, t in zip(operands, inputs)]
        block = region.blocks.first
        if block is None or len(block.args) != len(values):
            parser.raise_error(f"pto.strict_vecscope: the body block takes one argument per "
                               f"capture ({len(values)})", pos)
        return cls.build(operands=[values], regions=[region])

    def print(self, printer: Printer) -> None:
        printer.print_string("(")
        printer.print_list(self.captures, printer.print_operand)
        printer.print_string(") ")
        printer.print_region(self.body, print_entry_block_args=True, print_empty_block=True)
        printer.print_string(" : (")
        printer.print_list([v.type for v in self.captures], printer.print_attribute)
        printer.print_string(") -> ()")

    def verify_(self) -> None:
        super().verify_()
        args = self.body.block.args if self.body.blocks else ()
        if len(args) != len(self.captures) or any(
                a.type != c.type for a, c in zip(args, self.captures)):
            raise VerifyException("pto.strict_vecscope: the block arguments must match the "
                                  "captured values one for one, type for type")


# --- the generic vector family --------------------------------------------------------------
def type_info(t: Attribute) -> Any:
    """What a row's ``check`` sees of a type: vreg -> dtype name, mask -> G, pointer ->
    (dtype, space), anything else -> its text."""
    if isinstance(t, VRegType):
        return t.dtype_name
    if isinstance(t, MaskType):
        return t.g
    if is_pointer_type(t):
        return ptr_info(t)
    return str(t)


def _kind_of(kind: str) -> str:
    return "number" if kind == "scalar" else kind


class VectorOp(MicroOp):
    """One op of the registry's ``vector`` family (see the module doc)."""

    SPEC: ClassVar[OpSpec]
    values = var_operand_def()
    outs = var_result_def()
    word_dict = prop_def(DictionaryAttr, prop_name="words")   # quoted operands and attrs

    # -- parsing ------------------------------------------------------------------------
    @classmethod
    def parse(cls, parser: Parser) -> VectorOp:
        spec, name = cls.SPEC, cls.name
        words: dict[str, str] = {}
        ssa: list[tuple[str, UnresolvedOperand, str, int]] = []   # label, operand, kind, pos
        for i, o in enumerate(spec.operands):
            if i:
                comma(parser, name, f"before {o.name}")
            pos = parser.pos
            if o.kind == "str":
                word = parser.parse_optional_str_literal()
                if word is None or word not in o.choices:
                    got = f'"{word}"' if word is not None else "something else"
                    parser.raise_error(f"{name}: {o.name} must be one of "
                                       f"{', '.join(o.choices)} (quoted), got {got}", pos)
                words[o.name] = word
                continue
            operand = parser.parse_optional_unresolved_operand()
            if operand is None:
                parser.raise_error(f"{name}: expected SSA operand for {o.name}", pos)
            ssa.append((o.name, operand, o.kind, pos))
            if o.indexed:
                parser.parse_punctuation("[", f" after {o.name} (the form is %p[%offset])")
                pos = parser.pos
                off = parser.parse_optional_unresolved_operand()
                if off is None:
                    parser.raise_error(f"{name}: expected the element offset of {o.name}", pos)
                ssa.append((f"{o.name} offset", off, "int", pos))
                parser.parse_punctuation("]", f" to close {o.name}[...]")
        apos = parser.pos
        attrs = parser.parse_optional_attr_dict()
        legal = {a.name: a for a in spec.options}
        for key, value in attrs.items():
            if key not in legal:
                parser.raise_error(f"{name}: unknown attribute '{key}'"
                                   + (f" (known: {', '.join(legal)})" if legal else ""), apos)
            word = value.data if isinstance(value, StringAttr) else None
            if word not in legal[key].choices:
                parser.raise_error(f"{name}: {key} must be one of "
                                   f"{', '.join(legal[key].choices)}, got {value}", apos)
            words[key] = word
        values, result_types = cls._parse_types(parser, ssa)
        props = {"words": DictionaryAttr({k: StringAttr(v) for k, v in words.items()})}
        op = cls.build(operands=[values], result_types=[result_types], properties=props)
        op._check_row(parser, apos)
        return op

    @classmethod
    def _parse_types(cls, parser: Parser, ssa: list[tuple[str, UnresolvedOperand, str, int]]
                     ) -> tuple[list[SSAValue], list[Attribute]]:
        spec, name = cls.SPEC, cls.name
        n_results = len(spec.results)
        n_required = sum(not r.optional for r in spec.results)
        if not ssa and not n_results:
            return [], []
        parser.parse_punctuation(":", f" before the type list of {name}")
        types: list[tuple[Attribute, int]] = []
        if ssa:
            types.append(parse_type_at(parser))
            while parser.parse_optional_punctuation(",") is not None:
                types.append(parse_type_at(parser))
        results: list[tuple[Attribute, int]] = []
        if n_results and (not ssa or parser.parse_optional_punctuation("->") is not None):
            results.append(parse_type_at(parser))
            while len(results) < n_results and \
                    parser.parse_optional_punctuation(",") is not None:
                results.append(parse_type_at(parser))
        elif n_required:
            parser.raise_error(f"{name}: expected '->' and the result type"
                               f"{'s' if n_results > 1 else ''}")
        if not n_required <= len(results) <= n_results:
            parser.raise_error(f"{name}: expected {n_required}"
                               + (f" to {n_results}" if n_required != n_results else "")
                               + f" result types, got {len(results)}")
        # the type list: in ``type_order`` (operand names), offsets optionally spelled
        main = [s for s in ssa if not s[0].endswith(" offset")]
        order = spec.type_order or tuple(s[0] for s in main)
        by_label = {s[0]: s for s in ssa}
        with_offsets: list[str] = []
        for label in order:
            with_offsets.append(label)
            if f"{label} offset" in by_label:
                with_offsets.append(f"{label} offset")
        if len(types) == len(with_offsets):
            labels = with_offsets
        elif len(types) == len(order):
            labels = list(order)
        else:
            pos = types[-1][1] if types else parser.pos
            parser.raise_error(f"{name}: {len(order)} operands but {len(types)} types in the "
                               f"type list", pos)
        typed = dict(zip(labels, types))
        values = []
        for label, operand, kind, pos in ssa:
            if label in typed:
                t, tpos = typed[label]
            else:
                t, tpos = IndexType(), pos
            if (why := kind_error(_kind_of(kind), t)) is not None:
                parser.raise_error(f"{name}: {label} {why}", tpos)
            known = parser.ssa_values.get(operand.operand_name)
            if known is not None and operand.index < len(known) \
                    and known[operand.index].type != t:
                if label not in typed:          # an unspelled offset takes the value's type
                    t = known[operand.index].type
                    if (why := kind_error("int", t)) is not None:
                        parser.raise_error(f"{name}: {label} {why}", pos)
                else:
                    parser.raise_error(f"{name}: {label} is typed {t} in the type list but "
                                       f"%{operand.operand_name} has type "
                                       f"{known[operand.index].type}", operand.span)
            values.append(parser.resolve_operand(operand, t))
        out = []
        for r, (t, tpos) in zip(spec.results, results):
            if (why := kind_error(_kind_of(r.kind), t)) is not None:
                parser.raise_error(f"{name}: result {r.name} {why}", tpos)
            out.append(t)
        return values, out

    def _check_row(self, parser: Parser | None, pos: int = 0) -> None:
        """Pointer spaces and the row's own type rule (at parse time and on verify)."""
        why = self.row_error()
        if why is not None:
            if parser is not None:
                parser.raise_error(f"{self.name}: {why}", pos)
            raise VerifyException(f"{self.name}: {why}")

    def row_error(self) -> str | None:
        spec = self.SPEC
        info = self.type_map()
        for o in spec.operands:
            if o.kind == "ptr" and o.space and o.name in info:
                space = info[o.name][1]
                if space not in o.space:
                    return (f"{o.name} must point into {' or '.join(o.space)}, got a {space} "
                            f"pointer")
        return spec.check(info) if spec.check is not None else None

    # -- accessors ------------------------------------------------------------------------
    def words(self) -> dict[str, str]:
        return {k: v.data for k, v in self.word_dict.data.items()}  # type: ignore[attr-defined]

    def labelled(self) -> list[tuple[str, SSAValue]]:
        out = []
        it = iter(self.values)
        for o in self.SPEC.operands:
            if o.kind == "str":
                continue
            out.append((o.name, next(it)))
            if o.indexed:
                out.append((f"{o.name} offset", next(it)))
        return out

    def type_map(self) -> dict[str, Any]:
        info: dict[str, Any] = {label: type_info(v.type) for label, v in self.labelled()}
        for r, res in zip(self.SPEC.results, self.outs):
            info[r.name] = type_info(res.type)
        words = self.words()
        for a in self.SPEC.options:
            info[a.name] = words.get(a.name, a.default)
        for o in self.SPEC.operands:
            if o.kind == "str":
                info[o.name] = words.get(o.name)
        info["vregs"] = {label for label, v in self.labelled() if isinstance(v.type, VRegType)}
        info["post_update"] = len(self.outs) > sum(not r.optional for r in self.SPEC.results)
        return info

    # -- printing ---------------------------------------------------------------------------
    def print(self, printer: Printer) -> None:
        spec = self.SPEC
        words = self.words()
        if spec.operands:
            printer.print_string(" ")
        it = iter(self.values)
        first = True
        for o in spec.operands:
            if not first:
                printer.print_string(", ")
            first = False
            if o.kind == "str":
                printer.print_string(f'"{words[o.name]}"')
                continue
            printer.print_operand(next(it))
            if o.indexed:
                printer.print_string("[")
                printer.print_operand(next(it))
                printer.print_string("]")
        attrs = [(a.name, words[a.name]) for a in spec.options if a.name in words]
        if attrs:
            printer.print_string(" {" + ", ".join(f'{k} = "{w}"' for k, w in attrs) + "}")
        labelled = dict(self.labelled())
        order = spec.type_order or tuple(o.name for o in spec.operands if o.kind != "str")
        types: list[Attribute] = []
        for label in order:
            types.append(labelled[label].type)
            if spec.typed_offset and f"{label} offset" in labelled:
                types.append(labelled[f"{label} offset"].type)
        if types or self.outs:
            printer.print_string(" : ")
        printer.print_list(types, printer.print_attribute)
        if self.outs:
            printer.print_string(" -> " if types else "")
            printer.print_list([r.type for r in self.outs], printer.print_attribute)

    # -- the Python face --------------------------------------------------------------------
    def slots(self) -> list[Slot]:
        kinds = {o.name: o.kind for o in self.SPEC.operands}
        return [(label, v, "int" if label.endswith(" offset") else _kind_of(kinds[label]))
                for label, v in self.labelled()]

    def check_shape(self) -> None:
        spec = self.SPEC
        n = sum(1 + o.indexed for o in spec.operands if o.kind != "str")
        if len(self.values) != n:
            raise VerifyException(f"{self.name} takes {n} SSA operands")
        n_required = sum(not r.optional for r in spec.results)
        if not n_required <= len(self.outs) <= len(spec.results):
            raise VerifyException(f"{self.name} has {n_required} results")

    def verify_(self) -> None:
        super().verify_()
        for r, res in zip(self.SPEC.results, self.outs):
            if (why := kind_error(_kind_of(r.kind), res.type)) is not None:
                raise VerifyException(f"{self.name}: result {r.name} {why}")
        self._check_row(None)
        if self.SPEC.name in OUTSIDE_VECSCOPE and enclosing_vecscopes(self):
            raise VerifyException(f"{self.name} must not be inside a pto.vecscope: it is a "
                                  f"UB-to-UB helper, not a vector-register op")
        uses_vector = any(is_vector_type(v.type) for v in (*self.values, *self.outs))
        if uses_vector and not enclosing_vecscopes(self):
            raise VerifyException(f"{self.name} takes or yields vector registers, masks or "
                                  f"align state: it must be inside a pto.vecscope")

    def python_call(self) -> tuple[list[object], dict[str, object]]:
        spec = self.SPEC
        words = self.words()
        it = iter(self.values)
        pos: list[object] = []
        for o in spec.operands:
            if o.kind == "str":
                pos.append(words[o.name])
                continue
            pos.append(next(it))
            if o.indexed:
                pos.append(next(it))
        kw: dict[str, object] = {a.name: words[a.name] for a in spec.options if a.name in words}
        if spec.result_kw is not None and self.outs:
            kw[spec.result_kw] = type_info(self.outs[0].type)
        if len(self.outs) > sum(not r.optional for r in spec.results):
            kw["post_update"] = True
        return pos, kw


def make_vector_op(spec: OpSpec, camel: str) -> type[MicroOp]:
    cls: type[MicroOp] = irdl_op_definition(type(f"{camel}Op", (VectorOp,), {
        "name": spec.mnemonic, "__doc__": f"``{spec.mnemonic}``"}))
    return cls

