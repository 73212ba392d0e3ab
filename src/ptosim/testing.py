"""A pytest plugin for kernel test suites: parse a kernel once, run it per case.

Installed with ptosim (entry point ``pytest11``), it gives every test the session-scoped
fixture ``pto_kernel``, a factory that returns the parsed `ptosim.kernel.Kernel` for a
file and entry, parsing each (file, entry) once per session::

    import numpy as np, pytest

    @pytest.mark.parametrize("m", [16, 40, 130])
    def test_matmul(pto_kernel, m):
        k = pto_kernel("kernels/matmul.pto")
        a = ...
        out = k.run({"a": a, ...}).outputs["c"]
        np.testing.assert_allclose(out, golden)
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture(scope="session")
def pto_kernel() -> Callable[..., Any]:
    """``pto_kernel(path, entry=None)`` -> the parsed kernel, cached for the session."""
    from .kernel import Kernel
    cache: dict[tuple[Path, str | None], Kernel] = {}

    def load(path: str | Path, entry: str | None = None) -> Kernel:
        key = (Path(path).resolve(), entry)
        if key not in cache:
            cache[key] = Kernel.from_file(str(key[0]), entry)
        return cache[key]
    return load
