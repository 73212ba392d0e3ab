"""The ``pto`` dialect: every op and attribute class of the front end, registered."""

from __future__ import annotations

import importlib

from ..isa import BY_MNEMONIC
from ..mlir.ir import Attribute, Dialect, Operation
from .attributes import (
    AddressSpaceAttr,
    F4E1M2x2Type,
    F4E2M1x2Type,
    Hif8Type,
    Hif8x2Type,
    KernelKindAttr,
    PipeAttr,
    PtrType,
)
from .base import MicroOp
from .ctrl_ops import GetCtrlOp, Sbitset0Op, Sbitset1Op, SetCtrlOp
from .cube_ops import (
    MadAccOp,
    MadBiasOp,
    MadMxAccOp,
    MadMxBiasOp,
    MadMxOp,
    MadOp,
    MteL1L0aMxOp,
    MteL1L0aOp,
    MteL1L0bMxOp,
    MteL1L0bOp,
)
from .debug_ops import PrintOp
from .dma_ops import (
    MteGmL1FracOp,
    MteGmL1Op,
    MteGmUbOp,
    MteL1BtOp,
    MteL1FbOp,
    MteL1UbOp,
    MteUbGmOp,
    MteUbL1Op,
    MteUbUbOp,
)
from .fixpipe_ops import MteL0cGmOp, MteL0cL1Op, MteL0cUbOp
from .generated_ops import generated_ops
from .pointer_ops import AddPtrOp, CastPtrOp
from .structure_ops import (
    GetBlockIdxOp,
    GetBlockNumOp,
    GetSubblockIdxOp,
    GetSubblockNumOp,
    SectionCubeOp,
    SectionVectorOp,
)
from .sync_ops import (
    BarrierOp,
    GetBufOp,
    MemBarOp,
    PipeBarrierOp,
    RlsBufOp,
    SetFlagDynOp,
    SetFlagOp,
    SyncSetOp,
    SyncWaitOp,
    WaitFlagDynOp,
    WaitFlagOp,
)
from .tile_handle import HANDLE_OPS
from .tile_ops import TILE_OPS, VIEW_OPS
from .tile_types import (
    AccPhaseAttr,
    AccToVecModeAttr,
    AtomicTypeAttr,
    CmpModeAttr,
    DivPrecisionAttr,
    ExpPrecisionAttr,
    FmodPrecisionAttr,
    GatherOOBAttr,
    LayoutAttr,
    LogPrecisionAttr,
    MaskPatternAttr,
    PadModeAttr,
    PartitionTensorViewType,
    PrecisionModeAttr,
    QuantTypeAttr,
    RecipPrecisionAttr,
    ReluPreModeAttr,
    RemPrecisionAttr,
    RoundModeAttr,
    RsqrtPrecisionAttr,
    SaturationModeAttr,
    ScatterAtomicOpAttr,
    ScatterOOBAttr,
    SqrtPrecisionAttr,
    STPhaseAttr,
    TensorViewType,
    TileBufType,
)
from .tile_views import GetValidShapeOp, SetValidShapeOp, SubViewOp, TReshapeOp
from .vector_ops import StrictVecScopeOp, VecScopeOp
from .vector_types import AlignType, MaskType, VRegType

# The hand-written micro ops; `MICRO_OPS` (module attribute, built on first use) adds one
# generated class per registry row of kind "micro" (ptosim.isa.table).
HAND_MICRO_OPS: tuple[type[MicroOp], ...] = (
    MteGmUbOp, MteUbGmOp, MteUbUbOp, MteGmL1Op, MteL1UbOp, MteUbL1Op, MteGmL1FracOp,
    MteL1BtOp, MteL1FbOp, MteL1L0aOp, MteL1L0bOp, MteL1L0aMxOp, MteL1L0bMxOp, MadOp, MadAccOp,
    MadBiasOp, MadMxOp, MadMxAccOp, MadMxBiasOp, MteL0cGmOp, MteL0cL1Op, MteL0cUbOp,
)
OTHER_OPS = (
    CastPtrOp, AddPtrOp, SectionCubeOp, SectionVectorOp, GetBlockIdxOp, GetBlockNumOp,
    GetSubblockIdxOp, GetSubblockNumOp, SetFlagOp, WaitFlagOp, BarrierOp, PipeBarrierOp,
    SyncSetOp, SyncWaitOp, GetBufOp, RlsBufOp, MemBarOp, GetCtrlOp, SetCtrlOp, Sbitset0Op,
    Sbitset1Op, SetFlagDynOp, WaitFlagDynOp, VecScopeOp, StrictVecScopeOp, PrintOp,
    TReshapeOp, SubViewOp, SetValidShapeOp, GetValidShapeOp, *HANDLE_OPS,
)

def _attach_specs(ops: tuple[type, ...]) -> None:
    """Give every op class its registry entry; an op without one is a bug here."""
    for cls in ops:
        cls.SPEC = BY_MNEMONIC[cls.name]  # type: ignore[attr-defined]


