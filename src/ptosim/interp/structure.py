"""Whole-kernel structure rules, checked before `ptosim check` verifies ops and before a run
starts: the entry and every function it calls have a body, calls form no cycle, regions
and calls nest at most `MAX_DEPTH` deep, the entry returns nothing, its pointer
parameters are GM pointers, and a module that uses `pto.tassign` places every tile itself.
Each failure is a located `StructureError`, never a Python RecursionError, an assertion
or a hang (docs/semantics.md, "Kernels").
"""

from __future__ import annotations

from collections.abc import Callable

from ..errors import StructureError
from ..mlir.ir import Operation
from .executor import pointer_like

# Regions plus calls, counted from the entry's body. The interpreter runs each level as
# three nested Python generators: 200 levels run well inside Python's default recursion
# limit (measured: about 330 fit), and far above any real kernel (the examples nest 4).
MAX_DEPTH = 200


def _name(func: Operation) -> str:
    return func.properties["sym_name"].data  # type: ignore[attr-defined]


def is_declaration(func: Operation) -> bool:
    """A ``func.func`` without a body (``func.func private @f(i64)``)."""
    return not func.regions or func.regions[0].blocks.first is None


def check_structure(functions: dict[str, Operation], entry: Operation,
                    locate: Callable[[Operation], str | None]) -> None:
    """Raise a located `StructureError` if ``entry`` cannot run as written (module doc)."""
    locate = _nearest(locate)
    if is_declaration(entry):
        raise StructureError(f"@{_name(entry)} is a declaration without a body: there is "
                             f"nothing to run", loc=locate(entry))
    _entry_results(entry, locate)
    _entry_params(entry, locate)
    _level3_addresses(functions, locate)
    walks: dict[str, list[tuple[Operation, int]]] = {}

    def walk(name: str) -> list[tuple[Operation, int]]:
        if name not in walks:
            walks[name] = _walk(functions[name])
        return walks[name]

    # Depth-first over the call graph with an explicit stack (a long call chain must not
    # exhaust Python's stack here either). reach[f]: the deepest level f's body reaches,
    # its own regions and its callees' included.
    reach: dict[str, int] = {}
    path = [_name(entry)]
    stack = [(path[0], [(op, lv) for op, lv in walk(path[0]) if op.name == "func.call"], 0)]
    while stack:
        name, calls, i = stack[-1]
        if i == len(calls):
            stack.pop()
            path.pop()
            reach[name] = max([lv for _, lv in walk(name)] +
                              [lv + reach[_callee(c)] for c, lv in calls], default=0)
            continue
        stack[-1] = (name, calls, i + 1)
        call, _ = calls[i]
        callee = _callee(call)
        target = functions.get(callee)
        if target is None:             # func.call's symbol check normally reports this first
            raise StructureError(f"no function @{callee} in the module", op="func.call",
                                 loc=locate(call))
        if is_declaration(target):
            raise StructureError(f"@{callee} is a declaration without a body; ptosim runs "
                                 f"only functions defined in the module", op="func.call",
                                 loc=locate(call))
        if callee in path:
            cycle = " -> ".join("@" + n for n in path[path.index(callee):] + [callee])
            raise StructureError(f"recursive call ({cycle}); ptosim refuses call cycles",
                                 op="func.call", loc=locate(call))
        if callee not in reach:
            path.append(callee)
            stack.append((callee, [(op, lv) for op, lv in walk(callee)
                                   if op.name == "func.call"], 0))
    # Follow the deepest path from the entry to the first op past MAX_DEPTH.
    name, base = _name(entry), 0
    while base + reach[name] > MAX_DEPTH:
        for op, lv in walk(name):
            if base + lv > MAX_DEPTH:
                raise StructureError(f"regions and calls nest {base + lv} levels deep; "
                                     f"ptosim runs at most {MAX_DEPTH}", op=op.name,
                                     loc=locate(op))
        call, lv = max(((c, lv) for c, lv in walk(name) if c.name == "func.call"),
                       key=lambda cl: cl[1] + reach[_callee(cl[0])])
        name, base = _callee(call), base + lv


def _nearest(locate: Callable[[Operation], str | None]) -> Callable[[Operation], str | None]:
    """Ops the parser added (an implicit scf.yield) have no location: use the nearest
    enclosing op that has one."""
    def find(op: Operation | None) -> str | None:
        while op is not None:
            if (loc := locate(op)) is not None:
                return loc
            op = op.parent_op()
        return None
    return find


def _entry_results(entry: Operation, locate: Callable[[Operation], str | None]) -> None:
    # a kernel is a void __global__ function: nothing receives a result (PTOAS's
    # validatePTOEntryFunctions refuses it too)
    outputs = entry.function_type.outputs.data  # type: ignore[attr-defined]
    if outputs:
        types = ", ".join(str(t) for t in outputs)
        raise StructureError(f"PTO entry functions must return void: @{_name(entry)} returns "
                             f"{types}", loc=locate(entry))


def _level3_addresses(functions: dict[str, Operation],
                      locate: Callable[[Operation], str | None]) -> None:
    # PTOAS accepts pto.tassign only at --pto-level=level3, which plans no tile addresses:
    # there every pto.alloc_tile needs its addr (ptoas.cpp); elsewhere ptosim would place
    # the tile itself, where PTOAS refuses the module
    ops = [op for f in functions.values() for op in f.walk()]
    if not any(op.name == "pto.tassign" for op in ops):
        return
    for op in ops:
        if op.name == "pto.alloc_tile" and op.addr() is None:  # type: ignore[attr-defined]
            raise StructureError("requires 'addr' operand when --pto-level=level3 (a module "
                                 "with pto.tassign is level3 in PTOAS, where no tile is "
                                 "placed automatically)", op=op.name, loc=locate(op))


def _entry_params(entry: Operation, locate: Callable[[Operation], str | None]) -> None:
    from ..frontend import ptr_info
    from ..targets import canonical_space
    block = entry.regions[0].blocks.first
    assert block is not None
    for i, arg in enumerate(block.args):
        if pointer_like(arg.type):
            dtype, space = ptr_info(arg.type)
            if canonical_space(space) != "gm":
                raise StructureError(
                    f"parameter %{arg.name_hint or i} of @{_name(entry)} is a {space} pointer "
                    f"({arg.type}); a kernel's pointer parameters are GM addresses: pass "
                    f"!pto.ptr<{dtype}, gm> and make on-chip pointers with pto.castptr",
                    loc=locate(entry))


def _callee(call: Operation) -> str:
    return call.properties["callee"].string_value()  # type: ignore[attr-defined]


def _walk(func: Operation) -> list[tuple[Operation, int]]:
    """Every op of ``func``'s body with its region depth (1 = the body itself), in text
    order, without recursion."""
    out: list[tuple[Operation, int]] = []
    todo = [(op, 1) for r in reversed(func.regions) for b in reversed(list(r.blocks))
            for op in reversed(list(b.ops))]
    while todo:
        op, level = todo.pop()
        out.append((op, level))
        todo.extend((inner, level + 1) for r in reversed(op.regions)
                    for b in reversed(list(r.blocks)) for inner in reversed(list(b.ops)))
    return out
