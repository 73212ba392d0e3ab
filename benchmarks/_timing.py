"""Timing helper shared by the benchmark scripts."""

from __future__ import annotations

import timeit
from collections.abc import Callable


def paired_us(op: Callable[[], None], base: Callable[[], None], number: int,
              rounds: int = 9) -> tuple[float, float]:
    """Best times in microseconds of ``op`` and of the baseline ``base``, measured in
    alternation so that machine noise and clock drift hit both alike (the ratio is the
    figure that matters)."""
    op(), base()
    ours, theirs = [], []
    for _ in range(rounds):
        ours.append(timeit.timeit(op, number=number))
        theirs.append(timeit.timeit(base, number=number))
    return min(ours) / number * 1e6, min(theirs) / number * 1e6
