"""The ``.pto`` text front end: a ``pto`` dialect on `ptosim.mlir`, parsing and printing.

Entry points::

    parse_module(text, filename="<input>") -> ModuleOp        # raises only PtoSyntaxError
    print_module(module) -> str                               # canonical text, round-trips
    load_context() -> Context                                 # builtin, func, arith, scf, pto
    op_location(op) -> "file:line:col" | None                 # where a parsed op starts

What the interpreter uses
-------------------------
Every op class carries ``SPEC``, its `ptosim.isa.OpSpec` (the registry entry: pipe, core,
targets, Machine method ...), attached when the dialect is built. Micro ops (`MICRO_OPS`, all
subclasses of `MicroOp`) have ``SPEC.method`` (the `ptosim.Machine` method name) and
``python_call() -> (positional, keywords)`` in exactly that method's Python shape;
every operand is an ``SSAValue`` (also inside tuples and
lists), keywords hold str / bool::

    pos, kw = op.python_call()      # substitute runtime values for the SSAValues, then
    getattr(machine, op.SPEC.method)(*pos, **kw)

Keys appear only for clauses that are present:

- burst DMA: ``[src, dst(, l2_cache_ctl), len_burst]``, ``nburst=(n, ss, ds)``,
  ``loop=[(c, s, d), ...]``, ``pad=(v,) | (v, left, right)``.
- ``mte_gm_l1_frac``: ``[src, dst, "nd2nz"|"dn2nz"]``, ``shape``, ``src_layout`` (1 or 2),
  ``dst_group`` (4), ``ctrl`` (2) tuples.
- ``mte_l1_l0a/b``: ``[src, dst, a, b]``, ``transpose=True``.
- ``mad*``: ``[lhs, rhs, dst(, bias), m, n, k]``, ``unit_flag`` / ``sat`` / ``tf32_mode``
  strs, ``disable_gemv`` / ``n_dir`` True.
- FIXPIPE: ``[src, dst, m, n, src_stride, dst_stride(, sid, l2cache)]``; ``dst_mode`` (ub:
  SSAValue or ``"split_m"``/``"split_n"``), ``unit_flag`` str, ``pre_quant=(payload, mode)``,
  ``pre_relu=(payload | None, mode, clip | None)``, ``layout="nz2nd" | ("nz2dn", v) |
  "nz2nz" | ("nz2nz", v)``, ``loop3=(c, s, d)``, ``sat="sat"|"preserve_nan"|"nosat"``,
  ``atomic=(type, op)``.

``mad_mx*`` and ``mte_l1_l0[ab]_mx`` parse as micro ops too; the Machine reports them as
not implemented.

Other ops and their accessors:

- `CastPtrOp`: ``.input`` (SSAValue), ``.result`` (its ``.type`` is the target type),
  ``cast_kind()`` -> ``"int_to_ptr" | "ptr_to_int" | "ptr_to_ptr"``. Integers are byte
  addresses in the pointer's space.
- `AddPtrOp`: ``.ptr``, ``.offset`` (elements; index or integer typed), ``.result``.
- `SectionCubeOp`, `SectionVectorOp`: ``.body`` (single-block region, ``.body.block.ops``).
- `GetBlockIdxOp`, `GetBlockNumOp`, `GetSubblockIdxOp`, `GetSubblockNumOp`: ``.result`` (i64).
- `SetFlagOp`, `WaitFlagOp`: ``src_pipe()``, ``dst_pipe()``, ``event()`` -> str.
- `BarrierOp`, `PipeBarrierOp`: ``pipe()`` -> str (e.g. ``"PIPE_ALL"``).
- `SyncSetOp`, `SyncWaitOp`: ``pipe()`` -> str, ``sync_id()`` -> int | SSAValue.
- `GetBufOp`, `RlsBufOp`: ``pipe()``, ``buf_id()``, ``mode()`` (int | SSAValue); `MemBarOp`:
  ``kind()``. Functional no-ops.
- `GetCtrlOp`: ``.result``; `SetCtrlOp`: ``.value``; `Sbitset0Op` / `Sbitset1Op`:
  ``.value``, ``.bit``, ``.result``, class constant ``BIT_VALUE`` (0 or 1).

Tile level
----------
Tile ops (`TILE_OPS`, all subclasses of `TileOp`, written ``ins(...) outs(%dst : T)``)
carry ``SPEC.method`` (the Machine method) and ``tile_call() -> (positional, keywords)`` in that
method's argument order; the SSAValues stand for Tiles (``!pto.tile_buf``), GlobalTensors
(``!pto.partition_tensor_view`` / ``!pto.tensor_view``) and ints (index)::

    pos, kw = op.tile_call()        # substitute Tile / GlobalTensor / int, then
    getattr(machine, op.SPEC.method)(*pos, **kw)

- `TLoadOp` ``pto.tload``: TLOAD(tile, view); `TStoreOp` ``pto.tstore``: TSTORE(view, tile);
  `TMovOp` ``pto.tmov``: TMOV(dst, src).
- `TMatmulOp` ``pto.tmatmul``: TMATMUL(acc, left, right); `TMatmulBiasOp`
  ``pto.tmatmul.bias``: TMATMUL_BIAS(acc, left, right, bias); `TMatmulAccOp`
  ``pto.tmatmul.acc ins(%c_in, %a, %b) outs(%c)``: TMATMUL_ACC(c, a, b) -- the call passes
  the destination; ``.acc_in`` is the input accumulator (often the same value as ``.dst``;
  when it is another tile, copy its valid region into dst first).
- `TMatmulMxOp` / `TMatmulMxAccOp` / `TMatmulMxBiasOp` (``pto.tmatmul.mx[.acc|.bias]``)
  and `TGemvMxOp` / `TGemvMxAccOp` / `TGemvMxBiasOp` (``pto.tgemv.mx[.acc|.bias]``):
  TMATMUL_MX[_ACC|_BIAS] / TGEMV_MX[_ACC|_BIAS](acc, left, lhs_scale, right, rhs_scale[,
  bias]); the scale operands are PTOAS's ``loc=scaling`` tiles (``.lhs_scale .rhs_scale``).
- `TExtractOp` ``pto.textract``: TEXTRACT(dst, src, row, col); `TInsertOp`
  ``pto.tinsert``: TINSERT(dst, src, row, col).
- `TFillPadOp` / `TFillPadExpandOp` / `TFillPadInplaceOp` (``pto.tfillpad``,
  ``_expand``, ``_inplace``): TFILLPAD(dst, src, mode=FILL_MODE); class constant ``FILL_MODE``
  is ``"plain" | "expand" | "inplace"``. The other tile ops pass no keywords.

Operands are also attributes by their ``.pto`` names: ``.src .dst .lhs .rhs .bias .acc_in
.row .col``; ``SLOTS`` lists (name, kind) in source order, ``CALL`` the Machine order.
The front end checks operand kinds and, for the matmuls, tile locs (left / right / acc /
bias), tload dst vec|mat and tstore src vec|mat|acc; everything else (shapes, layouts,
dtypes per target) is the Machine's to verify.

- `MakeTensorViewOp`: ``.ptr`` (GM pointer), ``shape_operands()``, ``stride_operands()``
  (elements), ``layout()`` -> ``"ND" | "DN" | "NZ" | None`` (``{layout = #pto.layout<..>}``),
  ``.result`` (``!pto.tensor_view``).
- `PartitionViewOp`: ``.source``, ``offset_operands()``, ``size_operands()``, ``.result``
  (``!pto.partition_tensor_view``).
- `AllocTileOp`: ``addr()`` (i64 byte address in the tile's buffer), ``valid_row()``,
  ``valid_col()`` -> SSAValue | None (present exactly when that valid dim is ``?``),
  ``.result``.
- `TileBufAddrOp`: ``.tile`` -> ``.result`` (pointer into the tile's buffer).
- `constant_int(value)`: the int of an ``arith.constant`` operand, else None.

Tile types (`TileBufType`, both ``.pto`` spellings, printed compact without defaults) and
views (`TensorViewType`, `PartitionTensorViewType`, rank 1..5, ``?`` dims)::

    tile_info(t) -> {"tile_type": "Vec"|"Mat"|"Left"|"Right"|"Acc"|"Bias"|"Scaling",
                     "dtype": "f32", "rows": R, "cols": C, "valid": (vr|None, vc|None),
                     "blayout": "RowMajor"|"ColMajor", "slayout": "NoneBox"|"RowMajor"|
                     "ColMajor", "fractal": 512|1024|32, "pad": "Null"|"Zero"|"Max"|"Min",
                     "compact": "Null"|"Normal"|"RowPlusOne", "loc": "vec", "space": "ub"}
    view_info(t) -> ([d0, ..., dn] with None for ?, dtype_name)

Types: `ptr_info(type) -> (dtype_name, space)` for ``!pto.ptr<T, space>`` and
``memref<?xT, #pto.address_space<X>>`` alike (canonical spaces gm l1 l0a l0b l0c ub bt
fb); `is_pointer_type(type)`. Module attributes (``pto.target_arch``, ``pto.kernel_kind``
as `KernelKindAttr` with ``.value.data``) are read from ``module.attributes``.
"""

