"""The bundled demo kernel: a matrix through every DMA path and a cube matmul, checked.

GM --mte_gm_l1_frac--> L1 (NZ)      the cube's operand staging (seed kernel case)
GM --mte_gm_ub (pad)--> UB          a vector tile with padded rows
UB --mte_ub_l1--------> L1 (NZ)     vector -> cube, one burst group per column block
L1 --mte_l1_ub--------> UB          cube -> vector
UB --mte_ub_gm--------> GM          de-padded store back to GM
L1 -> L0A/L0B -> mad -> L0C -> FIXPIPE (mte_l0c_gm, mte_l0c_ub split_m)   a 40x50x60 matmul
Every result is compared with a golden built with numpy reshape/transpose.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .api import Machine
from .layout import tile_layout

ROWS, COLS = 40, 50          # logical f16 matrix, deliberately not a multiple of 16
C0 = 16                      # f16 elements per 32 B block
RPAD = 48                    # rows padded to the fractal height
CPAD = 64                    # columns padded to whole C0 blocks


def _nz_golden(a: np.ndarray) -> np.ndarray:
    """NZ image [C1][RPAD][C0] of ``a`` with zero tail lanes, via numpy reshape/transpose."""
    padded = np.zeros((RPAD, CPAD), a.dtype)
    padded[:ROWS, :COLS] = a
    return padded.reshape(RPAD, CPAD // C0, C0).transpose(1, 0, 2)


def run(say: Callable[[str], None] = print) -> bool:
    """Run the demo; print one line per step and return True when every check passes."""
    m = Machine(target="a5")
    a = (np.arange(ROWS * COLS) % 251).astype(np.float16).reshape(ROWS, COLS)
    ok = True

    def check(label: str, got: np.ndarray, want: np.ndarray) -> None:
        nonlocal ok
        same = got.shape == want.shape and np.array_equal(got, want)
        ok &= same
        say(f"  {'ok ' if same else 'BAD'} {label}")

    say(f"ptosim demo on target {m.target.name}: a {ROWS}x{COLS} f16 matrix through every "
        f"DMA path and the cube")
    src = m.gm(a)
    l1 = m.ptr("l1", "f16", 0)
    m.mte_gm_l1_frac(src, l1, "nd2nz", shape=(ROWS, COLS), src_layout=(COLS * 2,),
                     dst_group=(1, 1, RPAD, 0), ctrl=(0, False))
    nz = m.read(l1, CPAD * RPAD).reshape(CPAD // C0, RPAD, C0)
    check("mte_gm_l1_frac nd2nz: L1 holds the NZ image (tail lanes 50..63 zeroed)",
          nz[:, :ROWS], _nz_golden(a)[:, :ROWS])

    ub = m.ptr("ub", "f16", 0)
    m.mte_gm_ub(src, ub, 0, COLS * 2, nburst=(ROWS, COLS * 2, CPAD * 2), pad=(0.0,))
    want = np.zeros((ROWS, CPAD), np.float16)
    want[:, :COLS] = a
    check("mte_gm_ub with pad(0): UB rows of 64 f16, zero-padded",
          m.read(ub, ROWS * CPAD).reshape(ROWS, CPAD), want)

    l1b = m.ptr("l1", "f16", 16 * 1024)
    for cb in range(CPAD // C0):       # one group of ROWS 32 B bursts per column block
        m.mte_ub_l1(ub + cb * C0, l1b + cb * RPAD * C0, 1, nburst=(ROWS, CPAD // C0 - 1, 0))
    nz_b = m.read(l1b, CPAD * RPAD).reshape(CPAD // C0, RPAD, C0)
    check("mte_ub_l1 bursts: the vector tile lands in L1 as the same NZ image",
          nz_b[:, :ROWS], nz[:, :ROWS])

    ub1 = m.ptr("ub", "f16", 64 * 1024)
    m.mte_l1_ub(l1b, ub1, RPAD * CPAD // C0, nburst=(1, 0, 0))
    check("mte_l1_ub: the NZ tile comes back to the vector side byte for byte",
          m.read(ub1, CPAD * RPAD).reshape(CPAD // C0, RPAD, C0)[:, :ROWS], nz[:, :ROWS])

    out = m.gm_empty(ROWS * COLS, "f16")
    m.mte_ub_gm(ub, out, COLS * 2, nburst=(ROWS, CPAD * 2, COLS * 2))
    check("mte_ub_gm: de-padded rows back in GM equal the input",
          m.read(out, ROWS * COLS).reshape(ROWS, COLS), a)

    b = (np.arange(COLS * 60) % 7 - 3).astype(np.float16).reshape(COLS, 60)
    l1_b = m.ptr("l1", "f16", 32 * 1024)
    m.mte_gm_l1_frac(m.gm(b), l1_b, "nd2nz", shape=(COLS, 60), src_layout=(120,),
                     dst_group=(1, 1, CPAD, 0))
    l0a, l0b, l0c = m.ptr("l0a", "f16", 0), m.ptr("l0b", "f16", 0), m.ptr("l0c", "f32", 0)
    m.mte_l1_l0a(l1, l0a, ROWS, COLS)
    m.mte_l1_l0b(l1_b, l0b, COLS, 60, transpose=True)
    m.mad(l0a, l0b, l0c, ROWS, 60, COLS)
    golden = a.astype(np.float32) @ b.astype(np.float32)
    c_gm = m.gm_empty(ROWS * 60, "f32")
    m.mte_l0c_gm(l0c, c_gm, ROWS, 60, RPAD, 60, 0, 0, layout="nz2nd")
    check("mte_l1_l0a/l0b + mad + mte_l0c_gm: C = A.B in GM equals numpy matmul",
          m.read(c_gm, ROWS * 60).reshape(ROWS, 60), golden)
    m.mte_l0c_ub(l0c, m.ptr("ub", "f32", 128 * 1024), ROWS, 60, RPAD, 64, dst_mode="split_m")
    halves = [m.read(m.ptr("ub", "f32", 128 * 1024, subblock=sb), ROWS // 2 * 64)
              .reshape(ROWS // 2, 64)[:, :60] for sb in (0, 1)]
    check("mte_l0c_ub split_m: rows 0..19 in AIV0's UB, rows 20..39 in AIV1's",
          np.vstack(halves), golden)

    nz_map = tile_layout("NZ", RPAD, CPAD, "f16").offsets()
    say(f"Where elements of the matrix live in L1 (NZ tile {RPAD}x{CPAD} f16, byte offsets):")
    say("  " + "  ".join(f"A[{r},{c}] -> {nz_map[r, c] * 2}"
                         for r, c in ((0, 0), (0, 15), (0, 16), (1, 0), (39, 49))))
    say("PASS" if ok else "FAIL")
    return ok
