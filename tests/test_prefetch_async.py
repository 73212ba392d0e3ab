"""TPREFETCH_ASYNC: an SDMA prefetch into L2 (no GM or tile byte changes) whose bookkeeping
goes through the context's 256-byte UB scratch at address 0 between PIPE_ALL barriers;
PTOAS's `.pto` context / session / prefetch / wait ops and their rules; the Python face."""

from __future__ import annotations

import numpy as np
import pytest

import ptosim
from ptosim.errors import PtoSyntaxError, PtoTypeError, VerifyError
from ptosim.frontend.text import parse_module
from ptosim.kernel import Kernel
from ptosim.tile.prefetch_async import AsyncSession


def _setup(poison: int | None = None) -> tuple:
    m = ptosim.Machine("a5", poison=poison)
    data = np.arange(128, dtype=np.float32)
    src = m.gm(data)
    g = m.global_tensor(src, shape=(1, 1, 1, 1, 128), stride=(128, 128, 128, 128, 1))
    ctx = ptosim.PrefetchAsyncContext(m.gm(np.zeros(64, np.int8)))
    return m, data, src, g, ctx


@pytest.mark.parametrize("poison", [None, 0x5A])
def test_prefetch_changes_no_data_and_loses_the_scratch(poison: int | None) -> None:
    m, data, src, g, ctx = _setup(poison)
    ub = m.ptr("ub", "ui8", 0)
    m.write(ub, np.full(512, 7, np.uint8))
    assert not ctx.session.valid
    ev = m.TPREFETCH_ASYNC(g, ctx)
    assert ctx.session.valid and ev.handle != 0
    np.testing.assert_array_equal(m.read(src, 128), data)       # GM as it was
    got = m.read(ub, 512)
    np.testing.assert_array_equal(got[:256], np.full(256, poison or 0, np.uint8))
    np.testing.assert_array_equal(got[256:], np.full(256, 7, np.uint8))   # beyond: kept
    m.write(ub, np.full(256, 9, np.uint8))
    assert ev.Wait(ctx.session) is True
    assert (m.read(ub, 256) == (poison or 0)).all()            # the wait polls through it


def test_scratch_of_the_contexts_subblock() -> None:
    m, _, _, g, _ = _setup()
    ctx = ptosim.PrefetchAsyncContext(m.gm(np.zeros(8, np.uint8)), subblock=1)
    ub0, ub1 = m.ptr("ub", "ui8", 0, subblock=0), m.ptr("ub", "ui8", 0, subblock=1)
    m.write(ub0, np.full(256, 1, np.uint8))
    m.write(ub1, np.full(256, 1, np.uint8))
    m.TPREFETCH_ASYNC(g, ctx)
    assert (m.read(ub0, 256) == 1).all() and (m.read(ub1, 256) == 0).all()


def _rule(case: str) -> None:
    m, _, src, g, ctx = _setup()
    if case == "src":
        m.TPREFETCH_ASYNC(src, ctx)
    elif case == "ctx":
        m.TPREFETCH_ASYNC(g, "ctx")
    elif case == "2d":
        m.TPREFETCH_ASYNC(m.global_tensor(src, shape=(1, 1, 1, 2, 64),
                                          stride=(128, 128, 128, 64, 1)), ctx)
    elif case == "strided":
        m.TPREFETCH_ASYNC(m.global_tensor(src, shape=(1, 1, 1, 1, 64),
                                          stride=(64, 64, 64, 64, 2)), ctx)
    elif case == "ws_ptr":
        ptosim.PrefetchAsyncContext(3)
    elif case == "ws_space":
        ptosim.PrefetchAsyncContext(m.ptr("ub", "i8", 0))
    elif case == "ws_type":
        ptosim.PrefetchAsyncContext(m.gm(np.zeros(8, np.float32)))
    elif case == "session":
        m.TPREFETCH_ASYNC(g, ctx).Wait(ctx)


