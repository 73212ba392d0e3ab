"""Tile-level `.pto` kernels: run by the interpreter, byte-identical to the Python API."""

from pathlib import Path

import numpy as np
import pytest

import ptosim
from ptosim.cli import main
from ptosim.kernel import Kernel

ROOT = Path(__file__).resolve().parent.parent
TILE_MM = ROOT / "examples" / "tile_matmul" / "kernel.pto"


def inputs():
    a = (np.arange(2000) % 23 - 11).astype(np.float16).reshape(40, 50)
    b = (np.arange(3000) % 7).astype(np.float16).reshape(50, 60)
    return a, b


def python_version(a, b):
    """The example kernel, op for op, through the Python face."""
    m = ptosim.Machine(target="a5")
    ga = m.global_tensor(m.gm(a), shape=(1, 1, 1, 40, 50), stride=(2000, 2000, 2000, 50, 1))
    gb = m.global_tensor(m.gm(b), shape=(1, 1, 1, 50, 60), stride=(3000, 3000, 3000, 60, 1))
    out = m.gm_empty(40 * 60, "f32")
    gc = m.global_tensor(out, shape=(1, 1, 1, 40, 60), stride=(2400, 2400, 2400, 60, 1))
    a_mat = m.tile("Mat", "f16", 48, 64, blayout="ColMajor", slayout="RowMajor", valid=(40, 50),
                   pad="Zero")
    b_mat = m.tile("Mat", "f16", 64, 64, blayout="ColMajor", slayout="RowMajor", valid=(50, 60),
                   pad="Zero")
    left = m.tile("Left", "f16", 48, 64, valid=(40, 50))
    right = m.tile("Right", "f16", 64, 64, valid=(50, 60))
    acc = m.tile("Acc", "f32", 48, 64, valid=(40, 60))
    m.TLOAD(a_mat, ga)
    m.TLOAD(b_mat, gb)
    m.TMOV(left, a_mat)
    m.TMOV(right, b_mat)
    m.TMATMUL(acc, left, right)
    m.TSTORE(gc, acc)
    return m, m.read(out, 2400).reshape(40, 60)


def test_python_and_pto_give_identical_bytes():
    a, b = inputs()
    py_machine, py_out = python_version(a, b)
    run = Kernel.from_file(TILE_MM).run({"a": a, "b": b, "c": np.zeros((40, 60), np.float32)})
    np.testing.assert_array_equal(run.outputs["c"], py_out)
    np.testing.assert_array_equal(py_out, a.astype(np.float32) @ b.astype(np.float32))
    for space in ("l1", "l0a", "l0b", "l0c"):
        np.testing.assert_array_equal(run.machine.blocks[0].cube[space],
                                      py_machine.blocks[0].cube[space], err_msg=space)
    assert run.findings == []


VEC = """module attributes {pto.target_arch = "a5", pto.kernel_kind = #pto.kernel_kind<vector>} {
  func.func @vec_pad(%src: !pto.ptr<f32, gm>, %dst: !pto.ptr<f32, gm>) attributes {pto.aicore} {
    %c1 = arith.constant 1 : index
    %c24 = arith.constant 24 : index
    %c30 = arith.constant 30 : index
    %c1_i64 = arith.constant 1 : i64
    %c3072_i64 = arith.constant 3072 : i64
    %in = pto.make_tensor_view %src, shape = [%c24, %c30], strides = [%c30, %c1]
      : !pto.tensor_view<24x30xf32>
    %t = pto.alloc_tile : !pto.tile_buf<vec, 24x32xf32, valid=24x30, pad=2>
    pto.tload ins(%in : !pto.tensor_view<24x30xf32>) outs(%t : !pto.tile_buf<vec, 24x32xf32, valid=24x30, pad=2>)
    pto.set_flag["PIPE_MTE2", "PIPE_MTE3", "EVENT_ID0"]
    pto.wait_flag["PIPE_MTE2", "PIPE_MTE3", "EVENT_ID0"]
    %p = pto.tile_buf_addr %t : !pto.tile_buf<vec, 24x32xf32, valid=24x30, pad=2> -> !pto.ptr<f32, ub>
    pto.mte_ub_gm %p, %dst, %c3072_i64 nburst(%c1_i64, %c3072_i64, %c3072_i64)
      : !pto.ptr<f32, ub>, !pto.ptr<f32, gm>, i64, i64, i64, i64
    return
  }
}
"""


