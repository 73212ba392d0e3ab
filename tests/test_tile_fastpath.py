"""The unobserved fast path of the vector tile ops (ptosim.tile.fastpath) against the
observed path (an access hook attached: every check and hook per call): the same bytes in
every buffer and the same errors, for every family, on the first call (which builds the
plan) and on repeated calls (which run it), with random bit patterns (NaN, inf, -0.0,
subnormals), integers and partial valid regions."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import ptosim
from ptosim.errors import PtoError
from ptosim.tile import fastpath

Calls = list[tuple[str, Callable[[], Any]]]


def _fill(m: ptosim.Machine, seed: int) -> None:
    rng = np.random.default_rng(seed)
    ub = m.blocks[0].ub[0]
    ub[:] = rng.integers(0, 256, ub.size, dtype=np.uint8)
    # a share of ordinary numbers, so that compares and selects see both outcomes
    tame = rng.uniform(-4, 4, ub.size // 8).astype(np.float32).view(np.uint8)
    ub[:tame.size:2] = tame[::2]


def _run(observed: bool, build: Callable[[ptosim.Machine], Calls], seed: int,
         repeat: int = 3) -> tuple[list[Any], np.ndarray]:
    m = ptosim.Machine(target="a5")
    if observed:
        m.access_hook = lambda *a: None
    calls = build(m)
    _fill(m, seed)
    log: list[Any] = []
    for name, call in calls:
        for _ in range(repeat):
            try:
                call()
                log.append((name, "ok", m.blocks[0].ub[0].tobytes()))
            except PtoError as err:
                log.append((name, type(err).__name__, str(err)))
    return log, m.blocks[0].ub[0].copy()


def _same(build: Callable[[ptosim.Machine], Calls], seed: int = 0) -> list[Any]:
    fast, fast_ub = _run(False, build, seed)
    slow, slow_ub = _run(True, build, seed)
    assert [e[:2] for e in fast] == [e[:2] for e in slow]
    for f, s in zip(fast, slow):
        assert f == s, f"{f[0]}: the fast path differs from the observed path"
    assert np.array_equal(fast_ub, slow_ub)
    return fast


def _tiles(m: ptosim.Machine, dt: str, shape: tuple[int, int], valid: tuple[int, int],
           n: int) -> list[Any]:
    return [m.tile("Vec", dt, *shape, valid=valid) for _ in range(n)]


SHAPES = [((8, 32), (8, 32)), ((8, 64), (5, 13)), ((4, 64), (1, 64))]


@pytest.mark.parametrize("dt", ["f32", "f16", "bf16", "i32", "i16", "i8", "ui8"])
@pytest.mark.parametrize("shape,valid", SHAPES)
def test_elementwise_binary_scalar_unary(dt: str, shape: tuple[int, int],
                                         valid: tuple[int, int]) -> None:
    def build(m: ptosim.Machine) -> Calls:
        d, a, b = _tiles(m, dt, shape, valid, 3)
        integer = dt[0] in "iu"
        calls: Calls = [(op, (lambda op=op: getattr(m, op)(d, a, b)))
                        for op in ("TADD", "TSUB", "TMUL", "TDIV", "TMAX", "TMIN", "TREM")]
        calls += [("TADD in place", lambda: m.TADD(a, a, b)),
                  ("TMULS", lambda: m.TMULS(d, a, 3 if integer else 1.5)),
                  ("TADDS", lambda: m.TADDS(d, a, -7 if integer else -0.0)),
                  ("TMAXS", lambda: m.TMAXS(d, a, 2 if integer else float("nan"))),
                  ("TADDS bad", lambda: m.TADDS(d, a, 0.5)),
                  ("TDIVS", lambda: m.TDIVS(d, 3 if integer else 3.0, a))]
        if integer:
            calls += [(op, (lambda op=op: getattr(m, op)(d, a, b)))
                      for op in ("TAND", "TOR", "TSHL", "TSHR")]
            calls += [("TSHLS", lambda: m.TSHLS(d, a, 3)), ("TNOT", lambda: m.TNOT(d, a))]
        calls += [(op, (lambda op=op: getattr(m, op)(d, a)))
                  for op in ("TEXP", "TLOG", "TSQRT", "TABS", "TNEG", "TRELU", "TRECIP")]
        calls += [("TEXPANDS", lambda: m.TEXPANDS(d, 5))]
        return calls
    _same(build)


def test_elementwise_mismatched_valid_and_dtype_errors() -> None:
    def build(m: ptosim.Machine) -> Calls:
        d, a = _tiles(m, "f32", (8, 16), (8, 16), 2)
        small = m.tile("Vec", "f32", 8, 16, valid=(4, 16))
        h = m.tile("Vec", "f16", 8, 16)
        return [("TADD valid", lambda: m.TADD(d, a, small)),
                ("TEXP valid", lambda: m.TEXP(d, small)),
                ("TADD dtype", lambda: m.TADD(d, a, h)),
                ("TADD ok", lambda: m.TADD(d, a, a))]
    log = _same(build)
    assert [e[1] for e in log[::3]] == ["VerifyError", "VerifyError", "DtypeError", "ok"]


@pytest.mark.parametrize("dt", ["f32", "f16", "i32", "i16"])
def test_reductions(dt: str) -> None:
    def build(m: ptosim.Machine) -> Calls:
        src = m.tile("Vec", dt, 8, 64, valid=(7, 45))
        col = m.tile("Vec", dt, 8, 16, valid=(7, 1))
        row = m.tile("Vec", dt, 1, 64, valid=(1, 45))
        tmp = m.tile("Vec", dt, 8, 64)
        idx = m.tile("Vec", "i32", 8, 8, valid=(7, 1))
        cidx = m.tile("Vec", "i32", 1, 64, valid=(1, 45))
        return [("TROWSUM", lambda: m.TROWSUM(col, src)),
                ("TROWMAX", lambda: m.TROWMAX(col, src)),
                ("TROWMIN", lambda: m.TROWMIN(col, src, tmp)),
                ("TROWPROD", lambda: m.TROWPROD(col, src)),
                ("TCOLSUM", lambda: m.TCOLSUM(row, src)),
                ("TCOLSUM binary", lambda: m.TCOLSUM(row, src, tmp, is_binary=True)),
                ("TCOLMAX", lambda: m.TCOLMAX(row, src)),
                ("TCOLPROD", lambda: m.TCOLPROD(row, src)),
                ("TROWARGMAX", lambda: m.TROWARGMAX(idx, src)),
                ("TCOLARGMIN", lambda: m.TCOLARGMIN(cidx, src)),
                ("TROWSUM bad", lambda: m.TROWSUM(row, src))]
    _same(build)


@pytest.mark.parametrize("shape", [(8, 64), (4, 128), (3, 256)])
def test_whole_row_reductions(shape: tuple[int, int]) -> None:
    """Whole contiguous rows (the f32 chunked row sum and the column max / min into dst's
    row), rows of -0.0 and of inf - inf included."""
    def build(m: ptosim.Machine) -> Calls:
        src = m.tile("Vec", "f32", *shape)
        col = m.tile("Vec", "f32", shape[0], 8, valid=(shape[0], 1))
        row = m.tile("Vec", "f32", 1, shape[1])
        special = m.tile("Vec", "f32", *shape)

        def fill_special() -> None:
            x = np.full(shape, -0.0, np.float32)
            x[1, :3] = [np.inf, -np.inf, 1.0]
            x[2, shape[1] // 2:] = 0.0      # -0.0 chunks then +0.0 ones, and the reverse
            x[0, :shape[1] // 2] = 0.0
            m.write(special.ptr, x)
        return [("TROWSUM", lambda: m.TROWSUM(col, src)),
                ("TCOLMAX", lambda: m.TCOLMAX(row, src)),
                ("TCOLMIN", lambda: m.TCOLMIN(row, src)),
                ("special", fill_special),
                ("TROWSUM -0.0", lambda: m.TROWSUM(col, special)),
                ("TCOLMAX -0.0", lambda: m.TCOLMAX(row, special))]
    _same(build)


@pytest.mark.parametrize("dt", ["f32", "i32", "f16"])
def test_expands_and_expand_ops(dt: str) -> None:
    def build(m: ptosim.Machine) -> Calls:
        d, a = _tiles(m, dt, (8, 64), (6, 40), 2)
        col = m.tile("Vec", dt, 8, 16, valid=(6, 1))
        wide = m.tile("Vec", dt, 8, 64, valid=(6, 4))
        row = m.tile("Vec", dt, 1, 64, valid=(1, 40))
        calls: Calls = [("TROWEXPAND", lambda: m.TROWEXPAND(d, col)),
                        ("TCOLEXPAND", lambda: m.TCOLEXPAND(d, row))]
        for op in ("SUB", "DIV", "MAX", "EXPDIF"):
            calls += [(f"TROWEXPAND{op}", lambda op=op: getattr(m, f"TROWEXPAND{op}")(d, a, col)),
                      (f"TROWEXPAND{op} rev",
                       lambda op=op: getattr(m, f"TROWEXPAND{op}")(d, col, a)),
                      (f"TROWEXPAND{op} k",
                       lambda op=op: getattr(m, f"TROWEXPAND{op}")(d, a, wide, src1_col=4)),
                      (f"TCOLEXPAND{op}", lambda op=op: getattr(m, f"TCOLEXPAND{op}")(d, a, row))]
        return calls
    _same(build)


@pytest.mark.parametrize("dt", ["f32", "i16", "f16"])
def test_partial_ops(dt: str) -> None:
    def build(m: ptosim.Machine) -> Calls:
        d, a, b = _tiles(m, dt, (8, 32), (8, 32), 3)
        small = m.tile("Vec", dt, 8, 32, valid=(3, 17))
        odd = m.tile("Vec", dt, 8, 32, valid=(8, 17))
        return [("TPARTADD", lambda: m.TPARTADD(d, a, b)),
                ("TPARTADD small", lambda: m.TPARTADD(d, small, a)),
                ("TPARTMUL small", lambda: m.TPARTMUL(d, a, small)),
                ("TPARTMAX", lambda: m.TPARTMAX(d, a, b)),
                ("TPARTMIN bad", lambda: m.TPARTMIN(small, a, odd))]
    _same(build)


@pytest.mark.parametrize("dt", ["f32", "f16", "i32", "i8"])
def test_compare_and_select(dt: str) -> None:
    def build(m: ptosim.Machine) -> Calls:
        a, b, d = _tiles(m, dt, (8, 64), (7, 50), 3)
        mask = m.tile("Vec", "ui8", 8, 32)
        wmask = m.tile("Vec", "ui32", 8, 8, valid=(8, 2))
        full, fb = _tiles(m, dt, (8, 64), (8, 64), 2)
        calls: Calls = [(f"TCMP {mode}", lambda mode=mode: m.TCMP(mask, a, b, mode=mode))
                        for mode in ("eq", "ne", "lt", "ge")]
        calls += [("TCMP full", lambda: m.TCMP(mask, full, fb, mode="lt")),
                  ("TCMP cpu", lambda: m.TCMP(wmask, a, b, mode="gt", cpu_sim_compat=True)),
                  ("TCMPS", lambda: m.TCMPS(mask, a, 1, mode="le")),
                  ("TCMPS dense", lambda: m.TCMPS(mask, a, 0, mode="gt", mask_layout="dense")),
                  ("TSEL", lambda: m.TSEL(d, mask, a, b)),
                  ("TSEL cpu", lambda: m.TSEL(d, mask, a, b, cpu_sim_compat=True)),
                  ("TSEL whole rows", lambda: m.TSEL(fb, mask, full, fb)),
                  ("TSEL in place", lambda: m.TSEL(full, mask, full, fb)),
                  ("TSELS", lambda: m.TSELS(d, mask, a, b, 2)),
                  ("TCMP bad mode", lambda: m.TCMP(mask, a, b, mode="xx"))]
        return calls
    _same(build)


def test_cvt_and_ci() -> None:
    def build(m: ptosim.Machine) -> Calls:
        src = m.tile("Vec", "f32", 8, 32, valid=(5, 20))
        h = m.tile("Vec", "f16", 8, 32, valid=(5, 20))
        i = m.tile("Vec", "i32", 8, 32, valid=(5, 20))
        ramp = m.tile("Vec", "i16", 1, 64, valid=(1, 50))
        return [("TCVT f16", lambda: m.TCVT(h, src)),
                ("TCVT i32", lambda: m.TCVT(i, src, round_mode="CAST_FLOOR")),
                ("TCVT bad", lambda: m.TCVT(i, src, round_mode="nope")),
                ("TCI", lambda: m.TCI(ramp, 32760)),
                ("TCI desc", lambda: m.TCI(ramp, 3, descending=True))]
    _same(build)


def test_a2a3_whole_repeat_compare() -> None:
    """a2a3's TCMP reads past the valid columns: the fast path reads the same bytes."""
    def run(observed: bool) -> np.ndarray:
        m = ptosim.Machine(target="a2a3")
        if observed:
            m.access_hook = lambda *a: None
        a, b = _tiles(m, "f32", (8, 64), (7, 50), 2)
        mask = m.tile("Vec", "ui8", 8, 32)
        _fill(m, 3)
        for mode in ("ne", "lt", "ne"):
            m.TCMP(mask, a, b, mode=mode)
            m.TADD(a, a, b)
        return m.blocks[0].ub[0].copy()
    assert np.array_equal(run(False), run(True))


