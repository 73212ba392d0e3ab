"""`.pto` MX tile ops in PTOAS's spelling: ``pto.tmatmul.mx[.acc|.bias]`` and
``pto.tgemv.mx[.acc|.bias]`` with ``loc=scaling`` scale operands. a5's TMATMUL_MX / TGEMV_MX
never read those tiles: the cube takes its scales from the MX buffers at the data tiles'
addresses >> 4. The kernels here put the scale images there with PTOAS's micro-op
``pto.mte_l1_l0a_mx`` / ``pto.mte_l1_l0b_mx`` (pointers from ``pto.tile_buf_addr``), as a
VPTO kernel does, and the golden is a group-by-group float64 sum."""

from __future__ import annotations

import numpy as np
import pytest
from ml_dtypes import float8_e4m3fn

import ptosim
from ptosim.kernel import Kernel

F8 = "f8E4M3FN"
M, K, N = 16, 64, 32
G = K // 32

MAT_A = f"!pto.tile_buf<mat, {M}x{K}x{F8}, blayout=col_major, slayout=row_major>"
MAT_B = f"!pto.tile_buf<mat, {K}x{N}x{F8}, blayout=col_major, slayout=row_major>"
MAT_SA = f"!pto.tile_buf<mat, 1x{16 * G}x{F8}>"
MAT_SB = f"!pto.tile_buf<mat, 1x{G * N}x{F8}>"
LEFT = f"!pto.tile_buf<left, {M}x{K}x{F8}, blayout=col_major, slayout=row_major>"
RIGHT = f"!pto.tile_buf<right, {K}x{N}x{F8}, slayout=col_major>"
ACC = "!pto.tile_buf<acc, 16x32xf32, blayout=col_major, slayout=row_major, fractal=1024>"
BIAS = "!pto.tile_buf<bias, 1x32xf32>"
A_SCALE = "!pto.tile_buf<scaling, 1x32xf16>"        # placeholders: never read on a5
B_SCALE = "!pto.tile_buf<scaling, 1x32xf16>"


def _view(name: str, rows: int, cols: int, dt: str) -> str:
    return (f"%{name}v = pto.make_tensor_view %{name}, shape = [%c{rows}, %c{cols}], strides = "
            f"[%c{cols}, %c1] : !pto.tensor_view<{rows}x{cols}x{dt}>\n    "
            f"%{name}p = pto.partition_view %{name}v, offsets = [%c0, %c0], sizes = [%c{rows}, "
            f"%c{cols}] : !pto.tensor_view<{rows}x{cols}x{dt}>\n    ")


