"""MLIR's ``scf`` dialect as xDSL 0.74 defines it: ``scf.for``, ``scf.if``, ``scf.yield``,
``scf.while`` / ``scf.condition``, ``scf.execute_region``, ``scf.index_switch`` and
``scf.parallel`` / ``scf.reduce`` / ``scf.reduce.return``, with the same classes, fields,
custom syntax (including which terminators are implied and left unprinted), verifiers and
messages.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

from .arith import (
    _int_or_index,
    _parse_type_suffix,
    _print_type_suffix,
    _signless,
    _verify_values,
)
from .builtin import DenseArrayBase, DictionaryAttr, IndexType, IntegerType, i1, i64
from .exceptions import VerifyException
from .func import (
    AbstractYieldOperation,
    parse_attr_dict_with_reserved,
    parse_optional_operand_list,
    parse_optional_typed_operands,
    parse_type_list,
    print_typed_operands,
)
from .ir import Attribute, Block, Dialect, Operation, Region, SSAValue
from .irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    lazy_traits_def,
    operand_def,
    prop_def,
    region_def,
    traits_def,
    var_operand_def,
    var_region_def,
    var_result_def,
)
from .traits import (
    HasParent,
    IsTerminator,
    Pure,
    RecursivelySpeculatable,
    RecursiveMemoryEffect,
    SingleBlockImplicitTerminator,
    ensure_terminator,
)

if TYPE_CHECKING:
    from .parser import Parser, UnresolvedOperand
    from .printer import Printer


def _print_assignment(printer: Printer, arg: SSAValue, value: SSAValue) -> None:
    """``%arg = %value``."""
    printer.print_ssa_value(arg)
    printer.print_string(" = ")
    printer.print_ssa_value(value)


def _parse_assignment(parser: Parser) -> tuple[Any, UnresolvedOperand]:
    """``%arg = %value`` (xDSL's parse_assignment)."""
    arg = parser.parse_argument(expect_type=False)
    parser.parse_characters("=")
    return arg, parser.parse_unresolved_operand()


def _print_result_types(printer: Printer, types: Sequence[Attribute]) -> bool:
    """`` -> (t1, t2)`` if there are results; whether there are."""
    if not types:
        return False
    printer.print_string(" -> (")
    printer.print_list(types, printer.print_attribute)
    printer.print_string(")")
    return True


def _print_region_with_yield(printer: Printer, region: Region, print_yield: bool) -> None:
    """`` {region}`` without entry block arguments, its ``scf.yield`` left implied unless
    ``print_yield``."""
    printer.print_string(" ")
    printer.print_region(region, print_entry_block_args=False,
                         print_block_terminators=print_yield)


@irdl_op_definition
class WhileOp(IRDLOperation):
    """``scf.while (%arg = %init, ...) : (ins) -> outs {before} do {after}
    [attributes {...}]``."""

    __slots__ = ()

    name = "scf.while"
    arguments = var_operand_def()

    res = var_result_def()
    before_region = region_def("single_block")
    after_region = region_def("single_block")

    traits = traits_def(RecursiveMemoryEffect())

    def __init__(self, arguments: Sequence[SSAValue | Operation],
                 result_types: Sequence[Attribute],
                 before_region: Region | Sequence[Operation] | Sequence[Block],
                 after_region: Region | Sequence[Operation] | Sequence[Block]) -> None:
        super().__init__(operands=[arguments], result_types=[result_types],
                         regions=[before_region, after_region])

    def verify_(self) -> None:
        # (xDSL raises a plain Exception here, and indexes the block arguments unchecked)
        for values, region in ((self.arguments, self.before_region),
                               (self.res, self.after_region)):
            for idx, value in enumerate(values):
                if (got := region.block.args[idx].type) != value.type:
                    raise Exception(f"Block arguments with wrong type, expected {value.type}, "
                                    f"got {got}")

    def print(self, printer: Printer) -> None:
        printer.print_string(" (")
        printer.print_list(zip(self.before_region.block.args, self.arguments, strict=True),
                           lambda pair: _print_assignment(printer, *pair))
        printer.print_string(") : ")
        printer.print_operation_type(self)
        printer.print_string(" ")
        printer.print_region(self.before_region, print_entry_block_args=False)
        printer.print_string(" do ")
        printer.print_region(self.after_region)
        if self.attributes:
            printer.print_op_attributes(self.attributes, print_keyword=True)

    @classmethod
    def parse(cls, parser: Parser) -> WhileOp:
        def parse_assignment() -> tuple[Any, UnresolvedOperand]:
            arg = parser.parse_argument(expect_type=False)
            parser.parse_punctuation("=")
            return arg, parser.parse_unresolved_operand()

        pairs = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parse_assignment)
        parser.parse_punctuation(":")
        type_pos = parser.pos
        function_type = parser.parse_function_type()
        inputs = function_type.inputs.data
        if len(pairs) != len(inputs):
            parser.raise_error(f"Mismatch between block argument count ({len(pairs)}) and "
                               f"operand count ({len(inputs)})", type_pos, parser.pos)
        block_args = [arg.resolve(t) for (arg, _), t in zip(pairs, inputs)]
        arguments = [parser.resolve_operand(operand, t) for (_, operand), t in zip(pairs, inputs)]
        before_region = parser.parse_region(block_args)
        parser.parse_characters("do")
        after_region = parser.parse_region()
        attrs = parser.parse_optional_attr_dict_with_keyword()
        op = cls(arguments, function_type.outputs.data, before_region, after_region)
        if attrs is not None:
            op.attributes |= cast(DictionaryAttr, attrs).data
        return op


