"""SET_QUANT_SCALAR / SET_QUANT_VECTOR: the FIXPIPE registers QUANT_PRE and FPC, and the Acc
exits that read them (TSTORE / TMOV ``quant_reg=``, TPUSH's path), against numpy."""

from __future__ import annotations

import struct

import numpy as np
import pytest

import ptosim
from ptosim.errors import NotImplementedOpError, PtoTypeError, VerifyError

M, N = 32, 64


def _acc(m: ptosim.Machine, c: np.ndarray) -> ptosim.Tile:
    acc = m.tile("Acc", "i32" if c.dtype == np.int32 else "f32", M, N)
    m.write(acc.ptr, c.reshape(M, N // 16, 16).transpose(1, 0, 2))
    return acc


def _gm(m: ptosim.Machine, dt: str) -> tuple[ptosim.Ptr, object]:
    out = m.gm_empty(M * N, dt)
    return out, m.global_tensor(out, shape=(1, 1, 1, M, N), stride=(0, 0, 0, N, 1))


@pytest.mark.parametrize("dt,scale,want", [
    ("i8", 0.5, 0x3F000000 | 1 << 46),       # int8: sign bit 46 set
    ("ui8", 0.5, 0x3F000000),                # uint8: cleared
    ("f16", 2.0, 0x40000000),                # other widths: the f32 bits only
    ("f16", -1.0, 0xFFFFFFFFBF800000),       # the int32 bits sign-extend to 64
    ("i8", -1.0, 0xFFFFFFFFBF800000),        # bit 46 already 1 and kept
])
def test_quant_pre_word(dt: str, scale: float, want: int) -> None:
    m = ptosim.Machine("a5")
    m.SET_QUANT_SCALAR(dt, scale)
    assert m.regs["quant_pre"] == (want,)
    # independently: struct's f32 bits, sign-extended
    bits = struct.unpack("<i", struct.pack("<f", scale))[0] % (1 << 64)
    assert want & ~(1 << 46) == bits & ~(1 << 46)


@pytest.mark.parametrize("target", ["a5", "a2a3"])
@pytest.mark.parametrize("acc_t,dst_t,scale", [("f32", "f16", 0.5), ("i32", "f16", 0.25),
                                               ("f32", "i8", 0.5), ("f32", "ui8", 2.0)])
def test_tstore_reads_quant_pre(target: str, acc_t: str, dst_t: str, scale: float) -> None:
    m = ptosim.Machine(target=target)
    rng = np.random.default_rng(7)
    c = rng.integers(-300, 300, (M, N))
    c = c.astype(np.int32) if acc_t == "i32" else (c / 4).astype(np.float32)
    acc = _acc(m, c)
    m.SET_QUANT_SCALAR(dst_t, scale)
    out, g = _gm(m, dst_t)
    m.TSTORE(g, acc, quant_reg="scalar")
    got = m.read(out, M * N).reshape(M, N)
    v = c.astype(np.float64) * scale
    if dst_t == "f16":
        want = v.astype(np.float16)
    else:
        lo, hi = (-128, 127) if dst_t == "i8" else (0, 255)
        want = np.clip(np.rint(v), lo, hi).astype(np.int8 if dst_t == "i8" else np.uint8)
    np.testing.assert_array_equal(got, want)


def test_int8_sign_bit_selects_the_signed_range() -> None:
    """Bit 46 picks the byte range, not the destination's type (as a vector word's sign):
    an int8 word into a ui8 view stores the signed bytes, a uint8 word into i8 the
    unsigned ones (FIXPIPE warns of that)."""
    m = ptosim.Machine("a5")
    c = np.linspace(-400, 400, M * N).reshape(M, N).astype(np.float32)
    acc = _acc(m, c)
    m.SET_QUANT_SCALAR("i8", 1.0)
    out, g = _gm(m, "ui8")
    m.TSTORE(g, acc, quant_reg="scalar")
    want = np.clip(np.rint(c), -128, 127).astype(np.int8).view(np.uint8)
    np.testing.assert_array_equal(m.read(out, M * N).reshape(M, N), want)
    m.SET_QUANT_SCALAR("ui8", 1.0)
    out, g = _gm(m, "i8")
    with pytest.warns(ptosim.PtoWarning, match="carries no sign bit"):
        m.TSTORE(g, acc, quant_reg="scalar")
    want8 = np.clip(np.rint(c), 0, 255).astype(np.uint8).view(np.int8)
    np.testing.assert_array_equal(m.read(out, M * N).reshape(M, N), want8)


def test_tmov_reads_quant_pre_a5() -> None:
    m = ptosim.Machine("a5")
    c = (np.arange(M * N).reshape(M, N) % 50 - 25).astype(np.float32)
    m.SET_QUANT_SCALAR("f16", 0.25)
    dst = m.tile("Vec", "f16", M, N)
    m.TMOV(dst, _acc(m, c), quant_reg="scalar")
    np.testing.assert_array_equal(m.read(dst.ptr, M * N).reshape(M, N),
                                  (c / 4).astype(np.float16))


def test_pre_quant_scalar_overload_leaves_quant_pre_set() -> None:
    """TSTORE(dst, src, preQuantScalar) runs set_quant_pre first: the register keeps it."""
    m = ptosim.Machine("a5")
    c = np.full((M, N), 8, np.float32)
    acc = _acc(m, c)
    _, g = _gm(m, "f16")
    m.TSTORE(g, acc, pre_quant_scalar=0x3E800000)          # 0.25
    out, g2 = _gm(m, "f16")
    m.TSTORE(g2, acc, quant_reg="scalar")
    np.testing.assert_array_equal(m.read(out, M * N), np.full(M * N, 2, np.float16))


@pytest.mark.parametrize("target", ["a5", "a2a3"])
def test_tstore_reads_fpc(target: str) -> None:
    m = ptosim.Machine(target=target)
    c = np.random.default_rng(2).integers(-1000, 1000, (M, N)).astype(np.int32)
    scales = (np.arange(N) % 4 + 1).astype(np.float32) / 4
    fp = m.tile("Scaling", "ui64", 1, N, addr=256)
    m.write(fp.ptr, scales.view(np.uint32).astype(np.uint64))
    m.SET_QUANT_VECTOR(fp)
    assert m.regs["fpc"] == ((256 // 128) << 8,)
    out, g = _gm(m, "f16")
    m.TSTORE(g, _acc(m, c), quant_reg="vector")
    want = (c.astype(np.float64) * scales[None, :]).astype(np.float16)
    np.testing.assert_array_equal(m.read(out, M * N).reshape(M, N), want)


def test_quant_reg_equals_the_fp_overload() -> None:
    m = ptosim.Machine("a5")
    c = (np.random.default_rng(5).integers(-99, 99, (M, N)) / 3).astype(np.float32)
    acc = _acc(m, c)
    fp = m.tile("Scaling", "ui64", 1, N)
    m.write(fp.ptr, np.full(N, 0x3F000000, np.uint64))
    a, ga = _gm(m, "f16")
    b, gb = _gm(m, "f16")
    m.TSTORE_FP(ga, acc, fp)
    m.SET_QUANT_VECTOR(fp)
    m.TSTORE(gb, acc, quant_reg="vector")
    np.testing.assert_array_equal(m.read(a, M * N), m.read(b, M * N))


def _rule(m: ptosim.Machine, case: str) -> None:
    acc = _acc(m, np.zeros((M, N), np.float32))
    _, g = _gm(m, "f16")
    if case == "unset_scalar":
        m.TSTORE(g, acc, quant_reg="scalar")
    elif case == "unset_vector":
        m.TSTORE(g, acc, quant_reg="vector")
    elif case == "bad_kind":
        m.SET_QUANT_SCALAR("f16", 1.0)
        m.TSTORE(g, acc, quant_reg="both")
    elif case == "both":
        m.SET_QUANT_SCALAR("f16", 1.0)
        m.TSTORE(g, acc, quant_reg="scalar", pre_quant_scalar=0)
    elif case == "clause_too":
        m.TSTORE(g, acc, quant_reg="scalar", pre_quant=(np.float32(1), "qf322f16_pre_scalar"))
    elif case == "not_acc":
        m.SET_QUANT_SCALAR("f16", 1.0)
        m.TSTORE(g, m.tile("Vec", "f16", M, N), quant_reg="scalar")
    elif case == "negative_scale":
        m.SET_QUANT_SCALAR("f16", -1.0)
        m.TSTORE(g, acc, quant_reg="scalar")
    elif case == "out_dtype":
        m.SET_QUANT_SCALAR("f32x", 1.0)
    elif case == "out_dtype_type":
        m.SET_QUANT_SCALAR(8, 1.0)
    elif case == "scale_type":
        m.SET_QUANT_SCALAR("i8", "0.5")
    elif case == "scale_overflow":
        m.SET_QUANT_SCALAR("i8", 1e39)
    elif case == "fp_space":
        m.SET_QUANT_VECTOR(m.tile("Vec", "f16", M, N))
    elif case == "fp_align":
        m.SET_QUANT_VECTOR(m.tile("Scaling", "ui64", 1, 16, addr=64))


@pytest.mark.parametrize("case,err,msg", [
    ("unset_scalar", VerifyError, r"TSTORE: quant_reg='scalar' reads QUANT_PRE, which no "
     r"SET_QUANT_SCALAR"),
    ("unset_vector", VerifyError, r"TSTORE: quant_reg='vector' reads FPC, which no "
     r"SET_QUANT_VECTOR"),
    ("bad_kind", ptosim.PtoValueError, r"quant_reg must be 'scalar' or 'vector', got 'both'"),
    ("both", PtoTypeError, r"takes pre_quant_scalar or quant_reg, not both"),
    ("clause_too", PtoTypeError, r"takes pre_quant or quant_reg, not both"),
    ("not_acc", ptosim.SpaceError, r"quant_reg applies to an Acc source"),
    ("negative_scale", NotImplementedOpError, r"bits 32-63 of the QUANT_PRE word"),
    ("out_dtype", ptosim.DtypeError, r"SET_QUANT_SCALAR: out_dtype f32x is no output of a "
     r"scalar quantisation on a5"),
    ("out_dtype_type", PtoTypeError, r"out_dtype must be an element type name, got int"),
    ("scale_type", PtoTypeError, r"pre_quant_scalar must be a real number"),
    ("scale_overflow", ptosim.PtoValueError, r"pre_quant_scalar = 1e\+39 overflows f32"),
    ("fp_space", ptosim.SpaceError, r"SET_QUANT_VECTOR: fp must be a Scaling tile \(FB\), "
     r"got Vec"),
    ("fp_align", ptosim.AlignmentError, r"FB address 0x40 is not a multiple of 128 B"),
])
def test_rules(case: str, err: type, msg: str) -> None:
    with pytest.raises(err, match=msg):
        _rule(ptosim.Machine("a5"), case)
