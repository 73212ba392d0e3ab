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


def render_trace(data: dict[str, Any], path: str) -> None:
    """Draw the trace to ``path`` (.png or .svg)."""
    require_matplotlib()
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    rows = lanes(data)
    index = {(p, t): i for i, (p, t, _) in enumerate(rows)}
    fig, ax = plt.subplots(figsize=(12, 0.5 * len(rows) + 1.5), dpi=100)
    for e in data["traceEvents"]:
        if e.get("ph") != "X" or (e["pid"], e["tid"]) not in index:
            continue
        y = index[(e["pid"], e["tid"])]
        ax.broken_barh([(e["ts"], max(e["dur"], 1e-6))], (y - 0.4, 0.8),
                       facecolors=PIPE_COLOURS.get(e.get("cat", ""), "#999999"),
                       edgecolor="white", linewidth=0.3)
    starts = {e["id"]: e for e in data["traceEvents"] if e.get("ph") == "s"}
    for e in data["traceEvents"]:
        if e.get("ph") != "f" or e["id"] not in starts:
            continue
        s = starts[e["id"]]
        if (s["pid"], s["tid"]) in index and (e["pid"], e["tid"]) in index:
            ax.annotate("", xy=(e["ts"], index[(e["pid"], e["tid"])]),
                        xytext=(s["ts"], index[(s["pid"], s["tid"])]),
                        arrowprops={"arrowstyle": "->", "color": "#333333", "lw": 0.6,
                                    "alpha": 0.6})
    ax.set_yticks(range(len(rows)), [name for _, _, name in rows])
    ax.set_ylim(len(rows) - 0.5, -0.5)
    ax.set_xlabel("time (us, ptosim cost model)")
    ax.grid(axis="x", alpha=0.3)
    ax.legend(handles=[Patch(color=c, label=p) for p, c in PIPE_COLOURS.items()],
              loc="upper center", bbox_to_anchor=(0.5, -0.18 - 0.6 / max(len(rows), 1)),
              ncol=len(PIPE_COLOURS), fontsize=8, frameon=False)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