@irdl_op_definition
class YieldOp(AbstractYieldOperation):
    """``scf.yield %a, %b : t1, t2``: ends the region of its parent scf op."""

    __slots__ = ()

    name = "scf.yield"

    traits = lazy_traits_def(lambda: (
        IsTerminator(),
        HasParent(ForOp, IfOp, ExecuteRegionOp, WhileOp, IndexSwitchOp),
        Pure(),
    ))


@irdl_op_definition
class ExecuteRegionOp(IRDLOperation):
    """``scf.execute_region [-> (types)] {region}``: runs its region once. As in xDSL, an
    attribute dictionary after the region is read and dropped."""

    __slots__ = ()

    name = "scf.execute_region"

    outs = var_result_def()
    region = region_def()

    def __init__(self, result_types: Sequence[Attribute], region: Region,
                 attr_dict: dict[str, Attribute] | None = None) -> None:
        super().__init__(result_types=(result_types,), regions=(region,))

    @classmethod
    def parse(cls, parser: Parser) -> ExecuteRegionOp:
        if parser.parse_optional_punctuation("->"):
            result_types = parser.parse_optional_comma_separated_list(
                parser.Delimiter.PAREN, parser.parse_type)
            if result_types is None:
                result_types = [parser.parse_type()]
        else:
            result_types = []
        region = parser.parse_region()
        attr_dict = parser.parse_optional_attr_dict()
        return cls(result_types, region, attr_dict)

    def print(self, printer: Printer) -> None:
        has_results = _print_result_types(printer, self.outs.types)
        _print_region_with_yield(printer, self.region, has_results)
        if self.attributes:
            printer.print_attr_dict(self.attributes)

    def verify_(self) -> None:
        if self.region.first_block is None:
            raise VerifyException("scf.execute_region op region needs to have at least one "
                                  "block")


def _parse_region_with_yield(parser: Parser) -> Region:
    """A region whose block gets an ``scf.yield`` unless it already ends in a
    terminator (an empty region gets a block)."""
    region = parser.parse_region()
    block = region.blocks.last
    if block is None:
        block = Block()
        region.add_block(block)
    last_op = block.last_op
    if last_op is None or not last_op.has_trait(IsTerminator):
        block.add_op(YieldOp())
    return region


