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


def vec(m, name, rows, cols, data=None, valid=None):
    """A Vec tile, holding ``data`` (already of the tile's element type) row-major."""
    t = m.tile("Vec", name, rows, cols, valid=valid)
    if data is not None:
        m.write(t.ptr, np.ascontiguousarray(data).ravel())
    return t


def read(m, t):
    """All rows x cols of tile ``t``, as its element type."""
    return m.read(t.ptr, t.rows * t.cols).reshape(t.rows, t.cols)


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


def tile_buf(dt, rows, cols):
    """A `.pto` Vec ND tile type, fully valid."""
    return (f"!pto.tile_buf<loc=vec, dtype={dt}, rows={rows}, cols={cols}, v_row={rows}, "
            f"v_col={cols}, blayout=row_major, slayout=none_box, fractal=512, pad=0>")


def vec_kernel(body, *, target, params, views, tiles, loads=(), stores=()):
    """A one-function vector kernel around ``body``: GM views (name -> (pointer parameter,
    dtype, rows, cols)), alloc_tile tiles (name -> type), TLOADs (view, tile) before and
    TSTOREs (tile, view) after, each side ordered by a flag pair."""
    lines = ["%c0 = arith.constant 0 : index", "%c1 = arith.constant 1 : index"]
    dims = sorted({n for _, _, r, c in views.values() for n in (r, c)})
    lines += [f"%d{n} = arith.constant {n} : index" for n in dims]
    kinds = {}
    for name, (ptr, dt, r, c) in views.items():
        part = f"!pto.partition_tensor_view<{r}x{c}x{dt}>"
        kinds[name] = part
        lines += [f"%v{name} = pto.make_tensor_view %{ptr}, shape = [%d{r}, %d{c}], strides = "
                  f"[%d{c}, %c1] : !pto.tensor_view<?x?x{dt}>",
                  f"%{name} = pto.partition_view %v{name}, offsets = [%c0, %c0], sizes = "
                  f"[%d{r}, %d{c}] : !pto.tensor_view<?x?x{dt}> -> {part}"]
    lines += [f"%{name} = pto.alloc_tile : {t}" for name, t in tiles.items()]
    lines += [f"pto.tload ins(%{v} : {kinds[v]}) outs(%{t} : {tiles[t]})" for v, t in loads]
    if loads:
        lines += ['pto.set_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]',
                  'pto.wait_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]']
    lines.append(body)
    if stores:
        lines += ['pto.set_flag["PIPE_V", "PIPE_MTE3", "EVENT_ID0"]',
                  'pto.wait_flag["PIPE_V", "PIPE_MTE3", "EVENT_ID0"]']
    lines += [f"pto.tstore ins(%{t} : {tiles[t]}) outs(%{v} : {kinds[v]})" for t, v in stores]
    inner = "\n    ".join(lines)
    return (f'module attributes {{pto.target_arch = "{target}"}} {{\n'
            f"  func.func @k({params}) attributes {{pto.aicore, "
            f"pto.kernel_kind = #pto.kernel_kind<vector>}} {{\n    {inner}\n    return\n  }}\n}}\n")
