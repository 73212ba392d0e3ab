"""The cube <-> vector tile pipes of a5 (pto-isa TPUSH / TPOP / TFREE, include/pto/npu/a5/
TPush.hpp) in PTOAS's frontend spelling: ``pto.reserve_buffer`` /
``pto.import_reserved_buffer`` (the consumer's slot buffer and its address on the peer),
``pto.aic_initialize_pipe`` / ``pto.aiv_initialize_pipe`` (the TPipe), and the producer /
consumer ops ``pto.tpush_to_aiv`` / ``pto.tpush_to_aic``, ``pto.tpop_from_aic`` /
``pto.tpop_from_aiv``, ``pto.tfree_from_aic`` / ``pto.tfree_from_aiv``. Front end:
`ptosim.frontend.pipe_ops`; semantics: `ptosim.interp.pipes`."""

from __future__ import annotations

from .spec import OpSpec

ROWS: tuple[OpSpec, ...] = (
    OpSpec("reserve_buffer", "sync", "S", "any"),
    OpSpec("import_reserved_buffer", "sync", "S", "any"),
    OpSpec("aic_initialize_pipe", "sync", "S", "cube"),
    OpSpec("aiv_initialize_pipe", "sync", "S", "vector"),
    # the data move's pipe (PTOAS TPushOp getPipe: Acc -> FIX, Vec -> MTE3)
    OpSpec("tpush_to_aiv", "sync", "FIX", "cube"),
    OpSpec("tpush_to_aic", "sync", "MTE3", "vector"),
    # a5 binds the popped tile to its slot: the scalar unit (PTOAS TPopOp getPipe, a5)
    OpSpec("tpop_from_aic", "sync", "S", "vector"),
    OpSpec("tpop_from_aiv", "sync", "S", "cube"),
    OpSpec("tfree_from_aic", "sync", "S", "vector"),
    OpSpec("tfree_from_aiv", "sync", "S", "cube"),
    # the handle form (PTOAS InitializeL2LPipeOp ...): a push's data move runs as the
    # frontend op of its direction does (its spec), so these pipes only name the issue
    OpSpec("initialize_l2l_pipe", "sync", "S", "any"),
    OpSpec("declare_tile", "sync", "S", "any"),
    OpSpec("tpush", "sync", "S", "any"),
    OpSpec("tpop", "sync", "S", "any"),
    OpSpec("tfree", "sync", "S", "any"),
)
