"""Every PTO op ptosim knows, one row each (pipes: pto-notes §1.3; targets: §1.4 and
docs/semantics.md, "UB <-> L1 path is A5 only")."""

from __future__ import annotations

from typing import Any

from . import (
    legacy,
    tile_extra,
    tile_handle,
    tile_pipe,
    tile_shape,
    tile_sort,
    tile_vector,
    vector,
    vector_cmp,
    vector_convert,
    vector_dsa,
    vector_gather,
    vector_rearrange,
    vector_reduce,
    vector_stream,
)
from .spec import Args, Operand, OpSpec

A5 = frozenset({"a5"})


def _micro(name: str, pipe: str, core: str, targets: frozenset[str] | None = None,
           implemented: bool = True, work: Any = None) -> OpSpec:
    return OpSpec(name, "micro", pipe, core, name, targets, implemented, work)


def _mad_work(args: Args) -> tuple[int, int]:
    m, n, k = (int(x) for x in args[-3:])       # (lhs, rhs, dst[, bias], m, n, k)
    return 2 * m * n * k, args[0].dtype.size


def _tmatmul_work(args: Args) -> tuple[int, int]:
    (m, k), n = args[1].valid, args[2].valid[1]  # (acc, left, right[, bias]) tiles
    return 2 * m * n * k, args[1].dtype.size


def _tgemv_work(args: Args) -> tuple[int, int]:
    k, n = args[2].valid                         # m = 1: k x n from the right tile
    return 2 * n * k, args[1].dtype.size


def _tmatmul_mx_work(args: Args) -> tuple[int, int]:
    (m, k), n = args[1].valid, args[3].valid[1]  # (acc, left, scale_left, right, ...)
    return 2 * m * n * k, args[1].dtype.size


def _tgemv_mx_work(args: Args) -> tuple[int, int]:
    k, n = args[1].valid[1], args[3].valid[1]    # m = 1: k from the left tile
    return 2 * n * k, args[1].dtype.size


def _role(x: Any) -> str | None:
    return getattr(x, "tile_type", None)        # Tiles have one; GlobalTensors do not


def _move_pipe(args: Args) -> str:
    """TSTORE / TMOV / TINSERT / TEXTRACT run where their source lives: FIX out of an
    Acc, MTE1 out of a Mat, MTE3 for a store from a Vec tile, V between Vec tiles."""
    src = _role(args[1]) if len(args) > 1 else None
    if src == "Acc":
        return "FIX"
    if _role(args[0]) is None:                  # TSTORE: the destination is a view
        return "MTE3"
    return "MTE1" if src == "Mat" else "V"


def _tile_core(args: Args) -> str:
    """Vector cores own Vec tiles only; anything touching another role runs on the cube."""
    roles = [r for r in map(_role, args) if r is not None]
    return "vector" if roles and all(r == "Vec" for r in roles) else "cube"


def _tile(name: str, method: str, pipe: Any, work: Any = None) -> OpSpec:
    return OpSpec(name, "tile", pipe, _tile_core, method, None, True, work)


def _other(name: str, kind: str, pipe: str = "S", method: str | None = None,
           implemented: bool = True) -> OpSpec:
    return OpSpec(name, kind, pipe, "any", method, None, implemented)


def _loop_register(name: str, core: str, operands: tuple[str, ...] = ("a", "b")) -> OpSpec:
    """``pto.<name> %a, %b : i64, i64``: values into a per-core loop register that the
    register-level copy ops read (PTOAS VPTOOps.td; which value is the outer loop is the
    reading op's business, so the values are kept as written). The GM -> L1 registers take
    one packed i64 (``%value : i64``)."""
    return OpSpec(name, "micro", "S", core, name, syntax="scalars",
                  operands=tuple(Operand(o) for o in operands),
                  register=name.removeprefix("set_"))