@pytest.mark.parametrize("case,err,msg", [
    ("src", PtoTypeError, r"TPREFETCH_ASYNC: src must be a GlobalTensor, got Ptr"),
    ("ctx", PtoTypeError, r"ctx must be a PrefetchAsyncContext, got str"),
    ("2d", VerifyError, r"src must be a flat contiguous 1-D GM view .*shape \(1, 1, 1, 2, 64\)"),
    ("strided", VerifyError, r"src must be a flat contiguous 1-D GM view"),
    ("ws_ptr", PtoTypeError, r"workspace must be a GM pointer, got int"),
    ("ws_space", ptosim.SpaceError, r"workspace must be in GM, got ub"),
    ("ws_type", ptosim.DtypeError, r"workspace element type must be an 8-bit integer, got f32"),
    ("session", PtoTypeError, r"session must be an AsyncSession, got PrefetchAsyncContext"),
])
def test_rules(case: str, err: type, msg: str) -> None:
    with pytest.raises(err, match=msg):
        _rule(case)


def test_session_type() -> None:
    assert isinstance(_setup()[4].session, AsyncSession)


# --- .pto -----------------------------------------------------------------------------------
MEM = "memref<128xf32, #pto.address_space<gm>>"
CTX = "!pto.prefetch_async_context"
LIT = f"""    %ctx = pto.make_prefetch_async_context(%ws : !pto.ptr<i8>) -> {CTX}
    %ev = pto.tprefetch_async(%src, %ctx : {MEM}, {CTX}) -> !pto.async_event
    %s = pto.get_prefetch_async_session %ctx : {CTX} -> !pto.async_session
    %done = pto.comm.wait_async_event(%ev, %s : !pto.async_event, !pto.async_session) -> i1
"""
# MTE2 loads src into UB at {at}; the prefetch (or nothing) sits between it and the MTE3
# store of the same UB bytes, with no flag: only the prefetch's PIPE_ALL barriers order them
KERNEL = """module attributes {{pto.target_arch = "a5", pto.kernel_kind = #pto.kernel_kind<vector>}} {{
  func.func @k(%src: {mem}, %dst: !pto.ptr<f32, gm>, %ws: !pto.ptr<i8>) attributes {{pto.aicore}} {{
    %c0 = arith.constant 0 : i64
    %c1 = arith.constant 1 : i64
    %at = arith.constant {at} : i64
    %n = arith.constant 512 : i64
    %ub = pto.castptr %at : i64 -> !pto.ptr<f32, ub>
    %g = pto.tensor_view_addr %src : {mem} -> !pto.ptr<f32, gm>
    pto.mte_gm_ub %g, %ub, %c0, %n nburst(%c1, %n, %n)
      : !pto.ptr<f32, gm>, !pto.ptr<f32, ub>, i64, i64, i64, i64, i64
{body}    pto.mte_ub_gm %ub, %dst, %n nburst(%c1, %n, %n)
      : !pto.ptr<f32, ub>, !pto.ptr<f32, gm>, i64, i64, i64, i64
    return
  }}
}}
"""
SRC = np.arange(128, dtype=np.float32) + 1


def _run(body: str, at: int = 1024, **kw: object) -> ptosim.kernel.RunResult:
    text = KERNEL.format(mem=MEM, at=at, body=body)
    return Kernel.from_text(text, "p.pto").run(
        {"src": SRC, "dst": np.zeros(128, np.float32), "ws": np.zeros(64, np.int8)}, **kw)


def test_ptoas_lit_kernel_runs_and_orders_the_pipes() -> None:
    bad = _run("")
    assert [f.kind for f in bad.findings] == ["RAW"]
    assert "pto.mte_ub_gm (block0.aiv0 PIPE_MTE3) reads what pto.mte_gm_ub" in \
        bad.findings[0].message
    good = _run(LIT)
    assert good.findings == []
    np.testing.assert_array_equal(good.outputs["dst"], SRC)     # UB 1024.. kept, GM too
    np.testing.assert_array_equal(good.outputs["src"], SRC)


