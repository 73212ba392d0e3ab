"""a5 tile pipes beyond the unsplit cube -> vector path: split C2V pipes (up-down, left-right),
V2C pipes on their own (the cube pops an NZ Mat tile and multiplies it), and two-way
(dir_mask 3) pipes, with and without split. Each kernel is synchronised inside its cores
with PIPE_ALL barriers, so the only cross-core ordering is the pipe's own flags: a correct
pipe gives the numpy result and no hazard finding at all."""

from __future__ import annotations

import numpy as np
import pytest

from ptosim.kernel import Kernel

BAR = "pto.barrier #pto.pipe<PIPE_ALL>"
VIEW = "!pto.tensor_view<?x?xf32>"
_LAYOUT = {"acc": ("col_major", "row_major", 1024), "mat": ("col_major", "row_major", 512),
           "left": ("col_major", "row_major", 512), "right": ("row_major", "col_major", 512),
           "vec": ("row_major", "none_box", 512), "nz": ("col_major", "row_major", 512)}


def tile(loc: str, rows: int, cols: int) -> str:
    b, s, f = _LAYOUT[loc]
    return (f"!pto.tile_buf<loc={'vec' if loc == 'nz' else loc}, dtype=f32, rows={rows}, "
            f"cols={cols}, v_row={rows}, v_col={cols}, blayout={b}, slayout={s}, "
            f"fractal={f}, pad=0>")


def part(rows: int, cols: int) -> str:
    return f"!pto.partition_tensor_view<{rows}x{cols}xf32>"


def shapes(split: int) -> tuple[int, int, int]:
    """M, K, N: split 1 halves M (rows of X and of the result), split 2 halves K for the
    V2C direction (columns of X) and N for C2V (columns of the result; a5 needs N % 32)."""
    return {0: (16, 16, 16), 1: (32, 16, 16), 2: (16, 32, 32)}[split]