@irdl_op_definition
class IfOp(IRDLOperation):
    """``scf.if %cond [-> (types)] {then} [else {else}] [{attrs}]``; without results the
    ``scf.yield`` ending each region is implied and not printed."""

    __slots__ = ()

    name = "scf.if"
    output = var_result_def()
    cond = operand_def(i1)

    true_region = region_def("single_block")
    false_region = region_def()

    traits = traits_def(SingleBlockImplicitTerminator(YieldOp), RecursiveMemoryEffect(),
                        RecursivelySpeculatable())

    def __init__(self, cond: SSAValue | Operation, return_types: Sequence[Attribute],
                 true_region: Region | Sequence[Block] | Sequence[Operation],
                 false_region: Region | Sequence[Block] | Sequence[Operation] | None = None,
                 attr_dict: dict[str, Attribute] | None = None) -> None:
        if false_region is None:
            false_region = Region()
        super().__init__(operands=[cond], result_types=[return_types],
                         regions=[true_region, false_region], attributes=attr_dict)

    parse_region_with_yield = staticmethod(_parse_region_with_yield)

    @classmethod
    def parse(cls, parser: Parser) -> IfOp:
        cond = parser.parse_operand(i1)
        return_types: list[Attribute] = []
        if parser.parse_optional_punctuation("->"):
            return_types = parser.parse_comma_separated_list(parser.Delimiter.PAREN,
                                                             parser.parse_type)
        then_region = _parse_region_with_yield(parser)
        else_region = _parse_region_with_yield(parser) \
            if parser.parse_optional_keyword("else") else Region()
        attr_dict = parser.parse_optional_attr_dict()
        return cls(cond, return_types, then_region, else_region, attr_dict)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_ssa_value(self.cond)
        has_results = _print_result_types(printer, self.output.types)
        _print_region_with_yield(printer, self.true_region, has_results)
        if self.false_region.blocks:
            printer.print_string(" else")
            _print_region_with_yield(printer, self.false_region, has_results)
        if self.attributes:
            printer.print_attr_dict(self.attributes)


def _loop_var_error(t: Attribute) -> str | None:
    """xDSL's ``base(IndexType) | SignlessIntegerConstraint`` for loop bounds."""
    return _signless(t) if isinstance(t, IntegerType) else _int_or_index(t)


