"""`ptosim run --trace` (Chrome/Perfetto JSON) and `ptosim trace` (the picture)."""

import json
from pathlib import Path

import jsonschema
import numpy as np

from ptosim.cli import main
from ptosim.interp.timeline import COST_MODELS, STARTUP_NS

ROOT = Path(__file__).resolve().parent.parent
SPLIT = ROOT / "examples" / "cube_vector" / "kernel.pto"
SCHEMA = json.loads((Path(__file__).parent / "trace_event_schema.json").read_text())


def traced_split(tmp_path):
    args = []
    for name, arr in (("a", np.ones((40, 50), np.float16)), ("b", np.ones((50, 64), np.float16)),
                      ("c", np.zeros((40, 64), np.float32))):
        arr.tofile(tmp_path / f"{name}.bin")
        args += ["--arg", f"{name}={tmp_path / f'{name}.bin'}"]
    out = tmp_path / "trace.json"
    assert main(["run", str(SPLIT), *args, "--trace", str(out)]) == 0
    return json.loads(out.read_text())


def slices(trace, name):
    return [e for e in trace["traceEvents"] if e["ph"] == "X" and e["name"] == name]


def test_trace_is_valid_and_has_one_track_per_core_and_pipe(tmp_path):
    trace = traced_split(tmp_path)
    jsonschema.validate(trace, SCHEMA)
    meta = {e["pid"]: e["args"]["name"] for e in trace["traceEvents"]
            if e["ph"] == "M" and e["name"] == "process_name"}
    assert sorted(meta.values()) == ["block0.aic", "block0.aiv0", "block0.aiv1"]
    tracks = {(meta[e["pid"]], e["cat"]) for e in trace["traceEvents"] if e["ph"] == "X"}
    assert tracks == {("block0.aic", "PIPE_MTE2"), ("block0.aic", "PIPE_MTE1"),
                      ("block0.aic", "PIPE_M"), ("block0.aic", "PIPE_FIX"),
                      ("block0.aiv0", "PIPE_MTE3"), ("block0.aiv1", "PIPE_MTE3")}
    assert all("loc" in e["args"] and str(SPLIT) in e["args"]["loc"]
               for e in trace["traceEvents"] if e["ph"] == "X")


def test_schedule_follows_flags_semaphores_and_cost_model(tmp_path):
    trace = traced_split(tmp_path)
    end = lambda e: e["ts"] + e["dur"] - 1e-9     # microseconds; allow for float rounding  # noqa: E731
    loads = slices(trace, "pto.mte_gm_l1_frac")
    l0a = slices(trace, "pto.mte_l1_l0a")[0]
    mad = slices(trace, "pto.mad")[0]
    fix = slices(trace, "pto.mte_l0c_ub")[0]
    stores = slices(trace, "pto.mte_ub_gm")
    assert loads[1]["ts"] >= end(loads[0])                     # one pipe runs in order
    assert l0a["ts"] >= end(loads[1])                          # MTE2 -> MTE1 flag
    assert mad["ts"] >= end(slices(trace, "pto.mte_l1_l0b")[0])
    assert fix["ts"] >= end(mad)
    assert all(s["ts"] >= end(fix) for s in stores)            # cube -> vector semaphores
    flows = {e["id"]: e for e in trace["traceEvents"] if e["ph"] == "s"}
    for e in (e for e in trace["traceEvents"] if e["ph"] == "f"):
        assert e["ts"] >= flows[e["id"]]["ts"]
    assert sum(1 for e in trace["traceEvents"] if e["ph"] == "f") == 3 + 2 + 2   # flags, sems
    # the mad slice: 2*m*n*k FLOPs at the a5 f16 peak, plus the start-up cost
    want_ns = STARTUP_NS + 2 * 40 * 64 * 50 / COST_MODELS["a5"].peak["2"]
    assert abs(mad["dur"] * 1000 - want_ns) < 1e-6
    assert mad["args"]["flops"] == 2 * 40 * 64 * 50


