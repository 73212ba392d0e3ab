"""Burst DMA ops: mte_gm_ub, mte_ub_gm, mte_gm_l1 (stride model) and mte_ub_ub, mte_ub_l1
(seed page 002), mte_l1_ub (gap model)."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import ptosim
from conftest import POISON, raw
from ptosim import (
    AlignmentError,
    DtypeError,
    FieldRangeError,
    OutOfBoundsError,
    SpaceError,
    TargetError,
    VerifyError,
)


def reference_bursts(src: np.ndarray, dst: np.ndarray, length: int, dims) -> None:
    """The manual's nested loop: dims = [(count, src_stride, dst_stride)] inner to outer."""
    def walk(level, so, do):
        if level < 0:
            dst[do:do + length] = src[so:so + length]
            return
        c, ss, ds = dims[level]
        for i in range(c):
            walk(level - 1, so + i * ss, do + i * ds)
    walk(len(dims) - 1, 0, 0)


# --- mte_gm_ub / mte_ub_gm -------------------------------------------------------------

def test_vlds_dma_loop_kernel_case(m):
    """8x56 f32 rows land as 64-f32 UB rows padded with 1.0 through three loops, then a
    three-loop store writes them back: the vlds-dma-loop kernel's golden."""
    v1 = np.random.default_rng(19).uniform(-8, 8, (8, 56)).astype(np.float32)
    src, out = m.gm(v1), m.gm_empty(8 * 64, "f32")
    ub = m.ptr("ub", "f32", 0)
    m.mte_gm_ub(src, ub, 0, 224, nburst=(1, 224, 256),
                loop=[(2, 224, 256), (2, 448, 512), (2, 896, 1024)], pad=(1.0, 0, 8))
    m.mte_ub_gm(ub, out, 256, nburst=(1, 256, 256),
                loop=[(2, 256, 256), (2, 512, 512), (2, 1024, 1024)])
    golden = np.full((8, 64), 1.0, np.float32)
    golden[:, :56] = v1
    np.testing.assert_array_equal(m.read(out, 8 * 64).reshape(8, 64), golden)


def test_tile_from_larger_matrix(m):
    """Manual example 2/5: a 64x128 f16 tile of a 1024x512 matrix, in and back out."""
    big = np.random.default_rng(3).standard_normal((1024, 512)).astype(np.float16)
    src, dst = m.gm(big), m.gm_empty(1024 * 512, "f16")
    row0, col0 = 100, 128
    ub = m.ptr("ub", "f16", 0)
    m.mte_gm_ub(src + row0 * 512 + col0, ub, 0, 256, nburst=(64, 1024, 256))
    np.testing.assert_array_equal(m.read(ub, 64 * 128).reshape(64, 128),
                                  big[row0:row0 + 64, col0:col0 + 128])
    m.mte_ub_gm(ub, dst + row0 * 512 + col0, 256, nburst=(64, 256, 1024))
    expect = np.zeros_like(big)
    expect[row0:row0 + 64, col0:col0 + 128] = big[row0:row0 + 64, col0:col0 + 128]
    np.testing.assert_array_equal(m.read(dst, big.size).reshape(big.shape), expect)


def test_batched_load_example(m):
    """Manual example 6: four 8x128 f16 tiles with one outer loop."""
    x = np.arange(4 * 8 * 128, dtype=np.float16)
    ub = m.ptr("ub", "f16", 0)
    m.mte_gm_ub(m.gm(x), ub, 0, 256, nburst=(8, 256, 256), loop=(4, 2048, 2048))
    np.testing.assert_array_equal(m.read(ub, x.size), x)


def test_pad_fills_to_next_32_bytes_only(m):
    """len 200 B into 256 B rows with pad(0): 24 pad bytes reach the 32 B boundary (224);
    bytes 224..255 of each row keep their contents (docs/semantics.md, "pad")."""
    x = np.arange(64 * 100, dtype=np.float16).reshape(64, 100) % 1000
    ub = m.ptr("ub", "f16", 0)
    m.mte_gm_ub(m.gm(x), ub, 0, 200, nburst=(64, 200, 256), pad=(np.int16(0), 0, 0))
    rows = raw(m, "ub")[:64 * 256].reshape(64, 256)
    np.testing.assert_array_equal(rows[:, :200].view(np.float16), x)
    assert (rows[:, 200:224] == 0).all()
    assert (rows[:, 224:] == POISON).all()


