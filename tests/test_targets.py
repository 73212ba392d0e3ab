"""Targets are data: every per-target rule is a field of the `Target` profile, so a copy of a
profile under another name behaves exactly like the original, and flipping one field flips
one rule. Probes run each rule on a Machine and record its outcome: the bytes it wrote, or
its error class and message."""

import re
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import ml_dtypes
import numpy as np
import pytest

import ptosim
from ptosim.cost import STARTUP_NS, CostModel
from ptosim.interp.executor import Core, KernelError
from ptosim.interp.scheduler import SyncService
from ptosim.interp.timeline import Timeline
from ptosim.isa import spec
from ptosim.targets import A2A3, A5, TARGETS

SRC = Path(__file__).resolve().parent.parent / "src" / "ptosim"


def outcome(m, probe):
    """What a probe did: ("ok", bytes or value) or (error class, message)."""
    try:
        return "ok", probe(m)
    except ptosim.PtoError as err:
        return type(err).__name__, str(err)


def gm_view(m, data, layout="ND"):
    r, c = data.shape
    stride = (r * c, r * c, r * c, c, 1) if layout == "ND" else (r * c, r * c, r * c, 1, r)
    return m.global_tensor(m.gm(data if layout == "ND" else data.T.copy()), (1, 1, 1, r, c),
                           stride, layout)


def ramp(r, c, dt=np.float16):
    return (np.arange(r * c) % 97).astype(dt).reshape(r, c)


def p_left_default(m):
    t = m.tile("Left", "f16", 16, 16)
    return t.blayout, t.slayout


def p_vec_nz1024(m):
    return m.tile("Vec", "f32", 16, 16, blayout="ColMajor", slayout="RowMajor",
                  fractal=1024).name


def p_scale_left(m):
    return m.tile("ScaleLeft", "f8E8M0FNU", 16, 2).name


def p_tload_dn_nz(m):
    t = m.tile("Mat", "f16", 16, 16, blayout="ColMajor", slayout="RowMajor")
    m.TLOAD(t, gm_view(m, ramp(16, 16), "DN"))
    return m.read(t.ptr, 256).tobytes()


def p_tload_one_row(m):           # 8 x f16 = 16 B: half a block
    t = m.tile("Mat", "f16", 1, 16, valid=(1, 8))
    m.write(t.ptr, np.full(16, 7, np.float16))
    m.TLOAD(t, gm_view(m, ramp(1, 8)))
    return m.read(t.ptr, 16).tobytes()


def p_tload_partial_blocks(m):
    t = m.tile("Mat", "f16", 2, 16, valid=(2, 8))
    m.write(t.ptr, np.full(32, 7, np.float16))
    m.TLOAD(t, gm_view(m, ramp(2, 8)))
    return m.read(t.ptr, 32).tobytes()


def p_tstore_mat(m):
    t = m.tile("Mat", "f16", 16, 16)
    m.write(t.ptr, ramp(16, 16))
    out = m.gm(np.zeros((16, 16), np.float16))
    m.TSTORE(m.global_tensor(out, (1, 1, 1, 16, 16), (256, 256, 256, 16, 1)), t)
    return m.read(out, 256).tobytes()


def p_tmov_relayout(m):
    src, dst = m.tile("Vec", "f16", 16, 32), m.tile("Vec", "f16", 16, 32, blayout="ColMajor",
                                                    slayout="RowMajor")
    m.write(src.ptr, ramp(16, 32))
    m.TMOV(dst, src)
    return m.read(dst.ptr, 512).tobytes()


def p_tinsert_col3(m):
    big, small = m.tile("Vec", "f32", 16, 32), m.tile("Vec", "f32", 8, 8)
    m.write(big.ptr, np.zeros(16 * 32, np.float32))
    m.write(small.ptr, np.arange(64, dtype=np.float32))
    m.TINSERT(big, small, 0, 3)
    return m.read(big.ptr, 512).tobytes()


def _acc(m):
    acc = m.tile("Acc", "f32", 16, 16)
    m.write(acc.ptr, np.arange(256, dtype=np.float32) + 0.5)
    return acc


