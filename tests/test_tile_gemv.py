"""TGEMV / TGEMV_ACC / TGEMV_BIAS: the cube's GEMV mode (m = 1, a one-row Left read as a
contiguous row) against numpy's vector-matrix product, tiles filled through their own
layouts' element maps; the shape rules."""

from __future__ import annotations

import numpy as np
import pytest

import ptosim


def _put(m: ptosim.Machine, t: ptosim.Tile, x: np.ndarray) -> None:
    """x (t's logical rows x cols) placed at t's layout offsets."""
    full = np.zeros(t.rows * t.cols, t.dtype.np)
    full[ptosim.tile_layout(t.name, t.rows, t.cols, t.dtype.name, t.fractal).offsets()] = x
    m.write(t.ptr, full)


def _row0(m: ptosim.Machine, acc: ptosim.Tile, n: int) -> np.ndarray:
    flat = m.read(acc.ptr, acc.rows * acc.cols)
    offs = ptosim.tile_layout(acc.name, acc.rows, acc.cols, acc.dtype.name,
                              acc.fractal).offsets()
    return flat[offs[0, :n]]


def _operands(m: ptosim.Machine, k: int, n: int, seed: int, dt: str = "f16"):
    rng = np.random.default_rng(seed)
    np_t = {"f16": np.float16, "f32": np.float32, "i8": np.int8}[dt]
    a = rng.integers(-4, 5, k).astype(np_t)
    b = rng.integers(-4, 5, (k, n)).astype(np_t)
    c0 = 32 // np.dtype(np_t).itemsize
    kp, np_ = -(-k // c0) * c0, -(-n // 16) * 16
    left = m.tile("Left", dt, 1, kp, valid=(1, k))
    m.write(left.ptr, np.concatenate([a, np.zeros(kp - k, np_t)]))   # one contiguous row
    right = m.tile("Right", dt, max(kp, 16), np_, valid=(k, n))
    padded = np.zeros((right.rows, right.cols), np_t)
    padded[:k, :n] = b
    _put(m, right, padded)
    acc = m.tile("Acc", "i32" if dt == "i8" else "f32", 16, np_, valid=(1, n))
    return a, b, left, right, acc


@pytest.mark.parametrize("target, k, n", [("a5", 40, 24), ("a5", 300, 60), ("a2a3", 16, 48)])
def test_tgemv(target: str, k: int, n: int) -> None:
    m = ptosim.Machine(target=target)
    a, b, left, right, acc = _operands(m, k, n, seed=k)
    m.TGEMV(acc, left, right)
    want = a.astype(np.float64) @ b.astype(np.float64)          # small integers: exact
    np.testing.assert_array_equal(_row0(m, acc, n), want.astype(np.float32))


def test_tgemv_int8() -> None:
    m = ptosim.Machine(target="a5")
    a, b, left, right, acc = _operands(m, 64, 32, seed=3, dt="i8")
    m.TGEMV(acc, left, right)
    np.testing.assert_array_equal(_row0(m, acc, 32), a.astype(np.int64) @ b.astype(np.int64))


def test_tgemv_acc_and_bias() -> None:
    m = ptosim.Machine(target="a5")
    a, b, left, right, acc = _operands(m, 40, 24, seed=5)
    prod = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)
    m.TGEMV(acc, left, right)
    m.TGEMV_ACC(acc, left, right)
    np.testing.assert_array_equal(_row0(m, acc, 24), 2 * prod)
    bias = m.tile("Bias", "f32", 1, 32, valid=(1, 24))
    bv = np.arange(32, dtype=np.float32) - 10
    m.write(bias.ptr, bv)
    m.TGEMV_BIAS(acc, left, right, bias)
    np.testing.assert_array_equal(_row0(m, acc, 24), prod + bv[:24])


def test_rules() -> None:
    m = ptosim.Machine(target="a5")
    _, _, left, right, acc = _operands(m, 40, 24, seed=1)
    tall = m.tile("Left", "f16", 16, 48, valid=(1, 40))
    with pytest.raises(ptosim.VerifyError, match="TGEMV: GEMV multiplies a one-row left tile "
                                                 "with valid 1x40"):
        m.TGEMV(acc, tall, right)
    with pytest.raises(ptosim.VerifyError, match="TGEMV: mad writes one 16-row band of "
                                                 "align16\\(n\\) columns: acc must be 16x32"):
        m.TGEMV(m.tile("Acc", "f32", 32, 32), left, right)
    with pytest.raises(ptosim.SpaceError, match="right must be a Right tile"):
        m.TGEMV(acc, left, left)


MAT_A = "!pto.tile_buf<mat, 16x64xf16, blayout=col_major, slayout=row_major, valid=1x64>"
MAT_B = "!pto.tile_buf<mat, 64x32xf16, blayout=col_major, slayout=row_major>"
LEFT = "!pto.tile_buf<left, 1x64xf16, blayout=col_major, slayout=row_major>"
RIGHT = "!pto.tile_buf<right, 64x32xf16, slayout=col_major>"
ACC = ("!pto.tile_buf<acc, 16x32xf32, blayout=col_major, slayout=row_major, fractal=1024, "
       "valid=1x32>")
