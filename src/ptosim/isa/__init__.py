"""The op registry: one `OpSpec` per PTO op, the single source of its metadata.

Everything that used to be a separate table keyed by op name — which pipe an op runs on,
which core kind issues it, on which targets it exists, whether ptosim implements it, the
Machine method behind it, the work its timeline cost is made of — is a field of its spec.
The interpreter, the hazard checker, the timeline, the static checker, the target profiles
and the Python face read these fields; `tests/test_registry.py` checks that every dialect op
has exactly one spec and every spec is reachable from `.pto` text and from Python.
"""

from .spec import Operand, OpSpec
from .table import BY_METHOD, BY_MNEMONIC, GENERATED, REGISTRY, planned_methods, spec, target_ops

__all__ = ["Operand", "OpSpec", "REGISTRY", "BY_METHOD", "BY_MNEMONIC", "GENERATED", "spec",
           "target_ops", "planned_methods"]
