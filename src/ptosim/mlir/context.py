"""`Context`: which operations, attributes and types the parser knows, by name.

The API is xDSL 0.74's ``xdsl.context.Context``. Lookups go through three methods a
subclass may override to load classes lazily (ptosim's front end builds generated ops on
first use): `Context._get_known_op`, `Context.get_optional_attr` and
`Context.get_optional_type`; they read ``_loaded_ops``, ``_loaded_attrs`` and
``_loaded_types`` (name -> class), which `load_op` / `load_attr_or_type` fill.

Unregistered constructs are not supported: with ``allow_unregistered=True`` an unknown
name is still unknown (None from the ``get_optional_*`` methods).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

from .exceptions import AlreadyRegisteredConstructException, UnregisteredConstructException

if TYPE_CHECKING:
    from .ir import Attribute, Dialect, Operation, TypeAttribute

__all__ = ["Context"]


def _split_name(name: str) -> tuple[str, str]:
    dialect, sep, rest = name.partition(".")
    if not sep:
        raise ValueError(f"Invalid operation or attribute name {name}.")
    return dialect, rest


class Context:
    """Registered dialects (loaded on first use) and loaded ops, attributes and types."""

    def __init__(self, allow_unregistered: bool = False,
                 _loaded_dialects: dict[str, Dialect] | None = None,
                 _loaded_ops: dict[str, type[Operation]] | None = None,
                 _loaded_attrs: dict[str, type[Attribute]] | None = None,
                 _loaded_types: dict[str, type[TypeAttribute]] | None = None,
                 _registered_dialects: dict[str, Callable[[], Dialect]] | None = None
                 ) -> None:
        self.allow_unregistered = allow_unregistered
        self._loaded_dialects: dict[str, Dialect] = _loaded_dialects or {}
        self._loaded_ops: dict[str, type[Operation]] = _loaded_ops or {}
        self._loaded_attrs: dict[str, type[Attribute]] = _loaded_attrs or {}
        self._loaded_types: dict[str, type[TypeAttribute]] = _loaded_types or {}
        self._registered_dialects: dict[str, Callable[[], Dialect]] = \
            _registered_dialects or {}

    def clone(self) -> Context:
        return type(self)(self.allow_unregistered, self._loaded_dialects.copy(),
                          self._loaded_ops.copy(), self._loaded_attrs.copy(),
                          self._loaded_types.copy(), self._registered_dialects.copy())

    @property
    def loaded_ops(self) -> Iterable[type[Operation]]:
        return self._loaded_ops.values()

    @property
    def loaded_attrs(self) -> Iterable[type[Attribute]]:
        return self._loaded_attrs.values()

    @property
    def loaded_types(self) -> Iterable[type[TypeAttribute]]:
        return self._loaded_types.values()

    @property
    def loaded_dialects(self) -> Iterable[Dialect]:
        return self._loaded_dialects.values()

    @property
    def registered_dialect_names(self) -> Iterable[str]:
        return self._registered_dialects.keys()

    # --- registration ---------------------------------------------------------------------
    def register_dialect(self, name: str, dialect_factory: Callable[[], Dialect]) -> None:
        """Make a dialect known without loading it: it loads when one of its names is
        looked up (or with `load_registered_dialect`)."""
        if name in self._registered_dialects:
            raise AlreadyRegisteredConstructException(f"'{name}' dialect is already registered")
        self._registered_dialects[name] = dialect_factory

    def load_registered_dialect(self, name: str) -> None:
        if name not in self._registered_dialects:
            raise UnregisteredConstructException(f"'{name}' dialect is not registered")
        dialect = self._registered_dialects[name]()
        self._loaded_dialects[dialect.name] = dialect
        for op in dialect.operations:
            self.load_op(op)
        for attr in dialect.attributes:
            self.load_attr_or_type(attr)

    def load_dialect(self, dialect: Dialect) -> None:
        """Register and load ``dialect``: all its ops, attributes and types."""
        if dialect.name in self._registered_dialects:
            raise AlreadyRegisteredConstructException(
                f"'{dialect.name}' dialect is already registered, use "
                "'load_registered_dialect' instead")
        self.register_dialect(dialect.name, lambda: dialect)
        self.load_registered_dialect(dialect.name)

    def load_op(self, op: type[Operation]) -> None:
        if op.name in self._loaded_ops:
            raise AlreadyRegisteredConstructException(
                f"Operation {op.name} has already been loaded")
        self._loaded_ops[op.name] = op

    def load_attr_or_type(self, attr: type[Attribute]) -> None:
        """Load an attribute or a type class (a type may share an attribute's name)."""
        from .ir import TypeAttribute

        if issubclass(attr, TypeAttribute):
            if attr.name in self._loaded_types:
                raise AlreadyRegisteredConstructException(
                    f"Type {attr.name} has already been loaded")
            self._loaded_types[attr.name] = attr
        else:
            if attr.name in self._loaded_attrs:
                raise AlreadyRegisteredConstructException(
                    f"Attribute {attr.name} has already been loaded")
            self._loaded_attrs[attr.name] = attr

    def _load_dialect_of(self, name: str) -> bool:
        """Load the registered, not yet loaded dialect of ``name``; False if none."""
        dialect, sep, _ = name.partition(".")
        if sep and dialect in self._registered_dialects \
                and dialect not in self._loaded_dialects:
            self.load_registered_dialect(dialect)
            return True
        return False

    # --- lookups --------------------------------------------------------------------------
    def _get_known_op(self, name: str) -> type[Operation] | None:
        """The op class loaded under exactly ``name`` (loading its dialect if needed)."""
        op = self._loaded_ops.get(name)
        if op is None and self._load_dialect_of(name):
            return self._get_known_op(name)
        return op

    def get_optional_op(self, name: str, *, dialect_stack: Sequence[str] = ()
                        ) -> type[Operation] | None:
        """The op class of ``name``, or of ``dialect.name`` for a dialect of
        ``dialect_stack`` (innermost, i.e. last, first); None if there is none."""
        if (op := self._get_known_op(name)) is not None:
            return op
        for dialect in reversed(dialect_stack):
            if (op := self._get_known_op(f"{dialect}.{name}")) is not None:
                return op
        return None

    def get_op(self, name: str, *, dialect_stack: Sequence[str] = ()) -> type[Operation]:
        if (op := self.get_optional_op(name, dialect_stack=dialect_stack)) is not None:
            return op
        raise UnregisteredConstructException(f"Operation {name} is not registered")

    def get_optional_type(self, name: str) -> type[TypeAttribute] | None:
        found = self._loaded_types.get(name)
        if found is None:
            _split_name(name)
            if self._load_dialect_of(name):
                return self.get_optional_type(name)
        return found

    def get_type(self, name: str) -> type[TypeAttribute]:
        if (found := self.get_optional_type(name)) is not None:
            return found
        raise UnregisteredConstructException(f"Type {name} is not registered")

    def get_optional_attr(self, name: str) -> type[Attribute] | None:
        found = self._loaded_attrs.get(name)
        if found is None:
            _split_name(name)
            if self._load_dialect_of(name):
                return self.get_optional_attr(name)
        return found

    def get_attr(self, name: str) -> type[Attribute]:
        if (found := self.get_optional_attr(name)) is not None:
            return found
        raise UnregisteredConstructException(f"Attribute {name} is not registered")

    def get_optional_dialect(self, name: str) -> Dialect | None:
        if name in self._registered_dialects and name not in self._loaded_dialects:
            self.load_registered_dialect(name)
        return self._loaded_dialects.get(name)

    def get_dialect(self, name: str) -> Dialect:
        if (dialect := self.get_optional_dialect(name)) is None:
            raise UnregisteredConstructException(f"Dialect {name} is not registered")
        return dialect