def halves(rows: int, cols: int, split: int) -> tuple[int, int]:
    return (rows // 2, cols) if split == 1 else (rows, cols // 2) if split == 2 else (rows, cols)


def kernel(split: int, n: int, slot_num: int, v2c: bool, c2v: bool) -> str:
    """X (n*M x K), B (K x N). For each i the cube computes X_i @ B. With v2c the vector
    cores load X_i (each its half when split) and push it; else the cube loads it. With c2v
    the cube pushes the product and the vector cores store twice their part of it; else
    the cube stores it."""
    m, k, nn = shapes(split)
    dir_mask = (1 if c2v else 0) | (2 if v2c else 0)
    xr, xc = halves(m, k, split)          # a vector core's part of X_i
    yr, yc = halves(m, nn, split)         # its part of the product
    slot = max(m * k * 4 if v2c else 0, yr * yc * 4 if c2v else 0)
    init = (f"{{id = 0, dir_mask = {dir_mask}, slot_size = {slot}, slot_num = {slot_num}}} "
            f"(c2v_consumer_buf = %c2v : i32, v2c_consumer_buf = %v2c : i32)")
    sp = f"{{id = 0, split = {split}}}"
    # buffers: C2V slots live in the vector's UB, V2C slots in the cube's L1
    cube_bufs, vec_bufs = [], []
    for name, space, needed, owner_cube in (("c2v_fifo", "vec", c2v, False),
                                            ("v2c_fifo", "mat", v2c, True)):
        if not needed:
            continue
        res = (f'pto.reserve_buffer {{name = "{name}", size = {slot * slot_num}, '
               f'location = #pto.address_space<{space}>, auto = true}} -> i32')
        var = "%c2v" if name == "c2v_fifo" else "%v2c"
        if owner_cube:
            cube_bufs.append(f"{var} = {res}")
            vec_bufs.append(f'{var} = pto.import_reserved_buffer {{name = "{name}", '
                            f'peer_func = @cube}} -> i32')
        else:
            vec_bufs.append(f"{var} = {res}")
            cube_bufs.append(f'{var} = pto.import_reserved_buffer {{name = "{name}", '
                             f'peer_func = @vec}} -> i32')
    if not c2v:                          # a one-way pipe passes one buffer twice
        cube_bufs.append("%c2v = arith.addi %v2c, %z32 : i32")
        vec_bufs.append("%c2v = arith.addi %v2c, %z32 : i32")
    if not v2c:
        cube_bufs.append("%v2c = arith.addi %c2v, %z32 : i32")
        vec_bufs.append("%v2c = arith.addi %c2v, %z32 : i32")
    consts = """    %z32 = arith.constant 0 : i32
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
""" + "".join(f"    %c{v} = arith.constant {v} : index\n"
              for v in sorted({m, k, nn, xr, xc, yr, yc, n * m} - {0, 1}))
    x_src = f"""      %xp = pto.tpop_from_aiv {sp} -> {tile('mat', m, k)}
      {BAR}""" if v2c else f"""      %xv = pto.partition_view %x_v, offsets = [%row, %c0], sizes = [%c{m}, %c{k}] : {VIEW} -> {part(m, k)}
      pto.tload ins(%xv : {part(m, k)}) outs(%xm : {tile('mat', m, k)})
      {BAR}"""
    xp = "%xp" if v2c else "%xm"
    y_out = f"""      pto.tpush_to_aiv(%acc : {tile('acc', m, nn)}) {sp}""" if c2v else f"""      %ov = pto.partition_view %out_v, offsets = [%row, %c0], sizes = [%c{m}, %c{nn}] : {VIEW} -> {part(m, nn)}
      pto.tstore ins(%acc : {tile('acc', m, nn)}) outs(%ov : {part(m, nn)})"""
    free_x = f"      pto.tfree_from_aiv {sp}\n" if v2c else ""
    cube = f"""  func.func private @cube(%x: !pto.ptr<f32>, %b: !pto.ptr<f32>, %out: !pto.ptr<f32>) attributes {{pto.kernel_kind = #pto.kernel_kind<cube>}} {{
{consts}    %cn = arith.constant {n} : index
{''.join('    ' + s + chr(10) for s in cube_bufs)}    pto.aic_initialize_pipe {init}
    %x_v = pto.make_tensor_view %x, shape = [%c{n * m}, %c{k}], strides = [%c{k}, %c1] : {VIEW}
    %out_v = pto.make_tensor_view %out, shape = [%c{n * m}, %c{nn}], strides = [%c{nn}, %c1] : {VIEW}
    %b_v = pto.make_tensor_view %b, shape = [%c{k}, %c{nn}], strides = [%c{nn}, %c1] : {VIEW}
    %bp = pto.partition_view %b_v, offsets = [%c0, %c0], sizes = [%c{k}, %c{nn}] : {VIEW} -> {part(k, nn)}
    %xm = pto.alloc_tile : {tile('mat', m, k)}
    %bm = pto.alloc_tile : {tile('mat', k, nn)}
    %l = pto.alloc_tile : {tile('left', m, k)}
    %r = pto.alloc_tile : {tile('right', k, nn)}
    %acc = pto.alloc_tile : {tile('acc', m, nn)}
    pto.tload ins(%bp : {part(k, nn)}) outs(%bm : {tile('mat', k, nn)})
    {BAR}
    pto.tmov ins(%bm : {tile('mat', k, nn)}) outs(%r : {tile('right', k, nn)})
    scf.for %i = %c0 to %cn step %c1 {{
      %row = arith.muli %i, %c{m} : index
{x_src}
      pto.tmov ins({xp} : {tile('mat', m, k)}) outs(%l : {tile('left', m, k)})
      {BAR}
{free_x}      pto.tmatmul ins(%l, %r : {tile('left', m, k)}, {tile('right', k, nn)}) outs(%acc : {tile('acc', m, nn)})
      {BAR}
{y_out}
      {BAR}
    }}
    return
  }}"""
    # the vector side: this core's row / column offsets inside X_i and the product
    sub_off = ""
    if split:
        sub_off = f"""    %s64 = pto.get_subblock_idx
    %sub = arith.index_cast %s64 : i64 to index
    %xr0 = arith.muli %sub, %c{xr if split == 1 else 0} : index
    %xc0 = arith.muli %sub, %c{xc if split == 2 else 0} : index
    %yr0 = arith.muli %sub, %c{yr if split == 1 else 0} : index
    %yc0 = arith.muli %sub, %c{yc if split == 2 else 0} : index
"""
    else:
        sub_off = "    %xr0 = arith.addi %c0, %c0 : index\n    %xc0 = arith.addi %c0, %c0 : index\n" \
                  "    %yr0 = arith.addi %c0, %c0 : index\n    %yc0 = arith.addi %c0, %c0 : index\n"
    push_x = f"""      %xrow = arith.addi %row, %xr0 : index
      %xv = pto.partition_view %x_v, offsets = [%xrow, %xc0], sizes = [%c{xr}, %c{xc}] : {VIEW} -> {part(xr, xc)}
      pto.tload ins(%xv : {part(xr, xc)}) outs(%xt : {tile('vec', xr, xc)})
      {BAR}
      pto.tmov ins(%xt : {tile('vec', xr, xc)}) outs(%xz : {tile('nz', xr, xc)})
      {BAR}
      pto.tpush_to_aic(%xz : {tile('nz', xr, xc)}) {sp}
      {BAR}
""" if v2c else ""
    pop_y = f"""      %y = pto.tpop_from_aic {sp} -> {tile('vec', yr, yc)}
      {BAR}
      pto.tadd ins(%y, %y : {tile('vec', yr, yc)}, {tile('vec', yr, yc)}) outs(%yt : {tile('vec', yr, yc)})
      {BAR}
      %yrow = arith.addi %row, %yr0 : index
      %ov = pto.partition_view %out_v, offsets = [%yrow, %yc0], sizes = [%c{yr}, %c{yc}] : {VIEW} -> {part(yr, yc)}
      pto.tstore ins(%yt : {tile('vec', yr, yc)}) outs(%ov : {part(yr, yc)})
      {BAR}
      pto.tfree_from_aic {sp}
""" if c2v else ""
    vec = f"""  func.func private @vec(%x: !pto.ptr<f32>, %out: !pto.ptr<f32>) attributes {{pto.kernel_kind = #pto.kernel_kind<vector>}} {{
{consts}    %cn = arith.constant {n} : index
{''.join('    ' + s + chr(10) for s in vec_bufs)}    pto.aiv_initialize_pipe {init}
{sub_off}    %x_v = pto.make_tensor_view %x, shape = [%c{n * m}, %c{k}], strides = [%c{k}, %c1] : {VIEW}
    %out_v = pto.make_tensor_view %out, shape = [%c{n * m}, %c{nn}], strides = [%c{nn}, %c1] : {VIEW}
    %xt = pto.alloc_tile : {tile('vec', xr, xc)}
    %xz = pto.alloc_tile : {tile('nz', xr, xc)}
    %yt = pto.alloc_tile : {tile('vec', yr, yc)}
    scf.for %i = %c0 to %cn step %c1 {{
      %row = arith.muli %i, %c{m} : index
{push_x}{pop_y}    }}
    return
  }}"""
    return f"""module {{
  func.func @k(%x: !pto.ptr<f32>, %b: !pto.ptr<f32>, %out: !pto.ptr<f32>) attributes {{pto.entry}} {{
    func.call @cube(%x, %b, %out) : (!pto.ptr<f32>, !pto.ptr<f32>, !pto.ptr<f32>) -> ()
    func.call @vec(%x, %out) : (!pto.ptr<f32>, !pto.ptr<f32>) -> ()
    return
  }}
{cube}
{vec}
}}
"""


def golden(x: np.ndarray, b: np.ndarray, m: int, doubled: bool) -> np.ndarray:
    """Each M-row block of X times B, in float64, blocks stacked again."""
    blocks = [x[i:i + m].astype(np.float64) @ b.astype(np.float64)
              for i in range(0, x.shape[0], m)]
    return (np.vstack(blocks) * (2 if doubled else 1)).astype(np.float32)


def run(split: int, n: int, slot_num: int, v2c: bool, c2v: bool, seed: int = 0):
    m, k, nn = shapes(split)
    rng = np.random.default_rng(seed)
    args = {"x": rng.standard_normal((n * m, k)).astype(np.float32),
            "b": rng.standard_normal((k, nn)).astype(np.float32),
            "out": np.zeros((n * m, nn), np.float32)}
    result = Kernel.from_text(kernel(split, n, slot_num, v2c, c2v), "pipe.pto").run(
        args, target="a5")
    got = np.asarray(result.outputs["out"]).reshape(n * m, nn)
    return got, golden(args["x"], args["b"], m, c2v), result


CASES = [(split, n, slot_num) for split in (0, 1, 2) for n, slot_num in ((1, 1), (2, 2), (4, 4))]


@pytest.mark.parametrize(("split", "n", "slot_num"), CASES)
def test_cube_to_vector(split: int, n: int, slot_num: int) -> None:
    got, want, result = run(split, n, slot_num, v2c=False, c2v=True)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4)
    assert [f.message for f in result.findings] == []


