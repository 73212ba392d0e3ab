"""PTOAS's ``accPhase`` on the `.pto` matmul / gemv ops: parsed, changes no value
(pto-isa passes AccPhase to ``mad`` as its unit-flag field, a pipe-sync hint)."""

from pathlib import Path

import numpy as np
import pytest

from ptosim.errors import PtoSyntaxError
from ptosim.kernel import Kernel

ROOT = Path(__file__).resolve().parent.parent
TEXT = (ROOT / "examples" / "tile_matmul" / "kernel.pto").read_text()
ACC = "outs(%acc : !pto.tile_buf<acc, 48x64xf32, valid=40x60, blayout=col_major, " \
      "slayout=row_major, fractal=1024>)\n    pto.set_flag"


def with_phase(word):
    assert TEXT.count(ACC) == 1
    return TEXT.replace(ACC, ACC.replace(")\n", f") {{accPhase = #pto<acc_phase {word}>}}\n"))


@pytest.mark.parametrize("word", ["unspecified", "partial", "final"])
def test_acc_phase_changes_no_value(word):
    a = (np.arange(2000) % 23 - 11).astype(np.float16).reshape(40, 50)
    b = (np.arange(3000) % 7).astype(np.float16).reshape(50, 60)
    k = Kernel.from_text(with_phase(word))
    op = next(o for o in k.module.walk() if o.name == "pto.tmatmul")
    assert op.attributes["accPhase"].value.data == word
    assert op.tile_call()[1] == {}                       # no keyword reaches TMATMUL
    run = k.run({"a": a, "b": b, "c": np.zeros((40, 60), np.float32)})
    np.testing.assert_array_equal(run.outputs["c"], a.astype(np.float32) @ b.astype(np.float32))
    assert run.findings == []


def test_unknown_acc_phase_word_is_a_syntax_error():
    with pytest.raises(PtoSyntaxError, match=r"expected an acc phase \(one of unspecified, "
                                             r"partial, final\), got"):
        Kernel.from_text(with_phase("middle"))


def test_other_attributes_on_tmatmul_are_refused():
    text = TEXT.replace(ACC, ACC.replace(")\n", ") {precisionType = "
                                              "#pto<div_precision high_precision>}\n"))
    with pytest.raises(PtoSyntaxError, match=r"pto\.tmatmul: unsupported attribute "
                                             r"'precisionType'"):
        Kernel.from_text(text)


def test_acc_phase_is_accepted_where_ptoas_declares_it():
    """PTOAS PTOOps.td: every TMatmul* / TGemv* op has accPhase but the MX bias forms."""
    from ptosim.frontend import tile_ops as t
    with_attr = (t.TMatmulOp, t.TMatmulAccOp, t.TMatmulBiasOp, t.TGemvOp, t.TGemvAccOp,
                 t.TGemvBiasOp, t.TMatmulMxOp, t.TMatmulMxAccOp, t.TGemvMxOp, t.TGemvMxAccOp)
    assert all("accPhase" in cls.ATTRS for cls in with_attr)
    assert "accPhase" not in t.TMatmulMxBiasOp.ATTRS
    assert "accPhase" not in t.TGemvMxBiasOp.ATTRS
