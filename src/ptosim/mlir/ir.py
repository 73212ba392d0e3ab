"""The IR: attributes, SSA values, operations, blocks, regions and dialects.

The classes mirror xDSL 0.74's ``xdsl.ir`` (names, constructors, attributes and the
behaviour ptosim relies on) with plain ``__slots__`` classes instead of dataclasses:

- Attributes are immutable and compared by class and contents (`Data`: its ``data``;
  `ParametrizedAttribute`: its parameters, declared as class annotations and collected by
  ``irdl_attr_definition``). Construction verifies them.
- Values, operations, blocks and regions are compared by identity. A block keeps its ops
  in a doubly linked list, a region its blocks; every value knows its uses.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from io import StringIO
from typing import (
    TYPE_CHECKING,
    Any,
    ClassVar,
    Generic,
    NoReturn,
    TypeAlias,
    TypeVar,
    cast,
)

from .exceptions import VerifyException
from .traits import IsTerminator, NoTerminator, OpTrait, OpTraitInvT

if TYPE_CHECKING:
    from typing import Self

    from .builtin import LocationAttr
    from .parser import AttrParser, Parser
    from .printer import Printer

__all__ = [
    "Attribute",
    "AttributeCovT",
    "AttributeInvT",
    "Block",
    "BlockArgument",
    "BlockOps",
    "BuiltinAttribute",
    "Data",
    "Dialect",
    "ErasedSSAValue",
    "IRNode",
    "IRUses",
    "OpResult",
    "OpTraits",
    "OpaqueSyntaxAttribute",
    "Operation",
    "ParametrizedAttribute",
    "Region",
    "RegionBlocks",
    "SSAValue",
    "SSAValues",
    "SpacedOpaqueSyntaxAttribute",
    "TypeAttribute",
    "TypedAttribute",
    "Use",
]


class FrozenInstanceError(AttributeError):
    """Assignment to a field of an immutable attribute."""


# --- location default -------------------------------------------------------------------
# Ops and block arguments default to builtin's UNKNOWN_LOC; builtin imports this module, so
# the default is looked up on first use and kept here.
_unknown_loc_value: Any = None


def _unknown_loc() -> LocationAttr:
    global _unknown_loc_value
    if _unknown_loc_value is None:
        from .builtin import UNKNOWN_LOC

        _unknown_loc_value = UNKNOWN_LOC
    return cast("LocationAttr", _unknown_loc_value)


# --- dialects ---------------------------------------------------------------------------
class Dialect:
    """A named collection of operation and attribute classes."""

    __slots__ = ("_attributes", "_interfaces", "_name", "_operations")

    def __init__(self, name: str, operations: Sequence[type[Operation]] = (),
                 attributes: Sequence[type[Attribute]] = (),
                 interfaces: Sequence[object] = ()) -> None:
        self._name = name
        self._operations = list(operations)
        self._attributes = list(attributes)
        self._interfaces = list(interfaces)

    @property
    def name(self) -> str:
        return self._name

    @property
    def operations(self) -> Iterator[type[Operation]]:
        return iter(self._operations)

    @property
    def attributes(self) -> Iterator[type[Attribute]]:
        return iter(self._attributes)

    @staticmethod
    def split_name(name: str) -> tuple[str, str]:
        """``"dialect.rest"`` -> ``("dialect", "rest")``."""
        parts = name.split(".", 1)
        if len(parts) != 2:
            raise ValueError(f"Invalid operation or attribute name {name}.")
        return parts[0], parts[1]

    def __repr__(self) -> str:
        return (f"Dialect(_name={self._name!r}, _operations={self._operations!r}, "
                f"_attributes={self._attributes!r})")


# --- attributes -------------------------------------------------------------------------
class Attribute:
    """A compile-time value: a type, or a constant attached to an operation.

    Subclasses are immutable; ``verify`` (called on construction) checks invariants."""

    __slots__ = ()

    name: ClassVar[str] = ""

    def __setattr__(self, key: str, value: object) -> NoReturn:
        raise FrozenInstanceError(f"cannot assign to field '{key}'")

    def __delattr__(self, key: str) -> NoReturn:
        raise FrozenInstanceError(f"cannot delete field '{key}'")

    def _verify(self) -> None:
        self.verify()

    def verify(self) -> None:
        """Raise VerifyException if the attribute breaks an invariant."""

    def __str__(self) -> str:
        from .printer import Printer

        out = StringIO()
        Printer(stream=out).print_attribute(self)
        return out.getvalue()


class TypeAttribute(Attribute):
    """Marker: the attribute is a type (printed with ``!`` rather than ``#``)."""

    __slots__ = ()


class BuiltinAttribute(Attribute):
    """Marker: a builtin attribute, printed by ``print_builtin`` without a prefix."""

    __slots__ = ()

    def print_builtin(self, printer: Printer) -> None:
        raise NotImplementedError


class OpaqueSyntaxAttribute(Attribute):
    """Marker: printed in MLIR's opaque form ``#dialect<name ...>``."""

    __slots__ = ()


class SpacedOpaqueSyntaxAttribute(OpaqueSyntaxAttribute):
    __slots__ = ()


DataElement = TypeVar("DataElement", covariant=True)
AttributeCovT = TypeVar("AttributeCovT", bound=Attribute, covariant=True)
AttributeInvT = TypeVar("AttributeInvT", bound=Attribute)


class Data(Attribute, Generic[DataElement]):
    """An attribute wrapping one hashable Python value, ``data``."""

    __slots__ = ("_hash", "data")

    data: DataElement
    _hash: int

    def __init__(self, data: DataElement) -> None:
        object.__setattr__(self, "data", data)
        self._verify()

    @classmethod
    def new(cls, params: Any) -> Self:
        """Build from the data without calling the subclass's ``__init__``."""
        attr = cls.__new__(cls)
        object.__setattr__(attr, "data", params)
        attr._verify()
        return attr

    @classmethod
    def get(cls, attr: Any) -> Self:
        """``attr`` if it already is an instance of this class, else ``cls.new(attr)``."""
        return attr if isinstance(attr, cls) else cls.new(attr)

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> DataElement:
        raise NotImplementedError

    def print_parameter(self, printer: Printer) -> None:
        raise NotImplementedError

    def __eq__(self, other: object) -> bool:
        return self is other or (other.__class__ is self.__class__
                                 and self.data == other.data)

    def __hash__(self) -> int:
        try:
            return self._hash
        except AttributeError:
            h = hash((self.__class__, self.data))
            object.__setattr__(self, "_hash", h)
            return h

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(data={self.data!r})"


class ParametrizedAttribute(Attribute):
    """An attribute whose contents are other attributes, its parameters.

    Parameters are declared as class annotations (``element: Attribute``) in order, base
    classes first; ``irdl_attr_definition`` collects them. Each is readable by name, and
    all of them as ``parameters``."""

    __slots__ = ("_hash", "_params")

    _hash: int
    _params: tuple[Any, ...]
    # set per class by irdl_attr_definition: the parameter names in order, and the checks
    # their annotations ask for (None until the first construction resolves them; a base
    # class may set () to skip them for its undecorated subclasses)
    _PARAM_NAMES_: ClassVar[tuple[str, ...]] = ()
    _PARAM_CHECKS_: ClassVar[tuple[tuple[str, Any], ...] | None] = None

    def __init__(self, *parameters: Any) -> None:
        names = self._PARAM_NAMES_
        if len(parameters) != len(names):
            raise ValueError(f"{self.__class__.__name__} takes {len(names)} parameters, "
                             f"got {len(parameters)}")
        setter = object.__setattr__
        for n, p in zip(names, parameters):
            setter(self, n, p)
        setter(self, "_params", parameters)
        self._verify()

    @classmethod
    def new(cls, params: Sequence[Any]) -> Self:
        """Build from the parameters without calling the subclass's ``__init__``
        (parsers and generic code use this)."""
        attr = cls.__new__(cls)
        names = cls._PARAM_NAMES_
        params = tuple(params)
        if len(params) != len(names):
            raise ValueError(f"{cls.__name__} takes {len(names)} parameters, "
                             f"got {len(params)}")
        setter = object.__setattr__
        for n, p in zip(names, params):
            setter(attr, n, p)
        setter(attr, "_params", params)
        attr._verify()
        return attr

    @property
    def parameters(self) -> tuple[Any, ...]:
        return self._params

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        """The generic ``<p, ...>`` parameter list (none if there is no ``<``)."""
        return parser.parse_paramattr_parameters()

    def print_parameters(self, printer: Printer) -> None:
        printer.print_paramattr_parameters(self.parameters)

    @classmethod
    def get_irdl_definition(cls) -> Any:
        from .irdl import ParamAttrDef

        return ParamAttrDef.of(cls)

    def _verify(self) -> None:
        checks = self._PARAM_CHECKS_
        if checks is None:
            from .irdl import _param_checks

            checks = _param_checks(self.__class__)
        for field, constr in checks:
            try:
                constr.verify(getattr(self, field))
            except VerifyException as e:
                raise VerifyException(f"parameter '{field}' does not verify:\n{e}") from e
        self.verify()

    def __eq__(self, other: object) -> bool:
        return self is other or (other.__class__ is self.__class__
                                 and self._params == other._params)

    def __hash__(self) -> int:
        try:
            return self._hash
        except AttributeError:
            h = hash((self.__class__, self._params))
            object.__setattr__(self, "_hash", h)
            return h

    def __repr__(self) -> str:
        fields = ", ".join(f"{n}={getattr(self, n)!r}" for n in self._PARAM_NAMES_)
        return f"{self.__class__.__name__}({fields})"


class TypedAttribute(ParametrizedAttribute):
    """An attribute with a ``type`` parameter."""

    __slots__ = ()

    @classmethod
    def get_type_index(cls) -> int:
        return cls._PARAM_NAMES_.index("type")

    def get_type(self) -> Attribute:
        return cast(Attribute, self.parameters[self.get_type_index()])

    @staticmethod
    def parse_with_type(parser: AttrParser, type: Attribute) -> TypedAttribute:
        raise NotImplementedError

    def print_without_type(self, printer: Printer) -> None:
        raise NotImplementedError


# --- uses and values --------------------------------------------------------------------
class Use:
    """Operand ``index`` of ``operation`` (or its successor ``index`` for a block)."""

    __slots__ = ("_index", "_operation")

    def __init__(self, operation: Operation, index: int) -> None:
        self._operation = operation
        self._index = index

    @property
    def operation(self) -> Operation:
        return self._operation

    @property
    def index(self) -> int:
        return self._index

    def __repr__(self) -> str:
        return f"<Use {id(self)}(_operation={_short_repr(self._operation)}, _index={self._index})>"


class IRUses:
    """The uses of a value or block, newest first (a multi-pass iterable)."""

    __slots__ = ("ir",)

    def __init__(self, ir: SSAValue | Block) -> None:
        self.ir = ir

    def __iter__(self) -> Iterator[Use]:
        uses = self.ir._uses
        return reversed(uses) if uses else iter(())

    def __bool__(self) -> bool:
        return bool(self.ir._uses)

    def get_length(self) -> int:
        return len(self.ir._uses) if self.ir._uses else 0


_VALUE_NAME = re.compile(r"[A-Za-z_$.-][\w$.-]*")
_VALUE_NAME_SUFFIX = re.compile(r"_\d+$")


def _valid_name(cls: type, name: str | None) -> str | None:
    """``name`` without a trailing ``_<digits>``; ValueError if it is not a valid name."""
    if name is None:
        return None
    if _VALUE_NAME.fullmatch(name) is None:
        raise ValueError(f"Invalid {cls.__name__} name format `{name}`.",
                         "Make sure names contain only characters of [A-Za-z0-9_$.-] and "
                         "don't start with a number.")
    m = _VALUE_NAME_SUFFIX.search(name)
    return name[:m.start()] if m else name


class SSAValue(Generic[AttributeCovT]):
    """A value: an operation result or a block argument, with its type and its uses."""

    # ``type`` is a plain slot (xDSL: a read-only property): it is read very often
    __slots__ = ("_name", "_uses", "type")

    type: AttributeCovT
    _name: str | None
    _uses: list[Use] | None

    def __init__(self, type: AttributeCovT) -> None:
        self.type = type
        self._name = None
        self._uses = None

    @property
    def owner(self) -> Operation | Block:
        raise NotImplementedError

    @property
    def name_hint(self) -> str | None:
        return self._name

    @name_hint.setter
    def name_hint(self, name: str | None) -> None:
        self._name = _valid_name(self.__class__, name)

    @classmethod
    def is_valid_name(cls, name: str | None) -> bool:
        return name is None or _VALUE_NAME.fullmatch(name) is not None

    @classmethod
    def extract_valid_name(cls, name: str | None) -> str | None:
        return _valid_name(cls, name)

    # uses
    @property
    def uses(self) -> IRUses:
        return IRUses(self)

    @property
    def first_use(self) -> Use | None:
        return self._uses[-1] if self._uses else None

    def add_use(self, use: Use) -> None:
        if self._uses is None:
            self._uses = [use]
        else:
            self._uses.append(use)

    def remove_use(self, use: Use) -> None:
        uses = self._uses
        if uses:
            for i in range(len(uses) - 1, -1, -1):
                if uses[i] is use:
                    del uses[i]
                    return

    def has_one_use(self) -> bool:
        return self._uses is not None and len(self._uses) == 1

    def has_more_than_one_use(self) -> bool:
        return self._uses is not None and len(self._uses) > 1

    def get_unique_use(self) -> Use | None:
        return self._uses[0] if self._uses is not None and len(self._uses) == 1 else None

    def get_user_of_unique_use(self) -> Operation | None:
        use = self.get_unique_use()
        return None if use is None else use.operation

    @staticmethod
    def get(arg: SSAValue | Operation, *, type: Any = None) -> SSAValue:
        """``arg`` itself, or the single result of operation ``arg``; with ``type`` (an
        attribute class), check the value's type is one."""
        if isinstance(arg, Operation):
            if len(arg.results) != 1:
                raise ValueError("SSAValue.get: expected operation with a single result.")
            arg = arg.results[0]
        if type is not None and type is not Attribute and not isinstance(arg.type, type):
            raise ValueError(f"SSAValue.get: Expected {type} but got SSAValue with type "
                             f"{arg.type}.")
        return arg

    def replace_all_uses_with(self, value: SSAValue) -> None:
        """Make every user use ``value`` instead (it takes over the name if it has none)."""
        if value is self:
            return
        for use in tuple(self.uses):
            use._operation._set_operand(use._index, value)
        if value._name is None:
            value._name = self._name

    replace_by = replace_all_uses_with

    def replace_uses_with_if(self, value: SSAValue, predicate: Callable[[Use], bool]) -> None:
        for use in tuple(self.uses):
            if predicate(use):
                use._operation._set_operand(use._index, value)
        if value._name is None:
            value._name = self._name

    def erase(self, safe_erase: bool = True) -> None:
        """Drop the value; its remaining users (allowed only without ``safe_erase``) get
        an `ErasedSSAValue`."""
        if safe_erase and self._uses:
            raise ValueError("Attempting to delete SSA value that still has uses of result "
                             f"of operation:\n{self.owner}")
        self.replace_all_uses_with(ErasedSSAValue(self.type, self))

    # equality and hashing are object identity (the defaults, fast as dict keys)


class OpResult(SSAValue[AttributeCovT]):
    """Result ``index`` of operation ``op``."""

    __slots__ = ("index", "op")

    op: Operation
    index: int

    def __init__(self, type: AttributeCovT, op: Operation, index: int) -> None:
        self.type = type
        self._name = None
        self._uses = None
        self.op = op
        self.index = index

    @property
    def owner(self) -> Operation:
        return self.op

    def __repr__(self) -> str:
        return (f"<{self.__class__.__name__}[{self.type}] name_hint: {self._name}, index: "
                f"{self.index}, operation: {self.op.name}, uses: {self.uses.get_length()}>")


class BlockArgument(SSAValue[AttributeCovT]):
    """Argument ``index`` of ``block``."""

    __slots__ = ("block", "index", "location")

    block: Block
    index: int
    location: LocationAttr

    def __init__(self, type: AttributeCovT, block: Block, index: int,
                 location: LocationAttr | None = None) -> None:
        self.type = type
        self._name = None
        self._uses = None
        self.block = block
        self.index = index
        if location is None:
            location = _unknown_loc_value if _unknown_loc_value is not None \
                else _unknown_loc()
        self.location = location

    @property
    def owner(self) -> Block:
        return self.block

    def __repr__(self) -> str:
        return (f"<{self.__class__.__name__}[{self.type}] name_hint: {self._name}, index: "
                f"{self.index}, uses: {self.uses.get_length()}>")


class ErasedSSAValue(SSAValue):
    """Stands for an erased value that is still used."""

    __slots__ = ("old_value",)

    def __init__(self, type: Attribute, old_value: SSAValue) -> None:
        super().__init__(type)
        self.old_value = old_value

    @property
    def owner(self) -> Operation | Block:
        return self.old_value.owner


SSAValueCovT = TypeVar("SSAValueCovT", bound=SSAValue, covariant=True)


class SSAValues(tuple[SSAValueCovT, ...]):
    """A tuple of values that also gives their ``types``."""

    __slots__ = ()

    @property
    def types(self) -> tuple[Attribute, ...]:
        return tuple(v.type for v in self)


_NO_VALUES: SSAValues[Any] = SSAValues()


# --- traits container ---------------------------------------------------------------------
class OpTraits:
    """The traits of an op class, produced on first use by ``gen_traits`` (so traits may
    name op classes defined later)."""

    __slots__ = ("_cache", "_traits", "gen_traits")

    def __init__(self, gen_traits: Callable[[], tuple[OpTrait, ...]]) -> None:
        self.gen_traits = gen_traits
        self._traits: frozenset[OpTrait] | None = None
        self._cache: dict[Any, OpTrait | None] = {}

    @property
    def traits(self) -> frozenset[OpTrait]:
        if self._traits is None:
            self._traits = frozenset(self.gen_traits())
        return self._traits

    def add_trait(self, trait: OpTrait) -> None:
        self._traits = self.traits.union((trait,))
        self._cache.clear()

    def __iter__(self) -> Iterator[OpTrait]:
        return iter(self.traits)

    def __contains__(self, trait: object) -> bool:
        return trait in self.traits

    def __eq__(self, other: object) -> bool:
        return isinstance(other, OpTraits) and self.traits == other.traits

    __hash__ = None  # type: ignore[assignment]

    def get(self, trait: type[OpTraitInvT] | OpTraitInvT) -> OpTraitInvT | None:
        try:
            return self._cache[trait]  # type: ignore[return-value]
        except KeyError:
            pass
        found: OpTrait | None = None
        if isinstance(trait, type):
            for t in self.traits:
                if isinstance(t, trait):
                    found = t
                    break
        else:
            for t in self.traits:
                if t == trait:
                    found = t
                    break
        self._cache[trait] = found
        return found  # type: ignore[return-value]


_NO_TRAITS = OpTraits(lambda: ())


# --- operations ---------------------------------------------------------------------------
def _short_repr(value: object) -> str:
    return repr(value) if value is None else f"<{value.__class__.__name__} {id(value)}>"


class _IRNode:
    __slots__ = ()

    @property
    def parent_node(self) -> IRNode | None:
        raise NotImplementedError

    def is_ancestor(self, op: IRNode) -> bool:
        """Whether ``self`` is ``op`` or contains it."""
        curr: IRNode | None = op
        while curr is not None:
            if curr is self:
                return True
            curr = curr.parent_node
        return False

    def get_toplevel_object(self) -> IRNode:
        current: Any = self
        while (parent := current.parent_node) is not None:
            current = parent
        return cast("IRNode", current)

    # equality and hashing are object identity (the defaults, fast as dict keys)


class Operation(_IRNode):
    """An operation: operands, results, properties, attributes, successors and regions.

    Op classes set ``name`` (``"dialect.op"``); ``traits`` lists their traits."""

    __slots__ = ("_next", "_operand_uses", "_operands", "_prev", "_successor_uses",
                 "_successors", "attributes", "location", "parent", "properties", "regions",
                 "results")

    name: ClassVar[str] = ""
    traits: ClassVar[OpTraits] = _NO_TRAITS

    _operands: SSAValues[SSAValue]
    _operand_uses: tuple[Use, ...]
    results: SSAValues[OpResult]
    _successors: tuple[Block, ...]
    _successor_uses: tuple[Use, ...]
    properties: dict[str, Attribute]
    attributes: dict[str, Attribute]
    location: LocationAttr
    regions: tuple[Region, ...]
    parent: Block | None
    _next: Operation | None  # the ops beside this one in its block (see _ChildList)
    _prev: Operation | None

    def __init__(self, *, operands: Sequence[SSAValue] = (),
                 result_types: Sequence[Attribute] = (),
                 properties: Mapping[str, Attribute] = {},
                 attributes: Mapping[str, Attribute] = {},
                 location: LocationAttr | None = None, successors: Sequence[Block] = (),
                 regions: Sequence[Region] = ()) -> None:
        self.parent = None
        self._next = None
        self._prev = None
        # operands and their uses
        if operands:
            ops = SSAValues(operands)
            uses = []
            for i, v in enumerate(ops):
                u = Use(self, i)
                vu = v._uses
                if vu is None:
                    v._uses = [u]
                else:
                    vu.append(u)
                uses.append(u)
            self._operands = ops
            self._operand_uses = tuple(uses)
        else:
            self._operands = _NO_VALUES
            self._operand_uses = ()
        self.results = SSAValues([OpResult(t, self, i) for i, t in enumerate(result_types)]) \
            if result_types else _NO_VALUES
        self.properties = dict(properties)
        self.attributes = dict(attributes)
        if location is None:
            location = _unknown_loc_value if _unknown_loc_value is not None \
                else _unknown_loc()
        self.location = location
        if successors:
            succ = tuple(successors)
            succ_uses = []
            for i, b in enumerate(succ):
                u = Use(self, i)
                b.add_use(u)
                succ_uses.append(u)
            self._successors = succ
            self._successor_uses = tuple(succ_uses)
        else:
            self._successors = ()
            self._successor_uses = ()
        self.regions = ()
        for region in regions:
            self.add_region(region)
        self.__post_init__()

    def __post_init__(self) -> None:
        assert self.name != "", f"{self.__class__.__name__} has no op name"

    @classmethod
    def create(cls, *, operands: Sequence[SSAValue] = (),
               result_types: Sequence[Attribute] = (),
               properties: Mapping[str, Attribute] = {},
               attributes: Mapping[str, Attribute] = {},
               location: LocationAttr | None = None, successors: Sequence[Block] = (),
               regions: Sequence[Region] = ()) -> Self:
        """Build the op from its parts without calling the subclass's ``__init__``."""
        op = cls.__new__(cls)
        Operation.__init__(op, operands=operands, result_types=result_types,
                           properties=properties, attributes=attributes, location=location,
                           successors=successors, regions=regions)
        return op

    # operands, results, successors
    @property
    def operands(self) -> SSAValues[SSAValue]:
        """The operands (a tuple; assign a new sequence to change them)."""
        return self._operands

    @operands.setter
    def operands(self, new: Sequence[SSAValue]) -> None:
        for operand, use in zip(self._operands, self._operand_uses):
            operand.remove_use(use)
        values = SSAValues(new)
        uses = tuple(Use(self, i) for i in range(len(values)))
        for operand, use in zip(values, uses):
            operand.add_use(use)
        self._operands = values
        self._operand_uses = uses

    def _set_operand(self, index: int, value: SSAValue) -> None:
        """Replace operand ``index`` by ``value``, moving its use."""
        use = self._operand_uses[index]
        ops = self._operands
        ops[index].remove_use(use)
        value.add_use(use)
        self._operands = SSAValues((*ops[:index], value, *ops[index + 1:]))

    @property
    def operand_types(self) -> tuple[Attribute, ...]:
        return tuple(v.type for v in self._operands)

    @property
    def result_types(self) -> tuple[Attribute, ...]:
        return tuple(r.type for r in self.results)

    @property
    def successors(self) -> tuple[Block, ...]:
        return self._successors

    @successors.setter
    def successors(self, new: Sequence[Block]) -> None:
        for block, use in zip(self._successors, self._successor_uses):
            block.remove_use(use)
        blocks = tuple(new)
        uses = tuple(Use(self, i) for i in range(len(blocks)))
        for block, use in zip(blocks, uses):
            block.add_use(use)
        self._successors = blocks
        self._successor_uses = uses

    @property
    def successor_uses(self) -> Sequence[Use]:
        return self._successor_uses

    # position in the IR
    @property
    def parent_node(self) -> IRNode | None:
        return self.parent

    def parent_block(self) -> Block | None:
        return self.parent

    def parent_region(self) -> Region | None:
        p = self.parent
        return None if p is None else p.parent

    def parent_op(self) -> Operation | None:
        p = self.parent
        if p is None:
            return None
        r = p.parent
        return None if r is None else r.parent

    @property
    def next_op(self) -> Operation | None:
        return self._next

    @property
    def prev_op(self) -> Operation | None:
        return self._prev

    def is_before_in_block(self, other_op: Operation) -> bool:
        if self.parent is None or other_op.parent is not self.parent:
            return False
        op = self._next
        while op is not None:
            if op is other_op:
                return True
            op = op._next
        return False

    # regions
    def add_region(self, region: Region) -> None:
        if region.parent is not None:
            raise ValueError("Cannot add region that is already attached on an operation.")
        self.regions += (region,)
        region.parent = self

    def get_region_index(self, region: Region) -> int:
        if region.parent is not self:
            raise ValueError("Region is not attached to the operation.")
        return next(i for i, r in enumerate(self.regions) if r is region)

    def detach_region(self, region: int | Region) -> Region:
        if isinstance(region, Region):
            idx = self.get_region_index(region)
        else:
            idx = region
            region = self.regions[idx]
        region.parent = None
        self.regions = self.regions[:idx] + self.regions[idx + 1:]
        return region

    # traversal
    def walk(self, *, reverse: bool = False, region_first: bool = False) -> Iterator[Operation]:
        """This op and every op nested in it: pre-order (post-order with
        ``region_first``), regions, blocks and ops in order (backwards with ``reverse``)."""
        if reverse or region_first:
            return self._walk_general(reverse, region_first)
        return self._walk_forward()

    def _walk_forward(self) -> Iterator[Operation]:
        yield self
        if not self.regions:
            return
        # explicit stack of the next op to visit at each nesting level
        stack: list[Operation | None] = []
        for region in reversed(self.regions):
            block = region._last
            while block is not None:
                stack.append(block._first)
                block = block._prev
        while stack:
            op = stack.pop()
            if op is None:
                continue
            # the next op is taken before yielding (the caller may detach this one), the
            # regions after (as xDSL's walk does)
            stack.append(op._next)
            yield op
            for region in reversed(op.regions):
                block = region._last
                while block is not None:
                    stack.append(block._first)
                    block = block._prev

    def _walk_general(self, reverse: bool, region_first: bool) -> Iterator[Operation]:
        if not region_first:
            yield self
        for region in reversed(self.regions) if reverse else self.regions:
            yield from region.walk(reverse=reverse, region_first=region_first)
        if region_first:
            yield self

    def walk_blocks(self, *, reverse: bool = False) -> Iterator[Block]:
        for region in reversed(self.regions) if reverse else self.regions:
            for block in reversed(region.blocks) if reverse else region.blocks:
                yield from block.walk_blocks(reverse=reverse)

    def get_attr_or_prop(self, name: str) -> Attribute | None:
        """Property ``name``, else attribute ``name``, else None."""
        value = self.properties.get(name)
        return self.attributes.get(name) if value is None else value

    # verification
    def verify(self, verify_nested_ops: bool = True) -> None:
        """Check the op's place (terminators, successors), its nested ops (with
        ``verify_nested_ops``), then its own invariants (``verify_``)."""
        for operand in self._operands:
            if isinstance(operand, ErasedSSAValue):
                raise ValueError("Erased SSA value is used by the operation")
        parent_block = self.parent
        parent_region = None if parent_block is None else parent_block.parent
        if self._successors:
            if parent_block is None or parent_region is None:
                raise VerifyException(f"Operation {self.name} with block successors does not "
                                      f"belong to a block or a region")
            if parent_block._last is not self:
                raise VerifyException(f"Operation {self.name} with block successors must "
                                      f"terminate its parent block")
            for succ in self._successors:
                if succ.parent is not parent_region:
                    raise VerifyException(f"Operation {self.name} is branching to a block of "
                                          f"a different region")
        if parent_block is not None and parent_region is not None \
                and parent_block._last is self:
            if parent_region._first is parent_region._last:
                parent_op = parent_region.parent
                if parent_op is not None and not parent_op.has_trait(NoTerminator) \
                        and not self.has_trait(IsTerminator):
                    raise VerifyException(f"Operation {self.name} terminates block in "
                                          "single-block region but is not a terminator")
            elif not self.has_trait(IsTerminator):
                raise VerifyException(f"Operation {self.name} terminates block in multi-block "
                                      "region but is not a terminator")
        if verify_nested_ops:
            for region in self.regions:
                region.verify()
        self.verify_()

    def verify_(self) -> None:
        """The op's own invariants; raise VerifyException if one does not hold."""

    # custom syntax hooks
    @classmethod
    def parse(cls, parser: Parser) -> Self:
        parser.raise_error(f"Operation {cls.name} does not have a custom format.")

    def print(self, printer: Printer) -> None:
        printer.print_op_with_default_format(self)

    # traits
    @classmethod
    def has_trait(cls, trait: type[OpTrait] | OpTrait, *,
                  value_if_unregistered: bool = True) -> bool:
        """Whether the op class has ``trait`` (a trait class, or an instance compared by
        equality)."""
        return cls.traits.get(trait) is not None

    @classmethod
    def get_trait(cls, trait: type[OpTraitInvT] | OpTraitInvT) -> OpTraitInvT | None:
        return cls.traits.get(trait)

    @classmethod
    def get_traits_of_type(cls, trait_type: type[OpTraitInvT]) -> list[OpTraitInvT]:
        return [t for t in cls.traits if isinstance(t, trait_type)]

    @classmethod
    def dialect_name(cls) -> str:
        return Dialect.split_name(cls.name)[0]

    # cloning and removal
    def clone_without_regions(self, value_mapper: dict[SSAValue, SSAValue] | None = None,
                              block_mapper: dict[Block, Block] | None = None, *,
                              clone_name_hints: bool = True,
                              clone_operands: bool = True) -> Self:
        if value_mapper is None:
            value_mapper = {}
        if block_mapper is None:
            block_mapper = {}
        operands = tuple(value_mapper.get(v, v) for v in self._operands) \
            if clone_operands else ()
        successors = [block_mapper.get(b, b) for b in self._successors]
        op = self.create(operands=operands, result_types=self.result_types,
                         attributes=self.attributes.copy(),
                         properties=self.properties.copy(), location=self.location,
                         successors=successors, regions=[Region() for _ in self.regions])
        for old, new in zip(self.results, op.results):
            value_mapper[old] = new
            if clone_name_hints:
                new._name = old._name
        return op

    def clone(self, value_mapper: dict[SSAValue, SSAValue] | None = None,
              block_mapper: dict[Block, Block] | None = None, *,
              clone_name_hints: bool = True, clone_operands: bool = True) -> Self:
        """A deep copy (regions included); values defined inside map to their copies."""
        if value_mapper is None:
            value_mapper = {}
        if block_mapper is None:
            block_mapper = {}
        op = self.clone_without_regions(value_mapper, block_mapper,
                                        clone_name_hints=clone_name_hints,
                                        clone_operands=False)
        for idx, region in enumerate(self.regions):
            region.clone_into(op.regions[idx], 0, value_mapper, block_mapper,
                              clone_name_hints=clone_name_hints, clone_operands=False)
        if clone_operands:
            for old, new in zip(self.walk(), op.walk()):
                new.operands = tuple(value_mapper.get(v, v) for v in old._operands)
        return op

    def drop_all_references(self) -> None:
        self.parent = None
        for operand, use in zip(self._operands, self._operand_uses):
            operand.remove_use(use)
        self._operand_uses = ()
        for block, use in zip(self._successors, self._successor_uses):
            block.remove_use(use)
        self._successor_uses = ()
        self._successors = ()
        for region in self.regions:
            region.drop_all_references()

    def erase(self, safe_erase: bool = True, drop_references: bool = True) -> None:
        """Erase a detached op; with ``safe_erase`` its results must be unused."""
        assert self.parent is None, "Operation with parents should first be detached " \
            "before erasure."
        if drop_references:
            self.drop_all_references()
        for result in self.results:
            result.erase(safe_erase=safe_erase)

    def detach(self) -> None:
        if self.parent is None:
            raise ValueError("Cannot detach a toplevel operation.")
        self.parent.detach_op(self)

    def emit_error(self, message: str, underlying_error: Exception) -> NoReturn:
        raise underlying_error

    # text
    def __str__(self) -> str:
        from .printer import Printer

        out = StringIO()
        Printer(stream=out).print_op(self)
        return out.getvalue()

    def __format__(self, format_spec: str) -> str:
        desc = str(self)
        if "\n" in desc:
            desc = "\n".join("\t" + line for line in desc.splitlines())
            desc = f"\n{desc}\n"
        return f"{self.__class__.__qualname__}({desc})"

    def __repr__(self) -> str:
        operands = ", ".join(_short_repr(v) for v in self._operands)
        results = ", ".join(_short_repr(v) for v in self.results)
        successors = ", ".join(_short_repr(b) for b in self._successors)
        regions = ", ".join(_short_repr(r) for r in self.regions)
        return (f"<{self.__class__.__name__} {id(self)}(operands=[{operands}], "
                f"results=[{results}], successors=[{successors}], "
                f"properties={self.properties!r}, attributes={self.attributes!r}, "
                f"regions=[{regions}], parent={_short_repr(self.parent)}, "
                f"_next_op={_short_repr(self._next)}, _prev_op={_short_repr(self._prev)})>")


# --- child lists ---------------------------------------------------------------------------
# A block's ops and a region's blocks are intrusive doubly linked lists: the owner (Block,
# Region) holds ``_first`` and ``_last``, each child (Operation, Block) ``_prev`` and
# ``_next``. `_ChildList` links and unlinks children; `_ChildView` reads the list.
_ChildT = TypeVar("_ChildT", "Operation", "Block")


class _ChildList(Generic[_ChildT]):
    """The owner side of a child list: linking and unlinking (no checks)."""

    __slots__ = ("_first", "_last")

    _first: _ChildT | None
    _last: _ChildT | None

    def _link(self, child: _ChildT, prv: _ChildT | None, nxt: _ChildT | None) -> None:
        """Put the unlinked ``child`` between the adjacent ``prv`` and ``nxt`` (None: an end
        of the list)."""
        child._prev = prv
        child._next = nxt
        if prv is None:
            self._first = child
        else:
            prv._next = child
        if nxt is None:
            self._last = child
        else:
            nxt._prev = child

    def _unlink(self, child: _ChildT) -> _ChildT:
        """Take ``child`` out of the list, clear its parent and links, and return it."""
        child.parent = None
        prv, nxt = child._prev, child._next
        if prv is None:
            self._first = nxt
        else:
            prv._next = nxt
        if nxt is None:
            self._last = prv
        else:
            nxt._prev = prv
        child._prev = None
        child._next = None
        return child


class _ChildView(Generic[_ChildT]):
    """The children of an owner, in order (a multi-pass iterable; ``reversed`` works)."""

    __slots__ = ("_owner",)

    _owner: _ChildList[_ChildT]

    def __iter__(self) -> Iterator[_ChildT]:
        child = self._owner._first
        while child is not None:
            nxt = child._next
            yield child
            child = nxt

    def __reversed__(self) -> Iterator[_ChildT]:
        child = self._owner._last
        while child is not None:
            prv = child._prev
            yield child
            child = prv

    def __len__(self) -> int:
        n = 0
        child = self._owner._first
        while child is not None:
            n += 1
            child = child._next
        return n

    def __bool__(self) -> bool:
        return self._owner._first is not None

    @property
    def first(self) -> _ChildT | None:
        return self._owner._first

    @property
    def last(self) -> _ChildT | None:
        return self._owner._last


# --- blocks --------------------------------------------------------------------------------
class BlockOps(_ChildView[Operation]):
    """The ops of a block, in order (a multi-pass iterable; ``reversed`` works)."""

    __slots__ = ()

    _owner: Block

    def __init__(self, block: Block) -> None:
        self._owner = block

    @property
    def block(self) -> Block:
        return self._owner


class Block(_IRNode, _ChildList[Operation]):
    """A sequence of operations with typed arguments."""

    __slots__ = ("_args", "_name", "_next", "_prev", "_uses", "parent")

    _args: tuple[BlockArgument, ...]
    _next: Block | None  # the blocks beside this one in its region (see _ChildList)
    _prev: Block | None
    _name: str | None
    _uses: list[Use] | None
    parent: Region | None

    def __init__(self, ops: Iterable[Operation] = (), *,
                 arg_types: Iterable[Attribute] = ()) -> None:
        self._args = tuple(BlockArgument(t, self, i) for i, t in enumerate(arg_types))
        self._first = None
        self._last = None
        self._next = None
        self._prev = None
        self._name = None
        self._uses = None
        self.parent = None
        for op in ops:
            self.add_op(op)

    @staticmethod
    def is_default_block_name(name: str) -> bool:
        return name.startswith("bb") and name[2:].isdigit()

    # name and uses (as a successor)
    @property
    def name_hint(self) -> str | None:
        return self._name

    @name_hint.setter
    def name_hint(self, name: str | None) -> None:
        self._name = _valid_name(Block, name)

    @property
    def uses(self) -> IRUses:
        return IRUses(self)

    def add_use(self, use: Use) -> None:
        if self._uses is None:
            self._uses = [use]
        else:
            self._uses.append(use)

    def remove_use(self, use: Use) -> None:
        uses = self._uses
        if uses:
            for i in range(len(uses) - 1, -1, -1):
                if uses[i] is use:
                    del uses[i]
                    return

    def predecessors(self) -> tuple[Block, ...]:
        return tuple(p for use in self.uses if (p := use.operation.parent) is not None)

    # position
    @property
    def parent_node(self) -> IRNode | None:
        return self.parent

    def parent_op(self) -> Operation | None:
        return None if self.parent is None else self.parent.parent

    def parent_region(self) -> Region | None:
        return self.parent

    def parent_block(self) -> Block | None:
        r = self.parent
        if r is None or r.parent is None:
            return None
        return r.parent.parent

    @property
    def next_block(self) -> Block | None:
        return self._next

    @property
    def prev_block(self) -> Block | None:
        return self._prev

    # arguments
    @property
    def args(self) -> tuple[BlockArgument, ...]:
        return self._args

    @property
    def arg_types(self) -> tuple[Attribute, ...]:
        return tuple(a.type for a in self._args)

    def insert_arg(self, arg_type: Attribute, index: int,
                   location: LocationAttr | None = None) -> BlockArgument:
        if index < 0 or index > len(self._args):
            raise ValueError(f"Cannot insert block argument at index {index}, index must be "
                             f"in range [0, {len(self._args)}].")
        arg = BlockArgument(arg_type, self, index, location)
        for a in self._args[index:]:
            a.index += 1
        self._args = (*self._args[:index], arg, *self._args[index:])
        return arg

    def erase_arg(self, arg: BlockArgument, safe_erase: bool = True) -> None:
        if arg.block is not self:
            raise ValueError("Attempting to delete an argument of the wrong block")
        for a in self._args[arg.index + 1:]:
            a.index -= 1
        self._args = (*self._args[:arg.index], *self._args[arg.index + 1:])
        arg.erase(safe_erase=safe_erase)

    # ops
    @property
    def ops(self) -> BlockOps:
        return BlockOps(self)

    @property
    def first_op(self) -> Operation | None:
        return self._first

    @property
    def last_op(self) -> Operation | None:
        return self._last

    @property
    def is_empty(self) -> bool:
        return self._first is None

    def _attach_op(self, op: Operation) -> None:
        if op.parent is not None:
            raise ValueError("Can't add to a block an operation already attached to a block.")
        if op.regions and op.is_ancestor(self):
            raise ValueError("Can't add an operation to a block contained in the operation.")
        op.parent = self

    def add_op(self, operation: Operation) -> None:
        """Append an unattached op."""
        self._attach_op(operation)
        self._link(operation, self._last, None)

    def add_ops(self, ops: Iterable[Operation]) -> None:
        for op in ops:
            self.add_op(op)

    def insert_op_after(self, new_op: Operation, existing_op: Operation) -> None:
        if existing_op.parent is not self:
            raise ValueError("Can't insert operation after operation not in this block.")
        self._attach_op(new_op)
        self._link(new_op, existing_op, existing_op._next)

    def insert_op_before(self, new_op: Operation, existing_op: Operation) -> None:
        if existing_op.parent is not self:
            raise ValueError("Can't insert operation before operation not in current block")
        self._attach_op(new_op)
        self._link(new_op, existing_op._prev, existing_op)

    def insert_ops_before(self, ops: Sequence[Operation], existing_op: Operation) -> None:
        for op in ops:
            self.insert_op_before(op, existing_op)

    def insert_ops_after(self, ops: Sequence[Operation], existing_op: Operation) -> None:
        for op in ops:
            self.insert_op_after(op, existing_op)
            existing_op = op

    def get_operation_index(self, op: Operation) -> int:
        if op.parent is not self:
            raise ValueError("Operation is not a child of the block.")
        return next(i for i, o in enumerate(self.ops) if o is op)

    def detach_op(self, op: Operation) -> Operation:
        """Unlink ``op`` from this block and return it."""
        if op.parent is not self:
            raise ValueError("Cannot detach operation from a different block.")
        return self._unlink(op)

    def erase_op(self, op: Operation, safe_erase: bool = True) -> None:
        self.detach_op(op).erase(safe_erase=safe_erase)

    def walk(self, *, reverse: bool = False, region_first: bool = False
             ) -> Iterator[Operation]:
        for op in reversed(self.ops) if reverse else self.ops:
            yield from op.walk(reverse=reverse, region_first=region_first)

    def walk_blocks(self, *, reverse: bool = False) -> Iterator[Block]:
        if not reverse:
            yield self
        for op in reversed(self.ops) if reverse else self.ops:
            yield from op.walk_blocks(reverse=reverse)
        if reverse:
            yield self

    def verify(self) -> None:
        for op in self.ops:
            if op.parent is not self:
                raise ValueError("Parent pointer of operation does not refer to containing "
                                 "region")
            op.verify()
        if self._first is None:
            region = self.parent
            if region is not None and (parent_op := region.parent) is not None \
                    and region._first is region._last \
                    and not parent_op.has_trait(NoTerminator):
                raise VerifyException(f"Operation {parent_op.name} contains empty block in "
                                      "single-block region that expects at least a terminator")

    def drop_all_references(self) -> None:
        self.parent = None
        self._next = None
        self._prev = None
        for op in self.ops:
            op.drop_all_references()

    def erase(self, safe_erase: bool = True) -> None:
        assert self.parent is None, "Blocks with parents should first be detached before " \
            "erasure."
        self.drop_all_references()
        for op in self.ops:
            op.erase(safe_erase=safe_erase, drop_references=False)

    def __repr__(self) -> str:
        return f"<Block {id(self)}(_args={self._args!r}, num_ops={len(self.ops)})>"


# --- regions -------------------------------------------------------------------------------
class RegionBlocks(_ChildView[Block]):
    """The blocks of a region, in order (iterable, indexable, ``reversed`` works)."""

    __slots__ = ()

    _owner: Region

    def __init__(self, region: Region) -> None:
        self._owner = region

    def __getitem__(self, idx: int) -> Block:
        if not isinstance(idx, int):
            raise NotImplementedError("Indexing of RegionBlocks not yet implemented")
        for i, b in enumerate(self if idx >= 0 else reversed(self)):
            if i == (idx if idx >= 0 else -idx - 1):
                return b
        raise IndexError


class Region(_IRNode, _ChildList[Block]):
    """A list of blocks, owned by an operation."""

    __slots__ = ("parent",)

    class DEFAULT:
        """Marker default: build a region with one empty block."""

    parent: Operation | None

    def __init__(self, blocks: Block | Iterable[Block] = ()) -> None:
        self._first = None
        self._last = None
        self.parent = None
        self.add_block(blocks)

    @property
    def parent_node(self) -> IRNode | None:
        return self.parent

    def parent_op(self) -> Operation | None:
        return self.parent

    def parent_block(self) -> Block | None:
        return None if self.parent is None else self.parent.parent

    def parent_region(self) -> Region | None:
        p = self.parent
        if p is None or p.parent is None:
            return None
        return p.parent.parent

    @property
    def blocks(self) -> RegionBlocks:
        return RegionBlocks(self)

    @property
    def first_block(self) -> Block | None:
        return self._first

    @property
    def last_block(self) -> Block | None:
        return self._last

    @property
    def block(self) -> Block:
        """The only block; ValueError unless the region has exactly one."""
        b = self._first
        if b is None or b is not self._last:
            raise ValueError("'block' property of Region class is only available for "
                             "single-block regions.")
        return b

    @property
    def ops(self) -> BlockOps:
        b = self._first
        if b is None or b is not self._last:
            raise ValueError("'ops' property of Region class is only available for "
                             "single-block regions.")
        return b.ops

    @property
    def op(self) -> Operation:
        b = self._first
        if b is not None and b is self._last and b._first is not None \
                and b._first is b._last:
            return b._first
        raise ValueError("'op' property of Region class is only available for "
                         "single-operation single-block regions.")

    def _attach_block(self, block: Block) -> None:
        if block.parent is not None:
            raise ValueError("Can't add to a region a block already attached to a region.")
        if self.parent is not None and block.is_ancestor(self):
            raise ValueError("Can't add a block to a region contained in the block.")
        block.parent = self

    def add_block(self, block: Block | Iterable[Block]) -> None:
        """Append one or several unattached blocks."""
        blocks = (block,) if isinstance(block, Block) else block
        for b in blocks:
            self._attach_block(b)
            self._link(b, self._last, None)

    def insert_block_before(self, block: Block | Iterable[Block], target: Block) -> None:
        if target.parent is not self:
            raise ValueError("Cannot insert blocks before a block into a region that is not "
                             "the target's parent")
        blocks = (block,) if isinstance(block, Block) else block
        for b in blocks:
            self._attach_block(b)
            self._link(b, target._prev, target)

    def insert_block_after(self, block: Block | Iterable[Block], target: Block) -> None:
        nxt = target._next
        if nxt is None:
            self.add_block(block)
        else:
            self.insert_block_before(block, nxt)

    def insert_block(self, blocks: Block | Iterable[Block], index: int) -> None:
        i = -1
        for i, b in enumerate(self.blocks):
            if i == index:
                self.insert_block_before(blocks, b)
                return
        if i + 1 == index:
            self.add_block(blocks)

    def get_block_index(self, block: Block) -> int:
        if block.parent is not self:
            raise ValueError("Block is not a child of the region.")
        return next(i for i, b in enumerate(self.blocks) if b is block)

    def detach_block(self, block: int | Block) -> Block:
        if isinstance(block, int):
            block = self.blocks[block]
        elif block.parent is not self:
            raise ValueError("Block is not a child of the region.")
        return self._unlink(block)

    def erase_block(self, block: int | Block, safe_erase: bool = True) -> None:
        self.detach_block(block).erase(safe_erase=safe_erase)

    def clone(self) -> Region:
        new = Region()
        self.clone_into(new)
        return new

    def clone_into(self, dest: Region, insert_index: int | None = None,
                   value_mapper: dict[SSAValue, SSAValue] | None = None,
                   block_mapper: dict[Block, Block] | None = None, *,
                   clone_name_hints: bool = True, clone_operands: bool = True) -> None:
        assert dest is not self
        if insert_index is None:
            insert_index = len(dest.blocks)
        if value_mapper is None:
            value_mapper = {}
        if block_mapper is None:
            block_mapper = {}
        new_blocks = []
        for block in self.blocks:
            new_block = Block()
            new_blocks.append(new_block)
            block_mapper[block] = new_block
        dest.insert_block(new_blocks, insert_index)
        for block, new_block in zip(self.blocks, new_blocks):
            for idx, arg in enumerate(block.args):
                new_arg = new_block.insert_arg(arg.type, idx, arg.location)
                value_mapper[arg] = new_arg
                if clone_name_hints:
                    new_arg._name = arg._name
            for op in block.ops:
                new_block.add_op(op.clone(value_mapper, block_mapper,
                                          clone_name_hints=clone_name_hints,
                                          clone_operands=False))
        if clone_operands:
            for old, new in zip(self.walk(), dest.walk()):
                new.operands = tuple(value_mapper.get(v, v) for v in old._operands)

    def walk(self, *, reverse: bool = False, region_first: bool = False
             ) -> Iterator[Operation]:
        for block in reversed(self.blocks) if reverse else self.blocks:
            yield from block.walk(reverse=reverse, region_first=region_first)

    def verify(self) -> None:
        for block in self.blocks:
            block.verify()
            if block.parent is not self:
                raise ValueError("Parent pointer of block does not refer to containing region")

    def drop_all_references(self) -> None:
        self.parent = None
        for block in self.blocks:
            block.drop_all_references()

    def erase(self) -> None:
        assert self.parent is None, "Regions with parents should first be detached before " \
            "erasure."
        self.drop_all_references()

    def move_blocks(self, region: Region) -> None:
        """Move every block of this region to the end of ``region``."""
        if region is self:
            raise ValueError("Cannot move region into itself.")
        first = self._first
        if first is None:
            return
        for block in self.blocks:
            block.parent = region
        last_other = region._last
        if last_other is None:
            region._first = first
        else:
            last_other._next = first
            first._prev = last_other
        region._last = self._last
        self._first = None
        self._last = None

    def __repr__(self) -> str:
        return f"Region(blocks=[{', '.join(_short_repr(b) for b in self.blocks)}])"


IRNode: TypeAlias = Operation | Region | Block


