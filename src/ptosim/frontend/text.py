"""``.pto`` text <-> module, with every failure reported as one `PtoSyntaxError`.

The parser raises its own exception types (and Python raises RecursionError, MemoryError,
ValueError ... on hostile input); `parse_module` turns all of them into a
`PtoSyntaxError` located at ``file:line:col``.
"""

from __future__ import annotations

import re
from io import StringIO

from ..errors import NotImplementedTextOpError, PtoSyntaxError, printable
from ..isa.planned import planned_mnemonic
from ..mlir import arith
from ..mlir.builtin import (
    UNKNOWN_LOC,
    Builtin,
    FileLineColLoc,
    IntAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    StringAttr,
    SymbolRefAttr,
    TensorType,
    VectorType,
)
from ..mlir.context import Context
from ..mlir.exceptions import DiagnosticException, ParseError, Span, VerifyException
from ..mlir.func import CallOp, Func
from ..mlir.ir import Attribute, Block, Operation, SSAValue, TypeAttribute
from ..mlir.parser import Parser
from ..mlir.printer import Printer
from ..mlir.scf import Scf
from ..mlir.traits import IsolatedFromAbove, NoTerminator
from .dialect import LAZY_NAMES, PTO_CORE, lazy_classes
from .generated_ops import generated_op
from .vector_ops import vector_scope_error

_MAX_MESSAGE = 400  # parser messages can embed whole attributes; keep diagnostics readable


class _Context(Context):
    """Builds an arith op's or a generated pto op's class the first time a kernel names
    it, and loads a module of `LAZY_MODULES` the first time a kernel names one of its ops,
    attributes or types."""

    def _load_lazy(self, name: str) -> bool:
        module = LAZY_NAMES.get(name)
        # (a type may share an attribute's name: ``!pto.pipe`` and ``#pto.pipe<...>``)
        done: set[str] = self.__dict__.setdefault("_lazy_loaded", set())
        if module is None or module in done:
            return False
        done.add(module)
        ops, attrs = lazy_classes(module)
        for op in ops:
            if op.name not in self._loaded_ops:
                self.load_op(op)
        for attr in attrs:
            loaded = self._loaded_types if issubclass(attr, TypeAttribute) else \
                self._loaded_attrs
            if attr.name not in loaded:
                self.load_attr_or_type(attr)
        return True

    def _get_known_op(self, name: str) -> type[Operation] | None:
        known = super()._get_known_op(name)
        if known is None and name.startswith("arith."):
            known = arith.op_class(name)
            if known is not None:
                self._loaded_ops[name] = known
        elif known is None and name.startswith("pto."):
            known = generated_op(name)
            if known is not None:
                self._loaded_ops[name] = known
            elif self._load_lazy(name):
                known = super()._get_known_op(name)
        return known

    def get_optional_attr(self, name: str) -> type[Attribute] | None:
        found = super().get_optional_attr(name)
        if found is None and self._load_lazy(name):
            found = super().get_optional_attr(name)
        return found

    def get_optional_type(self, name: str) -> type[TypeAttribute] | None:
        found = super().get_optional_type(name)
        if found is None and self._load_lazy(name):
            found = super().get_optional_type(name)
        return found


def load_context() -> Context:
    """A context with builtin, func, arith, scf and pto; unknown ops are errors. Its
    ``loaded_ops`` grow as arith ops and generated pto ops are looked up
    (`ptosim.mlir.arith.op_class`, `generated_op`)."""
    ctx = _Context(allow_unregistered=False)
    for dialect in (Builtin, Func, Scf, PTO_CORE):
        ctx.load_dialect(dialect)
    for attr in arith.ATTRIBUTES:
        ctx.load_attr_or_type(attr)
    return ctx


_CONTEXT: Context | None = None


def _context() -> Context:
    global _CONTEXT
    if _CONTEXT is None:
        _CONTEXT = load_context()
    return _CONTEXT


class _NameError(ParseError):
    """A ParseError already placed at the name it is about."""


class _PlannedName(_NameError):
    """An op name that PTO defines and ptosim does not implement yet."""


