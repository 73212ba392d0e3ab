"""Repeated vector tile ops reuse a prepared call (tile.vector.run): the bytes must be the
ones the full path writes, on new data, for every family, with partial valid regions,
special values and in-place operands; an observed machine never takes the prepared path."""

import numpy as np
import pytest

import ptosim

SPECIAL = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-40, 3.4e38, -3.4e38])


def data(rng, dt, n):
    if dt in ("f32", "f16"):
        x = rng.uniform(-4, 4, n)
        x[rng.integers(0, n, n // 8)] = rng.choice(SPECIAL, n // 8)
        with np.errstate(over="ignore"):          # 3.4e38 becomes inf in f16
            return x.astype(np.float32 if dt == "f32" else np.float16)
    info = np.iinfo({"i32": np.int32, "i16": np.int16}[dt])
    return rng.integers(info.min, info.max, n, endpoint=True).astype(info.dtype)


OPS = [("TADD", 2), ("TSUB", 2), ("TMUL", 2), ("TDIV", 2), ("TMAX", 2), ("TMIN", 2),
       ("TADDS", "s"), ("TSUBS", "s"), ("TMULS", "s"), ("TMAXS", "s"), ("TMINS", "s"),
       ("TABS", 1), ("TNEG", 1), ("TEXP", 1), ("TLOG", 1), ("TSQRT", 1),
       ("TROWSUM", "row"), ("TCOLMAX", "col"), ("TPARTADD", 2),
       ("TROWEXPANDSUB", "expand"), ("TROWEXPANDMUL", "expand"), ("TROWEXPANDDIV", "expand"),
       ("TROWMAX", "row"), ("TROWMIN", "row"), ("TROWPROD", "row"), ("TCOLSUM", "col"),
       ("TROWARGMAX", "rowarg"), ("TROWARGMIN", "rowarg"), ("TCOLARGMAX", "colarg"),
       ("TPARTMUL", "part"), ("TPARTMAX", "part")]
INT_OPS = [("TADD", 2), ("TSUB", 2), ("TMUL", 2), ("TMAX", 2), ("TMIN", 2), ("TAND", 2),
           ("TOR", 2), ("TXOR", 2), ("TADDS", "s"), ("TMULS", "s"), ("TABS", 1)]


def run_twice(op, kind, dt, observed, inplace=False):
    """Run ``op`` on one set of tiles twice with fresh data; the second result."""
    m = ptosim.Machine(target="a5")
    if observed:                         # any access hook sends every call the full way
        m.access_hook = lambda *args: None
    rng = np.random.default_rng(5)
    vr, vc = 37, 50
    a, b = (m.tile("Vec", dt, 64, 64, valid=(vr, vc)) for _ in range(2))
    if kind == "part":                   # b: a smaller valid region inside a's
        b = m.tile("Vec", dt, 64, 64, valid=(20, 30))
    if kind == "expand":                 # b: one valid column broadcast along each row
        b = m.tile("Vec", dt, 64, 16, valid=(vr, 1))
    if kind == "row":
        d = m.tile("Vec", dt, 64, 16, valid=(vr, 1))
    elif kind == "rowarg":
        d = m.tile("Vec", "i32", 64, 8, valid=(vr, 1))
    elif kind == "colarg":
        d = m.tile("Vec", "i32", 1, 64, valid=(1, vc))
    elif kind == "col":
        d = m.tile("Vec", dt, 1, 64, valid=(1, vc))
    elif kind not in ("rowarg", "colarg"):
        d = a if inplace else m.tile("Vec", dt, 64, 64, valid=(vr, vc))
    out = None
    for _ in range(2):
        for t in (a, b, *(() if d is a else (d,))):
            m.write(t.ptr, data(rng, t.dtype.name, t.rows * t.cols))
        call = getattr(m, op)
        if kind in (2, "expand", "part"):
            call(d, a, b)
        elif kind == "s":
            call(d, a, 3 if dt.startswith("i") else 1.5)
        else:
            call(d, a)
        out = m.read(d.ptr.cast("ui8"), d.nbytes)
    return out


@pytest.mark.parametrize("dt", ["f32", "f16"])
@pytest.mark.parametrize("op,kind", OPS)
def test_prepared_calls_write_the_full_paths_bytes(op, kind, dt):
    np.testing.assert_array_equal(run_twice(op, kind, dt, False), run_twice(op, kind, dt, True))


@pytest.mark.parametrize("dt", ["i32", "i16"])
@pytest.mark.parametrize("op,kind", INT_OPS)
def test_prepared_integer_calls(op, kind, dt):
    np.testing.assert_array_equal(run_twice(op, kind, dt, False), run_twice(op, kind, dt, True))


@pytest.mark.parametrize("op,kind", [("TADD", 2), ("TMULS", "s"), ("TEXP", 1),
                                     ("TPARTMUL", "part")])
def test_prepared_calls_in_place(op, kind):
    got = run_twice(op, kind, "f32", False, inplace=True)
    np.testing.assert_array_equal(got, run_twice(op, kind, "f32", True, inplace=True))


def test_a_failing_call_fails_again():
    m = ptosim.Machine(target="a5")
    a = m.tile("Vec", "f32", 8, 64)
    d = m.tile("Vec", "f32", 8, 64, valid=(4, 64))
    for _ in range(2):
        with pytest.raises(ptosim.PtoError, match="valid region 8x64 differs from dst's 4x64"):
            m.TADD(d, a, a)


def test_observed_calls_are_seen_every_time():
    m = ptosim.Machine(target="a5")
    a, d = m.tile("Vec", "f32", 8, 64), m.tile("Vec", "f32", 8, 64)
    seen = []
    m.access_hook = lambda buf, start, n, access, operand, op, runs: seen.append(access)
    for _ in range(3):
        m.TADD(d, a, a)
    assert seen.count("W") == 3 and not m.__dict__.get("_vec_plans")
