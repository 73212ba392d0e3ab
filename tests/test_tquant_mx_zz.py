"""TQUANT's ZZ-exponent overload, `TQUANT<QuantType::MXFP8, VecStoreMode::NZ>(dst, src, &exp,
&max, &scaling, &exp_zz)`: pto-isa defines it only in its CPU simulator, so ptosim runs it
only with cpu_sim_compat=True - the ND MXFP8 OCP TQUANT, then exp's first (valid rows x
valid cols / 32) bytes copied into exp_zz in ZZ order (16-row x 2-group boxes). Goldens:
the ZZ order by reshape / transpose, dst and exp against a plain ND TQUANT and the
element goldens of test_tquant_mx."""

import numpy as np
import pytest

import ptosim
from ptosim.errors import (
    DtypeError,
    NotImplementedOpError,
    PtoTypeError,
    PtoValueError,
    VerifyError,
)
from ptosim.kernel import Kernel
from test_tquant_mx import e4m3_code, raw, shared_exp
from tile_helpers import NP, SENTINEL, blank, put


def zz_golden(flat, rows, gc):
    """The CPU simulator's ReorderExponentZZ as array reshapes: (row block, row, group
    block, group) -> (row block, group block, row, group)."""
    return flat[:rows * gc].reshape(rows // 16, 16, gc // 2, 2).transpose(0, 2, 1, 3).ravel()


def tiles(m, st, rows, cols, valid=None, exp_shape=None):
    src = m.tile("Vec", st, rows, cols, valid=valid)
    dst = blank(m, "f8E4M3FN", rows, cols)
    er, ec = exp_shape or (1, rows * cols // 32)
    exp, exp_zz = blank(m, "f8E8M0FNU", er, ec), blank(m, "f8E8M0FNU", er, ec)
    n = rows * cols // 32
    mx, sc = blank(m, st, 1, max(n, 16)), blank(m, st, 1, max(n, 16))
    return src, dst, exp, mx, sc, exp_zz


def run_zz(st, x, valid=None, exp_shape=None):
    """(zz machine's dst, exp, max, scaling, exp_zz bytes), and the plain ND run's
    (dst, exp, max, scaling) bytes."""
    out = []
    for zz in (True, False):
        m = ptosim.Machine(target="a5")
        src, dst, exp, mx, sc, exp_zz = tiles(m, st, *x.shape, valid=valid, exp_shape=exp_shape)
        put(m, src, x)
        if zz:
            m.TQUANT(dst, src, exp, mx, sc, exp_zz, store_mode="NZ", cpu_sim_compat=True)
            out.append([raw(m, t) for t in (dst, exp, mx, sc, exp_zz)])
        else:
            m.TQUANT(dst, src, exp, mx, sc)
            out.append([raw(m, t) for t in (dst, exp, mx, sc)])
    return out


@pytest.mark.parametrize("st", ["f32", "f16", "bf16"])
def test_zz_ported_cpu_case(st):
    """pto-isa tests/cpu/st/testcase/tquant `TestFp8NzReordersExponentsExactly` (f32, half,
    bf16): 16 x 64, value 64 at each group's first column, (r * 3 + c) % 13 + 1 elsewhere,
    negated when (r + c) % 3 == 0; exp_zz = the ZZ order of exp's 32 bytes (one box: the
    same order) and every code = e4m3(x * scaling of its group)."""
    r, c = np.indices((16, 64))
    base = np.where(c % 32 == 0, 64.0, (r * 3 + c) % 13 + 1)
    x = np.where((r + c) % 3 == 0, -base, base).astype(NP[st])
    (dst, exp, _, sc, ez), _ = run_zz(st, x)
    np.testing.assert_array_equal(ez[:32], zz_golden(exp, 16, 2))
    np.testing.assert_array_equal(exp[:32], shared_exp(64.0))       # every group's max is 64
    s = sc.view(np.uint32 if st == "f32" else np.uint16)[:32].astype(np.uint32)
    scale = (s if st == "f32" else s << 16).view(np.float32)
    d = dst.reshape(16, 64)
    for i in range(16):
        for j in range(64):
            assert d[i, j] == e4m3_code(float(x[i, j]) * float(scale[i * 2 + j // 32]))


@pytest.mark.parametrize("st,rows,cols", [("f32", 32, 128), ("f16", 48, 256),
                                          ("bf16", 64, 64)])
def test_zz_random_matches_plain_tquant(st, rows, cols):
    """dst / exp / max / scaling exactly those of the plain ND TQUANT; exp_zz the ZZ order
    of exp's groups and nothing past them."""
    rng = np.random.default_rng(rows + cols)
    span = 8 if st == "f16" else 20
    x = rng.normal(size=(rows, cols)) * np.exp2(rng.integers(-span, span, (rows, 1)))
    x = x.astype(NP[st])
    (*zz_bytes, ez), plain = run_zz(st, x)
    for a, b in zip(zz_bytes, plain):
        np.testing.assert_array_equal(a, b)
    n = rows * cols // 32
    np.testing.assert_array_equal(ez[:n], zz_golden(zz_bytes[1], rows, cols // 32))
    assert sorted(ez[:n]) == sorted(zz_bytes[1][:n])


def test_zz_worked_example():
    """By hand, 32 x 128 f32 (4 groups per row): group (r, g) holds one value 2^(r + 4g - 40)
    and zeros, so its e8m0 is r + 4g - 40 + 127 - 8. ZZ byte 0 / 1 / 2 = groups (0, 0),
    (0, 1), (1, 0); byte 32 starts the box of groups 2-3: (0, 2); byte 64 the second row
    block: (16, 0); byte 127 = (31, 3)."""
    x = np.zeros((32, 128), np.float32)
    for r in range(32):
        for g in range(4):
            x[r, 32 * g + 5] = 2.0 ** (r + 4 * g - 40)
    (_, exp, _, _, ez), _ = run_zz("f32", x)

    def e(r, g):
        return r + 4 * g - 40 + 119

    assert list(ez[:3]) == [e(0, 0), e(0, 1), e(1, 0)]
    assert ez[31] == e(15, 1) and ez[32] == e(0, 2) and ez[34] == e(1, 2)
    assert ez[64] == e(16, 0) and ez[127] == e(31, 3)
    assert exp[5] == e(1, 1)                                  # exp itself stays row-major


def test_zz_reads_exp_flat_by_valid_cols():
    """The copy takes valid cols / 32 groups per row from exp's flat bytes (the CPU
    simulator's count), even where a5's flat exp stream holds src cols / 32 per row: with
    valid cols 64 of 128 it copies exp's first 32 x 2 bytes, in ZZ order."""
    rng = np.random.default_rng(3)
    x = (rng.normal(size=(32, 128)) * 1e3).astype(np.float32)
    (_, exp, _, _, ez), _ = run_zz("f32", x, valid=(32, 64))
    np.testing.assert_array_equal(ez[:64], zz_golden(exp, 32, 2))
    assert (ez[64:] == SENTINEL).all()


def test_zz_rules():
    m = ptosim.Machine(target="a5")
    src, dst, exp, mx, sc, ez = tiles(m, "f32", 32, 128)

    def q(*extra, **kw):
        kw.setdefault("cpu_sim_compat", True)
        m.TQUANT(dst, *extra[:1] or (src,), exp, mx, sc, *extra[1:2] or (ez,), **kw)

    with pytest.raises(NotImplementedOpError, match=r"a5 has no NPU implementation of the "
                                                    r"ZZ-exponent overload .* TMOV\(e8Zz, "
                                                    r"e8, tmp\)\); pass cpu_sim_compat=True"):
        q(cpu_sim_compat=False)
    with pytest.raises(PtoValueError, match=r"store_mode must be NZ .* got 'ND'"):
        q(store_mode="ND")
    with pytest.raises(PtoValueError, match="the ZZ-exponent overload is MXFP8 only, got "
                                            "'MXFP4_E2M1'"):
        q(quant_type="MXFP4_E2M1")
    with pytest.raises(PtoValueError, match=r"takes no scale_alg .* got 'NV'"):
        q(scale_alg="NV")
    with pytest.raises(PtoValueError, match=r"takes no grp_axis \(it runs grp_axis=1\), got 0"):
        q(grp_axis=0)
    with pytest.raises(PtoTypeError, match="store_mode belongs to the ZZ-exponent overload: "
                                           "pass an exp_zz tile"):
        m.TQUANT(dst, src, exp, mx, sc, store_mode="NZ")
    with pytest.raises(DtypeError, match="exp_zz is ui8 but exp is f8E8M0FNU: they must match"):
        q(src, m.tile("Vec", "ui8", 1, 128))
    with pytest.raises(VerifyError, match="exp_zz is 1x256 but exp is 1x128: they must match"):
        q(src, m.tile("Vec", "f8E8M0FNU", 1, 256))
    with pytest.raises(VerifyError, match=r"valid rows a multiple of 16 and valid cols / 32 a "
                                          r"multiple of 2, got 24 and 128 / 32 = 4"):
        q(m.tile("Vec", "f32", 32, 128, valid=(24, 128)))
    with pytest.raises(VerifyError, match=r"got 32 and 96 / 32 = 3"):
        q(m.tile("Vec", "f32", 32, 128, valid=(32, 96)))
    i8 = m.tile("Vec", "i8", 32, 128)
    with pytest.raises(PtoTypeError, match="store_mode belongs to the MX formats, not INT8_SYM"):
        m.TQUANT(i8, src, m.tile("Vec", "f32", 1, 32), store_mode="NZ")



def test_zz_text_form_is_not_implemented():
    """PTOAS's tquant has no MX forms and no store mode: a 5-tile ins (the ZZ overload's
    operand count) parses and is refused when it runs."""
    text = """
module {
  func.func @k() attributes {pto.aicore} {
    %s = pto.alloc_tile : !pto.tile_buf<vec, 16x64xf32>
    %e = pto.alloc_tile : !pto.tile_buf<vec, 1x32xui8>
    %f = pto.alloc_tile : !pto.tile_buf<vec, 1x32xf32>
    %d = pto.alloc_tile : !pto.tile_buf<vec, 16x64xi8>
    pto.tquant ins(%s, %e, %f, %f, %e : !pto.tile_buf<vec, 16x64xf32>,
      !pto.tile_buf<vec, 1x32xui8>, !pto.tile_buf<vec, 1x32xf32>,
      !pto.tile_buf<vec, 1x32xf32>, !pto.tile_buf<vec, 1x32xui8>)
      outs(%d : !pto.tile_buf<vec, 16x64xi8>)
    return
  }
}
"""
    k = Kernel.from_text(text)
    with pytest.raises(NotImplementedOpError, match=r"PTOAS's tquant has no MX forms .* the "
                                                    r"ZZ-exponent overload is Python only"):
        k.run({})
