"""TLOAD / TSTORE repeated on the same tile and view replay the bursts their first run
copied (tile.ops.TileOps._replayed); FIXPIPE stores reuse their checked set-up. The bytes
must be those of the full path on new data; ops that write more than bursts (pads) and
observed machines always take the full path."""

import numpy as np
import pytest

import ptosim


def machine(observed):
    m = ptosim.Machine(target="a5")
    if observed:
        m.access_hook = lambda *args: None
    return m


@pytest.mark.parametrize("valid, pad", [((64, 128), "Null"), ((37, 50), "Null"),
                                        ((37, 50), "Zero")])
def test_tload_tstore_repeat_on_new_data(valid, pad):
    outs = []
    for observed in (False, True):
        m = machine(observed)
        rng = np.random.default_rng(1)
        src = m.gm(np.zeros(64 * 128, np.float32))
        dst = m.gm(np.zeros(64 * 128, np.float32))
        vr, vc = valid
        g = m.global_tensor(src, shape=(1, 1, 1, vr, vc), stride=(0, 0, 0, 128, 1))
        h = m.global_tensor(dst, shape=(1, 1, 1, vr, vc), stride=(0, 0, 0, 128, 1))
        t = m.tile("Vec", "f32", 64, 128, valid=valid, pad=pad)
        for _ in range(3):
            m.write(src, rng.standard_normal(64 * 128).astype(np.float32))
            m.TLOAD(t, g)
            m.TSTORE(h, t)
        outs.append((m.read(t.ptr, 64 * 128), m.read(dst, 64 * 128)))
        kinds = {key[0] for key in m._tile_plans}
        assert ("TLOAD" in kinds) == (not observed and pad == "Null")   # a pad is no burst
        assert ("TSTORE" in kinds) == (not observed)
    for a, b in zip(*outs):
        np.testing.assert_array_equal(a, b)


def test_tstore_from_acc_repeats_on_new_data():
    outs = []
    for observed in (False, True):
        m = machine(observed)
        rng = np.random.default_rng(2)
        out = m.gm(np.zeros(32 * 48, np.float16))
        g = m.global_tensor(out, shape=(1, 1, 1, 32, 48), stride=(0, 0, 0, 48, 1))
        acc = m.tile("Acc", "f32", 32, 48)
        for _ in range(3):
            m.write(acc.ptr, rng.standard_normal(32 * 48).astype(np.float32))
            m.TSTORE(g, acc)                      # f32 -> f16 by default
        outs.append(m.read(out, 32 * 48))
    np.testing.assert_array_equal(*outs)


def test_ctrl_change_is_seen_by_a_repeated_fixpipe():
    """sat left to CTRL: the set-up is keyed by CTRL, so a change takes effect."""
    m = ptosim.Machine(target="a5")
    out = m.gm(np.zeros(16 * 16, np.float16))
    g = m.global_tensor(out, shape=(1, 1, 1, 16, 16), stride=(0, 0, 0, 16, 1))
    acc = m.tile("Acc", "f32", 16, 16)
    m.write(acc.ptr, np.full(256, 1e6, np.float32))
    m.TSTORE(g, acc)
    assert np.isinf(m.read(out, 256).astype(np.float32)).all()      # non-saturating
    m.ctrl = 0                                                       # saturating
    m.TSTORE(g, acc)
    assert (m.read(out, 256) == np.float16(65504)).all()


def test_a_failing_load_is_not_replayed():
    m = ptosim.Machine(target="a5")
    src = m.gm(np.zeros(64, np.float32))
    g = m.global_tensor(src, shape=(1, 1, 1, 8, 16), stride=(0, 0, 0, 16, 1))
    t = m.tile("Vec", "f32", 8, 16)
    for _ in range(2):
        with pytest.raises(ptosim.PtoError, match="past the end"):
            m.TLOAD(t, g)
    assert not m._tile_plans


@pytest.mark.parametrize("overrun", ["error", "warn"])
def test_repeats_bound_to_fixed_buffers(overrun):
    """From the second repeat a replay copies between views bound once (tile, GM that
    cannot grow); a GM allocation with an overrun backing keeps the checked path. Either
    way the bytes follow new data, a TSTORE marks its GM allocation as stored, and an f32
    accumulator stored as f32 replays as one burst copy too."""
    m = ptosim.Machine(target="a5", gm_overrun=overrun)
    rng = np.random.default_rng(4)
    src = m.gm(np.zeros(16 * 64, np.float32))
    dst = m.gm(np.zeros(16 * 64, np.float32))
    out = m.gm(np.zeros(32 * 32, np.float32))
    g = m.global_tensor(src, shape=(1, 1, 1, 16, 64), stride=(0, 0, 0, 64, 1))
    h = m.global_tensor(dst, shape=(1, 1, 1, 16, 64), stride=(0, 0, 0, 64, 1))
    o = m.global_tensor(out, shape=(1, 1, 1, 32, 32), stride=(0, 0, 0, 32, 1))
    t = m.tile("Vec", "f32", 16, 64)
    acc = m.tile("Acc", "f32", 32, 32)
    assert not m.gm_stored(dst)
    for _ in range(4):
        x = rng.standard_normal(16 * 64).astype(np.float32)
        a = rng.standard_normal(32 * 32).astype(np.float32)
        m.write(src, x)
        m.write(acc.ptr, a)
        m.TLOAD(t, g)
        m.TSTORE(h, t)
        m.TSTORE(o, acc)
        np.testing.assert_array_equal(m.read(dst, 16 * 64), x)
        # NZ accumulator (16 x 16 fractals, column blocks outer) -> ND rows
        nd = a.reshape(2, 32, 16).transpose(1, 0, 2).reshape(32, 32)
        np.testing.assert_array_equal(m.read(out, 32 * 32).reshape(32, 32), nd)
    assert m.gm_stored(dst) and m.gm_stored(out)
    fixed = [len(plan) > 2 for plan in m._tile_plans.values()]
    assert fixed and all(fixed) == (overrun == "error")


def test_tmov_repeats_on_new_data():
    """TMOV Mat -> Left (the same NZ image: one flat burst) and a2a3's Vec -> Vec (block
    copies) replay; a transposing Mat -> Right and a5's Vec -> Vec (vector stores) do not
    (no burst) and still follow new data."""
    outs = []
    for observed in (False, True):
        m = machine(observed)
        rng = np.random.default_rng(6)
        mat = m.tile("Mat", "f32", 32, 32, blayout="ColMajor", slayout="RowMajor")
        left, right = m.tile("Left", "f32", 32, 32), m.tile("Right", "f32", 32, 32)
        v, w = m.tile("Vec", "f32", 8, 64), m.tile("Vec", "f32", 8, 64)
        for _ in range(3):
            m.write(mat.ptr, rng.standard_normal(32 * 32).astype(np.float32))
            m.write(v.ptr, rng.standard_normal(8 * 64).astype(np.float32))
            m.TMOV(left, mat)
            m.TMOV(right, mat)
            m.TMOV(w, v)
            np.testing.assert_array_equal(m.read(left.ptr, 32 * 32), m.read(mat.ptr, 32 * 32))
            np.testing.assert_array_equal(m.read(w.ptr, 8 * 64), m.read(v.ptr, 8 * 64))
        outs.append(m.read(right.ptr, 32 * 32))
        replayed = {(key[0], key[1]) for key in m._tile_plans}
        bursts = {("TMOV", id(left))} | (set() if m.target.tmov_vec_exact else {("TMOV", id(w))})
        assert replayed == (set() if observed else bursts)
    np.testing.assert_array_equal(*outs)
