"""Declarative operation and attribute definitions (the subset of xDSL's IRDL ptosim uses).

An op class lists its parts as class fields and is decorated with `irdl_op_definition`::

    @irdl_op_definition
    class AddOp(IRDLOperation):
        name = "my.add"
        lhs = operand_def(i64)            # one operand (an SSAValue)
        rest = var_operand_def()          # any number (a tuple)
        res = result_def(IndexType)       # one result
        mode = opt_prop_def(StringAttr)   # a property, possibly absent (None)
        body = region_def("single_block")
        traits = traits_def(Pure())

The decorator replaces each field by an accessor (a property reading the op's operands,
results, regions, successors, properties or attributes), adds ``build`` / ``__init__``
argument handling and makes ``verify_`` check the declared counts and constraints before
the class's own ``verify_``. Nothing is code-generated: a definition costs a few tens of
microseconds.

Constraints: ``None``/`Attribute` (anything), an attribute class (an instance of it), an
attribute instance (equal to it), ``base(X)``, ``base(X) | base(Y)``, ``ArrayAttr[X]``.
"""

from __future__ import annotations

import sys
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from enum import Enum
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Literal, TypeVar, cast, overload

from .exceptions import PyRDLAttrDefinitionError, PyRDLOpDefinitionError, VerifyException
from .ir import (
    Attribute,
    AttributeCovT,
    Block,
    Data,
    Operation,
    OpResult,
    OpTraits,
    ParametrizedAttribute,
    Region,
    SSAValue,
    SSAValues,
    TypedAttribute,
)
from .traits import OpTrait, _KeyedValue

if TYPE_CHECKING:
    from typing import Self

    from .builtin import LocationAttr

__all__ = [
    "AllOf",
    "AnyAttr",
    "AnyOf",
    "AttrConstraint",
    "AttrSizedOperandSegments",
    "AttrSizedRegionSegments",
    "AttrSizedResultSegments",
    "AttrSizedSegments",
    "AttrSizedSuccessorSegments",
    "BaseAttr",
    "EqAttrConstraint",
    "IRDLOperation",
    "IRDLOption",
    "OpDef",
    "ParamAttrConstraint",
    "ParamAttrDef",
    "RangeOf",
    "SameVariadicOperandSize",
    "SameVariadicResultSize",
    "attr_def",
    "base",
    "irdl_attr_definition",
    "irdl_op_definition",
    "irdl_to_attr_constraint",
    "lazy_traits_def",
    "opt_attr_def",
    "opt_operand_def",
    "opt_prop_def",
    "opt_region_def",
    "opt_result_def",
    "opt_successor_def",
    "operand_def",
    "prop_def",
    "region_def",
    "result_def",
    "successor_def",
    "traits_def",
    "var_operand_def",
    "var_region_def",
    "var_result_def",
    "var_successor_def",
]

AttributeInvT = TypeVar("AttributeInvT", bound=Attribute)
_AttrT2 = TypeVar("_AttrT2", bound=Attribute)


# --- attribute constraints ----------------------------------------------------------------
class AttrConstraint(_KeyedValue, Generic[AttributeCovT]):
    """A predicate on attributes; ``verify`` raises VerifyException when it fails."""

    __slots__ = ()

    def verify(self, attr: Attribute, constraint_context: object = None) -> None:
        raise NotImplementedError

    def verifies(self, attr: Attribute) -> bool:
        try:
            self.verify(attr)
        except VerifyException:
            return False
        return True

    def get_bases(self) -> set[type[Attribute]] | None:
        """The attribute classes that can satisfy the constraint (None: unbounded)."""
        return None

    def __or__(self, other: AttrConstraint[_AttrT2]) -> AttrConstraint[AttributeCovT | _AttrT2]:
        if isinstance(other, AnyAttr) or self == other:
            return other
        return AnyOf.get(self, other)

    def __and__(self, other: AttrConstraint[Any]) -> AttrConstraint[AttributeCovT]:
        if isinstance(other, AnyAttr) or self == other:
            return self
        return AllOf((self, other))


class AnyAttr(AttrConstraint[Attribute]):
    """Any attribute."""

    __slots__ = ()

    def verify(self, attr: Attribute, constraint_context: object = None) -> None:
        pass


_ANY = AnyAttr()


class EqAttrConstraint(AttrConstraint[AttributeCovT]):
    """Equal to ``attr``."""

    __slots__ = ("attr",)

    def __init__(self, attr: AttributeCovT) -> None:
        self.attr = attr

    def _key(self) -> tuple[Any, ...]:
        return (self.attr,)

    def verify(self, attr: Attribute, constraint_context: object = None) -> None:
        if attr is not self.attr and attr != self.attr:
            raise VerifyException(f"Expected attribute {self.attr} but got {attr}")

    def get_bases(self) -> set[type[Attribute]] | None:
        return {type(self.attr)}


class BaseAttr(AttrConstraint[AttributeCovT]):
    """An instance of attribute class ``attr``."""

    __slots__ = ("attr",)

    def __init__(self, attr: type[AttributeCovT]) -> None:
        self.attr = attr

    def _key(self) -> tuple[Any, ...]:
        return (self.attr,)

    def __repr__(self) -> str:
        return f"BaseAttr({self.attr.__name__})"

    def verify(self, attr: Attribute, constraint_context: object = None) -> None:
        if not isinstance(attr, self.attr):
            name = getattr(self.attr, "name", None)
            if name:
                raise VerifyException(f"{attr} should be of base attribute {name}")
            raise VerifyException(
                f"{attr} should be of attribute subclassing `{self.attr.__name__}`")

    def get_bases(self) -> set[type[Attribute]] | None:
        return {self.attr} if _is_final(self.attr) else None


def _is_final(cls: type) -> bool:
    """A concrete attribute class: decorated, or naming itself (builtin's classes)."""
    return cls.__dict__.get("_IRDL_FINAL_", False) or "name" in cls.__dict__


class AnyOf(AttrConstraint[AttributeCovT]):
    """Satisfies one of ``attr_constrs`` (chosen by the attribute's class)."""

    __slots__ = ("_abstract", "_by_class", "attr_constrs")

    def __init__(self, attr_constrs: tuple[AttrConstraint[AttributeCovT], ...]) -> None:
        self.attr_constrs = tuple(attr_constrs)
        self._by_class: dict[type, AttrConstraint[Any]] = {}
        self._abstract: list[AttrConstraint[Any]] = []
        for c in self.attr_constrs:
            bases = c.get_bases()
            if bases is None:
                self._abstract.append(c)
            else:
                for b in bases:
                    self._by_class.setdefault(b, c)

    @staticmethod
    def get(*constrs: Any) -> AttrConstraint[Any]:
        """The union of ``constrs`` (flattened; a lone one is returned as is)."""
        flat: list[AttrConstraint[Any]] = []
        for c in constrs:
            c = irdl_to_attr_constraint(c)
            if isinstance(c, AnyAttr):
                return c
            for d in (c.attr_constrs if isinstance(c, AnyOf) else (c,)):
                if d not in flat:
                    flat.append(d)
        return flat[0] if len(flat) == 1 else AnyOf(tuple(flat))

    def _key(self) -> tuple[Any, ...]:
        return self.attr_constrs

    def __repr__(self) -> str:
        return f"AnyOf({self.attr_constrs!r})"

    def verify(self, attr: Attribute, constraint_context: object = None) -> None:
        c = self._by_class.get(attr.__class__)
        if c is not None:
            c.verify(attr)
            return
        if len(self._abstract) == 1:
            self._abstract[0].verify(attr)
            return
        # (several abstract constraints, or a subclass of a concrete class: xDSL forbids
        # both; accept what one of the constraints accepts)
        for c in self.attr_constrs:
            if c.verifies(attr):
                return
        raise VerifyException(f"Unexpected attribute {attr}")

    def get_bases(self) -> set[type[Attribute]] | None:
        bases: set[type[Attribute]] = set()
        for c in self.attr_constrs:
            b = c.get_bases()
            if b is None:
                return None
            bases |= b
        return bases