def test_vec_tile_kernel_pads_like_the_dma():
    """pad=2 (Max): the valid 24 x 30 values, then FLT_MAX (PTOAS's pad Max for a `.pto`
    f32 tile; the Python API's "Max" is +inf) in lanes 30..31 of each row (the rest of the
    last 32 B block); the whole UB image is copied out by a micro-op."""
    src = np.arange(24 * 30, dtype=np.float32).reshape(24, 30)
    run = Kernel.from_text(VEC, "vec.pto").run({"src": src, "dst": np.zeros((24, 32), np.float32)})
    out = run.outputs["dst"]
    np.testing.assert_array_equal(out[:, :30], src)
    assert (out[:, 30:] == np.finfo(np.float32).max).all()
    assert run.findings == []


def test_tile_op_on_the_wrong_core():
    text = VEC.replace("#pto.kernel_kind<vector>", "#pto.kernel_kind<cube>")
    with pytest.raises(ptosim.PtoError, match=r"vec.pto:\d+:\d+: error: .*TLOAD on these tiles runs "
                                              r"on the vector cores \(AIV\)"):
        Kernel.from_text(text, "vec.pto").run({"src": np.zeros(720, np.float32),
                                               "dst": np.zeros(768, np.float32)})


def test_tile_kernel_through_the_cli(tmp_path, capsys):
    a, b = inputs()
    args = []
    for name, arr in (("a", a), ("b", b), ("c", np.zeros((40, 60), np.float32))):
        arr.tofile(tmp_path / f"{name}.bin")
        args += ["--arg", f"{name}={tmp_path / f'{name}.bin'}"]
    assert main(["run", str(TILE_MM), *args, "--hazards=error"]) == 0
    np.testing.assert_array_equal(np.fromfile(tmp_path / "c.bin", np.float32).reshape(40, 60),
                                  a.astype(np.float32) @ b.astype(np.float32))
    assert main(["check", str(TILE_MM)]) == 0


def test_hazards_between_tile_ops():
    a, b = inputs()
    text = TILE_MM.read_text().replace('    pto.set_flag["PIPE_MTE2", "PIPE_MTE1", "EVENT_ID0"]\n', "") \
        .replace('    pto.wait_flag["PIPE_MTE2", "PIPE_MTE1", "EVENT_ID0"]\n', "")
    found = Kernel.from_text(text, "mm.pto").run(
        {"a": a, "b": b, "c": np.zeros((40, 60), np.float32)}).findings
    assert {f.kind for f in found} == {"RAW"}
    assert any("pto.tmov (block0.aic PIPE_MTE1) reads what pto.tload (block0.aic PIPE_MTE2)"
               in f.message for f in found)


def test_check_verifies_tile_ops_statically(tmp_path, capsys):
    bad = tmp_path / "bad.pto"
    text = TILE_MM.read_text().replace("!pto.tile_buf<right, 64x64xf16, valid=50x60, slayout=col_major>",
                                       "!pto.tile_buf<right, 64x64xf16, valid=50x40, slayout=col_major>")
    bad.write_text(text)
    assert main(["check", str(bad)]) == 1
    err = capsys.readouterr().err
    line = next(i for i, t in enumerate(text.splitlines(), 1) if "pto.tmatmul ins" in t)
    assert f"{bad}:{line}:" in err and "TMATMUL" in err


def test_tstore_attributes_atomic_add_and_relu():
    """`{atomicType = #pto<atomic_type atomic_add>, reluPreMode = ...}` (PTOAS's spelling)
    run as TSTORE(..., atomic="add", pre_relu=normal_relu): c = c_old + max(A.B, 0)."""
    text = TILE_MM.read_text()
    store = text.index("pto.tstore")
    close = text.index(")\n", text.index("outs(", store)) + 1
    text = text[:close] + (" {atomicType = #pto<atomic_type atomic_add>, reluPreMode = "
                           "#pto<relu_pre_mode normal_relu>}") + text[close:]
    a, b = inputs()
    c = np.full((40, 60), 0.5, np.float32)
    run = Kernel.from_text(text, "atomic.pto").run({"a": a, "b": b, "c": c})
    want = 0.5 + np.maximum(a.astype(np.float32) @ b.astype(np.float32), 0)
    np.testing.assert_array_equal(run.outputs["c"], want)
    m, _ = python_version(a, b)                   # the Python face with the same keywords
    out = m.gm(c)
    m.TSTORE(m.global_tensor(out, shape=(1, 1, 1, 40, 60), stride=(0, 0, 0, 60, 1)),
             m.tile("Acc", "f32", 48, 64, valid=(40, 60), addr=0), atomic="add",
             pre_relu=(None, "normal_relu"))
    np.testing.assert_array_equal(m.read(out, 2400).reshape(40, 60), want)


