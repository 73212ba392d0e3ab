"""The a5 cube <-> vector tile pipes (pto-isa include/pto/npu/a5/TPush.hpp, TPop.hpp,
TFree.hpp; PTOAS's frontend pipe ops) on ptosim's cores and semaphores.

A pipe is a ring of ``slot_num`` slots of ``slot_size`` bytes in the *consumer's* local
memory: C2V slots in each AIV's UB (``c2v_consumer_buf``), V2C slots in the AIC's L1
(``v2c_consumer_buf``). Each core keeps its own producer and consumer tile counters. The
cross-core flags are the block's intra-block semaphores (`SyncService`), with a5's ids:

- C2V: data ready ``flag`` (cube sets on FIX, AIV waits on V), slot free ``flag + 1`` (AIV
  sets on V, cube waits on FIX); V2C (dir_mask 2): ready ``flag`` (AIV sets on MTE3, cube
  waits on MTE1), free ``flag + 1`` (cube sets on MTE1, AIV waits on MTE3); with both
  directions (dir_mask 3) V2C uses ``flag + 2`` / ``flag + 3``. A split pipe also addresses
  AIV1 (cube ids + 16).
- TPUSH waits for a free slot only from its ``slot_num``-th tile on, every ``SyncPeriod``
  tiles (``slot_num`` if <= 2, else half); it moves the tile into slot ``index % slot_num``
  (Acc -> Vec through FIXPIPE, Vec -> Mat as TINSERT on MTE3) and sets data ready.
- TPOP waits for data ready and binds the result tile to its slot (no bytes move); TFREE
  sets slot free after every ``SyncPeriod``-th tile. Initialising the pipe on the consumer
  side sets slot free ``SyncPeriod`` times (TPipe's constructor).

A TPOP with nothing pushed blocks its core like a `pto.sync.wait`; if no core can set the
flag the scheduler reports a deadlock naming the op. The protocol helpers (``init_frees``,
``push_waits`` ... ``v2c_slot_info``) are shared with the Python face, `ptosim.tile.pipe`.
See docs/semantics.md, "Tile pipes".
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import NotImplementedOpError, PtoError, VerifyError
from ..mlir.ir import Operation

if TYPE_CHECKING:
    from .executor import CoreState, Executor

_VEC_OFFSET = 16            # cube-side semaphore ids 16-31 address AIV1
_SPLIT_MODE = {0: "SingleModeVec0", 1: "DualModeSplitM", 2: "DualModeSplitN"}


class PipeError(PtoError, ValueError):
    """A pipe used in a way its TPipe cannot serve (no initialisation, a tile that does not
    fit its slot, a split the hardware refuses)."""


def _int(op: Operation, key: str, default: int | None = None) -> int | None:
    from ..frontend.pipe_ops import int_attr
    return int_attr(op, key, default)  # type: ignore[arg-type]


@dataclass
class Pipe:
    """One core's TPipe object: the ring's shape, buffers, flags and its tile counters."""

    ident: int
    dir_mask: int
    slot_size: int
    slot_num: int
    nosplit: bool
    flag: int
    c2v_buf: int | None
    v2c_buf: int | None
    prod: int = 0
    cons: int = 0
    handle: bool = False        # made by pto.initialize_l2l_pipe (no id: its flag base)

    @property
    def label(self) -> str:
        return f"flag_base {self.flag}" if self.handle else f"id {self.ident}"

    @property
    def period(self) -> int:
        return self.slot_num if self.slot_num <= 2 else self.slot_num // 2


@dataclass
class PipePlan:
    """Module-wide facts decided before the run: reserved buffer addresses, each pipe
    id's flag base and whether it is split."""

    reserved: dict[tuple[str, str], tuple[str, int]] = field(default_factory=dict)
    flags: dict[int, int] = field(default_factory=dict)
    nosplit: dict[int, bool] = field(default_factory=dict)
    per_core: dict[tuple[Any, int], Pipe] = field(default_factory=dict)
    # handle form: each pto.initialize_l2l_pipe's (flag base, nosplit)
    handles: dict[Operation, tuple[int, bool]] = field(default_factory=dict)