class AllOf(AttrConstraint[AttributeCovT]):
    """Satisfies every one of ``attr_constrs``."""

    __slots__ = ("attr_constrs",)

    def __init__(self, attr_constrs: tuple[AttrConstraint[Any], ...]) -> None:
        self.attr_constrs = tuple(attr_constrs)

    def _key(self) -> tuple[Any, ...]:
        return self.attr_constrs

    def verify(self, attr: Attribute, constraint_context: object = None) -> None:
        errors = []
        for c in self.attr_constrs:
            try:
                c.verify(attr)
            except VerifyException as e:
                errors.append(e)
        if len(errors) == 1:
            raise VerifyException(str(errors[0])) from errors[0]
        if errors:
            raise VerifyException("The following constraints were not satisfied:\n"
                                  + "\n".join(str(e) for e in errors))


class ParamAttrConstraint(AttrConstraint[AttributeCovT]):
    """An instance of ``base_attr`` whose parameters satisfy ``param_constrs``."""

    __slots__ = ("base_attr", "param_constrs")

    def __init__(self, base_attr: type[AttributeCovT], param_constrs: Sequence[Any]) -> None:
        self.base_attr = base_attr
        self.param_constrs = tuple(irdl_to_attr_constraint(c) for c in param_constrs)

    def _key(self) -> tuple[Any, ...]:
        return (self.base_attr, self.param_constrs)

    def verify(self, attr: Attribute, constraint_context: object = None) -> None:
        if not isinstance(attr, self.base_attr):
            raise VerifyException(f"{attr} should be of base attribute {self.base_attr.name}")
        params = cast(ParametrizedAttribute, attr).parameters
        if len(params) != len(self.param_constrs):
            raise VerifyException(f"{len(self.param_constrs)} parameters expected, but got "
                                  f"{len(params)}")
        for p, c in zip(params, self.param_constrs):
            c.verify(p)

    def get_bases(self) -> set[type[Attribute]] | None:
        return {self.base_attr} if _is_final(self.base_attr) else None


class ArrayOfConstraint(AttrConstraint[AttributeCovT]):
    """A `Data` attribute of class ``base_attr`` holding a tuple whose elements satisfy
    ``elem_constr`` (``ArrayAttr[X]``)."""

    __slots__ = ("base_attr", "elem_constr")

    def __init__(self, base_attr: type[AttributeCovT], elem_constr: Any) -> None:
        self.base_attr = base_attr
        self.elem_constr = irdl_to_attr_constraint(elem_constr)

    def _key(self) -> tuple[Any, ...]:
        return (self.base_attr, self.elem_constr)

    def verify(self, attr: Attribute, constraint_context: object = None) -> None:
        if not isinstance(attr, self.base_attr):
            raise VerifyException(f"expected {self.base_attr.__name__} attribute, but got "
                                  f"'{type(attr)}'")
        check = self.elem_constr
        if isinstance(check, AnyAttr):
            return
        for a in cast(Data[tuple[Attribute, ...]], attr).data:
            check.verify(a)

    def get_bases(self) -> set[type[Attribute]] | None:
        return {self.base_attr}


class RangeOf(Generic[AttributeCovT]):
    """Each value of a range (a variadic operand's types) satisfies ``constr``."""

    __slots__ = ("constr",)

    def __init__(self, constr: Any) -> None:
        self.constr = irdl_to_attr_constraint(constr)

    def verify(self, attrs: Sequence[Attribute], constraint_context: object = None) -> None:
        for a in attrs:
            self.constr.verify(a)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RangeOf) and other.constr == self.constr

    def __hash__(self) -> int:
        return hash(self.constr)


RangeConstraint = RangeOf


def base(irdl: type[AttributeInvT]) -> AttrConstraint[AttributeInvT]:
    """The constraint "an instance of attribute class ``irdl``"."""
    return BaseAttr(irdl)


_CONSTRAINT_CACHE: dict[Any, AttrConstraint[Any]] = {}


def irdl_to_attr_constraint(irdl: Any, *, allow_type_var: bool = False
                            ) -> AttrConstraint[Any]:
    """The constraint a definition's argument stands for (see the module docstring)."""
    if isinstance(irdl, AttrConstraint):
        return irdl
    if irdl is None or irdl is Attribute:
        return _ANY
    if isinstance(irdl, Attribute):
        return EqAttrConstraint(irdl)
    if isinstance(irdl, type) and issubclass(irdl, Attribute):
        try:
            return _CONSTRAINT_CACHE[irdl]
        except KeyError:
            c = _CONSTRAINT_CACHE[irdl] = BaseAttr(irdl)
            return c
    if isinstance(irdl, TypeVar):
        bound = irdl.__bound__
        return _ANY if bound is None else irdl_to_attr_constraint(bound)
    origin = typing.get_origin(irdl)
    if origin is typing.Annotated:
        args = typing.get_args(irdl)
        result = irdl_to_attr_constraint(args[0])
        for extra in args[1:]:
            if isinstance(extra, AttrConstraint | Attribute | type):
                result = result & irdl_to_attr_constraint(extra)
        return result
    if origin is typing.Union or origin is types.UnionType:
        return AnyOf.get(*typing.get_args(irdl))
    if isinstance(origin, type) and issubclass(origin, Attribute):
        args = typing.get_args(irdl)
        if issubclass(origin, Data):
            return ArrayOfConstraint(origin, args[0] if args else None)
        if issubclass(origin, ParametrizedAttribute):
            return BaseAttr(origin)
    if hasattr(irdl, "constr") and callable(irdl.constr):
        return cast(AttrConstraint[Any], irdl.constr())
    raise PyRDLOpDefinitionError(f"unexpected constraint {irdl!r}")


# --- op definition fields -----------------------------------------------------------------
class VarIRConstruct(Enum):
    OPERAND = 1
    RESULT = 2
    REGION = 3
    SUCCESSOR = 4


_CONSTRUCT_NAMES = {VarIRConstruct.OPERAND: "operand", VarIRConstruct.RESULT: "result",
                    VarIRConstruct.REGION: "region", VarIRConstruct.SUCCESSOR: "successor"}


def get_construct_name(construct: VarIRConstruct) -> str:
    return _CONSTRUCT_NAMES[construct]


def _plural(number: int, name: str) -> str:
    return f"{number} {name}{'' if number == 1 else 's'}"


def _range_constraint(arg: Any) -> AttrConstraint[Any]:
    """The constraint on each value of a range: ``arg``'s, unwrapping a `RangeOf`."""
    return irdl_to_attr_constraint(arg.constr if isinstance(arg, RangeOf) else arg)


class _FieldDef:
    """A field of an op definition (what ``operand_def()`` ... return)."""

    __slots__ = ()


class OperandOrResultDef(_FieldDef):
    __slots__ = ()


class VariadicDef(_FieldDef):
    """Marker: any number of values."""

    __slots__ = ()


class OptionalDef(VariadicDef):
    """Marker: zero or one value."""

    __slots__ = ()


class OperandDef(OperandOrResultDef):
    __slots__ = ("constr",)

    def __init__(self, attr: Any = None) -> None:
        self.constr = _range_constraint(attr)


class VarOperandDef(OperandDef, VariadicDef):
    __slots__ = ()


class OptOperandDef(VarOperandDef, OptionalDef):
    __slots__ = ()


class ResultDef(OperandOrResultDef):
    __slots__ = ("constr",)

    def __init__(self, attr: Any = None) -> None:
        self.constr = _range_constraint(attr)


class VarResultDef(ResultDef, VariadicDef):
    __slots__ = ()


class OptResultDef(VarResultDef, OptionalDef):
    __slots__ = ()


class RegionDef(_FieldDef):
    __slots__ = ("entry_args",)

    def __init__(self, entry_args: Any = None) -> None:
        self.entry_args = _range_constraint(entry_args)


class VarRegionDef(RegionDef, VariadicDef):
    __slots__ = ()


class OptRegionDef(RegionDef, OptionalDef):
    __slots__ = ()


class SingleBlockRegionDef(RegionDef):
    __slots__ = ()


class VarSingleBlockRegionDef(RegionDef, VariadicDef):
    __slots__ = ()


class OptSingleBlockRegionDef(RegionDef, OptionalDef):
    __slots__ = ()