def test_left_and_right_pad(m):
    x = np.arange(3 * 5, dtype=np.float16).reshape(3, 5)
    ub = m.ptr("ub", "f16", 0)
    m.mte_gm_ub(m.gm(x), ub, 0, 10, nburst=(3, 10, 32), pad=(7.0, 2, 3))
    rows = m.read(ub, 3 * 16).reshape(3, 16)
    expect = np.full((3, 16), 7.0, np.float16)                # 2 + 5 + 3 = 10 -> 16 elements
    expect[:, 2:7] = x
    np.testing.assert_array_equal(rows, expect)


def test_pad_value_as_bit_pattern(m):
    ub = m.ptr("ub", "f16", 0)
    m.mte_gm_ub(m.gm(np.zeros(4, np.float16)), ub, 0, 8, nburst=(1, 8, 32),
                pad=(np.int16(0x3C00),))                       # the bits of f16 1.0
    np.testing.assert_array_equal(m.read(ub, 16), [0] * 4 + [1.0] * 12)


def test_no_pad_writes_only_the_data(m):
    ub = m.ptr("ub", "i8", 0)
    m.mte_gm_ub(m.gm(np.arange(30, dtype=np.int8)), ub, 0, 10, nburst=(3, 10, 32))
    rows = raw(m, "ub")[:96].reshape(3, 32)
    np.testing.assert_array_equal(rows[:, :10].view(np.int8), np.arange(30).reshape(3, 10))
    assert (rows[:, 10:] == POISON).all()


def _spans(length, dims):
    """Bytes spanned on the source and on the destination side by nested bursts."""
    return (length + sum((c - 1) * s for c, s, _ in dims),
            length + sum((c - 1) * d for c, _, d in dims))