@irdl_op_definition
class ForOp(IRDLOperation):
    """``scf.for %i = %lb to %ub step %step [iter_args(%a = %init, ...) -> (types)]
    [: type] {body}``: the ``: type`` only for a non-index loop variable; without
    iter_args the ``scf.yield`` ending the body is implied and not printed."""

    __slots__ = ()

    name = "scf.for"

    lb = operand_def(Attribute)
    ub = operand_def(Attribute)
    step = operand_def(Attribute)

    iter_args = var_operand_def()

    res = var_result_def()

    body = region_def("single_block")

    traits = traits_def(SingleBlockImplicitTerminator(YieldOp), RecursiveMemoryEffect())

    def __init__(self, lb: SSAValue | Operation, ub: SSAValue | Operation,
                 step: SSAValue | Operation, iter_args: Sequence[SSAValue | Operation],
                 body: Region | Sequence[Operation] | Sequence[Block] | Block) -> None:
        if isinstance(body, Block):
            body = [body]
        super().__init__(operands=[lb, ub, step, iter_args],
                         result_types=[[SSAValue.get(a).type for a in iter_args]],
                         regions=[body])

    def verify_(self) -> None:
        _verify_values((("operand", "lb", 0, self.lb.type, _loop_var_error),   # type var T
                        ("operand", "ub", 1, self.ub.type, _loop_var_error),
                        ("operand", "step", 2, self.step.type, _loop_var_error)))
        if not self.body.block.args:
            raise VerifyException("Body block must have induction var as first block arg")
        indvar, *block_iter_args = self.body.block.args
        iter_args = self.iter_args
        n = len(iter_args)
        for opnd in (self.lb, self.ub, self.step):
            if opnd.type != indvar.type:
                raise VerifyException("Expected induction var to be same type as bounds and "
                                      "step")
        if n + 1 != len(block_iter_args) + 1:
            raise VerifyException(
                f"Expected {n + 1} args, but got {len(block_iter_args) + 1}. Body block must "
                "have induction and loop-carried variables as args.")
        for i, arg in enumerate(iter_args):
            if block_iter_args[i].type != arg.type:
                raise VerifyException(
                    f"Block arg #{i + 1} expected to be {arg.type}, but got "
                    f"{block_iter_args[i].type}. Block args after the induction variable must "
                    "match the loop-carried variables.")
        last_op = self.body.block.last_op
        if isinstance(last_op, YieldOp):
            yielded = last_op.arguments
            if len(yielded) != n:
                raise VerifyException(
                    f"{last_op.name} expected {n} args, but got {len(yielded)}. The "
                    f"{self.name} must yield its loop-carried variables.")
            for i, arg in enumerate(yielded):
                if iter_args[i].type != arg.type:
                    raise VerifyException(
                        f"Expected yield arg #{i} to be {iter_args[i].type}, but got "
                        f"{arg.type}. {last_op.name} of {self.name} must match loop-carried "
                        "variable types.")

    def print(self, printer: Printer) -> None:
        indvar, *iter_args = self.body.block.args
        printer.print_string(" ")
        printer.print_ssa_value(indvar)
        printer.print_string(" = ")
        printer.print_ssa_value(self.lb)
        printer.print_string(" to ")
        printer.print_ssa_value(self.ub)
        printer.print_string(" step ")
        printer.print_ssa_value(self.step)
        if iter_args:
            printer.print_string(" iter_args(")
            printer.print_list(zip(iter_args, self.iter_args),
                               lambda pair: _print_assignment(printer, *pair))
            printer.print_string(") -> (")
            printer.print_list([a.type for a in iter_args], printer.print_attribute)
            printer.print_string(")")
        if not isinstance(indvar.type, IndexType):
            printer.print_string(" : ")
            printer.print_attribute(indvar.type)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False, print_empty_block=False,
                             print_block_terminators=bool(self.iter_args))
        printer.print_op_attributes(self.attributes)

    @classmethod
    def parse(cls, parser: Parser) -> ForOp:
        unresolved_indvar = parser.parse_argument(expect_type=False)
        parser.parse_punctuation("=")
        lb = parser.parse_unresolved_operand()
        parser.parse_keyword("to")
        ub = parser.parse_unresolved_operand()
        parser.parse_keyword("step")
        step = parser.parse_unresolved_operand()

        pos = parser.pos
        unresolved_iter_args: list[Any] = []
        iter_arg_operands: list[UnresolvedOperand] = []
        iter_arg_types: list[Attribute] = []
        if parser.parse_optional_keyword("iter_args"):
            for arg, operand in parser.parse_comma_separated_list(
                    parser.Delimiter.PAREN, lambda: _parse_assignment(parser)):
                unresolved_iter_args.append(arg)
                iter_arg_operands.append(operand)
            parser.parse_punctuation("->")
            iter_arg_types = parser.parse_comma_separated_list(parser.Delimiter.PAREN,
                                                               parser.parse_attribute)
        inits = parser.resolve_operands(iter_arg_operands, iter_arg_types, pos)
        iter_args = [arg.resolve(t) for arg, t in zip(unresolved_iter_args, iter_arg_types)]
        indvar_type = parser.parse_type() if parser.parse_optional_punctuation(":") \
            else IndexType()
        resolved_lb = parser.resolve_operand(lb, indvar_type)
        resolved_ub = parser.resolve_operand(ub, indvar_type)
        resolved_step = parser.resolve_operand(step, indvar_type)
        indvar = unresolved_indvar.resolve(indvar_type)
        body = parser.parse_region((indvar, *iter_args))
        attrs = parser.parse_optional_attr_dict()

        for_op = cls(resolved_lb, resolved_ub, resolved_step, inits, body)
        for_op.attributes |= attrs
        if not iter_args:
            for trait in for_op.get_traits_of_type(SingleBlockImplicitTerminator):
                ensure_terminator(for_op, trait)
        return for_op


