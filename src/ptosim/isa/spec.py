"""`OpSpec`: what ptosim knows about one op besides its semantics."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

Args = Sequence[Any]            # an op's runtime arguments, in its Python call order


@dataclass(frozen=True)
class Operand:
    """One operand (or result) of a generated op.

    ``kind`` is the front end's operand kind (``int``, ``ptr``, ``vreg``, ``mask``, ...);
    ``role`` says what the op does to the memory a pointer operand addresses (R, W or RW;
    the hazard checker still takes the exact ranges from the op's ``_region`` calls);
    ``bits`` is the width of an integer field, ``space`` the address spaces a pointer may
    name, ``align`` the byte alignment it needs.
    """

    name: str
    kind: str = "int"
    role: str = "R"
    bits: int | None = None
    space: tuple[str, ...] = ()
    align: int | None = None
    # vector-family text forms: ``indexed`` pointers are written ``%p[%off]`` (the offset,
    # in elements, becomes the next positional argument); ``str`` operands and attribute
    # entries take one of ``choices`` (``default`` when an attribute is left out);
    # ``optional`` results may be absent (the post-update base of vlds / vsts), and an
    # optional trailing operand may be left out (the legacy ``operands`` family).
    indexed: bool = False
    choices: tuple[str, ...] = ()
    default: str | None = None
    optional: bool = False


@dataclass(frozen=True)
class OpSpec:
    """One op. ``pipe`` and ``core`` are fixed, or functions of the runtime arguments (a
    TMOV from an Acc tile runs on FIX, between Vec tiles on V)."""

    name: str                                   # mnemonic without ``pto.``
    kind: str                                   # micro | tile | sync | scalar | view | structure
    pipe: str | Callable[[Args], str] = "S"     # pipe of the issuing core; "S": scalar unit
    core: str | Callable[[Args], str] = "any"   # cube | vector | any
    method: str | None = None                   # Machine method of the Python face
    targets: frozenset[str] | None = None       # targets that have the op; None: every target
    implemented: bool = True                    # False: NotImplementedOpError from Python
    work: Callable[[Args], tuple[int, int]] | None = None   # (FLOPs, operand element bytes)
    # Generated ops (no hand-written front-end class or Machine method): ``syntax`` names
    # the front end's generic form, ``operands`` and ``results`` describe its values in
    # order, and ``register`` is the per-core special register the op writes its operands
    # into. ``attrs`` names the boolean attributes the ``operands`` syntax accepts in its
    # ``{name = true}`` dictionary (passed to the Machine method as keywords).
    syntax: str | None = None
    operands: tuple[Operand, ...] = ()
    results: tuple[Operand, ...] = ()
    register: str | None = None
    # ``impl``: the row's semantics -- a table-family rule read by its family's shared
    # Machine method (`ptosim.isa.tile_vector.VecRule`), or the function the Machine
    # method is generated from (vector rows); ``attrs``: the text form's attribute keys and
    # the Python keywords they become; ``forms``: further operand orders the op accepts
    # (names of ``operands``, e.g. TDIVS's scalar first).
    impl: Any = None
    attrs: tuple[tuple[str, str], ...] = ()
    forms: tuple[tuple[str, ...], ...] = ()
    # Vector family (``syntax="vector"``): ``options`` are the ``{name = "WORD"}`` entries
    # (passed as keywords); ``typed_offset`` says whether the type list spells the index
    # type of an indexed pointer (psts) or not (vlds) -- both are accepted on input;
    # ``type_order`` permutes the type list when it is not the operand order
    # (store_scalar); ``result_kw`` is the keyword that tells the Machine method the
    # element type (vreg) or width (mask) of its first result, for results the operands
    # do not determine; ``check(types)`` is the row's own verifier rule: it gets each
    # operand / result / attribute by name (vreg -> dtype name, mask -> G, ptr ->
    # (dtype, space), str -> the word) and returns the reason it is illegal, or None;
    # ``lane`` names
    # the lane function of an elementwise row in `ptosim.isa.alu`.
    options: tuple[Operand, ...] = ()
    typed_offset: bool = False
    type_order: tuple[str, ...] = ()
    result_kw: str | None = None
    check: Callable[[dict[str, Any]], str | None] | None = None
    lane: str | None = None
    # ``target_pipe``: the Target attribute naming the pipe of an op whose pipe is the
    # target's choice (MGATHER / MSCATTER: a SIMT kernel on a5's V pipe, MTE2 / MTE3 on
    # a2a3, as PTOAS's getPipe says); without a target, ``pipe``.
    target_pipe: str | None = None

    @property
    def operand_names(self) -> tuple[str, ...]:
        return tuple(o.name for o in self.operands)

    @property
    def mnemonic(self) -> str:
        return f"pto.{self.name}"

    def pipe_of(self, args: Args, target: object = None) -> str:
        if self.target_pipe is not None and target is not None:
            return str(getattr(target, self.target_pipe))
        return self.pipe(args) if callable(self.pipe) else self.pipe

    def core_of(self, args: Args) -> str:
        return self.core(args) if callable(self.core) else self.core

    def flops(self, args: Args) -> tuple[int, int]:
        """FLOPs the op performs and the element size they are counted at (0, 2 if none)."""
        return self.work(args) if self.work is not None else (0, 2)

    def on(self, target: str) -> bool:
        return self.targets is None or target in self.targets
