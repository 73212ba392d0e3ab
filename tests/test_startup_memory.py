"""Start-up and memory: what loads when, and which memory an untouched buffer costs.

No timings here (benchmarks/bench_startup.py and bench_memory.py print those): these tests
pin the mechanisms — lazy public names, op classes built on first use, on-chip buffers as
anonymous maps — and check that results do not change."""

import gc
import mmap
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import ptosim
from ptosim.errors import PtoSyntaxError
from ptosim.frontend import PTO, generated_ops as gen, parse_module
from ptosim.frontend.dialect import HAND_MICRO_OPS, MICRO_OPS, PTO_CORE, VECTOR_TILE_OPS
from ptosim.isa import GENERATED
from ptosim.machine import lazy_zeros

SRC = str(Path(ptosim.__file__).resolve().parent.parent)


def _map_of(a: np.ndarray) -> object:
    """The object whose memory ``a`` views (np.frombuffer keeps a memoryview of it)."""
    base = a.base
    return base.obj if isinstance(base, memoryview) else base


def _fresh(code: str) -> str:
    """Run ``code`` in a new interpreter with this checkout's ptosim; its stdout."""
    env = {**os.environ, "PYTHONPATH": SRC}
    return subprocess.run([sys.executable, "-c", code], env=env, check=True,
                          capture_output=True, text=True).stdout.strip()


def test_import_ptosim_loads_no_op_registry():
    out = _fresh("import sys, ptosim\n"
                 "print(sorted(m for m in ('ptosim.api', 'ptosim.isa', 'ptosim.frontend',"
                 " 'ptosim.mlir', 'numpy') if m in sys.modules))")
    assert out == "[]"


def test_parsing_and_running_a_kernel_needs_no_xdsl():
    """The front end is ptosim.mlir: a parse, a verify and a run import no xDSL module
    (xDSL stays only as the reference of the tests/mlir comparison tests)."""
    kernel = ('module attributes {pto.target_arch = "a5"} {\n'
              '  func.func @k() attributes {pto.aicore} {\n'
              '    %c = arith.constant 3 : index\n    return\n  }\n}\n')
    out = _fresh("import sys\n"
                 "from ptosim.kernel import Kernel\n"
                 f"Kernel.from_text({kernel!r}).run({{}})\n"
                 "print(sorted(m for m in sys.modules if m.split('.')[0] == 'xdsl'),"
                 " 'ptosim.mlir.parser' in sys.modules)")
    assert out == "[] True"


def test_public_names_load_on_first_use():
    for name in ptosim.__all__:
        assert getattr(ptosim, name) is not None, name
    assert ptosim.Machine is __import__("ptosim.api", fromlist=["Machine"]).Machine
    assert ptosim.dtype("f16").size == 2
    assert set(ptosim.__all__) <= set(dir(ptosim))
    with pytest.raises(AttributeError, match="no attribute 'nonexistent'"):
        ptosim.nonexistent  # noqa: B018


def test_parsing_builds_only_the_generated_ops_a_kernel_names():
    kernel = """
module attributes {pto.target_arch = "a5"} {
  func.func @k(%p: !pto.ptr<f32, ub>) attributes {pto.aicore} {
    pto.vecscope {
      %m = pto.pset_b32 "PAT_ALL" : !pto.mask<b32>
      %z = arith.constant 0 : index
      %v = pto.vlds %p[%z] : !pto.ptr<f32, ub> -> !pto.vreg<64xf32>
      %w = pto.vadd %v, %v, %m : !pto.vreg<64xf32>, !pto.vreg<64xf32>, !pto.mask<b32> -> !pto.vreg<64xf32>
      pto.vsts %w, %p[%z], %m : !pto.vreg<64xf32>, !pto.ptr<f32, ub>, !pto.mask<b32>
    }
    return
  }
}"""
    code = ("from ptosim.frontend import parse_module\n"
            "from ptosim.frontend import generated_ops as g\n"
            f"parse_module({kernel!r})\n"
            "print(sorted(g._MADE), len(g.GENERATED))")
    out = _fresh(code)
    made, total = out.rsplit(" ", 1)
    assert made == "['pto.pset_b32', 'pto.vadd', 'pto.vlds', 'pto.vsts']"
    assert int(total) > 100


def test_parsing_builds_only_the_arith_ops_a_kernel_names():
    kernel = ('module attributes {pto.target_arch = "a5"} {\n'
              '  func.func @k(%a: i64) attributes {pto.aicore} {\n'
              '    %b = arith.muli %a, %a : i64\n    return\n  }\n}\n')
    out = _fresh("from ptosim.frontend import parse_module\n"
                 "from ptosim.mlir import arith\n"
                 f"parse_module({kernel!r})\n"
                 "print(sorted(arith._BUILT), len(arith.OP_NAMES))")
    built, total = out.rsplit(" ", 1)
    # constant and index_cast are defined at import (ptosim names their classes)
    assert built == "['arith.constant', 'arith.index_cast', 'arith.muli']"
    assert int(total) == 48