@irdl_op_definition
class ParallelOp(IRDLOperation):
    """``scf.parallel``: as in xDSL, only in the generic op form."""

    __slots__ = ()

    name = "scf.parallel"
    lowerBound = var_operand_def(IndexType)
    upperBound = var_operand_def(IndexType)
    step = var_operand_def(IndexType)
    initVals = var_operand_def()
    res = var_result_def()

    body = region_def("single_block")

    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    traits = lazy_traits_def(lambda: (SingleBlockImplicitTerminator(ReduceOp),
                                      RecursiveMemoryEffect()))

    def __init__(self, lower_bounds: Sequence[SSAValue | Operation],
                 upper_bounds: Sequence[SSAValue | Operation],
                 steps: Sequence[SSAValue | Operation],
                 body: Region | Sequence[Block] | Sequence[Operation],
                 init_vals: Sequence[SSAValue | Operation] = ()) -> None:
        super().__init__(operands=[lower_bounds, upper_bounds, steps, init_vals],
                         regions=[body],
                         result_types=[[SSAValue.get(a).type for a in init_vals]])

    def verify_(self) -> None:
        n_lb, n_ub, n_step = len(self.lowerBound), len(self.upperBound), len(self.step)
        if n_lb != n_ub or n_lb != n_step:
            raise VerifyException(
                "Expected the same number of lower bounds, upper bounds, and steps for "
                f"scf.parallel. Got {n_lb}, {n_ub} and {n_step}.")
        body_args = self.body.block.args
        if n_lb != len(body_args):
            raise VerifyException("Number of block arguments must exactly equal the number of "
                                  "induction variables")
        reduce_op = self.body.block.last_op
        assert isinstance(reduce_op, ReduceOp)     # (the terminator trait checked it)
        n_red = len(reduce_op.reductions)
        if len(self.initVals) != n_red:
            raise VerifyException(f"Expected {len(self.initVals)} reductions but {n_red} "
                                  "provided")
        if not all(isinstance(a.type, IndexType) for a in body_args):
            raise VerifyException("scf.parallel's block must have an index argument for each "
                                  "induction variable")
        for i in range(n_red):
            arg_type = reduce_op.args[i].type
            init_type = self.initVals[i].type
            if init_type != arg_type:
                raise VerifyException(
                    f"Miss match on scf.parallel argument and reduction op type number {i} , "
                    f"parallel argment is of type {init_type} whereas reduction operation is "
                    f"of type {arg_type}")
        if n_red != len(self.res):
            raise VerifyException(f"There are {n_red} reductions, but {len(self.res)} results "
                                  "expected")
        for i in range(n_red):
            arg_type = reduce_op.args[i].type
            res_type = self.res[i].type
            if res_type != arg_type:
                raise VerifyException(
                    f"Miss match on scf.parallel result type and reduction op type number {i} "
                    f", parallel argment is of type {res_type} whereas reduction operation is "
                    f"of type {arg_type}")