@pytest.mark.parametrize("poison", [None, 0x7F])
def test_data_in_the_scratch_is_lost(poison: int | None) -> None:
    """Data kept at UB 0 .. 255 is overwritten by the SDMA bookkeeping: the first 64 f32
    come back as fill bytes; the rest of the row survives."""
    res = _run(LIT, at=0, poison=poison)
    fill = np.full(256, poison or 0, np.uint8).view(np.float32)
    np.testing.assert_array_equal(res.outputs["dst"][:64], fill)
    np.testing.assert_array_equal(res.outputs["dst"][64:], SRC[64:])


def _module(lines: str, params: str) -> str:
    return (f"module {{\n  func.func @k({params}) attributes {{pto.aicore}} {{\n"
            f"{lines}    return\n  }}\n}}\n")


@pytest.mark.parametrize("lines,params,msg", [
    (f"    %c = pto.make_prefetch_async_context(%w : !pto.ptr<f32>) -> {CTX}\n",
     "%w: !pto.ptr<f32>", r"expects workspace element type to be an 8-bit integer"),
    (f"    %c = pto.make_prefetch_async_context(%w : memref<8xi8, #pto.address_space<vec>>) "
     f"-> {CTX}\n", "%w: memref<8xi8, #pto.address_space<vec>>",
     r"expects workspace memref to be in GM address space"),
    (f"    %c = pto.make_prefetch_async_context(%w : i64) -> {CTX}\n", "%w: i64",
     r"expects workspace to be !pto.ptr<i8> or GM memref<i8>"),
    (f"    %c = pto.make_prefetch_async_context(%w : !pto.ptr<i8>) -> {CTX}\n"
     f"    %e = pto.tprefetch_async(%s, %c : memref<4x32xf32, #pto.address_space<gm>>, {CTX})"
     f" -> !pto.async_event\n", "%w: !pto.ptr<i8>, %s: memref<4x32xf32, "
     "#pto.address_space<gm>>",
     r"expects src to be a static flat contiguous logical 1D GM memref"),
    (f"    %c = pto.make_prefetch_async_context(%w : !pto.ptr<i8>) -> {CTX}\n"
     f"    %e = pto.tprefetch_async(%s, %c : !pto.ptr<f32>, {CTX}) -> !pto.async_event\n",
     "%w: !pto.ptr<i8>, %s: !pto.ptr<f32>",
     r"expects src to be a memref/tensor_view/partition_view"),
    (f"    %c = pto.make_prefetch_async_context(%w : !pto.ptr<i8>) -> {CTX}\n"
     f"    %e = pto.tprefetch_async(%s, %c : {MEM}, {CTX}) -> i1\n",
     f"%w: !pto.ptr<i8>, %s: {MEM}", r"the result must be !pto.async_event, got i1"),
])
def test_text_rules(lines: str, params: str, msg: str) -> None:
    with pytest.raises(PtoSyntaxError, match=msg):
        parse_module(_module(lines, params), "k.pto")


def test_lit_form_round_trips() -> None:
    module = parse_module(_module(LIT, f"%src: {MEM}, %ws: !pto.ptr<i8>"), "k.pto")
    text = str(module)
    for line in LIT.replace("!pto.ptr<i8>", "!pto.ptr<i8, gm>").splitlines():
        assert line.strip() in text


def test_prefetch_on_the_cube_core_is_refused() -> None:
    text = (f'module attributes {{pto.target_arch = "a5", pto.kernel_kind = '
            f'#pto.kernel_kind<cube>}} {{\n  func.func @k(%src: {MEM}, %ws: !pto.ptr<i8>) '
            f'attributes {{pto.aicore}} {{\n{LIT}    return\n  }}\n}}\n')
    with pytest.raises(ptosim.PtoError, match=r"p.pto:4:5: error: .*pto.tprefetch_async "
                                              r"runs on the vector cores \(AIV\)"):
        Kernel.from_text(text, "p.pto").run({"src": SRC, "ws": np.zeros(8, np.int8)})
