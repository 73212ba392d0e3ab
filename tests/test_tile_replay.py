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
