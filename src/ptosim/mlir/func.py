"""MLIR's ``func`` dialect as xDSL 0.74 defines it: ``func.func``, ``func.call`` and
``func.return`` with the same classes, fields, custom syntax, verifiers and messages.

Also the syntax helpers ``scf`` shares with it: the ``attr-dict ($values^ : type($values))?``
tail of return-like ops (xDSL's AbstractYieldOperation).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

from .builtin import ArrayAttr, DictionaryAttr, FunctionType, StringAttr, SymbolRefAttr
from .exceptions import VerifyException
from .ir import Attribute, Block, BlockArgument, Dialect, Operation, Region, SSAValue
from .irdl import (
    AttrConstraint,
    IRDLOperation,
    irdl_op_definition,
    opt_prop_def,
    prop_def,
    region_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from .traits import (
    CallableOpInterface,
    HasParent,
    IsolatedFromAbove,
    IsTerminator,
    ReturnLike,
    SymbolOpInterface,
    SymbolTable,
)

if TYPE_CHECKING:
    from .parser import Parser, UnresolvedOperand
    from .printer import Printer

# Variadic ops' attribute dictionaries may not carry the segment sizes (xDSL's format
# reserves the name)
_SEGMENTS = frozenset({"operandSegmentSizes"})


# --- syntax shared with scf -------------------------------------------------------------
def parse_attr_dict_with_reserved(parser: Parser, reserved: frozenset[str] = _SEGMENTS
                                  ) -> dict[str, Attribute]:
    """``{...}`` if present; names in ``reserved`` are refused as xDSL's format does."""
    attrs = parser.parse_optional_attr_dict()
    if reserved and attrs and (clash := reserved & attrs.keys()):
        parser.raise_error(f"attributes {', '.join(clash)} are defined in other parts of the "
                           "assembly format, and thus should not be defined in the attribute "
                           "dictionary.")
    return attrs


def parse_optional_operand_list(parser: Parser) -> list[UnresolvedOperand] | None:
    """``%a, %b, ...`` without delimiters; None if no operand starts here."""
    return parser.parse_optional_undelimited_comma_separated_list(
        parser.parse_optional_unresolved_operand, parser.parse_unresolved_operand)


def parse_type_list(parser: Parser) -> list[Attribute]:
    """``t1, t2, ...`` without delimiters; possibly empty."""
    types = parser.parse_optional_undelimited_comma_separated_list(
        parser.parse_optional_type, parser.parse_type)
    return [] if types is None else list(types)


def parse_optional_typed_operands(parser: Parser
                                  ) -> tuple[list[UnresolvedOperand], list[Attribute]]:
    """``(%a, %b : t1, t2)?``: xDSL's ``($values^ `:` type($values))?`` group."""
    operands = parse_optional_operand_list(parser)
    if operands is None:
        return [], []
    parser.parse_punctuation(":")
    return operands, parse_type_list(parser)


def print_typed_operands(printer: Printer, values: Sequence[SSAValue]) -> None:
    """`` %a, %b : t1, t2`` (nothing without values)."""
    if values:
        printer.print_string(" ")
        printer.print_list(values, printer.print_ssa_value)
        printer.print_string(" : ")
        printer.print_list([v.type for v in values], printer.print_attribute)


class AbstractYieldOperation(IRDLOperation):
    """A terminator forwarding its operands: ``{attrs} %a, %b : t1, t2``."""

    __slots__ = ()

    arguments = var_operand_def()

    def __init__(self, *operands: SSAValue | Operation) -> None:
        super().__init__(operands=[operands])

    @classmethod
    def parse(cls, parser: Parser) -> Any:
        return parse_return_like(cls, parser)

    def print(self, printer: Printer) -> None:
        print_return_like(printer, self)


def parse_return_like(cls: type[Operation], parser: Parser) -> Any:
    """``{attrs} %a, %b : t1, t2`` (everything optional) into a ``cls`` op."""
    attrs = parse_attr_dict_with_reserved(parser)
    operands, types = parse_optional_typed_operands(parser)
    values = parser.resolve_operands(operands, types, parser.pos)
    return cls.create(operands=values, attributes=attrs)


