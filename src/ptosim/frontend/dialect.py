"""The ``pto`` xDSL dialect: every op and attribute class of the front end, registered."""

from __future__ import annotations

from xdsl.ir import Dialect

from ..isa import BY_MNEMONIC
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
from .event_ops import EVENT_ATTRS, EVENT_OPS
from .fixpipe_ops import MteL0cGmOp, MteL0cL1Op, MteL0cUbOp
from .generated_ops import generated_ops
from .pipe_ops import PIPE_OPS
from .pointer_ops import AddPtrOp, CastPtrOp
from .prefetch_async_ops import PREFETCH_ASYNC_OPS, PREFETCH_ASYNC_TYPES
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
from .syncall_ops import SYNCALL_ATTRS, SyncAllOp
from .tile_handle import HANDLE_OPS
from .tile_ops import TILE_OPS, VIEW_OPS
from .tile_types import (
    AccToVecModeAttr,
    AtomicTypeAttr,
    CmpModeAttr,
    GatherOOBAttr,
    LayoutAttr,
    MaskPatternAttr,
    PadModeAttr,
    PartitionTensorViewType,
    PrecisionModeAttr,
    QuantTypeAttr,
    ReluPreModeAttr,
    RoundModeAttr,
    SaturationModeAttr,
    ScatterAtomicOpAttr,
    ScatterOOBAttr,
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
    TReshapeOp, SubViewOp, SetValidShapeOp, GetValidShapeOp, *HANDLE_OPS, *PIPE_OPS,
    *EVENT_OPS, SyncAllOp, *PREFETCH_ASYNC_OPS,
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
    MaskPatternAttr, QuantTypeAttr, RoundModeAttr, SaturationModeAttr, GatherOOBAttr,
    ScatterOOBAttr, ScatterAtomicOpAttr, PadModeAttr,
    VRegType, MaskType, AlignType, *EVENT_ATTRS, *SYNCALL_ATTRS,
    *PREFETCH_ASYNC_TYPES,
)
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
        value = Dialect("pto", [*PTO_CORE.operations, *generated_ops()], list(_ATTRIBUTES))
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value             # one object from now on
    return value
