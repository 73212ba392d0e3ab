"""Machine state: targets, GM allocations, typed pointers, raw reads/writes and errors."""

import inspect

import ml_dtypes
import numpy as np
import pytest

import ptosim
from ptosim import Machine, OutOfBoundsError, PtoError, SpaceError, TargetError

KIB = 1024
SPEC = {
    "a2a3": {"l1": 512 * KIB, "l0a": 64 * KIB, "l0b": 64 * KIB, "l0c": 128 * KIB,
             "ub": 192 * KIB, "bt": 1 * KIB, "fb": 2 * KIB},
    "a5": {"l0c": 256 * KIB, "ub": 256 * KIB, "bt": 4 * KIB, "fb": 4 * KIB},
}
ALIASES = {"mat": "l1", "left": "l0a", "right": "l0b", "acc": "l0c", "vec": "ub",
           "bias": "bt", "scaling": "fb"}


def test_default_target_is_a5():
    assert Machine().target.name == "a5"
    assert len(Machine().blocks) == 1


@pytest.mark.parametrize("target", ["a2a3", "a5"])
def test_capacities(target):
    m = Machine(target=target)
    assert m.target.name == target
    blk = m.blocks[0]
    for space, size in SPEC[target].items():
        assert m.target.capacity[space] == size
        if space == "ub":
            assert len(blk.ub) == 2
            assert blk.ub[0].size == blk.ub[1].size == size
        else:
            assert blk.cube[space].size == size


def test_unknown_target():
    with pytest.raises(PtoError, match="unknown target"):
        Machine(target="a9")


@pytest.mark.parametrize("arr,name", [
    (np.arange(10, dtype=np.float32) * 0.5, "f32"),
    (np.arange(-5, 5, dtype=np.int8), "i8"),
    (np.arange(7, dtype=np.float16) - 3, "f16"),
    (np.array([1.5, -2.25, 3e38, 0.0], dtype=np.float32).astype(ml_dtypes.bfloat16), "bf16"),
    (np.arange(6, dtype=np.uint32) * 1000003, "ui32"),
    (np.arange(3, dtype=np.int64) - 2**40, "i64"),
])
def test_gm_round_trip(arr, name):
    m = Machine()
    p = m.gm(arr)
    assert p.space == "gm" and p.dtype.name == name
    out = m.read(p, arr.size)
    assert out.dtype == arr.dtype
    np.testing.assert_array_equal(out.view(np.uint8), arr.view(np.uint8))


def test_gm_copies_input_and_2d():
    m = Machine()
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    p = m.gm(a)
    a[:] = -1
    np.testing.assert_array_equal(m.read(p, 12), np.arange(12, dtype=np.float32))


def test_gm_allocations_are_distinct():
    m = Machine()
    p = m.gm(np.ones(4, np.float32))
    q = m.gm(np.full(4, 2, np.float32))
    assert p.offset != q.offset
    np.testing.assert_array_equal(m.read(p, 4), np.ones(4))
    np.testing.assert_array_equal(m.read(q, 4), np.full(4, 2.0))


def test_gm_empty_is_zeros():
    m = Machine()
    p = m.gm_empty(33, "f32")
    assert p.dtype.name == "f32"
    out = m.read(p, 33)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, np.zeros(33))
    with pytest.raises(PtoError, match="non-negative"):
        m.gm_empty(-1, "f32")


@pytest.mark.parametrize("dt", [np.float32, np.float16, np.int64, np.int8])
def test_pointer_arithmetic(dt):
    m = Machine()
    a = np.arange(20).astype(dt)
    p = m.gm(a)
    size = np.dtype(dt).itemsize
    for k in (0, 1, 7, 19):
        q = p + k
        assert q.offset == p.offset + k * size
        assert q.dtype == p.dtype and q.space == "gm"
        np.testing.assert_array_equal(m.read(q, 20 - k), a[k:])
        assert (q - k) == p
    assert (p + 5 - 3).offset == p.offset + 2 * size


@pytest.mark.parametrize("alias,space", ALIASES.items())
def test_space_aliases(alias, space):
    m = Machine()
    p = m.ptr(alias, "f16", 64)
    assert p.space == space and p.offset == 64 and p.dtype.name == "f16"
    assert m.ptr(space, "f16", 64) == p


def test_ub_subblocks_are_separate():
    m = Machine()
    u0 = m.ptr("ub", "f32", 128)
    u1 = m.ptr("ub", "f32", 128, subblock=1)
    assert u1.sub == 1
    m.write(u1, np.arange(8, dtype=np.float32))
    np.testing.assert_array_equal(m.read(u1, 8), np.arange(8))
    np.testing.assert_array_equal(m.read(u0, 8), np.zeros(8))
    assert not m.blocks[0].ub[0].any()
    assert m.blocks[0].ub[1].any()