@irdl_op_definition
class ReduceOp(IRDLOperation):
    """``scf.reduce [(%a, ... : t, ...)] {reduction} ... [{attrs}]``."""

    __slots__ = ()

    name = "scf.reduce"
    args = var_operand_def()

    reductions = var_region_def("single_block")

    traits = lazy_traits_def(lambda: (RecursiveMemoryEffect(), HasParent(ParallelOp),
                                      IsTerminator(),
                                      SingleBlockImplicitTerminator(ReduceReturnOp)))

    def __init__(self, args: Sequence[SSAValue | Operation] = (),
                 regions: Sequence[Region] = ()) -> None:
        super().__init__(operands=(args,), regions=(regions,))

    def verify_(self) -> None:
        if len(self.args) != len(self.reductions):
            raise VerifyException(
                "scf.reduce must have the same number of arguments and regionsbut got "
                f"{len(self.args)} arguments and {len(self.reductions)} regions")
        for region, argument in zip(self.reductions, self.args):
            block_args = region.block.args
            if len(block_args) != 2:
                raise VerifyException("scf.reduce block must have exactly two arguments, but "
                                      f"{len(block_args)} were provided")
            if block_args[0].type != block_args[1].type:
                raise VerifyException("scf.reduce block argument types must be the same but "
                                      f"have {block_args[0].type} and {block_args[1].type}")
            if block_args[0].type != argument.type:
                raise VerifyException("scf.reduce block argument types must match the operand "
                                      f"type  but have {block_args[0].type} and "
                                      f"{argument.type}")
            last_op = region.block.last_op
            assert isinstance(last_op, ReduceReturnOp)
            if last_op.result.type != argument.type:
                raise VerifyException(
                    "scf.reduce.return result type at end of scf.reduce block must match the "
                    f"reduction operand type but have {last_op.result.type} and "
                    f"{argument.type}")

    @classmethod
    def parse(cls, parser: Parser) -> ReduceOp:
        operands: list[UnresolvedOperand] = []
        types: list[Attribute] = []
        if parser.parse_optional_punctuation("(") is not None:
            operands = parse_optional_operand_list(parser) or []
            parser.parse_punctuation(":")
            types = parse_type_list(parser)
            parser.parse_punctuation(")")
        regions: list[Region] = []
        while (region := parser.parse_optional_region()) is not None:
            regions.append(region)
        attrs = parse_attr_dict_with_reserved(parser)
        values = parser.resolve_operands(operands, types, parser.pos)
        return cls.build(operands=(values,), regions=(regions,), attributes=attrs)

    def print(self, printer: Printer) -> None:
        if self.args:
            printer.print_string("(")
            printer.print_list(self.args, printer.print_ssa_value)
            printer.print_string(" : ")
            printer.print_list(self.args.types, printer.print_attribute)
            printer.print_string(")")
        if self.reductions:
            printer.print_string(" ")
            printer.print_list(self.reductions, printer.print_region, delimiter=" ")
        printer.print_op_attributes(self.attributes, reserved_attr_names=_SEGMENTS)


_SEGMENTS = frozenset({"operandSegmentSizes"})


