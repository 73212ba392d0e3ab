"""Pictures are optional: matplotlib comes with ``pip install 'ptosim[plot]'``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

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


def save_grid(fig: Any, ax: Any, path: str | Path) -> None:
    """Label a row / column picture's axes, write it as a PNG and free the figure."""
    import matplotlib.pyplot as plt

    ax.set_xlabel("column")
    ax.set_ylabel("row")
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    plt.close(fig)
