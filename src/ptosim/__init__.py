"""ptosim: a functional simulator and verifier for the PTO ISA of Ascend NPUs."""

from .api import Machine
from .blas import blas_threads
from .dtypes import DType, c0, dtype, hif8_to_float32, sizeof
from .errors import (
                     AlignmentError,
                     DeadlockError,
                     DtypeError,
                     FieldRangeError,
                     NotImplementedOpError,
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
from .layout import Layout, gm_layout, tile_layout
from .machine import Ptr
from .targets import TARGETS, Target, get_target

__version__ = "0.1.0"

__all__ = [
    "Machine", "blas_threads", "Ptr", "DType", "dtype", "sizeof", "c0", "hif8_to_float32",
    "Layout", "tile_layout", "gm_layout", "Target", "TARGETS", "get_target",
    "PtoError", "VerifyError", "SpaceError", "DtypeError", "FieldRangeError",
    "AlignmentError", "OutOfBoundsError", "TargetError", "UnknownDtypeError",
    "UninitializedReadError",
    "NotImplementedOpError", "PtoWarning", "PtoTypeError", "PtoValueError", "StructureError",
    "PtoSyntaxError", "DeadlockError", "__version__",
]