def test_one_class_per_generated_mnemonic():
    spec = next(s for s in GENERATED if s.name == "vadd")
    first = gen.generated_op(spec.mnemonic)
    assert first is gen.generated_op(spec.mnemonic)
    assert first in PTO.operations and first.SPEC is spec
    assert gen.generated_op("pto.nonexistent") is None
    assert gen.generated_op("pto.castptr") is None          # hand-written, not generated


def test_full_op_lists_match_the_registry():
    from ptosim.frontend import dialect as dialect_module

    generated = gen.generated_ops()
    assert [c.SPEC for c in generated] == list(GENERATED)
    lazy = {c for m in dialect_module.LAZY_MODULES for c in dialect_module.lazy_classes(m)[0]}
    assert set(PTO.operations) == {*PTO_CORE.operations, *generated, *lazy}
    assert set(MICRO_OPS) == {*HAND_MICRO_OPS, *(c for c in generated if c.SPEC.kind == "micro")}
    assert set(VECTOR_TILE_OPS) == {c for c in generated if c.SPEC.kind == "tile"}
    assert generated == gen.GENERATED_OPS
    from ptosim.frontend import dialect
    assert dialect.PTO is PTO                               # built once
    with pytest.raises(AttributeError, match="no attribute 'NOPE'"):
        dialect.NOPE  # noqa: B018


def test_unknown_pto_op_is_still_a_syntax_error():
    text = """
module {
  func.func @k() {
    pto.not_an_op
    return
  }
}"""
    with pytest.raises(PtoSyntaxError, match=r"unknown op 'pto\.not_an_op'"):
        parse_module(text)


def test_lazy_zeros_is_a_writable_zero_byte_array():
    a = lazy_zeros(10000)
    assert a.dtype == np.uint8 and a.shape == (10000,) and a.flags.writeable
    assert not a.any()
    a[4097] = 7
    assert a[4097] == 7 and a.sum() == 7
    assert isinstance(_map_of(a), mmap.mmap)
    empty = lazy_zeros(0)
    assert empty.shape == (0,) and empty.dtype == np.uint8


def test_on_chip_buffers_are_maps_of_their_own():
    """Each buffer its own anonymous map, so untouched pages are never committed whatever
    malloc's mmap threshold; a poison fill is an ordinary array of that byte."""
    m = ptosim.Machine(block_dim=3)
    for blk in m.blocks:
        for data in [*blk.cube.values(), *blk.ub]:
            assert isinstance(_map_of(data), mmap.mmap) and not data.any()
    assert len({id(_map_of(d)) for blk in m.blocks for d in [*blk.cube.values(), *blk.ub]}) == \
        3 * (len(m.blocks[0].cube) + 2)
    poisoned = ptosim.Machine(poison=0xA5)
    assert (poisoned.blocks[0].ub[1] == 0xA5).all()


def test_untouched_blocks_stay_out_of_memory():
    """36 blocks (~72 MB of buffers) cost almost nothing until touched (RSS in pages)."""
    code = ("import ptosim\n"
            "def rss():\n"
            "    return int(open('/proc/self/statm').read().split()[1]) * 4096\n"
            "m = ptosim.Machine(block_dim=36)\n"
            "before = rss()\n"
            "m.blocks[35].cube['l0a'][:] = 1\n"
            "print(before, rss(), sum(d.size for b in m.blocks for d in [*b.cube.values(), *b.ub]))")
    start = int(_fresh("def rss():\n"
                       "    return int(open('/proc/self/statm').read().split()[1]) * 4096\n"
                       "import ptosim\nptosim.Machine\nprint(rss())"))
    before, after, total = (int(x) for x in _fresh(code).split())
    assert total > 36 * (1 << 20)
    assert before - start < 8 << 20          # not the 72 MB the buffers span
    assert after - before >= 64 << 10        # touching L0A commits its 64 KiB


SPLIT = Path(__file__).resolve().parent.parent / "examples" / "cube_vector" / "kernel.pto"