def p_acc_to_vec(m):
    dst = m.tile("Vec", "f32", 16, 16)
    m.TMOV(dst, _acc(m))
    return m.read(dst.ptr, 256).tobytes()


def p_acc_to_mat_nd(m):
    dst = m.tile("Mat", "f16", 16, 16)
    m.TMOV(dst, _acc(m))
    return m.read(dst.ptr, 256).tobytes()


def p_acc_nhwc(m):
    g = m.global_tensor(m.gm(np.zeros(256, np.float32)), (1, 1, 2, 8, 16),
                        (256, 256, 128, 16, 1), "NHWC")
    m.TSTORE(g, _acc(m))
    return m.read(g.ptr, 256).tobytes()


def p_bias_bf16(m):
    m.write(m.ptr("l1", "bf16", 0), np.arange(16).astype(ml_dtypes.bfloat16))
    m.mte_l1_bt(m.ptr("l1", "bf16", 0), m.ptr("bt", "f32", 0), 1, nburst=(1, 0, 0))
    return m.read(m.ptr("bt", "f32", 0), 16).tobytes()


def p_histogram(m):
    dst = m.tile("Vec", "ui32", 1, 256)
    m.THISTOGRAM(dst, m.tile("Vec", "ui16", 1, 64),
                 m.tile("Vec", "ui8", 32, 1, blayout="ColMajor"))
    return m.read(dst.ptr, 256).tobytes()


PROBES = [p_left_default, p_vec_nz1024, p_scale_left, p_tload_dn_nz, p_tload_one_row,
          p_tload_partial_blocks, p_tstore_mat, p_tmov_relayout, p_tinsert_col3, p_acc_to_vec,
          p_acc_to_mat_nd, p_bias_bf16, p_acc_nhwc, p_histogram]


def sync_cells(target):
    """The semaphore cells a cube set of id 3 increments, or the error for id 16."""
    svc = SyncService(target, {})
    op = SimpleNamespace(name="pto.sync.set")
    svc.signal(Core("cube", 0, 0), 3, op)
    try:
        svc.signal(Core("cube", 0, 0), 16, op)
    except KernelError as err:
        return sorted(svc.count), str(err)
    return sorted(svc.count), None


def mte2_duration(target):
    tl = Timeline(target, lambda op: None)
    tl.begin_op(Core("cube", 0, 0), SimpleNamespace(name="pto.x"), spec("mte_gm_l1"), [],
                "MTE2")
    tl.access(np.zeros(1, np.uint8), 0, 960, "R", None, None)
    tl.end_op()
    return tl.slices[0].dur, tl.trace()["otherData"]["target"]


@pytest.mark.parametrize("base", [A2A3, A5], ids=lambda t: t.name)
def test_a_renamed_copy_behaves_like_the_original(base):
    copy = replace(base, name="custom")
    seen = set()
    for probe in PROBES:
        want = outcome(ptosim.Machine(target=base), probe)
        got = outcome(ptosim.Machine(target=copy), probe)
        if got[0] != "ok":          # messages name the target: the copy's name, nothing else
            got = (got[0], got[1].replace("custom", base.name))
        assert got == want, probe.__name__
        seen.add(want[0])
    assert "ok" in seen and len(seen) > 1       # the probes hit both accepted and refused rules
    assert sync_cells(copy) == sync_cells(base)
    assert mte2_duration(copy)[0] == mte2_duration(base)[0]
    assert mte2_duration(copy)[1] == "custom"


def test_the_probes_tell_the_two_targets_apart():
    """Each probe but one separates a2a3 from a5, so the renamed-copy test exercises each
    field's both values. (A one-row load writes the same bytes by either path: a5 bursts and
    zero-fills, a2a3 goes through nd2nz; the next tests flip its two fields one by one.)"""
    for probe in PROBES:
        if probe is p_tload_one_row:
            continue
        a, b = (outcome(ptosim.Machine(target=t), probe) for t in (A2A3, A5))
        assert a != b, probe.__name__
    assert sync_cells(A2A3) != sync_cells(A5)
    assert mte2_duration(A2A3)[0] != mte2_duration(A5)[0]


