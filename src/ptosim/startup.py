"""The `ptosim` command's start-up: no cyclic garbage collection while it loads.

Importing numpy and ptosim and parsing a kernel allocate a few hundred thousand
long-lived objects and almost no garbage, yet CPython's collector runs about 150 times over
them: some 40 ms of a 0.4 s one-op `ptosim run` (`benchmarks/bench_startup.py`). So the
command pauses the collector from its first line (`pause`) until its kernel is parsed
(`resume`), then freezes what exists - modules, classes, the parsed IR, all kept for the
life of the process - so that later collections skip it, and turns collection back on
for the run itself. Reference counting frees memory as usual throughout; only cycles wait.
A process whose collector was already off (a caller's choice) is left as it was.
"""

from __future__ import annotations

import gc

_paused = False


def pause() -> None:
    """Turn the cyclic collector off until `resume`, if it is on."""
    global _paused
    if gc.isenabled():
        gc.disable()
        _paused = True


def resume() -> None:
    """End a `pause`: freeze the objects that exist now and turn the collector back on.
    Does nothing without a pause (and so is safe to call from every command)."""
    global _paused
    if _paused:
        _paused = False
        gc.freeze()
        gc.enable()