_attach_specs((*HAND_MICRO_OPS, *OTHER_OPS, *VIEW_OPS, *TILE_OPS))

_ATTRIBUTES = (
    PtrType, Hif8Type, Hif8x2Type, F4E2M1x2Type, F4E1M2x2Type, AddressSpaceAttr, PipeAttr,
    KernelKindAttr, TileBufType, TensorViewType, PartitionTensorViewType, LayoutAttr,
    AtomicTypeAttr, ReluPreModeAttr, AccToVecModeAttr, CmpModeAttr, PrecisionModeAttr,
    DivPrecisionAttr, RsqrtPrecisionAttr, ExpPrecisionAttr, LogPrecisionAttr,
    RecipPrecisionAttr, RemPrecisionAttr, SqrtPrecisionAttr, FmodPrecisionAttr, AccPhaseAttr,
    STPhaseAttr,
    MaskPatternAttr, QuantTypeAttr, RoundModeAttr, SaturationModeAttr, GatherOOBAttr,
    ScatterOOBAttr, ScatterAtomicOpAttr, PadModeAttr,
    VRegType, MaskType, AlignType,
)
# Hand-written ops few kernels name (tile pipes, events, SYNCALL, async prefetch): each
# module loads, with its attributes and types, when the parser first meets one of these
# names (`ptosim.frontend.text`), so other kernels' start-up does not pay for them.
# tests/test_frontend_lazy.py keeps the names equal to the modules' classes.
LAZY_MODULES: dict[str, tuple[str, ...]] = {
    "event_ops": ("pto.pipe_event_type", "pto.sync_op_type", "pto.event", "pto.record_event",
                  "pto.wait_event", "pto.barrier_sync", "pto.tsync"),
    "pipe_ops": ("pto.reserve_buffer", "pto.import_reserved_buffer", "pto.aic_initialize_pipe",
                 "pto.aiv_initialize_pipe", "pto.tpush_to_aiv", "pto.tpush_to_aic",
                 "pto.tpop_from_aic", "pto.tpop_from_aiv", "pto.tfree_from_aic",
                 "pto.tfree_from_aiv"),
    "pipe_handle_ops": ("pto.pipe", "pto.initialize_l2l_pipe", "pto.declare_tile",
                        "pto.tpush", "pto.tpop", "pto.tfree"),
    "prefetch_async_ops": ("pto.prefetch_async_context", "pto.async_session",
                           "pto.async_event", "pto.make_prefetch_async_context",
                           "pto.get_prefetch_async_session", "pto.tprefetch_async",
                           "pto.comm.wait_async_event"),
    "syncall_ops": ("pto.sync_all_mode", "pto.sync_core_type", "pto.syncall"),
}
LAZY_NAMES: dict[str, str] = {n: mod for mod, names in LAZY_MODULES.items() for n in names}


def lazy_classes(module: str) -> tuple[list[type[Operation]], list[type[Attribute]]]:
    """The op classes (their registry entries attached) and the attribute / type classes
    of one of `LAZY_MODULES`, importing it."""
    mod = importlib.import_module(f"{__package__}.{module}")
    ops: list[type[Operation]] = []
    attrs: list[type[Attribute]] = []
    for value in vars(mod).values():
        if isinstance(value, type) and getattr(value, "name", None) in LAZY_MODULES[module]:
            (ops if issubclass(value, Operation) else attrs).append(value)
    _attach_specs(tuple(ops))
    return ops, attrs


# What the parser loads up front: the hand-written ops and every attribute and type. The
# generated ops come from `generated_op` when the parser first meets their name
# (`ptosim.frontend.text`), so a kernel pays only for the ops it uses.
PTO_CORE = Dialect("pto", [*HAND_MICRO_OPS, *OTHER_OPS, *VIEW_OPS, *TILE_OPS],
                   list(_ATTRIBUTES))


def __getattr__(name: str) -> object:
    """``MICRO_OPS``, ``VECTOR_TILE_OPS`` (the generated DPS vector tile ops) and ``PTO``
    (the whole dialect) list every generated op: built on first use."""
    value: object
    if name == "MICRO_OPS":
        value = (*HAND_MICRO_OPS,
                 *(c for c in generated_ops() if c.SPEC.kind == "micro"))  # type: ignore[attr-defined]
    elif name == "VECTOR_TILE_OPS":
        value = tuple(c for c in generated_ops() if c.SPEC.kind == "tile")  # type: ignore[attr-defined]
    elif name == "PTO":
        lazy = [lazy_classes(m) for m in LAZY_MODULES]
        value = Dialect("pto", [*PTO_CORE.operations, *generated_ops(),
                                *(c for ops, _ in lazy for c in ops)],
                        [*_ATTRIBUTES, *(c for _, attrs in lazy for c in attrs)])
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value             # one object from now on
    return value
