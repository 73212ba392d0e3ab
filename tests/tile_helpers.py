"""Shared pieces of the tile-level tests: numpy carriers and the TLOAD -> TMOV -> TMATMUL
pipeline of the reference suites (docs/research/tile-level.md §5.6)."""

import ml_dtypes
import numpy as np

NP = {"f32": np.float32, "f16": np.float16, "bf16": ml_dtypes.bfloat16, "i16": np.int16,
      "ui16": np.uint16, "ui8": np.uint8, "i8": np.int8, "i32": np.int32, "i64": np.int64,
      "ui64": np.uint64, "f8E4M3FN": ml_dtypes.float8_e4m3fn, "f8E5M2": ml_dtypes.float8_e5m2}


SENTINEL = 0x5A     # the byte a blank tile holds: bytes an op must not write keep it


def put(m, t, a):
    """Write ``a`` into tile ``t`` (converted to its element type), row-major."""
    m.write(t.ptr, np.ascontiguousarray(a, dtype=t.dtype.np).ravel())


def blank(m, name, rows, cols, valid=None):
    """A Vec tile filled with SENTINEL bytes."""
    t = m.tile("Vec", name, rows, cols, valid=valid)
    m.write(t.ptr.cast("ui8"), np.full(t.nbytes, SENTINEL, np.uint8))
    return t


def al(x, a):
    return -(-x // a) * a


def load_nz(m, a, rows, cols, name, padded_rows):
    g = m.global_tensor(m.gm(a), shape=(1, 1, 1, rows, cols), stride=(0, 0, 0, cols, 1))
    t = m.tile("Mat", name, padded_rows, al(cols, max(16, 32 // np.dtype(NP[name]).itemsize)),
               blayout="ColMajor", slayout="RowMajor", valid=(rows, cols))
    m.TLOAD(t, g)
    return t


def run_matmul(m, name, acc, M, K, N, bias_name=None, window=None):
    """5.6 / 5.4 pipeline: ND->NZ Mat tiles, TMOV (or TEXTRACT windows) to Left/Right,
    TMATMUL[_BIAS], TSTORE of the accumulator."""
    accum, want = matmul_to_acc(m, name, acc, M, K, N, bias_name, window)
    m_, n_ = accum.valid
    out = m.gm_empty(m_ * n_, acc)
    m.TSTORE(m.global_tensor(out, shape=(1, 1, 1, m_, n_), stride=(0, 0, 0, n_, 1)), accum)
    return m.read(out, m_ * n_).reshape(m_, n_), want


def matmul_to_acc(m, name, acc, M, K, N, bias_name=None, window=None):
    """The pipeline up to TMATMUL: the Acc tile and the float64 product it holds."""
    es = np.dtype(NP[name]).itemsize
    c0, blk = 32 // es, max(16, 32 // es)
    rng = np.random.default_rng(M * 7 + K)
    a = rng.integers(-3, 4, (M, K)).astype(NP[name])
    b = rng.integers(-3, 4, (K, N)).astype(NP[name])
    Kp = al(K, blk)
    ma = load_nz(m, a, M, K, name, al(M, 16))
    mb = load_nz(m, b, K, N, name, Kp)
    sm, sn, sk = window or (0, 0, 0)
    m_, n_, k_ = M - sm, N - sn, K - sk
    lc = al(k_, c0) if m.target.name == "a2a3" else al(k_, blk)
    left = m.tile("Left", name, al(m_, 16), lc, valid=(m_, k_))
    right = m.tile("Right", name, lc, al(n_, 16), valid=(k_, n_))
    accum = m.tile("Acc", acc, al(m_, 16), al(n_, 16), valid=(m_, n_))
    if window is None:
        if (left.rows, left.cols) == (ma.rows, ma.cols):
            m.TMOV(left, ma)
        else:
            m.TEXTRACT(left, ma, 0, 0)
        m.TEXTRACT(right, mb, 0, 0) if right.rows != mb.rows or right.cols != mb.cols \
            else m.TMOV(right, mb)
    else:
        m.TEXTRACT(left, ma, sm, sk)
        m.TEXTRACT(right, mb, sk, sn)
    want = a[sm:, sk:].astype(np.float64) @ b[sk:, sn:].astype(np.float64)
    if bias_name is None:
        m.TMATMUL(accum, left, right)
    else:
        bias = (np.arange(n_) % 5).astype(NP[bias_name])
        gb = m.global_tensor(m.gm(bias), shape=(1, 1, 1, 1, n_), stride=(0, 0, 0, n_, 1))
        mbias = m.tile("Mat", bias_name, 1, al(n_, 32 // bias.itemsize), valid=(1, n_))
        m.TLOAD(mbias, gb)
        tb = m.tile("Bias", acc, 1, al(n_, 16))
        m.TMOV(tb, mbias)
        m.TMATMUL_BIAS(accum, left, right, tb)
        want = want + bias.astype(np.float64)
    return accum, want
