"""`Machine`: the machine state with every implemented op family as methods."""

from __future__ import annotations

import inspect
from collections.abc import Callable

from .errors import NotImplementedOpError, PtoTypeError, api_guard
from .isa import GENERATED, OpSpec, planned_methods
from .isa.planned import planned_tile_methods
from .ops.legacy import LegacyOps
from .tile.acc_fp import textract_fp, tinsert_fp, tmov_fp, tstore_fp
from .tile.handle import tassign, tgetval, tsetval
from .tile.mgather import mgather
from .tile.mscatter import mscatter
from .tile.ops import TileOps
from .tile.pipe import tfree, tpipe, tpop, tpush
from .tile.prefetch import tprefetch
from .tile.prefetch_async import tprefetch_async
from .tile.quant_regs import set_quant_scalar, set_quant_vector
from .tile.shape import tget_scale_addr, treshape, tsubview
from .tile.sync import syncall, tsync
from .tile.vector import method as tile_vector_method

# PTO ops of the manual that ptosim does not implement yet (README support table).
PLANNED_OPS = planned_methods() | planned_tile_methods()


class Machine(TileOps, LegacyOps):
    """A simulated Ascend NPU: GM, one cube core and two vector sub-blocks per block.

    >>> import numpy as np, ptosim
    >>> m = ptosim.Machine(target="a5")
    >>> src = m.gm(np.arange(64, dtype=np.float32))
    >>> ub = m.ptr("ub", "f32", 0)
    >>> m.mte_gm_ub(src, ub, 0, 256, nburst=(1, 256, 256))
    >>> float(m.read(ub + 5, 1)[0])
    5.0
    """

    def __getattr__(self, name: str) -> object:
        if name in PLANNED_OPS:
            raise NotImplementedOpError(f"{name} is a PTO op that ptosim does not implement "
                                        f"yet (see the README's support table)", op=name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")


def _register_writer(spec: OpSpec) -> Callable[..., None]:
    """The Python face of a registry op that writes its operands into a register."""
    def write(self: Machine, *values: int) -> None:
        if len(values) != len(spec.operands):
            raise PtoTypeError(f"takes {len(spec.operands)} operands "
                               f"({', '.join(spec.operand_names)}), got {len(values)}",
                               op=spec.name)
        self._set_register(spec.name, spec.register or spec.name, values)
    write.__name__ = write.__qualname__ = spec.name
    write.__doc__ = f"``{spec.mnemonic}`` ({', '.join(spec.operand_names)}): sets {spec.register}."
    return write


def _from_impl(spec: OpSpec) -> Callable[..., object]:
    """The Python face of a row with semantics (``impl``): operands in assembly order."""
    impl = spec.impl
    assert impl is not None

    def call(self: Machine, *args: object, **kwargs: object) -> object:
        return impl(self, *args, **kwargs)
    call.__name__ = call.__qualname__ = spec.method or spec.name
    call.__doc__ = impl.__doc__
    sig = inspect.signature(impl)           # once: ~100 rows pay it at import
    call.__signature__ = sig.replace(  # type: ignore[attr-defined]
        parameters=list(sig.parameters.values())[1:])
    return call


for _spec in GENERATED:
    if _spec.register is not None:
        setattr(Machine, _spec.name, _register_writer(_spec))
    elif _spec.syntax in ("tile_dps", "tile_dps_n", "tile_ins"):  # vector tile ops
        setattr(Machine, _spec.method or _spec.name.upper(), tile_vector_method(_spec))
    elif _spec.impl is not None:
        setattr(Machine, _spec.method or _spec.name, _from_impl(_spec))
# the tile view ops (isa.tile_shape VIEW_ROWS) return the view they make
Machine.TRESHAPE = treshape  # type: ignore[attr-defined]
Machine.TSUBVIEW = tsubview  # type: ignore[attr-defined]
Machine.TGET_SCALE_ADDR = tget_scale_addr  # type: ignore[attr-defined]
# the Acc exits with vector pre-quantisation from a Scaling tile
Machine.TSTORE_FP = tstore_fp  # type: ignore[attr-defined]
Machine.TMOV_FP = tmov_fp  # type: ignore[attr-defined]
Machine.TEXTRACT_FP = textract_fp  # type: ignore[attr-defined]
Machine.TINSERT_FP = tinsert_fp  # type: ignore[attr-defined]
Machine.TPREFETCH = tprefetch  # type: ignore[attr-defined]
Machine.TPREFETCH_ASYNC = tprefetch_async  # type: ignore[attr-defined]
# the FIXPIPE quantisation registers (read by TSTORE / TMOV quant_reg=)
Machine.SET_QUANT_SCALAR = set_quant_scalar  # type: ignore[attr-defined]
Machine.SET_QUANT_VECTOR = set_quant_vector  # type: ignore[attr-defined]
Machine.TSYNC = tsync  # type: ignore[attr-defined]
Machine.SYNCALL = syncall  # type: ignore[attr-defined]
Machine.MGATHER = mgather  # type: ignore[attr-defined]
Machine.MSCATTER = mscatter  # type: ignore[attr-defined]
# a tile handle's address, and one element through the scalar unit
Machine.TASSIGN = tassign  # type: ignore[attr-defined]
Machine.TGETVAL = tgetval  # type: ignore[attr-defined]
Machine.TSETVAL = tsetval  # type: ignore[attr-defined]
# a5's cube <-> vector tile pipes: one core's TPipe, and the ops on it
Machine.TPipe = tpipe  # type: ignore[attr-defined]
Machine.TPUSH = tpush  # type: ignore[attr-defined]
Machine.TPOP = tpop  # type: ignore[attr-defined]
Machine.TFREE = tfree  # type: ignore[attr-defined]


def _guard_public_methods(cls: type) -> None:
    """Every public method (and the constructor) raises only PtoErrors: `api_guard`."""
    for name in ["__init__", *(n for n in dir(cls) if not n.startswith("_"))]:
        fn = inspect.getattr_static(cls, name, None)
        if inspect.isfunction(fn) and not getattr(fn, "__pto_guarded__", False):
            setattr(cls, name, api_guard("Machine" if name == "__init__" else name, fn))


_guard_public_methods(Machine)