@pytest.mark.parametrize(("split", "n", "slot_num"), CASES)
def test_vector_to_cube(split: int, n: int, slot_num: int) -> None:
    got, want, result = run(split, n, slot_num, v2c=True, c2v=False)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4)
    assert [f.message for f in result.findings] == []


@pytest.mark.parametrize(("split", "n", "slot_num"), CASES)
def test_two_way(split: int, n: int, slot_num: int) -> None:
    got, want, result = run(split, n, slot_num, v2c=True, c2v=True)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4)
    assert [f.message for f in result.findings] == []


@pytest.mark.parametrize(("src_layout", "r0", "c0", "shape"), [
    ("NZ", 0, 16, (16, 16)), ("NZ", 16, 8, (16, 8))])    # (an ND source: raw rows, a5's)
def test_nz_insert_reports_only_the_lines_it_writes(src_layout: str, r0: int, c0: int,
                                                    shape: tuple[int, int]) -> None:
    """Vec -> Mat TINSERT (what a V2C TPUSH runs) tells the hazard checker the bytes it
    changes, not the whole destination: the two AIVs of a split pipe fill disjoint halves
    of one L1 slot."""
    import ptosim
    m = ptosim.Machine(target="a5")
    mat = m.tile("Mat", "f32", 32, 32, blayout="ColMajor", slayout="RowMajor")
    m.write(mat.ptr, np.full(32 * 32, -7.0, np.float32))
    extra = {} if src_layout == "ND" else {"blayout": "ColMajor", "slayout": "RowMajor"}
    src = m.tile("Vec", "f32", *shape, **extra)
    m.write(src.ptr, np.arange(1, shape[0] * shape[1] + 1, dtype=np.float32))
    seen = []
    m.access_hook = lambda buf, start, n, access, operand, op, runs: seen.append(
        (start, n, access, runs))
    try:
        m.TINSERT(mat, src, r0, c0)
    finally:
        m.access_hook = None
    start, n, access, runs = next(s for s in seen if s[2] == "W")
    # the bytes the runs name, relative to the tile; then the bytes whose value changed
    length, ((count, stride),) = runs
    named = {start - mat.ptr.offset + i * stride + b for i in range(count) for b in range(length)}
    assert max(named) < start - mat.ptr.offset + n
    # NZ element (r, c) of a 32-row f32 tile sits at (c // 8) * 256 + r * 8 + c % 8
    changed = {4 * ((c // 8) * 256 + r * 8 + c % 8) + b
               for r, c in zip(*np.nonzero(m.read_tile(mat) != -7.0)) for b in range(4)}
    assert changed and changed <= named
    assert named == {4 * ((c // 8) * 256 + r * 8 + c % 8) + b
                     for r in range(r0, r0 + shape[0]) for c in range(c0, c0 + shape[1])
                     for b in range(4)}


def test_an_nd_vec_tile_lands_in_the_slot_as_raw_rows() -> None:
    """a5 copies an ND Vec tile's rows into the L1 slot as they are (TInsertNDImpl): the
    cube's NZ pop reads those bytes as an NZ tile, so the product is of that reading."""
    text = kernel(0, 1, 1, v2c=True, c2v=False)
    nd, nz = tile("vec", 16, 16), tile("nz", 16, 16)
    old = f"pto.tpush_to_aic(%xz : {nz})"
    assert old in text
    text = text.replace(old, f"pto.tpush_to_aic(%xt : {nd})")
    rng = np.random.default_rng(0)
    args = {"x": rng.standard_normal((16, 16)).astype(np.float32),
            "b": rng.standard_normal((16, 16)).astype(np.float32),
            "out": np.zeros((16, 16), np.float32)}
    result = Kernel.from_text(text, "pipe.pto").run(args, target="a5")
    # NZ element (r, c) of a 16-row f32 tile is flat element (c // 8) * 128 + r * 8 + c % 8
    flat = args["x"].reshape(-1)
    seen = np.array([[flat[(c // 8) * 128 + r * 8 + c % 8] for c in range(16)]
                     for r in range(16)], np.float32)
    assert not np.array_equal(seen, args["x"])
    got = np.asarray(result.outputs["out"]).reshape(16, 16)
    np.testing.assert_allclose(got, golden(seen, args["b"], 16, False), rtol=1e-5, atol=1e-4)


def test_pop_with_a_dynamic_valid_shape_and_no_operands_is_the_full_tile() -> None:
    """PTOAS accepts a '?' valid shape without (valid_row, valid_col) and sets none (lit
    tpush_tpop_dynamic_validshape_default_a5): the popped tile is valid in full."""
    text = kernel(0, 2, 2, v2c=True, c2v=False)
    mat = tile("mat", 16, 16)
    dyn = mat.replace("v_row=16, v_col=16", "v_row=?, v_col=?")
    for old in (f"-> {mat}", f"pto.tmov ins(%xp : {mat})"):
        assert old in text
        text = text.replace(old, old.replace(mat, dyn))
    rng = np.random.default_rng(3)
    args = {"x": rng.standard_normal((32, 16)).astype(np.float32),
            "b": rng.standard_normal((16, 16)).astype(np.float32),
            "out": np.zeros((32, 16), np.float32)}
    result = Kernel.from_text(text, "pipe.pto").run(args, target="a5")
    got = np.asarray(result.outputs["out"]).reshape(32, 16)
    np.testing.assert_allclose(got, golden(args["x"], args["b"], 16, False), rtol=1e-5,
                               atol=1e-4)
    assert [f.message for f in result.findings] == []


def test_pop_operands_need_a_dynamic_valid_shape() -> None:
    from ptosim.errors import PtoSyntaxError
    text = kernel(0, 1, 1, v2c=True, c2v=False)
    old = "%xp = pto.tpop_from_aiv {"
    text = text.replace(old, "%xp = pto.tpop_from_aiv (%c16, %c16) {")
    with pytest.raises(PtoSyntaxError, match=r"expects tile result to have dynamic validShape "
                                            r"\(\?, \?\) when valid_row/valid_col operands"):
        Kernel.from_text(text, "pipe.pto")
