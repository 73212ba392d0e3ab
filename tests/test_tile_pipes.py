"""a5 cube <-> vector tile pipes (.pto frontend ops): a mixed kernel whose cube pushes
matmul results through a C2V pipe and whose vector core pops, computes and stores them;
the V2C round trip of PTOAS's lit test; deadlock and rule diagnostics."""

from __future__ import annotations

import numpy as np
import pytest

from ptosim.errors import DeadlockError, NotImplementedOpError, PtoSyntaxError, VerifyError
from ptosim.kernel import Kernel

ACC = ("!pto.tile_buf<loc=acc, dtype=f32, rows=16, cols=16, v_row=16, v_col=16, "
       "blayout=col_major, slayout=row_major, fractal=1024, pad=0>")
VEC = ("!pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=16, v_row=16, v_col=16, "
       "blayout=row_major, slayout=none_box, fractal=512, pad=0>")
MAT = ("!pto.tile_buf<loc=mat, dtype=f32, rows=16, cols=16, v_row=16, v_col=16, "
       "blayout=col_major, slayout=row_major, fractal=512, pad=0>")
LEFT = ("!pto.tile_buf<loc=left, dtype=f32, rows=16, cols=16, v_row=16, v_col=16, "
        "blayout=col_major, slayout=row_major, fractal=512, pad=0>")
RIGHT = ("!pto.tile_buf<loc=right, dtype=f32, rows=16, cols=16, v_row=16, v_col=16, "
         "blayout=row_major, slayout=col_major, fractal=512, pad=0>")


def c2v_kernel(n: int, slot_num: int = 2, pop: bool = True, init: str = "") -> str:
    """Cube: for i < n, acc = A_i @ B, push acc. Vector: pop, out_i = popped + popped."""
    view = "!pto.tensor_view<?x?xf32>"
    part = "!pto.partition_tensor_view<16x16xf32>"
    pop_text = f"""
        %t = pto.tpop_from_aic {{id = 0, split = 0}} -> {VEC}
        pto.tadd ins(%t, %t : {VEC}, {VEC}) outs(%r : {VEC})
        %ov = pto.partition_view %out_v, offsets = [%row, %c0], sizes = [%c16, %c16] : {view} -> {part}
        pto.tstore ins(%r : {VEC}) outs(%ov : {part})
        pto.tfree_from_aic {{id = 0, split = 0}}""" if pop else ""
    return f"""module {{
  func.func @k(%a: !pto.ptr<f32>, %b: !pto.ptr<f32>, %out: !pto.ptr<f32>) attributes {{pto.entry}} {{
    func.call @cube(%a, %b) : (!pto.ptr<f32>, !pto.ptr<f32>) -> ()
    func.call @vec(%out) : (!pto.ptr<f32>) -> ()
    return
  }}
  func.func private @cube(%a: !pto.ptr<f32>, %b: !pto.ptr<f32>) attributes {{pto.kernel_kind = #pto.kernel_kind<cube>}} {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %cn = arith.constant {n} : index
    %rows = arith.constant {16 * n} : index
    %imp = pto.import_reserved_buffer {{name = "c2v_fifo", peer_func = @vec}} -> i32
    {init or f'pto.aic_initialize_pipe {{id = 0, dir_mask = 1, slot_size = 1024, slot_num = {slot_num}}} (c2v_consumer_buf = %imp : i32, v2c_consumer_buf = %imp : i32)'}
    %av = pto.make_tensor_view %a, shape = [%rows, %c16], strides = [%c16, %c1] : {view}
    %bv = pto.make_tensor_view %b, shape = [%c16, %c16], strides = [%c16, %c1] : {view}
    %bp = pto.partition_view %bv, offsets = [%c0, %c0], sizes = [%c16, %c16] : {view} -> {part}
    %am = pto.alloc_tile : {MAT}
    %bm = pto.alloc_tile : {MAT}
    %l = pto.alloc_tile : {LEFT}
    %r = pto.alloc_tile : {RIGHT}
    %acc = pto.alloc_tile : {ACC}
    pto.tload ins(%bp : {part}) outs(%bm : {MAT})
    pto.tmov ins(%bm : {MAT}) outs(%r : {RIGHT})
    scf.for %i = %c0 to %cn step %c1 {{
      %row = arith.muli %i, %c16 : index
      %ap = pto.partition_view %av, offsets = [%row, %c0], sizes = [%c16, %c16] : {view} -> {part}
      pto.tload ins(%ap : {part}) outs(%am : {MAT})
      pto.tmov ins(%am : {MAT}) outs(%l : {LEFT})
      pto.tmatmul ins(%l, %r : {LEFT}, {RIGHT}) outs(%acc : {ACC})
      pto.tpush_to_aiv(%acc : {ACC}) {{id = 0, split = 0}}
    }}
    return
  }}
  func.func private @vec(%out: !pto.ptr<f32>) attributes {{pto.kernel_kind = #pto.kernel_kind<vector>}} {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %cn = arith.constant {n} : index
    %rows = arith.constant {16 * n} : index
    %buf = pto.reserve_buffer {{name = "c2v_fifo", size = {1024 * slot_num}, location = #pto.address_space<vec>, auto = true}} -> i32
    pto.aiv_initialize_pipe {{id = 0, dir_mask = 1, slot_size = 1024, slot_num = {slot_num}}} (c2v_consumer_buf = %buf : i32, v2c_consumer_buf = %buf : i32)
    %out_v = pto.make_tensor_view %out, shape = [%rows, %c16], strides = [%c16, %c1] : {view}
    %r = pto.alloc_tile : {VEC}
    scf.for %i = %c0 to %cn step %c1 {{
      %row = arith.muli %i, %c16 : index{pop_text}
    }}
    return
  }}
}}
"""