def kernel(body: str, extra: str = "", rows: int = M) -> str:
    """``rows``: the rows of A and C that move (1 for GEMV)."""
    consts = "".join(f"    %c{v} = arith.constant {v} : index\n"
                     for v in sorted({0, 1, 16, 32, 64, 16 * G, G * N, M, K, N}))
    return f"""module attributes {{pto.target_arch = "a5"}} {{
  func.func @k(%a: !pto.ptr<{F8}>, %b: !pto.ptr<{F8}>, %sa: !pto.ptr<{F8}>,
               %sb: !pto.ptr<{F8}>, %bias: !pto.ptr<f32>, %c: !pto.ptr<f32>) attributes {{pto.aicore}} {{
{consts}    %i16 = arith.constant {M} : i64
    %i64 = arith.constant {K} : i64
    %i32 = arith.constant {N} : i64
    {_view("a", rows, K, F8)}{_view("b", K, N, F8)}{_view("sa", 1, 16 * G, F8)}{_view("sb", 1, G * N, F8)}{_view("bias", 1, N, "f32")}{_view("c", rows, N, "f32")}%ma = pto.alloc_tile : {MAT_A}
    %mb = pto.alloc_tile : {MAT_B}
    %msa = pto.alloc_tile : {MAT_SA}
    %msb = pto.alloc_tile : {MAT_SB}
    %mbias = pto.alloc_tile : !pto.tile_buf<mat, 1x{N}xf32>
    %l = pto.alloc_tile : {LEFT}
    %r = pto.alloc_tile : {RIGHT}
    %acc = pto.alloc_tile : {ACC}
    %bt = pto.alloc_tile : {BIAS}
    %as = pto.alloc_tile : {A_SCALE}
    %bs = pto.alloc_tile : {B_SCALE}
    pto.tload ins(%ap : !pto.partition_tensor_view<{rows}x{K}x{F8}>) outs(%ma : {MAT_A})
    pto.tload ins(%bp : !pto.partition_tensor_view<{K}x{N}x{F8}>) outs(%mb : {MAT_B})
    pto.tload ins(%sap : !pto.partition_tensor_view<1x{16 * G}x{F8}>) outs(%msa : {MAT_SA})
    pto.tload ins(%sbp : !pto.partition_tensor_view<1x{G * N}x{F8}>) outs(%msb : {MAT_SB})
    pto.tload ins(%biasp : !pto.partition_tensor_view<1x{N}xf32>) outs(%mbias : !pto.tile_buf<mat, 1x{N}xf32>)
    pto.set_flag["PIPE_MTE2", "PIPE_MTE1", "EVENT_ID0"]
    pto.wait_flag["PIPE_MTE2", "PIPE_MTE1", "EVENT_ID0"]
    pto.tmov ins(%ma : {MAT_A}) outs(%l : {LEFT})
    pto.tmov ins(%mb : {MAT_B}) outs(%r : {RIGHT})
    pto.tmov ins(%mbias : !pto.tile_buf<mat, 1x{N}xf32>) outs(%bt : {BIAS})
    %psa = pto.tile_buf_addr %msa : {MAT_SA} -> !pto.ptr<{F8}, mat>
    %psb = pto.tile_buf_addr %msb : {MAT_SB} -> !pto.ptr<{F8}, mat>
    %pl = pto.tile_buf_addr %l : {LEFT} -> !pto.ptr<{F8}, left>
    %pr = pto.tile_buf_addr %r : {RIGHT} -> !pto.ptr<{F8}, right>
    pto.mte_l1_l0a_mx %psa, %pl, %i16, %i64 : !pto.ptr<{F8}, mat>, !pto.ptr<{F8}, left>, i64, i64
    pto.mte_l1_l0b_mx %psb, %pr, %i64, %i32 : !pto.ptr<{F8}, mat>, !pto.ptr<{F8}, right>, i64, i64
    {extra}pto.set_flag["PIPE_MTE1", "PIPE_M", "EVENT_ID0"]
    pto.wait_flag["PIPE_MTE1", "PIPE_M", "EVENT_ID0"]
    {body}
    pto.set_flag["PIPE_M", "PIPE_FIX", "EVENT_ID0"]
    pto.wait_flag["PIPE_M", "PIPE_FIX", "EVENT_ID0"]
    pto.tstore ins(%acc : {ACC}) outs(%cp : !pto.partition_tensor_view<{rows}x{N}xf32>)
    return
  }}
}}
"""


