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


def cpp_figures(binary: str | None, runs: int = 3) -> dict[str, float]:
    """Best microseconds per op printed by a locally built C++ CPU-simulator benchmark
    (one ``<op label> <us>`` line per op; the binary is the user's, never part of ptosim),
    over ``runs`` runs; {} without a binary."""
    import subprocess

    best: dict[str, float] = {}
    if not binary:
        return best
    for _ in range(runs):
        text = subprocess.run([binary], capture_output=True, text=True, check=True).stdout
        for line in text.splitlines():
            label, _, value = line.rstrip().rpartition(" ")
            try:
                us = float(value)
            except ValueError:
                continue
            label = label.strip()
            best[label] = min(us, best.get(label, us))
    return best


def cpp_for(label: str, measured: dict[str, float], recorded: dict[str, float]
            ) -> tuple[float, str]:
    """The C++ figure for a benchmark row: measured in this run when the row's label starts
    with one of the binary's labels (the longest), else the recorded one. (us, source)."""
    keys = [k for k in measured if label == k or label.startswith(k + " ")]
    if keys:
        return measured[max(keys, key=len)], "run"
    return recorded[next(k for k in recorded if label == k or label.startswith(k + " "))], \
        "rec"
