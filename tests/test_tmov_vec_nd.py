"""TMOV Vec -> Vec between ND tiles: the bytes each target writes.

a5 (TMovVecToVec) stores exactly the valid region both tiles share with predicated vector
stores; a2a3 (TMovToVecImpl) copies 32-byte blocks with copy_ubuf_to_ubuf, whole rows in
one burst when the tiles are equally wide (or dst is one row) and dst's valid columns are
its columns (statically, or as the shared count), else each row's blocks.
"""

from __future__ import annotations

import numpy as np
import pytest

import ptosim

MARK = -7.0


def _run(target: str, src_shape, src_valid, dst_shape, dst_valid):
    m = ptosim.Machine(target=target)
    src = m.tile("Vec", "f32", *src_shape, valid=src_valid)
    dst = m.tile("Vec", "f32", *dst_shape, valid=dst_valid)
    data = np.arange(src_shape[0] * src_shape[1], dtype=np.float32).reshape(src_shape)
    m.write(src.ptr, data.ravel())
    m.write(dst.ptr, np.full(dst_shape[0] * dst_shape[1], MARK, np.float32))
    m.TMOV(dst, src)
    return data, m.read(dst.ptr, dst_shape[0] * dst_shape[1]).reshape(dst_shape)


@pytest.mark.parametrize("src_valid, dst_valid", [((5, 37), (6, 40)), ((8, 64), (3, 9)),
                                                  ((8, 64), (8, 64)), ((1, 1), (8, 64))])
def test_a5_writes_exactly_the_shared_valid_region(src_valid, dst_valid):
    data, got = _run("a5", (8, 64), src_valid, (8, 64), dst_valid)
    r, c = min(src_valid[0], dst_valid[0]), min(src_valid[1], dst_valid[1])
    want = np.full((8, 64), MARK, np.float32)
    want[:r, :c] = data[:r, :c]
    np.testing.assert_array_equal(got, want)


def test_a5_different_widths():
    data, got = _run("a5", (4, 64), (3, 20), (6, 24), (6, 24))
    want = np.full((6, 24), MARK, np.float32)
    want[:3, :20] = data[:3, :20]
    np.testing.assert_array_equal(got, want)


