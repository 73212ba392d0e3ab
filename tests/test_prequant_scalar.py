"""pto-isa's preQuantScalar overloads (``TSTORE(dst, src, preQuantScalar)``, ``TMOV`` likewise;
Python ``pre_quant_scalar=``) and PTOAS's quant operands in `.pto`: ``pto.tstore ins(%acc :
T, %pre : i64)``, ``pto.tmov ins(%acc : T, %pre : i64)`` and ``pto.tmov ins(%acc : T, %fp :
F)`` (TMOV_FP). The scalar is the 64-bit QUANT_PRE word: its bits 0-31 are the f32 scale,
the mode is the target's scalar mode of the (Acc, destination) pair."""

from __future__ import annotations

import numpy as np
import pytest

import ptosim
from ptosim.errors import DtypeError, NotImplementedOpError, PtoSyntaxError, PtoTypeError
from ptosim.kernel import Kernel

M, N = 32, 64


def _word(scale: float) -> int:
    return int(np.array([scale], np.float32).view(np.uint32)[0])


def _acc(m: ptosim.Machine, c: np.ndarray) -> ptosim.Tile:
    """An Acc tile holding ``c`` (NZ 16 x 16 fractals, written directly)."""
    acc = m.tile("Acc", "i32" if c.dtype == np.int32 else "f32", M, N)
    m.write(acc.ptr, c.reshape(M, N // 16, 16).transpose(1, 0, 2))
    return acc


def _store(m: ptosim.Machine, acc: ptosim.Tile, dt: str, **kw: object) -> np.ndarray:
    out = m.gm_empty(M * N, dt)
    g = m.global_tensor(out, shape=(1, 1, 1, M, N), stride=(0, 0, 0, N, 1))
    m.TSTORE(g, acc, **kw)
    return m.read(out, M * N).reshape(M, N)


@pytest.mark.parametrize("target", ["a5", "a2a3"])
@pytest.mark.parametrize("acc_t,dst_t,scale", [("f32", "f16", 0.5), ("i32", "f16", 0.25),
                                               ("f32", "ui8", 2.0), ("i32", "ui8", 0.5)])
def test_tstore_scalar_is_scale_then_cast(target, acc_t, dst_t, scale):
    """Against numpy: value x scale, then the cast (f16: nearest-even; ui8: rounded and
    clamped to [0, 255], a scalar payload carrying no sign bit)."""
    m = ptosim.Machine(target=target)
    rng = np.random.default_rng(len(acc_t) + len(dst_t))
    c = rng.integers(-300, 300, (M, N))
    c = c.astype(np.int32) if acc_t == "i32" else (c / 4).astype(np.float32)
    got = _store(m, _acc(m, c), dst_t, pre_quant_scalar=_word(scale))
    v = c.astype(np.float64) * scale
    want = v.astype(np.float16) if dst_t == "f16" else \
        np.clip(np.rint(np.clip(v, -256, 255)), 0, 255).astype(np.uint8)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("target", ["a5", "a2a3"])
def test_tstore_scalar_equals_the_fixpipe_clause(target):
    """The overload is FIXPIPE's scalar clause with the target's mode (deqf16_scalar)."""
    m = ptosim.Machine(target=target)
    c = np.random.default_rng(3).integers(-999, 999, (M, N)).astype(np.int32)
    acc = _acc(m, c)
    a = _store(m, acc, "f16", pre_quant_scalar=_word(0.125))
    b = _store(m, acc, "f16", pre_quant=(np.float32(0.125), "deqf16_scalar"))
    np.testing.assert_array_equal(a, b)


def test_tmov_scalar_acc_to_vec_a5():
    m = ptosim.Machine(target="a5")
    c = (np.random.default_rng(4).integers(-64, 64, (M, N)) / 2).astype(np.float32)
    dst = m.tile("Vec", "f16", M, N)
    m.TMOV(dst, _acc(m, c), pre_quant_scalar=_word(3.0))
    got = m.read(dst.ptr, M * N).reshape(M, N)
    np.testing.assert_array_equal(got, (c.astype(np.float64) * 3).astype(np.float16))


@pytest.mark.parametrize("target,kw,err,msg", [
    ("a5", {"pre_quant_scalar": 1 << 40}, NotImplementedOpError,
     r"TSTORE: pre_quant_scalar = 0x10000000000: bits 32-63 of the QUANT_PRE word \(offset, "
     r"sign\) are not modelled"),
    ("a5", {"pre_quant_scalar": 1.5}, PtoTypeError,
     r"TSTORE: pre_quant_scalar must be an integer \(the 64-bit QUANT_PRE word\), got float"),
    ("a5", {"pre_quant_scalar": 0, "pre_quant": (1.0, "deqf16_scalar")}, PtoTypeError,
     r"TSTORE: takes pre_quant or pre_quant_scalar, not both"),
    ("a2a3", {"pre_quant_scalar": 0, "dt": "f32"}, DtypeError,
     r"TSTORE: no scalar quantisation for i32 -> f32 on a2a3 \(pairs: f32 -> bf16, f32 -> "
     r"f16, f32 -> i8, f32 -> ui8, i32 -> f16, i32 -> i16, i32 -> i8, i32 -> ui8\)"),
    ("a2a3", {"pre_quant_scalar": 0, "dt": "i16"}, NotImplementedOpError,
     r"TSTORE: the scalar mode shifts322s16_scalar \(i32 -> i16\) is not implemented"),
])
def test_scalar_rules(target, kw, err, msg):
    m = ptosim.Machine(target=target)
    acc = _acc(m, np.zeros((M, N), np.int32))
    dt = kw.pop("dt", "f16")
    with pytest.raises(err, match=msg):
        _store(m, acc, dt, **kw)


def test_scalar_needs_an_acc_source():
    m = ptosim.Machine(target="a5")
    src, dst = m.tile("Vec", "f32", 16, 16), m.tile("Vec", "f16", 16, 16)
    with pytest.raises(ptosim.SpaceError, match="TMOV: src must be an Acc tile, got Vec"):
        m.TMOV(dst, src, pre_quant_scalar=0)


# --- .pto -------------------------------------------------------------------------------------
LEFT = "!pto.tile_buf<left, 1x64xf16, blayout=col_major, slayout=row_major>"
RIGHT = "!pto.tile_buf<right, 64x32xf16, slayout=col_major>"
MAT_A = "!pto.tile_buf<mat, 16x64xf16, blayout=col_major, slayout=row_major, valid=1x64>"
MAT_B = "!pto.tile_buf<mat, 64x32xf16, blayout=col_major, slayout=row_major>"
ACC = ("!pto.tile_buf<acc, 16x32xf32, blayout=col_major, slayout=row_major, fractal=1024, "
       "valid=1x32>")
VIEW = "!pto.partition_tensor_view<1x32xf16>"


def _gemv(store: str, word: int = 0) -> str:
    """a (1 x 64) . b (64 x 32) on the cube (a5 GEMV), then ``store`` of %acc into %cp."""
    return f"""module attributes {{pto.target_arch = "a5"}} {{
  func.func @k(%a: !pto.ptr<f16>, %b: !pto.ptr<f16>, %c: !pto.ptr<f16>) attributes {{pto.aicore}} {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %pre = arith.constant {word} : i64
    %av = pto.make_tensor_view %a, shape = [%c1, %c64], strides = [%c64, %c1] : !pto.tensor_view<1x64xf16>
    %ap = pto.partition_view %av, offsets = [%c0, %c0], sizes = [%c1, %c64] : !pto.tensor_view<1x64xf16>
    %bv = pto.make_tensor_view %b, shape = [%c64, %c32], strides = [%c32, %c1] : !pto.tensor_view<64x32xf16>
    %bp = pto.partition_view %bv, offsets = [%c0, %c0], sizes = [%c64, %c32] : !pto.tensor_view<64x32xf16>
    %cv = pto.make_tensor_view %c, shape = [%c1, %c32], strides = [%c32, %c1] : !pto.tensor_view<1x32xf16>
    %cp = pto.partition_view %cv, offsets = [%c0, %c0], sizes = [%c1, %c32] : !pto.tensor_view<1x32xf16>
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
    pto.tgemv ins(%l, %r : {LEFT}, {RIGHT}) outs(%acc : {ACC})
    pto.set_flag["PIPE_M", "PIPE_FIX", "EVENT_ID0"]
    pto.wait_flag["PIPE_M", "PIPE_FIX", "EVENT_ID0"]
    {store}
    return
  }}
}}
"""


def _inputs(seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return rng.integers(-4, 5, 64).astype(np.float16), rng.integers(-4, 5, (64, 32)).astype(
        np.float16)


@pytest.mark.parametrize("scale,attrs,relu", [(0.5, "", False), (0.25, " {reluPreMode = "
                                              "#pto<relu_pre_mode normal_relu>}", True)])
def test_pto_tstore_with_the_scalar(scale, attrs, relu):
    a, b = _inputs(7)
    text = _gemv(f"pto.tstore ins(%acc : {ACC}, %pre : i64) outs(%cp : {VIEW}){attrs}",
                 _word(scale))
    res = Kernel.from_text(text, "k.pto").run({"a": a, "b": b.ravel(),
                                               "c": np.zeros(32, np.float16)})
    assert res.findings == []
    v = (a.astype(np.float64) @ b.astype(np.float64)) * scale
    np.testing.assert_array_equal(res.outputs["c"],
                                  (np.maximum(v, 0) if relu else v).astype(np.float16))


def test_pto_tmov_operands_map_to_the_python_calls():
    vec = "!pto.tile_buf<vec, 16x32xf16, valid=1x32>"
    fp = "!pto.tile_buf<scaling, 1x32xui64>"
    text = _gemv(f"%v = pto.alloc_tile : {vec}\n    %fp = pto.alloc_tile : {fp}\n    "
                 f"pto.tmov ins(%acc : {ACC}, %pre : i64) outs(%v : {vec})\n    "
                 f"pto.tmov ins(%acc : {ACC}, %fp : {fp}) outs(%v : {vec}) "
                 f"{{accToVecMode = #pto.acc_to_vec_mode<single_mode_vec0>}}")
    k = Kernel.from_text(text, "k.pto")
    ops = [o for o in k.module.walk() if o.name == "pto.tmov"][1:]
    (pos0, kw0), (pos1, kw1) = ops[0].tile_call(), ops[1].tile_call()
    assert [v.name_hint for v in pos0] == ["v", "acc"] and kw0["pre_quant_scalar"].name_hint \
        == "pre"
    assert [v.name_hint for v in pos1] == ["v", "acc", "fp"] and "pre_quant_scalar" not in kw1
    assert (ops[0].tile_method(), ops[1].tile_method()) == (None, "TMOV_FP")
    printed = str(k.module)
    assert f"%pre : i64) outs(%v : {vec})" in printed
    Kernel.from_text(printed, "again.pto")


def test_pto_tmov_fp_runs_tmov_fp():
    """``pto.tmov ins(%acc : T, %fp : F) outs(%dst)`` runs TMOV_FP (PTOAS's lowering): an
    f32 -> f32 Vec destination has no vector quantisation mode, and TMOV_FP says so."""
    vec = "!pto.tile_buf<vec, 16x32xf32, valid=1x32>"
    fp = "!pto.tile_buf<scaling, 1x32xui64>"
    text = _gemv(f"%v = pto.alloc_tile : {vec}\n    %fp = pto.alloc_tile : {fp}\n    "
                 f"pto.tmov ins(%acc : {ACC}, %fp : {fp}) outs(%v : {vec})")
    a, b = _inputs(8)
    with pytest.raises(ptosim.PtoError, match=r"TMOV_FP: no vector quantisation for f32 -> "
                                              r"f32 on a5"):
        Kernel.from_text(text, "k.pto").run({"a": a, "b": b.ravel(),
                                             "c": np.zeros(32, np.float16)})


@pytest.mark.parametrize("ins,msg", [
    (f"%acc : {ACC}, %pre : i32", r"pto.tstore: pre_quant_scalar must be i64, got i32"),
    (f"%acc : {ACC}, %c0 : index", r"pto.tstore: pre_quant_scalar must be i64, got index"),
    (f"%acc : {ACC}, %acc : {ACC}", r"pto.tstore: ins\(...\) takes src, pre_quant_scalar, got "
                                    r"a tile after src \(PTOAS spells this pto.tstore_fp\)"),
    (f"%acc : {ACC}, %pre : i64, %pre : i64", r"pto.tstore: ins\(...\) takes at most one fp "
                                               r"then one pre-quant scalar"),
])
def test_pto_tstore_malformed_operands(ins, msg):
    text = _gemv(f"pto.tstore ins({ins}) outs(%cp : {VIEW})")
    with pytest.raises(PtoSyntaxError, match=msg):
        Kernel.from_text(text, "k.pto")


def test_pto_scalar_needs_an_acc_source():
    text = _gemv(f"pto.tmov ins(%mb : {MAT_B}, %pre : i64) outs(%r : {RIGHT})")
    with pytest.raises(PtoSyntaxError, match=r"pto.tmov: the pre_quant_scalar form needs a "
                                             r"loc=acc src \(PTOAS's verifier\)"):
        Kernel.from_text(text, "k.pto")
