"""The Python face of a5's cube <-> vector tile pipes: m.TPipe / TPUSH / TPOP / TFREE.

One program plays the AIC and both AIVs in order: the cube multiplies and pushes, the
vector cores pop, double and store (C2V); the vector cores push NZ halves of X and the
cube pops and multiplies (V2C). Goldens: numpy float64 products of the row blocks."""

from __future__ import annotations

import numpy as np
import pytest

import ptosim
from ptosim.errors import (
    DeadlockError,
    NotImplementedOpError,
    PtoError,
    PtoTypeError,
    PtoValueError,
    SpaceError,
    VerifyError,
)
from ptosim.interp.pipes import PipeError

SPLIT_NAMES = ("TILE_NO_SPLIT", "TILE_UP_DOWN", "TILE_LEFT_RIGHT")
UB_FIFO, L1_FIFO = 128 * 1024, 256 * 1024     # consumer buffers, clear of automatic tiles


def shapes(split: int) -> tuple[int, int, int]:
    """M, K, N as the .pto split tests use them: split 1 halves M, split 2 halves K (V2C)
    and N (C2V; a5's split N needs 32 columns per half... of f32: valid cols % 32)."""
    return {0: (16, 16, 16), 1: (32, 16, 16), 2: (16, 32, 32)}[split]


def half(rows: int, cols: int, split: int) -> tuple[int, int]:
    return (rows // 2, cols) if split == 1 else (rows, cols // 2) if split == 2 else (rows, cols)


def gtensor(m: ptosim.Machine, ptr: object, rows: int, cols: int, stride: int) -> object:
    return m.global_tensor(ptr, shape=(1, 1, 1, rows, cols), stride=(0, 0, 0, stride, 1))


def golden(x: np.ndarray, b: np.ndarray, rows: int, factor: float) -> np.ndarray:
    """Block i of ``rows`` rows of X times B, in float64 with einsum, stacked again."""
    blocks = [np.einsum("ik,kj->ij", x[i:i + rows].astype(np.float64), b.astype(np.float64))
              for i in range(0, x.shape[0], rows)]
    return (factor * np.concatenate(blocks)).astype(np.float32)


def pipes(m: ptosim.Machine, split: int, slot_num: int, slot: int, direction: str,
          aivs: tuple[int, ...]) -> tuple[object, list[object]]:
    """The cube's TPipe and each used AIV's, as every core constructs its own."""
    kw = {"c2v_consumer_buf": UB_FIFO, "v2c_consumer_buf": L1_FIFO, "nosplit": split == 0}
    cube = m.TPipe(0, direction, slot, slot_num, core="cube", **kw)
    vec = [m.TPipe(0, direction, slot, slot_num, core="vector", subblock=s, **kw)
           for s in aivs]
    return cube, vec


def cube_matmul(m: ptosim.Machine, x_tile: object, right: object, acc: object) -> None:
    left = m.tile("Left", "f32", x_tile.rows, x_tile.cols)
    m.TMOV(left, x_tile)
    m.TMATMUL(acc, left, right)


def load_right(m: ptosim.Machine, b: np.ndarray) -> object:
    k, n = b.shape
    mb = m.tile("Mat", "f32", k, n, blayout="ColMajor", slayout="RowMajor")
    m.TLOAD(mb, gtensor(m, m.gm(b), k, n, n))
    right = m.tile("Right", "f32", k, n)
    m.TMOV(right, mb)
    return right


def run_c2v(split: int, n: int, slot_num: int, ahead: int = 1, seed: int = 0
            ) -> tuple[np.ndarray, np.ndarray]:
    """Cube: acc = X_i @ B, TPUSH. Each AIV: TPOP its part, TADD it to itself, TSTORE,
    TFREE. ``ahead``: tiles the cube pushes before the vector cores catch up."""
    mm, k, nn = shapes(split)
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n * mm, k)).astype(np.float32)
    b = rng.standard_normal((k, nn)).astype(np.float32)
    m = ptosim.Machine(target="a5")
    aivs = (0, 1) if split else (0,)
    cube, vec = pipes(m, split, slot_num, mm * nn * 4, "DIR_C2V", aivs)
    right = load_right(m, b)
    gx, out = m.gm(x), m.gm_empty(n * mm * nn, "f32")
    xm = m.tile("Mat", "f32", mm, k, blayout="ColMajor", slayout="RowMajor")
    acc = m.tile("Acc", "f32", mm, nn)
    yr, yc = half(mm, nn, split)
    pushed = popped = 0
    while popped < n:
        while pushed < n and pushed - popped < ahead:
            m.TLOAD(xm, gtensor(m, gx + pushed * mm * k, mm, k, k))
            cube_matmul(m, xm, right, acc)
            m.TPUSH(cube, acc, split=SPLIT_NAMES[split])
            pushed += 1
        for s, pipe in zip(aivs, vec):
            y = m.TPOP(pipe, m.tile("Vec", "f32", yr, yc, subblock=s),
                       split=SPLIT_NAMES[split])
            r = m.tile("Vec", "f32", yr, yc, subblock=s)
            m.TADD(r, y, y)
            row = popped * mm + (s * yr if split == 1 else 0)
            col = s * yc if split == 2 else 0
            m.TSTORE(gtensor(m, out + row * nn + col, yr, yc, nn), r)
            m.TFREE(pipe, split=SPLIT_NAMES[split])
        popped += 1
    got = m.read(out, n * mm * nn).reshape(n * mm, nn)
    return got, golden(x, b, mm, 2.0)


