"""PTOAS's ``stPhase`` on `.pto` ``pto.tstore``: parsed, changes no value (pto-isa puts
STPhase in the Acc -> GM FIXPIPE writeback's unit-flag field, a pipe-sync hint; its Vec /
Mat stores never read it)."""

from pathlib import Path

import numpy as np
import pytest

from ptosim.errors import PtoSyntaxError
from ptosim.frontend.text import parse_module, print_module
from ptosim.kernel import Kernel

ROOT = Path(__file__).resolve().parent.parent
MATMUL = (ROOT / "examples" / "tile_matmul" / "kernel.pto").read_text()
SOFTMAX = (ROOT / "examples" / "tile_softmax" / "kernel.pto").read_text()
ACC_OUT = "outs(%c_part : !pto.partition_tensor_view<40x60xf32>)"
VEC_OUT = "outs(%yp : !pto.partition_tensor_view<?x64xf32>)"
WORDS = ["unspecified", "partial", "final"]


def with_attrs(text: str, out: str, attrs: str) -> str:
    assert text.count(out) == 1
    return text.replace(out, f"{out} {{{attrs}}}")


def _ab():
    a = (np.arange(2000) % 23 - 11).astype(np.float16).reshape(40, 50)
    b = (np.arange(3000) % 7 - 3).astype(np.float16).reshape(50, 60)
    return a, b


def _run_matmul(text: str) -> np.ndarray:
    a, b = _ab()
    run = Kernel.from_text(text).run({"a": a, "b": b, "c": np.full((40, 60), -7, np.float32)})
    assert run.findings == []
    return run.outputs["c"]


@pytest.mark.parametrize("word", WORDS)
def test_acc_store_bytes_are_the_same_for_every_phase(word):
    text = with_attrs(MATMUL, ACC_OUT, f"stPhase = #pto<st_phase {word}>")
    k = Kernel.from_text(text)
    op = next(o for o in k.module.walk() if o.name == "pto.tstore")
    assert op.attributes["stPhase"].value.data == word
    assert op.tile_call()[1] == {}                       # no keyword reaches TSTORE
    a, b = _ab()
    golden = np.matmul(a.astype(np.float64), b.astype(np.float64)).astype(np.float32)
    got = _run_matmul(text)
    np.testing.assert_array_equal(got, golden)
    assert got.tobytes() == _run_matmul(MATMUL).tobytes()


@pytest.mark.parametrize("word", ["partial", "final"])
def test_phase_with_relu_matches_relu_alone(word):
    """PTOAS form 6: ``{stPhase, reluPreMode}`` together; only the ReLU changes bytes."""
    relu = "reluPreMode = #pto<relu_pre_mode normal_relu>"
    got = _run_matmul(with_attrs(MATMUL, ACC_OUT, f"stPhase = #pto<st_phase {word}>, {relu}"))
    a, b = _ab()
    golden = np.maximum(a.astype(np.float64) @ b.astype(np.float64), 0).astype(np.float32)
    np.testing.assert_array_equal(got, golden)
    assert got.tobytes() == _run_matmul(with_attrs(MATMUL, ACC_OUT, relu)).tobytes()


@pytest.mark.parametrize("word", WORDS)
def test_vec_store_ignores_the_phase(word):
    """pto-isa passes STPhase to the Acc path only (TStoreAcc); a Vec store is unchanged."""
    x = (np.random.default_rng(3).standard_normal((40, 64)) * 3).astype(np.float32)
    text = with_attrs(SOFTMAX, VEC_OUT, f"stPhase = #pto<st_phase {word}>")
    res = Kernel.from_text(text).run({"x": x, "y": np.zeros_like(x), "n": 40})
    ref = Kernel.from_text(SOFTMAX).run({"x": x, "y": np.zeros_like(x), "n": 40})
    assert res.findings == []
    assert res.outputs["y"].tobytes() == ref.outputs["y"].tobytes()


def test_phase_prints_and_parses_back():
    text = with_attrs(MATMUL, ACC_OUT, "stPhase = #pto<st_phase partial>")
    printed = print_module(parse_module(text))
    assert "stPhase = #pto.st_phase<partial>" in printed      # the canonical spelling
    assert print_module(parse_module(printed)) == printed


def test_unknown_phase_word_is_a_located_syntax_error():
    text = with_attrs(MATMUL, ACC_OUT, "stPhase = #pto<st_phase middle>")
    line = 1 + text[:text.index("st_phase middle")].count("\n")
    with pytest.raises(PtoSyntaxError, match=r"expected a store phase \(one of unspecified, "
                                             r"partial, final\), got 'middle'") as err:
        Kernel.from_text(text)
    assert err.value.loc is not None and err.value.loc.startswith(f"<input>:{line}:")


def test_tstore_fp_takes_no_phase():
    """PTOAS's TStoreFPOp declares no stPhase (pto-isa's TSTORE_FP has no Phase)."""
    from ptosim.frontend import tile_ops as t
    assert "stPhase" in t.TStoreOp.ATTRS
    assert "stPhase" not in t.TStoreFpOp.ATTRS
    assert set(t.TStoreFpOp.ATTRS) == set(t.TStoreOp.ATTRS) - {"stPhase"}
