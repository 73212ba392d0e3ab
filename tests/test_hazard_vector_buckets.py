"""The vector load/store hazard check keeps the accesses not yet behind a mem_bar in
256-byte buckets; it must report exactly what comparing every earlier access reports:
the same pairs, in the same order, with the same counts."""

from dataclasses import dataclass

import numpy as np

from ptosim.interp.hazards import HazardChecker


@dataclass(eq=False)
class FakeOp:
    name: str


def reference(events):
    """Every earlier access of the other kind in the same scope, in program order."""
    pending = {"R": [], "W": []}
    found: dict = {}
    for ev in events:
        if ev[0] == "bar":
            for kind in ev[1]:
                pending[kind] = []
            continue
        kind, b, start, end, op = ev
        for ob, lo, hi, old in pending["W" if kind == "R" else "R"]:
            if ob == b and lo < end and start < hi:
                key = ("RAW" if kind == "R" else "WAR", id(old), id(op))
                found[key] = found.get(key, 0) + 1
        pending[kind].append((b, start, end, op))
    return found


def test_buckets_report_what_a_full_scan_reports():
    rng = np.random.default_rng(7)
    bufs = [np.zeros(8192, np.uint8), np.zeros(8192, np.uint8)]
    pairs = 0
    for trial in range(40):
        checker = HazardChecker(lambda op: op.name, lambda buf: "ub")
        checker._stores_what_it_loaded = lambda store, load: False
        events = []
        for i in range(120):
            if rng.random() < 0.05:
                bar = [("W",), ("R",), ("W", "R")][rng.integers(3)]
                events.append(("bar", bar))
                continue
            kind = "R" if rng.random() < 0.5 else "W"
            start = int(rng.integers(0, 2048))
            size = int(rng.choice([1, 32, 256, 300, 1024]))
            events.append((kind, int(rng.integers(2)), start, start + size,
                           FakeOp(f"op{trial}.{i}")))
        for ev in events:
            if ev[0] == "bar":
                kind = {("W",): "VST_VLD", ("R",): "VLD_VST", ("W", "R"): "VV_ALL"}[ev[1]]
                checker.mem_bar(type("C", (), {"name": "core"})(), kind, None)
                continue
            kind, b, start, end, op = ev
            checker._vector_access(bufs[b], kind, start, end, op, "core")
        want = reference(events)
        got = {k: f.count for k, f in checker.findings.items()}
        assert list(got) == list(want)          # same pairs in the same order
        assert got == want                      # and the same counts
        pairs += len(want)
    assert pairs > 200                          # the trials did meet hazards
