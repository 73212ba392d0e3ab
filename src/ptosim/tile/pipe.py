"""The Python face of a5's cube <-> vector tile pipes: pto-isa's ``TPipe`` (TPush.hpp) and
``TPUSH`` / ``TPOP`` / ``TFREE`` (TPush.hpp, TPop.hpp, TFree.hpp) as one program plays them.

C++ builds one ``TPipe<FlagID, DirType, SlotSize, SlotNum, LocalSlotNum, IsNoSplit>
pipe(gmSlotBuffer, c2vConsumerBuf, v2cConsumerBuf)`` on every core that uses the pipe, and
the core is implicit (the code runs there). The Python face is one program, so a pipe
names its core::

    cube = m.TPipe(0, "DIR_C2V", 1024, 2, c2v_consumer_buf=0, nosplit=True, core="cube")
    aiv0 = m.TPipe(0, "DIR_C2V", 1024, 2, c2v_consumer_buf=0, nosplit=True,
                   core="vector", subblock=0)
    m.TPUSH(cube, acc, split="TILE_NO_SPLIT")
    t = m.TPOP(aiv0, vec, split="TILE_NO_SPLIT")      # vec bound to the slot (TASSIGN)
    m.TFREE(aiv0, split="TILE_NO_SPLIT")

The protocol (flag ids, sparse free waits, slot tiles, the split rule, FIXPIPE for C2V and
TINSERT for V2C) is the ``.pto`` path's, shared through `ptosim.interp.pipes`, on the same
cross-core semaphores (`SyncService`, one per Machine). Ops run in program order, so a
wait that is not satisfied when it is issued can never be: it is a `DeadlockError` naming
the op (docs/semantics.md, "Tile pipes").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import (
    DeadlockError,
    NotImplementedOpError,
    PtoTypeError,
    PtoValueError,
    SpaceError,
    warn,
)
from .tile import Tile

if TYPE_CHECKING:
    from ..interp.executor import Core
    from ..interp.pipes import Pipe
    from ..interp.scheduler import SyncService
    from .ops import TileOps

SPLITS = {"TILE_NO_SPLIT": 0, "TILE_UP_DOWN": 1, "TILE_LEFT_RIGHT": 2}
DIRECTIONS = {"DIR_C2V": 1, "DIR_V2C": 2, "DIR_BOTH": 3}
# pto-isa fifo.hpp's other directions: the control FIFO and the GM FIFOs
_OTHER_DIRECTIONS = {"DIR_V2C_CTRL": 4, "DIR_C2V_GM": 5, "DIR_V2C_GM": 6, "DIR_BOTH_GM": 7}
_FLAGS = 16                 # a core's intra-block semaphore ids (FlagID + n < 16)


@dataclass(eq=False)
class TPipe:
    """One core's TPipe: the pipe's shape, buffers and flag base (`Pipe`, with its
    producer / consumer tile counters) and the core that owns it."""

    state: Pipe
    core: Core

    @property
    def flag_id(self) -> int:
        return self.state.flag

    @property
    def dir_type(self) -> int:
        return self.state.dir_mask

    @property
    def slot_size(self) -> int:
        return self.state.slot_size

    @property
    def slot_num(self) -> int:
        return self.state.slot_num

    @property
    def nosplit(self) -> bool:
        return self.state.nosplit

    def __repr__(self) -> str:
        s = self.state
        return (f"TPipe(flag_id={s.flag}, dir_type={s.dir_mask}, slot_size={s.slot_size}, "
                f"slot_num={s.slot_num}, nosplit={s.nosplit}, core={self.core.name})")


class _OpName:
    """What `SyncService` needs of an op: its name (for errors) and its pipe."""

    def __init__(self, name: str, unit: str) -> None:
        self.name, self._unit = name, unit

    def pipe(self) -> str:
        return self._unit


def _sync(m: TileOps) -> SyncService:
    """The Machine's cross-core semaphores, made on first use."""
    got = m.__dict__.get("_pipe_sync")
    if got is None:
        from ..interp.scheduler import SyncService
        got = m.__dict__["_pipe_sync"] = SyncService(m.target, {})
    return got


def _require_a5(m: TileOps, op: str) -> None:
    from ..interp.pipes import require_local_pipes
    require_local_pipes(m.target, op)