def print_return_like(printer: Printer, op: Operation) -> None:
    printer.print_op_attributes(op.attributes, reserved_attr_names=_SEGMENTS)
    print_typed_operands(printer, op.operands)


# --- func.func --------------------------------------------------------------------------
class FuncOpCallableInterface(CallableOpInterface):
    __slots__ = ()

    @classmethod
    def get_callable_region(cls, op: Operation) -> Region:
        assert isinstance(op, FuncOp)
        return op.body

    @classmethod
    def get_argument_types(cls, op: Operation) -> tuple[Attribute, ...]:
        assert isinstance(op, FuncOp)
        return op.function_type.inputs.data

    @classmethod
    def get_result_types(cls, op: Operation) -> tuple[Attribute, ...]:
        assert isinstance(op, FuncOp)
        return op.function_type.outputs.data


class _SymbolName(AttrConstraint[StringAttr]):
    """xDSL's SymbolNameConstraint: a StringAttr (message names the attribute)."""

    __slots__ = ()

    def verify(self, attr: Attribute, constraint_context: object = None) -> None:
        if not isinstance(attr, StringAttr):
            raise VerifyException(f"{attr} should be a string")

    def get_bases(self) -> set[type[Attribute]] | None:
        return {StringAttr}


_RESERVED_FUNC = ("sym_name", "function_type", "sym_visibility")