from .attributes import (
                         SPACES,
                         AddressSpaceAttr,
                         F4E1M2x2Type,
                         F4E2M1x2Type,
                         Hif8Type,
                         Hif8x2Type,
                         KernelKindAttr,
                         PipeAttr,
                         PtrType,
                         is_pointer_type,
                         ptr_info,
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
                         SetFlagOp,
                         SyncSetOp,
                         SyncWaitOp,
                         WaitFlagOp,
)
from .text import load_context, location, op_location, parse_module, print_module
from .tile_ops import (
                         TILE_OPS,
                         AllocTileOp,
                         MakeTensorViewOp,
                         PartitionViewOp,
                         TExtractOp,
                         TFillPadExpandOp,
                         TFillPadInplaceOp,
                         TFillPadOp,
                         TGemvAccOp,
                         TGemvBiasOp,
                         TGemvMxAccOp,
                         TGemvMxBiasOp,
                         TGemvMxOp,
                         TGemvOp,
                         TileBufAddrOp,
                         TileOp,
                         TInsertOp,
                         TLoadOp,
                         TMatmulAccOp,
                         TMatmulBiasOp,
                         TMatmulMxAccOp,
                         TMatmulMxBiasOp,
                         TMatmulMxOp,
                         TMatmulOp,
                         TMovOp,
                         TStoreOp,
                         constant_int,
)
from .tile_types import (
                         LayoutAttr,
                         PartitionTensorViewType,
                         TensorViewType,
                         TileBufType,
                         is_tile_type,
                         is_view_type,
                         tile_info,
                         view_info,
)