class SuccessorDef(_FieldDef):
    __slots__ = ()


class VarSuccessorDef(SuccessorDef, VariadicDef):
    __slots__ = ()


class OptSuccessorDef(SuccessorDef, OptionalDef):
    __slots__ = ()


class AttrOrPropDef(_FieldDef):
    __slots__ = ("constr", "default_value", "ir_name")

    def __init__(self, constr: Any = None, default_value: Attribute | None = None,
                 ir_name: str | None = None) -> None:
        self.constr = irdl_to_attr_constraint(constr)
        self.default_value = default_value
        self.ir_name = ir_name


class AttributeDef(AttrOrPropDef):
    __slots__ = ()


class OptAttributeDef(AttributeDef, OptionalDef):
    __slots__ = ()


class PropertyDef(AttrOrPropDef):
    __slots__ = ()


class OptPropertyDef(PropertyDef, OptionalDef):
    __slots__ = ()


_SINGLE_BLOCK_DEFS = (SingleBlockRegionDef, VarSingleBlockRegionDef, OptSingleBlockRegionDef)


@overload
def operand_def() -> SSAValue[Attribute]: ...
@overload
def operand_def(constraint: type[AttributeInvT] | AttributeInvT | AttrConstraint[AttributeInvT]
                ) -> SSAValue[AttributeInvT]: ...
def operand_def(constraint: Any = Attribute) -> Any:
    """One operand (the accessor gives an SSAValue)."""
    return OperandDef(constraint)


def var_operand_def(constraint: Any = Attribute) -> SSAValues[SSAValue]:
    """Any number of operands (a tuple)."""
    return cast(SSAValues[SSAValue], VarOperandDef(constraint))


def opt_operand_def(constraint: Any = Attribute) -> SSAValue | None:
    """Zero or one operand (an SSAValue or None)."""
    return cast("SSAValue | None", OptOperandDef(constraint))


@overload
def result_def() -> OpResult[Attribute]: ...
@overload
def result_def(constraint: type[AttributeInvT] | AttributeInvT | AttrConstraint[AttributeInvT]
               ) -> OpResult[AttributeInvT]: ...
def result_def(constraint: Any = Attribute) -> Any:
    """One result (an OpResult)."""
    return ResultDef(constraint)


def var_result_def(constraint: Any = Attribute) -> SSAValues[OpResult]:
    """Any number of results (a tuple)."""
    return cast(SSAValues[OpResult], VarResultDef(constraint))


def opt_result_def(constraint: Any = Attribute) -> OpResult | None:
    """Zero or one result."""
    return cast("OpResult | None", OptResultDef(constraint))


def prop_def(constraint: type[AttributeInvT] | AttributeInvT | AttrConstraint[AttributeInvT]
             = Attribute,  # type: ignore[assignment]
             default_value: Attribute | None = None, *,
             prop_name: str | None = None) -> AttributeInvT:
    """A property (stored in ``op.properties[prop_name or field name]``)."""
    return cast(AttributeInvT, PropertyDef(constraint, default_value, prop_name))


@overload
def opt_prop_def(constraint: type[AttributeInvT] | AttributeInvT | AttrConstraint[AttributeInvT],
                 default_value: Attribute, *, prop_name: str | None = None
                 ) -> AttributeInvT: ...
@overload
def opt_prop_def(constraint: type[AttributeInvT] | AttributeInvT | AttrConstraint[AttributeInvT]
                 = Attribute,  # type: ignore[assignment]
                 default_value: None = None, *, prop_name: str | None = None
                 ) -> AttributeInvT | None: ...
def opt_prop_def(constraint: Any = Attribute, default_value: Attribute | None = None, *,
                 prop_name: str | None = None) -> Any:
    """A property that may be absent (the accessor gives ``default_value``)."""
    return OptPropertyDef(constraint, default_value, prop_name)


def attr_def(constraint: type[AttributeInvT] | AttributeInvT | AttrConstraint[AttributeInvT]
             = Attribute,  # type: ignore[assignment]
             default_value: Attribute | None = None, *,
             attr_name: str | None = None) -> AttributeInvT:
    """An attribute (stored in ``op.attributes``)."""
    return cast(AttributeInvT, AttributeDef(constraint, default_value, attr_name))


@overload
def opt_attr_def(constraint: type[AttributeInvT] | AttributeInvT | AttrConstraint[AttributeInvT],
                 default_value: Attribute, *, attr_name: str | None = None
                 ) -> AttributeInvT: ...
@overload
def opt_attr_def(constraint: type[AttributeInvT] | AttributeInvT | AttrConstraint[AttributeInvT]
                 = Attribute,  # type: ignore[assignment]
                 default_value: None = None, *, attr_name: str | None = None
                 ) -> AttributeInvT | None: ...
def opt_attr_def(constraint: Any = Attribute, default_value: Attribute | None = None, *,
                 attr_name: str | None = None) -> Any:
    """An attribute that may be absent."""
    return OptAttributeDef(constraint, default_value, attr_name)


def region_def(single_block: Literal["single_block"] | None = None, *,
               entry_args: Any = None) -> Region:
    """One region (``"single_block"``: it must have exactly one block)."""
    cls = RegionDef if single_block is None else SingleBlockRegionDef
    return cast(Region, cls(entry_args))


def var_region_def(single_block: Literal["single_block"] | None = None, *,
                   entry_args: Any = None) -> tuple[Region, ...]:
    cls = VarRegionDef if single_block is None else VarSingleBlockRegionDef
    return cast(tuple[Region, ...], cls(entry_args))


def opt_region_def(single_block: Literal["single_block"] | None = None, *,
                   entry_args: Any = None) -> Region | None:
    cls = OptRegionDef if single_block is None else OptSingleBlockRegionDef
    return cast("Region | None", cls(entry_args))


def successor_def() -> Block:
    return cast(Block, SuccessorDef())


def var_successor_def() -> list[Block]:
    return cast(list[Block], VarSuccessorDef())


def opt_successor_def() -> Block | None:
    return cast("Block | None", OptSuccessorDef())


def traits_def(*traits: OpTrait) -> OpTraits:
    """The op's traits (those of base classes are added)."""
    return OpTraits(lambda: traits)


def lazy_traits_def(future_traits: Callable[[], tuple[OpTrait, ...]]) -> OpTraits:
    """Traits produced on first use (for traits naming ops defined later)."""
    return OpTraits(future_traits)


# --- options --------------------------------------------------------------------------------
class IRDLOption:
    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        return other.__class__ is self.__class__ and \
            getattr(self, "as_property", None) == getattr(other, "as_property", None)

    def __hash__(self) -> int:
        return hash((self.__class__, getattr(self, "as_property", None)))


class AttrSizedSegments(IRDLOption):
    """The sizes of the operand (result ...) groups are stored in a dense i32 array
    attribute, or property with ``as_property``."""

    __slots__ = ("as_property",)

    attribute_name: ClassVar[str]
    construct: ClassVar[VarIRConstruct]
    _index: ClassVar[int]   # construct.value - 1, without enum attribute access

    def __init__(self, as_property: bool = False) -> None:
        self.as_property = as_property

    def container(self, op: Operation) -> dict[str, Attribute]:
        return op.properties if self.as_property else op.attributes

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(as_property={self.as_property})"


class AttrSizedOperandSegments(AttrSizedSegments):
    __slots__ = ()
    attribute_name = "operandSegmentSizes"
    construct = VarIRConstruct.OPERAND
    _index = 0


class AttrSizedResultSegments(AttrSizedSegments):
    __slots__ = ()
    attribute_name = "resultSegmentSizes"
    construct = VarIRConstruct.RESULT
    _index = 1


class AttrSizedRegionSegments(AttrSizedSegments):
    __slots__ = ()
    attribute_name = "regionSegmentSizes"
    construct = VarIRConstruct.REGION
    _index = 2


class AttrSizedSuccessorSegments(AttrSizedSegments):
    __slots__ = ()
    attribute_name = "successorSegmentSizes"
    construct = VarIRConstruct.SUCCESSOR
    _index = 3


class SameVariadicSize(IRDLOption):
    """All variadic groups of the construct have the same size."""

    __slots__ = ()
    construct: ClassVar[VarIRConstruct]
    _index: ClassVar[int]


