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
from .fixpipe_ops import MteL0cGmOp, MteL0cL1Op, MteL0cUbOp
from .generated_ops import GENERATED_OPS
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
from .tile_ops import TILE_OPS, VIEW_OPS
from .tile_types import (
    AccToVecModeAttr,
    AtomicTypeAttr,
    CmpModeAttr,
    LayoutAttr,
    MaskPatternAttr,
    PartitionTensorViewType,
    PrecisionModeAttr,
    QuantTypeAttr,
    ReluPreModeAttr,
    RoundModeAttr,
    SaturationModeAttr,
    TensorViewType,
    TileBufType,
)
from .tile_views import TReshapeOp
from .vector_ops import StrictVecScopeOp, VecScopeOp
from .vector_types import AlignType, MaskType, VRegType

MICRO_OPS: tuple[type[MicroOp], ...] = (
    MteGmUbOp, MteUbGmOp, MteUbUbOp, MteGmL1Op, MteL1UbOp, MteUbL1Op, MteGmL1FracOp,
    MteL1BtOp, MteL1FbOp, MteL1L0aOp, MteL1L0bOp, MteL1L0aMxOp, MteL1L0bMxOp, MadOp, MadAccOp,
    MadBiasOp, MadMxOp, MadMxAccOp, MadMxBiasOp, MteL0cGmOp, MteL0cL1Op, MteL0cUbOp,
    # one registry row each (ptosim.isa.table)
    *(cls for cls in GENERATED_OPS if cls.SPEC.kind == "micro"),  # type: ignore[attr-defined,arg-type]
)
# The vector tile ops (ptosim.isa.tile_vector): generated DPS tile ops, one row each.
VECTOR_TILE_OPS = tuple(cls for cls in GENERATED_OPS
                        if cls.SPEC.kind == "tile")  # type: ignore[attr-defined]

OTHER_OPS = (
    CastPtrOp, AddPtrOp, SectionCubeOp, SectionVectorOp, GetBlockIdxOp, GetBlockNumOp,
    GetSubblockIdxOp, GetSubblockNumOp, SetFlagOp, WaitFlagOp, BarrierOp, PipeBarrierOp,
    SyncSetOp, SyncWaitOp, GetBufOp, RlsBufOp, MemBarOp, GetCtrlOp, SetCtrlOp, Sbitset0Op,
    Sbitset1Op, SetFlagDynOp, WaitFlagDynOp, VecScopeOp, StrictVecScopeOp, PrintOp,
    TReshapeOp,
)

def _attach_specs(ops: tuple[type, ...]) -> None:
    """Give every op class its registry entry; an op without one is a bug here."""
    for cls in ops:
        cls.SPEC = BY_MNEMONIC[cls.name]  # type: ignore[attr-defined]


_attach_specs((*MICRO_OPS, *OTHER_OPS, *VIEW_OPS, *TILE_OPS))

PTO = Dialect(
    "pto",
    [*MICRO_OPS, *OTHER_OPS, *VIEW_OPS, *TILE_OPS, *VECTOR_TILE_OPS],
    [PtrType, Hif8Type, Hif8x2Type, F4E2M1x2Type, F4E1M2x2Type, AddressSpaceAttr, PipeAttr,
     KernelKindAttr, TileBufType, TensorViewType, PartitionTensorViewType, LayoutAttr,
     AtomicTypeAttr, ReluPreModeAttr, AccToVecModeAttr, CmpModeAttr, PrecisionModeAttr,
     MaskPatternAttr, QuantTypeAttr, RoundModeAttr, SaturationModeAttr,
     VRegType, MaskType, AlignType],
)
