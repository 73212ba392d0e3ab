"""ptosim's own MLIR front end: the subset of xDSL 0.74's API that ptosim uses.

Import the submodules (``ptosim.mlir.ir``, ``.irdl``, ``.builtin``, ``.parser`` ...)
directly; importing this package imports none of them.
"""