@irdl_op_definition
class FuncOp(IRDLOperation):
    """``func.func [visibility] @name(%a: t {attrs}, ...) -> (r {attrs}, ...)
    [attributes {...}] {body}``; a declaration has no body and lists only types."""

    __slots__ = ()

    name = "func.func"

    body = region_def()
    sym_name = prop_def(_SymbolName())
    function_type = prop_def(FunctionType)
    sym_visibility = opt_prop_def(StringAttr)
    arg_attrs = opt_prop_def(ArrayAttr[DictionaryAttr])
    res_attrs = opt_prop_def(ArrayAttr[DictionaryAttr])

    traits = traits_def(IsolatedFromAbove(), SymbolOpInterface(), FuncOpCallableInterface())

    def __init__(self, name: str,
                 function_type: FunctionType | tuple[Sequence[Attribute], Sequence[Attribute]],
                 region: Region | None = None, visibility: StringAttr | str | None = None,
                 *, arg_attrs: ArrayAttr[DictionaryAttr] | None = None,
                 res_attrs: ArrayAttr[DictionaryAttr] | None = None) -> None:
        if isinstance(visibility, str):
            visibility = StringAttr(visibility)
        if isinstance(function_type, tuple):
            inputs, outputs = function_type
            function_type = FunctionType.from_lists(inputs, outputs)
        if region is None:      # (xDSL: Region.DEFAULT) one block taking the inputs
            region = Region(Block(arg_types=function_type.inputs.data))
        super().__init__(properties={"sym_name": StringAttr(name),
                                     "function_type": function_type,
                                     "sym_visibility": visibility, "arg_attrs": arg_attrs,
                                     "res_attrs": res_attrs}, regions=[region])

    def verify_(self) -> None:
        entry = self.body.blocks.first
        if entry is None:       # a declaration
            return
        if self.function_type.inputs.data != tuple(entry.arg_types):
            raise VerifyException("Expected entry block arguments to have the same types as "
                                  "the function input types")

    @classmethod
    def parse(cls, parser: Parser) -> FuncOp:
        visibility = parser.parse_optional_visibility_keyword()
        name = parser.parse_symbol_name().data

        def parse_attrs_and_loc() -> tuple[dict[str, Attribute], Attribute | None]:
            attrs = parser.parse_optional_dictionary_attr_dict()
            loc = parser.parse_optional_location()
            if loc is not None:     # attributes must come before the location
                pos = parser.pos
                parser.parse_optional_dictionary_attr_dict()
                if parser.pos != pos:
                    parser.raise_error("Expected function argument attributes before "
                                       "location.")
            return attrs, loc

        def parse_input() -> Any:
            arg = parser.parse_optional_argument()
            if arg is None:
                t = parser.parse_optional_type()
                if t is None:
                    parser.raise_error("Expected argument or type")
                parse_attrs_and_loc()   # a type-only input keeps neither
                return t
            attrs, arg.location = parse_attrs_and_loc()
            return arg, attrs

        inputs = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parse_input)
        named = [i for i in inputs if isinstance(i, tuple)]
        if named and len(named) != len(inputs):
            parser.raise_error("Expected all arguments to be named or all arguments to be "
                               "unnamed.")
        if named:
            entry_args: list[Any] | None = [arg for arg, _ in named]
            input_types = [arg.type for arg, _ in named]
        else:
            entry_args = None
            input_types = inputs
        arg_attrs = _attrs_array([a for _, a in named])
        output_types, res_attrs = _parse_func_outputs(parser)
        extra = parser.parse_optional_attr_dict_with_keyword(_RESERVED_FUNC)
        region = parser.parse_optional_region(entry_args)
        func = FuncOp(name, (input_types, output_types), Region() if region is None else region,
                      cast(StringAttr | None, visibility), arg_attrs=arg_attrs,
                      res_attrs=res_attrs)
        if extra is not None:
            func.attributes |= cast(DictionaryAttr, extra).data
        return func

    def print(self, printer: Printer) -> None:
        visibility = self.properties.get("sym_visibility")
        if visibility is not None:
            printer.print_string(" ")
            printer.print_string(visibility.data)  # type: ignore[attr-defined]
        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)
        function_type = self.function_type
        body = self.body
        reserved = ("sym_name", "function_type", "sym_visibility", "arg_attrs")
        entry = body.blocks.first
        if entry is None:       # a declaration: its function type, attributes
            printer.print_attribute(function_type)
            printer.print_op_attributes(self.attributes, reserved_attr_names=reserved,
                                        print_keyword=True)
            return
        printer.print_string("(")
        arg_attrs = self.arg_attrs
        if arg_attrs is not None:
            printer.print_list(zip(entry.args, arg_attrs.data),
                               lambda pair: _print_func_argument(printer, *pair))
        else:
            printer.print_list(entry.args, printer.print_block_argument)
        printer.print_string(")")
        _print_func_outputs(printer, function_type.outputs.data, self.res_attrs)
        printer.print_op_attributes(self.attributes, reserved_attr_names=reserved,
                                    print_keyword=True)
        printer.print_string(" ")
        printer.print_region(body, False, False)

    @staticmethod
    def external(name: str, input_types: Sequence[Attribute],
                 return_types: Sequence[Attribute]) -> FuncOp:
        return FuncOp(name, (input_types, return_types), Region(), "private")

    @staticmethod
    def from_region(name: str, input_types: Sequence[Attribute],
                    return_types: Sequence[Attribute], region: Region | None = None,
                    visibility: StringAttr | str | None = None) -> FuncOp:
        return FuncOp(name, (input_types, return_types), region, visibility)

    def get_return_op(self) -> ReturnOp | None:
        """The function's final ``func.return``, or None (a declaration, another
        terminator)."""
        last_block = self.body.blocks.last
        if last_block is None:
            return None
        ret = last_block.last_op
        return ret if isinstance(ret, ReturnOp) else None

    @property
    def args(self) -> tuple[BlockArgument, ...]:
        """The entry block's arguments."""
        assert not self.is_declaration, "Function declarations don't have BlockArguments!"
        block = self.body.blocks.first
        assert block is not None
        return block.args

    @property
    def is_declaration(self) -> bool:
        """A function without a body."""
        return not self.body.blocks