_BASE_ROWS: tuple[OpSpec, ...] = (
    # DMA (MTE2 in, MTE3 out; V moves inside UB)
    _micro("mte_gm_ub", "MTE2", "vector"),
    _micro("mte_ub_gm", "MTE3", "vector"),
    _micro("mte_ub_ub", "V", "vector"),
    _micro("mte_ub_l1", "MTE3", "vector", A5),
    _micro("mte_gm_l1", "MTE2", "cube"),
    _micro("mte_gm_l1_frac", "MTE2", "cube"),
    _micro("mte_l1_ub", "MTE1", "cube", A5),
    # L1 -> L0A / L0B / BT / FB
    _micro("mte_l1_l0a", "MTE1", "cube"),
    _micro("mte_l1_l0b", "MTE1", "cube"),
    _micro("mte_l1_bt", "MTE1", "cube"),
    _micro("mte_l1_fb", "FIX", "cube"),
    _micro("mte_l1_l0a_mx", "MTE1", "cube", A5),
    _micro("mte_l1_l0b_mx", "MTE1", "cube", A5),
    # MAD
    _micro("mad", "M", "cube", work=_mad_work),
    _micro("mad_acc", "M", "cube", work=_mad_work),
    _micro("mad_bias", "M", "cube", work=_mad_work),
    _micro("mad_mx", "M", "cube", A5, work=_mad_work),
    _micro("mad_mx_acc", "M", "cube", A5, work=_mad_work),
    _micro("mad_mx_bias", "M", "cube", A5, work=_mad_work),
    # FIXPIPE
    _micro("mte_l0c_gm", "FIX", "cube"),
    _micro("mte_l0c_l1", "FIX", "cube"),
    _micro("mte_l0c_ub", "FIX", "cube", A5),
    # loop registers of the register-level GM <-> UB copies (vector core)
    _loop_register("set_loop_size_outtoub", "vector"),
    _loop_register("set_loop1_stride_outtoub", "vector"),
    _loop_register("set_loop2_stride_outtoub", "vector"),
    _loop_register("set_loop_size_ubtoout", "vector"),
    _loop_register("set_loop1_stride_ubtoout", "vector"),
    _loop_register("set_loop2_stride_ubtoout", "vector"),
    # ... and of GM -> L1 (cube core): one packed value each (see ops/legacy.py)
    _loop_register("set_loop_size_outtol1", "cube", ("value",)),
    _loop_register("set_loop1_stride_outtol1", "cube", ("value",)),
    _loop_register("set_loop2_stride_outtol1", "cube", ("value",)),
    # pointers, structure, queries, CTRL: the interpreter's own
    _other("castptr", "scalar"), _other("addptr", "scalar"),
    _other("section.cube", "structure"), _other("section.vector", "structure"),
    OpSpec("vecscope", "structure", "V", "vector"),
    OpSpec("strict_vecscope", "structure", "V", "vector"),
    _other("get_block_idx", "scalar"), _other("get_block_num", "scalar"),
    _other("get_subblock_idx", "scalar"), _other("get_subblock_num", "scalar"),
    _other("get_ctrl", "scalar"), _other("set_ctrl", "scalar"),
    _other("sbitset0", "scalar"), _other("sbitset1", "scalar"),
    _other("print", "scalar"),         # printf of one scalar (frontend/debug_ops.py)
    # synchronisation: events of the hazard checker and the timeline; no Python face yet
    _other("set_flag", "sync", method="set_flag", implemented=False),
    _other("wait_flag", "sync", method="wait_flag", implemented=False),
    _other("set_flag_dyn", "sync"), _other("wait_flag_dyn", "sync"),
    _other("barrier", "sync", method="barrier", implemented=False),
    _other("pipe_barrier", "sync", method="pipe_barrier", implemented=False),
    _other("sync.set", "sync"), _other("sync.wait", "sync"),
    _other("get_buf", "sync"), _other("rls_buf", "sync"), _other("mem_bar", "sync"),
    # TSYNC's .pto forms (frontend/event_ops.py): flags and a barrier by op type
    _other("record_event", "sync"), _other("wait_event", "sync"),
    _other("barrier_sync", "sync"), _other("tsync", "sync", method="TSYNC"),
    _other("syncall", "sync", method="SYNCALL"),      # frontend/syncall_ops.py
    # TPREFETCH_ASYNC (frontend/prefetch_async_ops.py): the SDMA bookkeeping of the vector
    # core goes through its UB scratch by MTE2 between PIPE_ALL barriers
    _other("make_prefetch_async_context", "view"), _other("get_prefetch_async_session", "view"),
    OpSpec("tprefetch_async", "sync", "MTE2", "vector", "TPREFETCH_ASYNC"),
    OpSpec("comm.wait_async_event", "sync", "MTE2", "vector"),
    # tile level: views and tiles, then the tile ops
    _other("make_tensor_view", "view"), _other("partition_view", "view"),
    _other("alloc_tile", "view"), _other("tile_buf_addr", "view"),
    _tile("tload", "TLOAD", "MTE2"),
    _tile("tprefetch", "TPREFETCH", "MTE2"),
    # a5: a SIMT kernel on the vector core (V); a2a3: the scalar unit driving MTE2 / MTE3
    # (PTOAS MGatherOp / MScatterOp getPipe; docs/semantics.md)
    OpSpec("mgather", "tile", "MTE2", _tile_core, "MGATHER", target_pipe="mgather_pipe"),
    OpSpec("mscatter", "tile", "MTE3", _tile_core, "MSCATTER", target_pipe="mscatter_pipe"),
    _tile("tstore", "TSTORE", _move_pipe),
    _tile("tmov", "TMOV", _move_pipe),
    _tile("textract", "TEXTRACT", _move_pipe),
    _tile("tinsert", "TINSERT", _move_pipe),
    _tile("tstore_fp", "TSTORE_FP", _move_pipe),
    _tile("tmov.fp", "TMOV_FP", _move_pipe),
    _tile("textract_fp", "TEXTRACT_FP", _move_pipe),
    _tile("tinsert_fp", "TINSERT_FP", _move_pipe),
    _tile("tmatmul", "TMATMUL", "M", _tmatmul_work),
    _tile("tmatmul.acc", "TMATMUL_ACC", "M", _tmatmul_work),
    _tile("tmatmul.bias", "TMATMUL_BIAS", "M", _tmatmul_work),
    _tile("tgemv", "TGEMV", "M", _tgemv_work),
    _tile("tgemv.acc", "TGEMV_ACC", "M", _tgemv_work),
    _tile("tgemv.bias", "TGEMV_BIAS", "M", _tgemv_work),
    _tile("tmatmul.mx", "TMATMUL_MX", "M", _tmatmul_mx_work),
    _tile("tmatmul.mx.acc", "TMATMUL_MX_ACC", "M", _tmatmul_mx_work),
    _tile("tmatmul.mx.bias", "TMATMUL_MX_BIAS", "M", _tmatmul_mx_work),
    _tile("tgemv.mx", "TGEMV_MX", "M", _tgemv_mx_work),
    _tile("tgemv.mx.acc", "TGEMV_MX_ACC", "M", _tgemv_mx_work),
    _tile("tgemv.mx.bias", "TGEMV_MX_BIAS", "M", _tgemv_mx_work),
    _tile("tfillpad", "TFILLPAD", "V"),
    _tile("tfillpad_expand", "TFILLPAD", "V"),
    _tile("tfillpad_inplace", "TFILLPAD", "V"),
)