def test_plans_are_cached_per_call_shape_and_dropped_when_observed() -> None:
    m = ptosim.Machine(target="a5")
    d, a, b = _tiles(m, "f32", (8, 16), (8, 16), 3)
    m.TADD(d, a, b)
    m.TADD(d, a, b)
    m.TMULS(d, a, 2.0)
    m.TMULS(d, a, 3.0)                      # a scalar's value is not part of the key
    assert len(m.__dict__["_vec_plans"]) == 2
    seen: list[tuple[int, int, str]] = []
    m.access_hook = lambda buf, start, n, access, operand, op, runs: seen.append(
        (start, n, access))
    m.TADD(d, a, b)                         # observed: every access reaches the hook
    assert seen == [(a.ptr.offset, a.nbytes, "R"), (b.ptr.offset, b.nbytes, "R"),
                    (d.ptr.offset, d.nbytes, "W")]


def test_caches_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fastpath, "LIMIT", 4)
    m = ptosim.Machine(target="a5")
    a = m.tile("Vec", "f32", 8, 16)
    for _ in range(10):                     # a fresh destination tile each time
        m.TEXP(m.tile("Vec", "f32", 8, 16, addr=4096), a)
    assert len(m.__dict__["_vec_plans"]) <= 4
    assert len(m.__dict__["_tile_views"]) <= 4
    d = m.tile("Vec", "f32", 8, 16, addr=4096)
    for i in range(10):                     # a fresh scalar object each time
        m.TMULS(d, a, float(i) + 0.5)
    assert len(m.__dict__["_vec_ids"]) <= 4


