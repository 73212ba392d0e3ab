"""TSTORE_FP / TMOV_FP / TEXTRACT_FP / TINSERT_FP: Acc exits with per-channel vector
pre-quantisation from a Scaling tile, against numpy (scale x value, then the cast), and the
mode table's rules per target."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import ptosim

M, N = 32, 64


def _acc(m: ptosim.Machine, c: np.ndarray, dt: str = "f32") -> ptosim.Tile:
    """An Acc tile holding ``c`` (NZ 16 x 16 fractals, written directly)."""
    acc = m.tile("Acc", dt, M, N)
    m.write(acc.ptr, c.reshape(M, N // 16, 16).transpose(1, 0, 2))
    return acc


def _fp(m: ptosim.Machine, scales: np.ndarray) -> ptosim.Tile:
    """A Scaling tile of per-channel quant words: the f32 scale bits in bits [31:0]."""
    fp = m.tile("Scaling", "ui64", 1, N)
    m.write(fp.ptr, np.asarray(scales, np.float32).view(np.uint32).astype(np.uint64))
    return fp


SCALES = (np.arange(N) % 4 + 1).astype(np.float32) / 2      # exact in the 19-bit scale


def _values(seed: int) -> np.ndarray:
    return (np.random.default_rng(seed).integers(-200, 200, (M, N)) / 8).astype(np.float32)


@pytest.mark.parametrize("target", ["a5"])
def test_tstore_fp_f32_to_f16(target: str) -> None:
    m = ptosim.Machine(target=target)
    c = _values(1)
    out = m.gm_empty(M * N, "f16")
    g = m.global_tensor(out, shape=(1, 1, 1, M, N), stride=(0, 0, 0, N, 1))
    m.TSTORE_FP(g, _acc(m, c), _fp(m, SCALES))
    np.testing.assert_array_equal(m.read(out, M * N).reshape(M, N),
                                  (c * SCALES).astype(np.float16))


@pytest.mark.parametrize("target", ["a5", "a2a3"])
def test_tstore_fp_i32_to_f16(target: str) -> None:
    m = ptosim.Machine(target=target)
    c = np.random.default_rng(2).integers(-1000, 1000, (M, N)).astype(np.int32)
    out = m.gm_empty(M * N, "f16")
    g = m.global_tensor(out, shape=(1, 1, 1, M, N), stride=(0, 0, 0, N, 1))
    m.TSTORE_FP(g, _acc(m, c, "i32"), _fp(m, SCALES))
    np.testing.assert_array_equal(m.read(out, M * N).reshape(M, N),
                                  (c * SCALES).astype(np.float16))


def test_tmov_fp_acc_to_vec() -> None:
    m = ptosim.Machine(target="a5")
    c = _values(3)
    vec = m.tile("Vec", "f16", M, N)
    m.TMOV_FP(vec, _acc(m, c), _fp(m, SCALES))
    np.testing.assert_array_equal(m.read(vec.ptr, M * N).reshape(M, N),
                                  (c * SCALES).astype(np.float16))


def test_textract_and_tinsert_fp_windows() -> None:
    m = ptosim.Machine(target="a5")
    c = _values(4)
    acc = _acc(m, c)
    fp = _fp(m, SCALES)
    win = m.tile("Vec", "bf16", 16, N)
    m.TEXTRACT_FP(win, acc, fp, 16, 0)
    want = (c * SCALES).astype(ml_dtypes.bfloat16)
    np.testing.assert_array_equal(m.read(win.ptr, 16 * N).reshape(16, N).view(np.uint16),
                                  want[16:].view(np.uint16))
    big = m.tile("Vec", "f16", 64, N)
    m.write(big.ptr, np.zeros(64 * N, np.float16))
    m.TINSERT_FP(big, acc, fp, 16, 0)
    got = m.read(big.ptr, 64 * N).reshape(64, N)
    np.testing.assert_array_equal(got[16:48], (c * SCALES).astype(np.float16))
    assert (got[:16] == 0).all() and (got[48:] == 0).all()


def test_rules() -> None:
    m = ptosim.Machine(target="a5")
    c = _values(5)
    acc = _acc(m, c)
    out = m.gm_empty(M * N, "i16")
    g = m.global_tensor(out, shape=(1, 1, 1, M, N), stride=(0, 0, 0, N, 1))
    with pytest.raises(ptosim.DtypeError, match="TSTORE_FP: no vector quantisation for f32 -> "
                                                "i16 on a5"):
        m.TSTORE_FP(g, acc, _fp(m, SCALES))
    vec = m.tile("Vec", "f16", M, N)
    with pytest.raises(ptosim.SpaceError, match="TMOV_FP: fp must be a Scaling tile \\(FB\\), "
                                                "got Vec"):
        m.TMOV_FP(vec, acc, vec)
    with pytest.raises(ptosim.SpaceError, match="TMOV_FP: src must be an Acc tile, got Vec"):
        m.TMOV_FP(vec, vec, _fp(m, SCALES))
    with pytest.raises(ptosim.PtoTypeError, match="TSTORE_FP: dst must be a GlobalTensor"):
        m.TSTORE_FP(vec, acc, _fp(m, SCALES))
    a2 = ptosim.Machine(target="a2a3")
    f16 = a2.gm_empty(M * N, "f16")
    g2 = a2.global_tensor(f16, shape=(1, 1, 1, M, N), stride=(0, 0, 0, N, 1))
    with pytest.raises(ptosim.DtypeError, match="TSTORE_FP: no vector quantisation for f32 -> "
                                                "f16 on a2a3"):
        a2.TSTORE_FP(g2, _acc(a2, c), _fp(a2, SCALES))
