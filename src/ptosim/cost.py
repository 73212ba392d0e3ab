"""The timeline's cost model: a low-level table a target profile carries (``Target.cost``).

A simple, documented model (docs/semantics.md, "Timeline"), not a calibrated one: a data
move takes ``bytes / bandwidth(pipe)`` plus a fixed start-up cost, a MAD takes
``2*m*n*k / peak(dtype)``.
"""

from __future__ import annotations

from dataclasses import dataclass

STARTUP_NS = 20.0          # fixed cost of issuing one op on its pipe


@dataclass(frozen=True)
class CostModel:
    """Bandwidths in bytes per ns and cube peaks in FLOP per ns, per target."""

    bandwidth: dict[str, float]
    peak: dict[str, float]              # by lhs element size in bytes

    def duration(self, pipe: str, nbytes: int, flops: int, elem: int) -> float:
        if flops:
            return STARTUP_NS + flops / self.peak.get(str(elem), self.peak["2"])
        return STARTUP_NS + nbytes / self.bandwidth.get(pipe, 64.0)
