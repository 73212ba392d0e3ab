"""``pto.set_validshape`` / ``pto.get_validshape`` (PTOAS): a tile with a dynamic valid
region gets a new one for its later uses, and reads it back; PTOAS's rules."""

from __future__ import annotations

import numpy as np
import pytest

import ptosim
from ptosim.errors import VerifyError
from ptosim.kernel import Kernel

T = "!pto.tile_buf<vec, 8x16xf32, valid=?x?>"

KERNEL = f"""
module {{
  func.func @k(%a: !pto.ptr<f32>, %o: !pto.ptr<f32>, %r: index, %c: index)
      attributes {{pto.aicore}} {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %one = arith.constant 1.0 : f32
    %va = pto.make_tensor_view %a, shape = [%c8, %c16], strides = [%c16, %c1] : !pto.tensor_view<8x16xf32>
    %pa = pto.partition_view %va, offsets = [%c0, %c0], sizes = [%c8, %c16] : !pto.tensor_view<8x16xf32>
    %vo = pto.make_tensor_view %o, shape = [%c8, %c16], strides = [%c16, %c1] : !pto.tensor_view<8x16xf32>
    %t = pto.alloc_tile valid_row = %c8 valid_col = %c16 : {T}
    pto.tload ins(%pa : !pto.partition_tensor_view<8x16xf32>) outs(%t : {T})
    pto.set_validshape %t, %r, %c : {T}
    pto.tadds ins(%t, %one : {T}, f32) outs(%t : {T})
    %vr, %vc = pto.get_validshape %t : {T}
    %po = pto.partition_view %vo, offsets = [%c0, %c0], sizes = [%vr, %vc] : !pto.tensor_view<8x16xf32>
    pto.tstore ins(%t : {T}) outs(%po : !pto.partition_tensor_view<?x?xf32>)
    return
  }}
}}
"""


@pytest.mark.parametrize("r, c", [(8, 16), (3, 8), (1, 5)])
def test_later_uses_see_the_new_valid_region(r: int, c: int) -> None:
    a = np.arange(128, dtype=np.float32).reshape(8, 16)
    o = np.full((8, 16), -1.0, np.float32)
    res = Kernel.from_text(KERNEL).run({"a": a, "o": o, "r": r, "c": c})
    want = o.copy()
    want[:r, :c] = a[:r, :c] + 1
    np.testing.assert_array_equal(res.outputs["o"], want)


def test_printed_form_parses_again() -> None:
    text = str(Kernel.from_text(KERNEL).module)
    assert f"pto.set_validshape %t, %r, %c : {T}" in text.replace("\n", " ")
    assert f"%vr, %vc = pto.get_validshape %t : {T}" in text.replace("\n", " ")
    Kernel.from_text(text)


@pytest.mark.parametrize("old, new, message", [
    (f"pto.set_validshape %t, %r, %c : {T}",
     "pto.set_validshape %u, %r, %c : !pto.tile_buf<vec, 8x16xf32>",
     r"pto\.set_validshape: expects a tile_buf with a dynamic valid shape \(valid=\?x\?\)"),
    (f"pto.set_validshape %t, %r, %c : {T}", f"pto.set_validshape %t, %c16, %c1 : {T}",
     r"pto\.set_validshape: valid_row 16 must lie in \[0, 8\]"),
])
def test_ptoas_rules(old: str, new: str, message: str) -> None:
    text = KERNEL.replace(old, new).replace(
        "    pto.tload", "    %u = pto.alloc_tile : !pto.tile_buf<vec, 8x16xf32>\n    pto.tload")
    with pytest.raises(ptosim.PtoError, match=message):
        Kernel.from_text(text)


def test_a_runtime_count_past_the_tile_is_refused() -> None:
    a = np.zeros((8, 16), np.float32)
    with pytest.raises(VerifyError, match=r"pto\.set_validshape: valid shape \[9, 4\] must "
                                          r"lie in \[0, 8\] x \[0, 16\]"):
        Kernel.from_text(KERNEL).run({"a": a, "o": a.copy(), "r": 9, "c": 4})
