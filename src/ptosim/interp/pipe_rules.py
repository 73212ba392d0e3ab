"""Module-wide rules of the frontend cube <-> vector pipes (`pto.aic_initialize_pipe` /
`pto.aiv_initialize_pipe`), as PTOAS checks them when it lowers the frontend pipe ops:
no `local_slot_num` on a5 (PTO.cpp's frontend init verifier), each pipe initialised by
exactly one compatible pair of peer inits (PTOResolveReservedBuffersPass) and one split
usage per pair that agrees with an explicit `nosplit` (PTOInferValidatePipeInitPass).
These are PTOAS's rules for the `.pto` text: pto-isa's TPipe is one C++ object per core
whose template arguments the programmer writes, so the Python face (`m.TPipe`) has none
of them. Both `ptosim check` and a run refuse a module that breaks one
(docs/semantics.md, "Tile pipes").
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from ..mlir.ir import Operation, SSAValue
from ..targets import Target, get_target

_C2V, _V2C, _BOTH = 1, 2, 3
_FLAG_IDS = 16                  # hardware cross-core flag ids (PTOAS kMaxHardwareFlagIds)
_USERS = ("pto.tpush_to_", "pto.tpop_from_", "pto.tfree_from_")


@dataclass
class _Init:
    op: Operation
    func: str
    splits: set[int] = field(default_factory=set)    # split of the ops using its id


def _int(op: Operation, key: str, default: int | None = None) -> int | None:
    from ..frontend.pipe_ops import int_attr
    return int_attr(op, key, default)  # type: ignore[arg-type]


def _peer_key(value: SSAValue | None, func: str, direction: int
              ) -> tuple[str, str, int] | None:
    """(owning function, buffer name, direction) of a consumer buffer that a
    reserve_buffer / import_reserved_buffer made; None for any other value."""
    from ..frontend.pipe_ops import ImportReservedBufferOp, ReserveBufferOp
    owner = getattr(value, "owner", None)
    if isinstance(owner, ReserveBufferOp):
        return (func, owner.buffer_name(), direction)
    if isinstance(owner, ImportReservedBufferOp):
        return (owner.peer(), owner.buffer_name(), direction)
    return None


def _keys(init: _Init) -> list[tuple[str, str, int]]:
    """The peer keys PTOAS records for an init: its local buffer per direction (both
    directions: the C2V buffer, then the V2C one)."""
    op: object = init.op
    dir_mask = _int(init.op, "dir_mask")
    if init.op.name == "pto.initialize_l2l_pipe":      # the handle form: local, then peer
        values = [(init.op.local_addr(), dir_mask if dir_mask != _BOTH else _C2V)]  # type: ignore[attr-defined]
        if dir_mask == _BOTH:
            values.append((init.op.peer_local_addr(), _V2C))  # type: ignore[attr-defined]
        return [k for v, d in values if (k := _peer_key(v, init.func, int(d))) is not None]  # type: ignore[arg-type]
    if dir_mask == _BOTH:
        wanted = [("c2v_consumer_buf", _C2V), ("v2c_consumer_buf", _V2C)]
    elif dir_mask == _C2V:
        wanted = [("c2v_consumer_buf", _C2V)]
    else:
        wanted = [("v2c_consumer_buf", _V2C)]
    out = []
    for name, direction in wanted:
        key = _peer_key(op.buffer(name), init.func, direction)  # type: ignore[attr-defined]
        if key is not None:
            out.append(key)
    return out


def _signature(op: Operation) -> tuple[int | None, ...]:
    dir_mask = _int(op, "dir_mask")
    slot_num = _int(op, "slot_num") or (4 if dir_mask == _BOTH else 8)   # PTOAS defaults
    return (dir_mask, _int(op, "slot_size"), slot_num, _int(op, "local_slot_num"))


def pipe_init_problems(functions: dict[str, Operation], target: str | Target
                       ) -> Iterable[tuple[Operation, str]]:
    """(op, message) for each broken rule, in PTOAS's order; the first one is what
    PTOAS reports."""
    from ..frontend.pipe_ops import _InitPipe
    local_slot_num = get_target(target).ptoas_local_slot_num
    inits: list[_Init] = []
    handles: list[_Init] = []
    for fname, func in functions.items():
        here: list[_Init] = []
        users: dict[int, set[int]] = {}
        for op in func.walk():
            if op.name == "pto.initialize_l2l_pipe":
                init = _Init(op, fname, {int(_int(u.operation, "split", 0))  # type: ignore[arg-type]
                                         for u in op.results[0].uses})
                handles.append(init)
                if _int(op, "flag_base") is None and not _keys(init):
                    yield op, ("requires local_addr to come from pto.reserve_buffer or "
                               "pto.import_reserved_buffer when 'flag_base' is not explicit")
            elif isinstance(op, _InitPipe):
                here.append(_Init(op, fname))
                if not local_slot_num and _int(op, "local_slot_num") is not None:
                    yield op, ("'local_slot_num' is only supported for a2/a3 frontend pipe "
                               "lowering")
            elif op.name.startswith(_USERS):
                users.setdefault(int(_int(op, "id", 0)),  # type: ignore[arg-type]
                                 set()).add(int(_int(op, "split", 0)))  # type: ignore[arg-type]
        for init in here:
            init.splits = users.get(int(_int(init.op, "id", 0)), set())  # type: ignore[arg-type]
        inits += here
    inits += handles
    # peers: inits sharing a consumer buffer (same owner, name and direction)
    parent = list(range(len(inits)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    first: dict[tuple[str, str, int], int] = {}
    keyed: set[int] = set()
    for i, init in enumerate(inits):
        for key in _keys(init):
            keyed.add(i)
            j = first.setdefault(key, i)
            parent[root(i)] = root(j)
    groups: dict[int, list[int]] = {}
    for i in sorted(keyed):
        groups.setdefault(root(i), []).append(i)
    pair = ("requires a complete compatible peer init pair when local_addr comes from "
            "pto.reserve_buffer or pto.import_reserved_buffer")
    yield from _flag_overflow(groups, inits)
    for members in groups.values():
        group = [inits[i] for i in members]
        head = group[0].op
        if len(group) != 2:
            yield head, pair
            continue
        if _signature(group[0].op) != _signature(group[1].op):
            yield head, "requires peer pipe init ops to agree on direction and pipe shape"
            continue
        if group[0].func == group[1].func:
            yield head, pair
            continue
        yield from _split_problems(group)


def _flag_overflow(groups: dict[int, list[int]], inits: list[_Init]
                   ) -> Iterable[tuple[Operation, str]]:
    """PTOAS gives each peer component (and each init with an explicit flag_base) its own
    flag range, 4 ids for both directions else 2: a function's ranges must fit in the 16
    hardware flag ids."""
    parts = [[inits[i] for i in members] for members in groups.values()]
    grouped = {id(i.op) for part in parts for i in part}
    explicit: dict[tuple[str, int | None], _Init] = {}     # one range per explicit base
    for i in inits:
        if id(i.op) not in grouped and i.op.name == "pto.initialize_l2l_pipe":
            explicit.setdefault((i.func, _int(i.op, "flag_base")), i)
    parts += [[i] for i in explicit.values()]
    used: dict[str, int] = {}
    for part in parts:
        width = 4 if any(_int(i.op, "dir_mask") == _BOTH for i in part) else 2
        for func in {i.func for i in part}:
            used[func] = used.get(func, 0) + width
            if used[func] > _FLAG_IDS:
                yield part[0].op, (f"requires all pipe components in a function to fit "
                                   f"within {_FLAG_IDS} hardware flag ids")
                return


def _split_problems(group: list[_Init]) -> Iterable[tuple[Operation, str]]:
    """PTOAS's nosplit inference over one peer pair: each init's users are all split = 0
    (nosplit) or all split; the peers agree; an explicit nosplit matches them."""
    explicit: bool | None = None
    for init in group:
        if 0 in init.splits and len(init.splits) > 1:
            yield init.op, ("cannot mix 'split = 0' with 'split = 1' or 'split = 2' on the "
                            "same logical pipe")
            return
        ns = _int(init.op, "nosplit")
        if ns is None:
            continue
        if explicit is not None and explicit != bool(ns):
            yield init.op, "conflicting explicit 'nosplit' across peer pipe init ops"
            return
        explicit = bool(ns)
    inferred: bool | None = None
    for init in group:
        if not init.splits:
            continue
        used = init.splits == {0}
        if inferred is not None and inferred != used:
            yield init.op, "conflicting pipe split usage across peer pipe init ops"
            return
        inferred = used
    if explicit is None or inferred is None or explicit == inferred:
        return
    for init in group:
        ns = _int(init.op, "nosplit")
        if ns is None or bool(ns) == inferred:
            continue
        need = "split = 1 or split = 2" if ns else "split = 0"
        yield init.op, (f"explicit 'nosplit = {'true' if ns else 'false'}' conflicts with "
                        f"downstream users that require {need}")
        return