def _blocks(cols: int) -> int:
    return -(-cols * 4 // 32) * 8          # f32 elements in whole 32 B blocks


@pytest.mark.parametrize("src_valid, dst_valid, whole_rows", [
    ((5, 37), (6, 64), True),       # equal widths, dst's valid cols are its cols: one burst
    ((5, 64), (6, 64), True),
    ((5, 64), (6, 40), False),      # else each row's blocks of the shared columns
    ((5, 37), (6, 40), False),
])
def test_a2a3_block_copies(src_valid, dst_valid, whole_rows):
    data, got = _run("a2a3", (8, 64), src_valid, (8, 64), dst_valid)
    r, c = min(src_valid[0], dst_valid[0]), min(src_valid[1], dst_valid[1])
    want = np.full((8, 64), MARK, np.float32)
    if whole_rows:
        want[:r] = data[:r]
    else:
        want[:r, :_blocks(c)] = data[:r, :_blocks(c)]
    np.testing.assert_array_equal(got, want)


def test_a2a3_different_widths_copy_each_rows_blocks():
    data, got = _run("a2a3", (4, 64), (3, 20), (6, 32), (6, 32))
    want = np.full((6, 32), MARK, np.float32)
    want[:3, :24] = data[:3, :24]           # 20 f32 = 80 B -> three 32 B blocks
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dst_valid, cols", [((1, 32), 32), ((1, 12), 16)])
def test_a2a3_one_row_dst(dst_valid, cols):
    """A one-row dst of another width: its whole row when its valid columns are its
    columns, else the shared columns' blocks."""
    data, got = _run("a2a3", (4, 64), (4, 64), (1, 32), dst_valid)
    want = np.full((1, 32), MARK, np.float32)
    want[0, :cols] = data[0, :cols]
    np.testing.assert_array_equal(got, want)


def test_a2a3_block_copies_replay():
    """Repeated a2a3 Vec -> Vec TMOVs replay their bursts and follow new data."""
    m = ptosim.Machine(target="a2a3")
    v, w = m.tile("Vec", "f32", 8, 64), m.tile("Vec", "f32", 8, 64)
    rng = np.random.default_rng(3)
    for _ in range(3):
        m.write(v.ptr, rng.standard_normal(8 * 64).astype(np.float32))
        m.TMOV(w, v)
        np.testing.assert_array_equal(m.read(w.ptr, 8 * 64), m.read(v.ptr, 8 * 64))
    assert ("TMOV", id(w)) in {(key[0], key[1]) for key in m._tile_plans}


DN_KERNEL = """module attributes {pto.target_arch = "TARGET", pto.kernel_kind = #pto.kernel_kind<vector>} {
  func.func @k(%src: !pto.ptr<f32, gm>, %dst: !pto.ptr<f32, gm>) attributes {pto.aicore} {
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %c128 = arith.constant 128 : index
    %sv = pto.make_tensor_view %src, shape = [%c1, %c1, %c1, %c16, %c8],
      strides = [%c128, %c128, %c128, %c1, %c16] : !pto.tensor_view<1x1x1x16x8xf32>
    %dv = pto.make_tensor_view %dst, shape = [%c1, %c1, %c1, %c16, %c8],
      strides = [%c128, %c128, %c128, %c1, %c16] : !pto.tensor_view<1x1x1x16x8xf32>
    %a = pto.alloc_tile : !pto.tile_buf<vec, 16x8xf32, valid=11x5, blayout=col_major>
    %b = pto.alloc_tile : !pto.tile_buf<vec, 16x8xf32, blayout=col_major>
    pto.tload ins(%dv : !pto.tensor_view<1x1x1x16x8xf32>)
      outs(%b : !pto.tile_buf<vec, 16x8xf32, blayout=col_major>)
    pto.tload ins(%sv : !pto.tensor_view<1x1x1x16x8xf32>)
      outs(%a : !pto.tile_buf<vec, 16x8xf32, valid=11x5, blayout=col_major>)
    pto.set_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]
    pto.wait_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]
    pto.tmov ins(%a : !pto.tile_buf<vec, 16x8xf32, valid=11x5, blayout=col_major>)
      outs(%b : !pto.tile_buf<vec, 16x8xf32, blayout=col_major>)
    pto.set_flag["PIPE_V", "PIPE_MTE3", "EVENT_ID0"]
    pto.wait_flag["PIPE_V", "PIPE_MTE3", "EVENT_ID0"]
    pto.tstore ins(%b : !pto.tile_buf<vec, 16x8xf32, blayout=col_major>)
      outs(%dv : !pto.tensor_view<1x1x1x16x8xf32>)
    return
  }
}
"""


def test_pto_tmov_dn_to_dn_runs_as_ptoas_compiles_it_on_a5():
    """PTOAS's a5 pass turns a Vec DN -> DN tmov into TMOV of the ND tiles of the
    transposed shapes (8 x 16, valid 5 x 11): exactly the shared valid region moves."""
    from ptosim.kernel import Kernel

    k = Kernel.from_text(DN_KERNEL.replace("TARGET", "a5"), "k.pto")
    col_major = np.arange(128, dtype=np.float32)                 # 8 columns of 16
    run = k.run({"src": col_major, "dst": np.full(128, -1.0, np.float32)})
    got = run.outputs["dst"].reshape(8, 16)                     # [column][row]
    want = np.full((8, 16), -1.0, np.float32)
    want[:5, :11] = col_major.reshape(8, 16)[:5, :11]
    np.testing.assert_array_equal(got, want)
    assert not run.findings


def test_python_tmov_dn_to_dn_stays_pto_isa_s():
    """The Python face follows pto-isa's C++ (a5's generic row copy ignores the layout):
    not modelled, refused by name."""
    m = ptosim.Machine(target="a5")
    a = m.tile("Vec", "f32", 16, 8, blayout="ColMajor")
    b = m.tile("Vec", "f32", 16, 8, blayout="ColMajor")
    with pytest.raises(ptosim.NotImplementedOpError,
                       match="TMOV Vec -> Vec is implemented for ND tiles"):
        m.TMOV(b, a)


def test_pto_tmov_dn_to_dn_on_a2a3_is_not_rewritten():
    from ptosim.kernel import Kernel

    text = DN_KERNEL.replace("TARGET", "a2a3").replace("valid=11x5, ", "")
    k = Kernel.from_text(text, "k.pto")
    with pytest.raises(ptosim.NotImplementedOpError,
                       match="TMOV Vec -> Vec is implemented for ND tiles"):
        k.run({"src": np.zeros(128, np.float32), "dst": np.zeros(128, np.float32)})


# a5 TINSERT of an ND Vec tile into a Mat tile (TInsertNDImpl): raw ND rows at
# dst + (r0 x dst cols + c0), whatever dst's layout, in whole 32 B bursts
@pytest.mark.parametrize("src_shape, valid, dst_shape, r0, c0", [
    ((8, 32), (5, 24), (16, 32), 2, 8),      # rows of 96 B: three blocks each, row gaps
    ((8, 32), (8, 32), (16, 32), 4, 0),      # whole equal rows: one burst
    ((8, 8), (8, 8), (16, 32), 0, 8),        # 32 B rows
    ((4, 16), (3, 5), (16, 32), 0, 0),       # rows under 32 B: one burst of ceil(bytes/32)
])
def test_tinsert_nd_vec_into_mat_copies_raw_rows(src_shape, valid, dst_shape, r0, c0):
    m = ptosim.Machine(target="a5")
    src = m.tile("Vec", "f32", *src_shape, valid=valid)
    dst = m.tile("Mat", "f32", *dst_shape, blayout="ColMajor", slayout="RowMajor")
    data = np.arange(1, src_shape[0] * src_shape[1] + 1, dtype=np.float32)
    m.write(src.ptr, data)
    m.write(dst.ptr, np.full(dst_shape[0] * dst_shape[1], MARK, np.float32))
    m.TINSERT(dst, src, r0, c0)
    got = m.read(dst.ptr, dst_shape[0] * dst_shape[1])
    want = np.full(dst_shape[0] * dst_shape[1], MARK, np.float32)
    first = r0 * dst_shape[1] + c0                  # elements
    vr, vc = valid
    if vc * 4 < 32:                                   # one burst of all the valid bytes
        n = -(-vr * vc * 4 // 32) * 8
        want[first:first + n] = data[:n]
    else:
        per_row = vc * 4 // 32 * 8                    # whole blocks of each row
        for i in range(vr):
            want[first + i * dst_shape[1]:first + i * dst_shape[1] + per_row] = \
                data[i * src_shape[1]:i * src_shape[1] + per_row]
    np.testing.assert_array_equal(got, want)


def test_tinsert_nd_vec_into_mat_past_the_tile_is_refused():
    m = ptosim.Machine(target="a5")
    src = m.tile("Vec", "f32", 8, 32)
    dst = m.tile("Mat", "f32", 16, 32, blayout="ColMajor", slayout="RowMajor")
    with pytest.raises(ptosim.VerifyError, match=r"TINSERT: the insert's raw rows at \(12, 0\) "
                                                 r"write bytes \[1536, 2560\) past the 2048 B"):
        m.TINSERT(dst, src, 12, 0)