__all__ = [
    "parse_module", "print_module", "load_context", "location", "op_location", "ptr_info",
    "is_pointer_type",
    "SPACES", "PTO", "MICRO_OPS", "MicroOp",
    "PtrType", "Hif8Type", "Hif8x2Type", "F4E2M1x2Type", "F4E1M2x2Type", "AddressSpaceAttr",
    "PipeAttr", "KernelKindAttr",
    "MteGmUbOp", "MteUbGmOp", "MteUbUbOp", "MteGmL1Op", "MteL1UbOp", "MteUbL1Op",
    "MteGmL1FracOp", "MteL1BtOp", "MteL1FbOp", "MteL1L0aOp", "MteL1L0bOp", "MteL1L0aMxOp",
    "MteL1L0bMxOp", "MadOp", "MadAccOp", "MadBiasOp", "MadMxOp", "MadMxAccOp", "MadMxBiasOp",
    "MteL0cGmOp", "MteL0cL1Op", "MteL0cUbOp",
    "CastPtrOp", "AddPtrOp", "SectionCubeOp", "SectionVectorOp", "GetBlockIdxOp",
    "GetBlockNumOp", "GetSubblockIdxOp", "GetSubblockNumOp", "SetFlagOp", "WaitFlagOp",
    "BarrierOp", "PipeBarrierOp", "SyncSetOp", "SyncWaitOp", "GetBufOp", "RlsBufOp",
    "MemBarOp", "GetCtrlOp", "SetCtrlOp", "Sbitset0Op", "Sbitset1Op",
    "TILE_OPS", "TileOp", "TileBufType", "TensorViewType", "PartitionTensorViewType",
    "LayoutAttr", "tile_info", "view_info", "is_tile_type", "is_view_type", "constant_int",
    "MakeTensorViewOp", "PartitionViewOp", "AllocTileOp", "TileBufAddrOp", "TLoadOp",
    "TStoreOp", "TMovOp", "TMatmulOp", "TMatmulAccOp", "TMatmulBiasOp", "TGemvOp",
    "TGemvAccOp", "TGemvBiasOp", "TMatmulMxOp", "TMatmulMxAccOp", "TMatmulMxBiasOp",
    "TGemvMxOp", "TGemvMxAccOp", "TGemvMxBiasOp", "TExtractOp",
    "TInsertOp", "TFillPadOp", "TFillPadExpandOp", "TFillPadInplaceOp",
]


def __getattr__(name: str) -> object:
    """``MICRO_OPS`` and ``PTO`` list every generated op class: built on first use."""
    if name in ("MICRO_OPS", "PTO"):
        from . import dialect
        return getattr(dialect, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