def test_tile_op_pipes_follow_the_source_role():
    from ptosim.isa import BY_METHOD

    def tile_pipe(method, args):
        return BY_METHOD[method].pipe_of(args)
    m = ptosim.Machine(target="a5")
    acc, vec = m.tile("Acc", "f32", 16, 16), m.tile("Vec", "f32", 16, 16)
    mat = m.tile("Mat", "f16", 16, 16, blayout="ColMajor", slayout="RowMajor")
    left = m.tile("Left", "f16", 16, 16)
    g = m.global_tensor(m.gm_empty(256, "f32"), shape=(1, 1, 1, 16, 16), stride=(0, 0, 0, 16, 1))
    assert [tile_pipe("TEXTRACT", [vec, acc, 0, 0]), tile_pipe("TEXTRACT", [left, mat, 0, 0]),
            tile_pipe("TEXTRACT", [vec, vec, 0, 0]), tile_pipe("TMOV", [vec, acc]),
            tile_pipe("TINSERT", [mat, acc, 0, 0]), tile_pipe("TSTORE", [g, acc]),
            tile_pipe("TSTORE", [g, vec]), tile_pipe("TLOAD", [vec, g])] == \
        ["FIX", "MTE1", "V", "FIX", "FIX", "FIX", "MTE3", "MTE2"]


NARROW = """
module attributes {pto.target_arch = "a5", pto.kernel_kind = #pto.kernel_kind<vector>} {
  func.func @narrow(%x: !pto.ptr<f32>, %o: !pto.ptr<ui8>, %s: f32) attributes {pto.aicore} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %c256 = arith.constant 256 : index
    %xv = pto.make_tensor_view %x, shape = [%c1, %c1, %c1, %c16, %c16],
      strides = [%c256, %c256, %c256, %c16, %c1] : !pto.tensor_view<1x1x1x16x16xf32>
    %ov = pto.make_tensor_view %o, shape = [%c1, %c1, %c1, %c16, %c16],
      strides = [%c256, %c256, %c256, %c16, %c1] : !pto.tensor_view<1x1x1x16x16xui8>
    %xp = pto.partition_view %xv, offsets = [%c0, %c0, %c0, %c0, %c0],
      sizes = [%c1, %c1, %c1, %c16, %c16]
      : !pto.tensor_view<1x1x1x16x16xf32> -> !pto.partition_tensor_view<1x1x1x16x16xf32>
    %op = pto.partition_view %ov, offsets = [%c0, %c0, %c0, %c0, %c0],
      sizes = [%c1, %c1, %c1, %c16, %c16]
      : !pto.tensor_view<1x1x1x16x16xui8> -> !pto.partition_tensor_view<1x1x1x16x16xui8>
    %t = pto.alloc_tile : !pto.tile_buf<vec, 16x16xf32>
    %m = pto.alloc_tile : !pto.tile_buf<vec, 16x16xui8>
    pto.tload ins(%xp : !pto.partition_tensor_view<1x1x1x16x16xf32>)
              outs(%t : !pto.tile_buf<vec, 16x16xf32>)
    pto.set_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]
    pto.wait_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]
    pto.tcmps ins(%t, %s {cmpMode = #pto<cmp lt>} : !pto.tile_buf<vec, 16x16xf32>, f32)
              outs(%m : !pto.tile_buf<vec, 16x16xui8>)
    pto.set_flag["PIPE_V", "PIPE_MTE3", "EVENT_ID0"]
    pto.wait_flag["PIPE_V", "PIPE_MTE3", "EVENT_ID0"]
    pto.tstore ins(%m : !pto.tile_buf<vec, 16x16xui8>)
               outs(%op : !pto.partition_tensor_view<1x1x1x16x16xui8>)
    return
  }
}
"""


def test_pto_tiles_may_have_rows_of_any_whole_byte_count():
    """PTOAS's tile_buf verifier dropped pto-isa's 32-byte row rule (the Gym tcmps
    f32_256x16 case has a 256x16 ui8 mask tile); its TSTORE moves the dense rows as one
    run. The Python face keeps the C++ rule."""
    x = np.random.default_rng(2).uniform(-1, 1, (16, 16)).astype(np.float32)
    res = Kernel.from_text(NARROW).run({"x": x, "o": np.zeros(256, np.uint8), "s": 0.25})
    want = np.zeros(256, np.uint8)
    want[:32] = np.packbits((x < 0.25).ravel(), bitorder="little")   # the dense f32 layout
    np.testing.assert_array_equal(res.outputs["o"], want)
    m = ptosim.Machine(target="a5")
    with pytest.raises(ptosim.PtoError, match=r"an ND tile's row \(16 x 1 B\) must be a "
                                              r"multiple of 32 bytes"):
        m.tile("Vec", "ui8", 16, 16)