@settings(max_examples=50, deadline=None)
@given(data=st.data())
def test_gm_ub_gm_match_reference(data):
    m = ptosim.Machine(poison=POISON)
    length = data.draw(st.integers(1, 80), label="len")
    dims = [(data.draw(st.integers(1, 4)), length + data.draw(st.integers(0, 40)),
             32 * data.draw(st.integers(-(-length // 32), 5)))]
    src_span, dst_span = _spans(length, dims)
    for _ in range(data.draw(st.integers(0, 2), label="loops")):
        dims.append((data.draw(st.integers(1, 3)), src_span + data.draw(st.integers(0, 50)),
                     32 * -(-dst_span // 32)))
        src_span, dst_span = _spans(length, dims)
    src_bytes = length + sum((c - 1) * s for c, s, _ in dims)
    gm = np.random.default_rng(data.draw(st.integers(0, 99))).integers(0, 256, src_bytes,
                                                                       dtype=np.uint8)
    ub = m.ptr("ub", "ui8", 64)
    m.mte_gm_ub(m.gm(gm), ub, 1, length, nburst=dims[0], loop=dims[1:])
    expect = np.full_like(raw(m, "ub"), POISON)
    reference_bursts(gm, expect[64:], length, dims)
    np.testing.assert_array_equal(raw(m, "ub"), expect)
    # and back out: the reverse op with swapped strides puts every burst back in place
    out = m.gm_empty(src_bytes, "ui8")
    back = [(c, ds, ss) for c, ss, ds in dims]
    m.mte_ub_gm(ub, out, length, nburst=back[0], loop=back[1:])
    expect_gm = np.zeros(src_bytes, np.uint8)
    reference_bursts(gm, expect_gm, length, [(c, ss, ss) for c, ss, _ in dims])
    np.testing.assert_array_equal(m.read(out, src_bytes), expect_gm)


def test_overlapping_destination_bursts_keep_program_order(m):
    """Bursts 0..3 of 64 B written 32 B apart: each overlaps the next, the last one wins."""
    x = np.repeat(np.arange(4, dtype=np.uint8), 64)
    ub = m.ptr("ub", "ui8", 0)
    with pytest.warns(ptosim.PtoWarning, match="destination bursts may overlap"):
        m.mte_gm_ub(m.gm(x), ub, 0, 64, nburst=(4, 64, 32))
    np.testing.assert_array_equal(m.read(ub, 160), [0] * 32 + [1] * 32 + [2] * 32 + [3] * 64)


def _gm_ub(m, **over):
    a = dict(gm_src=m.gm(np.zeros(256, np.float16)), ub_dst=m.ptr("ub", "f16", 0),
             l2_cache_ctl=0, len_burst=64, nburst=(2, 64, 64), loop=None, pad=None)
    a.update(over)
    m.mte_gm_ub(a.pop("gm_src"), a.pop("ub_dst"), a.pop("l2_cache_ctl"), a.pop("len_burst"), **a)


@pytest.mark.parametrize("over, err, msg", [
    (lambda m: dict(gm_src=m.ptr("ub", "f16", 0)), SpaceError, "gm_src must point into gm"),
    (lambda m: dict(ub_dst=m.ptr("l1", "f16", 0)), SpaceError, "ub_dst must point into ub"),
    (lambda m: dict(ub_dst=m.ptr("ub", "f32", 0)), DtypeError, "element sizes differ"),
    (lambda m: dict(ub_dst=m.ptr("ub", "f16", 48)), AlignmentError,
     "ub_dst byte offset 48 is not 32-byte aligned"),
    (lambda m: dict(len_burst=0), FieldRangeError, r"len_burst = 0 is out of range \[1, 65535\]"),
    (lambda m: dict(len_burst=1 << 16), FieldRangeError, "len_burst = 65536 .*16-bit"),
    (lambda m: dict(nburst=(1 << 16, 64, 64)), FieldRangeError, "nburst count = 65536"),
    (lambda m: dict(nburst=(0, 64, 64)), FieldRangeError, "nburst count = 0"),
    (lambda m: dict(nburst=(1, 1 << 40, 64)), FieldRangeError, "src_stride = 1099511627776 .*40-bit"),
    (lambda m: dict(nburst=(1, 64, 1 << 21)), FieldRangeError, "dst_stride = 2097152 .*21-bit"),
    (lambda m: dict(nburst=(2, 64, 48)), AlignmentError,
     "nburst dst_stride = 48 bytes is not a multiple of 32"),
    (lambda m: dict(nburst=(2, 64)), VerifyError, r"nburst\(\.\.\.\) takes 3 values"),
    (lambda m: dict(loop=[(2, 128, 80)]), AlignmentError, r"loop\[0\] dst_stride = 80 bytes"),
    (lambda m: dict(loop=[(2, 128)]), VerifyError, r"loop\[0\]\(\.\.\.\) takes 3 values"),
    (lambda m: dict(loop=[(1 << 21, 0, 0)]), FieldRangeError, r"loop\[0\] count = 2097152"),
    (lambda m: dict(loop=5), VerifyError, "loop must be a"),
    (lambda m: dict(l2_cache_ctl=4), FieldRangeError, "l2_cache_ctl = 4 .*2-bit"),
    (lambda m: dict(pad=(0, 1)), VerifyError, r"pad\(\.\.\.\) takes 1 or 3 values"),
    (lambda m: dict(pad=(0, 64, 0)), FieldRangeError, "pad left count = 64 .*6-bit"),
    (lambda m: dict(pad=(0, 0, 64)), FieldRangeError, "pad right count = 64"),
    (lambda m: dict(pad=("x",)), VerifyError, "pad value must be a number"),
    (lambda m: dict(pad=(0,), len_burst=63, nburst=(2, 64, 64)), AlignmentError,
     "len_burst = 63 bytes is not a whole number of f16 elements"),
    (lambda m: dict(pad=(0, 0, 8), nburst=(2, 64, 64)), VerifyError,
     "padded UB row of 96 bytes is longer than nburst dst_stride = 64"),
    (lambda m: dict(nburst=(3, 256, 64)), OutOfBoundsError, "gm_src touches GM bytes"),
    (lambda m: dict(ub_dst=m.ptr("ub", "f16", 256 * 1024 - 64)), OutOfBoundsError,
     "ub_dst touches ub bytes"),
])
def test_gm_ub_rejects(m, over, err, msg):
    with pytest.raises(err, match=msg) as info:
        _gm_ub(m, **over(m))
    assert str(info.value).startswith("mte_gm_ub: ")
    assert (raw(m, "ub") == POISON).all()


def test_pad_value_range_for_integers(m):
    ub = m.ptr("ub", "i8", 0)
    with pytest.raises(FieldRangeError, match=r"pad value 300 is not representable in i8"):
        m.mte_gm_ub(m.gm(np.zeros(32, np.int8)), ub, 0, 32, nburst=(1, 32, 32), pad=(300,))


def test_pad_needs_small_element(m):
    ub = m.ptr("ub", "i64", 0)
    with pytest.raises(DtypeError, match="pad value needs an 8/16/32-bit element type"):
        m.mte_gm_ub(m.gm(np.zeros(4, np.int64)), ub, 0, 32, nburst=(1, 32, 32), pad=(0,))


@pytest.mark.parametrize("over, err, msg", [
    (lambda m: dict(ub_src=m.ptr("ub", "f16", 16)), AlignmentError,
     "ub_src byte offset 16 is not 32-byte aligned"),
    (lambda m: dict(nburst=(2, 40, 64)), AlignmentError, "nburst src_stride = 40 bytes"),
    (lambda m: dict(nburst=(2, 1 << 21, 64)), FieldRangeError, "src_stride = 2097152 .*21-bit"),
    (lambda m: dict(nburst=(2, 64, 1 << 40)), FieldRangeError, "dst_stride .*40-bit"),
    (lambda m: dict(gm_dst=m.ptr("ub", "f16", 0)), SpaceError, "gm_dst must point into gm"),
    (lambda m: dict(nburst=(5, 64, 64)), OutOfBoundsError, "gm_dst touches GM bytes"),
])
def test_ub_gm_rejects(m, over, err, msg):
    a = dict(ub_src=m.ptr("ub", "f16", 0), gm_dst=m.gm_empty(128, "f16"), nburst=(2, 64, 64))
    a.update(over(m))
    before = m.read(a["gm_dst"], 1) if a["gm_dst"].space == "gm" else None
    with pytest.raises(err, match=msg) as info:
        m.mte_ub_gm(a["ub_src"], a["gm_dst"], 64, nburst=a["nburst"])
    assert str(info.value).startswith("mte_ub_gm: ")
    if before is not None:
        assert (m.read(a["gm_dst"], 128) == 0).all()


# --- mte_gm_l1 ---------------------------------------------------------------------------

def test_gm_l1_manual_example(m):
    """len 32 nburst(4, 64, 32): every other 32 B row of GM, packed in L1."""
    x = np.arange(4 * 32, dtype=np.float16)
    l1 = m.ptr("l1", "f16", 0)
    m.mte_gm_l1(m.gm(x), l1, 32, nburst=(4, 64, 32))
    np.testing.assert_array_equal(m.read(l1, 64).reshape(4, 16), x.reshape(4, 32)[:, :16])


@pytest.mark.filterwarnings("ignore::ptosim.PtoWarning")   # overlapping rows are drawn on purpose
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_gm_l1_matches_reference(data):
    m = ptosim.Machine(poison=POISON)
    length = data.draw(st.integers(1, 100))
    dims = [(data.draw(st.integers(1, 4)), data.draw(st.integers(0, 120)),
             32 * data.draw(st.integers(0, 5)))]
    if data.draw(st.booleans()):
        dims.append((data.draw(st.integers(1, 3)), data.draw(st.integers(0, 500)),
                     32 * data.draw(st.integers(0, 20))))
    n = length + sum((c - 1) * s for c, s, _ in dims)
    gm = np.random.default_rng(data.draw(st.integers(0, 9))).integers(0, 256, n, dtype=np.uint8)
    m.mte_gm_l1(m.gm(gm), m.ptr("l1", "ui8", 0), length, nburst=dims[0], loop=dims[1:])
    expect = np.full_like(raw(m, "l1"), POISON)
    reference_bursts(gm, expect, length, dims)
    np.testing.assert_array_equal(raw(m, "l1"), expect)


@pytest.mark.parametrize("over, err, msg", [
    (lambda m: dict(dst=m.ptr("l1", "f16", 2)), AlignmentError, "dst byte offset 2"),
    (lambda m: dict(nburst=(2, 64, 16)), AlignmentError, "nburst dst_stride = 16"),
    (lambda m: dict(src=m.ptr("ub", "f16", 0)), SpaceError, "src must point into gm"),
    (lambda m: dict(nburst=(1 << 21, 0, 0)), FieldRangeError, "nburst count = 2097152 .*21-bit"),
])
def test_gm_l1_rejects(m, over, err, msg):
    a = dict(src=m.gm(np.zeros(64, np.float16)), dst=m.ptr("l1", "f16", 0), nburst=(2, 64, 64))
    a.update(over(m))
    with pytest.raises(err, match=msg) as info:
        m.mte_gm_l1(a["src"], a["dst"], 64, nburst=a["nburst"])
    assert str(info.value).startswith("mte_gm_l1: ")


# --- gap model: mte_ub_ub, mte_ub_l1, mte_l1_ub ---------------------------------------------

@settings(max_examples=40, deadline=None)
@given(data=st.data(), op=st.sampled_from(["mte_ub_ub", "mte_ub_l1", "mte_l1_ub"]))
def test_gap_model_matches_reference(data, op):
    m = ptosim.Machine(poison=POISON)
    src_space, dst_space = {"mte_ub_ub": ("ub", "ub"), "mte_ub_l1": ("ub", "l1"),
                            "mte_l1_ub": ("l1", "ub")}[op]
    length, n = data.draw(st.integers(1, 4)), data.draw(st.integers(1, 5))
    sg, dg = data.draw(st.integers(0, 3)), data.draw(st.integers(0, 3))
    src_off = 32 * data.draw(st.integers(0, 3))
    dst_off = 4096 + 32 * data.draw(st.integers(0, 3))
    init = np.random.default_rng(data.draw(st.integers(0, 9))).integers(0, 256, 2048,
                                                                        dtype=np.uint8)
    raw(m, src_space)[src_off:src_off + 2048] = init
    src, dst = m.ptr(src_space, "f32", src_off), m.ptr(dst_space, "f32", dst_off)
    getattr(m, op)(src, dst, length, nburst=(n, sg, dg))
    expect = raw(m, src_space).copy() if src_space == dst_space else \
        np.full_like(raw(m, dst_space), POISON)
    if src_space == dst_space:
        expect[dst_off:] = POISON
        expect[src_off:src_off + 2048] = init
    reference_bursts(init, expect[dst_off:], 32 * length,
                     [(n, 32 * (length + sg), 32 * (length + dg))])
    np.testing.assert_array_equal(raw(m, dst_space), expect)


def test_ub_ub_one_burst(m):
    ub = m.ptr("ub", "f32", 0)
    m.write(ub, np.arange(8, dtype=np.float32))
    m.mte_ub_ub(ub, ub + 64, 1, nburst=(1, 0, 0))
    np.testing.assert_array_equal(m.read(ub + 64, 8), np.arange(8))


def test_ub_l1_stages_nz_one_burst_per_column_block(m):
    """A 16x32 f16 ND tile in UB becomes NZ in L1 with one burst group per column block
    (32 B bursts, src_gap 1 skips the other block, dst_gap 0 packs 16 rows)."""
    x = np.random.default_rng(4).standard_normal((16, 32)).astype(np.float16)
    ub, l1 = m.ptr("ub", "f16", 0, subblock=1), m.ptr("l1", "f16", 0)
    m.write(ub, x)
    for cb in range(2):
        m.mte_ub_l1(ub + 16 * cb, l1 + cb * 16 * 16, 1, nburst=(16, 1, 0))
    np.testing.assert_array_equal(m.read(l1, 512).reshape(2, 16, 16),
                                  x.reshape(16, 2, 16).transpose(1, 0, 2))


def test_l1_ub_loop_strides_are_bytes(m):
    l1, ub = m.ptr("l1", "ui8", 0), m.ptr("ub", "ui8", 0)
    raw(m, "l1")[:2048] = np.arange(2048) % 251
    m.mte_l1_ub(l1, ub, 1, nburst=(2, 1, 0), loop=(2, 1024, 128))
    expect = np.full(256, POISON, np.uint8)
    for i in range(2):
        for b in range(2):
            expect[i * 128 + b * 32:i * 128 + b * 32 + 32] = \
                raw(m, "l1")[i * 1024 + b * 64:i * 1024 + b * 64 + 32]
    np.testing.assert_array_equal(raw(m, "ub")[:256], expect)


@pytest.mark.parametrize("op, over, err, msg", [
    ("mte_ub_ub", lambda m: dict(dst=m.ptr("ub", "f32", 0, subblock=1)), SpaceError,
     "ub_src is in sub-block 0's UB but ub_dst in sub-block 1's"),
    ("mte_ub_ub", lambda m: dict(dst=m.ptr("ub", "f32", 40)), AlignmentError,
     "ub_dst byte offset 40 is not 32-byte aligned"),
    ("mte_ub_ub", lambda m: dict(nburst=(1, 1 << 16, 0)), FieldRangeError, "src_gap = 65536"),
    ("mte_ub_ub", lambda m: dict(nburst=(1, 0, 1 << 16)), FieldRangeError, "dst_gap = 65536"),
    ("mte_ub_ub", lambda m: dict(len_burst=0), FieldRangeError, "len_burst = 0"),
    ("mte_ub_ub", lambda m: dict(len_burst=1 << 16), FieldRangeError, "len_burst = 65536"),
    ("mte_ub_ub", lambda m: dict(nburst=(1 << 16, 0, 0)), FieldRangeError, "nburst count = 65536"),
    ("mte_ub_ub", lambda m: dict(src=m.ptr("ub", "f16", 0)), DtypeError, "element sizes differ"),
    ("mte_ub_ub", lambda m: dict(len_burst=9000), OutOfBoundsError, "touches ub bytes"),
    ("mte_ub_l1", lambda m: dict(dst=m.ptr("ub", "f32", 0)), SpaceError,
     "l1_dst must point into l1"),
    ("mte_ub_l1", lambda m: dict(dst=m.ptr("l1", "f32", 48)), AlignmentError,
     "l1_dst byte offset 48 is not 32-byte aligned"),
    ("mte_ub_l1", lambda m: dict(nburst=(4096, 0, 0)), FieldRangeError,
     r"nburst count = 4096 is out of range \[1, 4095\] \(12-bit field\)"),
    ("mte_l1_ub", lambda m: dict(src=m.ptr("l1", "f32", 0), dst=m.ptr("ub", "f32", 0, subblock=1)),
     SpaceError, "dst must be sub-block 0's UB"),
    ("mte_l1_ub", lambda m: dict(src=m.ptr("l1", "f32", 0), dst=m.ptr("ub", "f32", 0),
                                 loop=(2, 48, 0)), AlignmentError, r"loop\[0\] src_stride = 48"),
    ("mte_l1_ub", lambda m: dict(src=m.ptr("ub", "f32", 0), dst=m.ptr("ub", "f32", 0)),
     SpaceError, "src must point into l1"),
])
def test_gap_ops_reject(m, op, over, err, msg):
    a = dict(src=m.ptr("ub", "f32", 0), dst=m.ptr("ub" if op == "mte_ub_ub" else "l1", "f32",
                                                  1024), len_burst=1, nburst=(2, 0, 0))
    a.update(over(m))
    kw = {"loop": a.pop("loop")} if "loop" in a else {}
    with pytest.raises(err, match=msg) as info:
        getattr(m, op)(a["src"], a["dst"], a["len_burst"], nburst=a["nburst"], **kw)
    assert str(info.value).startswith(f"{op}: ")


@pytest.mark.parametrize("op", ["mte_ub_l1", "mte_l1_ub"])
def test_ub_l1_path_is_a5_only(op):
    m = ptosim.Machine(target="a2a3")
    src, dst = (m.ptr("ub", "f16", 0), m.ptr("l1", "f16", 0))
    if op == "mte_l1_ub":
        src, dst = dst, src
    with pytest.raises(TargetError, match=f"{op}: does not exist on target a2a3"):
        getattr(m, op)(src, dst, 1, nburst=(1, 0, 0))


def test_blocks_do_not_mix():
    m = ptosim.Machine(block_dim=2)
    with pytest.raises(SpaceError, match="ub_src is in block 0 but l1_dst in block 1"):
        m.mte_ub_l1(m.ptr("ub", "f16", 0), m.ptr("l1", "f16", 0, block=1), 1, nburst=(1, 0, 0))
