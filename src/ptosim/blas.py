"""How many threads numpy's BLAS may use while ptosim runs a kernel.

A kernel issues thousands of small matmuls (one per MAD). A multi-threaded BLAS wakes its
threads for each of them; when other processes compete for the cores, those threads spin
and wait on each other, and a run gets an order of magnitude slower (measured: the
1024^3 matmul example takes 8.8 s with OpenBLAS's default 2 threads next to two busy
processes, 1.2 s with one thread). So a run limits BLAS to ``DEFAULT_BLAS_THREADS`` threads
unless told otherwise, and restores the process's setting afterwards.
"""

from __future__ import annotations

import os
from contextlib import AbstractContextManager, nullcontext

from threadpoolctl import ThreadpoolController

from .errors import PtoValueError

DEFAULT_BLAS_THREADS = 1
ENV = "PTOSIM_BLAS_THREADS"     # overrides the default when a caller passes none


def resolve(threads: int | None) -> int:
    """The thread count a run uses: ``threads`` if given, else $PTOSIM_BLAS_THREADS, else
    the default. 0 leaves BLAS as the process configured it."""
    if threads is None:
        text = os.environ.get(ENV, "").strip()
        if not text:
            return DEFAULT_BLAS_THREADS
        try:
            threads = int(text)
        except ValueError:
            raise PtoValueError(f"${ENV} must be a whole number of threads, got {text!r}"
                                ) from None
    if type(threads) is not int or threads < 0:
        raise PtoValueError(f"BLAS threads must be a whole number >= 0 (0: BLAS's own "
                            f"setting), got {threads!r}")
    return threads


def blas_threads(threads: int | None = None) -> AbstractContextManager[object]:
    """Limit numpy's BLAS to ``threads`` threads inside the ``with`` block (see
    `resolve`); use it around your own loops of Machine calls::

        with ptosim.blas_threads(1):
            for ...: m.mad(...)
    """
    n = resolve(threads)
    return nullcontext() if n == 0 else limit(n)


def limit(n: int) -> AbstractContextManager[object]:
    """BLAS limited to ``n`` threads inside the ``with`` block (threadpoolctl)."""
    return _controller().limit(limits=n, user_api="blas")


_CONTROLLERS: list[ThreadpoolController] = []


def _controller() -> ThreadpoolController:
    """The process's thread-pool controller, found once: finding it scans the loaded
    libraries (/proc/self/maps), about 1 ms, which a sweep of small runs would pay per run.
    The BLAS numpy loaded at import does not change afterwards."""
    if not _CONTROLLERS:
        _CONTROLLERS.append(ThreadpoolController())
    return _CONTROLLERS[0]