def _parse_func_outputs(parser: Parser) -> tuple[list[Attribute], ArrayAttr | None]:
    """``-> t``, ``-> (t {attrs}, ...)`` or nothing: the result types, and their
    attributes if any result has some."""
    if parser.parse_optional_punctuation("->") is None:
        return [], None
    results = parser.parse_optional_comma_separated_list(
        parser.Delimiter.PAREN,
        lambda: (parser.parse_type(), parser.parse_optional_dictionary_attr_dict()))
    if results is None:
        return [parser.parse_type()], None
    if not results:
        return [], None
    return [t for t, _ in results], _attrs_array([a for _, a in results])


def _attrs_array(attrs: Sequence[dict[str, Attribute]]) -> ArrayAttr | None:
    """Each argument's (or result's) attributes as ``arg_attrs`` (``res_attrs``) hold
    them; None if none has any."""
    return ArrayAttr([DictionaryAttr(a) for a in attrs]) if any(attrs) else None


def _print_func_outputs(printer: Printer, outputs: Sequence[Attribute],
                        res_attrs: ArrayAttr | None) -> None:
    """`` -> t``, `` -> (t1, t2)``, `` -> (t {attrs}, ...)``; nothing without results."""
    if not outputs:
        return
    printer.print_string(" -> ")
    parens = len(outputs) > 1 or res_attrs is not None
    if parens:
        printer.print_string("(")
    if res_attrs is None:
        printer.print_list(outputs, printer.print_attribute)
    else:
        printer.print_list(zip(outputs, res_attrs.data),
                           lambda pair: _print_func_output(printer, *pair))
    if parens:
        printer.print_string(")")


def _print_func_argument(printer: Printer, arg: BlockArgument, attrs: DictionaryAttr | None
                         ) -> None:
    """``%a: t {attrs} loc(...)`` (attributes before the location, as MLIR reads them)."""
    printer.print_block_argument(arg, print_type=False)
    printer.print_string(": ")
    _print_func_output(printer, arg.type, attrs)
    if printer.print_debuginfo:
        printer.print_string(" ")
        printer.print_attribute(arg.location)


def _print_func_output(printer: Printer, out_type: Attribute, attrs: DictionaryAttr | None
                       ) -> None:
    """``t {attrs}``."""
    printer.print_attribute(out_type)
    if attrs is not None and attrs.data:
        printer.print_op_attributes(attrs.data)


# --- func.call, func.return -------------------------------------------------------------
class _FlatSymbolRef(AttrConstraint[SymbolRefAttr]):
    """xDSL's FlatSymbolRefAttrConstr: a SymbolRefAttr without nested references."""

    __slots__ = ()

    def verify(self, attr: Attribute, constraint_context: object = None) -> None:
        if not isinstance(attr, SymbolRefAttr):
            why = f"{attr} should be of base attribute {SymbolRefAttr.name}"
        elif attr.nested_references.data:
            why = f"expected empty array, but got {attr.nested_references}"
        else:
            return
        raise VerifyException("Expected SymbolRefAttr with no nested symbols.\n"
                              f"Underlying verification failure: {why}")

    def get_bases(self) -> set[type[Attribute]] | None:
        return {SymbolRefAttr}


_FLAT_SYMBOL_REF = _FlatSymbolRef()


