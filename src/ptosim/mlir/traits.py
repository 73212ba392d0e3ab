"""Operation traits: invariants and properties shared by several operation definitions.

A trait is an instance attached to an op class with ``traits = traits_def(Pure(), ...)``;
two traits are equal when they have the same class and parameters.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from .exceptions import VerifyException

if TYPE_CHECKING:
    from .builtin import StringAttr, SymbolRefAttr
    from .ir import Attribute, Operation, Region, SSAValue


class _KeyedValue:
    """A value compared, hashed and shown by its class and ``_key()`` (traits here, attribute
    constraints in irdl)."""

    __slots__ = ()

    def _key(self) -> tuple[Any, ...]:
        """The parameters that equality and hashing compare (none by default)."""
        return ()

    def __eq__(self, other: object) -> bool:
        return other.__class__ is self.__class__ and \
            self._key() == other._key()

    def __hash__(self) -> int:
        return hash((self.__class__, self._key()))

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}({', '.join(map(repr, self._key()))})"


class OpTrait(_KeyedValue):
    """A property of an operation definition; ``verify`` checks it on an op."""

    __slots__ = ()

    def verify(self, op: Operation) -> None:
        """Raise VerifyException if ``op`` does not satisfy the trait."""


OpTraitInvT = TypeVar("OpTraitInvT", bound=OpTrait)


class ConstantLike(OpTrait):
    """The op produces a constant value."""

    __slots__ = ()


class HasFolder(OpTrait):
    """The op can be folded."""

    __slots__ = ()

    @classmethod
    def fold(cls, op: Operation) -> Sequence[SSAValue | Attribute] | None:
        raise NotImplementedError


class _OpTypesTrait(OpTrait):
    """A trait naming one or more op classes, ``op_types``."""

    __slots__ = ("op_types",)

    op_types: tuple[type[Operation], ...]

    def __init__(self, head_param: type[Operation], *tail_params: type[Operation]) -> None:
        self.op_types = (head_param, *tail_params)

    def _key(self) -> tuple[Any, ...]:
        return self.op_types

    def _expects(self, op: Operation, relation: str) -> VerifyException:
        """The error "``op`` expects its ``relation`` op to be one of ``op_types``"."""
        if len(self.op_types) == 1:
            return VerifyException(
                f"'{op.name}' expects {relation} op '{self.op_types[0].name}'")
        names = ", ".join(f"'{p.name}'" for p in self.op_types)
        return VerifyException(f"'{op.name}' expects {relation} op to be one of {names}")


class HasParent(_OpTypesTrait):
    """The op's parent op is one of ``op_types`` (a detached op is not checked)."""

    __slots__ = ()

    def verify(self, op: Operation) -> None:
        parent = op.parent_op()
        if parent is not None and not isinstance(parent, self.op_types):
            raise self._expects(op, "parent")


class HasAncestor(_OpTypesTrait):
    """Some (transitive) parent op, or the op itself, is one of ``op_types``."""

    __slots__ = ()

    def walk_ancestors(self, op: Operation) -> Iterator[Operation]:
        curr: Operation | None = op
        while curr is not None:
            yield curr
            curr = curr.parent_op()

    def get_ancestor(self, op: Operation) -> Operation | None:
        return next((a for a in self.walk_ancestors(op) if isinstance(a, self.op_types)),
                    None)

    def verify(self, op: Operation) -> None:
        if self.get_ancestor(op) is None:
            raise self._expects(op, "ancestor")


class IsTerminator(OpTrait):
    """The op ends its block."""

    __slots__ = ()

    def verify(self, op: Operation) -> None:
        if op.parent is not None and op.parent.last_op is not op:
            raise VerifyException(f"'{op.name}' must be the last operation in its parent block")


class ReturnLike(OpTrait):
    """A terminator that leaves its region, forwarding its operands."""

    __slots__ = ()

    def verify(self, op: Operation) -> None:
        if not op.has_trait(IsTerminator):
            raise VerifyException(f"{op.name} is not a terminator")
        if op.results:
            raise VerifyException(f"{op.name} does not have zero results")
        if op.successors:
            raise VerifyException(f"{op.name} does not have zero successors")