@irdl_op_definition
class ReduceReturnOp(IRDLOperation):
    """``scf.reduce.return %x {attrs} : type``."""

    __slots__ = ()

    name = "scf.reduce.return"
    result = operand_def(Attribute)

    traits = traits_def(HasParent(ReduceOp), IsTerminator(), Pure())

    def __init__(self, result: SSAValue | Operation) -> None:
        super().__init__(operands=[result])

    @classmethod
    def parse(cls, parser: Parser) -> ReduceReturnOp:
        operand = parser.parse_unresolved_operand()
        attrs, t = _parse_type_suffix(parser)
        return cls.create(operands=(parser.resolve_operand(operand, t),), attributes=attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_ssa_value(self.result)
        _print_type_suffix(printer, self, self.result.type)


@irdl_op_definition
class ConditionOp(IRDLOperation):
    """``scf.condition(%cond) {attrs} %a, %b : t1, t2``: ends an scf.while's before
    region, passing its values on (or out) when %cond is true."""

    __slots__ = ()

    name = "scf.condition"
    condition = operand_def(i1)
    args = var_operand_def()

    traits = traits_def(HasParent(WhileOp), IsTerminator(), Pure())

    def __init__(self, condition: SSAValue | Operation, *args: SSAValue | Operation) -> None:
        super().__init__(operands=(condition, args))

    @classmethod
    def parse(cls, parser: Parser) -> ConditionOp:
        parser.parse_punctuation("(")
        condition = parser.parse_unresolved_operand()
        parser.parse_punctuation(")")
        attrs = parse_attr_dict_with_reserved(parser)
        operands, types = parse_optional_typed_operands(parser)
        cond = parser.resolve_operands([condition], [i1], parser.pos)
        values = parser.resolve_operands(operands, types, parser.pos)
        return cls.create(operands=(*cond, *values), attributes=attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string("(")
        printer.print_ssa_value(self.condition)
        printer.print_string(")")
        printer.print_op_attributes(self.attributes, reserved_attr_names=_SEGMENTS)
        print_typed_operands(printer, self.args)


@irdl_op_definition
class IndexSwitchOp(IRDLOperation):
    """``scf.index_switch %i [{attrs}] [-> types] case N {...} ... default {...}``."""

    __slots__ = ()

    name = "scf.index_switch"

    arg = operand_def(IndexType)
    cases = prop_def(DenseArrayBase)

    output = var_result_def()

    default_region = region_def("single_block")
    case_regions = var_region_def("single_block")

    traits = traits_def(RecursiveMemoryEffect(), SingleBlockImplicitTerminator(YieldOp))

    def __init__(self, arg: Operation | SSAValue, cases: DenseArrayBase,
                 default_region: Region, case_regions: Sequence[Region],
                 result_types: Sequence[Attribute],
                 attr_dict: dict[str, Attribute] | None = None) -> None:
        super().__init__(operands=(arg,), attributes=attr_dict, properties={"cases": cases},
                         regions=(default_region, case_regions), result_types=(result_types,))

    def _verify_region(self, region: Region, name: str) -> None:
        yield_op = region.block.last_op
        assert isinstance(yield_op, YieldOp)
        if yield_op.operand_types != self.result_types:
            got = ", ".join(str(x) for x in yield_op.operand_types)
            want = ", ".join(str(x) for x in self.result_types)
            raise VerifyException(f"region {name} returns values of types ({got}) but "
                                  f"expected ({want})")

    def verify_(self) -> None:
        cases = self.cases
        if cases.elt_type != i64:     # xDSL's DenseArrayBase.constr(i64)
            raise VerifyException(f"Expected attribute {i64} but got {cases.elt_type}")
        if len(cases) != len(self.case_regions):
            raise VerifyException(f"has {len(self.case_regions)} case regions but "
                                  f"{len(cases)} case values")
        values = tuple(cases.iter_values())
        if len(set(values)) != len(values):
            raise VerifyException("has duplicate case value")
        self._verify_region(self.default_region, "default")
        for value, region in zip(values, self.case_regions, strict=True):
            self._verify_region(region, str(value))

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_ssa_value(self.arg)
        attr_dict = {k: v for k, v in self.attributes.items() if k != "cases"}
        if attr_dict:
            printer.print_string(" ")
            printer.print_attr_dict(attr_dict)
        if self.result_types:
            printer.print_string(" -> ")
            printer.print_list(self.result_types, printer.print_attribute)
        printer.print_string("\n")
        for value, region in zip(self.cases.iter_values(), self.case_regions, strict=True):
            printer.print_string(f"case {value} ")
            printer.print_region(region)
            printer.print_string("\n")
        printer.print_string("default ")
        printer.print_region(self.default_region)

    @classmethod
    def parse(cls, parser: Parser) -> IndexSwitchOp:
        arg = parser.parse_operand(IndexType())
        attr_dict = parser.parse_optional_attr_dict()
        result_types: list[Attribute] = []
        if parser.parse_optional_punctuation("->"):
            types = parser.parse_optional_undelimited_comma_separated_list(
                parser.parse_optional_type, parser.parse_type)
            if types is None:
                parser.raise_error("result types not found")
            result_types = list(types)
        case_values: list[int] = []
        case_regions: list[Region] = []
        while parser.parse_optional_keyword("case"):
            case_values.append(parser.parse_integer())
            case_regions.append(parser.parse_region())
        cases = DenseArrayBase.from_list(i64, case_values)
        parser.parse_keyword("default")
        default_region = parser.parse_region()
        return cls(arg, cases, default_region, case_regions, result_types, attr_dict)


Scf = Dialect("scf", [IfOp, ForOp, YieldOp, ExecuteRegionOp, ConditionOp, ParallelOp, ReduceOp,
                      ReduceReturnOp, WhileOp, IndexSwitchOp], [])