def plan(ex: Executor) -> PipePlan:
    """The run's `PipePlan`, built once from every function of the module."""
    got: PipePlan | None = getattr(ex, "_pipe_plan", None)
    if got is not None:
        return got
    from ..frontend.pipe_ops import ReserveBufferOp, _InitPipe
    from .pipe_rules import pipe_init_problems
    for bad, message in pipe_init_problems(ex.sync.functions, ex.m.target):
        raise VerifyError(message, op=bad.name, loc=ex.locate(bad))    # PTOAS's rules
    p = PipePlan()
    splits: dict[int, set[int]] = {}
    widths: dict[int, int] = {}
    explicit: dict[int, bool] = {}
    for fname, func in ex.sync.functions.items():
        for op in func.walk():
            if isinstance(op, ReserveBufferOp):
                space = "ub" if op.space_name() == "vec" else "l1"
                size = int(_int(op, "size"))  # type: ignore[arg-type]
                base = _int(op, "base")
                p.reserved[(fname, op.buffer_name())] = (space, _reserve(ex, space, size,
                                                                          base))
            elif isinstance(op, _InitPipe):
                ident = int(_int(op, "id", 0))  # type: ignore[arg-type]
                widths[ident] = max(widths.get(ident, 0),
                                    4 if _int(op, "dir_mask") == 3 else 2)
                ns = _int(op, "nosplit")
                if ns is not None:
                    explicit[ident] = bool(ns)
            elif op.name.startswith(("pto.tpush_to_", "pto.tpop_from_", "pto.tfree_from_")):
                splits.setdefault(int(_int(op, "id", 0)), set()).add(  # type: ignore[arg-type]
                    int(_int(op, "split")))  # type: ignore[arg-type]
    # flag bases as PTOAS's ResolveReservedBuffers picks them: even, non-overlapping, in
    # the order the pipes appear (width 4 for both directions, else 2)
    nxt = 0
    for ident in widths:
        p.flags[ident] = nxt
        nxt += widths[ident] + widths[ident] % 2
        # nosplit: explicit, else inferred from the split of the ops that use the pipe
        used = splits.get(ident, set())
        p.nosplit[ident] = explicit.get(ident, used == {0})
    _plan_handles(ex, p, nxt)
    ex._pipe_plan = p  # type: ignore[attr-defined]
    return p


def _plan_handles(ex: Executor, p: PipePlan, start: int) -> None:
    """Flag bases and nosplit of the handle form's pipes, as PTOAS's passes decide them:
    peer inits are grouped by the reserved buffer their local_addr names
    (PTOResolveReservedBuffers), an init whose local_addr is no reserved buffer by its
    explicit flag_base. A group's base is an explicit flag_base of a member, else the
    lowest even base at or after ``start`` (the frontend pipes' ids come first) whose
    range overlaps no range already taken in the group's functions (4 ids with dir_mask 3,
    else 2). nosplit: explicit, else whether the ops on the group's handles all use
    split = 0 (PTOInferValidatePipeInit)."""
    from ..frontend.pipe_handle_ops import InitializeL2LPipeOp
    from .pipe_rules import _peer_key
    groups: dict[Any, list[tuple[str, Operation]]] = {}
    for fname, func in ex.sync.functions.items():
        for op in func.walk():
            if not isinstance(op, InitializeL2LPipeOp):
                continue
            peer = _peer_key(op.local_addr(), fname, 1)
            key: Any = peer[:2] if peer is not None else ("flag", _int(op, "flag_base"))
            if key == ("flag", None):       # pipe_rules reports it before the run
                raise VerifyError(f"{op.name}: requires local_addr to come from "
                                  f"pto.reserve_buffer or pto.import_reserved_buffer when "
                                  f"'flag_base' is not explicit", op=op.name,
                                  loc=ex.locate(op))
            groups.setdefault(key, []).append((fname, op))
    taken: dict[str, list[tuple[int, int]]] = {}

    def take(funcs: set[str], base: int, width: int) -> None:
        for f in funcs:
            taken.setdefault(f, []).append((base, base + width))

    plans: list[tuple[list[tuple[str, Operation]], int | None, int]] = []
    for inits in groups.values():
        width = 4 if any(_int(op, "dir_mask") == 3 for _, op in inits) else 2
        given = [b for _, op in inits if (b := _int(op, "flag_base")) is not None]
        plans.append((inits, given[0] if given else None, width))
        if given:
            take({f for f, _ in inits}, given[0], width)
    for inits, base, width in plans:
        funcs = {f for f, _ in inits}
        if base is None:
            base = start
            while any(lo < base + width and base < hi for f in funcs
                      for lo, hi in taken.get(f, [])):
                base += 2
            take(funcs, base, width)
        splits = {int(_int(use.operation, "split")) for _, op in inits  # type: ignore[arg-type]
                  for use in op.results[0].uses}
        ns = [v for _, op in inits if (v := _int(op, "nosplit")) is not None]
        nosplit = bool(ns[0]) if ns else splits == {0}
        for _, op in inits:
            p.handles[op] = (base, nosplit)


