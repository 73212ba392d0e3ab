"""Small `.pto` spellings PTOAS's lit kernels use: thistogram's legacy ``isMSB``, with the DN
one-column idx pto-isa's 16-bit histogram requires."""

import numpy as np
import pytest

import ptosim
from ptosim.errors import PtoSyntaxError, VerifyError
from ptosim.kernel import Kernel


def cum_hist(values):
    counts = np.zeros(256, np.int64)
    for v in values:
        counts[int(v)] += 1
    return np.cumsum(counts)


def hist_case(rows=4, cols=32, dn=True):
    m = ptosim.Machine(target="a5")
    rng = np.random.default_rng(5)
    x = rng.integers(0, 1 << 16, (rows, cols)).astype(np.uint16)
    x[:, :8] = (x[:, :8] & 0x00FF) | 0x0300                  # MSB 3 on a few lanes
    src = m.tile("Vec", "ui16", rows, cols)
    m.write(src.ptr, x.ravel())
    idx = m.tile("Vec", "ui8", 32, 1, blayout="ColMajor") if dn else m.tile("Vec", "ui8", 1, 32)
    m.write(idx.ptr, np.full(32, 3, np.uint8))
    dst = m.tile("Vec", "ui32", rows, 256)
    return m, x, src, idx, dst


@pytest.mark.parametrize("is_msb,byte", [(True, 1), (False, 0)])
def test_is_msb_names_byte_one_or_zero(is_msb, byte):
    """pto-isa a5 THistogram<..., isMSB>: true counts the high byte of each value, false the
    low byte of the values whose high byte equals the row's idx byte (here 3)."""
    m, x, src, idx, dst = hist_case()
    m.THISTOGRAM(dst, src, idx, is_msb=is_msb)
    got = m.read(dst.ptr, 4 * 256).reshape(4, 256)
    for r in range(4):
        if byte == 1:
            want = cum_hist([v >> 8 for v in x[r]])
        else:
            want = cum_hist([v & 0xFF for v in x[r] if v >> 8 == 3])
        np.testing.assert_array_equal(got[r], want)
    m2, _, src2, idx2, dst2 = hist_case()
    m2.THISTOGRAM(dst2, src2, idx2, byte=byte, is_msb=is_msb)      # agreeing: accepted
    np.testing.assert_array_equal(m2.read(dst2.ptr, 4 * 256).reshape(4, 256), got)


def test_conflicting_byte_and_is_msb_is_a_verify_error():
    m, _, src, idx, dst = hist_case()
    with pytest.raises(VerifyError, match="does not allow conflicting 'byte' and legacy "
                                          "'isMSB' attributes"):
        m.THISTOGRAM(dst, src, idx, byte=1, is_msb=False)


def test_dn_idx_reads_like_a_row():
    outs = []
    for dn in (True, False):
        m, _, src, idx, dst = hist_case(dn=dn)
        m.THISTOGRAM(dst, src, idx, byte=0)
        outs.append(m.read(dst.ptr, 4 * 256))
    np.testing.assert_array_equal(*outs)
    m = ptosim.Machine(target="a5")
    with pytest.raises(VerifyError, match="idx must be a row-major ND tile \\(or a DN tile of "
                                          "one column\\), got DN with 2 columns"):
        m.THISTOGRAM(m.tile("Vec", "ui32", 1, 256), m.tile("Vec", "ui16", 1, 16),
                     m.tile("Vec", "ui8", 32, 2, blayout="ColMajor"), byte=0)


SRC = ("!pto.tile_buf<loc=vec, dtype=ui16, rows=8, cols=32, v_row=8, v_col=32, "
       "blayout=row_major, slayout=none_box, fractal=512, pad=0>")
IDX = ("!pto.tile_buf<loc=vec, dtype=ui8, rows=8, cols=1, v_row=8, v_col=1, "
       "blayout=col_major, slayout=none_box, fractal=512, pad=0>")
DST = ("!pto.tile_buf<loc=vec, dtype=ui32, rows=8, cols=256, v_row=8, v_col=256, "
       "blayout=row_major, slayout=none_box, fractal=512, pad=0>")


def hist_text(attrs):
    return f"""
module {{
  func.func @h() {{
    %s = pto.alloc_tile : {SRC}
    %i = pto.alloc_tile : {IDX}
    %d = pto.alloc_tile : {DST}
    pto.thistogram ins(%s, %i : {SRC}, {IDX}) outs(%d : {DST}) {{{attrs}}}
    return
  }}
}}
"""


@pytest.mark.parametrize("attrs,kw", [
    ("isMSB = false", {"is_msb": False}), ("isMSB = true", {"is_msb": True}),
    ("byte = 0 : i32, isMSB = false", {"byte": 0, "is_msb": False}),
])
def test_pto_is_msb_loads_and_runs(attrs, kw):
    k = Kernel.from_text(hist_text(attrs))
    k.run({})
    op = next(o for o in k.module.walk() if o.name == "pto.thistogram")
    assert op.tile_call()[1] == kw


def test_pto_conflicting_is_msb_is_refused_at_load():
    with pytest.raises(PtoSyntaxError, match="pto.thistogram: does not allow conflicting "
                                             "'byte' and legacy 'isMSB' attributes"):
        Kernel.from_text(hist_text("byte = 1 : i32, isMSB = false"))