def _int(op: str, name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise PtoTypeError(f"{name} must be an int, got {value!r}", op=op, operand=name)
    return value


def _split(op: str, split: object) -> int:
    if isinstance(split, str) and split in SPLITS:
        return SPLITS[split]
    if not isinstance(split, bool) and isinstance(split, int) and split in SPLITS.values():
        return split
    raise PtoValueError(f"split must be one of {', '.join(SPLITS)} (or 0 / 1 / 2), got "
                        f"{split!r}", op=op, operand="split")


def _pipe(op: str, pipe: object) -> TPipe:
    if not isinstance(pipe, TPipe):
        raise PtoTypeError(f"pipe must be a TPipe made by m.TPipe(...), got "
                           f"{type(pipe).__name__}", op=op, operand="pipe")
    return pipe


def tpipe(m: TileOps, flag_id: int, dir_type: int | str, slot_size: int, slot_num: int,
          c2v_consumer_buf: int | None = None, v2c_consumer_buf: int | None = None, *,
          core: str, subblock: int = 0, nosplit: bool = False, local_slot_num: int = 2,
          gm_slot_buffer: object = None) -> TPipe:
    """``TPipe<flag_id, dir_type, slot_size, slot_num, local_slot_num, nosplit>
    pipe(gm_slot_buffer, c2v_consumer_buf, v2c_consumer_buf)`` built on ``core`` ("cube",
    or "vector" with ``subblock`` 0 / 1). The buffers are byte addresses in the consumer's
    memory: C2V slots in each AIV's UB, V2C slots in the AIC's L1. As the constructor does,
    the consumer side frees every slot group once (sets its slot-free flag SyncPeriod
    times). ``local_slot_num`` only matters to GM FIFO pipes (not implemented)."""
    op = "TPipe"
    _require_a5(m, op)
    if gm_slot_buffer is not None:
        raise NotImplementedOpError("GM slot buffers (a5's GM FIFO pipes) are not "
                                    "implemented yet", op=op, operand="gm_slot_buffer")
    if isinstance(dir_type, str) and dir_type in DIRECTIONS:
        dir_mask = DIRECTIONS[dir_type]
    elif not isinstance(dir_type, bool) and isinstance(dir_type, int) and \
            dir_type in DIRECTIONS.values():
        dir_mask = dir_type
    elif dir_type in _OTHER_DIRECTIONS or dir_type in _OTHER_DIRECTIONS.values():
        raise NotImplementedOpError(f"dir_type {dir_type!r} (the control FIFO and the GM "
                                    f"FIFO pipes) is not implemented yet", op=op,
                                    operand="dir_type")
    else:
        raise PtoValueError(f"dir_type must be one of {', '.join(DIRECTIONS)} (or 1 / 2 / "
                            f"3), got {dir_type!r}", op=op, operand="dir_type")
    flag = _int(op, "flag_id", flag_id)
    last = flag + (3 if dir_mask == 3 else 1)    # TPush.hpp's static_asserts
    if flag < 0 or last >= _FLAGS:
        raise PtoValueError(f"flag_id {flag} uses flags {flag}..{last}; they must lie in "
                            f"0..{_FLAGS - 1}", op=op, operand="flag_id")
    size, num = _int(op, "slot_size", slot_size), _int(op, "slot_num", slot_num)
    if size <= 0 or num < 1:
        raise PtoValueError(f"slot_size must be positive and slot_num at least 1, got "
                            f"{size} and {num}", op=op, operand="slot_size")
    if _int(op, "local_slot_num", local_slot_num) < 1:
        raise PtoValueError(f"local_slot_num must be at least 1, got {local_slot_num}",
                            op=op, operand="local_slot_num")
    if not isinstance(nosplit, bool):
        raise PtoTypeError(f"nosplit must be a bool, got {nosplit!r}", op=op,
                           operand="nosplit")
    if core not in ("cube", "vector"):
        raise PtoValueError(f"core must be 'cube' or 'vector', got {core!r}", op=op,
                            operand="core")
    if _int(op, "subblock", subblock) not in (0, 1) or (core == "cube" and subblock):
        raise PtoValueError(f"subblock selects AIV0 or AIV1 of a vector core (0 or 1; 0 for "
                            f"the cube), got {subblock!r}", op=op, operand="subblock")
    bufs: dict[str, int | None] = {}
    for name, value, bit, space in (("c2v_consumer_buf", c2v_consumer_buf, 1, "ub"),
                                    ("v2c_consumer_buf", v2c_consumer_buf, 2, "l1")):
        if not dir_mask & bit:
            bufs[name] = None if value is None else _int(op, name, value)
            continue
        if value is None:
            raise PtoValueError(f"dir_type {dir_mask} needs {name}, the slots' address in "
                                f"the consumer's {space.upper()}", op=op, operand=name)
        addr = _int(op, name, value)
        cap = m.target.capacity[space]
        if addr < 0 or addr % 32 or addr + size * num > cap:
            raise PtoValueError(f"{num} slots of {size} B at byte {addr} must be 32 B "
                                f"aligned and fit the {cap} B {space.upper()}", op=op,
                                operand=name)
        bufs[name] = addr
    from ..interp.executor import Core
    from ..interp.pipes import Pipe, init_frees
    state = Pipe(flag, dir_mask, size, num, nosplit, flag, bufs["c2v_consumer_buf"],
                 bufs["v2c_consumer_buf"])
    pipe = TPipe(state, Core(core, subblock, 0))
    for ident, unit in init_frees(state, core):
        _sync(m).signal(pipe.core, ident, _OpName(op, unit), pipe=unit)  # type: ignore[arg-type]
    return pipe


def _wait(m: TileOps, pipe: TPipe, flags: list[tuple[int, str]], op: str, peer: str) -> None:
    """Consume each flag; one that no earlier op set ends the program: nothing runs
    after a blocked op in one program order."""
    sync = _sync(m)
    for ident, unit in flags:
        for wait in sync.wait(pipe.core, ident, _OpName(op, unit), pipe=unit):  # type: ignore[arg-type]
            raise DeadlockError(
                f"deadlock: {pipe.core.name} waits for semaphore {wait.what} (count 0), "
                f"which no earlier op set; the Python face runs one program in order, so "
                f"{peer} must come first", op=op)


def _signal(m: TileOps, pipe: TPipe, flags: list[tuple[int, str]], op: str) -> None:
    for ident, unit in flags:
        _sync(m).signal(pipe.core, ident, _OpName(op, unit), pipe=unit)  # type: ignore[arg-type]


def _unread_slot(m: TileOps, pipe: TPipe, to_vector: bool, ready: list[tuple[int, str]]
                 ) -> None:
    """Warn when this push's slot still holds a tile no TPOP has taken: the data-ready
    semaphores count the tiles pushed and not yet popped. a5's constructor credits let a
    producer run that far ahead (the `.pto` form's hazard checker reports the race; the
    Python face has no hazard checker, so it says so here). Popped tiles not yet freed are
    not counted: no false alarms, not every overwrite."""
    sync = _sync(m)
    for ident, _ in ready:
        keys = sync._cells(pipe.core, ident, True, _OpName("TPUSH", "S"))  # type: ignore[arg-type]
        for key in keys:
            unread = sync.count.get(key, 0)
            if unread >= pipe.slot_num:
                from ..interp.scheduler import _describe
                warn(f"TPUSH: tile {pipe.state.prod} overwrites slot "
                     f"{pipe.state.prod % pipe.slot_num}, whose tile no TPOP has taken yet "
                     f"({unread} tiles pushed and not popped on {_describe(key)}); a5's "
                     f"up-front free credits let the producer run ahead of the consumer")


def _on(pipe: TPipe, kind: str, op: str, what: str) -> None:
    if pipe.core.kind != kind:
        from ..interp.pipes import PipeError
        raise PipeError(f"{what} runs on the {'cube core' if kind == 'cube' else 'vector cores'}"
                        f"; this TPipe is {pipe.core.name}'s", op=op, operand="pipe")


def _direction(pipe: TPipe, bit: int, op: str) -> None:
    if not pipe.state.dir_mask & bit:
        from ..interp.pipes import PipeError
        raise PipeError(f"the pipe (flag_id {pipe.flag_id}) has dir_type {pipe.dir_type}, "
                        f"which has no {'C2V' if bit == 1 else 'V2C'} direction", op=op,
                        operand="pipe")


def _slot_tile(m: TileOps, info: dict[str, Any], addr: int, op: str) -> Tile:
    return m._new_tile(info["tile_type"], info["dtype"], info["rows"], info["cols"],
                       info["blayout"], info["slayout"], info["fractal"], info["valid"],
                       info["pad"], addr, 0, row_align=False, op=op)


def tpush(m: TileOps, pipe: TPipe, tile: Tile, *, split: int | str) -> None:
    """``TPUSH<Pipe, Tile, Split>(pipe, tile)``: an Acc tile from the cube (C2V: FIXPIPE
    into the AIVs' UB slot, halved by a split) or an NZ Vec tile from an AIV (V2C: TINSERT
    into the AIC's L1 slot, at its half for a split). Waits for a free slot from tile
    ``slot_num`` on, every SyncPeriod tiles; sets data ready."""
    op = "TPUSH"
    _require_a5(m, op)
    p, s = _pipe(op, pipe), _split(op, split)
    if not isinstance(tile, Tile):
        raise PtoTypeError(f"tile must be a Tile, got {type(tile).__name__}", op=op,
                           operand="tile")
    from ..interp.pipes import (
        PipeError,
        c2v_slot_info,
        check_split,
        check_v2c_source,
        push_records,
        push_waits,
        slot_address,
        v2c_slot_info,
    )
    if tile.tile_type == "Acc":
        to_vector = True
        _on(p, "cube", op, "a push of an Acc tile (C2V)")
    elif tile.tile_type == "Vec":
        to_vector = False
        _on(p, "vector", op, "a push of a Vec tile (V2C)")
        if tile.ptr.sub != p.core.sub:
            raise PipeError(f"the Vec tile lies in AIV{tile.ptr.sub}'s UB; this TPipe is "
                            f"{p.core.name}'s", op=op, operand="tile")
    else:
        raise SpaceError(f"TPUSH pushes an Acc tile (C2V, on the cube) or a Vec tile (V2C, "
                         f"on a vector core), got a {tile.tile_type} tile", op=op,
                         operand="tile")
    state = p.state
    _direction(p, 1 if to_vector else 2, op)
    check_split(state, s, op)
    if not to_vector:
        check_v2c_source(tile, op)
    _wait(m, p, push_waits(state, to_vector), op, "the consumer's TFREE")
    _unread_slot(m, p, to_vector, push_records(state, to_vector))
    if to_vector:
        assert state.c2v_buf is not None
        info, mode = c2v_slot_info(tile, s)
        addr = slot_address(state, state.c2v_buf, state.prod, info, op)
        m.TMOV(_slot_tile(m, info, addr, op), tile, mode=mode)
    else:
        assert state.v2c_buf is not None
        info, r0, c0 = v2c_slot_info(tile, s, p.core.sub)
        addr = slot_address(state, state.v2c_buf, state.prod, info, op)
        m.TINSERT(_slot_tile(m, info, addr, op), tile, r0, c0)
    state.prod += 1
    _signal(m, p, push_records(state, to_vector), op)


def tpop(m: TileOps, pipe: TPipe, tile: Tile, *, split: int | str) -> Tile:
    """``TPOP<Pipe, Tile, Split>(pipe, tile)``: waits for data ready and returns ``tile``
    bound to the slot (TASSIGN; a5 moves no bytes): a Vec tile on a vector core (C2V) or a
    Mat tile on the cube (V2C). Python returns the bound tile, as `TASSIGN` does."""
    op = "TPOP"
    _require_a5(m, op)
    p, s = _pipe(op, pipe), _split(op, split)
    if not isinstance(tile, Tile):
        raise PtoTypeError(f"tile must be a Tile, got {type(tile).__name__}", op=op,
                           operand="tile")
    from ..interp.pipes import PipeError, check_split, pop_waits, slot_address
    if tile.tile_type == "Vec":
        from_cube = True
        _on(p, "vector", op, "a pop into a Vec tile (C2V)")
        if tile.ptr.sub != p.core.sub:
            raise PipeError(f"the Vec tile lies in AIV{tile.ptr.sub}'s UB; this TPipe is "
                            f"{p.core.name}'s", op=op, operand="tile")
    elif tile.tile_type == "Mat":
        from_cube = False
        _on(p, "cube", op, "a pop into a Mat tile (V2C)")
    else:
        raise SpaceError(f"TPOP pops into a Vec tile (C2V, on a vector core) or a Mat tile "
                         f"(V2C, on the cube), got a {tile.tile_type} tile", op=op,
                         operand="tile")
    state = p.state
    _direction(p, 1 if from_cube else 2, op)
    check_split(state, s, op)
    _wait(m, p, pop_waits(state, from_cube), op, "the producer's TPUSH")
    base = state.c2v_buf if from_cube else state.v2c_buf
    assert base is not None
    info = {"rows": tile.rows, "cols": tile.cols, "dtype": tile.dtype.name}
    addr = slot_address(state, base, state.cons, info, op)
    state.cons += 1
    from .handle import tassign
    return tassign(m, tile, addr)


def tfree(m: TileOps, pipe: TPipe, *, split: int | str) -> None:
    """``TFREE<Pipe, Split>(pipe)`` on the consumer: the slot of the last TPOP is free;
    the flag is set after every SyncPeriod-th tile. A vector core's TPipe frees C2V slots,
    the cube's V2C slots."""
    op = "TFREE"
    _require_a5(m, op)
    p, s = _pipe(op, pipe), _split(op, split)
    from ..interp.pipes import PipeError, check_split, free_records
    from_cube = p.core.kind == "vector"
    state = p.state
    _direction(p, 1 if from_cube else 2, op)
    check_split(state, s, op)
    if state.cons == 0:
        raise PipeError(f"nothing popped from the pipe (flag_id {p.flag_id}) on "
                        f"{p.core.name} yet: TFREE releases the slot of the last TPOP", op=op)
    _signal(m, p, free_records(state, from_cube), op)