def test_ptr_errors():
    m = Machine()
    with pytest.raises(PtoError, match="subblock"):
        m.ptr("ub", "f32", 0, subblock=2)
    with pytest.raises(PtoError, match="subblock"):
        m.ptr("l1", "f32", 0, subblock=1)
    cap = m.target.capacity["l1"]
    m.ptr("l1", "f32", cap - 4)  # last element is fine
    with pytest.raises(OutOfBoundsError, match="outside"):
        m.ptr("l1", "f32", cap)
    with pytest.raises(OutOfBoundsError, match="outside"):
        m.ptr("ub", "f32", -32)
    with pytest.raises(PtoError, match="unknown address space"):
        m.ptr("l2", "f32", 0)
    with pytest.raises(SpaceError, match="GM pointers"):
        m.ptr("gm", "f32", 0)
    with pytest.raises(PtoError, match="block 1 does not exist"):
        m.ptr("l1", "f32", 0, block=1)


def test_gm_read_bounds():
    m = Machine()
    p = m.gm(np.arange(4, dtype=np.float32))
    m.gm(np.arange(4, dtype=np.float32))
    m.read(p, 4)
    with pytest.raises(OutOfBoundsError, match="allocation"):
        m.read(p, 5)
    with pytest.raises(OutOfBoundsError, match="allocation"):
        m.read(p + 2, 3)
    with pytest.raises(OutOfBoundsError, match="allocation"):
        m.write(p + 3, np.zeros(2, np.float32))
    # p + 200 elements = 800 bytes past a 16-byte allocation: in the gap before the next one
    with pytest.raises(OutOfBoundsError, match="not inside any GM allocation"):
        m.read(p + 200, 1)
    with pytest.raises(OutOfBoundsError, match="not inside any GM allocation"):
        m.read(p - 1, 1)


def test_onchip_read_bounds():
    m = Machine()
    cap = m.target.capacity["l1"]
    p = m.ptr("l1", "f32", cap - 16)
    m.read(p, 4)
    with pytest.raises(OutOfBoundsError, match="beyond"):
        m.read(p, 5)
    with pytest.raises(OutOfBoundsError, match="beyond"):
        m.write(p, np.zeros(8, np.float32))


def test_write_converts_values():
    m = Machine()
    p = m.ptr("ub", "f32", 0)
    m.write(p, [1.5, 2.5])
    out = m.read(p, 2)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, [1.5, 2.5])
    m.write(p + 2, np.array([3, -4]))       # int -> f32 by value
    np.testing.assert_array_equal(m.read(p + 2, 2), [3.0, -4.0])
    q = m.ptr("ub", "bf16", 64)
    m.write(q, np.array([1.0, -0.5], np.float32))
    np.testing.assert_array_equal(m.read(q, 2).astype(np.float32), [1.0, -0.5])