def test_scalar_objects_each_give_their_own_value() -> None:
    """The identity key and the scalar-conversion cache hold the scalar object itself:
    -0.0 after 0.0, an int after an equal float, a fresh object after a freed one all
    compute with their own value."""
    m = ptosim.Machine(target="a5")
    d, a = _tiles(m, "f32", (8, 16), (8, 16), 2)
    m.write(a.ptr, np.full(128, 3.0, np.float32))
    neg, pos = -0.0, 0.0
    for s, want in [(pos, 0.0), (pos, 0.0), (neg, -0.0), (neg, -0.0), (pos, 0.0), (2, 6.0),
                    (2.0, 6.0), (1e-46, 0.0)] + [(float(i) / 4, 0.75 * i) for i in range(8)]:
        m.TMULS(d, a, s)
        got = m.read(d.ptr, 128)
        assert np.array_equal(got.view(np.uint32), np.full(128, want, np.float32).view(
            np.uint32)), (s, got[0])
    i, j = _tiles(m, "i32", (8, 16), (8, 16), 2)
    m.write(j.ptr, np.arange(128, dtype=np.int32))
    for s in (3, 3, 4, 3.0):
        m.TADDS(i, j, s)
        assert np.array_equal(m.read(i.ptr, 128), np.arange(128) + int(s))
    with pytest.raises(ptosim.DtypeError, match="not an integer"):
        m.TADDS(i, j, 2.5)