def _inputs(n: int, seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    return {"a": rng.standard_normal((16 * n, 16)).astype(np.float32),
            "b": rng.standard_normal((16, 16)).astype(np.float32),
            "out": np.zeros((16 * n, 16), np.float32)}


def _golden(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    n = a.shape[0] // 16
    blocks = [np.einsum("ik,kj->ij", a[16 * i:16 * i + 16].astype(np.float64), b) for i in
              range(n)]
    return (2 * np.concatenate(blocks)).astype(np.float32)


@pytest.mark.parametrize(("n", "slot_num"), [(1, 2), (2, 2), (4, 4), (1, 1)])
def test_cube_pushes_vector_pops_matches_numpy(n: int, slot_num: int) -> None:
    args = _inputs(n)
    result = Kernel.from_text(c2v_kernel(n, slot_num), "pipe.pto").run(args, target="a5")
    got = np.asarray(result.outputs["out"]).reshape(16 * n, 16)
    np.testing.assert_allclose(got, _golden(args["a"], args["b"]), rtol=1e-5, atol=1e-4)
    # the pipe's flags order the cross-core slot traffic: nothing found across cores
    assert not [f for f in result.findings
                if "block0.aic" in f.message and "block0.aiv" in f.message]


def test_pop_with_no_producer_is_a_deadlock_naming_the_op() -> None:
    text = c2v_kernel(1).replace(
        f"      pto.tpush_to_aiv(%acc : {ACC}) {{id = 0, split = 0}}\n", "")
    with pytest.raises(DeadlockError) as info:
        Kernel.from_text(text, "pipe.pto").run(_inputs(1), target="a5")
    msg = str(info.value)
    assert "block0.aiv0 waits in pto.tpop_from_aic" in msg
    assert "aic->aiv0 #0" in msg


def test_more_pushes_than_slots_without_pops_deadlocks_the_producer() -> None:
    # a5's TPipe constructor credits SyncPeriod frees up front: pushes 2 and 4 take them,
    # push 6 waits for a TFREE that never comes
    text = c2v_kernel(7, 2, pop=False)
    with pytest.raises(DeadlockError, match=r"block0\.aic waits in pto\.tpush_to_aiv"):
        Kernel.from_text(text, "pipe.pto").run(_inputs(7), target="a5")


def test_producer_running_ahead_overwrites_an_unread_slot_and_is_reported() -> None:
    """a5's up-front free credits let the cube refill slot 0 before the vector core read
    it (pto-isa a5 TPipe: SyncPeriod frees at construction, no wait before tile slot_num's
    first period); the cube runs first here, so the hazard checker reports the slot write
    racing with the pop's reads."""
    result = Kernel.from_text(c2v_kernel(3, 2), "pipe.pto").run(_inputs(3), target="a5")
    cross = [f for f in result.findings
             if "block0.aic" in f.message and "block0.aiv0" in f.message]
    assert cross and all("pto.tpush_to_aiv" in f.message for f in cross)


def test_a2a3_pipes_are_not_implemented() -> None:
    with pytest.raises(NotImplementedOpError, match="a2a3's GM FIFO pipes are not "
                       "implemented yet"):
        Kernel.from_text(c2v_kernel(1), "pipe.pto").run(_inputs(1), target="a2a3")


@pytest.mark.parametrize(("old", "new", "message"), [
    ("dir_mask = 1, slot_size = 1024, slot_num = 2} (c2v",
     "dir_mask = 5, slot_size = 1024, slot_num = 2} (c2v",
     "dir_mask must be 1 \\(C2V\\), 2 \\(V2C\\) or 3 \\(both\\), got 5"),
    ("slot_num = 2} (c2v_consumer_buf = %imp", "slot_num = 3} (c2v_consumer_buf = %imp",
     "slot_num must be 1, 2, 4 or 8, got 3"),
    ("pto.tpush_to_aiv(%acc : " + ACC + ") {id = 0, split = 0}",
     "pto.tpush_to_aiv(%acc : " + ACC + ") {id = 0, split = 7}",
     "split must be 0 \\(no split\\), 1 \\(up-down\\) or 2 \\(left-right\\), got 7"),
    ("pto.tpush_to_aiv(%acc : " + ACC, "pto.tpush_to_aiv(%r : " + RIGHT,
     "pushes a loc=acc tile"),
    ("location = #pto.address_space<vec>", "location = #pto.address_space<acc>",
     "location must be #pto.address_space<vec> or <mat>"),
    ("(c2v_consumer_buf = %imp : i32, v2c_consumer_buf = %imp : i32)",
     "(c2v_consumer_buf = %imp : i32)",
     "expects 'c2v_consumer_buf' and 'v2c_consumer_buf' to be provided together"),
    ("slot_num = 2} (c2v_consumer_buf = %imp", "slot_num = 2, local_slot_num = 4} "
     "(c2v_consumer_buf = %imp",
     "expects 'local_slot_num' to be less than or equal to slot_num \\(2\\) for dir_mask = 1"),
    ("slot_num = 2} (c2v_consumer_buf = %imp", "slot_num = 2, local_slot_num = 0} "
     "(c2v_consumer_buf = %imp", "expects 'local_slot_num' to be greater than 0"),
])
def test_verifier_rules(old: str, new: str, message: str) -> None:
    text = c2v_kernel(1)
    assert old in text
    with pytest.raises(PtoSyntaxError, match=message):
        Kernel.from_text(text.replace(old, new, 1), "pipe.pto")


def test_push_on_an_uninitialised_pipe() -> None:
    text = c2v_kernel(1).replace("pto.tpush_to_aiv(%acc : " + ACC + ") {id = 0,",
                                 "pto.tpush_to_aiv(%acc : " + ACC + ") {id = 4,")
    with pytest.raises(Exception, match=r"pipe id 4 is not initialised on block0\.aic"):
        Kernel.from_text(text, "pipe.pto").run(_inputs(1), target="a5")


def test_tile_larger_than_the_slot() -> None:
    text = c2v_kernel(1).replace("slot_size = 1024", "slot_size = 512")
    with pytest.raises(Exception, match=r"does not fit the pipe's 512 B slot"):
        Kernel.from_text(text, "pipe.pto").run(_inputs(1), target="a5")


def test_local_slot_num_is_a2a3_only() -> None:
    """PTOAS refuses local_slot_num for a5 (its a2/a3 frontend lowering only)."""
    text = c2v_kernel(1).replace("slot_num = 2} (c2v_consumer_buf = %imp",
                                 "slot_num = 2, local_slot_num = 1} (c2v_consumer_buf = %imp")
    with pytest.raises(VerifyError, match="'local_slot_num' is only supported for a2/a3 "
                                          "frontend pipe lowering"):
        Kernel.from_text(text, "pipe.pto").run(_inputs(1), target="a5")