def _reserve(ex: Executor, space: str, size: int, base: int | None) -> int:
    """A reserved slot buffer's address: ``base``, else placed like an automatic tile
    (in UB at one address in both sub-blocks, as the cube writes both at that address)."""
    m: Any = ex.m
    nxt = m.__dict__.setdefault("_tile_next", {})
    subs = (0, 1) if space == "ub" else (0,)
    start = base if base is not None else \
        -(-max(nxt.get((space, s), 0) for s in subs) // 32) * 32
    if start + size > m.target.capacity[space]:
        raise VerifyError(f"no room for a {size} B reserved buffer in {space} "
                          f"({m.target.capacity[space]} B, {start} B in use)",
                          op="pto.reserve_buffer")
    for s in subs:
        nxt[(space, s)] = max(nxt.get((space, s), 0), start + size)
    return start


def reserve_buffer(ex: Executor, st: CoreState, op: Operation) -> list[Any]:
    fname = _function_of(op)
    return [plan(ex).reserved[(fname, op.buffer_name())][1]]  # type: ignore[attr-defined]


def import_reserved_buffer(ex: Executor, st: CoreState, op: Operation) -> list[Any]:
    key = (op.peer(), op.buffer_name())  # type: ignore[attr-defined]
    found = plan(ex).reserved.get(key)
    if found is None:
        raise PipeError(f"@{key[0]} reserves no buffer named \"{key[1]}\"", op=op.name)
    return [found[1]]


def _function_of(op: Operation) -> str:
    parent = op.parent_op()
    while parent is not None and parent.name != "func.func":
        parent = parent.parent_op()
    assert parent is not None
    return parent.properties["sym_name"].data  # type: ignore[attr-defined]


def require_local_pipes(target: Any, op_name: str) -> None:
    """The target has a5's local FIFOs (L0C -> UB, UB -> L1); a2a3's GM FIFO pipes are not
    implemented (both faces)."""
    if not target.acc_to_vec:
        raise NotImplementedOpError(
            f"{op_name} on {target.name}: ptosim runs the a5 pipes (local consumer "
            f"buffers); a2a3's GM FIFO pipes are not implemented yet", op=op_name)


def _require_a5(ex: Executor, op: Operation) -> None:
    require_local_pipes(ex.m.target, op.name)


def init_pipe(ex: Executor, st: CoreState, op: Operation) -> None:
    """TPipe's constructor: the pipe's state on this core, and the consumer side's
    initial slot-free credits."""
    _require_a5(ex, op)
    want = "cube" if op.name == "pto.aic_initialize_pipe" else "vector"
    ex._require_core(st, op, op.name, want)
    if op.buffer("gm_slot_buffer") is not None or op.buffer("gm_slot_tensor") is not None:  # type: ignore[attr-defined]
        raise NotImplementedOpError(f"{op.name}: GM slot buffers (a2a3's and a5's GM FIFO "
                                    f"pipes) are not implemented yet", op=op.name)
    p = plan(ex)
    ident = int(_int(op, "id", 0))  # type: ignore[arg-type]
    dir_mask = int(_int(op, "dir_mask"))  # type: ignore[arg-type]
    slot_num = _int(op, "slot_num") or (4 if dir_mask == 3 else 8)   # PTOAS defaults

    def buf(name: str) -> int | None:
        v = op.buffer(name)  # type: ignore[attr-defined]
        return None if v is None else int(st.env[v])

    pipe = Pipe(ident, dir_mask, int(_int(op, "slot_size")), slot_num,  # type: ignore[arg-type]
                p.nosplit[ident], p.flags[ident], buf("c2v_consumer_buf"),
                buf("v2c_consumer_buf"))
    p.per_core[(st.core, ident)] = pipe
    for ident_, unit in init_frees(pipe, st.core.kind):
        ex.sync.signal(st.core, ident_, op, pipe=unit)


def _v2c_ready(pipe: Pipe) -> int:
    return pipe.flag + (2 if pipe.dir_mask == 3 else 0)


def _v2c_free(pipe: Pipe) -> int:
    return pipe.flag + (3 if pipe.dir_mask == 3 else 1)


def _cube_ids(pipe: Pipe, ident: int) -> list[int]:
    """The cube-side semaphore ids of a flag: AIV0's, and AIV1's for a split pipe."""
    return [ident] if pipe.nosplit else [ident, ident + _VEC_OFFSET]


# --- the TPipe protocol, shared by the .pto ops and the Python face (ptosim.tile.pipe):
# which semaphores each step waits on / sets (id, pipe), and where the slot tiles lie.
Flags = list[tuple[int, str]]


def init_frees(pipe: Pipe, kind: str) -> Flags:
    """TPipe's constructor on a ``kind`` core: the consumer frees every slot group once."""
    out: Flags = []
    for _ in range(pipe.period):
        if kind == "vector" and pipe.dir_mask & 1:
            out.append((pipe.flag + 1, "V"))
        if kind == "cube" and pipe.dir_mask & 2:
            out += [(i, "MTE1") for i in _cube_ids(pipe, _v2c_free(pipe))]
    return out


def push_waits(pipe: Pipe, to_vector: bool) -> Flags:
    """TPUSH's slot-free waits: from tile ``slot_num`` on, every SyncPeriod tiles."""
    i = pipe.prod
    if i < pipe.slot_num or i % pipe.period:
        return []
    if to_vector:
        return [(ident, "FIX") for ident in _cube_ids(pipe, pipe.flag + 1)]
    return [(_v2c_free(pipe), "MTE3")]


def push_records(pipe: Pipe, to_vector: bool) -> Flags:
    """TPUSH's data-ready sets, every tile."""
    if to_vector:
        return [(ident, "FIX") for ident in _cube_ids(pipe, pipe.flag)]
    return [(_v2c_ready(pipe), "MTE3")]


def pop_waits(pipe: Pipe, from_cube: bool) -> Flags:
    """TPOP's data-ready waits, every tile."""
    if from_cube:
        return [(pipe.flag, "V")]
    return [(ident, "MTE1") for ident in _cube_ids(pipe, _v2c_ready(pipe))]


def free_records(pipe: Pipe, from_cube: bool) -> Flags:
    """TFREE's slot-free sets: after every SyncPeriod-th popped tile."""
    if pipe.cons % pipe.period:
        return []
    if from_cube:
        return [(pipe.flag + 1, "V")]
    return [(ident, "MTE1") for ident in _cube_ids(pipe, _v2c_free(pipe))]


def check_split(pipe: Pipe, split: int, op_name: str) -> None:
    """A pipe's ops are all split = 0 (a nosplit pipe) or all split."""
    if pipe.nosplit != (split == 0):
        raise PipeError(f"split = {split} on a {'nosplit' if pipe.nosplit else 'split'} pipe "
                        f"({pipe.label}): a pipe's ops are all split = 0 or all split",
                        op=op_name)


def slot_address(pipe: Pipe, base: int, index: int, info: dict[str, Any], op_name: str
                 ) -> int:
    """Byte address of tile ``index``'s slot; the tile must fit the slot."""
    nbytes = int(info["rows"]) * int(info["cols"]) * _size(info["dtype"])
    if nbytes > pipe.slot_size:
        raise PipeError(f"a {info['rows']}x{info['cols']} {info['dtype']} tile ({nbytes} B) "
                        f"does not fit the pipe's {pipe.slot_size} B slot", op=op_name)
    return base + (index % pipe.slot_num) * pipe.slot_size


def c2v_slot_info(tile: Any, split: int) -> tuple[dict[str, Any], str]:
    """The Vec RowMajor tile a C2V push writes into its slot (half the Acc for a split
    push) and the FIXPIPE mode that writes it."""
    rows = tile.rows // (2 if split == 1 else 1)
    cols = tile.cols // (2 if split == 2 else 1)
    vr = tile.valid[0] // (2 if split == 1 else 1)
    vc = tile.valid[1] // (2 if split == 2 else 1)
    info = {"tile_type": "Vec", "dtype": tile.dtype.name, "rows": rows, "cols": cols,
            "valid": (vr, vc), "blayout": "RowMajor", "slayout": "NoneBox",
            "fractal": 512, "pad": "Null"}
    return info, _SPLIT_MODE[split]


def check_v2c_source(tile: Any, op_name: str) -> None:
    """a5's pushVec2MatFiFo picks the copy by the source's layout (TInsert): an NZ tile
    goes line by line into the NZ slot; an ND tile's rows land in L1 as they are
    (TInsertNDImpl, which ptosim's TINSERT runs: the NZ pop then reads those bytes as NZ,
    as the cube would); a ZN / DN tile's copy is not modelled, so it is refused."""
    if tile.name not in ("NZ", "ND"):
        raise NotImplementedOpError(
            f"{op_name} of a {tile.name} Vec tile: a5's copy of its bytes into the L1 slot "
            f"is not modelled; push an NZ tile (blayout = col_major, slayout = row_major), "
            f"as PTOAS's tests do, or an ND one", op=op_name)


def v2c_slot_info(tile: Any, split: int, sub: int) -> tuple[dict[str, Any], int, int]:
    """The NZ Mat tile a V2C push inserts into (the whole slot: twice the Vec tile for a
    split push) and the corner this sub-block's half goes to."""
    rows = tile.rows * (2 if split == 1 else 1)
    cols = tile.cols * (2 if split == 2 else 1)
    info = {"tile_type": "Mat", "dtype": tile.dtype.name, "rows": rows, "cols": cols,
            "valid": (tile.valid[0] * (2 if split == 1 else 1),
                      tile.valid[1] * (2 if split == 2 else 1)),
            "blayout": "ColMajor", "slayout": "RowMajor", "fractal": 512, "pad": "Null"}
    r0 = tile.valid[0] * sub if split == 1 else 0
    c0 = tile.valid[1] * sub if split == 2 else 0
    return info, r0, c0


def _pipe(ex: Executor, st: CoreState, op: Operation, direction: int) -> Pipe:
    _require_a5(ex, op)
    ident = int(_int(op, "id", 0))  # type: ignore[arg-type]
    pipe = plan(ex).per_core.get((st.core, ident))
    if pipe is None:
        init = "pto.aic_initialize_pipe" if st.core.kind == "cube" else "pto.aiv_initialize_pipe"
        raise PipeError(f"pipe id {ident} is not initialised on {st.core.name}: run {init} "
                        f"{{id = {ident}, ...}} first", op=op.name)
    return _checked_use(pipe, f"pipe id {ident}", direction, op)


def _checked_use(pipe: Pipe, name: str, direction: int, op: Operation) -> Pipe:
    """``pipe`` if it has the op's direction and agrees with its split."""
    if not pipe.dir_mask & direction:
        raise PipeError(f"{name} has dir_mask {pipe.dir_mask}, which has no "
                        f"{'C2V' if direction == 1 else 'V2C'} direction", op=op.name)
    check_split(pipe, int(_int(op, "split")), op.name)  # type: ignore[arg-type]
    return pipe


def _slot_tile(ex: Executor, st: CoreState, op: Operation, t: Any, base: int, pipe: Pipe,
               index: int) -> Any:
    from ..frontend import tile_info
    info: dict[str, Any] = tile_info(t) if not isinstance(t, dict) else t
    return slot_address(pipe, base, index, info, op.name), info


def _size(dtype: Any) -> int:
    from ..dtypes import dtype as _dtype
    return _dtype(str(dtype)).size


def tpush(ex: Executor, st: CoreState, op: Operation) -> Generator[Any, None, None]:
    """The frontend form's TPUSH (``pto.tpush_to_aiv`` / ``_to_aic``)."""
    to_vector = op.name == "pto.tpush_to_aiv"
    ex._require_core(st, op, op.name, "cube" if to_vector else "vector")
    pipe = _pipe(ex, st, op, 1 if to_vector else 2)
    yield from push(ex, st, op, pipe, to_vector, int(_int(op, "split")),  # type: ignore[arg-type]
                    st.env[op.operands[0]])


def push(ex: Executor, st: CoreState, op: Operation, pipe: Pipe, to_vector: bool,
         split: int, tile: Any) -> Generator[Any, None, None]:
    """TPUSH: wait for a free slot (sparsely), move the tile into it, set data ready. The
    data move is accounted as the frontend op of its direction (FIX / MTE3)."""
    from ..isa import BY_MNEMONIC
    spec = BY_MNEMONIC["pto.tpush_to_aiv" if to_vector else "pto.tpush_to_aic"]
    for ident, unit in push_waits(pipe, to_vector):
        yield from ex.sync.wait(st.core, ident, op, pipe=unit)
    from .tiles import alloc_tile
    if to_vector:
        if pipe.c2v_buf is None:
            raise PipeError("the pipe has no c2v_consumer_buf", op=op.name)
        info, mode = c2v_slot_info(tile, split)
        addr, _ = _slot_tile(ex, st, op, info, pipe.c2v_buf, pipe, pipe.prod)
        dst = alloc_tile(ex.m, info, addr, None, None, 0, op)
        ex._invoke(st, op, spec, [dst, tile], {"mode": mode},
                   call=ex.m.TMOV)  # type: ignore[attr-defined]
    else:
        if pipe.v2c_buf is None:
            raise PipeError("the pipe has no v2c_consumer_buf", op=op.name)
        check_v2c_source(tile, op.name)
        info, r0, c0 = v2c_slot_info(tile, split, st.core.sub)
        addr, _ = _slot_tile(ex, st, op, info, pipe.v2c_buf, pipe, pipe.prod)
        dst = alloc_tile(ex.m, info, addr, None, None, 0, op)
        ex._invoke(st, op, spec, [dst, tile, r0, c0], {},
                   call=ex.m.TINSERT)  # type: ignore[attr-defined]
    pipe.prod += 1
    for ident, unit in push_records(pipe, to_vector):
        ex.sync.signal(st.core, ident, op, pipe=unit)
    return None


def tpop(ex: Executor, st: CoreState, op: Operation) -> Generator[Any, None, list[Any]]:
    """The frontend form's TPOP (``pto.tpop_from_aic`` / ``_from_aiv``)."""
    from_cube = op.name == "pto.tpop_from_aic"
    ex._require_core(st, op, op.name, "vector" if from_cube else "cube")
    pipe = _pipe(ex, st, op, 1 if from_cube else 2)
    valid = None
    if op.operands:
        vr, vc = (int(st.env[v]) for v in op.operands)
        valid = (vr, vc)
    tile = yield from pop(ex, st, op, pipe, from_cube, op.results[0].type, valid)
    return [tile]


def pop(ex: Executor, st: CoreState, op: Operation, pipe: Pipe, from_cube: bool,
        tile_type: Any, valid: tuple[int, int] | None) -> Generator[Any, None, Any]:
    """TPOP: wait for data ready, bind a ``tile_type`` tile to the slot (a5: no bytes
    move)."""
    for ident, unit in pop_waits(pipe, from_cube):
        yield from ex.sync.wait(st.core, ident, op, pipe=unit)
    base = pipe.c2v_buf if from_cube else pipe.v2c_buf
    if base is None:
        raise PipeError(f"the pipe has no {'c2v' if from_cube else 'v2c'}_consumer_buf",
                        op=op.name)
    addr, info = _slot_tile(ex, st, op, tile_type, base, pipe, pipe.cons)
    pipe.cons += 1
    from .tiles import alloc_tile
    vr = vc = None
    if valid is not None:
        vr, vc = valid
    elif None in info["valid"]:
        # a '?' valid shape with no operands: PTOAS declares the tile without a
        # SetValidShape (lit tpush_tpop_dynamic_validshape_default_a5); the full shape
        vr, vc = int(info["rows"]), int(info["cols"])
    sub = st.core.sub if st.core.kind == "vector" else 0
    return alloc_tile(ex.m, info, addr, vr, vc, sub, op)


def tfree(ex: Executor, st: CoreState, op: Operation) -> None:
    """The frontend form's TFREE (``pto.tfree_from_aic`` / ``_from_aiv``)."""
    from_cube = op.name == "pto.tfree_from_aic"
    ex._require_core(st, op, op.name, "vector" if from_cube else "cube")
    free(ex, st, op, _pipe(ex, st, op, 1 if from_cube else 2), from_cube)


def free(ex: Executor, st: CoreState, op: Operation, pipe: Pipe, from_cube: bool) -> None:
    """TFREE: slot free after every SyncPeriod-th popped tile."""
    if pipe.cons == 0:
        raise PipeError(f"nothing popped from pipe {pipe.label} yet: TFREE releases the "
                        f"slot of the last TPOP", op=op.name)
    for ident, unit in free_records(pipe, from_cube):
        ex.sync.signal(st.core, ident, op, pipe=unit)


# --- the handle form (pto.initialize_l2l_pipe -> !pto.pipe, pto.tpush / tpop / tfree): the
# same protocol, on the Pipe its init left in the handle's value


class DeclaredTile:
    """A `pto.declare_tile` value no `pto.tpop` has bound to a slot yet."""

    def __init__(self, op: Operation) -> None:
        self.op = op

    def __repr__(self) -> str:
        return "<a pto.declare_tile tile that no pto.tpop has bound to a slot yet>"


def declare_tile(ex: Executor, st: CoreState, op: Operation) -> list[Any]:
    return [DeclaredTile(op)]


def init_handle(ex: Executor, st: CoreState, op: Operation) -> list[Any]:
    """``pto.initialize_l2l_pipe``: TPipe's constructor on this core (its kind picks the
    consumer side whose slots it frees); the result is the core's Pipe."""
    _require_a5(ex, op)
    if st.core.kind not in ("cube", "vector"):
        ex._require_core(st, op, op.name, "vector")
    base, nosplit = plan(ex).handles[op]
    dir_mask = int(_int(op, "dir_mask"))  # type: ignore[arg-type]
    local = int(st.env[op.local_addr()])  # type: ignore[attr-defined]
    peer = op.peer_local_addr()  # type: ignore[attr-defined]
    c2v = local if dir_mask & 1 else None
    v2c = (int(st.env[peer]) if dir_mask == 3 else local) if dir_mask & 2 else None
    pipe = Pipe(base, dir_mask, int(_int(op, "slot_size")),  # type: ignore[arg-type]
                int(_int(op, "slot_num")), nosplit, base, c2v, v2c,  # type: ignore[arg-type]
                handle=True)
    for ident_, unit in init_frees(pipe, st.core.kind):
        ex.sync.signal(st.core, ident_, op, pipe=unit)
    return [pipe]


def _handle(ex: Executor, st: CoreState, op: Operation, direction: int) -> Pipe:
    """The Pipe of a handle op's ``!pto.pipe`` operand on this core, checked for the
    direction and split the op uses."""
    _require_a5(ex, op)
    value = op.pipe()  # type: ignore[attr-defined]
    pipe = st.env.get(value)
    if not isinstance(pipe, Pipe):
        raise PipeError(f"the pipe handle is not initialised on {st.core.name}: its "
                        f"pto.initialize_l2l_pipe did not run on this core", op=op.name)
    return _checked_use(pipe, f"the pipe of {pipe.label}", direction, op)


def _tile_loc(op: Operation, value: Any) -> str:
    from ..frontend import tile_info
    return str(tile_info(value.type)["loc"])


def tpush_handle(ex: Executor, st: CoreState, op: Operation) -> Generator[Any, None, None]:
    """``pto.tpush(%tile, %pipe)``: an Acc tile goes C2V from the cube, a Vec tile V2C from
    a vector core (PTOAS TPushOp getPipe)."""
    to_vector = _tile_loc(op, op.tile()) == "acc"  # type: ignore[attr-defined]
    ex._require_core(st, op, f"{op.name} of a loc={'acc' if to_vector else 'vec'} tile",
                     "cube" if to_vector else "vector")
    pipe = _handle(ex, st, op, 1 if to_vector else 2)
    yield from push(ex, st, op, pipe, to_vector, int(_int(op, "split")),  # type: ignore[arg-type]
                    st.env[op.tile()])  # type: ignore[attr-defined]


def tpop_handle(ex: Executor, st: CoreState, op: Operation) -> Generator[Any, None, None]:
    """``pto.tpop(%tile, %pipe)``: binds ``%tile`` (its declared type) to the next slot; a
    Vec tile pops C2V on a vector core, a Mat tile V2C on the cube."""
    value = op.tile()  # type: ignore[attr-defined]
    from_cube = _tile_loc(op, value) == "vec"
    ex._require_core(st, op, f"{op.name} of a loc={'vec' if from_cube else 'mat'} tile",
                     "vector" if from_cube else "cube")
    pipe = _handle(ex, st, op, 1 if from_cube else 2)
    st.env[value] = yield from pop(ex, st, op, pipe, from_cube, value.type, None)
    return None


def tfree_handle(ex: Executor, st: CoreState, op: Operation) -> None:
    """``pto.tfree(%pipe)``: frees the consumer side of this core (C2V on a vector core,
    V2C on the cube)."""
    if st.core.kind not in ("cube", "vector"):
        ex._require_core(st, op, op.name, "vector")
    from_cube = st.core.kind == "vector"
    free(ex, st, op, _handle(ex, st, op, 1 if from_cube else 2), from_cube)


def skips_nosplit_guard(ex: Executor, st: CoreState, region_op: Operation) -> bool:
    """PTOAS wraps a vector function (or section) that initialises an a5 nosplit pipe in
    ``if (get_subblockid() == 0)``: AIV1 skips it."""
    if st.core.kind != "vector" or st.core.sub == 0 or not ex.m.target.acc_to_vec:
        return False
    cache = ex.__dict__.setdefault("_nosplit_guard", {})
    if region_op not in cache:
        cache[region_op] = _nosplit_only(ex, region_op)
    return bool(cache[region_op])


def _nosplit_only(ex: Executor, region_op: Operation) -> bool:
    from ..frontend.pipe_handle_ops import InitializeL2LPipeOp
    from ..frontend.pipe_ops import AivInitializePipeOp
    inits = [op for op in region_op.walk()
             if isinstance(op, (AivInitializePipeOp, InitializeL2LPipeOp))]
    if not inits:
        return False
    p = plan(ex)
    return all(p.handles[op][1] if isinstance(op, InitializeL2LPipeOp)
               else p.nosplit.get(int(_int(op, "id", 0)), True)  # type: ignore[arg-type]
               for op in inits)
