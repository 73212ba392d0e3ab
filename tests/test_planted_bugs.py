"""Issue 16's planted-bug scenarios: five small kernels, each with one bug, and the real
CLI leading from "the result is wrong" to the faulty op (--compare's trace back, --log,
--dump, --initcheck)."""

from pathlib import Path

import numpy as np
import pytest

from ptosim.cli import main

T = "!pto.tile_buf<vec, 16x16xf32>"
V = "!pto.tensor_view<16x16xf32>"


def kernel(a_strides: str = "[%c16, %c1]", c_strides: str = "[%c16, %c1]",
           y_addr: str = "", load_b: bool = True) -> str:
    """c = a + b on 16 x 16 f32 tiles; line numbers: tload a 13, tload b 14, tadd 17,
    tstore 20 (the tests name them; the wrong-stride kernel has one line more)."""
    load = (f"    pto.tload ins(%bv : {V}) outs(%y : {T})" if load_b
            else "    // (tload of b forgotten)")
    return f"""module attributes {{pto.target_arch = "a5", pto.kernel_kind = #pto.kernel_kind<vector>}} {{
  func.func @add(%a: !pto.ptr<f32, gm>, %b: !pto.ptr<f32, gm>, %c: !pto.ptr<f32, gm>) attributes {{pto.aicore}} {{
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %c0_i64 = arith.constant 0 : i64
    %av = pto.make_tensor_view %a, shape = [%c16, %c16], strides = {a_strides} : {V}
    %bv = pto.make_tensor_view %b, shape = [%c16, %c16], strides = [%c16, %c1] : {V}
    %cv = pto.make_tensor_view %c, shape = [%c16, %c16], strides = {c_strides} : {V}
    %x = pto.alloc_tile addr = %c0_i64 : {T}
    %y = pto.alloc_tile{y_addr} : {T}
    %z = pto.alloc_tile : {T}
    //
    pto.tload ins(%av : {V}) outs(%x : {T})
{load}
    pto.set_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]
    pto.wait_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]
    pto.tadd ins(%x, %y : {T}, {T}) outs(%z : {T})
    pto.set_flag["PIPE_V", "PIPE_MTE3", "EVENT_ID0"]
    pto.wait_flag["PIPE_V", "PIPE_MTE3", "EVENT_ID0"]
    pto.tstore ins(%z : {T}) outs(%cv : {V})
    return
  }}
}}
"""


A = np.arange(256, dtype=np.float32).reshape(16, 16)
B = (np.arange(256, dtype=np.float32).reshape(16, 16) * 1000)


