"""Layout pictures: the tabulated grid against independent offset formulas, and the rendered
pictures (PNG pixels, SVG structure, terminal text) against what each cell must show."""

import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from ptosim.cli import main
from ptosim.errors import PtoError
from ptosim.layout import gm_nz_canonical, tile_layout
from ptosim.layout_plot import gm_grid, layout_grid, render_layout, render_terminal

SIZE = {"f16": 2, "f32": 4, "i8": 1, "f8E8M0FNU": 1}


def ref_offset(name, r, c, R, C, box):
    """Element offset of logical (r, c), written from the Layout Reference's pictures."""
    IR, IC = box or (1, 1)
    return {
        "ND": lambda: r * C + c,
        "DN": lambda: c * R + r,
        "NZ": lambda: (c // IC) * R * IC + r * IC + c % IC,
        "ZN": lambda: (r // IR) * C * IR + c * IR + r % IR,
        "ZZ": lambda: (r // IR) * C * IR + (c // IC) * IR * IC + (r % IR) * IC + c % IC,
        "NN": lambda: (c // IC) * R * IC + (r // IR) * IR * IC + (c % IC) * IR + r % IR,
    }[name]()


CASES = [  # name, rows, cols, dtype, fractal, tile type, box
    ("NZ", 32, 48, "f16", None, "Mat", (16, 16)),
    ("ZN", 32, 32, "f16", None, "Right", (16, 16)),
    ("ZZ", 32, 64, "f32", None, "Left", (16, 8)),
    ("NN", 32, 32, "i8", None, None, (32, 16)),
    ("NZ", 32, 32, "f32", None, "Acc", (16, 16)),             # Acc: 1024 B fractal
    ("NN", 32, 32, "f8E8M0FNU", 32, "ScaleLeft", (2, 16)),
    ("ND", 5, 7, "f32", None, "Vec", None),
    ("DN", 6, 9, "f16", None, None, None),
]


@pytest.mark.parametrize("name,R,C,dt,fractal,tile,box", CASES)
def test_grid_inverts_the_offset_map(name, R, C, dt, fractal, tile, box):
    g = layout_grid(name.lower(), R, C, dt, valid=(R - 1, C - 2), fractal=fractal,
                    tile_type=tile)
    c0 = 32 // SIZE[dt]
    assert g.box == box and g.size == -(-R * C // c0) * c0     # whole 32 B lines
    seen = np.zeros(R * C, bool)
    for r in range(R):
        for c in range(C):
            off = ref_offset(name, r, c, R, C, box)
            assert (g.row[off], g.col[off]) == (r, c)
            assert g.offsets[r, c] == off
            assert g.at(off).state == ("valid" if r < R - 1 and c < C - 2 else "padding")
            if box:      # fractals are contiguous, numbered in memory order
                assert g.block[off] == off // (box[0] * box[1])
                assert g.block[off] == g.block[ref_offset(name, r // box[0] * box[0],
                                                          c // box[1] * box[1], R, C, box)]
            seen[off] = True
    assert seen.all() and (g.state[:R * C] > 0).all()       # dense ...
    assert [g.at(o).state for o in range(R * C, g.size)] == ["unused"] * (g.size - R * C)
    assert (g.block == -1).all() == (box is None)
    assert np.array_equal(g.offsets, tile_layout(name, R, C, dt, g.fractal or 512).offsets())
    assert np.count_nonzero(g.state == 2) == (R - 1) * (C - 2)


def test_fractal_defaults_and_refusals():
    assert layout_grid("nz", 32, 32, "f32", tile_type="Acc").fractal == 1024
    assert layout_grid("nz", 32, 32, "f32", tile_type="Acc", fractal=512).box == (16, 8)
    assert layout_grid("nz", 32, 32, "f32", tile_type="Mat").box == (16, 8)
    for bad, match in [(lambda: layout_grid("nz", 30, 48, "f16"), "whole number of 16x16"),
                       (lambda: layout_grid("zn", 32, 40, "f32"), "whole number of 8x16"),
                       (lambda: layout_grid("xy", 16, 16, "f16"), "unknown tile layout"),
                       (lambda: layout_grid("nd", 16, 16, "f16", valid=(17, 4)), "fit"),
                       (lambda: layout_grid("nd", 16, 16, "f16", valid=(0, 4)), "at least"),
                       (lambda: layout_grid("nd", 16, 16, tile_type="Cube"), "TileType"),
                       (lambda: layout_grid("nd", 256, 256, "f16"), "pictures stop")]:
        with pytest.raises(PtoError, match=match):
            bad()


def test_gm_views():
    # packed default strides reproduce the dense tile layouts
    assert np.array_equal(gm_grid("ND", (1, 1, 2, 3, 8)).offsets,
                          tile_layout("ND", 6, 8, "f16").offsets())
    assert np.array_equal(gm_grid("DN", (1, 1, 1, 5, 6), dtype="f32").offsets,
                          tile_layout("DN", 5, 6, "f32").offsets())
    shape, stride = gm_nz_canonical(32, 48, "f16")
    nz = gm_grid("NZ", shape)
    assert nz.box == (16, 16) and tuple(nz.gm[1]) == stride
    assert np.array_equal(nz.offsets, tile_layout("NZ", 32, 48, "f16").offsets())
    # rows 10 wide at a stride of 16: lanes 10..15 of every second 32 B line are unused
    g = gm_grid("ND", (1, 1, 1, 3, 10), (30, 30, 30, 16, 1), "f32")
    assert g.size == 48 and g.at(17) == (17, 1, 1, "valid", -1)
    assert [o for o in range(g.size) if g.at(o).state == "unused"] == \
        [o for o in range(48) if o % 16 >= 10]
    with pytest.raises(PtoError, match="5 sizes"):
        gm_grid("ND", (3, 10))


# --- the picture ------------------------------------------------------------------------

R, C, VR, VC = 32, 48, 30, 40          # NZ f16 Mat tile: 6 fractals of 16 x 16


def cell_pixels(img, drawing, index, inset=0.25):
    x0, y0, x1, y1 = drawing.cell_box(index)
    dx, dy = (x1 - x0) * inset, (y1 - y0) * inset
    return img[int(round(y0 + dy)):int(round(y1 - dy)), int(round(x0 + dx)):int(round(x1 - dx))]


def test_png_shows_rows_padding_and_fractals(tmp_path):
    from matplotlib import colormaps
    from matplotlib.image import imread
    path = tmp_path / "nz.png"
    d = render_layout("nz", R, C, "f16", valid=(VR, VC), tile_type="Mat", path=str(path))
    img = imread(path)[..., :3]
    assert img.shape[:2] == (round(d.figure.get_figheight() * d.dpi),
                             round(d.figure.get_figwidth() * d.dpi))
    viridis = colormaps["viridis"]
    matched = 0
    for r in range(R):
        for c in range(C):
            px = cell_pixels(img, d, ref_offset("NZ", r, c, R, C, (16, 16))).reshape(-1, 3)
            neutral = np.ptp(px, axis=1).max() < 0.03          # every pixel grey or white
            if r >= VR or c >= VC:
                assert neutral, (r, c)                          # padding: grey ...
                assert px.min() < 0.75 < px.max() or px.min() > 0.9   # ... hatched (or noted)
            else:
                assert not neutral, (r, c)
                want = np.array(viridis(r / (R - 1))[:3])      # coloured by logical row
                matched += np.abs(np.median(px, axis=0) - want).max() < 0.06
    assert matched >= 0.97 * VR * VC      # the rest sit under a fractal's note

    def dark(y, x0, x1):                  # fraction of a pixel row (+-1) that is outline
        band = img[int(round(y)) - 1:int(round(y)) + 2, int(x0) + 2:int(x1) - 2]
        return np.mean(band.max(axis=2).min(axis=0) < 0.2)

    for panel in range(3):                # panel p holds column block p: lines = rows
        first = panel * R * 16            # element offset of the panel's first line
        x0, _, _, _ = d.cell_box(first)
        _, _, x1, _ = d.cell_box(first + 15)
        for line in range(1, R):
            y = d.cell_box(first + line * 16)[1]
            if line == 16:
                assert dark(y, x0, x1) > 0.95, (panel, line)   # fractal boundary
            else:
                assert dark(y, x0, x1) < 0.05, (panel, line)   # a plain 32 B line edge
        left = img[int(d.cell_box(first)[1]) + 2:int(d.cell_box(first + 31 * 16)[3]) - 2,
                   int(round(x0)) - 1:int(round(x0)) + 2]
        assert np.mean(left.max(axis=2).min(axis=1) < 0.2) > 0.95   # panel frame


def test_logical_png_outlines_fractal_boxes(tmp_path):
    from matplotlib.image import imread
    path = tmp_path / "nz_logical.png"
    d = render_layout("nz", R, C, "f16", valid=(VR, VC), view="logical", path=str(path))
    img = imread(path)[..., :3]
    top, bottom = d.cell_box((0, 0))[1], d.cell_box((R - 1, 0))[3]
    for c in range(1, C):
        x = int(round(d.cell_box((0, c))[0]))
        band = img[int(top) + 2:int(bottom) - 2, x - 1:x + 2]
        frac = np.mean(band.max(axis=2).min(axis=1) < 0.2)
        assert (frac > 0.95) if c % 16 == 0 else (frac < 0.05), c
    # colour follows the offset: (0, 16) is offset 512, far from (0, 15) at offset 15
    a = np.median(cell_pixels(img, d, (0, 15)).reshape(-1, 3), axis=0)
    b = np.median(cell_pixels(img, d, (0, 16)).reshape(-1, 3), axis=0)
    c = np.median(cell_pixels(img, d, (1, 0)).reshape(-1, 3), axis=0)
    assert np.abs(a - b).max() > 0.1 and np.abs(a - c).max() < 0.03


def svg_groups(text):
    root = ET.fromstring(text)
    ns = "{http://www.w3.org/2000/svg}"
    groups = {g.get("id"): g for g in root.iter(f"{ns}g") if g.get("id")}
    texts = ["".join(t.itertext()) for t in root.iter(f"{ns}text")]
    return groups, texts, ns


def test_svg_has_one_rectangle_per_cell(tmp_path):
    path = tmp_path / "nz.svg"
    render_layout("nz", R, C, "f16", valid=(VR, VC), path=str(path))
    groups, texts, ns = svg_groups(path.read_text())
    assert len(groups["cells-valid"].findall(f"{ns}path")) == VR * VC
    assert len(groups["cells-padding"].findall(f"{ns}path")) == R * C - VR * VC
    assert "cells-unused" not in groups
    assert any("NZ tile" in t and "valid 30x40" in t and "fractal 512 B" in t for t in texts)
    assert texts.count("rows 16-31") == 3 and texts.count("cols 32-47") == 2   # fractal notes


def test_small_svg_labels_every_cell(tmp_path):
    path = tmp_path / "zn.svg"
    render_layout("zn", 16, 16, "f16", valid=(10, 14), path=str(path))
    groups, texts, ns = svg_groups(path.read_text())
    labels = [t for t in texts if re.fullmatch(r"\d+,\d+", t)]
    assert sorted(labels) == sorted(f"{r},{c}" for r in range(16) for c in range(16))
    assert len(groups["cells-padding"].findall(f"{ns}path")) == 16 * 16 - 10 * 14


# --- the terminal -----------------------------------------------------------------------

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def test_terminal_grid():
    plain = render_terminal("nz", 32, 32, "f16", valid=(30, 20), color=False)
    lines = plain.splitlines()
    assert "\x1b" not in plain and "valid 30x20" in lines[0]
    assert lines.count("-- fractal 1: rows 16-31, cols 0-15 --") == 1
    body = {int(line.split("|")[0]): line.split("|")[1].split()
            for line in lines[3:] if not line.startswith("--")}
    assert len(body) == 64                                   # 2048 B in 32 B lines
    where = {ref_offset("NZ", r, c, 32, 32, (16, 16)): (r, c)
             for r in range(32) for c in range(32)}
    for byte, cells in body.items():
        for lane, text in enumerate(cells):
            r, c = where[byte // 2 + lane]
            assert text == (f"{r},{c}" if r < 30 and c < 20 else "·"), (byte, lane)
    coloured = render_terminal("nz", 32, 32, "f16", valid=(30, 20))
    assert ANSI.sub("", coloured) == plain
    assert "\x1b[33m  2,5\x1b[0m" in coloured                # row 2: third colour
    assert "\x1b[90m    ·\x1b[0m" in coloured                # padding in grey


def test_terminal_logical_view_marks_boxes():
    text = render_terminal("zz", 16, 16, "f32", view="logical", color=False)
    rows = text.splitlines()[3:]
    assert rows[0] == " 0 |   0   1   2   3   4   5   6   7 | 128 129 130 131 132 133 134 135"
    assert len(rows) == 16 and "|" in rows[0]


# --- the command line -------------------------------------------------------------------

def test_cli_layout(tmp_path, capsys):
    out = tmp_path / "nz.svg"
    assert main(["layout", "--tile", "Mat", "--dtype", "f16", "--shape", "32x48",
                 "--valid", "30x40", "--layout", "nz", "-o", str(out)]) == 0
    assert out.read_text().count("<path") > 32 * 48
    assert main(["layout", "--layout", "ZN", "--shape", "16x16", "--dtype", "f32",
                 "--tile", "Acc"]) == 0
    text = capsys.readouterr().out
    assert "fractal 1024 B = 16x16" in text and "-- fractal 0: rows 0-15, cols 0-15 --" in text
    assert "\x1b" not in text                                # not a terminal: plain
    assert main(["layout", "--gm", "nd", "--gm-shape", "1,1,1,3,10", "--gm-stride",
                 "30,30,30,16,1", "--dtype", "f32", "--color", "always"]) == 0
    text = capsys.readouterr().out
    assert "stride (30,30,30,16,1)" in text and "\x1b[" in text
    assert "2 | " in ANSI.sub("", text) and " 41" in ANSI.sub("", text)


@pytest.mark.parametrize("argv,message", [
    (["--layout", "xy", "--shape", "16x16"], "invalid choice"),
    (["--layout", "nz", "--shape", "30x48"], "not a whole number of 16x16 fractals"),
    (["--layout", "nz", "--shape", "32x48", "--valid", "33x40"], "fit the 32x48 tile"),
    (["--layout", "nz", "--shape", "32by48"], "--shape expects 2 integers"),
    (["--layout", "nz", "--shape", "32x48", "--dtype", "f17"], "unknown element type"),
    (["--layout", "nz"], "needs --layout and --shape"),
    (["--layout", "nd", "--shape", "4x4", "-o", "x.pdf"], ".png or .svg"),
    (["--gm", "ND", "--gm-shape", "1,1,30,40"], "--gm-shape expects 5 integers"),
    (["--gm", "ND", "--gm-shape", "1,1,1,3,4", "--layout", "nd"], "takes no --layout"),
    (["--tile", "Cube", "--layout", "nd", "--shape", "4x4"], "invalid choice"),
])
def test_cli_layout_bad_input_is_a_usage_error(argv, message, capsys):
    assert main(["layout", *argv]) == 2
    assert message in capsys.readouterr().err