GEMV = f"""module attributes {{pto.target_arch = "a5"}} {{
  func.func @k(%a: !pto.ptr<f16>, %b: !pto.ptr<f16>, %c: !pto.ptr<f32>) attributes {{pto.aicore}} {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %av = pto.make_tensor_view %a, shape = [%c1, %c64], strides = [%c64, %c1] : !pto.tensor_view<1x64xf16>
    %ap = pto.partition_view %av, offsets = [%c0, %c0], sizes = [%c1, %c64] : !pto.tensor_view<1x64xf16>
    %bv = pto.make_tensor_view %b, shape = [%c64, %c32], strides = [%c32, %c1] : !pto.tensor_view<64x32xf16>
    %bp = pto.partition_view %bv, offsets = [%c0, %c0], sizes = [%c64, %c32] : !pto.tensor_view<64x32xf16>
    %cv = pto.make_tensor_view %c, shape = [%c1, %c32], strides = [%c32, %c1] : !pto.tensor_view<1x32xf32>
    %cp = pto.partition_view %cv, offsets = [%c0, %c0], sizes = [%c1, %c32] : !pto.tensor_view<1x32xf32>
    %ma = pto.alloc_tile : {MAT_A}
    %mb = pto.alloc_tile : {MAT_B}
    %l = pto.alloc_tile : {LEFT}
    %r = pto.alloc_tile : {RIGHT}
    %acc = pto.alloc_tile : {ACC}
    pto.tload ins(%ap : !pto.partition_tensor_view<1x64xf16>) outs(%ma : {MAT_A})
    pto.tload ins(%bp : !pto.partition_tensor_view<64x32xf16>) outs(%mb : {MAT_B})
    pto.set_flag["PIPE_MTE2", "PIPE_MTE1", "EVENT_ID0"]
    pto.wait_flag["PIPE_MTE2", "PIPE_MTE1", "EVENT_ID0"]
    pto.textract ins(%ma, %c0, %c0 : {MAT_A}, index, index) outs(%l : {LEFT})
    pto.tmov ins(%mb : {MAT_B}) outs(%r : {RIGHT})
    pto.set_flag["PIPE_MTE1", "PIPE_M", "EVENT_ID0"]
    pto.wait_flag["PIPE_MTE1", "PIPE_M", "EVENT_ID0"]
    {{body}}
    pto.set_flag["PIPE_M", "PIPE_FIX", "EVENT_ID0"]
    pto.wait_flag["PIPE_M", "PIPE_FIX", "EVENT_ID0"]
    pto.tstore ins(%acc : {ACC}) outs(%cp : !pto.partition_tensor_view<1x32xf32>)
    return
  }}
}}
"""


@pytest.mark.parametrize("body, factor", [
    (f"pto.tgemv ins(%l, %r : {LEFT}, {RIGHT}) outs(%acc : {ACC})", 1),
    (f"pto.tgemv ins(%l, %r : {LEFT}, {RIGHT}) outs(%acc : {ACC})\n    "
     f"pto.tgemv.acc ins(%acc, %l, %r : {ACC}, {LEFT}, {RIGHT}) outs(%acc : {ACC})", 2),
])
def test_pto_tgemv(body: str, factor: int) -> None:
    from ptosim.kernel import Kernel
    rng = np.random.default_rng(9)
    a = rng.integers(-4, 5, 64).astype(np.float16)
    b = rng.integers(-4, 5, (64, 32)).astype(np.float16)
    k = Kernel.from_text(GEMV.replace("{body}", body), "gemv.pto")
    res = k.run({"a": a, "b": b.ravel(), "c": np.zeros(32, np.float32)})
    assert res.findings == []
    want = factor * (a.astype(np.float64) @ b.astype(np.float64))
    np.testing.assert_array_equal(res.outputs["c"], want.astype(np.float32))


FP = "!pto.tile_buf<scaling, 1x32xui64>"
ACC_H = "!pto.partition_tensor_view<1x32xf16>"


def test_pto_tstore_fp_quantises_through_the_scaling_tile() -> None:
    """``pto.tstore_fp ins(%acc, %fp)``: the GEMV row quantised f32 -> f16 with the scaling
    tile's per-channel words; a fresh FB holds zeros, so every scale is 0 (the plain
    ``tstore`` of the same kernel writes the product, as test_pto_tgemv shows)."""
    from ptosim.kernel import Kernel
    text = GEMV.replace("{body}", f"pto.tgemv ins(%l, %r : {LEFT}, {RIGHT}) outs(%acc : {ACC})")
    text = text.replace("%c: !pto.ptr<f32>", "%c: !pto.ptr<f16>").replace(
        "!pto.tensor_view<1x32xf32>", "!pto.tensor_view<1x32xf16>").replace(
        "!pto.partition_tensor_view<1x32xf32>", ACC_H)
    text = text.replace(f"pto.tstore ins(%acc : {ACC}) outs(%cp : {ACC_H})",
                        f"%fp = pto.alloc_tile : {FP}\n    "
                        f"pto.tstore_fp ins(%acc, %fp : {ACC}, {FP}) outs(%cp : {ACC_H})")
    rng = np.random.default_rng(2)
    a = rng.integers(1, 5, 64).astype(np.float16)
    b = rng.integers(1, 5, (64, 32)).astype(np.float16)
    res = Kernel.from_text(text, "fp.pto").run(
        {"a": a, "b": b.ravel(), "c": np.full(32, 7, np.float16)})
    assert res.findings == []
    assert "c" in res.stored
    np.testing.assert_array_equal(res.outputs["c"], np.zeros(32, np.float16))
