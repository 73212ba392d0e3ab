"""The Python API refuses hostile arguments with PtoErrors only (each also the matching
builtin: TypeError for a wrong type, ValueError for a bad value) and writes nothing first.
The harness (tests/api_harness.py) calls every public Machine method with one hostile value
at a time in every argument and clause element (about 5,100 calls; before the guard 682
of them escaped as AttributeError / TypeError / ValueError / AssertionError)."""

import math

import numpy as np
import pytest

import api_harness
import ptosim
from ptosim.errors import PtoError, PtoTypeError, PtoValueError, VerifyError
from ptosim.kernel import Kernel


def test_baselines_are_valid_calls():
    m, calls = api_harness.setup()
    for name, (args, kwargs) in calls.items():
        if name in api_harness.REFUSED_BASELINES:
            with pytest.raises(PtoError):
                getattr(m, name)(*args, **kwargs)
        else:
            getattr(m, name)(*args, **kwargs)
    public = {n for n in dir(ptosim.Machine) if not n.startswith("_")
              and callable(getattr(ptosim.Machine, n))}
    assert public == set(calls)         # a new public method needs a baseline here


def test_every_hostile_argument_is_refused_with_a_pto_error_and_writes_nothing():
    total = refused = 0
    bad: list[str] = []
    for out in api_harness.run():
        total += 1
        if out.error is None:
            continue
        refused += 1
        err = out.error
        if not isinstance(err, PtoError) or not isinstance(
                err, (TypeError, ValueError, NotImplementedError)):
            bad.append(f"{out.case.method} {out.case.where}: {type(err).__name__}: {err}")
        if out.wrote:
            bad.append(f"{out.case.method} {out.case.where}: wrote memory before {err!r}")
    assert total > 5000 and refused > 3000
    assert not bad, "\n".join(bad[:20])


def test_stray_errors_name_the_op_and_argument():
    m = ptosim.Machine()
    with pytest.raises(PtoTypeError) as err:
        m.read(None, 4)
    assert str(err.value) == "read: argument ptr must be Ptr, got None (NoneType)"
    assert err.value.operand == "ptr" and isinstance(err.value, TypeError)
    assert isinstance(err.value.__cause__, AttributeError)      # the original, for debugging
    with pytest.raises(PtoTypeError, match=r"^read_tile: argument t must be Tile, got 'x' \(str\)$"):
        m.read_tile("x")
    with pytest.raises(PtoTypeError, match="unexpected keyword argument 'lenburst'"):
        m.mte_ub_ub(m.ptr("ub", "f16"), m.ptr("ub", "f16", 64), lenburst=1)


def test_tile_op_errors_name_the_tile_op_not_its_micro_op():
    m = ptosim.Machine()
    t = m.tile("Vec", "f16", 16, 16)
    g = m.global_tensor(m.gm(np.zeros(256, np.float16)), (1, 1, 1, 16, 16),
                        (256, 256, 256, 16, 1))
    with pytest.raises(PtoTypeError, match=r"^TLOAD: argument cpu_sim_compat"):
        m.TLOAD(t, g, cpu_sim_compat=np.array([1, 2]))


def test_bad_values_are_value_errors():
    m = ptosim.Machine()
    for call in (lambda: m.gm_empty(-1, "f16"), lambda: m.read(m.ptr("ub", "f16"), -2),
                 lambda: m.ptr("ub", "f16", 0, subblock=2), lambda: ptosim.Machine("a7"),
                 lambda: ptosim.Machine(block_dim=0), lambda: m.ptr("xx", "f16"),
                 lambda: m.tile("Vec", "f16", 16, 16, valid=(1,))):
        with pytest.raises(PtoValueError):
            call()
    with pytest.raises(VerifyError) as err:            # an op's rule: also a ValueError
        m.mte_ub_l1(m.ptr("ub", "f16"), m.ptr("l1", "f16", 48), 1, nburst=(1, 0, 0))
    assert isinstance(err.value, ValueError)


@pytest.mark.parametrize("value", [None, 1.5, "2", math.nan, (1,), True])
def test_pointer_arithmetic_refuses_non_integers(value):
    p = ptosim.Machine().ptr("ub", "f32", 64)
    with pytest.raises(PtoTypeError, match="pointer arithmetic moves by whole elements"):
        p + value
    with pytest.raises(PtoTypeError):
        p - value
    assert (p + np.int64(2)).offset == 72 and (p - 1).offset == 60


def test_machine_constructor_refuses_hostile_arguments():
    for kwargs in ({"target": None}, {"target": 5}, {"block_dim": "2"}, {"block_dim": 1.0},
                   {"poison": "x"}, {"poison": []}, {"nope": 1}):
        with pytest.raises(PtoError) as err:
            ptosim.Machine(**kwargs)
        assert isinstance(err.value, (TypeError, ValueError)), kwargs


KERNEL = """module {
  func.func @k(%a: !pto.ptr<f32, gm>, %n: i64) attributes {pto.aicore} {
    return
  }
}
"""


@pytest.mark.parametrize("args", [None, 5, "a", {"a": None, "n": 1},
                                  {"a": np.zeros(4, np.float32), "n": None},
                                  {"a": np.zeros(4, np.float32), "n": math.nan},
                                  {"a": "file.bin", "n": 1}, {"a": Opaque(), "n": 1}
                                  if (Opaque := api_harness.Opaque) else None,
                                  {"a": np.zeros(4, np.float32), "n": 2**70}])
def test_kernel_run_refuses_hostile_arguments(args):
    k = Kernel.from_text(KERNEL)
    with pytest.raises(PtoError) as err:
        k.run(args)
    assert isinstance(err.value, PtoError)
    with pytest.raises(PtoError):
        k.run({"a": np.zeros(4, np.float32), "n": 1}, target="zz")
    with pytest.raises(PtoError):
        k.run({"a": np.zeros(4, np.float32), "n": 1}, block_dim=None)