def _split_args(seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {"a": rng.uniform(-1, 1, (40, 50)).astype(np.float16),
            "b": rng.uniform(-1, 1, (50, 64)).astype(np.float16),
            "c": np.zeros((40, 64), np.float32)}


def test_released_blocks_give_the_same_outputs_and_read_as_zeros():
    from ptosim.kernel import Kernel
    k = Kernel.from_file(SPLIT)
    kept = k.run(_split_args(1), block_dim=3)
    freed = k.run(_split_args(1), block_dim=3, keep_on_chip=False)
    np.testing.assert_array_equal(freed.outputs["c"], kept.outputs["c"])
    want = (_split_args(1)["a"].astype(np.float32) @ _split_args(1)["b"].astype(np.float32))
    np.testing.assert_allclose(kept.outputs["c"], want, rtol=1e-3, atol=1e-3)
    for blk in kept.machine.blocks:         # the default keeps every buffer for a look
        assert blk.ub[0].any() and blk.cube["l0c"].any()
    for blk in freed.machine.blocks:        # released: zeros again, still mapped
        assert not any(d.any() for d in (*blk.cube.values(), *blk.ub))
        assert all(isinstance(_map_of(d), mmap.mmap) for d in blk.ub)


def test_a_block_is_released_when_its_last_core_ends(monkeypatch):
    from ptosim.api import Machine
    from ptosim.kernel import Kernel
    from ptosim.machine import MachineState
    seen: list[tuple[int, list[bool]]] = []
    original = MachineState.release_block

    def spy(self: MachineState, block: int) -> None:
        # block b's cores are done: its accumulator holds its product; later blocks not yet
        seen.append((block, [bool(b.cube["l0c"].any()) for b in self.blocks]))
        original(self, block)
    monkeypatch.setattr(Machine, "release_block", spy)     # (Machine wraps its methods)
    Kernel.from_file(SPLIT).run(_split_args(2), block_dim=3, keep_on_chip=False)
    assert [b for b, _ in seen] == [0, 1, 2]
    assert seen[0][1] == [True, False, False]
    assert seen[1][1] == [False, True, False]      # block 0 was released before
    Kernel.from_file(SPLIT).run(_split_args(2), block_dim=3)
    assert len(seen) == 3                          # kept: nothing released


def test_release_leaves_a_poison_fill_alone():
    m = ptosim.Machine(block_dim=2, poison=0xA5)
    m.release_block(1)
    assert (m.blocks[1].ub[0] == 0xA5).all()
    plain = ptosim.Machine(block_dim=2)
    plain.blocks[1].ub[1][:64] = 7
    plain.release_block(1)
    assert not plain.blocks[1].ub[1].any() and plain.blocks[1].ub[1].flags.writeable


def test_release_names_a_block_that_exists():
    from ptosim.errors import PtoValueError
    m = ptosim.Machine(block_dim=2)
    for bad in (2, -1, "0"):
        with pytest.raises(PtoValueError, match="does not exist \\(block_dim = 2\\)"):
            m.release_block(bad)


def test_pause_and_resume_the_collector():
    from ptosim import startup
    assert gc.isenabled()
    try:
        startup.resume()                    # no pause: nothing happens
        assert gc.isenabled() and gc.get_freeze_count() == 0
        startup.pause()
        assert not gc.isenabled()
        startup.resume()
        assert gc.isenabled() and gc.get_freeze_count() > 0
        gc.unfreeze()
        gc.disable()                        # the caller's choice: left alone
        startup.pause()
        startup.resume()
        assert not gc.isenabled() and gc.get_freeze_count() == 0
    finally:
        gc.unfreeze()
        gc.enable()


_COMMAND = """
import gc, sys
import ptosim.kernel as k
seen = []
parse = k.Kernel.from_bytes.__func__
def spy(cls, *a, **kw):
    seen.append(gc.isenabled())
    return parse(cls, *a, **kw)
k.Kernel.from_bytes = classmethod(spy)
sys.argv = ["ptosim"] + sys.argv[1:]
from ptosim.server import entry
code = entry()
print(code, seen, gc.isenabled(), gc.get_freeze_count() > 0)
"""


@pytest.mark.parametrize("args, want", [
    (["run", "{kernel}"], "0 [False] True True"),           # paused while parsing
    (["check", "{kernel}"], "0 [False] True True"),
    (["run", "{missing}"], "2 [] True True"),               # a usage error resumes too
    (["--help"], "0 [] True True"),
    (["layout", "--layout", "nd", "--dtype", "f32", "--shape", "16x8"], "0 [] True True"),
])
def test_the_command_collects_no_garbage_until_its_kernel_is_parsed(tmp_path, args, want):
    kernel = tmp_path / "k.pto"
    kernel.write_text(
        'module attributes {pto.target_arch = "a5"} {\n'
        '  func.func @k() attributes {pto.aicore} {\n    return\n  }\n}\n')
    argv = [a.format(kernel=kernel, missing=tmp_path / "none.pto") for a in args]
    env = {**os.environ, "PYTHONPATH": SRC, "PTOSIM_SERVER": "off"}
    got = subprocess.run([sys.executable, "-c", _COMMAND, *argv], env=env, check=True,
                         capture_output=True, text=True).stdout.strip().splitlines()[-1]
    assert got == want