@pytest.mark.parametrize("field, value, probe, before, after", [
    ("tstore_mat", True, p_tstore_mat, "TargetError", "ok"),
    ("tinsert_vec_col_block", True, p_tinsert_col3, "ok", "VerifyError"),
    ("tload_mat_whole_blocks", True, p_tload_partial_blocks, "ok", "VerifyError"),
    ("tmov_vec_layouts", frozenset(), p_tmov_relayout, "ok", "NotImplementedOpError"),
    ("acc_to_vec", False, p_acc_to_vec, "ok", "VerifyError"),
    ("acc_conv_stores", frozenset({"NC1HWC0"}), p_acc_nhwc, "ok", "VerifyError"),
    ("absent_tile_ops", frozenset({"thistogram"}), p_histogram, "ok", "TargetError"),
    ("bt_bf16", False, p_bias_bf16, "ok", "DtypeError"),
    ("tile_layouts", {**A5.tile_layouts, "ScaleLeft": frozenset()}, p_scale_left, "ok",
     "VerifyError"),
])
def test_flipping_one_field_flips_its_rule(field, value, probe, before, after):
    custom = replace(A5, name="custom", **{field: value})
    assert outcome(ptosim.Machine(target=replace(A5, name="custom")), probe)[0] == before
    kind, detail = outcome(ptosim.Machine(target=custom), probe)
    assert kind == after
    if kind in ("VerifyError", "TargetError") and field != "acc_to_vec":
        assert "custom" in detail             # the message names the profile it came from


def test_flipped_fields_change_the_bytes_written():
    # a one-row ND Mat load: a5 writes one burst and zero-fills the block's tail; with
    # tload_mat_null_pad_zero off the tail keeps the old bytes; with tload_mat_one_row_nd2nz
    # the nd2nz path zero-fills it as a2a3 does.
    row = ramp(1, 8).tobytes()
    zeros, old = bytes(16), np.full(8, 7, np.float16).tobytes()
    assert outcome(ptosim.Machine(target=replace(A5, name="c")), p_tload_one_row) == \
        ("ok", row + zeros)
    assert outcome(ptosim.Machine(target=replace(A5, name="c", tload_mat_null_pad_zero=False)),
                   p_tload_one_row) == ("ok", row + old)
    assert outcome(ptosim.Machine(target=replace(A5, name="c", tload_mat_null_pad_zero=False,
                                                 tload_mat_one_row_nd2nz=True)),
                   p_tload_one_row) == ("ok", row + zeros)
    # the Left tile's default boxes follow l0a_layout
    zz = replace(A5, name="c", l0a_layout="ZZ",
                 tile_layouts={**A5.tile_layouts, "Left": frozenset({("ZZ", 512)})})
    assert outcome(ptosim.Machine(target=zz), p_left_default) == \
        ("ok", ("RowMajor", "RowMajor"))


def test_semaphore_pairing_and_cost_follow_their_fields():
    paired = replace(A5, name="custom", semaphores_paired=True)
    cells, err = sync_cells(paired)
    assert cells == [(0, "c2v", 0, 3), (0, "c2v", 1, 3)]
    assert "semaphore id 16 is out of range [0, 15]" in err
    cells, err = sync_cells(replace(A2A3, name="custom", semaphores_paired=False))
    assert cells == [(0, "c2v", 0, 3), (0, "c2v", 1, 0)] and err is None
    cost = CostModel({"MTE2": 8.0}, {"2": 1.0})
    assert mte2_duration(replace(A5, name="custom", cost=cost)) == \
        (STARTUP_NS + 960 / 8.0, "custom")


def test_no_source_file_decides_by_the_target_name():
    """Guard: outside targets.py nothing compares a target's name or keys a table by it."""
    names = "|".join(TARGETS)
    pattern = re.compile(rf'(==|!=|\bin)\s*\(?"({names})"|"({names})"\s*(==|!=|:)'
                         rf'|target\.name\s*(==|!=|\bin\b)')
    hits = [f"{p.relative_to(SRC)}:{i}: {line.strip()}"
            for p in SRC.rglob("*.py") if p.name != "targets.py"
            for i, line in enumerate(p.read_text().splitlines(), 1) if pattern.search(line)]
    assert hits == []