class SameVariadicOperandSize(SameVariadicSize):
    __slots__ = ()
    construct = VarIRConstruct.OPERAND
    _index = 0


class SameVariadicResultSize(SameVariadicSize):
    __slots__ = ()
    construct = VarIRConstruct.RESULT
    _index = 1


class SameVariadicRegionSize(SameVariadicSize):
    __slots__ = ()
    construct = VarIRConstruct.REGION
    _index = 2


class SameVariadicSuccessorSize(SameVariadicSize):
    __slots__ = ()
    construct = VarIRConstruct.SUCCESSOR
    _index = 3


class ParsePropInAttrDict(IRDLOption):
    __slots__ = ()


# --- segment sizes ----------------------------------------------------------------------------
# dense i32 segment arrays -> (starts, sizes); few distinct ones exist
_SEGMENTS: dict[Attribute, tuple[tuple[int, ...], tuple[int, ...]]] = {}
_SEGMENT_ATTRS: dict[tuple[int, ...], Attribute] = {}


def _segments(attr: Attribute) -> tuple[tuple[int, ...], tuple[int, ...]]:
    try:
        return _SEGMENTS[attr]
    except KeyError:
        pass
    sizes = tuple(attr.get_values())  # type: ignore[attr-defined]
    starts, at = [], 0
    for s in sizes:
        starts.append(at)
        at += s
    found = _SEGMENTS[attr] = (tuple(starts), sizes)
    return found


def _segment_attr(sizes: tuple[int, ...]) -> Attribute:
    try:
        return _SEGMENT_ATTRS[sizes]
    except KeyError:
        from .builtin import DenseArrayBase, i32

        attr = _SEGMENT_ATTRS[sizes] = DenseArrayBase.from_list(i32, sizes)
        return attr


# --- accessors ----------------------------------------------------------------------------------
class _Accessor(property):
    """A field's accessor; keeps the definition so subclasses can be decorated again."""

    field_def: _FieldDef


def _accessor(field_def: _FieldDef, fget: Callable[[Any], Any],
              fset: Callable[[Any, Any], None] | None = None) -> _Accessor:
    acc = _Accessor(fget, fset if fset is not None else _read_only)
    acc.field_def = field_def
    return acc


def _read_only(self: Any, value: Any) -> None:
    raise NotImplementedError("Cannot write to named operands, regions, results, or successors.")


_CONTAINER = {VarIRConstruct.OPERAND: "_operands", VarIRConstruct.RESULT: "results",
              VarIRConstruct.REGION: "regions", VarIRConstruct.SUCCESSOR: "_successors"}


def _make_accessors(defs: list[tuple[str, _FieldDef]], construct: VarIRConstruct,
                    options: list[IRDLOption], out: dict[str, Any], op_name: str) -> None:
    if not defs:
        return
    slot = _CONTAINER[construct]
    wrap = SSAValues if construct in (VarIRConstruct.OPERAND, VarIRConstruct.RESULT) else tuple
    n = len(defs)
    get_list = _getter(slot)
    sized = next((o for o in options if isinstance(o, AttrSizedSegments)
                  and o.construct is construct), None)
    same = any(isinstance(o, SameVariadicSize) and o.construct is construct for o in options)
    if sized is not None:
        attr_name = sized.attribute_name
        as_prop = sized.as_property
        for i, (name, d) in enumerate(defs):
            out[name] = _accessor(d, _sized_getter(get_list, attr_name, as_prop, i, d, wrap))
        return
    if same:
        num_var = sum(isinstance(d, VariadicDef) for _, d in defs)
        seen_var = 0
        for i, (name, d) in enumerate(defs):
            out[name] = _accessor(d, _same_getter(get_list, i, n, num_var, seen_var, d, wrap))
            if isinstance(d, VariadicDef):
                seen_var += 1
        return
    before = True
    for i, (name, d) in enumerate(defs):
        if before:
            if isinstance(d, OptionalDef):
                before = False
                out[name] = _accessor(d, _opt_getter(get_list, i, n))
            elif isinstance(d, VariadicDef):
                before = False
                out[name] = _accessor(d, _var_getter(get_list, i, n, wrap))
            else:
                out[name] = _accessor(d, _index_getter(slot, i))
        else:
            if isinstance(d, VariadicDef):
                raise PyRDLOpDefinitionError(
                    f"Operation {op_name} defines more than two variadic "
                    f"{get_construct_name(construct)}s, but do not define any of "
                    f"{_same_option_name(construct)} or {_sized_option_name(construct)} "
                    "PyRDL options.")
            out[name] = _accessor(d, _index_getter(slot, i - n))


def _same_option_name(construct: VarIRConstruct) -> str:
    return {VarIRConstruct.OPERAND: "SameVariadicOperandSize",
            VarIRConstruct.RESULT: "SameVariadicResultSize",
            VarIRConstruct.REGION: "SameVariadicRegionSize",
            VarIRConstruct.SUCCESSOR: "SameVariadicSuccessorSize"}[construct]


def _sized_option_name(construct: VarIRConstruct) -> str:
    return {VarIRConstruct.OPERAND: "AttrSizedOperandSegments",
            VarIRConstruct.RESULT: "AttrSizedResultSegments",
            VarIRConstruct.REGION: "AttrSizedRegionSegments",
            VarIRConstruct.SUCCESSOR: "AttrSizedSuccessorSegments"}[construct]


def _getter(slot: str) -> Callable[[Any], Any]:
    if slot == "_operands":
        return lambda op: op._operands
    if slot == "results":
        return lambda op: op.results
    if slot == "regions":
        return lambda op: op.regions
    return lambda op: op._successors


def _index_getter(slot: str, i: int) -> Callable[[Any], Any]:
    # one lambda per container: the accessors of single operands and results are hot
    if slot == "_operands":
        return lambda op: op._operands[i]
    if slot == "results":
        return lambda op: op.results[i]
    if slot == "regions":
        return lambda op: op.regions[i]
    return lambda op: op._successors[i]


def _opt_getter(get_list: Callable[[Any], Any], i: int, n: int) -> Callable[[Any], Any]:
    def get(op: Any) -> Any:
        values = get_list(op)
        return values[i] if len(values) == n else None
    return get


def _var_getter(get_list: Callable[[Any], Any], i: int, n: int,
                wrap: Callable[[Any], Any]) -> Callable[[Any], Any]:
    def get(op: Any) -> Any:
        values = get_list(op)
        return wrap(values[i:i + len(values) - n + 1])
    return get


def _same_getter(get_list: Callable[[Any], Any], i: int, n: int, num_var: int,
                 seen_var: int, d: _FieldDef, wrap: Callable[[Any], Any]
                 ) -> Callable[[Any], Any]:
    optional = isinstance(d, OptionalDef)
    variadic = isinstance(d, VariadicDef)

    def get(op: Any) -> Any:
        values = get_list(op)
        if optional:
            return values[i] if len(values) == n else None
        diff = (len(values) - n) // num_var
        start = i + seen_var * diff
        return wrap(values[start:start + 1 + diff]) if variadic else values[start]
    return get


def _sized_getter(get_list: Callable[[Any], Any], attr_name: str, as_prop: bool, i: int,
                  d: _FieldDef, wrap: Callable[[Any], Any]) -> Callable[[Any], Any]:
    if isinstance(d, OptionalDef):
        def get(op: Any) -> Any:
            starts, sizes = _segments((op.properties if as_prop else op.attributes)[attr_name])
            return get_list(op)[starts[i]] if sizes[i] else None
    elif isinstance(d, VariadicDef):
        def get(op: Any) -> Any:
            starts, sizes = _segments((op.properties if as_prop else op.attributes)[attr_name])
            start = starts[i]
            return wrap(get_list(op)[start:start + sizes[i]])
    else:
        def get(op: Any) -> Any:
            starts, _ = _segments((op.properties if as_prop else op.attributes)[attr_name])
            return get_list(op)[starts[i]]
    return get