def _verify_single_block(op: Operation, region: Region) -> None:
    """Raise VerifyException if ``op``'s ``region`` has more than one block."""
    if region._first is not region._last:
        raise VerifyException(f"'{op.name}' does not contain single-block regions")


class NoTerminator(OpTrait):
    """The op's regions are single blocks that need not end in a terminator."""

    __slots__ = ()

    def verify(self, op: Operation) -> None:
        for region in op.regions:
            _verify_single_block(op, region)


class SingleBlockImplicitTerminator(OpTrait):
    """The op's regions are single blocks ending in an ``op_type`` op."""

    __slots__ = ("op_type",)

    op_type: type[Operation]

    def __init__(self, op_type: type[Operation]) -> None:
        self.op_type = op_type

    def _key(self) -> tuple[Any, ...]:
        return (self.op_type,)

    def verify(self, op: Operation) -> None:
        for region in op.regions:
            _verify_single_block(op, region)
            for block in region.blocks:
                last_op = block.last_op
                if last_op is None:
                    raise VerifyException(
                        f"'{op.name}' contains empty block instead of at least terminating "
                        f"with {self.op_type.name}")
                if not isinstance(last_op, self.op_type):
                    raise VerifyException(
                        f"'{op.name}' terminates with operation {last_op.name} instead of "
                        f"{self.op_type.name}")


def ensure_terminator(op: Operation, trait: SingleBlockImplicitTerminator) -> None:
    """Give each block of ``op``'s regions (one empty block if a region has none) a
    terminator ``trait.op_type.create()`` unless it already ends in a terminator."""
    from .ir import Block

    for region in op.regions:
        _verify_single_block(op, region)
        for block in region.blocks:
            last_op = block.last_op
            if last_op is not None and last_op.has_trait(IsTerminator) \
                    and not isinstance(last_op, trait.op_type):
                raise VerifyException(f"'{op.name}' terminates with operation {last_op.name} "
                                      f"instead of {trait.op_type.name}")
    for region in op.regions:
        if region._first is None:
            region.add_block(Block())
        for block in region.blocks:
            last_op = block.last_op
            if last_op is None or not last_op.has_trait(IsTerminator):
                block.add_op(trait.op_type.create())


class IsolatedFromAbove(OpTrait):
    """Ops inside the op's regions use only values defined inside the op."""

    __slots__ = ()

    def verify(self, op: Operation) -> None:
        regions: list[Region] = list(op.regions)
        while regions:
            region = regions.pop()
            for block in region.blocks:
                for child_op in block.ops:
                    for operand in child_op.operands:
                        owner = operand.owner
                        if owner is op or not op.is_ancestor(owner):
                            raise VerifyException(
                                "Operation using value defined out of its IsolatedFromAbove "
                                f"parent: {child_op}")
                    if not child_op.has_trait(IsolatedFromAbove):
                        regions += child_op.regions


class SymbolUserOpInterface(OpTrait):
    """The op refers to symbols; ``verify`` checks the references."""

    __slots__ = ()

    def verify(self, op: Operation) -> None:
        raise NotImplementedError


class SymbolOpInterface(OpTrait):
    """The op defines a symbol: a ``sym_name`` StringAttr attribute or property."""

    __slots__ = ()

    def get_sym_attr_name(self, op: Operation) -> StringAttr | None:
        from .builtin import StringAttr

        sym_name = op.get_attr_or_prop("sym_name")
        if sym_name is None and self.is_optional_symbol(op):
            return None
        if not isinstance(sym_name, StringAttr):
            raise VerifyException(
                f'Operation {op.name} must have a "sym_name" attribute of type `StringAttr` '
                f"to conform to {SymbolOpInterface.__name__}")
        return sym_name

    def is_optional_symbol(self, op: Operation) -> bool:
        return False

    def verify(self, op: Operation) -> None:
        self.get_sym_attr_name(op)