def test_quiet_restores_the_float_error_state() -> None:
    before = np.geterr()
    m = ptosim.Machine(target="a5")
    d, a = _tiles(m, "f32", (8, 16), (8, 16), 2)
    m.write(a.ptr, np.full(128, 1e30, np.float32))
    with np.errstate(over="raise"):
        m.TMUL(d, a, a)                     # overflow: inf, no FloatingPointError
        assert np.geterr()["over"] == "raise"
    assert np.geterr() == before
    assert np.isinf(m.read(d.ptr, 128)).all()


def test_pto_kernel_takes_the_fast_path_unobserved_only() -> None:
    """A `.pto` tile kernel calls the same Machine methods: unobserved (no hazard checker)
    it runs plans, observed it runs every hook; the bytes are the same."""
    from ptosim.kernel import Kernel
    from test_tile_vector import KERNEL

    rng = np.random.default_rng(5)
    x = rng.uniform(-2, 2, (16, 64)).astype(np.float32)
    x[3, :5] = [np.nan, np.inf, -np.inf, -0.0, 1e38]
    y = rng.uniform(-2, 2, (16, 64)).astype(np.float32)
    runs = {}
    for hazards in (False, True):
        runs[hazards] = Kernel.from_text(KERNEL).run(
            {"x": x, "y": y, "o": np.zeros((16, 64), np.float32),
             "m": np.zeros((16, 8), np.uint8), "s": 3.0}, hazards=hazards)
    fast, slow = runs[False], runs[True]
    assert fast.machine.__dict__.get("_vec_plans")
    assert not slow.machine.__dict__.get("_vec_plans")
    np.testing.assert_array_equal(fast.outputs["o"].view(np.uint32),
                                  slow.outputs["o"].view(np.uint32))
    assert np.array_equal(fast.machine.blocks[0].ub[0], slow.machine.blocks[0].ub[0])