# Each further family keeps its rows in its own module of this package (``ROWS``).
_ROWS: tuple[OpSpec, ...] = _BASE_ROWS + legacy.ROWS + tile_vector.ROWS + vector.ROWS
_ROWS += vector_dsa.ROWS
_ROWS += vector_cmp.ROWS
_ROWS += vector_convert.ROWS + vector_reduce.ROWS
_ROWS += vector_rearrange.ROWS + vector_gather.ROWS
_ROWS += tile_sort.ROWS
_ROWS += tile_extra.ROWS + tile_shape.ROWS + tile_handle.ROWS
_ROWS += vector_stream.ROWS
_ROWS += tile_pipe.ROWS

REGISTRY: dict[str, OpSpec] = {s.name: s for s in _ROWS}
assert len(REGISTRY) == len(_ROWS), "an op is listed twice"
BY_MNEMONIC: dict[str, OpSpec] = {s.mnemonic: s for s in _ROWS}
# Machine method -> spec (the tfillpad forms share TFILLPAD and everything else with it)
BY_METHOD: dict[str, OpSpec] = {}
for _s in _ROWS:
    if _s.method is not None:
        BY_METHOD.setdefault(_s.method, _s)


GENERATED: tuple[OpSpec, ...] = tuple(s for s in _ROWS if s.syntax is not None)


def spec(name: str) -> OpSpec:
    """The spec of an op by mnemonic (``mte_gm_ub`` or ``pto.mte_gm_ub``)."""
    return REGISTRY[name.removeprefix("pto.")]


def target_ops(target: str) -> frozenset[str]:
    """Machine methods of the micro-ops that exist on ``target``."""
    return frozenset(s.method for s in _ROWS
                     if s.kind == "micro" and s.method is not None and s.on(target))


def planned_methods() -> frozenset[str]:
    """Machine methods of ops ptosim does not implement yet (README support table)."""
    return frozenset(s.method for s in _ROWS if s.method is not None and not s.implemented)
