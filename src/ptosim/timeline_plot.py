"""Render a Chrome/Perfetto trace written by ``ptosim run --trace`` as a picture.

One horizontal lane per core x pipe (the trace's process and thread names), each op a bar
coloured by its pipe, each flag or semaphore an arrow from its set to its wait.
"""

from __future__ import annotations

from typing import Any

from .plotting import require_matplotlib

PIPE_COLOURS = {"PIPE_MTE2": "#4C72B0", "PIPE_MTE1": "#55A868", "PIPE_M": "#C44E52",
                "PIPE_FIX": "#8172B2", "PIPE_V": "#CCB974", "PIPE_MTE3": "#64B5CD"}


def lanes(data: dict[str, Any]) -> list[tuple[int, int, str]]:
    """(pid, tid, "core PIPE") for every track that has an op slice, in display order."""
    procs = {e["pid"]: e["args"]["name"] for e in data["traceEvents"]
             if e.get("ph") == "M" and e.get("name") == "process_name"}
    threads = {(e["pid"], e["tid"]): e["args"]["name"] for e in data["traceEvents"]
               if e.get("ph") == "M" and e.get("name") == "thread_name"}
    used = sorted({(e["pid"], e["tid"]) for e in data["traceEvents"] if e.get("ph") == "X"})
    return [(p, t, f"{procs.get(p, p)} {threads.get((p, t), t)}") for p, t in used]


MAX_ARROWS = 300         # more flag / semaphore arrows than this are thinned evenly


def render_trace(data: dict[str, Any], path: str,
                 window: tuple[float, float] | None = None) -> int:
    """Draw the trace to ``path`` (.png or .svg), optionally only the time ``window``
    (microseconds); returns how many arrows were drawn. One bar artist per lane and one
    collection for all arrows, so a trace of a long kernel still draws quickly."""
    require_matplotlib()
    import matplotlib.pyplot as plt
    from matplotlib.collections import LineCollection
    from matplotlib.patches import Patch

    lo, hi = window if window is not None else (float("-inf"), float("inf"))
    rows = lanes(data)
    index = {(p, t): i for i, (p, t, _) in enumerate(rows)}
    bars: dict[int, tuple[list[tuple[float, float]], list[str]]] = {}
    for e in data["traceEvents"]:
        if e.get("ph") != "X" or (e["pid"], e["tid"]) not in index:
            continue
        if e["ts"] + e["dur"] < lo or e["ts"] > hi:
            continue
        spans, colours = bars.setdefault(index[(e["pid"], e["tid"])], ([], []))
        spans.append((e["ts"], max(e["dur"], 1e-6)))
        colours.append(PIPE_COLOURS.get(e.get("cat", ""), "#999999"))
    fig, ax = plt.subplots(figsize=(12, 0.5 * len(rows) + 1.5), dpi=100)
    for y, (spans, colours) in bars.items():
        ax.broken_barh(spans, (y - 0.4, 0.8), facecolors=colours, edgecolor="white",
                       linewidth=0.3)
    starts = {e["id"]: e for e in data["traceEvents"] if e.get("ph") == "s"}
    segments = []
    for e in data["traceEvents"]:
        s = starts.get(e["id"]) if e.get("ph") == "f" else None
        if s is None or (s["pid"], s["tid"]) not in index or (e["pid"], e["tid"]) not in index:
            continue
        if e["ts"] < lo or s["ts"] > hi:
            continue
        segments.append([(s["ts"], index[(s["pid"], s["tid"])]),
                         (e["ts"], index[(e["pid"], e["tid"])])])
    if len(segments) > MAX_ARROWS:
        step = len(segments) / MAX_ARROWS
        segments = [segments[int(i * step)] for i in range(MAX_ARROWS)]
    if segments:
        ax.add_collection(LineCollection(segments, colors="#333333", linewidths=0.6,
                                         alpha=0.5))
        ax.plot([seg[1][0] for seg in segments], [seg[1][1] for seg in segments], ">",
                color="#333333", markersize=3, alpha=0.6, linestyle="none")
    marks = [(e["ts"], index[(e["pid"], e["tid"])]) for e in data["traceEvents"]
             if e.get("cat") == "hazard" and (e["pid"], e["tid"]) in index and
             lo <= e["ts"] <= hi]
    if marks:
        ax.plot(*zip(*marks), "x", color="#D62728", markersize=8, markeredgewidth=2,
                linestyle="none", label="hazard")
    ax.set_yticks(range(len(rows)), [name for _, _, name in rows])
    ax.set_ylim(len(rows) - 0.5, -0.5)
    if window is not None:
        ax.set_xlim(*window)
    ax.set_xlabel("time (us, ptosim cost model)")
    ax.grid(axis="x", alpha=0.3)
    handles = [Patch(color=c, label=p) for p, c in PIPE_COLOURS.items()]
    ax.legend(handles=handles, loc="upper center",
              bbox_to_anchor=(0.5, -0.18 - 0.6 / max(len(rows), 1)),
              ncol=len(PIPE_COLOURS), fontsize=8, frameon=False)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return len(segments)
