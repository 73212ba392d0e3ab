"""Pictures are optional: matplotlib comes with ``pip install 'ptosim[plot]'``."""

from __future__ import annotations

from .errors import PtoError


class MissingDependencyError(PtoError, ImportError):
    """An optional dependency a feature needs is not installed."""


def require_matplotlib() -> None:
    """Raise a clear error (not an ImportError traceback) when matplotlib is missing."""
    try:
        import matplotlib
    except ImportError:
        raise MissingDependencyError("drawing pictures needs matplotlib; install it with "
                                     "pip install 'ptosim[plot]'") from None
    matplotlib.use("Agg")       # files only: never open a window