def _prop_accessor(d: AttrOrPropDef, key: str, in_props: bool) -> _Accessor:
    optional = isinstance(d, OptionalDef)
    default = d.default_value
    if in_props:
        if optional:
            def fget(op: Any) -> Any:
                return op.properties.get(key, default)

            def fset(op: Any, value: Any) -> None:
                if value is None:
                    op.properties.pop(key, None)
                else:
                    op.properties[key] = value
        else:
            def fget(op: Any) -> Any:
                return op.properties[key]

            def fset(op: Any, value: Any) -> None:
                op.properties[key] = value
    else:
        if optional:
            def fget(op: Any) -> Any:
                return op.attributes.get(key, default)

            def fset(op: Any, value: Any) -> None:
                if value is None:
                    op.attributes.pop(key, None)
                else:
                    op.attributes[key] = value
        else:
            def fget(op: Any) -> Any:
                return op.attributes[key]

            def fset(op: Any, value: Any) -> None:
                op.attributes[key] = value
    return _accessor(d, fget, fset)


# --- the op definition ----------------------------------------------------------------------------
class OpDef:
    """What an op class declares: its named operands, results, regions, successors,
    properties, attributes, options and traits."""

    __slots__ = ("_all_single_operands", "_all_single_results", "_checks", "_defaults",
                 "_ones_operands", "_ones_results", "accessor_names", "assembly_format",
                 "attributes",
                 "name", "operands", "options", "properties", "regions", "results",
                 "successors", "traits")

    def __init__(self, name: str) -> None:
        self.name = name
        self.operands: list[tuple[str, OperandDef]] = []
        self.results: list[tuple[str, ResultDef]] = []
        self.properties: dict[str, PropertyDef] = {}
        self.attributes: dict[str, AttributeDef] = {}
        self.regions: list[tuple[str, RegionDef]] = []
        self.successors: list[tuple[str, SuccessorDef]] = []
        self.options: list[IRDLOption] = []
        self.traits: OpTraits = traits_def()
        self.accessor_names: dict[str, tuple[str, str]] = {}
        self.assembly_format: str | None = None
        self._checks: Any = None
        self._defaults: list[tuple[bool, str, Attribute]] = []
        self._all_single_operands = self._all_single_results = True
        self._ones_operands: list[int] = []
        self._ones_results: list[int] = []

    @staticmethod
    def from_pyrdl(pyrdl_def: type[IRDLOperation]) -> OpDef:
        op_def = OpDef(pyrdl_def.name)
        seen: set[str] = set()
        traits: list[OpTraits] = []
        for klass in pyrdl_def.__mro__:
            if klass in _SKIPPED_BASES:
                continue
            for field_name, value in _class_fields(klass):
                if field_name == "traits":
                    if isinstance(value, OpTraits):
                        traits.append(value)
                        continue
                    raise PyRDLOpDefinitionError(
                        f"pyrdl operation definition '{pyrdl_def.__name__}' traits field "
                        f"should be an instance of'{OpTraits.__name__}'.")
                if field_name == "irdl_options":
                    _add_options(op_def, pyrdl_def, value)
                    continue
                if isinstance(value, _Accessor):
                    value = value.field_def
                elif not isinstance(value, _FieldDef):
                    continue
                if field_name in seen:
                    continue
                seen.add(field_name)
                if isinstance(value, OperandDef):
                    op_def.operands.append((field_name, value))
                elif isinstance(value, ResultDef):
                    op_def.results.append((field_name, value))
                elif isinstance(value, RegionDef):
                    op_def.regions.append((field_name, value))
                elif isinstance(value, SuccessorDef):
                    op_def.successors.append((field_name, value))
                elif isinstance(value, PropertyDef):
                    ir_name = value.ir_name or field_name
                    op_def.properties[ir_name] = value
                    op_def.accessor_names[field_name] = (ir_name, "property")
                elif isinstance(value, AttributeDef):
                    ir_name = value.ir_name or field_name
                    op_def.attributes[ir_name] = value
                    op_def.accessor_names[field_name] = (ir_name, "attribute")
        if len(traits) == 1:
            op_def.traits = traits[0]
        elif traits:
            op_def.traits = OpTraits(lambda: tuple(t for ts in traits for t in ts.gen_traits()))
        op_def.assembly_format = getattr(pyrdl_def, "assembly_format", None)
        op_def._defaults = [(True, k, d.default_value) for k, d in op_def.properties.items()
                            if not isinstance(d, OptionalDef) and d.default_value is not None]
        op_def._defaults += [(False, k, d.default_value) for k, d in op_def.attributes.items()
                             if not isinstance(d, OptionalDef) and d.default_value is not None]
        op_def._all_single_operands = not any(isinstance(d, VariadicDef)
                                              for _, d in op_def.operands)
        op_def._all_single_results = not any(isinstance(d, VariadicDef)
                                             for _, d in op_def.results)
        op_def._ones_operands = [1] * len(op_def.operands)
        op_def._ones_results = [1] * len(op_def.results)
        return op_def

    def _accessors(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        _make_accessors(cast(list[tuple[str, _FieldDef]], self.operands),
                        VarIRConstruct.OPERAND, self.options, out, self.name)
        _make_accessors(cast(list[tuple[str, _FieldDef]], self.results),
                        VarIRConstruct.RESULT, self.options, out, self.name)
        _make_accessors(cast(list[tuple[str, _FieldDef]], self.regions),
                        VarIRConstruct.REGION, self.options, out, self.name)
        _make_accessors(cast(list[tuple[str, _FieldDef]], self.successors),
                        VarIRConstruct.SUCCESSOR, self.options, out, self.name)
        for field_name, (ir_name, kind) in self.accessor_names.items():
            d = self.properties[ir_name] if kind == "property" else self.attributes[ir_name]
            out[field_name] = _prop_accessor(d, ir_name, kind == "property")
        return out

    # verification
    def verify(self, op: Operation) -> None:
        """Check ``op`` against the definition (counts, constraints, properties,
        attributes, traits); VerifyException on the first violation."""
        checks = self._checks
        if checks is None:
            checks = self._checks = _Checks(self)
        checks.operands.verify(op, op._operands)
        checks.results.verify(op, op.results)
        if self.regions or op.regions:
            _verify_regions(op, self)
        if self.successors or op._successors:
            _verify_counts(op, self, VarIRConstruct.SUCCESSOR)
        props = op.properties
        if props or self.properties:
            for prop_name, prop_def in self.properties.items():
                value = props.get(prop_name)
                if value is None:
                    if isinstance(prop_def, OptionalDef):
                        continue
                    raise VerifyException(f"property '{prop_name}' expected in operation "
                                          f"'{op.name}'")
                if prop_def.constr is not _ANY:
                    prop_def.constr.verify(value)
            for prop_name in props:
                if prop_name not in self.properties:
                    raise VerifyException(
                        f"property '{prop_name}' is not defined by the operation '{op.name}'. "
                        "Use the dictionary attribute to add arbitrary information to the "
                        "operation.")
        if self.attributes:
            attrs = op.attributes
            for attr_name, attr_def in self.attributes.items():
                value = attrs.get(attr_name)
                if value is None:
                    if isinstance(attr_def, OptionalDef):
                        continue
                    raise VerifyException(f"attribute '{attr_name}' expected in operation "
                                          f"'{op.name}'")
                if attr_def.constr is not _ANY:
                    attr_def.constr.verify(value)
        for trait in checks.traits():
            trait.verify(op)


# Per class, the entries of its __dict__ that can define an op (shared base classes are
# scanned once; a class's entry is dropped when it is decorated, which changes them).
_FIELDS: dict[type, tuple[tuple[str, Any], ...]] = {}


def _class_fields(klass: type) -> tuple[tuple[str, Any], ...]:
    found = _FIELDS.get(klass)
    if found is None:
        found = _FIELDS[klass] = tuple(
            (k, v) for k, v in klass.__dict__.items()
            if isinstance(v, _FieldDef | _Accessor) or k in ("traits", "irdl_options"))
    return found


class _ArgChecks:
    """What verification looks at for the operands (or results) of one definition: the
    count rule and the constrained groups; messages come from the general functions."""

    __slots__ = ("constrained", "construct", "exact", "has_opt", "n_defs", "n_var",
                 "ok_sizes", "op_def", "sized")

    def __init__(self, op_def: OpDef, construct: VarIRConstruct) -> None:
        defs = _defs_of(op_def, construct)
        self.op_def = op_def
        self.construct = construct
        self.sized = next((o for o in op_def.options if isinstance(o, AttrSizedSegments)
                           and o.construct is construct), None)
        variadic = [d for _, d in defs if isinstance(d, VariadicDef)]
        self.n_defs = len(defs)
        self.n_var = len(variadic)
        self.has_opt = any(isinstance(d, OptionalDef) for d in variadic)
        self.exact = self.n_defs if self.sized is None and not variadic else -1
        self.constrained = [(i, name, d.constr) for i, (name, d) in enumerate(defs)
                            if d.constr is not _ANY]
        # segment-size attributes already found consistent with the definition -> total
        self.ok_sizes: dict[Attribute, int] = {}

    def verify(self, op: Operation, values: Sequence[SSAValue]) -> None:
        length = len(values)
        if self.exact >= 0:
            if length != self.exact:
                _verify_counts(op, self.op_def, self.construct)
            for i, name, constr in self.constrained:
                try:
                    constr.verify(values[i].type)
                except VerifyException as e:
                    self._fail(op, name, e)
            return
        if self.sized is not None:
            option = self.sized
            attr = option.container(op).get(option.attribute_name)
            total = self.ok_sizes.get(attr) if attr is not None else None
            if total is None:
                _verify_attr_sizes(op, self.op_def, self.construct, option)
                self.ok_sizes[cast(Attribute, attr)] = length
            elif total != length:
                _verify_attr_sizes(op, self.op_def, self.construct, option)
            if self.constrained:
                starts, sizes = _segments(cast(Attribute, attr))
                for i, name, constr in self.constrained:
                    start = starts[i]
                    for v in values[start:start + sizes[i]]:
                        try:
                            constr.verify(v.type)
                        except VerifyException as e:
                            self._fail(op, name, e)
            return
        if self.has_opt:
            if length != self.n_defs and length != self.n_defs - self.n_var:
                _verify_counts(op, self.op_def, self.construct)
        elif length < self.n_defs - self.n_var or (length - self.n_defs) % self.n_var:
            _verify_counts(op, self.op_def, self.construct)
        for _, name, constr in self.constrained:
            group = getattr(op, name)
            if group is None:
                continue
            for v in (group,) if isinstance(group, SSAValue) else group:
                try:
                    constr.verify(v.type)
                except VerifyException as e:
                    self._fail(op, name, e)

    def _fail(self, op: Operation, failing: str, e: VerifyException) -> None:
        """Raise xDSL's message: the group's name and position(s)."""
        idx = 0
        for arg_name, _ in _defs_of(self.op_def, self.construct):
            group = getattr(op, arg_name)
            length = 0 if group is None else 1 if isinstance(group, SSAValue) else len(group)
            if arg_name == failing:
                if length == 0:
                    pos = f"expected at position {idx}"
                elif length == 1:
                    pos = f"at position {idx}"
                else:
                    pos = f"at positions {idx} to {idx + length - 1}"
                raise VerifyException(f"{get_construct_name(self.construct)} '{arg_name}' "
                                      f"{pos} does not verify:\n{e}") from e
            idx += length
        raise e


class _Checks:
    """Per definition, what verification has to look at."""

    __slots__ = ("_traits", "op_def", "operands", "results")

    def __init__(self, op_def: OpDef) -> None:
        self.op_def = op_def
        self.operands = _ArgChecks(op_def, VarIRConstruct.OPERAND)
        self.results = _ArgChecks(op_def, VarIRConstruct.RESULT)
        self._traits: tuple[OpTrait, ...] | None = None

    def traits(self) -> tuple[OpTrait, ...]:
        # traits whose verify does something (the base OpTrait.verify is a no-op)
        if self._traits is None:
            self._traits = tuple(t for t in self.op_def.traits
                                 if type(t).verify is not OpTrait.verify)
        return self._traits


def _defs_of(op_def: OpDef, construct: VarIRConstruct) -> list[tuple[str, Any]]:
    if construct is VarIRConstruct.OPERAND:
        return cast(list[tuple[str, Any]], op_def.operands)
    if construct is VarIRConstruct.RESULT:
        return cast(list[tuple[str, Any]], op_def.results)
    if construct is VarIRConstruct.REGION:
        return cast(list[tuple[str, Any]], op_def.regions)
    return cast(list[tuple[str, Any]], op_def.successors)


def _constructs_of(op: Operation, construct: VarIRConstruct) -> Sequence[Any]:
    if construct is VarIRConstruct.OPERAND:
        return op._operands
    if construct is VarIRConstruct.RESULT:
        return op.results
    if construct is VarIRConstruct.REGION:
        return op.regions
    return op._successors


def _verify_counts(op: Operation, op_def: OpDef, construct: VarIRConstruct) -> None:
    """The count checks of xDSL (segment sizes, or counts given the variadic groups)."""
    option = next((o for o in op_def.options if isinstance(o, AttrSizedSegments)
                   and o.construct is construct), None)
    if option is not None:
        _verify_attr_sizes(op, op_def, construct, option)
        return
    defs = _defs_of(op_def, construct)
    length = len(_constructs_of(op, construct))
    name = get_construct_name(construct)
    variadic = [d for _, d in defs if isinstance(d, VariadicDef)]
    if not variadic:
        if length != len(defs):
            raise VerifyException(f"Expected {_plural(len(defs), name)}, but got {length}")
    elif any(isinstance(d, OptionalDef) for d in variadic):
        if length not in (len(defs), len(defs) - len(variadic)):
            raise VerifyException(f"Expected {len(defs) - len(variadic)} or {len(defs)} "
                                  f"{name}s, but got {length}")
    else:
        if length < len(defs) - len(variadic):
            raise VerifyException(f"Expected at least {_plural(len(defs) - len(variadic), name)}"
                                  f", but got {length}")
        if (length - len(defs)) % len(variadic):
            raise VerifyException(
                f"Operation has {_plural(length - len(defs) + len(variadic), name)} for "
                f"{len(variadic)} variadic {name}s marked as having the same size.")


def _verify_attr_sizes(op: Operation, op_def: OpDef, construct: VarIRConstruct,
                       option: AttrSizedSegments) -> None:
    DenseArrayBase, i32 = _dense_array_and_i32()
    container = option.container(op)
    kind = "property" if option.as_property else "attribute"
    attr_name = option.attribute_name
    if attr_name not in container:
        raise VerifyException(f"Expected {attr_name} {kind} in {op.name} operation.")
    attr = container[attr_name]
    if not isinstance(attr, DenseArrayBase) or attr.elt_type != i32:
        raise VerifyException(f"{attr_name} {kind} is expected to be a DenseArrayBase of i32.")
    defs = _defs_of(op_def, construct)
    sizes = _segments(attr)[1]
    if len(sizes) != len(defs):
        raise VerifyException(f"expected {len(defs)} values in {attr_name}, but got "
                              f"{len(sizes)}")
    total = 0
    for size, (name, d) in zip(sizes, defs):
        if size < 0:
            raise VerifyException(f"'{attr_name}' attribute cannot have negative elements")
        if isinstance(d, OptionalDef) and size not in (0, 1):
            raise VerifyException(f"expected 0 or 1 values for {name}, but got {size}")
        if not isinstance(d, VariadicDef) and size != 1:
            raise VerifyException(f"expected 1 value for {name}, but got {size}")
        total += size
    count = len(_constructs_of(op, construct))
    if total != count:
        raise VerifyException(f"{get_construct_name(construct)} count ({count}) does not match "
                              f"with the total size ({total}) specified in attribute "
                              f"'{attr_name}'")


def _verify_regions(op: Operation, op_def: OpDef) -> None:
    _verify_counts(op, op_def, VarIRConstruct.REGION)
    idx = 0
    for name, region_def in op_def.regions:
        regions = getattr(op, name)
        many = isinstance(regions, tuple)
        group = regions if many else (() if regions is None else (regions,))
        for i, region in enumerate(group):
            if isinstance(region_def, _SINGLE_BLOCK_DEFS):
                count = len(region.blocks)
                if count != 1:
                    idx_msg = f"[{i}]" if many else ""
                    raise VerifyException(f"Region '{name}{idx_msg}' at position {idx + i} "
                                          f"expected a single block, but got {count} blocks")
            entry = region._first
            if entry is not None and region_def.entry_args is not _ANY:
                try:
                    for t in entry.arg_types:
                        region_def.entry_args.verify(t)
                except VerifyException as e:
                    idx_msg = f"[{i}]" if many else ""
                    raise VerifyException(f"Region '{name}{idx_msg}' at position {idx + i} "
                                          f"entry arguments do not verify:\n{e}") from e
        idx += len(group)


def _add_options(op_def: OpDef, pyrdl_def: type, value: Any) -> None:
    if not isinstance(value, tuple):
        raise PyRDLOpDefinitionError(
            f"All values `irdl_options` must be a `tuple`, got `{type(value).__name__}`.")
    for option in value:
        if not isinstance(option, IRDLOption):
            raise PyRDLOpDefinitionError("All values in irdl_options should inherit IRDLOption")
        op_def.options.append(option)
        if isinstance(option, AttrSizedSegments):
            defs = op_def.properties if option.as_property else op_def.attributes
            if option.attribute_name in defs:
                kind = "property" if option.as_property else "attribute"
                raise PyRDLOpDefinitionError(
                    f"pyrdl operation definition '{pyrdl_def.__name__}' has a "
                    f"'{option.attribute_name}' {kind}, which is incompatible with the "
                    f"{option} option.")
            constr = _DenseArrayConstraint()
            if option.as_property:
                op_def.properties[option.attribute_name] = PropertyDef(constr)
            else:
                op_def.attributes[option.attribute_name] = AttributeDef(constr)


_BUILTIN_ARRAY: list[Any] = []


def _dense_array_and_i32() -> tuple[Any, Any]:
    if not _BUILTIN_ARRAY:
        from .builtin import DenseArrayBase, i32

        _BUILTIN_ARRAY[:] = [DenseArrayBase, i32]
    return _BUILTIN_ARRAY[0], _BUILTIN_ARRAY[1]


class _DenseArrayConstraint(AttrConstraint[Attribute]):
    """``base(DenseArrayBase)``, with builtin looked up on first use."""

    __slots__ = ()

    def verify(self, attr: Attribute, constraint_context: object = None) -> None:
        dense = _dense_array_and_i32()[0]
        if not isinstance(attr, dense):
            BaseAttr(dense).verify(attr)


# --- IRDLOperation ---------------------------------------------------------------------
class IRDLOperation(Operation):
    """Base of declaratively defined ops (see `irdl_op_definition`)."""

    __slots__ = ()

    assembly_format: ClassVar[str | None] = None
    custom_directives: ClassVar[tuple[type, ...]] = ()
    _OP_DEF_: ClassVar[OpDef]

    def __init__(self, *, operands: Sequence[Any] | None = None,
                 result_types: Sequence[Any] | None = None,
                 properties: Mapping[str, Attribute | None] | None = None,
                 attributes: Mapping[str, Attribute | None] | None = None,
                 successors: Sequence[Any] | None = None,
                 regions: Sequence[Any] | None = None) -> None:
        irdl_op_init(self, self._OP_DEF_, operands=operands or (),
                     result_types=result_types or (), properties=properties or {},
                     attributes=attributes or {}, successors=successors or (),
                     regions=regions or ())

    @classmethod
    def build(cls, *, operands: Sequence[Any] | None = None,
              result_types: Sequence[Any] | None = None,
              attributes: Mapping[str, Attribute | None] | None = None,
              properties: Mapping[str, Attribute | None] | None = None,
              successors: Sequence[Any] | None = None,
              regions: Sequence[Any] | None = None) -> Self:
        """Build the op from per-definition groups (a single value, a list for a
        variadic, None or [] for an absent optional) without the class's ``__init__``."""
        op = cls.__new__(cls)
        irdl_op_init(op, cls._OP_DEF_, operands=operands or (),
                     result_types=result_types or (), properties=properties or {},
                     attributes=attributes or {}, successors=successors or (),
                     regions=regions or ())
        return op

    def __post_init__(self) -> None:
        defaults = self._OP_DEF_._defaults
        if defaults:
            for in_props, key, value in defaults:
                container = self.properties if in_props else self.attributes
                if key not in container:
                    container[key] = value
        assert self.name != "", f"{self.__class__.__name__} has no op name"

    @classmethod
    def get_irdl_definition(cls) -> OpDef:
        return cls._OP_DEF_


_SKIPPED_BASES = frozenset((Operation, IRDLOperation, object, Generic,
                            *Operation.__mro__))


def _operand_group(arg: Any) -> Any:
    if arg is None:
        return ()
    if isinstance(arg, SSAValue):
        return arg
    if isinstance(arg, Operation):
        return SSAValue.get(arg)
    return [a if isinstance(a, SSAValue) else SSAValue.get(a) for a in arg]


def _region_group(r: Any) -> Any:
    if r is None:
        return ()
    if isinstance(r, Region):
        return r
    if not len(r):
        return ()
    first = r[0]
    if isinstance(first, Operation):
        return Region(Block(r))
    if isinstance(first, Block):
        return Region(r)
    return [x if isinstance(x, Region) else _single_region(x) for x in r]


def _single_region(r: Any) -> Region:
    if not len(r):
        return Region()
    if isinstance(r[0], Operation):
        return Region(Block(r))
    return Region(r)


def _flatten(construct: VarIRConstruct, args: Sequence[Any],
             defs: Sequence[tuple[str, _FieldDef]],
             op_name: str, single: type | tuple[type, ...]) -> tuple[list[Any], list[int]]:
    if len(args) != len(defs):
        raise ValueError(f"Expected {len(defs)} {get_construct_name(construct)}, but got "
                         f"{len(args)}")
    res: list[Any] = []
    sizes: list[int] = []
    for idx, ((name, d), arg) in enumerate(zip(defs, args)):
        if arg is None:
            if not isinstance(d, OptionalDef):
                raise ValueError(f"Error in {op_name} builder: passed None to a non-optional "
                                 f"{construct} {idx} '{name}'")
            sizes.append(0)
        elif isinstance(arg, single):
            res.append(arg)
            sizes.append(1)
        else:
            if type(arg) is not list:
                arg = list(arg)
            if not isinstance(d, VariadicDef) and len(arg) != 1:
                raise ValueError(f"Error in {op_name} builder: passed Sequence to non-variadic "
                                 f"{construct} {idx} '{name}'")
            if isinstance(d, OptionalDef) and len(arg) > 1:
                raise ValueError(f"Error in {op_name} builder: optional {construct} {idx} "
                                 f"'{name}' expects a list of size at most 1 or None, but "
                                 f"got a list of size {len(arg)}")
            res.extend(arg)
            sizes.append(len(arg))
    return res, sizes


def irdl_op_init(self: IRDLOperation, op_def: OpDef, *, operands: Sequence[Any],
                 result_types: Sequence[Any], properties: Mapping[str, Attribute | None],
                 attributes: Mapping[str, Attribute | None], successors: Sequence[Any],
                 regions: Sequence[Any], location: LocationAttr | None = None) -> None:
    """Initialise ``self`` from per-definition groups (what ``build`` and ``__init__``
    take), adding the segment-size arrays the options ask for."""
    name = op_def.name
    # group sizes per construct, in VarIRConstruct order
    sizes: list[Sequence[int]] = [(), (), (), ()]
    built_operands: Sequence[SSAValue] = ()
    if operands or op_def.operands:
        if op_def._all_single_operands and len(operands) == len(op_def.operands) \
                and all(isinstance(o, SSAValue) for o in operands):
            built_operands = operands
            sizes[0] = op_def._ones_operands
        else:
            built_operands, sizes[0] = _flatten(
                VarIRConstruct.OPERAND,
                [o if isinstance(o, SSAValue) else _operand_group(o) for o in operands],
                op_def.operands, name, SSAValue)
    built_results: Sequence[Attribute] = ()
    if result_types or op_def.results:
        if op_def._all_single_results and len(result_types) == len(op_def.results) \
                and all(isinstance(t, Attribute) for t in result_types):
            built_results = result_types
            sizes[1] = op_def._ones_results
        else:
            built_results, sizes[1] = _flatten(VarIRConstruct.RESULT, result_types,
                                               op_def.results, name, Attribute)
    built_regions: Sequence[Region] = ()
    if regions or op_def.regions:
        built_regions, sizes[2] = _flatten(VarIRConstruct.REGION,
                                           [_region_group(r) for r in regions],
                                           op_def.regions, name, Region)
    built_successors: Sequence[Block] = ()
    if successors or op_def.successors:
        built_successors, sizes[3] = _flatten(VarIRConstruct.SUCCESSOR, successors,
                                              op_def.successors, name, Block)
    props: dict[str, Attribute] = \
        {k: v for k, v in properties.items() if v is not None} if properties else {}
    attrs: dict[str, Attribute] = \
        {k: v for k, v in attributes.items() if v is not None} if attributes else {}
    for option in op_def.options:
        if isinstance(option, AttrSizedSegments):
            (props if option.as_property else attrs)[option.attribute_name] = \
                _segment_attr(tuple(sizes[option._index]))
        elif isinstance(option, SameVariadicSize):
            defs = _defs_of(op_def, option.construct)
            var_sizes = [n for n, (_, d) in zip(sizes[option._index], defs)
                         if isinstance(d, VariadicDef)]
            if any(n != var_sizes[0] for n in var_sizes[1:]):
                raise ValueError(f"Variadic {get_construct_name(option.construct)}s have "
                                 f"different sizes: {var_sizes}")
    Operation.__init__(self, operands=built_operands, result_types=built_results,
                       properties=props, attributes=attrs, location=location,
                       successors=built_successors, regions=built_regions)


def irdl_op_definition(cls: type[_OpT]) -> type[_OpT]:
    """Turn the class's field definitions into accessors and attach its `OpDef`
    (``verify_`` then checks the definition before the class's own ``verify_``)."""
    assert issubclass(cls, IRDLOperation), \
        f"class {cls.__name__} should be a subclass of IRDLOperation"
    _FIELDS.pop(cls, None)
    op_def = OpDef.from_pyrdl(cls)
    _FIELDS.pop(cls, None)
    for key, value in op_def._accessors().items():
        setattr(cls, key, value)
    cls.traits = op_def.traits
    cls._OP_DEF_ = op_def
    custom = cls.verify_
    if custom is Operation.verify_:
        def verify_(self: IRDLOperation) -> None:
            op_def.verify(self)
    else:
        def verify_(self: IRDLOperation) -> None:
            op_def.verify(self)
            custom(self)
    cls.verify_ = verify_  # type: ignore[method-assign, assignment]
    return cls


_OpT = TypeVar("_OpT", bound=IRDLOperation)


# --- attribute definitions -------------------------------------------------------------
class ParamDef:
    """A parameter's constraint."""

    __slots__ = ("constr", "converter")

    def __init__(self, constr: AttrConstraint[Any], converter: Any = None) -> None:
        self.constr = constr
        self.converter = converter

    def __iter__(self) -> Any:
        return iter((self.constr, self.converter))


class ParamAttrDef:
    """The parameters of a parametrized attribute class, with their constraints."""

    __slots__ = ("name", "parameters")

    def __init__(self, name: str, parameters: list[tuple[str, ParamDef]]) -> None:
        self.name = name
        self.parameters = parameters

    @staticmethod
    def of(cls: type[ParametrizedAttribute]) -> ParamAttrDef:
        found = cls.__dict__.get("_PARAM_DEF_")
        if found is None:
            constrs = dict(_param_constraints(cls))
            found = ParamAttrDef(cls.name, [(n, ParamDef(constrs.get(n, _ANY)))
                                            for n in cls._PARAM_NAMES_])
            type.__setattr__(cls, "_PARAM_DEF_", found)
        return cast(ParamAttrDef, found)

    def verify(self, attr: ParametrizedAttribute) -> None:
        for field, param_def in self.parameters:
            try:
                param_def.constr.verify(getattr(attr, field))
            except VerifyException as e:
                raise VerifyException(f"parameter '{field}' does not verify:\n{e}") from e


def _is_classvar(annotation: Any) -> bool:
    if isinstance(annotation, str):
        a = annotation.strip()
        return a.startswith(("ClassVar", "typing.ClassVar", "Final", "typing.Final"))
    return annotation is ClassVar or typing.get_origin(annotation) is ClassVar


def _param_constraints(cls: type) -> list[tuple[str, AttrConstraint[Any]]]:
    """Each parameter's constraint from its annotation, resolved in the namespace of the
    module that declared it (unresolvable annotations constrain nothing)."""
    annotations: dict[str, tuple[Any, str]] = {}
    for klass in reversed(cls.__mro__):
        for key, ann in klass.__dict__.get("__annotations__", {}).items():  # noqa: RUF063
            annotations[key] = (ann, klass.__module__)
    out = []
    for name in cast(type[ParametrizedAttribute], cls)._PARAM_NAMES_:
        ann, module = annotations[name]
        if isinstance(ann, str):
            mod = sys.modules.get(module)
            try:
                ann = eval(ann, dict(vars(mod)) if mod is not None else {})
            except Exception:  # noqa: BLE001 - an unresolvable hint constrains nothing
                continue
        try:
            c = irdl_to_attr_constraint(ann)
        except Exception:  # noqa: BLE001
            continue
        out.append((name, c))
    return out


def _param_checks(cls: type[ParametrizedAttribute]) -> tuple[tuple[str, AttrConstraint[Any]], ...]:
    """The parameter checks run on construction (Any-constraints dropped); cached."""
    checks = cls.__dict__.get("_PARAM_CHECKS_")
    if checks is None:  # not resolved yet, or inherited from an undecorated base
        checks = tuple((n, c) for n, c in _param_constraints(cls) if c is not _ANY)
        type.__setattr__(cls, "_PARAM_CHECKS_", checks)
    return cast(tuple[tuple[str, AttrConstraint[Any]], ...], checks)


_AttrClassT = TypeVar("_AttrClassT", bound=type[Attribute])
_PARAM_BASES = frozenset(TypedAttribute.__mro__)


@overload
def irdl_attr_definition(cls: _AttrClassT, *, init: bool = True) -> _AttrClassT: ...
@overload
def irdl_attr_definition(*, init: bool = True) -> Callable[[_AttrClassT], _AttrClassT]: ...
def irdl_attr_definition(cls: Any = None, *, init: bool = True) -> Any:
    """Register an attribute class: for a `ParametrizedAttribute`, collect its parameters
    (annotations of the class and its bases, base first, ClassVars excluded)."""

    def decorate(cls: Any) -> Any:
        if issubclass(cls, ParametrizedAttribute):
            names: dict[str, None] = {}
            for klass in reversed(cls.__mro__):
                if klass in _PARAM_BASES:
                    continue
                for key, ann in klass.__dict__.get("__annotations__", {}).items():  # noqa: RUF063
                    if key in ("name", "parameters") or _is_classvar(ann) \
                            or (key.startswith("__") and key.endswith("__")):
                        continue
                    names[key] = None
            type.__setattr__(cls, "_PARAM_NAMES_", tuple(names))
            if "_PARAM_CHECKS_" not in cls.__dict__:   # resolved on first construction
                type.__setattr__(cls, "_PARAM_CHECKS_", None)
            if issubclass(cls, TypedAttribute) and "type" not in names:
                raise PyRDLAttrDefinitionError(
                    f"TypedAttribute {cls.__name__} should have a 'type' parameter.")
        elif not issubclass(cls, Data):
            raise TypeError(f"Class {cls.__name__} should either be a subclass of 'Data' or "
                            "'ParametrizedAttribute'")
        type.__setattr__(cls, "_IRDL_FINAL_", True)
        return cls

    return decorate if cls is None else decorate(cls)


def param_def(constraint: Any = None, *, default: Any = None, init: bool = True,
              converter: Any = None) -> Any:
    """Accepted for compatibility; the annotation gives the parameter's constraint."""
    return constraint
