"""TGEMV / TGEMV_ACC / TGEMV_BIAS: the cube's GEMV mode (m = 1, a one-row Left read as a
contiguous row) against numpy's vector-matrix product, tiles filled through their own
layouts' element maps; the shape rules."""

from __future__ import annotations

import ml_dtypes
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


# --- the pto-isa ST pipeline (RunTGEMV, both targets): a one-row ND Mat tile of
# align(K, 512 B) columns, TEXTRACT into a one-row Left tile (whole 512 B fractals, one
# plain row: a5's Left is NZ, a2a3's ZZ), B through an NZ Mat tile and TMOV
NP_OF = {"f16": np.float16, "f32": np.float32, "i8": np.int8, "bf16": ml_dtypes.bfloat16,
         "f8E4M3FN": ml_dtypes.float8_e4m3fn, "f8E5M2": ml_dtypes.float8_e5m2}


def _st_gemv(m: ptosim.Machine, a_t: str, b_t: str, k: int, n: int, seed: int):
    rng = np.random.default_rng(seed)
    a = rng.integers(-8, 9, k).astype(NP_OF[a_t])
    b = rng.integers(-8, 9, (k, n)).astype(NP_OF[b_t])
    size = np.dtype(NP_OF[a_t]).itemsize
    kl = -(-k // (512 // size)) * (512 // size)          # the ST's KLeft
    ma = m.tile("Mat", a_t, 1, kl, valid=(1, k))
    m.TLOAD(ma, m.global_tensor(m.gm(a), shape=(1, 1, 1, 1, k), stride=(k, k, k, k, 1)))
    left = m.tile("Left", a_t, 1, kl, valid=(1, k))
    m.TEXTRACT(left, ma, 0, 0)
    mb = m.tile("Mat", b_t, 64, 32, blayout="ColMajor", slayout="RowMajor", valid=(k, n))
    m.TLOAD(mb, m.global_tensor(m.gm(b), shape=(1, 1, 1, k, n), stride=(0, 0, 0, n, 1)))
    right = m.tile("Right", b_t, 64, 32, valid=(k, n))
    m.TMOV(right, mb)
    acc = m.tile("Acc", "i32" if a_t == "i8" else "f32", 16, 32, valid=(1, n))
    return a, b, left, right, acc


def _stored_row(m: ptosim.Machine, acc: ptosim.Tile, n: int) -> np.ndarray:
    out = m.gm_empty(n, acc.dtype.name)
    m.TSTORE(m.global_tensor(out, shape=(1, 1, 1, 1, n), stride=(n, n, n, n, 1)), acc)
    return m.read(out, n)


@pytest.mark.parametrize("target, a_t, b_t", [
    ("a5", "f16", "f16"), ("a5", "bf16", "bf16"), ("a5", "f32", "f32"), ("a5", "i8", "i8"),
    ("a5", "f8E4M3FN", "f8E5M2"), ("a5", "f8E5M2", "f8E5M2"),
    ("a2a3", "f16", "f16"), ("a2a3", "bf16", "bf16"), ("a2a3", "f32", "f32"),
    ("a2a3", "i8", "i8")])
def test_tgemv_st_pipeline(target: str, a_t: str, b_t: str) -> None:
    """Every (A, B) pair of the target's mad (a5 adds fp8; a2a3 has none), k = 50, n = 20
    inside 64 x 32 tiles; integer data, so the f32 / i32 sums are exact."""
    m = ptosim.Machine(target=target)
    a, b, left, right, acc = _st_gemv(m, a_t, b_t, 50, 20, seed=len(a_t))
    m.TGEMV(acc, left, right)
    want = np.einsum("k,kn->n", a.astype(np.int64), b.astype(np.int64))
    np.testing.assert_array_equal(_stored_row(m, acc, 20), want.astype(acc.dtype.np))


def test_one_row_extract_moves_whole_fractals() -> None:
    """TEXTRACT of a one-row Mat tile copies ceil(valid / F) whole 512 B fractals (F =
    512 / element size) from fractal c0 / F on: bytes past the valid columns come along."""
    for target in ("a5", "a2a3"):
        m = ptosim.Machine(target=target)
        ma = m.tile("Mat", "f16", 1, 768, addr=0)
        row = np.arange(768, dtype=np.float16)
        m.write(ma.ptr, row)
        left = m.tile("Left", "f16", 1, 512, valid=(1, 260), addr=0)
        m.TEXTRACT(left, ma, 0, 256)
        np.testing.assert_array_equal(m.read(left.ptr, 512), row[256:768])
        assert left.layout.offsets().tolist() == [list(range(512))]


def test_one_row_extract_rules() -> None:
    m = ptosim.Machine(target="a5")
    ma = m.tile("Mat", "f16", 1, 512)
    with pytest.raises(ptosim.VerifyError, match=r"TEXTRACT: the one-row \(GEMV\) extract moves "
                                                 r"512 B fractals: src cols \(512\), dst cols "
                                                 r"\(128\) and the column \(0\) must be "
                                                 r"multiples of 256"):
        m.TEXTRACT(m.tile("Left", "f16", 1, 128), ma, 0, 0)
    with pytest.raises(ptosim.VerifyError, match="TEXTRACT: the one-row .* the column "
                                                 r"\(16\) must be multiples of 256"):
        m.TEXTRACT(m.tile("Left", "f16", 1, 256), ma, 0, 16)
    with pytest.raises(ptosim.VerifyError, match="TEXTRACT: a one-row Mat tile extracts into a "
                                                 "one-row Left tile at row 0, got a 16-row"):
        m.TEXTRACT(m.tile("Left", "f16", 16, 256), ma, 0, 0)
    with pytest.raises(ptosim.VerifyError, match="TEXTRACT: a 1x512 window at column 256 "
                                                 "leaves the 1x512 source"):
        m.TEXTRACT(m.tile("Left", "f16", 1, 512), ma, 0, 256)


def test_tgemv_types_per_target() -> None:
    """a2a3's mad has no fp8 / hif8 forms; an i8 Left needs an i32 accumulator."""
    m = ptosim.Machine(target="a2a3")
    with pytest.raises(ptosim.TargetError, match="element type f8E4M3FN does not exist on "
                                                 "target a2a3"):
        m.tile("Left", "f8E4M3FN", 1, 512, valid=(1, 64))
    with pytest.raises(ptosim.DtypeError, match=r"TGEMV: type triple \(f16, bf16, f32\) is not "
                                                r"a mad form on target a2a3"):
        m.TGEMV(m.tile("Acc", "f32", 16, 32), m.tile("Left", "f16", 1, 64),
                m.tile("Right", "bf16", 64, 32))
    m5 = ptosim.Machine(target="a5")
    with pytest.raises(ptosim.DtypeError, match=r"TGEMV: type triple \(i8, i8, f32\) is not "
                                                r"a mad form on target a5 \(in its mad\)"):
        m5.TGEMV(m5.tile("Acc", "f32", 16, 32), m5.tile("Left", "i8", 1, 64),
                 m5.tile("Right", "i8", 64, 32))