class _Parser(Parser):
    """Remembers where each op starts (verifier errors point there) and names unknown ops."""

    def __init__(self, ctx: Context, text: str, name: str) -> None:
        super().__init__(ctx, text, name)
        self.text = text
        self.filename = StringAttr(name)
        self.op_starts: dict[Operation, int] = {}
        self.open_ops: list[int] = []  # start offsets of the ops being parsed, outermost first
        # ops start in increasing offsets, so line numbers are counted incrementally
        self._seen, self._line, self._line_start = 0, 1, 0

    def parse_operation(self) -> Operation:
        start = self.pos
        self.open_ops.append(start)
        line, col = self._line_col(start)
        op = super().parse_operation()
        self.open_ops.pop()
        self.op_starts[op] = start
        if op.location == UNKNOWN_LOC:   # an explicit loc(...) in the text wins
            op.location = FileLineColLoc(self.filename, IntAttr(line), IntAttr(col))
        return op

    def _line_col(self, pos: int) -> tuple[int, int]:
        newlines = self.text.count("\n", self._seen, pos)
        if newlines:
            self._line += newlines
            self._line_start = self.text.rfind("\n", self._seen, pos) + 1
        self._seen = pos
        return self._line, pos - self._line_start + 1

    def parse_optional_type(self) -> TypeAttribute | None:
        pos = self.pos
        try:
            t = super().parse_optional_type()
        except ParseError as err:
            raise self._at_name(err, pos) from None
        if t is not None and (why := _oversized(t)) is not None:
            self.raise_error(why, pos)
        return t

    def parse_optional_attribute(self) -> Attribute | None:
        pos = self.pos
        try:
            return super().parse_optional_attribute()
        except ParseError as err:
            raise self._at_name(err, pos) from None

    def _at_name(self, err: ParseError, pos: int) -> ParseError:
        """Unknown dialect types and attributes are reported where their name starts
        (the parser reports the token after it)."""
        if err.msg.endswith("is not registered") and not isinstance(err, _NameError):
            return _NameError(Span(pos, pos, self.lexer.input), err.msg)
        return err


    def _get_op_by_name(self, name: str) -> type[Operation]:
        op_type = self.ctx.get_optional_op(name, dialect_stack=self.dialect_stack)
        if op_type is None:
            at = self.lexer.input.content.rfind(name, 0, self.pos)
            if (planned := planned_mnemonic(name)) is not None:
                raise _PlannedName(Span(at, at + len(name), self.lexer.input),
                                   f"{planned} (see the README's support table)")
            shown = name if len(name) <= 64 else name[:64] + "..."
            self.raise_error(f"unknown op '{shown}'", at if at >= 0 else None)
        return op_type


_MAX_INT_WIDTH = 64         # PTO scalars are at most 64 bits
_MAX_ELEMENTS = 1 << 20     # dense constants are materialised element by element


def _oversized(t: Attribute) -> str | None:
    """Types whose later use would exhaust memory (integer constants are range-checked with
    ``1 << width`` and dense splats expanded): reject them where they are written."""
    if isinstance(t, IntegerType) and t.width.data > _MAX_INT_WIDTH:
        return f"integer type {t.width.data} bits wide; at most {_MAX_INT_WIDTH} supported"
    if isinstance(t, (TensorType, VectorType, MemRefType)):
        count = 1
        for dim in t.get_shape():
            count *= max(dim, 1)
            if count > _MAX_ELEMENTS:
                return f"shaped type with more than {_MAX_ELEMENTS} elements"
    return None


def op_location(op: Operation) -> str | None:
    """``file:line:col`` where a parsed op starts (its results included); None for ops that
    were built rather than parsed."""
    loc = op.location
    if isinstance(loc, FileLineColLoc):   # the file name may come from loc("..."): escape it
        return f"{printable(loc.filename.data)}:{loc.line.data}:{loc.column.data}"
    return None


def location(text: str, filename: str, pos: int) -> str:
    """``filename:line:col`` (1-based) of character offset ``pos`` in ``text``."""
    pos = max(0, min(pos, len(text)))
    line = text.count("\n", 0, pos) + 1
    col = pos - (text.rfind("\n", 0, pos) + 1) + 1
    return f"{printable(filename)}:{line}:{col}"


def _error(text: str, filename: str, pos: int, message: str,
           kind: type[PtoSyntaxError] = PtoSyntaxError) -> PtoSyntaxError:
    message = " ".join(message.split())
    message = printable(message)
    if len(message) > _MAX_MESSAGE:
        message = message[:_MAX_MESSAGE] + " ..."
    return kind(message, loc=location(text, filename, pos))


# PTOAS prints enum attributes as ``#pto<atomic_type atomic_add>``; the parser reads the dotted
# ``#pto.atomic_type<atomic_add>``. The rewrite keeps every offset (pads after the '>').
_PRETTY_ATTR = re.compile(r"#pto<([A-Za-z_]\w*)(\s+)([A-Za-z_]\w*)>")


def _dotted(m: re.Match[str]) -> str:
    return f"#pto.{m[1]}<{m[3]}>" + " " * (len(m[2]) - 1)


def parse_module(text: str, filename: str = "<input>") -> ModuleOp:
    """Parse and verify ``.pto`` text. Any malformed input raises `PtoSyntaxError` with
    ``.loc == "filename:line:col"``; no other exception escapes."""
    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as err:
            raise PtoSyntaxError(f"input is not UTF-8 text ({err.reason} at byte {err.start})",
                                 loc=f"{filename}:1:1") from None
    if not isinstance(text, str):
        raise PtoSyntaxError(f"expected .pto text, got {type(text).__name__}",
                             loc=f"{filename}:1:1")
    parser: _Parser | None = None
    try:
        parser = _Parser(_context(), _PRETTY_ATTR.sub(_dotted, text), filename)
        module = parser.parse_module()
        _verify(module, parser, text, filename)
        return module
    except PtoSyntaxError:
        raise
    except _PlannedName as err:
        raise _error(text, filename, err.span.start, err.msg, NotImplementedTextOpError) \
            from None
    except ParseError as err:
        raise _error(text, filename, err.span.start, _parse_message(err)) from None
    except RecursionError:
        raise _error(text, filename, _where(parser), "nesting is too deep") from None
    except MemoryError:
        raise _error(text, filename, _where(parser), "input too large to parse") from None
    except (VerifyException, DiagnosticException) as err:
        # raised while building an op (e.g. a constant that does not fit its type)
        raise _error(text, filename, _where(parser, innermost_op=True), str(err)) from None
    except Exception as err:  # the contract: only PtoSyntaxError escapes
        raise _error(text, filename, _where(parser, innermost_op=True),
                     f"invalid input: {err}") from err


