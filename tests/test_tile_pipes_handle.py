"""a5 tile pipes in PTOAS's handle form (`pto.initialize_l2l_pipe` -> `!pto.pipe`,
`pto.tpush` / `pto.declare_tile` + `pto.tpop` / `pto.tfree`): C2V and V2C with split 0 / 1 / 2
against numpy, the same bytes and findings as the frontend form of the same kernel, and the
rules (wrong core, no init, a2a3, PTOAS's verifiers)."""

from __future__ import annotations

import numpy as np
import pytest

from ptosim.errors import (
    DeadlockError,
    NotImplementedOpError,
    NotImplementedTextOpError,
    PtoSyntaxError,
    PtoTypeError,
    VerifyError,
)
from ptosim.interp.executor import KernelError
from ptosim.kernel import Kernel

BAR = "pto.barrier #pto.pipe<PIPE_ALL>"
VIEW = "!pto.tensor_view<?x?xf32>"
_LAY = {"acc": ("col_major", "row_major", 1024), "mat": ("col_major", "row_major", 512),
        "left": ("col_major", "row_major", 512), "right": ("row_major", "col_major", 512),
        "vec": ("row_major", "none_box", 512), "nz": ("col_major", "row_major", 512)}
N = 2                                   # tiles through the pipe
PIPE = "!pto.pipe"


def tb(loc: str, r: int, c: int) -> str:
    b, s, f = _LAY[loc]
    return (f"!pto.tile_buf<loc={'vec' if loc == 'nz' else loc}, dtype=f32, rows={r}, "
            f"cols={c}, v_row={r}, v_col={c}, blayout={b}, slayout={s}, fractal={f}, pad=0>")


def pv(r: int, c: int) -> str:
    return f"!pto.partition_tensor_view<{r}x{c}xf32>"


class Form:
    """The pipe ops of one spelling: ``handle`` (the `!pto.pipe` form) or the frontend
    ``pto.aic_/aiv_initialize_pipe`` form."""

    def __init__(self, handle: bool, dir_mask: int, slot: int, split: int,
                 flag_base: int | None = None) -> None:
        self.handle, self.dir_mask, self.slot, self.split = handle, dir_mask, slot, split
        self.flag_base = flag_base

    def init(self, side: str) -> str:
        if self.handle:
            fb = "" if self.flag_base is None else f", flag_base = {self.flag_base}"
            local = {1: "%c2v : i32", 2: "%v2c : i32", 3: "%c2v : i32, %v2c : i32"}
            return (f"%pipe = pto.initialize_l2l_pipe {{dir_mask = {self.dir_mask}, "
                    f"slot_size = {self.slot}, slot_num = 2{fb}}} ({local[self.dir_mask]}) "
                    f"-> {PIPE}")
        return (f"pto.{side}_initialize_pipe {{id = 0, dir_mask = {self.dir_mask}, "
                f"slot_size = {self.slot}, slot_num = 2}} (c2v_consumer_buf = %c2v : i32, "
                f"v2c_consumer_buf = %v2c : i32)")

    def push(self, tile: str, t: str, to: str) -> str:
        if self.handle:
            return f"pto.tpush({tile}, %pipe : {t}, {PIPE}) {{split = {self.split}}}"
        return f"pto.tpush_to_{to}({tile} : {t}) {{id = 0, split = {self.split}}}"

    def pop(self, name: str, t: str, frm: str) -> str:
        if self.handle:
            return (f"{name} = pto.declare_tile -> {t}\n      "
                    f"pto.tpop({name}, %pipe : {t}, {PIPE}) {{split = {self.split}}}")
        return f"{name} = pto.tpop_from_{frm} {{id = 0, split = {self.split}}} -> {t}"

    def free(self, frm: str) -> str:
        if self.handle:
            return f"pto.tfree(%pipe : {PIPE}) {{split = {self.split}}}"
        return f"pto.tfree_from_{frm} {{id = 0, split = {self.split}}}"


def _buffers(c2v: bool, size: int) -> tuple[str, str]:
    """(cube lines, vector lines): the consumer reserves, the producer imports; the unused
    name is the same address (the frontend form wants both)."""
    name, space, owner, peer = (("c2v_fifo", "vec", "vec", "cube") if c2v else
                                ("v2c_fifo", "mat", "cube", "vec"))
    var, other = ("%c2v", "%v2c") if c2v else ("%v2c", "%c2v")
    res = (f'{var} = pto.reserve_buffer {{name = "{name}", size = {size}, '
           f'location = #pto.address_space<{space}>, auto = true}} -> i32')
    imp = f'{var} = pto.import_reserved_buffer {{name = "{name}", peer_func = @{owner}}} -> i32'
    alias = f"\n    {other} = arith.addi {var}, %z32 : i32"
    mine, theirs = res + alias, imp + alias
    return (theirs, mine) if c2v else (mine, theirs)