def setup(tmp_path: Path, text: str, golden: np.ndarray) -> list[str]:
    (tmp_path / "k.pto").write_text(text)
    A.tofile(tmp_path / "a.bin")
    B.tofile(tmp_path / "b.bin")
    golden.astype(np.float32).tofile(tmp_path / "g.bin")
    return [str(tmp_path / "k.pto"), "--arg", f"a={tmp_path / 'a.bin'}",
            "--arg", f"b={tmp_path / 'b.bin'}", "--arg", f"c={tmp_path / 'c.bin'}"]


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["run", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def trace_back(out: str) -> list[str]:
    lines = out.splitlines()
    start = next(i for i, t in enumerate(lines) if "came from:" in t)
    return lines[start + 1:]


def test_the_correct_kernel_matches(tmp_path, capsys):
    argv = setup(tmp_path, kernel(), A + B)
    code, out, err = run([*argv, "--compare", "c=g.bin".replace("g.bin", str(tmp_path / "g.bin"))],
                         capsys)
    assert code == 0 and "compare c: all 256 elements (256) match" in out
    assert "warning" not in err


def test_a_tile_passed_twice_is_no_overlap(tmp_path, capsys):
    text = kernel().replace("pto.tadd ins(%x, %y", "pto.tadd ins(%x, %x")
    argv = setup(tmp_path, text, A + A)
    code, out, err = run([*argv, "--compare", f"c={tmp_path / 'g.bin'}"], capsys)
    assert code == 0 and "warning" not in err


def test_wrong_stride_leads_to_the_load_that_reads_too_little(tmp_path, capsys):
    # a's view steps 8 elements per row instead of 16: the load reads 8 x 15 + 16 elements
    argv = setup(tmp_path, kernel(a_strides="[%c8, %c1]").replace(
        "%c16 = arith.constant 16 : index", "%c16 = arith.constant 16 : index\n"
        "    %c8 = arith.constant 8 : index", 1), A + B)
    code, out, _ = run([*argv, "--compare", f"c={tmp_path / 'g.bin'}", "--shape", "c=16x16"],
                       capsys)
    assert code == 1
    assert "rows with a mismatch: 1-15" in out
    chain = trace_back(out)
    assert chain[0].startswith("  written by ") and " pto.tstore " in chain[0]
    load_a = next(t for t in chain if "GM %a" in t)
    # 136 f32 elements = 544 bytes, where b's correct load reads 1024
    assert ":14:5 pto.tload " in load_a and "GM %a (" in load_a and "[0, 544)" in load_a
    assert any("GM %b" in t and "[0, 1024)" in t for t in chain)


def test_missing_transpose_shows_in_the_dump_of_the_loaded_tile(tmp_path, capsys):
    # the golden wants a + b^T; b is loaded as stored (ND) where a DN view was needed
    argv = setup(tmp_path, kernel(), A + B.T)
    code, out, err = run([*argv, "--compare", f"c={tmp_path / 'g.bin'}", "--shape", "c=16x16",
                          "--dump", "ub@14", "--dump-dir", str(tmp_path)], capsys)
    assert code == 1
    chain = trace_back(out)
    assert any(":14:5 pto.tload " in t and "GM %b" in t for t in chain)
    # the tile the load of line 14 wrote (tadd's second operand) holds b, not b^T
    ub = np.load(tmp_path / "dump-ub-L14.npy").view(np.float32)
    y_start = int(next(t for t in chain if " pto.tadd " in t).split("ub [")[2].split(",")[0])
    np.testing.assert_array_equal(ub[y_start // 4:y_start // 4 + 256].reshape(16, 16), B)
    assert "dump-ub-L14.npy" in err


def test_wrong_layout_of_the_output_is_an_error_at_the_store(tmp_path, capsys):
    # c described column-major (strides [1, 16]) for an ND store: the run stops at the op
    argv = setup(tmp_path, kernel(c_strides="[%c1, %c16]"), A + B)
    log = tmp_path / "ops.log"
    code, _, err = run([*argv, "--compare", f"c={tmp_path / 'g.bin'}", "--log", str(log)],
                       capsys)
    assert code == 1
    assert "k.pto:20:5: error: TSTORE: an ND view's innermost stride t4 must be 1" in err
    assert any(":17:5 " in t and "pto.tadd" in t for t in log.read_text().splitlines())


def test_overlapping_operands_show_one_load_feeding_both(tmp_path, capsys):
    # y placed at byte 0, on top of x: b's load overwrites a's tile
    argv = setup(tmp_path, kernel(y_addr=" addr = %c0_i64"), A + B)
    code, out, err = run([*argv, "--compare", f"c={tmp_path / 'g.bin'}", "--shape",
                          "c=16x16"], capsys)
    assert code == 1
    # the run itself warns at the add, with a note at the second allocation
    assert "k.pto:17:5: warning: pto.tadd: source tiles %x and %y are different allocations " \
           "sharing ub bytes [0, 1024); loading one overwrites the other" in err
    assert "k.pto:10:5: note: %y is allocated here, over %x" in err
    # and earlier, at the load that overwrote %x's data before anything read it
    assert "k.pto:14:5: warning: pto.tload: %y is written over ub bytes [0, 1024) of %x" in err
    chain = trace_back(out)
    add = next(t for t in chain if " pto.tadd " in t)
    assert add.count("block0 aiv0 ub [0, 1024)") == 2       # both operands, same bytes
    sources = [t for t in chain if "<- from" in t and " pto.tload " in t]
    assert len(sources) == 1 and ":14:5 pto.tload " in sources[0]   # only b's load


def test_uninitialised_read_is_named_at_the_op(tmp_path, capsys):
    argv = setup(tmp_path, kernel(load_b=False), A + B)
    code, out, err = run([*argv, "--initcheck"], capsys)
    assert code == 1
    assert "initcheck: output c depends on on-chip bytes nothing wrote" in err
    line = next(t for t in err.splitlines() if t.startswith("initcheck: first op"))
    assert ":17:5 pto.tadd (block0.aiv0)" in line and "never written" in line


def test_a_tile_dump_shows_the_loaded_tile_as_numbers_and_a_picture(tmp_path, capsys):
    """--dump %y@14: the tile operand %y of line 14's tload, in logical order, as .npy
    (its element type) and .png: with the overlap bug, y holds b where a was expected."""
    argv = setup(tmp_path, kernel(y_addr=" addr = %c0_i64"), A + B)
    code, out, err = run([*argv, "--dump", "%y@14", "--dump", "%x@13", "--dump-dir",
                          str(tmp_path)], capsys)
    assert code == 0
    y = np.load(tmp_path / "dump-y-L14.npy")
    x = np.load(tmp_path / "dump-x-L13.npy")
    assert y.dtype == np.float32 and y.shape == (16, 16)
    np.testing.assert_array_equal(x, A)          # right after x's load
    np.testing.assert_array_equal(y, B)          # right after y's load, in x's bytes too
    assert (tmp_path / "dump-y-L14.png").stat().st_size > 1000
    assert "dump %y@14: the Vec tile's valid 16x16 f32 after run 1 of line 14" in err


def test_a_tile_dump_without_matplotlib_still_writes_the_numbers(tmp_path):
    import subprocess
    import sys
    argv = setup(tmp_path, kernel(), A + B)
    code = ("import sys; sys.modules['matplotlib'] = None; from ptosim.cli import main; "
            f"sys.exit(main(['run', *{argv!r}, '--dump', '%y@14', '--dump-dir', "
            f"{str(tmp_path)!r}]))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "(no picture: drawing pictures needs matplotlib" in done.stderr
    np.testing.assert_array_equal(np.load(tmp_path / "dump-y-L14.npy"), B)
    assert not (tmp_path / "dump-y-L14.png").exists()


# --- the same bug in L1: two TLOADs into overlapping Mat tiles feeding one TMATMUL --------
ROOT = Path(__file__).resolve().parents[1]
MAT_A = "pto.alloc_tile\n      : !pto.tile_buf<mat, 48x64xf16"
MAT_B = "pto.alloc_tile\n      : !pto.tile_buf<mat, 64x64xf16"


def l1_kernel(b_addr: int | None = 2048, reuse_after_read: bool = False) -> str:
    """examples/tile_matmul with %a_mat at L1 byte 0 and %b_mat at ``b_addr`` (%a_mat
    spans [0, 6144)). Lines: %b_mat's alloc 29, tload a 38, tload b 40, tmov a 44."""
    text = (ROOT / "examples/tile_matmul/kernel.pto").read_text()
    text = text.replace("    %c0 = arith.constant 0 : index",
                        "    %c0 = arith.constant 0 : index\n"
                        "    %z0 = arith.constant 0 : i64\n"
                        f"    %zb = arith.constant {b_addr or 0} : i64", 1)
    text = text.replace(f"%a_mat = {MAT_A}", "%a_mat = pto.alloc_tile addr = %z0\n"
                        "      : !pto.tile_buf<mat, 48x64xf16", 1)
    if b_addr is not None:
        text = text.replace(f"%b_mat = {MAT_B}", "%b_mat = pto.alloc_tile addr = %zb\n"
                            "      : !pto.tile_buf<mat, 64x64xf16", 1)
    if reuse_after_read:    # move a to Left before b's load: reusing read bytes is fine
        lines = text.splitlines()
        i = next(n for n, t in enumerate(lines) if "pto.tmov ins(%a_mat" in t)
        tmov_a = lines[i:i + 2]
        del lines[i:i + 2]
        j = next(n for n, t in enumerate(lines) if "pto.tload ins(%b_part" in t)
        lines[j:j] = ['    pto.set_flag["PIPE_MTE2", "PIPE_MTE1", "EVENT_ID1"]',
                      '    pto.wait_flag["PIPE_MTE2", "PIPE_MTE1", "EVENT_ID1"]', *tmov_a,
                      '    pto.set_flag["PIPE_MTE1", "PIPE_MTE2", "EVENT_ID1"]',
                      '    pto.wait_flag["PIPE_MTE1", "PIPE_MTE2", "EVENT_ID1"]']
        text = "\n".join(lines) + "\n"
    return text


def l1_setup(tmp_path: Path, text: str) -> list[str]:
    rng = np.random.default_rng(16)
    a = rng.integers(-4, 5, (40, 50)).astype(np.float16)
    b = rng.integers(-4, 5, (50, 60)).astype(np.float16)
    (tmp_path / "k.pto").write_text(text)
    a.tofile(tmp_path / "a.bin")
    b.tofile(tmp_path / "b.bin")
    (a.astype(np.float32) @ b.astype(np.float32)).tofile(tmp_path / "g.bin")
    return [str(tmp_path / "k.pto"), "--arg", f"a={tmp_path / 'a.bin'}",
            "--arg", f"b={tmp_path / 'b.bin'}", "--arg", f"c={tmp_path / 'c.bin'}"]


L1_WARNING = ("k.pto:40:5: warning: pto.tload: %b_mat is written over l1 bytes [2048, 6144) "
              "of %a_mat, a different allocation, which pto.tload at {}k.pto:38:5 wrote and "
              "nothing has read since")


def l1_warning(tmp_path: Path) -> str:
    return L1_WARNING.format(f"{tmp_path}/")


L1_NOTE = "k.pto:29:5: note: %b_mat is allocated here, over %a_mat"


def test_overlapping_l1_tiles_warn_at_the_load_that_overwrites(tmp_path, capsys):
    """No single op reads both Mat tiles (each goes to Left / Right by its own TMOV), so
    the run warns at the second TLOAD, which overwrites bytes of %a_mat nothing read."""
    argv = l1_setup(tmp_path, l1_kernel())
    code, out, err = run([*argv, "--compare", f"c={tmp_path / 'g.bin'}", "--shape",
                          "c=40x60"], capsys)
    assert code == 1 and "compare c: " in out          # the wrong numbers ...
    assert l1_warning(tmp_path) in err and L1_NOTE in err   # ... and the op that caused them
    lines = err.splitlines()
    at = next(i for i, t in enumerate(lines) if t.endswith(l1_warning(tmp_path)))
    assert lines[at + 1].strip().startswith("pto.tload ins(%b_part") and lines[at + 2] == "    ^"
    assert err.count("warning:") == 1


def test_the_l1_bug_without_overlap_or_with_reuse_after_read_is_clean(tmp_path, capsys):
    for text in (l1_kernel(b_addr=8192), l1_kernel(b_addr=None),
                 l1_kernel(reuse_after_read=True)):
        argv = l1_setup(tmp_path, text)
        code, out, err = run([*argv, "--compare", f"c={tmp_path / 'g.bin'}"], capsys)
        if "addr = %zb" in text and "2048" in text:     # reused after tmov read it: right
            assert code == 0, out
        assert "warning" not in err and "note:" not in err


def test_check_warns_about_overlapping_tiles_without_running(tmp_path, capsys):
    (tmp_path / "k.pto").write_text(l1_kernel())
    code = main(["check", str(tmp_path / "k.pto")])
    err = capsys.readouterr().err
    assert code == 0 and l1_warning(tmp_path) in err and L1_NOTE in err
    (tmp_path / "k.pto").write_text(kernel(y_addr=" addr = %c0_i64"))
    main(["check", str(tmp_path / "k.pto")])
    err = capsys.readouterr().err
    assert ("k.pto:14:5: warning: pto.tload: %y is written over ub bytes [0, 1024) of %x, a "
            f"different allocation, which pto.tload at {tmp_path}/k.pto:13:5 wrote") in err
    assert "k.pto:17:5: warning: pto.tadd: source tiles %x and %y" in err
    assert err.count("k.pto:10:5: note: %y is allocated here, over %x") == 2
    (tmp_path / "k.pto").write_text(l1_kernel(reuse_after_read=True))
    main(["check", str(tmp_path / "k.pto")])
    assert "warning" not in capsys.readouterr().err


def test_overlap_warning_and_note_as_expected_diagnostics(tmp_path, capsys):
    lines = l1_kernel().splitlines()
    lines[39] += "  // expected-warning {{is written over l1 bytes [2048, 6144) of %a_mat}}"
    lines[28] += "  // expected-note {{%b_mat is allocated here, over %a_mat}}"
    (tmp_path / "k.pto").write_text("\n".join(lines) + "\n")
    code = main(["check", str(tmp_path / "k.pto"), "--verify-diagnostics"])
    assert code == 0, capsys.readouterr().err
    lines[28] = lines[28].split("  // expected-note")[0]     # the note is a diagnostic too
    (tmp_path / "k.pto").write_text("\n".join(lines) + "\n")
    assert main(["check", str(tmp_path / "k.pto"), "--verify-diagnostics"]) == 1
    assert "note: %b_mat is allocated here" in capsys.readouterr().err


def _red_pixels(png: Path) -> int:
    import matplotlib.image as mpimg
    rgb = mpimg.imread(png)[..., :3]
    return int(((rgb[..., 0] > 0.9) & (rgb[..., 1] < 0.1) & (rgb[..., 2] < 0.1)).sum())


def test_a_tile_dump_picture_draws_the_whole_tile_with_the_valid_region_outlined(tmp_path,
                                                                                capsys):
    """%a_mat is a 48 x 64 Mat tile (NZ) whose valid region is 40 x 50: the .npy holds the
    valid region in logical order, the picture the whole tile with that region outlined."""
    argv = l1_setup(tmp_path, l1_kernel(b_addr=None))
    code, _, err = run([*argv, "--dump", "%a_mat@38", "--dump-dir", str(tmp_path)], capsys)
    assert code == 0
    a = np.fromfile(tmp_path / "a.bin", np.float16).reshape(40, 50)
    np.testing.assert_array_equal(np.load(tmp_path / "dump-a_mat-L38.npy"), a)
    assert "valid 40x50 f16 after run 1 of line 38" in err
    assert _red_pixels(tmp_path / "dump-a_mat-L38.png") > 100
    # a tile whose valid region is the whole tile gets no outline
    argv = setup(tmp_path, kernel(), A + B)
    assert run([*argv, "--dump", "%y@14", "--dump-dir", str(tmp_path)], capsys)[0] == 0
    assert _red_pixels(tmp_path / "dump-y-L14.png") == 0


def test_tile_picture_outlines_the_valid_region_and_marks_special_values(tmp_path):
    from types import SimpleNamespace

    from ptosim.interp.dump import tile_picture
    t = SimpleNamespace(valid=(3, 5), rows=4, cols=8, tile_type="Vec",
                        dtype=np.dtype(np.float32))
    x = np.arange(32, dtype=np.float32).reshape(4, 8)
    x[0, 0], x[1, 1], x[2, 2] = np.nan, np.inf, -np.inf
    assert tile_picture(x, t, "t", tmp_path / "p.png") is True
    assert _red_pixels(tmp_path / "p.png") > 50
    assert tile_picture(x[:3, :5], t, "t", tmp_path / "q.png") is False   # valid region only
    assert _red_pixels(tmp_path / "q.png") == 0


def test_compare_picture_shows_where_the_mismatches_of_the_wrong_stride_fall(tmp_path, capsys):
    argv = setup(tmp_path, kernel(a_strides="[%c8, %c1]").replace(
        "%c16 = arith.constant 16 : index", "%c16 = arith.constant 16 : index\n"
        "    %c8 = arith.constant 8 : index", 1), A + B)
    code, out, _ = run([*argv, "--compare", f"c={tmp_path / 'g.bin'}", "--shape", "c=16x16",
                        "--compare-picture", str(tmp_path)], capsys)
    assert code == 1
    png = tmp_path / "compare-c.png"
    assert f"  picture of the mismatches (16x16): {png}" in out.splitlines()
    import matplotlib.image as mpimg
    rgb = mpimg.imread(png)[..., :3]
    grey = np.isclose(rgb, 0xDD / 255, atol=0.02).all(axis=-1)
    assert grey.sum() > 100         # row 0 matches ...
    assert (~grey & (rgb.std(axis=-1) > 0.1)).sum() > 1000      # ... rows 1-15 do not


def test_mismatch_picture_grids_and_special_errors(tmp_path):
    from ptosim.compare import PICTURE_WIDTH, mismatch_picture
    got = np.arange(100, dtype=np.float32)
    want = got.copy()
    want[[3, 70]] = [4.0, np.nan]            # one finite error, one NaN against a number
    assert mismatch_picture("x", got, want, tmp_path / "a.png") == (2, PICTURE_WIDTH)
    assert mismatch_picture("x", got, want, tmp_path / "b.png", shape=(10, 10)) == (10, 10)
    assert mismatch_picture("x", got, want, tmp_path / "c.png", shape=(2, 5, 10)) == \
        (2, PICTURE_WIDTH)
    import matplotlib.image as mpimg
    rgb = mpimg.imread(tmp_path / "b.png")[..., :3]
    assert (rgb.sum(axis=-1) < 0.05).sum() > 20       # the NaN error's cell is black


def test_compare_picture_usage_errors_and_no_matplotlib(tmp_path, capsys):
    import subprocess
    import sys
    argv = setup(tmp_path, kernel(), A + A)      # golden a + a: c differs
    assert main(["run", *argv, "--compare-picture", str(tmp_path)]) == 2
    assert "give --compare NAME=GOLDEN.bin too" in capsys.readouterr().err
    assert main(["run", *argv, "--compare", f"c={tmp_path / 'g.bin'}", "--compare-picture",
                 str(tmp_path / "nowhere")]) == 2
    assert "is not a directory" in capsys.readouterr().err
    code = ("import sys; sys.modules['matplotlib'] = None; from ptosim.cli import main; "
            f"sys.exit(main(['run', *{argv!r}, '--compare', 'c={tmp_path / 'g.bin'}', "
            f"'--compare-picture', {str(tmp_path)!r}]))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 1, done.stderr
    assert "(no picture of the mismatches: drawing pictures needs matplotlib" in done.stdout
    assert not (tmp_path / "compare-c.png").exists()


def test_compare_picture_has_help_text():
    import subprocess
    import sys
    done = subprocess.run([sys.executable, "-m", "ptosim", "run", "--help"],
                          capture_output=True, text=True)
    assert "--compare-picture DIR" in done.stdout and "compare-NAME.png" in done.stdout