def _parse_message(err: ParseError) -> str:
    """The parser's message, reworded where it is unclear on its own."""
    message = err.msg.strip()
    if message == "Could not parse entire input!":
        return "expected an operation"
    if (m := re.fullmatch(r"'([\w.$-]+)' is not registered", message)) is not None:
        return f"unknown type or attribute '{m.group(1)}'"
    if message.startswith("Expected suffix identifier after"):
        return f"expected a name after '{err.span.text[:1]}'"
    if message.startswith("in ") or not message:  # the parser gave only the context
        token = err.span.text[:20]
        message = f"unexpected '{token}'" + (f" {message}" if message else "")
    return message


def _where(parser: _Parser | None, innermost_op: bool = False) -> int:
    """Where the parser stopped, or the start of the op it was inside."""
    if parser is None:
        return 0
    if innermost_op and parser.open_ops:
        return parser.open_ops[-1]
    try:
        return parser.pos
    except Exception:  # noqa: BLE001 - a broken lexer state must not mask the real error
        return 0


def _verify(module: ModuleOp, parser: _Parser, text: str, filename: str) -> None:
    """Verify op by op (what ``module.verify()`` checks) so that an error points at the op
    that breaks a rule."""
    if (late := _use_before_definition(module)) is not None:
        op, value = late
        raise _error(text, filename, parser.op_starts.get(op, 0),
                     f"{op.name}: operand %{value.name_hint or '?'} is used before its "
                     f"definition")
    tables: dict[Operation, dict[str, Operation]] = {}
    for op in module.walk():
        try:
            if not (op.name == "func.call" and _verify_call(op, tables)):
                op.verify(verify_nested_ops=False)
            if (why := vector_scope_error(op)) is not None:
                raise VerifyException(why)
            for region in op.regions:
                if len(region.blocks) == 1 and not region.block.ops \
                        and not op.has_trait(NoTerminator):
                    raise VerifyException("its body is empty but must end in a terminator")
        except Exception as err:  # noqa: BLE001 - verifiers raise several types
            raise _error(text, filename, parser.op_starts.get(op, 0),
                         _verify_message(op, err)) from None


def _verify_call(op: Operation, tables: dict[Operation, dict[str, Operation]]) -> bool:
    """func.call's verifier with a symbol dictionary built once per module: the op's own
    verifier scans the module for each call (quadratic: 1,000 calls took 15 s under
    xDSL). False (the op verifies itself) for nested symbol references."""
    callee = op.properties["callee"]
    if not isinstance(callee, SymbolRefAttr) or callee.nested_references.data \
            or not isinstance(op, CallOp):
        return False
    table = op.parent_op()
    while table is not None and not isinstance(table, ModuleOp):
        table = table.parent_op()
    if table is None:
        return False
    if table not in tables:
        tables[table] = {o.properties["sym_name"].data: o for o in table.ops
                         if isinstance(o.properties.get("sym_name"), StringAttr)}
    op.verify_callee(tables[table])
    return True


def _use_before_definition(module: ModuleOp) -> tuple[Operation, SSAValue] | None:
    """The first op (in text order) using a value not defined before it: by an earlier op
    of its block or of an enclosing block, or as an enclosing block's argument (MLIR
    dominance for single-block regions). The parser resolves forward references within a region,
    so ``%x = arith.addi %y, ...`` followed by ``%y = ...`` parses. func.func bodies are
    isolated: they see nothing from outside. Depth is bounded by the parser's nesting
    limit."""

    def scan(block: Block, defined: set[SSAValue]) -> tuple[Operation, SSAValue] | None:
        added: list[SSAValue] = [a for a in block.args if a not in defined]
        defined.update(added)
        try:
            for op in block.ops:
                for value in op.operands:
                    if value not in defined:
                        return op, value
                inner = set() if op.has_trait(IsolatedFromAbove) else defined
                for region in op.regions:
                    for b in region.blocks:
                        if (found := scan(b, inner)) is not None:
                            return found
                for res in op.results:
                    defined.add(res)
                    added.append(res)
            return None
        finally:
            defined.difference_update(added)

    return scan(module.body.block, set())


def _verify_message(op: Operation, err: Exception) -> str:
    message = str(err).removeprefix("Operation does not verify: ")
    return message if op.name in message else f"{op.name}: {message}"


def print_module(module: Operation) -> str:
    """Canonical text of a module; ``parse_module(print_module(m))`` prints the same."""
    out = StringIO()
    Printer(stream=out).print_op(module)
    return out.getvalue() + "\n"