@irdl_op_definition
class CallOp(IRDLOperation):
    """``func.call @f(%a, %b) {attrs} : (t1, t2) -> r``."""

    __slots__ = ()

    name = "func.call"
    arguments = var_operand_def()
    callee = prop_def(_FLAT_SYMBOL_REF)
    res = var_result_def()

    def __init__(self, callee: str | SymbolRefAttr, arguments: Sequence[SSAValue | Operation],
                 return_types: Sequence[Attribute]) -> None:
        if isinstance(callee, str):
            callee = SymbolRefAttr(callee)
        super().__init__(operands=[arguments], result_types=[return_types],
                         properties={"callee": callee})

    def verify_(self) -> None:
        self.verify_callee()

    def verify_callee(self, symbols: Mapping[str, Operation] | None = None) -> None:
        """xDSL's CallOpSymbolUserOpInterface (all of `verify_`): the callee is a func.func
        of the nearest symbol table whose signature matches the call. ``symbols``: that
        table's ops by symbol name, for a flat callee, if the caller has collected them
        (a verifier of many calls then need not scan the table for each); None looks the
        callee up."""
        callee = self.callee
        if symbols is None:
            found = SymbolTable.lookup_symbol(self, callee)
        else:
            found = symbols.get(callee.root_reference.data)
        if not found:
            raise VerifyException(f"'{callee}' could not be found in symbol table")
        if not isinstance(found, FuncOp):
            raise VerifyException(f"'{callee}' does not reference a valid function")
        inputs, outputs = found.function_type.inputs.data, found.function_type.outputs.data
        if len(inputs) != len(self.arguments):
            raise VerifyException("incorrect number of operands for callee")
        if len(outputs) != len(self.results):
            raise VerifyException("incorrect number of results for callee")
        for i, (want, got) in enumerate(zip(inputs, (a.type for a in self.arguments))):
            if want != got:
                raise VerifyException(f"operand type mismatch: expected operand type {want}, "
                                      f"but provided {got} for operand number {i}")
        for i, (want, got) in enumerate(zip(outputs, self.result_types)):
            if want != got:
                raise VerifyException(f"result type mismatch: expected result type {want}, "
                                      f"but provided {got} for result number {i}")

    @classmethod
    def parse(cls, parser: Parser) -> CallOp:
        callee = parser.parse_attribute()
        parser.parse_punctuation("(")
        arguments = parse_optional_operand_list(parser) or []
        parser.parse_punctuation(")")
        attrs = parse_attr_dict_with_reserved(parser)
        parser.parse_punctuation(":")
        parser.parse_punctuation("(")
        input_types = parse_type_list(parser)
        parser.parse_punctuation(")")
        parser.parse_punctuation("->")
        if parser.parse_optional_punctuation("(") is not None:
            output_types = parse_type_list(parser)
            parser.parse_punctuation(")")
        else:
            output_types = [parser.parse_type()]
        _FLAT_SYMBOL_REF.verify(callee)     # xDSL's format checks it while parsing
        operands = parser.resolve_operands(arguments, input_types, parser.pos)
        return cls.create(operands=operands, result_types=output_types,
                          properties={"callee": callee}, attributes=attrs)

    def print(self, printer: Printer) -> None:
        callee = self.properties.get("callee")
        if callee is not None:
            printer.print_string(" ")
            printer.print_attribute(callee)
        printer.print_string("(")
        printer.print_list(self.operands, printer.print_ssa_value)
        printer.print_string(")")
        printer.print_op_attributes(self.attributes, reserved_attr_names=_SEGMENTS)
        printer.print_string(" : (")
        printer.print_list(self.operand_types, printer.print_attribute)
        printer.print_string(") -> ")
        results = self.result_types
        if len(results) == 1:
            printer.print_attribute(results[0])
        else:
            printer.print_string("(")
            printer.print_list(results, printer.print_attribute)
            printer.print_string(")")


@irdl_op_definition
class ReturnOp(IRDLOperation):
    """``func.return {attrs} %a, %b : t1, t2``."""

    __slots__ = ()

    name = "func.return"
    arguments = var_operand_def()

    traits = traits_def(HasParent(FuncOp), IsTerminator(), ReturnLike())

    def __init__(self, *return_vals: SSAValue | Operation) -> None:
        super().__init__(operands=[return_vals])

    def verify_(self) -> None:
        func_op = self.parent_op()
        assert isinstance(func_op, FuncOp)
        expected = func_op.function_type.outputs
        got = self.arguments.types
        if expected.data != got:
            raise VerifyException("Expected arguments to have the same types as the function "
                                  f"output types: expected {expected}, got {ArrayAttr(got)}")

    @classmethod
    def parse(cls, parser: Parser) -> ReturnOp:
        return parse_return_like(cls, parser)

    def print(self, printer: Printer) -> None:
        print_return_like(printer, self)


Func = Dialect("func", [FuncOp, CallOp, ReturnOp], [])