def run_v2c(split: int, n: int, slot_num: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Each AIV: TLOAD its part of X_i (ND), TMOV to NZ, TPUSH. Cube: TPOP the whole NZ
    X_i into a Mat tile, TMOV to Left, TMATMUL with B, TSTORE, TFREE."""
    mm, k, nn = shapes(split)
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n * mm, k)).astype(np.float32)
    b = rng.standard_normal((k, nn)).astype(np.float32)
    m = ptosim.Machine(target="a5")
    aivs = (0, 1) if split else (0,)
    cube, vec = pipes(m, split, slot_num, mm * k * 4, "DIR_V2C", aivs)
    right = load_right(m, b)
    gx, out = m.gm(x), m.gm_empty(n * mm * nn, "f32")
    xr, xc = half(mm, k, split)
    acc = m.tile("Acc", "f32", mm, nn)
    for i in range(n):
        for s, pipe in zip(aivs, vec):
            nd = m.tile("Vec", "f32", xr, xc, subblock=s)
            row = i * mm + (s * xr if split == 1 else 0)
            col = s * xc if split == 2 else 0
            m.TLOAD(nd, gtensor(m, gx + row * k + col, xr, xc, k))
            nz = m.tile("Vec", "f32", xr, xc, blayout="ColMajor", slayout="RowMajor",
                        subblock=s)
            m.TMOV(nz, nd)
            m.TPUSH(pipe, nz, split=SPLIT_NAMES[split])
        xm = m.TPOP(cube, m.tile("Mat", "f32", mm, k, blayout="ColMajor",
                                 slayout="RowMajor"), split=SPLIT_NAMES[split])
        cube_matmul(m, xm, right, acc)
        m.TSTORE(gtensor(m, out + i * mm * nn, mm, nn, nn), acc)
        m.TFREE(cube, split=SPLIT_NAMES[split])
    got = m.read(out, n * mm * nn).reshape(n * mm, nn)
    return got, golden(x, b, mm, 1.0)


CASES = [(split, n, slot_num) for split in (0, 1, 2) for n, slot_num in ((1, 1), (2, 2), (4, 4))]


@pytest.mark.parametrize(("split", "n", "slot_num"), CASES)
def test_cube_pushes_matmul_vector_pops_adds_stores(split: int, n: int, slot_num: int) -> None:
    got, want = run_c2v(split, n, slot_num)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize(("split", "slot_num"), [(0, 2), (1, 4), (2, 4)])
def test_cube_runs_ahead_by_the_slot_count(split: int, slot_num: int) -> None:
    got, want = run_c2v(split, 4, slot_num, ahead=slot_num)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize(("split", "n", "slot_num"), CASES)
def test_vector_pushes_nz_cube_pops_and_multiplies(split: int, n: int, slot_num: int) -> None:
    got, want = run_v2c(split, n, slot_num)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4)


def test_worked_example_one_tile_exact() -> None:
    """Integers small enough that f32 is exact: acc = A @ I * 3 pops back as A * 3 * 2."""
    m = ptosim.Machine(target="a5")
    a = (np.arange(256, dtype=np.float32) % 7).reshape(16, 16)
    b = 3 * np.eye(16, dtype=np.float32)
    cube, (aiv0,) = pipes(m, 0, 2, 1024, "DIR_C2V", (0,))
    xm = m.tile("Mat", "f32", 16, 16, blayout="ColMajor", slayout="RowMajor")
    m.TLOAD(xm, gtensor(m, m.gm(a), 16, 16, 16))
    acc = m.tile("Acc", "f32", 16, 16)
    cube_matmul(m, xm, load_right(m, b), acc)
    m.TPUSH(cube, acc, split="TILE_NO_SPLIT")
    y = m.TPOP(aiv0, m.tile("Vec", "f32", 16, 16), split=0)
    assert y.ptr.offset == UB_FIFO and y.ptr.sub == 0          # bound to slot 0
    np.testing.assert_array_equal(m.read(y.ptr, 256).reshape(16, 16), a * 3)


# --- protocol: flags, slots, deadlocks ----------------------------------------------------

def _c2v_pair(m: ptosim.Machine, slot_num: int = 2, **kw: object) -> tuple[object, object]:
    args = {"c2v_consumer_buf": UB_FIFO, "nosplit": True, **kw}
    return (m.TPipe(0, "DIR_C2V", 1024, slot_num, core="cube", **args),
            m.TPipe(0, "DIR_C2V", 1024, slot_num, core="vector", **args))


def test_pop_never_served_is_a_deadlock_naming_the_op() -> None:
    m = ptosim.Machine(target="a5")
    _, aiv0 = _c2v_pair(m)
    with pytest.raises(DeadlockError, match=r"^TPOP: deadlock: block0\.aiv0 waits for "
                       r"semaphore block0 aic->aiv0 #0 \(count 0\).*the producer's TPUSH "
                       r"must come first"):
        m.TPOP(aiv0, m.tile("Vec", "f32", 16, 16), split=0)


def test_pop_on_a_pipe_no_cube_constructed_deadlocks_too() -> None:
    m = ptosim.Machine(target="a5")
    aiv1 = m.TPipe(2, "DIR_C2V", 1024, 2, c2v_consumer_buf=UB_FIFO, core="vector",
                   subblock=1)
    with pytest.raises(DeadlockError, match=r"block0\.aiv1 waits for semaphore block0 "
                       r"aic->aiv1 #2"):
        m.TPOP(aiv1, m.tile("Vec", "f32", 8, 16, subblock=1), split=1)


def test_push_past_the_free_credits_deadlocks_naming_tpush() -> None:
    """slot_num 1: the constructor's one credit lets the second push through; the third
    needs a TFREE that never came (a5's sparse waits, TPush.hpp shouldWaitFree)."""
    m = ptosim.Machine(target="a5")
    cube, _ = _c2v_pair(m, slot_num=1)
    acc = m.tile("Acc", "f32", 16, 16)
    m.TPUSH(cube, acc, split=0)
    with pytest.warns(ptosim.PtoWarning, match=r"^TPUSH: tile 1 overwrites slot 0"):
        m.TPUSH(cube, acc, split=0)
    with pytest.raises(DeadlockError, match=r"^TPUSH: deadlock: block0\.aic waits for "
                       r"semaphore block0 aiv0->aic #1 \(count 0\).*the consumer's TFREE"):
        m.TPUSH(cube, acc, split=0)


def test_free_signals_only_every_sync_period() -> None:
    """slot_num 4: SyncPeriod 2; the constructor frees twice, TFREE after tiles 2, 4."""
    m = ptosim.Machine(target="a5")
    cube, aiv0 = _c2v_pair(m, slot_num=4)
    sync = m.__dict__["_pipe_sync"]
    free = (0, "v2c", 0, 1)                 # AIV0 -> AIC flag 1: slot free
    assert sync.count[free] == 2
    acc = m.tile("Acc", "f32", 16, 16)
    counts = []
    for _ in range(4):
        m.TPUSH(cube, acc, split=0)
        m.TPOP(aiv0, m.tile("Vec", "f32", 16, 16), split=0)
        m.TFREE(aiv0, split=0)
        counts.append(sync.count[free])
    # push 4 (index 4 >= slot_num, 4 % 2 == 0) is the first to wait; none has yet
    assert counts == [2, 3, 3, 4]


def test_both_directions_use_flag_plus_two_and_three() -> None:
    m = ptosim.Machine(target="a5")
    kw = {"c2v_consumer_buf": UB_FIFO, "v2c_consumer_buf": L1_FIFO, "nosplit": True}
    cube = m.TPipe(4, "DIR_BOTH", 1024, 2, core="cube", **kw)
    aiv0 = m.TPipe(4, "DIR_BOTH", 1024, 2, core="vector", **kw)
    sync = m.__dict__["_pipe_sync"]
    # constructors: AIV0 frees C2V (flag 5, twice), the cube frees V2C (flag 7, twice)
    assert sync.count[(0, "v2c", 0, 5)] == 2 and sync.count[(0, "c2v", 0, 7)] == 2
    nz = m.tile("Vec", "f32", 16, 16, blayout="ColMajor", slayout="RowMajor")
    m.TPUSH(aiv0, nz, split=0)
    assert sync.count[(0, "v2c", 0, 6)] == 1          # V2C data ready: flag + 2
    m.TPOP(cube, m.tile("Mat", "f32", 16, 16, blayout="ColMajor", slayout="RowMajor"),
           split=0)
    m.TPUSH(cube, m.tile("Acc", "f32", 16, 16), split=0)
    assert sync.count[(0, "c2v", 0, 4)] == 1          # C2V data ready: flag
    y = m.TPOP(aiv0, m.tile("Vec", "f32", 16, 16), split=0)
    assert y.ptr.offset == UB_FIFO


# --- rules ----------------------------------------------------------------------------------

def _rule(fn, error: type[PtoError], message: str) -> None:
    with pytest.raises(error, match=message):
        fn()


def test_a2a3_gm_fifo_is_not_implemented() -> None:
    m = ptosim.Machine(target="a2a3")
    _rule(lambda: m.TPipe(0, "DIR_C2V", 1024, 2, c2v_consumer_buf=0, core="cube"),
          NotImplementedOpError, r"^TPipe: TPipe on a2a3: ptosim runs the a5 pipes .*"
          r"a2a3's GM FIFO pipes are not implemented yet")
    _rule(lambda: m.TPOP(None, m.tile("Vec", "f32", 16, 16), split=0),
          NotImplementedOpError, r"^TPOP: TPOP on a2a3")


@pytest.mark.parametrize(("kwargs", "error", "message"), [
    ({"dir_type": "DIR_C2V_GM"}, NotImplementedOpError,
     r"dir_type 'DIR_C2V_GM' \(the control FIFO and the GM FIFO pipes\) is not implemented"),
    ({"dir_type": 4}, NotImplementedOpError, r"dir_type 4 .*not implemented"),
    ({"dir_type": "C2V"}, PtoValueError, r"dir_type must be one of DIR_C2V, DIR_V2C, DIR_BOTH"),
    ({"gm_slot_buffer": 0x1000}, NotImplementedOpError, r"GM slot buffers .*not implemented"),
    ({"flag_id": 15}, PtoValueError, r"flag_id 15 uses flags 15\.\.16; they must lie in 0\.\.15"),
    ({"flag_id": 13, "dir_type": "DIR_BOTH", "v2c_consumer_buf": 0}, PtoValueError,
     r"flag_id 13 uses flags 13\.\.16"),
    ({"flag_id": True}, PtoTypeError, r"flag_id must be an int"),
    ({"slot_num": 0}, PtoValueError, r"slot_size must be positive and slot_num at least 1"),
    ({"slot_size": -32}, PtoValueError, r"slot_size must be positive"),
    ({"local_slot_num": 0}, PtoValueError, r"local_slot_num must be at least 1"),
    ({"nosplit": 1}, PtoTypeError, r"nosplit must be a bool"),
    ({"core": "aiv0"}, PtoValueError, r"core must be 'cube' or 'vector'"),
    ({"core": "cube", "subblock": 1}, PtoValueError, r"subblock selects AIV0 or AIV1"),
    ({"subblock": 2}, PtoValueError, r"subblock selects AIV0 or AIV1"),
    ({"c2v_consumer_buf": None}, PtoValueError,
     r"dir_type 1 needs c2v_consumer_buf, the slots' address in the consumer's UB"),
    ({"dir_type": "DIR_V2C"}, PtoValueError, r"dir_type 2 needs v2c_consumer_buf"),
    ({"c2v_consumer_buf": 16}, PtoValueError, r"2 slots of 4096 B at byte 16 must be 32 B aligned and fit the 262144 B UB"),
    ({"c2v_consumer_buf": 250 * 1024}, PtoValueError, r"2 slots of 4096 B at byte 256000"),
])
def test_tpipe_rules(kwargs: dict, error: type[PtoError], message: str) -> None:
    m = ptosim.Machine(target="a5")
    args = {"flag_id": 0, "dir_type": "DIR_C2V", "slot_size": 4096, "slot_num": 2,
            "c2v_consumer_buf": 0, "core": "vector", **kwargs}
    _rule(lambda: m.TPipe(**args), error, r"^TPipe: " + message)


def test_tile_role_rules() -> None:
    m = ptosim.Machine(target="a5")
    cube, aiv0 = _c2v_pair(m)
    mat = m.tile("Mat", "f32", 16, 16, blayout="ColMajor", slayout="RowMajor")
    _rule(lambda: m.TPUSH(cube, mat, split=0), SpaceError,
          r"^TPUSH: TPUSH pushes an Acc tile \(C2V, on the cube\) or a Vec tile \(V2C, on a "
          r"vector core\), got a Mat tile")
    _rule(lambda: m.TPOP(aiv0, m.tile("Left", "f32", 16, 16), split=0), SpaceError,
          r"^TPOP: TPOP pops into a Vec tile .* got a Left tile")
    acc = m.tile("Acc", "f32", 16, 16)
    _rule(lambda: m.TPUSH(aiv0, acc, split=0), PipeError,
          r"^TPUSH: a push of an Acc tile \(C2V\) runs on the cube core; this TPipe is "
          r"block0\.aiv0's")
    _rule(lambda: m.TPOP(cube, m.tile("Vec", "f32", 16, 16), split=0), PipeError,
          r"^TPOP: a pop into a Vec tile \(C2V\) runs on the vector cores; this TPipe is "
          r"block0\.aic's")
    _rule(lambda: m.TPUSH(cube, "acc", split=0), PtoTypeError, r"^TPUSH: tile must be a Tile")
    _rule(lambda: m.TPOP(object(), acc, split=0), PtoTypeError,
          r"^TPOP: pipe must be a TPipe made by m\.TPipe\(\.\.\.\), got object")
    _rule(lambda: m.TFREE(None, split=0), PtoTypeError, r"^TFREE: pipe must be a TPipe")


def test_direction_split_and_slot_rules() -> None:
    m = ptosim.Machine(target="a5")
    cube, aiv0 = _c2v_pair(m)
    nz = m.tile("Vec", "f32", 16, 16, blayout="ColMajor", slayout="RowMajor")
    _rule(lambda: m.TPUSH(aiv0, nz, split=0), PipeError,
          r"^TPUSH: the pipe \(flag_id 0\) has dir_type 1, which has no V2C direction")
    acc = m.tile("Acc", "f32", 16, 16)
    _rule(lambda: m.TPUSH(cube, acc, split="TILE_UP_DOWN"), PipeError,
          r"^TPUSH: split = 1 on a nosplit pipe \(id 0\): a pipe's ops are all split = 0 "
          r"or all split")
    _rule(lambda: m.TPUSH(cube, acc, split="UP_DOWN"), PtoValueError,
          r"^TPUSH: split must be one of TILE_NO_SPLIT, TILE_UP_DOWN, TILE_LEFT_RIGHT")
    big = m.tile("Acc", "f32", 32, 16)
    _rule(lambda: m.TPUSH(cube, big, split=0), PipeError,
          r"^TPUSH: a 32x16 f32 tile \(2048 B\) does not fit the pipe's 1024 B slot")
    m.TPUSH(cube, acc, split=0)
    _rule(lambda: m.TPOP(aiv0, m.tile("Vec", "f32", 16, 32), split=0), PipeError,
          r"^TPOP: a 16x32 f32 tile \(2048 B\) does not fit")
    _rule(lambda: m.TFREE(aiv0, split=0), PipeError,
          r"^TFREE: nothing popped from the pipe \(flag_id 0\) on block0\.aiv0 yet")
    _rule(lambda: m.TFREE(cube, split=0), PipeError,
          r"^TFREE: the pipe \(flag_id 0\) has dir_type 1, which has no V2C direction")


def test_split_pipe_refuses_split_zero() -> None:
    m = ptosim.Machine(target="a5")
    cube = m.TPipe(0, "DIR_C2V", 1024, 2, c2v_consumer_buf=UB_FIFO, core="cube")
    _rule(lambda: m.TPUSH(cube, m.tile("Acc", "f32", 16, 16), split=0), PipeError,
          r"^TPUSH: split = 0 on a split pipe")


def test_v2c_layout_and_subblock_rules() -> None:
    m = ptosim.Machine(target="a5")
    kw = {"v2c_consumer_buf": L1_FIFO, "nosplit": False}
    aiv1 = m.TPipe(0, "DIR_V2C", 2048, 2, core="vector", subblock=1, **kw)
    zn = m.tile("Vec", "f32", 16, 16, blayout="RowMajor", slayout="ColMajor", subblock=1)
    _rule(lambda: m.TPUSH(aiv1, zn, split=1), NotImplementedOpError,
          r"^TPUSH: TPUSH of a ZN Vec tile: a5's copy of its bytes into the L1 slot is not "
          r"modelled; push an NZ tile")
    nz0 = m.tile("Vec", "f32", 16, 16, blayout="ColMajor", slayout="RowMajor")
    _rule(lambda: m.TPUSH(aiv1, nz0, split=1), PipeError,
          r"^TPUSH: the Vec tile lies in AIV0's UB; this TPipe is block0\.aiv1's")
    cube = m.TPipe(0, "DIR_V2C", 2048, 2, core="cube", **kw)
    _rule(lambda: m.TPOP(cube, m.tile("Vec", "f32", 16, 16), split=1), PipeError,
          r"^TPOP: a pop into a Vec tile \(C2V\) runs on the vector cores")


def test_split_halves_follow_fixpipe_rules() -> None:
    """The manual's a5 split rules for C2V (split M: even valid rows; split N: valid cols
    % 32) are the FIXPIPE's (TMOV's DualModeSplitM / N), reported under TMOV."""
    m = ptosim.Machine(target="a5")
    cube = m.TPipe(0, "DIR_C2V", 1024, 2, c2v_consumer_buf=UB_FIFO, core="cube")
    _rule(lambda: m.TPUSH(cube, m.tile("Acc", "f32", 16, 16), split="TILE_LEFT_RIGHT"),
          VerifyError, r"^TMOV: split_n needs n % 32 == 0, got 16")
    _rule(lambda: m.TPUSH(cube, m.tile("Acc", "f32", 16, 16, valid=(15, 16)),
                          split="TILE_UP_DOWN"),
          VerifyError, r"^TMOV: split_m needs an even m, got 15")


def test_tpipe_repr_and_properties() -> None:
    m = ptosim.Machine(target="a5")
    cube, _ = _c2v_pair(m, slot_num=4)
    assert (cube.flag_id, cube.dir_type, cube.slot_size, cube.slot_num, cube.nosplit) == \
        (0, 1, 1024, 4, True)
    assert repr(cube) == ("TPipe(flag_id=0, dir_type=1, slot_size=1024, slot_num=4, "
                          "nosplit=True, core=block0.aic)")


def test_talloc_stays_not_implemented() -> None:
    m = ptosim.Machine(target="a5")
    with pytest.raises(NotImplementedOpError, match=r"^TALLOC: TALLOC is a PTO op that "
                       "ptosim does not implement yet"):
        m.TALLOC  # noqa: B018


@pytest.mark.parametrize("split", [0, 1, 2])
@pytest.mark.parametrize("direction", ["c2v", "v2c"])
def test_python_face_matches_the_pto_path_bit_for_bit(direction: str, split: int) -> None:
    """Same inputs (seed), same protocol: the .pto kernel of test_tile_pipes_split and the
    Python face give identical bytes."""
    from test_tile_pipes_split import run
    got_pto, _, _ = run(split, 2, 2, v2c=direction == "v2c", c2v=direction == "c2v")
    got_py, _ = (run_c2v if direction == "c2v" else run_v2c)(split, 2, 2)
    np.testing.assert_array_equal(got_py, got_pto)


def test_slot_size_off_32_bytes_fails_at_the_second_slot() -> None:
    """pto-isa does not check SlotSize; slot 1 of a 1040 B slot ring starts off the 32 B
    grid, which the tile placement refuses when the push writes it."""
    m = ptosim.Machine(target="a5")
    kw = {"c2v_consumer_buf": UB_FIFO, "nosplit": True}
    cube = m.TPipe(0, "DIR_C2V", 1040, 2, core="cube", **kw)
    aiv0 = m.TPipe(0, "DIR_C2V", 1040, 2, core="vector", **kw)
    acc = m.tile("Acc", "f32", 16, 16)
    m.TPUSH(cube, acc, split=0)
    m.TPOP(aiv0, m.tile("Vec", "f32", 16, 16), split=0)
    m.TFREE(aiv0, split=0)
    _rule(lambda: m.TPUSH(cube, acc, split=0), VerifyError,
          rf"^tile: a 1024 B Vec tile at byte {UB_FIFO + 1040} must be 32-byte aligned")


def test_run_ahead_over_an_unread_slot_warns_and_gives_the_overwritten_tile() -> None:
    """slot_num 2: the vector constructor's two credits let push 2 through although tiles
    0 and 1 are not popped; it overwrites slot 0, and the first pop reads tile 2."""
    m = ptosim.Machine(target="a5")
    cube, aiv0 = _c2v_pair(m, slot_num=2)
    accs = []
    for i in range(3):
        acc = m.tile("Acc", "f32", 16, 16)
        m.write(acc.ptr, np.full(256, float(i), np.float32))
        accs.append(acc)
    m.TPUSH(cube, accs[0], split=0)
    m.TPUSH(cube, accs[1], split=0)
    with pytest.warns(ptosim.PtoWarning, match=r"^TPUSH: tile 2 overwrites slot 0, whose tile "
                      r"no TPOP has taken yet \(2 tiles pushed and not popped on block0 "
                      r"aic->aiv0 #0\)"):
        m.TPUSH(cube, accs[2], split=0)
    y = m.TPOP(aiv0, m.tile("Vec", "f32", 16, 16), split=0)
    np.testing.assert_array_equal(m.read(y.ptr, 256), np.full(256, 2.0, np.float32))


def test_pushing_within_the_slots_does_not_warn() -> None:
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        run_c2v(1, 4, 4, ahead=4)
        run_v2c(2, 4, 2)


@pytest.mark.parametrize("split", [0, 1, 2])
def test_round_trip_through_one_two_way_pipe(split: int) -> None:
    """DIR_BOTH: the AIVs push their parts of X (V2C), the cube pops X, multiplies by B
    and pushes the product back (C2V); the AIVs pop their parts, add them and store."""
    mm, k, nn = shapes(split)
    rng = np.random.default_rng(7)
    x = rng.standard_normal((2 * mm, k)).astype(np.float32)
    b = rng.standard_normal((k, nn)).astype(np.float32)
    m = ptosim.Machine(target="a5")
    aivs = (0, 1) if split else (0,)
    cube, vec = pipes(m, split, 2, max(mm * k, mm * nn) * 4, "DIR_BOTH", aivs)
    right = load_right(m, b)
    gx, out = m.gm(x), m.gm_empty(2 * mm * nn, "f32")
    xr, xc = half(mm, k, split)
    yr, yc = half(mm, nn, split)
    acc = m.tile("Acc", "f32", mm, nn)
    sp = SPLIT_NAMES[split]
    for i in range(2):
        for s, pipe in zip(aivs, vec):
            nd = m.tile("Vec", "f32", xr, xc, subblock=s)
            row, col = i * mm + (s * xr if split == 1 else 0), s * xc if split == 2 else 0
            m.TLOAD(nd, gtensor(m, gx + row * k + col, xr, xc, k))
            nz = m.tile("Vec", "f32", xr, xc, blayout="ColMajor", slayout="RowMajor",
                        subblock=s)
            m.TMOV(nz, nd)
            m.TPUSH(pipe, nz, split=sp)
        xm = m.TPOP(cube, m.tile("Mat", "f32", mm, k, blayout="ColMajor",
                                 slayout="RowMajor"), split=sp)
        cube_matmul(m, xm, right, acc)
        m.TFREE(cube, split=sp)
        m.TPUSH(cube, acc, split=sp)
        for s, pipe in zip(aivs, vec):
            y = m.TPOP(pipe, m.tile("Vec", "f32", yr, yc, subblock=s), split=sp)
            r = m.tile("Vec", "f32", yr, yc, subblock=s)
            m.TADD(r, y, y)
            row, col = i * mm + (s * yr if split == 1 else 0), s * yc if split == 2 else 0
            m.TSTORE(gtensor(m, out + row * nn + col, yr, yc, nn), r)
            m.TFREE(pipe, split=sp)
    got = m.read(out, 2 * mm * nn).reshape(2 * mm, nn)
    np.testing.assert_allclose(got, golden(x, b, mm, 2.0), rtol=1e-5, atol=1e-4)


def test_an_nd_push_lands_as_raw_rows_in_the_slot() -> None:
    """An ND Vec tile goes into the L1 slot as a5's TInsertNDImpl copies it: its rows as
    they are, so the NZ tile the cube pops holds them in NZ order (the same as `.pto`)."""
    m = ptosim.Machine(target="a5")
    cube, (aiv0,) = pipes(m, 0, 1, 16 * 16 * 4, "DIR_V2C", (0,))
    x = np.arange(256, dtype=np.float32).reshape(16, 16)
    nd = m.tile("Vec", "f32", 16, 16)
    m.write(nd.ptr, x.ravel())
    m.TPUSH(aiv0, nd, split="TILE_NO_SPLIT")
    popped = m.TPOP(cube, m.tile("Mat", "f32", 16, 16, blayout="ColMajor", slayout="RowMajor"),
                    split="TILE_NO_SPLIT")
    np.testing.assert_array_equal(m.read(popped.ptr, 256), x.ravel())   # the raw rows
    seen = m.read_tile(popped)                  # NZ (r, c) = flat (c // 8) * 128 + r * 8 + c % 8
    assert seen[1, 0] == 8 and seen[0, 8] == 128 and seen[15, 15] == 255
