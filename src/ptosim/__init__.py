"""ptosim: a functional simulator and verifier for the PTO ISA of Ascend NPUs.

The names below are imported on first use (PEP 562), so ``import ptosim`` and the
command line pay only for what they touch: ``ptosim --help`` never builds the op registry.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .errors import (
    AlignmentError,
    DeadlockError,
    DtypeError,
    FieldRangeError,
    NotImplementedOpError,
    NotImplementedTextOpError,
    OutOfBoundsError,
    PtoError,
    PtoSyntaxError,
    PtoTypeError,
    PtoValueError,
    PtoWarning,
    SpaceError,
    StructureError,
    TargetError,
    UninitializedReadError,
    UnknownDtypeError,
    VerifyError,
)

if TYPE_CHECKING:
    from .api import Machine
    from .blas import blas_threads
    from .dtypes import DType, c0, dtype, hif8_to_float32, sizeof
    from .layout import Layout, gm_layout, tile_layout
    from .machine import Ptr
    from .targets import TARGETS, Target, get_target
    from .tile.img2col_config import Img2colConfig
    from .tile.prefetch_async import PrefetchAsyncContext

__version__ = "0.1.0"

# public name -> the module that defines it
_LAZY: dict[str, str] = {
    "Machine": "api", "blas_threads": "blas", "Ptr": "machine",
    "DType": "dtypes", "dtype": "dtypes", "sizeof": "dtypes", "c0": "dtypes",
    "hif8_to_float32": "dtypes",
    "Layout": "layout", "tile_layout": "layout", "gm_layout": "layout",
    "Target": "targets", "TARGETS": "targets", "get_target": "targets",
    "Img2colConfig": "tile.img2col_config",
    "PrefetchAsyncContext": "tile.prefetch_async",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'ptosim' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value         # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


__all__ = [
    "Machine", "blas_threads", "Ptr", "DType", "dtype", "sizeof", "c0", "hif8_to_float32",
    "Layout", "tile_layout", "gm_layout", "Target", "TARGETS", "get_target", "Img2colConfig",
    "PrefetchAsyncContext",
    "PtoError", "VerifyError", "SpaceError", "DtypeError", "FieldRangeError",
    "AlignmentError", "OutOfBoundsError", "TargetError", "UnknownDtypeError",
    "UninitializedReadError",
    "NotImplementedOpError", "NotImplementedTextOpError", "PtoWarning", "PtoTypeError",
    "PtoValueError", "StructureError",
    "PtoSyntaxError", "DeadlockError", "__version__",
]