class OptionalSymbolOpInterface(SymbolOpInterface):
    """A symbol op whose ``sym_name`` may be absent."""

    __slots__ = ()

    def is_optional_symbol(self, op: Operation) -> bool:
        return True


class SymbolTable(OpTrait):
    """The op holds one single-block region whose symbols are unique."""

    __slots__ = ()

    def verify(self, op: Operation) -> None:
        from .builtin import StringAttr

        if len(op.regions) != 1:
            raise VerifyException("Operations with a 'SymbolTable' must have exactly one region")
        region = op.regions[0]
        if region._first is None or region._first is not region._last:
            raise VerifyException("Operations with a 'SymbolTable' must have exactly one block")
        seen: set[StringAttr] = set()
        for o in region._first.ops:
            sym_name = o.get_attr_or_prop("sym_name")
            if not isinstance(sym_name, StringAttr):
                continue
            if sym_name in seen:
                raise VerifyException(f'Redefinition of symbol "{sym_name.data}"')
            seen.add(sym_name)

    @staticmethod
    def lookup_symbol(op: Operation, name: str | StringAttr | SymbolRefAttr) -> Operation | None:
        """The op named ``name`` in the nearest enclosing symbol table of ``op``."""
        from .builtin import StringAttr, SymbolRefAttr

        anchor: Operation | None = op
        while anchor is not None and not anchor.has_trait(SymbolTable):
            anchor = anchor.parent_op()
        if anchor is None:
            raise ValueError(f"Operation {op} has no SymbolTable ancestor")
        if isinstance(name, str | StringAttr):
            name = SymbolRefAttr(name)
        for o in anchor.regions[0].block.ops:
            trait = o.get_trait(SymbolOpInterface)
            if trait is not None and trait.get_sym_attr_name(o) == name.root_reference:
                if not name.nested_references.data:
                    return o
                root, *rest = name.nested_references.data
                return SymbolTable.lookup_symbol(o, SymbolRefAttr(root, rest))
        return None


class CallableOpInterface(OpTrait):
    """The op is a callable (a function): its body region, arguments and results."""

    __slots__ = ()

    @classmethod
    def get_callable_region(cls, op: Operation) -> Region:
        raise NotImplementedError

    @classmethod
    def get_argument_types(cls, op: Operation) -> tuple[Attribute, ...]:
        raise NotImplementedError

    @classmethod
    def get_result_types(cls, op: Operation) -> tuple[Attribute, ...]:
        raise NotImplementedError


class HasCanonicalizationPatternsTrait(OpTrait):
    """Marker kept for op definitions that name canonicalisation patterns."""

    __slots__ = ()


class MemoryEffect(OpTrait):
    """The op's effects on memory."""

    __slots__ = ()


class NoMemoryEffect(MemoryEffect):
    __slots__ = ()


class MemoryReadEffect(MemoryEffect):
    __slots__ = ()


class MemoryWriteEffect(MemoryEffect):
    __slots__ = ()


class MemoryAllocEffect(MemoryEffect):
    __slots__ = ()


class MemoryFreeEffect(MemoryEffect):
    __slots__ = ()


class RecursiveMemoryEffect(MemoryEffect):
    """The op's effects are those of the ops in its regions."""

    __slots__ = ()


class ConditionallySpeculatable(OpTrait):
    __slots__ = ()


class AlwaysSpeculatable(ConditionallySpeculatable):
    __slots__ = ()


class RecursivelySpeculatable(ConditionallySpeculatable):
    __slots__ = ()


class Pure(NoMemoryEffect, AlwaysSpeculatable):
    """No memory effects and always speculatable."""

    __slots__ = ()


class Commutative(OpTrait):
    __slots__ = ()


class SameOperandsAndResultType(OpTrait):
    """All operands and results have one type."""

    __slots__ = ()

    def verify(self, op: Operation) -> None:
        if not op.results and not op.operands:
            raise VerifyException(f"'{op.name}' requires at least one result or operand")
        types = [v.type for v in (*op.results, *op.operands)]
        if any(t != types[0] for t in types[1:]):
            raise VerifyException(
                f"'{op.name} requires the same type for all operands and results")