def _part_offsets(split: int, rows: int, cols: int) -> str:
    """%r0 / %q0: where this vector core's part starts (split 1: rows, split 2: columns)."""
    if not split:
        return "    %r0 = arith.addi %c0, %c0 : index\n    %q0 = arith.addi %c0, %c0 : index\n"
    return f"""    %s64 = pto.get_subblock_idx
    %sub = arith.index_cast %s64 : i64 to index
    %r0 = arith.muli %sub, %c{rows if split == 1 else 0} : index
    %q0 = arith.muli %sub, %c{cols if split == 2 else 0} : index
"""


def _index_consts(*values: int) -> str:
    return "".join(f"    %c{v} = arith.constant {v} : index\n" for v in sorted(set(values)))


def c2v_kernel(split: int, form_handle: bool, **kw) -> str:
    """Cube: acc_i = A_i @ B (16 x N cols), pushed; vector cores: pop their part, store
    twice it. split 1 halves the rows, split 2 the columns (32 wide: a5 needs 32)."""
    m, k, n = (32, 16, 16) if split == 1 else (16, 16, 32) if split == 2 else (16, 16, 16)
    yr, yc = (m // 2, n) if split == 1 else (m, n // 2) if split == 2 else (m, n)
    f = Form(form_handle, 1, yr * yc * 4, split, **kw)
    cube_buf, vec_buf = _buffers(True, 2 * yr * yc * 4)
    off = _part_offsets(split, yr, yc)
    consts = _index_consts(0, 1, m, k, n, yr, yc, N * m)
    return f"""module {{
  func.func @k(%a: !pto.ptr<f32>, %b: !pto.ptr<f32>, %out: !pto.ptr<f32>) attributes {{pto.entry}} {{
    func.call @cube(%a, %b) : (!pto.ptr<f32>, !pto.ptr<f32>) -> ()
    func.call @vec(%out) : (!pto.ptr<f32>) -> ()
    return
  }}
  func.func private @cube(%a: !pto.ptr<f32>, %b: !pto.ptr<f32>) attributes {{pto.kernel_kind = #pto.kernel_kind<cube>}} {{
    %z32 = arith.constant 0 : i32
{consts}    %cn = arith.constant {N} : index
    {cube_buf}
    {f.init('aic')}
    %av = pto.make_tensor_view %a, shape = [%c{N * m}, %c{k}], strides = [%c{k}, %c1] : {VIEW}
    %bv = pto.make_tensor_view %b, shape = [%c{k}, %c{n}], strides = [%c{n}, %c1] : {VIEW}
    %bp = pto.partition_view %bv, offsets = [%c0, %c0], sizes = [%c{k}, %c{n}] : {VIEW} -> {pv(k, n)}
    %am = pto.alloc_tile : {tb('mat', m, k)}
    %bm = pto.alloc_tile : {tb('mat', k, n)}
    %l = pto.alloc_tile : {tb('left', m, k)}
    %r = pto.alloc_tile : {tb('right', k, n)}
    %acc = pto.alloc_tile : {tb('acc', m, n)}
    pto.tload ins(%bp : {pv(k, n)}) outs(%bm : {tb('mat', k, n)})
    {BAR}
    pto.tmov ins(%bm : {tb('mat', k, n)}) outs(%r : {tb('right', k, n)})
    scf.for %i = %c0 to %cn step %c1 {{
      %row = arith.muli %i, %c{m} : index
      %ap = pto.partition_view %av, offsets = [%row, %c0], sizes = [%c{m}, %c{k}] : {VIEW} -> {pv(m, k)}
      pto.tload ins(%ap : {pv(m, k)}) outs(%am : {tb('mat', m, k)})
      {BAR}
      pto.tmov ins(%am : {tb('mat', m, k)}) outs(%l : {tb('left', m, k)})
      {BAR}
      pto.tmatmul ins(%l, %r : {tb('left', m, k)}, {tb('right', k, n)}) outs(%acc : {tb('acc', m, n)})
      {BAR}
      {f.push('%acc', tb('acc', m, n), 'aiv')}
      {BAR}
    }}
    return
  }}
  func.func private @vec(%out: !pto.ptr<f32>) attributes {{pto.kernel_kind = #pto.kernel_kind<vector>}} {{
    %z32 = arith.constant 0 : i32
{consts}    %cn = arith.constant {N} : index
    {vec_buf}
    {f.init('aiv')}
{off}    %ov0 = pto.make_tensor_view %out, shape = [%c{N * m}, %c{n}], strides = [%c{n}, %c1] : {VIEW}
    %yt = pto.alloc_tile : {tb('vec', yr, yc)}
    scf.for %i = %c0 to %cn step %c1 {{
      %row = arith.muli %i, %c{m} : index
      {f.pop('%y', tb('vec', yr, yc), 'aic')}
      {BAR}
      pto.tadd ins(%y, %y : {tb('vec', yr, yc)}, {tb('vec', yr, yc)}) outs(%yt : {tb('vec', yr, yc)})
      {BAR}
      %yrow = arith.addi %row, %r0 : index
      %ov = pto.partition_view %ov0, offsets = [%yrow, %q0], sizes = [%c{yr}, %c{yc}] : {VIEW} -> {pv(yr, yc)}
      pto.tstore ins(%yt : {tb('vec', yr, yc)}) outs(%ov : {pv(yr, yc)})
      {BAR}
      {f.free('aic')}
    }}
    return
  }}
}}
"""


def v2c_kernel(split: int, form_handle: bool, **kw) -> str:
    """Vector cores: load their part of X_i, convert it to NZ, push; cube: pop the whole
    X_i (Mat NZ), out_i = X_i @ B. split 1 halves X's rows, split 2 its columns."""
    m, k, n = (32, 16, 16) if split == 1 else (16, 32, 16) if split == 2 else (16, 16, 16)
    xr, xc = (m // 2, k) if split == 1 else (m, k // 2) if split == 2 else (m, k)
    f = Form(form_handle, 2, m * k * 4, split, **kw)
    cube_buf, vec_buf = _buffers(False, 2 * m * k * 4)
    off = _part_offsets(split, xr, xc)
    consts = _index_consts(0, 1, m, k, n, xr, xc, N * m)
    return f"""module {{
  func.func @k(%x: !pto.ptr<f32>, %b: !pto.ptr<f32>, %out: !pto.ptr<f32>) attributes {{pto.entry}} {{
    func.call @cube(%b, %out) : (!pto.ptr<f32>, !pto.ptr<f32>) -> ()
    func.call @vec(%x) : (!pto.ptr<f32>) -> ()
    return
  }}
  func.func private @cube(%b: !pto.ptr<f32>, %out: !pto.ptr<f32>) attributes {{pto.kernel_kind = #pto.kernel_kind<cube>}} {{
    %z32 = arith.constant 0 : i32
{consts}    %cn = arith.constant {N} : index
    {cube_buf}
    {f.init('aic')}
    %bv = pto.make_tensor_view %b, shape = [%c{k}, %c{n}], strides = [%c{n}, %c1] : {VIEW}
    %outv = pto.make_tensor_view %out, shape = [%c{N * m}, %c{n}], strides = [%c{n}, %c1] : {VIEW}
    %bp = pto.partition_view %bv, offsets = [%c0, %c0], sizes = [%c{k}, %c{n}] : {VIEW} -> {pv(k, n)}
    %bm = pto.alloc_tile : {tb('mat', k, n)}
    %l = pto.alloc_tile : {tb('left', m, k)}
    %r = pto.alloc_tile : {tb('right', k, n)}
    %acc = pto.alloc_tile : {tb('acc', m, n)}
    pto.tload ins(%bp : {pv(k, n)}) outs(%bm : {tb('mat', k, n)})
    {BAR}
    pto.tmov ins(%bm : {tb('mat', k, n)}) outs(%r : {tb('right', k, n)})
    scf.for %i = %c0 to %cn step %c1 {{
      %row = arith.muli %i, %c{m} : index
      {f.pop('%xp', tb('mat', m, k), 'aiv')}
      {BAR}
      pto.tmov ins(%xp : {tb('mat', m, k)}) outs(%l : {tb('left', m, k)})
      {BAR}
      {f.free('aiv')}
      pto.tmatmul ins(%l, %r : {tb('left', m, k)}, {tb('right', k, n)}) outs(%acc : {tb('acc', m, n)})
      {BAR}
      %op = pto.partition_view %outv, offsets = [%row, %c0], sizes = [%c{m}, %c{n}] : {VIEW} -> {pv(m, n)}
      pto.tstore ins(%acc : {tb('acc', m, n)}) outs(%op : {pv(m, n)})
      {BAR}
    }}
    return
  }}
  func.func private @vec(%x: !pto.ptr<f32>) attributes {{pto.kernel_kind = #pto.kernel_kind<vector>}} {{
    %z32 = arith.constant 0 : i32
{consts}    %cn = arith.constant {N} : index
    {vec_buf}
    {f.init('aiv')}
{off}    %xv0 = pto.make_tensor_view %x, shape = [%c{N * m}, %c{k}], strides = [%c{k}, %c1] : {VIEW}
    %xt = pto.alloc_tile : {tb('vec', xr, xc)}
    %xz = pto.alloc_tile : {tb('nz', xr, xc)}
    scf.for %i = %c0 to %cn step %c1 {{
      %row = arith.muli %i, %c{m} : index
      %xrow = arith.addi %row, %r0 : index
      %xv = pto.partition_view %xv0, offsets = [%xrow, %q0], sizes = [%c{xr}, %c{xc}] : {VIEW} -> {pv(xr, xc)}
      pto.tload ins(%xv : {pv(xr, xc)}) outs(%xt : {tb('vec', xr, xc)})
      {BAR}
      pto.tmov ins(%xt : {tb('vec', xr, xc)}) outs(%xz : {tb('nz', xr, xc)})
      {BAR}
      {f.push('%xz', tb('nz', xr, xc), 'aic')}
      {BAR}
    }}
    return
  }}
}}
"""


def two_way_kernel(split: int, form_handle: bool) -> str:
    """One dir_mask 3 pipe: the vector cores push their part of X_i (NZ), the cube pops X_i,
    multiplies it by B and pushes the product back; the vector cores store twice their
    part of it. split 1 halves the rows both ways."""
    m, k, n = (32, 16, 16) if split == 1 else (16, 16, 16)
    pr = m // 2 if split == 1 else m              # a vector core's rows of X_i and out_i
    f = Form(form_handle, 3, m * k * 4, split)
    c2v = ('%c2v = pto.import_reserved_buffer {name = "c2v_fifo", peer_func = @vec} -> i32',
           f'%c2v = pto.reserve_buffer {{name = "c2v_fifo", size = {2 * m * k * 4}, location = '
           f'#pto.address_space<vec>, auto = true}} -> i32')
    v2c = (f'%v2c = pto.reserve_buffer {{name = "v2c_fifo", size = {2 * m * k * 4}, location = '
           f'#pto.address_space<mat>, auto = true}} -> i32',
           '%v2c = pto.import_reserved_buffer {name = "v2c_fifo", peer_func = @cube} -> i32')
    off = (f"""    %s64 = pto.get_subblock_idx
    %sub = arith.index_cast %s64 : i64 to index
    %r0 = arith.muli %sub, %c{pr} : index
""" if split else "    %r0 = arith.addi %c0, %c0 : index\n")
    consts = "".join(f"    %c{v} = arith.constant {v} : index\n"
                     for v in sorted({0, 1, m, k, n, pr, N * m}))
    return f"""module {{
  func.func @k(%x: !pto.ptr<f32>, %b: !pto.ptr<f32>, %out: !pto.ptr<f32>) attributes {{pto.entry}} {{
    func.call @cube(%b) : (!pto.ptr<f32>) -> ()
    func.call @vec(%x, %out) : (!pto.ptr<f32>, !pto.ptr<f32>) -> ()
    return
  }}
  func.func private @cube(%b: !pto.ptr<f32>) attributes {{pto.kernel_kind = #pto.kernel_kind<cube>}} {{
{consts}    %cn = arith.constant {N} : index
    {c2v[0]}
    {v2c[0]}
    {f.init('aic')}
    %bv = pto.make_tensor_view %b, shape = [%c{k}, %c{n}], strides = [%c{n}, %c1] : {VIEW}
    %bp = pto.partition_view %bv, offsets = [%c0, %c0], sizes = [%c{k}, %c{n}] : {VIEW} -> {pv(k, n)}
    %bm = pto.alloc_tile : {tb('mat', k, n)}
    %l = pto.alloc_tile : {tb('left', m, k)}
    %r = pto.alloc_tile : {tb('right', k, n)}
    %acc = pto.alloc_tile : {tb('acc', m, n)}
    pto.tload ins(%bp : {pv(k, n)}) outs(%bm : {tb('mat', k, n)})
    {BAR}
    pto.tmov ins(%bm : {tb('mat', k, n)}) outs(%r : {tb('right', k, n)})
    scf.for %i = %c0 to %cn step %c1 {{
      {f.pop('%xp', tb('mat', m, k), 'aiv')}
      {BAR}
      pto.tmov ins(%xp : {tb('mat', m, k)}) outs(%l : {tb('left', m, k)})
      {BAR}
      {f.free('aiv')}
      pto.tmatmul ins(%l, %r : {tb('left', m, k)}, {tb('right', k, n)}) outs(%acc : {tb('acc', m, n)})
      {BAR}
      {f.push('%acc', tb('acc', m, n), 'aiv')}
      {BAR}
    }}
    return
  }}
  func.func private @vec(%x: !pto.ptr<f32>, %out: !pto.ptr<f32>) attributes {{pto.kernel_kind = #pto.kernel_kind<vector>}} {{
{consts}    %cn = arith.constant {N} : index
    {c2v[1]}
    {v2c[1]}
    {f.init('aiv')}
{off}    %xv0 = pto.make_tensor_view %x, shape = [%c{N * m}, %c{k}], strides = [%c{k}, %c1] : {VIEW}
    %ov0 = pto.make_tensor_view %out, shape = [%c{N * m}, %c{n}], strides = [%c{n}, %c1] : {VIEW}
    %xt = pto.alloc_tile : {tb('vec', pr, k)}
    %xz = pto.alloc_tile : {tb('nz', pr, k)}
    %yt = pto.alloc_tile : {tb('vec', pr, n)}
    scf.for %i = %c0 to %cn step %c1 {{
      %row = arith.muli %i, %c{m} : index
      %prow = arith.addi %row, %r0 : index
      %xv = pto.partition_view %xv0, offsets = [%prow, %c0], sizes = [%c{pr}, %c{k}] : {VIEW} -> {pv(pr, k)}
      pto.tload ins(%xv : {pv(pr, k)}) outs(%xt : {tb('vec', pr, k)})
      {BAR}
      pto.tmov ins(%xt : {tb('vec', pr, k)}) outs(%xz : {tb('nz', pr, k)})
      {BAR}
      {f.push('%xz', tb('nz', pr, k), 'aic')}
      {BAR}
      {f.pop('%y', tb('vec', pr, n), 'aic')}
      {BAR}
      pto.tadd ins(%y, %y : {tb('vec', pr, n)}, {tb('vec', pr, n)}) outs(%yt : {tb('vec', pr, n)})
      {BAR}
      %ov = pto.partition_view %ov0, offsets = [%prow, %c0], sizes = [%c{pr}, %c{n}] : {VIEW} -> {pv(pr, n)}
      pto.tstore ins(%yt : {tb('vec', pr, n)}) outs(%ov : {pv(pr, n)})
      {BAR}
      {f.free('aic')}
    }}
    return
  }}
}}
"""


def _shapes(c2v: bool, split: int) -> tuple[int, int, int]:
    if c2v:
        return (32, 16, 16) if split == 1 else (16, 16, 32) if split == 2 else (16, 16, 16)
    return (32, 16, 16) if split == 1 else (16, 32, 16) if split == 2 else (16, 16, 16)


def _args(c2v: bool, split: int, seed: int = 0) -> dict[str, np.ndarray]:
    m, k, n = _shapes(c2v, split)
    rng = np.random.default_rng(seed)
    return {("a" if c2v else "x"): rng.standard_normal((N * m, k)).astype(np.float32),
            "b": rng.standard_normal((k, n)).astype(np.float32),
            "out": np.zeros((N * m, n), np.float32)}


def _golden(args: dict[str, np.ndarray], c2v: bool) -> np.ndarray:
    """Row block by row block in float64 (einsum), twice the product for the C2V kernel."""
    src = args["a" if c2v else "x"].astype(np.float64)
    m = src.shape[0] // N
    out = np.concatenate([np.einsum("ik,kj->ij", src[i * m:(i + 1) * m], args["b"])
                          for i in range(N)])
    return (out * (2 if c2v else 1)).astype(np.float32)


def _run(text: str, args: dict[str, np.ndarray], target: str = "a5"):
    return Kernel.from_text(text, "pipe.pto").run(
        {k: v.copy() for k, v in args.items()}, target=target)


@pytest.mark.parametrize("c2v", [True, False], ids=["c2v", "v2c"])
@pytest.mark.parametrize("split", [0, 1, 2])
def test_handle_form_matches_numpy_and_the_frontend_form(c2v: bool, split: int) -> None:
    make = c2v_kernel if c2v else v2c_kernel
    args = _args(c2v, split)
    handle = _run(make(split, True), args)
    got = np.asarray(handle.outputs["out"]).reshape(args["out"].shape)
    np.testing.assert_allclose(got, _golden(args, c2v), rtol=1e-5, atol=1e-4)
    assert [f.message for f in handle.findings] == []
    front = _run(make(split, False), args)
    assert np.asarray(front.outputs["out"]).tobytes() == \
        np.asarray(handle.outputs["out"]).tobytes()


@pytest.mark.parametrize("split", [0, 1])
def test_two_way_handle_pipe_matches_numpy_and_the_frontend_form(split: int) -> None:
    m = 32 if split else 16
    rng = np.random.default_rng(3)
    args = {"x": rng.standard_normal((N * m, 16)).astype(np.float32),
            "b": rng.standard_normal((16, 16)).astype(np.float32),
            "out": np.zeros((N * m, 16), np.float32)}
    handle = _run(two_way_kernel(split, True), args)
    got = np.asarray(handle.outputs["out"]).reshape(N * m, 16)
    want = 2 * np.einsum("ik,kj->ij", args["x"].astype(np.float64), args["b"])
    np.testing.assert_allclose(got, want.astype(np.float32), rtol=1e-5, atol=1e-4)
    assert [f.message for f in handle.findings] == []
    front = _run(two_way_kernel(split, False), args)
    assert np.asarray(front.outputs["out"]).tobytes() == \
        np.asarray(handle.outputs["out"]).tobytes()


def test_an_explicit_flag_base_runs_the_same() -> None:
    args = _args(True, 1)
    a = _run(c2v_kernel(1, True), args)
    b = _run(c2v_kernel(1, True, flag_base=6), args)
    assert np.asarray(a.outputs["out"]).tobytes() == np.asarray(b.outputs["out"]).tobytes()
    assert [f.message for f in b.findings] == []


def test_a_pop_never_served_is_a_deadlock_naming_the_op() -> None:
    text = c2v_kernel(0, True).replace(
        f"pto.tpush(%acc, %pipe : {tb('acc', 16, 16)}, {PIPE}) {{split = 0}}", "")
    with pytest.raises(DeadlockError, match=r"block0\.aiv0 waits in pto\.tpop"):
        _run(text, _args(True, 0))


def test_a_push_on_the_wrong_core_is_refused() -> None:
    # a Vec tile pushes V2C, which runs on a vector core, not in the cube function
    text = c2v_kernel(0, True).replace(
        f"pto.tpush(%acc, %pipe : {tb('acc', 16, 16)}, {PIPE})",
        f"pto.tpush(%t, %pipe : {tb('vec', 16, 16)}, {PIPE})").replace(
        "    %acc = pto.alloc_tile", f"    %t = pto.alloc_tile : {tb('vec', 16, 16)}\n"
        "    %acc = pto.alloc_tile")
    with pytest.raises(KernelError, match=r"pto\.tpush of a loc=vec tile runs on the vector "
                                          r"cores \(AIV\), not on block0\.aic"):
        _run(text, _args(True, 0))


def test_a_pop_in_the_wrong_direction_is_refused() -> None:
    # a Mat tile pops V2C: the cube's op; this C2V pipe's vector side has no V2C direction
    vec, mat = tb("vec", 16, 16), tb("mat", 16, 16)
    text = c2v_kernel(0, True).replace(
        f"%y = pto.declare_tile -> {vec}",
        f"%w = pto.declare_tile -> {mat}\n      pto.tpop(%w, %pipe : {mat}, {PIPE}) "
        f"{{split = 0}}\n      %y = pto.declare_tile -> {vec}")
    with pytest.raises(KernelError, match=r"pto\.tpop of a loc=mat tile runs on the cube "
                                          r"core \(AIC\), not on block0\.aiv0"):
        _run(text, _args(True, 0))


def test_a_pop_on_a_handle_no_init_made_is_refused() -> None:
    # PTO.cpp verifyPipeHandleProducer: a !pto.pipe that no initialize_l2l_pipe produced
    # (here a function argument) cannot reach a TPipe
    text = c2v_kernel(0, True).replace(
        "func.func private @vec(%out: !pto.ptr<f32>)",
        f"func.func private @vec(%out: !pto.ptr<f32>, %p: {PIPE})").replace(
        "pto.tpop(%y, %pipe", "pto.tpop(%y, %p").replace(
        "func.call @vec(%out) : (!pto.ptr<f32>) -> ()", "")
    with pytest.raises(PtoSyntaxError, match=r"pto\.tpop: pipe_handle must be produced by "
                                             r"pto\.initialize_l2l_pipe or "
                                             r"pto\.initialize_l2g2l_pipe"):
        Kernel.from_text(text, "pipe.pto")


def test_a_pipe_without_flag_base_or_reserved_buffer_is_refused() -> None:
    text = c2v_kernel(0, True).replace("(%c2v : i32) -> !pto.pipe", "(%z32 : i32) -> !pto.pipe")
    with pytest.raises(VerifyError, match=r"requires local_addr to come from "
                                          r"pto\.reserve_buffer or pto\.import_reserved_buffer "
                                          r"when 'flag_base' is not explicit"):
        _run(text, _args(True, 0))


def test_split_against_the_pipes_nosplit_is_refused() -> None:
    text = c2v_kernel(0, True).replace("slot_num = 2}", "slot_num = 2, nosplit = true}")
    text = text.replace(f"{PIPE}) {{split = 0}}", f"{PIPE}) {{split = 1}}", 1)
    with pytest.raises(VerifyError, match="conflicting pipe split usage across peer pipe "
                                          "init ops"):
        _run(text, _args(True, 0))
    both = text.replace(f"{PIPE}) {{split = 0}}", f"{PIPE}) {{split = 1}}")
    with pytest.raises(VerifyError, match="explicit 'nosplit = true' conflicts with "
                                          "downstream users that require split = 1 or "
                                          "split = 2"):
        _run(both, _args(True, 0))


def _pairs(n: int, vector_inits: bool = True) -> str:
    """n C2V pipes, each a reserve (vector) / import (cube) pair of handle inits."""
    cube, vec = [], []
    for i in range(n):
        init = (f"{{dir_mask = 1, slot_size = 1024, slot_num = 2}} (%b{i} : i32) -> {PIPE}")
        cube.append(f'%b{i} = pto.import_reserved_buffer {{name = "f{i}", peer_func = @vec}} '
                    f'-> i32\n    %p{i} = pto.initialize_l2l_pipe {init}')
        vec.append(f'%b{i} = pto.reserve_buffer {{name = "f{i}", size = 2048, location = '
                   f'#pto.address_space<vec>, auto = true}} -> i32' +
                   (f"\n    %p{i} = pto.initialize_l2l_pipe {init}" if vector_inits else ""))
    body = "\n    ".join
    return f"""module {{
  func.func @cube() attributes {{pto.kernel_kind = #pto.kernel_kind<cube>}} {{
    {body(cube)}
    return
  }}
  func.func @vec() attributes {{pto.kernel_kind = #pto.kernel_kind<vector>}} {{
    {body(vec)}
    return
  }}
}}
"""


def _check_errors(text: str) -> list[str]:
    """The module-wide pipe rules `ptosim check` and a run apply (PTOAS's passes)."""
    from ptosim.frontend.text import parse_module
    from ptosim.interp import functions
    from ptosim.interp.pipe_rules import pipe_init_problems
    module = parse_module(text, "pipes.pto")
    return [f"{op.name}: {msg}" for op, msg in pipe_init_problems(functions(module), "a5")]


def test_ptoas_module_rules_for_handle_inits() -> None:
    # a reserve-keyed init with no peer; more pipes than 16 flag ids hold
    alone = _check_errors(_pairs(1, vector_inits=False))
    assert any("pto.initialize_l2l_pipe: requires a complete compatible peer init pair when "
               "local_addr comes from pto.reserve_buffer" in e for e in alone)
    assert _check_errors(_pairs(8)) == []
    over = _check_errors(_pairs(9))
    assert any("requires all pipe components in a function to fit within 16 hardware flag "
               "ids" in e for e in over)


def test_a2a3_is_not_implemented() -> None:
    with pytest.raises(NotImplementedOpError, match=r"pto\.initialize_l2l_pipe on a2a3: "
                                                    r"ptosim runs the a5 pipes"):
        _run(c2v_kernel(0, True), _args(True, 0), target="a2a3")


def test_the_gm_fifo_pipe_stays_not_implemented() -> None:
    text = c2v_kernel(0, True).replace("pto.initialize_l2l_pipe", "pto.initialize_l2g2l_pipe")
    with pytest.raises(NotImplementedTextOpError, match=r"'pto\.initialize_l2g2l_pipe' is a PTOAS op that "
                                       r"ptosim does not implement yet"):
        Kernel.from_text(text, "pipe.pto")


@pytest.mark.parametrize(("old", "new", "message"), [
    ("dir_mask = 1,", "dir_mask = 4,", "expects 'dir_mask' to be 1, 2, or 3"),
    ("slot_num = 2}", "slot_num = 0}", "expects 'slot_num' to be greater than 0"),
    ("slot_num = 2}", "slot_num = 2, flag_base = 15}",
     "requires 'flag_base' and dir_mask to fit within 16 hardware flag ids"),
    ("(%c2v : i32) -> !pto.pipe", "(%c2v : i32, %v2c : i32) -> !pto.pipe",
     "'peer_local_addr' is only allowed when dir_mask is 3"),
    ("{split = 0}", "{split = 3}", "split must be 0 (no split), 1 (up-down) or 2"),
])
def test_ptoas_verifier_rules(old: str, new: str, message: str) -> None:
    with pytest.raises(PtoSyntaxError, match=message.replace("(", r"\(").replace(")", r"\)")):
        Kernel.from_text(c2v_kernel(0, True).replace(old, new), "pipe.pto")


def test_tpop_of_an_acc_tile_is_refused() -> None:
    vec, acc = tb("vec", 16, 16), tb("acc", 16, 16)
    text = c2v_kernel(0, True).replace(
        f"%y = pto.declare_tile -> {vec}",
        f"%w = pto.declare_tile -> {acc}\n      pto.tpop(%w, %pipe : {acc}, {PIPE}) "
        f"{{split = 0}}\n      %y = pto.declare_tile -> {vec}")
    with pytest.raises(PtoSyntaxError, match="tile type and target arch must map to a "
                                             "supported consumer pipe"):
        Kernel.from_text(text, "pipe.pto")


def test_the_handle_form_prints_and_parses_back() -> None:
    text = v2c_kernel(1, True)
    k = Kernel.from_text(text, "pipe.pto")
    again = Kernel.from_text(str(k.module), "again.pto")
    assert "pto.initialize_l2l_pipe" in str(again.module)
    assert "pto.tpop(" in str(again.module) and "pto.tfree(" in str(again.module)


def _declared(use: str) -> str:
    vec = tb("vec", 16, 16)
    return f"""module {{
  func.func @k(%out: !pto.ptr<f32>) attributes {{pto.entry}} {{
    func.call @v(%out) : (!pto.ptr<f32>) -> ()
    return
  }}
  func.func private @v(%out: !pto.ptr<f32>) attributes {{pto.kernel_kind = #pto.kernel_kind<vector>}} {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %a = arith.constant 4096 : i64
    %one = arith.constant 1.5 : f32
    %t = pto.declare_tile -> {vec}
{use}
    %ov = pto.make_tensor_view %out, shape = [%c16, %c16], strides = [%c16, %c1] : {VIEW}
    %op = pto.partition_view %ov, offsets = [%c0, %c0], sizes = [%c16, %c16] : {VIEW} -> {pv(16, 16)}
    pto.tstore ins(%u : {vec}) outs(%op : {pv(16, 16)})
    return
  }}
}}
"""


def test_a_declared_tile_gets_its_address_from_tassign() -> None:
    vec = tb("vec", 16, 16)
    text = _declared(f"    %u = pto.tassign %t, %a : {vec} -> {vec}\n"
                     f"    pto.texpands ins(%one : f32) outs(%u : {vec})")
    out = np.zeros((16, 16), np.float32)
    result = Kernel.from_text(text, "decl.pto").run({"out": out}, target="a5")
    assert np.asarray(result.outputs["out"]).reshape(16, 16).tolist() == \
        np.full((16, 16), 1.5, np.float32).tolist()


def test_a_declared_tile_used_before_a_pop_binds_it_is_refused() -> None:
    vec = tb("vec", 16, 16)
    text = _declared(f"    %u = pto.alloc_tile : {vec}\n"
                     f"    pto.tadd ins(%t, %t : {vec}, {vec}) outs(%u : {vec})")
    # the op's operand check names the unbound value's kind
    with pytest.raises(PtoTypeError, match=r"TADD: operands after dst must be \(src0: tile, "
                                           r"src1: tile\), got \(DeclaredTile, DeclaredTile\)"):
        Kernel.from_text(text, "decl.pto").run({"out": np.zeros((16, 16), np.float32)},
                                               target="a5")


def test_flag_bases_of_several_handle_pipes(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each peer group its own even range (2 ids for one direction), in order; an explicit
    flag_base is kept and the planned ranges step around it."""
    from ptosim.interp import pipes
    seen: list[pipes.PipePlan] = []
    real = pipes.plan

    def spy(ex):
        got = real(ex)
        seen.append(got)
        return got

    monkeypatch.setattr(pipes, "plan", spy)
    text = _pairs(3).replace(
        "module {", """module {
  func.func @k() attributes {pto.entry} {
    func.call @cube() : () -> ()
    func.call @vec() : () -> ()
    return
  }""", 1).replace("func.func @cube", "func.func private @cube").replace(
        "func.func @vec", "func.func private @vec")
    # the second pipe's inits take flag_base 0: the others plan around it
    lines = text.split("\n")
    text = "\n".join(line.replace("slot_num = 2}", "slot_num = 2, flag_base = 0}")
                     if "%p1 = " in line else line for line in lines)
    Kernel.from_text(text, "pipes.pto").run({}, target="a5")
    bases = {op.results[0].name_hint: base for op, (base, _) in seen[-1].handles.items()}
    assert bases == {"p0": 2, "p1": 0, "p2": 4}


def test_tfree_names_the_popped_entry_too() -> None:
    vec = tb("vec", 16, 16)
    args = _args(True, 0)
    plain = _run(c2v_kernel(0, True), args)
    text = c2v_kernel(0, True).replace(f"pto.tfree(%pipe : {PIPE})",
                                       f"pto.tfree(%y, %pipe : {vec}, {PIPE})")
    assert f"pto.tfree(%y, %pipe : {vec}, {PIPE})" in text
    entry = _run(text, args)
    assert np.asarray(entry.outputs["out"]).tobytes() == \
        np.asarray(plain.outputs["out"]).tobytes()
    assert [f.message for f in entry.findings] == []