def test_trace_picture(tmp_path, capsys):
    from matplotlib.image import imread

    from ptosim.timeline_plot import PIPE_COLOURS, lanes
    trace = traced_split(tmp_path)
    png = tmp_path / "timeline.png"
    (tmp_path / "t.json").write_text(json.dumps(trace))
    assert main(["trace", str(tmp_path / "t.json"), "-o", str(png)]) == 0
    img = imread(png)[..., :3]
    assert img.shape[0] > 200 and img.shape[1] >= 1000
    assert [name for _, _, name in lanes(trace)] == [
        "block0.aic PIPE_MTE2", "block0.aic PIPE_MTE1", "block0.aic PIPE_M", "block0.aic PIPE_FIX",
        "block0.aiv0 PIPE_MTE3", "block0.aiv1 PIPE_MTE3"]

    def has(colour):
        rgb = np.array([int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)])
        return np.count_nonzero(np.abs(img - rgb).max(axis=-1) < 0.02)
    bar_pixels = {pipe: has(c) for pipe, c in PIPE_COLOURS.items()}
    for pipe in ("PIPE_MTE2", "PIPE_MTE1", "PIPE_M", "PIPE_FIX", "PIPE_MTE3"):
        assert bar_pixels[pipe] > 500, pipe            # a bar, not only a legend swatch
    assert bar_pixels["PIPE_V"] < 500                  # legend only: no vector-pipe ops
    assert main(["trace", str(tmp_path / "missing.json"), "-o", str(png)]) == 2


def test_utilisation_is_printed_and_hazards_are_marked(tmp_path, capsys):
    text = "\n".join(line for line in SPLIT.read_text().splitlines()
                     if 'PIPE_MTE2", "PIPE_MTE1"' not in line)   # MTE2 -> MTE1 flags gone
    kernel = tmp_path / "racy.pto"
    kernel.write_text(text)
    args = []
    for name, arr in (("a", np.ones((40, 50), np.float16)), ("b", np.ones((50, 64), np.float16)),
                      ("c", np.zeros((40, 64), np.float32))):
        arr.tofile(tmp_path / f"{name}.bin")
        args += ["--arg", f"{name}={tmp_path / f'{name}.bin'}"]
    out = tmp_path / "trace.json"
    assert main(["run", str(kernel), *args, "--trace", str(out)]) == 0
    line = capsys.readouterr().out.splitlines()[-1]
    assert line.startswith("timeline: ") and " us; pipes busy: block0.aic MTE2 " in line
    shares = [int(part.rsplit(" ", 1)[1].rstrip("%")) for part in line.split(": ", 2)[2]
              .split(", ")]
    assert shares == sorted(shares, reverse=True) and 0 < shares[-1] <= shares[0] <= 100
    trace = json.loads(out.read_text())
    jsonschema.validate(trace, SCHEMA)
    marks = [e for e in trace["traceEvents"] if e.get("cat") == "hazard"]
    assert {e["name"] for e in marks} == {"RAW hazard"} and len(marks) == 2
    starts = {e["ts"] for e in slices(trace, "pto.mte_l1_l0a") + slices(trace, "pto.mte_l1_l0b")}
    assert {e["ts"] for e in marks} <= starts and all("loc" in e["args"] for e in marks)


def test_trace_picture_window_and_thinned_arrows(tmp_path, capsys):
    import ptosim.timeline_plot as plot
    trace = traced_split(tmp_path)
    (tmp_path / "t.json").write_text(json.dumps(trace))
    png = tmp_path / "w.png"
    flows = sum(1 for e in trace["traceEvents"] if e.get("ph") == "f")
    capsys.readouterr()
    assert main(["trace", str(tmp_path / "t.json"), "-o", str(png)]) == 0
    assert capsys.readouterr().out == f"wrote {png} ({flows} flag / semaphore arrow(s))\n"
    end = trace["otherData"]["end_us"]
    assert main(["trace", str(tmp_path / "t.json"), "-o", str(png), "--window",
                 f"{end * 2}:{end * 3}"]) == 0                  # after the run: none
    assert capsys.readouterr().out == f"wrote {png} (0 flag / semaphore arrow(s))\n"
    old = plot.MAX_ARROWS
    try:
        plot.MAX_ARROWS = 2
        assert plot.render_trace(trace, str(png)) == 2
    finally:
        plot.MAX_ARROWS = old
    for bad in ("5", "3:1", "a:b"):
        assert main(["trace", str(tmp_path / "t.json"), "-o", str(png), "--window", bad]) == 2
        assert "--window" in capsys.readouterr().err