def inputs(seed: int) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray]:
    """GM data, the scaled product (float64) and the bias. The scale images are the
    ZZ-32 (16 x 2 boxes) / NN-32 (2 x 16 boxes) byte orders the cube reads."""
    rng = np.random.default_rng(seed)
    a = rng.integers(-6, 7, (M, K)).astype(float8_e4m3fn)
    b = rng.integers(-6, 7, (K, N)).astype(float8_e4m3fn)
    sa = rng.integers(122, 132, (M, G)).astype(np.uint8)
    sb = rng.integers(122, 132, (G, N)).astype(np.uint8)
    za = sa.reshape(M // 16, 16, G // 2, 2).transpose(0, 2, 1, 3).ravel()
    nb = sb.reshape(G // 2, 2, N // 16, 16).transpose(2, 0, 3, 1).ravel()
    bias = rng.integers(-20, 20, N).astype(np.float32)
    want = np.zeros((M, N))
    for g in range(G):                      # group by group, scales applied per block
        blk = slice(32 * g, 32 * g + 32)
        want += (a[:, blk].astype(np.float64) @ b[blk].astype(np.float64)) \
            * 2.0 ** (sa[:, g:g + 1].astype(np.float64) - 127) \
            * 2.0 ** (sb[g].astype(np.float64) - 127)
    data = {"a": a.ravel(), "b": b.ravel(), "sa": za.view(float8_e4m3fn),
            "sb": nb.view(float8_e4m3fn), "bias": bias, "c": np.zeros(M * N, np.float32)}
    return data, want, bias


MX = f"{LEFT}, {A_SCALE}, {RIGHT}, {B_SCALE}"


@pytest.mark.parametrize("body, form", [
    (f"pto.tmatmul.mx ins(%l, %as, %r, %bs : {MX}) outs(%acc : {ACC})", "plain"),
    (f"pto.tmatmul.mx ins(%l, %as, %r, %bs : {MX}) outs(%acc : {ACC})\n    "
     f"pto.tmatmul.mx.acc ins(%acc, %l, %as, %r, %bs : {ACC}, {MX}) outs(%acc : {ACC})", "acc"),
    (f"pto.tmatmul.mx.bias ins(%l, %as, %r, %bs, %bt : {MX}, {BIAS}) outs(%acc : {ACC})",
     "bias"),
])
def test_pto_tmatmul_mx(body: str, form: str) -> None:
    data, want, bias = inputs(seed=len(form))
    res = Kernel.from_text(kernel(body), "mx.pto").run(data)
    assert res.findings == []
    prod = want.astype(np.float32)
    expect = {"plain": prod, "acc": prod + prod, "bias": prod + bias[None, :]}[form]
    np.testing.assert_array_equal(res.outputs["c"].reshape(M, N), expect)


def test_pto_tmatmul_mx_round_trips() -> None:
    from ptosim.frontend.text import parse_module, print_module
    body = (f"pto.tmatmul.mx.acc ins(%acc, %l, %as, %r, %bs : {ACC}, {MX}) outs(%acc : {ACC})"
            f"\n    pto.tgemv.mx.bias ins(%l, %as, %r, %bs, %bt : {MX}, {BIAS}) "
            f"outs(%acc : {ACC})")
    printed = print_module(parse_module(kernel(body), "mx.pto"))
    assert "pto.tmatmul.mx.acc ins(%acc, %l, %as, %r, %bs : " in printed
    assert print_module(parse_module(printed, "again.pto")) == printed


def test_pto_mx_scale_operands_are_scaling_tiles() -> None:
    from ptosim.frontend.text import parse_module
    body = f"pto.tmatmul.mx ins(%l, %l, %r, %bs : {LEFT}, {LEFT}, {RIGHT}, {B_SCALE}) " \
           f"outs(%acc : {ACC})"
    with pytest.raises(ptosim.PtoSyntaxError, match=r"pto\.tmatmul\.mx: lhs_scale must be a "
                                                    r"scaling tile, got loc=left"):
        parse_module(kernel(body), "mx.pto")


# GEMV: a one-row Left tile (K = 64) read as a plain row, its scales one plain row too
GL = f"!pto.tile_buf<left, 1x{K}x{F8}, blayout=col_major, slayout=row_major>"
GMAT_A = f"!pto.tile_buf<mat, 16x{K}x{F8}, blayout=col_major, slayout=row_major, valid=1x{K}>"
GA_SCALE = f"!pto.tile_buf<scaling, 1x{K}xi8>"       # PTOAS: a scale tile has its data
GB_SCALE = f"!pto.tile_buf<scaling, {K}x{N}xi8>"     # tile's shape (placeholders again)
GACC = ("!pto.tile_buf<acc, 16x32xf32, blayout=col_major, slayout=row_major, fractal=1024, "
        "valid=1x32>")


def gemv_kernel(body: str, a_scale: str = GA_SCALE) -> str:
    text = kernel(body, rows=1)
    text = text.replace(f"%ma = pto.alloc_tile : {MAT_A}", f"%ma = pto.alloc_tile : {GMAT_A}")
    text = text.replace(f"outs(%ma : {MAT_A})", f"outs(%ma : {GMAT_A})")
    text = text.replace(f"pto.tmov ins(%ma : {MAT_A}) outs(%l : {LEFT})",
                        f"pto.textract ins(%ma, %c0, %c0 : {GMAT_A}, index, index) "
                        f"outs(%l : {GL})")
    text = text.replace(f"%l = pto.alloc_tile : {LEFT}", f"%l = pto.alloc_tile : {GL}")
    text = text.replace(f"%pl = pto.tile_buf_addr %l : {LEFT}", f"%pl = pto.tile_buf_addr %l : {GL}")
    text = text.replace(f"%acc = pto.alloc_tile : {ACC}", f"%acc = pto.alloc_tile : {GACC}")
    text = text.replace(f"pto.tstore ins(%acc : {ACC})", f"pto.tstore ins(%acc : {GACC})")
    # the A scales: one plain row of G bytes staged by a one-row (m = 1) micro load
    text = text.replace(f"%as = pto.alloc_tile : {A_SCALE}", f"%as = pto.alloc_tile : {a_scale}")
    text = text.replace(f"%bs = pto.alloc_tile : {B_SCALE}", f"%bs = pto.alloc_tile : {GB_SCALE}")
    text = text.replace("pto.mte_l1_l0a_mx %psa, %pl, %i16,", "pto.mte_l1_l0a_mx %psa, %pl, %i1,")
    return text.replace("    %i16 = arith.constant", "    %i1 = arith.constant 1 : i64\n"
                        "    %i16 = arith.constant")


GMX = f"{GL}, {GA_SCALE}, {RIGHT}, {GB_SCALE}"


@pytest.mark.parametrize("body, form", [
    (f"pto.tgemv.mx ins(%l, %as, %r, %bs : {GMX}) outs(%acc : {GACC})", "plain"),
    (f"pto.tgemv.mx ins(%l, %as, %r, %bs : {GMX}) outs(%acc : {GACC})\n    "
     f"pto.tgemv.mx.acc ins(%acc, %l, %as, %r, %bs : {GACC}, {GMX}) outs(%acc : {GACC})", "acc"),
    (f"pto.tgemv.mx.bias ins(%l, %as, %r, %bs, %bt : {GMX}, {BIAS}) outs(%acc : {GACC})",
     "bias"),
])
def test_pto_tgemv_mx(body: str, form: str) -> None:
    data, _, bias = inputs(seed=7 + len(form))
    a = data["a"].reshape(M, K)[0].astype(np.float64)
    b = data["b"].reshape(K, N).astype(np.float64)
    # a one-row image: the first G bytes of the ZZ box are row 0's scales (r = 0, c = 0..1)
    sa_row = data["sa"].view(np.uint8)[:G].astype(np.float64)
    sb = data["sb"].view(np.uint8).reshape(N // 16, G // 2, 16, 2).transpose(1, 3, 0, 2) \
        .reshape(G, N).astype(np.float64)
    prod = sum((a[32 * g:32 * g + 32] @ b[32 * g:32 * g + 32]) * 2.0 ** (sa_row[g] - 127)
               * 2.0 ** (sb[g] - 127) for g in range(G)).astype(np.float32)
    res = Kernel.from_text(gemv_kernel(body), "gemv_mx.pto").run(data)
    assert res.findings == []
    expect = {"plain": prod, "acc": prod + prod, "bias": prod + bias}[form]
    np.testing.assert_array_equal(res.outputs["c"][:N], expect)


def test_pto_tgemv_mx_scale_shape_rule() -> None:
    """PTOAS's tgemv.mx verifier: each scale tile has its data tile's shape and valid
    shape (tmatmul.mx has no such rule)."""
    bad = "!pto.tile_buf<scaling, 1x32xi8>"
    body = (f"pto.tgemv.mx ins(%l, %as, %r, %bs : {GL}, {bad}, {RIGHT}, {GB_SCALE}) "
            f"outs(%acc : {GACC})")
    with pytest.raises(ptosim.VerifyError, match="TGEMV_MX: a_scale must have Left's shape "
                                                 r"1x64 and valid 1x64 \(PTOAS's rule\), got "
                                                 "1x32 valid 1x32"):
        Kernel.from_text(gemv_kernel(body, bad), "gemv_mx.pto").run(inputs(1)[0])


def test_pto_tmatmul_mx_runs_on_pipe_m_after_the_scale_loads() -> None:
    """Without the MTE1 -> M flag the hazard checker reports the cube reading the data and
    the MX buffers the MTE1 loads write (the op runs on pipe M)."""
    body = f"pto.tmatmul.mx ins(%l, %as, %r, %bs : {MX}) outs(%acc : {ACC})"
    text = kernel(body).replace('pto.set_flag["PIPE_MTE1", "PIPE_M", "EVENT_ID0"]\n', "") \
        .replace('    pto.wait_flag["PIPE_MTE1", "PIPE_M", "EVENT_ID0"]\n', "")
    res = Kernel.from_text(text, "mx.pto").run(inputs(2)[0])
    found = " ".join(str(f) for f in res.findings)
    assert res.findings and "MTE1" in found and "pto.tmatmul.mx" in found


def test_scaling_placeholders_need_the_mx_buffers() -> None:
    """The PTOAS form (Scaling tiles in both scale slots) reads a5's MX buffers; a2a3 has
    none. Mixing a Scaling tile with a ScaleRight tile is neither form."""
    m = ptosim.Machine("a2a3")
    fb = m.tile("Scaling", "f16", 1, 16)
    with pytest.raises(ptosim.VerifyError, match="TMATMUL_MX: target a2a3 has no MX scale "
                                                 r"buffers \(a5 has\)"):
        m.TMATMUL_MX(m.tile("Acc", "f32", 16, 16), m.tile("Left", "f16", 16, 64), fb,
                     m.tile("Right", "f16", 64, 16), fb)
    m5 = ptosim.Machine("a5")
    with pytest.raises(ptosim.SpaceError, match="scale_left must be a ScaleLeft tile"):
        m5.TMATMUL_MX(m5.tile("Acc", "f32", 16, 16), m5.tile("Left", F8, 16, 64),
                      m5.tile("Scaling", "f16", 1, 16), m5.tile("Right", F8, 64, 16),
                      m5.tile("ScaleRight", "e8m0", 2, 16))