def test_write_casts_out_of_range_values_quietly():
    """numpy's cast (a value past the type's range becomes inf), without numpy's
    RuntimeWarning leaking out of ptosim."""
    import warnings
    m = Machine()
    p = m.ptr("ub", "f16", 0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m.write(p, np.array([1e300, -1e300, 2.0]))
    np.testing.assert_array_equal(m.read(p, 3), np.array([np.inf, -np.inf, 2.0], np.float16))


def test_write_unsigned_as_raw_bits():
    m = Machine()
    p = m.ptr("l1", "f16", 0)
    m.write(p, np.array([0x3C00, 0xC000], np.uint16))
    np.testing.assert_array_equal(m.read(p, 2), np.array([1.0, -2.0], np.float16))
    np.testing.assert_array_equal(m.blocks[0].cube["l1"][:4], [0x00, 0x3C, 0x00, 0xC0])


def test_packed_dtype_requires_raw_codes():
    m = Machine()
    p = m.ptr("ub", "hif8", 0)
    m.write(p, np.array([0x08, 0x10], np.uint8))
    np.testing.assert_array_equal(ptosim.hif8_to_float32(m.read(p, 2)), [1.0, 2.0])
    with pytest.raises(PtoError, match="raw codes"):
        m.write(p, np.array([1.0, 2.0]))


def test_target_dtype_rules():
    m = Machine(target="a2a3")
    with pytest.raises(TargetError, match="does not exist on target a2a3"):
        m.gm(np.zeros(4, ml_dtypes.float8_e4m3fn))
    with pytest.raises(TargetError, match="does not exist on target a2a3"):
        m.ptr("l1", "hif8", 0)
    with pytest.raises(TargetError, match="does not exist on target a2a3"):
        m.gm_empty(4, "f8E5M2")
    m5 = Machine(target="a5")
    p = m5.gm(np.zeros(4, ml_dtypes.float8_e4m3fn))
    assert p.dtype.name == "f8E4M3FN"
    assert m5.ptr("l1", "hif8", 0).dtype.name == "hif8"


def test_poison_fills_onchip_buffers():
    m = Machine(poison=0xCD)
    blk = m.blocks[0]
    for buf in list(blk.cube.values()) + blk.ub:
        assert buf.dtype == np.uint8 and np.all(buf == 0xCD)
    np.testing.assert_array_equal(m.read(m.ptr("ub", "ui8", 0, subblock=1), 4), [0xCD] * 4)
    # GM is not poisoned
    np.testing.assert_array_equal(m.read(m.gm_empty(4, "ui8"), 4), np.zeros(4))
    # without poison buffers start zeroed
    assert all(not b.any() for b in Machine().blocks[0].cube.values())


def test_multiple_blocks():
    m = Machine(block_dim=2)
    assert len(m.blocks) == 2
    p = m.ptr("l1", "f32", 32, block=1)
    assert p.block == 1
    m.write(p, np.array([7.0], np.float32))
    np.testing.assert_array_equal(m.read(p, 1), [7.0])
    assert m.blocks[1].cube["l1"][32:36].view(np.float32)[0] == 7.0
    assert not m.blocks[0].cube["l1"].any()
    u = m.ptr("ub", "i32", 0, subblock=1, block=1)
    m.write(u, np.array([5], np.int32))
    assert m.blocks[1].ub[1][:4].view(np.int32)[0] == 5
    assert not m.blocks[0].ub[1].any() and not m.blocks[1].ub[0].any()
    # buffers are distinct objects
    assert m.blocks[0].cube["l0c"] is not m.blocks[1].cube["l0c"]


@pytest.mark.parametrize("bad", [0, -1])
def test_block_dim_invalid(bad):
    with pytest.raises(PtoError, match="block_dim"):
        Machine(block_dim=bad)


def test_error_hierarchy():
    classes = [obj for obj in vars(ptosim).values()
               if inspect.isclass(obj) and issubclass(obj, BaseException)
               and not issubclass(obj, Warning)]
    assert len(classes) >= 10
    for cls in classes:
        assert issubclass(cls, ptosim.PtoError), cls
    assert issubclass(ptosim.UnknownDtypeError, ValueError)
    assert issubclass(ptosim.NotImplementedOpError, NotImplementedError)
    assert issubclass(ptosim.PtoWarning, UserWarning)


def test_read_rejects_negative_count():
    m = ptosim.Machine()
    with pytest.raises(ptosim.PtoError, match="count must be a non-negative integer"):
        m.read(m.gm(np.arange(4, dtype=np.float32)), -1)


def test_ptr_rejects_non_integer_block_and_steps():
    m = ptosim.Machine()
    with pytest.raises(ptosim.PtoError, match=r"block 0\.5 does not exist"):
        m.ptr("l1", "f32", 0, block=0.5)
    p = m.ptr("l1", "f32", 0)
    with pytest.raises(ptosim.PtoError, match="whole elements"):
        p + 1.7
    with pytest.raises(ptosim.PtoError, match="whole elements"):
        p - 0.5


def test_planned_ops_raise_not_implemented():
    m = ptosim.Machine()
    with pytest.raises(ptosim.NotImplementedOpError, match="set_flag: set_flag is a PTO op "
                                                           "that ptosim does not implement yet"):
        m.set_flag("PIPE_MTE2", "PIPE_MTE1", "EVENT_ID0")
    with pytest.raises(AttributeError, match="no attribute 'nonsense'"):
        _ = m.nonsense


def test_block_dim_is_bounded_by_the_targets_ai_cores():
    """Each block holds ~1.4 MB of buffers: the Python face refuses more blocks than the
    target has AI cores unless told to, as `--block-dim` does."""
    for target, most in (("a2a3", 24), ("a5", 36)):
        assert len(ptosim.Machine(target, block_dim=most).blocks) == most
        with pytest.raises(ptosim.PtoValueError, match=rf"block_dim {most + 1} exceeds the "
                           rf"{most} blocks \(AI cores\) of {target}; pass "
                           rf"force_block_dim=True to run it anyway"):
            ptosim.Machine(target, block_dim=most + 1)
        assert len(ptosim.Machine(target, block_dim=most + 1, force_block_dim=True).blocks) \
            == most + 1
